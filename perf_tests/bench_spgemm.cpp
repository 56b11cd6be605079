// C = A * A (A * A^T for a rectangular A) per matrix and algorithm:
//   spgemm/<matrix>/libra_auto      libra::spgemm with its defaults (what a user gets)
//   spgemm/<matrix>/libra_panel     the panel algorithm (ApSpGEMM in-core)
//   spgemm/<matrix>/libra_panel_unsorted   the same with sort_columns = false (host)
//   spgemm/<matrix>/libra_outer     libra::spgemm, the outer-product algorithm
//   spgemm/<matrix>/libra_outer_unsorted   the same with sort_columns = false
//                                   (rows of C in any order, as Kokkos Kernels')
//   spgemm/<matrix>/libra_panel_sparse   panel with dense panels off, and
//   spgemm/<matrix>/libra_panel_dense    with every panel that has products dense
//                                   (both with LIBRA_BENCH_DENSE_PANELS=1 only: they
//                                   measure the dense-panel threshold)
//   spgemm/<matrix>/kokkos_kernels  Kokkos Kernels' SPGEMM_KK, symbolic + numeric
//   spgemm/<matrix>/cusparse        cusparseSpGEMM (CUDA builds only)
// Each case times what a one-shot user pays (handles, symbolic phase, buffers and
// C's allocation included), and first checks its result: against the reference
// oracle for files, and for R-MAT against Libra's result (Libra's own R-MAT
// results by C x = A (B x)). A wrong result is reported as "wrong: ...", never as
// a time: Kokkos Kernels 3.4's SpGEMM is not trustworthy on Hopper GPUs. Run a
// case alone with --benchmark_filter (perf_tests/report/run_report.py runs each
// in its own process, so that a crash ends only that case). Ratios between
// algorithms are the report's business. Each case also reports peak_MB: the most
// device memory (host memory on host spaces) its checked call allocated beyond
// A and B, C included, measured the same way for Libra and Kokkos Kernels (Kokkos
// Tools' allocation records, Libra's block cache emptied first) and reported by
// the wrapper for cuSPARSE (its buffers and C). LIBRA_BENCH_FILL_BITMAP_SLOTS=N
// and LIBRA_BENCH_GROUP_SPREAD_ENTRIES=N set SpgemmOptions::tuning's
// fill_bitmap_slots and group_spread_entries in every Libra case (to measure
// their defaults), LIBRA_BENCH_SMALL_NNZ, _SMALL_TABLE, _SMALL_SPILL and
// _SMALL_SPILL_PRODUCTS the small path's small_nnz, small_table, small_spill
// and small_spill_products, LIBRA_BENCH_HOST_SORT_PRODUCTS host_sort_products,
// LIBRA_BENCH_HOST_SORT_COLUMNS host_sort_columns, LIBRA_BENCH_HOST_SORT_AVERAGE
// host_sort_average (0: any),
// LIBRA_BENCH_HOST_DIRECT_ENTRIES tuning.host_direct_entries,
// LIBRA_BENCH_HOST_MARK_COLUMNS host_mark_columns, LIBRA_BENCH_HOST_FLAG_SPAN
// host_flag_span, LIBRA_BENCH_HOST_RANK_COLUMNS host_rank_columns,
// LIBRA_BENCH_HOST_WORD_PERCENT
// host_word_ratio (in percent), LIBRA_BENCH_HOST_WORD_ROW_SAVING host_word_row_saving,
// LIBRA_BENCH_SMALL_HEAVY_SWEEPS small_heavy_sweeps, LIBRA_BENCH_SMALL_TEAM_PRODUCTS
// small_team_products, LIBRA_BENCH_SMALL_LAST_TEAM_ROWS small_last_team_rows,
// LIBRA_BENCH_SIDE_BY_SIDE=0
// turns tuning.side_by_side off;
// LIBRA_BENCH_MEMORY_BUDGET_MB=N sets memory_budget and
// LIBRA_BENCH_OUTER_CHUNKS_BY_ITEMS=1 tuning.outer_chunks_by_items (to compare
// lbGEMM's two kinds of chunks); LIBRA_BENCH_KERNEL_TIMES=1 prints each case's
// time per kernel, LIBRA_BENCH_TIMELINE=1 the host timeline of one call (launches,
// copies, allocations; no fences added).
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "call_profiles.hpp"
#include "harness.hpp"
#include "host_check.hpp"
#include "libra/format/convert.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "libra/vendor/kokkos_kernels_spgemm.hpp"
#include "matrices.hpp"
#include "memory_meter.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "libra/vendor/cusparse_spgemm.hpp"
#endif

