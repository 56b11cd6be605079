#pragma once
// What `libra spmv` shares between its one-process run (spmv.cpp) and its run
// under mpirun (spmv_dist.cpp): the arguments and x (the result's check and
// output are dense_result.hpp's, shared with spmm).
#include <algorithm>
#include <string>
#include <vector>

#include "common.hpp"
#include "dense_result.hpp"

namespace libra::cli {

struct SpmvArgs {
  std::string a_file;
  std::string generate;  // --generate rmat:S:E or band:ROWS:DIAGONALS, instead of a file
  std::string x_file;
  std::string format;     // empty: csr, or what --partition implies
  std::string partition;  // empty: the whole matrix
  int parts = 0;          // 0: not given
  int iterations = 1;
  OutputOptions out;
  bool check = false;
  bool json = false;
  InputOptions input;
  // Under mpirun only (spmv_dist.cpp): MSREP's version, p-opt's transport and
  // the pieces y leaves each rank in.
  std::string version;       // empty: p-opt
  std::string transport;     // empty: auto
  int pieces = -1;           // -1: not given (automatic)
  std::string piece_moves;   // empty: auto
  std::string balance;       // empty: nonzeros
  double cut_slack = -1;     // -1: not given (0, the paper's exact cuts)
  std::string y_on;          // empty: root (gathered); ranks: apply_local
  std::string column_moves;  // empty: auto (pcsc with --y-on ranks)
};

// x(i, k) = ((7 i + 13 k + 3) mod 17 - 8) / 8, as `libra spmm --columns` makes X.
struct GenerateX {
  DenseMatrix X;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    X(i, 0) = static_cast<double>((7 * i + 3) % 17 - 8) / 8.0;
  }
};

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// x from --x, or generated (GenerateX); checks its rows against A's columns.
DenseMatrix read_x(const SpmvArgs& args, std::int64_t cols);

// The runs of `libra spmv`: one process (spmv.cpp) or every MPI rank
// (spmv_dist.cpp, when an MPI launcher started the tool).
int run_spmv_distributed(const SpmvArgs& args);

}  // namespace libra::cli
