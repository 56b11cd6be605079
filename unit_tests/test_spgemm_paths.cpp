// Which compress path ran, what the handle's memory does over repeated calls, and
// what a failing or misused call leaves behind. Every product is also compared
// with the reference oracle.
#include <gtest/gtest.h>

#include <KokkosSparse_CrsMatrix.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/format/convert.hpp"
#include "libra/format/mirror.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "support/compare.hpp"
#include "support/test_space.hpp"

namespace spgemm_paths_test {

using libra::test::Device;
using libra::test::Exec;
using Csr = libra::Csr<double, int, int, Device>;
using mem = Exec::memory_space;
constexpr bool on_gpu = libra::LaunchTraits<Exec>::is_gpu;

// GPU or host is the space's type, not its memory's accessibility.
static_assert(!libra::LaunchTraits<Kokkos::DefaultHostExecutionSpace>::is_gpu);
#if defined(KOKKOS_ENABLE_SERIAL)
static_assert(!libra::LaunchTraits<Kokkos::Serial>::is_gpu);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
static_assert(!libra::LaunchTraits<Kokkos::OpenMP>::is_gpu);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
static_assert(libra::LaunchTraits<Kokkos::Cuda>::is_gpu);
static_assert(libra::LaunchTraits<Kokkos::Cuda>::vector_lanes == 32);
// With CUDA_UVM this memory is host-accessible; the launch shape must not care.
static_assert(
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::CudaUVMSpace>::accessible);
#endif

// These tests walk lbGEMM's paths and chunks (test_spgemm_panel.cpp walks the
// panel algorithm's).
libra::SpgemmOptions outer_options() {
  libra::SpgemmOptions o;
  o.algorithm = libra::SpgemmAlgorithm::outer;
  return o;
}

Csr device(const libra::ref::Matrix& m) {
  return libra::test::from_ref<double, int, int, Device>(m);
}

// C == the oracle's A * B (pattern exactly; values within 1e-12 of each row's
// largest product). Rows of C may be unsorted when `sorted` is false.
void expect_oracle(const libra::ref::Matrix& a, const libra::ref::Matrix& b, const Csr& C,
                   bool sorted = true) {
  std::vector<double> largest;
  const auto expected = libra::ref::spgemm(a, b, &largest);
  auto got = libra::test::to_ref(C);
  if (!sorted)
    got = libra::ref::from_triplets(got.rows, got.cols, libra::ref::to_triplets(got));
  EXPECT_TRUE(libra::test::same_matrix(expected, got, 1e-12, &largest));
}

libra::SpgemmStats multiply(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                            const libra::SpgemmOptions& options, bool sorted = true) {
  libra::SpgemmStats st;
  const Csr C = libra::spgemm(Exec(), device(a), device(b), options, &st);
  EXPECT_EQ(st.algorithm, options.algorithm);
  expect_oracle(a, b, C, sorted);
  return st;
}

// Rows of A whose products exceed scratch (900 entries over a B of 12 per row)
// above 100 short rows, times a wide B.
libra::ref::Matrix long_rows_a() {
  auto t = libra::ref::to_triplets(libra::ref::random(40, 2000, 900, 21, 0.0));
  for (auto e : libra::ref::to_triplets(libra::ref::random(100, 2000, 3, 23, 0.0))) {
    std::get<0>(e) += 40;
    t.push_back(e);
  }
  return libra::ref::from_triplets(140, 2000, t);
}
libra::ref::Matrix wide_b() {
  return libra::ref::random(2000, 9000, 12, 22, 0.0);
}

// Rows of A * B that have at least one product: what each path's counts add to.
std::uint64_t rows_with_products(const libra::ref::Matrix& a,
                                 const libra::ref::Matrix& b) {
  const auto c = libra::ref::spgemm(a, b);
  std::uint64_t n = 0;
  for (std::int64_t i = 0; i < c.rows; ++i) n += c.ptr[i + 1] > c.ptr[i];
  return n;
}

TEST(SpgemmPaths, DefaultPathOfTheSpace) {
  const auto st = multiply(long_rows_a(), wide_b(), outer_options());
  if (on_gpu) {
    EXPECT_EQ(st.paths.host_dense, 0u);
    EXPECT_GT(st.paths.bitmap, 0u);
    EXPECT_GT(st.paths.accumulate_dense + st.paths.accumulate_in_place, 0u);
  } else {
    const auto rows = rows_with_products(long_rows_a(), wide_b());
    EXPECT_GT(rows, 100u);
    EXPECT_EQ(st.paths.host_dense, rows);
    EXPECT_EQ(st.paths.accumulate_host_dense, rows);
    EXPECT_EQ(st.paths.sort_in_scratch + st.paths.bitmap, 0u);
    EXPECT_EQ(st.paths.accumulate_in_scratch + st.paths.accumulate_dense +
                  st.paths.accumulate_in_place,
              0u);
  }
}

libra::SpgemmOptions gpu_style() {
  libra::SpgemmOptions o = outer_options();
  o.dense_accumulator = false;  // host spaces take the GPU kernels too
  return o;
}

TEST(SpgemmPaths, GpuStyleWalksScratchBitmapAndDense) {
  const auto st = multiply(long_rows_a(), wide_b(), gpu_style());
  EXPECT_EQ(st.paths.host_dense, 0u);
  EXPECT_GT(st.paths.sort_in_scratch, 0u);
  EXPECT_GT(st.paths.bitmap, 0u);
  EXPECT_EQ(st.paths.sort_in_scratch + st.paths.bitmap,
            rows_with_products(long_rows_a(), wide_b()));
  EXPECT_GT(st.paths.accumulate_in_scratch, 0u);
  EXPECT_GT(st.paths.accumulate_dense, 0u);
  EXPECT_EQ(st.paths.accumulate_in_place, 0u);
}

TEST(SpgemmPaths, InPlaceAccumulatorWhenDenseArraysAreOff) {
  auto o = gpu_style();
  o.tuning.dense_long_rows = false;
  const auto st = multiply(long_rows_a(), wide_b(), o);
  EXPECT_GT(st.paths.accumulate_in_place, 0u);
  EXPECT_EQ(st.paths.accumulate_dense, 0u);
}

TEST(SpgemmPaths, SmallScratchSendsShortRowsToTheLongRowPaths) {
  // 256 bytes of scratch hold 32 products: most rows of this graph go to the
  // bitmap and dense paths, on a matrix small enough for every test run.
  const auto g = libra::ref::random(600, 600, 20, 31);
  auto o = gpu_style();
  o.tuning.scratch_bytes = 256;
  auto st = multiply(g, g, o);
  EXPECT_GT(st.paths.bitmap, st.paths.sort_in_scratch);
  EXPECT_GT(st.paths.accumulate_dense, 0u);
  o.tuning.dense_long_rows = false;
  st = multiply(g, g, o);
  EXPECT_GT(st.paths.accumulate_in_place, 0u);
}

TEST(SpgemmPaths, HostTeamsOfSeveralThreads) {
  // Host spaces normally run one thread per team; here the GPU-style kernels run
  // with several, so the team sorts, barriers and scratch atomics are exercised.
  const int max_team = libra::test::max_team_threads();
  if (!on_gpu && max_team < 2) {
    GTEST_SKIP() << Exec::name() << " runs teams of one thread (" << Exec().concurrency()
                 << " in all); the OpenMP build of this test runs the path";
  }
  auto o = gpu_style();
  o.tuning.host_team_threads = std::min(4, max_team);
  const auto g = libra::ref::random(800, 800, 25, 41);
  const auto st = multiply(g, g, o);
  EXPECT_GT(st.paths.sort_in_scratch, 0u);
  EXPECT_GT(st.paths.accumulate_in_scratch, 0u);
  o.tuning.scratch_bytes = 256;
  const auto st2 = multiply(g, g, o);
  EXPECT_GT(st2.paths.bitmap, 0u);
  EXPECT_GT(st2.paths.accumulate_dense, 0u);
}

TEST(SpgemmPaths, UnsortedColumnsWhenAllowed) {
  const auto g = libra::ref::random(700, 700, 15, 51);
  libra::SpgemmOptions o = outer_options();
  o.sort_columns = false;
  const auto st = multiply(g, g, o, /*sorted=*/false);
  if (on_gpu) {
    EXPECT_EQ(st.paths.unsorted, 0u);  // GPU accumulators need sorted rows
  } else {
    EXPECT_EQ(st.paths.unsorted, st.paths.host_dense);
    EXPECT_GT(st.paths.unsorted, 0u);
  }
  // Chunk merges need sorted rows: several chunks sort whatever the option says.
  o.memory_budget = 900'000;
  const auto chunked = multiply(g, g, o);
  EXPECT_GE(chunked.chunks, 2);
  EXPECT_EQ(chunked.paths.unsorted, 0u);
}

// Values of a host-space product do not depend on the run or the thread count
// (one row per thread, products summed in k order); chunking changes only the
// last bits. GPU values may differ in the last bits from run to run (scratch
// atomics): there, only the pattern and the tolerance are checked.
TEST(SpgemmReproducibility, SameChunkingSameBits) {
  const auto g = libra::ref::random(900, 900, 14, 57);
  const Csr A = device(g);
  const auto once = libra::test::to_ref(libra::spgemm(Exec(), A, A, outer_options()));
  const auto again = libra::test::to_ref(libra::spgemm(Exec(), A, A, outer_options()));
  EXPECT_EQ(once.ptr, again.ptr);
  EXPECT_EQ(once.col, again.col);
  if (!on_gpu) EXPECT_EQ(once.val, again.val);
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (!on_gpu && !std::is_same_v<Exec, Kokkos::Serial>) {
    using SerialDevice = Kokkos::Device<Kokkos::Serial, Kokkos::HostSpace>;
    const auto As = libra::test::from_ref<double, int, int, SerialDevice>(g);
    const auto one_thread =
        libra::test::to_ref(libra::spgemm(Kokkos::Serial(), As, As, outer_options()));
    EXPECT_EQ(one_thread.val, once.val);  // threads: Exec's concurrency vs 1
  }
#endif
  libra::SpgemmOptions o = outer_options();
  o.memory_budget = 1'300'000;
  libra::SpgemmStats st;
  const auto chunked = libra::test::to_ref(libra::spgemm(Exec(), A, A, o, &st));
  EXPECT_GE(st.chunks, 2);
  expect_oracle(g, g, device(chunked));
}

// Live bytes of every Kokkos allocation, and the most there were, through Kokkos
// Tools' allocation callbacks: an outside view of what Libra allocates.
struct AllocationMeter {
  static inline std::int64_t live = 0;
  static inline std::int64_t high = 0;
  // Blocks of Libra's workspaces: live bytes, their high-water mark, and bytes
  // ever allocated.
  static inline std::int64_t workspace_live = 0;
  static inline std::int64_t workspace_high = 0;
  static inline std::int64_t workspace_allocated = 0;
  static bool is_workspace(const char* label) {
    return std::string(label) == "libra::workspace";
  }
  static void on_alloc(Kokkos_Profiling_SpaceHandle, const char* label, const void*,
                       std::uint64_t size) {
    live += static_cast<std::int64_t>(size);
    high = std::max(high, live);
    if (is_workspace(label)) {
      workspace_allocated += static_cast<std::int64_t>(size);
      workspace_live += static_cast<std::int64_t>(size);
      workspace_high = std::max(workspace_high, workspace_live);
    }
  }
  static void on_free(Kokkos_Profiling_SpaceHandle, const char* label, const void*,
                      std::uint64_t size) {
    live -= static_cast<std::int64_t>(size);
    if (is_workspace(label)) workspace_live -= static_cast<std::int64_t>(size);
  }
  AllocationMeter() {
    live = high = workspace_live = workspace_high = workspace_allocated = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(&on_alloc);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(&on_free);
  }
  ~AllocationMeter() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  }
  void restart_high() { high = live; }
};

