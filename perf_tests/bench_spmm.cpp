// Y = A * X per matrix, K (columns of X) and algorithm:
//   spmm/<matrix>/K<k>/libra_spmm         libra::spmm, X and Y LayoutRight
//   spmm/<matrix>/K<k>/libra_spmm_left    libra::spmm, X and Y LayoutLeft
//   spmm/<matrix>/K<k>/libra_spmm_staged  GPU builds: dense-column staging forced on
//   spmm/<matrix>/K<k>/kokkos_kernels     KokkosSparse::spmv with a rank-2 (LayoutLeft)
//                                         multivector
//   spmm/<matrix>/K<k>/cusparse           cusparseSpMM, row-major X and Y (CUDA builds)
// for K = 8, 32, 128 on the matrices of bench_spgemm (the shared folder and R-MAT
// graphs). Each case first checks its result against the reference oracle: every
// column of Y when nnz(A) * K <= 2e8, else columns 0, K/2 and K - 1 (R-MAT), each
// entry within 1e-9 of its sum of |a * x|. A wrong result is reported as "wrong:
// ...", never as a time. GFLOP/s = 2 nnz(A) K / time. peak_MB: device memory the
// checked call allocated through Kokkos (Libra's panel bounds and carries; Y and X
// are the caller's), or cuSPARSE's work buffer. LIBRA_BENCH_SPMM_ITEMS sets
// SpmmOptions::tuning.panel_items, LIBRA_BENCH_SPMM_BLOCK its column_block and
// LIBRA_BENCH_SPMM_LANES its vector_lanes, LIBRA_BENCH_SPMM_ROW_MAJOR_X its
// row_major_x (1: off, 2: on), LIBRA_BENCH_SPMM_PAIRED its paired_columns (1:
// off, 2: on) (sweeps; default: Libra's).
// LIBRA_BENCH_KERNEL_TIMES=1 prints each case's time per kernel on stderr,
// LIBRA_BENCH_TIMELINE=1 the host timeline of one call (launches, fences,
// allocations).
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
// KokkosSparse_spmv.hpp of Kokkos Kernels 3.4 needs Kokkos_Core.hpp first.
#include <KokkosSparse_spmv.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "call_profiles.hpp"
#include "env_knob.hpp"
#include "harness.hpp"
#include "host_check.hpp"
#include "libra/format/kokkos_interop.hpp"
#include "libra/spmm/spmm.hpp"
#include "matrices.hpp"
#include "memory_meter.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "libra/vendor/cusparse_spmm.hpp"
#endif

namespace libra::bench {

namespace {

enum class Algorithm { libra, libra_left, libra_staged, kokkos_kernels, cusparse };

const char* name_of(Algorithm a) {
  switch (a) {
    case Algorithm::libra:
      return "libra_spmm";
    case Algorithm::libra_left:
      return "libra_spmm_left";
    case Algorithm::libra_staged:
      return "libra_spmm_staged";
    case Algorithm::kokkos_kernels:
      return "kokkos_kernels";
    case Algorithm::cusparse:
      return "cusparse";
  }
  return "?";
}

std::vector<Algorithm> algorithms() {
  std::vector<Algorithm> all{Algorithm::libra, Algorithm::libra_left};
  if (LaunchTraits<Exec>::is_gpu) all.push_back(Algorithm::libra_staged);
  all.push_back(Algorithm::kokkos_kernels);
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Exec, Kokkos::Cuda>::value) all.push_back(Algorithm::cusparse);
#endif
  return all;
}

constexpr int ks[] = {8, 32, 128};

using Right = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
using Left = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;

// X(i, k) as `libra spmm --columns` makes it: exact values in [-1, 1].
double x_value(std::int64_t i, std::int64_t k) {
  return static_cast<double>((7 * i + 13 * k + 3) % 17 - 8) / 8.0;
}

struct Problem {
  MatrixSpec spec;
  Matrix A;
  ref::Matrix host_a;
};

std::unique_ptr<Problem> current_problem;

// One case's operands: X in the layout the algorithm takes, Y beside it.
struct Operands {
  int K = 0;
  bool right = true;
  Right xr, yr;
  Left xl, yl;
};

Operands make_operands(const Matrix& A, int K, bool right) {
  Operands o;
  o.K = K;
  o.right = right;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> hx("bench::hx",
                                                                   A.num_cols, K);
  for (int k = 0; k < K; ++k)
    for (std::int64_t i = 0; i < A.num_cols; ++i) hx(i, k) = x_value(i, k);
  if (right) {
    o.xr = Right("bench::X", A.num_cols, K);
    o.yr = Right("bench::Y", A.num_rows, K);
    auto m = Kokkos::create_mirror_view(o.xr);
    Kokkos::deep_copy(m, hx);
    Kokkos::deep_copy(o.xr, m);
  } else {
    o.xl = Left("bench::X", A.num_cols, K);
    o.yl = Left("bench::Y", A.num_rows, K);
    Kokkos::deep_copy(o.xl, hx);
  }
  return o;
}

// "" when Y is right: the columns checked (all, or 0, K/2, K-1) against the oracle.
std::string check_y(const Problem& p, const Operands& o) {
  const auto& a = p.host_a;
  std::vector<int> columns;
  if (static_cast<double>(a.nnz()) * o.K <= 2e8) {
    for (int k = 0; k < o.K; ++k) columns.push_back(k);
  } else {
    columns = {0, o.K / 2, o.K - 1};
  }
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> hy("bench::hy", a.rows,
                                                                   o.K);
  if (o.right) {
    auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), o.yr);
    Kokkos::deep_copy(hy, m);
  } else {
    Kokkos::deep_copy(hy, o.yl);
  }
  std::vector<double> x(static_cast<std::size_t>(a.cols));
  std::vector<double> scale;
  for (int k : columns) {
    for (std::int64_t i = 0; i < a.cols; ++i) x[i] = x_value(i, k);
    const auto y = ref::spmm(a, 1, x, 1, 0, {}, &scale);
    for (std::int64_t i = 0; i < a.rows; ++i) {
      const double err = std::fabs(hy(i, k) - y[i]);
      if (!(err <= 1e-9 * scale[i])) {
        char text[200];
        std::snprintf(text, sizeof text, "Y(%lld, %d) = %.17g, expected %.17g",
                      static_cast<long long>(i), k, hy(i, k), y[i]);
        return text;
      }
    }
  }
  return "";
}

