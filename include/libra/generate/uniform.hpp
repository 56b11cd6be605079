#pragma once
// Uniformly random sparse matrices.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <string>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/convert.hpp"
#include "libra/generate/impl/uniform.hpp"

namespace libra {

// A rows x cols matrix of round(rows * entries_per_row) generated entries, each at
// a uniformly random (row, column) with a value uniform in [-1, 1); duplicates are
// summed, so rows have binomially distributed lengths (some may be empty). With no
// columns nothing is generated. Deterministic for a seed on every backend.
// Throws ArgumentError for negative sizes or a negative/non-finite
// entries_per_row, OverflowError when sizes do not fit Ordinal/Offset.
template <class Scalar, class Ordinal, class Offset, class Exec>
Csr<Scalar, Ordinal, Offset, Kokkos::Device<Exec, typename Exec::memory_space>>
uniform_random(const Exec& exec, long long rows, long long cols, double entries_per_row,
               std::uint64_t seed) {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using Coo = libra::Coo<Scalar, Ordinal, Offset, Device>;
  if (rows < 0 || cols < 0) {
    throw ArgumentError("uniform_random: negative size " + std::to_string(rows) + " x " +
                        std::to_string(cols));
  }
  if (!(entries_per_row >= 0) || !std::isfinite(entries_per_row)) {
    throw ArgumentError("uniform_random: entries per row " +
                        std::to_string(entries_per_row) + " must be finite and >= 0");
  }
  const Ordinal m = checked_cast<Ordinal>(rows, "uniform_random: number of rows");
  const Ordinal n = checked_cast<Ordinal>(cols, "uniform_random: number of columns");
  const double wanted = cols == 0 ? 0.0 : static_cast<double>(rows) * entries_per_row;
  if (!(wanted < 9.2e18)) {
    throw OverflowError("uniform_random: rows * entries_per_row overflows 64 bits");
  }
  const std::size_t entries = checked_cast<std::size_t>(
      static_cast<std::uint64_t>(std::llround(wanted)), "uniform_random: entries");

  typename Coo::index_type r(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::rows"), entries);
  typename Coo::index_type c(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::cols"), entries);
  typename Coo::values_type v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::values"), entries);
  impl::uniform_entries(exec, seed, static_cast<std::uint64_t>(rows),
                        static_cast<std::uint64_t>(cols), r, c, v);
  return to_csr(exec, Coo(m, n, r, c, v));
}

}  // namespace libra
