#!/usr/bin/env bash
# Builds everything (host variant: OpenMP + Serial) and runs every test.
# This is the README's test command; .ci/run calls it. A second run reuses the
# bootstrapped Kokkos and the build in build/host.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LIBRA_BUILD_DIR:-$root/build/host}
jobs=${LIBRA_JOBS:-$(nproc)}

"$root/scripts/install-system-deps.sh"
# Tests and benchmarks are off in a plain configure (a consumer needs neither
# GoogleTest nor Google Benchmark); this script and CI turn them on.
# MPI on: libra::dist and its tests under mpirun with 1, 2 and 3 ranks; hwloc on:
# the topology, and MSREP's placement of each rank.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DLIBRA_ENABLE_TESTS=ON -DLIBRA_ENABLE_BENCHMARKS=ON -DLIBRA_ENABLE_MPI=ON -DLIBRA_ENABLE_HWLOC=ON
cmake --build "$build" -j "$jobs"
export OMP_PROC_BIND=spread OMP_PLACES=threads
ctest --test-dir "$build" --output-on-failure -j "$jobs"