void repeated_numeric_keeps_memory_flat(const libra::SpgemmOptions& options,
                                        int min_chunks) {
  const auto g = libra::ref::random(1500, 1500, 12, 61);
  const Csr A = device(g);
  libra::release_cached_memory<mem>();
  AllocationMeter meter;
  libra::SpgemmHandle<double, int, int, Device> handle(options);
  Csr C;
  libra::spgemm_symbolic(Exec(), handle, A, A, C);
  libra::spgemm_numeric(Exec(), handle, A, A, C);
  ASSERT_GE(handle.stats().chunks, min_chunks);
  const std::size_t held = handle.workspace_bytes();
  const std::size_t peak = handle.stats().peak_bytes;
  // Libra's own accounting equals what it really held for temporaries (the
  // cache was empty, so every block the workspace used was allocated here).
  EXPECT_EQ(static_cast<std::int64_t>(peak), AllocationMeter::workspace_high);
  EXPECT_EQ(static_cast<std::int64_t>(held), AllocationMeter::workspace_live);
  const std::int64_t allocated_first = AllocationMeter::workspace_allocated;
  const std::int64_t live_after_first = AllocationMeter::live;
  const std::int64_t high_first = AllocationMeter::high;
  meter.restart_high();
  for (int k = 0; k < 100; ++k) libra::spgemm_numeric(Exec(), handle, A, A, C);
  EXPECT_EQ(handle.workspace_bytes(), held);
  EXPECT_EQ(handle.stats().peak_bytes, peak);
  EXPECT_EQ(AllocationMeter::live, live_after_first);
  EXPECT_LE(AllocationMeter::high, high_first);
  EXPECT_EQ(AllocationMeter::workspace_allocated, allocated_first);  // nothing new
  expect_oracle(g, g, C);
  if (options.memory_budget) EXPECT_LE(peak, options.memory_budget);
}

