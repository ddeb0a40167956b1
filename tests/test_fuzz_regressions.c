/* test_fuzz_regressions.c — minimal reproducers of what the fuzzers (fuzz/) found.
 *
 * Each test is one finding, reduced by hand from the crashing input to the values that
 * matter (hex floats where every bit counts). Each comment says what went wrong, where,
 * and what a fix looks like. The tests assert the contract, so they fail until the code
 * is fixed; the harnesses skip the same cases (marked KNOWN FINDING there) so fuzzing can
 * go on meanwhile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gjk/gjk.h"

#include "../core/src/internal.h"

#define assert_le(a, b)                                                                            \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(a_ <= b_)) {                                                                         \
            print_error("%s = %.17g > %s = %.17g\n", #a, a_, #b, b_);                              \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* Support value of a placed shape along world direction u (unit), from the reference map. */

/* Findings not fixed yet (open in the issue tracker; the fuzz harnesses skip their signature,
 * marked KNOWN FINDING): the test is reported as skipped unless GJK_RUN_OPEN_FINDINGS is set,
 * so the reproducer stays one command away: GJK_RUN_OPEN_FINDINGS=1 tests/test_fuzz_regressions */
#define OPEN_FINDING()                                                                             \
    do {                                                                                           \
        if (getenv("GJK_RUN_OPEN_FINDINGS") == NULL)                                               \
            skip();                                                                                \
    } while (0)

static double h_world(const gjk_shape *s, gjk_transform t, gjk_vec3 u)
{
    gjk_quat q = gjk_quat_normalize(t.q);
    gjk_vec3 ul = gjk_quat_inv_rotate(q, u);
    return gjk_dot(ul, gjk_shape_support(s, ul)) + gjk_dot(u, t.p);
}

/* f(u) = -h_A(u) - h_B(-u): the separation along u. The signed distance is its maximum. */
static double separation(const gjk_shape *a, gjk_transform ta, const gjk_shape *b, gjk_transform tb,
                         gjk_vec3 u)
{
    return -h_world(a, ta, u) - h_world(b, tb, gjk_neg(u));
}

/* How far the answer's witnesses are from the documented identity pb - pa = d n. */
static double identity_gap(const gjk_result *r)
{
    return gjk_length(gjk_sub(gjk_sub(r->point_b, r->point_a), gjk_scale(r->normal, r->distance)));
}

/* Neither witness lies beyond its shape by more than tol along any of the n directions. */
static void assert_witnesses_on_shapes(const gjk_shape *a, gjk_transform ta, const gjk_shape *b,
                                       gjk_transform tb, const gjk_result *r,
                                       const gjk_vec3 *dirs, size_t n, double tol)
{
    for (size_t k = 0; k < n; ++k) {
        assert_le(gjk_dot(dirs[k], r->point_a) - h_world(a, ta, dirs[k]), tol);
        assert_le(gjk_dot(dirs[k], r->point_b) - h_world(b, tb, dirs[k]), tol);
    }
}

/* Signed distance cold with a fresh cache, then warm from what the cold query left in it. */
static void cold_then_warm(const gjk_shape *a, gjk_transform ta, const gjk_shape *b,
                           gjk_transform tb, gjk_result *cold, gjk_result *warm)
{
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    *cold = gjk_signed_distance(a, ta, b, tb, &cache, NULL);
    *warm = gjk_signed_distance(a, ta, b, tb, &cache, NULL);
}

/* The pose the fuzz harness's "exact" rotations often give B: w = 0.9999991, normalised to
 * the identity by the query, at the origin. */
static gjk_transform nearly_identity(void)
{
    return gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), gjk_v3(0, 0, 0));
}

/* A (at the identity) against the polytope of the n points v (at nearly_identity), cold then
 * warm; *short_cold, *short_warm: how far each answer's distance exceeds the separation
 * along its own normal (the answer is realised by its normal when this is <= 0). */
typedef struct cold_warm {
    gjk_result cold, warm;
    double short_cold, short_warm;
} cold_warm;

static cold_warm against_polytope(gjk_shape a, const gjk_vec3 *v, int32_t n)
{
    gjk_polytope poly;
    cold_warm r;
    memset(&r, 0, sizeof r);
    assert_int_equal(gjk_polytope_create(&poly, v, n, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape b = gjk_make_polytope(&poly);
    gjk_transform ta = gjk_transform_identity(), tb = nearly_identity();
    cold_then_warm(&a, ta, &b, tb, &r.cold, &r.warm);
    r.short_cold = r.cold.distance - separation(&a, ta, &b, tb, r.cold.normal);
    r.short_warm = r.warm.distance - separation(&a, ta, &b, tb, r.warm.normal);
    gjk_polytope_destroy(&poly);
    return r;
}

static double climb_vs_scan(const gjk_polytope *p, gjk_vec3 d, uint32_t hint)
{
    gjk_shape s = gjk_make_polytope(p);
    uint32_t i_scan, i_hill;
    gjk_vec3 scan = gjk_core_support(&s, d, false, 0, &i_scan);
    gjk_vec3 hill = gjk_core_support(&s, d, true, hint, &i_hill);
    return gjk_dot(scan, d) - gjk_dot(hill, d);
}

/* The largest shortfall of hill climbing against the scan along d, over every start. */
static double worst_climb_vs_scan(const gjk_polytope *p, gjk_vec3 d)
{
    double worst = 0.0;
    for (uint32_t hint = 0; hint < (uint32_t)p->count; ++hint) {
        worst = fmax(worst, climb_vs_scan(p, d, hint));
    }
    return worst;
}

/* hull.c, degenerate clouds (fuzz_hull). A triangle plus a near-copy of one corner moved
 * 1e-12 of the size off its plane is "flat within the tolerance" (dimension 2), and the
 * hull's adjacency is the polygon cycle v0-v2-v1-v3. But the vertices are not coplanar,
 * and along a direction with a component off the plane v1 beats its neighbours v2 and v3
 * (its near-twin, slightly behind it) while v0, not adjacent, is far better: hill climbing
 * from v1 stops with a support value 1.03e9 short on a 1.1e9-wide triangle.
 * Fix (hull.c): for clouds flat only within the tolerance, either give no adjacency (the
 * scan is exact and such polytopes are small), or merge polygon vertices closer than the
 * flatness tolerance so that no edge is shorter than the off-plane error. */
static void test_hull_flat_within_tolerance_climb(void **state)
{
    (void)state;
    gjk_vec3 pts[4] = {
        {-0x1.fefbfefbfefcp+29, -0x1p+30, -0x1p+30},
        {0x1.06c306c306c3p+29, -0x1p+30, -0x1p+30},
        {0x1.2003200320032p+29, -0x1.03e903e903e9p+27, 0x1.a367a367a367ap+29},
        {0x1.06c306c3057ep+29, -0x1.fffffffffebbp+29, -0x1.0000000000a28p+30},
    };
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, 4, &info), GJK_STATUS_SEPARATED);
    gjk_vec3 d = gjk_v3(-0.63423774369320352, -0.77312025322859856, -0.0052496211960491581);
    double worst = worst_climb_vs_scan(&p, d);
    gjk_polytope_destroy(&p);
    assert_le(worst, 0.0);
}

/* support.c, polytope_climb (fuzz_hull). Hill climbing compares absolute dots x_j . d. On
 * a polytope 2.4e4 m from its own origin and 0.008 m wide, vertices v0 and v1 lie 4.5e-15
 * apart; their dots along d round to the same value, and the plateau rule (move to an
 * equal neighbour only if its index is lower) keeps the climb at v0, whose neighbours are
 * all worse, although v1's neighbour v4 is 1.5e-3 better (20% of the width).
 * Fix (support.c): compare neighbours by (x_j - x_cur) . d, which is exact-ish for nearby
 * vertices (the coordinate differences are exact by Sterbenz), so near-twins no longer tie. */
static void test_climb_stuck_on_rounding_plateau(void **state)
{
    (void)state;
    gjk_vec3 pts[5] = {
        {-0x1.7259782970297p+14, -0x1p-7, 0x1.a4d1a4d1a4d2p-11},
        {-0x1.7259782970297p+14, -0x1.0000000000a3cp-7, 0x1.a4d1a4d1a23c1p-11},
        {-0x1.72597a55f255fp+14, 0.0, 0.0},
        {-0x1.72597360fb61p+14, -0x1p-7, -0x1p-7},
        {-0x1.72597a5972597p+14, -0x1p-7, -0x1p-7},
    };
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, pts, 5, NULL), GJK_STATUS_SEPARATED);
    gjk_vec3 d = gjk_v3(-0.70710678118654746, -0.70710678118654746, 0.0);
    double worst = worst_climb_vs_scan(&p, d);
    gjk_polytope_destroy(&p);
    assert_le(worst, 0.0);
}

/* hull.c (fuzz_hull, after the first-improvement climb landed). Nine hull vertices in
 * three near-twin pairs (1e-12 of the 7.5e-9 extent apart). Along d, vertex 5's neighbours
 * are all worse than it in exact arithmetic (v7 by 2.9e-25), yet v6 is better by 9.6e-13
 * (1.3e-4 of the extent) and v8, not adjacent to v5, by 5.8e-25: qhull's graph over the
 * near-twins is not the exact skeleton of the hull, so hill climbing can stop at a local
 * maximum. Found through the whole 320-point cloud; checked here on its hull's vertices.
 * Fix (hull.c): merge points closer than the flatness tolerance (1e-9 of the extent) before
 * qhull, keeping the first of each cluster; hill climbing is then exact to that tolerance.
 * Together with the rounding-plateau case above, support.c's comparison of differences. */
static void test_hull_near_twins_climb(void **state)
{
    (void)state;
    gjk_vec3 pts[9] = {
        {-0x1.556b6a2beab26p-28, 0x1.0a15b2f2a983cp-28, -0x1.9aadcbca0abcp-28},
        {-0x1.556b6a2bebf76p-28, 0x1.0a15b2f2aac8cp-28, -0x1.9aadcbca0977p-28},
        {0x1.e9bdc03cbf2fcp-29, -0x1.73accacfd43ecp-28, -0x1.9aadcbca0abcp-28},
        {-0x1.f60c0acc9067p-28, -0x1.2ad881fb86564p-28, -0x1.f70a282662046p-28},
        {0x1.e9bdc03cbca5cp-29, -0x1.73accacfd52cbp-28, -0x1.9aadcbca0977p-28},
        {0x1.aa2f94e0999d9p-30, 0x1.1c158ca8fd36ap-29, 0x1.a6371f792a88p-30},
        {-0x1.b1c7c688470ecp-28, -0x1.7648cd6bd6dacp-28, -0x1.9aadcbca0abcp-28},
        {0x1.aa2f94e094897p-30, 0x1.1c158ca8ffc0cp-29, 0x1.a6371f792f9c2p-30},
        {-0x1.2934339473d7bp-27, -0x1.1774c30647bdcp-27, -0x1.29b3424161ba6p-27},
    };
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, pts, 9, NULL), GJK_STATUS_SEPARATED);
    gjk_vec3 d = gjk_v3(0.0, -0.70710678118654746, 0.70710678118654746);
    double worst = worst_climb_vs_scan(&p, d);
    gjk_polytope_destroy(&p);
    assert_le(worst, 0.0);
}

/* hull.c (fuzz_hull, fuzz/fixed/fuzz_hull-crash-5d7fe3...). Eleven vertices of a 2e9 m
 * hull and v0, 8.7e-4 m (4e-13 of the extent) off the hull's edge v1-v2 along the z axis.
 * qhull keeps v0 as a vertex with only three neighbours (v1, v2, v4): along (1, 1, 0) all
 * three are no better than v0 (v1 and v2 tie at 0), so hill climbing from v0 stops there,
 * while v8 reaches 3.8e6 m. qhull's graph around a vertex that close to the hull of the
 * others is not the skeleton of the hull. Fix (hull.c): a hull vertex within the flatness
 * tolerance of the hull of its neighbours is dropped (the hull moves by less than that
 * tolerance) and qhull runs again on the rest. */
static void test_hull_vertex_near_edge_climb(void **state)
{
    (void)state;
    gjk_vec3 pts[12] = {
        {-0x1.4504f15031972p-11, 0x1.4504f15031972p-11, 0x1.4504f15031972p-11},
        {0x0p+0, 0x0p+0, -0x1p+30},
        {0x0p+0, 0x0p+0, 0x1.4403440344034p+29},
        {-0x1.000300030003p+29, -0x1p+30, -0x1p+30},
        {-0x1p+30, 0x1.fd05fd05fd06p+28, -0x1p+30},
        {-0x1p+30, 0x1.000500050005p+28, -0x1.102110211021p+25},
        {-0x1.4747474747474p+29, -0x1.4747474747474p+29, 0x1.fcbbfcbbfcbcp+29},
        {-0x1p+30, -0x1p+30, 0x1.fd05fd05fd06p+28},
        {0x1.4747474747474p+29, -0x1.44b344b344b34p+29, -0x1.4747474747474p+29},
        {-0x1.6041f3c0f2a7dp+25, -0x1.b8a32ac167bd4p+25, 0x1.7f7f7f7f7f7f8p+29},
        {0x1.0c7b0c7b0c7bp+29, -0x1.ff23ff23ff24p+29, -0x1p+30},
        {-0x1p+30, -0x1p+30, -0x1p+30},
    };
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, 12, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 3);
    assert_non_null(p.adj_start); /* the fix is not "no adjacency" */
    double worst = worst_climb_vs_scan(&p, gjk_v3(0.70710678118654746, 0.70710678118654746, 0.0));
    /* And the hull still holds v0: within the flatness tolerance (1e-9 of 2.1e9 m). */
    gjk_shape point = gjk_make_point(), hull = gjk_make_polytope(&p);
    gjk_result r = gjk_distance(&point, gjk_transform_make(gjk_quat_identity(), pts[0]), &hull,
                                gjk_transform_identity(), NULL, NULL);
    gjk_polytope_destroy(&p);
    assert_le(worst, 0.0);
    assert_true(r.distance <= 2.2);
}

/* epa.c (fuzz_gjk, on a seed that passed before the newest epa/engine merge). A flat cone
 * (disk of radius 184 m, 0.0002 m high) and a 5e-8 m cone at the same place, both turned a
 * quarter about y: the depth came out 5e-4 shallow and the witness on B on A's rim, 151 m
 * outside B (witness on A fine). Cause: EPA's polytope is convex only to rounding on D's
 * flat base. A base face (centre, two rim points) that a new rim vertex was 5e-13 above was
 * kept as coplanar (the visibility test allows 16 ulps of the 369 m scale), and the new face
 * of three rim points next to it took a plane that the base centre lies 1e-7 above (5e-10
 * rad over the 184 m lever arm). Its support point was that vertex, and "the support point
 * is already a vertex" was taken as convergence with the gap 1e-7 open; the answer came
 * from that face, whose projected origin lies 184 m from its triangle. Fix (epa.c): a known
 * support point above the face by more than the rounding of the face's plane spends the
 * face (it is never taken as the nearest face again) instead of ending EPA. EPA now stops
 * at CAPACITY_LIMIT (the cone's side is a ring of normals) with the depth within 1e-5. */
static void test_epa_witness_far_outside_small_shape(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(184.47058823529412, 0.00020178823529411763);
    gjk_shape b = gjk_make_cone(5.1653696498054469e-08, 5.1470588235294112e-08);
    gjk_vec3 p = gjk_v3(1.2705776615838338, 1.2705776615838338, -0.0036658716512516848);
    gjk_transform ta =
        gjk_transform_make(gjk_quat_make(0.70710678118654757, 0, 0.70710678118654757, 0), p);
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.70710714805018349, 0, 0.70710714805018349, 0), p);
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    assert_true(r.distance < 0.0);
    /* The witness on B lies in B: its support value bounds it along every axis. */
    for (int k = 0; k < 6; ++k) {
        gjk_vec3 u = gjk_v3(k % 3 == 0, k % 3 == 1, k % 3 == 2);
        u = k < 3 ? u : gjk_neg(u);
        assert_le(gjk_dot(u, r.point_b), h_world(&b, tb, u) + 1e-9);
    }
}

/* query.c / gjk.c, the normal at exact contact (fuzz_gjk, "moved to touch"). A box that is
 * a 0.86 m segment (1e-7 thick) touching a 7-vertex polytope (B moved along the normal of
 * an earlier answer until they touch): the distance is 5e-14, TOUCHING, but the normal is
 * the direction of GJK's v at |v| ~ 5e-14, i.e. of rounding: the separation along it is
 * -5.6 m (the polytope is 64 m wide), so it is nowhere near the contact's normal cone.
 * Optimizers take gradients from this normal at contact.
 * Fix (query.c / gjk.c): when |v| is below the rounding scale of the simplex, take the normal
 * from the simplex's geometry (the closest feature's normal: the triangle's normal, or the
 * edge-edge cross product) or run EPA on the cores as for a contact; "contact when |v| is
 * below the rounding of the simplex's own vertices" (7612125) does not catch this case. */
static void test_normal_at_exact_contact(void **state)
{
    (void)state;
    gjk_vec3 pts[7] = {
        {-0x0.0000000000002p-1022, 0.0, 0.0},
        {-0x1.8763876387638p+5, -0x1.fc9ffc9ffcap+5, -0x1.3bff3bff3bff4p+5},
        {0x1.2851aae84f522p+5, 0x1.2851aae84f522p+5, 0x1.262ab0e78d5dep+5},
        {-0x1.2763c28dd6eefp+5, -0x1.27db737183bc5p+5, -0x1.2774623baeefp+5},
        {0x1.6363636363636p+5, -0x1.fbfffbfffcp+5, -0x1.bbbbbbbbbbbbcp+5},
        {0.0, 0.0, -0x1p+6},
        {0x1.6363636363636p+5, -0x1.bbbbbbbbbbbbcp+5, -0x1.bbbbbbbbbbbbcp+5},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, pts, 7, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a =
        gjk_make_box(gjk_v3(1.4254978255893795e-07, 0.4289234760051881, 1.3333333333333334e-07));
    gjk_shape b = gjk_make_polytope(&poly);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(-0.043943748239914975, 0.60564743236652563,
                                                        0.59618404683599502, -0.52519017218215136),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.70710678118654757, 0, 0, 0.70710678118654757),
                           gjk_v3(0.28995104810016414, -0.12235755243332846, 63.708568417400365));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    double short_by = r.distance - separation(&a, ta, &b, tb, r.normal);
    gjk_polytope_destroy(&poly);
    assert_true(fabs(r.distance) <= 1e-9);
    /* Within the contact's normal cone the separation along n is the distance (0 here);
     * allow 1e-6 of the pair's 64 m. */
    assert_le(short_by, 64e-6);
}

