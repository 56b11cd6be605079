#pragma once
// The count -> scan -> allocate -> fill pattern that builds a sparse matrix from
// a generator of rows, written once. A visitor emits row i's entries, once to
// count them and once to write them; the same rows come out as CSR arrays or as
// COO arrays. Entries a visitor rejects (pruned, stored zeros) it reports with
// emit.drop(), and the builder returns how many there were.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/core/checked.hpp"
#include "libra/format/csr.hpp"

namespace libra::impl {

template <class Off>
struct RowCounter {
  Off n = 0;
  std::uint64_t dropped = 0;
  template <class O, class S>
  KOKKOS_INLINE_FUNCTION void operator()(O, S) {
    ++n;
  }
  KOKKOS_INLINE_FUNCTION void drop() { ++dropped; }
};

template <class O, class S>
struct RowWriter {
  O* col;
  S* val;
  KOKKOS_INLINE_FUNCTION void operator()(O c, S v) {
    *col++ = c;
    *val++ = v;
  }
  KOKKOS_INLINE_FUNCTION void drop() {}
};

template <class O, class S>
struct CooRowWriter {
  O row;
  O* rows;
  O* col;
  S* val;
  KOKKOS_INLINE_FUNCTION void operator()(O c, S v) {
    *rows++ = row;
    *col++ = c;
    *val++ = v;
  }
  KOKKOS_INLINE_FUNCTION void drop() {}
};

// The builder's kernels, as named functors (see algorithms/scan.hpp for why not
// lambdas: every reader and generator instantiates them alike).
template <class Off, class O, class Counts, class Visit>
struct CountRowsOp {
  using value_type = std::uint64_t;
  Counts counts;
  Visit visit;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::uint64_t& d) const {
    RowCounter<Off> c;
    visit(static_cast<O>(i), c);
    counts(i) = c.n;
    d += c.dropped;
  }
};

template <class S, class O, class RowMap, class Visit>
struct FillCsrRowsOp {
  RowMap row_map;
  Kokkos::View<O*, typename RowMap::memory_space> col;
  Kokkos::View<S*, typename RowMap::memory_space> val;
  Visit visit;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    RowWriter<O, S> w{col.data() + row_map(i), val.data() + row_map(i)};
    visit(static_cast<O>(i), w);
  }
};

template <class S, class O, class Starts, class Visit>
struct FillCooRowsOp {
  Starts start;
  Kokkos::View<O*, typename Starts::memory_space> r, c;
  Kokkos::View<S*, typename Starts::memory_space> v;
  Visit visit;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const auto p = start(i);
    CooRowWriter<O, S> w{static_cast<O>(i), r.data() + p, c.data() + p, v.data() + p};
    visit(static_cast<O>(i), w);
  }
};

// Where each row's entries start (rows + 1 offsets) and how many entries were
// dropped while counting.
template <class Off, class Mem>
struct RowOffsets {
  Kokkos::View<Off*, Mem> offsets;
  std::uint64_t total = 0;
  std::uint64_t dropped = 0;
};

// The offsets of rows whose lengths are counts(i). Throws OverflowError (naming
// `what`) when the total does not fit Off.
template <class Off, class Exec, class Counts>
RowOffsets<Off, typename Exec::memory_space> scan_row_counts(const Exec& exec,
                                                             const Counts& counts,
                                                             const char* what) {
  using mem = typename Exec::memory_space;
  RowOffsets<Off, mem> out;
  out.offsets = Kokkos::View<Off*, mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::build_rows::offsets"),
      counts.extent(0) + 1);
  out.total = exclusive_scan(exec, "libra::build_rows::scan", counts, out.offsets, what);
  return out;
}

// Counts the rows visit(i, emit) emits, then scans them.
template <class Off, class Exec, class O, class Visit>
RowOffsets<Off, typename Exec::memory_space> count_rows(const Exec& exec, O rows,
                                                        const Visit& visit,
                                                        const char* what) {
  using mem = typename Exec::memory_space;
  Kokkos::View<Off*, mem> counts(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::build_rows::counts"),
      static_cast<std::size_t>(rows));
  std::uint64_t dropped = 0;
  Kokkos::parallel_reduce(
      "libra::build_rows::count", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      CountRowsOp<Off, O, decltype(counts), Visit>{counts, visit}, dropped);
  auto out = scan_row_counts<Off>(exec, counts, what);
  out.dropped = dropped;
  return out;
}

