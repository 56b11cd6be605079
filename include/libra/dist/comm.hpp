#pragma once
// MPI as Libra's distributed kernels use it: a communicator, where this rank sits
// (which host, which rank on that host), and agreement on failures. A rank that
// throws while the others wait in a collective would hang the job; instead every
// collective step of libra::dist ends in agree(), so that a failure on any rank
// becomes the same RemoteError on every rank.
//
//   libra::dist::Comm comm(MPI_COMM_WORLD);       // MPI must be initialised
//   std::exception_ptr failure;
//   try { ... } catch (...) { failure = std::current_exception(); }
//   libra::dist::agree(comm, failure);            // throws on every rank, or not
#include <mpi.h>

#include <exception>
#include <string>

#include "libra/core/error.hpp"

namespace libra::dist {

// What failed, so that a caller maps a remote failure as it would a local one
// (the CLI: input -> exit 3, usage -> 2, the rest -> 1).
enum class FailureKind { none = 0, input, argument, shape, overflow, memory, other };
const char* to_string(FailureKind kind) noexcept;

// A failure on the lowest failing rank, rethrown on every rank. what() is
// "rank R: <the original message>"; code() is what that rank's caller passed to
// agree() (the CLI passes its exit code), 0 by default.
class RemoteError : public Error {
 public:
  RemoteError(int rank, FailureKind kind, int code, const std::string& message);
  int rank() const noexcept { return rank_; }
  FailureKind kind() const noexcept { return kind_; }
  int code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }

 private:
  int rank_;
  FailureKind kind_;
  int code_;
  std::string message_;
};

class Comm {
 public:
  // Collective over `comm` (it groups the ranks by host once).
  explicit Comm(MPI_Comm comm = MPI_COMM_WORLD);
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm();

  MPI_Comm get() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  bool is_root() const noexcept { return rank_ == 0; }
  int node_rank() const noexcept { return node_rank_; }    // among this host's ranks
  int node_size() const noexcept { return node_size_; }    // ranks on this host
  int node_index() const noexcept { return node_index_; }  // hosts by lowest rank
  int node_count() const noexcept { return node_count_; }
  void barrier() const;

 private:
  MPI_Comm comm_;
  MPI_Comm node_comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1, node_index_ = 0,
      node_count_ = 1;
};

// The kind and message of a caught exception (RemoteError keeps its own).
FailureKind classify(std::exception_ptr failure, std::string& message);

// Collective. Each rank passes what it caught (nullptr: it succeeded) and a code
// of the caller's own. When any rank failed, every rank throws RemoteError with
// the lowest failing rank's kind, code and message; otherwise it returns.
void agree(const Comm& comm, std::exception_ptr failure, int code = 0);

// Collective: runs f() on this rank and agrees on the outcome.
template <class F>
void agreed(const Comm& comm, F&& f) {
  std::exception_ptr failure;
  try {
    f();
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm, failure);
}

}  // namespace libra::dist
