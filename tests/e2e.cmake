# End-to-end tests of gjkd and its clients (label e2e), and the unit test of the JSON codec.
# The e2e harness (tests/e2e/e2e.py, /usr/bin/python3) starts its own gjkd on a free loopback
# port for each test, bounds every wait, and reaps every process it started.
if(TARGET gjkd_json)
  gjk_add_test(test_json SOURCES e2e/test_json.c LIBS gjkd::json LABELS unit TIMEOUT 60
               ARGS ${PROJECT_SOURCE_DIR}/examples/demo)
endif()
