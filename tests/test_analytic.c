/* test_analytic.c — signed distances with closed-form answers: spheres, boxes, capsules,
 * cylinders, cones, margins.
 *
 * Every answer is checked for its value, its status (SEPARATED above the contact tolerance,
 * TOUCHING within it, OVERLAPPING below), its normal when the geometry fixes one, and the
 * witness invariant point_b - point_a = distance * normal. Each case is also run with A and
 * B swapped (same distance, opposite normal) and under a common rigid motion of both poses.
 * Tolerance: the 1e-9 relative to the size of the shapes involved (1 here). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "oracle.h"

#define TOL 1e-9
#define TOUCH 1e-9      /* the default options' touch_tolerance */
#define NORMAL_TOL 1e-9 /* |normal - expected| where the geometry fixes the normal */

static const double PI = 3.14159265358979323846;
static const double SQRT2 = 1.41421356237309504880;
static const double SQRT3 = 1.73205080756887729353;

static gjk_transform at(double x, double y, double z)
{
    return gjk_transform_make(gjk_quat_identity(), gjk_v3(x, y, z));
}

static gjk_quat axis_angle(double x, double y, double z, double angle)
{
    return gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(x, y, z)), angle);
}

static gjk_transform rot_at(gjk_quat q, double x, double y, double z)
{
    return gjk_transform_make(q, gjk_v3(x, y, z));
}

/* A fixed, non-trivial rigid motion applied to both poses of a pair. */
static gjk_transform common_motion(void)
{
    return gjk_transform_make(axis_angle(0.3, -0.5, 0.8, 1.1), gjk_v3(0.7, -1.3, 2.9));
}

static gjk_status expected_status(double sd)
{
    if (sd > TOUCH)
        return GJK_STATUS_SEPARATED;
    if (sd >= -TOUCH)
        return GJK_STATUS_TOUCHING;
    return GJK_STATUS_OVERLAPPING;
}

/* One direction of the check. `normal` may be NULL (not unique); `wa`/`wb` may be NULL.
 * `line` and `how` name the case in a failure message. */
static void check_one(int line, const char *how, const gjk_shape *a, gjk_transform pa,
                      const gjk_shape *b, gjk_transform pb, double want, const gjk_vec3 *normal,
                      double normal_tol, const gjk_vec3 *wa, const gjk_vec3 *wb, double scale)
{
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_result r = gjk_signed_distance(a, pa, b, pb, &cache, NULL);
    const double t = TOL * scale;
    gjk_vec3 gap = gjk_sub(gjk_sub(r.point_b, r.point_a), gjk_scale(r.normal, r.distance));
    const char *why = NULL;
    if (r.status != expected_status(want))
        why = "status";
    else if (!(fabs(r.distance - want) <= t))
        why = "signed distance";
    else if (!(fabs(gjk_length(r.normal) - 1.0) <= 1e-12))
        why = "normal not unit";
    else if (normal && !(gjk_distance_between(r.normal, *normal) <= normal_tol))
        why = "normal";
    else if (!(gjk_length(gap) <= t))
        why = "witnesses: point_b - point_a != distance * normal";
    else if (wa && !(gjk_distance_between(r.point_a, *wa) <= t))
        why = "witness on A";
    else if (wb && !(gjk_distance_between(r.point_b, *wb) <= t))
        why = "witness on B";
    else if (r.status == GJK_STATUS_SEPARATED &&
             !(r.lower_bound <= r.distance + t && r.distance - t <= r.upper_bound))
        why = "bounds do not bracket the distance";
    if (why)
        fail_msg("case at line %d (%s, kinds %d/%d): %s\n"
                 "  want sd %.17g, got %.17g, status %s (%d GJK + %d EPA iterations)\n"
                 "  normal (%.12g %.12g %.12g) want (%.12g %.12g %.12g)\n"
                 "  point_a (%.12g %.12g %.12g) point_b (%.12g %.12g %.12g), |b - a - sd n| %.3g",
                 line, how, (int)a->kind, (int)b->kind, why, want, r.distance,
                 gjk_status_name(r.status), (int)r.iterations, (int)r.epa_iterations, r.normal.x,
                 r.normal.y, r.normal.z, normal ? normal->x : 0.0, normal ? normal->y : 0.0,
                 normal ? normal->z : 0.0, r.point_a.x, r.point_a.y, r.point_a.z, r.point_b.x,
                 r.point_b.y, r.point_b.z, gjk_length(gap));
}

