#include "libra/vendor/cusparse_spgemm.hpp"

#include "cusparse_common.hpp"

#include <algorithm>
#include <climits>
#include <utility>

#if CUSPARSE_VER_MAJOR < 12
#error \
    "cusparse_spgemm needs cuSPARSE 12 or newer (CUDA 12+): it uses the const descriptor API"
#endif

namespace libra::vendor::cusparse {

namespace {

using detail::check;

// Device memory freed when it goes out of scope unless released.
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::size_t bytes, const char* what) {
    if (bytes > 0) check(cudaMalloc(&ptr_, bytes), what);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  template <class T>
  T* release() {
    return static_cast<T*>(std::exchange(ptr_, nullptr));
  }

 private:
  void* ptr_ = nullptr;
};

struct MatrixDescr {
  cusparseSpMatDescr_t d = nullptr;
  MatrixDescr() = default;
  MatrixDescr(const MatrixDescr&) = delete;
  MatrixDescr& operator=(const MatrixDescr&) = delete;
  ~MatrixDescr() {
    if (d) cusparseDestroySpMat(d);
  }
};

struct SpgemmDescr {
  cusparseSpGEMMDescr_t d = nullptr;
  SpgemmDescr() { check(cusparseSpGEMM_createDescr(&d), "cusparseSpGEMM_createDescr"); }
  SpgemmDescr(const SpgemmDescr&) = delete;
  SpgemmDescr& operator=(const SpgemmDescr&) = delete;
  ~SpgemmDescr() {
    if (d) cusparseSpGEMM_destroyDescr(d);
  }
};

cusparseSpGEMMAlg_t to_cusparse(Algorithm a) {
  switch (a) {
    case Algorithm::alg1:
      return CUSPARSE_SPGEMM_ALG1;
    case Algorithm::alg2:
      return CUSPARSE_SPGEMM_ALG2;
    case Algorithm::alg3:
      return CUSPARSE_SPGEMM_ALG3;
  }
  return CUSPARSE_SPGEMM_ALG1;
}

}  // namespace

Csr& Csr::operator=(Csr&& other) noexcept {
  if (this != &other) {
    reset();
    rows = std::exchange(other.rows, 0);
    cols = std::exchange(other.cols, 0);
    nnz = std::exchange(other.nnz, 0);
    row_ptr = std::exchange(other.row_ptr, nullptr);
    col_idx = std::exchange(other.col_idx, nullptr);
    values = std::exchange(other.values, nullptr);
  }
  return *this;
}

void Csr::reset() noexcept {
  if (row_ptr) cudaFree(row_ptr);
  if (col_idx) cudaFree(col_idx);
  if (values) cudaFree(values);
  row_ptr = nullptr;
  col_idx = nullptr;
  values = nullptr;
  rows = cols = nnz = 0;
}

const char* to_string(Algorithm algorithm) noexcept {
  switch (algorithm) {
    case Algorithm::alg1:
      return "ALG1";
    case Algorithm::alg2:
      return "ALG2";
    case Algorithm::alg3:
      return "ALG3";
  }
  return "?";
}

Spgemm::Spgemm(cudaStream_t stream) : stream_(stream) {
  check(cusparseCreate(&handle_), "cusparseCreate");
  const cusparseStatus_t s = cusparseSetStream(handle_, stream_);
  if (s != CUSPARSE_STATUS_SUCCESS) {
    cusparseDestroy(handle_);
    check(s, "cusparseSetStream");
  }
}

Spgemm::~Spgemm() {
  if (handle_) cusparseDestroy(handle_);
}

Product Spgemm::multiply(const CsrView& A, const CsrView& B, const Options& options) {
  if (A.cols != B.rows) {
    throw std::invalid_argument("cusparse spgemm: A has " + std::to_string(A.cols) +
                                " columns but B has " + std::to_string(B.rows) + " rows");
  }
  Algorithm algorithm = options.first;
  for (;;) {
    try {
      Product p;
      p.C = run(algorithm, A, B, options.alg3_chunk_fraction, p.peak_bytes);
      p.algorithm = algorithm;
      return p;
    } catch (const Error& e) {
      if (!options.fall_back || !e.out_of_memory() || algorithm == Algorithm::alg3) throw;
      algorithm = algorithm == Algorithm::alg1 ? Algorithm::alg2 : Algorithm::alg3;
    }
  }
}

