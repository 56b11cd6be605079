#pragma once
// ELL SpMV: a thread per row. ELL pads every row to the same width, so rows are
// equal work by construction (long rows live in the hybrid's COO tail, which
// coo_runs adds afterwards); the column-major slots make consecutive threads read
// consecutive memory on a GPU. Padding slots (column -1) are skipped.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

template <class Index, class Values, class XView, class YView>
struct SpmvEllRows {
  using S = typename YView::non_const_value_type;
  Index col_idx;  // rows x width
  Values values;
  XView X;
  YView Y;
  S alpha, beta;
  std::int64_t width, K;

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    for (std::int64_t k = 0; k < K; ++k) {
      S sum = S(0);
      for (std::int64_t w = 0; w < width; ++w) {
        const auto c = col_idx(i, w);
        if (c >= 0) sum += values(i, w) * spmv_at(X, c, k);
      }
      auto& y = spmv_at(Y, i, k);
      y = beta == S(0) ? alpha * sum : beta * y + alpha * sum;
    }
  }
};

template <class Exec, class EllType, class XView, class YView>
void spmv_ell_rows(const Exec& exec, const EllType& A, const XView& X, const YView& Y,
                   typename YView::non_const_value_type alpha,
                   typename YView::non_const_value_type beta) {
  Kokkos::parallel_for(
      "libra::spmv::ell::rows", Kokkos::RangePolicy<Exec>(exec, 0, A.num_rows),
      SpmvEllRows<typename EllType::index_type, typename EllType::values_type, XView,
                  YView>{A.col_idx, A.values, X, Y, alpha, beta,
                         static_cast<std::int64_t>(A.width), spmv_columns(Y)});
}

}  // namespace libra::impl
