#pragma once
// Small one-shot products (SpgemmOptions::Tuning::small_nnz) in two or three launches
// and one host synchronisation: on a GPU the binned path's analysis, bins and
// read-backs cost a fixed ~0.2 ms, more than the product itself.
//   count  every row in order, and the launch tallies the products;
//   scan   C's row_map: written by the count's last team (bitmap rows whose
//          threads have few rows each: last_team_row_map.hpp), else by a
//          scan launch; either hands nnz(C) and the tallies to host memory the
//          device writes (zeroed_counters.hpp: no launch zeroes them first, no
//          copy reads them back), and the host waits for it (the one
//          synchronisation);
//   fill   C's columns and values in one pass.
// Narrow products of any size take this path too (wants_small_path).
// Two accumulators. Bitmap rows (small_path_bitmap, Tuning::small_bitmap): a
// team takes a row at a time, its products flattened over the threads, with a
// bitmap over C's columns in scratch, and reads the row's sorted columns off
// it: no table to outgrow, no sort. Otherwise G rows per team, each in a
// scratch hash table of `table` slots. A row with more products than slots
// is left out: when a bitmap over C's columns fits team scratch (and
// Tuning::small_spill), the count lists it and a bitmap-rows kernel counts
// the listed rows, one team each, then the scan runs again and a second
// synchronisation reads nnz(C); the fill skips them and the bitmap fills them
// (power-law graphs' hub rows: ca-GrQc). Otherwise it sends the whole product
// back to the binned path (the count and scan are then wasted: tens of
// microseconds).
// C's row_map is allocated before the first launch: a Kokkos allocation on a
// GPU copies its header to the device synchronously, which would otherwise
// wait for the count.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>

#include "libra/core/kernel_lanes.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/core/spaces.hpp"
#include "libra/spgemm/impl/acc_global.hpp"
#include "libra/spgemm/impl/acc_hash_scratch.hpp"
#include "libra/spgemm/impl/last_team_row_map.hpp"
#include "libra/spgemm/impl/panel_plan.hpp"
#include "libra/spgemm/impl/row_products.hpp"
#include "libra/util/result_memory.hpp"
#include "libra/util/workspace.hpp"
#include "libra/util/zeroed_counters.hpp"

