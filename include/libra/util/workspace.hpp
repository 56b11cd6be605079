#pragma once
// Temporary memory for Libra's kernels without an allocation and a free per
// array per call. A cudaMalloc costs tens of microseconds and a cudaFree
// synchronises the device, so a SpGEMM making forty temporaries would pay
// milliseconds on a product that computes in microseconds.
//
// A Workspace (owned by a kernel's handle) hands out views carved from blocks it
// takes from a process-wide BlockCache. Work inside one call is framed with
// mark()/rewind() (TempsFrame): blocks taken inside a frame become the
// workspace's spares when it ends and serve the next requests, so a loop of
// chunks or of numeric calls reuses the same memory instead of piling it up.
// Reusing a spare is safe without a fence because every kernel of one call runs
// on the call's execution space instance, in order. release() fences and gives
// everything back to the cache.
//
// Code takes its temporaries through a Temps<MemSpace> value passed down
// explicitly: Temps{workspace} draws from a workspace, Temps{} makes plain
// Kokkos allocations. Nothing a public function returns is ever workspace memory.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "libra/util/result_memory.hpp"

namespace libra::impl {

inline constexpr std::size_t workspace_alignment = 256;

inline std::size_t workspace_block_bytes(std::size_t bytes) {
  return ((bytes + workspace_alignment - 1) / workspace_alignment) * workspace_alignment +
         workspace_alignment;
}

template <class MemSpace>
class BlockCache {
 public:
  using Block = Kokkos::View<unsigned char*, MemSpace>;

  static BlockCache& instance() {
    static BlockCache* cache = new BlockCache;  // outlives static destruction order
    return *cache;
  }

  // A block of at least `bytes`: a cached one of at most 5/4 the size, or new.
  // Before a new block is made, cached blocks that sat idle through the last two
  // releases are freed (oldest first) up to its size: they are stale, and spending
  // them keeps the footprint from growing by what the cache holds. Blocks of the
  // last two releases stay, so that a caller alternating two products (SimRank's
  // two per iteration) reuses both sets instead of freeing one for the other.
  Block take(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!hook_registered_) {
        // Kokkos must free device memory before it finalizes.
        Kokkos::push_finalize_hook([this] { clear(true); });
        hook_registered_ = true;
      }
      const auto it = free_.lower_bound(bytes);
      if (it != free_.end() && it->first <= bytes + bytes / 4) {
        Block b = it->second.block;
        cached_ -= it->first;
        free_.erase(it);
        return b;
      }
      evict_stale(bytes);
    }
    return Block(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("libra::workspace")),
        bytes);
  }

  // Keeps the block for later unless it is huge or the cache is full (then the
  // largest cached blocks are freed). The caller guarantees no kernel uses it.
  void give(const Block& b) {
    const std::size_t size = b.extent(0);
    if (size > max_block_bytes) return;
    std::lock_guard<std::mutex> lock(mutex_);
    free_.emplace(size, Entry{b, generation_});
    cached_ += size;
    while (cached_ > max_cached_bytes && !free_.empty()) {
      auto largest = std::prev(free_.end());
      cached_ -= largest->first;
      free_.erase(largest);
    }
  }

  // Ends a release: blocks given back from now on belong to the next generation.
  void end_release() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
  }

  // Frees every cached block (libra::release_cached_memory, Kokkos::finalize).
  void clear(bool finalizing = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.clear();
    cached_ = 0;
    if (finalizing) hook_registered_ = false;
  }

  std::size_t cached_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }

  // Idle memory the cache may keep. Device memory: up to 2 GiB, since cudaMalloc
  // and cudaFree (which synchronises) dominate small products. Host memory: up to
  // 512 MiB; a fresh host block costs page faults, but the host's memory is the
  // user's working memory too.
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  static constexpr std::size_t max_cached_bytes =
      host_memory ? std::size_t(512) << 20 : std::size_t(2) << 30;
  static constexpr std::size_t max_block_bytes =
      host_memory ? max_cached_bytes : std::size_t(1) << 30;

 private:
  struct Entry {
    Block block;
    std::uint64_t generation;  // of the release that gave it back
  };

  // Frees blocks older than the last two releases, oldest first, until `bytes`
  // are freed or none is left. Called with the mutex held.
  void evict_stale(std::size_t bytes) {
    std::size_t freed = 0;
    while (freed < bytes) {
      auto oldest = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (it->second.generation + 2 <= generation_ &&
            (oldest == free_.end() || it->second.generation < oldest->second.generation))
          oldest = it;
      }
      if (oldest == free_.end()) return;
      freed += oldest->first;
      cached_ -= oldest->first;
      free_.erase(oldest);
    }
  }

  std::mutex mutex_;
  std::multimap<std::size_t, Entry> free_;
  std::uint64_t generation_ = 0;
  std::size_t cached_ = 0;
  bool hook_registered_ = false;
};

