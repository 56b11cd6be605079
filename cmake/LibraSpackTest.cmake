# Checks the Spack repository in spack/ without Spack (which cannot run in CI):
# package.py must byte-compile, and spack/check_repo.py checks repo.yaml's namespace,
# the recipe's class name and that every LIBRA_* option it passes exists.
# Labelled `spack`.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "Libra: no python3, the spack recipe tests are not registered")
  return()
endif()

set(_libra_spack_repo ${PROJECT_SOURCE_DIR}/spack)
add_test(NAME spack.package_compiles
         COMMAND env python3 -m py_compile
                 ${_libra_spack_repo}/packages/libra/package.py)
# Bytecode goes to the build tree, not next to package.py in the sources.
set_tests_properties(spack.package_compiles PROPERTIES LABELS spack
  ENVIRONMENT PYTHONPYCACHEPREFIX=${CMAKE_BINARY_DIR}/spack_pycache)

add_test(NAME spack.repo
         COMMAND env python3 ${_libra_spack_repo}/check_repo.py
                 ${_libra_spack_repo} ${PROJECT_SOURCE_DIR} libra)
set_tests_properties(spack.repo PROPERTIES LABELS spack)
