#pragma once
// Products of matrices in diagonal storage (format/diagonal.hpp), on their device:
//
//   auto C = libra::cdm_gemm(exec, A, B);       // banded x banded, CDM
//   auto H = libra::hm_gemm(exec, HA, HB);      // structured sparse, HM
//   // C = alpha * op(A) * op(B) + beta * C_in; A^T is read in place:
//   auto S = libra::cdm_gemm(exec, 1.0, DiagonalOp::none, A, DiagonalOp::transpose, A,
//                            1.0, C_in);        // the rank-k update A * A^T + C_in
//
//   libra::cdm_gemm_into(exec, 1.0, DiagonalOp::none, A, DiagonalOp::none, B,
//                        0.0, C);               // C of that structure again, in place
// C's diagonals are known before anything is multiplied (every sum of a
// diagonal of op(A) and one of op(B), and C_in's when beta != 0), so C is
// allocated once, after a check against DiagonalGemmOptions::memory_budget.
// The method, and which kernel runs where: impl/cdm_gemm.hpp, impl/hm_gemm.hpp.
#include <Kokkos_Core.hpp>
#include <array>
#include <string>

#include "libra/core/entry.hpp"
#include "libra/core/error.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/core/spaces.hpp"
#include "libra/diag/impl/cdm_columns.hpp"
#include "libra/diag/impl/cdm_gemm.hpp"
#include "libra/diag/impl/diagonal_set.hpp"
#include "libra/diag/impl/hm_gemm.hpp"
#include "libra/diag/options.hpp"
#include "libra/format/diagonal.hpp"
#include "libra/format/impl/diagonal.hpp"
#include "libra/util/result_memory.hpp"

