#pragma once
// CSR SpMV by merge path (Merrill and Garland): the walk over row ends and
// nonzeros is cut into segments of equal length, one thread each, so a
// power-law row costs no more than its share. Rows that end inside a segment are
// written by it, Y(i) = b * Y(i) + alpha * sum; the nonzeros of the row a
// segment ends inside go to a carry, added with atomics by a second kernel once
// every row has been written. `beta_first` is the b of local row 0: 1 for a
// pCSR whose first row an earlier part began (its start flag), so beta is
// applied once. Y(y_base + i) is written for local row i.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/merge_path.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

// The carries kept by a caller between calls (grown when a call needs more
// segments or another K), so that a call after the first allocates nothing: a
// cudaFree of a per-call temporary would wait for the whole device.
template <class S, class Mem>
struct MergePathCarries {
  Kokkos::View<S**, Kokkos::LayoutRight, Mem> carry;
  Kokkos::View<std::int64_t*, Mem> carry_row;
};

// WholeRows: each segment sums the rows that end in it whole, the part of its
// first row that earlier segments walked included, and leaves the row it ends
// inside to the segment it ends in: no carries (none allocated; `carry` is
// empty, K wide).
template <class Exec, class Args, bool WholeRows = false>
struct SpmvCsrMergePath {
  using S = typename Args::S;
  using mem = typename Exec::memory_space;
  Args a;
  std::int64_t items;
  Kokkos::View<S**, Kokkos::LayoutRight, mem> carry;  // segments x K
  Kokkos::View<std::int64_t*, mem> carry_row;         // -1: none

  KOKKOS_INLINE_FUNCTION S row_sum(std::int64_t pb, std::int64_t pe,
                                   std::int64_t k) const {
    S sum = S(0);
    for (std::int64_t p = pb; p < pe; ++p)
      sum += a.values(p) * spmv_at(a.X, a.col_idx(p), k);
    return sum;
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t rows = a.rows, nnz = a.nnz();
    const std::int64_t total = rows + nnz;
    const std::int64_t d0 = t * items < total ? t * items : total;
    const std::int64_t d1 = d0 + items < total ? d0 + items : total;
    std::int64_t i0, j0, i1, j1;
    merge_path_search(a.row_map, rows, nnz, d0, i0, j0);
    merge_path_search(a.row_map, rows, nnz, d1, i1, j1);
    const std::int64_t K =
        spmv_k<typename Args::y_type>(static_cast<std::int64_t>(carry.extent(1)));
    for (std::int64_t i = i0; i < i1; ++i) {  // rows that end in this segment
      const std::int64_t rb = static_cast<std::int64_t>(a.row_map(i));
      const std::int64_t pb = WholeRows || rb > j0 ? rb : j0;
      const std::int64_t pe = static_cast<std::int64_t>(a.row_map(i + 1));
      const S b = a.row_beta(i);
      for (std::int64_t k = 0; k < K; ++k) {
        const S sum = row_sum(pb, pe, k);
        spmv_write(spmv_at(a.Y, a.y_base + i, k), b, a.alpha, sum);
      }
    }
    if constexpr (!WholeRows) {
      std::int64_t cr = -1;
      if (i1 < rows) {  // the row this segment ends inside, if it holds some of it
        const std::int64_t rb = static_cast<std::int64_t>(a.row_map(i1));
        const std::int64_t pb = rb > j0 ? rb : j0;
        if (j1 > pb) {
          cr = a.y_base + i1;
          for (std::int64_t k = 0; k < K; ++k) carry(t, k) = row_sum(pb, j1, k);
        }
      }
      carry_row(t) = cr;
    }
  }
};

template <class Exec, class YView>
struct SpmvCarryFix {
  using S = typename YView::non_const_value_type;
  using mem = typename Exec::memory_space;
  YView Y;
  S alpha;
  Kokkos::View<const S**, Kokkos::LayoutRight, mem> carry;
  Kokkos::View<const std::int64_t*, mem> carry_row;
  KOKKOS_FUNCTION void operator()(const std::int64_t e) const {
    const std::int64_t K = static_cast<std::int64_t>(carry.extent(1));
    const std::int64_t t = e / K, k = e % K;
    const std::int64_t r = carry_row(t);
    if (r >= 0) spmv_add<Exec>(spmv_at(Y, r, k), alpha * carry(t, k));
  }
};

// Whether the merge path sums whole rows (SpmvOptions::Tuning::csr_whole_rows:
// 0 on host spaces for paths of at most csr_whole_rows_max_path items, 1 on
// any space and path, -1 never). The carries' allocation and second launch
// cost a small product as much as its sums: on 2 host cores whole rows took
// 0.63-0.85x the time on the shared matrices of up to 34,000 path items and
// 0.90-0.98x up to 2^18 (perf_tests/report/host/csr_whole_rows/). A segment
// may sum one row more than its share (the longest row at most), which on
// longer paths could cost more than the launch saves, and on GPUs, where
// segments are 32 items, would undo the balance.
template <class Exec>
bool spmv_csr_whole_rows(int forced, std::int64_t total, std::int64_t max_path) {
  if (forced != 0) return forced > 0;
  return !LaunchTraits<Exec>::is_gpu && total <= max_path;
}

// Returns the number of segments. `whole_rows`: spmv_csr_whole_rows's answer.
template <class Exec, class Args>
std::int64_t spmv_csr_merge_path(
    const Exec& exec, const Args& a, std::int64_t forced_items,
    MergePathCarries<typename Args::S, typename Exec::memory_space>* kept = nullptr,
    bool whole_rows = false) {
  using S = typename Args::S;
  using mem = typename Exec::memory_space;
  const std::int64_t K = spmv_columns(a.Y);
  const std::int64_t total = a.rows + a.nnz();
  const std::int64_t items = spmv_segment_items(exec, total, K, forced_items, whole_rows);
  const std::int64_t segments = (total + items - 1) / items;
  if (whole_rows) {
    const Kokkos::View<S**, Kokkos::LayoutRight, mem> none(nullptr, 0, K);
    Kokkos::parallel_for("libra::spmv::csr::merge_path_rows",
                         Kokkos::RangePolicy<Exec>(exec, 0, segments),
                         SpmvCsrMergePath<Exec, Args, true>{a, items, none, {}});
    return segments;
  }
  MergePathCarries<S, mem> own;
  MergePathCarries<S, mem>& c = kept ? *kept : own;
  if (static_cast<std::int64_t>(c.carry_row.extent(0)) < segments ||
      static_cast<std::int64_t>(c.carry.extent(1)) != K) {
    c = {};  // the old ones go first: less memory at the peak
    c.carry = decltype(c.carry)(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::spmv::carry"),
        static_cast<std::size_t>(segments), static_cast<std::size_t>(K));
    c.carry_row = decltype(c.carry_row)(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::spmv::carry_row"),
        static_cast<std::size_t>(segments));
  }
  const auto carry = c.carry;
  const auto carry_row = c.carry_row;
  Kokkos::parallel_for("libra::spmv::csr::merge_path",
                       Kokkos::RangePolicy<Exec>(exec, 0, segments),
                       SpmvCsrMergePath<Exec, Args>{a, items, carry, carry_row});
  if (segments > 1) {
    using YView = typename Args::y_type;
    Kokkos::parallel_for("libra::spmv::csr::carry",
                         Kokkos::RangePolicy<Exec>(exec, 0, segments * K),
                         SpmvCarryFix<Exec, YView>{a.Y, a.alpha, carry, carry_row});
  }
  return segments;
}

}  // namespace libra::impl
