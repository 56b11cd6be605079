// Heterogeneous SpGEMM (libra/spgemm/hetero.hpp) against the reference oracle:
// every matrix of unit_tests/data and generated R-MAT matrices, split at R = 0,
// 0.3, 1 and at a calibrated R, out of core under a tiny device budget, with A
// and B in host memory and in the device's. The test's space plays the device;
// the host is OpenMP under Cuda and Serial, Serial under OpenMP, so that both
// thread arrangements run (the OpenMP side keeps the calling thread).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "libra/format/convert.hpp"
#include "libra/format/mirror.hpp"
#include "libra/generate/rmat.hpp"
#include "libra/io/read.hpp"
#include "libra/spgemm/hetero.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/test_space.hpp"

namespace spgemm_hetero_test {

using libra::test::Device;
using libra::test::Exec;
#if defined(LIBRA_TEST_SPACE_OPENMP)
using HostExec = Kokkos::Serial;
#else
using HostExec = Kokkos::OpenMP;
#endif
using Matrix = libra::Csr<double, int, int, Device>;
using HostMatrix =
    libra::Csr<double, int, int, Kokkos::Device<HostExec, Kokkos::HostSpace>>;

struct Case {
  Matrix A, B;
  libra::ref::Matrix expected;
  std::vector<double> scale;
  std::string name;
};

Case make_case(const Matrix& A, const std::string& name) {
  Case c;
  c.A = A;
  c.B = A.num_rows == A.num_cols ? A : libra::transpose(Exec(), A);
  c.expected =
      libra::ref::spgemm(libra::test::to_ref(c.A), libra::test::to_ref(c.B), &c.scale);
  c.name = name;
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const auto& f : libra::test::matrix_files(libra::test::matrix_dir()))
    all.push_back(make_case(libra::io::read_matrix<double, int, int, Device>(f), f));
  libra::RmatOptions r;
  r.scale = 10;
  r.edge_factor = 8;
  r.values = libra::RmatValues::uniform;
  all.push_back(make_case(libra::rmat<double, int, int>(Exec(), r), "rmat10"));
  return all;
}

// C, checked against the oracle, and the invariants of the stats.
template <class M>
libra::HeteroStats check(const Case& c, const M& A, const M& B,
                         const libra::HeteroOptions& options,
                         libra::HeteroHandle* handle) {
  libra::HeteroStats st;
  SCOPED_TRACE("gpu_share " +
               std::to_string(handle ? handle->options().gpu_share : options.gpu_share));
  const M C = handle ? libra::spgemm_hetero(Exec(), HostExec(), *handle, A, B, &st)
                     : libra::spgemm_hetero(Exec(), HostExec(), A, B, options, &st);
  EXPECT_TRUE(
      libra::test::same_matrix(c.expected, libra::test::to_ref(C), 1e-12, &c.scale));
  const auto products =
      libra::ref::spgemm_products(libra::test::to_ref(c.A), libra::test::to_ref(c.B));
  EXPECT_EQ(st.products, products);
  EXPECT_EQ(st.device_products + st.host_products, products);
  EXPECT_EQ(st.nnz_c, static_cast<std::uint64_t>(c.expected.nnz()));
  EXPECT_GE(st.gpu_share, 0);
  EXPECT_LE(st.gpu_share, 1);
  EXPECT_EQ(st.device_panels > 0, st.device_products > 0);
  // The device's threads go near it where hwloc locates a GPU.
  int numa = -1;
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    numa = libra::gpu_numa_domain(Exec().cuda_device());
  }
#endif
  EXPECT_EQ(st.device_numa, numa);
  return st;
}

// A matrix copied to host memory (the paper's setting for A and B).
HostMatrix on_host(const Matrix& m) {
  return libra::copy_to<Kokkos::Device<HostExec, Kokkos::HostSpace>>(m);
}

// check() with A and B in host memory.
libra::HeteroStats check_host_inputs(const Case& c, const libra::HeteroOptions& options) {
  return check(c, on_host(c.A), on_host(c.B), options, nullptr);
}

// Rows of A with at least one product.
std::size_t rows_with_products(const Case& c) {
  const auto a = libra::test::to_ref(c.A);
  const auto b = libra::test::to_ref(c.B);
  std::size_t rows = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    bool any = false;
    for (auto q = a.ptr[i]; q < a.ptr[i + 1]; ++q)
      any = any || b.ptr[a.col[q] + 1] > b.ptr[a.col[q]];
    rows += any;
  }
  return rows;
}

libra::HeteroOptions with_share(double R) {
  libra::HeteroOptions o;
  o.gpu_share = R;
  return o;
}

