# The command-line programs (issue 19). e2e_cli_* (label e2e, tests/e2e/e2e_cli.py, the e2e.py
# harness: its own gjkd on a free loopback port per group):
#   trajectory_name  gjkctl trajectory FILE --name N on a FILE without "name"
#   numbers          gjkctl --json prints the reply's doubles bit for bit (against the Python
#                    client), scene --export reads back to the stored scene exactly
# (e2e_client is tests/e2e.cmake's, defined with gjkd and gjkctl: generator expressions see it.)
if(TARGET gjkd AND TARGET gjkctl)
  find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
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
