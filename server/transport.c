/* transport.c — see transport.h. */
#define _POSIX_C_SOURCE 200809L
#include "transport.h"

#include "log.h"
#include "monitor.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <zmq.h>

/* Broker <-> worker message: [client identity][framing][payload]. framing is one byte:
 * 0 = the client sent [payload], 1 = it sent [empty][payload] (REQ); the reply mirrors it.
 * To the worker the framing frame also carries the request's deadline and caller key
 * (send_to_worker). */
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
    /* CURVE without auth's own monitor: the transport monitors the frontend (a socket has one
     * monitor) and passes the handshake events on. */
    if (def->auth != NULL && !gjkd_auth_curve_socket(def->auth, socket, "request", err, err_size))
        return false;
    /* Requests up to max_message_bytes are read and answered (RESOURCE_EXHAUSTED above the
     * limit is decided by the service); beyond twice that, libzmq drops the connection
     * without reading the message into memory. */
    int64_t hard = (int64_t)(2 * max_message_bytes);
    zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &hard, sizeof hard);
    /* A connection that has not completed its handshake by then is dropped (libzmq's default
     * is 30 s: idle half-open connections held file descriptors that long). */
    if (def->handshake_seconds > 0) {
        int ms = (int)(def->handshake_seconds * 1000.0);
        zmq_setsockopt(socket, ZMQ_HANDSHAKE_IVL, &ms, sizeof ms);
    }
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

