// SpMM, Y = beta * Y + alpha * A * X, against the reference oracle: generated
// matrices (rectangular, empty rows and columns, 0 x 0, a single very long row),
// K = 1, 3, 8, 32, 128, 200, float and double, LayoutLeft and LayoutRight, alpha/beta
// combinations (beta = 0 with NaN in Y), the GPU kernel with dense-column
// staging forced on and off (host spaces run both GPU kernels too), and the
// matrices shipped in unit_tests/data (../shared/matrices in the executable
// labelled `shared`, compiled with LIBRA_TEST_SHARED_MATRICES).
#include <gtest/gtest.h>

#include <KokkosSparse_CrsMatrix.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "libra/io/read.hpp"
#include "libra/spmm/spmm.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/test_space.hpp"
#include "support/tool_events.hpp"

namespace spmm_test {

using libra::SpmmOptions;
using libra::SpmmPath;
using libra::SpmmStaging;
using libra::SpmmStats;
using libra::test::Device;
using libra::test::Exec;
using Left = Kokkos::LayoutLeft;
using Right = Kokkos::LayoutRight;

constexpr SpmmPath default_path =
    libra::LaunchTraits<Exec>::is_gpu ? SpmmPath::team_panels : SpmmPath::host_rows;

// Deterministic entries of X and Y, small integers over 8 (exact in float).
double x_value(std::int64_t i, std::int64_t k) {
  return static_cast<double>((i * 7 + k * 13 + 3) % 17 - 8) / 8.0;
}
double y_value(std::int64_t i, std::int64_t k) {
  return static_cast<double>((i * 5 + k * 3 + 1) % 11 - 5) / 4.0;
}

SpmmOptions team_kernel(SpmmStaging staging, int panel_items = 0, int scratch = 0) {
  SpmmOptions o;
  o.tuning.host_team_kernel = true;
  o.tuning.staging = staging;
  o.tuning.panel_items = panel_items;
  o.tuning.scratch_bytes = scratch;
  o.tuning.count_in_stats = true;
  return o;
}

// Runs spmm on Exec and compares every entry of Y with the oracle (on A's values
// as rounded to S): |error| <= tol * (|beta * y| + sum |alpha * a * x|).
template <class S, class LX, class LY>
SpmmStats check(const libra::ref::Matrix& a, int K, double alpha, double beta,
                const SpmmOptions& options = {}, SpmmPath path = default_path) {
  SCOPED_TRACE(std::string(sizeof(S) == 4 ? "float" : "double") + ", " +
               std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", nnz " +
               std::to_string(a.nnz()) + ", K = " + std::to_string(K) + ", X " +
               (std::is_same<LX, Left>::value ? "left" : "right") + ", Y " +
               (std::is_same<LY, Left>::value ? "left" : "right") + ", alpha " +
               std::to_string(alpha) + ", beta " + std::to_string(beta));
  const auto A = libra::test::from_ref<S, int, int, Device>(a);
  const libra::ref::Matrix ar = libra::test::to_ref(A);  // values rounded to S
  Kokkos::View<S**, LX, Device> X("X", a.cols, K);
  Kokkos::View<S**, LY, Device> Y("Y", a.rows, K);
  auto hx = Kokkos::create_mirror_view(X);
  auto hy = Kokkos::create_mirror_view(Y);
  std::vector<double> x(static_cast<std::size_t>(a.cols * K));
  std::vector<double> y(static_cast<std::size_t>(a.rows * K));
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t i = 0; i < a.cols; ++i) {
      hx(i, k) = static_cast<S>(x_value(i, k));
      x[k * a.cols + i] = hx(i, k);
    }
    for (std::int64_t i = 0; i < a.rows; ++i) {
      hy(i, k) =
          beta == 0 ? std::numeric_limits<S>::quiet_NaN() : static_cast<S>(y_value(i, k));
      y[k * a.rows + i] = hy(i, k);
    }
  }
  Kokkos::deep_copy(X, hx);
  Kokkos::deep_copy(Y, hy);
  SpmmStats stats;
  libra::spmm(Exec(), A, X, Y, alpha, beta, options, &stats);
  EXPECT_STREQ(libra::to_string(stats.path), libra::to_string(path));
  std::vector<double> scale;
  const auto expected = libra::ref::spmm(ar, K, x, alpha, beta, y, &scale);
  Kokkos::deep_copy(hy, Y);
  const double tol = sizeof(S) == 4 ? 1e-4 : 1e-12;
  int failures = 0;
  for (std::int64_t k = 0; k < K && failures < 5; ++k) {
    for (std::int64_t i = 0; i < a.rows && failures < 5; ++i) {
      const std::size_t e = static_cast<std::size_t>(k * a.rows + i);
      const double err = std::fabs(static_cast<double>(hy(i, k)) - expected[e]);
      if (!(err <= tol * scale[e])) {  // NaN fails too
        ADD_FAILURE() << "Y(" << i << ", " << k << ") = " << hy(i, k) << ", expected "
                      << expected[e] << " (error " << err << ", scale " << scale[e]
                      << ")";
        ++failures;
      }
    }
  }
  return stats;
}

