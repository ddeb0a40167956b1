/* transport.h — the ZeroMQ front end: a ROUTER socket, a broker loop and worker threads.
 *
 * The broker (the calling thread) owns the ROUTER frontend and a ROUTER backend on inproc;
 * each worker is an actor with its own DEALER socket that announces itself ready, handles one
 * request at a time and sends the reply back through the broker. The broker reads the
 * frontend only while some worker is idle (natural backpressure) and answers malformed
 * framing itself. No socket is ever used by two threads.
 *
 * Replies are handed to ZeroMQ without a copy (zmq_msg_init_data).
 *
 * Memory: the broker refuses with RESOURCE_EXHAUSTED at once, before queuing, a request larger
 * than max_message_bytes, one that would take a client's queue over max_queued requests or
 * max_queued_bytes, the queue of all clients over max_queued_total, or the bytes held (queued
 * and in-flight requests) over max_held_bytes (replies not yet sent are bounded per peer by
 * ZeroMQ's send high-water mark, not by this budget: counting them in it would let one client
 * that never reads lock every other client out). A probe
 * (health, stats) is answered by the broker only if it is at most 256 bytes; a larger one is
 * an ordinary request (a padded probe does not stall the broker).
 *
 * CURVE: ZAP authenticates a connection once, at its handshake; the broker also checks every
 * request's client key (its User-Id property) against the current allow-list, so that a key
 * removed by SIGHUP gets UNAUTHENTICATED on the connections it already had.
 *
 * Shutdown: when *stop becomes non-zero the service reports DRAINING (health), every request
 * read from then on gets UNAVAILABLE (probes are still answered), and the loop keeps
 * forwarding the replies of the requests accepted before until nothing is in flight or queued
 * and the frontend has been quiet for 200 ms, or drain_seconds pass. If the window ends first,
 * each request still being worked on gets UNAVAILABLE (logged as drain_timeout; its late reply
 * is discarded) and each still queued gets UNAVAILABLE; then the workers are stopped and
 * joined (a busy worker finishes its request first). The frontend is not unbound first:
 * zmq_unbind discards the endpoint's queued requests, which must still be answered. */
#ifndef GJKD_TRANSPORT_H
#define GJKD_TRANSPORT_H

#include "auth.h"
#include "dispatch.h"

#include <stdatomic.h>
#include <stdbool.h>

typedef struct gjkd_transport_def {
    void *zmq_context;
    const char *endpoint;
    int32_t threads;
    bool insecure;   /* allow non-loopback endpoints without CURVE (logged as a warning) */
    gjkd_auth *auth; /* NULL: no CURVE; else the frontend is a CURVE server (auth.h) */
    double drain_seconds;
    double handshake_seconds; /* ZMQ_HANDSHAKE_IVL of the frontend; 0: libzmq's default */
    uint32_t max_connections; /* cap of the frontend's connections (0: none), lowered to the
                                 open-file limit less 64; over it the longest idle connection
                                 (nothing received) is shut down */
    gjkd_service *service;
    atomic_int *stop;   /* set by the signal handler (lock-free: async-signal-safe) */
    atomic_int *reload; /* set by SIGHUP: on_reload is called from the loop */
    void (*on_reload)(void *user, void *frontend);
    void *user;
    /* Filled once bound, before serving (e.g. the port chosen for tcp://127.0.0.1:*). */
    char bound_endpoint[256];
    void (*on_ready)(void *user, const char *bound_endpoint);
} gjkd_transport_def;

/* True for ipc://, inproc:// and tcp:// on 127.0.0.0/8, localhost or [::1]. */
bool gjkd_endpoint_is_loopback(const char *endpoint);

/* The exposure rule for any socket gjkd binds: with CURVE (auth != NULL) every endpoint is
 * allowed; without it a non-loopback endpoint is refused (false, message in err) unless
 * insecure, which allows it with a warning in the log. name: "request", "pose", ... */
bool gjkd_endpoint_check(const char *endpoint, const char *name, bool curve, bool insecure,
                         char *err, size_t err_size);

/* Applies the frontend's security settings: the exposure rule, CURVE and the ZAP
 * authentication when def->auth is set, ZMQ_MAXMSGSIZE. */
bool gjkd_transport_secure_frontend(void *socket, const gjkd_transport_def *def,
                                    uint64_t max_message_bytes, char *err, size_t err_size);

/* Receives the remaining frames of a multipart message into msgs (at most max; zmq_msg_t
 * from <zmq.h>, passed as void * here so this header needs no ZeroMQ). Returns the number of
 * frames kept, or -1 on error; frames beyond max are received and dropped, *total counts all. */
int gjkd_transport_recv_frames(void *socket, void *msgs, int max, int *total);

/* Binds and serves until *def->stop; returns 0 on a clean stop, -1 (message in err) if the
 * endpoint cannot be bound or the threads cannot start. */
int gjkd_transport_run(gjkd_transport_def *def, char *err, size_t err_size);

#endif /* GJKD_TRANSPORT_H */