/* gjk.c, warm start (fuzz_gjk). A square plate (box 268.8 x 267.8 x 0) and a 1.3e-6 m cone
 * centred in its plane overlap by the cone's half height: the cold query says so (EPA,
 * depth 1.32e-6, normal +z). Run again at the same poses from the cache it wrote, GJK
 * reports SEPARATED at +1.32e-6 with witnesses at the plate's centre and the cone's apex:
 * the sign is wrong, and the separation along the reported normal is -1.32e-6. Its bounds
 * are [0, 1.32e-6]: GJK left through an exit that does not look at the duality gap (the
 * duplicate-support test in_simplex, which compares feature indices, or "no progress").
 * Fix (gjk.c): accept those exits as convergence only when the gap is within tolerance;
 * otherwise restart cold (the warm simplex came from a cache, its features may repeat
 * points: a flat box's corners with z = +-0 are distinct indices of one point). */
static void test_warm_start_wrong_sign(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(268.80000000000001, 267.79607843137256, 0.0));
    gjk_shape b = gjk_make_cone(1.5703974975204087e-06, 1.3203021286335546e-06);
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb = nearly_identity();
    gjk_result cold, warm;
    cold_then_warm(&a, ta, &b, tb, &cold, &warm);
    assert_true(cold.distance < 0.0);
    assert_le(fabs(warm.distance - cold.distance), 1e-12);
}

/* epa.c, warm start (fuzz_gjk). A plate 2.6e-9 thick (margin 7.8e-9) and a disk of radius
 * 2.2e-7 standing across it overlap by 2.3e-7: the cold query finds that depth; the warm
 * query from its cache ended EPA with core depth 0 and reported -7.8e-9 (the margin alone),
 * 30 times too shallow. Cause: a new face folded over (its plane distance -2.2e-7, the
 * nearest face from then on), as in epa_cold_zero_depth. Fix (epa.c, polytope_expand): no
 * new face may have P's interior point above it; the face across a folding horizon edge
 * joins the region. */
static void test_epa_zero_core_depth_warm(void **state)
{
    (void)state;
    gjk_shape a =
        gjk_make_box(gjk_v3(1.3143024719615473e-09, 0.0082031250000000003, 0.0082031250000000003));
    a.margin = 7.8124999999999996e-09;
    gjk_shape b = gjk_make_cylinder(2.2252400716145834e-07, 1.2715657552083334e-13);
    gjk_quat q = gjk_quat_make(0.70710678118654757, 0, 0, 0.70710678118654757);
    gjk_transform ta = gjk_transform_make(q, gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(q, gjk_v3(0, 0, -0.0015468267953798708));
    gjk_result cold, warm;
    cold_then_warm(&a, ta, &b, tb, &cold, &warm);
    assert_le(cold.distance, -2e-7);
    assert_le(fabs(warm.distance - cold.distance), 1e-12);
}

/* epa.c (fuzz_gjk). A needle cone (radius 0.016, half height 7476 m, margin 0.006)
 * through a capsule (radius 0.20, half height 0.22), both at the origin: EPA reported a
 * distance of -0.2079 with a normal along which the separation is -0.627 (0.42 short).
 * Cause: a new face folded over on the needle's nearly flat side (w 1e-11 above the nearest
 * face, below its neighbour), with plane distance -0.0082; EPA went on from that face. Fix
 * (epa.c, polytope_expand): the face across a folding horizon edge joins the region; the
 * cold answer (-0.21575) now equals the warm one. */
static void test_epa_needle_through_capsule(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(0.016383999999999999, 7476.3015793087661);
    a.margin = 0.0061558439307240406;
    gjk_shape b = gjk_make_capsule(0.20140383001449608, 0.21556420233463036);
    gjk_transform ta =
        gjk_transform_make(gjk_quat_make(0.00014208134929301743, -0.62031769892336341,
                                         -0.47944877714431261, -0.62075341506119541),
                           gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_identity();
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    assert_true(r.distance < 0.0);
    /* The answer is realised by its normal (1e-6 of the capsule's size). */
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), 1e-6);
}

/* support.c, polytope_climb (fuzz_gjk, once hill climbing became the default for hulls of 4
 * vertices and more). A 5-vertex hull and a point inside it: GJK's direction d is the normal
 * of the face v1 v2 v3, whose vertices then have the same dot up to rounding, and the rounded
 * differences (x_j - x_cur).d ordered them in a cycle, v1 < v3 < v2 < v1 by 1e-18. First
 * improvement walked the cycle until the move bound and returned v1, 0.023 short of v4 (a
 * neighbour of all three), so GJK certified a distance of +0.0083 for a point 0.85 deep.
 * Fix (support.c): a difference within the rounding of its own terms is a tie (lower index
 * wins, which cannot cycle); reaching the move bound falls back to the scan. */
static void test_climb_rounding_cycle(void **state)
{
    (void)state;
    gjk_vec3 pts[5] = {
        {0x1.fe7ffe7ffe8p+0, 0x1p+1, 0x1.d6c5d6c5d6c5cp-1},
        {0x1p+1, -0x1.cf4bcf4bcf4bdp+0, 0x1.639b639b639b6p+0},
        {0x1.66fc822b33ae4p-3, -0x1.3871c776af8a8p-2, -0x1.5e8674245ec1cp+1},
        {-0x1p+1, 0x1.fc03fc03fc04p+0, 0x1.6003600360036p+0},
        {-0x1p+1, -0x1p+1, -0x1p+1},
    };
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, pts, 5, NULL), GJK_STATUS_SEPARATED);
    gjk_vec3 d = gjk_v3(-0.0057256775095296366, -0.0060350383615451562, 0.00033124312301397645);
    double worst = worst_climb_vs_scan(&p, d);
    assert_le(worst, 0.0);
    gjk_shape a = gjk_make_polytope(&p), b = gjk_make_point();
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), gjk_v3(0, 0, 0));
    gjk_result r = gjk_signed_distance(&a, gjk_transform_identity(), &b, tb, NULL, NULL);
    gjk_polytope_destroy(&p);
    assert_true(r.distance < -0.8);
}

/* The near-twin hull graph (above) in a query (fuzz_gjk). A point and a 5-point hull with
 * near-twin vertices, hill climbing on (options.hill_climb_min_vertices = 1, as for any
 * hull of 4 vertices or more by default): GJK trusts a support vertex that is not the
 * support, reports the distance 0.1247265 where the scan gives 0.1246586 (6.8e-5 too far,
 * 5e-4 relative) and certifies it with a lower bound of 0.1247265. */
static void test_climb_wrong_distance(void **state)
{
    (void)state;
    gjk_vec3 a1[1] = {{0x1.d3d3d3d3d3d3ep-17, 0x1.a566e84290fc6p-16, 0x1.4acdd08521f8dp-17}};
    gjk_vec3 b5[5] = {
        {0x1.26ebfbcc7f971p-4, 0x1.22763a9ab0a9ap-4, 0x1.2d48e3777ee59p-4},
        {0x1.2f94a475283fcp-4, 0x1.272edf5355624p-4, 0x1.1e0f743e0fac2p-4},
        {0x1.2e05f220a5f6bp-4, 0x1.2473fc394df35p-4, 0x1.21fd37ccaee5dp-4},
        {0x1.2f94a47528489p-4, 0x1.272edf5355624p-4, 0x1.1e0f743e0fac2p-4},
        {0x1.2f94a475284dap-4, 0x1.272edf53555d3p-4, 0x1.1e0f743e0fb14p-4},
    };
    gjk_polytope pa, pb;
    assert_int_equal(gjk_hull_build(&pa, a1, 1, NULL), GJK_STATUS_SEPARATED);
    assert_int_equal(gjk_hull_build(&pb, b5, 5, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&pa), b = gjk_make_polytope(&pb);
    b.margin = 8.4252450980392155e-11;
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.5127312630619455, 0.48599747554379563,
                                                        0.48568681823241622, 0.51480231180447478),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.5210664975206436, -0.28088217420331746,
                                                        -0.57026590930370868, -0.56955236990395419),
                                          gjk_v3(0, 0, 0));
    gjk_options hill = gjk_default_options(), linear = gjk_default_options();
    hill.hill_climb_min_vertices = 1;
    linear.hill_climb_min_vertices = INT32_MAX; /* the default climbs from 4 vertices */
    gjk_result scan = gjk_signed_distance(&a, ta, &b, tb, NULL, &linear);
    gjk_result climb = gjk_signed_distance(&a, ta, &b, tb, NULL, &hill);
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
    assert_le(fabs(climb.distance - scan.distance), 1e-12);
}

/* gjk.c (fuzz_hull's point-in-hull query). A point placed exactly on vertex 0 of an
 * 11-vertex polytope 2e-8 m across (vertices 0, 1, 7 near-coincident, 7e-15 apart) is
 * reported 1.1e-15 m away (TOUCHING), 6e-8 of the polytope's size, where every other
 * vertex gives 0 (OVERLAPPING). Tiny in metres, but the tolerances are relative.
 * Cause (traced): the origin is a vertex of D = point - hull, but its normal cone is a
 * sliver (the near twins), so GJK's support along -v never returns it. After 3 iterations
 * the simplex is the segment from D's vertex (0, 6.8e-13, 0) to one 3.6e-9 away, passing
 * 1.1e-15 from the origin; the next support point lies only 1.5e-14 beyond the origin along
 * -v, the triangle with it improves |v|^2 by 2e-11 relative in exact arithmetic, below the
 * 1e-9 relative rounding of the segment's |v| (measured from the far vertex), so GJK
 * stopped on "no progress" with the bounds [0, 1.1e-15] open: not the precision floor,
 * which is ~16 eps of the pair's 6e-8 m (2e-22 m). Fixed (gjk.c): on no progress with the
 * gap open, a reduced simplex that keeps the new support point and is no worse beyond
 * rounding is taken (a few times at most); the triangle's v turns off the segment's plane
 * and the next support point is D's vertex at the origin: distance 0. */
static void test_point_on_vertex_not_at_distance_zero(void **state)
{
    (void)state;
    gjk_vec3 v[11] = {
        {-0x1.24a8234e7bc07p-27, -0x1.25129807aceaap-27, -0x1.25192c72f321bp-27},
        {-0x1.24a8234e7bc07p-27, -0x1.2518980dacf0ap-27, -0x1.25192c72f321bp-27},
        {0x1.9aaf9d62ec7fp-28, -0x1.24be97b3ac96ap-27, -0x1.25192c72f321bp-27},
        {-0x1.3e7128d6aff5cp-31, -0x1.148e87839c669p-27, 0x1.8491672a4c6f4p-29},
        {-0x1.b94fb69c67804p-28, 0x1.1ade34f40b2e3p-28, -0x1.0b4912a2d9519p-27},
        {-0x1.1cf00c15e7f69p-29, -0x1.1eb1df12acb74p-29, 0x1.ac60353880faep-28},
        {-0x1.24a8234e7bc07p-27, 0x1.5d12fe706212cp-32, -0x1.249b2bf4f2a3bp-27},
        {-0x1.24a8234e7bc07p-27, -0x1.2518980dacf0ap-27, 0x1.ae8138e4cdf92p-31},
        {-0x1.745371a02284p-28, 0x1.959bc9c7763bep-29, -0x1.283945a0605b6p-29},
        {0x1.b57dcb1843f94p-31, 0x1.ae767f2530f66p-31, 0x1.ae6d38d0cde52p-31},
        {-0x1.8f338c803d642p-28, -0x1.2518980dacf0ap-27, -0x1.25192c72f321bp-27},
    };
    gjk_polytope p;
    assert_int_equal(gjk_polytope_create(&p, v, 11, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape hull = gjk_make_polytope(&p), point = gjk_make_point();
    double worst = 0.0;
    for (int i = 0; i < 11; ++i) {
        gjk_result r = gjk_distance(&point, gjk_transform_make(gjk_quat_identity(), v[i]), &hull,
                                    gjk_transform_identity(), NULL, NULL);
        worst = fmax(worst, r.distance);
    }
    gjk_polytope_destroy(&p);
    assert_le(worst, 1e-20); /* 256 eps of the coordinates (8.5e-9) is 5e-22 */
}

/* epa.c / query.c (fuzz_gjk). A cone 1e-10 m in size inside a cone of margin 1.26e-8: the
 * cores overlap by only 3.5e-13, the depth is almost all margin, and the warm query's EPA
 * normal was off: the separation along it was 1.4e-10 (1% of the pair's size) short of the
 * reported distance. Cause: not the tiny depth but a folded face (plane distance -1.3e-8,
 * where the core depth is 1.1e-11) that EPA then took as its nearest face. Fix (epa.c,
 * polytope_expand): the face across a folding horizon edge joins the region. */
static void test_epa_normal_tiny_core_depth(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(2.1832396930075532e-11, 9.6220128676470581e-11);
    gjk_shape b = gjk_make_cone(1.2626707612981582e-14, 1.5602392308852253e-08);
    b.margin = 1.262216007008272e-08;
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.43391735857591529, 0.43313633259896611,
                                                        0.23985537465631274, -0.75271378528475108),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb = nearly_identity();
    gjk_result cold, warm;
    cold_then_warm(&a, ta, &b, tb, &cold, &warm);
    double size = 3e-8;
    assert_le(cold.distance - separation(&a, ta, &b, tb, cold.normal), 1e-6 * size);
    assert_le(warm.distance - separation(&a, ta, &b, tb, warm.normal), 1e-6 * size);
}

/* support.c, polytope_climb, far from the origin (fuzz_hull). Nine hull vertices 65326 m
 * from the polytope's origin, 0.016 m across; along d five of them lie within 1.4e-12 of
 * each other (a face nearly orthogonal to d), below the rounding of their absolute dots
 * (7e-12), so from vertex 6 no neighbour looks better and the climb stops 0.011 short of
 * the support (70 percent of the extent). Same cause and fix as the rounding plateau. */
static void test_climb_far_from_origin(void **state)
{
    (void)state;
    gjk_vec3 pts[9] = {
        {-0x1.ff2dfcded3823p+15, 0x1.2795d5ea935f5p-8, 0x1.2795d5ea935f5p-8},
        {-0x1.ff2dfbf6c7f6dp+15, -0x1.f783f783f783fp-8, -0x1.f7f7f7f7f7f8p-8},
        {-0x1.ff2e00861c862p+15, -0x1.67d167d167d18p-11, -0x1.82cf82cf82cf8p-8},
        {-0x1.ff2dfb2dff2ep+15, 0x1p-7, 0x1p-7},
        {-0x1.ff2dfb2dff2ep+15, -0x1.ff1fff1fff2p-8, -0x1p-7},
        {-0x1.ff2dfb2dff2ep+15, -0x1.aae1aae1aae2p-12, -0x1.a3a3a3a3a3a3ap-8},
        {-0x1.ff2e0111cbf0ap+15, -0x1.e3ccc29bb8c03p-9, -0x1.e3ccc29bb8c03p-9},
        {-0x1.ff2dfcdeca455p+15, 0x1.279a74590331dp-8, 0x1.279a74590564cp-8},
        {-0x1.ff2e032dff2ep+15, -0x1p-7, -0x1p-7},
    };
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, pts, 9, NULL), GJK_STATUS_SEPARATED);
    gjk_vec3 d = gjk_v3(0.70710678118654746, -0.70710678118654746, 0.0);
    double worst = worst_climb_vs_scan(&p, d);
    gjk_polytope_destroy(&p);
    assert_le(worst, 1e-9);
}

/* hull.c (fuzz_hull). Sixteen finite points, 7.5e-9 m across: a run along the x axis and a
 * few along the diagonal, some moved off their plane by 1e-12 of the size. gjk_hull_build
 * returns INVALID_INPUT (a qhull failure) for this valid cloud; it should give its hull
 * (a polygon, or a solid if it keeps the 1e-12 relief). */
static void test_hull_refuses_nearly_flat_cloud(void **state)
{
    (void)state;
    gjk_vec3 pts[16] = {
        {-0x1.a5a5a5a5a5a5ap-29, 0x0p+0, 0x0p+0},
        {-0x1.a7a5a7a5a7a5ap-29, 0x0p+0, 0x0p+0},
        {-0x1.5ad35ad35ad36p-28, 0x0p+0, 0x0p+0},
        {-0x1.a5bda5bda5bdap-29, 0x0p+0, 0x0p+0},
        {-0x1.46d346d346d34p-28, 0x0p+0, 0x0p+0},
        {-0x1.a5a5a5a5a6fe3p-29, 0x1.561287553f482p-69, -0x1.fbea9a5f275f3p-68},
        {-0x1.46d346d348184p-28, 0x1.4504f15031972p-68, 0x1.4504f15031972p-68},
        {-0x1.a5bda5bda847bp-29, 0x1.4504f15031972p-68, 0x1.4504f15031972p-68},
        {-0x1.467b467b467b4p-28, -0x1.4743474347434p-28, -0x1.4747474747474p-28},
        {-0x1.a5a5a5a5a82fbp-29, 0x1.4504f15031972p-68, 0x1.4504f15031972p-68},
        {-0x1.467b467b47c04p-28, -0x1.4743474345fe4p-28, -0x1.4747474746024p-28},
        {-0x1.46d346d3495d4p-28, 0x1.4504f15031972p-67, 0x1.4504f15031972p-67},
        {-0x1.5ad35ad35c186p-28, 0x1.4504f15031972p-68, 0x1.4504f15031972p-68},
        {-0x1.8003800380038p-28, 0x0p+0, 0x0p+0},
        {-0x1.a5a5a5a5a5aedp-29, -0x1.8d606ac9ea6dp-68, -0x1.8eba319ab5672p-68},
        {-0x1p-27, -0x1p-27, -0x1p-27},
    };
    gjk_polytope p;
    gjk_status s = gjk_hull_build(&p, pts, 16, NULL);
    if (s == GJK_STATUS_SEPARATED) {
        gjk_polytope_destroy(&p);
    }
    assert_int_equal(s, GJK_STATUS_SEPARATED);
}

