// Heterogeneous SpGEMM (libra::spgemm_hetero) beside each side alone, C = A * A
// (A * A^T when A is not square), per matrix:
//   hetero/<matrix>/gpu_only             libra::spgemm on the device, A and B there
//   hetero/<matrix>/gpu_only_host_inputs spgemm_hetero with R = 1: A and B in host
//                                        memory, their copies and C's included
//   hetero/<matrix>/cpu_only             libra::spgemm on the host space, A and B in
//                                        host memory
//   hetero/<matrix>/hetero               spgemm_hetero, host inputs, K calibrated in
//                                        every call (a fresh handle)
//   hetero/<matrix>/hetero_kept          the same with K kept in a handle from a
//                                        first, untimed call
//   hetero/<matrix>/hetero_device_inputs calibrated, A and B in device memory
//   hetero/<matrix>/R<r>                 R fixed, r = 0.50 .. 1.00 by 0.05 (the sweep)
// The device is Kokkos' default space; the host is the default host space, or
// Serial when both are OpenMP (host-only builds). Each case checks its first
// result by C x = A (B x) on the host (host_check.hpp) and reports "wrong: ..."
// instead of a time when it fails. Counters: GFLOP/s, R, K, the device's panels,
// overlap (the share of copy time hidden behind compute). LIBRA_BENCH_DEVICE_MEMORY_MB
// sets HeteroOptions::device_memory (out-of-core runs).
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "env_knob.hpp"
#include "harness.hpp"
#include "host_check.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/mirror.hpp"
#include "libra/spgemm/hetero.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "matrices.hpp"

