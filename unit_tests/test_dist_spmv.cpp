// MSREP's SpMV over MPI ranks (libra::dist::Spmv), run by ctest under mpirun
// with 1, 2 and 3 ranks: every part format (pCSR, pCSC, pCOO), version
// (baseline, p, p-opt) and transport this build offers, y gathered whole or in
// pieces, or kept on the ranks (apply_local), vectors and blocks,
// alpha/beta, short segments; y on rank 0 compared with the reference oracle;
// the cut (balanced nonzeros or rows) and the path each rank ran asserted; a
// failure on one rank thrown on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "libra/config.hpp"
#include "libra/core/topology.hpp"
#include "libra/dist/impl/messages.hpp"
#include "libra/dist/impl/nccl.hpp"
#include "libra/dist/impl/owned_rows.hpp"
#include "libra/dist/impl/peer_copy.hpp"
#include "libra/dist/spmv.hpp"
#include "libra/io/read.hpp"
#include "support/band.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/spmv_check.hpp"
#include "support/test_space.hpp"

namespace dist_spmv_test {

using libra::test::Device;
using libra::test::Exec;
using Csr = libra::Csr<double, int, std::size_t, Device>;
using Spmv = libra::dist::Spmv<Exec, double, int, std::size_t>;
using libra::dist::Balance;
using libra::dist::PartFormat;
using libra::dist::PieceMoves;
using libra::dist::Transport;
using libra::dist::Version;

constexpr bool host_memory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;

std::string name(const libra::dist::SpmvOptions& o) {
  return std::string(to_string(o.format)) + " " + to_string(o.version) + " " +
         to_string(o.transport) + " pieces " + std::to_string(o.pieces) + " by " +
         to_string(o.piece_moves) + ", balance " + to_string(o.balance) + ", slack " +
         std::to_string(o.cut_slack);
}

// Each line's end (nonzeros up to and including it) in the order of format f's
// lines (rows, or columns for pCSC).
std::vector<std::int64_t> line_ends(const libra::ref::Matrix& a, PartFormat f) {
  const bool columns = f == PartFormat::csc;
  std::vector<std::int64_t> end(static_cast<std::size_t>(columns ? a.cols : a.rows), 0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      ++end[static_cast<std::size_t>(columns ? a.col[k] : i)];
    }
  }
  for (std::size_t l = 1; l < end.size(); ++l) end[l] += end[l - 1];
  return end;
}

// Each part's first nonzero, then nnz, of a merge-path cut, walked step by step:
// the merge of the line ends with the nonzeros takes a line's end as soon as
// all its nonzeros are taken; part i starts at the nonzero reached after
// floor(i (lines + nnz) / P) steps.
std::vector<std::int64_t> merge_path_firsts(const libra::ref::Matrix& a, PartFormat f,
                                            int P) {
  const std::vector<std::int64_t> end = line_ends(a, f);
  const std::int64_t n = static_cast<std::int64_t>(end.size()), nnz = a.nnz();
  std::vector<std::int64_t> first;
  std::int64_t line = 0, j = 0, steps = 0;
  for (int i = 0; i <= P; ++i) {
    const std::int64_t d = i * (n + nnz) / P;
    for (; steps < d; ++steps) {
      if (line < n && (j >= nnz || end[static_cast<std::size_t>(line)] <= j)) {
        ++line;
      } else {
        ++j;
      }
    }
    first.push_back(j);
  }
  return first;
}

// The same for equal nonzeros: part i starts at nonzero floor(i nnz / P).
std::vector<std::int64_t> equal_nonzero_firsts(const libra::ref::Matrix& a, int P) {
  std::vector<std::int64_t> first;
  for (int i = 0; i <= P; ++i) first.push_back(i * a.nnz() / P);
  return first;
}

// The cuts that SpmvOptions::cut_slack makes of `first`: a cut strictly inside
// a line moves to the line's nearer end (its start on a tie) where that is at
// most `slack` nonzeros away.
std::vector<std::int64_t> slack_firsts(const libra::ref::Matrix& a, PartFormat f,
                                       std::vector<std::int64_t> first,
                                       std::int64_t slack) {
  const std::vector<std::int64_t> end = line_ends(a, f);
  for (std::size_t i = 1; i + 1 < first.size(); ++i) {
    std::int64_t lo = 0;
    for (std::int64_t hi : end) {
      if (lo < first[i] && first[i] < hi) {
        const std::int64_t to = first[i] - lo <= hi - first[i] ? lo : hi;
        if (std::abs(to - first[i]) <= slack) first[i] = to;
        break;
      }
      lo = hi;
    }
  }
  return first;
}

std::vector<std::int64_t> nonzeros_per_part(const std::vector<std::int64_t>& first) {
  std::vector<std::int64_t> per_part;
  for (std::size_t i = 0; i + 1 < first.size(); ++i) {
    per_part.push_back(first[i + 1] - first[i]);
  }
  return per_part;
}

std::vector<std::int64_t> merge_path_cut(const libra::ref::Matrix& a, PartFormat f,
                                         int P) {
  return nonzeros_per_part(merge_path_firsts(a, f, P));
}

// The cut: every nonzero in exactly one part, in order; nonzeros balanced for p
// and p-opt (or lines plus nonzeros, as merge_path_cut walks them), rows
// (columns) for baseline.
void check_cut(const libra::ref::Matrix& a, const libra::dist::SpmvOptions& o,
               const libra::dist::SpmvSetup& s) {
  const int P = s.ranks;
  ASSERT_EQ(s.part_nnz.size(), static_cast<std::size_t>(P));
  std::int64_t nnz = 0;
  for (auto n : s.part_nnz) nnz += n;
  EXPECT_EQ(nnz, a.nnz());
  if (o.version != Version::baseline) {
    const auto first = o.balance == Balance::merge_path
                           ? merge_path_firsts(a, o.format, P)
                           : equal_nonzero_firsts(a, P);
    const auto slack =
        static_cast<std::int64_t>(o.cut_slack * static_cast<double>(a.nnz()) / P);
    EXPECT_EQ(s.part_nnz, nonzeros_per_part(slack_firsts(a, o.format, first, slack)))
        << "nonzeros per part";
  }
  if (o.version == Version::baseline) {
    std::int64_t lines = 0;
    for (auto n : s.part_lines) lines += n;
    EXPECT_EQ(lines, o.format == PartFormat::csc ? a.cols : a.rows) << "lines tile";
  }
  std::vector<int> ranks = s.rank_of_part;
  std::sort(ranks.begin(), ranks.end());
  for (int r = 0; r < P; ++r) EXPECT_EQ(ranks[static_cast<std::size_t>(r)], r);
}

