// SNAP edge lists: the shipped small files against their known edges and the
// naive reader, node id bases, comment-only files, format detection and the
// writer.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "libra/io/read.hpp"
#include "libra/io/write.hpp"
#include "support/compare.hpp"
#include "support/naive_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/test_space.hpp"

namespace snap_test {

using libra::io::Field;
using libra::io::FileFormat;
using libra::test::Device;
using Triplet = libra::ref::Triplet;

const std::string data_dir = LIBRA_TEST_DATA_DIR;

void expect_triplets(const libra::io::Triplets& t, const std::vector<Triplet>& expected) {
  ASSERT_EQ(t.row.size(), expected.size());
  ASSERT_EQ(t.col.size(), expected.size());
  ASSERT_EQ(t.val.size(), expected.size());
  for (std::size_t p = 0; p < expected.size(); ++p) {
    EXPECT_EQ(t.row[p], std::get<0>(expected[p])) << "edge " << p;
    EXPECT_EQ(t.col[p], std::get<1>(expected[p])) << "edge " << p;
    EXPECT_EQ(t.val[p], std::get<2>(expected[p])) << "edge " << p;
  }
}

template <class S, class O, class Off>
libra::ref::Matrix read_ref(const std::string& path,
                            const libra::io::ReadOptions& options = {},
                            libra::io::FileInfo* info = nullptr) {
  return libra::test::to_ref(
      libra::io::read_matrix<S, O, Off, Device>(path, options, info));
}

// snap_small.txt: '#' and '%' comments, tabs, runs of spaces, CRLF line ends, a
// blank line, the edge 0 -> 1 twice and no newline at the end.
TEST(Snap, SmallFileWithCommentsTabsCrlfAndDuplicates) {
  const std::string path = data_dir + "/snap_small.txt";
  const std::vector<Triplet> edges = {{0, 1, 1}, {0, 2, 1}, {1, 2, 1}, {2, 0, 1},
                                      {3, 5, 1}, {0, 1, 1}, {5, 3, 1}, {4, 4, 1}};
  for (const auto& t :
       {libra::io::read_snap_triplets(path), libra::io::read_triplets(path)}) {
    expect_triplets(t, edges);
    EXPECT_EQ(t.info.format, FileFormat::snap);
    EXPECT_EQ(t.info.field, Field::pattern);
    EXPECT_EQ(t.info.symmetry, libra::io::Symmetry::general);
    EXPECT_EQ(t.info.rows, 6);
    EXPECT_EQ(t.info.cols, 6);
    EXPECT_EQ(t.info.stored_entries, 8u);
  }
  libra::io::FileInfo info;
  const auto expected = libra::ref::from_triplets(6, 6, edges);  // (0, 1) sums to 2
  EXPECT_TRUE(
      libra::test::same_matrix(expected, read_ref<double, int, int>(path, {}, &info), 0));
  EXPECT_EQ(info.format, FileFormat::snap);
  EXPECT_TRUE(
      libra::test::same_matrix(expected, libra::test::naive_read(path).matrix(), 0));
  EXPECT_TRUE(libra::test::same_matrix(
      expected, read_ref<float, std::int64_t, std::size_t>(path), 0));
}

TEST(Snap, WeightsAndOneBasedIds) {
  const std::string path = data_dir + "/snap_weighted.txt";
  libra::io::ReadOptions one_based;
  one_based.snap_index_base = 1;
  const auto t = libra::io::read_snap_triplets(path, one_based);
  expect_triplets(t, {{0, 1, 0.5}, {1, 2, -1.25}, {2, 0, 2000}, {0, 1, 0.25}});
  EXPECT_EQ(t.info.field, Field::real);
  EXPECT_EQ(t.info.rows, 3);
  EXPECT_EQ(t.info.stored_entries, 4u);
  EXPECT_TRUE(libra::test::same_matrix(
      libra::ref::from_triplets(3, 3, {{0, 1, 0.75}, {1, 2, -1.25}, {2, 0, 2000}}),
      read_ref<double, int, int>(path, one_based), 0));
  // Read 0-based, the same ids are kept as they are: node 0 exists but is isolated.
  const auto zero_based = libra::io::read_snap_triplets(path);
  EXPECT_EQ(zero_based.info.rows, 4);
  EXPECT_EQ(zero_based.row[0], 1);
  EXPECT_TRUE(libra::test::same_matrix(libra::test::naive_read(path).matrix(),
                                       read_ref<double, int, int>(path), 0));
}

TEST(Snap, IdsKeptAsTheyAreAndEmptyEdgeLists) {
  libra::test::TempDir dir;
  // Like Wiki-Vote: the smallest id is not 0, rows = largest id + 1.
  const auto sparse_ids = libra::io::read_triplets(dir.write("ids.txt", "30 7\n7 12\n"));
  expect_triplets(sparse_ids, {{30, 7, 1}, {7, 12, 1}});
  EXPECT_EQ(sparse_ids.info.rows, 31);
  EXPECT_EQ(sparse_ids.info.cols, 31);
  for (const char* text :
       {"", "# nothing but comments\n% and more\n", "\n\n", "# no newline"}) {
    const std::string path = dir.write("empty.txt", text);
    const auto t = libra::io::read_snap_triplets(path);
    EXPECT_EQ(t.row.size(), 0u);
    EXPECT_EQ(t.info.rows, 0);
    EXPECT_EQ(t.info.cols, 0);
    const auto A = libra::io::read_matrix<double, int, int, Device>(path);
    EXPECT_EQ(A.num_rows, 0);
    EXPECT_EQ(A.nnz(), 0);
  }
}

TEST(Snap, WriterRoundTripKeepsValuesAndShape) {
  libra::test::TempDir dir;
  // The last rows and columns are empty: only the header keeps the shape.
  const auto square = libra::ref::random(4000, 4000, 9, 21);
  const auto tall =
      libra::ref::from_triplets(7, 5, {{0, 1, 0.1}, {2, 0, -3e-300}, {3, 3, 1.0 / 3}});
  const auto empty = libra::ref::from_triplets(4, 6, {});
  for (const auto& m : {square, tall, empty}) {
    const auto A = libra::test::from_ref<double, int, int, Device>(m);
    const std::string path = dir.path("out.txt");
    libra::io::write_snap(path, A);
    libra::io::FileInfo info;
    // Values at full precision: the same bits come back.
    EXPECT_TRUE(
        libra::test::same_matrix(m, read_ref<double, int, int>(path, {}, &info), 0));
    EXPECT_EQ(info.format, FileFormat::snap);
    EXPECT_EQ(info.field, m.nnz() ? Field::real : Field::pattern);
    EXPECT_TRUE(info.shape_declared);
    EXPECT_EQ(info.rows, m.rows);
    EXPECT_EQ(info.cols, m.cols);
    EXPECT_EQ(info.stored_entries, static_cast<std::uint64_t>(m.nnz()));
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, "# libra: " + std::to_string(m.rows) + " x " +
                         std::to_string(m.cols) + ", " + std::to_string(m.nnz()) +
                         " entries");
  }
  // A pattern write has two columns and reads back as a pattern of the same shape.
  const auto A = libra::test::from_ref<double, int, int, Device>(tall);
  libra::io::write_snap(dir.path("p.txt"), A, libra::io::WriteOptions{true});
  auto ones = tall;
  for (auto& v : ones.val) v = 1.0;
  libra::io::FileInfo info;
  EXPECT_TRUE(libra::test::same_matrix(
      ones, read_ref<double, int, int>(dir.path("p.txt"), {}, &info), 0));
  EXPECT_EQ(info.field, Field::pattern);
  EXPECT_EQ(dir.listing(), (std::vector<std::string>{"out.txt", "p.txt"}));
}

}  // namespace snap_test