template <class MemSpace>
class Workspace {
 public:
  using Block = typename BlockCache<MemSpace>::Block;
  // A position in the workspace: the number of blocks in use when it was taken.
  struct Mark {
    std::size_t held = 0;
  };

  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&& o) noexcept { swap(o); }
  Workspace& operator=(Workspace&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }
  ~Workspace() { release(); }

  // An uninitialised view of n T's that lives until the enclosing frame ends
  // (or release()).
  template <class T>
  Kokkos::View<T*, MemSpace> view(std::size_t n) {
    const std::size_t bytes = workspace_block_bytes(n * sizeof(T));
    // The smallest spare that fits, else a block from the cache.
    auto best = spare_.end();
    for (auto it = spare_.begin(); it != spare_.end(); ++it) {
      if (it->extent(0) >= bytes &&
          (best == spare_.end() || it->extent(0) < best->extent(0)))
        best = it;
    }
    if (best != spare_.end()) {
      held_.push_back(*best);
      spare_.erase(best);
    } else {
      // No spare fits. Under a limit (the caller's memory budget), spares are
      // freed (largest first) until the new block fits beside what is held:
      // chunks of varying sizes then do not pile up blocks beyond the budget.
      // Without one they stay for later requests and calls, which costs no
      // allocation then. Freeing device memory waits for the device, and no
      // kernel of this call still reads a spare by then.
      if (limit_ > 0 && owned_ + bytes > limit_) {
        std::sort(spare_.begin(), spare_.end(), [](const Block& x, const Block& y) {
          return x.extent(0) < y.extent(0);
        });
        while (owned_ + bytes > limit_ && !spare_.empty()) {
          owned_ -= spare_.back().extent(0);
          spare_.pop_back();
        }
      }
      held_.push_back(BlockCache<MemSpace>::instance().take(bytes));
      owned_ += held_.back().extent(0);
      peak_ = std::max(peak_, owned_);
    }
    return Kokkos::View<T*, MemSpace>(reinterpret_cast<T*>(held_.back().data()), n);
  }

  Mark mark() const { return Mark{held_.size()}; }

  // Bytes the workspace should stay within when it can (0: no limit): spares are
  // freed rather than kept when a new block would pass it.
  void set_limit(std::size_t bytes) noexcept { limit_ = bytes; }

  // Blocks taken since `m` become spares for later requests of this workspace.
  void rewind(const Mark& m) {
    while (held_.size() > m.held) {
      spare_.push_back(held_.back());
      held_.pop_back();
    }
  }

  // Hands every block back to the cache once the device is done with them.
  void release() {
    if (held_.empty() && spare_.empty()) return;
    Kokkos::fence();
    auto& cache = BlockCache<MemSpace>::instance();
    for (const auto& b : held_) cache.give(b);
    for (const auto& b : spare_) cache.give(b);
    cache.end_release();
    held_.clear();
    spare_.clear();
    owned_ = 0;
  }

  // Bytes of device memory this workspace holds (in use and spare), and the
  // largest that number has been since reset_peak().
  std::size_t owned_bytes() const noexcept { return owned_; }
  std::size_t peak_bytes() const noexcept { return peak_; }
  void reset_peak() noexcept { peak_ = owned_; }

 private:
  void swap(Workspace& o) noexcept {
    std::swap(held_, o.held_);
    std::swap(spare_, o.spare_);
    std::swap(owned_, o.owned_);
    std::swap(peak_, o.peak_);
    std::swap(limit_, o.limit_);
  }

  std::vector<Block> held_;
  std::vector<Block> spare_;
  std::size_t owned_ = 0;
  std::size_t peak_ = 0;
  std::size_t limit_ = 0;
};

// Where a function takes its temporaries from: a workspace, or (default) plain
// Kokkos allocations that free themselves. Passed by value down the call chain.
template <class MemSpace>
class Temps {
 public:
  Temps() = default;
  explicit Temps(Workspace<MemSpace>& w) : workspace_(&w) {}

  // An uninitialised temporary of n T's. Never return it to a caller.
  template <class T>
  Kokkos::View<T*, MemSpace> view(const std::string& label, std::size_t n) const {
    if (workspace_) return workspace_->template view<T>(n);
    return Kokkos::View<T*, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  }

  // The same as a row-major 2-D view (managed when no workspace backs it).
  template <class T>
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> view2(const std::string& label,
                                                         std::size_t rows,
                                                         std::size_t cols) const {
    using V = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
    if (workspace_)
      return V(workspace_->template view<T>(rows * cols).data(), rows, cols);
    return V(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), rows, cols);
  }

  Workspace<MemSpace>* workspace() const noexcept { return workspace_; }

 private:
  Workspace<MemSpace>* workspace_ = nullptr;
};

// Rewinds the workspace behind `temps` (if any) to where it stood when the frame
// began: temporaries taken inside the frame become reusable when it ends.
template <class MemSpace>
class TempsFrame {
 public:
  explicit TempsFrame(const Temps<MemSpace>& temps)
      : w_(temps.workspace()),
        mark_(w_ ? w_->mark() : typename Workspace<MemSpace>::Mark{}) {}
  explicit TempsFrame(Workspace<MemSpace>& w) : w_(&w), mark_(w.mark()) {}
  ~TempsFrame() {
    if (w_) w_->rewind(mark_);
  }
  TempsFrame(const TempsFrame&) = delete;
  TempsFrame& operator=(const TempsFrame&) = delete;

 private:
  Workspace<MemSpace>* w_;
  typename Workspace<MemSpace>::Mark mark_;
};

}  // namespace libra::impl

namespace libra {

// Frees the memory Libra keeps cached in MemSpace: for temporaries (at most 2 GiB
// of device or 512 MiB of host memory) and the idle slabs of returned arrays
// (result_memory.hpp); freed anyway by Kokkos::finalize.
template <class MemSpace = Kokkos::DefaultExecutionSpace::memory_space>
void release_cached_memory() {
  impl::BlockCache<MemSpace>::instance().clear();
  release_result_memory<MemSpace>();
}

}  // namespace libra
