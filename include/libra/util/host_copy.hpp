#pragma once
// A 1-D view read back to the host on the caller's execution space instance:
// Kokkos 3.4's create_mirror_view_and_copy fences every space, this waits only
// for `exec`'s stream.
#include <Kokkos_Core.hpp>

namespace libra::impl {

template <class Exec, class View>
Kokkos::View<typename View::non_const_value_type*, Kokkos::HostSpace> host_copy(
    const Exec& exec, const View& v) {
  static_assert(View::rank == 1, "host_copy reads back 1-D views");
  Kokkos::View<typename View::non_const_value_type*, Kokkos::HostSpace> h(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("libra::host_copy")),
      v.extent(0));
  Kokkos::deep_copy(exec, h, v);
  exec.fence();
  return h;
}

}  // namespace libra::impl
