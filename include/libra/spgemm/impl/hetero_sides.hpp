#pragma once
// The two sides of heterogeneous SpGEMM. Each computes C's rows for positions
// of the affinity ranking and keeps them as pieces for hetero_assemble.hpp.
//
// The device side runs its rows in panels. While panel j computes on the
// compute stream, panel j+1 of A goes up on the upload stream and panel j+2 is
// gathered on the host (incremental splitting, overlapping the copies). Two
// device slots and two staging slots of A alternate.
// In core (every row's C fits the device beside the rest), each panel's C stays
// on the device (kept()) until C's final host arrays exist, then comes down
// into them in one copy (hetero_download.hpp). Out of core, panel j-1 of C
// comes down on the download stream while panel j computes, into staging
// memory of its own, and a copier makes host pieces of it (hetero_copy_out.hpp).
// Out of core with the device taking every row (HeteroOptions::Tuning::
// count_first), a first run counts C's rows panel by panel (C's row offsets on
// the host, no C computed), and the second brings each panel's C down straight
// into C's host arrays (hetero_download.hpp): one copy out, no pieces. Where
// the device's space may run off the initial thread, the panels compute on a
// thread of their own while this one brings the previous panel's C down (its
// host copies are the host space's parallel loops, which keep this thread).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "libra/core/checked.hpp"
#include "libra/core/exec_lanes.hpp"
#include "libra/format/csr.hpp"
#include "libra/spgemm/impl/hetero_copy_out.hpp"
#include "libra/spgemm/impl/hetero_download.hpp"
#include "libra/spgemm/impl/hetero_gather.hpp"
#include "libra/spgemm/impl/hetero_split.hpp"
#include "libra/spgemm/spgemm.hpp"

namespace libra::impl {

using PanelRange = std::pair<std::size_t, std::size_t>;  // positions in the ranking

template <class S, class O, class Off, class DevExec, class HostCsr>
class DeviceSide {
 public:
  using Mem = typename DevExec::memory_space;
  using DevD = Kokkos::Device<DevExec, Mem>;
  using Matrix = Csr<S, O, Off, DevD>;
  using Stage = StagingSpace<DevExec>;
  using Piece = HeteroPiece<S, O, Off, Kokkos::HostSpace>;
  // A panel's C kept on the device, for positions [range.first, range.second).
  struct Kept {
    PanelRange range;
    Matrix C;
  };

  // a_dev / b_dev: A and B when they are already in the device's memory.
  DeviceSide(DeviceLanes<DevExec>& lanes, const HeteroOrder& order, const HostCsr& A,
             const HostCsr& B, const Matrix* a_dev, const Matrix* b_dev,
             const SpgemmOptions& options)
      : lanes_(lanes),
        order_(order),
        A_(A),
        B_(B),
        options_(options),
        downloads_(cuda_device_of(lanes.compute)) {
    if (a_dev) {
      a_dev_ = *a_dev;
      a_resident_ = true;
    }
    if (b_dev) {
      b_dev_ = *b_dev;
      b_resident_ = true;
    }
  }

  // B on the device (uploaded unless it is there).
  void load_b() {
    if (b_resident_ || b_loaded_) return;
    Kokkos::Timer wait;
    const auto alloc = [](const std::string& label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
    };
    typename Matrix::row_map_non_const_type rm(alloc("libra::hetero::B::row_map"),
                                               B_.row_map.extent(0));
    typename Matrix::index_type col(alloc("libra::hetero::B::col"), B_.col_idx.extent(0));
    typename Matrix::values_type val(alloc("libra::hetero::B::values"),
                                     B_.values.extent(0));
    up_clock_.begin(lanes_.up);
    Kokkos::deep_copy(lanes_.up, rm, B_.row_map);
    Kokkos::deep_copy(lanes_.up, col, B_.col_idx);
    Kokkos::deep_copy(lanes_.up, val, B_.values);
    up_clock_.end(lanes_.up);
    lanes_.up.fence();
    b_dev_ = Matrix(B_.num_rows, B_.num_cols, rm, col, val);
    bytes_up += csr_bytes(B_);
    exposed += wait.seconds();
    b_loaded_ = true;
  }

