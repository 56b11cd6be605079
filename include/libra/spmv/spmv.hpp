#pragma once
// Sparse matrix times vector: y = beta * y + alpha * A * x, on A's device.
//
//   libra::spmv(exec, alpha, A, x, beta, y);
//   libra::spmv(exec, alpha, A, x, beta, y, options, &stats);   // stats.path
//
// A is a Csr, Csc, Coo, Ell (or a KokkosSparse::CrsMatrix), or a part of one
// (PartialCsr, PartialCsc, PartialCoo from libra::partition). x and y are
// rank-1 Views (cols(A), rows(A)) or rank-2 Views of K right-hand sides
// (cols(A) x K, rows(A) x K), any layout, holding A's scalar type. beta == 0
// overwrites y (NaN or Inf in y do not survive); alpha == 0 only scales y.
// Every kernel is balanced by nonzeros, not one thread per row: CSR by merge
// path (in tiles staged in team scratch on GPUs), CSC and COO by equal segments
// scattering with atomics, ELL by its padded rows plus the hybrid tail (impl/).
//
// A part takes the parent's x and y and adds its share in place, so that the
// parts of one matrix applied in order to one y give A * x:
//  - PartialCsr / PartialCoo update rows [start_row, end_row) only; a first row
//    shared with an earlier part (start_flag) gets y += alpha * (its part), beta
//    having been applied by the part that began the row.
//  - PartialCsc updates all rows: part 0 applies beta, later parts add.
// The same CSR kernel runs on a pCSR's local offsets and the parent's arrays.
// libra/spmv/partitioned.hpp runs the parts into separate results and merges
// them as MSREP's multi-GPU code does.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "libra/core/error.hpp"
#include "libra/core/spaces.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/csc.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/ell.hpp"
#include "libra/format/kokkos_interop.hpp"
#include "libra/format/partial.hpp"
#include "libra/spmv/impl/common.hpp"
#include "libra/spmv/impl/coo_runs.hpp"
#include "libra/spmv/impl/csc_scatter.hpp"
#include "libra/spmv/impl/csr.hpp"
#include "libra/spmv/impl/ell_rows.hpp"
#include "libra/spmv/impl/scatter_tiles.hpp"
#include "libra/spmv/options.hpp"
#include "libra/spmv/plan.hpp"

