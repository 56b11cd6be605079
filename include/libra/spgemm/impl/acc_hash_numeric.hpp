#pragma once
// Numeric accumulator in team scratch: the row of C's columns (known from the
// symbolic phase) go into an open-addressing hash table with their positions in
// the row; each product then finds its column in one or two probes (no insert:
// every column is there) and adds its value atomically; each slot's sum goes to
// C's values at its position. Group bins hold G rows per team, team bins one.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>

#include "libra/spgemm/impl/acc_hash_scratch.hpp"
#include "libra/spgemm/impl/row_products.hpp"

namespace libra::impl {

// Slots of the hash table for a row of `len` entries: a power of two at least
// 1.5 x len (load factor at most 2/3).
KOKKOS_INLINE_FUNCTION int numeric_table_for(int len) {
  int t = 1;
  while (t < len + len / 2 + 1) t <<= 1;
  return t;
}

template <class Exec, class S, class O, class Off>
struct AccumulateRowsInHash {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using vals_scratch = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;
  using keys_scratch = Kokkos::View<O*, scratch, Kokkos::MemoryUnmanaged>;
  using pos_scratch = Kokkos::View<int*, scratch, Kokkos::MemoryUnmanaged>;
  static constexpr O empty = std::numeric_limits<O>::max();

  RowProducts<S, O, Off, mem> products;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first = 0, count = 0;
  int table = 0;   // slots per row (a power of two)
  int groups = 1;  // rows per team; 1: team bin
  Kokkos::View<const Off*, mem> c_row_map;
  Kokkos::View<const O*, mem> c_col;
  Kokkos::View<S*, mem> c_val;

  static std::size_t bytes_per_slot() { return sizeof(S) + sizeof(O) + sizeof(int); }
  static std::size_t scratch_bytes(int table, int groups) {
    const std::size_t n = static_cast<std::size_t>(table) * groups;
    return vals_scratch::shmem_size(n) + keys_scratch::shmem_size(n) +
           pos_scratch::shmem_size(n) + (groups == 1 ? prefix_scratch_bytes<Exec>() : 0);
  }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const bool team_bin = groups == 1;
    const int g = team_bin ? 0 : m.team_rank();
    const std::size_t slot = static_cast<std::size_t>(m.league_rank()) * groups + g;
    const std::size_t n = static_cast<std::size_t>(table) * groups;
    vals_scratch all_vals(m.team_scratch(0), n);
    keys_scratch all_keys(m.team_scratch(0), n);
    pos_scratch all_pos(m.team_scratch(0), n);
    const auto range = Kokkos::make_pair(static_cast<std::size_t>(g) * table,
                                         static_cast<std::size_t>(g + 1) * table);
    const auto vals = Kokkos::subview(all_vals, range);
    const auto keys = Kokkos::subview(all_keys, range);
    const auto pos = Kokkos::subview(all_pos, range);
    const auto mask = static_cast<std::uint32_t>(table - 1);
    const bool active = slot < count;
    const std::int64_t i = active ? static_cast<std::int64_t>(rows(first + slot)) : 0;
    const Off base = active ? c_row_map(i) : Off(0);
    const int len = active ? static_cast<int>(c_row_map(i + 1) - base) : 0;
    const O none = empty;  // a local: device code cannot take the member's address
    const auto clear = [&](const int t) {
      keys(t) = none;
      vals(t) = S(0);
    };
    const auto place = [&](const int t) {
      const O key = c_col(base + t);
      std::uint32_t h = hash_slot(static_cast<std::uint64_t>(key), mask);
      while (Kokkos::atomic_compare_exchange(&keys(h), none, key) != none) {
        h = (h + 1) & mask;
      }
      pos(h) = t;
    };
    const auto write = [&](const int t) {
      if (keys(t) != none) c_val(base + pos(t)) = vals(t);
    };
    if (team_bin) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, table), clear);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, table), clear);
    }
    m.team_barrier();
    if (team_bin) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), place);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, len), place);
    }
    m.team_barrier();
    if (active) {
      const auto add = [&](const O j, const Off p, const Off q) {
        std::uint32_t h = hash_slot(static_cast<std::uint64_t>(j), mask);
        while (keys(h) != j) h = (h + 1) & mask;
        Kokkos::atomic_add(&vals(h), products.value(p, q));
      };
      if (team_bin) {
        products.for_team(
            m, i, PrefixScratch<Exec>(m.team_scratch(0), team_prefix_entries), add);
      } else {
        products.for_group(m, i, add);
      }
    }
    m.team_barrier();
    if (team_bin) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, table), write);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, table), write);
    }
  }
};

}  // namespace libra::impl
