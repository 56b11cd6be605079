#pragma once
// Banded test matrices for the host reference oracle.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "libra/reference/reference.hpp"

namespace libra::test {

// An n x n band of half-width h (2h + 1 consecutive columns a row inside it),
// its values 1 to 7 by position.
inline ref::Matrix band(std::int64_t n, std::int64_t h) {
  std::vector<ref::Triplet> t;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = std::max<std::int64_t>(0, i - h); j <= std::min(n - 1, i + h);
         ++j)
      t.emplace_back(i, j, 1.0 + static_cast<double>((i + 2 * j) % 7));
  }
  return ref::from_triplets(n, n, t);
}

}  // namespace libra::test
