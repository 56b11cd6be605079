#!/usr/bin/env bash
# A/B of small one-shot products on a GPU, with cuSPARSE in the same processes:
# small SpGEMM products (issue 8's 0.05 ms goal) and one-shot CDM products of
# narrow bands (issue 9's 10x cuSPARSE goal). By default the two variants are
# C freshly allocated (LIBRA_BENCH_RESULT_REUSE=never) and C carved from reused
# slabs (automatic, the default; include/libra/util/result_memory.hpp); other
# variants are NAME=DIR[:VAR=VALUE], DIR holding bench_spgemm and bench_diag
# (another build's, for a before/after A/B). Rounds alternate the variants,
# the order reversed every round (the second process of a pair was seen to
# run 2-3% slower). LIBRA_AB_BENCHES="spgemm" leaves bench_diag out (default
# "spgemm diag").
#   scripts/gpu/run-on-gpu.sh run perf_tests/report/result_reuse_ab.sh OUT [ROUNDS [VARIANT...]]
# Then: python3 perf_tests/report/result_reuse_tables.py OUT
set -uo pipefail
# shellcheck source=ab_order.sh
source "$(dirname "${BASH_SOURCE[0]}")/ab_order.sh"
out=${1:?usage: result_reuse_ab.sh OUT [ROUNDS [NAME=DIR[:VAR=VALUE]...]]}
rounds=${2:-3}
shift $(($# < 2 ? $# : 2))
bench=${LIBRA_BUILD:?run through scripts/gpu/run-on-gpu.sh run}/perf_tests
variants=("$@")
[ ${#variants[@]} -gt 0 ] ||
  variants=("never=$bench:LIBRA_BENCH_RESULT_REUSE=never"
    "automatic=$bench:LIBRA_BENCH_RESULT_REUSE=automatic")
mkdir -p "$out"
small='lp_afiro|abb313|lp_ship04l|olm1000|west2021|bcsstm25|cage8|bcsstk21|crack|ca-GrQc'
common=(--benchmark_min_time=0.05 --libra_repetitions=5 --benchmark_out_format=json)
for ((r = 1; r <= rounds; ++r)); do
  ab_order "$r" "${variants[@]}"
  for spec in "${order[@]}"; do
    ab_variant "$spec"
    dir=$path
    benches=" ${LIBRA_AB_BENCHES:-spgemm diag} "
    if [[ $benches == *" spgemm "* ]]; then
      env "${env[@]}" "$dir/bench_spgemm" "${common[@]}" \
        --benchmark_filter="^spgemm/($small)/(libra_auto|cusparse)" \
        --benchmark_out="$out/spgemm_${name}_$r.json" >/dev/null ||
        echo "result_reuse_ab: bench_spgemm ($name, round $r) failed" >&2
    fi
    if [[ $benches == *" diag "* ]]; then
      env "${env[@]}" "$dir/bench_diag" "${common[@]}" \
        --benchmark_filter='^diag/band:100000:(1|2|4|8|16)/(cdm|cdm_into|cusparse)/' \
        --benchmark_out="$out/diag_${name}_$r.json" >/dev/null ||
        echo "result_reuse_ab: bench_diag ($name, round $r) failed" >&2
    fi
  done
done
# Where a small product's time goes now (the last variant's build): one
# call's host timeline, and the kernels' times under fences.
last=${variants[${#variants[@]} - 1]}
last=${last#*=}
LIBRA_BENCH_TIMELINE=1 LIBRA_BENCH_KERNEL_TIMES=1 "${last%%:*}/bench_spgemm" \
  --benchmark_min_time=0.05 --libra_repetitions=3 \
  --benchmark_filter='^spgemm/(lp_afiro|west2021)/libra_auto' >"$out/timeline.log" 2>&1
echo "result_reuse_ab: done, $rounds rounds of ${#variants[@]} variants"
