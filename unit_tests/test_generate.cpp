// The matrix generators on the test's execution space, against a host
// re-implementation of their counter-based formulas, plus structural and
// statistical properties that do not depend on those formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "libra/generate/generate.hpp"
#include "support/compare.hpp"
#include "support/test_space.hpp"

namespace generate_test {

using libra::test::Device;
using libra::test::Exec;
using libra::test::to_ref;

// ---- the counter-based formulas, written again with plain host code ------------

namespace host {

__extension__ typedef unsigned __int128 u128;

constexpr std::uint64_t gamma = 0x9e3779b97f4a7c15ULL;
constexpr std::uint64_t rmat_stream = 0x524d4154;
constexpr std::uint64_t uniform_stream = 0x554e4946;
constexpr std::uint64_t value_stream = 0x44494147;
constexpr std::uint64_t keep_stream = 0x44494148;

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t draw(std::uint64_t key, std::uint64_t n) {
  return mix(key + (n + 1) * gamma);
}
std::uint64_t stream_key(std::uint64_t seed, std::uint64_t stream) {
  return mix(seed ^ mix(stream * gamma + 0x632be59bd9b4e019ULL));
}
std::uint64_t below(std::uint64_t h, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<u128>(h) * n) >> 64);
}

// Values as the generators store them in S, widened to double.
template <class S>
double uniform_signed(std::uint64_t h) {
  const int bits = std::numeric_limits<S>::digits;
  const std::int64_t k =
      static_cast<std::int64_t>(h >> (63 - bits)) - (std::int64_t(1) << bits);
  return static_cast<double>(static_cast<S>(std::ldexp(static_cast<double>(k), -bits)));
}
template <class S>
double signed_magnitude(std::uint64_t h) {
  const int bits = std::numeric_limits<S>::digits - 1;
  const double m = 0.5 + std::ldexp(static_cast<double>(h >> (64 - bits)), -bits);
  return static_cast<double>(static_cast<S>((h & 1) ? -m : m));
}

std::uint64_t threshold32(double p) {
  return static_cast<std::uint64_t>(std::llround(std::ldexp(p, 32)));
}

std::uint64_t relabel(std::uint64_t v, int scale, std::uint64_t seed) {
  const std::uint64_t key = stream_key(seed, rmat_stream + 1);
  const std::uint64_t mask = (std::uint64_t(1) << scale) - 1;
  const int shift = (scale + 1) / 2;
  for (std::uint64_t round = 0; round < 3; ++round) {
    v = (v * (draw(key, 2 * round) | 1) + draw(key, 2 * round + 1)) & mask;
    if (shift > 0) v ^= v >> shift;
  }
  return v;
}

template <class S>
libra::ref::Matrix rmat(const libra::RmatOptions& o) {
  const std::int64_t n = std::int64_t(1) << o.scale;
  const auto edges = static_cast<std::uint64_t>(std::llround(o.edge_factor * n));
  const double ab = o.a + o.b, cd = 1 - ab;
  const std::uint64_t t_row = threshold32(ab);
  const std::uint64_t t_top = ab > 0 ? threshold32(o.a / ab) : 0;
  const std::uint64_t t_bottom = cd > 0 ? threshold32(o.c / cd) : 0;
  const std::uint64_t key = stream_key(o.seed, rmat_stream);
  std::vector<libra::ref::Triplet> t;
  for (std::uint64_t e = 0; e < edges; ++e) {
    const std::uint64_t seq = draw(key, e);
    std::uint64_t row = 0, col = 0;
    for (int level = 0; level < o.scale; ++level) {
      const std::uint64_t h = draw(seq, level);
      const bool row_bit = (h >> 32) >= t_row;
      const bool col_bit = (h & 0xffffffffULL) >= (row_bit ? t_bottom : t_top);
      row = 2 * row + row_bit;
      col = 2 * col + col_bit;
    }
    if (o.scramble) {
      row = relabel(row, o.scale, o.seed);
      col = relabel(col, o.scale, o.seed);
    }
    const double v =
        o.values == libra::RmatValues::uniform ? uniform_signed<S>(draw(seq, 63)) : 1.0;
    const auto r = static_cast<std::int64_t>(row), c = static_cast<std::int64_t>(col);
    if (r == c && o.drop_self_loops) continue;
    t.emplace_back(r, c, v);
    if (o.symmetric && r != c) t.emplace_back(c, r, v);
  }
  return libra::ref::from_triplets(n, n, std::move(t));
}

