#pragma once
// Banded and chosen-diagonal matrices built directly as CSR: row lengths are
// known from the structure (and the thinning draws), so no sort is needed.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/format/impl/compressed.hpp"
#include "libra/format/impl/row_builder.hpp"
#include "libra/generate/impl/counter_rng.hpp"

namespace libra::impl {

inline constexpr std::uint64_t structured_value_stream = 0x44494147;  // "DIAG"
inline constexpr std::uint64_t structured_keep_stream = 0x44494147 + 1;

// The random word of position (i, j) under `key`: a sequence per row, an element
// per column, so an entry's value does not depend on which other entries exist.
KOKKOS_INLINE_FUNCTION std::uint64_t position_word(std::uint64_t key, std::uint64_t i,
                                                   std::uint64_t j) {
  return rng::draw(rng::draw(key, i), j);
}

// Columns [first, last] of row i in a band of kl sub- and ku superdiagonals;
// empty when last < first. 64-bit so i + ku cannot overflow a narrow Ordinal.
KOKKOS_INLINE_FUNCTION void band_columns(std::int64_t i, std::int64_t cols,
                                         std::int64_t kl, std::int64_t ku,
                                         std::int64_t& first, std::int64_t& last) {
  first = i - kl > 0 ? i - kl : 0;
  last = i + ku < cols - 1 ? i + ku : cols - 1;
}

// band_csr's kernels (named functors: see algorithms/scan.hpp).
template <class Counts>
struct BandCountOp {
  Counts count;
  std::int64_t cols, kl, ku;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    std::int64_t first, last;
    band_columns(i, cols, kl, ku, first, last);
    count(i) = last >= first ? static_cast<std::uint64_t>(last - first + 1) : 0;
  }
};

// One thread per entry (its row found by binary search) so wide bands balance.
template <class S, class O, class RowMap>
struct BandFillOp {
  RowMap row_map;
  Kokkos::View<O*, typename RowMap::memory_space> c;
  Kokkos::View<S*, typename RowMap::memory_space> v;
  O n_rows;
  std::int64_t cols, kl, ku;
  std::uint64_t key;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t p) const {
    const O i = owner_of(row_map, n_rows, p);
    std::int64_t first, last;
    band_columns(i, cols, kl, ku, first, last);
    const std::int64_t j =
        first + static_cast<std::int64_t>(p - static_cast<std::uint64_t>(row_map(i)));
    c(p) = static_cast<O>(j);
    v(p) = rng::signed_magnitude<S>(position_word(key, i, j));
  }
};

template <class S, class O, class Off, class Exec>
CsrArrays<S, O, Off, typename Exec::memory_space> band_csr(
    const Exec& exec, std::int64_t rows, std::int64_t cols, std::int64_t kl,
    std::int64_t ku, std::uint64_t seed) {
  using mem = typename Exec::memory_space;
  Kokkos::View<std::uint64_t*, mem> count(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::generate::banded::count"),
      static_cast<std::size_t>(rows));
  Kokkos::parallel_for("libra::generate::banded::count",
                       Kokkos::RangePolicy<Exec>(exec, 0, rows),
                       BandCountOp<decltype(count)>{count, cols, kl, ku});
  const auto out = allocate_csr_arrays<S, O>(
      scan_row_counts<Off>(exec, count, "number of band entries"));
  const auto row_map = out.row_map;
  const auto c = out.col;
  const auto v = out.val;
  const std::uint64_t key = rng::stream_key(seed, structured_value_stream);
  const O n_rows = static_cast<O>(rows);
  Kokkos::parallel_for(
      "libra::generate::banded::fill",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::uint64_t>(c.extent(0))),
      BandFillOp<S, O, decltype(row_map)>{row_map, c, v, n_rows, cols, kl, ku, key});
  return out;
}

// The columns i + d of row i for the sorted diagonal offsets d that lie in the
// matrix and survive thinning. A functor rather than a lambda so that kernels
// can call it with their own callbacks on every backend.
template <class OffsetsView>
struct KeptColumns {
  OffsetsView diagonals;
  std::int64_t cols;
  std::uint64_t keep_key;
  std::uint64_t keep_threshold;

  // Calls f(j) for each kept column j of row i, ascending.
  template <class F>
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, F&& f) const {
    const bool keep_all = keep_threshold >= (std::uint64_t(1) << 53);
    for (std::size_t k = 0; k < diagonals.extent(0); ++k) {
      const std::int64_t j = i + diagonals(k);
      if (j < 0 || j >= cols) continue;
      if (keep_all || rng::bernoulli(position_word(keep_key, i, j), keep_threshold)) f(j);
    }
  }
};

// Row i's kept entries, each valued by its position.
template <class S, class OffsetsView>
struct KeptEntries {
  KeptColumns<OffsetsView> columns;
  std::uint64_t value_key;
  template <class O, class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O i, Emit& emit) const {
    columns(i, [&](std::int64_t j) {
      emit(static_cast<O>(j), rng::signed_magnitude<S>(position_word(value_key, i, j)));
    });
  }
};

// Entries (i, i + d) for the sorted diagonal offsets d, each kept with the
// probability encoded by keep_threshold (see rng::bernoulli_threshold).
template <class S, class O, class Off, class Exec, class OffsetsView>
CsrArrays<S, O, Off, typename Exec::memory_space> diagonal_csr(
    const Exec& exec, std::int64_t rows, std::int64_t cols, const OffsetsView& diagonals,
    std::uint64_t keep_threshold, std::uint64_t seed) {
  const std::uint64_t keep_key = rng::stream_key(seed, structured_keep_stream);
  const KeptEntries<S, OffsetsView> entries{
      {diagonals, cols, keep_key, keep_threshold},
      rng::stream_key(seed, structured_value_stream)};
  return build_csr_arrays<S, O, Off>(exec, static_cast<O>(rows), entries,
                                     "number of diagonal entries");
}

}  // namespace libra::impl
