#pragma once
// What running two execution spaces at once needs, in one place: a device's
// separate instances for compute, uploads and downloads (CUDA streams, so that
// copies overlap kernels), the host memory copies stage through (pinned on CUDA,
// so that copies are asynchronous), stopwatches for copies on those instances,
// and a second host thread for the side that is not OpenMP (Kokkos 3.4's OpenMP
// runs parallel regions only from the thread that initialised it).
#include <Kokkos_Core.hpp>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "libra/core/topology.hpp"

namespace libra::impl {

// Raw CUDA calls (src/core/cuda_streams.cpp), so that no header needs
// cuda_runtime.h. In builds without CUDA they throw.
// Blocking (ordered with the legacy default stream; src/core/cuda_streams.cpp
// says why that is the default) or not.
void* cuda_stream_create(int device, bool blocking = true);
void cuda_stream_destroy(void* stream) noexcept;
void cuda_set_device(int device);
void* cuda_event_record(void* stream);
// Seconds between two recorded events; waits for `end`.
double cuda_event_seconds(void* begin, void* end);
void cuda_event_destroy(void* event) noexcept;
void cuda_event_wait(void* event);
// An event for ordering only (no timing), recorded and waited for by the next two.
void* cuda_order_event_create();
void cuda_event_record_on(void* event, void* stream);
// `waiter` runs what is queued on it next only after the work `event` recorded.
void cuda_stream_wait(void* waiter, void* event);

// Lets the calling thread run on any CPU the process may use
// (src/core/thread_binding.cpp). A std::thread inherits its creator's binding,
// and with OMP_PROC_BIND the thread that starts OpenMP is bound to one core:
// Libra's helper threads (the device side, the copier and its copy threads)
// would share that core with it.
void unbind_this_thread() noexcept;

template <class Exec>
inline constexpr bool is_cuda_space = false;
#if defined(KOKKOS_ENABLE_CUDA)
template <>
inline constexpr bool is_cuda_space<Kokkos::Cuda> = true;
#endif

// The CUDA device an execution space runs on (0 for any other space).
template <class Exec>
int cuda_device_of(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (is_cuda_space<Exec>) return exec.cuda_device();
#endif
  (void)exec;
  return 0;
}

// Readies a thread Libra started to feed Exec: on CUDA, bound near the GPU
// (its NUMA domain, core/topology.hpp) with the GPU made current; elsewhere free
// to run on any core the process may use (unbind_this_thread).
template <class Exec>
void become_feeding_thread(int cuda_device) {
  if constexpr (is_cuda_space<Exec>) {
    bind_calling_thread_near_gpu(cuda_device);
    cuda_set_device(cuda_device);
  } else {
    (void)cuda_device;
    unbind_this_thread();
  }
}

// Host memory that copies to and from Exec's memory go through.
template <class Exec>
struct StagingSpaceOf {
  using type = Kokkos::HostSpace;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct StagingSpaceOf<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif
template <class Exec>
using StagingSpace = typename StagingSpaceOf<Exec>::type;

// Three instances of Exec: kernels on `compute`, host-to-device copies on `up`,
// device-to-host copies on `down`. On CUDA each has a stream of its own, created
// here and destroyed with the lanes; other spaces get copies of `exec` (their
// copies are synchronous anyway).
template <class Exec>
class DeviceLanes {
 public:
  using exec_type = Exec;
  explicit DeviceLanes(const Exec& exec) : compute(exec), up(exec), down(exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      for (auto*& s : streams_) s = cuda_stream_create(exec.cuda_device());
      compute = Kokkos::Cuda(static_cast<cudaStream_t>(streams_[0]));
      up = Kokkos::Cuda(static_cast<cudaStream_t>(streams_[1]));
      down = Kokkos::Cuda(static_cast<cudaStream_t>(streams_[2]));
    }
#endif
  }
  DeviceLanes(const DeviceLanes&) = delete;
  DeviceLanes& operator=(const DeviceLanes&) = delete;
  ~DeviceLanes() {
    fence_all();
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      // The instances refer to the streams: they go first.
      compute = up = down = Kokkos::Cuda();
      for (void* s : streams_) cuda_stream_destroy(s);
    }
#endif
  }
  // Before the cache hands them to another caller: their copies are done.
  void settle() const noexcept {
    fence_all();
  }
  void fence_all() const noexcept {
    try {
      compute.fence();
      up.fence();
      down.fence();
    } catch (...) {
    }
  }

  Exec compute, up, down;

 private:
  void* streams_[3] = {nullptr, nullptr, nullptr};
};

