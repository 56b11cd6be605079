// Diagonal storage (HM and CDM, libra/format/diagonal.hpp): conversions, the
// products of libra/diag/gemm.hpp and SpMV, every result against the oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <utility>

#include "libra/diag/gemm.hpp"
#include "libra/diag/spmv.hpp"
#include "libra/format/diagonal_convert.hpp"
#include "libra/io/read.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/test_space.hpp"

namespace diagonal_test {

using libra::DiagonalOp;
using libra::DiagonalPath;
using libra::test::Device;
using libra::test::Exec;
namespace ref = libra::ref;

template <class S, class O, class Off>
struct Types {
  using Csr = libra::Csr<S, O, Off, Device>;
  using Hm = libra::DiagonalMatrix<S, O, Off, Device>;
  using Cdm = libra::CompactDiagonalMatrix<S, O, Off, Device>;
  // Relative to the sum of |terms| of each entry.
  static double tol() { return std::is_same<S, double>::value ? 1e-13 : 1e-5; }
  static ref::Matrix round(ref::Matrix m) {
    for (auto& v : m.val) v = static_cast<double>(static_cast<S>(v));
    return m;
  }
};

template <class T>
class Diagonal : public ::testing::Test {};
using TypeList =
    ::testing::Types<Types<double, int, int>, Types<float, int, std::size_t>>;
TYPED_TEST_SUITE(Diagonal, TypeList);

// Entries on the given diagonals (j - i), each kept with probability `density`,
// values in [-1, 1) and never 0 (a zero would vanish from diagonal storage).
ref::Matrix on_diagonals(std::int64_t rows, std::int64_t cols,
                         const std::vector<std::int64_t>& diags, double density,
                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<ref::Triplet> t;
  for (std::int64_t d : diags) {
    for (std::int64_t i = std::max<std::int64_t>(0, -d); i < rows && i + d < cols; ++i) {
      const double keep = u(rng), v = u(rng);
      if (keep < density) t.emplace_back(i, i + d, v < 0.5 ? v - 1.0 : v);
    }
  }
  return ref::from_triplets(rows, cols, t);
}

std::vector<std::int64_t> band(std::int64_t kl, std::int64_t ku) {
  std::vector<std::int64_t> d;
  for (std::int64_t k = -kl; k <= ku; ++k) d.push_back(k);
  return d;
}

std::vector<std::int64_t> every(std::int64_t first, std::int64_t last,
                                std::int64_t step) {
  std::vector<std::int64_t> d;
  for (std::int64_t x = first; x <= last; x += step) d.push_back(x);
  return d;
}

ref::Matrix absolute(ref::Matrix m) {
  for (auto& v : m.val) v = std::fabs(v);
  return m;
}

ref::Matrix scaled_sum(double a, const ref::Matrix& X, double b, const ref::Matrix& Y) {
  std::vector<ref::Triplet> t;
  for (auto [i, j, v] : ref::to_triplets(X)) t.emplace_back(i, j, a * v);
  if (b != 0) {
    for (auto [i, j, v] : ref::to_triplets(Y)) t.emplace_back(i, j, b * v);
  }
  return ref::from_triplets(X.rows, X.cols, t);
}

// Equal values at every position (a position missing from one side is 0 there),
// within tol * scale(i, j); zeros are not entries of diagonal storage.
::testing::AssertionResult same_values(const ref::Matrix& expected,
                                       const ref::Matrix& got, const ref::Matrix& scale,
                                       double tol) {
  if (expected.rows != got.rows || expected.cols != got.cols) {
    return ::testing::AssertionFailure()
           << "shape " << got.rows << "x" << got.cols << ", expected " << expected.rows
           << "x" << expected.cols;
  }
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, double>> at;
  for (auto [i, j, v] : ref::to_triplets(expected)) at[{i, j}].first = v;
  for (auto [i, j, v] : ref::to_triplets(got)) {
    if (v == 0)
      return ::testing::AssertionFailure() << "stored zero at " << i << "," << j;
    at[{i, j}].second = v;
  }
  std::map<std::pair<std::int64_t, std::int64_t>, double> sc;
  for (auto [i, j, v] : ref::to_triplets(scale)) sc[{i, j}] = v;
  for (const auto& [ij, ev] : at) {
    const double s = std::max(1e-30, sc.count(ij) ? sc[ij] : 0.0);
    if (!(std::fabs(ev.first - ev.second) <= tol * s)) {
      return ::testing::AssertionFailure()
             << "(" << ij.first << ", " << ij.second << "): " << ev.second
             << ", expected " << ev.first << " (scale " << s << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

TYPED_TEST(Diagonal, StorageLayoutOfThePapersExample) {
  using T = TypeParam;
  // The 4 x 4 band of the paper's Figure 2a (ku = 2, kl = 1), a(i, j) = 10 i + j + 1.
  std::vector<ref::Triplet> t;
  for (int i = 0; i < 4; ++i)
    for (int j = std::max(0, i - 1); j <= std::min(3, i + 2); ++j)
      t.emplace_back(i, j, 10 * i + j + 1);
  const auto Af =
      ref::to_csr<typename T::Csr::scalar_type, typename T::Csr::ordinal_type,
                  typename T::Csr::offset_type, Device>(ref::from_triplets(4, 4, t));
  const auto H = libra::to_diagonal(Exec(), Af);
  const auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), H.diag);
  const auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), H.start);
  const auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), H.values);
  ASSERT_EQ(hd.extent(0), 4u);
  const int diag[] = {0, 1, 2, -1};
  const int start[] = {0, 4, 7, 9, 12};
  for (int s = 0; s < 4; ++s) EXPECT_EQ(hd(s), diag[s]);
  for (int s = 0; s < 5; ++s) EXPECT_EQ(static_cast<int>(hs(s)), start[s]);
  // (a00 a11 a22 a33 | a01 a12 a23 | a02 a13 | a10 a21 a32)
  const double values[] = {1, 12, 23, 34, 2, 13, 24, 3, 14, 11, 22, 33};
  for (int k = 0; k < 12; ++k) EXPECT_EQ(hv(k), values[k]) << k;

  const auto C = libra::to_compact_diagonal(Exec(), Af);
  const auto cd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.diag);
  const auto cv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.values);
  ASSERT_EQ(cd.extent(0), 4u);  // 0, 1, 2 and 3 (= subdiagonal 1)
  for (int s = 0; s < 4; ++s) EXPECT_EQ(cd(s), s);
  // Compact diagonal 3 = (a03, a10, a21, a32); 1 = (a01, a12, a23, a30).
  const double k3[] = {0, 11, 22, 33}, k1[] = {2, 13, 24, 0};
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(cv(3, p), k3[p]);
    EXPECT_EQ(cv(1, p), k1[p]);
  }
}

