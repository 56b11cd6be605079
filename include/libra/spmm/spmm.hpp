#pragma once
// Sparse times dense: Y = beta * Y + alpha * A * X, on A's device.
//
//   libra::spmm(exec, A, X, Y);                  // Y = A * X
//   libra::spmm(exec, A, X, Y, alpha, beta);     // Y = beta * Y + alpha * A * X
//
// A is a libra::Csr (or a KokkosSparse::CrsMatrix); X (A.num_cols x K) and Y
// (A.num_rows x K) are rank-2 Kokkos Views, LayoutLeft or LayoutRight (each its
// own), holding A's scalar type. beta == 0 overwrites Y (NaN or Inf in Y do not
// survive); alpha == 0 only scales Y. Host spaces take a row per iteration
// (impl/host_rows.hpp); GPUs a thread per equal merge-path chunk with vector
// lanes across the K columns (impl/thread_chunks.hpp: no temporaries, no
// synchronisation), or, when asked, a team per panel staging the rows of X that
// several nonzeros of the panel share in team scratch (impl/team_panels.hpp).
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "libra/core/error.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/core/spaces.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/kokkos_interop.hpp"
#include "libra/spmm/impl/host_rows.hpp"
#include "libra/spmm/impl/scale.hpp"
#include "libra/spmm/impl/team_dispatch.hpp"
#include "libra/spmm/options.hpp"

namespace libra {

namespace impl {

template <class T>
struct spmm_identity {
  using type = T;
};
// A non-deduced scalar: spmm(exec, A, X, Y, 1.0, 0.0) works for float matrices too.
template <class T>
using spmm_scalar_t = typename spmm_identity<T>::type;

template <class Layout>
inline constexpr bool spmm_layout_ok = std::is_same<Layout, Kokkos::LayoutLeft>::value ||
                                       std::is_same<Layout, Kokkos::LayoutRight>::value;

template <class Exec, class S, class XView, class YView>
void check_spmm_types() {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  static_assert(Kokkos::is_view<XView>::value && Kokkos::is_view<YView>::value,
                "spmm: X and Y must be Kokkos Views");
  static_assert(XView::rank == 2 && YView::rank == 2,
                "spmm: X and Y must be rank-2 Views");
  static_assert(spmm_layout_ok<typename XView::array_layout> &&
                    spmm_layout_ok<typename YView::array_layout>,
                "spmm: X and Y must be LayoutLeft or LayoutRight");
  static_assert(std::is_same<typename XView::non_const_value_type, S>::value &&
                    std::is_same<typename YView::value_type, S>::value,
                "spmm: X and Y must hold A's scalar type (Y not const)");
  static_assert(
      Kokkos::SpaceAccessibility<Exec, typename XView::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<Exec, typename YView::memory_space>::accessible,
      "spmm: the execution space cannot access X or Y");
}

// The views as the kernels take them: X const, both with default memory traits
// unchanged (so that a user's own views pass without copies).
template <class View>
using spmm_const_view =
    Kokkos::View<typename View::const_value_type**, typename View::array_layout,
                 typename View::device_type, typename View::memory_traits>;

}  // namespace impl

template <class Exec, class S, class O, class Off, class D, class XView, class YView>
void spmm(const Exec& exec, const Csr<S, O, Off, D>& A, const XView& X, const YView& Y,
          impl::spmm_scalar_t<S> alpha = S(1), impl::spmm_scalar_t<S> beta = S(0),
          const SpmmOptions& options = {}, SpmmStats* stats = nullptr) {
  impl::check_spmm_types<Exec, S, XView, YView>();
  static_assert(can_access<Exec, D>, "spmm: the execution space cannot access A");
  if (X.extent(0) != static_cast<std::size_t>(A.num_cols) ||
      Y.extent(0) != static_cast<std::size_t>(A.num_rows) || X.extent(1) != Y.extent(1)) {
    throw ShapeError(
        "spmm: A is " + std::to_string(A.num_rows) + " x " + std::to_string(A.num_cols) +
        ", X is " + std::to_string(X.extent(0)) + " x " + std::to_string(X.extent(1)) +
        " and Y is " + std::to_string(Y.extent(0)) + " x " + std::to_string(Y.extent(1)) +
        " (expected X: cols(A) x K, Y: rows(A) x K)");
  }
  Kokkos::Profiling::pushRegion("libra::spmm");
  SpmmStats st;
  const std::size_t K = Y.extent(1);
  const impl::spmm_const_view<XView> x = X;
  if (Y.extent(0) == 0 || K == 0) {
    st.path = SpmmPath::none;
  } else if (alpha == S(0) || A.nnz() == 0) {
    st.path = SpmmPath::scale_only;
    impl::spmm_scale(exec, Y, beta);
  } else {
    st.flops = 2 * static_cast<std::uint64_t>(A.nnz()) * K;
    // Counting carries and staged rows reads a result back: a synchronisation.
    const bool counts = stats != nullptr && options.tuning.count_in_stats;
    if constexpr (LaunchTraits<Exec>::is_gpu) {
      impl::spmm_team_kernels(exec, A, x, Y, alpha, beta, options, st, counts);
    } else if (options.tuning.host_team_kernel) {  // tests: the GPU kernels on the host
      impl::spmm_team_kernels(exec, A, x, Y, alpha, beta, options, st, counts);
    } else {
      st.path = SpmmPath::host_rows;
      impl::spmm_host_rows(exec, A, x, Y, alpha, beta);
    }
  }
  Kokkos::Profiling::popRegion();
  if (stats) *stats = st;
}

template <class S, class O, class Off, class D, class XView, class YView>
void spmm(const Csr<S, O, Off, D>& A, const XView& X, const YView& Y,
          impl::spmm_scalar_t<S> alpha = S(1), impl::spmm_scalar_t<S> beta = S(0),
          const SpmmOptions& options = {}, SpmmStats* stats = nullptr) {
  spmm(typename D::execution_space(), A, X, Y, alpha, beta, options, stats);
}

// The same for KokkosSparse::CrsMatrix (a Tpetra local matrix passes straight in).
template <class Exec, class S, class O, class D, class Off, class XView, class YView>
void spmm(const Exec& exec, const KokkosSparse::CrsMatrix<S, O, D, void, Off>& A,
          const XView& X, const YView& Y, impl::spmm_scalar_t<S> alpha = S(1),
          impl::spmm_scalar_t<S> beta = S(0), const SpmmOptions& options = {},
          SpmmStats* stats = nullptr) {
  spmm(exec, from_kokkos(A), X, Y, alpha, beta, options, stats);
}

}  // namespace libra
