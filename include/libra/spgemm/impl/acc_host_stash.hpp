#pragma once
// The one-pass fill of host dense accumulators (HostDenseRows): a block of
// rows is computed once, into a pool, before C's row_map is known; then the
// row_map is scanned and a place pass copies each block's rows into C. Without
// it the rows are computed twice: a count pass (the distinct columns of each
// row), the scan, then the fill. The count pass took 15-25% of a host product
// (2 cores); copying C back costs a fraction of that.
//
// Each thread takes a piece of the pool at a time (an atomic on the pool's
// next entry) and writes its blocks' rows one after another into it; a block
// needs room for its bound (each row's products, at most C's columns) before
// it starts. A block that finds no room left is deferred: after the one pass
// its rows are counted, and the place pass fills them straight into C, as the
// two-pass fill does. So a pool smaller than C costs time, never a result.
//
// The pool holds every row's bound when that takes little memory (exact: no
// block is deferred); otherwise it is sized from a sample (every
// sample_stride-th block counted) by the share of products that became
// columns there, with a quarter more and a piece per thread (estimated).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

namespace libra::impl {

template <class F>
struct HostStashBlocks {
  using S = typename F::scalar_type;
  using O = typename F::ordinal_type;
  using Off = typename F::offset_type;
  using mem = typename F::mem;
  using PathRows = typename F::PathRows;
  struct Stash {};    // the one pass
  struct Place {};    // copying blocks into C, filling the deferred ones
  struct Sample {};   // counting every sample_stride-th block
  struct Deferred {}; // counting the deferred blocks
  static constexpr std::uint64_t deferred = ~std::uint64_t(0);
  static constexpr std::int64_t sample_stride = 8;

  // What the passes count, added once per block (host memory: the passes run
  // on host spaces only).
  struct Counts {
    std::uint64_t rows = 0;  // rows with entries, stashed
    PathRows paths;          // of those, copied, merged, sorted
    std::uint64_t flagged = 0, ranked = 0;
    std::uint64_t deferred_rows = 0;  // rows with products in deferred blocks
    std::uint64_t sampled_columns = 0, sampled_bound = 0;  // (bound: products)
    std::uint64_t pool_next = 0;  // the pool's first entry no thread has taken
  };

  F f;
  Kokkos::View<std::uint64_t*, mem> block_at;  // each block's first pool entry
  Kokkos::View<O*, mem> pool_col;
  Kokkos::View<S*, mem> pool_val;  // phase fill_values only
  std::uint64_t* pool_next = nullptr;
  std::uint64_t piece_entries = 0;  // 0: a block's bound at a time
  // Per thread (by f.token): the next entry and the end of its piece, a
  // cache line apart.
  Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, mem> piece;
  std::uint64_t columns = 0;  // C's: no row has more
  Counts* counts = nullptr;

  std::int64_t num_rows = 0;  // f.num_rows (host_row_blocks reads it)
  static std::int64_t blocks(std::int64_t rows) { return F::blocks(rows); }
  static int chunk(std::int64_t rows, std::size_t workers) {
    return F::chunk(rows, workers);
  }

  std::int64_t first(std::int64_t b) const { return b * F::block_rows; }
  std::int64_t end(std::int64_t b) const {
    return std::min(f.num_rows, (b + 1) * F::block_rows);
  }
  // The most entries block b's rows can have (dense-panel rows have no
  // products here).
  std::uint64_t bound(std::int64_t b) const {
    std::uint64_t n = 0;
    for (std::int64_t i = first(b); i < end(b); ++i) {
      n += std::min(f.row_products(i), columns);
    }
    return n;
  }
  // Room for n more entries in the piece of thread id: a new piece when the
  // current one is short (of piece_entries, or of n, whichever is more, cut
  // at the pool's end). False: the pool is spent.
  bool room(const int id, const std::uint64_t n) const {
    std::uint64_t& next = piece(id, 0);
    std::uint64_t& stop = piece(id, 1);
    if (stop - next >= n) return true;
    const std::uint64_t size = pool_col.extent(0);
    std::uint64_t at = *pool_next;
    for (;;) {
      if (at > size || size - at < n) return false;
      const std::uint64_t take = std::min(std::max(n, piece_entries), size - at);
      const std::uint64_t seen = Kokkos::atomic_compare_exchange(pool_next, at, at + take);
      if (seen == at) {
        next = at;
        stop = at + take;
        return true;
      }
      at = seen;
    }
  }

