#pragma once
// CSC SpMV: column j of A times x(j) is scattered into y. The columns and
// nonzeros are cut into equal merge-path segments (empty and huge columns
// balance alike), one thread each; a thread reads x(j) once per column and adds
// each product into y with an atomic (Y was scaled by beta before). pCSC runs it
// on its local offsets with x read at x_base + local column.
//
// Host spaces have no floating-point atomic add (it is a compare-and-swap loop),
// so when it fits they take the private variant instead: one segment per thread,
// each adding plainly into its own rows x K block of a buffer, then one kernel
// sums the blocks into y (y = beta * y + sum), as pCSC's partial results merge.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/merge_path.hpp"
#include "libra/spmv/impl/common.hpp"
#include "libra/spmv/impl/merge.hpp"

namespace libra::impl {

template <class Exec, class ColMap, class Index, class Values, class XView, class YView,
          bool Private = false>
struct SpmvCscScatter {
  using S = typename YView::non_const_value_type;
  ColMap col_map;
  Index row_idx;
  Values values;
  XView X;
  YView Y;
  S alpha;
  std::int64_t cols, nnz, items, x_base, y_base, K;
  std::int64_t block_rows = 0;  // Private: segment t writes rows t * block_rows + r
  bool plain = false;           // one thread runs every segment: no atomics

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t total = cols + nnz;
    const std::int64_t d0 = t * items < total ? t * items : total;
    const std::int64_t d1 = d0 + items < total ? d0 + items : total;
    std::int64_t c0, j0, c1, j1;
    merge_path_search(col_map, cols, nnz, d0, c0, j0);
    merge_path_search(col_map, cols, nnz, d1, c1, j1);
    const std::int64_t last = c1 < cols ? c1 : cols - 1;
    for (std::int64_t c = c0; c <= last; ++c) {
      const std::int64_t cb = static_cast<std::int64_t>(col_map(c));
      const std::int64_t ce = static_cast<std::int64_t>(col_map(c + 1));
      const std::int64_t pb = cb > j0 ? cb : j0;
      const std::int64_t pe = ce < j1 ? ce : j1;
      for (std::int64_t k = 0; k < K; ++k) {
        const S xa = alpha * spmv_at(X, x_base + c, k);
        for (std::int64_t p = pb; p < pe; ++p) {
          if constexpr (Private) {
            spmv_at(Y, t * block_rows + y_base + row_idx(p), k) += values(p) * xa;
          } else if (plain) {
            spmv_at(Y, y_base + row_idx(p), k) += values(p) * xa;
          } else {
            spmv_add<Exec>(spmv_at(Y, y_base + row_idx(p), k), values(p) * xa);
          }
        }
      }
    }
  }
};

// Whether the scatter adds without atomics: where one thread runs every
// segment (a host space with one thread: OMP_NUM_THREADS=1, as with a rank per
// core under MPI), since a host's floating-point atomic add is a compare-and-swap
// loop (pCSC's scatter took 4x its time with it). `forced`: 1 plain, -1 never.
template <class Exec>
bool spmv_plain_adds(const Exec& exec, int forced) {
  if (forced != 0) return forced > 0;
  if constexpr (LaunchTraits<Exec>::is_gpu) {
    (void)exec;
    return false;
  } else {
    return exec.concurrency() == 1;
  }
}

template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
std::int64_t spmv_csc_scatter(const Exec& exec, const ColMap& col_map,
                              const Index& row_idx, const Values& values,
                              std::int64_t cols, const XView& X, std::int64_t x_base,
                              const YView& Y, std::int64_t y_base,
                              typename YView::non_const_value_type alpha,
                              std::int64_t forced_items, bool plain) {
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  const std::int64_t K = spmv_columns(Y);
  const std::int64_t total = cols + nnz;
  const std::int64_t items = spmv_segment_items(exec, total, K, forced_items);
  const std::int64_t segments = (total + items - 1) / items;
  SpmvCscScatter<Exec, ColMap, Index, Values, XView, YView> f{
      col_map, row_idx, values, X, Y, alpha, cols, nnz, items, x_base, y_base, K};
  f.plain = plain;
  Kokkos::parallel_for("libra::spmv::csc::scatter",
                       Kokkos::RangePolicy<Exec>(exec, 0, segments), f);
  return segments;
}

// Whether the private variant runs: host spaces with more than one thread, when
// the blocks (threads x rows x K) take at most 256 MiB and no more entries than
// four times the nonzeros (zeroing and summing them must not cost more than the
// scatter saves). `forced`: 1 private wherever it can run, -1 never.
template <class Exec, class S>
bool spmv_csc_private_fits(const Exec& exec, std::int64_t rows, std::int64_t K,
                           std::int64_t nnz, int forced) {
  if constexpr (LaunchTraits<Exec>::is_gpu || spmv_single_thread<Exec>) {
    (void)exec, (void)rows, (void)K, (void)nnz, (void)forced;
    return false;
  } else {
    if (forced != 0) return forced > 0;
    const std::int64_t W = static_cast<std::int64_t>(exec.concurrency());
    const double entries = static_cast<double>(W) * rows * K;
    return W > 1 && entries * sizeof(S) <= 256.0 * 1024 * 1024 &&
           entries <= 4.0 * static_cast<double>(nnz) * K;
  }
}

// The private variant: y = beta * y + alpha * A * x with A over `cols` local
// columns (x read at x_base + column), y of `rows` rows from row y_first on.
template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
std::int64_t spmv_csc_private(const Exec& exec, const ColMap& col_map,
                              const Index& row_idx, const Values& values,
                              std::int64_t cols, const XView& X, std::int64_t x_base,
                              const YView& Y, std::int64_t y_first,
                              typename YView::non_const_value_type alpha,
                              typename YView::non_const_value_type beta) {
  using S = typename YView::non_const_value_type;
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  const std::int64_t rows = static_cast<std::int64_t>(Y.extent(0));
  const std::int64_t K = spmv_columns(Y);
  const std::int64_t W = static_cast<std::int64_t>(exec.concurrency());
  const std::int64_t total = cols + nnz;
  const std::int64_t items = (total + W - 1) / W;
  // Zeroed by Kokkos in parallel: each thread first-touches blocks it may use.
  Kokkos::View<S**, Kokkos::LayoutLeft, typename Exec::memory_space> blocks(
      "libra::spmv::csc::private_blocks", static_cast<std::size_t>(W * rows),
      static_cast<std::size_t>(K));
  Kokkos::parallel_for(
      "libra::spmv::csc::private_scatter", Kokkos::RangePolicy<Exec>(exec, 0, W),
      SpmvCscScatter<Exec, ColMap, Index, Values, XView, decltype(blocks), true>{
          col_map, row_idx, values, X, blocks, alpha, cols, nnz, items, x_base, -y_first,
          K, rows});
  merge_column_parts(exec, W, blocks, Y, beta);
  return W;
}

}  // namespace libra::impl
