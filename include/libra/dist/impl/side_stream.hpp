#pragma once
// A second CUDA stream beside an execution space instance's, for NCCL moves that
// overlap the kernels: the side stream waits for events recorded on the
// instance's stream (a piece of the result is ready) and the instance waits for
// the side stream's last move. Raw CUDA (streams and events), because NCCL takes
// a cudaStream_t and no Kokkos instance has to run on this stream. Where the
// execution space is not Cuda, `available` is false and nothing else may be
// called.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "libra/core/error.hpp"

namespace libra::dist::impl {

template <class Exec>
class SideStream {
 public:
#if defined(KOKKOS_ENABLE_CUDA)
  static constexpr bool available = std::is_same_v<Exec, Kokkos::Cuda>;
#else
  static constexpr bool available = false;
#endif

  SideStream() = default;
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  ~SideStream() {
    release();
  }

  // A non-blocking stream (no implicit order with the legacy default stream)
  // of the device's highest priority, and two events, one for each direction.
  // The priority lets a move's NCCL kernel take the first multiprocessor that a
  // block of the products leaves, instead of waiting until every block of them
  // has started. One event serves every piece: a wait takes the work the event
  // captured when the wait was queued, so the next record does not change what
  // an earlier wait waits for.
  void open() {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (available) {
      int least = 0, greatest = 0;
      check(cudaDeviceGetStreamPriorityRange(&least, &greatest),
            "cudaDeviceGetStreamPriorityRange");
      check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest),
            "cudaStreamCreateWithPriority");
      for (auto* e : {&to_side_, &to_exec_}) {
        check(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreate");
      }
      return;
    }
#endif
    throw Error("libra::dist: a side stream needs the Cuda execution space");
  }

  void* stream() const {
    return stream_;
  }

  // The side stream runs what is queued next only after what `exec` holds now.
  void wait_for(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (available) {
      check(cudaEventRecord(to_side_, exec.cuda_stream()), "cudaEventRecord");
      check(cudaStreamWaitEvent(stream_, to_side_, 0), "cudaStreamWaitEvent");
    }
#endif
    (void)exec;
  }

  // `exec` runs what is queued next only after everything queued on the side.
  void join(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (available) {
      check(cudaEventRecord(to_exec_, stream_), "cudaEventRecord");
      check(cudaStreamWaitEvent(exec.cuda_stream(), to_exec_, 0), "cudaStreamWaitEvent");
    }
#endif
    (void)exec;
  }

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  static void check(cudaError_t rc, const char* what) {
    if (rc != cudaSuccess) {
      throw Error(std::string("libra::dist: ") + what + ": " + cudaGetErrorString(rc));
    }
  }
  cudaEvent_t to_side_ = nullptr, to_exec_ = nullptr;
  cudaStream_t stream_ = nullptr;
#else
  void* stream_ = nullptr;
#endif

  void release() noexcept {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (available) {
      if (to_side_) cudaEventDestroy(to_side_);
      if (to_exec_) cudaEventDestroy(to_exec_);
      if (stream_) cudaStreamDestroy(stream_);
    }
#endif
  }
};

}  // namespace libra::dist::impl
