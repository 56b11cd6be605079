#pragma once
// The check that a file's stated sizes fit what the matrix will be stored in
// (SizeLimits), made before anything is allocated for the matrix.
#include <cstddef>
#include <cstdint>
#include <string>

#include "libra/io/read.hpp"

namespace libra::io::impl {

// Bytes the host holds for each parsed triplet (row, column: int64; value: double).
constexpr std::uint64_t triplet_bytes = 2 * sizeof(std::int64_t) + sizeof(double);

// Throws OverflowError ("FILE:LINE: ...", LINE omitted when 0) when `rows` or
// `cols` exceed limits.max_dimension or `entries` limits.max_entries, and
// InputError when the triplets and the stored matrix would need more memory than
// is available. `symmetric`: the entries' mirror images double them.
void check_sizes(const std::string& path, std::size_t line, std::uint64_t rows,
                 std::uint64_t cols, std::uint64_t entries, bool symmetric,
                 const SizeLimits& limits);

// "745.1 GiB", "12.0 MiB", "512 bytes".
std::string bytes_text(double bytes);

}  // namespace libra::io::impl
