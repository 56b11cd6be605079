#pragma once
// Storage by diagonals, with no column indices (../shared/papers/003, Section 3):
//  - DiagonalMatrix, the "HM" scheme of Hossain and Mahmud: each stored diagonal
//    is a contiguous run of its entries, for matrices whose entries lie on a few
//    diagonals anywhere (structured sparse), of any shape;
//  - CompactDiagonalMatrix, "CDM": square matrices only, diagonal k stacked on
//    diagonal k - n into one vector of length n (a banded matrix is a few such
//    vectors), so that every product term is a shifted vector product.
// Both store every position of each diagonal they hold: an entry that is not in
// the matrix is a stored zero, and converting back to CSR drops zeros (as
// SciPy's DIA format does).
#include <Kokkos_Core.hpp>
#include <cstddef>

#include "libra/format/traits.hpp"

namespace libra {

// Refusals that keep a conversion or product from a silent huge allocation.
struct DiagonalOptions {
  // A conversion stores every position of each diagonal the matrix touches; it
  // throws ArgumentError when that is more than max_fill times
  // max(nnz, rows, cols) values (a scattered matrix would store close to
  // rows x cols). 0 lifts the limit.
  double max_fill = 4.0;
};

// Diagonal d holds the entries (i, i + d): d > 0 above the main diagonal, d < 0
// below. Its p-th value is the entry whose smaller index min(i, j) is p, so a
// rows x cols matrix's diagonal d has diagonal_length(rows, cols, d) values.
// Diagonals are stored main and superdiagonals ascending (0, 1, 2, ...), then
// subdiagonals descending (-1, -2, ...), as in the paper; only non-empty ones.
template <class Scalar, class Ordinal, class Offset, class Device>
struct DiagonalMatrix : SparseTypes<Scalar, Ordinal, Offset, Device> {
  using device_type = typename SparseTypes<Scalar, Ordinal, Offset, Device>::device_type;
  using index_type = Kokkos::View<Ordinal*, device_type>;
  using offsets_type = Kokkos::View<Offset*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;

  Ordinal num_rows = 0;
  Ordinal num_cols = 0;
  index_type diag;     // the stored diagonals' indices d = j - i, in HM order
  offsets_type start;  // diagonal s is values[start(s), start(s + 1))
  values_type values;  // every stored diagonal's values, one after the other

  DiagonalMatrix() = default;
  DiagonalMatrix(Ordinal rows, Ordinal cols, index_type d, offsets_type st, values_type v)
      : num_rows(rows), num_cols(cols), diag(d), start(st), values(v) {
    check_dimensions(rows, cols, "DiagonalMatrix");
    check_extent(start.extent(0), diag.extent(0) + 1, "DiagonalMatrix", "start");
  }

  Ordinal num_diagonals() const { return static_cast<Ordinal>(diag.extent(0)); }
  std::size_t stored() const { return values.extent(0); }
};

// Values on diagonal d of a rows x cols matrix (0 outside it).
template <class Ordinal>
KOKKOS_INLINE_FUNCTION Ordinal diagonal_length(Ordinal rows, Ordinal cols, Ordinal d) {
  const Ordinal len =
      d >= 0 ? (rows < cols - d ? rows : cols - d) : (cols < rows + d ? cols : rows + d);
  return len > 0 ? len : 0;
}

// Compact diagonal k (0 <= k < n) is the vector of length n whose position p
// holds a(p, (p + k) mod n): superdiagonal k (rows 0..n-k-1) on top of
// subdiagonal n - k. Stored compact diagonals are listed ascending in `diag`;
// values(s, p) is position p of compact diagonal diag(s). The transpose's
// compact diagonal k is position (p + k) mod n of compact diagonal (n - k) mod n
// (the paper's reversed diagonal), which is how products read A^T without a copy.
template <class Scalar, class Ordinal, class Offset, class Device>
struct CompactDiagonalMatrix : SparseTypes<Scalar, Ordinal, Offset, Device> {
  using device_type = typename SparseTypes<Scalar, Ordinal, Offset, Device>::device_type;
  using index_type = Kokkos::View<Ordinal*, device_type>;
  using values_type = Kokkos::View<Scalar**, Kokkos::LayoutRight, device_type>;

  Ordinal num_rows = 0;  // == num_cols: the scheme needs a square matrix
  Ordinal num_cols = 0;
  index_type diag;     // compact diagonal indices in [0, n), ascending
  values_type values;  // num_diagonals() x n

  CompactDiagonalMatrix() = default;
  CompactDiagonalMatrix(Ordinal n, index_type d, values_type v)
      : num_rows(n), num_cols(n), diag(d), values(v) {
    check_dimensions(n, n, "CompactDiagonalMatrix");
    check_extent(values.extent(0), diag.extent(0), "CompactDiagonalMatrix",
                 "values rows");
    check_extent(values.extent(1), static_cast<std::size_t>(n), "CompactDiagonalMatrix",
                 "values columns");
  }

  Ordinal num_diagonals() const { return static_cast<Ordinal>(diag.extent(0)); }
  std::size_t stored() const { return values.extent(0) * values.extent(1); }
};

}  // namespace libra
