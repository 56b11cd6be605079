#pragma once
// SpMM on GPUs without staging: the merge path of A's row ends and nonzeros is
// cut into chunks of `items` steps, one per thread (its vector lanes across the
// K columns), so a hub row is shared by many threads instead of holding one
// thread of a team while the others idle (a team per panel with a thread per
// row took 0.19 ms on Wiki-Vote, K = 8, on an H100, against cuSPARSE's 0.03).
//  1. SpmmPanelBounds (team_panels.hpp) finds every chunk boundary's
//     coordinates; the first boundary strictly inside a row applies beta to it.
//  2. Each thread walks its chunk: rows that start and end in it are written
//     with a plain store (Y = beta Y + alpha sum); rows cut by a boundary get
//     alpha times the chunk's share with atomics.
// Each lane keeps up to `chunk_columns` sums; wider K repeats the walk per
// block of lanes x chunk_columns columns.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/spmm/impl/team_panels.hpp"

namespace libra::impl {

inline constexpr int chunk_columns = 4;               // sums per vector lane
inline constexpr std::int64_t spmm_chunk_items = 16;  // merge-path steps per thread

template <class Exec, class AType, class XView, class YView>
struct SpmmThreadChunks {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using S = typename YView::non_const_value_type;
  typename AType::row_map_type row_map;
  typename AType::index_type col_idx;
  typename AType::values_type values;
  XView X;
  YView Y;
  S alpha, beta;
  std::int64_t rows, chunks;
  int lanes;
  PanelBounds<Exec> bounds;  // chunks + 1 (SpmmPanelBounds with items per chunk)

  // Row i's sums for this lane's columns k0 + r * lanes: a plain store when the
  // chunk holds the whole row, else an atomic add of the share.
  KOKKOS_INLINE_FUNCTION void write(std::int64_t i, bool cut, const S* sum, int k0,
                                    int K) const {
    for (int r = 0; r < chunk_columns; ++r) {
      const int k = k0 + r * lanes;
      if (k >= K) break;
      spmm_write(Y, i, k, alpha, beta, sum[r], cut);
    }
  }

  KOKKOS_INLINE_FUNCTION void add(std::int64_t p_begin, std::int64_t p_end, S* sum,
                                  int k0, int K) const {
    for (std::int64_t p = p_begin; p < p_end; ++p) {
      const auto c = col_idx(p);
      const S v = values(p);
      for (int r = 0; r < chunk_columns; ++r) {
        const int k = k0 + r * lanes;
        if (k < K) sum[r] += v * X(c, k);
      }
    }
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int K = static_cast<int>(Y.extent(1));
    const std::int64_t first =
        static_cast<std::int64_t>(team.league_rank()) * team.team_size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](int t) {
      const std::int64_t c = first + t;
      if (c >= chunks) return;
      const std::int64_t i0 = bounds(c, 0), j0 = bounds(c, 1);
      const std::int64_t i1 = bounds(c + 1, 0), j1 = bounds(c + 1, 1);
      const bool first_cut = i0 < rows && j0 > static_cast<std::int64_t>(row_map(i0));
      for (int kb = 0; kb < K; kb += lanes * chunk_columns) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int lane) {
          const int k0 = kb + lane;
          S sum[chunk_columns];
          std::int64_t j = j0;
          for (std::int64_t i = i0; i < i1; ++i) {
            for (int r = 0; r < chunk_columns; ++r) sum[r] = S(0);
            const std::int64_t end = static_cast<std::int64_t>(row_map(i + 1));
            add(j, end, sum, k0, K);
            write(i, i == i0 && first_cut, sum, k0, K);
            j = end;
          }
          if (j < j1) {  // row i1 goes on past the chunk: its share
            for (int r = 0; r < chunk_columns; ++r) sum[r] = S(0);
            add(j, j1, sum, k0, K);
            write(i1, true, sum, k0, K);
          }
        });
      }
    });
  }
};

}  // namespace libra::impl