class Runner {
 public:
  virtual ~Runner() = default;
  virtual void multiply() = 0;
  virtual std::optional<std::size_t> own_peak_bytes() const { return std::nullopt; }
  virtual std::string label() const { return {}; }
};

class LibraRunner : public Runner {
 public:
  LibraRunner(const Matrix& A, const Operands& o, bool staged) : A_(A), o_(o) {
    if (staged) options_.tuning.staging = SpmmStaging::on;
    options_.tuning.panel_items = static_cast<int>(env_number("LIBRA_BENCH_SPMM_ITEMS"));
    options_.tuning.column_block = static_cast<int>(env_number("LIBRA_BENCH_SPMM_BLOCK"));
    options_.tuning.vector_lanes = static_cast<int>(env_number("LIBRA_BENCH_SPMM_LANES"));
    if (const long long c = env_number("LIBRA_BENCH_SPMM_ROW_MAJOR_X"))  // 1: off, 2: on
      options_.tuning.row_major_x = c == 1 ? SpmmStaging::off : SpmmStaging::on;
    if (const long long c = env_number("LIBRA_BENCH_SPMM_PAIRED"))  // 1: off, 2: on
      options_.tuning.paired_columns = c == 1 ? SpmmStaging::off : SpmmStaging::on;
  }
  void multiply() override {
    if (o_.right) {
      spmm(Exec(), A_, o_.xr, o_.yr, 1.0, 0.0, options_, &stats_);
    } else {
      spmm(Exec(), A_, o_.xl, o_.yl, 1.0, 0.0, options_, &stats_);
    }
  }
  std::string label() const override {
    return std::string(";path=") + to_string(stats_.path);
  }

 private:
  const Matrix& A_;
  const Operands& o_;
  SpmmOptions options_;
  SpmmStats stats_;
};

class KokkosKernelsRunner : public Runner {
 public:
  KokkosKernelsRunner(const Matrix& A, const Operands& o) : crs_(to_kokkos(A)), o_(o) {}
  void multiply() override {
    const Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device> x = o_.xl;
    KokkosSparse::spmv("N", 1.0, crs_, x, 0.0, o_.yl);
  }

 private:
  decltype(to_kokkos(std::declval<Matrix>())) crs_;
  const Operands& o_;
};

#if defined(KOKKOS_ENABLE_CUDA)
class CusparseRunner : public Runner {
 public:
  CusparseRunner(const Matrix& A, const Operands& o)
      : a_{A.num_rows,       A.num_cols,       A.nnz(),
           A.row_map.data(), A.col_idx.data(), A.values.data()},
        x_{A.num_cols, o.K, o.K, true, o.xr.data()},
        y_{A.num_rows, o.K, o.K, true, o.yr.data()},
        spmm_(Kokkos::Cuda().cuda_stream()) {}
  void multiply() override { spmm_.multiply(a_, x_, y_); }
  std::optional<std::size_t> own_peak_bytes() const override {
    return spmm_.buffer_bytes();
  }

