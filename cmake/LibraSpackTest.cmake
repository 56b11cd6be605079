# Checks the Spack repository in spack/ without Spack (which cannot run in CI),
# label `spack`:
#   spack.repo            spack/check_repo.py: the recipe loads, and its
#                         dependencies, versions, variants, license, URL and
#                         stand-alone tests hold up (see the script);
#   spack.check_rejects   spack/test_check_repo.py: check_repo.py rejects each kind
#                         of broken recipe it claims to (an unknown package such as
#                         kokkos-kernelz, a version range no builtin version has, ...).
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "Libra: no python3, the spack recipe tests are not registered")
  return()
endif()

set(_libra_spack ${PROJECT_SOURCE_DIR}/spack)
set(_libra_spack_args ${_libra_spack}/spack_repo/libra ${PROJECT_SOURCE_DIR}
                      ${_libra_spack}/builtin_packages.json)
add_test(NAME spack.repo
         COMMAND ${Python3_EXECUTABLE} -B ${_libra_spack}/check_repo.py ${_libra_spack_args})
add_test(NAME spack.check_rejects
         COMMAND ${Python3_EXECUTABLE} -B ${_libra_spack}/test_check_repo.py
                 ${_libra_spack_args} ${CMAKE_BINARY_DIR}/spack_check_test)
set_tests_properties(spack.repo spack.check_rejects PROPERTIES LABELS spack)
