# URDF/SRDF + mesh import (clients/robot, gjkd_urdf.h), label unit: the vendored Panda and UR5
# (data/robots: counts, names, limits, SRDF pairs, hulls inside each STL's bounding box, FK of
# the imported joints against an FK written in the test), and generated files for every
# refusal, COLLADA units and up axis, OBJ objects as parts, ASCII vs binary STL, precision.
if(TARGET gjkd_urdf AND DEFINED GJK_ROBOTS_DIR)
  gjk_add_test(test_robot_import SOURCES test_robot_import.c LIBS gjkd::urdf m LABELS unit
               TIMEOUT 120 ARGS ${GJK_ROBOTS_DIR})
endif()
