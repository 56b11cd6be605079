#pragma once
// Heterogeneous SpGEMM (ApSpGEMM, Section 5.2): C = A * B computed by a device
// and the host at the same time, and out-of-core products on a device too small
// for them.
//
//   libra::HeteroStats st;
//   auto C = libra::spgemm_hetero(Kokkos::Cuda(), Kokkos::OpenMP(), A, B, {}, &st);
//
// The rows of A are ranked by their affinity for the device (impl/hetero_split.hpp);
// the device takes the first R of the products, the host the rest, each with
// Libra's SpGEMM. R = K / (K + 1), K measured (HeteroOptions::gpu_share). The
// device runs its rows in panels whose copies overlap compute, cut smaller when
// its memory (HeteroOptions::device_memory) cannot hold them all.
//
// A and B may be in host memory (the paper's setting) or in the device's; C comes
// back where they are. In a host-only build OpenMP can play the device and
// Serial the host: the same code runs, which is how CI tests it. The side whose
// space is OpenMP runs on the calling thread, the other on a second thread.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "libra/core/error.hpp"
#include "libra/core/exec_lanes.hpp"
#include "libra/core/kernel_lanes.hpp"
#include "libra/core/launch_traits.hpp"
#include "libra/format/csr.hpp"
#include "libra/spgemm/hetero_options.hpp"
#include "libra/spgemm/impl/hetero_assemble.hpp"
#include "libra/spgemm/impl/hetero_choice.hpp"
#include "libra/spgemm/impl/hetero_column_blocks.hpp"
#include "libra/spgemm/impl/hetero_download.hpp"
#include "libra/spgemm/impl/hetero_sides.hpp"
#include "libra/spgemm/impl/hetero_split.hpp"
#include "libra/util/memory_budget.hpp"

