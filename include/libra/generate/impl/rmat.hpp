#pragma once
// R-MAT edge generation: one thread per generated edge, each a pure function of
// (seed, edge index), written straight into coordinate arrays.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/generate/impl/counter_rng.hpp"

namespace libra::impl {

// Streams of the R-MAT generator under its seed.
inline constexpr std::uint64_t rmat_edge_stream = 0x524d4154;  // "RMAT"
inline constexpr std::uint64_t rmat_scramble_stream = 0x524d4154 + 1;
// Draw index (within an edge's sequence) of the edge's value; levels use 0..61.
inline constexpr std::uint64_t rmat_value_draw = 63;

// Everything an edge needs, precomputed on the host. The quadrant probabilities
// are thresholds on 32-bit fractions, so the descent is integer-only.
struct RmatParams {
  int scale = 0;
  std::uint64_t edge_key = 0;
  std::uint64_t row_one_below = 0;         // row bit is 1 when u >= this (u: 32 bits)
  std::uint64_t col_one_below_top = 0;     // column bit threshold when the row bit is 0
  std::uint64_t col_one_below_bottom = 0;  // ... when the row bit is 1
  bool scramble = false;
  std::uint64_t scramble_mul[3] = {1, 1, 1};  // odd multipliers
  std::uint64_t scramble_add[3] = {0, 0, 0};
  bool uniform_values = false;
};

// round(p * 2^32) for p in [0, 1]: P(u < threshold) = p for a 32-bit fraction u.
inline std::uint64_t fraction_threshold(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return std::uint64_t(1) << 32;
  return static_cast<std::uint64_t>(p * 4294967296.0 + 0.5);
}

// The Graph500 descent (kronecker_generator.m): at each of `scale` levels the row
// bit is 1 with probability c + d, then the column bit is 1 with probability
// b / (a + b) in the top half or d / (c + d) in the bottom half, i.e. quadrant
// (0,0), (0,1), (1,0), (1,1) with probability a, b, c, d. The most significant
// bit is chosen first. Returns the vertex pair before scrambling.
KOKKOS_INLINE_FUNCTION void rmat_descend(const RmatParams& p, std::uint64_t edge_seq,
                                         std::uint64_t& row, std::uint64_t& col) {
  row = 0;
  col = 0;
  for (int level = 0; level < p.scale; ++level) {
    const std::uint64_t h = rng::draw(edge_seq, static_cast<std::uint64_t>(level));
    const std::uint64_t u_row = h >> 32, u_col = h & 0xffffffffULL;
    const std::uint64_t row_bit = u_row >= p.row_one_below ? 1 : 0;
    const std::uint64_t col_bit =
        u_col >= (row_bit ? p.col_one_below_bottom : p.col_one_below_top) ? 1 : 0;
    row = (row << 1) | row_bit;
    col = (col << 1) | col_bit;
  }
}

// A bijection of [0, 2^scale) (odd multiply-adds and xor-shifts modulo 2^scale)
// that relabels the vertices, as Graph500 does to hide the generator's locality.
KOKKOS_INLINE_FUNCTION std::uint64_t rmat_relabel(const RmatParams& p, std::uint64_t v) {
  const std::uint64_t mask = (std::uint64_t(1) << p.scale) - 1;
  const int shift = (p.scale + 1) / 2;
  for (int round = 0; round < 3; ++round) {
    v = (v * p.scramble_mul[round] + p.scramble_add[round]) & mask;
    if (shift > 0) v ^= v >> shift;
  }
  return v;
}

struct RmatEdge {
  std::uint64_t row, col, seq;
};

KOKKOS_INLINE_FUNCTION RmatEdge rmat_edge(const RmatParams& p, std::uint64_t e) {
  RmatEdge edge;
  edge.seq = rng::draw(p.edge_key, e);
  rmat_descend(p, edge.seq, edge.row, edge.col);
  if (p.scramble) {
    edge.row = rmat_relabel(p, edge.row);
    edge.col = rmat_relabel(p, edge.col);
  }
  return edge;
}

template <class S>
KOKKOS_INLINE_FUNCTION S rmat_value(const RmatParams& p, const RmatEdge& edge) {
  return p.uniform_values ? rng::uniform_signed<S>(rng::draw(edge.seq, rmat_value_draw))
                          : S(1);
}

// Coordinate entries each edge contributes: itself, its mirror (symmetric, not a
// self-loop), nothing for a dropped self-loop.
KOKKOS_INLINE_FUNCTION std::uint64_t rmat_slots(const RmatEdge& edge, bool symmetric,
                                                bool drop_self_loops) {
  if (edge.row == edge.col) return drop_self_loops ? 0 : 1;
  return symmetric ? 2 : 1;
}

// Fills rows/cols/vals with the entries of `num_edges` edges in edge order (each
// edge's mirror right after it). When every edge contributes one entry the slot
// of edge e is e; otherwise a count pass and a scan place them.
template <class Exec, class IndexView, class ValueView>
void rmat_entries(const Exec& exec, const RmatParams& params, std::uint64_t num_edges,
                  bool symmetric, bool drop_self_loops, IndexView& rows, IndexView& cols,
                  ValueView& vals) {
  using Ordinal = typename IndexView::non_const_value_type;
  using S = typename ValueView::non_const_value_type;
  using mem = typename Exec::memory_space;
  const bool one_per_edge = !symmetric && !drop_self_loops;
  Kokkos::View<std::uint64_t*, mem> slot;  // first entry of each edge
  std::uint64_t total = num_edges;
  if (!one_per_edge) {
    Kokkos::View<std::uint64_t*, mem> count(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::generate::rmat::count"),
        num_edges);
    Kokkos::parallel_for(
        "libra::generate::rmat::count", Kokkos::RangePolicy<Exec>(exec, 0, num_edges),
        KOKKOS_LAMBDA(const std::uint64_t e) {
          count(e) = rmat_slots(rmat_edge(params, e), symmetric, drop_self_loops);
        });
    slot = Kokkos::View<std::uint64_t*, mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::generate::rmat::slot"),
        num_edges + 1);
    total = exclusive_scan(exec, "libra::generate::rmat::place", count, slot,
                           "number of R-MAT entries");
  }
  rows = IndexView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::rows"),
                   total);
  cols = IndexView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::cols"),
                   total);
  vals = ValueView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::values"),
                   total);
  const IndexView r = rows, c = cols;
  const ValueView v = vals;
  Kokkos::parallel_for(
      "libra::generate::rmat::edges", Kokkos::RangePolicy<Exec>(exec, 0, num_edges),
      KOKKOS_LAMBDA(const std::uint64_t e) {
        const RmatEdge edge = rmat_edge(params, e);
        const std::uint64_t n = one_per_edge ? 1 : slot(e + 1) - slot(e);
        if (n == 0) return;
        const std::uint64_t at = one_per_edge ? e : slot(e);
        const S value = rmat_value<S>(params, edge);
        r(at) = static_cast<Ordinal>(edge.row);
        c(at) = static_cast<Ordinal>(edge.col);
        v(at) = value;
        if (n == 2) {
          r(at + 1) = static_cast<Ordinal>(edge.col);
          c(at + 1) = static_cast<Ordinal>(edge.row);
          v(at + 1) = value;
        }
      });
}

}  // namespace libra::impl
