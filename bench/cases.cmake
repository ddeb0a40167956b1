# Peer benchmark (issue 3): gjkd against libccd, FCL and Bullet on the shared case files.
# The peers come from Debian packages and are linked into this program only, never into
# the library or the daemon. Run it through scripts/bench.
enable_language(CXX)
pkg_check_modules(CCD REQUIRED IMPORTED_TARGET ccd)
pkg_check_modules(FCL REQUIRED IMPORTED_TARGET fcl)
pkg_check_modules(BULLET64 REQUIRED IMPORTED_TARGET bullet-float64)

# The C++ peers (FCL needs Eigen, Bullet its double-precision build) in their own library,
# so the C sources never see FCL's "-std=c++11" compile flag.
add_library(gjk_bench_peers_cxx STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/peers_fcl.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/peers_bullet.cpp)
set_target_properties(gjk_bench_peers_cxx PROPERTIES CXX_STANDARD 14 CXX_STANDARD_REQUIRED ON
  CXX_EXTENSIONS OFF)
target_compile_options(gjk_bench_peers_cxx PRIVATE -Wall -Wextra -Wno-deprecated-declarations)
target_include_directories(gjk_bench_peers_cxx PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(gjk_bench_peers_cxx PRIVATE gjk_cases PkgConfig::FCL PkgConfig::BULLET64
  PkgConfig::CCD)

set(GJK_BENCH_PEERS_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/bench_peers.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bench_cases.c
  ${CMAKE_CURRENT_SOURCE_DIR}/peers_ccd.c)
# gjkd's rows need the whole query path of the library (shapes, supports, GJK, EPA, query).
set(GJK_BENCH_HAVE_GJKD ON)
foreach(src shape.c support.c gjk.c epa.c query.c)
  if(NOT EXISTS ${PROJECT_SOURCE_DIR}/core/src/${src})
    set(GJK_BENCH_HAVE_GJKD OFF)
  endif()
endforeach()
if(GJK_BENCH_HAVE_GJKD)
  list(APPEND GJK_BENCH_PEERS_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/peers_gjkd.c)
else()
  message(STATUS "bench_peers: core query path incomplete, gjkd rows left out")
endif()

add_executable(bench_peers ${GJK_BENCH_PEERS_SOURCES})
target_include_directories(bench_peers PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(bench_peers PRIVATE gjk_bench_peers_cxx gjk_cases gjk::core gjk_warnings
  PkgConfig::CCD PkgConfig::QHULL_R)
if(GJK_BENCH_HAVE_GJKD)
  target_compile_definitions(bench_peers PRIVATE GJK_BENCH_HAVE_GJKD)
endif()
# The C++ standard library for the static C++ peers.
set_target_properties(bench_peers PROPERTIES LINKER_LANGUAGE CXX)