TEST(SpgemmHetero, FixedSharesOnEveryMatrix) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto none = check(c, c.A, c.B, with_share(0), nullptr);
    EXPECT_EQ(none.device_products, 0u);
    EXPECT_EQ(none.device_panels, 0);
    EXPECT_FALSE(none.calibrated);
    EXPECT_TRUE(none.host_only);        // one host SpGEMM on A and B
    EXPECT_EQ(none.device_memory, 0u);  // before any ranking or device budget
    EXPECT_EQ(none.host_rows, rows_with_products(c));
    EXPECT_FALSE(none.device_only);
    const auto all = check(c, c.A, c.B, with_share(1), nullptr);
    EXPECT_EQ(all.host_products, 0u);
    EXPECT_EQ(all.host_rows, 0u);
    EXPECT_FALSE(all.host_only);
    // One device SpGEMM on A and B (in core: the default budget holds them),
    // where they are, before any ranking.
    EXPECT_EQ(all.device_only, all.products > 0);
    EXPECT_EQ(all.device_in_place, all.products > 0);
    if (all.products > 0) EXPECT_EQ(all.device_memory, 0u);
    const auto part = check(c, c.A, c.B, with_share(0.3), nullptr);
    // A split, unless the device's prefix takes every row (a tiny matrix whose
    // first row holds 30% of the products) or none (30% of the products is
    // below one): then one side alone.
    EXPECT_EQ(part.host_only, part.device_products == 0);
    EXPECT_EQ(part.device_only, part.products > 0 && part.host_products == 0);
    EXPECT_EQ(part.device_in_place, part.device_only);
    // The device's prefix is the first one reaching 30% of the products.
    if (part.products > 0) {
      EXPECT_GE(part.device_products, static_cast<std::uint64_t>(0.3 * part.products));
      EXPECT_GT(part.host_products + part.device_products, 0u);
    }
    if (part.device_products > 0) {
      // In core: its panel of C stayed on the device until C's arrays existed.
      EXPECT_TRUE(part.kept_on_device);
      EXPECT_EQ(part.device_panels, 1);
      EXPECT_EQ(part.download_chunks > 0, part.nnz_c > 0);
    }
  }
}

// A measured R is the choice the model (impl/hetero_choice.hpp) expects to be
// fastest: the host alone, the device alone, or a split at K / (K + 1).
// The ranking's position where R = K / (K + 1) cuts it.
std::size_t modelled_cut(const Case& c, const libra::HeteroStats& st,
                         std::size_t* rows = nullptr) {
  const HostMatrix Ah = on_host(c.A);
  const HostMatrix Bh = on_host(c.B);
  const auto order = libra::impl::affinity_order(HostExec(), Ah, Bh);
  if (rows) *rows = order.size();
  return order.position_of(st.k / (st.k + 1) * static_cast<double>(order.total));
}

void expect_modelled_choice(const Case& c, const libra::HeteroStats& st,
                            double split_gain) {
  const double best = std::min(st.model_host_only, st.model_device_only);
  if (st.gpu_share > 0 && st.gpu_share < 1) {
    EXPECT_NEAR(st.gpu_share, st.k / (st.k + 1), 1e-12);
    EXPECT_LT(st.model_split, split_gain * best);
  } else if (st.model_split < split_gain * best) {
    // A split that would leave a side no row: the other side alone.
    std::size_t rows = 0;
    const std::size_t at = modelled_cut(c, st, &rows);
    EXPECT_TRUE(at == 0 || at >= rows);
    EXPECT_EQ(st.gpu_share, at == 0 ? 0 : 1);
  } else {
    EXPECT_EQ(st.gpu_share == 1, st.model_device_only <= st.model_host_only);
  }
}

libra::HeteroOptions calibrating(double split_gain = 0.9) {
  libra::HeteroOptions o;  // gpu_share < 0: measured
  o.tuning.split_min_products = 0;
  o.tuning.split_gain = split_gain;
  // Copies of C free: C's copy up never rules the host out before it is
  // measured (HostIsNotMeasuredWhenCopyingCUpCostsMore forces that path).
  o.tuning.copy_bytes_per_second = 1e30;
  o.tuning.copy_up_bytes_per_second = 1e30;
  return o;
}

