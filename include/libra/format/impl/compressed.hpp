#pragma once
// Kernels on "compressed" storage (offsets over a major dimension plus minor
// indices), shared by CSR and CSC: expanding offsets to per-entry major indices,
// rebuilding offsets from sorted major indices, and the transpose.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/radix_sort.hpp"
#include "libra/algorithms/scan.hpp"
#include "libra/algorithms/search.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

// Index of the last offset <= pos, i.e. the major index owning entry `pos`.
template <class OffsetView, class Ordinal>
KOKKOS_INLINE_FUNCTION Ordinal owner_of(const OffsetView& offsets, Ordinal n_major,
                                        std::uint64_t pos) {
  Ordinal lo = 0, hi = n_major;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const Ordinal mid = lo + (hi - lo) / 2;
    if (static_cast<std::uint64_t>(offsets(mid)) <= pos) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The kernels below are named functors, not lambdas: every reader and format
// conversion instantiates them alike (see algorithms/scan.hpp).
template <class OffsetView, class IndexView>
struct ExpandOffsetsOp {
  OffsetView offsets;
  IndexView major;
  typename IndexView::non_const_value_type n_major;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t p) const {
    major(p) = owner_of(offsets, n_major, p);
  }
};

template <class IndexView, class OffsetView>
struct OffsetsFromSortedOp {
  IndexView sorted_major;
  OffsetView offsets;
  std::size_t nnz;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const {
    // The first entry with major >= i.
    const std::int64_t first =
        lower_bound_in<std::size_t>(sorted_major, 0, static_cast<std::int64_t>(nnz), i);
    offsets(i) = static_cast<typename OffsetView::non_const_value_type>(first);
  }
};

template <class MinorView, class Keys32, class Keys64, class SourceView>
struct TransposeKeysOp {
  MinorView minor_in;
  Keys32 keys32;
  Keys64 keys64;
  SourceView source;
  bool narrow;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t p) const {
    if (narrow) {
      keys32(p) = static_cast<std::uint32_t>(minor_in(p));
    } else {
      keys64(p) = static_cast<std::uint64_t>(minor_in(p));
    }
    source(p) = static_cast<typename SourceView::non_const_value_type>(p);
  }
};

template <class SourceView, class OffsetsIn, class MajorOut, class ValuesIn,
          class ValuesOut, class Ordinal>
struct TransposeGatherOp {
  SourceView source;
  OffsetsIn offsets_in;
  MajorOut major_out;
  ValuesIn values_in;
  ValuesOut values_out;
  Ordinal n_major;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t p) const {
    const std::uint64_t s = static_cast<std::uint64_t>(source(p));
    major_out(p) = owner_of(offsets_in, n_major, s);
    values_out(p) = values_in(s);
  }
};

// major(p) = the row (for CSR) of every entry p. A binary search per entry keeps
// the work even however skewed the row lengths are.
template <class Exec, class OffsetView, class IndexView>
void expand_offsets(const Exec& exec, const OffsetView& offsets, const IndexView& major) {
  using Ordinal = typename IndexView::non_const_value_type;
  const Ordinal n_major = static_cast<Ordinal>(offsets.extent(0) - 1);
  Kokkos::parallel_for("libra::format::expand_offsets",
                       Kokkos::RangePolicy<Exec>(exec, 0, major.extent(0)),
                       ExpandOffsetsOp<OffsetView, IndexView>{offsets, major, n_major});
}

// offsets(i) = number of entries whose (sorted) major index is < i.
template <class Exec, class IndexView, class OffsetView>
void offsets_from_sorted(const Exec& exec, const IndexView& sorted_major,
                         const OffsetView& offsets) {
  Kokkos::parallel_for("libra::format::offsets_from_sorted",
                       Kokkos::RangePolicy<Exec>(exec, 0, offsets.extent(0)),
                       OffsetsFromSortedOp<IndexView, OffsetView>{
                           sorted_major, offsets, sorted_major.extent(0)});
}

// Keys of width `bits` for indices in [0, n): 32-bit keys sort faster when they fit.
inline int key_bits_for(std::uint64_t n) {
  return n > 1 ? bit_width(n - 1) : 1;
}

// The transpose of a compressed matrix (n_major x n_minor): offsets over the minor
// dimension, the major index of each entry, its value, and optionally for each
// output entry the input position it came from (`source`). A stable sort by minor
// index keeps the major indices ascending within each output line.
template <class Exec, class Ordinal, class OffsetsIn, class IndexIn, class ValuesIn,
          class OffsetsOut, class IndexOut, class ValuesOut, class SourceView>
void transpose_compressed(const Exec& exec, Ordinal n_major, Ordinal n_minor,
                          const OffsetsIn& offsets_in, const IndexIn& minor_in,
                          const ValuesIn& values_in, const OffsetsOut& offsets_out,
                          const IndexOut& major_out, const ValuesOut& values_out,
                          const SourceView& source,
                          const Temps<typename Exec::memory_space>& temps = {}) {
  const std::size_t nnz = minor_in.extent(0);
  // Sort positions by minor index; the permutation is the source map.
  Kokkos::View<std::uint32_t*, typename Exec::memory_space> keys32;
  Kokkos::View<std::uint64_t*, typename Exec::memory_space> keys64;
  const bool narrow = static_cast<std::uint64_t>(n_minor) <= 0xffffffffULL;
  if (narrow) {
    keys32 = temps.template view<std::uint32_t>("libra::transpose::keys", nnz);
  } else {
    keys64 = temps.template view<std::uint64_t>("libra::transpose::keys", nnz);
  }
  Kokkos::parallel_for(
      "libra::transpose::keys", Kokkos::RangePolicy<Exec>(exec, 0, nnz),
      TransposeKeysOp<IndexIn, decltype(keys32), decltype(keys64), SourceView>{
          minor_in, keys32, keys64, source, narrow});
  const int bits = key_bits_for(static_cast<std::uint64_t>(n_minor));
  if (narrow) {
    radix_sort_pairs(exec, keys32, source, bits, temps);
  } else {
    radix_sort_pairs(exec, keys64, source, bits, temps);
  }
  // Major index of each output entry = owner of its source position.
  Kokkos::parallel_for(
      "libra::transpose::gather", Kokkos::RangePolicy<Exec>(exec, 0, nnz),
      TransposeGatherOp<SourceView, OffsetsIn, IndexOut, ValuesIn, ValuesOut,
                        decltype(n_major)>{source, offsets_in, major_out, values_in,
                                           values_out, n_major});
  if (narrow) {
    offsets_from_sorted(exec, keys32, offsets_out);
  } else {
    offsets_from_sorted(exec, keys64, offsets_out);
  }
}

}  // namespace libra::impl
