#pragma once
// Loops whose iterations differ in cost, handed to a space's threads a chunk
// at a time as they finish (dynamic scheduling), written once for every kernel
// that needs it.
//
// Kokkos::Schedule<Kokkos::Dynamic> does this, but Kokkos 3.4's OpenMP backend
// pays for it with work-stealing queues. On the H100 machine's 16 host cores,
// an empty dynamic parallel_for took 190 us over 4 indices and 1.25 ms over
// 4,096; a static one took 4 us. The host SpGEMM's two dynamic loops were then
// most of a small product's time: lp_afiro took 0.65 ms with 16 threads and
// 0.07 ms with 2.
//
// Here, on host spaces with several threads, each thread takes chunks of its
// own contiguous share of the range by an atomic add on the share's counter,
// then helps with the others' shares the same way. Other spaces (Serial, and
// GPUs, where Kokkos ignores the schedule) run a plain RangePolicy.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "libra/core/launch_traits.hpp"

namespace libra::impl {

// f(i, args...), or f(Tag(), i, args...) for a work tag. Host code: only the
// chunk takers of host spaces call it (marked for the device as well, nvcc
// warned at every host-only functor it met).
template <class Tag, class F, class... Args>
inline void call_tagged(const F& f, const std::int64_t i, Args&... args) {
  if constexpr (std::is_void_v<Tag>) {
    f(i, args...);
  } else {
    f(Tag(), i, args...);
  }
}

// A worker's share of the range: [next, end), taken a chunk at a time by its
// owner and, once their own are done, by the other workers. A cache line each,
// so that owners do not contend.
struct alignas(64) RangeShare {
  std::atomic<std::int64_t> next{0};
  std::int64_t end = 0;
};

// The shares of [begin, end) for `workers` workers: contiguous and equal, so
// that each thread starts on neighbouring indices (neighbouring rows share rows
// of B and cache lines of C).
class RangeShares {
 public:
  RangeShares(std::int64_t begin, std::int64_t end, int workers)
      : shares_(new RangeShare[static_cast<std::size_t>(workers)]), workers_(workers) {
    const std::int64_t n = end - begin;
    for (int w = 0; w < workers; ++w) {
      shares_[w].next.store(begin + n * w / workers, std::memory_order_relaxed);
      shares_[w].end = begin + n * (w + 1) / workers;
    }
  }
  RangeShare* data() const { return shares_.get(); }
  int workers() const { return workers_; }

 private:
  std::unique_ptr<RangeShare[]> shares_;
  int workers_;
};

// Worker w: its own share first, then what is left of the others', a chunk at
// a time.
template <class Tag, class F, class Value>
struct ChunkTaker {
  using value_type = Value;
  F f;
  RangeShare* shares;
  int workers;
  std::int64_t chunk;

  template <class... Sum>
  void take(const int w, Sum&... sum) const {
    for (int k = 0; k < workers; ++k) {
      RangeShare& share = shares[(w + k) % workers];
      while (share.next.load(std::memory_order_relaxed) < share.end) {
        const std::int64_t b = share.next.fetch_add(chunk, std::memory_order_relaxed);
        if (b >= share.end) break;
        const std::int64_t e = std::min(share.end, b + chunk);
        for (std::int64_t i = b; i < e; ++i) call_tagged<Tag>(f, i, sum...);
      }
    }
  }
  void operator()(const int w) const { take(w); }
  void operator()(const int w, Value& sum) const { take(w, sum); }
};

// Whether dynamic_for and dynamic_reduce on exec hand out chunks of shares
// (host spaces with several threads) or run a plain range.
template <class Exec>
bool takes_chunks(const Exec& exec) {
  if constexpr (is_host_exec<Exec>) {
    return exec.concurrency() > 1;
  } else {
    (void)exec;
    return false;
  }
}

template <class Tag, class Exec>
using PlainRange =
    std::conditional_t<std::is_void_v<Tag>,
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>,
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>, Tag>>;

// Indices per chunk when a caller names none: about 16 takes per thread, so
// that uneven iterations still spread.
template <class Exec>
std::int64_t dynamic_chunk(const Exec& exec, std::int64_t n) {
  const std::int64_t workers = std::max(1, exec.concurrency());
  return std::max<std::int64_t>(1, n / (16 * workers));
}

// f(i) (f(Tag(), i) with a tag) for i in [begin, end), chunk indices at a time
// (0: dynamic_chunk). On host spaces with several threads it returns once
// every call has finished; elsewhere it is a parallel_for on exec.
template <class Tag = void, class Exec, class F>
void dynamic_for(const char* label, const Exec& exec, std::int64_t begin,
                 std::int64_t end, std::int64_t chunk, const F& f) {
  if (end <= begin) return;
  if constexpr (is_host_exec<Exec>) {
    if (takes_chunks(exec)) {
      const RangeShares shares(begin, end, exec.concurrency());
      const ChunkTaker<Tag, F, int> taker{
          f, shares.data(), shares.workers(),
          chunk > 0 ? chunk : dynamic_chunk(exec, end - begin)};
      // One worker per thread (a static partition of chunk 1).
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<int>> workers(exec, 0,
                                                                exec.concurrency());
      Kokkos::parallel_for(label, workers.set_chunk_size(1), taker);
      exec.fence();  // the shares live on this frame
      return;
    }
  }
  Kokkos::parallel_for(label, PlainRange<Tag, Exec>(exec, begin, end), f);
}

// The sum over i in [begin, end) of what f(i, sum) (f(Tag(), i, sum)) adds.
template <class Tag = void, class Exec, class F, class Value>
void dynamic_reduce(const char* label, const Exec& exec, std::int64_t begin,
                    std::int64_t end, std::int64_t chunk, const F& f, Value& result) {
  result = Value();
  if (end <= begin) return;
  if constexpr (is_host_exec<Exec>) {
    if (takes_chunks(exec)) {
      const RangeShares shares(begin, end, exec.concurrency());
      const ChunkTaker<Tag, F, Value> taker{
          f, shares.data(), shares.workers(),
          chunk > 0 ? chunk : dynamic_chunk(exec, end - begin)};
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<int>> workers(exec, 0,
                                                                exec.concurrency());
      Kokkos::parallel_reduce(label, workers.set_chunk_size(1), taker, result);
      return;
    }
  }
  Kokkos::parallel_reduce(label, PlainRange<Tag, Exec>(exec, begin, end), f, result);
}

}  // namespace libra::impl
