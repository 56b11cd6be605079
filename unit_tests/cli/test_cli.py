#!/usr/bin/env python3
"""Tests of the `libra` command-line tool, driven from outside.

Every number `libra info` prints is checked against an independent count made here
from the file itself by a deliberately naive Matrix Market / SNAP reader.

  test_cli.py --libra PATH --data DIR       shipped matrices, convert, errors, usage
  test_cli.py --libra PATH --shared DIR     every file listed in DIR/MANIFEST.tsv
  test_cli.py ... PATTERN...                only the tests whose names contain one

The tool runs without OMP_PROC_BIND and OMP_PLACES, as in a user's plain shell.
"""
import argparse
import json
import math
import os
import pty
import re
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

LIBRA = None
DATA = None
SHARED = None
# As a user's plain shell has it: no OpenMP binding variables (the tool must keep
# stdout clean without them, issue 6 item 2).
ENV = {k: v for k, v in os.environ.items() if k not in ("OMP_PROC_BIND", "OMP_PLACES")}


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
    """An edge list; Libra's "# libra: R x C, N entries" header gives the shape."""
    entries, contributions = {}, {}
    stored, largest, weighted, shape = 0, -1, False, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            m = re.match(r"# libra: (\d+) x (\d+), (\d+) entries$", s)
            if m and stored == 0:
                shape = (int(m.group(1)), int(m.group(2)))
                continue
            if not s or s[0] in "#%":
                continue
            w = s.split()
            i, j = int(w[0]) - base, int(w[1]) - base
            weighted = weighted or len(w) > 2
            _add(entries, contributions, i, j, float(w[2]) if len(w) > 2 else 1.0)
            stored += 1
            largest = max(largest, i, j)
    field = "real" if weighted else "pattern"
    rows, cols = shape or (largest + 1, largest + 1)
    return Parsed("snap", field, "general", rows, cols, stored, entries, contributions)


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

    # Diagonal storage: HM holds every position of each non-empty diagonal, CDM
    # (square only) n values per distinct (j - i) mod n.
    diagonal_values = sum(max(0, min(m.rows, m.cols - d) if d >= 0 else min(m.cols, m.rows + d))
                          for d in diagonals)
    compact = (len({d % m.rows for d in diagonals}) * m.rows) if square and m.rows else (
        0 if square else None)
    return {
        "diagonal_values": diagonal_values, "compact_diagonal_values": compact,
        "format": m.format, "field": m.field, "symmetry": m.symmetry,
        "rows": m.rows, "cols": m.cols, "nnz": len(m.entries), "stored_entries": m.stored,
        "kl": kl, "ku": ku, "diagonals": len(diagonals),
        "products_aa": products, "flops_aa": 2 * products,
        "product_kind": "A*A" if square else "A*A^T",
        "row_degree": degrees(row_deg), "col_degree": degrees(col_deg), "powerlaw_r": r,
    }


# ---- running the tool -------------------------------------------------------------


def libra(*args, env=None):
    return subprocess.run([LIBRA, *args], capture_output=True, text=True,
                          env=env or ENV, timeout=600)


def json_of(testcase, p):
    """The whole of stdout as one JSON object (json.loads fails on anything else)."""
    testcase.assertEqual(p.returncode, 0, p.stderr)
    return json.loads(p.stdout)


def info_json(testcase, path, *extra):
    return json_of(testcase, libra("info", path, "--json", *extra))


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

    def test_mm_edges_mm_keeps_shape_and_values(self):
        for path in shipped_matrices():
            with self.subTest(file=os.path.basename(path)):
                edges, back = self.out("a.txt"), self.out("b.mtx")
                self.convert(path, edges)  # an edge list: OUT is .txt
                self.convert(edges, back)
                orig, mid, final = read_matrix_market(path), read_snap(edges), \
                    read_matrix_market(back)
                self.assertEqual(final.symmetry, "general")
                for m in (mid, final):
                    # The libra header keeps the shape, rectangular or not; a
                    # pattern stays a pattern, values are kept at full precision.
                    self.assertEqual((m.rows, m.cols), (orig.rows, orig.cols))
                    self.assertEqual(m.field, "pattern" if orig.field == "pattern" else "real")
                    self.assertEqual(set(m.entries), set(orig.entries))
                    for pos, v in orig.entries.items():
                        self.assertAlmostEqual(m.entries[pos], v, delta=1e-15 * abs(v))

    def test_edge_list_round_trip_keeps_an_empty_last_row_and_column(self):
        src = self.out("five.mtx")
        with open(src, "w") as f:  # 5 x 5, row and column 5 empty
            f.write("%%MatrixMarket matrix coordinate real general\n5 5 3\n"
                    "1 2 0.5\n3 1 -1.25\n4 4 1e-300\n")
        self.convert(src, self.out("five.txt"))
        self.convert(self.out("five.txt"), self.out("back.mtx"))
        got = read_matrix_market(self.out("back.mtx"))
        self.assertEqual((got.rows, got.cols, got.field), (5, 5, "real"))
        self.assertEqual(got.entries, {(0, 1): 0.5, (2, 0): -1.25, (3, 3): 1e-300})
        info = info_json(self, self.out("five.txt"))
        self.assertEqual((info["rows"], info["cols"], info["field"]), (5, 5, "real"))

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
        self.convert(path, self.out("x.mtx"), "--to", "edges")
        self.convert(path, self.out("y.edges"), "--to", "mtx")
        self.convert(path, self.out("z"), "--to", "snap")  # the former names still work
        with open(self.out("x.mtx"), "rb") as f:
            self.assertEqual(f.read(9), b"# libra: ")
        with open(self.out("y.edges"), "rb") as f:
            self.assertEqual(f.read(14), b"%%MatrixMarket")
        self.assertEqual(read_snap(self.out("x.mtx")).entries,
                         read_matrix_market(path).entries)
        self.assertEqual(read_snap(self.out("z")).entries, read_matrix_market(path).entries)
        # And for reading: --from names the format of a file whatever its name.
        self.assertEqual(info_json(self, self.out("x.mtx"), "--from", "edges")["nnz"], 3996)
        self.assertEqual(info_json(self, self.out("y.edges"), "--from", "mtx")["nnz"], 3996)

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
        self.assertEqual(final.field, "pattern")
        with open(self.out("h.txt")) as f:  # a pattern is written without values
            self.assertEqual([len(l.split()) for l in f.readlines()[1:]], [2] * 4)

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
    # The name decides the format (item 3): a headerless .mtx is not an edge list,
    # a Matrix Market file named .txt is not read as one, edge lists do not mix
    # 2- and 3-field lines.
    "headerless.mtx": ("9914 9914 3\n1 1 1\n2 2 1\n3 3 1\n", 1),
    "matrix_market.txt": ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n", 1),
    "mixed.txt": ("# c\n0 1\n1 2 0.5\n", 3),
    # Sizes refused at the line that states them, before allocating (item 4).
    "huge_rows.mtx": ("%%MatrixMarket matrix coordinate real general\n99999999999 3 1\n"
                      "1 1 1\n", 2),
    "huge_square.mtx": ("%%MatrixMarket matrix coordinate real general\n"
                        "1099511627776 1099511627776 1\n1 1 1\n", 2),
    "huge_nnz.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 999999999999\n"
                     "1 1 1\n", 2),
    "huge_id.txt": ("0 1\n0 999999999999\n1 1\n", 2),
    # Libra's edge-list header is read back and holds the file to it (item 6).
    "outside_header.txt": ("# libra: 2 x 2, 1 entries\n0 5 1\n", 2),
    "short_of_header.txt": ("# libra: 2 x 2, 3 entries\n0 1 1\n1 1 2\n", 3),
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

    def test_unreadable_inputs_exit_1(self):
        # Nothing was malformed: the file could not be read at all.
        missing = os.path.join(self.dir.name, "missing.mtx")
        a_dir = os.path.join(self.dir.name, "folder.mtx")
        os.mkdir(a_dir)
        for path, why in ((missing, "cannot open"), (a_dir, "is a directory")):
            for args in (["info", path], ["spgemm", path],
                         ["convert", path, os.path.join(self.dir.name, "o.txt")]):
                p = libra(*args)
                self.assertEqual(p.returncode, 1, (args, p.stderr))
                self.assertRegex(p.stderr, r"^libra: %s: %s" % (re.escape(path), why))
                self.assertEqual(p.stdout, "")
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["folder.mtx"])

    def test_empty_inputs(self):
        # The decision (README, --help): an empty .mtx lacks its banner (exit 3); an
        # edge list without edges is a 0 x 0 matrix, whatever blank lines or
        # comments it holds.
        empty = self.write("empty.mtx", "")
        p = libra("info", empty)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertRegex(p.stderr, r"^libra: %s: empty file: missing the %%%%MatrixMarket"
                         % re.escape(empty))
        for text in ("", "\n\n  \n", "# only a comment\n"):
            with self.subTest(text=text):
                got = info_json(self, self.write("empty.txt", text))
                self.assertEqual((got["rows"], got["cols"], got["nnz"]), (0, 0, 0))
        self.assertRegex(libra("--help").stdout, r"edge\s+list without edges")

    def test_unwritable_output_exits_1_leaving_nothing(self):
        src = os.path.join(DATA, "lp_afiro.mtx")
        missing_dir = os.path.join(self.dir.name, "no", "such", "dir", "out.mtx")
        a_dir = os.path.join(self.dir.name, "a_dir.mtx")
        os.mkdir(a_dir)
        for out in (missing_dir, a_dir):
            p = libra("convert", src, out)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertRegex(p.stderr, r"^libra: .*%s" % re.escape(out))
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["a_dir.mtx"])
        self.assertEqual(os.listdir(a_dir), [])


