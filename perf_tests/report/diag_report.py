#!/usr/bin/env python3
"""Tables from bench_diag's JSON (Google Benchmark --benchmark_out): banded and
structured sparse products in diagonal storage beside Libra's CSR SpGEMM,
Kokkos Kernels, cuSPARSE and dense GEMM, and SpMV from each storage.

  diag_report.py RESULTS.json [MORE.json ...] --title TITLE > report.md

Medians of the repetitions; a case that did not run shows why (oom, error,
wrong). The headline states CDM's speed-up over cuSPARSE (or the best CSR
baseline on hosts) and the crossover: the narrowest band at which a CSR
SpGEMM is faster than CDM.
"""
import argparse
import json
import math
import re

PRODUCTS = ["cdm", "cdm_into", "hm", "libra_cdm_csr", "libra_hm_csr", "libra_panel",
            "kokkos_kernels", "cusparse", "dense_gemm"]
CSR_BASELINES = ["libra_panel", "kokkos_kernels", "cusparse"]
SPMV = ["spmv_cdm", "spmv_hm", "spmv_csr"]


def load(paths):
    cases, context = {}, {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        context = data.get("context", context)
        for b in data["benchmarks"]:
            m = re.match(r"diag/([^/]+)/([a-z_]+)/", b["name"])
            if not m:
                continue
            key = (m.group(1), m.group(2))
            if b.get("error_occurred"):
                cases.setdefault(key, {"error": b.get("error_message", "error")})
                continue
            if b.get("aggregate_name") != "median":
                continue
            scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b.get("time_unit", "ms")]
            cases[key] = {"ms": b["real_time"] * scale, "label": b.get("label", ""),
                          "gflops": b.get("GFLOP/s"), "gbs": b.get("GB/s"),
                          "peak": b.get("peak_MB"), "nnz": b.get("nnz_A")}
    return cases, context


def cell(c):
    if c is None:
        return "—"
    if "error" in c:
        return c["error"].split(":")[0]
    ms = c["ms"]
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def problem_key(p):
    f = p.split(":")
    return (f[0], [int(x) for x in f[1:]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("--title", default="Diagonal storage products")
    ap.add_argument("--note", action="append", default=[],
                    help="a paragraph printed under the headline (repeatable)")
    args = ap.parse_args()
    cases, ctx = load(args.json)
    problems = sorted({p for p, _ in cases}, key=problem_key)
    out = [f"# {args.title}", ""]
    head = []
    ratios_cus, ratios_best, ratios_into = [], [], []
    losses = []  # (problem, the baseline faster than CDM)
    for p in problems:
        cdm = cases.get((p, "cdm"))
        if not cdm or "ms" not in cdm:
            continue
        base = {a: cases.get((p, a)) for a in CSR_BASELINES + ["dense_gemm"]}
        base = {a: c["ms"] for a, c in base.items() if c and "ms" in c}
        csr_ms = [v for a, v in base.items() if a != "dense_gemm"]
        cus = cases.get((p, "cusparse"))
        into = cases.get((p, "cdm_into"))
        if cus and "ms" in cus:
            ratios_cus.append((p, cus["ms"] / cdm["ms"]))
            if into and "ms" in into:
                ratios_into.append((p, cus["ms"] / into["ms"]))
        if csr_ms:
            ratios_best.append((p, min(csr_ms) / cdm["ms"]))
        if problem_key(p)[0] == "band":
            faster = [a for a, v in base.items() if v < cdm["ms"]]
            if faster:
                losses.append((p, faster))
    if ratios_cus:
        out.append("**CDM vs cuSPARSE SpGEMM** (time of cuSPARSE / time of CDM; >1: CDM faster): " +
                   ", ".join(f"{p} {r:.1f}x" for p, r in ratios_cus) + ".")
        out.append("")
    if ratios_into:
        out.append("**CDM into a C allocated before (`cdm_gemm_into`, no allocation timed) vs "
                   "cuSPARSE SpGEMM** (one-shot, its allocations timed): " +
                   ", ".join(f"{p} {r:.1f}x" for p, r in ratios_into) + ".")
        out.append("")
    if ratios_best:
        out.append("**CDM vs the fastest CSR SpGEMM** (Libra panel, Kokkos Kernels, cuSPARSE): " +
                   ", ".join(f"{p} {r:.2f}x" for p, r in ratios_best) + ".")
        out.append("")
    out.append("**Crossover** (bands where a baseline is faster than CDM): " +
               ("; ".join(f"{p}: {', '.join(f)}" for p, f in losses) if losses else
                "none: CDM was the fastest on every band measured") + ".")
    out.append("")
    for note in args.note:
        out.append(note)
        out.append("")
    if ctx:
        out.append(f"Run: {ctx.get('date', '')}, {ctx.get('host_name', '')}, "
                   f"{ctx.get('num_cpus', '')} CPUs; git {ctx.get('libra_git_hash', ctx.get('git_hash', ''))}.")
        out.append("")
    out.append("## Products C = A * B (median ms)")
    out.append("")
    out.append("| problem | nnz(A) | " + " | ".join(PRODUCTS) + " | CDM GFLOP/s | CDM peak MB |")
    out.append("|---|---:|" + "---:|" * (len(PRODUCTS) + 2))
    for p in problems:
        row = [cases.get((p, a)) for a in PRODUCTS]
        cdm = cases.get((p, "cdm")) or {}
        nnz = next((c.get("nnz") for c in row if c and c.get("nnz")), None)
        gf = cdm.get("gflops")
        pk = cdm.get("peak")
        out.append(f"| {p} | {int(nnz) if nnz else '—'} | " + " | ".join(cell(c) for c in row) +
                   f" | {gf:.1f} | {pk:.0f} |" if gf else
                   f"| {p} | {int(nnz) if nnz else '—'} | " + " | ".join(cell(c) for c in row) +
                   " | — | — |")
    labels = sorted({c["label"] for (p, a), c in cases.items() if a == "cusparse" and c.get("label")})
    if labels:
        out.append("")
        out.append("cuSPARSE algorithms that ran: " + ", ".join(labels) + ".")
    out.append("")
    out.append("## SpMV y = A x from each storage (median ms, GB/s of that storage's traffic)")
    out.append("")
    out.append("| problem | " + " | ".join(SPMV) + " | CDM / CSR time |")
    out.append("|---|" + "---:|" * (len(SPMV) + 1))
    for p in problems:
        cs = [cases.get((p, s)) for s in SPMV]
        if not any(cs):
            continue
        txt = []
        for c in cs:
            if c and "ms" in c:
                txt.append(f"{c['ms']:.3g} ({c['gbs'] or 0:.0f})")
            else:
                txt.append(cell(c))
        r = "—"
        if cs[0] and cs[2] and "ms" in cs[0] and "ms" in cs[2]:
            r = f"{cs[0]['ms'] / cs[2]['ms']:.2f}"
        out.append(f"| {p} | " + " | ".join(txt) + f" | {r} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