// A calibration's rows: runs of consecutive rows of A, rows without products
// left out, runs never overlapping; and A * B's totals in one pass, serial and
// parallel. A is 16 x 4 with row i's one entry in column i % 4 (rows 5 and 9
// empty), B's row k has k entries: row i brings i % 4 products.
TEST(SpgemmHetero, CalibrationSamplesRunsOfConsecutiveRows) {
  std::vector<libra::ref::Triplet> a, b;
  for (int i = 0; i < 16; ++i)
    if (i != 5 && i != 9) a.emplace_back(i, i % 4, 1.0);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < k; ++j) b.emplace_back(k, j, 1.0);
  const auto A = libra::test::from_ref<double, int, int, HostMatrix::device_type>(
      libra::ref::from_triplets(16, 4, a));
  const auto B = libra::test::from_ref<double, int, int, HostMatrix::device_type>(
      libra::ref::from_triplets(4, 4, b));
  const auto rows_of = [](const libra::impl::HeteroOrder& o) {
    return std::vector<std::int64_t>(o.rows.data(), o.rows.data() + o.size());
  };
  const auto cum_of = [](const libra::impl::HeteroOrder& o) {
    return std::vector<std::uint64_t>(o.cum.data(), o.cum.data() + o.cum.extent(0));
  };
  // Two runs of 16 * 0.25 / 2 = 2 rows, from rows 2 and 10.
  auto s = libra::impl::block_sample(A, B, 0.25, 2, 0.25);
  EXPECT_EQ(rows_of(s), (std::vector<std::int64_t>{2, 3, 10, 11}));
  EXPECT_EQ(cum_of(s), (std::vector<std::uint64_t>{0, 2, 5, 7, 10}));
  EXPECT_EQ(s.total, 10u);
  // From rows 4 and 12: rows 4, 5 and 12 bring nothing.
  s = libra::impl::block_sample(A, B, 0.25, 2, 0.5);
  EXPECT_EQ(rows_of(s), (std::vector<std::int64_t>{13}));
  EXPECT_EQ(s.total, 1u);
  // Runs of 12 rows from rows 2 and 10: the second starts where the first ended.
  s = libra::impl::block_sample(A, B, 1.5, 2, 0.25);
  EXPECT_EQ(rows_of(s), (std::vector<std::int64_t>{2, 3, 6, 7, 10, 11, 13, 14, 15}));
  EXPECT_EQ(s.total, 2u + 3 + 2 + 3 + 2 + 3 + 1 + 2 + 3);
  // Runs of 4 from rows 3, 7, 11 and 15 (the last cut at the end).
  s = libra::impl::block_sample(A, B, 1.0, 4, 0.9);
  EXPECT_EQ(rows_of(s), (std::vector<std::int64_t>{3, 6, 7, 10, 11, 13, 14, 15}));
  EXPECT_EQ(s.total, 19u);

  for (const std::uint64_t serial_below : {std::uint64_t(0), std::uint64_t(1) << 15}) {
    const auto t = libra::impl::product_totals(HostExec(), A, B, serial_below);
    EXPECT_EQ(t.products, 4u * (1 + 2 + 3) - 1 - 1);  // rows 5 and 9 are empty
    EXPECT_EQ(t.rows, 10u);  // 12 rows with i % 4 != 0, less rows 5 and 9
  }
}

// The fit through a side's two calibration calls, and the model with fixed
// costs, on numbers worked by hand.
TEST(SpgemmHetero, FixedCostsAreFittedAndModelled) {
  // 2 ms for one row of 1,000 products, 12 ms for 11,000 more: 1 us a product
  // over 10,000 products, so 1 ms of the first call is fixed.
  const auto f = libra::impl::fit_side(2e-3, 1000, 12e-3, 11000);
  EXPECT_NEAR(f.per_product, 1e-6, 1e-15);
  EXPECT_NEAR(f.fixed, 1e-3, 1e-12);
  // The one row slower than the rest (noise): the rate stays a tenth of the
  // mean (14 ms / 12,000 products), the fixed cost what the rest leaves.
  const auto noisy = libra::impl::fit_side(9e-3, 1000, 5e-3, 11000);
  EXPECT_NEAR(noisy.per_product, 0.1 * 14e-3 / 12000, 1e-15);
  EXPECT_NEAR(noisy.fixed, 5e-3 - 11000 * noisy.per_product, 1e-12);
  // No fixed cost below 0.
  EXPECT_EQ(libra::impl::fit_side(1e-3, 1000, 20e-3, 11000).fixed, 0);

  libra::impl::HeteroRates r;
  r.device = 1e-9;
  r.host = 4e-9;
  r.bytes_per_product = 2;
  r.copy = 1e-10;
  r.fixed_device = 3e-3;
  r.fixed_host = 1e-3;
  // 10^6 products: host 1 + 4 = 5 ms; device 3 + 1 + 0.2 = 4.2 ms; a split
  // 3 + 0.8 + 0.2 = 4 ms, not half of 4.2: the device alone.
  auto c = libra::impl::choose_share(r, 1e6, false, 0.5);
  EXPECT_NEAR(c.seconds_host_only, 5e-3, 1e-12);
  EXPECT_NEAR(c.seconds_device_only, 4.2e-3, 1e-12);
  EXPECT_NEAR(c.seconds_split, 4e-3, 1e-12);
  EXPECT_EQ(c.gpu_share, 1);
  // 10^5 products: the fixed costs decide (host 1.4 ms, device 3.12 ms).
  c = libra::impl::choose_share(r, 1e5, false, 0.5);
  EXPECT_NEAR(c.seconds_host_only, 1.4e-3, 1e-12);
  EXPECT_NEAR(c.seconds_device_only, 3.12e-3, 1e-12);
  EXPECT_EQ(c.gpu_share, 0);
  // Without fixed costs the device would have been chosen there.
  r.fixed_device = r.fixed_host = 0;
  EXPECT_EQ(libra::impl::choose_share(r, 1e5, false, 0.5).gpu_share, 1);
  // A and B on the device: C stays there for the device alone; the host alone
  // and a split pay its copy up (u), a split its copy into place (c) as well.
  r.fixed_device = 3e-3;
  r.fixed_host = 1e-3;
  r.copy_up = 3e-10;
  c = libra::impl::choose_share(r, 1e6, true, 0.5);
  EXPECT_NEAR(c.seconds_host_only, 5.6e-3, 1e-12);  // 1 + 4 + 0.6
  EXPECT_NEAR(c.seconds_device_only, 4e-3, 1e-12);  // 3 + 1
  EXPECT_NEAR(c.seconds_split, 4.6e-3, 1e-12);      // 3 + 0.8 + 0.2 + 0.6
  EXPECT_EQ(c.gpu_share, 1);
}

