#pragma once
// Kernels behind libra::describe: one pass over the rows, one over the entries
// (column histogram, diagonal flags, bandwidth), one over the columns and one
// over the product's inner index.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <string>

#include "libra/format/impl/compressed.hpp"

namespace libra::impl {

// Pushes a Kokkos profiling region for the lifetime of the object.
struct RegionGuard {
  explicit RegionGuard(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~RegionGuard() { Kokkos::Profiling::popRegion(); }
  RegionGuard(const RegionGuard&) = delete;
  RegionGuard& operator=(const RegionGuard&) = delete;
};

// Kokkos 3.7 moved the math functions out of Kokkos::Experimental.
KOKKOS_INLINE_FUNCTION double natural_log(double x) {
#if KOKKOS_VERSION >= 30700
  return Kokkos::log(x);
#else
  return Kokkos::Experimental::log(x);
#endif
}

// What the kernels measure; libra::describe turns it into MatrixStats.
struct RawStats {
  std::uint64_t row_min = 0, row_max = 0;
  std::uint64_t col_min = 0, col_max = 0;
  std::int64_t kl = 0, ku = 0;
  std::uint64_t diagonals = 0;
  std::uint64_t diagonal_values = 0;    // sum of the non-empty diagonals' lengths
  std::uint64_t compact_diagonals = 0;  // square: distinct (j - i) mod n
  std::uint64_t nonempty_cols = 0;
  double log_degree_sum = 0;  // sum over non-empty columns of ln(2 k)
  // The number of products modulo 2^64 (unsigned arithmetic wraps exactly) and
  // the same sum in floating point, which tells how often it wrapped.
  std::uint64_t products_mod = 0;
  double products_approx = 0;
};

// The exact product count, or false when it is 2^64 or more. The floating-point
// sum is off by a relative ~1e-9 at most, far less than the 2^64 gap between the
// candidates products_mod + w * 2^64, so the nearest candidate is the true one.
inline bool exact_products(const RawStats& raw, std::uint64_t& out) {
  const double two64 = 18446744073709551616.0;
  const double wraps = std::nearbyint(
      (raw.products_approx - static_cast<double>(raw.products_mod)) / two64);
  out = raw.products_mod;
  return wraps == 0;
}

template <class Exec, class RowMap>
void row_degrees(const Exec& exec, const RowMap& row_map, std::int64_t rows,
                 RawStats& raw) {
  if (rows == 0) return;
  Kokkos::parallel_reduce(
      "libra::analysis::describe::row_degrees", Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& lo, std::uint64_t& hi) {
        const std::uint64_t d = static_cast<std::uint64_t>(row_map(i + 1) - row_map(i));
        if (d < lo) lo = d;
        if (d > hi) hi = d;
      },
      Kokkos::Min<std::uint64_t>(raw.row_min), Kokkos::Max<std::uint64_t>(raw.row_max));
}

// Per entry: the column histogram, the flag of its diagonal (every writer stores
// the same 1, so no atomic is needed) and the bandwidth. The row of each entry is
// found by binary search so that the work is even however skewed the rows are.
template <class Exec, class RowMap, class ColIdx, class Counts, class Flags>
void scan_entries(const Exec& exec, const RowMap& row_map, const ColIdx& col_idx,
                  std::int64_t rows, const Counts& col_count, const Flags& diag_flag,
                  RawStats& raw) {
  using Ordinal = typename ColIdx::non_const_value_type;
  const std::size_t nnz = col_idx.extent(0);
  if (nnz == 0) return;
  const Ordinal n_rows = static_cast<Ordinal>(rows);
  std::int64_t below = 0, above = 0;
  Kokkos::parallel_reduce(
      "libra::analysis::describe::entries", Kokkos::RangePolicy<Exec>(exec, 0, nnz),
      KOKKOS_LAMBDA(const std::size_t p, std::int64_t& kl, std::int64_t& ku) {
        const std::int64_t i = owner_of(row_map, n_rows, p);
        const std::int64_t j = col_idx(p);
        Kokkos::atomic_add(&col_count(j), 1ull);
        diag_flag(j - i + rows - 1) = 1;
        if (i - j > kl) kl = i - j;
        if (j - i > ku) ku = j - i;
      },
      Kokkos::Max<std::int64_t>(below), Kokkos::Max<std::int64_t>(above));
  raw.kl = below > 0 ? below : 0;
  raw.ku = above > 0 ? above : 0;
}

template <class Exec, class Counts>
void column_degrees(const Exec& exec, const Counts& col_count, RawStats& raw) {
  const std::size_t cols = col_count.extent(0);
  if (cols == 0) return;
  Kokkos::parallel_reduce(
      "libra::analysis::describe::column_degrees",
      Kokkos::RangePolicy<Exec>(exec, 0, cols),
      KOKKOS_LAMBDA(const std::size_t j, std::uint64_t& lo, std::uint64_t& hi,
                    std::uint64_t& nonempty, double& log_sum) {
        const std::uint64_t k = col_count(j);
        if (k < lo) lo = k;
        if (k > hi) hi = k;
        if (k > 0) {
          nonempty += 1;
          log_sum += natural_log(2.0 * static_cast<double>(k));  // ln(k / (k_min - 0.5))
        }
      },
      Kokkos::Min<std::uint64_t>(raw.col_min), Kokkos::Max<std::uint64_t>(raw.col_max),
      Kokkos::Sum<std::uint64_t>(raw.nonempty_cols),
      Kokkos::Sum<double>(raw.log_degree_sum));
}

// diag_flag(j - i + rows - 1) marks the non-empty diagonals.
template <class Exec, class Flags>
void count_diagonals(const Exec& exec, const Flags& diag_flag, std::int64_t rows,
                     std::int64_t cols, RawStats& raw) {
  Kokkos::parallel_reduce(
      "libra::analysis::describe::diagonals",
      Kokkos::RangePolicy<Exec>(exec, 0, diag_flag.extent(0)),
      KOKKOS_LAMBDA(const std::size_t t, std::uint64_t& n, std::uint64_t& values) {
        if (!diag_flag(t)) return;
        const std::int64_t d = static_cast<std::int64_t>(t) - (rows - 1);
        n += 1;
        const std::int64_t len = d >= 0 ? (rows < cols - d ? rows : cols - d)
                                        : (cols < rows + d ? cols : rows + d);
        values += static_cast<std::uint64_t>(len);
      },
      raw.diagonals, raw.diagonal_values);
  if (rows != cols || rows == 0) return;
  // Compact diagonal k holds diagonals k and k - n.
  Kokkos::parallel_reduce(
      "libra::analysis::describe::compact_diagonals",
      Kokkos::RangePolicy<Exec>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t k, std::uint64_t& n) {
        if (diag_flag(k + rows - 1) || (k > 0 && diag_flag(k - 1))) n += 1;
      },
      raw.compact_diagonals);
}

