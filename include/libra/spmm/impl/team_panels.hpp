#pragma once
// SpMM on GPUs, the pieces the two kernels share and the staged kernel.
// A's rows and nonzeros are cut at equal merge-path lengths (rows + nonzeros),
// so empty rows, long rows and a single huge row all balance: into a chunk per
// thread (thread_chunks.hpp, the default) or, with staging, a panel per team,
// each thread of which takes whole rows, its vector lanes the K columns.
//
// A row that boundaries cut is shared by several pieces: the kernel that finds
// the boundaries applies beta to it at the first boundary inside it
// (Y(i,:) = beta * Y(i,:)), and every piece adds alpha times its share with
// atomics. Rows a piece holds whole are written with a plain store. No carry
// buffer and no fix-up kernel.
//
// Dense-column staging (the paper's SpMM, Section 5.1): a plan kernel sorts each
// panel's column indices in team scratch and lists the columns that more than
// one nonzero of the panel references; the product kernel loads those rows of X
// into team scratch once, and every nonzero that references one reads it there.
// With Q staged rows, K columns and scratch S bytes, Q * (K * sizeof(Scalar) +
// sizeof(Ordinal)) <= S (the paper's 4(MK + MQ) < S for its 4-byte words);
// dense columns beyond that capacity read global memory.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/merge_path.hpp"
#include "libra/algorithms/team_sort.hpp"
#include "libra/core/spaces.hpp"

namespace libra::impl {

template <class Exec>
using PanelBounds = Kokkos::View<std::int64_t**, Kokkos::LayoutRight,
                                 typename Exec::memory_space>;  // panels + 1 x 2

// Where the boundary at diagonal d of pieces `items` long, at (i, j), lies:
// strictly inside row i (j > row_map(i)), the pieces on both sides sharing the
// row; and whether it is the row's first such boundary (the previous one, at
// d - items, is not inside it), which applies beta to the row so that every
// piece can then add its share with atomics.
enum class SpmmBoundary { between_rows, inside_row, first_in_row };
template <class RowMap>
KOKKOS_INLINE_FUNCTION SpmmBoundary spmm_boundary(const RowMap& row_map,
                                                  std::int64_t rows, std::int64_t items,
                                                  std::int64_t d, std::int64_t i,
                                                  std::int64_t j) {
  if (i >= rows) return SpmmBoundary::between_rows;
  // Row i begins at diagonal i + row_map(i).
  const std::int64_t begin = static_cast<std::int64_t>(row_map(i));
  if (j <= begin) return SpmmBoundary::between_rows;
  return d - items <= i + begin ? SpmmBoundary::first_in_row : SpmmBoundary::inside_row;
}

// y = beta * y; beta == 0 writes zeros (NaN or Inf in y do not survive).
template <class S>
KOKKOS_INLINE_FUNCTION void spmm_scale(S& y, S beta) {
  y = beta == S(0) ? S(0) : beta * y;
}

// True when the boundary lies inside row i; at the row's first, with `scale`,
// applies beta to the row's K columns.
template <class RowMap, class YView>
KOKKOS_INLINE_FUNCTION bool spmm_cut_row(const RowMap& row_map, std::int64_t rows,
                                         std::int64_t items, std::int64_t d,
                                         std::int64_t i, std::int64_t j, const YView& Y,
                                         typename YView::non_const_value_type beta,
                                         bool scale) {
  const SpmmBoundary b = spmm_boundary(row_map, rows, items, d, i, j);
  if (scale && b == SpmmBoundary::first_in_row) {
    const std::int64_t K = static_cast<std::int64_t>(Y.extent(1));
    for (std::int64_t k = 0; k < K; ++k) spmm_scale(Y(i, k), beta);
  }
  return b != SpmmBoundary::between_rows;
}

// Boundary t of the staged panels at diagonal t * items of the merge path:
// (first row, first nonzero), beta applied to the rows they cut. The reduction
// counts the boundaries inside rows: the panels that end inside a row.
template <class Exec, class RowMap, class YView>
struct SpmmPanelBounds {
  using S = typename YView::non_const_value_type;
  using value_type = std::uint64_t;
  RowMap row_map;
  std::int64_t rows, nnz, items;
  PanelBounds<Exec> bounds;
  YView Y;
  S beta;
  KOKKOS_FUNCTION void operator()(const std::int64_t t, std::uint64_t& inside) const {
    const std::int64_t total = rows + nnz;
    const std::int64_t d = t * items < total ? t * items : total;
    std::int64_t i = 0, j = 0;
    merge_path_search(row_map, rows, nnz, d, i, j);
    bounds(t, 0) = i;
    bounds(t, 1) = j;
    if (spmm_cut_row(row_map, rows, items, d, i, j, Y, beta, true)) ++inside;
  }
  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    std::uint64_t unused = 0;
    (*this)(t, unused);
  }
};

