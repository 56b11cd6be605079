#pragma once
// CSR -> ELL (with an optional COO tail) and ELL -> COO.
#include <Kokkos_Core.hpp>
#include <string>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/ell.hpp"
#include "libra/format/impl/row_builder.hpp"

namespace libra::impl {

// Row i's entries beyond the first `width`: the COO tail of a hybrid ELL.
template <class RowMap, class Cols, class Vals>
struct CsrRowTail {
  RowMap row_map;
  Cols col_idx;
  Vals values;
  typename RowMap::non_const_value_type width;
  template <class O, class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O i, Emit& emit) const {
    const auto begin = row_map(i), end = row_map(i + 1);
    if (end - begin <= width) return;  // begin + width could overflow Off
    for (auto p = begin + width; p < end; ++p) emit(col_idx(p), values(p));
  }
};

// Row i's used ELL slots (column -1 marks an unused one).
template <class Cols, class Vals>
struct EllSlots {
  Cols cols;
  Vals vals;
  typename Cols::non_const_value_type width;
  template <class O, class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O i, Emit& emit) const {
    for (O k = 0; k < width; ++k)
      if (cols(i, k) >= 0) emit(cols(i, k), vals(i, k));
  }
};

template <class Exec, class S, class O, class Off, class D>
Ell<S, O, Off, D> csr_to_ell(const Exec& exec, const Csr<S, O, Off, D>& A,
                             long long requested_width, bool hybrid) {
  using Out = Ell<S, O, Off, D>;
  using Tail = typename Out::tail_type;
  const auto row_map = A.row_map;
  const auto col_idx = A.col_idx;
  const auto values = A.values;
  const O rows = A.num_rows;

  Off longest = 0;
  Kokkos::parallel_reduce(
      "libra::ell::longest_row", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const O i, Off& m) {
        const Off len = row_map(i + 1) - row_map(i);
        if (len > m) m = len;
      },
      Kokkos::Max<Off>(longest));
  if (rows == 0) longest = 0;  // the reducer's identity is the type's minimum
  if (requested_width < -1) {
    throw ArgumentError("to_ell: width must be -1 (longest row) or >= 0, got " +
                        std::to_string(requested_width));
  }
  const O width = requested_width < 0 ? checked_cast<O>(longest, "ELL width")
                                      : checked_cast<O>(requested_width, "ELL width");
  if (!hybrid && static_cast<long long>(longest) > static_cast<long long>(width)) {
    O first = rows;
    Kokkos::parallel_reduce(
        "libra::ell::first_long_row", Kokkos::RangePolicy<Exec>(exec, 0, rows),
        KOKKOS_LAMBDA(const O i, O& m) {
          if (row_map(i + 1) - row_map(i) > static_cast<Off>(width) && i < m) m = i;
        },
        Kokkos::Min<O>(first));
    throw ArgumentError("to_ell: row " + std::to_string(first) +
                        " has more entries than " + "the width " + std::to_string(width) +
                        " (longest row: " + std::to_string(longest) +
                        "); use EllOverflow::hybrid or a larger width");
  }

  typename Out::index_type ell_cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::ell::col_idx"),
      static_cast<std::size_t>(rows), static_cast<std::size_t>(width));
  typename Out::values_type ell_vals(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::ell::values"),
      static_cast<std::size_t>(rows), static_cast<std::size_t>(width));
  Kokkos::parallel_for(
      "libra::ell::fill", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const O i) {
        const Off begin = row_map(i);
        const Off len = row_map(i + 1) - begin;
        for (O k = 0; k < width; ++k) {
          const bool used = static_cast<Off>(k) < len;
          ell_cols(i, k) = used ? col_idx(begin + k) : O(-1);
          ell_vals(i, k) = used ? values(begin + k) : S(0);
        }
      });
  const auto tail = build_coo_arrays<S, O, Off>(
      exec, rows,
      CsrRowTail<decltype(row_map), decltype(col_idx), decltype(values)>{
          row_map, col_idx, values, static_cast<Off>(width)},
      0, "ELL tail entries");
  return Out(rows, A.num_cols, width, ell_cols, ell_vals,
             Tail(rows, A.num_cols, tail.row, tail.col, tail.val));
}

// All stored entries of an ELL matrix (slots with column -1 skipped) plus its tail,
// unsorted; to_csr() sorts them and sums duplicates.
template <class Exec, class S, class O, class Off, class D>
Coo<S, O, Off, D> ell_to_coo(const Exec& exec, const Ell<S, O, Off, D>& A) {
  using Out = Coo<S, O, Off, D>;
  const O rows = A.num_rows;
  const O width = A.width;
  const auto ell_cols = A.col_idx;
  const auto ell_vals = A.values;
  const std::size_t tail_nnz = A.tail.row_idx.extent(0);
  const auto coo = build_coo_arrays<S, O, Off>(
      exec, rows,
      EllSlots<decltype(ell_cols), decltype(ell_vals)>{ell_cols, ell_vals, width},
      tail_nnz, "ELL entries");
  if (tail_nnz > 0) {
    const auto tail = Kokkos::make_pair(static_cast<std::size_t>(coo.emitted),
                                        static_cast<std::size_t>(coo.emitted) + tail_nnz);
    Kokkos::deep_copy(exec, Kokkos::subview(coo.row, tail), A.tail.row_idx);
    Kokkos::deep_copy(exec, Kokkos::subview(coo.col, tail), A.tail.col_idx);
    Kokkos::deep_copy(exec, Kokkos::subview(coo.val, tail), A.tail.values);
  }
  return Out(rows, A.num_cols, coo.row, coo.col, coo.val);
}

}  // namespace libra::impl
