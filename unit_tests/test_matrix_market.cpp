// Matrix Market reading and writing on the test's execution space: the shipped
// matrices against a naive reader, hand-written files of every kind against
// their expected entries, and bit-exact write/read round trips.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "libra/format/convert.hpp"
#include "libra/format/mirror.hpp"
#include "libra/io/read.hpp"
#include "libra/io/write.hpp"
#include "support/compare.hpp"
#include "support/naive_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/test_space.hpp"

namespace matrix_market_test {

using libra::io::Field;
using libra::io::Symmetry;
using libra::test::Device;
using libra::test::Exec;
using Triplet = libra::ref::Triplet;

const std::string data_dir = LIBRA_TEST_DATA_DIR;

template <class S, class O, class Off>
libra::ref::Matrix read_ref(const std::string& path, libra::io::FileInfo* info = nullptr,
                            const libra::io::ReadOptions& options = {}) {
  return libra::test::to_ref(
      libra::io::read_matrix<S, O, Off, Device>(path, options, info));
}

// Same pattern and every value with the same bits (so -0.0 differs from 0.0).
::testing::AssertionResult same_bits(const libra::ref::Matrix& expected,
                                     const libra::ref::Matrix& got) {
  auto shape = libra::test::same_matrix(expected, got, 0);
  if (!shape) return shape;
  for (std::size_t p = 0; p < expected.val.size(); ++p) {
    if (std::memcmp(&expected.val[p], &got.val[p], sizeof(double)) != 0) {
      return ::testing::AssertionFailure()
             << "entry " << p << ": " << got.val[p] << " differs in its bits from "
             << expected.val[p];
    }
  }
  return ::testing::AssertionSuccess();
}

// Values that break careless formatting: extremes, subnormals, signed zero,
// digits that need all 17 places.
std::vector<double> awkward_values() {
  using L = std::numeric_limits<double>;
  return {L::max(),
          L::lowest(),
          L::min(),
          -L::min(),
          L::denorm_min(),
          -0.0,
          0.0,
          1.0 / 3.0,
          0.1,
          -2.0 / 7.0 * 1e-300,
          1e300 / 3,
          123456789.0,
          1e22,
          9007199254740993.0,
          -1.0};
}

template <class S>
libra::ref::Matrix with_awkward_values(libra::ref::Matrix m) {
  const auto special = awkward_values();
  for (std::size_t p = 0; p < m.val.size(); ++p) {
    double v = p % 3 == 0 ? special[(p / 3) % special.size()]
                          : m.val[p] * std::pow(10.0, p % 40);
    if (sizeof(S) < sizeof(double) && std::fabs(v) > std::numeric_limits<S>::max())
      v = 1.5;
    m.val[p] = static_cast<double>(static_cast<S>(v));
  }
  return m;
}

template <class S, class O, class Off>
void round_trip(const libra::ref::Matrix& m0, const std::string& path) {
  const auto m = with_awkward_values<S>(m0);
  const auto A = libra::test::from_ref<S, O, Off, Device>(m);
  libra::io::write_matrix_market(path, A);
  libra::io::FileInfo info;
  EXPECT_TRUE(same_bits(m, read_ref<S, O, Off>(path, &info))) << path;
  EXPECT_EQ(info.rows, m.rows);
  EXPECT_EQ(info.cols, m.cols);
  EXPECT_EQ(info.stored_entries, static_cast<std::uint64_t>(m.nnz()));
  EXPECT_EQ(info.field, Field::real);
  // The naive reader (which reads doubles) agrees on what was written.
  EXPECT_TRUE(libra::test::same_matrix(m, libra::test::naive_read(path).matrix(),
                                       std::numeric_limits<S>::epsilon()));
}

TEST(MatrixMarket, RoundTripIsBitExact) {
  libra::test::TempDir dir;
  std::vector<libra::ref::Matrix> cases = {
      libra::ref::Matrix{},  // 0 x 0
      libra::ref::from_triplets(5, 0, {}), libra::ref::from_triplets(0, 7, {}),
      libra::ref::from_triplets(4, 4, {}), libra::ref::random(1, 3000, 1000, 1),
      libra::ref::random(300, 40, 6, 2, 0.5),
      // Large enough that the file spans many parse chunks and write blocks.
      libra::ref::random(30000, 25000, 12, 3)};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    round_trip<double, int, int>(cases[k], dir.path("d" + std::to_string(k) + ".mtx"));
    round_trip<float, std::int64_t, std::size_t>(
        cases[k], dir.path("f" + std::to_string(k) + ".mtx"));
  }
  EXPECT_EQ(dir.listing().size(), 2 * cases.size());  // no temporaries left behind
}

