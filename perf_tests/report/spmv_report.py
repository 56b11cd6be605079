#!/usr/bin/env python3
"""SpMV report from bench_spmv's Google Benchmark JSON (medians of repetitions).

  spmv_report.py RESULTS.json --out spmv.md --title TEXT [--command TEXT]

Writes a headline (Libra's CSR against cuSPARSE and Kokkos Kernels, as geometric
means of speed ratios over the matrices both ran, and the share of the copy
bandwidth measured in the same run on the matrices larger than the caches),
then a table of times with GB/s and a table of ratios per matrix. GB/s is CSR's
least traffic over the time for every column (bench_spmv), so columns compare
by time. `copy` is the memory's copy rate for as many bytes, in the same run.
"""
import argparse
import json
import math
import re
import sys

ORDER = ["libra_csr", "libra_csr_plan", "libra_csr_merge", "libra_csc", "libra_coo", "libra_ell",
         "libra_pcsr4", "kokkos_kernels", "cusparse_csr", "cusparse_csr_alg2",
         "cusparse_csc", "copy"]
CUSPARSE_CSR = ["cusparse_csr", "cusparse_csr_alg2"]
# Matrices whose least traffic passes this many bytes do not fit the caches
# (H100: 50 MB of L2; the 2-core host: 32 MB of L3): their copy rate is the
# memory's, and the bandwidth goals are judged on them.
LARGE_BYTES = 200e6
REGULAR_KINDS = {"band", "banded", "fem"}


def geomean(values):
    values = [v for v in values if v > 0]
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.3g" % x


