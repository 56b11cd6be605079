#pragma once
// Temporary memory for Libra's kernels without an allocation and a free per
// array per call. A cudaMalloc costs tens of microseconds and a cudaFree
// synchronises the device, so a SpGEMM making forty temporaries would pay
// milliseconds on a product that computes in microseconds.
//
// A Workspace (owned by a kernel's handle) hands out views carved from blocks it
// takes from a process-wide BlockCache and gives them all back, after a fence,
// when it is released. Code deep inside an algorithm (sorts, transposes) asks for
// temp_view(); while a UseWorkspace scope is active on the calling thread the
// view comes from that workspace, otherwise it is a plain Kokkos allocation.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace libra::impl {

template <class MemSpace>
class BlockCache {
 public:
  using Block = Kokkos::View<unsigned char*, MemSpace>;

  static BlockCache& instance() {
    static BlockCache* cache = new BlockCache;  // outlives static destruction order
    return *cache;
  }

  // A block of at least `bytes`: a cached one of at most twice the size, or new.
  Block take(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!hook_registered_) {
        // Kokkos must free device memory before it finalizes.
        Kokkos::push_finalize_hook([this] { clear(true); });
        hook_registered_ = true;
      }
      const auto it = free_.lower_bound(bytes);
      if (it != free_.end() && it->first <= 2 * bytes) {
        Block b = it->second;
        cached_ -= it->first;
        free_.erase(it);
        return b;
      }
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
    free_.emplace(size, b);
    cached_ += size;
    while (cached_ > max_cached_bytes && !free_.empty()) {
      auto largest = std::prev(free_.end());
      cached_ -= largest->first;
      free_.erase(largest);
    }
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

  static constexpr std::size_t max_block_bytes = std::size_t(1) << 30;
  static constexpr std::size_t max_cached_bytes = std::size_t(2) << 30;

 private:
  std::mutex mutex_;
  std::multimap<std::size_t, Block> free_;
  std::size_t cached_ = 0;
  bool hook_registered_ = false;
};

template <class MemSpace>
class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&& o) noexcept : held_(std::move(o.held_)) { o.held_.clear(); }
  Workspace& operator=(Workspace&& o) noexcept {
    release();
    held_ = std::move(o.held_);
    o.held_.clear();
    return *this;
  }
  ~Workspace() { release(); }

  // An uninitialised view of n T's that lives until release().
  template <class T>
  Kokkos::View<T*, MemSpace> view(std::size_t n) {
    const std::size_t bytes = ((n * sizeof(T) + 255) / 256) * 256 + 256;
    held_.push_back(BlockCache<MemSpace>::instance().take(bytes));
    return Kokkos::View<T*, MemSpace>(reinterpret_cast<T*>(held_.back().data()), n);
  }

  // Hands every block back to the cache once the device is done with them.
  void release() {
    if (held_.empty()) return;
    Kokkos::fence();
    for (const auto& b : held_) BlockCache<MemSpace>::instance().give(b);
    held_.clear();
  }

 private:
  std::vector<typename BlockCache<MemSpace>::Block> held_;
};

template <class MemSpace>
Workspace<MemSpace>*& current_workspace() {
  thread_local Workspace<MemSpace>* active = nullptr;
  return active;
}

// Makes `w` the source of temp_view() on this thread for the scope's lifetime.
template <class MemSpace>
class UseWorkspace {
 public:
  explicit UseWorkspace(Workspace<MemSpace>& w)
      : previous_(current_workspace<MemSpace>()) {
    current_workspace<MemSpace>() = &w;
  }
  ~UseWorkspace() { current_workspace<MemSpace>() = previous_; }
  UseWorkspace(const UseWorkspace&) = delete;
  UseWorkspace& operator=(const UseWorkspace&) = delete;

 private:
  Workspace<MemSpace>* previous_;
};

// An uninitialised temporary: from the active workspace, else a plain allocation.
// Never use it for anything returned to the caller.
template <class T, class MemSpace>
Kokkos::View<T*, MemSpace> temp_view(const std::string& label, std::size_t n) {
  if (Workspace<MemSpace>* w = current_workspace<MemSpace>())
    return w->template view<T>(n);
  return Kokkos::View<T*, MemSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

// The same as a row-major 2-D view.
template <class T, class MemSpace>
Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> temp_view2(const std::string& label,
                                                            std::size_t rows,
                                                            std::size_t cols) {
  const auto flat = temp_view<T, MemSpace>(label, rows * cols);
  return Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>(flat.data(), rows, cols);
}

}  // namespace libra::impl

namespace libra {

// Frees the device memory Libra keeps cached for temporaries (at most 2 GiB per
// memory space; freed anyway by Kokkos::finalize).
template <class MemSpace = Kokkos::DefaultExecutionSpace::memory_space>
void release_cached_memory() {
  impl::BlockCache<MemSpace>::instance().clear();
}

}  // namespace libra
