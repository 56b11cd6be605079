#pragma once
// What lbGEMM keeps between its symbolic and numeric phases: A in CSC, the
// workload table, the chunk plan sized by the memory budget, C's pattern, and the
// reusable work arrays. It lives inside SpgemmHandle.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/convert.hpp"
#include "libra/spgemm/impl/outer_shape.hpp"
#include "libra/spgemm/impl/pattern_union.hpp"
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

  OuterShape<Exec, S, O> shape;
  O num_rows = 0, num_cols = 0, inner = 0;
  Off a_nnz = 0, b_nnz = 0;
  Csc<S, O, Off, Device> a_csc;
  Kokkos::View<Off*, Device> csc_to_csr;
  WorkloadTable<Off, mem> wlt;
  std::uint64_t capacity = 0;  // products per chunk
  std::vector<std::size_t> chunk_cuts;
  // Work arrays reused by every chunk of both phases.
  Kokkos::View<std::uint64_t*, mem> weight;     // per CSR position of A
  Kokkos::View<std::uint64_t*, mem> offset;     // its exclusive scan
  Kokkos::View<std::uint64_t*, mem> row_begin;  // num_rows + 1
  int offsets_of_chunk = -1;  // the chunk these three arrays describe, if kept
  Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, mem> bitmap;  // slots x words
  Kokkos::View<S**, Kokkos::LayoutRight, mem> dense;  // slots x columns, for long rows
  O pad = std::numeric_limits<O>::max();
  // Product buffers, reused by every chunk of both phases.
  Kokkos::View<O*, mem> cols_buffer;
  Kokkos::View<S*, mem> vals_buffer;
  // Host spaces: one dense accumulator per thread (empty on GPUs, or when it
  // would take more than a quarter of the budget).
  Kokkos::View<char**, Kokkos::LayoutRight, mem> spa_seen;
  Kokkos::View<S**, Kokkos::LayoutRight, mem> spa_acc;
  Pattern<O, Off, mem> c;  // C's pattern after symbolic
  std::function<void(int, int)> progress;
};

// Bytes of everything but the products: A's CSC copy and maps, the per-entry and
// per-row work arrays, the workload table (at most `inner` items before splits).
template <class S, class O, class Off>
std::uint64_t outer_fixed_bytes(std::uint64_t rows, std::uint64_t inner,
                                std::uint64_t a_nnz) {
  const std::uint64_t per_entry = sizeof(O) + sizeof(S) + sizeof(Off) + 2 * 8;
  const std::uint64_t per_row = 3 * 8 + 2 * 4;
  const std::uint64_t per_pair = 2 * sizeof(Off) + 4 * 8 + 2 * 8;
  return a_nnz * per_entry + rows * per_row + inner * per_pair;
}

