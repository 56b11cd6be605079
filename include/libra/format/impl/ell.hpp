#pragma once
// CSR -> ELL (with an optional COO tail) and ELL -> COO.
#include <Kokkos_Core.hpp>
#include <string>

#include "libra/algorithms/scan.hpp"
#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/ell.hpp"

namespace libra::impl {

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
  Kokkos::View<Off*, D> tail_counts("libra::ell::tail_counts",
                                    static_cast<std::size_t>(rows));
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
        tail_counts(i) =
            len > static_cast<Off>(width) ? len - static_cast<Off>(width) : 0;
      });
  Kokkos::View<Off*, D> tail_offsets(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::ell::tail_offsets"),
      static_cast<std::size_t>(rows) + 1);
  const std::size_t tail_nnz = exclusive_scan(exec, "libra::ell::scan_tail", tail_counts,
                                              tail_offsets, "ELL tail entries");
  typename Tail::index_type tail_rows(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::ell::tail_rows"), tail_nnz);
  typename Tail::index_type tail_cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::ell::tail_cols"), tail_nnz);
  typename Tail::values_type tail_vals(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::ell::tail_values"),
      tail_nnz);
  if (tail_nnz > 0) {
    Kokkos::parallel_for(
        "libra::ell::fill_tail", Kokkos::RangePolicy<Exec>(exec, 0, rows),
        KOKKOS_LAMBDA(const O i) {
          const Off src = row_map(i) + static_cast<Off>(width);
          const Off dst = tail_offsets(i);
          for (Off t = 0; t < tail_counts(i); ++t) {
            tail_rows(dst + t) = i;
            tail_cols(dst + t) = col_idx(src + t);
            tail_vals(dst + t) = values(src + t);
          }
        });
  }
  return Out(rows, A.num_cols, width, ell_cols, ell_vals,
             Tail(rows, A.num_cols, tail_rows, tail_cols, tail_vals));
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
  Kokkos::View<Off*, D> counts("libra::ell::row_counts", static_cast<std::size_t>(rows));
  Kokkos::parallel_for(
      "libra::ell::count", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const O i) {
        Off c = 0;
        for (O k = 0; k < width; ++k) c += ell_cols(i, k) >= 0;
        counts(i) = c;
      });
  Kokkos::View<Off*, D> offsets(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::ell::offsets"),
      static_cast<std::size_t>(rows) + 1);
  const std::size_t ell_nnz =
      exclusive_scan(exec, "libra::ell::scan", counts, offsets, "ELL entries");
  const std::size_t tail_nnz = A.tail.row_idx.extent(0);
  const std::size_t total = ell_nnz + tail_nnz;
  checked_cast<Off>(total, "ELL entries");
  typename Out::index_type rows_out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::rows"), total);
  typename Out::index_type cols_out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::cols"), total);
  typename Out::values_type vals_out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::values"), total);
  Kokkos::parallel_for(
      "libra::ell::to_coo", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const O i) {
        Off p = offsets(i);
        for (O k = 0; k < width; ++k) {
          if (ell_cols(i, k) < 0) continue;
          rows_out(p) = i;
          cols_out(p) = ell_cols(i, k);
          vals_out(p) = ell_vals(i, k);
          ++p;
        }
      });
  if (tail_nnz > 0) {
    const auto r = Kokkos::subview(rows_out, Kokkos::make_pair(ell_nnz, total));
    const auto c = Kokkos::subview(cols_out, Kokkos::make_pair(ell_nnz, total));
    const auto v = Kokkos::subview(vals_out, Kokkos::make_pair(ell_nnz, total));
    Kokkos::deep_copy(exec, r, A.tail.row_idx);
    Kokkos::deep_copy(exec, c, A.tail.col_idx);
    Kokkos::deep_copy(exec, v, A.tail.values);
  }
  return Out(rows, A.num_cols, rows_out, cols_out, vals_out);
}

}  // namespace libra::impl
