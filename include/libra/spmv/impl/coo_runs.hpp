#pragma once
// COO SpMV: the nonzeros are cut into segments of equal count, one thread each;
// a thread sums each run of equal row indices and adds the run's sum into y with
// one atomic (Y was scaled by beta before). A Coo sorted by row (Libra's) makes
// one atomic per row and segment; any other order stays correct, at one atomic
// per entry at worst. Row r goes to Y(r - row_shift).
// Where a first pass finds the rows never decreasing (spmv_coo_rows_sorted), a
// row inside a segment (neither its first run nor its last) has every entry
// there, and the thread adds it without an atomic: on host spaces the atomic is
// a compare-and-swap loop, one per row (2 host cores, the check's launch
// included: bcsstm25, one entry a row, 0.62x the time; luxembourg, two, 0.75x;
// geometric mean over 21 matrices 0.94x; perf_tests/report/host/coo_sorted_check/).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

template <class Exec, class Index, class Values, class XView, class YView>
struct SpmvCooRuns {
  using S = typename YView::non_const_value_type;
  Index row_idx, col_idx;
  Values values;
  XView X;
  YView Y;
  S alpha;
  std::int64_t nnz, items, row_shift, K;
  bool sorted = false;  // rows never decrease: inner rows are added plainly

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t p0 = t * items;
    const std::int64_t p1 = p0 + items < nnz ? p0 + items : nnz;
    for (std::int64_t k = 0; k < K; ++k) {
      std::int64_t p = p0;
      while (p < p1) {
        const bool first = p == p0;
        const auto r = row_idx(p);
        S sum = S(0);
        for (; p < p1 && row_idx(p) == r; ++p) {
          sum += values(p) * spmv_at(X, col_idx(p), k);
        }
        auto& y = spmv_at(Y, static_cast<std::int64_t>(r) - row_shift, k);
        if (sorted && !first && p < p1) {
          y += alpha * sum;  // the row's entries all lie in this segment
        } else {
          spmv_add<Exec>(y, alpha * sum);
        }
      }
    }
  }
};

// The fewest nonzeros for which Libra checks the rows' order (below, the check's
// launch cost more than the atomics it spares: cage8, 11,003 nonzeros, 1.1x the
// time with it on 2 host cores; bcsstm25, 15,439, 0.62x).
inline constexpr std::int64_t spmv_coo_sorted_check_min = 12288;

// Whether the runs kernel checks the rows' order first: on host spaces with
// more than one thread (one thread adds plainly anyway; GPUs take COO's tiles)
// for at least spmv_coo_sorted_check_min nonzeros; `forced` 1 always, -1 never.
template <class Exec>
bool spmv_coo_checks_order(std::int64_t nnz, int forced) {
  if (forced != 0) return forced > 0;
  return !LaunchTraits<Exec>::is_gpu && !spmv_single_thread<Exec> &&
         nnz >= spmv_coo_sorted_check_min;
}

// Whether row_idx never decreases, in one pass over the segments (each also
// compares its last entry with the next segment's first).
template <class Exec, class Index>
bool spmv_coo_rows_sorted(const Exec& exec, const Index& row_idx, std::int64_t nnz,
                          std::int64_t items, std::int64_t segments) {
  int sorted = 1;
  Kokkos::parallel_reduce(
      "libra::spmv::coo::rows_sorted", Kokkos::RangePolicy<Exec>(exec, 0, segments),
      KOKKOS_LAMBDA(const std::int64_t t, int& all) {
        const std::int64_t p0 = t * items;
        const std::int64_t p1 = p0 + items < nnz ? p0 + items + 1 : nnz;
        int up = 1;  // no branch per entry
        for (std::int64_t p = p0 + 1; p < p1; ++p) up &= row_idx(p - 1) <= row_idx(p);
        all = up < all ? up : all;
      },
      Kokkos::Min<int>(sorted));  // (Kokkos 3.4 has no LAnd<bool> identity)
  return sorted > 0;
}

// Returns the number of segments; `plain` says whether rows inside segments
// were added without atomics (the rows were found sorted).
template <class Exec, class Index, class Values, class XView, class YView>
std::int64_t spmv_coo_runs(const Exec& exec, const Index& row_idx, const Index& col_idx,
                           const Values& values, const XView& X, const YView& Y,
                           std::int64_t row_shift,
                           typename YView::non_const_value_type alpha,
                           std::int64_t forced_items, int forced_check, bool& plain) {
  plain = false;
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  if (nnz == 0) return 0;
  const std::int64_t K = spmv_columns(Y);
  const std::int64_t items = spmv_segment_items(exec, nnz, K, forced_items);
  const std::int64_t segments = (nnz + items - 1) / items;
  if (spmv_coo_checks_order<Exec>(nnz, forced_check)) {
    plain = spmv_coo_rows_sorted(exec, row_idx, nnz, items, segments);
  }
  Kokkos::parallel_for(
      "libra::spmv::coo::runs", Kokkos::RangePolicy<Exec>(exec, 0, segments),
      SpmvCooRuns<Exec, Index, Values, XView, YView>{
          row_idx, col_idx, values, X, Y, alpha, nnz, items, row_shift, K, plain});
  return segments;
}

}  // namespace libra::impl
