#pragma once
// Tuning knobs of the benchmarks, read from the environment strictly.
#include <charconv>
#include <cstdlib>
#include <string>

#include "libra/core/error.hpp"

namespace libra::bench {

// The positive integer in environment variable `name`, 0 when it is unset or
// empty; anything else is an ArgumentError naming the variable.
inline long long env_number(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return 0;
  const std::string s(text);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || value <= 0) {
    throw ArgumentError(std::string(name) + "='" + s + "' is not a positive integer");
  }
  return value;
}

}  // namespace libra::bench