// Builds the plan: CSC of A, workload table, chunk cuts, work arrays.
template <class Exec, class Plan, class Csr>
void make_outer_plan(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                     const SpgemmOptions& options, SpgemmStats& st) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  plan.progress = options.progress;
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
  const std::uint64_t fixed = outer_fixed_bytes<S, O, Off>(
      static_cast<std::uint64_t>(A.num_rows), static_cast<std::uint64_t>(A.num_cols),
      static_cast<std::uint64_t>(A.nnz()));
  // Per product: its column and value, plus its share of the chunk's pattern.
  const std::uint64_t per_product = 2 * sizeof(O) + sizeof(S);
  // Bitmaps for rows too long for scratch: one per concurrent team, at most an
  // eighth of the budget.
  const std::uint64_t words = (static_cast<std::uint64_t>(B.num_cols) + 63) / 64;
  // One bitmap and one dense accumulator per concurrently running team (about
  // eight teams per multiprocessor), each kind within an eighth of the budget.
  const std::uint64_t slots_wanted = runs_on_host<Exec> ? Exec().concurrency() : 1024;
  std::uint64_t slots = std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(slots_wanted, budget / 8 / (words * 8 + 1)));
  const std::uint64_t dense_slots = std::min<std::uint64_t>(
      slots_wanted,
      budget / 8 / (static_cast<std::uint64_t>(B.num_cols) * sizeof(S) + 1));
  std::uint64_t bitmap_bytes =
      slots * words * 8 +
      dense_slots * static_cast<std::uint64_t>(B.num_cols) * sizeof(S);
  // Host spaces: a dense accumulator per thread when it takes at most a quarter
  // of the budget.
  std::uint64_t spa_bytes = 0;
  if constexpr (runs_on_host<Exec>) {
    const std::uint64_t threads = static_cast<std::uint64_t>(exec.concurrency());
    spa_bytes = threads * static_cast<std::uint64_t>(B.num_cols) * (1 + sizeof(S));
    if (options.dense_accumulator && spa_bytes <= budget / 4) {
      // Both must start at zero: the kernels leave them so after every row.
      plan.spa_seen = temp_view2<char, mem>("libra::spgemm::outer::spa_seen", threads,
                                            static_cast<std::size_t>(B.num_cols));
      plan.spa_acc = temp_view2<S, mem>("libra::spgemm::outer::spa_acc", threads,
                                        static_cast<std::size_t>(B.num_cols));
      Kokkos::deep_copy(exec, plan.spa_seen, char(0));
      Kokkos::deep_copy(exec, plan.spa_acc, S(0));
    } else {
      spa_bytes = 0;
    }
  }
  if (spa_bytes > 0) {
    slots = 0;  // the accumulators replace the bitmaps
    bitmap_bytes = spa_bytes;
  }
  if (budget <= fixed + bitmap_bytes) {
    throw ArgumentError("spgemm: the memory budget of " + std::to_string(budget) +
                        " bytes does not even hold the bookkeeping (" +
                        std::to_string(fixed + bitmap_bytes) +
                        " bytes) for these operands");
  }
  plan.capacity = (budget - fixed - bitmap_bytes) / per_product;

  plan.a_csc = to_csc_with_source(exec, A, plan.csc_to_csr);
  plan.wlt = build_workload_table<Exec, Off>(
      exec, A.num_cols, plan.a_csc.col_map, B.row_map,
      static_cast<std::uint64_t>(plan.shape.expand_threads), plan.capacity);
  if (plan.wlt.max_b_row > plan.capacity) {
    throw ArgumentError(
        "spgemm: the memory budget of " + std::to_string(budget) +
        " bytes cannot hold the products of one row of B (" +
        std::to_string(plan.wlt.max_b_row) + " entries); it needs at least " +
        std::to_string(fixed + bitmap_bytes + plan.wlt.max_b_row * per_product) +
        " bytes");
  }
  plan.chunk_cuts = plan_chunks(exec, plan.wlt, plan.capacity);
  st.products = plan.wlt.total_products;
  st.flops = 2 * plan.wlt.total_products;
  st.chunks = static_cast<int>(plan.chunk_cuts.size()) - 1;

  const auto a_nnz = static_cast<std::size_t>(A.nnz());
  plan.weight = temp_view<std::uint64_t, mem>("libra::spgemm::outer::weight", a_nnz);
  plan.offset = temp_view<std::uint64_t, mem>("libra::spgemm::outer::offset", a_nnz + 1);
  plan.row_begin = temp_view<std::uint64_t, mem>(
      "libra::spgemm::outer::row_begin", static_cast<std::size_t>(A.num_rows) + 1);
  plan.bitmap =
      temp_view2<std::uint64_t, mem>("libra::spgemm::outer::bitmap", slots, words);
  if (spa_bytes == 0 && dense_slots > 0) {
    plan.dense = temp_view2<S, mem>("libra::spgemm::outer::dense", dense_slots,
                                    static_cast<std::size_t>(B.num_cols));
    Kokkos::deep_copy(exec, plan.dense,
                      S(0));  // the kernel leaves it zero after each row
  }
  plan.shape.fit_columns(static_cast<std::uint64_t>(B.num_cols));
  std::uint64_t largest_chunk = 0;
  if (st.chunks == 1) largest_chunk = plan.wlt.total_products;
  // (with several chunks each is at most `capacity` products)
  if (st.chunks > 1) largest_chunk = plan.capacity;
  st.peak_bytes = fixed + bitmap_bytes + largest_chunk * per_product;
}

}  // namespace libra::impl