namespace libra {

namespace impl {

template <class T>
struct spmv_identity {
  using type = T;
};
// A non-deduced scalar: spmv(exec, 1.0, A, x, 0.0, y) works for float matrices.
template <class T>
using spmv_scalar_t = typename spmv_identity<T>::type;

// x as the kernels take it: const, same layout, device and traits.
template <class V>
using spmv_const_t = Kokkos::View<typename V::const_data_type, typename V::array_layout,
                                  typename V::device_type, typename V::memory_traits>;

template <class Exec, class Matrix, class XView, class YView>
void check_spmv_types() {
  using S = typename Matrix::scalar_type;
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "spmv: the first argument must be a Kokkos execution space");
  static_assert(can_access<Exec, typename Matrix::device_type>,
                "spmv: the execution space cannot access A");
  static_assert(Kokkos::is_view<XView>::value && Kokkos::is_view<YView>::value,
                "spmv: x and y must be Kokkos Views");
  static_assert(static_cast<int>(XView::rank) == static_cast<int>(YView::rank) &&
                    (XView::rank == 1 || XView::rank == 2),
                "spmv: x and y must both be vectors (rank 1) or blocks (rank 2)");
  static_assert(std::is_same<typename XView::non_const_value_type, S>::value &&
                    std::is_same<typename YView::value_type, S>::value,
                "spmv: x and y must hold A's scalar type (y not const)");
  static_assert(
      Kokkos::SpaceAccessibility<Exec, typename XView::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<Exec, typename YView::memory_space>::accessible,
      "spmv: the execution space cannot access x or y");
}

template <class XView, class YView>
void check_spmv_shapes(const char* what, std::int64_t rows, std::int64_t cols,
                       const XView& x, const YView& y) {
  const auto K = [](const auto& v) {
    return spmv_columns(v);
  };
  if (static_cast<std::int64_t>(x.extent(0)) != cols ||
      static_cast<std::int64_t>(y.extent(0)) != rows || K(x) != K(y)) {
    throw ShapeError(std::string("spmv: ") + what + " is " + std::to_string(rows) +
                     " x " + std::to_string(cols) + ", x has " +
                     std::to_string(x.extent(0)) + " x " + std::to_string(K(x)) +
                     " and y " + std::to_string(y.extent(0)) + " x " +
                     std::to_string(K(y)) + " (expected x: cols x K, y: rows x K)");
  }
}

// The bookkeeping every overload shares: checks, profiling region, stats.
template <class Exec, class Matrix, class XView, class YView, class Body>
void spmv_call(const char* what, const Matrix& A, const XView& x, const YView& y,
               SpmvStats* stats, Body&& body) {
  check_spmv_types<Exec, Matrix, XView, YView>();
  check_spmv_shapes(what, A.num_rows, A.num_cols, x, y);
  Kokkos::Profiling::pushRegion("libra::spmv");
  SpmvStats st;
  if (y.extent(0) != 0 && spmv_columns(y) != 0) {
    const spmv_const_t<XView> xc = x;
    body(xc, st);
  }
  Kokkos::Profiling::popRegion();
  if (stats) *stats = st;
}

template <class S>
void spmv_note(SpmvStats& st, SpmvPath path, std::int64_t segments, std::int64_t nnz,
               std::int64_t K) {
  st.path = path;
  st.segments = static_cast<std::uint64_t>(segments);
  st.flops = 2 * static_cast<std::uint64_t>(nnz) * static_cast<std::uint64_t>(K);
}

// CSC and pCSC: y = beta * y + alpha * A * x, A over `cols` local columns read
// from x at x_base, y holding rows [y_first, y_first + y.extent(0)) (every row
// the nonzeros name: a pCSC part's partial y over its row span); the private
// blocks on host spaces when they fit (and the tiles are not forced), else y
// scaled and the tiles or the atomic scatter (spmv_csc_add).
template <class Exec, class ColMap, class Index, class Values, class XView, class YView>
void spmv_csc(const Exec& exec, const ColMap& col_map, const Index& row_idx,
              const Values& values, std::int64_t cols, const XView& x,
              std::int64_t x_base, const YView& y, std::int64_t y_first,
              typename YView::non_const_value_type alpha,
              typename YView::non_const_value_type beta, const SpmvOptions& options,
              SpmvStats& st) {
  using S = typename YView::non_const_value_type;
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  const std::int64_t K = spmv_columns(y);
  const std::int64_t rows = static_cast<std::int64_t>(y.extent(0));
  if (alpha == S(0) || nnz == 0) {
    spmv_scale_rows(exec, y, 0, rows, beta, beta);
    st.path = SpmvPath::scale_only;
  } else if (!spmv_scatter_tiles_chosen<Exec>(options.tuning.scatter_tiles) &&
             spmv_csc_private_fits<Exec, S>(exec, rows, K, nnz,
                                            options.tuning.csc_private)) {
    const auto seg = spmv_csc_private(exec, col_map, row_idx, values, cols, x, x_base, y,
                                      y_first, alpha, beta);
    spmv_note<S>(st, SpmvPath::csc_private, seg, nnz, K);
  } else {
    spmv_scale_rows(exec, y, 0, rows, beta, beta);
    SpmvPath path;
    const auto seg = spmv_csc_add(exec, col_map, row_idx, values, cols, x, x_base, y,
                                  -y_first, alpha, options.tuning, path, st.plain_adds);
    spmv_note<S>(st, path, seg, nnz, K);
  }
}

}  // namespace impl

namespace impl {

// CSR and pCSR (its local rows, y_base its first row, beta_first the beta of its
// first row), with or without a plan.
template <class Exec, class S, class XView, class YView, class Part>
void spmv_csr_part(
    const Exec& exec, const char* what, const Part& A, std::int64_t lines,
    std::int64_t y_base, S alpha, S beta, S beta_first, const XView& x, const YView& y,
    const SpmvOptions& options, SpmvStats* stats,
    const SpmvPlan<typename Part::scalar_type, typename Exec::memory_space>* plan) {
  if (plan) check_spmv_plan(*plan, A.row_map, lines, A.nnz());
  spmv_call<Exec>(what, A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
    if (lines == 0) return;
    if (alpha == S(0) || A.nnz() == 0) {
      st.path = SpmvPath::scale_only;
      spmv_scale_rows(exec, y, y_base, y_base + lines, beta, beta_first);
      return;
    }
    SpmvPath path;
    const auto seg =
        spmv_csr(exec, A.row_map, A.col_idx, A.values, lines, xc, y, alpha, beta,
                 beta_first, y_base, options.tuning, path, nullptr,
                 plan && plan->tiles.coords.extent(0) > 0 ? &plan->tiles : nullptr, &st);
    spmv_note<S>(st, path, seg, A.nnz(), spmv_columns(y));
  });
}

}  // namespace impl

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha, const Csr<S, O, Off, D>& A,
          const XView& x, impl::spmv_scalar_t<S> beta, const YView& y,
          const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_csr_part(exec, "A", A, A.num_rows, 0, alpha, beta, beta, x, y, options,
                      stats, nullptr);
}

