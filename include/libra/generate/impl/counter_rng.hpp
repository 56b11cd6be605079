#pragma once
// Counter-based random numbers for the generators: every random quantity is a pure
// function of (seed, stream, counter), so a matrix depends only on its seed, never
// on the backend, the thread count or the order in which threads run. Only integer
// arithmetic and exactly representable floating-point results are used, so Serial,
// OpenMP and Cuda produce bit-identical values.
//
// The mixing is SplitMix64 (Steele, Lea, Flood 2014): element n of the SplitMix64
// sequence seeded with k is mix64(k + (n + 1) * gamma), so it can be computed
// directly from n. Keys for independent streams are themselves mixed outputs.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace libra::impl::rng {

inline constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;

// The SplitMix64 output function (a bijection of 64-bit words).
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Element `counter` of the SplitMix64 sequence seeded with `key`.
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t draw(std::uint64_t key,
                                                    std::uint64_t counter) {
  return mix64(key + (counter + 1) * golden_gamma);
}

// The key of stream `stream` under `seed`: generators give each purpose (edge
// positions, values, thinning) its own stream so the draws are unrelated.
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t stream_key(std::uint64_t seed,
                                                          std::uint64_t stream) {
  return mix64(seed ^ mix64(stream * golden_gamma + 0x632be59bd9b4e019ULL));
}

// Bits of precision of Libra's scalars (24 for float, 53 for double).
template <class S>
inline constexpr int mantissa_bits = std::numeric_limits<S>::digits;

// A value uniform in [-1, 1) on the grid of multiples of 2^-(digits-1) of S: the
// top `digits` + 1 bits of h as a signed integer, scaled by a power of two, so
// the result is exact in S.
template <class S>
KOKKOS_INLINE_FUNCTION S uniform_signed(std::uint64_t h) {
  constexpr int bits = mantissa_bits<S>;
  const std::int64_t k = static_cast<std::int64_t>(h >> (64 - bits - 1)) -
                         (std::int64_t(1) << bits);  // in [-2^bits, 2^bits)
  return static_cast<S>(k) * (S(1) / static_cast<S>(std::uint64_t(1) << bits));
}

// A value with magnitude uniform in [0.5, 1.5) (on the grid of multiples of
// 2^-(digits-1), exact in S) and a random sign: never zero, never tiny.
template <class S>
KOKKOS_INLINE_FUNCTION S signed_magnitude(std::uint64_t h) {
  constexpr int bits = mantissa_bits<S> - 1;
  const std::uint64_t k = h >> (64 - bits);  // in [0, 2^bits)
  const S magnitude =
      S(0.5) + static_cast<S>(k) * (S(1) / static_cast<S>(std::uint64_t(1) << bits));
  return (h & 1) ? -magnitude : magnitude;
}

// The high 64 bits of a * b, computed from 32-bit halves (portable to every backend).
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t mul_high(std::uint64_t a,
                                                        std::uint64_t b) {
  const std::uint64_t a_lo = a & 0xffffffffULL, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffULL, b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo;
  const std::uint64_t hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi;
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffULL) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
}

// An integer in [0, n) from the random word h (Lemire's multiply-shift: the
// bias is at most n / 2^64).
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t below(std::uint64_t h, std::uint64_t n) {
  return mul_high(h, n);
}

// Threshold t such that `(h >> 11) < t` holds with probability p for a random h:
// the 53-bit fraction comparison used for Bernoulli draws. Host only.
inline std::uint64_t bernoulli_threshold(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return std::uint64_t(1) << 53;
  return static_cast<std::uint64_t>(p * 9007199254740992.0);  // p * 2^53, exact
}

KOKKOS_INLINE_FUNCTION constexpr bool bernoulli(std::uint64_t h,
                                                std::uint64_t threshold) {
  return (h >> 11) < threshold;
}

}  // namespace libra::impl::rng
