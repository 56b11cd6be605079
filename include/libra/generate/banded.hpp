#pragma once
// Banded matrices: every entry of diagonals -kl..ku present.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/csr.hpp"
#include "libra/generate/impl/structured.hpp"

namespace libra {

// The n_rows x n_cols matrix with every entry (i, j), -kl <= j - i <= ku, stored;
// values have magnitude uniform in [0.5, 1.5) and a random sign, a function of
// (seed, i, j) only, so banded(..., seed) equals diagonals(..., {-kl..ku}, seed).
// Throws ArgumentError for negative sizes, kl outside [0, n_rows - 1] or ku
// outside [0, n_cols - 1] (0 is always allowed), OverflowError when sizes do not
// fit Ordinal or nnz does not fit Offset.
template <class Scalar, class Ordinal, class Offset, class Exec>
Csr<Scalar, Ordinal, Offset, Kokkos::Device<Exec, typename Exec::memory_space>> banded(
    const Exec& exec, long long n_rows, long long n_cols, long long kl, long long ku,
    std::uint64_t seed = 0) {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  using Out =
      Csr<Scalar, Ordinal, Offset, Kokkos::Device<Exec, typename Exec::memory_space>>;
  if (n_rows < 0 || n_cols < 0) {
    throw ArgumentError("banded: negative size " + std::to_string(n_rows) + " x " +
                        std::to_string(n_cols));
  }
  if (kl < 0 || (kl > 0 && kl > n_rows - 1)) {
    throw ArgumentError("banded: kl = " + std::to_string(kl) + " is outside [0, " +
                        std::to_string(n_rows > 0 ? n_rows - 1 : 0) + "]");
  }
  if (ku < 0 || (ku > 0 && ku > n_cols - 1)) {
    throw ArgumentError("banded: ku = " + std::to_string(ku) + " is outside [0, " +
                        std::to_string(n_cols > 0 ? n_cols - 1 : 0) + "]");
  }
  const Ordinal rows = checked_cast<Ordinal>(n_rows, "banded: number of rows");
  const Ordinal cols = checked_cast<Ordinal>(n_cols, "banded: number of columns");
  const auto a =
      impl::band_csr<Scalar, Ordinal, Offset>(exec, n_rows, n_cols, kl, ku, seed);
  return Out(rows, cols, a.row_map, a.col, a.val);
}

}  // namespace libra
