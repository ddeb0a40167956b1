# The daemon's tests: codec validation, dispatch and store without sockets, config
# precedence, and one ROUTER round trip over inproc/loopback.
if(TARGET gjkd_server)
  gjk_add_test(test_server_codec SOURCES test_server_codec.c LIBS gjkd_server LABELS unit TIMEOUT 60)
endif()
