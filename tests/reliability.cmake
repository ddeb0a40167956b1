# Load and fault tests of gjkd (issue 7). The harness tests/reliability/reliability.py
# (/usr/bin/python3) starts its own gjkd on a free loopback port per test, bounds every wait,
# reaps every process it started and prints its figures (ctest -V or --output-on-failure):
#   reliability_load     label load:  32 clients x a fixed mix, twice; no reply lost or
#                        mismatched; throughput, p50/p99, VmRSS (round 2 adds < 4 MiB)
#   reliability_crash    label fault: 20 x kill -9 during acknowledged changes (puts, removes,
#                        merged scene loads; seed 7)
#   reliability_disk     label fault: full (tmpfs), read-only (bind mount), not a directory
#   reliability_clients  label fault: vanishing, never-reading and mis-framing clients
#   reliability_hostile_GROUP  label fault: the transport-side attacks of issue 22
#                        (tests/reliability/hostile.py), GROUP one of probes (padded probes),
#                        budget (the memory budget), vanish (disconnected clients), drain,
#                        fds and conncap (idle connections against the fd limit), writers
#                        (writer-fair scene lock), reply (reply amplification),
#                        retry (changes run once under retries),
#                        deadline (per-request deadlines); reliability_hostile_load (label
#                        load): the issue's load test, a good client's latency under attack
# Run one label: ctest --test-dir build -L load -V   (or -L fault).
# The daemon can run under a wrapper: GJKD_WRAPPER="valgrind -q ..." (tests/gjkd_daemon.py).
if(TARGET gjkd_server)
  # Regression: a change's reply carries the revision it made (label unit: no daemon needed).
  gjk_add_test(test_revision_race SOURCES reliability/test_revision_race.c LIBS gjkd_server
               LABELS unit fault TIMEOUT 60)
endif()

if(TARGET gjkd AND TARGET gjkd_proto_py AND TARGET gjkctl)
  find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(GJK_SYSTEM_PYTHON)
    # Under a sanitizer the daemon is several times slower and its allocator holds on to freed
    # memory for a while (ASan's quarantine): looser latency and VmRSS bounds.
    set(GJK_RELIABILITY_BOUNDS)
    if(GJK_SANITIZE OR GJK_SANITIZE_THREAD)
      set(GJK_RELIABILITY_BOUNDS --latency-bound 6 --rss-bound-kib 32768)
    endif()
    foreach(group load crash disk clients)
      add_test(NAME reliability_${group}
               COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/reliability/reliability.py
                       --group ${group} --gjkd $<TARGET_FILE:gjkd>
                       --python-proto ${CMAKE_BINARY_DIR}/python
                       --source-dir ${PROJECT_SOURCE_DIR} ${GJK_RELIABILITY_BOUNDS})
      if(group STREQUAL "load")
        set_tests_properties(reliability_${group} PROPERTIES LABELS load TIMEOUT 120)
      else()
        set_tests_properties(reliability_${group} PROPERTIES LABELS fault TIMEOUT 90)
      endif()
      # ASan's quarantine (256 MiB by default) keeps freed memory resident until it is full, so
      # VmRSS grew with the number of bytes allocated, not with what the daemon holds (the
      # never-reading client's second 2000 requests: +23..+37 MiB, with a 16 MiB quarantine
      # +1..+3 MiB). A small quarantine makes the VmRSS bound measure the daemon.
      if(GJK_SANITIZE)
        set_tests_properties(reliability_${group} PROPERTIES ENVIRONMENT
          "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=16")
      endif()
      if(GJK_SANITIZE_THREAD)
        set_tests_properties(reliability_${group} PROPERTIES ENVIRONMENT
          "TSAN_OPTIONS=halt_on_error=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
      endif()
    endforeach()
    # Under a sanitizer, shadow memory and ASan's quarantine add to VmRSS.
    set(GJK_HOSTILE_BOUNDS)
    if(GJK_SANITIZE OR GJK_SANITIZE_THREAD)
      set(GJK_HOSTILE_BOUNDS --rss-slack-kib 163840 --latency-bound 6)
    endif()
    foreach(group probes budget vanish drain fds conncap writers reply retry deadline load)
      add_test(NAME reliability_hostile_${group}
               COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/reliability/hostile.py
                       --group ${group} --gjkd $<TARGET_FILE:gjkd>
                       --python-proto ${CMAKE_BINARY_DIR}/python
                       --source-dir ${PROJECT_SOURCE_DIR} ${GJK_HOSTILE_BOUNDS}
                       --gjkctl $<TARGET_FILE:gjkctl>)
      if(group STREQUAL "load")
        set_tests_properties(reliability_hostile_${group} PROPERTIES LABELS load TIMEOUT 120)
      else()
        set_tests_properties(reliability_hostile_${group} PROPERTIES LABELS fault TIMEOUT 90)
      endif()
      if(GJK_SANITIZE)
        set_tests_properties(reliability_hostile_${group} PROPERTIES ENVIRONMENT
          "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=16")
      endif()
      if(GJK_SANITIZE_THREAD)
        set_tests_properties(reliability_hostile_${group} PROPERTIES ENVIRONMENT
          "TSAN_OPTIONS=halt_on_error=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
      endif()
    endforeach()
  endif()
endif()
