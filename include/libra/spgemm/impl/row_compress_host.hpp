#pragma once
// The compress step on host execution spaces, where a team is one thread and
// sorting every product (the GPU path) costs more than it saves. Each thread owns
// a dense accumulator over C's columns (a "sparse accumulator", SPA), picked by a
// UniqueToken: a row's distinct columns are found with one flag test per product
// and only those are sorted; values are summed into the dense array and read back
// along C's known pattern. Work per row: O(products + distinct log distinct).
// These functors are launched on host spaces only (if constexpr at the call), so
// they use std::sort freely.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "libra/spgemm/impl/row_compress.hpp"

namespace libra::impl {

template <class Exec, class Ordinal>
struct UniqueWithSpa {
  using mem = typename Exec::memory_space;
  RowsOfProducts<Exec, Ordinal> products;
  Kokkos::View<std::uint64_t*, mem> unique;
  Kokkos::View<char**, Kokkos::LayoutRight, mem>
      seen;  // thread x columns, all 0 between rows
  Kokkos::Experimental::UniqueToken<Exec> token;
  std::uint64_t columns;
  bool sort;  // false: leave the distinct columns in first-seen order

  // Counts the rows it handled into `rows`.
  void operator()(const std::int64_t r, std::uint64_t& rows) const {
    const std::uint64_t b = products.row_begin(r);
    const std::uint64_t n = products.row_begin(r + 1) - b;
    if (n == 0) return;
    ++rows;
    const int id = token.acquire();
    auto flag = Kokkos::subview(seen, id, Kokkos::ALL());
    // Distinct columns are compacted to the front of the row's own segment: the
    // write position never passes the read position.
    std::uint64_t u = 0;
    for (std::uint64_t t = 0; t < n; ++t) {
      const Ordinal c = products.col(b + t);
      if (!flag(c)) {
        flag(c) = 1;
        products.col(b + u++) = c;
      }
    }
    const auto distinct = Kokkos::subview(products.col, Kokkos::make_pair(b, b + u));
    if (!sort) {
      for (std::uint64_t t = 0; t < u; ++t) flag(distinct(t)) = 0;
    } else if (u * 16 > columns) {
      // Dense enough that reading the flags in column order beats sorting.
      std::uint64_t w = 0;
      for (std::uint64_t c = 0; c < columns && w < u; ++c) {
        if (flag(c)) {
          distinct(w++) = static_cast<Ordinal>(c);
          flag(c) = 0;
        }
      }
    } else {
      std::sort(distinct.data(), distinct.data() + u);
      for (std::uint64_t t = 0; t < u; ++t) flag(distinct(t)) = 0;
    }
    token.release(id);
    unique(r) = u;
  }
};

template <class Exec, class Scalar, class Ordinal, class Offset>
struct AccumulateWithSpa {
  using mem = typename Exec::memory_space;
  RowsOfProducts<Exec, Ordinal> products;
  Kokkos::View<const Scalar*, mem> product_val;
  Kokkos::View<const Offset*, mem> c_row_map;
  Kokkos::View<const Ordinal*, mem> c_col;
  Kokkos::View<Scalar*, mem> c_val;
  Kokkos::View<Scalar**, Kokkos::LayoutRight, mem>
      acc;  // thread x columns, all 0 between rows
  Kokkos::Experimental::UniqueToken<Exec> token;

  // Counts the rows it handled into `rows`.
  void operator()(const std::int64_t r, std::uint64_t& rows) const {
    const std::uint64_t b = products.row_begin(r);
    const std::uint64_t n = products.row_begin(r + 1) - b;
    if (n == 0) return;
    ++rows;
    const int id = token.acquire();
    auto sum = Kokkos::subview(acc, id, Kokkos::ALL());
    for (std::uint64_t t = 0; t < n; ++t) sum(products.col(b + t)) += product_val(b + t);
    for (Offset p = c_row_map(r); p < c_row_map(r + 1); ++p) {
      c_val(p) += sum(c_col(p));
      sum(c_col(p)) = Scalar(0);
    }
    token.release(id);
  }
};

}  // namespace libra::impl
