#include "libra/reference/reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace libra::ref {

Matrix from_triplets(std::int64_t rows, std::int64_t cols, std::vector<Triplet> entries) {
  std::stable_sort(
      entries.begin(), entries.end(), [](const Triplet& a, const Triplet& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                                : std::get<1>(a) < std::get<1>(b);
      });
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto [r, c, v] = entries[i];
    if (r < 0 || r >= rows || c < 0 || c >= cols)
      throw std::out_of_range("triplet index");
    if (i > 0 && std::get<0>(entries[i - 1]) == r && std::get<1>(entries[i - 1]) == c) {
      m.val.back() += v;
      continue;
    }
    m.col.push_back(c);
    m.val.push_back(v);
    ++m.ptr[static_cast<std::size_t>(r) + 1];
  }
  for (std::int64_t r = 0; r < rows; ++r) m.ptr[r + 1] += m.ptr[r];
  return m;
}

std::vector<Triplet> to_triplets(const Matrix& A) {
  std::vector<Triplet> t;
  t.reserve(A.col.size());
  for (std::int64_t r = 0; r < A.rows; ++r) {
    for (std::int64_t p = A.ptr[r]; p < A.ptr[r + 1]; ++p)
      t.emplace_back(r, A.col[p], A.val[p]);
  }
  return t;
}

Matrix transpose(const Matrix& A) {
  std::vector<Triplet> t;
  for (const auto& [r, c, v] : to_triplets(A)) t.emplace_back(c, r, v);
  return from_triplets(A.cols, A.rows, std::move(t));
}

Matrix spgemm(const Matrix& A, const Matrix& B, std::vector<double>* row_scale,
              std::vector<double>* row_terms) {
  if (A.cols != B.rows) throw std::invalid_argument("spgemm: inner dimensions differ");
  Matrix C;
  C.rows = A.rows;
  C.cols = B.cols;
  C.ptr.assign(static_cast<std::size_t>(A.rows) + 1, 0);
  if (row_scale) row_scale->assign(static_cast<std::size_t>(A.rows), 0.0);
  if (row_terms) row_terms->assign(static_cast<std::size_t>(A.rows), 0.0);
  std::vector<double> acc(static_cast<std::size_t>(B.cols), 0.0);
  std::vector<char> used(static_cast<std::size_t>(B.cols), 0);
  std::vector<std::int64_t> touched;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    touched.clear();
    double scale = 0;
    for (std::int64_t p = A.ptr[i]; p < A.ptr[i + 1]; ++p) {
      const std::int64_t k = A.col[p];
      for (std::int64_t q = B.ptr[k]; q < B.ptr[k + 1]; ++q) {
        const std::int64_t j = B.col[q];
        const double prod = A.val[p] * B.val[q];
        scale = std::max(scale, std::fabs(prod));
        if (row_terms) (*row_terms)[i] += 1;
        if (!used[j]) {
          used[j] = 1;
          touched.push_back(j);
        }
        acc[j] += prod;
      }
    }
    std::sort(touched.begin(), touched.end());
    for (std::int64_t j : touched) {
      C.col.push_back(j);
      C.val.push_back(acc[j]);
      acc[j] = 0;
      used[j] = 0;
    }
    C.ptr[i + 1] = static_cast<std::int64_t>(C.col.size());
    if (row_scale) (*row_scale)[i] = scale;
  }
  return C;
}

std::uint64_t spgemm_products(const Matrix& A, const Matrix& B) {
  std::uint64_t n = 0;
  for (std::int64_t p = 0; p < A.nnz(); ++p) {
    const std::int64_t k = A.col[p];
    n += static_cast<std::uint64_t>(B.ptr[k + 1] - B.ptr[k]);
  }
  return n;
}

std::vector<double> spmv(const Matrix& A, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    double s = 0;
    for (std::int64_t p = A.ptr[i]; p < A.ptr[i + 1]; ++p) s += A.val[p] * x[A.col[p]];
    y[i] = s;
  }
  return y;
}

std::vector<double> spmm(const Matrix& A, std::int64_t k, const std::vector<double>& x,
                         double alpha, double beta, std::vector<double> y,
                         std::vector<double>* scale) {
  const auto cells = static_cast<std::size_t>(A.rows * k);
  if (k < 0 || x.size() != static_cast<std::size_t>(A.cols * k))
    throw std::invalid_argument("spmm: X is not cols(A) x k");
  if (beta == 0) y.assign(cells, 0.0);
  if (y.size() != cells) throw std::invalid_argument("spmm: Y is not rows(A) x k");
  if (scale) scale->assign(cells, 0.0);
  for (std::int64_t j = 0; j < k; ++j) {
    for (std::int64_t i = 0; i < A.rows; ++i) {
      double sum = 0;
      double bound = 0;
      for (std::int64_t p = A.ptr[i]; p < A.ptr[i + 1]; ++p) {
        const double term = A.val[p] * x[j * A.cols + A.col[p]];
        sum += term;
        bound += std::fabs(alpha * term);
      }
      double& out = y[j * A.rows + i];
      const double kept = beta == 0 ? 0.0 : beta * out;
      if (scale) (*scale)[j * A.rows + i] = std::fabs(kept) + bound;
      out = kept + alpha * sum;
    }
  }
  return y;
}

std::vector<double> to_dense(const Matrix& A) {
  std::vector<double> d(static_cast<std::size_t>(A.rows * A.cols), 0.0);
  for (const auto& [r, c, v] : to_triplets(A)) d[c * A.rows + r] += v;
  return d;
}

std::vector<double> gemm(std::int64_t m, std::int64_t k, std::int64_t n,
                         const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l)
      for (std::int64_t i = 0; i < m; ++i) c[j * m + i] += a[l * m + i] * b[j * k + l];
  return c;
}

Matrix random(std::int64_t rows, std::int64_t cols, double per_row, std::uint64_t seed,
              double empty_row_fraction) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Triplet> t;
  if (cols > 0) {
    std::uniform_int_distribution<std::int64_t> col(0, cols - 1);
    for (std::int64_t r = 0; r < rows; ++r) {
      if (unit(rng) < empty_row_fraction) continue;
      const auto n = static_cast<std::int64_t>(per_row * 2 * unit(rng) + 0.5);
      for (std::int64_t e = 0; e < n; ++e) t.emplace_back(r, col(rng), value(rng));
    }
  }
  return from_triplets(rows, cols, std::move(t));
}

}  // namespace libra::ref
