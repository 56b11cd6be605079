#pragma once
// CSR SpMV by merge path in tiles (Merrill and Garland's GPU form), for one
// right-hand side. The merge path of row ends and nonzeros is cut into tiles of
// threads x items.
//  1. A first kernel finds every tile boundary's coordinates (in a buffer
//     from Libra's block cache, whose release fences every stream, or in a
//     caller's TileCoords kept between calls: then nothing is allocated and
//     nothing waits after the first call). A row that
//     boundaries cut is shared by several tiles: the first boundary inside it
//     applies beta to it there (y = b * y), and every tile adds its share of it
//     with an atomic.
//  2. A team per tile reads the tile's nonzeros and row ends with consecutive
//     threads on consecutive entries (coalesced) into team scratch,
//     values(p) * x(col(p)) already multiplied. Each thread walks `items` steps
//     of the path in scratch and writes the rows that end in its steps, keeping
//     its first such row and its unfinished last row as partial sums; each
//     thread's first row is then completed with the partial sums of the
//     threads before it that ended inside that row.
// csr_merge_path.hpp's thread-per-segment kernel reads values 32 entries apart
// across a warp and waits on memory once per entry; this one reads whole lines.
// With a plan (libra::spmv_plan: the coordinates found once) a call skips the
// search: a pass over the boundaries applies beta to the cut rows, then the
// tiles run as above, with no allocation and no fence.
// Where a plan's tiles hold whole rows of about equal length (bands, FEM), step
// 2 takes a shorter form in a kernel of its own, row sums
// (csr_tile_row_sums.hpp): each thread issues several loads before it uses any,
// and after the barrier each row is summed by one thread from scratch, with no
// search and no carries. Measured on an H100 (git 917938b; ms, row sums
// / merge walk / cuSPARSE): bands of 7 diagonals (20M rows) 0.762 / 0.974 /
// 0.862, 27 (5M) 0.647 / 0.805 / 0.693, 63 (2M) 0.592 / 0.741 / 0.607, 127 (1M)
// 0.580 / 0.788 / 0.543. In an earlier build the batched loads alone changed
// nothing on the bands and cost R-MAT 22 a quarter (merge-walk tiles keep plain
// loads), and row sums with plain loads took 0.881 and 0.712 ms on the first two.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "libra/algorithms/merge_path.hpp"
#include "libra/core/error.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/common.hpp"
#include "libra/spmv/impl/csr_rows.hpp"
#include "libra/spmv/impl/csr_tile_row_sums.hpp"
#include "libra/spmv/options.hpp"
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

// Threads per tile on GPUs, and launch bounds that hold the kernel to 32
// registers a thread so that 16 teams share a multiprocessor: measured on an
// H100 (R-MAT 20 and 22, bands of 7 and 27 diagonals), the kernel without them
// took 1.1-1.8x as long.
// The launch bounds leave a team 1/16 of an H100 multiprocessor's 228 KB of
// shared memory: a tile's scratch stays within it (8 steps of 128 threads take
// 13.8 KB), or the launch is refused.
inline constexpr int tile_gpu_threads = 128;
inline constexpr std::size_t tile_gpu_scratch_bytes = 14 * 1024;
template <class Exec>
using TilePolicy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<tile_gpu_threads, 16>>;

// Tile boundaries' merge-path coordinates kept by a caller between calls (grown
// when a call needs more; libra::dist's pieces run one after another on one
// stream and share one).
template <class Mem>
struct TileCoords {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> view;
};

// What a plan keeps for one CSR, made for tiles of `threads` x `items`: its
// tiles' boundaries; with whole_rows they lie at row starts (no row is cut), and
// with lanes > 0 they are the rows kernel's (csr_rows.hpp: `groups` groups of
// `lanes` lanes a team, about a row a group). row_sums: the tiles sum each
// (whole) row by one thread.
template <class Mem>
struct TilePlan {
  Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, Mem> coords;
  int threads = 0;
  std::int64_t items = 0;
  bool whole_rows = false;
  bool row_sums = false;
  int groups = 0, lanes = 0;
  std::int64_t team_min = 0;  // the rows kernel's rows summed by the whole team
};

