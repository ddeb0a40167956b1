/* bench_continuous.c — continuous segment checks (gjk/world.h, Continuous segments) against the
 * discrete waypoint query, on the dense work cell (dense_cell.h) and on the daemon's demo.
 *
 * Dense cell: the 100-waypoint pick-and-place trajectory (the arm as a link-pose robot: each
 * link's pose lerped and slerped between waypoints), two query kinds:
 *   closest     mode CLOSEST, no cutoff (the clearance profile)
 *   within      mode ALL_WITHIN, max_distance 0.1 m (bench_dense's query)
 *   first       mode FIRST_COLLISION (validity: the pair searches only certify)
 * each as the discrete query alone and with options.continuous; the ratio is continuous /
 * discrete time. Also the verdict counts, undecided segments, distance queries and part pairs
 * searched.
 * Demo: the daemon's demo scene and 100-waypoint demo trajectory (examples/demo), through the
 * daemon's request handler in process (decode, query, encode: what a client's request costs
 * without the socket), with and without TrajectoryQueryRequest.continuous.
 * --verify: every segment of both scenes against the discrete query on SAMPLES + 1 waypoints
 * (1e-4 of the segment): missed contacts (a clear segment with a colliding sample) and bounds
 * above the sampled minimum, both must be 0.
 * Timing: wall clock, runs interleaved, medians and fastest of --repeats (the host is shared:
 * compare ratios within one run).
 *
 * Usage: bench_continuous [--repeats N] [--seed S] [--verify] [--json] [--help]
 * Build: cmake -DGJK_BUILD_BENCH=ON ... && cmake --build build --target bench_continuous */
#define _POSIX_C_SOURCE 200809L

#include "dense_cell.h"

#include "demo.h"
#include "dispatch.h"
#include "gjkd_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAYPOINTS 100
#define SAMPLES 10000

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_continuous: %s: %s\n", what, why);
    exit(1);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double fastest(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; ++i)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* ------------------------------------------------------------------ the dense cell */

typedef struct tally {
    int clear, contact, undecided;
    int64_t evaluations, pairs_checked;
    int colliding_waypoints;
} tally;

static tally count(const gjk_world_result *r)
{
    tally t;
    memset(&t, 0, sizeof t);
    for (int32_t i = 0; i < r->segment_count; ++i) {
        const gjk_world_segment *s = &r->segments[i];
        t.clear += s->verdict == GJK_CCD_CLEAR;
        t.contact += s->verdict == GJK_CCD_CONTACT;
        t.undecided += s->verdict == GJK_CCD_UNDECIDED;
        t.evaluations += s->evaluations;
        t.pairs_checked += s->pairs_checked;
    }
    for (int32_t w = 0; w < r->waypoint_count; ++w)
        t.colliding_waypoints += r->waypoints[w].collision;
    return t;
}

static gjk_world_result *run(const dense_cell *c, const gjk_transform *poses,
                             const gjk_world_query_options *o, double *seconds)
{
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = c->robot;
    t.waypoint_count = WAYPOINTS;
    t.link_count = DENSE_LINKS;
    t.link_poses = poses;
    gjk_world_result *r = NULL;
    double t0 = now();
    gjk_status s = gjk_world_query_trajectory(c->world, &t, o, &r);
    *seconds = now() - t0;
    if (s != GJK_WORLD_OK)
        die("trajectory query", gjk_status_name(s));
    return r;
}

/* Dense sampling of the segments of a link-pose trajectory: misses and bounds above the
 * sampled minimum. */
typedef struct verdict_check {
    int segments, missed, bound_above, contacts_between;
} verdict_check;

