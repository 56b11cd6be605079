#pragma once
// CSC and COO SpMV in tiles, Libra's choice on GPUs (spmv_scatter_tiles_chosen;
// SpmvOptions' scatter_tiles = 1 forces them anywhere): y was scaled by beta before,
// and a team per tile adds the tile's products into y with atomics, reading A's arrays
// with consecutive threads on consecutive entries (coalesced). The
// thread-per-segment kernels (csc_scatter.hpp, coo_runs.hpp) read 16 or 32
// entries apart across a warp, and CSC's searched col_map twice a thread.
//  - CSC: the merge path of column ends and nonzeros is cut into tiles of
//    threads x items, as CSR's tiles cut row ends (csr_tiles.hpp). One thread
//    finds the tile's two boundaries; the team reads the column ends that fall
//    in the tile into scratch; each thread walks `items` steps of the path and
//    writes the local column of each nonzero it passes; then each nonzero,
//    read by consecutive threads, adds values(p) * x(its column) into
//    y(row_idx(p)). A column's rows are distinct, so there is nothing to sum
//    before the atomic; hub columns and empty ones balance as the path does.
//  - COO: tiles of threads x items nonzeros. The team stages each nonzero's
//    row and product in scratch (coalesced reads), then each thread sums the
//    runs of equal rows among its `items` consecutive entries and adds each
//    run with one atomic: a COO sorted by row (Libra's) makes one atomic per
//    row and thread, any other order stays correct.
// Both share CSR's tile shape (threads, items per thread, scratch cap).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/merge_path.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/common.hpp"
#include "libra/spmv/impl/coo_runs.hpp"
#include "libra/spmv/impl/csc_scatter.hpp"
#include "libra/spmv/impl/csr_tiles.hpp"
#include "libra/spmv/options.hpp"

namespace libra::impl {

// Whether CSC's and COO's scatter take the tiles: on GPUs unless `forced`
// (SpmvOptions' scatter_tiles) is -1, on any space where it is 1. Measured on
// an H100 (perf_tests/report/h100/scatter_tiles/: 26 matrices, R-MAT 16-21
// and two 135-140M-entry bands) the tiles take 0.71x the segments' time for
// CSC and 0.46x for COO (geometric means), and are faster on every matrix;
// on 2 host cores they take 8-380x the segments' time (a team barrier for
// every tile of 16 items: perf_tests/report/host/scatter_tiles/).
template <class Exec>
bool spmv_scatter_tiles_chosen(int forced) {
  return forced > 0 || (forced == 0 && LaunchTraits<Exec>::is_gpu);
}

template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
struct SpmvCscTiles {
  using S = typename YView::non_const_value_type;
  using member = typename TilePolicy<Exec>::member_type;
  using scratch = typename Exec::scratch_memory_space;
  // Column ends and columns relative to the tile: at most a tile's length.
  using Ints = Kokkos::View<std::int32_t*, scratch, Kokkos::MemoryUnmanaged>;
  using Coords = Kokkos::View<std::int64_t*, scratch, Kokkos::MemoryUnmanaged>;

  ColMap col_map;
  Index row_idx;
  Values values;
  XView X;
  YView Y;
  S alpha;
  std::int64_t cols, nnz, items, x_base, y_base, K;

  static std::size_t scratch_bytes(int threads, std::int64_t items) {
    const std::size_t tile = static_cast<std::size_t>(threads) * items;
    return 2 * Ints::shmem_size(tile) + Coords::shmem_size(4);
  }

  KOKKOS_FUNCTION void operator()(const member& team) const {
    const int T = team.team_size();
    const int th = team.team_rank();
    const std::int64_t tile = static_cast<std::int64_t>(T) * items;
    const std::int64_t total = cols + nnz;
    Ints ends(team.team_scratch(0), tile);
    Ints column(team.team_scratch(0), tile);
    Coords at(team.team_scratch(0), 4);
    for (int b = th; b < 2; b += T) {  // the tile's first and last boundary
      const std::int64_t d = (team.league_rank() + b) * tile;
      std::int64_t c, j;
      merge_path_search(col_map, cols, nnz, d < total ? d : total, c, j);
      at(2 * b) = c;
      at(2 * b + 1) = j;
    }
    team.team_barrier();
    const std::int64_t c0 = at(0), j0 = at(1);
    // Within the tile, 32-bit counts: the kernel holds 32 registers a thread.
    const int nc = static_cast<int>(at(2) - c0), nz = static_cast<int>(at(3) - j0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nc), [&](const int k) {
      ends(k) =
          static_cast<std::int32_t>(static_cast<std::int64_t>(col_map(c0 + k + 1)) - j0);
    });
    team.team_barrier();

