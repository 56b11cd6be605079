#pragma once
// Panel SpGEMM (ApSpGEMM in-core, row by row, Gustavson): each row of C is
// computed on the fly from A(i,:) * B into an accumulator sized for the row,
// nothing is expanded. Symbolic: count distinct columns per row, scan into C's
// row_map, fill the sorted columns. Numeric: accumulate values on that pattern.
// Rows are binned by their products (panel_shape.hpp) and each bin runs the
// accumulator its size calls for; host spaces use per-thread dense accumulators.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "libra/algorithms/scan.hpp"
#include "libra/core/checked.hpp"
#include "libra/core/dynamic_range.hpp"
#include "libra/core/fill.hpp"
#include "libra/core/kernel_lanes.hpp"
#include "libra/spgemm/impl/acc_global.hpp"
#include "libra/spgemm/impl/acc_hash_numeric.hpp"
#include "libra/spgemm/impl/acc_hash_scratch.hpp"
#include "libra/spgemm/impl/acc_host_dense.hpp"
#include "libra/spgemm/impl/column_words.hpp"
#include "libra/spgemm/impl/dense_panels.hpp"
#include "libra/spgemm/impl/panel_plan.hpp"
#include "libra/spgemm/impl/phase_timing.hpp"
#include "libra/spgemm/impl/row_bins.hpp"
#include "libra/spgemm/impl/row_products.hpp"
#include "libra/util/huge_pages.hpp"
#include "libra/util/result_memory.hpp"

namespace libra::impl {

template <class T>
struct type_tag {
  using type = T;
};

// A pass of the host accumulator f (the sum its passes count into, if any)
// over its blocks of rows, taken dynamically (HostDenseRows::blocks, ::chunk).
template <class Tag = void, class Exec, class F, class... Sum>
void host_row_blocks(const char* label, const Exec& exec, const F& f, Sum&... sum) {
  const std::size_t workers = LaunchTraits<Exec>::concurrent_workers(exec);
  const std::int64_t chunk = F::chunk(f.num_rows, workers);
  if constexpr (sizeof...(Sum) == 0) {
    dynamic_for<Tag>(label, exec, 0, F::blocks(f.num_rows), chunk, f);
  } else {
    dynamic_reduce<Tag>(label, exec, 0, F::blocks(f.num_rows), chunk, f, sum...);
  }
}

// One launch of the scratch kernels for bin b of `bins`.
// Its label names the bin's table and rows per team ("...[256x32]"), so that
// profiles tell the bins apart.
template <class Functor, class Exec, class Shape>
void launch_scratch_bin(const Exec& exec, const char* kernel, const Shape& shape, int b,
                        PanelPhase phase, std::size_t rows, std::size_t scratch_bytes,
                        const Functor& f) {
  const auto& bin = shape.bin[b];
  const PanelLaunch& l = bin.in(phase);
  const std::string label = std::string(kernel) + "[" + std::to_string(bin.table) + "x" +
                            std::to_string(l.groups) + "]";
  const int league = static_cast<int>((rows + l.groups - 1) / l.groups);
  const int threads =
      l.groups == 1 ? fitted_team(exec, league, scratch_bytes, l.threads, f) : l.threads;
  Kokkos::TeamPolicy<Exec> policy =
      l.groups > 1 ? Kokkos::TeamPolicy<Exec>(exec, league, l.groups, l.lanes)
                   : Kokkos::TeamPolicy<Exec>(exec, league, threads);
  Kokkos::parallel_for(
      label, light_launch(policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes))), f);
}

// Whether the bitmap kernel F (BitmapRows with or without values) keeps its
// bitmap over C's columns in team scratch.
template <class F, class Plan>
bool bitmap_in_scratch(const Plan& plan) {
  using Exec = typename Plan::Exec;
  const auto words = std::min<std::uint64_t>(
      (static_cast<std::uint64_t>(plan.num_cols) + 63) / 64, std::uint64_t(1) << 20);
  return F::scratch_bytes(static_cast<int>(words)) <=
         static_cast<std::size_t>(plan.shape.scratch) + prefix_scratch_bytes<Exec>();
}

