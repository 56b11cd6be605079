// An installed Libra exports its reference oracle (Libra::reference) with the
// bridge to Libra's formats: a product worked out by hand, by the oracle and by
// libra::spgemm. Exit status 0 when all three agree.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <vector>

#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"
#include "libra/spgemm/spgemm.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Device = Kokkos::DefaultExecutionSpace::device_type;
  // [1 0 2]   [4 0]   [16  0]
  // [0 3 0] * [0 5] = [ 0 15]
  //           [6 0]
  const auto a = libra::ref::from_triplets(2, 3, {{0, 0, 1}, {0, 2, 2}, {1, 1, 3}});
  const auto b = libra::ref::from_triplets(3, 2, {{0, 0, 4}, {1, 1, 5}, {2, 0, 6}});
  const auto oracle = libra::ref::spgemm(a, b);
  const auto C = libra::spgemm(Kokkos::DefaultExecutionSpace(),
                               libra::ref::to_csr<double, int, int, Device>(a),
                               libra::ref::to_csr<double, int, int, Device>(b));
  const auto got = libra::ref::from_csr(C);
  const std::vector<double> by_hand{16, 15};
  if (oracle.val != by_hand || got.col != oracle.col || got.val != oracle.val) {
    std::printf("reference_consumer: the products differ\n");
    return 1;
  }
  std::printf("reference_consumer: ok\n");
  return 0;
}
