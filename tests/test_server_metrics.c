/* test_server_metrics.c — the Prometheus text rendering (server/metrics.c): families with one
 * HELP and one TYPE line before their samples, counters as counted, histogram buckets
 * cumulative with +Inf equal to _count, bounds inclusive, label values escaped; and the same
 * counters fed through the service (every reply counted once, by command and code, pairs
 * computed from the query's waypoints). */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "metrics.h"

#include <stdio.h>

static char *render(gjkd_metrics *m, const gjkd_metrics_figures *f)
{
    gjkd_text_buf buf = {0};
    assert_true(gjkd_metrics_render(m, f, &buf));
    assert_non_null(buf.data);
    assert_int_equal(strlen(buf.data), buf.size);
    return buf.data;
}

/* The value of the sample line that starts with `series` followed by a space; fails if the
 * page has no such line or has it twice. */
static double sample(const char *page, const char *series)
{
    size_t n = strlen(series);
    double value = 0;
    int found = 0;
    for (const char *line = page; *line != '\0';) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        if (strncmp(line, series, n) == 0 && line[n] == ' ') {
            value = strtod(line + n + 1, NULL);
            found++;
        }
        line = end + 1;
    }
    if (found != 1) {
        print_error("%d lines for %s in:\n%s\n", found, series, page);
        fail();
    }
    return value;
}

/* Every line is "# HELP name ...", "# TYPE name type" or "name[{labels}] value"; each family
 * has one HELP then one TYPE line, before its samples, and its samples' names are the
 * family's (histograms: _bucket, _sum, _count). */
static void check_format(const char *page)
{
    char family[128] = "";
    char type[32] = "";
    int families = 0;
    for (const char *line = page; *line != '\0';) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        char text[1024];
        size_t len = (size_t)(end - line);
        assert_true(len > 0 && len < sizeof text);
        memcpy(text, line, len);
        text[len] = '\0';
        if (strncmp(text, "# HELP ", 7) == 0) {
            assert_int_equal(sscanf(text + 7, "%127s", family), 1);
            type[0] = '\0';
            families++;
        } else if (strncmp(text, "# TYPE ", 7) == 0) {
            char name[128];
            assert_int_equal(sscanf(text + 7, "%127s %31s", name, type), 2);
            assert_string_equal(name, family);
            assert_true(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 ||
                        strcmp(type, "histogram") == 0);
        } else {
            assert_true(type[0] != '\0'); /* a sample after its family's TYPE */
            size_t name_len = strcspn(text, "{ ");
            char name[128];
            assert_true(name_len < sizeof name);
            memcpy(name, text, name_len);
            name[name_len] = '\0';
            size_t fn = strlen(family);
            assert_true(strncmp(name, family, fn) == 0);
            const char *suffix = name + fn;
            if (strcmp(type, "histogram") == 0)
                assert_true(strcmp(suffix, "_bucket") == 0 || strcmp(suffix, "_sum") == 0 ||
                            strcmp(suffix, "_count") == 0);
            else
                assert_string_equal(suffix, "");
            if (strcmp(type, "counter") == 0) /* counters end in _total */
                assert_true(fn > 6 && strcmp(family + fn - 6, "_total") == 0);
            char *value_end = NULL;
            const char *value = strrchr(text, ' ') + 1;
            strtod(value, &value_end);
            assert_true(value_end != value && *value_end == '\0');
        }
        line = end + 1;
    }
    assert_true(families >= 20);
}