// One launch of the scratch hash kernel F for bin b of `bins`.
template <class F, class Exec, class Plan, class Rp, class Bins, class Values>
void launch_hash_bin(
    const Exec& exec, const char* label, PanelPhase phase, const Plan& plan, const Rp& rp,
    const Bins& bins, int b,
    const Kokkos::View<std::uint64_t*, typename Exec::memory_space>& unique,
    const Values& c_val) {
  const auto& bin = plan.shape.bin[b];
  const int groups = bin.in(phase).groups;
  F f{rp,     bins.rows,      bins.begin[b], bins.size(b), bin.table, groups,
      unique, plan.c.row_map, plan.c.col,    c_val,        {}};
  launch_scratch_bin(exec, label, plan.shape, b, phase, bins.size(b),
                     F::scratch_bytes(bin.table, groups), f);
}

// A bin's expected work, which orders its launch among the others: its rows
// times the most products a row of it has (the rows past the scratch bins:
// twice the last one's).
template <class Shape>
std::uint64_t bin_work(const Shape& shape, int b, std::size_t rows) {
  const int last = shape.group_bins + shape.team_bins;
  const std::uint64_t most =
      b <= last ? shape.bin[b].max_products
                : 2 * std::max<std::uint64_t>(1, shape.bin[last].max_products);
  return static_cast<std::uint64_t>(rows) * std::max<std::uint64_t>(1, most);
}

