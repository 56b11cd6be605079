#pragma once
// How heterogeneous SpGEMM divides C = A * B between a device and the host
// (ApSpGEMM, Section 5.2, Algorithm 3): the rows of A ranked by their affinity
// for the device, highest first, and the products each brings, so that a share
// R of the products is a prefix of the ranking; and the device's prefix cut into
// panels that fit its memory.
//
// A row's affinity is the mean of its sparsity and the mean sparsity of the rows
// of B it selects, sparsity being the fraction of a row that is zero: sparse
// rows, whose products scatter, suit the device; dense ones, whose products a
// cache keeps, suit the host.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "libra/algorithms/radix_sort.hpp"
#include "libra/core/error.hpp"

namespace libra::impl {

struct HeteroOrder {
  // Rows of A that have products, highest affinity first (ties: ascending row).
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> rows;
  // cum(p): the products of rows[0, p); p in [0, rows.extent(0)].
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> cum;
  std::uint64_t total = 0;

  std::size_t size() const { return rows.extent(0); }
  // The first position p with cum(p) >= products (size() if none).
  std::size_t position_of(double products) const {
    const auto* b = cum.data();
    const auto* e = b + cum.extent(0);
    const auto target = products <= 0 ? std::uint64_t(0)
                        : products >= static_cast<double>(total)
                            ? total
                            : static_cast<std::uint64_t>(products);
    return static_cast<std::size_t>(std::lower_bound(b, e, target) - b);
  }
  std::uint64_t products(std::size_t begin, std::size_t end) const {
    return cum(end) - cum(begin);
  }
};

// Row i of A * B's products: the lengths of the rows of B that A(i,:) selects.
template <class RowMap, class ColIdx, class BRowMap>
KOKKOS_INLINE_FUNCTION std::uint64_t row_product_count(const RowMap& a_rm,
                                                       const ColIdx& a_col,
                                                       const BRowMap& b_rm,
                                                       const std::int64_t i) {
  std::uint64_t p = 0;
  for (auto q = a_rm(i); q < a_rm(i + 1); ++q)
    p += static_cast<std::uint64_t>(b_rm(a_col(q) + 1) - b_rm(a_col(q)));
  return p;
}

// A calibration's rows: `blocks` runs of consecutive rows of A spread evenly
// over it (run j starts (j + phase) / blocks of the way down), about `share` of
// A's rows in all, rows without products left out. A side alone multiplies A
// in its own order, so its rate is measured on neighbouring rows, which share
// rows of B as the whole product's do: single rows every 50th of the affinity
// ranking measured both sides 1.1-2.6x slower than they ran alone, the host
// most (H200 machine, d0dc3bb: bcsstk33 13.8 ms modelled against 6.2 ms).
template <class Csr>
HeteroOrder block_sample(const Csr& A, const Csr& B, double share, std::size_t blocks,
                         double phase) {
  const auto n = static_cast<std::size_t>(A.num_rows);
  blocks = std::max<std::size_t>(1, std::min(blocks, n));
  const auto run =
      std::max<std::size_t>(1, static_cast<std::size_t>(share * static_cast<double>(n) /
                                                        static_cast<double>(blocks)));
  std::vector<std::int64_t> rows;
  std::vector<std::uint64_t> cum{0};
  std::size_t next = 0;  // runs never overlap: each starts after the last ends
  for (std::size_t j = 0; j < blocks; ++j) {
    const auto at =
        static_cast<std::size_t>((static_cast<double>(j) + phase) *
                                 static_cast<double>(n) / static_cast<double>(blocks));
    const std::size_t first = std::max(next, std::min(at, n));
    const std::size_t last = std::min(n, first + run);
    for (std::size_t i = first; i < last; ++i) {
      const std::uint64_t p = row_product_count(A.row_map, A.col_idx, B.row_map,
                                                static_cast<std::int64_t>(i));
      if (p == 0) continue;
      rows.push_back(static_cast<std::int64_t>(i));
      cum.push_back(cum.back() + p);
    }
    next = last;
  }
  HeteroOrder s;
  s.rows = Kokkos::View<std::int64_t*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::sample_rows"),
      rows.size());
  s.cum = Kokkos::View<std::uint64_t*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::sample_cum"),
      cum.size());
  std::copy(rows.begin(), rows.end(), s.rows.data());
  std::copy(cum.begin(), cum.end(), s.cum.data());
  s.total = cum.back();
  return s;
}

// A * B's products and the rows of A that have any (A and B host-accessible,
// Exec a host space): what decides R before any ranking. One pass; on the
// calling thread below 2^12 nonzeros of A, where a parallel region's start
// costs more than the pass (products decide whether a small product goes to
// the host alone, so this is most of what such a call adds to the host's
// SpGEMM). Up to 2^15 on the calling thread added 50-90 us to add32 and
// bcsstk21 on the H200 machine's host (16 cores): more than two parallel passes.
struct ProductTotals {
  std::uint64_t products = 0;
  std::uint64_t rows = 0;
};
template <class RowMap, class ColIdx>
struct ProductTotalsPass {
  using value_type = ProductTotals;
  RowMap a_rm;
  ColIdx a_col;
  RowMap b_rm;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, value_type& t) const {
    const std::uint64_t p = row_product_count(a_rm, a_col, b_rm, i);
    t.products += p;
    t.rows += p > 0;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& t) const { t = ProductTotals{}; }
