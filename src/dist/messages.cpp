#include "libra/dist/impl/messages.hpp"

#include <algorithm>
#include <string>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: MPIX_Query_cuda_support
#endif

namespace libra::dist::impl {

namespace {
constexpr std::size_t piece = std::size_t(1) << 30;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}
int count_of(std::size_t n) {
  return static_cast<int>(std::min(n, piece));
}
}  // namespace

void send_bytes(const Comm& comm, const void* data, std::size_t bytes, int dest,
                int tag) {
  const char* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < bytes; done += piece) {
    check(MPI_Send(p + done, count_of(bytes - done), MPI_BYTE, dest, tag, comm.get()),
          "MPI_Send");
  }
}

void recv_bytes(const Comm& comm, void* data, std::size_t bytes, int source, int tag) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += piece) {
    check(MPI_Recv(p + done, count_of(bytes - done), MPI_BYTE, source, tag, comm.get(),
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
  }
}

void isend_bytes(const Comm& comm, const void* data, std::size_t bytes, int dest, int tag,
                 std::vector<MPI_Request>& requests) {
  const char* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < bytes; done += piece) {
    requests.emplace_back();
    check(MPI_Isend(p + done, count_of(bytes - done), MPI_BYTE, dest, tag, comm.get(),
                    &requests.back()),
          "MPI_Isend");
  }
}

void irecv_bytes(const Comm& comm, void* data, std::size_t bytes, int source, int tag,
                 std::vector<MPI_Request>& requests) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += piece) {
    requests.emplace_back();
    check(MPI_Irecv(p + done, count_of(bytes - done), MPI_BYTE, source, tag, comm.get(),
                    &requests.back()),
          "MPI_Irecv");
  }
}

void wait_all(std::vector<MPI_Request>& requests) {
  const int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                             MPI_STATUSES_IGNORE);
  requests.clear();
  check(rc, "MPI_Waitall");
}

void bcast_bytes(const Comm& comm, void* data, std::size_t bytes, int root) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += piece) {
    check(MPI_Bcast(p + done, count_of(bytes - done), MPI_BYTE, root, comm.get()),
          "MPI_Bcast");
  }
}

void reduce_sum(const Comm& comm, const void* send, void* recv, std::size_t count,
                MPI_Datatype type, int root) {
  int size = 0;
  check(MPI_Type_size(type, &size), "MPI_Type_size");
  const std::size_t elem = static_cast<std::size_t>(size);
  const std::size_t step = piece / elem;
  for (std::size_t done = 0; done < count; done += step) {
    const int n = static_cast<int>(std::min(count - done, step));
    const char* s = static_cast<const char*>(send) + done * elem;
    char* r = comm.rank() == root ? static_cast<char*>(recv) + done * elem : nullptr;
    check(MPI_Reduce(s, r, n, type, MPI_SUM, root, comm.get()), "MPI_Reduce");
  }
}

void reduce_scatter_sum(const Comm& comm, const void* send, void* recv, std::size_t count,
                        MPI_Datatype type) {
  int size = 0;
  check(MPI_Type_size(type, &size), "MPI_Type_size");
  const std::size_t elem = static_cast<std::size_t>(size);
  if (count * elem <= piece) {
    check(MPI_Reduce_scatter_block(send, recv, static_cast<int>(count), type, MPI_SUM,
                                   comm.get()),
          "MPI_Reduce_scatter_block");
    return;
  }
  // Blocks beyond an int's count: each rank's block summed onto it in turn.
  for (int r = 0; r < comm.size(); ++r) {
    reduce_sum(
        comm, static_cast<const char*>(send) + static_cast<std::size_t>(r) * count * elem,
        recv, count, type, r);
  }
}

void max_over_ranks(const Comm& comm, double* values, int count) {
  check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, comm.get()),
        "MPI_Allreduce");
}

bool mpi_takes_cuda_pointers() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace libra::dist::impl
