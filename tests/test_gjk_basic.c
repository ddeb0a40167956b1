/* test_gjk_basic.c — sanity and unit tests of the GJK engine (support.c, gjk.c, query.c):
 * closed-form distances for every primitive kind, margins, cutoff and boolean semantics, warm
 * starts, hostile caches, invalid input, precision under large common translations, and the
 * core support maps against the reference gjk_shape_support. The independent-oracle suite on
 * the shared case files lives elsewhere (test_cases). */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "../core/src/internal.h"

/* ------------------------------------------------------------------ helpers */

static gjk_transform pose(gjk_quat q, gjk_vec3 p)
{
    return gjk_transform_make(q, p);
}

static gjk_transform at(double x, double y, double z)
{
    return pose(gjk_quat_identity(), gjk_v3(x, y, z));
}

/* The result invariants every separated or penetrating answer must satisfy. */
static void check_invariants(const gjk_result *r, double tol)
{
    assert_true(isfinite(r->distance));
    assert_near(gjk_length(r->normal), 1.0, 1e-12);
    gjk_vec3 gap = gjk_sub(r->point_b, r->point_a);
    if (!(gjk_length(gjk_sub(gap, gjk_scale(r->normal, r->distance))) <= tol)) {
        print_error("invariant broken: status %s distance %.17g epa_iterations %d\n",
                    gjk_status_name(r->status), r->distance, r->epa_iterations);
    }
    assert_vec_near(gap, gjk_scale(r->normal, r->distance), tol);
    assert_true(r->lower_bound <= r->distance + tol);
    assert_true(r->distance <= r->upper_bound + tol);
}

/* Random points on a unit sphere, hulled (with adjacency). */
static void random_hull(gjk_polytope *out, int32_t n, double rx, double ry, double rz)
{
    gjk_vec3 *pts = malloc((size_t)n * sizeof *pts);
    assert_non_null(pts);
    for (int32_t i = 0; i < n; ++i) {
        gjk_vec3 u = rnd_unit();
        pts[i] = gjk_v3(u.x * rx, u.y * ry, u.z * rz);
    }
    assert_status(gjk_hull_build(out, pts, n, NULL), GJK_STATUS_SEPARATED);
    free(pts);
}

/* ------------------------------------------------------------------ closed forms */

