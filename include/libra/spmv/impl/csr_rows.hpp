#pragma once
// CSR SpMV with a plan whose tiles hold whole, short rows (plan.hpp): each tile
// a team, each row a group of V vector lanes (V the power of two at or above the
// average row, at most a warp) reading its nonzeros side by side and summing
// them with a vector reduction. No scratch, no barrier, no search: the tiles'
// rows come from the plan, balanced by nonzeros, about one row per group. On
// short regular rows this takes fewer dependent steps than the merge-path tiles
// (row offsets, then nonzeros, then x, then the sum).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/core/launch_traits.hpp"
#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

// CUDA threads (groups x lanes) per team of the rows kernel on GPUs.
inline constexpr int rows_gpu_lanes = 256;

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

template <class Exec, class Args>
struct SpmvCsrRows {
  using S = typename Args::S;
  using member = typename Kokkos::TeamPolicy<Exec>::member_type;

  Args a;
  Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, typename Exec::memory_space>
      coords;  // tile t: rows [coords(t, 0), coords(t + 1, 0))

  KOKKOS_FUNCTION void operator()(const member& team) const {
    const std::int64_t t = team.league_rank();
    const std::int64_t i0 = coords(t, 0), i1 = coords(t + 1, 0);
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, i0, i1), [&](const std::int64_t i) {
          const std::int64_t p0 = a.offset(i);
          const std::int64_t n = a.offset(i + 1) - p0;
          S sum = S(0);
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, n),
              [&](const std::int64_t k, S& s) { s += a.product(p0 + k); }, sum);
          Kokkos::single(Kokkos::PerThread(team), [&] {
            spmv_write(a.Y(a.y_base + i), a.row_beta(i), a.alpha, sum);
          });
        });
  }
};

// Launches the rows kernel over a plan's `tiles` tiles of whole rows, `groups`
// groups of `lanes` lanes a team.
template <class Exec, class Args, class Coords>
void spmv_csr_rows(const Exec& exec, const Args& a, const Coords& coords, int groups,
                   int lanes) {
  const std::int64_t tiles = static_cast<std::int64_t>(coords.extent(0)) - 1;
  Kokkos::parallel_for("libra::spmv::csr::rows",
                       light_launch(Kokkos::TeamPolicy<Exec>(exec, tiles, groups, lanes)),
                       SpmvCsrRows<Exec, Args>{a, coords});
}

}  // namespace libra::impl