TEST(SpgemmHetero, CalibratedShareIsMeasuredAndKeptInTheHandle) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    libra::HeteroHandle handle(calibrating());
    const auto first = check(c, c.A, c.B, {}, &handle);
    if (first.calibrated) {
      EXPECT_GT(first.k, 0);
      expect_modelled_choice(c, first, 0.9);
      EXPECT_GT(first.seconds_calibration, 0);
      EXPECT_GT(first.seconds_calibration_device, 0);
      EXPECT_GT(first.seconds_calibration_host, 0);
      EXPECT_LE(first.seconds_calibration_device + first.seconds_calibration_host,
                first.seconds_calibration);
      EXPECT_EQ(handle.k(), first.k);
      // The second call chooses from the kept rates without calibrating.
      const auto second = check(c, c.A, c.B, {}, &handle);
      EXPECT_FALSE(second.calibrated);
      EXPECT_EQ(second.k, first.k);
      EXPECT_GE(first.model_fixed_device, 0);
      EXPECT_GE(first.model_fixed_host, 0);
      EXPECT_EQ(second.model_fixed_device, first.model_fixed_device);
      EXPECT_EQ(second.model_fixed_host, first.model_fixed_host);
      expect_modelled_choice(c, second, 0.9);
    } else {
      // Fewer than two rows with products: the device takes them.
      EXPECT_EQ(first.gpu_share, 1);
      EXPECT_EQ(first.host_products, 0u);
    }
  }
}

// A split forced by a generous margin gives both sides rows (unless R falls
// inside the ranking's first or last row, which makes it that side alone); a
// margin of 0 never splits, and the side chosen takes A and B whole.
TEST(SpgemmHetero, CalibratedSplitOrSingleSide) {
  int splits = 0, calibrated = 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto split = check(c, c.A, c.B, calibrating(1e30), nullptr);
    if (split.calibrated) {
      ++calibrated;
      expect_modelled_choice(c, split, 1e30);
      if (split.gpu_share == 0 || split.gpu_share == 1) {
        EXPECT_TRUE(split.device_only || split.host_only);
        continue;  // R inside the first or last row
      }
      ++splits;
      const HostMatrix Ah = on_host(c.A);
      const HostMatrix Bh = on_host(c.B);
      const auto order = libra::impl::affinity_order(HostExec(), Ah, Bh);
      const std::size_t at =
          order.position_of(split.gpu_share * static_cast<double>(order.total));
      EXPECT_GT(split.gpu_share, 0);
      EXPECT_LT(split.gpu_share, 1);
      // The device computed the ranking's rows up to R of the products, the
      // host the rest.
      EXPECT_GT(split.device_products, 0u);
      EXPECT_EQ(split.device_products, order.cum(at));
      EXPECT_EQ(split.host_products, order.total - order.cum(at));
      EXPECT_TRUE(split.kept_on_device);
      EXPECT_GT(split.seconds_ranking, 0);  // a split needs the ranking
    }
    const auto single = check(c, c.A, c.B, calibrating(0), nullptr);
    if (single.calibrated) {
      expect_modelled_choice(c, single, 0);
      EXPECT_TRUE(single.device_only || single.host_only);
      EXPECT_EQ(single.device_only, single.gpu_share == 1);
      // In core, a side alone takes A in its own order: nothing was ranked.
      EXPECT_EQ(single.seconds_ranking, 0);
    }
  }
  // Most matrices split: a split that gives a side nothing is the exception.
  EXPECT_GT(splits, calibrated / 2);
}