TYPED_TEST(Diagonal, RoundTripsThroughCsr) {
  using T = TypeParam;
  struct Case {
    std::int64_t rows, cols;
    std::vector<std::int64_t> diags;
    double density;
  };
  const std::vector<Case> cases = {{1, 1, {0}, 1.0},
                                   {5, 5, band(1, 2), 1.0},
                                   {37, 37, band(4, 0), 1.0},
                                   {37, 37, band(0, 6), 0.5},
                                   {30, 45, {-29, -3, 0, 7, 44}, 0.7},
                                   {45, 30, {-44, -2, 5, 29}, 0.8},
                                   {20, 20, band(19, 19), 1.0},
                                   {12, 9, {}, 1.0},
                                   {0, 0, {}, 1.0}};
  std::uint64_t seed = 1;
  for (const auto& c : cases) {
    const auto ref_a = T::round(on_diagonals(c.rows, c.cols, c.diags, c.density, seed++));
    const auto A =
        ref::to_csr<typename T::Csr::scalar_type, typename T::Csr::ordinal_type,
                    typename T::Csr::offset_type, Device>(ref_a);
    const auto H = libra::to_diagonal(Exec(), A);
    EXPECT_LE(H.diag.extent(0), c.diags.size());
    EXPECT_TRUE(
        libra::test::same_matrix(ref_a, libra::test::to_ref(libra::to_csr(Exec(), H)), 0))
        << c.rows << "x" << c.cols << " (HM)";
    EXPECT_TRUE(libra::test::same_matrix(
        ref_a,
        libra::test::to_ref(
            libra::to_csr(Exec(), libra::to_diagonal(Exec(), libra::to_coo(Exec(), A)))),
        0));
    if (c.rows == c.cols) {
      const auto K = libra::to_compact_diagonal(Exec(), A);
      EXPECT_EQ(K.stored(), K.diag.extent(0) * static_cast<std::size_t>(c.rows));
      EXPECT_TRUE(libra::test::same_matrix(
          ref_a, libra::test::to_ref(libra::to_csr(Exec(), K)), 0))
          << c.rows << "x" << c.cols << " (CDM)";
      EXPECT_TRUE(libra::test::same_matrix(
          ref_a, libra::test::to_ref(libra::to_csr(Exec(), libra::to_coo(Exec(), K))),
          0));
    }
  }
}

