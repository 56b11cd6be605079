// lbGEMM (SpgemmAlgorithm::outer) against the reference Gustavson product.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

#include "libra/spgemm/spgemm.hpp"
#include "support/compare.hpp"
#include "support/test_space.hpp"

namespace spgemm_outer_test {

using libra::test::Device;
using libra::test::Exec;

template <class S, class O, class Off>
struct Types {
  using Scalar = S;
  using Csr = libra::Csr<S, O, Off, Device>;
  // Double: errors within 1e-12 of the largest product in the row. Float: within
  // a few roundings of (largest product) x (products summed into the row), the
  // worst case of float summation.
  static bool is_double() { return std::is_same<S, double>::value; }
  static double tol() {
    return is_double() ? 1e-12 : 4 * std::numeric_limits<float>::epsilon();
  }
  static std::vector<double> scale(const std::vector<double>& largest,
                                   const std::vector<double>& terms) {
    if (is_double()) return largest;
    std::vector<double> s(largest.size());
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = largest[i] * terms[i];
    return s;
  }
};

template <class T>
class SpgemmOuter : public ::testing::Test {};
using TypeList = ::testing::Types<Types<double, int, int>, Types<float, int, std::size_t>,
                                  Types<double, std::int64_t, std::int64_t>>;
TYPED_TEST_SUITE(SpgemmOuter, TypeList);

libra::SpgemmOptions outer_options() {
  libra::SpgemmOptions o;
  o.algorithm = libra::SpgemmAlgorithm::outer;
  return o;
}

template <class S>
libra::ref::Matrix rounded(libra::ref::Matrix m) {
  for (auto& v : m.val) v = static_cast<double>(static_cast<S>(v));
  return m;
}

// A skewed graph: a few hub rows and columns hold most entries (the power-law
// shape lbGEMM is built for), with rows and columns left empty.
libra::ref::Matrix skewed(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t e = 0; e < 12 * n; ++e) {
    // Squaring a uniform variate piles indices up near 0: hubs.
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const double v = std::uniform_real_distribution<double>(0, 1)(rng);
    const auto i = static_cast<std::int64_t>(u * u * u * (n - 1));
    const auto j = static_cast<std::int64_t>(v * v * (n - 1));
    if (i % 7 == 3) continue;  // empty rows
    t.emplace_back(i, j, value(rng));
  }
  return libra::ref::from_triplets(n, n, t);
}

template <class T>
libra::SpgemmStats check_product(const libra::ref::Matrix& a0,
                                 const libra::ref::Matrix& b0,
                                 const libra::SpgemmOptions& options = {},
                                 int min_chunks = 0) {
  using S = typename T::Scalar;
  using Csr = typename T::Csr;
  const auto a = rounded<S>(a0);
  const auto b = rounded<S>(b0);
  const auto A = libra::test::from_ref<S, typename Csr::ordinal_type,
                                       typename Csr::offset_type, Device>(a);
  const auto B = libra::test::from_ref<S, typename Csr::ordinal_type,
                                       typename Csr::offset_type, Device>(b);
  std::vector<double> largest, terms;
  const auto expected = libra::ref::spgemm(a, b, &largest, &terms);
  const auto scale = T::scale(largest, terms);
  libra::SpgemmStats stats;
  libra::SpgemmOptions outer = options;
  outer.algorithm = libra::SpgemmAlgorithm::outer;
  const auto C = libra::spgemm(Exec(), A, B, outer, &stats);
  EXPECT_EQ(stats.algorithm, libra::SpgemmAlgorithm::outer);
  EXPECT_TRUE(
      libra::test::same_matrix(expected, libra::test::to_ref(C), T::tol(), &scale))
      << a.rows << "x" << a.cols << " * " << b.rows << "x" << b.cols;
  EXPECT_EQ(stats.products, libra::ref::spgemm_products(a, b));
  EXPECT_EQ(stats.flops, 2 * stats.products);
  EXPECT_EQ(stats.nnz_c, static_cast<std::uint64_t>(expected.nnz()));
  EXPECT_GE(stats.chunks, min_chunks);
  // The budget bounds what Libra measured it held, not just what it planned.
  if (options.memory_budget) EXPECT_LE(stats.peak_bytes, options.memory_budget);
  EXPECT_GT(stats.peak_bytes, 0u);
  return stats;
}