int gjkd_transport_recv_frames(void *socket, void *frames, int max, int *total)
{
    zmq_msg_t *msgs = frames;
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
        int n = gjkd_transport_recv_frames(sock, f, 3, &total);
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
        uint64_t deadline_ns = 0;
        char key[GJKD_CALLER_KEY_MAX + 1] = "";
        size_t second = zmq_msg_size(&f[1]);
        const uint8_t *sp = zmq_msg_data(&f[1]);
        if (second >= 1 + sizeof deadline_ns &&
            second - 1 - sizeof deadline_ns <= GJKD_CALLER_KEY_MAX) {
            memcpy(&deadline_ns, sp + 1, sizeof deadline_ns);
            memcpy(key, sp + 1 + sizeof deadline_ns, second - 1 - sizeof deadline_ns);
            key[second - 1 - sizeof deadline_ns] = '\0';
        }
        gjkd_caller caller = {key};
        gjkd_service_handle_until(w->service, &caller, zmq_msg_data(&f[2]), zmq_msg_size(&f[2]),
                                  deadline_ns, &reply, &reply_size);
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

/* Requests waiting while every worker is busy: one FIFO per client (by its ROUTER identity),
 * each at most limits.max_queued long and max_queued_bytes large, at most max_queued_total in
 * all, served round-robin across clients, so that a client with a long backlog (or one that
 * never reads, or many clients that connect once each) neither crowds out nor delays the
 * others by more than one request each, and memory stays within the budget. */
typedef struct queued_request {
    zmq_msg_t identity;
    zmq_msg_t payload;
    uint8_t framing;
    uint64_t deadline_ns; /* from its arrival (request_deadline); 0 = none */
} queued_request;

typedef struct client_queue {
    unsigned char id[256]; /* ROUTER identities are at most 255 bytes */
    size_t id_len;
    queued_request *items; /* ring */
    size_t head, count, capacity;
    uint64_t bytes; /* payload bytes waiting */
    int fd;         /* its connection's descriptor (ZMQ_SRCFD), -1 if unknown */
} client_queue;

enum { SPARE_QUEUES = 64 };

typedef struct request_queue {
    client_queue **clients; /* those with requests waiting */
    size_t n_clients, capacity;
    size_t next;    /* the client served next */
    size_t count;   /* requests waiting, all clients */
    uint64_t bytes; /* their payload bytes */
    /* Emptied client queues kept for reuse (with their rings): a client whose backlog fills
     * and drains over and over does not allocate each time. */
    client_queue *spare[SPARE_QUEUES];
    size_t n_spare;
} request_queue;

/* A client queue that has nothing waiting any more: kept for reuse, or freed. */
static void queue_retire(request_queue *q, client_queue *c)
{
    c->bytes = 0;
    if (q->n_spare < SPARE_QUEUES) {
        c->head = 0;
        q->spare[q->n_spare++] = c;
        return;
    }
    free(c->items);
    free(c);
}

static client_queue *queue_client(request_queue *q, zmq_msg_t *identity)
{
    size_t n = zmq_msg_size(identity);
    const void *id = zmq_msg_data(identity);
    for (size_t i = 0; i < q->n_clients; ++i)
        if (q->clients[i]->id_len == n && memcmp(q->clients[i]->id, id, n) == 0)
            return q->clients[i];
    if (n > sizeof q->clients[0]->id)
        return NULL;
    if (q->n_clients == q->capacity) {
        size_t cap = q->capacity > 0 ? 2 * q->capacity : 8;
        client_queue **list = realloc(q->clients, cap * sizeof *list);
        if (list == NULL)
            return NULL;
        q->clients = list;
        q->capacity = cap;
    }
    client_queue *c = q->n_spare > 0 ? q->spare[--q->n_spare] : calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    memcpy(c->id, id, n);
    c->id_len = n;
    q->clients[q->n_clients++] = c;
    return c;
}

/* Removes a client found or made by queue_client that has nothing waiting. */
static void queue_drop_empty(request_queue *q, client_queue *c)
{
    if (c->count > 0)
        return;
    for (size_t i = 0; i < q->n_clients; ++i) {
        if (q->clients[i] == c) {
            q->clients[i] = q->clients[--q->n_clients];
            break;
        }
    }
    queue_retire(q, c);
}

/* Queues [identity][framing][payload] (both messages moved in) unless that would exceed the
 * client's or the total limits; then (or out of memory) false with the reason in why. */
static bool queue_push(request_queue *q, zmq_msg_t *identity, int fd, uint8_t framing,
                       uint64_t deadline_ns, zmq_msg_t *payload, const gjkd_limits *limits,
                       char *why, size_t why_size)
{
    uint64_t size = zmq_msg_size(payload);
    if (q->count >= limits->max_queued_total) {
        snprintf(why, why_size,
                 "%zu requests of all clients are queued, the limit is %u "
                 "(max-queued-total)",
                 q->count, limits->max_queued_total);
        return false;
    }
    client_queue *c = queue_client(q, identity);
    if (c == NULL) {
        snprintf(why, why_size, "out of memory for the queue");
        return false;
    }
    if (c->count >= limits->max_queued) {
        snprintf(why, why_size,
                 "this client has %zu requests queued, the limit is %u "
                 "(max-queued)",
                 c->count, limits->max_queued);
        queue_drop_empty(q, c);
        return false;
    }
    if (c->bytes + size > limits->max_queued_bytes) {
        snprintf(why, why_size,
                 "this client has %llu bytes queued, with this request's %llu "
                 "over the limit of %llu (max-queued-bytes)",
                 (unsigned long long)c->bytes, (unsigned long long)size,
                 (unsigned long long)limits->max_queued_bytes);
        queue_drop_empty(q, c);
        return false;
    }
    if (c->count == c->capacity) {
        size_t cap = c->capacity > 0 ? 2 * c->capacity : 4;
        queued_request *items = malloc(cap * sizeof *items);
        if (items == NULL) {
            snprintf(why, why_size, "out of memory for the queue");
            queue_drop_empty(q, c);
            return false;
        }
        for (size_t i = 0; i < c->count; ++i) {
            queued_request *from = &c->items[(c->head + i) % c->capacity];
            zmq_msg_init(&items[i].identity);
            zmq_msg_init(&items[i].payload);
            zmq_msg_move(&items[i].identity, &from->identity);
            zmq_msg_move(&items[i].payload, &from->payload);
            items[i].framing = from->framing;
            items[i].deadline_ns = from->deadline_ns;
        }
        free(c->items);
        c->items = items;
        c->head = 0;
        c->capacity = cap;
    }
    queued_request *r = &c->items[(c->head + c->count) % c->capacity];
    zmq_msg_init(&r->identity);
    zmq_msg_init(&r->payload);
    zmq_msg_move(&r->identity, identity);
    zmq_msg_move(&r->payload, payload);
    r->framing = framing;
    r->deadline_ns = deadline_ns;
    c->fd = fd;
    c->count++;
    c->bytes += size;
    q->count++;
    q->bytes += size;
    return true;
}

/* The oldest request of the next client in turn (q->count > 0), moved into *out. */
static void queue_pop(request_queue *q, queued_request *out)
{
    if (q->next >= q->n_clients)
        q->next = 0;
    client_queue *c = q->clients[q->next];
    queued_request *r = &c->items[c->head];
    zmq_msg_init(&out->identity);
    zmq_msg_init(&out->payload);
    zmq_msg_move(&out->identity, &r->identity);
    zmq_msg_move(&out->payload, &r->payload);
    out->framing = r->framing;
    out->deadline_ns = r->deadline_ns;
    c->bytes -= zmq_msg_size(&out->payload);
    q->bytes -= zmq_msg_size(&out->payload);
    zmq_msg_close(&r->identity);
    zmq_msg_close(&r->payload);
    c->head = (c->head + 1) % c->capacity;
    c->count--;
    q->count--;
    if (c->count == 0) { /* its turn goes to the client moved into its place */
        queue_retire(q, c);
        q->clients[q->next] = q->clients[--q->n_clients];
    } else {
        q->next++;
    }
}

/* The connection with descriptor fd has gone: its client's requests are dropped (nobody
 * would read the replies). Returns how many. */
static size_t queue_drop_fd(request_queue *q, int fd)
{
    size_t dropped = 0;
    for (size_t i = 0; i < q->n_clients;) {
        client_queue *c = q->clients[i];
        if (c->fd != fd) {
            ++i;
            continue;
        }
        for (size_t k = 0; k < c->count; ++k) {
            queued_request *r = &c->items[(c->head + k) % c->capacity];
            zmq_msg_close(&r->identity);
            zmq_msg_close(&r->payload);
        }
        dropped += c->count;
        q->count -= c->count;
        q->bytes -= c->bytes;
        c->count = 0;
        q->clients[i] = q->clients[--q->n_clients];
        queue_retire(q, c);
    }
    return dropped;
}

static void queue_free(request_queue *q)
{
    for (size_t i = 0; i < q->n_clients; ++i) {
        free(q->clients[i]->items);
        free(q->clients[i]);
    }
    for (size_t i = 0; i < q->n_spare; ++i) {
        free(q->spare[i]->items);
        free(q->spare[i]);
    }
    free(q->clients);
    memset(q, 0, sizeof *q);
}

/* A request a worker is working on: its client, to refuse it if the drain ends first. */
typedef struct in_flight {
    bool busy;
    zmq_msg_t identity; /* a copy */
    uint8_t framing;
    uint64_t request_id;
    uint64_t bytes;
} in_flight;

typedef struct broker {
    void *frontend, *backend;
    gjkd_service *service;
    zmq_msg_t *idle; /* identities of idle workers */
    int n_idle;
    in_flight *work; /* one per worker, by index ("w<index>") */
    int n_workers;
    uint64_t work_bytes; /* payload bytes of the requests in work */
    request_queue queue;
    bool draining;
    gjkd_auth *auth; /* NULL without CURVE */
    /* The frontend's socket monitor: connections accepted and gone (and, with CURVE, the
     * handshake events auth counts), in a table by descriptor. */
    void *monitor;
    struct connection *conns;
    size_t n_conns;
    uint64_t accepted; /* sequence number of the last accept */
    uint32_t live;     /* connections accepted and not gone (evicted ones included) */
    uint32_t max_live; /* the cap (max-connections, below the open-file limit) */
    uint64_t dropped;  /* requests of gone clients dropped unanswered */
    uint64_t evicted;  /* idle connections shut down at the cap */
} broker;

/* One descriptor of the request socket's connections. */
enum conn_state {
    CONN_NONE = 0, /* not a connection of ours */
    CONN_IDLE,     /* accepted, nothing received yet (a half-open or idle peer) */
    CONN_ACTIVE,   /* has sent a request */
    CONN_EVICTED,  /* shut down at the cap; its disconnect is still to come */
    CONN_GONE,     /* disconnected; no new connection accepted on the descriptor since */
};
typedef struct connection {
    uint8_t state;
    uint64_t seq; /* accept order */
} connection;

static connection *conn_at(broker *b, int fd)
{
    if (fd < 0 || fd >= (1 << 24))
        return NULL;
    if ((size_t)fd >= b->n_conns) {
        size_t n = (size_t)fd + 1 > 2 * b->n_conns ? (size_t)fd + 1 : 2 * b->n_conns;
        connection *c = realloc(b->conns, n * sizeof *c);
        if (c == NULL)
            return NULL;
        memset(c + b->n_conns, 0, (n - b->n_conns) * sizeof *c);
        b->conns = c;
        b->n_conns = n;
    }
    return &b->conns[fd];
}

/* Over the cap, the connection idle the longest (accepted, nothing sent: typically a
 * half-open one) is shut down; libzmq then closes it and reports its disconnect. Descriptors
 * and the store's files are never starved by connections that do nothing. */
static void enforce_cap(broker *b)
{
    while (b->live > b->max_live) {
        int victim = -1;
        for (size_t fd = 0; fd < b->n_conns; ++fd)
            if (b->conns[fd].state == CONN_IDLE &&
                (victim < 0 || b->conns[fd].seq < b->conns[victim].seq))
                victim = (int)fd;
        if (victim < 0)
            return; /* every connection is active: new ones wait in the kernel's backlog */
        shutdown(victim, SHUT_RDWR);
        b->conns[victim].state = CONN_EVICTED;
        b->live--; /* counted again as gone when its disconnect comes */
        b->conns[victim].seq = 0;
        if (b->evicted++ % 1000 == 0)
            GJKD_LOG(GJKD_LOG_WARN, "connection_evicted", 0,
                     "fd=%d: %u connections (max-connections); the longest idle one is shut "
                     "down (evicted_total=%llu)",
                     victim, b->max_live, (unsigned long long)b->evicted);
    }
}

/* Handles every socket-monitor event waiting, then enforces the connection cap. Called
 * before each frontend message is read: libzmq reports a disconnect before it closes the
 * descriptor, so a message from a new connection on a reused descriptor is read only after
 * its predecessor's disconnect, and a descriptor in the table is still that connection's. */
static void monitor_events(broker *b)
{
    if (b->monitor == NULL)
        return;
    for (;;) {
        int events = 0;
        size_t len = sizeof events;
        /* ZMQ_EVENTS processes pending commands: the latest events are seen. */
        if (zmq_getsockopt(b->monitor, ZMQ_EVENTS, &events, &len) != 0 || !(events & ZMQ_POLLIN))
            break;
        uint16_t event;
        uint32_t value;
        if (!gjkd_monitor_recv(b->monitor, ZMQ_DONTWAIT, &event, &value))
            break;
        int fd = (int)value;
        if (event == ZMQ_EVENT_ACCEPTED) {
            connection *c = conn_at(b, fd);
            if (c != NULL) {
                c->state = CONN_IDLE;
                c->seq = ++b->accepted;
                b->live++;
            }
        } else if (event == ZMQ_EVENT_DISCONNECTED) {
            connection *c = conn_at(b, fd);
            if (c == NULL)
                continue;
            if (c->state == CONN_IDLE || c->state == CONN_ACTIVE)
                b->live--;
            c->state = CONN_GONE;
            size_t dropped = queue_drop_fd(&b->queue, fd);
            if (dropped > 0) {
                b->dropped += dropped;
                gjkd_service_set_queued(b->service, (uint32_t)b->queue.count);
                GJKD_LOG(GJKD_LOG_DEBUG, "client_gone", 0,
                         "fd=%d dropped=%zu dropped_total=%llu: its queued requests", fd, dropped,
                         (unsigned long long)b->dropped);
            }
        } else if (b->auth != NULL) {
            gjkd_auth_handshake_event(b->auth, "request", event, value);
        }
    }
    enforce_cap(b);
}

/* A probe (health, stats) has an empty body: anything larger than this is not one and is not
 * unpacked on the broker's thread. */
enum { PROBE_MAX_BYTES = 256 };
/* request_id is field 1, written first by every protobuf encoder: the broker reads it from
 * this prefix only (a message of millions of tiny fields is not walked on its thread). */
enum { PEEK_PREFIX_BYTES = 4096 };

/* Sends a malloc'd reply to the client with the given framing (consumes identity and reply). */
static void send_reply(void *frontend, zmq_msg_t *identity, int framing, uint8_t *reply,
                       size_t size)
{
    zmq_msg_send(identity, frontend, ZMQ_SNDMORE);
    if (framing == FRAMING_DELIMITED)
        zmq_send(frontend, "", 0, ZMQ_SNDMORE);
    send_owned(frontend, reply, size);
}

/* Answers a request the broker will not pass on (consumes identity). */
static void refuse(broker *b, zmq_msg_t *identity, int framing, uint64_t request_id, gjkd_code code,
                   const char *message)
{
    uint8_t *reply;
    size_t reply_size;
    gjkd_service_reply_error(b->service, request_id, code, message, &reply, &reply_size);
    send_reply(b->frontend, identity, framing, reply, reply_size);
}

/* The worker's index from its routing id "w<index>", -1 if it is not one of ours. */
static int worker_index(const broker *b, zmq_msg_t *worker_id)
{
    size_t n = zmq_msg_size(worker_id);
    const char *p = zmq_msg_data(worker_id);
    if (n < 2 || n > 6 || p[0] != 'w')
        return -1;
    int v = 0;
    for (size_t i = 1; i < n; ++i) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = 10 * v + (p[i] - '0');
    }
    return v < b->n_workers ? v : -1;
}

