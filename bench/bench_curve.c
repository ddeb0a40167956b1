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
 *    (gjkd_service_handle on the bytes of the same request: packed poses, compact reply;
 *    unpack, decode, world query, encode, pack), and through libgjkd-client
 *    (gjkd_query_trajectory) to each daemon;
 *  - a health round trip (no world work): the transport floor;
 *  - connect + first health on a fresh client: the handshake (CURVE adds key exchange).
 * For the world query alone in-process (no codec), see bench_e2e. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "codec.h"
#include "dispatch.h"
#include "gjkd_client.h"
#include "gjkd_json.h"

extern char **environ;

#ifndef GJKD_PATH
#define GJKD_PATH "gjkd"
#endif
#ifndef DEMO_DIR
#define DEMO_DIR "examples/demo"
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "bench_curve: %s: %s\n", what, detail);
    exit(1);
}

static char *read_file(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gjkd_json_error err;
    char *text = gjkd_json_read_file(path, len, &err);
    if (text == NULL)
        die(path, err.message);
    return text;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        die("free port", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}

static void write_key(const char *path, const char *z85, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fprintf(f, "%s\n", z85) < 0 || fclose(f) != 0 || chmod(path, mode) != 0)
        die(path, strerror(errno));
}

typedef struct daemon {
    char endpoint[64];
    pid_t pid;
    gjkd_client_options options;
} daemon;

static void start_daemon(daemon *d, const char *path, const char *key_file, const char *allow_file)
{
    snprintf(d->endpoint, sizeof d->endpoint, "tcp://127.0.0.1:%d", free_port());
    char *argv[16] = {(char *)path, "--endpoint", d->endpoint,   "--demo",
                      "--threads",  "2",          "--log-level", "warn"};
    int n = 8;
    if (key_file != NULL) {
        argv[n++] = "--curve-secret-key";
        argv[n++] = (char *)key_file;
        argv[n++] = "--curve-allow";
        argv[n++] = (char *)allow_file;
    }
    argv[n] = NULL;
    int rc = posix_spawn(&d->pid, path, NULL, NULL, argv, environ);
    if (rc != 0)
        die(path, strerror(rc));
    d->options.endpoint = d->endpoint;
    d->options.timeout_ms = 200;
    d->options.retries = 0;
    for (int i = 0; i < 100; i++) {
        gjkd_client *c;
        gjkd_health *h = NULL;
        if (gjkd_client_create(&d->options, &c) == GJKD_OK) {
            gjkd_status s = gjkd_health_get(c, &h);
            gjkd_health_destroy(&h);
            gjkd_client_destroy(&c);
            if (s == GJKD_OK) {
                d->options.timeout_ms = 10000;
                return;
            }
        }
        int status;
        if (waitpid(d->pid, &status, WNOHANG) == d->pid)
            die("gjkd", "exited at start");
    }
    die("gjkd", "not ready after 20 s");
}

static void stop_daemon(daemon *d)
{
    kill(d->pid, SIGTERM);
    int status = 0;
    waitpid(d->pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "bench_curve: gjkd %s exited with status %d\n", d->endpoint, status);
}

/* Connect + first health round trip on a fresh client (fresh socket: a new handshake). */
static double handshake(const daemon *d, void *context)
{
    gjkd_client_options o = d->options;
    o.zmq_context = context;
    gjkd_client *c;
    double t0 = now_s();
    if (gjkd_client_create(&o, &c) != GJKD_OK)
        die("client", d->endpoint);
    gjkd_health *h;
    if (gjkd_health_get(c, &h) != GJKD_OK)
        die("health", gjkd_client_error(c));
    double t = now_s() - t0;
    gjkd_health_destroy(&h);
    gjkd_client_destroy(&c);
    return t;
}

