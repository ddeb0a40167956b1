/* test_fuzz_regressions_server.c — reproducers of what fuzz_json and fuzz_request found
 * in the JSON loader and the daemon (see test_fuzz_regressions.c for the core). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "gjkd_json.h"

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
