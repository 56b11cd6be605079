# `headers.cxx20` (label cxx20): every public header compiles on its own in C++20,
# with -Werror, against the Kokkos this build uses, and so do the consumer programs
# (cmake/tests/headers_cxx20/). Libra itself is C++17; Kokkos 5 requires C++20.
set(_libra_hc_build ${CMAKE_BINARY_DIR}/headers_cxx20)
set(_libra_hc_options
    -DLIBRA_SOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DLIBRA_CONFIG_INCLUDE_DIR=${PROJECT_BINARY_DIR}/include
    -DKokkos_DIR=${Kokkos_DIR} -DKokkosKernels_DIR=${KokkosKernels_DIR}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DLIBRA_WITH_MPI=${LIBRA_ENABLE_MPI})
if(CUDAToolkit_ROOT)
  list(APPEND _libra_hc_options -DCUDAToolkit_ROOT=${CUDAToolkit_ROOT})
endif()
add_test(NAME headers.cxx20
         COMMAND ${CMAKE_CTEST_COMMAND}
                 --build-and-test ${PROJECT_SOURCE_DIR}/cmake/tests/headers_cxx20
                 ${_libra_hc_build}
                 --build-generator ${CMAKE_GENERATOR}
                 --build-makeprogram ${CMAKE_MAKE_PROGRAM}
                 --build-options ${_libra_hc_options}
                 --build-target libra_headers_cxx20)
set_tests_properties(headers.cxx20 PROPERTIES LABELS cxx20)