template <class S, class O, class Off, class Mem>
struct CsrArrays {
  Kokkos::View<Off*, Mem> row_map;
  Kokkos::View<O*, Mem> col;
  Kokkos::View<S*, Mem> val;
  std::uint64_t dropped = 0;
};

// CSR arrays for rows of the lengths behind `offsets`, entries uninitialised:
// for a caller whose fill is not a row visitor (one thread per entry, say).
template <class S, class O, class Off, class Mem>
CsrArrays<S, O, Off, Mem> allocate_csr_arrays(const RowOffsets<Off, Mem>& offsets) {
  CsrArrays<S, O, Off, Mem> out;
  out.row_map = offsets.offsets;
  out.col = Kokkos::View<O*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::col_idx"),
      offsets.total);
  out.val = Kokkos::View<S*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::values"),
      offsets.total);
  out.dropped = offsets.dropped;
  return out;
}

// The arrays of the CSR matrix whose row i holds what visit(i, emit) emits
// (emit(col, value), columns ascending). `visit` is a functor with a templated
// `operator()(Ordinal i, Emit& emit) const`; it must emit the same entries on
// both calls. Throws OverflowError (naming `what`) when nnz does not fit Off.
template <class S, class O, class Off, class Exec, class Visit>
CsrArrays<S, O, Off, typename Exec::memory_space> build_csr_arrays(const Exec& exec,
                                                                   O rows,
                                                                   const Visit& visit,
                                                                   const char* what) {
  const auto offsets = count_rows<Off>(exec, rows, visit, what);
  const auto out = allocate_csr_arrays<S, O>(offsets);
  const auto row_map = out.row_map;
  const auto col = out.col;
  const auto val = out.val;
  Kokkos::parallel_for(
      "libra::build_rows::fill_csr", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      FillCsrRowsOp<S, O, decltype(row_map), Visit>{row_map, col, val, visit});
  return out;
}

// The same as a Csr.
template <class S, class O, class Off, class D, class Exec, class Visit>
Csr<S, O, Off, D> build_csr(const Exec& exec, O rows, O cols, const Visit& visit,
                            const char* what) {
  const auto a = build_csr_arrays<S, O, Off>(exec, rows, visit, what);
  return Csr<S, O, Off, D>(rows, cols, a.row_map, a.col, a.val);
}

template <class S, class O, class Mem>
struct CooArrays {
  Kokkos::View<O*, Mem> row;
  Kokkos::View<O*, Mem> col;
  Kokkos::View<S*, Mem> val;
  std::uint64_t emitted = 0;  // entries the visitor wrote, in front
  std::uint64_t dropped = 0;
};

// The visitor's rows as COO triplets in row order, with `extra` uninitialised
// entries after them for the caller to fill. The total must fit Off.
template <class S, class O, class Off, class Exec, class Visit>
CooArrays<S, O, typename Exec::memory_space> build_coo_arrays(const Exec& exec, O rows,
                                                              const Visit& visit,
                                                              std::uint64_t extra,
                                                              const char* what) {
  using mem = typename Exec::memory_space;
  const auto offsets = count_rows<Off>(exec, rows, visit, what);
  checked_cast<Off>(offsets.total + extra, what);
  const std::size_t total = offsets.total + extra;
  CooArrays<S, O, mem> out;
  out.row = Kokkos::View<O*, mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::rows"), total);
  out.col = Kokkos::View<O*, mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::cols"), total);
  out.val = Kokkos::View<S*, mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::values"), total);
  out.emitted = offsets.total;
  out.dropped = offsets.dropped;
  const auto start = offsets.offsets;
  const auto r = out.row;
  const auto c = out.col;
  const auto v = out.val;
  Kokkos::parallel_for(
      "libra::build_rows::fill_coo", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      FillCooRowsOp<S, O, decltype(start), Visit>{start, r, c, v, visit});
  return out;
}

}  // namespace libra::impl
