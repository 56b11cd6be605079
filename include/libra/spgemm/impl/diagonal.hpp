#pragma once
// SpGEMM through diagonal storage (SpgemmAlgorithm::cdm / hm): A and B are
// converted to CDM or HM, multiplied there (libra/diag/gemm.hpp), and C comes
// back as CSR. The symbolic phase multiplies A's and B's patterns (a 1 per
// entry): C's entry (i, j) exists where that product counts at least one
// product a_ik * b_kj, which is exactly the pattern every other algorithm gives
// (values that cancel to zero stay entries). The numeric phase multiplies the
// values and gathers them onto that pattern.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/diag/gemm.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/diagonal.hpp"
#include "libra/format/impl/diagonal.hpp"
#include "libra/format/impl/row_builder.hpp"
#include "libra/spgemm/impl/pattern_union.hpp"
#include "libra/spgemm/options.hpp"

namespace libra::impl {

template <class S, class O, class Off, class D>
struct DiagonalPlan {
  using mem = typename D::memory_space;
  bool compact = true;  // CDM (else HM)
  O num_rows = 0, num_cols = 0, inner = 0;
  Off a_nnz = 0, b_nnz = 0;
  Pattern<O, Off, mem> c;
};

template <class S, class O, class Off, class D>
DiagonalGemmOptions diagonal_gemm_options(const SpgemmOptions& options) {
  DiagonalGemmOptions g;
  g.memory_budget = options.memory_budget;
  return g;
}

// C = op(A) * op(B) in the plan's storage, returned as the Csr of its nonzeros.
template <class Exec, class S, class O, class Off, class D>
CsrArrays<S, O, Off, typename D::memory_space> diagonal_product(
    const Exec& exec, bool compact, const Csr<S, O, Off, D>& A,
    const Csr<S, O, Off, D>& B, bool ones, const SpgemmOptions& options,
    SpgemmStats& st) {
  DiagonalOptions fill;
  fill.max_fill = options.diagonal_max_fill;
  DiagonalGemmStats gs;
  CsrArrays<S, O, Off, typename D::memory_space> out;
  if (compact) {
    if (A.num_rows != A.num_cols || B.num_rows != B.num_cols) {
      throw ShapeError(
          "spgemm (cdm): compact diagonal storage needs square matrices; A is " +
          std::to_string(A.num_rows) + " x " + std::to_string(A.num_cols) + ", B " +
          std::to_string(B.num_rows) + " x " + std::to_string(B.num_cols) +
          " (hm takes any shape)");
    }
    const auto a = csr_to_compact_diagonal(exec, A, fill, ones);
    const auto b = csr_to_compact_diagonal(exec, B, fill, ones);
    const auto c =
        cdm_gemm(exec, a, b, diagonal_gemm_options<S, O, Off, D>(options), &gs);
    out = diagonal_csr_arrays(exec, c, "spgemm (cdm): nnz(C)");
  } else {
    const auto a = csr_to_diagonal(exec, A, fill, ones);
    const auto b = csr_to_diagonal(exec, B, fill, ones);
    const auto c = hm_gemm(exec, a, b, diagonal_gemm_options<S, O, Off, D>(options), &gs);
    out = diagonal_csr_arrays(exec, c, "spgemm (hm): nnz(C)");
  }
  st.diagonal_path = gs.path;
  return out;
}

template <class Exec, class S, class O, class Off, class D>
void diagonal_symbolic(const Exec& exec, DiagonalPlan<S, O, Off, D>& plan,
                       const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
                       const SpgemmOptions& options, SpgemmStats& st) {
  plan.num_rows = A.num_rows;
  plan.inner = A.num_cols;
  plan.num_cols = B.num_cols;
  plan.a_nnz = A.nnz();
  plan.b_nnz = B.nnz();
  const auto counts = diagonal_product(exec, plan.compact, A, B, true, options, st);
  plan.c.row_map = counts.row_map;
  plan.c.col = counts.col;
  // The pattern product's values count the products a_ik * b_kj of each entry.
  const auto val = counts.val;
  double products = 0;
  Kokkos::parallel_reduce(
      "libra::spgemm::diagonal::products",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(val.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t p, double& sum) { sum += val(p); }, products);
  st.products = static_cast<std::uint64_t>(products + 0.5);
  st.flops = 2 * st.products;
  st.chunks = 1;
}

// C's values on the plan's pattern: the values product, gathered entry by entry.
template <class Exec, class S, class O, class Off, class D, class Values>
void diagonal_numeric(const Exec& exec, const DiagonalPlan<S, O, Off, D>& plan,
                      const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
                      const Values& values, const SpgemmOptions& options,
                      SpgemmStats& st) {
  const auto got = diagonal_product(exec, plan.compact, A, B, false, options, st);
  const auto g_map = got.row_map;
  const auto g_col = got.col;
  const auto g_val = got.val;
  const auto row_map = plan.c.row_map;
  const auto col = plan.c.col;
  // Both rows are sorted; the values product's row holds the pattern's row minus
  // the entries that cancelled to zero.
  Kokkos::parallel_for(
      "libra::spgemm::diagonal::gather",
      Kokkos::RangePolicy<Exec>(exec, 0, plan.num_rows),
      KOKKOS_LAMBDA(const std::int64_t i) {
        Off q = g_map(i);
        const Off q_end = g_map(i + 1);
        for (Off p = row_map(i); p < row_map(i + 1); ++p) {
          while (q < q_end && g_col(q) < col(p)) ++q;
          values(p) = q < q_end && g_col(q) == col(p) ? g_val(q) : S(0);
        }
      });
}

}  // namespace libra::impl
