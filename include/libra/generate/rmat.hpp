#pragma once
// R-MAT / Kronecker power-law graphs as sparse matrices (the Graph500 generator).
//
// "R-MAT scale s, edge factor f" is the Graph500 definition: 2^s vertices and
// round(f * 2^s) generated edges, each edge choosing one quadrant per bit level
// with probabilities a, b, c, d (top-left, top-right, bottom-left, bottom-right).
// Edge (i, j) becomes entry (i, j); duplicates are summed, so nnz is smaller than
// the number of edges. The matrix depends only on the options (the seed included),
// never on the backend or the thread count.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <string>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/convert.hpp"
#include "libra/generate/impl/rmat.hpp"

namespace libra {

enum class RmatValues {
  ones,    // every generated entry is 1 (summed duplicates count the edges)
  uniform  // uniform in [-1, 1)
};

struct RmatOptions {
  int scale = 0;                        // 2^scale vertices, 0 <= scale <= 62
  double edge_factor = 16;              // generated edges per vertex
  double a = 0.57, b = 0.19, c = 0.19;  // d = 1 - a - b - c
  std::uint64_t seed = 0;
  bool symmetric = false;        // also add (j, i) for each edge (i, j), i != j
  bool drop_self_loops = false;  // remove edges (i, i) instead of storing them
  // Relabel vertices by a seeded bijection as Graph500 does. Off by default: the
  // heavy rows then stay at the low indices, as in the classic R-MAT matrices.
  bool scramble = false;
  RmatValues values = RmatValues::ones;
};

namespace impl {

inline void check_probability(double p, const char* name) {
  if (!(p >= 0 && p <= 1)) {
    throw ArgumentError(std::string("rmat: probability ") + name + " = " +
                        std::to_string(p) + " is outside [0, 1]");
  }
}

inline RmatParams rmat_params(const RmatOptions& o) {
  check_probability(o.a, "a");
  check_probability(o.b, "b");
  check_probability(o.c, "c");
  const double ab = o.a + o.b;
  if (ab + o.c > 1 + 1e-12) {
    throw ArgumentError("rmat: a + b + c = " + std::to_string(ab + o.c) + " exceeds 1");
  }
  const double cd = 1 - ab;  // c + d
  RmatParams p;
  p.scale = o.scale;
  p.edge_key = rng::stream_key(o.seed, rmat_edge_stream);
  p.row_one_below = fraction_threshold(ab);
  p.col_one_below_top = ab > 0 ? fraction_threshold(o.a / ab) : 0;
  p.col_one_below_bottom = cd > 0 ? fraction_threshold(o.c / cd) : 0;
  p.scramble = o.scramble;
  const std::uint64_t key = rng::stream_key(o.seed, rmat_scramble_stream);
  for (int r = 0; r < 3; ++r) {
    p.scramble_mul[r] = rng::draw(key, 2 * r) | 1;
    p.scramble_add[r] = rng::draw(key, 2 * r + 1);
  }
  p.uniform_values = o.values == RmatValues::uniform;
  return p;
}

// round(edge_factor * 2^scale), checked.
inline std::uint64_t rmat_edge_count(const RmatOptions& o) {
  if (!(o.edge_factor >= 0) || !std::isfinite(o.edge_factor)) {
    throw ArgumentError("rmat: edge factor " + std::to_string(o.edge_factor) +
                        " must be finite and >= 0");
  }
  const double edges = std::ldexp(o.edge_factor, o.scale);
  if (!(edges < 9.2e18)) {
    throw OverflowError("rmat: edge_factor * 2^scale = " + std::to_string(edges) +
                        " edges overflows 64 bits");
  }
  return static_cast<std::uint64_t>(std::llround(edges));
}

}  // namespace impl

// The (2^scale x 2^scale) R-MAT matrix on Exec's memory space, sorted with
// duplicates summed. Throws ArgumentError for a scale outside [0, 62], a bad edge
// factor or probabilities outside [0, 1] summing (a + b + c) above 1, and
// OverflowError when 2^scale does not fit Ordinal or nnz does not fit Offset.
template <class Scalar, class Ordinal, class Offset, class Exec>
Csr<Scalar, Ordinal, Offset, Kokkos::Device<Exec, typename Exec::memory_space>> rmat(
    const Exec& exec, const RmatOptions& options) {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using Coo = libra::Coo<Scalar, Ordinal, Offset, Device>;
  if (options.scale < 0 || options.scale > 62) {
    throw ArgumentError("rmat: scale " + std::to_string(options.scale) +
                        " is outside [0, 62]");
  }
  const Ordinal n =
      checked_cast<Ordinal>(std::uint64_t(1) << options.scale, "rmat: 2^scale vertices");
  const impl::RmatParams params = impl::rmat_params(options);
  const std::uint64_t edges = impl::rmat_edge_count(options);
  if (options.symmetric) checked_mul(edges, 2, "rmat: symmetric entries");
  checked_cast<std::size_t>(edges * (options.symmetric ? 2 : 1), "rmat: entries");

  typename Coo::index_type rows, cols;
  typename Coo::values_type vals;
  impl::rmat_entries(exec, params, edges, options.symmetric, options.drop_self_loops,
                     rows, cols, vals);
  return to_csr(exec, Coo(n, n, rows, cols, vals));
}

}  // namespace libra