namespace libra::bench {

#if defined(KOKKOS_ENABLE_CUDA)
namespace cusparse = vendor::cusparse;
#endif

namespace {

enum class Algorithm {
  libra_auto,
  libra_panel,
  libra_panel_unsorted,
  libra_outer,
  libra_outer_unsorted,
  libra_panel_sparse,
  libra_panel_dense,
  kokkos_kernels,
  cusparse
};

bool is_libra(Algorithm a) {
  return a != Algorithm::kokkos_kernels && a != Algorithm::cusparse;
}

const char* name_of(Algorithm a) {
  switch (a) {
    case Algorithm::libra_auto:
      return "libra_auto";
    case Algorithm::libra_panel:
      return "libra_panel";
    case Algorithm::libra_panel_unsorted:
      return "libra_panel_unsorted";
    case Algorithm::libra_outer:
      return "libra_outer";
    case Algorithm::libra_outer_unsorted:
      return "libra_outer_unsorted";
    case Algorithm::libra_panel_sparse:
      return "libra_panel_sparse";
    case Algorithm::libra_panel_dense:
      return "libra_panel_dense";
    case Algorithm::kokkos_kernels:
      return "kokkos_kernels";
    case Algorithm::cusparse:
      return "cusparse";
  }
  return "?";
}

std::vector<Algorithm> algorithms() {
  std::vector<Algorithm> all{Algorithm::libra_auto, Algorithm::libra_panel,
                             Algorithm::libra_outer};
  // GPU paths sort C's rows whatever sort_columns says: the unsorted cases would
  // time the same code twice there.
  if (is_host_exec<Exec>) {
    all.push_back(Algorithm::libra_panel_unsorted);
    all.push_back(Algorithm::libra_outer_unsorted);
  }
  if (const char* e = std::getenv("LIBRA_BENCH_DENSE_PANELS");
      e && std::string(e) == "1") {
    all.push_back(Algorithm::libra_panel_sparse);
    all.push_back(Algorithm::libra_panel_dense);
  }
  all.push_back(Algorithm::kokkos_kernels);
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Exec, Kokkos::Cuda>::value) all.push_back(Algorithm::cusparse);
#endif
  return all;
}

// Libra runs with 64-bit offsets (as the CLI does): the 32-bit offsets cuSPARSE
// needs cannot hold C beyond 2^31 entries (R-MAT scale 19 and up).
using WideMatrix = Csr<Scalar, Ordinal, std::size_t, Device>;

struct Widen {
  Kokkos::View<std::size_t*, Kokkos::LayoutLeft, Device> wide;
  Matrix::row_map_type narrow;
  KOKKOS_FUNCTION void operator()(const std::size_t i) const {
    wide(i) = static_cast<std::size_t>(narrow(i));
  }
};

WideMatrix widen(const Matrix& m) {
  Kokkos::View<std::size_t*, Kokkos::LayoutLeft, Device> row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::row_map"),
      m.row_map.extent(0));
  Kokkos::parallel_for("bench::widen", Kokkos::RangePolicy<Exec>(0, row_map.extent(0)),
                       Widen{row_map, m.row_map});
  return WideMatrix(m.num_rows, m.num_cols, row_map, m.col_idx, m.values);
}

// One matrix's operands and the reference its products are checked against.
struct Problem {
  MatrixSpec spec;
  Matrix A, B;  // B = A, or A^T when A is rectangular
  ref::Matrix host_a, host_b;
  std::uint64_t products = 0;
  std::vector<double> row_scale;         // largest product per row of C
  std::optional<ref::Matrix> reference;  // the oracle's (files) or Libra's (R-MAT) C
  bool reference_tried = false;
};

