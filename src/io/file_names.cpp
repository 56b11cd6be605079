// What a file's name says about its format, for reading and for writing.
#include <cctype>
#include <string>

#include "libra/io/read.hpp"
#include "libra/io/write.hpp"

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

bool matrix_market_extension(const std::string& ext) {
  return ext == "mtx" || ext == "mm";
}

}  // namespace

FileFormat format_from_name(const std::string& path) {
  const std::string ext = extension(path);
  if (matrix_market_extension(ext)) return FileFormat::matrix_market;
  if (ext == "gz" || ext == "bz2" || ext == "xz" || ext == "zst" || ext == "zip") {
    throw InputError(path, 0,
                     "a compressed file (." + ext +
                         "): Libra reads uncompressed text only, decompress it first");
  }
  return FileFormat::snap;
}

std::optional<FileFormat> format_to_write(const std::string& path) {
  const std::string ext = extension(path);
  if (matrix_market_extension(ext)) return FileFormat::matrix_market;
  if (ext == "txt" || ext == "el" || ext == "tsv" || ext == "edges")
    return FileFormat::snap;
  return std::nullopt;
}

}  // namespace libra::io
