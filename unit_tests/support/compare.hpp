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
#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"

namespace libra::test {

// Libra <-> oracle, under the names the tests use (libra/reference/bridge.hpp).
template <class S, class O, class Off, class Device>
Csr<S, O, Off, Device> from_ref(const ref::Matrix& m) {
  return ref::to_csr<S, O, Off, Device>(m);
}
using ref::compressed_to_ref;
template <class M>
ref::Matrix to_ref(const M& A) {
  return ref::from_csr(A);
}

// Same shape and pattern (exactly, in stored order) and values within
// rel_tol * scale, where scale is the row's entry of row_scale when given, else
// max(1, |expected|).
inline ::testing::AssertionResult same_matrix(
    const ref::Matrix& expected, const ref::Matrix& got, double rel_tol,
    const std::vector<double>* row_scale = nullptr) {
  std::ostringstream why;
  if (expected.rows != got.rows || expected.cols != got.cols) {
    why << "shape " << got.rows << "x" << got.cols << ", expected " << expected.rows
        << "x" << expected.cols;
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
        return ::testing::AssertionFailure()
               << "row " << i << " entry " << p - expected.ptr[i] << ": column "
               << got.col[p] << ", expected " << expected.col[p];
      }
      const double scale =
          row_scale ? (*row_scale)[i] : std::max(1.0, std::fabs(expected.val[p]));
      const double err = std::fabs(got.val[p] - expected.val[p]);
      if (!(err <= rel_tol * scale)) {  // NaN fails too
        return ::testing::AssertionFailure()
               << "(" << i << ", " << expected.col[p] << "): " << got.val[p]
               << ", expected " << expected.val[p] << " (error " << err << " > "
               << rel_tol << " * " << scale << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace libra::test