// Small products (below split_min_products) go uncalibrated to the side whose
// memory holds A and B: the device for device inputs, the host for host inputs
// where the device's memory is not the host's.
TEST(SpgemmHetero, SmallProductsRunUncalibratedWhereTheInputsAre) {
  constexpr bool apart = !std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    if (libra::ref::spgemm_products(libra::test::to_ref(c.A), libra::test::to_ref(c.B)) >=
        (std::uint64_t(1) << 24)) {
      continue;
    }
    const auto st = check(c, c.A, c.B, {}, nullptr);
    EXPECT_FALSE(st.calibrated);
    EXPECT_EQ(st.gpu_share, 1);
    EXPECT_EQ(st.device_only, st.products > 0);
    // On A and B where they are, before any ranking or device budget.
    EXPECT_EQ(st.device_in_place, st.products > 0);
    EXPECT_EQ(st.device_memory, 0u);
    const auto sh = check_host_inputs(c, {});
    EXPECT_FALSE(sh.calibrated);
    EXPECT_EQ(sh.gpu_share, apart ? 0 : 1);
    EXPECT_EQ(sh.host_only, apart);
    EXPECT_EQ(sh.device_only, !apart && sh.products > 0);
    EXPECT_EQ(sh.bytes_to_device, 0u);
    // Host memory is the device's in a host-only build.
    EXPECT_EQ(sh.device_in_place, !apart && sh.products > 0);
    // Either side alone ran before any ranking or device budget.
    EXPECT_EQ(sh.device_memory, 0u);
  }
}

// R = 1 with a device budget given: the rows are budgeted first (not ranked:
// the device takes them all), and then, every row fitting, the device still
// multiplies A and B in place when they are in its memory (C stays there);
// host inputs come up and C comes down.
TEST(SpgemmHetero, DeviceAloneUnderABudgetRunsInPlace) {
  constexpr bool apart = !std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    libra::HeteroOptions o = with_share(1);
    o.device_memory = std::size_t(1) << 30;
    const auto st = check(c, c.A, c.B, o, nullptr);
    if (st.products == 0) continue;
    EXPECT_TRUE(st.device_only);
    EXPECT_TRUE(st.device_in_place);
    EXPECT_EQ(st.device_memory, o.device_memory);  // budgeted
    EXPECT_EQ(st.seconds_ranking, 0);              // not ranked
    EXPECT_EQ(st.bytes_to_device, 0u);
    const auto sh = check_host_inputs(c, o);
    EXPECT_TRUE(sh.device_only);
    EXPECT_EQ(sh.device_in_place, !apart);
    EXPECT_EQ(sh.kept_on_device, apart);  // C came down from the device
    EXPECT_EQ(sh.seconds_ranking, 0);
    const HostMatrix Ah = on_host(c.A);
    const HostMatrix Bh = on_host(c.B);
    EXPECT_EQ(sh.bytes_to_device,
              apart ? libra::impl::csr_bytes(Ah) + libra::impl::csr_bytes(Bh) : 0u);
    // C = A * A from one host matrix: it goes up once.
    if (c.A.num_rows == c.A.num_cols) {
      const auto sq = check(c, Ah, Ah, o, nullptr);
      EXPECT_EQ(sq.bytes_to_device, apart ? libra::impl::csr_bytes(Ah) : 0u);
    }
  }
}

