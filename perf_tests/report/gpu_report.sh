#!/usr/bin/env bash
# Runs an already built cuda variant's benchmarks on the GPU machine and writes the
# report into OUT_DIR. Builds nothing: the build folder is carried there with its
# executables (and perf_tests/lib/, Google Benchmark's library beside them).
#   perf_tests/report/gpu_report.sh BUILD_DIR OUT_DIR [run_report.py options]
# e.g. on the GPU machine, with the shared matrices carried in _carry/matrices:
#   perf_tests/report/gpu_report.sh build/cuda "$OUT" --matrices _carry/matrices \
#     --only spgemm --time-budget 500 --resume _carry/gpu/results.json
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$1
out=$2
shift 2
for exe in bench_spgemm bench_convert; do
  [ -x "$build/perf_tests/$exe" ] || { echo "gpu_report: $build/perf_tests/$exe is missing" >&2; exit 2; }
done
# cuSPARSE and the CUDA runtime come from the machine's toolkit.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export OMP_PROC_BIND=spread OMP_PLACES=threads
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv || true
if [ -x "$build/perf_tests/cusparse_spgemm_selftest" ]; then
  "$build/perf_tests/cusparse_spgemm_selftest" || echo "gpu_report: cusparse_spgemm_selftest FAILED" >&2
fi
exec python3 "$root/perf_tests/report/run_report.py" --build-dir "$build" --out "$out" \
  --title "GPU (Kokkos Cuda)" "$@"
