#include "libra/vendor/cusparse_spmv.hpp"

#include "cusparse_common.hpp"

namespace libra::vendor::cusparse {

using detail::check;

Spmv::Spmv(const CsrView& A, Op op, int alg, cudaStream_t stream) : stream_(stream) {
  op_ = op == Op::transpose ? CUSPARSE_OPERATION_TRANSPOSE
                            : CUSPARSE_OPERATION_NON_TRANSPOSE;
  alg_ = alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1;
  const std::int64_t n_in = op == Op::transpose ? A.rows : A.cols;
  const std::int64_t n_out = op == Op::transpose ? A.cols : A.rows;
  try {
    check(cusparseCreate(&handle_), "cusparseCreate");
    check(cusparseSetStream(handle_, stream_), "cusparseSetStream");
    a_ = detail::make_const_csr(A);
    // Placeholder vectors for the buffer query and preprocessing; multiply()
    // points the descriptors at the caller's x and y.
    const std::int64_t longest = n_in > n_out ? n_in : n_out;
    check(cudaMalloc(reinterpret_cast<void**>(&probe_),
                     sizeof(double) * static_cast<std::size_t>(2 * longest + 2)),
          "cudaMalloc(SpMV vectors)");
    check(cusparseCreateDnVec(&x_, n_in, probe_, CUDA_R_64F), "cusparseCreateDnVec");
    check(cusparseCreateDnVec(&y_, n_out, probe_ + longest + 1, CUDA_R_64F),
          "cusparseCreateDnVec");
    const double alpha = 1.0, beta = 0.0;
    check(cusparseSpMV_bufferSize(handle_, op_, &alpha, a_, x_, &beta, y_, CUDA_R_64F,
                                  alg_, &buffer_bytes_),
          "cusparseSpMV_bufferSize");
    if (buffer_bytes_ > 0)
      check(cudaMalloc(&buffer_, buffer_bytes_), "cudaMalloc(SpMV buffer)");
    check(cusparseSpMV_preprocess(handle_, op_, &alpha, a_, x_, &beta, y_, CUDA_R_64F,
                                  alg_, buffer_),
          "cusparseSpMV_preprocess");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  } catch (...) {
    destroy();
    throw;
  }
}

Spmv::~Spmv() {
  destroy();
}

void Spmv::destroy() noexcept {
  if (x_) cusparseDestroyDnVec(x_);
  if (y_) cusparseDestroyDnVec(y_);
  if (a_) cusparseDestroySpMat(a_);
  if (buffer_) cudaFree(buffer_);
  if (probe_) cudaFree(probe_);
  if (handle_) cusparseDestroy(handle_);
  x_ = nullptr;
  y_ = nullptr;
  a_ = nullptr;
  buffer_ = nullptr;
  probe_ = nullptr;
  handle_ = nullptr;
}

void Spmv::multiply(const double* x, double* y, double alpha, double beta) {
  // cuSPARSE has no setter for a const vector's values; x's descriptor is a
  // plain one, which SpMV only reads.
  check(cusparseDnVecSetValues(x_, const_cast<double*>(x)), "cusparseDnVecSetValues");
  check(cusparseDnVecSetValues(y_, y), "cusparseDnVecSetValues");
  check(cusparseSpMV(handle_, op_, &alpha, a_, x_, &beta, y_, CUDA_R_64F, alg_, buffer_),
        "cusparseSpMV");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

}  // namespace libra::vendor::cusparse