// Every layout pair.
template <class S>
void check_layouts(const libra::ref::Matrix& a, int K, double alpha, double beta,
                   const SpmmOptions& options = {}, SpmmPath path = default_path) {
  check<S, Left, Left>(a, K, alpha, beta, options, path);
  check<S, Right, Right>(a, K, alpha, beta, options, path);
  check<S, Left, Right>(a, K, alpha, beta, options, path);
  check<S, Right, Left>(a, K, alpha, beta, options, path);
}

TEST(Spmm, RectangularEveryKLayoutAndScalar) {
  const auto a = libra::ref::random(300, 170, 6, 11);
  // 200: wider than a GPU thread's lanes times its sums, so the chunks are
  // walked once per block of columns, the last block partial. 33: on host
  // spaces a LayoutLeft X's blocks of 8 columns go outermost, the last of one.
  for (int K : {1, 3, 8, 32, 33, 128, 200}) {
    check_layouts<double>(a, K, 1, 0);
    check_layouts<float>(a, K, 1, 0);
  }
}

TEST(Spmm, AlphaBetaCombinations) {
  const auto a = libra::ref::random(120, 90, 5, 12);
  for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{
           {1, 0}, {2, 0}, {1, 1}, {2, -1}, {-0.5, 0.25}}) {
    check_layouts<double>(a, 8, alpha, beta);
    check_layouts<float>(a, 3, alpha, beta);
    check<double, Right, Right>(a, 32, alpha, beta, team_kernel(SpmmStaging::off),
                                SpmmPath::team_panels);
    check<double, Left, Left>(a, 8, alpha, beta, team_kernel(SpmmStaging::on, 64),
                              SpmmPath::team_staged);
  }
  // alpha = 0 only scales Y (beta = 0: NaN in Y become zeros).
  check_layouts<double>(a, 8, 0, 3, {}, SpmmPath::scale_only);
  check_layouts<double>(a, 8, 0, 0, {}, SpmmPath::scale_only);
  check_layouts<float>(a, 8, 0, 1, {}, SpmmPath::scale_only);
}

