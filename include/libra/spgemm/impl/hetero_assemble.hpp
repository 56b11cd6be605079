#pragma once
// C of heterogeneous SpGEMM from its pieces: each piece holds C's rows for a
// range of the affinity ranking; row p of a piece is row rows(begin + p) of C.
// Count, scan, copy, on a host space.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "libra/format/impl/row_builder.hpp"
#include "libra/spgemm/impl/hetero_split.hpp"

namespace libra::impl {

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
    Kokkos::parallel_for(
        "libra::spgemm::hetero::copy_rows",
        Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>>(
            exec, 0, piece.end - piece.begin),
        [=](const std::size_t p) {
          const auto at = row_map(rows(first + p));
          const auto len = rm(p + 1) - rm(p);
          std::memcpy(col.data() + at, pc.data() + rm(p), sizeof(*pc.data()) * len);
          std::memcpy(val.data() + at, pv.data() + rm(p), sizeof(*pv.data()) * len);
        });
  }
}

// C's arrays in host memory (rows without products are empty).
template <class S, class O, class Off, class Exec, class DevicePieces, class HostPieces>
CsrArrays<S, O, Off, Kokkos::HostSpace> assemble_pieces(const Exec& exec,
                                                        const HeteroOrder& order,
                                                        std::size_t num_rows,
                                                        const DevicePieces& device,
                                                        const HostPieces& host) {
  Kokkos::View<Off*, Kokkos::HostSpace> lengths("libra::hetero::C::lengths", num_rows);
  scatter_row_lengths(exec, order, device, lengths);
  scatter_row_lengths(exec, order, host, lengths);
  exec.fence();
  const auto offsets = scan_row_counts<Off>(exec, lengths, "spgemm_hetero: nnz(C)");
  auto C = allocate_csr_arrays<S, O>(offsets);
  copy_piece_rows(exec, order, device, C);
  copy_piece_rows(exec, order, host, C);
  exec.fence();
  return C;
}

}  // namespace libra::impl
