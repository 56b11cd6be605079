#!/usr/bin/env python3
"""Tests of the `libra` command-line tool, driven from outside.

Every number `libra info` prints is checked against an independent count made here
from the file itself by a deliberately naive Matrix Market / SNAP reader.

  test_cli.py --libra PATH --data DIR       shipped matrices, convert, errors, usage
  test_cli.py --libra PATH --shared DIR     every file listed in DIR/MANIFEST.tsv
"""
import argparse
import json
import math
import os
import pty
import re
import subprocess
import sys
import tempfile
import unittest

LIBRA = None
DATA = None
SHARED = None
ENV = dict(os.environ, OMP_PROC_BIND="spread", OMP_PLACES="threads")


# ---- the independent reader -------------------------------------------------------


class Parsed:
    """A matrix as the file describes it: entries summed per position."""

    def __init__(self, fmt, field, symmetry, rows, cols, stored, entries, contributions):
        self.format = fmt
        self.field = field
        self.symmetry = symmetry
        self.rows = rows
        self.cols = cols
        self.stored = stored
        self.entries = entries  # (i, j) -> value, 0-based
        self.contributions = contributions  # (i, j) -> number of lines adding to it


def _add(entries, contributions, i, j, v):
    entries[(i, j)] = entries.get((i, j), 0.0) + v
    contributions[(i, j)] = contributions.get((i, j), 0) + 1


