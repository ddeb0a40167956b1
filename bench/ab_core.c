/* gjk-ab — two builds of libgjk side by side in one process (run by scripts/ab).
 *
 *   gjk-ab OLD.so NEW.so CASEFILE [MIN_NS]
 *
 * Loads both builds (dlopen, RTLD_LOCAL: each keeps its own symbols), builds every case
 * shape with each (gjk_hull_build), and times gjk_signed_distance case by case, alternating
 * five batches of OLD and NEW and keeping each build's fastest batch: on a shared machine
 * noise only adds time, and alternating at the case level cancels the drift (clock
 * frequency, neighbours) that makes separate runs minutes apart differ by 15-30 %. Prints
 * per group (separated and intersecting `main` cases by size bucket, the trajectory cold
 * and warm) the median ns of each build and the median of the per-case ratios NEW/OLD, the
 * figure to read. A warm trajectory step starts from the cache that the previous step of the
 * same pair left, in each build. MIN_NS (default 100000) is how long each case is timed,
 * per build. Shape preprocessing is not timed. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cases.h"
#include "gjk/gjk.h"

enum { BATCHES = 5, MAX_PAIRS = 64 };

typedef struct build {
    void *handle;
    gjk_status (*hull_build)(gjk_polytope *, const gjk_vec3 *, int32_t, gjk_hull_info *);
    gjk_shape (*make_polytope)(const gjk_polytope *);
    void (*polytope_destroy)(gjk_polytope *);
    gjk_result (*signed_distance)(const gjk_shape *, gjk_transform, const gjk_shape *,
                                  gjk_transform, gjk_cache *, const gjk_options *);
    gjk_options options;
    gjk_polytope *polytopes;
    gjk_shape *shapes;
    gjk_cache *warm_start; /* per case: the cache its warm query starts from */
} build;

static void *symbol(void *handle, const char *path, const char *name)
{
    void *s = dlsym(handle, name);
    if (s == NULL)
        fprintf(stderr, "gjk-ab: %s has no %s\n", path, name);
    return s;
}

static gjk_result query(const build *b, const gjk_case *c, gjk_cache *cache)
{
    return b->signed_distance(&b->shapes[c->shape_a], c->pose_a, &b->shapes[c->shape_b],
                              c->pose_b, cache, &b->options);
}

/* Index of the (a, b) pair in pairs[], added if new; -1 when the table is full. */
static int pair_slot(int32_t pairs[][2], int *n, int32_t a, int32_t b)
{
    for (int i = 0; i < *n; ++i)
        if (pairs[i][0] == a && pairs[i][1] == b)
            return i;
    if (*n == MAX_PAIRS)
        return -1;
    pairs[*n][0] = a;
    pairs[*n][1] = b;
    return (*n)++;
}

static int load(build *b, const char *path, const gjk_case_set *set)
{
    memset(b, 0, sizeof *b);
    b->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (b->handle == NULL) {
        fprintf(stderr, "gjk-ab: %s\n", dlerror());
        return -1;
    }
    gjk_options (*defaults)(void);
    *(void **)&b->hull_build = symbol(b->handle, path, "gjk_hull_build");
    *(void **)&b->make_polytope = symbol(b->handle, path, "gjk_make_polytope");
    *(void **)&b->polytope_destroy = symbol(b->handle, path, "gjk_polytope_destroy");
    *(void **)&b->signed_distance = symbol(b->handle, path, "gjk_signed_distance");
    *(void **)&defaults = symbol(b->handle, path, "gjk_default_options");
    if (!b->hull_build || !b->make_polytope || !b->polytope_destroy || !b->signed_distance ||
        !defaults)
        return -1;
    b->options = defaults();
    size_t ns = (size_t)(set->shape_count > 0 ? set->shape_count : 1);
    b->polytopes = calloc(ns, sizeof *b->polytopes);
    b->shapes = calloc(ns, sizeof *b->shapes);
    b->warm_start = calloc((size_t)(set->case_count > 0 ? set->case_count : 1),
                           sizeof *b->warm_start);
    if (!b->polytopes || !b->shapes || !b->warm_start) {
        fprintf(stderr, "gjk-ab: out of memory\n");
        return -1;
    }
    for (int32_t i = 0; i < set->shape_count; ++i) {
        const gjk_case_shape *s = &set->shapes[i];
        if (b->hull_build(&b->polytopes[i], s->points, s->count, NULL) != GJK_STATUS_SEPARATED) {
            fprintf(stderr, "gjk-ab: %s: shape %d (%s): hull failed\n", path, (int)s->id, s->cls);
            return -1;
        }
        b->shapes[i] = b->make_polytope(&b->polytopes[i]);
    }
    /* Warm starts along the trajectory: each step from the previous step of its pair. */
    int32_t pairs[MAX_PAIRS][2];
    gjk_cache caches[MAX_PAIRS];
    int npairs = 0;
    memset(caches, 0, sizeof caches);
    for (int32_t i = 0; i < set->case_count; ++i) {
        const gjk_case *c = &set->cases[i];
        if (strcmp(c->subset, "traj") != 0)
            continue;
        int k = pair_slot(pairs, &npairs, c->shape_a, c->shape_b);
        if (k < 0) {
            fprintf(stderr, "gjk-ab: more than %d trajectory pairs\n", MAX_PAIRS);
            return -1;
        }
        b->warm_start[i] = caches[k];
        (void)query(b, c, &caches[k]);
    }
    return 0;
}

