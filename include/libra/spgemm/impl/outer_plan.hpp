#pragma once
// What lbGEMM keeps between its symbolic and numeric phases: A in CSC, the
// workload table, the chunk plan sized by the memory budget, C's pattern, and the
// reusable work arrays. It lives inside SpgemmHandle.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/csr_with_columns.hpp"
#include "libra/spgemm/impl/outer_shape.hpp"
#include "libra/spgemm/impl/pattern_union.hpp"
#include "libra/spgemm/impl/row_chunks.hpp"
#include "libra/spgemm/impl/workload_table.hpp"
#include "libra/spgemm/options.hpp"
#include "libra/util/memory_budget.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

template <class S, class O, class Off, class Device>
struct OuterPlan {
  using Exec = typename Device::execution_space;
  using mem = typename Device::memory_space;
  using cols_view = Kokkos::View<O*, mem>;
  using vals_view = Kokkos::View<S*, mem>;
  using pattern_type = Pattern<O, Off, mem>;

  OuterShape<Exec, S, O> shape;
  O num_rows = 0, num_cols = 0, inner = 0;
  Off a_nnz = 0, b_nnz = 0;
  // Where every temporary below comes from: the handle's workspace.
  Temps<mem> temps;
  Csc<S, O, Off, Device> a_csc;
  Kokkos::View<Off*, Device> csc_to_csr;
  // a_csc is the caller's (CsrWithColumns): its values are current, never refreshed.
  bool a_csc_given = false;
  WorkloadTable<Off, mem> wlt;
  std::uint64_t capacity = 0;  // products per chunk
  std::uint64_t largest_chunk = 0;
  // Chunk m: table items, or with chunk_rows rows of A, [cuts[m], cuts[m + 1]).
  std::vector<std::size_t> chunk_cuts;
  bool chunk_rows = false;
  // Work arrays reused by every chunk of both phases.
  Kokkos::View<std::uint64_t*, mem> weight;     // per CSR position of A
  Kokkos::View<std::uint64_t*, mem> offset;     // its exclusive scan
  Kokkos::View<std::uint64_t*, mem> row_begin;  // num_rows + 1
  int offsets_of_chunk = -1;  // the chunk these three arrays describe, if kept
  // Per-team arrays over C's columns for rows too long for scratch, at most
  // `slots` of each (teams running at once, within a sixteenth of the budget).
  std::size_t bitmap_slots = 0;
  std::size_t dense_slots = 0;
  Kokkos::View<S**, Kokkos::LayoutRight, mem> dense;  // numeric, made on first need
  O pad = std::numeric_limits<O>::max();
  // Product buffers, reused by every chunk of both phases (values: numeric only).
  Kokkos::View<O*, mem> cols_buffer;
  Kokkos::View<S*, mem> vals_buffer;
  // Host spaces: one dense accumulator per thread (empty on GPUs, or when it
  // would take more than a quarter of the budget).
  Kokkos::View<char**, Kokkos::LayoutRight, mem> spa_seen;
  Kokkos::View<S**, Kokkos::LayoutRight, mem> spa_acc;
  bool sort_columns = true;
  bool phase_timings = false;
  Pattern<O, Off, mem> c;  // C's pattern after symbolic
  std::function<void(int, int)> progress;

  bool host_dense() const { return spa_acc.extent(0) > 0; }
};

// Bytes of everything but the products and the per-team arrays: A's CSC copy and
// maps with the sort that makes them, the per-entry and per-row work arrays of a
// chunk, the workload table and its sort (at most `inner` items before splits).
template <class S, class O, class Off>
std::uint64_t outer_fixed_bytes(std::uint64_t rows, std::uint64_t inner,
                                std::uint64_t a_nnz) {
  // Kept: the CSC copy (index, value, source), weight and offset. Passing: the
  // transpose's keys, their radix copy, the moved sources, the radix count table.
  const std::uint64_t per_entry =
      sizeof(O) + sizeof(S) + 2 * sizeof(Off) + 2 * 8 + (2 * 8 + sizeof(Off) + 2);
  // row_begin, unique, the bins (rows + keys + their radix copies), a chunk
  // pattern's row_map and the merge's counts; planning row chunks: the rows'
  // products and their scan.
  const std::uint64_t per_row = 8 + 8 + 4 * 4 + 2 * sizeof(Off) + 2 * 8 + 2 * 8;
  // col_map, item starts, items before and after the sort, keys, order, radix
  // copies, chunk prefix.
  const std::uint64_t per_pair = sizeof(Off) + 8 + 2 * (2 * sizeof(Off) + 16) + 4 * 8 + 8;
  // Alignment and small arrays of a few dozen blocks.
  const std::uint64_t slack = std::uint64_t(64) << 10;
  return a_nnz * per_entry + (rows + 1) * per_row + (inner + 1) * per_pair + slack;
}