/* epa.c (fuzz_gjk). A point (margin 0.014) at the centre of a cylinder of radius 1.19678
 * and half height 1.19666: the depth is min(r, h) + margin = 1.21072 (out through a cap,
 * nearly tied with the side). EPA ran out of its capacity (477 iterations, CAPACITY_LIMIT)
 * and reported 1.16482, 4% shallow, with a radial normal. Cause: not the curved side: EPA
 * had the cap's depth 1.19666 at iteration 452, then a new face folded over on the flat cap
 * (w 3e-12 above the nearest face, below its neighbour) and the polytope came apart. Fix
 * (epa.c, polytope_expand): the face across a folding horizon edge joins the region; EPA
 * now converges (OVERLAPPING, 459 iterations) to within 5e-13. */
static void test_epa_point_in_cylinder(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_point();
    a.margin = 0.014056964492256045;
    gjk_shape b = gjk_make_cylinder(1.196780346379797, 1.1966582742046235);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(-0.48001764340030073, -0.32443241728146849,
                                                        0.39861209994623514, -0.71093956312599282),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb = nearly_identity();
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    double expected = -(1.1966582742046235 + 0.014056964492256045);
    assert_le(fabs(r.distance - expected), 1e-6);
}

/* hull.c / shape.c, extreme magnitudes (fuzz_hull: hull_extreme_magnitudes). Finite clouds
 * that the build accepts but gets wrong (measured on a tetrahedron plus an interior point
 * and on 40 random points, scaled by c):
 *  - c <= 1e-162: every cloud collapses to one vertex (dimension 0): measure_cloud's squared
 *    distances underflow to 0; around 1e-161 qhull fails instead (INVALID_INPUT);
 *  - c >= 1e77: the tetrahedron keeps 3 vertices, random clouds come out flat (dimension 2):
 *    squared and fourth-power quantities overflow;
 *  - one point at -2^578 in each coordinate: |p|^2 overflows, gjk_polytope_create records
 *    radius = Inf, and the "successful" hull then fails gjk_shape_validate (and every query
 *    refuses it as INVALID_INPUT).
 * Fix (hull.c): measure the cloud and hand qhull its coordinates relative to p1 (already
 * done) scaled by a power of two to unit size (exact, so vertices stay input points); in
 * gjk_polytope_create, compute the radius with a scaled norm or refuse (INVALID_INPUT)
 * points whose norm overflows; document the accepted range. */
static void test_hull_huge_point_radius_overflow(void **state)
{
    (void)state;
    gjk_polytope p;
    gjk_vec3 huge = {-0x1p+578, -0x1p+578, -0x1p+578};
    gjk_status s = gjk_hull_build(&p, &huge, 1, NULL);
    if (s == GJK_STATUS_SEPARATED) {
        gjk_shape shape = gjk_make_polytope(&p);
        gjk_status valid = gjk_shape_validate(&shape);
        gjk_polytope_destroy(&p);
        assert_int_equal(valid, GJK_STATUS_SEPARATED);
    } else {
        assert_int_equal(s, GJK_STATUS_INVALID_INPUT);
    }
}

/* A tetrahedron (plus an interior point) scaled by c: four vertices, a solid. */
static void hull_scaled_tetrahedron(double c)
{
    gjk_vec3 tet[5] = {{0, 0, 0}, {c, 0, 0}, {0, c, 0}, {0, 0, c}, {0.1 * c, 0.1 * c, 0.1 * c}};
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, tet, 5, &info), GJK_STATUS_SEPARATED);
    gjk_polytope_destroy(&p);
    assert_int_equal(info.vertex_count, 4);
    assert_int_equal(info.dimension, 3);
}

static void test_hull_tiny_cloud(void **state)
{
    (void)state;
    hull_scaled_tetrahedron(1e-170);
}

/* Since lengths are capped at GJK_MAX_LENGTH (a 1e80 cloud was once built here after the
 * scaling fix), the largest accepted cloud is built right and a larger one is refused. */
static void test_hull_huge_cloud(void **state)
{
    (void)state;
    hull_scaled_tetrahedron(GJK_MAX_LENGTH);
    gjk_vec3 tet[4] = {{0, 0, 0}, {1e80, 0, 0}, {0, 1e80, 0}, {0, 0, 1e80}};
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, tet, 4, NULL), GJK_STATUS_INVALID_INPUT);
}

/* epa.c, answer_from_face (fuzz_gjk). A thin box (3.8e-6 x 3.8e-6 x 0.42, margin 1.13)
 * overlaps a small capsule: EPA's depth and normal are right (no direction separates
 * more), but the origin's projection falls outside the chosen sliver face, the witnesses
 * come from the nearest edge point, and pb - pa misses d n by 3.8e-6 (a coarser case missed
 * by 2.5% of the pair's size), against the documented identity pb - pa = d n.
 * Fix (epa.c): when the projection falls outside the face, make depth and normal those of
 * the point actually used (p = sum lambda_i w_i, depth |p|, normal p / |p|), or rebuild the
 * witnesses as pa and pa - p along the face normal. */
static void test_epa_witnesses_off_normal(void **state)
{
    (void)state;
    gjk_shape a =
        gjk_make_box(gjk_v3(3.7803921568627447e-06, 3.842893110551614e-06, 0.41960784313725491));
    a.margin = 1.1258716716258488;
    gjk_shape b = gjk_make_capsule(0.014045810444800489, 0.017582565613794156);
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb = gjk_transform_make(gjk_quat_make(-0.49885381434508025, -0.50038087890265304,
                                                        -0.50038087890265304, -0.50038087890265304),
                                          gjk_v3(0, 0, 0));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_le(identity_gap(&r), 1e-9);
}

/* query.c / gjk.c, negative cutoffs (fuzz_gjk). GJK's lower bound starts at 0, which bounds
 * the cores' unsigned distance. query.c passes cutoff + inflate to GJK; with a cutoff below
 * -inflate that is negative, so 0 "exceeds" it at once and the query returns BEYOND_CUTOFF
 * with the "certified lower bound" 0 - inflate = -0.2, although the boxes overlap by 2.2.
 * Fix (query.c): clamp the core cutoff at 0 (in.cutoff = fmax(cutoff + inflate, 0)); a
 * separated pair then still stops early, an overlapping one goes on to EPA. The world layer
 * already clamps (branch world, "GJK cutoff clamped at 0"). */
static void test_negative_cutoff_false_bound(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(1, 1, 1)), b = gjk_make_box(gjk_v3(1, 1, 1));
    a.margin = 0.1;
    b.margin = 0.1;
    gjk_transform t = gjk_transform_identity();
    gjk_result exact = gjk_signed_distance(&a, t, &b, t, NULL, NULL);
    assert_true(exact.distance < -2.0);
    gjk_result r = gjk_distance_cutoff(&a, t, &b, t, -1.0, NULL, NULL);
    if (r.status == GJK_STATUS_BEYOND_CUTOFF) {
        assert_le(r.distance, exact.distance + 1e-9); /* a lower bound must be below */
    } else {
        assert_le(fabs(r.distance - exact.distance), 1e-9);
    }
}

/* query.c, normal of rounded shapes whose cores nearly touch (fuzz_gjk). A capsule of
 * radius 1.26 around a needle-thin cone on its axis: the cores (segment and cone) are
 * 1e-10 apart or touching, the rounded shapes overlap by 1.26, and query.c takes the
 * normal from GJK's v, whose direction at |v| ~ 1e-10 is rounding: it is tilted 1.75e-3
 * rad off the perpendicular, so the separation along it is 0.0059 short of the distance
 * (translating B by -d n does not separate the shapes).
 * Fix (query.c): when penetration is asked for and the core distance is below a small
 * multiple of the pair's rounding scale, run EPA on the cores (as for overlapping cores)
 * for the normal, or take it from the witnesses' feature geometry. */
static void test_rounded_overlap_normal_from_tiny_core_gap(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_capsule(1.2622110322728313, 3.3749752040894179);
    gjk_shape b = gjk_make_cone(7.0835240711070416e-10, 0.0012082865429732205);
    b.margin = 9.5339084077210646e-11;
    gjk_vec3 p = gjk_v3(-0.00027325379618379884, -0.00025714553246029219, -6.8790488327011827e-05);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0, 0, 1, 0), p);
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.9999998534264134, 0, 0, 0), p);
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    assert_true(r.distance < -1.0);
    double f = separation(&a, ta, &b, tb, r.normal);
    assert_le(r.distance - f, 1e-6);
}

/* epa.c (fuzz_gjk). A cone (radius 0.036, half height 0.015) and a 6-vertex polytope,
 * both at the origin, overlap by 0.033: a warm start from the cold query's own cache finds
 * that depth, but the cold query's EPA ended after 93 iterations with depth 0 ("touching"),
 * so gjk_signed_distance reported TOUCHING, distance -0, with witnesses 3.4 m apart.
 * Cause: D is flat around the deepest direction (a polytope face swept by the cone's rim);
 * at iteration 41 the support point w lay 4e-12 above the nearest face but beyond its edge,
 * below the neighbouring face (their planes differ by rounding), so the region was that
 * face alone and the new face on that edge folded over: normal -n, plane distance -0.033.
 * EPA took it as the nearest face, grew towards it and stopped at iteration 93, when the
 * support point along it was already a vertex, with depth max(-0.033, 0) = 0. Fix (epa.c,
 * polytope_expand): a new face must have P's interior point (the first tetrahedron's centroid)
 * below it; the face across a folding horizon edge, which rounding misjudged, joins the region. */
static void test_epa_cold_zero_depth(void **state)
{
    (void)state;
    gjk_vec3 pts[6] = {
        {0x1.279a74590331cp+1, 0x1.279a74590331cp+1, 0x1.279a74590331cp+1},
        {0x1.fbbe01115a9aep+0, 0x1.fbbe01115f82fp+0, 0x1.fbbe01115f82fp+0},
        {0x1.585f2e3fe4f6ap+1, 0x1.585f2e3fe4f6ap+1, -0x1.3bf9b9abc259bp+0},
        {0x1.b7b7b7b7b7b7cp+1, -0x1.966f966f966fap+1, -0x1.6357635763576p+1},
        {0x1.b7b7b7b7b7b7cp+1, -0x1.f0fff0fff0fffp+1, -0x1p+2},
        {-0x1p+2, -0x1p+2, -0x1p+2},
    };
    cold_warm r =
        against_polytope(gjk_make_cone(0.035610265506981001, 0.015159361409933623), pts, 6);
    /* The separation along any direction bounds the signed distance from below; the
     * answer must be realised by its own normal. */
    assert_le(fabs(r.cold.distance - r.warm.distance), 1e-9);
    assert_le(r.short_cold, 1e-9);
}

/* The capsule and the 134 m cylinder of two fuzz findings (fuzz_gjk). */
static void capsule_and_cylinder(gjk_shape *a, gjk_shape *b)
{
    *a = gjk_make_capsule(0.93869687953002212, 0.54495307850766761);
    a->margin = 1.6917982757305255e-06;
    *b = gjk_make_cylinder(134.40000000000001, 134.40000000000001);
    b->margin = 0.00012799999999999999;
}

/* epa.c, warm start (fuzz_gjk, fuzz/open/fuzz_gjk-crash-f1c1d0...). A capsule (radius 0.94,
 * half height 0.54) inside a cylinder of radius and half height 134.4, 1.2 m off its centre,
 * poses 230 m from the origin: the cold query is right (-134.44788), the warm query from its
 * cache reported -134.44592 with a normal along which the separation is 0.01 deeper. Cause:
 * a new face folded over on the cylinder's flat cap (w 2.8e-10 above the nearest face at
 * depth 133.5, below its neighbour), with plane distance -133.5; the polytope came apart
 * around it and EPA stopped on a support point that was already a vertex, 0.01 above its
 * face. Fix (epa.c, polytope_expand): the face across a folding horizon edge joins the
 * region. (The input first failed as a separated distance 3.6e-7 too large on 1e-3 m
 * shapes; on the harness as it is now it reaches this pair.) */
static void test_epa_capsule_in_cylinder_warm(void **state)
{
    (void)state;
    gjk_shape a, b;
    capsule_and_cylinder(&a, &b);
    gjk_transform ta =
        gjk_transform_make(gjk_quat_make(0.5, 0.5, 0.5, 0.5),
                           gjk_v3(106.28080765229193, -164.67707673284806, -164.68712859085315));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.56392441172194918, 0.56392441172194918,
                                         -0.44058127419814636, 0.41215056913475556),
                           gjk_v3(105.42015550398891, -165.53772888115108, -165.54778073915617));
    gjk_result cold, warm;
    cold_then_warm(&a, ta, &b, tb, &cold, &warm);
    double tol = 1e-9 * 134.4; /* the fuzz harness's 1e-9 of the pair's size */
    assert_true(cold.distance < -134.0);
    assert_le(cold.distance - separation(&a, ta, &b, tb, cold.normal), tol);
    assert_le(warm.distance - separation(&a, ta, &b, tb, warm.normal), tol);
    assert_le(fabs(warm.distance - cold.distance), tol);
}

/* epa.c, sliver faces (fuzz_gjk, fuzz/fixed/fuzz_gjk/61d0cf..., fe2e5c...): a cone 1e-7 in
 * size in the plane of a 51 m disk (a cone of height 0), D flat to 2e-7. EPA's first expansion
 * made a sliver of the disk's diameter and its centre 2e-7 below it, standing across the disk's
 * face; the sliver took that face's normal, which put its plane 1.3e-7 on the far side of the
 * origin, the guard read a broken polytope, and the tightest face answered 51 m deep (the
 * harness allows 1e-7). Fix: a sliver takes the neighbour's plane only when that fits its
 * points better than its own. */
static void test_epa_speck_in_disk_plane(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(51.468558785381859, 0.0);
    gjk_shape b = gjk_make_cone(9.8346303501945517e-08, 9.8529411764705875e-08);
    gjk_transform ta = gjk_transform_make(
        gjk_quat_make(0.70710678118654757, 0, 0.70710678118654757, 0),
        gjk_v3(-4606.5932979723402, -6626.082305745922, 1292.3669989680561));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.70710637740251825, 0, 0.70710637740251825, 0),
        gjk_v3(-4606.5932980708694, -6590.7718750250597, 1327.6774296889184));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 1.02e-7; /* the harness's: 1e-9 of the pair's size and rounding */
    /* A flat disk: no depth beyond the speck's own size, 2e-7. */
    assert_true(r.distance >= -2e-7 - tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), tol);
}

/* epa.c, the broken-polytope exit (fuzz_gjk, fuzz/fixed/fuzz_gjk/6b3646...): a rod 2.5e-6 m
 * thick and 248 m long (a cylinder, margin 1e-3) through a 134 m box, depth 67.2 m plus the
 * radii. A rim point of the rod 2.5e-6 beside a vertex made a face with that short edge among
 * points 190 m out, whose plane is known only to ~3e-5; it came out 1.5e-7 shallower than an
 * earlier nearest face, which read as rounding having broken P, and the tightest face's support
 * value answered, 1.25e-6 too deep (the harness allows 2.4e-7). Fix: the fall-back must exceed
 * the nearest face's own plane rounding too (plane_noise). */
static void test_epa_rod_through_box_depth(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cylinder(2.4687876707103074e-06, 124.18548867017624);
    a.margin = 0.001024;
    gjk_shape b = gjk_make_box(gjk_v3(67.2, 67.2, 67.2));
    b.margin = 6.4e-05;
    gjk_transform ta = gjk_transform_make(
        gjk_quat_make(0.5, 0.5, 0.5, 0.5),
        gjk_v3(0.73243545868078241, 0.087454146092578372, -0.30297692606053755));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.50000045000000004, 0.50000045000000004, 0.50000045000000004,
                      0.50000045000000004),
        gjk_v3(2.604656399838797, 0.087454146092578372, -0.30297692606053755));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 2.42e-7; /* the harness's: 1e-9 of the pair's size and rounding */
    /* The rod's axis is the box's x axis through its centre: the depth is across it. */
    const double depth = 67.2 + 2.4687876707103074e-06 + 0.001024 + 6.4e-05;
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_le(fabs(r.distance + depth), tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), tol);
}

/* epa.c, a broken polytope that the depth bound did not catch (fuzz_gjk, open 243b41...): a
 * capsule (radius 0.94, half height 0.54) at the centre of a cylinder of radius and half
 * height 134.4, the capsule's axis a turn away from the cylinder's. D's side is a ruled
 * surface and EPA's faces there are long and narrow: one had a vertex 2.5e-7 above it, was
 * taken as the nearest, and its expansion fell back 5e-5; by the time capacity ran out
 * (CAPACITY_LIMIT) the nearest face was 10 m shallow, and EPA answered from it, with a normal
 * 20 m short. Fix: a nearest face shallower than an earlier one beyond rounding ends EPA, at
 * the least support value seen, along its normal. The core depth is 134.4 exactly (the
 * capsule's segment lies across the cylinder's side normal perpendicular to both axes). */
static void test_epa_capsule_in_cylinder_nearest_falls_back(void **state)
{
    (void)state;
    gjk_shape a, b;
    capsule_and_cylinder(&a, &b);
    gjk_transform ta = gjk_transform_make(
        gjk_quat_make(0.50151291824788025, 0.49848248999387618, 0.50151291824788025,
                      0.49848248999387618),
        gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.50000045000000004, 0.50000045000000004, -0.50000045000000004,
                      0.50000045000000004),
        gjk_v3(0, 0, 0));
    gjk_result cold, warm;
    cold_then_warm(&a, ta, &b, tb, &cold, &warm);
    const double exact = -(134.40000000000001 + a.radius + a.margin + b.margin);
    /* The fuzz harness's tolerance here: 1e-9 of the pair's size (its bounding radii and the
     * witnesses' distance). Curved D: the depth is known to ~1e-9 of it, not to 1e-12. */
    const double tol = 1.92e-7;
    const gjk_vec3 dirs[] = {{1, 0, 0},  {0, 1, 0},  {0, 0, 1},   {-1, 0, 0},
                             {0, -1, 0}, {0, 0, -1}, {-1, -1, -1}, {1, 1, 1}};
    const gjk_result *answers[] = {&cold, &warm};
    for (int k = 0; k < 2; ++k) {
        const gjk_result *r = answers[k];
        assert_int_equal(r->status, GJK_STATUS_OVERLAPPING);
        assert_le(fabs(r->distance - exact), tol);
        assert_le(r->distance - separation(&a, ta, &b, tb, r->normal), tol);
        assert_le(identity_gap(r), tol);
        assert_witnesses_on_shapes(&a, ta, &b, tb, r, dirs, sizeof dirs / sizeof dirs[0], tol);
    }
}

