# Tests Libra's installed CMake package the way a downstream project meets it:
# install into a prefix OUTSIDE the build tree, configure and build
# cmake/install_test/ against that prefix alone (no Kokkos_ROOT: LibraConfig.cmake
# finds the Kokkos Libra was built with), run its programs; then move the build
# tree away and check that the already-configured consumer still rebuilds and that
# a new consumer configures, builds and runs. A chain of CTest fixtures orders the
# steps, so `ctest -L install` (or -R install.relocated) runs all of them.
# Labelled `install`; needs the library built first (`cmake --install` copies it).
string(MD5 _libra_it_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${_libra_it_hash}" 0 12 _libra_it_hash)
set(_libra_it_tmp "$ENV{TMPDIR}")
if(NOT _libra_it_tmp)
  set(_libra_it_tmp /tmp)
endif()
set(LIBRA_INSTALL_TEST_DIR "${_libra_it_tmp}/libra-install-test-${_libra_it_hash}" CACHE PATH
    "Scratch folder of the install tests, outside the build tree (one per build tree)")
set(_libra_it_root ${LIBRA_INSTALL_TEST_DIR})
set(_libra_it_prefix ${_libra_it_root}/prefix)
set(_libra_it_build ${_libra_it_root}/consumer)
set(_libra_it_source ${PROJECT_SOURCE_DIR}/cmake/install_test)
file(REAL_PATH "${_libra_it_root}" _libra_it_root_real)
file(REAL_PATH "${CMAKE_BINARY_DIR}" _libra_it_binary_real)
string(FIND "${_libra_it_root_real}/" "${_libra_it_binary_real}/" _libra_it_inside)
if(_libra_it_inside EQUAL 0)
  message(FATAL_ERROR "LIBRA_INSTALL_TEST_DIR (${LIBRA_INSTALL_TEST_DIR}) must be outside "
                      "the build tree: the install test moves the build tree away")
endif()

# The consumer sees only the install: no Kokkos or prefix paths from the environment.
set(_libra_it_env ${CMAKE_COMMAND} -E env --unset=Kokkos_ROOT --unset=KokkosKernels_ROOT
                  --unset=CMAKE_PREFIX_PATH --unset=Libra_ROOT)
set(_libra_it_options
    -G ${CMAKE_GENERATOR}
    -DCMAKE_PREFIX_PATH=${_libra_it_prefix}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
    -DLIBRA_EXAMPLE_MATRIX=${PROJECT_SOURCE_DIR}/unit_tests/data/ca-GrQc.mtx)
if(CMAKE_MAKE_PROGRAM)
  list(APPEND _libra_it_options -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM})
endif()
# The consumer links Libra into a shared library too when Kokkos can go there: the
# bootstrapped one is position-independent; an external one is known to be only
# when it is shared.
set(_libra_it_shared OFF)
foreach(_t Kokkos::kokkoscore kokkoscore)
  if(TARGET ${_t})
    get_target_property(_libra_it_type ${_t} TYPE)
    if(_libra_it_type STREQUAL "SHARED_LIBRARY")
      set(_libra_it_shared ON)
    endif()
  endif()
endforeach()
if(LIBRA_KOKKOS_BUNDLED)
  set(_libra_it_shared ON)
endif()
if(NOT _libra_it_shared)
  message(STATUS "Libra: the install test links no shared-library consumer: this Kokkos "
                 "is static and may not be position-independent")
endif()
list(APPEND _libra_it_options -DLIBRA_CONSUMER_SHARED=${_libra_it_shared})
cmake_host_system_information(RESULT _libra_it_jobs QUERY NUMBER_OF_LOGICAL_CORES)

# A fresh start every time: a cached Kokkos_DIR from an earlier run would hide a
# LibraConfig.cmake that no longer finds Kokkos by itself.
add_test(NAME install.clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_libra_it_root})
add_test(NAME install.install
         COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${_libra_it_prefix})
# No installed CMake file or header names the build or source tree.
add_test(NAME install.no_build_paths
         COMMAND ${CMAKE_COMMAND} -DPREFIX=${_libra_it_prefix}
                 "-DFORBIDDEN=${CMAKE_BINARY_DIR};${_libra_it_binary_real};${PROJECT_SOURCE_DIR}"
                 -P ${PROJECT_SOURCE_DIR}/cmake/tests/no_build_paths.cmake)
add_test(NAME install.consumer_configure
         COMMAND ${_libra_it_env} ${CMAKE_COMMAND} -S ${_libra_it_source}
                 -B ${_libra_it_build} ${_libra_it_options})
