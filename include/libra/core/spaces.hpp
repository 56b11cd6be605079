#pragma once
// Small facts about execution spaces and bits that kernels size themselves by.
// Launch shapes (GPU or host, lanes, scratch) are in core/launch_traits.hpp.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "libra/core/launch_traits.hpp"

namespace libra {

// Asserted by every entry point that takes an execution space and views.
template <class Exec, class Device>
inline constexpr bool can_access =
    Kokkos::SpaceAccessibility<Exec, typename Device::memory_space>::accessible;

namespace impl {

// The 64-bit counter type of atomics. CUDA adds and maxes `unsigned long long`
// natively; std::uint64_t is `unsigned long` on Linux, for which Kokkos 3.4
// falls back to compare-and-swap loops, which serialise under contention (a
// counter hit once by each of 1,700 teams took 0.8 ms on an H100).
using atomic_u64 = unsigned long long;
static_assert(sizeof(atomic_u64) == 8, "64-bit counters");

// Sets `bits` in a 64-bit bitmap word, atomically, through the native
// `unsigned long long` OR: on std::uint64_t Kokkos 3.4's Cuda backend loops on
// compare-and-swap, and every product of a row of C sets a bit of a few shared
// words, so the loop retries under exactly the contention bitmaps create.
KOKKOS_INLINE_FUNCTION void atomic_set_bits(std::uint64_t* word, std::uint64_t bits) {
  static_assert(sizeof(std::uint64_t) == sizeof(atomic_u64), "64-bit words");
  Kokkos::atomic_fetch_or(reinterpret_cast<atomic_u64*>(word),
                          static_cast<atomic_u64>(bits));
}

// Portable 64-bit population count for kernels.
KOKKOS_INLINE_FUNCTION int popcount64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#elif defined(__POPCNT__)
  return __builtin_popcountll(x);
#else
  // Without the instruction GCC's builtin is a call into libgcc (3% of a host
  // SpGEMM's time); these few operations inline.
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
}

// Number of bits needed to represent `max_value` (0 for 0).
KOKKOS_INLINE_FUNCTION int bit_width(std::uint64_t max_value) {
  int bits = 0;
  while (max_value) {
    ++bits;
    max_value >>= 1;
  }
  return bits;
}

}  // namespace impl
}  // namespace libra