def read_matrix_market(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    banner = lines[0].split()
    assert banner[0] == "%%MatrixMarket" and banner[1].lower() == "matrix", path
    layout, field, symmetry = (w.lower() for w in banner[2:5])
    assert layout == "coordinate", "the naive reader knows coordinate files only"
    body = [l for l in lines[1:] if l.strip() and not l.lstrip().startswith("%")]
    rows, cols, stored = (int(w) for w in body[0].split())
    entries, contributions = {}, {}
    for line in body[1:]:
        w = line.split()
        i, j = int(w[0]) - 1, int(w[1]) - 1
        v = 1.0 if field == "pattern" else float(w[2])
        _add(entries, contributions, i, j, v)
        if symmetry != "general" and i != j:
            _add(entries, contributions, j, i, -v if symmetry == "skew-symmetric" else v)
    assert len(body) - 1 == stored, path
    return Parsed("matrix_market", field, symmetry, rows, cols, stored, entries, contributions)


def read_snap(path, base=0):
    entries, contributions = {}, {}
    stored, largest, weighted = 0, -1, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if not s or s[0] in "#%":
                continue
            w = s.split()
            i, j = int(w[0]) - base, int(w[1]) - base
            weighted = weighted or len(w) > 2
            _add(entries, contributions, i, j, float(w[2]) if len(w) > 2 else 1.0)
            stored += 1
            largest = max(largest, i, j)
    field = "real" if weighted else "pattern"
    n = largest + 1
    return Parsed("snap", field, "general", n, n, stored, entries, contributions)


def read_any(path, base=0):
    with open(path, "rb") as f:
        is_mm = f.read(14) == b"%%MatrixMarket"
    return read_matrix_market(path) if is_mm else read_snap(path, base)


def expected_stats(m):
    """What `libra info --json` must report, by the definitions."""
    row_deg, col_deg = [0] * m.rows, [0] * m.cols
    diagonals, kl, ku = set(), 0, 0
    for i, j in m.entries:
        row_deg[i] += 1
        col_deg[j] += 1
        diagonals.add(j - i)
        kl, ku = max(kl, i - j), max(ku, j - i)
    square = m.rows == m.cols
    if square:
        products = sum(c * r for c, r in zip(col_deg, row_deg))
    else:
        products = sum(c * c for c in col_deg)
    nonempty = [k for k in col_deg if k > 0]
    r = 1 + len(nonempty) / sum(math.log(k / 0.5) for k in nonempty) if nonempty else None

    def degrees(d):
        if not d:
            return {"min": 0, "mean": 0.0, "max": 0}
        return {"min": min(d), "mean": len(m.entries) / len(d), "max": max(d)}

    return {
        "format": m.format, "field": m.field, "symmetry": m.symmetry,
        "rows": m.rows, "cols": m.cols, "nnz": len(m.entries), "stored_entries": m.stored,
        "kl": kl, "ku": ku, "diagonals": len(diagonals),
        "products_aa": products, "flops_aa": 2 * products,
        "product_kind": "A*A" if square else "A*A^T",
        "row_degree": degrees(row_deg), "col_degree": degrees(col_deg), "powerlaw_r": r,
    }


# ---- running the tool -------------------------------------------------------------


def libra(*args):
    return subprocess.run([LIBRA, *args], capture_output=True, text=True, env=ENV,
                          timeout=600)


def info_json(testcase, path, *extra):
    p = libra("info", path, "--json", *extra)
    testcase.assertEqual(p.returncode, 0, p.stderr)
    return json.loads(p.stdout)  # the whole of stdout is one JSON object


def assert_stats(testcase, expected, got, keys=None):
    for key in keys or expected:
        e, g = expected[key], got[key]
        if key == "powerlaw_r" and e is not None:
            testcase.assertAlmostEqual(g, e, delta=1e-9 * e, msg=key)
        elif isinstance(e, dict):
            testcase.assertEqual(g["min"], e["min"], key)
            testcase.assertEqual(g["max"], e["max"], key)
            testcase.assertAlmostEqual(g["mean"], e["mean"], delta=1e-12 * max(1, e["mean"]))
        else:
            testcase.assertEqual(g, e, key)


def shipped_matrices():
    return sorted(os.path.join(DATA, f) for f in os.listdir(DATA) if f.endswith(".mtx"))


# ---- shipped matrices -------------------------------------------------------------


class InfoOnShippedMatrices(unittest.TestCase):
    def test_json_matches_independent_count(self):
        files = shipped_matrices()
        self.assertGreater(len(files), 0)
        for path in files:
            with self.subTest(file=os.path.basename(path)):
                assert_stats(self, expected_stats(read_matrix_market(path)),
                             info_json(self, path))

    def test_text_output_names_every_statistic(self):
        path = os.path.join(DATA, "lp_afiro.mtx")  # rectangular: A*A^T
        p = libra("info", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        e = expected_stats(read_matrix_market(path))
        for label, value in [("rows", e["rows"]), ("cols", e["cols"]), ("nnz", e["nnz"]),
                             ("stored entries", e["stored_entries"]),
                             ("A*A^T products", e["products_aa"]),
                             ("A*A^T flops", e["flops_aa"])]:
            self.assertRegex(p.stdout, r"(?m)^%s\s+%d$" % (re.escape(label), value))
        self.assertRegex(p.stdout, r"(?m)^bandwidth\s+kl %d, ku %d$" % (e["kl"], e["ku"]))
        self.assertRegex(p.stdout, r"(?m)^diagonals\s+%d non-empty$" % e["diagonals"])
        self.assertRegex(p.stdout, r"(?m)^power-law R\s+%.4f " % e["powerlaw_r"])
        self.assertRegex(p.stdout, r"(?m)^symmetry\s+general$")
        self.assertEqual(p.stderr, "")  # no progress when stderr is not a terminal


class SnapInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "edges.txt")
        with open(self.path, "w") as f:
            f.write("# a comment\n% another\n\n3 1\n1 3\n3 1\n7 0\n2 2\n  5\t6  \n")

    def tearDown(self):
        self.dir.cleanup()

    def test_ids_kept_and_distinct_edges_counted(self):
        got = info_json(self, self.path)
        assert_stats(self, expected_stats(read_snap(self.path)), got)
        self.assertEqual((got["rows"], got["nnz"], got["stored_entries"]), (8, 5, 6))

    def test_one_based(self):
        path = os.path.join(self.dir.name, "one.txt")
        with open(path, "w") as f:
            f.write("1 2\n4 1\n2 2\n")
        got = info_json(self, path, "--one-based")
        assert_stats(self, expected_stats(read_snap(path, base=1)), got)
        self.assertEqual(got["rows"], 4)
        # edges.txt has node id 0, which 1-based ids cannot name.
        p = libra("info", self.path, "--one-based")
        self.assertEqual(p.returncode, 3)
        self.assertRegex(p.stderr, r"^libra: %s:7: " % re.escape(self.path))


# ---- convert ----------------------------------------------------------------------


class Convert(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def out(self, name):
        return os.path.join(self.dir.name, name)

    def convert(self, *args):
        p = libra("convert", *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")

    def test_mm_snap_mm_keeps_the_pattern(self):
        for path in shipped_matrices():
            with self.subTest(file=os.path.basename(path)):
                snap, back = self.out("a.txt"), self.out("b.mtx")
                self.convert(path, snap)  # SNAP: OUT is not .mtx
                self.convert(snap, back)
                orig, mid, final = read_matrix_market(path), read_snap(snap), \
                    read_matrix_market(back)
                self.assertEqual(set(mid.entries), set(orig.entries))
                self.assertEqual(set(final.entries), set(orig.entries))
                self.assertEqual(final.symmetry, "general")
                # SNAP keeps no shape: both sides become largest index + 1.
                n = 1 + max(max(i, j) for i, j in orig.entries)
                self.assertEqual((final.rows, final.cols), (n, n))

    def test_mm_to_mm_keeps_values_exactly(self):
        for path in shipped_matrices():
            with self.subTest(file=os.path.basename(path)):
                out = self.out("c.mtx")
                self.convert(path, out)
                orig, got = read_matrix_market(path), read_matrix_market(out)
                self.assertEqual((got.rows, got.cols), (orig.rows, orig.cols))
                self.assertEqual(got.field, orig.field if orig.field == "pattern" else "real")
                self.assertEqual(set(got.entries), set(orig.entries))
                for pos, v in orig.entries.items():
                    if orig.contributions[pos] == 1:
                        self.assertEqual(got.entries[pos], v, pos)
                    else:  # a sum: Libra may add in another order
                        self.assertAlmostEqual(got.entries[pos], v, delta=1e-15 * abs(v))
                assert_stats(self, expected_stats(got), info_json(self, out))

    def test_to_option_overrides_the_extension(self):
        path = os.path.join(DATA, "olm1000.mtx")
        self.convert(path, self.out("x.mtx"), "--to", "snap")
        self.convert(path, self.out("y.edges"), "--to", "mm")
        with open(self.out("x.mtx"), "rb") as f:
            self.assertNotEqual(f.read(14), b"%%MatrixMarket")
        with open(self.out("y.edges"), "rb") as f:
            self.assertEqual(f.read(14), b"%%MatrixMarket")
        self.assertEqual(set(read_snap(self.out("x.mtx")).entries),
                         set(read_matrix_market(path).entries))

    def test_snap_mm_snap_round_trip(self):
        src = self.out("g.txt")
        with open(src, "w") as f:
            f.write("# graph\n0 4\n4 0\n2 3\n2 3\n9 1\n")
        self.convert(src, self.out("g.mtx"))
        self.convert(self.out("g.mtx"), self.out("h.txt"))
        orig, mid, final = read_snap(src), read_matrix_market(self.out("g.mtx")), \
            read_snap(self.out("h.txt"))
        self.assertEqual(mid.field, "pattern")
        self.assertEqual(set(mid.entries), set(orig.entries))
        self.assertEqual(set(final.entries), set(orig.entries))
        self.assertEqual((mid.rows, final.rows), (10, 10))

    def test_weighted_snap_keeps_summed_weights(self):
        src = self.out("w.txt")
        with open(src, "w") as f:
            f.write("0 1 0.1\n2 0 -3e-300\n0 1 0.2\n1 1 1.0000000000000002\n")
        self.convert(src, self.out("w.mtx"))
        got = read_matrix_market(self.out("w.mtx"))
        self.assertEqual(got.field, "real")
        self.assertEqual(got.entries, {(0, 1): 0.1 + 0.2, (2, 0): -3e-300,
                                       (1, 1): 1.0000000000000002})

    def test_dimensions_beyond_int_take_64_bit_ordinals(self):
        src = self.out("wide.mtx")
        with open(src, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n"
                    "2 3000000000 2\n1 2999999999 1.5\n2 1 2\n")
        self.convert(src, self.out("wide_out.mtx"))
        got = read_matrix_market(self.out("wide_out.mtx"))
        self.assertEqual((got.rows, got.cols), (2, 3000000000))
        self.assertEqual(got.entries, {(0, 2999999998): 1.5, (1, 0): 2.0})

    def test_overwrites_an_existing_file(self):
        out = self.out("old.mtx")
        with open(out, "w") as f:
            f.write("stale\n")
        self.convert(os.path.join(DATA, "lp_afiro.mtx"), out)
        self.assertEqual(read_matrix_market(out).stored, 102)


# ---- bad input, usage, failures ---------------------------------------------------

MALFORMED = {
    # name: (contents, line the error is on)
    "bad_banner.mtx": ("%%MatrixMarket matrix coordinate real sideways\n2 2 1\n1 1 1\n", 1),
    "bad_object.mtx": ("%%MatrixMarket tensor coordinate real general\n2 2 1\n1 1 1\n", 1),
    "bad_sizes.mtx": ("%%MatrixMarket matrix coordinate real general\n% c\n2 -2 1\n1 1 1\n", 3),
    "short_sizes.mtx": ("%%MatrixMarket matrix coordinate real general\n2 2\n1 1 1\n", 2),
    "row_out_of_range.mtx": (
        "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 1\n", 4),
    "col_zero.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 0 1\n", 4),
    "non_numeric.mtx": (
        "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 abc\n2 2 1\n", 3),
    "nan.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 nan\n", 4),
    "truncated.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n", 4),
    "binary.txt": (b"\x00\x01\x02\xff\xfe binary \x00 garbage\n\x7f\x45\x4c\x46\n", 1),
    "elf.bin": (b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\n", 1),
    "negative.txt": ("0 1\n2 -1\n", 2),
    "one_field.txt": ("# edges\n0 1\n5\n", 3),
    "text.txt": ("0 1\nfoo bar\n", 2),
}


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, contents):
        path = os.path.join(self.dir.name, name)
        with open(path, "wb") as f:
            f.write(contents if isinstance(contents, bytes) else contents.encode())
        return path

    def test_malformed_files_exit_3_naming_file_and_line(self):
        for name, (contents, line) in MALFORMED.items():
            with self.subTest(file=name):
                path = self.write(name, contents)
                out = os.path.join(self.dir.name, "out.mtx")
                try:
                    for args in (["info", path], ["info", path, "--json"],
                                 ["convert", path, out]):
                        p = libra(*args)
                        self.assertEqual(p.returncode, 3, (args, p.stdout, p.stderr))
                        self.assertEqual(p.stdout, "")
                        self.assertRegex(p.stderr,
                                         r"^libra: %s:%d: \S" % (re.escape(path), line))
                        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
                    self.assertEqual(os.listdir(self.dir.name), [name])  # nothing written
                finally:
                    for f in os.listdir(self.dir.name):
                        os.remove(os.path.join(self.dir.name, f))

    def test_missing_and_empty_files_exit_3(self):
        missing = os.path.join(self.dir.name, "missing.mtx")
        empty = self.write("empty.mtx", "")
        for path in (missing, empty):
            p = libra("info", path)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertRegex(p.stderr, r"^libra: %s: \S" % re.escape(path))
        p = libra("convert", missing, os.path.join(self.dir.name, "o.txt"))
        self.assertEqual(p.returncode, 3)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["empty.mtx"])

    def test_unwritable_output_exits_1_leaving_nothing(self):
        src = os.path.join(DATA, "lp_afiro.mtx")
        missing_dir = os.path.join(self.dir.name, "no", "such", "dir", "out.mtx")
        a_dir = os.path.join(self.dir.name, "a_dir")
        os.mkdir(a_dir)
        for out in (missing_dir, a_dir):
            p = libra("convert", src, out)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertRegex(p.stderr, r"^libra: .*%s" % re.escape(out))
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["a_dir"])
        self.assertEqual(os.listdir(a_dir), [])