TEST(MatrixMarket, RoundTripPatternAndFormatDispatch) {
  libra::test::TempDir dir;
  const auto m = libra::ref::random(200, 150, 5, 4);
  const auto A = libra::test::from_ref<double, int, int, Device>(m);
  libra::io::write_matrix_market(dir.path("p.mtx"), A, libra::io::WriteOptions{true});
  libra::io::FileInfo info;
  auto ones = m;
  for (auto& v : ones.val) v = 1.0;
  EXPECT_TRUE(same_bits(ones, read_ref<double, int, int>(dir.path("p.mtx"), &info)));
  EXPECT_EQ(info.field, Field::pattern);

  libra::io::write_matrix(dir.path("g.mtx"), A, libra::io::FileFormat::matrix_market);
  EXPECT_TRUE(same_bits(m, read_ref<double, int, int>(dir.path("g.mtx"))));
  libra::io::write_matrix(dir.path("g.txt"), A, libra::io::FileFormat::snap);
  const auto t = libra::io::read_triplets(dir.path("g.txt"));
  EXPECT_EQ(t.info.format, libra::io::FileFormat::snap);
  const auto expected = libra::ref::to_triplets(m);
  ASSERT_EQ(t.row.size(), expected.size());
  for (std::size_t p = 0; p < expected.size(); ++p) {
    EXPECT_EQ(t.row[p], std::get<0>(expected[p]));
    EXPECT_EQ(t.col[p], std::get<1>(expected[p]));
  }
}

struct Shipped {
  const char* file;
  std::int64_t rows, cols;
  std::uint64_t stored;
  std::size_t expanded;
  Field field;
  Symmetry symmetry;
};

TEST(MatrixMarket, ShippedMatricesMatchNaiveReader) {
  const Shipped shipped[] = {
      {"lp_afiro.mtx", 27, 51, 102, 102, Field::real, Symmetry::general},
      {"abb313.mtx", 313, 176, 1557, 1557, Field::pattern, Symmetry::general},
      {"bcsstk21.mtx", 3600, 3600, 15100, 26600, Field::real, Symmetry::symmetric},
      {"ca-GrQc.mtx", 5242, 5242, 14496, 28980, Field::pattern, Symmetry::symmetric},
      {"olm1000.mtx", 1000, 1000, 3996, 3996, Field::real, Symmetry::general},
      {"west2021.mtx", 2021, 2021, 7353, 7353, Field::real, Symmetry::general}};
  for (const auto& s : shipped) {
    SCOPED_TRACE(s.file);
    const std::string path = data_dir + "/" + s.file;
    const auto t = libra::io::read_matrix_market_triplets(path);
    EXPECT_EQ(t.info.rows, s.rows);
    EXPECT_EQ(t.info.cols, s.cols);
    EXPECT_EQ(t.info.stored_entries, s.stored);
    EXPECT_EQ(t.info.field, s.field);
    EXPECT_EQ(t.info.symmetry, s.symmetry);
    EXPECT_EQ(t.row.size(), s.expanded);
    const auto naive = libra::test::naive_read(path);
    EXPECT_EQ(naive.entries.size(), s.expanded);
    const auto expected = naive.matrix();
    EXPECT_TRUE(same_bits(expected, read_ref<double, int, int>(path)));
    const auto as_float = libra::test::to_ref(
        libra::io::read_matrix<float, std::int64_t, std::size_t, Device>(path));
    EXPECT_TRUE(libra::test::same_matrix(expected, as_float, 1e-7));
  }
}

