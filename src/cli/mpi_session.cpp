#include "mpi_session.hpp"

#include <cstdlib>

#include "libra/config.hpp"
#if LIBRA_ENABLE_MPI
#include <mpi.h>

#include "libra/dist/launch.hpp"
#endif

namespace libra::cli {

namespace {
bool active = false;
int rank = 0, size = 1;
}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
#if LIBRA_ENABLE_MPI
  if (!libra::dist::launched_by_mpi()) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  active = true;
#else
  (void)argc;
  (void)argv;
#endif
}

MpiSession::~MpiSession() {
#if LIBRA_ENABLE_MPI
  if (active) MPI_Finalize();
#endif
}

bool mpi_active() noexcept {
  return active;
}
int mpi_rank() noexcept {
  return rank;
}
int mpi_size() noexcept {
  return size;
}

void mpi_barrier() noexcept {
#if LIBRA_ENABLE_MPI
  if (active) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

bool quiet_rank() noexcept {
  if (active) return rank != 0;
  // Before MPI starts: the launcher's own variables (Open MPI, PMI, PMIx).
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const char* v = std::getenv(name); v && *v) return std::atoi(v) != 0;
  }
  return false;
}

}  // namespace libra::cli