static void test_render_counts(void **state)
{
    (void)state;
    const char *names[] = {"health", "state_query"};
    gjkd_metrics *m = gjkd_metrics_create(names, 2);
    assert_non_null(m);
    gjkd_metrics_reply(m, 1, GJKD_CODE(OK));
    gjkd_metrics_reply(m, 1, GJKD_CODE(OK));
    gjkd_metrics_reply(m, 1, GJKD_CODE(NOT_FOUND));
    gjkd_metrics_reply(m, -1, GJKD_CODE(MALFORMED));
    gjkd_metrics_reply(m, 7, GJKD_CODE(UNAVAILABLE)); /* out of range: none */
    /* 1 ms exactly falls in le="0.001" (bounds are inclusive); 2 s in le="2.5"; 20 s only in
     * +Inf. */
    gjkd_metrics_handled(m, 1, 1000000, 40);
    gjkd_metrics_handled(m, 1, 2000000000, 2);
    gjkd_metrics_handled(m, 1, 20000000000ull, 0);
    gjkd_metrics_scene_reload(m, true);
    gjkd_metrics_scene_reload(m, false);
    gjkd_metrics_scene_reload(m, false);
    gjkd_metrics_figures f;
    memset(&f, 0, sizeof f);
    f.revision = (1ull << 53) - 1; /* the largest content revision: exact in a double */
    f.queued = 3;
    f.auth_refused = 4;
    f.trajectory_cache_bytes = 123456;
    f.trajectory_cache_hits = 5;
    f.trajectory_cache_misses = 6;
    f.draining = true;
    char *page = render(m, &f);
    check_format(page);
    assert_true(sample(page, "gjkd_requests_total{command=\"state_query\",code=\"OK\"}") == 2);
    assert_true(sample(page, "gjkd_requests_total{command=\"state_query\",code=\"NOT_FOUND\"}") ==
                1);
    /* every command's OK series exists from the start */
    assert_true(sample(page, "gjkd_requests_total{command=\"health\",code=\"OK\"}") == 0);
    assert_true(sample(page, "gjkd_requests_total{command=\"none\",code=\"MALFORMED\"}") == 1);
    assert_true(sample(page, "gjkd_requests_total{command=\"none\",code=\"UNAVAILABLE\"}") == 1);
    assert_null(strstr(page, "command=\"none\",code=\"OK\""));
    const char *q = "gjkd_request_duration_seconds_bucket{command=\"state_query\",le=";
    char series[160];
    snprintf(series, sizeof series, "%s\"0.0005\"}", q);
    assert_true(sample(page, series) == 0);
    snprintf(series, sizeof series, "%s\"0.001\"}", q);
    assert_true(sample(page, series) == 1);
    snprintf(series, sizeof series, "%s\"1\"}", q);
    assert_true(sample(page, series) == 1);
    snprintf(series, sizeof series, "%s\"2.5\"}", q);
    assert_true(sample(page, series) == 2);
    snprintf(series, sizeof series, "%s\"10\"}", q);
    assert_true(sample(page, series) == 2);
    snprintf(series, sizeof series, "%s\"+Inf\"}", q);
    assert_true(sample(page, series) == 3);
    assert_true(sample(page, "gjkd_request_duration_seconds_count{command=\"state_query\"}") == 3);
    assert_true(fabs(sample(page, "gjkd_request_duration_seconds_sum{command=\"state_query\"}") -
                     22.001) < 1e-9);
    assert_true(sample(page, "gjkd_request_duration_seconds_count{command=\"health\"}") == 0);
    assert_true(sample(page, "gjkd_pairs_computed_total") == 42);
    assert_true(sample(page, "gjkd_scene_reloads_total") == 1);
    assert_true(sample(page, "gjkd_scene_reload_failures_total") == 2);
    assert_true(sample(page, "gjkd_scene_revision") == (double)((1ull << 53) - 1));
    assert_non_null(strstr(page, "\ngjkd_scene_revision 9007199254740991\n"));
    assert_true(sample(page, "gjkd_queued_requests") == 3);
    assert_true(sample(page, "gjkd_curve_refusals_total") == 4);
    assert_true(sample(page, "gjkd_trajectory_cache_bytes") == 123456);
    assert_true(sample(page, "gjkd_trajectory_cache_hits_total") == 5);
    assert_true(sample(page, "gjkd_trajectory_cache_misses_total") == 6);
    assert_true(sample(page, "gjkd_draining") == 1);
    free(page);
    gjkd_metrics_destroy(&m);
    assert_null(m);
}

