#pragma once
// Sizes and launches the GPU kernels: thread_chunks.hpp's, and with staging
// team_panels.hpp's (both also runnable on host spaces, one thread per team,
// for tests).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "libra/core/error.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/core/spaces.hpp"
#include "libra/spmm/impl/scale.hpp"
#include "libra/spmm/impl/team_panels.hpp"
#include "libra/spmm/impl/thread_chunks.hpp"
#include "libra/spmm/options.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

// Launch shape for K columns: vector lanes across the columns (a power of two up
// to a warp), 256 GPU threads per team.
template <class Exec>
struct SpmmShape {
  int lanes = 1;
  int threads = 1;
  explicit SpmmShape(int K) {
    using LT = LaunchTraits<Exec>;
    lanes = std::min(LT::vector_lanes, next_pow2(std::max(K, 1)));
    threads = LT::team_threads(std::max(1, 256 / lanes));
  }
};

// Whether the chunk kernel loads X two columns at a time (thread_chunks.hpp):
// only a row-major X whose rows and data are aligned to two entries, K even;
// automatic: on GPUs for K >= 16. Measured on an H100 (README "SpMM").
template <class Exec, class XView>
bool spmm_pairs_columns(const SpmmOptions& options, const XView& X, int K) {
  using S = typename XView::non_const_value_type;
  if constexpr (!std::is_same<typename XView::array_layout, Kokkos::LayoutRight>::value) {
    return false;
  } else {
    const auto address = reinterpret_cast<std::uintptr_t>(X.data());
    const bool aligned =
        K % 2 == 0 && X.stride(0) % 2 == 0 && address % (2 * sizeof(S)) == 0;
    if (!aligned || options.tuning.paired_columns == SpmmStaging::off) return false;
    return options.tuning.paired_columns == SpmmStaging::on ||
           (LaunchTraits<Exec>::is_gpu && K >= 16);
  }
}

// The chunk kernel with a lane's loads `Pair` columns wide.
template <int Pair, class Exec, class AType, class XView, class YView>
void spmm_launch_chunks(const Exec& exec, const AType& A, const XView& X, const YView& Y,
                        typename YView::non_const_value_type alpha,
                        typename YView::non_const_value_type beta,
                        const SpmmChunkShape& shape) {
  const std::int64_t league = shape.teams * shape.blocks;
  const auto policy = light_launch(Kokkos::TeamPolicy<Exec>(
      exec, static_cast<int>(league), shape.threads, shape.lanes));
  constexpr int most = chunk_columns / Pair;
  const std::int64_t rows = A.num_rows;
  const std::int64_t nnz = static_cast<std::int64_t>(A.nnz());
  if (shape.sums <= most / 2) {
    using Kernel = SpmmThreadChunks<Exec, AType, XView, YView, most / 2, Pair>;
    Kokkos::parallel_for(
        "libra::spmm::thread_chunks", policy,
        Kernel{A.row_map, A.col_idx, A.values, X, Y, alpha, beta, rows, nnz, shape});
  } else {
    using Kernel = SpmmThreadChunks<Exec, AType, XView, YView, most, Pair>;
    Kokkos::parallel_for(
        "libra::spmm::thread_chunks", policy,
        Kernel{A.row_map, A.col_idx, A.values, X, Y, alpha, beta, rows, nnz, shape});
  }
}

