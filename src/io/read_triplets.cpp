// The public readers: read the file once, then hand it to its parser.
#include <cctype>
#include <string>
#include <string_view>

#include "libra/io/read.hpp"
#include "parsers.hpp"
#include "text_lines.hpp"

namespace libra::io {

namespace {

bool starts_with_banner(std::string_view text) {
  constexpr std::string_view banner = "%%matrixmarket";
  text = impl::skip_byte_order_mark(text);
  if (text.size() < banner.size()) return false;
  for (std::size_t i = 0; i < banner.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != banner[i]) return false;
  }
  return true;
}

}  // namespace

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
  const std::string text = impl::read_file(path);
  return starts_with_banner(text) ? impl::parse_matrix_market(path, text, options)
                                  : impl::parse_snap(path, text, options);
}

}  // namespace libra::io
