#pragma once
// What a caller chooses for C = A * B, and what it learns back.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "libra/diag/options.hpp"

namespace libra {

enum class SpgemmAlgorithm {
  automatic,  // Libra picks (impl/choose_algorithm.hpp; the README's rule)
  outer,      // lbGEMM: outer products balanced by a heaviest-first workload table
  panel,      // ApSpGEMM in-core: rows binned by products, accumulated on the fly
  cdm,        // compact diagonal storage (square, banded matrices; libra/diag/)
  hm          // HM diagonal storage (entries on few diagonals, any shape; libra/diag/)
};

// "panel", "outer", "cdm", "hm", "auto"; throws ArgumentError for anything else.
SpgemmAlgorithm parse_spgemm_algorithm(const std::string& name);
const char* to_string(SpgemmAlgorithm algorithm) noexcept;

struct SpgemmOptions {
  SpgemmAlgorithm algorithm = SpgemmAlgorithm::automatic;
  // Bytes the intermediate products and their bookkeeping may occupy on the
  // device; 0 = a safe fraction of the device's free memory (a quarter;
  // util/memory_budget.hpp). C itself is not counted: it must fit beside the budget. When
  // the products exceed the budget the work is cut into chunks that each fit.
  std::size_t memory_budget = 0;
  // false allows C's rows to come out with columns in any order (as Kokkos
  // Kernels leaves them). Host spaces then skip sorting each row's distinct
  // columns when the product fits one chunk; GPU paths and chunked products
  // sort anyway (their accumulators and chunk merges need sorted rows).
  bool sort_columns = true;
  // Host spaces only: one dense accumulator per thread over C's columns when it
  // fits a quarter of the budget (fast on CPUs). false forces the scratch-sort
  // path that GPUs take.
  bool dense_accumulator = true;
  // Fence the device after each phase so that SpgemmStats' per-phase seconds
  // mean something. Off by default: each fence is a host synchronisation.
  bool phase_timings = false;
  // cdm and hm: the most values diagonal storage may hold per entry of A or B
  // (DiagonalOptions::max_fill); a matrix whose entries are not on a few
  // diagonals is refused with ArgumentError instead of stored nearly dense.
  double diagonal_max_fill = 4.0;
  // Called on the host after each chunk of each phase with (steps done, steps in
  // all), e.g. to draw a progress bar; a product in one chunk makes 2 steps.
  std::function<void(int done, int total)> progress;