static void test_sphere_sphere_exact(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_sphere(0.5), b = gjk_make_sphere(0.25);
    for (int k = 0; k < 200; ++k) {
        gjk_vec3 ca = gjk_scale(rnd_unit(), rnd_range(0, 3));
        gjk_vec3 dir = rnd_unit();
        double gap = k % 2 ? rnd_range(1e-6, 2.0) : rnd_range(-0.7, -1e-6);
        gjk_vec3 cb = gjk_madd(ca, 0.75 + gap, dir);
        gjk_result r =
            gjk_signed_distance(&a, pose(rnd_quat(), ca), &b, pose(rnd_quat(), cb), NULL, NULL);
        assert_status(r.status, gap > 0 ? GJK_STATUS_SEPARATED : GJK_STATUS_OVERLAPPING);
        assert_near(r.distance, gap, 1e-14);
        assert_vec_near(r.normal, dir, 1e-12);
        assert_vec_near(r.point_a, gjk_madd(ca, 0.5, dir), 1e-14);
        assert_vec_near(r.point_b, gjk_madd(cb, -0.25, dir), 1e-14);
        assert_int_equal(r.epa_iterations, 0); /* cores separated: inflation alone is exact */
        check_invariants(&r, 1e-14);
    }
    /* Concentric: the cores coincide, EPA on a single point; depth is the radius sum. */
    gjk_result r = gjk_signed_distance(&a, at(1, 2, 3), &b, at(1, 2, 3), NULL, NULL);
    assert_status(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(r.distance, -0.75, 1e-14);
    check_invariants(&r, 1e-14);
    /* Plain distance reports overlap as distance 0. */
    r = gjk_distance(&a, at(0, 0, 0), &b, at(0.5, 0, 0), NULL, NULL);
    assert_status(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(r.distance, 0.0, 0.0);
}

static void test_box_box(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(1, 2, 3)), b = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    /* Face to face along x, offset sideways within the faces: gap exact. */
    for (int k = 0; k < 50; ++k) {
        double gap = rnd_range(1e-9, 1.0);
        gjk_vec3 pb = gjk_v3(1.5 + gap, rnd_range(-1.4, 1.4), rnd_range(-2.4, 2.4));
        gjk_result r =
            gjk_signed_distance(&a, at(0, 0, 0), &b, pose(gjk_quat_identity(), pb), NULL, NULL);
        assert_near(r.distance, gap, 1e-15);
        assert_vec_near(r.normal, gjk_v3(1, 0, 0), 1e-12);
        check_invariants(&r, 1e-15);
    }
    /* Exactly touching faces: TOUCHING at distance 0 from every query (the plain distance
     * once said OVERLAPPING: GJK stops at contact without enclosing the origin). */
    gjk_result r = gjk_distance(&a, at(0, 0, 0), &b, at(1.5, 0.25, -0.5), NULL, NULL);
    assert_status(r.status, GJK_STATUS_TOUCHING);
    assert_near(r.distance, 0.0, 1e-15);
    r = gjk_signed_distance(&a, at(0, 0, 0), &b, at(1.5, 0.25, -0.5), NULL, NULL);
    assert_status(r.status, GJK_STATUS_TOUCHING);
    assert_near(r.distance, 0.0, 1e-15);
    assert_vec_near(r.normal, gjk_v3(1, 0, 0), 1e-12);
    /* Corner to corner along the diagonal. */
    r = gjk_distance(&a, at(0, 0, 0), &b, at(2.5, 3.5, 4.5), NULL, NULL);
    assert_near(r.distance, sqrt(3.0), 1e-14);
    /* Penetration along the thinnest overlap. */
    r = gjk_signed_distance(&a, at(0, 0, 0), &b, at(1.4, 0.3, -0.2), NULL, NULL);
    assert_status(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(r.distance, -0.1, 1e-12); /* b spans x in [0.9, 1.9], a ends at 1 */
    assert_vec_near(r.normal, gjk_v3(1, 0, 0), 1e-12);
    check_invariants(&r, 1e-12);

    /* Rotated boxes against the same boxes given as polytopes of their 8 corners. */
    gjk_vec3 ca[8], cb[8];
    for (uint32_t i = 0; i < 8; ++i) {
        assert_true(gjk_core_point(&a, i, &ca[i]));
        assert_true(gjk_core_point(&b, i, &cb[i]));
    }
    gjk_polytope pa, pb;
    assert_status(gjk_polytope_create(&pa, ca, 8, NULL, NULL), GJK_STATUS_SEPARATED);
    assert_status(gjk_polytope_create(&pb, cb, 8, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape qa = gjk_make_polytope(&pa), qb = gjk_make_polytope(&pb);
    for (int k = 0; k < 100; ++k) {
        gjk_transform ta = pose(rnd_quat(), gjk_scale(rnd_unit(), 2.0));
        gjk_transform tb = pose(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(1.0, 6.0)));
        gjk_result rb = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
        gjk_result rp = gjk_signed_distance(&qa, ta, &qb, tb, NULL, NULL);
        assert_status(rb.status, rp.status);
        assert_near(rb.distance, rp.distance, 1e-12);
        check_invariants(&rb, 1e-12);
    }
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
}

/* Distance between segments p0 + s u and q0 + t v, s, t in [0, 1], by dense sampling of s
 * and the exact clamp of t: an independent, slow reference. */
static double segment_distance_reference(gjk_vec3 p0, gjk_vec3 u, gjk_vec3 q0, gjk_vec3 v)
{
    double best = HUGE_VAL;
    for (int i = 0; i <= 200000; ++i) {
        gjk_vec3 p = gjk_madd(p0, i / 200000.0, u);
        double t = gjk_dot(gjk_sub(p, q0), v) / gjk_dot(v, v);
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        best = fmin(best, gjk_distance_between(p, gjk_madd(q0, t, v)));
    }
    return best;
}

static void test_capsules(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_capsule(0.5, 1.0), b = gjk_make_capsule(0.25, 2.0);
    /* Parallel, side by side. */
    gjk_result r = gjk_signed_distance(&a, at(0, 0, 0), &b, at(3, 0, 0.5), NULL, NULL);
    assert_near(r.distance, 2.25, 1e-14);
    check_invariants(&r, 1e-14);
    /* End to end along the axis. */
    r = gjk_signed_distance(&a, at(0, 0, 0), &b, at(0, 0, 4), NULL, NULL);
    assert_near(r.distance, 4.0 - 1.0 - 2.0 - 0.75, 1e-14);
    /* Crossed (b along y), offset along x: segment distance minus the radii. */
    gjk_quat qy = gjk_quat_from_axis_angle(gjk_v3(1, 0, 0), PI / 2);
    r = gjk_signed_distance(&a, at(0, 0, 0), &b, pose(qy, gjk_v3(2, 0.3, -0.2)), NULL, NULL);
    assert_near(r.distance, 2.0 - 0.75, 1e-14);
    /* Random skew capsules against a sampled segment-segment reference. */
    for (int k = 0; k < 5; ++k) {
        gjk_transform ta = pose(rnd_quat(), gjk_v3(0, 0, 0));
        gjk_transform tb = pose(rnd_quat(), gjk_scale(rnd_unit(), 4.0));
        r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
        gjk_vec3 p0 = gjk_transform_point(ta, gjk_v3(0, 0, -1));
        gjk_vec3 u = gjk_sub(gjk_transform_point(ta, gjk_v3(0, 0, 1)), p0);
        gjk_vec3 q0 = gjk_transform_point(tb, gjk_v3(0, 0, -2));
        gjk_vec3 v = gjk_sub(gjk_transform_point(tb, gjk_v3(0, 0, 2)), q0);
        double ref = segment_distance_reference(p0, u, q0, v) - 0.75;
        assert_near(r.distance, ref, 1e-9); /* the sampling's resolution */
        assert_true(r.distance <= ref + 1e-14);
        check_invariants(&r, 1e-13);
    }
}

static void test_cylinder_cone_point(void **state)
{
    (void)state;
    gjk_shape cyl = gjk_make_cylinder(0.5, 1.0), cone = gjk_make_cone(0.5, 1.0);
    gjk_shape pt = gjk_make_point();
    /* Above the cap, beside the side, off the rim. */
    gjk_result r = gjk_signed_distance(&cyl, at(0, 0, 0), &pt, at(0.1, 0.2, 1.5), NULL, NULL);
    assert_near(r.distance, 0.5, 1e-12);
    r = gjk_signed_distance(&cyl, at(0, 0, 0), &pt, at(0.6, 0.8, 0.3), NULL, NULL);
    assert_near(r.distance, 0.5, 1e-12);
    r = gjk_signed_distance(&cyl, at(0, 0, 0), &pt, at(1.1, 0, 1.8), NULL, NULL);
    assert_near(r.distance, 1.0, 1e-12);
    /* Cone: above the apex, below the base, beside the slanted side. */
    r = gjk_signed_distance(&cone, at(0, 0, 0), &pt, at(0, 0, 2), NULL, NULL);
    assert_near(r.distance, 1.0, 1e-12);
    r = gjk_signed_distance(&cone, at(0, 0, 0), &pt, at(0.2, 0.1, -1.25), NULL, NULL);
    assert_near(r.distance, 0.25, 1e-12);
    /* Side line from (0.5, 0, -1) to (0, 0, 1): outward normal (4, 0, 1) / sqrt(17). */
    gjk_vec3 foot = gjk_v3(0.25, 0, 0);
    gjk_vec3 p = gjk_madd(foot, 0.3, gjk_normalize(gjk_v3(4, 0, 1)));
    r = gjk_signed_distance(&cone, at(0, 0, 0), &pt, at(p.x, p.y, p.z), NULL, NULL);
    assert_near(r.distance, 0.3, 1e-9);
    check_invariants(&r, 1e-12);
    /* Two parallel cylinders side by side: curved against curved. */
    r = gjk_signed_distance(&cyl, at(0, 0, 0), &cyl, at(1.5, 0, 0.2), NULL, NULL);
    assert_near(r.distance, 0.5, 1e-9);
}

static void test_margins(void **state)
{
    (void)state;
    gjk_shape box = gjk_make_box(gjk_v3(1, 1, 1)), rounded = box;
    rounded.margin = 0.1;
    gjk_shape ball = gjk_make_sphere(0.5);
    ball.margin = 0.05;
    for (int k = 0; k < 50; ++k) {
        gjk_transform ta = pose(rnd_quat(), gjk_v3(0, 0, 0));
        gjk_transform tb = pose(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(2.5, 4.0)));
        gjk_result plain = gjk_signed_distance(&box, ta, &ball, tb, NULL, NULL);
        gjk_result r = gjk_signed_distance(&rounded, ta, &ball, tb, NULL, NULL);
        /* Inflation is exact for Minkowski sums: the distance drops by the margin. */
        assert_near(r.distance, plain.distance - 0.1, 1e-14);
        assert_vec_near(r.normal, plain.normal, 1e-12);
        assert_vec_near(r.point_a, gjk_madd(plain.point_a, 0.1, plain.normal), 1e-14);
        check_invariants(&r, 1e-14);
    }
    /* Rounded shells overlap while the cores are apart: exact depth without EPA. */
    gjk_shape a = gjk_make_box(gjk_v3(1, 1, 1)), b = gjk_make_box(gjk_v3(1, 1, 1));
    a.margin = 0.2;
    b.margin = 0.3;
    gjk_result r = gjk_signed_distance(&a, at(0, 0, 0), &b, at(2.1, 0.5, 0), NULL, NULL);
    assert_status(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(r.distance, 0.1 - 0.5, 1e-14);
    assert_int_equal(r.epa_iterations, 0);
    check_invariants(&r, 1e-14);
    /* Touching within the tolerance. */
    r = gjk_signed_distance(&a, at(0, 0, 0), &b, at(2.5 + 1e-10, 0.5, 0), NULL, NULL);
    assert_status(r.status, GJK_STATUS_TOUCHING);
    assert_near(r.distance, 1e-10, 1e-14);
}

static void test_cutoff(void **state)
{
    (void)state;
    gjk_polytope pa, pb;
    random_hull(&pa, 200, 1, 0.7, 0.45);
    random_hull(&pb, 200, 1, 1, 1);
    gjk_shape a = gjk_make_polytope(&pa), b = gjk_make_polytope(&pb);
    for (int k = 0; k < 50; ++k) {
        gjk_transform ta = pose(rnd_quat(), gjk_v3(0, 0, 0));
        gjk_transform tb = pose(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(3.0, 8.0)));
        gjk_result full = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
        assert_status(full.status, GJK_STATUS_SEPARATED);
        /* Cutoff below the distance: stops early with a certified lower bound above it. */
        double cutoff = full.distance * rnd_range(0.1, 0.9);
        gjk_result c = gjk_distance_cutoff(&a, ta, &b, tb, cutoff, NULL, NULL);
        assert_status(c.status, GJK_STATUS_BEYOND_CUTOFF);
        assert_true(c.distance > cutoff);
        assert_true(c.distance <= full.distance + 1e-12);
        assert_near(c.distance, c.lower_bound, 0.0);
        /* Witnesses: the closest pair found so far, upper_bound apart along the normal. */
        assert_vec_near(gjk_sub(c.point_b, c.point_a), gjk_scale(c.normal, c.upper_bound), 1e-12);
        assert_true(c.upper_bound >= full.distance - 1e-12);
        assert_true(c.iterations <= full.iterations);
        /* Cutoff above the distance: the full answer. */
        c = gjk_distance_cutoff(&a, ta, &b, tb, full.distance + 1e-6, NULL, NULL);
        assert_status(c.status, GJK_STATUS_SEPARATED);
        assert_near(c.distance, full.distance, 1e-15);
        /* INFINITY (HUGE_VAL): never stops early. */
        c = gjk_distance_cutoff(&a, ta, &b, tb, HUGE_VAL, NULL, NULL);
        assert_near(c.distance, full.distance, 0.0);
    }
    /* Overlapping shapes are never beyond a cutoff, a negative one included (regression:
     * the initial lower bound 0 once "exceeded" any negative cutoff before GJK had
     * certified separation). */
    gjk_result c = gjk_distance_cutoff(&a, at(0, 0, 0), &b, at(0.5, 0, 0), 0.0, NULL, NULL);
    assert_status(c.status, GJK_STATUS_OVERLAPPING);
    assert_true(c.distance < 0.0);
    c = gjk_distance_cutoff(&a, at(0, 0, 0), &b, at(0.5, 0, 0), -0.01, NULL, NULL);
    assert_status(c.status, GJK_STATUS_OVERLAPPING);
    assert_true(c.distance < -0.01);
    /* Negative cutoff with rounded shapes whose cores are apart: separation of the cores
     * bounds the signed distance from below. */
    gjk_shape ball = gjk_make_sphere(0.5);
    c = gjk_distance_cutoff(&ball, at(0, 0, 0), &ball, at(0.9, 0, 0), -0.2, NULL, NULL);
    assert_status(c.status, GJK_STATUS_BEYOND_CUTOFF);
    assert_true(c.distance > -0.2 && c.distance <= -0.1 + 1e-15);
    c = gjk_distance_cutoff(&ball, at(0, 0, 0), &ball, at(0.9, 0, 0), -0.05, NULL, NULL);
    assert_status(c.status, GJK_STATUS_OVERLAPPING);
    assert_near(c.distance, -0.1, 1e-15);
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
}

static void test_intersect(void **state)
{
    (void)state;
    gjk_shape s = gjk_make_sphere(1.0);
    assert_status(gjk_intersect(&s, at(0, 0, 0), &s, at(1.5, 0, 0), NULL, NULL),
                  GJK_STATUS_OVERLAPPING);
    assert_status(gjk_intersect(&s, at(0, 0, 0), &s, at(2.5, 0, 0), NULL, NULL),
                  GJK_STATUS_SEPARATED);
    /* Exactly touching counts as intersecting, and so does touching within the touch
     * tolerance, as the signed distance reports it (TOUCHING). */
    assert_status(gjk_intersect(&s, at(0, 0, 0), &s, at(2.0, 0, 0), NULL, NULL),
                  GJK_STATUS_OVERLAPPING);
    gjk_shape box = gjk_make_box(gjk_v3(1, 1, 1));
    assert_status(
        gjk_signed_distance(&box, at(0, 0, 0), &box, at(2 + 5e-10, 0.3, 0), NULL, NULL).status,
        GJK_STATUS_TOUCHING);
    assert_status(gjk_intersect(&box, at(0, 0, 0), &box, at(2 + 5e-10, 0.3, 0), NULL, NULL),
                  GJK_STATUS_OVERLAPPING);
    assert_status(gjk_intersect(&box, at(0, 0, 0), &box, at(2 + 2e-9, 0.3, 0), NULL, NULL),
                  GJK_STATUS_SEPARATED);

    /* Random hulls: the boolean verdict agrees with the signed distance away from contact. */
    gjk_polytope pa, pb;
    random_hull(&pa, 64, 1, 1, 1);
    random_hull(&pb, 300, 1, 0.5, 0.8);
    gjk_shape a = gjk_make_polytope(&pa), b = gjk_make_polytope(&pb);
    int overlaps = 0;
    for (int k = 0; k < 300; ++k) {
        gjk_transform ta = pose(rnd_quat(), gjk_v3(0, 0, 0));
        gjk_transform tb = pose(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.0, 2.5)));
        gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
        if (fabs(r.distance) < 1e-9) {
            continue;
        }
        gjk_status want = r.distance < 0 ? GJK_STATUS_OVERLAPPING : GJK_STATUS_SEPARATED;
        overlaps += r.distance < 0;
        assert_status(gjk_intersect(&a, ta, &b, tb, NULL, NULL), want);
    }
    assert_true(overlaps > 20 && overlaps < 280); /* both verdicts were exercised */
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
}

