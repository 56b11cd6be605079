# libra_add_space_test(NAME SOURCES src... [LABELS l...] [LIBS lib...] [DEFINES d...])
#
# Compiles the same test sources once per execution space in LIBRA_TEST_SPACES
# (Cabana/Kokkos style): the executable NAME_<space> is built with
# LIBRA_TEST_SPACE_<SPACE> defined, and CTest runs it as NAME.<space>, labelled
# with the space's name and LABELS. Every result inside is compared with the host
# reference oracle (include/libra/reference/, target Libra::reference).
function(libra_add_space_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LABELS;LIBS;DEFINES" ${ARGN})
  foreach(space IN LISTS LIBRA_TEST_SPACES)
    string(TOLOWER ${space} lspace)
    set(exe ${name}_${lspace})
    add_executable(${exe} ${T_SOURCES})
    target_compile_definitions(${exe} PRIVATE LIBRA_TEST_SPACE_${space} ${T_DEFINES})
    target_link_libraries(${exe} PRIVATE libra_test_support ${T_LIBS})
    add_test(NAME ${name}.${lspace} COMMAND ${exe})
    set_tests_properties(${name}.${lspace} PROPERTIES
      LABELS "${lspace};${T_LABELS}"
      ENVIRONMENT "OMP_PROC_BIND=spread;OMP_PLACES=threads")
  endforeach()
endfunction()

# libra_add_host_test(NAME SOURCES src... [LABELS ...] [LIBS ...]): a test of
# host-only code (parsers, the CLI), built once.
function(libra_add_host_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE libra_test_support ${T_LIBS})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "host;${T_LABELS}"
    ENVIRONMENT "OMP_PROC_BIND=spread;OMP_PLACES=threads")
endfunction()