/* The deadline of a request read now (issue 22, finding 13): its deadline_ms, or else
 * --request-timeout-seconds, from now; 0 = none. */
static uint64_t request_deadline(uint32_t deadline_ms, const gjkd_limits *limits)
{
    if (deadline_ms > 0)
        return gjkd_now_ns() + (uint64_t)deadline_ms * 1000000u;
    if (limits->request_timeout_seconds > 0)
        return gjkd_now_ns() + (uint64_t)(limits->request_timeout_seconds * 1e9);
    return 0;
}

/* Hands [identity][framing + deadline + key][payload] to the idle worker `worker_id` (all
 * three consumed) and remembers the request as in flight. The second frame is the framing
 * byte, the request's deadline (8 bytes, host order; 0 = none) and the caller key: the
 * payload's "User-Id" (the client's CURVE public key in Z85, set by the ZAP handler; the
 * property travels with the message through the queue), nothing without CURVE. */
static void send_to_worker(broker *b, zmq_msg_t *worker_id, zmq_msg_t *identity, uint8_t framing,
                           uint64_t deadline_ns, zmq_msg_t *payload)
{
    int w = worker_index(b, worker_id);
    if (w >= 0) {
        in_flight *f = &b->work[w];
        f->busy = true;
        zmq_msg_init(&f->identity);
        zmq_msg_copy(&f->identity, identity);
        f->framing = framing;
        uint32_t body, deadline_ms;
        size_t size = zmq_msg_size(payload);
        gjkd_request_peek(zmq_msg_data(payload),
                          size < PEEK_PREFIX_BYTES ? size : PEEK_PREFIX_BYTES, &f->request_id,
                          &deadline_ms, &body);
        f->bytes = size;
        b->work_bytes += size;
    }
    zmq_msg_send(worker_id, b->backend, ZMQ_SNDMORE);
    zmq_msg_send(identity, b->backend, ZMQ_SNDMORE);
    const char *key = zmq_msg_gets(payload, "User-Id");
    size_t key_len = key != NULL ? strlen(key) : 0;
    if (key_len > GJKD_CALLER_KEY_MAX) /* cannot be: with CURVE frontend_message passed only */
        key_len = 0;                   /* keys of 40 characters (gjkd_auth_allows_user) */
    uint8_t second[1 + sizeof deadline_ns + GJKD_CALLER_KEY_MAX];
    second[0] = framing;
    memcpy(second + 1, &deadline_ns, sizeof deadline_ns);
    if (key_len > 0)
        memcpy(second + 1 + sizeof deadline_ns, key, key_len);
    zmq_send(b->backend, second, 1 + sizeof deadline_ns + key_len, ZMQ_SNDMORE);
    zmq_msg_send(payload, b->backend, 0);
}

