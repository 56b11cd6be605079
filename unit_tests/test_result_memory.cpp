// Returned arrays carved from reused slabs (util/result_memory.hpp): a slab is
// handed out again only once every copy of the array before it is gone, never
// while a caller holds one; sizes, columns and types keep slabs apart; the
// switch and release_cached_memory do what they say.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "libra/reference/reference.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "libra/util/result_memory.hpp"
#include "libra/util/workspace.hpp"
#include "support/compare.hpp"
#include "support/test_space.hpp"

namespace result_memory_test {

using libra::test::Device;
using libra::test::Exec;
using mem = Exec::memory_space;
using Csr = libra::Csr<double, int, int, Device>;

// Sets the reuse mode for one test and restores the default after it.
struct Reuse {
  explicit Reuse(libra::ResultMemoryReuse mode) {
    libra::release_cached_memory<mem>();
    libra::set_result_memory_reuse(mode);
  }
  ~Reuse() {
    libra::set_result_memory_reuse(libra::ResultMemoryReuse::automatic);
    libra::release_cached_memory<mem>();
  }
};

template <class T>
Kokkos::View<T*, mem> fresh(std::size_t n) {
  return libra::impl::result_view<T, mem>("test::result", n);
}

TEST(ResultMemory, HeldArraysAreNeverHandedOutAgain) {
  const Reuse reuse(libra::ResultMemoryReuse::always);
  const auto before = libra::result_memory_counts();
  auto a = fresh<double>(1000);
  const auto b = fresh<double>(1000);  // a is held: a slab of its own
  EXPECT_NE(a.data(), b.data());
  const void* a_data = a.data();
  auto copy = a;
  a = Kokkos::View<double*, mem>();
  const auto c = fresh<double>(1000);  // a copy of a is still held
  EXPECT_NE(c.data(), a_data);
  EXPECT_NE(c.data(), b.data());
  copy = Kokkos::View<double*, mem>();
  const auto d = fresh<double>(900);  // a's slab is idle now and large enough
  EXPECT_EQ(d.data(), a_data);
  EXPECT_EQ(d.extent(0), 900u);
  const auto after = libra::result_memory_counts();
  EXPECT_EQ(after.made - before.made, 3u);
  EXPECT_EQ(after.reused - before.reused, 1u);
  EXPECT_EQ(after.plain, before.plain);
}

TEST(ResultMemory, SizesColumnsAndTypesKeepSlabsApart) {
  const Reuse reuse(libra::ResultMemoryReuse::always);
  const void* small = fresh<double>(1000).data();  // dropped at once: idle
  // More than the idle slab holds, and less than 4/5 of it: neither reuses it.
  const auto larger = fresh<double>(1001);
  EXPECT_NE(larger.data(), small);
  const auto smaller = fresh<double>(700);
  EXPECT_NE(smaller.data(), small);
  const auto other_type = fresh<std::int64_t>(1000);  // its own slabs
  EXPECT_NE(static_cast<const void*>(other_type.data()), small);
  EXPECT_EQ(fresh<double>(800).data(), small);  // within 5/4

  using libra::impl::result_view2;
  const void* wide = result_view2<double, mem>("test::result2", 10, 64).data();
  const auto narrow = result_view2<double, mem>("test::result2", 10, 32);
  EXPECT_NE(static_cast<const void*>(narrow.data()), wide);  // other columns
  const auto again = result_view2<double, mem>("test::result2", 9, 64);
  EXPECT_EQ(static_cast<const void*>(again.data()), wide);
  EXPECT_EQ(again.extent(0), 9u);
  EXPECT_EQ(again.extent(1), 64u);
  EXPECT_EQ(again.stride(0), 64u);  // row-major, as the slab
}

// v(i) = 7 i + round, on the device (a lambda may not sit in a test body for nvcc).
void write_pattern(const Kokkos::View<int*, mem>& v, int round) {
  Kokkos::parallel_for(
      "test::write", Kokkos::RangePolicy<Exec>(0, v.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) { v(i) = 7 * static_cast<int>(i) + round; });
}

TEST(ResultMemory, ReusedMemoryHoldsWhatIsWritten) {
  const Reuse reuse(libra::ResultMemoryReuse::always);
  for (int round = 0; round < 3; ++round) {
    const auto held = fresh<int>(5000);
    write_pattern(held, round);
    const auto next = fresh<int>(5000);  // held is held: not its memory
    Kokkos::deep_copy(next, -1);
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), held);
    for (int i = 0; i < 5000; ++i) ASSERT_EQ(h(i), 7 * i + round);
  }
  EXPECT_GT(libra::result_memory_counts().reused, 0u);
}