// Symbolic, binned (GPU spaces, and host spaces without dense accumulators):
// count (Fill = false) or fill (true) every bin. With `c_val` (one-shot
// products) the fill pass also makes C's values where its accumulator can: the
// group bins, the team bins whose tables hold values, and the bitmap spill.
// The bins' launches run side by side (ConcurrentKernels), heaviest first; a
// bitmap in global memory (C too wide for scratch) runs after them on `exec`,
// as its temporaries are released in stream order.
template <bool Fill, class Exec, class Plan, class Csr, class Bins>
void panel_symbolic_bins(
    const Exec& exec, Plan& plan, const Csr& A, const Csr& B, const Bins& bins,
    const Kokkos::View<std::uint64_t*, typename Exec::memory_space>& unique,
    const typename Csr::values_type& c_val, SpgemmPathCounts& paths) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  const auto& shape = plan.shape;
  const auto rp = row_products<Exec>(A, B, plan.spread_entries);
  const bool values = Fill && c_val.extent(0) > 0;
  const int last = shape.group_bins + shape.team_bins;
  // The fill pass's team rows sent to the bitmap (bitmap_fill_bin) follow the
  // global bin's rows: one launch takes both.
  const int global = shape.global_bin();
  const std::size_t routed = Fill ? bins.size(shape.bitmap_fill_bin()) : 0;
  const std::size_t big = bins.size(global) + routed;
  const std::size_t words = (static_cast<std::size_t>(plan.num_cols) + 63) / 64;
  const std::size_t first = bins.begin[global];
  const char* big_label = !Fill    ? "libra::spgemm::panel::count_bitmap"
                          : values ? "libra::spgemm::panel::fill_bitmap_values"
                                   : "libra::spgemm::panel::fill_bitmap";

  // A scratch bin's launch.
  const auto launch_bin = [&](const Exec& on, int b) {
    const std::size_t rows = bins.size(b);
    if (!Fill) {
      paths.hash_in_scratch += rows;
      if (b <= shape.group_bins) {
        paths.thread_groups += rows;
        // (A bin of one row per team runs the team's loop, not the group's.)
        if (shape.bin[b].in(PanelPhase::count).groups > 1)
          paths.thread_groups_spread += bins.flagged[b];
      }
    }
    if constexpr (Fill) {
      if (values && b <= shape.group_bins + shape.values_team_bins) {
        paths.values_in_fill += rows;
        launch_hash_bin<HashRowsInScratch<Exec, S, O, Off, true, true>>(
            on, "libra::spgemm::panel::fill_hash_values", PanelPhase::fill_values, plan,
            rp, bins, b, unique, c_val);
        return;
      }
    }
    launch_hash_bin<HashRowsInScratch<Exec, S, O, Off, Fill>>(
        on, Fill ? "libra::spgemm::panel::fill_hash" : "libra::spgemm::panel::count_hash",
        Fill ? PanelPhase::fill : PanelPhase::count, plan, rp, bins, b, unique,
        typename Csr::values_type());
  };

  // The rows too long for the scratch bins, with the bitmap in team scratch.
  const auto launch_big_in_scratch = [&](const Exec& on, auto kind) {
    using F = typename decltype(kind)::type;
    paths.bitmap_in_scratch += Fill ? 0 : big;
    const int scratch_words = static_cast<int>(words);
    F f{rp,         bins.rows,     first, big, {}, unique, plan.c.row_map,
        plan.c.col, scratch_words, c_val, {}};
    // The scratch left beside the bitmap sums the values of rows that fit.
    if (values) {
      f.value_slots = shape.bitmap_value_slots;
      f.by_column = shape.bitmap_by_column;
    }
    const int league = static_cast<int>(std::min<std::size_t>(big, 1 << 16));
    const auto bytes = Kokkos::PerTeam(F::scratch_bytes(scratch_words, f.value_slots));
    int threads = shape.global_threads;
    if constexpr (LaunchTraits<Exec>::is_gpu) {
      // Few long rows would leave most of the device idle: wider teams, while
      // the rows still fill the device (more threads on one bitmap contend).
      const int widest = std::min(1024, widest_team<Exec>(on, league, bytes, f));
      const auto device = static_cast<std::size_t>(on.concurrency());
      while (threads * 2 <= widest && big * threads * 2 <= device) {
        threads *= 2;  // a power of two: team scans want one
      }
      while (threads > 32 && threads > widest) threads /= 2;
    }
    Kokkos::TeamPolicy<Exec> policy(on, league, threads);
    Kokkos::parallel_for(big_label, light_launch(policy.set_scratch_size(0, bytes)), f);
  };

  // The same rows with one bitmap per team in global memory.
  const auto launch_big_in_memory = [&](auto kind) {
    using F = typename decltype(kind)::type;
    const std::size_t per_slot = words * (values ? 12 : 8) + 1;
    const std::size_t slots = std::max<std::size_t>(
        1, std::min<std::size_t>({big, LaunchTraits<Exec>::concurrent_workers(exec),
                                  plan.budget / 8 / per_slot}));
    const TempsFrame<mem> frame(plan.temps);
    const auto bitmap = plan.temps.template view2<std::uint64_t>(
        "libra::spgemm::panel::bitmap", slots, words);
    Kokkos::deep_copy(exec, bitmap, std::uint64_t(0));
    typename F::Starts starts;
    if (values) {
      starts = plan.temps.template view2<std::uint32_t>(
          "libra::spgemm::panel::word_starts", slots, words);
    }
    F f{rp,         bins.rows, first, big,   bitmap, unique, plan.c.row_map,
        plan.c.col, 0,         c_val, starts};
    Kokkos::TeamPolicy<Exec> policy(
        exec, static_cast<int>(slots),
        fitted_team(exec, static_cast<int>(slots), F::scratch_bytes(0),
                    shape.global_threads, f));
    Kokkos::parallel_for(
        big_label,
        light_launch(policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes(0)))),
        f);
  };

  // Calls run(tag of the bitmap kernel) for the rows past the scratch bins.
  const auto with_bitmap_kind = [&](const auto& run) {
    if (values) {
      run(type_tag<BitmapRows<Exec, S, O, Off, true, true>>{});
    } else {
      run(type_tag<BitmapRows<Exec, S, O, Off, Fill>>{});
    }
  };
  bool big_in_scratch = false;
  with_bitmap_kind([&](auto kind) {
    big_in_scratch = bitmap_in_scratch<typename decltype(kind)::type>(plan);
  });
  if (big > 0) {
    if (!Fill) paths.bitmap += big;
    if (values) paths.values_in_fill += big;
    if (Fill) paths.bitmap_fill += big;
    paths.bitmap_fill_team += routed;
    if (values) {
      paths.bitmap_values_in_place +=
          bins.weight[global] + bins.weight[shape.bitmap_fill_bin()];
      if (shape.bitmap_by_column) paths.bitmap_values_by_column += big;
    }
  }

  // Launches 1 .. last are the scratch bins, `global` the bitmap in scratch.
  std::vector<std::uint64_t> work(static_cast<std::size_t>(global) + 1, 0);
  for (int b = 1; b <= last; ++b) work[b] = bin_work(shape, b, bins.size(b));
  if (big_in_scratch) work[global] = bin_work(shape, global, big);
  {
    ConcurrentKernels<Exec> lanes(exec, work, plan.side_by_side);
    for (const std::size_t k : lanes.order()) {
      const int b = static_cast<int>(k);
      if (lanes.lanes() > 0) ++paths.side_by_side;
      if (b == global) {
        with_bitmap_kind([&](auto kind) { launch_big_in_scratch(lanes.at(k), kind); });
      } else {
        launch_bin(lanes.at(k), b);
      }
    }
  }
  if (big > 0 && !big_in_scratch) with_bitmap_kind(launch_big_in_memory);
}

