# Finds what Libra builds against. The library itself needs Kokkos, Kokkos Kernels
# and, when enabled, MPI and hwloc; CLI11/nlohmann-json only for the CLI;
# GoogleTest and Google Benchmark only for tests and benchmarks.

# Kokkos 3.4's installed config hard-codes the build machine's libcudart path unless
# the CUDA:: targets already exist, so CUDAToolkit comes first.
find_package(CUDAToolkit QUIET)

# ---- Kokkos: the one on the search path, else the bootstrap (LibraBootstrap.cmake)
# A Kokkos named by the user (Kokkos_ROOT, Kokkos_DIR, as variable or environment)
# must be found: a wrong path is an error, never a reason to bootstrap.
set(_libra_kokkos_named OFF)
foreach(_v Kokkos_ROOT KokkosKernels_ROOT Kokkos_DIR KokkosKernels_DIR)
  if(DEFINED ENV{${_v}} OR (${_v} AND NOT ${_v} MATCHES "NOTFOUND$"))
    set(_libra_kokkos_named ON)
  endif()
endforeach()
libra_bootstrap_mode(_libra_mode)
if(LIBRA_ENABLE_CUDA AND _libra_mode STREQUAL "AUTO")
  set(_libra_mode ON)  # the cuda variant's compiler is already the bootstrap's
endif()
# A Kokkos_DIR cached inside this build tree is an earlier configure's bootstrap:
# check its stamps again (a changed compiler rebuilds it).
if(_libra_mode STREQUAL "AUTO" AND Kokkos_DIR)
  file(REAL_PATH "${Kokkos_DIR}" _libra_kd)
  file(REAL_PATH "${CMAKE_BINARY_DIR}/_deps" _libra_bd)
  string(FIND "${_libra_kd}/" "${_libra_bd}/" _libra_at)
  if(_libra_at EQUAL 0)
    set(_libra_mode ON)
  endif()
endif()
if(_libra_mode STREQUAL "AUTO")
  find_package(Kokkos CONFIG QUIET)
  if(Kokkos_FOUND)
    set(_libra_mode OFF)
  elseif(_libra_kokkos_named)
    message(FATAL_ERROR "Libra: no Kokkos CMake package where Kokkos_ROOT/Kokkos_DIR "
                        "point (Kokkos_ROOT='${Kokkos_ROOT}' env '$ENV{Kokkos_ROOT}', "
                        "Kokkos_DIR='${Kokkos_DIR}'); fix the path, or drop it to let "
                        "Libra bootstrap Kokkos 3.4.01")
  else()
    set(_libra_mode ON)
  endif()
endif()

if(_libra_mode STREQUAL "ON")
  libra_bootstrap_kokkos()
  find_package(Kokkos CONFIG REQUIRED PATHS ${LIBRA_BOOTSTRAP_PREFIX} NO_DEFAULT_PATH)
  find_package(KokkosKernels CONFIG REQUIRED PATHS ${LIBRA_BOOTSTRAP_PREFIX}
               NO_DEFAULT_PATH)
  set(LIBRA_KOKKOS_BUNDLED ON)
  set(_libra_how "bootstrapped in ${LIBRA_BOOTSTRAP_PREFIX}")
else()
  if(NOT Kokkos_FOUND)
    find_package(Kokkos CONFIG REQUIRED)
  endif()
  find_package(KokkosKernels CONFIG)
  if(NOT KokkosKernels_FOUND)
    message(FATAL_ERROR "Libra: found Kokkos ${Kokkos_VERSION} in ${Kokkos_DIR} but no "
                        "Kokkos Kernels; set KokkosKernels_ROOT (or CMAKE_PREFIX_PATH), or "
                        "-DLIBRA_BOOTSTRAP=ON to build both 3.4.01 in the build tree")
  endif()
  set(LIBRA_KOKKOS_BUNDLED OFF)
  set(_libra_how "found by find_package in ${Kokkos_DIR}; bootstrap not run")
endif()

# Standalone Kokkos Kernels exports Kokkos::kokkoskernels; Trilinos 13.x's exports
# kokkoskernels.
if(TARGET Kokkos::kokkoskernels)
  set(LIBRA_KOKKOSKERNELS_TARGET Kokkos::kokkoskernels)
elseif(TARGET kokkoskernels)
  set(LIBRA_KOKKOSKERNELS_TARGET kokkoskernels)
else()
  message(FATAL_ERROR "Libra: Kokkos Kernels ${KokkosKernels_VERSION} in "
                      "${KokkosKernels_DIR} defines neither Kokkos::kokkoskernels nor "
                      "kokkoskernels")
endif()
set(LIBRA_KOKKOSKERNELS_TARGET ${LIBRA_KOKKOSKERNELS_TARGET} CACHE INTERNAL
    "The Kokkos Kernels target libra links (what the deps tests check)")

# The enabled backends, in a fixed order (recorded in LibraConfig.cmake).
set(LIBRA_KOKKOS_BACKENDS "")
foreach(_s SERIAL OPENMP THREADS CUDA HIP SYCL OPENMPTARGET HPX)
  if(Kokkos_ENABLE_${_s})
    list(APPEND LIBRA_KOKKOS_BACKENDS ${_s})
  endif()
endforeach()
message(STATUS "Libra: Kokkos ${Kokkos_VERSION} (backends: ${LIBRA_KOKKOS_BACKENDS}), "
               "Kokkos Kernels ${KokkosKernels_VERSION} (${LIBRA_KOKKOSKERNELS_TARGET}), "
               "${_libra_how}")

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
