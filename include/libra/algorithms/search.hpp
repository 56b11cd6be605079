#pragma once
// Binary search of sorted Views inside kernels, where std::lower_bound is not
// available.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace libra::impl {

// The first e in [lo, hi) with T(v(e)) >= value, or hi: std::lower_bound on a
// View sorted ascending, its entries compared as T.
template <class T, class View>
KOKKOS_INLINE_FUNCTION std::int64_t lower_bound_in(const View& v, std::int64_t lo,
                                                   std::int64_t hi, const T& value) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<T>(v(mid)) < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace libra::impl
