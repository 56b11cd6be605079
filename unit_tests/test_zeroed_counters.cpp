// Counters kept at zero between passes (util/zeroed_counters.hpp): a pass's
// additions reach the host through hand_over and the device array is zero again
// after it; a pass left without its hand-over (a caller stopped by an exception)
// is zeroed by the next prepare(), so its additions never reach a later pass.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "libra/core/exec_lanes.hpp"
#include "libra/util/zeroed_counters.hpp"
#include "support/test_space.hpp"

namespace zeroed_counters_test {

using libra::impl::atomic_u64;
using libra::test::Exec;
using Counters = libra::impl::ZeroedCounters<Exec, 3>;

// Each of n threads adds 1 into counter 0, i into counter 1 and k + 1 into
// counter 2 (k: the pass's number, so that passes differ).
void add(const Exec& exec, Counters& c, int n, int k) {
  auto d = c.device;
  Kokkos::parallel_for(
      "test::zeroed_counters::add", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const int i) {
        Kokkos::atomic_add(&d(0), atomic_u64(1));
        Kokkos::atomic_add(&d(1), static_cast<atomic_u64>(i));
        Kokkos::atomic_add(&d(2), static_cast<atomic_u64>(k + 1));
      });
}

// The hand-over, by one thread of a kernel on exec.
void hand_over(const Exec& exec, Counters& c) {
  auto d = c.device;
  auto out = c.out;
  Kokkos::parallel_for(
      "test::zeroed_counters::hand_over", Kokkos::RangePolicy<Exec>(exec, 0, 1),
      KOKKOS_LAMBDA(const int) { libra::impl::hand_over(d, out); });
}

std::array<std::uint64_t, 3> expected(std::uint64_t n, int k) {
  return {n, n * (n - 1) / 2, n * static_cast<std::uint64_t>(k + 1)};
}

std::array<std::uint64_t, 3> on_device(const Counters& c) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.device);
  return {h(0), h(1), h(2)};
}

TEST(ZeroedCounters, HandOverReadsTheSumsAndZeroesTheDevice) {
  const Exec exec;
  Counters c(exec);
  EXPECT_EQ(on_device(c), (std::array<std::uint64_t, 3>{0, 0, 0}));
  for (int k = 0; k < 3; ++k) {  // passes one after another on the same arrays
    const int n = 1000 * (k + 1);
    c.prepare(exec);
    add(exec, c, n, k);
    hand_over(exec, c);
    EXPECT_EQ(c.read(exec), expected(n, k)) << "pass " << k;
    EXPECT_EQ(on_device(c), (std::array<std::uint64_t, 3>{0, 0, 0})) << "pass " << k;
  }
}

TEST(ZeroedCounters, APassWithoutItsHandOverIsZeroedByTheNext) {
  const Exec exec;
  Counters c(exec);
  c.prepare(exec);
  add(exec, c, 500, 7);  // then stopped: no hand-over, no read
  exec.fence();
  EXPECT_EQ(on_device(c), expected(500, 7));
  c.prepare(exec);  // dirty: zeroed first
  add(exec, c, 300, 1);
  hand_over(exec, c);
  EXPECT_EQ(c.read(exec), expected(300, 1));
}

// Through the lease the small SpGEMM path takes (on CUDA: the cached arrays, so
// a second lease gets the first one's back).
TEST(ZeroedCounters, LeasesStartFromZero) {
  const Exec exec;
  for (int k = 0; k < 3; ++k) {
    const libra::impl::LanesLease<Exec, Counters> lease(exec);
    (*lease).prepare(exec);
    EXPECT_EQ(on_device(*lease), (std::array<std::uint64_t, 3>{0, 0, 0}));
    add(exec, *lease, 200, k);
    if (k == 1) continue;  // left dirty: the next lease zeroes it
    hand_over(exec, *lease);
    EXPECT_EQ((*lease).read(exec), expected(200, k)) << "lease " << k;
  }
}

}  // namespace zeroed_counters_test
