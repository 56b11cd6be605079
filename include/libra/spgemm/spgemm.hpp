#pragma once
// Sparse matrix-matrix product C = A * B, on A's device.
//
//   auto C = libra::spgemm(exec, A, B);                       // one call
//   libra::SpgemmHandle<double, int, int, Device> h;          // or: pattern once,
//   libra::spgemm_symbolic(exec, h, A, B, C);                 //     values often
//   libra::spgemm_numeric(exec, h, A, B, C);
//
// Overloads take and return KokkosSparse::CrsMatrix, so a Trilinos user swaps
// one call, and A with its columns at hand (CsrWithColumns), so lbGEMM does not
// transpose it. The algorithm is chosen in SpgemmOptions: `panel` (ApSpGEMM in-core),
// `outer` (lbGEMM), `cdm` / `hm` (through diagonal storage, impl/diagonal.hpp),
// or `automatic` (impl/choose_algorithm.hpp).
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <variant>

#include "libra/core/checked.hpp"
#include "libra/core/entry.hpp"
#include "libra/core/error.hpp"
#include "libra/core/spaces.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/csr_with_columns.hpp"
#include "libra/format/kokkos_interop.hpp"
#include "libra/spgemm/handle.hpp"
#include "libra/spgemm/impl/choose_algorithm.hpp"
#include "libra/spgemm/impl/outer.hpp"
#include "libra/spgemm/impl/panel.hpp"
#include "libra/spgemm/impl/panel_small.hpp"
#include "libra/spgemm/options.hpp"
#include "libra/util/result_memory.hpp"

