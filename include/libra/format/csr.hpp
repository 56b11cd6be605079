#pragma once
// Compressed sparse row storage as three Kokkos Views.
#include <Kokkos_Core.hpp>

#include "libra/format/traits.hpp"

namespace libra {

// Row i is entries [row_map(i), row_map(i+1)) of col_idx/values. Matrices made by
// Libra have sorted, unique column indices in every row. row_map is a view of
// const offsets, as in KokkosSparse::CrsMatrix, so the two share storage.
template <class Scalar, class Ordinal, class Offset, class Device>
struct Csr : SparseTypes<Scalar, Ordinal, Offset, Device> {
  using device_type = typename SparseTypes<Scalar, Ordinal, Offset, Device>::device_type;
  using row_map_type = Kokkos::View<const Offset*, Kokkos::LayoutLeft, device_type>;
  using row_map_non_const_type = Kokkos::View<Offset*, Kokkos::LayoutLeft, device_type>;
  using index_type = Kokkos::View<Ordinal*, Kokkos::LayoutLeft, device_type>;
  using values_type = Kokkos::View<Scalar*, Kokkos::LayoutRight, device_type>;

  Ordinal num_rows = 0;
  Ordinal num_cols = 0;
  row_map_type row_map;  // num_rows + 1 offsets
  index_type col_idx;    // nnz column indices
  values_type values;    // nnz values

  Csr() = default;

  // Checks that the extents agree; the contents are the producer's responsibility.
  Csr(Ordinal rows, Ordinal cols, row_map_type rm, index_type ci, values_type v)
      : num_rows(rows), num_cols(cols), row_map(rm), col_idx(ci), values(v) {
    check_dimensions(rows, cols, "Csr");
    check_extent(row_map.extent(0), static_cast<std::size_t>(rows) + 1, "Csr", "row_map");
    check_extent(values.extent(0), col_idx.extent(0), "Csr", "values");
  }

  Offset nnz() const { return static_cast<Offset>(col_idx.extent(0)); }
};

}  // namespace libra