// The kernel this rank's part ran. `planned`: its pCSR rows had a plan (p-opt's
// pieces, and every version's parts under apply_local). `row_sums`: the tiles
// summed each row by one thread, which they never do where forbidden or by
// default on host spaces, and unplanned only where forced (Libra's own choice
// takes paths longer than these tests').
void check_path(const libra::dist::SpmvOptions& o, std::int64_t K, libra::SpmvPath path,
                bool planned, bool row_sums) {
  using libra::SpmvPath;
  const int forced = o.local.tuning.tile_row_sums;
  if (row_sums) {
    EXPECT_EQ(path, SpmvPath::csr_tiles);
    EXPECT_TRUE(planned || forced > 0);
  }
  if (forced < 0 || (forced == 0 && !libra::LaunchTraits<Exec>::is_gpu)) {
    EXPECT_FALSE(row_sums);
  }
  const bool idle = path == SpmvPath::scale_only || path == SpmvPath::none;
  // COO and CSC parts scatter in tiles on GPUs unless forced either way.
  const int st = o.local.tuning.scatter_tiles;
  const bool scatter_tiles = st > 0 || (st == 0 && libra::LaunchTraits<Exec>::is_gpu);
  // One vector goes through the tiles on GPUs (a rank-1 view of the block).
  const bool tiles =
      K == 1 && (libra::LaunchTraits<Exec>::is_gpu || o.local.tuning.csr_tiles > 0) &&
      o.local.tuning.csr_tiles >= 0;
  switch (o.format) {
    case PartFormat::csr:
      // On GPUs a small piece (planned or not) takes the rows kernel in place
      // of the tiles.
      EXPECT_TRUE(idle ||
                  path == (tiles ? SpmvPath::csr_tiles : SpmvPath::csr_merge_path) ||
                  (tiles && libra::LaunchTraits<Exec>::is_gpu &&
                   o.local.tuning.csr_rows >= 0 && path == SpmvPath::csr_rows))
          << libra::to_string(path);
      break;
    case PartFormat::coo:
      EXPECT_TRUE(idle ||
                  path == (scatter_tiles ? SpmvPath::coo_tiles : SpmvPath::coo_runs))
          << libra::to_string(path);
      break;
    case PartFormat::csc:
      EXPECT_TRUE(idle || (scatter_tiles ? path == SpmvPath::csc_tiles
                                         : path == SpmvPath::csc_scatter ||
                                               path == SpmvPath::csc_private))
          << libra::to_string(path);
      break;
  }
}

// p-opt places each rank (its own share of the host's processing units) unless
// told not to, or unless its launcher bound it already; the others never do.
void check_placement(const libra::dist::Comm& comm, const libra::dist::SpmvOptions& o,
                     const std::string& placement) {
  if (o.version != Version::p_opt) {
    EXPECT_EQ(placement, "not placed: only p-opt places ranks");
    return;
  }
  if (!o.place) {
    EXPECT_EQ(placement, "not placed: SpmvOptions::place is off");
    return;
  }
#if LIBRA_ENABLE_HWLOC
  static const libra::Topology t = libra::read_topology();
  const libra::Placement plan = libra::plan_placement(
      t, comm.node_rank(), comm.node_size(), libra::LaunchTraits<Exec>::is_gpu);
  const std::string where = libra::describe(plan);
  EXPECT_TRUE(placement.rfind(where, 0) == 0 ||
              placement.rfind("not placed: kept the binding it started with", 0) == 0)
      << placement << " (plan: " << where << ")";
#else
  (void)comm;
  EXPECT_EQ(placement.rfind("not placed: Libra was built without hwloc", 0), 0u)
      << placement;
#endif
}

bool copy_engines_open(const libra::dist::Comm& comm);

// Whether y left in pieces, and in how many: p-opt's pCSR over NCCL or MPI, or
// by copy engines, only; automatic is 1. Copy engines move them where asked,
// and by default where they open and there are several ranks.
void check_pieces(const libra::dist::Comm& comm, const libra::dist::SpmvOptions& o,
                  const libra::dist::SpmvSetup& s) {
  const bool engines = o.piece_moves == PieceMoves::copy_engines ||
                       (o.piece_moves == PieceMoves::automatic && comm.size() > 1 &&
                        copy_engines_open(comm));
  const bool possible =
      o.version == Version::p_opt && o.format == PartFormat::csr &&
      (s.transport == Transport::nccl || s.transport == Transport::mpi || engines);
  if (!possible) {
    EXPECT_EQ(s.pieces, 0);
  } else if (o.pieces > 0) {
    EXPECT_EQ(s.pieces, o.pieces);
  } else {
    EXPECT_EQ(s.pieces, 1);
  }
  if (possible) {
    EXPECT_EQ(s.piece_moves, engines ? PieceMoves::copy_engines : PieceMoves::transport);
  }
}

