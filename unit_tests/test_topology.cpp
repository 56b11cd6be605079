// libra/core/topology.hpp: this machine's topology as hwloc (or the fallback)
// reads it, the placement rule on hand-built topologies, and the index lists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "libra/config.hpp"
#include "libra/core/topology.hpp"

namespace topology_test {

using libra::NumaDomain;
using libra::Placement;
using libra::Topology;

// d domains of n PUs each (OS indices consecutive), GPUs attached to `gpu_numa`.
Topology machine(int d, int n, std::vector<int> gpu_numa = {}) {
  Topology t;
  t.source = "hand-built";
  for (int i = 0; i < d; ++i) {
    NumaDomain dom;
    dom.os_index = i;
    for (int p = 0; p < n; ++p) dom.pus.push_back(i * n + p);
    t.numa.push_back(dom);
  }
  t.pus = t.cores = d * n;
  for (std::size_t g = 0; g < gpu_numa.size(); ++g) {
    t.gpus.push_back(
        {static_cast<int>(g), "0000:0" + std::to_string(g) + ":00.0", gpu_numa[g]});
  }
  return t;
}

std::vector<int> range(int first, int last) {
  std::vector<int> v;
  for (int i = first; i < last; ++i) v.push_back(i);
  return v;
}

TEST(Topology, ThisMachine) {
  const Topology t = libra::read_topology();
  EXPECT_FALSE(t.source.empty());
  EXPECT_TRUE(t.this_system);
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_EQ(t.pus, online);
  ASSERT_FALSE(t.numa.empty());
  // Every processing unit sits in exactly one domain.
  std::multiset<int> seen;
  for (const NumaDomain& d : t.numa) seen.insert(d.pus.begin(), d.pus.end());
  EXPECT_EQ(static_cast<long>(seen.size()), online);
  EXPECT_EQ(std::set<int>(seen.begin(), seen.end()).size(), seen.size());
#if LIBRA_ENABLE_HWLOC
  EXPECT_EQ(t.source.rfind("hwloc", 0), 0u) << t.source;
  EXPECT_GE(t.cores, 1);
  EXPECT_LE(t.cores, t.pus);
#else
  EXPECT_NE(t.source.find("without hwloc"), std::string::npos) << t.source;
#endif
}

#if LIBRA_ENABLE_HWLOC
// hwloc builds a synthetic machine from HWLOC_SYNTHETIC: two domains, and no
// binding to a machine that is not this one.
TEST(Topology, SyntheticMachineIsReadAndNotBound) {
  ::setenv("HWLOC_SYNTHETIC", "pack:2 numa:1 core:3 pu:2", 1);
  const Topology t = libra::read_topology();
  ::unsetenv("HWLOC_SYNTHETIC");
  EXPECT_FALSE(t.this_system);
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.cores, 6);
  EXPECT_EQ(t.pus, 12);
  ASSERT_EQ(t.numa.size(), 2u);
  EXPECT_EQ(t.numa[0].pus, range(0, 6));
  EXPECT_EQ(t.numa[1].pus, range(6, 12));
  const Placement p = libra::plan_placement(t, 1, 2, false);
  EXPECT_EQ(p.numa, 1);
  const std::string where = libra::bind_process(t, p);
  EXPECT_EQ(where.rfind("not placed: the topology is not this machine's", 0), 0u)
      << where;
}
#endif

TEST(Topology, RanksGoRoundRobinAndSplitTheirDomain) {
  const Topology t = machine(2, 8);
  // One rank takes domain 0 whole; two take a domain each.
  EXPECT_EQ(libra::plan_placement(t, 0, 1, false).pus, range(0, 8));
  EXPECT_EQ(libra::plan_placement(t, 0, 2, false).pus, range(0, 8));
  const Placement second = libra::plan_placement(t, 1, 2, false);
  EXPECT_EQ(second.numa, 1);
  EXPECT_EQ(second.pus, range(8, 16));
  EXPECT_EQ(second.rule, "round-robin over NUMA domains");
  // Three: ranks 0 and 2 share domain 0 in halves, rank 1 has domain 1.
  EXPECT_EQ(libra::plan_placement(t, 0, 3, false).pus, range(0, 4));
  EXPECT_EQ(libra::plan_placement(t, 1, 3, false).pus, range(8, 16));
  EXPECT_EQ(libra::plan_placement(t, 2, 3, false).pus, range(4, 8));
  // Eight: two PUs each, disjoint, covering the machine.
  std::set<int> all;
  for (int r = 0; r < 8; ++r) {
    const Placement p = libra::plan_placement(t, r, 8, false);
    EXPECT_EQ(p.pus.size(), 2u);
    EXPECT_EQ(p.numa, r % 2);
    for (const int pu : p.pus) EXPECT_TRUE(all.insert(pu).second) << pu;
  }
  EXPECT_EQ(all.size(), 16u);
}

TEST(Topology, MoreRanksThanUnitsShareThem) {
  const Topology t = machine(1, 2);
  for (int r = 0; r < 5; ++r) {
    const Placement p = libra::plan_placement(t, r, 5, false);
    ASSERT_EQ(p.pus.size(), 1u);
    EXPECT_EQ(p.pus[0], r % 2);
  }
}

