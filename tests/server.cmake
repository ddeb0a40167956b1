# The daemon's tests: codec validation, dispatch and store without sockets, config
# precedence, and ROUTER round trips over loopback TCP / inproc (label e2e).
if(TARGET gjkd_server)
  gjk_add_test(test_server_codec SOURCES test_server_codec.c LIBS gjkd_server LABELS unit TIMEOUT 60)
  gjk_add_test(test_server_store SOURCES test_server_store.c LIBS gjkd_server LABELS unit TIMEOUT 60)
  # fsync failures are injected: the store's fsync calls go to the test's __wrap_fsync.
  target_link_options(test_server_store PRIVATE -Wl,--wrap=fsync)
  gjk_add_test(test_server_config SOURCES test_server_config.c LIBS gjkd_server LABELS unit TIMEOUT 30)
  gjk_add_test(test_server_dispatch SOURCES test_server_dispatch.c LIBS gjkd_server LABELS unit TIMEOUT 120)
  gjk_add_test(test_server_kinematics SOURCES test_server_kinematics.c LIBS gjkd_server LABELS unit TIMEOUT 60)
  gjk_add_test(test_server_transport SOURCES test_server_transport.c LIBS gjkd_server LABELS e2e TIMEOUT 60)
  # CURVE key files, allow-list, exposure rule; ZAP refusals over loopback TCP.
  gjk_add_test(test_server_auth SOURCES test_server_auth.c LIBS gjkd_server LABELS unit TIMEOUT 60)
  # Client text in log lines: quoted, escaped, one line (issue 22, finding 19).
  gjk_add_test(test_server_log SOURCES test_server_log.c LIBS gjkd_server LABELS unit TIMEOUT 30)
  # Change tokens are per caller key (issue 22, finding 11): another key's token is not yours.
  gjk_add_test(test_server_tokens SOURCES test_server_tokens.c LIBS gjkd_server LABELS unit
               TIMEOUT 60)
  # The scene lock is writer-fair (issue 22, finding 7).
  gjk_add_test(test_server_rwlock SOURCES test_server_rwlock.c LIBS gjkd_server LABELS unit
               TIMEOUT 30)
  gjk_add_test(test_server_wire SOURCES test_server_wire.c LIBS gjkd_server LABELS unit TIMEOUT 60)
  # Prometheus text rendering and the counters fed by the service (issue 25).
  gjk_add_test(test_server_metrics SOURCES test_server_metrics.c LIBS gjkd_server LABELS unit
               TIMEOUT 30)
  # The HTTP endpoint over loopback: probes' status codes, /metrics, addresses (issue 25).
  gjk_add_test(test_server_http SOURCES test_server_http.c LIBS gjkd_server LABELS unit
               TIMEOUT 30)
  if(TARGET gjkd_client)
    gjk_add_test(test_client_wire SOURCES test_client_wire.c LIBS gjkd_server gjkd::client LABELS e2e
                 TIMEOUT 60)
    gjk_add_test(test_client_kinematics SOURCES test_client_kinematics.c LIBS gjkd_server
                 gjkd::client LABELS e2e TIMEOUT 60)
    # An ellipsoid scene document through the client and back, each pair against the core.
    if(TARGET gjkd_json)
      gjk_add_test(test_client_ellipsoid SOURCES test_client_ellipsoid.c LIBS gjkd_server
                   gjkd::client gjkd::json LABELS e2e TIMEOUT 60)
    endif()
    # Pair columns in every mode equal the full form, gradients included; bad columns refused.
    gjk_add_test(test_client_columns SOURCES test_client_columns.c LIBS gjkd_server gjkd::client
                 LABELS e2e TIMEOUT 60)
  endif()
endif()
# Under -DGJK_SANITIZE_THREAD=ON, reports from inside libzmq (not built with TSan) are
# suppressed; see tsan.supp.
if(TARGET gjkd_server AND GJK_SANITIZE_THREAD)
  foreach(t test_server_dispatch test_server_transport test_server_auth test_server_tokens)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT
      "TSAN_OPTIONS=halt_on_error=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
  endforeach()
endif()