// y kept on the ranks (apply_local): every rank computes its rows of y into a
// View of its own (straight into it, or through a copy: the path asserted) (starting,
// where beta is not 0, from the rows check_spmv gives y), sends them to rank 0, which
// puts them in y at local_rows() and compares y with the oracle. The ranks' rows must
// tile y. pCSC's parts send each other the slices of their partial y.
template <class Layout, bool Rank1>
void check_local(const libra::dist::Comm& comm, const libra::ref::Matrix& a, Spmv& mv,
                 PartFormat f, std::int64_t K, double alpha, double beta) {
  SCOPED_TRACE("y kept on the ranks");
  using Block = Kokkos::View<double**, Layout, Device>;
  const auto [first, last] = mv.local_rows();
  const std::int64_t rows = last - first;
  // Rows [first, last) of y on this rank, beta's starting values as check_spmv's.
  Block mine("y_local", static_cast<std::size_t>(rows), static_cast<std::size_t>(K));
  auto h = Kokkos::create_mirror_view(mine);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t k = 0; k < K; ++k) {
      h(i, k) = beta == 0 ? std::numeric_limits<double>::quiet_NaN()
                          : libra::test::spmv_y(first + i, k);
    }
  }
  Kokkos::deep_copy(mine, h);
  const auto local = [&] {
    if constexpr (Rank1) {
      mv.apply_local(alpha, beta, Kokkos::subview(mine, Kokkos::ALL, 0));
    } else {
      mv.apply_local(alpha, beta, mine);
    }
    Kokkos::deep_copy(h, mine);
  };
  std::int64_t range[2] = {first, last};
  if (comm.is_root()) {
    std::int64_t covered = rows;
    libra::test::check_spmv<double, Device, Layout, Rank1>(
        a, K, alpha, beta, [&](const auto& x, const auto& y) {
          mv.set_x(x);
          local();
          auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
          const auto put = [&](std::int64_t from, std::int64_t to, const auto& rows_of) {
            for (std::int64_t i = from; i < to; ++i) {
              for (std::int64_t k = 0; k < K; ++k) {
                if constexpr (Rank1) {
                  hy(i) = rows_of(i - from, k);
                } else {
                  hy(i, k) = rows_of(i - from, k);
                }
              }
            }
          };
          EXPECT_EQ(first, 0);
          put(first, last, h);
          std::int64_t next = last;
          for (int r = 1; r < comm.size(); ++r) {
            MPI_Recv(range, 2, MPI_INT64_T, r, 71, comm.get(), MPI_STATUS_IGNORE);
            EXPECT_EQ(range[0], next) << "rank " << r << "'s rows";
            next = range[1];
            covered += range[1] - range[0];
            std::vector<double> v(static_cast<std::size_t>((range[1] - range[0]) * K));
            MPI_Recv(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, r, 72, comm.get(),
                     MPI_STATUS_IGNORE);
            put(range[0], range[1],
                [&](std::int64_t i, std::int64_t k) { return v[i * K + k]; });
          }
          EXPECT_EQ(next, a.rows);
          Kokkos::deep_copy(y, hy);
        });
    EXPECT_EQ(covered, a.rows) << "rows held";
  } else {
    mv.set_x(Block());
    local();
    std::vector<double> v;
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t k = 0; k < K; ++k) v.push_back(h(i, k));
    }
    MPI_Send(range, 2, MPI_INT64_T, 0, 71, comm.get());
    MPI_Send(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, 0, 72, comm.get());
  }
  if (K > 0 && rows > 0 && alpha != 0 && a.nnz() > 0) {
    EXPECT_NE(mv.times().path, libra::SpmvPath::none);
  }
  // pCSR parts whose offsets are whole compute straight into the rows held;
  // pCOO and pCSR cut into several pieces for the gather go through a copy,
  // pCSC through its partial y unless its span lies within its rows (it sends
  // nothing) and no reduce-scatter was asked for.
  if (f == PartFormat::csc) {
    const bool slices = mv.setup().column_moves == libra::dist::ColumnMoves::slices;
    EXPECT_EQ(mv.times().rows_into_y, slices && mv.rows_sent() == 0);
    if (comm.size() == 1) EXPECT_EQ(mv.times().rows_into_y, slices);
  } else {
    EXPECT_EQ(mv.times().rows_into_y, f == PartFormat::csr && mv.setup().pieces <= 1);
  }
}

// y = beta y + alpha A x through every rank, compared on rank 0 with the oracle.
template <class Layout, bool Rank1>
void check_dist(const libra::dist::Comm& comm, const libra::ref::Matrix& a,
                const libra::dist::SpmvOptions& o, Transport expected, std::int64_t K,
                double alpha, double beta) {
  SCOPED_TRACE(name(o) + ", " + std::to_string(comm.size()) + " ranks");
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  Spmv mv(comm, Exec(), A, o);
  EXPECT_EQ(mv.setup().transport, expected) << mv.setup().transport_detail;
  EXPECT_EQ(mv.setup().merge_on_host, o.version != Version::p_opt);
  check_placement(comm, o, mv.setup().placement);
  check_pieces(comm, o, mv.setup());
  if (comm.is_root()) {
    check_cut(a, o, mv.setup());
    libra::test::check_spmv<double, Device, Layout, Rank1>(
        a, K, alpha, beta, [&](const auto& x, const auto& y) {
          mv.set_x(x);
          mv.apply(alpha, beta, y);
        });
  } else {
    Kokkos::View<double**, Layout, Device> none;
    mv.set_x(none);
    mv.apply(alpha, beta, none);
  }
  EXPECT_EQ(mv.columns(), K);
  check_path(o, K, mv.times().path, o.version == Version::p_opt, mv.times().row_sums);
  if (comm.is_root()) {  // pieces land in y where beta is 0 and its rows contiguous
    const bool into_y = mv.setup().pieces > 0 && beta == 0 && a.rows > 0 &&
                        (Rank1 || std::is_same_v<Layout, Kokkos::LayoutRight>);
    EXPECT_EQ(mv.times().rows_into_y, into_y);
  }
  check_local<Layout, Rank1>(comm, a, mv, o.format, K, alpha, beta);
  check_path(o, K, mv.times().path, o.version == Version::p_opt || mv.times().rows_into_y,
             mv.times().row_sums);
  if (o.timing) {
    const auto& t = mv.times();
    EXPECT_GE(t.compute_seconds, 0);
    if (comm.is_root()) {  // every rank's compute; the slowest is compute_seconds
      ASSERT_EQ(t.compute_by_rank.size(), static_cast<std::size_t>(comm.size()));
      EXPECT_EQ(*std::max_element(t.compute_by_rank.begin(), t.compute_by_rank.end()),
                t.compute_seconds);
    } else {
      EXPECT_TRUE(t.compute_by_rank.empty());
    }
    EXPECT_GE(t.merge_seconds, 0);
    EXPECT_GE(t.total_seconds + 1e-9, t.merge_seconds);
  }
}

// Whether NCCL opens here (collective): it needs a Cuda space, the library, and
// one GPU per rank (ranks that share a GPU, as on a one-GPU machine, are refused
// by ncclCommInitRank). Asked once: every test runs on the same ranks.
bool nccl_opens(const libra::dist::Comm& comm) {
  static const bool opens = [&] {
    if (host_memory) return false;
    std::string why;
    return libra::dist::impl::Nccl::open(comm, why) != nullptr;
  }();
  return opens;
}

// Whether copy engines can move the pieces here (collective): a Cuda space, one
// host. The CUDA test spaces run every rank on one host, so there they must.
bool copy_engines_open(const libra::dist::Comm& comm) {
  static const bool opens = [&] {
    if (host_memory) return false;
    std::string why;
    const bool ok = libra::dist::impl::PeerCopy::open(comm, why) != nullptr;
    EXPECT_TRUE(ok) << why;
    return ok;
  }();
  return opens;
}

// What `automatic` must choose.
Transport automatic_choice(const libra::dist::Comm& comm) {
  if (host_memory) return Transport::mpi;
  if (nccl_opens(comm)) return Transport::nccl;
  return libra::dist::impl::mpi_takes_cuda_pointers() ? Transport::mpi : Transport::host;
}

