# Dependency bootstrap: builds Kokkos 3.4.01 and Kokkos Kernels 3.4.01 from
# Debian's trilinos 13.2.0 source package into a prefix inside the build tree.
#
# Included by the top-level CMakeLists.txt *before* project(), because the CUDA
# variant must choose Kokkos' nvcc_wrapper as the C++ compiler, and that wrapper
# only exists once the bootstrap has unpacked it.
#
# Skipped entirely (LIBRA_BOOTSTRAP=OFF) when the user hands in an existing
# install with -DKokkos_ROOT=... / -DKokkosKernels_ROOT=... / -DKokkos_DIR=...
# (what Spack and Trilinos users have). Every step leaves a stamp, so a warm
# re-configure only compares stamps.
include_guard(GLOBAL)

set(_libra_user_kokkos OFF)
foreach(_v Kokkos_ROOT KokkosKernels_ROOT Kokkos_DIR KokkosKernels_DIR)
  if(DEFINED ${_v} OR DEFINED ENV{${_v}})
    set(_libra_user_kokkos ON)
  endif()
endforeach()
if(_libra_user_kokkos)
  set(_libra_bootstrap_default OFF)
else()
  set(_libra_bootstrap_default ON)
endif()
option(LIBRA_BOOTSTRAP "Build Kokkos/Kokkos Kernels 3.4.01 inside the build tree"
       ${_libra_bootstrap_default})
option(LIBRA_ENABLE_CUDA
       "Bootstrap the cuda variant (Cuda+OpenMP+Serial, nvcc) instead of host (OpenMP+Serial)"
       OFF)
set(LIBRA_KOKKOS_ARCH "HOPPER90" CACHE STRING
    "Kokkos GPU arch option of the bootstrapped cuda variant (HOPPER90 comes from our patch)")
set(LIBRA_TRILINOS_TARBALL "" CACHE FILEPATH
    "An already downloaded trilinos_13.2.0.orig.tar.gz (else apt-get source fetches it)")

if(NOT LIBRA_BOOTSTRAP)
  return()
endif()

set(_libra_sha256 0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90)
set(_libra_top Trilinos-trilinos-release-13-2-0)
set(_libra_deps ${CMAKE_BINARY_DIR}/_deps)
set(_libra_patch_dir ${CMAKE_CURRENT_LIST_DIR}/patches)
if(LIBRA_ENABLE_CUDA)
  set(_libra_variant cuda)
else()
  set(_libra_variant host)
endif()
set(_libra_prefix ${_libra_deps}/install/${_libra_variant})
file(MAKE_DIRECTORY ${_libra_deps}/logs)

cmake_host_system_information(RESULT _libra_jobs QUERY NUMBER_OF_LOGICAL_CORES)

