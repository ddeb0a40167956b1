# URDF/SRDF + mesh import (clients/robot, gjkd_urdf.h), label unit: the vendored Panda and UR5
# (data/robots: counts, names, limits, SRDF pairs, hulls inside each STL's bounding box, FK of
# the imported joints against an FK written in the test), and generated files for every
# refusal, COLLADA units and up axis, OBJ objects as parts, ASCII vs binary STL, precision;
# the JSON scene codec carries the imported joints exactly (written and read back).
if(TARGET gjkd_urdf AND DEFINED GJK_ROBOTS_DIR)
  gjk_add_test(test_robot_import SOURCES test_robot_import.c LIBS gjkd::urdf gjkd::json m LABELS unit
               TIMEOUT 120 ARGS ${GJK_ROBOTS_DIR})
endif()

# e2e_urdf_* (label e2e, tests/e2e/e2e_urdf.py, the e2e.py harness):
#   cli     gjkctl load-urdf (--dry-run, --json, into a daemon) and urdf-to-proto, bad input
#   python  Client.load_urdf / urdf_to_robot through gjkctl urdf-to-proto (one C import)
# (e2e_client is tests/e2e.cmake's; generator expressions see it.)
find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET gjkd AND TARGET gjkctl AND GJK_SYSTEM_PYTHON)
  foreach(group cli python)
    add_test(NAME e2e_urdf_${group}
             COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_urdf.py
                     --group ${group}
                     --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                     --e2e-client $<TARGET_FILE:e2e_client>
                     --python-proto ${CMAKE_BINARY_DIR}/python
                     --source-dir ${PROJECT_SOURCE_DIR})
    set_tests_properties(e2e_urdf_${group} PROPERTIES TIMEOUT 300 LABELS e2e)
  endforeach()
endif()
