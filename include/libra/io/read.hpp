#pragma once
// Reading sparse matrices from Matrix Market and SNAP files (API CONTRACT; the
// implementation lives in src/io/ and include/libra/io/impl/).
//
// Parsing is host code (src/io/, no iostream per token, std::from_chars, parallel
// over lines); the parsed triplets are copied to the requested device, where
// Libra's own kernels sort them and sum duplicates (libra::to_csr on a Coo).
// Bad input throws libra::InputError("FILE:LINE: problem").
#include <cstdint>
#include <string>
#include <vector>

#include "libra/format/csr.hpp"
#include "libra/format/dense.hpp"

namespace libra::io {

enum class FileFormat { matrix_market, snap };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct ReadOptions {
  bool allow_nonfinite = false;  // NaN/Inf values are rejected unless this is set
  int snap_index_base = 0;  // SNAP node ids are 0-based (kept as they are) or 1-based
};

// What the file said about itself, for `libra info`.
struct FileInfo {
  FileFormat format = FileFormat::matrix_market;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  bool dense_array = false;  // Matrix Market "array" format
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::uint64_t stored_entries = 0;  // entries written in the file (before expansion)
};

// Host triplets exactly as parsed: 0-based, symmetric/skew-symmetric halves
// expanded, duplicates NOT yet summed, values of pattern files set to 1. The
// entries stored in the file come first, in file order; the mirrored halves of
// symmetric files follow them. Array files give one triplet per stored value,
// zeros included (and a skew-symmetric array's zero diagonal is not stored).
struct Triplets {
  FileInfo info;
  std::vector<std::int64_t> row;
  std::vector<std::int64_t> col;
  std::vector<double> val;
};

// Bad input throws libra::InputError naming the first bad line; a file of zero
// bytes is an error for both formats (a SNAP file of comments only is a valid
// 0 x 0 edge list). The entry lines are parsed in parallel (OpenMP).
Triplets read_matrix_market_triplets(const std::string& path,
                                     const ReadOptions& options = {});
Triplets read_snap_triplets(const std::string& path, const ReadOptions& options = {});
// Matrix Market when the file starts with the "%%MatrixMarket" banner, else SNAP.
Triplets read_triplets(const std::string& path, const ReadOptions& options = {});

// The file as a Csr on Device: sorted, duplicates summed (explicit zeros kept).
// Throws libra::OverflowError when the sizes do not fit Ordinal/Offset.
template <class Scalar, class Ordinal, class Offset, class Device>
Csr<Scalar, Ordinal, Offset, Device> read_matrix(const std::string& path,
                                                 const ReadOptions& options = {},
                                                 FileInfo* info = nullptr);

// A Matrix Market file (array, or coordinate with duplicates summed in file
// order) as a column-major dense matrix on Device.
template <class Scalar, class Device>
Dense<Scalar, Device> read_matrix_market_dense(const std::string& path,
                                               const ReadOptions& options = {},
                                               FileInfo* info = nullptr);

}  // namespace libra::io

#include "libra/io/impl/read_matrix.hpp"
