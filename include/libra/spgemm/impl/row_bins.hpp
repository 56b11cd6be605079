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

// bin_of(i) returns the bin of row i in [0, Bins) (Bins at most 256). One radix pass groups the
// rows (stably, so rows stay in order within a bin) and one small copy tells the
// host how many rows each bin has.
// bins.rows comes from `temps` and lives as long as the caller's frame; the
// sort's temporaries are released on return.
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
