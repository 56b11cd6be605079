// The public readers: read the file once, then hand it to the parser its name
// (or ReadOptions::format) chooses.
#include <cctype>
#include <string>
#include <string_view>

#include "libra/io/read.hpp"
#include "parsers.hpp"
#include "text_lines.hpp"

namespace libra::io {

namespace {

// The extension of the last component of `path`, lower case, without the dot;
// "" when it has none (a leading dot starts a hidden name, not an extension).
std::string extension(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.find_last_of('.');
  if (dot == std::string::npos || dot == 0) return "";
  std::string ext = name.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace

FileFormat format_from_name(const std::string& path) {
  const std::string ext = extension(path);
  if (ext == "mtx" || ext == "mm") return FileFormat::matrix_market;
  if (ext == "gz" || ext == "bz2" || ext == "xz" || ext == "zst" || ext == "zip") {
    throw InputError(path, 0,
                     "a compressed file (." + ext +
                         "): Libra reads uncompressed text only, decompress it first");
  }
  return FileFormat::snap;
}

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
