/* gjkd_client.c — libgjkd-client: requests over a ZeroMQ DEALER with per-attempt timeout and
 * reconnect-and-resend retries (Lazy Pirate); replies turned into plain C structs.
 *
 * Result structs are the first member of a private box that also holds the unpacked
 * Response their strings point into, so a result is one free of the box plus the response. */
#define _POSIX_C_SOURCE 200809L
#include "gjkd_client.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#define DEFAULT_ENDPOINT "tcp://127.0.0.1:7471"

struct gjkd_client {
    void *context;
    bool own_context;
    void *socket;
    void *monitor; /* PAIR: handshake events of `socket` (see open_socket) */
    unsigned monitor_serial;
    char *endpoint;
    int timeout_ms;
    int retries;
    uint64_t next_id;
    uint64_t revision;
    bool expect;
    uint64_t expected_revision;
    bool curve;
    char server_key[41], secret_key[41], public_key[41]; /* Z85, with curve */
    char error[512];
};

const char *gjkd_status_name(int status)
{
    switch (status) {
#define GJKD_X_NAME(name, value)                                                                   \
    case value:                                                                                    \
        return #name;
        GJKD_STATUS_TABLE(GJKD_X_NAME)
#undef GJKD_X_NAME
    default:
        return "UNKNOWN";
    }
}

__attribute__((format(printf, 3, 4))) static gjkd_status fail(gjkd_client *c, gjkd_status status,
                                                              const char *fmt, ...)
{
    int n = snprintf(c->error, sizeof c->error, "%s: ", gjkd_status_name((int)status));
    if (n < 0 || (size_t)n >= sizeof c->error)
        return status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error + n, sizeof c->error - (size_t)n, fmt, ap);
    va_end(ap);
    return status;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------ lifetime */

gjkd_client_options gjkd_client_default_options(void)
{
    gjkd_client_options o = {DEFAULT_ENDPOINT, 5000, 2, NULL, NULL, NULL};
    return o;
}

/* True if text is a Z85 key: 40 characters that decode to 32 bytes. */
static bool is_z85_key(const char *text)
{
    uint8_t key[32];
    return text != NULL && strlen(text) == 40 && zmq_z85_decode(key, text) != NULL;
}

bool gjkd_client_read_key_file(const char *path, bool secret, char z85[41], char *err,
                               size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, err_size, "cannot open key file '%s': %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (secret && fstat(fileno(f), &st) == 0 && (st.st_mode & 077) != 0) {
        snprintf(err, err_size,
                 "secret key file '%s' is accessible by group or others (mode %04o); "
                 "run: chmod 600 '%s'",
                 path, (unsigned)(st.st_mode & 07777), path);
        fclose(f);
        return false;
    }
    char line[256];
    bool found = false, ok = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            ++p;
        size_t n = strlen(p);
        while (n > 0 &&
               (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
            p[--n] = '\0';
        if (n == 0 || p[0] == '#')
            continue;
        found = true;
        ok = is_z85_key(p);
        if (ok)
            memcpy(z85, p, 41);
    }
    fclose(f);
    if (!found)
        snprintf(err, err_size, "key file '%s' holds no key", path);
    else if (!ok)
        snprintf(err, err_size, "key file '%s': not a Z85 key (expected 40 characters)", path);
    return ok;
}

/* ------------------------------------------------------------------ handshake monitor */

/* A daemon that refuses this client does so in the ZMTP handshake (CURVE/ZAP), which sends no
 * reply: without the socket monitor the call could only time out. These events tell the three
 * refusals apart (seen with libzmq 4.3): FAILED_AUTH carries the ZAP status (400: the public
 * key is not on the allow-list), FAILED_PROTOCOL with MECHANISM_MISMATCH is one side with CURVE
 * and the other without, FAILED_NO_DETAIL a daemon that could not decrypt our HELLO (a wrong
 * server key). None of them is transient, so the call ends with GJKD_UNAUTHENTICATED. */
#define HANDSHAKE_FAILED                                                                           \
    (ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |                       \
     ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)

static void close_socket(gjkd_client *c)
{
    if (c->monitor) {
        zmq_socket_monitor(c->socket, NULL, 0);
        zmq_close(c->monitor);
        c->monitor = NULL;
    }
    if (c->socket)
        zmq_close(c->socket);
    c->socket = NULL;
}

/* Starts the monitor of c->socket (before it connects, so no event is missed). Without it the
 * client still works, refusals just end as timeouts. */
static void open_monitor(gjkd_client *c)
{
    char address[96];
    snprintf(address, sizeof address, "inproc://gjkd-client-monitor-%p-%u", (void *)c,
             ++c->monitor_serial);
    if (zmq_socket_monitor(c->socket, address, HANDSHAKE_FAILED) != 0)
        return;
    c->monitor = zmq_socket(c->context, ZMQ_PAIR);
    if (c->monitor == NULL || zmq_connect(c->monitor, address) != 0) {
        if (c->monitor)
            zmq_close(c->monitor);
        c->monitor = NULL;
        zmq_socket_monitor(c->socket, NULL, 0);
    }
}

/* Reads one monitor event; true (with c->error set) if it is a refused handshake. */
static bool handshake_refused(gjkd_client *c)
{
    zmq_msg_t frame;
    zmq_msg_init(&frame);
    int n = zmq_msg_recv(&frame, c->monitor, ZMQ_DONTWAIT);
    uint16_t event = 0;
    uint32_t value = 0;
    if (n >= 6) {
        const unsigned char *d = zmq_msg_data(&frame);
        memcpy(&event, d, sizeof event);
        memcpy(&value, d + 2, sizeof value);
    }
    bool more = n >= 0 && zmq_msg_more(&frame);
    zmq_msg_close(&frame);
    if (more) { /* the second frame: the endpoint */
        zmq_msg_init(&frame);
        zmq_msg_recv(&frame, c->monitor, ZMQ_DONTWAIT);
        zmq_msg_close(&frame);
    }
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
        fail(c, GJKD_UNAUTHENTICATED,
             "\"%s\" refused this client's CURVE key (ZAP status %u): its public key %s is not "
             "on the daemon's allow-list",
             c->endpoint, (unsigned)value, c->public_key);
    } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL &&
               value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH) {
        fail(c, GJKD_UNAUTHENTICATED,
             c->curve ? "\"%s\" does not use CURVE, this client does (drop the keys)"
                      : "\"%s\" requires CURVE: give the daemon's public key and a client key",
             c->endpoint);
    } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL ||
               event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) {
        fail(c, GJKD_UNAUTHENTICATED, "the handshake with \"%s\" failed (%s 0x%x): %s", c->endpoint,
             event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL ? "protocol error" : "closed, errno",
             (unsigned)value,
             c->curve ? "is the daemon's public key right?"
                      : "does it require CURVE? (give its public key and a client key)");
    } else {
        return false;
    }
    return true;
}

