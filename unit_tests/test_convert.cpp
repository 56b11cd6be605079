// Conversions between formats, on the test's execution space, against the oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

#include "libra/format/convert.hpp"
#include "libra/format/kokkos_interop.hpp"
#include "libra/format/mirror.hpp"
#include "support/compare.hpp"
#include "support/test_space.hpp"
#include "support/user_coo.hpp"

namespace convert_test {

using libra::test::Device;
using libra::test::Exec;

template <class S, class O, class Off>
struct Types {
  using Scalar = S;
  using Ordinal = O;
  using Offset = Off;
  using Csr = libra::Csr<S, O, Off, Device>;
  using Coo = libra::Coo<S, O, Off, Device>;
  static double tol() { return 4 * std::numeric_limits<S>::epsilon(); }
};

template <class T>
class Convert : public ::testing::Test {};
using TypeList = ::testing::Types<Types<double, int, int>, Types<float, int, std::size_t>,
                                  Types<double, std::int64_t, std::size_t>,
                                  Types<double, int, std::int64_t>>;
TYPED_TEST_SUITE(Convert, TypeList);

// Shapes that break naive code: empty, rectangular both ways, empty rows, one row.
std::vector<libra::ref::Matrix> sample_matrices() {
  using libra::ref::random;
  std::vector<libra::ref::Matrix> out;
  out.push_back(libra::ref::Matrix{});                 // 0 x 0
  out.push_back(libra::ref::from_triplets(5, 0, {}));  // no columns
  out.push_back(libra::ref::from_triplets(0, 7, {}));  // no rows
  out.push_back(libra::ref::from_triplets(4, 4, {}));  // no entries
  out.push_back(libra::ref::from_triplets(1, 1, {{0, 0, 2.5}}));
  out.push_back(random(1, 5000, 1500, 11));    // one long row
  out.push_back(random(300, 40, 6, 12, 0.5));  // tall, half the rows empty
  out.push_back(random(40, 3000, 30, 13));     // wide
  out.push_back(random(20000, 20000, 8, 14));  // big enough for many tiles
  return out;
}

// A copy of m with values rounded to S, so the oracle and Libra hold the same numbers.
template <class S>
libra::ref::Matrix rounded(libra::ref::Matrix m) {
  for (auto& v : m.val) v = static_cast<double>(static_cast<S>(v));
  return m;
}

TYPED_TEST(Convert, CsrCscRoundTrip) {
  using T = TypeParam;
  for (const auto& m0 : sample_matrices()) {
    const auto m = rounded<typename T::Scalar>(m0);
    const auto A = libra::test::from_ref<typename T::Scalar, typename T::Ordinal,
                                         typename T::Offset, Device>(m);
    const auto C = libra::to_csc(Exec(), A);
    // The CSC arrays of A are the CSR arrays of A^T.
    const auto t = libra::test::compressed_to_ref(C.num_cols, C.num_rows, C.col_map,
                                                  C.row_idx, C.values);
    EXPECT_TRUE(libra::test::same_matrix(libra::ref::transpose(m), t, 0));
    const auto B = libra::to_csr(Exec(), C);
    EXPECT_TRUE(libra::test::same_matrix(m, libra::test::to_ref(B), 0));
    const auto At = libra::transpose(Exec(), A);
    EXPECT_TRUE(
        libra::test::same_matrix(libra::ref::transpose(m), libra::test::to_ref(At), 0));
  }
}

TYPED_TEST(Convert, CooSortsAndSumsDuplicates) {
  using T = TypeParam;
  using Coo = typename T::Coo;
  std::mt19937_64 rng(42);
  for (const auto& m0 : sample_matrices()) {
    const auto m = rounded<typename T::Scalar>(m0);
    // Every entry split in two halves, duplicates shuffled across the whole input.
    std::vector<libra::ref::Triplet> t;
    for (const auto& [r, c, v] : libra::ref::to_triplets(m)) {
      t.emplace_back(r, c, v);
      t.emplace_back(r, c, 0.5);
    }
    std::shuffle(t.begin(), t.end(), rng);
    const auto expected = libra::ref::from_triplets(m.rows, m.cols, t);
    const auto A = libra::test::user_coo<Coo>(m.rows, m.cols, t);
    const auto B = libra::to_csr(Exec(), A);
    EXPECT_TRUE(libra::test::same_matrix(expected, libra::test::to_ref(B), T::tol()));
    // And back: CSR -> COO is sorted by row, then column.
    const auto back = libra::to_coo(Exec(), B);
    auto br = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.row_idx);
    auto bc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.col_idx);
    ASSERT_EQ(static_cast<std::int64_t>(br.extent(0)), expected.nnz());
    for (std::int64_t i = 0; i < expected.rows; ++i) {
      for (std::int64_t p = expected.ptr[i]; p < expected.ptr[i + 1]; ++p) {
        ASSERT_EQ(br(p), i);
        ASSERT_EQ(bc(p), expected.col[p]);
      }
    }
  }
}

