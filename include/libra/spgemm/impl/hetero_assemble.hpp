#pragma once
// C of heterogeneous SpGEMM from its pieces: each piece holds C's rows for a
// range of the affinity ranking; row p of a piece is row rows(begin + p) of C.
// Count, scan, copy, on a host space. Pieces in host memory are copied; pieces
// kept on the device come down into their rows of C (hetero_download.hpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "libra/core/dynamic_range.hpp"
#include "libra/format/impl/row_builder.hpp"
#include "libra/spgemm/impl/hetero_download.hpp"
#include "libra/spgemm/impl/hetero_split.hpp"
#include "libra/util/huge_pages.hpp"

namespace libra::impl {

// A device piece's row offsets in host memory, beside its range.
template <class Off>
struct KeptOffsets {
  std::size_t begin = 0, end = 0;
  Kokkos::View<const Off*, Kokkos::HostSpace> row_map;
};

// The offsets of the pieces kept on the device (`Kept` of DeviceSide).
template <class Off, class Kept>
std::vector<KeptOffsets<Off>> kept_offsets(const std::vector<Kept>& kept) {
  std::vector<KeptOffsets<Off>> out;
  for (const auto& k : kept) {
    Kokkos::View<Off*, Kokkos::HostSpace> rm(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::kept::row_map"),
        k.C.row_map.extent(0));
    Kokkos::deep_copy(rm, k.C.row_map);
    out.push_back(KeptOffsets<Off>{k.range.first, k.range.second, rm});
  }
  return out;
}

template <class Exec, class Off, class Pieces>
void scatter_row_lengths(const Exec& exec, const HeteroOrder& order, const Pieces& pieces,
                         const Kokkos::View<Off*, Kokkos::HostSpace>& lengths) {
  const auto rows = order.rows;
  for (const auto& piece : pieces) {
    const auto rm = piece.row_map;
    const auto first = piece.begin;
    Kokkos::parallel_for(
        "libra::spgemm::hetero::row_lengths",
        Kokkos::RangePolicy<Exec>(exec, 0, piece.end - piece.begin),
        [=](const std::size_t p) { lengths(rows(first + p)) = rm(p + 1) - rm(p); });
  }
}

template <class Exec, class Arrays, class Pieces>
void copy_piece_rows(const Exec& exec, const HeteroOrder& order, const Pieces& pieces,
                     const Arrays& C) {
  const auto rows = order.rows;
  const auto row_map = C.row_map;
  const auto col = C.col;
  const auto val = C.val;
  for (const auto& piece : pieces) {
    const auto rm = piece.row_map;
    const auto pc = piece.col;
    const auto pv = piece.val;
    const auto first = piece.begin;
    dynamic_for(
        "libra::spgemm::hetero::copy_rows", exec, 0,
        static_cast<std::int64_t>(piece.end - piece.begin), 0, [=](const std::int64_t p) {
          const auto at = row_map(rows(first + p));
          const auto len = rm(p + 1) - rm(p);
          std::memcpy(col.data() + at, pc.data() + rm(p), sizeof(*pc.data()) * len);
          std::memcpy(val.data() + at, pv.data() + rm(p), sizeof(*pv.data()) * len);
        });
  }
}

// C's arrays in host memory (rows without products are empty). `kept`: pieces
// on the device (DeviceSide::Kept), brought down on `down` in chunks of
// `chunk` entries.
template <class S, class O, class Off, class Exec, class DevicePieces, class HostPieces,
          class Kept, class DownExec>
CsrArrays<S, O, Off, Kokkos::HostSpace> assemble_pieces(
    const Exec& exec, const HeteroOrder& order, std::size_t num_rows,
    const DevicePieces& device, const HostPieces& host, const std::vector<Kept>& kept,
    const DownExec& down, std::size_t chunk, DownloadTally& tally) {
  const auto kept_rm = kept_offsets<Off>(kept);
  Kokkos::View<Off*, Kokkos::HostSpace> lengths("libra::hetero::C::lengths", num_rows);
  scatter_row_lengths(exec, order, device, lengths);
  scatter_row_lengths(exec, order, host, lengths);
  scatter_row_lengths(exec, order, kept_rm, lengths);
  exec.fence();
  const auto offsets = scan_row_counts<Off>(exec, lengths, "spgemm_hetero: nnz(C)");
  auto C = allocate_csr_arrays<S, O>(offsets);
  advise_huge_pages(C.col);  // first touched by the copies below
  advise_huge_pages(C.val);
  copy_piece_rows(exec, order, device, C);
  copy_piece_rows(exec, order, host, C);
  const auto rows = order.rows;
  const auto row_map = C.row_map;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::size_t first = kept_rm[k].begin;
    download_rows(
        down, exec, kept_rm[k].row_map, kept[k].C.col_idx, kept[k].C.values, C.col.data(),
        C.val.data(), [=](const std::int64_t p) { return row_map(rows(first + p)); },
        false, chunk, tally);
  }
  exec.fence();
  return C;
}

}  // namespace libra::impl