TEST(DiagonalFiles, RoundTripThroughBothStorages) {
  libra::DiagonalOptions unlimited;
  unlimited.max_fill = 0;
  int files = 0;
  for (const auto& f : libra::test::matrix_files(libra::test::matrix_dir())) {
    const auto A = libra::io::read_matrix<double, int, int, Device>(f);
    if (static_cast<double>(A.num_rows) * A.num_cols > 4e6)
      continue;  // dense-sized storage
    const auto expected = libra::test::to_ref(A);
    SCOPED_TRACE(f);
    // Entries that are explicit zeros in the file are not kept by diagonal storage.
    auto nonzero = expected;
    {
      std::vector<ref::Triplet> t;
      for (auto [i, j, v] : ref::to_triplets(expected))
        if (v != 0) t.emplace_back(i, j, v);
      nonzero = ref::from_triplets(expected.rows, expected.cols, t);
    }
    EXPECT_TRUE(
        libra::test::same_matrix(nonzero,
                                 libra::test::to_ref(libra::to_csr(
                                     Exec(), libra::to_diagonal(Exec(), A, unlimited))),
                                 0));
    if (A.num_rows == A.num_cols) {
      EXPECT_TRUE(libra::test::same_matrix(
          nonzero,
          libra::test::to_ref(
              libra::to_csr(Exec(), libra::to_compact_diagonal(Exec(), A, unlimited))),
          0));
    }
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST(DiagonalErrors, RefusedBeforeAllocating) {
  using Csr = libra::Csr<double, int, int, Device>;
  const auto rect =
      libra::test::from_ref<double, int, int, Device>(on_diagonals(6, 5, {0, 1}, 1, 1));
  EXPECT_THROW(libra::to_compact_diagonal(Exec(), rect), libra::ShapeError);
  // Scattered entries: storage by diagonals would be far larger than the matrix.
  const auto scattered =
      libra::test::from_ref<double, int, int, Device>(ref::random(300, 300, 2, 7, 0.0));
  try {
    libra::to_diagonal(Exec(), scattered);
    FAIL() << "no error";
  } catch (const libra::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("max_fill"), std::string::npos) << e.what();
  }
  EXPECT_THROW(libra::to_compact_diagonal(Exec(), scattered), libra::ArgumentError);
  libra::DiagonalOptions loose;
  loose.max_fill = 1000;
  EXPECT_NO_THROW(libra::to_diagonal(Exec(), scattered, loose));
  // A product whose C exceeds the budget.
  const auto band_a = libra::test::from_ref<double, int, int, Device>(
      on_diagonals(50, 50, band(3, 3), 1, 2));
  const auto K = libra::to_compact_diagonal(Exec(), band_a);
  const auto H = libra::to_diagonal(Exec(), band_a);
  libra::DiagonalGemmOptions tight;
  tight.memory_budget = 13 * 50 * sizeof(double) - 1;  // C has 13 diagonals of 50
  EXPECT_THROW(libra::cdm_gemm(Exec(), K, K, tight), libra::ArgumentError);
  tight.memory_budget += 1;
  EXPECT_NO_THROW(libra::cdm_gemm(Exec(), K, K, tight));
  // Tiles wider than the diagonals a thread holds in registers.
  libra::DiagonalGemmOptions wide;
  wide.tuning.cdm_tiles = 1;
  wide.tuning.tile_diagonals = libra::impl::cdm_tile_diagonals_max + 1;
  EXPECT_THROW(libra::cdm_gemm(Exec(), K, K, wide), libra::ArgumentError);
  wide.tuning.tile_diagonals = libra::impl::cdm_tile_diagonals_max;
  EXPECT_NO_THROW(libra::cdm_gemm(Exec(), K, K, wide));
  // The columns kernel forced on diagonals whose slot table would not fit
  // scratch: {0, 3000, 6000} of n = 10,000 span 6,001 compact indices.
  const auto spread = libra::to_compact_diagonal(
      Exec(), libra::test::from_ref<double, int, int, Device>(
                  on_diagonals(10000, 10000, {0, 3000, 6000}, 1, 4)));
  libra::DiagonalGemmOptions columns;
  columns.tuning.cdm_columns = 1;
  try {
    libra::cdm_gemm(Exec(), spread, spread, columns);
    FAIL() << "no error";
  } catch (const libra::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("span 6001"), std::string::npos) << e.what();
  }
  libra::DiagonalGemmStats spread_stats;
  EXPECT_NO_THROW(libra::cdm_gemm(Exec(), spread, spread, {}, &spread_stats));
  EXPECT_NE(spread_stats.path, libra::DiagonalPath::cdm_columns);
  // HM stores diagonal d with 50 - |d| values: 650 - 2 * (1 + ... + 6) = 608.
  tight.memory_budget = 608 * sizeof(double) - 1;
  EXPECT_THROW(libra::hm_gemm(Exec(), H, H, tight), libra::ArgumentError);
  tight.memory_budget += 1;
  EXPECT_NO_THROW(libra::hm_gemm(Exec(), H, H, tight));
  // Shapes that do not agree.
  const auto K6 = libra::to_compact_diagonal(
      Exec(),
      libra::test::from_ref<double, int, int, Device>(on_diagonals(6, 6, {0}, 1, 3)));
  EXPECT_THROW(libra::cdm_gemm(Exec(), K, K6), libra::ShapeError);
  const auto Hr = libra::to_diagonal(Exec(), rect);
  EXPECT_THROW(libra::hm_gemm(Exec(), Hr, Hr), libra::ShapeError);
  EXPECT_NO_THROW(libra::hm_gemm(Exec(), 1.0, DiagonalOp::transpose, Hr, DiagonalOp::none,
                                 Hr, 0.0, decltype(Hr)()));
  (void)sizeof(Csr);
}

// One product C = alpha op(A) op(B) + beta C_in checked against the oracle.
template <class T, class Multiply>
void check_product(const ref::Matrix& a, DiagonalOp oa, const ref::Matrix& b,
                   DiagonalOp ob, double alpha, double beta, const ref::Matrix& c_in,
                   Multiply&& multiply, const std::string& what) {
  const auto ra = oa == DiagonalOp::transpose ? ref::transpose(a) : a;
  const auto rb = ob == DiagonalOp::transpose ? ref::transpose(b) : b;
  const auto expected = scaled_sum(alpha, ref::spgemm(ra, rb), beta, c_in);
  const auto scale = scaled_sum(std::fabs(alpha), ref::spgemm(absolute(ra), absolute(rb)),
                                std::fabs(beta), absolute(c_in));
  const ref::Matrix got = multiply();
  EXPECT_TRUE(same_values(expected, got, scale, T::tol())) << what;
}

// The columns kernel keeps slot tables of op(A)'s span in team scratch: at most
// 4,096 compact indices with 4-byte indices, half that with 8-byte ones. A span
// of 2,501 is refused with int64 indices and runs with int ones; a span of
// 2,001 runs with int64 ones; the products equal the oracle's.
TEST(DiagonalColumns, SpanLimitHalvesWithEightByteIndices) {
  using T4 = Types<double, int, int>;
  using T8 = Types<double, std::int64_t, std::int64_t>;
  libra::DiagonalGemmOptions columns;
  columns.tuning.cdm_columns = 1;
  // n just above twice the spans, so that the shortest cyclic range of {0, d}
  // is d + 1; B diagonal, so that C's span is A's (the kernel's work grows with
  // both spans: these products take seconds on one host thread).
  const std::int64_t n = 5100;
  const auto none = on_diagonals(n, n, {}, 1, 0);
  const auto b = on_diagonals(n, n, {0}, 1, 9);
  for (const std::int64_t d : {2500, 2000}) {
    const auto a = on_diagonals(n, n, {0, d}, 1, static_cast<std::uint64_t>(d));
    const std::string what = "diagonals {0, " + std::to_string(d) + "}";
    const auto K8 = libra::to_compact_diagonal(
        Exec(), libra::test::from_ref<double, std::int64_t, std::int64_t, Device>(a));
    const auto B8 = libra::to_compact_diagonal(
        Exec(), libra::test::from_ref<double, std::int64_t, std::int64_t, Device>(b));
    libra::DiagonalGemmStats st;
    if (d == 2000) {
      check_product<T8>(
          a, DiagonalOp::none, b, DiagonalOp::none, 1.0, 0.0, none,
          [&] {
            return libra::test::to_ref(
                libra::to_csr(Exec(), libra::cdm_gemm(Exec(), K8, B8, columns, &st)));
          },
          what + ", 8-byte indices");
      EXPECT_EQ(st.path, DiagonalPath::cdm_columns) << what;
      continue;
    }
    try {
      libra::cdm_gemm(Exec(), K8, B8, columns);
      ADD_FAILURE() << "no error with 8-byte indices, " << what;
    } catch (const libra::ArgumentError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("span 2501"), std::string::npos) << m;
      EXPECT_NE(m.find("at most 2048"), std::string::npos) << m;
    }
    // With 4-byte indices the same span is within the limit.
    const auto K4 = libra::to_compact_diagonal(
        Exec(), libra::test::from_ref<double, int, int, Device>(a));
    const auto B4 = libra::to_compact_diagonal(
        Exec(), libra::test::from_ref<double, int, int, Device>(b));
    check_product<T4>(
        a, DiagonalOp::none, b, DiagonalOp::none, 1.0, 0.0, none,
        [&] {
          return libra::test::to_ref(
              libra::to_csr(Exec(), libra::cdm_gemm(Exec(), K4, B4, columns, &st)));
        },
        what);
    EXPECT_EQ(st.path, DiagonalPath::cdm_columns) << what;
  }
}

