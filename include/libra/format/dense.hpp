#pragma once
// Dense matrices are plain column-major 2-D Kokkos Views (the BLAS layout).
#include <Kokkos_Core.hpp>

namespace libra {

template <class Scalar, class Device>
using Dense = Kokkos::View<
    Scalar**, Kokkos::LayoutLeft,
    Kokkos::Device<typename Device::execution_space, typename Device::memory_space>>;

}  // namespace libra
