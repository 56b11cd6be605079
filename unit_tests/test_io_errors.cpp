// Every kind of bad input file gives libra::InputError naming the file, the
// first bad line and the problem (failed writes: test_output_file.cpp).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <filesystem>
#include <functional>
#include <string>

#include "libra/io/read.hpp"
#include "libra/io/write.hpp"  // format_to_write
#include "support/temp_dir.hpp"

namespace io_errors_test {

using libra::io::ReadOptions;
using Reader = std::function<libra::io::Triplets(const std::string&, const ReadOptions&)>;

const Reader matrix_market = [](const std::string& p, const ReadOptions& o) {
  return libra::io::read_matrix_market_triplets(p, o);
};
const Reader snap = [](const std::string& p, const ReadOptions& o) {
  return libra::io::read_snap_triplets(p, o);
};
const Reader any_format = [](const std::string& p, const ReadOptions& o) {
  return libra::io::read_triplets(p, o);
};

const std::string general = "%%MatrixMarket matrix coordinate real general\n";

// Reads `path` expecting InputError at `line` whose message contains `phrase`.
void expect_error_at(const std::string& path, std::size_t line, const std::string& phrase,
                     const Reader& read = matrix_market,
                     const ReadOptions& options = {}) {
  try {
    read(path, options);
  } catch (const libra::InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(e.problem().find(phrase), std::string::npos)
        << "\"" << e.what() << "\" lacks \"" << phrase << "\"";
    const std::string prefix =
        line ? path + ":" + std::to_string(line) + ": " : path + ": ";
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected libra::InputError, got: " << e.what();
    return;
  }
  ADD_FAILURE() << "no error reading " << path;
}

class IoErrors : public ::testing::Test {
 protected:
  // Writes `text` to a file and expects the error for it.
  void expect_error(const std::string& text, std::size_t line, const std::string& phrase,
                    const Reader& read = matrix_market, const ReadOptions& options = {}) {
    SCOPED_TRACE(::testing::Message() << "file text: \"" << text.substr(0, 160) << "\"");
    expect_error_at(dir.write("bad.txt", text), line, phrase, read, options);
  }
  libra::test::TempDir dir;
};

TEST_F(IoErrors, UnreadableFiles) {
  for (const Reader& read : {matrix_market, snap, any_format}) {
    expect_error_at(dir.path("missing.mtx"), 0, "cannot open", read);
    std::filesystem::create_directories(dir.path("folder"));
    expect_error_at(dir.path("folder"), 0, "directory", read);
    // Not malformed: nothing could be read (the CLI exits 1 for these, not 3).
    EXPECT_THROW(read(dir.path("missing.mtx"), {}), libra::io::FileError);
    EXPECT_THROW(read(dir.path("folder"), {}), libra::io::FileError);
  }
}

// The decision for empty input: an empty Matrix Market file lacks its banner (a
// malformed file); an edge list without edges, empty or not, is a 0 x 0 matrix.
TEST_F(IoErrors, EmptyFiles) {
  expect_error_at(dir.write("empty.mtx", ""), 0, "empty file: missing the %%MatrixMarket",
                  any_format);
  for (const char* text : {"", "\n\n", "# comments only\n"}) {
    const auto t = libra::io::read_triplets(dir.write("empty.txt", text));
    EXPECT_EQ(t.info.rows, 0);
    EXPECT_EQ(t.info.cols, 0);
    EXPECT_TRUE(t.row.empty());
  }
}

// The name decides the format; content never silently turns one into the other.
TEST_F(IoErrors, FileNameDecidesTheFormat) {
  using libra::io::FileFormat;
  EXPECT_EQ(libra::io::format_from_name("a/b.mtx"), FileFormat::matrix_market);
  EXPECT_EQ(libra::io::format_from_name("B.MTX"), FileFormat::matrix_market);
  EXPECT_EQ(libra::io::format_from_name("c.Mm"), FileFormat::matrix_market);
  for (const char* name : {"g.txt", "g.el", "g.tsv", "g.edges", "g", ".mtx", "dir.mtx/g"})
    EXPECT_EQ(libra::io::format_from_name(name), FileFormat::snap) << name;
  for (const char* name : {"a.mtx.gz", "a.txt.bz2", "a.xz", "a.zst", "a.zip"})
    EXPECT_THROW(libra::io::format_from_name(name), libra::InputError) << name;
  // Writing is stricter: only names that say a format get one.
  EXPECT_EQ(libra::io::format_to_write("C.MM"), FileFormat::matrix_market);
  EXPECT_EQ(libra::io::format_to_write("C.Mtx"), FileFormat::matrix_market);
  for (const char* name : {"C.txt", "C.el", "C.TSV", "C.edges"})
    EXPECT_EQ(libra::io::format_to_write(name), FileFormat::snap) << name;
  for (const char* name : {"C", "C.mtx.gz", "C.dat", "dir.mtx/C", "-"})
    EXPECT_FALSE(libra::io::format_to_write(name).has_value()) << name;
  // A headerless .mtx (a size line first, as SuiteSparse's copies sometimes are) is
  // not taken for an edge list.
  const std::string headerless = dir.write("headerless.mtx", "3 3 2\n1 1 1\n2 3 4\n");
  expect_error_at(headerless, 1, "missing the %%MatrixMarket banner", any_format);
  // A Matrix Market file named as an edge list is not read as one either.
  const std::string named_txt = dir.write("m.txt", general + "2 2 1\n1 1 1\n");
  expect_error_at(named_txt, 1, "Matrix Market banner, but the file name says edge list",
                  any_format);
  // ReadOptions::format overrides the name.
  ReadOptions as_mm;
  as_mm.format = FileFormat::matrix_market;
  EXPECT_EQ(libra::io::read_triplets(named_txt, as_mm).info.rows, 2);
  ReadOptions as_edges;
  as_edges.format = FileFormat::snap;
  EXPECT_EQ(libra::io::read_triplets(dir.write("e.mtx", "0 4\n"), as_edges).info.rows, 5);
}

// Sizes are refused when the size line (or an edge list's header) is read,
// before anything is allocated for the matrix.
TEST_F(IoErrors, SizesCheckedBeforeAllocating) {
  using Host = Kokkos::DefaultHostExecutionSpace::device_type;
  const Reader read_wide = [](const std::string& p, const ReadOptions& o) {
    libra::io::read_matrix<double, std::int64_t, std::size_t, Host>(p, o);
    return libra::io::Triplets{};
  };
  ReadOptions as_mm;
  as_mm.format = libra::io::FileFormat::matrix_market;
  // Row offsets for 1e11 rows: 1.6 TB.
  expect_error(general + "99999999999 3 1\n1 1 1\n", 2, "needs about", read_wide, as_mm);
  // 1e11 declared entries: 2.4 TB of triplets, refused even without a matrix type.
  expect_error(general + "2 2 100000000000\n1 1 1\n", 2, "needs about");
  expect_error("# libra: 5 x 5, 100000000000 entries\n0 1\n", 1, "needs about", snap);
  // Without a header the shape comes from the largest id: its line is named.
  expect_error("0 1\n2 3\n0 99999999999\n1 1\n", 3, "needs about", read_wide, {});
  // The ordinal type: 3e9 columns do not fit int.
  const std::string wide = dir.write("wide.mtx", general + "2 3000000000 1\n1 1 1\n");
  try {
    libra::io::read_matrix<double, int, int, Host>(wide);
    ADD_FAILURE() << "3e9 columns fit int?";
  } catch (const libra::OverflowError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(wide + ":2: the columns (3000000000)", 0), 0u)
        << e.what();
  }
  // Limits given by the caller: a 3 x 3 matrix in 100 bytes does not fit.
  ReadOptions tight;
  tight.limits.available_bytes = 100;
  expect_error(general + "3 3 9\n", 2, "more than the 100 bytes of memory free",
               matrix_market, tight);
  tight.limits.max_entries = 4;
  EXPECT_THROW(libra::io::read_matrix_market_triplets(
                   dir.write("n.mtx", general + "3 3 9\n"), tight),
               libra::OverflowError);
}