static gjkd_status open_socket(gjkd_client *c)
{
    c->socket = zmq_socket(c->context, ZMQ_DEALER);
    if (c->socket == NULL)
        return fail(c, GJKD_TRANSPORT, "zmq_socket: %s", zmq_strerror(zmq_errno()));
    int linger = 0;
    zmq_setsockopt(c->socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(c->socket, ZMQ_SNDTIMEO, &c->timeout_ms, sizeof c->timeout_ms);
    if (c->curve && (zmq_setsockopt(c->socket, ZMQ_CURVE_SERVERKEY, c->server_key, 40) != 0 ||
                     zmq_setsockopt(c->socket, ZMQ_CURVE_PUBLICKEY, c->public_key, 40) != 0 ||
                     zmq_setsockopt(c->socket, ZMQ_CURVE_SECRETKEY, c->secret_key, 40) != 0)) {
        int e = zmq_errno();
        zmq_close(c->socket);
        c->socket = NULL;
        return fail(c, GJKD_TRANSPORT, "cannot set the CURVE keys: %s", zmq_strerror(e));
    }
    open_monitor(c);
    if (zmq_connect(c->socket, c->endpoint) != 0) {
        int e = zmq_errno();
        close_socket(c);
        return fail(c, GJKD_TRANSPORT, "cannot connect to \"%s\": %s", c->endpoint,
                    zmq_strerror(e));
    }
    return GJKD_OK;
}

gjkd_status gjkd_client_create(const gjkd_client_options *options, gjkd_client **out)
{
    gjkd_client_options o = options ? *options : gjkd_client_default_options();
    *out = NULL;
    if (o.endpoint == NULL || o.endpoint[0] == '\0')
        o.endpoint = DEFAULT_ENDPOINT;
    if (o.timeout_ms <= 0 || o.retries < 0)
        return GJKD_CLIENT_ERROR;
    bool curve = o.curve_server_key != NULL || o.curve_secret_key != NULL;
    if (curve && (!is_z85_key(o.curve_server_key) || !is_z85_key(o.curve_secret_key)))
        return GJKD_CLIENT_ERROR; /* CURVE needs both keys, 40 characters of Z85 each */
    gjkd_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return GJKD_CLIENT_ERROR;
    if (curve) {
        c->curve = true;
        memcpy(c->server_key, o.curve_server_key, 41);
        memcpy(c->secret_key, o.curve_secret_key, 41);
        if (zmq_curve_public(c->public_key, c->secret_key) != 0) {
            free(c);
            return GJKD_CLIENT_ERROR;
        }
    }
    c->endpoint = strdup(o.endpoint);
    c->timeout_ms = o.timeout_ms;
    c->retries = o.retries;
    /* Request ids start somewhere different for every client, which makes replies easy to
     * tell apart in daemon logs. */
    c->next_id = ((uint64_t)getpid() << 32) ^ (uint64_t)now_ms() ^ (uint64_t)(uintptr_t)c;
    c->next_id &= 0x7fffffffffffffffull;
    c->context = o.zmq_context;
    if (c->context == NULL) {
        c->context = zmq_ctx_new();
        c->own_context = true;
    }
    if (c->endpoint == NULL || c->context == NULL || open_socket(c) != GJKD_OK) {
        gjkd_client_destroy(&c);
        return GJKD_TRANSPORT;
    }
    *out = c;
    return GJKD_OK;
}

void gjkd_client_destroy(gjkd_client **client)
{
    if (client == NULL || *client == NULL)
        return;
    gjkd_client *c = *client;
    close_socket(c);
    if (c->own_context && c->context)
        zmq_ctx_term(c->context);
    free(c->endpoint);
    memset(c->secret_key, 0, sizeof c->secret_key);
    free(c);
    *client = NULL;
}

const char *gjkd_client_error(const gjkd_client *client)
{
    return client->error;
}
uint64_t gjkd_client_revision(const gjkd_client *client)
{
    return client->revision;
}

void gjkd_client_expect_revision(gjkd_client *client, uint64_t revision)
{
    client->expect = true;
    client->expected_revision = revision;
}

/* ------------------------------------------------------------------ one round trip */

/* Receives one multipart message into *payload (its last frame; the caller closes it). False,
 * with *payload closed, if the framing is not [payload] or [empty][payload]. */
static bool receive_reply(void *socket, zmq_msg_t *payload)
{
    int frames = 0;
    bool ok = true;
    for (;;) {
        zmq_msg_init(payload);
        if (zmq_msg_recv(payload, socket, 0) < 0) {
            zmq_msg_close(payload);
            return false;
        }
        frames++;
        if (!zmq_msg_more(payload))
            break;
        if (!(frames == 1 && zmq_msg_size(payload) == 0))
            ok = false; /* only an empty delimiter may precede the payload */
        zmq_msg_close(payload);
    }
    if (!ok)
        zmq_msg_close(payload);
    return ok;
}

static gjkd_status attempt_call(gjkd_client *c, Gjkd__V1__Request *request,
                                Gjkd__V1__Response **response);

static bool is_scene_change(Gjkd__V1__Request__BodyCase body)
{
    return body == GJKD__V1__REQUEST__BODY_PUT_ROBOT ||
           body == GJKD__V1__REQUEST__BODY_REMOVE_ROBOT ||
           body == GJKD__V1__REQUEST__BODY_PUT_OBSTACLE ||
           body == GJKD__V1__REQUEST__BODY_REMOVE_OBSTACLE ||
           body == GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS ||
           body == GJKD__V1__REQUEST__BODY_LOAD_SCENE;
}

/* 16 random bytes (a change token): /dev/urandom, else the clock and a counter (unique within
 * the process, which is what a retry needs). */
static void random_token(uint8_t out[16])
{
    static unsigned counter;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, 16) : -1;
    if (fd >= 0)
        close(fd);
    if (n == 16)
        return;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t v[2] = {(uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec,
                     ((uint64_t)getpid() << 32) ^ ++counter};
    memcpy(out, v, 16);
}

gjkd_status gjkd_client_call(gjkd_client *c, Gjkd__V1__Request *request,
                             Gjkd__V1__Response **response)
{
    *response = NULL;
    c->error[0] = '\0';
    if (c->expect) {
        request->precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
        request->expected_revision = c->expected_revision;
        c->expect = false;
    }
    /* One request_id and one change token for every attempt of this call (gjkd.proto,
     * Request.change_token): a retried change runs once. */
    uint8_t token[16];
    if (request->change_token.len == 0 && is_scene_change(request->body_case)) {
        random_token(token);
        request->change_token.data = token;
        request->change_token.len = sizeof token;
    }
    request->request_id = ++c->next_id;
    /* The daemon gives up on it when this attempt would (Request.deadline_ms). */
    bool own_deadline = request->deadline_ms == 0;
    if (own_deadline)
        request->deadline_ms = (uint32_t)c->timeout_ms;
    gjkd_status status = GJKD_TIMEOUT;
    for (int attempt = 0; attempt <= c->retries && status == GJKD_TIMEOUT; attempt++)
        status = attempt_call(c, request, response);
    if (own_deadline)
        request->deadline_ms = 0;
    if (request->change_token.data == token) {
        request->change_token.data = NULL; /* not the caller's: do not leave it pointing here */
        request->change_token.len = 0;
    }
    if (status == GJKD_TIMEOUT)
        return fail(c, GJKD_TIMEOUT, "no reply from \"%s\" after %d attempt%s of %d ms",
                    c->endpoint, c->retries + 1, c->retries ? "s" : "", c->timeout_ms);
    return status;
}

/* One attempt of a call: GJKD_TIMEOUT (the socket closed) when no reply came in time. */
static gjkd_status attempt_call(gjkd_client *c, Gjkd__V1__Request *request,
                                Gjkd__V1__Response **response)
{
    {
        if (c->socket == NULL && open_socket(c) != GJKD_OK)
            return GJKD_TRANSPORT;
        /* Packed straight into the message ZeroMQ sends (no extra copy). */
        size_t len = gjkd__v1__request__get_packed_size(request);
        zmq_msg_t msg;
        if (zmq_msg_init_size(&msg, len) != 0)
            return fail(c, GJKD_CLIENT_ERROR, "out of memory packing a request of %zu bytes", len);
        gjkd__v1__request__pack(request, zmq_msg_data(&msg));
        /* [empty delimiter][payload]: the framing a REQ socket would use. */
        int rc = zmq_send(c->socket, "", 0, ZMQ_SNDMORE);
        if (rc == 0)
            rc = zmq_msg_send(&msg, c->socket, 0);
        if (rc < 0)
            zmq_msg_close(&msg); /* sent messages belong to ZeroMQ */
        if (rc < 0 && zmq_errno() != EAGAIN)
            return fail(c, GJKD_TRANSPORT, "send to \"%s\": %s", c->endpoint,
                        zmq_strerror(zmq_errno()));

        int64_t deadline = now_ms() + c->timeout_ms;
        while (rc >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0)
                break;
            zmq_pollitem_t item[2] = {{c->socket, 0, ZMQ_POLLIN, 0},
                                      {c->monitor, 0, ZMQ_POLLIN, 0}};
            int n = zmq_poll(item, c->monitor ? 2 : 1, (long)left);
            if (n < 0) {
                if (zmq_errno() == EINTR)
                    continue;
                return fail(c, GJKD_TRANSPORT, "poll: %s", zmq_strerror(zmq_errno()));
            }
            if (n == 0)
                break;
            if (c->monitor && (item[1].revents & ZMQ_POLLIN) && handshake_refused(c)) {
                close_socket(c); /* the next call starts a fresh handshake */
                return GJKD_UNAUTHENTICATED;
            }
            if (!(item[0].revents & ZMQ_POLLIN))
                continue;
            zmq_msg_t payload;
            if (!receive_reply(c->socket, &payload))
                continue; /* not a reply of ours: ignore it */
            size_t size = zmq_msg_size(&payload);
            Gjkd__V1__Response *r = gjkd__v1__response__unpack(NULL, size, zmq_msg_data(&payload));
            zmq_msg_close(&payload);
            if (r == NULL)
                return fail(c, GJKD_BAD_REPLY, "unparseable reply (%zu bytes) from \"%s\"", size,
                            c->endpoint);
            /* request_id 0: the daemon could not parse our request at all (MALFORMED). */
            if (r->request_id != request->request_id && r->request_id != 0) {
                gjkd__v1__response__free_unpacked(r, NULL);
                continue; /* a stale reply */
            }
            c->revision = r->revision;
            int code = r->status ? (int)r->status->code : GJKD_UNSPECIFIED;
            if (code != GJKD_OK)
                fail(c, (gjkd_status)code, "%s",
                     r->status && r->status->message[0] ? r->status->message
                                                        : "(no message from the daemon)");
            *response = r;
            return (gjkd_status)code;
        }
        /* Timed out: drop the socket (and anything queued on it) and try on a fresh one. */
        close_socket(c);
    }
    return GJKD_TIMEOUT;
}

/* Runs a request and checks that an OK reply carries the expected body (0 = none needed). */
static gjkd_status transact(gjkd_client *c, Gjkd__V1__Request *req, int body_case,
                            Gjkd__V1__Response **out)
{
    gjkd_status s = gjkd_client_call(c, req, out);
    if (s != GJKD_OK) {
        if (*out) {
            gjkd__v1__response__free_unpacked(*out, NULL);
            *out = NULL;
        }
        return s;
    }
    if (body_case != 0 && (int)(*out)->body_case != body_case) {
        gjkd__v1__response__free_unpacked(*out, NULL);
        *out = NULL;
        return fail(c, GJKD_BAD_REPLY, "reply without the expected body (case %d)", body_case);
    }
    return GJKD_OK;
}

/* ------------------------------------------------------------------ conversions */

