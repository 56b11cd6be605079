#pragma once
// CSR <-> diagonal storage (HM and CDM) on the device, and the diagonal-set
// bookkeeping that the products share: flags over diagonal keys turned into a
// list of stored diagonals and a dense key -> slot map (the paper's BdiagDense).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "libra/algorithms/scan.hpp"
#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/diagonal.hpp"
#include "libra/format/impl/row_builder.hpp"
#include "libra/util/result_memory.hpp"

namespace libra::impl {

// HM keys of a rows x cols matrix: diagonal d >= 0 is key d, d < 0 is key
// cols - 1 - d, so that ascending keys are HM's order (0, 1, ..., -1, -2, ...).
template <class O>
struct HmKeys {
  std::int64_t rows = 0, cols = 0;
  std::int64_t count() const { return rows > 0 && cols > 0 ? rows + cols - 1 : 0; }
  KOKKOS_INLINE_FUNCTION std::int64_t key(std::int64_t d) const {
    return d >= 0 ? d : cols - 1 - d;
  }
  KOKKOS_INLINE_FUNCTION O diagonal(std::int64_t key) const {
    return static_cast<O>(key < cols ? key : cols - 1 - key);
  }
};

// CDM keys of an n x n matrix: the compact index (j - i) mod n.
template <class O>
struct CdmKeys {
  std::int64_t n = 0;
  std::int64_t count() const { return n; }
  KOKKOS_INLINE_FUNCTION std::int64_t key(std::int64_t d) const {
    return d >= 0 ? d : d + n;
  }
  KOKKOS_INLINE_FUNCTION O diagonal(std::int64_t key) const {
    return static_cast<O>(key);
  }
};

// `slot` holds 0 or 1 per key (1: the diagonal is stored). Turns it in place into
// the dense map key -> position in the list (-1: not stored) and returns the
// list of stored diagonals, ascending by key.
template <class Exec, class O, class Mem, class Keys>
Kokkos::View<O*, Mem> list_flagged(const Exec& exec, const Kokkos::View<O*, Mem>& slot,
                                   const Keys& keys, const char* what) {
  const std::int64_t n = static_cast<std::int64_t>(slot.extent(0));
  std::int64_t count = 0;
  Kokkos::parallel_scan(
      "libra::diagonal::slots", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& sum, const bool final) {
        const bool on = slot(k) != 0;
        if (final) slot(k) = on ? static_cast<O>(sum) : O(-1);
        if (on) ++sum;
      },
      count);
  checked_cast<O>(count, what);
  // Returned to the caller (a matrix's list of diagonals).
  const auto list = result_view<O, typename Mem::memory_space>(
      "libra::diagonal::diag", static_cast<std::size_t>(count));
  Kokkos::parallel_for(
      "libra::diagonal::list", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t k) {
        if (slot(k) >= 0) list(slot(k)) = keys.diagonal(k);
      });
  return list;
}

// Marks the key of every entry of A.
template <class Exec, class S, class O, class Off, class D, class Keys>
Kokkos::View<O*, typename D::memory_space> mark_diagonals(const Exec& exec,
                                                          const Csr<S, O, Off, D>& A,
                                                          const Keys& keys) {
  Kokkos::View<O*, typename D::memory_space> slot("libra::diagonal::slot",
                                                  static_cast<std::size_t>(keys.count()));
  const auto row_map = A.row_map;
  const auto col_idx = A.col_idx;
  Kokkos::parallel_for(
      "libra::diagonal::mark", Kokkos::RangePolicy<Exec>(exec, 0, A.num_rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        for (Off p = row_map(i); p < row_map(i + 1); ++p) {
          slot(keys.key(static_cast<std::int64_t>(col_idx(p)) - i)) = 1;
        }
      });
  return slot;
}

inline void check_fill(std::uint64_t stored, std::uint64_t nnz, std::int64_t rows,
                       std::int64_t cols, double max_fill, const char* what) {
  const double base = static_cast<double>(
      std::max<std::uint64_t>(nnz, static_cast<std::uint64_t>(std::max(rows, cols))));
  if (max_fill > 0 && static_cast<double>(stored) > max_fill * base) {
    throw ArgumentError(
        std::string(what) + ": storing the " + std::to_string(rows) + " x " +
        std::to_string(cols) + " matrix by diagonals takes " + std::to_string(stored) +
        " values for " + std::to_string(nnz) +
        " entries, more than DiagonalOptions::max_fill = " + std::to_string(max_fill) +
        " times max(nnz, rows, cols); keep it in CSR or raise the limit");
  }
}

