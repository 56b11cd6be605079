#pragma once
// Partial formats (MSREP's pCSR, pCSC, pCOO): a contiguous range of a parent
// matrix's nonzeros, as views into the parent's arrays (no copy), plus what a
// kernel and a merge need to treat it as a matrix of its own.
//
//   auto parts = libra::partition(exec, A, P);   // P parts of equal nnz (+-1)
//   libra::spmv(exec, alpha, parts[i], x, beta, y);
//
// Part i holds the parent's nonzeros [start_idx, end_idx) with
// start_idx = floor(i * nnz / P). Row-based parts (PartialCsr, PartialCoo sorted
// by row) cover rows [start_row, end_row); consecutive parts tile the rows, and
// overlap only where a row's nonzeros are split: then the later part has
// start_flag set, its first row being one an earlier part already covers. Empty
// rows belong to the part before them (rows before the first nonzero to part 0).
// PartialCsc is the same over columns. With more parts than nonzeros some parts
// are empty; the tiling still holds.
#include <Kokkos_Core.hpp>
#include <vector>

#include "libra/core/spaces.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/csc.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/impl/partial.hpp"
#include "libra/format/traits.hpp"

namespace libra {

// Where the partitioning runs: `device` (the paper's p*-opt: the boundaries'
// binary searches and the local pointers are kernels on the execution space;
// only the P descriptors come to the host) or `host` (the p* version: the
// parent's offsets are copied to the host and everything is computed there, for
// comparison).
enum class PartitionMethod { device, host };

// Fields shared by the three partial formats.
template <class Offset, class Ordinal>
struct PartialRange {
  int index = 0;            // this part's number, 0 .. parts - 1
  int parts = 1;            // how many parts the parent was cut into
  Offset start_idx = 0;     // first nonzero of the parent held
  Offset end_idx = 0;       // one past the last
  Ordinal start = 0;        // first row (column) covered
  Ordinal end = 0;          // one past the last
  bool start_flag = false;  // the first row (column) is shared with an earlier part
  Ordinal lines() const { return end - start; }  // rows (columns) covered
  Offset nnz() const { return end_idx - start_idx; }
};

// A part of a Csr. local() is the part as a Csr of lines() rows (row r of it is
// row start + r of the parent) sharing the parent's arrays: every CSR kernel runs
// on it unchanged.
template <class S, class O, class Off, class D>
struct PartialCsr : SparseTypes<S, O, Off, D>, PartialRange<Off, O> {
  using parent_type = Csr<S, O, Off, D>;
  using row_map_type = typename parent_type::row_map_type;
  using index_type = typename parent_type::index_type;
  using values_type = typename parent_type::values_type;
  O num_rows = 0;  // the parent's shape
  O num_cols = 0;
  row_map_type row_map;  // local offsets, lines() + 1 entries, starting at 0
  index_type col_idx;    // the parent's col_idx(start_idx .. end_idx)
  values_type values;
  O start_row() const { return this->start; }
  O end_row() const { return this->end; }
  parent_type local() const {
    return parent_type(this->lines(), num_cols, row_map, col_idx, values);
  }
};

// A part of a Csc over columns [start, end); local() is a Csc of lines() columns.
template <class S, class O, class Off, class D>
struct PartialCsc : SparseTypes<S, O, Off, D>, PartialRange<Off, O> {
  using parent_type = Csc<S, O, Off, D>;
  using col_map_type = typename parent_type::col_map_type;
  using index_type = typename parent_type::index_type;
  using values_type = typename parent_type::values_type;
  O num_rows = 0;
  O num_cols = 0;
  col_map_type col_map;  // local offsets, lines() + 1 entries
  index_type row_idx;
  values_type values;
  O start_col() const { return this->start; }
  O end_col() const { return this->end; }
  parent_type local() const {
    return parent_type(num_rows, this->lines(), col_map, row_idx, values);
  }
};

// A part of a Coo sorted by row (partition() checks that). Its indices stay the
// parent's (global) ones; local() is a Coo of the parent's shape holding only
// the part's entries.
template <class S, class O, class Off, class D>
struct PartialCoo : SparseTypes<S, O, Off, D>, PartialRange<Off, O> {
  using parent_type = Coo<S, O, Off, D>;
  using index_type = typename parent_type::index_type;
  using values_type = typename parent_type::values_type;
  O num_rows = 0;
  O num_cols = 0;
  index_type row_idx;
  index_type col_idx;
  values_type values;
  O start_row() const { return this->start; }
  O end_row() const { return this->end; }
  parent_type local() const {
    return parent_type(num_rows, num_cols, row_idx, col_idx, values);
  }
};

template <class T>
struct is_partial : std::false_type {};
template <class S, class O, class Off, class D>
struct is_partial<PartialCsr<S, O, Off, D>> : std::true_type {};
template <class S, class O, class Off, class D>
struct is_partial<PartialCsc<S, O, Off, D>> : std::true_type {};
template <class S, class O, class Off, class D>
struct is_partial<PartialCoo<S, O, Off, D>> : std::true_type {};

namespace impl {
template <class S, class O, class Off, class D, class Plan>
std::vector<PartialCsr<S, O, Off, D>> csr_parts(const Csr<S, O, Off, D>& A,
                                                const Plan& plan) {
  std::vector<PartialCsr<S, O, Off, D>> out(static_cast<std::size_t>(plan.parts));
  for (int i = 0; i < plan.parts; ++i) {
    auto& p = out[static_cast<std::size_t>(i)];
    fill_range(p, plan, i);
    p.num_rows = A.num_rows;
    p.num_cols = A.num_cols;
    p.row_map = local_offsets(plan, i);
    const auto nz = Kokkos::make_pair(p.start_idx, p.end_idx);
    p.col_idx = Kokkos::subview(A.col_idx, nz);
    p.values = Kokkos::subview(A.values, nz);
  }
  return out;
}
}  // namespace impl

// Cuts A into `parts` parts of equal nonzeros (parts >= 1; more parts than
// nonzeros leaves some empty). Throws ArgumentError for parts < 1 and, for a
// Coo, when it is not sorted by row.
template <class Exec, class S, class O, class Off, class D>
std::vector<PartialCsr<S, O, Off, D>> partition(
    const Exec& exec, const Csr<S, O, Off, D>& A, int parts,
    PartitionMethod method = PartitionMethod::device) {
  static_assert(can_access<Exec, D>, "partition: the execution space cannot access A");
  Kokkos::Profiling::pushRegion("libra::partition::csr");
  const auto plan = impl::plan_compressed(exec, A.row_map, A.num_rows, A.nnz(), parts,
                                          method == PartitionMethod::device);
  auto out = impl::csr_parts(A, plan);
  Kokkos::Profiling::popRegion();
  return out;
}

// MSREP's baseline: P blocks of equal row counts (rows i * m / P onwards), whole
// rows only, so the nonzeros are as unbalanced as the rows are. Same type as
// the nnz partition, so that everything downstream runs on either.
template <class Exec, class S, class O, class Off, class D>
std::vector<PartialCsr<S, O, Off, D>> partition_rows(
    const Exec& exec, const Csr<S, O, Off, D>& A, int parts,
    PartitionMethod method = PartitionMethod::device) {
  static_assert(can_access<Exec, D>, "partition: the execution space cannot access A");
  Kokkos::Profiling::pushRegion("libra::partition::csr_rows");
  const auto plan = impl::plan_compressed<impl::LineBlockStart>(
      exec, A.row_map, A.num_rows, A.nnz(), parts, method == PartitionMethod::device);
  auto out = impl::csr_parts(A, plan);
  Kokkos::Profiling::popRegion();
  return out;
}

template <class Exec, class S, class O, class Off, class D>
std::vector<PartialCsc<S, O, Off, D>> partition(
    const Exec& exec, const Csc<S, O, Off, D>& A, int parts,
    PartitionMethod method = PartitionMethod::device) {
  static_assert(can_access<Exec, D>, "partition: the execution space cannot access A");
  Kokkos::Profiling::pushRegion("libra::partition::csc");
  const auto plan = impl::plan_compressed(exec, A.col_map, A.num_cols, A.nnz(), parts,
                                          method == PartitionMethod::device);
  std::vector<PartialCsc<S, O, Off, D>> out(static_cast<std::size_t>(parts));
  for (int i = 0; i < parts; ++i) {
    auto& p = out[static_cast<std::size_t>(i)];
    impl::fill_range(p, plan, i);
    p.num_rows = A.num_rows;
    p.num_cols = A.num_cols;
    p.col_map = impl::local_offsets(plan, i);
    const auto nz = Kokkos::make_pair(p.start_idx, p.end_idx);
    p.row_idx = Kokkos::subview(A.row_idx, nz);
    p.values = Kokkos::subview(A.values, nz);
  }
  Kokkos::Profiling::popRegion();
  return out;
}

template <class Exec, class S, class O, class Off, class D>
std::vector<PartialCoo<S, O, Off, D>> partition(
    const Exec& exec, const Coo<S, O, Off, D>& A, int parts,
    PartitionMethod method = PartitionMethod::device) {
  static_assert(can_access<Exec, D>, "partition: the execution space cannot access A");
  Kokkos::Profiling::pushRegion("libra::partition::coo");
  const auto plan = impl::plan_coo(exec, A.row_idx, A.num_rows, parts,
                                   method == PartitionMethod::device);
  std::vector<PartialCoo<S, O, Off, D>> out(static_cast<std::size_t>(parts));
  for (int i = 0; i < parts; ++i) {
    auto& p = out[static_cast<std::size_t>(i)];
    impl::fill_range(p, plan, i);
    p.num_rows = A.num_rows;
    p.num_cols = A.num_cols;
    const auto nz = Kokkos::make_pair(p.start_idx, p.end_idx);
    p.row_idx = Kokkos::subview(A.row_idx, nz);
    p.col_idx = Kokkos::subview(A.col_idx, nz);
    p.values = Kokkos::subview(A.values, nz);
  }
  Kokkos::Profiling::popRegion();
  return out;
}

}  // namespace libra
