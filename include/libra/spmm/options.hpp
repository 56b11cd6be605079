#pragma once
// What a caller chooses for Y = beta * Y + alpha * A * X, and what it learns back.
#include <cstdint>

namespace libra {

// The GPU kernel's dense-column staging (the paper's SpMM idea, Section 5.1): rows
// of X referenced by more than one nonzero of a panel are loaded into team
// scratch once and read from there by every nonzero that references them.
enum class SpmmStaging {
  automatic,  // Libra decides (today: off; see README "SpMM")
  on,         // stage in every panel
  off         // every nonzero reads its row of X from global memory
};

// Which kernel ran (SpmmStats::path).
enum class SpmmPath {
  none,         // nothing to compute (Y has no entries)
  scale_only,   // alpha == 0 or A has no entries: Y = beta * Y
  host_rows,    // host spaces: a thread per row, dynamic scheduling
  team_panels,  // GPU kernel: a thread per merge-path chunk, lanes across K
  team_staged   // the GPU kernel with dense-column staging: a team per panel
};
const char* to_string(SpmmPath path) noexcept;

struct SpmmOptions {
  // Knobs for tests and tuning; the defaults are what Libra chooses.
  struct Tuning {
    // Host spaces run the GPU kernel (a team per panel) instead of their
    // per-row kernel, so host tests walk it and its staging.
    bool host_team_kernel = false;
    SpmmStaging staging = SpmmStaging::automatic;
    // Team scratch bytes the staging may use (0: LaunchTraits' default).
    int scratch_bytes = 0;
    // Merge-path items (rows + nonzeros of A) per thread's chunk, or with
    // staging per panel (0: Libra's choice).
    int panel_items = 0;
    // The chunk kernel: columns of Y per block (the league runs block by block;
    // 0: Libra's choice), and vector lanes per thread at most (0: a warp on GPUs).
    int column_block = 0;
    int vector_lanes = 0;
    // A LayoutLeft X is first copied row-major for the team kernels (a
    // temporary of X's size, and a fence when it is given back). automatic:
    // on GPUs when K >= 16 and X has 2^15 entries or more (README "SpMM").
    SpmmStaging row_major_x = SpmmStaging::automatic;
    // The chunk kernel loads two adjacent columns of a row-major X with one
    // load (16 bytes for double) where X's rows are aligned for it (an even row
    // stride, an even K). automatic: on GPUs when K >= 16 (README "SpMM").
    SpmmStaging paired_columns = SpmmStaging::automatic;
    // SpmmStats also counts carries and staged rows: a reduction read back,
    // which waits for the device (off: the GPU kernels run asynchronously).
    bool count_in_stats = false;
  } tuning;
};

struct SpmmStats {
  SpmmPath path = SpmmPath::none;
  std::uint64_t flops = 0;   // 2 * nnz(A) * K (0 when alpha == 0)
  std::uint64_t panels = 0;  // chunks (threads) of the GPU kernel, or staged panels
  std::uint64_t column_blocks = 0;  // blocks of Y's columns the chunk kernel ran
  bool x_row_major_copy = false;    // a LayoutLeft X was copied row-major first
  bool paired_columns = false;      // the chunk kernel loaded X two columns at a time
  // With tuning.count_in_stats: chunks or panels whose range ends inside a row (that row
  // is shared: every one holding some of it adds its share with atomics).
  std::uint64_t carries = 0;
  // With tuning.count_in_stats, staging: rows of X loaded into scratch (summed over
  // panels), and nonzeros of A that read their row of X from scratch instead of global
  // memory.
  std::uint64_t staged_rows = 0;
  std::uint64_t staged_reads = 0;
};

}  // namespace libra
