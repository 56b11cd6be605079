#pragma once
// C = alpha * op(A) * op(B) + beta * C_in with every matrix in compact diagonal
// storage (../shared/papers/003, Sections 4 and 6.1). Position p of C's compact
// diagonal k is
//   sum over A's compact diagonals a of op(A)_a[p] * op(B)_{(k - a) mod n}[(p + a) mod
//   n],
// a sum of shifted vector products; op(X)_k[p] is X_k[p], or for X^T
// X_{(n - k) mod n}[(p + k) mod n]. Two kernels compute it:
//  - tiles (GPUs): a team per tile of C (tile_diagonals compact diagonals x
//    tile_positions positions, a thread per position holding its tile_diagonals
//    sums in registers), so each value of A it loads serves every diagonal of
//    the tile (the paper's Algorithm 1, with A's tile staged in registers rather
//    than scratch: no value of it is shared between threads); B's rows for each
//    pair of diagonals are tabulated in scratch tile_depth diagonals of A at a
//    time;
//  - rows (hosts): a thread per chunk of positions of one diagonal of C, each
//    term a contiguous run the compiler vectorises.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "libra/core/launch_traits.hpp"
#include "libra/diag/impl/diagonal_set.hpp"
#include "libra/diag/options.hpp"
#include "libra/format/diagonal.hpp"

namespace libra::impl {

// Where op(X)'s compact diagonal k lives: row `slot` of X's values (-1: not
// stored), read at (p + shift) mod n. Found by binary search in X's ascending
// list, so a product needs no map of all n compact indices.
template <class IndexView>
struct CdmLookup {
  IndexView diag;  // X's stored compact indices, ascending
  bool transpose = false;
  std::int64_t n = 0;
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t k, std::int64_t& shift) const {
    if (!transpose) {
      shift = 0;
      return find_sorted(diag, k);
    }
    shift = k;
    return find_sorted(diag, k == 0 ? 0 : n - k);
  }
};

KOKKOS_INLINE_FUNCTION std::int64_t wrap(std::int64_t q, std::int64_t n) {
  return q >= n ? q - n : q;
}

constexpr int cdm_max_chunk = 512;

template <class S, class O, class Off, class D>
struct CdmProduct {
  using M = CompactDiagonalMatrix<S, O, Off, D>;
  using index_type = typename M::index_type;
  std::int64_t n = 0;
  S alpha{}, beta{};
  typename M::values_type a, b, c, c_in;
  index_type a_diag, c_diag;
  bool ta = false;
  CdmLookup<index_type> b_at;
  index_type c_in_diag;  // C_in's compact indices, ascending (beta != 0)

  // C_in's slot of C's compact diagonal k (-1: none, or beta = 0).
  KOKKOS_INLINE_FUNCTION std::int64_t input_slot(std::int64_t k) const {
    return beta != S(0) ? find_sorted(c_in_diag, k) : -1;
  }
  KOKKOS_INLINE_FUNCTION S finish(std::int64_t in_slot, std::int64_t p, S acc) const {
    S v = alpha * acc;
    if (in_slot >= 0) v += beta * c_in(in_slot, p);
    return v;
  }
};

// The rows kernel: work item w is chunk w / dg_c of C's diagonal w % dg_c
// (neighbouring items share the chunk of A they read).
template <class Exec, class P>
void cdm_rows(const Exec& exec, const P& pr, int chunk) {
  using S = decltype(pr.alpha);
  const std::int64_t n = pr.n;
  const std::int64_t dg_c = static_cast<std::int64_t>(pr.c_diag.extent(0));
  const std::int64_t dg_a = static_cast<std::int64_t>(pr.a_diag.extent(0));
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  Kokkos::parallel_for(
      "libra::diag::cdm::rows", Kokkos::RangePolicy<Exec>(exec, 0, dg_c * chunks),
      KOKKOS_LAMBDA(const std::int64_t w) {
        const std::int64_t c = w % dg_c;
        const std::int64_t p0 = (w / dg_c) * chunk;
        const std::int64_t len = n - p0 < chunk ? n - p0 : chunk;
        const std::int64_t kc = pr.c_diag(c);
        S acc[cdm_max_chunk];
        for (std::int64_t t = 0; t < len; ++t) acc[t] = S(0);
        for (std::int64_t s = 0; s < dg_a; ++s) {
          const std::int64_t ka = op_diagonal(pr.a_diag(s), pr.ta, n);
          std::int64_t shift_b = 0;
          const std::int64_t rb = pr.b_at.slot(wrap(kc - ka + n, n), shift_b);
          if (rb < 0) continue;
          const std::int64_t shift_a = pr.ta ? ka : 0;
          shift_b = wrap(shift_b + ka, n);
          const S* arow = &pr.a(s, 0);
          const S* brow = &pr.b(rb, 0);
          // Runs over which neither operand's position wraps around n.
          for (std::int64_t t = 0; t < len;) {
            const std::int64_t qa = wrap(p0 + t + shift_a, n);
            const std::int64_t qb = wrap(p0 + t + shift_b, n);
            std::int64_t run = len - t;
            if (n - qa < run) run = n - qa;
            if (n - qb < run) run = n - qb;
            const S* x = arow + qa;
            const S* y = brow + qb;
            S* z = acc + t;
            for (std::int64_t r = 0; r < run; ++r) z[r] += x[r] * y[r];
            t += run;
          }
        }
        const std::int64_t in_slot = pr.input_slot(kc);
        for (std::int64_t t = 0; t < len; ++t) {
          pr.c(c, p0 + t) = pr.finish(in_slot, p0 + t, acc[t]);
        }
      });
}

// C's compact diagonals a thread of the tiles kernel accumulates in registers.
constexpr int cdm_tile_diagonals_max = 8;

