// A standalone check of the cuSPARSE SpGEMM wrapper (no Kokkos): products of
// skewed random matrices by each of ALG1, ALG2 and ALG3 compared with the
// reference oracle's product. Exit status 0 when all agree.
//   cusparse_spgemm_selftest         (CTest: vendor_cusparse)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "libra/reference/reference.hpp"
#include "libra/vendor/cusparse_spgemm.hpp"

namespace {

using libra::vendor::cusparse::Algorithm;

struct HostCsr {
  int rows = 0, cols = 0;
  std::vector<int> ptr{0}, col;
  std::vector<double> val;
};

// Row i gets about `per_row` entries, the first rows many more (a power-law head).
HostCsr random_matrix(int rows, int cols, int per_row, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, cols - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  for (int i = 0; i < rows; ++i) {
    const int want = std::min(cols, i < 4 ? cols / 2 : per_row);
    std::map<int, double> row;
    while (static_cast<int>(row.size()) < want) row[pick(rng)] = value(rng);
    for (const auto& [c, v] : row) {
      m.col.push_back(c);
      m.val.push_back(v);
    }
    m.ptr.push_back(static_cast<int>(m.col.size()));
  }
  return m;
}

libra::ref::Matrix to_ref(const HostCsr& m) {
  libra::ref::Matrix r;
  r.rows = m.rows;
  r.cols = m.cols;
  r.ptr.assign(m.ptr.begin(), m.ptr.end());
  r.col.assign(m.col.begin(), m.col.end());
  r.val = m.val;
  return r;
}

// The reference oracle's product, with the wrapper's 32-bit indices.
HostCsr host_product(const HostCsr& A, const HostCsr& B) {
  const libra::ref::Matrix c = libra::ref::spgemm(to_ref(A), to_ref(B));
  HostCsr C;
  C.rows = static_cast<int>(c.rows);
  C.cols = static_cast<int>(c.cols);
  C.ptr.assign(c.ptr.begin(), c.ptr.end());
  C.col.assign(c.col.begin(), c.col.end());
  C.val = c.val;
  return C;
}

template <class T>
T* to_device(const std::vector<T>& v) {
  void* d = nullptr;
  if (cudaMalloc(&d, v.size() * sizeof(T)) != cudaSuccess ||
      cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice) !=
          cudaSuccess) {
    std::fprintf(stderr, "copy to device failed\n");
    std::exit(1);
  }
  return static_cast<T*>(d);
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> v(n);
  if (n &&
      cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::fprintf(stderr, "copy to host failed\n");
    std::exit(1);
  }
  return v;
}

// 0 when C (on the device) equals the host product within 1e-12 relative.
int compare(const HostCsr& expected, const libra::vendor::cusparse::Csr& C,
            const char* what) {
  const auto ptr = to_host(C.row_ptr, static_cast<std::size_t>(C.rows) + 1);
  const auto col = to_host(C.col_idx, static_cast<std::size_t>(C.nnz));
  const auto val = to_host(C.values, static_cast<std::size_t>(C.nnz));
  if (ptr != expected.ptr || col != expected.col) {
    std::printf("FAIL %s: pattern differs (nnz %lld, expected %zu)\n", what,
                static_cast<long long>(C.nnz), expected.col.size());
    return 1;
  }
  for (std::size_t p = 0; p < val.size(); ++p) {
    if (!(std::fabs(val[p] - expected.val[p]) <=
          1e-12 * std::max(1.0, std::fabs(expected.val[p])))) {
      std::printf("FAIL %s: value %zu is %.17g, expected %.17g\n", what, p, val[p],
                  expected.val[p]);
      return 1;
    }
  }
  std::printf("ok   %s: %dx%d, nnz(C) = %lld\n", what, static_cast<int>(C.rows),
              static_cast<int>(C.cols), static_cast<long long>(C.nnz));
  return 0;
}

}  // namespace

int main() {
  using namespace libra::vendor::cusparse;
  int failures = 0;
  const HostCsr A = random_matrix(3000, 2000, 12, 1);
  const HostCsr B = random_matrix(2000, 2500, 9, 2);
  const HostCsr expected = host_product(A, B);
  int* a_ptr = to_device(A.ptr);
  int* a_col = to_device(A.col);
  double* a_val = to_device(A.val);
  int* b_ptr = to_device(B.ptr);
  int* b_col = to_device(B.col);
  double* b_val = to_device(B.val);
  const CsrView a{A.rows, A.cols, static_cast<std::int64_t>(A.col.size()),
                  a_ptr,  a_col,  a_val};
  const CsrView b{B.rows, B.cols, static_cast<std::int64_t>(B.col.size()),
                  b_ptr,  b_col,  b_val};
  try {
    Spgemm spgemm;
    for (Algorithm alg : {Algorithm::alg1, Algorithm::alg2, Algorithm::alg3}) {
      Options o;
      o.first = alg;
      o.fall_back = false;
      Product p = spgemm.multiply(a, b, o);
      if (p.algorithm != alg) {
        std::printf("FAIL %s: ran %s\n", to_string(alg), to_string(p.algorithm));
        ++failures;
      }
      failures += compare(expected, p.C, to_string(alg));
    }
    Options small_chunks;
    small_chunks.first = Algorithm::alg3;
    small_chunks.alg3_chunk_fraction = 0.01f;
    failures +=
        compare(expected, spgemm.multiply(a, b, small_chunks).C, "ALG3 chunk 0.01");
    try {
      spgemm.multiply(b, a);
      std::printf("FAIL: a shape mismatch was not reported\n");
      ++failures;
    } catch (const std::invalid_argument&) {
      std::printf("ok   shape mismatch reported\n");
    }
  } catch (const Error& e) {
    std::printf("FAIL: %s (out of memory: %d)\n", e.what(), e.out_of_memory());
    ++failures;
  }
  for (void* p : {static_cast<void*>(a_ptr), static_cast<void*>(a_col),
                  static_cast<void*>(a_val), static_cast<void*>(b_ptr),
                  static_cast<void*>(b_col), static_cast<void*>(b_val)}) {
    cudaFree(p);
  }
  std::printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
