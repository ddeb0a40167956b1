/* test_oracle_random.c — thousands of random convex polytope pairs against the brute-force
 * oracle (tests/oracle.c), with fixed seeds.
 *
 * Shapes: 4..24 points on a sphere, on an ellipsoid, in a cube (interior points), cube corners
 * plus interior points (coplanar faces), flat disks; some with duplicated points; sizes 1,
 * 1e-3 and 1e3 (equal or mixed); some with margins. Half the engine polytopes come from
 * gjk_hull_build (adjacency, and then also queried with hill climbing forced on), half from
 * gjk_polytope_create over the raw points.
 *
 * Placement: B is put somewhere near A, the oracle gives (sd, n), and B is moved along n by
 * (target - sd): exact for any separated target (the supporting planes along n stay), and
 * it gives a touching or penetrating configuration for targets <= 0; the oracle then
 * computes the exact answer of the final configuration.
 *
 * Tolerances (issue 2), relative to lref = the smaller circumradius: 1e-9, or 1e-6 when the
 * two sizes differ by 1e6. Checked: status and verdict (|sd*| > 1e-9 lref), signed
 * distance, the normal (its separation -h_A(n) - h_B(-n) equals sd*), the witness invariant
 * wb - wa = sd n, each witness inside its shape (oracle distance) and on its supporting plane
 * along n. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "oracle.h"

enum { MAX_POINTS = 24, LIST_MAX = 20 };

/* ------------------------------------------------------------------ random numbers */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next_u64(rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double uniform(rng *r)
{
    return (double)(next_u64(r) >> 11) * 0x1.0p-53;
}
static double range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * uniform(r);
}
static double log_uniform(rng *r, double lo, double hi)
{
    return exp(range(r, log(lo), log(hi)));
}
static int irange(rng *r, int lo, int hi)
{
    return lo + (int)(next_u64(r) % (uint64_t)(hi - lo + 1));
}

static gjk_vec3 unit_vector(rng *r)
{
    double z = range(r, -1, 1), t = range(r, 0, 2 * 3.14159265358979323846);
    double s = sqrt(1 - z * z);
    return gjk_v3(s * cos(t), s * sin(t), z);
}

static gjk_quat random_rotation(rng *r) /* Shoemake */
{
    double u1 = uniform(r), u2 = range(r, 0, 2 * 3.14159265358979323846),
           u3 = range(r, 0, 2 * 3.14159265358979323846);
    double a = sqrt(1 - u1), b = sqrt(u1);
    return gjk_quat_make(a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3));
}

/* ------------------------------------------------------------------ shapes */

typedef enum { CLOUD_SPHERE, CLOUD_ELLIPSOID, CLOUD_CUBE, CLOUD_CORNERS, CLOUD_FLAT } cloud_kind;

/* Fills p with n points of the given kind at the given size; returns the circumradius. */
static double make_cloud(rng *r, cloud_kind kind, int n, double size, gjk_vec3 *p)
{
    for (int i = 0; i < n; ++i) {
        gjk_vec3 u = unit_vector(r);
        switch (kind) {
        case CLOUD_SPHERE:
            p[i] = u;
            break;
        case CLOUD_ELLIPSOID:
            p[i] = gjk_v3(u.x, 0.7 * u.y, 0.45 * u.z);
            break;
        case CLOUD_CUBE:
            p[i] = gjk_v3(range(r, -1, 1), range(r, -1, 1), range(r, -1, 1));
            break;
        case CLOUD_CORNERS:
            p[i] = i < 8
                       ? gjk_v3(i & 1 ? 0.6 : -0.6, i & 2 ? 0.5 : -0.5, i & 4 ? 0.4 : -0.4)
                       : gjk_scale(gjk_v3(range(r, -1, 1), range(r, -1, 1), range(r, -1, 1)), 0.3);
            break;
        case CLOUD_FLAT: {
            double t = range(r, 0, 2 * 3.14159265358979323846), rad = sqrt(range(r, 0.2, 1));
            p[i] = gjk_v3(rad * cos(t), rad * sin(t), 0);
            break;
        }
        }
    }
    /* Duplicates now and then. */
    if (n >= 6 && uniform(r) < 0.2) {
        p[n - 1] = p[0];
        p[n - 2] = p[1];
    }
    double rad = 0;
    for (int i = 0; i < n; ++i) {
        p[i] = gjk_scale(p[i], size);
        double l = gjk_length(p[i]);
        rad = l > rad ? l : rad;
    }
    return rad;
}

typedef struct body {
    gjk_vec3 pts[MAX_POINTS];
    int n;
    double radius, margin;
    gjk_polytope poly;
    gjk_shape shape;
    bool hull; /* built by gjk_hull_build (with adjacency) */
} body;

