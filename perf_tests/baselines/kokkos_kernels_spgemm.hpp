#pragma once
// Kokkos Kernels' SpGEMM as a one-shot user calls it, in its own translation unit
// (its templates are the heaviest part of the benchmark build).
#include "harness.hpp"

namespace libra::bench {

// C = A * B with Kokkos Kernels' default algorithm (SPGEMM_KK): a fresh
// KokkosKernelsHandle, spgemm_symbolic, then spgemm_numeric, on Exec. Rows of C
// may be unsorted (Kokkos Kernels does not sort them). Returns with the device
// still possibly busy: the caller fences.
Matrix kokkos_kernels_spgemm(const Matrix& A, const Matrix& B);

}  // namespace libra::bench
