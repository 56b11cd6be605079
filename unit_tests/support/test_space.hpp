#pragma once
// The execution space this test executable was compiled for (see
// cmake/LibraTesting.cmake), and the device its matrices live on.
#include <Kokkos_Core.hpp>

namespace libra::test {

#if defined(LIBRA_TEST_SPACE_SERIAL)
using Exec = Kokkos::Serial;
#elif defined(LIBRA_TEST_SPACE_OPENMP)
using Exec = Kokkos::OpenMP;
#elif defined(LIBRA_TEST_SPACE_CUDA)
using Exec = Kokkos::Cuda;
#else
#error "compile tests through libra_add_space_test(), which names the execution space"
#endif

using Device = Kokkos::Device<Exec, Exec::memory_space>;

// The most threads a team of Exec may have (1 on Serial; OpenMP's thread count).
struct NoTeamWork {
  KOKKOS_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type&) const {}
};
inline int max_team_threads() {
  return Kokkos::TeamPolicy<Exec>(1, Kokkos::AUTO)
      .team_size_max(NoTeamWork{}, Kokkos::ParallelForTag());
}

}  // namespace libra::test
