#pragma once
// What `libra spmv` shares between its one-process run (spmv.cpp) and its run
// under mpirun (spmv_dist.cpp): the arguments, x, and the oracle check.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/format/dense.hpp"
#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"

namespace libra::cli {

struct SpmvArgs {
  std::string a_file;
  std::string generate;  // --generate rmat:S:E or band:ROWS:DIAGONALS, instead of a file
  std::string x_file;
  std::string format;     // empty: csr, or what --partition implies
  std::string partition;  // empty: the whole matrix
  int parts = 0;          // 0: not given
  int iterations = 1;
  OutputOptions out;
  bool check = false;
  bool json = false;
  InputOptions input;
  // Under mpirun only (spmv_dist.cpp): MSREP's version and p-opt's transport.
  std::string version;    // empty: p-opt
  std::string transport;  // empty: auto
};

using DenseMatrix = Dense<double, Device>;

// x(i, k) = ((7 i + 13 k + 3) mod 17 - 8) / 8, as `libra spmm --columns` makes X.
struct GenerateX {
  DenseMatrix X;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    X(i, 0) = static_cast<double>((7 * i + 3) % 17 - 8) / 8.0;
  }
};

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// x from --x, or generated (GenerateX); checks its rows against A's columns.
DenseMatrix read_x(const SpmvArgs& args, std::int64_t cols);

// The summary's line for --check.
void print_check(std::FILE* stream, const std::string& check, double error);

// Writes y where -o asked, then fails (exit 1) when the --check did.
void write_y(const SpmvArgs& args, Output& out, const DenseMatrix& Y,
             const std::string& check);

// The runs of `libra spmv`: one process (spmv.cpp) or every MPI rank
// (spmv_dist.cpp, when an MPI launcher started the tool).
int run_spmv_distributed(const SpmvArgs& args);

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

}  // namespace libra::cli