add_test(NAME install.consumer_build
         COMMAND ${CMAKE_COMMAND} --build ${_libra_it_build} -j ${_libra_it_jobs})
# The consumer's own tests: CSR <-> CSC, the reference oracle, the README program,
# the shared library.
add_test(NAME install.consumer_run
         COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${_libra_it_build} --output-on-failure)
# Moves the build tree away for its duration (and back), so it runs alone.
add_test(NAME install.relocated
         COMMAND ${CMAKE_COMMAND} -DBUILD_TREE=${CMAKE_BINARY_DIR}
                 -DCONSUMER_BUILD=${_libra_it_build} -DCONSUMER_SOURCE=${_libra_it_source}
                 -DFRESH_BUILD=${_libra_it_root}/consumer-after-move
                 "-DCONFIGURE_OPTIONS=${_libra_it_options}" -DJOBS=${_libra_it_jobs}
                 -P ${PROJECT_SOURCE_DIR}/cmake/tests/install_relocated.cmake)
set_tests_properties(install.relocated PROPERTIES RUN_SERIAL ON
                     WORKING_DIRECTORY ${_libra_it_tmp})

# find_package(Libra) refuses a Kokkos other than the one Libra was built with: a
# stand-in Kokkos package of another version, then one with other backends.
set(_libra_it_fake_root ${CMAKE_BINARY_DIR}/install_test_other_kokkos)
foreach(_case version backends)
  set(_fake ${_libra_it_fake_root}/${_case}/lib/cmake/Kokkos)
  if(_case STREQUAL "version")
    set(_fake_version 99.0.0)
    set(_fake_backends "${LIBRA_KOKKOS_BACKENDS}")
    set(_expect "Kokkos 99.0.0 \\(${_fake}\\) was found, but this Libra was built with "
                "Kokkos ${Kokkos_VERSION}")
  else()
    set(_fake_version ${Kokkos_VERSION})
    set(_fake_backends THREADS)
    set(_expect "has the backends 'THREADS', but this Libra was built with")
  endif()
  string(CONCAT _expect ${_expect})
  file(WRITE ${_fake}/KokkosConfig.cmake
       "# Generated by Libra's cmake/LibraInstallTest.cmake: not the Kokkos Libra used.\n"
       "set(Kokkos_DEVICES \"${_fake_backends}\")\n"
       "foreach(_d \${Kokkos_DEVICES})\n  set(Kokkos_ENABLE_\${_d} ON)\nendforeach()\n"
       "if(NOT TARGET Kokkos::kokkos)\n  add_library(Kokkos::kokkos INTERFACE IMPORTED)\n"
       "endif()\n")
  file(WRITE ${_fake}/KokkosConfigVersion.cmake
       "set(PACKAGE_VERSION ${_fake_version})\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n")
  add_test(NAME install.refuses_other_kokkos_${_case}
           COMMAND ${CMAKE_COMMAND} -DSOURCE=${_libra_it_source}
                   -DBUILD=${_libra_it_fake_root}/consumer_${_case}
                   "-DOPTIONS=${_libra_it_options};-DKokkos_DIR=${_fake}"
                   -DEXPECT_FAILURE=ON "-DEXPECT_OUTPUT=${_expect}"
                   -P ${PROJECT_SOURCE_DIR}/cmake/tests/configure_check.cmake)
  set_tests_properties(install.refuses_other_kokkos_${_case} PROPERTIES LABELS install
                       FIXTURES_REQUIRED libra_install_install)
endforeach()

# The README shows the minimal program that consumer_build compiles, verbatim.
add_test(NAME install.readme_example
         COMMAND ${CMAKE_COMMAND} -DREADME=${PROJECT_SOURCE_DIR}/README.md
                 -DEXAMPLE=${_libra_it_source}/spgemm_nnz.cpp
                 -P ${PROJECT_SOURCE_DIR}/cmake/tests/readme_example.cmake)
set_tests_properties(install.readme_example PROPERTIES LABELS install)

# Each step is the setup of the next; a failed step marks the later ones not run.
set(_libra_it_previous "")
foreach(_step clean install no_build_paths consumer_configure consumer_build consumer_run
              relocated)
  set_tests_properties(install.${_step} PROPERTIES LABELS install
    ENVIRONMENT "OMP_PROC_BIND=spread;OMP_PLACES=threads")
  if(_libra_it_previous)
    set_tests_properties(install.${_libra_it_previous} PROPERTIES
                         FIXTURES_SETUP libra_install_${_libra_it_previous})
    set_tests_properties(install.${_step} PROPERTIES
                         FIXTURES_REQUIRED libra_install_${_libra_it_previous})
  endif()
  set(_libra_it_previous ${_step})
endforeach()
