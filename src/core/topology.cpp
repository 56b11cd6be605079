// libra::read_topology, plan_placement and bind_process (core/topology.hpp).
#include "libra/core/topology.hpp"

#include <sched.h>
#include <unistd.h>

#include <Kokkos_Macros.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "libra/config.hpp"
#if defined(_OPENMP)
#include <omp.h>
#endif
#if LIBRA_ENABLE_HWLOC
#include <hwloc.h>
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace libra {

namespace {

// The CUDA devices' PCI bus IDs ("0000:3b:00.0"), none in other builds or when
// CUDA finds no device.
std::vector<std::string> cuda_bus_ids() {
  std::vector<std::string> ids;
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return ids;
  }
  for (int d = 0; d < count; ++d) {
    char id[32] = {};
    ids.push_back(cudaDeviceGetPCIBusId(id, sizeof id, d) == cudaSuccess ? id : "");
  }
#endif
  return ids;
}

#if LIBRA_ENABLE_HWLOC
struct HwlocTopology {
  hwloc_topology_t t = nullptr;
  // io: with PCI devices, to find where each GPU is attached (their discovery is
  // most of the load's time).
  explicit HwlocTopology(bool io) {
    if (hwloc_topology_init(&t) != 0) {
      t = nullptr;
      return;
    }
    if (io) hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
      hwloc_topology_destroy(t);
      t = nullptr;
    }
  }
  ~HwlocTopology() {
    if (t) hwloc_topology_destroy(t);
  }
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
};

struct Bitmap {
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  ~Bitmap() { hwloc_bitmap_free(b); }
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
  Bitmap() = default;
};

// The NUMA domain (OS index) a PCI device is attached to, -1 when hwloc cannot say.
int numa_of_pci(hwloc_topology_t t, const std::string& bus_id) {
  if (bus_id.empty()) return -1;
  hwloc_obj_t dev = hwloc_get_pcidev_by_busidstring(t, bus_id.c_str());
  if (!dev) return -1;
  hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(t, dev);
  if (!near || !near->nodeset) return -1;
  const int first = hwloc_bitmap_first(near->nodeset);
  // Attached below several domains (a whole package, say): the first of them.
  return first >= 0 ? first : -1;
}
#endif

std::string hwloc_version() {
#if LIBRA_ENABLE_HWLOC && defined(HWLOC_VERSION)
  return std::string("hwloc ") + HWLOC_VERSION;  // the headers built against
#elif LIBRA_ENABLE_HWLOC
  const unsigned v = hwloc_get_api_version();
  return "hwloc API " + std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff);
#else
  return "";
#endif
}

}  // namespace

int online_processing_units() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::vector<int> allowed_processing_units() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

std::vector<int> started_processing_units() {
#if defined(_OPENMP) && _OPENMP >= 201511
  const int places = omp_get_num_places();
  if (omp_get_proc_bind() != omp_proc_bind_false && places > 0) {
    std::vector<int> out;
    for (int p = 0; p < places; ++p) {
      const int n = omp_get_place_num_procs(p);
      if (n <= 0) continue;
      const std::size_t at = out.size();
      out.resize(at + static_cast<std::size_t>(n));
      omp_get_place_proc_ids(p, out.data() + at);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (!out.empty()) return out;
  }
#endif
  return allowed_processing_units();
}

bool bind_calling_thread(const std::vector<int>& pus) noexcept {
  if (pus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int pu : pus) {
    if (pu < 0 || pu >= CPU_SETSIZE) return false;
    CPU_SET(pu, &set);
  }
  return ::sched_setaffinity(0, sizeof set, &set) == 0;
}

std::string format_index_list(const std::vector<int>& indices) {
  std::vector<int> v = indices;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(v[i]);
    if (j > i) out += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

Topology read_topology() {
  Topology out;
  const std::vector<std::string> bus_ids = cuda_bus_ids();
#if LIBRA_ENABLE_HWLOC
  HwlocTopology h(true);
  if (h.t) {
    hwloc_topology_t t = h.t;
    out.source = hwloc_version();
    out.this_system = hwloc_topology_is_thissystem(t) != 0;
    out.packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    out.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    out.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    const int domains = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int d = 0; d < domains; ++d) {
      hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, d);
      NumaDomain dom;
      dom.os_index = static_cast<int>(node->os_index);
      dom.local_bytes = node->attr ? node->attr->numanode.local_memory : 0;
      for (int p = 0; p < out.pus; ++p) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, p);
        if (node->cpuset && hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
          dom.pus.push_back(static_cast<int>(pu->os_index));
        }
      }
      std::sort(dom.pus.begin(), dom.pus.end());
      out.numa.push_back(std::move(dom));
    }
    std::sort(
        out.numa.begin(), out.numa.end(),
        [](const NumaDomain& a, const NumaDomain& b) { return a.os_index < b.os_index; });
    for (std::size_t d = 0; d < bus_ids.size(); ++d) {
      out.gpus.push_back({static_cast<int>(d), bus_ids[d], numa_of_pci(t, bus_ids[d])});
    }
    return out;
  }
  out.source = "hwloc could not read this machine";
