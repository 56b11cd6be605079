#pragma once
// NCCL for libra::dist, loaded at run time: the library and the tool run where
// NCCL is absent (a host build, a machine without it), and a CUDA build finds it
// where it is: LIBRA_NCCL_LIBRARY (a file), else "libnccl.so.2" on the loader's
// path, else beside the CUDA toolkit Libra was built with. This header does not
// include nccl.h, so that it installs and compiles without NCCL's headers.
#include <cstddef>
#include <memory>
#include <string>

#include "libra/dist/comm.hpp"

namespace libra::dist::impl {

enum class NcclType { f32, f64 };

class Nccl {
 public:
  // Collective over comm: loads NCCL and opens a communicator of the same ranks.
  // Returns nullptr where NCCL cannot be used on every rank (the build has no
  // CUDA or no nccl.h, the library is missing, a symbol is missing, or the
  // communicator failed), with the reason in `why` (the same on every rank).
  static std::unique_ptr<Nccl> open(const Comm& comm, std::string& why);
  ~Nccl();
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;

  // The stream is a cudaStream_t; each call is enqueued on it, as Kokkos kernels are.
  void reduce_sum(const void* send, void* recv, std::size_t count, NcclType type,
                  int root, void* stream);
  // recv (count elements) = the sum over ranks of send's block of this rank
  // (send: ranks x count elements).
  void reduce_scatter_sum(const void* send, void* recv, std::size_t count, NcclType type,
                          void* stream);
  void bcast(void* data, std::size_t bytes, int root, void* stream);
  void send(const void* data, std::size_t bytes, int peer, void* stream);
  void recv(void* data, std::size_t bytes, int peer, void* stream);
  void group_start();  // sends and receives between them run together
  void group_end();
  const std::string& description() const { return description_; }  // "NCCL 2.28.3 (path)"

  struct Api;

 private:
  Nccl() = default;
  std::unique_ptr<Api> api_;
  std::string description_;
};

}  // namespace libra::dist::impl
