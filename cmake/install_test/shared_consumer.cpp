// Libra linked into a consumer's shared library (position-independent libra and
// Kokkos): the library runs Kokkos and a Libra conversion, its program only calls
// it. Exit status 0 only when the conversion gives the expected column counts.
#include <Kokkos_Core.hpp>
#include <cstdio>

#include "libra/format/convert.hpp"
#include "libra/version.hpp"
#include "shared_consumer.hpp"

int libra_shared_consumer_run(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  using Matrix = libra::Csr<double, int, int, Kokkos::Device<Exec, Exec::memory_space>>;
  // The 2 x 3 matrix [1 0 2; 0 0 3]: columns 0, 1 and 2 hold 1, 0 and 2 entries.
  Matrix::row_map_non_const_type row_map("shared::row_map", 3);
  Matrix::index_type col_idx("shared::col_idx", 3);
  Matrix::values_type values("shared::values", 3);
  auto rm = Kokkos::create_mirror_view(row_map);
  auto ci = Kokkos::create_mirror_view(col_idx);
  auto v = Kokkos::create_mirror_view(values);
  rm(0) = 0, rm(1) = 2, rm(2) = 3;
  ci(0) = 0, ci(1) = 2, ci(2) = 2;
  v(0) = 1, v(1) = 2, v(2) = 3;
  Kokkos::deep_copy(row_map, rm);
  Kokkos::deep_copy(col_idx, ci);
  Kokkos::deep_copy(values, v);
  const auto csc = libra::to_csc(Exec(), Matrix(2, 3, row_map, col_idx, values));
  auto cm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), csc.col_map);
  const bool ok =
      cm.extent(0) == 4 && cm(0) == 0 && cm(1) == 1 && cm(2) == 1 && cm(3) == 3;
  std::printf("libra %s in a shared library: CSC column offsets %s\n", libra::version(),
              ok ? "match" : "MISMATCH");
  return ok ? 0 : 1;
}
