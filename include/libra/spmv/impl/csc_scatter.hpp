#pragma once
// CSC SpMV: column j of A times x(j) is scattered into y. The columns and
// nonzeros are cut into equal merge-path segments (empty and huge columns
// balance alike), one thread each; a thread reads x(j) once per column and adds
// each product into y with an atomic (Y was scaled by beta before). pCSC runs it
// on its local offsets with x read at x_base + local column.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/merge_path.hpp"
#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
struct SpmvCscScatter {
  using S = typename YView::non_const_value_type;
  ColMap col_map;
  Index row_idx;
  Values values;
  XView X;
  YView Y;
  S alpha;
  std::int64_t cols, nnz, items, x_base, y_base, K;

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t total = cols + nnz;
    const std::int64_t d0 = t * items < total ? t * items : total;
    const std::int64_t d1 = d0 + items < total ? d0 + items : total;
    std::int64_t c0, j0, c1, j1;
    merge_path_search(col_map, cols, nnz, d0, c0, j0);
    merge_path_search(col_map, cols, nnz, d1, c1, j1);
    const std::int64_t last = c1 < cols ? c1 : cols - 1;
    for (std::int64_t c = c0; c <= last; ++c) {
      const std::int64_t cb = static_cast<std::int64_t>(col_map(c));
      const std::int64_t ce = static_cast<std::int64_t>(col_map(c + 1));
      const std::int64_t pb = cb > j0 ? cb : j0;
      const std::int64_t pe = ce < j1 ? ce : j1;
      for (std::int64_t k = 0; k < K; ++k) {
        const S xa = alpha * spmv_at(X, x_base + c, k);
        for (std::int64_t p = pb; p < pe; ++p) {
          spmv_add<Exec>(spmv_at(Y, y_base + row_idx(p), k), values(p) * xa);
        }
      }
    }
  }
};

template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
std::int64_t spmv_csc_scatter(const Exec& exec, const ColMap& col_map,
                              const Index& row_idx, const Values& values,
                              std::int64_t cols, const XView& X, std::int64_t x_base,
                              const YView& Y, std::int64_t y_base,
                              typename YView::non_const_value_type alpha,
                              std::int64_t forced_items) {
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  const std::int64_t K = spmv_columns(Y);
  const std::int64_t total = cols + nnz;
  const std::int64_t items = spmv_segment_items(exec, total, K, forced_items);
  const std::int64_t segments = (total + items - 1) / items;
  Kokkos::parallel_for(
      "libra::spmv::csc::scatter", Kokkos::RangePolicy<Exec>(exec, 0, segments),
      SpmvCscScatter<Exec, ColMap, Index, Values, XView, YView>{
          col_map, row_idx, values, X, Y, alpha, cols, nnz, items, x_base, y_base, K});
  return segments;
}

}  // namespace libra::impl