template <class S>
libra::ref::Matrix uniform(std::int64_t rows, std::int64_t cols, double per_row,
                           std::uint64_t seed) {
  const std::uint64_t entries =
      cols == 0 ? 0 : static_cast<std::uint64_t>(std::llround(rows * per_row));
  const std::uint64_t key = stream_key(seed, uniform_stream);
  std::vector<libra::ref::Triplet> t;
  for (std::uint64_t e = 0; e < entries; ++e) {
    const std::uint64_t seq = draw(key, e);
    t.emplace_back(below(draw(seq, 0), rows), below(draw(seq, 1), cols),
                   uniform_signed<S>(draw(seq, 2)));
  }
  return libra::ref::from_triplets(rows, cols, std::move(t));
}

// Entries (i, j) with j - i in `offsets`, kept with probability `density`.
template <class S>
libra::ref::Matrix on_diagonals(std::int64_t rows, std::int64_t cols,
                                const std::set<long long>& offsets, std::uint64_t seed,
                                double density) {
  const std::uint64_t vkey = stream_key(seed, value_stream);
  const std::uint64_t kkey = stream_key(seed, keep_stream);
  const auto keep_below = static_cast<std::uint64_t>(std::ldexp(density, 53));
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      if (!offsets.count(j - i)) continue;
      if (density < 1 && (draw(draw(kkey, i), j) >> 11) >= keep_below) continue;
      t.emplace_back(i, j, signed_magnitude<S>(draw(draw(vkey, i), j)));
    }
  }
  return libra::ref::from_triplets(rows, cols, std::move(t));
}

std::set<long long> band(long long kl, long long ku) {
  std::set<long long> s;
  for (long long d = -kl; d <= ku; ++d) s.insert(d);
  return s;
}

}  // namespace host

// ---- helpers -------------------------------------------------------------------

template <class S, class O, class Off>
struct Types {
  using Scalar = S;
  using Ordinal = O;
  using Offset = Off;
  // Libra sums duplicates in S, the oracle in double.
  static double tol() { return std::is_same<S, double>::value ? 0.0 : 1e-4; }
};

template <class T>
class Generate : public ::testing::Test {};
using TypeList = ::testing::Types<Types<double, int, int>, Types<float, int, std::size_t>,
                                  Types<double, std::int64_t, std::int64_t>>;
TYPED_TEST_SUITE(Generate, TypeList);

std::vector<std::int64_t> row_lengths(const libra::ref::Matrix& m) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(m.rows));
  for (std::int64_t i = 0; i < m.rows; ++i) len[i] = m.ptr[i + 1] - m.ptr[i];
  return len;
}

double value_sum(const libra::ref::Matrix& m) {
  double s = 0;
  for (double v : m.val) s += v;
  return s;
}

std::int64_t diagonal_entries(const libra::ref::Matrix& m) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < m.rows; ++i) {
    for (std::int64_t p = m.ptr[i]; p < m.ptr[i + 1]; ++p) n += m.col[p] == i;
  }
  return n;
}

libra::RmatOptions rmat_options(int scale, double edge_factor, std::uint64_t seed) {
  libra::RmatOptions o;
  o.scale = scale;
  o.edge_factor = edge_factor;
  o.seed = seed;
  return o;
}

// ---- R-MAT ---------------------------------------------------------------------

std::vector<libra::RmatOptions> rmat_cases() {
  std::vector<libra::RmatOptions> cases;
  cases.push_back(rmat_options(10, 16, 1));
  cases.push_back(rmat_options(0, 5, 2));  // 1 x 1: every edge is (0, 0)
  cases.push_back(rmat_options(7, 0, 3));  // no edges
  auto o = rmat_options(9, 8, 4);
  o.values = libra::RmatValues::uniform;
  o.symmetric = true;
  cases.push_back(o);
  o = rmat_options(8, 12, 5);
  o.a = 0.45, o.b = 0.25, o.c = 0.1;
  o.drop_self_loops = true;
  o.scramble = true;
  cases.push_back(o);
  o = rmat_options(6, 3.3, 6);  // a fractional edge factor: round(3.3 * 64) edges
  o.symmetric = o.drop_self_loops = o.scramble = true;
  o.values = libra::RmatValues::uniform;
  cases.push_back(o);
  o = rmat_options(5, 4, 7);
  o.a = 0, o.b = 0, o.c = 1;  // every edge in the bottom-left quadrant at each level
  cases.push_back(o);
  return cases;
}