// The numeric phase's bins (binned path): by products, and by the length of C's
// row; rows whose values the fill pass made (plan.values_in_symbolic) get none.
template <class Exec, class Plan>
void panel_numeric_bins(const Exec& exec, Plan& plan) {
  using S = typename decltype(plan.dense)::non_const_value_type;
  const auto products = plan.products;
  const auto shape = plan.shape;
  const auto c_map = plan.c.row_map;
  const bool skip_done = plan.values_in_symbolic;
  plan.numeric_bins = bin_rows_unstable<panel_bins>(
      exec, plan.num_rows,
      KOKKOS_LAMBDA(const std::int64_t i) {
        const auto len = static_cast<std::uint64_t>(c_map(i + 1) - c_map(i));
        if (skip_done && shape.fill_makes_values(products(i), len)) return 0;
        return shape.numeric_bin_of(products(i), len);
      },
      plan.temps);
  // Per-team dense accumulators for the rows of C too long for scratch, when
  // the budget allows (zeroed once; the kernel leaves them zero).
  const std::size_t big = plan.numeric_bins.size(shape.global_bin());
  const std::size_t row_bytes = static_cast<std::size_t>(plan.num_cols) * sizeof(S) + 1;
  const std::size_t slots =
      plan.dense_long_rows
          ? std::min<std::size_t>({big, LaunchTraits<Exec>::concurrent_workers(exec),
                                   plan.budget / 8 / row_bytes})
          : 0;
  if (slots > 0) {
    plan.dense = plan.temps.template view2<S>("libra::spgemm::panel::dense", slots,
                                              static_cast<std::size_t>(plan.num_cols));
    Kokkos::deep_copy(exec, plan.dense, S(0));
  }
}

// Entries per thread of a per-thread array of T holding at least n: rounded up
// to whole 128-byte blocks, so that no two threads write the same cache line
// (or its prefetched neighbour). Unpadded, two threads' bitmaps over a narrow C
// shared lines and every OR missed (lp_ship04l: 2.5x slower).
template <class T>
std::size_t per_thread_entries(std::size_t n) {
  constexpr std::size_t per_block = 128 / sizeof(T);
  return (n + per_block - 1) / per_block * per_block;
}

