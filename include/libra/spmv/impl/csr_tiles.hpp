#pragma once
// CSR SpMV by merge path in tiles (Merrill and Garland's GPU form), for one
// right-hand side. The merge path of row ends and nonzeros is cut into tiles of
// threads x items; a first kernel finds every tile's coordinates, then a team per
// tile
//  1. reads the tile's nonzeros and row ends with consecutive threads on
//     consecutive entries (coalesced) into team scratch, values(p) * x(col(p))
//     already multiplied,
//  2. lets each thread walk `items` steps of the path in scratch, writing the
//     rows that end in its steps, and keeping the first such row and its
//     unfinished last row as partial sums,
//  3. completes each thread's first row with the partial sums of the threads
//     before it that ended inside that row (a short walk in scratch).
// The row a tile ends inside goes to a carry that a last kernel adds with
// atomics, once every row has been written, as in csr_merge_path.hpp.
// csr_merge_path.hpp's thread-per-segment kernel reads values 32 entries apart
// across a warp; this one reads them in whole lines.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "libra/algorithms/merge_path.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/common.hpp"
#include "libra/spmv/impl/csr_merge_path.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

// Whether CSR and pCSR take the tiles: by default on GPUs for a vector (rank-1
// x and y); `forced` (SpmvOptions' tuning) 1 takes them for every vector, -1
// never. Blocks of vectors keep the thread-per-segment kernel.
template <class Exec, class YView>
bool spmv_csr_tiles_chosen(int forced) {
  if (YView::rank != 1 || forced < 0) return false;
  return forced > 0 || LaunchTraits<Exec>::is_gpu;
}

// Row ends of the tile relative to its first nonzero, read the way
// merge_path_search reads a row map: ends(k) is where local row k - 1 ends.
template <class Ends>
struct TileRowEnds {
  Ends ends;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t k) const {
    return ends(k - 1);
  }
};

template <class Exec, class RowMap, class Index, class Values, class XView, class YView>
struct SpmvCsrTiles {
  using S = typename YView::non_const_value_type;
  using mem = typename Exec::memory_space;
  using member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using scratch = typename Exec::scratch_memory_space;
  // Row ends relative to the tile's first nonzero are at most a tile's length.
  using Ends = Kokkos::View<std::int32_t*, scratch, Kokkos::MemoryUnmanaged>;
  using Sums = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;
  using Flags = Kokkos::View<int*, scratch, Kokkos::MemoryUnmanaged>;

  RowMap row_map;
  Index col_idx;
  Values values;
  XView X;
  YView Y;
  S alpha, beta, beta_first;
  std::int64_t rows, y_base, items;  // items per thread
  Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, mem> coords;  // tiles+1 x 2
  Kokkos::View<S**, Kokkos::LayoutRight, mem> carry;                    // tiles x 1
  Kokkos::View<std::int64_t*, mem> carry_row;                           // -1: none

  static constexpr int stage = 8;  // loads in flight per thread while staging

  static std::size_t scratch_bytes(int threads, std::int64_t items) {
    const std::size_t tile = static_cast<std::size_t>(threads) * items;
    return Ends::shmem_size(tile) + Sums::shmem_size(tile) + Sums::shmem_size(threads) +
           Flags::shmem_size(threads);
  }

  KOKKOS_INLINE_FUNCTION void write(std::int64_t i, S sum) const {
    const S b = i == 0 ? beta_first : beta;
    auto& y = Y(y_base + i);
    y = b == S(0) ? alpha * sum : b * y + alpha * sum;
  }

  KOKKOS_FUNCTION void operator()(const member& team) const {
    const std::int64_t t = team.league_rank();
    const int T = team.team_size();
    const int th = team.team_rank();
    const std::int64_t i0 = coords(t, 0), j0 = coords(t, 1);
    const std::int64_t i1 = coords(t + 1, 0), j1 = coords(t + 1, 1);
    const std::int64_t nr = i1 - i0, nz = j1 - j0;
    const std::int64_t tile = static_cast<std::int64_t>(T) * items;
    Ends ends(team.team_scratch(0), tile);
    Sums prod(team.team_scratch(0), tile);
    Sums part(team.team_scratch(0), T);
    Flags done(team.team_scratch(0), T);

    // Each thread issues `stage` independent loads before it waits for any: a
    // load-multiply-store loop would wait for two round trips to memory (the
    // column index, then x) per entry.
    for (std::int64_t base = th; base < nz; base += stage * T) {
      S v[stage];
      std::int64_t c[stage];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int u = 0; u < stage; ++u) {
        const std::int64_t q = base + u * T;
        if (q < nz) {
          v[u] = values(j0 + q);
          c[u] = static_cast<std::int64_t>(col_idx(j0 + q));
        }
      }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int u = 0; u < stage; ++u) {
        if (base + u * T < nz) v[u] *= X(c[u]);
      }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int u = 0; u < stage; ++u) {
        const std::int64_t q = base + u * T;
        if (q < nz) prod(q) = v[u];
      }
    }
    for (std::int64_t base = th; base < nr; base += stage * T) {
      std::int64_t e[stage];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int u = 0; u < stage; ++u) {
        const std::int64_t r = base + u * T;
        if (r < nr) e[u] = static_cast<std::int64_t>(row_map(i0 + r + 1));
      }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int u = 0; u < stage; ++u) {
        const std::int64_t r = base + u * T;
        if (r < nr) ends(r) = static_cast<std::int32_t>(e[u] - j0);
      }
    }
    team.team_barrier();

    const std::int64_t n = nr + nz;
    const std::int64_t d0 = th * items < n ? th * items : n;
    const std::int64_t d1 = d0 + items < n ? d0 + items : n;
    std::int64_t ri, nj;
    merge_path_search(TileRowEnds<Ends>{ends}, nr, nz, d0, ri, nj);
    S run = S(0), first_sum = S(0);
    std::int64_t first_row = -1;
    for (std::int64_t d = d0; d < d1; ++d) {
      if (ri < nr && ends(ri) <= nj) {  // row i0 + ri ends here
        if (first_row < 0) {
          first_row = ri;  // completed below, with earlier threads' partial sums
          first_sum = run;
        } else {
          write(i0 + ri, run);
        }
        run = S(0);
        ++ri;
      } else {
        run += prod(nj);
        ++nj;
      }
    }
    part(th) = run;
    done(th) = first_row >= 0;
    team.team_barrier();

    // Threads before this one back to the last that ended a row hold the
    // beginning of this thread's first row; before the tile, the carries do.
    if (first_row >= 0) {
      S sum = first_sum;
      for (int u = th - 1; u >= 0; --u) {
        sum += part(u);
        if (done(u)) break;
      }
      write(i0 + first_row, sum);
    }
    if (th == T - 1) {
      S sum = S(0);
      for (int u = T - 1; u >= 0; --u) {
        sum += part(u);
        if (done(u)) break;
      }
      const std::int64_t row_begin = nr > 0 ? ends(nr - 1) : 0;  // of row i1
      const bool holds = i1 < rows && nz > row_begin;
      carry(t, 0) = holds ? sum : S(0);
      carry_row(t) = holds ? y_base + i1 : -1;
    }
  }
};

