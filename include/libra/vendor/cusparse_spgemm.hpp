#pragma once
// cuSPARSE's generic SpGEMM (cusparseSpGEMM_*) called directly: Kokkos Kernels
// 3.4's cuSPARSE TPL uses APIs that CUDA 12 removed. Plain CUDA, no Kokkos, so
// that it builds and can be checked on its own (cusparse_spgemm_selftest.cpp).
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace libra::vendor::cusparse {

// A CSR matrix in device memory (32-bit offsets and indices, double values),
// not owned.
struct CsrView {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  const int* row_ptr = nullptr;
  const int* col_idx = nullptr;
  const double* values = nullptr;
};

// A CSR matrix in device memory that owns its three arrays (cudaFree).
class Csr {
 public:
  Csr() = default;
  Csr(const Csr&) = delete;
  Csr& operator=(const Csr&) = delete;
  Csr(Csr&& other) noexcept { *this = std::move(other); }
  Csr& operator=(Csr&& other) noexcept;
  ~Csr() { reset(); }
  void reset() noexcept;  // frees the arrays
  CsrView view() const { return {rows, cols, nnz, row_ptr, col_idx, values}; }

  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  int* row_ptr = nullptr;
  int* col_idx = nullptr;
  double* values = nullptr;
};

enum class Algorithm { alg1 = 1, alg2 = 2, alg3 = 3 };
const char* to_string(Algorithm algorithm) noexcept;  // "ALG1", ...

// A CUDA or cuSPARSE call that failed: what() names the call and the status.
class Error : public std::runtime_error {
 public:
  Error(const std::string& what, bool out_of_memory)
      : std::runtime_error(what), out_of_memory_(out_of_memory) {}
  // The call failed for lack of device memory (cudaErrorMemoryAllocation,
  // CUSPARSE_STATUS_INSUFFICIENT_RESOURCES or CUSPARSE_STATUS_ALLOC_FAILED).
  bool out_of_memory() const noexcept { return out_of_memory_; }

 private:
  bool out_of_memory_;
};

struct Options {
  Algorithm first = Algorithm::alg1;
  // When `first` fails for lack of memory, try the next algorithm: ALG1 (fastest,
  // most memory), ALG2, ALG3 (computes in chunks of `alg3_chunk_fraction` of the
  // products).
  bool fall_back = true;
  float alg3_chunk_fraction = 0.2f;
};

struct Product {
  Csr C;                                  // sorted rows
  Algorithm algorithm = Algorithm::alg1;  // the algorithm that produced C
  // The most device memory the call held at once: its buffers and C (what
  // cuSPARSE asks the caller to allocate; it allocates nothing itself).
  std::size_t peak_bytes = 0;
};

// A cuSPARSE handle bound to one stream.
class Spgemm {
 public:
  explicit Spgemm(cudaStream_t stream = nullptr);
  ~Spgemm();
  Spgemm(const Spgemm&) = delete;
  Spgemm& operator=(const Spgemm&) = delete;

  // C = A * B as a user pays for it: work estimation, (ALG2/3) memory estimation,
  // compute and copy, with every buffer allocated and freed inside. Returns once
  // C is complete on the device. Throws Error (out_of_memory() when the last
  // algorithm tried lacked memory) and std::invalid_argument for mismatched shapes.
  Product multiply(const CsrView& A, const CsrView& B, const Options& options = {});

 private:
  Csr run(Algorithm algorithm, const CsrView& A, const CsrView& B, float chunk_fraction,
          std::size_t& peak_bytes);

  cusparseHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace libra::vendor::cusparse
