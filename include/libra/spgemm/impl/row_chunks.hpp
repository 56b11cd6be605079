#pragma once
// lbGEMM's chunks by row panels: when the products exceed the memory budget,
// consecutive rows of A whose products (exact, from A's CSR and B's row
// lengths) fit one chunk. Each chunk then makes its own rows of C, so the
// chunks' patterns are concatenated instead of merged (a chunk cut by table
// items touches every row, and merging them cost 304 of 1,066 ms on R-MAT 18).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "libra/algorithms/scan.hpp"
#include "libra/core/checked.hpp"
#include "libra/spgemm/impl/pattern_union.hpp"
#include "libra/util/host_copy.hpp"
#include "libra/util/result_memory.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

struct RowChunks {
  std::vector<std::size_t> cuts;  // rows [cuts[m], cuts[m + 1]) form chunk m
  std::uint64_t largest = 0;      // products of the largest chunk
};

// Row cuts whose chunks each hold at most `capacity` products; no cuts when
// one row's products alone exceed it.
template <class Exec, class Csr>
RowChunks plan_row_chunks(const Exec& exec, const Csr& A, const Csr& B,
                          std::uint64_t capacity,
                          const Temps<typename Exec::memory_space>& temps) {
  using mem = typename Exec::memory_space;
  const TempsFrame<mem> frame(temps);
  const auto n = static_cast<std::size_t>(A.num_rows);
  const auto products =
      temps.template view<std::uint64_t>("libra::spgemm::outer::row_products", n);
  const auto a_map = A.row_map;
  const auto a_col = A.col_idx;
  const auto b_map = B.row_map;
  std::uint64_t longest = 0;
  Kokkos::parallel_reduce(
      "libra::spgemm::outer::row_products", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& m) {
        std::uint64_t sum = 0;
        for (auto p = a_map(i); p < a_map(i + 1); ++p) {
          const auto k = a_col(p);
          sum += static_cast<std::uint64_t>(b_map(k + 1) - b_map(k));
        }
        products(i) = sum;
        if (sum > m) m = sum;
      },
      Kokkos::Max<std::uint64_t>(longest));
  RowChunks out;
  if (n == 0 || longest > capacity) return out;
  const auto prefix =
      temps.template view<std::uint64_t>("libra::spgemm::outer::row_prefix", n + 1);
  exclusive_scan(exec, "libra::spgemm::outer::row_prefix", products, prefix, "products");
  const auto h = host_copy(exec, prefix);
  out.cuts.push_back(0);
  std::size_t begin = 0;
  while (begin < n) {
    std::size_t end = begin + 1;  // every row fits by the check above
    while (end < n && h(end + 1) - h(begin) <= capacity) ++end;
    out.cuts.push_back(end);
    out.largest = std::max(out.largest, h(end) - h(begin));
    begin = end;
  }
  return out;
}

// Whether the rows ascend within every column of a CSC matrix: the expand
// kernel narrows a column to a row panel by binary search. Libra's own CSC
// always does; a caller's (CsrWithColumns) need not.
template <class Exec, class Csc>
bool rows_ascend_in_columns(const Exec& exec, const Csc& A) {
  const auto col_map = A.col_map;
  const auto row_idx = A.row_idx;
  std::uint64_t descents = 0;
  Kokkos::parallel_reduce(
      "libra::spgemm::outer::rows_ascend",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::size_t>(A.num_cols)),
      KOKKOS_LAMBDA(const std::size_t j, std::uint64_t& n) {
        for (auto p = col_map(j) + 1; p < col_map(j + 1); ++p)
          n += row_idx(p) < row_idx(p - 1);
      },
      descents);
  return descents == 0;
}

// C's pattern from the chunks' patterns of row panels: part m holds the rows
// [cuts[m], cuts[m + 1]) and no others.
template <class Exec, class Pattern>
Pattern concatenate_row_panels(const Exec& exec, const std::vector<std::size_t>& cuts,
                               const std::vector<Pattern>& parts, std::size_t num_rows) {
  using O = typename Pattern::ordinal_type;
  using Off = typename Pattern::offset_type;
  using mem = typename Exec::memory_space;
  std::uint64_t total = 0;
  for (const auto& part : parts) total += static_cast<std::uint64_t>(part.col.extent(0));
  checked_cast<Off>(total, "nnz(C)");
  Pattern c;
  c.row_map = result_view<Off, mem>("libra::spgemm::C::row_map", num_rows + 1);
  c.col = result_view<O, mem>("libra::spgemm::C::col", total);
  std::uint64_t base = 0;
  for (std::size_t m = 0; m < parts.size(); ++m) {
    const auto part_map = parts[m].row_map;
    const auto out_map = c.row_map;
    const Off shift = static_cast<Off>(base);
    Kokkos::parallel_for(
        "libra::spgemm::outer::concatenate",
        Kokkos::RangePolicy<Exec>(exec, cuts[m], cuts[m + 1]),
        KOKKOS_LAMBDA(const std::size_t i) { out_map(i) = part_map(i) + shift; });
    const std::uint64_t len = parts[m].col.extent(0);
    Kokkos::deep_copy(exec, Kokkos::subview(c.col, Kokkos::make_pair(base, base + len)),
                      parts[m].col);
    base += len;
  }
  Kokkos::deep_copy(exec, Kokkos::subview(c.row_map, num_rows), static_cast<Off>(total));
  return c;
}

}  // namespace libra::impl
