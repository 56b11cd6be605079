#pragma once
// What every Libra benchmark shares: the types it measures, the command-line
// options of the benchmark executables, counters and device timing.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/format/csr.hpp"

namespace libra::bench {

// Benchmarks run on Kokkos' default execution space (Cuda in a CUDA build, else
// OpenMP) with 32-bit indices, the index width cuSPARSE's SpGEMM takes.
using Exec = Kokkos::DefaultExecutionSpace;
using Device = Kokkos::Device<Exec, Exec::memory_space>;
using Scalar = double;
using Ordinal = int;
using Offset = int;
using Matrix = Csr<Scalar, Ordinal, Offset, Device>;

// Libra's own flags, taken out of argv before Google Benchmark parses the rest:
//   --libra_matrices=SPEC[,SPEC...]  a folder (all its .mtx/.txt files), a file,
//                                    or rmat:SCALE[-SCALE]:EDGEFACTOR
//   --libra_repetitions=N            repetitions per case; medians are reported
//   --libra_cusparse_chunk=F         chunk fraction of cuSPARSE's ALG3 (0 < F <= 1)
struct Options {
  std::vector<std::string> matrices;  // empty: the benchmark's default set
  int repetitions = 5;
  double cusparse_chunk_fraction = 0.2;
  std::string default_matrix_dir;  // the configured LIBRA_BENCH_MATRICES
};

// Parses and removes the --libra_* flags; throws ArgumentError on a bad value.
Options take_options(int& argc, char** argv);

// Defined once per benchmark executable (bench_spgemm.cpp, bench_convert.cpp):
// registers its cases with Google Benchmark, and frees the Kokkos views its cases
// keep between calls (main calls it before Kokkos is finalized).
void register_benchmarks(const Options& options);
void release_benchmarks();

// Manual time, median of repetitions, milliseconds: every Libra case.
inline benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b,
                                                 const Options& options) {
  return b->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Repetitions(options.repetitions)
      ->ReportAggregatesOnly(true);
}

// Runs f on the device and returns its wall time, the device fenced on both
// sides so that the time holds all of f's work and nothing before it.
template <class F>
double time_on_device(const Exec& exec, F&& f) {
  exec.fence();
  Kokkos::Timer timer;
  f();
  exec.fence();
  return timer.seconds();
}

// Per-second rates of quantities done once per iteration (Google Benchmark divides
// by the manual time and multiplies by the iterations).
inline void add_rate(benchmark::State& state, const char* name, double per_iteration) {
  state.counters[name] =
      benchmark::Counter(per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}
// "GFLOP/s": 2 * products per second, in 1e9.
inline void add_gflops(benchmark::State& state, std::uint64_t products) {
  add_rate(state, "GFLOP/s", 2.0 * static_cast<double>(products) * 1e-9);
}
// "GB/s": bytes moved per second, in 1e9.
inline void add_gbytes(benchmark::State& state, double bytes) {
  add_rate(state, "GB/s", bytes * 1e-9);
}
// "nnz/s": entries processed per second.
inline void add_nnz_rate(benchmark::State& state, double nnz) {
  add_rate(state, "nnz/s", nnz);
}
// A plain value (nnz_C, peak_MB, chunks): the same in every repetition.
inline void add_value(benchmark::State& state, const char* name, double value) {
  state.counters[name] = benchmark::Counter(value);
}
inline void add_peak_mb(benchmark::State& state, std::size_t bytes) {
  add_value(state, "peak_MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

// The prefix that the report reads a skipped case's category from: "oom: ..."
// when an allocation failed, "overflow: ..." when a count does not fit its index
// type (nnz(C) beyond 32-bit offsets), "error: ..." for anything else thrown.
std::string classify_exception(const std::exception& e);

}  // namespace libra::bench
