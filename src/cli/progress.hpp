#pragma once
// Progress of a long step on stderr, for people watching a terminal:
//
//   reading big.mtx ... done after 3.4 s
//   spgemm [##########----------]  50%
//
// Nothing is printed when stderr is not a terminal, nor for a step that ends
// within the delay (1 s; the environment variable LIBRA_PROGRESS_DELAY sets
// another number of seconds). A background thread does the printing, so a
// step that is one blocking call (reading a file) is reported too.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

namespace libra::cli {

class Progress {
 public:
  explicit Progress(std::string what);
  ~Progress();  // finish()es, or reports "failed" when an exception unwinds it
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // For steps made of counted parts (chunks, iterations): switches the line to
  // a bar showing done / total.
  void update(std::uint64_t done, std::uint64_t total);

  // Ends the line with "done after X s" when anything was shown.
  void finish();

 private:
  enum class Line { running, done, failed };
  void end(bool failed);
  void watch();
  void draw(Line kind);

  std::string what_;
  int exceptions_at_start_ = std::uncaught_exceptions();
  std::chrono::steady_clock::time_point start_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::uint64_t> total_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool finished_ = false;
  bool shown_ = false;
  std::thread watcher_;
};

// Whether progress would be shown at all (stderr is a terminal).
bool progress_enabled();

}  // namespace libra::cli