// The rows kernel's shortest row that the whole team sums, for `lanes` lanes a
// row (SpmvOptions' csr_row_team_min: 0 Libra's choice, -1 none, else forced);
// 0 for none.
inline std::int64_t spmv_row_team_min(std::int64_t forced, int lanes) {
  if (forced < 0) return 0;
  return forced > 0 ? forced : rows_group_passes * lanes;
}

// Row sums are Libra's choice where a plan's tiles hold whole rows of at most
// this many nonzeros. A thread sums its row alone, so a tile waits on its
// longest row: up to 128 adds from scratch, about what the walk's search and
// steps cost a thread; longer rows among short ones would leave the team
// waiting on one thread (measured on uniform rows only, where 127 still won).
inline constexpr std::int64_t tile_row_sums_longest = 128;

// Without a plan, a call on a GPU whose path (rows + nonzeros) is at least this
// long finds its longest row first (a reduction, and a wait for its value),
// and where row sums suit the rows (every row at most tile_row_sums_longest)
// puts its boundaries at row starts and sums the rows as a plan's tiles do;
// else it walks. The wait costs 23-33 us a call in a loop of calls (the queue
// drains; H200, perf_tests/report/h200/spmv_planless.md), 5% or less of a call on paths
// this long, against 14-27% gained on bands of 126-160M path items (ms, plan-less walk ->
// row sums, cuSPARSE ALG1 beside: 7 diagonals 0.887 -> 0.700 / 0.730, 27: 0.729 -> 0.550
// / 0.597, 63: 0.642 -> 0.492 / 0.510, 127: 0.682 -> 0.495 / 0.469; R-MAT 22, which walks
// after the wait: 0.849 -> 0.872 / 0.886). Shorter paths walk without waiting (R-MAT 21,
// 34M: 0.402 -> 0.435 waiting).
inline constexpr std::int64_t planless_row_sums_min_path = std::int64_t(1) << 26;

// What spmv_csr_tiles ran: whether it took a plan's coordinates, the rows
// kernel, the row sums (with a plan, or on row starts found for the call).
struct TileRun {
  bool planned = false, rows_kernel = false, row_sums = false;
};

// Row ends of the tile relative to its first nonzero, read the way
// merge_path_search reads a row map: ends(k) is where local row k - 1 ends.
template <class Ends>
struct TileRowEnds {
  Ends ends;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t k) const {
    return ends(k - 1);
  }
};

template <class Exec, class Args>
struct SpmvCsrTiles {
  using S = typename Args::S;
  using mem = typename Exec::memory_space;
  using member = typename TilePolicy<Exec>::member_type;
  using scratch = typename Exec::scratch_memory_space;
  // Row ends relative to the tile's first nonzero are at most a tile's length.
  using Ends = Kokkos::View<std::int32_t*, scratch, Kokkos::MemoryUnmanaged>;
  using Sums = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;
  using Flags = Kokkos::View<int*, scratch, Kokkos::MemoryUnmanaged>;

  Args a;
  std::int64_t items;                                                   // per thread
  Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, mem> coords;  // tiles+1 x 2

  static std::size_t scratch_bytes(int threads, std::int64_t items) {
    const std::size_t tile = static_cast<std::size_t>(threads) * items;
    return Ends::shmem_size(tile) + Sums::shmem_size(tile) + Sums::shmem_size(threads) +
           Flags::shmem_size(threads);
  }

