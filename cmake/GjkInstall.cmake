# Install helpers shared by the directories' install rules.
#
# Components (cpack -G DEB makes one package of each, see GjkPackage.cmake):
#   runtime      gjkd, gjkctl, their man pages, the systemd unit
#   libraries    the shared libraries libgjk.so.N and libgjkd-client.so.N
#   development  headers, static libraries, the .so links, pkg-config files, the CMake
#                package, the .proto file
#
# Files that name the install prefix (pkg-config files, the systemd unit) are configured at
# install time, so that `cmake --install BUILD --prefix P` writes paths under P and CPack
# (which installs with prefix /usr into its staging DESTDIR) writes /usr paths, whatever
# CMAKE_INSTALL_PREFIX was at configure time.

# gjk_install_configured(TEMPLATE DESTINATION COMPONENT)
#   Installs TEMPLATE (a file NAME.in) as DESTINATION/NAME (DESTINATION relative to the
#   prefix), with configure_file(@ONLY) run at install time. Besides the variables of
#   cmake/GjkConfigureAtInstall.cmake (@GJK_PREFIX@, @GJK_FULL_BINDIR@, ...), the template may
#   use @PROJECT_VERSION@.
function(gjk_install_configured template destination component)
  get_filename_component(name "${template}" NAME)
  string(REGEX REPLACE "\\.in$" "" name "${name}")
  set(code "")
  foreach(var PROJECT_VERSION CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR
              CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_DATADIR)
    string(APPEND code "set(${var} [==[${${var}}]==])\n")
  endforeach()
  string(APPEND code "set(GJK_TEMPLATE [==[${template}]==])\n"
                     "set(GJK_TEMPLATE_NAME [==[${name}]==])\n"
                     "set(GJK_TEMPLATE_DESTINATION [==[${destination}]==])\n"
                     "set(GJK_TEMPLATE_SCRATCH [==[${CMAKE_BINARY_DIR}/install-configured]==])\n"
                     "include([==[${PROJECT_SOURCE_DIR}/cmake/GjkConfigureAtInstall.cmake]==])\n")
  install(CODE "${code}" COMPONENT ${component})
endfunction()