#if KOKKOS_VERSION < 40000
  // Kokkos 3.x joins through volatile references; 4.x uses the overload below.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& a,
                                   const volatile value_type& b) const {
    a.products = a.products + b.products;
    a.rows = a.rows + b.rows;
  }
#endif
  KOKKOS_INLINE_FUNCTION void join(value_type& a, const value_type& b) const {
    a.products += b.products;
    a.rows += b.rows;
  }
};
template <class Exec, class Csr>
ProductTotals product_totals(const Exec& exec, const Csr& A, const Csr& B,
                             const std::uint64_t serial_below = std::uint64_t(1) << 12) {
  const ProductTotalsPass<decltype(A.row_map), decltype(A.col_idx)> pass{
      A.row_map, A.col_idx, B.row_map};
  ProductTotals t;
  if (static_cast<std::uint64_t>(A.nnz()) < serial_below) {
    for (std::int64_t i = 0; i < A.num_rows; ++i) pass(i, t);
    return t;
  }
  Kokkos::parallel_reduce(
      "libra::spgemm::hetero::products",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, A.num_rows),
      pass, t);
  return t;
}

// The ranking of A's rows (A and B host-accessible, Exec a host space).
template <class Exec, class Csr>
HeteroOrder affinity_order(const Exec& exec, const Csr& A, const Csr& B) {
  using mem = Kokkos::HostSpace;
  const std::int64_t n = A.num_rows;
  const auto a_rm = A.row_map;
  const auto a_col = A.col_idx;
  const auto b_rm = B.row_map;
  const double a_width = std::max<double>(1, A.num_cols);
  const double b_width = std::max<double>(1, B.num_cols);
  Kokkos::View<std::uint32_t*, mem> keys(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::keys"), n);
  Kokkos::View<std::int64_t*, mem> rows(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::rows"), n);
  Kokkos::View<std::uint64_t*, mem> products(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::row_products"), n);
  std::int64_t busy = 0;
  Kokkos::parallel_reduce(
      "libra::spgemm::hetero::affinity", Kokkos::RangePolicy<Exec>(exec, 0, n),
      [=](const std::int64_t i, std::int64_t& count) {
        std::uint64_t p = 0;
        double b_density = 0;
        for (auto q = a_rm(i); q < a_rm(i + 1); ++q) {
          const auto k = a_col(q);
          const auto len = b_rm(k + 1) - b_rm(k);
          p += static_cast<std::uint64_t>(len);
          b_density += static_cast<double>(len) / b_width;
        }
        rows(i) = i;
        products(i) = p;
        if (p == 0) {
          keys(i) = 0xFFFFFFFFu;  // no work: ranked last, dropped below
          return;
        }
        ++count;
        const double a_len = static_cast<double>(a_rm(i + 1) - a_rm(i));
        // Highest affinity = lowest density; a positive float's bits sort as
        // the float does.
        const float density =
            static_cast<float>(0.5 * (a_len / a_width + b_density / a_len));
        std::uint32_t bits;
        std::memcpy(&bits, &density, sizeof bits);
        keys(i) = bits;
      },
      busy);
  radix_sort_pairs(exec, keys, rows, 32);
  HeteroOrder order;
  order.rows = Kokkos::subview(rows, std::make_pair(std::int64_t(0), busy));
  order.cum = Kokkos::View<std::uint64_t*, mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::cum"), busy + 1);
  const auto cum = order.cum;
  const auto ranked = order.rows;
  Kokkos::parallel_scan(
      "libra::spgemm::hetero::cum", Kokkos::RangePolicy<Exec>(exec, 0, busy + 1),
      [=](const std::int64_t p, std::uint64_t& sum, const bool final) {
        if (final) cum(p) = sum;
        if (p < busy) sum += products(ranked(p));
      },
      order.total);
  return order;
}

// What a row of A costs the device while its panel is there: the row itself,
// its row of C at its largest (products, at most B's columns), and the panel
// SpGEMM's per-row arrays (panel_fixed_bytes).
template <class S, class O, class Off>
struct DeviceRowCost {
  std::uint64_t columns = 0;  // of B
  std::uint64_t operator()(std::uint64_t a_entries, std::uint64_t products) const {
    const std::uint64_t entry = sizeof(S) + sizeof(O);
    return 2 * sizeof(Off) + 48 + a_entries * entry + std::min(products, columns) * entry;
  }
};

// The device's memory after B: two panels in flight (panel j's A and C while
// j+1's A goes up and j-1's C comes down) and one panel's SpGEMM temporaries,
// each at most `panel` bytes, plus `reserve` for the SpGEMM's fixed temporaries.
// When all of the device's rows fit half of it (in-core), their panels are cut
// for overlap only, and may cost `whole` in all.
struct DeviceMemorySplit {
  static constexpr std::uint64_t reserve = std::uint64_t(1) << 20;
  std::uint64_t panel = 0;          // the most a panel's rows may cost
  std::uint64_t whole = 0;          // in-core: the most all the rows may cost
  std::uint64_t spgemm_budget = 0;  // a panel's SpGEMM temporaries
};

// Bytes of a CSR matrix of `rows` rows and `entries` entries (offsets, columns,
// values), and of a matrix itself: what a copy of it moves and holds.
template <class S, class O, class Off>
constexpr std::uint64_t csr_bytes_of(std::uint64_t rows, std::uint64_t entries) {
  return (rows + 1) * sizeof(Off) + entries * (sizeof(O) + sizeof(S));
}
template <class M>
std::uint64_t csr_bytes(const M& m) {
  return m.row_map.extent(0) * sizeof(typename M::offset_type) +
         m.col_idx.extent(0) *
             (sizeof(typename M::ordinal_type) + sizeof(typename M::scalar_type));
}

// Whether a budget holds B twice over and 1 MiB besides (else B goes in
// column blocks: hetero_column_blocks.hpp).
inline bool fits_device_memory(std::uint64_t budget, std::uint64_t b_bytes) {
  return 2 * b_bytes <= budget && budget - b_bytes > DeviceMemorySplit::reserve;
}

// Throws ArgumentError when B does not fit half the budget, or nothing is left.
inline DeviceMemorySplit split_device_memory(std::uint64_t budget,
                                             std::uint64_t b_bytes) {
  if (!fits_device_memory(budget, b_bytes)) {
    throw ArgumentError("spgemm_hetero: B takes " + std::to_string(b_bytes) +
                        " bytes of the device memory given (" + std::to_string(budget) +
                        "), which must hold B twice over and 1 MiB besides");
  }
  DeviceMemorySplit m;
  m.panel = (budget - b_bytes - DeviceMemorySplit::reserve) / 3;
  m.whole = (budget - b_bytes - DeviceMemorySplit::reserve) / 2;
  m.spgemm_budget = m.panel + DeviceMemorySplit::reserve;
  return m;
}

// What positions [begin, end) of the ranking cost the device at once.
template <class Cost, class Csr>
std::uint64_t rows_cost(const HeteroOrder& order, const Csr& A, std::size_t begin,
                        std::size_t end, const Cost& cost) {
  std::uint64_t bytes = 0;
  for (std::size_t p = begin; p < end; ++p) {
    const auto i = order.rows(p);
    bytes += cost(static_cast<std::uint64_t>(A.row_map(i + 1) - A.row_map(i)),
                  order.cum(p + 1) - order.cum(p));
  }
  return bytes;
}

// What every row of A with products costs the device at once (rows_cost over
// the whole ranking, without ranking; A and B host-accessible, Exec a host
// space): whether the product is in core is known before any ranking.
template <class Exec, class Cost, class Csr>
std::uint64_t all_rows_cost(const Exec& exec, const Csr& A, const Csr& B,
                            const Cost& cost) {
  const auto a_rm = A.row_map;
  const auto a_col = A.col_idx;
  const auto b_rm = B.row_map;
  std::uint64_t bytes = 0;
  Kokkos::parallel_reduce(
      "libra::spgemm::hetero::rows_cost",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, A.num_rows),
      [=](const std::int64_t i, std::uint64_t& sum) {
        const std::uint64_t p = row_product_count(a_rm, a_col, b_rm, i);
        if (p > 0) sum += cost(static_cast<std::uint64_t>(a_rm(i + 1) - a_rm(i)), p);
      },
      bytes);
  return bytes;
}

// Positions [begin, end) of the order cut into consecutive panels, each costing
// at most `cap` bytes and holding at most `products_per_panel` products (at
// least one row each). Throws ArgumentError when one row alone exceeds `cap`.
template <class Cost, class Csr>
std::vector<std::pair<std::size_t, std::size_t>> plan_device_panels(
    const HeteroOrder& order, const Csr& A, std::size_t begin, std::size_t end,
    const Cost& cost, std::uint64_t cap, std::uint64_t products_per_panel) {
  std::vector<std::pair<std::size_t, std::size_t>> panels;
  std::size_t first = begin;
  std::uint64_t bytes = 0, products = 0;
  for (std::size_t p = begin; p < end; ++p) {
    const auto i = order.rows(p);
    const auto entries = static_cast<std::uint64_t>(A.row_map(i + 1) - A.row_map(i));
    const std::uint64_t row_products = order.cum(p + 1) - order.cum(p);
    const std::uint64_t c = cost(entries, row_products);
    if (c > cap) {
      throw ArgumentError("spgemm_hetero: row " + std::to_string(i) + " of A needs " +
                          std::to_string(c) +
                          " bytes of device memory with its row of C, more than a "
                          "panel may take (" +
                          std::to_string(cap) + " bytes); give more device memory");
    }
    if (p > first && (bytes + c > cap || products + row_products > products_per_panel)) {
      panels.emplace_back(first, p);
      first = p;
      bytes = products = 0;
    }
    bytes += c;
    products += row_products;
  }
  if (end > first) panels.emplace_back(first, end);
  return panels;
}

}  // namespace libra::impl
