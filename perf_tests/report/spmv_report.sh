#!/usr/bin/env bash
# Runs bench_spmv of a built variant and writes OUT_DIR/spmv.json and spmv.md
# (spmv_report.py). On the GPU machine, through scripts/gpu/run-on-gpu.sh:
#   scripts/gpu/run-on-gpu.sh run perf_tests/report/spmv_report.sh \
#     '$LIBRA_BUILD' "$OUT/h100" "SpMV on one H100" [bench_spmv flags...]
# On the host:
#   perf_tests/report/spmv_report.sh build/host perf_tests/report/host \
#     "SpMV on the 2-core host" --libra_matrices=...
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$1
out=$2
title=$3
shift 3
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads
cmd=("$build/perf_tests/bench_spmv" --benchmark_min_time=0.1 "$@"
     --benchmark_out="$out/spmv.json" --benchmark_out_format=json)
"${cmd[@]}" > "$out/spmv.log"
python3 "$root/perf_tests/report/spmv_report.py" "$out/spmv.json" --out "$out/spmv.md" \
  --title "$title" --command "OMP_PROC_BIND=spread OMP_PLACES=threads bench_spmv ${*:-} --benchmark_min_time=0.1"
