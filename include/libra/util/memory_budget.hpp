#pragma once
// How much memory an algorithm may take when the caller does not say.
#include <Kokkos_Core.hpp>
#include <cstddef>

#include "libra/core/spaces.hpp"

namespace libra {

// Free bytes in the memory space of Exec right now: cudaMemGetInfo on a CUDA
// device, MemAvailable from /proc/meminfo on the host. A reading is reused for
// 0.1 s (reading /proc/meminfo costs about as much as a small product).
std::size_t free_memory_bytes(bool device_is_cuda, int cuda_device);

// The default working-set budget: a quarter of what is free. The rest must hold
// C itself, which is not known before the symbolic phase (R-MAT scale 19 on an
// 80 GB H100: C takes 42 GB), and leave room for other users of the device.
template <class Exec>
std::size_t default_memory_budget(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    return free_memory_bytes(true, exec.cuda_device()) / 4;
  }
#endif
  (void)exec;
  return free_memory_bytes(false, 0) / 4;
}

}  // namespace libra
