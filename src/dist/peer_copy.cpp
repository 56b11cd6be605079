// The raw CUDA and MPI calls behind libra/dist/impl/peer_copy.hpp.
#include "libra/dist/impl/peer_copy.hpp"

#include <mpi.h>

#include <Kokkos_Macros.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "libra/core/error.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace libra::dist::impl {

namespace {
// Above the tags libra::dist's moves use (spmv.hpp: up to 1000 + 4096).
constexpr int tag_notice = 20000, tag_release = 19999;
}  // namespace

#if defined(KOKKOS_ENABLE_CUDA)

namespace {
void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    throw Error(std::string("libra::dist copy engines: ") + what + ": " +
                cudaGetErrorString(rc));
  }
}
}  // namespace

struct PeerCopy::State {
  // Ranks > 0: the buffer rank 0 reads, and an event per piece.
  void* buffer = nullptr;
  std::vector<cudaEvent_t> events;
  std::vector<MPI_Request> notices;
  // Rank 0, by rank (entry 0 unused): the mapped buffers, the events, a stream
  // each for its copies and an event that ends them.
  std::vector<void*> mapped;
  std::vector<std::vector<cudaEvent_t>> peer_events;
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> ends;
  std::vector<MPI_Request> requests;

  void unmap() noexcept {
    for (void*& p : mapped) {
      if (p) cudaIpcCloseMemHandle(p);
      p = nullptr;
    }
  }
  void drop_events() noexcept {
    for (auto& e : events) cudaEventDestroy(e);
    events.clear();
    for (auto& v : peer_events) {
      for (auto& e : v) cudaEventDestroy(e);
      v.clear();
    }
  }
  ~State() {
    unmap();
    drop_events();
    if (buffer) cudaFree(buffer);
    for (auto& s : streams) {
      if (s) cudaStreamDestroy(s);
    }
    for (auto& e : ends) {
      if (e) cudaEventDestroy(e);
    }
  }
};

PeerCopy::PeerCopy(const Comm& comm) : comm_(comm), state_(std::make_unique<State>()) {}
PeerCopy::~PeerCopy() = default;

