#pragma once
// lbGEMM (outer-product SpGEMM balanced by a heaviest-first workload table):
// the symbolic phase finds C's pattern, the numeric phase its values, both in
// chunks of the workload table whose products fit the memory budget.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "libra/algorithms/scan.hpp"
#include "libra/core/checked.hpp"
#include "libra/core/dynamic_range.hpp"
#include "libra/format/convert.hpp"
#include "libra/spgemm/impl/outer_expand.hpp"
#include "libra/spgemm/impl/outer_plan.hpp"
#include "libra/spgemm/impl/outer_shape.hpp"
#include "libra/spgemm/impl/pattern_union.hpp"
#include "libra/spgemm/impl/phase_timing.hpp"
#include "libra/spgemm/impl/row_bins.hpp"
#include "libra/spgemm/impl/row_compress.hpp"
#include "libra/spgemm/impl/row_compress_host.hpp"
#include "libra/spgemm/impl/workload_table.hpp"
#include "libra/util/memory_budget.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

template <class Plan>
void report_progress(const Plan& plan, int done) {
  if (plan.progress)
    plan.progress(done, 2 * (static_cast<int>(plan.chunk_cuts.size()) - 1));
}

// Per-chunk offsets: offset(p) for every CSR position p of A, and row_begin(i) =
// offset(A.row_map(i)), where row i's products start. Returns the chunk's products.
template <class Exec, class Plan, class Csr>
std::uint64_t chunk_offsets(const Exec& exec, Plan& plan, std::size_t chunk, const Csr& A,
                            const Csr& B) {
  // One chunk: the symbolic phase's offsets still hold for the numeric phase.
  if (plan.chunk_cuts.size() == 2 && plan.offsets_of_chunk == 0)
    return plan.wlt.total_products;
  plan.offsets_of_chunk = plan.chunk_cuts.size() == 2 ? 0 : -1;
  const std::size_t begin = plan.chunk_cuts[chunk];
  const std::size_t end = plan.chunk_cuts[chunk + 1];
  if (plan.chunk_rows) {
    row_panel_weights(exec, begin, end, A.row_map, A.col_idx, B.row_map, plan.weight);
  } else {
    chunk_weights(exec, plan.wlt, begin, end, plan.csc_to_csr, B.row_map, plan.weight);
  }
  const auto a_row_map = A.row_map;
  const std::uint64_t total = exclusive_scan(exec, "libra::spgemm::outer::offsets",
                                             plan.weight, plan.offset, "products");
  const auto offset = plan.offset;
  const auto row_begin = plan.row_begin;
  Kokkos::parallel_for(
      "libra::spgemm::outer::row_begin",
      Kokkos::RangePolicy<Exec>(exec, 0, row_begin.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) { row_begin(i) = offset(a_row_map(i)); });
  return total;
}

template <bool WithValues, class Exec, class Plan, class Csr>
void expand_chunk(const Exec& exec, const Plan& plan, std::size_t chunk, const Csr& B,
                  typename Plan::cols_view out_col, typename Plan::vals_view out_val) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using Functor = OuterExpand<Exec, S, O, Off, WithValues>;
  // A row panel takes every item, narrowed to the panel's rows.
  const std::size_t item_begin = plan.chunk_rows ? 0 : plan.chunk_cuts[chunk];
  const std::size_t items =
      plan.chunk_rows ? plan.wlt.size : plan.chunk_cuts[chunk + 1] - item_begin;
  if (items == 0) return;
  const auto& shape = plan.shape;
  Functor f{plan.wlt.a_begin,
            plan.wlt.a_end,
            plan.wlt.k,
            item_begin,
            plan.a_csc.row_idx,
            plan.a_csc.values,
            plan.csc_to_csr,
            B.row_map,
            B.col_idx,
            B.values,
            plan.offset,
            out_col,
            out_val,
            shape.piece,
            plan.chunk_rows,
            static_cast<std::int64_t>(plan.chunk_rows ? plan.chunk_cuts[chunk] : 0),
            static_cast<std::int64_t>(plan.chunk_rows ? plan.chunk_cuts[chunk + 1] : 0)};
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(items), shape.expand_threads,
                                  shape.expand_lanes);
  Kokkos::parallel_for(
      WithValues ? "libra::spgemm::outer::expand_values"
                 : "libra::spgemm::outer::expand_pattern",
      policy.set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(shape.piece))),
      f);
}