TEST(SpgemmWorkspace, HundredNumericCallsStayFlat) {
  repeated_numeric_keeps_memory_flat({}, 1);
}

TEST(SpgemmWorkspace, HundredChunkedNumericCallsStayFlat) {
  libra::SpgemmOptions o = outer_options();
  o.memory_budget = 2'000'000;
  repeated_numeric_keeps_memory_flat(o, 3);
}

TEST(SpgemmWorkspace, GpuStyleNumericCallsStayFlat) {
  auto o = gpu_style();
  o.tuning.scratch_bytes = 512;  // long-row paths and their per-team arrays too
  repeated_numeric_keeps_memory_flat(o, 1);
}

TEST(SpgemmWorkspace, RepeatedOneShotCallsAllocateNothing) {
  // The small-product fixed cost: after the first call, one-shot spgemm calls of
  // the same shape take every temporary from the block cache (no cudaMalloc or
  // cudaFree on a GPU). Only C itself is allocated.
  for (const bool gpu_path : {false, true}) {
    const auto g = libra::ref::random(300, 300, 6, 63);
    const Csr A = device(g);
    libra::SpgemmOptions o = gpu_path ? gpu_style() : outer_options();
    o.tuning.scratch_bytes = gpu_path ? 1024 : 0;  // long-row paths too
    libra::release_cached_memory<mem>();
    (void)libra::spgemm(Exec(), A, A, o);
    (void)libra::spgemm(Exec(), A, A, o);
    AllocationMeter meter;
    for (int k = 0; k < 5; ++k) (void)libra::spgemm(Exec(), A, A, o);
    EXPECT_EQ(AllocationMeter::workspace_allocated, 0) << "GPU-style path: " << gpu_path;
  }
}

