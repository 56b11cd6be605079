// Where the writers' bytes go (libra::io::OutputFile): a regular file is replaced
// whole, a symbolic link keeps being a link while its final target is replaced,
// and what is not a regular file (a FIFO, a pipe given as /dev/fd/N) is written
// straight, never renamed over; write errors name the path. Everything happens
// in a temporary folder: no test points at a real device node.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include "libra/io/read.hpp"
#include "libra/io/write.hpp"
#include "support/temp_dir.hpp"

namespace output_file_test {

namespace fs = std::filesystem;
using HostDevice = Kokkos::DefaultHostExecutionSpace::device_type;
using HostCsr = libra::Csr<double, int, int, HostDevice>;

// [0   0.5]
// [-2  0  ]
HostCsr small_matrix() {
  HostCsr::row_map_non_const_type row_map("rm", 3);
  HostCsr::index_type cols("c", 2);
  HostCsr::values_type vals("v", 2);
  row_map(1) = 1;
  row_map(2) = 2;
  cols(0) = 1;
  cols(1) = 0;
  vals(0) = 0.5;
  vals(1) = -2;
  return HostCsr(2, 2, row_map, cols, vals);
}

const std::string small_mtx =
    "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0.5\n2 1 -2\n";

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

class OutputFile : public ::testing::Test {
 protected:
  libra::test::TempDir dir;
};

TEST_F(OutputFile, RegularFileReplacedWholeKeepingItsPermissions) {
  const std::string path = dir.write("C.mtx", "stale\n");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write |
                            fs::perms::group_read);  // 0640
  libra::io::write_matrix_market(path, small_matrix());
  EXPECT_EQ(contents(path), small_mtx);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(dir.listing(), std::vector<std::string>{"C.mtx"});
}

TEST_F(OutputFile, SymlinkToAFileStaysALink) {
  const std::string target = dir.write("target.mtx", "stale\n");
  const std::string link = dir.path("C.mtx");
  fs::create_symlink("target.mtx", link);  // relative, as `ln -s` makes them
  libra::io::write_matrix_market(link, small_matrix());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), "target.mtx");
  EXPECT_EQ(contents(target), small_mtx);
  EXPECT_EQ(dir.listing(), (std::vector<std::string>{"C.mtx", "target.mtx"}));
}

TEST_F(OutputFile, SymlinkIntoAnotherFolderWritesBesideTheTarget) {
  fs::create_directories(dir.path("a"));
  fs::create_directories(dir.path("b/deep"));
  const std::string target = dir.path("b/deep/real.mtx");
  dir.write("b/deep/real.mtx", "stale\n");
  const std::string link = dir.path("a/C.mtx");
  fs::create_symlink("../b/deep/real.mtx", link);
  // A chain: a/D.mtx -> a/C.mtx -> ../b/deep/real.mtx.
  fs::create_symlink(link, dir.path("a/D.mtx"));
  {
    libra::io::OutputFile file(dir.path("a/D.mtx"));
    ASSERT_FALSE(file.written_straight());
    // The temporary lies beside the final target, so the rename stays in one folder.
    EXPECT_TRUE(fs::equivalent(fs::path(file.temporary_path()).parent_path(),
                               fs::path(target).parent_path()));
    libra::io::write_matrix_market(file, small_matrix());
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_symlink(dir.path("a/D.mtx")));
  EXPECT_EQ(contents(target), small_mtx);
  EXPECT_EQ(listing(dir.path("a")), (std::vector<std::string>{"C.mtx", "D.mtx"}));
  EXPECT_EQ(listing(dir.path("b/deep")), std::vector<std::string>{"real.mtx"});
}

TEST_F(OutputFile, DanglingSymlinkCreatesItsTarget) {
  fs::create_directories(dir.path("b"));
  const std::string link = dir.path("C.txt");
  fs::create_symlink("b/new.txt", link);
  libra::io::write_snap(link, small_matrix());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_regular_file(dir.path("b/new.txt")));
  EXPECT_EQ(contents(dir.path("b/new.txt")),
            "# libra: 2 x 2, 2 entries\n0 1 0.5\n1 0 -2\n");
  // A link into a folder that does not exist fails, naming the link, creating nothing.
  fs::create_symlink("nowhere/x.txt", dir.path("broken.txt"));
  EXPECT_THROW(libra::io::write_snap(dir.path("broken.txt"), small_matrix()),
               libra::Error);
  EXPECT_EQ(dir.listing(), (std::vector<std::string>{"C.txt", "b", "broken.txt"}));
}

TEST_F(OutputFile, FifoIsWrittenStraightAndStaysAFifo) {
  const std::string fifo = dir.path("C.mtx");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = contents(fifo); });
  libra::io::write_matrix_market(fifo, small_matrix());
  reader.join();
  EXPECT_EQ(received, small_mtx);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(dir.listing(), std::vector<std::string>{"C.mtx"});  // no temporary
}