# Runs a command with its output in a log; on failure shows the log's tail.
function(_libra_step label log)
  string(TIMESTAMP _t0 "%s")
  message(STATUS "Libra bootstrap: ${label}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_FILE ${log} ERROR_FILE ${log})
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

# ---- 1. the source tarball, checked against its sha256 -------------------------
if(LIBRA_TRILINOS_TARBALL)
  set(_libra_tarball ${LIBRA_TRILINOS_TARBALL})
else()
  set(_libra_tarball ${_libra_deps}/download/trilinos_13.2.0.orig.tar.gz)
  if(NOT EXISTS ${_libra_tarball})
    _libra_step("apt-get source trilinos (Debian's Kokkos 3.4.01 source)"
                ${_libra_deps}/logs/fetch.log
                bash ${CMAKE_CURRENT_LIST_DIR}/bootstrap/fetch-trilinos-source.sh
                ${_libra_deps}/download)
  endif()
endif()
if(NOT EXISTS ${_libra_deps}/src/.sha256-ok)
  file(SHA256 ${_libra_tarball} _sum)
  if(NOT _sum STREQUAL _libra_sha256)
    message(FATAL_ERROR "Libra bootstrap: ${_libra_tarball} has sha256 ${_sum}, "
                        "expected ${_libra_sha256}; delete it to download again")
  endif()
endif()

# ---- 2. unpack the two packages and apply our patches ---------------------------
file(GLOB _libra_patches ${_libra_patch_dir}/*.patch)
list(SORT _libra_patches)
set(_libra_src_key "${_libra_sha256}")
foreach(_p ${_libra_patches})
  file(SHA256 ${_p} _ps)
  string(APPEND _libra_src_key ";${_ps}")
endforeach()
set(_libra_src ${_libra_deps}/src)
set(_libra_src_stamp ${_libra_src}/.patched)
set(_libra_old_key "")
if(EXISTS ${_libra_src_stamp})
  file(READ ${_libra_src_stamp} _libra_old_key)
endif()
if(NOT _libra_old_key STREQUAL _libra_src_key)
  file(REMOVE_RECURSE ${_libra_src})
  file(MAKE_DIRECTORY ${_libra_src})
  _libra_step("unpack kokkos and kokkos-kernels" ${_libra_deps}/logs/extract.log
              tar -xzf ${_libra_tarball} -C ${_libra_src}
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
                patch -d ${_pd} -p1 -i ${_p})
  endforeach()
  file(WRITE ${_libra_deps}/src/.sha256-ok "")
  file(WRITE ${_libra_src_stamp} "${_libra_src_key}")
endif()

# ---- 3. build Kokkos, then Kokkos Kernels, for this variant ---------------------
find_program(_libra_ninja ninja)
if(_libra_ninja)
  set(_libra_gen -G Ninja)
else()
  set(_libra_gen -G "Unix Makefiles")
endif()
set(_libra_common ${_libra_gen} -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF
                  -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF)

if(LIBRA_ENABLE_CUDA)
  find_program(_libra_nvcc nvcc HINTS ENV CUDA_HOME ENV CUDA_ROOT PATH_SUFFIXES bin
               PATHS /usr/local/cuda/bin)
  if(NOT _libra_nvcc)
    message(FATAL_ERROR "Libra bootstrap: LIBRA_ENABLE_CUDA=ON but no nvcc found "
                        "(set CUDA_HOME or put nvcc on PATH)")
  endif()
  get_filename_component(_libra_cuda_root ${_libra_nvcc} DIRECTORY)
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
  set(_libra_cxx ${_libra_wrapper})
  set(_libra_kokkos_opts -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
                         -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON
                         -DKokkos_ARCH_${LIBRA_KOKKOS_ARCH}=ON
                         -DCUDAToolkit_ROOT=${_libra_cuda_root})
else()
  if(CMAKE_CXX_COMPILER)
    set(_libra_cxx ${CMAKE_CXX_COMPILER})
  else()
    find_program(_libra_cxx NAMES g++ c++ REQUIRED)
  endif()
  set(_libra_kokkos_opts -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON)
endif()

set(_libra_build_key "${_libra_src_key};${_libra_cxx};${_libra_kokkos_opts}")
set(_libra_build_stamp ${_libra_prefix}/.installed)
set(_libra_old_key "")
if(EXISTS ${_libra_build_stamp})
  file(READ ${_libra_build_stamp} _libra_old_key)
endif()
if(NOT _libra_old_key STREQUAL _libra_build_key)
  set(_b ${_libra_deps}/build/${_libra_variant})
  file(REMOVE_RECURSE ${_b} ${_libra_prefix})
  _libra_step("configure Kokkos 3.4.01 (${_libra_variant})"
              ${_libra_deps}/logs/${_libra_variant}-kokkos-configure.log
              ${CMAKE_COMMAND} -S ${_libra_src}/kokkos -B ${_b}/kokkos ${_libra_common}
              -DCMAKE_CXX_COMPILER=${_libra_cxx}
              -DCMAKE_INSTALL_PREFIX=${_libra_prefix}/kokkos ${_libra_kokkos_opts})
  _libra_step("build Kokkos 3.4.01 (${_libra_variant})"
              ${_libra_deps}/logs/${_libra_variant}-kokkos-build.log
              ${CMAKE_COMMAND} --build ${_b}/kokkos --target install -j ${_libra_jobs})
  _libra_step("configure Kokkos Kernels 3.4.01 (${_libra_variant})"
              ${_libra_deps}/logs/${_libra_variant}-kernels-configure.log
              ${CMAKE_COMMAND} -S ${_libra_src}/kokkos-kernels -B ${_b}/kokkos-kernels
              ${_libra_common} -DCMAKE_CXX_COMPILER=${_libra_cxx}
              -DCMAKE_INSTALL_PREFIX=${_libra_prefix}/kokkos-kernels
              -DKokkos_ROOT=${_libra_prefix}/kokkos -DKokkosKernels_ADD_DEFAULT_ETI=OFF
              -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
              -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF)
  _libra_step("build Kokkos Kernels 3.4.01 (${_libra_variant})"
              ${_libra_deps}/logs/${_libra_variant}-kernels-build.log
              ${CMAKE_COMMAND} --build ${_b}/kokkos-kernels --target install
              -j ${_libra_jobs})
  file(REMOVE_RECURSE ${_b})  # the installed prefix is all that is needed later
  file(WRITE ${_libra_build_stamp} "${_libra_build_key}")
endif()

list(PREPEND CMAKE_PREFIX_PATH ${_libra_prefix}/kokkos ${_libra_prefix}/kokkos-kernels)
if(LIBRA_ENABLE_CUDA)
  set(CMAKE_CXX_COMPILER ${_libra_cxx})
  set(CUDAToolkit_ROOT ${_libra_cuda_root})
endif()
set(LIBRA_BOOTSTRAP_PREFIX ${_libra_prefix})
