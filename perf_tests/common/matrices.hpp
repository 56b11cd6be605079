#pragma once
// The matrices benchmarks run on: files (Matrix Market or SNAP) and generated
// R-MAT graphs, named by the specs of --libra_matrices.
#include <string>
#include <vector>

#include "harness.hpp"

namespace libra::bench {

struct MatrixSpec {
  std::string name;    // benchmark name part: file stem, or "rmat:SCALE:EDGEFACTOR"
  std::string kind;    // MANIFEST.tsv's kind (fem, powerlaw, ...), "rmat", or "file"
  std::string path;    // empty for generated matrices
  int rmat_scale = 0;  // R-MAT only
  double rmat_edge_factor = 0;
  long long band_n = 0;  // "band:N:D": N x N, D diagonals centred on the main one
  int band_diagonals = 0;
  bool is_rmat() const { return path.empty() && band_n == 0; }
  bool is_band() const { return band_n > 0; }
};

// Expands specs in order: a folder gives its *.mtx and *.txt files sorted by name
// (kinds from a MANIFEST.tsv there), a file gives itself, "rmat:S:EF" one R-MAT
// graph and "rmat:S1-S2:EF" one per scale. Throws ArgumentError for a spec that
// is none of these.
std::vector<MatrixSpec> expand_matrix_specs(const std::vector<std::string>& specs);

// The matrices a benchmark runs on: --libra_matrices when given, else the
// configured matrix folder (when it exists) followed by `default_generated`
// (comma-separated specs).
std::vector<MatrixSpec> benchmark_matrices(const Options& options, const char* benchmark,
                                           const char* default_generated);

// The matrix on the benchmark device: the file read with libra::io::read_matrix,
// libra::rmat with a fixed seed and uniform values in [-1, 1) (so that
// verification sees cancellation and value errors, not only counts), or
// libra::banded with a fixed seed.
Matrix load_matrix(const MatrixSpec& spec);

}  // namespace libra::bench