TEST_F(OutputFile, SymlinkToAFifoWritesTheFifo) {
  const std::string fifo = dir.path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("pipe", dir.path("C.mtx"));
  std::string received;
  std::thread reader([&] { received = contents(fifo); });
  libra::io::write_matrix_market(dir.path("C.mtx"), small_matrix());
  reader.join();
  EXPECT_EQ(received, small_mtx);
  EXPECT_TRUE(fs::is_symlink(dir.path("C.mtx")));
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// A pipe named as /dev/fd/N, the way /dev/stdout names the process's stdout.
TEST_F(OutputFile, DescriptorNamesAreWrittenStraight) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string received;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) received.append(buf, n);
  });
  {
    libra::io::OutputFile file("/dev/fd/" + std::to_string(fds[1]));
    EXPECT_TRUE(file.written_straight());
    libra::io::write_matrix_market(file, small_matrix());
  }
  ::close(fds[1]);  // the writer does not own the descriptor: it stays open
  reader.join();
  ::close(fds[0]);
  EXPECT_EQ(received, small_mtx);
  EXPECT_TRUE(dir.listing().empty());
}

TEST_F(OutputFile, WriteErrorsNameThePath) {
  ::signal(SIGPIPE, SIG_IGN);  // as the libra tool does: EPIPE instead of death
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // the reader is gone
  const std::string name = "/dev/fd/" + std::to_string(fds[1]);
  try {
    libra::io::write_matrix_market(name, small_matrix());
    ADD_FAILURE() << "writing to a pipe without a reader did not fail";
  } catch (const libra::Error& e) {
    EXPECT_NE(std::string(e.what()).find(name + ": cannot write"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("Broken pipe"), std::string::npos) << e.what();
  }
  ::close(fds[1]);
  EXPECT_THROW(libra::io::OutputFile(""), libra::Error);
  EXPECT_THROW(libra::io::OutputFile(dir.path("x/")), libra::Error);
  EXPECT_THROW(libra::io::OutputFile("/dev/fd/987654"), libra::Error);  // not open
  EXPECT_TRUE(dir.listing().empty());
}

TEST_F(OutputFile, OpenedBeforeWritingAndRemovedOnSignals) {
  const std::string path = dir.path("C.mtx");
  libra::io::OutputFile file(path);
  // The temporary exists from the start: an unwritable path fails before any work.
  EXPECT_TRUE(fs::exists(file.temporary_path()));
  EXPECT_FALSE(fs::exists(path));
  // What the signal handlers call (the CLI test sends real signals).
  libra::io::impl::remove_temporaries();
  EXPECT_FALSE(fs::exists(file.temporary_path()));
  file.write("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  EXPECT_THROW(file.commit(), libra::Error);  // its temporary is gone
  EXPECT_TRUE(dir.listing().empty());
}

void expect_write_error(const std::function<void()>& write, const std::string& path) {
  try {
    write();
  } catch (const libra::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return;
  }
  ADD_FAILURE() << "writing " << path << " did not fail";
}

TEST_F(OutputFile, FailedWritesLeaveNothingBehind) {
  const HostCsr A = small_matrix();
  const std::string missing = dir.path("no/such/dir/a.mtx");
  expect_write_error([&] { libra::io::write_matrix_market(missing, A); }, missing);
  expect_write_error([&] { libra::io::write_snap(missing, A); }, missing);
  libra::Dense<double, HostDevice> D("D", 2, 2);
  expect_write_error([&] { libra::io::write_matrix_market(missing, D); }, missing);
  EXPECT_TRUE(dir.listing().empty());

  const std::string folder = dir.path("folder");
  std::filesystem::create_directories(folder);
  expect_write_error([&] { libra::io::write_matrix_market(folder, A); }, folder);
  expect_write_error(
      [&] { libra::io::write_matrix(folder, A, libra::io::FileFormat::snap); }, folder);
  EXPECT_EQ(dir.listing(), std::vector<std::string>{"folder"});
  EXPECT_TRUE(std::filesystem::is_empty(folder));

  // A failure at the final rename (the target turned into a directory while
  // the temporary was being written) removes the temporary too.
  const std::string target = dir.path("late.mtx");
  {
    libra::io::OutputFile file(target);
    file.write("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    EXPECT_TRUE(std::filesystem::exists(file.temporary_path()));
    std::filesystem::create_directories(target + "/occupied");
    expect_write_error([&] { file.commit(); }, target);
    EXPECT_FALSE(std::filesystem::exists(file.temporary_path()));
  }
  EXPECT_EQ(dir.listing(), (std::vector<std::string>{"folder", "late.mtx"}));
  EXPECT_TRUE(std::filesystem::is_directory(target));

  // An abandoned write (an exception before commit) removes its temporary.
  {
    libra::io::OutputFile file(dir.path("abandoned.mtx"));
    file.write("partial");
  }
  EXPECT_EQ(dir.listing(), (std::vector<std::string>{"folder", "late.mtx"}));
}

TEST_F(OutputFile, SuccessfulWriteReplacesTheFileWhole) {
  const std::string path = dir.write("m.mtx", std::string(100000, 'x'));
  libra::io::write_matrix_market(path, small_matrix());
  const auto t = libra::io::read_matrix_market_triplets(path);
  ASSERT_EQ(t.row.size(), 2u);
  EXPECT_EQ(t.val[0], 0.5);
  EXPECT_EQ(t.val[1], -2.0);
  EXPECT_EQ(dir.listing(), std::vector<std::string>{"m.mtx"});
}

}  // namespace output_file_test
