/* bench_world.c — the world layer on a demo-like scene, all figures side by side in one run.
 *
 * Scene: a 7-link arm (revolute joints, alternating z and y axes, 0.3 m links), each link one
 * convex hull of 100-300 vertices; obstacles are boxes, cylinders and hulls. A 100-waypoint
 * trajectory (joint-space interpolation, link poses by forward kinematics) is queried with
 * max_distance 0.1 m in ALL_WITHIN mode (every body pair within reach, once: the optimizer's cost
 * terms).
 *
 * Figures (medians of repeated runs, one query = the whole 100-waypoint trajectory):
 *   cold      unnamed query: every block of waypoints starts cold
 *   warm      the same named trajectory re-queried after a small perturbation of the joint
 *             angles (the optimizer's next iteration)
 *   threads   1 vs 2 threads, cold and warm
 *   scale     100 vs 2,000 obstacles, the 1,900 extra ones far from the arm (same number near)
 *   narrow-phase pairs per second, broad-phase pruning ratio (possible / narrow pairs)
 *   joints    the same arm as a robot with joints (a part-less base link + the 7 links, one
 *             revolute joint each): a joint-space trajectory (FK per waypoint inside the
 *             query) against the same query with the link poses given, cold and warm, and the
 *             cost of options.gradients per reported pair against the narrow-phase time per
 *             pair and against the reported pairs' own time: bare gjk_signed_distance on
 *             exactly the reported pairs (their parts' world poses from FK), zeroed caches and
 *             warm-started from the part pair's previous waypoint as the world does
 *             (targets: <= 5 % and <= 10 %)
 *
 * Usage: bench_world [--repeats N] [--waypoints N] [--seed S]
 * Build: cmake -DGJK_BUILD_BENCH=ON ... && cmake --build build --target bench_world */
#define _POSIX_C_SOURCE 200809L

#include "gjk/gjk.h"
#include "gjk/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINKS 7
#define LINK_LENGTH 0.3
#define MAX_DISTANCE 0.1

static uint64_t rng = 0x853C49E6748FEA9Bu;

static double rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717u) >> 11) * 0x1.0p-53;
}

static double range(double lo, double hi)
{
    return lo + (hi - lo) * rnd();
}

static double clock_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void)
{
    return clock_seconds(CLOCK_MONOTONIC);
}

/* CPU time of all the process's threads: unlike wall time, not inflated when other programs
 * take the cores (the machine this runs on is shared). */
static double cpu_now(void)
{
    return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

static double last_cpu; /* CPU seconds of the last timed query */

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

static void die(const char *what, gjk_status s)
{
    fprintf(stderr, "bench_world: %s: %s\n", what, gjk_status_name(s));
    exit(1);
}

/* ------------------------------------------------------------------ geometry */

static gjk_polytope polys[4096];
static int poly_count = 0;

/* Hull of `n` points on a rounded, capsule-like surface about the z axis: every point is a
 * hull vertex, so the hull has n vertices. */
static const gjk_polytope *link_hull(int n, double radius, double half_length)
{
    gjk_vec3 *p = malloc((size_t)n * sizeof *p);
    for (int i = 0; i < n; ++i) {
        /* Fibonacci sphere, stretched along z */
        double z = 1.0 - 2.0 * (i + 0.5) / n;
        double r = sqrt(1.0 - z * z);
        double phi = 2.399963229728653 * i;
        p[i] =
            gjk_v3(radius * r * cos(phi), radius * r * sin(phi), z * (half_length + radius * 0.5));
    }
    gjk_polytope *poly = &polys[poly_count++];
    gjk_status s = gjk_hull_build(poly, p, n, NULL);
    free(p);
    if (s != GJK_STATUS_SEPARATED)
        die("hull", s);
    return poly;
}

static const gjk_polytope *rock_hull(int n, double size)
{
    gjk_vec3 *p = malloc((size_t)n * sizeof *p);
    for (int i = 0; i < n; ++i)
        p[i] = gjk_v3(range(-size, size), range(-size, size), range(-size, size));
    gjk_polytope *poly = &polys[poly_count++];
    gjk_status s = gjk_hull_build(poly, p, n, NULL);
    free(p);
    if (s != GJK_STATUS_SEPARATED)
        die("hull", s);
    return poly;
}

/* Forward kinematics: joint i turns about z (even i) or y (odd i) at the end of link i-1;
 * link i spans 0..LINK_LENGTH along its local z. */
static void forward(const double *q, gjk_transform *links)
{
    gjk_transform t = gjk_transform_identity();
    for (int i = 0; i < LINKS; ++i) {
        gjk_vec3 axis = i % 2 == 0 ? gjk_v3(0, 0, 1) : gjk_v3(0, 1, 0);
        t = gjk_transform_mul(
            t, gjk_transform_make(gjk_quat_from_axis_angle(axis, q[i]), gjk_v3(0, 0, 0)));
        links[i] = t;
        t = gjk_transform_mul(t,
                              gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, LINK_LENGTH)));
    }
}

