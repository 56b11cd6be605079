#pragma once
// Sorting coordinate entries by (row, column) and summing duplicates, on the
// entries' own device. Deterministic: the radix sort is stable, so duplicates are
// always summed in input order.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/radix_sort.hpp"
#include "libra/algorithms/scan.hpp"
#include "libra/format/impl/compressed.hpp"

namespace libra::impl {

// perm such that (rows(perm(p)), cols(perm(p))) ascends in p, stably.
template <class Exec, class Ordinal, class IndexView, class PermView>
void row_col_permutation(const Exec& exec, Ordinal num_rows, Ordinal num_cols,
                         const IndexView& rows, const IndexView& cols,
                         const PermView& perm) {
  using mem = typename Exec::memory_space;
  using Perm = typename PermView::non_const_value_type;
  const std::size_t n = rows.extent(0);
  const int row_bits = key_bits_for(static_cast<std::uint64_t>(num_rows));
  const int col_bits = key_bits_for(static_cast<std::uint64_t>(num_cols));
  Kokkos::parallel_for(
      "libra::coo::iota", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t p) { perm(p) = static_cast<Perm>(p); });
  Kokkos::View<std::uint64_t*, mem> keys(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::keys"), n);
  if (row_bits + col_bits <= 64) {
    Kokkos::parallel_for(
        "libra::coo::row_col_keys", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(const std::size_t p) {
          keys(p) = (static_cast<std::uint64_t>(rows(p)) << col_bits) |
                    static_cast<std::uint64_t>(cols(p));
        });
    radix_sort_pairs(exec, keys, perm, row_bits + col_bits);
    return;
  }
  // Too wide for one key: sort by column, then stably by row.
  Kokkos::parallel_for(
      "libra::coo::col_keys", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t p) {
        keys(p) = static_cast<std::uint64_t>(cols(p));
      });
  radix_sort_pairs(exec, keys, perm, col_bits);
  Kokkos::parallel_for(
      "libra::coo::row_keys", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t p) {
        keys(p) = static_cast<std::uint64_t>(rows(perm(p)));
      });
  radix_sort_pairs(exec, keys, perm, row_bits);
}

// Sorted, duplicate-free copies of (rows, cols, vals). Returns the number of
// unique entries; out_* are allocated here.
template <class Exec, class Ordinal, class IndexView, class ValueView>
std::size_t sort_and_sum_entries(const Exec& exec, Ordinal num_rows, Ordinal num_cols,
                                 const IndexView& rows, const IndexView& cols,
                                 const ValueView& vals, IndexView& out_rows,
                                 IndexView& out_cols, ValueView& out_vals) {
  using mem = typename Exec::memory_space;
  const std::size_t n = rows.extent(0);
  Kokkos::View<std::uint64_t*, mem> perm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::perm"), n);
  row_col_permutation(exec, num_rows, num_cols, rows, cols, perm);

  // heads(p) = 1 where a run of equal (row, col) starts; its scan numbers the runs.
  Kokkos::View<std::uint64_t*, mem> heads(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::heads"), n);
  Kokkos::parallel_for(
      "libra::coo::mark_heads", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t p) {
        const auto a = perm(p);
        bool head = p == 0;
        if (!head) {
          const auto b = perm(p - 1);
          head = rows(a) != rows(b) || cols(a) != cols(b);
        }
        heads(p) = head ? 1 : 0;
      });
  Kokkos::View<std::uint64_t*, mem> run(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::run_index"), n + 1);
  const std::size_t unique =
      exclusive_scan(exec, "libra::coo::number_runs", heads, run, "unique entries");

  out_rows = IndexView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::rows"), unique);
  out_cols = IndexView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::cols"), unique);
  out_vals = ValueView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::values"), unique);
  IndexView o_rows = out_rows, o_cols = out_cols;
  ValueView o_vals = out_vals;
  Kokkos::parallel_for(
      "libra::coo::sum_runs", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t p) {
        if (!heads(p)) return;
        const auto first = perm(p);
        typename ValueView::non_const_value_type sum = vals(first);
        for (std::size_t q = p + 1; q < n && !heads(q); ++q) sum += vals(perm(q));
        const std::uint64_t u = run(p);
        o_rows(u) = rows(first);
        o_cols(u) = cols(first);
        o_vals(u) = sum;
      });
  return unique;
}

}  // namespace libra::impl