// Threads per tile: `forced` (tests) or 128 on a GPU and every thread of the host
// space, capped by what the space allows a team.
template <class Exec, class Functor>
int spmv_tile_threads(const Exec& exec, const Functor& f, int forced) {
  const int wanted =
      forced > 0
          ? forced
          : (LaunchTraits<Exec>::is_gpu ? 128 : static_cast<int>(exec.concurrency()));
  const int max =
      Kokkos::TeamPolicy<Exec>(exec, 1, 1).team_size_max(f, Kokkos::ParallelForTag());
  return std::max(1, std::min(wanted, max));
}

// Returns the number of tiles. `forced_items` (SpmvOptions' segment_items) sets
// the items per thread, capped so that a tile fits the team's scratch.
template <class Exec, class RowMap, class Index, class Values, class XView, class YView>
std::int64_t spmv_csr_tiles(const Exec& exec, const RowMap& row_map, const Index& col_idx,
                            const Values& values, std::int64_t rows, const XView& X,
                            const YView& Y, typename YView::non_const_value_type alpha,
                            typename YView::non_const_value_type beta,
                            typename YView::non_const_value_type beta_first,
                            std::int64_t y_base, std::int64_t forced_items,
                            int forced_threads) {
  using S = typename YView::non_const_value_type;
  using mem = typename Exec::memory_space;
  using Kernel = SpmvCsrTiles<Exec, RowMap, Index, Values, XView, YView>;
  const std::int64_t nnz = static_cast<std::int64_t>(col_idx.extent(0));
  const std::int64_t total = rows + nnz;
  Kernel k{row_map,    col_idx, values, X, Y,  alpha, beta,
           beta_first, rows,    y_base, 1, {}, {},    {}};
  const int T = spmv_tile_threads(exec, k, forced_threads);
  std::int64_t items = forced_items > 0 ? forced_items : 8;
  const std::size_t room = static_cast<std::size_t>(LaunchTraits<Exec>::scratch_bytes());
  while (items > 1 && Kernel::scratch_bytes(T, items) > room) items /= 2;
  k.items = items;
  const std::int64_t tile = T * items;
  const std::int64_t tiles = (total + tile - 1) / tile;

  // Temporaries from Libra's cache: no cudaMalloc per call (the free at the end
  // waits for the kernels, as a cudaFree of plain views would).
  Workspace<mem> workspace;
  const Temps<mem> temps(workspace);
  const auto coords =
      temps.template view2<std::int64_t>("libra::spmv::tile_coords", tiles + 1, 2);
  k.carry = temps.template view2<S>("libra::spmv::tile_carry", tiles, 1);
  k.carry_row = temps.template view<std::int64_t>("libra::spmv::tile_carry_row", tiles);
  k.coords = coords;
  Kokkos::parallel_for(
      "libra::spmv::csr::tile_coords",
      light_launch(Kokkos::RangePolicy<Exec>(exec, 0, tiles + 1)),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const std::int64_t d = t * tile < total ? t * tile : total;
        std::int64_t i, j;
        merge_path_search(row_map, rows, nnz, d, i, j);
        coords(t, 0) = i;
        coords(t, 1) = j;
      });
  Kokkos::parallel_for(
      "libra::spmv::csr::tiles",
      light_launch(
          Kokkos::TeamPolicy<Exec>(exec, tiles, T)
              .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(T, items)))),
      k);
  if (tiles > 1) {
    Kokkos::parallel_for("libra::spmv::csr::tile_carry",
                         light_launch(Kokkos::RangePolicy<Exec>(exec, 0, tiles)),
                         SpmvCarryFix<Exec, YView>{Y, alpha, k.carry, k.carry_row});
  }
  return tiles;
}

}  // namespace libra::impl
