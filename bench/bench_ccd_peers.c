/* bench_ccd_peers.c — continuous checks of single pairs: gjkd's gjk_ccd_check_poses against
 * FCL 0.7's continuousCollide (ccd_fcl.h) on the same segments, both judged by dense sampling.
 *
 * Families (seeded; primitive shapes without margin, both bodies moving by lerp + slerp, the
 * motion FCL calls CCDM_LINEAR):
 *   thin      a ball, box or capsule crossing a thin plate (0.002-0.01 m) between two clear
 *             end poses, translating, sometimes turning
 *   rotating  random boxes, capsules, cylinders and cones turning and translating near each
 *             other (test_continuous.c's rotating family)
 * Truth: gjk_distance at SAMPLES + 1 times (1e-4 of the segment): the first sampled contact.
 * Per engine: time per segment (fastest of --repeats passes over all cases), failures (the
 * engine's own error or exception), missed contacts (no contact reported where a sample is in
 * contact), late contacts (a time of contact after the first sampled contact, beyond the
 * sample spacing: the first contact was missed), and contacts no sample shows (a graze between
 * samples, or a false positive). gjkd also reports undecided pairs (counted, never clear).
 * "gjkd" refines a clear segment's clearance bound to within a factor 2 (the default);
 * "gjkd certify" only certifies it (gjk_ccd_options.certify_only), as FCL answers. The program
 * fails if either gjkd row misses a contact.
 *
 * Usage: bench_ccd_peers [--cases N] [--repeats N] [--seed S] [--json] [--help]
 * Build: cmake -DGJK_BUILD_BENCH=ON ... && cmake --build build --target bench_ccd_peers */
#define _POSIX_C_SOURCE 200809L

#include "ccd_fcl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLES 10000
#define PI 3.14159265358979323846

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;

static double rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717u) >> 11) * 0x1.0p-53;
}

static double rnd_range(double lo, double hi)
{
    return lo + (hi - lo) * rnd();
}

static gjk_vec3 rnd_unit(void)
{
    for (;;) {
        gjk_vec3 v = gjk_v3(rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1));
        double l = gjk_length(v);
        if (l > 0.1 && l <= 1.0)
            return gjk_scale(v, 1.0 / l);
    }
}

static gjk_quat rnd_quat(void)
{
    return gjk_quat_from_axis_angle(rnd_unit(), rnd_range(-PI, PI));
}

typedef struct pcase {
    gjk_shape a, b;
    gjk_transform a0, a1, b0, b1;
    int family;
    int first;  /* first sampled contact (index), -1 if none */
    double min; /* least sampled distance */
} pcase;

static gjk_shape random_shape(void)
{
    switch ((int)(rnd() * 4)) {
    case 0:
        return gjk_make_box(
            gjk_v3(rnd_range(0.005, 0.4), rnd_range(0.005, 0.4), rnd_range(0.01, 0.4)));
    case 1:
        return gjk_make_capsule(rnd_range(0.01, 0.2), rnd_range(0.05, 0.5));
    case 2:
        return gjk_make_cylinder(rnd_range(0.02, 0.3), rnd_range(0.005, 0.3));
    default:
        return gjk_make_cone(rnd_range(0.05, 0.3), rnd_range(0.05, 0.3));
    }
}

static void make_case(pcase *c, int family)
{
    memset(c, 0, sizeof *c);
    c->family = family;
    if (family == 0) {
        double r = rnd_range(0.01, 0.08);
        int k = (int)(rnd() * 3);
        c->a = k == 0   ? gjk_make_sphere(r)
               : k == 1 ? gjk_make_box(gjk_v3(r, r * 0.7, r * 1.3))
                        : gjk_make_capsule(r * 0.5, r);
        c->b = gjk_make_box(gjk_v3(rnd_range(0.001, 0.005), rnd_range(0.3, 1), rnd_range(0.3, 1)));
        c->b0 = c->b1 = gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 0));
        gjk_vec3 p0 = gjk_v3(-rnd_range(0.2, 1), rnd_range(-0.5, 0.5), rnd_range(-0.5, 0.5));
        gjk_vec3 p1 = gjk_v3(rnd_range(0.2, 1), rnd_range(-0.5, 0.5), rnd_range(-0.5, 0.5));
        gjk_quat q0 = rnd_quat();
        gjk_quat q1 = rnd() < 0.5 ? q0 : gjk_quat_mul(q0, gjk_quat_from_axis_angle(rnd_unit(), 2));
        c->a0 = gjk_transform_make(q0, p0);
        c->a1 = gjk_transform_make(q1, p1);
    } else {
        c->a = random_shape();
        c->b = random_shape();
        c->a0 = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.3, 1.2)));
        c->a1 = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.3, 1.2)));
        c->b0 = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0, 0.3)));
        c->b1 = rnd() < 0.5
                    ? c->b0
                    : gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0, 0.3)));
    }
}

