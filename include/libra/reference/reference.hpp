#pragma once
// The reference oracle (target Libra::reference): plain sequential host code,
// deliberately independent of Libra's formats, kernels and Kokkos, that every
// device result is compared with. The tests, the CLI (`--algo reference`,
// `--check`) and the benchmarks' checks use it; its own hand-checked tests are in
// unit_tests/test_reference.cpp. bridge.hpp moves matrices between it and Libra.
#include <cstdint>
#include <tuple>
#include <vector>

namespace libra::ref {

// CSR on the host with sorted, unique column indices in each row.
struct Matrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> ptr{0};
  std::vector<std::int64_t> col;
  std::vector<double> val;
  std::int64_t nnz() const { return static_cast<std::int64_t>(col.size()); }
};

using Triplet = std::tuple<std::int64_t, std::int64_t, double>;

// Sorts the triplets by (row, column) and sums duplicates (in input order).
Matrix from_triplets(std::int64_t rows, std::int64_t cols, std::vector<Triplet> entries);
std::vector<Triplet> to_triplets(const Matrix& A);

Matrix transpose(const Matrix& A);

// C = A * B by Gustavson's row-by-row method with a dense accumulator. When
// `row_scale` is given it receives, for each row of C, the largest |a_ik * b_kj|
// that contributed to it (the scale that floating-point errors are relative to),
// and `row_terms` the number of products summed into that row.
Matrix spgemm(const Matrix& A, const Matrix& B, std::vector<double>* row_scale = nullptr,
              std::vector<double>* row_terms = nullptr);

// Number of scalar products a_ik * b_kj in A * B.
std::uint64_t spgemm_products(const Matrix& A, const Matrix& B);

std::vector<double> spmv(const Matrix& A, const std::vector<double>& x);

// Y = beta * Y + alpha * A * X for dense X (A.cols x k) and Y (A.rows x k), both
// column-major; beta == 0 ignores Y's values (NaN included) and y may then be
// empty. Each entry's terms are summed in the order of A's row. When `scale` is
// given it receives, per entry of Y, |beta * y| + sum |alpha * a_ij * x_j| (what
// rounding errors are relative to).
std::vector<double> spmm(const Matrix& A, std::int64_t k, const std::vector<double>& x,
                         double alpha = 1, double beta = 0, std::vector<double> y = {},
                         std::vector<double>* scale = nullptr);

// Column-major dense helpers.
std::vector<double> to_dense(const Matrix& A);
std::vector<double> gemm(std::int64_t m, std::int64_t k, std::int64_t n,
                         const std::vector<double>& a, const std::vector<double>& b);

// A random matrix with about `per_row` entries per row (duplicates summed),
// values in [-1, 1), some rows left empty; for tests that need no file.
Matrix random(std::int64_t rows, std::int64_t cols, double per_row, std::uint64_t seed,
              double empty_row_fraction = 0.1);

}  // namespace libra::ref
