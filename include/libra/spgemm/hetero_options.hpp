#pragma once
// What a caller chooses for heterogeneous SpGEMM (libra::spgemm_hetero), and
// what it learns back.
#include <cstddef>
#include <cstdint>

#include "libra/spgemm/impl/hetero_choice.hpp"
#include "libra/spgemm/options.hpp"

namespace libra {

struct HeteroOptions {
  // Each side's SpGEMM on its rows (algorithm, accumulators, tuning). Its
  // memory_budget bounds the host side's temporaries; the device side's come out
  // of device_memory.
  SpgemmOptions spgemm;
  // R, the device's share of the products, in [0, 1]. Negative: chosen from
  // measurements (impl/hetero_choice.hpp): the host alone (R = 0), the device
  // alone (R = 1), or a split at K / (K + 1), K = the host's seconds per product
  // over the device's, whichever the measured rates say is fastest; the rates
  // come from the handle's last calibration or else from one on these matrices.
  // Products with fewer than tuning.split_min_products products, with nothing
  // measured, run on one side: the device when A and B are in its memory, else
  // the host.
  double gpu_share = -1;
  // Bytes the device side may hold at once: B, two panels of A and of C in
  // flight, and the SpGEMM's temporaries. 0: 90% of the device's free memory.
  // When the device's rows (each counted with its row of C at its largest) do
  // not fit half of what is left beside B, they run in panels of a third of it
  // each, A streamed in and C assembled in host memory (out-of-core). A B
  // that does not fit half of the budget (or leaves it less than 1 MiB) is cut
  // into blocks of columns of at most a quarter of the budget beyond 1 MiB
  // each (impl/hetero_column_blocks.hpp): C's columns of each block are a
  // product of their own, with A streamed again for each.
  std::size_t device_memory = 0;
  // The share of A's rows the host computes to measure K, in eight runs of
  // consecutive rows spread over A (their rows of C are not kept).
  double calibration_share = 0.02;