// Symbolic on host spaces with per-thread dense accumulators: count, scan, fill
// (with C's values when the product is one-shot). B's rows are packed into
// column words when that pays (column_words.hpp).
template <class Exec, class Plan, class Csr>
void panel_symbolic_host(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                         SpgemmStats& st) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using mem = typename Exec::memory_space;
  const std::size_t workers = LaunchTraits<Exec>::concurrent_workers(exec);
  const std::size_t columns = static_cast<std::size_t>(plan.num_cols);
  const std::size_t words = (columns + 63) / 64;
  // Kept for the numeric calls (and the one-shot fill): zero between rows.
  plan.sums = plan.temps.template view2<S>("libra::spgemm::panel::sums", workers,
                                           per_thread_entries<S>(columns));
  fill_view(exec, plan.sums, S(0));
  const TempsFrame<mem> frame(plan.temps);
  const auto w = column_words(exec, B, plan.host_word_ratio, plan.temps);
  const auto run = [&](auto packed) {
    using F =
        HostDenseRows<Exec, S, O, typename Csr::offset_type, decltype(packed)::value>;
    F f;
    f.products = row_products<Exec>(A, B);
    f.row_products = plan.products;
    f.sort_products = plan.host_sort_products;
    f.direct_entries = plan.host_direct_entries;
    f.words = w;
    f.token = Kokkos::Experimental::UniqueToken<Exec>(exec);
    f.sort = plan.sort_columns;
    f.seen = plan.temps.template view2<std::uint64_t>(
        "libra::spgemm::panel::seen", workers, per_thread_entries<std::uint64_t>(words));
    fill_view(exec, f.seen, std::uint64_t(0));
    f.flags = plan.temps.template view2<std::uint64_t>(
        "libra::spgemm::panel::flags", workers,
        per_thread_entries<std::uint64_t>((words + 63) / 64));
    fill_view(exec, f.flags, std::uint64_t(0));
    f.flag_span = plan.host_flag_span;
    f.rank_columns = plan.host_rank_columns;
    // One entry more than words: mark() writes an entry before it knows it is new.
    f.touched = plan.temps.template view2<O>("libra::spgemm::panel::touched", workers,
                                             per_thread_entries<O>(words + 1));
    if (!decltype(packed)::value) {
      f.columns = plan.temps.template view2<O>("libra::spgemm::panel::columns", workers,
                                               per_thread_entries<O>(columns + 1));
      if (plan.host_marks) {
        using Mark = typename F::Mark;
        f.marks = plan.temps.template view2<Mark>("libra::spgemm::panel::marks", workers,
                                                  per_thread_entries<Mark>(columns));
        fill_view(exec, f.marks, Mark(0));
      }
    }
    if (decltype(packed)::value && plan.sort_columns) {
      f.known_orders = plan.temps.template view<std::uint8_t>(
          "libra::spgemm::panel::known_orders", static_cast<std::size_t>(plan.num_rows));
    }
    f.unique = plan.temps.template view<std::uint64_t>(
        "libra::spgemm::panel::unique", static_cast<std::size_t>(plan.num_rows));
    fill_view(exec, f.unique, std::uint64_t(0));
    // Rows in their own order: neighbouring rows of FEM-like matrices share rows
    // of B, and ordering rows by weight cost more than the balance it bought
    // (bcsstk21: 0.56 -> 0.31 ms without it; no matrix of the report got slower).
    f.num_rows = static_cast<std::int64_t>(plan.num_rows);
    f.dense = plan.dense_panels.rows;
    std::uint64_t rows = 0;
    typename F::PathRows counted;
    f.counted = &counted;
    host_row_blocks("libra::spgemm::panel::count_dense", exec, f, rows);
    plan.rows_with_products = rows;
    st.paths.host_copied += counted.copied;  // the pass has returned
    st.paths.host_merged += counted.merged;
    st.paths.host_sorted += counted.sorted;
    const auto& dense = plan.dense_panels;
    DensePanelWork<S, mem> dense_work;
    if (dense.any()) {
      dense_work = dense_panel_work<S>(dense, plan.temps, true);
      dense_panels_count(exec, dense, A, B, dense_work, f.unique);
    }
    const std::uint64_t nnz = exclusive_scan(exec, "libra::spgemm::panel::scan", f.unique,
                                             plan.c.row_map, "nnz(C)");
    if (plan.counts_only) return;
    plan.c.col = result_view<O, mem>("libra::spgemm::C::col", nnz);
    advise_huge_pages(plan.c.col);  // first touched by the fill below
    f.phase = F::Phase::fill;
    f.c_row_map = plan.c.row_map;
    f.c_col = plan.c.col;
    if (plan.values_in_symbolic) {
      f.phase = F::Phase::fill_values;
      f.sums = plan.sums;
      plan.c_values = result_view<S, mem>("libra::spgemm::C::values", nnz);
      advise_huge_pages(plan.c_values);
      f.c_val = plan.c_values;
      st.paths.accumulate_host_dense += rows;
    }
    std::uint64_t flagged = 0;
    std::uint64_t ranked = 0;
    f.ranked_rows = &ranked;
    host_row_blocks<typename F::Fill>("libra::spgemm::panel::fill_dense", exec, f,
                                      flagged);
    st.paths.host_word_flags += flagged;
    st.paths.host_ranked += ranked;  // the pass has returned
    if (dense.any()) {
      dense_panels_fill(
          exec, dense, A, B, dense_work, f.c_row_map, plan.c.col,
          plan.values_in_symbolic ? plan.c_values : Kokkos::View<S*, mem>());
    }
  };
  if (w.packed) {
    run(std::true_type{});
    st.paths.host_packed_words += plan.rows_with_products;
  } else {
    run(std::false_type{});
    if (plan.host_marks) st.paths.host_marks += plan.rows_with_products;
  }
  st.paths.host_dense += plan.rows_with_products;
  if (!plan.sort_columns) st.paths.unsorted += plan.rows_with_products;
}