std::unique_ptr<PeerCopy> PeerCopy::open(const Comm& comm, std::string& why) {
  if (comm.node_count() > 1) {
    why = "the ranks are on " + std::to_string(comm.node_count()) +
          " hosts (copy engines reach one host's GPUs)";
    return nullptr;
  }
  // Every rank's GPU by PCI bus id (device numbers differ between processes
  // whose CUDA_VISIBLE_DEVICES differ).
  char mine[32] = {};
  std::string local;
  {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetPCIBusId(mine, sizeof(mine), device) != cudaSuccess) {
      local = "rank " + std::to_string(comm.rank()) + " has no CUDA device";
    }
  }
  const int P = comm.size();
  std::vector<char> ids(comm.is_root() ? 32 * static_cast<std::size_t>(P) : 0);
  MPI_Gather(mine, 32, MPI_CHAR, ids.data(), 32, MPI_CHAR, 0, comm.get());
  std::vector<char> problem(256, '\0');
  if (!local.empty()) std::strncpy(problem.data(), local.c_str(), problem.size() - 1);
  // The first rank's problem, else the root's finding.
  std::vector<char> all(comm.is_root() ? problem.size() * static_cast<std::size_t>(P)
                                       : 0);
  MPI_Gather(problem.data(), static_cast<int>(problem.size()), MPI_CHAR, all.data(),
             static_cast<int>(problem.size()), MPI_CHAR, 0, comm.get());
  if (comm.is_root()) {
    std::string found;
    for (int r = 0; r < P && found.empty(); ++r) found = &all[problem.size() * r];
    int root_device = 0;
    if (found.empty()) cudaGetDevice(&root_device);
    for (int r = 1; r < P && found.empty(); ++r) {
      int device = -1;
      if (cudaDeviceGetByPCIBusId(&device, &ids[32 * static_cast<std::size_t>(r)]) !=
          cudaSuccess) {
        found = "rank " + std::to_string(r) + "'s GPU (" + &ids[32 * r] +
                ") is not visible to rank 0";
        break;
      }
      int ok = 1;
      if (device != root_device) cudaDeviceCanAccessPeer(&ok, root_device, device);
      if (!ok) {
        found = "rank 0's GPU cannot read rank " + std::to_string(r) + "'s (" +
                &ids[32 * r] + ")";
      }
    }
    std::fill(problem.begin(), problem.end(), '\0');
    std::strncpy(problem.data(), found.c_str(), problem.size() - 1);
  }
  MPI_Bcast(problem.data(), static_cast<int>(problem.size()), MPI_CHAR, 0, comm.get());
  why = problem.data();
  if (!why.empty()) return nullptr;
  std::unique_ptr<PeerCopy> out(new PeerCopy(comm));
  auto& s = *out->state_;
  try {
    agreed(comm, [&] {
      if (!comm.is_root()) return;
      s.mapped.assign(static_cast<std::size_t>(P), nullptr);
      s.peer_events.resize(static_cast<std::size_t>(P));
      s.streams.assign(static_cast<std::size_t>(P), nullptr);
      s.ends.assign(static_cast<std::size_t>(P), nullptr);
      for (int r = 1; r < P; ++r) {
        check(cudaStreamCreateWithFlags(&s.streams[r], cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags");
        check(cudaEventCreateWithFlags(&s.ends[r], cudaEventDisableTiming),
              "cudaEventCreate");
      }
    });
    // A small buffer shared and mapped now: where IPC does not work (a
    // container that forbids it), open() says so rather than the first product.
    out->share(256);
  } catch (const RemoteError& e) {
    why = e.message();
    return nullptr;
  }
  return out;
}

void PeerCopy::prepare(int pieces) {
  auto& s = *state_;
  const int P = comm_.size();
  const auto n = static_cast<std::size_t>(pieces);
  std::vector<cudaIpcEventHandle_t> handles(n);
  agreed(comm_, [&] {
    s.drop_events();
    if (comm_.is_root()) return;
    s.events.resize(n);
    for (std::size_t c = 0; c < n; ++c) {
      check(cudaEventCreateWithFlags(&s.events[c],
                                     cudaEventDisableTiming | cudaEventInterprocess),
            "cudaEventCreate");
      check(cudaIpcGetEventHandle(&handles[c], s.events[c]), "cudaIpcGetEventHandle");
    }
  });
  const int bytes = static_cast<int>(n * sizeof(cudaIpcEventHandle_t));
  std::vector<cudaIpcEventHandle_t> all(comm_.is_root() ? n * static_cast<std::size_t>(P)
                                                        : 0);
  MPI_Gather(handles.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, 0,
             comm_.get());
  agreed(comm_, [&] {
    if (!comm_.is_root()) return;
    for (int r = 1; r < P; ++r) {
      auto& v = s.peer_events[static_cast<std::size_t>(r)];
      v.resize(n);
      for (std::size_t c = 0; c < n; ++c) {
        check(cudaIpcOpenEventHandle(&v[c], all[static_cast<std::size_t>(r) * n + c]),
              "cudaIpcOpenEventHandle");
      }
    }
  });
}

void* PeerCopy::share(std::size_t bytes) {
  auto& s = *state_;
  const int P = comm_.size();
  // Rank 0 lets go of the old buffers before their ranks free them.
  agreed(comm_, [&] {
    if (comm_.is_root()) s.unmap();
  });
  struct Shared {
    cudaIpcMemHandle_t handle;
    std::int64_t bytes;
  } mine{};
  agreed(comm_, [&] {
    if (comm_.is_root()) return;
    if (s.buffer) check(cudaFree(s.buffer), "cudaFree");
    s.buffer = nullptr;
    mine.bytes = static_cast<std::int64_t>(bytes);
    if (bytes == 0) return;
    // cudaMalloc, not Kokkos' allocator: IPC takes what cudaMalloc returned
    // (Kokkos may allocate from a stream-ordered pool, which IPC refuses).
    check(cudaMalloc(&s.buffer, bytes), "cudaMalloc");
    check(cudaIpcGetMemHandle(&mine.handle, s.buffer), "cudaIpcGetMemHandle");
  });
  std::vector<Shared> all(comm_.is_root() ? static_cast<std::size_t>(P) : 0);
  MPI_Gather(&mine, sizeof(Shared), MPI_BYTE, all.data(), sizeof(Shared), MPI_BYTE, 0,
             comm_.get());
  agreed(comm_, [&] {
    if (!comm_.is_root()) return;
    for (int r = 1; r < P; ++r) {
      if (all[static_cast<std::size_t>(r)].bytes == 0) continue;
      check(cudaIpcOpenMemHandle(&s.mapped[static_cast<std::size_t>(r)],
                                 all[static_cast<std::size_t>(r)].handle,
                                 cudaIpcMemLazyEnablePeerAccess),
            "cudaIpcOpenMemHandle");
    }
  });
  return s.buffer;
}

void PeerCopy::ready(int piece, void* stream) {
  auto& s = *state_;
  check(cudaEventRecord(s.events[static_cast<std::size_t>(piece)],
                        static_cast<cudaStream_t>(stream)),
        "cudaEventRecord");
  // The notice follows the record: rank 0's wait, queued on receipt, waits for
  // this record and not an earlier one.
  s.notices.emplace_back();
  MPI_Isend(nullptr, 0, MPI_BYTE, 0, tag_notice + piece, comm_.get(), &s.notices.back());
}

void PeerCopy::finish() {
  auto& s = *state_;
  MPI_Waitall(static_cast<int>(s.notices.size()), s.notices.data(), MPI_STATUSES_IGNORE);
  s.notices.clear();
  MPI_Recv(nullptr, 0, MPI_BYTE, 0, tag_release, comm_.get(), MPI_STATUS_IGNORE);
}

void PeerCopy::gather(const std::vector<std::vector<std::vector<PeerMove>>>& moves) {
  auto& s = *state_;
  std::vector<MPI_Request> requests;
  std::vector<std::pair<int, int>> which;  // (rank, piece) of each request
  for (std::size_t r = 1; r < moves.size(); ++r) {
    for (std::size_t c = 0; c < moves[r].size(); ++c) {
      if (moves[r][c].empty()) continue;
      requests.emplace_back();
      which.emplace_back(static_cast<int>(r), static_cast<int>(c));
      MPI_Irecv(nullptr, 0, MPI_BYTE, static_cast<int>(r),
                tag_notice + static_cast<int>(c), comm_.get(), &requests.back());
    }
  }
  for (std::size_t left = requests.size(); left > 0; --left) {
    int k = MPI_UNDEFINED;
    MPI_Waitany(static_cast<int>(requests.size()), requests.data(), &k,
                MPI_STATUS_IGNORE);
    const auto [r, c] = which[static_cast<std::size_t>(k)];
    const auto R = static_cast<std::size_t>(r);
    cudaStream_t stream = s.streams[R];
    check(cudaStreamWaitEvent(stream, s.peer_events[R][static_cast<std::size_t>(c)], 0),
          "cudaStreamWaitEvent");
    const char* base = static_cast<const char*>(s.mapped[R]);
    for (const PeerMove& m : moves[R][static_cast<std::size_t>(c)]) {
      check(
          cudaMemcpyAsync(m.to, base + m.from, m.bytes, cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
    }
  }
}

void PeerCopy::join(void* stream) {
  auto& s = *state_;
  for (std::size_t r = 1; r < s.streams.size(); ++r) {
    check(cudaEventRecord(s.ends[r], s.streams[r]), "cudaEventRecord");
    check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), s.ends[r], 0),
          "cudaStreamWaitEvent");
  }
}

