#!/usr/bin/env python3
"""Table of host_spgemm_ab.sh's JSON: libra_auto's median over the rounds of its
per-process medians for two variants, and Kokkos Kernels (the median over both
variants' processes) beside them, with geometric means.

    python3 perf_tests/report/host_spgemm_ab_tables.py DIR BASE NEW
"""
import math
import os
import statistics
import sys

from result_reuse_tables import fmt, medians


def gmean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def main():
    out, base, new = sys.argv[1], sys.argv[2], sys.argv[3]
    t, c = medians(os.path.join(out, "spgemm_*_*.json"))
    names = sorted({k[0].split("/")[1] for k in t}, key=lambda m: c.get(
        f"spgemm/{m}/libra_auto", {}).get("nnz_A", 0))
    print(f"| matrix | nnz(A) | Libra {base} (ms) | Libra {new} (ms) | {new} / {base} "
          f"| Kokkos Kernels (ms) | KK / Libra {base} | KK / Libra {new} |")
    print("|---|---|---|---|---|---|---|---|")
    ratios, kb, kn = [], [], []
    for m in names:
        a, k = f"spgemm/{m}/libra_auto", f"spgemm/{m}/kokkos_kernels"
        old, now = t.get((a, base)), t.get((a, new))
        kk = [t[x] for x in ((k, base), (k, new)) if x in t]
        kk = statistics.median(kk) if kk else None
        ratio = now / old if old and now else None
        sb = kk / old if kk and old else None
        sn = kk / now if kk and now else None
        ratios.append(ratio), kb.append(sb), kn.append(sn)
        nnz = int(c.get(a, {}).get("nnz_A", 0))
        print(f"| `{m}` | {nnz:,} | {fmt(old)} | {fmt(now)} | {fmt(ratio, 2)} | {fmt(kk)} "
              f"| {fmt(sb, 2)} | {fmt(sn, 2)} |")
    print(f"| geometric mean | | | | {fmt(gmean(ratios), 3)} | | {fmt(gmean(kb), 3)} "
          f"| {fmt(gmean(kn), 3)} |")


if __name__ == "__main__":
    main()