namespace libra {

namespace impl {
template <class Exec, class D>
void check_diag_gemm_space() {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "the first argument must be a Kokkos execution space");
  static_assert(can_access<Exec, D>, "the execution space cannot access the matrices");
}

inline std::string shape(std::int64_t r, std::int64_t c) {
  return std::to_string(r) + " x " + std::to_string(c);
}

template <class Exec>
struct NoTeamWork {
  KOKKOS_FUNCTION void operator()(
      const typename Kokkos::TeamPolicy<Exec>::member_type&) const {}
};

// The team shape of the CDM tiles on Exec: {diagonals, positions, depth, threads}.
// GPUs run a thread per position of the tile.
template <class Exec>
std::array<int, 4> cdm_tile_shape(const DiagonalGemmOptions::Tuning& t) {
  const int tc = t.tile_diagonals > 0 ? t.tile_diagonals : cdm_tile_diagonals_max;
  const int tp = t.tile_positions > 0 ? t.tile_positions : 128;
  const int ts = t.tile_depth > 0 ? t.tile_depth : 64;
  if (tc > cdm_tile_diagonals_max) {
    throw ArgumentError("cdm_gemm: tiles of " + std::to_string(tc) +
                        " diagonals; a thread holds at most " +
                        std::to_string(cdm_tile_diagonals_max));
  }
  int team = LaunchTraits<Exec>::is_gpu
                 ? tp
                 : (t.host_team_threads > 0 ? t.host_team_threads : 1);
  const int most = Kokkos::TeamPolicy<Exec>(1, Kokkos::AUTO)
                       .team_size_max(NoTeamWork<Exec>{}, Kokkos::ParallelForTag());
  if (team > most) {
    if (LaunchTraits<Exec>::is_gpu) {
      throw ArgumentError(
          "cdm_gemm: a tile of " + std::to_string(tp) +
          " positions needs as many threads, more than a team may have (" +
          std::to_string(most) + ")");
    }
    team = most;
  }
  return {tc, tp, ts, team};
}
// What the CDM kernels read: C = alpha op(A) op(B) + beta C_in, C's values and
// ascending diagonals given.
template <class S, class O, class Off, class D>
CdmProduct<S, O, Off, D> cdm_product(
    std::int64_t n, S alpha, S beta, const CompactDiagonalMatrix<S, O, Off, D>& A,
    bool ta, const CompactDiagonalMatrix<S, O, Off, D>& B, bool tb,
    const typename CompactDiagonalMatrix<S, O, Off, D>::values_type& c,
    const typename CompactDiagonalMatrix<S, O, Off, D>::index_type& c_diag,
    const typename CompactDiagonalMatrix<S, O, Off, D>::values_type& c_in,
    const typename CompactDiagonalMatrix<S, O, Off, D>::index_type& c_in_diag) {
  CdmProduct<S, O, Off, D> pr;
  pr.n = n;
  pr.alpha = alpha;
  pr.beta = beta;
  pr.a = A.values;
  pr.b = B.values;
  pr.c = c;
  pr.c_in = c_in;
  pr.a_diag = A.diag;
  pr.c_diag = c_diag;
  pr.ta = ta;
  pr.b_at = {B.diag, tb, n};
  pr.c_in_diag = c_in_diag;
  return pr;
}

// Runs the CDM product pr describes with the kernel the options and the space
// choose; returns which ran.
template <class Exec, class P>
DiagonalPath run_cdm(const Exec& exec, const P& pr, const DiagonalGemmOptions& options) {
  // The columns kernel on GPUs when op(A) and C are band-like: their compact
  // diagonals fill most of the shortest cyclic range holding them.
  const int columns = options.tuning.cdm_columns;
  const std::int64_t dg_a = static_cast<std::int64_t>(pr.a_diag.extent(0));
  const std::int64_t dg_c = static_cast<std::int64_t>(pr.c_diag.extent(0));
  if (columns > 0 || (columns == 0 && options.tuning.cdm_tiles == 0 &&
                      LaunchTraits<Exec>::is_gpu && dg_a >= cdm_columns_min_diagonals)) {
    CyclicRange ar = cyclic_range(exec, pr.a_diag, pr.n);
    if (pr.ta && ar.span > 0) ar.lo = (pr.n - (ar.lo + ar.span - 1) % pr.n) % pr.n;
    const CyclicRange cr = cyclic_range(exec, pr.c_diag, pr.n);
    // The slot tables hold about 2 span entries of A's index type in scratch.
    using O = typename decltype(pr.a_diag)::non_const_value_type;
    const std::int64_t max_span =
        cdm_columns_max_span * 4 / static_cast<std::int64_t>(sizeof(O));
    if (columns > 0 && ar.span > max_span) {
      throw ArgumentError("cdm_gemm: op(A)'s diagonals span " + std::to_string(ar.span) +
                          " compact indices; the columns kernel takes at most " +
                          std::to_string(max_span));
    }
    const bool band_like =
        ar.span <= 2 * dg_a && cr.span <= 2 * dg_c && ar.span <= max_span;
    if (columns > 0 || band_like) {
      const int tp =
          options.tuning.tile_positions > 0 ? options.tuning.tile_positions : 128;
      int team = LaunchTraits<Exec>::is_gpu ? tp
                                            : (options.tuning.host_team_threads > 0
                                                   ? options.tuning.host_team_threads
                                                   : 1);
      team = std::min(team,
                      Kokkos::TeamPolicy<Exec>(1, Kokkos::AUTO)
                          .team_size_max(NoTeamWork<Exec>{}, Kokkos::ParallelForTag()));
      if (LaunchTraits<Exec>::is_gpu && team < tp) {
        throw ArgumentError("cdm_gemm: columns of " + std::to_string(tp) +
                            " positions need as many threads, more than a team may have");
      }
      cdm_columns(exec, pr, ar, cr, tp, team);
      return DiagonalPath::cdm_columns;
    }
  }
  const int force = options.tuning.cdm_tiles;
  if (force > 0 || (force == 0 && LaunchTraits<Exec>::is_gpu)) {
    const auto t = cdm_tile_shape<Exec>(options.tuning);
    cdm_tiles(exec, pr, t[0], t[1], t[2], t[3]);
    return DiagonalPath::cdm_tiles;
  }
  const int chunk = options.tuning.tile_positions > 0
                        ? std::min(options.tuning.tile_positions, cdm_max_chunk)
                        : cdm_max_chunk;
  cdm_rows(exec, pr, chunk);
  return DiagonalPath::cdm_rows;
}
}  // namespace impl

