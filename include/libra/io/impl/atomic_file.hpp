#pragma once
// All-or-nothing file output for the writers: the bytes go to a temporary file
// beside the target, which commit() flushes and renames over it. A reader never
// sees a half-written matrix, and a failed write leaves nothing behind.
#include <string>
#include <string_view>

namespace libra::io::impl {

class AtomicFile {
 public:
  // Creates the temporary ".<name>.tmp.<pid>.<n>" in the target's directory.
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  void commit();  // close and rename over the target
  const std::string& temporary_path() const { return tmp_; }

 private:
  [[noreturn]] void fail(const std::string& action, int err);
  void discard() noexcept;

  std::string path_;
  std::string tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace libra::io::impl
