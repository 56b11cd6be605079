# cmake -DSOURCE=<dir> -DBUILD=<dir> "-DOPTIONS=<cmake args>" [-DENV_PREFIX_PATH=<a:b>]
#       [-DCOPY_BOOTSTRAP=<build tree>] [-DEXPECT_FAILURE=ON]
#       ["-DEXPECT_OUTPUT=<regex>"] [-DEXPECT_ABSENT=<path>]
#       [-DEXPECT_CACHE=<NAME>=<value>] -P configure_check.cmake
#
# Configures SOURCE into a fresh BUILD (Kokkos_ROOT, KokkosKernels_ROOT and
# CMAKE_PREFIX_PATH unset in the environment, so only OPTIONS decide; or the
# environment's CMAKE_PREFIX_PATH set to ENV_PREFIX_PATH, as `spack load` does;
# with COPY_BOOTSTRAP, BUILD starts with a copy of that tree's bootstrapped Kokkos,
# its sources and stamps) and checks
# the outcome: success (or, with EXPECT_FAILURE, failure), the configure output
# matching EXPECT_OUTPUT, EXPECT_ABSENT not existing afterwards, and the cache
# entry NAME having the value given.
foreach(_v Kokkos_ROOT KokkosKernels_ROOT CMAKE_PREFIX_PATH Libra_ROOT)
  unset(ENV{${_v}})
endforeach()
if(DEFINED ENV_PREFIX_PATH)
  set(ENV{CMAKE_PREFIX_PATH} "${ENV_PREFIX_PATH}")
endif()
file(REMOVE_RECURSE "${BUILD}")
if(DEFINED COPY_BOOTSTRAP)
  file(MAKE_DIRECTORY "${BUILD}/_deps")
  file(COPY "${COPY_BOOTSTRAP}/_deps/src" "${COPY_BOOTSTRAP}/_deps/install"
       DESTINATION "${BUILD}/_deps")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${BUILD}" ${OPTIONS}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
set(_problems "")
if(EXPECT_FAILURE AND _rc EQUAL 0)
  list(APPEND _problems "the configure succeeded; it should have failed")
elseif(NOT EXPECT_FAILURE AND NOT _rc EQUAL 0)
  list(APPEND _problems "the configure failed (exit ${_rc})")
endif()
if(DEFINED EXPECT_OUTPUT)
  string(REGEX REPLACE "[ \t\r\n]+" " " _flat "${_out}")  # messages wrap lines
  if(NOT _flat MATCHES "${EXPECT_OUTPUT}")
    list(APPEND _problems "the output does not match '${EXPECT_OUTPUT}'")
  endif()
endif()
if(DEFINED EXPECT_ABSENT AND EXISTS "${EXPECT_ABSENT}")
  list(APPEND _problems "${EXPECT_ABSENT} exists")
endif()
if(DEFINED EXPECT_CACHE)
  string(REGEX MATCH "^([^=]+)=(.*)$" _m "${EXPECT_CACHE}")
  set(_name "${CMAKE_MATCH_1}")
  set(_want "${CMAKE_MATCH_2}")
  file(STRINGS "${BUILD}/CMakeCache.txt" _line REGEX "^${_name}:[A-Z]+=")
  string(REGEX REPLACE "^[^=]*=" "" _got "${_line}")
  if(NOT _got STREQUAL _want)
    list(APPEND _problems "${_name} is '${_got}', expected '${_want}'")
  endif()
endif()
if(_problems)
  list(JOIN _problems "; " _problems)
  message(FATAL_ERROR "${_problems}")
endif()
