/* test_server_http.c — the HTTP endpoint (server/http.c) over loopback: /healthz always 200,
 * /readyz 503 until the request socket is bound and a scene is loaded and again while
 * draining, /metrics in the text format's content type, 404 and 405 (with Allow) for the
 * rest, HEAD without a body; the HOST:PORT forms accepted and refused, and a port in use
 * refused with the reason. */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct reply {
    int status;
    char head[2048];
    char body[65536];
} reply;

/* One HTTP/1.0 request to 127.0.0.1:port; the whole reply (the server closes). */
static void request(int port, const char *method, const char *path, reply *out)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    char req[256];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: localhost\r\n\r\n", method, path);
    assert_int_equal(write(fd, req, (size_t)n), n);
    static char raw[sizeof out->head + sizeof out->body];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof raw - 1 && (r = read(fd, raw + got, sizeof raw - 1 - got)) > 0)
        got += (size_t)r;
    close(fd);
    raw[got] = '\0';
    assert_int_equal(sscanf(raw, "HTTP/1.%*d %d", &out->status), 1);
    char *sep = strstr(raw, "\r\n\r\n");
    assert_non_null(sep);
    size_t head_len = (size_t)(sep - raw);
    assert_true(head_len < sizeof out->head);
    memcpy(out->head, raw, head_len);
    out->head[head_len] = '\0';
    snprintf(out->body, sizeof out->body, "%s", sep + 4);
}

static void test_pages(void **state)
{
    (void)state;
    gjkd_service *svc = t_service(NULL);
    gjkd_error error;
    gjkd_http *h = gjkd_http_start("127.0.0.1:0", svc, &error);
    assert_non_null(h);
    int port = gjkd_http_port(h);
    assert_true(port > 0);
    reply r;

    request(port, "GET", "/healthz", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "ok\n");
    request(port, "GET", "/readyz", &r);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(r.body, "not bound"));
    gjkd_http_set_serving(h, true);
    request(port, "GET", "/readyz", &r);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(r.body, "no scene"));

    gjkd_arena a = {0};
    Gjkd__V1__Obstacle *obstacles[] = {t_obstacle(&a, "wall", 0.5, 1.0)};
    assert_code(
        t_call_code(svc, t_load_scene(&a, t_scene(&a, NULL, 0, obstacles, 1, NULL, 0), false)),
        GJKD_CODE(OK));
    request(port, "GET", "/readyz", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "ready\n");
    /* HEAD: the status without the body */
    request(port, "HEAD", "/readyz", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "");

    request(port, "GET", "/metrics", &r);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.head, "Content-Type: text/plain; version=0.0.4"));
    char line[128];
    snprintf(line, sizeof line, "\ngjkd_scene_revision %llu\n",
             (unsigned long long)gjkd_service_revision(svc));
    assert_non_null(strstr(r.body, line));
    assert_non_null(
        strstr(r.body, "\ngjkd_requests_total{command=\"load_scene\",code=\"OK\"} 1\n"));
    assert_non_null(strstr(r.body, "\ngjkd_scene_obstacles 1\n"));

    request(port, "GET", "/metrics/", &r);
    assert_int_equal(r.status, 404);
    request(port, "GET", "/", &r);
    assert_int_equal(r.status, 404);
    request(port, "POST", "/readyz", &r);
    assert_int_equal(r.status, 405);
    assert_non_null(strstr(r.head, "Allow: GET, HEAD"));
    request(port, "DELETE", "/metrics", &r);
    assert_int_equal(r.status, 405);

    gjkd_service_set_draining(svc, true);
    request(port, "GET", "/readyz", &r);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(r.body, "draining"));
    request(port, "GET", "/healthz", &r);
    assert_int_equal(r.status, 200); /* alive while draining */

    /* The port is taken: refused, saying so. */
    char taken[32];
    snprintf(taken, sizeof taken, "127.0.0.1:%d", port);
    assert_null(gjkd_http_start(taken, svc, &error));
    assert_non_null(strstr(error.message, "in use"));

    gjkd_http_stop(&h);
    assert_null(h);
    gjkd_http_stop(&h); /* safe on NULL */
    gjkd_arena_free(&a);
    gjkd_service_destroy(&svc);
}

static void test_addresses(void **state)
{
    (void)state;
    assert_true(gjkd_http_is_off("off"));
    assert_true(gjkd_http_is_off(""));
    assert_false(gjkd_http_is_off("127.0.0.1:7472"));
    const char *good[] = {"127.0.0.1:0", "127.0.0.1:7472", "localhost:7472",
                          "[::1]:7472",  "0.0.0.0:65535",  "[::]:1"};
    gjkd_error error;
    for (size_t i = 0; i < sizeof good / sizeof *good; ++i) {
        if (!gjkd_http_check(good[i], &error)) {
            print_error("%s: %s\n", good[i], error.message);
            fail();
        }
    }
    const char *bad[] = {
        "7472",  "127.0.0.1:",     "127.0.0.1:65536", "[::1]7472",       "::1:7472",
        ":7472", "localhost:http", "127.0.0.1:-1",    "127.0.0.1:7472x", "[::1:7472"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        if (gjkd_http_check(bad[i], &error)) {
            print_error("%s accepted\n", bad[i]);
            fail();
        }
        assert_non_null(strstr(error.message, "http: "));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pages),
        cmocka_unit_test(test_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
