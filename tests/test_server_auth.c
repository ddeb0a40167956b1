/* test_server_auth.c — CURVE key files, the allow-list, the exposure rule, and the ZAP handler
 * over loopback TCP: a listed client is served; no CURVE, a wrong server key and an unlisted
 * key are refused and counted; SIGHUP's reload changes who is allowed. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "auth.h"
#include "transport.h"

static char g_dir[64];

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", g_dir, name);
}

static void write_text(const char *name, const char *text, mode_t mode)
{
    char path[256];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

typedef struct pair {
    char pub[41], sec[41];
} pair;

static pair new_pair(void)
{
    pair p;
    assert_int_equal(zmq_curve_keypair(p.pub, p.sec), 0);
    return p;
}

static void expect_contains(const char *text, const char *needle)
{
    if (strstr(text, needle) == NULL) {
        print_error("message '%s' does not say '%s'\n", text, needle);
        fail();
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/gjkd-test-auth-XXXXXX");
    return mkdtemp(g_dir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- key files */

static void test_key_files(void **state)
{
    (void)state;
    pair p = new_pair();
    char text[128], path[256], z85[41], err[512];
    snprintf(text, sizeof text, "# a comment\n\n  %s  \r\n", p.pub);
    write_text("a.pub", text, 0644);
    path_of(path, sizeof path, "a.pub");
    assert_true(gjkd_key_file_read(path, false, z85, err, sizeof err));
    assert_string_equal(z85, p.pub);

    /* A secret key file must be 0600 (or stricter). */
    snprintf(text, sizeof text, "%s\n", p.sec);
    write_text("a.key", text, 0640);
    path_of(path, sizeof path, "a.key");
    assert_false(gjkd_key_file_read(path, true, z85, err, sizeof err));
    expect_contains(err, "accessible by group or others");
    expect_contains(err, "chmod 600");
    assert_int_equal(chmod(path, 0604), 0);
    assert_false(gjkd_key_file_read(path, true, z85, err, sizeof err));
    assert_int_equal(chmod(path, 0600), 0);
    assert_true(gjkd_key_file_read(path, true, z85, err, sizeof err));
    assert_string_equal(z85, p.sec);
    assert_int_equal(chmod(path, 0400), 0);
    assert_true(gjkd_key_file_read(path, true, z85, err, sizeof err));

    /* Wrong length, a character outside Z85, no key at all, no file. */
    write_text("short.pub", "0123456789012345678901234567890123456789X\n", 0644);
    path_of(path, sizeof path, "short.pub");
    assert_false(gjkd_key_file_read(path, false, z85, err, sizeof err));
    expect_contains(err, "short.pub:1: not a Z85 key");
    snprintf(text, sizeof text, "#\n%.39s~\n", p.pub); /* '~' is not a Z85 character */
    write_text("bad.pub", text, 0644);
    path_of(path, sizeof path, "bad.pub");
    assert_false(gjkd_key_file_read(path, false, z85, err, sizeof err));
    expect_contains(err, "bad.pub:2:");
    write_text("empty.pub", "# nothing\n\n", 0644);
    path_of(path, sizeof path, "empty.pub");
    assert_false(gjkd_key_file_read(path, false, z85, err, sizeof err));
    expect_contains(err, "holds no key");
    path_of(path, sizeof path, "missing.pub");
    assert_false(gjkd_key_file_read(path, false, z85, err, sizeof err));
    expect_contains(err, "cannot open");
}

/* ---------------------------------------------------------------- allow-list */