/* query.c, a GJK stall beyond the touching band (fuzz_gjk, open 814014..., "flat square
 * against a long segment"): a flat square 2.7e-7 wide and a 55 m segment, both centred on
 * the origin, so they overlap. GJK stalled after 3 iterations with no separation certified
 * and |v| = 7.7e-8, above the touching band, so nothing escalated: ITERATION_LIMIT with a
 * positive distance, and the cutoff and boolean queries did not agree with it. Fix: a stall
 * with no separation certified asks EPA, whose converged depth certifies the overlap. The
 * exact depth: D is the parallelepiped of the square's half sides and the segment's half
 * length, and the depth the least of its three half widths. */
static void test_gjk_stall_square_on_segment(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(1.3333333333333334e-07, 1.3333333333333334e-07, 0));
    gjk_shape b = gjk_make_box(gjk_v3(27.70037384603647, 0, 0));
    gjk_transform ta = gjk_transform_make(gjk_quat_make(-0.22176634903715148, -0.22176634903715148,
                                                        0.92393626378183547, -0.21904600735536622),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.50307918348320046, 0.50550120803991871,
                                                        0.48970405424323366, -0.50156734649875212),
                                          gjk_v3(0, 0, 0));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 2.77e-8; /* the fuzz harness's: 1e-9 of the pair's size */
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    gjk_vec3 g[3] = {gjk_quat_rotate(gjk_quat_normalize(ta.q), gjk_v3(a.half_extents.x, 0, 0)),
                     gjk_quat_rotate(gjk_quat_normalize(ta.q), gjk_v3(0, a.half_extents.y, 0)),
                     gjk_quat_rotate(gjk_quat_normalize(tb.q), gjk_v3(b.half_extents.x, 0, 0))};
    double depth = HUGE_VAL;
    for (int k = 0; k < 3; ++k) {
        gjk_vec3 n = gjk_normalize(gjk_cross(g[(k + 1) % 3], g[(k + 2) % 3]));
        depth = fmin(depth, fabs(gjk_dot(g[k], n)));
    }
    assert_le(fabs(-r.distance - depth), tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_true(r.upper_bound < 0.0);
    assert_int_equal(gjk_intersect(&a, ta, &b, tb, NULL, NULL), GJK_STATUS_OVERLAPPING);
    gjk_result plain = gjk_distance(&a, ta, &b, tb, NULL, NULL);
    assert_int_equal(plain.status, GJK_STATUS_OVERLAPPING);
    assert_true(plain.distance == 0.0);
    gjk_result cut = gjk_distance_cutoff(&a, ta, &b, tb, 1.0745498727562022e-08, NULL, NULL);
    assert_int_equal(cut.status, GJK_STATUS_OVERLAPPING);
}

/* query.c, a GJK stall at contact to rounding (fuzz_gjk, open 453c48...): a point (margin
 * 1.9e-8) 0.031 m from the axis of a cone of radius 1.69 and half height 8e-7, at mid
 * height: 7.9e-7 inside. GJK's triangle across the cone passed 7e-15 from the origin, its
 * sub-algorithm could not place the origin against the next support point (1.69 m beyond
 * it), and the cold run stopped with no separation certified: ITERATION_LIMIT, distance
 * -margin, normal from v's noise in the base plane, along which the shapes separate only
 * after 1.69 m. Fix: such a stall within the touching band goes to EPA, as an enclosed
 * origin does. */
static void test_point_in_flat_cone_gjk_stall(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_point();
    a.margin = 1.9288357366292822e-08;
    gjk_shape b = gjk_make_cone(1.688738841840238, 7.9871824216067746e-07);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.43319841517216484, -0.52535356278106082,
                                                        -0.50794476355243845, -0.52757452965929663),
                                          gjk_v3(-0.031390675300982107, 0, 0));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.99968751627570263, -0.024997395914712332, 0, 0), gjk_v3(0, 0, 0));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 1.72e-9; /* the fuzz harness's: 1e-9 of the pair's size */
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    /* The point is on the cone's base plane's parallel through its centre (B turns about
     * the x axis the point lies on), at rho from the axis: the slanted side passes
     * h (1 - 2 rho / R) above it, which its slope 2 h / R tilts, and the base h below. */
    const double h = b.half_height, radius = b.radius, rho = 0.031390675300982107;
    const double side =
        h * (1.0 - 2.0 * rho / radius) / sqrt(1.0 + 4.0 * h * h / (radius * radius));
    assert_le(fabs(r.distance + (fmin(side, h) + a.margin)), tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    gjk_vec3 axis = gjk_quat_rotate(gjk_quat_normalize(tb.q), gjk_v3(0, 0, 1));
    assert_true(fabs(gjk_dot(axis, r.normal)) > 0.99); /* the cone's thin direction */
}

/* epa.c, the answer once P has gone wrong (fuzz_gjk, a seed-24 scan after the fix above): a
 * 3.7 km disk 2886 m deep in the side of a 6e6 m needle (a polytope of 17 points, duplicates
 * included). EPA's nearest face fell back 1.2e-3 beyond rounding; the face of the least
 * support value answered, but its own gap was 0.22 m, and lifting its witnesses onto the
 * support planes along the normal put the disk's 0.14 m off the disk's plane (the harness
 * allows 7.3e-3; warm from the previous waypoint's cache). Fix: the tightest face seen (gap
 * 2e-5) answers. */
static void test_epa_broken_answer_from_tightest_face(void **state)
{
    (void)state;
    const gjk_vec3 v[17] = {
        {0x1.4504f15031972p-19, -0x1.4504f15031972p-19, 0x1.4504f15031972p-19},
        {0x1.7d2892694344ep+20, 0x1.7f3cb3ddae87p+20, 0x1.7f3cb3ddae87p+20},
        {0x1.7d2892694344ep+20, 0x1.7f3cb3ddae87p+20, 0x1.7f3cb3ddae87p+20},
        {0x1.4504f15031972p-18, 0x0p+0, 0x1.4504f15031972p-18},
        {0x1.53631a47e652p+19, 0x1.64e6f837d62b3p+22, 0x1.5c130354cfba8p+19},
        {-0x1p+22, 0x1p+22, 0x1p+22},
        {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21},
        {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21},
        {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21},
        {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21},
        {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21},
        {0x1.796220210b2edp+20, 0x1.7b70fc5700eccp+20, 0x1.7b70fc5700eccp+20},
        {0x1.7d2892694344ep+20, 0x1.7f3cb3ddae87p+20, 0x1.7f3cb3ddae87p+20},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1.fdfffdfffep+21, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1.ff4bff4bff4cp+21, 0x1p+22, 0x1p+22},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_cone(3710.4941176470593, 0.0);
    gjk_shape b = gjk_make_polytope(&poly);
    b.margin = 4.1943039999999998;
    gjk_transform ta = gjk_transform_make(
        gjk_quat_make(0.51234245609520745, 0.48734506018049517, 0.51234245609520745,
                      0.48734506018049517),
        gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.55486280691310885, 0.52779082586264892, 0.53265498359316188,
                      -0.36033703402938955),
        gjk_v3(0, 0, 0));
    /* Warm from the cache of the waypoint before (where it went wrong), and cold. */
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_transform ta0 = gjk_transform_make(gjk_quat_make(0.5, 0.5, 0.5, 0.5), gjk_v3(0, 0, 0));
    gjk_transform tb0 = gjk_transform_make(
        gjk_quat_make(0.54149570974068606, 0.54149570974068606, 0.54149570974068606,
                      -0.346909245036434),
        gjk_v3(0, 0, 0));
    (void)gjk_signed_distance(&a, ta0, &b, tb0, &cache, NULL); /* cold */
    (void)gjk_signed_distance(&a, ta0, &b, tb0, &cache, NULL); /* warm, same pose */
    gjk_result warm = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    gjk_result cold = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 7.27e-3; /* the fuzz harness's: 1e-9 of the pair's size */
    const gjk_vec3 dirs[] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    /* The disk's plane, both ways: its witness must lie in it. */
    gjk_vec3 axis = gjk_quat_rotate(gjk_quat_normalize(ta.q), gjk_v3(0, 0, 1));
    const gjk_vec3 plane[] = {axis, gjk_neg(axis)};
    const gjk_result *answers[] = {&cold, &warm};
    for (int k = 0; k < 2; ++k) {
        const gjk_result *r = answers[k];
        assert_int_equal(r->status, GJK_STATUS_OVERLAPPING);
        assert_true(r->distance < -2800.0);
        assert_le(r->distance - separation(&a, ta, &b, tb, r->normal), tol);
        assert_witnesses_on_shapes(&a, ta, &b, tb, r, dirs, sizeof dirs / sizeof dirs[0], tol);
        assert_witnesses_on_shapes(&a, ta, &b, tb, r, plane, 2, tol);
    }
    gjk_polytope_destroy(&poly);
}

/* query.c, plain distance at contact to rounding (fuzz_gjk, after the EPA fixes). A disk
 * (cylinder of radius 1.06e-4, half height 1.4e-10) and a cube of half size 8.7e-12 at the
 * same place overlap by 1.54e-10 (the signed distance says so), but gjk_distance reported
 * TOUCHING at distance 3.2e-19 instead of 0. GJK stopped at contact to rounding (|v| within
 * 16 ulps of the 1e-4 scale) without enclosing the origin, and contact_to_rounding's single
 * support value, a depth bound of 1.5e-10, was within the touch tolerance (1e-9), so |v|
 * was kept as the distance. Fix (query.c): a bound beyond |v| plus rounding leaves the
 * decision to EPA (rare: |v| must be at rounding level), which finds the overlap. */
static void test_distance_of_shallow_overlap(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cylinder(0.00010569368646047914, 1.3978247549019607e-10);
    gjk_shape b = gjk_make_box(
        gjk_v3(8.7364047181372542e-12, 8.7364047181372542e-12, 8.7364047181372542e-12));
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.3443305766369934, 0.80374940476622858,
                                                        0.3443305766369934, -0.3418476302734953),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0, 0, 0, 0.99999938065003435), gjk_v3(0, 0, 0));
    gjk_result sd = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    gjk_result d = gjk_distance(&a, ta, &b, tb, NULL, NULL);
    assert_le(sd.distance, -1.5e-10);
    assert_true(d.status == GJK_STATUS_OVERLAPPING || d.status == GJK_STATUS_TOUCHING);
    assert_true(d.distance == 0.0);
}

/* query.c, contact_depth (bench_peers on full.cases, scale subset). A 1e-3 m tetrahedron 1.1e-12
 * from a 1e3 m icosahedron (5 ulps of the larger shape's coordinates): gjk_signed_distance said
 * TOUCHING, gjk_distance OVERLAPPING (a wrong verdict: |sd*| > 1e-9 lref). Two causes in the
 * plain distance at contact to rounding: a support value along the noisy -v reaching past the
 * touch tolerance was taken as proof of overlap (it only bounds the depth from above), and an
 * origin enclosed by GJK's tetrahedron to rounding was reported as an overlap without asking
 * how deep. Fix: EPA decides in both cases unless the tetrahedron's inner distance certifies an
 * overlap beyond the touching band. Both queries must now agree: TOUCHING, |d| <= 1e-9. */
static void test_plain_distance_at_contact_between_scales(void **state)
{
    (void)state;
    static const gjk_vec3 va[4] = {
        {0x1.2eb2a4323053dp-11, 0x1.2eb2a4323053dp-11, 0x1.2eb2a4323053dp-11},
        {0x1.2eb2a4323053dp-11, -0x1.2eb2a4323053dp-11, -0x1.2eb2a4323053dp-11},
        {-0x1.2eb2a4323053dp-11, 0x1.2eb2a4323053dp-11, -0x1.2eb2a4323053dp-11},
        {-0x1.2eb2a4323053dp-11, -0x1.2eb2a4323053dp-11, 0x1.2eb2a4323053dp-11},
    };
    static const gjk_vec3 vb[12] = {
        {0x0p+0, -0x1.06dd9514f8b1bp+9, -0x1.a9534db025fcep+9},
        {-0x1.06dd9514f8b1bp+9, -0x1.a9534db025fcep+9, 0x0p+0},
        {-0x1.a9534db025fcep+9, 0x0p+0, -0x1.06dd9514f8b1bp+9},
        {0x0p+0, -0x1.06dd9514f8b1bp+9, 0x1.a9534db025fcep+9},
        {-0x1.06dd9514f8b1bp+9, 0x1.a9534db025fcep+9, 0x0p+0},
        {0x1.a9534db025fcep+9, 0x0p+0, -0x1.06dd9514f8b1bp+9},
        {0x0p+0, 0x1.06dd9514f8b1bp+9, -0x1.a9534db025fcep+9},
        {0x1.06dd9514f8b1bp+9, -0x1.a9534db025fcep+9, 0x0p+0},
        {-0x1.a9534db025fcep+9, 0x0p+0, 0x1.06dd9514f8b1bp+9},
        {0x0p+0, 0x1.06dd9514f8b1bp+9, 0x1.a9534db025fcep+9},
        {0x1.06dd9514f8b1bp+9, 0x1.a9534db025fcep+9, 0x0p+0},
        {0x1.a9534db025fcep+9, 0x0p+0, 0x1.06dd9514f8b1bp+9},
    };
    const gjk_transform ta1 = gjk_transform_make(
        gjk_quat_make(0x1.d726b938a2558p-2, -0x1.5548c3c3677e5p-2, -0x1.d8bb020673a0dp-2,
                      -0x1.5ccc9618e7592p-1),
        gjk_v3(0x1.37d70dbc87f67p+9, -0x1.3da57b5413aefp+7, 0x1.e9426ea478198p+9));
    const gjk_transform tb1 = gjk_transform_make(
        gjk_quat_make(0x1.df3a401f412f4p-3, 0x1.c69909c6e8582p-1, 0x1.85771ba5c3a03p-2,
                      0x1.c547878384ecep-4),
        gjk_v3(0x1.76bf05843f208p+9, -0x1.b3d3ededfb1b8p+5, 0x1.2b8e57b813578p+6));
    const gjk_transform ta2 = gjk_transform_make(
        gjk_quat_make(0x1.e6c6f8bca0cd2p-2, -0x1.851ef4e05b5e4p-1, -0x1.b924f34683754p-3,
                      -0x1.8ca0068d7fffdp-2),
        gjk_v3(0x1.61f23bc51878bp+10, -0x1.011edea0b143dp+10, -0x1.17507d8ffeda8p+10));
    const gjk_transform tb2 = gjk_transform_make(
        gjk_quat_make(0x1.74dbdd440954bp-1, 0x1.3e7c0327f42eep-3, 0x1.d23115339538bp-2,
                      0x1.f3c9cc236d1f9p-2),
        gjk_v3(0x1.b5dc8aceba5ep+10, -0x1.99c4a6e8e3897p+10, -0x1.8ff65da60f22ap+8));
    gjk_polytope pa, pb;
    assert_int_equal(gjk_hull_build(&pa, va, 4, NULL), GJK_STATUS_SEPARATED);
    assert_int_equal(gjk_hull_build(&pb, vb, 12, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&pa), b = gjk_make_polytope(&pb);
    const gjk_transform ta[2] = {ta1, ta2}, tb[2] = {tb1, tb2};
    for (int k = 0; k < 2; ++k) {
        gjk_result d = gjk_distance(&a, ta[k], &b, tb[k], NULL, NULL);
        gjk_result s = gjk_signed_distance(&a, ta[k], &b, tb[k], NULL, NULL);
        if (d.status != GJK_STATUS_TOUCHING || s.status != GJK_STATUS_TOUCHING ||
            !(fabs(d.distance) <= 1e-9) || !(fabs(s.distance) <= 1e-9)) {
            print_error("pose %d: distance %s %g, signed %s %g\n", k, gjk_status_name(d.status),
                        d.distance, gjk_status_name(s.status), s.distance);
            fail();
        }
    }
    gjk_polytope_destroy(&pa);
    gjk_polytope_destroy(&pb);
}

/* epa.c (fuzz_gjk, once the folds were fixed). A 1.2e-11 m cylinder on an edge of a 0.3 m
 * tetrahedron (margin 2.5e-7), queried at the next pose from the cache of the first: EPA
 * ended at CAPACITY_LIMIT with core depth 0 and the normal (1, 0, 0), along which the
 * separation is 0.22 short. Cause: EPA's tolerance (abs_tolerance times the scale, 6e-17)
 * was below the rounding of its own support values (16 ulps of the scale, 2e-15), so with
 * gaps of 2e-16 it went on for 300 iterations adding rounding-level slivers; the folds they
 * caused took ever larger regions until one slipped through as a face through the origin
 * facing +x. Fix (epa.c): the gap counts as closed within that rounding (s.zero), as the
 * witnesses' coplanar slack already did; EPA now converges in about 130 iterations. */
static void test_epa_tiny_cylinder_on_edge(void **state)
{
    (void)state;
    gjk_vec3 v[4] = {{0x1.c837c837c837cp-3, -0x1.e5bde5bde5bdep-4, 0x1.2d9b2d9b2d9b2p-3},
                     {0x1.620f620f620f6p-3, 0x1p-2, 0x1p-2},
                     {0x0p+0, 0x0p+0, 0x1p-2},
                     {0x0p+0, 0x0p+0, -0x1.9bc99bc99bc98p-5}};
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 4, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&poly);
    a.margin = 2.4940871290150298e-07;
    gjk_shape b = gjk_make_cylinder(1.1967677696078431e-11, 1.1967677696078431e-11);
    gjk_quat q = gjk_quat_make(0.99968751627570263, -0.024997395914712332, 0, 0);
    gjk_transform t2 = gjk_transform_make(q, gjk_v3(0, 0, 0));
    /* The cache the first pose left: no indices (a cylinder has none), a rounding-size
     * direction. */
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    cache.kind_a = (uint8_t)GJK_SHAPE_POLYTOPE;
    cache.kind_b = (uint8_t)GJK_SHAPE_CYLINDER;
    cache.direction[0] = (float)-0x1.c98ab8p-91;
    cache.direction[1] = (float)0x1.e726c8p-92;
    gjk_result warm = gjk_signed_distance(&a, t2, &b, t2, &cache, NULL);
    gjk_result cold = gjk_signed_distance(&a, t2, &b, t2, NULL, NULL);
    double short_by = warm.distance - separation(&a, t2, &b, t2, warm.normal);
    gjk_polytope_destroy(&poly);
    assert_le(short_by, 1e-9 * 0.3);
    assert_le(fabs(warm.distance - cold.distance), 1e-9 * 0.3);
    assert_le(warm.distance, -a.margin); /* the cores overlap (by the cylinder's size) */
}

