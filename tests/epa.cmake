# EPA (core/src/epa.c): known depths, SAT oracle, degenerate simplices, touching, limits, and
# every intersecting case of quick.cases. Calls gjk_epa directly, hence core/src.
gjk_add_test(test_epa SOURCES test_epa.c LIBS gjk_cases LABELS unit TIMEOUT 120
             ARGS ${GJK_QUICK_CASES})
target_include_directories(test_epa PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