/* ------------------------------------------------------------------ warm start and caches */

static void test_warm_equals_cold(void **state)
{
    (void)state;
    gjk_polytope pa, pb;
    random_hull(&pa, 500, 1, 0.7, 0.45);
    random_hull(&pb, 100, 0.6, 0.6, 0.6);
    gjk_shape a = gjk_make_polytope(&pa), b = gjk_make_polytope(&pb);
    gjk_shape box = gjk_make_box(gjk_v3(0.3, 0.2, 0.1));
    gjk_shape cyl = gjk_make_cylinder(0.25, 0.6), cone = gjk_make_cone(0.4, 0.3);
    const gjk_shape *others[4] = {&b, &box, &cyl, &cone};
    for (int o = 0; o < 4; ++o) {
        gjk_cache cache;
        memset(&cache, 0, sizeof cache);
        long warm_iters = 0, cold_iters = 0;
        for (int step = 0; step <= 400; ++step) {
            double t = step / 400.0;
            gjk_transform ta =
                pose(gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), 2 * t), at(0, 0, 0).p);
            gjk_transform tb = pose(gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 1, 0)), 3 * t),
                                    gjk_v3(-3 + 6 * t, 1.2 * cos(4 * t), 0.3 * sin(5 * t)));
            gjk_result cold = gjk_signed_distance(&a, ta, others[o], tb, NULL, NULL);
            gjk_result warm = gjk_signed_distance(&a, ta, others[o], tb, &cache, NULL);
            assert_status(warm.status, cold.status);
            /* Both are upper bounds within the relative gap tolerance (1e-12) of the distance:
             * exact on polytopes, on curved rims they may differ by up to that gap. */
            assert_near(warm.distance, cold.distance, 1e-12 * fmax(1.0, fabs(cold.distance)));
            check_invariants(&warm, 1e-12);
            warm_iters += warm.iterations;
            cold_iters += cold.iterations;
        }
        assert_true(warm_iters < cold_iters); /* the cache must pay for itself */
        if (o >= 2) {
            /* Rim points have no feature index; their cache keys rebuild the simplex on the
             * rim. With only the cached direction a cylinder's warm path took 0.96-0.98 of
             * the cold iterations, with rim keys 0.56-0.57 (2026-12-03). */
            assert_true((double)warm_iters <= 0.75 * (double)cold_iters);
        }
    }
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
}

