#pragma once
// How Libra's kernels launch on one execution space, decided by the space's type
// at compile time and written down in this one place.
//
// GPU or host is a property of the execution space, not of where its memory can
// be read: with KOKKOS_ENABLE_CUDA_UVM, Kokkos::Cuda's default memory space is
// host-accessible, yet its kernels run on the GPU and want GPU launch shapes.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace libra {

namespace impl {
template <class Exec>
struct is_host_space : std::is_same<Exec, Kokkos::DefaultHostExecutionSpace> {};
#if defined(KOKKOS_ENABLE_SERIAL)
template <>
struct is_host_space<Kokkos::Serial> : std::true_type {};
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <>
struct is_host_space<Kokkos::OpenMP> : std::true_type {};
#endif
#if defined(KOKKOS_ENABLE_THREADS)
template <>
struct is_host_space<Kokkos::Threads> : std::true_type {};
#endif
}  // namespace impl

// A policy whose functor travels as a kernel argument (up to 4 KB). Without the
// hint, Kokkos 3.4's Cuda backend copies a functor of 512 bytes or more through
// constant memory and first waits for the previous such kernel to finish: a host
// synchronisation per launch, which a chain of small kernels pays in full.
template <class Policy>
auto light_launch(const Policy& policy) {
  return Kokkos::Experimental::require(
      policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

// The most threads per team (vector length 1) that a light_launch of functor f
// with `scratch` per team allows: the launched kernel's own registers and
// scratch (a policy without the light-weight property instantiates another
// kernel, whose limit may be higher).
template <class Exec, class Scratch, class F>
int widest_team(const Exec& exec, int league, const Scratch& scratch, const F& f) {
  Kokkos::TeamPolicy<Exec> probe(exec, league, 1);
  return light_launch(probe.set_scratch_size(0, scratch))
      .team_size_max(f, Kokkos::ParallelForTag());
}

template <class Exec>
struct LaunchTraits {
  static_assert(Kokkos::is_execution_space<Exec>::value,
                "LaunchTraits takes an execution space");
  // Host spaces (Serial, OpenMP, Threads): a team is one core and runs one thread;
  // kernels take the sequential per-thread variants. Everything else (CUDA, and any
  // other accelerator backend) gets GPU-shaped teams.
  static constexpr bool is_gpu = !impl::is_host_space<Exec>::value;

  // Threads per team for kernels written for GPU teams (`gpu` on a GPU, 1 on a host).
  static constexpr int team_threads(int gpu) { return is_gpu ? gpu : 1; }
  // Vector lanes (ThreadVectorRange) per thread: a warp on a GPU, 1 on a host.
  static constexpr int vector_lanes = is_gpu ? 32 : 1;
  // Level-0 team scratch Libra's kernels plan with. Staying at 40 KB on a GPU
  // keeps several teams resident per multiprocessor; the host has no such limit
  // but gains nothing from more than a cache-sized working set.
  static constexpr int scratch_target_bytes = 40 * 1024;
  // Teams that run at once on a GPU (about eight per multiprocessor on an H100),
  // used to size per-team global arrays such as bitmaps and dense accumulators.
  static constexpr int gpu_concurrent_teams = 1024;

  // The level-0 scratch bytes a kernel may use on this space: the target, capped
  // by what the space allows (minus room for small per-team scalars).
  static int scratch_bytes() {
    return std::min(Kokkos::TeamPolicy<Exec>::scratch_size_max(0), scratch_target_bytes) -
           64;
  }

  // Teams (GPU) or threads (host) that run concurrently: the number of per-team
  // or per-thread work arrays worth allocating.
  static std::size_t concurrent_workers(const Exec& exec) {
    if constexpr (is_gpu) {
      (void)exec;
      return gpu_concurrent_teams;
    } else {
      return static_cast<std::size_t>(exec.concurrency());
    }
  }
};

// `threads` (a power of two), halved down to 32 until a light launch of f with
// `scratch` bytes per team allows it (GPU spaces; host spaces keep theirs).
template <class Exec, class F>
int fitted_team(const Exec& exec, int league, std::size_t scratch, int threads,
                const F& f) {
  if constexpr (LaunchTraits<Exec>::is_gpu) {
    const int widest = widest_team<Exec>(exec, league, Kokkos::PerTeam(scratch), f);
    while (threads > 32 && threads > widest) threads /= 2;
  } else {
    (void)exec;
    (void)league;
    (void)scratch;
    (void)f;
  }
  return threads;
}

// True when kernels on Exec take the host variants (Serial, OpenMP, Threads).
template <class Exec>
inline constexpr bool is_host_exec = !LaunchTraits<Exec>::is_gpu;

}  // namespace libra
