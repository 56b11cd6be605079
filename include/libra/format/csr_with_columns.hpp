#pragma once
// A CSR matrix together with the same matrix in CSC, for a caller that keeps a
// matrix and its transpose anyway (SimRank keeps Wn and Wn^T): an algorithm that
// walks A by columns (lbGEMM) reads them here instead of transposing A.
#include <Kokkos_Core.hpp>
#include <string>

#include "libra/core/error.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/csc.hpp"
#include "libra/format/csr.hpp"

namespace libra {

// `csc` holds the entries of `csr`, values included, and csr_position(p) is
// the CSR position of CSC entry p. Only shapes and sizes are checked: the
// entries themselves are the caller's promise. Rows need not ascend within a
// column (lbGEMM checks before it cuts chunks by row panels, which need them to).
template <class Scalar, class Ordinal, class Offset, class Device>
struct CsrWithColumns {
  using csr_type = Csr<Scalar, Ordinal, Offset, Device>;
  using csc_type = Csc<Scalar, Ordinal, Offset, Device>;
  using position_type = Kokkos::View<Offset*, typename csr_type::device_type>;

  csr_type csr;
  csc_type csc;
  position_type csr_position;

  CsrWithColumns() = default;
  CsrWithColumns(const csr_type& a, const csc_type& columns,
                 const position_type& position)
      : csr(a), csc(columns), csr_position(position) {
    if (csc.num_rows != csr.num_rows || csc.num_cols != csr.num_cols ||
        csc.nnz() != csr.nnz() ||
        csr_position.extent(0) != static_cast<std::size_t>(csr.nnz())) {
      throw ShapeError(
          "CsrWithColumns: the CSR matrix is " + std::to_string(csr.num_rows) + " x " +
          std::to_string(csr.num_cols) + " with " + std::to_string(csr.nnz()) +
          " entries, its columns " + std::to_string(csc.num_rows) + " x " +
          std::to_string(csc.num_cols) + " with " + std::to_string(csc.nnz()) +
          " entries and " + std::to_string(csr_position.extent(0)) + " positions");
    }
  }
};

// A with its columns made by one transpose, for a caller that multiplies the
// same A many times with lbGEMM.
template <class Exec, class S, class O, class Off, class D>
CsrWithColumns<S, O, Off, D> with_columns(const Exec& exec, const Csr<S, O, Off, D>& A) {
  typename CsrWithColumns<S, O, Off, D>::position_type position;
  const auto columns = impl::to_csc_with_source(exec, A, position);
  return CsrWithColumns<S, O, Off, D>(A, columns, position);
}

}  // namespace libra
