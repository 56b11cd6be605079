#pragma once
// Memory for the arrays Libra's functions return (a product's C), reused from
// one call to the next on GPUs.
//
// On the machines Libra is measured on, one cudaMalloc costs 20-150 us, Kokkos
// 3.4 then copies the View's header to the device synchronously, and the
// cudaFree when the caller drops the View costs as much again and synchronises
// the device (perf_tests/report/h100/malloc_cost.txt). A small product's C has
// two or three arrays, so a one-shot call on a small input paid more for them
// than for its kernels. Temporaries already come from the Workspace's block
// cache (workspace.hpp); returned arrays cannot, because the caller owns them.
//
// So a returned array is a subview of a slab, a managed View this cache keeps.
// The subview shares the slab's reference count: while the caller holds the
// array (or any copy of it) the slab's use_count() is above one and the slab is
// never handed out again. Once the caller has dropped every copy, the next call
// that needs an array of that type and about that size takes the slab instead
// of allocating. Before a slab is reused the device is fenced, as the cudaFree
// it replaces would have done, so no kernel on any stream still reads the
// caller's old array when it is overwritten.
//
// What stays allocated: idle slabs of at most 64 MiB each, 256 MiB in all per
// type once a call has taken an array of that type (arrays the callers drop
// in between can leave more idle until then; the cache follows at most 32
// slabs a type). libra::release_cached_memory() frees them; Kokkos::finalize
// does too.
// Arrays over 64 MiB are plain allocations, whose cost is small beside a
// product that large. By default only memory the host cannot access (GPU
// device memory) is reused; set_result_memory_reuse() turns it on for every
// space (the tests do, to run it on the host) or off.
#include <Kokkos_Core.hpp>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace libra {

enum class ResultMemoryReuse {
  automatic,  // device memory the host cannot access (GPUs)
  always,     // every memory space
  never,      // every returned array is a fresh allocation
};

// How many returned arrays came from a new slab, from a reused one, or from a
// plain allocation (reuse off, or the array too large), since the process began.
struct ResultMemoryCounts {
  std::uint64_t made = 0;
  std::uint64_t reused = 0;
  std::uint64_t plain = 0;
};

namespace impl {
inline std::atomic<int>& result_reuse_setting() {
  static std::atomic<int> setting{static_cast<int>(ResultMemoryReuse::automatic)};
  return setting;
}
struct ResultCounters {
  std::atomic<std::uint64_t> made{0}, reused{0}, plain{0};
};
inline ResultCounters& result_counters() {
  static ResultCounters counters;
  return counters;
}
}  // namespace impl

inline void set_result_memory_reuse(ResultMemoryReuse mode) {
  impl::result_reuse_setting().store(static_cast<int>(mode));
}
inline ResultMemoryReuse result_memory_reuse() {
  return static_cast<ResultMemoryReuse>(impl::result_reuse_setting().load());
}
inline ResultMemoryCounts result_memory_counts() {
  const auto& c = impl::result_counters();
  return {c.made.load(), c.reused.load(), c.plain.load()};
}

namespace impl {

inline constexpr std::size_t result_slab_max_bytes = std::size_t(64) << 20;
inline constexpr std::size_t result_idle_max_bytes = std::size_t(256) << 20;
inline constexpr std::size_t result_slabs_max = 32;

// Clears every ResultSlabs of MemSpace (release_cached_memory).
template <class MemSpace>
class ResultSlabsRegistry {
 public:
  static ResultSlabsRegistry& instance() {
    static ResultSlabsRegistry* registry = new ResultSlabsRegistry;
    return *registry;
  }
  void add(void (*clear)()) {
    std::lock_guard<std::mutex> lock(mutex_);
    clears_.push_back(clear);
  }
  void clear_all() {
    std::vector<void (*)()> clears;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      clears = clears_;
    }
    for (auto* c : clears) c();
  }

 private:
  std::mutex mutex_;
  std::vector<void (*)()> clears_;
};

template <class MemSpace>
bool result_reuse_on() {
  switch (result_memory_reuse()) {
    case ResultMemoryReuse::always:
      return true;
    case ResultMemoryReuse::never:
      return false;
    default:
      return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  }
}

// The slabs of one element type, rank (1, or 2 with a fixed column count,
// LayoutRight) and memory space. `cols` is 1 for rank 1.
template <class T, int Rank, class MemSpace>
class ResultSlabs {
 public:
  using Slab = std::conditional_t<Rank == 1, Kokkos::View<T*, MemSpace>,
                                  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>>;

  static ResultSlabs& instance() {
    static ResultSlabs* slabs = [] {
      auto* made = new ResultSlabs;  // outlives static destruction order
      ResultSlabsRegistry<MemSpace>::instance().add([] { instance().clear(); });
      return made;
    }();
    return *slabs;
  }

