#pragma once
// lbGEMM's workload table (WLT). Unit of work k pairs column k of A with row k of
// B; its workload is Eq. (4) of the paper, ceil(|A(:,k)| / threads) * |B(k,:)|.
// Empty pairs are dropped, and the table is sorted heaviest-first so that the
// teams launched first carry the most work (the SM-level greedy balance).
//
// A pair whose products alone exceed the per-chunk product capacity is cut into
// pieces of consecutive A(:,k) entries, so that every item fits one chunk.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "libra/algorithms/radix_sort.hpp"
#include "libra/algorithms/scan.hpp"
#include "libra/core/error.hpp"
#include "libra/util/host_copy.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

// Items of the table, in WLT order (heaviest first).
template <class Offset, class MemSpace>
struct WorkloadTable {
  Kokkos::View<Offset*, MemSpace> a_begin;  // CSC positions [a_begin, a_end) of A(:,k)
  Kokkos::View<Offset*, MemSpace> a_end;
  Kokkos::View<std::int64_t*, MemSpace> k;  // the pair: column of A, row of B
  Kokkos::View<std::uint64_t*, MemSpace> products;
  std::size_t size = 0;
  std::uint64_t total_products = 0;
  std::uint64_t max_b_row = 0;  // longest B(k,:) of any non-empty pair
};

// One pass over the pairs: how many items, products and the heaviest workload.
struct PairCounts {
  std::uint64_t items = 0;
  std::uint64_t products = 0;
  std::uint64_t max_workload = 0;
  std::uint64_t max_b_row = 0;
};

template <class ColMap, class RowMap>
struct CountPairs {
  using value_type = PairCounts;
  ColMap a_col_map;
  RowMap b_row_map;
  std::uint64_t per_item_cap;  // products one item may hold
  std::uint64_t threads;       // threads per team of the expand kernel (Eq. 4)

  KOKKOS_INLINE_FUNCTION void pieces(std::int64_t k, std::uint64_t& a_len,
                                     std::uint64_t& b_len, std::uint64_t& n,
                                     std::uint64_t& a_per_piece) const {
    a_len = static_cast<std::uint64_t>(a_col_map(k + 1) - a_col_map(k));
    b_len = static_cast<std::uint64_t>(b_row_map(k + 1) - b_row_map(k));
    a_per_piece = b_len ? per_item_cap / b_len : a_len;
    if (a_per_piece == 0) a_per_piece = 1;  // the caller guarantees b_len <= cap
    n = (a_len == 0 || b_len == 0) ? 0 : (a_len + a_per_piece - 1) / a_per_piece;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k, value_type& v) const {
    std::uint64_t a_len, b_len, n, a_per_piece;
    pieces(k, a_len, b_len, n, a_per_piece);
    if (n == 0) return;
    v.items += n;
    v.products += a_len * b_len;
    const std::uint64_t a_first = a_len < a_per_piece ? a_len : a_per_piece;
    const std::uint64_t w = (a_first + threads - 1) / threads * b_len;
    if (w > v.max_workload) v.max_workload = w;
    if (b_len > v.max_b_row) v.max_b_row = b_len;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = PairCounts{}; }
#if KOKKOS_VERSION < 40000
  // Kokkos 3.x joins through volatile references; 4.x uses the overload below and
  // deprecates this one. No compound assignment: C++20 deprecates it on volatile.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& a,
                                   const volatile value_type& b) const {
    a.items = a.items + b.items;
    a.products = a.products + b.products;
    if (b.max_workload > a.max_workload) a.max_workload = b.max_workload;
    if (b.max_b_row > a.max_b_row) a.max_b_row = b.max_b_row;
  }
#endif
  KOKKOS_INLINE_FUNCTION void join(value_type& a, const value_type& b) const {
    a.items += b.items;
    a.products += b.products;
    if (b.max_workload > a.max_workload) a.max_workload = b.max_workload;
    if (b.max_b_row > a.max_b_row) a.max_b_row = b.max_b_row;
  }
};

