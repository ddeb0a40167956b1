/* stream.h — the pose stream: an actor thread with a SUB socket for PoseUpdate messages and
 * a PUB socket for MonitorEvent messages.
 *
 * Updates are applied in arrival order; all updates pending at once are applied, then one
 * closest-pair query runs and its MonitorEvent is published ([topic "state"][event]), so a
 * fast publisher never queues queries (latest wins). Invalid updates are dropped and logged.
 * Pose updates are transient: never persisted, no scene revision. */
#ifndef GJKD_STREAM_H
#define GJKD_STREAM_H

#include "auth.h"
#include "dispatch.h"

typedef struct gjkd_stream gjkd_stream;

/* Binds the endpoints (either may be "" = off; both "" returns NULL without error) and
 * starts the thread. NULL with a message in err on failure. */
gjkd_stream *gjkd_stream_start(void *zmq_context, const char *pose_endpoint,
                               const char *monitor_endpoint, gjkd_service *service, char *err,
                               size_t err_size);
/* The same with CURVE: auth != NULL makes both sockets CURVE servers authenticated by its
 * allow-list (publishers and subscribers need a listed key and the server's public key). */
gjkd_stream *gjkd_stream_start_auth(void *zmq_context, const char *pose_endpoint,
                                    const char *monitor_endpoint, gjkd_auth *auth,
                                    gjkd_service *service, char *err, size_t err_size);
/* Stops and joins the thread, closes its sockets; safe on NULL. */
void gjkd_stream_stop(gjkd_stream **stream);

#endif /* GJKD_STREAM_H */