TEST(Spmm, EmptyRowsColumnsAndShapes) {
  // Half the rows empty, most columns never referenced.
  check_layouts<double>(libra::ref::random(200, 1000, 2, 13, 0.5), 8, 1, 0);
  check_layouts<double>(libra::ref::random(200, 1000, 2, 13, 0.5), 8, 2, 1,
                        team_kernel(SpmmStaging::off, 16), SpmmPath::team_panels);
  // Every row empty: Y = beta * Y.
  check_layouts<double>(libra::ref::from_triplets(7, 5, {}), 3, 1, 0, {},
                        SpmmPath::scale_only);
  check_layouts<double>(libra::ref::from_triplets(7, 5, {}), 3, 1, 2, {},
                        SpmmPath::scale_only);
  // No columns in A (X is 0 x K), no rows (Y is 0 x K), 0 x 0, K = 0.
  check_layouts<double>(libra::ref::from_triplets(4, 0, {}), 3, 1, 1, {},
                        SpmmPath::scale_only);
  check_layouts<double>(libra::ref::from_triplets(0, 6, {}), 3, 1, 0, {}, SpmmPath::none);
  check_layouts<double>(libra::ref::from_triplets(0, 0, {}), 4, 1, 0, {}, SpmmPath::none);
  check_layouts<double>(libra::ref::random(20, 20, 3, 14), 0, 1, 0, {}, SpmmPath::none);
}

libra::ref::Matrix long_row_matrix() {
  // Row 1 references every one of 30000 columns; rows 0 and 2..5 a few each.
  std::vector<libra::ref::Triplet> t;
  const std::int64_t cols = 30000;
  for (std::int64_t j = 0; j < cols; ++j)
    t.emplace_back(1, j, static_cast<double>(j % 9 - 4) / 4.0);
  for (std::int64_t r : {0, 2, 3, 5}) {
    for (std::int64_t j = r; j < cols; j += 7919) t.emplace_back(r, j, 1.0 + r);
  }
  return libra::ref::from_triplets(6, cols, std::move(t));
}

// The chunk boundaries that lie strictly inside a row (what stats.carries
// counts for the chunk kernel), by walking the merge path one step at a time:
// row i ends once its nonzeros are consumed (an empty row at once), and
// boundary t lies after t * items steps.
std::uint64_t boundaries_inside_rows(const libra::ref::Matrix& a, std::int64_t items) {
  std::uint64_t inside = 0;
  std::int64_t i = 0, j = 0;  // rows ended, nonzeros consumed
  for (std::int64_t d = 1; d < a.rows + a.nnz(); ++d) {
    if (i < a.rows && j == a.ptr[static_cast<std::size_t>(i) + 1]) {
      ++i;
    } else {
      ++j;
    }
    if (d % items == 0 && i < a.rows && j > a.ptr[static_cast<std::size_t>(i)]) ++inside;
  }
  return inside;
}

TEST(Spmm, SingleVeryLongRow) {
  const auto a = long_row_matrix();
  for (int K : {1, 8, 32}) {
    check<double, Right, Right>(a, K, 1, 0);
    check<double, Left, Left>(a, K, 2, -1);
    check<float, Right, Left>(a, K, 1, 0);
    // Small panels: the long row spans hundreds of them, carried and added after.
    const auto st = check<double, Right, Right>(
        a, K, 2, -1, team_kernel(SpmmStaging::off, 64), SpmmPath::team_panels);
    EXPECT_GT(st.carries, 100u);
    EXPECT_EQ(st.carries, boundaries_inside_rows(a, 64));
    check<double, Left, Right>(a, K, 1, 0, team_kernel(SpmmStaging::on, 64),
                               SpmmPath::team_staged);
  }
}