static void test_allowlist(void **state)
{
    (void)state;
    pair k[4];
    uint8_t bin[4][32];
    for (int i = 0; i < 4; ++i) {
        k[i] = new_pair();
        assert_non_null(zmq_z85_decode(bin[i], k[i].pub));
    }
    char text[512], path[256], err[512];
    snprintf(text, sizeof text, "# robots\n%s\n\n%s # not allowed: trailing text\n", k[0].pub,
             k[1].pub);
    write_text("list.txt", text, 0644);
    path_of(path, sizeof path, "list.txt");
    assert_null(gjkd_allowlist_load(path, err, sizeof err));
    expect_contains(err, "list.txt:4: not a Z85 public key");

    snprintf(text, sizeof text, "# robots\n%s\n\n  %s\n", k[0].pub, k[1].pub);
    write_text("list.txt", text, 0644);
    gjkd_allowlist *list = gjkd_allowlist_load(path, err, sizeof err);
    assert_non_null(list);
    assert_int_equal(gjkd_allowlist_count(list), 2);
    assert_true(gjkd_allowlist_contains(list, bin[0]));
    assert_true(gjkd_allowlist_contains(list, bin[1]));
    assert_false(gjkd_allowlist_contains(list, bin[2]));
    gjkd_allowlist_free(&list);
    assert_null(list);

    /* A directory: every *.pub, nothing else. */
    char dir[256];
    path_of(dir, sizeof dir, "clients");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(text, sizeof text, "%s\n", k[2].pub);
    write_text("clients/a.pub", text, 0644);
    snprintf(text, sizeof text, "%s\n%s\n", k[3].pub, k[0].pub);
    write_text("clients/b.pub", text, 0644);
    snprintf(text, sizeof text, "%s\n", k[1].pub);
    write_text("clients/c.key", text, 0600); /* not a .pub: ignored */
    list = gjkd_allowlist_load(dir, err, sizeof err);
    assert_non_null(list);
    assert_int_equal(gjkd_allowlist_count(list), 3);
    assert_true(gjkd_allowlist_contains(list, bin[0]));
    assert_false(gjkd_allowlist_contains(list, bin[1]));
    assert_true(gjkd_allowlist_contains(list, bin[2]));
    assert_true(gjkd_allowlist_contains(list, bin[3]));
    gjkd_allowlist_free(&list);

    write_text("clients/bad.pub", "not a key\n", 0644);
    assert_null(gjkd_allowlist_load(dir, err, sizeof err));
    expect_contains(err, "bad.pub:1:");

    /* An empty list would refuse everyone: an error, not a silent lock-out. */
    write_text("none.txt", "# nobody yet\n", 0644);
    path_of(path, sizeof path, "none.txt");
    assert_null(gjkd_allowlist_load(path, err, sizeof err));
    expect_contains(err, "holds no client key");
    path_of(path, sizeof path, "no-such-list");
    assert_null(gjkd_allowlist_load(path, err, sizeof err));
    expect_contains(err, "cannot read allow-list");
}

/* ---------------------------------------------------------------- exposure rule */

static void test_exposure_rule(void **state)
{
    (void)state;
    char err[512];
    assert_true(
        gjkd_endpoint_check("tcp://127.0.0.1:7471", "request", false, false, err, sizeof err));
    assert_true(gjkd_endpoint_check("ipc:///tmp/gjkd", "pose", false, false, err, sizeof err));
    assert_false(
        gjkd_endpoint_check("tcp://0.0.0.0:7471", "request", false, false, err, sizeof err));
    expect_contains(err, "--curve-secret-key");
    expect_contains(err, "--insecure");
    assert_false(gjkd_endpoint_check("tcp://*:7472", "monitor", false, false, err, sizeof err));
    expect_contains(err, "monitor socket");
    assert_true(gjkd_endpoint_check("tcp://0.0.0.0:7471", "request", true, false, err, sizeof err));
    assert_true(gjkd_endpoint_check("tcp://0.0.0.0:7471", "request", false, true, err, sizeof err));
}

/* ---------------------------------------------------------------- ZAP over TCP */

typedef struct fixture {
    void *ctx;
    gjkd_auth *auth;
    void *server;
    char endpoint[128];
    pair server_keys, allowed, other;
} fixture;

