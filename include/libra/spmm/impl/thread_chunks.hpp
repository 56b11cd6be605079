#pragma once
// SpMM on GPUs without staging: the merge path of A's row ends and nonzeros is
// cut into chunks of `items` steps, one per thread (its vector lanes across
// columns of Y), so a hub row is shared by many threads instead of holding one
// thread of a team while the others idle (a team per panel with a thread per
// row took 0.19 ms on Wiki-Vote, K = 8, on an H100, against cuSPARSE's 0.03).
//  1. SpmmCutRows (beta != 1): every boundary strictly inside a row is found,
//     and the first of each row applies beta to it.
//  2. SpmmThreadChunks: each thread finds its chunk's ends itself (a search at
//     its diagonal, and a short one from there to the next chunk's), so the
//     call needs no temporaries: no allocation, no fence, the caller's
//     execution space instance stays asynchronous. Rows that start and end in
//     the chunk are written with a plain store (Y = beta Y + alpha sum); rows
//     cut by a boundary get alpha times the chunk's share with atomics.
// Columns: each lane keeps up to 8 sums (a column every `lanes` columns), so a
// thread covers `width` = lanes x sums columns; wider K runs the league once per
// block of `width` columns, block by block. With paired columns each lane's
// loads take two adjacent columns of a row-major X at once (one 16-byte load
// for double): half the load instructions per nonzero, twice the bytes each
// has in flight (lane l takes columns 2l and 2l + 1, then 2l + 2 lanes, ...). Narrower
// blocks than that (tuning column_block) were measured slower on an H100: each block
// reads A again, and X's slab staying in L2 did not make up for it (README "SpMM").
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "libra/algorithms/merge_path.hpp"
#include "libra/spmm/impl/team_panels.hpp"

namespace libra::impl {

inline constexpr int chunk_columns = 8;  // sums per vector lane, at most

// `Pair` adjacent columns of a row of X, loaded at once (aligned to their size).
template <class S, int Pair>
struct alignas(Pair * sizeof(S)) ColumnRun {
  S v[Pair];
};

// X(c, k .. k + Pair - 1) in one load: for Pair > 1, X's row c holds them
// contiguously at an address aligned to the run (spmm_pairs_columns checks).
template <int Pair, class XView>
KOKKOS_INLINE_FUNCTION ColumnRun<typename XView::non_const_value_type, Pair> load_columns(
    const XView& X, std::int64_t c, int k) {
  using S = typename XView::non_const_value_type;
  if constexpr (Pair == 1) {
    return ColumnRun<S, 1>{{X(c, k)}};
  } else {
    return *reinterpret_cast<const ColumnRun<S, Pair>*>(&X(c, k));
  }
}

// Merge-path steps per thread: each thread searches its own chunk's ends, so
// longer chunks pay the search less often, but leave fewer threads for small
// matrices. Measured on an H100 (perf_tests/report/h100/spmm_chunks.md, chunks
// of 16, 32 and 64 on 14 matrices, K = 8, 32, 128): 16 is best below 64k
// steps; K <= 8 gains from 32 only beyond 1M steps; K = 128 from 32 below 256k
// steps and 64 beyond. K = 32 (git 85c003b, 8 matrices): 16 below 256k steps
// (bcsstk13, crack, facebook_combined, fe_4elt2 0.83-0.91x the time of 32), 32
// at 415k-600k (ca-AstroPh, bcsstk33: 0.89-0.90x that of 64); R-MAT 18 (4.2M)
// kept 64 in the first sweep, and 2M steps between is a guess. Since 16 < K <=
// 32 takes 8 lanes from 2^18 steps (spmm_chunk_lanes), 16 steps up to 2^20
// (H200, perf_tests/report/h200/spmm_f4a1e58/).
inline std::int64_t spmm_chunk_items(std::int64_t steps, int K) {
  if (steps < (std::int64_t(1) << 16)) return 16;
  if (K <= 8) return steps < (std::int64_t(1) << 20) ? 16 : 32;
  if (K <= 32) {
    if (steps < (std::int64_t(1) << (K > 16 ? 20 : 18))) return 16;
    return steps < (std::int64_t(1) << 21) ? 32 : 64;
  }
  return steps < (std::int64_t(1) << 18) ? 32 : 64;
}

// The most vector lanes a thread of the chunk kernel takes on a GPU, for
// `steps` merge-path steps and K columns (gpu_lanes: a warp's). With paired
// loads at 16 < K <= 32, 16 lanes load a row of X per nonzero; from 2^18 steps,
// 8 lanes (two loads each a nonzero, four chunks a warp) took 0.86-0.92x the
// time on an H200 on R-MAT 17-19 and, with chunks of 16 steps up to 2^20
// (spmm_chunk_items), 0.89-0.99x on bcsstk33, ca-AstroPh, email-Enron,
// luxembourg and R-MAT 16; below 2^18 they lost (perf_tests/report/h200/spmm_f4a1e58/).
inline int spmm_chunk_lanes(std::int64_t steps, int K, bool paired, int gpu_lanes) {
  if (paired && K > 16 && K <= 32 && steps >= (std::int64_t(1) << 18))
    return std::min(8, gpu_lanes);
  return gpu_lanes;
}

// How the chunk kernel covers A and Y: `chunks` chunks of `items` steps,
// `threads` chunks per team, `lanes` vector lanes per thread, and K cut into
// `blocks` blocks of `width` columns (lanes x sums per lane).
struct SpmmChunkShape {
  std::int64_t items = 16;
  std::int64_t chunks = 0;
  int threads = 1;
  int lanes = 1;
  int sums = 1;  // loads per lane and nonzero (columns_per_load x sums sums a lane)
  int width = 1;
  int blocks = 0;
  std::int64_t teams = 0;  // per block of columns

