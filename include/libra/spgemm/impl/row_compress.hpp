#pragma once
// Compressing each row's expanded products into C.
//
// Symbolic (pattern): the distinct columns of a row. Rows whose products fit team
// scratch are sorted there (team_sort) and deduplicated; longer rows mark their
// columns in a bitmap over C's columns (one bitmap per concurrently running team,
// reused from row to row), which yields the columns already sorted.
//
// Numeric (values, pattern known): each product's position in C's sorted row is
// found by binary search and its value added there, in team scratch when the row
// of C fits, else directly in C's values with atomics.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/team_sort.hpp"
#include "libra/core/spaces.hpp"

namespace libra::impl {

// Products of row i of C occupy [row_begin(i), row_begin(i+1)) of the buffers.
template <class Exec, class Ordinal>
struct RowsOfProducts {
  using mem = typename Exec::memory_space;
  Kokkos::View<const std::uint64_t*, mem> row_begin;  // num_rows + 1
  Kokkos::View<Ordinal*, mem> col;                    // column of each product
};

template <class Exec, class Ordinal>
struct UniqueInScratch {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using keys_scratch = Kokkos::View<Ordinal*, scratch, Kokkos::MemoryUnmanaged>;
  using total_scratch = Kokkos::View<int, scratch, Kokkos::MemoryUnmanaged>;

  RowsOfProducts<Exec, Ordinal> products;
  Kokkos::View<const std::uint32_t*, mem> rows;  // this bin's rows
  std::size_t first;                             // offset of the bin in rows
  Kokkos::View<std::uint64_t*, mem> unique;      // distinct columns per row (output)
  int capacity;                                  // keys per team (a power of two)
  Ordinal pad;                                   // sorts after every column index

  static std::size_t scratch_bytes(int capacity) {
    return keys_scratch::shmem_size(capacity) + total_scratch::shmem_size();
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    keys_scratch keys(team.team_scratch(0), capacity);
    total_scratch total(team.team_scratch(0));
    const std::uint32_t r = rows(first + team.league_rank());
    const std::uint64_t b = products.row_begin(r);
    const int n = static_cast<int>(products.row_begin(r + 1) - b);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                         [&](int t) { keys(t) = products.col(b + t); });
    team.team_barrier();
    team_sort(team, keys, n, pad);
    // Distinct columns go back to the start of the row's own segment.
    const auto out = Kokkos::subview(products.col, Kokkos::make_pair(b, b + n));
    const int u = team_unique(team, keys, n, out, total);
    Kokkos::single(Kokkos::PerTeam(team),
                   [&]() { unique(r) = static_cast<std::uint64_t>(u); });
  }
};

template <class Exec, class Ordinal>
struct UniqueInBitmap {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using total_scratch = Kokkos::View<std::uint64_t, scratch, Kokkos::MemoryUnmanaged>;

  RowsOfProducts<Exec, Ordinal> products;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first, count;  // the bin's rows
  Kokkos::View<std::uint64_t*, mem> unique;
  Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, mem> bitmap;  // slots x words

  static std::size_t scratch_bytes() { return total_scratch::shmem_size(); }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    total_scratch total(team.team_scratch(0));
    const std::size_t slot = static_cast<std::size_t>(team.league_rank());
    const std::size_t slots = static_cast<std::size_t>(team.league_size());
    const auto words = bitmap.extent(1);
    auto bits = Kokkos::subview(bitmap, slot, Kokkos::ALL());
    for (std::size_t j = slot; j < count; j += slots) {
      const std::uint32_t r = rows(first + j);
      const std::uint64_t b = products.row_begin(r);
      const std::uint64_t n = products.row_begin(r + 1) - b;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, words),
                           [&](std::size_t w) { bits(w) = 0; });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](std::uint64_t t) {
        const auto c = static_cast<std::uint64_t>(products.col(b + t));
        atomic_set_bits(&bits(c / 64), std::uint64_t(1) << (c % 64));
      });
      team.team_barrier();
      // Set bits in column order are the row's distinct columns, already sorted.
      Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, words),
                            [&](std::size_t w, std::uint64_t& pos, bool final) {
                              std::uint64_t word = bits(w);
                              if (final) {
                                std::uint64_t p = pos;
                                while (word) {
                                  const int bit = popcount64((word & (~word + 1)) - 1);
                                  products.col(b + p++) =
                                      static_cast<Ordinal>(w * 64 + bit);
                                  word &= word - 1;
                                }
                                if (w + 1 == words) total() = p;
                              }
                              pos += popcount64(bits(w));
                            });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { unique(r) = total(); });
      team.team_barrier();
    }
  }
};