namespace libra {

// The host space that pairs with DevExec by default: the default host space,
// or Serial when DevExec is that space (OpenMP playing the device).
template <class DevExec>
using HeteroHostFor =
#if defined(KOKKOS_ENABLE_SERIAL)
    std::conditional_t<std::is_same<DevExec, Kokkos::DefaultHostExecutionSpace>::value,
                       Kokkos::Serial, Kokkos::DefaultHostExecutionSpace>;
#else
    Kokkos::DefaultHostExecutionSpace;
#endif

namespace impl {

// The view of another matrix's memory under another device type of the same
// memory space (unmanaged: the caller keeps the original alive).
template <class D, class S, class O, class Off, class FromD>
Csr<S, O, Off, D> alias_csr(const Csr<S, O, Off, FromD>& m) {
  using M = Csr<S, O, Off, D>;
  using U = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  return M(
      m.num_rows, m.num_cols,
      Kokkos::View<const Off*, Kokkos::LayoutLeft, D, U>(m.row_map.data(),
                                                         m.row_map.extent(0)),
      Kokkos::View<O*, Kokkos::LayoutLeft, D, U>(m.col_idx.data(), m.col_idx.extent(0)),
      Kokkos::View<S*, Kokkos::LayoutRight, D, U>(m.values.data(), m.values.extent(0)));
}

// The matrix in D's memory: an alias when it is there, else a copy.
template <class D, class S, class O, class Off, class FromD>
Csr<S, O, Off, D> matrix_in(const Csr<S, O, Off, FromD>& m) {
  if constexpr (std::is_same<typename D::memory_space,
                             typename FromD::memory_space>::value) {
    return alias_csr<D>(m);
  } else {
    typename Csr<S, O, Off, D>::row_map_non_const_type rm(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::row_map"),
        m.row_map.extent(0));
    typename Csr<S, O, Off, D>::index_type col(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::col"),
        m.col_idx.extent(0));
    typename Csr<S, O, Off, D>::values_type val(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::hetero::values"),
        m.values.extent(0));
    Kokkos::deep_copy(rm, m.row_map);
    Kokkos::deep_copy(col, m.col_idx);
    Kokkos::deep_copy(val, m.values);
    return Csr<S, O, Off, D>(m.num_rows, m.num_cols, rm, col, val);
  }
}

// Whether two matrices are one (the same arrays).
template <class M>
bool same_arrays(const M& a, const M& b) {
  return a.num_rows == b.num_rows && a.num_cols == b.num_cols &&
         a.row_map.data() == b.row_map.data() && a.col_idx.data() == b.col_idx.data() &&
         a.values.data() == b.values.data();
}

// The same matrix (its arrays shared, not copied) under another device type
// of the same memory space.
template <class D, class S, class O, class Off, class FromD>
Csr<S, O, Off, D> rebind_csr(const Csr<S, O, Off, FromD>& m) {
  using M = Csr<S, O, Off, D>;
  return M(m.num_rows, m.num_cols, typename M::row_map_type(m.row_map),
           typename M::index_type(m.col_idx), typename M::values_type(m.values));
}

// Runs the device's and the host's work at the same time; the OpenMP side (if
// either is) keeps the calling thread.
template <class DevExec, class HostExec, class DeviceWork, class HostWork>
void run_sides(const DevExec& device, const HostExec& host, DeviceWork&& device_work,
               HostWork&& host_work) {
  if constexpr (needs_initial_thread<HostExec>) {
    run_side_by_side(device, host_work, device_work);
  } else {
    run_side_by_side(host, device_work, host_work);
  }
}

}  // namespace impl

template <class DevExec, class HostExec, class S, class O, class Off, class D>
Csr<S, O, Off, D> spgemm_hetero(const DevExec& device, const HostExec& host,
                                HeteroHandle& handle, const Csr<S, O, Off, D>& A,
                                const Csr<S, O, Off, D>& B,
                                HeteroStats* stats = nullptr) {
  static_assert(Kokkos::is_execution_space<DevExec>::value &&
                    Kokkos::is_execution_space<HostExec>::value,
                "spgemm_hetero takes a device and a host execution space");
  static_assert(impl::is_host_space<HostExec>::value,
                "spgemm_hetero: the second space must be a host space");
  static_assert(!std::is_same<DevExec, HostExec>::value,
                "spgemm_hetero: the two sides need two different execution spaces");
  static_assert(
      !(impl::needs_initial_thread<DevExec> && impl::needs_initial_thread<HostExec>),
      "spgemm_hetero: only one side can be OpenMP");
  using DevMem = typename DevExec::memory_space;
  using InMem = typename D::memory_space;
  static_assert(std::is_same<InMem, DevMem>::value ||
                    Kokkos::SpaceAccessibility<Kokkos::HostSpace, InMem>::accessible,
                "spgemm_hetero: A and B must be in host memory or in the device's");
  using HostD = Kokkos::Device<HostExec, Kokkos::HostSpace>;
  using DevD = Kokkos::Device<DevExec, DevMem>;
  using HostMatrix = Csr<S, O, Off, HostD>;
  using DevMatrix = Csr<S, O, Off, DevD>;
  using Host = Kokkos::DefaultHostExecutionSpace;  // the calling thread's host space

  const HeteroOptions& options = handle.options();
  if (A.num_cols != B.num_rows) {
    throw ShapeError("spgemm_hetero: A is " + std::to_string(A.num_rows) + " x " +
                     std::to_string(A.num_cols) + " but B is " +
                     std::to_string(B.num_rows) + " x " + std::to_string(B.num_cols) +
                     " (inner dimensions differ)");
  }
  if (!(options.gpu_share <= 1) || std::isnan(options.gpu_share)) {
    throw ArgumentError(
        "spgemm_hetero: gpu_share must be in [0, 1] (negative: measured)");
  }
  if (!(options.calibration_share > 0 && options.calibration_share < 0.5)) {
    throw ArgumentError("spgemm_hetero: calibration_share must be in (0, 0.5)");
  }
  for (const double rate :
       {options.tuning.copy_bytes_per_second, options.tuning.copy_up_bytes_per_second}) {
    if (!(rate > 0) || std::isinf(rate)) {
      throw ArgumentError(
          "spgemm_hetero: tuning.copy_bytes_per_second and copy_up_bytes_per_second "
          "must be positive and finite");
    }
  }
  Kokkos::Timer total;
  HeteroStats st;
  if constexpr (impl::is_cuda_space<DevExec>) {
    st.device_numa = gpu_numa_domain(impl::cuda_device_of(device));
  }

  constexpr bool on_device = std::is_same<InMem, DevMem>::value;
  DevMatrix a_dev, b_dev;
  if constexpr (on_device) {
    a_dev = impl::alias_csr<DevD>(A);
    b_dev = impl::alias_csr<DevD>(B);
  }
  const bool a_resident = on_device && !options.tuning.stage_a;

  SpgemmOptions host_options = options.spgemm;
  host_options.progress = nullptr;
  // R: given; else chosen from the rates kept in the handle, or measured now
  // on a sample of the ranking's rows for each side (impl/hetero_choice.hpp).
  double R = options.gpu_share;
  impl::HeteroRates rates = handle.impl_rates();
  // The stats of C, handed back with it.
  const auto done = [&](Csr<S, O, Off, D> C) {
    st.gpu_share = R;
    st.nnz_c = static_cast<std::uint64_t>(C.nnz());
    st.seconds_total = total.seconds();
    if (stats) *stats = st;
    return C;
  };
  // The stats of the device alone on A and B in place.
  const auto in_place_stats = [&](std::uint64_t products, std::size_t rows,
                                  double seconds) {
    st.seconds_device = st.seconds_device_compute = seconds;
    st.device_only = st.device_in_place = true;
    st.device_panels = products > 0 ? 1 : 0;
    st.device_products = products;
    st.device_rows = rows;
  };

  // A and B on the device, and R = 1 given or nothing measured: the device's
  // SpGEMM multiplies them in place first, under options.spgemm's own budget
  // (no host copy, no ranking, no device budget of the split's; on an H200
  // such products took 1.5-5x the device's own SpGEMM through them), and its
  // count of the products decides what follows:
  //   - R given, or fewer than Tuning::split_min_products products (the side
  //     whose memory holds A and B takes a small product): its C is the answer;
  //   - else its C is the answer when C's copy up to the device, which the
  //     host alone and a split (assembling C in host memory) both pay, would
  //     take longer, at the handle's copy-up rate, than this product took: the
  //     host is not measured (device_first). Else both sides are calibrated
  //     as below, and its C is kept until they have been: it is the answer
  //     if the device alone is chosen after all (device_first_reused).
  DevMatrix first_c;
  bool have_first = false;
  if constexpr (on_device) {
    if (a_resident && options.device_memory == 0 &&
        (R >= 1 || (R < 0 && !rates.measured()))) {
      SpgemmOptions o = options.spgemm;
      o.progress = nullptr;
      SpgemmStats sst;
      Kokkos::Timer t;
      const DevMatrix Cd = libra::spgemm(device, a_dev, b_dev, o, &sst);
      st.products = sst.products;
      const bool small = sst.products < options.tuning.split_min_products;
      bool keep = R >= 1 || small;
      if (!keep) {
        device.fence();
        st.seconds_device_first = t.seconds();
        const double copy_up = static_cast<double>(Cd.col_idx.extent(0)) *
                               static_cast<double>(sizeof(O) + sizeof(S)) * rates.copy_up;
        keep = st.device_first = copy_up >= st.seconds_device_first;
        if (!keep) {
          first_c = Cd;
          have_first = true;
        }
      }
      if (keep) {
        R = 1;
        in_place_stats(sst.products,
                       sst.products > 0 ? static_cast<std::size_t>(A.num_rows) : 0,
                       t.seconds());
        return done(impl::rebind_csr<D>(Cd));
      }
    }
  }

  // The products, counted where A and B are (no copy before the choice).
  const impl::ProductTotals work = [&] {
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, InMem>::accessible) {
      return impl::product_totals(Host(), impl::alias_csr<HostD>(A),
                                  impl::alias_csr<HostD>(B));
    } else {
      return impl::product_totals(device, a_dev, b_dev, 0);
    }
  }();
  st.products = work.products;
  // The device alone on A and B where they are, after the budget.
  const auto device_in_place = [&](const SpgemmOptions& o) -> Csr<S, O, Off, D> {
    if constexpr (on_device) {
      Kokkos::Timer t;
      const DevMatrix Cd = libra::spgemm(device, a_dev, b_dev, o);
      in_place_stats(work.products, work.rows, t.seconds());
      return done(impl::rebind_csr<D>(Cd));
    } else {
      throw Error("spgemm_hetero: A and B are not in the device's memory");
    }
  };
  const auto choose = [&] {
    const impl::HeteroChoice c = impl::choose_share(
        rates, static_cast<double>(work.products), on_device, options.tuning.split_gain);
    st.model_host_only = c.seconds_host_only;
    st.model_device_only = c.seconds_device_only;
    st.model_split = c.seconds_split;
    st.model_fixed_device = rates.fixed_device;
    st.model_fixed_host = rates.fixed_host;
    return c.gpu_share;
  };
  if (R < 0 && rates.measured()) {
    st.k = rates.host / rates.device;
    R = choose();
  }
  // Small and nothing measured: the side whose memory holds A and B (its copies
  // would cost more than the product; Tuning::split_min_products).
  if (R < 0 && work.products < options.tuning.split_min_products) R = on_device ? 1 : 0;

