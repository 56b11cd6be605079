#pragma once
// Merge-path coordinates (Merrill and Garland): walking the merge of a
// compressed matrix's line ends and its nonzeros, diagonal d has consumed i line
// ends and j nonzeros with i + j = d. Cutting that path into equal pieces
// balances work whatever the line lengths are: empty lines, long lines and a
// single huge line all split evenly. SpMM's panels and SpMV's segments use it.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace libra::impl {

// The merge-path coordinates of diagonal d with i known to lie in [lo, hi]: a
// search from a nearby diagonal (d' < d has i' <= i <= i' + (d - d')) takes
// log2(d - d') steps instead of log2(rows).
template <class RowMap>
KOKKOS_INLINE_FUNCTION void merge_path_search_between(const RowMap& row_map,
                                                      std::int64_t lo, std::int64_t hi,
                                                      std::int64_t d, std::int64_t& i,
                                                      std::int64_t& j) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(row_map(mid + 1)) <= d - mid - 1) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  i = lo;
  j = d - lo;
}

// The merge-path coordinates of diagonal d: i rows ended and j nonzeros consumed,
// i + j = d. Row i ends after its nonzeros [row_map(i), row_map(i+1)).
template <class RowMap>
KOKKOS_INLINE_FUNCTION void merge_path_search(const RowMap& row_map, std::int64_t rows,
                                              std::int64_t nnz, std::int64_t d,
                                              std::int64_t& i, std::int64_t& j) {
  merge_path_search_between(row_map, d > nnz ? d - nnz : 0, d < rows ? d : rows, d, i, j);
}

}  // namespace libra::impl