/* The worker w finished (or never had) its request. */
static void work_done(broker *b, int w)
{
    if (w < 0 || !b->work[w].busy)
        return;
    b->work[w].busy = false;
    b->work_bytes -= b->work[w].bytes;
    zmq_msg_close(&b->work[w].identity);
}

/* Reads one client message and answers it (a probe, wrong framing, a refusal), passes it to
 * an idle worker, or queues it. The frontend is read whether or not a worker is free, so that
 * health and stats never wait behind long queries, and a request beyond a limit or the memory
 * budget is refused at once, before it is queued. */
static void frontend_message(broker *b)
{
    monitor_events(b);
    zmq_msg_t f[4];
    int total;
    int n = gjkd_transport_recv_frames(b->frontend, f, 4, &total);
    if (n < 1)
        return;
    /* A message its client sent just before it disconnected: nobody would read the reply.
     * (The descriptor is a property of the frames read from the wire, not of the identity
     * frame ROUTER makes.) */
    int fd = zmq_msg_get(&f[n - 1], ZMQ_SRCFD);
    connection *conn = fd >= 0 && (size_t)fd < b->n_conns ? &b->conns[fd] : NULL;
    if (conn != NULL && (conn->state == CONN_GONE || conn->state == CONN_EVICTED)) {
        b->dropped++;
        close_frames(f, n);
        return;
    }
    if (conn != NULL && conn->state == CONN_IDLE)
        conn->state = CONN_ACTIVE;
    /* [identity][payload] or [identity][empty][payload] */
    int framing = -1;
    if (total == 2)
        framing = FRAMING_BARE;
    else if (total == 3 && zmq_msg_size(&f[1]) == 0)
        framing = FRAMING_DELIMITED;
    if (framing < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "wrong framing: %d frames; send [payload] or [empty][payload]",
                 total - 1);
        refuse(b, &f[0], total >= 3 && zmq_msg_size(&f[1]) == 0, 0, GJKD_CODE(MALFORMED), msg);
        close_frames(f + 1, n - 1);
        return;
    }
    if (framing == FRAMING_DELIMITED)
        zmq_msg_close(&f[1]);
    zmq_msg_t *identity = &f[0], *payload = &f[n - 1];
    const uint8_t *data = zmq_msg_data(payload);
    size_t size = zmq_msg_size(payload);
    uint64_t request_id;
    uint32_t body, deadline_ms;
    bool whole = gjkd_request_peek(data, size < PEEK_PREFIX_BYTES ? size : PEEK_PREFIX_BYTES,
                                   &request_id, &deadline_ms, &body);
    if (b->auth != NULL && !gjkd_auth_allows_user(b->auth, zmq_msg_gets(payload, "User-Id"))) {
        refuse(b, identity, framing, request_id, GJKD_CODE(UNAUTHENTICATED),
               "this client's key is no longer on the allow-list (reloaded)");
        zmq_msg_close(payload);
        return;
    }
    if (size <= PROBE_MAX_BYTES && whole && gjkd_request_is_probe(body)) {
        uint8_t *reply;
        size_t reply_size;
        gjkd_service_handle_probe(b->service, data, size, &reply, &reply_size);
        send_reply(b->frontend, identity, framing, reply, reply_size);
        zmq_msg_close(payload);
        return;
    }
    gjkd_limits limits = gjkd_service_limits(b->service);
    char msg[256];
    gjkd_code code = GJKD_CODE(RESOURCE_EXHAUSTED);
    uint64_t held = b->queue.bytes + b->work_bytes;
    if (b->draining) {
        code = GJKD_CODE(UNAVAILABLE);
        snprintf(msg, sizeof msg, "the daemon is shutting down (draining): no new requests");
    } else if (size > limits.max_message_bytes) {
        snprintf(msg, sizeof msg, "request of %zu bytes, the limit is %llu (max-message-bytes)",
                 size, (unsigned long long)limits.max_message_bytes);
    } else if (held + size > limits.max_held_bytes) {
        snprintf(msg, sizeof msg,
                 "the daemon holds %llu bytes of requests; with this request's %zu "
                 "that is over its memory budget of %llu (max-held-bytes); try again later",
                 (unsigned long long)held, size, (unsigned long long)limits.max_held_bytes);
    } else if (b->n_idle > 0) {
        send_to_worker(b, &b->idle[--b->n_idle], identity, (uint8_t)framing,
                       request_deadline(deadline_ms, &limits), payload);
        return;
    } else {
        char why[200];
        if (queue_push(&b->queue, identity, fd, (uint8_t)framing,
                       request_deadline(deadline_ms, &limits), payload, &limits, why, sizeof why)) {
            gjkd_service_set_queued(b->service, (uint32_t)b->queue.count);
            return;
        }
        snprintf(msg, sizeof msg, "every worker is busy and %s; try again later", why);
    }
    refuse(b, identity, framing, request_id, code, msg);
    zmq_msg_close(payload);
}