// The chunk kernel (thread_chunks.hpp): no temporaries, two launches at most.
template <class Exec, class AType, class XView, class YView>
void spmm_thread_chunks(const Exec& exec, const AType& A, const XView& X, const YView& Y,
                        typename YView::non_const_value_type alpha,
                        typename YView::non_const_value_type beta,
                        const SpmmOptions& options, SpmmStats& stats, bool want_counts) {
  using S = typename YView::non_const_value_type;
  using LT = LaunchTraits<Exec>;
  const int K = static_cast<int>(Y.extent(1));
  const std::int64_t rows = A.num_rows;
  const std::int64_t nnz = static_cast<std::int64_t>(A.nnz());
  const int block = options.tuning.column_block;  // 0: as wide as the lanes allow
  const int max_lanes = options.tuning.vector_lanes > 0
                            ? std::min(options.tuning.vector_lanes, LT::vector_lanes)
                            : LT::vector_lanes;
  const bool paired = spmm_pairs_columns<Exec>(options, X, K);
  const SpmmChunkShape shape(rows, nnz, K, options.tuning.panel_items, block, max_lanes,
                             LT::is_gpu, paired ? 2 : 1);
  stats.path = SpmmPath::team_panels;
  stats.panels = static_cast<std::uint64_t>(shape.chunks);
  stats.column_blocks = static_cast<std::uint64_t>(shape.blocks);
  stats.paired_columns = paired;
  if (shape.chunks == 0) return;
  using Cut = SpmmCutRows<Exec, typename AType::row_map_type, YView>;
  const int cut_lanes = Cut::lanes_for(K, max_lanes);
  const int cut_threads = LT::is_gpu ? std::max(1, 256 / cut_lanes) : 1;
  const std::int64_t cut_teams = (rows + cut_threads - 1) / cut_threads;
  // Both launches' leagues (the cut-rows kernel's and the chunk kernel's) are ints.
  const std::int64_t league = std::max(shape.teams * shape.blocks, cut_teams);
  if (league > std::numeric_limits<int>::max())
    throw OverflowError("spmm: " + std::to_string(league) +
                        " teams exceed a launch's league (int)");
  if (shape.chunks > 1 && (beta != S(1) || want_counts)) {
    const Cut cut{A.row_map, rows, shape.items, cut_threads, cut_lanes,
                  Y,         beta, beta != S(1)};
    const auto policy = light_launch(Kokkos::TeamPolicy<Exec>(
        exec, static_cast<int>(cut_teams), cut_threads, cut_lanes));
    if (want_counts) {
      std::uint64_t inside = 0;
      Kokkos::parallel_reduce("libra::spmm::cut_rows", policy, cut, inside);
      stats.carries = inside;
    } else {
      Kokkos::parallel_for("libra::spmm::cut_rows", policy, cut);
    }
  }
  if constexpr (std::is_same<typename XView::array_layout, Kokkos::LayoutRight>::value) {
    if (paired) {
      spmm_launch_chunks<2>(exec, A, X, Y, alpha, beta, shape);
      return;
    }
  }
  spmm_launch_chunks<1>(exec, A, X, Y, alpha, beta, shape);
}

template <class Exec, class AType, class XView, class YView>
void spmm_team_panels(const Exec& exec, const AType& A, const XView& X, const YView& Y,
                      typename YView::non_const_value_type alpha,
                      typename YView::non_const_value_type beta,
                      const SpmmOptions& options, SpmmStats& stats, bool want_counts) {
  using S = typename YView::non_const_value_type;
  using O = typename AType::ordinal_type;
  using mem = typename Exec::memory_space;
  using LT = LaunchTraits<Exec>;
  const int K = static_cast<int>(Y.extent(1));
  const SpmmShape<Exec> shape(K);
  const std::int64_t rows = A.num_rows;
  const std::int64_t nnz = static_cast<std::int64_t>(A.nnz());

  // Staging: the rows of X a panel can hold in its scratch.
  bool stage = options.tuning.staging == SpmmStaging::on;  // automatic: off (README)
  // Merge-path items a staged panel (a team) holds.
  std::int64_t items = options.tuning.panel_items > 0
                           ? options.tuning.panel_items
                           : std::max<std::int64_t>(32 * shape.threads, 512);
  const int scratch = options.tuning.scratch_bytes > 0 ? options.tuning.scratch_bytes
                                                       : LT::scratch_bytes();
  int capacity = 0;
  int key_capacity = 1;
  if (stage) {
    // Room for alignment of the two scratch views.
    const std::int64_t per_row = static_cast<std::int64_t>(K) * sizeof(S) + sizeof(O);
    capacity = static_cast<int>(std::max<std::int64_t>(0, (scratch - 64) / per_row));
    // The plan sorts a panel's column indices in scratch: panels are at most that long.
    const int plan_scratch = LT::scratch_bytes();
    while (static_cast<std::int64_t>(key_capacity) * 2 * sizeof(O) + 64 <=
           static_cast<std::int64_t>(plan_scratch))
      key_capacity *= 2;
    items = std::min<std::int64_t>(items, key_capacity);
    capacity = static_cast<int>(std::min<std::int64_t>(capacity, items / 2));
    if (capacity < 1) stage = false;  // K too large for even one row of X
  }
  if (!stage) {
    spmm_thread_chunks(exec, A, X, Y, alpha, beta, options, stats, want_counts);
    return;
  }
  const std::int64_t total = rows + nnz;
  const std::int64_t panels = (total + items - 1) / items;
  stats.panels = static_cast<std::uint64_t>(panels);
  stats.path = SpmmPath::team_staged;
  if (panels == 0) return;

  // Temporaries from Libra's block cache: no cudaMalloc per call (the release
  // at the end waits for the kernels, as a cudaFree of a plain view would).
  Workspace<mem> workspace;
  const Temps<mem> temps(workspace);
  const PanelBounds<Exec> bounds = temps.template view2<std::int64_t>(
      "libra::spmm::panel_bounds", static_cast<std::size_t>(panels) + 1, 2);
  using Bounds = SpmmPanelBounds<Exec, typename AType::row_map_type, YView>;
  const Bounds find_bounds{A.row_map, rows, nnz, items, bounds, Y, beta};
  const auto bounds_policy = light_launch(
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, panels + 1));
  if (want_counts) {
    std::uint64_t inside = 0;
    Kokkos::parallel_reduce("libra::spmm::panels", bounds_policy, find_bounds, inside);
    stats.carries = inside;
  } else {
    Kokkos::parallel_for("libra::spmm::panels", bounds_policy, find_bounds);
  }
  const int league = static_cast<int>(panels);

  const auto dense = temps.template view2<O>("libra::spmm::dense_columns",
                                             static_cast<std::size_t>(panels),
                                             static_cast<std::size_t>(capacity));
  const auto dense_count = temps.template view<int>("libra::spmm::dense_count",
                                                    static_cast<std::size_t>(panels));
  Kokkos::View<atomic_u64[2], mem> counters("libra::spmm::stage_counters");
  using Plan = SpmmStagePlan<Exec, AType>;
  Kokkos::parallel_for(
      "libra::spmm::stage_plan",
      light_launch(
          Kokkos::TeamPolicy<Exec>(exec, league, LT::team_threads(128), 1)
              .set_scratch_size(0, Kokkos::PerTeam(Plan::scratch_bytes(key_capacity)))),
      Plan{A.col_idx, bounds, dense, dense_count, counters, key_capacity, capacity,
           std::numeric_limits<O>::max()});
  using Kernel = SpmmStagedPanels<Exec, AType, XView, YView>;
  Kernel kernel{A.row_map, A.col_idx, A.values, X,     Y,           alpha,
                beta,      rows,      bounds,   dense, dense_count, capacity};
  Kokkos::parallel_for(
      "libra::spmm::team_staged",
      light_launch(
          Kokkos::TeamPolicy<Exec>(exec, league, shape.threads, shape.lanes)
              .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(capacity, K)))),
      kernel);
  if (want_counts) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counters);
    stats.staged_rows = h(0);
    stats.staged_reads = h(1);
  }
}

