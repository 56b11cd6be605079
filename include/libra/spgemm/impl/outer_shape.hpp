#pragma once
// Launch shapes of lbGEMM's kernels for one execution space: team sizes, the
// B(k,:) piece staged in scratch, and the row bins of the compress step.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "libra/core/spaces.hpp"
#include "libra/spgemm/impl/row_bins.hpp"

namespace libra::impl {

// Launch shapes, computed once for an execution space.
template <class Exec, class Scalar, class Ordinal>
struct OuterShape {
  int expand_threads = team_threads<Exec>(4);  // A(:,k) nonzeros in flight (Eq. 4)
  int expand_lanes = vector_lanes<Exec>(32);   // lanes sweeping B(k,:)
  int piece = 1024;                            // B(k,:) entries staged at once
  int bin_limit[max_bins] = {0, 32, 128, 512, 2048, 0, 0, 0};  // products per bin
  int bin_threads[max_bins] = {1, 32, 64, 128, 256, 256, 256, 256};
  int unique_capacity = 0;      // products of a row deduplicated in scratch
  int accumulate_capacity = 0;  // C entries of a row accumulated in scratch
  int big_bin = 5;              // rows with more products than unique_capacity

  OuterShape() {
    const int scratch = std::min(Kokkos::TeamPolicy<Exec>::scratch_size_max(0), 40 * 1024) - 64;
    unique_capacity = 1;
    while (2 * unique_capacity * static_cast<int>(sizeof(Ordinal)) <= scratch) {
      unique_capacity *= 2;
    }
    accumulate_capacity = scratch / static_cast<int>(sizeof(Ordinal) + sizeof(Scalar));
    bin_limit[4] = std::min(bin_limit[4], unique_capacity);
    bin_limit[5] = unique_capacity;
    big_bin = 6;
    if (runs_on_host<Exec>) {
      for (int& t : bin_threads) t = 1;
    }
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