TEST(Spmm, DenseColumnStagingOnAndOff) {
  // 40 columns and 8 entries a row: panels reference most columns several times.
  const auto a = libra::ref::random(500, 40, 8, 15);
  for (int K : {1, 3, 8, 32, 128}) {
    const auto on = check<double, Right, Right>(
        a, K, 1, 0, team_kernel(SpmmStaging::on, 256), SpmmPath::team_staged);
    EXPECT_GT(on.staged_rows, 0u);
    EXPECT_GT(on.staged_reads, on.staged_rows);  // each staged row serves >= 2 reads
    EXPECT_LE(on.staged_reads, static_cast<std::uint64_t>(a.nnz()));
    const auto off = check<double, Right, Right>(
        a, K, 1, 0, team_kernel(SpmmStaging::off, 256), SpmmPath::team_panels);
    EXPECT_EQ(off.staged_rows, 0u);
    EXPECT_EQ(off.staged_reads, 0u);
    check<float, Left, Left>(a, K, 2, 0.5, team_kernel(SpmmStaging::on, 256),
                             SpmmPath::team_staged);
  }
  // Scratch for only a few rows of X: the dense columns beyond them read global
  // memory, and the result is the same.
  const auto few = check<double, Right, Left>(
      a, 8, 1, 1, team_kernel(SpmmStaging::on, 256, 300), SpmmPath::team_staged);
  EXPECT_GT(few.staged_rows, 0u);
  EXPECT_LE(few.staged_rows, few.panels * 4);
  // Automatic staging is off today (README "SpMM").
  check<double, Right, Right>(a, 8, 1, 0, team_kernel(SpmmStaging::automatic),
                              SpmmPath::team_panels);
  // Scratch too small for one row of X: the plain kernel runs.
  check<double, Right, Right>(a, 128, 1, 0, team_kernel(SpmmStaging::on, 256, 512),
                              SpmmPath::team_panels);
}

// The chunk kernel loading one column at a time (PairedColumnLoads turns pairs on).
SpmmOptions column_blocks(int block, int lanes = 0, int panel_items = 0) {
  SpmmOptions o = team_kernel(SpmmStaging::off, panel_items);
  o.tuning.column_block = block;
  o.tuning.vector_lanes = lanes;
  o.tuning.paired_columns = SpmmStaging::off;
  return o;
}

// Blocks of columns the chunk kernel should run: lanes a power of two up to the
// block's width (and the space's and the option's limit), up to 8 sums a lane.
std::uint64_t expected_blocks(int K, int block, int lanes_limit) {
  const int want = std::max(1, std::min(K, block));
  int lanes = 1;
  while (lanes < want && lanes < lanes_limit) lanes *= 2;
  const int width = lanes * std::min(8, (want + lanes - 1) / lanes);
  return static_cast<std::uint64_t>((K + width - 1) / width);
}

TEST(Spmm, ChunkKernelColumnBlocks) {
  // Y's columns in blocks of 1 up to all of them, each block a pass of the
  // league over every chunk; rows cut by chunks (16 items) and beta != 0.
  const auto a = libra::ref::random(260, 150, 7, 17);
  const int space_lanes = libra::LaunchTraits<Exec>::vector_lanes;
  for (int K : {1, 3, 8, 33, 200}) {
    for (int block : {1, 2, 3, 5, 8, 16, 64, 1000}) {
      const auto st = check<double, Right, Right>(
          a, K, 2, -1, column_blocks(block, 0, 16), SpmmPath::team_panels);
      EXPECT_EQ(st.column_blocks, expected_blocks(K, block, space_lanes))
          << "K " << K << ", block " << block;
      EXPECT_GT(st.carries, 0u);
      EXPECT_EQ(st.carries, boundaries_inside_rows(a, 16)) << "K " << K;
      check<float, Left, Right>(a, K, 1, 0, column_blocks(block), SpmmPath::team_panels);
    }
    // Fewer lanes than the block's width: each lane sums up to 8 columns (a
    // kernel keeping 4 sums a lane up to 4, another keeping 8 beyond).
    const auto st = check<double, Left, Left>(a, K, 1, 0.5, column_blocks(16, 4),
                                              SpmmPath::team_panels);
    EXPECT_EQ(st.column_blocks, expected_blocks(K, 16, std::min(4, space_lanes)));
    const auto eight = check<double, Right, Left>(a, K, 2, 0, column_blocks(32, 4),
                                                  SpmmPath::team_panels);
    EXPECT_EQ(eight.column_blocks, expected_blocks(K, 32, std::min(4, space_lanes)));
  }
  // The default: one block of up to 8 sums a lane, so K = 200 takes one on a
  // GPU (32 lanes x 7 sums, or x 4 pairs of columns), 25 on a host space (one lane).
  const auto st = check<double, Right, Right>(a, 200, 1, 0, team_kernel(SpmmStaging::off),
                                              SpmmPath::team_panels);
  EXPECT_EQ(st.column_blocks, libra::LaunchTraits<Exec>::is_gpu ? 1u : 25u);
}