// Products of A*A (square: column k of A meets row k of A) or of A*A^T (column k
// of A meets itself), summed over the inner index k.
template <class Exec, class RowMap, class Counts>
void product_work(const Exec& exec, const RowMap& row_map, const Counts& col_count,
                  bool square, RawStats& raw) {
  const std::size_t n = col_count.extent(0);
  if (n == 0) return;
  Kokkos::parallel_reduce(
      "libra::analysis::describe::products", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::size_t k, std::uint64_t& exact_mod, double& approx) {
        const std::uint64_t c = col_count(k);
        const std::uint64_t r =
            square ? static_cast<std::uint64_t>(row_map(k + 1) - row_map(k)) : c;
        exact_mod += c * r;  // wraps modulo 2^64 by design
        approx += static_cast<double>(c) * static_cast<double>(r);
      },
      Kokkos::Sum<std::uint64_t>(raw.products_mod),
      Kokkos::Sum<double>(raw.products_approx));
}

template <class Exec, class RowMap, class ColIdx>
RawStats describe_compressed(const Exec& exec, std::int64_t rows, std::int64_t cols,
                             const RowMap& row_map, const ColIdx& col_idx) {
  using mem = typename Exec::memory_space;
  RawStats raw;
  row_degrees(exec, row_map, rows, raw);
  Kokkos::View<unsigned long long*, mem> col_count(
      Kokkos::view_alloc(exec, "libra::analysis::describe::col_count"),
      static_cast<std::size_t>(cols));
  Kokkos::View<std::uint8_t*, mem> diag_flag(
      Kokkos::view_alloc(exec, "libra::analysis::describe::diag_flag"),
      rows + cols > 0 ? static_cast<std::size_t>(rows + cols - 1) : 0);
  scan_entries(exec, row_map, col_idx, rows, col_count, diag_flag, raw);
  column_degrees(exec, col_count, raw);
  count_diagonals(exec, diag_flag, rows, cols, raw);
  product_work(exec, row_map, col_count, rows == cols, raw);
  return raw;
}

}  // namespace libra::impl
