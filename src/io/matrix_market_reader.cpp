// Matrix Market (NIST) coordinate and array files: the header is read line by
// line, the entries in parallel over chunks of lines.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "libra/core/error.hpp"
#include "parsers.hpp"
#include "size_check.hpp"
#include "text_lines.hpp"

namespace libra::io::impl {

namespace {

struct Header {
  FileInfo info;
  std::size_t size_line = 0;   // number of the size line
  std::size_t data_begin = 0;  // byte offset of the line after it
  std::uint64_t declared = 0;  // entries (coordinate) or values (array) promised
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

void parse_banner(const std::string& path, std::string_view line, FileInfo& info) {
  std::string_view f[6];
  const int n = split_fields(line, f, 6);
  if (n == 0 || !iequals(f[0], "%%MatrixMarket")) {
    if (line.substr(0, 2) == "%%") {
      throw InputError(
          path, 1,
          "unknown banner " + quoted(n ? f[0] : line) + " (expected %%MatrixMarket)");
    }
    throw InputError(path, 1,
                     "missing the %%MatrixMarket banner a Matrix Market file starts with "
                     "(line 1 is " +
                         quoted(line) + ")" + binary_note(line));
  }
  if (n < 5) {
    throw InputError(
        path, 1,
        "incomplete banner: expected \"%%MatrixMarket matrix coordinate|array "
        "real|integer|pattern general|symmetric|skew-symmetric\"");
  }
  if (n > 5)
    throw InputError(path, 1, "unexpected " + quoted(f[5]) + " at the end of the banner");
  if (!iequals(f[1], "matrix")) {
    throw InputError(
        path, 1,
        (iequals(f[1], "vector") ? "unsupported object " : "unknown object ") +
            quoted(f[1]) + " (only \"matrix\" is supported)");
  }
  if (iequals(f[2], "coordinate")) {
    info.dense_array = false;
  } else if (iequals(f[2], "array")) {
    info.dense_array = true;
  } else {
    throw InputError(
        path, 1, "unknown format " + quoted(f[2]) + " (expected coordinate or array)");
  }
  if (iequals(f[3], "real") || iequals(f[3], "double")) {
    info.field = Field::real;
  } else if (iequals(f[3], "integer")) {
    info.field = Field::integer;
  } else if (iequals(f[3], "pattern")) {
    info.field = Field::pattern;
  } else if (iequals(f[3], "complex")) {
    throw InputError(path, 1,
                     "unsupported field \"complex\": Libra reads real matrices only");
  } else {
    throw InputError(
        path, 1,
        "unknown field " + quoted(f[3]) + " (expected real, integer or pattern)");
  }
  if (iequals(f[4], "general")) {
    info.symmetry = Symmetry::general;
  } else if (iequals(f[4], "symmetric")) {
    info.symmetry = Symmetry::symmetric;
  } else if (iequals(f[4], "skew-symmetric")) {
    info.symmetry = Symmetry::skew_symmetric;
  } else if (iequals(f[4], "hermitian")) {
    throw InputError(
        path, 1, "unsupported symmetry \"hermitian\": Libra reads real matrices only");
  } else {
    throw InputError(path, 1,
                     "unknown symmetry " + quoted(f[4]) +
                         " (expected general, symmetric or skew-symmetric)");
  }
  if (info.dense_array && info.field == Field::pattern) {
    throw InputError(path, 1, "the pattern field needs the coordinate format, not array");
  }
}

std::int64_t size_number(const std::string& path, std::size_t line,
                         std::string_view token, const char* what) {
  std::int64_t v = 0;
  const NumberStatus status = parse_int64(token, v);
  if (status == NumberStatus::invalid) {
    throw InputError(path, line,
                     std::string(what) + " " + quoted(token) +
                         " in the size line is not an integer" + binary_note(token));
  }
  if (status == NumberStatus::overflow) {
    throw InputError(path, line,
                     std::string(what) + " " + quoted(token) +
                         " in the size line does not fit a 64-bit integer");
  }
  if (v < 0) {
    throw InputError(path, line,
                     "negative " + std::string(what) + " (" + std::to_string(v) +
                         ") in the size line");
  }
  return v;
}

void parse_size_line(const std::string& path, std::string_view line, Header& h) {
  FileInfo& info = h.info;
  const int expected = info.dense_array ? 2 : 3;
  std::string_view f[4];
  const int n = split_fields(line, f, 4);
  if (n != expected) {
    throw InputError(path, h.size_line,
                     "the size line must hold " + std::to_string(expected) +
                         " numbers (" +
                         (info.dense_array ? "rows columns" : "rows columns entries") +
                         "), found " + std::to_string(n) + " fields" + binary_note(line));
  }
  info.rows = size_number(path, h.size_line, f[0], "number of rows");
  info.cols = size_number(path, h.size_line, f[1], "number of columns");
  if (info.symmetry != Symmetry::general && info.rows != info.cols) {
    throw InputError(path, h.size_line,
                     "a symmetric or skew-symmetric matrix must be square, the size line "
                     "says " +
                         std::to_string(info.rows) + " x " + std::to_string(info.cols));
  }
  if (!info.dense_array) {
    h.declared = static_cast<std::uint64_t>(
        size_number(path, h.size_line, f[2], "number of entries"));
    return;
  }
  const auto r = static_cast<std::uint64_t>(info.rows);
  const auto c = static_cast<std::uint64_t>(info.cols);
  const std::uint64_t most = std::uint64_t(1) << 62;  // leaves room for the expansion
  if (c != 0 && r > most / c) {
    throw InputError(path, h.size_line,
                     "an array of " + std::to_string(r) + " x " + std::to_string(c) +
                         " values is too large to address");
  }
  if (info.symmetry == Symmetry::general) {
    h.declared = r * c;
  } else if (info.symmetry == Symmetry::symmetric) {
    h.declared = r * (r + 1) / 2;  // the lower triangle with the diagonal
  } else {
    h.declared = r == 0 ? 0 : r * (r - 1) / 2;  // strictly lower: the diagonal is zero
  }
}

Header parse_header(const std::string& path, std::string_view text) {
  Header h;
  LineCursor cursor(text, 0, text.size());
  std::string_view line;
  cursor.next(line);
  parse_banner(path, line, h.info);
  std::size_t number = 1;
  while (cursor.next(line)) {
    ++number;
    const auto first = first_visible(line);
    if (!first) continue;
    if (*first == '%') {
      if (std::memchr(line.data(), '\0', line.size())) {
        throw InputError(path, number, "NUL byte in a comment line" + binary_note(line));
      }
      continue;
    }
    h.size_line = number;
    h.data_begin = cursor.position();
    parse_size_line(path, line, h);
    return h;
  }
  throw InputError(path, number, "the file ends before the size line");
}

// One index of a coordinate entry, 1-based in the file, 0-based in `out`.
bool parse_index(std::string_view token, const char* name, std::int64_t bound,
                 const char* bound_name, std::int64_t& out, std::string& problem) {
  std::int64_t v = 0;
  const NumberStatus status = parse_int64(token, v);
  if (status != NumberStatus::ok) {
    problem = std::string(name) + " index " + quoted(token) +
              (status == NumberStatus::overflow ? " does not fit a 64-bit integer"
                                                : " is not an integer") +
              binary_note(token);
    return false;
  }
  if (v < 1 || v > bound) {
    problem = std::string(name) + " index " + std::to_string(v) + " is out of range 1.." +
              std::to_string(bound) + " (the matrix has " + std::to_string(bound) + " " +
              bound_name + "; indices are 1-based)";
    return false;
  }
  out = v - 1;
  return true;
}

std::string field_count_problem(int found, int expected, const char* layout) {
  return std::string(found < expected ? "too few" : "too many") +
         " fields in the entry: " + std::to_string(found) + ", expected " +
         std::to_string(expected) + " (" + layout + ")";
}

void parse_coordinate_entries(const std::string& path, std::string_view text,
                              const DataSection& section, Triplets& t,
                              const ReadOptions& options) {
  const FileInfo& info = t.info;
  const bool pattern = info.field == Field::pattern;
  const bool integer = info.field == Field::integer;
  const bool skew = info.symmetry == Symmetry::skew_symmetric;
  const int expected = pattern ? 2 : 3;
  const char* layout = pattern ? "row column" : "row column value";
  std::int64_t* rows = t.row.data();
  std::int64_t* cols = t.col.data();
  double* vals = t.val.data();
  const std::string too_many = "more entries than the " + std::to_string(t.row.size()) +
                               " declared in the size line";
  parse_data_lines(
      path, text, section, t.row.size(), too_many,
      [&](std::size_t e, std::string_view line, std::string& problem) {
        std::string_view f[3];
        const int n = split_fields(line, f, 3);
        if (n != expected) {
          problem = field_count_problem(n, expected, layout) + binary_note(line);
          return false;
        }
        if (!parse_index(f[0], "row", info.rows, "rows", rows[e], problem) ||
            !parse_index(f[1], "column", info.cols, "columns", cols[e], problem)) {
          return false;
        }
        if (skew && rows[e] == cols[e]) {
          problem = "entry (" + std::to_string(rows[e] + 1) + ", " +
                    std::to_string(cols[e] + 1) +
                    ") on the diagonal of a skew-symmetric matrix";
          return false;
        }
        vals[e] = 1.0;
        return pattern || parse_value(f[2], integer, options.allow_nonfinite, "value",
                                      vals[e], problem);
      });
}

void parse_array_values(const std::string& path, std::string_view text,
                        const DataSection& section, Triplets& t,
                        const ReadOptions& options) {
  const bool integer = t.info.field == Field::integer;
  double* vals = t.val.data();
  const std::string too_many =
      "more values than the " + std::to_string(t.val.size()) + " the size line declares";
  parse_data_lines(path, text, section, t.val.size(), too_many,
                   [&](std::size_t e, std::string_view line, std::string& problem) {
                     std::string_view f[1];
                     const int n = split_fields(line, f, 1);
                     if (n != 1) {
                       problem = field_count_problem(n, 1, "one value per line") +
                                 binary_note(line);
                       return false;
                     }
                     return parse_value(f[0], integer, options.allow_nonfinite, "value",
                                        vals[e], problem);
                   });
}

// The coordinates of a complete array's values: column-major; symmetric arrays
// hold the lower triangle (skew: without the diagonal) column by column.
void place_array_values(Triplets& t) {
  const std::int64_t m = t.info.rows;
  const std::int64_t n = t.info.cols;
  const std::int64_t skip = t.info.symmetry == Symmetry::skew_symmetric ? 1 : 0;
  std::size_t k = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t first = t.info.symmetry == Symmetry::general ? 0 : j + skip;
    for (std::int64_t i = first; i < m; ++i, ++k) {
      t.row[k] = i;
      t.col[k] = j;
    }
  }
}

// Appends the mirror image (j, i) of every off-diagonal entry (i, j), negated
// for skew-symmetric matrices, after the stored entries.
void expand_symmetric(Triplets& t, bool negate) {
  const std::size_t n = t.row.size();
  constexpr std::size_t block = std::size_t(1) << 16;
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<std::size_t> offsets(blocks + 1, 0);
  const long count = static_cast<long>(blocks);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < count; ++b) {
    std::size_t off_diagonal = 0;
    const std::size_t end = std::min(n, (b + 1) * block);
    for (std::size_t p = b * block; p < end; ++p) off_diagonal += t.row[p] != t.col[p];
    offsets[b + 1] = off_diagonal;
  }
  for (std::size_t b = 0; b < blocks; ++b) offsets[b + 1] += offsets[b];
  const std::size_t total = n + offsets[blocks];
  t.row.resize(total);
  t.col.resize(total);
  t.val.resize(total);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < count; ++b) {
    std::size_t q = n + offsets[b];
    const std::size_t end = std::min(n, (b + 1) * block);
    for (std::size_t p = b * block; p < end; ++p) {
      if (t.row[p] == t.col[p]) continue;
      t.row[q] = t.col[p];
      t.col[q] = t.row[p];
      t.val[q] = negate ? -t.val[p] : t.val[p];
      ++q;
    }
  }
}

}  // namespace