namespace libra::bench {

namespace {

using HostExec = HeteroHostFor<Exec>;
using HostDevice = Kokkos::Device<HostExec, Kokkos::HostSpace>;
using HostMatrix = Csr<Scalar, Ordinal, Offset, HostDevice>;

struct Operands {
  Matrix A, B;        // on the device
  HostMatrix Ah, Bh;  // in host memory
  ref::Matrix a, b;   // for the checks
  std::uint64_t products = 0;
};

std::map<std::string, Operands>& cache() {
  static std::map<std::string, Operands> c;
  return c;
}

const Operands& operands(const MatrixSpec& spec) {
  auto it = cache().find(spec.name);
  if (it != cache().end()) return it->second;
  cache().clear();  // one matrix at a time
  Operands o;
  o.A = load_matrix(spec);
  o.B = o.A.num_rows == o.A.num_cols ? o.A : libra::transpose(Exec(), o.A);
  o.Ah = copy_to<HostDevice>(o.A);
  o.Bh = copy_to<HostDevice>(o.B);
  o.a = csr_to_host(o.A);
  o.b = csr_to_host(o.B);
  for (const auto k : o.a.col) o.products += o.b.ptr[k + 1] - o.b.ptr[k];
  return cache().emplace(spec.name, std::move(o)).first->second;
}

struct Variant {
  std::string name;
  enum Kind { gpu_only, cpu_only, hetero, hetero_kept } kind = hetero;
  bool host_inputs = true;
  double R = -1;
};

std::vector<Variant> variants() {
  std::vector<Variant> v{{"gpu_only", Variant::gpu_only, false, -1},
                         {"gpu_only_host_inputs", Variant::hetero, true, 1},
                         {"cpu_only", Variant::cpu_only, true, -1},
                         {"hetero", Variant::hetero, true, -1},
                         {"hetero_kept", Variant::hetero_kept, true, -1},
                         {"hetero_device_inputs", Variant::hetero, false, -1}};
  for (int r = 50; r <= 100; r += 5) {
    char name[16];
    std::snprintf(name, sizeof name, "R%.2f", r / 100.0);
    v.push_back({name, Variant::hetero, true, r / 100.0});
  }
  return v;
}

HeteroOptions hetero_options(double R) {
  HeteroOptions o;
  o.gpu_share = R;
  o.device_memory = static_cast<std::size_t>(env_number("LIBRA_BENCH_DEVICE_MEMORY_MB"))
                    << 20;
  return o;
}

void run_case(benchmark::State& state, const MatrixSpec& spec, const Variant& v) {
  const Operands& o = operands(spec);
  HeteroHandle kept(hetero_options(v.R));
  HeteroStats st;
  const auto once = [&]() -> ref::Matrix {
    switch (v.kind) {
      case Variant::gpu_only:
        return csr_to_host(libra::spgemm(Exec(), o.A, o.B));
      case Variant::cpu_only:
        return csr_to_host(libra::spgemm(HostExec(), o.Ah, o.Bh));
      case Variant::hetero_kept:
        return csr_to_host(
            libra::spgemm_hetero(Exec(), HostExec(), kept, o.Ah, o.Bh, &st));
      case Variant::hetero:
        break;
    }
    HeteroHandle fresh(hetero_options(v.R));
    return v.host_inputs ? csr_to_host(libra::spgemm_hetero(Exec(), HostExec(), fresh,
                                                            o.Ah, o.Bh, &st))
                         : csr_to_host(libra::spgemm_hetero(Exec(), HostExec(), fresh,
                                                            o.A, o.B, &st));
  };
  try {
    const std::string why = check_product_by_vector(o.a, o.b, once());
    if (!why.empty()) {
      state.SkipWithError(("wrong: " + why).c_str());
      return;
    }
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("failed: ") + e.what()).c_str());
    return;
  }
  for (auto _ : state) {
    double seconds = 0;
    switch (v.kind) {
      case Variant::gpu_only:
        seconds = time_on_device(Exec(), [&] { libra::spgemm(Exec(), o.A, o.B); });
        break;
      case Variant::cpu_only:
        seconds = time_on_device(Exec(), [&] { libra::spgemm(HostExec(), o.Ah, o.Bh); });
        break;
      case Variant::hetero_kept:
        seconds = time_on_device(Exec(), [&] {
          libra::spgemm_hetero(Exec(), HostExec(), kept, o.Ah, o.Bh, &st);
        });
        break;
      case Variant::hetero:
        seconds = time_on_device(Exec(), [&] {
          HeteroHandle fresh(hetero_options(v.R));
          if (v.host_inputs)
            libra::spgemm_hetero(Exec(), HostExec(), fresh, o.Ah, o.Bh, &st);
          else
            libra::spgemm_hetero(Exec(), HostExec(), fresh, o.A, o.B, &st);
        });
        break;
    }
    state.SetIterationTime(seconds);
  }
  add_gflops(state, o.products);
  // Every case carries every counter (Google Benchmark's CSV wants them all);
  // the single-side cases leave the heterogeneous ones at 0.
  state.counters["R"] = st.gpu_share;
  state.counters["K"] = st.k;
  state.counters["panels"] = st.device_panels;
  state.counters["overlap"] = st.overlap();
  state.counters["out_of_core"] = st.out_of_core;
  state.counters["device_only"] = st.device_only;
  state.counters["host_only"] = st.host_only;
  state.counters["device_first"] = st.device_first;
  state.counters["device_first_reused"] = st.device_first_reused;
  state.counters["kept_on_device"] = st.kept_on_device;
  state.counters["download_chunks"] = static_cast<double>(st.download_chunks);
  state.counters["model_host_only_ms"] = st.model_host_only * 1e3;
  state.counters["model_device_only_ms"] = st.model_device_only * 1e3;
  state.counters["model_split_ms"] = st.model_split * 1e3;
  state.counters["model_fixed_device_ms"] = st.model_fixed_device * 1e3;
  state.counters["model_fixed_host_ms"] = st.model_fixed_host * 1e3;
  state.counters["host_copies_ms"] = st.seconds_host_copies * 1e3;
  state.counters["ranking_ms"] = st.seconds_ranking * 1e3;
  state.counters["calib_ms"] = st.seconds_calibration * 1e3;
  state.counters["calib_device_ms"] = st.seconds_calibration_device * 1e3;
  state.counters["calib_host_ms"] = st.seconds_calibration_host * 1e3;
  state.counters["device_ms"] = st.seconds_device * 1e3;
  state.counters["device_compute_ms"] = st.seconds_device_compute * 1e3;
  state.counters["copy_out_ms"] = st.seconds_copy_out * 1e3;
  state.counters["transfer_ms"] = st.seconds_transfer * 1e3;
  state.counters["host_ms"] = st.seconds_host * 1e3;
  state.counters["assemble_ms"] = st.seconds_assemble * 1e3;
}

}  // namespace

void release_benchmarks() {
  cache().clear();
}

void register_benchmarks(const Options& options) {
  for (const MatrixSpec& m :
       benchmark_matrices(options, "bench_hetero", "rmat:16-18:16")) {
    for (const Variant& v : variants()) {
      const std::string name = "hetero/" + m.name + "/" + v.name;
      configure(benchmark::RegisterBenchmark(
                    name.c_str(), [m, v](benchmark::State& s) { run_case(s, m, v); }),
                options);
    }
  }
}

}  // namespace libra::bench