  KOKKOS_INLINE_FUNCTION void write(std::int64_t i, S sum) const {
    spmv_write(a.Y(a.y_base + i), a.row_beta(i), a.alpha, sum);
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

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nz), [&](const std::int64_t q) {
      const std::int64_t p = j0 + q;
      prod(q) = a.product(p);
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nr), [&](const std::int64_t r) {
      ends(r) = static_cast<std::int32_t>(a.offset(i0 + r + 1) - j0);
    });
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
    // beginning of this thread's first row. The tile's first row, when it began
    // in an earlier tile, is shared: beta was applied to it, add.
    if (first_row >= 0) {
      S sum = first_sum;
      for (int u = th - 1; u >= 0; --u) {
        sum += part(u);
        if (done(u)) break;
      }
      if (first_row == 0 && static_cast<std::int64_t>(a.row_map(i0)) < j0) {
        spmv_add<Exec>(a.Y(a.y_base + i0), a.alpha * sum);
      } else {
        write(i0 + first_row, sum);
      }
    }
    // The row the tile ends inside continues in the next tile: add this
    // tile's share of it.
    if (th == T - 1) {
      S sum = S(0);
      for (int u = T - 1; u >= 0; --u) {
        sum += part(u);
        if (done(u)) break;
      }
      const std::int64_t row_begin = nr > 0 ? ends(nr - 1) : 0;  // of row i1
      if (i1 < a.rows && nz > row_begin)
        spmv_add<Exec>(a.Y(a.y_base + i1), a.alpha * sum);
    }
  }
};

// Threads per tile: `forced` (tests) or 128 on a GPU and every thread of the host
// space, capped by what the space allows a team and by the launch bounds.
template <class Exec, class Functor>
int spmv_tile_threads(const Exec& exec, const Functor& f, int forced) {
  const int wanted =
      forced > 0 ? forced
                 : (LaunchTraits<Exec>::is_gpu ? tile_gpu_threads
                                               : static_cast<int>(exec.concurrency()));
  const int max =
      std::min(TilePolicy<Exec>(exec, 1, 1).team_size_max(f, Kokkos::ParallelForTag()),
               tile_gpu_threads);
  return std::max(1, std::min(wanted, max));
}

// A launch's shape: threads per tile and merge-path items per thread.
struct TileShape {
  int threads = 1;
  std::int64_t items = 1;
  std::int64_t tile() const { return threads * items; }
  std::int64_t tiles(std::int64_t total) const { return (total + tile() - 1) / tile(); }
};

// `forced_items` (SpmvOptions' segment_items) sets the items per thread, capped so
// that a tile fits the team's scratch; `forced_threads` the threads per tile.
template <class Kernel, class Exec>
TileShape spmv_tile_shape(const Exec& exec, const Kernel& k, std::int64_t forced_items,
                          int forced_threads) {
  TileShape shape;
  shape.threads = spmv_tile_threads(exec, k, forced_threads);
  std::int64_t items = forced_items > 0 ? forced_items : 8;
  std::size_t room = static_cast<std::size_t>(LaunchTraits<Exec>::scratch_bytes());
  if constexpr (LaunchTraits<Exec>::is_gpu) room = std::min(room, tile_gpu_scratch_bytes);
  while (items > 1 && Kernel::scratch_bytes(shape.threads, items) > room) items /= 2;
  shape.items = items;
  return shape;
}

// Boundary t of tiles of `tile` diagonals lies at (i, j). Row i begins at
// diagonal i + row_map(i) of the path; a boundary strictly inside it
// (j > row_map(i)) whose previous boundary is not (t * tile - tile <= that
// diagonal) is its first: it applies beta to the row, before the tiles add.
template <class RowMap, class YView>
KOKKOS_INLINE_FUNCTION void scale_first_cut(
    const RowMap& row_map, std::int64_t rows, std::int64_t tile, std::int64_t t,
    std::int64_t i, std::int64_t j, const YView& Y,
    typename YView::non_const_value_type beta,
    typename YView::non_const_value_type beta_first, std::int64_t y_base) {
  using S = typename YView::non_const_value_type;
  if (i >= rows) return;
  const std::int64_t begin = static_cast<std::int64_t>(row_map(i));
  if (j > begin && t * tile - tile <= i + begin) {
    const S b = i == 0 ? beta_first : beta;
    auto& y = Y(y_base + i);
    y = b == S(0) ? S(0) : b * y;
  }
}

