/* gjk-cases — evaluates gjk_signed_distance on a shared case file (FORMAT.md).
 *
 *   gjk-cases CASEFILE [--warm] [--out RESULTS.tsv] [--reps N] [--min-ns NS] [--no-time]
 *                      [--hill N] [--iters N] [--epa-iters N] [--worst K] [--case ID]
 *
 * Builds every shape once with gjk_hull_build (not timed), runs every case cold, and the
 * traj subset also warm-started from the previous step of the same pair; prints the accuracy,
 * verdict, failure, witness and timing summary; --out writes the per-case TSV (--warm: traj
 * rows carry the warm answers and times). --worst K lists the K cases with the largest errors
 * and every case that fails a check; --case ID prints one case in full. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gjk-cases CASEFILE [--warm] [--out RESULTS.tsv] [--reps N] [--min-ns NS]\n"
            "                 [--no-time] [--hill N] [--iters N] [--epa-iters N] [--worst K]\n"
            "                 [--case ID]\n"
            "  --warm       the TSV reports warm-started answers on the traj subset\n"
            "  --out FILE   per-case TSV: id subset state sd nx ny nz wax way waz wbx wby "
            "wbz status iterations ns\n"
            "  --reps N     repeat each query exactly N times (default: adaptive)\n"
            "  --min-ns NS  adaptive: time each case for at least NS ns (default 50000)\n"
            "  --no-time    one query per case, accuracy only\n"
            "  --hill N     options.hill_climb_min_vertices (default: library default)\n"
            "  --iters N    options.max_iterations (GJK cap; default: library default)\n"
            "  --epa-iters N options.epa_max_iterations (EPA cap; default: library default)\n"
            "  --worst K    list the K worst cases and every case failing a check\n"
            "  --case ID    print one case in full: the exact answer and ours, cold and warm\n");
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

typedef struct ranked {
    double err;
    int32_t index;
} ranked;

static int cmp_ranked_desc(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    /* NaN and infinities (failures) rank first. */
    double ea = isnan(a->err) ? HUGE_VAL : a->err, eb = isnan(b->err) ? HUGE_VAL : b->err;
    if (ea != eb)
        return ea < eb ? 1 : -1;
    return (a->index > b->index) - (a->index < b->index);
}

static void print_worst(const gjk_eval *ev, int32_t k, FILE *out)
{
    ranked *all = malloc((size_t)(ev->count > 0 ? ev->count : 1) * sizeof *all);
    if (!all)
        return;
    for (int32_t i = 0; i < ev->count; ++i) {
        all[i].err = ev->rows[i].cold_check.err;
        all[i].index = i;
    }
    qsort(all, (size_t)ev->count, sizeof *all, cmp_ranked_desc);
    int32_t n = k < ev->count ? k : ev->count;
    fprintf(out, "\nworst %d cases by |sd - sd*| / lref (cold):\n", (int)n);
    fprintf(out, "  %6s %-6s %-12s %-10s %-16s %12s %12s %10s %s\n", "id", "subset", "state", "tag",
            "status", "sd*", "sd", "err", "A/B");
    for (int32_t j = 0; j < n; ++j) {
        const gjk_case *c = &ev->set->cases[all[j].index];
        const gjk_eval_row *r = &ev->rows[all[j].index];
        fprintf(out, "  %6d %-6s %-12s %-10s %-16s %12.5g %12.5g %10.3g %s/%s\n", (int)c->id,
                c->subset, c->state, c->tag, gjk_status_name(r->cold.status), c->sd,
                r->cold.distance, r->cold_check.err, ev->set->shapes[c->shape_a].cls,
                ev->set->shapes[c->shape_b].cls);
    }
    free(all);

    /* Then the failing cases, by the first check each fails, up to 20 per check. */
    static const char *const what[] = {"failure",     "wrong verdict", "signed distance", "normal",
                                       "consistency", "support plane", "outside shape"};
    enum { NWHAT = sizeof what / sizeof what[0], PER = 20 };
    int32_t shown[NWHAT] = {0}, total[NWHAT] = {0};
    fprintf(out, "\ncases failing a check (first failed check; values / lref):\n");
    for (int kind = 0; kind < NWHAT; ++kind) {
        for (int32_t i = 0; i < ev->count; ++i) {
            const gjk_eval_row *r = &ev->rows[i];
            for (int w = 0; w < 2; ++w) {
                const gjk_eval_check *ck = w ? &r->warm_check : &r->cold_check;
                if ((w && !r->has_warm) || gjk_eval_check_ok(ck, r->tol))
                    continue;
                int first = ck->failure                    ? 0
                            : ck->wrong_verdict            ? 1
                            : !(ck->err <= r->tol)         ? 2
                            : !(ck->normal <= r->tol)      ? 3
                            : !(ck->consistency <= r->tol) ? 4
                            : !(ck->plane <= r->tol)       ? 5
                                                           : 6;
                if (first != kind)
                    continue;
                ++total[kind];
                if (shown[kind]++ >= PER)
                    continue;
                const gjk_case *c = &ev->set->cases[i];
                fprintf(out,
                        "  %-15s %6d %-6s %-12s %-10s %s %-15s %s/%s err %.3g normal %.3g cons "
                        "%.3g plane %.3g shape %.3g\n",
                        what[kind], (int)c->id, c->subset, c->state, c->tag, w ? "warm" : "cold",
                        gjk_status_name(w ? r->warm.status : r->cold.status),
                        ev->set->shapes[c->shape_a].cls, ev->set->shapes[c->shape_b].cls, ck->err,
                        ck->normal, ck->consistency, ck->plane, ck->on_shape);
            }
        }
    }
    int32_t failing = 0;
    for (int kind = 0; kind < NWHAT; ++kind) {
        if (total[kind] > PER)
            fprintf(out, "  %-15s ... %d in all\n", what[kind], (int)total[kind]);
        failing += total[kind];
    }
    if (failing == 0)
        fprintf(out, "  none\n");
}