// Where each of `diag`'s diagonals of a rows x cols matrix starts in the
// values (start has one more entry: the total, returned).
template <class Exec, class IndexView, class OffsetsView>
std::uint64_t diagonal_starts(const Exec& exec, const IndexView& diag, std::int64_t rows,
                              std::int64_t cols, OffsetsView& start, const char* what) {
  using mem = typename OffsetsView::memory_space;
  const std::int64_t dg = static_cast<std::int64_t>(diag.extent(0));
  Kokkos::View<std::int64_t*, mem> lengths(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::diagonal::lengths"), dg);
  Kokkos::parallel_for(
      "libra::diagonal::lengths", Kokkos::RangePolicy<Exec>(exec, 0, dg),
      KOKKOS_LAMBDA(const std::int64_t s) {
        lengths(s) = diagonal_length<std::int64_t>(rows, cols, diag(s));
      });
  start = result_view<typename OffsetsView::value_type, mem>(
      "libra::diagonal::start", static_cast<std::size_t>(dg + 1));
  return exclusive_scan(exec, "libra::diagonal::start", lengths, start, what);
}

// The diagonal (of the dg that `start` delimits) whose values hold index t.
template <class OffsetsView>
KOKKOS_INLINE_FUNCTION std::int64_t diagonal_of(const OffsetsView& start, std::int64_t dg,
                                                std::int64_t t) {
  std::int64_t lo = 0, hi = dg;
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    if (static_cast<std::int64_t>(start(mid)) <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// CSR -> HM. `ones`: store 1 for every entry of A (its pattern), not its values.
template <class Exec, class S, class O, class Off, class D>
DiagonalMatrix<S, O, Off, D> csr_to_diagonal(const Exec& exec, const Csr<S, O, Off, D>& A,
                                             const DiagonalOptions& options, bool ones) {
  using Out = DiagonalMatrix<S, O, Off, D>;
  const HmKeys<O> keys{A.num_rows, A.num_cols};
  auto slot = mark_diagonals(exec, A, keys);
  const auto diag = list_flagged(exec, slot, keys, "to_diagonal: diagonals");
  const std::int64_t m = A.num_rows, n = A.num_cols;
  typename Out::offsets_type start;
  const std::uint64_t stored =
      diagonal_starts(exec, diag, m, n, start, "to_diagonal: stored values");
  check_fill(stored, static_cast<std::uint64_t>(A.nnz()), m, n, options.max_fill,
             "to_diagonal");
  typename Out::values_type values("libra::diagonal::values", stored);
  const auto row_map = A.row_map;
  const auto col_idx = A.col_idx;
  const auto a_values = A.values;
  Kokkos::parallel_for(
      "libra::diagonal::scatter", Kokkos::RangePolicy<Exec>(exec, 0, m),
      KOKKOS_LAMBDA(const std::int64_t i) {
        for (Off p = row_map(i); p < row_map(i + 1); ++p) {
          const std::int64_t j = col_idx(p);
          const O s = slot(keys.key(j - i));
          values(start(s) + (i < j ? i : j)) = ones ? S(1) : a_values(p);
        }
      });
  return Out(A.num_rows, A.num_cols, diag, start, values);
}

// CSR -> CDM (square A only). `ones` as above.
template <class Exec, class S, class O, class Off, class D>
CompactDiagonalMatrix<S, O, Off, D> csr_to_compact_diagonal(
    const Exec& exec, const Csr<S, O, Off, D>& A, const DiagonalOptions& options,
    bool ones) {
  using Out = CompactDiagonalMatrix<S, O, Off, D>;
  if (A.num_rows != A.num_cols) {
    throw ShapeError(
        "to_compact_diagonal: compact diagonal storage (CDM) needs a square "
        "matrix, this one is " +
        std::to_string(A.num_rows) + " x " + std::to_string(A.num_cols) +
        " (DiagonalMatrix stores any shape)");
  }
  const std::int64_t n = A.num_rows;
  const CdmKeys<O> keys{n};
  auto slot = mark_diagonals(exec, A, keys);
  const auto diag = list_flagged(exec, slot, keys, "to_compact_diagonal: diagonals");
  const std::uint64_t dg = diag.extent(0);
  const std::uint64_t stored = checked_mul(dg, static_cast<std::uint64_t>(n),
                                           "to_compact_diagonal: stored values");
  check_fill(stored, static_cast<std::uint64_t>(A.nnz()), n, n, options.max_fill,
             "to_compact_diagonal");
  typename Out::values_type values("libra::compact_diagonal::values", dg,
                                   static_cast<std::size_t>(n));
  const auto row_map = A.row_map;
  const auto col_idx = A.col_idx;
  const auto a_values = A.values;
  Kokkos::parallel_for(
      "libra::compact_diagonal::scatter", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        for (Off p = row_map(i); p < row_map(i + 1); ++p) {
          const O s = slot(keys.key(static_cast<std::int64_t>(col_idx(p)) - i));
          values(s, i) = ones ? S(1) : a_values(p);
        }
      });
  return Out(A.num_rows, diag, values);
}

// Row i of an HM matrix, columns ascending: subdiagonals from the lowest, then
// the main and superdiagonals. Zeros are not entries.
template <class M>
struct DiagonalRows {
  using O = typename M::ordinal_type;
  using S = typename M::scalar_type;
  typename M::index_type diag;
  typename M::offsets_type start;
  typename M::values_type values;
  std::int64_t cols = 0;
  std::int64_t n_diag = 0;
  std::int64_t n_super = 0;  // diagonals d >= 0 (listed first)
  template <class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O row, Emit& emit) const {
    const std::int64_t i = row;
    const std::int64_t n_sub = n_diag - n_super;
    for (std::int64_t q = 0; q < n_diag; ++q) {
      const std::int64_t s = q < n_sub ? n_diag - 1 - q : q - n_sub;
      const std::int64_t j = i + diag(s);
      if (j < 0 || j >= cols) continue;
      const S v = values(start(s) + (i < j ? i : j));
      if (v != S(0)) emit(static_cast<O>(j), v);
    }
  }
};

// Row i of a CDM matrix, columns ascending: the wrapped parts (compact index
// k >= n - i, columns i + k - n) first, then k < n - i (columns i + k).
template <class M>
struct CompactDiagonalRows {
  using O = typename M::ordinal_type;
  using S = typename M::scalar_type;
  typename M::index_type diag;
  typename M::values_type values;
  std::int64_t n = 0;
  template <class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O row, Emit& emit) const {
    const std::int64_t i = row;
    const std::int64_t dg = static_cast<std::int64_t>(diag.extent(0));
    std::int64_t lo = 0, hi = dg;  // first s with diag(s) >= n - i
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (diag(mid) < n - i)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (std::int64_t s = lo; s < dg; ++s) {
      const S v = values(s, i);
      if (v != S(0)) emit(static_cast<O>(i + diag(s) - n), v);
    }
    for (std::int64_t s = 0; s < lo; ++s) {
      const S v = values(s, i);
      if (v != S(0)) emit(static_cast<O>(i + diag(s)), v);
    }
  }
};

