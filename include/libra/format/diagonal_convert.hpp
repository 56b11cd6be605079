#pragma once
// Conversions between CSR / COO and the diagonal formats (format/diagonal.hpp),
// on the matrices' device:
//
//   auto H = libra::to_diagonal(exec, A);          // HM, any shape
//   auto K = libra::to_compact_diagonal(exec, A);  // CDM, square A
//   auto B = libra::to_csr(exec, H);               // back; zeros dropped
//
// A conversion first lists the diagonals A touches and refuses (ArgumentError,
// before allocating the values) when storing them would take more than
// DiagonalOptions::max_fill times A's entries.
#include <Kokkos_Core.hpp>

#include "libra/core/spaces.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/diagonal.hpp"
#include "libra/format/impl/diagonal.hpp"

namespace libra {

namespace impl {
template <class Exec, class D>
void check_diagonal_space() {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  static_assert(can_access<Exec, D>, "the execution space cannot access the matrix");
}
}  // namespace impl

template <class Exec, class S, class O, class Off, class D>
DiagonalMatrix<S, O, Off, D> to_diagonal(const Exec& exec, const Csr<S, O, Off, D>& A,
                                         const DiagonalOptions& options = {}) {
  impl::check_diagonal_space<Exec, D>();
  return impl::csr_to_diagonal(exec, A, options, false);
}

// Throws ShapeError for a non-square A.
template <class Exec, class S, class O, class Off, class D>
CompactDiagonalMatrix<S, O, Off, D> to_compact_diagonal(
    const Exec& exec, const Csr<S, O, Off, D>& A, const DiagonalOptions& options = {}) {
  impl::check_diagonal_space<Exec, D>();
  return impl::csr_to_compact_diagonal(exec, A, options, false);
}

template <class Exec, class S, class O, class Off, class D>
DiagonalMatrix<S, O, Off, D> to_diagonal(const Exec& exec, const Coo<S, O, Off, D>& A,
                                         const DiagonalOptions& options = {}) {
  return to_diagonal(exec, to_csr(exec, A), options);
}

template <class Exec, class S, class O, class Off, class D>
CompactDiagonalMatrix<S, O, Off, D> to_compact_diagonal(
    const Exec& exec, const Coo<S, O, Off, D>& A, const DiagonalOptions& options = {}) {
  return to_compact_diagonal(exec, to_csr(exec, A), options);
}

// Stored zeros (positions of a stored diagonal that hold no entry) are dropped.
template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> to_csr(const Exec& exec, const DiagonalMatrix<S, O, Off, D>& A) {
  impl::check_diagonal_space<Exec, D>();
  return impl::diagonal_to_csr(exec, A);
}

template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> to_csr(const Exec& exec, const CompactDiagonalMatrix<S, O, Off, D>& A) {
  impl::check_diagonal_space<Exec, D>();
  return impl::diagonal_to_csr(exec, A);
}

template <class Exec, class S, class O, class Off, class D>
Coo<S, O, Off, D> to_coo(const Exec& exec, const DiagonalMatrix<S, O, Off, D>& A) {
  return to_coo(exec, to_csr(exec, A));
}

template <class Exec, class S, class O, class Off, class D>
Coo<S, O, Off, D> to_coo(const Exec& exec, const CompactDiagonalMatrix<S, O, Off, D>& A) {
  return to_coo(exec, to_csr(exec, A));
}

}  // namespace libra
