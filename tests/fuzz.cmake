# Fuzzing (fuzz/). In every build: the reproducers of what the fuzzers found
# (test_fuzz_regressions) and a replay of the core harnesses over their seed corpus, without
# libFuzzer (fuzz_replay_*). In a clang build with -DGJK_BUILD_FUZZ=ON: one bounded libFuzzer
# run per harness, label `fuzz`, about 15 s each. A run writes new inputs only into the build
# tree (fuzz-corpus/<harness>/, the first corpus directory) and reads the repository's seeds
# from the second; crashes land in fuzz-artifacts/.
set(GJK_FUZZ_DIR ${PROJECT_SOURCE_DIR}/fuzz)
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_fuzz_regressions.c)
  gjk_add_test(test_fuzz_regressions SOURCES test_fuzz_regressions.c LABELS unit TIMEOUT 60)
endif()
foreach(h hull gjk)
  gjk_add_test(fuzz_replay_${h} SOURCES ${GJK_FUZZ_DIR}/fuzz_${h}.c ${GJK_FUZZ_DIR}/replay_main.c
               LABELS unit TIMEOUT 120 ARGS ${GJK_FUZZ_DIR}/corpus/fuzz_${h})
endforeach()

if(GJK_BUILD_FUZZ)
  set(GJK_FUZZ_SECONDS 15 CACHE STRING "Seconds of each bounded fuzz run (ctest label fuzz)")
  set(GJK_FUZZ_WORK ${CMAKE_BINARY_DIR}/fuzz-work)
  set(GJK_FUZZ_HARNESSES hull gjk)
  if(TARGET gjkd_json)
    list(APPEND GJK_FUZZ_HARNESSES json)
  endif()
  if(TARGET gjkd_server)
    list(APPEND GJK_FUZZ_HARNESSES request)
  endif()
  math(EXPR fuzz_timeout "${GJK_FUZZ_SECONDS} + 60")
  foreach(h ${GJK_FUZZ_HARNESSES})
    file(MAKE_DIRECTORY ${GJK_FUZZ_WORK}/corpus/fuzz_${h} ${GJK_FUZZ_WORK}/artifacts)
    add_test(NAME fuzz_run_${h}
             COMMAND fuzz_${h} -max_total_time=${GJK_FUZZ_SECONDS} -timeout=10 -rss_limit_mb=2048
                     -max_len=8192 -print_final_stats=1
                     -artifact_prefix=${GJK_FUZZ_WORK}/artifacts/fuzz_${h}-
                     ${GJK_FUZZ_WORK}/corpus/fuzz_${h} ${GJK_FUZZ_DIR}/corpus/fuzz_${h})
    set_tests_properties(fuzz_run_${h} PROPERTIES TIMEOUT ${fuzz_timeout} LABELS fuzz
                         ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=print_stacktrace=1")
  endforeach()
endif()