// C = alpha * op(A) * op(B) + beta * C_in, all n x n in compact diagonal storage.
// C_in is read only when beta != 0 (then it must be n x n) and is not modified.
// Throws ShapeError when the sizes differ, ArgumentError when C would exceed the
// memory budget.
template <class Exec, class S, class O, class Off, class D>
CompactDiagonalMatrix<S, O, Off, D> cdm_gemm(
    const Exec& exec, impl::non_deduced_t<S> alpha, DiagonalOp op_a,
    const CompactDiagonalMatrix<S, O, Off, D>& A, DiagonalOp op_b,
    const CompactDiagonalMatrix<S, O, Off, D>& B, impl::non_deduced_t<S> beta,
    const CompactDiagonalMatrix<S, O, Off, D>& C_in,
    const DiagonalGemmOptions& options = {}, DiagonalGemmStats* stats = nullptr) {
  impl::check_diag_gemm_space<Exec, D>();
  using M = CompactDiagonalMatrix<S, O, Off, D>;
  const std::int64_t n = A.num_rows;
  if (B.num_rows != A.num_rows || (beta != S(0) && C_in.num_rows != A.num_rows)) {
    throw ShapeError(
        "cdm_gemm: A is " + impl::shape(n, n) + ", B " +
        impl::shape(B.num_rows, B.num_cols) +
        (beta != S(0) ? ", C " + impl::shape(C_in.num_rows, C_in.num_cols) : "") +
        " (all must be the same size)");
  }
  const impl::ProfilingRegion region("libra::diag::cdm_gemm");
  DiagonalGemmStats st;
  // Temporaries from Libra's block cache: no cudaMalloc / cudaFree per call.
  using mem = typename D::memory_space;
  impl::Workspace<mem> workspace;
  const impl::Temps<mem> temps(workspace);
  const typename M::index_type none;
  const bool ta = op_a == DiagonalOp::transpose, tb = op_b == DiagonalOp::transpose;
  st.diagonal_pairs = static_cast<std::uint64_t>(A.diag.extent(0)) *
                      static_cast<std::uint64_t>(B.diag.extent(0));
  const typename M::index_type c_diag = impl::cdm_product_diagonals(
      exec, A.diag, ta, B.diag, tb, beta != S(0) ? C_in.diag : none, n,
      options.tuning.host_diagonal_pairs, temps, st.diagonals_on_host);
  const std::uint64_t stored = checked_mul(
      c_diag.extent(0), static_cast<std::uint64_t>(n), "cdm_gemm: values of C");
  impl::check_product_bytes(exec, stored, sizeof(S), options.memory_budget, "cdm_gemm");
  const typename M::values_type values = impl::result_view2<S, mem>(
      "libra::diag::cdm::C", c_diag.extent(0), static_cast<std::size_t>(n));
  M C(A.num_rows, c_diag, values);
  st.diagonals_c = c_diag.extent(0);
  st.stored_c = stored;
  if (stored > 0) {
    const auto pr = impl::cdm_product(n, alpha, beta, A, ta, B, tb, values, c_diag,
                                      C_in.values, C_in.diag);
    st.path = impl::run_cdm(exec, pr, options);
  }
  if (stats) *stats = st;
  return C;
}

