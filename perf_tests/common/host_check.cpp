#include "host_check.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

namespace libra::bench {

namespace {

std::string shape_mismatch(const ref::Matrix& expected, const ref::Matrix& got) {
  std::ostringstream why;
  if (expected.rows != got.rows || expected.cols != got.cols) {
    why << "shape " << got.rows << "x" << got.cols << ", expected " << expected.rows
        << "x" << expected.cols;
  } else if (got.ptr.size() != expected.ptr.size()) {
    why << "row offsets have " << got.ptr.size() << " entries, expected "
        << expected.ptr.size();
  } else if (got.nnz() != expected.nnz() || got.ptr.back() != expected.ptr.back()) {
    why << "nnz " << got.nnz() << ", expected " << expected.nnz();
  }
  return why.str();
}

// Sorts each row's entries by column (Kokkos Kernels leaves rows unsorted).
void sort_rows(ref::Matrix& m) {
  std::vector<std::pair<std::int64_t, double>> row;
  for (std::int64_t i = 0; i < m.rows; ++i) {
    const auto b = m.ptr[i], e = m.ptr[i + 1];
    if (std::is_sorted(m.col.begin() + b, m.col.begin() + e)) continue;
    row.clear();
    for (auto p = b; p < e; ++p) row.emplace_back(m.col[p], m.val[p]);
    std::sort(row.begin(), row.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto p = b; p < e; ++p) {
      m.col[p] = row[p - b].first;
      m.val[p] = row[p - b].second;
    }
  }
}

}  // namespace

std::vector<double> largest_products(const ref::Matrix& A, const ref::Matrix& B) {
  std::vector<double> row_max_b(static_cast<std::size_t>(B.rows), 0.0);
  for (std::int64_t k = 0; k < B.rows; ++k) {
    for (auto q = B.ptr[k]; q < B.ptr[k + 1]; ++q) {
      row_max_b[k] = std::max(row_max_b[k], std::fabs(B.val[q]));
    }
  }
  std::vector<double> scale(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (auto p = A.ptr[i]; p < A.ptr[i + 1]; ++p) {
      scale[i] = std::max(scale[i], std::fabs(A.val[p]) * row_max_b[A.col[p]]);
    }
  }
  return scale;
}

std::string compare_product(const ref::Matrix& expected, ref::Matrix got,
                            const std::vector<double>& row_scale, double rel_tol) {
  if (auto why = shape_mismatch(expected, got); !why.empty()) return why;
  sort_rows(got);
  std::ostringstream why;
  for (std::int64_t i = 0; i < expected.rows; ++i) {
    if (got.ptr[i + 1] != expected.ptr[i + 1]) {
      why << "row " << i << " has " << got.ptr[i + 1] - got.ptr[i]
          << " entries, expected " << expected.ptr[i + 1] - expected.ptr[i];
      return why.str();
    }
    for (auto p = expected.ptr[i]; p < expected.ptr[i + 1]; ++p) {
      if (got.col[p] != expected.col[p]) {
        why << "row " << i << ": column " << got.col[p] << ", expected "
            << expected.col[p];
        return why.str();
      }
      const double err = std::fabs(got.val[p] - expected.val[p]);
      if (!(err <= rel_tol * row_scale[i])) {  // NaN fails too
        why << "(" << i << ", " << expected.col[p] << ") = " << got.val[p]
            << ", expected " << expected.val[p] << " (error " << err << " > " << rel_tol
            << " * " << row_scale[i] << ")";
        return why.str();
      }
    }
  }
  return {};
}

std::string check_product_by_vector(const ref::Matrix& A, const ref::Matrix& B,
                                    const ref::Matrix& C, double rel_tol) {
  if (C.rows != A.rows || C.cols != B.cols || A.cols != B.rows) {
    std::ostringstream why;
    why << "shape " << C.rows << "x" << C.cols << ", expected " << A.rows << "x"
        << B.cols;
    return why.str();
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(B.cols));
  for (auto& v : x) v = uniform(rng);
  auto abs_of = [](ref::Matrix m) {
    for (auto& v : m.val) v = std::fabs(v);
    return m;
  };
  std::vector<double> abs_x(x.size());
  std::transform(x.begin(), x.end(), abs_x.begin(),
                 [](double v) { return std::fabs(v); });
  const auto cx = ref::spmv(C, x);
  const auto abx = ref::spmv(A, ref::spmv(B, x));
  const auto bound = ref::spmv(abs_of(A), ref::spmv(abs_of(B), abs_x));
  for (std::int64_t i = 0; i < C.rows; ++i) {
    const double err = std::fabs(cx[i] - abx[i]);
    if (!(err <= rel_tol * bound[i])) {
      std::ostringstream why;
      why << "(C x)_" << i << " = " << cx[i] << " but (A (B x))_" << i << " = " << abx[i]
          << " (error " << err << " > " << rel_tol << " * " << bound[i] << ")";
      return why.str();
    }
  }
  return {};
}

std::string compare_exact(const ref::Matrix& expected, const ref::Matrix& got) {
  if (auto why = shape_mismatch(expected, got); !why.empty()) return why;
  std::ostringstream why;
  const auto p = std::mismatch(got.ptr.begin(), got.ptr.end(), expected.ptr.begin());
  if (p.first != got.ptr.end()) {
    why << "offset " << p.first - got.ptr.begin() << " is " << *p.first << ", expected "
        << *p.second;
    return why.str();
  }
  for (std::size_t q = 0; q < expected.col.size(); ++q) {
    if (got.col[q] != expected.col[q] || got.val[q] != expected.val[q]) {
      why << "entry " << q << " is (" << got.col[q] << ", " << got.val[q]
          << "), expected (" << expected.col[q] << ", " << expected.val[q] << ")";
      return why.str();
    }
  }
  return {};
}

}  // namespace libra::bench
