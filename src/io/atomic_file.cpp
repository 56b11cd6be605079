#include "libra/io/impl/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "libra/core/error.hpp"

namespace libra::io::impl {

namespace {

std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const std::size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1));
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty() || path_.back() == '/') {
    throw Error(path_ + ": cannot write: not a file name");
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error(path_ + ": cannot write: is a directory");
  }
  tmp_ = temporary_name(path_);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int err = errno;
    throw Error(path_ + ": cannot create " + tmp_ + ": " + std::strerror(err));
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
}

void AtomicFile::fail(const std::string& action, int err) {
  discard();
  committed_ = true;  // nothing left to clean up
  throw Error(path_ + ": " + action + ": " + std::strerror(err));
}

void AtomicFile::write(std::string_view bytes) {
  if (fd_ < 0) throw Error(path_ + ": write after the file was closed");
  while (!bytes.empty()) {
    const ssize_t done = ::write(fd_, bytes.data(), bytes.size());
    if (done < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(done));
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw Error(path_ + ": commit after the file was closed");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot finish writing", errno);
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
    fail("cannot replace the file", errno);
  committed_ = true;
}

}  // namespace libra::io::impl