static void test_hostile_cache_harmless(void **state)
{
    (void)state;
    gjk_polytope pa, pb, pc;
    random_hull(&pa, 80, 1, 1, 1);
    random_hull(&pb, 30, 1, 0.5, 0.5);
    random_hull(&pc, 300, 1, 1, 1);
    gjk_shape a = gjk_make_polytope(&pa), b = gjk_make_polytope(&pb), c = gjk_make_polytope(&pc);
    gjk_shape box = gjk_make_box(gjk_v3(1, 1, 1)), cyl = gjk_make_cylinder(0.5, 1);
    const gjk_shape *shapes[5] = {&a, &b, &c, &box, &cyl};
    for (int k = 0; k < 400; ++k) {
        const gjk_shape *sa = shapes[k % 5], *sb = shapes[(k / 5) % 5];
        gjk_transform ta = pose(rnd_quat(), gjk_v3(0, 0, 0));
        gjk_transform tb = pose(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.5, 4.0)));
        gjk_result cold = gjk_signed_distance(sa, ta, sb, tb, NULL, NULL);
        gjk_cache cache;
        if (k % 4 == 0) {
            memset(&cache, 0xFF, sizeof cache); /* every index out of range, NaN direction */
        } else if (k % 4 == 1) {
            unsigned char *bytes = (unsigned char *)&cache;
            for (size_t i = 0; i < sizeof cache; ++i) {
                bytes[i] = (unsigned char)(rnd() * 256);
            }
        } else {
            /* A cache written by another pair of shapes (foreign kinds or indices). */
            memset(&cache, 0, sizeof cache);
            (void)gjk_signed_distance(shapes[(k + 1) % 5], tb, shapes[(k + 3) % 5], ta, &cache,
                                      NULL);
            if (k % 4 == 3) {
                cache.kind_a = (uint8_t)sa->kind; /* same kinds, indices of other shapes */
                cache.kind_b = (uint8_t)sb->kind;
            }
        }
        gjk_result r = gjk_signed_distance(sa, ta, sb, tb, &cache, NULL);
        assert_status(r.status, cold.status);
        assert_near(r.distance, cold.distance, 1e-9);
        assert_true(cache.count <= 4);
    }
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
    gjk_polytope_destroy(&pc);
}

