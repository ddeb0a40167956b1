# The daemon's tests: codec validation, dispatch and store without sockets, config
# precedence, and ROUTER round trips over loopback TCP / inproc (label e2e).
if(TARGET gjkd_server)
  gjk_add_test(test_server_codec SOURCES test_server_codec.c LIBS gjkd_server LABELS unit TIMEOUT 60)
  gjk_add_test(test_server_store SOURCES test_server_store.c LIBS gjkd_server LABELS unit TIMEOUT 60)
  gjk_add_test(test_server_config SOURCES test_server_config.c LIBS gjkd_server LABELS unit TIMEOUT 30)
  gjk_add_test(test_server_dispatch SOURCES test_server_dispatch.c LIBS gjkd_server LABELS unit TIMEOUT 120)
  gjk_add_test(test_server_transport SOURCES test_server_transport.c LIBS gjkd_server LABELS e2e TIMEOUT 60)
endif()