/* Checks A-B, B-A and both under a common rigid motion. Normal and witnesses in the world
 * frame of the unmoved poses. */
static void check_pair_at(int line, double normal_tol, const gjk_shape *a, gjk_transform pa,
                          const gjk_shape *b, gjk_transform pb, double want, const gjk_vec3 *normal,
                          const gjk_vec3 *wa, const gjk_vec3 *wb)
{
    const double scale = 1.0;
    check_one(line, "A, B", a, pa, b, pb, want, normal, normal_tol, wa, wb, scale);
    gjk_vec3 flipped = normal ? gjk_neg(*normal) : gjk_v3(0, 0, 0);
    check_one(line, "B, A", b, pb, a, pa, want, normal ? &flipped : NULL, normal_tol, wb, wa,
              scale);

    gjk_transform m = common_motion();
    gjk_vec3 mn = normal ? gjk_quat_rotate(m.q, *normal) : gjk_v3(0, 0, 0);
    gjk_vec3 mwa = wa ? gjk_transform_point(m, *wa) : gjk_v3(0, 0, 0);
    gjk_vec3 mwb = wb ? gjk_transform_point(m, *wb) : gjk_v3(0, 0, 0);
    check_one(line, "A, B moved", a, gjk_transform_mul(m, pa), b, gjk_transform_mul(m, pb), want,
              normal ? &mn : NULL, normal_tol, wa ? &mwa : NULL, wb ? &mwb : NULL, scale + 4.0);
}
#define check_pair(...) check_pair_at(__LINE__, NORMAL_TOL, __VA_ARGS__)
/* Penetration of a curved boundary: EPA's facets fix the depth to ~1e-12 relative, but on a
 * boundary of curvature radius rho a depth exact to eps fixes the normal only to about
 * sqrt(2 eps / rho), i.e. ~1e-6 here. */
#define check_pair_curved(...) check_pair_at(__LINE__, 1e-6, __VA_ARGS__)

static gjk_vec3 vec(double x, double y, double z)
{
    return gjk_v3(x, y, z);
}

/* ------------------------------------------------------------------ spheres */

static void test_sphere_sphere(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_sphere(1.0), b = gjk_make_sphere(0.5);
    gjk_vec3 n = vec(1, 0, 0), wa = vec(1, 0, 0), wb = vec(2.5, 0, 0);
    check_pair(&a, at(0, 0, 0), &b, at(3, 0, 0), 1.5, &n, &wa, &wb);

    /* Off-axis: |(1, 2, 2)| = 3. */
    n = vec(1.0 / 3, 2.0 / 3, 2.0 / 3);
    wa = n;
    wb = gjk_scale(n, 2.5);
    check_pair(&a, at(0, 0, 0), &b, rot_at(axis_angle(1, 1, 0, 0.7), 1, 2, 2), 1.5, &n, &wa, &wb);

    /* Exactly touching, then overlapping by 0.3: B's deepest point is 0.3 inside A. */
    n = vec(1, 0, 0);
    check_pair(&a, at(0, 0, 0), &b, at(1.5, 0, 0), 0.0, &n, NULL, NULL);
    wa = vec(1, 0, 0);
    wb = vec(0.7, 0, 0);
    check_pair(&a, at(0, 0, 0), &b, at(1.2, 0, 0), -0.3, &n, &wa, &wb);

    /* Tiny against huge: 1e-3 sphere 0.5 from a 1e3 sphere. */
    gjk_shape tiny = gjk_make_sphere(1e-3), huge = gjk_make_sphere(1e3);
    n = vec(0, 0, 1);
    check_pair(&huge, at(0, 0, 0), &tiny, at(0, 0, 1e3 + 0.5 + 1e-3), 0.5, &n, NULL, NULL);
}

