#pragma once
// C = alpha * op(A) * op(B) + beta * C_in with every matrix in compact diagonal
// storage (../shared/papers/003, Sections 4 and 6.1). Position p of C's compact
// diagonal k is
//   sum over A's compact diagonals a of op(A)_a[p] * op(B)_{(k - a) mod n}[(p + a) mod
//   n],
// a sum of shifted vector products; op(X)_k[p] is X_k[p], or for X^T
// X_{(n - k) mod n}[(p + k) mod n]. Three kernels compute it: the columns
// kernel for band-like operands on GPUs (impl/cdm_columns.hpp), and here:
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

// A team's scratch array of T on Exec, for the kernels' tables.
template <class Exec, class T>
using CdmScratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

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
  using scratch_s = CdmScratch<Exec, S>;
  using scratch_o = CdmScratch<Exec, O>;
  using scratch_i = CdmScratch<Exec, std::int64_t>;
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

}  // namespace libra::impl
