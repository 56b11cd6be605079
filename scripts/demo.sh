#!/usr/bin/env bash
# Libra's main job on its embedded default: builds the host variant of the CLI and
# runs it on a real matrix shipped in the repository (or on the files given).
#   scripts/demo.sh [MATRIX.mtx|EDGES.txt ...]
# LIBRA_CLI=path/to/libra runs an already built tool instead of building one.
#
# Each file gets: its statistics, a round trip through an edge list, C = A*A (A*A^T
# when A is not square) by Libra's default algorithm checked against the reference
# oracle, the same product by Kokkos Kernels, and SimRank (square graphs only). A step a file
# cannot take is reported and the demo goes on; it exits 1 only when a step failed
# for another reason than the file (exit status 3: a file the step refuses).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ -n "${LIBRA_CLI:-}" ]; then
  libra=$LIBRA_CLI
else
  build=${LIBRA_BUILD_DIR:-$root/build/host}
  "$root/scripts/install-system-deps.sh" || exit 1
  # Build output goes to a log; the Kokkos bootstrap's progress (a line per step and
  # the build's [n/N] lines) shows on stderr as it comes, the whole log on failure.
  log=$out/build.log
  quiet() {
    if ! "$@" 2>&1 | tee "$log" | { grep -E --line-buffered '^-- Libra bootstrap|^\[[0-9]+/[0-9]+\]' >&2 || true; }; then
      cat "$log" >&2
      exit 1
    fi
  }
  quiet cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLIBRA_ENABLE_CLI=ON
  cmake --build "$build" --target libra_cli -j "${LIBRA_JOBS:-$(nproc)}" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
  libra="$build/src/cli/libra"
fi
[ $# -gt 0 ] || set -- "$root/unit_tests/data/ca-GrQc.mtx"

cat <<'EOF'
What the numbers mean: `spgemm` times the multiplication alone (symbolic and numeric
phases, C's allocation included; not reading the file), and GFLOP/s is 2 x products /
time. Libra's default (`auto`) is the row-panel algorithm; `kk` is Kokkos Kernels'
SpGEMM, the baseline. On 2 OpenMP threads perf_tests/report/host/spgemm.md measured
Libra's default at 1.1x Kokkos Kernels' speed (geometric mean over 21 matrices),
from 0.63x to 2x: Kokkos Kernels is still faster on some graphs, ca-GrQc (this
demo's default file) among them. One run here is noisy; the report takes medians.
"check ... ok" means C equals the sequential reference oracle's product (pattern
exactly, values to 1e-12 of each row's largest product).
EOF

failed=0  # steps that failed for another reason than the file
# Runs one step; a failure is reported, and the demo goes on with the next step.
step() {
  local label=$1
  shift
  echo
  echo "== $label"
  "$@"
  local rc=$?
  if [ $rc -eq 3 ]; then
    echo "-- skipped: the file does not suit this step (libra's message above)"
  elif [ $rc -ne 0 ]; then
    echo "-- FAILED with exit status $rc"
    failed=$((failed + 1))
  fi
  return 0
}

for m in "$@"; do
  # The product the tool computes for A alone: A*A, or A*A^T when A is not square.
  shape=$("$libra" info "$m" --json 2>/dev/null |
          python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["rows"], j["cols"])' 2>/dev/null)
  if [ -z "$shape" ]; then
    step "libra info $m (cannot read it: the next file)" "$libra" info "$m"
    continue
  fi
  read -r rows cols <<<"$shape"
  product="A*A"
  [ "$rows" = "$cols" ] || product="A*A^T (A is $rows x $cols, not square)"

  step "libra info $m" "$libra" info "$m"
  step "libra convert $m -> edge list -> libra info" \
    bash -c '"$0" convert "$1" "$2" && "$0" info "$2"' "$libra" "$m" "$out/converted.txt"
  step "libra spgemm $m: C = $product by Libra (its default algorithm), checked against the reference oracle" \
    "$libra" spgemm "$m" --check -o "$out/c.mtx"
  step "libra spgemm $m: C = $product by Kokkos Kernels (the baseline)" \
    "$libra" spgemm "$m" --algo kk
  step "libra simrank $m: similarities of the nodes of A as a graph (3 iterations)" \
    "$libra" simrank "$m" --iterations 3
done
echo
if [ $failed -ne 0 ]; then
  echo "demo: $failed step(s) failed"
  exit 1
fi
echo "demo: done"
