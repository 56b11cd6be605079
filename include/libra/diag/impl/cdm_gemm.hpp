#pragma once
// C = alpha * op(A) * op(B) + beta * C_in with every matrix in compact diagonal
// storage (../shared/papers/003, Sections 4 and 6.1). Position p of C's compact
// diagonal k is
//   sum over A's compact diagonals a of op(A)_a[p] * op(B)_{(k - a) mod n}[(p + a) mod
//   n],
// a sum of shifted vector products; op(X)_k[p] is X_k[p], or for X^T
// X_{(n - k) mod n}[(p + k) mod n]. Two kernels compute it:
//  - tiles (GPUs): a team per tile of C (tile_diagonals compact diagonals x
//    tile_positions positions, one thread per entry), A's diagonals staged in
//    team scratch tile_depth at a time, so each staged value serves the tile's
//    diagonals of C (the paper's Algorithm 1; B is read from global memory);
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
// stored), read at (p + shift) mod n.
template <class IndexView>
struct CdmLookup {
  IndexView map;  // X's compact index -> slot
  bool transpose = false;
  std::int64_t n = 0;
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t k, std::int64_t& shift) const {
    if (!transpose) {
      shift = 0;
      return map(k);
    }
    shift = k;
    return map(k == 0 ? 0 : n - k);
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
  index_type c_in_map;  // compact index -> slot of C_in (beta != 0)

  KOKKOS_INLINE_FUNCTION S finish(std::int64_t k, std::int64_t p, S acc) const {
    S v = alpha * acc;
    if (beta != S(0)) {
      const std::int64_t s = c_in_map(k);
      if (s >= 0) v += beta * c_in(s, p);
    }
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
        for (std::int64_t t = 0; t < len; ++t) {
          pr.c(c, p0 + t) = pr.finish(kc, p0 + t, acc[t]);
        }
      });
}

// The tiles kernel.
template <class Exec, class P>
void cdm_tiles(const Exec& exec, const P& pr, int tc, int tp, int ts, int team) {
  using S = decltype(pr.alpha);
  using policy = Kokkos::TeamPolicy<Exec>;
  using member = typename policy::member_type;
  using scratch_s = Kokkos::View<S*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using scratch_i = Kokkos::View<std::int64_t*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::int64_t n = pr.n;
  const std::int64_t dg_c = static_cast<std::int64_t>(pr.c_diag.extent(0));
  const std::int64_t dg_a = static_cast<std::int64_t>(pr.a_diag.extent(0));
  const std::int64_t c_tiles = (dg_c + tc - 1) / tc;
  const std::int64_t p_tiles = (n + tp - 1) / tp;
  const int entries = tc * tp;
  const std::size_t bytes = scratch_s::shmem_size(static_cast<std::size_t>(ts) * tp) +
                            scratch_s::shmem_size(entries) + scratch_i::shmem_size(ts);
  Kokkos::parallel_for(
      "libra::diag::cdm::tiles",
      policy(exec, c_tiles * p_tiles, team).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& m) {
        // Neighbouring teams share positions, hence the A values they stage.
        const std::int64_t c0 = (m.league_rank() % c_tiles) * tc;
        const std::int64_t p0 = (m.league_rank() / c_tiles) * tp;
        scratch_s tile(m.team_scratch(0), static_cast<std::size_t>(ts) * tp);
        scratch_s acc(m.team_scratch(0), entries);
        scratch_i ka(m.team_scratch(0), ts);
        for (std::int64_t s0 = 0; s0 < dg_a; s0 += ts) {
          const std::int64_t depth = dg_a - s0 < ts ? dg_a - s0 : ts;
          Kokkos::parallel_for(
              Kokkos::TeamThreadRange(m, depth * tp), [&](const std::int64_t i) {
                const std::int64_t s = i / tp, q = i % tp;
                const std::int64_t k = op_diagonal(pr.a_diag(s0 + s), pr.ta, n);
                const std::int64_t p = p0 + q;
                tile(i) = p < n ? pr.a(s0 + s, wrap(p + (pr.ta ? k : 0), n)) : S(0);
                if (q == 0) ka(s) = k;
              });
          m.team_barrier();
          for (int e = m.team_rank(); e < entries; e += m.team_size()) {
            const std::int64_t c = c0 + e / tp, q = e % tp, p = p0 + q;
            if (c >= dg_c || p >= n) continue;
            const std::int64_t kc = pr.c_diag(c);
            S sum = s0 == 0 ? S(0) : acc(e);
            for (std::int64_t s = 0; s < depth; ++s) {
              std::int64_t shift_b = 0;
              const std::int64_t rb = pr.b_at.slot(wrap(kc - ka(s) + n, n), shift_b);
              if (rb < 0) continue;
              sum += tile(s * tp + q) * pr.b(rb, wrap(wrap(p + ka(s), n) + shift_b, n));
            }
            acc(e) = sum;
          }
          m.team_barrier();
        }
        for (int e = m.team_rank(); e < entries; e += m.team_size()) {
          const std::int64_t c = c0 + e / tp, p = p0 + e % tp;
          if (c >= dg_c || p >= n) continue;
          pr.c(c, p) = pr.finish(pr.c_diag(c), p, dg_a == 0 ? S(0) : acc(e));
        }
      });
}

}  // namespace libra::impl