    const int n = nc + nz;
    const int step = static_cast<int>(items);
    const int e0 = th * step < n ? th * step : n;
    const int e1 = e0 + step < n ? e0 + step : n;
    std::int64_t found_c, found_j;
    merge_path_search(TileRowEnds<Ints>{ends}, nc, nz, e0, found_c, found_j);
    int ci = static_cast<int>(found_c), nj = static_cast<int>(found_j);
    for (int e = e0; e < e1; ++e) {
      if (ci < nc && ends(ci) <= nj) {
        ++ci;  // column c0 + ci ends here
      } else {
        column(nj) = ci;
        ++nj;
      }
    }
    team.team_barrier();

    const std::int64_t KK = spmv_k<YView>(K);
    const std::int64_t xc0 = x_base + c0;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nz), [&](const int q) {
      const std::int64_t p = j0 + q;
      const std::int64_t c = xc0 + column(q);
      const std::int64_t r = y_base + static_cast<std::int64_t>(row_idx(p));
      const S v = alpha * values(p);
      for (std::int64_t k = 0; k < KK; ++k) {
        spmv_add<Exec>(spmv_at(Y, r, k), v * spmv_at(X, c, k));
      }
    });
  }
};

template <class Exec, class Index, class Values, class XView, class YView>
struct SpmvCooTiles {
  using S = typename YView::non_const_value_type;
  using I = typename Index::non_const_value_type;
  using member = typename TilePolicy<Exec>::member_type;
  using scratch = typename Exec::scratch_memory_space;
  using Rows = Kokkos::View<I*, scratch, Kokkos::MemoryUnmanaged>;
  using Products = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;

  Index row_idx, col_idx;
  Values values;
  XView X;
  YView Y;
  S alpha;
  std::int64_t nnz, items, row_shift, K;

  static std::size_t scratch_bytes(int threads, std::int64_t items) {
    const std::size_t tile = static_cast<std::size_t>(threads) * items;
    return Rows::shmem_size(tile) + Products::shmem_size(tile);
  }

  KOKKOS_FUNCTION void operator()(const member& team) const {
    const int T = team.team_size();
    const int th = team.team_rank();
    const std::int64_t tile = static_cast<std::int64_t>(T) * items;
    const std::int64_t p0 = team.league_rank() * tile;
    const std::int64_t nz = p0 + tile < nnz ? tile : nnz - p0;
    Rows rows(team.team_scratch(0), tile);
    Products prod(team.team_scratch(0), tile);
    const std::int64_t e0 = th * items < nz ? th * items : nz;
    const std::int64_t e1 = e0 + items < nz ? e0 + items : nz;
    const std::int64_t KK = spmv_k<YView>(K);
    for (std::int64_t k = 0; k < KK; ++k) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nz), [&](const std::int64_t q) {
        const std::int64_t p = p0 + q;
        if (k == 0) rows(q) = row_idx(p);
        prod(q) = values(p) * spmv_at(X, static_cast<std::int64_t>(col_idx(p)), k);
      });
      team.team_barrier();
      std::int64_t e = e0;
      while (e < e1) {
        const I r = rows(e);
        S sum = S(0);
        for (; e < e1 && rows(e) == r; ++e) sum += prod(e);
        spmv_add<Exec>(spmv_at(Y, static_cast<std::int64_t>(r) - row_shift, k),
                       alpha * sum);
      }
      team.team_barrier();  // before the next vector's products replace these
    }
  }
};

// Launches `k` (SpmvCscTiles or SpmvCooTiles) over tiles of `total` items in
// the tile shape `tuning` and the space choose. Returns the number of tiles.
template <class Exec, class Kernel>
std::int64_t spmv_scatter_tiles(const char* label, const Exec& exec, Kernel k,
                                std::int64_t total, const SpmvOptions::Tuning& tuning) {
  const TileShape shape =
      spmv_tile_shape(exec, k, tuning.segment_items, tuning.tile_threads);
  k.items = shape.items;
  const std::int64_t tiles = shape.tiles(total);
  Kokkos::parallel_for(
      label,
      light_launch(TilePolicy<Exec>(exec, tiles, shape.threads)
                       .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(
                                                shape.threads, shape.items)))),
      k);
  return tiles;
}

