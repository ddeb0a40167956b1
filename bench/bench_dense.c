/* bench_dense.c — the world layer on a dense work cell (dense_cell.h): what users' optimizers
 * meet, and the world overhead ratio.
 *
 * Query: the 100-waypoint pick-and-place trajectory, mode ALL_WITHIN, max_distance 0.1 m,
 * penetration depth on, robot-obstacle and self pairs (adjacent links disabled).
 *   cold       unnamed query (each block of 8 waypoints warm-starts only along itself)
 *   warm       a named trajectory queried again with the same waypoints
 *   opt-warm   the next query of that name with every joint at every waypoint moved by up to
 *              1e-3 rad (fixed seed): an optimizer's next iterate
 * World overhead ratio = world query time / time of bare narrow-phase calls on exactly the part
 * pairs the world ran GJK on, with the same cache states (cold: zeroed at each block start and
 * carried along the block; warm: from the previous query of the name, as the world does). The
 * pair lists come from a replay of the world's rules (per-waypoint padded boxes within reach,
 * skipping on certified lower bounds minus motion bounds; core/src/world_query.c): the replay
 * runs the same narrow-phase call as the world, and its counts must equal the world's
 * pairs_narrow and pairs_bounded at every waypoint (the program fails otherwise). Bare
 * baselines: gjk_distance_cutoff with the world's cutoff (the identical work),
 * gjk_signed_distance (no cutoff: what a caller without the world would run), and
 * gjk_signed_distance with every cache zeroed (what the carried warm starts are worth).
 * Timing: world (threads 1 and 2) and bare runs interleaved in every repeat; medians and
 * fastest runs (wall clock; the host is shared, compare ratios within one run).
 *
 * --profile KIND runs only world queries of one kind (1 thread) for `perf record`.
 *
 * Usage: bench_dense [--repeats N] [--seed S] [--json] [--profile KIND] [--help]
 * Build: cmake -DGJK_BUILD_BENCH=ON ... && cmake --build build --target bench_dense */
#define _POSIX_C_SOURCE 200809L

#include "dense_cell.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DISTANCE 0.1
#define WAYPOINTS 100
#define PERTURBATION 1e-3
#define BOUND_SLACK 1e-9 /* world_query.c's */
#define NAME "plan"