/* support.c, polytope_climb (fuzz_gjk, hill climbing on every hull). A point (capsule of
 * radius 2.1, no height) against a 4-vertex hull 250 m across whose face v0 v1 v2 passes
 * 0.17 m from it: with hill climbing the signed distance came out -1.933 (cores 0.17
 * apart) instead of -2.100 (the point on the hull's boundary), with a normal 5.5 m short.
 * GJK's third direction is that face's normal, along which v0, v1, v2 tie; their rounded
 * differences are not transitive, so first improvement went v0 -> v1 -> v2 -> v0 (each
 * "better" by 1e-15, each checked before v3, which is better by 0.91) until the 2n-move
 * bound stopped it at v2, and GJK took v2 as the support. Fix (support.c): running out of
 * the bound falls back to the scan. */
static void test_climb_cycles_round_a_face(void **state)
{
    (void)state;
    gjk_vec3 v[4] = {{0x1.269409e3eb9dbp+6, 0x1.281d525e99bc9p+6, 0x1.281d525e99bc9p+6},
                     {0x1.edededededeep+5, 0x1.c5edc5edc5edcp+5, -0x1.8a298a298a298p+4},
                     {-0x1p+7, -0x1p+7, -0x1p+7},
                     {-0x1.dfffdfffdfffep+6, -0x1p+7, -0x1p+7}};
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, v, 4, NULL), GJK_STATUS_SEPARATED);
    gjk_vec3 d = gjk_v3(0x1.d297698540256p-4, -0x1.f06329e0a0c5fp-4, 0x1.eaed3894c81a7p-8);
    double worst = 0.0;
    for (uint32_t hint = 0; hint < (uint32_t)p.count; ++hint) {
        worst = fmax(worst, climb_vs_scan(&p, d, hint));
    }
    gjk_shape a = gjk_make_capsule(2.0999694819562067, 0.0), b = gjk_make_polytope(&p);
    gjk_transform t = gjk_transform_identity();
    gjk_options hill = gjk_default_options();
    hill.hill_climb_min_vertices = 1;
    gjk_result scan = gjk_signed_distance(&a, t, &b, t, NULL, NULL);
    gjk_result climb = gjk_signed_distance(&a, t, &b, t, NULL, &hill);
    gjk_polytope_destroy(&p);
    assert_le(worst, 0.0);
    assert_le(fabs(climb.distance - scan.distance), 1e-12 * 250.0);
}

/* hull.c (fuzz_gjk's hulled polytopes). Sixteen finite points on the x axis with
 * subnormal coordinates (5e-324 .. 2e-323): gjk_hull_build returned INVALID_INPUT. It works
 * on q = (p - p0) 2^-e with e the exponent of the cloud's extent, and took 2^-e as a
 * double: 2^1073 overflows, and q became Inf and NaN. Fix (hull.c): ldexp the differences
 * themselves (exact, about unit size). The hull is the segment between the extremes. */
static void test_hull_subnormal_cloud(void **state)
{
    (void)state;
    static const double xs[16] = {1, 2, 2, 2, 3, 3, 2, 4, 3, 3, 3, 4, 3, 4, 4, 3};
    gjk_vec3 pts[16];
    for (int i = 0; i < 16; ++i) {
        pts[i] = gjk_v3(xs[i] * 0x0.0000000000001p-1022, 0.0, 0.0);
    }
    gjk_polytope p;
    gjk_hull_info info;
    gjk_status s = gjk_hull_build(&p, pts, 16, &info);
    if (s == GJK_STATUS_SEPARATED) {
        gjk_polytope_destroy(&p);
    }
    assert_int_equal(s, GJK_STATUS_SEPARATED);
    assert_int_equal(info.vertex_count, 2);
    assert_int_equal(info.dimension, 1);
}

/* epa.c, answer_from_face (fuzz_gjk, after the EPA fixes). Two flat cones at the same
 * place, 184 m and 5e-8 m in radius (half heights 2e-4 and 1.9e-12): EPA converged on the
 * depth (to 3.8e-12) but the witness on B came out 157 m outside B. The nearest face is a
 * triangle of three rim points 3.8e-12 inside the base plane (the small cone's two sides
 * apart), far from the deepest point q = d n; the base faces that hold q were excluded as
 * not coplanar (the tolerance 6.5e-13 < 3.8e-12) and the face's own weights, clamped to its
 * edge, put the witnesses at the rim. Fix (epa.c): faces within the certified gap
 * (least support value - nearest plane distance, plus the tolerance) of q may supply the
 * weights: the depth is known no better than that anyway. */
static void test_epa_witness_from_face_within_gap(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(184.13073929961089, 0.00020178823529411763);
    gjk_shape b = gjk_make_cone(5.1653696498054469e-08, 1.9073777370870525e-12);
    gjk_vec3 p = gjk_v3(1.2705776615838338, 1.2705776615838338, -0.0036658716512516848);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(1, 0, 0, 0), p);
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), p);
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    assert_true(r.distance < 0.0);
    /* The witness on B lies in B (to 1e-9 of the 184 m pair, the fuzz harness's tolerance). */
    for (int k = 0; k < 6; ++k) {
        gjk_vec3 u = gjk_v3(k % 3 == 0, k % 3 == 1, k % 3 == 2);
        u = k < 3 ? u : gjk_neg(u);
        assert_le(gjk_dot(u, r.point_b), h_world(&b, tb, u) + 1e-9 * 184.0);
    }
}

/* epa.c, answer_from_face (fuzz_gjk). A flat disk of radius 3710 m (cone of no height)
 * overlapping a 17-vertex polytope 8e6 m across (many duplicate vertices) by 727.6 m:
 * depth and normal right, but the witness on B 0.02 m outside B (the fuzz tolerance is
 * 1e-9 of the pair's size, 7.3e-3). The deepest point q = d n projected outside the nearest
 * face (a thin one on the rim of the disk swept over the polytope, where P is convex only
 * to 1e-9 of its size) and outside every face near its plane, and the weights were clamped
 * to the face's edge. Fix (epa.c): the face through which the ray from the origin along n
 * leaves P supplies the weights at its crossing point t n (t within P's non-convexity of
 * d). */
static void test_epa_witness_from_ray_face(void **state)
{
    (void)state;
    const gjk_vec3 far = {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21};
    const gjk_vec3 corner = {-0x1p+22, -0x1p+22, -0x1p+22};
    const gjk_vec3 mid = {0x1.7d2892694344ep+20, 0x1.7f3cb3ddae87p+20, 0x1.7f3cb3ddae87p+20};
    gjk_vec3 v[17] = {
        {0x1.4504f15031972p-19, 0x1.4504f15031972p-19, 0x1.4504f15031972p-19},
        far,
        far,
        far,
        far,
        far,
        far,
        {0x1.796220210b2edp+20, 0x1.7b70fc5700eccp+20, 0x1.7b70fc5700eccp+20},
        mid,
        corner,
        corner,
        corner,
        {-0x1.ff4bff4bff4cp+21, -0x1p+22, -0x1p+22},
        corner,
        corner,
        {-0x1p+22, -0x1.4b4b4b4b4b4b4p+21, -0x1.4b4b4b4b4b4b4p+21},
        mid,
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_cone(3710.4941176470593, 0.0);
    gjk_shape b = gjk_make_polytope(&poly);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.49149180761936068, 0.026446515118962104,
                                                        -0.61535356794916385, -0.61569178270734592),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb = nearly_identity();
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    double worst = -HUGE_VAL;
    for (int k = 0; k < 27; ++k) { /* the 26 directions of the cube's faces, edges, corners */
        gjk_vec3 u = gjk_v3(k % 3 - 1, k / 3 % 3 - 1, k / 9 - 1);
        if (k != 13) {
            u = gjk_normalize(u);
            worst = fmax(worst, gjk_dot(u, r.point_b) - h_world(&b, tb, u));
        }
    }
    gjk_polytope_destroy(&poly);
    assert_true(r.distance < -727.0);
    assert_le(worst, 1e-9 * 7.3e6);
}

/* epa.c (fuzz_gjk). The 3710 m disk against another 17-vertex polytope 8e6 m across,
 * whose vertices 11, 12 and 15 coincide and whose D has twins 1 ulp apart (at 2.3e6 m):
 * EPA ended "converged" 393 m shallow. Its support point w was such a twin of a horizon
 * vertex; the new face on that 5e-10 m edge took its normal from the edge's rounding, with
 * a plane 160 m inside P; it became the nearest face and its support point was a known
 * vertex, with a gap of 393 that the plane-rounding estimate (eps |p| / shortest edge, for
 * that edge enormous) let pass. Fix (epa.c, polytope_expand): a new vertex within rounding
 * (zero) of a horizon vertex is not added; it counts as a known vertex. And a face is only
 * spent while the next nearest face stays below the least support value (an upper bound
 * on the depth): spending the legitimate face here, whose gap of 5.8e-8 was rounding, had
 * made the answer 2.5e-3 too deep. */
static void test_epa_twin_support_point(void **state)
{
    (void)state;
    const gjk_vec3 p1 = {0x1.1f1f1f1f1f1f2p+21, 0x1.1f1f1f1f1f1f2p+21, 0x1.1f1f1f1f1f1f2p+21};
    const gjk_vec3 p8 = {0x1.050505050505p+20, 0x1.050505050505p+20, 0x1.050505050505p+20};
    const gjk_vec3 p11 = {-0x1.7e8ba5a05e7cap+20, -0x1.7e8ba5a05e7cap+20, -0x1.7e8ba5a05e7cap+20};
    gjk_vec3 v[17] = {
        {0x1.1e8b1e8b1e8b2p+21, 0x1.1f1f1f1f1f1f2p+21, 0x1.1f1f1f1f1f1f2p+21},
        p1,
        p1,
        p1,
        p1,
        p1,
        p1,
        {0x1.1f1f1f1f1f1f2p+21, 0x1.1f1f1f1f1f1f2p+21, 0x1.050505050505p+20},
        p8,
        p8,
        {0x1.050505050505p+20, 0x1.050505050505p+20, 0x1.052505250525p+20},
        p11,
        p11,
        {0x1.7e90440ece4f2p+20, 0x1.7e90440ece4f2p+20, 0x1.7e90440ece4f2p+20},
        {0x1.4b5b4b5b4b5b4p+21, 0x1.4b4b4b4b4b4b4p+21, -0x1.497f497f497f4p+21},
        p11,
        {-0x1p+22, -0x1p+22, -0x1p+22},
    };
    cold_warm r = against_polytope(gjk_make_cone(3710.4941176470593, 0.0), v, 17);
    double tol = 1e-9 * 7.3e6; /* the fuzz harness's, 1e-9 of the pair */
    assert_le(r.short_cold, tol);
    assert_le(r.short_warm, tol);
    /* Either normal's separation bounds the signed distance from below: neither answer may
     * be deeper than the other one's normal allows. */
    assert_le(fabs(r.cold.distance - r.warm.distance), 1e-7);
}

/* The 17 points of the fuzz inputs' 8e6 m needle (test_gjk_witnesses_off_v and
 * test_gjk_projection_below_lower_bound): a few near the origin, the rest along the diagonal;
 * the two inputs differ in points 14 and 15. */
static void needle_points(gjk_vec3 v[17], gjk_vec3 p14, gjk_vec3 p15)
{
    const gjk_vec3 p1 = {0x1.7d2892694344ep+20, 0x1.7f3cb3ddae87p+20, 0x1.7f3cb3ddae87p+20};
    const gjk_vec3 p4 = {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21};
    const gjk_vec3 p12 = {-0x1p+22, -0x1p+22, -0x1p+22};
    const gjk_vec3 all[17] = {
        {0x1.4504f15031972p-19, -0x1.4504f15031972p-19, 0x1.4504f15031972p-19},
        p1,
        p1,
        {0x1.4504f15031972p-18, 0x0p+0, 0x1.4504f15031972p-18},
        p4,
        p4,
        p4,
        p4,
        p4,
        p4,
        p1,
        {0x1.262087cced23fp+21, 0x1.27bb285cdea6dp+21, 0x1.27bb285cdea6dp+21},
        p12,
        p12,
        p14,
        p15,
        p4,
    };
    memcpy(v, all, sizeof all);
}

/* query.c, witnesses of a separated answer (fuzz_gjk, "moved to touch"). The 3710 m disk
 * and an 8e6 m polytope with margin 4.19 whose cores are 4.19 - 0.0025 apart, poses 1e4 m
 * out: |pb - pa - d n| = 0.011, 1.5 times the fuzz tolerance (1e-9 of the pair). GJK's v
 * (the projected origin) is accurate, but the witnesses are the simplex's barycentric
 * combinations of support points 8e6 m out, whose weights after 26 iterations on a thin
 * simplex carry that much rounding. Fix (query.c): the witnesses share the difference
 * (pa - pb) - v, so pa - pb = v exactly and each moves by half of it. */
static void test_gjk_witnesses_off_v(void **state)
{
    (void)state;
    gjk_vec3 v[17];
    needle_points(v, gjk_v3(-0x1p+22, -0x1p+22, -0x1p+22),
                  gjk_v3(-0x1p+22, -0x1.ff4bff4bff4cp+21, 0x1p+22));
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_cone(3710.4941176470593, 0.0);
    gjk_shape b = gjk_make_polytope(&poly);
    b.margin = 4.1943039999999998;
    gjk_transform ta =
        gjk_transform_make(gjk_quat_make(0.5, 0.5, 0.5, 0.5),
                           gjk_v3(7449.1167293850604, 7449.1167293850604, -4772.2768884295683));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.50000045000000004, 0.50000045000000004,
                                         0.50000045000000004, 0.50000045000000004),
                           gjk_v3(9203.2581402318101, 6572.0583943079237, -5654.117030985356));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    gjk_polytope_destroy(&poly);
    assert_true(fabs(r.distance) < 0.01);
    assert_le(identity_gap(&r), 1e-9 * 7.3e6);
}

/* gjk.c, an upper bound below the distance (fuzz/fixed 435647, from a garbage cache): the
 * disk and needle above, poses 1.2e4 m out. Seeded along the cache's direction (its kinds
 * are foreign, so only the direction is used), GJK's 25th step reduced to a sliver triangle
 * of three needle vertices nearly in a line, and the origin's projection onto its rounded
 * plane came out 0.011 m nearer than the distance, below the lower bound already certified;
 * the next step closed the "gap" and reported it. Fix (gjk.c, below_lower): a v below the
 * certified lower bound is not a point of D; that reduction is no progress and the previous
 * simplex stays. */
static void test_gjk_projection_below_lower_bound(void **state)
{
    (void)state;
    gjk_vec3 v[17];
    needle_points(v, gjk_v3(-0x1.febbfebbfebcp+21, -0x1p+22, -0x1p+22),
                  gjk_v3(-0x1p+22, -0x1.4bff4bff4bff4p+21, 0x1.fc03fc03fc04p+21));
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_cone(3710.4941176470593, 0.0);
    gjk_shape b = gjk_make_polytope(&poly);
    b.margin = 4.1943039999999998;
    gjk_transform ta =
        gjk_transform_make(gjk_quat_make(0.5, 0.5, 0.5, 0.5),
                           gjk_v3(7584.3795493738935, -4858.9330186993657, 7584.3795493738935));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.50000045000000004, 0.50000045000000004,
                                         0.50000045000000004, 0.50000045000000004),
                           gjk_v3(17566.245860398412, -4858.9330186993657, 7584.3795493738935));
    gjk_result cold = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    gjk_cache junk;
    memset(&junk, 0, sizeof junk);
    junk.count = 164;
    junk.kind_a = junk.kind_b = 164;
    junk.direction[0] = -0x1.49481p-54f;
    junk.direction[1] = junk.direction[2] = -0x1.494948p-54f;
    gjk_result garbage = gjk_signed_distance(&a, ta, &b, tb, &junk, NULL);
    gjk_polytope_destroy(&poly);
    const double tol = 7.28e-3; /* the fuzz harness's: 1e-9 of the pair's 7.28e6 m */
    assert_int_equal(garbage.status, GJK_STATUS_SEPARATED);
    assert_le(fabs(garbage.distance - cold.distance), tol);
    assert_true(garbage.lower_bound <= garbage.distance && garbage.distance <= garbage.upper_bound);
    assert_le(identity_gap(&garbage), tol);
}

/* epa.c, warm start (fuzz_gjk). The 3710 m disk against a polytope that is a segment of
 * 17 collinear points along the diagonal, 8e6 m long, through the disk's centre: D is a
 * slanted elliptic cylinder, depth 2142.2548 (the ellipse's minor semi-axis, 3710 / sqrt 3).
 * The cold query gets it; warm from its cache EPA reported TOUCHING, depth 0, after a face
 * of two rim points 7.3e-6 m apart and a far vertex (edges 7e-6 and 7.6e6 m at 2.3e6 m
 * coordinates) came out with plane distance -2142: the vertices' rounding (5e-10) turns
 * that face by 7e-5 rad, 500 m over its length, and its determinant is below the fold
 * test's worst-case rounding. Partly fixed (epa.c, polytope_expand): with the origin
 * inside P no new face may pass on its far side, which catches that face; the warm answer
 * is now -2142.2070 with a normal 0.137 m short (the harness allows 7.3e-3). Still open:
 * other thin faces of the swept rim keep P convex only to ~0.1 m here. A fix would compute
 * such faces' planes from the exact support features (rim angle, polytope vertex) rather
 * than from the rounded points, or refuse new vertices closer to a horizon vertex than
 * eps |p| / (allowed tilt). */
/* fuzz_gjk, "moved to touch": a 1e-7 m disk on the rim of a 67 m disk-like cone (height
 * 2e-4). The rim is a knife edge: its normal cone spans the radial plane, and any tangential
 * tilt costs the rim's radius times the tilt. GJK's v at |v| = 1e-12 was tilted 4.6e-3 rad
 * sideways: the separation along the normal came out 0.31 m short. */
static void test_normal_at_disk_rim(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(67.468802929732206, 0.00010566958113984892);
    gjk_shape b = gjk_make_cone(9.8254749370565339e-08, 0.0);
    gjk_transform ta =
        gjk_transform_make(gjk_quat_make(1, 0, 0, 0),
                           gjk_v3(-0.12369840741117778, 0.12369840741117778, 0.12369840741117778));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(1, 0, 0, 0),
                           gjk_v3(-47.905946749007853, -47.509232695461833, 0.12359273783113167));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    double short_by = r.distance - separation(&a, ta, &b, tb, r.normal);
    assert_true(fabs(r.distance) <= 1e-9);
    assert_le(short_by, 1e-9 * 67.5);
}

