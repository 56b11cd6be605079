#pragma once
// Stable least-significant-digit radix sort of (key, value) pairs on any
// execution space. Stability is what makes every Libra conversion deterministic:
// entries with equal keys keep their input order, so sums of duplicates are
// always taken in the same order.
//
// One pass per 8-bit digit: (1) each tile of the input counts its digits in team
// scratch, (2) an exclusive scan over the digit-major count table gives every
// (digit, tile) its output offset, (3) each tile scatters its elements in input
// order. Inside a tile the team takes `team_size` elements at a time and ranks
// equal digits with a per-digit bit mask, so no element overtakes an earlier one.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/core/spaces.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

inline constexpr int radix_bits = 8;
inline constexpr int radix_buckets = 1 << radix_bits;

template <class Exec>
struct RadixTiling {
  int team_size;
  std::size_t tile;
  std::size_t tiles;

  // host_team_threads > 1 runs a host space with GPU-style teams (tests).
  explicit RadixTiling(std::size_t n, int host_team_threads = 0) {
    team_size = LaunchTraits<Exec>::team_threads(256);
    if (is_host_exec<Exec> && host_team_threads > 1) {
      team_size = host_team_threads;
      tile = static_cast<std::size_t>(team_size) * 16;
    } else if constexpr (is_host_exec<Exec>) {
      // A team is one thread here: a few tiles per thread keep the cores busy.
      const std::size_t threads = static_cast<std::size_t>(Exec().concurrency());
      tile = std::max<std::size_t>(std::size_t(1) << 14, n / (4 * threads) + 1);
    } else {
      tile = static_cast<std::size_t>(team_size) * 16;
    }
    tiles = (n + tile - 1) / tile;
  }
};

template <class Exec, class Key>
struct RadixHistogram {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  using counts_scratch = Kokkos::View<unsigned*, typename Exec::scratch_memory_space,
                                      Kokkos::MemoryUnmanaged>;
  Kokkos::View<const Key*, typename Exec::memory_space> keys;
  Kokkos::View<std::uint64_t*, typename Exec::memory_space> counts;  // digit-major
  std::size_t n, tile, tiles;
  int shift;

  static std::size_t scratch_bytes() { return counts_scratch::shmem_size(radix_buckets); }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    counts_scratch hist(team.team_scratch(0), radix_buckets);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, radix_buckets),
                         [&](int d) { hist(d) = 0; });
    team.team_barrier();
    const std::size_t t = static_cast<std::size_t>(team.league_rank());
    const std::size_t begin = t * tile;
    const std::size_t end = begin + tile < n ? begin + tile : n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](std::size_t i) {
      auto& count = hist((keys(i) >> shift) & (radix_buckets - 1));
      if (team.team_size() == 1) {
        ++count;  // a lone thread (host spaces): no atomic needed
      } else {
        Kokkos::atomic_add(&count, 1u);
      }
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, radix_buckets),
                         [&](int d) { counts(d * tiles + t) = hist(d); });
  }
};

template <class Exec, class Key, class Value>
struct RadixScatter {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using u64_scratch = Kokkos::View<std::uint64_t*, typename Exec::scratch_memory_space,
                                   Kokkos::MemoryUnmanaged>;
  Kokkos::View<const Key*, mem> keys_in;
  Kokkos::View<const Value*, mem> vals_in;
  Kokkos::View<Key*, mem> keys_out;
  Kokkos::View<Value*, mem> vals_out;
  Kokkos::View<const std::uint64_t*, mem> offsets;  // digit-major, scanned
  std::size_t n, tile, tiles;
  int shift;
  int words;  // 64-bit mask words per digit: ceil(team_size / 64)

