// y = A * x per matrix and algorithm:
//   spmv/<matrix>/libra_csr        libra::spmv on CSR (its default: merge-path tiles on
//                                  GPUs, thread-per-segment merge path on hosts)
//   spmv/<matrix>/libra_csr_plan   the same with a plan made once before
//   (libra::spmv_plan:
//                                  the tiles read their rows instead of searching)
//   spmv/<matrix>/libra_csr_merge  the thread-per-segment merge path forced (GPUs)
//   spmv/<matrix>/libra_csc        libra::spmv on CSC (Libra's choice: segments)
//   spmv/<matrix>/libra_coo        libra::spmv on COO (Libra's choice: segments)
//   spmv/<matrix>/libra_ell        libra::spmv on ELL as wide as the average row, the
//                                  rest in its COO tail
//   spmv/<matrix>/libra_pcsr4      libra::spmv_partitioned, 4 nnz-balanced pCSR parts,
//                                  partial results merged (one process)
//   spmv/<matrix>/kokkos_kernels   KokkosSparse::spmv on the same CSR (the baseline)
//   spmv/<matrix>/cusparse_csr     cusparseSpMV, CSR, CUSPARSE_SPMV_CSR_ALG1, prepared
//                                  once (buffer, preprocess) (CUDA builds)
//   spmv/<matrix>/cusparse_csr_alg2  the same with CUSPARSE_SPMV_CSR_ALG2
//   spmv/<matrix>/cusparse_csc     cusparseSpMV on CSC as the CSR of A^T, transposed
//   spmv/<matrix>/copy             Kokkos::deep_copy of as many bytes as CSR's least
//                                  traffic (half read, half written): the memory's
//                                  copy bandwidth in the same run, what SpMV's GB/s
//                                  compares with
// on the shared folder, R-MAT graphs and bands (default rmat:16-22:16, band:20000000:7,
// band:5000000:27 on GPUs). LIBRA_BENCH_SPMV_ITEMS and LIBRA_BENCH_SPMV_THREADS set
// libra_csr's items per thread and tile threads (tuning sweeps; default: Libra's);
// LIBRA_BENCH_SPMV_LOADS=1 has libra_csr and libra_csr_plan read A by plain loads
// on GPUs (SpmvOptions::Tuning::load_hints -1; default: streaming loads on CUDA);
// LIBRA_BENCH_SPMV_ROWS=1 forces libra_csr's and libra_csr_plan's rows kernel
// (csr_rows 1), 2 forbids it (-1), LIBRA_BENCH_SPMV_LANES sets its lanes per row
// (csr_row_lanes), LIBRA_BENCH_SPMV_ROW_TEAM the shortest row the whole team sums
// (csr_row_team_min; 1: none), LIBRA_BENCH_SPMV_PLANLESS_ROWS_MAX the longest path
// (rows + nonzeros) on which libra_csr takes it (csr_rows_planless_max_path);
// LIBRA_BENCH_SPMV_ROW_SUMS=1 forces libra_csr's and libra_csr_plan's row sums
// where every row fits half a tile, 2 forbids them (tile_row_sums 1, -1;
// default: Libra's);
// LIBRA_BENCH_SPMV_WHOLE_ROWS=1 has libra_csr's and libra_csr_plan's merge path
// (host spaces) sum whole rows without carries, 2 forbids it (csr_whole_rows 1,
// -1; default: Libra's);
// LIBRA_BENCH_SPMV_SCATTER=1 forces libra_csc's and libra_coo's tiles, 2 their
// thread-per-segment kernels (scatter_tiles 1, -1; default: Libra's), and
// LIBRA_BENCH_SPMV_ITEMS and _THREADS set their shape too;
// LIBRA_BENCH_KERNEL_TIMES=1 prints each case's time per kernel on stderr,
// LIBRA_BENCH_TIMELINE=1 the host timeline of one call (call_profiles.hpp). Each
// case first checks y against the reference oracle (each entry within 1e-9 of its sum of
// |a * x|); a wrong result is reported as "wrong: ...", never as a time. GB/s is
// CSR's least traffic (values, column indices, row offsets, x read, y written) over
// the time, the same for every algorithm so that they compare by time alone.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
// KokkosSparse_spmv.hpp of Kokkos Kernels 3.4 needs Kokkos_Core.hpp first.
#include <KokkosSparse_spmv.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "call_profiles.hpp"
#include "env_knob.hpp"
#include "harness.hpp"
#include "host_check.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/kokkos_interop.hpp"
#include "libra/format/partial.hpp"
#include "libra/spmv/partitioned.hpp"
#include "libra/spmv/spmv.hpp"
#include "matrices.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "libra/vendor/cusparse_spmv.hpp"
#endif

