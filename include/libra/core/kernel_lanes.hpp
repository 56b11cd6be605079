#pragma once
// Independent kernels launched side by side. A kernel that leaves most of a GPU
// idle (a bin of a few thousand short rows: tens of teams, each a chain of
// dependent loads) takes as long as one that fills it; a row of such launches
// on one stream adds their latencies up. ConcurrentKernels spreads them over
// instances with CUDA streams of their own, which first wait for what the
// caller's instance holds (fork) and which it waits for at the end (join),
// without a host synchronisation. Elsewhere every launch goes to the caller's
// instance, in order.
//
// Where no lanes can be made (a thread other than the one that initialised
// Kokkos 3.4, with none in the cache), the launches run one after another.
//
// The heaviest launch runs on the caller's instance, the others on lanes whose
// streams do not block (no implicit order with the legacy default stream,
// Kokkos 3.4's default instance's): the events alone order them. Lanes run
// parallel_for launches only: Kokkos 3.4 reads a scan's total back on the
// legacy stream without fencing the instance that ran it (cuda_stream_create).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "libra/core/exec_lanes.hpp"

namespace libra::impl {

// Instances of Exec on streams of their own, with an ordering event each and
// one for the fork. On spaces other than CUDA: copies of the caller's instance.
template <class Exec>
class KernelLanes {
 public:
  using exec_type = Exec;
  static constexpr int count = 4;

  // Kokkos 3.4 makes a CUDA instance only on the thread that initialised it
  // (elsewhere it throws; what was made is freed first).
  explicit KernelLanes(const Exec& exec) {
    for (auto& l : lane) l = exec;
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      try {
        for (int i = 0; i < count; ++i) {
          streams_[i] = cuda_stream_create(exec.cuda_device(), false);
          lane[i] = Kokkos::Cuda(static_cast<cudaStream_t>(streams_[i]));
          made_ = i + 1;
        }
        for (auto*& e : events_) e = cuda_order_event_create();
      } catch (...) {
        release();
        throw;
      }
    }
#endif
  }
  KernelLanes(const KernelLanes&) = delete;
  KernelLanes& operator=(const KernelLanes&) = delete;
  ~KernelLanes() {
    release();
  }
  // Nothing to wait for before another caller takes them: its kernels queue
  // behind these on the same streams, after its own fork.
  void settle() const noexcept {}

  // Lanes 0 .. lanes - 1 wait for the work `exec` holds now.
  void fork(const Exec& exec, int lanes) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      cuda_event_record_on(events_[count], exec.cuda_stream());
      for (int i = 0; i < lanes; ++i) cuda_stream_wait(streams_[i], events_[count]);
    }
#endif
    (void)exec;
    (void)lanes;
  }
  // `exec` waits for the work lanes 0 .. lanes - 1 hold now.
  void join(const Exec& exec, int lanes) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      for (int i = 0; i < lanes; ++i) {
        cuda_event_record_on(events_[i], streams_[i]);
        cuda_stream_wait(exec.cuda_stream(), events_[i]);
      }
    }
#endif
    (void)exec;
    (void)lanes;
  }

  Exec lane[count];

 private:
  void release() noexcept {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (is_cuda_space<Exec>) {
      for (int i = 0; i < made_; ++i) {
        try {
          lane[i].fence();
          lane[i] = Kokkos::Cuda();  // the instances refer to the streams: they go first
        } catch (...) {
        }
      }
      made_ = 0;
      for (void*& s : streams_) {
        cuda_stream_destroy(s);
        s = nullptr;
      }
      for (void*& e : events_) {
        cuda_event_destroy(e);
        e = nullptr;
      }
    }
#endif
  }
  int made_ = 0;  // lanes with instances of their own
  void* streams_[count] = {};
  void* events_[count + 1] = {};
};

// Launches with weights (their expected work; 0: no launch), listed heaviest
// first by order(), each given a lane so that the lanes' sums come out even
// (longest processing time first). With fewer than two launches, with
// `side_by_side` false, or off CUDA, every launch runs on the caller's instance
// and nothing forks.
template <class Exec>
class ConcurrentKernels {
 public:
  ConcurrentKernels(const Exec& exec, const std::vector<std::uint64_t>& weights,
                    bool side_by_side = true)
      : exec_(exec), lane_of_(weights.size(), -1) {
    for (std::size_t k = 0; k < weights.size(); ++k) {
      if (weights[k] > 0) order_.push_back(k);
    }
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return weights[a] > weights[b];
    });
    if (!is_cuda_space<Exec> || !side_by_side || order_.size() < 2) return;
    try {
      lease_.emplace(exec);
    } catch (...) {
      // No lanes to be had on this thread (KernelLanes): one after another.
      lease_.reset();
      return;
    }
    // Slot 0 is the caller's instance (the heaviest launch goes there: it needs
    // no fork), slots 1.. the lanes.
    std::uint64_t load[KernelLanes<Exec>::count + 1] = {};
    for (const std::size_t k : order_) {
      const int l = static_cast<int>(std::min_element(std::begin(load), std::end(load)) -
                                     std::begin(load));
      lane_of_[k] = l - 1;
      load[l] += weights[k];
      used_ = std::max(used_, l);
    }
    spread_ = used_ + 1;
    (**lease_).fork(exec_, used_);
  }
  ConcurrentKernels(const ConcurrentKernels&) = delete;
  ConcurrentKernels& operator=(const ConcurrentKernels&) = delete;
  ~ConcurrentKernels() {
    try {
      join();
    } catch (...) {
    }
  }

  // The launches (indices of the weights), heaviest first.
  const std::vector<std::size_t>& order() const { return order_; }
  // Where launch k runs.
  const Exec& at(std::size_t k) const {
    return lane_of_[k] < 0 ? exec_ : (**lease_).lane[lane_of_[k]];
  }
  // How many instances the launches were spread over, the caller's included
  // (0: the caller's instance only, nothing forked).
  int lanes() const { return spread_; }
  // The caller's instance waits for every launch (once; the destructor too).
  void join() {
    if (lease_ && used_ > 0) (**lease_).join(exec_, used_);
    used_ = 0;
  }

 private:
  Exec exec_;
  std::vector<int> lane_of_;
  std::vector<std::size_t> order_;
  int used_ = 0;    // lanes the join still has to wait for
  int spread_ = 0;  // lanes given launches
  std::optional<LanesLease<Exec, KernelLanes<Exec>>> lease_;
};

}  // namespace libra::impl
