"""Markdown tables and bar charts from run_report.py's results (standard library +
matplotlib; the charts are skipped with a warning when matplotlib is missing)."""
import sys
from pathlib import Path

SPGEMM_ORDER = ["libra_auto", "libra_panel", "libra_panel_unsorted", "libra_outer",
                "libra_outer_unsorted", "kokkos_kernels", "cusparse"]
LIBRA_VARIANTS = ("libra_auto", "libra_panel", "libra_panel_unsorted", "libra_outer",
                  "libra_outer_unsorted")
# The comparisons of the headline and the ratio columns, (mine, theirs), where both
# ran: what a user gets (auto, sorted rows) against each baseline; Libra with
# sort_columns = false against Kokkos Kernels, which leaves C's rows unsorted
# (like for like); and the panel algorithm against lbGEMM.
SPGEMM_PAIRS = [("libra_auto", "cusparse"), ("libra_auto", "kokkos_kernels"),
                ("libra_panel_unsorted", "kokkos_kernels"), ("libra_panel", "libra_outer")]
# `auto` must be within 10% of the best Libra algorithm on every matrix.
AUTO_SLACK = 1.10
SPMM_ORDER = ["libra_spmm", "libra_spmm_left", "libra_spmm_staged", "kokkos_kernels",
              "cusparse"]
# Libra's SpMM case compared with each baseline, in the layout the baseline takes:
# Kokkos Kernels' multivector is LayoutLeft, cuSPARSE runs row-major (LayoutRight).
SPMM_AGAINST = {"kokkos_kernels": "libra_spmm_left", "cusparse": "libra_spmm"}
CONVERT_ORDER = ["csr_to_csc", "transpose", "coo_to_csr", "csr_to_ell", "deep_copy"]


def short_status(case):
    """'ok', 'crash', 'wrong', 'oom', 'overflow', 'error', 'timeout' or 'not run'."""
    return "not run" if case["status"] == "not run" else case["status"].split(" ")[0]


def num(x, digits=3):
    if x is None:
        return "?"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}" if abs(x) < 10 ** digits else f"{x:,.0f}"


def count(x):
    return "?" if x is None else f"{int(round(x)):,}"


def load_average(ctx):
    load = ctx.get("load_avg")
    return ", ".join(f"{x:.2f}" for x in load) if isinstance(load, list) else "?"


def machine_of(context):
    """The device a case ran on: the GPU when there is one, else the host's CPU."""
    if "cuda_device" in context:
        return context["cuda_device"]
    return f"{context.get('cpu_model', '?')} ({context.get('host_name', '?')})"


def mixed_machines(results, what):
    """A warning line when --resume merged cases run on different machines."""
    counts = {}
    for c in results["cases"]:
        if c["benchmark"] == what and c.get("machine"):
            counts[c["machine"]] = counts.get(c["machine"], 0) + 1
    if len(counts) < 2:
        return []
    parts = ", ".join(f"{n} on {m}" for m, n in counts.items())
    return [f"- **Cases from different machines** (merged with --resume): {parts}; "
            "compare times only within one machine (results.json names each case's)"]


def header(results, what):
    ctx = results["contexts"].get(what) or next(iter(results["contexts"].values()), {})
    lines = [f"# Libra {what} benchmark" + (f": {results['title']}" if results["title"] else ""),
             ""]
    if not ctx:
        return lines + ["(no benchmark context: no case produced output)", ""]
    cpu = f"{ctx.get('cpu_model', '?')}, {ctx.get('num_cpus', '?')} CPUs"
    lines.append(f"- Machine: {ctx.get('host_name', '?')}: {cpu}")
    if "cuda_device" in ctx:
        lines.append(f"- GPU: {ctx['cuda_device']} (compute capability "
                     f"{ctx.get('cuda_compute_capability', '?')}, "
                     f"{num(float(ctx.get('cuda_memory_GiB', 0)))} GiB), CUDA runtime "
                     f"{ctx.get('cuda_runtime_version', '?')}, driver "
                     f"{ctx.get('cuda_driver_version', '?')}")
    lines.append(f"- Kokkos {ctx.get('kokkos_version', '?')} (backends "
                 f"{ctx.get('kokkos_backends', '?')}; default execution space "
                 f"{ctx.get('kokkos_default_execution_space', '?')}, concurrency "
                 f"{ctx.get('kokkos_concurrency', '?')}; {ctx.get('omp_env', '')}), "
                 f"Kokkos Kernels {ctx.get('kokkos_kernels_version', '?')}")
    lines.append(f"- Libra {ctx.get('libra_version', '?')}, git {ctx.get('libra_git_hash', '?')}"
                 f", {ctx.get('build_type', '?')} build, {ctx.get('compiler', '?')}")
    where = ("one process per matrix" if what in results.get("one_process", [])
             else "each case in its own process")
    lines.append(f"- Run {ctx.get('date', results['generated'])}, median of "
                 f"{results['repetitions']} repetitions per case, {where}; "
                 f"load average at start {load_average(ctx)}")
    notes = [f"- {n}" for n in results.get("notes", {}).get(what, [])]
    return lines + notes + mixed_machines(results, what) + [""]


