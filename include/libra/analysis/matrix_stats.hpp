#pragma once
// Structural statistics of a sparse matrix, computed by Kokkos kernels on the
// matrix's own device (what `libra info` prints).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "libra/analysis/impl/matrix_stats.hpp"
#include "libra/core/error.hpp"
#include "libra/core/spaces.hpp"
#include "libra/format/csr.hpp"

namespace libra {

// Entries per row (or column), empty ones included; all zero for no rows.
struct DegreeStats {
  std::uint64_t min = 0;
  double mean = 0;
  std::uint64_t max = 0;
};

// Which product the work estimate is for: A*A needs a square matrix, so a
// rectangular one is measured by A*A^T instead.
enum class ProductKind { a_times_a, a_times_at };

inline const char* to_string(ProductKind kind) {
  return kind == ProductKind::a_times_a ? "A*A" : "A*A^T";
}

struct MatrixStats {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::uint64_t nnz = 0;  // stored entries of the Csr
  DegreeStats row_degree;
  DegreeStats col_degree;
  // Lower and upper bandwidth: kl = max(i - j), ku = max(j - i) over stored
  // entries, clamped at 0 as in LAPACK's banded storage (a strictly lower
  // triangular matrix has ku = 0). Both are 0 when there are no entries.
  std::int64_t kl = 0;
  std::int64_t ku = 0;
  std::uint64_t diagonals = 0;  // distinct j - i among stored entries
  // Values diagonal storage would hold (format/diagonal.hpp): HM stores every
  // position of each non-empty diagonal; CDM (square matrices only) n per
  // distinct (j - i) mod n. Compared with max(nnz, rows, cols), they say whether
  // a matrix suits diagonal storage (the conversions refuse beyond
  // DiagonalOptions::max_fill times that).
  std::uint64_t diagonal_values = 0;
  std::optional<std::uint64_t> compact_diagonal_values;
  // Work of the sparse product named by product_kind: products is the number of
  // scalar multiplications a_ik * b_kj (sum over k of |A(:,k)| * |A(k,:)| for A*A,
  // of |A(:,k)|^2 for A*A^T), flops = 2 * products. Empty when the count does not
  // fit 64 bits.
  ProductKind product_kind = ProductKind::a_times_a;
  std::optional<std::uint64_t> products;
  std::optional<std::uint64_t> flops;
  // Exponent R of the column-degree distribution P(k) ~ k^-R (the MSREP paper's
  // Table 2 reports it without saying how it was fitted). Libra uses the
  // discrete maximum-likelihood approximation of Clauset, Shalizi & Newman
  // (SIAM Review 2009, eq. 3.7) over the n columns with degree k_i >= k_min = 1:
  //   R = 1 + n / sum_i ln(k_i / (k_min - 0.5)).
  // With k_min = 1 the estimate is biased low for steep tails (a sample from an
  // exact discrete power law with exponent 2.5 reads about 2.0); it is meant to
  // rank matrices by skew, not to test whether a power law fits. NaN when no
  // column has an entry.
  double powerlaw_r = std::numeric_limits<double>::quiet_NaN();
};

// Statistics of A computed on `exec` (by default A's own execution space).
// Column degrees count stored entries, so explicit zeros count as entries.
template <class Exec, class S, class O, class Off, class D>
MatrixStats describe(const Exec& exec, const Csr<S, O, Off, D>& A) {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  static_assert(can_access<Exec, D>,
                "the execution space cannot access the matrix's memory space");
  check_dimensions(A.num_rows, A.num_cols, "describe");
  // A default-constructed Csr (no row_map at all) is the empty 0 x 0 matrix.
  const bool no_row_map = A.num_rows == 0 && A.row_map.extent(0) == 0;
  if (!no_row_map) {
    check_extent(A.row_map.extent(0), static_cast<std::size_t>(A.num_rows) + 1,
                 "describe", "row_map");
  }
  if (no_row_map && A.col_idx.extent(0) != 0) {
    throw ShapeError("describe: entries without a row_map");
  }
  impl::RegionGuard region("libra::analysis::describe");
  const impl::RawStats raw =
      impl::describe_compressed(exec, A.num_rows, A.num_cols, A.row_map, A.col_idx);

  MatrixStats s;
  s.rows = A.num_rows;
  s.cols = A.num_cols;
  s.nnz = static_cast<std::uint64_t>(A.col_idx.extent(0));
  const auto mean = [&](std::int64_t n) {
    return n ? static_cast<double>(s.nnz) / n : 0.0;
  };
  s.row_degree = {raw.row_min, mean(s.rows), raw.row_max};
  s.col_degree = {raw.col_min, mean(s.cols), raw.col_max};
  s.kl = raw.kl;
  s.ku = raw.ku;
  s.diagonals = raw.diagonals;
  s.diagonal_values = raw.diagonal_values;
  if (s.rows == s.cols &&
      (raw.compact_diagonals == 0 ||
       static_cast<std::uint64_t>(s.rows) <=
           std::numeric_limits<std::uint64_t>::max() / raw.compact_diagonals)) {
    s.compact_diagonal_values =
        raw.compact_diagonals * static_cast<std::uint64_t>(s.rows);
  }
  s.product_kind = s.rows == s.cols ? ProductKind::a_times_a : ProductKind::a_times_at;
  std::uint64_t products = 0;
  if (impl::exact_products(raw, products)) {
    s.products = products;
    if (products <= std::numeric_limits<std::uint64_t>::max() / 2) s.flops = 2 * products;
  }
  if (raw.nonempty_cols > 0) {
    s.powerlaw_r = 1.0 + static_cast<double>(raw.nonempty_cols) / raw.log_degree_sum;
  }
  return s;
}

template <class S, class O, class Off, class D>
MatrixStats describe(const Csr<S, O, Off, D>& A) {
  return describe(typename Csr<S, O, Off, D>::execution_space(), A);
}

}  // namespace libra