  // Host copies for the host side and the ranking; B shares A's when it is A
  // (C = A * A).
  Kokkos::Timer copies;
  const HostMatrix Ah = impl::matrix_in<HostD>(A);
  const HostMatrix Bh = impl::same_arrays(A, B) ? Ah : impl::matrix_in<HostD>(B);
  if constexpr (!std::is_same<InMem, Kokkos::HostSpace>::value) {
    st.seconds_host_copies = copies.seconds();
  }
  // The host alone: one SpGEMM on A and B as they are, C straight into its
  // arrays (no ranking, no gather, no pieces, nothing on the device).
  const auto host_alone = [&] {
    Kokkos::Timer t;
    const HostMatrix Ch = libra::spgemm(host, Ah, Bh, host_options);
    st.seconds_host = t.seconds();
    Csr<S, O, Off, D> C;
    if constexpr (std::is_same<InMem, Kokkos::HostSpace>::value) {
      C = impl::rebind_csr<D>(Ch);
    } else {
      C = impl::matrix_in<D>(Ch);
    }
    st.host_only = true;
    st.host_products = work.products;
    st.host_rows = work.rows;
    return done(C);
  };

  if (R == 0) return host_alone();

  // The ranking of A's rows, made when a split or out-of-core panels need it:
  // a side that takes every row in core multiplies A in its own order (the
  // ranking took 0.4-1.2 ms of products of 10-50 ms on the H100 machine).
  // The sides keep a reference to it.
  impl::HeteroOrder order;
  bool ranked = false;
  const auto rank = [&] {
    if (ranked) return;
    Kokkos::Timer ranking;
    order = impl::affinity_order(Host(), Ah, Bh);
    st.seconds_ranking = ranking.seconds();
    ranked = true;
  };

