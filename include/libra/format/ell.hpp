#pragma once
// ELLPACK storage, optionally with a COO tail for rows longer than the width
// (the "hybrid" format).
#include <Kokkos_Core.hpp>

#include "libra/format/coo.hpp"
#include "libra/format/traits.hpp"

namespace libra {

// Slot k of row i is (col_idx(i, k), values(i, k)); unused slots hold column -1
// and value 0. The views are column-major so that consecutive rows are
// consecutive in memory (coalesced on a GPU when a thread takes a row). Entries
// that did not fit the width live in `tail`, sorted by row and column.
template <class Scalar, class Ordinal, class Offset, class Device>
struct Ell : SparseTypes<Scalar, Ordinal, Offset, Device> {
  using device_type = typename SparseTypes<Scalar, Ordinal, Offset, Device>::device_type;
  using index_type = Kokkos::View<Ordinal**, Kokkos::LayoutLeft, device_type>;
  using values_type = Kokkos::View<Scalar**, Kokkos::LayoutLeft, device_type>;
  using tail_type = Coo<Scalar, Ordinal, Offset, Device>;

  Ordinal num_rows = 0;
  Ordinal num_cols = 0;
  Ordinal width = 0;
  index_type col_idx;  // num_rows x width
  values_type values;  // num_rows x width
  tail_type tail;      // entries beyond the width (empty unless hybrid)

  Ell() = default;

  Ell(Ordinal rows, Ordinal cols, Ordinal w, index_type ci, values_type v, tail_type t)
      : num_rows(rows), num_cols(cols), width(w), col_idx(ci), values(v), tail(t) {
    check_dimensions(rows, cols, "Ell");
    check_dimensions(rows, w, "Ell width");
    check_extent(col_idx.extent(0), static_cast<std::size_t>(rows), "Ell",
                 "col_idx rows");
    check_extent(col_idx.extent(1), static_cast<std::size_t>(w), "Ell", "col_idx width");
    check_extent(values.extent(0), static_cast<std::size_t>(rows), "Ell", "values rows");
    check_extent(values.extent(1), static_cast<std::size_t>(w), "Ell", "values width");
    if (tail.num_rows != rows || tail.num_cols != cols) {
      throw ShapeError("Ell: the tail's shape differs from the matrix's");
    }
  }
};

}  // namespace libra