// Lists, per panel, the columns of A referenced by two or more of the panel's
// nonzeros (sorted, at most `capacity`), and counts the nonzeros served by them.
template <class Exec, class AType>
struct SpmmStagePlan {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using O = typename AType::ordinal_type;
  using keys_scratch = Kokkos::View<O*, scratch, Kokkos::MemoryUnmanaged>;
  using total_scratch = Kokkos::View<int, scratch, Kokkos::MemoryUnmanaged>;

  typename AType::index_type col_idx;
  PanelBounds<Exec> bounds;
  Kokkos::View<O**, Kokkos::LayoutRight, mem> dense;  // panels x capacity
  Kokkos::View<int*, mem> dense_count;                // panels
  Kokkos::View<atomic_u64[2], mem> counters;          // staged rows, staged reads
  int key_capacity;                                   // a power of two >= panel nonzeros
  int capacity;
  O pad;  // sorts after every column index

  static std::size_t scratch_bytes(int key_capacity) {
    return keys_scratch::shmem_size(key_capacity) + total_scratch::shmem_size();
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int t = team.league_rank();
    const std::int64_t j0 = bounds(t, 1);
    const int n = static_cast<int>(bounds(t + 1, 1) - j0);
    if (n == 0) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { dense_count(t) = 0; });
      return;
    }
    keys_scratch keys(team.team_scratch(0), key_capacity);
    total_scratch total(team.team_scratch(0));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                         [&](int q) { keys(q) = col_idx(j0 + q); });
    team.team_barrier();
    team_sort(team, keys, n, pad);
    // The head of every run of two or more equal columns is a dense column.
    const int cap = capacity;
    Kokkos::parallel_scan(
        Kokkos::TeamThreadRange(team, n), [&](int q, int& pos, bool final) {
          const bool head =
              (q == 0 || keys(q) != keys(q - 1)) && q + 1 < n && keys(q + 1) == keys(q);
          if (final) {
            if (head && pos < cap) dense(t, pos) = keys(q);
            if (q == n - 1) total() = pos + (head ? 1 : 0);
          }
          pos += head ? 1 : 0;
        });
    team.team_barrier();
    const int staged = total() < cap ? total() : cap;
    // Nonzeros whose column is one of the staged ones.
    std::uint64_t reads = 0;
    if (staged > 0) {
      const O last = dense(t, staged - 1);
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, n),
          [&](int q, std::uint64_t& sum) {
            const bool repeated = (q > 0 && keys(q - 1) == keys(q)) ||
                                  (q + 1 < n && keys(q + 1) == keys(q));
            if (repeated && keys(q) <= last) ++sum;
          },
          reads);
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      dense_count(t) = staged;
      if (staged > 0) {
        Kokkos::atomic_add(&counters(0), static_cast<atomic_u64>(staged));
        Kokkos::atomic_add(&counters(1), static_cast<atomic_u64>(reads));
      }
    });
  }
};

