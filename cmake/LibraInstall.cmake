# Installs Libra as a CMake package: find_package(Libra) gives Libra::libra,
# Libra::reference and, in CUDA builds, Libra::vendor_cusparse.
#
# The install never refers to the build tree: a bootstrapped Kokkos and Kokkos
# Kernels are installed into Libra's prefix beside it, and LibraConfig.cmake
# finds them there through paths relative to its own location, so the prefix can
# be moved and the build tree deleted. An external Kokkos (Spack, a module,
# Trilinos) stays where it is; the config remembers its absolute location as a
# hint that Kokkos_ROOT or CMAKE_PREFIX_PATH override.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(LIBRA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Libra)

# The library, its reference oracle and (CUDA builds) the cuSPARSE baseline.
set(_libra_installed_targets libra libra_reference)
if(TARGET libra_vendor_cusparse)
  list(APPEND _libra_installed_targets libra_vendor_cusparse)
endif()
install(TARGETS ${_libra_installed_targets} EXPORT LibraTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/libra
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/libra/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/libra)
install(EXPORT LibraTargets NAMESPACE Libra:: DESTINATION ${LIBRA_INSTALL_CMAKEDIR})

if(LIBRA_KOKKOS_BUNDLED)
  # The bootstrapped prefix is laid out as an install (bin/, include/, lib/), so it
  # is copied as it is. Its CMake files name the folder Kokkos was installed to
  # (as hints); they are rewritten to name the folder they are installed to.
  install(DIRECTORY ${LIBRA_BOOTSTRAP_PREFIX}/ DESTINATION . USE_SOURCE_PERMISSIONS
          PATTERN ".installed" EXCLUDE)
  install(CODE "
    file(GLOB_RECURSE _libra_kokkos_cmake
         \"\${CMAKE_INSTALL_PREFIX}/lib/cmake/Kokkos/*.cmake\"
         \"\${CMAKE_INSTALL_PREFIX}/lib/cmake/KokkosKernels/*.cmake\")
    foreach(_f IN LISTS _libra_kokkos_cmake)
      file(READ \"\${_f}\" _text)
      string(REPLACE \"${LIBRA_BOOTSTRAP_PREFIX}\" \"\${CMAKE_INSTALL_PREFIX}\" _new \"\${_text}\")
      if(NOT _new STREQUAL _text)
        file(WRITE \"\${_f}\" \"\${_new}\")
      endif()
    endforeach()")
  set(LIBRA_CONFIG_KOKKOS_HINT "")
else()
  get_filename_component(LIBRA_CONFIG_KOKKOS_HINT "${Kokkos_DIR}" ABSOLUTE)
  get_filename_component(LIBRA_CONFIG_KERNELS_HINT "${KokkosKernels_DIR}" ABSOLUTE)
endif()

# What this Libra was built with, checked by find_package(Libra).
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/LibraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/LibraConfig.cmake INSTALL_DESTINATION ${LIBRA_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/LibraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/LibraConfig.cmake
              ${PROJECT_BINARY_DIR}/LibraConfigVersion.cmake
        DESTINATION ${LIBRA_INSTALL_CMAKEDIR})
