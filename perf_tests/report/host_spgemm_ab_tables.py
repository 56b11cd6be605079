#!/usr/bin/env python3
"""Tables of host_spgemm_ab.sh's JSON: libra_auto's median over the rounds of its
per-process medians for two variants, and Kokkos Kernels (the median over both
variants' processes) beside them; then, per variant, the median of each
process's Kokkos Kernels / Libra ratio (both measured in the same process a
moment apart, so that the 2-core host's slow and fast spells, up to 1.3x,
cancel); geometric means under both.

    python3 perf_tests/report/host_spgemm_ab_tables.py DIR BASE NEW
"""
import collections
import glob
import math
import os
import statistics
import sys

from result_reuse_tables import fmt, process_medians, spgemm_medians


def gmean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def main():
    out, base, new = sys.argv[1], sys.argv[2], sys.argv[3]
    t, c, names = spgemm_medians(out)
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
    ratio_table(out, base, new)


def ratio_table(out, base, new):
    runs = collections.defaultdict(dict)  # (mode, file) -> {case: ms}
    for path in sorted(glob.glob(os.path.join(out, "spgemm_*_*.json"))):
        for case, mode, ms, _ in process_medians(path):
            runs[(mode, path)][case] = ms
    ratios = collections.defaultdict(list)  # (matrix, mode) -> KK / Libra
    for (mode, _), cases in runs.items():
        for case, ms in cases.items():
            kk = cases.get(case.replace("/libra_auto", "/kokkos_kernels"))
            if case.endswith("/libra_auto") and kk:
                ratios[(case.split("/")[1], mode)].append(kk / ms)
    print(f"\n| matrix | KK / Libra {base} (each process) | KK / Libra {new} (each process) "
          f"| {new} / {base} (speed) |")
    print("|---|---|---|---|")
    gb, gn = [], []
    for m in sorted({k[0] for k in ratios}):
        b, n = ratios.get((m, base)), ratios.get((m, new))
        if not b or not n:
            continue
        mb, mn = statistics.median(b), statistics.median(n)
        gb.append(mb), gn.append(mn)
        each = lambda xs: ", ".join(f"{x:.2f}" for x in xs)
        print(f"| `{m}` | {mb:.2f} ({each(b)}) | {mn:.2f} ({each(n)}) | {mn / mb:.2f} |")
    if gb:
        print(f"| geometric mean | {gmean(gb):.3f} | {gmean(gn):.3f} "
              f"| {gmean(gn) / gmean(gb):.3f} |")


if __name__ == "__main__":
    main()