template <class T>
struct CdmKernel {
  std::string name;
  libra::DiagonalGemmOptions options;
  DiagonalPath path;
  // The path for an A of at least cdm_columns_min_diagonals compact diagonals
  // (every such A of these tests is a band): Libra's choice on GPUs differs.
  DiagonalPath path_wide;
  DiagonalPath expected(const std::vector<std::int64_t>& a, std::int64_t n) const {
    std::set<std::int64_t> compact;
    for (const auto d : a) compact.insert(((d % n) + n) % n);
    // The shortest cyclic range holding them: n less the largest gap, plus 1.
    std::int64_t gap = 0, prev = compact.empty() ? 0 : *compact.rbegin() - n;
    for (const auto k : compact) {
      gap = std::max(gap, k - prev);
      prev = k;
    }
    const auto count = static_cast<std::int64_t>(compact.size());
    return count >= libra::impl::cdm_columns_min_diagonals && n - gap + 1 <= 2 * count
               ? path_wide
               : path;
  }
};

template <class T>
std::vector<CdmKernel<T>> cdm_kernels() {
  std::vector<CdmKernel<T>> k;
  libra::DiagonalGemmOptions o;
  const bool gpu = libra::LaunchTraits<Exec>::is_gpu;
  k.push_back({"default", o, gpu ? DiagonalPath::cdm_tiles : DiagonalPath::cdm_rows,
               gpu ? DiagonalPath::cdm_columns : DiagonalPath::cdm_rows});
  o.tuning.cdm_columns = 1;
  k.push_back({"columns", o, DiagonalPath::cdm_columns, DiagonalPath::cdm_columns});
  o.tuning.tile_positions = 5;
  o.tuning.host_team_threads = libra::test::max_team_threads();
  k.push_back({"columns of 5 positions, all threads", o, DiagonalPath::cdm_columns,
               DiagonalPath::cdm_columns});
  o = {};
  o.tuning.cdm_columns = -1;
  k.push_back({"columns never", o, gpu ? DiagonalPath::cdm_tiles : DiagonalPath::cdm_rows,
               gpu ? DiagonalPath::cdm_tiles : DiagonalPath::cdm_rows});
  o = {};
  o.tuning.cdm_tiles = -1;
  o.tuning.tile_positions = 7;
  k.push_back({"rows, chunks of 7", o, DiagonalPath::cdm_rows, DiagonalPath::cdm_rows});
  o = {};
  o.tuning.cdm_tiles = 1;
  k.push_back(
      {"tiles, default shape", o, DiagonalPath::cdm_tiles, DiagonalPath::cdm_tiles});
  o.tuning.tile_diagonals = 3;
  o.tuning.tile_positions = 5;
  o.tuning.tile_depth = 2;
  o.tuning.host_team_threads = 1;
  k.push_back({"tiles 3x5, depth 2, 1 thread", o, DiagonalPath::cdm_tiles,
               DiagonalPath::cdm_tiles});
  o.tuning.host_team_threads = libra::test::max_team_threads();
  k.push_back({"tiles 3x5, depth 2, all threads", o, DiagonalPath::cdm_tiles,
               DiagonalPath::cdm_tiles});
  // One step of A's diagonals (no partial sums kept in scratch), full registers.
  o = {};
  o.tuning.cdm_tiles = 1;
  o.tuning.tile_diagonals = libra::impl::cdm_tile_diagonals_max;
  o.tuning.tile_positions = 33;
  o.tuning.tile_depth = 1024;
  k.push_back(
      {"tiles 8x33, one step", o, DiagonalPath::cdm_tiles, DiagonalPath::cdm_tiles});
  return k;
}

