# The JSON codec's contracts (proto/json, gjkd_json.h), label unit: who owns the strings of a
# parsed message (test_json_strings). The documents and bad input: test_json (tests/e2e.cmake).
if(TARGET gjkd_json)
  gjk_add_test(test_json_strings SOURCES test_json_strings.c LIBS gjkd::json LABELS unit
               TIMEOUT 60)
endif()