static void trajectory(const double *q0, const double *q1, double noise, int waypoints,
                       gjk_transform *out)
{
    for (int w = 0; w < waypoints; ++w) {
        double u = (double)w / (waypoints - 1), q[LINKS];
        for (int i = 0; i < LINKS; ++i)
            q[i] = (1 - u) * q0[i] + u * q1[i] + (noise > 0 ? range(-noise, noise) : 0.0);
        forward(q, &out[w * LINKS]);
    }
}

static void add_robot(gjk_world *w, int32_t *id)
{
    static gjk_part_def parts[LINKS];
    static gjk_link_def links[LINKS];
    static char names[LINKS][16];
    for (int i = 0; i < LINKS; ++i) {
        int vertices = 100 + (200 * i) / (LINKS - 1); /* 100 .. 300 */
        memset(&parts[i], 0, sizeof parts[i]);
        parts[i].shape = gjk_make_polytope(link_hull(vertices, 0.05, 0.5 * LINK_LENGTH - 0.04));
        parts[i].pose = gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 0.5 * LINK_LENGTH));
        snprintf(names[i], sizeof names[i], "link%d", i);
        memset(&links[i], 0, sizeof links[i]);
        links[i].name = names[i];
        links[i].parts = &parts[i];
        links[i].part_count = 1;
    }
    static gjk_link_name_pair adjacent[LINKS - 1];
    for (int i = 0; i + 1 < LINKS; ++i) {
        adjacent[i].a = names[i];
        adjacent[i].b = names[i + 1];
    }
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "arm";
    def.links = links;
    def.link_count = LINKS;
    def.self_collision = true;
    def.disabled_pairs = adjacent;
    def.disabled_pair_count = LINKS - 1;
    gjk_status s = gjk_world_put_robot(w, &def, id);
    if (s != GJK_WORLD_OK)
        die("put_robot", s);
}

/* Every obstacle's shape and pose by id (the last world built wins; the joints worlds are
 * built last and alike), for the bare calls on the reported pairs (joint_queries). */
#define OBSTACLE_TABLE 4096
static gjk_shape obstacle_shape[OBSTACLE_TABLE];
static gjk_transform obstacle_pose[OBSTACLE_TABLE];

static void add_obstacle(gjk_world *w, int index, gjk_vec3 at, double size)
{
    gjk_part_def part;
    memset(&part, 0, sizeof part);
    part.pose = gjk_transform_identity();
    switch (index % 3) {
    case 0:
        part.shape =
            gjk_make_box(gjk_v3(size * range(0.5, 1), size * range(0.5, 1), size * range(0.5, 1)));
        break;
    case 1:
        part.shape = gjk_make_cylinder(size * range(0.4, 1), size * range(0.5, 1));
        break;
    default:
        part.shape = gjk_make_polytope(rock_hull(24 + index % 40, size));
        break;
    }
    gjk_vec3 axis = gjk_normalize(gjk_v3(range(-1, 1), range(-1, 1), range(-1, 1)));
    char name[32];
    snprintf(name, sizeof name, "obstacle%04d", index);
    gjk_obstacle_def def;
    memset(&def, 0, sizeof def);
    def.name = name;
    def.parts = &part;
    def.part_count = 1;
    def.pose = gjk_transform_make(gjk_quat_from_axis_angle(axis, range(0, 3)), at);
    int32_t id = 0;
    gjk_status s = gjk_world_put_obstacle(w, &def, &id);
    if (s != GJK_WORLD_OK)
        die(name, s);
    if (id > 0 && id < OBSTACLE_TABLE) {
        obstacle_shape[id] = part.shape;
        obstacle_pose[id] = gjk_transform_mul(def.pose, part.pose);
    }
}

/* Clearance between a ball and the swept arm: distance from the centre to every link's axis
 * segment at every waypoint, minus the link radius (0.05 m plus the cap) and the ball's. */
static double clearance(const gjk_transform *path, int waypoints, gjk_vec3 c, double radius)
{
    double best = HUGE_VAL;
    for (int i = 0; i < waypoints * LINKS; ++i) {
        gjk_vec3 a = path[i].p, b = gjk_transform_point(path[i], gjk_v3(0, 0, LINK_LENGTH));
        gjk_vec3 ab = gjk_sub(b, a);
        double t = gjk_dot(gjk_sub(c, a), ab) / gjk_dot(ab, ab);
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        double d = gjk_distance_between(c, gjk_madd(a, t, ab));
        best = d < best ? d : best;
    }
    return best - 0.06 - radius;
}

/* 100 obstacles in the arm's workspace, none touching the swept arm (a collision-free plan
 * with near misses, as an optimizer sees it late in its iterations): 30 placed next to the
 * swept links (0.01-0.15 m clearance), 70 scattered in a 3 x 3 x 2 m box around the base.
 * Then `far` more obstacles in a shell 4-15 m away. */
