// The workspace and its block cache: frames reuse blocks, the cache keeps what
// the last two releases gave back and frees older blocks when it must allocate.
// And fill_view, which host spaces run on the calling thread for small views.
#include <gtest/gtest.h>

#include <cstdint>

#include "libra/core/fill.hpp"
#include "libra/util/workspace.hpp"
#include "support/test_space.hpp"

namespace workspace_test {

using libra::test::Exec;
using mem = Exec::memory_space;
using Cache = libra::impl::BlockCache<mem>;
using Workspace = libra::impl::Workspace<mem>;

constexpr std::size_t MiB = std::size_t(1) << 20;

// The address of a block of `bytes` taken by a workspace that is then released.
const void* use_and_release(std::size_t bytes) {
  Workspace w;
  const void* p = w.view<char>(bytes).data();
  w.release();
  return p;
}

TEST(Workspace, FramesMakeBlocksReusable) {
  libra::release_cached_memory<mem>();
  Workspace w;
  const void* first = nullptr;
  for (int k = 0; k < 10; ++k) {
    const libra::impl::TempsFrame<mem> frame(w);
    const auto v = w.view<double>(1000);
    if (k == 0) first = v.data();
    EXPECT_EQ(v.data(), first);  // the same block every time
  }
  EXPECT_EQ(w.owned_bytes(), w.peak_bytes());
  // A larger request than any spare keeps the spares for later (no limit) ...
  const std::size_t before = w.owned_bytes();
  const std::size_t big = libra::impl::workspace_block_bytes(100000 * sizeof(double));
  {
    const libra::impl::TempsFrame<mem> frame(w);
    (void)w.view<double>(100000);
  }
  EXPECT_EQ(w.owned_bytes(), before + big);
  // ... and under a limit frees the spares that would pass it.
  Workspace v;
  v.set_limit(big + 1000);
  {
    const libra::impl::TempsFrame<mem> frame(v);
    (void)v.view<double>(1000);
  }
  {
    const libra::impl::TempsFrame<mem> frame(v);
    (void)v.view<double>(100000);
  }
  EXPECT_EQ(v.owned_bytes(), big);
}

TEST(Workspace, AlternatingCallsReuseBothSets) {
  libra::release_cached_memory<mem>();
  const void* x = use_and_release(3 * MiB);
  const void* y = use_and_release(5 * MiB);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(use_and_release(3 * MiB), x);
    EXPECT_EQ(use_and_release(5 * MiB), y);
  }
  EXPECT_EQ(Cache::instance().cached_bytes(),
            libra::impl::workspace_block_bytes(3 * MiB) +
                libra::impl::workspace_block_bytes(5 * MiB));
}

TEST(Workspace, StaleBlocksAreFreedBeforeAllocating) {
  libra::release_cached_memory<mem>();
  (void)use_and_release(4 * MiB);  // generation g
  (void)use_and_release(1 * MiB);  // g + 1
  (void)use_and_release(1 * MiB);  // g + 2 reuses g + 1's block
  (void)use_and_release(2 * MiB);  // a miss: g's 4 MiB block has sat through two
                                   // releases and is freed first
  EXPECT_EQ(Cache::instance().cached_bytes(),
            libra::impl::workspace_block_bytes(1 * MiB) +
                libra::impl::workspace_block_bytes(2 * MiB));
  // A block within 5/4 of the request is reused; a larger one is not.
  libra::release_cached_memory<mem>();
  const void* big = use_and_release(4 * MiB);
  EXPECT_NE(use_and_release(3 * MiB), big);
  EXPECT_EQ(use_and_release(4 * MiB - 1000), big);
}

TEST(Workspace, HostCacheIsSmallerThanDeviceCache) {
  if (Cache::host_memory) {
    EXPECT_EQ(Cache::max_cached_bytes, 512 * MiB);
  } else {
    EXPECT_EQ(Cache::max_cached_bytes, 2048 * MiB);
  }
  libra::release_cached_memory<mem>();
  (void)use_and_release(Cache::max_block_bytes + 1);  // too large to keep
  EXPECT_EQ(Cache::instance().cached_bytes(), 0u);
}

// Kernels launched while a test listens (Kokkos Tools' parallel_for callback).
int& kernels_seen() {
  static int n = 0;
  return n;
}
void count_kernel(const char*, std::uint32_t, std::uint64_t*) {
  ++kernels_seen();
}

TEST(FillView, SmallHostViewsFilledWithoutAKernel) {
  // Every entry set, small and large, 1-D and 2-D; host spaces launch no kernel
  // for views up to host_fill_bytes, GPUs always do (and so do large views).
  const std::size_t small = libra::impl::host_fill_bytes / sizeof(double);
  for (const std::size_t n : {std::size_t(1), small, small + 1, 4 * small}) {
    Kokkos::View<double*, mem> v("v", n);
    Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, mem> w("w", 2, (n + 1) / 2);
    kernels_seen() = 0;
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(count_kernel);
    libra::impl::fill_view(Exec(), v, 2.5);
    libra::impl::fill_view(Exec(), w, std::uint64_t(7));
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    const bool host_small = !libra::LaunchTraits<Exec>::is_gpu &&
                            n * sizeof(double) <= libra::impl::host_fill_bytes;
    EXPECT_EQ(kernels_seen() == 0, host_small) << n << " entries";
    const auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    const auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hv(i), 2.5) << i;
    for (std::size_t r = 0; r < 2; ++r) {
      for (std::size_t c = 0; c < w.extent(1); ++c)
        ASSERT_EQ(hw(r, c), 7u) << r << ", " << c;
    }
  }
}

}  // namespace workspace_test