TEST_F(IoErrors, Banner) {
  expect_error("3 3 1\n1 1 1\n", 1, "missing the %%MatrixMarket banner");
  expect_error("%%MatrixMarketx matrix coordinate real general\n1 1 0\n", 1,
               "unknown banner");
  expect_error("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "incomplete banner");
  expect_error("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
               "\"extra\" at the end of the banner");
  expect_error("%%MatrixMarket vector coordinate real general\n1 0\n", 1,
               "unsupported object \"vector\"");
  expect_error("%%MatrixMarket tensor coordinate real general\n1 1 0\n", 1,
               "unknown object");
  expect_error("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1,
               "unknown format \"sparse\"");
  expect_error("%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1,
               "unknown field \"float\"");
  expect_error("%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1,
               "unsupported field \"complex\"");
  expect_error("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1,
               "unknown symmetry \"upper\"");
  expect_error("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
               "unsupported symmetry \"hermitian\"");
  expect_error("%%MatrixMarket matrix array pattern general\n1 1\n", 1,
               "pattern field needs the coordinate format");
}

TEST_F(IoErrors, SizeLine) {
  expect_error(general + "% only comments\n\n", 3, "ends before the size line");
  expect_error(general, 1, "ends before the size line");
  expect_error(general + "3 x 4\n", 2,
               "number of columns \"x\" in the size line is not an integer");
  expect_error(general + "3 4 1.5\n", 2,
               "number of entries \"1.5\" in the size line is not");
  expect_error(general + "-3 4 0\n", 2, "negative number of rows (-3)");
  expect_error(general + "3 4\n", 2,
               "must hold 3 numbers (rows columns entries), found 2");
  expect_error(general + "3 4 5 6\n", 2, "must hold 3 numbers");
  expect_error("%%MatrixMarket matrix array real general\n2 2 4\n", 2,
               "must hold 2 numbers (rows columns), found 3");
  expect_error(general + "99999999999999999999 3 1\n", 2,
               "does not fit a 64-bit integer");
  expect_error("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2,
               "must be square, the size line says 3 x 4");
  expect_error("%%MatrixMarket matrix array real general\n4000000000 4000000000\n1\n", 2,
               "too large to address");
}

TEST_F(IoErrors, EntryFields) {
  expect_error(general + "3 3 2\n1 1 1\n2 2\n", 4,
               "too few fields in the entry: 2, expected 3");
  expect_error(general + "3 3 1\n1 1 1 7\n", 3,
               "too many fields in the entry: 4, expected 3");
  expect_error("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
               "too many fields in the entry: 3, expected 2 (row column)");
  expect_error("%%MatrixMarket matrix array real general\n1 2\n1\n2 3\n", 4,
               "too many fields in the entry: 2, expected 1");
}

TEST_F(IoErrors, NonNumericIndicesAndValues) {
  expect_error(general + "3 3 1\n1.5 1 1\n", 3, "row index \"1.5\" is not an integer");
  expect_error(general + "3 3 1\n1 abc 1\n", 3, "column index \"abc\" is not an integer");
  expect_error(general + "3 3 1\n0x10 1 1\n", 3, "row index \"0x10\" is not an integer");
  expect_error(general + "3 3 1\n1 1 abc\n", 3, "value \"abc\" is not a number");
  expect_error(general + "3 3 1\n1 1 1.5.5\n", 3, "value \"1.5.5\" is not a number");
  expect_error(general + "3 3 1\n1 1 0x10\n", 3, "value \"0x10\" is not a number");
  expect_error(general + "3 3 1\n1 1 1e400\n", 3, "too large for a double");
  expect_error("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
               "value \"1.5\" is not an integer");
  expect_error(general + "3 3 1\n99999999999999999999 1 1\n", 3,
               "row index \"99999999999999999999\" does not fit a 64-bit integer");
}

TEST_F(IoErrors, IndicesOutOfRange) {
  expect_error(general + "3 4 1\n0 1 1\n", 3, "row index 0 is out of range 1..3");
  expect_error(general + "3 4 1\n4 1 1\n", 3,
               "row index 4 is out of range 1..3 (the matrix has 3 rows");
  expect_error(general + "3 4 1\n1 5 1\n", 3, "column index 5 is out of range 1..4");
  expect_error(general + "3 4 1\n1 -1 1\n", 3, "column index -1 is out of range");
  expect_error(general + "0 0 1\n1 1 1\n", 3, "row index 1 is out of range 1..0");
}

TEST_F(IoErrors, NonFiniteValues) {
  for (const char* v : {"nan", "NaN", "inf", "-Infinity"}) {
    const std::string text = general + "2 2 2\n1 1 1\n2 2 " + v + "\n";
    expect_error(text, 4, "is not finite");
    ReadOptions allow;
    allow.allow_nonfinite = true;
    EXPECT_NO_THROW(
        libra::io::read_matrix_market_triplets(dir.write("ok.mtx", text), allow));
  }
}

TEST_F(IoErrors, EntryCounts) {
  expect_error(general + "3 3 2\n1 1 1\n2 2 2\n% fine\n3 3 3\n1 2 4\n", 6,
               "more entries than the 2 declared");
  expect_error(general + "3 3 3\n1 1 1\n2 2 2\n", 4,
               "file ends after 2 of 3 entries (truncated?)");
  expect_error(general + "3 3 3\n1 1 1\n\n% c\n", 5, "file ends after 1 of 3 entries");
  expect_error(general + "3 3 1\n", 2, "file ends after 0 of 1 entries");
  expect_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5,
               "file ends after 3 of 4 values");
  expect_error("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", 6,
               "more values than the 3");
  // A bad line before the extra entry is reported first.
  expect_error(general + "3 3 2\n1 1 x\n2 2 2\n3 3 3\n", 3,
               "value \"x\" is not a number");
}

