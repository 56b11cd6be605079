#include "libra/dist/impl/nccl.hpp"

#include <mpi.h>

#include <cstdlib>
#include <vector>

// LIBRA_HAVE_NCCL, LIBRA_HAVE_CUDA_BUILD and LIBRA_CUDA_TOOLKIT_ROOT come from
// src/CMakeLists.txt (this file only).
#if LIBRA_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
#endif

namespace libra::dist::impl {

#if LIBRA_HAVE_NCCL

struct Nccl::Api {
  void* handle = nullptr;
  ncclComm_t comm = nullptr;
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclReduce) reduce = nullptr;
  decltype(&ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;

  void check(ncclResult_t rc, const char* what) const {
    if (rc != ncclSuccess) {
      throw Error(std::string("NCCL: ") + what + ": " +
                  (error_string ? error_string(rc) : "error"));
    }
  }
};

namespace {

template <class F>
bool load(void* handle, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  return f != nullptr;
}

// The candidates, in order; the first that loads wins.
std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("LIBRA_NCCL_LIBRARY"); env && *env) c.push_back(env);
  c.push_back("libnccl.so.2");
  c.push_back(std::string(LIBRA_CUDA_TOOLKIT_ROOT) + "/lib/libnccl.so.2");
  c.push_back(std::string(LIBRA_CUDA_TOOLKIT_ROOT) + "/lib64/libnccl.so.2");
  return c;
}

// Loads the library and its symbols on this rank; "" or why not.
std::string load_api(Nccl::Api& api, std::string& path) {
  std::string tried;
  for (const auto& c : candidates()) {
    api.handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.handle) {
      path = c;
      break;
    }
    tried += (tried.empty() ? "" : ", ") + c;
  }
  if (!api.handle) return "libnccl.so.2 not found (tried " + tried + ")";
  const bool ok = load(api.handle, "ncclGetVersion", api.get_version) &&
                  load(api.handle, "ncclGetUniqueId", api.get_unique_id) &&
                  load(api.handle, "ncclCommInitRank", api.comm_init_rank) &&
                  load(api.handle, "ncclCommDestroy", api.comm_destroy) &&
                  load(api.handle, "ncclGetErrorString", api.error_string) &&
                  load(api.handle, "ncclReduce", api.reduce) &&
                  load(api.handle, "ncclReduceScatter", api.reduce_scatter) &&
                  load(api.handle, "ncclBroadcast", api.broadcast) &&
                  load(api.handle, "ncclSend", api.send) &&
                  load(api.handle, "ncclRecv", api.recv) &&
                  load(api.handle, "ncclGroupStart", api.group_start) &&
                  load(api.handle, "ncclGroupEnd", api.group_end);
  return ok ? "" : path + " lacks a symbol Libra needs (NCCL >= 2.7 has them all)";
}

ncclDataType_t nccl_type(NcclType t) {
  return t == NcclType::f32 ? ncclFloat32 : ncclFloat64;
}

}  // namespace

std::unique_ptr<Nccl> Nccl::open(const Comm& comm, std::string& why) {
  std::unique_ptr<Nccl> out(new Nccl);
  out->api_ = std::make_unique<Api>();
  Api& api = *out->api_;
  std::string path;
  // Every rank must agree before the collective initialisation: one rank without
  // NCCL would leave the others waiting in ncclCommInitRank.
  try {
    agreed(comm, [&] {
      const std::string problem = load_api(api, path);
      if (!problem.empty()) throw Error(problem);
    });
    ncclUniqueId id;
    agreed(comm, [&] {
      if (comm.is_root()) api.check(api.get_unique_id(&id), "ncclGetUniqueId");
    });
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm.get());
    agreed(comm, [&] {
      api.check(api.comm_init_rank(&api.comm, comm.size(), id, comm.rank()),
                "ncclCommInitRank");
    });
  } catch (const RemoteError& e) {
    why = e.what();
    return nullptr;
  }
  int version = 0;
  api.get_version(&version);
  // NCCL >= 2.9 encodes x.y.z as x * 10000 + y * 100 + z.
  out->description_ = "NCCL " + std::to_string(version / 10000) + "." +
                      std::to_string(version / 100 % 100) + "." +
                      std::to_string(version % 100) + " (" + path + ")";
  why.clear();
  return out;
}

Nccl::~Nccl() {
  if (api_ && api_->comm) api_->comm_destroy(api_->comm);
  // The library stays loaded: CUDA may still hold callbacks into it.
}

void Nccl::reduce_sum(const void* send, void* recv, std::size_t count, NcclType type,
                      int root, void* stream) {
  api_->check(api_->reduce(send, recv, count, nccl_type(type), ncclSum, root, api_->comm,
                           static_cast<cudaStream_t>(stream)),
              "ncclReduce");
}

void Nccl::reduce_scatter_sum(const void* send, void* recv, std::size_t count,
                              NcclType type, void* stream) {
  api_->check(api_->reduce_scatter(send, recv, count, nccl_type(type), ncclSum,
                                   api_->comm, static_cast<cudaStream_t>(stream)),
              "ncclReduceScatter");
}

void Nccl::bcast(void* data, std::size_t bytes, int root, void* stream) {
  api_->check(api_->broadcast(data, data, bytes, ncclUint8, root, api_->comm,
                              static_cast<cudaStream_t>(stream)),
              "ncclBroadcast");
}

void Nccl::send(const void* data, std::size_t bytes, int peer, void* stream) {
  api_->check(api_->send(data, bytes, ncclUint8, peer, api_->comm,
                         static_cast<cudaStream_t>(stream)),
              "ncclSend");
}

void Nccl::recv(void* data, std::size_t bytes, int peer, void* stream) {
  api_->check(api_->recv(data, bytes, ncclUint8, peer, api_->comm,
                         static_cast<cudaStream_t>(stream)),
              "ncclRecv");
}

void Nccl::group_start() {
  api_->check(api_->group_start(), "ncclGroupStart");
}

void Nccl::group_end() {
  api_->check(api_->group_end(), "ncclGroupEnd");
}

#else  // no CUDA or no nccl.h at build time

struct Nccl::Api {};

std::unique_ptr<Nccl> Nccl::open(const Comm&, std::string& why) {
  why = LIBRA_HAVE_CUDA_BUILD ? "Libra was built without NCCL's header (nccl.h)"
                              : "Libra was built without CUDA";
  return nullptr;
}
Nccl::~Nccl() = default;
// open() returns no object in such a build, so these cannot be reached.
[[noreturn]] static void unavailable() {
  throw Error("NCCL is not available in this build of Libra");
}
void Nccl::reduce_sum(const void*, void*, std::size_t, NcclType, int, void*) {
  unavailable();
}
void Nccl::reduce_scatter_sum(const void*, void*, std::size_t, NcclType, void*) {
  unavailable();
}
void Nccl::bcast(void*, std::size_t, int, void*) {
  unavailable();
}
void Nccl::send(const void*, std::size_t, int, void*) {
  unavailable();
}
void Nccl::recv(void*, std::size_t, int, void*) {
  unavailable();
}
void Nccl::group_start() {
  unavailable();
}
void Nccl::group_end() {
  unavailable();
}

#endif

}  // namespace libra::dist::impl
