#pragma once
// Kokkos Kernels' SpGEMM as a one-shot user calls it: the baseline Libra is
// measured against (benchmarks, `libra spgemm --algo kk`). Not part of
// libra/libra.hpp: its templates are heavy to compile.
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spgemm.hpp>

#include "libra/format/csr.hpp"
#include "libra/format/kokkos_interop.hpp"

namespace libra::vendor {

// C = A * B with Kokkos Kernels' default algorithm (SPGEMM_KK): a fresh
// KokkosKernelsHandle, spgemm_symbolic, then spgemm_numeric, on the execution
// space of Device. Rows of C may be unsorted (Kokkos Kernels does not sort
// them). Returns with the device possibly still busy: the caller fences.
template <class S, class O, class Off, class Device>
Csr<S, O, Off, Device> kokkos_kernels_spgemm(const Csr<S, O, Off, Device>& A,
                                             const Csr<S, O, Off, Device>& B) {
  using Exec = typename Device::execution_space;
  using Memory = typename Device::memory_space;
  using Handle =
      KokkosKernels::Experimental::KokkosKernelsHandle<Off, O, S, Exec, Memory, Memory>;
  using KkMatrix = KokkosSparse::CrsMatrix<S, O, Device, void, Off>;
  const KkMatrix a = to_kokkos(A);
  const KkMatrix b = to_kokkos(B);
  KkMatrix c;
  Handle handle;
  handle.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
  KokkosSparse::spgemm_symbolic(handle, a, false, b, false, c);
  KokkosSparse::spgemm_numeric(handle, a, false, b, false, c);
  return from_kokkos(c);
}

}  // namespace libra::vendor
