#pragma once
// The CDM columns kernel (GPUs, band-like operands) and the cyclic ranges that
// decide when it runs. The product's formula and the other kernels:
// impl/cdm_gemm.hpp.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/diag/impl/cdm_gemm.hpp"
#include "libra/diag/impl/diagonal_set.hpp"

namespace libra::impl {

// C's compact diagonals a thread of the columns kernel accumulates: the
// entries of one column of C.
constexpr int cdm_column_entries = 8;
// Libra's choice of the columns kernel: on GPUs, for op(A) with at least this
// many compact diagonals, spanning at most twice as many (and at most
// cdm_columns_max_span: the slot tables live in team scratch). Below 24
// diagonals (a band of half-width 12) the tiles kernel was as fast on the H100,
// and choosing costs two synchronisations.
constexpr std::int64_t cdm_columns_min_diagonals = 24;
constexpr std::int64_t cdm_columns_max_span = 4096;  // for 4-byte indices; halved for 8

// Where a list of compact indices sits on the cycle 0..n-1: the shortest cyclic
// range [lo, lo + span) holding them all (span 0 for an empty list). A band's
// compact indices {n - kl, ..., n - 1, 0, ..., ku} give lo = n - kl and span
// kl + ku + 1. One reduction, one synchronisation.
struct CyclicRange {
  std::int64_t lo = 0, span = 0;
};
template <class Exec, class IndexView>
CyclicRange cyclic_range(const Exec& exec, const IndexView& list, std::int64_t n) {
  const std::int64_t m = static_cast<std::int64_t>(list.extent(0));
  if (m == 0) return {};
  // The largest gap between cyclic neighbours, packed as gap * 2^32 + the index
  // after it (gap <= n and indices < n, both below 2^31).
  std::int64_t best = 0;
  Kokkos::parallel_reduce(
      "libra::diag::cyclic_range", Kokkos::RangePolicy<Exec>(exec, 0, m),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& most) {
        const std::int64_t next = i + 1 < m ? i + 1 : 0;
        std::int64_t gap = static_cast<std::int64_t>(list(next)) - list(i);
        if (next == 0) gap += n;
        const std::int64_t key = (gap << 32) | static_cast<std::int64_t>(list(next));
        if (key > most) most = key;
      },
      Kokkos::Max<std::int64_t>(best));
  return {best & 0xffffffff, n - (best >> 32) + 1};
}

// The columns kernel, for band-like sets: op(A)'s compact diagonals within the
// cyclic range [a_lo, a_lo + span_a), C's within [c_lo, c_lo + span_c). A team
// owns cdm_column_entries consecutive compact diagonals k0 + j of C; the thread
// of position p computes the entries (k0 + j, p - j), which lie in column
// p + k0 of C. Every term of those entries multiplies the same row of B:
//   C_{k0+j}[p-j] = sum over a of op(A)_{a+j}[p-j] * op(B)_{k0-a}[p+a],
// so each value of B the thread loads serves its cdm_column_entries sums (the
// tiles kernel loads one per multiply-add). Absent diagonals are skipped through
// slot tables in scratch.
template <class Exec, class P>
void cdm_columns(const Exec& exec, const P& pr, CyclicRange ar, CyclicRange cr, int tp,
                 int team) {
  using S = decltype(pr.alpha);
  using O = typename decltype(pr.a_diag)::non_const_value_type;
  using policy = Kokkos::TeamPolicy<Exec>;
  using member = typename policy::member_type;
  using scratch_o = CdmScratch<Exec, O>;
  constexpr int J = cdm_column_entries;
  const std::int64_t n = pr.n;
  const std::int64_t span_a = ar.span, steps = ar.span + J - 1;
  const std::int64_t c_tiles = (cr.span + J - 1) / J;
  const std::int64_t p_tiles = (n + tp - 1) / tp;
  const CdmLookup<decltype(pr.a_diag)> a_at{pr.a_diag, pr.ta, n};
  const std::size_t bytes = scratch_o::shmem_size(static_cast<std::size_t>(span_a)) +
                            scratch_o::shmem_size(static_cast<std::size_t>(steps)) +
                            2 * scratch_o::shmem_size(J);
  Kokkos::parallel_for(
      "libra::diag::cdm::columns",
      policy(exec, c_tiles * p_tiles, team).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& m) {
        const std::int64_t ct = m.league_rank() % c_tiles;
        const std::int64_t p0 = (m.league_rank() / c_tiles) * tp;
        const std::int64_t k0 = (cr.lo + ct * J) % n;
        // Step u multiplies op(B)'s diagonal k0 - a, a = a_lo - (J - 1) + u.
        const std::int64_t a_first = (ar.lo - (J - 1) % n + n) % n;
        scratch_o slot_a(m.team_scratch(0), static_cast<std::size_t>(span_a));
        scratch_o slot_b(m.team_scratch(0), static_cast<std::size_t>(steps));
        scratch_o slot_c(m.team_scratch(0), J);
        scratch_o slot_in(m.team_scratch(0), J);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, steps + J), [&](const int i) {
          std::int64_t shift = 0;
          if (i < span_a) {
            slot_a(i) = static_cast<O>(a_at.slot(wrap(ar.lo + i, n), shift));
          }
          if (i < steps) {
            const std::int64_t a = wrap(a_first + i % n, n);
            slot_b(i) = static_cast<O>(pr.b_at.slot(wrap(k0 - a + n, n), shift));
          }
          if (i >= steps) {
            const int j = static_cast<int>(i - steps);
            const bool on = ct * J + j < cr.span;
            const std::int64_t k = (k0 + j) % n;
            slot_c(j) = static_cast<O>(on ? find_sorted(pr.c_diag, k) : -1);
            slot_in(j) = static_cast<O>(on ? pr.input_slot(k) : -1);
          }
        });
        m.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, tp), [&](const int q) {
          const std::int64_t p = p0 + q;
          if (p >= n) return;
          S sum[J];
          std::int64_t at[J];  // position p - j, mod n
          for (int j = 0; j < J; ++j) {
            sum[j] = S(0);
            at[j] = p - j < 0 ? p - j + n : p - j;
          }
          // ra[j]: A's slot of op(A)_{a+j} at step u, slot_a(u - (J - 1) + j),
          // shifted along as u advances.
          O ra[J];
          for (int j = 0; j < J; ++j) ra[j] = O(-1);
          std::int64_t a = a_first;
          for (std::int64_t u = 0; u < steps; ++u, a = wrap(a + 1, n)) {
            for (int j = 0; j + 1 < J; ++j) ra[j] = ra[j + 1];
            ra[J - 1] = u < span_a ? slot_a(u) : O(-1);
            const O rb = slot_b(u);
            if (rb < 0) continue;
            // op(B)_{k0-a} at p + a: B's row at p + a, or B^T's at p + k0.
            const S y = pr.b(rb, pr.b_at.transpose ? wrap(p + k0, n) : wrap(p + a, n));
            // op(A)_{a+j} at p - j: A's row at p - j, or A^T's at p + a.
            const std::int64_t pa = wrap(p + a, n);
            for (int j = 0; j < J; ++j) {
              if (ra[j] >= 0) sum[j] += pr.a(ra[j], pr.ta ? pa : at[j]) * y;
            }
          }
          for (int j = 0; j < J; ++j) {
            const O rc = slot_c(j);
            if (rc >= 0) pr.c(rc, at[j]) = pr.finish(slot_in(j), at[j], sum[j]);
          }
        });
      });
}

}  // namespace libra::impl
