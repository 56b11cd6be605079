#pragma once
// Type requirements shared by every sparse format.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "libra/core/error.hpp"

namespace libra {

// Base of Csr, Csc, Coo and Ell: the member types and the type contract.
// Offsets may be signed or unsigned (a Tpetra local matrix uses size_t); ordinals
// must be signed because ELL pads with -1.
template <class Scalar, class Ordinal, class Offset, class Device>
struct SparseTypes {
  static_assert(std::is_floating_point<Scalar>::value,
                "Libra formats hold float or double values");
  static_assert(std::is_integral<Ordinal>::value && std::is_signed<Ordinal>::value,
                "the ordinal type must be a signed integer");
  static_assert(std::is_integral<Offset>::value, "the offset type must be an integer");
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type =
      Kokkos::Device<typename Device::execution_space, typename Device::memory_space>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
};

template <class Ordinal>
void check_dimensions(Ordinal rows, Ordinal cols, const char* what) {
  if (rows < 0 || cols < 0) {
    throw ShapeError(std::string(what) + ": negative dimensions " + std::to_string(rows) +
                     " x " + std::to_string(cols));
  }
}

inline void check_extent(std::size_t got, std::size_t expected, const char* what,
                         const char* view) {
  if (got != expected) {
    throw ShapeError(std::string(what) + ": " + view + " has " + std::to_string(got) +
                     " entries, expected " + std::to_string(expected));
  }
}

}  // namespace libra