static void test_sphere_box(void **state)
{
    (void)state;
    gjk_shape box = gjk_make_box(vec(1, 2, 3));
    gjk_transform tb = rot_at(axis_angle(0.2, 0.9, -0.4, 0.8), 0.5, -0.25, 1.0);
    struct {
        gjk_vec3 centre; /* sphere centre in the box frame */
        double radius;
        double sd;
        gjk_vec3 normal; /* box frame */
        gjk_vec3 wa;     /* closest point on the box, box frame */
    } rows[] = {
        {{1.75, 0.3, -0.7}, 0.5, 0.25, {1, 0, 0}, {1, 0.3, -0.7}},                 /* face region */
        {{1.3, 2.4, 0.1}, 0.2, 0.3, {0.6, 0.8, 0}, {1, 2, 0.1}},                   /* edge region */
        {{-1.2, 2.3, -3.6}, 0.1, 0.6, {-2.0 / 7, 3.0 / 7, -6.0 / 7}, {-1, 2, -3}}, /* corner */
        {{0.8, 0.0, 0.0}, 0.5, -0.7, {1, 0, 0}, {1, 0, 0}},      /* centre inside */
        {{0.0, -2.0, 1.0}, 0.25, -0.25, {0, -1, 0}, {0, -2, 1}}, /* centre on a face */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        gjk_shape s = gjk_make_sphere(rows[i].radius);
        gjk_vec3 n = gjk_quat_rotate(tb.q, rows[i].normal);
        gjk_vec3 wa = gjk_transform_point(tb, rows[i].wa);
        gjk_vec3 c = gjk_transform_point(tb, rows[i].centre);
        gjk_vec3 wb = gjk_madd(c, -rows[i].radius, n);
        check_pair(&box, tb, &s, at(c.x, c.y, c.z), rows[i].sd, &n, &wa, &wb);
    }
}

/* ------------------------------------------------------------------ boxes */

static gjk_quat corner_down(void)
{
    /* Rotates (1, 1, 1)/sqrt 3 onto (0, 0, -1): a cube corner points straight down. */
    return axis_angle(-1, 1, 0, acos(-1.0 / SQRT3));
}