// Writes `text` and reads it back as a Csr on the device and as triplets.
struct Parsed {
  libra::io::Triplets triplets;
  libra::ref::Matrix matrix;
};
Parsed parse(const libra::test::TempDir& dir, const std::string& text,
             const libra::io::ReadOptions& options = {}) {
  const std::string path = dir.write("m.mtx", text);
  return {libra::io::read_matrix_market_triplets(path, options),
          read_ref<double, int, int>(path, nullptr, options)};
}

void expect_triplets(const libra::io::Triplets& t, const std::vector<Triplet>& expected) {
  ASSERT_EQ(t.row.size(), expected.size());
  for (std::size_t p = 0; p < expected.size(); ++p) {
    EXPECT_EQ(t.row[p], std::get<0>(expected[p])) << "entry " << p;
    EXPECT_EQ(t.col[p], std::get<1>(expected[p])) << "entry " << p;
    EXPECT_EQ(t.val[p], std::get<2>(expected[p])) << "entry " << p;
  }
}

TEST(MatrixMarket, SymmetricHalvesAreMirrored) {
  libra::test::TempDir dir;
  const auto p = parse(dir,
                       "%%MatrixMarket matrix coordinate real symmetric\n% lower half\n"
                       "3 3 4\n1 1 2.0\n2 1 -1.5\n3 2 4.25\n3 3 1e-3\n");
  // Stored entries first, in file order, then the mirrored off-diagonal ones.
  expect_triplets(p.triplets, {{0, 0, 2.0},
                               {1, 0, -1.5},
                               {2, 1, 4.25},
                               {2, 2, 1e-3},
                               {0, 1, -1.5},
                               {1, 2, 4.25}});
  EXPECT_EQ(p.triplets.info.stored_entries, 4u);
  EXPECT_TRUE(same_bits(libra::ref::from_triplets(3, 3,
                                                  {{0, 0, 2.0},
                                                   {1, 0, -1.5},
                                                   {0, 1, -1.5},
                                                   {2, 1, 4.25},
                                                   {1, 2, 4.25},
                                                   {2, 2, 1e-3}}),
                        p.matrix));
}