void trace(const char* step);

std::unique_ptr<Problem> load_problem(const MatrixSpec& spec) {
  auto p = std::make_unique<Problem>();
  p->spec = spec;
  trace("load_matrix");
  p->A = load_matrix(spec);
  trace("transpose");
  p->B = p->A.num_rows == p->A.num_cols ? p->A : transpose(Exec(), p->A);
  p->host_a = csr_to_host(p->A);
  p->host_b = p->A.num_rows == p->A.num_cols ? p->host_a : csr_to_host(p->B);
  p->products = ref::spgemm_products(p->host_a, p->host_b);
  p->row_scale = largest_products(p->host_a, p->host_b);
  return p;
}

// The product algorithm `a` is compared with, or nullptr when its result is
// checked by C x = A (B x) instead. R-MAT graphs are too large for the sequential
// oracle: there Libra's result is the reference of the baselines, and Libra's own
// (and a baseline's, when Libra fails on the graph) is checked by vector.
const ref::Matrix* reference_for(Problem& p, Algorithm a) {
  if (p.spec.is_rmat() && is_libra(a)) return nullptr;
  if (!p.reference_tried) {
    p.reference_tried = true;
    if (!p.spec.is_rmat()) {
      p.reference = ref::spgemm(p.host_a, p.host_b);
    } else {
      try {
        SpgemmOptions o;
        o.algorithm = SpgemmAlgorithm::outer;
        p.reference = csr_to_host(spgemm(Exec(), widen(p.A), widen(p.B), o));
      } catch (const std::exception& e) {
        std::cerr << "libra_outer failed on " << p.spec.name << " (" << e.what()
                  << "); checking by C x = A (B x) only\n";
      }
    }
  }
  return p.reference ? &*p.reference : nullptr;
}

// One algorithm: a timed multiply and its result.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual void multiply() = 0;  // C = A * B; device work may still be pending
  virtual void release() = 0;   // frees C
  virtual std::int64_t nnz_c() const = 0;
  virtual ref::Matrix result() const = 0;
  virtual void annotate(benchmark::State&) const {}
  virtual std::string label() const { return {}; }
  // Device bytes the last call held at most, when the runner knows them itself
  // (else the benchmark measures Kokkos' allocations).
  virtual std::optional<std::size_t> own_peak_bytes() const { return std::nullopt; }
};

// An integer tuning knob from the environment, if set; a value that is not an
// integer stops the run with an ArgumentError naming the variable.
std::optional<int> env_int(const char* name) {
  const char* e = std::getenv(name);
  if (!e) return std::nullopt;
  const std::string text(e);
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw ArgumentError(std::string(name) + "='" + text + "' is not an integer");
  }
  return value;
}

