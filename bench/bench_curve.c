/* bench_curve.c — what CURVE costs: the demo trajectory in-process, over loopback plain and
 * over loopback CURVE.
 *
 *   bench_curve [--gjkd PATH] [--demo-dir DIR] [--repeat N]
 *
 * Starts two gjkd (--demo, one query thread, two workers) on free loopback ports, one plain
 * and one with CURVE (a fresh server key pair and one allowed client key, written to a
 * temporary directory and removed at the end). Then, interleaved so that load changes on the
 * shared machine hit every side alike, medians of N runs of:
 *  - the 100-waypoint demo trajectory (max_distance 0.1 m, closest pair per waypoint, not
 *    named: no warm start): in-process through the daemon's own request path
 *    (gjkd_service_handle on the bytes of the same request: every waypoint in one packed
 *    array, columnar reply; unpack, decode, world query, encode, pack), and through
 *    libgjkd-client
 *    (gjkd_query_trajectory) to each daemon;
 *  - a health round trip (no world work): the transport floor;
 *  - connect + first health on a fresh client: the handshake (CURVE adds key exchange).
 * For the world query alone in-process (no codec), see bench_e2e. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "bench_wire.h"

#ifndef GJKD_PATH
#define GJKD_PATH "gjkd"
#endif
#ifndef DEMO_DIR
#define DEMO_DIR "examples/demo"
#endif

static void write_key(const char *path, const char *z85, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fprintf(f, "%s\n", z85) < 0 || fclose(f) != 0 || chmod(path, mode) != 0)
        bw_die(path, strerror(errno));
}

/* Connect + first health round trip on a fresh client (fresh socket: a new handshake). */
static double handshake(const bw_daemon *d, void *context)
{
    gjkd_client_options o = d->options;
    o.zmq_context = context;
    gjkd_client *c;
    double t0 = bw_now();
    if (gjkd_client_create(&o, &c) != GJKD_OK)
        bw_die("client", d->endpoint);
    gjkd_health *h;
    if (gjkd_health_get(c, &h) != GJKD_OK)
        bw_die("health", gjkd_client_error(c));
    double t = bw_now() - t0;
    gjkd_health_destroy(&h);
    gjkd_client_destroy(&c);
    return t;
}

static const char usage_text[] =
    "usage: bench_curve [--gjkd PATH] [--demo-dir DIR] [--repeat N]\n"
    "  --gjkd PATH     the daemon to start, twice: plain and CURVE (default: this build's)\n"
    "  --demo-dir DIR  scene.json, poses.json, trajectory.json (default: examples/demo)\n"
    "  --repeat N      runs per figure, median taken (default 200, at least 5)\n";

