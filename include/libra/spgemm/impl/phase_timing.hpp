#pragma once
// SpgemmStats' per-phase seconds, shared by the SpGEMM algorithms.
#include <Kokkos_Core.hpp>

namespace libra::impl {

// Ends a phase for SpgemmStats: with phase timings on (plan.phase_timings), waits
// for the device and adds the elapsed time to `seconds`; otherwise costs nothing.
template <class Exec, class Plan>
void end_phase(const Exec& exec, const Plan& plan, Kokkos::Timer& timer,
               double& seconds) {
  if (!plan.phase_timings) return;
  exec.fence();
  seconds += timer.seconds();
  timer.reset();
}

}  // namespace libra::impl
