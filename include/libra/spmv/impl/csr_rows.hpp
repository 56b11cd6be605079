#pragma once
// CSR SpMV in one kernel over tiles of whole rows: each tile a team, each row a
// group of V vector lanes (V the power of two at or above the average row, at
// most a warp) reading its nonzeros side by side and summing them with a vector
// reduction. No search, no carries. A plan's tiles (plan.hpp) are balanced by
// nonzeros, about one row per group; a call without a plan takes tiles of one
// row per group, found by arithmetic: nothing to search, allocate or wait for.
// On short regular rows this takes fewer dependent steps than the merge-path
// tiles (row offsets, then nonzeros, then x, then the sum).
// A row of at least `team_min` nonzeros (32 passes of its group by default) is
// summed by the whole team instead, after the team's short rows, the team's
// long rows side by side on equal shares of its groups: hub rows of power-law
// graphs then take a few passes of the team, not hundreds of one group, and
// the kernel needs no beta pass before it (rows are never cut). Measured on an
// H100 with lanes forced to 1 (rows of 32 nonzeros the team's), a team
// reduction a long row in turn took bcsstk13 (42 nonzeros a row) 0.318 ms.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

// CUDA threads (groups x lanes) per team of the rows kernel on GPUs.
inline constexpr int rows_gpu_lanes = 256;

// Rows of at least this many passes of their group are the whole team's.
inline constexpr std::int64_t rows_group_passes = 32;

// Vector lanes per row for rows of `average` nonzeros: a power of two, at most a
// warp on GPUs, 1 on host spaces.
template <class Exec>
int spmv_row_lanes(double average) {
  if constexpr (!LaunchTraits<Exec>::is_gpu) {
    (void)average;
    return 1;
  } else {
    int v = 1;
    while (v < 32 && v < average) v *= 2;
    return v;
  }
}

// Groups of `lanes` lanes per team of the rows kernel: a GPU team's 256 CUDA
// threads, or a host team's `host_threads`.
template <class Exec>
int spmv_row_groups(int lanes, int host_threads) {
  return LaunchTraits<Exec>::is_gpu ? rows_gpu_lanes / lanes : host_threads;
}

template <class Exec, class Args>
struct SpmvCsrRows {
  using S = typename Args::S;
  using member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using scratch = typename Exec::scratch_memory_space;
  // Entry 0 counts the rows the team sums together, the others list them.
  using Listed = Kokkos::View<std::int64_t*, scratch, Kokkos::MemoryUnmanaged>;
  using Partial = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;

  Args a;
  // Tile t: rows [coords(t, 0), coords(t + 1, 0)); without coords (extent 0),
  // rows [t * tile_rows, (t + 1) * tile_rows).
  Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, typename Exec::memory_space>
      coords;
  std::int64_t tile_rows = 0;
  // Rows of at least this many nonzeros are summed by the whole team; 0: none
  // are (no scratch, no barrier).
  std::int64_t team_min = 0;
  int lanes = 1;

  static std::size_t scratch_bytes(int groups) {
    return Listed::shmem_size(static_cast<std::size_t>(groups) + 1) +
           Partial::shmem_size(static_cast<std::size_t>(groups));
  }

  KOKKOS_INLINE_FUNCTION void write(std::int64_t i, S sum) const {
    spmv_write(a.Y(a.y_base + i), a.row_beta(i), a.alpha, sum);
  }

  KOKKOS_FUNCTION void operator()(const member& team) const {
    const std::int64_t t = team.league_rank();
    std::int64_t i0, i1;
    if (coords.extent(0) > 0) {
      i0 = coords(t, 0);
      i1 = coords(t + 1, 0);
    } else {
      i0 = t * tile_rows;
      i1 = i0 + tile_rows < a.rows ? i0 + tile_rows : a.rows;
    }
    const int groups = team.team_size();
    Listed listed;
    if (team_min > 0) {
      listed = Listed(team.team_scratch(0), groups + 1);
      Kokkos::single(Kokkos::PerTeam(team), [&] { listed(0) = 0; });
      team.team_barrier();
    }
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, i0, i1), [&](const std::int64_t i) {
          const std::int64_t p0 = a.offset(i);
          const std::int64_t n = a.offset(i + 1) - p0;
          if (team_min > 0 && n >= team_min) {
            // Listed for the team; where the list is full (forced short
            // team_min), the group sums it after all.
            bool kept = false;
            Kokkos::single(
                Kokkos::PerThread(team),
                [&](bool& k) {
                  const std::int64_t slot =
                      Kokkos::atomic_fetch_add(&listed(0), std::int64_t(1));
                  k = slot < groups;
                  if (k) listed(slot + 1) = i;
                },
                kept);
            if (kept) return;
          }
          S sum = S(0);
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, n),
              [&](const std::int64_t k, S& s) { s += a.product(p0 + k); }, sum);
          Kokkos::single(Kokkos::PerThread(team), [&] { write(i, sum); });
        });
    if (team_min <= 0) return;
    team.team_barrier();
    const std::int64_t listed_rows = listed(0) < groups ? listed(0) : groups;
    if (listed_rows == 0) return;
    // The listed rows side by side: each takes `share` groups (all of them
    // for one row), whose lanes stride through it; each group's partial sum
    // goes to scratch, and after the barrier a group a row adds them up. One
    // barrier however many rows are listed, not a team reduction a row.
    Partial partial(team.team_scratch(0), groups);
    const std::int64_t share = groups / listed_rows;
    const std::int64_t stride = share * lanes;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, groups), [&](const int g) {
      const std::int64_t r = g / share;
      S sum = S(0);
      if (r < listed_rows) {
        const std::int64_t i = listed(r + 1);
        const std::int64_t p0 = a.offset(i);
        const std::int64_t n = a.offset(i + 1) - p0;
        const std::int64_t first = (g % share) * lanes;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, lanes),
            [&](const int l, S& s) {
              for (std::int64_t q = first + l; q < n; q += stride) s += a.product(p0 + q);
            },
            sum);
      }
      Kokkos::single(Kokkos::PerThread(team), [&] { partial(g) = sum; });
    });
    team.team_barrier();
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, listed_rows), [&](const std::int64_t r) {
          S sum = S(0);
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, share),
              [&](const std::int64_t j, S& s) { s += partial(r * share + j); }, sum);
          Kokkos::single(Kokkos::PerThread(team), [&] { write(listed(r + 1), sum); });
        });
  }
};

// Launches the rows kernel over `tiles` tiles, `groups` groups of `lanes` lanes
// a team: a plan's tiles (coords) or, with coords empty, tiles of `groups` rows.
// Rows of at least `team_min` nonzeros are the whole team's (0: none).
template <class Exec, class Args, class Coords>
void spmv_csr_rows(const Exec& exec, const Args& a, const Coords& coords,
                   std::int64_t tiles, int groups, int lanes, std::int64_t team_min) {
  using Kernel = SpmvCsrRows<Exec, Args>;
  Kokkos::TeamPolicy<Exec> policy(exec, tiles, groups, lanes);
  if (team_min > 0) {
    policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(groups)));
  }
  Kokkos::parallel_for("libra::spmv::csr::rows", light_launch(policy),
                       Kernel{a, coords, groups, team_min, lanes});
}

}  // namespace libra::impl
