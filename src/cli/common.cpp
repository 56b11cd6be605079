#include "common.hpp"

#include <cstdio>

namespace libra::cli {

void print_error(const std::string& message) {
  std::fprintf(stderr, "libra: %s\n", message.c_str());
  std::fflush(stderr);
}

io::ReadOptions read_options(bool one_based) {
  io::ReadOptions options;
  options.snap_index_base = one_based ? 1 : 0;
  return options;
}

const char* format_name(io::FileFormat format) {
  return format == io::FileFormat::matrix_market ? "matrix_market" : "snap";
}

const char* field_name(io::Field field) {
  switch (field) {
    case io::Field::real:
      return "real";
    case io::Field::integer:
      return "integer";
    case io::Field::pattern:
      return "pattern";
  }
  return "unknown";
}

const char* symmetry_name(io::Symmetry symmetry) {
  switch (symmetry) {
    case io::Symmetry::general:
      return "general";
    case io::Symmetry::symmetric:
      return "symmetric";
    case io::Symmetry::skew_symmetric:
      return "skew-symmetric";
  }
  return "unknown";
}

}  // namespace libra::cli
