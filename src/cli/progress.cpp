#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace libra::cli {

namespace {

std::chrono::milliseconds delay() {
  if (const char* env = std::getenv("LIBRA_PROGRESS_DELAY")) {
    char* end = nullptr;
    const double seconds = std::strtod(env, &end);
    if (end != env && seconds >= 0) {
      return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
    }
  }
  return std::chrono::seconds(1);
}

constexpr auto redraw_every = std::chrono::milliseconds(200);
constexpr int bar_width = 20;

}  // namespace

bool progress_enabled() {
  return isatty(STDERR_FILENO) == 1;
}

Progress::Progress(std::string what)
    : what_(std::move(what)), start_(std::chrono::steady_clock::now()) {
  if (progress_enabled()) watcher_ = std::thread([this] { watch(); });
}

Progress::~Progress() {
  end(std::uncaught_exceptions() > exceptions_at_start_);
}

void Progress::update(std::uint64_t done, std::uint64_t total) {
  total_.store(total, std::memory_order_relaxed);
  done_.store(done, std::memory_order_relaxed);
}

void Progress::finish() {
  end(false);
}

void Progress::end(bool failed) {
  if (!watcher_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  wake_.notify_one();
  watcher_.join();
  if (shown_) draw(failed ? Line::failed : Line::done);
}

void Progress::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  // A zero delay shows every step, however soon it ends (LIBRA_PROGRESS_DELAY=0).
  const auto wait = delay();
  if (wait.count() > 0 && wake_.wait_for(lock, wait, [this] { return finished_; }))
    return;
  shown_ = true;
  while (!finished_) {
    draw(Line::running);
    wake_.wait_for(lock, redraw_every, [this] { return finished_; });
  }
}

// The whole line is rewritten each time (\r, then clear to its end).
void Progress::draw(Line kind) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::uint64_t total = total_.load(std::memory_order_relaxed);
  std::string line = "\r" + what_;
  char buffer[64];
  if (kind != Line::running) {
    std::snprintf(buffer, sizeof buffer, " ... %s after %.1f s\033[K\n",
                  kind == Line::done ? "done" : "failed", seconds);
    line += buffer;
  } else if (total > 0) {
    const std::uint64_t done = std::min(done_.load(std::memory_order_relaxed), total);
    const int filled = static_cast<int>(bar_width * done / total);
    line += " [" + std::string(filled, '#') + std::string(bar_width - filled, '-') + "] ";
    std::snprintf(buffer, sizeof buffer, "%3d%%\033[K",
                  static_cast<int>(100 * done / total));
    line += buffer;
  } else {
    std::snprintf(buffer, sizeof buffer, " ... %.0f s\033[K", seconds);
    line += buffer;
  }
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace libra::cli
