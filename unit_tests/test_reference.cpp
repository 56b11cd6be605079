// The reference oracle checked by hand: every expected matrix below was worked
// out on paper, so the oracle that the other tests trust is itself tested
// against something independent of it (as Ginkgo tests its reference backend).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "libra/reference/reference.hpp"

namespace reference_test {

using libra::ref::Matrix;
using libra::ref::Triplet;

// The CSR arrays of `m`, compared as a whole.
void expect_csr(const Matrix& m, std::int64_t rows, std::int64_t cols,
                const std::vector<std::int64_t>& ptr,
                const std::vector<std::int64_t>& col, const std::vector<double>& val) {
  EXPECT_EQ(m.rows, rows);
  EXPECT_EQ(m.cols, cols);
  EXPECT_EQ(m.ptr, ptr);
  EXPECT_EQ(m.col, col);
  EXPECT_EQ(m.val, val);
}

// A = [1 0 2]   B = [4 0]
//     [0 3 0]       [0 5]
//                   [6 0]
Matrix hand_a() {
  return libra::ref::from_triplets(2, 3, {{1, 1, 3}, {0, 2, 2}, {0, 0, 1}});
}
Matrix hand_b() {
  return libra::ref::from_triplets(3, 2, {{2, 0, 6}, {0, 0, 4}, {1, 1, 5}});
}

TEST(Reference, FromTripletsSortsAndSumsDuplicatesInInputOrder) {
  expect_csr(hand_a(), 2, 3, {0, 2, 3}, {0, 2, 1}, {1, 2, 3});
  // (0, 1) three times: 0.1 + 0.2 first, then + 0.3, left to right.
  const Matrix m = libra::ref::from_triplets(
      3, 2, {{2, 1, -1}, {0, 1, 0.1}, {0, 0, 7}, {0, 1, 0.2}, {0, 1, 0.3}});
  expect_csr(m, 3, 2, {0, 2, 2, 3}, {0, 1, 1}, {7, (0.1 + 0.2) + 0.3, -1});
  // A sum that cancels stays an (explicit zero) entry.
  expect_csr(libra::ref::from_triplets(1, 1, {{0, 0, 2}, {0, 0, -2}}), 1, 1, {0, 1}, {0},
             {0});
  EXPECT_THROW(libra::ref::from_triplets(2, 2, {{2, 0, 1}}), std::out_of_range);
  EXPECT_THROW(libra::ref::from_triplets(2, 2, {{0, -1, 1}}), std::out_of_range);
}

TEST(Reference, TripletsAndTranspose) {
  const std::vector<Triplet> t = libra::ref::to_triplets(hand_a());
  EXPECT_EQ(t, (std::vector<Triplet>{{0, 0, 1}, {0, 2, 2}, {1, 1, 3}}));
  // A^T = [1 0]
  //       [0 3]
  //       [2 0]
  expect_csr(libra::ref::transpose(hand_a()), 3, 2, {0, 1, 2, 3}, {0, 1, 0}, {1, 3, 2});
  expect_csr(libra::ref::transpose(Matrix{}), 0, 0, {0}, {}, {});
}

TEST(Reference, SpgemmByHand) {
  // A * B = [1*4 + 2*6   0  ] = [16  0]
  //         [0         3*5  ]   [ 0 15]
  std::vector<double> scale, terms;
  const Matrix c = libra::ref::spgemm(hand_a(), hand_b(), &scale, &terms);
  expect_csr(c, 2, 2, {0, 1, 2}, {0, 1}, {16, 15});
  EXPECT_EQ(scale, (std::vector<double>{12, 15}));  // max(|1*4|, |2*6|), |3*5|
  EXPECT_EQ(terms, (std::vector<double>{2, 1}));
  EXPECT_EQ(libra::ref::spgemm_products(hand_a(), hand_b()), 3u);

  // B * A (3 x 3) = [4 0 8]
  //                 [0 15 0]
  //                 [6 0 12]
  expect_csr(libra::ref::spgemm(hand_b(), hand_a()), 3, 3, {0, 2, 3, 5}, {0, 2, 1, 0, 2},
             {4, 8, 15, 6, 12});
  EXPECT_EQ(libra::ref::spgemm_products(hand_b(), hand_a()), 5u);
}

TEST(Reference, RectangularTimesItsTranspose) {
  // A = [1 2 0]   A A^T = [1+4  0] = [5 0]
  //     [0 0 3]           [0    9]   [0 9]
  const Matrix a = libra::ref::from_triplets(2, 3, {{0, 0, 1}, {0, 1, 2}, {1, 2, 3}});
  expect_csr(libra::ref::spgemm(a, libra::ref::transpose(a)), 2, 2, {0, 1, 2}, {0, 1},
             {5, 9});
  // A^T A = [1 2 0]
  //         [2 4 0]
  //         [0 0 9]
  expect_csr(libra::ref::spgemm(libra::ref::transpose(a), a), 3, 3, {0, 2, 4, 5},
             {0, 1, 0, 1, 2}, {1, 2, 2, 4, 9});
}

TEST(Reference, CancellationKeepsTheStructuralEntry) {
  // [1 1] * [ 1] = [0]: the product is structurally nonzero, so C stores it.
  //         [-1]
  const Matrix a = libra::ref::from_triplets(1, 2, {{0, 0, 1}, {0, 1, 1}});
  const Matrix b = libra::ref::from_triplets(2, 1, {{0, 0, 1}, {1, 0, -1}});
  expect_csr(libra::ref::spgemm(a, b), 1, 1, {0, 1}, {0}, {0});
}

TEST(Reference, EmptyShapesAndMismatch) {
  const Matrix none_by_3 = libra::ref::from_triplets(0, 3, {});
  expect_csr(libra::ref::spgemm(none_by_3, hand_b()), 0, 2, {0}, {}, {});
  const Matrix two_by_none = libra::ref::from_triplets(2, 0, {});
  const Matrix none_by_4 = libra::ref::from_triplets(0, 4, {});
  expect_csr(libra::ref::spgemm(two_by_none, none_by_4), 2, 4, {0, 0, 0}, {}, {});
  EXPECT_THROW(libra::ref::spgemm(hand_a(), hand_a()), std::invalid_argument);
}

TEST(Reference, SpmvDenseAndGemmByHand) {
  // A x with x = (1, 10, 100): (1 + 200, 30).
  EXPECT_EQ(libra::ref::spmv(hand_a(), {1, 10, 100}), (std::vector<double>{201, 30}));
  // Column-major: columns (1, 0), (0, 3), (2, 0).
  EXPECT_EQ(libra::ref::to_dense(hand_a()), (std::vector<double>{1, 0, 0, 3, 2, 0}));
  // [1 2] [5 6]   [19 22]
  // [3 4] [7 8] = [43 50], all column-major.
  EXPECT_EQ(libra::ref::gemm(2, 2, 2, {1, 3, 2, 4}, {5, 7, 6, 8}),
            (std::vector<double>{19, 43, 22, 50}));
  // The dense and sparse products agree on the hand example.
  EXPECT_EQ(libra::ref::to_dense(libra::ref::spgemm(hand_a(), hand_b())),
            libra::ref::gemm(2, 3, 2, libra::ref::to_dense(hand_a()),
                             libra::ref::to_dense(hand_b())));
}

TEST(Reference, SpmmByHand) {
  // A = [1 0 2]   X = [1 4]   A * X = [7 16]
  //     [0 3 0]       [2 5]           [6 15]
  //                   [3 6]
  // Column-major, as the oracle stores dense matrices.
  const std::vector<double> x{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(libra::ref::spmm(hand_a(), 2, x), (std::vector<double>{7, 6, 16, 15}));
  // Y = -1 * Y + 2 * A * X with Y = 1 everywhere; |beta*y| + sum |alpha*a*x|
  // per entry: (0, 0) = 1 + 2*1*1 + 2*2*3 = 15, (1, 0) = 1 + 2*3*2 = 13, ...
  std::vector<double> scale;
  EXPECT_EQ(libra::ref::spmm(hand_a(), 2, x, 2, -1, {1, 1, 1, 1}, &scale),
            (std::vector<double>{13, 11, 31, 29}));
  EXPECT_EQ(scale, (std::vector<double>{15, 13, 33, 31}));
  // beta = 0 ignores Y, NaN included; alpha = 0 only scales.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(libra::ref::spmm(hand_a(), 2, x, 2, 0, {nan, nan, nan, nan}),
            (std::vector<double>{14, 12, 32, 30}));
  EXPECT_EQ(libra::ref::spmm(hand_a(), 2, x, 0, 3, {1, 2, 3, 4}),
            (std::vector<double>{3, 6, 9, 12}));
  // K = 0, an empty A, and mismatched shapes.
  EXPECT_TRUE(libra::ref::spmm(hand_a(), 0, {}).empty());
  EXPECT_EQ(libra::ref::spmm(libra::ref::from_triplets(2, 3, {}), 1, {1, 2, 3}),
            (std::vector<double>{0, 0}));
  EXPECT_THROW(libra::ref::spmm(hand_a(), 2, {1, 2, 3}), std::invalid_argument);
  EXPECT_THROW(libra::ref::spmm(hand_a(), 2, x, 1, 1, {1, 2}), std::invalid_argument);
}

TEST(Reference, RandomIsSeededSortedAndInRange) {
  const Matrix a = libra::ref::random(50, 40, 4, 9);
  const Matrix b = libra::ref::random(50, 40, 4, 9);
  EXPECT_EQ(a.ptr, b.ptr);
  EXPECT_EQ(a.col, b.col);
  EXPECT_EQ(a.val, b.val);
  EXPECT_GT(a.nnz(), 0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
      EXPECT_GE(a.col[p], 0);
      EXPECT_LT(a.col[p], a.cols);
      if (p > a.ptr[i]) EXPECT_LT(a.col[p - 1], a.col[p]);
    }
  }
  EXPECT_EQ(libra::ref::random(30, 30, 5, 1, 1.0).nnz(), 0);  // every row left empty
  EXPECT_NE(libra::ref::random(50, 40, 4, 10).col, a.col);
}

}  // namespace reference_test