// A and B on the device, nothing measured: the device's SpGEMM runs first. With
// copies of C up at a byte a second, bringing C up from the host would take longer
// than that product took, so its C is the answer and the host is not measured;
// with copies free both sides are calibrated, and that first C is the answer if
// the device alone is chosen after all, else dropped (a split forced). Host
// inputs in a GPU build calibrate both sides without a first device product.
TEST(SpgemmHetero, DeviceFirstIsKeptWhenCopyingCUpCostsMore) {
  constexpr bool apart = !std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
  libra::HeteroOptions slow = calibrating();
  slow.tuning.copy_up_bytes_per_second = 1;
  int reused = 0, dropped = 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    libra::HeteroHandle handle(slow);
    const auto st = check(c, c.A, c.B, {}, &handle);
    if (st.products == 0) continue;
    EXPECT_TRUE(st.device_first);
    EXPECT_EQ(st.gpu_share, 1);
    EXPECT_TRUE(st.device_in_place);
    EXPECT_TRUE(st.device_only);
    EXPECT_GT(st.seconds_device_first, 0);
    EXPECT_FALSE(st.calibrated);
    EXPECT_EQ(st.seconds_calibration, 0);
    EXPECT_EQ(st.k, 0);
    EXPECT_EQ(handle.k(), 0);  // nothing measured of the host to keep
    // Copies free: both sides calibrated; the first product is the answer
    // where the device alone is chosen, else dropped (split_gain 0: one side
    // alone; 1e30: a split wherever both sides have rows).
    for (const double gain : {0.0, 1e30}) {
      SCOPED_TRACE("split_gain " + std::to_string(gain));
      const auto free = check(c, c.A, c.B, calibrating(gain), nullptr);
      EXPECT_FALSE(free.device_first);
      EXPECT_GT(free.seconds_device_first, 0);
      EXPECT_TRUE(free.calibrated || free.gpu_share == 1);  // < 2 rows: no calibration
      EXPECT_EQ(free.device_first_reused, free.gpu_share == 1);
      if (free.device_first_reused) {
        EXPECT_TRUE(free.device_in_place);
        EXPECT_TRUE(free.device_only);
        EXPECT_EQ(free.device_products, free.products);
        EXPECT_EQ(free.seconds_device, free.seconds_device_first);
      }
      (free.device_first_reused ? reused : dropped) += 1;
    }
    const auto sh = check_host_inputs(c, slow);
    EXPECT_EQ(sh.device_first, !apart);
    EXPECT_EQ(sh.seconds_device_first > 0, !apart);
    EXPECT_EQ(sh.calibrated, apart && sh.seconds_calibration_host > 0);
    EXPECT_FALSE(sh.device_first_reused);
  }
  EXPECT_GT(reused, 0);   // the device alone chosen after the calibration
  EXPECT_GT(dropped, 0);  // a split or the host alone: it was not the answer
}

TEST(SpgemmHetero, CalibrationRunsOnGeneratedMatrix) {
  const auto all = cases();
  const auto& c = all.back();  // R-MAT: many rows
  const auto st = check(c, c.A, c.B, calibrating(), nullptr);
  EXPECT_TRUE(st.calibrated);
}

// What every row of A with products costs the device (hetero_split.hpp's
// DeviceRowCost), counted from the reference matrices; the costliest row in
// `widest`.
std::uint64_t ref_rows_cost(const Case& c, std::uint64_t* widest = nullptr) {
  const auto a = libra::test::to_ref(c.A);
  const auto b = libra::test::to_ref(c.B);
  const libra::impl::DeviceRowCost<double, int, int> cost{
      static_cast<std::uint64_t>(b.cols)};
  std::uint64_t total = 0, most = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    std::uint64_t products = 0;
    for (auto q = a.ptr[i]; q < a.ptr[i + 1]; ++q)
      products += b.ptr[a.col[q] + 1] - b.ptr[a.col[q]];
    if (products == 0) continue;
    const std::uint64_t row = cost(a.ptr[i + 1] - a.ptr[i], products);
    total += row;
    most = std::max(most, row);
  }
  if (widest) *widest = most;
  return total;
}

// Whether the product is in core is known without the ranking: the rows' cost
// in one pass equals the ranking's, and the reference count.
TEST(SpgemmHetero, AllRowsCostNeedsNoRanking) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const HostMatrix Ah = on_host(c.A);
    const HostMatrix Bh = on_host(c.B);
    const libra::impl::DeviceRowCost<double, int, int> cost{
        static_cast<std::uint64_t>(Bh.num_cols)};
    const auto order = libra::impl::affinity_order(HostExec(), Ah, Bh);
    const std::uint64_t all = libra::impl::all_rows_cost(HostExec(), Ah, Bh, cost);
    EXPECT_EQ(all, libra::impl::rows_cost(order, Ah, 0, order.size(), cost));
    EXPECT_EQ(all, ref_rows_cost(c));
  }
}

// Device memory for a product whose panels may cost a quarter of the device's
// rows (their cost as hetero_split.hpp counts it), or the costliest row.
std::size_t small_budget(const Case& c) {
  const auto b = libra::test::to_ref(c.B);
  std::uint64_t widest = 0;
  const std::uint64_t total = ref_rows_cost(c, &widest);
  const std::uint64_t b_bytes =
      (b.rows + 1) * sizeof(int) + b.nnz() * (sizeof(double) + sizeof(int));
  const std::uint64_t panel = std::max(widest, total / 4);
  return std::max(2 * b_bytes,
                  b_bytes + libra::impl::DeviceMemorySplit::reserve + 3 * panel);
}