// C = alpha * op(A) * op(B) + beta * C in place, all n x n in compact diagonal
// storage, into a C that already stores every diagonal of op(A) * op(B) (the
// result of an earlier product of the same structure, say): nothing is
// allocated, and the only synchronisation is the check that C has those
// diagonals. C's other diagonals are scaled by beta. C must not share values
// with A or B. Throws ShapeError when the sizes differ, ArgumentError when C
// lacks a diagonal of the product or aliases an operand.
template <class Exec, class S, class O, class Off, class D>
void cdm_gemm_into(const Exec& exec, impl::non_deduced_t<S> alpha, DiagonalOp op_a,
                   const CompactDiagonalMatrix<S, O, Off, D>& A, DiagonalOp op_b,
                   const CompactDiagonalMatrix<S, O, Off, D>& B,
                   impl::non_deduced_t<S> beta,
                   const CompactDiagonalMatrix<S, O, Off, D>& C,
                   const DiagonalGemmOptions& options = {},
                   DiagonalGemmStats* stats = nullptr) {
  impl::check_diag_gemm_space<Exec, D>();
  const std::int64_t n = A.num_rows;
  if (B.num_rows != A.num_rows || C.num_rows != A.num_rows) {
    throw ShapeError("cdm_gemm_into: A is " + impl::shape(n, n) + ", B " +
                     impl::shape(B.num_rows, B.num_cols) + ", C " +
                     impl::shape(C.num_rows, C.num_cols) +
                     " (all must be the same size)");
  }
  if (C.stored() > 0 &&
      (C.values.data() == A.values.data() || C.values.data() == B.values.data())) {
    throw ArgumentError("cdm_gemm_into: C shares its values with A or B");
  }
  const impl::ProfilingRegion region("libra::diag::cdm_gemm_into");
  const bool ta = op_a == DiagonalOp::transpose, tb = op_b == DiagonalOp::transpose;
  const std::int64_t missing =
      impl::missing_product_diagonals(exec, A.diag, ta, B.diag, tb, C.diag, n);
  if (missing > 0) {
    throw ArgumentError(
        "cdm_gemm_into: C lacks diagonals of op(A) * op(B): " + std::to_string(missing) +
        " pairs of A's and B's diagonals land on diagonals C does not "
        "store (compute C with cdm_gemm first)");
  }
  DiagonalGemmStats st;
  st.diagonal_pairs = static_cast<std::uint64_t>(A.diag.extent(0)) *
                      static_cast<std::uint64_t>(B.diag.extent(0));
  st.diagonals_c = C.diag.extent(0);
  st.stored_c = C.stored();
  if (C.stored() > 0) {
    // C is its own input: each entry is read, then written, by the same thread.
    const auto pr = impl::cdm_product(n, alpha, beta, A, ta, B, tb, C.values, C.diag,
                                      C.values, C.diag);
    st.path = impl::run_cdm(exec, pr, options);
  }
  if (stats) *stats = st;
}

// C = A * B.
template <class Exec, class S, class O, class Off, class D>
CompactDiagonalMatrix<S, O, Off, D> cdm_gemm(const Exec& exec,
                                             const CompactDiagonalMatrix<S, O, Off, D>& A,
                                             const CompactDiagonalMatrix<S, O, Off, D>& B,
                                             const DiagonalGemmOptions& options = {},
                                             DiagonalGemmStats* stats = nullptr) {
  return cdm_gemm(exec, S(1), DiagonalOp::none, A, DiagonalOp::none, B, S(0),
                  CompactDiagonalMatrix<S, O, Off, D>(), options, stats);
}

