#pragma once
// `libra info --topology`: the machine as Libra's placement sees it
// (libra/core/topology.hpp).
namespace libra::cli {

// Prints the topology on stdout, as text or one JSON object; returns the exit code.
int print_topology(bool json);

}  // namespace libra::cli
