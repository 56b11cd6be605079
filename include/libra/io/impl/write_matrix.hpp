#pragma once
// The writers of write.hpp: host copies formatted block by block in parallel,
// written in order through an AtomicFile.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "libra/core/error.hpp"
#include "libra/format/mirror.hpp"
#include "libra/io/impl/atomic_file.hpp"
#include "libra/io/write.hpp"

namespace libra::io {

namespace impl {

// Room for any one number: a sign, 21 digits, a point and a 4-digit exponent.
constexpr std::size_t number_chars = 32;

template <class Int>
char* put_integer(char* out, Int v) {
  return std::to_chars(out, out + number_chars, v).ptr;
}

// Enough significant digits that reading the text back gives the same bits.
template <class Scalar>
char* put_value(char* out, Scalar v) {
  return std::to_chars(out, out + number_chars, v, std::chars_format::general,
                       std::numeric_limits<Scalar>::max_digits10)
      .ptr;
}

inline char* put_text(char* out, const std::string& s) {
  return std::copy(s.begin(), s.end(), out);
}

// Writes items [0, count): format(begin, end, out) writes the text of items
// [begin, end) at `out` (at most chars_per_item each) and returns its end. Blocks
// are formatted in parallel on the host and written in order, a batch at a time,
// so memory stays bounded however large the matrix.
template <class Format>
void write_blocks(AtomicFile& file, std::size_t count, std::size_t chars_per_item,
                  const Format& format) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  constexpr std::size_t block = std::size_t(1) << 15;
  const std::size_t blocks = (count + block - 1) / block;
  const std::size_t batch = 4 * static_cast<std::size_t>(Host().concurrency());
  std::vector<std::string> text(std::min(batch, blocks));
  for (std::size_t first = 0; first < blocks; first += batch) {
    const std::size_t n = std::min(batch, blocks - first);
    Kokkos::parallel_for(
        "libra::io::format", Kokkos::RangePolicy<Host>(Host(), 0, n),
        [&](const std::size_t k) {
          const std::size_t begin = (first + k) * block;
          const std::size_t end = std::min(count, begin + block);
          std::string& out = text[k];
          out.resize((end - begin) * chars_per_item);
          out.resize(static_cast<std::size_t>(format(begin, end, &out[0]) - out.data()));
        });
    Host().fence();  // the text is written next
    for (std::size_t k = 0; k < n; ++k) file.write(text[k]);
  }
}

// The row holding entry p: row_map(r) <= p < row_map(r + 1).
template <class RowMap>
std::int64_t row_of_entry(const RowMap& row_map, std::int64_t rows, std::uint64_t p) {
  std::int64_t lo = 0;
  std::int64_t hi = rows;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::uint64_t>(row_map(mid)) <= p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The host copy of A, checked to be self-consistent before it is written.
template <class S, class O, class Off, class D>
auto host_csr(const std::string& path, const Csr<S, O, Off, D>& A) {
  auto h = to_host(A);
  const auto nnz = static_cast<std::uint64_t>(h.col_idx.extent(0));
  if (static_cast<std::uint64_t>(h.row_map(h.num_rows)) != nnz) {
    throw ShapeError(path + ": cannot write a Csr whose row_map ends at " +
                     std::to_string(h.row_map(h.num_rows)) + " but holds " +
                     std::to_string(nnz) + " entries");
  }
  return h;
}

// One "i j[ value]\n" line per stored entry of the host matrix `h`.
template <class HostCsr>
void write_entries(AtomicFile& file, const HostCsr& h, int index_base, bool values) {
  using Scalar = typename HostCsr::scalar_type;
  const std::int64_t rows = h.num_rows;
  const auto row_map = h.row_map;
  const auto col_idx = h.col_idx;
  const auto vals = h.values;
  write_blocks(file, col_idx.extent(0), 3 * number_chars + 3,
               [=](std::size_t begin, std::size_t end, char* out) {
                 std::int64_t r = row_of_entry(row_map, rows, begin);
                 for (std::size_t p = begin; p < end; ++p) {
                   while (static_cast<std::uint64_t>(row_map(r + 1)) <= p) ++r;
                   out = put_integer(out, r + index_base);
                   *out++ = ' ';
                   out = put_integer(out,
                                     static_cast<std::int64_t>(col_idx(p)) + index_base);
                   if (values) {
                     *out++ = ' ';
                     out = put_value<Scalar>(out, vals(p));
                   }
                   *out++ = '\n';
                 }
                 return out;
               });
}

}  // namespace impl

template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix_market(OutputFile& file, const Csr<Scalar, Ordinal, Offset, Device>& A,
                         const WriteOptions& options) {
  const auto h = impl::host_csr(file.path(), A);
  file.write(options.pattern ? "%%MatrixMarket matrix coordinate pattern general\n"
                             : "%%MatrixMarket matrix coordinate real general\n");
  file.write(std::to_string(h.num_rows) + " " + std::to_string(h.num_cols) + " " +
             std::to_string(h.col_idx.extent(0)) + "\n");
  impl::write_entries(file, h, 1, !options.pattern);
  file.commit();
}

template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix_market(const std::string& path,
                         const Csr<Scalar, Ordinal, Offset, Device>& A,
                         const WriteOptions& options) {
  OutputFile file(path);
  write_matrix_market(file, A, options);
}

template <class Scalar, class... Properties>
void write_matrix_market(const std::string& path,
                         const Kokkos::View<Scalar**, Properties...>& A) {
  OutputFile file(path);
  write_matrix_market(file, A);
}

template <class Scalar, class... Properties>
void write_matrix_market(OutputFile& file,
                         const Kokkos::View<Scalar**, Properties...>& A) {
  using Value = std::remove_const_t<Scalar>;
  static_assert(std::is_floating_point<Value>::value,
                "write_matrix_market writes float or double matrices");
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A);
  const std::size_t rows = h.extent(0);
  file.write("%%MatrixMarket matrix array real general\n");
  file.write(std::to_string(rows) + " " + std::to_string(h.extent(1)) + "\n");
  impl::write_blocks(file, rows * h.extent(1), impl::number_chars + 1,
                     [=](std::size_t begin, std::size_t end, char* out) {
                       for (std::size_t k = begin; k < end; ++k) {
                         out = impl::put_value<Value>(out, h(k % rows, k / rows));
                         *out++ = '\n';
                       }
                       return out;
                     });
  file.commit();
}

