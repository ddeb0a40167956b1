# Included by the top-level CMakeLists.txt after every installed target exists:
#   1. the CMake package `gjk` (find_package(gjk) -> gjk::core, gjk::client, and the static
#      libraries as gjk::core_static, gjk::client_static), relocatable;
#   2. the Debian packages, one per install component (cmake/GjkInstall.cmake):
#        cpack -G DEB    (in the build tree) -> gjkd_V_ARCH.deb, libgjkd0_V_ARCH.deb,
#                                               libgjkd-dev_V_ARCH.deb
include(CMakePackageConfigHelpers)

if(TARGET gjkd_client)
  set(GJK_HAVE_CLIENT TRUE)
else()
  set(GJK_HAVE_CLIENT FALSE)
endif()

# ---------------------------------------------------------------- CMake package
set(GJK_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gjk)
install(EXPORT gjkTargets NAMESPACE gjk:: FILE gjkTargets.cmake
  DESTINATION ${GJK_CMAKE_INSTALL_DIR} COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gjkConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/gjkConfig.cmake
  INSTALL_DESTINATION ${GJK_CMAKE_INSTALL_DIR})
# The soname is the major version (libgjk.so.0): the same major version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/gjkConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/gjkConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/gjkConfigVersion.cmake
  DESTINATION ${GJK_CMAKE_INSTALL_DIR} COMPONENT development)

# ---------------------------------------------------------------- Debian packages
set(GJK_PACKAGE_CONTACT "gjkd maintainers <root@localhost>" CACHE STRING
    "Maintainer of the Debian packages (cpack -G DEB): \"Name <address>\"")
set(CPACK_PACKAGE_NAME gjkd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${GJK_PACKAGE_CONTACT}")
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Run-time dependencies from the ELF files (dpkg-shlibdeps); the package of the shared
# libraries (libgjkd0, the only one with any) gets a shlibs file and the ldconfig calls.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENTS_ALL libraries development)
if(TARGET gjkd)
  list(PREPEND CPACK_COMPONENTS_ALL runtime)
endif()

# gjkd and gjkctl link libgjk and libgjkd-client statically: the runtime package needs only
# the system libraries dpkg-shlibdeps finds.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME gjkd)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION science)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "distance-query daemon gjkd and its client gjkctl
gjkd answers minimum-distance, witness and penetration queries between convex shapes of
robots and obstacles over ZeroMQ; gjkctl is its command-line client. With a hardened systemd
unit (gjkd.service).")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/debian/postinst ${PROJECT_SOURCE_DIR}/packaging/debian/prerm
    ${PROJECT_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_LIBRARIES_PACKAGE_NAME libgjkd${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_LIBRARIES_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIBRARIES_DESCRIPTION "shared libraries libgjk and libgjkd-client
libgjk computes distances, witnesses and penetration depths between convex shapes (GJK/EPA)
for robots among obstacles; libgjkd-client is the C client of the gjkd daemon.")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libgjkd-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEVELOPMENT_DEPENDS libraries)
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION "development files of libgjk and libgjkd-client
Headers, static libraries, pkg-config files (gjk, gjkd-client), the CMake package gjk
(find_package(gjk): gjk::core, gjk::client) and the gjkd.v1 protobuf contract.")
# What the headers include and the static libraries, the pkg-config files and the CMake
# package name (no ELF file here, so dpkg-shlibdeps adds nothing).
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "libqhull-dev, pkgconf | pkg-config")
if(GJK_HAVE_CLIENT)
  string(APPEND CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS ", libprotobuf-c-dev, libzmq3-dev")
endif()

include(CPack)