TEST(SpgemmWorkspace, NoDenseAccumulatorWithoutLongRows) {
  // Many columns, short rows: the per-team dense arrays (slots x columns x 8
  // bytes) would dwarf everything else, and no row needs them.
  const auto a = libra::ref::random(300, 300, 4, 71);
  const auto b = libra::ref::random(300, 2'000'000, 4, 72);
  const auto st = multiply(a, b, gpu_style());
  EXPECT_EQ(st.paths.accumulate_dense + st.paths.accumulate_in_place, 0u);
  EXPECT_LT(st.peak_bytes, 2'000'000u * sizeof(double));
}

TEST(SpgemmWorkspace, PublicResultsNeverLiveInTheWorkspace) {
  // A caller converting matrices inside the progress callback, while the handle's
  // workspace is in use, gets matrices that own their memory.
  const auto g = libra::ref::random(400, 400, 10, 81);
  const Csr A = device(g);
  const auto expected_t = libra::ref::transpose(g);
  std::vector<Csr> made;
  libra::SpgemmOptions o = outer_options();
  o.progress = [&](int, int) {
    made.push_back(libra::transpose(Exec(), A));
  };
  {
    libra::SpgemmHandle<double, int, int, Device> handle(o);
    Csr C;
    libra::spgemm_symbolic(Exec(), handle, A, A, C);
    for (int k = 0; k < 3; ++k) libra::spgemm_numeric(Exec(), handle, A, A, C);
  }  // the handle's blocks go back to the cache ...
  const auto other =
      libra::spgemm(Exec(), A, A, outer_options());  // ... and are reused here
  ASSERT_FALSE(made.empty());
  for (const auto& t : made) {
    EXPECT_GE(t.row_map.use_count(), 1);
    EXPECT_TRUE(libra::test::same_matrix(expected_t, libra::test::to_ref(t), 0.0));
  }
  // A 2-D temporary without a workspace owns its memory.
  const auto v = libra::impl::Temps<mem>{}.view2<double>("t", 3, 4);
  EXPECT_EQ(v.use_count(), 1);
  EXPECT_EQ(other.num_rows, 400);
}

// Depth of Kokkos profiling regions, through the Tools callbacks.
struct RegionDepth {
  static inline int depth = 0;
  static void push(const char*) { ++depth; }
  static void pop() { --depth; }
  RegionDepth() {
    depth = 0;
    Kokkos::Tools::Experimental::set_push_region_callback(&push);
    Kokkos::Tools::Experimental::set_pop_region_callback(&pop);
  }
  ~RegionDepth() {
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_pop_region_callback(nullptr);
  }
};