TEST(ResultMemory, NeverAndAutomaticModes) {
  {
    const Reuse reuse(libra::ResultMemoryReuse::never);
    const auto before = libra::result_memory_counts();
    (void)fresh<double>(100);
    (void)fresh<double>(100);
    const auto after = libra::result_memory_counts();
    EXPECT_EQ(after.plain - before.plain, 2u);
    EXPECT_EQ(after.made, before.made);
  }
  {
    const Reuse reuse(libra::ResultMemoryReuse::automatic);
    const auto before = libra::result_memory_counts();
    (void)fresh<double>(100);
    const auto after = libra::result_memory_counts();
    // Reused by default only where the host cannot reach the memory (GPUs).
    const bool device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, mem>::accessible;
    EXPECT_EQ(after.made - before.made, device ? 1u : 0u);
    EXPECT_EQ(after.plain - before.plain, device ? 0u : 1u);
  }
  {
    const Reuse reuse(libra::ResultMemoryReuse::always);
    const auto before = libra::result_memory_counts();
    (void)fresh<double>(0);                                     // nothing to reuse
    (void)fresh<char>(libra::impl::result_slab_max_bytes + 1);  // too large
    const auto after = libra::result_memory_counts();
    EXPECT_EQ(after.plain - before.plain, 2u);
    EXPECT_EQ(after.made, before.made);
  }
}

TEST(ResultMemory, ReleaseFreesIdleSlabsAndKeepsHeldArrays) {
  const Reuse reuse(libra::ResultMemoryReuse::always);
  using Slabs = libra::impl::ResultSlabs<double, 1, mem>;
  const auto held = fresh<double>(2000);
  (void)fresh<double>(3000);  // idle at once
  EXPECT_EQ(Slabs::instance().idle_bytes(), 3000 * sizeof(double));
  Kokkos::deep_copy(held, 2.5);
  libra::release_cached_memory<mem>();
  EXPECT_EQ(Slabs::instance().idle_bytes(), 0u);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), held);
  EXPECT_EQ(h(1999), 2.5);  // the caller's array outlives the cache's reference
  EXPECT_NE(fresh<double>(2000).data(), held.data());
}

TEST(ResultMemory, TheCacheFollowsAtMostItsLimitOfSlabs) {
  const Reuse reuse(libra::ResultMemoryReuse::always);
  using Slabs = libra::impl::ResultSlabs<float, 1, mem>;
  std::vector<Kokkos::View<float*, mem>> held;
  for (std::size_t k = 0; k < libra::impl::result_slabs_max + 8; ++k)
    held.push_back(fresh<float>(100 + k));
  for (std::size_t k = 0; k < held.size(); ++k)
    for (std::size_t j = 0; j < k; ++j) ASSERT_NE(held[k].data(), held[j].data());
  held.clear();
  // Only the slabs the list still follows are idle in it; the others were freed
  // with the callers' arrays.
  EXPECT_LE(Slabs::instance().idle_bytes(),
            libra::impl::result_slabs_max * (100 + held.capacity()) * sizeof(float));
  EXPECT_GT(Slabs::instance().idle_bytes(), 0u);
}

TEST(ResultMemory, IdleSlabsBeyondTheBudgetGoAtTheNextCall) {
  const Reuse reuse(libra::ResultMemoryReuse::always);
  using Slabs = libra::impl::ResultSlabs<char, 1, mem>;
  const std::size_t size = std::size_t(60) << 20;  // within a slab's 64 MiB
  std::vector<Kokkos::View<char*, mem>> held;
  for (int k = 0; k < 6; ++k) held.push_back(fresh<char>(size));
  held.clear();  // 360 MiB idle, beyond the 256 MiB budget until the next call
  EXPECT_EQ(Slabs::instance().idle_bytes(), 6 * size);
  const auto again = fresh<char>(size);  // reuses one, frees the oldest idle one
  EXPECT_EQ(Slabs::instance().idle_bytes(), 4 * size);
  EXPECT_LE(Slabs::instance().idle_bytes(), libra::impl::result_idle_max_bytes);
}

