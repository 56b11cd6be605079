// The few raw CUDA runtime calls behind core/exec_lanes.hpp.
#include <string>

#include "libra/core/error.hpp"
#include "libra/core/exec_lanes.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace libra::impl {

#if defined(KOKKOS_ENABLE_CUDA)
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw Error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}
}  // namespace

void* cuda_stream_create(int device, bool blocking) {
  check(cudaSetDevice(device), "cudaSetDevice");
  // Blocking streams (ordered with the legacy default stream) unless asked:
  // Kokkos 3.4 reads a parallel_scan's total back with a plain cudaMemcpy, on
  // the legacy stream, without fencing the instance that ran the scan; only a
  // blocking stream's kernels finish before that copy.
  cudaStream_t s = nullptr;
  check(
      cudaStreamCreateWithFlags(&s, blocking ? cudaStreamDefault : cudaStreamNonBlocking),
      "cudaStreamCreate");
  return s;
}
void cuda_stream_destroy(void* stream) noexcept {
  if (stream) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}
void cuda_set_device(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
}
void* cuda_event_record(void* stream) {
  // Blocking sync: a thread waiting on it sleeps instead of spinning on a core
  // the host side's OpenMP threads need.
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventBlockingSync), "cudaEventCreate");
  check(cudaEventRecord(e, static_cast<cudaStream_t>(stream)), "cudaEventRecord");
  return e;
}
double cuda_event_seconds(void* begin, void* end) {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(end)), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(begin),
                             static_cast<cudaEvent_t>(end)),
        "cudaEventElapsedTime");
  return ms / 1e3;
}
void cuda_event_destroy(void* event) noexcept {
  if (event) cudaEventDestroy(static_cast<cudaEvent_t>(event));
}
void cuda_event_wait(void* event) {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize");
}
void* cuda_order_event_create() {
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  return e;
}
void cuda_event_record_on(void* event, void* stream) {
  check(
      cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)),
      "cudaEventRecord");
}
void cuda_stream_wait(void* waiter, void* event) {
  check(cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter),
                            static_cast<cudaEvent_t>(event), 0),
        "cudaStreamWaitEvent");
}
#else
namespace {
[[noreturn]] void no_cuda() {
  throw Error("this build of Libra has no CUDA");
}
}  // namespace
void* cuda_stream_create(int, bool) {
  no_cuda();
}
void cuda_stream_destroy(void*) noexcept {}
void cuda_set_device(int) {
  no_cuda();
}
void* cuda_event_record(void*) {
  no_cuda();
}
double cuda_event_seconds(void*, void*) {
  no_cuda();
}
void cuda_event_destroy(void*) noexcept {}
void cuda_event_wait(void*) {
  no_cuda();
}
void* cuda_order_event_create() {
  no_cuda();
}
void cuda_event_record_on(void*, void*) {
  no_cuda();
}
void cuda_stream_wait(void*, void*) {
  no_cuda();
}
#endif

}  // namespace libra::impl