// The tiles kernel. A team owns tc (<= cdm_tile_diagonals_max) compact diagonals
// of C over tp consecutive positions, one position per thread (TeamThreadRange on
// hosts): each value of A it loads serves the thread's tc diagonals of C from
// registers. For each step of ts diagonals of A the team first tabulates, in
// scratch, which of B's rows every (diagonal of C, diagonal of A) pair reads
// (-1: B lacks it), so the multiply-add loop does no map lookups.
template <class Exec, class P>
void cdm_tiles(const Exec& exec, const P& pr, int tc, int tp, int ts, int team) {
  using S = decltype(pr.alpha);
  using O = typename decltype(pr.a_diag)::non_const_value_type;
  using policy = Kokkos::TeamPolicy<Exec>;
  using member = typename policy::member_type;
  using scratch_s = Kokkos::View<S*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using scratch_o = Kokkos::View<O*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using scratch_i = Kokkos::View<std::int64_t*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr int R = cdm_tile_diagonals_max;
  const std::int64_t n = pr.n;
  const std::int64_t dg_c = static_cast<std::int64_t>(pr.c_diag.extent(0));
  const std::int64_t dg_a = static_cast<std::int64_t>(pr.a_diag.extent(0));
  const std::int64_t c_tiles = (dg_c + tc - 1) / tc;
  const std::int64_t p_tiles = (n + tp - 1) / tp;
  // Partial sums cross steps in scratch only when A has more than one step.
  const std::size_t partial = dg_a > ts ? static_cast<std::size_t>(tc) * tp : 0;
  const std::size_t bytes = scratch_s::shmem_size(partial) +
                            scratch_o::shmem_size(static_cast<std::size_t>(tc) * ts) +
                            scratch_i::shmem_size(ts) + scratch_i::shmem_size(tc);
  Kokkos::parallel_for(
      "libra::diag::cdm::tiles",
      policy(exec, c_tiles * p_tiles, team).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& m) {
        // Neighbouring teams share positions, hence the values of A and B they read.
        const std::int64_t c0 = (m.league_rank() % c_tiles) * tc;
        const std::int64_t p0 = (m.league_rank() / c_tiles) * tp;
        const int rc = dg_c - c0 < tc ? static_cast<int>(dg_c - c0) : tc;
        scratch_s acc(m.team_scratch(0), partial);
        scratch_o rows(m.team_scratch(0), static_cast<std::size_t>(tc) * ts);
        scratch_i ka(m.team_scratch(0), ts);
        scratch_i in_slots(m.team_scratch(0), tc);  // C_in's slot per diagonal of C
        if (dg_a == 0) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, tp), [&](const int q) {
            const std::int64_t p = p0 + q;
            if (p >= n) return;
            for (int r = 0; r < rc; ++r) {
              pr.c(c0 + r, p) = pr.finish(pr.input_slot(pr.c_diag(c0 + r)), p, S(0));
            }
          });
          return;
        }
        for (std::int64_t s0 = 0; s0 < dg_a; s0 += ts) {
          const int depth = dg_a - s0 < ts ? static_cast<int>(dg_a - s0) : ts;
          const bool first = s0 == 0, last = s0 + depth == dg_a;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, rc * depth), [&](const int i) {
            const int r = i / depth, s = i % depth;
            const std::int64_t k = op_diagonal(pr.a_diag(s0 + s), pr.ta, n);
            std::int64_t shift_b = 0;
            rows(r * ts + s) =
                static_cast<O>(pr.b_at.slot(wrap(pr.c_diag(c0 + r) - k + n, n), shift_b));
            if (r == 0) ka(s) = k;
            if (s == 0 && last) in_slots(r) = pr.input_slot(pr.c_diag(c0 + r));
          });
          m.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, tp), [&](const int q) {
            const std::int64_t p = p0 + q;
            if (p >= n) return;
            S sum[R];
            // B^T's compact diagonal j is read at (p + k_a + j) mod n, j = k_c - k_a:
            // at (p + k_c) mod n for every diagonal of A.
            std::int64_t pc[R];
            for (int r = 0; r < R; ++r) {
              sum[r] = S(0);
              pc[r] = 0;
              if (r < rc) {
                if (!first) sum[r] = acc(r * tp + q);
                if (pr.b_at.transpose) pc[r] = wrap(p + pr.c_diag(c0 + r), n);
              }
            }
            for (int s = 0; s < depth; ++s) {
              const std::int64_t pk = wrap(p + ka(s), n);
              const S x = pr.a(s0 + s, pr.ta ? pk : p);
              for (int r = 0; r < R; ++r) {
                if (r < rc) {
                  const O rb = rows(r * ts + s);
                  if (rb >= 0) sum[r] += x * pr.b(rb, pr.b_at.transpose ? pc[r] : pk);
                }
              }
            }
            for (int r = 0; r < rc; ++r) {
              if (last) {
                pr.c(c0 + r, p) = pr.finish(in_slots(r), p, sum[r]);
              } else {
                acc(r * tp + q) = sum[r];
              }
            }
          });
          m.team_barrier();
        }
      });
}

// C's compact diagonals a thread of the columns kernel accumulates: the
// entries of one column of C.
constexpr int cdm_column_entries = 8;
// Libra's choice of the columns kernel: on GPUs, for op(A) with at least this
// many compact diagonals, spanning at most twice as many (and at most
// cdm_columns_max_span: the slot tables live in team scratch). Below 24
// diagonals (a band of half-width 12) the tiles kernel was as fast on the H100,
// and choosing costs two synchronisations.
constexpr std::int64_t cdm_columns_min_diagonals = 24;
constexpr std::int64_t cdm_columns_max_span = 4096;

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
  using scratch_o = Kokkos::View<O*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
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
