#pragma once
// Launch shapes of the panel (row-by-row, Gustavson) SpGEMM, decided in one place
// from LaunchTraits and the team scratch the space allows.
//
// Rows are binned by their products (the upper bound of their row of C):
//   bin 0                 rows without products: no work, no launch;
//   group bins            short rows, G rows per team, each row owned by a thread
//                         group of M vector lanes (the paper's thread groups);
//   team bins             longer rows, one row per team;
//   the last bin          rows too long for scratch: per-team global accumulators.
// A bin's scratch holds each of its rows' accumulators, so its capacity is what
// decides the number of rows per team (dynamic binning sized by scratch).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "libra/core/launch_traits.hpp"
#include "libra/spgemm/impl/row_products.hpp"
#include "libra/spgemm/options.hpp"

namespace libra::impl {

inline constexpr int panel_bins = 16;

// The kernels a bin runs, each with its own launch shape: their scratch per row
// differs (keys; keys and sums; keys, sums and positions), and so does the work
// their lanes share (the fill pass is mostly a sort of the row's table).
enum class PanelPhase : int { count = 0, fill = 1, fill_values = 2, numeric = 3 };
inline constexpr int panel_phases = 4;

struct PanelLaunch {
  int groups = 1;   // rows per team (1: team bin)
  int lanes = 1;    // vector lanes per row (group bins)
  int threads = 1;  // threads per team
};

struct PanelBin {
  std::uint64_t max_products = 0;  // rows with at most this many products
  int table = 0;  // symbolic: hash slots per row (a power of two, >= 2 x max_products)
  PanelLaunch launch[panel_phases];
  const PanelLaunch& in(PanelPhase p) const { return launch[static_cast<int>(p)]; }
};

template <class Exec, class Scalar, class Ordinal>
struct PanelShape {
  using Traits = LaunchTraits<Exec>;
  PanelBin bin[panel_bins];
  int group_bins = 0;  // bins 1 .. group_bins
  int team_bins = 0;   // bins group_bins + 1 .. group_bins + team_bins
  int scratch = 0;     // level-0 bytes a team may use
  // Numeric: C entries a team bin's row may hold in scratch (columns + values).
  int numeric_capacity = 0;
  // One-shot products, fill pass with values: the last team bin whose hash table
  // holds values too (beside the products' flattening scratch).
  int values_team_bins = 0;
  // Set by the caller: the rows beyond those team bins go to the bitmap spill
  // (which makes values too) rather than to a fill pass without values.
  bool values_spill = false;
  // Threads of the teams that handle rows too long for scratch.
  int global_threads = 1;
  // Set by the caller: the fill pass sends team-bin rows whose tables have at
  // least this many slots to the bitmap over C's columns (in team scratch,
  // sorted by construction) instead of sorting the table; 0: none.
  int bitmap_fill_table = 0;
  // Set by the caller for one-shot fills: the bitmap kernel sums the values of
  // rows of C up to this long in scratch (longer ones add in C, in place).
  int bitmap_value_slots = 0;
  // ... and when those slots cover all of C's columns, keeps the sums at their
  // columns (one sweep of the products; BitmapRows::by_column).
  bool bitmap_by_column = false;

  KOKKOS_INLINE_FUNCTION int global_bin() const { return group_bins + team_bins + 1; }
  // The fill pass's bin of those team rows: after the global bin, whose
  // bitmap kernel takes both (SpgemmPathCounts::bitmap_fill_team counts them).
  KOKKOS_INLINE_FUNCTION int bitmap_fill_bin() const { return global_bin() + 1; }

  PanelShape() : PanelShape(SpgemmOptions::Tuning{}, 8.0) {}
  // `products_per_entry`: the matrix's average products per nonzero of A (the
  // average length of the rows of B it reads), which sizes the lanes per row.
  PanelShape(const SpgemmOptions::Tuning& tuning, double products_per_entry) {
    scratch = Traits::scratch_bytes();
    if (tuning.scratch_bytes > 0) scratch = std::min(scratch, tuning.scratch_bytes);
    scratch = std::max(scratch, 0);
    const int key_bytes = static_cast<int>(sizeof(Ordinal));
    // Numeric hash slots: column, value and position in C's row.
    const int slot_bytes =
        static_cast<int>(sizeof(Ordinal) + sizeof(Scalar) + sizeof(int));
    const int host_threads = tuning.host_team_threads > 0 ? tuning.host_team_threads : 1;
    // Lanes per row (Algorithm 2's starting point): enough to sweep an average
    // row of B in one step, at least 4 and at most a warp.
    int lanes = 4;
    while (lanes < 32 && lanes < products_per_entry) lanes *= 2;
    int b = 1;
    // Group bins: up to 128 products per row.
    // Scratch bytes per hash slot of each phase.
    const int phase_bytes[panel_phases] = {
        key_bytes, key_bytes, static_cast<int>(sizeof(Ordinal) + sizeof(Scalar)),
        std::max(key_bytes, slot_bytes)};
    for (int table = 32; table <= 256 && b < panel_bins - 1; table *= 2) {
      const std::uint64_t max_products = static_cast<std::uint64_t>(table / 2);
      // The numeric phase's slots are the largest: no room for them, no bin.
      if (scratch / (table * phase_bytes[3]) < 1) break;
      PanelBin pb{max_products, table, {}};
      for (int p = 0; p < panel_phases; ++p) {
        int m = Traits::is_gpu ? std::min(lanes, table / 4) : 1;
        // Filling sorts the table: a lane per 8 slots, up to a warp.
        if (Traits::is_gpu && (p == 1 || p == 2))
          m = std::min(32, std::max(m, table / 8));
        int g = Traits::is_gpu ? 256 / m : host_threads;
        g = std::min(g, scratch / (table * phase_bytes[p]));
        pb.launch[p] = PanelLaunch{g, m, g * m};
      }
      bin[b++] = pb;
      ++group_bins;
    }
    // Team bins: one row per team, as long as a hash table of twice the row fits.
    const int team = Traits::team_threads(256) * (Traits::is_gpu ? 1 : host_threads);
    const std::uint64_t last_group = group_bins ? bin[group_bins].max_products : 0;
    for (int table = 512; b < panel_bins - 2; table *= 2) {
      if (table * key_bytes > scratch) break;
      const std::uint64_t max_products = static_cast<std::uint64_t>(table / 2);
      if (max_products <= last_group) continue;
      bin[b++] = team_bin(max_products, table, team);
      ++team_bins;
    }
    // The longest row of C a team's numeric hash table takes (load at most 2/3),
    // beside the scratch that flattens the row's products.
    const int room = scratch - static_cast<int>(prefix_scratch_bytes<Exec>());
    numeric_capacity = 0;
    for (int table = 2; table * slot_bytes <= room; table *= 2)
      numeric_capacity = (table - 1) * 2 / 3;
    for (int t = group_bins + 1; t <= group_bins + team_bins; ++t) {
      if (bin[t].table * static_cast<int>(sizeof(Ordinal) + sizeof(Scalar)) <= room)
        values_team_bins = t - group_bins;
    }
    global_threads = team;
    bin[b] = team_bin(~std::uint64_t(0), 0, team);
  }

