#!/usr/bin/env python3
"""Runs Libra's benchmark executables one case per process and writes a report.

Every (matrix, algorithm) of bench_spgemm, (matrix, K, algorithm) of bench_spmm and
(matrix, conversion) of bench_convert
runs in its own process with --benchmark_format=json, so that a crash (Kokkos
Kernels' SpGEMM on Hopper GPUs) is recorded as "crash (SIGNAL)" for that case
instead of ending the report. `--one-process spmm` runs that benchmark's cases one
process per matrix instead (for benchmarks that do not crash: each process loads its
matrix again; a process that dies or runs out of time marks that matrix's cases as
crashed or not run). Writes into --out:
  results.json          every case: status, median time, counters, messages
  spgemm.md, spgemm.png  SpGEMM table (with Libra/baseline ratios) and chart
  spmm.md               SpMM table (GFLOP/s per matrix and K, Libra/baseline ratios)
  convert.md, convert.png conversion table and chart
Needs python3's standard library, and matplotlib for the charts.
See perf_tests/README.md.
"""
import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report_tables  # noqa: E402  (beside this script)

QUICK_FILES = ["ca-GrQc.mtx", "bcsstk21.mtx", "lp_ship04l.mtx"]
QUICK_RMAT = "rmat:12:16"
BENCHMARKS = ("spgemm", "spmm", "convert")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir",
                   help="Libra build folder holding perf_tests/bench_spgemm, bench_spmm and "
                   "bench_convert")
    p.add_argument("--out", required=True, help="report folder to write")
    p.add_argument("--matrices", help="folder of real matrices (default: the executables' "
                   "configured LIBRA_BENCH_MATRICES)")
    p.add_argument("--rmat", help="R-MAT specs instead of the executables' default R-MATs, "
                   "e.g. rmat:16-20:16 (comma-separated)")
    p.add_argument("--quick", action="store_true",
                   default=os.environ.get("LIBRA_BENCH_QUICK", "") not in ("", "0"),
                   help="3 small matrices + " + QUICK_RMAT + " (also LIBRA_BENCH_QUICK=1)")
    p.add_argument("--only", choices=BENCHMARKS, action="append",
                   help="run only this benchmark (repeatable)")
    p.add_argument("--filter", default="", help="run only cases whose name contains this")
    p.add_argument("--skip", action="append", default=[],
                   help="skip cases whose name contains this (repeatable)")
    p.add_argument("--repetitions", type=int, default=5, help="repetitions per case (median)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per case")
    p.add_argument("--time-budget", type=float, default=0,
                   help="stop starting cases after this many seconds (0: no limit); "
                   "cases left are 'not run', to be finished with --resume")
    p.add_argument("--resume", help="an earlier results.json: its finished cases are kept")
    p.add_argument("--one-process", choices=BENCHMARKS, action="append", default=[],
                   help="run this benchmark's cases one process per matrix (repeatable)")
    p.add_argument("--min-time", type=float, default=0,
                   help="Google Benchmark's --benchmark_min_time per repetition, in "
                   "seconds (0: its default, 0.5 s)")
    p.add_argument("--title", default="", help="report title (e.g. the machine's role)")
    p.add_argument("--render-only", metavar="RESULTS_JSON",
                   help="run nothing: write the tables and charts of this results.json")
    args = p.parse_args()
    if not args.build_dir and not args.render_only:
        p.error("--build-dir is required unless --render-only is given")
    return args


def matrix_specs(args):
    """The --libra_matrices list to pass, or None for the executables' defaults."""
    if args.quick:
        folder = Path(args.matrices) if args.matrices else default_matrix_folder()
        if folder is None:
            sys.exit("run_report: --quick needs --matrices (no shared matrices folder found)")
        return [str(folder / f) for f in QUICK_FILES] + [args.rmat or QUICK_RMAT]
    if not args.matrices and not args.rmat:
        return None
    # --rmat replaces the executables' R-MAT graphs, not their real matrices.
    folder = args.matrices or default_matrix_folder()
    specs = [str(folder)] if folder else []
    return specs + (args.rmat.split(",") if args.rmat else [])


def default_matrix_folder():
    root = Path(__file__).resolve().parents[2]
    for folder in (root / "shared" / "matrices", root.parent / "shared" / "matrices"):
        if folder.is_dir():
            return folder
    return None