static double sampled_distance(const pcase *c, double t)
{
    gjk_result r = gjk_distance(&c->a, gjk_pose_interpolate(c->a0, c->a1, t), &c->b,
                                gjk_pose_interpolate(c->b0, c->b1, t), NULL, NULL);
    return r.status == GJK_STATUS_OVERLAPPING ? -1.0 : r.distance;
}

static void sample(pcase *c)
{
    c->first = -1;
    c->min = HUGE_VAL;
    for (int i = 0; i <= SAMPLES; ++i) {
        double d = sampled_distance(c, (double)i / SAMPLES);
        c->min = fmin(c->min, d);
        if (d <= 0.0 && c->first < 0)
            c->first = i;
    }
}

enum {
    E_GJKD,
    E_GJKD_CERTIFY,
    E_FCL_NAIVE10,
    E_FCL_NAIVE1000,
    E_FCL_CA_LIBCCD,
    E_FCL_CA_INDEP,
    ENGINES
};
static const char *const engine_names[ENGINES] = {
    "gjkd", "gjkd certify", "fcl naive (10)", "fcl naive (1000)", "fcl CA libccd", "fcl CA indep"};

typedef struct answer {
    bool ok, collide, undecided;
    double t;
} answer;

static answer run(int e, const pcase *c)
{
    answer a = {false, false, false, 1.0};
    if (e == E_GJKD || e == E_GJKD_CERTIFY) {
        gjk_ccd_options o;
        memset(&o, 0, sizeof o);
        o.certify_only = e == E_GJKD_CERTIFY; /* no refinement of clear segments' bounds */
        gjk_ccd_result r =
            gjk_ccd_check_poses(&c->a, c->a0, c->a1, &c->b, c->b0, c->b1, 0.0, NULL, &o);
        a.ok = r.status == GJK_STATUS_SEPARATED;
        a.collide = r.verdict == GJK_CCD_CONTACT;
        a.undecided = r.verdict == GJK_CCD_UNDECIDED;
        a.t = a.collide ? r.t : 1.0;
        return a;
    }
    ccd_fcl_solver s = e == E_FCL_CA_LIBCCD  ? CCD_FCL_CA_LIBCCD
                       : e == E_FCL_CA_INDEP ? CCD_FCL_CA_INDEP
                                             : CCD_FCL_NAIVE;
    ccd_fcl_answer f =
        ccd_fcl_check(&c->a, c->a0, c->a1, &c->b, c->b0, c->b1, s, e == E_FCL_NAIVE1000 ? 1000 : 0);
    a.ok = f.ok;
    a.collide = f.collide;
    a.t = f.toc;
    return a;
}

typedef struct stats {
    int cases, failed, missed, late, unsampled, undecided, contacts;
    double seconds;
    double worst_late; /* largest t - first sampled contact */
} stats;