// Lanes kept between calls: CUDA streams and their Kokkos instances cost
// milliseconds to make and to free (each instance allocates and frees its own
// scratch, and a cudaFree synchronises the device). A lease takes a set (or
// makes one) and gives it back; the cache frees them before Kokkos finalizes.
// Lanes: DeviceLanes or KernelLanes (kernel_lanes.hpp), made from an Exec and
// settled (settle()) before another caller may take them.
template <class Lanes>
class LanesCache {
 public:
  using Exec = typename Lanes::exec_type;
  static LanesCache& instance() {
    static LanesCache* cache = new LanesCache;  // outlives static destruction order
    return *cache;
  }
  std::unique_ptr<Lanes> take(const Exec& exec) {
    const int id = device_of(exec);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!hooked_) {
        Kokkos::push_finalize_hook([this] {
          std::lock_guard<std::mutex> l(mutex_);
          free_.clear();
          hooked_ = false;
        });
        hooked_ = true;
      }
      for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (it->first == id) {
          auto lanes = std::move(it->second);
          free_.erase(it);
          return lanes;
        }
      }
    }
    return std::make_unique<Lanes>(exec);
  }
  void give(const Exec& exec, std::unique_ptr<Lanes> lanes) {
    lanes->settle();
    std::lock_guard<std::mutex> lock(mutex_);
    free_.emplace_back(device_of(exec), std::move(lanes));
  }

 private:
  static int device_of(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) return exec.cuda_device();
#endif
    (void)exec;
    return 0;
  }
  std::mutex mutex_;
  bool hooked_ = false;
  std::vector<std::pair<int, std::unique_ptr<Lanes>>> free_;
};

// Lanes on CUDA come from the cache; elsewhere they are made for the lease.
template <class Exec, class Lanes = DeviceLanes<Exec>>
class LanesLease {
 public:
  explicit LanesLease(const Exec& exec) : exec_(exec) {
    if constexpr (is_cuda_space<Exec>) {
      lanes_ = LanesCache<Lanes>::instance().take(exec);
    } else {
      lanes_ = std::make_unique<Lanes>(exec);
    }
  }
  LanesLease(const LanesLease&) = delete;
  LanesLease& operator=(const LanesLease&) = delete;
  ~LanesLease() {
    if constexpr (is_cuda_space<Exec>) {
      try {
        LanesCache<Lanes>::instance().give(exec_, std::move(lanes_));
      } catch (...) {
      }
    }
  }
  Lanes& operator*() const { return *lanes_; }

 private:
  Exec exec_;
  std::unique_ptr<Lanes> lanes_;
};

// Total seconds the copies between begin() and end() took on their instance:
// CUDA events on a CUDA instance (the copies are asynchronous), the host clock
// elsewhere (they are not).
template <class Exec>
class CopyClock {
 public:
  void begin(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      open_ = cuda_event_record(exec.cuda_stream());
      return;
    }
#endif
    (void)exec;
    timer_.reset();
  }
  void end(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      pairs_.emplace_back(open_, cuda_event_record(exec.cuda_stream()));
      open_ = nullptr;
      return;
    }
#endif
    exec.fence();
    seconds_ += timer_.seconds();
  }
  // Waits for the recorded copies.
  double seconds() {
    for (auto& p : pairs_) {
      seconds_ += cuda_event_seconds(p.first, p.second);
      cuda_event_destroy(p.first);
      cuda_event_destroy(p.second);
    }
    pairs_.clear();
    return seconds_;
  }
  ~CopyClock() {
    for (auto& p : pairs_) {
      cuda_event_destroy(p.first);
      cuda_event_destroy(p.second);
    }
    if (open_) cuda_event_destroy(open_);
  }

 private:
  Kokkos::Timer timer_;
  double seconds_ = 0;
  void* open_ = nullptr;
  std::vector<std::pair<void*, void*>> pairs_;
};

// Marks the point on an instance after the copies enqueued so far, so that
// another thread can wait for them (a CUDA event; nothing where copies are
// synchronous).
template <class Exec>
class CopyMark {
 public:
  CopyMark() = default;
  explicit CopyMark(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) event_ = cuda_event_record(exec.cuda_stream());
#endif
    (void)exec;
  }
  CopyMark(CopyMark&& o) noexcept : event_(o.event_) {
    o.event_ = nullptr;
  }
  CopyMark& operator=(CopyMark&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  CopyMark(const CopyMark&) = delete;
  CopyMark& operator=(const CopyMark&) = delete;
  ~CopyMark() {
    cuda_event_destroy(event_);
  }
  void wait() const {
    if (event_) cuda_event_wait(event_);
  }

 private:
  void* event_ = nullptr;
};

// Whether Exec's parallel regions must be launched from the thread that
// initialised Kokkos (OpenMP's do).
template <class Exec>
inline constexpr bool needs_initial_thread = false;
#if defined(KOKKOS_ENABLE_OPENMP)
template <>
inline constexpr bool needs_initial_thread<Kokkos::OpenMP> = true;
#endif

// Runs first() and second() at the same time, first() on this thread, second()
// on a new one, and rethrows the first exception either threw once both ended.
// A CUDA space used on the new thread gets its device made current there.
template <class SecondExec, class First, class Second>
void run_side_by_side(const SecondExec& second_exec, First&& first, Second&& second) {
  std::exception_ptr second_error;
  std::thread worker([&] {
    try {
      become_feeding_thread<SecondExec>(cuda_device_of(second_exec));
      second();
    } catch (...) {
      second_error = std::current_exception();
    }
  });
  std::exception_ptr first_error;
  try {
    first();
  } catch (...) {
    first_error = std::current_exception();
  }
  worker.join();
  (void)second_exec;
  if (first_error) std::rethrow_exception(first_error);
  if (second_error) std::rethrow_exception(second_error);
}

}  // namespace libra::impl