TEST(Spmm, ChunkLengthFollowsSizeAndK) {
  // Merge-path steps (rows + nonzeros) per chunk when the caller sets none: 16
  // below 2^16 steps; K <= 8 32 beyond 2^20; K <= 16 16 below 2^18, and
  // 16 < K <= 32 16 below 2^20, then 32 below 2^21, 64 beyond; wider K 32 below
  // 2^18, 64 beyond. And the vector lanes a chunk takes.
  struct Case {
    std::int64_t rows;
    int K;
    std::int64_t items;
    int lanes;  // on a GPU (a host space takes one)
  };
  const int space_lanes = libra::LaunchTraits<Exec>::vector_lanes;
  for (const Case& c :
       {Case{300, 8, 16, 8}, Case{300, 32, 16, 16}, Case{20000, 8, 16, 8},
        Case{20000, 32, 16, 16}, Case{20000, 128, 32, 32}, Case{60000, 32, 16, 8},
        Case{60000, 128, 64, 32}, Case{200000, 8, 32, 8},
        // From 2^18 steps at 16 < K <= 32: 8 lanes, four chunks a warp.
        Case{200000, 32, 32, 8}, Case{340000, 32, 64, 8}}) {
    const auto a = libra::ref::random(c.rows, 500, 6, 19);
    const std::int64_t steps = a.rows + a.nnz();
    const auto st = check<double, Right, Right>(
        a, c.K, 1, 0, team_kernel(SpmmStaging::off), SpmmPath::team_panels);
    EXPECT_EQ(st.panels, static_cast<std::uint64_t>((steps + c.items - 1) / c.items))
        << c.rows << " rows (" << steps << " steps), K " << c.K;
    EXPECT_EQ(st.lanes, std::min(c.lanes, space_lanes))
        << c.rows << " rows (" << steps << " steps), K " << c.K;
  }
}

TEST(Spmm, LayoutLeftXCopiedRowMajor) {
  // The team kernels take a row-major copy of a LayoutLeft X (forced here on
  // every space), and the result is the same.
  const auto a = libra::ref::random(300, 170, 6, 20);
  for (int K : {1, 3, 8, 33, 128}) {
    for (SpmmStaging copy : {SpmmStaging::on, SpmmStaging::off}) {
      SpmmOptions o = team_kernel(SpmmStaging::off, 16);
      o.tuning.row_major_x = copy;
      const auto left = check<double, Left, Left>(a, K, 2, -1, o, SpmmPath::team_panels);
      EXPECT_EQ(left.x_row_major_copy, copy == SpmmStaging::on) << "K " << K;
      check<float, Left, Right>(a, K, 1, 0, o, SpmmPath::team_panels);
      // A row-major X is never copied.
      const auto right = check<double, Right, Left>(a, K, 1, 0, o, SpmmPath::team_panels);
      EXPECT_FALSE(right.x_row_major_copy);
    }
  }
  // The default: on GPUs for K >= 16 and X of 2^15 entries or more; host spaces
  // never (their own kernel reads either layout, and automatic leaves the GPU
  // kernel on a host space uncopied).
  const auto b = libra::ref::random(150, 400, 5, 21);
  for (int K : {8, 16, 64, 128}) {
    for (const auto* m : {&a, &b}) {
      const bool gpu_copies = libra::LaunchTraits<Exec>::is_gpu && K >= 16 &&
                              m->cols * K >= (std::int64_t(1) << 15);
      const auto st = check<double, Left, Right>(
          *m, K, 1, 0, team_kernel(SpmmStaging::off), SpmmPath::team_panels);
      EXPECT_EQ(st.x_row_major_copy, gpu_copies) << m->cols << " x " << K;
      const auto d = check<double, Left, Left>(*m, K, 1, 0);
      EXPECT_EQ(d.x_row_major_copy, gpu_copies) << m->cols << " x " << K;
    }
  }
}

