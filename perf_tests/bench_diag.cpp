// Products of banded and structured sparse matrices, C = A * B, per problem and
// algorithm (../shared/papers/003; issue 9):
//   diag/<problem>/cdm             libra::cdm_gemm on CDM operands, C in CDM (no
//                                  conversion timed)
//   diag/<problem>/cdm_into        libra::cdm_gemm_into: the same product into a C
//                                  of that structure allocated before (numeric
//                                  only: no allocation timed)
//   diag/<problem>/hm              libra::hm_gemm on HM operands, C in HM
//   diag/<problem>/libra_cdm_csr   libra::spgemm --algo cdm: CSR in, CSR out (pattern
//                                  and values products, conversions, all timed)
//   diag/<problem>/libra_hm_csr    the same through HM (--algo hm)
//   diag/<problem>/libra_panel     libra::spgemm, panel (Libra's CSR SpGEMM)
//   diag/<problem>/kokkos_kernels  KokkosSparse::spgemm (host builds; Kokkos Kernels
//                                  3.4's SpGEMM is broken on Hopper: skipped on GPUs)
//   diag/<problem>/cusparse        cusparseSpGEMM (CUDA builds), ALG1 falling back
//   diag/<problem>/dense_gemm      KokkosBlas::gemm on the dense n x n matrices
//                                  (n <= 8192 on GPUs, 2048 on hosts)
//   diag/<problem>/spmv_cdm, spmv_hm, spmv_csr   y = A * x from each storage
// Problems: band:N:W (kl = ku = W, every entry of the band) and
// struct:N:DA:DB (DA and DB random diagonals of the N x N matrices, as in the
// paper's Tables 1-2). GFLOP/s counts the products a_ik * b_kj of the sparse
// product (the same for every algorithm, so they compare by time alone); the
// SpMV cases report GB/s of their own storage's least traffic. Each product is
// first checked by C x = A (B x) for a random x (host_check.hpp); a wrong one
// is reported as "wrong: ...", never as a time. LIBRA_BENCH_CDM_TILE=C,P,D sets the
// CDM tiles' diagonals, positions and staged depth (tuning sweeps).
#include <benchmark/benchmark.h>

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.hpp"
#include "host_check.hpp"
#include "libra/diag/gemm.hpp"
#include "libra/diag/spmv.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/diagonal_convert.hpp"
#include "libra/generate/banded.hpp"
#include "libra/generate/diagonals.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "libra/spmv/spmv.hpp"
#include "libra/vendor/kokkos_kernels_spgemm.hpp"
#include "memory_meter.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "libra/vendor/cusparse_spgemm.hpp"
#endif

