#pragma once
// Merging the partial results of partitioned SpMV (MSREP Section 4.3), on the
// device. Row-based parts (pCSR, pCOO by row) each produce their segment of y:
// every row is copied from the first part that covers it, y = beta * y + part,
// then a second kernel adds, in part order, the first row of each part whose
// start flag says an earlier part began it (at most P rows). Column-based parts
// (pCSC) each produce a full-length y: y = beta * y + the sum of the P vectors.
// Row parts written straight into y need only their shared rows added.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

// Per part: first entry in the buffer, first row, start flag, rows covered.
template <class Exec>
using MergeTable = Kokkos::View<const std::int64_t* [4], Kokkos::LayoutRight,
                                typename Exec::memory_space>;

template <class Exec, class Buffer, class YView>
void merge_row_parts(const Exec& exec, const MergeTable<Exec>& table, const Buffer& buf,
                     const YView& Y, typename YView::non_const_value_type beta) {
  using S = typename YView::non_const_value_type;
  const std::int64_t P = static_cast<std::int64_t>(table.extent(0));
  const std::int64_t total = static_cast<std::int64_t>(buf.extent(0));
  const std::int64_t K = spmv_columns(Y);
  Kokkos::parallel_for(
      "libra::spmv::merge::row_segments", Kokkos::RangePolicy<Exec>(exec, 0, total * K),
      KOKKOS_LAMBDA(const std::int64_t idx) {
        const std::int64_t e = idx / K, k = idx % K;
        std::int64_t lo = 0, hi = P;  // the last part with table(i, 0) <= e
        while (hi - lo > 1) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          if (table(mid, 0) <= e) {
            lo = mid;
          } else {
            hi = mid;
          }
        }
        const std::int64_t j = e - table(lo, 0);
        if (j == 0 && table(lo, 2) != 0) return;  // a shared row: added below
        auto& y = spmv_at(Y, table(lo, 1) + j, k);
        y = beta == S(0) ? buf(e, k) : beta * y + buf(e, k);
      });
  Kokkos::parallel_for(
      "libra::spmv::merge::shared_rows", Kokkos::RangePolicy<Exec>(exec, 0, K),
      KOKKOS_LAMBDA(const std::int64_t k) {
        for (std::int64_t i = 0; i < P; ++i) {  // in order: deterministic sums
          if (table(i, 2) != 0 && table(i, 3) > 0) {
            spmv_at(Y, table(i, 1), k) += buf(table(i, 0), k);
          }
        }
      });
}

// Where the parts' rows went straight into y, each writing every row but a
// shared first one: adds, in part order, part i's shared first row (row i of
// `shared`) to y.
template <class Exec, class Shared, class YView>
void add_shared_rows(const Exec& exec, const MergeTable<Exec>& table,
                     const Shared& shared, const YView& Y) {
  const std::int64_t P = static_cast<std::int64_t>(table.extent(0));
  Kokkos::parallel_for(
      "libra::spmv::merge::add_shared_rows",
      Kokkos::RangePolicy<Exec>(exec, 0, spmv_columns(Y)),
      KOKKOS_LAMBDA(const std::int64_t k) {
        for (std::int64_t i = 0; i < P; ++i) {  // in order: deterministic sums
          if (table(i, 2) != 0 && table(i, 3) > 0) {
            spmv_at(Y, table(i, 1), k) += shared(i, k);
          }
        }
      });
}

template <class Exec, class Buffer, class YView>
void merge_column_parts(const Exec& exec, std::int64_t parts, const Buffer& buf,
                        const YView& Y, typename YView::non_const_value_type beta) {
  using S = typename YView::non_const_value_type;
  const std::int64_t m = static_cast<std::int64_t>(Y.extent(0));
  const std::int64_t K = spmv_columns(Y);
  Kokkos::parallel_for(
      "libra::spmv::merge::sum_vectors", Kokkos::RangePolicy<Exec>(exec, 0, m * K),
      KOKKOS_LAMBDA(const std::int64_t idx) {
        const std::int64_t r = idx / K, k = idx % K;
        S sum = S(0);
        for (std::int64_t i = 0; i < parts; ++i) sum += buf(i * m + r, k);
        auto& y = spmv_at(Y, r, k);
        y = beta == S(0) ? sum : beta * y + sum;
      });
}

}  // namespace libra::impl
