#!/usr/bin/env python3
"""Tables of spmv_ab.sh's JSON: for libra_csr (no plan) and libra_csr_plan, each
matrix's median over the rounds of its per-process medians under two variants,
beside cuSPARSE's faster CSR algorithm (ALG1 or ALG2, the median over every
process of the run) and each case's path (bench_spmv's label).

    python3 perf_tests/report/spmv_ab_tables.py DIR BASE NEW
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_reuse_tables import process_medians  # noqa: E402


def load(out):
    """{(case, variant): [per-process median ms]}, {matrix: nnz}, {(case, variant): path}."""
    times, nnz, paths = {}, {}, {}
    for case, variant, ms, b in process_medians(os.path.join(out, "spmv_*_*.json")):
        times.setdefault((case, variant), []).append(ms)
        nnz[case.split("/")[1]] = b.get("nnz_A", 0)
        m = re.search(r"path=([a-z_]+)", b.get("label", ""))
        if m:
            paths[(case, variant)] = m.group(1)
    return times, nnz, paths


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}g}"


def gmean(xs):
    xs = [x for x in xs if x]
    if not xs:
        return None
    p = 1.0
    for x in xs:
        p *= x
    return p ** (1.0 / len(xs))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out, base, new = sys.argv[1:4]
    times, nnz, paths = load(out)
    med = {k: statistics.median(v) for k, v in times.items()}
    matrices = sorted(nnz, key=lambda m: nnz[m])
    for algo in ("libra_csr", "libra_csr_plan"):
        print(f"\n`{algo}` (ms; path in brackets)\n")
        print(f"| matrix | nnz | {base} | {new} | {new} / {base} | cuSPARSE best "
              f"| cuSPARSE / {base} | cuSPARSE / {new} |")
        print("|---|---:|---|---|---:|---:|---:|---:|")
        ratios, speed_base, speed_new = [], [], []
        for m in matrices:
            a, b = (med.get((f"spmv/{m}/{algo}", v)) for v in (base, new))
            cus = []
            for alg in ("cusparse_csr", "cusparse_csr_alg2"):
                vals = [t for (c, _), ts in times.items() if c == f"spmv/{m}/{alg}"
                        for t in ts]
                if vals:
                    cus.append(statistics.median(vals))
            c = min(cus) if cus else None
            pa = paths.get((f"spmv/{m}/{algo}", base), "?")
            pb = paths.get((f"spmv/{m}/{algo}", new), "?")
            r = b / a if a and b else None
            ratios.append(r)
            speed_base.append(c / a if c and a else None)
            speed_new.append(c / b if c and b else None)
            print(f"| `{m}` | {int(nnz[m]):,} | {fmt(a)} ({pa}) | {fmt(b)} ({pb}) "
                  f"| {fmt(r, 2)} | {fmt(c)} | {fmt(speed_base[-1], 2)} "
                  f"| {fmt(speed_new[-1], 2)} |")
        print(f"| geometric mean | | | | {fmt(gmean(ratios), 3)} | "
              f"| {fmt(gmean(speed_base), 3)} | {fmt(gmean(speed_new), 3)} |")


if __name__ == "__main__":
    main()
