#include "libra/dist/launch.hpp"

#include <Kokkos_Macros.hpp>
#include <algorithm>
#include <cstdlib>
#include <string>

#include "libra/core/topology.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace libra::dist {

namespace {
const char* first_set(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (const char* v = std::getenv(n); v && *v) return v;
  }
  return nullptr;
}

// A non-negative count from the first variable set, or -1.
int count_from(std::initializer_list<const char*> names) noexcept {
  const char* v = first_set(names);
  if (!v) return -1;
  char* end = nullptr;
  const long r = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && r >= 0 && r < (1L << 24) ? static_cast<int>(r) : -1;
}

}  // namespace

bool launched_by_mpi() noexcept {
  // Open MPI, MPICH / Intel MPI (Hydra's PMI), PMIx launchers, MVAPICH.
  return first_set({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                    "MV2_COMM_WORLD_SIZE"}) != nullptr;
}

int launcher_local_rank() noexcept {
  return count_from({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                     "MV2_COMM_WORLD_LOCAL_RANK", "PMIX_LOCAL_RANK", "SLURM_LOCALID"});
}

int launcher_local_size() noexcept {
  const int n = count_from({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                            "MV2_COMM_WORLD_LOCAL_SIZE", "PMIX_LOCAL_SIZE"});
  return n > 0 ? n : -1;
}

int host_threads_per_rank() noexcept {
  const int host = online_processing_units();
  const int allowed = static_cast<int>(started_processing_units().size());
  if (allowed > 0 && allowed < host) return allowed;  // bound by the launcher (or user)
  const int ranks = std::max(1, launcher_local_size());
  return std::max(1, host / ranks);
}

int bind_rank_before_start() noexcept {
  const int rank = launcher_local_rank(), ranks = launcher_local_size();
  if (rank < 0 || ranks < 2) return 0;
  const int started = static_cast<int>(started_processing_units().size());
  if (started == 0 || started < online_processing_units()) return 0;
  try {
    const Topology t = read_topology();
    if (!t.this_system) return 0;
    const Placement p = plan_placement(t, rank, ranks, !t.gpus.empty());
    return bind_calling_thread(p.pus) ? static_cast<int>(p.pus.size()) : 0;
  } catch (...) {  // an allocation failed: run unbound
    return 0;
  }
}

int gpu_for_local_rank() noexcept {
#if defined(KOKKOS_ENABLE_CUDA)
  const int local = launcher_local_rank();
  int count = 0;
  if (local < 0 || cudaGetDeviceCount(&count) != cudaSuccess || count < 1) return -1;
  return local % count;
#else
  return -1;
#endif
}

}  // namespace libra::dist
