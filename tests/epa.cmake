# EPA (core/src/epa.c): known depths, SAT oracle, degenerate simplices, touching, limits, and
# every intersecting case of quick.cases. Calls gjk_epa directly, hence core/src.
gjk_add_test(test_epa SOURCES test_epa.c LIBS gjk_cases LABELS unit TIMEOUT 120
             ARGS ${GJK_QUICK_CASES})
target_include_directories(test_epa PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
# Deep overlaps of two 2000-vertex hulls (sphere and ellipsoid points, fixed seed) past EPA's
# stack storage, with and without a workspace, against an exact Gauss-map oracle.
gjk_add_test(test_epa_deep SOURCES test_epa_deep.c LABELS unit TIMEOUT 300)
