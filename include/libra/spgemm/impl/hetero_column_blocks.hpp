#pragma once
// B in blocks of columns, for heterogeneous and out-of-core SpGEMM when B does
// not fit the device (ApSpGEMM's out-of-core setting with a large B). C(:, J) =
// A * B(:, J) for each block J of columns is a product of its own; C's row i is
// then the blocks' rows i side by side, in the blocks' order, so sorted rows
// stay sorted. A is streamed once per block.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/format/csr.hpp"
#include "libra/format/impl/row_builder.hpp"
#include "libra/spgemm/hetero_options.hpp"
#include "libra/spgemm/impl/hetero_split.hpp"

namespace libra::impl {

// Where B's column blocks start (block b holds columns [starts[b], starts[b+1]))
// so that each block's CSR takes at most `limit` bytes, blocks as wide as that
// allows. Empty, with `why` set, when no cut can: B's row offsets alone, or
// one column's entries beside them, exceed the limit.
// The count of entries per column takes 8 bytes a column of host memory (B
// itself, being too large for the device, takes 12 or more a nonzero).
template <class S, class O, class Off, class HostMatrix>
std::vector<std::int64_t> column_block_starts(const HostMatrix& B, std::uint64_t limit,
                                              std::string& why) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const auto rows = static_cast<std::uint64_t>(B.num_rows);
  if (csr_bytes_of<S, O, Off>(rows, 1) > limit) {
    why = "its row offsets alone take " +
          std::to_string(csr_bytes_of<S, O, Off>(rows, 0)) + " bytes";
    return {};
  }
  const std::uint64_t room =
      (limit - csr_bytes_of<S, O, Off>(rows, 0)) / (sizeof(O) + sizeof(S));
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> per_column(
      "libra::hetero::column_counts", static_cast<std::size_t>(B.num_cols));
  const auto col = B.col_idx;
  Kokkos::parallel_for(
      "libra::hetero::count_columns",
      Kokkos::RangePolicy<Host>(0, static_cast<std::int64_t>(col.extent(0))),
      [=](const std::int64_t e) {
        Kokkos::atomic_add(&per_column(col(e)), std::uint64_t{1});
      });
  Kokkos::fence();
  std::vector<std::int64_t> starts{0};
  std::uint64_t in_block = 0;
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(B.num_cols); ++c) {
    const std::uint64_t n = per_column(c);
    if (n > room) {
      why =
          "its column " + std::to_string(c) + " holds " + std::to_string(n) + " entries";
      return {};
    }
    if (in_block + n > room) {
      starts.push_back(c);
      in_block = 0;
    }
    in_block += n;
  }
  starts.push_back(static_cast<std::int64_t>(B.num_cols));
  return starts;
}

// Row k of B restricted to columns [first, end), renumbered from 0.
template <class RowMap, class Col, class Val, class O>
struct ColumnRangeRows {
  RowMap row_map;
  Col col;
  Val val;
  O first, end;
  template <class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(const O k, Emit& emit) const {
    for (auto q = row_map(k); q < row_map(k + 1); ++q) {
      const O c = col(q);
      if (c >= first && c < end) emit(static_cast<O>(c - first), val(q));
    }
  }
};

// One block's C, read in place by the assembly.
template <class S, class O, class Off>
struct BlockRowsOf {
  const Off* row_map;
  const O* col;
  const S* val;
  O first;  // the block's first column in C
};

// Row i of C: the blocks' rows i side by side (host memory only).
template <class S, class O, class Off>
struct SideBySideRows {
  const BlockRowsOf<S, O, Off>* blocks;
  int count;
  template <class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(const O i, Emit& emit) const {
    for (int b = 0; b < count; ++b) {
      const BlockRowsOf<S, O, Off>& k = blocks[b];
      for (Off q = k.row_map[i]; q < k.row_map[i + 1]; ++q)
        emit(static_cast<O>(k.first + k.col[q]), k.val[q]);
    }
  }
};

// A block's stats added into the whole product's (R and K are set by the caller).
inline void add_block_stats(HeteroStats& all, const HeteroStats& part) {
  all.calibrated = all.calibrated || part.calibrated;
  all.device_only = all.device_only && part.device_only;
  all.host_only = all.host_only && part.host_only;
  all.kept_on_device = all.kept_on_device || part.kept_on_device;
  all.counted_first = all.counted_first || part.counted_first;
  all.counted_beside = all.counted_beside || part.counted_beside;
  all.out_of_core = all.out_of_core || part.out_of_core;
  all.download_chunks += part.download_chunks;
  all.products += part.products;
  all.device_products += part.device_products;
  all.host_products += part.host_products;
  all.device_rows += part.device_rows;
  all.host_rows += part.host_rows;
  all.device_panels += part.device_panels;
  all.panel_bytes = std::max(all.panel_bytes, part.panel_bytes);
  all.bytes_to_device += part.bytes_to_device;
  all.bytes_to_host += part.bytes_to_host;
  all.seconds_transfer += part.seconds_transfer;
  all.seconds_transfer_exposed += part.seconds_transfer_exposed;
  all.seconds_device_compute += part.seconds_device_compute;
  all.seconds_copy_out += part.seconds_copy_out;
  all.seconds_count += part.seconds_count;
  all.seconds_ranking += part.seconds_ranking;
  all.seconds_calibration += part.seconds_calibration;
  all.seconds_calibration_device += part.seconds_calibration_device;
  all.seconds_calibration_host += part.seconds_calibration_host;
  all.seconds_device += part.seconds_device;
  all.seconds_host += part.seconds_host;
  all.seconds_assemble += part.seconds_assemble;
}

}  // namespace libra::impl
