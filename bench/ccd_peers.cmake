# Continuous pair checks against FCL's continuousCollide (issue 23). FCL comes from Debian's
# libfcl-dev and is linked into this program only. Never a ctest test.
enable_language(CXX)
pkg_check_modules(FCL REQUIRED IMPORTED_TARGET fcl)
add_library(gjk_bench_ccd_fcl STATIC ${CMAKE_CURRENT_SOURCE_DIR}/ccd_fcl.cpp)
set_target_properties(gjk_bench_ccd_fcl PROPERTIES CXX_STANDARD 14 CXX_STANDARD_REQUIRED ON
  CXX_EXTENSIONS OFF)
target_compile_options(gjk_bench_ccd_fcl PRIVATE -Wall -Wextra -Wno-deprecated-declarations)
target_link_libraries(gjk_bench_ccd_fcl PUBLIC gjk::core PRIVATE PkgConfig::FCL)
add_executable(bench_ccd_peers ${CMAKE_CURRENT_SOURCE_DIR}/bench_ccd_peers.c)
target_link_libraries(bench_ccd_peers PRIVATE gjk_bench_ccd_fcl gjk_warnings m)