static void add_obstacles(gjk_world *w, const gjk_transform *path, int waypoints, int far)
{
    int n = 0;
    while (n < 100) {
        gjk_vec3 centre;
        double size;
        if (n < 30) {
            int wp = (int)(rnd() * waypoints) % waypoints, l = 2 + (int)(rnd() * (LINKS - 2));
            gjk_vec3 on =
                gjk_transform_point(path[wp * LINKS + l], gjk_v3(0, 0, range(0, LINK_LENGTH)));
            gjk_vec3 dir = gjk_normalize(gjk_v3(range(-1, 1), range(-1, 1), range(-1, 1)));
            size = range(0.04, 0.1);
            centre = gjk_madd(on, 0.06 + size * 1.8 + range(0.01, 0.15), dir);
        } else {
            centre = gjk_v3(range(-1.5, 1.5), range(-1.5, 1.5), range(0, 2));
            size = range(0.05, 0.2);
        }
        if (clearance(path, waypoints, centre, size * 1.8) < 0.01)
            continue;
        add_obstacle(w, n++, centre, size);
    }
    for (int k = 0; k < far; ++k, ++n) {
        gjk_vec3 dir = gjk_normalize(gjk_v3(range(-1, 1), range(-1, 1), range(-1, 1)));
        add_obstacle(w, n, gjk_scale(dir, range(4, 15)), range(0.05, 0.3));
    }
}

/* The arm as a robot with joints (joints = true) or as the same 8 links driven by link poses:
 * link 0 is a part-less base at the origin, joint i turns link i + 1 about z (even i) or y
 * (odd i) at the end of link i (at the base for i = 0), as forward() does. */
static gjk_part_def arm8_parts[LINKS]; /* link i + 1's part (kept for the bare calls) */

static void add_robot8(gjk_world *w, int32_t *id, bool joints)
{
    gjk_part_def *parts = arm8_parts;
    static gjk_link_def links[LINKS + 1];
    static char names[LINKS + 1][16];
    static gjk_joint_def jd[LINKS];
    static const char *jnames[LINKS] = {"j0", "j1", "j2", "j3", "j4", "j5", "j6"};
    memset(links, 0, sizeof links);
    snprintf(names[0], sizeof names[0], "base");
    links[0].name = names[0];
    for (int i = 0; i < LINKS; ++i) {
        int vertices = 100 + (200 * i) / (LINKS - 1);
        memset(&parts[i], 0, sizeof parts[i]);
        parts[i].shape = gjk_make_polytope(link_hull(vertices, 0.05, 0.5 * LINK_LENGTH - 0.04));
        parts[i].pose = gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 0.5 * LINK_LENGTH));
        snprintf(names[i + 1], sizeof names[i + 1], "link%d", i);
        links[i + 1].name = names[i + 1];
        links[i + 1].parts = &parts[i];
        links[i + 1].part_count = 1;
        memset(&jd[i], 0, sizeof jd[i]);
        jd[i].name = jnames[i];
        jd[i].type = GJK_JOINT_REVOLUTE;
        jd[i].parent = i;
        jd[i].child = i + 1;
        jd[i].origin =
            gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, i == 0 ? 0.0 : LINK_LENGTH));
        jd[i].axis = i % 2 == 0 ? gjk_v3(0, 0, 1) : gjk_v3(0, 1, 0);
        jd[i].lower = -3.0;
        jd[i].upper = 3.0;
    }
    static gjk_link_name_pair adjacent[LINKS];
    for (int i = 0; i < LINKS; ++i) {
        adjacent[i].a = names[i];
        adjacent[i].b = names[i + 1];
    }
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "arm";
    def.links = links;
    def.link_count = LINKS + 1;
    def.self_collision = true;
    def.disabled_pairs = adjacent;
    def.disabled_pair_count = LINKS;
    if (joints) {
        def.joints = jd;
        def.joint_count = LINKS;
    }
    gjk_status s = gjk_world_put_robot(w, &def, id);
    if (s != GJK_WORLD_OK)
        die("put_robot", s);
}

/* ------------------------------------------------------------------ measurement */

typedef struct figures {
    double cold_1, cold_2, warm_1, warm_2; /* medians, seconds per query */
    double pairs_narrow, pairs_possible, pairs_candidate, reported, warm_starts;
    double overlapping, epa_iterations;
    double iterations, warm_iterations, warm_narrow, warm_warm_starts, bounded, warm_bounded;
    double state_query;
    double cpu[4];   /* medians, CPU seconds: cold 1, warm 1, cold 2, warm 2 threads */
    double modes[2]; /* medians, CPU seconds: FIRST_COLLISION, CLOSEST without max_distance */
} figures;

static void totals(const gjk_world_result *r, figures *f)
{
    f->pairs_narrow = f->pairs_possible = f->pairs_candidate = f->reported = 0;
    f->warm_starts = 0;
    f->iterations = 0;
    f->bounded = 0;
    f->overlapping = 0;
    f->epa_iterations = 0;
    for (int i = 0; i < r->waypoint_count; ++i) {
        const gjk_world_waypoint *wp = &r->waypoints[i];
        f->pairs_narrow += wp->counters.pairs_narrow;
        f->pairs_possible += wp->counters.pairs_possible;
        f->pairs_candidate += wp->counters.pairs_candidate;
        f->reported += wp->pair_count;
        f->warm_starts += wp->counters.warm_starts;
        f->iterations += (double)wp->counters.gjk_iterations;
        f->bounded += wp->counters.pairs_bounded;
        for (int k = 0; k < wp->pair_count; ++k) {
            f->overlapping += wp->pairs[k].distance < 0.0;
            f->epa_iterations += wp->pairs[k].epa_iterations;
        }
    }
}