/* Handles one message from a worker: READY or [client][framing][reply]. The worker is idle
 * again: it takes the oldest queued request, or joins the idle list. */
static void backend_message(broker *b)
{
    zmq_msg_t f[4];
    int total;
    int n = gjkd_transport_recv_frames(b->backend, f, 4, &total);
    if (n < 2) {
        close_frames(f, n);
        return;
    }
    if (n == 4) {
        int framing = zmq_msg_size(&f[2]) >= 1 ? *(uint8_t *)zmq_msg_data(&f[2]) : 0;
        zmq_msg_send(&f[1], b->frontend, ZMQ_SNDMORE);
        if (framing == FRAMING_DELIMITED)
            zmq_send(b->frontend, "", 0, ZMQ_SNDMORE);
        zmq_msg_send(&f[3], b->frontend, 0);
        zmq_msg_close(&f[2]);
    } else {
        close_frames(f + 1, n - 1); /* READY */
    }
    work_done(b, worker_index(b, &f[0]));
    if (b->queue.count > 0) {
        queued_request r;
        queue_pop(&b->queue, &r);
        gjkd_service_set_queued(b->service, (uint32_t)b->queue.count);
        send_to_worker(b, &f[0], &r.identity, r.framing, r.deadline_ns, &r.payload);
    } else {
        b->idle[b->n_idle++] = f[0];
    }
}

