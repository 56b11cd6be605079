#pragma once
// Rows of C computed on the device, brought into C's final host arrays in one
// copy. The device's columns and values come down in chunks of a fixed number
// of entries through two staging slots (pinned on CUDA, from Libra's block
// cache, so a later call pins nothing); while chunk j+1 comes down, the host
// space's threads copy chunk j out to where its rows go in C. Those threads
// also fault C's fresh pages in, in parallel (one thread alone takes them at
// about 1 GB/s on the H100 machine's host). A chunk may end inside a row: each
// row copies the part of it that the chunk holds.
// Where the device's memory is the host's (OpenMP playing the device) the same
// chunks are copied out in place, with no staging.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "libra/core/dynamic_range.hpp"
#include "libra/core/exec_lanes.hpp"
#include "libra/spgemm/impl/hetero_copy_out.hpp"
#include "libra/util/huge_pages.hpp"

namespace libra::impl {

// C's column and value arrays in host memory for nnz entries, uninitialised,
// with huge pages asked for before the copies out first touch them.
template <class O, class S>
std::pair<Kokkos::View<O*, Kokkos::HostSpace>, Kokkos::View<S*, Kokkos::HostSpace>>
host_entries(std::size_t nnz) {
  Kokkos::View<O*, Kokkos::HostSpace> col(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::col_idx"), nnz);
  Kokkos::View<S*, Kokkos::HostSpace> val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::values"), nnz);
  advise_huge_pages(col);
  advise_huge_pages(val);
  return {col, val};
}

// What the downloads of one call did (HeteroStats).
struct DownloadTally {
  std::uint64_t bytes = 0;
  std::size_t chunks = 0;
  double seconds_copy_out = 0;  // the host threads' copies out of staging
  double seconds_waited = 0;    // waits for a chunk to land
  double seconds_transfer = 0;  // the copies' own seconds on their stream
};

// Copies entries [e0, e1) of a device piece, held at src_col / src_val (entry
// e0 first), into C: row p of the piece (offsets rm on the host) starts at
// C's entry dest(p). Rows run in parallel on `host`; where `contiguous`, the
// piece's rows lie in C in order (dest(p) = dest(0) + rm(p)) and the copy is
// one range split into blocks.
template <class HostExec, class S, class O, class Off, class Dest>
void copy_out_entries(const HostExec& host, const Off* rm, std::size_t rows,
                      std::uint64_t e0, std::uint64_t e1, const O* src_col,
                      const S* src_val, O* c_col, S* c_val, const Dest& dest,
                      bool contiguous) {
  if (e1 <= e0) return;
  if (contiguous) {
    const std::uint64_t base = static_cast<std::uint64_t>(dest(0)) + e0;
    constexpr std::uint64_t block = std::uint64_t(1) << 14;  // entries
    const std::uint64_t blocks = (e1 - e0 + block - 1) / block;
    Kokkos::parallel_for("libra::spgemm::hetero::copy_out",
                         Kokkos::RangePolicy<HostExec, Kokkos::IndexType<std::int64_t>>(
                             host, 0, static_cast<std::int64_t>(blocks)),
                         [=](const std::int64_t b) {
                           const std::uint64_t lo = static_cast<std::uint64_t>(b) * block;
                           const std::uint64_t n = std::min(block, e1 - e0 - lo);
                           std::memcpy(c_col + base + lo, src_col + lo, n * sizeof(O));
                           std::memcpy(c_val + base + lo, src_val + lo, n * sizeof(S));
                         });
    host.fence();
    return;
  }
  // The rows the range touches: from the last starting at or before e0 to the
  // first starting at or after e1.
  const Off* end = rm + rows + 1;
  const auto p0 =
      static_cast<std::int64_t>(std::upper_bound(rm, end, static_cast<Off>(e0)) - rm - 1);
  const auto p1 =
      static_cast<std::int64_t>(std::lower_bound(rm, end, static_cast<Off>(e1)) - rm);
  dynamic_for("libra::spgemm::hetero::copy_out_rows", host, std::max<std::int64_t>(0, p0),
              std::min<std::int64_t>(p1, static_cast<std::int64_t>(rows)), 0,
              [=](const std::int64_t p) {
                const std::uint64_t lo = std::max<std::uint64_t>(rm[p], e0);
                const std::uint64_t hi = std::min<std::uint64_t>(rm[p + 1], e1);
                if (hi <= lo) return;
                const std::uint64_t at =
                    static_cast<std::uint64_t>(dest(p)) + (lo - rm[p]);
                std::memcpy(c_col + at, src_col + (lo - e0), (hi - lo) * sizeof(O));
                std::memcpy(c_val + at, src_val + (lo - e0), (hi - lo) * sizeof(S));
              });
  host.fence();
}

// Brings a device piece's entries into C (see the top of the file). rm: the
// piece's row offsets in host memory; col / val: its entries in DevExec's
// memory; `chunk`: entries per staging slot.
template <class DevExec, class HostExec, class Off, class ColView, class ValView,
          class Dest>
void download_rows(const DevExec& down, const HostExec& host,
                   const Kokkos::View<const Off*, Kokkos::HostSpace>& rm,
                   const ColView& col, const ValView& val,
                   typename ColView::non_const_value_type* c_col,
                   typename ValView::non_const_value_type* c_val, const Dest& dest,
                   bool contiguous, std::size_t chunk, DownloadTally& tally) {
  using O = typename ColView::non_const_value_type;
  using S = typename ValView::non_const_value_type;
  using DevMem = typename ColView::memory_space;
  const std::size_t rows = rm.extent(0) == 0 ? 0 : rm.extent(0) - 1;
  const std::uint64_t nnz = rows == 0 ? 0 : static_cast<std::uint64_t>(rm(rows));
  if (nnz == 0) return;
  const std::uint64_t per = std::max<std::uint64_t>(1, chunk);
  const std::uint64_t chunks = (nnz + per - 1) / per;
  const auto range = [&](std::uint64_t j) {
    return std::make_pair(static_cast<std::size_t>(j * per),
                          static_cast<std::size_t>(std::min(nnz, (j + 1) * per)));
  };
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, DevMem>::accessible) {
    // The same chunks, read in place.
    (void)down;
    Kokkos::Timer timer;
    for (std::uint64_t j = 0; j < chunks; ++j) {
      const auto r = range(j);
      copy_out_entries(host, rm.data(), rows, r.first, r.second, col.data() + r.first,
                       val.data() + r.first, c_col, c_val, dest, contiguous);
      ++tally.chunks;
    }
    tally.seconds_copy_out += timer.seconds();
  } else {
    using Slot = CachedArrays<S, O, Off, StagingSpace<DevExec>>;
    Slot slots[2];
    CopyMark<DevExec> landed[2];
    CopyClock<DevExec> clock;
    const auto fetch = [&](std::uint64_t j) {
      const int s = static_cast<int>(j % 2);
      const auto r = range(j);
      const std::size_t n = r.second - r.first;
      slots[s].reserve(0, static_cast<std::size_t>(std::min(per, nnz)));
      const auto head = std::make_pair(std::size_t(0), n);
      clock.begin(down);
      Kokkos::deep_copy(down, Kokkos::subview(slots[s].col, head),
                        Kokkos::subview(col, r));
      Kokkos::deep_copy(down, Kokkos::subview(slots[s].val, head),
                        Kokkos::subview(val, r));
      clock.end(down);
      landed[s] = CopyMark<DevExec>(down);
      tally.bytes += n * (sizeof(O) + sizeof(S));
    };
    fetch(0);
    for (std::uint64_t j = 0; j < chunks; ++j) {
      const int s = static_cast<int>(j % 2);
      Kokkos::Timer wait;
      landed[s].wait();
      tally.seconds_waited += wait.seconds();
      // The other slot's copy out ended with the last chunk: it can refill.
      if (j + 1 < chunks) fetch(j + 1);
      const auto r = range(j);
      Kokkos::Timer timer;
      copy_out_entries(host, rm.data(), rows, r.first, r.second, slots[s].col.data(),
                       slots[s].val.data(), c_col, c_val, dest, contiguous);
      tally.seconds_copy_out += timer.seconds();
      ++tally.chunks;
    }
    down.fence();
    tally.seconds_transfer += clock.seconds();
  }
}

}  // namespace libra::impl
