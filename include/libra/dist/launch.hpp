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
// The host threads a rank should run when nobody chose: the CPUs it was started
// on when the launcher bound it to fewer than the host has, else the host's CPUs shared
// among the ranks on it (at least 1). Each rank taking every CPU oversubscribes
// the host: on 2 H100s, 2 ranks of 32 threads on 32 cores made each MPI barrier
// wait about 7 ms for a descheduled rank.
int host_threads_per_rank() noexcept;
// Under a launcher that bound no rank (`mpiexec --bind-to none`; a launcher's
// binding to the whole host counts as none), binds the calling thread to this
// rank's share of the host (libra::plan_placement: near its GPU, split with the
// ranks sharing the domain) and returns true; the caller must not have started
// threads and should exec itself again, so that the OpenMP runtime builds its
// places in the share. Without this, an OMP_PROC_BIND of the user's binds every
// rank's first thread to the host's first core: on 2 H200s each iteration of a
// 2-rank SpMV waited ~8 ms for the other rank's time slice. Returns how many
// processing units the share has (the threads the rank should run), or 0, doing
// nothing, when the launcher bound the rank, when it is alone on its host, or
// when no launcher says where it runs.
int bind_rank_before_start() noexcept;
// The GPU this rank should drive: its local rank modulo the GPUs it sees; -1 on
// builds without a GPU backend, without a GPU, or without a launcher.
int gpu_for_local_rank() noexcept;

}  // namespace libra::dist