  // Computes the panels in order; their rows of C are in host memory when it
  // returns (pieces()).
  void run(const std::vector<PanelRange>& panels) {
    if (panels.empty()) return;
    load_b();
    if (a_resident_) {
      run_resident(panels);
    } else {
      run_staged(panels);
    }
    release_pending();
    Kokkos::Timer wait;
    downloads_.drain();
    exposed += wait.seconds();
  }

  // Keep each panel's C on the device (in core) instead of streaming it down.
  void keep_on_device(bool keep) { sink_ = keep ? Sink::keep : Sink::stream; }

  // C's row offsets by row of A (host memory; rows of no panel have none),
  // counted on the device panel by panel without computing C.
  Kokkos::View<Off*, Kokkos::HostSpace> count(const std::vector<PanelRange>& panels,
                                              std::size_t num_rows) {
    counts_ =
        Kokkos::View<Off*, Kokkos::HostSpace>("libra::hetero::C::row_map", num_rows + 1);
    const Sink was = sink_;
    sink_ = Sink::count;
    run(panels);
    sink_ = was;
    // Row lengths at i + 1, then their running sum (checked before it is stored).
    std::uint64_t total = 0;
    for (std::size_t i = 1; i <= num_rows; ++i) total += counts_(i);
    checked_cast<Off>(total, "nnz(C)");
    for (std::size_t i = 1; i <= num_rows; ++i) counts_(i) += counts_(i - 1);
    return counts_;
  }

  // Runs the panels, each panel's C brought down into C's host arrays (c_col,
  // c_val) at the rows' offsets c_row_map (from count()). Panel j+1 computes
  // on a thread of its own while panel j comes down, where DevExec can.
  void run_into(const std::vector<PanelRange>& panels,
                const Kokkos::View<const Off*, Kokkos::HostSpace>& c_row_map, O* c_col,
                S* c_val, std::size_t chunk, DownloadTally& tally) {
    const Sink was = sink_;
    into_ = Into{c_row_map, c_col, c_val, chunk, &tally};
    if constexpr (needs_initial_thread<DevExec>) {
      sink_ = Sink::into_c;
      run(panels);
    } else {
      sink_ = Sink::hand_over;
      beside = true;
      handoff_.reset();
      run_side_by_side(
          lanes_.compute,
          [&] {  // this thread: each computed panel's C comes down
            try {
              while (auto next = handoff_.take()) {
                download_into_c(next->first, next->second);
                next.reset();  // C's device arrays go before the next panel comes
                handoff_.done();
              }
            } catch (...) {
              handoff_.abandon();
              throw;
            }
          },
          [&] {  // the device's thread: the panels, handed over one by one
            try {
              run(panels);
            } catch (...) {
              handoff_.finish();
              throw;
            }
            handoff_.finish();
          });
    }
    into_ = Into{};
    sink_ = was;
  }
  // C's rows of every panel run, in host memory (streamed panels).
  std::vector<Piece> pieces() { return downloads_.finish(); }
  // C's rows of every panel run while keeping them on the device.
  const std::vector<Kept>& kept() const { return kept_; }
  // B on the device (after load_b()), for another side over the same B.
  const Matrix& b() const { return b_dev_; }
  double copy_out_seconds() const { return downloads_.copy_seconds; }
  std::uint64_t bytes_up = 0, bytes_down = 0, products = 0;
  std::size_t rows = 0;
  int panels_run = 0;
  double exposed = 0;          // seconds spent waiting for copies
  double compute_seconds = 0;  // in SpGEMM calls
  bool beside = false;         // run_into() computed beside the copies out
  // The copies' own seconds (waits for the recorded ones).
  double transfer_seconds() { return up_clock_.seconds() + down_clock_.seconds(); }