// The CSR arrays of an HM or CDM matrix's nonzeros (shared by to_csr and by
// SpGEMM through diagonal storage, which keeps them non-const).
template <class Exec, class S, class O, class Off, class D>
CsrArrays<S, O, Off, typename D::memory_space> diagonal_csr_arrays(
    const Exec& exec, const DiagonalMatrix<S, O, Off, D>& A, const char* what) {
  using M = DiagonalMatrix<S, O, Off, D>;
  const auto diag = A.diag;
  std::int64_t n_super = 0;
  Kokkos::parallel_reduce(
      "libra::diagonal::count_super",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(diag.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& c) { c += diag(s) >= 0 ? 1 : 0; },
      n_super);
  const DiagonalRows<M> rows{
      A.diag, A.start, A.values, A.num_cols, static_cast<std::int64_t>(A.diag.extent(0)),
      n_super};
  return build_csr_arrays<S, O, Off>(exec, A.num_rows, rows, what);
}

template <class Exec, class S, class O, class Off, class D>
CsrArrays<S, O, Off, typename D::memory_space> diagonal_csr_arrays(
    const Exec& exec, const CompactDiagonalMatrix<S, O, Off, D>& A, const char* what) {
  using M = CompactDiagonalMatrix<S, O, Off, D>;
  const CompactDiagonalRows<M> rows{A.diag, A.values, A.num_rows};
  return build_csr_arrays<S, O, Off>(exec, A.num_rows, rows, what);
}

template <class Exec, class M>
Csr<typename M::scalar_type, typename M::ordinal_type, typename M::offset_type,
    typename M::device_type>
diagonal_to_csr(const Exec& exec, const M& A) {
  const auto a = diagonal_csr_arrays(exec, A, "to_csr (diagonal storage): nnz");
  return {A.num_rows, A.num_cols, a.row_map, a.col, a.val};
}

}  // namespace libra::impl
