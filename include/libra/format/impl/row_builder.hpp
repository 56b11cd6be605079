#pragma once
// The count -> scan -> allocate -> fill pattern that builds a Csr from a
// generator of rows, written once: a visitor emits row i's entries in column
// order, once to count them and once to write them.
#include <Kokkos_Core.hpp>

#include "libra/algorithms/scan.hpp"
#include "libra/format/csr.hpp"

namespace libra::impl {

template <class Off>
struct RowCounter {
  Off n = 0;
  template <class O, class S>
  KOKKOS_INLINE_FUNCTION void operator()(O, S) {
    ++n;
  }
};

template <class O, class S>
struct RowWriter {
  O* col;
  S* val;
  KOKKOS_INLINE_FUNCTION void operator()(O c, S v) {
    *col++ = c;
    *val++ = v;
  }
};

// The rows x cols Csr whose row i holds what visit(i, emit) emits (emit(col,
// value), columns ascending). `visit` is a functor with a templated
// `operator()(Ordinal i, Emit& emit) const`; it must emit the same entries on
// both calls. Throws OverflowError (naming `what`) when nnz does not fit Off.
template <class S, class O, class Off, class D, class Exec, class Visit>
Csr<S, O, Off, D> build_csr(const Exec& exec, O rows, O cols, const Visit& visit,
                            const char* what) {
  using Out = Csr<S, O, Off, D>;
  Kokkos::View<Off*, typename D::memory_space> counts(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::build_csr::counts"),
      static_cast<std::size_t>(rows));
  Kokkos::parallel_for(
      "libra::build_csr::count", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        RowCounter<Off> c;
        visit(static_cast<O>(i), c);
        counts(i) = c.n;
      });
  typename Out::row_map_non_const_type row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::row_map"),
      static_cast<std::size_t>(rows) + 1);
  const std::uint64_t nnz =
      exclusive_scan(exec, "libra::build_csr::scan", counts, row_map, what);
  typename Out::index_type col(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::col_idx"), nnz);
  typename Out::values_type val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::values"), nnz);
  Kokkos::parallel_for(
      "libra::build_csr::fill", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        RowWriter<O, S> w{col.data() + row_map(i), val.data() + row_map(i)};
        visit(static_cast<O>(i), w);
      });
  return Out(rows, cols, row_map, col, val);
}

}  // namespace libra::impl
