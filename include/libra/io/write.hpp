#pragma once
// Writing matrices as Matrix Market or SNAP files.
//
// The matrix is copied to the host, formatted in parallel into large buffers
// (std::to_chars, full precision: 17 significant digits for double, 9 for float,
// so reading the file back gives the same bits) and written all or nothing: a
// temporary file beside the target is renamed over it at the end. Any failure
// removes the temporary and throws libra::Error naming the path.
#include <Kokkos_Core.hpp>
#include <string>

#include "libra/format/csr.hpp"
#include "libra/io/read.hpp"

namespace libra::io {

struct WriteOptions {
  bool pattern = false;  // Matrix Market "pattern": indices only, no values
};

// "%%MatrixMarket matrix coordinate real general" (or pattern), 1-based indices,
// one line per stored entry in storage order.
template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix_market(const std::string& path,
                         const Csr<Scalar, Ordinal, Offset, Device>& A,
                         const WriteOptions& options = {});

// "%%MatrixMarket matrix array real general": every value, column by column.
// Takes any rank-2 View (libra::Dense is one).
template <class Scalar, class... Properties>
void write_matrix_market(const std::string& path,
                         const Kokkos::View<Scalar**, Properties...>& A);

// A "# libra: ROWS x COLS, NNZ entries" comment, then one "i j" line per stored
// entry with 0-based indices. Values are not written, and reading the file back
// gives rows = cols = largest index + 1.
template <class Scalar, class Ordinal, class Offset, class Device>
void write_snap(const std::string& path, const Csr<Scalar, Ordinal, Offset, Device>& A);

template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix(const std::string& path, const Csr<Scalar, Ordinal, Offset, Device>& A,
                  FileFormat format, const WriteOptions& options = {});

}  // namespace libra::io

#include "libra/io/impl/write_matrix.hpp"