// Every tile boundary's merge-path coordinates into `coords`; with `scale_cut`,
// beta applied to the rows they cut (scale_first_cut).
template <class Exec, class RowMap, class Coords, class YView>
void spmv_tile_coords(const Exec& exec, const RowMap& row_map, std::int64_t rows,
                      std::int64_t nnz, std::int64_t tile, const Coords& coords,
                      bool scale_cut, const YView& Y,
                      typename YView::non_const_value_type beta,
                      typename YView::non_const_value_type beta_first,
                      std::int64_t y_base) {
  const std::int64_t total = rows + nnz;
  const std::int64_t tiles = (total + tile - 1) / tile;
  Kokkos::parallel_for(
      "libra::spmv::csr::tile_coords",
      light_launch(Kokkos::RangePolicy<Exec>(exec, 0, tiles + 1)),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const std::int64_t d = t * tile < total ? t * tile : total;
        std::int64_t i, j;
        merge_path_search(row_map, rows, nnz, d, i, j);
        coords(t, 0) = i;
        coords(t, 1) = j;
        if (scale_cut) {
          scale_first_cut(row_map, rows, tile, t, i, j, Y, beta, beta_first, y_base);
        }
      });
}

// beta applied to the rows a plan's boundaries cut (scale_first_cut).
template <class Exec, class RowMap, class Coords, class YView>
void spmv_scale_cut_rows(const Exec& exec, const RowMap& row_map, std::int64_t rows,
                         std::int64_t tile, const Coords& coords, const YView& Y,
                         typename YView::non_const_value_type beta,
                         typename YView::non_const_value_type beta_first,
                         std::int64_t y_base) {
  using S = typename YView::non_const_value_type;
  const std::int64_t boundaries = static_cast<std::int64_t>(coords.extent(0));
  if ((beta == S(1) && beta_first == S(1)) || boundaries < 3) return;  // none inside
  Kokkos::parallel_for(
      "libra::spmv::csr::scale_cut_rows",
      light_launch(Kokkos::RangePolicy<Exec>(exec, 1, boundaries - 1)),
      KOKKOS_LAMBDA(const std::int64_t t) {
        scale_first_cut(row_map, rows, tile, t, coords(t, 0), coords(t, 1), Y, beta,
                        beta_first, y_base);
      });
}

// The most nonzeros a row of the `rows` rows of row_map has; the host waits
// for the value. Teams of 8,192 rows reduce theirs and Kokkos the teams'. On
// an H200, in a loop of plan-less calls (ms a call; a plan's call 0.598): on a
// band of 20M rows Kokkos 3.4's parallel_reduce over the range of rows took
// 0.760, these teams 0.700, and teams that added their maximum to one value by
// an atomic after a fill 0.702; on R-MAT 22 (whose calls then walk) they added
// 33, 23 and 73 us to the walk's 0.849.
template <class Exec, class RowMap>
std::int64_t spmv_longest_row(const Exec& exec, const RowMap& row_map,
                              std::int64_t rows) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using member = typename Policy::member_type;
  if (rows <= 0) return 0;
  constexpr std::int64_t rows_per_team = 8192;
  const std::int64_t league = (rows + rows_per_team - 1) / rows_per_team;
  const Policy policy = LaunchTraits<Exec>::is_gpu ? Policy(exec, league, 256)
                                                   : Policy(exec, league, Kokkos::AUTO);
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "libra::spmv::csr::longest_row", policy,
      KOKKOS_LAMBDA(const member& team, std::int64_t& most) {
        const std::int64_t i0 = team.league_rank() * rows_per_team;
        const std::int64_t i1 = i0 + rows_per_team < rows ? i0 + rows_per_team : rows;
        std::int64_t local = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, i0, i1),
            [&](const std::int64_t i, std::int64_t& m) {
              const std::int64_t n = static_cast<std::int64_t>(row_map(i + 1)) -
                                     static_cast<std::int64_t>(row_map(i));
              m = n > m ? n : m;
            },
            Kokkos::Max<std::int64_t>(local));
        Kokkos::single(Kokkos::PerTeam(team),
                       [&] { most = local > most ? local : most; });
      },
      Kokkos::Max<std::int64_t>(longest));
  return longest;
}

