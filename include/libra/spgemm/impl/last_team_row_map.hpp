#pragma once
// The end of a count launch of the small path (panel_small.hpp): the last team
// to finish writes C's row_map from every row's count and hands the tallies
// over, so that no scan launch follows. A Kokkos 3.4 scan on CUDA is two
// kernels, about 10 µs on an H100's device timeline for a few thousand rows,
// plus its launch on the host; the small path's whole call is about 50 µs.
//
// Each team, its rows counted, fences its writes (every thread its own) and
// takes a ticket: an atomic increment of counters(done). The team holding the
// last ticket sees every other team's counts and tallies, each fenced before
// that team's ticket. It scans the counts, each thread a run of consecutive
// rows, writes nnz(C) into counters(nnz) and hands the counters over
// (util/zeroed_counters.hpp), the ticket counter with them, which leaves it at
// zero for the next launch. One team scans alone, so the launches that do it
// keep the rows per thread few (last_team_scans).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "libra/core/spaces.hpp"
#include "libra/util/zeroed_counters.hpp"

namespace libra::impl {

// The small path's tally slots that the end of a count writes (panel_small.hpp
// lists the others): nnz(C), and the count teams' tickets, last of the array.
// (Enumerators, not variables: device code may take them by reference.)
enum SmallTally : int {
  small_tally_nnz = 3,
  small_tally_tickets = 7,
  small_tally_slots = 8
};

// Whether a launch of teams of `threads` threads may scan `rows` rows in its
// last team, each thread at most `per_thread` of them (Tuning::
// small_last_team_rows): beyond, a scan launch is quicker than one team's runs.
inline bool last_team_scans(std::size_t rows, int threads, int per_thread) {
  return rows > 0 && per_thread > 0 &&
         rows <= static_cast<std::size_t>(per_thread) * static_cast<std::size_t>(threads);
}

// Called by every thread of every team, last in the team's work. `unique`:
// each row's count (rows 0 .. n, n = row_map.extent(0) - 1); `counters` the
// leased device counters, `out` their host mirror; `nnz` and `done` the
// counters' slots for nnz(C) and the tickets.
template <class Member, class Unique, class RowMap, class Counters, class Out>
KOKKOS_FUNCTION void last_team_row_map(const Member& m, const Unique& unique,
                                       const RowMap& row_map, const Counters& counters,
                                       const Out& out, int nnz, int done) {
  using Off = typename RowMap::non_const_value_type;
  Kokkos::memory_fence();  // this thread's counts, list entries and tallies
  m.team_barrier();
  int last = 0;
  Kokkos::single(
      Kokkos::PerTeam(m),
      [&](int& l) {
        const atomic_u64 ticket =
            Kokkos::atomic_fetch_add(&counters(done), atomic_u64(1));
        l = ticket + 1 == static_cast<atomic_u64>(m.league_size()) ? 1 : 0;
      },
      last);
  if (!last) return;
  // The fence after observing the last ticket orders this team's loads after
  // every other team's fenced writes (plain loads, which the compiler may
  // batch: read through volatile, the runs took 30 µs for west2021's 2,021
  // rows on 32 threads).
  Kokkos::memory_fence();
  const std::uint64_t* counts = unique.data();
  const std::size_t n = row_map.extent(0) - 1;
  const auto threads = static_cast<std::size_t>(m.team_size());
  const std::size_t per = (n + threads - 1) / threads;
  Kokkos::parallel_scan(Kokkos::TeamThreadRange(m, threads),
                        [&](const std::size_t r, std::uint64_t& sum, const bool final) {
                          const std::size_t b = r * per < n ? r * per : n;
                          const std::size_t e = b + per < n ? b + per : n;
                          for (std::size_t i = b; i < e; ++i) {
                            if (final) row_map(i) = static_cast<Off>(sum);
                            sum += counts[i];
                          }
                          if (final && r + 1 == threads) {
                            row_map(n) = static_cast<Off>(sum);
                            counters(nnz) = sum;
                          }
                        });
  m.team_barrier();
  Kokkos::single(Kokkos::PerTeam(m), [&] { hand_over(counters, out); });
}

}  // namespace libra::impl
