#!/usr/bin/env python3
"""SpGEMM table from the `libra` tool: C = A*A (A*A^T for rectangular A) per
matrix and algorithm, each run in its own process with `libra spgemm --json
--repeat N` (median time), in the same session on the same machine.

A second route to the numbers run_report.py gets from bench_spgemm: the CLI
reads files with 64-bit offsets, runs Libra and cuSPARSE on the device, and
Kokkos Kernels on the host space (its GPU SpGEMM crashes on Hopper; that is
what bench_spgemm records). A process that dies is recorded as "crash", a
failure with its message; nothing is hidden.

  cli_report.py --libra build/cuda/src/cli/libra --out DIR MATRIX|rmat:S:E ...
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time


def run(libra, spec, algo, repeat, timeout):
    src = ["--generate", spec] if spec.startswith("rmat:") else [spec]
    cmd = [libra, "spgemm", *src, "--algo", algo, "--repeat", str(repeat), "--json"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "wall": time.time() - t0}
    if p.returncode < 0:
        return {"status": "crash (%s)" % signal.Signals(-p.returncode).name,
                "message": p.stderr.strip()[-300:]}
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": "failed", "message": last[:300]}
    j = json.loads(p.stdout)
    j["status"] = "ok"
    return j


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--libra", required=True, help="the libra executable")
    ap.add_argument("--out", required=True, help="folder for cli_spgemm.json/.md/.png")
    ap.add_argument("--algos", default="outer,cusparse,kk")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--title", default="")
    ap.add_argument("matrices", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    algos = a.algos.split(",")
    rows = []
    for m in a.matrices:
        row = {"matrix": os.path.basename(m).rsplit(".", 1)[0] if not m.startswith("rmat:") else m}
        for algo in algos:
            row[algo] = run(a.libra, m, algo, a.repeat, a.timeout)
            r = row[algo]
            print("%-20s %-9s %s" % (row["matrix"], algo,
                  "%.3f ms %.2f GFLOP/s" % (r["seconds"] * 1e3, r["gflops"]) if r["status"] == "ok"
                  else r["status"] + " " + r.get("message", "")), flush=True)
        rows.append(row)
    with open(os.path.join(a.out, "cli_spgemm.json"), "w") as f:
        json.dump({"title": a.title, "repeat": a.repeat, "rows": rows}, f, indent=1)

    def cell(r):
        if r["status"] != "ok":
            return r["status"], r["status"]
        return "%.3g" % (r["seconds"] * 1e3), "%.3g" % r["gflops"]

    lines = ["# SpGEMM C = A*A with the libra tool: %s" % a.title, "",
             "Median of %d runs per case, each (matrix, algorithm) in its own process; "
             "times cover the multiplication only (symbolic + numeric, buffers and C's "
             "allocation), not reading the file. outer = Libra's lbGEMM on the default "
             "execution space; cusparse = cusparseSpGEMM (ALG1, ALG2/ALG3 when memory "
             "runs out); kk = Kokkos Kernels' spgemm on the host space. GFLOP/s = "
             "2*products/time." % a.repeat, ""]
    head = "| matrix | nnz(A) | products | nnz(C) | chunks |"
    sep = "|---|---|---|---|---|"
    for algo in algos:
        head += " %s ms | %s GFLOP/s |" % (algo, algo)
        sep += "---|---|"
    for algo in algos[1:]:
        head += " outer/%s |" % algo
        sep += "---|"
    lines += [head, sep]
    for row in rows:
        ok = next((row[x] for x in algos if row[x]["status"] == "ok"), {})
        line = "| `%s` | %s | %s | %s | %s |" % (row["matrix"], ok.get("nnz_a", "?"),
                                                  ok.get("products", "?"), ok.get("nnz_c", "?"),
                                                  row[algos[0]].get("chunks", ""))
        for algo in algos:
            ms, gf = cell(row[algo])
            line += " %s | %s |" % (ms, gf)
        for algo in algos[1:]:
            o, b = row[algos[0]], row[algo]
            line += (" %.2f |" % (b["seconds"] / o["seconds"])
                     if o["status"] == "ok" and b["status"] == "ok" else " |")
        lines.append(line)
    lines += ["", "outer/X above 1: Libra is faster than X (time of X over time of outer)."]
    fails = [(row["matrix"], algo, row[algo]) for row in rows for algo in algos
             if row[algo]["status"] != "ok"]
    if fails:
        lines += ["", "Failures:", ""]
        lines += ["- `%s` %s: %s %s" % (m, algo, r["status"], r.get("message", ""))
                  for m, algo, r in fails]
    with open(os.path.join(a.out, "cli_spgemm.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.9), 4.5))
        width = 0.8 / len(algos)
        for i, algo in enumerate(algos):
            ys = [row[algo]["gflops"] if row[algo]["status"] == "ok" else 0 for row in rows]
            ax.bar([k + i * width for k in range(len(rows))], ys, width, label=algo)
        ax.set_xticks([k + 0.4 - width / 2 for k in range(len(rows))])
        ax.set_xticklabels([row["matrix"] for row in rows], rotation=45, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("GFLOP/s")
        ax.set_title("SpGEMM C = A*A: %s" % a.title)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "cli_spgemm.png"), dpi=110)
    except ImportError:
        print("cli_report: no matplotlib, no chart", file=sys.stderr)


if __name__ == "__main__":
    main()