TYPED_TEST(Diagonal, CompactDiagonalProductsMatchTheOracle) {
  using T = TypeParam;
  struct Case {
    std::int64_t n;
    std::vector<std::int64_t> a, b;
  };
  const std::vector<Case> cases = {
      {1, {0}, {0}},                               // n = 1
      {40, band(3, 1), band(1, 4)},                // rectangular bands (kl != ku)
      {40, band(0, 6), band(5, 0)},                // upper times lower
      {70, band(12, 12), band(9, 12)},             // C: 46 diagonals, wider than a tile
      {200, every(0, 192, 8), band(1, 1)},         // 25 diagonals, not band-like
      {20, band(19, 19), band(19, 19)},            // dense, as CDM
      {33, {}, band(2, 2)},                        // an empty diagonal set
      {50, {-30, -1, 0, 4, 45}, {-7, 0, 3, 20}}};  // structured sparse in CDM
  const std::vector<std::pair<DiagonalOp, DiagonalOp>> ops = {
      {DiagonalOp::none, DiagonalOp::none},
      {DiagonalOp::transpose, DiagonalOp::none},
      {DiagonalOp::none, DiagonalOp::transpose},
      {DiagonalOp::transpose, DiagonalOp::transpose}};
  std::uint64_t seed = 10;
  for (const auto& kernel : cdm_kernels<T>()) {
    for (const auto& c : cases) {
      const auto a = T::round(on_diagonals(c.n, c.n, c.a, 1.0, seed++));
      // n = 1 keeps its one entry (a dropped one would leave nothing to multiply).
      const auto b = T::round(on_diagonals(c.n, c.n, c.b, c.n == 1 ? 1.0 : 0.9, seed++));
      const auto c_in = T::round(on_diagonals(c.n, c.n, band(1, 2), 1.0, seed++));
      const auto A = libra::to_compact_diagonal(
          Exec(), ref::to_csr<typename T::Csr::scalar_type, int,
                              typename T::Csr::offset_type, Device>(a));
      const auto B = libra::to_compact_diagonal(
          Exec(), ref::to_csr<typename T::Csr::scalar_type, int,
                              typename T::Csr::offset_type, Device>(b));
      const auto C0 = libra::to_compact_diagonal(
          Exec(), ref::to_csr<typename T::Csr::scalar_type, int,
                              typename T::Csr::offset_type, Device>(c_in));
      for (const auto& op : ops) {
        const DiagonalOp oa = op.first, ob = op.second;
        for (const double beta : {0.0, -0.5}) {
          const std::string what = kernel.name + ", n = " + std::to_string(c.n) +
                                   ", ops " + std::to_string(static_cast<int>(oa)) +
                                   std::to_string(static_cast<int>(ob)) + ", beta " +
                                   std::to_string(beta);
          // C's diagonals worked out on the device (over its n compact
          // indices) and on the host (from the lists read back): the same list.
          std::vector<std::vector<int>> lists;
          for (const std::int64_t host_pairs :
               {std::int64_t(-1), std::int64_t(1) << 20}) {
            auto options = kernel.options;
            options.tuning.host_diagonal_pairs = host_pairs;
            libra::DiagonalGemmStats st;
            check_product<T>(
                a, oa, b, ob, 1.5, beta, c_in,
                [&] {
                  const auto C =
                      libra::cdm_gemm(Exec(), 1.5, oa, A, ob, B, beta, C0, options, &st);
                  const auto d =
                      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.diag);
                  lists.emplace_back(d.data(), d.data() + d.extent(0));
                  return libra::test::to_ref(libra::to_csr(Exec(), C));
                },
                what);
            const bool work = c.n > 0 && (!c.a.empty() || beta != 0);
            EXPECT_EQ(st.path, work ? kernel.expected(c.a, c.n) : DiagonalPath::none)
                << what;
            EXPECT_EQ(st.diagonals_on_host, host_pairs >= 0) << what;
          }
          ASSERT_EQ(lists.size(), 2u);
          EXPECT_EQ(lists[0], lists[1]) << what;
        }
      }
    }
  }
}

// C = alpha op(A) op(B) + beta C in place, into a C holding the product's
// diagonals and more (those of a C_in added by a first product), on every
// kernel: the extra diagonals are only scaled.
TYPED_TEST(Diagonal, CompactDiagonalProductsInPlace) {
  using T = TypeParam;
  using Cdm =
      decltype(libra::to_compact_diagonal(Exec(), std::declval<typename T::Csr>()));
  auto to_cdm = [](const ref::Matrix& m) {
    return libra::to_compact_diagonal(
        Exec(), ref::to_csr<typename T::Csr::scalar_type, int,
                            typename T::Csr::offset_type, Device>(m));
  };
  struct Case {
    std::int64_t n;
    std::vector<std::int64_t> a, b;
  };
  const std::vector<Case> cases = {{1, {0}, {0}},
                                   {40, band(3, 1), band(1, 4)},
                                   {70, band(12, 12), band(9, 12)},
                                   {33, {}, band(2, 2)},
                                   {50, {-30, -1, 0, 4, 45}, {-7, 0, 3, 20}}};
  std::uint64_t seed = 300;
  for (const auto& kernel : cdm_kernels<T>()) {
    for (const auto& c : cases) {
      const auto a = T::round(on_diagonals(c.n, c.n, c.a, 1.0, seed++));
      const auto b = T::round(on_diagonals(c.n, c.n, c.b, 1.0, seed++));
      const auto extra = T::round(on_diagonals(c.n, c.n, band(1, 2), 1.0, seed++));
      const Cdm A = to_cdm(a), B = to_cdm(b), E = to_cdm(extra);
      for (const auto oa : {DiagonalOp::none, DiagonalOp::transpose}) {
        for (const auto ob : {DiagonalOp::none, DiagonalOp::transpose}) {
          for (const double beta : {0.0, -0.5}) {
            const std::string what = kernel.name + ", n = " + std::to_string(c.n) +
                                     ", ops " + std::to_string(static_cast<int>(oa)) +
                                     std::to_string(static_cast<int>(ob)) + ", beta " +
                                     std::to_string(beta);
            // C: the product's diagonals and E's, with values of its own.
            const Cdm C = libra::cdm_gemm(Exec(), 0.5, oa, A, ob, B, 1.0, E);
            const ref::Matrix before = libra::test::to_ref(libra::to_csr(Exec(), C));
            libra::DiagonalGemmStats st;
            check_product<T>(
                a, oa, b, ob, 1.5, beta, before,
                [&] {
                  libra::cdm_gemm_into(Exec(), 1.5, oa, A, ob, B, beta, C, kernel.options,
                                       &st);
                  return libra::test::to_ref(libra::to_csr(Exec(), C));
                },
                what);
            EXPECT_EQ(st.path, kernel.expected(c.a, c.n)) << what;
            EXPECT_EQ(st.diagonals_c, C.diag.extent(0)) << what;
          }
        }
      }
    }
  }
  // C lacking a diagonal of the product, C aliasing an operand, sizes that differ.
  const auto a = on_diagonals(30, 30, band(2, 2), 1.0, 7);
  const Cdm A = to_cdm(a), A2 = to_cdm(a), A6 = to_cdm(on_diagonals(6, 6, {0}, 1.0, 3));
  try {
    libra::cdm_gemm_into(Exec(), 1.0, DiagonalOp::none, A, DiagonalOp::none, A, 0.0, A2);
    FAIL() << "no error";
  } catch (const libra::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("6 pairs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(libra::cdm_gemm_into(Exec(), 1.0, DiagonalOp::none, A, DiagonalOp::none,
                                    A2, 0.0, A),
               libra::ArgumentError);
  EXPECT_THROW(libra::cdm_gemm_into(Exec(), 1.0, DiagonalOp::none, A, DiagonalOp::none, A,
                                    0.0, A6),
               libra::ShapeError);
}

