#include "libra/io/impl/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>

#include "libra/core/error.hpp"
#include "libra/io/write.hpp"

namespace libra::io {

namespace impl {

namespace {

// ---- the temporaries a signal handler removes ------------------------------------
// Fixed storage and lock-free atomics, so that remove_temporaries() is
// async-signal-safe. A slot is 0 (free), 1 (being filled) or 2 (a temporary).
constexpr int slot_count = 64;
constexpr std::size_t slot_chars = PATH_MAX;
struct Slot {
  std::atomic<int> state{0};
  char path[slot_chars];
};
Slot slots[slot_count];

// Returns the slot holding `tmp` (made absolute: the handler may run after a
// chdir), or -1 when none is free (then only the destructor removes it).
int register_temporary(const std::string& tmp) {
  std::string absolute = tmp;
  if (tmp.front() != '/') {
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd)) return -1;
    absolute = std::string(cwd) + "/" + tmp;
  }
  if (absolute.size() >= slot_chars) return -1;
  for (int i = 0; i < slot_count; ++i) {
    int expected = 0;
    if (slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(slots[i].path, absolute.c_str(), absolute.size() + 1);
      slots[i].state.store(2, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) slots[slot].state.store(0, std::memory_order_release);
}

extern "C" void remove_temporaries_and_reraise(int sig) {
  remove_temporaries();
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered once the handler returns: the default action
}

// ---- where the bytes go -----------------------------------------------------------

// The descriptor a name stands for by itself: "-" and /dev/stdout are 1,
// /dev/stderr 2, /dev/fd/N and /proc/self/fd/N are N; -1 for other names.
int named_descriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) {
      int fd = -1;
      const char* end = path.data() + path.size();
      const auto r = std::from_chars(path.data() + prefix.size(), end, fd);
      if (r.ec == std::errc() && r.ptr == end) return fd;
    }
  }
  return -1;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// Where a chain of symbolic links starting at `path` ends: a name that is not a
// link (it may not exist yet), or a descriptor name met on the way.
std::string final_target(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    if (named_descriptor(p) >= 0) return p;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), &target[0], target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size()) return p;
    target.resize(static_cast<std::size_t>(n));
    p = target.front() == '/' ? target : directory_of(p) + target;
  }
  throw Error(path + ": cannot write: too many levels of symbolic links");
}

std::string temporary_name(const std::string& target) {
  static std::atomic<unsigned> counter{0};
  const std::string dir = directory_of(target);
  return dir + "." + target.substr(dir.size()) + ".tmp." + std::to_string(::getpid()) +
         "." + std::to_string(counter.fetch_add(1));
}

}  // namespace

void remove_temporaries() noexcept {
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) == 2) ::unlink(slot.path);
  }
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("cannot write to an empty file name");
  if (path_.back() == '/') throw Error(path_ + ": cannot write: not a file name");
  if (named_descriptor(path_) >= 0) {
    open_straight(path_);
    return;
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {  // follows links
    if (S_ISDIR(st.st_mode)) throw Error(path_ + ": cannot write: is a directory");
    if (!S_ISREG(st.st_mode)) {  // a device, FIFO or socket: never replaced
      open_straight(path_);
      return;
    }
  } else if (errno != ENOENT) {
    const int err = errno;
    throw Error(path_ + ": cannot write: " + std::strerror(err));
  }
  // A regular file or a new name, maybe through links: replaced whole.
  const std::string target = final_target(path_);
  if (named_descriptor(target) >= 0) {
    open_straight(target);
  } else {
    open_temporary(target);
  }
}

void AtomicFile::open_straight(const std::string& target) {
  target_ = target;
  const int named = named_descriptor(target);
  if (named >= 0) {
    if (::fcntl(named, F_GETFD) < 0) {
      const int err = errno;
      throw Error(path_ + ": cannot write: " + std::strerror(err));
    }
    std::fflush(nullptr);  // what stdio holds for it goes first
    fd_ = named;
    own_fd_ = false;
    return;
  }
  fd_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) {
    const int err = errno;
    throw Error(path_ + ": cannot open for writing: " + std::strerror(err));
  }
}

void AtomicFile::open_temporary(const std::string& target) {
  target_ = target;
  tmp_ = temporary_name(target);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int err = errno;
    const std::string tmp = tmp_;
    tmp_.clear();  // nothing was created
    throw Error(path_ + ": cannot create " + tmp + ": " + std::strerror(err));
  }
  registry_slot_ = register_temporary(tmp_);
  // The replacement keeps the permissions of the file it replaces.
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    ::fchmod(fd_, st.st_mode & 07777);
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0 && own_fd_) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  unregister_temporary(registry_slot_);
  registry_slot_ = -1;
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
  if (tmp_.empty()) {  // written straight
    const int fd = fd_;
    fd_ = -1;
    if (own_fd_ && ::close(fd) != 0) fail("cannot finish writing", errno);
    committed_ = true;
    return;
  }
  // On disk before the rename, so that a crash never leaves an empty file.
  if (::fsync(fd_) != 0 && errno != EINVAL) fail("cannot finish writing", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot finish writing", errno);
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0)
    fail("cannot replace the file", errno);
  unregister_temporary(registry_slot_);
  registry_slot_ = -1;
  committed_ = true;
}

}  // namespace impl

void remove_temporaries_on_signals() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    // A handler the program installed, or an ignored signal (nohup), stays.
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = impl::remove_temporaries_and_reraise;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace libra::io