/* ------------------------------------------------------------------ invalid input */

static void test_invalid_input(void **state)
{
    (void)state;
    gjk_shape s = gjk_make_sphere(1.0), bad = gjk_make_sphere(-1.0), zero;
    memset(&zero, 0, sizeof zero);
    gjk_transform ok = at(0, 0, 0), far = at(5, 0, 0);
    gjk_transform nan_pose = at((double)NAN, 0, 0);
    gjk_transform inf_pose = at(0, HUGE_VAL, 0);
    gjk_transform long_q = pose(gjk_quat_make(1.1, 0, 0, 0), gjk_v3(5, 0, 0));
    gjk_transform nan_q = pose(gjk_quat_make((double)NAN, 0, 0, 0), gjk_v3(5, 0, 0));

    gjk_cache cache, before;
    memset(&cache, 0, sizeof cache);
    (void)gjk_signed_distance(&s, ok, &s, far, &cache, NULL); /* a live cache */
    before = cache;

    struct {
        const gjk_shape *a, *b;
        gjk_transform ta, tb;
    } bad_inputs[] = {
        {&s, &s, nan_pose, far}, {&s, &s, ok, inf_pose}, {&s, &s, ok, long_q}, {&s, &s, nan_q, far},
        {&bad, &s, ok, far},     {&s, &zero, ok, far},   {NULL, &s, ok, far},
    };
    for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; ++i) {
        gjk_result r = gjk_signed_distance(bad_inputs[i].a, bad_inputs[i].ta, bad_inputs[i].b,
                                           bad_inputs[i].tb, &cache, NULL);
        assert_status(r.status, GJK_STATUS_INVALID_INPUT);
        assert_true(isnan(r.distance));
        assert_memory_equal(&cache, &before, sizeof cache);
        assert_status(gjk_intersect(bad_inputs[i].a, bad_inputs[i].ta, bad_inputs[i].b,
                                    bad_inputs[i].tb, &cache, NULL),
                      GJK_STATUS_INVALID_INPUT);
    }
    /* NaN cutoff, NULL query. */
    gjk_result r = gjk_distance_cutoff(&s, ok, &s, far, (double)NAN, &cache, NULL);
    assert_status(r.status, GJK_STATUS_INVALID_INPUT);
    r = gjk_query_run(NULL, &cache, NULL);
    assert_status(r.status, GJK_STATUS_INVALID_INPUT);
    assert_memory_equal(&cache, &before, sizeof cache);

    /* A quaternion off unit norm within the tolerance is normalised, not rejected. */
    gjk_shape box = gjk_make_box(gjk_v3(1, 1, 1));
    gjk_quat q = gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), PI / 4);
    gjk_quat q_long = gjk_quat_make(q.w * (1 + 5e-7), q.x * (1 + 5e-7), 0, q.z * (1 + 5e-7));
    gjk_result exact = gjk_distance(&box, ok, &box, pose(q, gjk_v3(4, 0, 0)), NULL, NULL);
    r = gjk_distance(&box, ok, &box, pose(q_long, gjk_v3(4, 0, 0)), NULL, NULL);
    assert_status(r.status, GJK_STATUS_SEPARATED);
    assert_near(r.distance, exact.distance, 1e-15);
    assert_near(r.distance, 3.0 - sqrt(2.0), 1e-15);

    /* A hand-filled polytope with a NaN vertex that the scan reaches. */
    double x[4] = {0, 1, 0, (double)NAN}, y[4] = {0, 0, 1, 0}, z[4] = {0, 0, 0, 1};
    gjk_polytope p;
    memset(&p, 0, sizeof p);
    p.x = x;
    p.y = y;
    p.z = z;
    p.count = 4;
    p.padded_count = 4;
    p.radius = 1.0;
    gjk_shape poly = gjk_make_polytope(&p);
    r = gjk_signed_distance(&poly, ok, &s, far, &cache, NULL);
    assert_status(r.status, GJK_STATUS_INVALID_INPUT);
    assert_memory_equal(&cache, &before, sizeof cache);
    /* A hand-filled polytope is validated in full by every query: a neighbour index out of
     * range is refused even where the query would never climb (4 vertices: linear scan). */
    x[3] = 0.0;
    int32_t adj_start[5] = {0, 1, 2, 3, 4}, adj[4] = {1, 2, 3, 99};
    p.adj_start = adj_start;
    p.adj = adj;
    r = gjk_signed_distance(&poly, ok, &s, far, NULL, NULL);
    assert_status(r.status, GJK_STATUS_INVALID_INPUT);
    adj[3] = 0;
    r = gjk_signed_distance(&poly, ok, &s, far, NULL, NULL);
    assert_status(r.status, GJK_STATUS_SEPARATED);
    /* ... and a polytope with no vertices. */
    p.count = 0;
    r = gjk_signed_distance(&poly, ok, &s, far, NULL, NULL);
    assert_status(r.status, GJK_STATUS_INVALID_INPUT);
}

/* Lengths beyond GJK_MAX_LENGTH are refused (issue 22, finding 3): boxes, cylinders and cones
 * of half-size 1e154 (capsules 1e160) were accepted, a robot inside such a box was reported
 * clear, and from 1e100 the depth came back as -0.1. At the largest accepted size the answers
 * are still right (a small sphere inside a box, a cylinder, a capsule). */