/* The drain window ended with requests still being worked on: their clients get UNAVAILABLE
 * now (the workers' late replies are discarded), rather than silence. */
static void refuse_in_flight(broker *b)
{
    for (int w = 0; w < b->n_workers; ++w) {
        in_flight *f = &b->work[w];
        if (!f->busy)
            continue;
        GJKD_LOG(GJKD_LOG_WARN, "drain_timeout", f->request_id,
                 "worker=%d: the request outlived the drain window (drain-seconds); its client "
                 "gets UNAVAILABLE and the reply is discarded",
                 w);
        zmq_msg_t id;
        zmq_msg_init(&id);
        zmq_msg_copy(&id, &f->identity);
        refuse(b, &id, f->framing, f->request_id, GJKD_CODE(UNAVAILABLE),
               "the daemon stopped before this request finished (drain-seconds)");
        work_done(b, w);
    }
}

/* At exit: every request still queued gets UNAVAILABLE rather than silence. */
static void refuse_queued(broker *b)
{
    while (b->queue.count > 0) {
        queued_request r;
        queue_pop(&b->queue, &r);
        uint64_t request_id;
        uint32_t body, deadline_ms;
        size_t size = zmq_msg_size(&r.payload);
        gjkd_request_peek(zmq_msg_data(&r.payload),
                          size < PEEK_PREFIX_BYTES ? size : PEEK_PREFIX_BYTES, &request_id,
                          &deadline_ms, &body);
        refuse(b, &r.identity, r.framing, request_id, GJKD_CODE(UNAVAILABLE),
               "the daemon stopped before a worker was free");
        zmq_msg_close(&r.payload);
    }
    gjkd_service_set_queued(b->service, 0);
    queue_free(&b->queue);
}

