#pragma once
// Where y stays on the ranks with pCSC parts (Spmv::apply_local). A column part's
// product is a partial y over the rows its nonzeros touch, its row span [lo, hi),
// not one row of which it owns alone. Part i holds rows in proportion to its
// columns, [m * start[i] / n, m * start[i + 1] / n) (for a band, the rows its
// span covers but for the band's edges, so little moves), or equal row counts
// where those move fewer rows through the busiest part (choose_held_rows).
// Where every part touches most rows (power-law graphs) the moves are a
// reduce-scatter's.
// Each part sends every other part the rows of its span that part holds, and
// adds what arrives to its own partial sums of the rows it holds.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace libra::dist::impl {

// Rows [first, last) of a partial y between this part and `part`; `at`: where
// a received slice starts in the arrived buffer.
struct ColumnSlice {
  int part = 0;
  std::int64_t first = 0, last = 0, at = 0;
};

struct ColumnRows {
  std::int64_t first = 0, last = 0;  // rows [first, last) of y held here
  std::vector<ColumnSlice> sends, receives;
  std::int64_t arrived_rows = 0;  // the receives' rows together
};

// Every part's first row held (P + 1 entries, the last = rows), from its first
// column (col_start, P + 1 entries, the last = cols). Rounded products are
// monotone in the column, so the holdings tile the rows.
inline std::vector<std::int64_t> held_row_starts(
    const std::vector<std::int64_t>& col_start, std::int64_t rows, std::int64_t cols) {
  std::vector<std::int64_t> held(col_start.size(), 0);
  for (std::size_t i = 0; i < col_start.size(); ++i) {
    held[i] = cols == 0 ? 0
                        : static_cast<std::int64_t>(std::floor(
                              static_cast<double>(col_start[i]) *
                              static_cast<double>(rows) / static_cast<double>(cols)));
    if (held[i] > rows) held[i] = rows;
  }
  held.back() = rows;
  return held;
}

// Part `part`'s holdings and moves, from every part's first row held (`held`,
// P + 1) and row span (`span`, 2P: lo, hi by part; an empty part's is {0, 0}).
inline ColumnRows column_rows(const std::vector<std::int64_t>& held,
                              const std::vector<std::int64_t>& span, int part) {
  const int P = static_cast<int>(held.size()) - 1;
  const auto at = [](const std::vector<std::int64_t>& v, int i) {
    return v[static_cast<std::size_t>(i)];
  };
  ColumnRows c;
  c.first = at(held, part);
  c.last = at(held, part + 1);
  const std::int64_t lo = at(span, 2 * part), hi = at(span, 2 * part + 1);
  for (int j = 0; j < P; ++j) {
    if (j == part) continue;
    // Mine to j: my span within j's rows.
    const std::int64_t s0 = std::max(lo, at(held, j)), s1 = std::min(hi, at(held, j + 1));
    if (s1 > s0) c.sends.push_back({j, s0, s1, 0});
    // j's to me: its span within my rows.
    const std::int64_t r0 = std::max(at(span, 2 * j), c.first);
    const std::int64_t r1 = std::min(at(span, 2 * j + 1), c.last);
    if (r1 > r0) {
      c.receives.push_back({j, r0, r1, c.arrived_rows});
      c.arrived_rows += r1 - r0;
    }
  }
  return c;
}

// The most rows any part sends, or receives, under the holding `held` (a GPU's
// links carry both directions at once: the busier direction sets the time).
inline std::int64_t busiest_moves(const std::vector<std::int64_t>& held,
                                  const std::vector<std::int64_t>& span) {
  std::int64_t most = 0;
  for (int i = 0; i + 1 < static_cast<int>(held.size()); ++i) {
    const auto c = column_rows(held, span, i);
    std::int64_t sent = 0;
    for (const auto& s : c.sends) sent += s.last - s.first;
    most = std::max({most, sent, c.arrived_rows});
  }
  return most;
}