static void test_lengths_beyond_limit(void **state)
{
    (void)state;
    const double big = GJK_MAX_LENGTH, huge[] = {GJK_MAX_LENGTH * 1.0000001, 1e100, 1e154, 1e160};
    gjk_shape ball = gjk_make_sphere(0.1);
    gjk_transform ok = at(0, 0, 0);
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; ++i) {
        double h = huge[i];
        gjk_shape shapes[6] = {gjk_make_box(gjk_v3(h, 1, 1)), gjk_make_cylinder(1, h),
                               gjk_make_cone(h, 1),           gjk_make_capsule(1, h),
                               gjk_make_sphere(h),            gjk_make_sphere(1)};
        shapes[5].margin = h;
        for (int k = 0; k < 6; ++k) {
            assert_status(gjk_shape_validate(&shapes[k]), GJK_STATUS_INVALID_INPUT);
            gjk_result r = gjk_signed_distance(&shapes[k], ok, &ball, ok, NULL, NULL);
            assert_status(r.status, GJK_STATUS_INVALID_INPUT);
        }
        /* Translations too. */
        gjk_result r = gjk_signed_distance(&ball, ok, &ball, at(0, 0, h), NULL, NULL);
        assert_status(r.status, GJK_STATUS_INVALID_INPUT);
        assert_false(gjk_transform_is_valid(at(-h, 0, 0)));
        /* And hull points. */
        gjk_vec3 pts[4] = {gjk_v3(0, 0, 0), gjk_v3(h, 0, 0), gjk_v3(0, 1, 0), gjk_v3(0, 0, 1)};
        gjk_polytope p;
        assert_status(gjk_hull_build(&p, pts, 4, NULL), GJK_STATUS_INVALID_INPUT);
    }
    gjk_shape shapes[3] = {gjk_make_box(gjk_v3(big, big, big)), gjk_make_cylinder(big, big),
                           gjk_make_capsule(big, big)};
    for (int k = 0; k < 3; ++k) {
        gjk_result r = gjk_signed_distance(&shapes[k], ok, &ball, at(0, 0, 0.25 * big), NULL, NULL);
        assert_status(r.status, GJK_STATUS_OVERLAPPING);
        double depth = (k == 2 ? big : 0.75 * big) + 0.1; /* the capsule's side is nearest */
        assert_near(r.distance, -depth, 1e-15 * depth);
    }
    /* 1 m from a box of half-size 5e11 (the ball's centre at 5e11 + 1.1): exact to the
     * rounding of the box's size. */
    gjk_shape half = gjk_make_box(gjk_v3(0.5 * big, 0.5 * big, 0.5 * big));
    gjk_result r = gjk_signed_distance(&half, ok, &ball, at(0.5 * big + 1.1, 0, 0), NULL, NULL);
    assert_status(r.status, GJK_STATUS_SEPARATED);
    assert_near(r.distance, 1.0, 1e-15 * big);
}

/* ------------------------------------------------------------------ precision */

static void test_pair_local_precision(void **state)
{
    (void)state;
    gjk_polytope pa, pb;
    random_hull(&pa, 100, 1, 0.7, 0.45);
    random_hull(&pb, 100, 1, 1, 1);
    gjk_shape a = gjk_make_polytope(&pa), b = gjk_make_polytope(&pb);
    gjk_vec3 shift = gjk_v3(1e4, -1e4, 1e4);
    for (int k = 0; k < 100; ++k) {
        gjk_transform ta = pose(rnd_quat(), gjk_scale(rnd_unit(), 0.5));
        gjk_quat qb = rnd_quat();
        gjk_vec3 dir = rnd_unit();
        /* Place B at a tiny gap along dir: 1e-6 ... 1e-3. */
        gjk_transform tb = pose(qb, gjk_madd(ta.p, 3.0, dir));
        gjk_result r0 = gjk_distance(&a, ta, &b, tb, NULL, NULL);
        double gap = pow(10.0, rnd_range(-6, -3));
        tb.p = gjk_madd(tb.p, gap - r0.distance, r0.normal);
        r0 = gjk_distance(&a, ta, &b, tb, NULL, NULL);
        assert_near(r0.distance, gap, 1e-12);

        gjk_transform ta2 = pose(ta.q, gjk_add(ta.p, shift));
        gjk_transform tb2 = pose(tb.q, gjk_add(tb.p, shift));
        gjk_result r1 = gjk_distance(&a, ta2, &b, tb2, NULL, NULL);
        /* The shift rounds the poses themselves by ~1e4 eps = 2e-12; the query adds nothing
         * comparable to it. */
        assert_near(r1.distance, r0.distance, 1e-11);
        /* A vertex-vertex normal turns by (pose rounding) / gap. */
        assert_vec_near(r1.normal, r0.normal, 4e-12 / gap + 1e-12);
        assert_vec_near(gjk_sub(r1.point_a, shift), r0.point_a, 1e-11);
        assert_vec_near(gjk_sub(r1.point_b, shift), r0.point_b, 1e-11);
    }
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
}

/* ------------------------------------------------------------------ support maps */

