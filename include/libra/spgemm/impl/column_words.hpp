#pragma once
// B's pattern as 64-column words: each row of B becomes runs of (word, mask),
// word = column / 64 and mask the row's columns in that word. The host
// accumulators OR a run into a per-thread bitmap in one step instead of setting
// one bit per product: on FEM-like matrices a row of B spans few words (bcsstk13:
// a tenth of its nonzeros), so C's pattern costs a tenth of the products; and
// within one run list the words differ, so the ORs carry no dependency from one
// to the next. Rows need not be sorted: a word that comes back later in a row
// opens another run, which the OR makes harmless.
//
// `raw` views visit B's own columns as one-bit runs without building anything:
// used where compression would not pay (a ratio from the count pass).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

template <class O, class Off, class Mem>
struct ColumnWords {
  Kokkos::View<const Off*, Mem> row_map;  // runs of row k: [row_map(k), row_map(k+1))
  Kokkos::View<const O*, Mem> word;       // compressed: the run's word
  Kokkos::View<const std::uint64_t*, Mem> mask;
  Kokkos::View<const O*, Mem> col;  // raw: B's columns, one bit each
  bool packed = false;              // word/mask (true) or col (false)

  // Visits the runs of row k as f(word, mask). (The bounds are read once: f's
  // stores into 64-bit words may alias 64-bit offsets, so a bound read in the
  // loop was read again after every store.)
  template <bool Packed, class F>
  void for_runs(const O k, const F& f) const {
    for (Off q = row_map(k), q1 = row_map(k + 1); q < q1; ++q) {
      if constexpr (Packed) {
        f(static_cast<std::uint64_t>(word(q)), mask(q));
      } else {
        const auto c = static_cast<std::uint64_t>(col(q));
        f(c >> 6, std::uint64_t(1) << (c & 63));
      }
    }
  }
};

// B's runs per row: the number of times the word changes along the row; their
// sum in `total`.
template <class Exec, class Csr>
Kokkos::View<typename Csr::offset_type*, typename Exec::memory_space> column_word_counts(
    const Exec& exec, const Csr& B, const Temps<typename Exec::memory_space>& temps,
    std::uint64_t& total) {
  using Off = typename Csr::offset_type;
  const std::size_t n = static_cast<std::size_t>(B.num_rows);
  auto runs = temps.template view<Off>("libra::spgemm::words::runs", n + 1);
  const auto rm = B.row_map;
  const auto col = B.col_idx;
  Kokkos::parallel_reduce(
      "libra::spgemm::words::count", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t k, std::uint64_t& sum) {
        Off c = 0;
        std::uint64_t last = ~std::uint64_t(0);
        for (Off q = rm(k), q1 = rm(k + 1); q < q1; ++q) {
          const std::uint64_t w = static_cast<std::uint64_t>(col(q)) >> 6;
          c += w != last;
          last = w;
        }
        runs(k) = c;
        sum += static_cast<std::uint64_t>(c);
      },
      total);
  return runs;
}

// Packs B's rows into runs when they number at most `max_ratio` of B's
// nonzeros (1: always, 0: never); otherwise returns raw runs over B's own
// columns. The arrays come from `temps` (the caller's frame).
template <class Exec, class Csr>
ColumnWords<typename Csr::ordinal_type, typename Csr::offset_type,
            typename Exec::memory_space>
column_words(const Exec& exec, const Csr& B, double max_ratio,
             const Temps<typename Exec::memory_space>& temps) {
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  ColumnWords<O, Off, mem> w;
  const std::size_t n = static_cast<std::size_t>(B.num_rows);
  const auto nnz = static_cast<std::uint64_t>(B.nnz());
  if (max_ratio <= 0 || nnz == 0) {
    w.row_map = B.row_map;
    w.col = B.col_idx;
    return w;
  }
  std::uint64_t total = 0;
  const auto runs = column_word_counts(exec, B, temps, total);
  // Rows stay unpacked without a scan (which cost as much as the count).
  if (static_cast<double>(total) > max_ratio * static_cast<double>(nnz)) {
    w.row_map = B.row_map;
    w.col = B.col_idx;
    return w;
  }
  auto row_map = temps.template view<Off>("libra::spgemm::words::row_map", n + 1);
  exclusive_scan(exec, "libra::spgemm::words::scan",
                 Kokkos::subview(runs, Kokkos::make_pair(std::size_t(0), n)), row_map,
                 "B's column words");
  auto word = temps.template view<O>("libra::spgemm::words::word", total);
  auto mask = temps.template view<std::uint64_t>("libra::spgemm::words::mask", total);
  const auto rm = B.row_map;
  const auto col = B.col_idx;
  // A run's mask builds in a register and is stored once, when the word
  // changes, and the row's bounds are read once: an OR into memory per nonzero
  // read the row's end again after each store (both 64-bit), which stalled on
  // it (9% of fe_4elt2's call on 2 cores, most of it in that compare).
  Kokkos::parallel_for(
      "libra::spgemm::words::fill", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t k) {
        const Off q0 = rm(k), q1 = rm(k + 1);
        if (q0 == q1) return;
        Off r = row_map(k);
        auto c = static_cast<std::uint64_t>(col(q0));
        std::uint64_t last = c >> 6;
        std::uint64_t m = std::uint64_t(1) << (c & 63);
        for (Off q = q0 + 1; q < q1; ++q) {
          c = static_cast<std::uint64_t>(col(q));
          if ((c >> 6) != last) {
            word(r) = static_cast<O>(last);
            mask(r++) = m;
            last = c >> 6;
            m = 0;
          }
          m |= std::uint64_t(1) << (c & 63);
        }
        word(r) = static_cast<O>(last);
        mask(r) = m;
      });
  w.row_map = row_map;
  w.word = word;
  w.mask = mask;
  w.packed = true;
  return w;
}

}  // namespace libra::impl
