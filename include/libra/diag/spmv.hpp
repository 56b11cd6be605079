#pragma once
// y = beta * y + alpha * A * x with A in diagonal storage (format/diagonal.hpp):
// no column indices are read, 8 bytes per stored double instead of CSR's 12.
//
//   libra::spmv(exec, alpha, A, x, beta, y);   // A: DiagonalMatrix or
//                                              //    CompactDiagonalMatrix
//
// A thread per row walks the stored diagonals; neighbouring threads read
// neighbouring values of each diagonal and of x (coalesced on a GPU). Rows are
// equal by construction, so no balancing is needed. x and y are rank-1 Views.
#include <Kokkos_Core.hpp>

#include "libra/format/diagonal.hpp"
#include "libra/spmv/spmv.hpp"

namespace libra {

namespace impl {

// Kernels outside spmv_call's generic lambda (CUDA allows no device lambda there).
template <class Exec, class M, class XView, class YView>
void spmv_diagonal_rows(const Exec& exec, typename M::scalar_type alpha, const M& A,
                        const XView& xc, typename M::scalar_type beta, const YView& y) {
  using S = typename M::scalar_type;
  const auto diag = A.diag;
  const auto start = A.start;
  const auto values = A.values;
  const std::int64_t dg = static_cast<std::int64_t>(diag.extent(0));
  const std::int64_t cols = A.num_cols;
  Kokkos::parallel_for(
      "libra::spmv::diagonal_rows", Kokkos::RangePolicy<Exec>(exec, 0, A.num_rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        S sum = 0;
        for (std::int64_t s = 0; s < dg; ++s) {
          const std::int64_t j = i + diag(s);
          if (j < 0 || j >= cols) continue;
          sum += values(start(s) + (i < j ? i : j)) * xc(j);
        }
        y(i) = beta == S(0) ? alpha * sum : beta * y(i) + alpha * sum;
      });
}

template <class Exec, class M, class XView, class YView>
void spmv_compact_diagonal_rows(const Exec& exec, typename M::scalar_type alpha,
                                const M& A, const XView& xc, typename M::scalar_type beta,
                                const YView& y) {
  using S = typename M::scalar_type;
  const auto diag = A.diag;
  const auto values = A.values;
  const std::int64_t dg = static_cast<std::int64_t>(diag.extent(0));
  const std::int64_t n = A.num_rows;
  Kokkos::parallel_for(
      "libra::spmv::compact_diagonal_rows", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        S sum = 0;
        for (std::int64_t s = 0; s < dg; ++s) {
          const std::int64_t j = i + diag(s);
          sum += values(s, i) * xc(j >= n ? j - n : j);
        }
        y(i) = beta == S(0) ? alpha * sum : beta * y(i) + alpha * sum;
      });
}

}  // namespace impl

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha,
          const DiagonalMatrix<S, O, Off, D>& A, const XView& x,
          impl::spmv_scalar_t<S> beta, const YView& y, const SpmvOptions& options = {},
          SpmvStats* stats = nullptr) {
  static_assert(XView::rank == 1,
                "spmv: diagonal storage takes one vector (rank-1 x, y)");
  (void)options;
  impl::spmv_call<Exec>("A", A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
    if (alpha == S(0) || A.stored() == 0) {
      st.path = SpmvPath::scale_only;
      impl::spmv_scale_rows(exec, y, 0, A.num_rows, beta, beta);
      return;
    }
    impl::spmv_diagonal_rows(exec, alpha, A, xc, beta, y);
    impl::spmv_note<S>(st, SpmvPath::diagonal_rows, A.num_rows,
                       static_cast<std::int64_t>(A.stored()), 1);
  });
}

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmv(const Exec& exec, impl::spmv_scalar_t<S> alpha,
          const CompactDiagonalMatrix<S, O, Off, D>& A, const XView& x,
          impl::spmv_scalar_t<S> beta, const YView& y, const SpmvOptions& options = {},
          SpmvStats* stats = nullptr) {
  static_assert(XView::rank == 1,
                "spmv: diagonal storage takes one vector (rank-1 x, y)");
  (void)options;
  impl::spmv_call<Exec>("A", A, x, y, stats, [&](const auto& xc, SpmvStats& st) {
    if (alpha == S(0) || A.stored() == 0) {
      st.path = SpmvPath::scale_only;
      impl::spmv_scale_rows(exec, y, 0, A.num_rows, beta, beta);
      return;
    }
    impl::spmv_compact_diagonal_rows(exec, alpha, A, xc, beta, y);
    impl::spmv_note<S>(st, SpmvPath::compact_diagonal_rows, A.num_rows,
                       static_cast<std::int64_t>(A.stored()), 1);
  });
}

}  // namespace libra
