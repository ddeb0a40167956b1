/* eval.c — the case evaluator's logic (see eval.h). */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ checks */

/* Directions of the on-shape test besides the normal and the centroid direction: the 6 axes,
 * the 8 diagonals and a 32-point Fibonacci sphere. */
enum { FIB_COUNT = 32, DIR_COUNT = 6 + 8 + FIB_COUNT };

static void fixed_directions(gjk_vec3 dirs[DIR_COUNT])
{
    int k = 0;
    for (int axis = 0; axis < 3; ++axis) {
        double e[3] = {0.0, 0.0, 0.0};
        e[axis] = 1.0;
        dirs[k++] = gjk_v3(e[0], e[1], e[2]);
        dirs[k++] = gjk_v3(-e[0], -e[1], -e[2]);
    }
    const double s = 1.0 / sqrt(3.0);
    for (int i = 0; i < 8; ++i)
        dirs[k++] = gjk_v3(i & 1 ? s : -s, i & 2 ? s : -s, i & 4 ? s : -s);
    const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
    for (int i = 0; i < FIB_COUNT; ++i) {
        double z = 1.0 - (2.0 * i + 1.0) / FIB_COUNT;
        double r = sqrt(1.0 - z * z);
        dirs[k++] = gjk_v3(r * cos(golden * i), r * sin(golden * i), z);
    }
}

/* A case shape placed in the world: h(u) = max over vertices of (R x + t).u. */
typedef struct placed {
    const gjk_case_shape *s;
    gjk_quat q;
    gjk_vec3 t;
} placed;

static double support_value(const placed *p, gjk_vec3 u)
{
    gjk_vec3 lu = gjk_quat_inv_rotate(p->q, u);
    double best = -HUGE_VAL;
    for (int32_t i = 0; i < p->s->count; ++i) {
        double h = gjk_dot(p->s->points[i], lu);
        best = h > best ? h : best;
    }
    return best + gjk_dot(p->t, u);
}

static gjk_vec3 centroid(const placed *p)
{
    gjk_vec3 c = gjk_v3(0.0, 0.0, 0.0);
    for (int32_t i = 0; i < p->s->count; ++i)
        c = gjk_add(c, p->s->points[i]);
    c = gjk_scale(c, 1.0 / p->s->count);
    return gjk_add(gjk_quat_rotate(p->q, c), p->t);
}

/* Lower bound on the distance from w to the placed shape (0 if none of the directions
 * separates w from it). */
static double outside(const placed *p, gjk_vec3 w, gjk_vec3 normal, const gjk_vec3 *dirs)
{
    double worst = 0.0;
    gjk_vec3 radial = gjk_normalize(gjk_sub(w, centroid(p)));
    gjk_vec3 extra[3] = {normal, gjk_neg(normal), radial};
    for (int i = 0; i < 3 + DIR_COUNT; ++i) {
        gjk_vec3 u = i < 3 ? extra[i] : dirs[i - 3];
        if (gjk_length_sq(u) == 0.0)
            continue;
        double o = gjk_dot(w, u) - support_value(p, u);
        worst = o > worst ? o : worst;
    }
    return worst;
}

static bool status_is_answer(gjk_status s)
{
    return s == GJK_STATUS_SEPARATED || s == GJK_STATUS_TOUCHING || s == GJK_STATUS_OVERLAPPING;
}

bool gjk_eval_verdict_wrong(double sd_true, double lref, const gjk_result *r)
{
    const double tol = GJK_EVAL_TOL * lref;
    switch (r->status) {
    case GJK_STATUS_SEPARATED:
        return sd_true < -tol || !(r->distance > 0.0);
    case GJK_STATUS_OVERLAPPING:
        return sd_true > tol || !(r->distance < 0.0);
    case GJK_STATUS_TOUCHING:
        return fabs(sd_true) > gjk_default_options().touch_tolerance + tol;
    default: /* failures (counted as such): judged by the sign they report */
        return (sd_true > tol && !(r->distance > 0.0)) || (sd_true < -tol && !(r->distance < 0.0));
    }
}

