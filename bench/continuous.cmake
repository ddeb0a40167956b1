# Continuous segment checks against the discrete query (issue 23): the dense cell through the
# world, the demo through the daemon's request handler in process. Never a ctest test.
if(TARGET gjkd_server AND TARGET gjkd_json)
  add_executable(bench_continuous ${CMAKE_CURRENT_SOURCE_DIR}/bench_continuous.c)
  target_link_libraries(bench_continuous PRIVATE gjk_dense_cell gjkd_server gjkd_json gjk_warnings m)
  target_include_directories(bench_continuous PRIVATE ${PROJECT_SOURCE_DIR}/server
                                                      ${PROJECT_SOURCE_DIR}/proto/json)
  target_compile_definitions(bench_continuous PRIVATE
                             GJK_BENCH_DEMO_DIR="${PROJECT_SOURCE_DIR}/examples/demo")
endif()