 private:
  Matrix multiply(const Matrix& a_panel, const PanelRange& range) {
    Kokkos::Timer timer;
    Matrix C = libra::spgemm(lanes_.compute, a_panel, b_dev_, options_);
    compute_seconds += timer.seconds();
    ++panels_run;
    rows += range.second - range.first;
    products += order_.products(range.first, range.second);
    return C;
  }

  // C of a panel goes down on the download stream into a staging slot, once
  // the copier is done with that slot's last panel; C's device arrays are kept
  // until the copy has landed.
  void download(const Matrix& C, const PanelRange& range) {
    const std::size_t m = range.second - range.first;
    const std::size_t nnz = C.col_idx.extent(0);
    const int s = next_slot_;
    next_slot_ ^= 1;
    Kokkos::Timer wait;
    auto& slot = downloads_.acquire(s, m, nnz);
    exposed += wait.seconds();
    release_pending();
    const auto first = [](std::size_t n) {
      return std::make_pair(std::size_t(0), n);
    };
    Kokkos::Timer enqueue;
    down_clock_.begin(lanes_.down);
    Kokkos::deep_copy(lanes_.down, Kokkos::subview(slot.row_map, first(m + 1)),
                      C.row_map);
    Kokkos::deep_copy(lanes_.down, Kokkos::subview(slot.col, first(nnz)), C.col_idx);
    Kokkos::deep_copy(lanes_.down, Kokkos::subview(slot.val, first(nnz)), C.values);
    down_clock_.end(lanes_.down);
    downloads_.submit(s, CopyMark<DevExec>(lanes_.down), range.first, range.second, nnz);
    exposed += enqueue.seconds();  // all of it where copies are synchronous
    bytes_down += csr_bytes(C);
    pending_ = C;
  }

  void release_pending() {
    Kokkos::Timer wait;
    lanes_.down.fence();
    exposed += wait.seconds();
    pending_ = Matrix();
  }

  // A in device memory: each panel gathered there.
  void run_resident(const std::vector<PanelRange>& panels) {
    if (rows_dev_.extent(0) == 0) {
      rows_dev_ = Kokkos::View<std::int64_t*, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::rows"),
          order_.size());
      Kokkos::deep_copy(lanes_.compute, rows_dev_, order_.rows);
    }
    for (const auto& range : panels) {
      const auto a_panel =
          gather_rows<DevD>(lanes_.compute, a_dev_, Kokkos::subview(rows_dev_, range));
      take(a_panel, range);
    }
  }

  // A panel of A is on the device: its rows of C counted, or computed and
  // kept, streamed or brought into C.
  void take(const Matrix& a_panel, const PanelRange& range) {
    if (sink_ == Sink::count) {
      count_rows(a_panel, range);
      return;
    }
    const Matrix C = multiply(a_panel, range);
    if (sink_ == Sink::keep) {
      kept_.push_back(Kept{range, C});
    } else if (sink_ == Sink::into_c) {
      download_into_c(C, range);
    } else if (sink_ == Sink::hand_over) {
      handoff_.give(C, range);
    } else {
      download(C, range);
    }
  }

