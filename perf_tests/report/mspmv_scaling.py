#!/usr/bin/env python3
"""Strong scaling of MSREP's SpMV over MPI ranks (`mpirun -np P libra spmv`).

  mspmv_scaling.py run --libra BIN --ranks 1,2 --cases rmat:22:16,band:20000000:7,A.mtx \\
      [--partitions pcsr,pcsc,pcoo] [--versions baseline,p,p-opt,p-opt:1] [--iterations 20] \\
      [--mpiexec mpiexec] [--time-budget SECONDS] [--job-timeout SECONDS] \\
      [--extra "--balance merge-path"] --out results.json
  mspmv_scaling.py report results.json --out-dir DIR [--title TEXT]

A version "p-opt:N" is p-opt with y sent in N pieces (`--pieces N`; plain
"p-opt" lets the tool choose); "p-opt:N:ce" moves those pieces by rank 0's copy
engines (`--piece-moves copy-engines`; "p-opt::ce" with the tool's pieces). A
version ending "@ranks" ("p-opt@ranks", "p@ranks") keeps y on the ranks (`--y-on
ranks`: each rank its rows, only the rows two parts share move). `run` starts one job per (case, partition,
version, ranks), one rank per GPU on
GPU builds, and appends each job's --json report (plus "case") to the results
file, so that an interrupted run keeps what it measured and --resume-like reuse
is a matter of not repeating finished keys. `report` writes DIR/mspmv.md
(headline, then per case: per-iteration compute / wait / merge, speedup over one
rank of the same partition and version, parallel efficiency, partition and merge
overheads) and DIR/mspmv_<case>.png (speedup against ranks, a line per version
and partition). Standard library only, matplotlib for the plots when present.
"""
import argparse
import json
import math
import os
import re
import signal
import subprocess
import sys
import time


def key(r):
    return (r["case"], r["partition"], r["version"], r["ranks"])