static void start_fixture(fixture *f)
{
    f->server_keys = new_pair();
    f->allowed = new_pair();
    f->other = new_pair();
    char text[128], key_path[256], allow_path[256], err[512];
    snprintf(text, sizeof text, "%s\n", f->server_keys.sec);
    write_text("server.key", text, 0600);
    snprintf(text, sizeof text, "%s\n", f->allowed.pub);
    write_text("allowed.txt", text, 0644);
    path_of(key_path, sizeof key_path, "server.key");
    path_of(allow_path, sizeof allow_path, "allowed.txt");
    f->ctx = zmq_ctx_new();
    f->auth = gjkd_auth_start(f->ctx, key_path, allow_path, NULL, err, sizeof err);
    if (f->auth == NULL)
        print_error("%s\n", err);
    assert_non_null(f->auth);
    assert_string_equal(gjkd_auth_server_public_key(f->auth), f->server_keys.pub);
    f->server = zmq_socket(f->ctx, ZMQ_ROUTER);
    int linger = 0;
    zmq_setsockopt(f->server, ZMQ_LINGER, &linger, sizeof linger);
    assert_true(gjkd_auth_secure_socket(f->auth, f->server, "request", err, sizeof err));
    assert_int_equal(zmq_bind(f->server, "tcp://127.0.0.1:*"), 0);
    size_t len = sizeof f->endpoint;
    zmq_getsockopt(f->server, ZMQ_LAST_ENDPOINT, f->endpoint, &len);
}

static void stop_fixture(fixture *f)
{
    zmq_close(f->server);
    gjkd_auth_stop(&f->auth);
    assert_null(f->auth);
    zmq_ctx_term(f->ctx);
}

/* Bounded waits, long enough for a valgrind or TSan run on a loaded 2-core machine. */
#define SERVE_WAIT_MS 5000
#define REFUSE_WAIT_MS 300 /* how long a refused client must go unserved */
#define REFUSED_POLLS 1000 /* x 10 ms: for the refusal to be counted */

static void *new_client(fixture *f, const char *server_key, const pair *client)
{
    void *c = zmq_socket(f->ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(c, ZMQ_LINGER, &linger, sizeof linger);
    if (server_key != NULL) {
        zmq_setsockopt(c, ZMQ_CURVE_SERVERKEY, server_key, 40);
        zmq_setsockopt(c, ZMQ_CURVE_PUBLICKEY, client->pub, 40);
        zmq_setsockopt(c, ZMQ_CURVE_SECRETKEY, client->sec, 40);
    }
    assert_int_equal(zmq_connect(c, f->endpoint), 0);
    zmq_send(c, "ping", 4, ZMQ_DONTWAIT);
    return c;
}

/* True if the server receives c's "ping" within wait_ms (and answers it, which the client
 * must then receive). */
static bool served(fixture *f, void *c, int wait_ms)
{
    zmq_pollitem_t item = {f->server, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, wait_ms) <= 0) {
        return false;
    }
    char id[256], body[16];
    int id_len = zmq_recv(f->server, id, sizeof id, 0);
    int n = zmq_recv(f->server, body, sizeof body, 0);
    assert_int_equal(n, 4);
    assert_true(id_len > 0);
    zmq_send(f->server, id, (size_t)id_len, ZMQ_SNDMORE);
    zmq_send(f->server, "pong", 4, 0);
    zmq_pollitem_t back = {c, 0, ZMQ_POLLIN, 0};
    assert_int_equal(zmq_poll(&back, 1, SERVE_WAIT_MS), 1);
    assert_int_equal(zmq_recv(c, body, sizeof body, 0), 4);
    assert_memory_equal(body, "pong", 4);
    return true;
}

/* A DEALER with the given keys (server_key NULL: no CURVE) sends "ping"; true if served. */
static bool try_client(fixture *f, const char *server_key, const pair *client)
{
    void *c = new_client(f, server_key, client);
    bool ok = served(f, c, SERVE_WAIT_MS);
    zmq_close(c);
    return ok;
}

