#!/usr/bin/env python3
"""Markdown tables of README.md from the TSVs beside it (medians per setting and
round, ms): python3 tables.py FILE.tsv BASE [SETTING...]: per case the mean of
each setting's rounds, its ratio to BASE, and geometric means per K."""
import collections
import math
import sys


def load(path):
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    for line in open(path):
        if line.startswith("#") or line.startswith("setting\t"):
            continue
        setting, _, case, ms = line.rstrip("\n").split("\t")
        parts = case.split("/")
        algo = parts[2] if len(parts) > 2 else ""
        key = setting if setting != "left_kk" else algo  # left_kk holds two algorithms
        runs["/".join(parts[:2])][key].append(float(ms))
    return runs


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    path, base, *settings = sys.argv[1:]
    runs = load(path)
    if not settings:
        settings = sorted({s for r in runs.values() for s in r if s != base})
    print("| case | " + base + " | " + " | ".join(settings) + " | " +
          " | ".join(f"{s} / {base}" for s in settings) + " |")
    print("|---" * (2 + 2 * len(settings)) + "|")
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    for case, r in runs.items():
        if base not in r:
            continue
        b = sum(r[base]) / len(r[base])
        cells, rs = [], []
        for s in settings:
            if s in r:
                v = sum(r[s]) / len(r[s])
                cells.append(f"{v:.4f}")
                rs.append(f"{v / b:.2f}")
                ratios[s][case.split("/")[1]].append(v / b)
            else:
                cells.append("—")
                rs.append("—")
        print(f"| `{case}` | {b:.4f} | " + " | ".join(cells) + " | " + " | ".join(rs) + " |")
    print()
    for s in settings:
        per_k = ", ".join(f"{k} {geomean(v):.3f} ({sum(x < 1 for x in v)} of {len(v)} below 1)"
                          for k, v in sorted(ratios[s].items(), key=lambda kv: int(kv[0][1:])))
        allv = [x for v in ratios[s].values() for x in v]
        print(f"- {s} / {base}: geometric mean {geomean(allv):.3f} over {len(allv)}; {per_k}")


if __name__ == "__main__":
    main()