  void operator()(Stash, const std::int64_t b) const {
    const std::uint64_t n = bound(b);
    const int id = f.token.acquire();
    Counts c;
    if (!room(id, n)) {
      block_at(b) = deferred;
      for (std::int64_t i = first(b); i < end(b); ++i) c.deferred_rows += f.row_products(i) > 0;
    } else {
      std::uint64_t& next = piece(id, 0);
      block_at(b) = next;
      S* val = f.phase == F::Phase::fill_values ? pool_val.data() : nullptr;
      for (std::int64_t i = first(b); i < end(b); ++i) {
        const Off m = f.fill_row(i, id, pool_col.data() + next, val ? val + next : nullptr,
                                 c.flagged, c.ranked, c.paths);
        f.unique(i) = static_cast<std::uint64_t>(m);
        c.rows += m > 0;
        next += static_cast<std::uint64_t>(m);
      }
    }
    f.token.release(id);
    add(c);
  }

  void operator()(Place, const std::int64_t b) const {
    std::uint64_t at = block_at(b);
    if (at == deferred) {
      Counts c;
      f.for_block(b, [&](const std::int64_t i, const int id) {
        f.fill_in_c(i, id, c.flagged, c.ranked, c.paths);
      });
      c.paths = PathRows();  // the count of deferred blocks counted them
      add(c);
      return;
    }
    const bool values = f.phase == F::Phase::fill_values;
    for (std::int64_t i = first(b); i < end(b); ++i) {
      if (f.dense(i)) continue;  // dense panels fill their rows
      const Off p = f.c_row_map(i);
      const auto n = static_cast<std::uint64_t>(f.c_row_map(i + 1) - p);
      std::copy(pool_col.data() + at, pool_col.data() + at + n, f.c_col.data() + p);
      if (values) std::copy(pool_val.data() + at, pool_val.data() + at + n, f.c_val.data() + p);
      at += n;
    }
  }

  // Sampled block s * sample_stride: its columns and bound.
  void operator()(Sample, const std::int64_t s) const {
    const std::int64_t b = s * sample_stride;
    Counts c;
    std::uint64_t rows = 0;
    PathRows paths;
    f.for_block(b, [&](const std::int64_t i, const int id) { f.count_row(i, id, rows, paths); });
    for (std::int64_t i = first(b); i < end(b); ++i) c.sampled_columns += f.unique(i);
    // Against the products, as the pool's size scales the sum of every row's.
    for (std::int64_t i = first(b); i < end(b); ++i) c.sampled_bound += f.row_products(i);
    add(c);
  }

  void operator()(Deferred, const std::int64_t b, std::uint64_t& rows) const {
    if (block_at(b) == deferred) f(b, rows);
  }

  void add(const Counts& c) const {
    const auto put = [](std::uint64_t& to, std::uint64_t v) {
      if (v > 0) Kokkos::atomic_add(&to, v);
    };
    put(counts->rows, c.rows);
    put(counts->paths.copied, c.paths.copied);
    put(counts->paths.merged, c.paths.merged);
    put(counts->paths.sorted, c.paths.sorted);
    put(counts->flagged, c.flagged);
    put(counts->ranked, c.ranked);
    put(counts->deferred_rows, c.deferred_rows);
    put(counts->sampled_columns, c.sampled_columns);
    put(counts->sampled_bound, c.sampled_bound);
  }
};

}  // namespace libra::impl