TYPED_TEST(SpgemmOuter, RandomSquareAndRectangular) {
  using libra::ref::random;
  check_product<TypeParam>(random(500, 500, 6, 1), random(500, 500, 6, 2));
  check_product<TypeParam>(random(300, 700, 5, 3),
                           random(700, 200, 4, 4));  // rectangular
  check_product<TypeParam>(random(50, 3000, 40, 5),
                           random(3000, 60, 3, 6));  // wide inner
  check_product<TypeParam>(random(4000, 20, 3, 7),
                           random(20, 5000, 30, 8));  // narrow inner
}

TYPED_TEST(SpgemmOuter, SkewedGraphs) {
  const auto g = skewed(6000, 11);
  check_product<TypeParam>(g, g);
  check_product<TypeParam>(g, libra::ref::transpose(g));
}

TYPED_TEST(SpgemmOuter, LongRowsUseTheBitmapAndGlobalPaths) {
  // One dense-ish row of A times a wide B: the row's products exceed scratch.
  using libra::ref::random;
  const auto a = random(40, 2000, 900, 21, 0.0);
  const auto b = random(2000, 9000, 12, 22, 0.0);
  check_product<TypeParam>(a, b);
}

TYPED_TEST(SpgemmOuter, EmptyAndDegenerate) {
  using libra::ref::from_triplets;
  using libra::ref::random;
  check_product<TypeParam>(from_triplets(0, 0, {}), from_triplets(0, 0, {}));
  check_product<TypeParam>(from_triplets(5, 0, {}), from_triplets(0, 7, {}));
  check_product<TypeParam>(from_triplets(4, 6, {}), random(6, 3, 2, 1));
  check_product<TypeParam>(random(30, 30, 3, 9, 0.9), random(30, 30, 3, 10, 0.9));
  check_product<TypeParam>(from_triplets(1, 1, {{0, 0, 3.0}}),
                           from_triplets(1, 1, {{0, 0, 0.5}}));
}

TYPED_TEST(SpgemmOuter, GpuPathsOnEverySpace) {
  // On host spaces the dense accumulator is the default; this runs the scratch
  // sort, bitmap and in-place paths the GPU takes, on every space.
  libra::SpgemmOptions options;
  options.algorithm = libra::SpgemmAlgorithm::outer;
  options.dense_accumulator = false;
  const auto g = skewed(3000, 17);
  check_product<TypeParam>(g, g, options);
  check_product<TypeParam>(libra::ref::random(40, 2000, 900, 21, 0.0),
                           libra::ref::random(2000, 9000, 12, 22, 0.0), options);
  options.memory_budget = 4'200'000;
  EXPECT_GE(check_product<TypeParam>(g, g, options, 3).paths.row_chunks, 3u);
  options.tuning.outer_chunks_by_items = true;
  EXPECT_EQ(check_product<TypeParam>(g, g, options, 3).paths.row_chunks, 0u);
}

TYPED_TEST(SpgemmOuter, TinyBudgetForcesManyChunks) {
  const auto g = skewed(3000, 12);
  libra::SpgemmOptions options;
  options.algorithm = libra::SpgemmAlgorithm::outer;
  // Room for the bookkeeping (about 2.3-2.9 MB here, the sorts' passing arrays
  // included) and some 50,000-100,000 products per chunk; the hub pairs exceed
  // that and are split.
  options.memory_budget = 4'200'000;
  // Every row's products fit a chunk: row panels, concatenated.
  auto st = check_product<TypeParam>(g, g, options, 3);
  EXPECT_EQ(st.paths.row_chunks, static_cast<std::uint64_t>(st.chunks));
  // Forced: table items, merged.
  options.tuning.outer_chunks_by_items = true;
  st = check_product<TypeParam>(g, g, options, 3);
  EXPECT_EQ(st.paths.row_chunks, 0u);
  // Rows with about 150,000 products each, beyond a chunk's capacity: the items
  // split them.
  options.tuning.outer_chunks_by_items = false;
  st = check_product<TypeParam>(libra::ref::random(40, 2000, 1500, 31, 0.0),
                                libra::ref::random(2000, 3000, 100, 32, 0.0), options, 3);
  EXPECT_EQ(st.paths.row_chunks, 0u);
}

