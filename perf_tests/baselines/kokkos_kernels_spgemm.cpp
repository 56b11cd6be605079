#include "kokkos_kernels_spgemm.hpp"

#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spgemm.hpp>

#include "libra/format/kokkos_interop.hpp"

namespace libra::bench {

Matrix kokkos_kernels_spgemm(const Matrix& A, const Matrix& B) {
  using Memory = Exec::memory_space;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar,
                                                                  Exec, Memory, Memory>;
  using KkMatrix = KokkosSparse::CrsMatrix<Scalar, Ordinal, Device, void, Offset>;
  const KkMatrix a = to_kokkos(A);
  const KkMatrix b = to_kokkos(B);
  KkMatrix c;
  Handle handle;
  handle.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
  KokkosSparse::spgemm_symbolic(handle, a, false, b, false, c);
  KokkosSparse::spgemm_numeric(handle, a, false, b, false,
                               c);  // destroys the spgemm handle
  return from_kokkos(c);
}

}  // namespace libra::bench
