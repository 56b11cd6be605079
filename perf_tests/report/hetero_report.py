#!/usr/bin/env python3
"""Report of bench_hetero (heterogeneous SpGEMM beside each side alone) from its
Google Benchmark JSON (--benchmark_out=FILE --benchmark_out_format=json):

  hetero_report.py RESULTS.json [MORE.json ...] --out DIR --title TITLE

  hetero_report.py RESULTS.json ... --cli TOOL.json ... --out DIR

writes DIR/hetero.md (headline, per-matrix table, R sweep table) and two SVG
charts drawn without dependencies: DIR/hetero_times.svg (time per matrix of
GPU-only, CPU-only and heterogeneous) and DIR/hetero_sweep.svg (time against R,
relative to each matrix's best R). Medians of the repetitions; a case that did
not run shows its error. --cli adds a table of products too large for
bench_hetero's per-case check, from `libra spgemm --generate ... --json` runs:
`--algo auto` (GPU only, C left on the device) and `--algo hetero` with
--gpu-share 1, --gpu-share 0 and calibrated.
"""
import argparse
import json
import math
import pathlib
import re

SIDES = ["gpu_only", "gpu_only_host_inputs", "cpu_only", "hetero", "hetero_kept",
         "hetero_device_inputs"]


def read_results(path):
    """The JSON of a run; one stopped by its time limit (the file ends inside the
    benchmarks array) is closed after its last complete case."""
    text = pathlib.Path(path).read_text()
    try:
        return json.loads(text), False
    except json.JSONDecodeError:
        cut = text.rfind("\n    },")
        if cut < 0:
            raise
        return json.loads(text[:cut] + "\n    }\n  ]\n}\n"), True


TRUNCATED = []


def load(paths):
    cases, context = {}, {}
    for path in paths:
        data, cut = read_results(path)
        if cut:
            TRUNCATED.append(path)
        context = data.get("context", context)
        for b in data["benchmarks"]:
            m = re.match(r"hetero/([^/]+)/([A-Za-z0-9_.]+)/", b["name"])
            if not m:
                continue
            key = (m.group(1), m.group(2))
            if b.get("error_occurred"):
                cases.setdefault(key, {"error": b.get("error_message", "error")})
                continue
            if b.get("aggregate_name") != "median":
                continue
            scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b.get("time_unit", "ms")]
            c = {"ms": b["real_time"] * scale}
            for k in ("GFLOP/s", "R", "K", "panels", "overlap", "out_of_core", "calib_ms",
                      "device_ms", "device_compute_ms", "copy_out_ms", "transfer_ms",
                      "host_ms", "assemble_ms"):
                if k in b:
                    c[k] = b[k]
            cases[key] = c
    return cases, context


def ms(c):
    if c is None:
        return "—"
    if "error" in c:
        return c["error"][:40]
    return f"{c['ms']:.3g}"


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def sweep_of(cases, matrix):
    pts = []
    for (m, v), c in cases.items():
        if m == matrix and v.startswith("R") and "ms" in c:
            pts.append((float(v[1:]), c["ms"]))
    return sorted(pts)


def svg_lines(series, path, xlabel, ylabel, title):
    """series: {name: [(x, y), ...]}; a plain SVG line chart."""
    W, H, L, B, T, Rm = 760, 420, 70, 50, 40, 190
    xs = [x for s in series.values() for x, _ in s]
    ys = [y for s in series.values() for _, y in s]
    if not xs:
        return
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(1.0, min(ys)), max(ys)
    sx = lambda x: L + (x - x0) / ((x1 - x0) or 1) * (W - L - Rm)
    sy = lambda y: H - B - (y - y0) / ((y1 - y0) or 1) * (H - B - T)
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="12">',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
           f'<line x1="{L}" y1="{H - B}" x2="{W - Rm}" y2="{H - B}" stroke="black"/>',
           f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>',
           f'<text x="{(L + W - Rm) / 2}" y="{H - 12}" text-anchor="middle">{xlabel}</text>',
           f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 {(T + H - B) / 2})" '
           f'text-anchor="middle">{ylabel}</text>']
    for i in range(6):
        x = x0 + (x1 - x0) * i / 5
        y = y0 + (y1 - y0) * i / 5
        out.append(f'<text x="{sx(x)}" y="{H - B + 16}" text-anchor="middle">{x:.2f}</text>')
        out.append(f'<text x="{L - 6}" y="{sy(y) + 4}" text-anchor="end">{y:.2f}</text>')
    for i, (name, pts) in enumerate(series.items()):
        col = colors[i % len(colors)]
        d = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
        out.append(f'<polyline fill="none" stroke="{col}" stroke-width="2" points="{d}"/>')
        out.append(f'<text x="{W - Rm + 10}" y="{T + 16 * i}" fill="{col}">{name}</text>')
    out.append("</svg>")
    pathlib.Path(path).write_text("\n".join(out) + "\n")