TEST_F(IoErrors, SkewSymmetricDiagonal) {
  expect_error(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", 4,
      "entry (2, 2) on the diagonal of a skew-symmetric matrix");
}

TEST_F(IoErrors, BinaryGarbage) {
  std::string binary =
      "\x7f"
      "ELF\x02\x01\x01";
  binary += std::string("\0\0\0\x03\x00\x3e\n\x01\x02", 9);
  expect_error(binary, 1, "missing the %%MatrixMarket banner", matrix_market);
  expect_error(binary, 1, "(byte 0x7F: binary data", matrix_market);
  expect_error(binary, 1, "binary data", snap);
  expect_error(binary, 1, "binary data", any_format);
  expect_error(general + "2 2 2\n1 1 1\n" + std::string("2 2\0\x01\n", 6), 4,
               "binary data");
  expect_error(general + "2 2 1\n" + std::string("1 1 \0", 5) + "\n", 3,
               "value \"\\x00\" is not a number (byte 0x00: binary data");
  expect_error(general + "% ok\n" + std::string("% a\0b\n", 6) + "2 2 0\n", 3,
               "NUL byte in a comment line");
  expect_error(general + "2 2 1\n1 1 1\n" + std::string("% a\0b\n", 6), 4,
               "NUL byte in a comment");
  // Random bytes of every value never crash the reader.
  std::string noise;
  std::uint32_t state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 1664525u + 1013904223u;
    noise += static_cast<char>(state >> 24);
  }
  for (const Reader& read : {matrix_market, snap, any_format}) {
    EXPECT_THROW(read(dir.write("noise.bin", noise), {}), libra::InputError);
    EXPECT_THROW(read(dir.write("noise.mtx", general + "50 50 400\n" + noise), {}),
                 libra::InputError);
  }
}

