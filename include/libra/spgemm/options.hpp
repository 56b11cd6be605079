#pragma once
// What a caller chooses for C = A * B, and what it learns back.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace libra {

enum class SpgemmAlgorithm {
  automatic,  // Libra picks; today always `outer` (the panel algorithm brings a real
              // choice)
  outer       // lbGEMM: outer products balanced by a heaviest-first workload table
};

// "outer", "auto"; throws ArgumentError for anything else.
SpgemmAlgorithm parse_spgemm_algorithm(const std::string& name);
const char* to_string(SpgemmAlgorithm algorithm) noexcept;

struct SpgemmOptions {
  SpgemmAlgorithm algorithm = SpgemmAlgorithm::automatic;
  // Bytes the intermediate products and their bookkeeping may occupy on the
  // device; 0 = a safe fraction of the device's free memory (a quarter;
  // util/memory_budget.hpp). C itself is not counted: it must fit beside the budget. When
  // the products exceed the budget the work is cut into chunks that each fit.
  std::size_t memory_budget = 0;
  // false allows unsorted columns in C. The outer algorithm produces sorted rows
  // at no extra cost, so today C is sorted either way.
  bool sort_columns = true;
  // Host spaces only: one dense accumulator per thread over C's columns when it
  // fits a quarter of the budget (fast on CPUs). false forces the scratch-sort
  // path that GPUs take.
  bool dense_accumulator = true;
  // Called on the host after each chunk of each phase with (steps done, steps in
  // all), e.g. to draw a progress bar; a product in one chunk makes 2 steps.
  std::function<void(int done, int total)> progress;
};

struct SpgemmStats {
  std::uint64_t flops = 0;     // 2 * products
  std::uint64_t products = 0;  // scalar products a_ik * b_kj
  std::uint64_t nnz_c = 0;
  int chunks = 0;  // pieces the workload table was cut into
  std::size_t budget_bytes = 0;
  std::size_t peak_bytes = 0;  // largest working set Libra allocated beside A, B, C
  // Seconds per phase (wall clock with the device fenced at phase ends).
  double seconds_wlt = 0;       // workload table: build, sort, chunk plan
  double seconds_expand = 0;    // writing products to their offsets
  double seconds_compress = 0;  // per-row sort/accumulate into C
  double seconds_merge = 0;     // merging chunk patterns
  double seconds_total = 0;
};

}  // namespace libra