def svg_bars(rows, labels, path, title):
    """rows: [(matrix, [value per label])]; grouped bars on a log scale (ms)."""
    W, H, L, B, T = max(760, 60 * len(rows) + 120), 440, 70, 120, 40
    vals = [v for _, vs in rows for v in vs if v and v > 0]
    if not vals:
        return
    lo, hi = math.log10(min(vals)) - 0.1, math.log10(max(vals)) + 0.1
    sy = lambda v: H - B - (math.log10(v) - lo) / (hi - lo) * (H - B - T)
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
    group = (W - L - 20) / len(rows)
    bw = group * 0.8 / len(labels)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
           f'<line x1="{L}" y1="{H - B}" x2="{W - 20}" y2="{H - B}" stroke="black"/>']
    for e in range(math.ceil(lo), math.floor(hi) + 1):
        out.append(f'<text x="{L - 6}" y="{sy(10 ** e) + 4}" text-anchor="end">{10 ** e:g} ms</text>')
        out.append(f'<line x1="{L}" y1="{sy(10 ** e)}" x2="{W - 20}" y2="{sy(10 ** e)}" '
                   'stroke="#ddd"/>')
    for g, (name, vs) in enumerate(rows):
        x = L + g * group + group * 0.1
        for i, v in enumerate(vs):
            if v and v > 0:
                out.append(f'<rect x="{x + i * bw:.1f}" y="{sy(v):.1f}" width="{bw:.1f}" '
                           f'height="{H - B - sy(v):.1f}" fill="{colors[i % 4]}"/>')
        cx = x + bw * len(vs) / 2
        out.append(f'<text x="{cx:.1f}" y="{H - B + 10}" transform="rotate(45 {cx:.1f} '
                   f'{H - B + 10})">{name}</text>')
    for i, lab in enumerate(labels):
        out.append(f'<rect x="{L + 10 + 170 * i}" y="{T - 8}" width="10" height="10" '
                   f'fill="{colors[i % 4]}"/><text x="{L + 24 + 170 * i}" y="{T + 1}">{lab}</text>')
    out.append("</svg>")
    pathlib.Path(path).write_text("\n".join(out) + "\n")


def cli_way(d):
    """Which of the four runs a `libra spgemm --json` output is."""
    if d.get("algo") != "hetero":
        return "auto"
    h = d["hetero"]
    if h.get("calibrated"):
        return "cal"
    return "r1" if h.get("gpu_share") == 1.0 else "r0" if h.get("gpu_share") == 0.0 else None


