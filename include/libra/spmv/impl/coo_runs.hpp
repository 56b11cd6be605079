#pragma once
// COO SpMV: the nonzeros are cut into segments of equal count, one thread each;
// a thread sums each run of equal row indices and adds the run's sum into y with
// one atomic (Y was scaled by beta before). A Coo sorted by row (Libra's) makes
// one atomic per row and segment; any other order stays correct, at one atomic
// per entry at worst. Row r goes to Y(r - row_shift).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

template <class Exec, class Index, class Values, class XView, class YView>
struct SpmvCooRuns {
  using S = typename YView::non_const_value_type;
  Index row_idx, col_idx;
  Values values;
  XView X;
  YView Y;
  S alpha;
  std::int64_t nnz, items, row_shift, K;

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t p0 = t * items;
    const std::int64_t p1 = p0 + items < nnz ? p0 + items : nnz;
    for (std::int64_t k = 0; k < K; ++k) {
      std::int64_t p = p0;
      while (p < p1) {
        const auto r = row_idx(p);
        S sum = S(0);
        for (; p < p1 && row_idx(p) == r; ++p) {
          sum += values(p) * spmv_at(X, col_idx(p), k);
        }
        spmv_add<Exec>(spmv_at(Y, static_cast<std::int64_t>(r) - row_shift, k),
                       alpha * sum);
      }
    }
  }
};

template <class Exec, class Index, class Values, class XView, class YView>
std::int64_t spmv_coo_runs(const Exec& exec, const Index& row_idx, const Index& col_idx,
                           const Values& values, const XView& X, const YView& Y,
                           std::int64_t row_shift,
                           typename YView::non_const_value_type alpha,
                           std::int64_t forced_items) {
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  if (nnz == 0) return 0;
  const std::int64_t K = spmv_columns(Y);
  const std::int64_t items = spmv_segment_items(exec, nnz, K, forced_items);
  const std::int64_t segments = (nnz + items - 1) / items;
  Kokkos::parallel_for(
      "libra::spmv::coo::runs", Kokkos::RangePolicy<Exec>(exec, 0, segments),
      SpmvCooRuns<Exec, Index, Values, XView, YView>{row_idx, col_idx, values, X, Y,
                                                     alpha, nnz, items, row_shift, K});
  return segments;
}

}  // namespace libra::impl