// Boundaries at row starts: boundary t at the first row beginning at or after
// diagonal t * cut of the path (`total` long), tiles + 1 of them into coords.
// With cut at most a tile less the longest row and one, no tile holds more
// than a tile's path.
template <class Exec, class RowMap, class Coords>
void spmv_tile_row_starts(const Exec& exec, const RowMap& row_map, std::int64_t rows,
                          std::int64_t total, std::int64_t cut, const Coords& coords) {
  Kokkos::parallel_for(
      "libra::spmv::csr::row_starts",
      light_launch(Kokkos::RangePolicy<Exec>(
          exec, 0, static_cast<std::int64_t>(coords.extent(0)))),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const std::int64_t target = t * cut < total ? t * cut : total;
        std::int64_t lo = 0, hi = rows;
        while (lo < hi) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          if (mid + static_cast<std::int64_t>(row_map(mid)) < target) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        coords(t, 0) = lo;
        coords(t, 1) = static_cast<std::int64_t>(row_map(lo));
      });
}

// The rows kernel's lanes a row: `forced` (SpmvOptions' csr_row_lanes) on GPUs,
// else the power of two at or above the average row of `rows` rows on a path
// `total` long (spmv_row_lanes).
template <class Exec>
int spmv_csr_row_lanes(int forced, std::int64_t rows, std::int64_t total) {
  if (forced < 0 || forced > 32 || (forced & (forced - 1)) != 0) {
    throw ArgumentError("spmv: csr_row_lanes is 0 or a power of two up to 32, not " +
                        std::to_string(forced));
  }
  if (forced > 0 && LaunchTraits<Exec>::is_gpu) return forced;
  const double per_row = rows > 0 ? static_cast<double>(total) / rows : 1.0;
  return spmv_row_lanes<Exec>(per_row - 1);
}

// The plan of one CSR's tiles (libra::spmv_plan): their coordinates, and whether
// the rows kernel takes them (SpmvOptions' tuning: segment_items, tile_threads,
// csr_rows, csr_rows_max_path, csr_row_lanes, tile_row_sums).
template <class S, class Exec, class RowMap, class Index, class Values>
TilePlan<typename Exec::memory_space> spmv_tile_plan(
    const Exec& exec, const RowMap& row_map, const Index& col_idx, const Values& values,
    std::int64_t rows, const SpmvOptions::Tuning& tuning) {
  const std::int64_t forced_items = tuning.segment_items;
  const int forced_threads = tuning.tile_threads, forced_rows = tuning.csr_rows;
  const int forced_sums = tuning.tile_row_sums;
  const std::int64_t rows_max_path = tuning.csr_rows_max_path;
  using mem = typename Exec::memory_space;
  using Vector = Kokkos::View<S*, mem>;
  using Args = CsrSpmvArgs<RowMap, Index, Values, Kokkos::View<const S*, mem>, Vector>;
  using Kernel = SpmvCsrTiles<Exec, Args>;
  const std::int64_t nnz = static_cast<std::int64_t>(col_idx.extent(0));
  const Kernel k{
      Args{row_map, col_idx, values, {}, {}, S(1), S(0), S(0), rows, 0}, 1, {}};
  const TileShape shape = spmv_tile_shape(exec, k, forced_items, forced_threads);
  const std::int64_t tile = shape.tile(), total = rows + nnz;
  TilePlan<mem> plan;
  plan.threads = shape.threads;
  plan.items = shape.items;
  // Where every row fits half a tile, the boundaries go at row starts, at most
  // `cut` diagonals apart plus one row: no row is cut.
  const std::int64_t longest = spmv_longest_row(exec, row_map, rows);
  plan.whole_rows = longest + 1 <= tile / 2;
  std::int64_t cut = plan.whole_rows ? tile - longest - 1 : tile;
  // The rows kernel: tiles of about one row per group, by path length.
  const double per_row = rows > 0 ? static_cast<double>(total) / rows : 1.0;
  const int lanes = spmv_csr_row_lanes<Exec>(tuning.csr_row_lanes, rows, total);
  // Row sums where the tiles hold whole rows that suit them; Libra choosing,
  // the rows kernel only where they do not, on short paths whose longest row
  // takes its group at most rows_group_passes passes. Measured on an H100 with
  // plans (ms, row sums / rows kernel): luxembourg 0.0134 / 0.019,
  // p2p-Gnutella31 0.0143 / 0.0176, ca-GrQc 0.0134 / 0.016, lp_ship04l 0.0125 /
  // 0.0141, bcsstm25 0.0127 / 0.0113, ten other small matrices within 3%; the
  // whole team summing hub rows (with the rows kernel on power-law graphs)
  // changed facebook_combined 0.0227 -> 0.0231, Wiki-Vote 0.0236 -> 0.0221,
  // email-Enron 0.0235 -> 0.0272, R-MAT 16 0.0323 -> 0.0495: the tiles keep them
  // (perf_tests/report/h100/spmv_rows_planless/).
  const bool sums_fit =
      plan.whole_rows &&
      (forced_sums > 0 || (forced_sums == 0 && LaunchTraits<Exec>::is_gpu &&
                           longest <= tile_row_sums_longest));
  const std::int64_t team_min = spmv_row_team_min(tuning.csr_row_team_min, lanes);
  const bool rows_kernel =
      rows > 0 && (forced_rows > 0 ||
                   (forced_rows == 0 && LaunchTraits<Exec>::is_gpu && !sums_fit &&
                    total <= rows_max_path &&
                    longest <= rows_group_passes * static_cast<std::int64_t>(lanes)));
  plan.row_sums = sums_fit && !rows_kernel;
  if (rows_kernel) {
    plan.whole_rows = true;
    plan.lanes = lanes;
    plan.groups = spmv_row_groups<Exec>(lanes, shape.threads);
    plan.team_min = team_min > 0 && longest >= team_min ? team_min : 0;
    cut = std::max<std::int64_t>(1, static_cast<std::int64_t>(plan.groups * per_row));
  }
  const std::int64_t tiles = (total + cut - 1) / cut;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, mem> coords(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::spmv::plan_coords"),
      static_cast<std::size_t>(tiles + 1), 2);
  if (plan.whole_rows) {
    spmv_tile_row_starts(exec, row_map, rows, total, cut, coords);
  } else {
    spmv_tile_coords(exec, row_map, rows, nnz, tile, coords, false, Vector(), S(0), S(0),
                     0);
  }
  plan.coords = coords;
  return plan;
}

