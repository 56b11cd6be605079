#pragma once
// What the panel SpGEMM keeps between its symbolic and numeric phases, and the
// pre-analysis that starts it: per row of A its products (the upper bound of its
// row of C) and their total, in one pass on the device.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "libra/core/error.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/spgemm/impl/acc_host_dense.hpp"
#include "libra/spgemm/impl/dense_panels.hpp"
#include "libra/spgemm/impl/panel_shape.hpp"
#include "libra/spgemm/impl/pattern_union.hpp"
#include "libra/spgemm/impl/row_bins.hpp"
#include "libra/spgemm/impl/row_products.hpp"
#include "libra/spgemm/options.hpp"
#include "libra/util/memory_budget.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

template <class S, class O, class Off, class Device>
struct PanelPlan {
  using Exec = typename Device::execution_space;
  using mem = typename Device::memory_space;

  PanelShape<Exec, S, O> shape;
  O num_rows = 0, num_cols = 0, inner = 0;
  Off a_nnz = 0, b_nnz = 0;
  Temps<mem> temps;  // the handle's workspace
  std::size_t budget = 0;
  std::uint64_t total_products = 0;
  Kokkos::View<std::uint64_t*, mem> products;  // per row of A
  // Host spaces with dense accumulators: the per-thread value arrays over C's
  // columns (zero between rows), kept for every numeric call, and the rows
  // with products (counted by the symbolic phase). Otherwise: the numeric
  // phase's bins.
  bool host_dense = false;
  double host_word_ratio = 0;            // SpgemmOptions::Tuning::host_word_ratio,
                                         // lowered by host_word_row_saving
  int host_flag_span = 0;                // SpgemmOptions::Tuning::host_flag_span
  int host_rank_columns = 0;             // SpgemmOptions::Tuning::host_rank_columns
  bool host_marks = false;               // C within Tuning::host_mark_columns
  std::uint64_t host_sort_products = 0;  // Tuning::host_sort_products, capped
  int host_direct_entries = 0;           // Tuning::host_direct_entries, capped
  std::size_t rows_with_products = 0;
  Kokkos::View<S**, Kokkos::LayoutRight, mem> sums;
  RowBins<mem, panel_bins> symbolic_bins;  // by products, from the pre-analysis
  RowBins<mem, panel_bins> numeric_bins;
  // Numeric, rows of C too long for scratch: per-team dense arrays over C's
  // columns (SpgemmOptions::tuning.dense_long_rows), else atomics in place.
  bool dense_long_rows = true;
  bool side_by_side = true;  // SpgemmOptions::Tuning::side_by_side
  Kokkos::View<S**, Kokkos::LayoutRight, mem> dense;
  bool sort_columns = true;
  int fill_bitmap_slots = 0;  // SpgemmOptions::Tuning::fill_bitmap_slots
  // Thread groups spread rows of A with this many nonzeros over their lanes
  // (RowProducts::spread_entries; 0: never).
  std::int64_t spread_entries = 0;
  bool phase_timings = false;
  // A one-shot product (libra::spgemm) lets host dense accumulators compute the
  // values in the symbolic fill pass: one pass over the products fewer.
  bool values_in_symbolic = false;
  // The symbolic phase stops once C's row offsets are known (no columns):
  // spgemm_row_map.
  bool counts_only = false;
  Kokkos::View<S*, mem> c_values;  // C's values, when the symbolic pass made them
  std::size_t rows_left = 0;       // binned: rows whose values it did not make
  // Panels of rows multiplied as dense tiles (the sparse paths skip their rows).
  DensePanels<mem> dense_panels;
  Pattern<O, Off, mem> c;
  std::function<void(int, int)> progress;
};

// Per-thread dense arrays over C's columns (host spaces): bytes they take at
// most (values, and per 64 columns a bitmap word and a touched-word entry).
template <class Exec, class S, class O>
std::uint64_t panel_host_dense_bytes(const Exec& exec, std::uint64_t columns,
                                     bool marks) {
  // Per thread: sums, the column list (fills without packed words), the
  // marks, the column bits, the touched words and their flags.
  const std::uint64_t words = (columns + 63) / 64;
  return LaunchTraits<Exec>::concurrent_workers(exec) *
         (columns * (sizeof(S) + sizeof(O) + (marks ? sizeof(O) : 0)) +
          words * (sizeof(std::uint64_t) + sizeof(O)) +
          (words / 64 + 1) * sizeof(std::uint64_t));
}

// RowProducts::spread_entries from SpgemmOptions::Tuning::group_spread_entries
// (0: the default, negative: never).
inline std::int64_t group_spread_entries(int tuning) {
  constexpr int default_entries = 8;
  if (tuning < 0) return 0;
  return tuning == 0 ? default_entries : tuning;
}