double gjk_eval_tolerance(const gjk_case *c)
{
    return strcmp(c->subset, "scale") == 0 ? GJK_EVAL_TOL_SCALE : GJK_EVAL_TOL;
}

gjk_eval_check gjk_eval_check_result(const gjk_case_set *set, const gjk_case *c,
                                     const gjk_result *r)
{
    gjk_eval_check k;
    memset(&k, 0, sizeof k);
    const double lref = c->lref;
    const bool finite = isfinite(r->distance) && gjk_vec3_is_finite(r->normal) &&
                        gjk_vec3_is_finite(r->point_a) && gjk_vec3_is_finite(r->point_b);
    k.failure = !finite || !status_is_answer(r->status);
    if (!finite) {
        k.err = k.normal = k.consistency = k.plane = k.on_shape = HUGE_VAL;
        k.wrong_verdict = gjk_eval_verdict_wrong(c->sd, lref, r);
        return k;
    }

    /* The status is the verdict. SEPARATED is wrong on a case intersecting by more than
     * 1e-9 lref, OVERLAPPING on one separated by more, TOUCHING on one farther than the
     * touch tolerance (plus 1e-9 lref) from contact either way; a SEPARATED or OVERLAPPING
     * answer whose sign disagrees with its own status is no verdict at all. */
    const double sd = r->distance;
    k.wrong_verdict = gjk_eval_verdict_wrong(c->sd, lref, r);

    k.err = fabs(sd - c->sd) / lref;

    placed a = {&set->shapes[c->shape_a], gjk_quat_normalize(c->pose_a.q), c->pose_a.p};
    placed b = {&set->shapes[c->shape_b], gjk_quat_normalize(c->pose_b.q), c->pose_b.p};
    const gjk_vec3 n = r->normal;
    const double hn_a = support_value(&a, n), hn_b = support_value(&b, gjk_neg(n));

    /* Near contact the normal is only as good as its conditioning allows: a direction taken
     * from a vector of length |sd*| known to ~1e3 eps L (L the pair's size) is off by that
     * over |sd*| (capped at 1e-3 rad), and tilting the normal lowers the separation along
     * it, and moves the supporting planes, by up to the tilt times L. Parallel edges at
     * 1e-10 apart need this; at the case sets' "near" distances (>= 1e-6) it is < 1e-9. */
    const double size = a.s->radius + b.s->radius + gjk_distance_between(a.t, b.t);
    const double tilt = fmin(1e-3, 1e3 * DBL_EPSILON * size / fmax(fabs(c->sd), DBL_MIN));
    k.tilt_allow = tilt * size / lref;

    if (fabs(gjk_length(n) - 1.0) > 1e-9)
        k.normal = HUGE_VAL;
    else
        k.normal = fabs((-hn_a - hn_b) - c->sd) / lref;

    const gjk_vec3 wa = r->point_a, wb = r->point_b;
    k.consistency = gjk_length(gjk_sub(gjk_sub(wb, wa), gjk_scale(n, sd))) / lref;
    double len_gap = fabs(gjk_distance_between(wa, wb) - fabs(sd)) / lref;
    k.consistency = len_gap > k.consistency ? len_gap : k.consistency;

    double pa = hn_a - gjk_dot(wa, n), pb = hn_b + gjk_dot(wb, n);
    k.plane = (pa > pb ? pa : pb) / lref;
    k.plane = k.plane > 0.0 ? k.plane : 0.0;

    gjk_vec3 dirs[DIR_COUNT];
    fixed_directions(dirs);
    double oa = outside(&a, wa, n, dirs), ob = outside(&b, wb, gjk_neg(n), dirs);
    k.on_shape = (oa > ob ? oa : ob) / lref;
    return k;
}

bool gjk_eval_check_ok(const gjk_eval_check *k, double tol)
{
    return !k->failure && !k->wrong_verdict && k->err <= tol && k->normal <= tol + k->tilt_allow &&
           k->consistency <= tol && k->plane <= tol + k->tilt_allow && k->on_shape <= tol;
}

/* ------------------------------------------------------------------ setup */

