#include "libra/dist/comm.hpp"

#include <cstdint>
#include <new>
#include <vector>

namespace libra::dist {

const char* to_string(FailureKind kind) noexcept {
  switch (kind) {
    case FailureKind::none:
      return "none";
    case FailureKind::input:
      return "input";
    case FailureKind::argument:
      return "argument";
    case FailureKind::shape:
      return "shape";
    case FailureKind::overflow:
      return "overflow";
    case FailureKind::memory:
      return "memory";
    case FailureKind::other:
      return "other";
  }
  return "other";
}

RemoteError::RemoteError(int rank, FailureKind kind, int code, const std::string& message)
    : Error("rank " + std::to_string(rank) + ": " + message),
      rank_(rank),
      kind_(kind),
      code_(code),
      message_(message) {}

namespace {
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}
}  // namespace

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  check(
      MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm_),
      "MPI_Comm_split_type");
  check(MPI_Comm_rank(node_comm_, &node_rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(node_comm_, &node_size_), "MPI_Comm_size");
  // A host is numbered by the order of its lowest rank: the ranks whose node
  // rank is 0 lead their host.
  int leader = node_rank_ == 0 ? rank_ : -1;
  std::vector<int> leaders(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm_),
        "MPI_Allgather");
  int first = rank_;  // this host's lowest rank
  check(MPI_Bcast(&first, 1, MPI_INT, 0, node_comm_), "MPI_Bcast");
  node_count_ = 0;
  for (int r : leaders) {
    if (r < 0) continue;
    if (r == first) node_index_ = node_count_;
    ++node_count_;
  }
}

Comm::~Comm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
}

void Comm::barrier() const {
  check(MPI_Barrier(comm_), "MPI_Barrier");
}

FailureKind classify(std::exception_ptr failure, std::string& message) {
  if (!failure) return FailureKind::none;
  try {
    std::rethrow_exception(failure);
  } catch (const RemoteError& e) {  // already agreed: keep the original rank's words
    message = e.message();
    return e.kind();
  } catch (const InputError& e) {
    message = e.what();
    return FailureKind::input;
  } catch (const ArgumentError& e) {
    message = e.what();
    return FailureKind::argument;
  } catch (const ShapeError& e) {
    message = e.what();
    return FailureKind::shape;
  } catch (const OverflowError& e) {
    message = e.what();
    return FailureKind::overflow;
  } catch (const std::bad_alloc& e) {  // Kokkos' allocation failures derive from it
    message = std::string("out of memory: ") + e.what();
    return FailureKind::memory;
  } catch (const std::exception& e) {
    message = e.what();
    return FailureKind::other;
  } catch (...) {
    message = "an unknown exception";
    return FailureKind::other;
  }
}

void agree(const Comm& comm, std::exception_ptr failure, int code) {
  std::string message;
  const FailureKind kind = classify(failure, message);
  if (message.size() > 65536) message.resize(65536);  // a message, not a payload
  const int mine = kind == FailureKind::none ? comm.size() : comm.rank();
  int first = comm.size();
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.get()), "MPI_Allreduce");
  if (first == comm.size()) return;
  std::int64_t header[3] = {static_cast<std::int64_t>(kind), code,
                            static_cast<std::int64_t>(message.size())};
  check(MPI_Bcast(header, 3, MPI_INT64_T, first, comm.get()), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(header[2]));
  check(
      MPI_Bcast(message.data(), static_cast<int>(header[2]), MPI_CHAR, first, comm.get()),
      "MPI_Bcast");
  throw RemoteError(first, static_cast<FailureKind>(header[0]),
                    static_cast<int>(header[1]), message);
}

}  // namespace libra::dist
