#pragma once
// SpMV plans: what a CSR's products can find once instead of at every call.
//
//   const auto plan = libra::spmv_plan(exec, A);       // A: Csr or PartialCsr
//   libra::spmv(exec, alpha, A, x, beta, y, plan);      // as often as needed
//
// On GPUs a CSR product with one vector runs in merge-path tiles balanced by
// nonzeros (impl/csr_tiles.hpp). Without a plan a first kernel searches A's row
// offsets for every tile's coordinates (into a block of Libra's cache, given
// back with a fence) and applies beta to the rows tiles cut, before the tiles
// run (on small paths a call without a plan runs the rows kernel instead, one
// launch: impl/csr_rows.hpp). A plan holds the coordinates, found once (16
// bytes a tile): a product then neither searches, allocates nor waits. Where
// rows fit half a tile the boundaries lie at row starts and a product is the
// tiles alone (row sums, impl/csr_tile_row_sums.hpp, where no row passes 128
// nonzeros); else a short pass applies beta to the cut rows first. On small
// matrices whose rows are too long for row sums but short enough for a group
// of vector lanes each, the plan takes the rows kernel (impl/csr_rows.hpp:
// whole rows a tile, balanced by nonzeros). A plan is to Libra what
// cusparseSpMV_preprocess is to cuSPARSE; it is only read, so any number of products, on
// any streams, may share one. A plan belongs to the matrix whose row offsets it was made
// from: spmv refuses another (other row offsets, rows or nonzeros) with an ArgumentError.
// It also belongs to the tile tuning of the options it was made with; a product with
// other tile tuning runs as without a plan (SpmvStats::planned says which).
// On host spaces, and for blocks of vectors, products take the merge path, which
// needs no plan: a plan made on a host space holds nothing and changes nothing.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "libra/core/error.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/partial.hpp"
#include "libra/spmv/impl/csr_tiles.hpp"
#include "libra/spmv/options.hpp"

namespace libra {

template <class S, class MemSpace>
struct SpmvPlan {
  impl::TilePlan<MemSpace> tiles;  // no coordinates: nothing to plan on this space
  // The matrix it was made for.
  const void* row_map = nullptr;
  std::int64_t rows = -1, nnz = -1;
};

namespace impl {

template <class Exec, class S, class RowMap, class Index, class Values>
SpmvPlan<S, typename Exec::memory_space> spmv_plan_rows(
    const Exec& exec, const RowMap& row_map, const Index& col_idx, const Values& values,
    std::int64_t rows, const SpmvOptions& options) {
  using Mem = typename Exec::memory_space;
  SpmvPlan<S, Mem> plan;
  plan.row_map = row_map.data();
  plan.rows = rows;
  plan.nnz = static_cast<std::int64_t>(col_idx.extent(0));
  if (spmv_csr_tiles_chosen<Exec, Kokkos::View<S*, Mem>>(options.tuning.csr_tiles)) {
    plan.tiles = spmv_tile_plan<S>(exec, row_map, col_idx, values, rows, options.tuning);
  }
  return plan;
}

template <class S, class Mem, class RowMap>
void check_spmv_plan(const SpmvPlan<S, Mem>& plan, const RowMap& row_map,
                     std::int64_t rows, std::int64_t nnz) {
  if (plan.row_map != row_map.data() || plan.rows != rows || plan.nnz != nnz) {
    throw ArgumentError(
        "spmv: the plan was made for another matrix (" + std::to_string(plan.rows) +
        " rows, " + std::to_string(plan.nnz) + " nonzeros" +
        (plan.row_map == row_map.data() ? "" : ", other row offsets") + "); A has " +
        std::to_string(rows) + " rows and " + std::to_string(nnz) + " nonzeros");
  }
}

}  // namespace impl

// The plan of A's products with one vector (Csr, or a PartialCsr's local rows).
template <class Exec, class S, class O, class Off, class D>
SpmvPlan<S, typename Exec::memory_space> spmv_plan(const Exec& exec,
                                                   const Csr<S, O, Off, D>& A,
                                                   const SpmvOptions& options = {}) {
  static_assert(Kokkos::SpaceAccessibility<Exec, typename D::memory_space>::accessible,
                "spmv_plan: the execution space cannot access A");
  return impl::spmv_plan_rows<Exec, S>(exec, A.row_map, A.col_idx, A.values, A.num_rows,
                                       options);
}

template <class Exec, class S, class O, class Off, class D>
SpmvPlan<S, typename Exec::memory_space> spmv_plan(const Exec& exec,
                                                   const PartialCsr<S, O, Off, D>& A,
                                                   const SpmvOptions& options = {}) {
  static_assert(Kokkos::SpaceAccessibility<Exec, typename D::memory_space>::accessible,
                "spmv_plan: the execution space cannot access A");
  return impl::spmv_plan_rows<Exec, S>(exec, A.row_map, A.col_idx, A.values, A.lines(),
                                       options);
}

}  // namespace libra
