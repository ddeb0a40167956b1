# Included by the top-level CMakeLists.txt after every installed target exists: the CMake
# package `gjk` (find_package(gjk) -> gjk::core, gjk::client, and the static libraries as
# gjk::core_static, gjk::client_static), relocatable.
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