// Whether the team kernels take a row-major copy of X: on GPUs, a LayoutLeft X
// of at least 2^15 entries with K >= 16, or as the tuning says. Measured on an
// H100 (perf_tests/report/h100/spmm_chunks.md): the copy (a kernel, and a fence
// when the temporary is given back) costs about 7 us; at K = 128 it cut R-MAT
// 18 from 12.6 to 2.9 ms, at K = 8 it mostly lost.
template <class Exec, class XView>
bool spmm_copies_x(const SpmmOptions& options, std::size_t rows, std::size_t K) {
  if (!std::is_same<typename XView::array_layout, Kokkos::LayoutLeft>::value)
    return false;
  if (options.tuning.row_major_x != SpmmStaging::automatic)
    return options.tuning.row_major_x == SpmmStaging::on;
  return LaunchTraits<Exec>::is_gpu && K >= 16 && rows * K >= (std::size_t(1) << 15);
}

// The team kernels, on a row-major copy of X where spmm_copies_x says so.
template <class Exec, class AType, class XView, class YView>
void spmm_team_kernels(const Exec& exec, const AType& A, const XView& X, const YView& Y,
                       typename YView::non_const_value_type alpha,
                       typename YView::non_const_value_type beta,
                       const SpmmOptions& options, SpmmStats& stats, bool want_counts) {
  using S = typename YView::non_const_value_type;
  using mem = typename Exec::memory_space;
  if (!spmm_copies_x<Exec, XView>(options, X.extent(0), Y.extent(1))) {
    spmm_team_panels(exec, A, X, Y, alpha, beta, options, stats, want_counts);
    return;
  }
  Workspace<mem> workspace;  // its release fences: the copy is in use until then
  const Temps<mem> temps(workspace);
  const auto rows =
      temps.template view2<S>("libra::spmm::x_rows", X.extent(0), X.extent(1));
  spmm_row_major_copy(exec, X, rows);
  using R = Kokkos::View<const S**, Kokkos::LayoutRight, mem>;
  spmm_team_panels(exec, A, R(rows), Y, alpha, beta, options, stats, want_counts);
  stats.x_row_major_copy = true;
}

}  // namespace libra::impl
