/* test_server_config.c — defaults, validation and precedence: defaults < file < environment
 * (GJKD_<OPTION>) < command line. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"

static char g_file[64];

static void write_file(const char *text)
{
    snprintf(g_file, sizeof g_file, "/tmp/gjkd-test-config-XXXXXX");
    int fd = mkstemp(g_file);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static gjkd_config_result load(gjkd_config *c, char *err, int argc, char **argv)
{
    FILE *sink = fopen("/dev/null", "w");
    gjkd_config_result r = gjkd_config_load(c, argc, argv, sink, err, 256);
    fclose(sink);
    return r;
}

static void test_defaults(void **state)
{
    (void)state;
    gjkd_config c;
    char err[256];
    char *argv[] = {"gjkd"};
    assert_int_equal(load(&c, err, 1, argv), GJKD_CONFIG_OK);
    assert_string_equal(c.endpoint, "tcp://127.0.0.1:7471");
    assert_string_equal(c.state_dir, "");
    assert_int_equal(c.threads, 2);
    assert_int_equal(c.log_level, GJKD_LOG_INFO);
    assert_false(c.demo);
    assert_int_equal(c.limits.max_message_bytes, 16777216);
    assert_int_equal(c.limits.max_points_per_part, 10000);
    assert_false(c.insecure);
    assert_string_equal(c.curve_secret_key, "");
    assert_string_equal(c.curve_allow, "");
    assert_string_equal(c.scene_file, "");
    /* The broker's memory budget and the handshake timeout (issue 22). */
    assert_int_equal(c.limits.max_queued_bytes, 64u << 20);
    assert_int_equal(c.limits.max_held_bytes, 256u << 20);
    assert_int_equal(c.limits.max_queued_total, 16384);
    assert_true(c.handshake_seconds == 5.0);
    /* The reply's bounds (issue 22, finding 14). */
    assert_int_equal(c.limits.max_reply_pairs, 100000);
    assert_int_equal(c.limits.max_reply_bytes, 64u << 20);
    /* Change tokens (finding 11). */
    assert_int_equal(c.limits.change_tokens, 4096);
    assert_true(c.limits.change_token_seconds == 300.0);
}

static void test_precedence(void **state)
{
    (void)state;
    write_file("# comment\nthreads = 3\nlog_level = debug\n[gjkd]\nmax-waypoints = 77\n"
               "endpoint = ipc:///tmp/from-file\n");
    gjkd_config c;
    char err[256];
    char *argv[] = {"gjkd", "--threads", "5", "--config", g_file, "--demo", "--max-pairs=9"};
    assert_int_equal(load(&c, err, 7, argv), GJKD_CONFIG_OK);
    assert_int_equal(c.threads, 5);                /* command line beats the file */
    assert_int_equal(c.log_level, GJKD_LOG_DEBUG); /* file beats the default */
    assert_int_equal(c.limits.max_waypoints, 77);  /* [gjkd] section */
    assert_string_equal(c.endpoint, "ipc:///tmp/from-file");
    assert_true(c.demo);                                   /* a bare flag */
    assert_int_equal(c.limits.max_pairs_returned, 9);      /* --name=value */
    assert_int_equal(c.limits.max_points_per_part, 10000); /* untouched default */
    unlink(g_file);
}

static void expect_error(int argc, char **argv, const char *needle)
{
    gjkd_config c;
    char err[256] = "";
    assert_int_equal(load(&c, err, argc, argv), GJKD_CONFIG_ERROR);
    if (strstr(err, needle) == NULL) {
        print_error("message '%s' does not say '%s'\n", err, needle);
        fail();
    }
}

static void test_bad_values(void **state)
{
    (void)state;
    char *a1[] = {"gjkd", "--threads", "0"};
    expect_error(3, a1, "outside");
    char *a2[] = {"gjkd", "--threads", "two"};
    expect_error(3, a2, "expected a number");
    char *a3[] = {"gjkd", "--no-such-option", "1"};
    expect_error(3, a3, "unknown option");
    char *a4[] = {"gjkd", "--log-level", "loud"};
    expect_error(3, a4, "debug, info");
    char *a5[] = {"gjkd", "--max-waypoints", "1.5"};
    expect_error(3, a5, "integer");
    char *a6[] = {"gjkd", "--endpoint"};
    expect_error(2, a6, "needs a value");
    char *a7[] = {"gjkd", "--demo=maybe"};
    expect_error(2, a7, "true or false");
    char *a8[] = {"gjkd", "stray"};
    expect_error(2, a8, "unexpected argument");
    char *a9[] = {"gjkd", "--config", "/nonexistent/gjkd.ini"};
    expect_error(3, a9, "cannot open");
    write_file("threads = 3\nbogus = 1\n");
    char *a10[] = {"gjkd", "--config", g_file};
    expect_error(3, a10, ":2: unknown option 'bogus'");
    unlink(g_file);
    write_file("[other]\nthreads = 3\n");
    expect_error(3, a10, "unknown section");
    unlink(g_file);
}

