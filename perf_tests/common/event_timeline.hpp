#pragma once
// Where a short call's wall time goes on the host, event by event: Kokkos Tools'
// callbacks for kernels, deep copies, fences, allocations and frees record a
// host timestamp each, with no fence added, so the gaps between launches
// (allocation, host work, synchronisation) show as they are in an untimed call.
// Meant for calls of well under a millisecond (the small-product path), where
// KernelTimer's fences would cost more than the call. On CUDA each event also
// records a CUDA event on the default instance's stream, so a second column
// tells when the device reached that point (a kernel's end is its "returned"
// line there). LIBRA_BENCH_TIMELINE=1 makes bench_spgemm print one such
// timeline per case on stderr.
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernel_timer.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace libra::bench {

class EventTimeline {
 public:
  static void start() {
    events().clear();
    events().reserve(4096);
#if defined(KOKKOS_ENABLE_CUDA)
    if (gpu_events().empty()) {
      gpu_events().resize(1024);
      for (auto& e : gpu_events()) cudaEventCreate(&e);
    }
#endif
    origin() = Clock::now();
    using namespace Kokkos::Tools::Experimental;
    set_begin_parallel_for_callback(&begin_kernel);
    set_begin_parallel_reduce_callback(&begin_kernel);
    set_begin_parallel_scan_callback(&begin_kernel);
    set_end_parallel_for_callback(&end_kernel);
    set_end_parallel_reduce_callback(&end_kernel);
    set_end_parallel_scan_callback(&end_kernel);
    set_begin_fence_callback(&begin_fence);
    set_end_fence_callback(&end_kernel);
    set_begin_deep_copy_callback(&begin_copy);
    set_end_deep_copy_callback(&end_copy);
    set_allocate_data_callback(&allocate);
    set_deallocate_data_callback(&deallocate);
  }
  static void stop() {
    using namespace Kokkos::Tools::Experimental;
    KernelTimer::stop();  // the kernels' callbacks
    set_begin_fence_callback(nullptr);
    set_end_fence_callback(nullptr);
    set_begin_deep_copy_callback(nullptr);
    set_end_deep_copy_callback(nullptr);
    set_allocate_data_callback(nullptr);
    set_deallocate_data_callback(nullptr);
  }
  // One line per event: microseconds since start(), the gap since the previous
  // event, and what happened.
  static void print(const std::string& title, double wall_seconds) {
    std::fprintf(stderr, "timeline: %s: %.1f us wall, %zu events (host us, device us)\n",
                 title.c_str(), wall_seconds * 1e6, events().size());
    double last = 0;
    for (std::size_t k = 0; k < events().size(); ++k) {
      const auto& e = events()[k];
      double device = -1;
#if defined(KOKKOS_ENABLE_CUDA)
      if (k < gpu_events().size()) {
        float ms = 0;
        cudaEventSynchronize(gpu_events()[k]);
        if (cudaEventElapsedTime(&ms, gpu_events()[0], gpu_events()[k]) == cudaSuccess)
          device = ms * 1e3;
      }
#endif
      std::fprintf(stderr, "  %8.1f us (+%6.1f) %8.1f  %s\n", e.micros, e.micros - last,
                   device, e.what.c_str());
      last = e.micros;
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Event {
    double micros;
    std::string what;
  };
  static std::vector<Event>& events() {
    static std::vector<Event> e;
    return e;
  }
#if defined(KOKKOS_ENABLE_CUDA)
  static std::vector<cudaEvent_t>& gpu_events() {
    static std::vector<cudaEvent_t> e;
    return e;
  }
#endif
  static Clock::time_point& origin() {
    static Clock::time_point t;
    return t;
  }
  static void record(std::string what) {
    const double us =
        std::chrono::duration<double, std::micro>(Clock::now() - origin()).count();
#if defined(KOKKOS_ENABLE_CUDA)
    if (events().size() < gpu_events().size())
      cudaEventRecord(gpu_events()[events().size()], Kokkos::Cuda().cuda_stream());
#endif
    events().push_back({us, std::move(what)});
  }
  static void begin_kernel(const char* name, std::uint32_t, std::uint64_t* id) {
    *id = 0;
    record(std::string("launch ") + name);
  }
  static void begin_fence(const char* name, std::uint32_t, std::uint64_t* id) {
    *id = 1;
    record(std::string("fence ") + name);
  }
  static void end_kernel(std::uint64_t id) {
    record(id == 1 ? "  fence done" : "  returned");
  }
  static void begin_copy(Kokkos::Tools::SpaceHandle, const char* dst, const void*,
                         Kokkos::Tools::SpaceHandle, const char* src, const void*,
                         std::uint64_t bytes) {
    record("copy " + std::string(src) + " -> " + dst + " " + std::to_string(bytes) +
           " B");
  }
  static void end_copy() {
    record("  copy done");
  }
  static void allocate(Kokkos::Tools::SpaceHandle space, const char* label, const void*,
                       std::uint64_t bytes) {
    record("allocated " + std::string(space.name) + " " + label + " " +
           std::to_string(bytes) + " B");
  }
  static void deallocate(Kokkos::Tools::SpaceHandle space, const char* label, const void*,
                         std::uint64_t bytes) {
    record("freeing " + std::string(space.name) + " " + label + " " +
           std::to_string(bytes) + " B");
  }
};

}  // namespace libra::bench
