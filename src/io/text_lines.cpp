#include "text_lines.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "libra/util/memory_budget.hpp"
#include "size_check.hpp"

namespace libra::io::impl {

namespace {

// Chunks this large keep every thread busy on a 100 MB file while the per-chunk
// bookkeeping stays negligible.
constexpr std::size_t chunk_bytes = std::size_t(1) << 18;

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string system_error_text(int err) {
  return std::strerror(err);
}

}  // namespace

std::string read_file(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    throw FileError(path, 0, "cannot open the file: " + system_error_text(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    const int err = errno;
    throw FileError(path, 0, "cannot read the file: " + system_error_text(err));
  }
  if (S_ISDIR(st.st_mode)) throw FileError(path, 0, "is a directory, not a matrix file");
  if (S_ISREG(st.st_mode) &&
      static_cast<std::uint64_t>(st.st_size) > free_memory_bytes(false, 0)) {
    throw FileError(path, 0,
                    "the file (" + bytes_text(static_cast<double>(st.st_size)) +
                        ") is larger than the free memory (" +
                        bytes_text(static_cast<double>(free_memory_bytes(false, 0))) +
                        "): Libra reads a file whole");
  }
  std::string bytes;
  // Regular files are read in one go; pipes and devices grow the buffer as needed.
  std::size_t capacity = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) + 1
                                             : std::size_t(1) << 20;
  bytes.resize(capacity);
  std::size_t used = 0;
  while (true) {
    if (used == bytes.size()) bytes.resize(bytes.size() * 2);
    const ssize_t got = ::read(fd.get(), &bytes[used], bytes.size() - used);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw FileError(path, 0, "cannot read the file: " + system_error_text(err));
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  bytes.resize(used);
  return bytes;
}

std::string_view skip_byte_order_mark(std::string_view text) {
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.substr(0, bom.size()) == bom) text.remove_prefix(bom.size());
  return text;
}

NumberStatus parse_int64(std::string_view token, std::int64_t& value) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
  const char* end = token.data() + token.size();
  const auto result = std::from_chars(token.data(), end, value);
  if (result.ec == std::errc::result_out_of_range) return NumberStatus::overflow;
  if (result.ec != std::errc() || result.ptr != end) return NumberStatus::invalid;
  return NumberStatus::ok;
}

NumberStatus parse_double(std::string_view token, double& value) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
  const char* end = token.data() + token.size();
  const auto result =
      std::from_chars(token.data(), end, value, std::chars_format::general);
  if (result.ptr != end ||
      (result.ec != std::errc() && result.ec != std::errc::result_out_of_range)) {
    return NumberStatus::invalid;
  }
  if (result.ec == std::errc::result_out_of_range) {
    // from_chars does not say which way the value left the range; strtod does.
    const std::string copy(token);
    errno = 0;
    const double v = std::strtod(copy.c_str(), nullptr);
    if (v == HUGE_VAL || v == -HUGE_VAL) return NumberStatus::overflow;
    value = v;  // an underflow: zero or a subnormal
  }
  return NumberStatus::ok;
}

bool parse_value(std::string_view token, bool integer, bool allow_nonfinite,
                 const char* what, double& value, std::string& problem) {
  if (integer) {
    std::int64_t v = 0;
    const NumberStatus status = parse_int64(token, v);
    if (status == NumberStatus::ok) {
      value = static_cast<double>(v);
      return true;
    }
    problem = std::string(what) + " " + quoted(token) +
              (status == NumberStatus::overflow
                   ? " does not fit a 64-bit integer"
                   : " is not an integer (the banner declares the field integer)") +
              binary_note(token);
    return false;
  }
  const NumberStatus status = parse_double(token, value);
  if (status == NumberStatus::invalid) {
    problem =
        std::string(what) + " " + quoted(token) + " is not a number" + binary_note(token);
    return false;
  }
  if (status == NumberStatus::overflow) {
    problem = std::string(what) + " " + quoted(token) + " is too large for a double";
    return false;
  }
  if (!allow_nonfinite && !std::isfinite(value)) {
    problem = std::string(what) + " " + quoted(token) +
              " is not finite (NaN and Inf are rejected unless allow_nonfinite is set)";
    return false;
  }
  return true;
}

std::string quoted(std::string_view token) {
  constexpr std::size_t longest = 40;
  std::string out = "\"";
  for (std::size_t i = 0; i < token.size() && i < longest; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  if (token.size() > longest) out += "...";
  return out + "\"";
}

std::string binary_note(std::string_view line) {
  for (const char ch : line) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && !is_space(ch)) || c == 0x7f) {
      char buf[80];
      std::snprintf(buf, sizeof buf, " (byte 0x%02X: binary data, not a text file)", c);
      return buf;
    }
  }
  return "";
}

DataSection split_data_section(std::string_view text, std::size_t begin,
                               std::size_t first_line, std::string_view comment_chars) {
  DataSection section;
  section.comment_chars = comment_chars;
  for (std::size_t pos = begin; pos < text.size();) {
    std::size_t end = text.size();
    if (text.size() - pos > chunk_bytes) {
      const void* nl = std::memchr(text.data() + pos + chunk_bytes - 1, '\n',
                                   text.size() - pos - chunk_bytes + 1);
      if (nl)
        end = static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1;
    }
    Chunk chunk;
    chunk.begin = pos;
    chunk.end = end;
    section.chunks.push_back(chunk);
    pos = end;
  }
  std::vector<std::size_t> lines(section.chunks.size(), 0);
  const long count = static_cast<long>(section.chunks.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (long c = 0; c < count; ++c) {
    Chunk& chunk = section.chunks[c];
    LineCursor cursor(text, chunk.begin, chunk.end);
    std::string_view line;
    while (cursor.next(line)) {
      ++lines[c];
      const auto first = first_visible(line);
      if (first && comment_chars.find(*first) == std::string_view::npos) {
        ++chunk.entries;
      }
    }
  }
  std::size_t line = first_line;
  for (std::size_t c = 0; c < section.chunks.size(); ++c) {
    section.chunks[c].first_line = line;
    section.chunks[c].first_entry = section.entries;
    line += lines[c];
    section.entries += section.chunks[c].entries;
  }
  section.last_line = line - 1;
  return section;
}

std::size_t line_of_entry(std::string_view text, const DataSection& section,
                          std::size_t entry) {
  // parse_chunk reports the first data line numbered `entry` or later as "too
  // many": with every line accepted, that is the line of `entry`.
  auto accept = [](std::size_t, std::string_view, std::string&) {
    return true;
  };
  for (const Chunk& chunk : section.chunks) {
    if (entry >= chunk.first_entry + chunk.entries) continue;
    return parse_chunk(text, chunk, section.comment_chars, entry, "", accept).line;
  }
  return section.last_line;
}

void throw_first(const std::string& path, const std::vector<LineError>& errors) {
  const LineError* first = nullptr;
  for (const auto& e : errors) {
    if (e.found() && (!first || e.line < first->line)) first = &e;
  }
  if (first) throw InputError(path, first->line, first->problem);
}

}  // namespace libra::io::impl