  // A slab of at least `rows` rows of `cols` (cols == 1 for rank 1): an idle one
  // of at most 5/4 the rows, else a new one. `reused` says which.
  Slab take(const std::string& label, std::size_t rows, std::size_t cols, bool& reused) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!hook_registered_) {
      // Kokkos must free device memory before it finalizes.
      Kokkos::push_finalize_hook([this] { clear(true); });
      hook_registered_ = true;
    }
    const std::size_t most = rows + rows / 4;
    std::size_t best = slabs_.size();
    for (std::size_t s = 0; s < slabs_.size(); ++s) {
      const Slab& slab = slabs_[s];
      if (slab.use_count() != 1 || columns(slab) != cols) continue;
      const std::size_t have = slab.extent(0);
      if (have < rows || have > most) continue;
      if (best == slabs_.size() || have < slabs_[best].extent(0)) best = s;
    }
    if (best < slabs_.size()) {
      reused = true;
      Slab slab = slabs_[best];  // held from here on: not idle
      // Slabs whose callers dropped them since the last call may leave more
      // idle than the budget: trim them now.
      make_room(0, false);
      return slab;
    }
    make_room(rows * cols * sizeof(T), true);
    reused = false;
    slabs_.push_back(allocate(label, rows, cols));
    return slabs_.back();
  }

  // Drops the cache's references: idle slabs are freed, slabs a caller still
  // holds are freed when the caller drops them.
  void clear(bool finalizing = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    slabs_.clear();
    if (finalizing) hook_registered_ = false;
  }

  std::size_t idle_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return idle_bytes_locked();
  }

 private:
  static std::size_t columns(const Slab& s) { return Rank == 1 ? 1 : s.extent(1); }
  static std::size_t bytes(const Slab& s) { return s.size() * sizeof(T); }

  static Slab allocate(const std::string& label, std::size_t rows, std::size_t cols) {
    if constexpr (Rank == 1) {
      return Slab(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), rows);
    } else {
      return Slab(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), rows, cols);
    }
  }

  std::size_t idle_bytes_locked() const {
    std::size_t idle = 0;
    for (const Slab& s : slabs_)
      if (s.use_count() == 1) idle += bytes(s);
    return idle;
  }

  // Frees idle slabs, oldest first, until the idle ones fit the budget beside
  // `need` more bytes; `adding` a slab to a full list also stops following the
  // oldest slab in use (its caller keeps it).
  void make_room(std::size_t need, bool adding) {
    std::size_t idle = idle_bytes_locked();
    auto oldest_idle = [&] {
      for (std::size_t s = 0; s < slabs_.size(); ++s)
        if (slabs_[s].use_count() == 1) return s;
      return slabs_.size();
    };
    const auto full = [&] {
      return adding && slabs_.size() >= result_slabs_max;
    };
    while (!slabs_.empty() && (idle + need > result_idle_max_bytes || full())) {
      std::size_t s = oldest_idle();
      if (s == slabs_.size()) {
        if (!full()) break;  // only slabs in use are left
        s = 0;
      } else {
        idle -= bytes(slabs_[s]);
      }
      slabs_.erase(slabs_.begin() + static_cast<std::ptrdiff_t>(s));
    }
  }

  std::mutex mutex_;
  std::vector<Slab> slabs_;  // oldest first
  bool hook_registered_ = false;
};

// Fences the device before a reused slab is overwritten (see the top).
inline void result_reuse_fence() {
  Kokkos::fence();
}

// Whether an array of `count` T's is carved from a slab: reuse on for
// MemSpace, and 0 < size <= 64 MiB. Counts the others as plain allocations.
template <class T, class MemSpace>
bool from_slab(std::size_t count) {
  if (count > 0 && count * sizeof(T) <= result_slab_max_bytes &&
      result_reuse_on<MemSpace>())
    return true;
  result_counters().plain.fetch_add(1);
  return false;
}

// A slab of `rows` x `cols` for a caller's array, counted as made or reused; a
// reused one is fenced before it is returned, unless `fence_owed` is given:
// then *fence_owed is set, and the caller calls result_reuse_fence() once for
// the arrays it took together, before writing any of them.
template <class T, int Rank, class MemSpace>
typename ResultSlabs<T, Rank, MemSpace>::Slab take_slab(const std::string& label,
                                                        std::size_t rows,
                                                        std::size_t cols,
                                                        bool* fence_owed) {
  bool reused = false;
  auto slab = ResultSlabs<T, Rank, MemSpace>::instance().take(label, rows, cols, reused);
  (reused ? result_counters().reused : result_counters().made).fetch_add(1);
  if (reused && fence_owed) {
    *fence_owed = true;
  } else if (reused) {
    result_reuse_fence();
  }
  return slab;
}

// An uninitialised array of n T's for a caller to own: from a slab when reuse
// is on for MemSpace and the array is at most 64 MiB, else a plain allocation.
// `fence_owed`: see take_slab.
template <class T, class MemSpace>
Kokkos::View<T*, MemSpace> result_view(const std::string& label, std::size_t n,
                                       bool* fence_owed = nullptr) {
  if (!from_slab<T, MemSpace>(n)) {
    return Kokkos::View<T*, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  }
  return Kokkos::subview(take_slab<T, 1, MemSpace>(label, n, 1, fence_owed),
                         std::make_pair(std::size_t(0), n));
}

// The same as a rows x cols row-major array.
template <class T, class MemSpace>
Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> result_view2(const std::string& label,
                                                              std::size_t rows,
                                                              std::size_t cols) {
  if (!from_slab<T, MemSpace>(rows * cols)) {
    return Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label), rows, cols);
  }
  return Kokkos::subview(take_slab<T, 2, MemSpace>(label, rows, cols, nullptr),
                         std::make_pair(std::size_t(0), rows), Kokkos::ALL());
}

}  // namespace impl

// Frees the idle slabs of returned arrays in MemSpace (release_cached_memory
// calls it too); arrays a caller holds stay valid.
template <class MemSpace = Kokkos::DefaultExecutionSpace::memory_space>
void release_result_memory() {
  impl::ResultSlabsRegistry<MemSpace>::instance().clear_all();
}

}  // namespace libra