// Each version with the transports this build can run, and the transport each
// must choose; the ones it cannot run must be refused on every rank.
void every_way(const libra::dist::Comm& comm, const libra::ref::Matrix& a, PartFormat f,
               std::int64_t items = 0, int csr_tiles = 0) {
  for (Version v : {Version::baseline, Version::p, Version::p_opt}) {
    libra::dist::SpmvOptions o;
    o.format = f;
    o.version = v;
    o.local.tuning.segment_items = items;
    o.local.tuning.csr_tiles = csr_tiles;
    o.local.tuning.scatter_tiles = csr_tiles;  // COO's and CSC's tiles alike
    o.local.tuning.tile_threads = 3;           // where tiles run: carries between threads
    if (v != Version::p_opt) {
      check_dist<Kokkos::LayoutLeft, true>(comm, a, o, Transport::host, 1, 1, 0);
      o.timing = true;
      check_dist<Kokkos::LayoutRight, false>(comm, a, o, Transport::host, 3, 2, -0.5);
      continue;
    }
    check_dist<Kokkos::LayoutLeft, true>(comm, a, o, automatic_choice(comm), 1, 1, 0);
    o.transport = Transport::host;
    o.timing = true;
    o.place = false;
    check_dist<Kokkos::LayoutRight, false>(comm, a, o, Transport::host, 3, 2, -0.5);
    o.place = true;
    o.transport = Transport::mpi;
    if (host_memory || libra::dist::impl::mpi_takes_cuda_pointers()) {
      check_dist<Kokkos::LayoutLeft, false>(comm, a, o, Transport::mpi, 2, -1, 1);
    } else {
      EXPECT_THROW(
          (check_dist<Kokkos::LayoutLeft, false>(comm, a, o, Transport::mpi, 2, -1, 1)),
          libra::ArgumentError);
    }
    o.transport = Transport::nccl;
    if (!nccl_opens(comm)) {
      EXPECT_THROW(
          (check_dist<Kokkos::LayoutLeft, true>(comm, a, o, Transport::nccl, 1, 1, 0)),
          libra::ArgumentError);
    } else {
      check_dist<Kokkos::LayoutLeft, false>(comm, a, o, Transport::nccl, 2, 1, 1);
    }
  }
}

TEST(DistSpmv, RandomMatrixEveryFormat) {
  libra::dist::Comm comm;
  const auto a = libra::ref::random(90, 70, 5, 21, 0.2);
  for (PartFormat f : {PartFormat::csr, PartFormat::csc, PartFormat::coo}) {
    every_way(comm, a, f);
    every_way(comm, a, f, 5);  // short segments: carries and atomics on small parts
  }
  // CSR's, CSC's and COO's tiles on every space, and the thread-per-segment
  // kernels forced.
  for (PartFormat f : {PartFormat::csr, PartFormat::csc, PartFormat::coo}) {
    every_way(comm, a, f, 4, 1);
    every_way(comm, a, f, 4, -1);
  }
}

using libra::test::band;

// A band's pCSR parts under p-opt, in tiles of 4 threads x 16 items (every
// row of 5 nonzeros whole in a tile): with row sums forced every rank's
// planned tiles sum rows, gathered (apply) and kept on the ranks
// (apply_local); forbidden, none do. Checked against the oracle both ways.
// p-opt's pieces are planned; p's parts run without a plan (boundaries at row
// starts found per call, in the coordinates the rank keeps).
TEST(DistSpmv, RowSumsInPlannedTiles) {
  libra::dist::Comm comm;
  const std::int64_t n = 600;
  const auto a = band(n, 2);
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  for (const auto& [force, version] :
       std::vector<std::pair<int, Version>>{{1, Version::p_opt},
                                            {-1, Version::p_opt},
                                            {1, Version::p},
                                            {-1, Version::p}}) {
    SCOPED_TRACE("tile_row_sums " + std::to_string(force) + ", version " +
                 std::to_string(static_cast<int>(version)));
    libra::dist::SpmvOptions o;
    o.format = PartFormat::csr;
    o.version = version;
    o.local.tuning.csr_tiles = 1;  // tiles on host spaces too
    o.local.tuning.csr_rows = -1;  // and on GPUs, where small pieces take the rows kernel
    o.local.tuning.tile_threads = 4;
    o.local.tuning.segment_items = 16;
    o.local.tuning.tile_row_sums = force;
    check_dist<Kokkos::LayoutLeft, true>(
        comm, a, o, version == Version::p_opt ? automatic_choice(comm) : Transport::host,
        1, 1, 0);
    Spmv mv(comm, Exec(), A, o);
    Kokkos::View<double**, Kokkos::LayoutLeft, Device> x, y;
    if (comm.is_root()) {
      x = decltype(x)("x", n, 1);
      y = decltype(y)("y", n, 1);
      Kokkos::deep_copy(x, 1.0);
    }
    mv.set_x(x);
    mv.apply(1.0, 0.0, y);
    EXPECT_EQ(mv.times().path, libra::SpmvPath::csr_tiles);
    EXPECT_EQ(mv.times().row_sums, force > 0) << "gathered";
    Kokkos::View<double**, Kokkos::LayoutLeft, Device> mine(
        "mine", static_cast<std::size_t>(mv.local_rows().second - mv.local_rows().first),
        1);
    mv.apply_local(1.0, 0.0, mine);
    EXPECT_EQ(mv.times().row_sums, force > 0) << "kept on the ranks";
  }
}

TEST(DistSpmv, HubRowAcrossEveryRankAndEmptyRows) {
  libra::dist::Comm comm;
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t j = 0; j < 400; ++j) t.emplace_back(3, j, 1.0 + (j % 5));
  for (std::int64_t i = 0; i < 40; i += 2) t.emplace_back(i, i, -2.0);
  const auto hub = libra::ref::from_triplets(40, 400, t);
  const auto empty = libra::ref::from_triplets(6, 4, {});
  const auto tiny =
      libra::ref::from_triplets(2, 2, {{1, 0, 3.0}});  // fewer nnz than ranks
  for (PartFormat f : {PartFormat::csr, PartFormat::csc, PartFormat::coo}) {
    every_way(comm, hub, f, 7);
    every_way(comm, hub, f, 3, 1);
    every_way(comm, empty, f);
    every_way(comm, tiny, f);
  }
}

