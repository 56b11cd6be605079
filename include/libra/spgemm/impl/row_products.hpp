#pragma once
// The product generator of the row-by-row SpGEMM: row i of A*B computed on the
// fly, A(i,:) * B, visiting every product (column j, position p in A, position
// q in B) without storing it. The accumulators of the panel algorithm consume
// these visits.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace libra::impl {

template <class Scalar, class Ordinal, class Offset, class MemSpace>
struct RowProducts {
  Kokkos::View<const Offset*, MemSpace> a_row_map;
  Kokkos::View<const Ordinal*, MemSpace> a_col;
  Kokkos::View<const Scalar*, MemSpace> a_val;
  Kokkos::View<const Offset*, MemSpace> b_row_map;
  Kokkos::View<const Ordinal*, MemSpace> b_col;
  Kokkos::View<const Scalar*, MemSpace> b_val;

  KOKKOS_INLINE_FUNCTION Scalar value(Offset p, Offset q) const {
    return a_val(p) * b_val(q);
  }

  // One thread group (a team thread and its vector lanes) owns the row: the
  // nonzeros of A(i,:) in turn, the lanes across each row of B they select.
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION void for_group(const Member& m, std::int64_t i,
                                        const F& f) const {
    for (Offset p = a_row_map(i); p < a_row_map(i + 1); ++p) {
      const Ordinal k = a_col(p);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, b_row_map(k), b_row_map(k + 1)),
                           [&](const Offset q) { f(b_col(q), p, q); });
    }
  }

  // A whole team (threads without vector lanes) owns the row: across the
  // nonzeros of A(i,:) when there are enough to occupy every thread, else across
  // each row of B in turn (a row of A with a few nonzeros on hub rows of B).
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION void for_team(const Member& m, std::int64_t i,
                                       const F& f) const {
    const Offset begin = a_row_map(i), end = a_row_map(i + 1);
    if (end - begin >= static_cast<Offset>(m.team_size())) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, begin, end), [&](const Offset p) {
        const Ordinal k = a_col(p);
        for (Offset q = b_row_map(k); q < b_row_map(k + 1); ++q) f(b_col(q), p, q);
      });
    } else {
      for (Offset p = begin; p < end; ++p) {
        const Ordinal k = a_col(p);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, b_row_map(k), b_row_map(k + 1)),
                             [&](const Offset q) { f(b_col(q), p, q); });
      }
    }
  }

  // Sequentially, on one host thread.
  template <class F>
  void for_thread(std::int64_t i, const F& f) const {
    for (Offset p = a_row_map(i); p < a_row_map(i + 1); ++p) {
      const Ordinal k = a_col(p);
      for (Offset q = b_row_map(k); q < b_row_map(k + 1); ++q) f(b_col(q), p, q);
    }
  }
};

}  // namespace libra::impl
