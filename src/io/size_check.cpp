#include "size_check.hpp"

#include <cstdio>

#include "libra/core/error.hpp"
#include "libra/util/memory_budget.hpp"

namespace libra::io::impl {

namespace {

std::string located(const std::string& path, std::size_t line, const std::string& what) {
  return line ? path + ":" + std::to_string(line) + ": " + what : path + ": " + what;
}

}  // namespace

std::string bytes_text(double bytes) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(static_cast<long long>(bytes)) + " bytes";
  int u = -1;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.1f %s", bytes, units[u]);
  return text;
}

void check_sizes(const std::string& path, std::size_t line, std::uint64_t rows,
                 std::uint64_t cols, std::uint64_t entries, bool symmetric,
                 const SizeLimits& limits) {
  const auto too_large = [&](const char* what, std::uint64_t value, std::uint64_t most) {
    throw OverflowError(
        located(path, line,
                std::string("the ") + what + " (" + std::to_string(value) +
                    ") exceed what the index type holds (" + std::to_string(most) + ")"));
  };
  if (rows > limits.max_dimension) too_large("rows", rows, limits.max_dimension);
  if (cols > limits.max_dimension) too_large("columns", cols, limits.max_dimension);
  if (entries > limits.max_entries) too_large("entries", entries, limits.max_entries);

  // In double: the product of two 64-bit counts may not fit 64 bits.
  const double stored = static_cast<double>(entries) * (symmetric ? 2.0 : 1.0);
  const double needed =
      stored * static_cast<double>(triplet_bytes + limits.bytes_per_entry) +
      (static_cast<double>(rows) + 1) * static_cast<double>(limits.bytes_per_row) +
      static_cast<double>(rows) * static_cast<double>(cols) *
          static_cast<double>(limits.bytes_per_cell);
  const std::uint64_t available =
      limits.available_bytes ? limits.available_bytes : free_memory_bytes(false, 0);
  if (needed > static_cast<double>(available)) {
    throw InputError(path, line,
                     "a " + std::to_string(rows) + " x " + std::to_string(cols) +
                         " matrix with " + std::to_string(entries) +
                         " entries needs about " + bytes_text(needed) +
                         " to read and store, more than the " +
                         bytes_text(static_cast<double>(available)) + " of memory free");
  }
}

}  // namespace libra::io::impl
