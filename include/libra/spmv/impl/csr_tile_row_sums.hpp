#pragma once
// CSR SpMV over a plan's tiles of whole rows of about equal length (bands, FEM:
// TilePlan::row_sums, csr_tiles.hpp), in a kernel of its own. Each thread issues
// `load_batch` column and value loads, then their x loads, before it stores any
// product into team scratch: a team has that many loads in flight a thread, not
// one. After the barrier each row is one thread's sum from scratch: no search,
// no walk, no carries. Measured on one H200 (ms, bands of 7 / 27 / 63 / 127
// diagonals, 126-140M nonzeros): in the merge-path tiles' kernel behind a
// branch 0.602-0.606 / 0.515-0.518 / 0.468-0.470 / 0.480; in a kernel of its own
// with batches of 8 loads 0.589 / 0.504 / 0.457-0.459 / 0.461-0.463, of 4 0.591 /
// 0.501 / 0.457 / 0.453, of 16 0.677 / 0.553 / 0.490 / 0.518; cuSPARSE 0.73 /
// 0.59 / 0.51 / 0.46. R-MAT 20-22 (the walk) within 1% across builds.
// Plan-less calls on long paths run it too, on boundaries found at row starts
// per call (csr_tiles.hpp, spmv_csr_tiles).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "libra/spmv/impl/common.hpp"

namespace libra::impl {

// Each thread issues `load_batch` column and value loads of nonzeros
// [j0, j0 + nz), then their x loads, before it stores any product into `prod`
// (team scratch): a team has that many loads in flight a thread, not one.
template <int load_batch, class Member, class Args, class Prods>
KOKKOS_INLINE_FUNCTION void spmv_tile_stage_products(const Member& team, const Args& a,
                                                     std::int64_t j0, std::int64_t nz,
                                                     const Prods& prod) {
  using S = typename Args::S;
  const int T = team.team_size();
  for (std::int64_t q0 = team.team_rank(); q0 < nz; q0 += load_batch * T) {
    typename Args::column_type c[load_batch];
    S v[load_batch];
    for (int b = 0; b < load_batch; ++b) {
      const std::int64_t q = q0 + static_cast<std::int64_t>(b) * T;
      c[b] = q < nz ? a.column(j0 + q) : 0;
      v[b] = q < nz ? a.value(j0 + q) : S(0);
    }
    for (int b = 0; b < load_batch; ++b) {
      const std::int64_t q = q0 + static_cast<std::int64_t>(b) * T;
      if (q < nz) prod(q) = v[b] * a.X(c[b]);
    }
  }
}

// The tile of whole rows [i0, i1) from nonzero j0 to j1 (a plan's), a row a
// thread: its products staged, then after the barrier each row one thread's sum
// from scratch. `ends` holds at least i1 - i0 entries.
template <class Exec, int load_batch = 4, class Member, class Args, class Ends,
          class Prods>
KOKKOS_INLINE_FUNCTION void spmv_tile_sum_whole_rows(const Member& team, const Args& a,
                                                     std::int64_t i0, std::int64_t j0,
                                                     std::int64_t i1, std::int64_t j1,
                                                     const Ends& ends,
                                                     const Prods& prod) {
  using S = typename Args::S;
  const int T = team.team_size();
  const int th = team.team_rank();
  const std::int64_t nr = i1 - i0, nz = j1 - j0;
  spmv_tile_stage_products<load_batch>(team, a, j0, nz, prod);
  for (std::int64_t r = th; r < nr; r += T) {
    ends(r) = static_cast<std::int32_t>(a.offset(i0 + r + 1) - j0);
  }
  team.team_barrier();
  for (std::int64_t r = th; r < nr; r += T) {
    S sum = S(0);
    for (std::int64_t q = r == 0 ? 0 : ends(r - 1); q < ends(r); ++q) sum += prod(q);
    spmv_write(a.Y(a.y_base + i0 + r), a.row_beta(i0 + r), a.alpha, sum);
  }
}

template <class Exec, class Args>
struct SpmvCsrTileRowSums {
  using S = typename Args::S;
  using member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using scratch = typename Exec::scratch_memory_space;
  using Ends = Kokkos::View<std::int32_t*, scratch, Kokkos::MemoryUnmanaged>;
  using Sums = Kokkos::View<S*, scratch, Kokkos::MemoryUnmanaged>;

  Args a;
  std::int64_t tile;  // path items (rows + nonzeros) a tile holds at most
  Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, typename Exec::memory_space>
      coords;  // tile t: rows [coords(t, 0), coords(t + 1, 0)), whole

  static std::size_t scratch_bytes(std::int64_t tile) {
    return Ends::shmem_size(tile) + Sums::shmem_size(tile);
  }

  KOKKOS_FUNCTION void operator()(const member& team) const {
    const std::int64_t t = team.league_rank();
    spmv_tile_sum_whole_rows<Exec>(team, a, coords(t, 0), coords(t, 1), coords(t + 1, 0),
                                   coords(t + 1, 1), Ends(team.team_scratch(0), tile),
                                   Sums(team.team_scratch(0), tile));
  }
};

}  // namespace libra::impl
