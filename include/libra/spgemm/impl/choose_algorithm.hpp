#pragma once
// The rule `SpgemmAlgorithm::automatic` follows, in one place (the README quotes
// it). Measured on the H100 and on 2 host cores (perf_tests/report/), the panel
// algorithm is faster than lbGEMM on every matrix of the report, and it needs no
// product buffer: its temporaries are a few arrays per row of A plus, for rows
// too long for scratch, per-team bitmaps sized within the budget. So `auto` runs
// panel. lbGEMM (outer) stays available by name.
#include "libra/spgemm/options.hpp"

namespace libra::impl {

inline SpgemmAlgorithm choose_spgemm_algorithm(const SpgemmOptions& options) {
  if (options.algorithm != SpgemmAlgorithm::automatic) return options.algorithm;
  return SpgemmAlgorithm::panel;
}

}  // namespace libra::impl
