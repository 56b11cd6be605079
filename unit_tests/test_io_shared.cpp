// Every matrix listed in ../shared/matrices/MANIFEST.tsv reads, with the shape
// and stored-entry count the manifest gives, and the same matrix as the naive
// reader builds from the file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "libra/io/read.hpp"
#include "support/compare.hpp"
#include "support/naive_reader.hpp"
#include "support/test_space.hpp"

namespace io_shared_test {

using libra::test::Device;

const std::string shared_dir = LIBRA_SHARED_MATRICES_DIR;

struct Listed {
  std::string file;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::uint64_t stored = 0;  // entries written in the file (edges for SNAP)
};

std::vector<Listed> manifest() {
  std::ifstream in(shared_dir + "/MANIFEST.tsv");
  std::vector<Listed> out;
  std::string line;
  std::getline(in, line);  // column names: file name kind rows cols nnz ...
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream s(line);
    std::string name, kind, rows, cols, nnz;
    Listed m;
    std::getline(s, m.file, '\t');
    std::getline(s, name, '\t');
    std::getline(s, kind, '\t');
    std::getline(s, rows, '\t');
    std::getline(s, cols, '\t');
    std::getline(s, nnz, '\t');
    m.rows = std::stoll(rows);
    m.cols = std::stoll(cols);
    m.stored = std::stoull(nnz);
    out.push_back(m);
  }
  return out;
}

TEST(SharedMatrices, EveryListedFileReads) {
  const auto listed = manifest();
  ASSERT_FALSE(listed.empty()) << "no entries in " << shared_dir << "/MANIFEST.tsv";
  for (const auto& m : listed) {
    SCOPED_TRACE(m.file);
    const std::string path = shared_dir + "/" + m.file;
    const auto t = libra::io::read_triplets(path);
    EXPECT_EQ(t.info.rows, m.rows);
    EXPECT_EQ(t.info.cols, m.cols);
    EXPECT_EQ(t.info.stored_entries, m.stored);
    const auto naive = libra::test::naive_read(path);
    EXPECT_EQ(naive.stored, m.stored);
    EXPECT_EQ(t.row.size(), naive.entries.size());  // entries after expansion
    libra::io::FileInfo info;
    const auto A = libra::io::read_matrix<double, int, int, Device>(path, {}, &info);
    EXPECT_EQ(info.rows, m.rows);
    EXPECT_TRUE(libra::test::same_matrix(naive.matrix(), libra::test::to_ref(A), 1e-15));
  }
}

}  // namespace io_shared_test
