// Libra's SpGEMM algorithms (auto = panel, and outer = lbGEMM) on real matrices: C = A*A
// (A*A^T when A is not square) for every matrix shipped in unit_tests/data and, in the
// executable labelled `shared` (compiled with LIBRA_TEST_SHARED_MATRICES), every matrix
// of ../shared/matrices, against the reference oracle. Both Libra's default path and the
// GPU-style path are run for each algorithm.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "libra/format/convert.hpp"
#include "libra/io/read.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/test_space.hpp"

namespace spgemm_matrices_test {

using libra::test::Device;
using libra::test::Exec;
using Matrix = libra::Csr<double, int, int, Device>;

using libra::test::matrix_files;

std::string data_dir() {
  return libra::test::matrix_dir();
}

void check_file(const std::string& path, bool dense_accumulator,
                libra::SpgemmAlgorithm algorithm) {
  SCOPED_TRACE(path + " " + libra::to_string(algorithm));
  const Matrix A = libra::io::read_matrix<double, int, int, Device>(path);
  const Matrix B = A.num_rows == A.num_cols ? A : libra::transpose(Exec(), A);
  const auto a = libra::test::to_ref(A);
  const auto b = libra::test::to_ref(B);
  std::vector<double> scale;
  const auto expected = libra::ref::spgemm(a, b, &scale);
  libra::SpgemmOptions options;
  options.dense_accumulator = dense_accumulator;
  options.algorithm = algorithm;
  libra::SpgemmStats stats;
  const Matrix C = libra::spgemm(Exec(), A, B, options, &stats);
  EXPECT_TRUE(libra::test::same_matrix(expected, libra::test::to_ref(C), 1e-12, &scale));
  EXPECT_EQ(stats.products, libra::ref::spgemm_products(a, b));
  EXPECT_EQ(stats.nnz_c, static_cast<std::uint64_t>(expected.nnz()));
  EXPECT_EQ(stats.algorithm, algorithm == libra::SpgemmAlgorithm::automatic
                                 ? libra::SpgemmAlgorithm::panel
                                 : algorithm);
}

TEST(SpgemmMatrices, EveryFileTimesItself) {
  const auto files = matrix_files(data_dir());
  ASSERT_GE(files.size(), 6u) << "matrices expected in " << data_dir();
  for (const auto& f : files) check_file(f, true, libra::SpgemmAlgorithm::automatic);
}

TEST(SpgemmMatrices, EveryFileTimesItselfOnTheGpuPath) {
  for (const auto& f : matrix_files(data_dir()))
    check_file(f, false, libra::SpgemmAlgorithm::automatic);
}

TEST(SpgemmMatrices, EveryFileTimesItselfWithOuter) {
  for (const auto& f : matrix_files(data_dir())) {
    check_file(f, true, libra::SpgemmAlgorithm::outer);
    check_file(f, false, libra::SpgemmAlgorithm::outer);
  }
}

}  // namespace spgemm_matrices_test
