# Run at build time (cmake -P) by perf_tests/CMakeLists.txt: writes OUT with the
# source tree's short git hash, "+dirty" when tracked files differ from HEAD, so
# a benchmark rebuilt after a commit records that commit, not the one of the
# last configure. OUT is rewritten only when its text changes (no rebuilds).
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT hash)
  set(hash unknown)
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SRC}
                  RESULT_VARIABLE dirty ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    string(APPEND hash "+dirty")
  endif()
endif()
set(text "#pragma once\n// Generated at build time by cmake/LibraGitHash.cmake.\n#define LIBRA_BENCH_GIT_HASH \"${hash}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