// Which of the paper's thirteen cases a pair of diagonals (of A, of B) is:
// 0-2 land on C's main diagonal, 3-7 above it, 8-12 below.
int paper_case(std::int64_t a, std::int64_t b) {
  if (a + b == 0) return a == 0 ? 0 : (a > 0 ? 1 : 2);
  if (a + b > 0) {
    if (a > 0 && b > 0) return 3;
    if (a == 0) return 4;
    if (b == 0) return 5;
    return a > 0 ? 6 : 7;  // a > -b > 0, or b > -a > 0
  }
  if (a < 0 && b < 0) return 8;
  if (a == 0) return 9;
  if (b == 0) return 10;
  return a < 0 ? 11 : 12;
}

TYPED_TEST(Diagonal, StructuredProductsCoverTheThirteenCases) {
  using T = TypeParam;
  const std::vector<std::int64_t> da = {-6, -2, 0, 3, 5}, db = {-5, -3, 0, 2, 6};
  std::set<int> seen;
  for (auto x : da)
    for (auto y : db) seen.insert(paper_case(x, y));
  ASSERT_EQ(seen.size(), 13u) << "the diagonal sets must pair every sign combination";
  struct Shape {
    std::int64_t m, k, n;
  };
  std::uint64_t seed = 50;
  for (const Shape sh :
       {Shape{30, 30, 30}, Shape{25, 30, 20}, Shape{1, 1, 1}, Shape{8, 40, 9}}) {
    for (const auto oa : {DiagonalOp::none, DiagonalOp::transpose}) {
      for (const auto ob : {DiagonalOp::none, DiagonalOp::transpose}) {
        // Stored so that op(A) is m x k and op(B) k x n.
        const bool ta = oa == DiagonalOp::transpose, tb = ob == DiagonalOp::transpose;
        auto clip = [](const std::vector<std::int64_t>& d, std::int64_t r,
                       std::int64_t c) {
          std::vector<std::int64_t> out;
          for (auto x : d)
            if (x > -r && x < c) out.push_back(x);
          return out;
        };
        const std::int64_t ar = ta ? sh.k : sh.m, ac = ta ? sh.m : sh.k;
        const std::int64_t br = tb ? sh.n : sh.k, bc = tb ? sh.k : sh.n;
        const double density = sh.m == 1 ? 1.0 : 0.7;
        const auto a = T::round(on_diagonals(ar, ac, clip(da, ar, ac), density, seed++));
        const auto b = T::round(on_diagonals(br, bc, clip(db, br, bc), density, seed++));
        const auto c_in =
            T::round(on_diagonals(sh.m, sh.n, clip({-1, 0, 4}, sh.m, sh.n), 1.0, seed++));
        using S = typename T::Csr::scalar_type;
        using Off = typename T::Csr::offset_type;
        const auto A = libra::to_diagonal(Exec(), ref::to_csr<S, int, Off, Device>(a));
        const auto B = libra::to_diagonal(Exec(), ref::to_csr<S, int, Off, Device>(b));
        const auto C0 =
            libra::to_diagonal(Exec(), ref::to_csr<S, int, Off, Device>(c_in));
        for (const int pairs : {-1, 1}) {
          libra::DiagonalGemmOptions go;
          go.tuning.hm_pairs = pairs;
          for (const double beta : {0.0, 2.0}) {
            libra::DiagonalGemmStats st;
            const std::string what = std::to_string(sh.m) + "x" + std::to_string(sh.k) +
                                     "x" + std::to_string(sh.n) + " ops " +
                                     std::to_string(ta) + std::to_string(tb) + " beta " +
                                     std::to_string(beta);
            check_product<T>(
                a, oa, b, ob, -0.75, beta, c_in,
                [&] {
                  return libra::test::to_ref(libra::to_csr(
                      Exec(),
                      libra::hm_gemm(Exec(), -0.75, oa, A, ob, B, beta, C0, go, &st)));
                },
                what);
            EXPECT_EQ(st.path,
                      pairs > 0 ? DiagonalPath::hm_pairs : DiagonalPath::hm_entries)
                << what;
          }
        }
      }
    }
  }
}

// Bytes allocated through Kokkos while a transposed product runs.
std::vector<std::pair<std::string, std::uint64_t>>* allocations = nullptr;
void record(const Kokkos::Profiling::SpaceHandle, const char* label, const void*,
            const std::uint64_t size) {
  if (allocations) allocations->emplace_back(label, size);
}