def by_matrix(cases, bench):
    """matrix -> {variant: case}, in the order the cases ran."""
    table = {}
    for c in cases:
        if c["benchmark"] == bench:
            table.setdefault(c["matrix"], {})[c["variant"]] = c
    return table


def matrix_info(variants):
    """kind, rows, nnz(A), products and nnz(C) from whichever case knows them."""
    info = {}
    for c in variants.values():
        label = c.get("label", {})
        counters = c.get("counters", {})
        info.setdefault("kind", label.get("kind"))
        for key in ("rows", "nnz_A", "products", "nnz_C"):
            value = counters.get(key, label.get(key))
            if value is not None and info.get(key) is None:
                info[key] = float(value)
    return info


def failures_section(cases):
    bad = [c for c in cases if c["status"] != "ok"]
    if not bad:
        return []
    lines = ["", "Cases without a time:", ""]
    for c in bad:
        message = " ".join(c.get("message", "").split())[:300]
        if not message.startswith(c["status"]):
            message = c["status"] + (f": {message}" if message else "")
        lines.append(f"- `{c['case']}`: {message}")
    return lines


def geomean(xs):
    import math
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def spgemm_ratios(table, algs):
    """"mine vs theirs" -> (mine, theirs, [(matrix, speed ratio, memory ratio)])."""
    out = {}
    for mine, b in SPGEMM_PAIRS:
        if mine not in algs or b not in algs:
            continue
        rows = []
        for matrix, variants in table.items():
            x, y = variants.get(mine), variants.get(b)
            if not (x and y and x["status"] == "ok" and y["status"] == "ok"):
                continue
            rx, ry = x["counters"].get("GFLOP/s"), y["counters"].get("GFLOP/s")
            mx, my = x["counters"].get("peak_MB"), y["counters"].get("peak_MB")
            if rx and ry:
                rows.append((matrix, rx / ry, mx / my if mx and my else None))
        out[f"{mine}/{b}"] = (mine, b, rows)
    return out


def auto_vs_best(table):
    """[(matrix, auto time / best Libra algorithm's time, best)] where auto ran."""
    out = []
    for matrix, v in table.items():
        a = v.get("libra_auto")
        if not a or a["status"] != "ok":
            continue
        others = [(v[k]["median_ms"], k) for k in ("libra_panel", "libra_outer")
                  if v.get(k) and v[k]["status"] == "ok"]
        if others:
            best = min(others)
            out.append((matrix, a["median_ms"] / best[0], best[1]))
    return out


