#!/usr/bin/env bash
# A/B of SpMV variants of one build on a GPU: bench_spmv under different
# LIBRA_BENCH_SPMV_* knobs (perf_tests/bench_spmv.cpp lists them), cuSPARSE and
# the copy in the same processes. Each variant is NAME=[VAR=VALUE[,VAR=VALUE...]]
# (empty: Libra's defaults); BENCH=PATH among them runs another build's
# bench_spmv (an A/B across commits). Rounds alternate the variants, the order reversed
# every round (the second process of a pair was seen to run 2-3% slower).
#   scripts/gpu/run-on-gpu.sh run perf_tests/report/spmv_ab.sh OUT ROUNDS MATRICES \
#     FILTER VARIANT...
# MATRICES is bench_spmv's --libra_matrices, FILTER the algorithms' regex (e.g.
# 'libra_csr|libra_csr_plan|cusparse_csr|cusparse_csr_alg2').
# Then: python3 perf_tests/report/spmv_ab_tables.py OUT BASE NEW
set -uo pipefail
# shellcheck source=ab_order.sh
source "$(dirname "${BASH_SOURCE[0]}")/ab_order.sh"
usage="usage: spmv_ab.sh OUT ROUNDS MATRICES FILTER NAME=[VAR=VALUE[,...]]..."
out=${1:?$usage}
rounds=${2:?$usage}
matrices=${3:?$usage}
filter=${4:?$usage}
shift 4
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
bench=${LIBRA_BUILD:?run through scripts/gpu/run-on-gpu.sh run}/perf_tests/bench_spmv
variants=("$@")
mkdir -p "$out"
for ((r = 1; r <= rounds; ++r)); do
  ab_order "$r" "${variants[@]}"
  for spec in "${order[@]}"; do
    name=${spec%%=*}
    env=()
    [ -n "${spec#*=}" ] && IFS=, read -r -a env <<<"${spec#*=}"
    binary=$bench
    for ((i = ${#env[@]} - 1; i >= 0; --i)); do
      if [[ ${env[i]} == BENCH=* ]]; then
        binary=${env[i]#BENCH=}
        unset 'env[i]'
      fi
    done
    env "${env[@]}" OMP_PROC_BIND=spread OMP_PLACES=threads "$binary" \
      --benchmark_min_time=0.05 --libra_repetitions=5 --benchmark_out_format=json \
      --libra_matrices="$matrices" --benchmark_filter="^spmv/[^/]+/($filter)/" \
      --benchmark_out="$out/spmv_${name}_$r.json" >/dev/null ||
      echo "spmv_ab: bench_spmv ($name, round $r) failed" >&2
  done
done
echo "spmv_ab: done, $rounds rounds of ${#variants[@]} variants"
