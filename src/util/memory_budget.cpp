#include "libra/util/memory_budget.hpp"

#include <cstdio>
#include <cstring>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace libra {

namespace {
std::size_t host_available_bytes() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return std::size_t(1) << 32;  // no /proc: assume 4 GiB, a safe guess
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib ? static_cast<std::size_t>(kib) * 1024 : std::size_t(1) << 32;
}
}  // namespace

std::size_t free_memory_bytes(bool device_is_cuda, int cuda_device) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (device_is_cuda) {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(cuda_device);
    std::size_t free = 0, total = 0;
    const cudaError_t rc = cudaMemGetInfo(&free, &total);
    cudaSetDevice(previous);
    if (rc == cudaSuccess) return free;
    return std::size_t(1) << 30;  // cannot ask: assume 1 GiB rather than fail
  }
#else
  (void)device_is_cuda;
  (void)cuda_device;
#endif
  return host_available_bytes();
}

}  // namespace libra
