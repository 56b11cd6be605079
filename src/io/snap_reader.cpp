// SNAP edge lists: "source target [weight]" per line, '#' or '%' comments.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "libra/core/error.hpp"
#include "parsers.hpp"
#include "text_lines.hpp"

namespace libra::io::impl {

namespace {

// One node id, kept 0-based (base 0) or shifted down by one (base 1).
bool parse_node_id(std::string_view token, const char* name, int base, std::int64_t& out,
                   std::string& problem) {
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
  out = v - base;
  return true;
}

}  // namespace

Triplets parse_snap(const std::string& path, std::string_view text,
                    const ReadOptions& options) {
  if (options.snap_index_base != 0 && options.snap_index_base != 1) {
    throw ArgumentError("ReadOptions::snap_index_base must be 0 or 1, not " +
                        std::to_string(options.snap_index_base));
  }
  if (text.empty()) throw InputError(path, 0, "empty file (expected an edge list)");
  text = skip_byte_order_mark(text);
  const DataSection section = split_data_section(text, 0, 1, "#%");

  Triplets t;
  t.row.resize(section.entries);
  t.col.resize(section.entries);
  t.val.resize(section.entries);
  std::int64_t* rows = t.row.data();
  std::int64_t* cols = t.col.data();
  double* vals = t.val.data();
  const int base = options.snap_index_base;
  std::atomic<bool> weighted{false};
  parse_data_lines(path, text, section, section.entries, "",
                   [&](std::size_t e, std::string_view line, std::string& problem) {
                     std::string_view f[3];
                     const int n = split_fields(line, f, 3);
                     if (n < 2 || n > 3) {
                       problem = "edge line has " + std::to_string(n) +
                                 (n == 1 ? " field" : " fields") +
                                 ", expected 2 or 3 (source target [weight])" +
                                 binary_note(line);
                       return false;
                     }
                     if (!parse_node_id(f[0], "source", base, rows[e], problem) ||
                         !parse_node_id(f[1], "target", base, cols[e], problem)) {
                       return false;
                     }
                     vals[e] = 1.0;
                     if (n == 2) return true;
                     weighted.store(true, std::memory_order_relaxed);
                     return parse_value(f[2], false, options.allow_nonfinite, "weight",
                                        vals[e], problem);
                   });

  std::int64_t largest = -1;
  const long count = static_cast<long>(section.entries);
#pragma omp parallel for reduction(max : largest)
  for (long e = 0; e < count; ++e) largest = std::max({largest, rows[e], cols[e]});

  t.info.format = FileFormat::snap;
  t.info.field = weighted.load() ? Field::real : Field::pattern;
  t.info.symmetry = Symmetry::general;
  t.info.dense_array = false;
  t.info.rows = largest + 1;
  t.info.cols = largest + 1;
  t.info.stored_entries = section.entries;
  return t;
}

}  // namespace libra::io::impl
