#pragma once
// The accumulator of host spaces: each thread (picked by a UniqueToken) owns dense
// arrays over C's columns, and rows are scheduled dynamically, heaviest first.
//   count:   a mark per column (the row that last saw it) counts distinct columns;
//   fill:    the same, writing each new column into C's row and setting its bit
//            in a per-thread bitmap, then reading the bitmap in column order
//            (sorted for O(n + range/64)); rows spread thin over a wide range
//            are sorted with std::sort instead;
//   numeric: the position of each column of C's row, then one add per product
//            straight into C's values: no sort, no search;
//   fill with values (a one-shot product): the fill, summing values in a dense
//            array as it goes, then read back along the sorted row.
// Launched on host spaces only (if constexpr at the call), so the operators are
// plain host code and use std::sort.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "libra/spgemm/impl/row_products.hpp"

namespace libra::impl {

template <class Exec, class S, class O, class Off>
struct HostDenseRows {
  using mem = typename Exec::memory_space;
  enum class Phase { count, fill, numeric, fill_values };

  RowProducts<S, O, Off, mem> products;
  Kokkos::View<const std::uint32_t*, mem> order;  // rows, heaviest first
  // thread x columns. Count and fill: the last row (+ tag) that marked a
  // column; numeric: the column's position in C's row.
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, mem> marks;
  Kokkos::Experimental::UniqueToken<Exec> token;
  Phase phase = Phase::count;
  std::int64_t tag = 0;  // added to row ids in the marks, so phases never collide
  bool sort = true;
  std::uint64_t columns = 0;
  Kokkos::View<std::uint64_t*, mem> unique;  // count
  Kokkos::View<const Off*, mem> c_row_map;   // fill, numeric
  Kokkos::View<O*, mem> c_col;               // fill (written), numeric (read)
  Kokkos::View<S*, mem> c_val;               // numeric, fill_values
  Kokkos::View<S**, Kokkos::LayoutRight, mem> sums;  // fill_values: thread x columns, 0
  // fill: thread x column words, 0 between rows.
  Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, mem> seen;

  // Sorts the row's distinct columns out[0, n), all in [lo, hi] and set in
  // `bits`, and leaves `bits` clear.
  static void sort_row(O* out, std::uint64_t n, O lo, O hi, std::uint64_t* bits) {
    const std::uint64_t first = static_cast<std::uint64_t>(lo) >> 6;
    const std::uint64_t last = static_cast<std::uint64_t>(hi) >> 6;
    if (last - first + 1 <= 4 * n) {
      std::uint64_t w = 0;
      for (std::uint64_t word = first; word <= last; ++word) {
        std::uint64_t x = bits[word];
        bits[word] = 0;
        while (x) {
          out[w++] = static_cast<O>(word * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x)));
          x &= x - 1;
        }
      }
    } else {
      std::sort(out, out + n);
      for (std::uint64_t t = 0; t < n; ++t) bits[static_cast<std::uint64_t>(out[t]) >> 6] = 0;
    }
  }

  void operator()(const std::int64_t r) const {
    const std::int64_t i = order(r);
    const int id = token.acquire();
    std::int64_t* mark = &marks(id, 0);
    const std::int64_t me = tag + i;
    if (phase == Phase::count) {
      std::uint64_t n = 0;
      products.for_thread(i, [&](const O j, Off, Off) {
        if (mark[j] != me) {
          mark[j] = me;
          ++n;
        }
      });
      unique(i) = n;
    } else if (phase == Phase::fill || phase == Phase::fill_values) {
      const Off base = c_row_map(i);
      O* out = c_col.data() + base;
      std::uint64_t n = 0;
      O lo = static_cast<O>(columns), hi = 0;
      std::uint64_t* bits = sort ? &seen(id, 0) : nullptr;
      const auto first_seen = [&](const O j) {
        mark[j] = me;
        out[n++] = j;
        if (bits) bits[static_cast<std::uint64_t>(j) >> 6] |= std::uint64_t(1) << (j & 63);
        lo = j < lo ? j : lo;
        hi = j > hi ? j : hi;
      };
      if (phase == Phase::fill) {
        products.for_thread(i, [&](const O j, Off, Off) {
          if (mark[j] != me) first_seen(j);
        });
      } else {
        S* sum = &sums(id, 0);
        products.for_thread(i, [&](const O j, const Off p, const Off q) {
          if (mark[j] != me) first_seen(j);
          sum[j] += products.value(p, q);
        });
      }
      if (bits && n > 0) sort_row(out, n, lo, hi, bits);
      if (phase == Phase::fill_values) {
        S* sum = &sums(id, 0);
        S* val = c_val.data() + base;
        for (std::uint64_t t = 0; t < n; ++t) {
          val[t] = sum[out[t]];
          sum[out[t]] = S(0);
        }
      }
    } else {
      const Off base = c_row_map(i);
      const Off end = c_row_map(i + 1);
      S* val = c_val.data();
      for (Off p = base; p < end; ++p) {
        mark[c_col(p)] = p;
        val[p] = S(0);
      }
      products.for_thread(
          i, [&](const O j, const Off p, const Off q) { val[mark[j]] += products.value(p, q); });
    }
    token.release(id);
  }
};

}  // namespace libra::impl