// Y(i, k) from a panel's or a chunk's sum over row i: a plain store when it
// holds the whole row, else an atomic add of its share (beta was applied to
// the row where the boundaries were found).
template <class YView, class S>
KOKKOS_INLINE_FUNCTION void spmm_write(const YView& Y, std::int64_t i, int k, S alpha,
                                       S beta, S sum, bool shared) {
  if (shared) {
    Kokkos::atomic_add(&Y(i, k), alpha * sum);
  } else {
    Y(i, k) = beta == S(0) ? alpha * sum : beta * Y(i, k) + alpha * sum;
  }
}

// The staged kernel: a team per panel, a thread per row of the panel.
template <class Exec, class AType, class XView, class YView>
struct SpmmStagedPanels {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using S = typename YView::non_const_value_type;
  using O = typename AType::ordinal_type;
  using cols_scratch = Kokkos::View<O*, scratch, Kokkos::MemoryUnmanaged>;
  using rows_scratch =
      Kokkos::View<S**, Kokkos::LayoutRight, scratch, Kokkos::MemoryUnmanaged>;

  typename AType::row_map_type row_map;
  typename AType::index_type col_idx;
  typename AType::values_type values;
  XView X;
  YView Y;
  S alpha, beta;
  std::int64_t rows;
  PanelBounds<Exec> bounds;
  Kokkos::View<const O**, Kokkos::LayoutRight, mem> dense;
  Kokkos::View<const int*, mem> dense_count;
  int capacity = 0;

  static std::size_t scratch_bytes(int capacity, int K) {
    return cols_scratch::shmem_size(capacity) + rows_scratch::shmem_size(capacity, K);
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int t = team.league_rank();
    const std::int64_t i0 = bounds(t, 0), j0 = bounds(t, 1);
    const std::int64_t i1 = bounds(t + 1, 0), j1 = bounds(t + 1, 1);
    const int K = static_cast<int>(Y.extent(1));
    const cols_scratch cols(team.team_scratch(0), capacity);
    const rows_scratch xs(team.team_scratch(0), capacity, K);
    const int nd = dense_count(t);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nd), [&](int d) {
      const O c = dense(t, d);
      Kokkos::single(Kokkos::PerThread(team), [&]() { cols(d) = c; });
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K),
                           [&](int k) { xs(d, k) = X(c, k); });
    });
    team.team_barrier();
    // Row i1 is the panel's too when the panel holds some of its nonzeros (but
    // not its end).
    const std::int64_t last_begin = i1 < rows
                                        ? (static_cast<std::int64_t>(row_map(i1)) > j0
                                               ? static_cast<std::int64_t>(row_map(i1))
                                               : j0)
                                        : j1;
    const bool has_partial = i1 < rows && j1 > last_begin;
    const std::int64_t n = i1 - i0 + (has_partial ? 1 : 0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](std::int64_t r) {
      const std::int64_t i = i0 + r;
      const std::int64_t rb = static_cast<std::int64_t>(row_map(i));
      const std::int64_t re = static_cast<std::int64_t>(row_map(i + 1));
      const std::int64_t pb = rb > j0 ? rb : j0;
      const std::int64_t pe = re < j1 ? re : j1;
      // Shared with other panels (beta applied already): add the share.
      const bool shared = pb > rb || i == i1;
      if (shared && pb == pe) return;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](int k) {
        S sum = S(0);
        for (std::int64_t p = pb; p < pe; ++p) {
          const O c = col_idx(p);
          int lo = 0, hi = nd;
          while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (cols(mid) < c) {
              lo = mid + 1;
            } else {
              hi = mid;
            }
          }
          sum += values(p) * (lo < nd && cols(lo) == c ? xs(lo, k) : X(c, k));
        }
        spmm_write(Y, i, k, alpha, beta, sum, shared);
      });
    });
  }
};

}  // namespace libra::impl