TEST(MatrixMarket, SkewSymmetricMirrorsAreNegated) {
  libra::test::TempDir dir;
  const auto p = parse(dir,
                       "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                       "3 3 2\n2 1 1.5\n3 1 -4\n");
  EXPECT_EQ(p.triplets.info.symmetry, Symmetry::skew_symmetric);
  EXPECT_TRUE(same_bits(
      libra::ref::from_triplets(3, 3, {{1, 0, 1.5}, {0, 1, -1.5}, {2, 0, -4}, {0, 2, 4}}),
      p.matrix));
}

TEST(MatrixMarket, PatternAndIntegerFields) {
  libra::test::TempDir dir;
  const auto pattern = parse(dir,
                             "%%MatrixMarket matrix coordinate pattern symmetric\n"
                             "4 4 3\n2 1\n4 4\n4 3\n");
  EXPECT_EQ(pattern.triplets.info.field, Field::pattern);
  EXPECT_TRUE(
      same_bits(libra::ref::from_triplets(
                    4, 4, {{1, 0, 1}, {0, 1, 1}, {3, 3, 1}, {3, 2, 1}, {2, 3, 1}}),
                pattern.matrix));

  const auto integer = parse(dir,
                             "%%MatrixMarket matrix coordinate integer general\n"
                             "2 3 3\n1 2 -7\n2 3 9007199254740993\n2 1 +12\n");
  EXPECT_EQ(integer.triplets.info.field, Field::integer);
  expect_triplets(
      integer.triplets,
      {{0, 1, -7.0}, {1, 2, static_cast<double>(9007199254740993LL)}, {1, 0, 12.0}});
}

TEST(MatrixMarket, DuplicatesSummedAndExplicitZerosKept) {
  libra::test::TempDir dir;
  const auto p = parse(dir,
                       "%%MatrixMarket matrix coordinate real general\n"
                       "2 2 5\n1 1 0.5\n2 2 0\n1 1 0.25\n1 1 0.125\n1 2 -0\n");
  EXPECT_EQ(p.triplets.row.size(), 5u);  // triplets keep the duplicates
  EXPECT_TRUE(
      same_bits(libra::ref::from_triplets(2, 2, {{0, 0, 0.875}, {0, 1, -0.0}, {1, 1, 0}}),
                p.matrix));
}

TEST(MatrixMarket, TolerantLayout) {
  libra::test::TempDir dir;
  // Lower-case and mixed-case keywords, CRLF, tabs, runs of spaces, blank lines,
  // comments between entries, a '+' sign, and no newline at the end.
  const std::string files[] = {
      "%%matrixmarket MATRIX Coordinate REAL General\r\n%c\r\n\r\n3 4 3\r\n1 1 1.5\r\n"
      "3\t4\t-2\r\n\r\n2  2 3e-2",
      "%%MatrixMarket matrix coordinate real general\n  \n\t3   4 3  \n"
      "  1 1 +1.5\n%between\n3 4 -2.0\t\n 2 2 0.03\n\n\n",
  };
  for (const auto& text : files) {
    const auto p = parse(dir, text);
    EXPECT_EQ(p.triplets.info.rows, 3);
    EXPECT_EQ(p.triplets.info.cols, 4);
    EXPECT_TRUE(same_bits(
        libra::ref::from_triplets(3, 4, {{0, 0, 1.5}, {2, 3, -2}, {1, 1, 3e-2}}),
        p.matrix))
        << text;
  }
}

TEST(MatrixMarket, EmptyMatrices) {
  libra::test::TempDir dir;
  for (const char* size : {"0 0 0", "3 4 0", "0 5 0"}) {
    const auto p =
        parse(dir, std::string("%%MatrixMarket matrix coordinate real general\n") + size +
                       "\n");
    EXPECT_EQ(p.triplets.row.size(), 0u);
    EXPECT_EQ(p.matrix.rows, p.triplets.info.rows);
    EXPECT_EQ(p.matrix.cols, p.triplets.info.cols);
    EXPECT_EQ(p.matrix.nnz(), 0);
  }
}

TEST(MatrixMarket, NonFiniteValuesWhenAllowed) {
  libra::test::TempDir dir;
  libra::io::ReadOptions options;
  options.allow_nonfinite = true;
  const auto p = parse(dir,
                       "%%MatrixMarket matrix coordinate real general\n"
                       "2 2 3\n1 1 nan\n1 2 -inf\n2 2 Infinity\n",
                       options);
  ASSERT_EQ(p.triplets.val.size(), 3u);
  EXPECT_TRUE(std::isnan(p.triplets.val[0]));
  EXPECT_EQ(p.triplets.val[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(p.triplets.val[2], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(p.matrix.val[0]));
}

TEST(MatrixMarket, ArrayFiles) {
  libra::test::TempDir dir;
  // General: column-major, zeros are stored values too.
  const auto g = parse(dir,
                       "%%MatrixMarket matrix array real general\n% 2 x 3\n2 3\n"
                       "1\n2\n0\n4\n5.5\n-6\n");
  EXPECT_TRUE(g.triplets.info.dense_array);
  expect_triplets(g.triplets,
                  {{0, 0, 1}, {1, 0, 2}, {0, 1, 0}, {1, 1, 4}, {0, 2, 5.5}, {1, 2, -6}});
  EXPECT_EQ(g.matrix.nnz(), 6);

  const std::string symmetric = dir.write(
      "s.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  const std::string skew = dir.write(
      "k.mtx", "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n7\n8\n9\n");
  const double expected_s[3][3] = {{1, 2, 3}, {2, 4, 5}, {3, 5, 6}};
  const double expected_k[3][3] = {{0, -7, -8}, {7, 0, -9}, {8, 9, 0}};
  const auto S = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(),
      libra::io::read_matrix_market_dense<double, Device>(symmetric));
  const auto K = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), libra::io::read_matrix_market_dense<float, Device>(skew));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(S(i, j), expected_s[i][j]) << i << "," << j;
      EXPECT_EQ(K(i, j), expected_k[i][j]) << i << "," << j;
    }
  }
  EXPECT_TRUE(libra::test::same_matrix(libra::test::naive_read(symmetric).matrix(),
                                       read_ref<double, int, int>(symmetric), 0));
  EXPECT_TRUE(libra::test::same_matrix(libra::test::naive_read(skew).matrix(),
                                       read_ref<double, int, int>(skew), 0));
}