class LibraRunner : public Runner {
 public:
  LibraRunner(const Problem& p, SpgemmAlgorithm algorithm, bool sorted,
              double dense_panel_density = 0)
      : a_(widen(p.A)), b_(widen(p.B)) {
    options_.algorithm = algorithm;
    options_.sort_columns = sorted;
    // Tuning knobs for every Libra case, to measure their defaults.
    if (const auto v = env_int("LIBRA_BENCH_FILL_BITMAP_SLOTS")) {
      options_.tuning.fill_bitmap_slots = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_GROUP_SPREAD_ENTRIES")) {
      options_.tuning.group_spread_entries = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_SMALL_NNZ")) options_.tuning.small_nnz = *v;
    if (const auto v = env_int("LIBRA_BENCH_SMALL_TABLE")) {
      options_.tuning.small_table = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_SMALL_SPILL")) {
      options_.tuning.small_spill = *v != 0;
    }
    if (const auto v = env_int("LIBRA_BENCH_SMALL_SPILL_PRODUCTS")) {
      options_.tuning.small_spill_products = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_SORT_PRODUCTS")) {
      options_.tuning.host_sort_products = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_SORT_COLUMNS")) {
      options_.tuning.host_sort_columns = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_SORT_AVERAGE")) {
      options_.tuning.host_sort_average = static_cast<double>(*v);
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_DIRECT_ENTRIES")) {
      options_.tuning.host_direct_entries = static_cast<int>(*v);
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_WORD_PERCENT")) {
      options_.tuning.host_word_ratio = *v / 100.0;
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_WORD_ROW_SAVING")) {
      options_.tuning.host_word_row_saving = static_cast<double>(*v);
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_FLAG_SPAN")) {
      options_.tuning.host_flag_span = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_RANK_COLUMNS")) {
      options_.tuning.host_rank_columns = static_cast<int>(*v);
    }
    if (const auto v = env_int("LIBRA_BENCH_HOST_MARK_COLUMNS")) {
      options_.tuning.host_mark_columns = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_SMALL_LAST_TEAM_ROWS")) {
      options_.tuning.small_last_team_rows = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_SMALL_TEAM_PRODUCTS")) {
      options_.tuning.small_team_products = static_cast<int>(*v);
    }
    if (const auto v = env_int("LIBRA_BENCH_SMALL_HEAVY_SWEEPS")) {
      options_.tuning.small_heavy_sweeps = *v;
    }
    if (const auto v = env_int("LIBRA_BENCH_SIDE_BY_SIDE")) {
      options_.tuning.side_by_side = *v != 0;
    }
    if (const auto v = env_int("LIBRA_BENCH_MEMORY_BUDGET_MB")) {
      options_.memory_budget = static_cast<std::size_t>(*v) << 20;
    }
    if (const auto v = env_int("LIBRA_BENCH_OUTER_CHUNKS_BY_ITEMS")) {
      options_.tuning.outer_chunks_by_items = *v != 0;
    }
    if (dense_panel_density > 0) {
      options_.tuning.dense_panel_density = dense_panel_density;
      options_.tuning.dense_panel_products = 1;
    }
  }
  void multiply() override {
    trace("libra spgemm");
    c_ = spgemm(Exec(), a_, b_, options_, &stats_);
    trace("libra spgemm returned");
  }
  void release() override { c_ = WideMatrix(); }
  std::int64_t nnz_c() const override { return c_.nnz(); }
  ref::Matrix result() const override { return csr_to_host(c_); }
  void annotate(benchmark::State& state) const override {
    add_value(state, "chunks", stats_.chunks);
    add_value(state, "row_chunks", static_cast<double>(stats_.paths.row_chunks));
    add_value(state, "ran_panel", stats_.algorithm == SpgemmAlgorithm::panel ? 1 : 0);
    add_value(state, "dense_rows", static_cast<double>(stats_.paths.dense_panels));
    add_value(state, "workspace_MB",
              static_cast<double>(stats_.peak_bytes) / (1024.0 * 1024.0));
  }

 private:
  WideMatrix a_, b_;
  SpgemmOptions options_;
  SpgemmStats stats_;
  WideMatrix c_;
};

class KokkosKernelsRunner : public Runner {
 public:
  explicit KokkosKernelsRunner(const Problem& p) : p_(p) {}
  void multiply() override { c_ = vendor::kokkos_kernels_spgemm(p_.A, p_.B); }
  void release() override { c_ = Matrix(); }
  std::int64_t nnz_c() const override { return c_.nnz(); }
  ref::Matrix result() const override { return csr_to_host(c_); }

