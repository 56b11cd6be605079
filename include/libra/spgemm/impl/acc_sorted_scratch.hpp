#pragma once
// Numeric accumulator in team scratch: the row of C (its sorted columns, known
// from the symbolic phase) is staged in scratch with zeroed values; each product
// finds its column by binary search and adds its value atomically; the values go
// back to C in order, in one coalesced write. No sort, no hash: the pattern is
// already known. Group bins stage G rows per team, team bins one.
#include <Kokkos_Core.hpp>
#include <cstdint>

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

template <class Exec, class S, class O, class Off>
struct AccumulateRowsInScratch {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using vals_scratch = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;
  using cols_scratch = Kokkos::View<O*, scratch, Kokkos::MemoryUnmanaged>;

  RowProducts<S, O, Off, mem> products;
  Kokkos::View<const std::uint32_t*, mem> rows;
  std::size_t first = 0, count = 0;
  int capacity = 0;  // C entries per row
  int groups = 1;    // rows per team; 1: team bin
  Kokkos::View<const Off*, mem> c_row_map;
  Kokkos::View<const O*, mem> c_col;
  Kokkos::View<S*, mem> c_val;

  static std::size_t scratch_bytes(int capacity, int groups) {
    const std::size_t n = static_cast<std::size_t>(capacity) * groups;
    return vals_scratch::shmem_size(n) + cols_scratch::shmem_size(n) +
           (groups == 1 ? prefix_scratch_bytes<Exec>() : 0);
  }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const bool team_bin = groups == 1;
    const int g = team_bin ? 0 : m.team_rank();
    const std::size_t slot = static_cast<std::size_t>(m.league_rank()) * groups + g;
    const std::size_t n = static_cast<std::size_t>(capacity) * groups;
    vals_scratch all_vals(m.team_scratch(0), n);
    cols_scratch all_cols(m.team_scratch(0), n);
    const auto range = Kokkos::make_pair(static_cast<std::size_t>(g) * capacity,
                                         static_cast<std::size_t>(g + 1) * capacity);
    const auto vals = Kokkos::subview(all_vals, range);
    const auto cols = Kokkos::subview(all_cols, range);
    const bool active = slot < count;
    const std::int64_t i = active ? static_cast<std::int64_t>(rows(first + slot)) : 0;
    const Off base = active ? c_row_map(i) : Off(0);
    const int len = active ? static_cast<int>(c_row_map(i + 1) - base) : 0;
    const auto stage = [&](const int t) {
      cols(t) = c_col(base + t);
      vals(t) = S(0);
    };
    if (team_bin) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), stage);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, len), stage);
    }
    m.team_barrier();
    if (active) {
      const auto add = [&](const O j, const Off p, const Off q) {
        Kokkos::atomic_add(&vals(find_sorted(cols, len, j)), products.value(p, q));
      };
      if (team_bin) {
        products.for_team(m, i, PrefixScratch<Exec>(m.team_scratch(0), team_prefix_entries),
                          add);
      } else {
        products.for_group(m, i, add);
      }
    }
    m.team_barrier();
    const auto write = [&](const int t) { c_val(base + t) = vals(t); };
    if (team_bin) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), write);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, len), write);
    }
  }
};

}  // namespace libra::impl
