/* test_server_log.c — log lines hold against client text (issue 22, finding 19).
 *
 * What went wrong: names were logged raw, so a name with spaces injected key=value fields
 * ("name=a revision=999 ...") and U+0085 / U+2028 went out as they were (a line break to many
 * log readers). Every client string is now a quoted, escaped token and the line as a whole is
 * escaped once more: a request whose name holds spaces, '=', quotes, a newline, U+0085 and
 * U+2028 gives exactly one line whose fields parse back unambiguously, with the name intact. */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "gjkd_text.h"
#include "log.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* ---------------------------------------------------------------- a strict line parser */

typedef struct field {
    char key[32];
    char value[512];
} field;

/* Appends code point cp to out as UTF-8. */
static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

/* Parses "TIME LEVEL event k=v k=\"q\" ..." (one line, no '\n'): fields separated by exactly one
 * space; a key is [a-z_]+; a value is bare (no space, quote or backslash) or a quoted token with
 * the escapes gjkd_quote writes. Returns the field count, -1 if the line does not parse. */
static int parse_line(const char *line, char *event, size_t event_cap, field *fields, int cap)
{
    const char *p = line;
    for (int word = 0; word < 3; ++word) { /* time, level (padded), event */
        while (*p == ' ')
            p++;
        const char *start = p;
        while (*p != ' ' && *p != '\0')
            p++;
        if (word == 2)
            snprintf(event, event_cap, "%.*s", (int)(p - start), start);
    }
    int n = 0;
    while (*p != '\0') {
        if (*p++ != ' ' || n == cap)
            return -1;
        field *f = &fields[n++];
        size_t k = 0;
        while ((*p >= 'a' && *p <= 'z') || *p == '_')
            if (k + 1 < sizeof f->key)
                f->key[k++] = *p++;
            else
                return -1;
        f->key[k] = '\0';
        if (k == 0 || *p++ != '=')
            return -1;
        size_t v = 0;
        if (*p != '"') {
            while (*p != ' ' && *p != '\0') {
                if (*p == '"' || *p == '\\' || v + 1 >= sizeof f->value)
                    return -1;
                f->value[v++] = *p++;
            }
            f->value[v] = '\0';
            continue;
        }
        p++;
        while (*p != '"') {
            if (*p == '\0' || v + 4 >= sizeof f->value)
                return -1;
            if (*p != '\\') {
                f->value[v++] = *p++;
                continue;
            }
            p++;
            unsigned cp;
            switch (*p) {
            case '"':
            case '\\':
                f->value[v++] = *p++;
                break;
            case 'n':
                f->value[v++] = '\n';
                p++;
                break;
            case 'r':
                f->value[v++] = '\r';
                p++;
                break;
            case 't':
                f->value[v++] = '\t';
                p++;
                break;
            case 'u':
                if (sscanf(p + 1, "%4x", &cp) != 1)
                    return -1;
                v += put_utf8(f->value + v, cp);
                p += 5;
                break;
            default:
                return -1;
            }
        }
        p++;
        f->value[v] = '\0';
    }
    return n;
}

static const char *get(const field *fields, int n, const char *key)
{
    const char *found = NULL;
    for (int i = 0; i < n; ++i) {
        if (strcmp(fields[i].key, key) == 0) {
            assert_null(found); /* every key once */
            found = fields[i].value;
        }
    }
    return found;
}

/* ---------------------------------------------------------------- tests */

static void test_quote(void **state)
{
    (void)state;
    char q[64];
    assert_string_equal(gjkd_quote(q, sizeof q, "plain"), "\"plain\"");
    assert_string_equal(gjkd_quote(q, sizeof q, NULL), "\"\"");
    assert_string_equal(gjkd_quote(q, sizeof q, "a b=\"c\"\\"), "\"a b=\\\"c\\\"\\\\\"");
    assert_string_equal(gjkd_quote(q, sizeof q, "x\ny\x7f"), "\"x\\ny\\u007F\"");
    /* C1 NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR, a stray byte; é stays as it is. */
    assert_string_equal(gjkd_quote(q, sizeof q, "\xc2\x85|\xe2\x80\xa8|\xe2\x80\xa9|\xff|\xc3\xa9"),
                        "\"\\u0085|\\u2028|\\u2029|\\xFF|\xc3\xa9\"");
    /* Cut at a whole escape; the closing quote stays. */
    char small[8];
    assert_string_equal(gjkd_quote(small, sizeof small, "abcd\nef"), "\"abcd\"");
}

/* The log lines written while running f(svc, arg), with stderr redirected to a file. */
static char *capture(void (*f)(gjkd_service *, gjkd_arena *), gjkd_service *svc, gjkd_arena *a)
{
    char path[] = "/tmp/gjkd-test-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    f(svc, a);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    off_t size = lseek(fd, 0, SEEK_END);
    char *text = calloc((size_t)size + 1, 1);
    assert_int_equal(pread(fd, text, (size_t)size, 0), size);
    close(fd);
    unlink(path);
    return text;
}

static const char k_name[] = "box a=1 revision=999 \"q\"\xe2\x80\xa8 end";
static const char k_bad_name[] = "evil\nname=x \xc2\x85 INFO  obstacle_put name=forged";

static void put_named(gjkd_service *svc, gjkd_arena *a)
{
    assert_code(t_call_code(svc, t_put_obstacle(a, t_obstacle(a, k_name, 0.1, 1.0))),
                GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(a, t_obstacle(a, k_bad_name, 0.1, 2.0))),
                GJKD_CODE(INVALID_ARGUMENT));
}

static void test_client_text_in_log_lines(void **state)
{
    (void)state;
    gjkd_log_set_level(GJKD_LOG_INFO);
    gjkd_arena a = {0};
    gjkd_service *svc = t_service(NULL);
    char *text = capture(put_named, svc, &a);
    gjkd_log_set_level(GJKD_LOG_ERROR);

    /* No raw NEL or line separator anywhere; exactly two lines. */
    assert_null(strstr(text, "\xc2\x85"));
    assert_null(strstr(text, "\xe2\x80\xa8"));
    char *second = strchr(text, '\n');
    assert_non_null(second);
    *second++ = '\0';
    char *end = strchr(second, '\n');
    assert_non_null(end);
    *end = '\0';
    assert_string_equal(end + 1, "");

    field fields[16];
    char event[64];
    int n = parse_line(text, event, sizeof event, fields, 16);
    if (n < 0) {
        print_error("does not parse: %s\n", text);
        fail();
    }
    assert_string_equal(event, "obstacle_put");
    assert_int_equal(n, 5); /* rid name id revision replaced: no injected fields */
    assert_string_equal(get(fields, n, "name"), k_name);
    assert_string_equal(get(fields, n, "revision"), "1");
    assert_string_equal(get(fields, n, "rid"), "2");

    n = parse_line(second, event, sizeof event, fields, 16);
    if (n < 0) {
        print_error("does not parse: %s\n", second);
        fail();
    }
    assert_string_equal(event, "request_failed");
    assert_int_equal(n, 4); /* rid command code message */
    assert_string_equal(get(fields, n, "code"), "INVALID_ARGUMENT");
    assert_null(get(fields, n, "name"));
    assert_non_null(strstr(get(fields, n, "message"), "control character"));
    free(text);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

int main(void)
{
    gjkd_log_set_level(GJKD_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_client_text_in_log_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
