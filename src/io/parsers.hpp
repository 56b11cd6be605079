#pragma once
// The readers behind read_*_triplets, working on a file already in memory (so
// read_triplets reads a file once and then picks the parser).
#include <string>
#include <string_view>

#include "libra/io/read.hpp"

namespace libra::io::impl {

Triplets parse_matrix_market(const std::string& path, std::string_view text,
                             const ReadOptions& options);
Triplets parse_snap(const std::string& path, std::string_view text,
                    const ReadOptions& options);

}  // namespace libra::io::impl
