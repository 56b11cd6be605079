#pragma once
// The rule `SpgemmAlgorithm::automatic` follows, in one place (the README quotes
// it).
//
// panel, except on GPUs for two large full bands wide enough: then cdm.
// Measured (perf_tests/report/): on 2 host cores panel is faster than lbGEMM on
// all 21 matrices of the report (2.9x geometric mean); on the H100 on 17 of 23
// (1.4x), lbGEMM being up to 1.5x faster on six mid-size power-law and
// irregular matrices, with no feature of the pre-analysis found yet that picks
// them out. Panel needs no product buffer and no chunking. On the H100, CSR
// through compact diagonal storage (SpgemmAlgorithm::cdm) beats panel on full
// bands once both the bands and n are large (perf_tests/report/h100/
// dense_panels.md, n = 4096..65536, half-bandwidths 16..128): from about 1.2e8
// products (n times the diagonal pairs) with at least 2000 pairs and n >= 4096;
// below that panel is faster (up to 2.8x at n = 4096, and at n <= 2048 for every
// width up to dense). On hosts it is slower at every width measured. lbGEMM
// (outer) stays available by name.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/core/launch_traits.hpp"
#include "libra/format/csr.hpp"
#include "libra/spgemm/options.hpp"

namespace libra::impl {

// Lower and upper bandwidth of A from each row's first and last column (rows are
// sorted), in one pass over the rows.
template <class Exec, class S, class O, class Off, class D>
void bandwidths(const Exec& exec, const Csr<S, O, Off, D>& A, std::int64_t& kl,
                std::int64_t& ku) {
  const auto row_map = A.row_map;
  const auto col = A.col_idx;
  kl = 0;
  ku = 0;
  Kokkos::parallel_reduce(
      "libra::spgemm::choose::bandwidth", Kokkos::RangePolicy<Exec>(exec, 0, A.num_rows),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& lo, std::int64_t& hi) {
        if (row_map(i) == row_map(i + 1)) return;
        const std::int64_t first = col(row_map(i)), last = col(row_map(i + 1) - 1);
        if (i - first > lo) lo = i - first;
        if (last - i > hi) hi = last - i;
      },
      Kokkos::Max<std::int64_t>(kl), Kokkos::Max<std::int64_t>(ku));
}

// A band whose every position holds an entry: nnz = n (kl + ku + 1) minus the
// corners, kl(kl + 1) / 2 + ku(ku + 1) / 2.
inline bool full_band(std::int64_t n, std::int64_t nnz, std::int64_t kl,
                      std::int64_t ku) {
  const std::int64_t full = n * (kl + ku + 1) - kl * (kl + 1) / 2 - ku * (ku + 1) / 2;
  return kl < n && ku < n && nnz == full;
}

// Where cdm beats panel on a GPU: diagonals of A times diagonals of B
// (half-bandwidths of about 22 and more on both), rows, and rows times pairs.
constexpr std::int64_t cdm_auto_pairs = 2000;
constexpr std::int64_t cdm_auto_rows = 4096;
constexpr double cdm_auto_products = 1.2e8;

template <class Exec, class S, class O, class Off, class D>
SpgemmAlgorithm choose_spgemm_algorithm(const Exec& exec, const SpgemmOptions& options,
                                        const Csr<S, O, Off, D>& A,
                                        const Csr<S, O, Off, D>& B) {
  if (options.algorithm != SpgemmAlgorithm::automatic) return options.algorithm;
  if (!LaunchTraits<Exec>::is_gpu || A.num_rows != A.num_cols ||
      B.num_rows != B.num_cols || A.num_rows == 0) {
    return SpgemmAlgorithm::panel;
  }
  const std::int64_t n = A.num_rows;
  // A full band of d diagonals holds at least d (n - 1) / 2 entries (its
  // corners miss at most d (d + 1) / 2 <= d (n + 1) / 2 of n d), so nnz bounds
  // d from above: when even those bounds miss the rule, the bandwidth passes
  // (two launches, 0.05-0.09 ms on an H100, most of a small product) are skipped.
  const auto most_diagonals = [n](std::int64_t nnz) {
    return n > 1 ? 2.0 * static_cast<double>(nnz) / static_cast<double>(n - 1) : 1.0;
  };
  const double most_pairs = most_diagonals(A.nnz()) * most_diagonals(B.nnz());
  if (n < cdm_auto_rows || most_pairs < static_cast<double>(cdm_auto_pairs) ||
      static_cast<double>(n) * most_pairs < cdm_auto_products) {
    return SpgemmAlgorithm::panel;
  }
  std::int64_t kla, kua, klb, kub;
  bandwidths(exec, A, kla, kua);
  bandwidths(exec, B, klb, kub);
  const std::int64_t pairs = (kla + kua + 1) * (klb + kub + 1);
  if (full_band(n, A.nnz(), kla, kua) && full_band(n, B.nnz(), klb, kub) &&
      pairs >= cdm_auto_pairs && n >= cdm_auto_rows &&
      static_cast<double>(n) * static_cast<double>(pairs) >= cdm_auto_products) {
    return SpgemmAlgorithm::cdm;
  }
  return SpgemmAlgorithm::panel;
}

}  // namespace libra::impl
