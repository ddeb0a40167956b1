# Continuous segment checks (core/src/continuous.c, core/src/world_continuous.c).
gjk_add_test(test_continuous SOURCES test_continuous.c LABELS unit TIMEOUT 120)
gjk_add_test(test_world_continuous SOURCES test_world_continuous.c LABELS unit TIMEOUT 300)
if(TARGET gjkd_server)
  gjk_add_test(test_server_continuous SOURCES test_server_continuous.c LIBS gjkd_server
               LABELS unit TIMEOUT 60)
endif()
