// unbind_this_thread (core/exec_lanes.hpp).
#include "libra/core/exec_lanes.hpp"

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
