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

// The arrays of the rows x cols CSR matrix whose row i holds what visit(i, emit)
// emits (emit(col, value), columns ascending). `visit` is a functor with a
// templated `operator()(Ordinal i, Emit& emit) const`; it must emit the same
// entries on both calls. Throws OverflowError (naming `what`) when nnz does not
// fit Off.
template <class S, class O, class Off, class Mem>
struct CsrArrays {
  Kokkos::View<Off*, Mem> row_map;
  Kokkos::View<O*, Mem> col;
  Kokkos::View<S*, Mem> val;
};

template <class S, class O, class Off, class Exec, class Visit>
CsrArrays<S, O, Off, typename Exec::memory_space> build_csr_arrays(const Exec& exec,
                                                                   O rows,
                                                                   const Visit& visit,
                                                                   const char* what) {
  using mem = typename Exec::memory_space;
  CsrArrays<S, O, Off, mem> out;
  Kokkos::View<Off*, mem> counts(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::build_csr::counts"),
      static_cast<std::size_t>(rows));
  Kokkos::parallel_for(
      "libra::build_csr::count", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        RowCounter<Off> c;
        visit(static_cast<O>(i), c);
        counts(i) = c.n;
      });
  const Kokkos::View<Off*, mem> row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::row_map"),
      static_cast<std::size_t>(rows) + 1);
  const std::uint64_t nnz =
      exclusive_scan(exec, "libra::build_csr::scan", counts, row_map, what);
  const Kokkos::View<O*, mem> col(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::col_idx"), nnz);
  const Kokkos::View<S*, mem> val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::values"), nnz);
  Kokkos::parallel_for(
      "libra::build_csr::fill", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        RowWriter<O, S> w{col.data() + row_map(i), val.data() + row_map(i)};
        visit(static_cast<O>(i), w);
      });
  out.row_map = row_map;
  out.col = col;
  out.val = val;
  return out;
}

// The same as a Csr.
template <class S, class O, class Off, class D, class Exec, class Visit>
Csr<S, O, Off, D> build_csr(const Exec& exec, O rows, O cols, const Visit& visit,
                            const char* what) {
  const auto a = build_csr_arrays<S, O, Off>(exec, rows, visit, what);
  return Csr<S, O, Off, D>(rows, cols, a.row_map, a.col, a.val);
}

}  // namespace libra::impl
