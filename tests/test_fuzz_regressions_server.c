/* test_fuzz_regressions_server.c — reproducers of what fuzz_json and fuzz_request found
 * in the JSON loader and the daemon (see test_fuzz_regressions.c for the core). The daemon
 * part is compiled when the build has it (GJK_FUZZ_HAVE_SERVER). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "gjkd_json.h"

/* proto/json/gjkd_json.c, gjkd_json_write_scene (fuzz_json). cJSON (1.7.15) prints a
 * number with 15 significant digits whenever they read back within DBL_EPSILON relative,
 * so 0.70710678114835792 is written as 0.707106781148358 and reads back 1 ulp off: the
 * header's parse(write(s)) == s fails for such values (poses drift by an ulp per save).
 * Fix: format doubles with "%.17g" (or a shortest-round-trip printer) into
 * cJSON_CreateRaw nodes instead of cJSON_CreateNumber. */
static void test_json_write_loses_last_bit(void **state)
{
    (void)state;
    const char *doc = "{\"obstacles\": [{\"name\": \"o\", \"pose\": {\"quat_wxyz\": "
                      "[0.70710678114835792, 0, 0.70710678118654757, 0]}, "
                      "\"parts\": [{\"type\": \"point\"}]}]}";
    Gjkd__V1__Scene *scene = NULL, *again = NULL;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_scene(doc, strlen(doc), &scene, &err));
    char *text = gjkd_json_write_scene(scene);
    assert_non_null(text);
    assert_true(gjkd_json_parse_scene(text, strlen(text), &again, &err));
    double w0 = scene->obstacles[0]->pose->orientation->w;
    double w1 = again->obstacles[0]->pose->orientation->w;
    if (w0 != w1) {
        print_error("w %.17g written as %s\n", w0, text);
    }
    free(text);
    gjkd_json_scene_free(&scene);
    gjkd_json_scene_free(&again);
    assert_true(w0 == w1);
}

/* proto/json/gjkd_json.c (fuzz_json). Names are copied without a UTF-8 check, so a name
 * with the bytes FE FF parses, and goes on the wire in a proto3 `string` field, which must
 * be UTF-8: the Python client (python3-protobuf) refuses to decode any reply that echoes
 * it ("String field ... contains invalid UTF-8 data"). The daemon (protobuf-c does not
 * check) accepts such names on the wire as well.
 * Fix: refuse names (and every string) that are not valid UTF-8, in gjkd_json and in
 * gjkd_check_name. */
static void test_json_accepts_invalid_utf8(void **state)
{
    (void)state;
    const char *doc =
        "{\"obstacles\": [{\"name\": \"\xfe\xff\", \"parts\": [{\"type\": \"point\"}]}]}";
    Gjkd__V1__Scene *scene = NULL;
    gjkd_json_error err;
    bool ok = gjkd_json_parse_scene(doc, strlen(doc), &scene, &err);
    gjkd_json_scene_free(&scene);
    assert_false(ok);
}

#ifdef GJK_FUZZ_HAVE_SERVER
#include "dispatch.h"

/* server/dispatch.c (fuzz_request). Names are checked for length only, so they may hold
 * control characters, and messages quote them as they are: set_allowed_pairs naming the
 * obstacle "ta\n" is answered NOT_FOUND "pairs[0].a: no obstacle named 'ta\n'", a two-line
 * Status.message (documented as one line) and a two-line log entry.
 * Fix: quote names through an escaping helper in gjkd_fail's callers (or in gjkd_fail for
 * %s arguments), or refuse names with control characters in gjkd_check_name. */
static void test_daemon_message_quotes_raw_name(void **state)
{
    (void)state;
    gjkd_service_def def;
    memset(&def, 0, sizeof def);
    def.limits.max_message_bytes = 1u << 20;
    def.limits.max_points_per_part = 64;
    def.limits.max_parts_per_body = 4;
    def.limits.max_links_per_robot = 4;
    def.limits.max_robots = 2;
    def.limits.max_obstacles = 4;
    def.limits.max_waypoints = 4;
    def.limits.max_pairs_returned = 4;
    def.limits.max_name_length = 64;
    def.limits.max_allowed_pairs = 64;
    def.limits.max_parts = 1024;
    def.query_threads = 1;
    def.worker_threads = 1;
    gjkd_error error;
    gjkd_service *svc = gjkd_service_create(&def, &error);
    assert_non_null(svc);

    Gjkd__V1__BodyRef a = GJKD__V1__BODY_REF__INIT, b = GJKD__V1__BODY_REF__INIT;
    a.obstacle = "ta\n"; /* an empty service: the first name is looked up first */
    b.obstacle = "floor";
    Gjkd__V1__AllowedPair pair = GJKD__V1__ALLOWED_PAIR__INIT;
    pair.a = &a;
    pair.b = &b;
    Gjkd__V1__AllowedPair *pairs[1] = {&pair};
    Gjkd__V1__SetAllowedPairsRequest set = GJKD__V1__SET_ALLOWED_PAIRS_REQUEST__INIT;
    set.n_pairs = 1;
    set.pairs = pairs;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.request_id = 7;
    req.body_case = GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS;
    req.set_allowed_pairs = &set;
    uint8_t buf[256];
    size_t n = gjkd__v1__request__pack(&req, buf);

    uint8_t *reply = NULL;
    size_t reply_size = 0;
    gjkd_service_handle(svc, buf, n, &reply, &reply_size);
    Gjkd__V1__Response *resp = gjkd__v1__response__unpack(NULL, reply_size, reply);
    free(reply);
    gjkd_service_destroy(&svc);
    assert_non_null(resp);
    assert_non_null(resp->status);
    bool refused = resp->status->code != GJKD__V1__STATUS_CODE__STATUS_CODE_OK;
    bool one_line = strchr(resp->status->message, '\n') == NULL;
    if (!one_line) {
        print_error("message \"%s\"\n", resp->status->message);
    }
    gjkd__v1__response__free_unpacked(resp, NULL);
    assert_true(refused);
    assert_true(one_line);
}
#endif

/* proto/json/gjkd_json.c (fuzz_json). Error messages quote the document's own strings as
 * they are ("unknown key \"%s\"", "duplicate key", the format, the shape type, body
 * names), so a key holding an escaped newline gives a two-line message, against the
 * header's "one line" (the daemon and gjkctl print these messages in logs and replies).
 * Fix: quote user text through a helper that escapes control characters, quotes and
 * backslashes (\n, \t, \", \\, \u00XX) and truncates long strings. */
static void test_json_error_quotes_raw_text(void **state)
{
    (void)state;
    static const char *docs[3] = {
        "{\"robots\": [], \"p\\nq\": 1}",
        "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"bo\\nx\"}]}]}",
        "{\"format\": \"gjkd-scene/1\\r\\nX\"}",
    };
    for (int i = 0; i < 3; ++i) {
        Gjkd__V1__Scene *scene = NULL;
        gjkd_json_error err;
        assert_false(gjkd_json_parse_scene(docs[i], strlen(docs[i]), &scene, &err));
        assert_null(scene);
        if (strchr(err.message, '\n') != NULL || strchr(err.message, '\r') != NULL) {
            print_error("document %d: message \"%s\"\n", i, err.message);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_error_quotes_raw_text),
        cmocka_unit_test(test_json_write_loses_last_bit),
        cmocka_unit_test(test_json_accepts_invalid_utf8),
#ifdef GJK_FUZZ_HAVE_SERVER
        cmocka_unit_test(test_daemon_message_quotes_raw_name),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
