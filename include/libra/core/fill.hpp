#pragma once
// Sets every entry of a View to one value. On host spaces the calling thread
// fills a small contiguous View itself: a parallel region (OpenMP's fork and
// join, about 2.7 us on 2 host cores) costs more than writing a few kilobytes,
// and a small host product paid four of them for its per-thread arrays.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>

#include "libra/core/launch_traits.hpp"

namespace libra::impl {

// Views up to this many bytes are filled by the calling thread on host spaces.
inline constexpr std::size_t host_fill_bytes = 32 * 1024;

template <class Exec, class View>
void fill_view(const Exec& exec, const View& v,
               const typename View::non_const_value_type& x) {
  using T = typename View::non_const_value_type;
  if constexpr (is_host_exec<Exec>) {
    if (v.span_is_contiguous() && v.span() * sizeof(T) <= host_fill_bytes) {
      exec.fence();  // work queued on exec before the fill may still use v
      std::fill_n(v.data(), v.span(), x);
      return;
    }
  }
  Kokkos::deep_copy(exec, v, x);
}

}  // namespace libra::impl