int main(int argc, char **argv)
{
    int n_cases = 400, repeats = 3;
    bool json = false;
    uint64_t seed = 1;
    static const char usage[] =
        "usage: bench_ccd_peers [--cases N] [--repeats N] [--seed S] [--json]\n"
        "  --cases N    segments per family (default 400)\n"
        "  --repeats N  timed passes over the cases, fastest taken (default 3)\n"
        "  --seed S     seed of the cases (default 1)\n"
        "  --json       one JSON object instead of the table\n";
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = true;
            continue;
        }
        if (strcmp(a, "--cases") != 0 && strcmp(a, "--repeats") != 0 && strcmp(a, "--seed") != 0) {
            fprintf(stderr, "bench_ccd_peers: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_ccd_peers: %s needs a value (see --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        char *end = NULL;
        unsigned long long n = strtoull(v, &end, 10);
        if (end == v || *end != '\0' || n > 1000000) {
            fprintf(stderr, "bench_ccd_peers: %s needs a number up to 1000000, not '%s'\n", a, v);
            return 2;
        }
        if (strcmp(a, "--cases") == 0)
            n_cases = (int)n;
        else if (strcmp(a, "--repeats") == 0)
            repeats = (int)n;
        else
            seed = n;
    }
    if (n_cases < 1 || repeats < 1) {
        fprintf(stderr, "bench_ccd_peers: --cases and --repeats are >= 1\n");
        return 2;
    }
    rng = seed * 0x9E3779B97F4A7C15u + 1u;
    int total = 2 * n_cases;
    pcase *cases = calloc((size_t)total, sizeof *cases);
    answer *ans = calloc((size_t)total, sizeof *ans);
    if (!cases || !ans)
        return 1;
    for (int i = 0; i < total; ++i) {
        make_case(&cases[i], i < n_cases ? 0 : 1);
        sample(&cases[i]);
    }
    stats st[2][ENGINES];
    memset(st, 0, sizeof st);
    for (int e = 0; e < ENGINES; ++e) {
        for (int f = 0; f < 2; ++f) {
            double best = HUGE_VAL;
            for (int r = 0; r < repeats; ++r) {
                double t0 = now();
                for (int i = f * n_cases; i < (f + 1) * n_cases; ++i)
                    ans[i] = run(e, &cases[i]);
                best = fmin(best, now() - t0);
            }
            stats *s = &st[f][e];
            s->seconds = best;
            for (int i = f * n_cases; i < (f + 1) * n_cases; ++i) {
                const pcase *c = &cases[i];
                const answer *a = &ans[i];
                ++s->cases;
                s->contacts += c->first >= 0;
                if (!a->ok) {
                    ++s->failed;
                    continue;
                }
                s->undecided += a->undecided;
                if (c->first >= 0 && !a->collide && !a->undecided)
                    ++s->missed;
                if (c->first >= 0 && a->collide) {
                    double late = a->t - (double)c->first / SAMPLES;
                    s->worst_late = fmax(s->worst_late, late);
                    s->late += late > 1.0 / SAMPLES;
                }
                if (c->first < 0 && a->collide)
                    ++s->unsampled;
            }
        }
    }
    static const char *const families[2] = {"thin", "rotating"};
    if (json) {
        printf("{\"cases_per_family\": %d, \"samples\": %d, \"rows\": [", n_cases, SAMPLES);
        for (int f = 0; f < 2; ++f)
            for (int e = 0; e < ENGINES; ++e) {
                const stats *s = &st[f][e];
                printf("%s{\"family\": \"%s\", \"engine\": \"%s\", \"us_per_segment\": %.3f, "
                       "\"sampled_contacts\": %d, \"failed\": %d, \"missed\": %d, \"late\": %d, "
                       "\"unsampled_contacts\": %d, \"undecided\": %d, \"worst_late\": %.3g}",
                       f || e ? ", " : "", families[f], engine_names[e],
                       1e6 * s->seconds / s->cases, s->contacts, s->failed, s->missed, s->late,
                       s->unsampled, s->undecided, s->worst_late);
            }
        printf("]}\n");
    } else {
        printf("continuous pair checks, %d segments per family, truth: sampling at 1e-4\n\n",
               n_cases);
        printf("%-9s %-17s %-10s %-9s %-7s %-7s %-6s %-10s %-10s %s\n", "family", "engine",
               "us/seg", "contacts", "failed", "missed", "late", "unsampled", "undecided",
               "worst late t");
        for (int f = 0; f < 2; ++f)
            for (int e = 0; e < ENGINES; ++e) {
                const stats *s = &st[f][e];
                printf("%-9s %-17s %-10.2f %-9d %-7d %-7d %-6d %-10d %-10d %.3g\n", families[f],
                       engine_names[e], 1e6 * s->seconds / s->cases, s->contacts, s->failed,
                       s->missed, s->late, s->unsampled, s->undecided, s->worst_late);
            }
    }
    int rc = 0;
    for (int f = 0; f < 2; ++f)
        rc += st[f][E_GJKD].missed + st[f][E_GJKD].late + st[f][E_GJKD_CERTIFY].missed +
              st[f][E_GJKD_CERTIFY].late;
    free(cases);
    free(ans);
    return rc > 0 ? 1 : 0;
}
