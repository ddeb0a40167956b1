/* test_loopback_server.h — an in-process gjkd (transport + service) on a free loopback TCP
 * port for the client-library tests, and a libgjkd-client connected to it. Include after
 * test_server_util.h. */
#ifndef GJK_TEST_LOOPBACK_SERVER_H
#define GJK_TEST_LOOPBACK_SERVER_H

#include "gjkd_client.h"
#include "transport.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <zmq.h>

typedef struct t_server {
    void *ctx;
    gjkd_service *svc;
    gjkd_transport_def def;
    atomic_int stop, reload, ready;
    char endpoint[256];
    pthread_t thread;
    char err[256];
} t_server;

static void t_server_on_ready(void *user, const char *endpoint)
{
    t_server *s = user;
    snprintf(s->endpoint, sizeof s->endpoint, "%s", endpoint);
    atomic_store(&s->ready, 1);
}

static void *t_server_run(void *p)
{
    t_server *s = p;
    if (gjkd_transport_run(&s->def, s->err, sizeof s->err) != 0)
        atomic_store(&s->ready, -1);
    return NULL;
}

/* Serves `svc` (owned from here on: t_server_stop destroys it) on tcp://127.0.0.1:* with two
 * workers; waits at most 5 s for the socket to be bound. */
static inline t_server *t_server_start(gjkd_service *svc)
{
    t_server *s = calloc(1, sizeof *s);
    s->ctx = zmq_ctx_new();
    s->svc = svc;
    s->def.zmq_context = s->ctx;
    s->def.endpoint = "tcp://127.0.0.1:*";
    s->def.threads = 2;
    s->def.drain_seconds = 5.0;
    s->def.service = s->svc;
    s->def.stop = &s->stop;
    s->def.reload = &s->reload;
    s->def.user = s;
    s->def.on_ready = t_server_on_ready;
    pthread_create(&s->thread, NULL, t_server_run, s);
    for (int i = 0; i < 500 && atomic_load(&s->ready) == 0; ++i) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(atomic_load(&s->ready), 1);
    return s;
}

static inline void t_server_stop(t_server *s)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->thread, NULL);
    gjkd_service_destroy(&s->svc);
    zmq_ctx_term(s->ctx);
    free(s);
}

/* A client of s: 10 s timeout, no retries. */
static inline gjkd_client *t_server_connect(t_server *s)
{
    gjkd_client_options o = gjkd_client_default_options();
    o.endpoint = s->endpoint;
    o.timeout_ms = 10000;
    o.retries = 0;
    gjkd_client *c;
    assert_int_equal(gjkd_client_create(&o, &c), GJKD_OK);
    return c;
}

#endif /* GJK_TEST_LOOPBACK_SERVER_H */
