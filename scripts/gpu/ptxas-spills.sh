#!/usr/bin/env bash
# Registers and spills of Libra's CUDA kernels as ptxas reports them. It needs no
# GPU: it compiles one translation unit with the cuda build's own compile line
# (the one build-cuda.sh made for bench_spmv.cpp) plus -Xptxas=-v. It prints a
# line per kernel instantiation whose mangled name contains PATTERN.
# Kernels held to few registers by launch bounds slow down when they spill. On
# an H200, 28-46 bytes of spills in the CSR tiles kernel (32 registers) cost
# R-MAT 22 11% (perf_tests/report/h200/spmv_planless.md). Run this after
# changing such a kernel, before spending device time on it.
#   scripts/gpu/ptxas-spills.sh [PATTERN [SOURCE.cpp]]
# Defaults: PATTERN SpmvCsrTile; SOURCE a probe that instantiates CSR SpMV with
# and without a plan. Takes about 10 s on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${LIBRA_CUDA_BUILD_DIR:-$root/build/cuda}
pattern=${1:-SpmvCsrTile}
export PATH=/usr/local/cuda/bin:$PATH
[ -f "$build/build.ninja" ] || { echo "no cuda build in $build (scripts/gpu/build-cuda.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=${2:-}
if [ -z "$src" ]; then
  src=$tmp/probe.cpp
  cat > "$src" <<'CPP'
#include <Kokkos_Core.hpp>

#include "libra/spmv/spmv.hpp"
using Exec = Kokkos::Cuda;
using Device = Kokkos::Device<Exec, Exec::memory_space>;
void probe(const libra::Csr<double, int, int, Device>& A, Kokkos::View<double*, Device> x,
           Kokkos::View<double*, Device> y) {
  libra::spmv(Exec(), 1.0, A, x, 0.0, y);
  const auto plan = libra::spmv_plan(Exec(), A);
  libra::spmv(Exec(), 1.0, A, x, 0.0, y, plan);
}
CPP
fi
line=$(ninja -C "$build" -t commands perf_tests/bench_spmv | grep -m1 -- ' -c .*bench_spmv\.cpp$') || {
  echo "no compile line for bench_spmv.cpp in $build" >&2; exit 2; }
cmd=${line%% -MD *}
(cd "$build" && $cmd -Xptxas=-v -o "$tmp/probe.o" -c "$src") > "$tmp/log" 2>&1 || {
  cat "$tmp/log" >&2; exit 1; }
python3 - "$tmp/log" "$pattern" <<'PY'
import re, sys
log, pattern = open(sys.argv[1]).read().splitlines(), sys.argv[2]
name, rows = None, []
for l in log:
    m = re.search(r"Compiling entry function '([^']+)'", l)
    if m:
        name = m.group(1) if pattern in m.group(1) else None
        spill = regs = None
        continue
    if name is None:
        continue
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", l)
    if m:
        spill = m.groups()
    m = re.search(r"Used (\d+) registers", l)
    if m and spill:
        # The kernel's class and its template flags (b0/b1) tell instantiations apart.
        short = re.search(r"\d+(%s\w*?)I" % re.escape(pattern), name)
        flags = " ".join(re.findall(r"Lb[01]E", name))
        rows.append((short.group(1) if short else name[:60], flags, m.group(1), *spill))
        name = None
print("%-28s %-14s %5s %6s %7s %6s" % ("kernel", "bool args", "regs", "stack", "spill st", "spill ld"))
for r in rows:
    print("%-28s %-14s %5s %6s %7s %6s" % r)
if not rows:
    print("no kernel matched %r" % pattern)
PY
