#pragma once
// What libra::spmv reports back: which kernel ran.
#include <cstdint>

namespace libra {

enum class SpmvPath {
  none,            // nothing to compute (y has no entries, or the part covers no rows)
  scale_only,      // alpha == 0 or no nonzeros: y = beta * y on the rows covered
  csr_merge_path,  // CSR / pCSR: equal merge-path segments, carries fixed up after
  csr_tiles,       // CSR / pCSR, one vector, GPUs: merge-path tiles staged in team
                   // scratch by a team each, carries fixed up after
  csr_rows,        // CSR / pCSR, one vector, small or planned: tiles of whole rows, a
                   // vector group per row (long rows the team's)
  csc_scatter,     // CSC / pCSC: y scaled, then equal segments scatter with atomics
  csc_private,     // CSC / pCSC on host spaces: a segment per thread into its own
                   // block of rows, then the blocks summed into y (no atomics)
  coo_runs,        // COO / pCOO: y scaled, then equal nnz segments add one atomic per run
  csc_tiles,  // CSC / pCSC, where forced: y scaled, then merge-path tiles, a team each,
              // find each nonzero's column in scratch and add with atomics
  coo_tiles,  // COO / pCOO, where forced: y scaled, then tiles of nonzeros staged in
              // team scratch, a thread adding one atomic per run of its entries
  ell_rows,   // ELL: a thread per row (ELL rows are equal by construction)
  ell_rows_tail,  // ELL rows, then the hybrid's COO tail through coo_runs
  diagonal_rows,  // HM diagonal storage: a thread per row over the stored diagonals
  compact_diagonal_rows  // CDM: a thread per row, shifted reads of x (no indices)
};
const char* to_string(SpmvPath path) noexcept;

struct SpmvOptions {
  // Knobs for tests and tuning; the defaults are what Libra chooses.
  struct Tuning {
    // Merge-path items (lines + nonzeros) or nonzeros per segment (0: chosen
    // from the space and the size). Tests force short segments so that carries
    // and atomics run on small matrices.
    // For CSR's tiles: merge-path items per thread.
    std::int64_t segment_items = 0;
    // CSR and pCSR with one vector: 1 forces the tiles on any space, -1 the
    // thread-per-segment merge path, 0 lets Libra choose (tiles on GPUs).
    int csr_tiles = 0;
    // Threads per tile (0: 128 on a GPU, the space's threads on a host), capped
    // by what the space allows a team. Tests force small tiles of several threads.
    int tile_threads = 0;
    // CSR with one vector where the tiles would run: 1 takes the rows kernel
    // (SpmvPath::csr_rows) whatever the rows, with a plan (libra::spmv_plan) or
    // without, -1 never, 0 on GPUs where rows + nonzeros are at most
    // csr_rows_max_path (with a plan, where its rows do not suit row sums and
    // the longest takes its group at most 32 passes) or
    // csr_rows_planless_max_path (without one: the kernel's tiles are then
    // `groups` rows each, found by arithmetic, so that a call is one kernel
    // with nothing to search, allocate or wait for). Measured on an H100
    // (perf_tests/report/h100/spmv_rows_planless/): without a plan on the 20
    // shared matrices 0.48-0.93x the time of the search and tiles
    // (0.0131-0.0282 ms), R-MAT 16 (1.02M rows + nonzeros) 2x; with a plan on
    // bands of 135-140M nonzeros it took twice the tiles' time.
    int csr_rows = 0;
    std::int64_t csr_rows_max_path = std::int64_t(1) << 21;
    std::int64_t csr_rows_planless_max_path = std::int64_t(3) << 18;
    // The rows kernel's vector lanes per row on GPUs (0: the power of two at or
    // above the average row, at most 32; else 1, 2, 4, 8, 16 or 32).
    int csr_row_lanes = 0;
    // The rows kernel: rows of at least this many nonzeros are summed by the
    // whole team after its short rows (0: rows of 32 passes of their group,
    // 32 x lanes; -1: none). Calls without a plan need it for hub rows; plans
    // take the rows kernel (Libra choosing) only where no row is longer.
    // Tests force 1 (every row the team's).
    std::int64_t csr_row_team_min = 0;
    // CSC on host spaces: 1 forces the private blocks wherever they can run
    // (more than one thread), -1 forces the atomic scatter, 0 lets Libra choose.
    int csc_private = 0;
    // CSC's scatter adds without atomics where one thread runs every segment
    // (0: where the space has one thread). 1 forces plain adds, which is right
    // only when one segment (segment_items) or one thread does the work; -1
    // forces atomics. Tests walk both.
    int plain_adds = 0;
    // CSC's and COO's scatter (pCSC, pCOO and the hybrid ELL's COO tail too):
    // 1 forces the tiles (SpmvPath::csc_tiles, coo_tiles) on any space, -1 the
    // thread-per-segment kernels (csc_scatter or CSC's private blocks,
    // coo_runs); 0 lets Libra choose: the tiles on GPUs (1.4x and 2.2x the
    // segments' speed on an H100), the segments on host spaces (where the
    // tiles are 8-380x slower). Tests walk both on every space. The tiles take
    // tile_threads and segment_items (items per thread) as CSR's tiles do.
    int scatter_tiles = 0;
    // COO's runs kernel first checks that the rows never decrease (Libra's Coo
    // is sorted; a user's may be in any order); where they do not, a row inside
    // a segment is added without an atomic (SpmvStats::plain_adds). 1 checks
    // on any space and size, -1 never; 0 on host spaces with more than one
    // thread, from 12,288 nonzeros (impl/coo_runs.hpp). Tests walk all three.
    int coo_sorted_check = 0;
    // CSR's tiles and rows kernels on GPUs: 0 (Libra's choice) and 1 read A's
    // arrays by streaming loads on CUDA (evict first, so that x stays in L2;
    // spmv/impl/loads.hpp), -1 by plain loads. Host spaces always read plainly.
    int load_hints = 0;
    // CSR's tiles where every row fits half a tile: 1 has the tiles sum each
    // row by one thread on boundaries at row starts (SpmvStats::row_sums), -1
    // walk the merge path, 0 sums on GPUs where no row has more than 128
    // nonzeros (impl/csr_tiles.hpp says what was measured). With a plan its
    // boundaries are found once; without one a call finds its longest row and
    // its boundaries, which Libra chooses on paths (rows + nonzeros) of at
    // least 2^26 only: the call waits for the longest row's value.
    int tile_row_sums = 0;
    // CSR's thread-per-segment merge path (host spaces, blocks of vectors):
    // 1 has each segment sum the rows that end in it whole, with no carries
    // between segments and one launch (SpmvStats::whole_rows), -1 never, 0 on
    // host spaces for paths (rows + nonzeros) of at most
    // csr_whole_rows_max_path (impl/csr_merge_path.hpp says why).
    int csr_whole_rows = 0;
    std::int64_t csr_whole_rows_max_path = std::int64_t(1) << 18;
  } tuning;
};

struct SpmvStats {
  SpmvPath path = SpmvPath::none;
  std::uint64_t segments = 0;  // work items of the balanced kernel
  std::uint64_t flops = 0;     // 2 * nnz * K (0 when alpha == 0)
  bool plain_adds = false;     // csc_scatter added without atomics, or coo_runs
                               // rows inside segments (A's rows found sorted)
  bool planned = false;        // csr_tiles read their coordinates from a plan (plan.hpp)
  bool streamed = false;       // csr_tiles / csr_rows read A by streaming loads (CUDA)
  bool row_sums = false;       // csr_tiles summed each (whole) row by one thread (with
                               // a plan, or on row starts found for the call)
  bool whole_rows = false;     // csr_merge_path's segments summed whole rows (no carries)
};

}  // namespace libra
