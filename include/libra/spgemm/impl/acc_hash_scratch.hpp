#pragma once
// Symbolic accumulator in team scratch: a row's distinct columns in an
// open-addressing hash table (linear probing, compare-and-swap inserts), one
// table per row. Counting reads the occupied slots; filling sorts the table in
// place, where empty slots (the largest key) sort last, and copies the row out
// (with its values, when the fill pass also sums them).
// Group bins give each of G rows per team its own table and M lanes; team bins
// give one row the whole team.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>

#include "libra/algorithms/team_sort.hpp"
#include "libra/core/spaces.hpp"
#include "libra/spgemm/impl/row_products.hpp"

namespace libra::impl {

KOKKOS_INLINE_FUNCTION std::uint32_t hash_slot(std::uint64_t key, std::uint32_t mask) {
  return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

// The slot of `key`, inserted unless present.
template <class Keys, class Key>
KOKKOS_INLINE_FUNCTION std::uint32_t hash_insert(const Keys& keys, std::uint32_t mask,
                                                 Key key, Key empty) {
  std::uint32_t h = hash_slot(static_cast<std::uint64_t>(key), mask);
  while (true) {
    const Key seen = keys(h);
    if (seen == key) return h;
    if (seen == empty) {
      const Key old = Kokkos::atomic_compare_exchange(&keys(h), empty, key);
      if (old == empty || old == key) return h;
    }
    h = (h + 1) & mask;
  }
}

// Values (fill only, one-shot products): each slot also sums its column's
// products, and the sort carries the sums along, so the fill pass writes C's
// values too and no numeric pass follows.
template <class Exec, class S, class O, class Off, bool Fill, bool Values = false>
struct HashRowsInScratch {
  static_assert(Fill || !Values, "values are made by the fill pass");
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using keys_scratch = Kokkos::View<O*, scratch, Kokkos::MemoryUnmanaged>;
  using vals_scratch = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;
  static constexpr O empty = std::numeric_limits<O>::max();

  using tally_scratch = Kokkos::View<std::uint64_t*, scratch, Kokkos::MemoryUnmanaged>;

  RowProducts<S, O, Off, mem> products;
  // The bin's rows, rows(first .. first + count); empty: rows first .. first +
  // count themselves, in order (the small-product path, which bins nothing).
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first = 0, count = 0;
  int table = 0;   // slots per row (power of two)
  int groups = 1;  // rows per team; 1: team bin
  // Count: distinct columns per row. Fill: C's row_map (known) and columns.
  Kokkos::View<std::uint64_t*, mem> unique;
  Kokkos::View<const Off*, mem> c_row_map;
  Kokkos::View<O*, mem> c_col;
  Kokkos::View<S*, mem> c_val;  // Values
  // Count, unbinned rows (panel_small.hpp): a row whose products exceed the
  // table is left out (its count stays 0), and the rows' products, largest count
  // and rows left out are added into tally = {products, max count, left out,
  // (the caller's), rows whose group spread A's nonzeros over its lanes},
  // one atomic each per team. Once a row was left out the product goes another
  // way: teams that start later see it and return at once.
  Kokkos::View<atomic_u64*, mem> tally;
  // Unbinned rows that spill (panel_small.hpp), given both views: a count
  // leaves no product: each row left out is listed in spill (at the position
  // its atomic increment of tally(2) returned) and marked in left (1, 0 for
  // the others), and the teams go on; the fill skips the marked rows, whose
  // rows of C another kernel makes.
  Kokkos::View<std::uint32_t*, mem> spill{};
  Kokkos::View<std::uint8_t*, mem> left{};
  // Tallied counts: rows with more products than this are left out (0, or
  // more than the table: the table's slots).
  std::uint64_t fit_products = 0;

  static std::size_t scratch_bytes(int table, int groups, bool tallied = false) {
    const std::size_t n = static_cast<std::size_t>(table) * groups;
    return (Values ? vals_scratch::shmem_size(n) : 0) + keys_scratch::shmem_size(n) +
           (groups == 1 ? prefix_scratch_bytes<Exec>() : 0) +
           (tallied ? tally_scratch::shmem_size(4 * static_cast<std::size_t>(groups) + 1)
                    : 0);
  }

  // The team's rows' tallies summed in scratch `t`, then one atomic each.
  KOKKOS_FUNCTION void add_tally(const Member& m, const tally_scratch& t, int g,
                                 std::uint64_t p, std::uint64_t distinct, bool left_out,
                                 bool spread) const {
    const auto write = [&] {
      t(4 * g) = p;
      t(4 * g + 1) = distinct;
      t(4 * g + 2) = left_out ? 1 : 0;
      t(4 * g + 3) = spread ? 1 : 0;
    };
    if (groups == 1) {
      Kokkos::single(Kokkos::PerTeam(m), write);
    } else {
      Kokkos::single(Kokkos::PerThread(m), write);
    }
    m.team_barrier();
    Kokkos::single(Kokkos::PerTeam(m), [&] {
      std::uint64_t sum = 0, most = 0, out = 0, spread_rows = 0;
      for (int r = 0; r < groups; ++r) {
        sum += t(4 * r);
        most = t(4 * r + 1) > most ? t(4 * r + 1) : most;
        out += t(4 * r + 2);
        spread_rows += t(4 * r + 3);
      }
      if (sum) Kokkos::atomic_add(&tally(0), static_cast<atomic_u64>(sum));
      if (most) Kokkos::atomic_fetch_max(&tally(1), static_cast<atomic_u64>(most));
      if (out) Kokkos::atomic_add(&tally(2), static_cast<atomic_u64>(out));
      if (spread_rows)
        Kokkos::atomic_add(&tally(4), static_cast<atomic_u64>(spread_rows));
    });
  }

  // The row of C at the team's slot s (binned or in order).
  KOKKOS_INLINE_FUNCTION std::int64_t row_at(std::size_t s) const {
    return rows.extent(0) > 0 ? static_cast<std::int64_t>(rows(first + s))
                              : static_cast<std::int64_t>(first + s);
  }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const bool team_bin = groups == 1;
    const int g = team_bin ? 0 : m.team_rank();
    const std::size_t slot = static_cast<std::size_t>(m.league_rank()) * groups + g;
    const std::size_t n = static_cast<std::size_t>(table) * groups;
    const auto range = Kokkos::make_pair(static_cast<std::size_t>(g) * table,
                                         static_cast<std::size_t>(g + 1) * table);
    // Values first: the 8-byte sums keep their alignment.
    const vals_scratch all_vals =
        Values ? vals_scratch(m.team_scratch(0), n) : vals_scratch();
    const keys_scratch all(m.team_scratch(0), n);
    const auto keys = Kokkos::subview(all, range);
    const auto vals = Kokkos::subview(
        all_vals, Values ? range : Kokkos::make_pair(std::size_t(0), std::size_t(0)));
    // Unbinned counts: the team's tallies, and whether a row was left out
    // already (read by one thread, then by all: the team returns as one).
    const bool tallied = !Fill && tally.extent(0) > 0;
    const tally_scratch t =
        tallied
            ? tally_scratch(m.team_scratch(0), 4 * static_cast<std::size_t>(groups) + 1)
            : tally_scratch();
    const bool spilling = left.extent(0) > 0;
    if (tallied && !spilling) {
      Kokkos::single(Kokkos::PerTeam(m), [&] { t(4 * groups) = tally(2); });
      m.team_barrier();
      if (t(4 * groups) > 0) return;
    }
    // (Filling, a row another kernel makes is no row here.)
    const bool active = slot < count && (!Fill || !spilling || left(row_at(slot)) == 0);
    const std::int64_t i = active ? row_at(slot) : 0;
    const O none = empty;  // a local: device code cannot take the member's address
    // Unbinned rows (tallied counts): the row's products come first; only rows
    // whose products fit the table are counted (products bound the distinct
    // columns), each in the fewest slots that hold its products, so that a
    // table sized for the longest row costs short rows nothing.
    std::uint64_t row_products = 0;
    if (tallied && active) {
      const auto add = [&](const Off e, std::uint64_t& p) {
        const O k = products.a_col(e);
        p +=
            static_cast<std::uint64_t>(products.b_row_map(k + 1) - products.b_row_map(k));
      };
      const Off b = products.a_row_map(i), e = products.a_row_map(i + 1);
      if (team_bin) {
        Kokkos::parallel_reduce(Kokkos::TeamThreadRange(m, b, e), add, row_products);
      } else {
        Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(m, b, e), add, row_products);
      }
    }
    const std::uint64_t limit =
        fit_products > 0 && fit_products < static_cast<std::uint64_t>(table)
            ? fit_products
            : static_cast<std::uint64_t>(table);
    const bool fits = !tallied || row_products <= limit;
    int slots = table;
    if (tallied) {
      slots = 2;
      while (static_cast<std::uint64_t>(slots) < row_products && slots < table)
        slots *= 2;
    }
    // Filling, group bins: the team's slots (its longest row's), which set its
    // sort's barriers.
    int team_slots = table;
    if constexpr (Fill) {
      // Filling, the lengths of C's rows are known: each row's table takes
      // twice its length, which is often far below the bin's (or, on the small
      // path, the product's) longest, so the sort handles fewer slots. The
      // groups of a team sort in step, through as many barriers as its
      // longest row's table takes (group_sort); a short row's group works only
      // through its own table's steps (p2p-Gnutella31's teams of 32 rows of
      // about 9 entries each sorted tables sized for the team's longest).
      int most = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(m, groups),
          [&](const int r, int& longest) {
            const std::size_t s = static_cast<std::size_t>(m.league_rank()) * groups + r;
            if (s >= count) return;
            const std::int64_t row = row_at(s);
            if (spilling && left(row) != 0) return;
            const int len = static_cast<int>(c_row_map(row + 1) - c_row_map(row));
            if (len > longest) longest = len;
          },
          Kokkos::Max<int>(most));
      // Twice a row's length, a power of two from 2 to `most` slots.
      const auto fit = [](const int len, const int most_slots) {
        const int s = next_pow2(2 * len);
        return s < 2 ? 2 : (s > most_slots ? most_slots : s);
      };
      team_slots = fit(most, table);
      slots = team_slots;
      if (!team_bin) {
        slots = fit(active ? static_cast<int>(c_row_map(i + 1) - c_row_map(i)) : 0,
                    team_slots);
      }
    }
    const auto mask = static_cast<std::uint32_t>(slots - 1);
    const auto clear = [&](const int t) {
      keys(t) = none;
      if constexpr (Values) vals(t) = S(0);
    };
    if (team_bin) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, slots), clear);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, slots), clear);
    }
    m.team_barrier();
    if (active && fits) {
      const auto insert = [&](const O j, const Off p, const Off q) {
        const std::uint32_t h = hash_insert(keys, mask, j, none);
        if constexpr (Values) Kokkos::atomic_add(&vals(h), products.value(p, q));
      };
      if (team_bin) {
        products.for_team(
            m, i, PrefixScratch<Exec>(m.team_scratch(0), team_prefix_entries), insert);
      } else {
        products.for_group(m, i, insert);
      }
    }
    m.team_barrier();
    if constexpr (!Fill) {
      int distinct = 0;
      const auto occupied = [&](const int t, int& c) {
        c += keys(t) != none ? 1 : 0;
      };
      if (team_bin) {
        Kokkos::parallel_reduce(Kokkos::TeamThreadRange(m, slots), occupied, distinct);
        if (active) Kokkos::single(Kokkos::PerTeam(m), [&] { unique(i) = distinct; });
      } else {
        Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(m, slots), occupied, distinct);
        if (active) Kokkos::single(Kokkos::PerThread(m), [&] { unique(i) = distinct; });
      }
      if (spilling && active) {
        const auto mark = [&] {
          left(i) = fits ? 0 : 1;
          if (!fits) {
            spill(Kokkos::atomic_fetch_add(&tally(2), atomic_u64(1))) =
                static_cast<std::uint32_t>(i);
          }
        };
        if (team_bin) {
          Kokkos::single(Kokkos::PerTeam(m), mark);
        } else {
          Kokkos::single(Kokkos::PerThread(m), mark);
        }
      }
      if (tallied)
        add_tally(m, t, g, active ? row_products : 0,
                  static_cast<std::uint64_t>(distinct), active && !fits && !spilling,
                  active && fits && !team_bin && products.spreads(i));
    } else {
      const auto sort = [&](const auto& payload) {
        if (team_bin) {
          team_sort(m, keys, slots, none, payload);
        } else {
          group_sort(m, keys, slots, team_slots, payload);
        }
      };
      if constexpr (Values) {
        sort(payload_of(vals));
      } else {
        sort(NoPayload{});
      }
      if (active) {
        const Off base = c_row_map(i);
        const int len = static_cast<int>(c_row_map(i + 1) - base);
        const auto write = [&](const int t) {
          c_col(base + t) = keys(t);
          if constexpr (Values) c_val(base + t) = vals(t);
        };
        if (team_bin) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), write);
        } else {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, len), write);
        }
      }
    }
  }
};

}  // namespace libra::impl
