#pragma once
// Structured sparse matrices whose entries lie on chosen diagonals.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/csr.hpp"
#include "libra/generate/impl/structured.hpp"

namespace libra {

// The rows x cols matrix with entries (i, i + d) for each d in `offsets` (d > 0
// above the main diagonal), each kept with probability `density`. Values are
// those of banded() at the same positions and seed (magnitude in [0.5, 1.5),
// random sign); whether an entry is kept is drawn independently of its value, so
// a thinner matrix is a subset of a denser one with the same seed.
// Throws ArgumentError for negative sizes, an offset outside
// [-(rows - 1), cols - 1] or listed twice, or density outside [0, 1];
// OverflowError when sizes do not fit Ordinal or nnz does not fit Offset.
template <class Scalar, class Ordinal, class Offset, class Exec>
Csr<Scalar, Ordinal, Offset, Kokkos::Device<Exec, typename Exec::memory_space>> diagonals(
    const Exec& exec, long long rows, long long cols, std::vector<long long> offsets,
    std::uint64_t seed = 0, double density = 1.0) {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  using Out =
      Csr<Scalar, Ordinal, Offset, Kokkos::Device<Exec, typename Exec::memory_space>>;
  if (rows < 0 || cols < 0) {
    throw ArgumentError("diagonals: negative size " + std::to_string(rows) + " x " +
                        std::to_string(cols));
  }
  if (!(density >= 0 && density <= 1)) {
    throw ArgumentError("diagonals: density " + std::to_string(density) +
                        " is outside [0, 1]");
  }
  std::sort(offsets.begin(), offsets.end());
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    const long long d = offsets[k];
    if (d < -(rows - 1) || d > cols - 1 || rows == 0 || cols == 0) {
      throw ArgumentError("diagonals: offset " + std::to_string(d) +
                          " lies outside the " + std::to_string(rows) + " x " +
                          std::to_string(cols) + " matrix");
    }
    if (k > 0 && offsets[k - 1] == d) {
      throw ArgumentError("diagonals: offset " + std::to_string(d) + " is listed twice");
    }
  }
  const Ordinal m = checked_cast<Ordinal>(rows, "diagonals: number of rows");
  const Ordinal n = checked_cast<Ordinal>(cols, "diagonals: number of columns");

  using mem = typename Exec::memory_space;
  Kokkos::View<std::int64_t*, mem> diag("libra::generate::diagonals::offsets",
                                        offsets.size());
  auto host_diag = Kokkos::create_mirror_view(diag);
  for (std::size_t k = 0; k < offsets.size(); ++k) host_diag(k) = offsets[k];
  Kokkos::deep_copy(exec, diag, host_diag);

  const auto a = impl::diagonal_csr<Scalar, Ordinal, Offset>(
      exec, rows, cols, diag, impl::rng::bernoulli_threshold(density), seed);
  return Out(m, n, a.row_map, a.col, a.val);
}

}  // namespace libra
