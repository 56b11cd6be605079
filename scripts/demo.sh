#!/usr/bin/env bash
# Libra's main job on its embedded default: builds the host variant of the CLI and
# runs it on a real matrix shipped in the repository (or on the files given).
#   scripts/demo.sh [MATRIX.mtx|EDGES.txt ...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LIBRA_BUILD_DIR:-$root/build/host}

"$root/scripts/install-system-deps.sh"
# Build output goes to a log; the Kokkos bootstrap's progress (a line per step and
# the build's [n/N] lines) shows on stderr as it comes, the whole log on failure.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
quiet() {
  if ! "$@" 2>&1 | tee "$log" | { grep -E --line-buffered '^-- Libra bootstrap|^\[[0-9]+/[0-9]+\]' >&2 || true; }; then
    cat "$log" >&2
    exit 1
  fi
}
quiet cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLIBRA_ENABLE_CLI=ON
cmake --build "$build" --target libra_cli -j "${LIBRA_JOBS:-$(nproc)}" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
export OMP_PROC_BIND=spread OMP_PLACES=threads
libra="$build/src/cli/libra"
[ $# -gt 0 ] || set -- "$root/unit_tests/data/ca-GrQc.mtx"
out=$(mktemp -d)
trap 'rm -rf "$out" "$log"' EXIT
for m in "$@"; do
  echo "== libra info $m"
  "$libra" info "$m"
  echo "== libra convert $m -> SNAP edge list"
  "$libra" convert "$m" "$out/converted.txt"
  "$libra" info "$out/converted.txt"
  echo "== libra spgemm $m (C = A*A by lbGEMM, checked against the reference oracle)"
  "$libra" spgemm "$m" --algo outer --check -o "$out/c.mtx"
  echo "== libra spgemm $m (Kokkos Kernels, the baseline)"
  "$libra" spgemm "$m" --algo kk
  echo "== libra simrank $m"
  "$libra" simrank "$m" --iterations 3
done
