#pragma once
// How much memory an algorithm may take when the caller does not say.
#include <Kokkos_Core.hpp>
#include <cstddef>

#include "libra/core/spaces.hpp"

namespace libra {

// Free bytes in the memory space of Exec right now: cudaMemGetInfo on a CUDA
// device, MemAvailable from /proc/meminfo on the host.
std::size_t free_memory_bytes(bool device_is_cuda, int cuda_device);

// The default working-set budget: 40% of what is free, leaving room for the
// result and for other users of the device.
template <class Exec>
std::size_t default_memory_budget(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    return free_memory_bytes(true, exec.cuda_device()) / 10 * 4;
  }
#endif
  (void)exec;
  return free_memory_bytes(false, 0) / 10 * 4;
}

}  // namespace libra