  struct Tuning {
    // Products per device panel when memory does not cut smaller ones (0: an
    // eighth of the device's products, at least 2^22), so that panels' copies
    // overlap their neighbours' compute.
    std::uint64_t panel_products = 0;
    // Copy the device's panels of A through host staging memory even when A is
    // already in device memory (host-only builds: the path host inputs take on
    // a GPU).
    bool stage_a = false;
    // In core, keep the device's panels of C on the device until C's host
    // arrays exist, then bring them down into them in one copy. false: stream
    // each panel down beside the next one's compute into host pieces that C is
    // then copied from, as out of core does.
    bool keep_c_on_device = true;
    // Entries of C per staging slot when kept panels come down (0: 2^20).
    std::size_t download_entries = 0;
    // Out of core with the device taking every row: count C's rows on the
    // device panel by panel first, so that C's host arrays exist before any
    // panel's C comes down straight into them (one copy out, no pieces, no
    // assembly; a count pass more on the device). false: stream the panels
    // into host pieces and assemble C from them, as a split does.
    bool count_first = true;
    // The device's calibration takes this many times calibration_share of the
    // rows: a GPU fed 2% of a product's rows runs far below the rate it has
    // on the whole (ca-AstroPh on an H100: modelled 39.9 ms for the device
    // alone against 13 ms measured).
    double device_calibration_scale = 4;
    // A measured choice splits only when the model expects the split to take
    // at most this share of the faster single side's time. On the H100
    // machine (16 host cores) no split of the R sweep (0.5..0.95) beat the
    // better single side on any shared matrix or R-MAT 16: a split's fixed
    // costs (two SpGEMM calls, the gathers, the device's thread beside 16
    // OpenMP threads, assembling C) are not in the model, hence the margin.
    double split_gain = 0.5;
    // Below this many products (and with no rates in the handle) the side
    // whose memory holds A and B takes the product without calibrating: a
    // calibration's fixed costs (a call on each side) exceed such a product,
    // and so do the copies to the other side. On the H100 machine the device
    // with host inputs paid about 0.45 ms before any work (lp_afiro: 0.46 ms),
    // while its 16 host threads took 0.06-2.8 ms on the shared matrices below
    // 2^24 products.
    std::uint64_t split_min_products = std::uint64_t(1) << 24;
    // Bytes a second the model copies C at (impl/hetero_choice.hpp) until a
    // call of the handle has measured it.
    double copy_bytes_per_second = impl::default_copy_bytes_per_second;
    // Bytes a second the model copies C up to the device at (a host-made C
    // when A and B are on the device; the device-first rule of hetero.hpp).
    double copy_up_bytes_per_second = impl::default_copy_up_bytes_per_second;
    // Cut B into column blocks of at most this many bytes (its row offsets
    // and entries) whenever it is larger, whether or not it fits the device
    // (0: only when it does not; tests walk the blocks with it).
    std::uint64_t b_column_block_bytes = 0;
  } tuning;
};

struct HeteroStats {
  double gpu_share = 0;     // R the rows were split by
  double k = 0;             // host seconds per product / device's (0: not measured)
  bool calibrated = false;  // K measured in this call
  // The model's seconds for each choice (impl/hetero_choice.hpp), when R was
  // chosen from measured rates; 0 otherwise.
  double model_host_only = 0, model_device_only = 0, model_split = 0;
  // The fixed seconds per call the model gives each side (from the
  // calibration's one-row calls; impl/hetero_choice.hpp).
  double model_fixed_device = 0, model_fixed_host = 0;
  // One side took the whole product in one SpGEMM call on A and B themselves
  // (R = 1 with every row fitting the device, or R = 0): no ranking of rows
  // into panels and no assembly of pieces.
  bool device_only = false;
  bool host_only = false;
  // ... the device alone on A and B in its memory, where they were given: C
  // left there, nothing copied (device_memory 0 when chosen before any ranking).
  bool device_in_place = false;
  // A and B on the device and nothing measured: the device's SpGEMM ran first,
  // in place, for seconds_device_first; C's copy up to the device, which the
  // host alone and a split both pay, would have taken longer, so its C was
  // kept and the host was not measured (not calibrated, nothing kept in the
  // handle). When it was not kept, seconds_device_first is what it cost.
  bool device_first = false;
  double seconds_device_first = 0;
  // ... not kept then, but the calibration chose the device alone: that first
  // product was the answer (device_in_place; nothing multiplied twice).
  bool device_first_reused = false;
  // The device's panels of C stayed on the device until C's host arrays
  // existed, and came down into them in download_chunks chunks.
  bool kept_on_device = false;
  std::size_t download_chunks = 0;
  // Out of core, the device alone: C's rows were counted on the device first
  // (seconds_count), then each panel's C came down into C's host arrays
  // (Tuning::count_first).
  bool counted_first = false;
  double seconds_count = 0;
  // ... and panel j+1 computed on a thread of its own while panel j came down
  // (not where the device's space is OpenMP, which keeps the calling thread).
  bool counted_beside = false;
  // B did not fit the device (or tuning.b_column_block_bytes cut it): its
  // columns ran in this many blocks, each a product of its own whose stats
  // are summed here (0: B whole). gpu_share is then the blocks' R weighted by
  // their products, k the last block's.
  int b_column_blocks = 0;
  // The device's NUMA domain (OS index) as hwloc locates it: the threads that
  // feed the device (its side's thread, the copier of C) are bound to that
  // domain's processing units. -1: unknown, or the device is not a GPU; they
  // then run on any core the process may use.
  int device_numa = -1;
  std::uint64_t products = 0;
  std::uint64_t nnz_c = 0;
  std::uint64_t device_products = 0;  // of C's rows (not the calibration's)
  std::uint64_t host_products = 0;
  std::size_t device_rows = 0;  // rows of A the device multiplied (in place: all)
  std::size_t host_rows = 0;
  int device_panels = 0;
  // device_memory cut the device's rows into several panels (A streamed, C
  // assembled in host memory).
  bool out_of_core = false;
  // The budget used; 0 when one side took the product alone, chosen before any
  // ranking: the host (R = 0), which asks nothing of the device, or the device
  // on A and B in its memory (device_in_place), under the SpGEMM's own budget.
  std::size_t device_memory = 0;
  std::size_t panel_bytes = 0;  // the most one panel of A and C may take
  // Bytes copied to and from the device, and the seconds the copies took on
  // their streams; `exposed`: the seconds the device side waited for them.
  std::uint64_t bytes_to_device = 0;
  std::uint64_t bytes_to_host = 0;
  double seconds_transfer = 0;
  double seconds_transfer_exposed = 0;
  // The device side's seconds in its SpGEMM calls, and the seconds its panels
  // of C took to copy out of staging memory into host memory (on a thread of
  // their own, beside the next panels).
  double seconds_device_compute = 0;
  double seconds_copy_out = 0;
  // A and B copied from the device's memory to the host's (B not when it is
  // A), before any calibration; and the rows of A ranked by affinity, for a
  // split or out-of-core panels only (0: not ranked).
  double seconds_host_copies = 0, seconds_ranking = 0;
  double seconds_calibration = 0;  // both sides' calibration panels
  // Of which each side's two calls (B's upload is the device's rest).
  double seconds_calibration_device = 0, seconds_calibration_host = 0;
  double seconds_device = 0;    // the device side after calibration
  double seconds_host = 0;      // the host side after calibration
  double seconds_assemble = 0;  // C from the pieces
  double seconds_total = 0;
  // The share of the copies' time hidden behind compute.
  double overlap() const {
    if (seconds_transfer <= 0) return 0;
    const double hidden = 1 - seconds_transfer_exposed / seconds_transfer;
    return hidden < 0 ? 0 : hidden;
  }
};

// Keeps K between calls, so that a caller multiplying matrices of one kind
// calibrates once.
class HeteroHandle {
 public:
  explicit HeteroHandle(const HeteroOptions& options = {}) : options_(options) {
    rates_.copy = 1.0 / options.tuning.copy_bytes_per_second;
    rates_.copy_up = 1.0 / options.tuning.copy_up_bytes_per_second;
  }
  const HeteroOptions& options() const noexcept { return options_; }
  // K of the last calibration (0 before any).
  double k() const noexcept {
    return rates_.measured() ? rates_.host / rates_.device : 0;
  }
  // The rates the last calls measured (impl/hetero_choice.hpp).
  const impl::HeteroRates& impl_rates() const noexcept { return rates_; }
  void impl_set_rates(const impl::HeteroRates& r) noexcept { rates_ = r; }

 private:
  HeteroOptions options_;
  impl::HeteroRates rates_;
};

}  // namespace libra