Triplets parse_matrix_market(const std::string& path, std::string_view text,
                             const ReadOptions& options) {
  if (text.empty()) {
    throw InputError(path, 0,
                     "empty file: missing the %%MatrixMarket banner a Matrix Market file "
                     "starts with");
  }
  text = skip_byte_order_mark(text);
  const Header h = parse_header(path, text);
  check_sizes(path, h.size_line, static_cast<std::uint64_t>(h.info.rows),
              static_cast<std::uint64_t>(h.info.cols), h.declared,
              h.info.symmetry != Symmetry::general, options.limits);
  const DataSection section =
      split_data_section(text, h.data_begin, h.size_line + 1, "%");

  Triplets t;
  t.info = h.info;
  t.info.format = FileFormat::matrix_market;
  t.info.stored_entries = h.declared;
  const std::size_t stored = std::min<std::uint64_t>(section.entries, h.declared);
  t.row.resize(stored);
  t.col.resize(stored);
  t.val.resize(stored);
  if (h.info.dense_array) {
    parse_array_values(path, text, section, t, options);
  } else {
    parse_coordinate_entries(path, text, section, t, options);
  }
  if (section.entries < h.declared) {
    throw InputError(path, section.last_line,
                     "the file ends after " + std::to_string(section.entries) + " of " +
                         std::to_string(h.declared) +
                         (h.info.dense_array ? " values" : " entries") + " (truncated?)");
  }
  if (h.info.dense_array) place_array_values(t);
  if (h.info.symmetry != Symmetry::general) {
    expand_symmetric(t, h.info.symmetry == Symmetry::skew_symmetric);
  }
  return t;
}

}  // namespace libra::io::impl
