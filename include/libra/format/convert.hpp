#pragma once
// Conversions between Libra's formats. Every conversion runs as Kokkos kernels on
// the execution space it is given (by default the matrix's own), and returns a
// matrix on the same device. Results are sorted by row then column, duplicate-free
// and deterministic.
#include <Kokkos_Core.hpp>
#include <string>

#include "libra/core/spaces.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/csc.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/dense.hpp"
#include "libra/format/ell.hpp"
#include "libra/format/impl/compressed.hpp"
#include "libra/format/impl/coo_sort.hpp"
#include "libra/format/impl/dense_rows.hpp"
#include "libra/format/impl/ell.hpp"
#include "libra/format/impl/row_builder.hpp"
#include "libra/util/workspace.hpp"

namespace libra {

namespace impl {
template <class Exec, class Device>
void check_space() {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  static_assert(can_access<Exec, Device>,
                "the execution space cannot access the matrix's memory space");
}
}  // namespace impl

// ---- CSR <-> CSC (a transpose of the storage order) ---------------------------

namespace impl {
// CSR -> CSC that also returns, for every CSC entry, the CSR position it came from.
// The result and `source` live in `temps` (a kernel's workspace keeps its CSC copy
// to itself) or, by default, in plain allocations that the caller owns.
template <class Exec, class S, class O, class Off, class D>
Csc<S, O, Off, D> to_csc_with_source(
    const Exec& exec, const Csr<S, O, Off, D>& A,
    Kokkos::View<Off*, typename Csr<S, O, Off, D>::device_type>& source,
    const Temps<typename D::memory_space>& temps = {}) {
  check_space<Exec, D>();
  using Out = Csc<S, O, Off, D>;
  typename Out::col_map_non_const_type col_map = temps.template view<Off>(
      "libra::csc::col_map", static_cast<std::size_t>(A.num_cols) + 1);
  typename Out::index_type row_idx =
      temps.template view<O>("libra::csc::row_idx", A.nnz());
  typename Out::values_type values =
      temps.template view<S>("libra::csc::values", A.nnz());
  source = temps.template view<Off>("libra::csc::source", A.nnz());
  // The sort's own temporaries come from the same place; their frame ends here.
  const TempsFrame<typename D::memory_space> frame(temps);
  transpose_compressed(exec, A.num_rows, A.num_cols, A.row_map, A.col_idx, A.values,
                       col_map, row_idx, values, source, temps);
  return Out(A.num_rows, A.num_cols, col_map, row_idx, values);
}
}  // namespace impl

// The returned matrix owns its memory (never a kernel's workspace).
template <class Exec, class S, class O, class Off, class D>
Csc<S, O, Off, D> to_csc(const Exec& exec, const Csr<S, O, Off, D>& A) {
  Kokkos::View<Off*, typename Csr<S, O, Off, D>::device_type> source;
  return impl::to_csc_with_source(exec, A, source);
}

template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> to_csr(const Exec& exec, const Csc<S, O, Off, D>& A) {
  impl::check_space<Exec, D>();
  using Out = Csr<S, O, Off, D>;
  typename Out::row_map_non_const_type row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::row_map"),
      static_cast<std::size_t>(A.num_rows) + 1);
  typename Out::index_type col_idx(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::col_idx"), A.nnz());
  typename Out::values_type values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::values"), A.nnz());
  Kokkos::View<Off*, typename Out::device_type> source(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::source"), A.nnz());
  impl::transpose_compressed(exec, A.num_cols, A.num_rows, A.col_map, A.row_idx, A.values,
                             row_map, col_idx, values, source);
  return Out(A.num_rows, A.num_cols, row_map, col_idx, values);
}

// The CSR storage of A^T: A's CSC arrays reinterpreted, with no further copy.
template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> transpose(const Exec& exec, const Csr<S, O, Off, D>& A) {
  const auto c = to_csc(exec, A);
  return Csr<S, O, Off, D>(A.num_cols, A.num_rows, c.col_map, c.row_idx, c.values);
}

// ---- COO ------------------------------------------------------------------------

// Sorts by (row, column) and sums duplicates; explicit zeros are kept as entries.
template <class Exec, class S, class O, class Off, class D>
Coo<S, O, Off, D> sort_and_sum(const Exec& exec, const Coo<S, O, Off, D>& A) {
  impl::check_space<Exec, D>();
  using Out = Coo<S, O, Off, D>;
  typename Out::index_type rows, cols;
  typename Out::values_type vals;
  const std::size_t unique = impl::sort_and_sum_entries(
      exec, A.num_rows, A.num_cols, A.row_idx, A.col_idx, A.values, rows, cols, vals);
  checked_cast<Off>(unique, "number of entries");
  return Out(A.num_rows, A.num_cols, rows, cols, vals);
}

template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> to_csr(const Exec& exec, const Coo<S, O, Off, D>& A) {
  const Coo<S, O, Off, D> s = sort_and_sum(exec, A);
  using Out = Csr<S, O, Off, D>;
  typename Out::row_map_non_const_type row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::row_map"),
      static_cast<std::size_t>(A.num_rows) + 1);
  impl::offsets_from_sorted(exec, s.row_idx, row_map);
  return Out(A.num_rows, A.num_cols, row_map, s.col_idx, s.values);
}

template <class Exec, class S, class O, class Off, class D>
Coo<S, O, Off, D> to_coo(const Exec& exec, const Csr<S, O, Off, D>& A) {
  impl::check_space<Exec, D>();
  using Out = Coo<S, O, Off, D>;
  typename Out::index_type rows(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::rows"), A.nnz());
  impl::expand_offsets(exec, A.row_map, rows);
  typename Out::index_type cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::cols"), A.nnz());
  typename Out::values_type vals(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::coo::values"), A.nnz());
  Kokkos::deep_copy(exec, cols, A.col_idx);
  Kokkos::deep_copy(exec, vals, A.values);
  return Out(A.num_rows, A.num_cols, rows, cols, vals);
}

// ---- ELL ------------------------------------------------------------------------

enum class EllOverflow {
  error,  // throw ArgumentError naming the first row longer than the width
  hybrid  // keep the extra entries in the COO tail
};

struct EllOptions {
  long long width = -1;  // -1: the longest row's length
  EllOverflow overflow = EllOverflow::error;
};

template <class Exec, class S, class O, class Off, class D>
Ell<S, O, Off, D> to_ell(const Exec& exec, const Csr<S, O, Off, D>& A,
                         const EllOptions& options = {}) {
  impl::check_space<Exec, D>();
  return impl::csr_to_ell(exec, A, options.width,
                          options.overflow == EllOverflow::hybrid);
}

template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> to_csr(const Exec& exec, const Ell<S, O, Off, D>& A) {
  impl::check_space<Exec, D>();
  return to_csr(exec, impl::ell_to_coo(exec, A));
}

// ---- dense ----------------------------------------------------------------------

template <class Exec, class S, class O, class Off, class D>
Dense<S, D> to_dense(const Exec& exec, const Csr<S, O, Off, D>& A) {
  impl::check_space<Exec, D>();
  Dense<S, D> out("libra::dense", static_cast<std::size_t>(A.num_rows),
                  static_cast<std::size_t>(A.num_cols));
  const auto row_map = A.row_map;
  const auto col_idx = A.col_idx;
  const auto values = A.values;
  Kokkos::parallel_for(
      "libra::dense::from_csr", Kokkos::RangePolicy<Exec>(exec, 0, A.num_rows),
      KOKKOS_LAMBDA(const O i) {
        for (Off p = row_map(i); p < row_map(i + 1); ++p) out(i, col_idx(p)) += values(p);
      });
  return out;
}

// The nonzero entries of a dense matrix (exact zeros are dropped).
template <class Ordinal, class Offset, class Exec, class S, class... P>
Csr<std::remove_const_t<S>, Ordinal, Offset,
    typename Kokkos::View<S**, P...>::device_type>
to_csr(const Exec& exec, const Kokkos::View<S**, P...>& dense) {
  using View = Kokkos::View<S**, P...>;
  using D = typename View::device_type;
  impl::check_space<Exec, D>();
  const Ordinal rows = checked_cast<Ordinal>(dense.extent(0), "number of rows");
  const Ordinal cols = checked_cast<Ordinal>(dense.extent(1), "number of columns");
  return impl::build_csr<std::remove_const_t<S>, Ordinal, Offset, D>(
      exec, rows, cols, impl::DenseNonzeros<View>{dense}, "nnz");
}

// ---- conveniences on the matrix's own execution space -----------------------------

template <class Matrix>
auto to_csc(const Matrix& A) {
  return to_csc(typename Matrix::execution_space(), A);
}
template <class Matrix>
auto to_csr(const Matrix& A) {
  return to_csr(typename Matrix::execution_space(), A);
}
template <class Matrix>
auto to_coo(const Matrix& A) {
  return to_coo(typename Matrix::execution_space(), A);
}
template <class Matrix>
auto to_ell(const Matrix& A, const EllOptions& options = {}) {
  return to_ell(typename Matrix::execution_space(), A, options);
}
template <class Matrix>
auto to_dense(const Matrix& A) {
  return to_dense(typename Matrix::execution_space(), A);
}
template <class Matrix>
auto transpose(const Matrix& A) {
  return transpose(typename Matrix::execution_space(), A);
}

}  // namespace libra