  static std::size_t scratch_bytes(int team_size) {
    const int w = (team_size + 63) / 64;
    return u64_scratch::shmem_size(radix_buckets) +
           u64_scratch::shmem_size(static_cast<std::size_t>(radix_buckets) * w);
  }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    u64_scratch cursor(team.team_scratch(0), radix_buckets);
    u64_scratch mask(team.team_scratch(0),
                     static_cast<std::size_t>(radix_buckets) * words);
    const std::size_t t = static_cast<std::size_t>(team.league_rank());
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, radix_buckets), [&](int d) {
      cursor(d) = offsets(d * tiles + t);
      for (int w = 0; w < words; ++w) mask(d * words + w) = 0;
    });
    team.team_barrier();
    const std::size_t begin = t * tile;
    const std::size_t end = begin + tile < n ? begin + tile : n;
    if (team.team_size() == 1) {
      // A lone thread walks its tile in order, which is already stable.
      for (std::size_t i = begin; i < end; ++i) {
        const Key key = keys_in(i);
        const std::uint64_t pos = cursor((key >> shift) & (radix_buckets - 1))++;
        keys_out(pos) = key;
        vals_out(pos) = vals_in(i);
      }
      return;
    }
    const int me = team.team_rank();
    const int my_word = me / 64;
    const std::uint64_t my_bit = std::uint64_t(1) << (me % 64);
    for (std::size_t base = begin; base < end; base += team.team_size()) {
      const std::size_t i = base + me;
      const bool valid = i < end;
      Key key{};
      int d = 0;
      if (valid) {
        key = keys_in(i);
        d = static_cast<int>((key >> shift) & (radix_buckets - 1));
        atomic_set_bits(&mask(d * words + my_word), my_bit);
      }
      team.team_barrier();
      bool last = false;
      std::uint64_t rank = 0;
      if (valid) {
        for (int w = 0; w < my_word; ++w) rank += popcount64(mask(d * words + w));
        const std::uint64_t mine = mask(d * words + my_word);
        rank += popcount64(mine & (my_bit - 1));
        last = (mine & ~((my_bit << 1) - 1)) == 0;  // no later lane in my word...
        for (int w = my_word + 1; w < words && last; ++w) last = mask(d * words + w) == 0;
        const std::uint64_t pos = cursor(d) + rank;
        keys_out(pos) = key;
        vals_out(pos) = vals_in(i);
      }
      team.team_barrier();
      if (valid && last) {  // ...so this lane advances the digit's cursor
        cursor(d) += rank + 1;
        for (int w = 0; w < words; ++w) mask(d * words + w) = 0;
      }
      team.team_barrier();
    }
  }
};

// Sorts keys (and moves vals along) by the low `key_bits` bits, stably. Both views
// are overwritten with the sorted sequence. Keys must be unsigned integers.
// Temporaries come from `temps`. host_team_threads > 1 makes a host space run the
// multi-thread team path that GPUs take (for tests).
template <class Exec, class KeyView, class ValView>
void radix_sort_pairs(const Exec& exec, const KeyView& keys, const ValView& vals,
                      int key_bits, const Temps<typename Exec::memory_space>& temps = {},
                      int host_team_threads = 0) {
  using Key = typename KeyView::non_const_value_type;
  using Value = typename ValView::non_const_value_type;
  using mem = typename Exec::memory_space;
  static_assert(std::is_unsigned<Key>::value, "radix_sort_pairs sorts unsigned keys");
  const std::size_t n = keys.extent(0);
  if (n < 2 || key_bits <= 0) return;
  const RadixTiling<Exec> tiling(n, host_team_threads);
  const int passes = (key_bits + radix_bits - 1) / radix_bits;

  Kokkos::View<Key*, mem> keys_tmp =
      temps.template view<Key>("libra::radix_sort::keys", n);
  Kokkos::View<Value*, mem> vals_tmp =
      temps.template view<Value>("libra::radix_sort::values", n);
  const std::size_t table = static_cast<std::size_t>(radix_buckets) * tiling.tiles;
  Kokkos::View<std::uint64_t*, mem> counts =
      temps.template view<std::uint64_t>("libra::radix_sort::counts", table);
  Kokkos::View<std::uint64_t*, mem> offsets =
      temps.template view<std::uint64_t>("libra::radix_sort::offsets", table + 1);

  Kokkos::View<Key*, mem> k_src = keys, k_dst = keys_tmp;
  Kokkos::View<Value*, mem> v_src = vals, v_dst = vals_tmp;
  const int words = (tiling.team_size + 63) / 64;
  for (int p = 0; p < passes; ++p) {
    const int shift = p * radix_bits;
    RadixHistogram<Exec, Key> hist{k_src, counts, n, tiling.tile, tiling.tiles, shift};
    Kokkos::TeamPolicy<Exec> hist_policy(exec, static_cast<int>(tiling.tiles),
                                         tiling.team_size);
    Kokkos::parallel_for(
        "libra::radix_sort::histogram",
        hist_policy.set_scratch_size(
            0, Kokkos::PerTeam(RadixHistogram<Exec, Key>::scratch_bytes())),
        hist);
    exclusive_scan_async(exec, "libra::radix_sort::scan", counts, offsets);
    RadixScatter<Exec, Key, Value> scatter{
        k_src, v_src, k_dst, v_dst, offsets, n, tiling.tile, tiling.tiles, shift, words};
    Kokkos::TeamPolicy<Exec> scatter_policy(exec, static_cast<int>(tiling.tiles),
                                            tiling.team_size);
    Kokkos::parallel_for(
        "libra::radix_sort::scatter",
        scatter_policy.set_scratch_size(
            0, Kokkos::PerTeam(
                   RadixScatter<Exec, Key, Value>::scratch_bytes(tiling.team_size))),
        scatter);
    std::swap(k_src, k_dst);
    std::swap(v_src, v_dst);
  }
  if (passes % 2 == 1) {
    Kokkos::deep_copy(exec, keys, k_src);
    Kokkos::deep_copy(exec, vals, v_src);
  }
}

}  // namespace libra::impl
