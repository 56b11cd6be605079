#include "info_topology.hpp"

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/core/topology.hpp"

namespace libra::cli {

int print_topology(bool json) {
  const Topology t = read_topology();
  // Where this process runs: the units it was started on, and its host threads.
  const std::vector<int> units = started_processing_units();
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  if (json) {
    nlohmann::ordered_json j;
    j["source"] = t.source;
    j["this_system"] = t.this_system;
    j["packages"] = t.packages;
    j["cores"] = t.cores;
    j["pus"] = t.pus;
    j["numa"] = nlohmann::ordered_json::array();
    for (const NumaDomain& d : t.numa) {
      j["numa"].push_back(
          {{"os_index", d.os_index}, {"pus", d.pus}, {"local_bytes", d.local_bytes}});
    }
    j["gpus"] = nlohmann::ordered_json::array();
    for (const GpuLocation& g : t.gpus) {
      j["gpus"].push_back({{"device", g.device},
                           {"pci_bus_id", g.pci_bus_id},
                           {"numa", g.numa < 0 ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(g.numa)}});
    }
    j["process_pus"] = units;
    j["host_threads"] = threads;
    std::printf("%s\n", j.dump(2).c_str());
    return exit_ok;
  }
  std::printf("topology from %s%s\n", t.source.c_str(),
              t.this_system ? "" : " (not this machine: no binding)");
  std::printf("%d package(s), %d core(s), %d processing unit(s), %zu NUMA domain(s)\n",
              t.packages, t.cores, t.pus, t.numa.size());
  for (const NumaDomain& d : t.numa) {
    std::printf("NUMA domain %d: PUs %s, %.1f GiB\n", d.os_index,
                d.pus.empty() ? "none" : format_index_list(d.pus).c_str(),
                static_cast<double>(d.local_bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  if (t.gpus.empty()) std::printf("GPUs: none seen\n");
  for (const GpuLocation& g : t.gpus) {
    std::printf("GPU %d (%s): %s\n", g.device, g.pci_bus_id.c_str(),
                g.numa < 0 ? "NUMA domain unknown"
                           : ("NUMA domain " + std::to_string(g.numa)).c_str());
  }
  std::printf("this process: %d host thread(s) on PUs %s\n", threads,
              units.empty() ? "unknown" : format_index_list(units).c_str());
  return exit_ok;
}

}  // namespace libra::cli
