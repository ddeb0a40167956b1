# Install tests (label install): what `cmake --install` and `cpack -G DEB` make of this build,
# checked from the outside by tests/install/check.sh (one step per test, each a few seconds):
#   install_tree         installs into a fresh prefix, BUILD/install-test/prefix (the fixture
#                        of the next three): the file list, sonames and links, that each shared
#                        library exports exactly its API, no RUNPATH, the man pages against
#                        the programs' --help
#   install_consumers    tests/install/consumer.c built against the prefix with pkg-config and
#                        with find_package(gjk) (tests/install/CMakeLists.txt), on the shared
#                        libraries and on the static archives; runs each
#   install_unit         systemd-analyze verify and security of the installed unit; skipped
#                        (exit 77) without systemd-analyze
#   install_daemon       the installed gjkd started as the unit starts it: health, SIGTERM -> 0
#   install_deb          cpack -G DEB into BUILD/install-test/deb: files, fields, dependencies
# They need the whole build (cmake --install installs every target): run them after a full
# build, as the release step of scripts/test does. Not in sanitizer or fuzz builds: what is
# installed is the plain build, and libraries instrumented with ASan or TSan cannot be loaded
# by the uninstrumented consumers these tests build and run.
if(TARGET gjkd AND TARGET gjkctl AND TARGET gjkd_client_shared AND NOT GJK_SANITIZE
   AND NOT GJK_SANITIZE_THREAD AND NOT GJK_BUILD_FUZZ)
  set(GJK_INSTALL_TEST_DIR ${CMAKE_BINARY_DIR}/install-test)
  foreach(step tree consumers unit daemon deb)
    add_test(NAME install_${step}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/check.sh ${step} ${PROJECT_SOURCE_DIR}
              ${CMAKE_BINARY_DIR} ${GJK_INSTALL_TEST_DIR} ${CMAKE_C_COMPILER} ${CMAKE_COMMAND}
              ${CMAKE_CPACK_COMMAND})
    set_tests_properties(install_${step} PROPERTIES
      LABELS install TIMEOUT 60 SKIP_RETURN_CODE 77
      ENVIRONMENT "GJK_VERSION=${PROJECT_VERSION};GJK_SOVERSION=${PROJECT_VERSION_MAJOR};GJK_BINDIR=${CMAKE_INSTALL_BINDIR};GJK_LIBDIR=${CMAKE_INSTALL_LIBDIR};GJK_INCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR};GJK_DATADIR=${CMAKE_INSTALL_DATADIR};GJK_MANDIR=${CMAKE_INSTALL_MANDIR}")
  endforeach()
  set_tests_properties(install_tree PROPERTIES FIXTURES_SETUP install_prefix)
  set_tests_properties(install_consumers install_unit install_daemon PROPERTIES
    FIXTURES_REQUIRED install_prefix)
endif()
