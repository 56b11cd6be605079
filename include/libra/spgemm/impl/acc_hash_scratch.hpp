#pragma once
// Symbolic accumulator in team scratch: a row's distinct columns in an
// open-addressing hash table (linear probing, compare-and-swap inserts), one
// table per row. Counting reads the occupied slots; filling sorts the table in
// place, where empty slots (the largest key) sort last, and copies the row out.
// Group bins give each of G rows per team its own table and M lanes; team bins
// give one row the whole team.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>

#include "libra/algorithms/team_sort.hpp"
#include "libra/spgemm/impl/row_products.hpp"

namespace libra::impl {

KOKKOS_INLINE_FUNCTION std::uint32_t hash_slot(std::uint64_t key, std::uint32_t mask) {
  return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

// Inserts `key` unless present; true when this call inserted it.
template <class Keys, class Key>
KOKKOS_INLINE_FUNCTION bool hash_insert(const Keys& keys, std::uint32_t mask, Key key,
                                        Key empty) {
  std::uint32_t h = hash_slot(static_cast<std::uint64_t>(key), mask);
  while (true) {
    const Key seen = keys(h);
    if (seen == key) return false;
    if (seen == empty) {
      const Key old = Kokkos::atomic_compare_exchange(&keys(h), empty, key);
      if (old == empty) return true;
      if (old == key) return false;
    }
    h = (h + 1) & mask;
  }
}

// Bitonic sort of each group's keys[0, n) (n a power of two) by its vector lanes.
// Every group of the team sorts at once: the team barriers keep them in step.
template <class Member, class Keys>
KOKKOS_INLINE_FUNCTION void group_sort(const Member& m, const Keys& keys, int n) {
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, n / 2), [&](const int t) {
        const int i = 2 * t - (t & (j - 1));
        const int l = i + j;
        const bool ascending = (i & k) == 0;
        const auto a = keys(i);
        const auto b = keys(l);
        if ((a > b) == ascending) {
          keys(i) = b;
          keys(l) = a;
        }
      });
      m.team_barrier();
    }
  }
}

template <class Exec, class S, class O, class Off, bool Fill>
struct HashRowsInScratch {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using keys_scratch = Kokkos::View<O*, scratch, Kokkos::MemoryUnmanaged>;
  static constexpr O empty = std::numeric_limits<O>::max();

  RowProducts<S, O, Off, mem> products;
  Kokkos::View<const std::uint32_t*, mem> rows;  // the bin's rows
  std::size_t first = 0, count = 0;              // the bin in rows
  int table = 0;                                 // slots per row (power of two)
  int groups = 1;                                // rows per team; 1: team bin
  // Count: distinct columns per row. Fill: C's row_map (known) and columns.
  Kokkos::View<std::uint64_t*, mem> unique;
  Kokkos::View<const Off*, mem> c_row_map;
  Kokkos::View<O*, mem> c_col;

  static std::size_t scratch_bytes(int table, int groups) {
    return keys_scratch::shmem_size(static_cast<std::size_t>(table) * groups) +
           (groups == 1 ? prefix_scratch_bytes<Exec>() : 0);
  }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const bool team_bin = groups == 1;
    const int g = team_bin ? 0 : m.team_rank();
    const std::size_t slot = static_cast<std::size_t>(m.league_rank()) * groups + g;
    keys_scratch all(m.team_scratch(0), static_cast<std::size_t>(table) * groups);
    const auto keys =
        Kokkos::subview(all, Kokkos::make_pair(static_cast<std::size_t>(g) * table,
                                               static_cast<std::size_t>(g + 1) * table));
    const bool active = slot < count;
    const std::int64_t i = active ? static_cast<std::int64_t>(rows(first + slot)) : 0;
    const auto mask = static_cast<std::uint32_t>(table - 1);
    if (team_bin) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, table),
                           [&](const int t) { keys(t) = empty; });
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, table),
                           [&](const int t) { keys(t) = empty; });
    }
    m.team_barrier();
    if (active) {
      const auto insert = [&](const O j, Off, Off) {
        hash_insert(keys, mask, j, empty);
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
      int n = 0;
      if (team_bin) {
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, table),
            [&](const int t, int& c) { c += keys(t) != empty ? 1 : 0; }, n);
        if (active) Kokkos::single(Kokkos::PerTeam(m), [&] { unique(i) = n; });
      } else {
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(m, table),
            [&](const int t, int& c) { c += keys(t) != empty ? 1 : 0; }, n);
        if (active) Kokkos::single(Kokkos::PerThread(m), [&] { unique(i) = n; });
      }
    } else {
      if (team_bin) {
        team_sort(m, keys, table, empty);
      } else {
        group_sort(m, keys, table);
      }
      if (active) {
        const Off base = c_row_map(i);
        const int len = static_cast<int>(c_row_map(i + 1) - base);
        if (team_bin) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len),
                               [&](const int t) { c_col(base + t) = keys(t); });
        } else {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, len),
                               [&](const int t) { c_col(base + t) = keys(t); });
        }
      }
    }
  }
};

}  // namespace libra::impl