// The same with a plan from libra::spmv_plan (plan.hpp) made for A.
template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha, const Csr<S, O, Off, D>& A,
          const XView& x, impl::spmv_scalar_t<S> beta, const YView& y,
          const SpmvPlan<S, typename Exec::memory_space>& plan,
          const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_csr_part(exec, "A", A, A.num_rows, 0, alpha, beta, beta, x, y, options,
                      stats, &plan);
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha,
          const PartialCsr<S, O, Off, D>& A, const XView& x, impl::spmv_scalar_t<S> beta,
          const YView& y, const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_csr_part(exec, "the pCSR's parent", A, A.lines(), A.start, alpha, beta,
                      A.start_flag ? S(1) : beta, x, y, options, stats, nullptr);
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha,
          const PartialCsr<S, O, Off, D>& A, const XView& x, impl::spmv_scalar_t<S> beta,
          const YView& y, const SpmvPlan<S, typename Exec::memory_space>& plan,
          const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_csr_part(exec, "the pCSR's parent", A, A.lines(), A.start, alpha, beta,
                      A.start_flag ? S(1) : beta, x, y, options, stats, &plan);
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha, const Csc<S, O, Off, D>& A,
          const XView& x, impl::spmv_scalar_t<S> beta, const YView& y,
          const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_call<Exec>("A", A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
    impl::spmv_csc(exec, A.col_map, A.row_idx, A.values, A.num_cols, xc, 0, y, 0, alpha,
                   beta, options, st);
  });
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha,
          const PartialCsc<S, O, Off, D>& A, const XView& x, impl::spmv_scalar_t<S> beta,
          const YView& y, const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_call<Exec>(
      "the pCSC's parent", A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
        impl::spmv_csc(exec, A.col_map, A.row_idx, A.values, A.lines(), xc, A.start, y, 0,
                       alpha, A.index == 0 ? beta : S(1), options, st);
      });
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha, const Coo<S, O, Off, D>& A,
          const XView& x, impl::spmv_scalar_t<S> beta, const YView& y,
          const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_call<Exec>("A", A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
    impl::spmv_scale_rows(exec, y, 0, A.num_rows, beta, beta);
    st.path = SpmvPath::scale_only;
    if (alpha == S(0) || A.nnz() == 0) return;
    SpmvPath path;
    const auto seg = impl::spmv_coo_add(exec, A.row_idx, A.col_idx, A.values, xc, y, 0,
                                        alpha, options.tuning, path, st.plain_adds);
    impl::spmv_note<S>(st, path, seg, A.nnz(), impl::spmv_columns(y));
  });
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha,
          const PartialCoo<S, O, Off, D>& A, const XView& x, impl::spmv_scalar_t<S> beta,
          const YView& y, const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_call<Exec>(
      "the pCOO's parent", A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
        if (A.lines() == 0) return;
        impl::spmv_scale_rows(exec, y, A.start, A.end, beta, A.start_flag ? S(1) : beta);
        st.path = SpmvPath::scale_only;
        if (alpha == S(0) || A.nnz() == 0) return;
        SpmvPath path;
        const auto seg =
            impl::spmv_coo_add(exec, A.row_idx, A.col_idx, A.values, xc, y, 0, alpha,
                               options.tuning, path, st.plain_adds);
        impl::spmv_note<S>(st, path, seg, A.nnz(), impl::spmv_columns(y));
      });
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha, const Ell<S, O, Off, D>& A,
          const XView& x, impl::spmv_scalar_t<S> beta, const YView& y,
          const SpmvOptions& options = {}, SpmvStats* stats = nullptr) {
  impl::spmv_call<Exec>("A", A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
    if (alpha == S(0) || (A.width == 0 && A.tail.nnz() == 0)) {
      st.path = SpmvPath::scale_only;
      impl::spmv_scale_rows(exec, y, 0, A.num_rows, beta, beta);
      return;
    }
    impl::spmv_ell_rows(exec, A, xc, y, alpha, beta);
    const std::int64_t K = impl::spmv_columns(y);
    const std::int64_t nnz_ell = static_cast<std::int64_t>(A.num_rows) * A.width;
    impl::spmv_note<S>(st, SpmvPath::ell_rows, A.num_rows, nnz_ell, K);
    if (A.tail.nnz() == 0) return;
    SpmvPath tail_path;
    const auto seg =
        impl::spmv_coo_add(exec, A.tail.row_idx, A.tail.col_idx, A.tail.values, xc, y, 0,
                           alpha, options.tuning, tail_path, st.plain_adds);
    impl::spmv_note<S>(st, SpmvPath::ell_rows_tail, A.num_rows + seg,
                       nnz_ell + A.tail.nnz(), K);
  });
}

// KokkosSparse::CrsMatrix (a Tpetra local matrix) goes through the CSR kernel.
template <class Exec, class S, class O, class D, class Off, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha,
          const KokkosSparse::CrsMatrix<S, O, D, void, Off>& A, const XView& x,
          impl::spmv_scalar_t<S> beta, const YView& y, const SpmvOptions& options = {},
          SpmvStats* stats = nullptr) {
  spmv(exec, alpha, from_kokkos(A), x, beta, y, options, stats);
}

}  // namespace libra
