#pragma once
// Y = beta * Y (Y = 0 when beta == 0, so that NaN or Inf in Y do not survive):
// what SpMM does when alpha == 0 or A has no entries.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace libra::impl {

template <class YView>
struct SpmmScale {
  using S = typename YView::non_const_value_type;
  YView Y;
  S beta;
  KOKKOS_FUNCTION void operator()(const std::int64_t i, const std::int64_t k) const {
    Y(i, k) = beta == S(0) ? S(0) : beta * Y(i, k);
  }
};

template <class Exec, class YView>
void spmm_scale(const Exec& exec, const YView& Y,
                typename YView::non_const_value_type beta) {
  if (Y.extent(0) == 0 || Y.extent(1) == 0) return;
  if (beta == typename YView::non_const_value_type(1)) return;
  using Policy =
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("libra::spmm::scale",
                       Policy(exec, {0, 0},
                              {static_cast<std::int64_t>(Y.extent(0)),
                               static_cast<std::int64_t>(Y.extent(1))}),
                       SpmmScale<YView>{Y, beta});
}

// A row-major copy of X: the GPU kernel's lanes run across X's columns, and a
// column-major X would have them read 8 bytes a row apart.
template <class XView, class RowMajor>
struct SpmmRowMajorCopy {
  XView X;
  RowMajor R;
  KOKKOS_FUNCTION void operator()(const std::int64_t i, const std::int64_t k) const {
    R(i, k) = X(i, k);
  }
};

template <class Exec, class XView, class RowMajor>
void spmm_row_major_copy(const Exec& exec, const XView& X, const RowMajor& R) {
  if (X.extent(0) == 0 || X.extent(1) == 0) return;
  using Policy =
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("libra::spmm::row_major_x",
                       Policy(exec, {0, 0},
                              {static_cast<std::int64_t>(X.extent(0)),
                               static_cast<std::int64_t>(X.extent(1))}),
                       SpmmRowMajorCopy<XView, RowMajor>{X, R});
}

}  // namespace libra::impl