TEST(Spmm, PairedColumnLoads) {
  // The chunk kernel loads two adjacent columns of a row-major X at once (forced
  // on every space), with rows cut by chunks, beta != 0, and blocks of columns
  // and lanes that leave a lane one pair or several.
  const auto a = libra::ref::random(260, 150, 7, 22);
  const int space_lanes = libra::LaunchTraits<Exec>::vector_lanes;
  for (int K : {2, 8, 32, 128, 200}) {
    for (int block : {0, 2, 6, 64}) {
      for (int lanes : {0, 2}) {
        SpmmOptions o = column_blocks(block, lanes, 16);
        o.tuning.paired_columns = SpmmStaging::on;
        const auto st =
            check<double, Right, Right>(a, K, 2, -1, o, SpmmPath::team_panels);
        EXPECT_TRUE(st.paired_columns) << "K " << K;
        EXPECT_EQ(st.carries, boundaries_inside_rows(a, 16)) << "K " << K;
        const auto f = check<float, Right, Left>(a, K, 1, 0, o, SpmmPath::team_panels);
        EXPECT_TRUE(f.paired_columns) << "K " << K;
        // Each lane loads up to 4 pairs: lanes from half the block, up to the limit.
        const int limit = lanes > 0 ? std::min(lanes, space_lanes) : space_lanes;
        const int want = std::max(1, std::min(K, block > 0 ? block : K));
        int l = 1;
        while (2 * l < want && l < limit) l *= 2;
        const int width = 2 * l * std::min(4, (want + 2 * l - 1) / (2 * l));
        EXPECT_EQ(st.column_blocks, static_cast<std::uint64_t>((K + width - 1) / width))
            << "K " << K << ", block " << block << ", lanes " << lanes;
      }
    }
  }
  // Not where X cannot give aligned pairs: odd K, LayoutLeft X (not copied).
  SpmmOptions o = team_kernel(SpmmStaging::off, 16);
  o.tuning.paired_columns = SpmmStaging::on;
  o.tuning.row_major_x = SpmmStaging::off;
  EXPECT_FALSE((check<double, Right, Right>(a, 33, 1, 0, o, SpmmPath::team_panels))
                   .paired_columns);
  EXPECT_FALSE(
      (check<double, Left, Right>(a, 32, 1, 0, o, SpmmPath::team_panels)).paired_columns);
  // ... nor rows that start one entry off an aligned pair.
  Kokkos::View<double*, Device> storage("storage", 2 * 32 + 2);
  const Kokkos::View<const double**, Right, Device, Kokkos::MemoryUnmanaged> shifted(
      storage.data() + 1, 2, 32);
  EXPECT_FALSE(libra::impl::spmm_pairs_columns<Exec>(o, shifted, 32));
  const Kokkos::View<const double**, Right, Device, Kokkos::MemoryUnmanaged> aligned(
      storage.data(), 2, 32);
  EXPECT_TRUE(libra::impl::spmm_pairs_columns<Exec>(o, aligned, 32));
  o.tuning.paired_columns = SpmmStaging::off;
  EXPECT_FALSE(libra::impl::spmm_pairs_columns<Exec>(o, aligned, 32));
  // The default: GPUs for K >= 16 (an even K on a row-major X), host spaces never.
  o.tuning.paired_columns = SpmmStaging::automatic;
  for (int K : {8, 16, 128}) {
    const auto st = check<double, Right, Right>(a, K, 1, 0, o, SpmmPath::team_panels);
    EXPECT_EQ(st.paired_columns, libra::LaunchTraits<Exec>::is_gpu && K >= 16) << K;
  }
}

