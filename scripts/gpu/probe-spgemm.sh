#!/usr/bin/env bash
# Quick SpGEMM timing table with the CLI (median of --repeat runs, phases from
# SpgemmStats): for tuning on the GPU machine, after run-on-gpu.sh set up paths.
#   scripts/gpu/probe-spgemm.sh LIBRA_BINARY [ALGO] MATRIX|rmat:S:E ...
set -uo pipefail
libra=$1
algo=${2:-outer}
shift 2
printf '%-22s %12s %12s %10s %9s  %s\n' matrix products nnz_c ms GFLOP/s "phases ms (wlt expand compress merge), chunks"
for m in "$@"; do
  if [[ $m == rmat:* ]]; then src=(--generate "$m"); else src=("$m"); fi
  out=$("$libra" spgemm "${src[@]}" --algo "$algo" --repeat "${REPEAT:-7}" --json 2>&1) || {
    printf '%-22s failed: %s\n' "$(basename "$m")" "$(echo "$out" | tail -1)"; continue; }
  python3 - "$m" "$out" <<'PY'
import json, os, sys
m, j = sys.argv[1], json.loads(sys.argv[2])
p = j.get("phases", {})
print("%-22s %12d %12d %10.3f %9.2f  %s %s" % (os.path.basename(m), j["products"], j["nnz_c"],
      j["seconds"] * 1e3, j["gflops"],
      " ".join("%.3f" % (p.get(k, 0) * 1e3) for k in ("wlt", "expand", "compress", "merge")),
      j.get("chunks")))
PY
done
