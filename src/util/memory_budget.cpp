#include "libra/util/memory_budget.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

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

namespace {
// The last reading of a space, reused for a tenth of a second: reading
// /proc/meminfo costs about 17 us, as much as a small product on two cores.
struct Reading {
  std::chrono::steady_clock::time_point when;
  std::size_t bytes = 0;
  bool valid = false;
};
std::mutex readings_mutex;
std::map<int, Reading> readings;  // by CUDA device; -1: the host

std::size_t read_free_bytes(bool device_is_cuda, int cuda_device);
}  // namespace

std::size_t free_memory_bytes(bool device_is_cuda, int cuda_device) {
  const int key = device_is_cuda ? cuda_device : -1;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(readings_mutex);
    const Reading& r = readings[key];
    if (r.valid && now - r.when < std::chrono::milliseconds(100)) return r.bytes;
  }
  const std::size_t bytes = read_free_bytes(device_is_cuda, cuda_device);
  std::lock_guard<std::mutex> lock(readings_mutex);
  readings[key] = Reading{now, bytes, true};
  return bytes;
}

namespace {
std::size_t read_free_bytes(bool device_is_cuda, int cuda_device) {
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
}  // namespace

}  // namespace libra