static void test_help(void **state)
{
    (void)state;
    gjkd_config c;
    char err[256];
    char *argv[] = {"gjkd", "--help"};
    assert_int_equal(load(&c, err, 2, argv), GJKD_CONFIG_EXIT);
}

static void clear_environment(void)
{
    static const char *const names[] = {
        "GJKD_CONFIG",   "GJKD_THREADS",     "GJKD_MAX_PAIRS",        "GJKD_STATE_DIR",
        "GJKD_ENDPOINT", "GJKD_INSECURE",    "GJKD_MAX_WAYPOINTS",    "GJKD_LOG_LEVEL",
        "GJKD_SCENE",    "GJKD_CURVE_ALLOW", "GJKD_CURVE_SECRET_KEY", "GJKD_DRAIN_SECONDS"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        unsetenv(names[i]);
}

/* defaults < file < environment < command line, each through the same setter. */
static void test_environment(void **state)
{
    (void)state;
    clear_environment();
    write_file("threads = 3\nlog_level = debug\nmax-pairs = 5\nendpoint = ipc:///tmp/file\n");
    setenv("GJKD_THREADS", "4", 1);
    setenv("GJKD_MAX_PAIRS", "11", 1);
    setenv("GJKD_STATE_DIR", "/tmp/gjkd-env-state", 1);
    setenv("GJKD_ENDPOINT", "tcp://127.0.0.1:9999", 1);
    setenv("GJKD_INSECURE", "yes", 1);
    setenv("GJKD_CURVE_SECRET_KEY", "/etc/gjkd/server.key", 1);
    setenv("GJKD_SCENE", "/etc/gjkd/scene.json", 1);
    gjkd_config c;
    char err[256];
    char *argv[] = {"gjkd", "--config", g_file, "--threads", "6"};
    assert_int_equal(load(&c, err, 5, argv), GJKD_CONFIG_OK);
    assert_int_equal(c.threads, 6);                    /* command line beats environment */
    assert_int_equal(c.limits.max_pairs_returned, 11); /* environment beats file */
    assert_string_equal(c.endpoint, "tcp://127.0.0.1:9999");
    assert_int_equal(c.log_level, GJKD_LOG_DEBUG); /* file beats default */
    assert_string_equal(c.state_dir, "/tmp/gjkd-env-state");
    assert_true(c.insecure);
    assert_string_equal(c.curve_secret_key, "/etc/gjkd/server.key");
    assert_string_equal(c.scene_file, "/etc/gjkd/scene.json");
    assert_int_equal(c.limits.max_waypoints, 10000); /* default untouched */

    /* GJKD_CONFIG names the file when the command line does not. */
    char *argv2[] = {"gjkd"};
    setenv("GJKD_CONFIG", g_file, 1);
    assert_int_equal(load(&c, err, 1, argv2), GJKD_CONFIG_OK);
    assert_int_equal(c.threads, 4); /* environment beats file */
    assert_int_equal(c.log_level, GJKD_LOG_DEBUG);
    assert_string_equal(c.config_file, g_file);
    /* ... and --config beats GJKD_CONFIG. */
    char *argv3[] = {"gjkd", "--config", "/nonexistent/other.ini"};
    assert_int_equal(load(&c, err, 3, argv3), GJKD_CONFIG_ERROR);
    if (strstr(err, "/nonexistent/other.ini") == NULL) {
        print_error("message '%s' does not name the --config file\n", err);
        fail();
    }
    clear_environment();
    unlink(g_file);
}

static void test_environment_errors(void **state)
{
    (void)state;
    clear_environment();
    char *argv[] = {"gjkd"};
    setenv("GJKD_MAX_WAYPOINTS", "1.5", 1);
    expect_error(1, argv, "environment GJKD_MAX_WAYPOINTS: max-waypoints: expected an integer");
    clear_environment();
    setenv("GJKD_THREADS", "0", 1);
    expect_error(1, argv, "environment GJKD_THREADS: threads: 0 is outside");
    clear_environment();
    setenv("GJKD_INSECURE", "maybe", 1);
    expect_error(1, argv, "GJKD_INSECURE: insecure: expected true or false");
    clear_environment();
    setenv("GJKD_LOG_LEVEL", "loud", 1);
    expect_error(1, argv, "GJKD_LOG_LEVEL");
    clear_environment();
    /* The command line does not rescue a bad environment value: it is reported. */
    setenv("GJKD_THREADS", "zero", 1);
    char *argv2[] = {"gjkd", "--threads", "2"};
    expect_error(3, argv2, "GJKD_THREADS");
    clear_environment();
    setenv("GJKD_CONFIG", "/nonexistent/env.ini", 1);
    expect_error(1, argv, "cannot open config file '/nonexistent/env.ini'");
    clear_environment();
}

/* The tests expect no GJKD_* variable from the caller's environment. */
static int group_setup(void **state)
{
    (void)state;
    clear_environment();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),    cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_bad_values),  cmocka_unit_test(test_help),
        cmocka_unit_test(test_environment), cmocka_unit_test(test_environment_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
