#pragma once
// The small kernels SimRank needs around its two products per iteration: the
// identity, column normalisation, and alpha * P + beta * I with pruning.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/format/csr.hpp"
#include "libra/format/impl/row_builder.hpp"

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

// q such that perm(q) = p, for every p: how an entry's position in W^T maps back.
template <class Exec, class View>
View inverse_permutation(const Exec& exec, const View& perm) {
  using Index = typename View::non_const_value_type;
  const View inverse(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                        "libra::simrank::inverse_permutation"),
                     perm.extent(0));
  Kokkos::parallel_for(
      "libra::simrank::inverse_permutation",
      Kokkos::RangePolicy<Exec>(exec, 0, perm.extent(0)),
      KOKKOS_LAMBDA(const std::size_t q) { inverse(perm(q)) = static_cast<Index>(q); });
  return inverse;
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

// Row i of alpha * P + beta * I, entries with |value| < cut dropped. P has
// sorted columns; a row without a diagonal entry gets one inserted in column
// order (before pruning, so a beta below the cut is dropped too).
template <class M>
struct ScaledIdentityRows {
  using S = typename M::scalar_type;
  using O = typename M::ordinal_type;
  typename M::row_map_type row_map;
  typename M::index_type col_idx;
  typename M::values_type values;
  S alpha, beta, cut;

  template <class Emit>
  KOKKOS_INLINE_FUNCTION void keep_or_drop(Emit& emit, O j, S v) const {
    if (survives(v, cut))
      emit(j, v);
    else
      emit.drop();
  }
  template <class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O i, Emit& emit) const {
    bool diagonal_done = false;
    for (auto p = row_map(i); p < row_map(i + 1); ++p) {
      const O j = col_idx(p);
      if (!diagonal_done && j > i) {
        keep_or_drop(emit, i, beta);
        diagonal_done = true;
      }
      S v = alpha * values(p);
      if (j == i) {
        v += beta;
        diagonal_done = true;
      }
      keep_or_drop(emit, j, v);
    }
    if (!diagonal_done) keep_or_drop(emit, i, beta);
  }
};

// alpha * P + beta * I, pruned as ScaledIdentityRows says, P square.
// `dropped` receives the number of entries pruned.
template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> scale_add_identity_prune(const Exec& exec, const Csr<S, O, Off, D>& P,
                                           S alpha, S beta, S cut,
                                           std::uint64_t& dropped) {
  using M = Csr<S, O, Off, D>;
  const ScaledIdentityRows<M> rows{P.row_map, P.col_idx, P.values, alpha, beta, cut};
  const auto a = build_csr_arrays<S, O, Off>(exec, P.num_rows, rows, "nnz(S)");
  dropped = a.dropped;
  return M(P.num_rows, P.num_rows, a.row_map, a.col, a.val);
}

}  // namespace libra::impl