template <class Scalar, class Ordinal, class Offset, class Device>
void write_snap(OutputFile& file, const Csr<Scalar, Ordinal, Offset, Device>& A,
                const WriteOptions& options) {
  const auto h = impl::host_csr(file.path(), A);
  file.write("# libra: " + std::to_string(h.num_rows) + " x " +
             std::to_string(h.num_cols) + ", " + std::to_string(h.col_idx.extent(0)) +
             " entries\n");
  impl::write_entries(file, h, 0, !options.pattern);
  file.commit();
}

template <class Scalar, class Ordinal, class Offset, class Device>
void write_snap(const std::string& path, const Csr<Scalar, Ordinal, Offset, Device>& A,
                const WriteOptions& options) {
  OutputFile file(path);
  write_snap(file, A, options);
}

template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix(OutputFile& file, const Csr<Scalar, Ordinal, Offset, Device>& A,
                  FileFormat format, const WriteOptions& options) {
  switch (format) {
    case FileFormat::matrix_market:
      write_matrix_market(file, A, options);
      return;
    case FileFormat::snap:
      write_snap(file, A, options);
      return;
  }
  throw ArgumentError("write_matrix: unknown file format");
}

template <class Scalar, class Ordinal, class Offset, class Device>
void write_matrix(const std::string& path, const Csr<Scalar, Ordinal, Offset, Device>& A,
                  FileFormat format, const WriteOptions& options) {
  OutputFile file(path);
  write_matrix(file, A, format, options);
}

}  // namespace libra::io