Csr Spgemm::run(Algorithm algorithm, const CsrView& A, const CsrView& B,
                float chunk_fraction, std::size_t& peak_bytes) {
  const cusparseSpGEMMAlg_t alg = to_cusparse(algorithm);
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const double alpha = 1.0;
  const double beta = 0.0;
  detail::ConstCsr a(A);
  detail::ConstCsr b(B);
  SpgemmDescr spgemm;
  Buffer c_row_ptr(static_cast<std::size_t>(A.rows + 1) * sizeof(int),
                   "cudaMalloc(C offsets)");
  MatrixDescr c;
  check(cusparseCreateCsr(&c.d, A.rows, B.cols, 0, c_row_ptr.get(), nullptr, nullptr,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
        "cusparseCreateCsr(C)");

  std::size_t size1 = 0;
  check(cusparseSpGEMM_workEstimation(handle_, op, op, &alpha, a.d, b.d, &beta, c.d,
                                      CUDA_R_64F, alg, spgemm.d, &size1, nullptr),
        "cusparseSpGEMM_workEstimation(size)");
  Buffer buffer1(size1, "cudaMalloc(work estimation buffer)");
  const std::size_t c_offsets = static_cast<std::size_t>(A.rows + 1) * sizeof(int);
  peak_bytes = c_offsets + size1;
  check(cusparseSpGEMM_workEstimation(handle_, op, op, &alpha, a.d, b.d, &beta, c.d,
                                      CUDA_R_64F, alg, spgemm.d, &size1, buffer1.get()),
        "cusparseSpGEMM_workEstimation");

  std::size_t size2 = 0;
  if (algorithm == Algorithm::alg1) {
    check(cusparseSpGEMM_compute(handle_, op, op, &alpha, a.d, b.d, &beta, c.d,
                                 CUDA_R_64F, alg, spgemm.d, &size2, nullptr),
          "cusparseSpGEMM_compute(size)");
  } else {
    // ALG2/ALG3 size the compute buffer by a memory estimate; ALG3 computes in
    // chunks of chunk_fraction of the products, so its buffer is smaller.
    std::size_t size3 = 0;
    check(cusparseSpGEMM_estimateMemory(handle_, op, op, &alpha, a.d, b.d, &beta, c.d,
                                        CUDA_R_64F, alg, spgemm.d, chunk_fraction, &size3,
                                        nullptr, nullptr),
          "cusparseSpGEMM_estimateMemory(size)");
    Buffer buffer3(size3, "cudaMalloc(memory estimation buffer)");
    peak_bytes = std::max(peak_bytes, c_offsets + size1 + size3);
    check(cusparseSpGEMM_estimateMemory(handle_, op, op, &alpha, a.d, b.d, &beta, c.d,
                                        CUDA_R_64F, alg, spgemm.d, chunk_fraction, &size3,
                                        buffer3.get(), &size2),
          "cusparseSpGEMM_estimateMemory");
  }
  Buffer buffer2(size2, "cudaMalloc(compute buffer)");
  check(cusparseSpGEMM_compute(handle_, op, op, &alpha, a.d, b.d, &beta, c.d, CUDA_R_64F,
                               alg, spgemm.d, &size2, buffer2.get()),
        "cusparseSpGEMM_compute");

  std::int64_t rows = 0, cols = 0, nnz = 0;
  check(cusparseSpMatGetSize(c.d, &rows, &cols, &nnz), "cusparseSpMatGetSize(C)");
  if (nnz > INT_MAX) {
    throw Error("cusparse spgemm: nnz(C) = " + std::to_string(nnz) +
                    " does not fit 32-bit offsets",
                false);
  }
  Buffer c_col(static_cast<std::size_t>(nnz) * sizeof(int), "cudaMalloc(C columns)");
  Buffer c_val(static_cast<std::size_t>(nnz) * sizeof(double), "cudaMalloc(C values)");
  peak_bytes = std::max(
      peak_bytes, c_offsets + size1 + size2 +
                      static_cast<std::size_t>(nnz) * (sizeof(int) + sizeof(double)));
  check(cusparseCsrSetPointers(c.d, c_row_ptr.get(), c_col.get(), c_val.get()),
        "cusparseCsrSetPointers(C)");
  check(cusparseSpGEMM_copy(handle_, op, op, &alpha, a.d, b.d, &beta, c.d, CUDA_R_64F,
                            alg, spgemm.d),
        "cusparseSpGEMM_copy");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");

  Csr C;
  C.rows = rows;
  C.cols = cols;
  C.nnz = nnz;
  C.row_ptr = c_row_ptr.release<int>();
  C.col_idx = c_col.release<int>();
  C.values = c_val.release<double>();
  return C;
}

}  // namespace libra::vendor::cusparse