def spgemm_headline(table, algs):
    """The summary on top: per baseline, the geometric mean speed ratio, wins,
    extremes and the memory ratio, from the same run as the tables below."""
    lines = ["## Headline", ""]
    for mine, b, rows in spgemm_ratios(table, algs).values():
        failed = [m for m, v in table.items()
                  if v.get(b) and v[b]["status"] != "ok"]
        if not rows:
            lines.append(f"- **{mine} vs {b}**: no matrix where both produced a checked "
                         f"result ({b} failed on {len(failed)})")
            continue
        speed = geomean([r for _, r, _ in rows])
        wins = sum(1 for _, r, _ in rows if r >= 1)
        lo = min(rows, key=lambda t: t[1])
        hi = max(rows, key=lambda t: t[1])
        mem = [m for _, _, m in rows if m]
        mem_text = (f"; peak memory {num(geomean(mem), 2)}x {b}'s (geometric mean)"
                    if mem else "")
        fail_text = (f"; {b} gave no checked result on {len(failed)} more "
                     f"({', '.join(f'`{m}`' for m in failed[:6])}"
                     f"{', ...' if len(failed) > 6 else ''})" if failed else "")
        lines.append(f"- **{mine} vs {b}**: {num(speed, 2)}x the speed (geometric mean over "
                     f"{len(rows)} matrices; faster on {wins}), from {num(lo[1], 2)}x "
                     f"(`{lo[0]}`) to {num(hi[1], 2)}x (`{hi[0]}`){mem_text}{fail_text}")
    auto = auto_vs_best(table)
    if auto:
        slow = [(m, r, k) for m, r, k in auto if r > AUTO_SLACK]
        worst = max(auto, key=lambda t: t[1])
        text = (f"- **libra_auto vs the best Libra algorithm**: within {round((AUTO_SLACK - 1) * 100)}% "
                f"on {len(auto) - len(slow)} of {len(auto)} matrices (worst {num(worst[1], 2)}x "
                f"the best's time, `{worst[0]}`)")
        if slow:
            text += "; not within on " + ", ".join(f"`{m}` ({num(r, 2)}x {k})" for m, r, k in slow)
        lines.append(text)
    return lines + [""]


def spgemm_markdown(results):
    cases = results["cases"]
    table = by_matrix(cases, "spgemm")
    algs = [a for a in SPGEMM_ORDER if any(a in v for v in table.values())]
    ratios = spgemm_ratios(table, algs)
    lines = header(results, "spgemm")
    lines += spgemm_headline(table, algs)
    lines += ["C = A·A (A·Aᵀ for a rectangular A) in double precision with 32-bit indices. "
              "Times include what a one-shot caller pays: handles, the symbolic phase, "
              "work buffers and C's allocation. GFLOP/s = 2·products / time. Every result "
              "was checked before it was timed (against the reference oracle for files; "
              "for R-MAT against Libra's result, and Libra's own by C·x = A·(B·x)); "
              "\"wrong\" marks a result that failed the check, \"crash\" a process that "
              "died, \"oom\" a failed allocation, \"overflow\" an nnz(C) beyond 32-bit "
              "offsets. `libra_auto` is what a user gets (SpgemmOptions defaults, sorted "
              "rows); `libra_panel` and `libra_outer` name an algorithm; the `_unsorted` "
              "cases set sort_columns = false (rows of C in any order, as Kokkos Kernels "
              "leaves them; host spaces only). A/B = A's GFLOP/s over B's (above 1: A is "
              "faster).", ""]
    head = ["matrix", "kind", "nnz(A)", "products", "nnz(C)"]
    for a in algs:
        head += [f"{a} ms", f"{a} GFLOP/s"]
    head += list(ratios)
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for matrix, variants in table.items():
        info = matrix_info(variants)
        row = [f"`{matrix}`", info.get("kind") or "?", count(info.get("nnz_A")),
               count(info.get("products")), count(info.get("nnz_C"))]
        for a in algs:
            c = variants.get(a)
            if c is None:
                row += ["", ""]
            elif c["status"] == "ok":
                alg = c.get("label", {}).get("cusparse")
                note = f" ({alg})" if alg and alg != "ALG1" else ""
                row += [num(c["median_ms"]), num(c["counters"].get("GFLOP/s")) + note]
            else:
                row += [short_status(c), short_status(c)]
        for _, _, rows in ratios.values():
            r = next((r for m, r, _ in rows if m == matrix), None)
            row.append(num(r, 2) if r else "")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Peak memory of the checked call, MB: what it allocated beyond A and B, C "
              "included (device memory on a GPU, host memory on host spaces). Libra and "
              "Kokkos Kernels: measured from Kokkos' allocation records, Libra's block "
              "cache emptied first; cuSPARSE: its buffers and C, as the wrapper allocated "
              "them.", ""]
    head = ["matrix"] + algs + [f"{k} memory" for k in ratios]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for matrix, variants in table.items():
        row = [f"`{matrix}`"]
        for a in algs:
            c = variants.get(a)
            peak = c["counters"].get("peak_MB") if c and c["status"] == "ok" else None
            row.append(num(peak) if peak is not None else (short_status(c) if c else ""))
        for _, _, rows in ratios.values():
            m = next((m for mm, _, m in rows if mm == matrix), None)
            row.append(num(m, 2) if m else "")
        lines.append("| " + " | ".join(row) + " |")
    lines += failures_section([c for c in cases if c["benchmark"] == "spgemm"])
    return "\n".join(lines) + "\n"


