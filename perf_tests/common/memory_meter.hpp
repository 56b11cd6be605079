#pragma once
// The most memory a call allocated through Kokkos in one memory space, measured
// from outside with Kokkos Tools' allocation callbacks: how the benchmarks give
// Libra and Kokkos Kernels a peak-memory figure by the same rule. (cuSPARSE
// allocates with cudaMalloc; its wrapper reports its own peak.)
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace libra::bench {

class MemoryMeter {
 public:
  // Counts allocations in MemSpace from now on, relative to what is live now.
  template <class MemSpace>
  static MemoryMeter start() {
    MemoryMeter m;
    std::strncpy(space_, MemSpace::name(), sizeof space_ - 1);
    live_ = high_ = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(&on_alloc);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(&on_free);
    return m;
  }
  // Bytes above the starting point at the high-water mark; stops counting.
  std::uint64_t stop() const {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
    return static_cast<std::uint64_t>(high_);
  }

 private:
  static bool ours(const Kokkos_Profiling_SpaceHandle& h) {
    return std::strncmp(h.name, space_, sizeof space_) == 0;
  }
  static void on_alloc(Kokkos_Profiling_SpaceHandle h, const char*, const void*,
                       std::uint64_t size) {
    if (!ours(h)) return;
    live_ += static_cast<std::int64_t>(size);
    high_ = std::max(high_, live_);
  }
  static void on_free(Kokkos_Profiling_SpaceHandle h, const char*, const void*,
                      std::uint64_t size) {
    if (ours(h)) live_ -= static_cast<std::int64_t>(size);
  }
  static inline char space_[64] = {};
  static inline std::int64_t live_ = 0;
  static inline std::int64_t high_ = 0;
};

}  // namespace libra::bench