TEST(DiagonalTranspose, ReadsTheTransposeInPlace) {
  const std::int64_t n = 3000;
  const auto a = on_diagonals(n, n, band(20, 3), 1.0, 77);
  const auto c_in = on_diagonals(n, n, band(1, 1), 1.0, 78);
  const auto A = libra::to_compact_diagonal(
      Exec(), libra::test::from_ref<double, int, int, Device>(a));
  const auto C0 = libra::to_compact_diagonal(
      Exec(), libra::test::from_ref<double, int, int, Device>(c_in));
  const auto H =
      libra::to_diagonal(Exec(), libra::test::from_ref<double, int, int, Device>(a));
  const auto H0 =
      libra::to_diagonal(Exec(), libra::test::from_ref<double, int, int, Device>(c_in));
  const std::uint64_t a_bytes = A.stored() * sizeof(double);
  std::vector<std::pair<std::string, std::uint64_t>> seen;
  allocations = &seen;
  Kokkos::Tools::Experimental::set_allocate_data_callback(record);
  // The symmetric rank-k update C = A * A^T + C_in, and A^T * A.
  const auto syrk = libra::cdm_gemm(Exec(), 1.0, DiagonalOp::none, A,
                                    DiagonalOp::transpose, A, 1.0, C0);
  const auto tn =
      libra::hm_gemm(Exec(), 1.0, DiagonalOp::transpose, H, DiagonalOp::none, H, 1.0, H0);
  Kokkos::fence();
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  allocations = nullptr;
  ASSERT_FALSE(seen.empty()) << "the allocation callback saw nothing";
  for (const auto& [label, size] : seen) {
    if (label == "libra::diag::cdm::C" || label == "libra::diag::hm::C") continue;
    EXPECT_LT(size, a_bytes / 4)
        << label << ": " << size << " bytes (A: " << a_bytes << ")";
  }
  const auto expected_syrk = scaled_sum(1, ref::spgemm(a, ref::transpose(a)), 1, c_in);
  const auto scale = scaled_sum(1, ref::spgemm(absolute(a), absolute(ref::transpose(a))),
                                1, absolute(c_in));
  EXPECT_TRUE(same_values(expected_syrk, libra::test::to_ref(libra::to_csr(Exec(), syrk)),
                          scale, 1e-13));
  const auto expected_tn = scaled_sum(1, ref::spgemm(ref::transpose(a), a), 1, c_in);
  const auto scale_tn = scaled_sum(
      1, ref::spgemm(absolute(ref::transpose(a)), absolute(a)), 1, absolute(c_in));
  EXPECT_TRUE(same_values(expected_tn, libra::test::to_ref(libra::to_csr(Exec(), tn)),
                          scale_tn, 1e-13));
}

TYPED_TEST(Diagonal, SpmvFromDiagonalStorage) {
  using T = TypeParam;
  using S = typename T::Csr::scalar_type;
  using Off = typename T::Csr::offset_type;
  const std::int64_t n = 301;
  for (const auto& diags :
       {band(3, 5), std::vector<std::int64_t>{-300, -40, 0, 17, 299}}) {
    const auto a = T::round(on_diagonals(n, n, diags, 0.9, 5));
    const auto A = ref::to_csr<S, int, Off, Device>(a);
    const auto H = libra::to_diagonal(Exec(), A);
    const auto K = libra::to_compact_diagonal(Exec(), A);
    std::vector<double> x(n), y0(n);
    for (std::int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<S>(std::sin(0.3 * i));
      y0[i] = static_cast<S>(std::cos(0.7 * i));
    }
    const auto ax = ref::spmv(a, x);
    const auto ax_abs = ref::spmv(absolute(a), std::vector<double>(n, 1.0));
    for (const auto [alpha, beta] :
         {std::pair{2.0, 0.0}, std::pair{-1.0, 0.5}, std::pair{0.0, 3.0}}) {
      Kokkos::View<S*, Device> xv("x", n), yh("yh", n), yk("yk", n);
      auto hx = Kokkos::create_mirror_view(xv);
      auto hy = Kokkos::create_mirror_view(yh);
      for (std::int64_t i = 0; i < n; ++i) {
        hx(i) = static_cast<S>(x[i]);
        hy(i) = static_cast<S>(y0[i]);
      }
      Kokkos::deep_copy(xv, hx);
      Kokkos::deep_copy(yh, hy);
      Kokkos::deep_copy(yk, hy);
      libra::SpmvStats sh, sk;
      libra::spmv(Exec(), alpha, H, xv, beta, yh, {}, &sh);
      libra::spmv(Exec(), alpha, K, xv, beta, yk, {}, &sk);
      EXPECT_EQ(sh.path, alpha == 0 ? libra::SpmvPath::scale_only
                                    : libra::SpmvPath::diagonal_rows);
      EXPECT_EQ(sk.path, alpha == 0 ? libra::SpmvPath::scale_only
                                    : libra::SpmvPath::compact_diagonal_rows);
      const auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yh);
      const auto gk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yk);
      for (std::int64_t i = 0; i < n; ++i) {
        const double want = alpha * ax[i] + beta * y0[i];
        const double scale =
            std::fabs(alpha) * ax_abs[i] + std::fabs(beta * y0[i]) + 1e-30;
        EXPECT_NEAR(gh(i), want, 4 * T::tol() * scale) << i;
        EXPECT_NEAR(gk(i), want, 4 * T::tol() * scale) << i;
      }
    }
  }
}

