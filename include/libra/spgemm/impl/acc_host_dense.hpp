#pragma once
// The accumulator of host spaces: each thread (picked by a UniqueToken) owns dense
// arrays over C's columns, and rows are scheduled dynamically, heaviest first.
// A per-thread bitmap of the columns seen (C's columns / 8 bytes: it stays in
// cache where a mark per column would not) finds each row's distinct columns:
//   count:   distinct columns per row (listed, so that their bits are cleared);
//   fill:    the distinct columns written into C's row, then sorted by reading
//            the bitmap in column order (O(n + range/64)), or with std::sort when
//            the row is spread thin over a wide range;
//   fill with values (a one-shot product): the fill, also summing values in a
//            dense array, read back along the sorted row;
//   numeric: the position of each column of C's row in a dense array, then one
//            add per product straight into C's values: no sort, no search.
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
  enum class Phase { count, fill, fill_values, numeric };
  template <class T>
  using PerThread = Kokkos::View<T**, Kokkos::LayoutRight, mem>;

  RowProducts<S, O, Off, mem> products;
  Kokkos::View<const std::uint32_t*, mem> order;  // rows, heaviest first
  Kokkos::Experimental::UniqueToken<Exec> token;
  Phase phase = Phase::count;
  bool sort = true;
  std::uint64_t columns = 0;
  PerThread<std::uint64_t> seen;             // count, fill: column bits, 0 between rows
  PerThread<O> list;                         // count: the row's distinct columns
  PerThread<S> sums;                         // fill_values: 0 between rows
  PerThread<Off> position;                   // numeric: column -> position in C's row
  Kokkos::View<std::uint64_t*, mem> unique;  // count
  Kokkos::View<const Off*, mem> c_row_map;   // fill, numeric
  Kokkos::View<O*, mem> c_col;               // fill (written), numeric (read)
  Kokkos::View<S*, mem> c_val;               // fill_values, numeric

  static bool test_and_set(std::uint64_t* bits, O j) {
    const std::uint64_t bit = std::uint64_t(1) << (static_cast<std::uint64_t>(j) & 63);
    std::uint64_t& word = bits[static_cast<std::uint64_t>(j) >> 6];
    const bool was = (word & bit) != 0;
    word |= bit;
    return was;
  }

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
          out[w++] =
              static_cast<O>(word * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x)));
          x &= x - 1;
        }
      }
    } else {
      std::sort(out, out + n);
      clear(out, n, bits);
    }
  }

  static void clear(const O* cols, std::uint64_t n, std::uint64_t* bits) {
    for (std::uint64_t t = 0; t < n; ++t)
      bits[static_cast<std::uint64_t>(cols[t]) >> 6] = 0;
  }

  void operator()(const std::int64_t r) const {
    const std::int64_t i = order(r);
    const int id = token.acquire();
    if (phase == Phase::count) {
      std::uint64_t* bits = &seen(id, 0);
      O* cols = &list(id, 0);
      std::uint64_t n = 0;
      products.for_thread(i, [&](const O j, Off, Off) {
        if (!test_and_set(bits, j)) cols[n++] = j;
      });
      clear(cols, n, bits);
      unique(i) = n;
    } else if (phase == Phase::fill || phase == Phase::fill_values) {
      std::uint64_t* bits = &seen(id, 0);
      const Off base = c_row_map(i);
      O* out = c_col.data() + base;
      std::uint64_t n = 0;
      O lo = static_cast<O>(columns), hi = 0;
      const auto visit = [&](const O j) {
        if (test_and_set(bits, j)) return;
        out[n++] = j;
        lo = j < lo ? j : lo;
        hi = j > hi ? j : hi;
      };
      if (phase == Phase::fill) {
        products.for_thread(i, [&](const O j, Off, Off) { visit(j); });
      } else {
        S* sum = &sums(id, 0);
        products.for_thread(i, [&](const O j, const Off p, const Off q) {
          visit(j);
          sum[j] += products.value(p, q);
        });
      }
      if (n > 0) {
        if (sort) {
          sort_row(out, n, lo, hi, bits);
        } else {
          clear(out, n, bits);
        }
      }
      if (phase == Phase::fill_values) {
        S* sum = &sums(id, 0);
        S* val = c_val.data() + base;
        for (std::uint64_t t = 0; t < n; ++t) {
          val[t] = sum[out[t]];
          sum[out[t]] = S(0);
        }
      }
    } else {
      Off* pos = &position(id, 0);
      const Off base = c_row_map(i);
      const Off end = c_row_map(i + 1);
      S* val = c_val.data();
      for (Off p = base; p < end; ++p) {
        pos[c_col(p)] = p;
        val[p] = S(0);
      }
      products.for_thread(i, [&](const O j, const Off p, const Off q) {
        val[pos[j]] += products.value(p, q);
      });
    }
    token.release(id);
  }
};

}  // namespace libra::impl
