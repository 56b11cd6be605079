# cmake -DLIBRA_SOURCE_DIR=<repo> -P LibraCheckIncludes.cmake
#
# The CTest check `product_includes`: product code (include/, src/) never reaches
# into the test or benchmark trees. Every quoted #include in it must name a
# header of include/libra/ ("libra/...", or the generated libra/config.hpp) or a
# file beside the including one; none may mention unit_tests/ or perf_tests/.
# (An include that only resolves through a test's include path, such as the old
# "reference/reference.hpp", fails the first rule.)
if(NOT LIBRA_SOURCE_DIR)
  message(FATAL_ERROR "give -DLIBRA_SOURCE_DIR=<repository root>")
endif()

file(GLOB_RECURSE _files LIST_DIRECTORIES false
     "${LIBRA_SOURCE_DIR}/include/*.hpp" "${LIBRA_SOURCE_DIR}/include/*.h"
     "${LIBRA_SOURCE_DIR}/src/*.hpp" "${LIBRA_SOURCE_DIR}/src/*.h"
     "${LIBRA_SOURCE_DIR}/src/*.cpp" "${LIBRA_SOURCE_DIR}/src/*.cu")
set(_problems "")
set(_checked 0)
foreach(_file IN LISTS _files)
  file(STRINGS "${_file}" _lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  get_filename_component(_dir "${_file}" DIRECTORY)
  file(RELATIVE_PATH _rel "${LIBRA_SOURCE_DIR}" "${_file}")
  foreach(_line IN LISTS _lines)
    math(EXPR _checked "${_checked} + 1")
    if(_line MATCHES "unit_tests|perf_tests")
      list(APPEND _problems "${_rel}: ${_line}  (the test or benchmark tree)")
      continue()
    endif()
    if(NOT _line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()  # <system or dependency header>
    endif()
    set(_name "${CMAKE_MATCH_1}")
    if(_name STREQUAL "libra/config.hpp")  # generated from cmake/config.hpp.in
      continue()
    endif()
    if(_name MATCHES "^libra/")
      if(NOT EXISTS "${LIBRA_SOURCE_DIR}/include/${_name}")
        list(APPEND _problems "${_rel}: ${_line}  (no such header in include/)")
      endif()
    elseif(NOT EXISTS "${_dir}/${_name}")
      list(APPEND _problems
           "${_rel}: ${_line}  (neither libra/... nor a file beside ${_rel})")
    endif()
  endforeach()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/LibraCheckReport.cmake")
libra_check_report(FILES _files PROBLEMS _problems
  WHAT "product code includes what is not product code"
  OK "${_checked} includes, all product code")
