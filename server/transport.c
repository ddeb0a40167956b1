/* transport.c — see transport.h. */
#define _POSIX_C_SOURCE 200809L
#include "transport.h"

#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

/* Broker <-> worker message: [client identity][framing][payload]. framing is one byte:
 * 0 = the client sent [payload], 1 = it sent [empty][payload] (REQ); the reply mirrors it. */
enum { FRAMING_BARE = 0, FRAMING_DELIMITED = 1 };
static const char k_ready[] = "READY";
static const char k_stop[] = "STOP";

bool gjkd_endpoint_is_loopback(const char *endpoint)
{
    if (strncmp(endpoint, "ipc://", 6) == 0 || strncmp(endpoint, "inproc://", 9) == 0)
        return true;
    if (strncmp(endpoint, "tcp://", 6) != 0)
        return false;
    const char *host = endpoint + 6;
    if (strncmp(host, "127.", 4) == 0) {
        /* 127.a.b.c: digits and dots up to the port */
        const char *p = host + 4;
        while (*p != '\0' && *p != ':' && ((*p >= '0' && *p <= '9') || *p == '.'))
            ++p;
        return *p == ':';
    }
    return strncmp(host, "localhost:", 10) == 0 || strncmp(host, "[::1]:", 6) == 0;
}

bool gjkd_endpoint_check(const char *endpoint, const char *name, bool curve, bool insecure,
                         char *err, size_t err_size)
{
    if (curve || gjkd_endpoint_is_loopback(endpoint))
        return true;
    if (!insecure) {
        snprintf(err, err_size,
                 "refusing to bind the %s socket to non-loopback endpoint '%s' without "
                 "authentication; configure CURVE (--curve-secret-key and --curve-allow) or "
                 "pass --insecure",
                 name, endpoint);
        return false;
    }
    GJKD_LOG(GJKD_LOG_WARN, "insecure_endpoint", 0,
             "socket=%s endpoint=%s: bound without authentication or encryption (--insecure)", name,
             endpoint);
    return true;
}

bool gjkd_transport_secure_frontend(void *socket, const gjkd_transport_def *def,
                                    uint64_t max_message_bytes, char *err, size_t err_size)
{
    if (!gjkd_endpoint_check(def->endpoint, "request", def->auth != NULL, def->insecure, err,
                             err_size))
        return false;
    if (def->auth != NULL && !gjkd_auth_secure_socket(def->auth, socket, "request", err, err_size))
        return false;
    /* Requests up to max_message_bytes are read and answered (RESOURCE_EXHAUSTED above the
     * limit is decided by the service); beyond twice that, libzmq drops the connection
     * without reading the message into memory. */
    int64_t hard = (int64_t)(2 * max_message_bytes);
    zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &hard, sizeof hard);
    return true;
}

/* ---------------------------------------------------------------- workers */

/* Frees a reply buffer ZeroMQ has sent (zero-copy send of the malloc'd reply). */
static void free_reply(void *data, void *hint)
{
    (void)hint;
    free(data);
}

/* Sends a malloc'd reply as the last frame without copying it; frees it on failure. */
static void send_owned(void *socket, uint8_t *reply, size_t size)
{
    zmq_msg_t m;
    if (zmq_msg_init_data(&m, reply, size, free_reply, NULL) != 0) {
        free(reply);
        return;
    }
    if (zmq_msg_send(&m, socket, 0) < 0)
        zmq_msg_close(&m); /* closing calls free_reply */
}

typedef struct worker {
    pthread_t thread;
    void *context;
    const char *backend;
    gjkd_service *service;
    int index;
} worker;

/* Receives the remaining frames of a multipart message into msgs (at most max). Returns the
 * number of frames, or -1 on error; frames beyond max are received and dropped (counted). */
static int recv_frames(void *socket, zmq_msg_t *msgs, int max, int *total)
{
    int n = 0;
    *total = 0;
    int more = 1;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, socket, 0) < 0) {
            zmq_msg_close(&m);
            for (int i = 0; i < n; ++i)
                zmq_msg_close(&msgs[i]);
            return -1;
        }
        more = zmq_msg_more(&m);
        (*total)++;
        if (n < max)
            msgs[n++] = m;
        else
            zmq_msg_close(&m);
    }
    return n;
}

