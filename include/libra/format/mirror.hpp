#pragma once
// Moving matrices between memory spaces, in the manner of
// Kokkos::create_mirror_view_and_copy: when the destination is the matrix's own
// memory space the views are shared, otherwise they are deep-copied.
#include <Kokkos_Core.hpp>

#include "libra/format/coo.hpp"
#include "libra/format/csc.hpp"
#include "libra/format/csr.hpp"

namespace libra {

namespace impl {
template <class Space>
using device_of =
    Kokkos::Device<typename Space::execution_space, typename Space::memory_space>;

template <class Space, class V>
auto copy_view(const V& v) {
  return Kokkos::create_mirror_view_and_copy(typename Space::memory_space(), v);
}
}  // namespace impl

// `Space` is an execution space, a memory space or a Kokkos::Device.
template <class Space, class S, class O, class Off, class D>
Csr<S, O, Off, impl::device_of<Space>> copy_to(const Csr<S, O, Off, D>& A) {
  return {A.num_rows, A.num_cols, impl::copy_view<Space>(A.row_map),
          impl::copy_view<Space>(A.col_idx), impl::copy_view<Space>(A.values)};
}

template <class Space, class S, class O, class Off, class D>
Csc<S, O, Off, impl::device_of<Space>> copy_to(const Csc<S, O, Off, D>& A) {
  return {A.num_rows, A.num_cols, impl::copy_view<Space>(A.col_map),
          impl::copy_view<Space>(A.row_idx), impl::copy_view<Space>(A.values)};
}

template <class Space, class S, class O, class Off, class D>
Coo<S, O, Off, impl::device_of<Space>> copy_to(const Coo<S, O, Off, D>& A) {
  return {A.num_rows, A.num_cols, impl::copy_view<Space>(A.row_idx),
          impl::copy_view<Space>(A.col_idx), impl::copy_view<Space>(A.values)};
}

// The matrix on the host (shared when it is already there).
template <class Matrix>
auto to_host(const Matrix& A) {
  return copy_to<Kokkos::DefaultHostExecutionSpace>(A);
}

}  // namespace libra
