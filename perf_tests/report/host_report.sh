#!/usr/bin/env bash
# Builds the host variant's benchmarks (OpenMP + Serial) in build/host and writes
# the report into perf_tests/report/host/. Arguments go to run_report.py, e.g.
#   perf_tests/report/host_report.sh                 # every matrix, R-MAT 16..22
#   LIBRA_BENCH_QUICK=1 perf_tests/report/host_report.sh   # 3 small matrices + rmat 12
#   perf_tests/report/host_report.sh --only spgemm --filter email-Enron
# LIBRA_BUILD_DIR and LIBRA_REPORT_DIR override the two folders.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${LIBRA_BUILD_DIR:-$root/build/host}
report=${LIBRA_REPORT_DIR:-$root/perf_tests/report/host}

"$root/scripts/install-system-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLIBRA_ENABLE_BENCHMARKS=ON \
  >/dev/null
cmake --build "$build" --target bench_spgemm bench_convert -j "${LIBRA_JOBS:-$(nproc)}"
export OMP_PROC_BIND=spread OMP_PLACES=threads
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3  # Debian's, which has matplotlib
exec "$python" "$root/perf_tests/report/run_report.py" --build-dir "$build" \
  --out "$report" --title "host (Kokkos OpenMP)" "$@"
