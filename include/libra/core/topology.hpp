#pragma once
// The machine as hwloc sees it (NUMA domains, their processing units, the GPUs
// and the domain each is attached to), where a process should run, and binding
// it there. MSREP's p-opt places each rank near its GPU (libra::dist), and
// `libra info --topology` prints what is read here.
//
//   const libra::Topology t = libra::read_topology();
//   const libra::Placement p = libra::plan_placement(t, local_rank, local_ranks, true);
//   std::string where = libra::bind_process(t, p);   // "NUMA domain 1: PUs 8-15"
//
// Without hwloc (Libra built with LIBRA_ENABLE_HWLOC=OFF) the topology is one
// domain holding the online processing units, no GPU locations, and binding
// declines with the reason.
#include <cstdint>
#include <string>
#include <vector>

namespace libra {

struct NumaDomain {
  int os_index = 0;
  std::vector<int> pus;           // processing units (OS indices), ascending
  std::uint64_t local_bytes = 0;  // memory attached to it (0 when unknown)
};

struct GpuLocation {
  int device = 0;          // the CUDA device number
  std::string pci_bus_id;  // as CUDA names it
  int numa = -1;           // the OS index of its NUMA domain, -1 when unknown
};

struct Topology {
  std::string source;       // "hwloc 2.9.0", or why not hwloc
  bool this_system = true;  // false for a synthetic or XML topology (no binding)
  int packages = 0, cores = 0, pus = 0;
  std::vector<NumaDomain> numa;  // ascending OS index
  std::vector<GpuLocation> gpus;
};

// Reads this machine (hwloc honours HWLOC_SYNTHETIC and HWLOC_XMLFILE); the GPUs
// of a CUDA build are located by their PCI bus IDs.
Topology read_topology();

// Where one of `local_ranks` processes on this host runs: its NUMA domain and the
// processing units it may use. With `gpus`, rank r drives GPU r mod #GPUs (as
// libra::dist does) and goes to that GPU's domain when it is known; otherwise
// the ranks go round-robin over the domains that have processing units. Ranks
// in one domain split its units into equal consecutive blocks (sharing units
// only when they outnumber them).
struct Placement {
  int numa = -1;         // OS index of the domain, -1 when none was chosen
  std::vector<int> pus;  // empty: no placement
  std::string rule;      // "near GPU 1", "round-robin over NUMA domains"
};
Placement plan_placement(const Topology& t, int local_rank, int local_ranks, bool gpus);

// "NUMA domain 1: PUs 8-15, near GPU 1": where p puts a process.
std::string describe(const Placement& p);

// Binds the calling process (every thread it has and will have) to p's units,
// and, when the host has several domains, the calling thread's memory policy to
// p's domain (the others first-touch there, being on its cores). Returns where it went
// ("NUMA domain 0: PUs 0-3, near GPU 0"), or "not placed: " and why (no hwloc, a
// topology of another system, a launcher that bound the process already, a
// refusal of the system). A process started on exactly p's units (the `libra`
// tool binds an unbound rank before its OpenMP runtime starts) keeps its threads'
// bindings and says so: "NUMA domain 0: PUs 0-3, near GPU 0, where it started".
// Never throws.
std::string bind_process(const Topology& t, const Placement& p);

// Binds the calling thread alone to these processing units (a process that has
// not started its threads yet passes this on to all of them, and across exec).
// False when there is nothing to bind to or the system refuses.
bool bind_calling_thread(const std::vector<int>& pus) noexcept;

// The NUMA domain (OS index) of CUDA device `device`, from this machine's
// topology read once per process (hwloc's reading of PCI devices costs
// milliseconds); -1 when unknown (no hwloc, no such GPU, a topology of another
// system). Never throws.
int gpu_numa_domain(int device) noexcept;

// Binds the calling thread to the processing units of GPU `device`'s NUMA
// domain that the process may use, where gpu_numa_domain knows it; otherwise
// (or when the process may use none of them) lets it run on every unit the
// process may use. For the threads that feed a GPU (heterogeneous SpGEMM's
// device side and its copier of C): a std::thread inherits its creator's
// binding, which under OMP_PROC_BIND is one core. Returns the domain, or -1.
int bind_calling_thread_near_gpu(int device) noexcept;

// The processing units the system has online, and those the calling thread may
// run on (empty when the system does not say).
int online_processing_units();
std::vector<int> allowed_processing_units();

// The processing units this process was started on: fewer than online means
// someone (a launcher, a user's taskset, a container) bound it. Where the OpenMP
// runtime binds threads (OMP_PROC_BIND), it has bound the first thread to its
// first place by the time main runs, so this is the union of OpenMP's places,
// which it built from the process's mask at start; elsewhere the calling thread's
// mask. Empty when the system does not say.
std::vector<int> started_processing_units();

// "0-3,8,10-11": a list of OS indices, ranges joined.
std::string format_index_list(const std::vector<int>& indices);

}  // namespace libra