static void test_core_support_matches_reference(void **state)
{
    (void)state;
    gjk_polytope p;
    random_hull(&p, 60, 1, 0.7, 0.45);
    gjk_shape shapes[7] = {gjk_make_point(),
                           gjk_make_sphere(0.7),
                           gjk_make_capsule(0.3, 0.8),
                           gjk_make_box(gjk_v3(0.2, 0.5, 0.9)),
                           gjk_make_cylinder(0.4, 0.6),
                           gjk_make_cone(0.5, 0.7),
                           gjk_make_polytope(&p)};
    for (int i = 0; i < 7; ++i) {
        shapes[i].margin = 0.05 * i;
        double inflate = gjk_core_inflate(&shapes[i]);
        for (int k = 0; k < 500; ++k) {
            gjk_vec3 d = gjk_scale(rnd_unit(), pow(10.0, rnd_range(-30, 30)));
            if (k < 6) { /* the axes, where ties and sign(0) conventions bite */
                d = gjk_v3(k % 3 == 0, k % 3 == 1, k % 3 == 2);
                d = k < 3 ? d : gjk_neg(d);
            }
            uint32_t index;
            gjk_vec3 core = gjk_core_support(&shapes[i], d, false, 0, &index);
            gjk_vec3 ref = gjk_shape_support(&shapes[i], d);
            gjk_vec3 n =
                gjk_normalize(gjk_scale(d, 1.0 / fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)))));
            /* Same support value (points may differ only on ties). */
            assert_near(gjk_dot(gjk_madd(core, inflate, n), n), gjk_dot(ref, n), 1e-14);
            gjk_vec3 again;
            if (index != GJK_CACHE_NO_INDEX) {
                assert_true(gjk_core_point(&shapes[i], index, &again));
                assert_vec_near(again, core, 0.0);
            }
            /* A rim point's cache key gives back a point of the same rim within the key's
             * angular step (below 7.4e-9 rad). */
            uint32_t key = index == GJK_CACHE_NO_INDEX ? gjk_core_key(&shapes[i], core) : index;
            bool on_rim = fabs(sqrt(core.x * core.x + core.y * core.y) - shapes[i].radius) <=
                          1e-12 * shapes[i].radius; /* not a cap's centre (d along the axis) */
            if (index == GJK_CACHE_NO_INDEX && key != GJK_CACHE_NO_INDEX && on_rim) {
                assert_true(gjk_is_rim_key(key));
                assert_true(gjk_core_point(&shapes[i], key, &again));
                assert_vec_near(again, core, 1e-8 * shapes[i].radius);
            }
        }
    }
    /* Any rim key is a point on the rim (a foreign or garbage key costs speed only); keys
     * without the rim bit are no features of a cylinder. */
    gjk_vec3 out;
    for (int k = 0; k < 1000; ++k) {
        uint32_t key = GJK_RIM_KEY | (uint32_t)(rnd() * 2147483648.0);
        if (key == GJK_CACHE_NO_INDEX) {
            continue;
        }
        for (int i = 4; i <= 5; ++i) {
            assert_true(gjk_core_point(&shapes[i], key, &out));
            assert_near(sqrt(out.x * out.x + out.y * out.y), shapes[i].radius, 1e-15);
            assert_near(fabs(out.z), shapes[i].half_height, 0.0);
        }
    }
    /* Stale indices are rejected, never trusted. */
    assert_false(gjk_core_point(&shapes[3], 8, &out));
    assert_false(gjk_core_point(&shapes[2], 2, &out));
    assert_false(gjk_core_point(&shapes[6], (uint32_t)p.count, &out));
    assert_false(gjk_core_point(&shapes[4], 0, &out));
    gjk_polytope_destroy(&p);
}

static void test_hill_climbing_exact(void **state)
{
    (void)state;
    gjk_polytope p;
    random_hull(&p, 2000, 1, 0.7, 0.45);
    assert_non_null(p.adj_start);
    gjk_shape s = gjk_make_polytope(&p);
    uint32_t hint = 0;
    for (int k = 0; k < 3000; ++k) {
        gjk_vec3 d = rnd_unit();
        uint32_t i_scan, i_hill;
        gjk_vec3 a = gjk_core_support(&s, d, false, 0, &i_scan);
        gjk_vec3 b = gjk_core_support(&s, d, true, k % 3 ? hint : (uint32_t)(rnd() * 4e9), &i_hill);
        assert_near(gjk_dot(a, d), gjk_dot(b, d), 0.0);
        hint = i_hill;
    }
    /* Coplanar ties: a cube's face has four maximal vertices; the scan picks the lowest
     * index, hill climbing a deterministic one for a given hint. */
    gjk_vec3 corners[8];
    gjk_shape box = gjk_make_box(gjk_v3(1, 1, 1));
    for (uint32_t i = 0; i < 8; ++i) {
        assert_true(gjk_core_point(&box, i, &corners[i]));
    }
    gjk_polytope cube;
    assert_status(gjk_hull_build(&cube, corners, 8, NULL), GJK_STATUS_SEPARATED);
    gjk_shape cs = gjk_make_polytope(&cube);
    uint32_t first, second;
    gjk_vec3 top = gjk_core_support(&cs, gjk_v3(0, 0, 1), false, 0, &first);
    assert_near(top.z, 1.0, 0.0);
    for (int32_t i = 0; i < cube.count; ++i) {
        if (cube.z[i] == 1.0) {
            assert_true((uint32_t)i >= first);
        }
    }
    for (uint32_t h = 0; h < 8; ++h) {
        top = gjk_core_support(&cs, gjk_v3(0, 0, 1), true, h, &first);
        assert_near(top.z, 1.0, 0.0);
        (void)gjk_core_support(&cs, gjk_v3(0, 0, 1), true, h, &second);
        assert_int_equal(first, second);
    }
    gjk_polytope_destroy(&cube);
    gjk_polytope_destroy(&p);
}

/* ------------------------------------------------------------------ verdicts and scale */

/* Two 1 mm shapes 1.57e-9 m apart, and the same configuration scaled by 1e3 and 1e-3: the
 * verdict is SEPARATED and the distance the computed one, 1.57e-9 s (to 1e-12 of the size),
 * at every scale; 1.57e-9 s of overlap is OVERLAPPING with that depth; and shapes in contact
 * are TOUCHING. The touching band was an absolute 1e-9 m, so at 1e-3 scale the 1.57e-12 m gap
 * came back TOUCHING (an error of 5e-7 of the size, and a verdict the geometry does not
 * support); it is now at most 1e-9 of the pair's size. */
