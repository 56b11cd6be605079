#pragma once
// The accumulator of host spaces: each thread (picked by a UniqueToken) owns a
// bitmap over C's columns and a dense value array; rows are scheduled
// dynamically in their own order (neighbours often share rows of B).
//   pattern: the runs of the B rows that A(i,:) selects (column_words.hpp) are
//            ORed into the bitmap, noting each word the row touches; no
//            per-product test, and on FEM-like matrices a tenth of the steps;
//   count:   the popcounts of the touched words, and how the fill will order
//            them (kept a byte a row, with packed words);
//   fill:    C's columns read off the bitmap in column order: a scan of the
//            touched range when it is dense; else, when the row's words lie
//            close enough, a scan of a second bitmap with a bit per touched
//            word; else the touched words sorted (few: a word holds up to 64
//            columns) and read one by one. With packed words the count's
//            order spares the scans' rows the list of touched words;
//   fill with values (a one-shot product): first every product is added into
//            the dense array (a plain scatter: the columns of one row of B
//            differ, so nothing waits on the previous add), then the fill
//            reads each column's sum as it writes the column;
//   numeric: the same scatter, then C's known row gathers its sums.
// No phase searches for columns; only rows too spread for both scans sort
// their touched words (their columns, without packed words).
// Without packed words (B's columns one by one) and over a narrow C, a
// per-thread array of marks, the tag of the row that last listed each column,
// tells new columns in the count and the fill: a plain store, where ORing bits
// into a word that the previous product also touched made each product wait
// on that store (ca-GrQc, 5,242 columns: 2.2 -> 1.6 ms). The fill's bitmap
// and flags are set afterwards from the row's distinct columns. Over a wide C
// the marks (4 bytes a column beside the sums' 8) leave the cache and the
// products rarely share a word: the bits stay.
// Rows of A with one nonzero copy their row of B, scaled, and rows with two
// merge theirs, when those rows of B are in order (Tuning::
// host_direct_entries); this takes precedence over every path below.
// Rows with few products (Tuning::host_sort_products) skip the per-thread
// arrays in every phase: their products are gathered on the stack, sorted by
// column (stably: equal columns keep the order of k, so the sums come out
// bitwise as the dense array makes them) and merged. Over a wide C the dense
// array's scattered adds miss the cache once per product (p2p-Gnutella31: 8.6
// products a row over 62,586 columns). Launched on host spaces only (if
// constexpr at the call), so the operators are plain host code.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "libra/core/spaces.hpp"
#include "libra/spgemm/impl/column_words.hpp"
#include "libra/spgemm/impl/dense_panels.hpp"
#include "libra/spgemm/impl/row_products.hpp"

