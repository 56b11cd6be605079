#!/usr/bin/env bash
# A/B of host SpGEMM (issue 8's host goal: 1.5x Kokkos Kernels on 2 cores):
# bench_spgemm's libra_auto and kokkos_kernels cases, each variant in its own
# process, rounds alternating the variants (ab_order.sh). A variant is
# NAME=BENCH_SPGEMM[:VAR=VALUE[,VAR=VALUE...]] (another build's binary, or the
# same one with other LIBRA_BENCH_* settings).
#   perf_tests/report/host_spgemm_ab.sh OUT ROUNDS MATRICES NAME=BIN[:VARS]...
# MATRICES is a regex over matrix names ('.*' for all); LIBRA_AB_ALGOS the
# cases' regex (default 'libra_auto|kokkos_kernels'). Then:
#   python3 perf_tests/report/host_spgemm_ab_tables.py OUT BASE NEW
set -uo pipefail
# shellcheck source=ab_order.sh
source "$(dirname "${BASH_SOURCE[0]}")/ab_order.sh"
out=${1:?usage: host_spgemm_ab.sh OUT ROUNDS MATRICES NAME=BIN[:VARS]...}
rounds=${2:?rounds}
matrices=${3:?matrices regex}
shift 3
[ $# -ge 2 ] || { echo "host_spgemm_ab: give two variants or more" >&2; exit 2; }
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
mkdir -p "$out"
for ((r = 1; r <= rounds; ++r)); do
  ab_order "$r" "$@"
  for spec in "${order[@]}"; do
    ab_variant "$spec"
    env "${env[@]}" "$path" --benchmark_min_time=0.05 --libra_repetitions=5 \
      --benchmark_filter="^spgemm/($matrices)/(${LIBRA_AB_ALGOS:-libra_auto|kokkos_kernels})/" \
      --benchmark_out_format=json --benchmark_out="$out/spgemm_${name}_$r.json" \
      >/dev/null 2>&1 || echo "host_spgemm_ab: $name (round $r) failed" >&2
  done
done
echo "host_spgemm_ab: done, $rounds rounds of $# variants"