 private:
  vendor::cusparse::CsrView a_;
  vendor::cusparse::DenseView x_, y_;
  vendor::cusparse::Spmm spmm_;
};
#endif

struct Case {
  std::string name;
  Operands operands;
  std::unique_ptr<Runner> runner;
  std::string error;
  std::string check;
  std::uint64_t peak_bytes = 0;
};
Case current_case;

std::unique_ptr<Runner> make_runner(Algorithm a, const Problem& p, const Operands& o) {
  switch (a) {
    case Algorithm::libra:
    case Algorithm::libra_left:
      return std::make_unique<LibraRunner>(p.A, o, false);
    case Algorithm::libra_staged:
      return std::make_unique<LibraRunner>(p.A, o, true);
    case Algorithm::kokkos_kernels:
      return std::make_unique<KokkosKernelsRunner>(p.A, o);
    case Algorithm::cusparse:
#if defined(KOKKOS_ENABLE_CUDA)
      return std::make_unique<CusparseRunner>(p.A, o);
#else
      break;
#endif
  }
  throw ArgumentError(std::string(name_of(a)) + " is not available in this build");
}

void prepare_case(const std::string& name, const MatrixSpec& spec, int K, Algorithm a) {
  current_case = Case();
  current_case.name = name;
  try {
    if (!current_problem || current_problem->spec.name != spec.name) {
      current_problem.reset();
      auto p = std::make_unique<Problem>();
      p->spec = spec;
      p->A = load_matrix(spec);
      p->host_a = csr_to_host(p->A);
      current_problem = std::move(p);
    }
    const Problem& p = *current_problem;
    const bool right =
        a == Algorithm::libra || a == Algorithm::libra_staged || a == Algorithm::cusparse;
    current_case.operands = make_operands(p.A, K, right);
    current_case.runner = make_runner(a, p, current_case.operands);
    current_case.check =
        static_cast<double>(p.host_a.nnz()) * K <= 2e8 ? "oracle" : "oracle_columns";
    const auto meter = MemoryMeter::start<Exec::memory_space>();
    current_case.runner->multiply();
    Exec().fence();
    const std::uint64_t measured = meter.stop();
    current_case.peak_bytes = current_case.runner->own_peak_bytes().value_or(measured);
    if (const auto why = check_y(p, current_case.operands); !why.empty()) {
      current_case.error = "wrong: " + why;
      return;
    }
    print_call_profiles(
        name, [] {}, [&] { current_case.runner->multiply(); });
  } catch (const std::exception& e) {
    current_case.error = classify_exception(e);
  }
}

void skip(benchmark::State& state) {
  std::string label = "kind=" + (current_problem ? current_problem->spec.kind : "?");
  if (current_problem) {
    label += ";rows=" + std::to_string(current_problem->A.num_rows) +
             ";nnz_A=" + std::to_string(current_problem->A.nnz());
  }
  state.SetLabel(label);
  state.SkipWithError(current_case.error.c_str());
}

void run_case(benchmark::State& state, const MatrixSpec& spec, int K, Algorithm a) {
  const std::string name = spec.name + "/K" + std::to_string(K) + "/" + name_of(a);
  if (current_case.name != name) prepare_case(name, spec, K, a);
  if (!current_case.error.empty()) {
    skip(state);
    return;
  }
  const Problem& p = *current_problem;
  Runner& runner = *current_case.runner;
  for (auto _ : state) {
    try {
      state.SetIterationTime(time_on_device(Exec(), [&] { runner.multiply(); }));
    } catch (const std::exception& e) {
      current_case.error = classify_exception(e);
      skip(state);
      break;
    }
  }
  if (!current_case.error.empty()) return;
  add_gflops(state, static_cast<std::uint64_t>(p.A.nnz()) * K);
  add_value(state, "rows", p.A.num_rows);
  add_value(state, "nnz_A", static_cast<double>(p.A.nnz()));
  add_value(state, "K", K);
  add_peak_mb(state, current_case.peak_bytes);
  state.SetLabel("kind=" + p.spec.kind + ";check=" + current_case.check + runner.label());
}

}  // namespace

void release_benchmarks() {
  current_case = Case();
  current_problem.reset();
}

void register_benchmarks(const Options& options) {
  for (const MatrixSpec& m : benchmark_matrices(options, "bench_spmm", "rmat:16-22:16")) {
    for (int K : ks) {
      for (Algorithm a : algorithms()) {
        const std::string name =
            "spmm/" + m.name + "/K" + std::to_string(K) + "/" + name_of(a);
        configure(
            benchmark::RegisterBenchmark(
                name.c_str(), [m, K, a](benchmark::State& s) { run_case(s, m, K, a); }),
            options);
      }
    }
  }
}

}  // namespace libra::bench