  // block: columns per block asked for (0: up to max_lanes x chunk_columns);
  // lanes from the block's width (over `columns_per_load`), up to max_lanes;
  // 256 GPU threads a team (one on host spaces).
  SpmmChunkShape(std::int64_t rows, std::int64_t nnz, int K, std::int64_t chunk_items,
                 int block, int max_lanes, bool gpu, int columns_per_load = 1) {
    items = chunk_items > 0 ? chunk_items : spmm_chunk_items(rows + nnz, K);
    chunks = (rows + nnz + items - 1) / items;
    const int pair = columns_per_load;
    const int want = std::max(1, std::min(K, block > 0 ? block : K));
    lanes = 1;
    while (lanes * pair < want && lanes < max_lanes) lanes *= 2;
    sums = std::min(chunk_columns / pair, (want + lanes * pair - 1) / (lanes * pair));
    width = lanes * sums * pair;
    blocks = K > 0 ? (K + width - 1) / width : 0;
    threads = gpu ? std::max(1, 256 / lanes) : 1;
    teams = (chunks + threads - 1) / threads;
  }
};

// Applies beta to every row that chunk boundaries cut (at its first boundary),
// and counts the boundaries inside rows: a thread per boundary 1 .. chunks - 1,
// `threads` a team, each with `lanes` vector lanes that scale the row's
// columns side by side. One thread storing all K columns in turn was slow at
// K = 128 on an H100; a warp's lanes per boundary (the chunk kernel's shape)
// were slow at K = 8, where they repeat the search on 8x the warps.
template <class Exec, class RowMap, class YView>
struct SpmmCutRows {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using S = typename YView::non_const_value_type;
  using value_type = std::uint64_t;
  RowMap row_map;
  std::int64_t rows, nnz, items, chunks;
  int threads, lanes;
  YView Y;
  S beta;
  bool scale;  // beta != 1

  // Lanes for K columns: about 8 columns a lane, at most `most` lanes.
  static int lanes_for(int K, int most) {
    int v = 1;
    while (v * 2 <= most && v * 16 <= K) v *= 2;
    return v;
  }

  // Boundary t: whether it lies inside a row (beta applied at the row's first).
  KOKKOS_INLINE_FUNCTION bool cut(const Member& team, std::int64_t t) const {
    if (t >= chunks) return false;
    const std::int64_t d = t * items;  // 0 < t < chunks: inside the path
    std::int64_t i = 0, j = 0;
    merge_path_search(row_map, rows, nnz, d, i, j);
    const SpmmBoundary b = spmm_boundary(row_map, rows, items, d, i, j);
    if (scale && b == SpmmBoundary::first_in_row) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<int>(Y.extent(1))),
                           [&](const int k) { spmm_scale(Y(i, k), beta); });
    }
    return b != SpmmBoundary::between_rows;
  }

  KOKKOS_FUNCTION void operator()(const Member& team, std::uint64_t& inside) const {
    const std::int64_t first = 1 + team.league_rank() * std::int64_t(threads);
    std::uint64_t count = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, threads),
        [&](const int u, std::uint64_t& n) {
          const bool inner = cut(team, first + u);
          Kokkos::single(Kokkos::PerThread(team), [&]() { n += inner ? 1 : 0; });
        },
        count);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { inside += count; });
  }
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = 1 + team.league_rank() * std::int64_t(threads);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads),
                         [&](const int u) { cut(team, first + u); });
  }
};

// Sums: the most loads a lane makes per nonzero (shape.sums <= Sums), Pair
// columns each (the shape's columns_per_load), so that the common widths do not pay 8
// registers' worth of sums and loads.
template <class Exec, class AType, class XView, class YView, int Sums, int Pair = 1>
struct SpmmThreadChunks {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using S = typename YView::non_const_value_type;
  typename AType::row_map_type row_map;
  typename AType::index_type col_idx;
  typename AType::values_type values;
  XView X;
  YView Y;
  S alpha, beta;
  std::int64_t rows, nnz;
  SpmmChunkShape shape;

