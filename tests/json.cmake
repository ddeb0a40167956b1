# The JSON codec's contracts (proto/json, gjkd_json.h), label unit: who owns the strings of a
# parsed message (test_json_strings), and that every number written reads back bit for bit
# (test_json_numbers). The documents and bad input: test_json (tests/e2e.cmake).
if(TARGET gjkd_json)
  pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)
  gjk_add_test(test_json_strings SOURCES test_json_strings.c LIBS gjkd::json LABELS unit
               TIMEOUT 60)
  gjk_add_test(test_json_numbers SOURCES test_json_numbers.c LIBS gjkd::json PkgConfig::CJSON m
               LABELS unit TIMEOUT 60)
endif()
