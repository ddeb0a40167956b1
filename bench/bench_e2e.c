/* bench_e2e.c — gjkd end to end over loopback against the same world query in-process.
 *
 *   bench_e2e [--gjkd PATH] [--demo-dir DIR] [--repeat N] [--seconds S] [--threads T]
 *
 * Starts its own gjkd (--demo, one query thread, T worker threads, default 2) on a free
 * loopback port, and builds the same demo world in-process (examples/demo/scene.json through
 * gjkd_json and the daemon's own codec, so both worlds are identical). Then:
 *  1. the 100-waypoint demo trajectory (max_distance 0.1 m, closest pair per waypoint), cold
 *     (no named cache) and warm (the same named trajectory again): median of N runs
 *     in-process (gjk_world_query_trajectory) and through libgjkd-client (pack, loopback TCP,
 *     daemon decode + the same query + encode, unpack into C structs), and the overhead;
 *  2. small state queries (the demo pose, closest pair, max_distance 0.1 m) from 1, 4 and 16
 *     concurrent clients for S seconds each: queries per second, p50 and p99 latency.
 * A health round trip (no world work) is timed too, as the transport floor. The wire rows use
 * gjkd_query_trajectory (all waypoints in one packed array, columnar reply); beside them the
 * previous lean form (a packed array per waypoint, compact reply) and the first encoding (nested
 * poses, full reply) go through the same daemon, and the daemon's request path is timed
 * in-process (gjkd_service_handle on the same bytes) to separate it from the transport. A bare
 * ZeroMQ service of the daemon's shape running the same query on a forked copy of the same
 * world (bench_skeleton.h) is timed in the same loop: the floor any such service pays here. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "bench_skeleton.h"
#include "bench_wire.h"

#ifndef GJKD_PATH
#define GJKD_PATH "gjkd"
#endif
#ifndef DEMO_DIR
#define DEMO_DIR "examples/demo"
#endif

/* ------------------------------------------------------------------ the in-process world */

static gjkd_limits bench_limits(void)
{
    gjkd_config cfg;
    gjkd_config_defaults(&cfg);
    return cfg.limits;
}

static gjk_body_id body_of(gjk_world *w, const Gjkd__V1__BodyRef *b)
{
    gjk_body_id id = {GJK_BODY_NONE, 0, -1};
    if (b->robot && b->robot[0]) {
        int32_t robot, link = -1;
        if (gjk_world_find_robot(w, b->robot, &robot) != GJK_WORLD_OK)
            bw_die("allowed pair", b->robot);
        if (b->link && b->link[0] && gjk_world_find_link(w, robot, b->link, &link) != GJK_WORLD_OK)
            bw_die("allowed pair", b->link);
        id = gjk_link_body(robot, link);
    } else {
        int32_t ob;
        if (gjk_world_find_obstacle(w, b->obstacle, &ob) != GJK_WORLD_OK)
            bw_die("allowed pair", b->obstacle);
        id = gjk_obstacle_body(ob);
    }
    return id;
}

static gjk_world *build_world(const Gjkd__V1__Scene *scene, const gjkd_limits *limits)
{
    gjk_world *w;
    if (gjk_world_create(NULL, &w) != GJK_WORLD_OK)
        bw_die("world", "create");
    gjkd_error err;
    for (size_t i = 0; i < scene->n_robots; i++) {
        gjkd_body_build b;
        memset(&b, 0, sizeof b);
        if (!gjkd_decode_robot(scene->robots[i], limits, &b, &err))
            bw_die("robot", err.message);
        if (gjk_world_put_robot(w, &b.robot, NULL) != GJK_WORLD_OK)
            bw_die("robot", scene->robots[i]->name);
        gjkd_body_build_release(&b);
    }
    for (size_t i = 0; i < scene->n_obstacles; i++) {
        gjkd_body_build b;
        memset(&b, 0, sizeof b);
        if (!gjkd_decode_obstacle(scene->obstacles[i], limits, &b, &err))
            bw_die("obstacle", err.message);
        if (gjk_world_put_obstacle(w, &b.obstacle, NULL) != GJK_WORLD_OK)
            bw_die("obstacle", scene->obstacles[i]->name);
        gjkd_body_build_release(&b);
    }
    for (size_t i = 0; i < scene->n_allowed_pairs; i++) {
        const Gjkd__V1__AllowedPair *ap = scene->allowed_pairs[i];
        if (gjk_world_set_allowed(w, body_of(w, ap->a), body_of(w, ap->b), true) != GJK_WORLD_OK)
            bw_die("allowed pair", "set");
    }
    return w;
}