TEST(Spmm, ChunkKernelAllocatesNothingAndDoesNotFence) {
  // No temporaries and no synchronisation: a caller's loop of products queues
  // on the execution space instance (the staged kernel still allocates).
  const auto a = libra::ref::random(400, 300, 9, 18);
  const auto A = libra::test::from_ref<double, int, int, Device>(a);
  Kokkos::View<double**, Right, Device> X("X", a.cols, 32), Y("Y", a.rows, 32);
  Kokkos::deep_copy(X, 0.5);
  Kokkos::fence();
  for (double beta : {0.0, 1.0, 2.0}) {
    libra::test::ToolEvents events;
    SpmmOptions o = team_kernel(SpmmStaging::off, 16);
    o.tuning.count_in_stats = false;
    libra::spmm(Exec(), A, X, Y, 1.0, beta, o);
    SpmmStats stats;  // stats without counts: no synchronisation either
    libra::spmm(Exec(), A, X, Y, 1.0, beta, o, &stats);
    for (const auto& e : events.stop()) ADD_FAILURE() << "beta " << beta << ": " << e;
    Kokkos::fence();
    EXPECT_STREQ(libra::to_string(stats.path), "team_panels");
    EXPECT_GT(stats.panels, 1u);
    EXPECT_EQ(stats.carries, 0u);  // not counted
  }
  // The callbacks do see what the staged kernel allocates.
  libra::test::ToolEvents events(libra::test::ToolEvents::allocations);
  libra::spmm(Exec(), A, X, Y, 1.0, 0.0, team_kernel(SpmmStaging::on, 256));
  EXPECT_FALSE(events.stop().empty());
  Kokkos::fence();
}

TEST(Spmm, KokkosCrsMatrixAndShapeErrors) {
  const auto a = libra::ref::random(30, 20, 4, 16);
  const auto A = libra::test::from_ref<double, int, int, Device>(a);
  const auto K = libra::to_kokkos(A);
  Kokkos::View<double**, Right, Device> X("X", 20, 4), Y("Y", 30, 4), Z("Z", 30, 4);
  Kokkos::deep_copy(X, 1.0);
  libra::spmm(Exec(), K, X, Y);
  libra::spmm(Exec(), A, X, Z, 1.0, 0.0);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  auto hz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Z);
  const auto row_sums = libra::ref::spmv(a, std::vector<double>(20, 1.0));
  for (int i = 0; i < 30; ++i) {
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(hy(i, k), row_sums[i], 1e-12);
      EXPECT_EQ(hy(i, k), hz(i, k));
    }
  }
  Kokkos::View<double**, Right, Device> wrong_x("X", 21, 4), wrong_y("Y", 30, 5);
  EXPECT_THROW(libra::spmm(Exec(), A, wrong_x, Y), libra::ShapeError);
  EXPECT_THROW(libra::spmm(Exec(), A, X, wrong_y), libra::ShapeError);
  EXPECT_THROW(libra::spmm(Exec(), A, Y, X), libra::ShapeError);
}

using libra::test::matrix_files;

std::string data_dir() {
  return libra::test::matrix_dir();
}

TEST(Spmm, EveryMatrixFile) {
  const auto files = matrix_files(data_dir());
  ASSERT_GE(files.size(), 6u) << "matrices expected in " << data_dir();
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const auto A = libra::io::read_matrix<double, int, int, Device>(f);
    const auto a = libra::test::to_ref(A);
    check<double, Right, Right>(a, 8, 1, 0);
    check<double, Left, Left>(a, 32, 2, -1);
    check<double, Right, Right>(a, 32, 1, 0, team_kernel(SpmmStaging::on),
                                SpmmPath::team_staged);
    check<double, Left, Right>(a, 8, 1, 1, team_kernel(SpmmStaging::off),
                               SpmmPath::team_panels);
  }
}

}  // namespace spmm_test
