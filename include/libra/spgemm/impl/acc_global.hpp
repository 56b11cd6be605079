#pragma once
// Accumulators in global memory for rows too long for team scratch (the spill).
//
// Symbolic: each team owns a bitmap over C's columns (one per team running at
// once, reused from row to row; the teams stride over the bin's rows). Products
// set their bit; a scan of the bitmap's popcounts counts the row or, filling,
// writes its columns already sorted; the bitmap is cleared for the next row.
// One-shot products fill values in the same kernel (BitmapRows' Values).
// Numeric: the row's values in C are zeroed, then each product finds its column
// in C's sorted row by binary search and adds its value atomically, in place.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/core/exec_lanes.hpp"
#include "libra/core/spaces.hpp"
#include "libra/spgemm/impl/last_team_row_map.hpp"
#include "libra/spgemm/impl/row_products.hpp"

namespace libra::impl {

// Position of `key` in the sorted cols[0, n) (it is there).
template <class Cols, class Key>
KOKKOS_INLINE_FUNCTION int find_sorted(const Cols& cols, int n, Key key) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (cols(mid) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Values (fill only, one-shot products): while writing the columns, each word
// of the bitmap keeps where its columns start in C's row, so a second sweep of
// the products finds a column's position with one popcount and adds its value
// (in scratch when the row's values fit beside the bitmap, else in C, in
// place): the row's values come out of the fill pass, no numeric pass.
// LastTeam: the small path's counts, which may end with their last team
// writing C's row_map (last_row_map below); a type of its own, so that the
// binned path's count kernels carry none of that code (8 more registers).
template <class Exec, class S, class O, class Off, bool Fill, bool Values = false,
          bool LastTeam = false>
struct BitmapRows {
  static_assert(Fill || !Values, "values are made by the fill pass");
  static_assert(!Fill || !LastTeam, "the last team ends a count");
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using Words = Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, mem>;
  using Starts = Kokkos::View<std::uint32_t**, Kokkos::LayoutRight, mem>;

  RowProducts<S, O, Off, mem> products;
  // The bin's rows, rows(first .. first + count); empty: rows first .. first +
  // count themselves, in order (the small-product path, which bins nothing).
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first = 0, count = 0;
  Words bitmap;                              // slot x words, 0
  Kokkos::View<std::uint64_t*, mem> unique;  // count
  Kokkos::View<const Off*, mem> c_row_map;   // fill
  Kokkos::View<O*, mem> c_col;               // fill
  // Words of a bitmap held in team scratch instead (0: the global `bitmap`):
  // when C's columns fit scratch, the atomics stay on the multiprocessor.
  int scratch_words = 0;
  Kokkos::View<S*, mem> c_val;  // Values
  Starts word_start;            // Values, global bitmap: slot x words
  // Values, bitmap in scratch: entries of a row of C whose sums scratch also
  // holds (rows up to this long add in scratch, longer ones in C, in place).
  int value_slots = 0;
  // Values, bitmap in scratch, value_slots >= 64 x scratch_words: the sums sit
  // at their columns, added in the sweep that sets the bits, and the scan that
  // writes the columns takes (and clears) them: one sweep of the products
  // instead of two.
  bool by_column = false;
  // Count, optional: each team adds its rows' products into tally(0) and its
  // longest row's products into tally(1)'s maximum (one atomic each per team).
  Kokkos::View<atomic_u64*, mem> tally{};
  // Rows with more products than this (0: none) are left to a launch with
  // wider teams (the small path's hub rows): the count lists each in `heavy`,
  // at the position its increment of tally(2) returned, leaves its count at 0
  // and its products out of tally(1); the fill skips them.
  std::uint64_t heavy_beyond = 0;
  Kokkos::View<std::uint32_t*, mem> heavy{};
  // Count (the small path), when given: the last team to finish writes C's
  // row_map from every row's count in `unique`, nnz(C) into its slot, and
  // hands `counters` (the whole tally, with the teams' tickets) to
  // `counters_out` (last_team_row_map.hpp): no scan launch follows.
  Kokkos::View<Off*, mem> last_row_map{};
  Kokkos::View<atomic_u64*, mem> counters{};
  Kokkos::View<std::uint64_t*, StagingSpace<Exec>> counters_out{};

  using bits_scratch = Kokkos::View<std::uint64_t*, typename Exec::scratch_memory_space,
                                    Kokkos::MemoryUnmanaged>;
  using starts_scratch = Kokkos::View<std::uint32_t*, typename Exec::scratch_memory_space,
                                      Kokkos::MemoryUnmanaged>;

  using vals_scratch =
      Kokkos::View<S*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  static std::size_t scratch_bytes(int scratch_words, int value_slots = 0) {
    if (scratch_words == 0) return prefix_scratch_bytes<Exec>();
    return prefix_scratch_bytes<Exec>() + bits_scratch::shmem_size(scratch_words) +
           (Values ? starts_scratch::shmem_size(scratch_words) +
                         vals_scratch::shmem_size(value_slots)
                   : 0);
  }
  // The most value slots that fit `bytes` of scratch beside the bitmap.
  static int value_slots_within(int scratch_words, std::size_t bytes) {
    if (!Values || scratch_words == 0) return 0;
    int n = 0;
    for (int step = 1 << 20; step > 0; step >>= 1) {
      if (scratch_bytes(scratch_words, n + step) <= bytes) n += step;
    }
    return n;
  }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const PrefixScratch<Exec> prefix(m.team_scratch(0), team_prefix_entries);
    if (scratch_words > 0) {
      const bits_scratch bits(m.team_scratch(0), scratch_words);
      const starts_scratch starts =
          Values ? starts_scratch(m.team_scratch(0), scratch_words) : starts_scratch();
      const vals_scratch sums = Values && value_slots > 0
                                    ? vals_scratch(m.team_scratch(0), value_slots)
                                    : vals_scratch();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, scratch_words),
                           [&](const int w) { bits(w) = 0; });
      if (Values && by_column) {  // zero once: each row's scan clears its columns
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, value_slots),
                             [&](const int t) { sums(t) = S(0); });
      }
      m.team_barrier();
      rows_with(m, prefix, bits, starts, static_cast<std::int64_t>(scratch_words), sums);
    } else {
      const auto slot = static_cast<std::size_t>(m.league_rank());
      const auto bits = Kokkos::subview(bitmap, slot, Kokkos::ALL());
      const auto words = static_cast<std::int64_t>(bitmap.extent(1));
      if constexpr (Values) {
        rows_with(m, prefix, bits, Kokkos::subview(word_start, slot, Kokkos::ALL()),
                  words);
      } else {
        rows_with(m, prefix, bits, starts_scratch(), words);
      }
    }
    if constexpr (!Fill && LastTeam) {
      if (last_row_map.extent(0) > 0) {
        last_team_row_map(m, unique, last_row_map, counters, counters_out,
                          small_tally_nnz, small_tally_tickets);
      }
    }
  }

  // `sums`: scratch for the values of rows of C up to its length (may be empty).
  template <class Bits, class Starts1>
  KOKKOS_FUNCTION void rows_with(const Member& m, const PrefixScratch<Exec>& prefix,
                                 const Bits& bits, const Starts1& starts,
                                 const std::int64_t words,
                                 const vals_scratch& sums = vals_scratch()) const {
    // (Only the scratch bitmap has sums; it sets by_column when they hold C's
    // columns.)
    const bool column_sums = Values && by_column && sums.extent(0) > 0;
    std::int64_t team_products = 0, longest = 0;
    for (std::size_t r = m.league_rank(); r < count; r += m.league_size()) {
      const std::int64_t i = rows.extent(0) > 0
                                 ? static_cast<std::int64_t>(rows(first + r))
                                 : static_cast<std::int64_t>(first + r);
      if (heavy_beyond > 0) {
        const std::int64_t p = products.count(m, i);  // the same on every thread
        if (static_cast<std::uint64_t>(p) > heavy_beyond) {
          if constexpr (!Fill) {
            team_products += p;
            Kokkos::single(Kokkos::PerTeam(m), [&] {
              unique(i) = 0;
              heavy(Kokkos::atomic_fetch_add(&tally(2), atomic_u64(1))) =
                  static_cast<std::uint32_t>(i);
            });
          }
          continue;
        }
      }
      const std::int64_t row_products =
          products.for_team(m, i, prefix, [&](const O j, const Off p, const Off q) {
            const std::uint64_t bit = std::uint64_t(1)
                                      << (static_cast<std::uint64_t>(j) & 63);
            std::uint64_t& word = bits(static_cast<std::uint64_t>(j) >> 6);
            if (!(word & bit)) atomic_set_bits(&word, bit);
            if constexpr (Values) {
              if (column_sums) Kokkos::atomic_add(&sums(j), products.value(p, q));
            } else {
              (void)p;
              (void)q;
            }
          });
      team_products += row_products;
      longest = row_products > longest ? row_products : longest;
      m.team_barrier();
      if constexpr (!Fill) {
        std::uint64_t n = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, words),
            [&](const std::int64_t w, std::uint64_t& c) { c += popcount64(bits(w)); }, n);
        Kokkos::single(Kokkos::PerTeam(m), [&] { unique(i) = n; });
      } else {
        const Off base = c_row_map(i);
        const auto len = static_cast<std::int64_t>(c_row_map(i + 1) - base);
        // Values summed in scratch (shared-memory atomics, then one coalesced
        // write) when the row fits; else added in C, in place, whose global
        // atomics cost several times as much on rows with many duplicates.
        const bool staged =
            Values && !column_sums && len <= static_cast<std::int64_t>(sums.extent(0));
        if (staged) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len),
                               [&](const std::int64_t t) { sums(t) = S(0); });
        }
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(m, words),
                              [&](const std::int64_t w, Off& pos, const bool final) {
                                std::uint64_t x = bits(w);
                                if (final) {
                                  if constexpr (Values) {
                                    starts(w) = static_cast<std::uint32_t>(pos);
                                  }
                                  Off at = base + pos;
                                  while (x) {
                                    const std::uint64_t low = x & (~x + 1);
                                    const auto j =
                                        static_cast<O>(w * 64 + popcount64(low - 1));
                                    if constexpr (Values) {
                                      if (column_sums) {
                                        c_val(at) = sums(j);
                                        sums(j) = S(0);
                                      } else if (!staged) {
                                        c_val(at) = S(0);
                                      }
                                    }
                                    c_col(at++) = j;
                                    x ^= low;
                                  }
                                }
                                pos += popcount64(bits(w));
                              });
        if (Values && !column_sums) {
          m.team_barrier();
          products.for_team(m, i, prefix, [&](const O j, const Off p, const Off q) {
            const auto w = static_cast<std::uint64_t>(j) >> 6;
            const std::uint64_t below =
                (std::uint64_t(1) << (static_cast<std::uint64_t>(j) & 63)) - 1;
            const Off at = static_cast<Off>(starts(w)) +
                           static_cast<Off>(popcount64(bits(w) & below));
            if (staged) {
              Kokkos::atomic_add(&sums(at), products.value(p, q));
            } else {
              Kokkos::atomic_add(&c_val(base + at), products.value(p, q));
            }
          });
          if (staged) {
            m.team_barrier();
            Kokkos::parallel_for(
                Kokkos::TeamThreadRange(m, len),
                [&](const std::int64_t t) { c_val(base + t) = sums(t); });
          }
        }
      }
      m.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, words),
                           [&](const std::int64_t w) { bits(w) = 0; });
      m.team_barrier();
    }
    if (!Fill && tally.extent(0) > 0 && team_products > 0) {
      Kokkos::single(Kokkos::PerTeam(m), [&] {
        Kokkos::atomic_add(&tally(0), static_cast<atomic_u64>(team_products));
        Kokkos::atomic_fetch_max(&tally(1), static_cast<atomic_u64>(longest));
      });
    }
  }
};

