// unbind_this_thread (core/exec_lanes.hpp), gpu_numa_domain and
// bind_calling_thread_near_gpu (core/topology.hpp).
#include <algorithm>
#include <iterator>
#include <vector>

#include "libra/core/exec_lanes.hpp"
#include "libra/core/topology.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

namespace libra::impl {

void unbind_this_thread() noexcept {
#if defined(__linux__)
  // Every CPU: the kernel keeps only those the process's cpuset allows.
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  (void)sched_setaffinity(0, sizeof all, &all);
#endif
}

}  // namespace libra::impl

namespace libra {

namespace {
const Topology* machine_topology() noexcept {
  try {
    static const Topology t = read_topology();
    return &t;
  } catch (...) {
    return nullptr;
  }
}
}  // namespace

int gpu_numa_domain(const int device) noexcept {
  const Topology* t = machine_topology();
  if (t == nullptr || !t->this_system) return -1;
  for (const GpuLocation& g : t->gpus) {
    if (g.device == device) return g.numa;
  }
  return -1;
}

int bind_calling_thread_near_gpu(const int device) noexcept {
  // First every unit the process may use, which is then what the thread may.
  impl::unbind_this_thread();
  const int numa = gpu_numa_domain(device);
  if (numa < 0) return -1;
  try {
    const std::vector<int> allowed = allowed_processing_units();
    for (const NumaDomain& d : machine_topology()->numa) {
      if (d.os_index != numa) continue;
      std::vector<int> near;
      std::set_intersection(d.pus.begin(), d.pus.end(), allowed.begin(), allowed.end(),
                            std::back_inserter(near));
      return bind_calling_thread(near) ? numa : -1;
    }
  } catch (...) {
  }
  return -1;
}

}  // namespace libra
