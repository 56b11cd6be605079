#pragma once
// What a caller chooses for products of matrices in diagonal storage
// (libra/diag/gemm.hpp), and what it learns back.
#include <cstddef>
#include <cstdint>

namespace libra {

// op(X) in C = alpha * op(A) * op(B) + beta * C: X or its transpose, read in
// place (diagonal d of X^T is diagonal -d of X; no transposed copy is made).
enum class DiagonalOp { none, transpose };

enum class DiagonalPath {
  none,         // nothing to multiply (an operand without diagonals, or n = 0)
  cdm_tiles,    // CDM: a team per tile of C's compact diagonals x positions, a thread
                // per position holding the tile's diagonals in registers (the paper's
                // Algorithm 1)
  cdm_columns,  // CDM on GPUs for band-like operands: a thread per column segment of
                // C, each loaded value of B serving 8 diagonals of C
  cdm_rows,     // CDM on host spaces: a thread per chunk of one compact diagonal of C,
                // shifted vector products in contiguous runs (vectorised)
  hm_entries,   // HM: a thread per stored entry of A over B's diagonals, atomics into C
                // (the paper's Algorithm 2)
  hm_pairs      // HM on host spaces: a thread per diagonal of C, a contiguous shifted
                // vector product per pair of diagonals of A and B (no atomics)
};
const char* to_string(DiagonalPath path) noexcept;

struct DiagonalGemmOptions {
  // Bytes C's values may take on the device; 0: three quarters of the free
  // memory. A product whose C would take more is refused (ArgumentError) before
  // anything is allocated for it.
  std::size_t memory_budget = 0;

  // Knobs for tests and tuning; the defaults are what Libra chooses.
  struct Tuning {
    // CDM: 1 forces the team tiles on any space, -1 the host rows kernel, 0 lets
    // Libra choose (tiles on GPUs, rows on hosts).
    int cdm_tiles = 0;
    // CDM: 1 forces the columns kernel on any space (positions per team:
    // tile_positions, 0: 128), -1 never runs it, 0 lets Libra choose (GPUs, when
    // op(A) and C are band-like and cdm_tiles is 0).
    int cdm_columns = 0;
    // Tiles: C's compact diagonals (at most 8) x positions per tile, and A's
    // compact diagonals tabulated per step (0: 8 x 128 and 64). Rows: positions
    // per chunk (tile_positions; 0: 512, at most 512).
    int tile_diagonals = 0;
    int tile_positions = 0;
    int tile_depth = 0;
    // Threads per team when the tiles run on a host space (0: 1); capped by what
    // the space allows. GPUs use one thread per position of the tile.
    int host_team_threads = 0;
    // HM: 1 forces a thread per diagonal of C on any space, -1 a thread per entry
    // of A, 0 lets Libra choose (entries on GPUs, pairs on hosts).
    int hm_pairs = 0;
    // CDM: C's diagonals are worked out on the host, from the diagonal lists
    // of A, B (and C_in) read back in one synchronisation, when op(A) and
    // op(B) have at most this many pairs of diagonals; else on the device,
    // flagged over C's n compact indices and listed (passes over n, a
    // synchronisation). Negative: always on the device.
    std::int64_t host_diagonal_pairs = 1024;
  } tuning;
};

struct DiagonalGemmStats {
  DiagonalPath path = DiagonalPath::none;
  std::uint64_t diagonals_c = 0;  // diagonals C stores
  std::uint64_t stored_c = 0;     // values C stores
  // Pairs (diagonal of op(A), diagonal of op(B)) multiplied: each is one shifted
  // vector product (CDM: n multiply-adds; HM: at most the shorter diagonal's).
  std::uint64_t diagonal_pairs = 0;
  // CDM: C's diagonals were worked out on the host (Tuning::host_diagonal_pairs).
  bool diagonals_on_host = false;
};

}  // namespace libra
