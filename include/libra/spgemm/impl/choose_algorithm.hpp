#pragma once
// The rule `SpgemmAlgorithm::automatic` follows, in one place (the README quotes
// it): panel. Measured (perf_tests/report/): on 2 host cores panel is faster than
// lbGEMM on all 21 matrices of the report (2.9x geometric mean); on the H100 on 17
// of 23 (1.4x), lbGEMM being up to 1.5x faster on six mid-size power-law and
// irregular matrices, with no feature of the pre-analysis found yet that picks
// them out. Panel needs no product buffer and no chunking: its temporaries are a
// few arrays per row of A plus, for rows too long for scratch, per-team arrays
// sized within the budget. lbGEMM (outer) stays available by name.
#include "libra/spgemm/options.hpp"

namespace libra::impl {

inline SpgemmAlgorithm choose_spgemm_algorithm(const SpgemmOptions& options) {
  if (options.algorithm != SpgemmAlgorithm::automatic) return options.algorithm;
  return SpgemmAlgorithm::panel;
}

}  // namespace libra::impl
