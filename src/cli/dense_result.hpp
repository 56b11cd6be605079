#pragma once
// What `libra spmm` and `libra spmv` share about their dense result: its type,
// the oracle check, the summary's check line and the writing of the result.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/format/dense.hpp"
#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"

namespace libra::cli {

using DenseMatrix = Dense<double, Device>;

// The largest |y - oracle| relative to the entry's sum of |a * x|.
template <class M>
double compare_with_reference(const M& A, const DenseMatrix& X, const DenseMatrix& Y) {
  const ref::Matrix a = ref::from_csr(A);
  const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
  const auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  const std::int64_t K = static_cast<std::int64_t>(X.extent(1));
  std::vector<double> x(static_cast<std::size_t>(a.cols * K));
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t i = 0; i < a.cols; ++i) x[k * a.cols + i] = hx(i, k);
  std::vector<double> scale;
  const auto y = ref::spmm(a, K, x, 1, 0, {}, &scale);
  double worst = 0;
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t i = 0; i < a.rows; ++i) {
      const std::size_t e = static_cast<std::size_t>(k * a.rows + i);
      const double err = std::fabs(hy(i, k) - y[e]);
      const double rel = err == 0 ? 0 : scale[e] > 0 ? err / scale[e] : INFINITY;
      if (!(rel <= worst)) worst = std::isnan(rel) ? INFINITY : rel;
    }
  }
  return worst;
}

// The summary's line for --check.
void print_check(std::FILE* stream, const std::string& check, double error);

// Writes the result (`name`: "y" or "Y") where -o asked, then fails (exit 1)
// when --check was given and did not pass.
void write_dense_result(Output& out, const DenseMatrix& Y, const char* name, bool checked,
                        const std::string& check);

}  // namespace libra::cli
