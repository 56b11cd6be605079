#pragma once
// The device side's panels of C on their way to host memory. Each panel comes
// down into one of two staging slots (pinned on CUDA, allocated once and grown
// when a panel needs more) and a thread of its own copies it out into a host
// piece, several threads at a time, while the device computes the next panel.
// Pinning C's whole size instead costs more than the product (R-MAT 19: 42 GB,
// 25 s on the H100 machine), and host pages first touched by one thread come
// in at a few GB/s.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "libra/core/exec_lanes.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

// C's rows for positions [begin, end) of the ranking, in host-readable memory.
template <class S, class O, class Off, class Mem>
struct HeteroPiece {
  std::size_t begin = 0, end = 0;
  Kokkos::View<const Off*, Mem> row_map;
  Kokkos::View<const O*, Mem> col;
  Kokkos::View<const S*, Mem> val;
};

// A CSR panel's arrays (offsets, columns, values) carved from one block of
// Libra's block cache (util/workspace.hpp), so that the next call reuses the
// pinned or device memory instead of allocating it again. Grown on demand;
// the block goes back to the cache when released.
template <class S, class O, class Off, class Mem>
class CachedArrays {
 public:
  template <class T>
  using Array = Kokkos::View<T*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  CachedArrays() = default;
  CachedArrays(const CachedArrays&) = delete;
  CachedArrays& operator=(const CachedArrays&) = delete;
  ~CachedArrays() { release(); }

  void reserve(std::size_t rows, std::size_t nnz) {
    if (block_.extent(0) > 0 && rows <= rows_ && nnz <= nnz_) return;
    release();
    rows_ = rows + rows / 4;
    nnz_ = nnz + nnz / 4;
    const std::size_t a = workspace_alignment;
    const auto up = [a](std::size_t bytes) {
      return (bytes + a - 1) / a * a;
    };
    const std::size_t offsets = up((rows_ + 1) * sizeof(Off));
    const std::size_t cols = up(nnz_ * sizeof(O));
    block_ = BlockCache<Mem>::instance().take(offsets + cols + nnz_ * sizeof(S) + a);
    auto* base = block_.data();
    row_map = Array<Off>(reinterpret_cast<Off*>(base), rows_ + 1);
    col = Array<O>(reinterpret_cast<O*>(base + offsets), nnz_);
    val = Array<S>(reinterpret_cast<S*>(base + offsets + cols), nnz_);
  }
  // The caller guarantees no copy or kernel uses the arrays any more.
  void release() {
    if (block_.extent(0) > 0) BlockCache<Mem>::instance().give(block_);
    block_ = {};
    row_map = {};
    col = {};
    val = {};
    rows_ = nnz_ = 0;
  }

  Array<Off> row_map;
  Array<O> col;
  Array<S> val;

 private:
  typename BlockCache<Mem>::Block block_;
  std::size_t rows_ = 0, nnz_ = 0;
};

// memcpy by as many threads as the machine has (one per 8 MiB at least), so
// that the destination's fresh pages fault in parallel: one thread faults them
// in at about 1 GB/s (measured on the H100 machine's host).
inline void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  const std::size_t per = std::size_t(8) << 20;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const int threads = static_cast<int>(std::min<std::size_t>(cores, bytes / per + 1));
  if (threads == 1) {
    if (bytes) std::memcpy(dst, src, bytes);
    return;
  }
  const std::size_t share = (bytes + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const std::size_t first = std::min(bytes, t * share);
    const std::size_t last = std::min(bytes, first + share);
    pool.emplace_back([=] {
      std::memcpy(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first,
                  last - first);
    });
  }
  for (auto& t : pool) t.join();
}

template <class S, class O, class Off, class DevExec>
class StagedDownloads {
 public:
  using Stage = StagingSpace<DevExec>;
  using Piece = HeteroPiece<S, O, Off, Kokkos::HostSpace>;
  using Slot = CachedArrays<S, O, Off, Stage>;

  explicit StagedDownloads(int cuda_device) : cuda_device_(cuda_device) {}
  StagedDownloads(const StagedDownloads&) = delete;
  StagedDownloads& operator=(const StagedDownloads&) = delete;
  ~StagedDownloads() {
    try {
      finish();
    } catch (...) {
    }
  }

  // Slot s once the copier is done with it, holding at least rows + 1 offsets
  // and nnz entries.
  Slot& acquire(int s, std::size_t rows, std::size_t nnz) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !busy_[s] || error_; });
      rethrow_locked();
    }
    Slot& slot = slots_[s];
    slot.reserve(rows, nnz);
    return slot;
  }

  // Slot s holds (once `landed` says so) C's rows for positions [begin, end):
  // the copier makes a piece of them.
  void submit(int s, CopyMark<DevExec>&& landed, std::size_t begin, std::size_t end,
              std::size_t nnz) {
    std::lock_guard<std::mutex> lock(mutex_);
    busy_[s] = true;
    queue_.push_back(Job{s, std::move(landed), begin, end, nnz});
    if (!worker_.joinable()) worker_ = std::thread([this] { copy_loop(); });
    changed_.notify_all();
  }

  // Waits until every submitted copy is done.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock,
                  [&] { return (queue_.empty() && !busy_[0] && !busy_[1]) || error_; });
    rethrow_locked();
  }

  // Waits for every submitted copy; the pieces in submission order.
  std::vector<Piece> finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      changed_.notify_all();
    }
    if (worker_.joinable()) worker_.join();
    rethrow_locked();
    return std::move(pieces_);
  }

  double copy_seconds = 0;  // the copier's time copying out

 private:
  struct Job {
    int slot;
    CopyMark<DevExec> landed;
    std::size_t begin, end, nnz;
  };

  void rethrow_locked() {
    if (error_) std::rethrow_exception(error_);
  }

  void copy_loop() {
    try {
      become_feeding_thread<DevExec>(cuda_device_);  // near the GPU it waits for
      for (;;) {
        Job job;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          changed_.wait(lock, [&] { return !queue_.empty() || stop_; });
          if (queue_.empty()) return;
          job = std::move(queue_.front());
          queue_.pop_front();
        }
        job.landed.wait();
        Kokkos::Timer timer;
        const Slot& slot = slots_[job.slot];
        const std::size_t rows = job.end - job.begin;
        const auto alloc = [](const std::string& label) {
          return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
        };
        Kokkos::View<Off*, Kokkos::HostSpace> rm(alloc("libra::hetero::C::row_map"),
                                                 rows + 1);
        Kokkos::View<O*, Kokkos::HostSpace> col(alloc("libra::hetero::C::col"), job.nnz);
        Kokkos::View<S*, Kokkos::HostSpace> val(alloc("libra::hetero::C::values"),
                                                job.nnz);
        parallel_copy(rm.data(), slot.row_map.data(), (rows + 1) * sizeof(Off));
        parallel_copy(col.data(), slot.col.data(), job.nnz * sizeof(O));
        parallel_copy(val.data(), slot.val.data(), job.nnz * sizeof(S));
        std::lock_guard<std::mutex> lock(mutex_);
        copy_seconds += timer.seconds();
        pieces_.push_back(Piece{job.begin, job.end, rm, col, val});
        busy_[job.slot] = false;
        changed_.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      changed_.notify_all();
    }
  }

  int cuda_device_;
  Slot slots_[2];
  bool busy_[2] = {false, false};
  std::deque<Job> queue_;
  std::vector<Piece> pieces_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread worker_;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace libra::impl
