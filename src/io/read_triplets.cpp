// The public readers: read the file once, then hand it to the parser its name
// (file_names.cpp) or ReadOptions::format chooses.
#include <string>
#include <string_view>

#include "libra/io/read.hpp"
#include "parsers.hpp"
#include "text_lines.hpp"

namespace libra::io {

Triplets read_matrix_market_triplets(const std::string& path,
                                     const ReadOptions& options) {
  const std::string text = impl::read_file(path);
  return impl::parse_matrix_market(path, text, options);
}

Triplets read_snap_triplets(const std::string& path, const ReadOptions& options) {
  const std::string text = impl::read_file(path);
  return impl::parse_snap(path, text, options);
}

Triplets read_triplets(const std::string& path, const ReadOptions& options) {
  const FileFormat format = options.format ? *options.format : format_from_name(path);
  return format == FileFormat::matrix_market ? read_matrix_market_triplets(path, options)
                                             : read_snap_triplets(path, options);
}

}  // namespace libra::io