/* Descriptors kept free of connections: the store's files, the streams, libzmq's own. */
enum { FD_RESERVE = 64 };

/* max-connections, but at most the open-file limit less the reserve. */
static uint32_t connection_cap(uint32_t configured)
{
    uint32_t cap = configured > 0 ? configured : UINT32_MAX;
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
        uint64_t room =
            files.rlim_cur > 2 * FD_RESERVE ? files.rlim_cur - FD_RESERVE : files.rlim_cur / 2;
        if (room < cap) {
            GJKD_LOG(GJKD_LOG_INFO, "connection_cap", 0,
                     "max_connections=%u open_file_limit=%llu: at most %llu connections",
                     configured, (unsigned long long)files.rlim_cur, (unsigned long long)room);
            cap = (uint32_t)room;
        }
    }
    return cap;
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
    broker b;
    memset(&b, 0, sizeof b);
    b.frontend = frontend;
    b.backend = backend;
    b.service = def->service;
    b.auth = def->auth;
    b.idle = calloc((size_t)def->threads, sizeof *b.idle);
    b.work = calloc((size_t)def->threads, sizeof *b.work);
    b.n_workers = def->threads;
    int started = 0, rc = -1, ready_seen = 0;
    if (workers == NULL || b.idle == NULL || b.work == NULL) {
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    if (!gjkd_transport_secure_frontend(frontend, def, limits.max_message_bytes, err, err_size))
        goto done;
    /* The monitor's peer connects first (inproc allows it) so that no event is lost. */
    char monitor_name[80];
    snprintf(monitor_name, sizeof monitor_name, "inproc://gjkd-frontend-monitor-%p", (void *)def);
    b.monitor = zmq_socket(ctx, ZMQ_PAIR);
    zmq_setsockopt(b.monitor, ZMQ_LINGER, &zero, sizeof zero);
    b.max_live = connection_cap(def->max_connections);
    int monitored = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED |
                    (def->auth != NULL ? GJKD_AUTH_MONITOR_EVENTS : 0);
    if (b.monitor == NULL || zmq_connect(b.monitor, monitor_name) != 0 ||
        zmq_socket_monitor(frontend, monitor_name, monitored) != 0) {
        snprintf(err, err_size, "cannot monitor the request socket: %s", zmq_strerror(zmq_errno()));
        goto done;
    }
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
        if (zmq_poll(&item, 1, 100) > 0) {
            int before = b.n_idle;
            backend_message(&b);
            ready_seen += b.n_idle - before;
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
            b.draining = true; /* from now on new requests get UNAVAILABLE */
            gjkd_service_set_draining(def->service, true);
            drain_deadline = now_seconds() + def->drain_seconds;
            quiet_since = now_seconds();
            GJKD_LOG(GJKD_LOG_INFO, "draining", 0, "in_flight=%d queued=%zu", started - b.n_idle,
                     b.queue.count);
        }
        if (atomic_exchange(def->reload, 0)) {
            if (def->on_reload != NULL)
                def->on_reload(def->user, frontend);
        }
        if (draining) {
            /* Done when nothing is in flight or queued and the frontend has been quiet for a
             * moment: requests already sent by connected clients are still answered. */
            double now = now_seconds();
            if (b.n_idle == started && b.queue.count == 0 && now - quiet_since > 0.2)
                break;
            if (now > drain_deadline) {
                refuse_in_flight(&b);
                break;
            }
        }
        zmq_pollitem_t items[3] = {{backend, 0, ZMQ_POLLIN, 0},
                                   {frontend, 0, ZMQ_POLLIN, 0},
                                   {b.monitor, 0, ZMQ_POLLIN, 0}};
        int p = zmq_poll(items, 3, draining ? 50 : 200);
        if (p < 0) {
            if (zmq_errno() == EINTR)
                continue; /* a signal: the flags are checked at the top */
            snprintf(err, err_size, "poll: %s", zmq_strerror(zmq_errno()));
            goto stop_workers;
        }
        if (items[2].revents & ZMQ_POLLIN)
            monitor_events(&b);
        if (items[0].revents & ZMQ_POLLIN)
            backend_message(&b);
        if (items[1].revents & ZMQ_POLLIN) {
            quiet_since = now_seconds();
            frontend_message(&b);
        }
    }
    rc = 0;
    GJKD_LOG(GJKD_LOG_INFO, "drained", 0, "in_flight=%d queued=%zu", started - b.n_idle,
             b.queue.count);
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
    refuse_queued(&b);
    for (int i = 0; i < b.n_idle; ++i)
        zmq_msg_close(&b.idle[i]);
    free(b.idle);
    for (int w = 0; w < b.n_workers; ++w)
        work_done(&b, w);
    free(b.work);
    if (b.monitor != NULL) {
        zmq_socket_monitor(frontend, NULL, 0);
        zmq_close(b.monitor);
    }
    free(b.conns);
    zmq_close(frontend);
    zmq_close(backend);
    free(workers);
    return rc;
}