static void print_result(const char *label, const gjk_result *r, const gjk_eval_check *k, FILE *out)
{
    fprintf(out,
            "  %s: %s sd %.17g\n    normal (%.17g %.17g %.17g)\n"
            "    wa (%.17g %.17g %.17g)\n    wb (%.17g %.17g %.17g)\n"
            "    bounds [%.17g, %.17g], %d GJK + %d EPA iterations, %d support calls\n"
            "    / lref: err %.3g normal %.3g (allowance %.3g) consistency %.3g plane %.3g "
            "outside %.3g%s%s\n",
            label, gjk_status_name(r->status), r->distance, r->normal.x, r->normal.y, r->normal.z,
            r->point_a.x, r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z,
            r->lower_bound, r->upper_bound, (int)r->iterations, (int)r->epa_iterations,
            (int)r->support_calls, k->err, k->normal, k->tilt_allow, k->consistency, k->plane,
            k->on_shape, k->failure ? " FAILURE" : "", k->wrong_verdict ? " WRONG-VERDICT" : "");
}

/* Everything about one case: the exact answer and ours, cold and warm. */
static void print_case(const gjk_eval *ev, long id, FILE *out)
{
    for (int32_t i = 0; i < ev->count; ++i) {
        const gjk_case *c = &ev->set->cases[i];
        if (c->id != id)
            continue;
        const gjk_eval_row *r = &ev->rows[i];
        const gjk_case_shape *a = &ev->set->shapes[c->shape_a], *b = &ev->set->shapes[c->shape_b];
        fprintf(out,
                "\ncase %d: %s %s %s seq %d, A = shape %d (%s, %d vertices), B = shape %d "
                "(%s, %d vertices), lref %g\n",
                (int)c->id, c->subset, c->state, c->tag, (int)c->seq, (int)c->shape_a, a->cls,
                (int)a->count, (int)c->shape_b, b->cls, (int)b->count, c->lref);
        fprintf(out,
                "  exact: sd %.17g (%s, %s)\n    normal (%.17g %.17g %.17g)\n"
                "    wa (%.17g %.17g %.17g)\n    wb (%.17g %.17g %.17g)\n",
                c->sd, c->feature, c->method, c->normal.x, c->normal.y, c->normal.z, c->wa.x,
                c->wa.y, c->wa.z, c->wb.x, c->wb.y, c->wb.z);
        print_result("cold", &r->cold, &r->cold_check, out);
        if (r->has_warm)
            print_result("warm", &r->warm, &r->warm_check, out);
        return;
    }
    fprintf(out, "\nno case %ld\n", id);
}