class TempDirTest(unittest.TestCase):
    """A test with a fresh temporary folder, self.dir, removed afterwards."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, *names):
        return os.path.join(self.dir.name, *names)


class FifoReader:
    """Reads a FIFO in a thread: open(), then read() (or close at once). If the
    tool never opens the FIFO for writing (a regression renames a file over it),
    finish() releases the blocked reader through a second link to the FIFO, kept
    in another folder, and says so instead of hanging."""

    def __init__(self, path, read=True):
        self.keep_dir = tempfile.TemporaryDirectory()
        self.keep = os.path.join(self.keep_dir.name, "fifo")
        os.link(path, self.keep)
        self.data = None
        self.thread = threading.Thread(target=self._run, args=(path, read), daemon=True)
        self.thread.start()

    def _run(self, path, read):
        with open(path, "rb") as f:
            self.data = f.read() if read else b""

    def finish(self):
        """The bytes read; None when the tool never wrote to the FIFO."""
        self.thread.join(timeout=5)
        if self.thread.is_alive():
            os.close(os.open(self.keep, os.O_WRONLY | os.O_NONBLOCK))
            self.thread.join()
            self.data = None
        self.keep_dir.cleanup()
        return self.data


class OutputTargets(TempDirTest):
    """Item 1: only a regular file (or a new name) is replaced, atomically; links
    keep pointing where they did; what is not a regular file is written straight.
    Everything in a temporary folder, never a real device node."""

    def setUp(self):
        super().setUp()
        self.SRC = os.path.join(DATA, "lp_afiro.mtx")

    def expect_lp_afiro(self, path):
        got = read_matrix_market(path)
        self.assertEqual((got.rows, got.cols, got.stored), (27, 51, 102))
        self.assertEqual(got.entries, read_matrix_market(self.SRC).entries)

    def test_symlink_to_a_file_stays_a_link(self):
        with open(self.path("target.mtx"), "w") as f:
            f.write("stale\n")
        os.symlink("target.mtx", self.path("C.mtx"))
        p = libra("convert", self.SRC, self.path("C.mtx"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.islink(self.path("C.mtx")))
        self.assertEqual(os.readlink(self.path("C.mtx")), "target.mtx")
        self.expect_lp_afiro(self.path("target.mtx"))
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["C.mtx", "target.mtx"])

    def test_symlink_into_another_folder_and_a_dangling_one(self):
        os.mkdir(self.path("a"))
        os.mkdir(self.path("b"))
        with open(self.path("b", "real.mtx"), "w") as f:
            f.write("stale\n")
        os.symlink(os.path.join("..", "b", "real.mtx"), self.path("a", "C.mtx"))
        os.symlink(os.path.join("..", "b", "new.mtx"), self.path("a", "D.mtx"))  # dangling
        for link, target in (("C.mtx", "real.mtx"), ("D.mtx", "new.mtx")):
            with self.subTest(link=link):
                p = libra("spgemm", self.SRC, "--algo", "reference", "-o",
                          self.path("a", link))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertTrue(os.path.islink(self.path("a", link)))
                got = read_matrix_market(self.path("b", target))
                self.assertEqual((got.rows, got.cols, got.stored), (27, 27, 153))
        self.assertEqual(sorted(os.listdir(self.path("a"))), ["C.mtx", "D.mtx"])
        self.assertEqual(sorted(os.listdir(self.path("b"))), ["new.mtx", "real.mtx"])

    def test_fifo_is_written_straight(self):
        fifo = self.path("C.mtx")
        os.mkfifo(fifo)
        reader = FifoReader(fifo)
        p = libra("convert", self.SRC, fifo)
        received = reader.finish()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))  # still a FIFO
        self.assertIsNotNone(received, "the tool did not write to the FIFO")
        with open(self.path("got.mtx"), "wb") as f:
            f.write(received)
        self.expect_lp_afiro(self.path("got.mtx"))
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["C.mtx", "got.mtx"])

    def test_stdout_as_dash_descriptor_and_link(self):
        os.symlink("/dev/stdout", self.path("out.mtx"))  # a link to stdout: followed
        for out in ("-", "/dev/fd/1", "/proc/self/fd/1", self.path("out.mtx")):
            with self.subTest(out=out):
                p = libra("convert", self.SRC, out)  # stdout is a pipe here
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(self.path("got.mtx"), "w") as f:
                    f.write(p.stdout)
                self.expect_lp_afiro(self.path("got.mtx"))
        self.assertTrue(os.path.islink(self.path("out.mtx")))
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["got.mtx", "out.mtx"])
        # spgemm -o -: C on stdout, the report on stderr (here as JSON).
        p = libra("spgemm", self.SRC, "--json", "-o", "-", "--to", "edges")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stderr)["nnz_c"], 153)
        self.assertTrue(p.stdout.startswith("# libra: 27 x 27, 153 entries\n"))

    def test_write_errors_exit_1(self):
        # A pipe whose reader is gone: the output (about 800 KB) outgrows the
        # pipe's buffer, so the write fails with EPIPE whatever the timing.
        src = os.path.join(DATA, "bcsstk21.mtx")
        proc = subprocess.Popen([LIBRA, "convert", src, "-"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=ENV)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        self.assertEqual(proc.wait(timeout=600), 1, err)
        self.assertRegex(err, r"^libra: -: cannot write: Broken pipe\n$")
        # The same through a FIFO whose reader opens it and leaves.
        fifo = self.path("C.mtx")
        os.mkfifo(fifo)
        reader = FifoReader(fifo, read=False)
        p = libra("convert", src, fifo)
        reader.finish()
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"^libra: %s: cannot write: Broken pipe" % re.escape(fifo))
        self.assertEqual(os.listdir(self.dir.name), ["C.mtx"])


class CleanStdout(unittest.TestCase):
    """Item 2: without OMP_PROC_BIND/OMP_PLACES, stdout holds the result alone."""

    def test_json_parses_without_openmp_variables(self):
        self.assertNotIn("OMP_PROC_BIND", ENV)
        self.assertNotIn("OMP_PLACES", ENV)
        path = os.path.join(DATA, "olm1000.mtx")
        for args in (["info", path, "--json"], ["spgemm", path, "--json"],
                     ["simrank", path, "--json", "--iterations", "1"]):
            with self.subTest(args=args):
                p = libra(*args)
                self.assertEqual(p.returncode, 0, p.stderr)
                json.loads(p.stdout)  # nothing before or after the object
                # The defaults were applied, so Kokkos had no warning to print at all.
                self.assertNotIn("OMP_PROC_BIND", p.stderr)
        # A user's own choice is kept, and Kokkos' messages never reach stdout.
        p = libra("info", path, "--json", env=dict(ENV, OMP_PROC_BIND="false"))
        self.assertEqual(json.loads(p.stdout)["nnz"], 3996)
        p = libra("--kokkos-help", "info", path, "--json")
        self.assertEqual(json.loads(p.stdout)["nnz"], 3996)


class Signals(unittest.TestCase):
    """Item 8: SIGINT or SIGTERM leaves no temporary behind. The input is a FIFO
    nobody writes, so the tool is waiting with its output already open."""

    def test_temporary_removed(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=sig), tempfile.TemporaryDirectory() as d:
                fifo = os.path.join(d, "in.mtx")
                os.mkfifo(fifo)
                # A shell's background job inherits SIGINT ignored, and the tool
                # leaves ignored signals alone: the child gets the default.
                proc = subprocess.Popen([LIBRA, "convert", fifo, os.path.join(d, "C.mtx")],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=ENV, preexec_fn=lambda: signal.signal(
                                            sig, signal.SIG_DFL))
                tmp, polls = [], 0
                while not tmp and proc.poll() is None and polls < 600:
                    tmp = [f for f in os.listdir(d) if f.startswith(".C.mtx.tmp.")]
                    polls += 1
                    time.sleep(0.1)  # the output opens first, within a minute surely
                if len(tmp) != 1:
                    proc.kill()
                    self.fail("no temporary output before reading the input: %s"
                              % (proc.communicate(),))
                proc.send_signal(sig)
                proc.communicate(timeout=600)
                self.assertEqual(proc.returncode, -sig)
                self.assertEqual(os.listdir(d), ["in.mtx"])


class Outputs(TempDirTest):
    """Items 7 and 8: one rule chooses the writer by name in every subcommand, and
    the output is opened before any work."""

    def test_extension_chooses_the_writer(self):
        a = os.path.join(DATA, "olm1000.mtx")
        for name, kind in (("C.mtx", "mm"), ("C.mm", "mm"), ("C.MTX", "mm"),
                           ("C.txt", "edges"), ("C.el", "edges"), ("C.tsv", "edges"),
                           ("C.edges", "edges")):
            for args in (["spgemm", a, "--algo", "reference"],
                         ["simrank", a, "--iterations", "1"], ["convert", a]):
                with self.subTest(name=name, command=args[0]):
                    out = self.path(name)
                    p = libra(*args, out) if args[0] == "convert" else \
                        libra(*args, "-o", out)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    got = read_matrix_market(out) if kind == "mm" else read_snap(out)
                    self.assertEqual((got.rows, got.cols), (1000, 1000))
                    self.assertEqual(got.field, "real")  # values kept in every format
                    os.remove(out)
        # Names that say no format are refused before anything runs, unless --to.
        for name in ("C", "C.mtx.gz", "C.dat"):
            for args in (["spgemm", a, "-o", self.path(name)],
                         ["simrank", a, "-o", self.path(name)],
                         ["convert", a, self.path(name)]):
                with self.subTest(name=name, command=args[0]):
                    p = libra(*args)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn("--to mtx|edges", p.stderr)
                    self.assertEqual(p.stdout, "")
        self.assertEqual(os.listdir(self.dir.name), [])
        p = libra("spgemm", a, "-o", self.path("C"), "--to", "mtx")
        self.assertEqual(read_matrix_market(self.path("C")).field, "real")
        p = libra("simrank", a, "-o", self.path("S"), "--to", "edges")
        self.assertEqual(read_snap(self.path("S")).rows, 1000)

    def test_unwritable_output_fails_before_computing(self):
        a = os.path.join(DATA, "olm1000.mtx")
        out = self.path("no/such/dir/C.mtx")
        for args in (["spgemm", a, "-o", out], ["spgemm", "--generate", "rmat:12:8", "-o", out],
                     ["simrank", a, "-o", out], ["convert", a, out]):
            with self.subTest(args=args):
                p = libra(*args)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(p.stdout, "")  # nothing was computed or reported
                self.assertRegex(p.stderr, r"^libra: %s: cannot create " % re.escape(out))


class Flags(unittest.TestCase):
    """Item 9: flags are checked before anything runs (exit 2), with plain reasons."""

    A = None

    def setUp(self):
        self.A = os.path.join(DATA, "olm1000.mtx")

    def usage_error(self, *args, says):
        p = libra(*args)
        self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
        self.assertIn(says, p.stderr)
        self.assertLess(len(p.stderr), 600, p.stderr)  # no 309-digit ranges
        self.assertEqual(p.stdout, "")

    def test_memory_budget(self):
        self.usage_error("spgemm", self.A, "--memory-budget", "-5", says="negative")
        self.usage_error("spgemm", self.A, "--memory-budget", "lots", says="not a number")
        self.usage_error("spgemm", self.A, "--memory-budget", "5 parsecs", says="unknown unit")
        self.usage_error("spgemm", self.A, "--memory-budget", "1.5", says="whole number")
        # Too small to work in: the library's reason, still a usage error.
        self.usage_error("spgemm", self.A, "--memory-budget", "1KiB", says="bookkeeping")
        for text, value in (("2GB", 2000000000), ("1.5GiB", 1610612736), ("4M", 4194304),
                            ("300000000", 300000000), ("64MiB", 67108864)):
            with self.subTest(budget=text):
                got = json_of(self, libra("spgemm", self.A, "--json", "--memory-budget", text))
                self.assertEqual(got["memory_budget"], value)
        got = json_of(self, libra("spgemm", self.A, "--json", "--memory-budget", "0"))
        self.assertGreater(got["memory_budget"], 0)  # 0 is the default
        self.assertIn("0 (the default)", libra("spgemm", "--help").stdout)

    def test_repeat_generate_output_and_subcommands(self):
        self.usage_error("spgemm", self.A, "--repeat", "0", says="1 or more")
        self.usage_error("spgemm", self.A, "--repeat", "-3", says="1 or more")
        self.usage_error("spgemm", "--generate", "rmat:99999999999:16", says="out of range")
        self.usage_error("spgemm", "--generate", "rmat:31:16", says="out of range")
        self.usage_error("spgemm", "--generate", "rmat:x:16", says="not an integer")
        self.usage_error("spgemm", "--generate", "rmat:10:-1", says="positive")
        self.usage_error("spgemm", "--generate", "rmat:10:1e999", says="finite")
        self.usage_error("spgemm", "--generate", "kron:10:16", says="rmat:SCALE:EDGEFACTOR")
        # Checked against the memory before generating: 2^25 x 1000 edges.
        self.usage_error("spgemm", "--generate", "rmat:25:1000", says="GiB of memory free")
        self.usage_error("spgemm", self.A, "--generate", "rmat:10:8", says="not both")
        self.usage_error("spgemm", "--generate", "rmat:10:8", self.A, says="not both")
        self.usage_error("spgemm", self.A, "-o", "", says="empty file name")
        self.usage_error("simrank", self.A, "-o", "", says="empty file name")
        self.usage_error("convert", self.A, "", says="empty file name")
        self.usage_error("bogus", says="unknown subcommand 'bogus'; the subcommands are "
                         "info, convert, spgemm, spmm, spmv, simrank")
        self.usage_error("bogus", self.A, "--json", says="'bogus'")
        self.usage_error("spgemm", self.A, "--algo", "fastest", says="unknown algorithm")

    def test_algorithms_this_build_has(self):
        help_text = libra("spgemm", "--help").stdout
        if "auto|panel|outer|cdm|hm|hetero|kk|reference|cusparse" in help_text:
            self.skipTest("a CUDA build: cusparse is there")  # covered on the GPU
        self.assertIn("auto|panel|outer|cdm|hm|hetero|kk|reference", help_text)
        self.usage_error("spgemm", self.A, "--algo", "cusparse",
                         says="cusparse needs a CUDA build of Libra")


class Heterogeneous(unittest.TestCase):
    """Issue 11: --algo hetero splits the rows between the device and the host
    (OpenMP and Serial in a host-only build) at a calibrated or given share, and
    runs out of core under --device-memory."""

    A = None

    def setUp(self):
        self.A = os.path.join(DATA, "west2021.mtx")

    def hetero(self, *extra):
        got = json_of(self, libra("spgemm", self.A, "--algo", "hetero", "--check", "--json",
                                  *extra))
        self.assertEqual((got["algo"], got["check"]), ("hetero", "ok"))
        h = got["hetero"]
        self.assertEqual(h["device_products"] + h["host_products"], got["products"])
        return h

    def test_calibrated_given_and_out_of_core(self):
        # A small product (below 2^24 products) goes uncalibrated to the side
        # whose memory holds A and B: the tool reads them into host memory, which
        # is the device's in a host-only build (OpenMP as the device).
        got = json_of(self, libra("spgemm", self.A, "--algo", "hetero", "--json"))
        h = got["hetero"]
        self.assertFalse(h["calibrated"])
        gpu = "Cuda" in got["execution_space"]
        self.assertEqual((h["host_only"], h["device_only"]), (gpu, not gpu))
        # ... on A and B where they are, no copy, no ranking.
        self.assertEqual(h["device_in_place"], not gpu)
        self.assertFalse(h["device_first"])
        text = libra("spgemm", self.A, "--algo", "hetero").stdout
        self.assertIn("(unmeasured)", text)
        # A larger one is calibrated; R is the modelled fastest of the host
        # alone, the device alone, or a split at K / (K + 1).
        got = json_of(self, libra("spgemm", "--generate", "rmat:13:16", "--algo", "hetero",
                                  "--check", "--json"))
        self.assertEqual(got["check"], "ok")
        h = got["hetero"]
        self.assertTrue(h["calibrated"])
        self.assertGreater(h["k"], 0)
        R = h["gpu_share"]
        # In a host-only build A and B are in the device's memory: its product
        # ran first and, with the device alone chosen, was the answer.
        self.assertEqual(h["device_first_reused"], not gpu and R == 1)
        if 0 < R < 1:
            self.assertAlmostEqual(R, h["k"] / (h["k"] + 1))
        else:
            self.assertEqual(h["device_only"] or h["host_only"], True)
        self.assertEqual(self.hetero("--gpu-share", "0")["device_products"], 0)
        self.assertTrue(self.hetero("--gpu-share", "0")["host_only"])
        self.assertEqual(self.hetero("--gpu-share", "1")["host_products"], 0)
        self.assertTrue(self.hetero("--gpu-share", "1")["device_only"])
        h = self.hetero("--gpu-share", "0.5")
        self.assertTrue(h["kept_on_device"])
        self.assertGreater(h["download_chunks"], 0)
        h = self.hetero("--gpu-share", "1", "--device-memory", "1.2MB")
        self.assertTrue(h["out_of_core"])
        self.assertGreater(h["device_panels"], 1)
        self.assertEqual(h["device_memory"], 1200000)
        self.assertEqual(h["b_column_blocks"], 0)
        # B (104 KB) leaves less than 1 MiB of 1.13 MB: its columns go in blocks
        # of a quarter of what lies beyond 1 MiB, each a product of its own.
        h = self.hetero("--gpu-share", "1", "--device-memory", "1.13MB")
        self.assertGreater(h["b_column_blocks"], 1)
        self.assertEqual(h["device_memory"], 1130000)
        text = libra("spgemm", self.A, "--algo", "hetero", "--gpu-share", "1",
                     "--device-memory", "1.13MB").stdout
        self.assertIn("its columns ran in %d blocks" % h["b_column_blocks"], text)
        text = libra("spgemm", self.A, "--algo", "hetero", "--gpu-share", "0.5").stdout
        self.assertIn("device share R 0.5", text)

    def test_flags_are_checked(self):
        usage = Flags.usage_error
        usage(self, "spgemm", self.A, "--algo", "hetero", "--gpu-share", "1.5",
              says="between 0 and 1")
        usage(self, "spgemm", self.A, "--gpu-share", "0.5", says="go with --algo hetero")
        usage(self, "spgemm", self.A, "--device-memory", "1GB", says="go with --algo hetero")
        # Too small for B, even in column blocks: the library's reason, a usage
        # error. The share makes
        # the device take part: left to choose, a CUDA build runs a product this
        # small on the host alone (test_calibrated_given_and_out_of_core), which
        # needs no device memory.
        usage(self, "spgemm", self.A, "--algo", "hetero", "--gpu-share", "0.5",
              "--device-memory", "200KB", says="column blocks")


class DiagonalStorage(unittest.TestCase):
    """Issue 9: --algo cdm|hm through diagonal storage; matrices it does not suit are
    refused with exit 3, naming the inputs."""

    def test_products_match_the_oracle(self):
        path = os.path.join(DATA, "olm1000.mtx")  # a band: kl 2, ku 3, 6 diagonals
        for algo in ("cdm", "hm"):
            with self.subTest(algo=algo):
                got = json_of(self, libra("spgemm", path, "--algo", algo, "--check", "--json"))
                self.assertEqual((got["algo"], got["check"]), (algo, "ok"))
        info = json_of(self, libra("info", path, "--json"))
        self.assertEqual(info["compact_diagonal_values"], 6 * 1000)
        self.assertIn("diagonal storage  HM ", libra("info", path).stdout)

    def test_unsuited_matrices_are_refused(self):
        rect = os.path.join(DATA, "lp_afiro.mtx")  # 27 x 51
        p = libra("spgemm", rect, rect, "--transpose-b", "--algo", "cdm")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn(rect, p.stderr)
        self.assertIn("needs square matrices", p.stderr)
        self.assertEqual(p.stdout, "")
        graph = os.path.join(DATA, "ca-GrQc.mtx")  # scattered entries
        for algo in ("cdm", "hm"):
            with self.subTest(algo=algo):
                p = libra("spgemm", graph, "--algo", algo)
                self.assertEqual(p.returncode, 3, p.stderr)
                self.assertIn(graph, p.stderr)
                self.assertIn("max_fill", p.stderr)
                self.assertIn("--diagonal-max-fill", p.stderr)
                self.assertEqual(p.stdout, "")

    def test_max_fill_flag(self):
        # ca-GrQc by diagonals holds far more than 4x its entries: refused by
        # default and at 10, taken (and right) with no limit; the flag goes
        # with cdm|hm only and takes a factor of 0 or more.
        graph = os.path.join(DATA, "ca-GrQc.mtx")
        p = libra("spgemm", graph, "--algo", "hm", "--diagonal-max-fill", "10")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("max_fill = 10", p.stderr)
        path = os.path.join(DATA, "olm1000.mtx")
        got = json_of(self, libra("spgemm", path, "--algo", "hm", "--diagonal-max-fill",
                                  "0", "--check", "--json"))
        self.assertEqual((got["algo"], got["check"]), ("hm", "ok"))
        p = libra("spgemm", path, "--algo", "cdm", "--diagonal-max-fill", "0.5")
        self.assertEqual(p.returncode, 3, p.stderr)  # 6,000 values > 0.5 x 3,996
        self.assertIn("max_fill = 0.5", p.stderr)
        usage = Flags.usage_error
        usage(self, "spgemm", path, "--diagonal-max-fill", "2", says="goes with --algo cdm")
        usage(self, "spgemm", path, "--algo", "hm", "--diagonal-max-fill", "-1",
              says="not a factor")


class Messages(unittest.TestCase):
    """Item 10: what is multiplied and where, said accurately."""

    def test_transpose_b_and_products(self):
        rect = os.path.join(DATA, "lp_afiro.mtx")  # 27 x 51
        square = os.path.join(DATA, "olm1000.mtx")
        for args, product, shape in (
                ([rect], "A * A^T", (27, 27)),
                ([rect, "--transpose-b"], "A * A^T", (27, 27)),
                ([rect, rect, "--transpose-b"], "A * B^T", (27, 27)),
                ([square], "A * A", (1000, 1000)),
                ([square, "--transpose-b"], "A * A^T", (1000, 1000)),
                ([square, square], "A * B", (1000, 1000))):
            with self.subTest(args=args):
                got = json_of(self, libra("spgemm", *args, "--check", "--json"))
                self.assertEqual((got["product"], got["check"]), (product, "ok"))
                self.assertEqual((got["rows"], got["cols"]), shape)
                self.assertEqual(got["a_file"], args[0])
                self.assertEqual(got["b_file"], args[1] if len(args) > 1 and
                                 not args[1].startswith("-") else None)
                p = libra("spgemm", *args)
                self.assertTrue(p.stdout.startswith("C = %s with " % product), p.stdout)
        p = libra("spgemm", rect, rect)  # 27 x 51 times 27 x 51
        self.assertEqual(p.returncode, 2)
        self.assertIn("A is 27 x 51 but B is 27 x 51: inner dimensions differ", p.stderr)
        p = libra("spgemm", rect, square, "--transpose-b")
        self.assertIn("A is 27 x 51 but B^T is 1000 x 1000", p.stderr)
        got = json_of(self, libra("spgemm", "--generate", "rmat:8:4", "--json"))
        self.assertEqual((got["a_file"], got["generate"], got["product"]),
                         (None, "rmat:8:4", "A * A"))

    def test_reference_runs_on_the_host_sequentially(self):
        path = os.path.join(DATA, "olm1000.mtx")
        got = json_of(self, libra("spgemm", path, "--algo", "reference", "--json"))
        self.assertEqual(got["execution_space"], "host (sequential)")
        p = libra("spgemm", path, "--algo", "reference")
        self.assertIn(" with reference on host (sequential)", p.stdout)
        self.assertEqual(json_of(self, libra("info", path, "--json"))["file"], path)
        got = json_of(self, libra("simrank", path, "--json", "--iterations", "1"))
        self.assertEqual(got["file"], path)


class Demo(unittest.TestCase):
    """Item 12: scripts/demo.sh labels what it computes, goes on past a file a step
    cannot take, and says what the numbers mean."""

    def test_rectangular_then_square(self):
        demo = os.path.join(DATA, os.pardir, os.pardir, "scripts", "demo.sh")
        rect = os.path.join(DATA, "lp_afiro.mtx")
        square = os.path.join(DATA, "olm1000.mtx")
        p = subprocess.run(["bash", demo, rect, square], capture_output=True, text=True,
                           env=dict(ENV, LIBRA_CLI=LIBRA), timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        out = p.stdout
        self.assertIn("Libra's default (`auto`) is the row-panel algorithm", out)
        self.assertIn("GFLOP/s is 2 x products", out)
        self.assertIn("== libra spgemm %s: C = A*A^T (A is 27 x 51, not square)" % rect, out)
        self.assertIn("== libra spgemm %s: C = A*A by Libra (its default algorithm)" % square, out)
        self.assertIn("C = A * A with panel on", out)
        self.assertNotIn("C = A*A by", out.split("== libra info " + square)[0])
        # simrank refuses the rectangular file; the demo says so and goes on.
        first, second = out.split("== libra info " + square)
        self.assertIn("-- skipped: the file does not suit this step", first)
        self.assertIn("SimRank needs a square adjacency matrix", p.stderr)
        self.assertIn("SimRank of %s" % square, second)
        self.assertIn("check against the reference oracle: ok", second)
        self.assertTrue(out.rstrip().endswith("demo: done"))


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


# ---- spmm --------------------------------------------------------------------------


def read_dense_array(path):
    """A '%%MatrixMarket matrix array real general' file: (rows, cols, column-major)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert lines[0].split()[:3] == ["%%MatrixMarket", "matrix", "array"], lines[0]
    body = [l for l in lines[1:] if l.strip() and not l.startswith("%")]
    rows, cols = (int(w) for w in body[0].split())
    values = [float(l) for l in body[1:]]
    assert len(values) == rows * cols, path
    return rows, cols, values


