# bench_e2e: gjkd end to end over loopback against the same world query in-process, and state
# queries per second from 1, 4 and 16 clients. Built with -DGJK_BUILD_BENCH=ON; run it by hand:
#   build/bench/bench_e2e [--repeat 200] [--seconds 2] [--threads 2]
if(TARGET gjkd AND TARGET gjkd_client AND TARGET gjkd_server)
  # What bench_e2e and bench_curve share (bench_wire.h).
  add_library(bench_wire STATIC bench_wire.c bench_skeleton.c)
  target_link_libraries(bench_wire PUBLIC gjkd_server gjkd::client gjkd::json m PRIVATE gjk_warnings)
  add_executable(bench_e2e bench_e2e.c)
  target_link_libraries(bench_e2e PRIVATE bench_wire gjk_warnings)
  target_compile_definitions(bench_e2e PRIVATE GJKD_PATH="$<TARGET_FILE:gjkd>"
                             DEMO_DIR="${PROJECT_SOURCE_DIR}/examples/demo")
  add_dependencies(bench_e2e gjkd)
endif()