TEST(SpgemmHetero, OutOfCoreUnderATinyDeviceBudget) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    auto o = with_share(1);
    o.device_memory = small_budget(c);
    // The device alone: C's rows counted first, then each panel's C straight
    // into C's host arrays, in chunks of 7 entries that end inside rows.
    o.tuning.download_entries = 7;
    for (const bool staged : {false, true}) {
      // staged: A through host staging (the path of A in host memory on a GPU).
      SCOPED_TRACE(staged ? "A staged" : "A resident");
      o.tuning.stage_a = staged;
      o.tuning.count_first = true;
      const auto counted = check(c, c.A, c.B, o, nullptr);
      EXPECT_EQ(counted.device_memory, o.device_memory);
      EXPECT_EQ(counted.counted_first, counted.products > 0);
      // Panels compute beside the copies out unless the device's space is
      // OpenMP (the calling thread's).
      EXPECT_EQ(counted.counted_beside,
                counted.products > 0 && !libra::impl::needs_initial_thread<Exec>);
      if (counted.products > 0) {
        EXPECT_GT(counted.seconds_ranking, 0);  // panels of the ranking
        EXPECT_TRUE(counted.out_of_core);
        EXPECT_GT(counted.device_panels, 1);
        EXPECT_GE(counted.download_chunks, (counted.nnz_c + 6) / 7);
        EXPECT_GT(counted.bytes_to_host, 0u);
        EXPECT_EQ(counted.bytes_to_device > 0, staged);
      }
      // Streamed into host pieces and assembled from them, as a split does.
      o.tuning.count_first = false;
      const auto pieces = check(c, c.A, c.B, o, nullptr);
      EXPECT_FALSE(pieces.counted_first);
      if (pieces.products > 0) {
        EXPECT_TRUE(pieces.out_of_core);
        EXPECT_GT(pieces.device_panels, 1);
        EXPECT_EQ(pieces.download_chunks, 0u);
        EXPECT_GT(pieces.bytes_to_host, 0u);
      }
    }
  }
  // A and B in host memory: C is made there.
  const auto all = cases();
  const auto& c = all.back();
  auto o = with_share(1);
  o.device_memory = small_budget(c);
  const auto st = check_host_inputs(c, o);
  EXPECT_TRUE(st.counted_first);
  EXPECT_GT(st.device_panels, 1);
}

// Bytes of B's CSR, and of a block of its columns holding about a quarter of
// its entries (at least its widest column).
struct BSizes {
  std::uint64_t whole = 0, block = 0,
                widest_block = 0;  // widest: offsets + widest column
};
BSizes b_sizes(const Case& c) {
  const auto b = libra::test::to_ref(c.B);
  std::vector<std::uint64_t> per_column(static_cast<std::size_t>(b.cols), 0);
  for (const auto col : b.col) ++per_column[static_cast<std::size_t>(col)];
  std::uint64_t widest = 0;
  for (const auto n : per_column) widest = std::max(widest, n);
  const auto nnz = static_cast<std::uint64_t>(b.nnz());
  const std::uint64_t offsets = static_cast<std::uint64_t>(b.rows + 1) * sizeof(int);
  constexpr std::uint64_t entry = sizeof(int) + sizeof(double);
  return {offsets + nnz * entry,
          offsets + std::max<std::uint64_t>(widest, (nnz + 3) / 4) * entry,
          offsets + widest * entry};
}

// B cut into blocks of columns, each a product of its own, C's rows their rows
// side by side: forced by tuning.b_column_block_bytes under a budget at R = 1,
// 0.3 and 0 (the host alone needs no device memory, so no blocks), with A and B
// in the test space's memory and in host memory.
TEST(SpgemmHetero, ColumnBlocksOfBOnEveryMatrix) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const BSizes b = b_sizes(c);
    const bool cut = c.B.num_cols > 1 && b.whole > b.block;
    for (const double R : {1.0, 0.3, 0.0}) {
      auto o = with_share(R);
      o.tuning.b_column_block_bytes = b.block;
      o.tuning.panel_products = 500;  // several panels a block on R-MAT
      // A budget, so that A and B in the device's memory do not go to its
      // SpGEMM in place before anything else (the device alone, R = 1).
      o.device_memory = std::size_t(1) << 30;
      const auto st = check(c, c.A, c.B, o, nullptr);
      const auto sh = check_host_inputs(c, o);
      if (cut && R > 0) {
        EXPECT_GE(st.b_column_blocks, 2);
        EXPECT_LE(st.b_column_blocks, static_cast<int>(c.B.num_cols));
        EXPECT_EQ(sh.b_column_blocks, st.b_column_blocks);
      } else {
        EXPECT_EQ(st.b_column_blocks, 0);
        EXPECT_EQ(sh.b_column_blocks, 0);
      }
    }
  }
}