/* A client that must be refused: never served, and the refusal counted (waited for while
 * the client is still connected: closed early, a slow handshake might never reach the
 * server's checks). Returns the new refusal count. */
static uint64_t expect_refused(fixture *f, const char *server_key, const pair *client)
{
    uint64_t before = gjkd_auth_refused(f->auth);
    void *c = new_client(f, server_key, client);
    assert_false(served(f, c, REFUSE_WAIT_MS));
    for (int i = 0; i < REFUSED_POLLS && gjkd_auth_refused(f->auth) <= before; ++i) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    uint64_t after = gjkd_auth_refused(f->auth);
    assert_true(after > before);
    assert_false(served(f, c, 0));
    zmq_close(c);
    return after;
}

static void test_zap(void **state)
{
    (void)state;
    fixture f;
    start_fixture(&f);
    assert_int_equal(gjkd_auth_refused(f.auth), 0);

    assert_true(try_client(&f, f.server_keys.pub, &f.allowed));
    assert_int_equal(gjkd_auth_refused(f.auth), 0);

    /* A key not on the list: ZAP refuses it. */
    expect_refused(&f, f.server_keys.pub, &f.other);
    /* No CURVE at all: the handshake fails before ZAP; the socket monitor counts it. */
    expect_refused(&f, NULL, NULL);
    /* A listed client that has the wrong server key cannot complete the handshake. */
    expect_refused(&f, f.other.pub, &f.allowed);

    /* Reload (SIGHUP): now only "other" is allowed. */
    char text[128], path[256], err[512];
    snprintf(text, sizeof text, "%s\n", f.other.pub);
    write_text("allowed2.txt", text, 0644);
    path_of(path, sizeof path, "allowed2.txt");
    assert_true(gjkd_auth_reload(f.auth, path, err, sizeof err));
    assert_true(try_client(&f, f.server_keys.pub, &f.other));
    expect_refused(&f, f.server_keys.pub, &f.allowed);
    /* A bad reload keeps the current list. */
    path_of(path, sizeof path, "no-such-list");
    assert_false(gjkd_auth_reload(f.auth, path, err, sizeof err));
    assert_true(try_client(&f, f.server_keys.pub, &f.other));
    /* Acceptances are counted from the socket monitor's handshake events, which may arrive
     * after the message they let through (seen under TSan): bounded wait. */
    for (int i = 0; i < REFUSED_POLLS && gjkd_auth_accepted(f.auth) < 3; ++i) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    assert_true(gjkd_auth_accepted(f.auth) >= 3);
    stop_fixture(&f);
}

static void test_start_errors(void **state)
{
    (void)state;
    pair s = new_pair(), c = new_pair();
    char text[128], key_path[256], allow_path[256], err[512];
    snprintf(text, sizeof text, "%s\n", s.sec);
    write_text("open.key", text, 0644);
    snprintf(text, sizeof text, "%s\n", c.pub);
    write_text("one.txt", text, 0644);
    path_of(key_path, sizeof key_path, "open.key");
    path_of(allow_path, sizeof allow_path, "one.txt");
    void *ctx = zmq_ctx_new();
    assert_null(gjkd_auth_start(ctx, key_path, allow_path, NULL, err, sizeof err));
    expect_contains(err, "chmod 600");
    assert_int_equal(chmod(key_path, 0600), 0);
    path_of(allow_path, sizeof allow_path, "no-such-list");
    assert_null(gjkd_auth_start(ctx, key_path, allow_path, NULL, err, sizeof err));
    expect_contains(err, "no-such-list");
    zmq_ctx_term(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_files),     cmocka_unit_test(test_allowlist),
        cmocka_unit_test(test_exposure_rule), cmocka_unit_test(test_zap),
        cmocka_unit_test(test_start_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