namespace libra::bench {

namespace {

enum class Algorithm {
  csr,
  csr_plan,
  csr_merge,
  csc,
  coo,
  ell,
  pcsr4,
  kokkos_kernels,
  cusparse_csr,
  cusparse_csr_alg2,
  cusparse_csc,
  copy
};

constexpr bool on_gpu = LaunchTraits<Exec>::is_gpu;
#if defined(KOKKOS_ENABLE_CUDA)
constexpr bool with_cusparse = std::is_same<Exec, Kokkos::Cuda>::value;
#else
constexpr bool with_cusparse = false;
#endif

std::vector<Algorithm> algorithms() {
  std::vector<Algorithm> all{Algorithm::csr, Algorithm::csr_plan};
  if (on_gpu) all.push_back(Algorithm::csr_merge);
  for (Algorithm a : {Algorithm::csc, Algorithm::coo, Algorithm::ell, Algorithm::pcsr4,
                      Algorithm::kokkos_kernels})
    all.push_back(a);
  if (with_cusparse) {
    for (Algorithm a :
         {Algorithm::cusparse_csr, Algorithm::cusparse_csr_alg2, Algorithm::cusparse_csc})
      all.push_back(a);
  }
  all.push_back(Algorithm::copy);
  return all;
}

const char* name_of(Algorithm a) {
  switch (a) {
    case Algorithm::csr:
      return "libra_csr";
    case Algorithm::csr_plan:
      return "libra_csr_plan";
    case Algorithm::csr_merge:
      return "libra_csr_merge";
    case Algorithm::csc:
      return "libra_csc";
    case Algorithm::coo:
      return "libra_coo";
    case Algorithm::ell:
      return "libra_ell";
    case Algorithm::pcsr4:
      return "libra_pcsr4";
    case Algorithm::kokkos_kernels:
      return "kokkos_kernels";
    case Algorithm::cusparse_csr:
      return "cusparse_csr";
    case Algorithm::cusparse_csr_alg2:
      return "cusparse_csr_alg2";
    case Algorithm::cusparse_csc:
      return "cusparse_csc";
    case Algorithm::copy:
      return "copy";
  }
  return "?";
}

// libra_csr's options: LIBRA_BENCH_SPMV_ITEMS and _THREADS set the tiles' shape,
// _LOADS the load hints, _WHOLE_ROWS the host merge path's whole rows.
SpmvOptions csr_options(bool merge) {
  SpmvOptions o;
  const long long plain = env_number("LIBRA_BENCH_SPMV_LOADS");
  if (plain > 1) throw ArgumentError("LIBRA_BENCH_SPMV_LOADS is 1 or unset");
  o.tuning.load_hints = plain == 1 ? -1 : 0;
  const long long rows = env_number("LIBRA_BENCH_SPMV_ROWS");
  if (rows > 2) throw ArgumentError("LIBRA_BENCH_SPMV_ROWS is 1, 2 or unset");
  o.tuning.csr_rows = rows == 1 ? 1 : rows == 2 ? -1 : 0;
  o.tuning.csr_row_lanes = static_cast<int>(env_number("LIBRA_BENCH_SPMV_LANES"));
  // 1: no rows are the whole team's (csr_row_team_min -1); else that many.
  const long long team = env_number("LIBRA_BENCH_SPMV_ROW_TEAM");
  o.tuning.csr_row_team_min = team == 1 ? -1 : team;
  if (const long long most = env_number("LIBRA_BENCH_SPMV_PLANLESS_ROWS_MAX"); most > 0)
    o.tuning.csr_rows_planless_max_path = most;
  const long long sums = env_number("LIBRA_BENCH_SPMV_ROW_SUMS");
  if (sums > 2) throw ArgumentError("LIBRA_BENCH_SPMV_ROW_SUMS is 1, 2 or unset");
  o.tuning.tile_row_sums = sums == 1 ? 1 : sums == 2 ? -1 : 0;
  const long long whole = env_number("LIBRA_BENCH_SPMV_WHOLE_ROWS");
  if (whole > 2) throw ArgumentError("LIBRA_BENCH_SPMV_WHOLE_ROWS is 1, 2 or unset");
  o.tuning.csr_whole_rows = whole == 1 ? 1 : whole == 2 ? -1 : 0;
  if (merge) {
    o.tuning.csr_tiles = -1;
  } else {
    o.tuning.segment_items = env_number("LIBRA_BENCH_SPMV_ITEMS");
    o.tuning.tile_threads = static_cast<int>(env_number("LIBRA_BENCH_SPMV_THREADS"));
  }
  return o;
}

// libra_csc's and libra_coo's options: LIBRA_BENCH_SPMV_SCATTER=1 forces their
// tiles, 2 the thread-per-segment kernels (scatter_tiles 1, -1; default: Libra's);
// LIBRA_BENCH_SPMV_ITEMS and _THREADS set the tiles' shape (or the segments' length).
SpmvOptions scatter_options() {
  SpmvOptions o;
  const long long tiles = env_number("LIBRA_BENCH_SPMV_SCATTER");
  if (tiles > 2) throw ArgumentError("LIBRA_BENCH_SPMV_SCATTER is 1, 2 or unset");
  o.tuning.scatter_tiles = tiles == 1 ? 1 : tiles == 2 ? -1 : 0;
  o.tuning.segment_items = env_number("LIBRA_BENCH_SPMV_ITEMS");
  o.tuning.tile_threads = static_cast<int>(env_number("LIBRA_BENCH_SPMV_THREADS"));
  return o;
}

#if defined(KOKKOS_ENABLE_CUDA)
// cuSPARSE's prepared SpMV on a CSR or (transposed) on a CSC held by the lambda.
template <class M>
std::function<void()> cusparse_multiply(const M& A, vendor::cusparse::CsrView view,
                                        vendor::cusparse::Spmv::Op op, int alg,
                                        const Kokkos::View<Scalar*, Device>& x,
                                        const Kokkos::View<Scalar*, Device>& y) {
  auto spmv = std::make_shared<vendor::cusparse::Spmv>(view, op, alg,
                                                       Kokkos::Cuda().cuda_stream());
  return [A, spmv, x, y] {
    spmv->multiply(x.data(), y.data());
  };
}
#endif

using Vector = Kokkos::View<Scalar*, Device>;

double x_value(std::int64_t i) {
  return static_cast<double>((7 * i + 3) % 17 - 8) / 8.0;
}

struct Problem {
  MatrixSpec spec;
  Matrix A;
  ref::Matrix host_a;
  Vector x, y;
};
std::unique_ptr<Problem> current_problem;

struct Case {
  std::string name;
  std::function<void()> multiply;  // holds the converted matrix or the parts
  std::string error;
  std::string path;
};
Case current_case;

// CSR's least traffic for y = A * x: values, column indices, row offsets, x
// read, y written.
double spmv_bytes(const Matrix& A) {
  return static_cast<double>(A.nnz()) * (sizeof(Scalar) + sizeof(Ordinal)) +
         static_cast<double>(A.num_rows + 1) * sizeof(Offset) +
         static_cast<double>(A.num_rows + A.num_cols) * sizeof(Scalar);
}

// The copy case: source and destination of half of spmv_bytes each.
struct CopyBuffers {
  Vector from, to;
};
std::shared_ptr<CopyBuffers> copy_buffers;

// "" when the copy is exact.
std::string check_copy() {
  const auto from =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copy_buffers->from);
  const auto to =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copy_buffers->to);
  for (std::size_t i = 0; i < from.extent(0); ++i) {
    if (from(i) != to(i)) return "wrong: copy differs at " + std::to_string(i);
  }
  return "";
}

