#pragma once
// SpMM on host spaces: one row of A per iteration, rows handed out dynamically
// (their lengths differ), the K columns of X in blocks of accumulators that stay
// in registers. With LayoutRight X the block is a contiguous piece of X(c, :),
// and the innermost loop vectorises; with LayoutLeft the block reads a few
// columns of X at once (a few streams), so it is narrower, and the blocks go
// outermost: an iteration is (block, row), so that a pass over the rows reads
// 8 columns of X and writes 8 of Y instead of all K of each (K = 32 and 128
// kept 64 and 256 streams going, which the prefetchers cannot follow).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "libra/core/dynamic_range.hpp"

namespace libra::impl {

template <class Layout>
inline constexpr int spmm_host_block =
    std::is_same<Layout, Kokkos::LayoutRight>::value ? 16 : 8;

template <class AType, class XView, class YView>
struct SpmmHostRows {
  using S = typename YView::non_const_value_type;
  static constexpr int block = spmm_host_block<typename XView::array_layout>;
  // Blocks of columns outermost (LayoutLeft X): iterations are (block, row).
  static constexpr bool blocks_outer =
      std::is_same<typename XView::array_layout, Kokkos::LayoutLeft>::value;
  typename AType::row_map_type row_map;
  typename AType::index_type col_idx;
  typename AType::values_type values;
  XView X;
  YView Y;
  S alpha, beta;
  std::int64_t rows;

  // Iterations: rows, or with blocks outermost rows x blocks of columns.
  static std::int64_t iterations(std::int64_t rows, std::int64_t K) {
    return blocks_outer ? rows * ((K + block - 1) / block) : rows;
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t K = static_cast<std::int64_t>(Y.extent(1));
    if constexpr (blocks_outer) {
      if (K <= block) {  // one block: no division a row (it showed at K = 8)
        row(t, 0, K);
        return;
      }
      const std::int64_t b = t / rows;
      const std::int64_t k0 = b * block;
      row(t - b * rows, k0, k0 + block < K ? k0 + block : K);
    } else {
      row(t, 0, K);
    }
  }

  // Row i's columns [kbegin, kend) of Y, a block at a time.
  KOKKOS_INLINE_FUNCTION void row(const std::int64_t i, const std::int64_t kbegin,
                                  const std::int64_t kend) const {
    const auto begin = row_map(i);
    const auto end = row_map(i + 1);
    for (std::int64_t k0 = kbegin; k0 < kend; k0 += block) {
      S acc[block];
      const int kb = kend - k0 < block ? static_cast<int>(kend - k0) : block;
      if (kb == block) {  // the common case: a fixed trip count the compiler unrolls
        for (int kk = 0; kk < block; ++kk) acc[kk] = S(0);
        for (auto p = begin; p < end; ++p) {
          const S a = values(p);
          const auto c = col_idx(p);
          for (int kk = 0; kk < block; ++kk) acc[kk] += a * X(c, k0 + kk);
        }
      } else {
        for (int kk = 0; kk < kb; ++kk) acc[kk] = S(0);
        for (auto p = begin; p < end; ++p) {
          const S a = values(p);
          const auto c = col_idx(p);
          for (int kk = 0; kk < kb; ++kk) acc[kk] += a * X(c, k0 + kk);
        }
      }
      if (beta == S(0)) {  // overwrite: NaN in Y must not survive
        for (int kk = 0; kk < kb; ++kk) Y(i, k0 + kk) = alpha * acc[kk];
      } else {
        for (int kk = 0; kk < kb; ++kk)
          Y(i, k0 + kk) = beta * Y(i, k0 + kk) + alpha * acc[kk];
      }
    }
  }
};

template <class Exec, class AType, class XView, class YView>
void spmm_host_rows(const Exec& exec, const AType& A, const XView& X, const YView& Y,
                    typename YView::non_const_value_type alpha,
                    typename YView::non_const_value_type beta) {
  using Kernel = SpmmHostRows<AType, XView, YView>;
  const std::int64_t rows = static_cast<std::int64_t>(A.num_rows);
  dynamic_for("libra::spmm::host_rows", exec, 0,
              Kernel::iterations(rows, static_cast<std::int64_t>(Y.extent(1))), 16,
              Kernel{A.row_map, A.col_idx, A.values, X, Y, alpha, beta, rows});
}

}  // namespace libra::impl
