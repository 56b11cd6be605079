# Tests Libra's installed CMake package the way a downstream project meets it:
# install into the build tree, configure and build cmake/install_test/ against that
# prefix alone (no Kokkos_ROOT: LibraConfig.cmake finds the Kokkos Libra was built
# with), then run the consumer. A chain of CTest fixtures orders the steps, so
# `ctest -L install` (or -R install.consumer_run) runs all of them. Labelled
# `install`; needs the library built first (`cmake --install` copies it).
set(_libra_it_root ${CMAKE_BINARY_DIR}/install_test)
set(_libra_it_prefix ${_libra_it_root}/prefix)
set(_libra_it_build ${_libra_it_root}/consumer)

# A fresh consumer configure every time: a cached Kokkos_DIR from an earlier run
# would hide a LibraConfig.cmake that no longer finds Kokkos by itself.
add_test(NAME install.clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_libra_it_root})

add_test(NAME install.install
         COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${_libra_it_prefix})

set(_libra_it_options
    -DCMAKE_PREFIX_PATH=${_libra_it_prefix}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE})
if(CMAKE_MAKE_PROGRAM)
  list(APPEND _libra_it_options -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM})
endif()
add_test(NAME install.consumer_configure
         COMMAND ${CMAKE_COMMAND} -S ${PROJECT_SOURCE_DIR}/cmake/install_test
                 -B ${_libra_it_build} -G ${CMAKE_GENERATOR} ${_libra_it_options})

add_test(NAME install.consumer_build COMMAND ${CMAKE_COMMAND} --build ${_libra_it_build})

# Through `cmake -E env`: the program does not exist until consumer_build has run.
add_test(NAME install.consumer_run
         COMMAND ${CMAKE_COMMAND} -E env OMP_PROC_BIND=spread OMP_PLACES=threads
                 ${_libra_it_build}/libra_consumer)

# Each step is the setup of the next; a failed step marks the later ones not run.
set(_libra_it_previous "")
foreach(_step clean install consumer_configure consumer_build consumer_run)
  set_tests_properties(install.${_step} PROPERTIES LABELS install)
  if(_libra_it_previous)
    set_tests_properties(install.${_libra_it_previous} PROPERTIES
                         FIXTURES_SETUP libra_install_${_libra_it_previous})
    set_tests_properties(install.${_step} PROPERTIES
                         FIXTURES_REQUIRED libra_install_${_libra_it_previous})
  endif()
  set(_libra_it_previous ${_step})
endforeach()