void PeerCopy::release() {
  auto& s = *state_;
  s.requests.assign(static_cast<std::size_t>(comm_.size() > 0 ? comm_.size() - 1 : 0),
                    MPI_REQUEST_NULL);
  for (int r = 1; r < comm_.size(); ++r) {
    MPI_Isend(nullptr, 0, MPI_BYTE, r, tag_release, comm_.get(),
              &s.requests[static_cast<std::size_t>(r - 1)]);
  }
  MPI_Waitall(static_cast<int>(s.requests.size()), s.requests.data(),
              MPI_STATUSES_IGNORE);
}

#else  // no CUDA in this build

struct PeerCopy::State {};
PeerCopy::PeerCopy(const Comm& comm) : comm_(comm) {}
PeerCopy::~PeerCopy() = default;

std::unique_ptr<PeerCopy> PeerCopy::open(const Comm&, std::string& why) {
  why = "Libra was built without CUDA";
  return nullptr;
}
// open() returns no object in such a build, so these cannot be reached.
[[noreturn]] static void unavailable() {
  throw Error("copy engines are not available in this build of Libra");
}
void PeerCopy::prepare(int) {
  unavailable();
}
void* PeerCopy::share(std::size_t) {
  unavailable();
}
void PeerCopy::ready(int, void*) {
  unavailable();
}
void PeerCopy::finish() {
  unavailable();
}
void PeerCopy::gather(const std::vector<std::vector<std::vector<PeerMove>>>&) {
  unavailable();
}
void PeerCopy::join(void*) {
  unavailable();
}
void PeerCopy::release() {
  unavailable();
}

#endif

}  // namespace libra::dist::impl