def executable(build_dir, bench):
    exe = Path(build_dir) / "perf_tests" / ("bench_" + bench)
    if not exe.is_file():
        sys.exit(f"run_report: {exe} does not exist (build the target bench_{bench})")
    return exe


def base_command(exe, args, specs):
    cmd = [str(exe), f"--libra_repetitions={args.repetitions}"]
    if args.min_time > 0:
        cmd.append(f"--benchmark_min_time={args.min_time}")
    if specs is not None:
        cmd.append("--libra_matrices=" + ",".join(specs))
    return cmd


def list_cases(exe, args, specs):
    out = subprocess.run(base_command(exe, args, specs) + ["--benchmark_list_tests"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"run_report: listing {exe.name} failed:\n{out.stdout}{out.stderr}")
    return [line.strip() for line in out.stdout.splitlines() if line.count("/") >= 2]


def regex_exact(name):
    """Google Benchmark's filter is a regular expression searched in the name."""
    special = set(".^$|()[]{}*+?\\")
    return "^" + "".join("\\" + c if c in special else c for c in name) + "$"


def case_parts(name):
    """'spgemm/ca-GrQc/libra_outer/repeats:5/manual_time' -> ('ca-GrQc', 'libra_outer');
    'spmm/ca-GrQc/K8/libra_spmm/...' -> ('ca-GrQc', 'K8/libra_spmm')."""
    parts = name.split("/")
    if parts[0] == "spmm":
        return parts[1], parts[2] + "/" + parts[3]
    return parts[1], parts[2]


def status_of_error(message):
    for status in ("wrong", "oom", "overflow", "error"):
        if message.startswith(status + ":"):
            return status
    return "error"


def parse_label(label):
    fields = {}
    for item in (label or "").split(";"):
        if "=" in item:
            key, value = item.split("=", 1)
            fields[key] = value
    return fields


STANDARD_KEYS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
                 "repetitions", "repetition_index", "threads", "aggregate_name",
                 "aggregate_unit", "iterations", "real_time", "cpu_time", "time_unit", "label",
                 "error_occurred", "error_message"}


def result_from_json(case, data):
    runs = [b for b in data.get("benchmarks", []) if b.get("run_name", b["name"]) == case]
    errors = [b for b in runs if b.get("error_occurred")]
    if errors:
        message = errors[0].get("error_message", "")
        return {"status": status_of_error(message), "message": message,
                "label": parse_label(errors[0].get("label"))}
    median = next((b for b in runs if b.get("aggregate_name") == "median"), None)
    if median is None:
        return {"status": "error", "message": "no median in the benchmark output"}
    cv = next((b for b in runs if b.get("aggregate_name") == "cv"), None)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[median.get("time_unit", "ms")]
    return {"status": "ok", "median_ms": median["real_time"] * scale,
            "cv_percent": cv["real_time"] * 100 if cv else None,
            "counters": {k: v for k, v in median.items() if k not in STANDARD_KEYS},
            "label": parse_label(median.get("label"))}


def first_error_message(stdout):
    """The first error a case reported on stdout (JSON) before its process died: a
    CUDA error caught as an exception often kills the process only at teardown."""
    match = re.search(r'"error_message": ("(?:[^"\\]|\\.)*")', stdout)
    return "reported before dying: " + json.loads(match.group(1)) if match else ""


def run_case(exe, args, specs, case, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "out.json"
        cmd = base_command(exe, args, specs) + [
            "--benchmark_filter=" + regex_exact(case), "--benchmark_format=json",
            f"--benchmark_out={out_file}", "--benchmark_out_format=json"]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  check=False)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "message": f"killed after {timeout:.0f} s"}, None
        seconds = time.monotonic() - start
        tail = (first_error_message(proc.stdout) + "\n" + proc.stderr[-2000:]).strip()
        if proc.returncode < 0:
            sig = signal.Signals(-proc.returncode).name
            return {"status": f"crash ({sig})", "message": tail, "seconds": seconds}, None
        try:
            data = json.loads(out_file.read_text())
        except (OSError, ValueError):
            return {"status": f"crash (exit {proc.returncode})", "message": tail,
                    "seconds": seconds}, None
        result = result_from_json(case, data)
        result["seconds"] = seconds
        if proc.returncode != 0 and result["status"] == "ok":
            result["status"] = f"crash (exit {proc.returncode})"
            result["message"] = tail
        return result, data.get("context")