// Which rows each part holds where y stays on the ranks, by hand. Ten rows in
// four parts starting at lines 0, 3 (inside line 3), 3 (inside it again) and 7:
// part 0 holds rows 0-3 and receives line 3 from parts 1 and 2; part 1 (line 3
// alone) holds none; part 2 holds 4-6. Then eight rows where the holder of a
// shared line (part 1, line 5) itself starts inside line 2 of part 0.
TEST(DistSpmv, OwnedRowsByHand) {
  using libra::dist::impl::owned_rows;
  const std::vector<std::int64_t> start = {0, 3, 3, 7, 10}, flag = {0, 1, 1, 0, 0};
  const auto p0 = owned_rows(start, flag, 0), p1 = owned_rows(start, flag, 1),
             p2 = owned_rows(start, flag, 2), p3 = owned_rows(start, flag, 3);
  EXPECT_EQ(std::make_pair(p0.first, p0.last), std::make_pair(0L, 4L));
  EXPECT_EQ(std::make_pair(p1.first, p1.last), std::make_pair(4L, 4L));
  EXPECT_EQ(std::make_pair(p2.first, p2.last), std::make_pair(4L, 7L));
  EXPECT_EQ(std::make_pair(p3.first, p3.last), std::make_pair(7L, 10L));
  EXPECT_EQ(p0.shared_from, (std::vector<int>{1, 2}));
  EXPECT_TRUE(p1.shared_from.empty() && p2.shared_from.empty() && p3.shared_from.empty());
  EXPECT_EQ(p0.send_to, -1);
  EXPECT_EQ(p1.send_to, 0);
  EXPECT_EQ(p2.send_to, 0);
  EXPECT_EQ(p3.send_to, -1);
  EXPECT_EQ(p0.local_first, 0);
  EXPECT_EQ(p2.local_first, 1);  // row 4 is part 2's second line
  const std::vector<std::int64_t> s2 = {0, 2, 5, 5, 8}, f2 = {0, 1, 1, 1, 0};
  const auto q0 = owned_rows(s2, f2, 0), q1 = owned_rows(s2, f2, 1),
             q2 = owned_rows(s2, f2, 2), q3 = owned_rows(s2, f2, 3);
  EXPECT_EQ(std::make_pair(q0.first, q0.last), std::make_pair(0L, 3L));
  EXPECT_EQ(std::make_pair(q1.first, q1.last), std::make_pair(3L, 6L));
  EXPECT_EQ(std::make_pair(q2.first, q2.last), std::make_pair(6L, 6L));
  EXPECT_EQ(std::make_pair(q3.first, q3.last), std::make_pair(6L, 8L));
  EXPECT_EQ(q0.shared_from, (std::vector<int>{1}));
  EXPECT_EQ(q1.shared_from, (std::vector<int>{2, 3}));
  EXPECT_EQ(q1.send_to, 0);
  EXPECT_EQ(q2.send_to, 1);
  EXPECT_EQ(q3.send_to, 1);
}

// pCSC's rows held and slices moved under apply_local, by hand. Rows held in
// proportion to the columns (7 rows over 3 columns: 0, 2, 4, 7; no columns: the
// last part holds every row). Three parts holding rows 0-3, 4-7, 8-11 with row
// spans [0, 6), [3, 10), [7, 12): part 1 sends rows 3 to 0 and 8-9 to 2 and
// receives 4-5 from 0 and 7 from 2; an empty span moves nothing.
TEST(DistSpmv, ColumnRowsByHand) {
  using libra::dist::impl::column_rows;
  using libra::dist::impl::held_row_starts;
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(held_row_starts({0, 1, 2, 3}, 7, 3), (V{0, 2, 4, 7}));
  EXPECT_EQ(held_row_starts({0, 0, 0}, 5, 0), (V{0, 0, 5}));
  const V held = {0, 4, 8, 12}, span = {0, 6, 3, 10, 7, 12};
  const auto slices = [](const std::vector<libra::dist::impl::ColumnSlice>& v) {
    V out;
    for (const auto& s : v) out.insert(out.end(), {s.part, s.first, s.last, s.at});
    return out;
  };
  const auto p0 = column_rows(held, span, 0), p1 = column_rows(held, span, 1),
             p2 = column_rows(held, span, 2);
  EXPECT_EQ(std::make_pair(p1.first, p1.last), std::make_pair(4L, 8L));
  EXPECT_EQ(slices(p0.sends), (V{1, 4, 6, 0}));
  EXPECT_EQ(slices(p0.receives), (V{1, 3, 4, 0}));
  EXPECT_EQ(p0.arrived_rows, 1);
  EXPECT_EQ(slices(p1.sends), (V{0, 3, 4, 0, 2, 8, 10, 0}));
  EXPECT_EQ(slices(p1.receives), (V{0, 4, 6, 0, 2, 7, 8, 2}));
  EXPECT_EQ(p1.arrived_rows, 3);
  EXPECT_EQ(slices(p2.sends), (V{1, 7, 8, 0}));
  EXPECT_EQ(slices(p2.receives), (V{1, 8, 10, 0}));
  const auto e1 = column_rows(held, {0, 6, 0, 0, 7, 12}, 1);
  EXPECT_TRUE(e1.sends.empty());
  EXPECT_EQ(slices(e1.receives), (V{0, 4, 6, 0, 2, 7, 8, 2}));
  EXPECT_TRUE(column_rows(held, {0, 6, 0, 0, 7, 12}, 0).receives.empty());
  // The holding: two parts touching every one of 10 rows, the first holding
  // one column of 10: by columns part 0 would send 9 rows, equal counts 5.
  using libra::dist::impl::choose_held_rows;
  bool by_columns = true;
  EXPECT_EQ(choose_held_rows({0, 1, 10}, 10, 10, {0, 10, 0, 10}, by_columns),
            (V{0, 5, 10}));
  EXPECT_FALSE(by_columns);
  // A band's spans: by columns 1 row each way, equal counts 3 rows into part 1.
  EXPECT_EQ(choose_held_rows({0, 3, 10}, 10, 10, {0, 4, 2, 10}, by_columns),
            (V{0, 3, 10}));
  EXPECT_TRUE(by_columns);
  EXPECT_EQ(libra::dist::impl::busiest_moves({0, 3, 10}, {0, 4, 2, 10}), 1);
  EXPECT_EQ(libra::dist::impl::busiest_moves({0, 5, 10}, {0, 4, 2, 10}), 3);
}

