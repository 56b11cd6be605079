// The main of every Libra benchmark executable: Kokkos lives for the whole run,
// the JSON context records the machine and the build (so that a report says
// what it measured), then the executable's own cases run.
#include <benchmark/benchmark.h>
#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <string>

#include "harness.hpp"
#include "libra/core/error.hpp"
#include "libra/util/result_memory.hpp"
#include "libra/version.hpp"
#include "libra_bench/build_info.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace libra::bench {

namespace {

std::string flag_value(const std::string& arg, const std::string& flag) {
  return arg.substr(flag.size());
}

template <class T>
T parse_flag(const std::string& text, const char* flag) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    throw ArgumentError(std::string(flag) + ": '" + text + "' is not a number");
  }
  return value;
}

// LIBRA_BENCH_RESULT_REUSE=never|always|automatic: whether Libra's returned
// arrays (a product's C) reuse the memory of dropped ones (util/result_memory.hpp;
// unset: automatic, GPUs only), so that a report can time both.
void take_result_reuse() {
  const char* text = std::getenv("LIBRA_BENCH_RESULT_REUSE");
  const std::string mode = text && *text ? text : "automatic";
  if (mode == "never") {
    set_result_memory_reuse(ResultMemoryReuse::never);
  } else if (mode == "always") {
    set_result_memory_reuse(ResultMemoryReuse::always);
  } else if (mode == "automatic") {
    set_result_memory_reuse(ResultMemoryReuse::automatic);
  } else {
    throw ArgumentError("LIBRA_BENCH_RESULT_REUSE='" + mode +
                        "' is not never, always or automatic");
  }
}

const char* result_reuse_name() {
  switch (result_memory_reuse()) {
    case ResultMemoryReuse::never:
      return "never";
    case ResultMemoryReuse::always:
      return "always";
    default:
      return "automatic";
  }
}

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." +
         std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOS_VERSION % 100);
}

std::string kokkos_backends() {
  std::string s;
  auto add = [&s](const char* name) {
    s += (s.empty() ? "" : ",") + std::string(name);
  };
#if defined(KOKKOS_ENABLE_CUDA)
  add("Cuda");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  add("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  add("Threads");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  add("Serial");
#endif
  return s;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos)
        return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

#if defined(KOKKOS_ENABLE_CUDA)
void add_cuda_context() {
  const int device = Kokkos::Cuda().cuda_device();
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    benchmark::AddCustomContext("cuda_device",
                                "unknown (cudaGetDeviceProperties failed)");
    return;
  }
  benchmark::AddCustomContext("cuda_device", prop.name);
  benchmark::AddCustomContext(
      "cuda_compute_capability",
      std::to_string(prop.major) + "." + std::to_string(prop.minor));
  benchmark::AddCustomContext(
      "cuda_memory_GiB",
      std::to_string(prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0)));
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    benchmark::AddCustomContext("cuda_runtime_version", std::to_string(runtime));
  }
  if (cudaDriverGetVersion(&driver) == cudaSuccess) {
    benchmark::AddCustomContext("cuda_driver_version", std::to_string(driver));
  }
}
#endif

void add_context() {
  benchmark::AddCustomContext("libra_version", libra::version());
  benchmark::AddCustomContext("libra_git_hash", LIBRA_BENCH_GIT_HASH);
  benchmark::AddCustomContext("build_type", LIBRA_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("compiler", LIBRA_BENCH_COMPILER);
  benchmark::AddCustomContext("kokkos_version", kokkos_version());
  benchmark::AddCustomContext("kokkos_kernels_version",
                              LIBRA_BENCH_KOKKOS_KERNELS_VERSION);
  benchmark::AddCustomContext("kokkos_backends", kokkos_backends());
  benchmark::AddCustomContext("kokkos_default_execution_space",
                              Kokkos::DefaultExecutionSpace::name());
  benchmark::AddCustomContext(
      "kokkos_concurrency",
      std::to_string(Kokkos::DefaultExecutionSpace().concurrency()));
  benchmark::AddCustomContext(
      "kokkos_host_concurrency",
      std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()));
  benchmark::AddCustomContext("omp_env",
                              "OMP_PROC_BIND=" + env_or("OMP_PROC_BIND", "") +
                                  " OMP_PLACES=" + env_or("OMP_PLACES", "") +
                                  " OMP_NUM_THREADS=" + env_or("OMP_NUM_THREADS", ""));
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("result_memory_reuse", result_reuse_name());
#if defined(KOKKOS_ENABLE_CUDA)
  add_cuda_context();
#endif
}

}  // namespace