/* ------------------------------------------------------------------ load generator */

typedef struct load_arg {
    const char *endpoint;
    void *context;
    double until;
    double *lat; /* seconds per query */
    size_t n, cap;
    int failures;
} load_arg;

static void *load_thread(void *p)
{
    load_arg *a = p;
    gjkd_client_options o = gjkd_client_default_options();
    o.endpoint = a->endpoint;
    o.zmq_context = a->context;
    o.timeout_ms = 10000;
    o.retries = 0;
    gjkd_client *c;
    if (gjkd_client_create(&o, &c) != GJKD_OK) {
        a->failures++;
        return NULL;
    }
    gjkd_query_options q;
    memset(&q, 0, sizeof q);
    q.has_max_distance = true;
    q.max_distance = 0.1;
    q.mode = GJKD_QUERY_CLOSEST;
    while (bw_now() < a->until) {
        double t0 = bw_now();
        gjkd_state *s;
        if (gjkd_query_state(c, &q, &s) != GJKD_OK) {
            a->failures++;
            continue;
        }
        gjkd_state_destroy(&s);
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 4096;
            a->lat = realloc(a->lat, a->cap * sizeof *a->lat);
            if (a->lat == NULL)
                bw_die("load", "out of memory");
        }
        a->lat[a->n++] = bw_now() - t0;
    }
    gjkd_client_destroy(&c);
    return NULL;
}

