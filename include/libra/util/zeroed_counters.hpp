#pragma once
// Counters that kernels add into and the host reads once, with neither a launch
// to zero them first nor a copy to read them back.
//
// A short call on a GPU (the small SpGEMM path: a few microseconds per kernel)
// paid for both: a fill kernel to zero its tallies before the count, and a
// device-to-host copy into fresh pageable memory to read them. Here the device
// array is zero whenever it is idle: the kernel that ends the pass (its last
// thread, after every addition is in) copies each counter into `out` and sets
// it back to zero (hand_over). `out` is host memory the device can write
// (pinned on CUDA), so the host only waits for its stream and reads it.
//
// The arrays live in a lease (exec_lanes.hpp's cache on CUDA: a pinned
// allocation costs far more than the call), and only one caller holds them at a
// time. A caller that stops between adding and handing over (an exception)
// leaves them dirty; the next lease zeroes them before use.
#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <string>

#include "libra/core/exec_lanes.hpp"
#include "libra/core/spaces.hpp"

namespace libra::impl {

template <class Exec, int N>
class ZeroedCounters {
 public:
  using exec_type = Exec;
  using mem = typename Exec::memory_space;
  static constexpr int size = N;

  explicit ZeroedCounters(const Exec&)
      : device("libra::zeroed_counters", N),
        out(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                               std::string("libra::zeroed_counters::out")),
            N) {}
  // The cache's hand-back: nothing to wait for (read() waited).
  void settle() const noexcept {}

  // Before kernels add into `device`: zeroes it if an earlier caller left it
  // dirty (after every stream's work: that caller's kernels may still run).
  void prepare(const Exec& exec) {
    if (dirty_) {
      Kokkos::fence();
      Kokkos::deep_copy(exec, device, atomic_u64(0));
      exec.fence();
    }
    dirty_ = true;
  }
  // After a kernel handed the counters over on `exec`: waits for it, reads them.
  std::array<std::uint64_t, N> read(const Exec& exec) {
    exec.fence();
    std::array<std::uint64_t, N> v{};
    for (int k = 0; k < N; ++k) v[k] = out(k);
    dirty_ = false;
    return v;
  }

  Kokkos::View<atomic_u64*, mem> device;                 // 0 between passes
  Kokkos::View<std::uint64_t*, StagingSpace<Exec>> out;  // written by the device

 private:
  bool dirty_ = false;
};

// Called by the one thread that ends a pass, after every addition: the counters
// into `out`, and `device` back to zero. (Read as volatile: in a launch whose
// last team ends the pass, other teams' additions are not in its cache.)
template <class Device, class Out>
KOKKOS_INLINE_FUNCTION void hand_over(const Device& device, const Out& out) {
  for (std::size_t k = 0; k < device.extent(0); ++k) {
    volatile atomic_u64* c = &device(k);
    out(k) = static_cast<std::uint64_t>(*c);
    *c = 0;
  }
}

}  // namespace libra::impl