static void unload(build *b, const gjk_case_set *set)
{
    if (b->polytopes && b->polytope_destroy)
        for (int32_t i = 0; i < set->shape_count; ++i)
            b->polytope_destroy(&b->polytopes[i]);
    free(b->polytopes);
    free(b->shapes);
    free(b->warm_start);
    if (b->handle)
        dlclose(b->handle);
}

static volatile double sink;

/* Mean ns of `reps` queries, each from *start. */
static double batch(const build *b, const gjk_case *c, const gjk_cache *start, int reps)
{
    double t0 = bench_now_ns();
    for (int i = 0; i < reps; ++i) {
        gjk_cache cache = *start;
        sink += query(b, c, &cache).distance;
    }
    return (bench_now_ns() - t0) / reps;
}

typedef struct group {
    const char *name;
    const char *subset; /* main or traj */
    const char *state;  /* main: separated or intersecting */
    char bucket;        /* main: S, M or L */
    bool warm;          /* traj: warm-started */
} group;

static bool in_group(const gjk_case_set *set, const gjk_case *c, const group *g)
{
    if (strcmp(c->subset, g->subset) != 0)
        return false;
    return g->bucket == 0 || (strcmp(c->state, g->state) == 0 && gjk_case_bucket(set, c) == g->bucket);
}

int main(int argc, char **argv)
{
    static const char usage[] =
        "usage: gjk-ab OLD.so NEW.so CASEFILE [MIN_NS]\n"
        "  OLD.so, NEW.so  two builds of the core as modules (libgjk_ab.so; scripts/ab)\n"
        "  CASEFILE        the cases to time on both\n"
        "  MIN_NS          time each case for at least MIN_NS ns per build (default 100000)\n";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "gjk-ab: unknown option '%s' (see gjk-ab --help)\n", argv[i]);
            return 2;
        }
    }
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "gjk-ab: expected OLD.so NEW.so CASEFILE [MIN_NS] (see gjk-ab --help)\n");
        return 2;
    }
    double min_ns = argc == 5 ? atof(argv[4]) : 100000.0;
    if (!(min_ns > 0.0)) {
        fprintf(stderr, "gjk-ab: MIN_NS must be positive\n");
        return 2;
    }
    gjk_case_set set;
    char err[256];
    if (gjk_cases_load(argv[3], &set, err, sizeof err) != 0) {
        fprintf(stderr, "gjk-ab: %s\n", err);
        return 1;
    }
    build old, new;
    int rc = 0;
    if (load(&old, argv[1], &set) != 0 || load(&new, argv[2], &set) != 0) {
        rc = 1;
        goto done;
    }
    static const group groups[] = {
        {"distance S", "main", "separated", 'S', false},
        {"distance M", "main", "separated", 'M', false},
        {"distance L", "main", "separated", 'L', false},
        {"penetration S", "main", "intersecting", 'S', false},
        {"penetration M", "main", "intersecting", 'M', false},
        {"penetration L", "main", "intersecting", 'L', false},
        {"trajectory cold", "traj", NULL, 0, false},
        {"trajectory warm", "traj", NULL, 0, true},
    };
    double *t_old = malloc(sizeof(double) * (size_t)(set.case_count + 1));
    double *t_new = malloc(sizeof(double) * (size_t)(set.case_count + 1));
    double *ratio = malloc(sizeof(double) * (size_t)(set.case_count + 1));
    if (!t_old || !t_new || !ratio) {
        fprintf(stderr, "gjk-ab: out of memory\n");
        rc = 1;
    }
    gjk_cache cold;
    memset(&cold, 0, sizeof cold);
    printf("%-16s %6s %10s %10s %9s\n", "group", "cases", "old ns", "new ns", "new/old");
    for (size_t g = 0; rc == 0 && g < sizeof groups / sizeof groups[0]; ++g) {
        int n = 0;
        for (int32_t i = 0; i < set.case_count; ++i) {
            const gjk_case *c = &set.cases[i];
            if (!in_group(&set, c, &groups[g]))
                continue;
            const gjk_cache *so = groups[g].warm ? &old.warm_start[i] : &cold;
            const gjk_cache *sn = groups[g].warm ? &new.warm_start[i] : &cold;
            double once = batch(&old, c, so, 3);
            double want = min_ns / BATCHES / (once > 1.0 ? once : 1.0);
            int reps = want < 2.0 ? 2 : (want > 2000.0 ? 2000 : (int)want);
            double bo = HUGE_VAL, bn = HUGE_VAL;
            for (int k = 0; k < BATCHES; ++k) {
                double x = batch(&old, c, so, reps), y = batch(&new, c, sn, reps);
                bo = x < bo ? x : bo;
                bn = y < bn ? y : bn;
            }
            t_old[n] = bo;
            t_new[n] = bn;
            ratio[n] = bn / bo;
            ++n;
        }
        printf("%-16s %6d %10.1f %10.1f %9.3f\n", groups[g].name, n,
               bench_median(t_old, (size_t)n), bench_median(t_new, (size_t)n),
               bench_median(ratio, (size_t)n));
        fflush(stdout);
    }
    free(t_old);
    free(t_new);
    free(ratio);
done:
    unload(&old, &set);
    unload(&new, &set);
    gjk_cases_free(&set);
    return rc;
}
