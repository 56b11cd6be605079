#pragma once
// What an MPI launcher (mpirun, mpiexec, srun with PMI) tells a process before
// MPI_Init, read from its environment: whether it was started by one, and its
// rank on this host, from which each rank picks its own GPU before Kokkos
// starts (Kokkos 3.4 drives one GPU per process and, by itself, picks GPU 0).
namespace libra::dist {

bool launched_by_mpi() noexcept;
// The rank among this host's ranks, or -1 when no launcher says.
int launcher_local_rank() noexcept;
// The GPU this rank should drive: its local rank modulo the GPUs it sees; -1 on
// builds without a GPU backend, without a GPU, or without a launcher.
int gpu_for_local_rank() noexcept;

}  // namespace libra::dist