// libra_csc and libra_coo: one call for the path, then the timed call.
template <class M, class V>
std::function<void()> scatter_multiply(const M& A, const V& x, const V& y,
                                       std::string& path) {
  const SpmvOptions o = scatter_options();
  SpmvStats st;
  spmv(Exec(), 1.0, A, x, 0.0, y, o, &st);
  path = to_string(st.path);
  return [A, x, y, o] {
    spmv(Exec(), 1.0, A, x, 0.0, y, o);
  };
}

std::function<void()> make_multiply(Algorithm a, const Problem& p, std::string& path) {
  const Vector x = p.x, y = p.y;
  switch (a) {
    case Algorithm::csr:
    case Algorithm::csr_merge: {
      const SpmvOptions o = csr_options(a == Algorithm::csr_merge);
      SpmvStats st;
      spmv(Exec(), 1.0, p.A, x, 0.0, y, o, &st);
      path = std::string(to_string(st.path)) + (st.row_sums ? "_row_sums" : "");
      return [A = p.A, x, y, o] {
        spmv(Exec(), 1.0, A, x, 0.0, y, o);
      };
    }
    case Algorithm::csr_plan: {
      const SpmvOptions o = csr_options(false);
      const auto plan = spmv_plan(Exec(), p.A, o);  // once, as cuSPARSE's preprocess
      SpmvStats st;
      spmv(Exec(), 1.0, p.A, x, 0.0, y, plan, o, &st);
      path = std::string(to_string(st.path)) + (st.planned ? "_planned" : "") +
             (st.row_sums ? "_row_sums" : "");
      return [A = p.A, x, y, o, plan] {
        spmv(Exec(), 1.0, A, x, 0.0, y, plan, o);
      };
    }
    case Algorithm::csc:
      return scatter_multiply(to_csc(Exec(), p.A), x, y, path);
    case Algorithm::coo:
      return scatter_multiply(to_coo(Exec(), p.A), x, y, path);
    case Algorithm::ell: {
      EllOptions eo;
      eo.width = p.A.num_rows > 0 ? (p.A.nnz() + p.A.num_rows - 1) / p.A.num_rows : 0;
      eo.overflow = EllOverflow::hybrid;
      path = "ell_rows_tail";
      return [E = to_ell(Exec(), p.A, eo), x, y] {
        spmv(Exec(), 1.0, E, x, 0.0, y);
      };
    }
    case Algorithm::pcsr4:
      path = "partitioned";
      return [parts = partition(Exec(), p.A, 4), x, y] {
        spmv_partitioned(Exec(), 1.0, parts, x, 0.0, y);
      };
    case Algorithm::kokkos_kernels:
      path = "kokkos_kernels";
      return [K = to_kokkos(p.A), x, y] {
        const Kokkos::View<const Scalar*, Device> xc = x;
        KokkosSparse::spmv("N", 1.0, K, xc, 0.0, y);
      };
    case Algorithm::cusparse_csr:
    case Algorithm::cusparse_csr_alg2:
    case Algorithm::cusparse_csc:
#if defined(KOKKOS_ENABLE_CUDA)
      if (a == Algorithm::cusparse_csc) {
        path = "cusparse_csc";
        const auto C = to_csc(Exec(), p.A);  // CSR of A^T
        return cusparse_multiply(C,
                                 {C.num_cols, C.num_rows, C.nnz(), C.col_map.data(),
                                  C.row_idx.data(), C.values.data()},
                                 vendor::cusparse::Spmv::Op::transpose, 1, x, y);
      }
      path = a == Algorithm::cusparse_csr ? "cusparse_csr" : "cusparse_csr_alg2";
      return cusparse_multiply(p.A,
                               {p.A.num_rows, p.A.num_cols, p.A.nnz(), p.A.row_map.data(),
                                p.A.col_idx.data(), p.A.values.data()},
                               vendor::cusparse::Spmv::Op::none,
                               a == Algorithm::cusparse_csr ? 1 : 2, x, y);
#else
      break;
#endif
    case Algorithm::copy: {
      path = "copy";
      const auto n = static_cast<std::size_t>(spmv_bytes(p.A) / (2 * sizeof(Scalar)));
      copy_buffers = std::make_shared<CopyBuffers>();
      copy_buffers->from = Vector("bench::copy_from", n);
      copy_buffers->to = Vector("bench::copy_to", n);
      auto host = Kokkos::create_mirror_view(copy_buffers->from);
      for (std::size_t i = 0; i < n; ++i) host(i) = static_cast<Scalar>(i % 1000);
      Kokkos::deep_copy(copy_buffers->from, host);
      return [b = copy_buffers] {
        Kokkos::deep_copy(Exec(), b->to, b->from);
      };
    }
  }
  throw ArgumentError("unknown algorithm");
}

