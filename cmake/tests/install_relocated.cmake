# cmake -DBUILD_TREE=... -DCONSUMER_BUILD=... -DCONSUMER_SOURCE=... -DFRESH_BUILD=...
#       -DCONFIGURE_OPTIONS=... -DJOBS=N -P install_relocated.cmake
#
# The installed package must not need Libra's build tree. This moves the build
# tree away (BUILD_TREE -> BUILD_TREE.moved-by-install-test), then
#   1. relinks and runs the consumer configured and built before the move, and
#   2. configures, builds and runs a new consumer (FRESH_BUILD) from scratch,
# and moves the build tree back whatever happened. CTest runs it alone
# (RUN_SERIAL): nothing else may use the build tree meanwhile. If the process is
# killed midway, `mv BUILD_TREE.moved-by-install-test BUILD_TREE` restores it.
set(_moved "${BUILD_TREE}.moved-by-install-test")
if(EXISTS "${_moved}")
  message(FATAL_ERROR "${_moved} exists (an interrupted earlier run?); move it back to "
                      "${BUILD_TREE} or delete it")
endif()
foreach(_v Kokkos_ROOT KokkosKernels_ROOT CMAKE_PREFIX_PATH Libra_ROOT)
  unset(ENV{${_v}})
endforeach()

set(_failures "")
macro(_run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                  ERROR_VARIABLE _out)
  message("---- ${what} (exit ${_rc})\n${_out}")
  if(NOT _rc EQUAL 0)
    list(APPEND _failures "${what}")
  endif()
endmacro()

file(RENAME "${BUILD_TREE}" "${_moved}")
message(STATUS "moved ${BUILD_TREE} to ${_moved}")

# 1. The consumer built before the move: its programs are removed so the build
#    links them again, against the installed package only.
file(GLOB _programs "${CONSUMER_BUILD}/libra_consumer" "${CONSUMER_BUILD}/spgemm_nnz"
     "${CONSUMER_BUILD}/libra_shared_consumer_main" "${CONSUMER_BUILD}/*.so")
if(NOT _programs)
  list(APPEND _failures "the earlier consumer build has no programs in ${CONSUMER_BUILD}")
endif()
file(REMOVE ${_programs})
_run("rebuild of the consumer configured before the move"
     ${CMAKE_COMMAND} --build "${CONSUMER_BUILD}" -j ${JOBS})
_run("tests of the rebuilt consumer"
     ${CMAKE_CTEST_COMMAND} --test-dir "${CONSUMER_BUILD}" --output-on-failure)

# 2. A consumer configured after the move.
file(REMOVE_RECURSE "${FRESH_BUILD}")
_run("configure of a new consumer" ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE}"
     -B "${FRESH_BUILD}" ${CONFIGURE_OPTIONS})
if(NOT _failures)
  _run("build of the new consumer" ${CMAKE_COMMAND} --build "${FRESH_BUILD}" -j ${JOBS})
  _run("tests of the new consumer"
       ${CMAKE_CTEST_COMMAND} --test-dir "${FRESH_BUILD}" --output-on-failure)
endif()

file(RENAME "${_moved}" "${BUILD_TREE}")
message(STATUS "moved ${_moved} back to ${BUILD_TREE}")
if(_failures)
  list(JOIN _failures "; " _failures)
  message(FATAL_ERROR "with the build tree moved away: ${_failures} failed")
endif()
message(STATUS "the installed package works without the build tree")
