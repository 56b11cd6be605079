#pragma once
// How the CSR kernels read memory on CUDA GPUs. A product reads each of A's
// values, column indices and row offsets once, while x's entries are read again
// and again; plain loads let A's stream push x out of L2. Streaming loads
// (__ldcs, evict first) mark A's lines as the first to go; x may be read
// through the read-only data cache (__ldg). Elsewhere (host spaces, HIP, SYCL)
// both are plain loads.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace libra::impl {

// SpmvOptions::Tuning::load_hints' bits.
inline constexpr int load_stream_a = 1;  // A's arrays by streaming loads
inline constexpr int load_ldg_x = 2;     // x through the read-only data cache

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_streaming(const T& ref) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float> ||
                std::is_same_v<T, int> || std::is_same_v<T, unsigned>) {
    return __ldcs(&ref);
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == sizeof(long long)) {
    return static_cast<T>(__ldcs(reinterpret_cast<const long long*>(&ref)));
  }
#endif
  return ref;
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_read_only(const T& ref) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return __ldg(&ref);
  }
#endif
  return ref;
}

// The hints for SpmvOptions::Tuning::load_hints (0: Libra's choice).
inline int spmv_load_hints(int tuning) {
  if (tuning < 0) return 0;
  if (tuning > 0) return tuning & (load_stream_a | load_ldg_x);
  return 0;
}

// `hints` holds load_stream_a / load_ldg_x; the branch is uniform across a
// launch.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_a(const T& ref, int hints) {
  return (hints & load_stream_a) ? load_streaming(ref) : ref;
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_x(const T& ref, int hints) {
  return (hints & load_ldg_x) ? load_read_only(ref) : ref;
}

}  // namespace libra::impl