// pCSC parts of a band (half-width 3) keep y on the ranks moving only the
// band's edges: each rank sends at most 3 rows to each neighbour, its rows held
// by columns; a random matrix's parts touch most rows and send many; with ten
// dense columns first (R-MAT's heavy ones) the first part holds few columns,
// so equal row counts are held; an arrow's first part sends nothing.
// Checked against the oracle.
TEST(DistSpmv, ColumnPartsOfABandMoveItsEdges) {
  libra::dist::Comm comm;
  const std::int64_t n = 600;
  const auto banded = band(n, 3);
  const auto random = libra::ref::random(300, 300, 20, 29, 0.1);
  const auto heavy = [] {
    std::vector<libra::ref::Triplet> t;
    for (std::int64_t i = 0; i < 300; ++i) {
      for (std::int64_t j = 0; j < 10; ++j) t.emplace_back(i, j, 1.0 + (i + j) % 3);
      t.emplace_back(i, 10 + (7 * i) % 290, 2.0);
    }
    return libra::ref::from_triplets(300, 300, t);
  }();
  // Column j holds rows j and 0: part 0's span is its own rows (it computes
  // straight into them and adds row 0's partial sums from every other part).
  const auto arrow = [] {
    std::vector<libra::ref::Triplet> t = {{0, 0, 2.0}};
    for (std::int64_t j = 1; j < 240; ++j) {
      t.emplace_back(0, j, 1.0 + j % 4);
      t.emplace_back(j, j, 3.0);
    }
    return libra::ref::from_triplets(240, 240, t);
  }();
  for (const auto* a : {&banded, &random, &heavy, &arrow}) {
    libra::dist::SpmvOptions o;
    o.format = PartFormat::csc;
    o.version = Version::p_opt;
    check_dist<Kokkos::LayoutRight, false>(comm, *a, o, automatic_choice(comm), 2, 1,
                                           0.5);
    const Csr A = comm.is_root()
                      ? libra::test::from_ref<double, int, std::size_t, Device>(*a)
                      : Csr();
    Spmv mv(comm, Exec(), A, o);
    const auto [first, last] = mv.local_rows();
    EXPECT_EQ(mv.setup().column_moves, libra::dist::ColumnMoves::slices);  // automatic
    if (a == &banded || comm.size() == 1) EXPECT_TRUE(mv.setup().rows_by_columns);
    if (a == &arrow && mv.setup().part == 0) EXPECT_EQ(mv.rows_sent(), 0);
    if (a == &heavy && comm.size() > 1) {
      EXPECT_FALSE(mv.setup().rows_by_columns);
      EXPECT_EQ(last - first, 300 / comm.size());
    }
    if (a == &banded) {
      EXPECT_LE(mv.rows_sent(), comm.size() > 1 ? 6 : 0);
      EXPECT_NEAR(static_cast<double>(last - first), static_cast<double>(n) / comm.size(),
                  10);
    } else if (a == &random && comm.size() > 1) {
      EXPECT_GT(mv.rows_sent(), (a->rows / comm.size()) / 2);
    }
    if (comm.size() == 1) EXPECT_EQ(mv.rows_sent(), 0);
  }
}

// pCSC on the ranks by one reduce-scatter, forced on every version and
// transport this build runs: rank r holds the r-th block of ceil(rows / P)
// rows and sends P - 1 blocks; checked against the oracle. The slices forced
// instead hold what choose_held_rows says.
TEST(DistSpmv, ColumnPartsByReduceScatter) {
  libra::dist::Comm comm;
  const auto a = libra::ref::random(301, 250, 12, 31, 0.1);
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  const std::int64_t block = (a.rows + comm.size() - 1) / comm.size();
  std::vector<std::pair<Version, Transport>> ways = {{Version::baseline, Transport::host},
                                                     {Version::p_opt, Transport::host}};
  if (host_memory || libra::dist::impl::mpi_takes_cuda_pointers())
    ways.push_back({Version::p_opt, Transport::mpi});
  if (nccl_opens(comm)) ways.push_back({Version::p_opt, Transport::nccl});
  for (const auto& [v, t] : ways) {
    for (const auto moves :
         {libra::dist::ColumnMoves::reduce_scatter, libra::dist::ColumnMoves::slices}) {
      libra::dist::SpmvOptions o;
      o.format = PartFormat::csc;
      o.version = v;
      o.transport = t;
      o.column_moves = moves;
      SCOPED_TRACE(to_string(moves));
      check_dist<Kokkos::LayoutRight, false>(comm, a, o, t, 3, 1, -0.5);
      check_dist<Kokkos::LayoutLeft, true>(comm, a, o, t, 1, 2, 0);
      Spmv mv(comm, Exec(), A, o);
      EXPECT_EQ(mv.setup().column_moves, moves);
      const auto [first, last] = mv.local_rows();
      if (moves == libra::dist::ColumnMoves::reduce_scatter) {
        EXPECT_EQ(first, std::min<std::int64_t>(a.rows, block * comm.rank()));
        EXPECT_EQ(last, std::min<std::int64_t>(a.rows, block * (comm.rank() + 1)));
        EXPECT_EQ(mv.rows_sent(), (comm.size() - 1) * block);
        EXPECT_FALSE(mv.setup().rows_by_columns);
      }
    }
  }
}

// A part cut into pieces of equal nonzeros, by hand: offsets 0 2 2 5 9 10 (five
// lines, ten nonzeros) in three pieces aim at nonzeros 0, 3 and 6: lines 0-2
// (nonzeros 0-4), line 3 (5-8), line 4 (9); each piece's offsets start at 0.
TEST(DistSpmv, PiecesCutByNonzeros) {
  using Offsets = Kokkos::View<std::size_t*, Exec::memory_space>;
  const std::vector<std::size_t> in = {0, 2, 2, 5, 9, 10};
  Offsets offsets("offsets", in.size());
  Kokkos::deep_copy(
      offsets, Kokkos::View<const std::size_t*, Kokkos::HostSpace>(in.data(), in.size()));
  const auto p = libra::dist::impl::cut_pieces(Exec(), offsets, 3);
  EXPECT_EQ(p.line, (std::vector<std::int64_t>{0, 3, 4, 5}));
  EXPECT_EQ(p.nz, (std::vector<std::int64_t>{0, 5, 9, 10}));
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.offsets);
  EXPECT_EQ(std::vector<std::size_t>(h.data(), h.data() + h.extent(0)),
            (std::vector<std::size_t>{0, 2, 2, 5, 0, 4, 0, 1}));
  // More pieces than lines: empty pieces hold one offset each.
  const auto q = libra::dist::impl::cut_pieces(Exec(), offsets, 7);
  EXPECT_EQ(q.line.front(), 0);
  EXPECT_EQ(q.line.back(), 5);
  EXPECT_EQ(q.offsets.extent(0), 12u);
  for (int c = 0; c < 7; ++c) EXPECT_LE(q.line[c], q.line[c + 1]);
  // One piece is the part itself: its offsets, not a copy.
  EXPECT_EQ(libra::dist::impl::cut_pieces(Exec(), offsets, 1).offsets.data(),
            offsets.data());
}