TYPED_TEST(SpgemmOuter, BudgetBelowTheBookkeepingIsAClearError) {
  const auto g = rounded<typename TypeParam::Scalar>(skewed(500, 13));
  using Csr = typename TypeParam::Csr;
  const auto A =
      libra::test::from_ref<typename TypeParam::Scalar, typename Csr::ordinal_type,
                            typename Csr::offset_type, Device>(g);
  libra::SpgemmOptions options;
  options.algorithm = libra::SpgemmAlgorithm::outer;
  options.memory_budget = 100;
  EXPECT_THROW(libra::spgemm(Exec(), A, A, options), libra::ArgumentError);
}

TYPED_TEST(SpgemmOuter, NumericReusesThePattern) {
  using S = typename TypeParam::Scalar;
  using Csr = typename TypeParam::Csr;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  auto a = rounded<S>(skewed(2000, 14));
  const auto b = rounded<S>(libra::ref::random(2000, 1500, 5, 15));
  auto A = libra::test::from_ref<S, O, Off, Device>(a);
  const auto B = libra::test::from_ref<S, O, Off, Device>(b);
  libra::SpgemmHandle<S, O, Off, Device> handle(outer_options());
  Csr C;
  libra::spgemm_symbolic(Exec(), handle, A, B, C);
  for (int round = 0; round < 2; ++round) {
    for (auto& v : a.val) v = static_cast<double>(static_cast<S>(v * 0.5 + round));
    A = libra::test::from_ref<S, O, Off, Device>(a);
    libra::spgemm_numeric(Exec(), handle, A, B, C);
    std::vector<double> largest, terms;
    const auto expected = libra::ref::spgemm(a, b, &largest, &terms);
    const auto scale = TypeParam::scale(largest, terms);
    EXPECT_TRUE(libra::test::same_matrix(expected, libra::test::to_ref(C),
                                         TypeParam::tol(), &scale));
  }
}

TYPED_TEST(SpgemmOuter, GivenColumnsAreNotTransposedAgain) {
  using S = typename TypeParam::Scalar;
  using Csr = typename TypeParam::Csr;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  const auto a = rounded<S>(skewed(3000, 16));
  const auto b = rounded<S>(libra::ref::random(3000, 900, 5, 17));
  const auto A = libra::test::from_ref<S, O, Off, Device>(a);
  const auto B = libra::test::from_ref<S, O, Off, Device>(b);
  const auto A_columns = libra::with_columns(Exec(), A);
  std::vector<double> largest, terms;
  const auto expected = libra::ref::spgemm(a, b, &largest, &terms);
  const auto scale = TypeParam::scale(largest, terms);
  for (const auto algorithm :
       {libra::SpgemmAlgorithm::outer, libra::SpgemmAlgorithm::panel}) {
    libra::SpgemmOptions options;
    options.algorithm = algorithm;
    libra::SpgemmStats given, plain;
    const auto C = libra::spgemm(Exec(), A_columns, B, options, &given);
    const auto D = libra::spgemm(Exec(), A, B, options, &plain);
    EXPECT_TRUE(libra::test::same_matrix(expected, libra::test::to_ref(C),
                                         TypeParam::tol(), &scale));
    EXPECT_TRUE(libra::test::same_matrix(expected, libra::test::to_ref(D),
                                         TypeParam::tol(), &scale));
    EXPECT_EQ(given.paths.a_transposed, 0u);
    const bool outer = algorithm == libra::SpgemmAlgorithm::outer;
    EXPECT_EQ(plain.paths.a_transposed, outer ? static_cast<std::uint64_t>(A.nnz()) : 0u);
  }
  // Chunked by row panels, which narrow each column by binary search over its
  // rows: given columns whose rows descend are detected, and the chunks are cut
  // by table items instead.
  {
    const auto g = rounded<S>(skewed(3000, 12));
    const auto G = libra::test::from_ref<S, O, Off, Device>(g);
    const auto sorted = libra::with_columns(Exec(), G);
    // Copies (create_mirror, not a view that may alias on host spaces): the
    // sorted columns must stay as they are.
    auto row = Kokkos::create_mirror(Kokkos::HostSpace(), sorted.csc.row_idx);
    auto val = Kokkos::create_mirror(Kokkos::HostSpace(), sorted.csc.values);
    auto pos = Kokkos::create_mirror(Kokkos::HostSpace(), sorted.csr_position);
    Kokkos::deep_copy(row, sorted.csc.row_idx);
    Kokkos::deep_copy(val, sorted.csc.values);
    Kokkos::deep_copy(pos, sorted.csr_position);
    const auto map = libra::ref::transpose(g).ptr;  // where G's columns start
    for (std::size_t j = 0; j + 1 < map.size(); ++j) {
      for (auto p = map[j], q = map[j + 1]; p + 1 < q; ++p, --q) {
        std::swap(row(p), row(q - 1));
        std::swap(val(p), val(q - 1));
        std::swap(pos(p), pos(q - 1));
      }
    }
    typename libra::Csc<S, O, Off, Device>::index_type d_row("row", row.extent(0));
    typename libra::Csc<S, O, Off, Device>::values_type d_val("val", val.extent(0));
    typename libra::CsrWithColumns<S, O, Off, Device>::position_type d_pos("pos",
                                                                           pos.extent(0));
    Kokkos::deep_copy(d_row, row);
    Kokkos::deep_copy(d_val, val);
    Kokkos::deep_copy(d_pos, pos);
    const libra::CsrWithColumns<S, O, Off, Device> reversed(
        G,
        libra::Csc<S, O, Off, Device>(G.num_rows, G.num_cols, sorted.csc.col_map, d_row,
                                      d_val),
        d_pos);
    std::vector<double> g_largest, g_terms;
    const auto g_expected = libra::ref::spgemm(g, g, &g_largest, &g_terms);
    const auto g_scale = TypeParam::scale(g_largest, g_terms);
    libra::SpgemmOptions options;
    options.algorithm = libra::SpgemmAlgorithm::outer;
    options.memory_budget = 4'200'000;
    for (const auto* given : {&sorted, &reversed}) {
      libra::SpgemmStats st;
      const auto C = libra::spgemm(Exec(), *given, G, options, &st);
      EXPECT_TRUE(libra::test::same_matrix(g_expected, libra::test::to_ref(C),
                                           TypeParam::tol(), &g_scale));
      EXPECT_GE(st.chunks, 3);
      EXPECT_EQ(st.paths.a_transposed, 0u);
      EXPECT_EQ(st.paths.row_chunks,
                given == &sorted ? static_cast<std::uint64_t>(st.chunks) : 0u);
    }
  }
  // Columns of another matrix are refused by their shape.
  const auto Q =
      libra::test::from_ref<S, O, Off, Device>(libra::ref::random(3000, 901, 5, 18));
  EXPECT_THROW((libra::CsrWithColumns<S, O, Off, Device>(Q, A_columns.csc,
                                                         A_columns.csr_position)),
               libra::ShapeError);
}