static void body_make(rng *r, body *b, double size, bool allow_flat)
{
    cloud_kind kind = (cloud_kind)irange(r, 0, allow_flat ? 4 : 3);
    b->n = irange(r, kind == CLOUD_CORNERS ? 8 : 4, MAX_POINTS);
    b->radius = make_cloud(r, kind, b->n, size, b->pts);
    b->margin = uniform(r) < 0.2 ? range(r, 0, 0.2) * b->radius : 0.0;
    b->hull = uniform(r) < 0.5;
    gjk_status st = b->hull ? gjk_hull_build(&b->poly, b->pts, b->n, NULL)
                            : gjk_polytope_create(&b->poly, b->pts, b->n, NULL, NULL);
    assert_int_equal(st, GJK_STATUS_SEPARATED);
    b->shape = gjk_make_polytope(&b->poly);
    b->shape.margin = b->margin;
}

/* ------------------------------------------------------------------ one trial */

typedef enum { WANT_SEPARATED, WANT_TOUCHING, WANT_INTERSECTING } want_state;

typedef struct stats {
    int trials, queries, bad;
    double max_err[3];
} stats;

static oracle_answer oracle_of(const body *a, gjk_transform pa, const body *b, gjk_transform pb)
{
    oracle_shape oa, ob;
    assert_int_equal(oracle_shape_init(&oa, a->pts, a->n, pa, a->margin), 0);
    assert_int_equal(oracle_shape_init(&ob, b->pts, b->n, pb, b->margin), 0);
    oracle_answer o = oracle_query(&oa, &ob);
    oracle_shape_free(&oa);
    oracle_shape_free(&ob);
    return o;
}

/* Size of a pair: both circumradii (margins included) and the distance between the origins. */
static double pair_size(const body *a, gjk_transform pa, const body *b, gjk_transform pb)
{
    return a->radius + a->margin + b->radius + b->margin + gjk_distance_between(pa.p, pb.p);
}

/* Checks one engine answer; returns a description of the first problem or NULL. */
static const char *check_answer(const body *a, gjk_transform pa, const body *b, gjk_transform pb,
                                const oracle_answer *o, const gjk_result *r, double lref,
                                double tol, double *err, double *value)
{
    *value = 0;
    const double t = tol * lref, sd = (double)o->sd;
    *err = fabs(r->distance - sd) / lref;
    if (!isfinite(r->distance) || !gjk_vec3_is_finite(r->normal) ||
        !gjk_vec3_is_finite(r->point_a) || !gjk_vec3_is_finite(r->point_b))
        return "non-finite output";
    if (r->status != GJK_STATUS_SEPARATED && r->status != GJK_STATUS_TOUCHING &&
        r->status != GJK_STATUS_OVERLAPPING)
        return "failure status";
    /* The status is the verdict (the same rule as gjk_eval_verdict_wrong). */
    const double vt = 1e-9 * lref;
    if ((r->status == GJK_STATUS_SEPARATED && (sd < -vt || !(r->distance > 0))) ||
        (r->status == GJK_STATUS_OVERLAPPING && (sd > vt || !(r->distance < 0))) ||
        (r->status == GJK_STATUS_TOUCHING && fabs(sd) > 1e-9 + vt))
        return "wrong verdict";
    if (!(fabs(r->distance - sd) <= t))
        return "signed distance";
    if (!(fabs(gjk_length(r->normal) - 1) <= 1e-9))
        return "normal not unit";
    oracle_shape oa, ob;
    assert_int_equal(oracle_shape_init(&oa, a->pts, a->n, pa, a->margin), 0);
    assert_int_equal(oracle_shape_init(&ob, b->pts, b->n, pb, b->margin), 0);
    oracle_v3 n = oracle_v3_from(r->normal), mn = {-n.x, -n.y, -n.z};
    long double ha = oracle_support(&oa, n), hb = oracle_support(&ob, mn);
    oracle_v3 wa = oracle_v3_from(r->point_a), wb = oracle_v3_from(r->point_b);
    long double pa_off = ha - (wa.x * n.x + wa.y * n.y + wa.z * n.z);
    long double pb_off = hb + (wb.x * n.x + wb.y * n.y + wb.z * n.z);
    double da = (double)oracle_point_distance(&oa, wa), db = (double)oracle_point_distance(&ob, wb);
    oracle_shape_free(&oa);
    oracle_shape_free(&ob);
    /* The normal must certify the distance: its separation -h_A(n) - h_B(-n) (never more
     * than sd*) must fall short by no more than the distance tolerance, plus what the
     * conditioning allows: a direction taken from a vector of length |sd*| known to
     * ~1e3 eps L (L the pair's size) is off by that over |sd*| (capped at 1e-3 rad), and a
     * tilt of the normal lowers the separation by up to the tilt times L. */
    const double size = pair_size(a, pa, b, pb);
    const double tilt = fmin(1e-3, 1e3 * DBL_EPSILON * size / fmax(fabs(sd), DBL_MIN));
    *value = fabs((double)(-ha - hb) - sd) / (t + tilt * size) * tol;
    if (!(*value <= tol))
        return "normal: its separation differs from sd* (value: error / allowance * tol)";
    gjk_vec3 gap = gjk_sub(gjk_sub(r->point_b, r->point_a), gjk_scale(r->normal, r->distance));
    *value = gjk_length(gap) / lref;
    if (!(*value <= tol))
        return "witnesses: wb - wa != sd n (value / lref)";
    *value = fmax(da, db) / lref;
    if (!(*value <= tol))
        return "witness outside its shape (value / lref)";
    /* The same tilt moves the supporting planes along n. */
    *value = fmax((double)pa_off, (double)pb_off) / (t + tilt * size) * tol;
    if (!(*value <= tol))
        return "witness off its supporting plane along n (value: error / allowance * tol)";
    return NULL;
}

