#pragma once
// Launch shapes of lbGEMM's kernels for one execution space: team sizes, the
// B(k,:) piece staged in scratch, and the row bins of the compress step.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "libra/core/launch_traits.hpp"
#include "libra/spgemm/impl/row_bins.hpp"
#include "libra/spgemm/options.hpp"

namespace libra::impl {

// Launch shapes, computed once for an execution space (and the caller's tuning).
template <class Exec, class Scalar, class Ordinal>
struct OuterShape {
  using Traits = LaunchTraits<Exec>;
  int expand_threads = Traits::team_threads(4);  // A(:,k) nonzeros in flight (Eq. 4)
  int expand_lanes = Traits::vector_lanes;       // lanes sweeping B(k,:)
  int piece = 1024;                              // B(k,:) entries staged at once
  int bin_limit[max_bins] = {0, 32, 128, 512, 2048, 0, 0, 0};  // products per bin
  int bin_threads[max_bins] = {1, 32, 64, 128, 256, 256, 256, 256};
  int unique_capacity = 0;      // products of a row deduplicated in scratch
  int accumulate_capacity = 0;  // C entries of a row accumulated in scratch
  int big_bin = 5;              // rows with more products than unique_capacity
  // Symbolic rows with more products than this mark a bitmap over C's columns
  // instead of sorting in scratch (set by fit_columns).
  std::uint64_t bitmap_threshold = 0;

  OuterShape() : OuterShape(SpgemmOptions::Tuning{}) {}
  explicit OuterShape(const SpgemmOptions::Tuning& tuning) {
    int scratch = Traits::scratch_bytes();
    if (tuning.scratch_bytes > 0) scratch = std::min(scratch, tuning.scratch_bytes);
    // Room for at least a few entries, whatever the tuning asks.
    scratch = std::max(scratch, 4 * static_cast<int>(sizeof(Ordinal) + sizeof(Scalar)));
    unique_capacity = 1;
    while (2 * unique_capacity * static_cast<int>(sizeof(Ordinal)) <= scratch) {
      unique_capacity *= 2;
    }
    accumulate_capacity = scratch / static_cast<int>(sizeof(Ordinal) + sizeof(Scalar));
    // Bins are increasing product limits capped by what scratch holds; bins whose
    // limit the cap reaches collapse into the last scratch bin.
    big_bin = 1;
    for (int b = 1; b <= 5; ++b) {
      const int limit = b < 5 ? std::min(bin_limit[b], unique_capacity) : unique_capacity;
      if (big_bin > 1 && limit <= bin_limit[big_bin - 1]) break;
      bin_limit[big_bin] = limit;
      bin_threads[big_bin] = bin_threads[b];
      ++big_bin;
    }
    if constexpr (!Traits::is_gpu) {
      const int threads = tuning.host_team_threads > 0 ? tuning.host_team_threads : 1;
      for (int& t : bin_threads) t = threads;
    }
    bitmap_threshold = static_cast<std::uint64_t>(unique_capacity);
  }

  // A bitmap costs about a pass over its words to clear and one to read, plus one
  // atomic per product; a bitonic sort of n keys about n log2(n)^2 / 2 compare-
  // exchanges. Rows take the bitmap from the length where it is the cheaper.
  void fit_columns(std::uint64_t columns) {
    const double words = static_cast<double>((columns + 63) / 64);
    std::uint64_t t = 32;
    while (t < static_cast<std::uint64_t>(unique_capacity)) {
      const double lg = std::log2(static_cast<double>(t));
      if (static_cast<double>(t) * lg * lg / 2 >= 3 * words + static_cast<double>(t))
        break;
      t *= 2;
    }
    bitmap_threshold = t;
  }

  // Symbolic bin of a row with n products: the bitmap bin above the threshold.
  KOKKOS_INLINE_FUNCTION int pattern_bin_of(std::uint64_t n) const {
    return n > bitmap_threshold ? big_bin : bin_of(n);
  }

  // Bin of a row with n products: 0 = none, 1..5 = scratch, 6 = too many for scratch.
  KOKKOS_INLINE_FUNCTION int bin_of(std::uint64_t n) const {
    if (n == 0) return 0;
    for (int b = 1; b < big_bin; ++b) {
      if (n <= static_cast<std::uint64_t>(bin_limit[b])) return b;
    }
    return big_bin;
  }
};

}  // namespace libra::impl
