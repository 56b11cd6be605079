#pragma once
// Coordinate storage: one (row, column, value) triple per entry.
#include <Kokkos_Core.hpp>

#include "libra/format/traits.hpp"

namespace libra {

// Coo made by Libra routines is sorted by row, then column, without duplicates.
// A user-filled Coo may be in any order and hold duplicates: to_csr() and
// sort_and_sum() sort it and sum the duplicates.
template <class Scalar, class Ordinal, class Offset, class Device>
struct Coo : SparseTypes<Scalar, Ordinal, Offset, Device> {
  using device_type = typename SparseTypes<Scalar, Ordinal, Offset, Device>::device_type;
  using index_type = Kokkos::View<Ordinal*, Kokkos::LayoutLeft, device_type>;
  using values_type = Kokkos::View<Scalar*, Kokkos::LayoutRight, device_type>;

  Ordinal num_rows = 0;
  Ordinal num_cols = 0;
  index_type row_idx;
  index_type col_idx;
  values_type values;

  Coo() = default;

  Coo(Ordinal rows, Ordinal cols, index_type ri, index_type ci, values_type v)
      : num_rows(rows), num_cols(cols), row_idx(ri), col_idx(ci), values(v) {
    check_dimensions(rows, cols, "Coo");
    check_extent(col_idx.extent(0), row_idx.extent(0), "Coo", "col_idx");
    check_extent(values.extent(0), row_idx.extent(0), "Coo", "values");
  }

  Offset nnz() const { return static_cast<Offset>(row_idx.extent(0)); }
};

}  // namespace libra
