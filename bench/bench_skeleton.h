/* bench_skeleton.h — the transport floor under a real query: a bare ZeroMQ service with
 * gjkd's shape (ROUTER frontend on loopback TCP, a broker thread, one worker thread behind it
 * over inproc, in a second process) whose worker runs the same world query as the in-process
 * baseline on a forked copy of the same world, with no protocol at all: the request and the
 * reply are opaque bytes of the sizes gjkd's own request and reply have.
 *
 * What bench_e2e learns from it: of the wire's overhead over the in-process query, how much
 * any service of this shape pays on this machine (loopback TCP, two processes, and the wake-up
 * of threads that slept while the query ran), and how much gjkd adds on top (protobuf, the
 * dispatch table, validation, the client library). */
#ifndef GJKD_BENCH_SKELETON_H
#define GJKD_BENCH_SKELETON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gjk/world.h"

typedef struct bw_skeleton {
    char endpoint[64]; /* tcp://127.0.0.1:PORT */
    pid_t pid;
    void *context, *socket; /* the caller's DEALER to it (bw_skeleton_connect) */
} bw_skeleton;

/* Forks the service: the child serves `trajectory` on `world` with `options` (a cold query,
 * or warm under the trajectory name "skeleton") until SIGTERM. Call before the caller creates
 * any ZeroMQ context (the child must not inherit one). Returns once the port is known. */
void bw_skeleton_start(bw_skeleton *s, gjk_world *world, const gjk_world_trajectory *trajectory,
                       const gjk_world_query_options *options);
/* A DEALER in `context` connected to the service. */
void bw_skeleton_connect(bw_skeleton *s, void *context);
/* One round trip: a request of request_bytes asking for a cold or warm query and a reply of
 * reply_bytes. Returns the seconds it took; *min_distance is the query's minimum distance. */
double bw_skeleton_call(bw_skeleton *s, bool warm, size_t request_bytes, size_t reply_bytes,
                        double *min_distance);
/* Closes the DEALER, SIGTERM and wait. */
void bw_skeleton_stop(bw_skeleton *s);

#endif /* GJKD_BENCH_SKELETON_H */
