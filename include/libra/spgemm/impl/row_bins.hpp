#pragma once
// Dynamic binning of rows by how much work they carry, so each bin is processed
// by a kernel whose team size and scratch fit its rows (rows of 10 products and
// rows of 5,000 products should not share a launch configuration).
#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>

#include "libra/algorithms/radix_sort.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/core/spaces.hpp"
#include "libra/format/impl/compressed.hpp"
#include "libra/util/host_copy.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

inline constexpr int max_bins = 8;

// Rows grouped by bin: rows(bin_begin[b] .. bin_begin[b+1]) are the rows of bin b.
template <class MemSpace, int Bins = max_bins>
struct RowBins {
  static constexpr int bins = Bins;
  Kokkos::View<std::uint32_t*, MemSpace> rows;
  std::array<std::size_t, Bins + 1> begin{};
  // Per bin, the sum of its rows' weights and the number of its flagged rows
  // (when bin_of gives them; see BinKey).
  std::array<std::uint64_t, Bins> weight{};
  std::array<std::uint64_t, Bins> flagged{};
  std::size_t size(int bin) const { return begin[bin + 1] - begin[bin]; }
};

// What bin_rows_unstable's bin_of may return: the row's bin and a weight (its
// products, say), summed per bin in the same pass.
struct BinKey {
  int bin = 0;
  std::uint64_t weight = 0;
  bool flag = false;  // counted per bin (a path the row will take, say)
};
KOKKOS_INLINE_FUNCTION BinKey bin_key(const BinKey& k) {
  return k;
}
KOKKOS_INLINE_FUNCTION BinKey bin_key(int bin) {
  return BinKey{bin, 0};
}

// bin_of(i) returns the bin of row i in [0, Bins) (Bins at most 256). One radix pass
// groups the rows (stably, so rows stay in order within a bin) and one small copy tells
// the host how many rows each bin has. bins.rows comes from `temps` and lives as long as
// the caller's frame; the sort's temporaries are released on return.
template <int Bins = max_bins, class Exec, class BinOf>
RowBins<typename Exec::memory_space, Bins> bin_rows(
    const Exec& exec, std::int64_t num_rows, const BinOf& bin_of,
    const Temps<typename Exec::memory_space>& temps) {
  using mem = typename Exec::memory_space;
  static_assert(Bins >= 2 && Bins <= 256, "bin ids are sorted in one radix pass");
  RowBins<mem, Bins> bins;
  const std::size_t n = static_cast<std::size_t>(num_rows);
  bins.rows = temps.template view<std::uint32_t>("libra::bins::rows", n);
  const TempsFrame<mem> frame(temps);
  Kokkos::View<std::uint32_t*, mem> keys =
      temps.template view<std::uint32_t>("libra::bins::keys", n);
  const auto rows = bins.rows;
  Kokkos::parallel_for(
      "libra::bins::classify", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t i) {
        keys(i) = static_cast<std::uint32_t>(bin_of(static_cast<std::int64_t>(i)));
        rows(i) = static_cast<std::uint32_t>(i);
      });
  int bits = 1;
  while ((1 << bits) < Bins) ++bits;
  radix_sort_pairs(exec, keys, rows, bits, temps);
  Kokkos::View<std::uint64_t*, mem> begin =
      temps.template view<std::uint64_t>("libra::bins::begin", Bins + 1);
  offsets_from_sorted(exec, keys, begin);
  const auto h = host_copy(exec, begin);
  for (int b = 0; b <= Bins; ++b) bins.begin[b] = static_cast<std::size_t>(h(b));
  return bins;
}

}  // namespace libra::impl

namespace libra::impl {

// The same grouping without order within a bin (what the panel SpGEMM needs:
// a bin's rows are independent): each team counts its rows per bin in scratch
// (and sums their weights), reserves a range per bin with one atomic, and places
// its rows there. Two launches and one small copy, where the stable radix pass
// takes a barrier per team-sized step. bin_of runs once per row (it may have
// side effects, such as writing the row's products); the place pass reads the
// bins the count pass kept.
template <int Bins, class Exec, class BinOf>
struct UnstableBinPass {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using counts_scratch = Kokkos::View<unsigned*, typename Exec::scratch_memory_space,
                                      Kokkos::MemoryUnmanaged>;
  using weights_scratch = Kokkos::View<atomic_u64*, typename Exec::scratch_memory_space,
                                       Kokkos::MemoryUnmanaged>;
  // Rows per team: few, so that a pass whose bin_of does real work (the panel's
  // pre-analysis) spreads over the whole device; each team adds to the global
  // counts once per bin.
  static constexpr std::size_t tile = 512;
  BinOf bin_of;
  std::int64_t n = 0;
  // Count pass: per bin its rows (0 .. Bins), weights (Bins .. 2 Bins) and
  // flagged rows (2 Bins .. 3 Bins); place pass: per bin the next free position.
  Kokkos::View<atomic_u64*, mem> cursor;
  Kokkos::View<std::uint8_t*, mem> keys;   // each row's bin
  Kokkos::View<std::uint32_t*, mem> rows;  // place pass only
  bool place = false;

