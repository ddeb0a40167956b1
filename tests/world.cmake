# World layer (core/src/world*.c, core/src/broadphase.c).
gjk_add_test(test_world SOURCES test_world.c LABELS unit TIMEOUT 60)
gjk_add_test(test_world_broadphase SOURCES test_world_broadphase.c LABELS unit TIMEOUT 60)
target_include_directories(test_world_broadphase PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
gjk_add_test(test_world_random SOURCES test_world_random.c LABELS property TIMEOUT 300)
gjk_add_test(test_world_kinematics SOURCES test_world_kinematics.c LABELS unit TIMEOUT 120)