  void count_rows(const Matrix& a_panel, const PanelRange& range) {
    const auto rm = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), spgemm_row_map(lanes_.compute, a_panel, b_dev_, options_));
    for (std::size_t p = range.first; p < range.second; ++p) {
      const std::size_t q = p - range.first;
      counts_(static_cast<std::size_t>(order_.rows(p)) + 1) = rm(q + 1) - rm(q);
    }
  }

  // The panel's C into C's host arrays: row q of the panel starts at C's entry
  // c_row_map(order.rows(range.first + q)).
  void download_into_c(const Matrix& C, const PanelRange& range) {
    // On the download stream: a copy without one would wait for the device's
    // thread's work too.
    Kokkos::View<Off*, Kokkos::HostSpace> rm(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::panel_row_map"),
        C.row_map.extent(0));
    Kokkos::deep_copy(lanes_.down, rm, C.row_map);
    lanes_.down.fence();
    const Kokkos::View<const Off*, Kokkos::HostSpace> panel_rm = rm;
    const auto c_rm = into_.row_map;
    const auto order_rows = order_.rows;
    const std::size_t first = range.first;
    download_rows(
        lanes_.down, Kokkos::DefaultHostExecutionSpace(), panel_rm, C.col_idx, C.values,
        into_.col, into_.val,
        [=](const std::int64_t q) {
          return c_rm(
              static_cast<std::size_t>(order_rows(first + static_cast<std::size_t>(q))));
        },
        false, into_.chunk, *into_.tally);
    bytes_down += (range.second - range.first + 1) * sizeof(Off);
  }

  // A in host memory: panels gathered into staging slots and uploaded.
  void run_staged(const std::vector<PanelRange>& panels) {
    std::size_t max_rows = 0, max_nnz = 0;
    for (const auto& r : panels) {
      std::size_t nnz = 0;
      for (std::size_t p = r.first; p < r.second; ++p) {
        const auto i = order_.rows(p);
        nnz += static_cast<std::size_t>(A_.row_map(i + 1) - A_.row_map(i));
      }
      max_rows = std::max(max_rows, r.second - r.first);
      max_nnz = std::max(max_nnz, nnz);
    }
    for (int s = 0; s < 2; ++s) {
      stage_[s].reserve(max_rows, max_nnz);
      slot_[s].reserve(max_rows, max_nnz);
    }
    const std::size_t n = panels.size();
    stage(panels[0], 0);
    upload(panels[0], 0);
    if (n > 1) stage(panels[1], 1);
    for (std::size_t j = 0; j < n; ++j) {
      Kokkos::Timer wait;
      lanes_.up.fence();  // panel j is on the device; its staging slot is free
      exposed += wait.seconds();
      if (j + 1 < n) upload(panels[j + 1], (j + 1) % 2);
      const auto& s = slot_[j % 2];
      const std::size_t m = panels[j].second - panels[j].first;
      const Matrix a_panel(
          static_cast<O>(m), A_.num_cols,
          Kokkos::subview(s.row_map, std::make_pair(std::size_t(0), m + 1)),
          Kokkos::subview(s.col, std::make_pair(std::size_t(0), nnz_[j % 2])),
          Kokkos::subview(s.val, std::make_pair(std::size_t(0), nnz_[j % 2])));
      take(a_panel, panels[j]);
      if (j + 2 < n) stage(panels[j + 2], j % 2);
    }
  }

  template <class M>
  using Slot = CachedArrays<S, O, Off, M>;

  void stage(const PanelRange& range, int s) {
    nnz_stage_[s] = gather_rows_on_this_thread(
        A_, order_.rows, range.first, range.second,
        PanelArrays<S, O, Off>{stage_[s].row_map.data(), stage_[s].col.data(),
                               stage_[s].val.data()});
  }

  void upload(const PanelRange& range, int s) {
    const std::size_t m = range.second - range.first;
    const std::size_t nnz = nnz_stage_[s];
    const auto first = [](std::size_t n) {
      return std::make_pair(std::size_t(0), n);
    };
    Kokkos::Timer enqueue;
    up_clock_.begin(lanes_.up);
    Kokkos::deep_copy(lanes_.up, Kokkos::subview(slot_[s].row_map, first(m + 1)),
                      Kokkos::subview(stage_[s].row_map, first(m + 1)));
    Kokkos::deep_copy(lanes_.up, Kokkos::subview(slot_[s].col, first(nnz)),
                      Kokkos::subview(stage_[s].col, first(nnz)));
    Kokkos::deep_copy(lanes_.up, Kokkos::subview(slot_[s].val, first(nnz)),
                      Kokkos::subview(stage_[s].val, first(nnz)));
    up_clock_.end(lanes_.up);
    exposed += enqueue.seconds();
    nnz_[s] = nnz;
    bytes_up += (m + 1) * sizeof(Off) + nnz * (sizeof(O) + sizeof(S));
  }

  DeviceLanes<DevExec>& lanes_;
  const HeteroOrder& order_;
  HostCsr A_, B_;
  SpgemmOptions options_;
  Matrix a_dev_, b_dev_, pending_;
  bool a_resident_ = false, b_resident_ = false, b_loaded_ = false;
  // What becomes of each panel's rows of C.
  enum class Sink { stream, keep, count, into_c, hand_over };
  Sink sink_ = Sink::stream;
  Kokkos::View<Off*, Kokkos::HostSpace> counts_;  // count(): by row of A
  struct Into {                                   // run_into()'s destination
    Kokkos::View<const Off*, Kokkos::HostSpace> row_map;
    O* col = nullptr;
    S* val = nullptr;
    std::size_t chunk = 0;
    DownloadTally* tally = nullptr;
  } into_;
  // run_into's panels of C between the device's thread, which gives one once
  // the last one given has come down (two panels of C on the device at most:
  // the one coming down and the one computing), and this one, which takes it.
  class Handoff {
   public:
    Handoff() = default;
    Handoff& operator=(Handoff&&) = delete;
    void reset() {
      next_.reset();
      busy_ = finished_ = abandoned_ = false;
    }
    void give(const Matrix& C, const PanelRange& range) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return (!next_ && !busy_) || abandoned_; });
      if (abandoned_) throw std::runtime_error("spgemm_hetero: the copies out stopped");
      next_.emplace(C, range);
      changed_.notify_all();
    }
    std::optional<std::pair<Matrix, PanelRange>> take() {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return next_.has_value() || finished_; });
      if (!next_) return std::nullopt;
      std::optional<std::pair<Matrix, PanelRange>> taken = std::move(next_);
      next_.reset();
      busy_ = true;
      return taken;
    }
    void done() {
      set([&] { busy_ = false; });
    }
    void finish() {
      set([&] { finished_ = true; });
    }
    void abandon() {
      set([&] {
        abandoned_ = true;
        busy_ = false;
        next_.reset();
      });
    }

   private:
    template <class F>
    void set(const F& f) {
      std::lock_guard<std::mutex> lock(mutex_);
      f();
      changed_.notify_all();
    }
    std::mutex mutex_;
    std::condition_variable changed_;
    std::optional<std::pair<Matrix, PanelRange>> next_;
    bool busy_ = false, finished_ = false, abandoned_ = false;
  } handoff_;
  std::vector<Kept> kept_;
  Kokkos::View<std::int64_t*, Mem> rows_dev_;
  Slot<Stage> stage_[2];
  Slot<Mem> slot_[2];
  std::size_t nnz_stage_[2] = {0, 0};  // entries gathered in each staging slot
  std::size_t nnz_[2] = {0, 0};        // entries uploaded to each device slot
  CopyClock<DevExec> up_clock_, down_clock_;
  StagedDownloads<S, O, Off, DevExec> downloads_;
  int next_slot_ = 0;
};

