#!/usr/bin/env python3
"""SimRank with SciPy's sparse products beside `libra simrank`, on the same graph
with the same iterations, each in its own process: time (the iterations; reading
the graph not included), peak resident memory (/usr/bin/time: the whole process,
Python, SciPy and the reading included; Libra's tool the same) and the largest
difference between the two similarity matrices.

  perf_tests/simrank/compare_scipy.py --libra build/host/src/cli/libra GRAPH... [--json OUT]

SciPy's side mirrors libra::simrank: Wn = W with each column divided by its sum
(|weights|, a node without in-edges keeps a zero column), S_0 = I, then per
iteration T = Wn^T S, S = c T Wn + (1 - c) I, entries below threshold *
(1 - 1e-6) dropped. Needs Debian's python3-scipy (/usr/bin/python3)."""
import argparse
import json
import subprocess
import sys
import time


def scipy_simrank(path, decay, iterations, threshold, out_path):
    import numpy as np
    import scipy.io
    import scipy.sparse as sp
    start = time.perf_counter()
    if path.endswith((".mtx", ".mm")):
        W = sp.csr_matrix(scipy.io.mmread(path))
    else:
        rows, cols, vals = [], [], []
        with open(path) as f:
            for line in f:
                if not line.strip() or line[0] in "#%":
                    continue
                parts = line.split()
                rows.append(int(parts[0]))
                cols.append(int(parts[1]))
                vals.append(float(parts[2]) if len(parts) > 2 else 1.0)
        n = max(max(rows), max(cols)) + 1
        W = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    W.sum_duplicates()
    W.data = np.abs(W.data)
    n = W.shape[0]
    col_sums = np.asarray(W.sum(axis=0)).ravel()
    inv = np.divide(1.0, col_sums, out=np.zeros_like(col_sums), where=col_sums != 0)
    Wn = sp.csr_matrix(W @ sp.diags(inv))
    WnT = sp.csr_matrix(Wn.T)
    eye = sp.identity(n, format="csr")
    S = eye.copy()
    cut = threshold * (1 - 1e-6)
    loaded = time.perf_counter()
    for _ in range(iterations):
        T = WnT @ S
        S = sp.csr_matrix(decay * (T @ Wn) + (1 - decay) * eye)
        if cut > 0:
            S.data[np.abs(S.data) < cut] = 0
            S.eliminate_zeros()
    seconds = time.perf_counter() - loaded
    sp.save_npz(out_path, S)
    return {"seconds": seconds, "load_seconds": loaded - start, "nnz_s": int(S.nnz)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--libra", required=True, help="the libra executable")
    p.add_argument("graphs", nargs="*")
    p.add_argument("--decay", type=float, default=0.8)
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--threshold", type=float, default=1e-4)
    p.add_argument("--json", help="write the results here too")
    p.add_argument("--scipy-child", nargs=2, metavar=("GRAPH", "NPZ"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.scipy_child:
        r = scipy_simrank(a.scipy_child[0], a.decay, a.iterations, a.threshold, a.scipy_child[1])
        print(json.dumps(r))
        return
    import os
    import tempfile
    import numpy as np
    import scipy.io
    import scipy.sparse as sp
    results = []
    print("| graph | nodes | edges | nnz(S) | SciPy s | Libra s | Libra/SciPy speed | "
          "SciPy peak MB | Libra peak MB | memory Libra/SciPy | max abs diff |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for g in a.graphs:
        with tempfile.TemporaryDirectory() as tmp:
            npz = os.path.join(tmp, "scipy.npz")
            mtx = os.path.join(tmp, "libra.mtx")
            flags = ["--decay", str(a.decay), "--iterations", str(a.iterations),
                     "--threshold", str(a.threshold)]
            # Peak memory from /usr/bin/time (wait4 of a fresh child): a process's own
            # getrusage would include what its parent held when it forked.
            s_peak = os.path.join(tmp, "scipy.rss")
            l_peak = os.path.join(tmp, "libra.rss")
            s = json.loads(subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", s_peak, sys.executable, __file__,
                 "--libra", a.libra, *flags, "--scipy-child", g, npz],
                check=True, capture_output=True, text=True).stdout)
            lib = json.loads(subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", l_peak, a.libra, "simrank", g, *flags,
                 "-o", mtx, "--json"],
                check=True, capture_output=True, text=True).stdout)
            s["peak_resident_bytes"] = int(open(s_peak).read().split()[-1]) * 1024
            lib["peak_resident_bytes"] = int(open(l_peak).read().split()[-1]) * 1024
            S1 = sp.load_npz(npz).tocsr()
            S2 = sp.csr_matrix(scipy.io.mmread(mtx))
            diff = abs(S1 - S2).max() if S1.shape == S2.shape else float("inf")
        row = {"graph": os.path.basename(g), "nodes": lib["nodes"], "edges": lib["edges"],
               "nnz_s": lib["nnz_s"], "scipy": s, "libra": {k: lib[k] for k in
               ("seconds", "peak_resident_bytes", "nnz_s")}, "max_abs_diff": float(diff)}
        results.append(row)
        print(f"| `{row['graph']}` | {lib['nodes']:,} | {lib['edges']:,} | {lib['nnz_s']:,} | "
              f"{s['seconds']:.3f} | {lib['seconds']:.3f} | {s['seconds'] / lib['seconds']:.2f} | "
              f"{s['peak_resident_bytes'] / 2**20:.0f} | {lib['peak_resident_bytes'] / 2**20:.0f} | "
              f"{lib['peak_resident_bytes'] / s['peak_resident_bytes']:.2f} | {diff:.2e} |",
              flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