def run_together(exe, args, specs, cases, timeout):
    """Runs `cases` in one process: their results, in order, and the run's context."""
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "out.json"
        cmd = base_command(exe, args, specs) + [
            "--benchmark_filter=" + "|".join(regex_exact(c) for c in cases),
            "--benchmark_format=json", f"--benchmark_out={out_file}",
            "--benchmark_out_format=json"]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  check=False)
            failure = "crash" if proc.returncode != 0 else "error"
            tail = proc.stderr[-2000:].strip()
        except subprocess.TimeoutExpired:
            failure, tail = "timeout", f"killed after {timeout:.0f} s"
        seconds = (time.monotonic() - start) / max(len(cases), 1)
        try:
            data = json.loads(out_file.read_text())
        except (OSError, ValueError):
            data = {}
        finished = {b.get("run_name", b["name"]) for b in data.get("benchmarks", [])}
        results = []
        for case in cases:
            if case in finished:
                result = result_from_json(case, data)
            else:
                result = {"status": failure,
                          "message": tail or "no result in the benchmark output"}
            result["seconds"] = seconds
            results.append(result)
        return results, data.get("context")


def main():
    args = parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.render_only:
        report_tables.write_reports(json.loads(Path(args.render_only).read_text()), out)
        return
    os.environ.setdefault("OMP_PROC_BIND", "spread")
    os.environ.setdefault("OMP_PLACES", "threads")
    specs = matrix_specs(args)
    previous = {}
    contexts = {}
    if args.resume and Path(args.resume).is_file():
        old = json.loads(Path(args.resume).read_text())
        previous = {c["case"]: c for c in old.get("cases", []) if c["status"] != "not run"}
        contexts = old.get("contexts", {})
    start = time.monotonic()
    cases = []

    def record(bench, entry, result, context):
        """A case's result into `cases` (and the run's context), one line printed."""
        if context:
            contexts.setdefault(bench, context)
            entry["machine"] = report_tables.machine_of(context)
        entry.update(result)
        cases.append(entry)
        print(f"{entry['case']}: {entry['status']}"
              + (f" {entry['median_ms']:.3f} ms" if "median_ms" in entry else "")
              + (f" ({entry['message'][:200]})" if entry["status"] != "ok" else ""),
              flush=True)

    for bench in args.only or BENCHMARKS:
        exe = executable(args.build_dir, bench)
        together = []
        for case in list_cases(exe, args, specs):
            if any(s in case for s in args.skip):
                continue
            if args.filter and args.filter not in case:
                continue
            matrix, variant = case_parts(case)
            entry = {"benchmark": bench, "case": case, "matrix": matrix, "variant": variant}
            if case in previous:
                cases.append(previous[case])
                continue
            left = args.time_budget - (time.monotonic() - start) if args.time_budget else None
            if left is not None and left <= 0:
                entry.update(status="not run", message="time budget spent")
                cases.append(entry)
                continue
            if bench in args.one_process:
                together.append(entry)
                continue
            timeout = args.timeout if left is None else min(args.timeout, left)
            result, context = run_case(exe, args, specs, case, timeout)
            if result["status"] == "timeout" and left is not None and timeout < args.timeout:
                result = {"status": "not run", "message": "time budget spent during the case"}
            record(bench, entry, result, context)
        for matrix in dict.fromkeys(e["matrix"] for e in together):
            group = [e for e in together if e["matrix"] == matrix]
            left = args.time_budget - (time.monotonic() - start) if args.time_budget else None
            if left is not None and left <= 0:
                for entry in group:
                    entry.update(status="not run", message="time budget spent")
                cases += group
                continue
            timeout = args.timeout if left is None else min(args.timeout, left)
            results, context = run_together(exe, args, specs, [e["case"] for e in group],
                                            timeout)
            for entry, result in zip(group, results):
                record(bench, entry, result, context)
    listed = {c["case"] for c in cases}
    cases += [c for name, c in previous.items() if name not in listed]
    results = {"generated": datetime.datetime.now().isoformat(timespec="seconds"),
               "title": args.title, "build_dir": str(Path(args.build_dir).resolve()),
               "matrices": specs, "repetitions": args.repetitions,
               "contexts": contexts, "one_process": args.one_process, "cases": cases}
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    report_tables.write_reports(results, out)
    print(f"run_report: wrote {out}/results.json, spgemm.md/.png, spmm.md, "
          "convert.md/.png")


if __name__ == "__main__":
    main()