  static PanelBin team_bin(std::uint64_t max_products, int table, int threads) {
    PanelBin pb{max_products, table, {}};
    for (auto& l : pb.launch) l = PanelLaunch{1, 1, threads};
    return pb;
  }

  // The bins' row limits do not depend on the lanes per row (which the matrix's
  // average sets): binning may run before the average is known.
  bool same_bins(const PanelShape& o) const {
    if (group_bins != o.group_bins || team_bins != o.team_bins) return false;
    for (int b = 0; b <= global_bin(); ++b) {
      if (bin[b].max_products != o.bin[b].max_products) return false;
    }
    return true;
  }

  // The symbolic bin of a row with `products` products.
  KOKKOS_INLINE_FUNCTION int symbolic_bin_of(std::uint64_t products) const {
    if (products == 0) return 0;
    const int last = group_bins + team_bins;
    for (int b = 1; b <= last; ++b) {
      if (products <= bin[b].max_products) return b;
    }
    return last + 1;
  }

  // The fill bin of a row with `products` products and `len` distinct columns
  // (known after counting): the bin whose hash table holds twice the row of C
  // (fewer slots to sort than a table sized by products, which count
  // duplicates); a thread group's bin only while its products are few enough for
  // the group's lanes.
  KOKKOS_INLINE_FUNCTION int fill_bin_of(std::uint64_t products,
                                         std::uint64_t len) const {
    if (products == 0) return 0;
    const std::uint64_t group_need = len > products / 4 ? len : products / 4;
    for (int b = 1; b <= group_bins; ++b) {
      if (group_need <= bin[b].max_products) return b;
    }
    for (int b = group_bins + 1; b <= group_bins + team_bins; ++b) {
      if (len <= bin[b].max_products) {
        return bitmap_fill_table > 0 && bin[b].table >= bitmap_fill_table
                   ? bitmap_fill_bin()
                   : b;
      }
    }
    return global_bin();
  }

  // The fill bin of a one-shot product's row (whose values the fill pass makes
  // where it can): as fill_bin_of, and with values_spill the rows beyond the team
  // bins whose tables hold values go to the bitmap spill.
  KOKKOS_INLINE_FUNCTION int fill_values_bin_of(std::uint64_t products,
                                                std::uint64_t len) const {
    const int b = fill_bin_of(products, len);
    if (b == bitmap_fill_bin()) return b;
    return values_spill && b > group_bins + values_team_bins ? global_bin() : b;
  }

  // Whether that fill pass makes the row's values: in the group bins, the team
  // bins whose tables hold values (the group bins' scratch is sized for numeric
  // slots, larger still), and the bitmap spill.
  KOKKOS_INLINE_FUNCTION bool fill_makes_values(std::uint64_t products,
                                                std::uint64_t len) const {
    const int b = fill_values_bin_of(products, len);
    return b <= group_bins + values_team_bins || b >= global_bin();
  }

  // The numeric bin of a row with `products` products and `len` entries of C:
  // group bins by products as in the symbolic phase (their scratch holds the
  // products' bound), team bins when the row of C fits scratch, else global.
  KOKKOS_INLINE_FUNCTION int numeric_bin_of(std::uint64_t products,
                                            std::uint64_t len) const {
    if (products == 0) return 0;
    for (int b = 1; b <= group_bins; ++b) {
      if (products <= bin[b].max_products) return b;
    }
    if (len <= static_cast<std::uint64_t>(numeric_capacity)) {
      // The smallest team bin whose size class holds the row of C.
      for (int b = group_bins + 1; b <= group_bins + team_bins; ++b) {
        if (len <= bin[b].max_products) return b;
      }
    }
    return global_bin();
  }

  // Numeric scratch capacity (C entries per row) of bin b.
  int numeric_capacity_of(int b) const {
    if (b <= group_bins) return static_cast<int>(bin[b].max_products);
    return static_cast<int>(std::min<std::uint64_t>(
        bin[b].max_products, static_cast<std::uint64_t>(numeric_capacity)));
  }
};

}  // namespace libra::impl
