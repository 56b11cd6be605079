// Libra's minimal program (shown in README.md; CTest compiles and runs it against
// an installed Libra): reads a Matrix Market or SNAP file onto Kokkos' default
// execution space, multiplies it by itself and prints nnz(A) and nnz(C).
//   spgemm_nnz MATRIX.mtx
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <exception>
#include <libra/io/read.hpp>
#include <libra/spgemm/spgemm.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // Kokkos::initialize ... Kokkos::finalize
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MATRIX.mtx\n", argv[0]);
    return 2;
  }
  // Where the matrices live and where the kernels run: the default execution
  // space (Cuda in a CUDA build, else OpenMP or Serial) and its memory space.
  using Exec = Kokkos::DefaultExecutionSpace;
  using Device = Kokkos::Device<Exec, Exec::memory_space>;
  try {
    // double values, int column indices, int row offsets
    const auto A = libra::io::read_matrix<double, int, int, Device>(argv[1]);
    const auto C = libra::spgemm(Exec(), A, A);  // C = A * A
    std::printf("nnz(A) = %lld, nnz(C) = %lld\n", static_cast<long long>(A.nnz()),
                static_cast<long long>(C.nnz()));
  } catch (const std::exception& e) {  // libra::InputError names the file and line
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