// Numeric, row of C in scratch: columns copied in, values accumulated there with
// scratch atomics, then added to C (one team per row, so no race on C).
template <class Exec, class Scalar, class Ordinal, class Offset>
struct AccumulateInScratch {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using cols_scratch = Kokkos::View<Ordinal*, scratch, Kokkos::MemoryUnmanaged>;
  using vals_scratch = Kokkos::View<Scalar*, scratch, Kokkos::MemoryUnmanaged>;

  RowsOfProducts<Exec, Ordinal> products;
  Kokkos::View<const Scalar*, mem> product_val;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first;
  Kokkos::View<const Offset*, mem> c_row_map;
  Kokkos::View<const Ordinal*, mem> c_col;
  Kokkos::View<Scalar*, mem> c_val;
  int capacity;  // entries of a C row that fit

  static std::size_t scratch_bytes(int capacity) {
    return cols_scratch::shmem_size(capacity) + vals_scratch::shmem_size(capacity);
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    cols_scratch cols(team.team_scratch(0), capacity);
    vals_scratch vals(team.team_scratch(0), capacity);
    const std::uint32_t r = rows(first + team.league_rank());
    const Offset c0 = c_row_map(r);
    const int len = static_cast<int>(c_row_map(r + 1) - c0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](int t) {
      cols(t) = c_col(c0 + t);
      vals(t) = Scalar(0);
    });
    team.team_barrier();
    const std::uint64_t b = products.row_begin(r);
    const std::uint64_t n = products.row_begin(r + 1) - b;
    const bool alone = team.team_size() == 1;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](std::uint64_t t) {
      const Ordinal c = products.col(b + t);
      int lo = 0, hi = len - 1;  // c is in the row: symbolic put it there
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (cols(mid) < c) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (alone) {
        vals(lo) += product_val(b + t);
      } else {
        Kokkos::atomic_add(&vals(lo), product_val(b + t));
      }
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len),
                         [&](int t) { c_val(c0 + t) += vals(t); });
  }
};

// Numeric, long rows of C: binary search in C's row in global memory and atomic
// adds there (team threads of one row may hit the same entry).
template <class Exec, class Scalar, class Ordinal, class Offset>
struct AccumulateInPlace {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;

  RowsOfProducts<Exec, Ordinal> products;
  Kokkos::View<const Scalar*, mem> product_val;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first;
  Kokkos::View<const Offset*, mem> c_row_map;
  Kokkos::View<const Ordinal*, mem> c_col;
  Kokkos::View<Scalar*, mem> c_val;

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::uint32_t r = rows(first + team.league_rank());
    const Offset c0 = c_row_map(r);
    const Offset c1 = c_row_map(r + 1);
    const std::uint64_t b = products.row_begin(r);
    const std::uint64_t n = products.row_begin(r + 1) - b;
    const bool alone = team.team_size() == 1;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](std::uint64_t t) {
      const Ordinal c = products.col(b + t);
      Offset lo = c0, hi = c1 - 1;
      while (lo < hi) {
        const Offset mid = lo + (hi - lo) / 2;
        if (c_col(mid) < c) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (alone) {
        c_val(lo) += product_val(b + t);
      } else {
        Kokkos::atomic_add(&c_val(lo), product_val(b + t));
      }
    });
  }
};

// Numeric, long rows of C with room for dense accumulators: each team owns a
// zeroed array over C's columns; products are added there (one atomic each, no
// search), then read back along C's pattern, which also re-zeroes them.
template <class Exec, class Scalar, class Ordinal, class Offset>
struct AccumulateDense {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;

  RowsOfProducts<Exec, Ordinal> products;
  Kokkos::View<const Scalar*, mem> product_val;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first, count;
  Kokkos::View<const Offset*, mem> c_row_map;
  Kokkos::View<const Ordinal*, mem> c_col;
  Kokkos::View<Scalar*, mem> c_val;
  Kokkos::View<Scalar**, Kokkos::LayoutRight, mem> dense;  // slots x columns, zero

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::size_t slot = static_cast<std::size_t>(team.league_rank());
    const std::size_t slots = static_cast<std::size_t>(team.league_size());
    auto acc = Kokkos::subview(dense, slot, Kokkos::ALL());
    const bool alone = team.team_size() == 1;
    for (std::size_t j = slot; j < count; j += slots) {
      const std::uint32_t r = rows(first + j);
      const std::uint64_t b = products.row_begin(r);
      const std::uint64_t n = products.row_begin(r + 1) - b;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](std::uint64_t t) {
        if (alone) {
          acc(products.col(b + t)) += product_val(b + t);
        } else {
          Kokkos::atomic_add(&acc(products.col(b + t)), product_val(b + t));
        }
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, c_row_map(r), c_row_map(r + 1)),
                           [&](Offset p) {
                             c_val(p) += acc(c_col(p));
                             acc(c_col(p)) = Scalar(0);
                           });
      team.team_barrier();
    }
  }
};

}  // namespace libra::impl
