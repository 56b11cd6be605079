#pragma once
// Compressed sparse column storage as three Kokkos Views.
#include <Kokkos_Core.hpp>

#include "libra/format/traits.hpp"

namespace libra {

// Column j is entries [col_map(j), col_map(j+1)) of row_idx/values, with sorted,
// unique row indices when made by Libra.
template <class Scalar, class Ordinal, class Offset, class Device>
struct Csc : SparseTypes<Scalar, Ordinal, Offset, Device> {
  using device_type = typename SparseTypes<Scalar, Ordinal, Offset, Device>::device_type;
  using col_map_type = Kokkos::View<const Offset*, Kokkos::LayoutLeft, device_type>;
  using col_map_non_const_type = Kokkos::View<Offset*, Kokkos::LayoutLeft, device_type>;
  using index_type = Kokkos::View<Ordinal*, Kokkos::LayoutLeft, device_type>;
  using values_type = Kokkos::View<Scalar*, Kokkos::LayoutRight, device_type>;

  Ordinal num_rows = 0;
  Ordinal num_cols = 0;
  col_map_type col_map;  // num_cols + 1 offsets
  index_type row_idx;    // nnz row indices
  values_type values;    // nnz values

  Csc() = default;

  Csc(Ordinal rows, Ordinal cols, col_map_type cm, index_type ri, values_type v)
      : num_rows(rows), num_cols(cols), col_map(cm), row_idx(ri), values(v) {
    check_dimensions(rows, cols, "Csc");
    check_extent(col_map.extent(0), static_cast<std::size_t>(cols) + 1, "Csc", "col_map");
    check_extent(values.extent(0), row_idx.extent(0), "Csc", "values");
  }

  Offset nnz() const { return static_cast<Offset>(row_idx.extent(0)); }
};

}  // namespace libra
