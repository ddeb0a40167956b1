/* bench_epa — EPA alone on the intersecting cases of a case file (data/cases/FORMAT.md).
 *
 *   bench_epa CASEFILE [--epa-iterations N] [--min-ns NS] [--no-time] [--worst K]
 *
 * For each intersecting case: builds the pair frame as gjk_query_run does, runs GJK once
 * (not timed) for its final simplex, then times gjk_epa on that simplex: 5 batches of at
 * least --min-ns / 5 each (default 20000 ns in all), the case's time is the mean per call of
 * the fastest batch (robust to preemption on a shared machine).
 * Prints the depth error |depth - (-sd*)| / lref per subset (median, max), statuses, EPA
 * iterations and the median / 90th percentile / max ns per size bucket (S, M, L as in
 * FORMAT.md). The cases are polytopes without margins, so the core depth is the answer. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "gjk/gjk.h"
#include "internal.h"

typedef struct row {
    char subset[64];
    char bucket;
    double err;
    double gap; /* (depth_upper - depth) / lref */
    double ns;
    int32_t iterations;
    gjk_status status;
    int32_t id;
} row;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* The q-quantile of v[0..n) (sorts v). */
static double quantile(double *v, size_t n, double q)
{
    if (n == 0) {
        return NAN;
    }
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i];
}