  // The device's memory: B (unless it is there and the budget is the card's free
  // memory, which already leaves it out), two panels in flight, temporaries.
  const std::uint64_t b_bytes = impl::csr_bytes(B);
  std::size_t budget = options.device_memory;
  std::uint64_t b_counted = b_bytes;
  if (budget == 0) {
    bool cuda = false;
    int cuda_device = 0;
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (impl::is_cuda_space<DevExec>) {
      cuda = true;
      cuda_device = device.cuda_device();
    }
#endif
    budget = static_cast<std::size_t>(
        0.9 * static_cast<double>(free_memory_bytes(cuda, cuda_device)));
    if (on_device) b_counted = 0;
  }
  st.device_memory = budget;
  // B too large for the device (or cut by the tuning): its column blocks.
  const std::uint64_t forced_block = options.tuning.b_column_block_bytes;
  if (B.num_cols > 1 && ((forced_block > 0 && b_bytes > forced_block) ||
                         !impl::fits_device_memory(budget, b_counted))) {
    const std::uint64_t limit = forced_block > 0 ? forced_block
                                : budget > impl::DeviceMemorySplit::reserve
                                    ? (budget - impl::DeviceMemorySplit::reserve) / 4
                                    : 0;
    std::string why;
    const std::vector<std::int64_t> starts =
        impl::column_block_starts<S, O, Off>(Bh, limit, why);
    if (starts.empty()) {
      throw ArgumentError("spgemm_hetero: B takes " + std::to_string(b_bytes) +
                          " bytes of the device memory given (" + std::to_string(budget) +
                          "), which must hold it twice over and 1 MiB besides; nor "
                          "do column blocks of B fit " +
                          std::to_string(limit) + " bytes each: " + why);
    }
    // Each block under the budget measured here, through a handle of its own
    // that starts from and hands back this one's rates (the first block
    // calibrates, when anything does; the others keep its K).
    HeteroOptions block_options = options;
    block_options.device_memory = budget;
    block_options.tuning.b_column_block_bytes = 0;
    HeteroHandle block_handle(block_options);
    block_handle.impl_set_rates(handle.impl_rates());
    using HostCsr = Csr<S, O, Off, HostD>;
    std::vector<HostCsr> parts;
    std::vector<impl::BlockRowsOf<S, O, Off>> rows;
    HeteroStats sum;
    sum.device_only = sum.host_only = true;
    double weighted_share = 0;
    const auto b_rm = Bh.row_map;
    const auto b_col = Bh.col_idx;
    const auto b_val = Bh.values;
    for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
      const O first = static_cast<O>(starts[b]), end = static_cast<O>(starts[b + 1]);
      const HostCsr Bb = impl::build_csr<S, O, Off, HostD>(
          Host(), static_cast<O>(Bh.num_rows), static_cast<O>(end - first),
          impl::ColumnRangeRows<decltype(b_rm), decltype(b_col), decltype(b_val), O>{
              b_rm, b_col, b_val, first, end},
          "spgemm_hetero: a column block of B");
      HeteroStats part;
      parts.push_back(spgemm_hetero(device, host, block_handle, Ah, Bb, &part));
      rows.push_back({parts.back().row_map.data(), parts.back().col_idx.data(),
                      parts.back().values.data(), first});
      impl::add_block_stats(sum, part);
      weighted_share += part.gpu_share * static_cast<double>(part.products);
      sum.k = part.k;  // the last block's (the others start from the first's)
    }
    handle.impl_set_rates(block_handle.impl_rates());
    Kokkos::Timer assemble;
    const HostCsr Ch = impl::build_csr<S, O, Off, HostD>(
        Host(), static_cast<O>(A.num_rows), static_cast<O>(B.num_cols),
        impl::SideBySideRows<S, O, Off>{rows.data(), static_cast<int>(rows.size())},
        "spgemm_hetero: C");
    parts.clear();
    // The blocks' sums, beside what this call measured before it cut B.
    sum.device_numa = st.device_numa;
    sum.seconds_host_copies = st.seconds_host_copies;
    sum.device_memory = budget;
    sum.b_column_blocks = static_cast<int>(rows.size());
    sum.seconds_assemble += assemble.seconds();
    st = sum;
    R = st.products > 0 ? weighted_share / static_cast<double>(st.products) : 0;
    if constexpr (std::is_same<InMem, Kokkos::HostSpace>::value) {
      return done(impl::rebind_csr<D>(Ch));
    } else {
      return done(impl::matrix_in<D>(Ch));
    }
  }
  const impl::DeviceMemorySplit memory = impl::split_device_memory(budget, b_counted);
  const std::uint64_t cap = memory.panel;
  st.panel_bytes = cap;
  SpgemmOptions device_options = options.spgemm;
  device_options.memory_budget =
      options.spgemm.memory_budget
          ? std::min<std::size_t>(options.spgemm.memory_budget, memory.spgemm_budget)
          : memory.spgemm_budget;
  device_options.progress = nullptr;
  const impl::DeviceRowCost<S, O, Off> cost{static_cast<std::uint64_t>(B.num_cols)};
  // Every row's C fits the device beside the rest: panels of C can stay there
  // until C's host arrays exist (in core whatever R turns out to be).
  const bool all_in_core = impl::all_rows_cost(Host(), Ah, Bh, cost) <= memory.whole;
  const bool keep = all_in_core && options.tuning.keep_c_on_device;
  const std::size_t download_entries = options.tuning.download_entries
                                           ? options.tuning.download_entries
                                           : std::size_t(1) << 20;
  // In-core when the rows fit half the device (panels cut for overlap only),
  // else out-of-core: panels that fit a third each.
  // Panels of positions [begin, end) of ranking o (`counts`: whether running
  // them out of core makes the product out of core; not a calibration's).
  const auto panels_of = [&](const impl::HeteroOrder& o, std::size_t begin,
                             std::size_t end, bool counts) {
    const bool in_core = impl::rows_cost(o, Ah, begin, end, cost) <= memory.whole;
    if (!in_core && counts) st.out_of_core = true;
    const std::uint64_t products = o.products(begin, end);
    // Kept panels need no overlap with their copies: one panel.
    const std::uint64_t per_panel =
        options.tuning.panel_products ? options.tuning.panel_products
        : keep                        ? std::max<std::uint64_t>(products, 1)
               : std::max<std::uint64_t>(products / 8, std::uint64_t(1) << 22);
    return impl::plan_device_panels(o, Ah, begin, end, cost,
                                    in_core ? memory.whole : memory.panel, per_panel);
  };
  const auto device_panels = [&](std::size_t begin, std::size_t end) {
    rank();
    return panels_of(order, begin, end, true);
  };

  impl::LanesLease<DevExec> lease(device);
  impl::DeviceLanes<DevExec>& lanes = *lease;
  // The device side's products launch their bins side by side on lanes of
  // their own (core/kernel_lanes.hpp), made here, on the thread that
  // initialised Kokkos (Kokkos 3.4 makes CUDA instances on no other), and kept
  // in the cache for the device side's thread.
  { impl::LanesLease<DevExec, impl::KernelLanes<DevExec>> kernel_lanes(device); }
  impl::DeviceSide<S, O, Off, DevExec, HostMatrix> dev_side(
      lanes, order, Ah, Bh, a_resident ? &a_dev : nullptr, on_device ? &b_dev : nullptr,
      device_options);
  dev_side.keep_on_device(keep);
  impl::HostSide<S, O, Off, HostExec> host_side(host, order, Ah, Bh, host_options);

  if (R < 0) {
    // Measured now, each side on runs of consecutive rows of A
    // (impl::block_sample): the host on calibration_share of the rows, the
    // device on Tuning::device_calibration_scale times more, their runs
    // interleaved. Their rows of C are not kept: whichever way the product
    // then runs, it computes every row once more.
    constexpr std::size_t calibration_runs = 8;
    const double dev_share =
        std::min(0.5, options.calibration_share *
                          std::max(1.0, options.tuning.device_calibration_scale));
    const impl::HeteroOrder dev_rows =
        impl::block_sample(Ah, Bh, dev_share, calibration_runs, 0.25);
    const impl::HeteroOrder host_rows =
        impl::block_sample(Ah, Bh, options.calibration_share, calibration_runs, 0.75);
    if (dev_rows.size() >= 1 && host_rows.size() >= 1) {
      Kokkos::Timer calibration;
      dev_side.load_b();
      impl::DeviceSide<S, O, Off, DevExec, HostMatrix> dev_cal(
          lanes, dev_rows, Ah, Bh, a_resident ? &a_dev : nullptr, &dev_side.b(),
          device_options);
      dev_cal.keep_on_device(keep);
      // Each side's first row alone, then the rest, for its fixed cost beside
      // its rate (impl::fit_side).
      const std::size_t dev_one = dev_rows.size() >= 2 ? 1 : 0;
      const std::size_t host_one = host_rows.size() >= 2 ? 1 : 0;
      double t_dev[2] = {0, 0}, t_host[2] = {0, 0};
      const auto one_panel = panels_of(dev_rows, 0, dev_one, false);
      const auto panels = panels_of(dev_rows, dev_one, dev_rows.size(), false);
      // One side after the other, on this thread: side by side, the host's
      // OpenMP threads took the cores the device's thread needed, and the
      // device's rate came out 3-10x too slow (ca-AstroPh on an H100 machine).
      Kokkos::Timer t;
      dev_cal.run(one_panel);
      t_dev[0] = t.seconds();
      t.reset();
      dev_cal.run(panels);
      t_dev[1] = t.seconds();
      st.seconds_calibration_device = t_dev[0] + t_dev[1];
      const auto fit = [](const double* t, std::uint64_t one, std::uint64_t all) {
        if (one == 0) {  // a share of one row: no fixed cost told apart
          return impl::SideFit{std::max(t[1], 1e-9) / static_cast<double>(all), 0};
        }
        return impl::fit_side(t[0], static_cast<double>(one), t[1],
                              static_cast<double>(all - one));
      };
      const auto dev_fit = fit(t_dev, dev_rows.products(0, dev_one), dev_rows.total);
      impl::HostSide<S, O, Off, HostExec> host_cal(host, host_rows, Ah, Bh, host_options);
      t.reset();
      host_cal.run(0, host_one);
      t_host[0] = t.seconds();
      t.reset();
      host_cal.run(host_one, host_rows.size());
      t_host[1] = t.seconds();
      st.seconds_calibration = calibration.seconds();
      st.seconds_calibration_host = t_host[0] + t_host[1];
      const auto host_fit = fit(t_host, host_rows.products(0, host_one), host_rows.total);
      rates.device = std::max(dev_fit.per_product, 1e-15);
      rates.host = std::max(host_fit.per_product, 1e-15);
      rates.fixed_device = dev_fit.fixed;
      rates.fixed_host = host_fit.fixed;
      // C's bytes per product, from the calibration's rows of C in reach (the
      // device's are streamed away when they are not kept).
      std::uint64_t entries = 0, counted = host_rows.total;
      for (const auto& p : host_cal.pieces) entries += p.col.extent(0);
      if (!dev_cal.kept().empty()) counted += dev_rows.total;
      for (const auto& k : dev_cal.kept()) entries += k.C.col_idx.extent(0);
      rates.bytes_per_product = static_cast<double>(entries * (sizeof(O) + sizeof(S))) /
                                static_cast<double>(std::max<std::uint64_t>(counted, 1));
      st.k = rates.host / rates.device;
      st.calibrated = true;
      handle.impl_set_rates(rates);
      R = choose();
    } else {
      R = 1;  // too few rows to split: the device takes them
    }
  }

  // A split that leaves one side no row (R inside the ranking's first or last
  // row) is the other side alone.
  if (R > 0 && R < 1) {
    rank();
    const std::size_t at = order.position_of(R * static_cast<double>(order.total));
    if (at == 0) R = 0;
    if (at >= order.size()) R = 1;
  }
  // The device's product made before the calibration is the answer when the
  // device alone is chosen after all, in core or not; else its memory goes back
  // before either side runs.
  if constexpr (on_device) {  // a first product is made only there
    if (have_first && R >= 1) {
      st.device_first_reused = true;
      in_place_stats(st.products,
                     st.products > 0 ? static_cast<std::size_t>(A.num_rows) : 0,
                     st.seconds_device_first);
      return done(impl::rebind_csr<D>(first_c));
    }
    first_c = DevMatrix();
  }
  // One side takes everything: one SpGEMM on A and B as they are, C straight
  // into its arrays (no gather, no pieces).
  if (R <= 0) return host_alone();
  if (R >= 1 && keep && work.rows > 0) {
    if constexpr (on_device) {
      return device_in_place(device_options);
    } else {
      Kokkos::Timer t;
      // B goes up once (the calibration's copy, if it made one), and A is B's
      // copy when it is B (C = A * A).
      Kokkos::Timer up;
      dev_side.load_b();
      const DevMatrix b_d = dev_side.b();
      const bool a_is_b = impl::same_arrays(Ah, Bh);
      const DevMatrix a_d = a_is_b ? b_d : impl::matrix_in<DevD>(Ah);
      Kokkos::fence();
      st.seconds_transfer += up.seconds();
      st.seconds_transfer_exposed += up.seconds();
      st.bytes_to_device = dev_side.bytes_up + (a_is_b ? 0 : impl::csr_bytes(Ah));
      Kokkos::Timer compute;
      const DevMatrix Cd = libra::spgemm(device, a_d, b_d, device_options);
      st.seconds_device_compute = compute.seconds();
      Kokkos::View<Off*, Kokkos::HostSpace> rm(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::csr::row_map"),
          Cd.row_map.extent(0));
      Kokkos::deep_copy(rm, Cd.row_map);
      const auto [col, val] =
          impl::host_entries<O, S>(static_cast<std::size_t>(Cd.nnz()));
      impl::DownloadTally tally;
      const Kokkos::View<const Off*, Kokkos::HostSpace> offsets = rm;
      Kokkos::Timer download;
      impl::download_rows(
          lanes.down, Host(), offsets, Cd.col_idx, Cd.values, col.data(), val.data(),
          [=](const std::int64_t p) { return offsets(p); }, true, download_entries,
          tally);
      if (tally.bytes > 0) {
        rates.copy = download.seconds() / static_cast<double>(tally.bytes);
        handle.impl_set_rates(rates);
      }
      st.bytes_to_host = rm.extent(0) * sizeof(Off) + tally.bytes;
      st.seconds_transfer += tally.seconds_transfer;
      st.seconds_transfer_exposed += tally.seconds_waited;
      st.seconds_copy_out = tally.seconds_copy_out;
      st.download_chunks = tally.chunks;
      st.kept_on_device = true;
      st.seconds_device = t.seconds();
      st.device_only = true;
      st.device_panels = 1;
      st.device_products = work.products;
      st.device_rows = work.rows;
      return done(Csr<S, O, Off, D>(A.num_rows, B.num_cols, rm, col, val));
    }
  }

  // Out of core, the device alone: C's rows counted first, then each panel's C
  // straight into C's host arrays (Tuning::count_first).
  if (R >= 1 && !all_in_core && options.tuning.count_first && work.rows > 0) {
    rank();
    Kokkos::Timer t;
    const auto panels = device_panels(0, order.size());
    Kokkos::Timer counting;
    const auto row_map = dev_side.count(panels, static_cast<std::size_t>(A.num_rows));
    st.seconds_count = counting.seconds();
    const auto [col, val] = impl::host_entries<O, S>(
        static_cast<std::size_t>(row_map(row_map.extent(0) - 1)));
    impl::DownloadTally tally;
    dev_side.run_into(panels, row_map, col.data(), val.data(), download_entries, tally);
    lanes.fence_all();
    const Csr<S, O, Off, HostD> Ch(A.num_rows, B.num_cols, row_map, col, val);
    Csr<S, O, Off, D> C;
    if constexpr (std::is_same<InMem, Kokkos::HostSpace>::value) {
      C = impl::rebind_csr<D>(Ch);
    } else {
      C = impl::matrix_in<D>(Ch);
    }
    st.seconds_device = t.seconds();
    st.counted_first = true;
    st.counted_beside = dev_side.beside;
    st.device_products = dev_side.products;
    st.device_rows = dev_side.rows;
    st.device_panels = dev_side.panels_run;
    st.bytes_to_device = dev_side.bytes_up;
    st.bytes_to_host = dev_side.bytes_down + tally.bytes;
    st.seconds_transfer = dev_side.transfer_seconds() + tally.seconds_transfer;
    st.seconds_transfer_exposed = dev_side.exposed + tally.seconds_waited;
    st.seconds_copy_out = tally.seconds_copy_out;
    st.download_chunks = tally.chunks;
    st.seconds_device_compute = dev_side.compute_seconds;
    return done(C);
  }

  rank();
  const std::size_t split =
      std::clamp(order.position_of(R * static_cast<double>(order.total)), std::size_t(0),
                 order.size());
  const auto panels = device_panels(0, split);
  double t_dev = 0, t_host = 0;
  impl::run_sides(
      device, host,
      [&] {
        Kokkos::Timer t;
        dev_side.run(panels);
        t_dev = t.seconds();
      },
      [&] {
        Kokkos::Timer t;
        host_side.run(split, order.size());
        t_host = t.seconds();
      });
  st.seconds_device = t_dev;
  st.seconds_host = t_host;
  lanes.fence_all();

  Kokkos::Timer assemble;
  const auto device_pieces = dev_side.pieces();
  impl::DownloadTally tally;
  auto arrays = impl::assemble_pieces<S, O, Off>(Host(), order, A.num_rows, device_pieces,
                                                 host_side.pieces, dev_side.kept(),
                                                 lanes.down, download_entries, tally);
  Csr<S, O, Off, D> C;
  if constexpr (std::is_same<InMem, Kokkos::HostSpace>::value) {
    C = Csr<S, O, Off, D>(A.num_rows, B.num_cols, arrays.row_map, arrays.col, arrays.val);
  } else {
    C = impl::matrix_in<D>(Csr<S, O, Off, Kokkos::Device<Host, Kokkos::HostSpace>>(
        A.num_rows, B.num_cols, arrays.row_map, arrays.col, arrays.val));
  }
  st.seconds_assemble = assemble.seconds();
  if (C.nnz() > 0) {
    rates.copy =
        st.seconds_assemble / static_cast<double>(static_cast<std::uint64_t>(C.nnz()) *
                                                  (sizeof(O) + sizeof(S)));
    handle.impl_set_rates(rates);
  }

  st.device_products = dev_side.products;
  st.host_products = host_side.products;
  st.device_rows = dev_side.rows;
  st.host_rows = host_side.rows;
  st.device_panels = dev_side.panels_run;
  st.bytes_to_device = dev_side.bytes_up;
  st.bytes_to_host = dev_side.bytes_down + tally.bytes;
  for (const auto& k : dev_side.kept())
    st.bytes_to_host += k.C.row_map.extent(0) * sizeof(Off);
  st.seconds_transfer = dev_side.transfer_seconds() + tally.seconds_transfer;
  st.seconds_transfer_exposed = dev_side.exposed + tally.seconds_waited;
  st.seconds_copy_out = dev_side.copy_out_seconds() + tally.seconds_copy_out;
  st.kept_on_device = !dev_side.kept().empty();
  st.download_chunks = tally.chunks;
  st.seconds_device_compute = dev_side.compute_seconds;
  return done(C);
}

// The same with a handle of its own (K measured, unless options.gpu_share says R).
template <class DevExec, class HostExec, class S, class O, class Off, class D>
Csr<S, O, Off, D> spgemm_hetero(const DevExec& device, const HostExec& host,
                                const Csr<S, O, Off, D>& A, const Csr<S, O, Off, D>& B,
                                const HeteroOptions& options = {},
                                HeteroStats* stats = nullptr) {
  HeteroHandle handle(options);
  return spgemm_hetero(device, host, handle, A, B, stats);
}

}  // namespace libra