 private:
  const Problem& p_;
  Matrix c_;
};

#if defined(KOKKOS_ENABLE_CUDA)
class CusparseRunner : public Runner {
 public:
  CusparseRunner(const Problem& p, double chunk_fraction)
      : a_(view_of(p.A)), b_(view_of(p.B)), spgemm_(Kokkos::Cuda().cuda_stream()) {
    options_.alg3_chunk_fraction = static_cast<float>(chunk_fraction);
  }
  // The first call falls back from ALG1 as memory requires; later calls repeat
  // the algorithm that ran, so that timings hold no failed attempts.
  void multiply() override {
    auto product = spgemm_.multiply(a_, b_, options_);
    c_ = std::move(product.C);
    peak_bytes_ = product.peak_bytes;
    options_.first = product.algorithm;
    options_.fall_back = false;
  }
  void release() override { c_.reset(); }
  std::int64_t nnz_c() const override { return c_.nnz; }
  ref::Matrix result() const override {
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    const auto rows = static_cast<std::size_t>(c_.rows);
    const auto nnz = static_cast<std::size_t>(c_.nnz);
    return compressed_to_host(
        c_.rows, c_.cols,
        Kokkos::View<const int*, Device, Unmanaged>(c_.row_ptr, rows + 1),
        Kokkos::View<const int*, Device, Unmanaged>(c_.col_idx, nnz),
        Kokkos::View<const double*, Device, Unmanaged>(c_.values, nnz));
  }
  std::string label() const override {
    return std::string(";cusparse=") + cusparse::to_string(options_.first);
  }
  std::optional<std::size_t> own_peak_bytes() const override { return peak_bytes_; }
  void annotate(benchmark::State& state) const override {
    add_value(state, "cusparse_alg", static_cast<int>(options_.first));
  }