namespace libra::bench {

namespace {

using Hm = DiagonalMatrix<Scalar, Ordinal, Offset, Device>;
using Cdm = CompactDiagonalMatrix<Scalar, Ordinal, Offset, Device>;
constexpr bool on_gpu = LaunchTraits<Exec>::is_gpu;

struct Problem {
  std::string name;
  Matrix A, B;
  ref::Matrix a, b;  // host copies for the checks
  std::uint64_t products = 0;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t p = 0;
  while (true) {
    const auto q = s.find(sep, p);
    out.push_back(s.substr(p, q - p));
    if (q == std::string::npos) return out;
    p = q + 1;
  }
}

std::vector<long long> random_offsets(long long n, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> d(-(n - 1), n - 1);
  std::map<long long, bool> seen;
  std::vector<long long> out;
  while (static_cast<int>(out.size()) < count) {
    const long long k = d(rng);
    if (!seen[k]) {
      seen[k] = true;
      out.push_back(k);
    }
  }
  return out;
}

std::unique_ptr<Problem> make_problem(const std::string& spec) {
  auto p = std::make_unique<Problem>();
  p->name = spec;
  const auto f = split(spec, ':');
  const Exec exec;
  if (f.size() == 3 && f[0] == "band") {
    const long long n = std::stoll(f[1]), w = std::stoll(f[2]);
    p->A = banded<Scalar, Ordinal, Offset>(exec, n, n, w, w, 1);
    p->B = banded<Scalar, Ordinal, Offset>(exec, n, n, w, w, 2);
  } else if (f.size() == 4 && f[0] == "struct") {
    const long long n = std::stoll(f[1]);
    p->A = diagonals<Scalar, Ordinal, Offset>(exec, n, n,
                                              random_offsets(n, std::stoi(f[2]), 3), 1);
    p->B = diagonals<Scalar, Ordinal, Offset>(exec, n, n,
                                              random_offsets(n, std::stoi(f[3]), 4), 2);
  } else {
    throw ArgumentError("bench_diag: unknown problem '" + spec +
                        "' (band:N:W or struct:N:DA:DB)");
  }
  p->a = csr_to_host(p->A);
  p->b = csr_to_host(p->B);
  std::vector<std::uint64_t> col_a(p->a.cols, 0);
  for (auto c : p->a.col) ++col_a[c];
  for (std::int64_t k = 0; k < p->b.rows; ++k)
    p->products += col_a[k] * static_cast<std::uint64_t>(p->b.ptr[k + 1] - p->b.ptr[k]);
  return p;
}

std::map<std::string, std::unique_ptr<Problem>> problems;
Problem& problem(const std::string& spec) {
  auto& p = problems[spec];
  if (!p) p = make_problem(spec);
  return *p;
}

// One timed run of `algo` on p; returns C as CSR for the check (first run only).
struct Outcome {
  double seconds = 0;
  std::uint64_t peak = 0;
  Matrix C;
};

}  // namespace

namespace {

std::string check(const Problem& p, const Matrix& C) {
  return check_product_by_vector(p.a, p.b, csr_to_host(C));
}

// LIBRA_BENCH_CDM_TILE=C,P,D: the CDM tiles' diagonals, positions and depth.
DiagonalGemmOptions cdm_tile_options() {
  DiagonalGemmOptions o;
  const char* e = std::getenv("LIBRA_BENCH_CDM_TILE");
  if (e && *e) {
    int c = 0, p = 0, d = 0;
    if (std::sscanf(e, "%d,%d,%d", &c, &p, &d) != 3) {
      throw std::invalid_argument("LIBRA_BENCH_CDM_TILE must be C,P,D");
    }
    o.tuning.tile_diagonals = c;
    o.tuning.tile_positions = p;
    o.tuning.tile_depth = d;
  }
  return o;
}

void run_product(benchmark::State& state, const std::string& spec,
                 const std::string& algo, const Options& options) {
  try {
    Problem& p = problem(spec);
    const Exec exec;
    const long long n = p.A.num_rows;
    if (algo == "kokkos_kernels" && on_gpu) {
      state.SkipWithError("error: Kokkos Kernels 3.4's SpGEMM is broken on Hopper GPUs");
      return;
    }
    if (algo == "dense_gemm" && n > (on_gpu ? 8192 : 2048)) {
      state.SkipWithError("error: dense n x n too large for this benchmark");
      return;
    }
    std::function<Matrix()> multiply;  // the checked call: C as CSR
    std::function<void()> timed;       // what is timed (default: multiply)
    Cdm ka, kb, kc;
    Hm ha, hb;
    Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device> da, db, dc;
#if defined(KOKKOS_ENABLE_CUDA)
    std::unique_ptr<vendor::cusparse::Spgemm> cus;
    vendor::cusparse::Options cus_options;
#endif
    if (algo == "cdm") {
      ka = to_compact_diagonal(exec, p.A);
      kb = to_compact_diagonal(exec, p.B);
      const DiagonalGemmOptions tiles = cdm_tile_options();
      multiply = [&ka, &kb, tiles, exec] {
        return to_csr(exec, cdm_gemm(exec, ka, kb, tiles));
      };
      timed = [&ka, &kb, tiles, exec] {
        (void)cdm_gemm(exec, ka, kb, tiles);
      };
    } else if (algo == "cdm_into") {
      ka = to_compact_diagonal(exec, p.A);
      kb = to_compact_diagonal(exec, p.B);
      const DiagonalGemmOptions tiles = cdm_tile_options();
      kc = cdm_gemm(exec, ka, kb, tiles);  // C's structure, allocated before the timing
      timed = [&ka, &kb, &kc, tiles, exec] {
        cdm_gemm_into(exec, 1.0, DiagonalOp::none, ka, DiagonalOp::none, kb, 0.0, kc,
                      tiles);
      };
      multiply = [&kc, exec, timed] {
        timed();
        return to_csr(exec, kc);
      };
    } else if (algo == "hm") {
      ha = to_diagonal(exec, p.A);
      hb = to_diagonal(exec, p.B);
      multiply = [&] {
        return to_csr(exec, hm_gemm(exec, ha, hb));
      };
      timed = [&] {
        (void)hm_gemm(exec, ha, hb);
      };
    } else if (algo == "libra_cdm_csr" || algo == "libra_hm_csr" ||
               algo == "libra_panel") {
      SpgemmOptions o;
      o.algorithm = algo == "libra_panel"    ? SpgemmAlgorithm::panel
                    : algo == "libra_hm_csr" ? SpgemmAlgorithm::hm
                                             : SpgemmAlgorithm::cdm;
      multiply = [&p, o, exec] {
        return spgemm(exec, p.A, p.B, o);
      };
    } else if (algo == "kokkos_kernels") {
      multiply = [&p] {
        return vendor::kokkos_kernels_spgemm(p.A, p.B);
      };
    } else if (algo == "dense_gemm") {
      da = to_dense(exec, p.A);
      db = to_dense(exec, p.B);
      dc = decltype(dc)("C", n, n);
      multiply = [&] {
        KokkosBlas::gemm("N", "N", 1.0, da, db, 0.0, dc);
        return Matrix();
      };
#if defined(KOKKOS_ENABLE_CUDA)
    } else if (algo == "cusparse") {
      cus = std::make_unique<vendor::cusparse::Spgemm>(exec.cuda_stream());
      multiply = [&] {
        const vendor::cusparse::CsrView a{p.A.num_rows,       p.A.num_cols,
                                          p.A.nnz(),          p.A.row_map.data(),
                                          p.A.col_idx.data(), p.A.values.data()};
        const vendor::cusparse::CsrView b{p.B.num_rows,       p.B.num_cols,
                                          p.B.nnz(),          p.B.row_map.data(),
                                          p.B.col_idx.data(), p.B.values.data()};
        auto product = cus->multiply(a, b, cus_options);
        cus_options.first = product.algorithm;
        cus_options.fall_back = false;
        state.SetLabel(std::string("cusparse=") +
                       vendor::cusparse::to_string(product.algorithm));
        return Matrix();  // checked by the cuSPARSE self-test, not here
      };
#endif
    } else {
      state.SkipWithError(("error: algorithm " + algo + " not in this build").c_str());
      return;
    }
    // The checked first call, with the memory it held.
    const auto meter = MemoryMeter::start<Exec::memory_space>();
    Matrix C = multiply();
    exec.fence();
    const std::uint64_t peak = meter.stop();
    if (C.num_rows > 0 || algo == "cdm" || algo == "cdm_into" || algo == "hm") {
      const std::string wrong = check(p, C);
      if (!wrong.empty()) {
        state.SkipWithError(("wrong: " + wrong).c_str());
        return;
      }
    }
    C = Matrix();
    if (!timed)
      timed = [&] {
        (void)multiply();
      };
    for (auto _ : state) state.SetIterationTime(time_on_device(exec, timed));
    add_gflops(state, p.products);
    add_peak_mb(state, peak);
    add_value(state, "n", static_cast<double>(n));
    add_value(state, "nnz_A", static_cast<double>(p.A.nnz()));
    (void)options;
  } catch (const std::exception& e) {
    state.SkipWithError(classify_exception(e).c_str());
  }
}

void run_spmv(benchmark::State& state, const std::string& spec,
              const std::string& storage) {
  try {
    Problem& p = problem(spec);
    const Exec exec;
    const long long n = p.A.num_rows;
    Kokkos::View<Scalar*, Device> x("x", n), y("y", n);
    Kokkos::deep_copy(x, 1.0);
    Cdm k;
    Hm h;
    std::function<void()> apply;
    double bytes = 0;
    if (storage == "spmv_cdm") {
      k = to_compact_diagonal(exec, p.A);
      apply = [&] {
        spmv(exec, 1.0, k, x, 0.0, y);
      };
      bytes = k.stored() * sizeof(Scalar) + 2.0 * n * sizeof(Scalar);
    } else if (storage == "spmv_hm") {
      h = to_diagonal(exec, p.A);
      apply = [&] {
        spmv(exec, 1.0, h, x, 0.0, y);
      };
      bytes = h.stored() * sizeof(Scalar) + 2.0 * n * sizeof(Scalar);
    } else {
      apply = [&] {
        spmv(exec, 1.0, p.A, x, 0.0, y);
      };
      bytes = p.A.nnz() * (sizeof(Scalar) + sizeof(Ordinal)) +
              (n + 1.0) * sizeof(Offset) + 2.0 * n * sizeof(Scalar);
    }
    apply();
    exec.fence();
    // Row sums: A * ones against the host copy.
    const auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    for (long long i = 0; i < n; ++i) {
      double want = 0, scale = 0;
      for (auto q = p.a.ptr[i]; q < p.a.ptr[i + 1]; ++q) {
        want += p.a.val[q];
        scale += std::fabs(p.a.val[q]);
      }
      if (std::fabs(hy(i) - want) > 1e-12 * (scale + 1)) {
        state.SkipWithError(("wrong: row " + std::to_string(i)).c_str());
        return;
      }
    }
    for (auto _ : state) state.SetIterationTime(time_on_device(exec, apply));
    add_gbytes(state, bytes);
  } catch (const std::exception& e) {
    state.SkipWithError(classify_exception(e).c_str());
  }
}

}  // namespace

void release_benchmarks() {
  problems.clear();
}

void register_benchmarks(const Options& options) {
  std::vector<std::string> specs = options.matrices;
  if (specs.empty()) {
    const char* bands = on_gpu ? "1,2,4,8,16,32,64,128,256,512" : "1,2,4,8,16,32,64";
    const long long n = on_gpu ? 100000 : 20000;
    for (const auto& w : split(bands, ','))
      specs.push_back("band:" + std::to_string(n) + ":" + w);
    for (const char* s :
         {"band:2048:8", "band:2048:64", "band:2048:512", "band:2048:2047"})
      specs.push_back(s);
    for (const char* s :
         {"struct:1000:9:5", "struct:3000:29:15", "struct:5000:59:35",
          "struct:10000:200:200", "struct:10000:400:400", "struct:10000:600:600"})
      specs.push_back(s);
  }
  const char* products[] = {
      "cdm",         "cdm_into",       "hm",       "libra_cdm_csr", "libra_hm_csr",
      "libra_panel", "kokkos_kernels", "cusparse", "dense_gemm"};
  for (const auto& spec : specs) {
    for (const char* algo : products) {
      if (std::string(algo) == "cusparse" && !on_gpu) continue;
      const std::string name = "diag/" + spec + "/" + algo;
      const std::string a = algo;
      configure(benchmark::RegisterBenchmark(name.c_str(),
                                             [spec, a, options](benchmark::State& s) {
                                               run_product(s, spec, a, options);
                                             }),
                options);
    }
    for (const char* storage : {"spmv_cdm", "spmv_hm", "spmv_csr"}) {
      const std::string name = "diag/" + spec + "/" + storage;
      const std::string st = storage;
      configure(
          benchmark::RegisterBenchmark(
              name.c_str(), [spec, st](benchmark::State& s) { run_spmv(s, spec, st); }),
          options);
    }
  }
}

}  // namespace libra::bench
