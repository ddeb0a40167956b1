# The vendored real robot descriptions (data/robots: Panda, UR5) through the whole path, label
# e2e (tests/e2e/e2e_robots.py, the e2e.py harness; an FK of its own read from the URDF):
#   equivalence      URDF-loaded Panda (gjkctl load-urdf + SRDF) vs the same geometry as a
#                    link-pose robot (urdf-to-json without joints, link poses from the test's
#                    FK): every part pair of query --all, distances to 1e-12 m
#   srdf             Panda and UR5 over random configurations: SRDF-disabled and adjacent self
#                    pairs never reported, every other self pair always
#   gradients_panda  d(distance)/dq against central finite differences through the daemon
#   gradients_ur5    the same for the UR5
#   demo             examples/demo's Panda files are make_demo.py's; scripts/demo's Panda steps work
#   optimizer        the Python optimizer example in joint space improves the demo clearance
# (e2e_client is tests/e2e.cmake's; generator expressions see it.)
find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET gjkd AND TARGET gjkctl AND GJK_SYSTEM_PYTHON)
  foreach(group equivalence srdf gradients_panda gradients_ur5 demo optimizer)
    add_test(NAME e2e_robots_${group}
             COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_robots.py
                     --group ${group}
                     --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                     --e2e-client $<TARGET_FILE:e2e_client>
                     --python-proto ${CMAKE_BINARY_DIR}/python
                     --source-dir ${PROJECT_SOURCE_DIR})
    set_tests_properties(e2e_robots_${group} PROPERTIES TIMEOUT 300 LABELS e2e)
  endforeach()
endif()
