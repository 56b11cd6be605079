# Installs Libra as a CMake package: find_package(Libra) gives Libra::libra,
# Libra::reference and, in CUDA builds, Libra::vendor_cusparse.
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

# Where this build found its dependencies, so a consumer finds the same ones.
get_filename_component(LIBRA_Kokkos_DIR "${Kokkos_DIR}" ABSOLUTE)
get_filename_component(LIBRA_KokkosKernels_DIR "${KokkosKernels_DIR}" ABSOLUTE)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/LibraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/LibraConfig.cmake INSTALL_DESTINATION ${LIBRA_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/LibraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/LibraConfig.cmake
              ${PROJECT_BINARY_DIR}/LibraConfigVersion.cmake
        DESTINATION ${LIBRA_INSTALL_CMAKEDIR})