template <class S, class O, class Off, class HostExec>
class HostSide {
 public:
  using HostD = Kokkos::Device<HostExec, Kokkos::HostSpace>;
  using Matrix = Csr<S, O, Off, HostD>;
  using Piece = HeteroPiece<S, O, Off, Kokkos::HostSpace>;

  HostSide(const HostExec& exec, const HeteroOrder& order, const Matrix& A,
           const Matrix& B, const SpgemmOptions& options)
      : exec_(exec), order_(order), A_(A), B_(B), options_(options) {}

  // C's rows for positions [begin, end), in one product.
  void run(std::size_t begin, std::size_t end) {
    if (end <= begin) return;
    const auto a_panel = gather_rows<HostD>(
        exec_, A_, Kokkos::subview(order_.rows, std::make_pair(begin, end)));
    const Matrix C = libra::spgemm(exec_, a_panel, B_, options_);
    pieces.push_back(Piece{begin, end, C.row_map, C.col_idx, C.values});
    rows += end - begin;
    products += order_.products(begin, end);
  }

  std::vector<Piece> pieces;
  std::size_t rows = 0;
  std::uint64_t products = 0;

 private:
  HostExec exec_;
  const HeteroOrder& order_;
  Matrix A_, B_;
  SpgemmOptions options_;
};

}  // namespace libra::impl