static double time_query(const gjk_world *w, const gjk_world_trajectory *t,
                         const gjk_world_query_options *opt, gjk_world_result **keep)
{
    gjk_world_result *r = NULL;
    double c0 = cpu_now(), t0 = now();
    gjk_status s = gjk_world_query_trajectory(w, t, opt, &r);
    double dt = now() - t0;
    last_cpu = cpu_now() - c0;
    if (s != GJK_WORLD_OK)
        die("query_trajectory", s);
    if (keep) {
        gjk_world_result_destroy(keep);
        *keep = r;
    } else {
        gjk_world_result_destroy(&r);
    }
    return dt;
}

static void measure(gjk_world *w, int32_t robot, const double *q0, const double *q1, int waypoints,
                    int repeats, figures *f)
{
    gjk_transform *poses = malloc((size_t)waypoints * LINKS * sizeof *poses);
    double *cold1 = malloc((size_t)repeats * sizeof(double));
    double *cold2 = malloc((size_t)repeats * sizeof(double));
    double *warm1 = malloc((size_t)repeats * sizeof(double));
    double *warm2 = malloc((size_t)repeats * sizeof(double));
    double *cpu[4];
    for (int k = 0; k < 4; ++k)
        cpu[k] = malloc((size_t)repeats * sizeof(double));
    double *state = malloc((size_t)repeats * sizeof(double));
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = robot;
    t.waypoint_count = waypoints;
    t.link_count = LINKS;
    t.link_poses = poses;
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.has_max_distance = true;
    opt.max_distance = MAX_DISTANCE;
    gjk_world_result *last = NULL;

    trajectory(q0, q1, 0.0, waypoints, poses);
    for (int threads = 1; threads <= 2; ++threads) {
        opt.threads = threads;
        /* warm-up, then interleave cold and warm so that load changes hit both alike */
        char name[16];
        snprintf(name, sizeof name, "plan%d", threads);
        t.name = name;
        time_query(w, &t, &opt, NULL);
        for (int r = 0; r < repeats; ++r) {
            trajectory(q0, q1, 1e-3, waypoints, poses); /* the optimizer moved a little */
            t.name = NULL;
            (threads == 1 ? cold1 : cold2)[r] = time_query(w, &t, &opt, NULL);
            cpu[2 * (threads - 1)][r] = last_cpu;
            t.name = name;
            (threads == 1 ? warm1 : warm2)[r] = time_query(w, &t, &opt, &last);
            cpu[2 * (threads - 1) + 1][r] = last_cpu;
        }
    }
    totals(last, f); /* counters of the last warm query */
    f->warm_iterations = f->iterations;
    f->warm_narrow = f->pairs_narrow;
    f->warm_warm_starts = f->warm_starts;
    f->warm_bounded = f->bounded;
    gjk_world_result_destroy(&last);

    /* the other modes, cold, one thread, CPU time */
    opt.threads = 1;
    t.name = NULL;
    const gjk_world_mode modes[2] = {GJK_WORLD_MODE_FIRST_COLLISION, GJK_WORLD_MODE_CLOSEST};
    for (int m = 0; m < 2; ++m) {
        gjk_world_query_options o = opt;
        o.mode = modes[m];
        o.has_max_distance = true;
        o.max_distance = m == 0 ? MAX_DISTANCE : HUGE_VAL;
        for (int r = 0; r < repeats; ++r) {
            time_query(w, &t, &o, NULL);
            state[r] = last_cpu;
        }
        f->modes[m] = median(state, repeats);
    }

    /* state query: the arm at the middle waypoint */
    gjk_status s = gjk_world_set_link_poses(w, robot, &poses[(waypoints / 2) * LINKS], LINKS);
    if (s != GJK_WORLD_OK)
        die("set_link_poses", s);
    for (int r = 0; r < repeats; ++r) {
        gjk_world_result *res = NULL;
        double t0 = now();
        s = gjk_world_query_state(w, &opt, &res);
        state[r] = now() - t0;
        if (s != GJK_WORLD_OK)
            die("query_state", s);
        gjk_world_result_destroy(&res);
    }
    f->cold_1 = median(cold1, repeats);
    f->cold_2 = median(cold2, repeats);
    f->warm_1 = median(warm1, repeats);
    f->warm_2 = median(warm2, repeats);
    for (int k = 0; k < 4; ++k) {
        f->cpu[k] = median(cpu[k], repeats);
        free(cpu[k]);
    }
    f->state_query = median(state, repeats);

    /* narrow-phase throughput of a cold single-thread query */
    opt.threads = 1;
    t.name = NULL;
    gjk_world_result *res = NULL;
    time_query(w, &t, &opt, &res);
    figures cold;
    totals(res, &cold);
    f->pairs_narrow = cold.pairs_narrow;
    f->pairs_possible = cold.pairs_possible;
    f->pairs_candidate = cold.pairs_candidate;
    f->reported = cold.reported;
    f->iterations = cold.iterations;
    f->warm_starts = cold.warm_starts;
    f->bounded = cold.bounded;
    gjk_world_result_destroy(&res);
    free(poses);
    free(cold1);
    free(cold2);
    free(warm1);
    free(warm2);
    free(state);
}