/* fuzz_gjk, "moved to touch": a 0.26 m box face pressed on the apex of a 184 m cone of
 * height 2e-6 (a disk). The apex's normal cone is 1e-8 rad wide around the axis; the normal
 * came out 1e-5 rad off it, and the disk's far rim made it 1.9 mm short. */
static void test_normal_at_flat_cone_apex(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(184.47058823529412, 1.003921568627451e-06);
    gjk_shape b = gjk_make_box(gjk_v3(0, 0.13125000000000001, 0.13125000000000001));
    b.margin = 1.2499999999999999e-07;
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.5, 0.5, 0.5, 0.5), gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.50000045000000004, 0.50000045000000004,
                                                        0.50000045000000004, 0.50000045000000004),
                                          gjk_v3(0.13125112892156854, -1.428584077744604e-09, 0));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    double short_by = r.distance - separation(&a, ta, &b, tb, r.normal);
    assert_true(fabs(r.distance) <= 1e-9);
    assert_le(short_by, 1e-9 * 184.5);
}

/* query.c, GJK's witnesses at contact (fuzz_gjk, fuzz/fixed/fuzz_gjk/aaee0b...): a point on
 * a flat quad 1e-3 m wide (five vertices coplanar to the last bits). GJK stopped at contact,
 * EPA found D flat, and GJK's witnesses were kept as they were: the one on the quad lay
 * 9.5e-9 m from the point at a distance of 2.6e-19 (the harness allows 6.6e-11). Fix: their
 * weights' rounding is shared out along v as for a separation. */
static void test_witness_point_on_flat_quad(void **state)
{
    (void)state;
    const gjk_vec3 pa[1] = {{0x1.03a7a7a7a7a7ap-10, 0x1.db34560987b07p-18, 0x1.92ff9710cff27p-17}};
    const gjk_vec3 quad[5] = {
        {0x1.0e9e9e9e9e9eap-5, 0x1.4acdd08521f8dp-10, 0x1.4acdd08521f8dp-10},
        {0x1.0e9e9e9e9e9eap-5, 0x1.4acdd08521f8dp-10, 0x1.4acdd08521f8dp-10},
        {0x1.0e9e9e9e9e9eap-5, -0x1.dc3311b91c57fp-13, -0x1.dc3311b91c57fp-13},
        {0x1.0e9e9e9e9e9bdp-5, 0x1.4acdd08520ecap-10, 0x1.4acdd08523df9p-10},
        {0x1.0e9e9e9e9e9eap-5, 0x1.6a09e667f3bccp-10, 0x1.6a09e667f3bccp-10},
    };
    gjk_polytope pp, pq;
    assert_int_equal(gjk_polytope_create(&pp, pa, 1, NULL, NULL), GJK_STATUS_SEPARATED);
    assert_int_equal(gjk_polytope_create(&pq, quad, 5, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&pp), b = gjk_make_polytope(&pq);
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.99999910000000003, 0, 0, 0),
        gjk_v3(-0.032044115253523235, -2.4645951409482104e-06, 2.4645951342240148e-06));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 6.61e-11; /* the harness's: 1e-9 of the pair's size and rounding */
    assert_le(fabs(r.distance), tol);
    assert_le(identity_gap(&r), tol);
    const gjk_vec3 dirs[] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    assert_witnesses_on_shapes(&a, ta, &b, tb, &r, dirs, sizeof dirs / sizeof dirs[0], tol);
    gjk_polytope_destroy(&pp);
    gjk_polytope_destroy(&pq);
}

/* query.c, the normal of a converged separation (fuzz_gjk, fuzz/fixed/fuzz_gjk/ae5d4e...): a
 * disk 3.1e-5 m wide (a cone 1e-10 high) 2.6e-9 from a speck (a cone of 1e-13). GJK's |v|
 * converged to 1e-12 of the distance, its direction only to 1.35e-6 rad, and along it the
 * disk's rim reached 4.2e-11 past the speck's plane (the harness allows 3.1e-14). Fix: the
 * direction of GJK's best lower bound, which certifies the distance, is the normal when turning
 * to it costs pb - pa = d n less than v's direction costs the separation. */
static void test_normal_of_wide_disk_near_speck(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(3.121794338783665e-05, 5.0387182779240095e-11);
    gjk_shape b = gjk_make_cone(9.3964969410615802e-14, 4.9086178050321686e-14);
    b.margin = 9.3964969410615802e-14;
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.70688582182608639, -0.017675828163297987,
                                                        0.70688582182608639, -0.017675828163297987),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.70703490418697756, 0.010081877866332196, 0.70703490418697756,
                      0.010081877866332196),
        gjk_v3(-2.6066125160949689e-09, -1.3346695151362122e-08, -1.3346695151362122e-08));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 3.12e-14; /* the harness's: 1e-9 of the pair's size and rounding */
    assert_int_equal(r.status, GJK_STATUS_SEPARATED);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), tol);
}

/* gjk.c, polish (fuzz_gjk, a seed-448 scan; fuzz/fixed 7b3993): a cone 67 m wide and 2e-4
 * thick over a speck (a cone 1e-7 across) 0.36 m below its base. GJK's gap closed on the
 * relative tolerance with a segment simplex, a chord of the base's rim passing 3.8e-7 m beside
 * the point nearest the speck: |v| was 2e-13 long but 1e-6 rad off the axis, so along the
 * reported normal the rim stood 7.1e-5 above the contact. The direction of the best lower
 * bound was exact, but turning to it would have cost pb - pa = d n 3.6e-7, over the turn
 * budget. Fix: the last support point, not in the simplex, grows it once more (no support
 * call), which puts v on the base: normal and witnesses exact. */
static void test_polish_v_on_flat_cone_base(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(67.468802929732206, 0.00010566958113984892);
    gjk_shape b = gjk_make_cone(9.8254749370565339e-08, 5.1653696498054469e-08);
    gjk_quat q = gjk_quat_make(0.99982833536150983, -0.010697348709410606, 0.010697348709410606,
                               0.010697348709410606);
    gjk_transform ta =
        gjk_transform_make(q, gjk_v3(0.1034808284444001, -0.10350804677169229, -0.10350805366415299));
    gjk_transform tb = gjk_transform_make(
        q, gjk_v3(-1.0920061314593168, -1.5304043123851336, -0.40681455781953435));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 6.94e-8; /* the harness's: 1e-9 of the pair's size and rounding */
    assert_int_equal(r.status, GJK_STATUS_SEPARATED);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(fabs(r.distance - separation(&a, ta, &b, tb, gjk_quat_rotate(q, gjk_v3(0, 0, -1)))),
              tol);
    assert_le(identity_gap(&r), tol);
}

/* gjk.c, polish (fuzz_gjk, a seed-446 scan; fuzz/fixed 701cdc): a cone 184 m wide and 2e-4
 * thick 134 m above a smaller flat cone. The same early stop on a chord left v 2.8e-9 rad off
 * the axis; the query turned the normal to the exact direction of the lower bound (within the
 * turn budget), which put pb - pa = d n 3.75e-7 out of step, the harness allowing 3.7e-7. With
 * the polished simplex v is on the axis and nothing turns. */
static void test_polish_v_identity_far_flat_cones(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(184.47058823529412, 0.00010584927138170442);
    gjk_shape b = gjk_make_cone(0.41758411535820555, 3.941176470588235e-07);
    gjk_quat q = gjk_quat_make(0.99968751627570263, -0.024997395914712332, 0, 0);
    gjk_transform ta = gjk_transform_make(q, gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(
        q, gjk_v3(40.909697195967752, -127.72221455565466, -127.72221455565466));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 3.7e-7; /* the harness's: 1e-9 of the pair's size and rounding */
    assert_int_equal(r.status, GJK_STATUS_SEPARATED);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), 1e-2 * tol);
}

/* query.c, the normal where the rounded shapes touch but the cores do not (fuzz_gjk, a
 * seed-15 scan): a 6.9e-10 m disk on the apex of a cone of radius 184 m and half height
 * 2e-4 with a 2e-4 margin. The cores are 2e-4 apart, just over the millionth of the pair's
 * size within which the contact normal is checked, and GJK's v, converged to 1e-15 in
 * length, was 4e-6 rad off the axis: along it the cone's rim stands 3.4e-4 above the contact.
 * Fix: the contact normal is also checked where the signed distance is within that band;
 * a turned normal's error in pb - pa = d n (the cores stay |v| apart along the old one:
 * 1.2e-4 for a 108 m margin, seen when the first version of this fix ignored it) is taken up
 * by the rounded witnesses, in proportion to their radii. */
static void test_normal_at_rounded_flat_cone_apex(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(184.13073929961089, 0.00020178823529411763);
    a.margin = 0.00020178823529411763;
    gjk_shape b = gjk_make_cone(6.8856336308842608e-10, 0);
    gjk_transform ta = gjk_transform_make(
        gjk_quat_make(1, 0, 0, 0),
        gjk_v3(0.0010142351278798925, 0.0010142351278798925, -2.9262719748777866e-06));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.99999910000000003, 0, 0, 0),
        gjk_v3(0.0010142360036584025, 0.0010142350034574475, 0.0004006501986119033));
    const double tol = 1.84e-7; /* the fuzz harness's: 1e-9 of the pair's size */
    gjk_result r[2] = {gjk_distance(&a, ta, &b, tb, NULL, NULL),
                       gjk_signed_distance(&a, ta, &b, tb, NULL, NULL)};
    for (int k = 0; k < 2; ++k) {
        assert_true(fabs(r[k].distance) <= tol);
        assert_le(r[k].distance - separation(&a, ta, &b, tb, r[k].normal), tol);
        assert_le(identity_gap(&r[k]), tol);
    }
}

/* epa.c, the known-vertex exit (fuzz_gjk, fuzz/open/fuzz_gjk-crash-2b517b...): a disk of
 * radius 3.5e-6 inside a 4e-3 m polytope with a 2.4e-6 margin. Cold, EPA stopped on a support
 * point that was already a vertex, 3.3e-11 above a sliver face (an edge of 3e-17 m between
 * near-twin rim points) and took that gap for the face plane's rounding, which the sliver's
 * normal (known to 3e-2 rad) put at 1.4e-3 m: depth 5.1236855e-6, 2e-11 shallow, and the
 * separation along its normal 3.3e-11 deeper than the answer. Warm was right. Fix: a plane
 * rounding above 1e-10 of the pair's scale certifies nothing; the face is spent. */
static void test_epa_sliver_face_noise(void **state)
{
    (void)state;
    const gjk_vec3 twin = {-0x1.ff0d38b76860bp-10, -0x1.8bf5e4370f795p-10, -0x1.8d0ea0a762422p-9};
    const gjk_vec3 corner = {-0x1p-8, -0x1p-8, -0x1p-8};
    const gjk_vec3 v[17] = {
        {-0x1.4f4b4f4b4f4b5p-9, -0x1.4b4b4b4b4b4b4p-9, -0x1.4b4b4b4b4b4b4p-9},
        {-0x1.fc9263d01fa5cp-10, -0x1.8a0a06d9b5b6cp-10, -0x1.8b21668e983d5p-9},
        twin, twin, twin, twin, twin, twin, twin, twin,
        {0x1.4767beca765fcp-10, 0x1.fb581faa73ebfp-11, 0x1.fcbfd4b38be7p-10},
        {0x1.4aae33c1f83e8p-10, 0x1.0035b1c9463f6p-10, 0x1.00eb58e4c71bbp-9},
        corner, corner, corner,
        {-0x1.ff4bff4bff4cp-9, 0x1p-8, 0x1p-8},
        twin,
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape b = gjk_make_polytope(&poly);
    b.margin = 2.4438277256427865e-06;
    gjk_shape a = gjk_make_cone(3.4556669347426475e-06, 0.0);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0, 0, 1, 0), gjk_v3(0, 0, 0));
    gjk_transform tb = nearly_identity();
    gjk_result cold, warm;
    cold_then_warm(&a, ta, &b, tb, &cold, &warm);
    const double tol = 1e-9 * 6.8e-3; /* the fuzz harness's: 1e-9 of the pair's size */
    assert_int_equal(cold.status, GJK_STATUS_OVERLAPPING);
    assert_int_equal(warm.status, GJK_STATUS_OVERLAPPING);
    assert_le(fabs(cold.distance - warm.distance), tol);
    /* Each answer is realised by its own normal: no direction separates the shapes less
     * deeply than the reported depth (to rounding). */
    assert_le(cold.distance - separation(&a, ta, &b, tb, cold.normal), tol);
    assert_le(warm.distance - separation(&a, ta, &b, tb, warm.normal), tol);
    gjk_polytope_destroy(&poly);
}

/* epa.c, a broken polytope (fuzz_gjk, corpus b2bb6d...): a 4.7 km disk touching a 7e6 m
 * needle. After one expansion EPA's nearest face lay 0.0257 deep, beyond the support value
 * of 4.2e-8 it had already seen (an upper bound on the depth): rounding had broken P, and EPA
 * "converged" on that face with a depth 0.0257 too deep and a witness 0.0257 off the
 * needle. Fix: a face deeper than a support value by more than any plane's rounding ends EPA,
 * answered by the face whose support value was least. */
