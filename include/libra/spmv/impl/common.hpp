#pragma once
// Building blocks shared by the SpMV kernels: vectors and blocks of K vectors
// read through one accessor (rank-1 or rank-2 Views, any layout), how many
// merge-path items a segment takes, the plain or atomic add into y, and
// y = beta * y over a range of rows.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/loads.hpp"

namespace libra::impl {

// v(i) for a vector, v(i, k) for a block of K vectors.
template <class V>
KOKKOS_INLINE_FUNCTION decltype(auto) spmv_at(const V& v, std::int64_t i,
                                              std::int64_t k) {
  if constexpr (V::rank == 1) {
    (void)k;
    return v(i);
  } else {
    return v(i, k);
  }
}

template <class V>
std::int64_t spmv_columns(const V& v) {
  if constexpr (V::rank == 1) {
    return 1;
  } else {
    return static_cast<std::int64_t>(v.extent(1));
  }
}

// K, the vectors of a block, as a kernel's loops over them read it: 1 at compile
// time for a vector (rank-1 y), so that those loops fold away. On 2 host cores
// that took CSR's merge path on luxembourg (2.1 nonzeros a row) from 0.217 ms to
// 0.183, Kokkos Kernels' time, and bcsstk33 from 0.167 to 0.153; in CSC's and
// COO's kernels it changed nothing, and ELL's got up to 10% slower (R-MAT 18),
// so they keep the loop as it was.
template <class YView>
KOKKOS_INLINE_FUNCTION std::int64_t spmv_k(std::int64_t K) {
  return YView::rank == 1 ? 1 : K;
}

// y = b * y + alpha * sum for a row a kernel completed; b == 0 overwrites y
// (NaN or Inf in y do not survive).
template <class T>
KOKKOS_INLINE_FUNCTION void spmv_write(T& y, T b, T alpha, T sum) {
  y = b == T(0) ? alpha * sum : b * y + alpha * sum;
}

// The operands every CSR SpMV kernel (merge path, tiles, rows) reads and writes:
// A's local rows [0, rows), and Y(y_base + i) = b * Y(y_base + i) + alpha *
// (A * X)(i) with b = beta_first on local row 0 (1 for a pCSR whose first row an
// earlier part began, so that beta is applied once) and beta elsewhere.
// StreamA: the tiles and rows kernels read A's arrays by streaming loads
// (loads.hpp).
template <class RowMap, class Index, class Values, class XView, class YView,
          bool StreamA = false>
struct CsrSpmvArgs {
  using S = typename YView::non_const_value_type;
  using y_type = YView;
  RowMap row_map;
  Index col_idx;
  Values values;
  XView X;
  YView Y;
  S alpha, beta, beta_first;
  std::int64_t rows, y_base;

  // Row offset i, nonzero p's column and value, and values(p) * X(col_idx(p)),
  // as the tiles, row sums and rows kernels read them (column and value apart
  // for kernels that issue several loads before they use any).
  using column_type = typename Index::non_const_value_type;
  KOKKOS_INLINE_FUNCTION std::int64_t offset(std::int64_t i) const {
    return static_cast<std::int64_t>(load_a<StreamA>(row_map(i)));
  }
  KOKKOS_INLINE_FUNCTION column_type column(std::int64_t p) const {
    return load_a<StreamA>(col_idx(p));
  }
  KOKKOS_INLINE_FUNCTION S value(std::int64_t p) const {
    return load_a<StreamA>(values(p));
  }
  KOKKOS_INLINE_FUNCTION S product(std::int64_t p) const {
    return value(p) * X(column(p));
  }