  static std::size_t scratch_bytes() {
    return weights_scratch::shmem_size(Bins) + 3 * counts_scratch::shmem_size(Bins);
  }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    weights_scratch weights(m.team_scratch(0), Bins);
    counts_scratch local(m.team_scratch(0), Bins);
    counts_scratch base(m.team_scratch(0), Bins);
    counts_scratch flags(m.team_scratch(0), Bins);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, Bins), [&](const int b) {
      local(b) = 0;
      weights(b) = 0;
      flags(b) = 0;
    });
    m.team_barrier();
    const std::int64_t begin = static_cast<std::int64_t>(m.league_rank()) * tile;
    const std::int64_t end = begin + static_cast<std::int64_t>(tile) < n
                                 ? begin + static_cast<std::int64_t>(tile)
                                 : n;
    if (!place) {
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(m, begin, end), [&](const std::int64_t i) {
            const BinKey k = bin_key(bin_of(i));
            keys(i) = static_cast<std::uint8_t>(k.bin);
            Kokkos::atomic_add(&local(k.bin), 1u);
            if (k.weight)
              Kokkos::atomic_add(&weights(k.bin), static_cast<atomic_u64>(k.weight));
            if (k.flag) Kokkos::atomic_add(&flags(k.bin), 1u);
          });
      m.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, Bins), [&](const int b) {
        if (local(b)) Kokkos::atomic_add(&cursor(b), static_cast<atomic_u64>(local(b)));
        if (weights(b)) Kokkos::atomic_add(&cursor(Bins + b), weights(b));
        if (flags(b))
          Kokkos::atomic_add(&cursor(2 * Bins + b), static_cast<atomic_u64>(flags(b)));
      });
      return;
    }
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(m, begin, end),
        [&](const std::int64_t i) { Kokkos::atomic_add(&local(keys(i)), 1u); });
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, Bins), [&](const int b) {
      base(b) = local(b) ? static_cast<unsigned>(Kokkos::atomic_fetch_add(
                               &cursor(b), static_cast<atomic_u64>(local(b))))
                         : 0u;
      local(b) = 0;
    });
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, begin, end),
                         [&](const std::int64_t i) {
                           const int b = keys(i);
                           rows(base(b) + Kokkos::atomic_fetch_add(&local(b), 1u)) =
                               static_cast<std::uint32_t>(i);
                         });
  }
};

// bin_of(i) gives row i's bin in [0, Bins), as an int or a BinKey with a weight.
template <int Bins, class Exec, class BinOf>
RowBins<typename Exec::memory_space, Bins> bin_rows_unstable(
    const Exec& exec, std::int64_t num_rows, const BinOf& bin_of,
    const Temps<typename Exec::memory_space>& temps) {
  static_assert(Bins <= 256, "a row's bin is kept in one byte");
  using mem = typename Exec::memory_space;
  using Pass = UnstableBinPass<Bins, Exec, BinOf>;
  RowBins<mem, Bins> bins;
  const std::size_t n = static_cast<std::size_t>(num_rows);
  bins.rows = temps.template view<std::uint32_t>("libra::bins::rows", n);
  if (n == 0) return bins;
  const TempsFrame<mem> frame(temps);
  auto cursor = temps.template view<atomic_u64>("libra::bins::cursor", 3 * Bins);
  auto keys = temps.template view<std::uint8_t>("libra::bins::keys", n);
  Kokkos::deep_copy(exec, cursor, atomic_u64(0));
  const int league = static_cast<int>((n + Pass::tile - 1) / Pass::tile);
  const int threads = LaunchTraits<Exec>::team_threads(256);
  Pass pass{bin_of, num_rows, cursor, keys, bins.rows, false};
  Kokkos::TeamPolicy<Exec> policy(exec, league, threads);
  policy.set_scratch_size(0, Kokkos::PerTeam(Pass::scratch_bytes()));
  // light_launch: bin_of may carry a kernel's worth of state (a panel shape).
  Kokkos::parallel_for("libra::bins::count", light_launch(policy), pass);
  const auto counts = host_copy(exec, cursor);
  // Not a mirror view: its initialisation would wake the host threads.
  Kokkos::View<atomic_u64*, Kokkos::HostSpace> starts(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("libra::bins::starts")),
      Bins);
  std::size_t at = 0;
  for (int b = 0; b < Bins; ++b) {
    bins.begin[b] = at;
    bins.weight[b] = counts(Bins + b);
    bins.flagged[b] = counts(2 * Bins + b);
    starts(b) = at;
    at += static_cast<std::size_t>(counts(b));
  }
  bins.begin[Bins] = at;
  Kokkos::deep_copy(exec, Kokkos::subview(cursor, Kokkos::make_pair(0, Bins)), starts);
  pass.place = true;
  Kokkos::parallel_for("libra::bins::place", light_launch(policy), pass);
  return bins;
}

}  // namespace libra::impl
