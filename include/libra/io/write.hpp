#pragma once
// Writing matrices as Matrix Market files or edge lists.
//
// The matrix is copied to the host, formatted in parallel into large buffers
// (std::to_chars, full precision: 17 significant digits for double, 9 for float,
// so reading the file back gives the same bits) and written all or nothing
// through an OutputFile: a regular file (also behind symbolic links) is replaced
// only once the whole matrix is written; devices, FIFOs and "-" (stdout) are
// written straight. Any failure removes the temporary and throws libra::Error
// naming the path.
#include <Kokkos_Core.hpp>
#include <optional>
#include <string>

#include "libra/format/csr.hpp"
#include "libra/io/impl/atomic_file.hpp"
#include "libra/io/read.hpp"

namespace libra::io {

// An output opened now and written later (include/libra/io/impl/atomic_file.hpp
// says what each kind of path becomes): open it before a long computation, so
// that an unwritable path fails first. Destroyed without a successful write, it
// leaves nothing behind.
using OutputFile = impl::AtomicFile;

// Installs handlers for SIGINT, SIGTERM and SIGHUP (where the program has none
// and does not ignore the signal) that remove the temporary files of open
// OutputFiles, then end the process as the signal would have. A program with its
// own handlers may call impl::remove_temporaries() there (async-signal-safe).
void remove_temporaries_on_signals();

// The format a name to write asks for: matrix_market for ".mtx" and ".mm",
// snap (an edge list) for ".txt", ".el", ".tsv" and ".edges" (any case); nullopt
// for every other name, which the caller must decide for (the CLI's --to).
std::optional<FileFormat> format_to_write(const std::string& path);

struct WriteOptions {
  bool pattern = false;  // indices only, no values (Matrix Market "pattern")
};

// "%%MatrixMarket matrix coordinate real general" (or pattern), 1-based indices,
// one line per stored entry in storage order.
template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix_market(const std::string& path,
                         const Csr<Scalar, Ordinal, Offset, Device>& A,
                         const WriteOptions& options = {});
template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix_market(OutputFile& file, const Csr<Scalar, Ordinal, Offset, Device>& A,
                         const WriteOptions& options = {});

// "%%MatrixMarket matrix array real general": every value, column by column.
// Takes any rank-2 View (libra::Dense is one).
template <class Scalar, class... Properties>
void write_matrix_market(const std::string& path,
                         const Kokkos::View<Scalar**, Properties...>& A);
template <class Scalar, class... Properties>
void write_matrix_market(OutputFile& file,
                         const Kokkos::View<Scalar**, Properties...>& A);

// An edge list: a "# libra: ROWS x COLS, NNZ entries" header (which the reader
// takes the shape from), then one "i j value" line per stored entry with 0-based
// indices ("i j" with options.pattern).
template <class Scalar, class Ordinal, class Offset, class Device>
void write_snap(const std::string& path, const Csr<Scalar, Ordinal, Offset, Device>& A,
                const WriteOptions& options = {});
template <class Scalar, class Ordinal, class Offset, class Device>
void write_snap(OutputFile& file, const Csr<Scalar, Ordinal, Offset, Device>& A,
                const WriteOptions& options = {});

template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix(const std::string& path, const Csr<Scalar, Ordinal, Offset, Device>& A,
                  FileFormat format, const WriteOptions& options = {});
template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix(OutputFile& file, const Csr<Scalar, Ordinal, Offset, Device>& A,
                  FileFormat format, const WriteOptions& options = {});

}  // namespace libra::io

#include "libra/io/impl/write_matrix.hpp"