// The panel algorithm's three ways to a product, each asserted by its path
// counters: the small path, the binned (GPU) path, and on host spaces the
// per-thread dense accumulators.
enum class PanelPath { small, binned, host_dense };

libra::SpgemmOptions options_for(PanelPath path) {
  libra::SpgemmOptions o;
  o.algorithm = libra::SpgemmAlgorithm::panel;
  if (path != PanelPath::host_dense) o.dense_accumulator = false;
  o.tuning.small_nnz = path == PanelPath::small ? std::int64_t(1) << 40 : 0;
  return o;
}

// Rows of A * B with products: the rows the binned and host paths make (the
// small path counts every row of A).
std::uint64_t rows_with_products(const libra::ref::Matrix& a,
                                 const libra::ref::Matrix& b) {
  std::uint64_t rows = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    bool any = false;
    for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e)
      any |= b.ptr[a.col[e] + 1] > b.ptr[a.col[e]];
    rows += any;
  }
  return rows;
}

void expect_path(PanelPath path, const libra::SpgemmStats& st,
                 const libra::ref::Matrix& a, const libra::ref::Matrix& b) {
  const std::uint64_t rows = rows_with_products(a, b);
  ASSERT_GT(rows, 0u);
  switch (path) {
    case PanelPath::small:
      EXPECT_EQ(st.paths.small, static_cast<std::uint64_t>(a.rows));
      break;
    case PanelPath::binned:
      EXPECT_EQ(st.paths.small, 0u);
      EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, rows);
      break;
    case PanelPath::host_dense:
      EXPECT_EQ(st.paths.host_dense, rows);
      break;
  }
}

void expect_oracle(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                   const Csr& C) {
  std::vector<double> largest;
  const auto expected = libra::ref::spgemm(a, b, &largest);
  EXPECT_TRUE(
      libra::test::same_matrix(expected, libra::test::to_ref(C), 1e-12, &largest));
}

// Products whose C is carved from reused slabs equal the oracle; a product the
// caller still holds is left intact by the products after it; and once the
// first product of a shape has been dropped, each one-shot call of that shape
// takes its three arrays (row_map, columns, values) from reused slabs alone.
TEST(ResultMemory, SpgemmReusesDroppedProductsAndKeepsHeldOnes) {
  const Reuse reuse(libra::ResultMemoryReuse::always);
  const auto a = libra::ref::random(300, 300, 6, 63);
  const auto b = libra::ref::random(300, 300, 5, 64);
  const Csr A = libra::test::from_ref<double, int, int, Device>(a);
  const Csr B = libra::test::from_ref<double, int, int, Device>(b);
  std::vector<PanelPath> paths{PanelPath::small, PanelPath::binned};
  if (!libra::LaunchTraits<Exec>::is_gpu) paths.push_back(PanelPath::host_dense);
  for (const PanelPath path : paths) {
    SCOPED_TRACE(static_cast<int>(path));
    const auto o = options_for(path);
    libra::SpgemmStats st;
    const Csr held = libra::spgemm(Exec(), A, A, o, &st);
    expect_path(path, st, a, a);
    for (int k = 0; k < 3; ++k) {
      const Csr C = libra::spgemm(Exec(), A, B, o, &st);
      expect_path(path, st, a, b);
      expect_oracle(a, b, C);
      EXPECT_NE(C.col_idx.data(), held.col_idx.data());
    }
    expect_oracle(a, a, held);
    const auto before = libra::result_memory_counts();
    for (int k = 0; k < 4; ++k) {
      const Csr C = libra::spgemm(Exec(), A, B, o, &st);
      expect_oracle(a, b, C);
    }
    const auto after = libra::result_memory_counts();
    EXPECT_EQ(after.reused - before.reused, 12u);
    EXPECT_EQ(after.made - before.made, 0u);
    EXPECT_EQ(after.plain - before.plain, 0u);
  }
}

}  // namespace result_memory_test
