#include "libra/vendor/cusparse_spmm.hpp"

#include "cusparse_common.hpp"

#include <stdexcept>
#include <string>

namespace libra::vendor::cusparse {

namespace {

using detail::check;
using detail::ConstCsr;

struct ConstDense {
  cusparseConstDnMatDescr_t d = nullptr;
  explicit ConstDense(const DenseView& m) {
    check(cusparseCreateConstDnMat(&d, m.rows, m.cols, m.ld, m.data, CUDA_R_64F,
                                   m.row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL),
          "cusparseCreateConstDnMat");
  }
  ConstDense(const ConstDense&) = delete;
  ConstDense& operator=(const ConstDense&) = delete;
  ~ConstDense() {
    if (d) cusparseDestroyDnMat(d);
  }
};

struct Dense {
  cusparseDnMatDescr_t d = nullptr;
  explicit Dense(const DenseView& m) {
    check(cusparseCreateDnMat(&d, m.rows, m.cols, m.ld, m.data, CUDA_R_64F,
                              m.row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL),
          "cusparseCreateDnMat");
  }
  Dense(const Dense&) = delete;
  Dense& operator=(const Dense&) = delete;
  ~Dense() {
    if (d) cusparseDestroyDnMat(d);
  }
};

}  // namespace

Spmm::Spmm(cudaStream_t stream) : stream_(stream) {
  check(cusparseCreate(&handle_), "cusparseCreate");
  const cusparseStatus_t s = cusparseSetStream(handle_, stream_);
  if (s != CUSPARSE_STATUS_SUCCESS) {
    cusparseDestroy(handle_);
    check(s, "cusparseSetStream");
  }
}

Spmm::~Spmm() {
  if (buffer_) cudaFree(buffer_);
  if (handle_) cusparseDestroy(handle_);
}

void Spmm::multiply(const CsrView& A, const DenseView& X, const DenseView& Y,
                    double alpha, double beta) {
  if (X.rows != A.cols || Y.rows != A.rows || X.cols != Y.cols) {
    throw std::invalid_argument("cusparse spmm: A is " + std::to_string(A.rows) + " x " +
                                std::to_string(A.cols) + ", X " + std::to_string(X.rows) +
                                " x " + std::to_string(X.cols) + ", Y " +
                                std::to_string(Y.rows) + " x " + std::to_string(Y.cols));
  }
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  ConstCsr a(A);
  ConstDense x(X);
  Dense y(Y);
  std::size_t bytes = 0;
  check(cusparseSpMM_bufferSize(handle_, op, op, &alpha, a.d, x.d, &beta, y.d, CUDA_R_64F,
                                CUSPARSE_SPMM_ALG_DEFAULT, &bytes),
        "cusparseSpMM_bufferSize");
  if (bytes > buffer_bytes_) {
    if (buffer_) cudaFree(buffer_);
    buffer_ = nullptr;
    buffer_bytes_ = 0;
    check(cudaMalloc(&buffer_, bytes), "cudaMalloc(SpMM buffer)");
    buffer_bytes_ = bytes;
  }
  check(cusparseSpMM(handle_, op, op, &alpha, a.d, x.d, &beta, y.d, CUDA_R_64F,
                     CUSPARSE_SPMM_ALG_DEFAULT, buffer_),
        "cusparseSpMM");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

}  // namespace libra::vendor::cusparse