int main(int argc, char **argv)
{
    const char *gjkd_path = GJKD_PATH, *demo_dir = DEMO_DIR;
    int repeat = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--gjkd") == 0)
            gjkd_path = argv[i + 1];
        else if (strcmp(argv[i], "--demo-dir") == 0)
            demo_dir = argv[i + 1];
        else if (strcmp(argv[i], "--repeat") == 0)
            repeat = atoi(argv[i + 1]);
        else
            die("unknown option", argv[i]);
    }
    if (repeat < 5)
        repeat = 5;

    /* Inputs: the demo scene, its link poses and its trajectory. */
    size_t len;
    gjkd_json_error jerr;
    char *text = read_file(demo_dir, "scene.json", &len);
    Gjkd__V1__Scene *scene;
    if (!gjkd_json_parse_scene(text, len, &scene, &jerr))
        die("scene.json", jerr.message);
    free(text);
    text = read_file(demo_dir, "trajectory.json", &len);
    Gjkd__V1__TrajectoryQueryRequest *req;
    if (!gjkd_json_parse_trajectory(text, len, &req, &jerr))
        die("trajectory.json", jerr.message);
    free(text);
    size_t nw = req->n_waypoints, nl = req->waypoints[0]->link_poses->n_poses;
    gjkd_pose *cp = malloc(nw * nl * sizeof *cp);
    for (size_t w = 0; w < nw; w++) {
        for (size_t l = 0; l < nl; l++) {
            gjk_transform x;
            gjkd_error err;
            if (!gjkd_decode_pose(req->waypoints[w]->link_poses->poses[l], "pose", &x, &err))
                die("trajectory", err.message);
            cp[w * nl + l].p = (gjkd_vec3){x.p.x, x.p.y, x.p.z};
            cp[w * nl + l].q = (gjkd_quat){x.q.w, x.q.x, x.q.y, x.q.z};
        }
    }
    gjkd_query_options qo;
    memset(&qo, 0, sizeof qo);
    qo.has_max_distance = true;
    qo.max_distance = 0.1;
    qo.mode = GJKD_QUERY_CLOSEST;

    /* In-process: the daemon's request path on the request the client sends (packed poses,
     * compact reply: what gjkd_query_trajectory encodes). */
    gjkd_config config;
    gjkd_config_defaults(&config);
    gjkd_service_def sd = {config.limits, 1, 1, NULL};
    gjkd_error se;
    gjkd_service *svc = gjkd_service_create(&sd, &se);
    size_t scene_bytes = gjkd__v1__scene__get_packed_size(scene);
    uint8_t *sbuf = malloc(scene_bytes);
    gjkd__v1__scene__pack(scene, sbuf);
    if (svc == NULL || !gjkd_service_load_scene(svc, sbuf, scene_bytes, false, &se))
        die("service", se.message);
    free(sbuf);
    Gjkd__V1__QueryOptions wo = GJKD__V1__QUERY_OPTIONS__INIT;
    wo.max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
    wo.max_distance = 0.1;
    wo.mode = GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST;
    wo.compact = true;
    double *values = malloc(nw * nl * 7 * sizeof *values);
    Gjkd__V1__LinkPoses *plp = malloc(nw * sizeof *plp);
    Gjkd__V1__Waypoint *pwp = malloc(nw * sizeof *pwp);
    Gjkd__V1__Waypoint **pwpp = malloc(nw * sizeof *pwpp);
    for (size_t w = 0; w < nw; w++) {
        for (size_t l = 0; l < nl; l++) {
            const gjkd_pose *x = &cp[w * nl + l];
            double v[7] = {x->p.x, x->p.y, x->p.z, x->q.w, x->q.x, x->q.y, x->q.z};
            memcpy(values + 7 * (w * nl + l), v, sizeof v);
        }
        gjkd__v1__link_poses__init(&plp[w]);
        plp[w].n_xyz_wxyz = 7 * nl;
        plp[w].xyz_wxyz = values + 7 * w * nl;
        gjkd__v1__waypoint__init(&pwp[w]);
        pwp[w].state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
        pwp[w].link_poses = &plp[w];
        pwpp[w] = &pwp[w];
    }
    Gjkd__V1__TrajectoryQueryRequest packed = *req;
    packed.waypoints = pwpp;
    packed.options = &wo;
    Gjkd__V1__Request env = GJKD__V1__REQUEST__INIT;
    env.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    env.trajectory_query = &packed;
    env.request_id = 1;
    size_t qn = gjkd__v1__request__get_packed_size(&env);
    uint8_t *qb = malloc(qn);
    gjkd__v1__request__pack(&env, qb);
    free(values);
    free(plp);
    free(pwp);
    free(pwpp);

    /* Keys for the CURVE daemon. */
    char dir[] = "/tmp/bench-curve-XXXXXX";
    if (mkdtemp(dir) == NULL)
        die("mkdtemp", strerror(errno));
    char server_pub[41], server_sec[41], client_pub[41], client_sec[41];
    if (zmq_curve_keypair(server_pub, server_sec) != 0 ||
        zmq_curve_keypair(client_pub, client_sec) != 0)
        die("zmq_curve_keypair", zmq_strerror(zmq_errno()));
    char key_file[64], allow_file[64];
    snprintf(key_file, sizeof key_file, "%s/server.key", dir);
    snprintf(allow_file, sizeof allow_file, "%s/client.pub", dir);
    write_key(key_file, server_sec, 0600);
    write_key(allow_file, client_pub, 0644);

    daemon plain, curve;
    memset(&plain, 0, sizeof plain);
    memset(&curve, 0, sizeof curve);
    start_daemon(&plain, gjkd_path, NULL, NULL);
    curve.options.curve_server_key = server_pub;
    curve.options.curve_secret_key = client_sec;
    start_daemon(&curve, gjkd_path, key_file, allow_file);

    void *context = zmq_ctx_new();
    daemon *sides[2] = {&plain, &curve};
    gjkd_client *clients[2];
    for (int s = 0; s < 2; s++) {
        gjkd_client_options o = sides[s]->options;
        o.zmq_context = context;
        if (gjkd_client_create(&o, &clients[s]) != GJKD_OK)
            die("client", sides[s]->endpoint);
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
        double t0 = now_s();
        gjkd_service_handle(svc, qb, qn, &reply, &reply_size);
        t_in[r] = now_s() - t0;
        free(reply);
        for (int s = 0; s < 2; s++) {
            gjkd_client *c = clients[s];
            gjkd_trajectory *t;
            t0 = now_s();
            if (gjkd_query_trajectory(c, &qo, req->robot, NULL, cp, nw, nl, &t) != GJKD_OK)
                die("trajectory", gjkd_client_error(c));
            t_traj[s][r] = now_s() - t0;
            min_d[s] = t->min_distance;
            gjkd_trajectory_destroy(&t);
            gjkd_health *h;
            t0 = now_s();
            if (gjkd_health_get(c, &h) != GJKD_OK)
                die("health", gjkd_client_error(c));
            t_health[s][r] = now_s() - t0;
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
    double in = median(t_in, n);
    double tp = median(t_traj[0], n), tc = median(t_traj[1], n);
    double hp = median(t_health[0], n), hc = median(t_health[1], n);
    double sp = median(t_hs[0], n), sc = median(t_hs[1], n);
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
    stop_daemon(&plain);
    stop_daemon(&curve);
    unlink(key_file);
    unlink(allow_file);
    rmdir(dir);
    free(t_in);
    free(qb);
    free(cp);
    gjkd_service_destroy(&svc);
    gjkd_json_trajectory_free(&req);
    gjkd_json_scene_free(&scene);
    return refused == 0 && fabs(min_d[0] - min_d[1]) < 1e-12 ? 0 : 1;
}