TYPED_TEST(SpgemmOuter, ShapesAreChecked) {
  using S = typename TypeParam::Scalar;
  using Csr = typename TypeParam::Csr;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  const auto A =
      libra::test::from_ref<S, O, Off, Device>(libra::ref::random(10, 20, 2, 1));
  const auto B =
      libra::test::from_ref<S, O, Off, Device>(libra::ref::random(21, 5, 2, 2));
  EXPECT_THROW(libra::spgemm(Exec(), A, B), libra::ShapeError);
  const auto Q =
      libra::test::from_ref<S, O, Off, Device>(libra::ref::random(20, 20, 2, 3));
  libra::SpgemmHandle<S, O, Off, Device> handle(outer_options());
  Csr C;
  EXPECT_THROW(libra::spgemm_numeric(Exec(), handle, Q, Q, C), libra::ArgumentError);
  libra::spgemm_symbolic(Exec(), handle, Q, Q, C);
  const auto R =
      libra::test::from_ref<S, O, Off, Device>(libra::ref::random(20, 20, 4, 4));
  EXPECT_THROW(libra::spgemm_numeric(Exec(), handle, R, R, C), libra::ShapeError);
}

TEST(SpgemmOuterKokkosSparse, CrsMatrixInAndOut) {
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  const auto a = libra::ref::random(400, 400, 5, 31);
  const auto A = libra::to_kokkos(libra::test::from_ref<double, int, int, Device>(a));
  const Crs C = libra::spgemm(Exec(), A, A);
  std::vector<double> scale;
  const auto expected = libra::ref::spgemm(a, a, &scale);
  EXPECT_TRUE(libra::test::same_matrix(
      expected,
      libra::test::compressed_to_ref(C.numRows(), C.numCols(), C.graph.row_map,
                                     C.graph.entries, C.values),
      1e-12, &scale));
}

}  // namespace spgemm_outer_test
