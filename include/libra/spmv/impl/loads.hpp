#pragma once
// How the CSR tiles and rows kernels read A on CUDA GPUs. A product reads each
// of A's values, column indices and row offsets once, while x's entries are
// read again and again; with plain loads A's stream pushes x out of L2.
// Streaming loads (__ldcs, evict first) mark A's lines as the first to go.
// Measured on an H100 (perf_tests/report/h100/spmv.md): R-MAT 22 1.25 ms with
// plain loads, 0.88 with streaming ones; x through the read-only cache (__ldg)
// added nothing. Elsewhere (host spaces, HIP, SYCL) the loads are plain.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace libra::impl {

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

template <bool Stream, class T>
KOKKOS_FORCEINLINE_FUNCTION T load_a(const T& ref) {
  if constexpr (Stream) {
    return load_streaming(ref);
  } else {
    return ref;
  }
}

// Whether Exec's loads can stream: CUDA's (__ldcs); other spaces have no such
// load here, and host spaces instantiate their kernels once.
template <class Exec>
inline constexpr bool spmv_can_stream =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<Exec, Kokkos::Cuda>;
#else
    false;
#endif

// Whether a CSR SpMV on Exec reads A by streaming loads, for
// SpmvOptions::Tuning::load_hints (0 or 1: where it can, -1 never).
template <class Exec>
bool spmv_streams_a(int tuning) {
  return spmv_can_stream<Exec> && tuning >= 0;
}

}  // namespace libra::impl
