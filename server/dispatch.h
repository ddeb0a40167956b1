/* dispatch.h — the service: the world, the scene records that are persisted, and the
 * command table that turns one request into one reply.
 *
 * Model: Redis's command table. Every request body has a row (name, handler, lock it takes,
 * whether it changes the scene); per-command counters (calls, errors, time) and per-status
 * counters feed the stats reply. A request is fully validated before it touches the world,
 * and a failing change leaves world, records and disk exactly as they were.
 *
 * Threads: gjkd_service_handle may run on many threads at once. Scene changes and pose
 * updates take the write lock, queries the read lock (gjk/world.h's contract). A scene change
 * is written to the store before the world is changed and before the reply. */
#ifndef GJKD_DISPATCH_H
#define GJKD_DISPATCH_H

#include "codec.h"
#include "config.h"
#include "metrics.h"
#include "store.h"
#include "tokens.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gjkd_service gjkd_service;

typedef struct gjkd_service_def {
    gjkd_limits limits;
    int32_t query_threads;  /* threads per trajectory query */
    int32_t worker_threads; /* reported in stats */
    gjkd_store *store;      /* borrowed; NULL = nothing persisted */
} gjkd_service_def;

gjkd_service *gjkd_service_create(const gjkd_service_def *def, gjkd_error *error);
void gjkd_service_destroy(gjkd_service **service);

/* Replaces the scene with a serialized gjkd.v1.Scene (a snapshot, a --scene file or the demo)
 * and takes its revision (the current one if it has none), by the LoadSceneRequest mechanism:
 * all validated, then (persist: if there is a store) written, then applied. On failure the
 * scene, its revision and the store are exactly as they were (empty at a fresh start), and the
 * message names the element ("obstacles[3] \"shelf\": ..."). */
bool gjkd_service_load_scene(gjkd_service *service, const uint8_t *data, size_t size, bool persist,
                             gjkd_error *error);

/* Handles one serialized Request from the anonymous caller (the empty key, gjkd_caller);
 * *reply (malloc'd, caller frees) is the serialized Response. Never fails: every problem is
 * a status in the reply. */
void gjkd_service_handle(gjkd_service *service, const uint8_t *data, size_t size, uint8_t **reply,
                         size_t *reply_size);

/* Who sent a request, as the transport knows it. key: the client's authenticated CURVE public
 * key (Z85 text, ZeroMQ's "User-Id" property set by the ZAP handler, auth.c), or "" without
 * CURVE: a daemon without authentication serves one trust domain (loopback, or --insecure).
 * Change tokens belong to it (tokens.h): one client's token is not another's. A key longer
 * than GJKD_CALLER_KEY_MAX leaves the request's change token unremembered. */
#define GJKD_CALLER_KEY_MAX GJKD_TOKEN_KEY_MAX /* bytes of gjkd_caller.key */
typedef struct gjkd_caller {
    const char *key;
} gjkd_caller;

/* gjkd_service_handle for a caller (NULL: the empty key, as gjkd_service_handle) with a
 * deadline (CLOCK_MONOTONIC ns, gjkd_now_ns; 0 = none): past it the request is refused with
 * DEADLINE_EXCEEDED before it runs, and a query stops between blocks of waypoints (issue 22,
 * finding 13). */
void gjkd_service_handle_until(gjkd_service *service, const gjkd_caller *caller,
                               const uint8_t *data, size_t size, uint64_t deadline_ns,
                               uint8_t **reply, size_t *reply_size);
uint64_t gjkd_now_ns(void);

/* A reply to a request that never reached a handler (e.g. wrong framing, a full queue), with
 * the request_id it gave (0 if unknown); counted. */
void gjkd_service_reply_error(gjkd_service *service, uint64_t request_id, gjkd_code code,
                              const char *message, uint8_t **reply, size_t *reply_size);

/* What the broker needs to know of a request without unpacking it: its request_id (0 if
 * absent), its deadline_ms (0 if absent) and the field number of its body (gjkd.proto Request, 0 if
 * none). Reads the top level of the protobuf wire format only; false if that is not well formed (a
 * worker then answers MALFORMED with the full decoder). */
bool gjkd_request_peek(const uint8_t *data, size_t size, uint64_t *request_id,
                       uint32_t *deadline_ms, uint32_t *body_field);
/* Health and stats: answered by the broker itself (gjkd_service_handle_probe), so that probes
 * never wait behind long queries. */
bool gjkd_request_is_probe(uint32_t body_field);
/* gjkd_service_handle for a probe on the broker's thread: never blocks on the scene lock
 * (stats reports the world figures it last read while a scene change holds the lock). */
void gjkd_service_handle_probe(gjkd_service *service, const uint8_t *data, size_t size,
                               uint8_t **reply, size_t *reply_size);
/* Requests waiting for a worker, as the broker counts them (reported in stats). */
void gjkd_service_set_queued(gjkd_service *service, uint32_t queued);

/* Pose stream: applies one serialized PoseUpdate (all robots or none). */
bool gjkd_service_pose_update(gjkd_service *service, const uint8_t *data, size_t size,
                              uint64_t *sequence, gjkd_error *error);
/* Serialized MonitorEvent for the current state (closest pair, all pair kinds). */
bool gjkd_service_monitor_event(gjkd_service *service, uint64_t sequence, uint8_t **event,
                                size_t *event_size);

/* One handshake refused by CURVE authentication (reported as auth_refused in stats). */
void gjkd_service_count_auth_refused(gjkd_service *service);

/* The service's metrics registry (metrics.h): fed by every reply; the scene watcher adds
 * its reloads. */
gjkd_metrics *gjkd_service_metrics(gjkd_service *service);
/* The figures a metrics page shows beside the registry's counters (the stats reply's). Never
 * waits for the scene lock: while a change holds it, the world figures read last time. */
void gjkd_service_figures_read(gjkd_service *service, gjkd_metrics_figures *figures);

void gjkd_service_set_limits(gjkd_service *service, const gjkd_limits *limits);
gjkd_limits gjkd_service_limits(gjkd_service *service);
void gjkd_service_set_draining(gjkd_service *service, bool draining);
uint64_t gjkd_service_revision(const gjkd_service *service);

#endif /* GJKD_DISPATCH_H */
