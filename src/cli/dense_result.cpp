#include "dense_result.hpp"

namespace libra::cli {

void print_check(std::FILE* stream, const std::string& check, double error) {
  std::fprintf(stream,
               "check against the reference oracle: %s (largest error %.3g relative "
               "to the entry's sum of |a * x|)\n",
               check.c_str(), error);
}

void write_dense_result(Output& out, const DenseMatrix& Y, const char* name, bool checked,
                        const std::string& check) {
  if (out) {
    try {
      Progress progress("writing " + out.file->path());
      io::write_matrix_market(*out.file, Y);
    } catch (const std::exception& e) {
      throw Failure(exit_failure, e.what());
    }
  }
  if (checked && check != "ok")
    throw Failure(exit_failure,
                  std::string(name) + " differs from the reference oracle's product");
}

}  // namespace libra::cli
