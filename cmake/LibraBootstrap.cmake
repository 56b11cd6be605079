# Dependency bootstrap: builds Kokkos 3.4.01 and Kokkos Kernels 3.4.01 from
# Debian's trilinos 13.2.0 source package into one prefix inside the build tree,
# for machines that have no Kokkos (a plain Debian box, CI).
#
# LIBRA_BOOTSTRAP picks when it runs:
#   AUTO (default)  only when find_package(Kokkos CONFIG) finds no Kokkos
#                   (Kokkos_ROOT, CMAKE_PREFIX_PATH after `spack load` or
#                   `module load`, ...); LibraDependencies.cmake decides.
#   ON              always, ignoring any Kokkos on the search path.
#   OFF             never (Spack passes this): no Kokkos found is an error.
#
# Included by the top-level CMakeLists.txt *before* project(): the cuda variant
# (LIBRA_ENABLE_CUDA) compiles everything with Kokkos' nvcc_wrapper, which has to
# be the C++ compiler from the start, so its sources are unpacked here. The build
# itself runs after project() (libra_bootstrap_kokkos(), called by
# LibraDependencies.cmake), when the compiler's real path and version are known.
#
# Every step leaves a stamp, so a warm re-configure only compares stamps: the
# build stamp holds the compiler's resolved path, id and version (never the
# literal CMAKE_CXX_COMPILER string, which changes from g++ to c++ and back).
include_guard(GLOBAL)

set(LIBRA_BOOTSTRAP AUTO CACHE STRING
    "Build Kokkos/Kokkos Kernels 3.4.01 in the build tree: AUTO (when find_package finds no Kokkos), ON (always), OFF (never)")
set_property(CACHE LIBRA_BOOTSTRAP PROPERTY STRINGS AUTO ON OFF)
option(LIBRA_ENABLE_CUDA
       "Bootstrap the cuda variant (Cuda+OpenMP+Serial, nvcc) instead of host (OpenMP+Serial)"
       OFF)
set(LIBRA_KOKKOS_ARCH "HOPPER90" CACHE STRING
    "Kokkos GPU arch option of the bootstrapped cuda variant (HOPPER90 comes from our patch)")
set(LIBRA_TRILINOS_TARBALL "" CACHE FILEPATH
    "An already downloaded trilinos_13.2.0.orig.tar.gz (else apt-get source fetches it)")

# AUTO, ON or OFF (accepting CMake's other spellings of true and false).
function(libra_bootstrap_mode out)
  string(TOUPPER "${LIBRA_BOOTSTRAP}" _m)
  if(_m STREQUAL "AUTO" OR _m STREQUAL "")
    set(_m AUTO)
  elseif(LIBRA_BOOTSTRAP)
    set(_m ON)
  else()
    set(_m OFF)
  endif()
  set(${out} ${_m} PARENT_SCOPE)
endfunction()

set(_libra_sha256 0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90)
set(_libra_top Trilinos-trilinos-release-13-2-0)
set(_libra_deps ${CMAKE_BINARY_DIR}/_deps)
set(_libra_src ${_libra_deps}/src)
set(_libra_patch_dir ${CMAKE_CURRENT_LIST_DIR}/patches)
set(_libra_fetch_script ${CMAKE_CURRENT_LIST_DIR}/bootstrap/fetch-trilinos-source.sh)
if(LIBRA_ENABLE_CUDA)
  set(_libra_variant cuda)
else()
  set(_libra_variant host)
endif()
# Kokkos and Kokkos Kernels share one prefix, laid out as their own installs are,
# so cmake --install copies it into Libra's prefix unchanged (LibraInstall.cmake).
set(LIBRA_BOOTSTRAP_PREFIX ${_libra_deps}/install/${_libra_variant})