typedef struct joint_figures {
    double link_cold, joint_cold, link_warm, joint_warm; /* medians, CPU seconds */
    double grad_cold, nograd_cold;                       /* joint space, unnamed */
    double reported, narrow;                             /* per query */
    double bare_cold, bare_warm; /* bare gjk_signed_distance on the reported pairs, medians */
} joint_figures;

/* One reported pair of the gradients query as a bare call: its parts' shapes and world poses
 * at its waypoint; `prev` is the same part pair's call at an earlier waypoint (-1: none). */
typedef struct bare_call {
    const gjk_shape *a, *b;
    gjk_transform pa, pb;
    int32_t prev;
} bare_call;

static volatile double bare_sink;

/* CPU seconds of the calls, each with a zeroed cache (warm = false) or warm-started from its
 * part pair's previous call (warm = true, as the world's blocks do). */
static double run_bare(const bare_call *c, int32_t n, gjk_cache *caches, bool warm)
{
    gjk_options opt;
    memset(&opt, 0, sizeof opt);
    double acc = 0.0, c0 = cpu_now();
    for (int32_t i = 0; i < n; ++i) {
        gjk_cache cache;
        if (warm && c[i].prev >= 0)
            cache = caches[c[i].prev];
        else
            memset(&cache, 0, sizeof cache);
        gjk_result r = gjk_signed_distance(c[i].a, c[i].pa, c[i].b, c[i].pb, &cache, &opt);
        caches[i] = cache;
        acc += r.distance;
    }
    double dt = cpu_now() - c0;
    bare_sink += acc;
    return dt;
}

/* The reported pairs of `res` (robot-obstacle pairs of the arm) as bare calls, the link poses
 * from FK at each waypoint's q. Returns how many. */
static int32_t bare_calls(const gjk_world_result *res, const gjk_kinematics *k,
                          gjk_kinematics_state *ks, const double *q, bare_call **out)
{
    int32_t n = 0;
    for (int i = 0; i < res->waypoint_count; ++i)
        n += res->waypoints[i].pair_count;
    bare_call *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
    if (!c)
        die("bare calls", GJK_STATUS_OUT_OF_MEMORY);
    int32_t m = 0;
    for (int w = 0; w < res->waypoint_count; ++w) {
        const gjk_world_waypoint *wp = &res->waypoints[w];
        if (gjk_kinematics_forward(k, &q[w * LINKS], LINKS, gjk_transform_identity(), ks, NULL) !=
            GJK_KINEMATICS_OK)
            die("forward", GJK_STATUS_INVALID_INPUT);
        const gjk_transform *poses = gjk_kinematics_link_poses(ks);
        for (int32_t j = 0; j < wp->pair_count; ++j) {
            const gjk_world_pair *p = &wp->pairs[j];
            int32_t link = p->a.body.link, ob = p->b.body.object;
            if (p->b.body.kind != GJK_BODY_OBSTACLE || link < 1 || link > LINKS || ob <= 0 ||
                ob >= OBSTACLE_TABLE)
                die("bare calls: not an arm-obstacle pair", GJK_STATUS_INVALID_INPUT);
            bare_call *b = &c[m];
            b->a = &arm8_parts[link - 1].shape;
            b->pa = gjk_transform_mul(poses[link], arm8_parts[link - 1].pose);
            b->b = &obstacle_shape[ob];
            b->pb = obstacle_pose[ob];
            b->prev = -1;
            gjk_cache check;
            memset(&check, 0, sizeof check);
            gjk_options opt;
            memset(&opt, 0, sizeof opt);
            if (fabs(gjk_signed_distance(b->a, b->pa, b->b, b->pb, &check, &opt).distance -
                     p->distance) > 1e-6)
                die("bare calls: not the world's pair", GJK_STATUS_INVALID_INPUT);
            for (int32_t e = m - 1; e >= 0 && b->prev < 0; --e)
                if (c[e].a == b->a && c[e].b == b->b)
                    b->prev = e;
            ++m;
        }
    }
    *out = c;
    return m;
}

