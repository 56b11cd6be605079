#pragma once
// cuSPARSE's generic SpMM (cusparseSpMM) called directly, beside the SpGEMM
// wrapper: Y = alpha * A * X + beta * Y with A in CSR (32-bit indices, double) and
// X, Y dense in device memory, row-major (Kokkos LayoutRight) or column-major
// (LayoutLeft). Plain CUDA, no Kokkos. CUDA builds only (Libra::vendor_cusparse).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "libra/vendor/cusparse_spgemm.hpp"  // CsrView, Error

namespace libra::vendor::cusparse {

// A dense matrix in device memory, not owned: element (i, k) is at
// data[i * ld + k] (row_major) or data[i + k * ld] (column-major).
struct DenseView {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t ld = 0;
  bool row_major = true;
  double* data = nullptr;
};

// A cuSPARSE handle bound to one stream, with the SpMM work buffer kept between
// calls (grown when a call needs more), as a program multiplying repeatedly keeps it.
class Spmm {
 public:
  explicit Spmm(cudaStream_t stream = nullptr);
  ~Spmm();
  Spmm(const Spmm&) = delete;
  Spmm& operator=(const Spmm&) = delete;

  // Y = alpha * A * X + beta * Y with CUSPARSE_SPMM_ALG_DEFAULT; returns once Y
  // is complete. Throws Error, and std::invalid_argument for mismatched shapes.
  void multiply(const CsrView& A, const DenseView& X, const DenseView& Y,
                double alpha = 1.0, double beta = 0.0);
  std::size_t buffer_bytes() const { return buffer_bytes_; }

 private:
  cusparseHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* buffer_ = nullptr;
  std::size_t buffer_bytes_ = 0;
};

}  // namespace libra::vendor::cusparse