// The smallest hash table (slots) whose team rows the fill pass sends to the
// bitmap of `words` words over C's columns instead: `slots_per_word` slots per
// bitmap word (SpgemmOptions::Tuning::fill_bitmap_slots; 0: the default,
// negative: none).
inline int bitmap_fill_table(int slots_per_word, std::int64_t words) {
  constexpr int default_slots_per_word = 2;
  if (slots_per_word < 0) return 0;
  if (slots_per_word == 0) slots_per_word = default_slots_per_word;
  const std::int64_t table = std::max<std::int64_t>(1, words * slots_per_word);
  return table > (std::int64_t(1) << 30) ? 0 : static_cast<int>(table);
}

// Bytes of the plan's per-row arrays and the symbolic phase's temporaries: row
// products, distinct counts, bins (rows, keys, radix copies) twice.
inline std::uint64_t panel_fixed_bytes(std::uint64_t rows) {
  return (rows + 1) * (8 + 8 + 2 * 4 * 4) + (std::uint64_t(64) << 10);
}

// The plan's shapes, options and budget, before any pass over the matrices.
template <class Exec, class Plan, class Csr>
void init_panel_plan(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                     const SpgemmOptions& options, SpgemmStats& st,
                     const Temps<typename Exec::memory_space>& temps) {
  if (static_cast<std::uint64_t>(A.num_rows) >= (std::uint64_t(1) << 32)) {
    throw OverflowError("spgemm: panel supports fewer than 2^32 rows");
  }
  plan.temps = temps;
  plan.progress = options.progress;
  plan.phase_timings = options.phase_timings;
  plan.num_rows = A.num_rows;
  plan.num_cols = B.num_cols;
  plan.inner = A.num_cols;
  plan.a_nnz = A.nnz();
  plan.b_nnz = B.nnz();
  plan.budget =
      options.memory_budget ? options.memory_budget : default_memory_budget(exec);
  st.budget_bytes = plan.budget;
  st.chunks = 1;
  const std::uint64_t fixed = panel_fixed_bytes(static_cast<std::uint64_t>(A.num_rows));
  if (plan.budget <= fixed) {
    throw ArgumentError("spgemm: the memory budget of " + std::to_string(plan.budget) +
                        " bytes does not even hold the bookkeeping (" +
                        std::to_string(fixed) + " bytes) for these operands");
  }
  if (temps.workspace()) temps.workspace()->set_limit(plan.budget);
}

// products(i) = the products of row i of A*B, with rows of A across thread
// groups and each row's nonzeros across the group's lanes.
template <class Exec, class Csr>
void row_products_by_lanes(
    const Exec& exec, const Csr& A, const Csr& B,
    const Kokkos::View<std::uint64_t*, typename Exec::memory_space>& products) {
  using Off = typename Csr::offset_type;
  const std::size_t n = static_cast<std::size_t>(A.num_rows);
  if (n == 0) return;
  const auto a_rm = A.row_map;
  const auto a_col = A.col_idx;
  const auto b_rm = B.row_map;
  const int lanes = LaunchTraits<Exec>::vector_lanes;
  const int groups = LaunchTraits<Exec>::team_threads(4);
  const int league = static_cast<int>((n + groups - 1) / groups);
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  Kokkos::parallel_for(
      "libra::spgemm::panel::products",
      light_launch(Kokkos::TeamPolicy<Exec>(exec, league, groups, lanes)),
      KOKKOS_LAMBDA(const Member& m) {
        const std::size_t i =
            static_cast<std::size_t>(m.league_rank()) * groups + m.team_rank();
        if (i >= n) return;
        std::uint64_t p = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(m, a_rm(i), a_rm(i + 1)),
            [&](const Off e, std::uint64_t& sum) {
              const auto k = a_col(e);
              sum += static_cast<std::uint64_t>(b_rm(k + 1) - b_rm(k));
            },
            p);
        Kokkos::single(Kokkos::PerThread(m), [&] { products(i) = p; });
      });
}