static void run_load(const char *endpoint, void *context, int clients, double seconds)
{
    load_arg *args = calloc((size_t)clients, sizeof *args);
    pthread_t *th = calloc((size_t)clients, sizeof *th);
    double t0 = bw_now();
    for (int i = 0; i < clients; i++) {
        args[i].endpoint = endpoint;
        args[i].context = context;
        args[i].until = t0 + seconds;
        pthread_create(&th[i], NULL, load_thread, &args[i]);
    }
    size_t total = 0;
    int failures = 0;
    for (int i = 0; i < clients; i++) {
        pthread_join(th[i], NULL);
        total += args[i].n;
        failures += args[i].failures;
    }
    double elapsed = bw_now() - t0;
    double *all = malloc((total + 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < clients; i++) {
        memcpy(all + k, args[i].lat, args[i].n * sizeof *all);
        k += args[i].n;
        free(args[i].lat);
    }
    double p50 = total ? bw_quantile(all, total, 0.50) : 0.0;
    double p99 = total ? bw_quantile(all, total, 0.99) : 0.0;
    printf("  %3d client%s  %9.0f queries/s  p50 %7.1f us  p99 %8.1f us  (%zu queries%s)\n",
           clients, clients == 1 ? " " : "s", (double)total / elapsed, 1e6 * p50, 1e6 * p99, total,
           failures ? ", FAILURES" : "");
    free(all);
    free(args);
    free(th);
}

/* The daemon's trajectory_query handler: total seconds and calls so far. */
static void handler_totals(gjkd_client *c, double *seconds, uint64_t *calls)
{
    gjkd_stats *st;
    if (gjkd_stats_get(c, &st) != GJKD_OK)
        bw_die("stats", gjkd_client_error(c));
    for (size_t i = 0; i < st->command_count; i++) {
        if (strcmp(st->commands[i].name, "trajectory_query") == 0) {
            *seconds = st->commands[i].total_seconds;
            *calls = st->commands[i].calls;
        }
    }
    gjkd_stats_destroy(&st);
}

/* One raw call (pack, round trip, unpack) and its time in seconds. */
static double timed_call(gjkd_client *c, Gjkd__V1__Request *request, const char *what)
{
    Gjkd__V1__Response *r;
    double t0 = bw_now();
    if (gjkd_client_call(c, request, &r) != GJKD_OK)
        bw_die(what, gjkd_client_error(c));
    double t = bw_now() - t0;
    gjkd__v1__response__free_unpacked(r, NULL);
    return t;
}

/* ------------------------------------------------------------------ main */

static const char usage_text[] =
    "usage: bench_e2e [--gjkd PATH] [--demo-dir DIR] [--repeat N] [--seconds S] [--threads T]\n"
    "  --gjkd PATH     the daemon to start (default: this build's)\n"
    "  --demo-dir DIR  scene.json, poses.json, trajectory.json (default: examples/demo)\n"
    "  --repeat N      runs per trajectory figure, median taken (default 200, at least 5)\n"
    "  --seconds S     seconds of each concurrent state-query run (default 2)\n"
    "  --threads T     the daemon's worker threads (default 2)\n";

int main(int argc, char **argv)
{
    const char *gjkd_path = GJKD_PATH, *demo_dir = DEMO_DIR, *threads = "2";
    bw_program = "bench_e2e";
    /* --help used to run the whole benchmark: the loop read options in pairs only. */
    const char *repeat_arg = "200", *seconds_arg = "2";
    const bw_option options[] = {{"--gjkd", &gjkd_path},
                                 {"--demo-dir", &demo_dir},
                                 {"--repeat", &repeat_arg},
                                 {"--seconds", &seconds_arg},
                                 {"--threads", &threads}};
    int rc = bw_parse_args(argc, argv, usage_text, options, sizeof options / sizeof options[0]);
    if (rc >= 0)
        return rc;
    int repeat = atoi(repeat_arg);
    double seconds = atof(seconds_arg);
    if (repeat < 5)
        repeat = 5;

    /* The same inputs for both sides. */
    bw_demo demo;
    bw_demo_load(&demo, demo_dir);
    Gjkd__V1__Scene *scene = demo.scene;
    Gjkd__V1__TrajectoryQueryRequest *req = demo.trajectory;
    gjkd_error err;
    gjkd_limits limits = bench_limits();
    gjk_world *world = build_world(scene, &limits);
    int32_t robot;
    gjk_world_find_robot(world, req->robot, &robot);
    int32_t nl = (int32_t)demo.links;
    int32_t nw = (int32_t)demo.waypoints;
    gjk_transform *lp = demo.link_poses;
    Gjkd__V1__QueryOptions wire_opts;
    bw_demo_options(&wire_opts);
    gjk_world_query_options wopts;
    if (!gjkd_decode_query_options(&wire_opts, &limits, 1, &wopts, &err))
        bw_die("options", err.message);

    gjk_world_trajectory tj;
    memset(&tj, 0, sizeof tj);
    tj.robot = robot;
    tj.waypoint_count = nw;
    tj.link_count = nl;
    tj.link_poses = lp;
    /* The bare ZeroMQ service of gjkd's shape running the same query (bench_skeleton.h),
     * forked before this process has a ZeroMQ context. */
    bw_skeleton skel;
    bw_skeleton_start(&skel, world, &tj, &wopts);

    /* The daemon. */
    bw_daemon daemon;
    bw_daemon_start(&daemon, gjkd_path, threads, NULL);
    const char *endpoint = daemon.endpoint;
    void *context = zmq_ctx_new();
    gjkd_client_options co = gjkd_client_default_options();
    co.endpoint = endpoint;
    co.zmq_context = context;
    co.timeout_ms = 10000;
    co.retries = 0;
    gjkd_client *c;
    if (gjkd_client_create(&co, &c) != GJKD_OK)
        bw_die("client", "create");
    if (gjkd_set_link_poses_request(c, demo.poses) != GJKD_OK)
        bw_die("poses", gjkd_client_error(c));

    double *in_cold = malloc((size_t)repeat * sizeof(double));
    double *in_warm = malloc((size_t)repeat * sizeof(double));
    double *wire_cold = malloc((size_t)repeat * sizeof(double));
    double *wire_warm = malloc((size_t)repeat * sizeof(double));
    double *health = malloc((size_t)repeat * sizeof(double));
    double *skel_cold = malloc((size_t)repeat * sizeof(double));
    double *skel_warm = malloc((size_t)repeat * sizeof(double));
    bw_skeleton_connect(&skel, context);
    gjkd_query_options qo;
    memset(&qo, 0, sizeof qo);
    qo.has_max_distance = true;
    qo.max_distance = 0.1;
    qo.mode = GJKD_QUERY_CLOSEST;
    /* The client's own pose type, as an optimizer holds its trajectory. */
    const gjkd_pose *cp = demo.client_poses;
    /* The first wire encoding, side by side: nested poses and the full reply, through the raw
     * call (pack, round trip, unpack). */
    Gjkd__V1__QueryOptions legacy_opts;
    bw_demo_options(&legacy_opts);
    Gjkd__V1__Request legacy = GJKD__V1__REQUEST__INIT;
    legacy.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    legacy.trajectory_query = req;
    double *legacy_cold = malloc((size_t)repeat * sizeof(double));
    double *legacy_warm = malloc((size_t)repeat * sizeof(double));
    /* The previous lean form, side by side: one packed LinkPoses per waypoint and the compact
     * reply, through the raw call (pack, round trip, unpack). */
    double *values = demo.values;
    Gjkd__V1__LinkPoses *plp = malloc((size_t)nw * sizeof *plp);
    Gjkd__V1__Waypoint *pwp = malloc((size_t)nw * sizeof *pwp);
    Gjkd__V1__Waypoint **pwpp = malloc((size_t)nw * sizeof *pwpp);
    for (int32_t w = 0; w < nw; w++) {
        gjkd__v1__link_poses__init(&plp[w]);
        plp[w].n_xyz_wxyz = 7 * (size_t)nl;
        plp[w].xyz_wxyz = values + 7 * (size_t)w * (size_t)nl;
        gjkd__v1__waypoint__init(&pwp[w]);
        pwp[w].state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
        pwp[w].link_poses = &plp[w];
        pwpp[w] = &pwp[w];
    }
    Gjkd__V1__QueryOptions compact_opts = wire_opts;
    compact_opts.compact = true;
    Gjkd__V1__TrajectoryQueryRequest compact_req = *req;
    compact_req.waypoints = pwpp;
    compact_req.options = &compact_opts;
    compact_req.name = "";
    Gjkd__V1__Request compact_env = GJKD__V1__REQUEST__INIT;
    compact_env.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    compact_env.trajectory_query = &compact_req;
    double *compact_cold = malloc((size_t)repeat * sizeof(double));
    double *compact_warm = malloc((size_t)repeat * sizeof(double));
    /* The request as gjkd_query_trajectory sends it now: every waypoint in one packed array,
     * columnar reply. */
    wire_opts.columnar = true;
    Gjkd__V1__TrajectoryQueryRequest packed_req;
    Gjkd__V1__Request env;
    bw_lean_request(&demo, &wire_opts, &packed_req, &env);
    double min_in = 0.0, min_wire = 0.0, min_skel = 0.0;
    /* The skeleton sends and answers as many bytes as gjkd's request and reply have. */
    size_t skel_req_bytes, skel_reply_bytes;
    {
        Gjkd__V1__Response *raw = NULL;
        if (gjkd_client_call(c, &env, &raw) != GJKD_OK)
            bw_die("raw call", gjkd_client_error(c));
        skel_req_bytes = gjkd__v1__request__get_packed_size(&env);
        skel_reply_bytes = gjkd__v1__response__get_packed_size(raw);
        gjkd__v1__response__free_unpacked(raw, NULL);
    }
    /* Interleaved, so that load changes on the shared machine hit both sides alike. */
    for (int r = 0; r < repeat; r++) {
        gjk_world_result *res;
        tj.name = NULL;
        double t0 = bw_now();
        if (gjk_world_query_trajectory(world, &tj, &wopts, &res) != GJK_WORLD_OK)
            bw_die("in-process", "query");
        in_cold[r] = bw_now() - t0;
        min_in = res->min_distance;
        gjk_world_result_destroy(&res);
        tj.name = "bench";
        t0 = bw_now();
        gjk_world_query_trajectory(world, &tj, &wopts, &res);
        in_warm[r] = bw_now() - t0;
        gjk_world_result_destroy(&res);

        gjkd_trajectory *t;
        t0 = bw_now();
        if (gjkd_query_trajectory(c, &qo, req->robot, NULL, cp, (size_t)nw, (size_t)nl, &t) !=
            GJKD_OK)
            bw_die("wire", gjkd_client_error(c));
        wire_cold[r] = bw_now() - t0;
        min_wire = t->min_distance;
        gjkd_trajectory_destroy(&t);
        t0 = bw_now();
        if (gjkd_query_trajectory(c, &qo, req->robot, "bench", cp, (size_t)nw, (size_t)nl, &t) !=
            GJKD_OK)
            bw_die("wire", gjkd_client_error(c));
        wire_warm[r] = bw_now() - t0;
        gjkd_trajectory_destroy(&t);

        req->options = &legacy_opts;
        free(req->name);
        req->name = strdup("");
        legacy_cold[r] = timed_call(c, &legacy, "legacy");
        free(req->name);
        req->name = strdup("bench-legacy");
        legacy_warm[r] = timed_call(c, &legacy, "legacy");
        req->options = NULL;
        compact_req.name = "";
        compact_cold[r] = timed_call(c, &compact_env, "compact");
        compact_req.name = "bench-compact";
        compact_warm[r] = timed_call(c, &compact_env, "compact");

        skel_cold[r] = bw_skeleton_call(&skel, false, skel_req_bytes, skel_reply_bytes, &min_skel);
        skel_warm[r] = bw_skeleton_call(&skel, true, skel_req_bytes, skel_reply_bytes, &min_skel);

        gjkd_health *h;
        t0 = bw_now();
        gjkd_health_get(c, &h);
        health[r] = bw_now() - t0;
        gjkd_health_destroy(&h);
    }
    /* Where the difference goes: the client's pack of the request and unpack of the reply
     * (the daemon does the mirror image: unpack the request, pack the reply), and the daemon's
     * handler time (world query + decode + encode) from its own stats. */
    double *pack_t = malloc((size_t)repeat * sizeof(double));
    double *unpack_t = malloc((size_t)repeat * sizeof(double));
    Gjkd__V1__Response *raw = NULL;
    if (gjkd_client_call(c, &env, &raw) != GJKD_OK)
        bw_die("raw call", gjkd_client_error(c));
    size_t req_bytes = gjkd__v1__request__get_packed_size(&env); /* with its request_id */
    uint8_t *buf = malloc(req_bytes);
    size_t reply_bytes = gjkd__v1__response__get_packed_size(raw);
    uint8_t *rbuf = malloc(reply_bytes);
    gjkd__v1__response__pack(raw, rbuf);
    gjkd__v1__response__free_unpacked(raw, NULL);
    double *mirror_t = malloc((size_t)repeat * sizeof(double));
    for (int r = 0; r < repeat; r++) {
        double t0 = bw_now();
        gjkd__v1__request__pack(&env, buf);
        pack_t[r] = bw_now() - t0;
        t0 = bw_now();
        Gjkd__V1__Response *u = gjkd__v1__response__unpack(NULL, reply_bytes, rbuf);
        unpack_t[r] = bw_now() - t0;
        /* The daemon's mirror image: unpack the request, pack the reply. */
        t0 = bw_now();
        Gjkd__V1__Request *q = gjkd__v1__request__unpack(NULL, req_bytes, buf);
        gjkd__v1__response__pack(u, rbuf);
        mirror_t[r] = bw_now() - t0;
        gjkd__v1__request__free_unpacked(q, NULL);
        gjkd__v1__response__free_unpacked(u, NULL);
    }
    double mirror = bw_quantile(mirror_t, (size_t)repeat, 0.5);
    /* The daemon's whole request path without the transport: the same service code on the same
     * request bytes (unpack, decode, world query, encode, pack), warm named trajectory. */
    double service_t;
    {
        gjkd_service *svc = bw_service(&demo);
        Gjkd__V1__Request pr = GJKD__V1__REQUEST__INIT;
        pr.body_case = GJKD__V1__REQUEST__BODY_SET_LINK_POSES;
        pr.set_link_poses = demo.poses;
        size_t pn = gjkd__v1__request__get_packed_size(&pr);
        uint8_t *pb = malloc(pn);
        gjkd__v1__request__pack(&pr, pb);
        uint8_t *reply;
        size_t reply_size;
        gjkd_service_handle(svc, pb, pn, &reply, &reply_size);
        free(reply);
        free(pb);
        char *saved_name = packed_req.name;
        packed_req.name = "bench-service";
        size_t qn = gjkd__v1__request__get_packed_size(&env);
        uint8_t *qb = malloc(qn);
        gjkd__v1__request__pack(&env, qb);
        packed_req.name = saved_name;
        for (int r = 0; r < repeat; r++) {
            double t0 = bw_now();
            gjkd_service_handle(svc, qb, qn, &reply, &reply_size);
            mirror_t[r] = bw_now() - t0;
            free(reply);
        }
        free(qb);
        gjkd_service_destroy(&svc);
        service_t = bw_quantile(mirror_t, (size_t)repeat, 0.5);
    }
    /* The daemon's handler time (world query + decode + encode, from its stats) over a run of
     * warm lean queries only. */
    double handler = 0.0, wire_only = 0.0;
    {
        double t_before = 0.0, t_after = 0.0;
        uint64_t c_before = 0, c_after = 0;
        handler_totals(c, &t_before, &c_before);
        for (int r = 0; r < repeat; r++) {
            gjkd_trajectory *t;
            double t0 = bw_now();
            if (gjkd_query_trajectory(c, &qo, req->robot, "bench", cp, (size_t)nw, (size_t)nl,
                                      &t) != GJKD_OK)
                bw_die("wire", gjkd_client_error(c));
            mirror_t[r] = bw_now() - t0;
            gjkd_trajectory_destroy(&t);
        }
        handler_totals(c, &t_after, &c_after);
        if (c_after > c_before)
            handler = (t_after - t_before) / (double)(c_after - c_before);
        wire_only = bw_quantile(mirror_t, (size_t)repeat, 0.5);
    }
    free(mirror_t);
    double pk = bw_quantile(pack_t, (size_t)repeat, 0.5),
           up = bw_quantile(unpack_t, (size_t)repeat, 0.5);
    free(pack_t);
    free(unpack_t);
    free(buf);
    free(rbuf);

    double ic = bw_quantile(in_cold, (size_t)repeat, 0.5),
           iw = bw_quantile(in_warm, (size_t)repeat, 0.5);
    double wc = bw_quantile(wire_cold, (size_t)repeat, 0.5),
           ww = bw_quantile(wire_warm, (size_t)repeat, 0.5);
    double hp = bw_quantile(health, (size_t)repeat, 0.5);
    double lc = bw_quantile(legacy_cold, (size_t)repeat, 0.5),
           lw = bw_quantile(legacy_warm, (size_t)repeat, 0.5);
    printf("bench_e2e: demo trajectory, %d waypoints x %d links, max_distance 0.1 m, closest pair "
           "(median of %d, interleaved)\n",
           nw, nl, repeat);
    double kc = bw_quantile(compact_cold, (size_t)repeat, 0.5),
           kw = bw_quantile(compact_warm, (size_t)repeat, 0.5);
    printf("  %-6s %12s %14s %10s %15s %10s %13s %10s\n", "", "in-process", "gjkd loopback",
           "overhead", "packed+compact", "overhead", "nested+full", "overhead");
    printf("  %-6s %9.3f ms %11.3f ms %8.1f %% %12.3f ms %8.1f %% %10.3f ms %8.1f %%\n", "cold",
           1e3 * ic, 1e3 * wc, 100.0 * (wc - ic) / ic, 1e3 * kc, 100.0 * (kc - ic) / ic, 1e3 * lc,
           100.0 * (lc - ic) / ic);
    printf("  %-6s %9.3f ms %11.3f ms %8.1f %% %12.3f ms %8.1f %% %10.3f ms %8.1f %%\n", "warm",
           1e3 * iw, 1e3 * ww, 100.0 * (ww - iw) / iw, 1e3 * kw, 100.0 * (kw - iw) / iw, 1e3 * lw,
           100.0 * (lw - iw) / iw);
    printf("  (gjkd loopback: gjkd_query_trajectory, all waypoints in one packed array + columnar "
           "reply, into C structs; packed+compact: the previous lean form, one packed array per "
           "waypoint + compact reply, raw call; nested+full: the first encoding, nested poses + "
           "full reply, raw call)\n");
    double sc = bw_quantile(skel_cold, (size_t)repeat, 0.5),
           sw = bw_quantile(skel_warm, (size_t)repeat, 0.5);
    printf("  bare ZeroMQ of gjkd's shape (ROUTER + broker + inproc worker in a second process, "
           "the same query, the same bytes, no protocol): cold %.3f ms (%+.1f %%), warm %.3f ms "
           "(%+.1f %%);\n  gjkd beyond it: cold %+.1f %%, warm %+.1f %% of the in-process "
           "time%s\n",
           1e3 * sc, 100.0 * (sc - ic) / ic, 1e3 * sw, 100.0 * (sw - iw) / iw,
           100.0 * (wc - sc) / ic, 100.0 * (ww - sw) / iw,
           fabs(min_skel - min_in) < 1e-9 ? "" : " (skeleton's minimum DIFFERS)");
    printf("  health round trip (transport floor): %.1f us; minimum distance in-process %.6f, "
           "over the wire %.6f%s\n",
           1e6 * hp, min_in, min_wire, fabs(min_in - min_wire) < 1e-9 ? " (equal)" : " (DIFFER)");
    printf("  request %zu bytes, reply %zu bytes; client pack %.1f us + unpack %.1f us; the "
           "same unpack + pack on the daemon side %.1f us;\n  warm lean queries alone: %.3f ms, "
           "daemon handler mean %.3f ms (world query + decode + encode, from its stats)\n",
           req_bytes, reply_bytes, 1e6 * pk, 1e6 * up, 1e6 * mirror, 1e3 * wire_only,
           1e3 * handler);
    printf("  the daemon's request path in-process (gjkd_service_handle on the same bytes, warm): "
           "%.3f ms\n",
           1e3 * service_t);
    printf("bench_e2e: state queries (demo pose, closest pair, max_distance 0.1 m), %s worker "
           "threads, %.1f s each\n",
           threads, seconds);
    int counts[] = {1, 4, 16};
    for (size_t i = 0; i < 3; i++)
        run_load(endpoint, context, counts[i], seconds);

    gjkd_client_destroy(&c);
    bw_skeleton_stop(&skel);
    zmq_ctx_term(context);
    bw_daemon_stop(&daemon);
    free(in_cold);
    free(in_warm);
    free(wire_cold);
    free(wire_warm);
    free(legacy_cold);
    free(legacy_warm);
    free(compact_cold);
    free(compact_warm);
    free(plp);
    free(pwp);
    free(pwpp);
    free(health);
    free(skel_cold);
    free(skel_warm);
    gjk_world_destroy(&world);
    bw_demo_free(&demo);
    return 0;
}
