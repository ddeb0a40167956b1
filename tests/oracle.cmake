# The independent test suite: closed-form answers, a brute-force long-double oracle
# (tests/oracle.c, which shares no code with core/src), the shared case files through the
# evaluator's own checks (gjk_eval), and invariance / robustness properties.
gjk_add_test(test_analytic SOURCES test_analytic.c oracle.c LABELS unit TIMEOUT 60)
gjk_add_test(test_oracle_random SOURCES test_oracle_random.c oracle.c LABELS property
             TIMEOUT 300)
gjk_add_test(test_invariance SOURCES test_invariance.c oracle.c LABELS property TIMEOUT 300)
gjk_add_test(test_cases SOURCES test_cases.c oracle.c LIBS gjk_eval LABELS cases TIMEOUT 300
             ARGS ${GJK_CASES_DIR}/quick.cases)
# The same checks on the full set (30,500 cases), decompressed into the build tree by the
# full_cases target (tools/gjk-cases/CMakeLists.txt).
if(TARGET full_cases)
  add_test(NAME test_cases_full COMMAND test_cases ${CMAKE_BINARY_DIR}/full.cases)
  set_tests_properties(test_cases_full PROPERTIES TIMEOUT 1200 LABELS "slow;cases")
endif()
