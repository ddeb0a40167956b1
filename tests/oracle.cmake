# The independent test suite: closed-form answers, a brute-force long-double oracle
# (tests/oracle.c, which shares no code with core/src), the shared case files through the
# evaluator's own checks (gjk_eval), and invariance / robustness properties.
gjk_add_test(test_analytic SOURCES test_analytic.c oracle.c LABELS unit TIMEOUT 60)
gjk_add_test(test_oracle_random SOURCES test_oracle_random.c oracle.c LABELS property
             TIMEOUT 300)
gjk_add_test(test_invariance SOURCES test_invariance.c oracle.c LABELS property TIMEOUT 300)
gjk_add_test(test_cases SOURCES test_cases.c oracle.c LIBS gjk_eval LABELS cases TIMEOUT 300
             ARGS ${GJK_QUICK_CASES})
# The same checks on the full set (30,505 cases), decompressed into the build tree by the
# full_cases target (data/CMakeLists.txt).
add_test(NAME test_cases_full COMMAND test_cases ${GJK_FULL_CASES})
set_tests_properties(test_cases_full PROPERTIES TIMEOUT 1200 LABELS "slow;cases")
# Extra check, only where a resource folder with its own case set sits beside the clone: the
# same tolerances on whatever quick.cases it holds (nothing else needs it).
if(EXISTS "${GJK_SHARED_DIR}/cases/quick.cases")
  add_test(NAME test_cases_shared COMMAND test_cases ${GJK_SHARED_DIR}/cases/quick.cases)
  set_tests_properties(test_cases_shared PROPERTIES TIMEOUT 300 LABELS "cases")
endif()
# The ellipsoid (core/src/shape.c, support.c) against its own long-double oracles: Eberly's
# point distance, support values for half-spaces, a certified dual ascent for ellipsoid pairs,
# closed-form spheroid depths (tests/test_ellipsoid.c).
gjk_add_test(test_ellipsoid SOURCES test_ellipsoid.c LABELS unit TIMEOUT 120)
