#pragma once
// Where a call's time goes, kernel by kernel: Kokkos Tools' begin/end callbacks
// of parallel_for/reduce/scan and deep_copy, with a fence at each end, summed per
// label. The fences serialise the call, so the total is above an untimed run's;
// the share per kernel and the time outside kernels (allocation, host work,
// synchronisation) are what it is for. LIBRA_BENCH_KERNEL_TIMES=1 makes
// bench_spgemm print one such breakdown per case on stderr.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace libra::bench {

class KernelTimer {
 public:
  static void start() {
    entries().clear();
    stack().clear();
    using namespace Kokkos::Tools::Experimental;
    set_begin_parallel_for_callback(&begin);
    set_begin_parallel_reduce_callback(&begin);
    set_begin_parallel_scan_callback(&begin);
    set_end_parallel_for_callback(&end);
    set_end_parallel_reduce_callback(&end);
    set_end_parallel_scan_callback(&end);
  }
  static void stop() {
    using namespace Kokkos::Tools::Experimental;
    set_begin_parallel_for_callback(nullptr);
    set_begin_parallel_reduce_callback(nullptr);
    set_begin_parallel_scan_callback(nullptr);
    set_end_parallel_for_callback(nullptr);
    set_end_parallel_reduce_callback(nullptr);
    set_end_parallel_scan_callback(nullptr);
  }
  // Prints "seconds count label" lines, longest first, and the total.
  static void print(const std::string& title, double wall_seconds) {
    std::vector<std::pair<std::string, Entry>> rows(entries().begin(), entries().end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.second.seconds > b.second.seconds;
    });
    double in_kernels = 0;
    for (const auto& r : rows) in_kernels += r.second.seconds;
    std::fprintf(stderr, "kernel times: %s: %.3f ms wall, %.3f ms in %zu kernels\n",
                 title.c_str(), wall_seconds * 1e3, in_kernels * 1e3, rows.size());
    for (const auto& r : rows) {
      std::fprintf(stderr, "  %9.3f ms %5d  %s\n", r.second.seconds * 1e3, r.second.count,
                   r.first.c_str());
    }
  }

 private:
  struct Entry {
    double seconds = 0;
    int count = 0;
  };
  using Clock = std::chrono::steady_clock;
  static std::map<std::string, Entry>& entries() {
    static std::map<std::string, Entry> e;
    return e;
  }
  static std::vector<std::pair<std::string, Clock::time_point>>& stack() {
    static std::vector<std::pair<std::string, Clock::time_point>> s;
    return s;
  }
  static void begin(const char* name, std::uint32_t, std::uint64_t* id) {
    Kokkos::fence();
    *id = stack().size();
    stack().emplace_back(name, Clock::now());
  }
  static void end(std::uint64_t id) {
    Kokkos::fence();
    if (id >= stack().size()) return;
    const auto& [name, t0] = stack()[id];
    auto& e = entries()[name];
    e.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    ++e.count;
    stack().resize(id);
  }
};

}  // namespace libra::bench