 private:
  static cusparse::CsrView view_of(const Matrix& m) {
    return {m.num_rows,       m.num_cols,       m.nnz(),
            m.row_map.data(), m.col_idx.data(), m.values.data()};
  }
  cusparse::CsrView a_, b_;
  cusparse::Spgemm spgemm_;
  cusparse::Options options_;
  cusparse::Csr c_;
  std::size_t peak_bytes_ = 0;
};
#endif

std::unique_ptr<Runner> make_runner(Algorithm a, const Problem& p,
                                    const Options& options) {
  switch (a) {
    case Algorithm::libra_auto:
      return std::make_unique<LibraRunner>(p, SpgemmAlgorithm::automatic, true);
    case Algorithm::libra_panel:
      return std::make_unique<LibraRunner>(p, SpgemmAlgorithm::panel, true);
    case Algorithm::libra_panel_unsorted:
      return std::make_unique<LibraRunner>(p, SpgemmAlgorithm::panel, false);
    case Algorithm::libra_outer:
      return std::make_unique<LibraRunner>(p, SpgemmAlgorithm::outer, true);
    case Algorithm::libra_outer_unsorted:
      return std::make_unique<LibraRunner>(p, SpgemmAlgorithm::outer, false);
    case Algorithm::libra_panel_sparse:
      return std::make_unique<LibraRunner>(p, SpgemmAlgorithm::panel, true, 2.0);
    case Algorithm::libra_panel_dense:
      return std::make_unique<LibraRunner>(p, SpgemmAlgorithm::panel, true, 1e-300);
    case Algorithm::kokkos_kernels:
      return std::make_unique<KokkosKernelsRunner>(p);
    case Algorithm::cusparse:
#if defined(KOKKOS_ENABLE_CUDA)
      return std::make_unique<CusparseRunner>(p, options.cusparse_chunk_fraction);
#else
      (void)options;
      break;
#endif
  }
  throw ArgumentError(std::string(name_of(a)) + " is not available in this build");
}

// "" when the runner's (warm-up) result is right.
std::string check_result(const Problem& p, const ref::Matrix* reference,
                         const Runner& r) {
  const ref::Matrix c = r.result();
  if (reference) return compare_product(*reference, c, p.row_scale);
  return check_product_by_vector(p.host_a, p.host_b, c);
}

// The case being run: Google Benchmark calls a case's function several times
// (per repetition, and to find the iteration count), but its matrix, warm-up and
// check happen once.
struct Case {
  std::string name;
  std::unique_ptr<Runner> runner;  // refers to current_problem
  std::string error;
  std::string check;  // "oracle", "libra" or "C*x"
  std::int64_t nnz_c = 0;
  std::uint64_t peak_bytes = 0;  // of the checked call, C included
};
std::unique_ptr<Problem> current_problem;
Case current_case;

// LIBRA_BENCH_TRACE=1 prints each step of a case's preparation on stderr.
void trace(const char* step) {
  static const bool on = std::getenv("LIBRA_BENCH_TRACE") != nullptr;
  if (on) std::fprintf(stderr, "libra_bench: %s\n", step);
}

void prepare_case(const std::string& name, const MatrixSpec& spec, Algorithm a,
                  const Options& options) {
  trace("prepare");
  current_case = Case();
  current_case.name = name;
  try {
    if (!current_problem || current_problem->spec.name != spec.name) {
      current_problem.reset();
      current_problem = load_problem(spec);
    }
    trace("loaded");
    Problem& p = *current_problem;
    const ref::Matrix* reference = reference_for(p, a);
    trace("reference");
    current_case.check = !reference ? "C*x" : p.spec.is_rmat() ? "libra" : "oracle";
    current_case.runner = make_runner(a, p, options);
    trace("runner");
    release_cached_memory<Exec::memory_space>();  // Libra's blocks show as allocations
    const auto meter = MemoryMeter::start<Exec::memory_space>();
    current_case.runner->multiply();
    Exec().fence();
    const std::uint64_t measured = meter.stop();
    current_case.peak_bytes = current_case.runner->own_peak_bytes().value_or(measured);
    trace("multiplied");
    if (const auto why = check_result(p, reference, *current_case.runner); !why.empty()) {
      current_case.error = "wrong: " + why;
      return;
    }
    current_case.nnz_c = current_case.runner->nnz_c();
    print_call_profiles(
        name, [&] { current_case.runner->release(); },
        [&] { current_case.runner->multiply(); });
  } catch (const std::exception& e) {
    current_case.error = classify_exception(e);
  }
  if (current_case.runner) current_case.runner->release();
}

// Reports the case's error. An errored run keeps only its label in the JSON (no
// counters), so the label carries what the report's table needs of the matrix.
void skip(benchmark::State& state) {
  std::string label = "kind=" + (current_problem ? current_problem->spec.kind : "?");
  if (current_problem) {
    const Problem& p = *current_problem;
    label += ";rows=" + std::to_string(p.A.num_rows) +
             ";nnz_A=" + std::to_string(p.A.nnz()) +
             ";products=" + std::to_string(p.products);
  }
  state.SetLabel(label);
  state.SkipWithError(current_case.error.c_str());
}

void run_case(benchmark::State& state, const MatrixSpec& spec, Algorithm a,
              const Options& options) {
  const std::string name = spec.name + "/" + name_of(a);
  if (current_case.name != name) prepare_case(name, spec, a, options);
  if (!current_case.error.empty()) {
    skip(state);
    return;
  }
  const Problem& p = *current_problem;
  Runner& runner = *current_case.runner;
  for (auto _ : state) {
    runner.release();
    try {
      state.SetIterationTime(time_on_device(Exec(), [&] { runner.multiply(); }));
    } catch (const std::exception& e) {
      current_case.error = classify_exception(e);
      skip(state);
      break;
    }
    if (runner.nnz_c() != current_case.nnz_c) {
      current_case.error = "wrong: nnz(C) " + std::to_string(runner.nnz_c()) +
                           " in a timed run, " + std::to_string(current_case.nnz_c) +
                           " in the checked one";
      skip(state);
      break;
    }
  }
  if (!current_case.error.empty()) return;
  add_gflops(state, p.products);
  add_value(state, "rows", p.A.num_rows);
  add_value(state, "nnz_A", static_cast<double>(p.A.nnz()));
  add_value(state, "products", static_cast<double>(p.products));
  add_value(state, "nnz_C", static_cast<double>(current_case.nnz_c));
  add_peak_mb(state, current_case.peak_bytes);
  runner.annotate(state);
  state.SetLabel("kind=" + p.spec.kind + ";check=" + current_case.check + runner.label());
  runner.release();
}

}  // namespace

void release_benchmarks() {
  current_case = Case();
  current_problem.reset();
}

void register_benchmarks(const Options& options) {
  for (const MatrixSpec& m :
       benchmark_matrices(options, "bench_spgemm", "rmat:16-22:16")) {
    for (Algorithm a : algorithms()) {
      const std::string name = "spgemm/" + m.name + "/" + name_of(a);
      configure(benchmark::RegisterBenchmark(
                    name.c_str(),
                    [m, a, options](benchmark::State& s) { run_case(s, m, a, options); }),
                options);
    }
  }
}

}  // namespace libra::bench
