# The step trace of GJK and EPA (core/src/trace.c, gjk/trace.h): what a viewer reads back.
gjk_add_test(test_trace SOURCES test_trace.c LABELS unit TIMEOUT 60)
