#pragma once
// lbGEMM's expansion: every item (column k of A, row k of B) multiplies each
// nonzero of its A(:,k) range by all of B(k,:), writing the products to offsets
// computed beforehand. No atomics, no comparisons of indices.
//
// The offsets are an exclusive scan over A's entries *in CSR order* of
// |B(k,:)| (for the entries whose item is in the current chunk), so the products
// of each row of C land contiguously: row i's products are
// [offset(A.row_map(i)), offset(A.row_map(i+1))). The compress step then works row
// by row without sorting across rows.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/spgemm/impl/workload_table.hpp"

namespace libra::impl {

// weight(p) = |B(k,:)| for every CSR position p of A whose item lies in
// [item_begin, item_end) of the table, 0 elsewhere.
template <class Exec, class Wlt, class SourceView, class RowMap, class WeightView>
void chunk_weights(const Exec& exec, const Wlt& wlt, std::size_t item_begin,
                   std::size_t item_end, const SourceView& csc_to_csr,
                   const RowMap& b_row_map, const WeightView& weight) {
  Kokkos::deep_copy(exec, weight, 0);
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const auto a_begin = wlt.a_begin;
  const auto a_end = wlt.a_end;
  const auto ks = wlt.k;
  const int threads = LaunchTraits<Exec>::team_threads(128);
  Kokkos::parallel_for(
      "libra::spgemm::outer::chunk_weights",
      Policy(exec, static_cast<int>(item_end - item_begin), threads),
      KOKKOS_LAMBDA(const Member& team) {
        const std::size_t item = item_begin + team.league_rank();
        const auto k = ks(item);
        const auto b_len = b_row_map(k + 1) - b_row_map(k);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a_begin(item), a_end(item)),
                             [&](const auto c) { weight(csc_to_csr(c)) = b_len; });
      });
}

// weight(p) = |B(k,:)| for every CSR position p of A in rows [row_begin,
// row_end), 0 elsewhere: a row panel's share of the table.
template <class Exec, class RowMap, class ColIdx, class WeightView>
void row_panel_weights(const Exec& exec, std::size_t row_begin, std::size_t row_end,
                       const RowMap& a_row_map, const ColIdx& a_col,
                       const RowMap& b_row_map, const WeightView& weight) {
  Kokkos::parallel_for(
      "libra::spgemm::outer::row_panel_weights",
      Kokkos::RangePolicy<Exec>(exec, 0, weight.extent(0)),
      KOKKOS_LAMBDA(const std::size_t p) {
        const auto first = static_cast<std::size_t>(a_row_map(row_begin));
        const auto last = static_cast<std::size_t>(a_row_map(row_end));
        const auto k = a_col(p);
        weight(p) = p >= first && p < last
                        ? static_cast<std::uint64_t>(b_row_map(k + 1) - b_row_map(k))
                        : 0;
      });
}

// The expand kernel: one team per item, launched in WLT order. B(k,:) is staged
// in team scratch in pieces of `piece` entries; each thread takes nonzeros of the
// item's A(:,k) range and its vector lanes sweep the staged piece.
template <class Exec, class Scalar, class Ordinal, class Offset, bool WithValues>
struct OuterExpand {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using mem = typename Exec::memory_space;
  using scratch = typename Exec::scratch_memory_space;
  using cols_scratch = Kokkos::View<Ordinal*, scratch, Kokkos::MemoryUnmanaged>;
  using vals_scratch = Kokkos::View<Scalar*, scratch, Kokkos::MemoryUnmanaged>;

  // The table (in WLT order) and the chunk's first item.
  Kokkos::View<const Offset*, mem> a_begin, a_end;
  Kokkos::View<const std::int64_t*, mem> k_of;
  std::size_t item_begin;
  // A in CSC (values may be absent for the symbolic pass) and its CSR positions.
  Kokkos::View<const Ordinal*, mem> a_row;
  Kokkos::View<const Scalar*, mem> a_val;
  Kokkos::View<const Offset*, mem> csc_to_csr;
  // B in CSR.
  Kokkos::View<const Offset*, mem> b_row_map;
  Kokkos::View<const Ordinal*, mem> b_col;
  Kokkos::View<const Scalar*, mem> b_val;
  // Where the products go.
  Kokkos::View<const std::uint64_t*, mem> offset;  // per CSR position of A
  Kokkos::View<Ordinal*, mem> out_col;
  Kokkos::View<Scalar*, mem> out_val;
  int piece;  // B entries staged at a time
  // A row panel: only A's entries in rows [row_begin, row_end) (rows ascend
  // within each item, as in every CSC Libra makes).
  bool panel = false;
  std::int64_t row_begin = 0, row_end = 0;

  // The first position in [lo, hi) whose row is at least `row`.
  KOKKOS_INLINE_FUNCTION Offset first_row_at_least(Offset lo, Offset hi,
                                                   std::int64_t row) const {
    while (lo < hi) {
      const Offset mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(a_row(mid)) < row) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  static std::size_t scratch_bytes(int piece) {
    return cols_scratch::shmem_size(piece) +
           (WithValues ? vals_scratch::shmem_size(piece) : 0);
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    cols_scratch s_col(team.team_scratch(0), piece);
    vals_scratch s_val;
    if (WithValues) s_val = vals_scratch(team.team_scratch(0), piece);
    const std::size_t item = item_begin + team.league_rank();
    Offset c_begin = a_begin(item), c_end = a_end(item);
    if (panel) {
      c_begin = first_row_at_least(c_begin, c_end, row_begin);
      c_end = first_row_at_least(c_begin, c_end, row_end);
      if (c_begin == c_end) return;  // the whole team alike: no barrier is left
    }
    const auto k = k_of(item);
    const Offset b_begin = b_row_map(k);
    const Offset b_len = b_row_map(k + 1) - b_begin;
    for (Offset base = 0; base < b_len; base += piece) {
      const int len = static_cast<int>(b_len - base < piece ? b_len - base : piece);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](int t) {
        s_col(t) = b_col(b_begin + base + t);
        if (WithValues) s_val(t) = b_val(b_begin + base + t);
      });
      team.team_barrier();
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, c_begin, c_end), [&](const Offset c) {
            const std::uint64_t dst = offset(csc_to_csr(c)) + base;
            const Scalar a = WithValues ? a_val(c) : Scalar(0);
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len), [&](int t) {
              out_col(dst + t) = s_col(t);
              if (WithValues) out_val(dst + t) = a * s_val(t);
            });
          });
      team.team_barrier();
    }
  }
};

}  // namespace libra::impl