  KOKKOS_INLINE_FUNCTION std::int64_t nnz() const {
    return static_cast<std::int64_t>(col_idx.extent(0));
  }
  // The b of local row i.
  KOKKOS_INLINE_FUNCTION S row_beta(std::int64_t i) const {
    return i == 0 ? beta_first : beta;
  }
};

template <class RowMap, class Index, class Values, class XView, class YView>
CsrSpmvArgs<RowMap, Index, Values, XView, YView> csr_spmv_args(
    const RowMap& row_map, const Index& col_idx, const Values& values, std::int64_t rows,
    const XView& X, const YView& Y, typename YView::non_const_value_type alpha,
    typename YView::non_const_value_type beta,
    typename YView::non_const_value_type beta_first, std::int64_t y_base) {
  return {row_map, col_idx, values, X, Y, alpha, beta, beta_first, rows, y_base};
}

// The same operands, read by streaming loads.
template <class RowMap, class Index, class Values, class XView, class YView>
CsrSpmvArgs<RowMap, Index, Values, XView, YView, true> streaming_loads(
    const CsrSpmvArgs<RowMap, Index, Values, XView, YView, false>& a) {
  return {a.row_map, a.col_idx, a.values,     a.X,    a.Y,
          a.alpha,   a.beta,    a.beta_first, a.rows, a.y_base};
}

// Serial runs one thread: its scatters need no atomic instructions.
template <class Exec>
inline constexpr bool spmv_single_thread = false;
#if defined(KOKKOS_ENABLE_SERIAL)
template <>
inline constexpr bool spmv_single_thread<Kokkos::Serial> = true;
#endif

template <class Exec, class T>
KOKKOS_INLINE_FUNCTION void spmv_add(T& target, T value) {
  if constexpr (spmv_single_thread<Exec>) {
    target += value;
  } else {
    Kokkos::atomic_add(&target, value);
  }
}

// Merge-path items (lines + nonzeros) per segment: a few segments per host
// thread (the path is balanced, more would only add carries), and short
// segments on a GPU, a thread each, so that the device fills up.
// `forced` > 0 (SpmvOptions' tuning, for tests) overrides the choice.
// `whole_rows`: CSR's segments that leave no carries (csr_merge_path.hpp) take
// one segment a host thread of at least 512 items: the carries' rule of two of
// at least 2,048 gave olm1000 (4,996 items) three segments on two threads, and
// one a thread took 0.79x that time (0.88x abb313, the others within 4%; 2 host
// cores, perf_tests/report/host/csr_whole_rows/).
template <class Exec>
std::int64_t spmv_segment_items(const Exec& exec, std::int64_t total, std::int64_t K,
                                std::int64_t forced, bool whole_rows = false) {
  if (forced > 0) return forced;
  std::int64_t items;
  if constexpr (LaunchTraits<Exec>::is_gpu) {
    (void)exec;
    (void)whole_rows;
    items = K > 1 ? 16 : 32;
  } else {
    const std::int64_t workers = static_cast<std::int64_t>(exec.concurrency());
    if (whole_rows) {
      items = (total + workers - 1) / workers;
      if (items < 512) items = 512;
    } else {
      items = (total + 2 * workers - 1) / (2 * workers);
      if (items < 2048) items = 2048;  // tiny problems: one segment, no carries
    }
  }
  (void)K;
  return items > 0 ? items : 1;
}

// Y(i, :) = b * Y(i, :) for rows [lo, hi), b = beta_first on row lo and beta
// elsewhere; b == 0 writes zeros (NaN or Inf in Y do not survive).
template <class Exec, class YView>
void spmv_scale_rows(const Exec& exec, const YView& Y, std::int64_t lo, std::int64_t hi,
                     typename YView::non_const_value_type beta,
                     typename YView::non_const_value_type beta_first) {
  using S = typename YView::non_const_value_type;
  if (hi <= lo || (beta == S(1) && beta_first == S(1))) return;
  const std::int64_t K = spmv_columns(Y);
  Kokkos::parallel_for(
      "libra::spmv::scale",
      light_launch(Kokkos::RangePolicy<Exec>(exec, 0, (hi - lo) * K)),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t i = lo + e / K, k = e % K;
        const S b = i == lo ? beta_first : beta;
        auto& y = spmv_at(Y, i, k);
        y = b == S(0) ? S(0) : b * y;
      });
}

}  // namespace libra::impl
