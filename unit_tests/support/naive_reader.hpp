#pragma once
// A deliberately simple Matrix Market / SNAP reader (std::getline and
// std::istringstream, one line at a time) that the tests use as an oracle for
// Libra's parallel parser. It trusts its input: only well-formed files.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "libra/reference/reference.hpp"

namespace libra::test {

struct NaiveFile {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::uint64_t stored = 0;           // entries written in the file
  std::vector<ref::Triplet> entries;  // 0-based, symmetric halves expanded
  ref::Matrix matrix() const { return ref::from_triplets(rows, cols, entries); }
};

inline std::string naive_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline bool naive_skip(const std::string& line, const std::string& comment_chars) {
  const auto p = line.find_first_not_of(" \t\r");
  return p == std::string::npos || comment_chars.find(line[p]) != std::string::npos;
}

inline NaiveFile naive_read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("naive_read: cannot open " + path);
  std::string line;
  std::getline(in, line);
  NaiveFile f;
  if (naive_lower(line).rfind("%%matrixmarket", 0) != 0) {  // SNAP edge list
    std::int64_t largest = -1;
    do {
      if (naive_skip(line, "#%")) continue;
      std::istringstream s(line);
      std::int64_t u = 0, v = 0;
      double w = 1;
      s >> u >> v;
      if (!(s >> w)) w = 1;
      f.entries.emplace_back(u, v, w);
      largest = std::max({largest, u, v});
      ++f.stored;
    } while (std::getline(in, line));
    f.rows = f.cols = largest + 1;
    return f;
  }
  std::istringstream banner(naive_lower(line));
  std::string word, object, format, field, symmetry;
  banner >> word >> object >> format >> field >> symmetry;
  while (std::getline(in, line) && naive_skip(line, "%")) {
  }
  std::istringstream size(line);
  size >> f.rows >> f.cols;
  const bool array = format == "array";
  if (array) {
    f.stored = static_cast<std::uint64_t>(f.rows * f.cols);
    if (symmetry == "symmetric")
      f.stored = static_cast<std::uint64_t>(f.rows * (f.rows + 1) / 2);
    if (symmetry == "skew-symmetric")
      f.stored = static_cast<std::uint64_t>(f.rows * (f.rows - 1) / 2);
  } else {
    size >> f.stored;
  }
  const double mirror = symmetry == "skew-symmetric" ? -1.0 : 1.0;
  std::int64_t ai = 0, aj = 0;  // the next array position
  for (std::uint64_t k = 0; k < f.stored;) {
    if (!std::getline(in, line))
      throw std::runtime_error("naive_read: truncated " + path);
    if (naive_skip(line, "%")) continue;
    std::istringstream s(line);
    std::int64_t i = 0, j = 0;
    double v = 1;
    if (array) {
      if (symmetry != "general" && ai < aj + (symmetry == "skew-symmetric")) {
        ai = aj + (symmetry == "skew-symmetric");
      }
      i = ai;
      j = aj;
      s >> v;
      if (++ai == f.rows) {
        ai = 0;
        ++aj;
      }
    } else {
      s >> i >> j;
      --i;
      --j;
      if (field != "pattern") s >> v;
    }
    f.entries.emplace_back(i, j, v);
    if (symmetry != "general" && i != j) f.entries.emplace_back(j, i, mirror * v);
    ++k;
  }
  return f;
}

}  // namespace libra::test
