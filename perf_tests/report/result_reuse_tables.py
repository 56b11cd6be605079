#!/usr/bin/env python3
"""Tables of result_reuse_ab.sh's JSON: each case's median over the rounds of
its per-process medians for two variants (by default C freshly allocated,
`never`, and C from reused slabs, `automatic`), beside cuSPARSE measured in the
same processes (the median over both variants' processes).

    python3 perf_tests/report/result_reuse_tables.py DIR [BASE NEW]
"""
import glob
import json
import os
import re
import statistics
import sys


def process_medians(pattern):
    """(case, mode, ms, benchmark) for each case's median in each process's JSON
    (files BENCH_MODE_ROUND.json; spmv_ab_tables.py reads them this way too)."""
    for path in sorted(glob.glob(pattern)):
        mode = re.search(r"^[a-z]+_(.+)_\d+\.json$", os.path.basename(path)).group(1)
        with open(path) as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            if b.get("aggregate_name") != "median" or b.get("error_occurred"):
                continue
            case = b["run_name"].split("/repeats:")[0]
            scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b.get("time_unit", "ms")]
            yield case, mode, b["real_time"] * scale, b


def medians(pattern):
    """{(case, mode): median over the rounds, ms} and {case: counters}."""
    times, counters = {}, {}
    for case, mode, ms, b in process_medians(pattern):
        times.setdefault((case, mode), []).append(ms)
        counters[case] = b
    return {k: statistics.median(v) for k, v in times.items()}, counters


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}g}"


def spgemm_medians(out):
    """medians() of OUT's bench_spgemm JSON, and its matrices by nnz(A)
    (host_spgemm_ab_tables.py reads them this way too)."""
    t, c = medians(os.path.join(out, "spgemm_*_*.json"))
    names = sorted({k[0].split("/")[1] for k in t}, key=lambda m: c.get(
        f"spgemm/{m}/libra_auto", {}).get("nnz_A", 0))
    return t, c, names


def spgemm_table(out, base, new):
    t, c, names = spgemm_medians(out)
    print(f"| matrix | nnz(A) | Libra {base} (ms) | Libra {new} (ms) "
          f"| {new} / {base} | cuSPARSE (ms) | cuSPARSE / Libra {new} |")
    print("|---|---|---|---|---|---|---|")
    for m in names:
        a = f"spgemm/{m}/libra_auto"
        cs = f"spgemm/{m}/cusparse"
        fresh, reused = t.get((a, base)), t.get((a, new))
        cus = [t[k] for k in ((cs, base), (cs, new)) if k in t]
        cus = statistics.median(cus) if cus else None
        nnz = int(c.get(a, {}).get("nnz_A", 0))
        ratio = reused / fresh if fresh and reused else None
        speed = cus / reused if cus and reused else None
        print(f"| `{m}` | {nnz:,} | {fmt(fresh)} | {fmt(reused)} | {fmt(ratio, 2)} "
              f"| {fmt(cus)} | {fmt(speed, 2)} |")


def diag_table(out, base, new):
    t, _ = medians(os.path.join(out, "diag_*_*.json"))
    bands = sorted({k[0].split("/")[1] for k in t}, key=lambda s: int(s.split(":")[2]))
    print(f"| problem | cdm {base} (ms) | cdm {new} (ms) | cdm_into {new} (ms) "
          f"| cuSPARSE (ms) | cuSPARSE / cdm {base} | cuSPARSE / cdm {new} |")
    print("|---|---|---|---|---|---|---|")
    for b in bands:
        def both(algo, mode=None):
            vals = [t[k] for k in ((f"diag/{b}/{algo}", m) for m in (base, new))
                    if k in t and (mode is None or k[1] == mode)]
            return statistics.median(vals) if vals else None
        fresh, reused = both("cdm", base), both("cdm", new)
        into, cus = both("cdm_into", new), both("cusparse")
        print(f"| `{b}` | {fmt(fresh)} | {fmt(reused)} | {fmt(into)} | {fmt(cus)} "
              f"| {fmt(cus / fresh if cus and fresh else None, 3)} "
              f"| {fmt(cus / reused if cus and reused else None, 3)} |")


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    base, new = sys.argv[2:4] if len(sys.argv) == 4 else ("never", "automatic")
    spgemm_table(sys.argv[1], base, new)
    print()
    diag_table(sys.argv[1], base, new)


if __name__ == "__main__":
    main()