  // Knobs for tests and tuning; the defaults are what Libra chooses.
  struct Tuning {
    // Team scratch bytes the row kernels may use (0: LaunchTraits' default).
    // A small value sends rows that would fit scratch to the bitmap, dense and
    // global-memory paths, so small tests walk them.
    int scratch_bytes = 0;
    // Long rows in the numeric phase (GPU-style paths of both algorithms): per-team dense
    // accumulators when the budget allows them (true), or atomics straight into
    // C's values (false: what runs when dense arrays do not fit).
    bool dense_long_rows = true;
    // GPUs: the binned path's launches for different bins (a few thousand
    // short rows each, which leave most of the device idle) run side by side on
    // streams of their own (core/kernel_lanes.hpp); false: one after another on
    // the caller's instance.
    bool side_by_side = true;
    // Threads per team when a host space runs the GPU-style kernels
    // (dense_accumulator = false); 0 = 1. Lets host tests run the team sorts,
    // barriers and scratch atomics that GPU teams use.
    int host_team_threads = 0;
    // Host dense accumulators mark C's pattern with B's rows packed into
    // 64-column words (impl/column_words.hpp) when packing leaves at most this
    // fraction of B's nonzeros; otherwise one bit (or mark) per product. 1
    // always packs, 0 never does (tests walk both). Measured on 2 host cores
    // with marks: crack (0.72) and p2p-Gnutella31 (0.67) 1.2x faster unpacked,
    // Wiki-Vote and email-Enron (0.56) 1.1-1.4x faster packed.
    double host_word_ratio = 0.65;
    // ... and, below a ratio of 1, only when packing spares at least this many
    // products a row of A (A's average row's products times 1 - the ratio):
    // on short rows the packed path's work a row (touched words, their flags,
    // the read-off) outweighs the products it spares. Measured on 2 host
    // cores (perf_tests/report/host/word_row_saving.md): fe_4elt2 (16 spared
    // a row), west2021 (7), olm1000 (12), luxembourg (2) and lp_afiro (5)
    // 0.59-0.86x the time unpacked, add32 (19) 0.97x; bcsstk21 (31) and
    // cage8 (74) no faster unpacked. 0: the ratio alone decides.
    double host_word_row_saving = 24;
    // The host fill reads a sparse row's touched words in column order off a
    // bitmap with a bit per word when that bitmap's words to scan are at most
    // host_flag_span per touched word (plus 4); otherwise it sorts the words.
    // 0 always sorts; a large value always scans (tests walk both).
    int host_flag_span = 4;
    // Without packed words, a sorted host fill orders a row of at most this
    // many distinct columns, when they are too spread for a scan of their
    // range, by ranking them (each column's place is the count of the row's
    // columns below it: no branch) instead of bits and word flags; 0: never,
    // at most 256 (the compares grow as the square).
    int host_rank_columns = 32;
    // Without packed words, host dense accumulators tell a row's new columns
    // by per-thread marks (4 bytes a column) when C has at most this many
    // columns, else by the bitmap (impl/acc_host_dense.hpp); 0: never.
    std::int64_t host_mark_columns = 131072;
    // Host dense accumulators make rows with at most host_sort_products
    // products (at most 64; 0: none) by sorting them on the stack instead
    // (impl/acc_host_dense.hpp), when C has at least host_sort_columns columns
    // (a thread's dense array then outgrows the cache: 256 KiB of doubles) and
    // A's rows average at most host_sort_average products (0: any). Measured
    // on 2 host cores: luxembourg (114,599 columns, 4.5 products a row) 1.3-1.6x
    // faster at 16; p2p-Gnutella31 (62,586 columns, 8.6 a row) slower, narrower
    // products gained nothing, and 32 to 64 made FEM matrices slower (the
    // sort's steps grow as the square).
    int host_sort_products = 16;
    // Host dense accumulators make a row of A with at most this many nonzeros
    // (0: none, at most 2) straight from its rows of B when they list their
    // columns in increasing order: one row copied, scaled; two merged (no
    // accumulator, no ordering; impl/acc_host_dense.hpp).
    int host_direct_entries = 2;
    std::int64_t host_sort_columns = 32768;
    double host_sort_average = 6;
    // One-shot products whose A has at most this many nonzeros, and whose
    // average row of A times average row of B is within a quarter of
    // small_table, first try the small path (impl/panel_small.hpp: three
    // launches, one synchronisation) on GPU-style kernels, and so do products
    // of any size whose C is narrow enough for bitmap rows with a sum per
    // column (small_bitmap); 0 turns the path off. Its count tables have
    // small_table slots per row: a row with more products goes to a bitmap
    // over C's columns in team scratch (small_spill; where that bitmap does
    // not fit, or small_spill is false, the row sends the product to the
    // binned path).
    std::int64_t small_nnz = 1 << 17;
    int small_table = 512;
    bool small_spill = true;
    // When they spill, rows with more than this many products (or an eighth
    // of C's 64-column words, when more) spill even within the table: a team
    // per row flattens them and needs no sort, where a thread group steps
    // through the row's nonzeros and sorts a table twice the row's length (0:
    // only rows beyond the table). Measured on the H100
    // (perf_tests/report/h100/small_spill.md): ca-GrQc 0.56 ms with spills
    // beyond the table, 0.39 ms beyond 64 products (cuSPARSE 0.42 ms).
    int small_spill_products = 64;
    // The small path's rows use a bitmap over C's columns in team scratch
    // where it fits and is no wider than the average row's products (no table
    // to outgrow, no sort); negative: always hash tables, and no narrow
    // products of any size on the small path (impl/panel_small.hpp).
    int small_bitmap = 0;
    // The small path's bitmap rows with more products than this many sweeps of
    // the count's teams (hub rows of power-law graphs) are counted and filled
    // by teams of up to 1024 threads in launches of their own, the fill beside
    // the other rows' (0: every row in the one launch, whose teams the longest
    // row sizes).
    int small_heavy_sweeps = 32;
    // The small path's bitmap teams: 32 threads, doubled (up to 256 in the
    // count, 1,024 in the fill) while a thread would take more than this many
    // products of four average rows (count) or of the longest row (fill).
    int small_team_products = 16;
    // The small path's bitmap counts end with their last team writing C's
    // row_map where its threads have at most this many rows each; 0: a scan
    // launch after every count (impl/last_team_row_map.hpp).
    int small_last_team_rows = 32;
    // The binned fill pass (GPU-style kernels) writes a team row's sorted
    // columns off a bitmap over C's columns in team scratch, instead of sorting
    // its hash table, when that bitmap fits scratch and the table has at least
    // fill_bitmap_slots slots per bitmap word (0: the measured default;
    // negative: never; 1: every team row whose bitmap fits).
    int fill_bitmap_slots = 0;
    // Thread groups (GPU-style kernels' short rows) spread a row of A with at
    // least group_spread_entries nonzeros over their lanes, each lane walking
    // the rows of B its nonzeros select, instead of stepping through the
    // nonzeros with the lanes across each row of B (0: the measured default;
    // negative: never; 1: every row).
    int group_spread_entries = 0;
    // Dense panels (impl/dense_panels.hpp): panels of dense_panel_rows
    // consecutive rows of A (0: 256) with at least dense_panel_products products
    // that fill at least dense_panel_density of their box (rows x the range of
    // A's columns they use x the range of B's columns those rows of B hold; 0:
    // the space's measured default; above 1: never) are multiplied as dense
    // tiles with KokkosBlas::gemm.
    int dense_panel_rows = 0;
    double dense_panel_density = 0;
    // (2^24: the pass that looks for dense panels runs only on products that
    // large; it cost 5% (geometric mean, up to 22%) on the report's matrices
    // on the H100, none of which has one, while the panels that won held 50
    // million products or more.)
    std::uint64_t dense_panel_products = std::uint64_t(1) << 24;
    // lbGEMM cuts products beyond the budget into row panels of A (chunks whose
    // pieces of C are concatenated) when every row's products fit one chunk, and
    // into workload-table items (whose patterns are merged) otherwise; true
    // always cuts by items.
    bool outer_chunks_by_items = false;
  } tuning;
};

// How many rows went down each compress path, summed over chunks (a row whose
// products fall into several chunks counts once per chunk). Lets tests assert
// which code ran.
struct SpgemmPathCounts {
  // Symbolic (C's pattern).
  std::uint64_t sort_in_scratch = 0;  // sorted and deduplicated in team scratch (outer)
  std::uint64_t hash_in_scratch = 0;  // hashed in team scratch, then sorted (panel)
  std::uint64_t thread_groups = 0;    // of those, rows owned by a thread group (panel)
  // Of those and of the small path's rows, the rows whose group spread A's
  // nonzeros over its lanes (Tuning::group_spread_entries).
  std::uint64_t thread_groups_spread = 0;
  std::uint64_t bitmap = 0;  // marked in a per-team bitmap over C's columns
  std::uint64_t bitmap_in_scratch =
      0;                         // of those, with the bitmap in team scratch (panel)
  std::uint64_t host_dense = 0;  // per-thread dense accumulator (host spaces)
  std::uint64_t host_packed_words = 0;  // of those, marked with B packed in words
  std::uint64_t host_word_flags = 0;    // of those, filled in order off word flags
  std::uint64_t host_ranked = 0;        // of host_dense, ordered by ranking their columns
  std::uint64_t host_sorted = 0;        // of those, made by sorting their few products
  std::uint64_t host_copied = 0;  // of host_dense, a row of B scaled (A's row: one entry)
  std::uint64_t host_merged = 0;  // of host_dense, two rows of B merged (A's row: two)
  std::uint64_t host_marks = 0;   // of host_dense, new columns told by marks, not bits
  // Numeric (C's values).
  std::uint64_t accumulate_in_scratch = 0;  // C's row staged in team scratch
  std::uint64_t accumulate_dense = 0;       // per-team dense array over C's columns
  std::uint64_t accumulate_in_place = 0;    // atomics straight into C's values
  std::uint64_t accumulate_host_dense = 0;  // per-thread dense accumulator (host)
  // Of the binned path's rows, those whose values a one-shot product's fill pass
  // made (no numeric pass for them).
  std::uint64_t values_in_fill = 0;
  // Rows the binned path's fill pass ran through the bitmap: the counted ones,
  // and in one-shot products the rows too long for a team's table with values.
  std::uint64_t bitmap_fill = 0;
  // Of those, rows of team bins sent there rather than sorting their tables
  // (SpgemmOptions::Tuning::fill_bitmap_slots).
  std::uint64_t bitmap_fill_team = 0;
  // Of the bitmap's one-shot rows, those whose values were added in C in place
  // (rows of C longer than the scratch beside the bitmap holds, or the bitmap
  // in global memory); the others summed theirs in scratch.
  std::uint64_t bitmap_values_in_place = 0;
  // Of the bitmap's one-shot rows, those summed in scratch at their columns (C
  // narrow enough for a value per column beside the bitmap): one sweep of the
  // products fewer than summing at positions in C's row.
  std::uint64_t bitmap_values_by_column = 0;
  // Launches of the binned path (a bin's kernel) that ran on a lane of their
  // own beside others (GPUs, Tuning::side_by_side).
  std::uint64_t side_by_side = 0;
  // Rows of A of one-shot products that took the small path, and rows that did
  // not fit its tables (which sent the product to the binned path).
  std::uint64_t small = 0;
  std::uint64_t small_fallback = 0;
  // Of the small path's rows, those too long for its hash tables that a bitmap
  // over C's columns in team scratch made instead (Tuning::small_spill).
  std::uint64_t small_spill = 0;
  // Of the small path's rows, those accumulated in a bitmap over C's columns
  // (Tuning::small_bitmap) rather than in hash tables.
  std::uint64_t small_bitmap = 0;
  // Of those, rows whose sums sat at their columns (C narrow enough).
  std::uint64_t small_by_column = 0;
  // Of the small path's bitmap rows, the hub rows made by wide teams of their
  // own (Tuning::small_heavy_sweeps).
  std::uint64_t small_heavy = 0;
  // The small path's count launches whose last team wrote C's row_map (no scan
  // launch; Tuning::small_last_team_rows), and those a scan launch followed.
  std::uint64_t small_last_team_scans = 0;
  std::uint64_t small_scan_launches = 0;
  // Rows of A in dense panels (panel algorithm: KokkosBlas::gemm on dense
  // tiles, pattern and values; impl/dense_panels.hpp).
  std::uint64_t dense_panels = 0;
  // Rows of C left with unsorted columns (sort_columns = false, host).
  std::uint64_t unsorted = 0;
  // Entries of A that lbGEMM transposed to CSC (0 when the caller gave A's
  // columns, CsrWithColumns).
  std::uint64_t a_transposed = 0;
  // lbGEMM's chunks that were row panels of A (the others: table items).
  std::uint64_t row_chunks = 0;
};

struct SpgemmStats {
  std::uint64_t flops = 0;     // 2 * products
  std::uint64_t products = 0;  // scalar products a_ik * b_kj
  std::uint64_t nnz_c = 0;
  SpgemmAlgorithm algorithm = SpgemmAlgorithm::automatic;  // the one that ran
  int chunks = 0;  // pieces the workload table was cut into (panel: 1)
  std::size_t budget_bytes = 0;
  // The most device memory Libra's temporaries held at once (measured, not
  // estimated), beside A, B and C. With several chunks, C's pattern merged so
  // far and the merge's output are C-sized arrays that are not counted.
  std::size_t peak_bytes = 0;
  SpgemmPathCounts paths;
  DiagonalPath diagonal_path = DiagonalPath::none;  // cdm and hm: the kernel that ran
  // Seconds per phase, with SpgemmOptions::phase_timings (else 0).
  double seconds_wlt = 0;       // workload table: build, sort, chunk plan (panel:
                                // the pre-analysis)
  double seconds_expand = 0;    // writing products to their offsets
  double seconds_compress = 0;  // per-row sort/accumulate into C (panel: all rows)
  double seconds_merge = 0;     // merging chunk patterns
  double seconds_total = 0;
};

}  // namespace libra
