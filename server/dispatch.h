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
#include "store.h"

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

/* Replaces an empty scene with a serialized gjkd.v1.Scene (a snapshot or the demo) and takes
 * its revision. persist: also write it to the store. On failure the scene stays empty. */
bool gjkd_service_load_scene(gjkd_service *service, const uint8_t *data, size_t size, bool persist,
                             gjkd_error *error);

/* Handles one serialized Request; *reply (malloc'd, caller frees) is the serialized Response.
 * Never fails: every problem is a status in the reply. */
void gjkd_service_handle(gjkd_service *service, const uint8_t *data, size_t size, uint8_t **reply,
                         size_t *reply_size);

/* A reply to a request that never reached a handler (e.g. wrong framing); counted. */
void gjkd_service_reply_error(gjkd_service *service, gjkd_code code, const char *message,
                              uint8_t **reply, size_t *reply_size);

/* Pose stream: applies one serialized PoseUpdate (all robots or none). */
bool gjkd_service_pose_update(gjkd_service *service, const uint8_t *data, size_t size,
                              uint64_t *sequence, gjkd_error *error);
/* Serialized MonitorEvent for the current state (closest pair, all pair kinds). */
bool gjkd_service_monitor_event(gjkd_service *service, uint64_t sequence, uint8_t **event,
                                size_t *event_size);

/* One handshake refused by CURVE authentication (reported as auth_refused in stats). */
void gjkd_service_count_auth_refused(gjkd_service *service);

void gjkd_service_set_limits(gjkd_service *service, const gjkd_limits *limits);
gjkd_limits gjkd_service_limits(gjkd_service *service);
void gjkd_service_set_draining(gjkd_service *service, bool draining);
uint64_t gjkd_service_revision(const gjkd_service *service);

#endif /* GJKD_DISPATCH_H */
