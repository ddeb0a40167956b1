# Dense-cell benchmark: the world layer on the scene users' optimizers meet, with the world
# overhead ratio (see the comment at the top of bench_dense.c). dense_cell is the scene
# generator, a library for later benchmarks and tests. Never a ctest test.
add_library(gjk_dense_cell STATIC ${CMAKE_CURRENT_SOURCE_DIR}/dense_cell.c)
target_include_directories(gjk_dense_cell PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(gjk_dense_cell PUBLIC gjk::core m PRIVATE gjk_warnings)
add_executable(bench_dense ${CMAKE_CURRENT_SOURCE_DIR}/bench_dense.c)
target_link_libraries(bench_dense PRIVATE gjk_dense_cell gjk_warnings m)
# dense_export: the dense cell as gjkd documents (scene and trajectory JSON) for the benchmarks
# through the daemon (bench/python_client.py, gjkctl bench).
if(TARGET gjkd::json)
  add_executable(dense_export ${CMAKE_CURRENT_SOURCE_DIR}/dense_export.c)
  target_link_libraries(dense_export PRIVATE gjk_dense_cell gjkd::json gjk_warnings m)
endif()