TYPED_TEST(Convert, EllExactHybridAndError) {
  using T = TypeParam;
  for (const auto& m0 : sample_matrices()) {
    const auto m = rounded<typename T::Scalar>(m0);
    const auto A = libra::test::from_ref<typename T::Scalar, typename T::Ordinal,
                                         typename T::Offset, Device>(m);
    const auto E = libra::to_ell(Exec(), A);  // width = longest row
    EXPECT_EQ(E.tail.nnz(), 0);
    EXPECT_TRUE(
        libra::test::same_matrix(m, libra::test::to_ref(libra::to_csr(Exec(), E)), 0));

    std::int64_t longest = 0;
    for (std::int64_t i = 0; i < m.rows; ++i)
      longest = std::max(longest, m.ptr[i + 1] - m.ptr[i]);
    if (longest < 2) continue;
    libra::EllOptions narrow;
    narrow.width = longest / 2;
    EXPECT_THROW(libra::to_ell(Exec(), A, narrow), libra::ArgumentError);
    narrow.overflow = libra::EllOverflow::hybrid;
    const auto H = libra::to_ell(Exec(), A, narrow);
    EXPECT_EQ(H.width, longest / 2);
    EXPECT_GT(H.tail.nnz(), 0);
    EXPECT_TRUE(
        libra::test::same_matrix(m, libra::test::to_ref(libra::to_csr(Exec(), H)), 0));
  }
}

TYPED_TEST(Convert, DenseRoundTrip) {
  using T = TypeParam;
  for (const auto& m0 : sample_matrices()) {
    if (m0.rows * m0.cols > 5'000'000)
      continue;  // dense copies of the big ones are pointless
    const auto m = rounded<typename T::Scalar>(m0);
    const auto A = libra::test::from_ref<typename T::Scalar, typename T::Ordinal,
                                         typename T::Offset, Device>(m);
    const auto D = libra::to_dense(Exec(), A);
    auto hD = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), D);
    const auto expected = libra::ref::to_dense(m);
    for (std::int64_t j = 0; j < m.cols; ++j)
      for (std::int64_t i = 0; i < m.rows; ++i)
        ASSERT_EQ(static_cast<double>(hD(i, j)), expected[j * m.rows + i]);
    const auto B = libra::to_csr<typename T::Ordinal, typename T::Offset>(Exec(), D);
    // Exact zeros vanish in a dense round trip; the samples hold none.
    EXPECT_TRUE(libra::test::same_matrix(m, libra::test::to_ref(B), 0));
  }
}

TYPED_TEST(Convert, KokkosSparseInteropSharesStorage) {
  using T = TypeParam;
  const auto m = rounded<typename T::Scalar>(libra::ref::random(500, 700, 5, 3));
  const auto A = libra::test::from_ref<typename T::Scalar, typename T::Ordinal,
                                       typename T::Offset, Device>(m);
  const auto K = libra::to_kokkos(A);
  EXPECT_EQ(K.numRows(), A.num_rows);
  EXPECT_EQ(K.numCols(), A.num_cols);
  EXPECT_EQ(K.values.data(), A.values.data());
  EXPECT_EQ(K.graph.entries.data(), A.col_idx.data());
  EXPECT_EQ(K.graph.row_map.data(), A.row_map.data());
  const auto B = libra::from_kokkos(K);
  EXPECT_EQ(B.values.data(), A.values.data());
  EXPECT_TRUE(libra::test::same_matrix(m, libra::test::to_ref(B), 0));
}

TYPED_TEST(Convert, CopyToHostAndBack) {
  using T = TypeParam;
  const auto m = rounded<typename T::Scalar>(libra::ref::random(300, 200, 4, 5));
  const auto A = libra::test::from_ref<typename T::Scalar, typename T::Ordinal,
                                       typename T::Offset, Device>(m);
  const auto H = libra::to_host(A);
  const auto B = libra::copy_to<Exec>(H);
  EXPECT_TRUE(libra::test::same_matrix(m, libra::test::to_ref(H), 0));
  EXPECT_TRUE(libra::test::same_matrix(m, libra::test::to_ref(B), 0));
}

TEST(ConvertShape, MismatchedExtentsAreRejected) {
  using M = libra::Csr<double, int, int, Device>;
  M::row_map_non_const_type rm("rm", 4);
  M::index_type ci("ci", 3);
  M::values_type v("v", 2);
  EXPECT_THROW(M(3, 3, rm, ci, v), libra::ShapeError);  // values vs col_idx
  EXPECT_THROW(M(4, 3, rm, ci, M::values_type("v", 3)), libra::ShapeError);  // row_map
  EXPECT_THROW(M(-1, 3, rm, ci, v), libra::ShapeError);
}

}  // namespace convert_test
