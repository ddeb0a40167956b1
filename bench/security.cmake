# bench_curve: the demo trajectory in-process, over loopback plain and over loopback CURVE
# (two daemons, interleaved medians), plus health round trips and handshakes. Built with
# -DGJK_BUILD_BENCH=ON; run it by hand: build/bench/bench_curve [--repeat 200]
if(TARGET gjkd AND TARGET gjkd_client AND TARGET gjkd_server)
  add_executable(bench_curve bench_curve.c)
  target_link_libraries(bench_curve PRIVATE bench_wire gjk_warnings)
  target_compile_definitions(bench_curve PRIVATE GJKD_PATH="$<TARGET_FILE:gjkd>"
                             DEMO_DIR="${PROJECT_SOURCE_DIR}/examples/demo")
  add_dependencies(bench_curve gjkd)
endif()
