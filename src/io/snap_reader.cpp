// Edge lists: "source target" or "source target weight" per line (the same for
// every line), '#' or '%' comments, and optionally Libra's shape header
// "# libra: ROWS x COLS, NNZ entries" before the first edge.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "libra/core/error.hpp"
#include "parsers.hpp"
#include "size_check.hpp"
#include "text_lines.hpp"

namespace libra::io::impl {

namespace {

constexpr std::string_view header_tag = "# libra:";

// What the lines before the first edge say.
struct Preamble {
  std::size_t first_edge_line = 0;  // 0: the file has no edge
  int fields = 0;                   // fields on the first edge's line
  std::size_t header_line = 0;      // 0: no "# libra:" header
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::uint64_t entries = 0;
};

bool parse_count(std::string_view token, std::int64_t& value) {
  return parse_int64(token, value) == NumberStatus::ok && value >= 0;
}

// "# libra: ROWS x COLS, NNZ entries", as write_snap writes it.
void parse_header(const std::string& path, std::size_t number, std::string_view line,
                  Preamble& p) {
  std::string_view f[6];
  const std::string_view rest = line.substr(line.find(header_tag) + header_tag.size());
  const int n = split_fields(rest, f, 6);
  std::int64_t rows = 0, cols = 0, entries = 0;
  const bool ok = n == 5 && parse_count(f[0], rows) && f[1] == "x" && f[2].size() > 1 &&
                  f[2].back() == ',' &&
                  parse_count(f[2].substr(0, f[2].size() - 1), cols) &&
                  parse_count(f[3], entries) && (f[4] == "entries" || f[4] == "entry");
  if (!ok) {
    throw InputError(path, number,
                     "malformed libra header " + quoted(line) +
                         " (expected \"# libra: ROWS x COLS, NNZ entries\")");
  }
  if (p.header_line) {
    throw InputError(path, number,
                     "a second libra header (the first is on line " +
                         std::to_string(p.header_line) + ")");
  }
  p.header_line = number;
  p.rows = rows;
  p.cols = cols;
  p.entries = static_cast<std::uint64_t>(entries);
}

bool starts_with_banner(std::string_view line) {
  constexpr std::string_view banner = "%%matrixmarket";
  if (line.size() < banner.size()) return false;
  for (std::size_t i = 0; i < banner.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != banner[i]) return false;
  }
  return true;
}

Preamble read_preamble(const std::string& path, std::string_view text) {
  Preamble p;
  LineCursor cursor(text, 0, text.size());
  std::string_view line;
  for (std::size_t number = 1; cursor.next(line); ++number) {
    const auto first = first_visible(line);
    if (!first) continue;
    if (number == 1 && starts_with_banner(line)) {
      throw InputError(path, 1,
                       "a Matrix Market banner, but the file name says edge list: name a "
                       "Matrix Market file .mtx or .mm");
    }
    if (*first == '#' || *first == '%') {
      const std::size_t start = line.find(*first);
      if (line.substr(start, header_tag.size()) == header_tag)
        parse_header(path, number, line.substr(start), p);
      continue;
    }
    std::string_view f[4];
    p.first_edge_line = number;
    p.fields = split_fields(line, f, 4);
    return p;
  }
  return p;
}

// One node id: kept 0-based (base 0) or shifted down by one (base 1), and below
// `bound` (the header's shape) when there is one.
bool parse_node_id(std::string_view token, const char* name, int base, std::int64_t bound,
                   const Preamble& p, std::int64_t& out, std::string& problem) {
  std::int64_t v = 0;
  const NumberStatus status = parse_int64(token, v);
  if (status != NumberStatus::ok) {
    problem = std::string(name) + " node id " + quoted(token) +
              (status == NumberStatus::overflow ? " does not fit a 64-bit integer"
                                                : " is not an integer") +
              binary_note(token);
    return false;
  }
  if (v < 0) {
    problem = std::string(name) + " node id " + std::to_string(v) + " is negative";
    return false;
  }
  if (v < base) {
    problem = std::string(name) + " node id 0 in a file read with 1-based node ids";
    return false;
  }
  if (v == std::numeric_limits<std::int64_t>::max()) {
    problem = std::string(name) + " node id " + std::to_string(v) +
              " is too large: the matrix would need id + 1 rows";
    return false;
  }
  if (p.header_line && v - base >= bound) {
    problem = std::string(name) + " node id " + std::to_string(v) + " is outside the " +
              std::to_string(p.rows) + " x " + std::to_string(p.cols) +
              " shape of the libra header on line " + std::to_string(p.header_line);
    return false;
  }
  out = v - base;
  return true;
}

std::string field_problem(int n, const Preamble& p) {
  if (n < 2 || n > 3) {
    return "edge line has " + std::to_string(n) + (n == 1 ? " field" : " fields") +
           ", expected 2 or 3 (source target [weight])";
  }
  return "edge line has " + std::to_string(n) + " fields, but the first edge (line " +
         std::to_string(p.first_edge_line) + ") has " + std::to_string(p.fields) +
         ": every edge needs the same fields (source target, or source target weight)";
}

}  // namespace

