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

// What travels with the keys when a sort swaps two of them: nothing, or the
// entries of a second view (values sorted by their keys).
struct NoPayload {
  KOKKOS_INLINE_FUNCTION void swap(int, int) const {}
};
template <class View>
struct PayloadOf {
  View v;
  KOKKOS_INLINE_FUNCTION void swap(int a, int b) const {
    const auto t = v(a);
    v(a) = v(b);
    v(b) = t;
  }
};
template <class View>
KOKKOS_INLINE_FUNCTION PayloadOf<View> payload_of(const View& v) {
  return PayloadOf<View>{v};
}

template <class KeyView, class Payload>
KOKKOS_INLINE_FUNCTION void sift_down(const KeyView& keys, int root, int end,
                                      const Payload& payload) {
  while (2 * root + 1 < end) {
    int child = 2 * root + 1;
    if (child + 1 < end && keys(child) < keys(child + 1)) ++child;
    if (!(keys(root) < keys(child))) return;
    const auto t = keys(root);
    keys(root) = keys(child);
    keys(child) = t;
    payload.swap(root, child);
    root = child;
  }
}

// Heapsort: in place, no recursion, no extra memory; what a lone thread uses.
template <class KeyView, class Payload = NoPayload>
KOKKOS_INLINE_FUNCTION void heap_sort(const KeyView& keys, int n,
                                      const Payload& payload = {}) {
  for (int i = n / 2 - 1; i >= 0; --i) sift_down(keys, i, n, payload);
  for (int end = n - 1; end > 0; --end) {
    const auto t = keys(0);
    keys(0) = keys(end);
    keys(end) = t;
    payload.swap(0, end);
    sift_down(keys, 0, end, payload);
  }
}

// One step of a bitonic network over m entries (m a power of two): stage (k, j),
// compare-exchange t of m / 2.
template <class KeyView, class Payload>
KOKKOS_INLINE_FUNCTION void bitonic_step(const KeyView& keys, int k, int j, int t,
                                         const Payload& payload) {
  const int i = 2 * t - (t & (j - 1));  // i has bit j clear; its partner is i + j
  const int l = i + j;
  const bool ascending = (i & k) == 0;
  const auto a = keys(i);
  const auto b = keys(l);
  if ((a > b) == ascending) {
    keys(i) = b;
    keys(l) = a;
    payload.swap(i, l);
  }
}

// Sorts keys[0, n) ascending (and the payload with them). keys must hold
// next_pow2(n) entries: the bitonic path fills the padding with `pad` (a value no
// real key exceeds). Every thread of the team must call it; it ends with a barrier.
template <class Member, class KeyView, class Payload = NoPayload>
KOKKOS_INLINE_FUNCTION void team_sort(const Member& team, const KeyView& keys, int n,
                                      typename KeyView::non_const_value_type pad,
                                      const Payload& payload = {}) {
  if (team.team_size() == 1) {
    heap_sort(keys, n, payload);
    return;
  }
  const int m = next_pow2(n);
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n, m),
                       [&](int i) { keys(i) = pad; });
  team.team_barrier();
  for (int k = 2; k <= m; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m / 2),
                           [&](int t) { bitonic_step(keys, k, j, t, payload); });
      team.team_barrier();
    }
  }
}

// Bitonic sort of each thread group's keys[0, n) (n a power of two) by its vector
// lanes. Every group of the team sorts at once: the team barriers keep them in
// step, as many as the team's largest n (`team_n`, at least n) takes; a group
// with a smaller n has finished its network by then and waits at the others'
// barriers without work.
template <class Member, class KeyView, class Payload = NoPayload>
KOKKOS_INLINE_FUNCTION void group_sort(const Member& m, const KeyView& keys, int n,
                                       int team_n, const Payload& payload = {}) {
  for (int k = 2; k <= team_n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, k <= n ? n / 2 : 0),
                           [&](const int t) { bitonic_step(keys, k, j, t, payload); });
      m.team_barrier();
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