// A budget that cannot hold B twice over and 1 MiB besides cuts B into column
// blocks of a quarter of what lies beyond that MiB; the first block calibrates
// and the others keep its K in the caller's handle.
TEST(SpgemmHetero, ColumnBlocksWhereBDoesNotFitTheBudget) {
  const auto all = cases();
  const auto& c = all.back();  // R-MAT
  const BSizes b = b_sizes(c);
  auto o = with_share(1);
  o.device_memory = libra::impl::DeviceMemorySplit::reserve + b.whole - 1;
  ASSERT_GE((o.device_memory - libra::impl::DeviceMemorySplit::reserve) / 4,
            b.widest_block);
  const auto st = check(c, c.A, c.B, o, nullptr);
  EXPECT_GE(st.b_column_blocks, 4);
  EXPECT_EQ(st.device_memory, o.device_memory);
  EXPECT_EQ(st.host_products, 0u);  // R = 1 in every block
  EXPECT_TRUE(st.out_of_core);      // what the budget leaves beside a block
  o.gpu_share = -1;
  o.tuning.split_min_products = 0;
  libra::HeteroHandle handle(o);
  const auto calibrated = check(c, on_host(c.A), on_host(c.B), o, &handle);
  EXPECT_GE(calibrated.b_column_blocks, 4);
  EXPECT_TRUE(calibrated.calibrated);
  EXPECT_GT(handle.k(), 0);
  EXPECT_DOUBLE_EQ(calibrated.k, handle.k());
}

TEST(SpgemmHetero, SmallPanelsInCoreAndHostInputs) {
  const auto all = cases();
  const auto& c = all.back();
  auto o = with_share(0.7);
  o.tuning.panel_products = 2000;
  const auto st = check(c, c.A, c.B, o, nullptr);
  EXPECT_FALSE(st.out_of_core);
  EXPECT_GT(st.device_panels, 2);
  EXPECT_GT(st.host_products, 0u);
  // A and B in host memory: C comes back there.
  const auto sh = check_host_inputs(c, o);
  EXPECT_GT(sh.device_panels, 2);
  // Where the device's memory is not the host's, A's panels and B go up.
  constexpr bool apart = !std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
  EXPECT_EQ(sh.bytes_to_device > 0, apart);
  o.gpu_share = -1;
  o.tuning.split_min_products = 0;
  check_host_inputs(c, o);
}

// Kept panels of C come down in chunks that end inside rows; streamed ones
// (keep_c_on_device off) go through host pieces, as out of core.
TEST(SpgemmHetero, KeptPanelsInSmallChunksAndStreamedPanelsInCore) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    auto o = with_share(0.5);
    o.tuning.download_entries = 7;
    o.tuning.panel_products = 3000;  // several kept panels on R-MAT
    const auto kept = check(c, c.A, c.B, o, nullptr);
    if (kept.device_products > 0) {
      EXPECT_TRUE(kept.kept_on_device);
      // At least one chunk per 7 of the device's entries of C.
      EXPECT_GE(kept.download_chunks, 1u);
    }
    o.tuning.keep_c_on_device = false;
    const auto streamed = check(c, c.A, c.B, o, nullptr);
    EXPECT_FALSE(streamed.kept_on_device);
    EXPECT_EQ(streamed.download_chunks, 0u);
    EXPECT_FALSE(streamed.out_of_core);
  }
  // Host inputs, R = 1: the whole C comes down in small chunks.
  const auto all = cases();
  const auto& c = all.back();
  auto o = with_share(1);
  o.tuning.download_entries = 1000;
  const auto st = check_host_inputs(c, o);
  EXPECT_TRUE(st.device_only);
  constexpr bool apart = !std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
  // Where the device's memory is the host's, C is the device's product itself.
  EXPECT_EQ(st.download_chunks, apart ? (st.nnz_c + 999) / 1000 : 0u);
  EXPECT_EQ(st.kept_on_device, apart);
}

TEST(SpgemmHetero, BadArgumentsAreRefused) {
  const auto all = cases();
  const auto& c = all.back();
  EXPECT_THROW(libra::spgemm_hetero(Exec(), HostExec(), c.A, c.B, with_share(1.5)),
               libra::ArgumentError);
  for (const double rate : {0.0, -1.0, std::nan("")}) {
    auto bad = with_share(-1);
    bad.tuning.copy_bytes_per_second = rate;
    EXPECT_THROW(libra::spgemm_hetero(Exec(), HostExec(), c.A, c.B, bad),
                 libra::ArgumentError);
    auto bad_up = with_share(-1);
    bad_up.tuning.copy_up_bytes_per_second = rate;
    EXPECT_THROW(libra::spgemm_hetero(Exec(), HostExec(), c.A, c.B, bad_up),
                 libra::ArgumentError);
  }
  auto o = with_share(1);
  o.device_memory = 64;  // B does not fit half of it
  EXPECT_THROW(libra::spgemm_hetero(Exec(), HostExec(), c.A, c.B, o),
               libra::ArgumentError);
  const Matrix wide = libra::transpose(Exec(), all.front().A);
  if (wide.num_cols != c.A.num_rows) {
    EXPECT_THROW(libra::spgemm_hetero(Exec(), HostExec(), c.A, wide), libra::ShapeError);
  }
}

}  // namespace spgemm_hetero_test