// Symbolic: C's row_map and sorted columns (kept in plan.c).
template <class Exec, class Plan, class Csr>
void panel_symbolic(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                    SpgemmStats& st) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  Kokkos::Timer timer;
  const std::size_t n = static_cast<std::size_t>(plan.num_rows);
  const auto rp = row_products<Exec>(A, B);
  // (A small path that gave up left its row_map: a device free and a new
  // allocation cost more than the product.)
  if (plan.c.row_map.extent(0) != n + 1) {
    plan.c.row_map = result_view<Off, mem>("libra::spgemm::C::row_map", n + 1);
  }
  if (plan.host_dense) {
    if constexpr (is_host_exec<Exec>) panel_symbolic_host(exec, plan, A, B, st);
  } else {
    const TempsFrame<mem> frame(plan.temps);
    const auto products = plan.products;
    const auto shape = plan.shape;
    const auto unique =
        plan.temps.template view<std::uint64_t>("libra::spgemm::panel::unique", n);
    Kokkos::deep_copy(exec, unique, std::uint64_t(0));
    // The pre-analysis binned the rows by products (panel_pre_analysis).
    panel_symbolic_bins<false>(exec, plan, A, B, plan.symbolic_bins, unique,
                               typename Csr::values_type(), st.paths);
    const auto& dense = plan.dense_panels;
    DensePanelWork<S, mem> dense_work;
    if (dense.any()) {
      dense_work = dense_panel_work<S>(dense, plan.temps, true);
      dense_panels_count(exec, dense, A, B, dense_work, unique);
    }
    const std::uint64_t nnz = exclusive_scan(exec, "libra::spgemm::panel::scan", unique,
                                             plan.c.row_map, "nnz(C)");
    if (plan.counts_only) return;
    plan.c.col = result_view<O, mem>("libra::spgemm::C::col", nnz);
    typename Csr::values_type values;
    const bool one_shot = plan.values_in_symbolic;
    if (one_shot) {
      values = typename Csr::values_type(
          result_view<S, typename Csr::values_type::memory_space>(
              "libra::spgemm::C::values", nnz));
      // Rows of C too long for a team's table with values go to the bitmap
      // spill when its bitmap fits team scratch: values in one pass, dense over
      // C's columns (rows that long are).
      plan.shape.values_spill =
          bitmap_in_scratch<BitmapRows<Exec, S, O, Off, true, true>>(plan);
    }
    // Team rows whose tables are large beside the bitmap fill off the bitmap:
    // no sort (Tuning::fill_bitmap_slots).
    const bool bitmap_fits =
        one_shot ? plan.shape.values_spill
                 : bitmap_in_scratch<BitmapRows<Exec, S, O, Off, true>>(plan);
    const std::int64_t words = (static_cast<std::int64_t>(plan.num_cols) + 63) / 64;
    plan.shape.bitmap_fill_table =
        bitmap_fits ? bitmap_fill_table(plan.fill_bitmap_slots, words) : 0;
    // The bitmap's rows of C up to this long sum their values in scratch.
    plan.shape.bitmap_value_slots =
        one_shot && plan.shape.values_spill
            ? BitmapRows<Exec, S, O, Off, true, true>::value_slots_within(
                  static_cast<int>(words), static_cast<std::size_t>(plan.shape.scratch) +
                                               prefix_scratch_bytes<Exec>())
            : 0;
    // When they hold all of C's columns, the sums sit at their columns.
    plan.shape.bitmap_by_column =
        plan.shape.bitmap_value_slots > 0 && plan.shape.bitmap_value_slots >= words * 64;
    const auto fill_shape = plan.shape;
    const auto c_map = plan.c.row_map;
    // Weights: the bitmap's rows whose values go to C in place (paths).
    const auto fill_bins = bin_rows_unstable<panel_bins>(
        exec, plan.num_rows,
        KOKKOS_LAMBDA(const std::int64_t i) {
          const auto len = static_cast<std::uint64_t>(c_map(i + 1) - c_map(i));
          const int b = one_shot ? fill_shape.fill_values_bin_of(products(i), len)
                                 : fill_shape.fill_bin_of(products(i), len);
          const bool in_place =
              one_shot && b >= fill_shape.global_bin() && !fill_shape.bitmap_by_column &&
              len > static_cast<std::uint64_t>(fill_shape.bitmap_value_slots);
          return BinKey{b, in_place ? 1u : 0u};
        },
        plan.temps);
    panel_symbolic_bins<true>(exec, plan, A, B, fill_bins, unique, values, st.paths);
    if (dense.any()) {
      dense_panels_fill(exec, dense, A, B, dense_work, c_map, plan.c.col, values);
    }
    if (plan.values_in_symbolic) {
      plan.c_values = values;
      // Rows of team bins whose tables hold no values still need the numeric pass.
      std::size_t rest = 0;
      for (int b = shape.group_bins + shape.values_team_bins + 1;
           b <= shape.group_bins + shape.team_bins; ++b) {
        rest += fill_bins.size(b);
      }
      plan.rows_left = rest;
    }
  }
  st.paths.dense_panels += plan.dense_panels.dense_rows;
  end_phase(exec, plan, timer, st.seconds_compress);
  if (!plan.host_dense && (!plan.values_in_symbolic || plan.rows_left > 0)) {
    panel_numeric_bins(exec, plan);
  }
  if (plan.progress) plan.progress(1, 2);
}

