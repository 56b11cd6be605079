# libra_add_mpi_test(NAME SOURCES src... RANKS n...): like libra_add_space_test,
# one executable per execution space, run by CTest under mpiexec once per rank
# count (NAME.<space>.np<n>), with support/main_mpi.cpp as main.
#
# Open MPI refuses to run as root and to start more ranks than cores unless told;
# CI runs as root on 2 cores, so the tests tell it through its environment
# variables (other MPIs ignore them). Ranks are not bound to cores (several ranks
# share the 2 cores), each runs one OpenMP thread, and idle OpenMP threads sleep.
function(libra_add_mpi_test name)
  cmake_parse_arguments(T "" "" "SOURCES;RANKS" ${ARGN})
  foreach(space IN LISTS LIBRA_TEST_SPACES)
    string(TOLOWER ${space} lspace)
    set(exe ${name}_${lspace})
    add_executable(${exe} ${T_SOURCES} ${PROJECT_SOURCE_DIR}/unit_tests/support/main_mpi.cpp)
    target_compile_definitions(${exe} PRIVATE LIBRA_TEST_SPACE_${space})
    target_link_libraries(${exe} PRIVATE libra_test_support)
    foreach(np IN LISTS T_RANKS)
      add_test(NAME ${name}.${lspace}.np${np}
               COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
                       ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${exe}> ${MPIEXEC_POSTFLAGS})
      set_tests_properties(${name}.${lspace}.np${np} PROPERTIES
        LABELS "${lspace};mpi"
        PROCESSORS ${np}
        TIMEOUT 600
        ENVIRONMENT "OMP_PROC_BIND=false;OMP_NUM_THREADS=1;OMP_WAIT_POLICY=passive;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_hwloc_base_binding_policy=none")
    endforeach()
  endforeach()
endfunction()