def load(paths):
    runs = {}  # (matrix, algorithm) -> dict
    context = None
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        context = context or data.get("context", {})
        for b in data["benchmarks"]:
            m = re.match(r"spmv/(.+)/([a-z0-9_]+)/repeats:\d+/manual_time(?:_median)?$",
                         b["name"])
            if not m:
                continue
            key = (m.group(1), m.group(2))
            if b.get("error_occurred"):
                runs.setdefault(key, {"error": b.get("error_message", "error")})
                continue
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            if b.get("run_type") != "aggregate" and key in runs:
                continue  # a single repetition's entry; the median comes later
            label = dict(kv.split("=", 1) for kv in b.get("label", "").split(";") if "=" in kv)
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ms")]
            runs[key] = {"ms": b["real_time"] * scale, "gbs": b.get("GB/s"),
                         "nnz": b.get("nnz_A"), "rows": b.get("rows"),
                         "kind": label.get("kind", "?"), "path": label.get("path", "")}
    return runs, context or {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", required=True)
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    runs, ctx = load(args.results)
    matrices = []
    for (mat, _alg) in runs:
        if mat not in matrices:
            matrices.append(mat)
    algs = [a for a in ORDER if any((m, a) in runs for m in matrices)]

    def ok(m, a):
        r = runs.get((m, a))
        return r if r and "error" not in r else None

    def info(m):
        for a in algs:
            if ok(m, a):
                return ok(m, a)
        return None

    def best_cusparse(m):
        c = [ok(m, a) for a in CUSPARSE_CSR if ok(m, a)]
        return min(c, key=lambda r: r["ms"]) if c else None

    def bytes_of(m):
        r = info(m)
        return r["gbs"] * r["ms"] * 1e6 if r and r.get("gbs") else 0

    rows = []
    vs_cus, vs_kk, vs_csc, plan_cus = [], [], [], []
    large = {"regular": [], "powerlaw": []}
    for m in matrices:
        base = info(m)
        if not base:
            continue
        csr, kk, cus, copy = ok(m, "libra_csr"), ok(m, "kokkos_kernels"), best_cusparse(m), ok(m, "copy")
        r_cus = cus["ms"] / csr["ms"] if csr and cus else None
        r_kk = kk["ms"] / csr["ms"] if csr and kk else None
        r_csc = (ok(m, "cusparse_csc")["ms"] / ok(m, "libra_csc")["ms"]
                 if ok(m, "cusparse_csc") and ok(m, "libra_csc") else None)
        pct = copy["ms"] / csr["ms"] * 100 if csr and copy else None
        pct_cus = copy["ms"] / cus["ms"] * 100 if cus and copy else None
        if r_cus:
            vs_cus.append((m, r_cus))
        if r_kk:
            vs_kk.append((m, r_kk))
        if r_csc:
            vs_csc.append((m, r_csc))
        planned = ok(m, "libra_csr_plan")
        r_plan = cus["ms"] / planned["ms"] if planned and cus else None
        if r_plan:
            plan_cus.append((m, r_plan))
        if pct and bytes_of(m) >= LARGE_BYTES:
            cls = "regular" if base["kind"] in REGULAR_KINDS else "powerlaw"
            planned_ms = ok(m, "libra_csr_plan")
            large[cls].append((m, pct, pct_cus,
                               copy["ms"] / planned_ms["ms"] * 100 if planned_ms else None))
        pct_plan = copy["ms"] / planned["ms"] * 100 if planned and copy else None
        rows.append((m, base, r_cus, r_kk, r_csc, pct, pct_cus, r_plan, pct_plan))

    out = []
    out.append("# " + args.title)
    out.append("")
    meta = []
    if ctx.get("libra_git_hash"):
        meta.append("git %s" % ctx["libra_git_hash"])
    for k in ("kokkos_version", "kokkos_kernels_version", "kokkos_backends"):
        if ctx.get(k):
            meta.append("%s %s" % (k.replace("_", " "), ctx[k]))
    if ctx.get("date"):
        meta.append(ctx["date"][:10])
    out.append("`bench_spmv`, " + ", ".join(meta) + "; medians of the repetitions. Raw "
               "Google Benchmark JSON beside this file. Every SpMV was checked against the "
               "reference oracle before it was timed.")
    if args.command:
        out += ["", "```sh", args.command, "```"]
    out += ["", "## Headline", ""]
    def versus_cusparse(ratios, what):
        g = geomean([r for _, r in ratios])
        faster = sum(1 for _, r in ratios if r > 1)
        lo = min(ratios, key=lambda x: x[1])
        hi = max(ratios, key=lambda x: x[1])
        out.append("- %s against cuSPARSE's faster CSR algorithm (ALG1 or ALG2, per "
                   "matrix): **%.2fx** the speed (geometric mean over %d matrices), faster "
                   "on %d; from %.2fx (`%s`) to %.2fx (`%s`)."
                   % (what, g, len(ratios), faster, lo[1], lo[0], hi[1], hi[0]))

    if plan_cus:
        versus_cusparse(plan_cus, "Libra's CSR with a plan made once (`libra_csr_plan`, as "
                        "cuSPARSE's buffer and preprocessing are made once)")
    if vs_cus:
        versus_cusparse(vs_cus, "Libra's CSR without a plan (`libra_csr`, one call as a "
                        "user makes it once)")
    if vs_kk:
        g = geomean([r for _, r in vs_kk])
        faster = sum(1 for _, r in vs_kk if r > 1)
        out.append("- Against `KokkosSparse::spmv`: **%.2fx** (geometric mean over %d), "
                   "faster on %d." % (g, len(vs_kk), faster))
    if vs_csc:
        g = geomean([r for _, r in vs_csc])
        out.append("- CSC: `libra_csc` against cuSPARSE on the CSR of A^T transposed: "
                   "%.2fx (geometric mean over %d)." % (g, len(vs_csc)))
    for cls, text in (("regular", "banded/FEM"), ("powerlaw", "power-law and other")):
        if large[cls]:
            parts = ["`%s` %.0f%%%s (cuSPARSE %s)" % (
                         m, p, (", with a plan %.0f%%" % pp) if pp else "",
                         ("%.0f%%" % pc) if pc else "–")
                     for m, p, pc, pp in large[cls]]
            out.append("- Share of the copy bandwidth on %s matrices larger than the "
                       "caches: %s." % (text, "; ".join(parts)))
    small = [(m, ok(m, "libra_csr")["ms"], best_cusparse(m)["ms"],
              ok(m, "libra_csr_plan")["ms"] if ok(m, "libra_csr_plan") else None)
             for m in matrices
             if ok(m, "libra_csr") and best_cusparse(m) and bytes_of(m) < 4e6]
    if small:
        planned_small = [s[3] for s in small if s[3]]
        out.append("- Launch floor (matrices under 4 MB of traffic): Libra's CSR %.3f-%.3f ms"
                   "%s, cuSPARSE %.3f-%.3f ms."
                   % (min(s[1] for s in small), max(s[1] for s in small),
                      (", with a plan %.3f-%.3f ms" % (min(planned_small), max(planned_small))
                       if planned_small else ""),
                      min(s[2] for s in small), max(s[2] for s in small)))
    out.append("")
    out.append("## Times: ms (GB/s of CSR's least traffic)")
    out.append("")
    out.append("| matrix | kind | rows | nnz | " + " | ".join(algs) + " |")
    out.append("|---|---|---:|---:|" + "---:|" * len(algs))
    notes = []
    for m, base, *_ in rows:
        cells = []
        for a in algs:
            r = runs.get((m, a))
            if not r:
                cells.append("")
            elif "error" in r:
                notes.append("`%s` %s: %s" % (m, a, r["error"]))
                cells.append("failed (%d)" % len(notes))
            else:
                cells.append("%s (%s)" % (fmt(r["ms"]), fmt(r["gbs"])))
        out.append("| `%s` | %s | %s | %s | %s |" % (
            m, base["kind"], "{:,}".format(int(base["rows"] or 0)),
            "{:,}".format(int(base["nnz"] or 0)), " | ".join(cells)))
    for i, n in enumerate(notes, 1):
        out.append("")
        out.append("(%d) %s" % (i, n))
    out.append("")
    out.append("## Ratios")
    out.append("")
    out.append("Speed ratios (> 1: Libra faster). `% of copy`: the copy's time over the "
               "SpMV's for the same bytes.")
    out.append("")
    out.append("| matrix | CSR path | CSR with a plan / best cuSPARSE CSR | "
               "CSR / best cuSPARSE CSR | CSR / Kokkos Kernels | "
               "CSC / cuSPARSE CSC | CSR with a plan % of copy | CSR % of copy | "
               "cuSPARSE % of copy |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for m, base, r_cus, r_kk, r_csc, pct, pct_cus, r_plan, pct_plan in rows:
        csr = ok(m, "libra_csr")
        out.append("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            m, csr["path"] if csr else "–", fmt(r_plan), fmt(r_cus), fmt(r_kk), fmt(r_csc),
            ("%.0f%%" % pct_plan) if pct_plan else "–",
            ("%.0f%%" % pct) if pct else "–", ("%.0f%%" % pct_cus) if pct_cus else "–"))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