// "" when y is right.
std::string check_y(const Problem& p) {
  std::vector<double> x(static_cast<std::size_t>(p.host_a.cols));
  for (std::int64_t i = 0; i < p.host_a.cols; ++i) x[i] = x_value(i);
  std::vector<double> scale;
  const auto want = ref::spmm(p.host_a, 1, x, 1, 0, {}, &scale);
  const auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.y);
  for (std::int64_t i = 0; i < p.host_a.rows; ++i) {
    if (!(std::fabs(hy(i) - want[i]) <= 1e-9 * scale[i])) {
      char text[200];
      std::snprintf(text, sizeof text, "y(%lld) = %.17g, expected %.17g",
                    static_cast<long long>(i), hy(i), want[i]);
      return text;
    }
  }
  return "";
}

void prepare_case(const std::string& name, const MatrixSpec& spec, Algorithm a) {
  current_case = Case();
  current_case.name = name;
  try {
    if (!current_problem || current_problem->spec.name != spec.name) {
      current_problem.reset();
      auto p = std::make_unique<Problem>();
      p->spec = spec;
      p->A = load_matrix(spec);
      p->host_a = csr_to_host(p->A);
      p->x = Vector("bench::x", p->A.num_cols);
      p->y = Vector("bench::y", p->A.num_rows);
      auto hx = Kokkos::create_mirror_view(p->x);
      for (std::int64_t i = 0; i < p->A.num_cols; ++i) hx(i) = x_value(i);
      Kokkos::deep_copy(p->x, hx);
      current_problem = std::move(p);
    }
    Problem& p = *current_problem;
    Kokkos::deep_copy(p.y, Scalar(-1));  // a stale y must not pass the check
    current_case.multiply = make_multiply(a, p, current_case.path);
    current_case.multiply();
    Exec().fence();
    if (a == Algorithm::copy) {
      current_case.error = check_copy();
    } else if (const auto why = check_y(p); !why.empty()) {
      current_case.error = "wrong: " + why;
    }
    if (current_case.error.empty())
      print_call_profiles(
          name, [] {}, [&] { current_case.multiply(); });
  } catch (const std::exception& e) {
    current_case.error = classify_exception(e);
  }
}

