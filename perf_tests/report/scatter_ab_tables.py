#!/usr/bin/env python3
"""Tables of spmv_ab.sh's JSON for CSC's and COO's scatter: libra_csc and
libra_coo under two variants (e.g. segments=LIBRA_BENCH_SPMV_SCATTER=2 and
tiles=), each matrix's median over the rounds of its per-process medians,
beside cuSPARSE's CSC (the CSR of A^T, transposed) and the copy (the median over
every process of the run), with each case's path (bench_spmv's label).

    python3 perf_tests/report/scatter_ab_tables.py DIR BASE NEW
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spmv_ab_tables import load  # noqa: E402


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}g}"


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    out, base, new = sys.argv[1:4]
    times, nnz, paths = load(out)

    def med(case, variants):
        v = [ms for var in variants for ms in times.get((case, var), [])]
        return statistics.median(v) if v else None

    names = sorted(nnz, key=lambda m: nnz[m])
    every = sorted({v for _, v in times})
    print(f"| matrix | nnz | CSC {base} | CSC {new} | COO {base} | COO {new} "
          f"| cuSPARSE CSC | copy | CSC {new} / {base} | COO {new} / {base} "
          f"| cuSPARSE CSC / CSC {new} | CSC {new} / COO {new} |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = {k: [] for k in ("csc", "coo", "cus", "csc_coo")}
    for m in names:
        t = {(a, v): med(f"spmv/{m}/libra_{a}", [v]) for a in ("csc", "coo")
             for v in (base, new)}
        cus = med(f"spmv/{m}/cusparse_csc", every)
        copy = med(f"spmv/{m}/copy", every)

        def ratio(x, y):
            return x / y if x and y else None
        r = (ratio(t["csc", new], t["csc", base]), ratio(t["coo", new], t["coo", base]),
             ratio(cus, t["csc", new]), ratio(t["csc", new], t["coo", new]))
        for key, x in zip(ratios, r):
            if x:
                ratios[key].append(x)
        print(f"| `{m}` | {int(nnz[m]):,} | {fmt(t['csc', base])} | {fmt(t['csc', new])} "
              f"| {fmt(t['coo', base])} | {fmt(t['coo', new])} | {fmt(cus)} | {fmt(copy)} | "
              + " | ".join(fmt(x) for x in r) + " |")
    g = {k: geomean(v) for k, v in ratios.items()}
    print(f"| geometric mean | | | | | | | | {fmt(g['csc'])} | {fmt(g['coo'])} "
          f"| {fmt(g['cus'])} | {fmt(g['csc_coo'])} |")
    print()
    seen = {}
    for (case, variant), path in paths.items():
        seen.setdefault((case.split("/")[2], variant), set()).add(path)
    for (alg, variant), ps in sorted(seen.items()):
        print(f"- {alg} under {variant}: paths {', '.join(sorted(ps))}")


if __name__ == "__main__":
    main()