// Numeric: C's values on the pattern of panel_symbolic.
template <class Exec, class Plan, class Csr>
void panel_numeric(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                   typename Csr::values_type c_val, SpgemmStats& st) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  Kokkos::Timer timer;
  const auto rp = row_products<Exec>(A, B, plan.spread_entries);
  if (plan.host_dense) {
    if constexpr (is_host_exec<Exec>) {
      // The pattern is known: the accumulator needs no column words.
      using F = HostDenseRows<Exec, S, O, Off, false>;
      F f;
      f.products = rp;
      f.row_products = plan.products;
      f.sort_products = plan.host_sort_products;
      f.direct_entries = plan.host_direct_entries;
      f.token = Kokkos::Experimental::UniqueToken<Exec>(exec);
      f.sums = plan.sums;
      f.c_row_map = plan.c.row_map;
      f.c_col = plan.c.col;
      f.c_val = c_val;
      f.dense = plan.dense_panels.rows;
      f.num_rows = static_cast<std::int64_t>(plan.num_rows);
      host_row_blocks("libra::spgemm::panel::numeric_dense", exec, f);
      st.paths.accumulate_host_dense += plan.rows_with_products;
    }
  } else {
    const auto& shape = plan.shape;
    const auto& bins = plan.numeric_bins;
    const int last = shape.group_bins + shape.team_bins;
    const int global = shape.global_bin();
    // Every bin side by side (the dense rows' arrays live with the plan).
    std::vector<std::uint64_t> work(static_cast<std::size_t>(global) + 1, 0);
    for (int b = 1; b <= global; ++b) work[b] = bin_work(shape, b, bins.size(b));
    ConcurrentKernels<Exec> lanes(exec, work, plan.side_by_side);
    for (const std::size_t k : lanes.order()) {
      const int b = static_cast<int>(k);
      const Exec& on = lanes.at(k);
      const std::size_t rows = bins.size(b);
      if (lanes.lanes() > 0) ++st.paths.side_by_side;
      if (b <= last) {
        st.paths.accumulate_in_scratch += rows;
        using F = AccumulateRowsInHash<Exec, S, O, Off>;
        const auto& bin = shape.bin[b];
        const int table = numeric_table_for(shape.numeric_capacity_of(b));
        const int groups = bin.in(PanelPhase::numeric).groups;
        F f{rp,     bins.rows,      bins.begin[b], rows, table,
            groups, plan.c.row_map, plan.c.col,    c_val};
        launch_scratch_bin(on, "libra::spgemm::panel::numeric_hash", shape, b,
                           PanelPhase::numeric, rows, F::scratch_bytes(table, groups), f);
        continue;
      }
      const std::size_t first = bins.begin[global];
      if (plan.dense.extent(0) > 0) {
        st.paths.accumulate_dense += rows;
        using F = AccumulateRowsDense<Exec, S, O, Off>;
        const F f{rp,         bins.rows,      first,      rows,
                  plan.dense, plan.c.row_map, plan.c.col, c_val};
        const int league = static_cast<int>(plan.dense.extent(0));
        Kokkos::TeamPolicy<Exec> policy(
            on, league,
            fitted_team(on, league, F::scratch_bytes(), shape.global_threads, f));
        Kokkos::parallel_for(
            "libra::spgemm::panel::numeric_dense",
            light_launch(policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes()))),
            f);
      } else {
        st.paths.accumulate_in_place += rows;
        using F = AccumulateRowsInPlace<Exec, S, O, Off>;
        const F f{rp, bins.rows, first, plan.c.row_map, plan.c.col, c_val};
        const int league = static_cast<int>(rows);
        Kokkos::TeamPolicy<Exec> policy(
            on, league,
            fitted_team(on, league, F::scratch_bytes(), shape.global_threads, f));
        Kokkos::parallel_for(
            "libra::spgemm::panel::numeric_global",
            light_launch(policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes()))),
            f);
      }
    }
  }
  if (plan.dense_panels.any()) {
    const TempsFrame<typename Exec::memory_space> frame(plan.temps);
    const auto work = dense_panel_work<S>(plan.dense_panels, plan.temps, false);
    dense_panels_numeric(exec, plan.dense_panels, A, B, work, plan.c.row_map, plan.c.col,
                         c_val);
  }
  end_phase(exec, plan, timer, st.seconds_compress);
  if (plan.progress) plan.progress(2, 2);
}

}  // namespace libra::impl