TEST_F(IoErrors, FirstBadLineWinsAcrossChunks) {
  // About 12 MB: many parse chunks, handled by different threads.
  const std::size_t entries = 1000000;
  std::string text = general + "1000 1000 " + std::to_string(entries) + "\n";
  text.reserve(entries * 13);
  for (std::size_t k = 0; k < entries; ++k) {
    text += std::to_string(k % 1000 + 1) + " " + std::to_string(k / 1000 + 1) + " 0.5\n";
  }
  const auto line_start = [&](std::size_t line) {
    std::size_t pos = 0;
    for (std::size_t l = 1; l < line; ++l) pos = text.find('\n', pos) + 1;
    return pos;
  };
  // Breaks line `line` (1-based) by replacing its first character.
  const auto break_line = [&](std::string t, std::size_t line, char c) {
    t[line_start(line)] = c;
    return t;
  };
  const std::string late = break_line(break_line(text, 900000, 'x'), entries + 2, 'y');
  expect_error(late, 900000, "row index \"x");
  expect_error(break_line(late, 600001, 'z'), 600001, "row index \"z");
  expect_error(break_line(late, 17, 'w'), 17, "row index \"w");
  expect_error(text + "1 1 1\n", entries + 3, "more entries than the 1000000 declared");
}

TEST_F(IoErrors, SnapEdgeLists) {
  expect_error("0 1\n2\n", 2, "edge line has 1 field, expected 2 or 3", snap);
  expect_error("# c\n0 1 2 3\n", 2, "edge line has 4 fields", snap);
  expect_error("0 1\n-1 2\n", 2, "source node id -1 is negative", snap);
  expect_error("0 1.5\n", 1, "target node id \"1.5\" is not an integer", snap);
  expect_error("0 a\n", 1, "target node id \"a\" is not an integer", snap);
  expect_error("0 99999999999999999999\n", 1, "does not fit a 64-bit integer", snap);
  expect_error("0 9223372036854775807\n", 1, "too large", snap);
  expect_error("0 1 abc\n", 1, "weight \"abc\" is not a number", snap);
  expect_error("0 1 nan\n", 1, "weight \"nan\" is not finite", snap);
  ReadOptions one_based;
  one_based.snap_index_base = 1;
  expect_error("1 2\n2 0\n", 2, "target node id 0 in a file read with 1-based", snap,
               one_based);
  // Files not named .mtx/.mm go to the edge-list reader.
  expect_error("FromNodeId ToNodeId\n0 1\n", 1, "source node id \"FromNodeId\"",
               any_format);
  // Every edge has the fields of the first: 2 and 3 do not mix.
  expect_error("# c\n0 1\n1 2\n2 0 0.5\n", 4,
               "edge line has 3 fields, but the first edge (line 2) has 2", snap);
  expect_error("0 1 1.5\n\n1 2\n", 3,
               "edge line has 2 fields, but the first edge (line 1) has 3", snap);
  // Libra's shape header.
  expect_error(
      "# libra: 2 x 3, 1 entries\n0 3\n", 2,
      "target node id 3 is outside the 2 x 3 shape of the libra header on line 1", snap);
  expect_error("% x\n# libra: 2 x 3, 1 entries\n2 0\n", 3, "source node id 2 is outside",
               snap);
  expect_error("# libra: 2 x 3, 1 entries\n0 1\n1 1\n", 3,
               "more edges than the 1 the libra header on line 1 declares", snap);
  expect_error("# libra: 2 x 3, 3 entries\n0 1\n1 1\n# end\n", 4,
               "the file ends after 2 of the 3 edges the libra header on line 1 declares",
               snap);
  expect_error("# libra: 2 by 3\n0 1\n", 1, "malformed libra header", snap);
  expect_error("# libra: 2 x 3, 0 entries\n# libra: 2 x 3, 0 entries\n", 2,
               "a second libra header (the first is on line 1)", snap);
  ReadOptions bad_base;
  bad_base.snap_index_base = 2;
  EXPECT_THROW(libra::io::read_snap_triplets(dir.write("g.txt", "0 1\n"), bad_base),
               libra::ArgumentError);
}

}  // namespace io_errors_test
