#!/usr/bin/env bash
# A/B of the reuse of returned arrays (include/libra/util/result_memory.hpp) on a
# GPU: one-shot products whose C is freshly allocated (LIBRA_BENCH_RESULT_REUSE=
# never) against C carved from reused slabs (automatic, the default), with
# cuSPARSE in the same processes. Small SpGEMM products (issue 8's 0.05 ms goal)
# and one-shot CDM products of narrow bands (issue 9's 10x cuSPARSE goal).
# Rounds alternate the two modes, the order swapped every round (the second
# process of a pair was seen to run 2-3% slower).
#   scripts/gpu/run-on-gpu.sh run perf_tests/report/result_reuse_ab.sh OUT [ROUNDS]
# Then: python3 perf_tests/report/result_reuse_tables.py OUT
set -uo pipefail
out=${1:?usage: result_reuse_ab.sh OUT [ROUNDS]}
rounds=${2:-3}
bench=${LIBRA_BUILD:?run through scripts/gpu/run-on-gpu.sh run}/perf_tests
mkdir -p "$out"
small='lp_afiro|abb313|lp_ship04l|olm1000|west2021|bcsstm25|cage8|bcsstk21|crack|ca-GrQc'
common=(--benchmark_min_time=0.05 --libra_repetitions=5 --benchmark_out_format=json)
for ((r = 1; r <= rounds; ++r)); do
  modes=(never automatic)
  ((r % 2 == 0)) && modes=(automatic never)
  for mode in "${modes[@]}"; do
    LIBRA_BENCH_RESULT_REUSE=$mode "$bench/bench_spgemm" "${common[@]}" \
      --benchmark_filter="^spgemm/($small)/(libra_auto|cusparse)" \
      --benchmark_out="$out/spgemm_${mode}_$r.json" >/dev/null ||
      echo "result_reuse_ab: bench_spgemm ($mode, round $r) failed" >&2
    LIBRA_BENCH_RESULT_REUSE=$mode "$bench/bench_diag" "${common[@]}" \
      --benchmark_filter='^diag/band:100000:(1|2|4|8|16)/(cdm|cdm_into|cusparse)/' \
      --benchmark_out="$out/diag_${mode}_$r.json" >/dev/null ||
      echo "result_reuse_ab: bench_diag ($mode, round $r) failed" >&2
  done
done
# Where a small product's time goes now: one call's host timeline, and the
# kernels' times under fences.
LIBRA_BENCH_TIMELINE=1 LIBRA_BENCH_KERNEL_TIMES=1 "$bench/bench_spgemm" \
  --benchmark_min_time=0.05 --libra_repetitions=3 \
  --benchmark_filter='^spgemm/(lp_afiro|west2021)/libra_auto' >"$out/timeline.log" 2>&1
echo "result_reuse_ab: done, $rounds rounds"
