# End-to-end tests of gjkd and its clients (label e2e), and the unit test of the JSON codec.
# The harness tests/e2e/e2e.py (/usr/bin/python3) starts its own gjkd on a free loopback port
# for each group, bounds every wait, and reaps every process it started. Groups:
#   requests     every request type from the C client, gjkctl and Python; pose stream
#   bad_input    malformed, truncated, mis-framed, NaN/Inf, unknown names, wrong counts,
#                oversized, too many points, revision mismatch: each its status, scene intact
#   persistence  kill -9 after acknowledged changes, restart, all present; corrupt state refused
#   concurrency  several clients at once, replies never mixed up
#   shutdown     SIGTERM with requests in flight: all answered, exit 0
#   wire         the lean encoding from Python (packed poses, compact replies) against the
#                first one, and packed faults refused with their own messages
#   probes       health and stats answered while every worker is busy; beyond --max-queued
#                a request is refused at once (RESOURCE_EXHAUSTED)
#   load         a scene document as one change (gjkctl load [--merge], Python load_scene):
#                refused whole (missing body in its allowed pairs, a bad body in the middle, a
#                failing disk) with the scene, revision and snapshot as before; one revision
#                step; kill -9 right after an acknowledged load restarts with it
#   ellipsoid    an ellipsoid obstacle from Python: distances of a ball around it against
#                Eberly's point distance, gjkctl's export and its reload, bad radii refused
if(TARGET gjkd_json)
  gjk_add_test(test_json SOURCES e2e/test_json.c LIBS gjkd::json LABELS unit TIMEOUT 60
               ARGS ${PROJECT_SOURCE_DIR}/examples/demo)
endif()

if(TARGET gjkd AND TARGET gjkctl)
  # The C client's part of the e2e run: not a test by itself (it needs the daemon).
  add_executable(e2e_client e2e/e2e_client.c)
  target_link_libraries(e2e_client PRIVATE gjkd::client gjkd::json PkgConfig::CMOCKA gjk_warnings m)

  find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(GJK_SYSTEM_PYTHON)
    foreach(group requests bad_input persistence concurrency shutdown wire probes load
                  ellipsoid)
      add_test(NAME e2e_${group}
               COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e.py
                       --group ${group}
                       --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                       --e2e-client $<TARGET_FILE:e2e_client>
                       --python-proto ${CMAKE_BINARY_DIR}/python
                       --source-dir ${PROJECT_SOURCE_DIR})
      # 600 s: under scripts/test's valgrind step the daemon and every gjkctl and
      # e2e_client run under memcheck (e2e_requests then takes ~4 min; ~20 s without).
      set_tests_properties(e2e_${group} PROPERTIES TIMEOUT 600 LABELS e2e)
    endforeach()
    # Robots with joints (tests/e2e/e2e_kinematics.py): joint positions, gradients against
    # finite differences, joint-space trajectories, gjkctl joints/--gradients, persistence.
    add_test(NAME e2e_kinematics
             COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_kinematics.py
                     --group kinematics
                     --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                     --e2e-client $<TARGET_FILE:e2e_client>
                     --python-proto ${CMAKE_BINARY_DIR}/python
                     --source-dir ${PROJECT_SOURCE_DIR})
    set_tests_properties(e2e_kinematics PROPERTIES TIMEOUT 300 LABELS e2e)
    # Authentication and start-up configuration (tests/e2e/e2e_security.py): curve,
    # curve_tokens (change tokens per client key), curve_refusals (also labelled fault), config
    # (GJKD_* environment, --scene).
    foreach(group curve curve_tokens curve_refusals config)
      add_test(NAME e2e_${group}
               COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_security.py
                       --group ${group}
                       --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                       --e2e-client $<TARGET_FILE:e2e_client>
                       --python-proto ${CMAKE_BINARY_DIR}/python
                       --source-dir ${PROJECT_SOURCE_DIR})
      set_tests_properties(e2e_${group} PROPERTIES TIMEOUT 180 LABELS e2e)
    endforeach()
    set_tests_properties(e2e_curve_refusals PROPERTIES LABELS "e2e;fault")
    # The HTTP endpoint and the followed scene file (tests/e2e/e2e_http.py, issue 25):
    # metrics (parsed by prometheus_client, counters against the requests made),
    # http_probes (healthz, readyz through a scene load and a drain), scene_follow (reloads,
    # ConfigMap swaps, content revisions, refused files).
    foreach(group metrics http_probes scene_follow)
      add_test(NAME e2e_${group}
               COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_http.py
                       --group ${group}
                       --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                       --e2e-client $<TARGET_FILE:e2e_client>
                       --python-proto ${CMAKE_BINARY_DIR}/python
                       --source-dir ${PROJECT_SOURCE_DIR})
      set_tests_properties(e2e_${group} PROPERTIES TIMEOUT 300 LABELS e2e)
    endforeach()
    # Under TSan the daemon and the C clients report what libzmq and libsodium do
    # uninstrumented as races: tsan.supp and tsan-curve.supp suppress those, and only those.
    if(GJK_SANITIZE_THREAD)
      foreach(group requests bad_input persistence concurrency shutdown wire probes load config
                    metrics http_probes scene_follow)
        set_tests_properties(e2e_${group} PROPERTIES ENVIRONMENT
          "TSAN_OPTIONS=halt_on_error=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
      endforeach()
      foreach(group curve curve_tokens curve_refusals)
        set_tests_properties(e2e_${group} PROPERTIES ENVIRONMENT
          "TSAN_OPTIONS=halt_on_error=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan-curve.supp")
      endforeach()
    endif()
  endif()
endif()