// Equal row counts: P + 1 starts.
inline std::vector<std::int64_t> equal_row_starts(int parts, std::int64_t rows) {
  std::vector<std::int64_t> held(static_cast<std::size_t>(parts) + 1);
  for (int i = 0; i <= parts; ++i) {
    held[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(std::floor(
        static_cast<double>(rows) * static_cast<double>(i) / static_cast<double>(parts)));
  }
  held.back() = rows;
  return held;
}

// The holding apply_local uses: rows in proportion to the columns (for a square
// matrix, where x's parts lie), unless equal row counts move fewer rows through
// the busiest part. They do where the column cut is uneven and every part
// touches most rows: R-MAT's first parts hold a few heavy columns, so held by
// columns the last part would receive nearly every row from each other part
// (R-MAT 22 on 2 H200s: 3.5M rows one way, 0.7M the other).
// `by_columns` says which was chosen.
inline std::vector<std::int64_t> choose_held_rows(
    const std::vector<std::int64_t>& col_start, std::int64_t rows, std::int64_t cols,
    const std::vector<std::int64_t>& span, bool& by_columns) {
  auto columns = held_row_starts(col_start, rows, cols);
  auto equal = equal_row_starts(static_cast<int>(col_start.size()) - 1, rows);
  by_columns = busiest_moves(columns, span) <= busiest_moves(equal, span);
  return by_columns ? columns : equal;
}

// A reduce-scatter's blocks: rank r holds rows [starts[r], starts[r + 1]), each
// block ceil(rows / P) rows but the last (P + 1 starts; the partial y is padded
// to P blocks).
inline std::vector<std::int64_t> block_row_starts(int parts, std::int64_t rows) {
  const std::int64_t block = parts > 0 ? (rows + parts - 1) / parts : 0;
  std::vector<std::int64_t> starts(static_cast<std::size_t>(parts) + 1);
  for (int i = 0; i <= parts; ++i) {
    starts[static_cast<std::size_t>(i)] = std::min(rows, block * i);
  }
  return starts;
}

// The rows a part's row indices name: [min, max + 1), or {0, 0} without any.
template <class Exec, class Index>
Kokkos::pair<std::int64_t, std::int64_t> row_span(const Exec& exec, const Index& idx) {
  const std::int64_t n = static_cast<std::int64_t>(idx.extent(0));
  if (n == 0) return {0, 0};
  using Reducer = Kokkos::MinMax<std::int64_t>;
  typename Reducer::value_type v;
  Kokkos::parallel_reduce(
      "libra::dist::spmv::row_span", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t p, typename Reducer::value_type& m) {
        const auto r = static_cast<std::int64_t>(idx(p));
        if (r < m.min_val) m.min_val = r;
        if (r > m.max_val) m.max_val = r;
      },
      Reducer(v));
  return {v.min_val, v.max_val + 1};
}

// y(r) = beta y(r) + partial(first + r) + every arrived slice's row first + r,
// in part order (deterministic sums). partial is the full-length partial y,
// zero outside the part's span; slices(s) = {first, last, at}; arrived and
// partial are (rows x K, LayoutRight); y is rows x K, or a vector where K is 1.
// beta 0 never reads y. `onto_y`: the part computed straight into y (its span
// within its rows), so y(r) += the arrived slices alone, partial unread.
template <class Local, class Slices, class Y, class S>
struct FinishColumnRows {
  Local partial, arrived;
  Slices slices;
  Y y;
  std::int64_t first, n_slices, K;
  S beta;
  bool onto_y;
  KOKKOS_INLINE_FUNCTION S& at(std::int64_t r, std::int64_t k) const {
    if constexpr (Y::rank == 1) {
      return y(r);
    } else {
      return y(r, k);
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e) const {
    const std::int64_t r = e / K, k = e % K, row = first + r;
    S v = onto_y ? at(r, k) : partial(row, k);
    for (std::int64_t s = 0; s < n_slices; ++s) {
      if (slices(s, 0) <= row && row < slices(s, 1)) {
        v += arrived(slices(s, 2) + row - slices(s, 0), k);
      }
    }
    at(r, k) = onto_y || beta == S(0) ? v : beta * at(r, k) + v;
  }
};

template <class Exec, class Local, class Slices, class Y, class S>
void finish_column_rows(const Exec& exec, const Local& partial, std::int64_t first,
                        const Local& arrived, const Slices& slices, const Y& y, S beta,
                        bool onto_y = false) {
  const std::int64_t rows = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t K = static_cast<std::int64_t>(arrived.extent(1));
  const auto n = static_cast<std::int64_t>(slices.extent(0));
  if (rows == 0 || K == 0 || (onto_y && n == 0)) return;
  Kokkos::parallel_for("libra::dist::spmv::column_rows",
                       Kokkos::RangePolicy<Exec>(exec, 0, rows * K),
                       FinishColumnRows<Local, Slices, Y, S>{partial, arrived, slices, y,
                                                             first, n, K, beta, onto_y});
}

}  // namespace libra::dist::impl
