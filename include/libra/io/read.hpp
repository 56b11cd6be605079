#pragma once
// Reading sparse matrices from Matrix Market files and edge lists (API CONTRACT;
// the implementation lives in src/io/ and include/libra/io/impl/).
//
// Parsing is host code (src/io/, no iostream per token, std::from_chars, parallel
// over lines); the parsed triplets are copied to the requested device, where
// Libra's own kernels sort them and sum duplicates (libra::to_csr on a Coo).
// Bad input throws libra::InputError("FILE:LINE: problem"); a file that cannot be
// opened or read at all throws libra::io::FileError.
//
// The file name decides the format, never the content: ".mtx" and ".mm" (any
// case) are Matrix Market and must start with the %%MatrixMarket banner; every
// other name is an edge list ("source target" or "source target weight" lines),
// which must not start with that banner. ReadOptions::format overrides the name.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "libra/core/error.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/dense.hpp"

namespace libra::io {

enum class FileFormat {
  matrix_market,
  snap  // an edge list (SNAP's format; Libra's writer adds a shape header)
};
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

// The file could not be opened or read (missing, a directory, no permission, an
// I/O error): nothing is known about its contents. Not malformed input, though
// an InputError for callers that catch those (the CLI exits 1 for it, not 3).
class FileError : public InputError {
 public:
  using InputError::InputError;
};

// What the matrix will be stored in. The reader checks the sizes the file states
// against these as soon as it reads them (a Matrix Market size line or an edge
// list's libra header: before any entry is parsed), and refuses a file whose
// matrix would not fit before allocating anything for it. read_matrix fills them
// from its Ordinal and Offset types and the free memory of its Device.
struct SizeLimits {
  // Rows and columns at most this (OverflowError beyond: the ordinal type).
  std::uint64_t max_dimension = std::numeric_limits<std::int64_t>::max();
  // Entries at most this (OverflowError beyond: the offset type).
  std::uint64_t max_entries = std::numeric_limits<std::int64_t>::max();
  // Memory the stored matrix takes besides the parsed triplets (24 bytes an
  // entry, always counted): per row, per entry, per row x column cell (dense).
  std::uint64_t bytes_per_row = 0;
  std::uint64_t bytes_per_entry = 0;
  std::uint64_t bytes_per_cell = 0;
  // Memory that may be used (InputError beyond); 0: the host's free memory.
  std::uint64_t available_bytes = 0;
};

struct ReadOptions {
  bool allow_nonfinite = false;  // NaN/Inf values are rejected unless this is set
  int snap_index_base =
      0;  // edge-list node ids are 0-based (kept as they are) or 1-based
  std::optional<FileFormat> format;  // unset: from the file name (see above)
  SizeLimits limits;
};

// What the file said about itself, for `libra info`.
struct FileInfo {
  FileFormat format = FileFormat::matrix_market;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  bool dense_array = false;     // Matrix Market "array" format
  bool shape_declared = false;  // edge lists: a "# libra: R x C" header gave the shape
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::uint64_t stored_entries = 0;  // entries written in the file (before expansion)
};

// The format the name of `path` says: matrix_market for ".mtx" and ".mm" (any
// case), snap for every other name. Compressed names (".gz", ".bz2", ".xz",
// ".zst", ".zip") throw InputError: Libra reads uncompressed text only.
FileFormat format_from_name(const std::string& path);

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

// Bad input throws libra::InputError naming the first bad line. The entry lines
// are parsed in parallel (OpenMP).
//
// Matrix Market: the banner, the size line and exactly the entries it declares.
// An empty file lacks the banner: InputError.
//
// Edge list: every data line holds 2 fields (source target: a pattern) or every
// one 3 (source target weight); a file mixing them is malformed. '#' and '%'
// start comments. A "# libra: ROWS x COLS, NNZ entries" line before the first
// edge (Libra's writer puts it on line 1) gives the shape, and the file must then
// hold exactly NNZ edges with ids inside it; without it rows = cols = largest id
// + 1. A file without edges (empty, blank or comments only) is a 0 x 0 matrix, or
// the header's shape.
Triplets read_matrix_market_triplets(const std::string& path,
                                     const ReadOptions& options = {});
Triplets read_snap_triplets(const std::string& path, const ReadOptions& options = {});
// The format options.format names, or else the file name's (format_from_name).
Triplets read_triplets(const std::string& path, const ReadOptions& options = {});

// The file as a Csr on Device: sorted, duplicates summed (explicit zeros kept).
// Throws libra::OverflowError when the sizes do not fit Ordinal/Offset, and
// InputError when the matrix would not fit in the free memory of Device (both
// checked before the entries are parsed when the file states its sizes).
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