int main(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL;
    bool warm = false;
    long worst = 0, show = -1;
    gjk_eval_config cfg = gjk_eval_default_config();
    /* --help first, wherever it is: usage on stdout, no work. */
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
    }
    /* Options with an integer value: name, bounds, where it goes. */
    long reps = -1, min_ns = -1, hill = -1, iters = -1, epa_iters = -1;
    const struct {
        const char *name;
        long lo, hi;
        long *out;
    } ints[] = {{"--reps", 1, 100000000, &reps},
                {"--min-ns", 0, 1000000000, &min_ns},
                {"--hill", 1, INT32_MAX, &hill},
                {"--iters", 1, INT32_MAX, &iters},
                {"--epa-iters", 1, INT32_MAX, &epa_iters},
                {"--case", 0, INT32_MAX, &show},
                {"--worst", 0, 1000000, &worst}};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--warm") == 0) {
            warm = true;
            continue;
        }
        if (strcmp(a, "--no-time") == 0) {
            cfg.time = false;
            continue;
        }
        if (a[0] != '-') {
            if (path) {
                fprintf(stderr, "gjk-cases: one CASEFILE only, got '%s' too (see --help)\n", a);
                return 2;
            }
            path = a;
            continue;
        }
        int k = -1;
        for (size_t j = 0; j < sizeof ints / sizeof ints[0]; ++j) {
            if (strcmp(a, ints[j].name) == 0)
                k = (int)j;
        }
        if (k < 0 && strcmp(a, "--out") != 0) {
            fprintf(stderr, "gjk-cases: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gjk-cases: %s needs a value (see --help)\n", a);
            return 2;
        }
        const char *value = argv[++i];
        if (k < 0) {
            out_path = value;
            continue;
        }
        if (parse_long(value, ints[k].lo, ints[k].hi, ints[k].out) != 0) {
            fprintf(stderr, "gjk-cases: %s: expected an integer in [%ld, %ld], got '%s'\n", a,
                    ints[k].lo, ints[k].hi, value);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "gjk-cases: no CASEFILE (see --help)\n");
        return 2;
    }
    if (reps >= 0)
        cfg.reps = (int32_t)reps;
    if (min_ns >= 0)
        cfg.min_time_ns = (double)min_ns;
    if (hill >= 0)
        cfg.options.hill_climb_min_vertices = (int32_t)hill;
    if (iters >= 0)
        cfg.options.max_iterations = (int32_t)iters;
    if (epa_iters >= 0)
        cfg.options.epa_max_iterations = (int32_t)epa_iters;
    cfg.warm = true;

    char err[512];
    gjk_case_set set;
    if (gjk_cases_load(path, &set, err, sizeof err) != 0) {
        fprintf(stderr, "gjk-cases: %s\n", err);
        return 1;
    }
    gjk_eval ev;
    if (gjk_eval_init(&ev, &set, err, sizeof err) != 0) {
        fprintf(stderr, "gjk-cases: %s\n", err);
        gjk_cases_free(&set);
        return 1;
    }
    gjk_eval_run(&ev, &cfg);

    int rc = 0;
    if (out_path) {
        FILE *f = fopen(out_path, "w");
        if (!f || gjk_eval_write_tsv(&ev, f, warm) != 0) {
            fprintf(stderr, "gjk-cases: cannot write %s\n", out_path);
            rc = 1;
        }
        if (f && fclose(f) != 0)
            rc = 1;
    }
    printf("gjk-cases %s%s\n", path, cfg.time ? "" : " (untimed)");
    gjk_eval_print_summary(&ev, stdout);
    if (worst > 0)
        print_worst(&ev, (int32_t)worst, stdout);
    if (show >= 0)
        print_case(&ev, show, stdout);

    gjk_eval_free(&ev);
    gjk_cases_free(&set);
    return rc;
}