// libra::spgemm with SpgemmAlgorithm::cdm / hm: C's pattern equals the oracle's
// (entries whose products cancel included), values within rounding.
TYPED_TEST(Diagonal, SpgemmThroughDiagonalStorage) {
  using T = TypeParam;
  using S = typename T::Csr::scalar_type;
  using Off = typename T::Csr::offset_type;
  struct Case {
    std::int64_t m, k, n;
    std::vector<std::int64_t> a, b;
    double density;
  };
  const std::vector<Case> cases = {{60, 60, 60, band(2, 3), band(4, 1), 1.0},
                                   {60, 60, 60, {-50, -3, 0, 8}, {-9, 0, 2, 40}, 0.6},
                                   {1, 1, 1, {0}, {0}, 1.0},
                                   {40, 25, 30, {-39, -1, 0, 7}, {-3, 0, 12}, 0.8}};
  std::uint64_t seed = 90;
  for (const auto& c : cases) {
    auto a = T::round(on_diagonals(c.m, c.k, c.a, c.density, seed++));
    auto b = T::round(on_diagonals(c.k, c.n, c.b, c.density, seed++));
    if (c.m == 60 && c.density == 1.0) {
      // C(0, 0) = A(0, 0:3) . B(0:3, 0) = 1 - 1 + 1 - 1 cancels exactly, and stays
      // an entry of C.
      std::vector<ref::Triplet> ta = ref::to_triplets(a), tb = ref::to_triplets(b);
      for (auto& [i, j, v] : ta)
        if (i == 0) v = 1;
      for (auto& [i, j, v] : tb)
        if (j == 0) v = i % 2 == 0 ? 1 : -1;
      a = ref::from_triplets(c.m, c.k, ta);
      b = ref::from_triplets(c.k, c.n, tb);
    }
    const auto A = ref::to_csr<S, int, Off, Device>(a);
    const auto B = ref::to_csr<S, int, Off, Device>(b);
    std::vector<double> scale, terms;
    const auto expected = ref::spgemm(a, b, &scale, &terms);
    if (c.m == 60 && c.density == 1.0) {
      ASSERT_EQ(expected.col[0], 0);
      ASSERT_EQ(expected.val[0], 0.0);
    }
    for (const auto algo : {libra::SpgemmAlgorithm::cdm, libra::SpgemmAlgorithm::hm}) {
      if (algo == libra::SpgemmAlgorithm::cdm && (c.m != c.k || c.k != c.n)) {
        libra::SpgemmOptions o;
        o.algorithm = algo;
        EXPECT_THROW(libra::spgemm(Exec(), A, B, o), libra::ShapeError);
        continue;
      }
      libra::SpgemmOptions o;
      o.algorithm = algo;
      libra::SpgemmStats st;
      const auto C = libra::spgemm(Exec(), A, B, o, &st);
      std::vector<double> tol_scale(scale.size());
      for (std::size_t i = 0; i < scale.size(); ++i) tol_scale[i] = scale[i] * terms[i];
      EXPECT_TRUE(libra::test::same_matrix(expected, libra::test::to_ref(C), T::tol(),
                                           &tol_scale))
          << libra::to_string(algo) << " " << c.m << "x" << c.k << "x" << c.n;
      EXPECT_EQ(st.algorithm, algo);
      EXPECT_EQ(st.diagonal_path,
                algo == libra::SpgemmAlgorithm::hm
                    ? (libra::LaunchTraits<Exec>::is_gpu ? DiagonalPath::hm_entries
                                                         : DiagonalPath::hm_pairs)
                    : (libra::LaunchTraits<Exec>::is_gpu ? DiagonalPath::cdm_tiles
                                                         : DiagonalPath::cdm_rows));
      EXPECT_EQ(st.products, ref::spgemm_products(a, b));
      // The handle: pattern once, values again after they change.
      libra::SpgemmHandle<S, int, Off, Device> h(o);
      typename T::Csr C2;
      libra::spgemm_symbolic(Exec(), h, A, B, C2);
      auto a2 = a;
      for (auto& v : a2.val) v = static_cast<double>(static_cast<S>(-2 * v));
      const auto A2 = ref::to_csr<S, int, Off, Device>(a2);
      libra::spgemm_numeric(Exec(), h, A2, B, C2);
      std::vector<double> scale2, terms2;
      const auto expected2 = ref::spgemm(a2, b, &scale2, &terms2);
      for (std::size_t i = 0; i < scale2.size(); ++i) scale2[i] *= terms2[i];
      EXPECT_TRUE(libra::test::same_matrix(expected2, libra::test::to_ref(C2), T::tol(),
                                           &scale2));
    }
  }
  // A matrix whose entries are scattered is refused, not stored nearly dense.
  const auto R =
      ref::to_csr<S, int, Off, Device>(T::round(ref::random(200, 200, 3, 5, 0.0)));
  libra::SpgemmOptions o;
  o.algorithm = libra::SpgemmAlgorithm::hm;
  EXPECT_THROW(libra::spgemm(Exec(), R, R, o), libra::ArgumentError);
  o.diagonal_max_fill = 0;
  EXPECT_NO_THROW(libra::spgemm(Exec(), R, R, o));
}

// `automatic` takes cdm on GPUs for two large full bands wide enough (the
// README's rule, impl/choose_algorithm.hpp), panel otherwise and on hosts.
TEST(DiagonalAuto, LargeWideFullBandsOnGpusGoThroughCdm) {
  struct Case {
    std::int64_t n;
    std::int64_t half;
    bool drop_one;
    bool cdm_on_gpu;
    bool multiply;  // small enough to check against the oracle here
  };
  for (const Case c : {Case{300, 30, false, false, true},       // too few rows
                       Case{300, 10, false, false, true},       // too few diagonals
                       Case{6000, 75, false, true, false},      // 1.4e8 products
                       Case{6000, 75, true, false, false},      // not a full band
                       Case{6000, 15, false, false, false},     // 961 pairs
                       Case{4096, 40, false, false, false}}) {  // 2.7e7 products
    auto a = on_diagonals(c.n, c.n, band(c.half, c.half), 1.0, 7);
    if (c.drop_one) {
      auto t = ref::to_triplets(a);
      t.erase(t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2));
      a = ref::from_triplets(c.n, c.n, t);
    }
    const auto A = libra::test::from_ref<double, int, int, Device>(a);
    const bool cdm = c.cdm_on_gpu && libra::LaunchTraits<Exec>::is_gpu;
    const auto expect = cdm ? libra::SpgemmAlgorithm::cdm : libra::SpgemmAlgorithm::panel;
    EXPECT_EQ(libra::impl::choose_spgemm_algorithm(Exec(), libra::SpgemmOptions{}, A, A),
              expect)
        << c.n << " rows, half-bandwidth " << c.half << ", one dropped: " << c.drop_one;
    if (!c.multiply) continue;
    libra::SpgemmStats st;
    const auto C = libra::spgemm(Exec(), A, A, {}, &st);
    EXPECT_EQ(st.algorithm, expect);
    std::vector<double> scale, terms;
    const auto expected = ref::spgemm(a, a, &scale, &terms);
    EXPECT_TRUE(
        libra::test::same_matrix(expected, libra::test::to_ref(C), 1e-13, &scale));
  }
}

}  // namespace diagonal_test
