#pragma once
// The product generator of the row-by-row SpGEMM: row i of A*B computed on the
// fly, A(i,:) * B, visiting every product (column j, position p in A, position
// q in B) without storing it. The accumulators of the panel algorithm consume
// these visits.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace libra::impl {

// Team scratch for RowProducts::for_team's flattening: 256 nonzeros of A at a
// time, their B-row lengths' scan and their rows' starts in B (4 KiB).
inline constexpr int team_prefix_entries = 2 * 256 + 1;
template <class Exec>
using PrefixScratch = Kokkos::View<std::int64_t*, typename Exec::scratch_memory_space,
                                   Kokkos::MemoryUnmanaged>;
template <class Exec>
std::size_t prefix_scratch_bytes() {
  return PrefixScratch<Exec>::shmem_size(team_prefix_entries);
}

template <class Scalar, class Ordinal, class Offset, class MemSpace>
struct RowProducts {
  Kokkos::View<const Offset*, MemSpace> a_row_map;
  Kokkos::View<const Ordinal*, MemSpace> a_col;
  Kokkos::View<const Scalar*, MemSpace> a_val;
  Kokkos::View<const Offset*, MemSpace> b_row_map;
  Kokkos::View<const Ordinal*, MemSpace> b_col;
  Kokkos::View<const Scalar*, MemSpace> b_val;
  // for_group: rows of A with at least this many nonzeros spread them over the
  // lanes (0: never; SpgemmOptions::Tuning::group_spread_entries).
  std::int64_t spread_entries = 0;

  KOKKOS_INLINE_FUNCTION Scalar value(Offset p, Offset q) const {
    return a_val(p) * b_val(q);
  }

  // Row i's products (the lengths of the rows of B that A(i,:) selects), summed
  // over the team; every thread gets the sum.
  template <class Member>
  KOKKOS_INLINE_FUNCTION std::int64_t count(const Member& m, std::int64_t i) const {
    std::int64_t p = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, a_row_map(i), a_row_map(i + 1)),
        [&](const Offset e, std::int64_t& sum) {
          const Ordinal k = a_col(e);
          sum += static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
        },
        p);
    return p;
  }

  // Whether for_group spreads row i's nonzeros of A over the lanes.
  KOKKOS_INLINE_FUNCTION bool spreads(std::int64_t i) const {
    return spread_entries > 0 &&
           static_cast<std::int64_t>(a_row_map(i + 1) - a_row_map(i)) >= spread_entries;
  }

  // One thread group (a team thread and its vector lanes) owns the row: the
  // nonzeros of A(i,:) in turn, the lanes across each row of B they select; or,
  // for rows with many nonzeros (spreads(i)), the lanes across the nonzeros,
  // each walking its row of B. Graphs pair long rows of A with short rows of B:
  // there the first way leaves most lanes idle and steps through the row's
  // nonzeros one dependent load chain at a time.
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION void for_group(const Member& m, std::int64_t i,
                                        const F& f) const {
    if (spreads(i)) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, a_row_map(i), a_row_map(i + 1)),
                           [&](const Offset p) {
                             const Ordinal k = a_col(p);
                             for (Offset q = b_row_map(k); q < b_row_map(k + 1); ++q)
                               f(b_col(q), p, q);
                           });
      return;
    }
    for (Offset p = a_row_map(i); p < a_row_map(i + 1); ++p) {
      const Ordinal k = a_col(p);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, b_row_map(k), b_row_map(k + 1)),
                           [&](const Offset q) { f(b_col(q), p, q); });
    }
  }

  // A whole team (threads without vector lanes) owns the row. With `prefix`
  // (team scratch of 2 w + 1 entries, w >= 1) the row's products are
  // flattened, w nonzeros of A at a time: a scan of their B-row lengths beside
  // their rows' starts in B, then one index per product spread evenly over the
  // threads, each finding its nonzero of A by binary search in scratch and
  // reading one entry of B (balanced whatever the mix of short and hub rows of
  // B; without the starts a product cost three dependent loads, a hub row's
  // team waited on them: facebook_combined). Hub rows of A take several
  // chunks: walking their nonzeros one per thread instead left a thread alone
  // with each hub row of B.
  // Returns the row's products (the same on every thread).
  template <class Member, class Prefix, class F>
  KOKKOS_INLINE_FUNCTION std::int64_t for_team(const Member& m, std::int64_t i,
                                               const Prefix& prefix, const F& f) const {
    const Offset begin = a_row_map(i), end = a_row_map(i + 1);
    const auto width = (static_cast<std::int64_t>(prefix.extent(0)) - 1) / 2;
    std::int64_t products = 0;
    if (width < 1) {
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(m, begin, end),
          [&](const Offset p, std::int64_t& sum) {
            const Ordinal k = a_col(p);
            for (Offset q = b_row_map(k); q < b_row_map(k + 1); ++q) f(b_col(q), p, q);
            sum += static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
          },
          products);
      return products;
    }
    for (Offset chunk = begin; chunk < end; chunk += static_cast<Offset>(width)) {
      const std::int64_t n =
          static_cast<std::int64_t>(end - chunk) < width ? end - chunk : width;
      Kokkos::parallel_scan(
          Kokkos::TeamThreadRange(m, n),
          [&](const std::int64_t t, std::int64_t& sum, const bool final) {
            const Ordinal k = a_col(chunk + t);
            const Offset start = b_row_map(k);
            const auto len = static_cast<std::int64_t>(b_row_map(k + 1) - start);
            if (final) {
              if (t == 0) prefix(0) = 0;
              prefix(t + 1) = sum + len;
              prefix(width + 1 + t) = static_cast<std::int64_t>(start);
            }
            sum += len;
          });
      m.team_barrier();
      const std::int64_t total = prefix(n);
      products += total;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, total), [&](const std::int64_t x) {
        std::int64_t lo = 0, hi = n - 1;  // the last t with prefix(t) <= x
        while (lo < hi) {
          const std::int64_t mid = (lo + hi + 1) >> 1;
          if (prefix(mid) <= x) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        const Offset q = static_cast<Offset>(prefix(width + 1 + lo) + (x - prefix(lo)));
        f(b_col(q), chunk + static_cast<Offset>(lo), q);
      });
      // The next chunk's scan rewrites the prefix the threads may still read.
      if (end - chunk > static_cast<Offset>(width)) m.team_barrier();
    }
    return products;
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

// A(i,:) * B's products for Csr operands on Exec's memory (`spread_entries`:
// RowProducts::spread_entries).
template <class Exec, class Csr>
RowProducts<typename Csr::scalar_type, typename Csr::ordinal_type,
            typename Csr::offset_type, typename Exec::memory_space>
row_products(const Csr& A, const Csr& B, std::int64_t spread_entries = 0) {
  return {A.row_map, A.col_idx, A.values, B.row_map, B.col_idx, B.values, spread_entries};
}

}  // namespace libra::impl