namespace libra::impl {

// Sorts a few values in place (insertion sort: the touched words of most rows
// number a handful; std::sort beyond 32).
template <class T>
void sort_few(T* v, std::size_t n) {
  if (n > 32) {
    std::sort(v, v + n);
    return;
  }
  for (std::size_t i = 1; i < n; ++i) {
    const T x = v[i];
    std::size_t j = i;
    for (; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

// The most products a row made by sorting may have (its stack arrays).
inline constexpr int host_sort_products_max = 64;
// The most nonzeros of a row of A made straight from its rows of B
// (Tuning::host_direct_entries): a merge of three or four rows by their least
// head was slower than the accumulator (add32 0.85 -> 1.1 ms on 2 cores).
inline constexpr int host_direct_entries_max = 2;
// The most distinct columns a ranked row may have (Tuning::host_rank_columns).
inline constexpr int host_rank_columns_max = 256;

template <class Exec, class S, class O, class Off, bool Packed>
struct HostDenseRows {
  using mem = typename Exec::memory_space;
  // The fill's two kinds (the count and numeric passes have their own operators).
  enum class Phase { fill, fill_values };
  template <class T>
  using PerThread = Kokkos::View<T**, Kokkos::LayoutRight, mem>;
  // The reductions: rows with products (count), rows read off `flags` (fill).
  using value_type = std::uint64_t;
  struct Fill {};  // the fill pass's work tag
  // How the fill reads a row's touched words in column order.
  enum class Order { range, flags, sort, rank };

  RowProducts<S, O, Off, mem> products;
  ColumnWords<O, Off, mem> words;
  Kokkos::Experimental::UniqueToken<Exec> token;
  Phase phase = Phase::fill;
  bool sort = true;
  PerThread<std::uint64_t> seen;   // column bits, 0 between rows
  PerThread<std::uint64_t> flags;  // fill: a bit per touched word of seen
  int flag_span = 4;               // SpgemmOptions::Tuning::host_flag_span
  int rank_columns = 0;            // SpgemmOptions::Tuning::host_rank_columns
  // The fill's ranked rows, added once per block (the pass reduces the flagged
  // ones); host memory, as the functor runs on host spaces only.
  std::uint64_t* ranked_rows = nullptr;
  PerThread<O> touched;  // the words a row touched
  PerThread<O> columns;  // fill without packed words: C's row
  using Mark = std::make_unsigned_t<O>;
  // Without packed words, when C is narrow (Tuning::host_mark_columns): the
  // tag of the row that last listed each column; empty: bits tell.
  PerThread<Mark> marks;
  PerThread<S> sums;  // fill_values, numeric: 0 between rows
  // Packed words, sorted rows: each row's Order as the count found it, so that
  // the fill of a row read off its range ORs bits only, and of a row read off
  // its flags bits and flags: no list of touched words, no test of each word
  // for being new (0.89-0.97x the time of a call on 2 cores: bcsstk13, bcsstk21,
  // cage8, fe_4elt2, add32, Wiki-Vote, bcsstk33).
  Kokkos::View<std::uint8_t*, mem> known_orders;
  Kokkos::View<std::uint64_t*, mem> unique;  // count
  Kokkos::View<const Off*, mem> c_row_map;   // fill, numeric
  Kokkos::View<O*, mem> c_col;               // fill (written), numeric (read)
  Kokkos::View<S*, mem> c_val;               // fill_values, numeric
  DenseRows<mem> dense;                      // rows of dense panels: skipped
  // Rows with at most `sort_products` products (per row_products) are made by
  // sorting (0: none; at most host_sort_products_max).
  Kokkos::View<const std::uint64_t*, mem> row_products;
  std::uint64_t sort_products = 0;

  // The marks of row i in the count and in the fill: apart from each other (the
  // fill follows the count on the same arrays) and from 0, as a row index of O
  // is below half of Mark's range.
  static Mark count_tag(std::int64_t i) { return static_cast<Mark>(i) + 1; }
  static Mark fill_tag(std::int64_t i) {
    return static_cast<Mark>(~static_cast<Mark>(i));
  }

  // Whether row i is made by sorting its products.
  bool sorts(std::int64_t i) const {
    return sort_products > 0 && row_products(i) <= sort_products;
  }

  // Rows of A with at most `direct_entries` nonzeros (Tuning::
  // host_direct_entries, at most host_direct_entries_max) whose rows of B list
  // their columns in increasing order are made straight from those rows: one
  // is copied, scaled; two are merged. No accumulator and no ordering.
  // bcsstm25 (a diagonal: every row one product) took 0.36-0.40 ms through
  // the marks and 0.27-0.33 ms copied on 2 cores (a noisy VM); 85% of
  // luxembourg's rows have two nonzeros (9.2 -> 8.0 ms merged).
  int direct_entries = 0;
  // Rows the count pass made by a path of their own (with products): it adds
  // them into `*counted` once per block (host memory).
  struct PathRows {
    std::uint64_t copied = 0, merged = 0, sorted = 0;
  };
  PathRows* counted = nullptr;

  // Without a branch per column: a user's B may list a row out of order.
  static bool increasing(const O* col, Off q0, Off q1) {
    bool up = true;
    for (Off q = q0 + 1; q < q1; ++q) up &= col[q - 1] < col[q];
    return up;
  }

  // The number of B's rows row i is made straight from (its nonzeros), or 0
  // when the accumulator makes it.
  int direct(std::int64_t i) const {
    const Off* a_rm = products.a_row_map.data();
    const Off e = a_rm[i];
    const Off m = a_rm[i + 1] - e;
    // (A row without products has nothing to make; B may have no entries.)
    if (m < 1 || m > static_cast<Off>(direct_entries) || row_products(i) == 0) return 0;
    const O* a_col = products.a_col.data();
    const Off* b_rm = products.b_row_map.data();
    const O* b_col = products.b_col.data();
    for (Off t = e; t < e + m; ++t) {
      if (!increasing(b_col, b_rm[a_col[t]], b_rm[a_col[t] + 1])) return 0;
    }
    return static_cast<int>(m);
  }

  // Row i made straight from its m rows of B: C's columns into `out` and
  // values into `val` (each when not null); returns the row's columns. A
  // column in several rows sums their products in the order of A's entries
  // (from 0, as the dense accumulator does: the same bits, but for the sign
  // of a zero product alone in its column).
  template <bool Cols, bool Vals>
  Off direct_row(std::int64_t i, int m, O* out, S* val) const {
    return m == 1 ? copy_row<Cols, Vals>(i, out, val)
                  : merge_two<Cols, Vals>(i, out, val);
  }

  template <bool Cols, bool Vals>
  Off copy_row(std::int64_t i, O* out, S* val) const {
    const Off e = products.a_row_map.data()[i];
    const O k = products.a_col.data()[e];
    const Off q0 = products.b_row_map.data()[k];
    const Off q1 = products.b_row_map.data()[k + 1];
    const O* b_col = products.b_col.data();
    const S* b_val = products.b_val.data();
    if constexpr (Cols) {
      for (Off q = q0; q < q1; ++q) out[q - q0] = b_col[q];
    }
    if constexpr (Vals) {
      const S a = products.a_val.data()[e];
      for (Off q = q0; q < q1; ++q) val[q - q0] = a * b_val[q];
    }
    return q1 - q0;
  }

  // Two rows: a merge step has no branch (which row advances is
  // unpredictable).
  template <bool Cols, bool Vals>
  Off merge_two(std::int64_t i, O* out, S* val) const {
    const Off e = products.a_row_map.data()[i];
    const O* a_col = products.a_col.data();
    const Off* b_rm = products.b_row_map.data();
    const O* b_col = products.b_col.data();
    const S* b_val = products.b_val.data();
    Off q0 = b_rm[a_col[e]], q1 = b_rm[a_col[e] + 1];
    Off r0 = b_rm[a_col[e + 1]], r1 = b_rm[a_col[e + 1] + 1];
    S a1{}, a2{};
    if constexpr (Vals) {
      a1 = products.a_val.data()[e];
      a2 = products.a_val.data()[e + 1];
    }
    Off n = 0;
    while (q0 < q1 && r0 < r1) {
      const O c = b_col[q0];
      const O d = b_col[r0];
      const bool x = c <= d;
      const bool y = d <= c;
      if constexpr (Cols) out[n] = x ? c : d;
      if constexpr (Vals) {
        val[n] = (x ? a1 * b_val[q0] : S(0)) + (y ? a2 * b_val[r0] : S(0));
      }
      q0 += x;
      r0 += y;
      ++n;
    }
    for (; q0 < q1; ++q0, ++n) {
      if constexpr (Cols) out[n] = b_col[q0];
      if constexpr (Vals) val[n] = a1 * b_val[q0];
    }
    for (; r0 < r1; ++r0, ++n) {
      if constexpr (Cols) out[n] = b_col[r0];
      if constexpr (Vals) val[n] = a2 * b_val[r0];
    }
    return n;
  }

  // Row i's products gathered (columns, and values with Values), sorted by
  // column and merged; returns the distinct columns, first in cols / vals.
  template <bool Values>
  int sorted_row(std::int64_t i, O* cols, S* vals) const {
    const Off* a_rm = products.a_row_map.data();
    const O* a_col = products.a_col.data();
    const Off* b_rm = products.b_row_map.data();
    const O* b_col = products.b_col.data();
    int n = 0;
    for (Off e = a_rm[i]; e < a_rm[i + 1]; ++e) {
      const O k = a_col[e];
      const S a = Values ? products.a_val.data()[e] : S(0);
      for (Off q = b_rm[k], q1 = b_rm[k + 1]; q < q1; ++q) {
        cols[n] = b_col[q];
        if constexpr (Values) vals[n] = a * products.b_val.data()[q];
        ++n;
      }
    }
    for (int x = 1; x < n; ++x) {  // insertion sort: stable
      const O c = cols[x];
      S v{};
      if constexpr (Values) v = vals[x];
      int y = x;
      for (; y > 0 && cols[y - 1] > c; --y) {
        cols[y] = cols[y - 1];
        if constexpr (Values) vals[y] = vals[y - 1];
      }
      cols[y] = c;
      if constexpr (Values) vals[y] = v;
    }
    int d = 0;
    for (int x = 0; x < n; ++x) {
      if (d > 0 && cols[d - 1] == cols[x]) {
        if constexpr (Values) vals[d - 1] += vals[x];
      } else {
        cols[d] = cols[x];
        if constexpr (Values) vals[d] = vals[x];
        ++d;
      }
    }
    return d;
  }

  // ORs row i's runs into `bits` and their range into [lo, hi]. With List,
  // returns the touched words in `list` (sorted rows whose count found a scan
  // of their range or of their flags skip the list); with Flag, each touched
  // word's bit goes into `flag`.
  template <bool List, bool Flag>
  std::size_t mark(std::int64_t i, std::uint64_t* bits, O* list, std::uint64_t& lo,
                   std::uint64_t& hi, std::uint64_t* flag) const {
    std::size_t n = 0;
    const Off* a_rm = products.a_row_map.data();
    const O* a_col = products.a_col.data();
    for (Off e = a_rm[i]; e < a_rm[i + 1]; ++e) {
      words.template for_runs<Packed>(a_col[e],
                                      [&](const std::uint64_t w, const std::uint64_t m) {
                                        lo = w < lo ? w : lo;
                                        hi = w > hi ? w : hi;
                                        if constexpr (List) {
                                          // Branch-free: whether a word is new is
                                          // unpredictable.
                                          const std::uint64_t old = bits[w];
                                          list[n] = static_cast<O>(w);
                                          n += old == 0;
                                          bits[w] = old | m;
                                        } else {
                                          bits[w] |= m;
                                        }
                                        if constexpr (Flag)
                                          flag[w >> 6] |= std::uint64_t(1) << (w & 63);
                                      });
    }
    return n;
  }

  // sum[j] += a_ik * b_kj for every product of row i.
  void scatter(std::int64_t i, S* sum) const {
    const Off* a_rm = products.a_row_map.data();
    const O* a_col = products.a_col.data();
    const S* a_val = products.a_val.data();
    const Off* b_rm = products.b_row_map.data();
    const O* b_col = products.b_col.data();
    const S* b_val = products.b_val.data();
    for (Off e = a_rm[i]; e < a_rm[i + 1]; ++e) {
      const O k = a_col[e];
      const S a = a_val[e];
      for (Off q = b_rm[k], q1 = b_rm[k + 1]; q < q1; ++q) sum[b_col[q]] += a * b_val[q];
    }
  }

  // Range: the touched words are dense in [lo, hi]. Flags: the flag words to
  // scan are few beside the touched words (flag_span of them per touched word,
  // plus 4). Sort: otherwise (a sort of n words costs about n log n steps).
  Order order_of(std::size_t n, std::uint64_t lo, std::uint64_t hi) const {
    if (!sort) return Order::sort;  // unsorted rows: the list as it came
    if (hi - lo + 1 <= 2 * n) return Order::range;
    const std::uint64_t span = (hi >> 6) - (lo >> 6) + 1;
    return span <= static_cast<std::uint64_t>(flag_span) * (n + 4) ? Order::flags
                                                                   : Order::sort;
  }

  // Writes the n distinct values of v in ascending order into out: each value's
  // place is the count of values below it. The compares have no branch (the
  // compiler vectorises them): n^2 of them beat the bits and flags' branches on
  // each column and word when n is small.
  static void rank_into(const O* v, std::size_t n, O* out) {
    for (std::size_t q = 0; q < n; ++q) {
      const O c = v[q];
      std::uint32_t r = 0;
      for (std::size_t t = 0; t < n; ++t) r += static_cast<std::uint32_t>(v[t] < c);
      out[r] = c;
    }
  }

  // Calls f(w) for each flagged word in [lo, hi], in order, clearing the flags.
  template <class F>
  static void for_flagged(std::uint64_t* flag, std::uint64_t lo, std::uint64_t hi,
                          const F& f) {
    for (std::uint64_t s = lo >> 6; s <= hi >> 6; ++s) {
      std::uint64_t x = flag[s];
      flag[s] = 0;
      for (; x; x &= x - 1) f(s * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x)));
    }
  }

  static void clear_flags(std::uint64_t* flag, std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t s = lo >> 6; s <= hi >> 6; ++s) flag[s] = 0;
  }

  // The fill without packed words: one pass over the products adds each value
  // (with `sum`) and lists each new column, branch-free; the list is sorted, or
  // read off the bitmap in column order (a scan of the range or of the flags).
  // With Marks, `mark` tells new columns and the bitmap and flags are set
  // afterwards from the row's distinct columns; without, the pass ORs each
  // column into them.
  template <bool Marks>
  Order fill_columns(std::int64_t i, std::uint64_t* bits, std::uint64_t* flag, Mark* mark,
                     O* list, S* sum) const {
    const Off* a_rm = products.a_row_map.data();
    const O* a_col = products.a_col.data();
    const S* a_val = products.a_val.data();
    const Off* b_rm = products.b_row_map.data();
    const O* b_col = products.b_col.data();
    const S* b_val = products.b_val.data();
    const Mark tag = fill_tag(i);
    std::size_t n = 0;
    Mark lo = ~Mark(0), hi = 0;
    for (Off e = a_rm[i]; e < a_rm[i + 1]; ++e) {
      const O k = a_col[e];
      const S a = sum ? a_val[e] : S(0);
      for (Off q = b_rm[k], q1 = b_rm[k + 1]; q < q1; ++q) {
        const O j = b_col[q];
        if (sum) sum[j] += a * b_val[q];
        const auto u = static_cast<Mark>(j);
        list[n] = j;
        if constexpr (Marks) {
          n += mark[u] != tag;
          mark[u] = tag;
        } else {
          const std::uint64_t w = u >> 6;
          const std::uint64_t m = std::uint64_t(1) << (u & 63);
          const std::uint64_t old = bits[w];
          bits[w] = old | m;
          flag[w >> 6] |= std::uint64_t(1) << (w & 63);
          n += (old & m) == 0;
        }
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
      }
    }
    const Off base = c_row_map(i);
    O* out = c_col.data() + base;
    std::size_t written = 0;
    const auto emit = [&](const std::uint64_t w) {
      std::uint64_t x = bits[w];
      bits[w] = 0;
      for (; x; x &= x - 1) {
        out[written++] =
            static_cast<O>(w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x)));
      }
    };
    const std::uint64_t wlo = static_cast<std::uint64_t>(lo) >> 6;
    const std::uint64_t whi = static_cast<std::uint64_t>(hi) >> 6;
    // Orders by the row's distinct columns (at least its touched words); few
    // columns spread wider than a scan are ranked.
    Order order = n > 0 ? order_of(n, wlo, whi) : Order::sort;
    if (n > 0 && order != Order::range && sort &&
        n <= static_cast<std::size_t>(rank_columns)) {
      order = Order::rank;
    }
    if (Marks && order != Order::sort && order != Order::rank) {
      for (std::size_t q = 0; q < n; ++q) {
        const auto c = static_cast<std::uint64_t>(list[q]);
        bits[c >> 6] |= std::uint64_t(1) << (c & 63);
        if (order == Order::flags) flag[c >> 12] |= std::uint64_t(1) << ((c >> 6) & 63);
      }
    }
    if (order == Order::range) {
      for (std::uint64_t w = wlo; w <= whi; ++w) emit(w);
      if (!Marks) clear_flags(flag, wlo, whi);
    } else if (order == Order::flags) {
      for_flagged(flag, wlo, whi, emit);
    } else {  // ranked, or the list (sorted unless rows stay unsorted)
      if (order == Order::rank) {
        rank_into(list, n, out);
      } else {
        if (sort) sort_few(list, n);
        std::copy(list, list + n, out);
      }
      if constexpr (!Marks) {  // the bits and flags the pass set
        for (std::size_t q = 0; q < n; ++q) {
          const auto w = static_cast<std::uint64_t>(list[q]) >> 6;
          bits[w] = 0;
          flag[w >> 6] = 0;
        }
      }
    }
    if (sum) {
      S* val = c_val.data() + base;
      for (std::size_t t = 0; t < n; ++t) {
        val[t] = sum[out[t]];
        sum[out[t]] = S(0);
      }
    }
    return order;
  }

  // The count pass: also counts the rows with products into `rows`.
  void count_row(const std::int64_t i, const int id, std::uint64_t& rows,
                 PathRows& paths) const {
    if (products.a_row_map(i) == products.a_row_map(i + 1) || dense(i)) return;
    if (const int m = direct(i)) {
      const Off n = direct_row<false, false>(i, m, nullptr, nullptr);
      unique(i) = static_cast<std::uint64_t>(n);
      rows += n > 0;
      (m == 1 ? paths.copied : paths.merged) += n > 0;
      return;
    }
    if (sorts(i)) {
      O cols[host_sort_products_max];
      const int n = sorted_row<false>(i, cols, nullptr);
      unique(i) = static_cast<std::uint64_t>(n);
      rows += n > 0;
      paths.sorted += n > 0;
      return;
    }
    if (!Packed && marks.extent(0) > 0) {
      const Off* a_rm = products.a_row_map.data();
      const O* a_col = products.a_col.data();
      const Off* b_rm = products.b_row_map.data();
      const O* b_col = products.b_col.data();
      Mark* m = &marks(id, 0);
      const Mark tag = count_tag(i);
      std::uint64_t n = 0;
      for (Off e = a_rm[i]; e < a_rm[i + 1]; ++e) {
        const O k = a_col[e];
        for (Off q = b_rm[k], q1 = b_rm[k + 1]; q < q1; ++q) {
          const auto u = static_cast<Mark>(b_col[q]);
          n += m[u] != tag;
          m[u] = tag;
        }
      }
      unique(i) = n;
      rows += n > 0;
      return;
    }
    std::uint64_t* bits = &seen(id, 0);
    O* list = &touched(id, 0);
    std::uint64_t lo = ~std::uint64_t(0), hi = 0;
    const std::size_t nt = mark<true, false>(i, bits, list, lo, hi, nullptr);
    std::uint64_t n = 0;
    for (std::size_t t = 0; t < nt; ++t) {
      n += static_cast<std::uint64_t>(popcount64(bits[list[t]]));
      bits[list[t]] = 0;
    }
    unique(i) = n;
    rows += nt > 0;
    // The fill reads the row's words in this order (without listing them,
    // where a scan of their range or of their flags finds them).
    if constexpr (Packed) {
      if (sort) {
        known_orders(i) =
            static_cast<std::uint8_t>(nt > 0 ? order_of(nt, lo, hi) : Order::sort);
      }
    }
  }

  // The numeric pass: C's known row gathers its sums.
  void numeric_row(const std::int64_t i, const int id) const {
    if (products.a_row_map(i) == products.a_row_map(i + 1) || dense(i)) return;
    if (const int m = direct(i)) {
      direct_row<false, true>(i, m, nullptr, c_val.data() + c_row_map(i));
      return;
    }
    if (sorts(i)) {
      O cols[host_sort_products_max];
      S vals[host_sort_products_max];
      const int n = sorted_row<true>(i, cols, vals);
      S* val = c_val.data() + c_row_map(i);
      for (int t = 0; t < n; ++t) val[t] = vals[t];
      return;
    }
    S* sum = &sums(id, 0);
    scatter(i, sum);
    S* val = c_val.data();
    const O* col = c_col.data();
    for (Off p = c_row_map(i); p < c_row_map(i + 1); ++p) {
      val[p] = sum[col[p]];
      sum[col[p]] = S(0);
    }
  }

  // The fill pass (with C's values in phase fill_values); counts the rows it
  // read off the flags into `flagged`, those it ranked into `ranked`.
  void fill_row(const std::int64_t i, const int id, std::uint64_t& flagged,
                std::uint64_t& ranked) const {
    if (products.a_row_map(i) == products.a_row_map(i + 1) || dense(i)) return;
    if (const int m = direct(i)) {
      O* out = c_col.data() + c_row_map(i);
      if (phase == Phase::fill_values) {
        direct_row<true, true>(i, m, out, c_val.data() + c_row_map(i));
      } else {
        direct_row<true, false>(i, m, out, nullptr);
      }
      return;
    }
    if (sorts(i)) {
      O cols[host_sort_products_max];
      S vals[host_sort_products_max];
      const Off base = c_row_map(i);
      if (phase == Phase::fill_values) {
        const int n = sorted_row<true>(i, cols, vals);
        for (int t = 0; t < n; ++t) {
          c_col(base + t) = cols[t];
          c_val(base + t) = vals[t];
        }
      } else {
        const int n = sorted_row<false>(i, cols, nullptr);
        for (int t = 0; t < n; ++t) c_col(base + t) = cols[t];
      }
      return;
    }
    std::uint64_t* bits = &seen(id, 0);
    std::uint64_t* flag = &flags(id, 0);
    const bool values = phase == Phase::fill_values;
    S* sum = values ? &sums(id, 0) : nullptr;
    Order order = Order::sort;
    if (!Packed) {
      order = marks.extent(0) > 0
                  ? fill_columns<true>(i, bits, flag, &marks(id, 0), &columns(id, 0), sum)
                  : fill_columns<false>(i, bits, flag, nullptr, &columns(id, 0), sum);
    } else {
      if (values) scatter(i, sum);
      O* list = &touched(id, 0);
      std::uint64_t lo = ~std::uint64_t(0), hi = 0;
      // Sorted rows in the order the count found; unsorted ones as they came.
      order = sort ? static_cast<Order>(known_orders(i)) : Order::sort;
      std::size_t nt = 0;
      if (order == Order::range) {
        mark<false, false>(i, bits, list, lo, hi, flag);
      } else if (order == Order::flags) {
        mark<false, true>(i, bits, list, lo, hi, flag);
      } else {
        nt = mark<true, false>(i, bits, list, lo, hi, flag);
      }
      const Off base = c_row_map(i);
      O* out = c_col.data() + base;
      S* val = values ? c_val.data() + base : nullptr;
      std::size_t n = 0;
      const auto emit = [&](const std::uint64_t w) {
        std::uint64_t x = bits[w];
        bits[w] = 0;
        while (x) {
          const auto j =
              static_cast<O>(w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x)));
          out[n] = j;
          if (values) {
            val[n] = sum[j];
            sum[j] = S(0);
          }
          ++n;
          x &= x - 1;
        }
      };
      if (order == Order::range) {
        for (std::uint64_t w = lo; w <= hi; ++w) {
          if (bits[w]) emit(w);
        }
      } else if (order == Order::flags) {
        for_flagged(flag, lo, hi, emit);
      } else {
        if (sort) sort_few(list, nt);
        for (std::size_t t = 0; t < nt; ++t) emit(static_cast<std::uint64_t>(list[t]));
      }
    }
    flagged += order == Order::flags;
    ranked += order == Order::rank;
  }

  // The passes run over blocks of block_rows rows, each block under one token:
  // an acquire and a release per row cost more than a row of one product
  // (bcsstm25: 15,439 rows of one product each).
  static constexpr std::int64_t block_rows = 16;
  std::int64_t num_rows = 0;
  static std::int64_t blocks(std::int64_t rows) {
    return (rows + block_rows - 1) / block_rows;
  }
  // Blocks a thread takes at once: up to 8 (one at a time let the threads
  // interleave rows of C and share its cache lines: p2p-Gnutella31 1.4x
  // slower), and at least 8 takes per worker, so that a few blocks still
  // spread (abb313: 11 blocks, two threads).
  static int chunk(std::int64_t rows, std::size_t workers) {
    const std::int64_t takes = 8 * static_cast<std::int64_t>(workers);
    return static_cast<int>(std::clamp<std::int64_t>(blocks(rows) / takes, 1, 8));
  }
  template <class Row>
  void for_block(const std::int64_t b, const Row& row) const {
    const int id = token.acquire();
    const std::int64_t end = std::min(num_rows, (b + 1) * block_rows);
    for (std::int64_t i = b * block_rows; i < end; ++i) row(i, id);
    token.release(id);
  }
  void operator()(const std::int64_t b, std::uint64_t& rows) const {
    PathRows paths;
    for_block(b,
              [&](const std::int64_t i, const int id) { count_row(i, id, rows, paths); });
    if (paths.copied > 0) Kokkos::atomic_add(&counted->copied, paths.copied);
    if (paths.merged > 0) Kokkos::atomic_add(&counted->merged, paths.merged);
    if (paths.sorted > 0) Kokkos::atomic_add(&counted->sorted, paths.sorted);
  }
  void operator()(const std::int64_t b) const {
    for_block(b, [&](const std::int64_t i, const int id) { numeric_row(i, id); });
  }
  void operator()(Fill, const std::int64_t b, std::uint64_t& flagged) const {
    std::uint64_t ranked = 0;
    for_block(
        b, [&](const std::int64_t i, const int id) { fill_row(i, id, flagged, ranked); });
    if (ranked > 0) Kokkos::atomic_add(ranked_rows, ranked);
  }
};

}  // namespace libra::impl
