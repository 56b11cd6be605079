#pragma once
// SimRank similarities of a graph's nodes, the lbGEMM paper's case study, built
// on Libra's SpGEMM: with Wn the column-normalised adjacency matrix,
//
//   S_0 = I,   T = Wn^T * S_k,   S_{k+1} = c * T * Wn + (1 - c) * I,
//
// two sparse products per iteration (the paper's Eq. 6). After each iteration
// entries with |value| < threshold are dropped so S stays sparse. S is
// symmetric: W^T S W is whenever S is.
//
//   libra::SimrankOptions options;           // c = 0.8, 5 iterations, 1e-4
//   auto result = libra::simrank(exec, W, options);
//   result.similarity;                       // Csr on W's device
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "libra/apps/impl/simrank_kernels.hpp"
#include "libra/core/error.hpp"
#include "libra/core/spaces.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/csc.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/csr_with_columns.hpp"
#include "libra/spgemm/options.hpp"
#include "libra/spgemm/spgemm.hpp"

namespace libra {

struct SimrankOptions {
  double decay = 0.8;  // c, in (0, 1)
  int iterations = 5;  // >= 0; 0 returns the identity
  // >= 0; 0 keeps every entry. Values equal to the threshold up to a relative
  // simrank_tie_tolerance are kept (see there).
  double threshold = 1e-4;
  SpgemmOptions spgemm;  // for both products of every iteration
  // Called after each iteration with (iterations done, iterations asked for),
  // e.g. to draw a progress bar.
  std::function<void(int done, int total)> progress;
};

// On a graph with 0/1 weights S's entries are sums of c^k / (product of
// in-degrees), so values exactly equal to a round threshold such as 1e-4 are
// common. Rounding would put S(i, j) just below it and S(j, i) just above, and
// pruning only one of them breaks the symmetry by up to c * threshold (and makes
// the result depend on each backend's summation order). So an entry is dropped
// only when |value| < threshold * (1 - simrank_tie_tolerance).
inline constexpr double simrank_tie_tolerance = 1e-6;

struct SimrankIterationStats {
  std::uint64_t nnz = 0;       // entries of S after this iteration (after pruning)
  std::uint64_t pruned = 0;    // entries dropped by the threshold
  std::uint64_t products = 0;  // scalar products of both SpGEMMs
  double seconds = 0;          // the whole iteration, device fenced
  SpgemmStats left;            // T = Wn^T * S_k
  SpgemmStats right;           // T * Wn
};

template <class Matrix>
struct SimrankResult {
  Matrix similarity;  // S after the last iteration, on W's device
  std::vector<SimrankIterationStats> iterations;
  double seconds = 0;  // everything, normalisation included
};

namespace impl {
inline void check_simrank_options(const SimrankOptions& o) {
  if (!(o.decay > 0 && o.decay < 1)) {
    throw ArgumentError("simrank: decay must lie in (0, 1), got " +
                        std::to_string(o.decay));
  }
  if (o.iterations < 0) {
    throw ArgumentError("simrank: iterations must be >= 0, got " +
                        std::to_string(o.iterations));
  }
  if (!(o.threshold >= 0) || std::isinf(o.threshold)) {
    throw ArgumentError("simrank: threshold must be finite and >= 0, got " +
                        std::to_string(o.threshold));
  }
}
}  // namespace impl

// SimRank of the graph whose adjacency matrix is W (W(i, j) != 0: an edge i -> j,
// weighted by |W(i, j)|), computed on `exec`. W must be square (ShapeError);
// bad options throw ArgumentError.
template <class Exec, class S, class O, class Off, class D>
SimrankResult<Csr<S, O, Off, D>> simrank(const Exec& exec, const Csr<S, O, Off, D>& W,
                                         const SimrankOptions& options = {}) {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  static_assert(can_access<Exec, D>, "the execution space cannot access the matrix");
  if (W.num_rows != W.num_cols) {
    throw ShapeError("simrank: the adjacency matrix must be square, got " +
                     std::to_string(W.num_rows) + " x " + std::to_string(W.num_cols));
  }
  impl::check_simrank_options(options);
  using M = Csr<S, O, Off, D>;
  Kokkos::Profiling::pushRegion("libra::simrank");
  Kokkos::Timer total;
  SimrankResult<M> result;
  M Wn, WnT;
  Kokkos::View<Off*, typename M::device_type> w_position;  // of each W^T entry in W
  const auto Wc = impl::to_csc_with_source(exec, W, w_position);
  impl::normalize_columns(
      exec, W, M(W.num_cols, W.num_rows, Wc.col_map, Wc.row_idx, Wc.values), Wn, WnT);
  // Wn's CSR is WnT's CSC: the left products read WnT by columns from it
  // instead of transposing WnT every iteration (lbGEMM does).
  const CsrWithColumns<S, O, Off, D> wnt_by_columns(
      WnT, Csc<S, O, Off, D>(W.num_rows, W.num_cols, Wn.row_map, Wn.col_idx, Wn.values),
      impl::inverse_permutation(exec, w_position));
  M Sk = impl::identity_csr<Exec, S, O, Off, D>(exec, W.num_rows);
  const S c = static_cast<S>(options.decay);
  const S one_minus_c = static_cast<S>(1 - options.decay);
  const S cut = static_cast<S>(options.threshold * (1 - simrank_tie_tolerance));
  for (int k = 0; k < options.iterations; ++k) {
    Kokkos::Timer timer;
    SimrankIterationStats it;
    const M T = spgemm(exec, wnt_by_columns, Sk, options.spgemm, &it.left);
    const M P = spgemm(exec, T, Wn, options.spgemm, &it.right);
    Sk = impl::scale_add_identity_prune(exec, P, c, one_minus_c, cut, it.pruned);
    exec.fence();
    it.seconds = timer.seconds();
    it.nnz = static_cast<std::uint64_t>(Sk.nnz());
    it.products = it.left.products + it.right.products;
    result.iterations.push_back(it);
    if (options.progress) options.progress(k + 1, options.iterations);
  }
  exec.fence();
  result.similarity = Sk;
  result.seconds = total.seconds();
  Kokkos::Profiling::popRegion();
  return result;
}

template <class S, class O, class Off, class D>
SimrankResult<Csr<S, O, Off, D>> simrank(const Csr<S, O, Off, D>& W,
                                         const SimrankOptions& options = {}) {
  return simrank(typename D::execution_space(), W, options);
}

}  // namespace libra
