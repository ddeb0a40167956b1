# World layer benchmark: state and trajectory queries on a demo-like scene (see the comment at
# the top of bench_world.c). Never a ctest test.
add_executable(bench_world ${CMAKE_CURRENT_SOURCE_DIR}/bench_world.c)
target_link_libraries(bench_world PRIVATE gjk::core gjk_warnings m)
