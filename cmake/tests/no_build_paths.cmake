# cmake -DPREFIX=<install prefix> -DFORBIDDEN=<path;path...> -P no_build_paths.cmake
#
# Fails when an installed CMake file or header names one of the FORBIDDEN folders
# (Libra's build and source trees): such a path breaks once the build tree is
# gone, and a relocated install must not depend on it.
file(GLOB_RECURSE _files LIST_DIRECTORIES false "${PREFIX}/include/*" "${PREFIX}/lib/*.cmake"
     "${PREFIX}/lib64/*.cmake" "${PREFIX}/share/*.cmake")
list(LENGTH _files _n)
if(_n EQUAL 0)
  message(FATAL_ERROR "no installed files under ${PREFIX}")
endif()
set(_bad "")
foreach(_f IN LISTS _files)
  file(READ "${_f}" _text)
  foreach(_p IN LISTS FORBIDDEN)
    string(FIND "${_text}" "${_p}/" _at)
    if(NOT _at EQUAL -1)
      list(APPEND _bad "${_f} names ${_p}")
    endif()
  endforeach()
endforeach()
if(_bad)
  list(JOIN _bad "\n  " _bad)
  message(FATAL_ERROR "installed files name the build or source tree:\n  ${_bad}")
endif()
message(STATUS "${_n} installed CMake files and headers, none names ${FORBIDDEN}")
