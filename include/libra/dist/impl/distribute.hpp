#pragma once
// Cutting the root's matrix into parts and sending each rank its part (MSREP
// Algorithms 2, 4, 6 over MPI). The root holds the whole matrix on its device;
// every rank ends with its part on its own device: the local offsets (pCSR,
// pCSC), its index arrays and values, plus the descriptor (nonzeros
// [b0, b1), lines [start, end), the start flag).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/dist/comm.hpp"
#include "libra/dist/impl/exchange.hpp"
#include "libra/dist/options.hpp"
#include "libra/format/impl/partial.hpp"
#include "libra/spmv/impl/common.hpp"

namespace libra::dist::impl {

template <class S, class O, class Off, class Mem>
struct LocalPart {
  int index = 0;
  std::int64_t b0 = 0, b1 = 0, start = 0, end = 0;
  bool flag = false;
  std::int64_t lines() const { return end - start; }
  std::int64_t nnz() const { return b1 - b0; }
  Kokkos::View<Off*, Mem> offsets;  // lines() + 1, local (pCSR, pCSC)
  Kokkos::View<O*, Mem> idx;        // pCSR: columns; pCSC, pCOO: rows
  Kokkos::View<O*, Mem> idx2;       // pCOO: columns
  Kokkos::View<S*, Mem> values;
};

// The root's matrix in the parts' format. COO is sorted by row, so its nonzeros
// are in CSR order and the CSR offsets cut it exactly as they cut the CSR.
template <class S, class O, class Off, class Mem>
struct Source {
  PartFormat format = PartFormat::csr;
  std::int64_t lines = 0;  // rows (csr, coo) or columns (csc)
  std::int64_t nnz = 0;
  Kokkos::View<const Off*, Mem> offsets;  // lines + 1
  Kokkos::View<const O*, Mem> idx, idx2;
  Kokkos::View<const S*, Mem> values;
};

// Where each part starts: bound, start and flag for parts 0..P (P: the end).
struct Cuts {
  std::vector<std::int64_t> bound, start, flag;
  std::int64_t begin(int i) const { return start[static_cast<std::size_t>(i)]; }
  std::int64_t end(int i) const {
    const std::size_t k = static_cast<std::size_t>(i) + 1;
    return start[k] + flag[k];
  }
};

constexpr int tag_offsets = 101, tag_idx = 102, tag_idx2 = 103, tag_values = 104;

template <class Exec, class Part>
void allocate_part(Part& p, PartFormat format) {
  using Mem = typename Exec::memory_space;
  const auto nz = static_cast<std::size_t>(p.nnz());
  const auto noinit = [](const std::string& label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, label, Mem());
  };
  if (format != PartFormat::coo) {
    p.offsets = decltype(p.offsets)(noinit("libra::dist::offsets"),
                                    static_cast<std::size_t>(p.lines()) + 1);
  }
  p.idx = decltype(p.idx)(noinit("libra::dist::idx"), nz);
  if (format == PartFormat::coo)
    p.idx2 = decltype(p.idx2)(noinit("libra::dist::idx2"), nz);
  p.values = decltype(p.values)(noinit("libra::dist::values"), nz);
}

// p_opt's local offsets, on this rank's device: the parent's offsets of the
// part's lines, clamped to its nonzeros and made relative to the first.
template <class Exec, class Part>
void make_local_offsets(const Exec& exec, const Part& p) {
  using Off = typename decltype(p.offsets)::non_const_value_type;
  const auto offsets = p.offsets;
  const Off b0 = static_cast<Off>(p.b0), b1 = static_cast<Off>(p.b1);
  Kokkos::parallel_for(
      "libra::dist::local_offsets",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(offsets.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t e) {
        Off o = offsets(e);
        o = o < b0 ? b0 : (o > b1 ? b1 : o);
        offsets(e) = o - b0;
      });
}

// dst(i, k) = src(i, k), src a vector or a block of any layout. (A free
// function: nvcc refuses device lambdas in private member functions.)
template <class Exec, class Dst, class Src>
void copy_block(const Exec& exec, const Dst& dst, const Src& src) {
  const std::int64_t K = static_cast<std::int64_t>(dst.extent(1));
  Kokkos::parallel_for(
      "libra::dist::copy_x",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(dst.extent(0)) * K),
      KOKKOS_LAMBDA(const std::int64_t e) {
        dst(e / K, e % K) = libra::impl::spmv_at(src, e / K, e % K);
      });
}

// Root: part i's arrays into `to` (the root's own part) or to its rank.
// `offsets`: the part's local offsets (baseline, p) or the parent's (p_opt).
template <class Exec, class Src, class Part, class OffsetView>
void ship_part(Exchange<Exec>& ex, const Exec& exec, const Src& src, const Cuts& cuts,
               const OffsetView& offsets, int i, int rank, Part* to) {
  const std::size_t k = static_cast<std::size_t>(i);
  const auto nz = Kokkos::make_pair(static_cast<std::size_t>(cuts.bound[k]),
                                    static_cast<std::size_t>(cuts.bound[k + 1]));
  const auto move = [&](const auto& from, const auto& dest, int tag) {
    if (to) {
      Kokkos::deep_copy(exec, dest, from);
    } else {
      ex.send(from, rank, tag);
    }
  };
  if (src.format != PartFormat::coo) {
    move(offsets, to ? to->offsets : decltype(to->offsets)(), tag_offsets);
  }
  move(Kokkos::subview(src.idx, nz), to ? to->idx : decltype(to->idx)(), tag_idx);
  if (src.format == PartFormat::coo) {
    move(Kokkos::subview(src.idx2, nz), to ? to->idx2 : decltype(to->idx2)(), tag_idx2);
  }
  move(Kokkos::subview(src.values, nz), to ? to->values : decltype(to->values)(),
       tag_values);
}

template <class Exec, class Part>
void receive_part(Exchange<Exec>& ex, Part& p, PartFormat format) {
  if (format != PartFormat::coo) ex.recv(p.offsets, 0, tag_offsets);
  ex.recv(p.idx, 0, tag_idx);
  if (format == PartFormat::coo) ex.recv(p.idx2, 0, tag_idx2);
  ex.recv(p.values, 0, tag_values);
}

}  // namespace libra::dist::impl
