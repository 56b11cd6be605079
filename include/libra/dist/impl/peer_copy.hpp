#pragma once
// Pieces of y moved by rank 0's copy engines (PieceMoves::copy_engines): every
// other rank computes its rows into a buffer of its own device memory that rank
// 0 has mapped (CUDA IPC), records an event of its own after each piece and
// tells rank 0 so (an empty MPI message); rank 0 then queues, on a stream per
// rank, a wait for that event and a copy of the piece's rows from the mapped
// buffer into y. No kernel of a transport's runs beside the products, and each
// rank's copies proceed at once. The buffer is reused by the next product only
// after rank 0 has said its copies are done (finish()).
//
// Ranks on one host with the Cuda space only; raw CUDA (IPC handles, events,
// streams), hidden in src/dist/peer_copy.cpp so that this header compiles
// anywhere. In a build without CUDA open() refuses, with the reason.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "libra/dist/comm.hpp"

namespace libra::dist::impl {

// One copy: `bytes` from byte `from` of a rank's buffer to `to` on rank 0.
struct PeerMove {
  void* to = nullptr;
  std::size_t from = 0;
  std::size_t bytes = 0;
};

class PeerCopy {
 public:
  // Collective. nullptr where copy engines cannot move the pieces (no CUDA in
  // this build, ranks on several hosts, a GPU that cannot reach rank 0's), with
  // the reason in `why`, the same on every rank.
  static std::unique_ptr<PeerCopy> open(const Comm& comm, std::string& why);
  ~PeerCopy();
  PeerCopy(const PeerCopy&) = delete;
  PeerCopy& operator=(const PeerCopy&) = delete;

  // Collective: an event per piece on every rank but 0, mapped on rank 0.
  void prepare(int pieces);
  // Collective: a buffer of `bytes` on every rank but 0 (the old one freed),
  // mapped on rank 0. Returns this rank's buffer (rank 0: nullptr).
  void* share(std::size_t bytes);

  // Rank > 0: piece `piece` of its rows is queued on `stream` (a cudaStream_t):
  // rank 0 may copy it once the stream has run it.
  void ready(int piece, void* stream);
  // Rank > 0: waits until rank 0 has copied every piece of this product.
  void finish();

  // Rank 0: moves[r][c] are rank r's moves for its piece c (empty: rank r
  // sends no notice for it). Queues each piece's moves as its notice arrives;
  // returns once all are queued.
  void gather(const std::vector<std::vector<std::vector<PeerMove>>>& moves);
  // Rank 0: what is queued next on `stream` runs after every copy.
  void join(void* stream);
  // Rank 0, once the copies are done (the caller fenced): the other ranks may
  // write their buffers again.
  void release();

  struct State;

 private:
  explicit PeerCopy(const Comm& comm);
  const Comm& comm_;
  std::unique_ptr<State> state_;
};

}  // namespace libra::dist::impl
