# cmake -DLIBRA_SOURCE_DIR=<repo> -P LibraCheckKokkosApi.cmake
#
# The CTest check `kokkos_api`: no code of the repository (the library, the tool,
# the tests, the benchmarks) calls Kokkos API that Kokkos 4 deprecates and
# Kokkos 5 removes. The bootstrap builds Kokkos 3.4, where these still compile,
# so only users with Kokkos 4/5 would see the failure; each name below once
# broke a build against Kokkos 4.6.01 with Kokkos_ENABLE_DEPRECATED_CODE_4=OFF.
#   atomic_increment / atomic_decrement: Kokkos::atomic_add(&x, T{1}) instead
#   Space::concurrency() (static): Space().concurrency() (an instance's)
#   Kokkos::Impl:: names: not public API at all
if(NOT LIBRA_SOURCE_DIR)
  message(FATAL_ERROR "give -DLIBRA_SOURCE_DIR=<repository root>")
endif()

set(_patterns "atomic_increment[ \t]*\\(" "atomic_decrement[ \t]*\\("
              "::concurrency[ \t]*\\([ \t]*\\)" "Kokkos::Impl::")
file(GLOB_RECURSE _files LIST_DIRECTORIES false
     "${LIBRA_SOURCE_DIR}/include/*.hpp" "${LIBRA_SOURCE_DIR}/src/*.hpp"
     "${LIBRA_SOURCE_DIR}/src/*.cpp" "${LIBRA_SOURCE_DIR}/unit_tests/*.hpp"
     "${LIBRA_SOURCE_DIR}/unit_tests/*.cpp" "${LIBRA_SOURCE_DIR}/perf_tests/*.hpp"
     "${LIBRA_SOURCE_DIR}/perf_tests/*.cpp")
set(_problems "")
foreach(_file IN LISTS _files)
  file(RELATIVE_PATH _rel "${LIBRA_SOURCE_DIR}" "${_file}")
  # Lines as a CMake list: ";" and brackets would split or join its items, so
  # they become "," and "<>" (also in the lines the error shows).
  file(READ "${_file}" _text)
  string(REPLACE ";" "," _text "${_text}")
  string(REPLACE "[" "<" _text "${_text}")
  string(REPLACE "]" ">" _text "${_text}")
  string(REPLACE "\\" "/" _text "${_text}")
  string(REPLACE "\n" ";" _lines "${_text}")
  set(_n 0)
  foreach(_line IN LISTS _lines)
    math(EXPR _n "${_n} + 1")
    string(REGEX REPLACE "//.*$" "" _code "${_line}")  # comments may name them
    foreach(_p IN LISTS _patterns)
      if(_code MATCHES "${_p}")
        string(STRIP "${_line}" _shown)
        list(APPEND _problems "${_rel}:${_n}: ${_shown}")
      endif()
    endforeach()
  endforeach()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/LibraCheckReport.cmake")
libra_check_report(FILES _files PROBLEMS _problems
  WHAT "Kokkos API that Kokkos 4 deprecates (see this script for what to use instead)"
  OK "no Kokkos API that Kokkos 4 deprecates")
