#pragma once
// MPI for the tool. It starts only when an MPI launcher started the tool (then
// `libra spmv` runs on every rank, spmv_dist.cpp); a plain run never touches MPI,
// and a build without MPI has none of it.
namespace libra::cli {

class MpiSession {
 public:
  // Initialises MPI when launched by mpirun and the build has MPI.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

bool mpi_active() noexcept;   // MpiSession started MPI
int mpi_rank() noexcept;      // 0 without MPI
int mpi_size() noexcept;      // 1 without MPI
void mpi_barrier() noexcept;  // all ranks; nothing without MPI
// Whether this process should stay silent about errors: a rank other than 0 of
// an MPI job (rank 0 reports for all), known from the launcher before MPI starts.
bool quiet_rank() noexcept;

}  // namespace libra::cli