// Returns the number of tiles. With a `plan` made for the same shape, its
// coordinates replace the search, and where it planned the rows kernel that
// kernel runs instead, where row sums the tiles take them (`run` says which).
// Without one, the rows kernel runs on tiles of one row per group where
// `tuning.csr_rows` forces it or, Libra choosing, on GPUs on paths of at most
// csr_rows_planless_max_path; row sums run on boundaries found at row starts
// where `tuning.tile_row_sums` forces them or, Libra choosing, on GPUs on paths
// of at least planless_row_sums_min_path, wherever a plan would take them;
// else the boundaries' search and the walk.
template <class Exec, class Args>
std::int64_t spmv_csr_tiles(const Exec& exec, const Args& a,
                            const SpmvOptions::Tuning& tuning,
                            TileCoords<typename Exec::memory_space>* kept = nullptr,
                            const TilePlan<typename Exec::memory_space>* plan = nullptr,
                            TileRun* run = nullptr) {
  using mem = typename Exec::memory_space;
  using Kernel = SpmvCsrTiles<Exec, Args>;
  using Sums = SpmvCsrTileRowSums<Exec, Args>;
  const int forced_sums = tuning.tile_row_sums;
  Kernel k{a, 1, {}};
  const TileShape shape =
      spmv_tile_shape(exec, k, tuning.segment_items, tuning.tile_threads);
  k.items = shape.items;
  const bool use_plan =
      plan && plan->threads == shape.threads && plan->items == shape.items;
  const std::int64_t total = a.rows + a.nnz();
  TileRun ran;
  ran.planned = use_plan;
  ran.rows_kernel = use_plan && plan->lanes > 0;
  ran.row_sums = use_plan && plan->row_sums;  // never with the rows kernel
  if (!use_plan && a.rows > 0 &&
      (tuning.csr_rows > 0 || (tuning.csr_rows == 0 && LaunchTraits<Exec>::is_gpu &&
                               total <= tuning.csr_rows_planless_max_path))) {
    // The rows kernel on tiles of one row per group: one launch.
    const int lanes = spmv_csr_row_lanes<Exec>(tuning.csr_row_lanes, a.rows, total);
    const int groups = spmv_row_groups<Exec>(lanes, shape.threads);
    const std::int64_t tiles = (a.rows + groups - 1) / groups;
    ran.rows_kernel = true;
    if (run) *run = ran;
    spmv_csr_rows(exec, a, Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, mem>(),
                  tiles, groups, lanes,
                  spmv_row_team_min(tuning.csr_row_team_min, lanes));
    return tiles;
  }
  // Row sums without a plan: the longest row decides, as for a plan.
  std::int64_t cut = 0;
  if (!use_plan && a.rows > 0 &&
      (forced_sums > 0 || (forced_sums == 0 && LaunchTraits<Exec>::is_gpu &&
                           total >= planless_row_sums_min_path))) {
    const std::int64_t longest = spmv_longest_row(exec, a.row_map, a.rows);
    if (longest + 1 <= shape.tile() / 2 &&
        (forced_sums > 0 || longest <= tile_row_sums_longest)) {
      cut = shape.tile() - longest - 1;
      ran.row_sums = true;
    }
  }
  if (run) *run = ran;
  const auto sum_rows = [&](const auto& coords) {
    const std::int64_t tiles = static_cast<std::int64_t>(coords.extent(0)) - 1;
    Kokkos::parallel_for(
        "libra::spmv::csr::tile_row_sums",
        light_launch(
            TilePolicy<Exec>(exec, tiles, shape.threads)
                .set_scratch_size(0, Kokkos::PerTeam(Sums::scratch_bytes(shape.tile())))),
        Sums{a, shape.tile(), coords});
    return tiles;
  };
  const auto launch = [&](std::int64_t tiles) {
    Kokkos::parallel_for(
        "libra::spmv::csr::tiles",
        light_launch(TilePolicy<Exec>(exec, tiles, shape.threads)
                         .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(
                                                  shape.threads, shape.items)))),
        k);
    return tiles;
  };
  if (use_plan) {
    if (ran.rows_kernel) {
      const std::int64_t tiles = static_cast<std::int64_t>(plan->coords.extent(0)) - 1;
      spmv_csr_rows(exec, a, plan->coords, tiles, plan->groups, plan->lanes,
                    plan->team_min);
      return tiles;
    }
    if (ran.row_sums) return sum_rows(plan->coords);
    k.coords = plan->coords;
    if (!plan->whole_rows) {
      spmv_scale_cut_rows(exec, a.row_map, a.rows, shape.tile(), plan->coords, a.Y,
                          a.beta, a.beta_first, a.y_base);
    }
    return launch(static_cast<std::int64_t>(plan->coords.extent(0)) - 1);
  }

  // The coordinates from Libra's block cache: no cudaMalloc per call (its free
  // at the end waits for the kernels, as a cudaFree of a plain view would).
  const std::int64_t tiles = ran.row_sums ? (total + cut - 1) / cut : shape.tiles(total);
  Workspace<mem> workspace;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, mem> coords;
  if (kept) {
    if (static_cast<std::int64_t>(kept->view.extent(0)) < tiles + 1) {
      kept->view = {};  // the old one goes first: less memory at the peak
      kept->view =
          decltype(kept->view)(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                  "libra::spmv::tile_coords_kept"),
                               static_cast<std::size_t>(tiles + 1), 2);
    }
    coords = Kokkos::subview(kept->view, std::make_pair(std::int64_t(0), tiles + 1),
                             Kokkos::ALL);
  } else {
    coords = Temps<mem>(workspace).template view2<std::int64_t>(
        "libra::spmv::tile_coords", tiles + 1, 2);
  }
  if (ran.row_sums) {
    spmv_tile_row_starts(exec, a.row_map, a.rows, total, cut, coords);
    return sum_rows(coords);
  }
  k.coords = coords;
  spmv_tile_coords(exec, a.row_map, a.rows, a.nnz(), shape.tile(), coords, true, a.Y,
                   a.beta, a.beta_first, a.y_base);
  return launch(tiles);
}

}  // namespace libra::impl