def cli_table(paths):
    """Rows per product (R-MAT scale) of the tool's runs: seconds are the tool's
    median over --repeat calls, beside GFLOP/s, R, K, the calibration's seconds
    and the copies hidden of the calibrated run (its last call)."""
    runs = {}
    for path in paths:
        d = json.loads(pathlib.Path(path).read_text())
        way = cli_way(d)
        if way:
            runs.setdefault(d.get("generate") or d.get("a_file"), {})[way] = d
    lines, ratios = [], []
    for product, r in runs.items():
        sec = lambda w: r[w]["seconds"] if w in r else None
        cell = lambda w: f"{sec(w):.3g}" if sec(w) is not None else "—"
        ratio = "—"
        if all(sec(w) is not None for w in ("r1", "r0", "cal")):
            q = sec("cal") / min(sec("r1"), sec("r0"))
            ratios.append(q)
            ratio = f"{q:.2f}"
        any_run = next(iter(r.values()))
        h = r["cal"]["hetero"] if "cal" in r else {}
        gf = f"{r['cal']['gflops']:.2f}" if "cal" in r else "—"
        calib = f"{h['seconds_calibration']:.3g}" if "seconds_calibration" in h else "—"
        overlap = f"{h['overlap']:.0%}" if "overlap" in h else "—"
        lines.append(f"| `{product}` | {any_run['products']:.3g} | {any_run['nnz_c']:.3g} | "
                     f"{cell('auto')} | {cell('r1')} | {cell('r0')} | {cell('cal')} | {ratio} | "
                     f"{h.get('gpu_share', float('nan')):.2f} | {h.get('k', float('nan')):.2f} | "
                     f"{gf} | {calib} | {overlap} | {r['cal']['repeat'] if 'cal' in r else '—'} |")
    if not lines:
        return []
    head = ["", "## Larger products through the tool (`libra spgemm --json`, seconds)", "",
            "`libra spgemm --generate rmat:S:16 --json --repeat N`: `--algo auto` (GPU only, "
            "A, B and C on the device), `--algo hetero --gpu-share 1` (GPU only, A and B "
            "from host memory and C back there), `--gpu-share 0` (the host side alone) and "
            "calibrated. The tool's median of N calls; generating R-MAT is not timed."]
    if ratios:
        head.append("")
        head.append(f"Calibrated heterogeneous takes {geomean(ratios):.2f}x the better single "
                    f"side with host inputs (geometric mean over {len(ratios)}; at most 1.0x "
                    f"on {sum(1 for q in ratios if q <= 1.0)}).")
    head += ["", "| product | products | nnz(C) | GPU only (device, C there) | GPU only "
             "(host inputs) | host side alone | hetero | hetero / better side | R "
             "calibrated | K | hetero GFLOP/s | its calibration | copies hidden | N |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    return head + lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="Heterogeneous SpGEMM")
    ap.add_argument("--cli", nargs="*", default=[],
                    help="`libra spgemm --json` outputs of larger products")
    args = ap.parse_args()
    cases, context = load(args.results)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    matrices = []
    for m, _ in cases:
        if m not in matrices:
            matrices.append(m)
    get = lambda m, v: cases.get((m, v))

    rows, ratios, r_gaps, overlaps, dev_ratios, kept_ratios = [], [], [], [], [], []
    for m in matrices:
        g, gh, c, h = (get(m, v) for v in ("gpu_only", "gpu_only_host_inputs", "cpu_only",
                                            "hetero"))
        sweep = sweep_of(cases, m)
        # The best fixed R: the sweep's (0.5-1.0), or 0 where the host alone
        # (CPU only) beats every R of it.
        if sweep and c and "ms" in c:
            sweep = sweep + [(0.0, c["ms"])]
        best = min(sweep, key=lambda p: p[1]) if sweep else None
        cells = [ms(get(m, v)) for v in SIDES]
        ratio = "—"
        if h and gh and c and all("ms" in x for x in (h, gh, c)):
            better = min(gh["ms"], c["ms"])
            ratios.append(h["ms"] / better)
            ratio = f"{h['ms'] / better:.2f}"
        # With A and B on the device the better side is the device's own
        # SpGEMM: the host would pay both copies besides its product.
        hd = get(m, "hetero_device_inputs")
        dev_ratio = "—"
        if hd and g and "ms" in hd and "ms" in g:
            dev_ratios.append(hd["ms"] / g["ms"])
            dev_ratio = f"{hd['ms'] / g['ms']:.2f}"
        r_cal = f"{h['R']:.2f}" if h and "R" in h else "—"
        r_best = f"{best[0]:.2f}" if best else "—"
        kept = get(m, "hetero_kept")
        if best and kept and "ms" in kept:
            r_gaps.append(kept["ms"] / best[1])
        kept_ratio = "—"
        if kept and gh and c and all("ms" in x for x in (kept, gh, c)):
            better = min(gh["ms"], c["ms"])
            kept_ratios.append(kept["ms"] / better)
            kept_ratio = f"{kept['ms'] / better:.2f}"
        ov = f"{h['overlap']:.0%}" if h and "overlap" in h else "—"
        if h and h.get("transfer_ms", 0) > 0:
            overlaps.append(h["overlap"])
        rows.append(f"| `{m}` | " + " | ".join(cells) +
                    f" | {ratio} | {kept_ratio} | {dev_ratio} | {r_cal} | {r_best} | {ov} |")

    lines = [f"# {args.title}", ""]
    host = context.get("host_name", "")
    lines.append(f"bench_hetero, {context.get('date', '')} {host}; medians (ms). "
                 "Inputs in host memory unless the column says device.")
    lines.append("")
    if TRUNCATED:
        lines.append("The run was stopped by its time limit; the tables hold the cases it "
                     "finished.")
        lines.append("")
    headlines = [
        (ratios, 1.0, "**Headline:** heterogeneous (calibrated in the call, host inputs) "
         "takes {g:.2f}x the time of the better single side (GPU-only with host inputs, "
         "or CPU-only), geometric mean over {n} matrices; at most 1.0x on {k} of them."),
        (kept_ratios, 1.0, "With K kept in the handle from an earlier call (a caller's "
         "later products), heterogeneous takes {g:.2f}x the time of the better single "
         "side (geometric mean over {n} matrices; at most 1.0x on {k} of them, within "
         "1.1x on {k11})."),
        (dev_ratios, 1.1, "With A and B on the device, heterogeneous (calibrated) takes "
         "{g:.2f}x the time of the device's own SpGEMM (geometric mean over {n} "
         "matrices; within 1.1x on {k})."),
    ]
    for rs, bound, text in headlines:
        if rs:
            lines.append(text.format(g=geomean(rs), n=len(rs),
                                     k=sum(1 for r in rs if r <= bound),
                                     k11=sum(1 for r in rs if r <= 1.1)))
    if r_gaps:
        lines.append(f"With K kept from an earlier call, its time is {geomean(r_gaps):.2f}x "
                     "that of the best fixed R (the sweep's 0.5-1.0, or 0: the CPU alone) "
                     f"(geometric mean over {len(r_gaps)} matrices; within 1.1x on "
                     f"{sum(1 for r in r_gaps if r <= 1.1)}).")
    if overlaps:
        lines.append(f"Copies hidden behind compute (calibrated runs): median "
                     f"{sorted(overlaps)[len(overlaps) // 2]:.0%}.")
    lines += ["", "| matrix | GPU only (device inputs) | GPU only (host inputs) | CPU only "
              "| hetero | hetero, K kept | hetero (device inputs) | hetero / better side "
              "| hetero, K kept / better side "
              "| hetero (device inputs) / GPU only (device inputs) "
              "| R calibrated | best R (sweep or 0) | overlap |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows
    lines += cli_table(args.cli)
    lines += ["", "## R sweep (ms; host inputs)", ""]
    rs = sorted({p[0] for m in matrices for p in sweep_of(cases, m)})
    if rs:
        lines.append("| matrix | " + " | ".join(f"{r:.2f}" for r in rs) + " |")
        lines.append("|---|" + "---|" * len(rs))
        for m in matrices:
            d = dict(sweep_of(cases, m))
            lines.append(f"| `{m}` | " + " | ".join(f"{d[r]:.3g}" if r in d else "—"
                                                   for r in rs) + " |")
    lines += ["", "![times](hetero_times.svg)", "", "![sweep](hetero_sweep.svg)", ""]
    (out / "hetero.md").write_text("\n".join(lines))

    series = {}
    for m in matrices:
        pts = sweep_of(cases, m)
        if pts:
            best = min(y for _, y in pts)
            series[m] = [(x, y / best) for x, y in pts]
    svg_lines(series, out / "hetero_sweep.svg", "R (the device's share of the products)",
              "time / best time", "Heterogeneous SpGEMM: time against R")
    bars = []
    for m in matrices:
        vals = []
        for v in ("gpu_only_host_inputs", "cpu_only", "hetero", "hetero_kept"):
            c = get(m, v)
            vals.append(c["ms"] if c and "ms" in c else None)
        bars.append((m, vals))
    svg_bars(bars, ["GPU only (host inputs)", "CPU only", "hetero", "hetero, K kept"],
             out / "hetero_times.svg", "Time per matrix (ms, log scale)")


if __name__ == "__main__":
    main()
