/* bench_wire.h — what bench_e2e and bench_curve share: timing and medians, the demo inputs
 * (scene, link poses, trajectory) in every form the benches send or query, the daemon's own
 * request path in-process, and a gjkd started on a free loopback port and stopped with
 * SIGTERM. */
#ifndef GJKD_BENCH_WIRE_H
#define GJKD_BENCH_WIRE_H

#include <stddef.h>
#include <sys/types.h>

#include "codec.h"
#include "dispatch.h"
#include "gjk/world.h"
#include "gjkd_client.h"

/* The program name in messages ("bench_e2e"); set once by main. */
extern const char *bw_program;

double bw_now(void);
/* q-quantile of v[0..n) (sorts v). */
double bw_quantile(double *v, size_t n, double q);
/* Prints "PROGRAM: what: detail" and exits 1. */
void bw_die(const char *what, const char *detail) __attribute__((noreturn));
/* The command line: options that each take a value ("--name VALUE" stores VALUE in *value). */
typedef struct bw_option {
    const char *name;
    const char **value;
} bw_option;
/* Parses argv[1..] against the n options. Returns -1 to go on; otherwise the exit status, before
 * any work: 0 after `usage` on stdout for --help or -h, 2 after a one-line error on stderr
 * for an unknown option or a missing value. */
int bw_parse_args(int argc, char **argv, const char *usage, const bw_option *options, size_t n);

/* examples/demo: scene.json, poses.json and trajectory.json, parsed, and the trajectory's
 * poses decoded: as the world takes them, as the client library takes them, and as the packed
 * values (7 per pose, px py pz qw qx qy qz) of the lean request. */
typedef struct bw_demo {
    Gjkd__V1__Scene *scene;
    Gjkd__V1__SetLinkPosesRequest *poses;
    Gjkd__V1__TrajectoryQueryRequest *trajectory; /* nested poses, as the JSON gives them */
    size_t waypoints, links;
    gjk_transform *link_poses; /* waypoints x links */
    gjkd_pose *client_poses;   /* waypoints x links */
    double *values;            /* 7 x waypoints x links */
} bw_demo;

void bw_demo_load(bw_demo *demo, const char *dir);
void bw_demo_free(bw_demo *demo);

/* The benches' query options: max_distance 0.1 m, closest pair per waypoint. */
void bw_demo_options(Gjkd__V1__QueryOptions *options);
/* The trajectory as gjkd_query_trajectory sends it (every waypoint in one packed array,
 * waypoint_xyz_wxyz) with `options`, into *body and the Request *env around it (pointing
 * into demo, options and body). */
void bw_lean_request(const bw_demo *demo, Gjkd__V1__QueryOptions *options,
                     Gjkd__V1__TrajectoryQueryRequest *body, Gjkd__V1__Request *env);
/* The daemon's request path without sockets: a service with the demo scene loaded. */
gjkd_service *bw_service(const bw_demo *demo);

/* A gjkd on a free loopback port: --demo, --threads `threads`, --log-level warn and `extra`
 * (NULL-terminated, may be NULL). Returns once it answers health; options are ready for
 * clients (10 s timeout, no retries; the caller may add CURVE keys before starting). */
typedef struct bw_daemon {
    char endpoint[64];
    pid_t pid;
    gjkd_client_options options;
} bw_daemon;

void bw_daemon_start(bw_daemon *daemon, const char *path, const char *threads,
                     const char *const *extra);
/* SIGTERM and wait; says so on stderr unless it exits 0. */
void bw_daemon_stop(bw_daemon *daemon);

#endif /* GJKD_BENCH_WIRE_H */