static void test_epa_face_beyond_support_value(void **state)
{
    (void)state;
    const gjk_vec3 near0 = {-0x1.0371eff10acc7p-18, -0x1.34c1fcb797948p-20, -0x1.34c1fcb797948p-20};
    const gjk_vec3 v1 = {0x1.1f7b1945f0456p+16, 0x1.2e5132a1be72cp+19, 0x1.26d6e1b14085cp+16};
    const gjk_vec3 v5 = {-0x1.2688140b856f7p+21, -0x1.2823452b4cae3p+21, -0x1.2823452b4cae3p+21};
    const gjk_vec3 v14 = {-0x1p+22, -0x1p+22, -0x1p+22};
    const gjk_vec3 v[17] = {
        near0, v1, v1, near0,
        {0x1.fc03fc03fc04p+21, 0x1p+22, 0x1p+22},
        v5, v5, v5, v5, v5, v5, v5,
        {0x1.7d2892694344ep+20, 0x1.7f3cb3ddae87p+20, 0x1.7f3cb3ddae87p+20},
        {0x1.2688140b856f7p+21, 0x1.2823452b4cae3p+21, 0x1.2823452b4cae3p+21},
        v14, v14,
        {-0x1p+22, 0x1.c403c403c403cp+21, -0x1.4bff4bff4bff4p+21},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape b = gjk_make_polytope(&poly);
    gjk_shape a = gjk_make_cone(4734.5097428854815, 0.0);
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0),
                                          gjk_v3(0, 2367.2548714426275, -2367.2548714426275));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 7.27e-3; /* the fuzz harness's: 1e-9 of the pair's 7.27e6 m */
    assert_true(r.status == GJK_STATUS_TOUCHING || r.status == GJK_STATUS_OVERLAPPING);
    assert_le(fabs(r.distance), tol); /* it touches: the harness had moved it to touch */
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    const double c = 0.70710678118654746;
    const gjk_vec3 dirs[] = {{0, -c, c}, {0, c, -c}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                             {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    assert_witnesses_on_shapes(&a, ta, &b, tb, &r, dirs, sizeof dirs / sizeof dirs[0], tol);
    gjk_polytope_destroy(&poly);
}

/* query.c and epa.c, the normal at contact (fuzz_gjk, corpus 53a301...): a point on the side
 * of a 7.6e-3 m needle 1e-8 thick (17 points, nearly colinear, near-duplicates). EPA's
 * polytope is a sliver: it stopped on a face whose plane the origin lay 1.1e-9 outside, with
 * depth 0 and that face's normal, along which the needle reaches 1.1e-8 past the point; the
 * query took the normal as certified (its separation read as -depth). Its least support
 * value, 1.5e-15, was along another direction. Fix: EPA reports the separation its support
 * values certify along its normal (here -1.1e-8) and the direction of its least support value,
 * and the touching band's normal is the better of the two. */
static void test_normal_point_on_needle_side(void **state)
{
    (void)state;
    const gjk_vec3 v[17] = {
        {-0x1.be0155d790abap-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {0x1.c5b2b2398ea89p-10, -0x1.d83c18e27bf59p-8, -0x1.dbb9acf6ea83fp-10},
        {0x1.4f388c9c96d42p-13, -0x1.5ceac0adff2ecp-11, -0x1.5f7efc2fed67fp-13},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {0x1.4f388c9c6e121p-13, -0x1.5ceac0adf50d5p-11, -0x1.5f7efc2fc4ce1p-13},
        {-0x1.601980765eff2p-10, 0x1.6e7c3f06036bp-8, 0x1.7131b8d6ce8bp-10},
        {0x1.4f388c9c96d43p-13, -0x1.5ceac0adff2ecp-11, -0x1.5f7efc2fed67fp-13},
        {0x1.4f388c9c6e122p-13, -0x1.5ceac0adf50d5p-11, -0x1.5f7efc2fc4ce1p-13},
        {0x1.4f388c9c6e122p-13, -0x1.5ceac0adf50d5p-11, -0x1.5f7efc2fc4ce1p-13},
        {0x1.4f388c9c6e123p-13, -0x1.5ceac0adf50d5p-11, -0x1.5f7efc2fc4ce1p-13},
        {0x1.4f388c9c96d44p-13, -0x1.5ceac0adff2ecp-11, -0x1.5f7efc2fed67fp-13},
        {0x1.4f388c9c96d44p-13, -0x1.5ceac0adff2ecp-11, -0x1.5f7efc2fed67fp-13},
        {0x1.4f388c9c6e123p-13, -0x1.5ceac0adf50d5p-11, -0x1.5f7efc2fc4ce1p-13},
        {0x1.4f388c9c6e124p-13, -0x1.5ceac0adf50d5p-11, -0x1.5f7efc2fc4ce1p-13},
        {0x1.4f388c9c6e122p-13, -0x1.5ceac0adf50d5p-11, -0x1.5f7efc2fc4ce1p-13},
        {0x1.4f388c9c96d45p-13, -0x1.5ceac0adff2ecp-11, -0x1.5f7efc2fed67fp-13},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&poly);
    gjk_shape b = gjk_make_point();
    gjk_transform ta = gjk_transform_identity(), tb = nearly_identity();
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 1e-9 * 7.6e-3; /* the fuzz harness's: 1e-9 of the pair's size */
    assert_true(fabs(r.distance) <= tol);
    /* The normal realises the answer: the needle does not reach past the point along it. */
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    gjk_polytope_destroy(&poly);
}

/* query.c, the witnesses at contact (fuzz_gjk, corpus 27edc0...): a point touching the side
 * of a needle like the one above. EPA ended with depth 0 on a face whose plane passed 1.1e-9
 * beside the origin, and its weights for that plane's point put both witnesses 9e-9 off the
 * point (the harness allows 7.6e-12); GJK's final simplex held the origin within 3e-19. Fix:
 * an EPA answer of depth 0 behind a GJK contact keeps GJK's witnesses, as a TOUCHING one did. */
static void test_witness_point_on_needle_side(void **state)
{
    (void)state;
    const gjk_vec3 v[17] = {
        {-0x1.be0155d790abap-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {-0x1.e4f52197a37a8p-8, 0x1.e4fad0881510dp-24, -0x1.e723fe9df04adp-10},
        {-0x1.6651418d3010dp-11, 0x1.6655748d8db81p-27, -0x1.67ee2e067f2f2p-13},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {-0x1.6651418d3a415p-11, 0x1.66557eaf00009p-27, -0x1.67ee2e0656954p-13},
        {0x1.785beb6710d7p-8, -0x1.786054880e6dbp-24, 0x1.7a0da268799fap-10},
        {-0x1.6651418d3010cp-11, 0x1.6655748d8db81p-27, -0x1.67ee2e067f2f2p-13},
        {-0x1.6651418d3a414p-11, 0x1.66557eaf00009p-27, -0x1.67ee2e0656954p-13},
        {-0x1.6651418d3a414p-11, 0x1.66557eaf00009p-27, -0x1.67ee2e0656954p-13},
        {-0x1.6651418d3a413p-11, 0x1.66557eaf00009p-27, -0x1.67ee2e0656954p-13},
        {-0x1.6651418d3010bp-11, 0x1.6655748d8db81p-27, -0x1.67ee2e067f2f2p-13},
        {-0x1.6651418d3010bp-11, 0x1.6655748d8db81p-27, -0x1.67ee2e067f2f2p-13},
        {-0x1.6651418d3a413p-11, 0x1.66557eaf00009p-27, -0x1.67ee2e0656954p-13},
        {-0x1.6651418d3a412p-11, 0x1.66557eaf00009p-27, -0x1.67ee2e0656954p-13},
        {-0x1.6651418d3a414p-11, 0x1.66557eaf00009p-27, -0x1.67ee2e0656954p-13},
        {-0x1.6651418d3010ap-11, 0x1.6655748d8db81p-27, -0x1.67ee2e067f2f2p-13},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&poly);
    gjk_shape b = gjk_make_point();
    gjk_transform ta = gjk_transform_identity(), tb = nearly_identity();
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 1e-9 * 7.6e-3;
    assert_true(fabs(r.distance) <= tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    /* B is the point at the origin: its witness is the origin, and A's is within the
     * distance of it. */
    assert_le(gjk_length(r.point_b), tol);
    assert_le(gjk_length(gjk_sub(r.point_b, r.point_a)), tol);
    gjk_polytope_destroy(&poly);
}

/* query.c, GJK's witnesses (fuzz_gjk, once fuzz/open 6af93a; with b49f03, 3ac990, c6dc09,
 * 258d6b): a 3.7 km disk (a flat cone) touching a needle of 8e6 m with a 4.19 m margin. GJK's
 * final triangle had three rim points 7 mm apart on the disk and three needle vertices 8e6 m
 * apart, and its weights' rounding, times those extents, left the witnesses' difference 0.035 m
 * from v; splitting that evenly put the disk's witness 0.011 m off the disk (the harness
 * allows 7.3e-3). Fix: each witness takes the share of its simplex's extent. */
static void test_witness_disk_rim_on_needle(void **state)
{
    (void)state;
    const gjk_vec3 v[18] = {
        {0x1.4747474747474p+21, 0x1.4747474747474p+21, 0x1.4747474747474p+21},
        {0x1.4747474747474p+21, 0x1.4747474747474p+21, 0x1.4747474747474p+21},
        {0x1.4747474747474p+21, 0x1.4747474747474p+21, 0x1.4747474747474p+21},
        {0x1.4747474747474p+21, 0x1.4747474747474p+21, 0x1.4747474747474p+21},
        {0x1.4747474747474p+21, 0x1.4747474747474p+21, 0x1.4747474747474p+21},
        {0x1.068d068d068dp+20, -0x1.42fd42fd42fd4p+20, 0x1.050505050505p+20},
        {0x1.25b5790d25dcbp+21, 0x1.25b5790d25dcbp+21, 0x1.25b5790d25dcbp+21},
        {-0x1.279a74590331dp+21, -0x1.279a74590331dp+21, -0x1.279a74590331dp+21},
        {-0x1.f3fff3fff3fffp+21, -0x1.4bff4bff4bff4p+21, -0x1.534b534b534b5p+21},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1.7e8ba5a05e7cap+20, -0x1.7e8ba5a05e7cap+20, -0x1.7e8ba5a05e7cap+20},
        {-0x1.25f74ab2df542p+19, -0x1.25f74ab2df542p+19, -0x1.25f74ab2df542p+19},
        {0x1.254b3d2119f38p+21, 0x1.254b3d2119f38p+21, 0x1.254b3d2119f38p+21},
        {-0x1.fc23fc23fc24p+21, 0x1p+22, 0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {0x1.fbfffbfffcp+21, 0x1p+22, 0x1p+22},
        {0x1.279a74590331dp+21, 0x1.279a74590331dp+21, 0x1.279a74590331dp+21},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 18, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape b = gjk_make_polytope(&poly);
    b.margin = 4.1943039999999998;
    gjk_shape a = gjk_make_cone(3710.4941176470593, 0.0);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.6356912498331595, -0.41132963224498553,
                                                        -0.41132963224498553, 0.50745689684934381),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(-0.44277168283170248, -0.51767152934500604, -0.51767152934500604,
                      -0.51767152934500604),
        gjk_v3(886.71154511810698, -317.96245905079405, -568.74908606731287));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 7.27e-3; /* the fuzz harness's: 1e-9 of the pair's 7.27e6 m */
    assert_le(identity_gap(&r), tol);
    const gjk_vec3 dirs[] = {{0.94042141355290176, -0.10549317850801321, -0.32323173454881982},
                             {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    assert_witnesses_on_shapes(&a, ta, &b, tb, &r, dirs, sizeof dirs / sizeof dirs[0], tol);
    gjk_polytope_destroy(&poly);
}

/* epa.c, the witnesses of a shallow answer (fuzz_gjk, corpus 62a937...): a point 3.3e-10 deep
 * in a needle like those above (7.6e-3 m, 1e-8 thick). EPA's face weights reproduced its
 * point only to their rounding, and all of the difference went to the point's witness, 3.1e-10
 * off the point (the harness allows 7.6e-12). Fix: the difference is shared in proportion to
 * the extents of the face's support points on each shape, and a point has none. (The normal
 * here is also why EPA's least-support direction may replace EPA's normal only at contact:
 * taken at this depth it turned the normal half a turn and left pb - pa 6.7e-10 off d n.) */
static void test_epa_witness_point_in_needle(void **state)
{
    (void)state;
    const gjk_vec3 v[17] = {
        {-0x1.be0155d790abap-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {0x1.207ed14113489p-9, -0x1.d0427dbae6b05p-8, -0x1.d3b0fa9d4b3a8p-10},
        {0x1.aa51404ada15dp-13, -0x1.570648d7781ddp-11, -0x1.598f5df9ab298p-13},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {0x1.aa51404ab153cp-13, -0x1.570648d76dfc6p-11, -0x1.598f5df9828fap-13},
        {-0x1.bfc86cdf9e9cdp-10, 0x1.684bd33baa39dp-8, 0x1.6af596f43a7f9p-10},
        {0x1.aa51404ada15ep-13, -0x1.570648d7781ddp-11, -0x1.598f5df9ab298p-13},
        {0x1.aa51404ab153dp-13, -0x1.570648d76dfc6p-11, -0x1.598f5df9828fap-13},
        {0x1.aa51404ab153dp-13, -0x1.570648d76dfc6p-11, -0x1.598f5df9828fap-13},
        {0x1.aa51404ab153ep-13, -0x1.570648d76dfc6p-11, -0x1.598f5df9828fap-13},
        {0x1.aa51404ada15fp-13, -0x1.570648d7781ddp-11, -0x1.598f5df9ab298p-13},
        {0x1.aa51404ada15fp-13, -0x1.570648d7781ddp-11, -0x1.598f5df9ab298p-13},
        {0x1.aa51404ab153ep-13, -0x1.570648d76dfc6p-11, -0x1.598f5df9828fap-13},
        {0x1.aa51404ab153fp-13, -0x1.570648d76dfc6p-11, -0x1.598f5df9828fap-13},
        {0x1.aa51404ab153dp-13, -0x1.570648d76dfc6p-11, -0x1.598f5df9828fap-13},
        {0x1.aa51404ada16p-13, -0x1.570648d7781ddp-11, -0x1.598f5df9ab298p-13},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&poly);
    gjk_shape b = gjk_make_point();
    const gjk_vec3 at = {-3.9758801987683101e-19, -1.161644695648226e-19, -2.9255775891472726e-20};
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), at);
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 1e-9 * 7.6e-3;
    assert_true(r.distance <= tol && r.distance >= -1e-9);
    assert_le(identity_gap(&r), tol);
    assert_le(gjk_distance_between(r.point_b, at), tol); /* B's witness is B */
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol + 1e-6 * 7.6e-3);
    gjk_polytope_destroy(&poly);
}

/* epa.c, the seed tetrahedron (fuzz_gjk, fuzz/fixed/fuzz_gjk/646650...): a point on a needle
 * 1.35e-2 m long and 5e-15 across (like those above), 3e-18 inside it by a long-double hull.
 * GJK stopped at contact with a triangle along the needle, a sliver whose normal came out
 * 6e-6 rad off; the support along it was the triangle's own far vertex, 1.2e-12 "off" the
 * plane, and it was taken as the tetrahedron's fourth vertex. EPA grew the tetrahedron, two of
 * its faces back to back, into a depth of 3.6e-9 (OVERLAPPING, a wrong verdict) along a normal
 * the needle reaches 4.8e-8 beyond the point. Fix: a seed vertex is never taken twice, and a
 * flat sliver seed takes the normal of the least support value, here across the needle. */
static void test_epa_normal_point_in_needle(void **state)
{
    (void)state;
    const gjk_vec3 v[17] = {
        {-0x1.be0155d790abap-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {0x1.4e6ad35af5ed3p-10, -0x1.5c149fae55e46p-8, -0x1.5d17b84c37132p-8},
        {0x1.ee2d6bbb8dde4p-14, -0x1.012f1b0b3b631p-11, -0x1.01ee8ad5b5ca7p-11},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
        {0x1.ee2d6bbb3c5a1p-14, -0x1.012f1b0b3141ap-11, -0x1.01ee8ad5aba3fp-11},
        {-0x1.0387a6a12fa12p-10, 0x1.0e222c50f4eb5p-8, 0x1.0eeb3fb34f629p-8},
        {0x1.ee2d6bbb8dde5p-14, -0x1.012f1b0b3b631p-11, -0x1.01ee8ad5b5ca7p-11},
        {0x1.ee2d6bbb3c5a2p-14, -0x1.012f1b0b3141ap-11, -0x1.01ee8ad5aba3fp-11},
        {0x1.ee2d6bbb3c5a2p-14, -0x1.012f1b0b3141ap-11, -0x1.01ee8ad5aba3fp-11},
        {0x1.ee2d6bbb3c5a3p-14, -0x1.012f1b0b3141ap-11, -0x1.01ee8ad5aba3fp-11},
        {0x1.ee2d6bbb8dde6p-14, -0x1.012f1b0b3b631p-11, -0x1.01ee8ad5b5ca7p-11},
        {0x1.ee2d6bbb8dde6p-14, -0x1.012f1b0b3b631p-11, -0x1.01ee8ad5b5ca7p-11},
        {0x1.ee2d6bbb3c5a3p-14, -0x1.012f1b0b3141ap-11, -0x1.01ee8ad5aba3fp-11},
        {0x1.ee2d6bbb3c5a4p-14, -0x1.012f1b0b3141ap-11, -0x1.01ee8ad5aba3fp-11},
        {0x1.ee2d6bbb3c5a2p-14, -0x1.012f1b0b3141ap-11, -0x1.01ee8ad5aba3fp-11},
        {0x1.ee2d6bbb8dde7p-14, -0x1.012f1b0b3b631p-11, -0x1.01ee8ad5b5ca7p-11},
        {-0x1.be0155d790ab9p-49, -0x1.ce528e0e47ea2p-48, -0x1.ce57f90b5d12p-49},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&poly);
    gjk_shape b = gjk_make_point();
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb = gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0),
                                          gjk_v3(0, -1.4524160455138509e-19, 1.4482051803479448e-19));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double size = 7.6e-3, tol = 1e-9 * size;
    assert_int_equal(r.status, GJK_STATUS_TOUCHING);
    assert_le(fabs(r.distance), tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), tol);
    gjk_polytope_destroy(&poly);
}

/* OPEN (fuzz_gjk, fuzz/open/fuzz_gjk-crash-cfaf9b... and 1e83ee...): a capsule (radius 0.94,
 * half height 0.51) at the centre of a cylinder of radius and half height 134.4, both at the
 * origin. Depth 135.3387 along the capsule's radius and the cylinder's rim: EPA's long narrow
 * faces on the cylinder's curved side break the polytope at iteration ~144 (a nearest face
 * falls back 1.65e-7, above its plane's rounding), and the tightest face seen answers at its
 * support value: 2.4e-7 too deep, where the harness allows 1e-9 of the pair's size
 * (1.92e-7). The direction (-1, 0, 0) certifies a shallower depth. */
static void test_epa_capsule_centred_in_cylinder_depth(void **state)
{
    OPEN_FINDING();
    (void)state;
    gjk_shape a = gjk_make_capsule(0.93869687953002212, 0.5058899824521248);
    a.margin = 1.6917982757305255e-06;
    gjk_shape b = gjk_make_cylinder(134.40000000000001, 134.40000000000001);
    gjk_transform ta = gjk_transform_make(
        gjk_quat_make(0.51433986972750922, 0.48924501919279018, -0.48543766495782681,
                      0.51033722482690602),
        gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.99968751627570263, -0.024997395914712332, 0, 0), gjk_v3(0, 0, 0));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 1.92e-7; /* the harness's: 1e-9 of the pair's size */
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_le(separation(&a, ta, &b, tb, gjk_v3(-1, 0, 0)) - r.distance, tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), tol);
}

/* OPEN (fuzz_gjk, fuzz/open/fuzz_gjk-crash-07c1e5... and 1f5489..., "moved to touch"): the
 * 3.7 km disk 6.5e-6 m into a needle of 17 points (two of them 2.4e-6 m from its axis, the
 * others 1.2e6 to 4.2e6 m out along the diagonal). Depth and normal are right (the normal's
 * separation is within 2.3e-13 of the depth), but the needle's witness lies 0.141 m off the
 * needle across its width (1f5489: 0.48 m), where the harness allows 1e-9 of the pair's size
 * (7.3e-3 m). Traced: the origin's projection d n misses EPA's answering face by 0.28 m (its
 * weights clamp to an edge, 0.39 / 0.61 / 0), the weighted points are on their shapes but
 * 0.28 m out of step with d n, and sharing that out (epa.c, answer_at) moves the needle's point
 * off a needle 1e-6 wide. Sharing by the extents along the difference instead of overall
 * extents halved it (0.066 m) and was not kept; a fix needs the face that holds d n. */
static void test_epa_witness_disk_in_needle(void **state)
{
    OPEN_FINDING();
    (void)state;
    const gjk_vec3 far = {-0x1p+22, -0x1p+22, -0x1p+22};
    const gjk_vec3 v[17] = {
        {0x1.4504f15031972p-19, 0x1.4504f15031972p-19, 0x1.4504f15031972p-19},
        {-0x1.24893e09eb727p+21, -0x1.2621a5fdb667ap+21, -0x1.2621a5fdb667ap+21},
        far,
        far,
        {-0x1.4bff4bff4bff4p+21, -0x1.4b4b4b4b4b4b4p+21, -0x1.4b4b4b4b4b4b4p+21},
        {0x1.7d2892694344ep+20, 0x1.7f3cb3ddae87p+20, 0x1.7f3cb3ddae87p+20},
        {-0x1.d63c1aecb7c73p+20, -0x1.d8cc981cc71afp+20, -0x1.d8cc981cc71afp+20},
        {-0x1.277ebbcf7c22fp+21, -0x1.27a84fa443112p+21, -0x1.27a84fa443112p+21},
        far,
        far,
        far,
        far,
        far,
        far,
        far,
        far,
        far,
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 17, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_cone(3710.4941176470593, 0.0);
    gjk_shape b = gjk_make_polytope(&poly);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(1, 0, 0, 0), gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.99999910000000003, 0, 0, 0),
        gjk_v3(-875.34726198338797, -880.12040009103328, 1750.7198759582466));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 7.27e-3; /* the harness's: 1e-9 of the pair's 7.27e6 m */
    assert_true(r.distance < 0.0);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), tol);
    const gjk_vec3 dirs[] = {{0, -0.70710678118654746, 0.70710678118654746},
                             {0, 0.70710678118654746, -0.70710678118654746},
                             {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    assert_witnesses_on_shapes(&a, ta, &b, tb, &r, dirs, sizeof dirs / sizeof dirs[0], tol);
    gjk_polytope_destroy(&poly);
}

/* OPEN (fuzz_gjk, fuzz/open/fuzz_gjk-crash-bebb28..., "moved to touch"; found by a scan of
 * 2026-12-03, fails the same way on older code): a speck (a cone 9.4e-14 across) touching the
 * base of a disk 3.1e-5 m wide and 1e-10 thick. GJK stalls on a chord of the rim that passes
 * 1.9e-13 above the origin (the origin's projection lies on the chord's line, so no rim point
 * it is offered makes progress), EPA confirms the contact (depth 0, its normal certifying a
 * separation of 9e-19), and the answer keeps GJK's |v| as the distance with GJK's witnesses,
 * 1.9e-13 apart along the disk's axis, beside EPA's normal: pb - pa = d n is 2e-13 out of step
 * and the normal certifies 1.9e-13 less than d, where the harness allows 6.3e-14 (1e-9 of the
 * pair's size). The distance is 0 to 2e-15 (sampled over 200,000 directions). Tried and
 * dropped: answering with EPA's contact (its witnesses, depth and normal) when no certified
 * separation comes within the tolerance of GJK's |v|. It passes here, but the next scan found
 * three inputs where EPA's witness then lay 7e-7 to 1.8e-5 m off a speck 1e-13 across, which
 * GJK's witnesses had answered right. */
static void test_gjk_stall_speck_on_thin_disk(void **state)
{
    OPEN_FINDING();
    (void)state;
    gjk_shape a = gjk_make_cone(3.0741098953564888e-05, 5.0387182779240095e-11);
    gjk_shape b = gjk_make_cone(9.3964969410615802e-14, 9.3964969410615802e-14);
    gjk_transform ta = gjk_transform_make(
        gjk_quat_make(0.70710678118654757, 0, 0.70710678118654757, 0),
        gjk_v3(0.0084653466043516385, -0.0084061854119385285, -0.0071426160141546324));
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.70710714805018349, 0, 0.70710714805018349, 0),
        gjk_v3(0.0084653465538704915, -0.0084293005258346456, -0.0071223501148545169));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 6.31e-14; /* the harness's: 1e-9 of the pair's size and rounding */
    assert_true(r.status == GJK_STATUS_TOUCHING);
    assert_le(fabs(r.distance), tol);
    assert_le(r.distance - separation(&a, ta, &b, tb, r.normal), tol);
    assert_le(identity_gap(&r), tol);
}