TYPED_TEST(Generate, RmatMatchesHostFormula) {
  using T = TypeParam;
  for (const auto& o : rmat_cases()) {
    SCOPED_TRACE(::testing::Message() << "scale " << o.scale << " seed " << o.seed);
    const auto A =
        libra::rmat<typename T::Scalar, typename T::Ordinal, typename T::Offset>(Exec(),
                                                                                 o);
    EXPECT_TRUE(
        libra::test::same_matrix(host::rmat<typename T::Scalar>(o), to_ref(A), T::tol()));
  }
}

TYPED_TEST(Generate, RmatSameOnHostSpace) {
  using T = TypeParam;
  using S = typename T::Scalar;
  using O = typename T::Ordinal;
  using Off = typename T::Offset;
  for (const auto& o : rmat_cases()) {
    const auto A = libra::rmat<S, O, Off>(Exec(), o);
    const auto B = libra::rmat<S, O, Off>(Kokkos::DefaultHostExecutionSpace(), o);
    EXPECT_TRUE(libra::test::same_matrix(to_ref(B), to_ref(A), 0));  // bit-identical
  }
}

TYPED_TEST(Generate, RmatCountsEveryEdge) {
  using T = TypeParam;
  using S = typename T::Scalar;
  using O = typename T::Ordinal;
  using Off = typename T::Offset;
  auto o = rmat_options(11, 16, 8);
  const auto plain = to_ref(libra::rmat<S, O, Off>(Exec(), o));
  EXPECT_EQ(plain.rows, 2048);
  EXPECT_EQ(plain.cols, 2048);
  EXPECT_EQ(value_sum(plain), 16.0 * 2048);  // ones: the values count the edges
  EXPECT_LT(plain.nnz(), 16 * 2048);         // duplicates were summed

  o.symmetric = true;
  const auto sym = to_ref(libra::rmat<S, O, Off>(Exec(), o));
  EXPECT_TRUE(libra::test::same_matrix(libra::ref::transpose(sym), sym, 0));
  double self_loops = 0;
  for (std::int64_t i = 0; i < plain.rows; ++i) {
    for (std::int64_t p = plain.ptr[i]; p < plain.ptr[i + 1]; ++p) {
      if (plain.col[p] == i) self_loops += plain.val[p];
    }
  }
  EXPECT_GT(self_loops, 0);
  EXPECT_EQ(value_sum(sym), 2 * 16.0 * 2048 - self_loops);

  o.drop_self_loops = true;
  const auto loopless = to_ref(libra::rmat<S, O, Off>(Exec(), o));
  EXPECT_EQ(diagonal_entries(loopless), 0);
  EXPECT_EQ(loopless.nnz(), sym.nnz() - diagonal_entries(sym));

  // Scrambling relabels vertices: same row lengths up to order, same edges.
  o = rmat_options(11, 16, 8);
  o.scramble = true;
  const auto scrambled = to_ref(libra::rmat<S, O, Off>(Exec(), o));
  auto a = row_lengths(plain), b = row_lengths(scrambled);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  EXPECT_EQ(value_sum(scrambled), 16.0 * 2048);
}

// With scale 1 each edge is one quadrant draw, so the four entries count them.
TYPED_TEST(Generate, RmatQuadrantFrequencies) {
  using T = TypeParam;
  for (const auto& p :
       std::vector<std::vector<double>>{{0.57, 0.19, 0.19}, {0.1, 0.2, 0.3}}) {
    auto o = rmat_options(1, 32768, 9);
    o.a = p[0], o.b = p[1], o.c = p[2];
    const auto m =
        to_ref(libra::rmat<typename T::Scalar, typename T::Ordinal, typename T::Offset>(
            Exec(), o));
    const double edges = 65536;
    const double expected[2][2] = {{p[0], p[1]}, {p[2], 1 - p[0] - p[1] - p[2]}};
    ASSERT_EQ(m.nnz(), 4);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const double q = expected[i][j];
        const double count = m.val[2 * i + j];
        EXPECT_NEAR(count, edges * q, 5 * std::sqrt(edges * q * (1 - q)))
            << "quadrant (" << i << ", " << j << ")";
      }
    }
  }
}