Options take_options(int& argc, char** argv) {
  take_result_reuse();
  Options o;
  o.default_matrix_dir = LIBRA_BENCH_MATRICES;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--libra_matrices=", 0) == 0) {
      std::string list = flag_value(arg, "--libra_matrices=");
      for (std::size_t start = 0; start <= list.size();) {
        const auto comma = std::min(list.find(',', start), list.size());
        if (comma > start) o.matrices.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (arg.rfind("--libra_repetitions=", 0) == 0) {
      o.repetitions =
          parse_flag<int>(flag_value(arg, "--libra_repetitions="), "--libra_repetitions");
      if (o.repetitions < 1)
        throw ArgumentError("--libra_repetitions must be at least 1");
    } else if (arg.rfind("--libra_cusparse_chunk=", 0) == 0) {
      o.cusparse_chunk_fraction = parse_flag<double>(
          flag_value(arg, "--libra_cusparse_chunk="), "--libra_cusparse_chunk");
      if (!(o.cusparse_chunk_fraction > 0 && o.cusparse_chunk_fraction <= 1)) {
        throw ArgumentError("--libra_cusparse_chunk must be in (0, 1]");
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return o;
}

std::string classify_exception(const std::exception& e) {
  const std::string what = e.what();
  // Kokkos 3.4 rethrows a failed host allocation as std::runtime_error.
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
      what.find("allocation failure") != std::string::npos ||
      what.find("failed to allocate") != std::string::npos ||
      what.find("out of memory") != std::string::npos) {
    return "oom: " + what;
  }
  // Libra's checked counts, and cuSPARSE's nnz(C) beyond 32-bit offsets.
  if (dynamic_cast<const OverflowError*>(&e) != nullptr ||
      what.find("does not fit") != std::string::npos) {
    return "overflow: " + what;
  }
  return "error: " + what;
}

}  // namespace libra::bench

namespace {
// A crashing case prints its stack (addresses resolve with addr2line against
// the binary) before the signal ends the process as before: a report's "crash"
// then says where.
void print_stack_and_reraise(int sig, siginfo_t* info, void* context) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  std::fprintf(stderr, "bench: fatal signal %d at address %p\n", sig, info->si_addr);
#if defined(__x86_64__) && defined(REG_RIP)
  // A call through a null pointer leaves nothing to unwind: the return address
  // on top of the stack names the caller.
  const auto* uc = static_cast<const ucontext_t*>(context);
  const auto rip = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  const auto rsp = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
  void* top[2] = {reinterpret_cast<void*>(rip), *reinterpret_cast<void* const*>(rsp)};
  std::fprintf(stderr, "bench: instruction and return address on the stack:\n");
  backtrace_symbols_fd(top, 2, 2);
#else
  (void)context;
#endif
  std::fprintf(stderr, "bench: stack:\n");
  backtrace_symbols_fd(frames, n, 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

int main(int argc, char** argv) {
  struct sigaction on_fault {};
  on_fault.sa_sigaction = print_stack_and_reraise;
  on_fault.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &on_fault, nullptr);
  sigaction(SIGBUS, &on_fault, nullptr);
  Kokkos::ScopeGuard kokkos(argc, argv);
  libra::bench::Options options;
  try {
    options = libra::bench::take_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  libra::bench::add_context();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  try {
    libra::bench::register_benchmarks(options);
  } catch (const std::exception& e) {
    std::cerr << "registering benchmarks: " << e.what() << "\n";
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  libra::bench::release_benchmarks();
  benchmark::Shutdown();
  return 0;
}
