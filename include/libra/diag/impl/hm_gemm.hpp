#pragma once
// C = alpha * op(A) * op(B) + beta * C_in with every matrix in HM diagonal
// storage (../shared/papers/003, Section 6.2): a thread per stored value of A,
// looping over B's diagonals, adding each product into C with an atomic. The
// paper's thirteen cases (which of A's, B's and C's diagonals are super-, sub-
// or the main diagonal) all follow from its two rules, which is how the kernel
// is written: A's value at position p of diagonal d is a(i, j) with
// min(i, j) = p, j - i = d; it meets B's diagonal e at b(j, j + e), stored at
// position min(j, j + e), and lands on C's diagonal j + e - i at position
// min(i, j + e). Zeros of A and B (positions of a diagonal with no entry) are
// skipped before any atomic.
//
// Hosts take hm_pairs instead: a thread per diagonal of C walks the diagonals
// of A, finds the one of B whose sum is C's, and adds the pair's contribution,
// one contiguous shifted vector product over the rows where both exist (no
// atomics: the thread owns C's diagonal; the compiler vectorises the run).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/core/dynamic_range.hpp"
#include "libra/diag/impl/diagonal_set.hpp"
#include "libra/format/diagonal.hpp"

namespace libra::impl {

template <class S, class O, class Off, class D>
struct HmProduct {
  using M = DiagonalMatrix<S, O, Off, D>;
  S alpha{};
  M a, b, c;
  bool ta = false, tb = false;
  HmKeys<O> c_keys;
  typename M::index_type c_map;  // C's key -> slot
  HmKeys<O> b_keys;
  typename M::index_type b_map;  // B's key -> slot (hm_pairs)
};

template <class Exec, class P>
void hm_entries(const Exec& exec, const P& pr) {
  using S = decltype(pr.alpha);
  const std::int64_t stored = static_cast<std::int64_t>(pr.a.values.extent(0));
  const std::int64_t dg_a = static_cast<std::int64_t>(pr.a.diag.extent(0));
  const std::int64_t dg_b = static_cast<std::int64_t>(pr.b.diag.extent(0));
  // op(B) is k x n: its columns are C's.
  const std::int64_t n = pr.c.num_cols;
  Kokkos::parallel_for(
      "libra::diag::hm::entries", Kokkos::RangePolicy<Exec>(exec, 0, stored),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const S av = pr.a.values(t);
        if (av == S(0)) return;
        const std::int64_t lo = diagonal_of(pr.a.start, dg_a, t);
        const std::int64_t p = t - static_cast<std::int64_t>(pr.a.start(lo));
        const std::int64_t d = pr.a.diag(lo);
        std::int64_t i = d >= 0 ? p : p - d;
        std::int64_t j = d >= 0 ? p + d : p;
        if (pr.ta) {
          const std::int64_t x = i;
          i = j;
          j = x;
        }
        const S scaled = pr.alpha * av;
        for (std::int64_t s = 0; s < dg_b; ++s) {
          const std::int64_t e = pr.tb ? -pr.b.diag(s) : pr.b.diag(s);
          const std::int64_t k = j + e;
          if (k < 0 || k >= n) continue;
          const S bv = pr.b.values(pr.b.start(s) + (j < k ? j : k));
          if (bv == S(0)) continue;
          const std::int64_t cs = pr.c_map(pr.c_keys.key(k - i));
          Kokkos::atomic_add(&pr.c.values(pr.c.start(cs) + (i < k ? i : k)), scaled * bv);
        }
      });
}

template <class Exec, class P>
void hm_pairs(const Exec& exec, const P& pr) {
  using S = decltype(pr.alpha);
  const std::int64_t dg_c = static_cast<std::int64_t>(pr.c.diag.extent(0));
  const std::int64_t dg_a = static_cast<std::int64_t>(pr.a.diag.extent(0));
  const std::int64_t m = pr.c.num_rows, n = pr.c.num_cols;
  const std::int64_t k = pr.ta ? pr.a.num_rows : pr.a.num_cols;
  dynamic_for(
      "libra::diag::hm::pairs", exec, 0, dg_c, 0, KOKKOS_LAMBDA(const std::int64_t c) {
        const std::int64_t f = pr.c.diag(c);
        S* out = pr.c.values.data();
        // C(i, i + f) is at oc + i; op(A)(i, i + d) at oa + i; op(B)(i + d, i + f) at ob
        // + i.
        const std::int64_t oc =
            static_cast<std::int64_t>(pr.c.start(c)) + (f < 0 ? f : 0);
        for (std::int64_t sa = 0; sa < dg_a; ++sa) {
          const std::int64_t d = pr.ta ? -pr.a.diag(sa) : pr.a.diag(sa);
          const std::int64_t e = f - d;  // op(B)'s diagonal
          const std::int64_t e_stored = pr.tb ? -e : e;
          if (e_stored <= -pr.b.num_rows || e_stored >= pr.b.num_cols) continue;
          const std::int64_t sb = pr.b_map(pr.b_keys.key(e_stored));
          if (sb < 0) continue;
          // Rows i where op(A)(i, i + d), op(B)(i + d, i + f) and C(i, i + f) exist.
          std::int64_t lo = 0, hi = m;
          if (-d > lo) lo = -d;
          if (-f > lo) lo = -f;
          if (k - d < hi) hi = k - d;
          if (n - f < hi) hi = n - f;
          const std::int64_t oa =
              static_cast<std::int64_t>(pr.a.start(sa)) + (d < 0 ? d : 0);
          const std::int64_t ob =
              static_cast<std::int64_t>(pr.b.start(sb)) + d + (e < 0 ? e : 0);
          const S* a = pr.a.values.data();
          const S* b = pr.b.values.data();
          const S alpha = pr.alpha;
          for (std::int64_t i = lo; i < hi; ++i)
            out[oc + i] += alpha * a[oa + i] * b[ob + i];
        }
      });
}

}  // namespace libra::impl
