# Kinematics benchmark: forward kinematics and point gradients of the Panda and UR5 (see the
# comment at the top of bench_kinematics.c). Never a ctest test.
add_executable(bench_kinematics ${CMAKE_CURRENT_SOURCE_DIR}/bench_kinematics.c)
target_link_libraries(bench_kinematics PRIVATE gjk::core gjk_warnings m)
