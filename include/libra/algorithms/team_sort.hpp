#pragma once
// Sorting a few thousand keys held in a team's scratch memory, and compacting
// runs of equal keys. A team of one thread (the host spaces) sorts sequentially
// in O(n log n); a GPU team runs a bitonic network with one barrier per stage.
#include <Kokkos_Core.hpp>

namespace libra::impl {

KOKKOS_INLINE_FUNCTION int next_pow2(int n) {
  int m = 1;
  while (m < n) m <<= 1;
  return m;
}

template <class KeyView>
KOKKOS_INLINE_FUNCTION void sift_down(const KeyView& keys, int root, int end) {
  while (2 * root + 1 < end) {
    int child = 2 * root + 1;
    if (child + 1 < end && keys(child) < keys(child + 1)) ++child;
    if (!(keys(root) < keys(child))) return;
    const auto t = keys(root);
    keys(root) = keys(child);
    keys(child) = t;
    root = child;
  }
}

// Heapsort: in place, no recursion, no extra memory; what a lone thread uses.
template <class KeyView>
KOKKOS_INLINE_FUNCTION void heap_sort(const KeyView& keys, int n) {
  for (int i = n / 2 - 1; i >= 0; --i) sift_down(keys, i, n);
  for (int end = n - 1; end > 0; --end) {
    const auto t = keys(0);
    keys(0) = keys(end);
    keys(end) = t;
    sift_down(keys, 0, end);
  }
}

// Sorts keys[0, n) ascending. keys must hold next_pow2(n) entries: the bitonic
// path fills the padding with `pad` (a value no real key exceeds). Every thread
// of the team must call it; it ends with a barrier.
template <class Member, class KeyView>
KOKKOS_INLINE_FUNCTION void team_sort(const Member& team, const KeyView& keys, int n,
                                      typename KeyView::non_const_value_type pad) {
  if (team.team_size() == 1) {
    heap_sort(keys, n);
    return;
  }
  const int m = next_pow2(n);
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n, m),
                       [&](int i) { keys(i) = pad; });
  team.team_barrier();
  for (int k = 2; k <= m; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m / 2), [&](int t) {
        const int i = 2 * t - (t & (j - 1));  // i has bit j clear; its partner is i + j
        const int l = i + j;
        const bool ascending = (i & k) == 0;
        const auto a = keys(i);
        const auto b = keys(l);
        if ((a > b) == ascending) {
          keys(i) = b;
          keys(l) = a;
        }
      });
      team.team_barrier();
    }
  }
}

// Writes the distinct values of the sorted keys[0, n) to out[0, u) and returns u
// to every thread. `total` is one int of team scratch.
template <class Member, class KeyView, class OutView, class TotalView>
KOKKOS_INLINE_FUNCTION int team_unique(const Member& team, const KeyView& keys, int n,
                                       const OutView& out, const TotalView& total) {
  if (n == 0) return 0;
  Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, n),
                        [&](int i, int& pos, bool final) {
                          const bool head = i == 0 || keys(i) != keys(i - 1);
                          if (final) {
                            if (head) out(pos) = keys(i);
                            if (i == n - 1) total() = pos + (head ? 1 : 0);
                          }
                          pos += head ? 1 : 0;
                        });
  team.team_barrier();
  return total();
}

}  // namespace libra::impl
