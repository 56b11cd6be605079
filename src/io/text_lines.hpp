#pragma once
// Machinery shared by the text readers: the whole file in memory, its data lines
// cut into chunks that threads parse independently, fields split on whitespace,
// numbers parsed with std::from_chars, and the first bad line (by line number)
// reported however the chunks were scheduled.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libra/core/error.hpp"
#include "libra/io/read.hpp"

namespace libra::io::impl {

// The bytes of `path`; FileError(path, 0, ...) when it cannot be opened or read,
// or is larger than the free memory.
std::string read_file(const std::string& path);

// `text` without a leading UTF-8 byte order mark.
std::string_view skip_byte_order_mark(std::string_view text);

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// The first non-space character of `line`, or '\0' for a blank line.
inline std::optional<char> first_visible(std::string_view line) {
  for (char c : line) {
    if (!is_space(c))
      return c;  // a NUL byte is visible: binary input must not pass as blank
  }
  return std::nullopt;
}

// Walks the lines of text[begin, end): each line comes without its '\n' and
// without a trailing '\r'.
class LineCursor {
 public:
  LineCursor(std::string_view text, std::size_t begin, std::size_t end)
      : text_(text), pos_(begin), end_(end) {}
  bool next(std::string_view& line) {
    if (pos_ >= end_) return false;
    const char* start = text_.data() + pos_;
    const void* nl = std::memchr(start, '\n', end_ - pos_);
    const std::size_t len =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : end_ - pos_;
    pos_ += nl ? len + 1 : len;
    line = std::string_view(start, len);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }
  std::size_t position() const { return pos_; }  // byte offset of the next line

 private:
  std::string_view text_;
  std::size_t pos_;
  std::size_t end_;
};

// Splits `line` on whitespace, storing at most `max_fields` fields; returns how
// many fields the line has (possibly more than max_fields).
inline int split_fields(std::string_view line, std::string_view* fields, int max_fields) {
  int count = 0;
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (true) {
    while (i < n && is_space(line[i])) ++i;
    if (i == n) return count;
    const std::size_t start = i;
    while (i < n && !is_space(line[i])) ++i;
    if (count < max_fields) fields[count] = line.substr(start, i - start);
    ++count;
  }
}

enum class NumberStatus { ok, invalid, overflow };

// A whole token as a decimal 64-bit integer (an optional '+' or '-' sign).
NumberStatus parse_int64(std::string_view token, std::int64_t& value);
// A whole token as a double (decimal or scientific, inf, nan). Values too small
// for a double round to zero; too large ones are `overflow`.
NumberStatus parse_double(std::string_view token, double& value);

// A matrix value (`what` names it in messages: "value", "weight"): a double, or
// a 64-bit integer when `integer` is set; NaN and Inf only with `allow_nonfinite`.
// Returns false after describing the problem.
bool parse_value(std::string_view token, bool integer, bool allow_nonfinite,
                 const char* what, double& value, std::string& problem);

// `token` quoted for an error message: long tokens cut, bytes outside printable
// ASCII written as \xNN.
std::string quoted(std::string_view token);
// "" for a text line; otherwise a note naming the first byte that text never holds.
std::string binary_note(std::string_view line);

// The problem with one line; `line` is max() while there is none.
struct LineError {
  std::size_t line = std::numeric_limits<std::size_t>::max();
  std::string problem;
  bool found() const { return line != std::numeric_limits<std::size_t>::max(); }
};

// A run of whole lines of the data section that one thread parses.
struct Chunk {
  std::size_t begin = 0;        // byte offset of its first line
  std::size_t end = 0;          // byte offset just past its last line
  std::size_t first_line = 0;   // 1-based number of its first line
  std::size_t first_entry = 0;  // number of data lines before it
  std::size_t entries = 0;      // data lines in it
};

// Data lines are the non-blank lines whose first visible character is not one
// of `comment_chars`.
struct DataSection {
  std::vector<Chunk> chunks;
  std::string_view comment_chars;
  std::size_t entries = 0;    // data lines in the whole section
  std::size_t last_line = 0;  // number of the file's last line
};

// Cuts text[begin, end of text) (starting at line `first_line`) into chunks and
// counts their lines and data lines, in parallel.
DataSection split_data_section(std::string_view text, std::size_t begin,
                               std::size_t first_line, std::string_view comment_chars);

// The 1-based number of the line holding data line `entry` (0-based) of `section`.
std::size_t line_of_entry(std::string_view text, const DataSection& section,
                          std::size_t entry);

// Calls parse(entry, line, problem) for every data line whose entry number is
// below `max_entries`, in parallel over the chunks; `parse` must not throw and
// returns false after describing the line's problem. A data line numbered
// `max_entries` or later is reported as `too_many`; comment lines holding NUL
// bytes are reported too. Throws InputError for the first bad line of the file.
template <class Parse>
void parse_data_lines(const std::string& path, std::string_view text,
                      const DataSection& section, std::size_t max_entries,
                      const std::string& too_many, Parse&& parse);

// Throws InputError(path, ...) for the error with the smallest line, if any.
void throw_first(const std::string& path, const std::vector<LineError>& errors);

// ---- implementation -------------------------------------------------------------

template <class Parse>
LineError parse_chunk(std::string_view text, const Chunk& chunk,
                      std::string_view comment_chars, std::size_t max_entries,
                      const std::string& too_many, Parse& parse) {
  LineError error;
  LineCursor cursor(text, chunk.begin, chunk.end);
  std::string_view line;
  std::size_t number = chunk.first_line;
  std::size_t entry = chunk.first_entry;
  for (; cursor.next(line); ++number) {
    const auto first = first_visible(line);
    if (!first || comment_chars.find(*first) != std::string_view::npos) {
      if (first && std::memchr(line.data(), '\0', line.size())) {
        error.line = number;
        error.problem = "NUL byte in a comment line" + binary_note(line);
        return error;
      }
      continue;
    }
    if (entry >= max_entries) {
      error.line = number;
      error.problem = too_many;
      return error;
    }
    if (!parse(entry, line, error.problem)) {
      error.line = number;
      return error;
    }
    ++entry;
  }
  return error;
}

template <class Parse>
void parse_data_lines(const std::string& path, std::string_view text,
                      const DataSection& section, std::size_t max_entries,
                      const std::string& too_many, Parse&& parse) {
  std::vector<LineError> errors(section.chunks.size());
  const long count = static_cast<long>(section.chunks.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (long c = 0; c < count; ++c) {
    errors[c] = parse_chunk(text, section.chunks[c], section.comment_chars, max_entries,
                            too_many, parse);
  }
  throw_first(path, errors);
}

}  // namespace libra::io::impl
