#pragma once
// Point-to-point and collective moves of raw buffers for libra::dist. MPI counts
// are int: a buffer of more than 2^31 - 1 elements would wrap, so every move is
// cut into pieces of at most 2^30 bytes (or elements, for reductions). The
// pointers may be device memory when the MPI library accepts it (a CUDA-aware
// MPI); libra::dist decides that, these functions do not look.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "libra/dist/comm.hpp"

namespace libra::dist::impl {

void send_bytes(const Comm& comm, const void* data, std::size_t bytes, int dest, int tag);
void recv_bytes(const Comm& comm, void* data, std::size_t bytes, int source, int tag);
// Non-blocking moves: each piece's request is appended to `requests`, which
// wait_all completes (and empties). Pieces of one move match in order (MPI's
// messages between two ranks with one tag do not overtake each other).
void isend_bytes(const Comm& comm, const void* data, std::size_t bytes, int dest, int tag,
                 std::vector<MPI_Request>& requests);
void irecv_bytes(const Comm& comm, void* data, std::size_t bytes, int source, int tag,
                 std::vector<MPI_Request>& requests);
void wait_all(std::vector<MPI_Request>& requests);
void bcast_bytes(const Comm& comm, void* data, std::size_t bytes, int root);
// recv[i] = sum over ranks of send[i], on `root` only (recv ignored elsewhere).
void reduce_sum(const Comm& comm, const void* send, void* recv, std::size_t count,
                MPI_Datatype type, int root);
// recv (count elements) = the sum over ranks of send's block of this rank (send:
// ranks x count elements).
void reduce_scatter_sum(const Comm& comm, const void* send, void* recv, std::size_t count,
                        MPI_Datatype type);
void max_over_ranks(const Comm& comm, double* values, int count);

// Whether the MPI library takes device pointers (Open MPI's MPIX_Query_cuda_support
// where the build has it; false otherwise).
bool mpi_takes_cuda_pointers();

template <class S>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<S, double>) {
    return MPI_DOUBLE;
  } else if constexpr (std::is_same_v<S, float>) {
    return MPI_FLOAT;
  } else if constexpr (std::is_same_v<S, Kokkos::complex<double>>) {
    return MPI_C_DOUBLE_COMPLEX;
  } else if constexpr (std::is_same_v<S, Kokkos::complex<float>>) {
    return MPI_C_FLOAT_COMPLEX;
  } else {
    static_assert(std::is_same_v<S, double>,
                  "libra::dist: the scalar must be float, double or Kokkos::complex");
    return MPI_DATATYPE_NULL;
  }
}

}  // namespace libra::dist::impl