  // Row i's sums for this lane's columns k0 + r * lanes * Pair (and the Pair - 1
  // after each) below kend: a plain store when the chunk holds the whole row,
  // else an atomic add of the share.
  KOKKOS_INLINE_FUNCTION void write(std::int64_t i, bool cut, const S* sum, int k0,
                                    int kend) const {
    for (int r = 0; r < Sums; ++r) {
      const int k = k0 + r * shape.lanes * Pair;
      if (k >= kend) break;
      for (int v = 0; v < Pair; ++v) {
        spmm_write(Y, i, k + v, alpha, beta, sum[r * Pair + v], cut);
      }
    }
  }

  // sum[r * Pair + v] += A(i, p) X(col(p), k0 + r * lanes * Pair + v) over p
  // in [p, end), in order of p; four nonzeros at a time so that their rows of
  // X load together (eight with paired loads measured slower on an H100: K = 32
  // p2p-Gnutella31 0.052 -> 0.058 ms, bcsstk13 0.029 -> 0.034).
  static constexpr int unroll = 4;
  KOKKOS_INLINE_FUNCTION void add(std::int64_t p, std::int64_t end, S* sum, int k0,
                                  int kend) const {
    using O = std::remove_const_t<typename AType::ordinal_type>;
    const int step = shape.lanes * Pair;
    for (; p + unroll <= end; p += unroll) {
      O c[unroll];
      S a[unroll];
      for (int u = 0; u < unroll; ++u) {
        c[u] = col_idx(p + u);
        a[u] = values(p + u);
      }
      for (int r = 0; r < Sums; ++r) {
        const int k = k0 + r * step;
        if (k < kend) {
          ColumnRun<S, Pair> x[unroll];
          for (int u = 0; u < unroll; ++u) x[u] = load_columns<Pair>(X, c[u], k);
          for (int v = 0; v < Pair; ++v) {
            S s = sum[r * Pair + v];
            for (int u = 0; u < unroll; ++u) s += a[u] * x[u].v[v];
            sum[r * Pair + v] = s;
          }
        }
      }
    }
    for (; p < end; ++p) {
      const auto c = col_idx(p);
      const S a = values(p);
      for (int r = 0; r < Sums; ++r) {
        const int k = k0 + r * step;
        if (k < kend) {
          const auto x = load_columns<Pair>(X, c, k);
          for (int v = 0; v < Pair; ++v) sum[r * Pair + v] += a * x.v[v];
        }
      }
    }
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int K = static_cast<int>(Y.extent(1));
    const std::int64_t block = team.league_rank() / shape.teams;
    const std::int64_t first = (team.league_rank() - block * shape.teams) * shape.threads;
    const int kb = static_cast<int>(block) * shape.width;
    const int kend = kb + shape.width < K ? kb + shape.width : K;
    const std::int64_t total = rows + nnz;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.threads), [&](int t) {
      const std::int64_t c = first + t;
      if (c >= shape.chunks) return;
      const std::int64_t d0 = c * shape.items;
      const std::int64_t d1 = d0 + shape.items < total ? d0 + shape.items : total;
      std::int64_t i0 = 0, j0 = 0, i1 = 0, j1 = 0;
      merge_path_search(row_map, rows, nnz, d0, i0, j0);
      // Row i1 is at most d1 - d0 rows on, and at least d1 - nnz.
      const std::int64_t lo = d1 - nnz > i0 ? d1 - nnz : i0;
      const std::int64_t hi = i0 + (d1 - d0) < rows ? i0 + (d1 - d0) : rows;
      merge_path_search_between(row_map, lo, hi, d1, i1, j1);
      const bool first_cut = i0 < rows && j0 > static_cast<std::int64_t>(row_map(i0));
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, shape.lanes), [&](int lane) {
        const int k0 = kb + lane * Pair;
        S sum[Sums * Pair];
        std::int64_t j = j0;
        for (std::int64_t i = i0; i < i1; ++i) {
          for (int r = 0; r < Sums * Pair; ++r) sum[r] = S(0);
          const std::int64_t end = static_cast<std::int64_t>(row_map(i + 1));
          add(j, end, sum, k0, kend);
          write(i, i == i0 && first_cut, sum, k0, kend);
          j = end;
        }
        if (j < j1) {  // row i1 goes on past the chunk: its share
          for (int r = 0; r < Sums * Pair; ++r) sum[r] = S(0);
          add(j, j1, sum, k0, kend);
          write(i1, true, sum, k0, kend);
        }
      });
    });
  }
};

}  // namespace libra::impl
