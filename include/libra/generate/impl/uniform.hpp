#pragma once
// Uniformly placed random entries: one thread per entry, each a pure function of
// (seed, entry index).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/generate/impl/counter_rng.hpp"

namespace libra::impl {

inline constexpr std::uint64_t uniform_entry_stream = 0x554e4946;  // "UNIF"

// Entry e draws the sequence seeded with draw(key, e): element 0 is its row,
// 1 its column, 2 its value (uniform in [-1, 1)).
template <class Exec, class IndexView, class ValueView>
void uniform_entries(const Exec& exec, std::uint64_t seed, std::uint64_t num_rows,
                     std::uint64_t num_cols, const IndexView& rows, const IndexView& cols,
                     const ValueView& vals) {
  using Ordinal = typename IndexView::non_const_value_type;
  using S = typename ValueView::non_const_value_type;
  const std::uint64_t key = rng::stream_key(seed, uniform_entry_stream);
  Kokkos::parallel_for(
      "libra::generate::uniform::entries",
      Kokkos::RangePolicy<Exec>(exec, 0, rows.extent(0)),
      KOKKOS_LAMBDA(const std::uint64_t e) {
        const std::uint64_t seq = rng::draw(key, e);
        rows(e) = static_cast<Ordinal>(rng::below(rng::draw(seq, 0), num_rows));
        cols(e) = static_cast<Ordinal>(rng::below(rng::draw(seq, 1), num_cols));
        vals(e) = rng::uniform_signed<S>(rng::draw(seq, 2));
      });
}

}  // namespace libra::impl
