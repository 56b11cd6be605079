#pragma once
// Running a SpMV-like call on Views and comparing y with the reference oracle
// (ref::spmm with K columns): |error| <= tol * (|beta * y| + sum |alpha * a * x|).
// Shared by test_spmv.cpp and test_spmv_partitioned.cpp.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "libra/reference/reference.hpp"

namespace libra::test {

// Deterministic entries, small integers over 8 (exact in float).
inline double spmv_x(std::int64_t i, std::int64_t k) {
  return static_cast<double>((i * 7 + k * 13 + 3) % 17 - 8) / 8.0;
}
inline double spmv_y(std::int64_t i, std::int64_t k) {
  return static_cast<double>((i * 5 + k * 3 + 1) % 11 - 5) / 4.0;
}

// x and y as rank-1 Views (K == 1, rank1) or LayoutLeft/LayoutRight blocks;
// `run(x, y)` computes; y is then compared with the oracle on `a` (whose values
// must already be rounded to S).
template <class S, class Device, class Layout, bool Rank1, class Run>
void check_spmv(const ref::Matrix& a, std::int64_t K, double alpha, double beta,
                Run&& run) {
  SCOPED_TRACE(std::string(sizeof(S) == 4 ? "float" : "double") + ", " +
               std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", nnz " +
               std::to_string(a.nnz()) + ", K = " + std::to_string(K) +
               (Rank1 ? " (vector)" : "") + ", alpha " + std::to_string(alpha) +
               ", beta " + std::to_string(beta));
  using V2 = Kokkos::View<S**, Layout, Device>;
  V2 X("X", a.cols, K), Y("Y", a.rows, K);
  auto hx = Kokkos::create_mirror_view(X);
  auto hy = Kokkos::create_mirror_view(Y);
  std::vector<double> x(static_cast<std::size_t>(a.cols * K));
  std::vector<double> y(static_cast<std::size_t>(a.rows * K));
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t i = 0; i < a.cols; ++i) {
      hx(i, k) = static_cast<S>(spmv_x(i, k));
      x[k * a.cols + i] = hx(i, k);
    }
    for (std::int64_t i = 0; i < a.rows; ++i) {
      hy(i, k) =
          beta == 0 ? std::numeric_limits<S>::quiet_NaN() : static_cast<S>(spmv_y(i, k));
      y[k * a.rows + i] = hy(i, k);
    }
  }
  Kokkos::deep_copy(X, hx);
  Kokkos::deep_copy(Y, hy);
  if constexpr (Rank1) {
    run(Kokkos::subview(X, Kokkos::ALL, 0), Kokkos::subview(Y, Kokkos::ALL, 0));
  } else {
    run(X, Y);
  }
  std::vector<double> scale;
  const auto expected = ref::spmm(a, K, x, alpha, beta, y, &scale);
  Kokkos::deep_copy(hy, Y);
  const double tol = sizeof(S) == 4 ? 1e-4 : 1e-12;
  int failures = 0;
  for (std::int64_t k = 0; k < K && failures < 5; ++k) {
    for (std::int64_t i = 0; i < a.rows && failures < 5; ++i) {
      const std::size_t e = static_cast<std::size_t>(k * a.rows + i);
      const double err = std::fabs(static_cast<double>(hy(i, k)) - expected[e]);
      if (!(err <= tol * scale[e])) {  // NaN fails too
        ADD_FAILURE() << "y(" << i << ", " << k << ") = " << hy(i, k) << ", expected "
                      << expected[e] << " (error " << err << ", scale " << scale[e]
                      << ")";
        ++failures;
      }
    }
  }
}

}  // namespace libra::test
