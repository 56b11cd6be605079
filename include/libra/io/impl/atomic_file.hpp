#pragma once
// The output of the writers (libra::io::OutputFile), opened before the matrix
// is computed so that an unwritable path fails first:
//  - a regular file or a new name: the bytes go to a temporary file beside it,
//    which commit() flushes and renames over it; a reader never sees a
//    half-written matrix, and a failed write leaves nothing behind;
//  - a symbolic link (or a chain of them): the same beside the final target,
//    which is replaced while the links stay links; a dangling link creates it;
//  - "-" and /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the open
//    descriptor, written straight;
//  - anything else that is not a regular file (a character device, a FIFO, a
//    socket, also reached through links): opened and written straight, as
//    renaming a file over it would replace it;
//  - a directory: an error.
// Write errors (ENOSPC, EPIPE, ...) throw libra::Error naming the path.
#include <string>
#include <string_view>

namespace libra::io::impl {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  void commit();  // finish: rename the temporary over the target, or close
  const std::string& path() const { return path_; }
  // The temporary file; empty when the output is written straight.
  const std::string& temporary_path() const { return tmp_; }
  bool written_straight() const { return tmp_.empty(); }

 private:
  [[noreturn]] void fail(const std::string& action, int err);
  void discard() noexcept;
  void open_straight(const std::string& target);
  void open_temporary(const std::string& target);

  std::string path_;    // as given
  std::string target_;  // the file replaced at commit (the links' final target)
  std::string tmp_;
  int fd_ = -1;
  bool own_fd_ = true;  // false for "-" and /dev/stdout: not closed
  int registry_slot_ = -1;
  bool committed_ = false;
};

// Removes every temporary file an AtomicFile has open. Async-signal-safe.
void remove_temporaries() noexcept;

}  // namespace libra::io::impl