// Builds the plan: CSC of A, workload table, chunk cuts, work arrays and the
// symbolic phase's product buffer, all in `temps` (the handle's workspace).
// `given`, when not null, holds A's columns: no transpose is made.
template <class Exec, class Plan, class Csr>
void make_outer_plan(
    const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
    const SpgemmOptions& options, SpgemmStats& st,
    const Temps<typename Exec::memory_space>& temps,
    const CsrWithColumns<typename Csr::scalar_type, typename Csr::ordinal_type,
                         typename Csr::offset_type, typename Csr::device_type>* given =
        nullptr) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using Traits = LaunchTraits<Exec>;
  plan.temps = temps;
  plan.shape = OuterShape<Exec, S, O>(options.tuning);
  plan.progress = options.progress;
  plan.phase_timings = options.phase_timings;
  plan.num_rows = A.num_rows;
  plan.num_cols = B.num_cols;
  plan.inner = A.num_cols;
  plan.a_nnz = A.nnz();
  plan.b_nnz = B.nnz();
  if (static_cast<std::uint64_t>(A.num_rows) >= (std::uint64_t(1) << 32)) {
    throw OverflowError("spgemm: outer supports fewer than 2^32 rows");
  }

  const std::size_t budget =
      options.memory_budget ? options.memory_budget : default_memory_budget(exec);
  st.budget_bytes = budget;
  if (temps.workspace()) temps.workspace()->set_limit(budget);
  const std::uint64_t fixed = outer_fixed_bytes<S, O, Off>(
      static_cast<std::uint64_t>(A.num_rows), static_cast<std::uint64_t>(A.num_cols),
      static_cast<std::uint64_t>(A.nnz()));
  // Per product: its column and value, plus its share of the chunk's pattern.
  const std::uint64_t per_product = 2 * sizeof(O) + sizeof(S);
  const std::uint64_t columns = static_cast<std::uint64_t>(B.num_cols);
  const std::uint64_t words = (columns + 63) / 64;
  const std::uint64_t workers = Traits::concurrent_workers(exec);
  // Per-team bitmaps (symbolic) and dense accumulators (numeric) for rows too
  // long for scratch: one per team running at once, each kind within a sixteenth
  // of the budget. They are made only when such rows exist, as many as needed.
  plan.bitmap_slots = static_cast<std::size_t>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(workers, budget / 16 / (words * 8 + 1))));
  plan.dense_slots = options.tuning.dense_long_rows
                         ? static_cast<std::size_t>(std::min<std::uint64_t>(
                               workers, budget / 16 / (columns * sizeof(S) + 1)))
                         : 0;
  std::uint64_t per_team_bytes =
      plan.bitmap_slots * words * 8 + plan.dense_slots * columns * sizeof(S);
  // Host spaces: a dense accumulator per thread when it takes at most a quarter
  // of the budget; it replaces the per-team arrays.
  std::uint64_t spa_bytes = 0;
  if constexpr (!Traits::is_gpu) {
    spa_bytes = workers * columns * (1 + sizeof(S));
    if (options.dense_accumulator && spa_bytes <= budget / 4) {
      per_team_bytes = spa_bytes;
      plan.bitmap_slots = plan.dense_slots = 0;
    } else {
      spa_bytes = 0;
    }
  }
  if (budget <= fixed + per_team_bytes) {
    throw ArgumentError("spgemm: the memory budget of " + std::to_string(budget) +
                        " bytes does not even hold the bookkeeping (" +
                        std::to_string(fixed + per_team_bytes) +
                        " bytes) for these operands");
  }
  plan.capacity = (budget - fixed - per_team_bytes) / per_product;

  plan.a_csc_given = given != nullptr;
  if (given) {
    plan.a_csc = given->csc;
    plan.csc_to_csr = given->csr_position;
  } else {
    plan.a_csc = to_csc_with_source(exec, A, plan.csc_to_csr, temps);
    st.paths.a_transposed = static_cast<std::uint64_t>(A.nnz());
  }
  plan.wlt = build_workload_table<Exec, Off>(
      exec, A.num_cols, plan.a_csc.col_map, B.row_map,
      static_cast<std::uint64_t>(plan.shape.expand_threads), plan.capacity, temps);
  if (plan.wlt.max_b_row > plan.capacity) {
    throw ArgumentError(
        "spgemm: the memory budget of " + std::to_string(budget) +
        " bytes cannot hold the products of one row of B (" +
        std::to_string(plan.wlt.max_b_row) + " entries); it needs at least " +
        std::to_string(fixed + per_team_bytes + plan.wlt.max_b_row * per_product) +
        " bytes");
  }
  plan.chunk_rows = false;
  if (plan.wlt.total_products > plan.capacity && !options.tuning.outer_chunks_by_items) {
    auto rows = plan_row_chunks(exec, A, B, plan.capacity, temps);
    if (!rows.cuts.empty() && (!given || rows_ascend_in_columns(exec, given->csc))) {
      plan.chunk_cuts = std::move(rows.cuts);
      plan.chunk_rows = true;
      plan.largest_chunk = rows.largest;
    }
  }
  if (!plan.chunk_rows) {
    plan.chunk_cuts = plan_chunks(exec, plan.wlt, plan.capacity, temps);
    plan.largest_chunk = plan.chunk_cuts.size() == 2
                             ? plan.wlt.total_products
                             : std::min(plan.capacity, plan.wlt.total_products);
  }
  st.products = plan.wlt.total_products;
  st.flops = 2 * plan.wlt.total_products;
  st.chunks = static_cast<int>(plan.chunk_cuts.size()) - 1;
  st.paths.row_chunks = plan.chunk_rows ? static_cast<std::uint64_t>(st.chunks) : 0;
  // Rows may come out unsorted only where nothing downstream needs them sorted:
  // the host dense accumulators of a product in one chunk.
  plan.sort_columns = options.sort_columns || spa_bytes == 0 || st.chunks > 1;

  const auto a_nnz = static_cast<std::size_t>(A.nnz());
  plan.weight = temps.template view<std::uint64_t>("libra::spgemm::outer::weight", a_nnz);
  plan.offset =
      temps.template view<std::uint64_t>("libra::spgemm::outer::offset", a_nnz + 1);
  plan.row_begin = temps.template view<std::uint64_t>(
      "libra::spgemm::outer::row_begin", static_cast<std::size_t>(A.num_rows) + 1);
  plan.cols_buffer = temps.template view<O>("libra::spgemm::outer::cols",
                                            static_cast<std::size_t>(plan.largest_chunk));
  if (spa_bytes > 0) {
    // Both start at zero and the kernels leave them so after every row.
    plan.spa_seen = temps.template view2<char>("libra::spgemm::outer::spa_seen", workers,
                                               static_cast<std::size_t>(columns));
    plan.spa_acc = temps.template view2<S>("libra::spgemm::outer::spa_acc", workers,
                                           static_cast<std::size_t>(columns));
    Kokkos::deep_copy(exec, plan.spa_seen, char(0));
    Kokkos::deep_copy(exec, plan.spa_acc, S(0));
  }
  plan.shape.fit_columns(columns);
}

