#pragma once
// cuSPARSE's generic SpMV (cusparseSpMV) called directly, the GPU baseline of
// libra::spmv: y = alpha * op(A) * x + beta * y with A in CSR (32-bit indices,
// double) in device memory. CSC goes through it as MSREP's paper does: a CSC
// matrix is the CSR of its transpose, multiplied with op = transpose. Plain CUDA,
// no Kokkos. CUDA builds only (Libra::vendor_cusparse).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "libra/vendor/cusparse_spgemm.hpp"  // CsrView, Error

namespace libra::vendor::cusparse {

// One matrix prepared for repeated products, as an iterative solver holds it:
// descriptor, work buffer and cusparseSpMV_preprocess done once, in the
// constructor; multiply() runs cusparseSpMV alone.
class Spmv {
 public:
  enum class Op { none, transpose };
  // alg: 1 = CUSPARSE_SPMV_CSR_ALG1 (the default), 2 = CUSPARSE_SPMV_CSR_ALG2
  // (deterministic, balanced by nonzeros).
  Spmv(const CsrView& A, Op op, int alg, cudaStream_t stream = nullptr);
  ~Spmv();
  Spmv(const Spmv&) = delete;
  Spmv& operator=(const Spmv&) = delete;

  // y = alpha * op(A) * x + beta * y; returns once y is complete. x has
  // cols(op(A)) entries, y rows(op(A)). Throws Error.
  void multiply(const double* x, double* y, double alpha = 1.0, double beta = 0.0);
  std::size_t buffer_bytes() const { return buffer_bytes_; }

 private:
  void destroy() noexcept;

  cusparseHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cusparseConstSpMatDescr_t a_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr;  // only read by SpMV
  cusparseDnVecDescr_t y_ = nullptr;
  cusparseOperation_t op_ = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpMVAlg_t alg_ = CUSPARSE_SPMV_CSR_ALG1;
  void* buffer_ = nullptr;
  std::size_t buffer_bytes_ = 0;
  double* probe_ = nullptr;  // x and y while preparing: SpMV's descriptors need data
};

}  // namespace libra::vendor::cusparse