/* OPEN (fuzz_gjk, fuzz/open/fuzz_gjk-crash-11b795...; the harness allows these witnesses
 * 1e-8 P, KNOWN FINDING in fuzz_gjk.c: witness_tol): a 3.7 km disk touching a needle of 40
 * points over 7e6 m. EPA answers TOUCHING-close (depth 1.8e-7) from a face whose point the
 * origin's projection misses (weights clamped to an edge), and the needle's witness lies
 * 0.048 m off the needle (6.6e-9 of the pair's size). Along the rim a curved contact is
 * determined only to about sqrt(2 R z) for a rounding band z (0.014 m here), so part of this is
 * the geometry's own conditioning; the clamped weights are the rest. */
static void test_epa_touching_witness_disk_rim_on_needle(void **state)
{
    OPEN_FINDING();
    (void)state;
    const gjk_vec3 v[40] = {
        {-0x1.279a74590331cp+21, -0x1.279a74590331cp+21, -0x1.279a74590331cp+21},
        {-0x1p+22, -0x1p+22, -0x1.04d504d504d5p+20},
        {-0x1.4b4b4b4b4b4b4p+21, -0x1.4b4b4b4b4b4b4p+21, -0x1.4b4b4b4b4b4b4p+21},
        {-0x1.7e8ba5a05e7c9p+20, -0x1.7e8ba5a05e7c9p+20, -0x1.7e8ba5a05e7c9p+20},
        {-0x1.7e8ba5a05bf28p+20, -0x1.7e8ba5a05bf28p+20, -0x1.7e8ba5a05bf28p+20},
        {0x1.279a74590331cp+21, 0x1.279a74590331cp+21, 0x1.279a74590331cp+21},
        {0x1.279a74590331cp+21, 0x1.279a74590331cp+21, 0x1.279a74590331cp+21},
        {0x1.279a74590331cp+21, 0x1.279a74590331cp+21, 0x1.279a74590331cp+21},
        {0x1.279a74590331cp+21, 0x1.279a74590331cp+21, 0x1.279a74590331cp+21},
        {0x1.279a74590331cp+21, 0x1.279a74590331cp+21, 0x1.279a74590331cp+21},
        {0x1.279a74590331cp+21, 0x1.279a74590331cp+21, 0x1.279a74590331cp+21},
        {-0x1.7e8ba5a05e7c9p+20, -0x1.7e8ba5a05e7c9p+20, -0x1.7e8ba5a05e7c9p+20},
        {-0x1.4b4b4b4b4a151p+21, -0x1.4b4b4b4b4c977p+21, -0x1.4b4b4b4b4c977p+21},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
        {-0x1p+22, -0x1p+22, -0x1p+22},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, v, 40, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape b = gjk_make_polytope(&poly);
    gjk_shape a = gjk_make_cone(3710.4941176470593, 0.0);
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb = gjk_transform_make(
        gjk_quat_make(0.99999910000000003, 0, 0, 0),
        gjk_v3(-874.57036523030536, -874.57333694221086, 1749.1437021716929));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    const double tol = 7.27e-3; /* 1e-9 of the pair's 7.27e6 m */
    assert_le(fabs(r.distance), tol);
    const double c = 0.70710678118654746;
    const gjk_vec3 dirs[] = {{c, -c, 0}, {-c, c, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                             {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    assert_witnesses_on_shapes(&a, ta, &b, tb, &r, dirs, sizeof dirs / sizeof dirs[0], tol);
    gjk_polytope_destroy(&poly);
}

/* epa.c, the same exit (fuzz_gjk, five inputs once in fuzz/open: 2bd5b7, 7a48a4, 7b999d,
 * 9970a9, a0550a): a 3.7 km disk on a 7e6 m needle of 17 points (near-duplicates), cold
 * against warm. EPA's rim points met as slivers whose plane "rounding" ran to metres and
 * passed real gaps as convergence: cold and warm depths 6e-5 apart relative, normals short.
 * Fixed with test_epa_sliver_face_noise. */
static void test_epa_disk_along_long_segment_warm(void **state)
{
    (void)state;
    const gjk_vec3 p2 = {0x1.1f1f1f1f1f1f2p+21, 0x1.1f1f1f1f1f1f2p+21, 0x1.1f1f1f1f1f1f2p+21};
    const gjk_vec3 p8 = {-0x1p+22, -0x1p+22, -0x1p+22};
    gjk_vec3 v[17] = {
        {0x1.4504f15031971p-19, 0x1.4504f15031971p-19, 0x1.4504f15031971p-19},
        {0x1.4b8a18138516cp+20, 0x1.4b8a18138516cp+20, 0x1.4b8a18138516cp+20},
        p2,
        p2,
        p2,
        p2,
        p2,
        p2,
        p8,
        p8,
        p8,
        p8,
        p8,
        p8,
        p8,
        p8,
        p8,
    };
    cold_warm r = against_polytope(gjk_make_cone(3710.4941176470593, 0.0), v, 17);
    double tol = 1e-9 * 7.3e6; /* the fuzz harness's, 1e-9 of the pair */
    assert_le(fabs(r.warm.distance - r.cold.distance), tol);
    assert_le(r.short_warm, tol);
}

/* gjk.c, cold start (fuzz_gjk, "next pose, warm" against cold). A flat cone (radius 67 m,
 * half height 1.06e-4) 0.0526 m from a 1e-7 m cone: the cold query stops after 2 iterations
 * at 0.0526478003 with the bounds [0.0526475020, 0.0526478003] open by 3e-7 (5.7e-6
 * relative), the warm query finds 0.0526476459 with closed bounds, 1.5e-7 apart (the
 * harness allows 6.8e-8). Cause (traced): the simplex is a segment of two rim points whose
 * line passes within 1e-10 of the axis through the origin; the next support point, a third
 * rim point 64 m away, is 3e-7 nearer along -v. The triangle with it is the right next
 * simplex (its v turns 5e-9 rad towards the face's normal), but its |v|^2 is lower by only
 * ~1e-17 relative in exact arithmetic: the same double as the segment's, so GJK stopped on
 * "no progress" with the gap open (a cold start does not restart). This was the family of
 * the near-twin vertex above and of six fuzz/open inputs (flat cones against tiny cones,
 * below). Fixed (gjk.c): on no progress with the gap open, a reduced simplex that keeps the
 * new support point and whose |v| is no worse beyond rounding is taken anyway (at most
 * GJK_STALL_STEPS times); here one such step, then two with progress, close the gap. */
static void test_gjk_cold_stall_flat_cone(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_cone(67.468802929732206, 0.00010566958113984892);
    gjk_shape b = gjk_make_cone(9.8254749370565339e-08, 5.1653696498054469e-08);
    gjk_transform ta =
        gjk_transform_make(gjk_quat_make(0.46788042887363002, 0.49519638630727469,
                                         -0.56534952116605997, 0.46502511994789186),
                           gjk_v3(11.771676528457041, 14.801950501091003, -15.208750269665805));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.99968751627570263, -0.024997395914712332, 0, 0),
                           gjk_v3(11.771676528457041, 14.801950501091003, -14.801950501091003));
    gjk_result r = gjk_signed_distance(&a, ta, &b, tb, NULL, NULL);
    assert_true(r.status == GJK_STATUS_SEPARATED);
    /* Converged: the certified bounds within the default tolerance of each other. */
    assert_le(r.upper_bound - r.lower_bound, 1e-12 * r.upper_bound + 1e-16 * 135.0);
}

/* gjk.c, cold start (fuzz_gjk, the six fuzz/open inputs of the family above; f1c3b929 is
 * gjk_cold_stall_flat_cone itself). A flat cone (a disk of radius 3e-5 .. 184 m, half height
 * 0 .. 1e-4) against a cone 1e-13 .. 4e-7 m in size, 1e-8 .. 13 m apart: the cold query
 * stopped after 2 iterations on "no progress" with the gap open by 6e-9 .. 1e-4 relative
 * (e.g. 1.5956006838638823 with bounds [1.5955981, 1.5956007] where the answer is
 * 1.5955986604614198) and the warm or next-pose query, from a different simplex, found the
 * answer with the gap closed. Same cause and fix as gjk_cold_stall_flat_cone. Checked: the
 * cold query converges (certified bounds within the default tolerance, up to 16 ulps of the
 * pair's size) to the converged answer, and the warm query from its cache agrees. */
typedef struct cone_pair {
    double a[3]; /* radius, half height, margin */
    gjk_quat qa;
    gjk_vec3 pa;
    double b[3];
    gjk_quat qb;
    gjk_vec3 pb;
    double distance; /* the converged answer */
} cone_pair;

static void test_gjk_cold_stall_flat_cones(void **state)
{
    (void)state;
    static const cone_pair cases[] = {
        /* fuzz_gjk-crash-4f460e34b2e80c941fe5b0601d9b3bf592fbb654 (next pose) */
        {{184.47058823529412, 1.003921568627451e-06, 0.0},
         {0.70688582182608639, -0.017675828163297987, 0.70688582182608639, -0.017675828163297987},
         {-0.16206507143015067, -1.1238616744766654, -0.50498305452240566},
         {5.1653696498054469e-08, 5.1470588235294112e-08, 0.0},
         {0.99968751627570263, -0.024997395914712332, 0, 0},
         {1.4335346290989182, 0.14433756729740646, 0.14433756729740646},
         1.5955986604614198},
        /* fuzz_gjk-crash-6e68ae89fd002110c52c71519c7dbc3ad8aab117 (next pose) */
        {{13.467978942549783, 0.00010578677042801555, 0.0},
         {-0.068166865624217185, -0.56571341040837175, -0.71703076980284475, -0.40148286497811964},
         {-0.055244052725717412, 1.4136739536821137, 1.4136739536821137},
         {9.8529411764705875e-08, 9.8529411764705875e-08, 0.0},
         {0.48844992167078854, -0.51154283780602128, 0.51339297559082786, 0.48597145155158927},
         {-0.54249596329960525, 0.92642204310822573, 1.897134020593948},
         0.8349259443386029},
        /* fuzz_gjk-crash-73590ce5c83448c6458b9b1bc0ba6f0e890cba7d (warm) */
        {{14.467994201571679, 0.0, 0.0},
         {0.70710678118654757, 0, 0.70710678118654757, 0},
         {-0.028834476707982684, -0.028834476707982684, -0.028834476707982684},
         {8.3880750743877306e-08, 9.8529411764705875e-08, 0.0},
         {-0.47337848717356673, -0.47337848717356673, -0.47337848717356673, 0.57248600301195673},
         {5.9480265131538088, -6.005695466569775, 5.9480265131538088},
         5.9768609155961778},
        /* fuzz_gjk-crash-c80cf02aa93b423509e7fd4e1c0092e6f18a1d53 (warm) */
        {{184.47058823529412, 0.00010584927138170442, 0.0},
         {-0.34745726570175817, -0.54035758128131606, -0.54140037516165862, -0.5423769599067414},
         {0.013427939269092852, 0, 0},
         {3.941176470588235e-07, 3.941176470588235e-07, 0.0},
         {0.99999910000000003, 0, 0, 0},
         {-13.254171563207166, -13.33597345656807, -13.33597345656807},
         13.322935388577058},
        /* fuzz_gjk-crash-cd4f6de2d3d9b4a96102b4018863ac71b5f0779f (warm) */
        {{3.121794338783665e-05, 5.0387182779240095e-11, 0.0},
         {0.70710678118654757, 0, 0.70710678118654757, 0},
         {0, -0.0, 0},
         {9.3964969410615802e-14, 4.9086178050321686e-14, 9.3964969410615802e-14},
         {0.70710714805018349, 0, 0.70710714805018349, 0},
         {-1.1000954075834352e-08, -1.1000954075834352e-08, -1.1000954075834352e-08},
         1.0950423841907653e-08},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const cone_pair *c = &cases[i];
        gjk_shape a = gjk_make_cone(c->a[0], c->a[1]), b = gjk_make_cone(c->b[0], c->b[1]);
        a.margin = c->a[2];
        b.margin = c->b[2];
        gjk_transform ta = gjk_transform_make(c->qa, c->pa), tb = gjk_transform_make(c->qb, c->pb);
        gjk_result cold, warm;
        cold_then_warm(&a, ta, &b, tb, &cold, &warm);
        /* The harness's size P and tolerance, 1e-9 P (the world rounding is far below). */
        double size = gjk_shape_bounding_radius(&a) + gjk_shape_bounding_radius(&b) +
                      gjk_distance_between(ta.p, tb.p);
        assert_true(cold.status == GJK_STATUS_SEPARATED);
        assert_le(cold.upper_bound - cold.lower_bound,
                  1e-12 * cold.upper_bound + 16.0 * DBL_EPSILON * size);
        assert_le(fabs(cold.distance - c->distance), 1e-9 * size);
        assert_le(fabs(warm.distance - cold.distance), 1e-9 * size);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hull_flat_within_tolerance_climb),
        cmocka_unit_test(test_climb_stuck_on_rounding_plateau),
        cmocka_unit_test(test_hull_near_twins_climb),
        cmocka_unit_test(test_hull_vertex_near_edge_climb),
        cmocka_unit_test(test_climb_wrong_distance),
        cmocka_unit_test(test_climb_rounding_cycle),
        cmocka_unit_test(test_climb_far_from_origin),
        cmocka_unit_test(test_hull_refuses_nearly_flat_cloud),
        cmocka_unit_test(test_hull_huge_point_radius_overflow),
        cmocka_unit_test(test_hull_tiny_cloud),
        cmocka_unit_test(test_hull_huge_cloud),
        cmocka_unit_test(test_epa_witnesses_off_normal),
        cmocka_unit_test(test_negative_cutoff_false_bound),
        cmocka_unit_test(test_rounded_overlap_normal_from_tiny_core_gap),
        cmocka_unit_test(test_epa_cold_zero_depth),
        cmocka_unit_test(test_epa_witness_far_outside_small_shape),
        cmocka_unit_test(test_normal_at_exact_contact),
        cmocka_unit_test(test_warm_start_wrong_sign),
        cmocka_unit_test(test_epa_zero_core_depth_warm),
        cmocka_unit_test(test_epa_needle_through_capsule),
        cmocka_unit_test(test_point_on_vertex_not_at_distance_zero),
        cmocka_unit_test(test_epa_normal_tiny_core_depth),
        cmocka_unit_test(test_epa_point_in_cylinder),
        cmocka_unit_test(test_epa_capsule_in_cylinder_warm),
        cmocka_unit_test(test_epa_capsule_in_cylinder_nearest_falls_back),
        cmocka_unit_test(test_epa_capsule_centred_in_cylinder_depth),
        cmocka_unit_test(test_epa_witness_disk_in_needle),
        cmocka_unit_test(test_epa_rod_through_box_depth),
        cmocka_unit_test(test_epa_speck_in_disk_plane),
        cmocka_unit_test(test_point_in_flat_cone_gjk_stall),
        cmocka_unit_test(test_gjk_stall_square_on_segment),
        cmocka_unit_test(test_epa_broken_answer_from_tightest_face),
        cmocka_unit_test(test_distance_of_shallow_overlap),
        cmocka_unit_test(test_plain_distance_at_contact_between_scales),
        cmocka_unit_test(test_epa_tiny_cylinder_on_edge),
        cmocka_unit_test(test_climb_cycles_round_a_face),
        cmocka_unit_test(test_hull_subnormal_cloud),
        cmocka_unit_test(test_epa_witness_from_face_within_gap),
        cmocka_unit_test(test_epa_witness_from_ray_face),
        cmocka_unit_test(test_epa_twin_support_point),
        cmocka_unit_test(test_gjk_witnesses_off_v),
        cmocka_unit_test(test_gjk_projection_below_lower_bound),
        cmocka_unit_test(test_epa_sliver_face_noise),
        cmocka_unit_test(test_epa_face_beyond_support_value),
        cmocka_unit_test(test_normal_point_on_needle_side),
        cmocka_unit_test(test_witness_point_on_needle_side),
        cmocka_unit_test(test_witness_disk_rim_on_needle),
        cmocka_unit_test(test_epa_witness_point_in_needle),
        cmocka_unit_test(test_epa_normal_point_in_needle),
        cmocka_unit_test(test_epa_touching_witness_disk_rim_on_needle),
        cmocka_unit_test(test_epa_disk_along_long_segment_warm),
        cmocka_unit_test(test_normal_at_disk_rim),
        cmocka_unit_test(test_normal_at_flat_cone_apex),
        cmocka_unit_test(test_normal_at_rounded_flat_cone_apex),
        cmocka_unit_test(test_normal_of_wide_disk_near_speck),
        cmocka_unit_test(test_polish_v_on_flat_cone_base),
        cmocka_unit_test(test_polish_v_identity_far_flat_cones),
        cmocka_unit_test(test_gjk_stall_speck_on_thin_disk),
        cmocka_unit_test(test_witness_point_on_flat_quad),
        cmocka_unit_test(test_gjk_cold_stall_flat_cone),
        cmocka_unit_test(test_gjk_cold_stall_flat_cones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