// y leaves each rank in pieces over every transport that can send them: one,
// several, more than the part has rows (empty pieces), alpha = 0; into y itself
// (beta 0, contiguous rows: a hub row shared by every part is added) or into a
// buffer merged afterwards; the others refuse pieces.
TEST(DistSpmv, RowsLeaveInPieces) {
  libra::dist::Comm comm;
  const auto a = libra::ref::random(90, 70, 5, 23, 0.2);
  const auto hub = [] {
    std::vector<libra::ref::Triplet> t;
    for (std::int64_t j = 0; j < 300; ++j) t.emplace_back(5, j, 1.0 + (j % 3));
    for (std::int64_t i = 0; i < 30; ++i) t.emplace_back(i, i % 7, 2.0);
    return libra::ref::from_triplets(30, 300, t);
  }();
  std::vector<Transport> ways;
  if (host_memory || libra::dist::impl::mpi_takes_cuda_pointers())
    ways.push_back(Transport::mpi);
  if (nccl_opens(comm)) ways.push_back(Transport::nccl);
  // Ranks sharing one GPU: neither NCCL nor a plain MPI sends pieces, copy
  // engines do.
  ASSERT_FALSE(ways.empty() && !copy_engines_open(comm)) << "nothing here sends pieces";
  std::vector<PieceMoves> moves{PieceMoves::transport, PieceMoves::automatic};
  if (copy_engines_open(comm)) moves.push_back(PieceMoves::copy_engines);
  for (PieceMoves m : moves) {
    // Copy engines take the pieces whatever the transport: the host one too.
    if (m == PieceMoves::copy_engines) {
      ways.push_back(Transport::host);
      EXPECT_TRUE(copy_engines_open(comm));
    }
    for (Transport t : ways) {
      for (int pieces : {1, 2, 5, 64}) {
        libra::dist::SpmvOptions o;
        o.transport = t;
        o.pieces = pieces;
        o.piece_moves = m;
        o.timing = pieces == 5;
        check_dist<Kokkos::LayoutLeft, true>(comm, a, o, t, 1, 1, 0);
        check_dist<Kokkos::LayoutRight, false>(comm, a, o, t, 3, 2, -0.5);
        check_dist<Kokkos::LayoutRight, false>(comm, hub, o, t, 3, 1, 0);   // into y
        check_dist<Kokkos::LayoutLeft, false>(comm, hub, o, t, 2, 0, 1.5);  // alpha = 0
        check_dist<Kokkos::LayoutLeft, true>(comm, hub, o, t, 1, -1, 0);
      }
    }
  }
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  libra::dist::SpmvOptions o;
  o.pieces = 2;
  o.transport = Transport::host;  // host copies send no pieces; copy engines do
  o.piece_moves = PieceMoves::transport;
  EXPECT_THROW(Spmv(comm, Exec(), A, o), libra::ArgumentError);
  o.piece_moves = PieceMoves::automatic;
  if (comm.size() > 1 && copy_engines_open(comm)) {
    EXPECT_EQ(Spmv(comm, Exec(), A, o).setup().piece_moves, PieceMoves::copy_engines);
  } else {
    EXPECT_THROW(Spmv(comm, Exec(), A, o), libra::ArgumentError);
  }
  // Pieces, asked for by count or by copy engines, are pCSR p-opt's alone.
  const auto refused_but_for_pcsr_p_opt = [&](libra::dist::SpmvOptions w) {
    w.format = PartFormat::coo;
    EXPECT_THROW(Spmv(comm, Exec(), A, w), libra::ArgumentError);
    w.format = PartFormat::csr;
    w.version = Version::p;
    EXPECT_THROW(Spmv(comm, Exec(), A, w), libra::ArgumentError);
  };
  o.transport = Transport::automatic;
  refused_but_for_pcsr_p_opt(o);
  o.pieces = -1;
  EXPECT_THROW(Spmv(comm, Exec(), A, o), libra::ArgumentError);
  // Copy engines: where they cannot open (a host space, a build without CUDA),
  // refused with the reason on every rank.
  o.pieces = 0;
  o.piece_moves = PieceMoves::copy_engines;
  refused_but_for_pcsr_p_opt(o);
  if (!copy_engines_open(comm)) {
    try {
      Spmv mv(comm, Exec(), A, o);
      ADD_FAILURE() << "copy engines were not refused";
    } catch (const libra::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("copy-engines: "), std::string::npos)
          << e.what();
    }
  }
}

// 200 x 120: row 2 holds 120 of the 184 nonzeros (a hub row), rows 10, 13, ...,
// 199 one each, the other rows none.
libra::ref::Matrix hub_row_matrix() {
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t j = 0; j < 120; ++j) t.emplace_back(2, j, 1.0 + (j % 4));
  for (std::int64_t i = 10; i < 200; i += 3) t.emplace_back(i, i % 50, -1.0);
  return libra::ref::from_triplets(200, 120, t);
}

// p and p-opt cut equal lines plus nonzeros where asked: a hub row (many
// nonzeros, one line) against many short rows, empty lines, every format;
// baseline refuses it.
TEST(DistSpmv, MergePathBalance) {
  libra::dist::Comm comm;
  const auto skewed = hub_row_matrix();
  const auto a = libra::ref::random(90, 70, 5, 29, 0.2);
  const auto empty = libra::ref::from_triplets(6, 4, {});
  for (PartFormat f : {PartFormat::csr, PartFormat::csc, PartFormat::coo}) {
    for (Version v : {Version::p, Version::p_opt}) {
      libra::dist::SpmvOptions o;
      o.format = f;
      o.version = v;
      o.balance = Balance::merge_path;
      o.timing = true;
      const Transport way = v == Version::p ? Transport::host : automatic_choice(comm);
      check_dist<Kokkos::LayoutLeft, true>(comm, skewed, o, way, 1, 1, 0);
      check_dist<Kokkos::LayoutRight, false>(comm, a, o, way, 2, 2, -0.5);
      check_dist<Kokkos::LayoutLeft, true>(comm, empty, o, way, 1, 1, 0);
    }
  }
  // The skewed matrix's cut differs from equal nonzeros where there are parts.
  if (comm.size() > 1) {
    const auto cut = merge_path_cut(skewed, PartFormat::csr, comm.size());
    EXPECT_GT(*std::max_element(cut.begin(), cut.end()) -
                  *std::min_element(cut.begin(), cut.end()),
              1);
  }
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  libra::dist::SpmvOptions o;
  o.version = Version::baseline;
  o.balance = Balance::merge_path;
  EXPECT_THROW(Spmv(comm, Exec(), A, o), libra::ArgumentError);
}

