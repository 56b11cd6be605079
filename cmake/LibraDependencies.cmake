# Finds what Libra builds against. The library itself needs Kokkos, Kokkos Kernels
# and, when enabled, MPI and hwloc; CLI11/nlohmann-json only for the CLI;
# GoogleTest and Google Benchmark only for tests and benchmarks.

# Kokkos 3.4's installed config hard-codes the build machine's libcudart path unless
# the CUDA:: targets already exist, so CUDAToolkit comes first.
find_package(CUDAToolkit QUIET)
find_package(Kokkos REQUIRED)
find_package(KokkosKernels REQUIRED)
message(STATUS "Libra: Kokkos ${Kokkos_VERSION} (devices: ${Kokkos_DEVICES}), "
               "Kokkos Kernels ${KokkosKernels_VERSION}")

set(LIBRA_HAVE_CUDA OFF)
if(Kokkos_ENABLE_CUDA)
  set(LIBRA_HAVE_CUDA ON)
endif()

# The execution spaces tests are compiled for; the GPU script narrows this to Cuda.
set(_spaces "")
foreach(_s SERIAL OPENMP CUDA)
  if(Kokkos_ENABLE_${_s})
    list(APPEND _spaces ${_s})
  endif()
endforeach()
set(LIBRA_TEST_SPACES "${_spaces}" CACHE STRING
    "Execution spaces the unit tests are compiled for (subset of SERIAL;OPENMP;CUDA)")

if(LIBRA_ENABLE_MPI)
  find_package(MPI REQUIRED COMPONENTS CXX)
endif()
if(LIBRA_ENABLE_HWLOC)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
endif()
if(LIBRA_ENABLE_CLI)
  find_package(CLI11 REQUIRED)
  find_package(nlohmann_json 3 REQUIRED)
endif()
if(LIBRA_ENABLE_TESTS)
  find_package(GTest REQUIRED)
endif()
if(LIBRA_ENABLE_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