/* The frame gjk_query_run builds (query.c). */
static gjk_pair_frame make_frame(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                                 gjk_transform pose_b, const gjk_options *o)
{
    gjk_pair_frame f;
    pose_a.q = gjk_quat_normalize(pose_a.q);
    pose_b.q = gjk_quat_normalize(pose_b.q);
    (void)gjk_pair_frame_init(&f, a, pose_a, b, pose_b, o);
    return f;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_epa CASEFILE [--epa-iterations N] [--min-ns NS] [--no-time] "
                 "[--worst K]\n"
                 "  --epa-iterations N  options.epa_max_iterations (default: library default)\n"
                 "  --min-ns NS         time each case for at least NS ns in all (default 20000)\n"
                 "  --no-time           accuracy only\n"
                 "  --worst K           also list the K cases with the largest depth errors\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    }
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "bench_epa: the first argument is the CASEFILE (see bench_epa --help)\n");
        return 2;
    }
    gjk_options opt = gjk_default_options();
    double min_ns = 20000.0;
    bool timed = true;
    int worst = 0;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-time")) {
            timed = false;
            continue;
        }
        if (strcmp(a, "--epa-iterations") && strcmp(a, "--min-ns") && strcmp(a, "--worst")) {
            fprintf(stderr, "bench_epa: unknown argument '%s' (see bench_epa --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_epa: %s needs a value (see bench_epa --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--epa-iterations"))
            opt.epa_max_iterations = atoi(v);
        else if (!strcmp(a, "--min-ns"))
            min_ns = atof(v);
        else
            worst = atoi(v);
    }
    gjk_case_set set;
    char err[256];
    if (gjk_cases_load(argv[1], &set, err, sizeof err) != 0) {
        fprintf(stderr, "bench_epa: %s\n", err);
        return 1;
    }
    gjk_polytope *hulls = calloc((size_t)set.shape_count, sizeof *hulls);
    gjk_shape *shapes = calloc((size_t)set.shape_count, sizeof *shapes);
    row *rows = calloc((size_t)set.case_count, sizeof *rows);
    double *scratch = calloc((size_t)set.case_count, sizeof *scratch);
    if (!hulls || !shapes || !rows || !scratch) {
        fprintf(stderr, "bench_epa: out of memory\n");
        return 1;
    }
    for (int32_t i = 0; i < set.shape_count; ++i) {
        if (gjk_hull_build(&hulls[i], set.shapes[i].points, set.shapes[i].count, NULL) !=
            GJK_STATUS_SEPARATED) {
            fprintf(stderr, "bench_epa: hull of shape %d failed\n", i);
            return 1;
        }
        shapes[i] = gjk_make_polytope(&hulls[i]);
    }

    size_t n = 0;
    int gjk_not_overlapping = 0;
    for (int32_t ci = 0; ci < set.case_count; ++ci) {
        const gjk_case *c = &set.cases[ci];
        if (strcmp(c->state, "intersecting") != 0) {
            continue;
        }
        gjk_pair_frame f =
            make_frame(&shapes[c->shape_a], c->pose_a, &shapes[c->shape_b], c->pose_b, &opt);
        gjk_gjk_input in = {&opt, INFINITY, f.inflate, false};
        gjk_gjk_result g;
        gjk_gjk(&f, &in, NULL, &g);
        if (g.status != GJK_STATUS_OVERLAPPING) {
            ++gjk_not_overlapping;
            continue;
        }
        gjk_epa_result e = gjk_epa(&f, &g.simplex, &opt);
        row *r = &rows[n++];
        snprintf(r->subset, sizeof r->subset, "%s", c->subset);
        r->bucket = gjk_case_bucket(&set, c);
        r->err = fabs(e.depth + c->sd) / c->lref;
        r->gap = (e.depth_upper - e.depth) / c->lref;
        r->iterations = e.iterations;
        r->status = e.status;
        r->id = c->id;
        r->ns = NAN;
        if (timed) {
            /* The fastest of 5 batches: robust to preemption on a shared machine. */
            double sink = 0.0, best = INFINITY;
            for (int batch = 0; batch < 5; ++batch) {
                long reps = 0;
                double t0 = now_ns(), t = 0.0;
                do {
                    for (int k = 0; k < 4; ++k) {
                        sink += gjk_epa(&f, &g.simplex, &opt).depth;
                    }
                    reps += 4;
                    t = now_ns() - t0;
                } while (t < min_ns / 5.0);
                best = t / (double)reps < best ? t / (double)reps : best;
            }
            r->ns = best;
            if (sink < 0.0) {
                printf("?");
            }
            if (getenv("BENCH_EPA_TRACE")) {
                fprintf(stderr, "%d %s %c %s it %d ns %.0f simplex %d\n", c->id, c->subset,
                        r->bucket, c->tag, e.iterations, r->ns, g.simplex.count);
            }
            if (sink < 0.0) {
                printf("?");
            }
        }
    }

    printf("bench_epa %s: %zu intersecting cases with an overlapping GJK verdict (%d without)\n",
           argv[1], n, gjk_not_overlapping);
    printf("epa_max_iterations %d\n\n", opt.epa_max_iterations);
    printf("depth error |depth - (-sd*)| / lref; gap: largest (depth_upper - depth) / lref when "
           "converged\n  subset      n      median         max         gap   converged  iter-limit"
           "  capacity  touching\n");
    const char *subsets[] = {"main", "scale", "degen", "traj"};
    for (int s = 0; s < 4; ++s) {
        size_t m = 0;
        int st[GJK_STATUS_COUNT] = {0};
        double gap = 0.0;
        for (size_t i = 0; i < n; ++i) {
            if (!strcmp(rows[i].subset, subsets[s])) {
                scratch[m++] = rows[i].err;
                st[rows[i].status]++;
                if (rows[i].status == GJK_STATUS_OVERLAPPING && rows[i].gap > gap) {
                    gap = rows[i].gap;
                }
            }
        }
        if (m == 0) {
            continue;
        }
        double med = quantile(scratch, m, 0.5), max = scratch[m - 1];
        printf("  %-6s %6zu  %10.3g  %10.3g  %10.3g  %10d  %10d  %8d  %8d\n", subsets[s], m, med,
               max, gap, st[GJK_STATUS_OVERLAPPING], st[GJK_STATUS_ITERATION_LIMIT],
               st[GJK_STATUS_CAPACITY_LIMIT], st[GJK_STATUS_TOUCHING]);
    }
    printf("\nEPA per size bucket (S: both <= 20 vertices, M: larger 32-256, L: larger "
           "512-2000)\n  bucket      n   iter mean  iter max");
    printf(timed ? "   ns median      ns p90      ns max\n" : "\n");
    const char buckets[3] = {'S', 'M', 'L'};
    for (int b = 0; b < 3; ++b) {
        size_t m = 0;
        double it_sum = 0.0;
        int32_t it_max = 0;
        for (size_t i = 0; i < n; ++i) {
            if (rows[i].bucket == buckets[b]) {
                scratch[m++] = rows[i].ns;
                it_sum += rows[i].iterations;
                it_max = rows[i].iterations > it_max ? rows[i].iterations : it_max;
            }
        }
        if (m == 0) {
            continue;
        }
        printf("  %c      %6zu  %10.1f  %8d", buckets[b], m, it_sum / (double)m, it_max);
        if (timed) {
            double med = quantile(scratch, m, 0.5), p90 = quantile(scratch, m, 0.9);
            printf("  %11.0f %11.0f %11.0f", med, p90, scratch[m - 1]);
        }
        printf("\n");
    }
    if (worst > 0) {
        printf("\nworst cases by depth error:\n");
        for (int k = 0; k < worst && k < (int)n; ++k) {
            size_t bi = 0;
            for (size_t i = 1; i < n; ++i) {
                bi = rows[i].err > rows[bi].err ? i : bi;
            }
            if (!(rows[bi].err >= 0.0)) {
                break;
            }
            printf("  case %6d %-6s %c err %.3g status %s iterations %d\n", rows[bi].id,
                   rows[bi].subset, rows[bi].bucket, rows[bi].err, gjk_status_name(rows[bi].status),
                   rows[bi].iterations);
            rows[bi].err = -1.0;
        }
    }
    for (int32_t i = 0; i < set.shape_count; ++i) {
        gjk_polytope_destroy(&hulls[i]);
    }
    free(hulls);
    free(shapes);
    free(rows);
    free(scratch);
    gjk_cases_free(&set);
    return 0;
}