#else
  out.source = "Libra was built without hwloc (LIBRA_ENABLE_HWLOC=OFF)";
#endif
  // One domain of the online processing units, GPUs without a location.
  out.pus = online_processing_units();
  out.cores = out.pus;
  out.packages = 1;
  NumaDomain dom;
  for (int p = 0; p < out.pus; ++p) dom.pus.push_back(p);
  out.numa.push_back(std::move(dom));
  for (std::size_t d = 0; d < bus_ids.size(); ++d) {
    out.gpus.push_back({static_cast<int>(d), bus_ids[d], -1});
  }
  return out;
}

Placement plan_placement(const Topology& t, int local_rank, int local_ranks, bool gpus) {
  Placement out;
  std::vector<const NumaDomain*> with_pus;
  for (const auto& d : t.numa) {
    if (!d.pus.empty()) with_pus.push_back(&d);
  }
  if (with_pus.empty()) return out;
  local_ranks = std::max(1, local_ranks);
  local_rank = std::clamp(local_rank, 0, local_ranks - 1);
  const auto domain_of = [&](int r, std::string* rule) -> const NumaDomain* {
    if (gpus && !t.gpus.empty()) {
      const GpuLocation& g = t.gpus[static_cast<std::size_t>(r) % t.gpus.size()];
      for (const NumaDomain* d : with_pus) {
        if (d->os_index == g.numa) {
          if (rule) *rule = "near GPU " + std::to_string(g.device);
          return d;
        }
      }
    }
    if (rule) *rule = "round-robin over NUMA domains";
    return with_pus[static_cast<std::size_t>(r) % with_pus.size()];
  };
  const NumaDomain* mine = domain_of(local_rank, &out.rule);
  int index = 0, sharing = 0;  // this rank's place among the ranks in its domain
  for (int r = 0; r < local_ranks; ++r) {
    if (domain_of(r, nullptr) != mine) continue;
    if (r == local_rank) index = sharing;
    ++sharing;
  }
  const int n = static_cast<int>(mine->pus.size());
  out.numa = mine->os_index;
  if (sharing > n) {
    out.pus = {mine->pus[static_cast<std::size_t>(index % n)]};
  } else {
    const int first = index * n / sharing, last = (index + 1) * n / sharing;
    out.pus.assign(mine->pus.begin() + first, mine->pus.begin() + last);
  }
  return out;
}

std::string describe(const Placement& p) {
  return "NUMA domain " + std::to_string(p.numa) + ": PUs " + format_index_list(p.pus) +
         ", " + p.rule;
}

std::string bind_process(const Topology& t, const Placement& p) {
  if (p.pus.empty()) return "not placed: no processing unit to bind to";
  const std::string where = describe(p);
#if LIBRA_ENABLE_HWLOC
  if (!t.this_system)
    return "not placed: the topology is not this machine's (" + where + ")";
  std::vector<int> started = started_processing_units(), planned = p.pus;
  std::sort(planned.begin(), planned.end());
  const bool there = started == planned;
  if (!there && !started.empty() &&
      static_cast<int>(started.size()) < online_processing_units()) {
    return "not placed: kept the binding it started with (PUs " +
           format_index_list(started) + ")";
  }
  HwlocTopology h(false);
  if (!h.t) return "not placed: hwloc could not read this machine";
  Bitmap cpus, nodes;
  for (const int pu : p.pus) hwloc_bitmap_set(cpus.b, static_cast<unsigned>(pu));
  // Already there: binding the process again would undo OpenMP's binding of each
  // thread to its own place within these units.
  if (!there && hwloc_set_cpubind(h.t, cpus.b, HWLOC_CPUBIND_PROCESS) != 0) {
    return std::string("not placed: binding to ") + where + " was refused (" +
           std::strerror(errno) + ")";
  }
  std::string memory;
  if (t.numa.size() > 1 && p.numa >= 0) {
    hwloc_bitmap_set(nodes.b, static_cast<unsigned>(p.numa));
    // Neither PROCESS nor THREAD: the portable form, which Linux serves with the
    // calling thread's policy (the thread that allocates; the others, bound to
    // the domain's cores, touch pages there by the default local policy).
    memory =
        hwloc_set_membind(h.t, nodes.b, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET) == 0
            ? ", memory bound there"
            : ", memory not bound (" + std::string(std::strerror(errno)) + ")";
  }
  return where + (there ? ", where it started" : "") + memory;
#else
  (void)t;
  return "not placed: Libra was built without hwloc (" + where + " was the plan)";
#endif
}

}  // namespace libra
