#pragma once
// What the cuSPARSE wrappers share (internal to src/vendor): status checks that
// throw Error, and the const CSR descriptor of a CsrView.
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <string>

#include "libra/vendor/cusparse_spgemm.hpp"  // CsrView, Error

namespace libra::vendor::cusparse::detail {

inline void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clears a non-sticky error such as a failed cudaMalloc
  throw Error(std::string(call) + ": " + cudaGetErrorName(status) + " (" +
                  cudaGetErrorString(status) + ")",
              status == cudaErrorMemoryAllocation);
}

inline void check(cusparseStatus_t status, const char* call) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  throw Error(std::string(call) + ": " + cusparseGetErrorName(status) + " (" +
                  cusparseGetErrorString(status) + ")",
              status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES ||
                  status == CUSPARSE_STATUS_ALLOC_FAILED);
}

inline cusparseConstSpMatDescr_t make_const_csr(const CsrView& m) {
  cusparseConstSpMatDescr_t d = nullptr;
  check(cusparseCreateConstCsr(&d, m.rows, m.cols, m.nnz, m.row_ptr, m.col_idx, m.values,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
        "cusparseCreateConstCsr");
  return d;
}

// The descriptor of a CsrView, destroyed with it.
struct ConstCsr {
  cusparseConstSpMatDescr_t d = nullptr;
  explicit ConstCsr(const CsrView& m) : d(make_const_csr(m)) {}
  ConstCsr(const ConstCsr&) = delete;
  ConstCsr& operator=(const ConstCsr&) = delete;
  ~ConstCsr() {
    if (d) cusparseDestroySpMat(d);
  }
};

}  // namespace libra::vendor::cusparse::detail