class Usage(unittest.TestCase):
    def test_usage_errors_exit_2(self):
        src = os.path.join(DATA, "lp_afiro.mtx")
        for args in ([], ["frobnicate"], ["frobnicate", src], ["info"], ["convert", src],
                     ["info", src, "--bogus"], ["convert", src, "o.mtx", "--to", "csv"],
                     ["info", src, "extra"]):
            with self.subTest(args=args):
                p = libra(*args)
                self.assertEqual(p.returncode, 2, (p.stdout, p.stderr))
                self.assertNotEqual(p.stderr, "")
        self.assertFalse(os.path.exists("o.mtx"))

    def test_help(self):
        for args, words in ((["--help"], ["info", "convert", "Exit codes"]),
                            (["info", "--help"], ["--json", "--one-based", "Clauset"]),
                            (["convert", "--help"], ["--to", "IN", "OUT"])):
            with self.subTest(args=args):
                p = libra(*args)
                self.assertEqual(p.returncode, 0, p.stderr)
                for w in words:
                    self.assertIn(w, p.stdout)

    def test_kokkos_flags_pass_through(self):
        path = os.path.join(DATA, "lp_afiro.mtx")
        p = libra("--kokkos-threads=1", "info", path, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["nnz"], 102)


class Progress(unittest.TestCase):
    def test_shown_on_a_terminal(self):
        path = os.path.join(DATA, "ca-GrQc.mtx")
        master, slave = pty.openpty()
        env = dict(ENV, LIBRA_PROGRESS_DELAY="0")
        p = subprocess.run([LIBRA, "info", path, "--json"], stdout=subprocess.PIPE,
                           stderr=slave, env=env, timeout=600)
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the terminal is closed and drained
                break
            if not chunk:
                break
            shown += chunk
        os.close(master)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(json.loads(p.stdout)["nnz"], 28980)
        self.assertIn(b"reading " + path.encode(), shown)
        self.assertRegex(shown, rb"done after \d+\.\d s")


