/* bench_wire.c — see bench_wire.h. */
#define _POSIX_C_SOURCE 200809L
#include "bench_wire.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gjkd_json.h"

extern char **environ;

const char *bw_program = "bench";

double bw_now(void)
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

double bw_quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)floor(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

void bw_die(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s: %s\n", bw_program, what, detail);
    exit(1);
}

int bw_parse_args(int argc, char **argv, const char *usage, const bw_option *options, size_t n)
{
    for (int i = 1; i < argc; i += 2) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; i += 2) {
        const char **value = NULL;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(argv[i], options[k].name) == 0)
                value = options[k].value;
        }
        const char *what = value == NULL   ? "unknown option"
                           : i + 1 >= argc ? "needs a value"
                                           : NULL;
        if (what != NULL) {
            fprintf(stderr, "%s: %s: %s (see %s --help)\n", bw_program, what, argv[i], bw_program);
            return 2;
        }
        *value = argv[i + 1];
    }
    return -1;
}

/* ------------------------------------------------------------------ the demo inputs */

static char *read_file(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gjkd_json_error err;
    char *text = gjkd_json_read_file(path, len, &err);
    if (text == NULL)
        bw_die(path, err.message);
    return text;
}

void bw_demo_load(bw_demo *d, const char *dir)
{
    memset(d, 0, sizeof *d);
    size_t len;
    gjkd_json_error jerr;
    char *text = read_file(dir, "scene.json", &len);
    if (!gjkd_json_parse_scene(text, len, &d->scene, &jerr))
        bw_die("scene.json", jerr.message);
    free(text);
    text = read_file(dir, "trajectory.json", &len);
    if (!gjkd_json_parse_trajectory(text, len, &d->trajectory, &jerr))
        bw_die("trajectory.json", jerr.message);
    free(text);
    text = read_file(dir, "poses.json", &len);
    if (!gjkd_json_parse_poses(text, len, &d->poses, &jerr))
        bw_die("poses.json", jerr.message);
    free(text);

    const Gjkd__V1__TrajectoryQueryRequest *t = d->trajectory;
    d->waypoints = t->n_waypoints;
    d->links = t->waypoints[0]->link_poses->n_poses;
    size_t n = d->waypoints * d->links;
    d->link_poses = malloc(n * sizeof *d->link_poses);
    d->client_poses = malloc(n * sizeof *d->client_poses);
    d->values = malloc(7 * n * sizeof *d->values);
    if (d->link_poses == NULL || d->client_poses == NULL || d->values == NULL)
        bw_die("demo", "out of memory");
    gjkd_error err;
    for (size_t w = 0; w < d->waypoints; w++)
        if (!gjkd_decode_link_poses(t->waypoints[w]->link_poses, (int32_t)d->links, "waypoint",
                                    d->link_poses + w * d->links, &err))
            bw_die("trajectory.json", err.message);
    for (size_t i = 0; i < n; i++) {
        const gjk_transform *x = &d->link_poses[i];
        d->client_poses[i].p = (gjkd_vec3){x->p.x, x->p.y, x->p.z};
        d->client_poses[i].q = (gjkd_quat){x->q.w, x->q.x, x->q.y, x->q.z};
        double v[7] = {x->p.x, x->p.y, x->p.z, x->q.w, x->q.x, x->q.y, x->q.z};
        memcpy(d->values + 7 * i, v, sizeof v);
    }
}

void bw_demo_free(bw_demo *d)
{
    free(d->link_poses);
    free(d->client_poses);
    free(d->values);
    gjkd_json_scene_free(&d->scene);
    gjkd_json_trajectory_free(&d->trajectory);
    gjkd_json_poses_free(&d->poses);
    memset(d, 0, sizeof *d);
}

void bw_demo_options(Gjkd__V1__QueryOptions *o)
{
    gjkd__v1__query_options__init(o);
    o->max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
    o->max_distance = 0.1;
    o->mode = GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST;
}

void bw_lean_request(const bw_demo *d, Gjkd__V1__QueryOptions *options,
                     Gjkd__V1__TrajectoryQueryRequest *body, Gjkd__V1__Request *env)
{
    gjkd__v1__trajectory_query_request__init(body);
    body->robot = d->trajectory->robot;
    body->options = options;
    body->n_waypoint_xyz_wxyz = 7 * d->waypoints * d->links;
    body->waypoint_xyz_wxyz = d->values;
    body->waypoint_count = (uint32_t)d->waypoints;
    gjkd__v1__request__init(env);
    env->body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    env->trajectory_query = body;
}

gjkd_service *bw_service(const bw_demo *d)
{
    gjkd_config cfg;
    gjkd_config_defaults(&cfg);
    gjkd_service_def sd = {cfg.limits, 1, 1, NULL};
    gjkd_error e;
    gjkd_service *svc = gjkd_service_create(&sd, &e);
    size_t n = gjkd__v1__scene__get_packed_size(d->scene);
    uint8_t *buf = malloc(n + 1);
    if (buf == NULL)
        bw_die("service", "out of memory");
    gjkd__v1__scene__pack(d->scene, buf);
    if (svc == NULL || !gjkd_service_load_scene(svc, buf, n, false, &e))
        bw_die("service", e.message);
    free(buf);
    return svc;
}

/* ------------------------------------------------------------------ the daemon */

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
        bw_die("free port", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}

void bw_daemon_start(bw_daemon *d, const char *path, const char *threads, const char *const *extra)
{
    snprintf(d->endpoint, sizeof d->endpoint, "tcp://127.0.0.1:%d", free_port());
    /* No HTTP endpoint: two daemons at once (bench_curve) would share its default port. */
    char *argv[24] = {(char *)path,    "--endpoint",  d->endpoint, "--demo", "--threads",
                      (char *)threads, "--log-level", "warn",      "--http", "off"};
    int n = 10;
    for (; extra != NULL && *extra != NULL && n < 23; extra++)
        argv[n++] = (char *)*extra;
    argv[n] = NULL;
    int rc = posix_spawn(&d->pid, path, NULL, NULL, argv, environ);
    if (rc != 0)
        bw_die(path, strerror(rc));
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
            bw_die("gjkd", "exited at start");
    }
    bw_die("gjkd", "not ready after 20 s");
}

void bw_daemon_stop(bw_daemon *d)
{
    kill(d->pid, SIGTERM);
    int status = 0;
    waitpid(d->pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "%s: gjkd %s exited with status %d\n", bw_program, d->endpoint, status);
}
