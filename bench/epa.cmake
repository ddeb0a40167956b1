# EPA alone on the intersecting cases (bench_epa CASEFILE): depth error per subset and ns per
# size bucket. Reaches into core/src for the internal GJK/EPA entry points.
add_executable(bench_epa ${CMAKE_CURRENT_SOURCE_DIR}/bench_epa.c)
target_include_directories(bench_epa PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
target_link_libraries(bench_epa PRIVATE gjk::core gjk_cases gjk_warnings m)