// Symbolic, host spaces: distinct columns per row with per-thread dense flags.
// Returns the rows it handled.
template <class Exec, class Plan, class O>
std::uint64_t unique_rows_host(
    const Exec& exec, const Plan& plan, const RowsOfProducts<Exec, O>& rows_of,
    const Kokkos::View<std::uint64_t*, typename Exec::memory_space>& unique) {
  std::uint64_t handled = 0;
  if constexpr (is_host_exec<Exec>) {
    dynamic_reduce("libra::spgemm::outer::unique_spa", exec, 0, plan.num_rows, 0,
                   UniqueWithSpa<Exec, O>{rows_of, unique, plan.spa_seen,
                                          Kokkos::Experimental::UniqueToken<Exec>(exec),
                                          static_cast<std::uint64_t>(plan.num_cols),
                                          plan.sort_columns},
                   handled);
  }
  return handled;
}

// Symbolic, GPU-style: rows binned by products, sorted in scratch, or marked in
// per-team bitmaps (made here, as many as the long rows need).
template <class Exec, class Plan, class O>
void unique_rows_binned(
    const Exec& exec, const Plan& plan, const RowsOfProducts<Exec, O>& rows_of,
    const Kokkos::View<std::uint64_t*, typename Exec::memory_space>& unique,
    SpgemmPathCounts& paths) {
  const auto& shape = plan.shape;
  const auto row_begin = plan.row_begin;
  const auto bins = bin_rows(
      exec, plan.num_rows,
      KOKKOS_LAMBDA(const std::int64_t i) {
        return shape.pattern_bin_of(row_begin(i + 1) - row_begin(i));
      },
      plan.temps);
  for (int b = 1; b < shape.big_bin; ++b) {
    if (bins.size(b) == 0) continue;
    paths.sort_in_scratch += bins.size(b);
    const int cap = next_pow2(shape.bin_limit[b]);
    using F = UniqueInScratch<Exec, O>;
    Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(bins.size(b)),
                                    shape.bin_threads[b]);
    Kokkos::parallel_for(
        "libra::spgemm::outer::unique_scratch",
        policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes(cap))),
        F{rows_of, bins.rows, bins.begin[b], unique, cap, plan.pad});
  }
  if (const std::size_t big = bins.size(shape.big_bin)) {
    paths.bitmap += big;
    const std::size_t slots = std::min(big, plan.bitmap_slots);
    const std::size_t words = (static_cast<std::size_t>(plan.num_cols) + 63) / 64;
    const auto bitmap = plan.temps.template view2<std::uint64_t>(
        "libra::spgemm::outer::bitmap", slots, words);
    using F = UniqueInBitmap<Exec, O>;
    Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(slots),
                                    shape.bin_threads[shape.big_bin]);
    Kokkos::parallel_for(
        "libra::spgemm::outer::unique_bitmap",
        policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes())),
        F{rows_of, bins.rows, bins.begin[shape.big_bin], big, unique, bitmap});
  }
}

// The chunk's pattern: distinct columns gathered from the start of each row's
// product segment. `keep` makes it a plain allocation (it becomes C's pattern);
// otherwise it is a temporary of the chunk.
template <class Exec, class Plan, class ColsView, class UniqueView>
typename Plan::pattern_type gather_pattern(const Exec& exec, const Plan& plan,
                                           const ColsView& cols, const UniqueView& unique,
                                           bool keep) {
  using O = typename Plan::pattern_type::ordinal_type;
  using Off = typename Plan::pattern_type::offset_type;
  using mem = typename Exec::memory_space;
  const Temps<mem> where = keep ? Temps<mem>{} : plan.temps;
  typename Plan::pattern_type part;
  part.row_map = where.template view<Off>("libra::spgemm::C::row_map",
                                          static_cast<std::size_t>(plan.num_rows) + 1);
  const std::uint64_t nnz = exclusive_scan(exec, "libra::spgemm::outer::scan_unique",
                                           unique, part.row_map, "nnz(C)");
  part.col = where.template view<O>("libra::spgemm::C::col", nnz);
  const auto rm = part.row_map;
  const auto out = part.col;
  const auto row_begin = plan.row_begin;
  const O num_rows = plan.num_rows;
  Kokkos::parallel_for(
      "libra::spgemm::outer::gather_pattern", Kokkos::RangePolicy<Exec>(exec, 0, nnz),
      KOKKOS_LAMBDA(const std::size_t e) {
        const O r = owner_of(rm, num_rows, e);
        out(e) = cols(row_begin(r) + (e - static_cast<std::uint64_t>(rm(r))));
      });
  return part;
}