// Builds the WLT on the device in O(n) work plus a radix sort of the workloads.
// `threads` is the team size of the expand kernel, `per_item_cap` the most
// products one item may carry (the chunk capacity).
template <class Exec, class Offset, class ColMap, class RowMap>
WorkloadTable<Offset, typename Exec::memory_space> build_workload_table(
    const Exec& exec, std::int64_t inner, const ColMap& a_col_map,
    const RowMap& b_row_map, std::uint64_t threads, std::uint64_t per_item_cap,
    const Temps<typename Exec::memory_space>& temps) {
  using mem = typename Exec::memory_space;
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  WorkloadTable<Offset, mem> wlt;
  const CountPairs<ColMap, RowMap> count{a_col_map, b_row_map, per_item_cap, threads};
  PairCounts totals;
  Kokkos::parallel_reduce("libra::spgemm::wlt::count", Policy(exec, 0, inner), count,
                          totals);
  wlt.size = totals.items;
  wlt.total_products = totals.products;
  wlt.max_b_row = totals.max_b_row;
  if (wlt.size == 0) return wlt;
  // The table itself outlives this call; everything after the frame is scratch.
  const auto n = wlt.size;
  wlt.a_begin = temps.template view<Offset>("libra::spgemm::wlt::a_begin", n);
  wlt.a_end = temps.template view<Offset>("libra::spgemm::wlt::a_end", n);
  wlt.k = temps.template view<std::int64_t>("libra::spgemm::wlt::k", n);
  wlt.products = temps.template view<std::uint64_t>("libra::spgemm::wlt::products", n);
  const TempsFrame<mem> frame(temps);

  // Where each pair's items start: a scan of the item counts.
  Kokkos::View<std::uint64_t*, mem> first = temps.template view<std::uint64_t>(
      "libra::spgemm::wlt::first", static_cast<std::size_t>(inner) + 1);
  Kokkos::parallel_scan(
      "libra::spgemm::wlt::scan", Policy(exec, 0, inner),
      KOKKOS_LAMBDA(const std::int64_t k, std::uint64_t& sum, const bool final) {
        std::uint64_t a_len, b_len, n, a_per_piece;
        count.pieces(k, a_len, b_len, n, a_per_piece);
        if (final) first(k) = sum;
        sum += n;
      });

  // Unsorted items; the sort key makes heavier items come first (stable: ties in k
  // order).
  Kokkos::View<Offset*, mem> a_begin =
      temps.template view<Offset>("libra::spgemm::wlt::a_begin", n);
  Kokkos::View<Offset*, mem> a_end =
      temps.template view<Offset>("libra::spgemm::wlt::a_end", n);
  Kokkos::View<std::int64_t*, mem> ks =
      temps.template view<std::int64_t>("libra::spgemm::wlt::k", n);
  Kokkos::View<std::uint64_t*, mem> prods =
      temps.template view<std::uint64_t>("libra::spgemm::wlt::products", n);
  Kokkos::View<std::uint64_t*, mem> keys =
      temps.template view<std::uint64_t>("libra::spgemm::wlt::keys", n);
  Kokkos::View<std::uint64_t*, mem> order =
      temps.template view<std::uint64_t>("libra::spgemm::wlt::order", n);
  const std::uint64_t max_workload = totals.max_workload;
  Kokkos::parallel_for(
      "libra::spgemm::wlt::fill", Policy(exec, 0, inner),
      KOKKOS_LAMBDA(const std::int64_t k) {
        std::uint64_t a_len, b_len, pieces, a_per_piece;
        count.pieces(k, a_len, b_len, pieces, a_per_piece);
        for (std::uint64_t j = 0; j < pieces; ++j) {
          const std::uint64_t item = first(k) + j;
          const std::uint64_t lo = j * a_per_piece;
          const std::uint64_t hi = lo + a_per_piece < a_len ? lo + a_per_piece : a_len;
          a_begin(item) = static_cast<Offset>(a_col_map(k) + lo);
          a_end(item) = static_cast<Offset>(a_col_map(k) + hi);
          ks(item) = k;
          prods(item) = (hi - lo) * b_len;
          const std::uint64_t workload =
              (hi - lo + threads - 1) / threads * b_len;  // Eq. (4)
          keys(item) = max_workload - workload;
          order(item) = item;
        }
      });
  radix_sort_pairs(exec, keys, order, bit_width(max_workload), temps);
  const auto out = wlt;
  Kokkos::parallel_for(
      "libra::spgemm::wlt::order", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t i) {
        const std::uint64_t src = order(i);
        out.a_begin(i) = a_begin(src);
        out.a_end(i) = a_end(src);
        out.k(i) = ks(src);
        out.products(i) = prods(src);
      });
  return wlt;
}

// Cuts the table into consecutive chunks whose products fit `capacity`.
// Returns the chunk boundaries [b0 = 0, b1, ..., bn = size] on the host.
template <class Exec, class Offset, class Mem>
std::vector<std::size_t> plan_chunks(const Exec& exec,
                                     const WorkloadTable<Offset, Mem>& wlt,
                                     std::uint64_t capacity, const Temps<Mem>& temps) {
  std::vector<std::size_t> cuts{0};
  if (wlt.size == 0) return cuts;
  if (wlt.total_products <= capacity) {
    cuts.push_back(wlt.size);
    return cuts;
  }
  const TempsFrame<Mem> frame(temps);
  Kokkos::View<std::uint64_t*, Mem> prefix =
      temps.template view<std::uint64_t>("libra::spgemm::wlt::prefix", wlt.size + 1);
  exclusive_scan(exec, "libra::spgemm::wlt::prefix", wlt.products, prefix, "products");
  const auto h = host_copy(exec, prefix);
  std::size_t begin = 0;
  while (begin < wlt.size) {
    std::size_t end = begin + 1;  // every item fits by construction
    while (end < wlt.size && h(end + 1) - h(begin) <= capacity) ++end;
    cuts.push_back(end);
    begin = end;
  }
  return cuts;
}

}  // namespace libra::impl