static gjkd_vec3 vec3(const Gjkd__V1__Vec3 *v)
{
    gjkd_vec3 r = {0.0, 0.0, 0.0};
    if (v) {
        r.x = v->x;
        r.y = v->y;
        r.z = v->z;
    }
    return r;
}

static gjkd_pose pose_of(const Gjkd__V1__Pose *p)
{
    gjkd_pose r = {{1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    if (p && p->position)
        r.p = vec3(p->position);
    if (p && p->orientation) {
        r.q.w = p->orientation->w;
        r.q.x = p->orientation->x;
        r.q.y = p->orientation->y;
        r.q.z = p->orientation->z;
    }
    return r;
}

static const char *str(const char *s)
{
    return s ? s : "";
}

static void gradients_of(const Gjkd__V1__PairResult *p, gjkd_pair *out)
{
    out->gradient_a = p->gradient_a;
    out->gradient_a_count = p->n_gradient_a;
    out->gradient_b = p->gradient_b;
    out->gradient_b_count = p->n_gradient_b;
    out->subgradient = p->subgradient;
}

static void pair_of(const Gjkd__V1__PairResult *p, gjkd_pair *out)
{
    const Gjkd__V1__BodyRef *a = p->body_a, *b = p->body_b;
    out->robot_a = str(a ? a->robot : NULL);
    out->link_a = str(a ? a->link : NULL);
    out->part_a = str(p->part_a);
    out->robot_b = str(b ? b->robot : NULL);
    out->link_b = str(b ? b->link : NULL);
    out->obstacle_b = str(b ? b->obstacle : NULL);
    out->part_b = str(p->part_b);
    out->body_a_id = p->body_a_id;
    out->part_a_index = p->part_a_index;
    out->body_b_id = p->body_b_id;
    out->part_b_index = p->part_b_index;
    out->distance = p->distance;
    out->point_a = vec3(p->point_a);
    out->point_b = vec3(p->point_b);
    out->local_point_a = vec3(p->local_point_a);
    out->local_point_b = vec3(p->local_point_b);
    out->normal = vec3(p->normal);
    out->status = (int)p->status;
    out->iterations = p->iterations;
    out->epa_iterations = p->epa_iterations;
    out->padding = p->padding;
    out->part_pair_count = p->part_pair_count;
    gradients_of(p, out);
}

/* A pair in the compact form (gjkd.proto PairResult.geometry): names, ids and padding from
 * its pair_table entry, the rest from the pair itself. False if the reply is inconsistent. */
enum { COMPACT_GEOMETRY = 15 };

static bool compact_pair_of(const Gjkd__V1__PairResult *p, const Gjkd__V1__TrajectoryResult *t,
                            gjkd_pair *out)
{
    if (p->n_geometry != COMPACT_GEOMETRY || t == NULL || p->pair_index >= t->n_pair_table)
        return false;
    const Gjkd__V1__PairResult *entry = t->pair_table[p->pair_index];
    pair_of(entry, out);
    const double *g = p->geometry;
    gjkd_vec3 *v[5] = {&out->point_a, &out->point_b, &out->local_point_a, &out->local_point_b,
                       &out->normal};
    for (int i = 0; i < 5; i++) {
        v[i]->x = g[3 * i];
        v[i]->y = g[3 * i + 1];
        v[i]->z = g[3 * i + 2];
    }
    out->distance = p->distance;
    out->status = (int)p->status;
    out->iterations = p->iterations;
    out->epa_iterations = p->epa_iterations;
    out->part_pair_count = p->part_pair_count;
    gradients_of(p, out); /* the pair's own, not its table entry's */
    return true;
}

/* Either form; t is the trajectory holding the pair table (NULL for a state query). */
static bool any_pair_of(const Gjkd__V1__PairResult *p, const Gjkd__V1__TrajectoryResult *t,
                        gjkd_pair *out)
{
    if (p->n_geometry != 0)
        return compact_pair_of(p, t, out);
    pair_of(p, out);
    return true;
}

static size_t state_pair_count(const Gjkd__V1__StateResult *s)
{
    return (s->closest ? 1 : 0) + s->n_pairs;
}

/* Fills *out from s, taking its pairs from pairs[0 ..) (closest first); adds the pairs used to
 * *used. t: the trajectory s belongs to (its pair table), or NULL. False on an inconsistent
 * compact pair. */
static bool state_of(const Gjkd__V1__StateResult *s, const Gjkd__V1__TrajectoryResult *t,
                     uint64_t revision, gjkd_pair *pairs, gjkd_state *out, size_t *used_total)
{
    size_t used = 0;
    memset(out, 0, sizeof *out);
    out->evaluated = s->evaluated;
    out->has_min_distance =
        s->min_distance_opt_case == GJKD__V1__STATE_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE;
    out->min_distance = out->has_min_distance ? s->min_distance : 0.0;
    if (s->closest) {
        if (!any_pair_of(s->closest, t, &pairs[used]))
            return false;
        out->closest = &pairs[used++];
    }
    out->pairs = &pairs[used];
    for (size_t i = 0; i < s->n_pairs; i++)
        if (!any_pair_of(s->pairs[i], t, &pairs[used++]))
            return false;
    out->pair_count = s->n_pairs;
    out->colliding = s->colliding;
    out->truncated = s->truncated;
    out->pairs_checked = s->pairs_checked;
    out->pairs_candidate = s->pairs_candidate;
    out->revision = revision;
    *used_total += used;
    return true;
}

/* The waypoints of a columnar trajectory reply (gjkd.proto WaypointColumns) into states[],
 * their closest pairs into pairs[] (names from t's pair table). False if the arrays do not
 * fit together. */
static bool columns_of(const Gjkd__V1__WaypointColumns *c, const Gjkd__V1__TrajectoryResult *t,
                       uint64_t revision, gjkd_pair *pairs, gjkd_state *states)
{
    size_t n = c->n_flags, k = 0, closest = c->n_pair_index;
    if (c->n_min_distance != n || c->n_pairs_checked != n || c->n_pairs_candidate != n ||
        c->n_distance != closest || c->n_status != closest || c->n_iterations != closest ||
        c->n_epa_iterations != closest || c->n_geometry != COMPACT_GEOMETRY * closest)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint32_t f = c->flags[i];
        gjkd_state *s = &states[i];
        memset(s, 0, sizeof *s);
        s->evaluated = f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_EVALUATED;
        s->colliding = f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_COLLIDING;
        s->truncated = f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_TRUNCATED;
        s->has_min_distance = f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_MIN_DISTANCE;
        s->min_distance = s->has_min_distance ? c->min_distance[i] : 0.0;
        s->pairs_checked = c->pairs_checked[i];
        s->pairs_candidate = c->pairs_candidate[i];
        s->revision = revision;
        s->pairs = &pairs[k];
        if (f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_CLOSEST) {
            if (k >= closest || c->pair_index[k] >= t->n_pair_table)
                return false;
            gjkd_pair *out = &pairs[k];
            pair_of(t->pair_table[c->pair_index[k]], out);
            const double *g = c->geometry + COMPACT_GEOMETRY * k;
            gjkd_vec3 *v[5] = {&out->point_a, &out->point_b, &out->local_point_a,
                               &out->local_point_b, &out->normal};
            for (int j = 0; j < 5; j++)
                *v[j] = (gjkd_vec3){g[3 * j], g[3 * j + 1], g[3 * j + 2]};
            out->distance = c->distance[k];
            out->status = (int)c->status[k];
            out->iterations = c->iterations[k];
            out->epa_iterations = c->epa_iterations[k];
            out->part_pair_count = 1; /* columnar: CLOSEST or FIRST_COLLISION, part pairs */
            s->closest = out;
            s->pairs = &pairs[++k];
        }
    }
    return k == closest;
}

/* The pair columns of a reply (gjkd.proto PairColumns, with the waypoints in t->columns) as a
 * gjkd_trajectory_columns view of its arrays. *starts gets the one allocation holding
 * waypoint_start and, with gradients, gradient_a_start and gradient_b_start; *table the pair
 * table as gjkd_pairs (names only). Returns 0, or 1 when the arrays do not fit together, 2 when
 * out of memory. */
static int pair_columns_view(const Gjkd__V1__TrajectoryResult *t, gjkd_trajectory_columns *v,
                             size_t **starts, gjkd_pair **table)
{
    const Gjkd__V1__WaypointColumns *w = t->columns;
    const Gjkd__V1__PairColumns *c = t->pair_columns;
    *starts = NULL;
    *table = NULL;
    memset(v, 0, sizeof *v);
    if (w == NULL || c == NULL)
        return 1;
    size_t n = w->n_flags, m = c->n_waypoint;
    bool gradients = c->n_gradient_a_count > 0 || c->n_gradient_b_count > 0;
    if (w->n_min_distance != n || w->n_pairs_checked != n || w->n_pairs_candidate != n ||
        w->n_pair_index != 0 || c->n_pair_index != m || c->n_distance != m ||
        c->n_geometry != COMPACT_GEOMETRY * m || c->n_status != m || c->n_iterations != m ||
        c->n_epa_iterations != m || c->n_part_pair_count != m ||
        (gradients &&
         (c->n_gradient_a_count != m || c->n_gradient_b_count != m || c->n_subgradient != m)) ||
        (!gradients && (c->n_gradient_a != 0 || c->n_gradient_b != 0 || c->n_subgradient != 0)))
        return 1;
    size_t n_starts = (n + 1) + (gradients ? 2 * (m + 1) : 0);
    *starts = malloc(n_starts * sizeof **starts);
    *table = calloc(t->n_pair_table + 1, sizeof **table);
    if (*starts == NULL || *table == NULL)
        return 2;
    size_t *ws = *starts, k = 0;
    for (size_t i = 0; i < n; i++) {
        ws[i] = k;
        while (k < m && c->waypoint[k] == i)
            k++;
        bool has = (w->flags[i] & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_CLOSEST) != 0;
        if (has != (k > ws[i]))
            return 1;
    }
    ws[n] = k;
    if (k != m) /* a waypoint index out of order or out of range */
        return 1;
    for (size_t j = 0; j < m; j++)
        if (c->pair_index[j] >= t->n_pair_table)
            return 1;
    if (gradients) {
        size_t *ga = ws + n + 1, *gb = ga + m + 1, sa = 0, sb = 0;
        for (size_t j = 0; j < m; j++) {
            ga[j] = sa;
            gb[j] = sb;
            sa += c->gradient_a_count[j];
            sb += c->gradient_b_count[j];
        }
        ga[m] = sa;
        gb[m] = sb;
        if (sa != c->n_gradient_a || sb != c->n_gradient_b)
            return 1;
        v->gradient_a = c->gradient_a;
        v->gradient_b = c->gradient_b;
        v->gradient_a_start = ga;
        v->gradient_b_start = gb;
        v->subgradient = c->subgradient;
    }
    for (size_t e = 0; e < t->n_pair_table; e++)
        pair_of(t->pair_table[e], &(*table)[e]);
    v->waypoint_count = n;
    v->flags = w->flags;
    v->waypoint_min_distance = w->min_distance;
    v->pairs_checked = w->pairs_checked;
    v->pairs_candidate = w->pairs_candidate;
    v->waypoint_start = ws;
    v->pair_count = m;
    v->waypoint = c->waypoint;
    v->pair_index = c->pair_index;
    v->distance = c->distance;
    v->geometry = c->geometry;
    v->status = c->status;
    v->iterations = c->iterations;
    v->epa_iterations = c->epa_iterations;
    v->part_pair_count = c->part_pair_count;
    v->table = *table;
    v->table_count = t->n_pair_table;
    return 0;
}

/* The segment columns of a reply (gjkd.proto SegmentColumns) into v's segment arrays; false
 * when they do not fit together (or name a pair beyond the pair table). */
static bool segment_columns_view(const Gjkd__V1__TrajectoryResult *t, gjkd_trajectory_columns *v)
{
    const Gjkd__V1__SegmentColumns *c = t->segment_columns;
    v->first_contact_segment = -1;
    if (c == NULL) /* none, or SegmentResults (an older daemon: the rows read those) */
        return true;
    size_t n = c->n_verdict;
    if (c->n_t != n || c->n_clearance_lower_bound != n || c->n_pair_index != n ||
        c->n_distance != n || c->n_geometry != COMPACT_GEOMETRY * n || c->n_status != n ||
        c->n_iterations != n || c->n_epa_iterations != n || c->n_part_pair_count != n ||
        c->n_pairs_checked != n || c->n_pairs_undecided != n || c->n_evaluations != n ||
        c->n_evaluated != n || t->n_segments != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (c->pair_index[i] < -1 ||
            (c->pair_index[i] >= 0 && (size_t)c->pair_index[i] >= t->n_pair_table))
            return false;
    v->segment_count = n;
    v->segment_verdict = c->verdict;
    v->segment_t = c->t;
    v->segment_clearance_lower_bound = c->clearance_lower_bound;
    v->segment_pair_index = c->pair_index;
    v->segment_distance = c->distance;
    v->segment_geometry = c->geometry;
    v->segment_status = c->status;
    v->segment_iterations = c->iterations;
    v->segment_epa_iterations = c->epa_iterations;
    v->segment_part_pair_count = c->part_pair_count;
    v->segment_pairs_checked = c->pairs_checked;
    v->segment_pairs_undecided = c->pairs_undecided;
    v->segment_evaluations = c->evaluations;
    v->segment_evaluated = c->evaluated;
    v->first_contact_segment = t->first_contact_segment;
    v->undecided_segments = t->undecided_segments;
    return true;
}

/* The rows of a pair-columns view: pairs[] (v->pair_count) and states[] (v->waypoint_count),
 * as state_of reads the full form: a waypoint's closest is its first pair; its `pairs` list
 * them all in ALL_WITHIN mode (all_pairs), none otherwise. */
static void rows_of_pair_columns(const gjkd_trajectory_columns *v, bool all_pairs,
                                 uint64_t revision, gjkd_pair *pairs, gjkd_state *states)
{
    for (size_t k = 0; k < v->pair_count; k++) {
        gjkd_pair *out = &pairs[k];
        *out = v->table[v->pair_index[k]];
        const double *g = v->geometry + COMPACT_GEOMETRY * k;
        gjkd_vec3 *vec[5] = {&out->point_a, &out->point_b, &out->local_point_a, &out->local_point_b,
                             &out->normal};
        for (int j = 0; j < 5; j++)
            *vec[j] = (gjkd_vec3){g[3 * j], g[3 * j + 1], g[3 * j + 2]};
        out->distance = v->distance[k];
        out->status = (int)v->status[k];
        out->iterations = v->iterations[k];
        out->epa_iterations = v->epa_iterations[k];
        out->part_pair_count = v->part_pair_count[k];
        if (v->gradient_a_start != NULL) {
            out->gradient_a = v->gradient_a + v->gradient_a_start[k];
            out->gradient_a_count = v->gradient_a_start[k + 1] - v->gradient_a_start[k];
            out->gradient_b = v->gradient_b + v->gradient_b_start[k];
            out->gradient_b_count = v->gradient_b_start[k + 1] - v->gradient_b_start[k];
            out->subgradient = v->subgradient[k];
            if (out->gradient_a_count == 0)
                out->gradient_a = NULL;
            if (out->gradient_b_count == 0)
                out->gradient_b = NULL;
        }
    }
    for (size_t i = 0; i < v->waypoint_count; i++) {
        uint32_t f = v->flags[i];
        gjkd_state *s = &states[i];
        size_t first = v->waypoint_start[i], end = v->waypoint_start[i + 1];
        memset(s, 0, sizeof *s);
        s->evaluated = f & GJKD_WAYPOINT_EVALUATED;
        s->colliding = f & GJKD_WAYPOINT_COLLIDING;
        s->truncated = f & GJKD_WAYPOINT_TRUNCATED;
        s->has_min_distance = f & GJKD_WAYPOINT_HAS_MIN_DISTANCE;
        s->min_distance = s->has_min_distance ? v->waypoint_min_distance[i] : 0.0;
        s->pairs_checked = v->pairs_checked[i];
        s->pairs_candidate = v->pairs_candidate[i];
        s->revision = revision;
        s->closest = end > first ? &pairs[first] : NULL;
        s->pairs = &pairs[first];
        s->pair_count = all_pairs ? end - first : 0;
    }
}

/* ------------------------------------------------------------------ health */

typedef struct health_box {
    gjkd_health pub;
    Gjkd__V1__Response *response;
} health_box;

gjkd_status gjkd_health_get(gjkd_client *c, gjkd_health **out)
{
    *out = NULL;
    Gjkd__V1__HealthRequest body = GJKD__V1__HEALTH_REQUEST__INIT;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_HEALTH;
    req.health = &body;
    Gjkd__V1__Response *r;
    gjkd_status s = transact(c, &req, GJKD__V1__RESPONSE__BODY_HEALTH, &r);
    if (s != GJKD_OK)
        return s;
    health_box *box = calloc(1, sizeof *box);
    if (box == NULL) {
        gjkd__v1__response__free_unpacked(r, NULL);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    box->response = r;
    box->pub.serving = r->health->state == GJKD__V1__SERVING_STATE__SERVING_STATE_SERVING;
    box->pub.version = str(r->health->version);
    box->pub.uptime_seconds = r->health->uptime_seconds;
    box->pub.revision = r->health->revision;
    box->pub.persistent = r->health->persistent;
    *out = &box->pub;
    return GJKD_OK;
}

void gjkd_health_destroy(gjkd_health **health)
{
    if (health == NULL || *health == NULL)
        return;
    health_box *box = (health_box *)*health;
    gjkd__v1__response__free_unpacked(box->response, NULL);
    free(box);
    *health = NULL;
}

/* ------------------------------------------------------------------ stats */

typedef struct stats_box {
    gjkd_stats pub;
    Gjkd__V1__Response *response;
} stats_box;

gjkd_status gjkd_stats_get(gjkd_client *c, gjkd_stats **out)
{
    *out = NULL;
    Gjkd__V1__StatsRequest body = GJKD__V1__STATS_REQUEST__INIT;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_STATS;
    req.stats = &body;
    Gjkd__V1__Response *r;
    gjkd_status s = transact(c, &req, GJKD__V1__RESPONSE__BODY_STATS, &r);
    if (s != GJKD_OK)
        return s;
    const Gjkd__V1__StatsResponse *st = r->stats;
    stats_box *box = calloc(1, sizeof *box);
    gjkd_command_stats *cmds = calloc(st->n_commands + 1, sizeof *cmds);
    gjkd_code_count *errs = calloc(st->n_errors + 1, sizeof *errs);
    if (box == NULL || cmds == NULL || errs == NULL) {
        free(box);
        free(cmds);
        free(errs);
        gjkd__v1__response__free_unpacked(r, NULL);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    gjkd_stats *p = &box->pub;
    box->response = r;
    p->uptime_seconds = st->uptime_seconds;
    p->revision = st->revision;
    p->pose_revision = st->pose_revision;
    p->requests = st->requests;
    p->in_flight = st->in_flight;
    p->queued = st->queued;
    p->threads = st->threads;
    p->robots = st->robots;
    p->obstacles = st->obstacles;
    p->parts = st->parts;
    p->pose_updates = st->pose_updates;
    p->monitor_events = st->monitor_events;
    p->trajectories_cached = st->trajectories_cached;
    p->trajectory_cache_hits = st->trajectory_cache_hits;
    p->trajectory_cache_misses = st->trajectory_cache_misses;
    p->auth_refused = st->auth_refused;
    if (st->limits) {
        const Gjkd__V1__Limits *l = st->limits;
        p->limits.max_message_bytes = l->max_message_bytes;
        p->limits.max_points_per_part = l->max_points_per_part;
        p->limits.max_parts_per_body = l->max_parts_per_body;
        p->limits.max_links_per_robot = l->max_links_per_robot;
        p->limits.max_robots = l->max_robots;
        p->limits.max_obstacles = l->max_obstacles;
        p->limits.max_waypoints = l->max_waypoints;
        p->limits.max_pairs_returned = l->max_pairs_returned;
        p->limits.max_name_length = l->max_name_length;
        p->limits.max_queued = l->max_queued;
    }
    for (size_t i = 0; i < st->n_commands; i++) {
        const Gjkd__V1__CommandStats *cs = st->commands[i];
        cmds[i].name = str(cs->name);
        cmds[i].calls = cs->calls;
        cmds[i].errors = cs->errors;
        cmds[i].total_seconds = cs->total_seconds;
        cmds[i].max_seconds = cs->max_seconds;
    }
    for (size_t i = 0; i < st->n_errors; i++) {
        errs[i].code = (int)st->errors[i]->code;
        errs[i].count = st->errors[i]->count;
    }
    p->commands = cmds;
    p->command_count = st->n_commands;
    p->errors = errs;
    p->error_count = st->n_errors;
    *out = p;
    return GJKD_OK;
}

void gjkd_stats_destroy(gjkd_stats **stats)
{
    if (stats == NULL || *stats == NULL)
        return;
    stats_box *box = (stats_box *)*stats;
    free(box->pub.commands);
    free(box->pub.errors);
    gjkd__v1__response__free_unpacked(box->response, NULL);
    free(box);
    *stats = NULL;
}

/* ------------------------------------------------------------------ scene summary */

typedef struct summary_box {
    gjkd_scene_summary pub;
    Gjkd__V1__Response *response;
} summary_box;

gjkd_status gjkd_scene_summary_get(gjkd_client *c, gjkd_scene_summary **out)
{
    *out = NULL;
    Gjkd__V1__SceneSummaryRequest body = GJKD__V1__SCENE_SUMMARY_REQUEST__INIT;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_SCENE_SUMMARY;
    req.scene_summary = &body;
    Gjkd__V1__Response *r;
    gjkd_status s = transact(c, &req, GJKD__V1__RESPONSE__BODY_SCENE_SUMMARY, &r);
    if (s != GJKD_OK)
        return s;
    const Gjkd__V1__SceneSummary *ss = r->scene_summary;
    summary_box *box = calloc(1, sizeof *box);
    gjkd_robot_summary *robots = calloc(ss->n_robots + 1, sizeof *robots);
    gjkd_obstacle_summary *obstacles = calloc(ss->n_obstacles + 1, sizeof *obstacles);
    if (box == NULL || robots == NULL || obstacles == NULL) {
        free(box);
        free(robots);
        free(obstacles);
        gjkd__v1__response__free_unpacked(r, NULL);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    box->response = r;
    for (size_t i = 0; i < ss->n_robots; i++) {
        const Gjkd__V1__RobotSummary *rs = ss->robots[i];
        robots[i].name = str(rs->name);
        robots[i].id = rs->id;
        robots[i].links = (const char *const *)rs->links;
        robots[i].link_count = rs->n_links;
        robots[i].parts = rs->parts;
        robots[i].self_collision = rs->self_collision;
        robots[i].joint_names = (const char *const *)rs->joint_names;
        robots[i].positions = rs->positions;
        robots[i].joint_count =
            rs->n_joint_names < rs->n_positions ? rs->n_joint_names : rs->n_positions;
    }
    for (size_t i = 0; i < ss->n_obstacles; i++) {
        const Gjkd__V1__ObstacleSummary *os = ss->obstacles[i];
        obstacles[i].name = str(os->name);
        obstacles[i].id = os->id;
        obstacles[i].parts = os->parts;
        obstacles[i].pose = pose_of(os->pose);
    }
    box->pub.revision = r->revision;
    box->pub.robots = robots;
    box->pub.robot_count = ss->n_robots;
    box->pub.obstacles = obstacles;
    box->pub.obstacle_count = ss->n_obstacles;
    box->pub.allowed_pairs = ss->allowed_pairs;
    *out = &box->pub;
    return GJKD_OK;
}

void gjkd_scene_summary_destroy(gjkd_scene_summary **summary)
{
    if (summary == NULL || *summary == NULL)
        return;
    summary_box *box = (summary_box *)*summary;
    free(box->pub.robots);
    free(box->pub.obstacles);
    gjkd__v1__response__free_unpacked(box->response, NULL);
    free(box);
    *summary = NULL;
}

/* ------------------------------------------------------------------ scene changes */

static gjkd_status change(gjkd_client *c, Gjkd__V1__Request *req, gjkd_change *out)
{
    Gjkd__V1__Response *r;
    gjkd_status s = transact(c, req, 0, &r);
    if (s != GJKD_OK)
        return s;
    if (out) {
        memset(out, 0, sizeof *out);
        out->revision = r->revision;
        if (r->body_case == GJKD__V1__RESPONSE__BODY_CHANGE && r->change) {
            out->id = r->change->id;
            out->replaced = r->change->replaced;
            out->hull_vertices = r->change->hull_vertices;
        }
    }
    gjkd__v1__response__free_unpacked(r, NULL);
    return GJKD_OK;
}

gjkd_status gjkd_put_robot(gjkd_client *c, const Gjkd__V1__Robot *robot, gjkd_change *out)
{
    if (robot == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_put_robot: robot is NULL");
    Gjkd__V1__PutRobotRequest body = GJKD__V1__PUT_ROBOT_REQUEST__INIT;
    body.robot = (Gjkd__V1__Robot *)robot; /* only packed, never changed */
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_PUT_ROBOT;
    req.put_robot = &body;
    return change(c, &req, out);
}

gjkd_status gjkd_remove_robot(gjkd_client *c, const char *name, gjkd_change *out)
{
    if (name == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_remove_robot: name is NULL");
    Gjkd__V1__RemoveRobotRequest body = GJKD__V1__REMOVE_ROBOT_REQUEST__INIT;
    body.name = (char *)name;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_REMOVE_ROBOT;
    req.remove_robot = &body;
    return change(c, &req, out);
}

gjkd_status gjkd_put_obstacle(gjkd_client *c, const Gjkd__V1__Obstacle *obstacle, gjkd_change *out)
{
    if (obstacle == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_put_obstacle: obstacle is NULL");
    Gjkd__V1__PutObstacleRequest body = GJKD__V1__PUT_OBSTACLE_REQUEST__INIT;
    body.obstacle = (Gjkd__V1__Obstacle *)obstacle;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_PUT_OBSTACLE;
    req.put_obstacle = &body;
    return change(c, &req, out);
}

gjkd_status gjkd_remove_obstacle(gjkd_client *c, const char *name, gjkd_change *out)
{
    if (name == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_remove_obstacle: name is NULL");
    Gjkd__V1__RemoveObstacleRequest body = GJKD__V1__REMOVE_OBSTACLE_REQUEST__INIT;
    body.name = (char *)name;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_REMOVE_OBSTACLE;
    req.remove_obstacle = &body;
    return change(c, &req, out);
}

gjkd_status gjkd_set_allowed_pairs(gjkd_client *c, Gjkd__V1__AllowedPair *const *pairs,
                                   size_t count, gjkd_change *out)
{
    if (pairs == NULL && count > 0)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_set_allowed_pairs: pairs is NULL");
    Gjkd__V1__SetAllowedPairsRequest body = GJKD__V1__SET_ALLOWED_PAIRS_REQUEST__INIT;
    body.n_pairs = count;
    body.pairs = (Gjkd__V1__AllowedPair **)pairs;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS;
    req.set_allowed_pairs = &body;
    return change(c, &req, out);
}

static gjkd_status load(gjkd_client *c, const Gjkd__V1__Scene *scene, bool merge, gjkd_change *out)
{
    if (scene == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "%s: scene is NULL",
                    merge ? "gjkd_merge_scene" : "gjkd_load_scene");
    Gjkd__V1__LoadSceneRequest body = GJKD__V1__LOAD_SCENE_REQUEST__INIT;
    body.scene = (Gjkd__V1__Scene *)scene; /* only packed, never changed */
    body.merge = merge;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_LOAD_SCENE;
    req.load_scene = &body;
    return change(c, &req, out);
}

gjkd_status gjkd_load_scene(gjkd_client *c, const Gjkd__V1__Scene *scene, gjkd_change *out)
{
    return load(c, scene, false, out);
}

gjkd_status gjkd_merge_scene(gjkd_client *c, const Gjkd__V1__Scene *scene, gjkd_change *out)
{
    return load(c, scene, true, out);
}

/* ------------------------------------------------------------------ link poses */

/* px py pz qw qx qy qz: one pose of the packed encoding. */
static void put_pose7(double *v, const gjkd_pose *p)
{
    v[0] = p->p.x;
    v[1] = p->p.y;
    v[2] = p->p.z;
    v[3] = p->q.w;
    v[4] = p->q.x;
    v[5] = p->q.y;
    v[6] = p->q.z;
}

gjkd_status gjkd_set_link_poses_request(gjkd_client *c,
                                        const Gjkd__V1__SetLinkPosesRequest *request)
{
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_SET_LINK_POSES;
    req.set_link_poses = (Gjkd__V1__SetLinkPosesRequest *)request;
    Gjkd__V1__Response *r;
    gjkd_status s = transact(c, &req, 0, &r);
    if (s == GJKD_OK)
        gjkd__v1__response__free_unpacked(r, NULL);
    return s;
}

gjkd_status gjkd_set_link_poses(gjkd_client *c, const char *robot, const gjkd_pose *poses,
                                size_t count)
{
    if (robot == NULL || (poses == NULL && count > 0))
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_set_link_poses: NULL robot or poses");
    double *values = malloc((7 * count + 1) * sizeof *values);
    if (values == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    for (size_t i = 0; i < count; i++)
        put_pose7(values + 7 * i, &poses[i]);
    Gjkd__V1__LinkPoses lp = GJKD__V1__LINK_POSES__INIT; /* packed: LinkPoses.xyz_wxyz */
    lp.n_xyz_wxyz = 7 * count;
    lp.xyz_wxyz = values;
    Gjkd__V1__RobotState rs = GJKD__V1__ROBOT_STATE__INIT;
    rs.robot = (char *)robot;
    rs.state_case = GJKD__V1__ROBOT_STATE__STATE_LINK_POSES;
    rs.link_poses = &lp;
    Gjkd__V1__RobotState *rsp = &rs;
    Gjkd__V1__SetLinkPosesRequest body = GJKD__V1__SET_LINK_POSES_REQUEST__INIT;
    body.n_robots = 1;
    body.robots = &rsp;
    gjkd_status s = gjkd_set_link_poses_request(c, &body);
    free(values);
    return s;
}

gjkd_status gjkd_set_joint_positions(gjkd_client *c, const char *robot, const char *const *names,
                                     const double *positions, size_t count, const gjkd_pose *base)
{
    if (robot == NULL || (positions == NULL && count > 0))
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_set_joint_positions: NULL robot or positions");
    Gjkd__V1__JointPositions jp = GJKD__V1__JOINT_POSITIONS__INIT;
    jp.n_positions = count;
    jp.positions = (double *)positions; /* only packed, never changed */
    if (names) {
        jp.n_names = count;
        jp.names = (char **)names;
    }
    Gjkd__V1__Pose pose = GJKD__V1__POSE__INIT;
    Gjkd__V1__Vec3 p = GJKD__V1__VEC3__INIT;
    Gjkd__V1__Quaternion q = GJKD__V1__QUATERNION__INIT;
    if (base) {
        p.x = base->p.x;
        p.y = base->p.y;
        p.z = base->p.z;
        q.w = base->q.w;
        q.x = base->q.x;
        q.y = base->q.y;
        q.z = base->q.z;
        pose.position = &p;
        pose.orientation = &q;
        jp.base_pose = &pose;
    }
    Gjkd__V1__RobotState rs = GJKD__V1__ROBOT_STATE__INIT;
    rs.robot = (char *)robot;
    rs.state_case = GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS;
    rs.joint_positions = &jp;
    Gjkd__V1__RobotState *rsp = &rs;
    Gjkd__V1__SetLinkPosesRequest body = GJKD__V1__SET_LINK_POSES_REQUEST__INIT;
    body.n_robots = 1;
    body.robots = &rsp;
    return gjkd_set_link_poses_request(c, &body);
}

/* ------------------------------------------------------------------ queries */

static void options_to_wire(const gjkd_query_options *o, Gjkd__V1__QueryOptions *w)
{
    gjkd__v1__query_options__init(w);
    if (o == NULL)
        return;
    if (o->has_max_distance) {
        w->max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
        w->max_distance = o->max_distance;
    }
    w->mode = (Gjkd__V1__QueryMode)o->mode;
    w->pair_kinds = o->pair_kinds;
    w->no_penetration_depth = o->no_penetration_depth;
    w->max_pairs = o->max_pairs;
    if (o->robot)
        w->robot = (char *)o->robot;
    w->per_part = o->per_part;
    w->gradients = o->gradients;
}

/* RobotJoints messages as gjkd_robot_joints (pointing into the reply); NULL with *count 0 when
 * there are none; false when out of memory. */
static bool joints_of(Gjkd__V1__RobotJoints *const *m, size_t n, gjkd_robot_joints **out)
{
    *out = NULL;
    if (n == 0)
        return true;
    *out = calloc(n, sizeof **out);
    if (*out == NULL)
        return false;
    for (size_t i = 0; i < n; i++) {
        (*out)[i].robot = str(m[i]->robot);
        (*out)[i].names = (const char *const *)m[i]->names;
        (*out)[i].count = m[i]->n_names;
    }
    return true;
}

typedef struct state_box {
    gjkd_state pub;
    Gjkd__V1__Response *response;
    gjkd_pair *pairs;
    gjkd_robot_joints *joints;
} state_box;

gjkd_status gjkd_query_state(gjkd_client *c, const gjkd_query_options *options, gjkd_state **out)
{
    *out = NULL;
    Gjkd__V1__QueryOptions wo;
    options_to_wire(options, &wo);
    Gjkd__V1__StateQueryRequest body = GJKD__V1__STATE_QUERY_REQUEST__INIT;
    body.options = &wo;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_STATE_QUERY;
    req.state_query = &body;
    Gjkd__V1__Response *r;
    gjkd_status s = transact(c, &req, GJKD__V1__RESPONSE__BODY_STATE, &r);
    if (s != GJKD_OK)
        return s;
    state_box *box = calloc(1, sizeof *box);
    gjkd_pair *pairs = calloc(state_pair_count(r->state) + 1, sizeof *pairs);
    if (box == NULL || pairs == NULL) {
        free(box);
        free(pairs);
        gjkd__v1__response__free_unpacked(r, NULL);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    box->response = r;
    box->pairs = pairs;
    size_t used = 0;
    if (!state_of(r->state, NULL, r->revision, pairs, &box->pub, &used)) {
        gjkd_state *p = &box->pub;
        gjkd_state_destroy(&p);
        return fail(c, GJKD_BAD_REPLY, "a compact pair in a state reply");
    }
    if (!joints_of(r->state->joint_names, r->state->n_joint_names, &box->joints)) {
        gjkd_state *p = &box->pub;
        gjkd_state_destroy(&p);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    box->pub.joint_names = box->joints;
    box->pub.joint_names_count = box->joints ? r->state->n_joint_names : 0;
    *out = &box->pub;
    return GJKD_OK;
}

void gjkd_state_destroy(gjkd_state **state)
{
    if (state == NULL || *state == NULL)
        return;
    state_box *box = (state_box *)*state;
    free(box->pairs);
    free(box->joints);
    gjkd__v1__response__free_unpacked(box->response, NULL);
    free(box);
    *state = NULL;
}

typedef struct trajectory_box {
    gjkd_trajectory pub;
    Gjkd__V1__Response *response;
    gjkd_state *states;
    gjkd_pair *pairs;
    gjkd_robot_joints *joints;
    gjkd_segment *segments;
    gjkd_pair *segment_pairs;
} trajectory_box;

const char *gjkd_segment_verdict_name(int verdict)
{
    switch (verdict) {
    case GJKD_SEGMENT_CLEAR:
        return "clear";
    case GJKD_SEGMENT_CONTACT:
        return "contact";
    case GJKD_SEGMENT_UNDECIDED:
        return "undecided";
    default:
        return "unspecified";
    }
}

/* The segment columns of a reply (segment_columns_view checked them) into the box. */
static void segment_rows_of(const gjkd_trajectory_columns *v, const gjkd_pair *table,
                            trajectory_box *box)
{
    for (size_t i = 0; i < v->segment_count; i++) {
        gjkd_segment *g = &box->segments[i];
        g->evaluated = v->segment_evaluated[i];
        g->verdict = (int)v->segment_verdict[i];
        g->t = v->segment_t[i];
        g->has_clearance = !isnan(v->segment_clearance_lower_bound[i]);
        g->clearance_lower_bound = g->has_clearance ? v->segment_clearance_lower_bound[i] : 0.0;
        if (v->segment_pair_index[i] >= 0) {
            gjkd_pair *out = &box->segment_pairs[i];
            *out = table[v->segment_pair_index[i]];
            const double *q = v->segment_geometry + COMPACT_GEOMETRY * i;
            gjkd_vec3 *vec[5] = {&out->point_a, &out->point_b, &out->local_point_a,
                                 &out->local_point_b, &out->normal};
            for (int j = 0; j < 5; j++)
                *vec[j] = (gjkd_vec3){q[3 * j], q[3 * j + 1], q[3 * j + 2]};
            out->distance = v->segment_distance[i];
            out->status = (int)v->segment_status[i];
            out->iterations = v->segment_iterations[i];
            out->epa_iterations = v->segment_epa_iterations[i];
            out->part_pair_count = v->segment_part_pair_count[i];
            g->pair = out;
        }
        g->pairs_checked = v->segment_pairs_checked[i];
        g->pairs_undecided = v->segment_pairs_undecided[i];
        g->evaluations = v->segment_evaluations[i];
    }
}

/* The reply's continuous segments into the box, from SegmentResults or (v not NULL, its
 * segment arrays checked, table its pair table) segment columns; false when out of memory. */
static bool segments_of(const Gjkd__V1__TrajectoryResult *t, const gjkd_trajectory_columns *v,
                        const gjkd_pair *table, trajectory_box *box)
{
    gjkd_trajectory *p = &box->pub;
    size_t n = v != NULL && t->segment_columns != NULL ? v->segment_count
                                                       : (t->segment_columns ? 0 : t->n_segments);
    p->first_contact_segment = n > 0 ? t->first_contact_segment : -1;
    p->undecided_segments = t->undecided_segments;
    if (n == 0)
        return true;
    box->segments = calloc(n, sizeof *box->segments);
    box->segment_pairs = calloc(n, sizeof *box->segment_pairs);
    if (box->segments == NULL || box->segment_pairs == NULL)
        return false;
    p->segments = box->segments;
    p->segment_count = n;
    if (v != NULL && t->segment_columns != NULL) {
        segment_rows_of(v, table, box);
        return true;
    }
    for (size_t i = 0; i < t->n_segments; i++) {
        const Gjkd__V1__SegmentResult *m = t->segments[i];
        gjkd_segment *g = &box->segments[i];
        g->evaluated = m->evaluated;
        g->verdict = (int)m->verdict;
        g->t = m->t;
        g->has_clearance =
            m->clearance_opt_case == GJKD__V1__SEGMENT_RESULT__CLEARANCE_OPT_CLEARANCE_LOWER_BOUND;
        g->clearance_lower_bound = g->has_clearance ? m->clearance_lower_bound : 0.0;
        if (m->pair != NULL) {
            pair_of(m->pair, &box->segment_pairs[i]);
            g->pair = &box->segment_pairs[i];
        }
        g->pairs_checked = m->pairs_checked;
        g->pairs_undecided = m->pairs_undecided;
        g->evaluations = m->evaluations;
    }
    p->segments = box->segments;
    p->segment_count = t->n_segments;
    return true;
}

/* A request's nested waypoints re-encoded packed, in storage of our own (the request stays
 * untouched). waypoints is NULL when there is nothing to re-encode. */
typedef struct packed_waypoints {
    Gjkd__V1__Waypoint **waypoints;
    Gjkd__V1__Waypoint *storage;
    Gjkd__V1__LinkPoses *link_poses;
    double *values;
} packed_waypoints;

static void packed_waypoints_free(packed_waypoints *pw)
{
    free(pw->waypoints);
    free(pw->storage);
    free(pw->link_poses);
    free(pw->values);
    memset(pw, 0, sizeof *pw);
}

static bool packed_waypoints_make(packed_waypoints *pw, const Gjkd__V1__TrajectoryQueryRequest *r)
{
    memset(pw, 0, sizeof *pw);
    size_t n_poses = 0, nested = 0;
    for (size_t i = 0; i < r->n_waypoints; i++) {
        const Gjkd__V1__Waypoint *w = r->waypoints[i];
        if (w->state_case == GJKD__V1__WAYPOINT__STATE_LINK_POSES && w->link_poses &&
            w->link_poses->n_poses > 0 && w->link_poses->n_xyz_wxyz == 0) {
            n_poses += w->link_poses->n_poses;
            nested++;
        }
    }
    if (nested == 0)
        return true;
    size_t n = r->n_waypoints;
    pw->waypoints = malloc((n + 1) * sizeof *pw->waypoints);
    pw->storage = malloc((n + 1) * sizeof *pw->storage);
    pw->link_poses = malloc((n + 1) * sizeof *pw->link_poses);
    pw->values = malloc((7 * n_poses + 1) * sizeof *pw->values);
    if (!pw->waypoints || !pw->storage || !pw->link_poses || !pw->values) {
        packed_waypoints_free(pw);
        return false;
    }
    double *v = pw->values;
    for (size_t i = 0; i < n; i++) {
        const Gjkd__V1__Waypoint *w = r->waypoints[i];
        if (!(w->state_case == GJKD__V1__WAYPOINT__STATE_LINK_POSES && w->link_poses &&
              w->link_poses->n_poses > 0 && w->link_poses->n_xyz_wxyz == 0)) {
            pw->waypoints[i] = (Gjkd__V1__Waypoint *)w; /* sent as given (only packed) */
            continue;
        }
        const Gjkd__V1__LinkPoses *lp = w->link_poses;
        gjkd__v1__link_poses__init(&pw->link_poses[i]);
        pw->link_poses[i].n_xyz_wxyz = 7 * lp->n_poses;
        pw->link_poses[i].xyz_wxyz = v;
        for (size_t k = 0; k < lp->n_poses; k++, v += 7) {
            gjkd_pose p = pose_of(lp->poses[k]); /* absent parts: origin, identity */
            put_pose7(v, &p);
        }
        pw->storage[i] = *w;
        pw->storage[i].link_poses = &pw->link_poses[i];
        pw->waypoints[i] = &pw->storage[i];
    }
    return true;
}

/* Sends a trajectory query and returns its reply: the options are `options` (NULL: the
 * request's own), sent asking for pair columns (and, for a daemon that predates them, columnar
 * or compact results); nested poses are sent packed when pack is set. *all_pairs: ALL_WITHIN
 * mode. The caller's message is left as it was. */
static gjkd_status send_trajectory(gjkd_client *c, const gjkd_query_options *options,
                                   const Gjkd__V1__TrajectoryQueryRequest *request, bool pack,
                                   Gjkd__V1__Response **r, bool *all_pairs)
{
    Gjkd__V1__QueryOptions wo;
    if (options)
        options_to_wire(options, &wo);
    else if (request->options)
        wo = *request->options;
    else
        gjkd__v1__query_options__init(&wo);
    wo.pair_columns = true;
    wo.compact = true;
    wo.columnar = !wo.gradients; /* the columnar form has no pair messages for gradients */
    *all_pairs = wo.mode == GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN;
    Gjkd__V1__TrajectoryQueryRequest body = *request;
    body.options = &wo;
    if (options && options->continuous) {
        body.continuous = true;
        body.continuous_time_tolerance = options->continuous_time_tolerance;
        body.continuous_max_evaluations = options->continuous_max_evaluations;
    }
    packed_waypoints pw;
    memset(&pw, 0, sizeof pw);
    if (pack && !packed_waypoints_make(&pw, request))
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    if (pw.waypoints != NULL)
        body.waypoints = pw.waypoints;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req.trajectory_query = &body;
    gjkd_status s = transact(c, &req, GJKD__V1__RESPONSE__BODY_TRAJECTORY, r);
    packed_waypoints_free(&pw);
    return s;
}

_Static_assert(
    (int)GJKD_WAYPOINT_EVALUATED == (int)GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_EVALUATED &&
        (int)GJKD_WAYPOINT_COLLIDING == (int)GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_COLLIDING &&
        (int)GJKD_WAYPOINT_TRUNCATED == (int)GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_TRUNCATED &&
        (int)GJKD_WAYPOINT_HAS_MIN_DISTANCE ==
            (int)GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_MIN_DISTANCE &&
        (int)GJKD_WAYPOINT_HAS_CLOSEST == (int)GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_CLOSEST,
    "waypoint flags are the wire's");

gjkd_status gjkd_query_trajectory_request(gjkd_client *c, const gjkd_query_options *options,
                                          Gjkd__V1__TrajectoryQueryRequest *request,
                                          gjkd_trajectory **out)
{
    *out = NULL;
    /* The reply comes in the leanest form the daemon has (pair columns, else columns or
     * compact pairs); each is expanded below, so callers see no difference. */
    Gjkd__V1__Response *r;
    bool all_pairs;
    gjkd_status s = send_trajectory(c, options, request, true, &r, &all_pairs);
    if (s != GJKD_OK)
        return s;
    const Gjkd__V1__TrajectoryResult *t = r->trajectory;
    const Gjkd__V1__WaypointColumns *cols = t->columns;
    gjkd_trajectory_columns view;
    size_t *starts = NULL;
    gjkd_pair *table = NULL;
    if (t->pair_columns != NULL) {
        int v = pair_columns_view(t, &view, &starts, &table);
        if (v == 0 && !segment_columns_view(t, &view))
            v = 1;
        if (v != 0) {
            free(starts);
            free(table);
            gjkd__v1__response__free_unpacked(r, NULL);
            return v == 2 ? fail(c, GJKD_CLIENT_ERROR, "out of memory")
                          : fail(c, GJKD_BAD_REPLY, "inconsistent pair columns in the reply");
        }
    }
    size_t n_states = cols != NULL ? cols->n_flags : t->n_waypoints;
    size_t n_pairs = 0;
    if (t->pair_columns != NULL)
        n_pairs = view.pair_count;
    else if (cols != NULL)
        n_pairs = cols->n_pair_index;
    for (size_t i = 0; cols == NULL && i < t->n_waypoints; i++)
        n_pairs += state_pair_count(t->waypoints[i]);
    trajectory_box *box = calloc(1, sizeof *box);
    gjkd_state *states = calloc(n_states + 1, sizeof *states);
    gjkd_pair *pairs = calloc(n_pairs + 1, sizeof *pairs);
    if (box == NULL || states == NULL || pairs == NULL) {
        free(box);
        free(states);
        free(pairs);
        free(starts);
        free(table);
        gjkd__v1__response__free_unpacked(r, NULL);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    box->response = r;
    box->states = states;
    box->pairs = pairs;
    gjkd_trajectory *p = &box->pub;
    if (t->pair_columns != NULL) {
        rows_of_pair_columns(&view, all_pairs, r->revision, pairs, states);
    } else if (t->segment_columns != NULL) {
        gjkd_trajectory_destroy(&p);
        return fail(c, GJKD_BAD_REPLY, "segment columns without pair columns in the reply");
    } else if (cols != NULL) {
        if (!columns_of(cols, t, r->revision, pairs, states)) {
            gjkd_trajectory_destroy(&p);
            return fail(c, GJKD_BAD_REPLY, "inconsistent columnar trajectory reply");
        }
    } else {
        size_t used = 0;
        for (size_t i = 0; i < t->n_waypoints; i++) {
            if (!state_of(t->waypoints[i], t, r->revision, pairs + used, &states[i], &used)) {
                gjkd_trajectory_destroy(&p);
                return fail(c, GJKD_BAD_REPLY, "waypoint %zu: inconsistent compact pair", i);
            }
        }
    }
    /* The segments (their pairs' names from the pair columns' table), then the table goes. */
    bool segments_ok = segments_of(t, t->pair_columns != NULL ? &view : NULL, table, box);
    free(starts);
    free(table);
    p->waypoints = states;
    p->waypoint_count = n_states;
    p->has_min_distance =
        t->min_distance_opt_case == GJKD__V1__TRAJECTORY_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE;
    p->min_distance = p->has_min_distance ? t->min_distance : 0.0;
    p->min_waypoint = t->min_waypoint;
    p->first_collision = t->first_collision;
    p->colliding_waypoints = t->colliding_waypoints;
    p->cache_hit = t->trajectory_cache_hit;
    p->revision = r->revision;
    p->handler_seconds = r->handler_seconds;
    if (!segments_ok || !joints_of(t->joint_names, t->n_joint_names, &box->joints)) {
        gjkd_trajectory_destroy(&p);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    p->joint_names = box->joints;
    p->joint_names_count = box->joints ? t->n_joint_names : 0;
    *out = p;
    return GJKD_OK;
}

typedef struct columns_box {
    gjkd_trajectory_columns pub;
    Gjkd__V1__Response *response;
    size_t *starts;
    gjkd_pair *table;
    gjkd_robot_joints *joints;
} columns_box;

gjkd_status gjkd_query_trajectory_columns(gjkd_client *c, const gjkd_query_options *options,
                                          const Gjkd__V1__TrajectoryQueryRequest *request,
                                          gjkd_trajectory_columns **out)
{
    *out = NULL;
    if (request == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_query_trajectory_columns: NULL request");
    Gjkd__V1__Response *r;
    bool all_pairs;
    gjkd_status s = send_trajectory(c, options, request, true, &r, &all_pairs);
    if (s != GJKD_OK)
        return s;
    const Gjkd__V1__TrajectoryResult *t = r->trajectory;
    columns_box *box = calloc(1, sizeof *box);
    if (box == NULL) {
        gjkd__v1__response__free_unpacked(r, NULL);
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    box->response = r;
    gjkd_trajectory_columns *p = &box->pub;
    if (t->pair_columns == NULL) {
        gjkd_trajectory_columns_destroy(&p);
        return fail(c, GJKD_BAD_REPLY,
                    "the reply has no pair columns (a daemon older than this client): use "
                    "gjkd_query_trajectory_request");
    }
    if (t->n_segments > 0) {
        gjkd_trajectory_columns_destroy(&p);
        return fail(c, GJKD_BAD_REPLY,
                    "the reply's segments are not columns (a daemon older than this client): "
                    "use gjkd_query_trajectory_request");
    }
    int v = pair_columns_view(t, p, &box->starts, &box->table);
    if (v == 0 && !segment_columns_view(t, p))
        v = 1;
    if (v != 0 || !joints_of(t->joint_names, t->n_joint_names, &box->joints)) {
        gjkd_trajectory_columns_destroy(&p);
        return v == 1 ? fail(c, GJKD_BAD_REPLY, "inconsistent pair columns in the reply")
                      : fail(c, GJKD_CLIENT_ERROR, "out of memory");
    }
    p->has_min_distance =
        t->min_distance_opt_case == GJKD__V1__TRAJECTORY_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE;
    p->min_distance = p->has_min_distance ? t->min_distance : 0.0;
    p->min_waypoint = t->min_waypoint;
    p->first_collision = t->first_collision;
    p->colliding_waypoints = t->colliding_waypoints;
    p->cache_hit = t->trajectory_cache_hit;
    p->revision = r->revision;
    p->handler_seconds = r->handler_seconds;
    p->joint_names = box->joints;
    p->joint_names_count = box->joints ? t->n_joint_names : 0;
    *out = p;
    return GJKD_OK;
}

void gjkd_trajectory_columns_destroy(gjkd_trajectory_columns **columns)
{
    if (columns == NULL || *columns == NULL)
        return;
    columns_box *box = (columns_box *)*columns;
    free(box->starts);
    free(box->table);
    free(box->joints);
    gjkd__v1__response__free_unpacked(box->response, NULL);
    free(box);
    *columns = NULL;
}

gjkd_status gjkd_query_trajectory(gjkd_client *c, const gjkd_query_options *options,
                                  const char *robot, const char *name, const gjkd_pose *poses,
                                  size_t waypoint_count, size_t link_count, gjkd_trajectory **out)
{
    *out = NULL;
    if (robot == NULL || (poses == NULL && waypoint_count * link_count > 0))
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_query_trajectory: NULL robot or poses");
    /* Every waypoint in one packed array (gjkd.proto TrajectoryQueryRequest.waypoint_xyz_wxyz):
     * one allocation for the daemon to unpack instead of two messages per waypoint. */
    size_t n = waypoint_count * link_count;
    if (waypoint_count > UINT32_MAX)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_query_trajectory: %zu waypoints", waypoint_count);
    double *values = malloc((7 * n + 1) * sizeof *values);
    if (values == NULL)
        return fail(c, GJKD_CLIENT_ERROR, "out of memory");
    for (size_t i = 0; i < n; i++)
        put_pose7(values + 7 * i, &poses[i]);
    Gjkd__V1__TrajectoryQueryRequest body = GJKD__V1__TRAJECTORY_QUERY_REQUEST__INIT;
    body.robot = (char *)robot;
    if (name)
        body.name = (char *)name;
    body.n_waypoint_xyz_wxyz = 7 * n;
    body.waypoint_xyz_wxyz = values;
    body.waypoint_count = (uint32_t)waypoint_count;
    gjkd_query_options defaults;
    memset(&defaults, 0, sizeof defaults);
    gjkd_status s = gjkd_query_trajectory_request(c, options ? options : &defaults, &body, out);
    free(values);
    return s;
}

gjkd_status gjkd_query_trajectory_joints(gjkd_client *c, const gjkd_query_options *options,
                                         const char *robot, const char *name,
                                         const char *const *joint_names, size_t dof_count,
                                         const double *positions, size_t waypoint_count,
                                         gjkd_trajectory **out)
{
    *out = NULL;
    if (robot == NULL || (positions == NULL && waypoint_count * dof_count > 0))
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_query_trajectory_joints: NULL robot or positions");
    if (waypoint_count == 0 || waypoint_count > UINT32_MAX)
        return fail(c, GJKD_CLIENT_ERROR, "gjkd_query_trajectory_joints: %zu waypoints",
                    waypoint_count);
    Gjkd__V1__TrajectoryQueryRequest body = GJKD__V1__TRAJECTORY_QUERY_REQUEST__INIT;
    body.robot = (char *)robot;
    if (name)
        body.name = (char *)name;
    body.n_waypoint_joints = waypoint_count * dof_count; /* packed: TrajectoryQueryRequest */
    body.waypoint_joints = (double *)positions;          /* only packed, never changed */
    body.waypoint_count = (uint32_t)waypoint_count;
    if (joint_names) {
        body.n_joint_names = dof_count;
        body.joint_names = (char **)joint_names;
    }
    gjkd_query_options defaults;
    memset(&defaults, 0, sizeof defaults);
    return gjkd_query_trajectory_request(c, options ? options : &defaults, &body, out);
}

void gjkd_trajectory_destroy(gjkd_trajectory **trajectory)
{
    if (trajectory == NULL || *trajectory == NULL)
        return;
    trajectory_box *box = (trajectory_box *)*trajectory;
    free(box->states);
    free(box->joints);
    free(box->pairs);
    free(box->segments);
    free(box->segment_pairs);
    gjkd__v1__response__free_unpacked(box->response, NULL);
    free(box);
    *trajectory = NULL;
}