static void joint_queries(gjk_world *wj, int32_t rj, gjk_world *wl, int32_t rl, const double *q0,
                          const double *q1, int waypoints, int repeats, joint_figures *f)
{
    const gjk_kinematics *k = gjk_world_robot_kinematics(wj, rj);
    gjk_kinematics_state *ks = NULL;
    if (!k || gjk_kinematics_state_create(k, &ks) != GJK_KINEMATICS_OK)
        die("kinematics", GJK_STATUS_OUT_OF_MEMORY);
    double *q = malloc((size_t)waypoints * LINKS * sizeof *q);
    gjk_transform *poses = malloc((size_t)waypoints * (LINKS + 1) * sizeof *poses);
    double *v[8];
    for (int i = 0; i < 8; ++i)
        v[i] = malloc((size_t)repeats * sizeof(double));
    gjk_world_trajectory tj, tl;
    memset(&tj, 0, sizeof tj);
    tj.robot = rj;
    tj.waypoint_count = waypoints;
    tj.dof_count = LINKS;
    tj.joint_positions = q;
    memset(&tl, 0, sizeof tl);
    tl.robot = rl;
    tl.waypoint_count = waypoints;
    tl.link_count = LINKS + 1;
    tl.link_poses = poses;
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.has_max_distance = true;
    opt.max_distance = MAX_DISTANCE;
    opt.threads = 1;
    gjk_world_query_options grad = opt;
    grad.gradients = true;
    bare_call *bare = NULL;
    gjk_cache *bare_caches = NULL;
    int32_t bare_n = 0;
    for (int r = -1; r < repeats; ++r) { /* r = -1: warm-up and the named entries */
        for (int w = 0; w < waypoints; ++w) {
            double u = (double)w / (waypoints - 1);
            for (int i = 0; i < LINKS; ++i)
                q[w * LINKS + i] = (1 - u) * q0[i] + u * q1[i] + (r >= 0 ? range(-1e-3, 1e-3) : 0);
            /* the link-pose query gets what the world's own FK gives: the same work */
            if (gjk_kinematics_forward(k, &q[w * LINKS], LINKS, gjk_transform_identity(), ks,
                                       NULL) != GJK_KINEMATICS_OK)
                die("forward", GJK_STATUS_INVALID_INPUT);
            memcpy(&poses[w * (LINKS + 1)], gjk_kinematics_link_poses(ks),
                   (LINKS + 1) * sizeof *poses);
        }
        double t[8];
        tj.name = tl.name = NULL;
        time_query(wl, &tl, &opt, NULL);
        t[0] = last_cpu;
        time_query(wj, &tj, &opt, NULL);
        t[1] = last_cpu;
        tj.name = tl.name = "plan";
        time_query(wl, &tl, &opt, NULL);
        t[2] = last_cpu;
        time_query(wj, &tj, &opt, NULL);
        t[3] = last_cpu;
        /* gradients on and off, alternating which goes first (the first query after a switch
         * of worlds pays for cold caches) */
        tj.name = NULL;
        gjk_world_result *res = NULL;
        for (int g = 0; g < 2; ++g) {
            bool on = (r + g) % 2 == 0;
            time_query(wj, &tj, on ? &grad : &opt, on ? &res : NULL);
            t[on ? 4 : 5] = last_cpu;
        }
        if (r < 0) {
            figures c;
            totals(res, &c);
            f->reported = c.reported;
            f->narrow = c.pairs_narrow;
            bare_n = bare_calls(res, k, ks, q, &bare);
            bare_caches = calloc((size_t)(bare_n > 0 ? bare_n : 1), sizeof *bare_caches);
            if (!bare_caches)
                die("bare calls", GJK_STATUS_OUT_OF_MEMORY);
        }
        gjk_world_result_destroy(&res);
        /* the bare calls on the unperturbed reported pairs (the perturbation of 1e-3 rad
         * changes which pairs are near only at the edges) */
        t[6] = run_bare(bare, bare_n, bare_caches, false);
        t[7] = run_bare(bare, bare_n, bare_caches, true);
        for (int i = 0; r >= 0 && i < 8; ++i)
            v[i][r] = t[i];
    }
    f->link_cold = median(v[0], repeats);
    f->joint_cold = median(v[1], repeats);
    f->link_warm = median(v[2], repeats);
    f->joint_warm = median(v[3], repeats);
    f->grad_cold = median(v[4], repeats);
    f->nograd_cold = median(v[5], repeats);
    f->bare_cold = median(v[6], repeats);
    f->bare_warm = median(v[7], repeats);
    for (int i = 0; i < 8; ++i)
        free(v[i]);
    free(bare);
    free(bare_caches);
    free(q);
    free(poses);
    gjk_kinematics_state_destroy(&ks);
}

