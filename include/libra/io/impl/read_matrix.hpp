#pragma once
// read_matrix and read_matrix_market_dense: host triplets from the parsers,
// copied to the device, where Libra's kernels sort them and sum duplicates.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "libra/core/checked.hpp"
#include "libra/core/error.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/dense.hpp"
#include "libra/io/read.hpp"
#include "libra/util/memory_budget.hpp"

namespace libra::io {

namespace impl {

// Values that a Scalar narrower than double cannot hold (a finite double beyond
// FLT_MAX would silently become Inf).
template <class Scalar>
void check_values_fit(const Triplets& t) {
  if constexpr (sizeof(Scalar) < sizeof(double)) {
    using Host = Kokkos::DefaultHostExecutionSpace;
    const double* vals = t.val.data();
    const double largest = static_cast<double>(std::numeric_limits<Scalar>::max());
    std::size_t first_bad = t.val.size();
    Kokkos::parallel_reduce(
        "libra::io::check_values_fit", Kokkos::RangePolicy<Host>(Host(), 0, t.val.size()),
        [=](const std::size_t p, std::size_t& first) {
          if (std::isfinite(vals[p]) && std::fabs(vals[p]) > largest && p < first)
            first = p;
        },
        Kokkos::Min<std::size_t>(first_bad));
    if (first_bad < t.val.size()) {
      throw OverflowError("value " + std::to_string(vals[first_bad]) + " (entry " +
                          std::to_string(first_bad) + ") does not fit the " +
                          std::to_string(sizeof(Scalar) * 8) + "-bit scalar type");
    }
  }
}

template <class Scalar, class Ordinal, class Offset, class Device>
Coo<Scalar, Ordinal, Offset, Device> triplets_to_coo(const Triplets& t) {
  using Out = Coo<Scalar, Ordinal, Offset, Device>;
  using Host = Kokkos::DefaultHostExecutionSpace;
  const Ordinal rows = checked_cast<Ordinal>(t.info.rows, "number of rows");
  const Ordinal cols = checked_cast<Ordinal>(t.info.cols, "number of columns");
  check_values_fit<Scalar>(t);
  const std::size_t n = t.row.size();
  typename Out::index_type r(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::io::rows"), n);
  typename Out::index_type c(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::io::cols"), n);
  typename Out::values_type v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::io::values"), n);
  auto hr = Kokkos::create_mirror_view(r);
  auto hc = Kokkos::create_mirror_view(c);
  auto hv = Kokkos::create_mirror_view(v);
  const std::int64_t* tr = t.row.data();
  const std::int64_t* tc = t.col.data();
  const double* tv = t.val.data();
  // The parsers checked every index against rows and cols, so it fits Ordinal.
  Kokkos::parallel_for("libra::io::fill_coo", Kokkos::RangePolicy<Host>(Host(), 0, n),
                       [=](const std::size_t p) {
                         hr(p) = static_cast<Ordinal>(tr[p]);
                         hc(p) = static_cast<Ordinal>(tc[p]);
                         hv(p) = static_cast<Scalar>(tv[p]);
                       });
  Host().fence();  // the mirrors are copied next
  Kokkos::deep_copy(r, hr);
  Kokkos::deep_copy(c, hc);
  Kokkos::deep_copy(v, hv);
  return Out(rows, cols, r, c, v);
}

// Free bytes in the memory space of Exec (a CUDA device's, else the host's).
template <class Exec>
std::size_t free_bytes_of(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    return free_memory_bytes(true, exec.cuda_device());
  }
#endif
  (void)exec;
  return free_memory_bytes(false, 0);
}

// `limits` narrowed to what a Csr<Scalar, Ordinal, Offset, Device> can hold, with
// the memory read_matrix takes: the host copies of the triplets, the Coo on the
// device with its sort's temporaries (about twice the Coo) and the Csr.
template <class Scalar, class Ordinal, class Offset, class Device>
SizeLimits csr_limits(SizeLimits limits) {
  const auto most = [](auto t) {
    return static_cast<std::uint64_t>(std::numeric_limits<decltype(t)>::max());
  };
  limits.max_dimension = std::min(limits.max_dimension, most(Ordinal()));
  limits.max_entries = std::min(limits.max_entries, most(Offset()));
  constexpr std::uint64_t coo = 2 * sizeof(Ordinal) + sizeof(Scalar);
  limits.bytes_per_entry = std::max<std::uint64_t>(
      limits.bytes_per_entry, 3 * coo + sizeof(Ordinal) + sizeof(Scalar));
  limits.bytes_per_row =
      std::max<std::uint64_t>(limits.bytes_per_row, 2 * sizeof(Offset));
  if (limits.available_bytes == 0)
    limits.available_bytes = free_bytes_of(typename Device::execution_space());
  return limits;
}

// Runs f(), adding `path` to an OverflowError that does not name it yet.
template <class F>
auto naming_path(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const OverflowError& e) {
    if (std::string(e.what()).rfind(path + ":", 0) == 0) throw;
    throw OverflowError(path + ": " + e.what());
  }
}

}  // namespace impl

template <class Scalar, class Ordinal, class Offset, class Device>
Csr<Scalar, Ordinal, Offset, Device> read_matrix(const std::string& path,
                                                 const ReadOptions& options,
                                                 FileInfo* info) {
  using Exec = typename Device::execution_space;
  ReadOptions o = options;
  o.limits = impl::csr_limits<Scalar, Ordinal, Offset, Device>(options.limits);
  return impl::naming_path(path, [&] {
    Coo<Scalar, Ordinal, Offset, Device> coo;
    {
      const Triplets t = read_triplets(path, o);  // freed before the sort
      if (info) *info = t.info;
      coo = impl::triplets_to_coo<Scalar, Ordinal, Offset, Device>(t);
    }
    return to_csr(Exec(), coo);
  });
}

template <class Scalar, class Device>
Dense<Scalar, Device> read_matrix_market_dense(const std::string& path,
                                               const ReadOptions& options,
                                               FileInfo* info) {
  static_assert(std::is_floating_point<Scalar>::value,
                "dense matrices hold float or double");
  ReadOptions o = options;
  o.limits.bytes_per_cell =
      std::max<std::uint64_t>(o.limits.bytes_per_cell, sizeof(Scalar) + 1);
  if (o.limits.available_bytes == 0)
    o.limits.available_bytes = impl::free_bytes_of(typename Device::execution_space());
  const Triplets t = read_matrix_market_triplets(path, o);
  if (info) *info = t.info;
  impl::check_values_fit<Scalar>(t);
  const auto rows = checked_cast<std::size_t>(t.info.rows, "number of rows");
  const auto cols = checked_cast<std::size_t>(t.info.cols, "number of columns");
  checked_mul(rows, cols, "rows x columns of the dense matrix");
  Dense<Scalar, Device> out("libra::io::dense", rows, cols);
  auto h = Kokkos::create_mirror_view(out);
  Kokkos::deep_copy(h, Scalar(0));
  // In file order, so duplicates of a coordinate file add up deterministically;
  // the first value at a position is assigned, which keeps the sign of -0.0.
  std::vector<bool> seen(t.info.dense_array ? 0 : rows * cols);
  for (std::size_t p = 0; p < t.row.size(); ++p) {
    const auto i = static_cast<std::size_t>(t.row[p]);
    const auto j = static_cast<std::size_t>(t.col[p]);
    const auto v = static_cast<Scalar>(t.val[p]);
    if (t.info.dense_array || !seen[i + j * rows]) {
      h(i, j) = v;
      if (!t.info.dense_array) seen[i + j * rows] = true;
    } else {
      h(i, j) += v;
    }
  }
  Kokkos::deep_copy(out, h);
  return out;
}

}  // namespace libra::io