static void verify(gjk_world *world, int32_t robot, int32_t links, const gjk_transform *poses,
                   const gjk_world_result *r, verdict_check *v)
{
    gjk_transform *p = malloc((size_t)(SAMPLES + 1) * (size_t)links * sizeof *p);
    if (!p)
        die("verify", "out of memory");
    for (int32_t i = 0; i < r->segment_count; ++i) {
        const gjk_transform *a = poses + (size_t)i * (size_t)links, *b = a + links;
        for (int k = 0; k <= SAMPLES; ++k)
            for (int32_t l = 0; l < links; ++l)
                p[(size_t)k * (size_t)links + (size_t)l] =
                    gjk_pose_interpolate(a[l], b[l], (double)k / SAMPLES);
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = robot;
        t.waypoint_count = SAMPLES + 1;
        t.link_count = links;
        t.link_poses = p;
        gjk_world_query_options o = gjk_world_default_query_options();
        o.no_penetration_depth = true;
        o.threads = 2;
        gjk_world_result *d = NULL;
        gjk_status s = gjk_world_query_trajectory(world, &t, &o, &d);
        if (s != GJK_WORLD_OK)
            die("sampling", gjk_status_name(s));
        const gjk_world_segment *sg = &r->segments[i];
        ++v->segments;
        if (sg->verdict == GJK_CCD_CLEAR) {
            v->missed += d->first_collision >= 0;
            v->bound_above += sg->clearance_lower_bound > d->min_distance + 1e-12;
        } else if (sg->verdict == GJK_CCD_CONTACT) {
            v->contacts_between += !d->waypoints[0].collision && !d->waypoints[SAMPLES].collision;
        }
        gjk_world_result_destroy(&d);
    }
    free(p);
}

/* ------------------------------------------------------------------ the demo, in process */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

static Gjkd__V1__Response *call(gjkd_service *svc, const Gjkd__V1__Request *req, double *seconds)
{
    size_t n = gjkd__v1__request__get_packed_size(req);
    uint8_t *buf = malloc(n + 1);
    gjkd__v1__request__pack(req, buf);
    uint8_t *reply;
    size_t reply_size;
    double t0 = now();
    gjkd_service_handle(svc, buf, n, &reply, &reply_size);
    Gjkd__V1__Response *r = gjkd__v1__response__unpack(NULL, reply_size, reply);
    if (seconds)
        *seconds = now() - t0;
    free(buf);
    free(reply);
    if (!r || !r->status || r->status->code != GJKD__V1__STATUS_CODE__STATUS_CODE_OK)
        die("demo request", r && r->status ? r->status->message : "no reply");
    return r;
}

typedef struct demo {
    gjkd_service *svc;
    Gjkd__V1__TrajectoryQueryRequest *traj;
} demo;

static void demo_open(demo *d, const char *dir)
{
    gjkd_config config;
    gjkd_config_defaults(&config);
    config.limits.max_waypoints = SAMPLES + 1; /* --verify's sampled segments */
    gjkd_service_def def = {config.limits, 1, 1, NULL};
    gjkd_error e;
    d->svc = gjkd_service_create(&def, &e);
    if (!d->svc || !gjkd_demo_load(d->svc, &e))
        die("demo", e.message);
    char path[1024];
    size_t len;
    gjkd_json_error je;
    snprintf(path, sizeof path, "%s/poses.json", dir);
    char *text = read_file(path, &len);
    Gjkd__V1__SetLinkPosesRequest *poses = NULL;
    if (!text || !gjkd_json_parse_poses(text, len, &poses, &je))
        die(path, text ? je.message : "cannot read");
    free(text);
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_SET_LINK_POSES;
    req.set_link_poses = poses;
    gjkd__v1__response__free_unpacked(call(d->svc, &req, NULL), NULL);
    gjkd_json_poses_free(&poses);
    snprintf(path, sizeof path, "%s/trajectory.json", dir);
    text = read_file(path, &len);
    if (!text || !gjkd_json_parse_trajectory(text, len, &d->traj, &je))
        die(path, text ? je.message : "cannot read");
    free(text);
    free(d->traj->name); /* no named cache: every run cold */
    d->traj->name = strdup("");
}

static Gjkd__V1__Response *demo_run(demo *d, bool continuous, double *seconds)
{
    d->traj->continuous = continuous;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req.trajectory_query = d->traj;
    return call(d->svc, &req, seconds);
}

/* The demo's segments against sampling through the daemon: each segment as a trajectory of
 * SAMPLES + 1 waypoints (lerp + slerp of every link pose). */
