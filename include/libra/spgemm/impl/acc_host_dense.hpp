#pragma once
// The accumulator of host spaces: each thread (picked by a UniqueToken) owns dense
// arrays over C's columns, and rows are scheduled dynamically, heaviest first.
//   count:   a mark per column (the row that last saw it) counts distinct columns;
//   fill:    the same, writing each new column into C's row, then sorting it (or
//            reading the marks in column order when the row is dense);
//   numeric: the position of each column of C's row, then one add per product
//            straight into C's values: no sort, no search.
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
  enum class Phase { count, fill, numeric };

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
  Kokkos::View<S*, mem> c_val;               // numeric

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
    } else if (phase == Phase::fill) {
      O* out = c_col.data() + c_row_map(i);
      std::uint64_t n = 0;
      products.for_thread(i, [&](const O j, Off, Off) {
        if (mark[j] != me) {
          mark[j] = me;
          out[n++] = j;
        }
      });
      if (sort) {
        if (n * 16 > columns) {
          // Dense enough that reading the marks in column order beats sorting.
          std::uint64_t w = 0;
          for (std::uint64_t c = 0; c < columns && w < n; ++c) {
            if (mark[c] == me) out[w++] = static_cast<O>(c);
          }
        } else {
          std::sort(out, out + n);
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