Triplets parse_snap(const std::string& path, std::string_view text,
                    const ReadOptions& options) {
  if (options.snap_index_base != 0 && options.snap_index_base != 1) {
    throw ArgumentError("ReadOptions::snap_index_base must be 0 or 1, not " +
                        std::to_string(options.snap_index_base));
  }
  text = skip_byte_order_mark(text);
  const Preamble p = read_preamble(path, text);
  if (p.header_line) {
    check_sizes(path, p.header_line, static_cast<std::uint64_t>(p.rows),
                static_cast<std::uint64_t>(p.cols), p.entries, false, options.limits);
  }
  const DataSection section = split_data_section(text, 0, 1, "#%");
  // Without a header only the triplets' memory is known before parsing.
  if (!p.header_line) check_sizes(path, 0, 0, 0, section.entries, false, SizeLimits{});

  const std::size_t stored = p.header_line
                                 ? std::min<std::uint64_t>(section.entries, p.entries)
                                 : section.entries;
  Triplets t;
  t.row.resize(stored);
  t.col.resize(stored);
  t.val.resize(stored);
  std::int64_t* rows = t.row.data();
  std::int64_t* cols = t.col.data();
  double* vals = t.val.data();
  const int base = options.snap_index_base;
  const std::string too_many = "more edges than the " + std::to_string(p.entries) +
                               " the libra header on line " +
                               std::to_string(p.header_line) + " declares";
  parse_data_lines(
      path, text, section, stored, too_many,
      [&](std::size_t e, std::string_view line, std::string& problem) {
        std::string_view f[3];
        const int n = split_fields(line, f, 3);
        if (n != p.fields || n < 2 || n > 3) {
          problem = field_problem(n, p) + binary_note(line);
          return false;
        }
        if (!parse_node_id(f[0], "source", base, p.rows, p, rows[e], problem) ||
            !parse_node_id(f[1], "target", base, p.cols, p, cols[e], problem)) {
          return false;
        }
        vals[e] = 1.0;
        return n == 2 || parse_value(f[2], false, options.allow_nonfinite, "weight",
                                     vals[e], problem);
      });
  if (p.header_line && section.entries < p.entries) {
    throw InputError(path, section.last_line,
                     "the file ends after " + std::to_string(section.entries) +
                         " of the " + std::to_string(p.entries) +
                         " edges the libra header on line " +
                         std::to_string(p.header_line) + " declares (truncated?)");
  }

  t.info.format = FileFormat::snap;
  t.info.field = p.fields == 3 ? Field::real : Field::pattern;
  t.info.symmetry = Symmetry::general;
  t.info.dense_array = false;
  t.info.shape_declared = p.header_line != 0;
  t.info.stored_entries = stored;
  if (p.header_line) {
    t.info.rows = p.rows;
    t.info.cols = p.cols;
    return t;
  }
  // rows = cols = largest id + 1, checked at the line that holds the largest id.
  std::int64_t largest = -1;
  const long count = static_cast<long>(stored);
#pragma omp parallel for reduction(max : largest)
  for (long e = 0; e < count; ++e) largest = std::max({largest, rows[e], cols[e]});
  t.info.rows = largest + 1;
  t.info.cols = largest + 1;
  try {
    check_sizes(path, 0, static_cast<std::uint64_t>(t.info.rows),
                static_cast<std::uint64_t>(t.info.cols), stored, false, options.limits);
  } catch (const Error&) {
    std::size_t first = stored;
    for (std::size_t e = 0; e < stored && first == stored; ++e) {
      if (rows[e] == largest || cols[e] == largest) first = e;
    }
    const std::size_t line = line_of_entry(text, section, first);
    check_sizes(path, line, static_cast<std::uint64_t>(t.info.rows),
                static_cast<std::uint64_t>(t.info.cols), stored, false, options.limits);
    throw;  // not reached: the same check fails again, now naming the line
  }
  return t;
}

}  // namespace libra::io::impl