void run_case(benchmark::State& state, const MatrixSpec& spec, Algorithm a) {
  const std::string name = spec.name + "/" + name_of(a);
  if (current_case.name != name) prepare_case(name, spec, a);
  if (!current_case.error.empty()) {
    state.SkipWithError(current_case.error.c_str());
    return;
  }
  const Problem& p = *current_problem;
  for (auto _ : state) {
    state.SetIterationTime(time_on_device(Exec(), current_case.multiply));
  }
  add_gbytes(state, spmv_bytes(p.A));
  if (a != Algorithm::copy) add_gflops(state, static_cast<std::uint64_t>(p.A.nnz()));
  add_value(state, "rows", p.A.num_rows);
  add_value(state, "nnz_A", static_cast<double>(p.A.nnz()));
  state.SetLabel("kind=" + p.spec.kind +
                 (a == Algorithm::copy ? ";check=exact" : ";check=oracle") +
                 ";path=" + current_case.path);
}

}  // namespace

void release_benchmarks() {
  current_case = Case();
  copy_buffers.reset();
  current_problem.reset();
}

void register_benchmarks(const Options& options) {
  const char* generated =
      on_gpu ? "rmat:16-22:16,band:20000000:7,band:5000000:27" : "rmat:16-22:16";
  for (const MatrixSpec& m : benchmark_matrices(options, "bench_spmv", generated)) {
    for (Algorithm a : algorithms()) {
      const std::string name = "spmv/" + m.name + "/" + name_of(a);
      configure(benchmark::RegisterBenchmark(
                    name.c_str(), [m, a](benchmark::State& s) { run_case(s, m, a); }),
                options);
    }
  }
}

}  // namespace libra::bench
