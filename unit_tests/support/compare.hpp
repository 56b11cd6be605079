#pragma once
// Moving matrices between Libra's device formats and the host reference oracle,
// and comparing them entry by entry.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "libra/format/csr.hpp"
#include "reference/reference.hpp"

namespace libra::test {

// Builds a Csr on `Device` from the oracle's matrix.
template <class S, class O, class Off, class Device>
Csr<S, O, Off, Device> from_ref(const ref::Matrix& m) {
  using M = Csr<S, O, Off, Device>;
  typename M::row_map_non_const_type rm("rm", static_cast<std::size_t>(m.rows) + 1);
  typename M::index_type ci("ci", m.col.size());
  typename M::values_type v("v", m.val.size());
  auto hrm = Kokkos::create_mirror_view(rm);
  auto hci = Kokkos::create_mirror_view(ci);
  auto hv = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < m.ptr.size(); ++i) hrm(i) = static_cast<Off>(m.ptr[i]);
  for (std::size_t i = 0; i < m.col.size(); ++i) {
    hci(i) = static_cast<O>(m.col[i]);
    hv(i) = static_cast<S>(m.val[i]);
  }
  Kokkos::deep_copy(rm, hrm);
  Kokkos::deep_copy(ci, hci);
  Kokkos::deep_copy(v, hv);
  return M(static_cast<O>(m.rows), static_cast<O>(m.cols), rm, ci, v);
}

// The oracle's view of a compressed matrix, copied to the host as stored (no
// sorting), so that ordering mistakes show up in the comparison.
template <class OffsetView, class IndexView, class ValueView>
ref::Matrix compressed_to_ref(std::int64_t rows, std::int64_t cols, const OffsetView& ptr,
                              const IndexView& idx, const ValueView& val) {
  auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ptr);
  auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), idx);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), val);
  ref::Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.ptr.resize(hp.extent(0));
  for (std::size_t i = 0; i < hp.extent(0); ++i) m.ptr[i] = static_cast<std::int64_t>(hp(i));
  m.col.resize(hi.extent(0));
  m.val.resize(hv.extent(0));
  for (std::size_t i = 0; i < hi.extent(0); ++i) {
    m.col[i] = static_cast<std::int64_t>(hi(i));
    m.val[i] = static_cast<double>(hv(i));
  }
  return m;
}

template <class M>
ref::Matrix to_ref(const M& A) {
  return compressed_to_ref(A.num_rows, A.num_cols, A.row_map, A.col_idx, A.values);
}

// Same shape and pattern (exactly, in stored order) and values within
// rel_tol * scale, where scale is the row's entry of row_scale when given, else
// max(1, |expected|).
inline ::testing::AssertionResult same_matrix(const ref::Matrix& expected,
                                              const ref::Matrix& got, double rel_tol,
                                              const std::vector<double>* row_scale = nullptr) {
  std::ostringstream why;
  if (expected.rows != got.rows || expected.cols != got.cols) {
    why << "shape " << got.rows << "x" << got.cols << ", expected " << expected.rows << "x"
        << expected.cols;
    return ::testing::AssertionFailure() << why.str();
  }
  if (got.ptr.size() != expected.ptr.size()) {
    return ::testing::AssertionFailure() << "offset array has " << got.ptr.size()
                                         << " entries, expected " << expected.ptr.size();
  }
  if (got.col.size() != expected.col.size()) {
    return ::testing::AssertionFailure()
           << "nnz " << got.col.size() << ", expected " << expected.col.size();
  }
  for (std::int64_t i = 0; i < expected.rows; ++i) {
    if (got.ptr[i + 1] != expected.ptr[i + 1]) {
      return ::testing::AssertionFailure() << "row " << i << " ends at " << got.ptr[i + 1]
                                           << ", expected " << expected.ptr[i + 1];
    }
    for (std::int64_t p = expected.ptr[i]; p < expected.ptr[i + 1]; ++p) {
      if (got.col[p] != expected.col[p]) {
        return ::testing::AssertionFailure() << "row " << i << " entry " << p - expected.ptr[i]
                                             << ": column " << got.col[p] << ", expected "
                                             << expected.col[p];
      }
      const double scale =
          row_scale ? (*row_scale)[i] : std::max(1.0, std::fabs(expected.val[p]));
      const double err = std::fabs(got.val[p] - expected.val[p]);
      if (!(err <= rel_tol * scale)) {  // NaN fails too
        return ::testing::AssertionFailure()
               << "(" << i << ", " << expected.col[p] << "): " << got.val[p] << ", expected "
               << expected.val[p] << " (error " << err << " > " << rel_tol << " * " << scale
               << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace libra::test
