// The stable radix sort every conversion builds on, against std::stable_sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "libra/algorithms/radix_sort.hpp"
#include "support/test_space.hpp"

namespace radix_sort_test {

using libra::test::Exec;

// Fills k with 0..n-1 (or n-1..0) and v with 0..n-1 on the device.
void fill_ramp(Kokkos::View<std::uint32_t*, Exec::memory_space> k,
               Kokkos::View<std::uint32_t*, Exec::memory_space> v, bool reversed) {
  const std::size_t n = k.extent(0);
  Kokkos::parallel_for(
      "fill_ramp", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const std::size_t i) {
        k(i) = static_cast<std::uint32_t>(reversed ? n - 1 - i : i);
        v(i) = static_cast<std::uint32_t>(i);
      });
}

template <class Key>
void check_sort(std::size_t n, int bits, std::uint64_t seed, std::uint64_t distinct,
                int host_team_threads = 0) {
  std::mt19937_64 rng(seed);
  const std::uint64_t mask = bits >= 64 ? ~0ULL : ((1ULL << bits) - 1);
  std::vector<Key> keys(n);
  for (auto& k : keys)
    k = static_cast<Key>((rng() % distinct) * 0x9E3779B97F4A7C15ULL & mask);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });

  Kokkos::View<Key*, Exec::memory_space> d_keys("keys", n);
  Kokkos::View<std::uint32_t*, Exec::memory_space> d_vals("vals", n);
  auto h_keys = Kokkos::create_mirror_view(d_keys);
  auto h_vals = Kokkos::create_mirror_view(d_vals);
  for (std::size_t i = 0; i < n; ++i) {
    h_keys(i) = keys[i];
    h_vals(i) = static_cast<std::uint32_t>(i);
  }
  Kokkos::deep_copy(d_keys, h_keys);
  Kokkos::deep_copy(d_vals, h_vals);
  libra::impl::radix_sort_pairs(Exec(), d_keys, d_vals, bits, {}, host_team_threads);
  Kokkos::deep_copy(h_keys, d_keys);
  Kokkos::deep_copy(h_vals, d_vals);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(h_vals(i), order[i]) << "n=" << n << " bits=" << bits << " position " << i;
    ASSERT_EQ(h_keys(i), keys[order[i]]) << "n=" << n << " bits=" << bits;
  }
}

TEST(RadixSort, EmptyAndSingle) {
  check_sort<std::uint32_t>(0, 8, 1, 10);
  check_sort<std::uint32_t>(1, 8, 2, 10);
}

TEST(RadixSort, SmallKeysManyDuplicatesStable) {
  for (std::size_t n : {2u, 7u, 255u, 256u, 257u, 4095u, 4096u, 4097u, 70001u}) {
    check_sort<std::uint32_t>(n, 3, n, 5);
    check_sort<std::uint32_t>(n, 8, n + 1, 300);
  }
}

TEST(RadixSort, WideKeys) {
  check_sort<std::uint32_t>(100003, 17, 3, 1u << 20);
  check_sort<std::uint32_t>(100003, 32, 4, ~0u);
  check_sort<std::uint64_t>(50001, 40, 5, ~0ULL);
  check_sort<std::uint64_t>(50001, 64, 6, ~0ULL);
}

TEST(RadixSort, HostTeamsOfSeveralThreadsRankStably) {
  // Host spaces sort with one thread per team; GPU teams rank equal digits with
  // per-digit masks and atomics. Forcing several threads per team on the host runs
  // that path here too (on a GPU space the option changes nothing).
  const int max_team = libra::test::max_team_threads();
  if (!libra::LaunchTraits<Exec>::is_gpu && max_team < 2) {
    GTEST_SKIP() << Exec::name() << " runs teams of one thread (" << Exec().concurrency()
                 << " in all); the OpenMP build of this test runs the path";
  }
  for (int team : {2, 4, 70}) {
    if (team > max_team) continue;
    for (std::size_t n : {255u, 4097u, 70001u}) {
      check_sort<std::uint32_t>(n, 8, n + team, 300, team);
      check_sort<std::uint64_t>(n, 40, n + 2 * team, ~0ULL, team);
    }
  }
}

TEST(RadixSort, AlreadySortedAndReversed) {
  for (int reversed = 0; reversed < 2; ++reversed) {
    const std::size_t n = 30000;
    Kokkos::View<std::uint32_t*, Exec::memory_space> k("k", n), v("v", n);
    fill_ramp(k, v, reversed);
    libra::impl::radix_sort_pairs(Exec(), k, v, 15);
    auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k);
    auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(hk(i), i);
      ASSERT_EQ(hv(i), reversed ? n - 1 - i : i);
    }
  }
}

}  // namespace radix_sort_test
