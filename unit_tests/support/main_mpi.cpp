// GoogleTest main for tests run under mpirun (ctest starts them with 1, 2 and 3
// ranks): MPI, then Kokkos on this rank's GPU, for the whole run. Only rank 0
// prints GoogleTest's report; the exit code is the worst over the ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "libra/dist/launch.hpp"

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  std::vector<char*> args(argv, argv + argc);
  std::string device;
  if (const int gpu = libra::dist::gpu_for_local_rank(); gpu >= 0) {
    device = "--kokkos-device-id=" + std::to_string(gpu);
    args.push_back(device.data());
  }
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  int rc = 0;
  {
    Kokkos::ScopeGuard kokkos(n, args.data());
    rc = RUN_ALL_TESTS();
  }
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
