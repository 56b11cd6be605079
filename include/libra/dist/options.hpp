#pragma once
// The choices and reports of libra::dist::Spmv (MSREP's multi-GPU SpMV).
#include <cstdint>
#include <string>
#include <vector>

#include "libra/spmv/options.hpp"

namespace libra::dist {

// MSREP's three versions (Section 5): `baseline` cuts equal row (column) counts
// and merges on the host; `p` cuts equal nonzeros into partial formats, computed
// and merged on the host; `p_opt` computes each part's local offsets on its own
// device, merges on the device, and places each rank near its GPU.
enum class Version { baseline, p, p_opt };
// The parts' format: pCSR and pCOO are row-based (each rank produces its rows of
// y), pCSC column-based (each rank a full-length partial y, summed).
enum class PartFormat { csr, csc, coo };
// How p_opt moves device buffers between ranks: `nccl`; `mpi` (MPI on the
// buffers where they are: host memory, or device memory with a CUDA-aware MPI);
// `host` (copied to host memory, moved by MPI, copied back). `automatic`: NCCL
// where it loads, else MPI where it can take the buffers, else host. baseline
// and p always go through host memory (their merge runs there).
enum class Transport { automatic, host, mpi, nccl };
// How the pieces of y (SpmvOptions::pieces) reach rank 0: over the `transport`;
// or by `copy_engines`: rank 0's copy engines read each piece from the other
// ranks' device memory (CUDA IPC) once it is computed, so that no kernel of the
// transport's (NCCL's) shares the GPUs with the products. Copy engines need the
// Cuda space and every rank on one host, its GPU able to reach rank 0's.
// `automatic`: copy engines where they open and there are several ranks (on
// four H100s they moved y faster than NCCL: perf_tests/report/h100x4/), else
// the transport.
enum class PieceMoves { automatic, transport, copy_engines };
// How p and p_opt cut the matrix: `nonzeros`, the paper's equal nonzeros; or
// `merge_path`, equal lines plus nonzeros (merge-path items), so that a part of
// many short lines, which reads more offsets and writes and moves more of y,
// gets fewer nonzeros. baseline always cuts equal lines.
enum class Balance { nonzeros, merge_path };
// How pCSC parts move their partial sums under apply_local: `slices`, each part
// sends every other part the rows of its span that part holds (little for a
// band); `reduce_scatter`, one reduce-scatter of the whole partial y, rank r
// holding the r-th of P equal blocks of rows (the collective, for matrices
// whose every part touches most rows). `automatic`: slices. On 2 H200s the
// reduce-scatter was no faster where both move the same rows (R-MAT 22's merge
// 0.146 ms against 0.130, perf_tests/report/h200x2/README.md); more GPUs were
// not measured.
enum class ColumnMoves { automatic, slices, reduce_scatter };

const char* to_string(Version v) noexcept;
const char* to_string(PartFormat f) noexcept;
const char* to_string(Transport t) noexcept;
const char* to_string(PieceMoves m) noexcept;
const char* to_string(Balance b) noexcept;
const char* to_string(ColumnMoves m) noexcept;

struct SpmvOptions {
  Version version = Version::p_opt;
  PartFormat format = PartFormat::csr;
  Transport transport = Transport::automatic;
  // p_opt: bind each rank's process (its threads, and its memory where the host
  // has several NUMA domains) near its GPU, or spread the host's ranks over its
  // NUMA domains on host builds (libra/core/topology.hpp). Needs Libra built with
  // hwloc; a process its launcher bound already keeps that binding.
  bool place = true;
  // Fence and synchronise the ranks around each phase so that times() holds
  // the phases' times; off, only the totals are measured.
  bool timing = false;
  // p_opt with pCSR over NCCL or MPI, or by copy engines (piece_moves): each
  // rank computes its rows in this many pieces of equal nonzeros and sends each
  // piece as soon as it is computed, so that gathering y on rank 0 overlaps the
  // products (and the root computes its own rows straight into y, or into the
  // gathered buffer). 0: automatic (1: measured on four H100s, more pieces hid
  // the moves but slowed the products about as much); more than 1 elsewhere is
  // refused.
  int pieces = 0;
  PieceMoves piece_moves = PieceMoves::automatic;
  Balance balance = Balance::nonzeros;
  // p and p_opt: a cut that falls inside a line moves to the nearer end of that
  // line where that moves it by at most this share of a part's nonzeros (0 to
  // 1), so that the line is whole in one part and no partial sum of it moves
  // between ranks; cuts inside longer stretches of a line (hub rows) stay. 0:
  // the paper's exact cuts.
  double cut_slack = 0;
  ColumnMoves column_moves = ColumnMoves::automatic;
  libra::SpmvOptions local;  // the kernels' knobs, on every rank
};

// What the constructor did. Entries marked "root" are filled on rank 0 only.
struct SpmvSetup {
  int ranks = 1;
  Transport transport = Transport::host;  // the one chosen
  std::string transport_detail;           // e.g. the NCCL version, or why not NCCL
  bool merge_on_host = true;
  int part = 0;           // this rank's part
  std::string placement;  // where this rank was placed, or "not placed: " and why
  std::int64_t rows = 0, cols = 0, nnz = 0;
  double convert_seconds = 0;        // root: CSR to CSC or COO
  double partition_seconds = 0;      // root: boundaries (baseline, p: and local offsets)
  double distribute_seconds = 0;     // root: until every part is on its device
  double local_offsets_seconds = 0;  // p_opt: on each device, the slowest rank's
  std::vector<std::int64_t> part_nnz, part_lines;  // root: per part
  std::vector<int> rank_of_part;                   // root: which rank holds part i
  // The pieces each rank's rows of y leave in (SpmvOptions::pieces); 0 where y
  // is gathered whole once every rank has computed it (pCSC, pCOO, the host
  // transport, baseline and p).
  int pieces = 0;
  PieceMoves piece_moves = PieceMoves::transport;  // the one chosen, where pieces > 0
  // pCSC under apply_local: whether each part holds rows in proportion to its
  // columns (true) or equal row counts (false), whichever moves fewer rows
  // through the busiest part (libra/dist/impl/column_rows.hpp).
  bool rows_by_columns = false;
  ColumnMoves column_moves = ColumnMoves::slices;  // pCSC: the one chosen
};

// The phases of the last set_x() and apply(). With options.timing: compute is
// the slowest rank's, wait the time ranks idled until the slowest finished, merge
// the root's (exchange and merge kernel); without, only total_seconds. Where y
// leaves in pieces (SpmvSetup::pieces > 0) the exchange overlaps the compute:
// merge is what the root spends after the slowest rank's compute, and wait the
// spread between the fastest and the slowest rank's compute.
struct SpmvTimes {
  double x_seconds = 0;
  double compute_seconds = 0;
  double wait_seconds = 0;
  double merge_seconds = 0;
  double total_seconds = 0;
  SpmvPath path = SpmvPath::none;  // this rank's kernel
  // pCSR: the tiles summed each (whole) row by one thread (SpmvStats::row_sums:
  // planned, or on row starts found for the call), in the last piece this rank
  // computed.
  bool row_sums = false;
  // Root, pieces: the rows landed in y itself (beta 0, y's rows contiguous);
  // else in a buffer of every part's rows, merged into y afterwards.
  bool rows_into_y = false;
  // Root, with options.timing: each rank's compute (by rank), whose spread
  // `wait` summarises.
  std::vector<double> compute_by_rank;
};

}  // namespace libra::dist
