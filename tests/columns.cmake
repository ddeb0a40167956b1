# e2e_columns_* (label e2e, tests/e2e/e2e_columns.py, the e2e.py harness: its own gjkd on a
# free loopback port per group):
#   arrays  the Python client's numpy arrays (pair columns) equal the full form bit for bit in
#           every mode, gradients included; requests from numpy arrays
#   segments  continuous queries: the segment columns equal the full SegmentResults bit for
#           bit (numpy arrays and dicts); inconsistent segment columns are refused
#   bench   gjkctl bench --json parses and counts what the query reports
# Needs numpy (python3-numpy, scripts/deps). e2e_client is tests/e2e.cmake's.
if(TARGET gjkd AND TARGET gjkctl)
  find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(GJK_SYSTEM_PYTHON)
    foreach(group arrays segments bench)
      add_test(NAME e2e_columns_${group}
               COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_columns.py
                       --group ${group}
                       --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                       --e2e-client $<TARGET_FILE:e2e_client>
                       --python-proto ${CMAKE_BINARY_DIR}/python
                       --source-dir ${PROJECT_SOURCE_DIR})
      set_tests_properties(e2e_columns_${group} PROPERTIES TIMEOUT 300 LABELS e2e)
    endforeach()
  endif()
endif()