namespace libra::impl {

// A product's sizes as the small path's rules see them.
struct SmallPathSizes {
  std::int64_t rows = 0, a_nnz = 0, b_rows = 0, b_nnz = 0, cols = 0;
  // The average row's products (average row of A times average row of B).
  double per_row() const {
    if (rows == 0 || b_rows == 0) return 0;
    return static_cast<double>(a_nnz) / static_cast<double>(rows) *
           (static_cast<double>(b_nnz) / static_cast<double>(b_rows));
  }
};
template <class Csr>
SmallPathSizes small_path_sizes(const Csr& A, const Csr& B) {
  return {static_cast<std::int64_t>(A.num_rows), static_cast<std::int64_t>(A.nnz()),
          static_cast<std::int64_t>(B.num_rows), static_cast<std::int64_t>(B.nnz()),
          static_cast<std::int64_t>(B.num_cols)};
}

// The small path's accumulator: hash tables, or a bitmap over C's columns in
// team scratch with the sums at positions in C's row (staged: rows of C up to
// the scratch left beside the bitmap add there, longer ones in C, in place) or
// at their columns (C narrow enough for a sum per column beside the bitmap).
// A bitmap much wider than the average row's products (the product of the
// average rows of A and B, which power-law graphs' hubs exceed) would cost
// more to clear and scan than the row (and than a hash table).
enum class SmallBitmap { none, staged, by_column };
template <class Exec, class S, class O, class Off>
SmallBitmap small_path_bitmap(const SmallPathSizes& z, const SpgemmOptions& options) {
  if (options.tuning.small_bitmap < 0 || z.rows == 0) return SmallBitmap::none;
  const std::int64_t words = (z.cols + 63) / 64;
  if (words == 0 || words > (std::int64_t(1) << 20)) return SmallBitmap::none;
  if (static_cast<double>(words) > std::max(64.0, 2 * z.per_row()))
    return SmallBitmap::none;
  using F = BitmapRows<Exec, S, O, Off, true, true>;
  const std::size_t room = static_cast<std::size_t>(LaunchTraits<Exec>::scratch_bytes()) +
                           prefix_scratch_bytes<Exec>();
  const int w = static_cast<int>(words);
  if (F::scratch_bytes(w, w * 64) <= room) return SmallBitmap::by_column;
  if (F::scratch_bytes(w, 0) <= room) return SmallBitmap::staged;
  return SmallBitmap::none;
}

// Whether the small path's hash rows too long for their tables spill to
// bitmap rows (rather than give the product up): when a bitmap over C's
// columns, with its word starts, fits a team's scratch (Tuning::small_spill).
template <class Exec, class S, class O, class Off>
bool small_path_spills(const SmallPathSizes& z, const SpgemmOptions& options) {
  if (!options.tuning.small_spill) return false;
  const std::int64_t words = (z.cols + 63) / 64;
  if (words == 0 || words > (std::int64_t(1) << 20)) return false;
  const std::size_t room = static_cast<std::size_t>(LaunchTraits<Exec>::scratch_bytes()) +
                           prefix_scratch_bytes<Exec>();
  return BitmapRows<Exec, S, O, Off, true, true>::scratch_bytes(static_cast<int>(words),
                                                                0) <= room;
}

// The products beyond which a hash row spills (before its table overflows):
// Tuning::small_spill_products, or an eighth of C's column words when more (a
// spilled row's team clears and scans all of them, twice).
inline std::uint64_t small_spill_beyond(const SpgemmOptions& options,
                                        std::int64_t words) {
  return static_cast<std::uint64_t>(
      std::max<std::int64_t>(options.tuning.small_spill_products, words / 8));
}

// Whether a one-shot product takes the small path: GPU-style kernels (host
// spaces with dense accumulators have no launch costs to save), and either a
// small A whose rows likely fit the tables (the average row of A times the
// average row of B within a quarter of a table: bcsstk13, 42 x 42 products a
// row on average, would only pay for the attempt), or, at any size, a C narrow
// enough for bitmap rows with a sum per column (no bins, no tables, no sort:
// facebook_combined's 4,039 columns).
template <class Exec, class S, class O, class Off>
bool wants_small_path(const SmallPathSizes& z, const SpgemmOptions& options) {
  if (options.tuning.small_nnz <= 0 || z.rows == 0) return false;
  if (is_host_exec<Exec> && options.dense_accumulator) return false;
  const bool small = z.a_nnz <= options.tuning.small_nnz &&
                     z.per_row() <= options.tuning.small_table / 4.0;
  return small ||
         small_path_bitmap<Exec, S, O, Off>(z, options) == SmallBitmap::by_column;
}
template <class Exec, class Csr>
bool wants_small_path(const Csr& A, const Csr& B, const SpgemmOptions& options) {
  return wants_small_path<Exec, typename Csr::scalar_type, typename Csr::ordinal_type,
                          typename Csr::offset_type>(small_path_sizes(A, B), options);
}

// Lanes per row: a row of B in one sweep, at least 4, at most a warp (1 on a
// host space).
template <class Exec>
int small_lanes(double products_per_entry) {
  if (!LaunchTraits<Exec>::is_gpu) return 1;
  int lanes = 4;
  while (lanes < 32 && lanes < products_per_entry) lanes *= 2;
  return lanes;
}

// C's row_map from the rows' counts; nnz(C) also goes to its tally slot, and the
// last row hands the tallies over to the host (zeroed_counters.hpp).
template <class Off, class Mem, class Out>
struct SmallRowMapScan {
  Kokkos::View<std::uint64_t*, Mem> unique;
  Kokkos::View<Off*, Mem> row_map;
  Kokkos::View<atomic_u64*, Mem> tally;
  Out out;
  std::size_t n = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, std::uint64_t& sum,
                                         const bool final) const {
    if (final) row_map(i) = static_cast<Off>(sum);
    sum += unique(i);
    if (final && i + 1 == n) {
      row_map(n) = static_cast<Off>(sum);
      tally(small_tally_nnz) = sum;
      hand_over(tally, out);
    }
  }
};