# ---- the shared collection --------------------------------------------------------


class SharedMatrices(unittest.TestCase):
    def test_every_listed_file(self):
        with open(os.path.join(SHARED, "MANIFEST.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
        header, rows = rows[0], rows[1:]
        col = {name: k for k, name in enumerate(header)}
        self.assertGreater(len(rows), 0)
        for r in rows:
            path = os.path.join(SHARED, r[col["file"]])
            with self.subTest(file=r[col["file"]]):
                m = read_any(path)
                got = info_json(self, path)
                assert_stats(self, expected_stats(m), got)
                # The manifest counts stored entries, and SNAP node ids as they are.
                self.assertEqual(got["rows"], int(r[col["rows"]]))
                self.assertEqual(got["cols"], int(r[col["cols"]]))
                self.assertEqual(got["stored_entries"], int(r[col["nnz"]]))


def main():
    global LIBRA, DATA, SHARED
    parser = argparse.ArgumentParser()
    parser.add_argument("--libra", required=True)
    parser.add_argument("--data")
    parser.add_argument("--shared")
    args, rest = parser.parse_known_args()
    LIBRA, DATA, SHARED = os.path.abspath(args.libra), args.data, args.shared
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    if SHARED:
        suite.addTests(loader.loadTestsFromTestCase(SharedMatrices))
    if DATA:
        for case in (InfoOnShippedMatrices, SnapInput, Convert, BadInput, Usage, Progress):
            suite.addTests(loader.loadTestsFromTestCase(case))
    if not suite.countTestCases():
        parser.error("give --data and/or --shared")
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