template <class Exec, class S, class O, class Off>
struct AccumulateRowsInPlace {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;

  RowProducts<S, O, Off, mem> products;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first = 0;
  Kokkos::View<const Off*, mem> c_row_map;
  Kokkos::View<const O*, mem> c_col;
  Kokkos::View<S*, mem> c_val;

  static std::size_t scratch_bytes() { return prefix_scratch_bytes<Exec>(); }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const PrefixScratch<Exec> prefix(m.team_scratch(0), team_prefix_entries);
    const std::int64_t i = rows(first + m.league_rank());
    const Off base = c_row_map(i);
    const int len = static_cast<int>(c_row_map(i + 1) - base);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len),
                         [&](const int t) { c_val(base + t) = S(0); });
    m.team_barrier();
    const auto cols = Kokkos::subview(c_col, Kokkos::make_pair(base, base + len));
    products.for_team(m, i, prefix, [&](const O j, const Off p, const Off q) {
      Kokkos::atomic_add(&c_val(base + find_sorted(cols, len, j)), products.value(p, q));
    });
  }
};

// Numeric, long rows, when the budget allows: each team owns a dense array over
// C's columns (zero between rows), adds each product at its column, then reads
// the row back along C's pattern and zeroes what it used. One atomic per product,
// no search.
template <class Exec, class S, class O, class Off>
struct AccumulateRowsDense {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;

  RowProducts<S, O, Off, mem> products;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first = 0, count = 0;
  Kokkos::View<S**, Kokkos::LayoutRight, mem> dense;  // slot x columns, 0
  Kokkos::View<const Off*, mem> c_row_map;
  Kokkos::View<const O*, mem> c_col;
  Kokkos::View<S*, mem> c_val;

  static std::size_t scratch_bytes() { return prefix_scratch_bytes<Exec>(); }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const PrefixScratch<Exec> prefix(m.team_scratch(0), team_prefix_entries);
    const auto sum =
        Kokkos::subview(dense, static_cast<std::size_t>(m.league_rank()), Kokkos::ALL());
    for (std::size_t r = m.league_rank(); r < count; r += m.league_size()) {
      const std::int64_t i = rows(first + r);
      products.for_team(m, i, prefix, [&](const O j, const Off p, const Off q) {
        Kokkos::atomic_add(&sum(j), products.value(p, q));
      });
      m.team_barrier();
      const Off base = c_row_map(i);
      const Off end = c_row_map(i + 1);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, base, end), [&](const Off t) {
        const O j = c_col(t);
        c_val(t) = sum(j);
        sum(j) = S(0);
      });
      m.team_barrier();
    }
  }
};

}  // namespace libra::impl