// CSC (or a pCSC's local columns, x read at x_base + column) scattered into Y
// at y_base + row, Y scaled before. Returns the number of tiles.
template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
std::int64_t spmv_csc_tiles(const Exec& exec, const ColMap& col_map, const Index& row_idx,
                            const Values& values, std::int64_t cols, const XView& X,
                            std::int64_t x_base, const YView& Y, std::int64_t y_base,
                            typename YView::non_const_value_type alpha,
                            const SpmvOptions::Tuning& tuning) {
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  return spmv_scatter_tiles("libra::spmv::csc::tiles", exec,
                            SpmvCscTiles<Exec, ColMap, Index, Values, XView, YView>{
                                col_map, row_idx, values, X, Y, alpha, cols, nnz, 1,
                                x_base, y_base, spmv_columns(Y)},
                            cols + nnz, tuning);
}

// COO's nonzeros added into Y at row - row_shift, Y scaled before. Returns the
// number of tiles.
template <class Exec, class Index, class Values, class XView, class YView>
std::int64_t spmv_coo_tiles(const Exec& exec, const Index& row_idx, const Index& col_idx,
                            const Values& values, const XView& X, const YView& Y,
                            std::int64_t row_shift,
                            typename YView::non_const_value_type alpha,
                            const SpmvOptions::Tuning& tuning) {
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  if (nnz == 0) return 0;
  return spmv_scatter_tiles(
      "libra::spmv::coo::tiles", exec,
      SpmvCooTiles<Exec, Index, Values, XView, YView>{
          row_idx, col_idx, values, X, Y, alpha, nnz, 1, row_shift, spmv_columns(Y)},
      nnz, tuning);
}

// COO's nonzeros into Y (scaled before) by the tiles or the runs kernel, as
// `tuning.scatter_tiles` and the space choose; `path` says which, `plain`
// whether the runs added rows inside segments without atomics.
template <class Exec, class Index, class Values, class XView, class YView>
std::int64_t spmv_coo_add(const Exec& exec, const Index& row_idx, const Index& col_idx,
                          const Values& values, const XView& X, const YView& Y,
                          std::int64_t row_shift,
                          typename YView::non_const_value_type alpha,
                          const SpmvOptions::Tuning& tuning, SpmvPath& path,
                          bool& plain) {
  plain = false;
  if (spmv_scatter_tiles_chosen<Exec>(tuning.scatter_tiles)) {
    path = SpmvPath::coo_tiles;
    return spmv_coo_tiles(exec, row_idx, col_idx, values, X, Y, row_shift, alpha, tuning);
  }
  path = SpmvPath::coo_runs;
  return spmv_coo_runs(exec, row_idx, col_idx, values, X, Y, row_shift, alpha,
                       tuning.segment_items, tuning.coo_sorted_check, plain);
}

// CSC's nonzeros (a pCSC's local columns, x read at x_base + column) into Y at
// y_base + row (Y scaled before) by the tiles or the atomic scatter, as
// `tuning.scatter_tiles` chooses; `path` says which, `plain` whether the
// scatter added without atomics (spmv_plain_adds).
template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
std::int64_t spmv_csc_add(const Exec& exec, const ColMap& col_map, const Index& row_idx,
                          const Values& values, std::int64_t cols, const XView& X,
                          std::int64_t x_base, const YView& Y, std::int64_t y_base,
                          typename YView::non_const_value_type alpha,
                          const SpmvOptions::Tuning& tuning, SpmvPath& path,
                          bool& plain) {
  plain = false;
  if (spmv_scatter_tiles_chosen<Exec>(tuning.scatter_tiles)) {
    path = SpmvPath::csc_tiles;
    return spmv_csc_tiles(exec, col_map, row_idx, values, cols, X, x_base, Y, y_base,
                          alpha, tuning);
  }
  path = SpmvPath::csc_scatter;
  plain = spmv_plain_adds(exec, tuning.plain_adds);
  return spmv_csc_scatter(exec, col_map, row_idx, values, cols, X, x_base, Y, y_base,
                          alpha, tuning.segment_items, plain);
}

}  // namespace libra::impl
