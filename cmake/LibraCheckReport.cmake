# The end of the source checks run by `cmake -P` (LibraCheckIncludes.cmake,
# LibraCheckKokkosApi.cmake): fails when no file was read or a problem was
# found (one per line under WHAT), else prints OK.
#   libra_check_report(FILES <list var> PROBLEMS <list var> WHAT <text> OK <text>)
function(libra_check_report)
  cmake_parse_arguments(_a "" "FILES;PROBLEMS;WHAT;OK" "" ${ARGN})
  list(LENGTH ${_a_FILES} _nfiles)
  if(_nfiles EQUAL 0)
    message(FATAL_ERROR "no sources found under ${LIBRA_SOURCE_DIR}")
  endif()
  if(${_a_PROBLEMS})
    list(JOIN ${_a_PROBLEMS} "\n  " _text)
    message(FATAL_ERROR "${_a_WHAT}:\n  ${_text}")
  endif()
  message(STATUS "${_nfiles} files: ${_a_OK}")
endfunction()