int main(int argc, char **argv)
{
    const char *gjkd_path = GJKD_PATH, *demo_dir = DEMO_DIR;
    bw_program = "bench_curve";
    const char *repeat_arg = "200";
    const bw_option options[] = {
        {"--gjkd", &gjkd_path}, {"--demo-dir", &demo_dir}, {"--repeat", &repeat_arg}};
    int rc = bw_parse_args(argc, argv, usage_text, options, sizeof options / sizeof options[0]);
    if (rc >= 0)
        return rc;
    int repeat = atoi(repeat_arg);
    if (repeat < 5)
        repeat = 5;

    /* Inputs: the demo scene, its link poses and its trajectory. */
    bw_demo demo;
    bw_demo_load(&demo, demo_dir);
    const Gjkd__V1__TrajectoryQueryRequest *req = demo.trajectory;
    size_t nw = demo.waypoints, nl = demo.links;
    const gjkd_pose *cp = demo.client_poses;
    gjkd_query_options qo;
    memset(&qo, 0, sizeof qo);
    qo.has_max_distance = true;
    qo.max_distance = 0.1;
    qo.mode = GJKD_QUERY_CLOSEST;

    /* In-process: the daemon's request path on the request the client sends (every waypoint
     * in one packed array, columnar reply: what gjkd_query_trajectory encodes). */
    gjkd_service *svc = bw_service(&demo);
    Gjkd__V1__QueryOptions wo;
    bw_demo_options(&wo);
    wo.columnar = true;
    Gjkd__V1__TrajectoryQueryRequest packed;
    Gjkd__V1__Request env;
    bw_lean_request(&demo, &wo, &packed, &env);
    env.request_id = 1;
    size_t qn = gjkd__v1__request__get_packed_size(&env);
    uint8_t *qb = malloc(qn);
    gjkd__v1__request__pack(&env, qb);

    /* Keys for the CURVE daemon. */
    char dir[] = "/tmp/bench-curve-XXXXXX";
    if (mkdtemp(dir) == NULL)
        bw_die("mkdtemp", strerror(errno));
    char server_pub[41], server_sec[41], client_pub[41], client_sec[41];
    if (zmq_curve_keypair(server_pub, server_sec) != 0 ||
        zmq_curve_keypair(client_pub, client_sec) != 0)
        bw_die("zmq_curve_keypair", zmq_strerror(zmq_errno()));
    char key_file[64], allow_file[64];
    snprintf(key_file, sizeof key_file, "%s/server.key", dir);
    snprintf(allow_file, sizeof allow_file, "%s/client.pub", dir);
    write_key(key_file, server_sec, 0600);
    write_key(allow_file, client_pub, 0644);

    bw_daemon plain, curve;
    memset(&plain, 0, sizeof plain);
    memset(&curve, 0, sizeof curve);
    bw_daemon_start(&plain, gjkd_path, "2", NULL);
    curve.options.curve_server_key = server_pub;
    curve.options.curve_secret_key = client_sec;
    const char *curve_args[] = {"--curve-secret-key", key_file, "--curve-allow", allow_file, NULL};
    bw_daemon_start(&curve, gjkd_path, "2", curve_args);

    void *context = zmq_ctx_new();
    bw_daemon *sides[2] = {&plain, &curve};
    gjkd_client *clients[2];
    for (int s = 0; s < 2; s++) {
        gjkd_client_options o = sides[s]->options;
        o.zmq_context = context;
        if (gjkd_client_create(&o, &clients[s]) != GJKD_OK)
            bw_die("client", sides[s]->endpoint);
    }
    size_t n = (size_t)repeat;
    double *t_in = malloc(n * sizeof(double));
    double *t_traj[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    double *t_health[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    double *t_hs[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    double min_d[2] = {0, 0};
    for (int r = 0; r < repeat; r++) {
        uint8_t *reply;
        size_t reply_size;
        double t0 = bw_now();
        gjkd_service_handle(svc, qb, qn, &reply, &reply_size);
        t_in[r] = bw_now() - t0;
        free(reply);
        for (int s = 0; s < 2; s++) {
            gjkd_client *c = clients[s];
            gjkd_trajectory *t;
            t0 = bw_now();
            if (gjkd_query_trajectory(c, &qo, req->robot, NULL, cp, nw, nl, &t) != GJKD_OK)
                bw_die("trajectory", gjkd_client_error(c));
            t_traj[s][r] = bw_now() - t0;
            min_d[s] = t->min_distance;
            gjkd_trajectory_destroy(&t);
            gjkd_health *h;
            t0 = bw_now();
            if (gjkd_health_get(c, &h) != GJKD_OK)
                bw_die("health", gjkd_client_error(c));
            t_health[s][r] = bw_now() - t0;
            gjkd_health_destroy(&h);
            t_hs[s][r] = handshake(sides[s], context);
        }
    }
    gjkd_stats *st;
    uint64_t refused = 0;
    if (gjkd_stats_get(clients[1], &st) == GJKD_OK) {
        refused = st->auth_refused;
        gjkd_stats_destroy(&st);
    }
    double in = bw_quantile(t_in, n, 0.5);
    double tp = bw_quantile(t_traj[0], n, 0.5), tc = bw_quantile(t_traj[1], n, 0.5);
    double hp = bw_quantile(t_health[0], n, 0.5), hc = bw_quantile(t_health[1], n, 0.5);
    double sp = bw_quantile(t_hs[0], n, 0.5), sc = bw_quantile(t_hs[1], n, 0.5);
    printf("bench_curve: demo trajectory, %zu waypoints x %zu links, max_distance 0.1 m, closest "
           "pair, not named (median of %d, interleaved); request %zu bytes\n",
           nw, nl, repeat, qn);
    printf("  %-34s %10.3f ms\n", "in-process (gjkd_service_handle)", 1e3 * in);
    printf("  %-34s %10.3f ms   %+6.1f %% vs in-process\n", "loopback plain", 1e3 * tp,
           100.0 * (tp - in) / in);
    printf("  %-34s %10.3f ms   %+6.1f %% vs in-process, %+6.1f %% vs plain (%+.1f us)\n",
           "loopback CURVE", 1e3 * tc, 100.0 * (tc - in) / in, 100.0 * (tc - tp) / tp,
           1e6 * (tc - tp));
    printf("  health round trip: plain %.1f us, CURVE %.1f us (%+.1f us)\n", 1e6 * hp, 1e6 * hc,
           1e6 * (hc - hp));
    printf("  connect + first health (handshake): plain %.1f us, CURVE %.1f us (%+.1f us)\n",
           1e6 * sp, 1e6 * sc, 1e6 * (sc - sp));
    printf("  minimum distance plain %.6f, CURVE %.6f%s; CURVE daemon refused %llu handshakes\n",
           min_d[0], min_d[1], fabs(min_d[0] - min_d[1]) < 1e-12 ? " (equal)" : " (DIFFER)",
           (unsigned long long)refused);

    for (int s = 0; s < 2; s++) {
        gjkd_client_destroy(&clients[s]);
        free(t_traj[s]);
        free(t_health[s]);
        free(t_hs[s]);
    }
    zmq_ctx_term(context);
    bw_daemon_stop(&plain);
    bw_daemon_stop(&curve);
    unlink(key_file);
    unlink(allow_file);
    rmdir(dir);
    free(t_in);
    free(qb);
    gjkd_service_destroy(&svc);
    bw_demo_free(&demo);
    return refused == 0 && fabs(min_d[0] - min_d[1]) < 1e-12 ? 0 : 1;
}
