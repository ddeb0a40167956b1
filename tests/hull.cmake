# Shapes and hulls (core/src/shape.c, core/src/hull.c).
gjk_add_test(test_shape SOURCES test_shape.c LABELS unit TIMEOUT 60)
gjk_add_test(test_hull SOURCES test_hull.c LABELS unit TIMEOUT 60)
gjk_add_test(test_hull_cases SOURCES test_hull_cases.c LIBS gjk_cases LABELS cases TIMEOUT 120
             ARGS ${GJK_QUICK_CASES})
