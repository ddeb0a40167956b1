/* peers.h — one interface over every engine the peer benchmark runs: gjkd and the Debian
 * builds of libccd, FCL and Bullet. The driver (bench_peers.c) never calls an engine's own
 * API; it goes through a bench_engine table.
 *
 * Life of an engine in a benchmark run:
 *   open()      once, in the driver: builds every case shape in the engine's own form from
 *               the shared hulls (untimed: shape preprocessing is excluded from all timings);
 *   prepare()   per case, in a worker: places the two shapes at the case's poses in the
 *               engine's own pose type (untimed) into `pair_size` bytes;
 *   query()     the timed call, repeated in a tight loop;
 *   close()     once.
 * A query reads and updates `warm_size` bytes of warm-start state when `warm` is not NULL
 * (the engine's own mechanism: a simplex cache, a cached separating axis, a guess); with
 * warm == NULL it starts cold, from what the engine does by default. */
#ifndef GJK_BENCH_PEERS_H
#define GJK_BENCH_PEERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_cases.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bench_kind {
    BENCH_DISTANCE = 0,    /* the case is separated or touching: ask for the distance */
    BENCH_PENETRATION = 1, /* the case is intersecting: ask for the depth */
} bench_kind;

/* The engine's answer, converted to the case file's conventions. */
typedef struct bench_answer {
    bool ok;            /* the engine reported success (false: its own failure status) */
    int verdict;        /* +1 separated, -1 intersecting, 0 touching or no verdict */
    bool has_sd;        /* sd is an answer (distance or minus the depth) */
    double sd;          /* signed distance, metres: > 0 gap, < 0 minus the penetration depth */
    bool has_normal;    /* normal is an answer */
    gjk_vec3 normal;    /* unit, from A to B, world frame */
    int32_t iterations; /* GJK iterations (or as the engine counts them); -1 when not exposed */
    int32_t code;       /* the engine's own status code (gjk_status, libccd return value,
                           btGjkEpaSolver2 status, ...), for the per-case CSV */
} bench_answer;

typedef struct bench_world {
    const gjk_case_set *set;
    const bench_hull *hulls; /* one per case shape */
} bench_world;

typedef struct bench_engine {
    const char *name;  /* row name in the tables */
    const char *calls; /* the engine calls used, for the report */
    bool distance;     /* has a distance query (else: verdict only on separated cases) */
    bool penetration;  /* has a penetration-depth query */
    size_t warm_size;  /* bytes of warm-start state (<= BENCH_WARM_MAX); 0 = no warm start */
    bool warm_repeat;  /* a "warm" row: each case warm-starts from its own previous query */
    size_t pair_size;  /* bytes prepare() writes (<= BENCH_PAIR_MAX) */
    void *(*open)(const bench_world *world);
    void (*close)(void *ctx);
    void (*prepare)(void *ctx, const gjk_case *c, void *pair);
    void (*query)(void *ctx, const void *pair, bench_kind kind, void *warm, bench_answer *out);
} bench_engine;

#define BENCH_WARM_MAX 64
#define BENCH_PAIR_MAX 512

/* Engine tables; each returns how many it wrote into out (at most `cap`). */
int bench_engines_gjkd(const bench_engine **out, int cap);
int bench_engines_ccd(const bench_engine **out, int cap);
int bench_engines_fcl(const bench_engine **out, int cap);
int bench_engines_bullet(const bench_engine **out, int cap);

#ifdef __cplusplus
}
#endif

#endif /* GJK_BENCH_PEERS_H */