def spmm_table(cases):
    """(matrix, K) -> {algorithm: case}; the variants of bench_spmm are 'K<k>/<algo>'."""
    table = {}
    for c in cases:
        if c["benchmark"] == "spmm":
            k, alg = c["variant"].split("/", 1)
            table.setdefault((c["matrix"], int(k[1:])), {})[alg] = c
    return table


def spmm_headline(ratios):
    """Per baseline: Libra's time over the baseline's, overall and per K."""
    lines = ["## Headline", ""]
    for b, rs in ratios.items():
        if not rs:
            continue
        mine = SPMM_AGAINST[b]
        lines.append(f"- **{mine} / {b}** (time; below 1: Libra faster): geometric mean "
                     f"{num(geomean([r for _, _, r in rs]))} over {len(rs)} (matrix, K) "
                     f"pairs, Libra faster on {sum(r < 1 for _, _, r in rs)}")
        for k in sorted({k for _, k, _ in rs}):
            ks = [(m, r) for m, kk, r in rs if kk == k]
            best = min(ks, key=lambda x: x[1])
            worst = max(ks, key=lambda x: x[1])
            lines.append(f"  - K = {k}: {num(geomean([r for _, r in ks]))} over {len(ks)}, "
                         f"from {num(best[1])} (`{best[0]}`) to {num(worst[1])} "
                         f"(`{worst[0]}`)")
    return lines + [""] if len(lines) > 2 else []


def spmm_markdown(results):
    cases = results["cases"]
    table = spmm_table(cases)
    algs = [a for a in SPMM_ORDER if any(a in v for v in table.values())]
    ratio_cols = [b for b in SPMM_AGAINST if b in algs]
    head = (["matrix", "kind", "rows", "nnz(A)", "K"] + algs +
            [f"{SPMM_AGAINST[b]} / {b}" for b in ratio_cols] + ["peak MB (libra_spmm)"])
    body = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios = {b: [] for b in ratio_cols}
    for (matrix, k), variants in table.items():
        info = matrix_info(variants)
        row = [f"`{matrix}`", info.get("kind") or "?", count(info.get("rows")),
               count(info.get("nnz_A")), str(k)]
        for a in algs:
            c = variants.get(a)
            if c is None:
                row.append("")
            elif c["status"] == "ok":
                row.append(f"{num(c['counters'].get('GFLOP/s'))} ({num(c['median_ms'])} ms)")
            else:
                row.append(short_status(c))
        for b in ratio_cols:
            mine, theirs = variants.get(SPMM_AGAINST[b]), variants.get(b)
            if mine and theirs and mine["status"] == "ok" and theirs["status"] == "ok":
                r = mine["median_ms"] / theirs["median_ms"]
                ratios[b].append((matrix, k, r))
                row.append(num(r))
            else:
                row.append("")
        lib = variants.get("libra_spmm")
        row.append(num(lib["counters"].get("peak_MB")) if lib and lib["status"] == "ok" else "")
        body.append("| " + " | ".join(row) + " |")
    lines = header(results, "spmm") + spmm_headline(ratios)
    lines += ["Y = A * X with X dense (K columns), GFLOP/s = 2 nnz(A) K / time, with the "
              "median time in parentheses. libra_spmm takes LayoutRight X and Y, "
              "libra_spmm_left LayoutLeft; libra_spmm_staged forces the dense-column "
              "staging on (GPU builds). kokkos_kernels is KokkosSparse::spmv with a "
              "LayoutLeft multivector, cusparse cusparseSpMM on row-major X and Y. Every "
              "result was checked against the reference oracle before it was timed. "
              "Ratios: Libra's time in the baseline's layout over the baseline's "
              "(below 1: Libra faster).", ""]
    lines += body
    lines += failures_section([c for c in cases if c["benchmark"] == "spmm"])
    return "\n".join(lines) + "\n"