// The numeric phase's product values buffer and, when C has rows too long for
// scratch, the per-team dense accumulators (zeroed once; the kernel leaves them
// zero). Made at the first numeric call and kept for the next ones.
template <class Exec, class Plan>
void prepare_outer_numeric(const Exec& exec, Plan& plan) {
  using S = typename Plan::vals_view::non_const_value_type;
  if (plan.vals_buffer.extent(0) < plan.largest_chunk) {
    plan.vals_buffer = plan.temps.template view<S>(
        "libra::spgemm::outer::vals", static_cast<std::size_t>(plan.largest_chunk));
  }
  if (plan.host_dense() || plan.dense_slots == 0 || plan.dense.extent(0) > 0) return;
  // Rows of C longer than scratch holds are the ones the dense arrays serve.
  const auto c_map = plan.c.row_map;
  const std::uint64_t capacity =
      static_cast<std::uint64_t>(plan.shape.accumulate_capacity);
  std::uint64_t long_rows = 0;
  Kokkos::parallel_reduce(
      "libra::spgemm::outer::count_long_rows",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::size_t>(plan.num_rows)),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& n) {
        if (static_cast<std::uint64_t>(c_map(i + 1) - c_map(i)) > capacity) ++n;
      },
      long_rows);
  const std::size_t slots =
      static_cast<std::size_t>(std::min<std::uint64_t>(long_rows, plan.dense_slots));
  if (slots == 0) return;
  plan.dense = plan.temps.template view2<S>("libra::spgemm::outer::dense", slots,
                                            static_cast<std::size_t>(plan.num_cols));
  Kokkos::deep_copy(exec, plan.dense, S(0));
}

}  // namespace libra::impl