def generated_x(i, k):
    """The generator `libra spmm --columns` documents."""
    return ((7 * i + 13 * k + 3) % 17 - 8) / 8.0


def naive_spmm(m, x, k):
    """Y = A * X, X given as x(i, k); returns column-major Y and the scales."""
    y = [0.0] * (m.rows * k)
    scale = [0.0] * (m.rows * k)
    for (i, j), v in m.entries.items():
        for c in range(k):
            y[c * m.rows + i] += v * x(j, c)
            scale[c * m.rows + i] += abs(v * x(j, c))
    return y, scale


class Spmm(TempDirTest):
    """`libra spmm`: Y = A * X with X generated (--columns) or read (--dense)."""

    def assert_y(self, path, m, x, k):
        rows, cols, got = read_dense_array(path)
        self.assertEqual((rows, cols), (m.rows, k))
        want, scale = naive_spmm(m, x, k)
        for e, (g, w) in enumerate(zip(got, want)):
            self.assertLessEqual(abs(g - w), 1e-12 * scale[e], "entry %d" % e)

    def test_generated_x(self):
        for name in ("lp_afiro.mtx", "olm1000.mtx", "west2021.mtx"):
            for k in (1, 3, 8):
                with self.subTest(name=name, k=k):
                    a = os.path.join(DATA, name)
                    out = self.path("Y.mtx")
                    p = libra("spmm", a, "--columns", str(k), "-o", out, "--json", "--check")
                    j = json_of(self, p)
                    m = read_matrix_market(a)
                    self.assertEqual((j["rows"], j["cols"], j["k"]), (m.rows, m.cols, k))
                    self.assertEqual(j["nnz_a"], len(m.entries))
                    self.assertEqual(j["flops"], 2 * len(m.entries) * k)
                    self.assertEqual(j["check"], "ok")
                    self.assertTrue(j["x_generated"])
                    self.assertIsNone(j["x_file"])
                    self.assertIn(j["path"], ("host_rows", "team_panels", "team_staged"))
                    self.assert_y(out, m, generated_x, k)

    def test_dense_x_array_and_coordinate(self):
        a = os.path.join(DATA, "lp_afiro.mtx")  # 27 x 51
        m = read_matrix_market(a)
        k = 2
        vals = [[(i * 3 + c * 5) % 7 - 3.5 for c in range(k)] for i in range(m.cols)]
        array = self.path("X.mtx")
        with open(array, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix array real general\n%% a comment\n")
            f.write("%d %d\n" % (m.cols, k))
            for c in range(k):
                for i in range(m.cols):
                    f.write("%r\n" % vals[i][c])
        coord = self.path("Xc.mm")
        with open(coord, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write("%d %d 2\n1 1 4\n%d 2 -2\n" % (m.cols, k, m.cols))
        for x_file, x in ((array, lambda i, c: vals[i][c]),
                          (coord, lambda i, c: {(0, 0): 4.0, (m.cols - 1, 1): -2.0}
                           .get((i, c), 0.0))):
            with self.subTest(x=x_file):
                out = self.path("Y.mm")
                p = libra("spmm", a, "--dense", x_file, "-o", out, "--json")
                j = json_of(self, p)
                self.assertEqual(j["x_file"], x_file)
                self.assertEqual(j["k"], k)
                self.assert_y(out, m, x, k)
        # Y on stdout: the matrix alone there, the report on stderr.
        p = libra("spmm", a, "--columns", "2", "-o", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("%%MatrixMarket matrix array real general\n27 2\n"))
        self.assertIn("Y = A * X", p.stderr)

    def test_usage_and_bad_input(self):
        a = os.path.join(DATA, "lp_afiro.mtx")
        good_x = self.path("X.mtx")
        with open(good_x, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix array real general\n51 1\n" + "1\n" * 51)
        short_x = self.path("short.mtx")
        with open(short_x, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix array real general\n50 1\n" + "1\n" * 50)
        bad_x = self.path("bad.mtx")
        with open(bad_x, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix array real general\n51 1\n" + "1\n" * 3 + "x\n")
        for args, code, message in (
                ([a], 2, "--columns K or --dense"),
                ([a, "--columns", "2", "--dense", good_x], 2, "--columns K or --dense"),
                ([a, "--columns", "0"], 2, "positive"),
                ([a, "--columns", "-3"], 2, ""),
                ([a, "--columns", "2", "-o", self.path("Y.txt")], 2, "Matrix Market array"),
                ([a, "--columns", "2", "-o", self.path("Y")], 2, "Matrix Market array"),
                ([a, "--dense", self.path("X.txt")], 2, "Matrix Market"),
                ([a, "--dense", short_x], 2, "as many rows as A has columns"),
                ([a, "--dense", bad_x], 3, "bad.mtx:6:"),
                ([a, "--dense", self.path("missing.mtx")], 1, "missing.mtx"),
                ([os.path.join(DATA, "missing.mtx"), "--columns", "1"], 1, "missing.mtx"),
                ([a, "--columns", "1", "-o", self.path("no/such/Y.mtx")], 1, "cannot create"),
        ):
            with self.subTest(args=args):
                p = libra("spmm", *args)
                self.assertEqual(p.returncode, code, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertIn(message, p.stderr)
        # Nothing was left behind by the failures above.
        self.assertEqual(sorted(os.listdir(self.dir.name)),
                         ["X.mtx", "bad.mtx", "short.mtx"])
        p = libra("spmm", "--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("--columns", p.stdout)



# ---- spmv --------------------------------------------------------------------------


class Spmv(TempDirTest):
    """`libra spmv`: y = A * x on every format and partition, checked against a
    plain Python product of the file's entries."""

    def assert_y(self, path, m, x, k):
        rows, cols, got = read_dense_array(path)
        self.assertEqual((rows, cols), (m.rows, k))
        want, scale = naive_spmm(m, x, k)
        for e, (g, w) in enumerate(zip(got, want)):
            self.assertLessEqual(abs(g - w), 1e-12 * scale[e], "entry %d" % e)

    def test_generate(self):
        j = json_of(self, libra("spmv", "--generate", "band:300:5", "--check", "--json"))
        self.assertEqual((j["rows"], j["cols"], j["nnz"]), (300, 300, 5 * 300 - 6))
        self.assertEqual(j["check"], "ok")
        for args, words in ((["--generate", "band:10:4"], "odd"),
                            (["--generate", "band:0:1"], "ROWS"),
                            (["--generate", "rmat:31:4"], "out of range"),
                            (["--generate", "grid:4:4"], "band:ROWS:DIAGONALS"),
                            ([], "give a matrix file A or --generate"),
                            ([os.path.join(DATA, "lp_afiro.mtx"), "--generate", "rmat:4:4"],
                             "not both")):
            with self.subTest(args=args):
                p = libra("spmv", *args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(words, p.stderr)

    def test_every_format_and_partition(self):
        runs = [["--format", f] for f in ("csr", "csc", "coo", "ell")]
        for part in ("rows", "pcsr", "pcsc", "pcoo"):
            for parts in ("1", "3", "7"):
                runs.append(["--partition", part, "--parts", parts])
        for name in ("lp_afiro.mtx", "west2021.mtx"):
            a = os.path.join(DATA, name)
            m = read_matrix_market(a)
            for extra in runs:
                with self.subTest(name=name, args=extra):
                    out = self.path("y.mtx")
                    p = libra("spmv", a, *extra, "--iterations", "2", "-o", out, "--json",
                              "--check")
                    j = json_of(self, p)
                    self.assertEqual((j["rows"], j["cols"], j["k"]), (m.rows, m.cols, 1))
                    self.assertEqual(j["nnz"], len(m.entries))
                    self.assertEqual(j["check"], "ok")
                    self.assertEqual(j["iterations"], 2)
                    if "--partition" in extra:
                        parts = int(extra[3])
                        self.assertEqual(j["path"], "partitioned")
                        self.assertEqual(j["parts"], parts)
                        self.assertEqual(sum(j["part_nnz"]), len(m.entries))
                        if extra[1] == "rows":  # equal row counts
                            self.assertLessEqual(max(j["part_lines"]) - min(j["part_lines"]),
                                                 1)
                        else:  # equal nonzeros
                            self.assertLessEqual(max(j["part_nnz"]) - min(j["part_nnz"]), 1)
                    else:
                        self.assertEqual(j["format"], extra[1])
                        # One vector: CSR's tiles on GPUs, the merge path on hosts
                        # (the rows kernel where the CSR's plan chose it); CSC's
                        # and COO's tiles on GPUs, their segments on hosts.
                        on_gpu = j["execution_space"] == "Cuda"
                        paths = {"csr": ("csr_tiles", "csr_rows") if on_gpu
                                 else ("csr_merge_path",),
                                 "csc": ("csc_tiles",) if on_gpu
                                 else ("csc_scatter", "csc_private"),
                                 "coo": ("coo_tiles",) if on_gpu else ("coo_runs",),
                                 "ell": ("ell_rows", "ell_rows_tail")}
                        self.assertIn(j["path"], paths[extra[1]])
                        # CSR's products take a plan made once: its tiles' boundaries
                        # on GPUs; host spaces need none.
                        self.assertEqual(j["planned"], extra[1] == "csr" and on_gpu)
                        # Row sums only in planned tiles (GPUs).
                        self.assertIn(j["row_sums"], (False, True) if j["planned"]
                                      and j["path"] == "csr_tiles" else (False,))
                    self.assert_y(out, m, generated_x, 1)

    def test_x_file_with_several_columns(self):
        a = os.path.join(DATA, "lp_afiro.mtx")  # 27 x 51
        m = read_matrix_market(a)
        k = 3
        vals = [[(i * 3 + c * 5) % 7 - 3.5 for c in range(k)] for i in range(m.cols)]
        x_file = self.path("x.mtx")
        with open(x_file, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix array real general\n")
            f.write("%d %d\n" % (m.cols, k))
            for c in range(k):
                for i in range(m.cols):
                    f.write("%r\n" % vals[i][c])
        for extra in ([], ["--format", "csc"], ["--partition", "pcoo", "--parts", "4"]):
            with self.subTest(args=extra):
                out = self.path("y.mm")
                j = json_of(self, libra("spmv", a, "--x", x_file, *extra, "-o", out,
                                        "--json"))
                self.assertEqual(j["k"], k)
                self.assertEqual(j["x_file"], x_file)
                self.assert_y(out, m, lambda i, c: vals[i][c], k)
        # y on stdout: the matrix alone there, the report on stderr.
        p = libra("spmv", a, "-o", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("%%MatrixMarket matrix array real general\n27 1\n"))
        self.assertIn("y = A * x", p.stderr)

    def test_usage_and_bad_input(self):
        a = os.path.join(DATA, "lp_afiro.mtx")
        short_x = self.path("short.mtx")
        with open(short_x, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix array real general\n50 1\n" + "1\n" * 50)
        bad_x = self.path("bad.mtx")
        with open(bad_x, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix array real general\n51 1\n" + "1\n" * 3 + "x\n")
        bad_a = self.path("bad_a.mtx")
        with open(bad_a, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 2\n")
        for args, code, message in (
                ([a, "--format", "dia"], 2, "--format"),
                ([a, "--partition", "cols"], 2, "--partition"),
                ([a, "--partition", "pcsc", "--format", "csr"], 2, "cannot be combined"),
                ([a, "--parts", "3"], 2, "--parts needs --partition"),
                ([a, "--partition", "pcsr", "--parts", "0"], 2, "positive"),
                ([a, "--iterations", "0"], 2, "positive"),
                ([a, "-o", self.path("y.txt")], 2, "Matrix Market array"),
                ([a, "--x", self.path("x.txt")], 2, "Matrix Market"),
                ([a, "--x", short_x], 2, "has 51 columns"),
                ([a, "--x", bad_x], 3, "bad.mtx:6:"),
                ([bad_a], 3, "bad_a.mtx:4:"),
                ([a, "--x", self.path("missing.mtx")], 1, "missing.mtx"),
                ([os.path.join(DATA, "missing.mtx")], 1, "missing.mtx"),
                ([a, "-o", self.path("no/such/y.mtx")], 1, "cannot create"),
        ):
            with self.subTest(args=args):
                p = libra("spmv", *args)
                self.assertEqual(p.returncode, code, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertIn(message, p.stderr)
        # Nothing was left behind by the failures above.
        self.assertEqual(sorted(os.listdir(self.dir.name)),
                         ["bad.mtx", "bad_a.mtx", "short.mtx"])
        p = libra("spmv", "--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("--partition", p.stdout)


class Topology(unittest.TestCase):
    """`libra info --topology`: the machine's NUMA domains, processing units and
    GPUs, as text or JSON; HWLOC_SYNTHETIC stands in for another machine."""

    def test_this_machine(self):
        p = libra("info", "--topology", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        j = json.loads(p.stdout)
        self.assertEqual(j["pus"], os.cpu_count())
        self.assertTrue(j["this_system"])
        self.assertEqual(sorted(u for d in j["numa"] for u in d["pus"]),
                         list(range(os.cpu_count())))
        p = libra("info", "--topology")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("topology from "), p.stdout)
        self.assertIn("NUMA domain %d: PUs " % j["numa"][0]["os_index"], p.stdout)
        self.assertEqual(p.stderr, "")

    def test_this_process_keeps_its_units(self):
        # The tool restarts itself to apply its OpenMP defaults. Where the user set
        # OMP_PROC_BIND alone, the OpenMP runtime has bound the first thread to one
        # core by then, and the restarted tool used to run every thread there.
        allowed = sorted(os.sched_getaffinity(0))
        base = {k: v for k, v in ENV.items() if k != "OMP_NUM_THREADS"}
        for extra in ({}, {"OMP_PROC_BIND": "spread"}, {"OMP_PROC_BIND": "true"},
                      {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}):
            with self.subTest(env=extra):
                p = libra("info", "--topology", "--json", env=dict(base, **extra))
                self.assertEqual(p.returncode, 0, p.stderr)
                j = json.loads(p.stdout)
                self.assertEqual(j["process_pus"], allowed)
                self.assertEqual(j["host_threads"], len(allowed))
        p = libra("info", "--topology", env=dict(base, OMP_PROC_BIND="spread"))
        self.assertIn("this process: %d host thread(s) on PUs " % len(allowed), p.stdout)

    def test_synthetic_machine(self):
        p = libra("info", "--topology", "--json")
        if not json.loads(p.stdout)["source"].startswith("hwloc"):
            self.skipTest("this libra was built without hwloc (LIBRA_ENABLE_HWLOC=OFF)")
        env = dict(ENV, HWLOC_SYNTHETIC="pack:2 numa:1 core:2 pu:2")
        j = json.loads(libra("info", "--topology", "--json", env=env).stdout)
        self.assertFalse(j["this_system"])
        self.assertEqual((j["packages"], j["cores"], j["pus"]), (2, 4, 8))
        self.assertEqual([d["pus"] for d in j["numa"]], [[0, 1, 2, 3], [4, 5, 6, 7]])
        p = libra("info", "--topology", env=env)
        self.assertIn("not this machine", p.stdout)
        self.assertIn("NUMA domain 1: PUs 4-7", p.stdout)

    def test_usage(self):
        p = libra("info")
        self.assertEqual(p.returncode, 2)
        self.assertIn("give a FILE, or --topology", p.stderr)
        p = libra("info", "--topology", os.path.join(DATA, "lp_afiro.mtx"))
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "")


MPIEXEC = None  # --mpiexec: the build has MPI; None: it has not


def index_list(text):
    """[0, 1, 2, 3, 8] from "0-3,8"."""
    out = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


def mpirun(np, *args, env=None, threads="1"):
    """The tool under the MPI launcher, as CI can run it: as root, more ranks than
    cores, ranks unbound, `threads` OpenMP threads each (None: OMP_NUM_THREADS
    unset, the tool's choice) (Open MPI's variables; others ignore them). The
    user's plain environment otherwise (no OMP_PROC_BIND)."""
    e = dict(env or ENV)
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
             OMPI_MCA_rmaps_base_oversubscribe="1",
             OMPI_MCA_hwloc_base_binding_policy="none")
    e.pop("OMP_NUM_THREADS", None)
    if threads is not None:
        e["OMP_NUM_THREADS"] = threads
    return subprocess.run([MPIEXEC, "-np", str(np), LIBRA, *args], capture_output=True,
                          text=True, env=e, timeout=300)


class SpmvMpi(TempDirTest):
    """`mpirun -np P libra spmv`: every part format and version on 1, 2 and 3 ranks
    gives the plain product; rank 0 alone reports and writes; a failure on rank 0
    ends every rank with one message and the right exit code, never a hang."""

    def setUp(self):
        super().setUp()
        if not MPIEXEC:
            self.skipTest("this libra was built without MPI (LIBRA_ENABLE_MPI=OFF)")

    def test_every_partition_and_version(self):
        a = os.path.join(DATA, "west2021.mtx")
        m = read_matrix_market(a)
        runs = [["--partition", "rows"]]
        for part in ("pcsr", "pcsc", "pcoo"):
            for version in ("baseline", "p", "p-opt"):
                if part == "pcsr" and version == "baseline":
                    continue  # that is --partition rows
                runs.append(["--partition", part, "--version", version])
        runs.append(["--partition", "pcsr", "--transport", "host"])
        runs.append(["--partition", "pcsr", "--pieces", "3"])
        runs.append(["--partition", "pcsc", "--balance", "merge-path"])
        runs.append(["--partition", "pcsr", "--cut-slack", "1", "--y-on", "ranks"])
        # y kept on the ranks, gathered once after the iterations for -o and --check.
        for part, version in (("pcsr", "p-opt"), ("pcsr", "p"), ("pcoo", "p-opt"),
                              ("pcsc", "p-opt"), ("pcsc", "baseline")):
            runs.append(["--partition", part, "--version", version, "--y-on", "ranks"])
        runs.append(["--partition", "pcsc", "--version", "p-opt", "--y-on", "ranks",
                     "--column-moves", "reduce-scatter"])
        runs.append(["--partition", "pcsr", "--pieces", "3", "--y-on", "ranks"])
        for np in (1, 2, 3):
            for extra in runs:
                with self.subTest(np=np, args=extra):
                    out = self.path("y.mtx")
                    p = mpirun(np, "spmv", a, *extra, "--iterations", "2", "-o", out,
                               "--json", "--check")
                    j = json_of(self, p)
                    self.assertEqual(j["ranks"], np)
                    self.assertEqual(j["check"], "ok")
                    self.assertEqual(len(j["part_nnz"]), np)
                    self.assertEqual(sum(j["part_nnz"]), len(m.entries))
                    self.assertEqual(sorted(j["rank_of_part"]), list(range(np)))
                    version = extra[3] if "--version" in extra else (
                        "baseline" if extra[1] == "rows" else "p-opt")
                    self.assertEqual(j["version"], version)
                    self.assertEqual(j["merge_on_host"], version != "p-opt")
                    self.assertEqual(len(j["compute_seconds_by_rank"]), np)
                    balance = "merge-path" if "--balance" in extra else "nonzeros"
                    self.assertEqual(j["balance"], balance)
                    self.assertEqual(j["y_on"], "ranks" if "--y-on" in extra else "root")
                    if "--y-on" in extra:  # partial rows sent: pcsr/pcoo a shared row
                        self.assertEqual(len(j["rows_sent"]), np)
                        if extra[1] != "pcsc":
                            self.assertLessEqual(max(j["rows_sent"]), 1)
                        if np == 1:
                            self.assertEqual(j["rows_sent"], [0])
                        if extra[1] == "pcsc":
                            self.assertIn(j["rows_held"], ("by columns", "equal", "blocks"))
                            moves = ("reduce-scatter" if "--column-moves" in extra
                                     else "slices")
                            self.assertEqual(j["column_moves"], moves)
                            self.assertEqual(j["rows_held"] == "blocks",
                                             moves == "reduce-scatter")
                        else:
                            self.assertNotIn("rows_held", j)
                            self.assertNotIn("column_moves", j)
                    else:
                        self.assertNotIn("rows_sent", j)
                    self.assertEqual(j["cut_slack"], 1 if "--cut-slack" in extra else 0)
                    if "--cut-slack" in extra:  # west2021's rows are short: none cut
                        self.assertEqual(sum(j["part_lines"]), m.rows)
                    if version == "baseline":
                        self.assertLessEqual(max(j["part_lines"]) - min(j["part_lines"]), 1)
                    elif balance == "nonzeros" and "--cut-slack" not in extra:
                        self.assertLessEqual(max(j["part_nnz"]) - min(j["part_nnz"]), 1)
                    if "--transport" in extra:
                        self.assertEqual(j["transport"], "host")
                    # y leaves in pieces only from p-opt's pCSR over NCCL or MPI,
                    # or by copy engines: by default on CUDA builds, several ranks.
                    pieces = 0
                    engines = j["execution_space"] == "Cuda" and np > 1
                    if extra[1] == "pcsr" and version == "p-opt" and (
                            engines or j["transport"] in ("nccl", "mpi")):
                        pieces = 3 if "--pieces" in extra else 1
                        if "--y-on" in extra:  # y's rows do not move
                            self.assertNotIn("piece_moves", j)
                        else:
                            self.assertEqual(j["piece_moves"],
                                             "copy-engines" if engines else "transport")
                    self.assertEqual(j["pieces"], pieces)
                    # On GPUs a rank's CSR runs the tiles, or the rows kernel
                    # where its plan's tiles hold short whole rows (west2021's
                    # pieces on an H200), and its CSC and COO their tiles; host
                    # spaces the merge path and the segments.
                    on_gpu = j["execution_space"] == "Cuda"
                    csr = ("csr_tiles", "csr_rows") if on_gpu else ("csr_merge_path",)
                    kernels = {"pcsr": csr, "rows": csr,
                               "pcoo": ("coo_tiles",) if on_gpu else ("coo_runs",),
                               "pcsc": ("csc_tiles",) if on_gpu
                               else ("csc_scatter", "csc_private")}
                    for path in j["paths"]:
                        self.assertTrue(path.startswith(kernels[extra[1]]) or
                                        path == "scale_only", path)
                    # Row sums: a rank's planned CSR tiles (GPUs by default).
                    self.assertEqual(len(j["row_sums"]), len(j["paths"]))
                    for path, sums in zip(j["paths"], j["row_sums"]):
                        if sums:
                            self.assertEqual(path, "csr_tiles")
                    if j["execution_space"] != "Cuda":
                        self.assertFalse(any(j["row_sums"]))
                    self.assert_y(out, m)

    def assert_y(self, path, m):
        rows, cols, got = read_dense_array(path)
        self.assertEqual((rows, cols), (m.rows, 1))
        want, scale = naive_spmm(m, generated_x, 1)
        for e, (g, w) in enumerate(zip(got, want)):
            self.assertLessEqual(abs(g - w), 1e-12 * scale[e], "entry %d" % e)

    def test_text_report_on_rank_0_only(self):
        a = os.path.join(DATA, "lp_afiro.mtx")
        p = mpirun(3, "spmv", a)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("y = A * x on 3 MPI ranks"), 1, p.stdout)
        p = mpirun(2, "spmv", a, "-o", "-")  # y on stdout, the report on stderr
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("%%MatrixMarket matrix array"), p.stdout[:80])
        self.assertEqual(p.stdout.count("%%MatrixMarket"), 1)
        self.assertIn("MPI ranks", p.stderr)

    def test_failures_end_every_rank(self):
        bad = self.path("bad.mtx")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n9 9 1\n")
        a = os.path.join(DATA, "lp_afiro.mtx")
        cases = [(["spmv", bad], 3, "bad.mtx:4:"),
                 (["spmv", self.path("missing.mtx")], 1, "missing.mtx"),
                 (["spmv", a, "--parts", "5"], 2, "--parts 5"),
                 (["spmv", a, "--partition", "rows", "--version", "p"], 2, "baseline"),
                 (["spmv", a, "--partition", "rows", "--balance", "merge-path"], 2,
                  "baseline cuts equal lines"),
                 (["spmv", a, "--format", "ell"], 2, "ell"),
                 (["spmv", a, "--pieces", "2", "--transport", "host", "--piece-moves",
                   "transport"], 2, "pieces"),
                 (["spmv", a, "--pieces", "2", "--partition", "pcoo"], 2, "pieces"),
                 (["spmv", a, "--partition", "rows", "--cut-slack", "0.1"], 2,
                  "baseline cuts whole lines"),
                 (["spmv", a, "--partition", "pcsr", "--y-on", "ranks", "--column-moves",
                   "slices"], 2, "--column-moves"),
                 (["spmv", a, "--x", self.path("x.txt")], 2, "Matrix Market"),
                 (["convert", a, self.path("o.mtx")], 2, "only `libra spmv`")]
        for args, code, words in cases:
            for np in (1, 3) if args[0] == "spmv" else (3,):
                with self.subTest(args=args, np=np):
                    p = mpirun(np, *args)
                    self.assertEqual(p.returncode, code, p.stderr)
                    self.assertEqual(p.stderr.count("libra: "), 1, p.stderr)
                    self.assertIn(words, p.stderr)
                    self.assertEqual(p.stdout, "")
        self.assertFalse(os.path.exists(self.path("o.mtx")))

    def test_nccl_needs_cuda(self):
        a = os.path.join(DATA, "lp_afiro.mtx")
        p = libra("info", a, "--json")  # which space this build runs on
        self.assertEqual(p.returncode, 0, p.stderr)
        p = mpirun(2, "spmv", a, "--transport", "nccl", "--json")
        if p.returncode == 0:
            self.assertEqual(json.loads(p.stdout)["transport"], "nccl")
        else:
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("transport nccl", p.stderr)

    def test_copy_engines_need_cuda(self):
        # Rank 0's copy engines move y's pieces on a CUDA build (ranks on one
        # host); elsewhere the option is refused on every rank with the reason.
        a = os.path.join(DATA, "lp_afiro.mtx")
        p = mpirun(2, "spmv", a, "--piece-moves", "copy-engines", "--pieces", "2",
                   "--json", "--check")
        if p.returncode == 0:
            j = json.loads(p.stdout)
            self.assertEqual((j["piece_moves"], j["pieces"], j["check"]),
                             ("copy-engines", 2, "ok"))
            self.assertEqual(j["execution_space"], "Cuda")
        else:
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(p.stderr.count("libra: "), 1, p.stderr)
            self.assertIn("piece moves copy-engines: ", p.stderr)
        p = mpirun(2, "spmv", a, "--piece-moves", "copy-engines", "--partition", "pcsc")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("copy-engines need p-opt and pCSR", p.stderr)

    def test_generated_matrices(self):
        for spec in ("rmat:9:4", "band:500:7"):
            for np in (1, 2):
                with self.subTest(spec=spec, np=np):
                    j = json_of(self, mpirun(np, "spmv", "--generate", spec, "--check",
                                             "--json"))
                    self.assertEqual(j["check"], "ok")
                    self.assertEqual(j["a_file"], spec)
                    if spec.startswith("band"):
                        self.assertEqual((j["rows"], j["nnz"]), (500, 7 * 500 - 12))

    def test_ranks_share_the_host_cores(self):
        # Unset, OMP_NUM_THREADS becomes the host's CPUs shared among its ranks
        # (ranks of all the CPUs each oversubscribe the host); set, it is kept.
        # Launched unbound, each rank of several is bound to its share before its
        # OpenMP runtime starts, whatever OMP_PROC_BIND says: with a binding one, every
        # rank's threads used to start on the host's first core (2 H200s: ~8 ms per
        # SpMV iteration, each rank waiting for the other's time slice).
        a = os.path.join(DATA, "lp_afiro.mtx")
        online = os.cpu_count()
        allowed = sorted(os.sched_getaffinity(0))
        binds = ({}, {"OMP_PROC_BIND": "spread", "OMP_PLACES": "threads"},
                 {"OMP_PROC_BIND": "close"})
        for np in (1, 2, 3):
            for extra in binds:
                with self.subTest(np=np, env=extra):
                    j = json_of(self, mpirun(np, "spmv", a, "--json", threads=None,
                                             env=dict(ENV, **extra)))
                    units = index_list(j["host_units"])
                    if len(allowed) < online:  # this test runs bound: ranks inherit it
                        self.assertEqual(units, allowed)
                    elif np == 1:
                        self.assertEqual(units, allowed)
                    else:
                        self.assertEqual(len(units), max(1, online // np), j["host_units"])
                    self.assertEqual(j["host_threads"], len(units))
                    # p-opt (the default) places rank 0 unless it was built without
                    # hwloc; the tool has already put it where the placement wants it.
                    if j["placement"].startswith("not placed: Libra was built without"):
                        continue
                    self.assertTrue(j["placement"].startswith("NUMA domain "), j["placement"])
                    if len(allowed) == online:
                        self.assertIn("PUs %s," % j["host_units"], j["placement"])
                        self.assertIn(", where it started", j["placement"])
        j = json_of(self, mpirun(1, "spmv", a, "--json", threads="3"))
        self.assertEqual(j["host_threads"], 3)

    def test_version_without_mpirun_is_a_usage_error(self):
        for extra in (["--version", "p"], ["--pieces", "2"],
                      ["--piece-moves", "copy-engines"], ["--balance", "merge-path"],
                      ["--cut-slack", "0.1"], ["--y-on", "ranks"]):
            p = libra("spmv", os.path.join(DATA, "lp_afiro.mtx"), *extra)
            self.assertEqual(p.returncode, 2)
            self.assertIn("mpirun", p.stderr)
        # A slack outside 0..1 is a usage error before anything else.
        p = libra("spmv", os.path.join(DATA, "lp_afiro.mtx"), "--cut-slack", "2")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--cut-slack", p.stderr)


def main():
    global LIBRA, DATA, SHARED, MPIEXEC
    parser = argparse.ArgumentParser()
    parser.add_argument("--libra", required=True)
    parser.add_argument("--data")
    parser.add_argument("--shared")
    parser.add_argument("--mpiexec")
    args, rest = parser.parse_known_args()
    LIBRA, DATA, SHARED = os.path.abspath(args.libra), args.data, args.shared
    MPIEXEC = args.mpiexec
    loader = unittest.TestLoader()
    if rest:  # test name patterns, as unittest's -k takes them
        loader.testNamePatterns = ["*%s*" % r for r in rest]
    suite = unittest.TestSuite()
    shared_cases = (SharedMatrices,)
    data_cases = (InfoOnShippedMatrices, SnapInput, Convert, BadInput, OutputTargets,
                  CleanStdout, Signals, Outputs, Flags, Heterogeneous, DiagonalStorage,
                  Messages, Demo, Usage, Progress, Spmm, Spmv, SpmvMpi, Topology)
    # Every class with tests is in one of the lists (two once were in none and
    # never ran).
    unlisted = [c.__name__ for c in globals().values()
                if isinstance(c, type) and issubclass(c, unittest.TestCase)
                and unittest.TestLoader().getTestCaseNames(c)
                and c not in shared_cases + data_cases]
    if unlisted:
        parser.error("test classes in no suite list: " + ", ".join(unlisted))
    if SHARED:
        for case in shared_cases:
            suite.addTests(loader.loadTestsFromTestCase(case))
    if DATA:
        for case in data_cases:
            suite.addTests(loader.loadTestsFromTestCase(case))
    if not suite.countTestCases():
        parser.error("give --data and/or --shared")
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
