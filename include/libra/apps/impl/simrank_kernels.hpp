#pragma once
// The small kernels SimRank needs around its two products per iteration: the
// identity, column normalisation, and alpha * P + beta * I with pruning.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/format/csr.hpp"

namespace libra::impl {

template <class S>
KOKKOS_INLINE_FUNCTION S magnitude(S v) {
  return v < S(0) ? -v : v;
}

// Written so that cut 0 keeps everything, NaN included.
template <class S>
KOKKOS_INLINE_FUNCTION bool survives(S v, S cut) {
  return !(magnitude(v) < cut);
}

template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> identity_csr(const Exec& exec, O n) {
  using M = Csr<S, O, Off, D>;
  typename M::row_map_non_const_type row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::S::row_map"),
      static_cast<std::size_t>(n) + 1);
  typename M::index_type col_idx(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::S::col_idx"),
      static_cast<std::size_t>(n));
  typename M::values_type values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::S::values"),
      static_cast<std::size_t>(n));
  Kokkos::parallel_for(
      "libra::simrank::identity", Kokkos::RangePolicy<Exec>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const O i) {
        row_map(i) = static_cast<Off>(i);
        if (i < n) {
          col_idx(i) = i;
          values(i) = S(1);
        }
      });
  return M(n, n, row_map, col_idx, values);
}

// Wn = W with column j divided by sum_i |W(i, j)| (an empty or all-zero column
// stays zero), and WnT its transpose, from Wt = transpose(W). The column sums
// are taken along Wt's rows in storage order, so they do not depend on thread
// scheduling, and both outputs divide the same value by the same sum: WnT is
// exactly the transpose of Wn.
template <class Exec, class S, class O, class Off, class D>
void normalize_columns(const Exec& exec, const Csr<S, O, Off, D>& W,
                       const Csr<S, O, Off, D>& Wt, Csr<S, O, Off, D>& Wn,
                       Csr<S, O, Off, D>& WnT) {
  using M = Csr<S, O, Off, D>;
  const O n = W.num_rows;
  typename M::values_type wn(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::Wn::values"),
      W.values.extent(0));
  typename M::values_type wnt(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::WnT::values"),
      Wt.values.extent(0));
  Kokkos::View<S*, typename M::device_type> sums(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::column_sums"),
      static_cast<std::size_t>(n));
  const auto t_row_map = Wt.row_map;
  const auto t_values = Wt.values;
  Kokkos::parallel_for(
      "libra::simrank::column_sums", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const O j) {
        S sum = 0;
        for (Off p = t_row_map(j); p < t_row_map(j + 1); ++p)
          sum += magnitude(t_values(p));
        sums(j) = sum;
        for (Off p = t_row_map(j); p < t_row_map(j + 1); ++p) {
          wnt(p) = sum == S(0) ? S(0) : t_values(p) / sum;
        }
      });
  const auto row_map = W.row_map;
  const auto col_idx = W.col_idx;
  const auto values = W.values;
  Kokkos::parallel_for(
      "libra::simrank::normalize", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const O i) {
        for (Off p = row_map(i); p < row_map(i + 1); ++p) {
          const S sum = sums(col_idx(p));
          wn(p) = sum == S(0) ? S(0) : values(p) / sum;
        }
      });
  Wn = M(W.num_rows, W.num_cols, W.row_map, W.col_idx, wn);
  WnT = M(Wt.num_rows, Wt.num_cols, Wt.row_map, Wt.col_idx, wnt);
}

// alpha * P + beta * I, dropping entries with |value| < cut. P is square
// with sorted columns; a row without a diagonal entry gets one inserted in
// column order (before pruning, so a beta below the cut is dropped too).
// `dropped` receives the number of entries pruned.
template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> scale_add_identity_prune(const Exec& exec, const Csr<S, O, Off, D>& P,
                                           S alpha, S beta, S cut,
                                           std::uint64_t& dropped) {
  using M = Csr<S, O, Off, D>;
  const O n = P.num_rows;
  const auto in_row_map = P.row_map;
  const auto in_col = P.col_idx;
  const auto in_val = P.values;
  Kokkos::View<Off*, typename M::device_type> counts(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::row_counts"),
      static_cast<std::size_t>(n));
  dropped = 0;
  Kokkos::parallel_reduce(
      "libra::simrank::count_kept", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const O i, std::uint64_t& pruned) {
        Off kept = 0;
        bool has_diagonal = false;
        for (Off p = in_row_map(i); p < in_row_map(i + 1); ++p) {
          S v = alpha * in_val(p);
          if (in_col(p) == i) {
            v += beta;
            has_diagonal = true;
          }
          if (survives(v, cut))
            ++kept;
          else
            ++pruned;
        }
        if (!has_diagonal) {
          if (survives(beta, cut))
            ++kept;
          else
            ++pruned;
        }
        counts(i) = kept;
      },
      dropped);
  typename M::row_map_non_const_type row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::S::row_map"),
      static_cast<std::size_t>(n) + 1);
  const std::uint64_t nnz =
      exclusive_scan(exec, "libra::simrank::scan_kept", counts, row_map, "nnz(S)");
  typename M::index_type col_idx(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::S::col_idx"), nnz);
  typename M::values_type values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::simrank::S::values"), nnz);
  Kokkos::parallel_for(
      "libra::simrank::fill_kept", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const O i) {
        Off q = row_map(i);
        bool diagonal_done = false;
        for (Off p = in_row_map(i); p < in_row_map(i + 1); ++p) {
          const O j = in_col(p);
          if (!diagonal_done && j > i) {
            if (survives(beta, cut)) {
              col_idx(q) = i;
              values(q++) = beta;
            }
            diagonal_done = true;
          }
          S v = alpha * in_val(p);
          if (j == i) {
            v += beta;
            diagonal_done = true;
          }
          if (survives(v, cut)) {
            col_idx(q) = j;
            values(q++) = v;
          }
        }
        if (!diagonal_done && survives(beta, cut)) {
          col_idx(q) = i;
          values(q) = beta;
        }
      });
  return M(n, n, row_map, col_idx, values);
}

}  // namespace libra::impl
