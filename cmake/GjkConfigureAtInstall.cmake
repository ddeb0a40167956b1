# Runs inside `cmake --install` (through gjk_install_configured, cmake/GjkInstall.cmake):
# configures GJK_TEMPLATE for the prefix being installed to and installs it as
# GJK_TEMPLATE_DESTINATION/GJK_TEMPLATE_NAME. Template variables:
#   @GJK_PREFIX@                                  the install prefix
#   @GJK_FULL_BINDIR@ @GJK_FULL_LIBDIR@ @GJK_FULL_INCLUDEDIR@ @GJK_FULL_DATADIR@
#                                                 absolute directories under it
#   @GJK_PC_LIBDIR@ @GJK_PC_INCLUDEDIR@           the same for pkg-config files: ${prefix}/...
#                                                 when the directory is under the prefix
string(REGEX REPLACE "(.)/+$" "\\1" GJK_PREFIX "${CMAKE_INSTALL_PREFIX}")
foreach(dir BINDIR LIBDIR INCLUDEDIR DATADIR)
  set(rel "${CMAKE_INSTALL_${dir}}")
  if(IS_ABSOLUTE "${rel}")
    set(GJK_FULL_${dir} "${rel}")
    set(GJK_PC_${dir} "${rel}")
  else()
    set(GJK_FULL_${dir} "${GJK_PREFIX}/${rel}")
    set(GJK_PC_${dir} "\${prefix}/${rel}")
  endif()
endforeach()

# A scratch copy per destination (DESTDIR and prefix), so that concurrent installs to
# different prefixes (the tests, cpack) never share a file.
string(MD5 scratch_key "$ENV{DESTDIR}|${GJK_PREFIX}")
set(scratch "${GJK_TEMPLATE_SCRATCH}/${scratch_key}/${GJK_TEMPLATE_NAME}")
configure_file("${GJK_TEMPLATE}" "${scratch}" @ONLY)
# file(INSTALL) adds DESTDIR, prints the usual "-- Installing:" line and records the file in
# install_manifest.txt.
file(INSTALL DESTINATION "${GJK_PREFIX}/${GJK_TEMPLATE_DESTINATION}" TYPE FILE
     FILES "${scratch}")