TEST(SpgemmHandle, FailedSymbolicLeavesNoPattern) {
  const auto small = libra::ref::random(50, 50, 3, 91);
  const auto big = libra::ref::random(20000, 20000, 20, 92);
  libra::SpgemmOptions o = outer_options();
  o.memory_budget = 400'000;  // enough for `small`, not for `big`'s bookkeeping
  libra::SpgemmHandle<double, int, int, Device> handle(o);
  Csr C;
  libra::spgemm_symbolic(Exec(), handle, device(small), device(small), C);
  ASSERT_TRUE(handle.has_pattern());
  const Csr kept = C;
  RegionDepth regions;
  const Csr B = device(big);
  EXPECT_THROW(libra::spgemm_symbolic(Exec(), handle, B, B, C), libra::ArgumentError);
  EXPECT_EQ(RegionDepth::depth, 0);  // the symbolic region was popped on the throw
  EXPECT_FALSE(handle.has_pattern());
  EXPECT_EQ(C.row_map.data(), kept.row_map.data());  // C untouched
  EXPECT_THROW(libra::spgemm_numeric(Exec(), handle, B, B, C), libra::ArgumentError);
  EXPECT_EQ(handle.workspace_bytes(), 0u);
  // The handle works again after a good call.
  libra::spgemm_symbolic(Exec(), handle, device(small), device(small), C);
  libra::spgemm_numeric(Exec(), handle, device(small), device(small), C);
  expect_oracle(small, small, C);
}

TEST(SpgemmHandle, NumericRejectsAMatrixSymbolicDidNotMake) {
  const auto g = libra::ref::random(100, 100, 5, 93);
  const Csr A = device(g);
  libra::SpgemmHandle<double, int, int, Device> handle(outer_options());
  Csr C;
  libra::spgemm_symbolic(Exec(), handle, A, A, C);
  Csr empty;
  EXPECT_THROW(libra::spgemm_numeric(Exec(), handle, A, A, empty), libra::ShapeError);
  Csr::row_map_non_const_type rm("rm", C.row_map.extent(0));
  Kokkos::deep_copy(rm, C.row_map);
  Csr copy(C.num_rows, C.num_cols, rm, C.col_idx, Csr::values_type("v", C.nnz()));
  EXPECT_THROW(libra::spgemm_numeric(Exec(), handle, A, A, copy), libra::ShapeError);
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  libra::SpgemmHandle<double, int, int, Crs::device_type> crs_handle(outer_options());
  Crs a = libra::to_kokkos(A), c;
  EXPECT_THROW(libra::spgemm_numeric(Exec(), crs_handle, a, a, c), libra::ArgumentError);
  libra::spgemm_symbolic(Exec(), crs_handle, a, a, c);
  Crs other;
  EXPECT_THROW(libra::spgemm_numeric(Exec(), crs_handle, a, a, other), libra::ShapeError);
}

TEST(SpgemmHandle, CrsMatrixSymbolicThenNumeric) {
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  auto g = libra::ref::random(300, 300, 8, 94);
  Csr A = device(g);
  Crs a = libra::to_kokkos(A), c;
  libra::SpgemmHandle<double, int, int, Crs::device_type> handle(outer_options());
  libra::spgemm_symbolic(Exec(), handle, a, a, c);
  libra::spgemm_numeric(Exec(), handle, a, a, c);
  expect_oracle(g, g, libra::from_kokkos(c));
  // New values on the same pattern: numeric only.
  for (auto& v : g.val) v = 2 * v + 1;
  const Csr A2 = device(g);
  Kokkos::deep_copy(A.values, A2.values);
  libra::spgemm_numeric(Exec(), handle, a, a, c);
  expect_oracle(g, g, libra::from_kokkos(c));
}

TEST(SpgemmStatsTest, PhaseTimesOnlyWhenAsked) {
  const auto g = libra::ref::random(500, 500, 10, 95);
  auto st = multiply(g, g, outer_options());
  EXPECT_EQ(st.seconds_expand + st.seconds_compress + st.seconds_wlt, 0.0);
  EXPECT_GT(st.seconds_total, 0.0);
  libra::SpgemmOptions o = outer_options();
  o.phase_timings = true;
  st = multiply(g, g, o);
  EXPECT_GT(st.seconds_expand, 0.0);
  EXPECT_GT(st.seconds_compress, 0.0);
}

}  // namespace spgemm_paths_test