def convert_markdown(results):
    cases = results["cases"]
    table = by_matrix(cases, "convert")
    ops = [o for o in CONVERT_ORDER if any(o in v for v in table.values())]
    lines = header(results, "convert")
    lines += ["Libra's conversions in GB/s (the least traffic: input read and output written "
              "once), with the median time in parentheses. deep_copy copies A's three arrays "
              "with Kokkos::deep_copy: the bandwidth reference. Kokkos Kernels 3.4 has no "
              "public equivalent of these conversions (its sort and transpose are "
              "KokkosKernels::Impl), so no baseline is shown. Each result was checked "
              "against host code before it was timed.", ""]
    head = ["matrix", "kind", "rows", "nnz(A)"] + ops
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for matrix, variants in table.items():
        info = matrix_info(variants)
        row = [f"`{matrix}`", info.get("kind") or "?", count(info.get("rows")),
               count(info.get("nnz_A"))]
        for o in ops:
            c = variants.get(o)
            if c is None:
                row.append("")
            elif c["status"] == "ok":
                row.append(f"{num(c['counters'].get('GB/s'))} ({num(c['median_ms'])} ms)")
            else:
                row.append(short_status(c))
        lines.append("| " + " | ".join(row) + " |")
    lines += failures_section([c for c in cases if c["benchmark"] == "convert"])
    return "\n".join(lines) + "\n"


def bar_chart(table, variants, counter, ylabel, title, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"report: matplotlib is missing, {path.name} not drawn", file=sys.stderr)
        return
    matrices = list(table)
    if not matrices or not variants:
        return
    fig, ax = plt.subplots(figsize=(min(18.0, max(8.0, 0.3 * len(matrices) * len(variants))),
                                    5.5))
    width = 0.8 / len(variants)
    values = [c["counters"].get(counter) for v in table.values() for c in v.values()
              if c["status"] == "ok" and c["counters"].get(counter)]
    floor = min(values) / 3 if values else 1e-3
    for k, variant in enumerate(variants):
        xs, ys = [], []
        for i, matrix in enumerate(matrices):
            c = table[matrix].get(variant)
            x = i - 0.4 + width * (k + 0.5)
            if c is None:
                continue
            value = c.get("counters", {}).get(counter) if c["status"] == "ok" else None
            if value:
                xs.append(x)
                ys.append(value)
            else:  # no bar: say why at its foot
                ax.text(x, floor * 1.1, short_status(c), rotation=90, ha="center",
                        va="bottom", fontsize=6, color="red")
        ax.bar(xs, ys, width, label=variant)
    ax.set_yscale("log")
    ax.set_ylim(floor, max(values) * 2 if values else 1.0)
    ax.set_xlim(-0.6, len(matrices) - 0.4)
    ax.set_xticks(range(len(matrices)))
    ax.set_xticklabels(matrices, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def chart_title(results, what):
    ctx = results["contexts"].get(what) or next(iter(results["contexts"].values()), {})
    where = ctx.get("cuda_device") or ctx.get("cpu_model", "")
    return (f"Libra {what} ({ctx.get('kokkos_default_execution_space', '?')}, {where}, "
            f"git {ctx.get('libra_git_hash', '?')})")


def write_reports(results, out):
    out = Path(out)
    spgemm = by_matrix(results["cases"], "spgemm")
    if spgemm:
        (out / "spgemm.md").write_text(spgemm_markdown(results))
        algs = [a for a in SPGEMM_ORDER if any(a in v for v in spgemm.values())]
        bar_chart(spgemm, algs, "GFLOP/s", "GFLOP/s (log)", chart_title(results, "spgemm"),
                  out / "spgemm.png")
    if spmm_table(results["cases"]):
        (out / "spmm.md").write_text(spmm_markdown(results))
    convert = by_matrix(results["cases"], "convert")
    if convert:
        (out / "convert.md").write_text(convert_markdown(results))
        ops = [o for o in CONVERT_ORDER if any(o in v for v in convert.values())]
        bar_chart(convert, ops, "GB/s", "GB/s (log)", chart_title(results, "convert"),
                  out / "convert.png")