TEST(Topology, RanksGoNearTheirGpu) {
  // Both GPUs on domain 1: both ranks there, halves of it.
  const Topology t = machine(2, 4, {1, 1});
  const Placement a = libra::plan_placement(t, 0, 2, true);
  const Placement b = libra::plan_placement(t, 1, 2, true);
  EXPECT_EQ(a.numa, 1);
  EXPECT_EQ(a.pus, range(4, 6));
  EXPECT_EQ(a.rule, "near GPU 0");
  EXPECT_EQ(b.pus, range(6, 8));
  EXPECT_EQ(b.rule, "near GPU 1");
  // Without GPUs in the plan the same ranks spread instead.
  EXPECT_EQ(libra::plan_placement(t, 0, 2, false).numa, 0);
  // Four ranks on two GPUs (rank r drives GPU r mod 2), GPUs on domains 1 and 0.
  const Topology u = machine(2, 4, {1, 0});
  EXPECT_EQ(libra::plan_placement(u, 0, 4, true).pus, range(4, 6));
  EXPECT_EQ(libra::plan_placement(u, 1, 4, true).pus, range(0, 2));
  EXPECT_EQ(libra::plan_placement(u, 2, 4, true).pus, range(6, 8));
  EXPECT_EQ(libra::plan_placement(u, 3, 4, true).pus, range(2, 4));
  // A GPU whose domain is unknown: round-robin.
  const Topology v = machine(2, 4, {-1});
  const Placement c = libra::plan_placement(v, 1, 2, true);
  EXPECT_EQ(c.numa, 1);
  EXPECT_EQ(c.rule, "round-robin over NUMA domains");
}

TEST(Topology, DomainsWithoutUnitsAreSkipped) {
  Topology t = machine(2, 4);
  NumaDomain memory_only;  // high-bandwidth or CXL memory: no processing unit
  memory_only.os_index = 2;
  t.numa.insert(t.numa.begin() + 1, memory_only);
  EXPECT_EQ(libra::plan_placement(t, 1, 2, false).numa, 1);
  EXPECT_EQ(libra::plan_placement(t, 2, 3, false).numa, 0);
  Topology none;
  none.numa.push_back(memory_only);
  const Placement p = libra::plan_placement(none, 0, 1, false);
  EXPECT_TRUE(p.pus.empty());
  EXPECT_EQ(libra::bind_process(none, p).rfind("not placed", 0), 0u);
}

// The units the process started on hold the calling thread's (OpenMP's places
// contain it when OpenMP binds); binding the calling thread narrows its own mask
// alone, and a thread started after it inherits the narrowed mask.
TEST(Topology, StartedUnitsAndBindingTheCallingThread) {
  const std::vector<int> started = libra::started_processing_units();
  ASSERT_FALSE(started.empty());
  EXPECT_TRUE(std::is_sorted(started.begin(), started.end()));
  EXPECT_LE(static_cast<int>(started.size()), libra::online_processing_units());
  const std::vector<int> mine = libra::allowed_processing_units();
  for (const int pu : mine) {
    EXPECT_TRUE(std::binary_search(started.begin(), started.end(), pu)) << pu;
  }
  EXPECT_FALSE(libra::bind_calling_thread({}));
  EXPECT_FALSE(libra::bind_calling_thread({-1}));
  std::vector<int> inside, inherited;
  std::thread t([&] {
    if (!libra::bind_calling_thread({mine.back()})) return;
    inside = libra::allowed_processing_units();
    std::thread([&] { inherited = libra::allowed_processing_units(); }).join();
  });
  t.join();
  EXPECT_EQ(inside, std::vector<int>{mine.back()});
  EXPECT_EQ(inherited, std::vector<int>{mine.back()});
  EXPECT_EQ(libra::allowed_processing_units(), mine);  // the test's thread is untouched
}

// A thread that feeds GPU 0 leaves the one unit it inherited (as from OpenMP's
// first thread) for the units of the GPU's domain the process may use, or for
// every unit the process may use when the GPU's domain is unknown (no GPU,
// no hwloc).
TEST(Topology, ThreadsFeedingAGpuGoNearIt) {
  const int expected = libra::gpu_numa_domain(0);
  EXPECT_EQ(libra::gpu_numa_domain(-1), -1);
  std::vector<int> process, after;
  int numa = -2;
  bool widened = false, narrowed = false;
  std::thread([&] {
    std::vector<int> online;
    for (int p = 0; p < libra::online_processing_units(); ++p) online.push_back(p);
    widened = libra::bind_calling_thread(online);  // the kernel keeps what it allows
    process = libra::allowed_processing_units();   // what the process may use
    narrowed = !process.empty() && libra::bind_calling_thread({process.front()});
    numa = libra::bind_calling_thread_near_gpu(0);
    after = libra::allowed_processing_units();
  }).join();
  ASSERT_TRUE(widened && narrowed);
  std::vector<int> near;
  if (expected >= 0) {
    for (const auto& d : libra::read_topology().numa) {
      if (d.os_index != expected) continue;
      std::set_intersection(d.pus.begin(), d.pus.end(), process.begin(), process.end(),
                            std::back_inserter(near));
    }
  }
  // None of the domain's units allowed: every unit, as without a location.
  EXPECT_EQ(numa, near.empty() ? -1 : expected);
  EXPECT_EQ(after, near.empty() ? process : near);
}

TEST(Topology, IndexLists) {
  EXPECT_EQ(libra::format_index_list({}), "");
  EXPECT_EQ(libra::format_index_list({3}), "3");
  EXPECT_EQ(libra::format_index_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(libra::format_index_list({5, 4, 4, 1}), "1,4-5");
}

}  // namespace topology_test