def load(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save(path, results):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    os.replace(tmp, path)


def run_job(cmd, env, timeout):
    """The job's CompletedProcess; past `timeout` seconds (0: none) its whole
    process group (the launcher and its ranks) is killed and TimeoutExpired raised."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env, start_new_session=True) as p:
        try:
            out, err = p.communicate(timeout=timeout or None)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def run(args):
    results = load(args.out)
    done = {key(r) for r in results}
    start = time.monotonic()
    env = dict(os.environ)
    env.setdefault("NCCL_NVLS_ENABLE", "0")  # the GPU machines' rule
    for case in args.cases.split(","):
        source = ["--generate", case] if re.match(r"^(rmat|band):", case) else [case]
        for part in args.partitions.split(","):
            for version in args.versions.split(","):
                if part == "rows" and version != "baseline":
                    continue
                for np in [int(n) for n in args.ranks.split(",")]:
                    k = (case, "rows" if part == "rows" else part, version, np)
                    if k in done:
                        continue
                    if args.time_budget and time.monotonic() - start > args.time_budget:
                        print("mspmv_scaling: time budget spent, stopping", file=sys.stderr)
                        return 0
                    cmd = [args.mpiexec, "-np", str(np), "--bind-to", "none", args.libra,
                           "spmv", *source, "--partition", part, "--iterations",
                           str(args.iterations), "--json", *args.extra.split()]
                    plain, _, where = version.partition("@")
                    if where:
                        cmd += ["--y-on", where]
                    if part != "rows":
                        # "p-opt:4": p-opt with y sent in 4 pieces (--pieces 4);
                        # "p-opt:4:ce": moved by copy engines.
                        name, _, rest = plain.partition(":")
                        pieces, _, moves = rest.partition(":")
                        cmd += ["--version", name]
                        if pieces:
                            cmd += ["--pieces", pieces]
                        if moves == "ce":
                            cmd += ["--piece-moves", "copy-engines"]
                    print("mspmv_scaling:", " ".join(cmd), file=sys.stderr, flush=True)
                    try:
                        p = run_job(cmd, env, args.job_timeout)
                    except subprocess.TimeoutExpired:
                        results.append({"case": case, "partition": k[1], "version": version,
                                        "ranks": np, "failed": "libra: timed out after "
                                        "%g s (--job-timeout)" % args.job_timeout})
                        save(args.out, results)
                        continue
                    if p.returncode != 0:
                        print(p.stderr[-2000:], file=sys.stderr)
                        results.append({"case": case, "partition": k[1], "version": version,
                                        "ranks": np, "failed": p.stderr.strip()[-500:]})
                    else:
                        r = json.loads(p.stdout)
                        r["case"] = case
                        r["partition"] = k[1]
                        r["version"] = version  # with its ":pieces", if any
                        results.append(r)
                    save(args.out, results)
    return 0


def failure_line(text):
    """The line of a failed job's stderr that says what happened: the tool's own
    message, else the launcher's word on a signal, else the last line of text
    (Open MPI ends its messages with a rule of dashes)."""
    lines = [l.strip() for l in text.splitlines() if l.strip().strip("-")]
    for pattern in ("libra: ", "exited on signal", "Signal:"):
        for line in lines:
            if pattern in line:
                return line
    return lines[-1] if lines else "(no message)"


def ms(s):
    return "%.3f" % (s * 1e3)


def report(args):
    results = [r for r in load(args.results) if "failed" not in r]
    failed = [r for r in load(args.results) if "failed" in r]
    one = {(r["case"], r["partition"], r["version"]): r for r in results if r["ranks"] == 1}
    rows, best = [], {}
    for r in sorted(results, key=key):
        base = one.get((r["case"], r["partition"], r["version"]))
        speedup = base["seconds"] / r["seconds"] if base and r["seconds"] > 0 else None
        r["speedup"] = speedup
        r["efficiency"] = speedup / r["ranks"] if speedup else None
        if speedup and r["ranks"] > 1:
            b = best.setdefault((r["case"], r["ranks"]), r)
            if r["speedup"] > b["speedup"]:
                best[(r["case"], r["ranks"])] = r
        rows.append(r)
    os.makedirs(args.out_dir, exist_ok=True)
    out = ["# " + (args.title or "MSREP SpMV strong scaling"), ""]
    if best:
        out += ["## Headline", "",
                "| case | ranks | best speedup over 1 rank | efficiency | partition, version |",
                "|---|---|---|---|---|"]
        for (case, np), r in sorted(best.items()):
            out.append("| `%s` | %d | %.2fx | %.2f | %s %s |" % (
                case, np, r["speedup"], r["efficiency"], r["partition"], r["version"]))
        out.append("")
    out += ["## Per run", "",
            "Times per iteration are medians; compute is the slowest rank's, wait the "
            "fastest rank's idle time, merge the exchange and merge on rank 0. Where y "
            "leaves in pieces (p-opt pCSR over NCCL, MPI or copy engines, `pieces` in the JSON) the "
            "exchange runs without a barrier: merge is then what rank 0 spends after the "
            "slowest rank's compute, and wait the spread of the ranks' compute. Where y "
            "stays on the ranks (versions ending @ranks, `y_on` in the JSON) merge is the "
            "move of the rows two parts share and each rank's copy into its rows (pCSC: "
            "each part's partial sums of the rows other ranks hold, `rows_sent` in the "
            "JSON, and their sum into each rank's rows). Partition and distribute are once "
            "per matrix; overheads are relative to one iteration (partition) and to the "
            "iteration (merge). Partition includes CUDA's loading of the first kernels a "
            "process launches (lazy module loading: on 2 H200s, R-MAT 20's pCSR "
            "partition took 12.3 ms, 0.25 ms with CUDA_MODULE_LOADING=EAGER).", "",
            "| case | part | version | ranks | iteration ms | compute | wait | merge | "
            "merge % | partition ms | partition % of 1 it. | distribute ms | speedup | "
            "efficiency | GB/s | transport |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        it = r["seconds"]
        out.append("| `%s` | %s | %s | %d | %s | %s | %s | %s | %.1f | %s | %.1f | %s | %s | %s "
                   "| %.3g | %s |" % (
                       r["case"], r["partition"], r["version"], r["ranks"], ms(it),
                       ms(r["compute_seconds"]), ms(r["wait_seconds"]),
                       ms(r["merge_seconds"]), 100 * r["merge_seconds"] / it if it else 0,
                       ms(r["partition_seconds"]),
                       100 * r["partition_seconds"] / it if it else 0,
                       ms(r["distribute_seconds"]),
                       "%.2fx" % r["speedup"] if r["speedup"] else "-",
                       "%.2f" % r["efficiency"] if r["efficiency"] else "-",
                       r["gbytes_per_second"], r["transport"] + (
                           " (y on the ranks)" if r.get("y_on") == "ranks"
                           else " + copy engines" if r.get("piece_moves") == "copy-engines"
                           else "")))
    placements = sorted({(r["ranks"], r.get("placement", "")) for r in rows})
    if placements:
        out += ["", "## Where rank 0 ran (the placement hwloc chose, p-opt)", ""]
        for np, where in placements:
            out.append("- %d rank(s): %s" % (np, where or "not reported"))
    if failed:
        out += ["", "## Runs that failed", ""]
        for r in failed:
            out.append("- `%s` %s %s, %d ranks: %s" % (r["case"], r["partition"],
                                                      r["version"], r["ranks"],
                                                      failure_line(r["failed"])))
    with open(os.path.join(args.out_dir, "mspmv.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("mspmv_scaling: no matplotlib, no plots", file=sys.stderr)
        return 0
    for case in sorted({r["case"] for r in rows}):
        fig, ax = plt.subplots(figsize=(5, 3.5))
        lines = sorted({(r["partition"], r["version"]) for r in rows if r["case"] == case})
        top = 1
        for part, version in lines:
            pts = sorted((r["ranks"], r["speedup"]) for r in rows
                         if r["case"] == case and r["partition"] == part
                         and r["version"] == version and r["speedup"])
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        label="%s %s" % (part, version))
                top = max(top, max(p[0] for p in pts))
        ax.plot([1, top], [1, top], "k:", label="ideal")
        ax.set_xlabel("ranks (GPUs)")
        ax.set_ylabel("speedup over 1 rank")
        ax.set_title(case)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(args.out_dir, "mspmv_%s.png" % re.sub(r"[^A-Za-z0-9]+", "_",
                                                                       os.path.basename(case))))
        plt.close(fig)
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--libra", required=True)
    r.add_argument("--mpiexec", default="mpiexec")
    r.add_argument("--ranks", default="1,2")
    r.add_argument("--cases", required=True)
    r.add_argument("--partitions", default="rows,pcsr,pcsc,pcoo")
    r.add_argument("--versions", default="baseline,p,p-opt")
    r.add_argument("--iterations", type=int, default=20)
    r.add_argument("--time-budget", type=float, default=0)
    # One job's limit: a pathological one (35 s to distribute R-MAT 22 through
    # host memory on 2 GPUs) must not take the whole budget.
    r.add_argument("--job-timeout", type=float, default=0)
    r.add_argument("--extra", default="",
                   help="more arguments for every job, e.g. \"--balance merge-path\" "
                   "(results of other extras belong in another --out file)")
    r.add_argument("--out", required=True)
    q = sub.add_parser("report")
    q.add_argument("results")
    q.add_argument("--out-dir", required=True)
    q.add_argument("--title")
    args = p.parse_args()
    return run(args) if args.cmd == "run" else report(args)


if __name__ == "__main__":
    sys.exit(main())