// The pre-analysis of a plan that init_panel_plan set up (one pass, one
// read-back): products per row, the binning, the bins' shapes.
template <class Exec, class Plan, class Csr>
void panel_pre_analysis(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                        const SpgemmOptions& options, SpgemmStats& st,
                        const Temps<typename Exec::memory_space>& temps) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;

  const std::size_t n = static_cast<std::size_t>(A.num_rows);
  plan.spread_entries = group_spread_entries(options.tuning.group_spread_entries);
  // The bins count the rows whose thread groups will spread (paths).
  const auto rp = row_products<Exec>(A, B, plan.spread_entries);
  plan.products = temps.template view<std::uint64_t>("libra::spgemm::panel::products", n);
  const auto products = plan.products;
  const auto a_rm = A.row_map;
  const auto a_col = A.col_idx;
  const auto b_rm = B.row_map;
  std::uint64_t total = 0;
  if constexpr (is_host_exec<Exec>) {
    plan.host_marks = B.num_cols <= options.tuning.host_mark_columns;
    plan.host_dense =
        options.dense_accumulator &&
        panel_host_dense_bytes<Exec, S, O>(exec, static_cast<std::uint64_t>(B.num_cols),
                                           plan.host_marks) <= plan.budget / 4;
    plan.host_word_ratio = options.tuning.host_word_ratio;
    plan.host_flag_span = options.tuning.host_flag_span;
    plan.host_direct_entries =
        std::clamp(options.tuning.host_direct_entries, 0, host_direct_entries_max);
    // Capped: the compares grow as the square of a row's columns.
    plan.host_rank_columns =
        std::clamp(options.tuning.host_rank_columns, 0, host_rank_columns_max);
  }
  // The bins' row limits, which do not depend on the lanes per row.
  const PanelShape<Exec, S, O> limits(options.tuning, 1.0);
  const auto products_of = KOKKOS_LAMBDA(const std::size_t i) {
    std::uint64_t p = 0;
    for (Off e = a_rm(i); e < a_rm(i + 1); ++e) {
      const O k = a_col(e);
      p += static_cast<std::uint64_t>(b_rm(k + 1) - b_rm(k));
    }
    products(i) = p;
    return p;
  };
  if (plan.host_dense) {
    Kokkos::parallel_reduce(
        "libra::spgemm::panel::analyze", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& sum) { sum += products_of(i); },
        total);
  } else {
    // The binned path: products per row with a group of lanes across each row
    // of A (one thread per row waited on the hub rows of power-law graphs:
    // 80 us of facebook_combined's 1.2 ms), then the binning by products, whose
    // pass also sums them (one read-back). The bins' limits do not depend on
    // the lanes per row, which the products' average decides below.
    row_products_by_lanes(exec, A, B, products);
    plan.symbolic_bins = bin_rows_unstable<panel_bins>(
        exec, A.num_rows,
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::uint64_t p = products(static_cast<std::size_t>(i));
          return BinKey{limits.symbolic_bin_of(p), p, rp.spreads(i)};
        },
        temps);
    for (const std::uint64_t w : plan.symbolic_bins.weight) total += w;
  }
  plan.total_products = total;
  st.products = total;
  if constexpr (is_host_exec<Exec>) {
    const auto& t = options.tuning;
    // B's rows packed into words only where that spares enough products a
    // row of A (Tuning::host_word_row_saving): at most 1 - saving / products
    // per row runs per nonzero (at most 0: never packed, nothing counted).
    if (plan.host_word_ratio < 1 && t.host_word_row_saving > 0) {
      const double per_row =
          n > 0 ? static_cast<double>(total) / static_cast<double>(n) : 0;
      plan.host_word_ratio = per_row > 0 ? std::min(plan.host_word_ratio,
                                                    1 - t.host_word_row_saving / per_row)
                                         : 0;
    }
    // Short rows sorted on the stack: over a wide C, when rows average few
    // products (Tuning::host_sort_products, _columns, _average).
    const bool wide = static_cast<std::int64_t>(B.num_cols) >= t.host_sort_columns;
    const bool short_rows =
        t.host_sort_average <= 0 ||
        static_cast<double>(total) <= t.host_sort_average * static_cast<double>(n);
    plan.host_sort_products = plan.host_dense && wide && short_rows
                                  ? static_cast<std::uint64_t>(std::clamp(
                                        t.host_sort_products, 0, host_sort_products_max))
                                  : 0;
  }
  st.flops = 2 * total;
  const double per_entry =
      A.nnz() > 0 ? static_cast<double>(total) / static_cast<double>(A.nnz()) : 1.0;
  plan.shape = PanelShape<Exec, S, O>(options.tuning, per_entry);
  if (!plan.shape.same_bins(limits)) {
    throw std::logic_error("spgemm: panel bins depend on the lanes per row");
  }
  plan.sort_columns = options.sort_columns || !plan.host_dense;
  plan.dense_long_rows = options.tuning.dense_long_rows;
  plan.side_by_side = options.tuning.side_by_side;
  plan.fill_bitmap_slots = options.tuning.fill_bitmap_slots;
  // Dense panels take their rows out of the sparse paths: out of the bins, by
  // zero products (the host path asks DenseRows).
  plan.dense_panels =
      find_dense_panels(exec, A, B, products, total, options.tuning, plan.budget, temps);
  if (plan.dense_panels.any()) {
    drop_dense_rows(exec, plan.dense_panels, products);
    if (!plan.host_dense) {
      plan.symbolic_bins = bin_rows_unstable<panel_bins>(
          exec, A.num_rows,
          KOKKOS_LAMBDA(const std::int64_t i) {
            return BinKey{limits.symbolic_bin_of(products(static_cast<std::size_t>(i))),
                          0, rp.spreads(i)};
          },
          temps);
    }
  }
}

}  // namespace libra::impl