TYPED_TEST(Generate, RmatDegreesAreSkewed) {
  using T = TypeParam;
  using S = typename T::Scalar;
  using O = typename T::Ordinal;
  using Off = typename T::Offset;
  const auto skewed =
      row_lengths(to_ref(libra::rmat<S, O, Off>(Exec(), rmat_options(14, 16, 10))));
  const auto flat = row_lengths(
      to_ref(libra::uniform_random<S, O, Off>(Exec(), 1 << 14, 1 << 14, 16, 10)));
  const auto stats = [](const std::vector<std::int64_t>& len) {
    double sum = 0;
    for (auto l : len) sum += static_cast<double>(l);
    const double mean = sum / static_cast<double>(len.size());
    return static_cast<double>(*std::max_element(len.begin(), len.end())) / mean;
  };
  EXPECT_GT(stats(skewed), 20.0);  // power law: a few rows hold a large share
  EXPECT_LT(stats(flat), 3.0);     // binomial: every row near the mean
}

// ---- uniform -------------------------------------------------------------------

TYPED_TEST(Generate, UniformMatchesHostFormula) {
  using T = TypeParam;
  using S = typename T::Scalar;
  struct Case {
    std::int64_t rows, cols;
    double per_row;
  };
  for (const Case& c : std::vector<Case>{{500, 300, 7.5},
                                         {1, 1000, 50},
                                         {300, 1, 3},
                                         {0, 5, 3},
                                         {5, 0, 3},
                                         {40, 40, 0}}) {
    SCOPED_TRACE(::testing::Message() << c.rows << " x " << c.cols);
    const auto A = libra::uniform_random<S, typename T::Ordinal, typename T::Offset>(
        Exec(), c.rows, c.cols, c.per_row, 11);
    const auto ref = host::uniform<S>(c.rows, c.cols, c.per_row, 11);
    EXPECT_TRUE(libra::test::same_matrix(ref, to_ref(A), T::tol()));
    const auto B = libra::uniform_random<S, typename T::Ordinal, typename T::Offset>(
        Kokkos::DefaultHostExecutionSpace(), c.rows, c.cols, c.per_row, 11);
    EXPECT_TRUE(libra::test::same_matrix(to_ref(B), to_ref(A), 0));
  }
}

// ---- banded and diagonals ------------------------------------------------------

struct BandCase {
  long long rows, cols, kl, ku;
};
std::vector<BandCase> band_cases() {
  return {{1, 1, 0, 0},     {50, 50, 3, 2}, {40, 70, 5, 30}, {70, 40, 69, 0},
          {100, 100, 0, 0}, {0, 0, 0, 0},   {6, 9, 5, 8},    {0, 7, 0, 4}};
}

TYPED_TEST(Generate, BandedStructureAndValues) {
  using T = TypeParam;
  using S = typename T::Scalar;
  for (const auto& c : band_cases()) {
    SCOPED_TRACE(::testing::Message()
                 << c.rows << " x " << c.cols << " kl " << c.kl << " ku " << c.ku);
    const auto m = to_ref(libra::banded<S, typename T::Ordinal, typename T::Offset>(
        Exec(), c.rows, c.cols, c.kl, c.ku, 12));
    // Every position of the band, counted by brute force, and nothing else.
    std::int64_t in_band = 0;
    for (long long i = 0; i < c.rows; ++i) {
      for (long long j = 0; j < c.cols; ++j) in_band += j - i >= -c.kl && j - i <= c.ku;
    }
    EXPECT_EQ(m.nnz(), in_band);
    for (std::int64_t i = 0; i < m.rows; ++i) {
      for (std::int64_t p = m.ptr[i]; p < m.ptr[i + 1]; ++p) {
        EXPECT_GE(m.col[p] - i, -c.kl);
        EXPECT_LE(m.col[p] - i, c.ku);
        EXPECT_GE(std::fabs(m.val[p]), 0.5);
        EXPECT_LT(std::fabs(m.val[p]), 1.5);
      }
    }
    EXPECT_TRUE(libra::test::same_matrix(
        host::on_diagonals<S>(c.rows, c.cols, host::band(c.kl, c.ku), 12, 1.0), m, 0));
  }
}