static void test_box_box(void **state)
{
    (void)state;
    gjk_shape big = gjk_make_box(vec(1, 1, 1)), small = gjk_make_box(vec(0.5, 0.5, 0.5));
    gjk_quat q = axis_angle(0.4, -0.3, 0.2, 0.9);
    gjk_vec3 ex = gjk_quat_rotate(q, vec(1, 0, 0));

    /* Face to face with the same rotation, apart by 0.1, then overlapping by 0.1. */
    gjk_vec3 off = gjk_quat_rotate(q, vec(1.6, 0.2, -0.3));
    check_pair(&big, rot_at(q, 0, 0, 0), &small, rot_at(q, off.x, off.y, off.z), 0.1, &ex, NULL,
               NULL);
    off = gjk_quat_rotate(q, vec(1.4, 0.2, -0.3));
    check_pair(&big, rot_at(q, 0, 0, 0), &small, rot_at(q, off.x, off.y, off.z), -0.1, &ex, NULL,
               NULL);
    /* Exactly touching faces. */
    check_pair(&big, at(0, 0, 0), &small, at(0.2, 0.1, 1.5), 0.0, NULL, NULL, NULL);

    /* Edge on edge: A rotated 45 degrees about x (lowest edge along x at z_A - sqrt 2),
     * B rotated 45 degrees about y (highest edge along y at sqrt 2). */
    gjk_quat qa = axis_angle(1, 0, 0, PI / 4), qb = axis_angle(0, 1, 0, PI / 4);
    gjk_vec3 down = vec(0, 0, -1);
    gjk_vec3 wa = vec(0, 0, SQRT2 + 0.3), wb = vec(0, 0, SQRT2);
    check_pair(&big, rot_at(qa, 0, 0, 2 * SQRT2 + 0.3), &big, rot_at(qb, 0, 0, 0), 0.3, &down, &wa,
               &wb);
    check_pair(&big, rot_at(qa, 0, 0, 2 * SQRT2 - 0.1), &big, rot_at(qb, 0, 0, 0), -0.1, &down,
               NULL, NULL);

    /* Vertex on face: B's corner 0.2 above A's top face. */
    gjk_vec3 up = vec(0, 0, 1);
    wa = vec(0.1, -0.2, 1.0);
    wb = vec(0.1, -0.2, 1.2);
    check_pair(&big, at(0, 0, 0), &small, rot_at(corner_down(), 0.1, -0.2, 1.2 + 0.5 * SQRT3), 0.2,
               &up, &wa, &wb);
    /* ... and pushed 0.05 into it. */
    check_pair(&big, at(0, 0, 0), &small, rot_at(corner_down(), 0.1, -0.2, 0.95 + 0.5 * SQRT3),
               -0.05, &up, NULL, NULL);

    /* A box given as a polytope answers like the box. */
    gjk_vec3 corners[8];
    for (int i = 0; i < 8; ++i)
        corners[i] = vec(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    gjk_polytope poly;
    ORACLE_ASSERT_STATUS(gjk_polytope_create(&poly, corners, 8, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape cube = gjk_make_polytope(&poly);
    wa = vec(0, 0, SQRT2 + 0.3);
    wb = vec(0, 0, SQRT2);
    check_pair(&cube, rot_at(qa, 0, 0, 2 * SQRT2 + 0.3), &big, rot_at(qb, 0, 0, 0), 0.3, &down, &wa,
               &wb);
    check_pair(&cube, at(0, 0, 0), &small, rot_at(corner_down(), 0.1, -0.2, 0.95 + 0.5 * SQRT3),
               -0.05, &up, NULL, NULL);
    gjk_polytope_destroy(&poly);
}

/* ------------------------------------------------------------------ capsules */

static void test_capsule_capsule(void **state)
{
    (void)state;
    gjk_shape c = gjk_make_capsule(0.5, 1.0);
    gjk_quat along_x = axis_angle(0, 1, 0, PI / 2), along_y = axis_angle(1, 0, 0, PI / 2);
    gjk_vec3 n;

    /* Parallel, side by side (the closest points are not unique). */
    n = vec(1, 0, 0);
    check_pair(&c, at(0, 0, 0), &c, at(1.5, 0, 0.3), 0.5, &n, NULL, NULL);
    /* Parallel, end to end. */
    n = vec(0, 0, 1);
    gjk_vec3 wa = vec(0, 0, 1.5), wb = vec(0, 0, 1.7);
    check_pair(&c, at(0, 0, 0), &c, at(0, 0, 3.2), 0.2, &n, &wa, &wb);
    /* Skew: B along x, 1.5 away along y. */
    n = vec(0, 1, 0);
    wa = vec(0, 0.5, 0.5);
    wb = vec(0, 1.0, 0.5);
    check_pair(&c, at(0, 0, 0), &c, rot_at(along_x, 0.2, 1.5, 0.5), 0.5, &n, &wa, &wb);
    /* Skew at an angle: B along y above A's top end: closest points A(0,0,1), B(0.3,0,2). */
    n = gjk_normalize(vec(0.3, 0, 1.0));
    check_pair(&c, at(0, 0, 0), &c, rot_at(along_y, 0.3, 0.1, 2.0), sqrt(1.09) - 1.0, &n, NULL,
               NULL);
    /* Crossing axes: the segments meet, depth = ra + rb along +-y (not unique in sign). */
    {
        gjk_cache cache;
        memset(&cache, 0, sizeof cache);
        gjk_result r =
            gjk_signed_distance(&c, at(0, 0, 0), &c, rot_at(along_x, 0.2, 0, 0.5), &cache, NULL);
        ORACLE_ASSERT_STATUS(r.status, GJK_STATUS_OVERLAPPING);
        ORACLE_ASSERT_NEAR(r.distance, -1.0, TOL);
        ORACLE_ASSERT_NEAR(fabs(r.normal.y), 1.0, 1e-9);
    }
    /* Parallel and overlapping by 0.4. */
    n = vec(1, 0, 0);
    check_pair(&c, at(0, 0, 0), &c, at(0.6, 0, 0.3), -0.4, &n, NULL, NULL);
    /* Different radii and lengths, generic poses, against the oracle's segment formula. */
    gjk_shape d = gjk_make_capsule(0.25, 0.4);
    gjk_transform pa = rot_at(axis_angle(1, 2, 3, 0.6), 0.1, 0.2, 0.3);
    gjk_transform pb = rot_at(axis_angle(-2, 1, 0.5, 1.9), 1.2, -0.4, 0.9);
    double want = (double)oracle_capsule_capsule(pa, 0.5, 1.0, pb, 0.25, 0.4);
    check_pair(&c, pa, &d, pb, want, NULL, NULL, NULL);
}

/* ------------------------------------------------------------------ cylinders and cones */

static void test_cylinder(void **state)
{
    (void)state;
    gjk_shape cyl = gjk_make_cylinder(0.5, 1.0), box = gjk_make_box(vec(1, 1, 1));
    gjk_vec3 down = vec(0, 0, -1);
    /* Flat cap 0.3 above a box's top face. */
    check_pair(&cyl, at(0.1, 0.2, 2.3), &box, at(0, 0, 0), 0.3, &down, NULL, NULL);
    /* Lying on its side (axis along y), 0.25 above the face. */
    check_pair(&cyl, rot_at(axis_angle(1, 0, 0, PI / 2), 0.2, 0, 1.75), &box, at(0, 0, 0), 0.25,
               &down, NULL, NULL);
    gjk_vec3 wa;

    /* Against spheres, in a rotated frame: beside the mantle and near the rim. */
    gjk_shape unit = gjk_make_cylinder(1.0, 1.0);
    gjk_transform t = rot_at(axis_angle(0.3, 0.2, 0.9, 2.2), 0.4, 0.5, -0.6);
    gjk_shape s = gjk_make_sphere(0.5);
    gjk_vec3 c = gjk_transform_point(t, vec(2, 1, 0.3));
    gjk_vec3 n = gjk_quat_rotate(t.q, gjk_normalize(vec(2, 1, 0)));
    check_pair(&unit, t, &s, at(c.x, c.y, c.z), sqrt(5.0) - 1.5, &n, NULL, NULL);
    gjk_shape s2 = gjk_make_sphere(0.2);
    c = gjk_transform_point(t, vec(1.3, 0, 1.4));
    n = gjk_quat_rotate(t.q, vec(0.6, 0, 0.8));
    wa = gjk_transform_point(t, vec(1, 0, 1));
    check_pair(&unit, t, &s2, at(c.x, c.y, c.z), 0.3, &n, &wa, NULL);
    /* Sphere centre inside, nearer the mantle (0.2) than the caps (0.5): depth 0.2 + r. */
    c = gjk_transform_point(t, vec(0, 0.8, 0.5));
    n = gjk_quat_rotate(t.q, vec(0, 1, 0));
    check_pair_curved(&unit, t, &s2, at(c.x, c.y, c.z), -0.4, &n, NULL, NULL);
}

static void test_cone(void **state)
{
    (void)state;
    gjk_shape cone = gjk_make_cone(1.0, 1.0);
    gjk_transform t = rot_at(axis_angle(-0.5, 0.7, 0.1, 0.75), -0.3, 0.2, 0.1);
    gjk_vec3 c, n, wa;

    /* Apex 0.5 below a sphere on the axis. */
    gjk_shape s = gjk_make_sphere(0.25);
    c = gjk_transform_point(t, vec(0, 0, 1.75));
    n = gjk_quat_rotate(t.q, vec(0, 0, 1));
    wa = gjk_transform_point(t, vec(0, 0, 1));
    check_pair(&cone, t, &s, at(c.x, c.y, c.z), 0.5, &n, &wa, NULL);
    /* Base disk 0.4 above a box's top face. */
    gjk_shape box = gjk_make_box(vec(1, 1, 1));
    gjk_vec3 down = vec(0, 0, -1);
    check_pair(&cone, at(0.2, 0.1, 0), &box, at(0, 0, -2.4), 0.4, &down, NULL, NULL);
    /* Off the middle of the slant: the slant runs from the rim (1, 0, -1) to the apex
     * (0, 0, 1); its outward normal in the xz plane is (2, 0, 1)/sqrt 5. */
    gjk_shape s2 = gjk_make_sphere(0.2);
    gjk_vec3 nl = gjk_normalize(vec(2, 0, 1));
    c = gjk_transform_point(t, gjk_madd(vec(0.5, 0, 0), 0.5, nl));
    n = gjk_quat_rotate(t.q, nl);
    wa = gjk_transform_point(t, vec(0.5, 0, 0));
    check_pair(&cone, t, &s2, at(c.x, c.y, c.z), 0.3, &n, &wa, NULL);
    /* Below the rim diagonally: closest point is the rim point (1, 0, -1). */
    c = gjk_transform_point(t, vec(1.3, 0, -1.4));
    n = gjk_quat_rotate(t.q, vec(0.6, 0, -0.8));
    wa = gjk_transform_point(t, vec(1, 0, -1));
    check_pair(&cone, t, &s2, at(c.x, c.y, c.z), 0.3, &n, &wa, NULL);
}

/* ------------------------------------------------------------------ margins */

static void test_margins(void **state)
{
    (void)state;
    gjk_shape rounded = gjk_make_box(vec(1, 1, 1)), plain = gjk_make_box(vec(1, 1, 1));
    rounded.margin = 0.1;
    gjk_vec3 n = vec(1, 0, 0);
    /* Faces: the margin simply shifts the face. */
    check_pair(&rounded, at(0, 0, 0), &plain, at(2.5, 0.3, 0), 0.4, &n, NULL, NULL);
    /* Corner region: the rounded corner is a sphere of radius 0.1 about the box corner. */
    gjk_vec3 g = vec(0.3, 0.4, 0.6);
    n = gjk_normalize(g);
    gjk_vec3 wa = gjk_madd(vec(1, 1, 1), 0.1, n), wb = vec(1.3, 1.4, 1.6);
    check_pair(&rounded, at(0, 0, 0), &plain, at(2.3, 2.4, 2.6), gjk_length(g) - 0.1, &n, &wa, &wb);
    /* Edge region: the rounded edge is a cylinder of radius 0.1. */
    n = vec(0.6, 0.8, 0);
    check_pair(&rounded, at(0, 0, 0), &plain, at(2.3, 2.4, 0.5), 0.4, &n, NULL, NULL);
    /* Cores 0.05 apart, margins overlap by 0.05. */
    n = vec(1, 0, 0);
    check_pair(&rounded, at(0, 0, 0), &plain, at(2.05, 0, 0), -0.05, &n, NULL, NULL);
    /* Cores overlapping by 0.1 plus the margin. */
    check_pair(&rounded, at(0, 0, 0), &plain, at(1.9, 0.2, 0.1), -0.2, &n, NULL, NULL);

    /* Both inflated: sphere 0.5 + 0.25 and a point with margin 0.3 (a sphere) 2 away. */
    gjk_shape s = gjk_make_sphere(0.5), p = gjk_make_point();
    s.margin = 0.25;
    p.margin = 0.3;
    n = gjk_normalize(vec(1, -1, 1));
    gjk_vec3 cb = gjk_scale(n, 2.0);
    check_pair(&s, at(0, 0, 0), &p, at(cb.x, cb.y, cb.z), 2.0 - 0.75 - 0.3, &n, NULL, NULL);

    /* A polytope with a margin against a capsule with a margin: exact Minkowski sums. */
    gjk_vec3 corners[8];
    for (int i = 0; i < 8; ++i)
        corners[i] = vec(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    gjk_polytope poly;
    ORACLE_ASSERT_STATUS(gjk_polytope_create(&poly, corners, 8, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape cube = gjk_make_polytope(&poly);
    cube.margin = 0.05;
    gjk_shape cap = gjk_make_capsule(0.2, 0.5);
    cap.margin = 0.1;
    n = vec(0, 0, 1);
    /* Capsule upright above the top face: its lowest point is 0.5 + 0.2 + 0.1 below its centre. */
    check_pair(&cube, at(0, 0, 0), &cap, at(0.3, 0.3, 1 + 0.05 + 0.4 + 0.8), 0.4, &n, NULL, NULL);
    gjk_polytope_destroy(&poly);

    /* Point against a box: the point-box distance, inside and out. */
    gjk_shape pt = gjk_make_point();
    oracle_v3 h = {1, 2, 3};
    gjk_vec3 where[] = {{1.5, 2.5, 0}, {0.5, 0.5, 0.5}, {-2, 3, 4}, {0, 0, 2.9}};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; ++i) {
        gjk_shape box = gjk_make_box(vec(1, 2, 3));
        double want = (double)oracle_point_box_signed(oracle_v3_from(where[i]), h);
        check_pair(&box, at(0, 0, 0), &pt, at(where[i].x, where[i].y, where[i].z), want, NULL, NULL,
                   NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_sphere), cmocka_unit_test(test_sphere_box),
        cmocka_unit_test(test_box_box),       cmocka_unit_test(test_capsule_capsule),
        cmocka_unit_test(test_cylinder),      cmocka_unit_test(test_cone),
        cmocka_unit_test(test_margins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