static void run_trial(rng *r, int trial, want_state want, stats *st)
{
    /* Sizes: mostly 1, then equal tiny, equal huge, and tiny against huge. */
    double sa = 1, sb = 1;
    int sc = irange(r, 0, 9);
    if (sc == 7)
        sa = sb = 1e-3;
    else if (sc == 8)
        sa = sb = 1e3;
    else if (sc == 9)
        sa = 1e-3, sb = 1e3;
    if (sc == 9 && uniform(r) < 0.5)
        sa = 1e3, sb = 1e-3;
    const double tol = sa != sb ? 1e-6 : 1e-9;

    body a, b;
    const bool a_flat = uniform(r) < 0.5;
    body_make(r, &a, sa, a_flat);
    body_make(r, &b, sb, !a_flat);
    const double lref =
        (a.radius + a.margin) < (b.radius + b.margin) ? a.radius + a.margin : b.radius + b.margin;

    gjk_transform pa = gjk_transform_make(
        random_rotation(r),
        gjk_scale(gjk_v3(range(r, -2, 2), range(r, -2, 2), range(r, -2, 2)), sa));
    gjk_vec3 dir = unit_vector(r);
    double reach = (a.radius + b.radius) * range(r, 0.3, 1.2);
    gjk_transform pb = gjk_transform_make(random_rotation(r), gjk_madd(pa.p, reach, dir));
    oracle_answer o = oracle_of(&a, pa, &b, pb);

    double target;
    if (want == WANT_SEPARATED)
        target = lref * log_uniform(r, 1e-6, 1.0);
    else if (want == WANT_INTERSECTING)
        target = -lref * log_uniform(r, 1e-6, 0.5);
    else {
        const double touch[] = {0.0, 1e-12, -1e-12, 1e-10, -1e-10, 5e-10};
        target = lref * touch[irange(r, 0, 5)];
    }
    pb.p = gjk_madd(pb.p, target - (double)o.sd, oracle_v3_to(o.normal));
    o = oracle_of(&a, pa, &b, pb);

    ++st->trials;
    for (int variant = 0; variant < (a.hull || b.hull ? 2 : 1); ++variant) {
        gjk_options opt = gjk_default_options();
        if (variant == 1)
            opt.hill_climb_min_vertices = INT32_MAX; /* the scan (the default climbs hulls) */
        gjk_cache cache;
        memset(&cache, 0, sizeof cache);
        gjk_result res = gjk_signed_distance(&a.shape, pa, &b.shape, pb, &cache, &opt);
        ++st->queries;
        double err, value;
        const char *why = check_answer(&a, pa, &b, pb, &o, &res, lref, tol, &err, &value);
        if (isfinite(err) && err > st->max_err[want])
            st->max_err[want] = err;
        if (why) {
            if (st->bad++ < LIST_MAX)
                print_message("  trial %d (%s, sizes %g/%g, n %d/%d, margins %.3g/%.3g, %s%s): "
                              "%s %.3g; sd* %.17g sd %.17g status %s err %.3g\n",
                              trial,
                              want == WANT_SEPARATED  ? "separated"
                              : want == WANT_TOUCHING ? "touching"
                                                      : "intersecting",
                              sa, sb, a.n, b.n, a.margin, b.margin,
                              a.hull || b.hull ? "hull" : "raw", variant ? ", scan" : "", why,
                              value, (double)o.sd, res.distance, gjk_status_name(res.status), err);
        }
    }
    gjk_polytope_destroy(&a.poly);
    gjk_polytope_destroy(&b.poly);
}