int main(int argc, char **argv)
{
    int repeats = 31, waypoints = 100;
    static const char usage[] = "usage: bench_world [--repeats N] [--waypoints N] [--seed S]\n"
                                "  --repeats N    runs per figure, median taken (default 31)\n"
                                "  --waypoints N  waypoints of the trajectory (default 100)\n"
                                "  --seed S       seed of the scene and the perturbations\n";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--repeats") != 0 && strcmp(a, "--waypoints") != 0 &&
            strcmp(a, "--seed") != 0) {
            fprintf(stderr, "bench_world: unknown option '%s' (see bench_world --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_world: %s needs a value (see bench_world --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--repeats") == 0)
            repeats = atoi(v);
        else if (strcmp(a, "--waypoints") == 0)
            waypoints = atoi(v);
        else
            rng = strtoull(v, NULL, 10) * 0x9E3779B97F4A7C15u + 1u;
    }
    if (repeats < 1 || waypoints < 2) {
        fprintf(stderr, "bench_world: repeats >= 1 and waypoints >= 2\n");
        return 2;
    }

    const double q0[LINKS] = {-1.2, 0.6, 0.3, 1.1, -0.4, 0.8, 0.2};
    const double q1[LINKS] = {1.3, 0.9, -0.5, 0.5, 0.6, -0.7, 1.0};
    gjk_transform *path = malloc((size_t)waypoints * LINKS * sizeof *path);
    trajectory(q0, q1, 0.0, waypoints, path);

    figures fig[2];
    const int far[2] = {0, 1900};
    uint64_t seed = rng;
    for (int k = 0; k < 2; ++k) {
        rng = seed; /* the same 100 obstacles near the arm in both worlds */
        gjk_world *w = NULL;
        gjk_status s = gjk_world_create(NULL, &w);
        if (s != GJK_WORLD_OK)
            die("create", s);
        int32_t robot;
        add_robot(w, &robot);
        add_obstacles(w, path, waypoints, far[k]);
        measure(w, robot, q0, q1, waypoints, repeats, &fig[k]);
        gjk_world_destroy(&w);
    }

    joint_figures jf;
    {
        gjk_world *wj = NULL, *wl = NULL;
        int32_t rj = 0, rl = 0;
        if (gjk_world_create(NULL, &wj) != GJK_WORLD_OK ||
            gjk_world_create(NULL, &wl) != GJK_WORLD_OK)
            die("create", GJK_STATUS_OUT_OF_MEMORY);
        add_robot8(wj, &rj, true);
        add_robot8(wl, &rl, false);
        rng = seed;
        add_obstacles(wj, path, waypoints, 0);
        rng = seed;
        add_obstacles(wl, path, waypoints, 0);
        joint_queries(wj, rj, wl, rl, q0, q1, waypoints, repeats, &jf);
        gjk_world_destroy(&wj);
        gjk_world_destroy(&wl);
    }

    printf("bench_world: 7-link arm (hulls of 100-300 vertices), %d-waypoint trajectory, "
           "max_distance %.2f m, ALL_WITHIN, medians of %d runs\n",
           waypoints, MAX_DISTANCE, repeats);
    printf("%-44s %14s %14s\n", "", "100 obstacles", "2000 obstacles");
    printf("%-44s %14.3f %14.3f\n", "cold trajectory query, 1 thread [ms]", 1e3 * fig[0].cold_1,
           1e3 * fig[1].cold_1);
    printf("%-44s %14.3f %14.3f\n", "warm (named, perturbed), 1 thread [ms]", 1e3 * fig[0].warm_1,
           1e3 * fig[1].warm_1);
    printf("%-44s %14.3f %14.3f\n", "cold trajectory query, 2 threads [ms]", 1e3 * fig[0].cold_2,
           1e3 * fig[1].cold_2);
    printf("%-44s %14.3f %14.3f\n", "warm (named, perturbed), 2 threads [ms]", 1e3 * fig[0].warm_2,
           1e3 * fig[1].warm_2);
    const char *cpu_rows[4] = {"cold, 1 thread, CPU time [ms]", "warm, 1 thread, CPU time [ms]",
                               "cold, 2 threads, CPU time of both [ms]",
                               "warm, 2 threads, CPU time of both [ms]"};
    for (int k = 0; k < 4; ++k)
        printf("%-44s %14.3f %14.3f\n", cpu_rows[k], 1e3 * fig[0].cpu[k], 1e3 * fig[1].cpu[k]);
    printf("%-44s %14.2f %14.2f\n", "speed-up 2 threads, cold [x]", fig[0].cold_1 / fig[0].cold_2,
           fig[1].cold_1 / fig[1].cold_2);
    printf("%-44s %14.2f %14.2f\n", "speed-up 2 threads, warm [x]", fig[0].warm_1 / fig[0].warm_2,
           fig[1].warm_1 / fig[1].warm_2);
    printf("%-44s %14.2f %14.2f\n", "cold / warm [x]", fig[0].cold_1 / fig[0].warm_1,
           fig[1].cold_1 / fig[1].warm_1);
    printf("%-44s %14.3f %14.3f\n", "validity (FIRST_COLLISION), cold, CPU [ms]",
           1e3 * fig[0].modes[0], 1e3 * fig[1].modes[0]);
    printf("%-44s %14.3f %14.3f\n", "closest pair (CLOSEST, no limit), cold, CPU [ms]",
           1e3 * fig[0].modes[1], 1e3 * fig[1].modes[1]);
    printf("%-44s %14.1f %14.1f\n", "state query (one waypoint) [us]", 1e6 * fig[0].state_query,
           1e6 * fig[1].state_query);
    for (int k = 0; k < 2; ++k)
        fig[k].reported /= waypoints;
    printf("%-44s %14.0f %14.0f\n", "part pairs possible per query", fig[0].pairs_possible,
           fig[1].pairs_possible);
    printf("%-44s %14.0f %14.0f\n", "candidates (boxes within reach)", fig[0].pairs_candidate,
           fig[1].pairs_candidate);
    printf("%-44s %14.0f %14.0f\n", "narrow-phase (GJK) pairs per query", fig[0].pairs_narrow,
           fig[1].pairs_narrow);
    printf("%-44s %14.0f %14.0f\n", "narrow-phase (GJK) pairs per query, warm", fig[0].warm_narrow,
           fig[1].warm_narrow);
    printf("%-44s %14.0f %14.0f\n", "pairs skipped on motion bounds, cold", fig[0].bounded,
           fig[1].bounded);
    printf("%-44s %14.0f %14.0f\n", "pairs skipped on motion bounds, warm", fig[0].warm_bounded,
           fig[1].warm_bounded);
    printf("%-44s %14.0f %14.0f\n", "overlapping pairs per query (EPA)", fig[0].overlapping,
           fig[1].overlapping);
    if (fig[0].overlapping > 0 && fig[1].overlapping > 0)
        printf("%-44s %14.1f %14.1f\n", "EPA iterations per overlapping pair",
               fig[0].epa_iterations / fig[0].overlapping,
               fig[1].epa_iterations / fig[1].overlapping);
    printf("%-44s %14.1f %14.1f\n", "pairs reported per waypoint", fig[0].reported,
           fig[1].reported);
    printf("%-44s %14.1f %14.1f\n", "broad-phase pruning (possible / narrow) [x]",
           fig[0].pairs_possible / fig[0].pairs_narrow,
           fig[1].pairs_possible / fig[1].pairs_narrow);
    printf("%-44s %14.2f %14.2f\n", "GJK iterations per pair, cold",
           fig[0].iterations / fig[0].pairs_narrow, fig[1].iterations / fig[1].pairs_narrow);
    printf("%-44s %14.2f %14.2f\n", "GJK iterations per pair, warm",
           fig[0].warm_iterations / fig[0].warm_narrow,
           fig[1].warm_iterations / fig[1].warm_narrow);
    printf("%-44s %14.2f %14.2f\n", "warm-started pairs, cold / warm [%]",
           100.0 * fig[0].warm_starts / fig[0].pairs_narrow,
           100.0 * fig[0].warm_warm_starts / fig[0].warm_narrow);
    printf("%-44s %14.2f %14.2f\n", "narrow-phase pairs/s, cold 1 thread [M/s]",
           1e-6 * fig[0].pairs_narrow / fig[0].cold_1, 1e-6 * fig[1].pairs_narrow / fig[1].cold_1);
    printf("%-44s %14.2f %14s\n", "2000 / 100 obstacles, cold 1 thread [x]",
           fig[1].cold_1 / fig[0].cold_1, "");
    printf("%-44s %14.2f %14s\n", "2000 / 100 obstacles, warm 1 thread [x]",
           fig[1].warm_1 / fig[0].warm_1, "");
    printf("joints (100 obstacles, 1 thread, CPU time, medians):\n");
    printf("%-44s %14.3f\n", "link-pose trajectory, cold [ms]", 1e3 * jf.link_cold);
    printf("%-44s %14.3f\n", "joint-space trajectory, cold [ms]", 1e3 * jf.joint_cold);
    printf("%-44s %14.2f\n", "joint-space overhead, cold [%]",
           100.0 * (jf.joint_cold / jf.link_cold - 1.0));
    printf("%-44s %14.3f\n", "link-pose trajectory, warm [ms]", 1e3 * jf.link_warm);
    printf("%-44s %14.3f\n", "joint-space trajectory, warm [ms]", 1e3 * jf.joint_warm);
    printf("%-44s %14.2f\n", "joint-space overhead, warm [%]",
           100.0 * (jf.joint_warm / jf.link_warm - 1.0));
    printf("%-44s %14.3f\n", "joint-space, cold, gradients on [ms]", 1e3 * jf.grad_cold);
    printf("%-44s %14.3f\n", "joint-space, cold, gradients off [ms]", 1e3 * jf.nograd_cold);
    printf("%-44s %14.0f %14.0f\n", "reported / narrow-phase pairs per query", jf.reported,
           jf.narrow);
    double per_pair = jf.nograd_cold / jf.narrow;
    double grad_pair = (jf.grad_cold - jf.nograd_cold) / jf.reported;
    printf("%-44s %14.1f\n", "query time per narrow-phase pair [ns]", 1e9 * per_pair);
    printf("%-44s %14.1f\n", "gradient cost per reported pair [ns]", 1e9 * grad_pair);
    printf("%-44s %14.2f\n", "gradient cost / pair query time [%]", 100.0 * grad_pair / per_pair);
    /* the "the pair's query time" read as the reported pair's own: bare
     * gjk_signed_distance on exactly the reported pairs (they run to convergence; most
     * narrow-phase pairs are far ones that the cutoff ends early) */
    double rep_cold = jf.bare_cold / jf.reported, rep_warm = jf.bare_warm / jf.reported;
    printf("%-44s %14.1f\n", "bare signed distance per reported pair [ns]", 1e9 * rep_cold);
    printf("%-44s %14.1f\n", "  the same, warm-started as in the world [ns]", 1e9 * rep_warm);
    printf("%-44s %14.2f\n", "gradient cost / reported pair's time [%]",
           100.0 * grad_pair / rep_cold);
    printf("%-44s %14.2f\n", "gradient cost / reported pair's, warm [%]",
           100.0 * grad_pair / rep_warm);
    printf("targets: cold <= 2 ms, warm <= 0.7 ms, 2000/100 <= 4x, 2 threads >= 1.7x\n");

    for (int i = 0; i < poly_count; ++i)
        gjk_polytope_destroy(&polys[i]);
    free(path);
    return 0;
}