TYPED_TEST(Generate, DiagonalsStructureAndValues) {
  using T = TypeParam;
  using S = typename T::Scalar;
  using O = typename T::Ordinal;
  using Off = typename T::Offset;
  struct Case {
    long long rows, cols;
    std::vector<long long> offsets;
  };
  for (const Case& c : std::vector<Case>{{60, 60, {-3, 0, 5}},
                                         {1, 1, {0}},
                                         {30, 80, {7, -2, 1, 79}},
                                         {80, 30, {-79, 29, 0}},
                                         {20, 20, {}}}) {
    const std::set<long long> chosen(c.offsets.begin(), c.offsets.end());
    const auto full =
        to_ref(libra::diagonals<S, O, Off>(Exec(), c.rows, c.cols, c.offsets, 13));
    EXPECT_TRUE(libra::test::same_matrix(
        host::on_diagonals<S>(c.rows, c.cols, chosen, 13, 1.0), full, 0));
    std::int64_t on_chosen = 0;  // positions on the chosen diagonals, by brute force
    for (long long i = 0; i < c.rows; ++i) {
      for (long long j = 0; j < c.cols; ++j) on_chosen += chosen.count(j - i);
    }
    EXPECT_EQ(full.nnz(), on_chosen);

    const auto thin =
        to_ref(libra::diagonals<S, O, Off>(Exec(), c.rows, c.cols, c.offsets, 13, 0.4));
    EXPECT_TRUE(libra::test::same_matrix(
        host::on_diagonals<S>(c.rows, c.cols, chosen, 13, 0.4), thin, 0));
    // A subset of the full matrix with the same values.
    for (std::int64_t i = 0; i < thin.rows; ++i) {
      for (std::int64_t p = thin.ptr[i]; p < thin.ptr[i + 1]; ++p) {
        EXPECT_TRUE(chosen.count(thin.col[p] - i));
        const auto* begin = full.col.data() + full.ptr[i];
        const auto* end = full.col.data() + full.ptr[i + 1];
        const auto* at = std::find(begin, end, thin.col[p]);
        ASSERT_NE(at, end);
        EXPECT_EQ(full.val[at - full.col.data()], thin.val[p]);
      }
    }
    const auto none =
        to_ref(libra::diagonals<S, O, Off>(Exec(), c.rows, c.cols, c.offsets, 13, 0.0));
    EXPECT_EQ(none.nnz(), 0);
  }
  // Thinning keeps about `density` of a long diagonal.
  const auto thin = libra::diagonals<S, O, Off>(Exec(), 20000, 20000, {0, 1}, 14, 0.25);
  EXPECT_NEAR(static_cast<double>(thin.nnz()), 0.25 * 39999,
              5 * std::sqrt(39999 * 0.1875));
}

TYPED_TEST(Generate, BandedIsDiagonalsOfTheBand) {
  using T = TypeParam;
  using S = typename T::Scalar;
  using O = typename T::Ordinal;
  using Off = typename T::Offset;
  const auto a = libra::banded<S, O, Off>(Exec(), 90, 70, 4, 9, 15);
  std::vector<long long> offsets;
  for (long long d = -4; d <= 9; ++d) offsets.push_back(d);
  const auto b = libra::diagonals<S, O, Off>(Exec(), 90, 70, offsets, 15);
  EXPECT_TRUE(libra::test::same_matrix(to_ref(a), to_ref(b), 0));
}

// ---- determinism ---------------------------------------------------------------

TYPED_TEST(Generate, SeedDeterminesTheMatrix) {
  using T = TypeParam;
  using S = typename T::Scalar;
  using O = typename T::Ordinal;
  using Off = typename T::Offset;
  const auto same = [](const auto& make) {
    const auto a = to_ref(make(21)), b = to_ref(make(21)), c = to_ref(make(22));
    EXPECT_TRUE(libra::test::same_matrix(a, b, 0));
    EXPECT_FALSE(libra::test::same_matrix(a, c, 0));
  };
  same([](std::uint64_t seed) {
    auto o = rmat_options(9, 8, seed);
    o.values = libra::RmatValues::uniform;
    return libra::rmat<S, O, Off>(Exec(), o);
  });
  same([](std::uint64_t seed) {
    return libra::uniform_random<S, O, Off>(Exec(), 200, 100, 4, seed);
  });
  same([](std::uint64_t seed) {
    return libra::banded<S, O, Off>(Exec(), 30, 30, 2, 2, seed);
  });
  same([](std::uint64_t seed) {
    return libra::diagonals<S, O, Off>(Exec(), 30, 30, {-5, 0, 3}, seed, 0.5);
  });
}