# Runs a command, its output in a log; with STREAM the output also goes to the
# terminal as it comes (the builds' [n/N] lines are the progress). On failure
# shows the log's tail. Each step reports its time.
function(_libra_step label log)
  cmake_parse_arguments(S "STREAM" "" "COMMAND" ${ARGN})
  string(TIMESTAMP _t0 "%s")
  message(STATUS "Libra bootstrap: ${label} ...")
  if(S_STREAM)
    execute_process(COMMAND ${S_COMMAND} RESULT_VARIABLE _rc
                    OUTPUT_VARIABLE _out ERROR_VARIABLE _out
                    ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
    file(WRITE ${log} "${_out}")
  else()
    execute_process(COMMAND ${S_COMMAND} RESULT_VARIABLE _rc OUTPUT_FILE ${log}
                    ERROR_FILE ${log})
  endif()
  if(NOT _rc EQUAL 0)
    file(READ ${log} _out)
    string(LENGTH "${_out}" _n)
    if(_n GREATER 6000)
      math(EXPR _start "${_n} - 6000")
      string(SUBSTRING "${_out}" ${_start} -1 _out)
    endif()
    message(FATAL_ERROR "Libra bootstrap: '${label}' failed (exit ${_rc}); log ${log}:\n${_out}")
  endif()
  string(TIMESTAMP _t1 "%s")
  math(EXPR _dt "${_t1} - ${_t0}")
  message(STATUS "Libra bootstrap: ${label} done in ${_dt} s")
endfunction()

# ---- 1. the source tarball, checked against its sha256; 2. unpacked and patched --
# Sets _libra_src_key (tarball and patch hashes) in the caller's scope.
macro(_libra_bootstrap_sources)
  file(MAKE_DIRECTORY ${_libra_deps}/logs)
  if(LIBRA_TRILINOS_TARBALL)
    set(_libra_tarball ${LIBRA_TRILINOS_TARBALL})
  else()
    set(_libra_tarball ${_libra_deps}/download/trilinos_13.2.0.orig.tar.gz)
    if(NOT EXISTS ${_libra_tarball})
      _libra_step("apt-get source trilinos (Debian's Kokkos 3.4.01 source)"
                  ${_libra_deps}/logs/fetch.log
                  COMMAND bash ${_libra_fetch_script} ${_libra_deps}/download)
    endif()
  endif()
  file(GLOB _libra_patches ${_libra_patch_dir}/*.patch)
  list(SORT _libra_patches)
  set(_libra_src_key "${_libra_sha256}")
  foreach(_p ${_libra_patches})
    file(SHA256 ${_p} _ps)
    string(APPEND _libra_src_key ";${_ps}")
  endforeach()
  set(_libra_src_stamp ${_libra_src}/.patched)
  set(_libra_old_key "")
  if(EXISTS ${_libra_src_stamp})
    file(READ ${_libra_src_stamp} _libra_old_key)
  endif()
  if(NOT _libra_old_key STREQUAL _libra_src_key)
    if(NOT EXISTS ${_libra_tarball})
      message(FATAL_ERROR "Libra bootstrap: ${_libra_tarball} does not exist")
    endif()
    file(SHA256 ${_libra_tarball} _sum)
    if(NOT _sum STREQUAL _libra_sha256)
      message(FATAL_ERROR "Libra bootstrap: ${_libra_tarball} has sha256 ${_sum}, "
                          "expected ${_libra_sha256}; delete it to download again")
    endif()
    file(REMOVE_RECURSE ${_libra_src})
    file(MAKE_DIRECTORY ${_libra_src})
    _libra_step("unpack kokkos and kokkos-kernels" ${_libra_deps}/logs/extract.log
                COMMAND tar -xzf ${_libra_tarball} -C ${_libra_src}
                ${_libra_top}/packages/kokkos ${_libra_top}/packages/kokkos-kernels)
    file(RENAME ${_libra_src}/${_libra_top}/packages/kokkos ${_libra_src}/kokkos)
    file(RENAME ${_libra_src}/${_libra_top}/packages/kokkos-kernels
         ${_libra_src}/kokkos-kernels)
    file(REMOVE_RECURSE ${_libra_src}/${_libra_top})
    foreach(_p ${_libra_patches})
      get_filename_component(_pn ${_p} NAME)
      if(_pn MATCHES "^kokkos-kernels-")
        set(_pd ${_libra_src}/kokkos-kernels)
      else()
        set(_pd ${_libra_src}/kokkos)
      endif()
      _libra_step("patch ${_pn}" ${_libra_deps}/logs/patch-${_pn}.log
                  COMMAND patch -d ${_pd} -p1 -i ${_p})
    endforeach()
    file(WRITE ${_libra_src_stamp} "${_libra_src_key}")
  endif()
endmacro()

# ---- the cuda variant's compiler, chosen before project() ------------------------
libra_bootstrap_mode(_libra_mode)
if(LIBRA_ENABLE_CUDA AND NOT _libra_mode STREQUAL "OFF")
  find_program(LIBRA_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_ROOT PATH_SUFFIXES bin
               PATHS /usr/local/cuda/bin)
  if(NOT LIBRA_NVCC)
    message(FATAL_ERROR "Libra bootstrap: LIBRA_ENABLE_CUDA=ON but no nvcc found "
                        "(set CUDA_HOME or put nvcc on PATH)")
  endif()
  _libra_bootstrap_sources()
  get_filename_component(_libra_cuda_root ${LIBRA_NVCC} DIRECTORY)
  get_filename_component(_libra_cuda_root ${_libra_cuda_root} DIRECTORY)
  # nvcc_wrapper finds nvcc through CUDA_ROOT and needs a default arch for CMake's
  # try_compile; this small launcher fixes both for every later build step.
  set(_libra_wrapper ${_libra_deps}/bin/nvcc_wrapper)
  file(MAKE_DIRECTORY ${_libra_deps}/bin)
  file(WRITE ${_libra_wrapper}
       "#!/usr/bin/env bash\nexport CUDA_ROOT=\${CUDA_ROOT:-${_libra_cuda_root}}\n"
       "export NVCC_WRAPPER_DEFAULT_ARCH=\${NVCC_WRAPPER_DEFAULT_ARCH:-sm_90}\n"
       "exec ${_libra_src}/kokkos/bin/nvcc_wrapper \"$@\"\n")
  file(CHMOD ${_libra_wrapper} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
       GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(CMAKE_CXX_COMPILER ${_libra_wrapper})
  set(CUDAToolkit_ROOT ${_libra_cuda_root})
endif()

# What identifies the compiler a bootstrapped Kokkos was built with: its resolved
# path, id and version (plus nvcc's for the cuda variant). Needs project().
function(_libra_compiler_key out)
  file(REAL_PATH "${CMAKE_CXX_COMPILER}" _cxx)
  set(_key "${_cxx};${CMAKE_CXX_COMPILER_ID};${CMAKE_CXX_COMPILER_VERSION}")
  if(LIBRA_ENABLE_CUDA)
    file(REAL_PATH "${LIBRA_NVCC}" _nvcc)
    execute_process(COMMAND ${_nvcc} --version OUTPUT_VARIABLE _v ERROR_QUIET)
    string(REGEX MATCH "release [0-9.]+, V[0-9.]+" _v "${_v}")
    string(APPEND _key ";${_nvcc};${_v}")
  endif()
  set(${out} "${_key}" PARENT_SCOPE)
endfunction()

# ---- 3. build Kokkos, then Kokkos Kernels, for this variant (after project()) ----
function(libra_bootstrap_kokkos)
  _libra_bootstrap_sources()
  find_program(LIBRA_NINJA ninja)
  if(LIBRA_NINJA)
    set(_gen -G Ninja)
  else()
    set(_gen -G "Unix Makefiles")
  endif()
  cmake_host_system_information(RESULT _jobs QUERY NUMBER_OF_LOGICAL_CORES)
  # Static or shared as Libra itself; always position independent, so a static
  # libra.a with its Kokkos links into a consumer's shared library too.
  if(BUILD_SHARED_LIBS)
    set(_shared ON)
  else()
    set(_shared OFF)
  endif()
  set(_common ${_gen} -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=${_shared}
              -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_CXX_STANDARD=17
              -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
              -DCMAKE_INSTALL_PREFIX=${LIBRA_BOOTSTRAP_PREFIX}
              -DCMAKE_INSTALL_LIBDIR=lib)
  if(LIBRA_ENABLE_CUDA)
    get_filename_component(_cuda_root ${LIBRA_NVCC} DIRECTORY)
    get_filename_component(_cuda_root ${_cuda_root} DIRECTORY)
    set(_kokkos_opts -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
                     -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON
                     -DKokkos_ARCH_${LIBRA_KOKKOS_ARCH}=ON -DCUDAToolkit_ROOT=${_cuda_root})
  else()
    set(_kokkos_opts -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON)
  endif()

  _libra_compiler_key(_cxx_key)
  # "one-prefix" names this layout: a stamp from an older layout rebuilds.
  set(_key "one-prefix;${_libra_src_key};${_cxx_key};${_shared};${_kokkos_opts}")
  set(_stamp ${LIBRA_BOOTSTRAP_PREFIX}/.installed)
  set(_old_key "")
  if(EXISTS ${_stamp})
    file(READ ${_stamp} _old_key)
  endif()
  if(_old_key STREQUAL _key)
    message(STATUS "Libra bootstrap: Kokkos 3.4.01 (${_libra_variant}) up to date in "
                   "${LIBRA_BOOTSTRAP_PREFIX}")
    return()
  endif()
  if(_old_key)
    message(STATUS "Libra bootstrap: rebuilding Kokkos; was built with\n  ${_old_key}\n"
                   "now\n  ${_key}")
  endif()
  set(_b ${_libra_deps}/build/${_libra_variant})
  set(_logs ${_libra_deps}/logs/${_libra_variant})
  file(REMOVE_RECURSE ${_b} ${LIBRA_BOOTSTRAP_PREFIX})
  string(TIMESTAMP _t0 "%s")
  _libra_step("configure Kokkos 3.4.01 (${_libra_variant})" ${_logs}-kokkos-configure.log
              COMMAND ${CMAKE_COMMAND} -S ${_libra_src}/kokkos -B ${_b}/kokkos ${_common}
              ${_kokkos_opts})
  _libra_step("build Kokkos 3.4.01 (${_libra_variant})" ${_logs}-kokkos-build.log STREAM
              COMMAND ${CMAKE_COMMAND} --build ${_b}/kokkos -j ${_jobs})
  _libra_step("install Kokkos 3.4.01 (${_libra_variant})" ${_logs}-kokkos-install.log
              COMMAND ${CMAKE_COMMAND} --install ${_b}/kokkos)
  _libra_step("configure Kokkos Kernels 3.4.01 (${_libra_variant})"
              ${_logs}-kernels-configure.log
              COMMAND ${CMAKE_COMMAND} -S ${_libra_src}/kokkos-kernels -B ${_b}/kokkos-kernels
              ${_common} -DKokkos_DIR=${LIBRA_BOOTSTRAP_PREFIX}/lib/cmake/Kokkos
              -DKokkosKernels_ADD_DEFAULT_ETI=OFF
              -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
              -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF)
  _libra_step("build Kokkos Kernels 3.4.01 (${_libra_variant})" ${_logs}-kernels-build.log
              STREAM COMMAND ${CMAKE_COMMAND} --build ${_b}/kokkos-kernels -j ${_jobs})
  _libra_step("install Kokkos Kernels 3.4.01 (${_libra_variant})"
              ${_logs}-kernels-install.log
              COMMAND ${CMAKE_COMMAND} --install ${_b}/kokkos-kernels)
  file(REMOVE_RECURSE ${_b})  # the installed prefix is all that is needed later
  file(WRITE ${_stamp} "${_key}")
  string(TIMESTAMP _t1 "%s")
  math(EXPR _dt "${_t1} - ${_t0}")
  message(STATUS "Libra bootstrap: Kokkos and Kokkos Kernels 3.4.01 (${_libra_variant}) "
                 "built in ${_dt} s into ${LIBRA_BOOTSTRAP_PREFIX}")
endfunction()
