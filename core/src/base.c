/* base.c — status table strings and the assertion hook. */
#include "gjk/base.h"

#include <stdio.h>
#include <stdlib.h>

const char *gjk_status_name(gjk_status status)
{
    switch (status) {
#define GJK_X_NAME(name, value, msg)                                                               \
    case GJK_STATUS_##name:                                                                        \
        return #name;
        GJK_STATUS_TABLE(GJK_X_NAME)
#undef GJK_X_NAME
    default:
        return "UNKNOWN";
    }
}

const char *gjk_status_message(gjk_status status)
{
    switch (status) {
#define GJK_X_MSG(name, value, msg)                                                                \
    case GJK_STATUS_##name:                                                                        \
        return msg;
        GJK_STATUS_TABLE(GJK_X_MSG)
#undef GJK_X_MSG
    default:
        return "unknown status";
    }
}

/* The one piece of process-wide state: set once at start-up by the program, never by the
 * library. Default: report and abort. */
static gjk_assert_fn *assert_handler = NULL;

void gjk_set_assert_handler(gjk_assert_fn *handler) { assert_handler = handler; }

void gjk_assert_failed(const char *condition, const char *file, int line)
{
    if (assert_handler) {
        assert_handler(condition, file, line);
        return;
    }
    fprintf(stderr, "gjk: assertion failed: %s (%s:%d)\n", condition, file, line);
    abort();
}