// ---- arguments -----------------------------------------------------------------

TEST(GenerateArguments, Rejected) {
  using libra::ArgumentError;
  const auto rmat = [](libra::RmatOptions o) {
    return libra::rmat<double, int, int>(Exec(), o);
  };
  auto o = rmat_options(-1, 16, 0);
  EXPECT_THROW(rmat(o), ArgumentError);
  o.scale = 63;
  EXPECT_THROW(rmat(o), ArgumentError);
  o = rmat_options(4, -1, 0);
  EXPECT_THROW(rmat(o), ArgumentError);
  o.edge_factor = std::nan("");
  EXPECT_THROW(rmat(o), ArgumentError);
  o = rmat_options(4, 16, 0);
  o.a = -0.1;
  EXPECT_THROW(rmat(o), ArgumentError);
  o.a = 0.6, o.b = 0.3, o.c = 0.3;  // a + b + c > 1
  EXPECT_THROW(rmat(o), ArgumentError);

  EXPECT_THROW((libra::uniform_random<double, int, int>(Exec(), -1, 5, 1, 0)),
               ArgumentError);
  EXPECT_THROW((libra::uniform_random<double, int, int>(Exec(), 5, -1, 1, 0)),
               ArgumentError);
  EXPECT_THROW((libra::uniform_random<double, int, int>(Exec(), 5, 5, -1, 0)),
               ArgumentError);
  EXPECT_THROW((libra::uniform_random<double, int, int>(Exec(), 5, 5, INFINITY, 0)),
               ArgumentError);

  EXPECT_THROW((libra::banded<double, int, int>(Exec(), -1, 5, 0, 0)), ArgumentError);
  EXPECT_THROW((libra::banded<double, int, int>(Exec(), 5, 5, -1, 0)), ArgumentError);
  EXPECT_THROW((libra::banded<double, int, int>(Exec(), 5, 5, 5, 0)), ArgumentError);
  EXPECT_THROW((libra::banded<double, int, int>(Exec(), 5, 8, 0, 8)), ArgumentError);
  EXPECT_NO_THROW((libra::banded<double, int, int>(Exec(), 5, 8, 4, 7)));

  EXPECT_THROW((libra::diagonals<double, int, int>(Exec(), 5, 8, {8})), ArgumentError);
  EXPECT_THROW((libra::diagonals<double, int, int>(Exec(), 5, 8, {-5})), ArgumentError);
  EXPECT_THROW((libra::diagonals<double, int, int>(Exec(), 0, 0, {0})), ArgumentError);
  EXPECT_THROW((libra::diagonals<double, int, int>(Exec(), 5, 8, {1, 0, 1})),
               ArgumentError);
  EXPECT_THROW((libra::diagonals<double, int, int>(Exec(), 5, 8, {0}, 0, 1.5)),
               ArgumentError);
  EXPECT_THROW((libra::diagonals<double, int, int>(Exec(), 5, 8, {0}, 0, std::nan(""))),
               ArgumentError);
  EXPECT_THROW((libra::diagonals<double, int, int>(Exec(), -5, 8, {})), ArgumentError);
}

TEST(GenerateArguments, Overflow) {
  using libra::OverflowError;
  EXPECT_THROW((libra::rmat<double, int, int>(Exec(), rmat_options(31, 1, 0))),
               OverflowError);
  EXPECT_THROW(
      (libra::rmat<double, std::int64_t, std::int64_t>(Exec(), rmat_options(62, 16, 0))),
      OverflowError);  // 2^66 edges
  EXPECT_THROW((libra::uniform_random<double, int, int>(Exec(), 1LL << 40, 5, 1, 0)),
               OverflowError);
  EXPECT_THROW((libra::banded<double, int, int>(Exec(), 5, 1LL << 33, 0, 0)),
               OverflowError);
  // Structures whose nnz does not fit a 16-bit offset.
  EXPECT_THROW((libra::banded<double, int, std::int16_t>(Exec(), 200, 200, 199, 199)),
               OverflowError);
  EXPECT_THROW((libra::diagonals<double, int, std::int16_t>(Exec(), 40000, 40000, {0})),
               OverflowError);
  EXPECT_THROW((libra::rmat<double, int, std::int16_t>(Exec(), rmat_options(12, 16, 0))),
               OverflowError);
}

}  // namespace generate_test