// Symbolic: C's pattern, chunk by chunk. Each chunk's temporaries are rewound at
// its end, so the workspace holds the plan plus one chunk's worth.
template <class Exec, class Plan, class Csr>
void outer_symbolic(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                    SpgemmStats& st) {
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  Kokkos::Timer timer;
  const std::size_t chunks = plan.chunk_cuts.size() - 1;
  std::vector<typename Plan::pattern_type> panels;  // chunk_rows: C's row panels
  for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
    const TempsFrame<mem> frame(plan.temps);
    timer.reset();
    const std::uint64_t products = chunk_offsets(exec, plan, chunk, A, B);
    const auto cols =
        Kokkos::subview(plan.cols_buffer, Kokkos::make_pair(std::uint64_t(0), products));
    expand_chunk<false>(exec, plan, chunk, B, cols, {});
    end_phase(exec, plan, timer, st.seconds_expand);

    const RowsOfProducts<Exec, O> rows_of{plan.row_begin, cols};
    auto unique = plan.temps.template view<std::uint64_t>(
        "libra::spgemm::outer::unique", static_cast<std::size_t>(A.num_rows));
    Kokkos::deep_copy(exec, unique, std::uint64_t(0));  // rows without products stay 0
    if (plan.host_dense()) {
      const std::uint64_t rows = unique_rows_host(exec, plan, rows_of, unique);
      st.paths.host_dense += rows;
      if (!plan.sort_columns) st.paths.unsorted += rows;
    } else {
      unique_rows_binned(exec, plan, rows_of, unique, st.paths);
    }
    const auto part =
        gather_pattern(exec, plan, Kokkos::View<O*, mem>(cols.data(), products), unique,
                       chunk == 0 || plan.chunk_rows);
    end_phase(exec, plan, timer, st.seconds_compress);
    if (plan.chunk_rows) {
      panels.push_back(part);
    } else if (chunk == 0) {
      plan.c = part;
    } else {
      plan.c = pattern_union(exec, A.num_rows, plan.c, part, plan.temps);
      end_phase(exec, plan, timer, st.seconds_merge);
    }
    report_progress(plan, static_cast<int>(chunk) + 1);
  }
  if (plan.chunk_rows) {
    plan.c = concatenate_row_panels(exec, plan.chunk_cuts, panels,
                                    static_cast<std::size_t>(A.num_rows));
    end_phase(exec, plan, timer, st.seconds_merge);
  }
  if (chunks == 0) {  // nothing to multiply: an empty pattern
    plan.c.row_map = Kokkos::View<Off*, mem>("libra::spgemm::C::row_map",
                                             static_cast<std::size_t>(A.num_rows) + 1);
    plan.c.col = Kokkos::View<O*, mem>("libra::spgemm::C::col", 0);
  }
}

