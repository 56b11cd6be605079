# cmake -DREADME=<README.md> -DEXAMPLE=<file> -P readme_example.cmake
#
# The README shows the minimal program verbatim; this fails when the README's copy
# and the file CTest compiles (cmake/install_test/spgemm_nnz.cpp) differ.
file(READ "${README}" _readme)
file(READ "${EXAMPLE}" _example)
string(STRIP "${_example}" _example)
string(FIND "${_readme}" "```cpp\n${_example}\n```" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "${README} does not show ${EXAMPLE} as it is; copy the file into "
                      "the README's code block")
endif()
message(STATUS "${README} shows ${EXAMPLE} as it is")