// C = alpha * op(A) * op(B) + beta * C_in in HM storage, any shapes that agree
// (op(A): m x k, op(B): k x n, C_in: m x n when beta != 0).
template <class Exec, class S, class O, class Off, class D>
DiagonalMatrix<S, O, Off, D> hm_gemm(
    const Exec& exec, impl::non_deduced_t<S> alpha, DiagonalOp op_a,
    const DiagonalMatrix<S, O, Off, D>& A, DiagonalOp op_b,
    const DiagonalMatrix<S, O, Off, D>& B, impl::non_deduced_t<S> beta,
    const DiagonalMatrix<S, O, Off, D>& C_in, const DiagonalGemmOptions& options = {},
    DiagonalGemmStats* stats = nullptr) {
  impl::check_diag_gemm_space<Exec, D>();
  using M = DiagonalMatrix<S, O, Off, D>;
  const bool ta = op_a == DiagonalOp::transpose, tb = op_b == DiagonalOp::transpose;
  const std::int64_t m = ta ? A.num_cols : A.num_rows;
  const std::int64_t k = ta ? A.num_rows : A.num_cols;
  const std::int64_t kb = tb ? B.num_cols : B.num_rows;
  const std::int64_t n = tb ? B.num_rows : B.num_cols;
  if (k != kb || (beta != S(0) && (C_in.num_rows != m || C_in.num_cols != n))) {
    throw ShapeError("hm_gemm: op(A) is " + impl::shape(m, k) + ", op(B) " +
                     impl::shape(kb, n) +
                     (beta != S(0) ? ", C " + impl::shape(C_in.num_rows, C_in.num_cols)
                                   : std::string()) +
                     " (expected m x k, k x n" + (beta != S(0) ? ", m x n)" : ")"));
  }
  const impl::ProfilingRegion region("libra::diag::hm_gemm");
  DiagonalGemmStats st;
  const impl::HmKeys<O> keys{m, n};
  using mem = typename D::memory_space;
  impl::Workspace<mem> workspace;
  const impl::Temps<mem> temps(workspace);
  const typename M::index_type c_map = temps.template view<O>(
      "libra::diag::hm::c_map", static_cast<std::size_t>(keys.count()));
  Kokkos::deep_copy(exec, c_map, O(0));
  const typename M::index_type none;
  st.diagonal_pairs =
      impl::flag_product_diagonals(exec, c_map, keys, A.diag, ta, B.diag, tb,
                                   beta != S(0) ? C_in.diag : none, 0, m, n);
  const auto c_diag = impl::list_flagged(exec, c_map, keys, "hm_gemm: diagonals of C");
  typename M::offsets_type start;
  const std::uint64_t stored =
      impl::diagonal_starts(exec, c_diag, m, n, start, "hm_gemm: values of C");
  impl::check_product_bytes(exec, stored, sizeof(S), options.memory_budget, "hm_gemm");
  const typename M::values_type values =
      impl::result_view<S, mem>("libra::diag::hm::C", static_cast<std::size_t>(stored));
  Kokkos::deep_copy(exec, values, S(0));  // the products add into it
  M C(static_cast<O>(m), static_cast<O>(n), c_diag, start, values);
  st.diagonals_c = c_diag.extent(0);
  st.stored_c = stored;
  if (beta != S(0) && C_in.stored() > 0) {
    const auto in = C_in;
    const S b = beta;
    const std::int64_t dg_in = static_cast<std::int64_t>(in.diag.extent(0));
    Kokkos::parallel_for(
        "libra::diag::hm::scale_input",
        Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(in.stored())),
        KOKKOS_LAMBDA(const std::int64_t t) {
          const std::int64_t lo = impl::diagonal_of(in.start, dg_in, t);
          const std::int64_t cs = c_map(keys.key(in.diag(lo)));
          values(start(cs) + (t - static_cast<std::int64_t>(in.start(lo)))) =
              b * in.values(t);
        });
  }
  if (stored > 0 && A.stored() > 0 && B.stored() > 0 && alpha != S(0)) {
    impl::HmProduct<S, O, Off, D> pr;
    pr.alpha = alpha;
    pr.a = A;
    pr.b = B;
    pr.c = C;
    pr.ta = ta;
    pr.tb = tb;
    pr.c_keys = keys;
    pr.c_map = c_map;
    const int force = options.tuning.hm_pairs;
    if (force > 0 || (force == 0 && !LaunchTraits<Exec>::is_gpu)) {
      pr.b_keys = impl::HmKeys<O>{B.num_rows, B.num_cols};
      pr.b_map = impl::diagonal_map(
          exec, B.diag, pr.b_keys,
          typename M::index_type(temps.template view<O>(
              "libra::diag::hm::b_map", static_cast<std::size_t>(pr.b_keys.count()))));
      impl::hm_pairs(exec, pr);
      st.path = DiagonalPath::hm_pairs;
    } else {
      impl::hm_entries(exec, pr);
      st.path = DiagonalPath::hm_entries;
    }
  }
  if (stats) *stats = st;
  return C;
}

template <class Exec, class S, class O, class Off, class D>
DiagonalMatrix<S, O, Off, D> hm_gemm(const Exec& exec,
                                     const DiagonalMatrix<S, O, Off, D>& A,
                                     const DiagonalMatrix<S, O, Off, D>& B,
                                     const DiagonalGemmOptions& options = {},
                                     DiagonalGemmStats* stats = nullptr) {
  return hm_gemm(exec, S(1), DiagonalOp::none, A, DiagonalOp::none, B, S(0),
                 DiagonalMatrix<S, O, Off, D>(), options, stats);
}

}  // namespace libra