static void test_escape_label(void **state)
{
    (void)state;
    gjkd_text_buf buf = {0};
    gjkd_metrics_escape_label(&buf, "a\"b\\c\nd");
    assert_string_equal(buf.data, "a\\\"b\\\\c\\nd");
    free(buf.data);
    /* A command name that needs escaping comes out escaped in every series. */
    const char *names[] = {"we\"ird\\name\n"};
    gjkd_metrics *m = gjkd_metrics_create(names, 1);
    gjkd_metrics_figures f;
    memset(&f, 0, sizeof f);
    char *page = render(m, &f);
    assert_true(sample(page, "gjkd_requests_total{command=\"we\\\"ird\\\\name\\n\",code=\"OK\"}") ==
                0);
    assert_null(strstr(page, "ird\\name\n\"")); /* never raw */
    free(page);
    gjkd_metrics_destroy(&m);
}

/* Through the service: each reply is counted once under its command and code, refusals the
 * broker makes under "none", a state query's pairs as its waypoint reports them. */
static void test_service_counts(void **state)
{
    (void)state;
    gjkd_service *svc = t_service(NULL);
    gjkd_arena a = {0};
    Gjkd__V1__Robot *robots[] = {t_robot(&a, "arm", 2)};
    Gjkd__V1__Obstacle *obstacles[] = {t_obstacle(&a, "wall", 0.5, 1.0),
                                       t_obstacle(&a, "post", 0.5, -1.0)};
    assert_code(
        t_call_code(svc, t_load_scene(&a, t_scene(&a, robots, 1, obstacles, 2, NULL, 0), false)),
        GJKD_CODE(OK));
    int64_t pairs = 0;
    for (int i = 0; i < 3; ++i) {
        Gjkd__V1__Response *r =
            t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 10.0));
        assert_code(r->status->code, GJKD_CODE(OK));
        pairs += r->state->pairs_checked;
        gjkd__v1__response__free_unpacked(r, NULL);
    }
    assert_true(pairs > 0);
    Gjkd__V1__Request *missing = t_put_obstacle(&a, t_obstacle(&a, "x", 0.5, 3.0));
    missing->precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
    missing->expected_revision = 999;
    assert_code(t_call_code(svc, missing), GJKD_CODE(FAILED_PRECONDITION));
    uint8_t *reply;
    size_t reply_size;
    gjkd_service_reply_error(svc, 0, GJKD_CODE(RESOURCE_EXHAUSTED), "full", &reply, &reply_size);
    free(reply);
    gjkd_metrics_figures f;
    gjkd_service_figures_read(svc, &f);
    assert_int_equal(f.revision, gjkd_service_revision(svc));
    assert_int_equal(f.robots, 1);
    assert_int_equal(f.obstacles, 2);
    char *page = render(gjkd_service_metrics(svc), &f);
    check_format(page);
    assert_true(sample(page, "gjkd_requests_total{command=\"load_scene\",code=\"OK\"}") == 1);
    assert_true(sample(page, "gjkd_requests_total{command=\"state_query\",code=\"OK\"}") == 3);
    assert_true(sample(page, "gjkd_request_duration_seconds_count{command=\"state_query\"}") == 3);
    assert_true(sample(page, "gjkd_requests_total{command=\"put_obstacle\",code="
                             "\"FAILED_PRECONDITION\"}") == 1);
    assert_true(sample(page, "gjkd_requests_total{command=\"none\",code=\"RESOURCE_EXHAUSTED\"}") ==
                1);
    assert_true(sample(page, "gjkd_pairs_computed_total") == (double)pairs);
    assert_true(sample(page, "gjkd_scene_obstacles") == 2);
    free(page);
    gjkd_arena_free(&a);
    gjkd_service_destroy(&svc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_counts),
        cmocka_unit_test(test_escape_label),
        cmocka_unit_test(test_service_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
