#pragma once
// What an MPI launcher (mpirun, mpiexec, srun with PMI) tells a process before
// MPI_Init, read from its environment: whether it was started by one, and its
// rank on this host, from which each rank picks its own GPU before Kokkos
// starts (Kokkos 3.4 drives one GPU per process and, by itself, picks GPU 0).
namespace libra::dist {

bool launched_by_mpi() noexcept;
// The rank among this host's ranks, or -1 when no launcher says.
int launcher_local_rank() noexcept;
// How many ranks the launcher started on this host, or -1 when it does not say.
int launcher_local_size() noexcept;
// The host threads a rank should run when nobody chose: the CPUs it may use when
// the launcher bound it to fewer than the host has, else the host's CPUs shared
// among the ranks on it (at least 1). Each rank taking every CPU oversubscribes
// the host: on 2 H100s, 2 ranks of 32 threads on 32 cores made each MPI barrier
// wait about 7 ms for a descheduled rank.
int host_threads_per_rank() noexcept;
// The GPU this rank should drive: its local rank modulo the GPUs it sees; -1 on
// builds without a GPU backend, without a GPU, or without a launcher.
int gpu_for_local_rank() noexcept;

}  // namespace libra::dist
