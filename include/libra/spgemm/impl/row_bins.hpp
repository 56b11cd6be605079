#pragma once
// Dynamic binning of rows by how much work they carry, so each bin is processed
// by a kernel whose team size and scratch fit its rows (rows of 10 products and
// rows of 5,000 products should not share a launch configuration).
#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>

#include "libra/algorithms/radix_sort.hpp"
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
  std::size_t size(int bin) const { return begin[bin + 1] - begin[bin]; }
};

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
// a bin's rows are independent): each team counts its rows per bin in scratch,
// reserves a range per bin with one atomic, and places its rows there. Two
// launches and one small copy, where the stable radix pass takes a barrier per
// team-sized step.
template <int Bins, class Exec, class BinOf>
struct UnstableBinPass {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using mem = typename Exec::memory_space;
  using counts_scratch = Kokkos::View<unsigned*, typename Exec::scratch_memory_space,
                                      Kokkos::MemoryUnmanaged>;
  static constexpr std::size_t tile = 4096;
  BinOf bin_of;
  std::int64_t n = 0;
  Kokkos::View<std::uint64_t*, mem> cursor;  // count pass: totals; place: next free
  Kokkos::View<std::uint32_t*, mem> rows;    // place pass only
  bool place = false;

  static std::size_t scratch_bytes() { return 2 * counts_scratch::shmem_size(Bins); }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    counts_scratch local(m.team_scratch(0), Bins);
    counts_scratch base(m.team_scratch(0), Bins);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, Bins),
                         [&](const int b) { local(b) = 0; });
    m.team_barrier();
    const std::int64_t begin = static_cast<std::int64_t>(m.league_rank()) * tile;
    const std::int64_t end = begin + static_cast<std::int64_t>(tile) < n
                                 ? begin + static_cast<std::int64_t>(tile)
                                 : n;
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(m, begin, end),
        [&](const std::int64_t i) { Kokkos::atomic_add(&local(bin_of(i)), 1u); });
    m.team_barrier();
    if (!place) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, Bins), [&](const int b) {
        if (local(b))
          Kokkos::atomic_add(&cursor(b), static_cast<std::uint64_t>(local(b)));
      });
      return;
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, Bins), [&](const int b) {
      base(b) = local(b) ? static_cast<unsigned>(Kokkos::atomic_fetch_add(
                               &cursor(b), static_cast<std::uint64_t>(local(b))))
                         : 0u;
      local(b) = 0;
    });
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, begin, end),
                         [&](const std::int64_t i) {
                           const int b = bin_of(i);
                           rows(base(b) + Kokkos::atomic_fetch_add(&local(b), 1u)) =
                               static_cast<std::uint32_t>(i);
                         });
  }
};

template <int Bins, class Exec, class BinOf>
RowBins<typename Exec::memory_space, Bins> bin_rows_unstable(
    const Exec& exec, std::int64_t num_rows, const BinOf& bin_of,
    const Temps<typename Exec::memory_space>& temps) {
  using mem = typename Exec::memory_space;
  using Pass = UnstableBinPass<Bins, Exec, BinOf>;
  RowBins<mem, Bins> bins;
  const std::size_t n = static_cast<std::size_t>(num_rows);
  bins.rows = temps.template view<std::uint32_t>("libra::bins::rows", n);
  if (n == 0) return bins;
  const TempsFrame<mem> frame(temps);
  auto cursor = temps.template view<std::uint64_t>("libra::bins::cursor", Bins);
  Kokkos::deep_copy(exec, cursor, std::uint64_t(0));
  const int league = static_cast<int>((n + Pass::tile - 1) / Pass::tile);
  const int threads = LaunchTraits<Exec>::team_threads(256);
  Pass pass{bin_of, num_rows, cursor, bins.rows, false};
  Kokkos::TeamPolicy<Exec> policy(exec, league, threads);
  policy.set_scratch_size(0, Kokkos::PerTeam(Pass::scratch_bytes()));
  Kokkos::parallel_for("libra::bins::count", policy, pass);
  const auto counts = host_copy(exec, cursor);
  auto starts = Kokkos::create_mirror_view(cursor);
  std::size_t at = 0;
  for (int b = 0; b < Bins; ++b) {
    bins.begin[b] = at;
    starts(b) = at;
    at += static_cast<std::size_t>(counts(b));
  }
  bins.begin[Bins] = at;
  Kokkos::deep_copy(exec, cursor, starts);
  pass.place = true;
  Kokkos::parallel_for("libra::bins::place", policy, pass);
  return bins;
}

}  // namespace libra::impl