gjk_eval_config gjk_eval_default_config(void)
{
    gjk_eval_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.time = true;
    cfg.min_time_ns = 50000.0;
    cfg.max_reps = 10000;
    cfg.options = gjk_default_options();
    return cfg;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int gjk_eval_init(gjk_eval *ev, const gjk_case_set *set, char *err, size_t errlen)
{
    memset(ev, 0, sizeof *ev);
    ev->set = set;
    ev->count = set->case_count;
    ev->polytopes =
        calloc((size_t)(set->shape_count > 0 ? set->shape_count : 1), sizeof *ev->polytopes);
    ev->shapes = calloc((size_t)(set->shape_count > 0 ? set->shape_count : 1), sizeof *ev->shapes);
    ev->rows = calloc((size_t)(set->case_count > 0 ? set->case_count : 1), sizeof *ev->rows);
    if (!ev->polytopes || !ev->shapes || !ev->rows) {
        snprintf(err, errlen, "out of memory");
        gjk_eval_free(ev);
        return -1;
    }
    double t0 = now_ns();
    for (int32_t i = 0; i < set->shape_count; ++i) {
        const gjk_case_shape *s = &set->shapes[i];
        gjk_status st = gjk_hull_build(&ev->polytopes[i], s->points, s->count, NULL);
        if (st != GJK_STATUS_SEPARATED) {
            snprintf(err, errlen, "shape %d (%s): gjk_hull_build: %s", (int)s->id, s->cls,
                     gjk_status_name(st));
            gjk_eval_free(ev);
            return -1;
        }
        ev->shapes[i] = gjk_make_polytope(&ev->polytopes[i]);
    }
    ev->hull_ms = (now_ns() - t0) * 1e-6;
    for (int32_t i = 0; i < set->case_count; ++i) {
        const gjk_case *c = &set->cases[i];
        if (c->shape_a < 0 || c->shape_a >= set->shape_count || c->shape_b < 0 ||
            c->shape_b >= set->shape_count) {
            snprintf(err, errlen, "case %d names a shape that does not exist", (int)c->id);
            gjk_eval_free(ev);
            return -1;
        }
    }
    return 0;
}

void gjk_eval_free(gjk_eval *ev)
{
    if (!ev)
        return;
    if (ev->polytopes && ev->set) {
        for (int32_t i = 0; i < ev->set->shape_count; ++i)
            gjk_polytope_destroy(&ev->polytopes[i]);
    }
    free(ev->polytopes);
    free(ev->shapes);
    free(ev->rows);
    memset(ev, 0, sizeof *ev);
}

/* ------------------------------------------------------------------ running */

static gjk_result query(const gjk_eval *ev, const gjk_case *c, gjk_cache *cache,
                        const gjk_options *opt)
{
    return gjk_signed_distance(&ev->shapes[c->shape_a], c->pose_a, &ev->shapes[c->shape_b],
                               c->pose_b, cache, opt);
}

/* Mean ns of the query repeated in a tight loop, every repetition starting from *start so
 * that each does the same work. The loop runs in TIME_BATCHES batches and the fastest
 * batch's mean is kept: on a shared machine noise (preemption, interrupts) only ever adds
 * time, and one descheduling would otherwise swamp a case timed over a few microseconds. */
enum { TIME_BATCHES = 5 };

static double time_query(const gjk_eval *ev, const gjk_case *c, const gjk_cache *start,
                         const gjk_eval_config *cfg)
{
    volatile double sink = 0.0;
    int32_t reps = cfg->reps;
    if (reps <= 0) {
        /* Calibrate on the fastest of a few single runs (the first also warms the caches). */
        double once = HUGE_VAL;
        for (int k = 0; k < 3; ++k) {
            gjk_cache cache = *start;
            double t0 = now_ns();
            sink += query(ev, c, &cache, &cfg->options).distance;
            double t = now_ns() - t0;
            once = t < once ? t : once;
        }
        double want = cfg->min_time_ns / (once > 1.0 ? once : 1.0);
        reps = want > cfg->max_reps ? cfg->max_reps : (int32_t)want;
        reps = reps < TIME_BATCHES ? TIME_BATCHES : reps;
    }
    int32_t per = reps / TIME_BATCHES > 0 ? reps / TIME_BATCHES : 1;
    double best = HUGE_VAL;
    for (int b = 0; b < TIME_BATCHES; ++b) {
        double t0 = now_ns();
        for (int32_t i = 0; i < per; ++i) {
            gjk_cache cache = *start;
            sink += query(ev, c, &cache, &cfg->options).distance;
        }
        double t = (now_ns() - t0) / per;
        best = t < best ? t : best;
    }
    (void)sink;
    return best;
}

/* One warm cache per (A, B) pair of the traj subset. */
typedef struct warm_slot {
    int32_t a, b;
    gjk_cache cache;
} warm_slot;

static gjk_cache *warm_cache(warm_slot **slots, int32_t *n, int32_t a, int32_t b)
{
    for (int32_t i = 0; i < *n; ++i) {
        if ((*slots)[i].a == a && (*slots)[i].b == b)
            return &(*slots)[i].cache;
    }
    warm_slot *grown = realloc(*slots, (size_t)(*n + 1) * sizeof **slots);
    if (!grown)
        return NULL;
    *slots = grown;
    memset(&grown[*n], 0, sizeof grown[*n]);
    grown[*n].a = a;
    grown[*n].b = b;
    return &grown[(*n)++].cache;
}

void gjk_eval_run(gjk_eval *ev, const gjk_eval_config *cfg)
{
    const gjk_case_set *set = ev->set;
    warm_slot *slots = NULL;
    int32_t nslots = 0;
    const bool warm = cfg->warm || cfg->time;
    for (int32_t i = 0; i < set->case_count; ++i) {
        const gjk_case *c = &set->cases[i];
        gjk_eval_row *row = &ev->rows[i];
        memset(row, 0, sizeof *row);
        row->tol = gjk_eval_tolerance(c);

        gjk_cache zero;
        memset(&zero, 0, sizeof zero);
        gjk_cache cache = zero;
        row->cold = query(ev, c, &cache, &cfg->options);
        row->cold_check = gjk_eval_check_result(set, c, &row->cold);
        row->cold_ns = cfg->time ? time_query(ev, c, &zero, cfg) : (double)NAN;
        row->warm_ns = (double)NAN;

        if (warm && strcmp(c->subset, "traj") == 0) {
            gjk_cache *slot = warm_cache(&slots, &nslots, c->shape_a, c->shape_b);
            if (!slot)
                continue;
            gjk_cache start = *slot;
            row->has_warm = true;
            row->warm = query(ev, c, slot, &cfg->options);
            row->warm_check = gjk_eval_check_result(set, c, &row->warm);
            row->warm_ns = cfg->time ? time_query(ev, c, &start, cfg) : (double)NAN;
        }
    }
    free(slots);
}

/* ------------------------------------------------------------------ output */

int gjk_eval_write_tsv(const gjk_eval *ev, FILE *out, bool warm)
{
    fprintf(out, "id\tsubset\tstate\tsd\tnx\tny\tnz\twax\tway\twaz\twbx\twby\twbz\tstatus\t"
                 "iterations\tns\n");
    for (int32_t i = 0; i < ev->count; ++i) {
        const gjk_case *c = &ev->set->cases[i];
        const gjk_eval_row *row = &ev->rows[i];
        const bool use_warm = warm && row->has_warm;
        const gjk_result *r = use_warm ? &row->warm : &row->cold;
        double ns = use_warm ? row->warm_ns : row->cold_ns;
        fprintf(out,
                "%d\t%s\t%s\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t"
                "%.17g\t%s\t%d\t%.1f\n",
                (int)c->id, c->subset, c->state, r->distance, r->normal.x, r->normal.y, r->normal.z,
                r->point_a.x, r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z,
                gjk_status_name(r->status), (int)r->iterations, ns);
    }
    return ferror(out) ? -1 : 0;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Median of v[0..n) (sorted in place); NaN for n == 0. */
static double median(double *v, size_t n)
{
    if (n == 0)
        return (double)NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double max_of(const double *v, size_t n)
{
    double m = n ? v[0] : (double)NAN;
    for (size_t i = 1; i < n; ++i)
        m = v[i] > m ? v[i] : m;
    return m;
}

enum { MAX_SUBSETS = 8 };
static const char *const STATES[] = {"separated", "touching", "intersecting"};

void gjk_eval_print_summary(const gjk_eval *ev, FILE *out)
{
    const gjk_case_set *set = ev->set;
    const size_t n = (size_t)ev->count;
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf)
        return;

    const char *subsets[MAX_SUBSETS];
    int nsub = 0;
    for (int32_t i = 0; i < ev->count; ++i) {
        const char *s = set->cases[i].subset;
        int k = 0;
        while (k < nsub && strcmp(subsets[k], s) != 0)
            ++k;
        if (k == nsub && nsub < MAX_SUBSETS)
            subsets[nsub++] = s;
    }

    fprintf(out, "%d cases, %d shapes (hulls built in %.1f ms)\n", (int)ev->count,
            (int)set->shape_count, ev->hull_ms);
    fprintf(out, "\naccuracy |sd - sd*| / lref (cold)\n");
    fprintf(out, "  %-6s %-13s %6s %11s %11s %8s %5s\n", "subset", "state", "n", "median", "max",
            "tol", "over");
    for (int k = 0; k < nsub; ++k) {
        for (int s = 0; s < 3; ++s) {
            size_t m = 0, over = 0;
            double tol = 0.0;
            for (int32_t i = 0; i < ev->count; ++i) {
                const gjk_case *c = &set->cases[i];
                if (strcmp(c->subset, subsets[k]) != 0 || strcmp(c->state, STATES[s]) != 0)
                    continue;
                const gjk_eval_row *row = &ev->rows[i];
                buf[m++] = row->cold_check.err;
                tol = row->tol;
                over += !(row->cold_check.err <= row->tol);
            }
            if (m == 0)
                continue;
            double mx = max_of(buf, m);
            fprintf(out, "  %-6s %-13s %6zu %11.3g %11.3g %8.0e %5zu\n", subsets[k], STATES[s], m,
                    median(buf, m), mx, tol, over);
        }
    }

    size_t wrong = 0, judged = 0, fail = 0, nonfinite = 0;
    size_t by_status[GJK_STATUS_COUNT + 1];
    memset(by_status, 0, sizeof by_status);
    size_t w_cons = 0, w_plane = 0, w_shape = 0, w_normal = 0;
    double m_cons = 0.0, m_plane = 0.0, m_shape = 0.0, m_normal = 0.0;
    for (int32_t i = 0; i < ev->count; ++i) {
        const gjk_case *c = &set->cases[i];
        const gjk_eval_row *row = &ev->rows[i];
        const gjk_eval_check *k = &row->cold_check;
        if (strcmp(c->state, "touching") != 0 && fabs(c->sd) > GJK_EVAL_TOL * c->lref) {
            ++judged;
            wrong += k->wrong_verdict;
        }
        if (k->failure) {
            ++fail;
            if (!isfinite(row->cold.distance) || !gjk_vec3_is_finite(row->cold.normal) ||
                !gjk_vec3_is_finite(row->cold.point_a) || !gjk_vec3_is_finite(row->cold.point_b))
                ++nonfinite;
            int st = (int)row->cold.status;
            ++by_status[st >= 0 && st < GJK_STATUS_COUNT ? st : GJK_STATUS_COUNT];
        }
        if (k->failure)
            continue;
        w_cons += !(k->consistency <= row->tol);
        w_plane += !(k->plane <= row->tol + k->tilt_allow);
        w_shape += !(k->on_shape <= row->tol);
        w_normal += !(k->normal <= row->tol + k->tilt_allow);
        m_cons = k->consistency > m_cons ? k->consistency : m_cons;
        m_plane = k->plane > m_plane ? k->plane : m_plane;
        m_shape = k->on_shape > m_shape ? k->on_shape : m_shape;
        m_normal = k->normal > m_normal ? k->normal : m_normal;
    }
    fprintf(out, "\nwrong verdicts: %zu (of %zu cases with |sd*| > 1e-9 lref, touching excluded)\n",
            wrong, judged);
    fprintf(out, "failures: %zu (non-finite %zu", fail, nonfinite);
    for (int st = 0; st <= GJK_STATUS_COUNT; ++st) {
        if (by_status[st])
            fprintf(out, ", %s %zu",
                    st < GJK_STATUS_COUNT ? gjk_status_name((gjk_status)st) : "UNKNOWN",
                    by_status[st]);
    }
    fprintf(out, ")\n");
    fprintf(out, "witnesses and normal over the subset tolerance (max / lref):\n");
    fprintf(out, "  |wb - wa - sd n|          %6zu   max %.3g\n", w_cons, m_cons);
    fprintf(out, "  off the support plane     %6zu   max %.3g\n", w_plane, m_plane);
    fprintf(out, "  outside the shape         %6zu   max %.3g\n", w_shape, m_shape);
    fprintf(out, "  |sep(n) - sd*| (normal)   %6zu   max %.3g\n", w_normal, m_normal);

    const bool timed = n > 0 && isfinite(ev->rows[0].cold_ns);
    if (timed) {
        fprintf(out, "\nmedian ns per query, cold (all subsets but traj)\n");
        fprintf(out, "  %-13s %9s %9s %9s\n", "", "S", "M", "L");
        for (int s = 0; s < 3; ++s) {
            const char *label = s == 0 ? "distance" : s == 1 ? "touching" : "penetration";
            fprintf(out, "  %-13s", label);
            for (int bk = 0; bk < 3; ++bk) {
                size_t m = 0;
                for (int32_t i = 0; i < ev->count; ++i) {
                    const gjk_case *c = &set->cases[i];
                    if (strcmp(c->subset, "traj") == 0 || strcmp(c->state, STATES[s]) != 0 ||
                        gjk_case_bucket(set, c) != "SML"[bk])
                        continue;
                    buf[m++] = ev->rows[i].cold_ns;
                }
                if (m)
                    fprintf(out, " %9.0f", median(buf, m));
                else
                    fprintf(out, " %9s", "-");
            }
            fprintf(out, "\n");
        }
    }

    size_t m = 0;
    double iters_cold = 0.0, iters_warm = 0.0;
    size_t warm_diff = 0, warm_bad = 0;
    double warm_max = 0.0;
    for (int32_t i = 0; i < ev->count; ++i) {
        const gjk_eval_row *row = &ev->rows[i];
        if (!row->has_warm)
            continue;
        ++m;
        iters_cold += row->cold.iterations;
        iters_warm += row->warm.iterations;
        double d = fabs(row->warm.distance - row->cold.distance) / set->cases[i].lref;
        warm_max = d > warm_max ? d : warm_max;
        warm_diff += !(d <= row->tol);
        warm_bad += !gjk_eval_check_ok(&row->warm_check, row->tol);
    }
    if (m) {
        fprintf(out, "\ntrajectory (%zu steps): mean GJK iterations cold %.2f, warm %.2f\n", m,
                iters_cold / (double)m, iters_warm / (double)m);
        fprintf(out,
                "  warm vs cold: max |sd_warm - sd_cold| / lref %.3g (%zu over tol); "
                "warm answers failing a check: %zu\n",
                warm_max, warm_diff, warm_bad);
        if (timed) {
            size_t k = 0;
            for (int32_t i = 0; i < ev->count; ++i)
                if (ev->rows[i].has_warm)
                    buf[k++] = ev->rows[i].cold_ns;
            double cold = median(buf, k);
            k = 0;
            for (int32_t i = 0; i < ev->count; ++i)
                if (ev->rows[i].has_warm)
                    buf[k++] = ev->rows[i].warm_ns;
            double warmed = median(buf, k);
            fprintf(out, "  median ns: cold %.0f, warm %.0f, cold/warm %.2f\n", cold, warmed,
                    cold / warmed);
        }
    }
    free(buf);
}