// Runs the small path into plan.c and plan.c_values; false (nothing kept) when
// a row did not fit, and the caller takes the binned path.
template <class Exec, class Plan, class Csr>
bool panel_small(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                 const SpgemmOptions& options, SpgemmStats& st,
                 const Temps<typename Exec::memory_space>& temps) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  const std::size_t n = static_cast<std::size_t>(A.num_rows);
  // (The last row hands the tallies over: a product without rows has none.)
  if (n == 0) return false;
  // First, while the device is idle (see the top of the file).
  auto row_map = result_view<Off, mem>("libra::spgemm::C::row_map", n + 1);
  const TempsFrame<mem> frame(temps);
  const auto rp =
      row_products<Exec>(A, B, group_spread_entries(options.tuning.group_spread_entries));
  const SmallBitmap bitmap_kind =
      small_path_bitmap<Exec, S, O, Off>(small_path_sizes(A, B), options);
  const bool by_bitmap = bitmap_kind != SmallBitmap::none;
  const int words = static_cast<int>((B.num_cols + 63) / 64);
  const auto scratch = static_cast<std::size_t>(LaunchTraits<Exec>::scratch_bytes());
  auto unique = temps.template view<std::uint64_t>("libra::spgemm::small::unique", n);
  // tally = {products, longest row of C (hash rows) or longest row's products
  // (bitmap rows), rows left out, nnz(C), rows spread, spilled rows' products,
  // longest spilled row's products, the count teams' tickets}: zero when
  // leased, read once (twice with spilled rows) without a copy.
  const LanesLease<Exec, ZeroedCounters<Exec, small_tally_slots>> counters(exec);
  auto tally = (*counters).device;
  (*counters).prepare(exec);
  // Hash rows too long for their tables spill to bitmap rows when C's columns
  // fit a team's scratch.
  using SpillFill = BitmapRows<Exec, S, O, Off, true, true>;
  const std::size_t room = scratch + prefix_scratch_bytes<Exec>();
  const bool spilling =
      !by_bitmap && small_path_spills<Exec, S, O, Off>(small_path_sizes(A, B), options);
  Kokkos::View<std::uint32_t*, mem> spill;
  Kokkos::View<std::uint8_t*, mem> left;
  if (spilling) {
    spill = temps.template view<std::uint32_t>("libra::spgemm::small::spill", n);
    left = temps.template view<std::uint8_t>("libra::spgemm::small::left", n);
  }

  // Bitmap rows: `threads` per team (fewer where the launched kernel's
  // registers and scratch allow fewer: fitted_team), a team per row (the device schedules
  // them as they finish, so hub rows run beside the others), or, when zeroing a team's
  // sums per column would cost more than 8 stores a thread per row, as many
  // teams as run at once, striding over the rows.
  // (rows: the rows to make, `count` of them; empty: all n in order.) A count
  // launch given `last` ends with its last team writing C's row_map and
  // handing the tallies over where its threads' runs of rows stay short
  // (last_team_row_map.hpp); returns whether it does.
  const auto launch_bitmap = [&](const Exec& on, const char* label, auto f, int threads,
                                 Kokkos::View<const std::uint32_t*, mem> rows,
                                 std::size_t count, bool last = false) {
    using F = decltype(f);
    f.rows = rows;
    f.first = 0;
    f.count = count;
    f.scratch_words = words;
    const auto bytes = F::scratch_bytes(words, f.value_slots);
    const auto policy_for = [&](int t) {
      const bool strided = f.by_column && f.value_slots > 8 * t;
      const std::size_t teams =
          strided ? std::max<std::size_t>(1, LaunchTraits<Exec>::concurrent_workers(exec))
                  : count;
      // (At most INT_MAX teams: beyond, they stride over the rows.)
      const int league = static_cast<int>(std::min<std::size_t>(
          {count, teams, static_cast<std::size_t>(std::numeric_limits<int>::max())}));
      return light_launch(Kokkos::TeamPolicy<Exec>(on, league, t)
                              .set_scratch_size(0, Kokkos::PerTeam(bytes)));
    };
    threads = fitted_team(on, 1, bytes, LaunchTraits<Exec>::team_threads(threads), f);
    last = last && last_team_scans(n, threads, options.tuning.small_last_team_rows);
    if (last) {
      f.last_row_map = row_map;
      f.counters = (*counters).device;
      f.counters_out = (*counters).out;
    }
    Kokkos::parallel_for(label, policy_for(threads), f);
    return last;
  };
  // Threads per team: the count's by the average row's products, the fill's by
  // the longest row's (the count's tally), so that a hub row's team takes it in
  // a few steps. A launch of `rows` teams that would fill at most a quarter of
  // the device's threads even so widens them further, toward 4 products a
  // thread: its time is the longest row's chain of dependent loads, a sweep
  // of the team per step (lp_ship04l's 402 rows of up to 258 products on the
  // H100: 0.091 -> 0.073 ms; 4 products a thread on every launch made
  // facebook_combined's 4,039 rows 1.6x slower).
  const double per_thread = std::max(1, options.tuning.small_team_products);
  const double device_threads = static_cast<double>(exec.concurrency());
  const auto threads_for = [&](double products, int most, std::size_t rows) {
    int t = 32;
    while (t < most && t * per_thread < products) t *= 2;
    while (t < most && t * 4.0 < products &&
           static_cast<double>(rows) * 2 * t <= device_threads / 4)
      t *= 2;
    return t;
  };

  // Hash rows: count tables of the configured slots (a row uses those its
  // products need), fewer when B is smaller still, or when a fill table as
  // large (keys and values) would not fit a team's scratch.
  using Count = HashRowsInScratch<Exec, S, O, Off, false>;
  using Fill = HashRowsInScratch<Exec, S, O, Off, true, true>;
  const double per_entry =
      B.num_rows > 0 ? static_cast<double>(B.nnz()) / static_cast<double>(B.num_rows) : 1;
  const int lanes = small_lanes<Exec>(per_entry);
  int table = 2;
  while (table < options.tuning.small_table &&
         static_cast<std::uint64_t>(table) < static_cast<std::uint64_t>(B.nnz()))
    table *= 2;
  while (table > 2 && Fill::scratch_bytes(table, 1) > scratch) table /= 2;
  // Rows per team: four warps' worth of lanes on a GPU, as many as the team's
  // scratch holds; one on a host space.
  const auto launch_hash = [&](const Exec& on, const char* label, auto f, bool tallied) {
    using F = decltype(f);
    f.groups = LaunchTraits<Exec>::is_gpu ? std::max(1, 128 / lanes) : 1;
    while (f.groups > 1 && F::scratch_bytes(f.table, f.groups, tallied) > scratch)
      --f.groups;
    const int league = static_cast<int>((n + f.groups - 1) / f.groups);
    Kokkos::TeamPolicy<Exec> policy(on, league, f.groups, lanes);
    const auto bytes = F::scratch_bytes(f.table, f.groups, tallied);
    Kokkos::parallel_for(
        label, light_launch(policy.set_scratch_size(0, Kokkos::PerTeam(bytes))), f);
  };

  // Bitmap rows with more products than small_heavy_sweeps sweeps of the
  // count's teams are listed in `spill` (their number in tally(2)) for wide
  // teams of their own: sized for them, every team would take a fraction of
  // the device for a row of average length (facebook_combined: 4,039 rows of
  // 666 products on average, hub rows of up to 60,000).
  std::uint64_t heavy_beyond = 0;
  bool scanned = false;  // by the count's last team
  if (by_bitmap) {
    const int threads = threads_for(4 * small_path_sizes(A, B).per_row(), 256, n);
    if (options.tuning.small_heavy_sweeps > 0) {
      heavy_beyond =
          static_cast<std::uint64_t>(options.tuning.small_heavy_sweeps) *
          static_cast<std::uint64_t>(LaunchTraits<Exec>::team_threads(threads));
      spill = temps.template view<std::uint32_t>("libra::spgemm::small::spill", n);
    }
    BitmapRows<Exec, S, O, Off, false, false, true> count;
    count.products = rp;
    count.unique = unique;
    count.tally = tally;
    count.heavy_beyond = heavy_beyond;
    count.heavy = spill;
    scanned = launch_bitmap(exec, "libra::spgemm::small::count_bitmap", count, threads,
                            {}, n, true);
  } else {
    Count count{rp, {}, 0, n, table, 1, unique, {}, {}, {}, tally, spill, left};
    if (spilling && options.tuning.small_spill_products > 0) {
      count.fit_products = small_spill_beyond(options, words);
    }
    launch_hash(exec, "libra::spgemm::small::count", count, true);
  }
  const SmallRowMapScan<Off, mem, decltype((*counters).out)> scan{unique, row_map, tally,
                                                                  (*counters).out, n};
  // C's row_map, unless the count's last team wrote it.
  const auto scan_rows = [&](bool by_last_team) {
    if (by_last_team) {
      ++st.paths.small_last_team_scans;
      return;
    }
    ++st.paths.small_scan_launches;
    Kokkos::parallel_scan("libra::spgemm::small::scan",
                          Kokkos::RangePolicy<Exec>(exec, 0, n), scan);
  };
  scan_rows(scanned);
  auto t = (*counters).read(exec);  // the synchronisation
  if (!by_bitmap && t[2] > 0 && !spilling) {
    st.paths.small_fallback += t[2];
    plan.c.row_map = row_map;  // the binned path's to fill
    return false;
  }
  // Rows the count set aside (hash rows left out of the tables, heavy bitmap
  // rows, both listed in `spill`): counted by bitmap rows of their own (heavy
  // ones by teams as wide as the device allows), then C's row_map again.
  const std::size_t spilled = spilling ? static_cast<std::size_t>(t[2]) : 0;
  const std::size_t heavy_rows = by_bitmap ? static_cast<std::size_t>(t[2]) : 0;
  if (spilled + heavy_rows > 0) {
    BitmapRows<Exec, S, O, Off, false, false, true> count;
    count.products = rp;
    count.unique = unique;
    count.tally = Kokkos::subview(tally, std::make_pair(5, 7));
    (*counters).prepare(exec);
    scan_rows(launch_bitmap(exec,
                            spilled ? "libra::spgemm::small::count_spill"
                                    : "libra::spgemm::small::count_heavy",
                            count,
                            spilled ? threads_for(2.0 * table, 1024, spilled) : 1024,
                            spill, spilled + heavy_rows, true));
    // The second synchronisation: nnz(C) and the set-aside rows' tallies (the
    // first hand-over zeroed the others).
    const auto again = (*counters).read(exec);
    for (const int k : {static_cast<int>(small_tally_nnz), 5, 6}) t[k] = again[k];
    st.paths.small_spill += spilled;
    st.paths.small_heavy += heavy_rows;
  }
  // The fill's launches side by side (ConcurrentKernels): the rows in order,
  // and the spilled or heavy rows, weighed by their products.
  const std::uint64_t set_aside_products = spilled + heavy_rows > 0 ? t[5] : 0;
  const std::vector<std::uint64_t> fill_work{
      t[0] > set_aside_products ? t[0] - set_aside_products : 0, set_aside_products};
  const std::uint64_t nnz = checked_cast<Off>(t[3], "nnz(C)");
  st.products = t[0];
  st.flops = 2 * t[0];
  st.paths.small += n;
  plan.total_products = t[0];
  plan.c.row_map = row_map;
  // The device is idle but for other streams: one fence covers both arrays.
  bool reused = false;
  plan.c.col = result_view<O, mem>("libra::spgemm::C::col", nnz, &reused);
  plan.c_values = result_view<S, mem>("libra::spgemm::C::values", nnz, &reused);
  if (reused) result_reuse_fence();
  if (by_bitmap) {
    st.paths.small_bitmap += n;
    if (bitmap_kind == SmallBitmap::by_column) st.paths.small_by_column += n;
    if (nnz > 0) {
      BitmapRows<Exec, S, O, Off, true, true> fill;
      fill.products = rp;
      fill.c_row_map = row_map;
      fill.c_col = plan.c.col;
      fill.c_val = plan.c_values;
      fill.by_column = bitmap_kind == SmallBitmap::by_column;
      fill.value_slots = fill.by_column
                             ? words * 64
                             : decltype(fill)::value_slots_within(
                                   words, scratch + prefix_scratch_bytes<Exec>());

      ConcurrentKernels<Exec> lanes(exec, fill_work, options.tuning.side_by_side);
      for (const std::size_t k : lanes.order()) {
        if (lanes.lanes() > 0) ++st.paths.side_by_side;
        if (k == 0) {
          auto light = fill;
          light.heavy_beyond = heavy_rows > 0 ? heavy_beyond : 0;
          launch_bitmap(lanes.at(k), "libra::spgemm::small::fill_bitmap", light,
                        threads_for(static_cast<double>(t[1]), 1024, n), {}, n);
        } else {
          launch_bitmap(lanes.at(k), "libra::spgemm::small::fill_heavy", fill,
                        threads_for(static_cast<double>(t[6]), 1024, heavy_rows), spill,
                        heavy_rows);
        }
      }
    }
  } else {
    st.paths.thread_groups_spread += t[4];
    // Fill tables: twice the longest row of C, at most the count's.
    int fill_table = 2;
    while (fill_table < table && static_cast<std::uint64_t>(fill_table) < 2 * t[1])
      fill_table *= 2;
    ConcurrentKernels<Exec> lanes(exec,
                                  nnz > 0 ? fill_work : std::vector<std::uint64_t>{},
                                  options.tuning.side_by_side);
    for (const std::size_t k : lanes.order()) {
      if (lanes.lanes() > 0) ++st.paths.side_by_side;
      if (k == 0) {
        launch_hash(lanes.at(k), "libra::spgemm::small::fill",
                    Fill{rp,
                         {},
                         0,
                         n,
                         fill_table,
                         1,
                         {},
                         row_map,
                         plan.c.col,
                         plan.c_values,
                         {},
                         {},
                         left},
                    false);
        continue;
      }
      SpillFill fill;
      fill.products = rp;
      fill.c_row_map = row_map;
      fill.c_col = plan.c.col;
      fill.c_val = plan.c_values;
      fill.by_column = SpillFill::scratch_bytes(words, words * 64) <= room;
      fill.value_slots =
          fill.by_column ? words * 64 : SpillFill::value_slots_within(words, room);
      launch_bitmap(lanes.at(k), "libra::spgemm::small::fill_spill", fill,
                    threads_for(static_cast<double>(t[6]), 1024, spilled), spill,
                    spilled);
    }
  }
  plan.values_in_symbolic = true;
  plan.rows_left = 0;
  return true;
}

}  // namespace libra::impl
