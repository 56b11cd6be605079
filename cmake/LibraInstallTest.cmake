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
# The consumer's own tests: CSR <-> CSC, the README program, the shared library.
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