// cut_slack: cuts inside short lines move to a line's end, a cut inside a hub
// row stays; every format, p and p-opt, equal nonzeros and merge path, y
// gathered and kept on the ranks (check_dist), and the cuts as slack_firsts
// makes them (check_cut).
TEST(DistSpmv, CutSlack) {
  libra::dist::Comm comm;
  const auto hub = hub_row_matrix();
  const auto a = libra::ref::random(90, 70, 5, 31, 0.2);
  for (PartFormat f : {PartFormat::csr, PartFormat::csc, PartFormat::coo}) {
    for (Version v : {Version::p, Version::p_opt}) {
      for (Balance b : {Balance::nonzeros, Balance::merge_path}) {
        libra::dist::SpmvOptions o;
        o.format = f;
        o.version = v;
        o.balance = b;
        o.timing = true;
        const Transport way = v == Version::p ? Transport::host : automatic_choice(comm);
        for (double slack : {0.05, 1.0}) {
          o.cut_slack = slack;
          check_dist<Kokkos::LayoutLeft, true>(comm, hub, o, way, 1, 1, 0);
          check_dist<Kokkos::LayoutRight, false>(comm, a, o, way, 2, 2, -0.5);
        }
      }
    }
  }
  // By hand: with a whole part's slack no row of `a` (about 5 nonzeros a row)
  // is cut, so the parts' rows tile A's; the hub row (row 2: 120 of 184
  // nonzeros) stays cut at 2 ranks with 5% of a part's nonzeros (4), its cut
  // 28 nonzeros from the row's end.
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  const Csr H = comm.is_root()
                    ? libra::test::from_ref<double, int, std::size_t, Device>(hub)
                    : Csr();
  libra::dist::SpmvOptions o;
  o.cut_slack = 1;
  {
    Spmv mv(comm, Exec(), A, o);
    if (comm.is_root()) {
      std::int64_t lines = 0;
      for (auto n : mv.setup().part_lines) lines += n;
      EXPECT_EQ(lines, a.rows) << "no row in two parts";
    }
  }
  o.cut_slack = 0.05;
  if (comm.size() == 2) {
    Spmv mv(comm, Exec(), H, o);
    if (comm.is_root()) {
      EXPECT_EQ(mv.setup().part_nnz, (std::vector<std::int64_t>{92, 92}));
      EXPECT_EQ(mv.setup().part_lines, (std::vector<std::int64_t>{3, 198}))
          << "hub row cut";
    }
  }
  for (double bad : {-0.1, 1.5}) {
    o.cut_slack = bad;
    EXPECT_THROW(Spmv(comm, Exec(), A, o), libra::ArgumentError) << bad;
  }
  o.cut_slack = 0.1;
  o.version = Version::baseline;
  EXPECT_THROW(Spmv(comm, Exec(), A, o), libra::ArgumentError);
}

TEST(DistSpmv, MatrixFiles) {
  libra::dist::Comm comm;
  for (const auto& file : libra::test::matrix_files(libra::test::matrix_dir())) {
    SCOPED_TRACE(file);
    const auto a = libra::test::to_ref(
        libra::io::read_matrix<double, int, std::size_t, Device>(file));
    const std::pair<PartFormat, Version> ways[] = {{PartFormat::csr, Version::p_opt},
                                                   {PartFormat::csc, Version::p},
                                                   {PartFormat::coo, Version::baseline}};
    for (const auto& [f, v] : ways) {
      libra::dist::SpmvOptions o;
      o.format = f;
      o.version = v;
      const Transport expected =
          v != Version::p_opt ? Transport::host : automatic_choice(comm);
      check_dist<Kokkos::LayoutLeft, true>(comm, a, o, expected, 1, 1, 0);
      check_dist<Kokkos::LayoutRight, false>(comm, a, o, expected, 2, 1, 1);
    }
  }
}

TEST(DistSpmv, FailureOnOneRankIsThrownOnEvery) {
  libra::dist::Comm comm;
  const int last = comm.size() - 1;
  try {
    libra::dist::agreed(comm, [&] {
      if (comm.rank() == last) throw libra::InputError("m.mtx", 7, "bad entry");
    });
    ADD_FAILURE() << "no rank threw";
  } catch (const libra::dist::RemoteError& e) {
    EXPECT_EQ(e.rank(), last);
    EXPECT_EQ(e.kind(), libra::dist::FailureKind::input);
    EXPECT_EQ(e.message(), "m.mtx:7: bad entry");
    EXPECT_EQ(std::string(e.what()),
              "rank " + std::to_string(last) + ": m.mtx:7: bad entry");
  }
  // A wrong x on rank 0 stops every rank's set_x.
  const auto a = libra::ref::random(12, 9, 3, 5);
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  Spmv mv(comm, Exec(), A, {});
  Kokkos::View<double*, Device> wrong("x", 8);
  try {
    mv.set_x(wrong);
    ADD_FAILURE() << "set_x took an x of 8 rows for 9 columns";
  } catch (const libra::dist::RemoteError& e) {
    EXPECT_EQ(e.rank(), 0);
    EXPECT_EQ(e.kind(), libra::dist::FailureKind::shape);
  }
  // apply before any set_x: refused on every rank alike.
  Kokkos::View<double*, Device> y("y", 12);
  EXPECT_THROW(mv.apply(1.0, 0.0, y), libra::dist::RemoteError);
}

TEST(DistSpmv, RanksWithDifferentOptionsAreRefused) {
  libra::dist::Comm comm;
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks (ctest runs it with 2 and 3)";
  libra::dist::SpmvOptions o;
  if (comm.rank() == comm.size() - 1) o.format = PartFormat::csc;
  const auto a = libra::ref::random(12, 9, 3, 5);
  const Csr A =
      comm.is_root() ? libra::test::from_ref<double, int, std::size_t, Device>(a) : Csr();
  EXPECT_THROW(Spmv(comm, Exec(), A, o), libra::ArgumentError);
  libra::dist::SpmvOptions pieces;
  if (comm.rank() == comm.size() - 1) pieces.pieces = 2;
  EXPECT_THROW(Spmv(comm, Exec(), A, pieces), libra::ArgumentError);
}

TEST(DistSpmv, HostsAndRanks) {
  libra::dist::Comm comm;
  EXPECT_GE(comm.node_count(), 1);
  EXPECT_LT(comm.node_rank(), comm.node_size());
  EXPECT_LT(comm.node_index(), comm.node_count());
  int sum = comm.node_rank() == 0 ? comm.node_size() : 0;  // leaders count their ranks
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, comm.get());
  EXPECT_EQ(sum, comm.size());
}

}  // namespace dist_spmv_test