static void run_many(want_state want, uint64_t seed, int count)
{
    rng r = {seed};
    stats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < count; ++i)
        run_trial(&r, i, want, &st);
    print_message("  %d pairs, %d queries, max |sd - sd*| / lref %.3g, %d failing\n", st.trials,
                  st.queries, st.max_err[want], st.bad);
    if (st.bad)
        fail_msg("%d of %d queries disagree with the oracle", st.bad, st.queries);
}

static void test_random_separated(void **state)
{
    (void)state;
    run_many(WANT_SEPARATED, 0x5EAA7A7EDull, 1200);
}

static void test_random_touching(void **state)
{
    (void)state;
    run_many(WANT_TOUCHING, 0x70C41A6ull, 1200);
}

static void test_random_intersecting(void **state)
{
    (void)state;
    run_many(WANT_INTERSECTING, 0x1A7E45EC7ull, 1200);
}

/* The oracle itself on configurations with known answers, so a broken oracle cannot pass
 * the engine: unit cubes face to face, edge to edge and overlapping. */
static void test_oracle_self_check(void **state)
{
    (void)state;
    gjk_vec3 cube[8];
    for (int i = 0; i < 8; ++i)
        cube[i] = gjk_v3(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    oracle_shape a, b;
    gjk_transform id = gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 0));
    assert_int_equal(oracle_shape_init(&a, cube, 8, id, 0.0), 0);
    assert_int_equal(a.dim, 3);
    /* Face to face 0.25 apart. */
    assert_int_equal(
        oracle_shape_init(&b, cube, 8,
                          gjk_transform_make(gjk_quat_identity(), gjk_v3(2.25, 0.5, -0.5)), 0.0),
        0);
    oracle_answer o = oracle_query(&a, &b);
    assert_true(o.separated);
    ORACLE_ASSERT_NEAR(o.sd, 0.25, 1e-15);
    ORACLE_ASSERT_NEAR(o.normal.x, 1.0, 1e-15);
    oracle_shape_free(&b);
    /* Overlapping by 0.125 along z, with margins 0.1 + 0.2 added. */
    assert_int_equal(
        oracle_shape_init(&b, cube, 8,
                          gjk_transform_make(gjk_quat_identity(), gjk_v3(0.5, -0.25, -1.875)), 0.2),
        0);
    a.margin = 0.1;
    o = oracle_query(&a, &b);
    assert_false(o.separated);
    ORACLE_ASSERT_NEAR(o.sd, -0.125 - 0.3, 1e-15);
    ORACLE_ASSERT_NEAR(o.normal.z, -1.0, 1e-15);
    oracle_shape_free(&b);
    /* Corner against corner: B shifted by (2.3, 2.4, 2.6): gap |(0.3, 0.4, 0.6)|. */
    a.margin = 0;
    assert_int_equal(
        oracle_shape_init(&b, cube, 8,
                          gjk_transform_make(gjk_quat_identity(), gjk_v3(2.3, 2.4, 2.6)), 0.0),
        0);
    o = oracle_query(&a, &b);
    ORACLE_ASSERT_NEAR(o.sd, sqrt(0.61), 1e-15);
    ORACLE_ASSERT_NEAR(o.wa.x, 1.0, 1e-15);
    ORACLE_ASSERT_NEAR(o.wb.z, 1.6, 1e-15);
    oracle_shape_free(&b);
    /* Point distances: inside 0, outside by the box formula. */
    oracle_v3 in = {0.5, 0.2, -0.9}, out = {1.3, -1.4, 0.0};
    ORACLE_ASSERT_NEAR(oracle_point_distance(&a, in), 0.0, 0.0);
    ORACLE_ASSERT_NEAR(oracle_point_distance(&a, out), 0.5, 1e-15);
    /* A flat square and a segment are degenerate but valid. */
    gjk_vec3 sq[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    assert_int_equal(oracle_shape_init(&b, sq, 4,
                                       gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 1.5)),
                                       0.0),
                     0);
    assert_int_equal(b.dim, 2);
    o = oracle_query(&a, &b);
    ORACLE_ASSERT_NEAR(o.sd, 0.5, 1e-15);
    oracle_shape_free(&b);
    oracle_shape_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_self_check),
        cmocka_unit_test(test_random_separated),
        cmocka_unit_test(test_random_touching),
        cmocka_unit_test(test_random_intersecting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