static void verify_demo(demo *d, const Gjkd__V1__TrajectoryResult *res, verdict_check *v)
{
    const Gjkd__V1__TrajectoryQueryRequest *m = d->traj;
    size_t n = m->n_waypoints;
    if (n < 2 || m->waypoints[0]->state_case != GJKD__V1__WAYPOINT__STATE_LINK_POSES)
        die("demo trajectory", "expected link poses per waypoint");
    int32_t links = (int32_t)m->waypoints[0]->link_poses->n_poses;
    if (links == 0)
        links = (int32_t)(m->waypoints[0]->link_poses->n_xyz_wxyz / 7);
    gjk_transform *wp = malloc(n * (size_t)links * sizeof *wp);
    double *flat = malloc((size_t)(SAMPLES + 1) * (size_t)links * 7 * sizeof *flat);
    if (!wp || !flat)
        die("verify", "out of memory");
    gjkd_error e;
    for (size_t w = 0; w < n; ++w)
        if (!gjkd_decode_link_poses(m->waypoints[w]->link_poses, links, "waypoint",
                                    wp + w * (size_t)links, &e))
            die("demo trajectory", e.message);
    for (size_t i = 0; i + 1 < n && i < res->n_segments; ++i) {
        const gjk_transform *a = wp + i * (size_t)links, *b = a + links;
        for (int k = 0; k <= SAMPLES; ++k)
            for (int32_t l = 0; l < links; ++l) {
                gjk_transform t = gjk_pose_interpolate(a[l], b[l], (double)k / SAMPLES);
                double *o = flat + ((size_t)k * (size_t)links + (size_t)l) * 7;
                o[0] = t.p.x, o[1] = t.p.y, o[2] = t.p.z;
                o[3] = t.q.w, o[4] = t.q.x, o[5] = t.q.y, o[6] = t.q.z;
            }
        Gjkd__V1__TrajectoryQueryRequest q = GJKD__V1__TRAJECTORY_QUERY_REQUEST__INIT;
        Gjkd__V1__QueryOptions o = GJKD__V1__QUERY_OPTIONS__INIT;
        o.no_penetration_depth = true;
        o.columnar = true;
        q.options = &o;
        q.robot = m->robot;
        q.n_waypoint_xyz_wxyz = (size_t)(SAMPLES + 1) * (size_t)links * 7;
        q.waypoint_xyz_wxyz = flat;
        q.waypoint_count = SAMPLES + 1;
        Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
        req.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
        req.trajectory_query = &q;
        Gjkd__V1__Response *r = call(d->svc, &req, NULL);
        const Gjkd__V1__TrajectoryResult *t = r->trajectory;
        const Gjkd__V1__SegmentResult *sg = res->segments[i];
        double min =
            t->min_distance_opt_case == GJKD__V1__TRAJECTORY_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE
                ? t->min_distance
                : HUGE_VAL;
        const uint32_t colliding = GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_COLLIDING;
        ++v->segments;
        if (sg->verdict == GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CLEAR) {
            v->missed += t->first_collision >= 0;
            v->bound_above += sg->clearance_opt_case ==
                                  GJKD__V1__SEGMENT_RESULT__CLEARANCE_OPT_CLEARANCE_LOWER_BOUND &&
                              sg->clearance_lower_bound > min + 1e-12;
        } else if (sg->verdict == GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CONTACT) {
            v->contacts_between +=
                !(t->columns->flags[0] & colliding) && !(t->columns->flags[SAMPLES] & colliding);
        }
        gjkd__v1__response__free_unpacked(r, NULL);
    }
    free(wp);
    free(flat);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    int repeats = 21;
    bool json = false, check = false;
    uint64_t seed = 1;
    const char *demo_dir = GJK_BENCH_DEMO_DIR;
    static const char usage[] =
        "usage: bench_continuous [--repeats N] [--seed S] [--verify] [--json]\n"
        "  --repeats N  interleaved runs of every figure, median and fastest taken (default 21)\n"
        "  --seed S     seed of the dense cell (default 1)\n"
        "  --verify     also check every segment against 1e-4 sampling (slow)\n"
        "  --json       one JSON object instead of the table\n";
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0 || strcmp(a, "--verify") == 0) {
            *(a[2] == 'j' ? &json : &check) = true;
            continue;
        }
        if (strcmp(a, "--repeats") != 0 && strcmp(a, "--seed") != 0) {
            fprintf(stderr, "bench_continuous: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_continuous: %s needs a value (see --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        char *end = NULL;
        unsigned long long n = strtoull(v, &end, 10);
        if (end == v || *end != '\0') {
            fprintf(stderr, "bench_continuous: %s needs a number, not '%s'\n", a, v);
            return 2;
        }
        if (strcmp(a, "--repeats") == 0)
            repeats = n < 1 || n > 10000 ? 0 : (int)n;
        else
            seed = n;
    }
    if (repeats < 1) {
        fprintf(stderr, "bench_continuous: --repeats is 1..10000\n");
        return 2;
    }

    dense_cell *cell = NULL;
    gjk_status s = dense_cell_create(seed, WAYPOINTS, &cell);
    if (s != GJK_WORLD_OK)
        die("dense_cell_create", gjk_status_name(s));
    gjk_transform *poses = malloc((size_t)WAYPOINTS * DENSE_LINKS * sizeof *poses);
    if (!poses || dense_cell_poses(cell, cell->q, WAYPOINTS, poses) != GJK_KINEMATICS_OK)
        die("forward kinematics", "failed");
    demo dm;
    demo_open(&dm, demo_dir);

    enum { CLOSEST, WITHIN, FIRST, DEMO, KINDS };
    static const char *const kind_names[KINDS] = {"dense closest", "dense within 0.1",
                                                  "dense first-coll.", "demo (daemon)"};
    gjk_world_query_options opt[DEMO];
    for (int k = 0; k < DEMO; ++k) {
        opt[k] = gjk_world_default_query_options();
        if (k == WITHIN) {
            opt[k].mode = GJK_WORLD_MODE_ALL_WITHIN;
            opt[k].has_max_distance = true;
            opt[k].max_distance = 0.1;
        }
        if (k == FIRST)
            opt[k].mode = GJK_WORLD_MODE_FIRST_COLLISION;
    }
    double *times = malloc((size_t)KINDS * 2 * (size_t)repeats * sizeof *times);
    tally tallies[KINDS];
    memset(tallies, 0, sizeof tallies);
    gjk_world_result *kept[DEMO] = {NULL, NULL, NULL};
    for (int rep = 0; rep < repeats; ++rep) {
        for (int k = 0; k < KINDS; ++k) {
            for (int c = 0; c < 2; ++c) {
                double sec;
                if (k == DEMO) {
                    Gjkd__V1__Response *r = demo_run(&dm, c == 1, &sec);
                    if (c == 1 && rep == 0) {
                        const Gjkd__V1__TrajectoryResult *t = r->trajectory;
                        tally *tl = &tallies[k];
                        for (size_t i = 0; i < t->n_segments; ++i) {
                            int v = t->segments[i]->verdict;
                            tl->clear += v == GJK_CCD_CLEAR;
                            tl->contact += v == GJK_CCD_CONTACT;
                            tl->undecided += v == GJK_CCD_UNDECIDED;
                            tl->evaluations += (int64_t)t->segments[i]->evaluations;
                            tl->pairs_checked += t->segments[i]->pairs_checked;
                        }
                        tl->colliding_waypoints = (int)t->colliding_waypoints;
                    }
                    gjkd__v1__response__free_unpacked(r, NULL);
                } else {
                    gjk_world_query_options o = opt[k];
                    o.continuous = c == 1;
                    gjk_world_result *r = run(cell, poses, &o, &sec);
                    if (c == 1 && rep == 0) {
                        tallies[k] = count(r);
                        kept[k] = r;
                    } else {
                        gjk_world_result_destroy(&r);
                    }
                }
                times[((size_t)k * 2 + (size_t)c) * (size_t)repeats + (size_t)rep] = sec;
            }
        }
    }

    verdict_check vc[2];
    memset(vc, 0, sizeof vc);
    if (check) {
        verify(cell->world, cell->robot, DENSE_LINKS, poses, kept[CLOSEST], &vc[0]);
        Gjkd__V1__Response *r = demo_run(&dm, true, NULL);
        verify_demo(&dm, r->trajectory, &vc[1]);
        gjkd__v1__response__free_unpacked(r, NULL);
    }

    double med[KINDS][2], fast[KINDS][2];
    for (int k = 0; k < KINDS; ++k)
        for (int c = 0; c < 2; ++c) {
            double *v = times + ((size_t)k * 2 + (size_t)c) * (size_t)repeats;
            fast[k][c] = fastest(v, repeats);
            med[k][c] = median(v, repeats);
        }
    if (json) {
        printf("{\"repeats\": %d, \"seed\": %llu, \"waypoints\": %d, \"kinds\": [", repeats,
               (unsigned long long)seed, WAYPOINTS);
        for (int k = 0; k < KINDS; ++k) {
            const tally *t = &tallies[k];
            printf("%s{\"kind\": \"%s\", \"discrete_ms\": %.4f, \"continuous_ms\": %.4f, "
                   "\"ratio\": %.3f, \"clear\": %d, \"contact\": %d, \"undecided\": %d, "
                   "\"evaluations\": %lld, \"pairs_checked\": %lld, \"colliding_waypoints\": %d}",
                   k ? ", " : "", kind_names[k], 1e3 * med[k][0], 1e3 * med[k][1],
                   med[k][1] / med[k][0], t->clear, t->contact, t->undecided,
                   (long long)t->evaluations, (long long)t->pairs_checked, t->colliding_waypoints);
        }
        printf("]");
        for (int k = 0; check && k < 2; ++k)
            printf(", \"verify_%s\": {\"segments\": %d, \"missed\": %d, \"bound_above\": %d, "
                   "\"contacts_between_clear_waypoints\": %d}",
                   k ? "demo" : "dense", vc[k].segments, vc[k].missed, vc[k].bound_above,
                   vc[k].contacts_between);
        printf("}\n");
    } else {
        printf("continuous vs discrete, %d waypoints (99 segments), %d repeats, medians "
               "(fastest)\n\n",
               WAYPOINTS, repeats);
        printf("%-18s %-22s %-22s %-7s %-24s %-11s %s\n", "query", "discrete ms", "+ continuous ms",
               "ratio", "clear/contact/undecided", "queries", "pairs searched");
        for (int k = 0; k < KINDS; ++k) {
            const tally *t = &tallies[k];
            char d[32], c[32], v[32];
            snprintf(d, sizeof d, "%.3f (%.3f)", 1e3 * med[k][0], 1e3 * fast[k][0]);
            snprintf(c, sizeof c, "%.3f (%.3f)", 1e3 * med[k][1], 1e3 * fast[k][1]);
            snprintf(v, sizeof v, "%d/%d/%d", t->clear, t->contact, t->undecided);
            printf("%-18s %-22s %-22s %-7.2f %-24s %-11lld %lld\n", kind_names[k], d, c,
                   med[k][1] / med[k][0], v, (long long)t->evaluations,
                   (long long)t->pairs_checked);
        }
        for (int k = 0; check && k < 2; ++k)
            printf("%sverify (%s, 1e-4 sampling): %d segments, %d missed contacts, %d bounds "
                   "above the sampled minimum, %d contacts between clear waypoints\n",
                   k ? "" : "\n", k ? "demo" : "dense closest", vc[k].segments, vc[k].missed,
                   vc[k].bound_above, vc[k].contacts_between);
    }
    int rc = check && (vc[0].missed + vc[0].bound_above + vc[1].missed + vc[1].bound_above > 0);
    for (int k = 0; k < DEMO; ++k)
        gjk_world_result_destroy(&kept[k]);
    free(times);
    free(poses);
    gjkd_json_trajectory_free(&dm.traj);
    gjkd_service_destroy(&dm.svc);
    dense_cell_destroy(&cell);
    return rc;
}
