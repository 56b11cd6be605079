#pragma once
// Banded and chosen-diagonal matrices built directly as CSR: row lengths are
// known from the structure (and the thinning draws), so no sort is needed.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/format/impl/compressed.hpp"
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

template <class Exec, class RowMap, class IndexView, class ValueView>
void band_csr(const Exec& exec, std::int64_t rows, std::int64_t cols, std::int64_t kl,
              std::int64_t ku, std::uint64_t seed, const RowMap& row_map,
              IndexView& col_idx, ValueView& values) {
  using Ordinal = typename IndexView::non_const_value_type;
  using S = typename ValueView::non_const_value_type;
  using mem = typename Exec::memory_space;
  Kokkos::View<std::uint64_t*, mem> count(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::generate::banded::count"),
      static_cast<std::size_t>(rows));
  Kokkos::parallel_for(
      "libra::generate::banded::count", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        std::int64_t first, last;
        band_columns(i, cols, kl, ku, first, last);
        count(i) = last >= first ? static_cast<std::uint64_t>(last - first + 1) : 0;
      });
  const std::uint64_t nnz = exclusive_scan(exec, "libra::generate::banded::row_map",
                                           count, row_map, "number of band entries");
  col_idx = IndexView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::col_idx"), nnz);
  values = ValueView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::values"), nnz);
  const IndexView c = col_idx;
  const ValueView v = values;
  const std::uint64_t key = rng::stream_key(seed, structured_value_stream);
  const Ordinal n_rows = static_cast<Ordinal>(rows);
  // One thread per entry (its row found by binary search) so wide bands balance.
  Kokkos::parallel_for(
      "libra::generate::banded::fill", Kokkos::RangePolicy<Exec>(exec, 0, nnz),
      KOKKOS_LAMBDA(const std::uint64_t p) {
        const Ordinal i = owner_of(row_map, n_rows, p);
        std::int64_t first, last;
        band_columns(i, cols, kl, ku, first, last);
        const std::int64_t j =
            first + static_cast<std::int64_t>(p - static_cast<std::uint64_t>(row_map(i)));
        c(p) = static_cast<Ordinal>(j);
        v(p) = rng::signed_magnitude<S>(position_word(key, i, j));
      });
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

// Entries (i, i + d) for the sorted diagonal offsets d, each kept with the
// probability encoded by keep_threshold (see rng::bernoulli_threshold).
template <class Exec, class OffsetsView, class RowMap, class IndexView, class ValueView>
void diagonal_csr(const Exec& exec, std::int64_t rows, std::int64_t cols,
                  const OffsetsView& diagonals, std::uint64_t keep_threshold,
                  std::uint64_t seed, const RowMap& row_map, IndexView& col_idx,
                  ValueView& values) {
  using Ordinal = typename IndexView::non_const_value_type;
  using Offset = typename RowMap::non_const_value_type;
  using S = typename ValueView::non_const_value_type;
  using mem = typename Exec::memory_space;
  const std::uint64_t value_key = rng::stream_key(seed, structured_value_stream);
  const std::uint64_t keep_key = rng::stream_key(seed, structured_keep_stream);
  const KeptColumns<OffsetsView> kept_columns{diagonals, cols, keep_key, keep_threshold};
  Kokkos::View<std::uint64_t*, mem> count(
      Kokkos::view_alloc(Kokkos::WithoutInitializing,
                         "libra::generate::diagonals::count"),
      static_cast<std::size_t>(rows));
  Kokkos::parallel_for(
      "libra::generate::diagonals::count", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        std::uint64_t n = 0;
        kept_columns(i, [&](std::int64_t) { ++n; });
        count(i) = n;
      });
  const std::uint64_t nnz = exclusive_scan(exec, "libra::generate::diagonals::row_map",
                                           count, row_map, "number of diagonal entries");
  col_idx = IndexView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::col_idx"), nnz);
  values = ValueView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::values"), nnz);
  const IndexView c = col_idx;
  const ValueView v = values;
  Kokkos::parallel_for(
      "libra::generate::diagonals::fill", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        Offset p = row_map(i);
        kept_columns(i, [&](std::int64_t j) {
          c(p) = static_cast<Ordinal>(j);
          v(p) = rng::signed_magnitude<S>(position_word(value_key, i, j));
          ++p;
        });
      });
}

}  // namespace libra::impl