static void test_verdict_relative_to_scale(void **state)
{
    (void)state;
    const double scales[3] = {1.0, 1e3, 1e-3};
    const gjk_quat q = gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 2, 3)), 0.7);
    for (int k = 0; k < 3; ++k) {
        const double s = scales[k], h = 0.5e-3 * s, size = 1e-3 * s;
        gjk_vec3 cube[8];
        for (int c = 0; c < 8; ++c) {
            cube[c] = gjk_v3(c & 1 ? h : -h, c & 2 ? h : -h, c & 4 ? h : -h);
        }
        gjk_polytope hull;
        assert_status(gjk_hull_build(&hull, cube, 8, NULL), GJK_STATUS_SEPARATED);
        /* Each shape's extent along +x (towards the other) and -x is h. */
        gjk_shape shapes[6] = {gjk_make_box(gjk_v3(h, h, h)),
                               gjk_make_sphere(h),
                               gjk_make_capsule(h, 0.5 * h),
                               gjk_make_cylinder(h, h),
                               gjk_make_polytope(&hull),
                               gjk_make_sphere(0.5 * h)};
        shapes[5].margin = 0.5 * h; /* a rounded sphere: radius and margin */
        for (int i = 0; i < 6; ++i) {
            for (int j = 0; j < 6; ++j) {
                const double gaps[3] = {1.57e-9 * s, -1.57e-9 * s, 0.0};
                for (int g = 0; g < 3; ++g) {
                    const double gap = gaps[g];
                    gjk_transform pa = pose(q, gjk_v3(0.3 * s, -0.2 * s, 0.1 * s));
                    gjk_transform pb =
                        pose(q, gjk_add(pa.p, gjk_quat_rotate(q, gjk_v3(2.0 * h + gap, 0, 0))));
                    gjk_result r = gjk_signed_distance(&shapes[i], pa, &shapes[j], pb, NULL, NULL);
                    gjk_result plain = gjk_distance(&shapes[i], pa, &shapes[j], pb, NULL, NULL);
                    gjk_status in = gjk_intersect(&shapes[i], pa, &shapes[j], pb, NULL, NULL);
                    const double tol = 1e-12 * size;
                    if (!(fabs(r.distance - gap) <= tol)) {
                        fail_msg("scale %g, shapes %d %d, gap %.17g: distance %.17g (%s)", s, i,
                                 j, gap, r.distance, gjk_status_name(r.status));
                    }
                    gjk_status want = gap > 0.0   ? GJK_STATUS_SEPARATED
                                      : gap < 0.0 ? GJK_STATUS_OVERLAPPING
                                                  : GJK_STATUS_TOUCHING;
                    if (r.status != want) {
                        fail_msg("scale %g, shapes %d %d, gap %.17g: %s (distance %.17g)", s, i,
                                 j, gap, gjk_status_name(r.status), r.distance);
                    }
                    /* Status and sign agree with the certified bounds. */
                    if (want == GJK_STATUS_SEPARATED) {
                        assert_true(r.distance > 0.0 && r.lower_bound > 0.0);
                        assert_int_equal(in, GJK_STATUS_SEPARATED);
                        assert_int_equal(plain.status, GJK_STATUS_SEPARATED);
                        assert_true(fabs(plain.distance - gap) <= tol);
                    } else if (want == GJK_STATUS_OVERLAPPING) {
                        assert_true(r.distance < 0.0 && r.upper_bound < 0.0);
                        assert_true(r.lower_bound <= r.distance);
                        assert_int_equal(in, GJK_STATUS_OVERLAPPING);
                    } else {
                        assert_int_equal(in, GJK_STATUS_OVERLAPPING);
                    }
                }
            }
        }
        gjk_polytope_destroy(&hull);
    }
    /* Within the band, TOUCHING keeps the computed distance (5e-10 m at 1 m size). */
    gjk_shape box = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_result r = gjk_signed_distance(&box, at(0, 0, 0), &box, at(1.0 + 5e-10, 0, 0), NULL, NULL);
    assert_status(r.status, GJK_STATUS_TOUCHING);
    assert_near(r.distance, 5e-10, 1e-15);
}

/* Random pairs of every kind: invariants hold, and the lower bound certifies. */
static void test_random_pairs_invariants(void **state)
{
    (void)state;
    gjk_polytope p;
    random_hull(&p, 150, 1, 0.7, 0.45);
    gjk_shape shapes[7] = {gjk_make_point(),
                           gjk_make_sphere(0.7),
                           gjk_make_capsule(0.3, 0.8),
                           gjk_make_box(gjk_v3(0.2, 0.5, 0.9)),
                           gjk_make_cylinder(0.4, 0.6),
                           gjk_make_cone(0.5, 0.7),
                           gjk_make_polytope(&p)};
    for (int k = 0; k < 2000; ++k) {
        const gjk_shape *a = &shapes[k % 7], *b = &shapes[(k / 7) % 7];
        gjk_transform ta = pose(rnd_quat(), gjk_scale(rnd_unit(), 0.3));
        gjk_transform tb = pose(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.0, 3.0)));
        gjk_result r = gjk_signed_distance(a, ta, b, tb, NULL, NULL);
        assert_true(r.status == GJK_STATUS_SEPARATED || r.status == GJK_STATUS_OVERLAPPING ||
                    r.status == GJK_STATUS_TOUCHING);
        if (r.distance != 0.0) {
            check_invariants(&r, 1e-12);
        }
        /* Support test: the witnesses lie on their shapes' supporting planes along n. */
        gjk_vec3 na = gjk_quat_inv_rotate(ta.q, r.normal), nb = gjk_quat_inv_rotate(tb.q, r.normal);
        double ha = gjk_dot(gjk_shape_support(a, na), na) + gjk_dot(ta.p, r.normal);
        double hb =
            gjk_dot(gjk_shape_support(b, gjk_neg(nb)), gjk_neg(nb)) - gjk_dot(tb.p, r.normal);
        assert_near(gjk_dot(r.point_a, r.normal), ha, 1e-9);
        assert_near(-gjk_dot(r.point_b, r.normal), hb, 1e-9);
        if (r.status == GJK_STATUS_SEPARATED) {
            /* Separation along n certifies the distance from below. */
            assert_near(-ha - hb, r.distance, 1e-9);
        }
    }
    gjk_polytope_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_sphere_exact),
        cmocka_unit_test(test_box_box),
        cmocka_unit_test(test_capsules),
        cmocka_unit_test(test_cylinder_cone_point),
        cmocka_unit_test(test_margins),
        cmocka_unit_test(test_cutoff),
        cmocka_unit_test(test_intersect),
        cmocka_unit_test(test_warm_equals_cold),
        cmocka_unit_test(test_hostile_cache_harmless),
        cmocka_unit_test(test_invalid_input),
        cmocka_unit_test(test_lengths_beyond_limit),
        cmocka_unit_test(test_pair_local_precision),
        cmocka_unit_test(test_core_support_matches_reference),
        cmocka_unit_test(test_hill_climbing_exact),
        cmocka_unit_test(test_random_pairs_invariants),
        cmocka_unit_test(test_verdict_relative_to_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