static void die(const char *what, gjk_status s)
{
    fprintf(stderr, "bench_dense: %s: %s\n", what, gjk_status_name(s));
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

static double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

static double fastest(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; ++i)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* ------------------------------------------------------------------ replay of the world's rules */

/* The broad-phase helpers of core/src/broadphase.h (internal to core), same arithmetic. */
static double axis_gap(double alo, double ahi, double blo, double bhi)
{
    double g = alo - bhi, h = blo - ahi;
    g = g > h ? g : h;
    return g > 0.0 ? g : 0.0;
}

static double box_distance_sq(const gjk_vec3 *a, const gjk_vec3 *b) /* a[0..1], b[0..1] */
{
    double dx = axis_gap(a[0].x, a[1].x, b[0].x, b[1].x);
    double dy = axis_gap(a[0].y, a[1].y, b[0].y, b[1].y);
    double dz = axis_gap(a[0].z, a[1].z, b[0].z, b[1].z);
    return dx * dx + dy * dy + dz * dz;
}

static bool beyond_reach(const gjk_vec3 *a, const gjk_vec3 *b, double limit)
{
    double d = sqrt(box_distance_sq(a, b));
    return d > 0.0 && d > limit; /* padding 0 */
}

static double motion_bound(gjk_transform from, gjk_transform to, double radius)
{
    gjk_quat rel = gjk_quat_mul(to.q, gjk_quat_conj(from.q));
    double turn = 2.0 * sqrt(rel.x * rel.x + rel.y * rel.y + rel.z * rel.z);
    return gjk_distance_between(to.p, from.p) + turn * radius;
}

/* A part as the world holds it. */
typedef struct rpart {
    const gjk_shape *shape;
    gjk_transform pose;    /* links: in the link frame; obstacles: world */
    gjk_vec3 centre, half; /* part-frame box (links) */
    gjk_vec3 box[2];       /* world box (obstacles) */
    double radius;
    int32_t link;
} rpart;

/* A placed link part at one waypoint. */
typedef struct rplaced {
    gjk_transform pose;
    gjk_vec3 box[2];
    double travel, moved;
} rplaced;

/* One narrow-phase call of the world: the pair, its poses, and where its warm-start cache
 * comes from (-1 = zeroed, else the output cache of that earlier call, global index). */
typedef struct call {
    const gjk_shape *a, *b;
    gjk_transform pa, pb;
    int32_t src;
} call;

typedef struct call_list {
    call *calls;
    int32_t n, capacity, base; /* base: global index of calls[0] */
    int32_t narrow[WAYPOINTS], bounded[WAYPOINTS];
} call_list;

/* A pair's state: in a block's chain map, or in a named trajectory's record. */
typedef struct pstate {
    int32_t src;
    double lower, travel;
    uint32_t stamp; /* live when equal to the owner's stamp */
} pstate;

typedef struct replay {
    const dense_cell *cell;
    rpart *links, *obstacles;
    int32_t nl, no, nb; /* nb = no + nl: second sides per first side */
    pstate *chain;      /* nl * nb */
    uint32_t chain_stamp;
    gjk_cache *out; /* output cache of every call so far (global index) */
    int32_t out_n, out_capacity;
    gjk_options opt; /* zeroed: the world's default narrow-phase options */
} replay;

/* A named trajectory's record: state per waypoint and pair (stamp 1 = recorded). */
typedef struct record {
    pstate *s; /* WAYPOINTS * nl * nb */
    const gjk_transform *poses;
} record;

static void replay_init(replay *r, const dense_cell *c)
{
    memset(r, 0, sizeof *r);
    r->cell = c;
    r->nl = c->link_part_count;
    r->no = c->obstacle_part_count;
    r->nb = r->no + r->nl;
    r->links = calloc((size_t)r->nl, sizeof *r->links);
    r->obstacles = calloc((size_t)r->no, sizeof *r->obstacles);
    r->chain = calloc((size_t)r->nl * (size_t)r->nb, sizeof *r->chain);
    for (int32_t i = 0; i < r->nl; ++i) {
        const dense_part *d = &c->link_parts[i];
        rpart *p = &r->links[i];
        p->shape = &d->shape;
        p->pose = gjk_transform_make(gjk_quat_normalize(d->pose.q), d->pose.p);
        gjk_vec3 lo, hi;
        gjk_shape_aabb(&d->shape, gjk_transform_identity(), &lo, &hi);
        p->centre = gjk_scale(gjk_add(lo, hi), 0.5);
        p->half = gjk_scale(gjk_sub(hi, lo), 0.5);
        p->radius = gjk_shape_bounding_radius(&d->shape);
        p->link = d->body;
    }
    for (int32_t j = 0; j < r->no; ++j) {
        const dense_part *d = &c->obstacle_parts[j];
        rpart *p = &r->obstacles[j];
        p->shape = &d->shape;
        gjk_transform body = gjk_transform_make(gjk_quat_normalize(d->body_pose.q), d->body_pose.p);
        p->pose =
            gjk_transform_mul(body, gjk_transform_make(gjk_quat_normalize(d->pose.q), d->pose.p));
        gjk_shape_aabb(&d->shape, p->pose, &p->box[0], &p->box[1]);
        p->link = -1;
    }
}

static void replay_free(replay *r)
{
    free(r->links);
    free(r->obstacles);
    free(r->chain);
    free(r->out);
}

static void place(const rpart *p, gjk_transform link_pose, rplaced *out)
{
    gjk_transform lp = gjk_transform_make(gjk_quat_normalize(link_pose.q), link_pose.p);
    out->pose = gjk_transform_mul(lp, p->pose);
    gjk_mat3 m = gjk_mat3_from_quat(out->pose.q);
    gjk_vec3 c = gjk_transform_point(out->pose, p->centre), h = p->half;
    gjk_vec3 e = gjk_v3(fabs(m.m[0][0]) * h.x + fabs(m.m[0][1]) * h.y + fabs(m.m[0][2]) * h.z,
                        fabs(m.m[1][0]) * h.x + fabs(m.m[1][1]) * h.y + fabs(m.m[1][2]) * h.z,
                        fabs(m.m[2][0]) * h.x + fabs(m.m[2][1]) * h.y + fabs(m.m[2][2]) * h.z);
    out->box[0] = gjk_sub(c, e);
    out->box[1] = gjk_add(c, e);
}

/* One pair as the world's check_pair treats it (ALL_WITHIN, padding 0). */
static void replay_pair(replay *r, call_list *L, int32_t w, int32_t i, int32_t j, const rplaced *pa,
                        const rplaced *pb, const gjk_shape *sb, const gjk_transform *pose_b,
                        const gjk_vec3 *box_b, const record *prev, bool prev_bounds, record *rec)
{
    const double limit = MAX_DISTANCE;
    if (beyond_reach(pa->box, box_b, limit))
        return;
    size_t key = (size_t)i * (size_t)r->nb + (size_t)j;
    pstate *chain = &r->chain[key];
    bool have_chain = chain->stamp == r->chain_stamp;
    const pstate *named = NULL;
    size_t wkey = (size_t)w * (size_t)r->nl * (size_t)r->nb + key;
    if (prev && prev->s[wkey].stamp == 1)
        named = &prev->s[wkey];
    double travel = pa->travel + (pb ? pb->travel : 0.0);
    double bound = -HUGE_VAL;
    if (have_chain)
        bound = chain->lower - (travel - chain->travel);
    if (named && prev_bounds)
        bound = fmax(bound, named->lower - pa->moved - (pb ? pb->moved : 0.0));
    pstate state;
    if (bound > limit + BOUND_SLACK) {
        ++L->bounded[w];
        state.src = named ? named->src : chain->src;
        state.lower = bound;
        state.travel = travel;
        state.stamp = r->chain_stamp;
        if (!have_chain)
            *chain = state;
    } else {
        int32_t src = named ? named->src : (have_chain ? chain->src : -1);
        gjk_cache cache;
        if (src >= 0)
            cache = r->out[src];
        else
            memset(&cache, 0, sizeof cache);
        gjk_result res = gjk_distance_cutoff(r->links[i].shape, pa->pose, sb, *pose_b,
                                             fmax(0.0, limit), &cache, &r->opt);
        if (r->out_n == r->out_capacity) {
            r->out_capacity = r->out_capacity ? 2 * r->out_capacity : 4096;
            r->out = realloc(r->out, (size_t)r->out_capacity * sizeof *r->out);
        }
        if (L->n == L->capacity) {
            L->capacity = L->capacity ? 2 * L->capacity : 4096;
            L->calls = realloc(L->calls, (size_t)L->capacity * sizeof *L->calls);
        }
        if (!r->out || !L->calls)
            die("replay", GJK_STATUS_OUT_OF_MEMORY);
        int32_t g = r->out_n++;
        r->out[g] = cache;
        L->calls[L->n++] = (call){r->links[i].shape, sb, pa->pose, *pose_b, src};
        ++L->narrow[w];
        state.src = g;
        state.lower = -HUGE_VAL;
        if ((res.status == GJK_STATUS_SEPARATED || res.status == GJK_STATUS_BEYOND_CUTOFF) &&
            isfinite(res.lower_bound))
            state.lower = res.lower_bound;
        state.travel = travel;
        state.stamp = r->chain_stamp;
        *chain = state;
    }
    if (rec) {
        rec->s[wkey] = state;
        rec->s[wkey].stamp = 1;
    }
}

/* Replays one trajectory query over `poses`: prev (or NULL) is the named trajectory's record
 * of its previous query, rec (or NULL) receives this query's. */
static void replay_query(replay *r, const gjk_transform *poses, const record *prev, record *rec,
                         call_list *L)
{
    const dense_cell *c = r->cell;
    memset(L, 0, sizeof *L);
    L->base = r->out_n;
    if (rec)
        memset(rec->s, 0, (size_t)WAYPOINTS * (size_t)r->nl * (size_t)r->nb * sizeof *rec->s);
    rplaced *now = calloc((size_t)r->nl, sizeof *now),
            *before = calloc((size_t)r->nl, sizeof *before);
    const double reach = fmax(0.0, MAX_DISTANCE);
    for (int32_t start = 0; start < WAYPOINTS; start += GJK_WORLD_BLOCK_WAYPOINTS) {
        ++r->chain_stamp; /* a block starts with an empty chain map */
        int32_t end = start + GJK_WORLD_BLOCK_WAYPOINTS;
        end = end > WAYPOINTS ? WAYPOINTS : end;
        for (int32_t w = start; w < end; ++w) {
            for (int32_t i = 0; i < r->nl; ++i) {
                const rpart *p = &r->links[i];
                place(p, poses[w * DENSE_LINKS + p->link], &now[i]);
                now[i].travel = 0.0;
                if (w > start)
                    now[i].travel =
                        before[i].travel + motion_bound(before[i].pose, now[i].pose, p->radius);
                now[i].moved = 0.0;
                if (prev) {
                    gjk_transform b = prev->poses[w * DENSE_LINKS + p->link];
                    b.q = gjk_quat_normalize(b.q);
                    now[i].moved =
                        motion_bound(gjk_transform_mul(b, p->pose), now[i].pose, p->radius);
                }
            }
            for (int32_t i = 0; i < r->nl; ++i) {
                for (int32_t j = 0; j < r->no; ++j) {
                    const rpart *o = &r->obstacles[j];
                    if (box_distance_sq(now[i].box, o->box) > reach * reach)
                        continue;
                    replay_pair(r, L, w, i, j, &now[i], NULL, o->shape, &o->pose, o->box, prev,
                                prev != NULL, rec);
                }
            }
            for (int32_t i = 0; i < r->nl; ++i)
                for (int32_t k = i + 1; k < r->nl; ++k) {
                    int32_t la = r->links[i].link, lb = r->links[k].link;
                    if (la == lb || c->disabled[la][lb])
                        continue;
                    replay_pair(r, L, w, i, r->no + k, &now[i], &now[k], r->links[k].shape,
                                &now[k].pose, now[k].box, prev, prev != NULL, rec);
                }
            memcpy(before, now, (size_t)r->nl * sizeof *now);
        }
    }
    if (rec)
        rec->poses = poses;
    free(now);
    free(before);
}

/* ------------------------------------------------------------------ bare runs */

static volatile double sink;

enum { BARE_SIGNED, BARE_CUTOFF, BARE_ZEROED, BARES };

/* Runs a list's calls with their cache sources (BARE_ZEROED: every cache zeroed); out holds
 * every call's output cache. */
static double run_bare(const call_list *L, gjk_cache *out, int how)
{
    bool cutoff = how == BARE_CUTOFF;
    gjk_options opt;
    memset(&opt, 0, sizeof opt);
    double acc = 0.0, t0 = now();
    for (int32_t k = 0; k < L->n; ++k) {
        const call *c = &L->calls[k];
        gjk_cache cache;
        if (c->src >= 0 && how != BARE_ZEROED)
            cache = out[c->src];
        else
            memset(&cache, 0, sizeof cache);
        gjk_result r =
            cutoff ? gjk_distance_cutoff(c->a, c->pa, c->b, c->pb, MAX_DISTANCE, &cache, &opt)
                   : gjk_signed_distance(c->a, c->pa, c->b, c->pb, &cache, &opt);
        out[L->base + k] = cache;
        acc += r.distance;
    }
    double dt = now() - t0;
    sink += acc;
    return dt;
}

/* ------------------------------------------------------------------ world runs */

typedef struct world_run {
    const dense_cell *cell;
    gjk_world_trajectory t;
    gjk_world_query_options opt;
} world_run;

static double run_world(world_run *wr, const gjk_transform *poses, const char *name, int threads,
                        gjk_world_result **keep)
{
    wr->t.link_poses = poses;
    wr->t.name = name;
    wr->opt.threads = threads;
    gjk_world_result *res = NULL;
    double t0 = now();
    gjk_status s = gjk_world_query_trajectory(wr->cell->world, &wr->t, &wr->opt, &res);
    double dt = now() - t0;
    if (s != GJK_WORLD_OK)
        die("query_trajectory", s);
    if (keep) {
        gjk_world_result_destroy(keep);
        *keep = res;
    } else {
        gjk_world_result_destroy(&res);
    }
    return dt;
}

static void forget(const dense_cell *c)
{
    gjk_status s = gjk_world_forget_trajectory(c->world, NAME);
    if (s != GJK_WORLD_OK && s != GJK_STATUS_NOT_FOUND)
        die("forget_trajectory", s);
}

/* The world's counters against the replay's, waypoint by waypoint. */
static int check_counts(const char *what, int threads, const gjk_world_result *res,
                        const call_list *L)
{
    int bad = 0;
    for (int32_t w = 0; w < res->waypoint_count; ++w) {
        const gjk_world_counters *k = &res->waypoints[w].counters;
        if (k->pairs_narrow != L->narrow[w] || k->pairs_bounded != L->bounded[w]) {
            if (bad++ < 5)
                fprintf(stderr,
                        "bench_dense: %s, %d thread(s), waypoint %d: world pairs_narrow %d "
                        "pairs_bounded %d, replay %d and %d\n",
                        what, threads, (int)w, (int)k->pairs_narrow, (int)k->pairs_bounded,
                        (int)L->narrow[w], (int)L->bounded[w]);
        }
    }
    return bad;
}

typedef struct counts {
    long possible, candidate, narrow, bounded, warm_starts, reported, part_pairs;
    long iterations, overlapping, collisions, truncated;
} counts;

static counts totals(const gjk_world_result *r)
{
    counts c;
    memset(&c, 0, sizeof c);
    for (int32_t w = 0; w < r->waypoint_count; ++w) {
        const gjk_world_waypoint *wp = &r->waypoints[w];
        c.possible += wp->counters.pairs_possible;
        c.candidate += wp->counters.pairs_candidate;
        c.narrow += wp->counters.pairs_narrow;
        c.bounded += wp->counters.pairs_bounded;
        c.warm_starts += wp->counters.warm_starts;
        c.iterations += (long)wp->counters.gjk_iterations;
        c.reported += wp->pair_count;
        c.collisions += wp->collision;
        c.truncated += wp->truncated;
        for (int32_t k = 0; k < wp->pair_count; ++k) {
            c.part_pairs += wp->pairs[k].part_pair_count;
            c.overlapping += wp->pairs[k].distance < 0.0;
        }
    }
    return c;
}

static long sum_list(const int32_t *v)
{
    long s = 0;
    for (int w = 0; w < WAYPOINTS; ++w)
        s += v[w];
    return s;
}

/* ------------------------------------------------------------------ main */

enum { COLD, WARM, OPT, KINDS };
static const char *kind_names[KINDS] = {"cold", "warm", "opt-warm"};

int main(int argc, char **argv)
{
    int repeats = 51, profile = -1;
    bool json = false;
    uint64_t seed = 1;
    static const char usage[] =
        "usage: bench_dense [--repeats N] [--seed S] [--json] [--profile KIND]\n"
        "  --repeats N     interleaved runs of every figure, median and fastest taken (default "
        "51)\n"
        "  --seed S        seed of the scene (default 1; bench/RESULTS.md uses 1)\n"
        "  --json          one JSON object instead of the table\n"
        "  --profile KIND  only N world queries of one kind, 1 thread, for perf record: cold\n"
        "                  (unnamed), warm (one name re-queried with the same waypoints) or\n"
        "                  opt-warm (one name, alternately the perturbed and the nominal\n"
        "                  waypoints: each query an optimizer step from the previous one)\n";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = true;
            continue;
        }
        if (strcmp(a, "--repeats") != 0 && strcmp(a, "--seed") != 0 &&
            strcmp(a, "--profile") != 0) {
            fprintf(stderr, "bench_dense: unknown option '%s' (see bench_dense --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_dense: %s needs a value (see bench_dense --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--profile") == 0) {
            for (int k = 0; k < KINDS; ++k)
                if (strcmp(v, kind_names[k]) == 0)
                    profile = k;
            if (profile < 0) {
                fprintf(stderr, "bench_dense: --profile is cold, warm or opt-warm, not '%s'\n", v);
                return 2;
            }
            continue;
        }
        char *end = NULL;
        unsigned long long n = strtoull(v, &end, 10);
        if (end == v || *end != '\0') {
            fprintf(stderr, "bench_dense: %s needs a number, not '%s'\n", a, v);
            return 2;
        }
        if (strcmp(a, "--repeats") == 0)
            repeats = n > 10000 ? 10001 : (int)n;
        else
            seed = n;
    }
    if (repeats < 1 || repeats > 10000) {
        fprintf(stderr, "bench_dense: --repeats is 1..10000\n");
        return 2;
    }

    dense_cell *cell = NULL;
    gjk_status s = dense_cell_create(seed, WAYPOINTS, &cell);
    if (s != GJK_WORLD_OK)
        die("dense_cell_create", s);
    size_t np = (size_t)WAYPOINTS * DENSE_LINKS;
    gjk_transform *nominal = malloc(np * sizeof *nominal), *moved = malloc(np * sizeof *moved);
    double *q = malloc(np * sizeof *q);
    if (!nominal || !moved || !q)
        die("poses", GJK_STATUS_OUT_OF_MEMORY);
    dense_cell_perturb(cell, seed + 1000, PERTURBATION, q);
    if ((s = dense_cell_poses(cell, cell->q, WAYPOINTS, nominal)) != GJK_KINEMATICS_OK ||
        (s = dense_cell_poses(cell, q, WAYPOINTS, moved)) != GJK_KINEMATICS_OK)
        die("forward kinematics", s);

    /* the pair lists: cold (= the first query of a name), warm, opt-warm */
    replay rp;
    replay_init(&rp, cell);
    size_t rec_size = (size_t)WAYPOINTS * (size_t)rp.nl * (size_t)rp.nb;
    record rec[2] = {{calloc(rec_size, sizeof(pstate)), NULL},
                     {calloc(rec_size, sizeof(pstate)), NULL}};
    if (!rec[0].s || !rec[1].s)
        die("replay", GJK_STATUS_OUT_OF_MEMORY);
    call_list lists[KINDS];
    replay_query(&rp, nominal, NULL, &rec[0], &lists[COLD]);
    replay_query(&rp, nominal, &rec[0], &rec[1], &lists[WARM]);
    replay_query(&rp, moved, &rec[1], NULL, &lists[OPT]);
    gjk_cache *bare_out[BARES];
    for (int b = 0; b < BARES; ++b) {
        bare_out[b] = calloc((size_t)rp.out_n, sizeof(gjk_cache));
        if (!bare_out[b])
            die("bare", GJK_STATUS_OUT_OF_MEMORY);
    }
    const gjk_transform *kind_poses[KINDS] = {nominal, nominal, moved};

    world_run wr;
    memset(&wr, 0, sizeof wr);
    wr.cell = cell;
    wr.t.robot = cell->robot;
    wr.t.waypoint_count = WAYPOINTS;
    wr.t.link_count = DENSE_LINKS;
    wr.opt = gjk_world_default_query_options();
    wr.opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    wr.opt.has_max_distance = true;
    wr.opt.max_distance = MAX_DISTANCE;
    wr.opt.max_pairs = 100000; /* report everything within reach */

    /* scene figures from a cold query, body pairs and then per part */
    gjk_world_result *res = NULL;
    run_world(&wr, nominal, NULL, 1, &res);
    counts body = totals(res);
    int near_obstacles = 0, near_self = 0, touched_obstacles = 0;
    {
        bool *seen = calloc((size_t)cell->obstacle_count + 1, 2 * sizeof(bool));
        bool self_seen[DENSE_LINKS][DENSE_LINKS];
        memset(self_seen, 0, sizeof self_seen);
        for (int32_t w = 0; w < res->waypoint_count; ++w)
            for (int32_t k = 0; k < res->waypoints[w].pair_count; ++k) {
                const gjk_world_pair *p = &res->waypoints[w].pairs[k];
                if (p->b.body.kind == GJK_BODY_LINK) {
                    near_self += !self_seen[p->a.body.link][p->b.body.link];
                    self_seen[p->a.body.link][p->b.body.link] = true;
                    continue;
                }
                int32_t o = 0;
                while (o < cell->obstacle_count && cell->obstacle_ids[o] != p->b.body.object)
                    ++o;
                near_obstacles += !seen[2 * o];
                seen[2 * o] = true;
                if (p->distance <= 0.0) {
                    touched_obstacles += !seen[2 * o + 1];
                    seen[2 * o + 1] = true;
                }
            }
        free(seen);
    }
    wr.opt.per_part = true;
    run_world(&wr, nominal, NULL, 1, &res);
    counts part = totals(res);
    wr.opt.per_part = false;

    if (profile >= 0) {
        double *t = calloc((size_t)repeats, sizeof *t);
        for (int r = 0; r < repeats; ++r) {
            const gjk_transform *p = profile == OPT && r % 2 == 0 ? moved : nominal;
            t[r] = run_world(&wr, p, profile == COLD ? NULL : NAME, 1, NULL);
        }
        printf("bench_dense: %d %s queries, 1 thread: median %.3f ms, fastest %.3f ms\n", repeats,
               kind_names[profile], 1e3 * median(t, repeats), 1e3 * fastest(t, repeats));
        free(t);
        forget(cell);
        gjk_world_result_destroy(&res);
    } else {
        /* timing, interleaved */
        double *tw[2][KINDS], *tb[BARES][KINDS]; /* world [threads-1][kind], bare [how][kind] */
        for (int k = 0; k < KINDS; ++k) {
            for (int a = 0; a < 2; ++a)
                tw[a][k] = calloc((size_t)repeats, sizeof(double));
            for (int b = 0; b < BARES; ++b)
                tb[b][k] = calloc((size_t)repeats, sizeof(double));
        }
        counts kc[KINDS];
        int mismatches = 0;
        for (int r = -1; r < repeats; ++r) { /* r = -1: warm-up and the checks, not timed */
            for (int th = 1; th <= 2; ++th) {
                gjk_world_result **keep = r < 0 ? &res : NULL;
                double t = run_world(&wr, nominal, NULL, th, keep);
                if (r < 0) {
                    mismatches += check_counts("cold", th, res, &lists[COLD]);
                    kc[COLD] = totals(res);
                } else {
                    tw[th - 1][COLD][r] = t;
                }
                forget(cell);
                run_world(&wr, nominal, NAME, th, NULL); /* the first query of the name */
                for (int k = WARM; k <= OPT; ++k) {
                    t = run_world(&wr, kind_poses[k], NAME, th, keep);
                    if (r < 0) {
                        mismatches += check_counts(kind_names[k], th, res, &lists[k]);
                        kc[k] = totals(res);
                    } else {
                        tw[th - 1][k][r] = t;
                    }
                }
            }
            for (int b = 0; b < BARES; ++b)
                for (int k = 0; k < KINDS; ++k) {
                    double t = run_bare(&lists[k], bare_out[b], b);
                    if (r >= 0)
                        tb[b][k][r] = t;
                }
        }
        forget(cell);
        gjk_world_result_destroy(&res);
        if (mismatches > 0) {
            fprintf(stderr,
                    "bench_dense: the replay's pair lists differ from the world's counters at %d "
                    "waypoint(s): the overhead ratio would compare different work\n",
                    mismatches);
            return 1;
        }

        double wmed[2][KINDS], wmin[2][KINDS], bmed[BARES][KINDS], bmin[BARES][KINDS];
        for (int k = 0; k < KINDS; ++k) {
            for (int a = 0; a < 2; ++a) {
                wmed[a][k] = median(tw[a][k], repeats);
                wmin[a][k] = fastest(tw[a][k], repeats);
            }
            for (int b = 0; b < BARES; ++b) {
                bmed[b][k] = median(tb[b][k], repeats);
                bmin[b][k] = fastest(tb[b][k], repeats);
            }
        }
        long listed[KINDS];
        for (int k = 0; k < KINDS; ++k)
            listed[k] = sum_list(lists[k].narrow);

        if (json) {
            printf("{\"seed\": %llu, \"repeats\": %d, \"waypoints\": %d, \"link_parts\": %d, "
                   "\"obstacles\": %d, \"obstacle_parts\": %d, \"max_distance\": %g,\n",
                   (unsigned long long)seed, repeats, WAYPOINTS, (int)cell->link_part_count,
                   (int)cell->obstacle_count, (int)cell->obstacle_part_count, MAX_DISTANCE);
            printf(" \"obstacles_within_reach\": %d, \"obstacles_touched\": %d, "
                   "\"self_pairs_within_reach\": %d, \"colliding_waypoints\": %ld,\n",
                   near_obstacles, touched_obstacles, near_self, body.collisions);
            printf(" \"pairs_reported_body\": %ld, \"pairs_reported_part\": %ld, "
                   "\"overlapping_body_pairs\": %ld,\n",
                   body.reported, part.reported, body.overlapping);
            for (int k = 0; k < KINDS; ++k) {
                printf(" \"%s\": {\"pairs_possible\": %ld, \"pairs_candidate\": %ld, "
                       "\"pairs_narrow\": %ld, \"pairs_bounded\": %ld, \"warm_starts\": %ld, "
                       "\"gjk_iterations\": %ld,\n",
                       kind_names[k], kc[k].possible, kc[k].candidate, kc[k].narrow, kc[k].bounded,
                       kc[k].warm_starts, kc[k].iterations);
                printf("   \"world_ms\": {\"t1_median\": %.4f, \"t1_fastest\": %.4f, "
                       "\"t2_median\": %.4f, \"t2_fastest\": %.4f},\n",
                       1e3 * wmed[0][k], 1e3 * wmin[0][k], 1e3 * wmed[1][k], 1e3 * wmin[1][k]);
                printf("   \"bare_ms\": {\"cutoff_median\": %.4f, \"cutoff_fastest\": %.4f, "
                       "\"signed_median\": %.4f, \"signed_fastest\": %.4f, "
                       "\"signed_zeroed_median\": %.4f, \"signed_zeroed_fastest\": %.4f},\n",
                       1e3 * bmed[1][k], 1e3 * bmin[1][k], 1e3 * bmed[0][k], 1e3 * bmin[0][k],
                       1e3 * bmed[2][k], 1e3 * bmin[2][k]);
                printf("   \"overhead_vs_cutoff\": %.3f, \"overhead_vs_signed\": %.3f, "
                       "\"speedup_2_threads\": %.3f}%s\n",
                       wmed[0][k] / bmed[1][k], wmed[0][k] / bmed[0][k], wmed[0][k] / wmed[1][k],
                       k + 1 < KINDS ? "," : "");
            }
            printf("}\n");
        } else {
            printf("bench_dense: dense cell (seed %llu): 7-link arm, %d parts; %d obstacles, %d "
                   "parts; %d waypoints; ALL_WITHIN %.2f m, depth on, self pairs; %d repeats\n",
                   (unsigned long long)seed, (int)cell->link_part_count, (int)cell->obstacle_count,
                   (int)cell->obstacle_part_count, WAYPOINTS, MAX_DISTANCE, repeats);
            printf("scene: %d obstacles within %.2f m of the arm somewhere (%d touched or "
                   "penetrated), %d self link pairs within reach, %ld of %d waypoints collide\n",
                   near_obstacles, MAX_DISTANCE, touched_obstacles, near_self, body.collisions,
                   WAYPOINTS);
            printf("reported per query: %ld body pairs (%.1f per waypoint, %ld overlapping), %ld "
                   "part pairs with per_part (%.1f per waypoint)\n",
                   body.reported, (double)body.reported / WAYPOINTS, body.overlapping,
                   part.reported, (double)part.reported / WAYPOINTS);
            printf("%-46s %12s %12s %12s\n", "", "cold", "warm", "opt-warm");
            printf("%-46s %12ld %12ld %12ld\n", "part pairs possible", kc[0].possible,
                   kc[1].possible, kc[2].possible);
            printf("%-46s %12ld %12ld %12ld\n", "part pairs candidate (boxes within reach)",
                   kc[0].candidate, kc[1].candidate, kc[2].candidate);
            printf("%-46s %12ld %12ld %12ld\n", "part pairs computed (pairs_narrow)", kc[0].narrow,
                   kc[1].narrow, kc[2].narrow);
            printf("%-46s %12ld %12ld %12ld\n", "  replay's list (must equal)", listed[0],
                   listed[1], listed[2]);
            printf("%-46s %12ld %12ld %12ld\n", "part pairs skipped on bounds (pairs_bounded)",
                   kc[0].bounded, kc[1].bounded, kc[2].bounded);
            printf("%-46s %12ld %12ld %12ld\n", "warm-started GJK runs", kc[0].warm_starts,
                   kc[1].warm_starts, kc[2].warm_starts);
            printf("%-46s %12.2f %12.2f %12.2f\n", "GJK iterations per computed pair",
                   (double)kc[0].iterations / (double)kc[0].narrow,
                   (double)kc[1].iterations / (double)(kc[1].narrow ? kc[1].narrow : 1),
                   (double)kc[2].iterations / (double)(kc[2].narrow ? kc[2].narrow : 1));
            const char *rows[4] = {"world, 1 thread [ms] median", "world, 1 thread [ms] fastest",
                                   "world, 2 threads [ms] median", "world, 2 threads [ms] fastest"};
            for (int a = 0; a < 2; ++a) {
                printf("%-46s %12.3f %12.3f %12.3f\n", rows[2 * a], 1e3 * wmed[a][0],
                       1e3 * wmed[a][1], 1e3 * wmed[a][2]);
                printf("%-46s %12.3f %12.3f %12.3f\n", rows[2 * a + 1], 1e3 * wmin[a][0],
                       1e3 * wmin[a][1], 1e3 * wmin[a][2]);
            }
            printf("%-46s %12s %12.3f %12.3f\n", "warm / cold, 1 thread (medians)", "",
                   wmed[0][1] / wmed[0][0], wmed[0][2] / wmed[0][0]);
            printf("%-46s %12.2f %12.2f %12.2f\n", "speed-up 2 threads (medians) [x]",
                   wmed[0][0] / wmed[1][0], wmed[0][1] / wmed[1][1], wmed[0][2] / wmed[1][2]);
            printf("%-46s %12.3f %12.3f %12.3f\n", "bare gjk_distance_cutoff [ms] median",
                   1e3 * bmed[1][0], 1e3 * bmed[1][1], 1e3 * bmed[1][2]);
            printf("%-46s %12.3f %12.3f %12.3f\n", "bare gjk_distance_cutoff [ms] fastest",
                   1e3 * bmin[1][0], 1e3 * bmin[1][1], 1e3 * bmin[1][2]);
            printf("%-46s %12.3f %12.3f %12.3f\n", "bare gjk_signed_distance [ms] median",
                   1e3 * bmed[0][0], 1e3 * bmed[0][1], 1e3 * bmed[0][2]);
            printf("%-46s %12.3f %12.3f %12.3f\n", "bare gjk_signed_distance [ms] fastest",
                   1e3 * bmin[0][0], 1e3 * bmin[0][1], 1e3 * bmin[0][2]);
            printf("%-46s %12.3f %12.3f %12.3f\n", "bare signed, every cache zeroed [ms] median",
                   1e3 * bmed[2][0], 1e3 * bmed[2][1], 1e3 * bmed[2][2]);
            printf("%-46s %12.2f %12.2f %12.2f\n", "world overhead vs cutoff (medians) [x]",
                   wmed[0][0] / bmed[1][0], wmed[0][1] / bmed[1][1], wmed[0][2] / bmed[1][2]);
            printf("%-46s %12.2f %12.2f %12.2f\n", "world overhead vs cutoff (fastest) [x]",
                   wmin[0][0] / bmin[1][0], wmin[0][1] / bmin[1][1], wmin[0][2] / bmin[1][2]);
            printf("%-46s %12.2f %12.2f %12.2f\n", "world overhead vs signed (medians) [x]",
                   wmed[0][0] / bmed[0][0], wmed[0][1] / bmed[0][1], wmed[0][2] / bmed[0][2]);
            printf("%-46s %12.2f %12.2f %12.2f\n", "world overhead vs signed (fastest) [x]",
                   wmin[0][0] / bmin[0][0], wmin[0][1] / bmin[0][1], wmin[0][2] / bmin[0][2]);
            printf("%-46s %12.0f %12.0f %12.0f\n", "bare cutoff ns per computed pair (median)",
                   1e9 * bmed[1][0] / (double)listed[0],
                   1e9 * bmed[1][1] / (double)(listed[1] ? listed[1] : 1),
                   1e9 * bmed[1][2] / (double)(listed[2] ? listed[2] : 1));
        }

        for (int a = 0; a < 2; ++a)
            for (int k = 0; k < KINDS; ++k)
                free(tw[a][k]);
        for (int b = 0; b < BARES; ++b)
            for (int k = 0; k < KINDS; ++k)
                free(tb[b][k]);
    }
    for (int k = 0; k < KINDS; ++k)
        free(lists[k].calls);
    for (int b = 0; b < BARES; ++b)
        free(bare_out[b]);
    free(rec[0].s);
    free(rec[1].s);
    replay_free(&rp);
    free(nominal);
    free(moved);
    free(q);
    dense_cell_destroy(&cell);
    return 0;
}