static void close_frames(zmq_msg_t *msgs, int n)
{
    for (int i = 0; i < n; ++i)
        zmq_msg_close(&msgs[i]);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    void *sock = zmq_socket(w->context, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    char id[16];
    int id_len = snprintf(id, sizeof id, "w%d", w->index);
    zmq_setsockopt(sock, ZMQ_ROUTING_ID, id, (size_t)id_len);
    if (zmq_connect(sock, w->backend) != 0) {
        GJKD_LOG(GJKD_LOG_ERROR, "worker_failed", 0, "worker=%d connect: %s", w->index,
                 zmq_strerror(zmq_errno()));
        zmq_close(sock);
        return NULL;
    }
    zmq_send(sock, k_ready, sizeof k_ready - 1, 0);
    for (;;) {
        zmq_msg_t f[3];
        int total;
        int n = recv_frames(sock, f, 3, &total);
        if (n < 0)
            break; /* context terminated */
        if (n == 1 && zmq_msg_size(&f[0]) == sizeof k_stop - 1 &&
            memcmp(zmq_msg_data(&f[0]), k_stop, sizeof k_stop - 1) == 0) {
            close_frames(f, n);
            break;
        }
        if (n != 3 || total != 3) { /* the broker never sends this */
            close_frames(f, n);
            continue;
        }
        uint8_t *reply = NULL;
        size_t reply_size = 0;
        gjkd_service_handle(w->service, zmq_msg_data(&f[2]), zmq_msg_size(&f[2]), &reply,
                            &reply_size);
        zmq_msg_send(&f[0], sock, ZMQ_SNDMORE);
        zmq_msg_send(&f[1], sock, ZMQ_SNDMORE);
        send_owned(sock, reply, reply_size);
        zmq_msg_close(&f[2]);
    }
    zmq_close(sock);
    return NULL;
}

/* ---------------------------------------------------------------- broker */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Reply to the client with the given framing. */
static void send_reply(void *frontend, zmq_msg_t *identity, int framing, const void *data,
                       size_t size)
{
    zmq_msg_send(identity, frontend, ZMQ_SNDMORE);
    if (framing == FRAMING_DELIMITED)
        zmq_send(frontend, "", 0, ZMQ_SNDMORE);
    zmq_send(frontend, data, size, 0);
}

/* Reads one client message and passes it to the idle worker `worker_id` (or answers it). Returns
 * true if a worker got it. */
static bool forward_request(void *frontend, void *backend, zmq_msg_t *worker_id,
                            gjkd_service *service)
{
    zmq_msg_t f[4];
    int total;
    int n = recv_frames(frontend, f, 4, &total);
    if (n < 1)
        return false;
    /* [identity][payload] or [identity][empty][payload] */
    int framing = -1;
    if (total == 2)
        framing = FRAMING_BARE;
    else if (total == 3 && zmq_msg_size(&f[1]) == 0)
        framing = FRAMING_DELIMITED;
    if (framing < 0) {
        uint8_t *reply;
        size_t reply_size;
        char msg[128];
        snprintf(msg, sizeof msg, "wrong framing: %d frames; send [payload] or [empty][payload]",
                 total - 1);
        gjkd_service_reply_error(service, GJKD_CODE(MALFORMED), msg, &reply, &reply_size);
        send_reply(frontend, &f[0], total >= 3 && zmq_msg_size(&f[1]) == 0, reply, reply_size);
        free(reply);
        close_frames(f, n);
        return false;
    }
    uint8_t fb = (uint8_t)framing;
    zmq_msg_t copy;
    zmq_msg_init(&copy);
    zmq_msg_copy(&copy, worker_id);
    zmq_msg_send(&copy, backend, ZMQ_SNDMORE);
    zmq_msg_send(&f[0], backend, ZMQ_SNDMORE);
    zmq_send(backend, &fb, 1, ZMQ_SNDMORE);
    zmq_msg_send(&f[n - 1], backend, 0);
    if (framing == FRAMING_DELIMITED)
        zmq_msg_close(&f[1]);
    return true;
}

/* Handles one message from a worker: READY or [client][framing][reply]. Returns the worker's
 * identity frame in *worker_id (it is idle again). */
static bool backend_message(void *frontend, void *backend, zmq_msg_t *worker_id)
{
    zmq_msg_t f[4];
    int total;
    int n = recv_frames(backend, f, 4, &total);
    if (n < 2)
        return false;
    *worker_id = f[0];
    if (n == 4) {
        int framing = zmq_msg_size(&f[2]) == 1 ? *(uint8_t *)zmq_msg_data(&f[2]) : 0;
        zmq_msg_send(&f[1], frontend, ZMQ_SNDMORE);
        if (framing == FRAMING_DELIMITED)
            zmq_send(frontend, "", 0, ZMQ_SNDMORE);
        zmq_msg_send(&f[3], frontend, 0);
        zmq_msg_close(&f[2]);
    } else {
        for (int i = 1; i < n; ++i) /* READY */
            zmq_msg_close(&f[i]);
    }
    return true;
}

int gjkd_transport_run(gjkd_transport_def *def, char *err, size_t err_size)
{
    void *ctx = def->zmq_context;
    void *frontend = zmq_socket(ctx, ZMQ_ROUTER);
    void *backend = zmq_socket(ctx, ZMQ_ROUTER);
    int linger = 2000; /* replies still queued at exit get this long to leave */
    zmq_setsockopt(frontend, ZMQ_LINGER, &linger, sizeof linger);
    int zero = 0, one = 1;
    zmq_setsockopt(backend, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(backend, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
    gjkd_limits limits = gjkd_service_limits(def->service);
    char backend_name[64];
    snprintf(backend_name, sizeof backend_name, "inproc://gjkd-workers-%p", (void *)def);
    worker *workers = calloc((size_t)def->threads, sizeof *workers);
    zmq_msg_t *idle = calloc((size_t)def->threads, sizeof *idle);
    int started = 0, rc = -1, n_idle = 0, ready_seen = 0;
    if (workers == NULL || idle == NULL) {
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    if (!gjkd_transport_secure_frontend(frontend, def, limits.max_message_bytes, err, err_size))
        goto done;
    if (zmq_bind(backend, backend_name) != 0) {
        snprintf(err, err_size, "cannot bind '%s': %s", backend_name, zmq_strerror(zmq_errno()));
        goto done;
    }
    /* Workers must not take the process's signals: the loop below handles them. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < def->threads; ++i) {
        workers[i] = (worker){0, ctx, backend_name, def->service, i};
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
            break;
        started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < def->threads) {
        snprintf(err, err_size, "cannot start worker threads");
        goto stop_workers;
    }
    /* Every worker is connected and idle before the first client is read, so that STOP can
     * reach each of them by identity at the end. */
    double deadline = now_seconds() + 10.0;
    while (ready_seen < started && now_seconds() < deadline) {
        zmq_pollitem_t item = {backend, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 100) > 0 && backend_message(frontend, backend, &idle[n_idle])) {
            n_idle++;
            ready_seen++;
        }
    }
    if (ready_seen < started) {
        snprintf(err, err_size, "worker threads did not start");
        goto stop_workers;
    }
    if (zmq_bind(frontend, def->endpoint) != 0) {
        snprintf(err, err_size, "cannot bind '%s': %s", def->endpoint, zmq_strerror(zmq_errno()));
        goto stop_workers;
    }
    size_t len = sizeof def->bound_endpoint;
    zmq_getsockopt(frontend, ZMQ_LAST_ENDPOINT, def->bound_endpoint, &len);
    GJKD_LOG(GJKD_LOG_INFO, "listening", 0, "endpoint=%s threads=%d", def->bound_endpoint,
             def->threads);
    if (def->on_ready != NULL)
        def->on_ready(def->user, def->bound_endpoint);

    bool draining = false;
    double drain_deadline = 0, quiet_since = 0;
    for (;;) {
        if (atomic_load(def->stop) && !draining) {
            draining = true;
            gjkd_service_set_draining(def->service, true);
            drain_deadline = now_seconds() + def->drain_seconds;
            quiet_since = now_seconds();
            GJKD_LOG(GJKD_LOG_INFO, "draining", 0, "in_flight=%d", started - n_idle);
        }
        if (atomic_exchange(def->reload, 0)) {
            if (def->on_reload != NULL)
                def->on_reload(def->user, frontend);
        }
        if (draining) {
            /* Done when nothing is in flight and the frontend has been quiet for a moment:
             * requests already queued by connected clients are still answered. */
            double now = now_seconds();
            if (now > drain_deadline || (n_idle == started && now - quiet_since > 0.2))
                break;
        }
        zmq_pollitem_t items[2] = {{backend, 0, ZMQ_POLLIN, 0}, {frontend, 0, ZMQ_POLLIN, 0}};
        int n_items = n_idle > 0 ? 2 : 1;
        int p = zmq_poll(items, n_items, draining ? 50 : 200);
        if (p < 0) {
            if (zmq_errno() == EINTR)
                continue; /* a signal: the flags are checked at the top */
            snprintf(err, err_size, "poll: %s", zmq_strerror(zmq_errno()));
            goto stop_workers;
        }
        if ((items[0].revents & ZMQ_POLLIN) && backend_message(frontend, backend, &idle[n_idle]))
            n_idle++;
        if (n_items == 2 && (items[1].revents & ZMQ_POLLIN)) {
            quiet_since = now_seconds();
            if (forward_request(frontend, backend, &idle[n_idle - 1], def->service))
                zmq_msg_close(&idle[--n_idle]);
        }
    }
    rc = 0;
    GJKD_LOG(GJKD_LOG_INFO, "drained", 0, "in_flight=%d", started - n_idle);
stop_workers:
    /* A busy worker reads its STOP after finishing the request it holds. */
    for (int i = 0; i < started; ++i) {
        char id[16];
        int n = snprintf(id, sizeof id, "w%d", i);
        if (zmq_send(backend, id, (size_t)n, ZMQ_SNDMORE) >= 0)
            zmq_send(backend, k_stop, sizeof k_stop - 1, 0);
    }
    for (int i = 0; i < started; ++i)
        pthread_join(workers[i].thread, NULL);
done:
    for (int i = 0; i < n_idle; ++i)
        zmq_msg_close(&idle[i]);
    free(idle);
    zmq_close(frontend);
    zmq_close(backend);
    free(workers);
    return rc;
}