TEST(MatrixMarket, DenseRoundTripAndDensifiedCoordinates) {
  libra::test::TempDir dir;
  const auto values = awkward_values();
  for (const auto& [rows, cols] :
       {std::pair<int, int>{0, 0}, {3, 0}, {7, 5}, {300, 200}}) {
    libra::Dense<double, Device> D("D", rows, cols);
    auto h = Kokkos::create_mirror_view(D);
    for (int j = 0; j < cols; ++j) {
      for (int i = 0; i < rows; ++i)
        h(i, j) = values[(i * 7 + j) % values.size()] * (i % 2 ? -1 : 1);
    }
    Kokkos::deep_copy(D, h);
    const std::string path = dir.path("dense.mtx");
    libra::io::write_matrix_market(path, D);
    libra::io::FileInfo info;
    const auto back = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        libra::io::read_matrix_market_dense<double, Device>(path, {}, &info));
    EXPECT_TRUE(info.dense_array);
    ASSERT_EQ(back.extent(0), static_cast<std::size_t>(rows));
    ASSERT_EQ(back.extent(1), static_cast<std::size_t>(cols));
    for (int j = 0; j < cols; ++j) {
      for (int i = 0; i < rows; ++i) {
        ASSERT_EQ(std::memcmp(&back(i, j), &h(i, j), sizeof(double)), 0) << i << "," << j;
      }
    }
  }
  // A coordinate file densified: duplicates add up, absent entries are zero.
  const std::string coord = dir.write(
      "c.mtx",
      "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 3 1\n2 1 2\n1 3 0.5\n");
  const auto C = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), libra::io::read_matrix_market_dense<double, Device>(coord));
  const double expected[2][3] = {{0, 0, 1.5}, {2, 0, 0}};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(C(i, j), expected[i][j]);
  }
}

TEST(MatrixMarket, SizesThatDoNotFitTheOrdinal) {
  libra::test::TempDir dir;
  const std::string path =
      dir.write("big.mtx",
                "%%MatrixMarket matrix coordinate real general\n2 3000000000 1\n1 1 1\n");
  EXPECT_THROW((libra::io::read_matrix<double, int, int, Device>(path)),
               libra::OverflowError);
  const auto A = libra::io::read_matrix<double, std::int64_t, std::size_t, Device>(path);
  EXPECT_EQ(A.num_cols, 3000000000LL);
  EXPECT_EQ(A.nnz(), 1u);
  const std::string huge = dir.write(
      "huge.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e300\n");
  EXPECT_THROW((libra::io::read_matrix<float, int, int, Device>(huge)),
               libra::OverflowError);
}

}  // namespace matrix_market_test
