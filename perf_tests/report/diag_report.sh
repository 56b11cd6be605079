#!/usr/bin/env bash
# Runs bench_diag of a built variant into OUT_DIR/NAME.json (and NAME.log); a
# report is made from one or more such files by diag_report.py. On the GPU
# machine, through scripts/gpu/run-on-gpu.sh:
#   scripts/gpu/run-on-gpu.sh run perf_tests/report/diag_report.sh \
#     '$LIBRA_BUILD' "$OUT/h100" bands [bench_diag flags...]
# On the host:
#   perf_tests/report/diag_report.sh build/host /tmp/diag host [flags...]
#   perf_tests/report/diag_report.py /tmp/diag/*.json --title "..." > diag.md
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
build=$1
out=$2
name=$3
shift 3
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads
"$build/perf_tests/bench_diag" "$@" --benchmark_out="$out/$name.json" \
  --benchmark_out_format=json > "$out/$name.log"
