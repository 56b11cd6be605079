#pragma once
// --generate: the matrices the tool makes instead of reading a file.
//   rmat:SCALE:EDGEFACTOR   an R-MAT graph, 2^SCALE vertices (spgemm, spmv)
//   band:ROWS:DIAGONALS     a square band of DIAGONALS (odd) centred diagonals (spmv)
#include <string>

#include "common.hpp"

namespace libra::cli {

struct GenerateSpec {
  enum class Kind { rmat, band } kind = Kind::rmat;
  int scale = 0;  // rmat
  double edge_factor = 16;
  long long rows = 0;  // band
  int diagonals = 0;
};

// Usage errors (exit 2) name the spec and the forms allowed (band only with
// allow_band).
GenerateSpec parse_generate(const std::string& spec, bool allow_band);
// Refuses, before generating, a matrix that would not fit the memory of Space.
void check_generate_fits(const std::string& text, const GenerateSpec& spec);
// On Space, seed 1, int ordinals.
Matrix<int> generate_matrix(const std::string& text, const GenerateSpec& spec);

}  // namespace libra::cli