namespace libra {

namespace impl {
template <class Exec, class S, class O, class Off, class D>
void check_spgemm_operands(const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B) {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  static_assert(can_access<Exec, D>, "the execution space cannot access the matrices");
  if (A.num_cols != B.num_rows) {
    throw ShapeError("spgemm: A is " + std::to_string(A.num_rows) + " x " +
                     std::to_string(A.num_cols) + " but B is " +
                     std::to_string(B.num_rows) + " x " + std::to_string(B.num_cols) +
                     " (inner dimensions differ)");
  }
}

}  // namespace impl

namespace impl {
// The symbolic phase; `values_too` (one-shot products) lets an algorithm compute
// C's values in the same pass when it can (then the plan says so).
template <class Exec, class S, class O, class Off, class D>
void spgemm_symbolic(const Exec& exec, SpgemmHandle<S, O, Off, D>& handle,
                     const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
                     Csr<S, O, Off, D>& C, bool values_too,
                     const CsrWithColumns<S, O, Off, D>* a_columns = nullptr) {
  impl::check_spgemm_operands<Exec>(A, B);
  const impl::ProfilingRegion region("libra::spgemm::symbolic");
  Kokkos::Timer total;
  handle.impl_reset();
  auto& st = handle.impl_stats();
  auto& workspace = handle.impl_workspace();
  using mem = typename D::memory_space;
  using Handle = SpgemmHandle<S, O, Off, D>;
  const SpgemmAlgorithm algorithm =
      impl::choose_spgemm_algorithm(exec, handle.options(), A, B);
  impl::Pattern<O, Off, mem> c;
  typename Csr<S, O, Off, D>::values_type values;
  if (algorithm == SpgemmAlgorithm::panel) {
    auto& plan = handle.impl_plan().template emplace<typename Handle::panel_plan_type>();
    const impl::Temps<mem> temps(workspace);
    impl::init_panel_plan(exec, plan, A, B, handle.options(), st, temps);
    const bool small = values_too &&
                       impl::wants_small_path<Exec>(A, B, handle.options()) &&
                       impl::panel_small(exec, plan, A, B, handle.options(), st, temps);
    if (!small) {
      Kokkos::Timer analysis;
      impl::panel_pre_analysis(exec, plan, A, B, handle.options(), st, temps);
      plan.values_in_symbolic = values_too;
      impl::end_phase(exec, plan, analysis, st.seconds_wlt);
      impl::panel_symbolic(exec, plan, A, B, st);
    }
    c = plan.c;
    values = plan.c_values;
  } else if (algorithm == SpgemmAlgorithm::cdm || algorithm == SpgemmAlgorithm::hm) {
    auto& plan =
        handle.impl_plan().template emplace<typename Handle::diagonal_plan_type>();
    plan.compact = algorithm == SpgemmAlgorithm::cdm;
    impl::diagonal_symbolic(exec, plan, A, B, handle.options(), st);
    c = plan.c;
  } else {
    auto& plan = handle.impl_plan().template emplace<typename Handle::outer_plan_type>();
    impl::make_outer_plan(exec, plan, A, B, handle.options(), st,
                          impl::Temps<mem>(workspace), a_columns);
    if (handle.options().phase_timings) {
      exec.fence();
      st.seconds_wlt = total.seconds();
    }
    impl::outer_symbolic(exec, plan, A, B, st);
    c = plan.c;
  }
  st.algorithm = algorithm;
  const std::uint64_t nnz = static_cast<std::uint64_t>(c.col.extent(0));
  checked_cast<Off>(nnz, "nnz(C)");
  st.nnz_c = nnz;
  if (values.extent(0) != nnz) {
    values = typename Csr<S, O, Off, D>::values_type(
        impl::result_view<S, typename Csr<S, O, Off, D>::values_type::memory_space>(
            "libra::spgemm::C::values", nnz));
  }
  C = Csr<S, O, Off, D>(A.num_rows, B.num_cols, c.row_map, c.col, values);
  st.peak_bytes = workspace.peak_bytes();
  st.seconds_total = total.seconds();
  handle.impl_set_pattern(true);
}

// C's row offsets alone, no columns or values: the panel algorithm's
// pre-analysis and count, whatever algorithm the options name (the counts are
// the same). Out-of-core heterogeneous products count every panel's rows before
// any of C comes down, so that C's host arrays exist first.
template <class Exec, class S, class O, class Off, class D>
Kokkos::View<Off*, typename D::memory_space> spgemm_row_map(
    const Exec& exec, const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
    const SpgemmOptions& options) {
  impl::check_spgemm_operands<Exec>(A, B);
  using mem = typename D::memory_space;
  using Handle = SpgemmHandle<S, O, Off, D>;
  Handle handle(options);
  auto& plan = handle.impl_plan().template emplace<typename Handle::panel_plan_type>();
  auto& st = handle.impl_stats();
  const impl::Temps<mem> temps(handle.impl_workspace());
  impl::init_panel_plan(exec, plan, A, B, handle.options(), st, temps);
  impl::panel_pre_analysis(exec, plan, A, B, handle.options(), st, temps);
  plan.counts_only = true;
  impl::panel_symbolic(exec, plan, A, B, st);
  return plan.c.row_map;
}
}  // namespace impl

// Finds C's pattern: C gets its row_map and sorted column indices (see
// SpgemmOptions::sort_columns), and values sized for spgemm_numeric (not yet
// computed). Any earlier pattern of the handle is dropped first, so a call that
// throws leaves the handle without a pattern (has_pattern() false) and C as it was.
template <class Exec, class S, class O, class Off, class D>
void spgemm_symbolic(const Exec& exec, SpgemmHandle<S, O, Off, D>& handle,
                     const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
                     Csr<S, O, Off, D>& C) {
  impl::spgemm_symbolic(exec, handle, A, B, C, false);
}

// Computes C's values on the pattern from spgemm_symbolic. A and B must have the
// shapes and patterns they had then; only their values may differ. Repeated calls
// reuse the same temporaries: the handle's memory does not grow.
template <class Exec, class S, class O, class Off, class D>
void spgemm_numeric(const Exec& exec, SpgemmHandle<S, O, Off, D>& handle,
                    const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
                    Csr<S, O, Off, D>& C) {
  impl::check_spgemm_operands<Exec>(A, B);
  if (!handle.has_pattern()) {
    throw ArgumentError("spgemm_numeric: call spgemm_symbolic with this handle first");
  }
  std::visit(
      [&](auto& plan) {
        using P = std::decay_t<decltype(plan)>;
        if constexpr (!std::is_same<P, std::monostate>::value) {
          if (A.num_rows != plan.num_rows || A.num_cols != plan.inner ||
              B.num_cols != plan.num_cols || A.nnz() != plan.a_nnz ||
              B.nnz() != plan.b_nnz) {
            throw ShapeError(
                "spgemm_numeric: A or B differ in shape or number of entries from the "
                "matrices given to spgemm_symbolic");
          }
          if (C.row_map.data() != plan.c.row_map.data() ||
              C.row_map.extent(0) != plan.c.row_map.extent(0) ||
              C.col_idx.data() != plan.c.col.data() ||
              C.values.extent(0) != plan.c.col.extent(0) ||
              (C.values.extent(0) > 0 && C.values.data() == nullptr)) {
            throw ShapeError(
                "spgemm_numeric: C is not the matrix spgemm_symbolic produced");
          }
        }
      },
      handle.impl_plan());
  const impl::ProfilingRegion region("libra::spgemm::numeric");
  Kokkos::Timer total;
  auto& st = handle.impl_stats();
  const double before = st.seconds_total;
  std::visit(
      [&](auto& plan) {
        using P = std::decay_t<decltype(plan)>;
        using Handle = SpgemmHandle<S, O, Off, D>;
        if constexpr (std::is_same<P, typename Handle::outer_plan_type>::value) {
          // Its buffers outlive the call (made once, reused by the next calls).
          impl::prepare_outer_numeric(exec, plan);
        }
        const impl::TempsFrame<typename D::memory_space> frame(handle.impl_workspace());
        if constexpr (std::is_same<P, typename Handle::outer_plan_type>::value) {
          impl::outer_numeric(exec, plan, A, B, C.values, st);
        } else if constexpr (std::is_same<P, typename Handle::panel_plan_type>::value) {
          impl::panel_numeric(exec, plan, A, B, C.values, st);
        } else if constexpr (std::is_same<P,
                                          typename Handle::diagonal_plan_type>::value) {
          impl::diagonal_numeric(exec, plan, A, B, C.values, handle.options(), st);
        }
      },
      handle.impl_plan());
  // The handle's temporaries are reused by the next call, possibly on another
  // execution space instance: they must be free when this one returns.
  exec.fence();
  st.peak_bytes = handle.impl_workspace().peak_bytes();
  st.seconds_total = before + total.seconds();
}

namespace impl {
template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> spgemm_one_shot(const Exec& exec, const Csr<S, O, Off, D>& A,
                                  const CsrWithColumns<S, O, Off, D>* a_columns,
                                  const Csr<S, O, Off, D>& B,
                                  const SpgemmOptions& options, SpgemmStats* stats) {
  using Handle = SpgemmHandle<S, O, Off, D>;
  Handle handle(options);
  Csr<S, O, Off, D> C;
  impl::spgemm_symbolic(exec, handle, A, B, C, true, a_columns);
  const auto* panel = std::get_if<typename Handle::panel_plan_type>(&handle.impl_plan());
  if (panel && panel->values_in_symbolic && panel->rows_left == 0) {
    exec.fence();  // as spgemm_numeric does: the handle's temporaries go back now
  } else {         // (for a panel product: the rows whose values the fill pass left)
    spgemm_numeric(exec, handle, A, B, C);
  }
  if (stats) *stats = handle.stats();
  return C;
}
}  // namespace impl

// C = A * B in one call.
template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> spgemm(const Exec& exec, const Csr<S, O, Off, D>& A,
                         const Csr<S, O, Off, D>& B, const SpgemmOptions& options = {},
                         SpgemmStats* stats = nullptr) {
  return impl::spgemm_one_shot(exec, A,
                               static_cast<const CsrWithColumns<S, O, Off, D>*>(nullptr),
                               B, options, stats);
}

// The same with A's columns at hand (format/csr_with_columns.hpp): lbGEMM uses
// them instead of transposing A; the other algorithms read A.csr.
template <class Exec, class S, class O, class Off, class D>
Csr<S, O, Off, D> spgemm(const Exec& exec, const CsrWithColumns<S, O, Off, D>& A,
                         const Csr<S, O, Off, D>& B, const SpgemmOptions& options = {},
                         SpgemmStats* stats = nullptr) {
  return impl::spgemm_one_shot(exec, A.csr, &A, B, options, stats);
}

template <class S, class O, class Off, class D>
Csr<S, O, Off, D> spgemm(const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
                         const SpgemmOptions& options = {},
                         SpgemmStats* stats = nullptr) {
  return spgemm(typename D::execution_space(), A, B, options, stats);
}

// The same for KokkosSparse::CrsMatrix (a Tpetra local matrix passes straight in);
// no copies on the way in or out.
template <class Exec, class S, class O, class D, class Off>
KokkosSparse::CrsMatrix<S, O, D, void, Off> spgemm(
    const Exec& exec, const KokkosSparse::CrsMatrix<S, O, D, void, Off>& A,
    const KokkosSparse::CrsMatrix<S, O, D, void, Off>& B,
    const SpgemmOptions& options = {}, SpgemmStats* stats = nullptr) {
  const auto C = spgemm(exec, from_kokkos(A), from_kokkos(B), options, stats);
  return KokkosSparse::CrsMatrix<S, O, D, void, Off>("libra::spgemm::C", C.num_rows,
                                                     C.num_cols, C.nnz(), C.values,
                                                     C.row_map, C.col_idx);
}

// The handle API for KokkosSparse::CrsMatrix: the handle's Device is the
// CrsMatrix's device_type; C shares its views with what spgemm_symbolic made.
template <class S, class O, class D, class Off>
using KokkosCrs = KokkosSparse::CrsMatrix<S, O, D, void, Off>;
template <class S, class O, class D, class Off>
using KokkosCrsHandle =
    SpgemmHandle<S, O, Off, typename KokkosCrs<S, O, D, Off>::device_type>;

template <class Exec, class S, class O, class D, class Off>
void spgemm_symbolic(const Exec& exec, KokkosCrsHandle<S, O, D, Off>& handle,
                     const KokkosCrs<S, O, D, Off>& A, const KokkosCrs<S, O, D, Off>& B,
                     KokkosCrs<S, O, D, Off>& C) {
  decltype(from_kokkos(A)) c;
  spgemm_symbolic(exec, handle, from_kokkos(A), from_kokkos(B), c);
  C = KokkosCrs<S, O, D, Off>("libra::spgemm::C", c.num_rows, c.num_cols, c.nnz(),
                              c.values, c.row_map, c.col_idx);
}

template <class Exec, class S, class O, class D, class Off>
void spgemm_numeric(const Exec& exec, KokkosCrsHandle<S, O, D, Off>& handle,
                    const KokkosCrs<S, O, D, Off>& A, const KokkosCrs<S, O, D, Off>& B,
                    KokkosCrs<S, O, D, Off>& C) {
  if (!handle.has_pattern()) {
    throw ArgumentError("spgemm_numeric: call spgemm_symbolic with this handle first");
  }
  if (C.graph.row_map.extent(0) == 0) {
    throw ShapeError("spgemm_numeric: C is not the matrix spgemm_symbolic produced");
  }
  auto c = from_kokkos(C);
  spgemm_numeric(exec, handle, from_kokkos(A), from_kokkos(B), c);
}

}  // namespace libra