// Numeric, GPU-style: rows binned by the larger of their products and C's row,
// accumulated in scratch, in the per-team dense arrays, or in place in C.
template <class Exec, class Plan, class O, class VV, class CVals>
void accumulate_rows_binned(const Exec& exec, const Plan& plan,
                            const RowsOfProducts<Exec, O>& rows_of, const VV& vals,
                            const CVals& c_val, SpgemmPathCounts& paths) {
  using S = typename CVals::non_const_value_type;
  using Off = typename decltype(plan.c.row_map)::non_const_value_type;
  const auto& shape = plan.shape;
  const auto row_begin = plan.row_begin;
  const auto c_map = plan.c.row_map;
  const auto c_col = plan.c.col;
  const int capacity = shape.accumulate_capacity;
  // A bin's scratch must hold the row of C, which may be longer than the row's
  // products in this chunk; rows of C too long for scratch go to the last bin.
  const auto bins = bin_rows(
      exec, plan.num_rows,
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::uint64_t n = row_begin(i + 1) - row_begin(i);
        if (n == 0) return 0;
        const auto len = static_cast<std::uint64_t>(c_map(i + 1) - c_map(i));
        if (len > static_cast<std::uint64_t>(capacity)) return shape.big_bin;
        const int b = shape.bin_of(n > len ? n : len);
        return b == shape.big_bin ? shape.big_bin - 1 : b;
      },
      plan.temps);
  for (int b = 1; b < shape.big_bin; ++b) {
    if (bins.size(b) == 0) continue;
    paths.accumulate_in_scratch += bins.size(b);
    const int cap =
        b + 1 < shape.big_bin ? std::min(shape.bin_limit[b], capacity) : capacity;
    using F = AccumulateInScratch<Exec, S, O, Off>;
    Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(bins.size(b)),
                                    shape.bin_threads[b]);
    Kokkos::parallel_for(
        "libra::spgemm::outer::accumulate_scratch",
        policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes(cap))),
        F{rows_of, vals, bins.rows, bins.begin[b], c_map, c_col, c_val, cap});
  }
  const std::size_t big = bins.size(shape.big_bin);
  if (big == 0) return;
  if (plan.dense.extent(0) > 0) {
    paths.accumulate_dense += big;
    using F = AccumulateDense<Exec, S, O, Off>;
    const std::size_t slots = std::min(big, plan.dense.extent(0));
    Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(slots),
                                    shape.bin_threads[shape.big_bin]);
    Kokkos::parallel_for("libra::spgemm::outer::accumulate_dense", policy,
                         F{rows_of, vals, bins.rows, bins.begin[shape.big_bin], big,
                           c_map, c_col, c_val, plan.dense});
  } else {
    paths.accumulate_in_place += big;
    using F = AccumulateInPlace<Exec, S, O, Off>;
    Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(big),
                                    shape.bin_threads[shape.big_bin]);
    Kokkos::parallel_for(
        "libra::spgemm::outer::accumulate_global", policy,
        F{rows_of, vals, bins.rows, bins.begin[shape.big_bin], c_map, c_col, c_val});
  }
}

// Numeric: C's values on the known pattern, chunk by chunk.
template <class Exec, class Plan, class Csr>
void outer_numeric(const Exec& exec, Plan& plan, const Csr& A, const Csr& B,
                   typename Csr::values_type c_val, SpgemmStats& st) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  Kokkos::Timer timer;
  // A's current values in CSC order (only the values may have changed); the
  // caller's own columns are current already.
  if (!plan.a_csc_given) {
    const auto a_val = plan.a_csc.values;
    const auto src = plan.csc_to_csr;
    const auto values = A.values;
    Kokkos::parallel_for(
        "libra::spgemm::outer::refresh_a",
        Kokkos::RangePolicy<Exec>(exec, 0, a_val.extent(0)),
        KOKKOS_LAMBDA(const std::size_t c) { a_val(c) = values(src(c)); });
  }
  Kokkos::deep_copy(exec, c_val, S(0));
  const std::size_t chunks = plan.chunk_cuts.size() - 1;
  for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
    const TempsFrame<mem> frame(plan.temps);
    timer.reset();
    const std::uint64_t products = chunk_offsets(exec, plan, chunk, A, B);
    const auto range = Kokkos::make_pair(std::uint64_t(0), products);
    const auto cols = Kokkos::subview(plan.cols_buffer, range);
    const auto vals = Kokkos::subview(plan.vals_buffer, range);
    expand_chunk<true>(exec, plan, chunk, B, cols, vals);
    end_phase(exec, plan, timer, st.seconds_expand);

    const RowsOfProducts<Exec, O> rows_of{plan.row_begin, cols};
    if (plan.host_dense()) {
      if constexpr (is_host_exec<Exec>) {
        std::uint64_t rows = 0;
        dynamic_reduce("libra::spgemm::outer::accumulate_spa", exec, 0, A.num_rows, 0,
                       AccumulateWithSpa<Exec, S, O, Off>{
                           rows_of, vals, plan.c.row_map, plan.c.col, c_val, plan.spa_acc,
                           Kokkos::Experimental::UniqueToken<Exec>(exec)},
                       rows);
        st.paths.accumulate_host_dense += rows;
      }
    } else {
      accumulate_rows_binned(exec, plan, rows_of, vals, c_val, st.paths);
    }
    end_phase(exec, plan, timer, st.seconds_compress);
    report_progress(plan, static_cast<int>(chunks + 1 + chunk));
  }
}

}  // namespace libra::impl
