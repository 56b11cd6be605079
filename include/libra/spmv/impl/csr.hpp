#pragma once
// CSR and pCSR SpMV: the tiles (one vector on a GPU) or the thread-per-segment
// merge path (host spaces, blocks of vectors), as SpmvOptions' tuning allows.
#include <cstdint>

#include "libra/spmv/impl/csr_merge_path.hpp"
#include "libra/spmv/impl/csr_tiles.hpp"
#include "libra/spmv/impl/loads.hpp"
#include "libra/spmv/options.hpp"

namespace libra::impl {

// The temporaries of spmv_csr that a caller keeps between calls (libra::dist):
// a call after the first then neither allocates nor fences.
template <class S, class Mem>
struct CsrKept {
  TileCoords<Mem> coords;
  MergePathCarries<S, Mem> carries;
};

// Y(y_base + i) = b * Y(y_base + i) + alpha * (A * X)(i) for the `rows` rows of
// A, b = beta_first on row 0 and beta elsewhere. Sets `path`; returns the
// segments or tiles. `kept`: temporaries kept by the caller between calls;
// `plan`: the tiles' plan (libra::spmv_plan); `stats`' planned, streamed and
// row_sums say whether it was taken, A read by streaming loads, rows summed by a
// thread each (with the plan, or on row starts found for the call).
template <class Exec, class RowMap, class Index, class Values, class XView, class YView>
std::int64_t spmv_csr(
    const Exec& exec, const RowMap& row_map, const Index& col_idx, const Values& values,
    std::int64_t rows, const XView& X, const YView& Y,
    typename YView::non_const_value_type alpha, typename YView::non_const_value_type beta,
    typename YView::non_const_value_type beta_first, std::int64_t y_base,
    const SpmvOptions::Tuning& tuning, SpmvPath& path,
    CsrKept<typename YView::non_const_value_type, typename Exec::memory_space>* kept =
        nullptr,
    const TilePlan<typename Exec::memory_space>* plan = nullptr,
    SpmvStats* stats = nullptr) {
  if (stats)
    stats->planned = stats->streamed = stats->row_sums = stats->whole_rows = false;
  const auto a = csr_spmv_args(row_map, col_idx, values, rows, X, Y, alpha, beta,
                               beta_first, y_base);
  if constexpr (YView::rank == 1) {
    if (spmv_csr_tiles_chosen<Exec, YView>(tuning.csr_tiles)) {
      const auto tiles_with = [&](const auto& args) {
        TileRun run;
        const auto tiles = spmv_csr_tiles(exec, args, tuning,
                                          kept ? &kept->coords : nullptr, plan, &run);
        path = run.rows_kernel ? SpmvPath::csr_rows : SpmvPath::csr_tiles;
        if (stats) {
          stats->planned = run.planned;
          stats->row_sums = run.row_sums;
        }
        return tiles;
      };
      if constexpr (spmv_can_stream<Exec>) {
        if (spmv_streams_a<Exec>(tuning.load_hints)) {
          if (stats) stats->streamed = true;
          return tiles_with(streaming_loads(a));
        }
      }
      return tiles_with(a);
    }
  }
  path = SpmvPath::csr_merge_path;
  const bool whole = spmv_csr_whole_rows<Exec>(tuning.csr_whole_rows, rows + a.nnz(),
                                               tuning.csr_whole_rows_max_path);
  if (stats) stats->whole_rows = whole;
  return spmv_csr_merge_path(exec, a, tuning.segment_items,
                             kept ? &kept->carries : nullptr, whole);
}

}  // namespace libra::impl
