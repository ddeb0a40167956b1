# The command-line programs (issue 19).
#
# cli_help (label unit, tests/cli_help.py): every program's --help and -h print the usage on
# stdout and exit 0 before any work (gjkd binds nothing and touches no state directory, gjkctl
# COMMAND --help sends nothing), an unknown option exits 2 with one line on stderr. The
# benchmarks are checked when they are built (-DGJK_BUILD_BENCH=ON; bench/ is added after
# tests/, hence $<TARGET_EXISTS>). Not checked: the fuzz drivers (libFuzzer owns their
# options), the test programs, and examples/ (no options).
find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(GJK_SYSTEM_PYTHON)
  set(cli_programs)
  foreach(p gjk-cases gjk-ab bench_epa bench_world bench_peers bench_curve bench_e2e bench_continuous
            bench_ccd_peers)
    list(APPEND cli_programs "$<$<TARGET_EXISTS:${p}>:$<TARGET_FILE:${p}>>")
  endforeach()
  add_test(NAME cli_help
           COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli_help.py
                   "--gjkd=$<$<TARGET_EXISTS:gjkd>:$<TARGET_FILE:gjkd>>"
                   "--gjkctl=$<$<TARGET_EXISTS:gjkctl>:$<TARGET_FILE:gjkctl>>"
                   ${cli_programs})
  set_tests_properties(cli_help PROPERTIES TIMEOUT 300 LABELS unit)
endif()

# e2e_cli_* (label e2e, tests/e2e/e2e_cli.py, the e2e.py harness: its own gjkd on a free
# loopback port per group):
#   trajectory_name  gjkctl trajectory FILE --name N on a FILE without "name"
#   numbers          gjkctl --json prints the reply's doubles bit for bit (against the Python
#                    client), scene --export reads back to the stored scene exactly
# (e2e_client is tests/e2e.cmake's, defined with gjkd and gjkctl: generator expressions see it.)
if(TARGET gjkd AND TARGET gjkctl)
  if(GJK_SYSTEM_PYTHON)
    foreach(group trajectory_name numbers)
      add_test(NAME e2e_cli_${group}
               COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_cli.py
                       --group ${group}
                       --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                       --e2e-client $<TARGET_FILE:e2e_client>
                       --python-proto ${CMAKE_BINARY_DIR}/python
                       --source-dir ${PROJECT_SOURCE_DIR})
      set_tests_properties(e2e_cli_${group} PROPERTIES TIMEOUT 300 LABELS e2e)
    endforeach()
  endif()
endif()

# e2e_continuous_* (label e2e, tests/e2e/e2e_continuous.py, the e2e.py harness): continuous
# trajectory checks through the wire, gjkctl and the Python client (issue 23).
if(TARGET gjkd AND TARGET gjkctl AND GJK_SYSTEM_PYTHON)
  foreach(group thin_wall demo)
    add_test(NAME e2e_continuous_${group}
             COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_continuous.py
                     --group ${group}
                     --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                     --e2e-client $<TARGET_FILE:e2e_client>
                     --python-proto ${CMAKE_BINARY_DIR}/python
                     --source-dir ${PROJECT_SOURCE_DIR})
    set_tests_properties(e2e_continuous_${group} PROPERTIES TIMEOUT 300 LABELS e2e)
  endforeach()
endif()
