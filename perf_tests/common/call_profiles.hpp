#pragma once
// The per-call diagnostics the benchmarks print on stderr, after a case's
// checked call: LIBRA_BENCH_KERNEL_TIMES=1 times one call kernel by kernel
// (KernelTimer); LIBRA_BENCH_TIMELINE=1 prints the host timeline of one call
// after three warm ones (EventTimeline). `reset` runs before every call (e.g.
// giving back what the last call kept), `call` makes one call.
#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <string>

#include "event_timeline.hpp"
#include "harness.hpp"
#include "kernel_timer.hpp"

namespace libra::bench {

template <class Reset, class Call>
void print_call_profiles(const std::string& name, Reset&& reset, Call&& call) {
  if (std::getenv("LIBRA_BENCH_KERNEL_TIMES")) {
    reset();
    Exec().fence();
    KernelTimer::start();
    Kokkos::Timer wall;
    call();
    Exec().fence();
    const double seconds = wall.seconds();
    KernelTimer::stop();
    KernelTimer::print(name, seconds);
  }
  if (std::getenv("LIBRA_BENCH_TIMELINE")) {
    for (int warm = 0; warm < 3; ++warm) {  // blocks cached, code paths warm
      reset();
      call();
      Exec().fence();
    }
    reset();
    Exec().fence();
    EventTimeline::start();
    Kokkos::Timer wall;
    call();
    Exec().fence();
    const double seconds = wall.seconds();
    EventTimeline::stop();
    EventTimeline::print(name, seconds);
  }
}

}  // namespace libra::bench
