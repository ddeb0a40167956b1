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

/* epa.c (fuzz_gjk, on a seed that passed before the newest epa/engine merge). A flat cone
 * (disk of radius 184 m, 0.0002 m high) and a 5e-8 m cone at the same place, both turned a
 * quarter about y: the depth is right (2.0e-4) but the witness on B comes back on A's
 * rim, 182 m outside B (witness on A fine). Not reduced to a cause yet. */
static void test_epa_witness_far_outside_small_shape(void **state)
{
    OPEN_FINDING();
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
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), gjk_v3(0, 0, 0));
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_result cold = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    gjk_result warm = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    assert_true(cold.distance < 0.0);
    assert_le(fabs(warm.distance - cold.distance), 1e-12);
}

/* epa.c, warm start (fuzz_gjk). A plate 2.6e-9 thick (margin 7.8e-9) and a disk of radius
 * 2.2e-7 standing across it overlap by 2.3e-7: the cold query finds that depth; the warm
 * query from its cache ends EPA with core depth 0 and reports -7.8e-9 (the margin alone),
 * 30 times too shallow. Same family as epa_cold_zero_depth. */
static void test_epa_zero_core_depth_warm(void **state)
{
    OPEN_FINDING();
    (void)state;
    gjk_shape a =
        gjk_make_box(gjk_v3(1.3143024719615473e-09, 0.0082031250000000003, 0.0082031250000000003));
    a.margin = 7.8124999999999996e-09;
    gjk_shape b = gjk_make_cylinder(2.2252400716145834e-07, 1.2715657552083334e-13);
    gjk_quat q = gjk_quat_make(0.70710678118654757, 0, 0, 0.70710678118654757);
    gjk_transform ta = gjk_transform_make(q, gjk_v3(0, 0, 0));
    gjk_transform tb = gjk_transform_make(q, gjk_v3(0, 0, -0.0015468267953798708));
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_result cold = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    gjk_result warm = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    assert_le(cold.distance, -2e-7);
    assert_le(fabs(warm.distance - cold.distance), 1e-12);
}

/* epa.c (fuzz_gjk). A needle cone (radius 0.016, half height 7476 m, margin 0.006)
 * through a capsule (radius 0.20, half height 0.22), both at the origin: EPA reports a
 * core depth of 3e-4 and distance -0.2079, but no direction separates them by less than
 * 0.35 (the separation along the reported normal is -0.627): the depth is far too shallow
 * and the normal is not the minimal-translation direction. */
static void test_epa_needle_through_capsule(void **state)
{
    OPEN_FINDING();
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
 * vertex gives 0 (OVERLAPPING). Tiny in metres, but the tolerances are relative. */
static void test_point_on_vertex_not_at_distance_zero(void **state)
{
    OPEN_FINDING();
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
 * normal is off: the separation along it is 1.4e-10 (1% of the pair's size) short of the
 * reported distance. The family of the fixed rounded_overlap_normal_from_tiny_core_gap,
 * on the EPA side: when the core depth is tiny next to the inflation, the normal is taken
 * from a nearly degenerate EPA face. */
static void test_epa_normal_tiny_core_depth(void **state)
{
    OPEN_FINDING();
    (void)state;
    gjk_shape a = gjk_make_cone(2.1832396930075532e-11, 9.6220128676470581e-11);
    gjk_shape b = gjk_make_cone(1.2626707612981582e-14, 1.5602392308852253e-08);
    b.margin = 1.262216007008272e-08;
    gjk_transform ta = gjk_transform_make(gjk_quat_make(0.43391735857591529, 0.43313633259896611,
                                                        0.23985537465631274, -0.75271378528475108),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), gjk_v3(0, 0, 0));
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_result cold = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    gjk_result warm = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
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
 * nearly tied with the side). EPA runs out of its capacity (477 iterations, CAPACITY_LIMIT)
 * and reports 1.16482, 4% shallow, with a radial normal. The status is honest, but the
 * estimate is poor for the simplest curved case; EPA's polytope only creeps towards the
 * curved side. A closed form (sphere-swept point against a cylinder) or a feature-based
 * refinement of the best face would settle such pairs. */
static void test_epa_point_in_cylinder(void **state)
{
    OPEN_FINDING();
    (void)state;
    gjk_shape a = gjk_make_point();
    a.margin = 0.014056964492256045;
    gjk_shape b = gjk_make_cylinder(1.196780346379797, 1.1966582742046235);
    gjk_transform ta = gjk_transform_make(gjk_quat_make(-0.48001764340030073, -0.32443241728146849,
                                                        0.39861209994623514, -0.71093956312599282),
                                          gjk_v3(0, 0, 0));
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), gjk_v3(0, 0, 0));
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

static void test_hull_huge_cloud(void **state)
{
    (void)state;
    hull_scaled_tetrahedron(1e80);
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
    gjk_vec3 gap = gjk_sub(gjk_sub(r.point_b, r.point_a), gjk_scale(r.normal, r.distance));
    assert_le(gjk_length(gap), 1e-9);
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
 * that depth, but the cold query's EPA ends after 93 iterations with depth 0 ("touching"),
 * so gjk_signed_distance reports TOUCHING, distance -0, with witnesses 3.4 m apart.
 * Not yet reduced to a cause; the inputs are exact. */
static void test_epa_cold_zero_depth(void **state)
{
    OPEN_FINDING();
    (void)state;
    gjk_vec3 pts[6] = {
        {0x1.279a74590331cp+1, 0x1.279a74590331cp+1, 0x1.279a74590331cp+1},
        {0x1.fbbe01115a9aep+0, 0x1.fbbe01115f82fp+0, 0x1.fbbe01115f82fp+0},
        {0x1.585f2e3fe4f6ap+1, 0x1.585f2e3fe4f6ap+1, -0x1.3bf9b9abc259bp+0},
        {0x1.b7b7b7b7b7b7cp+1, -0x1.966f966f966fap+1, -0x1.6357635763576p+1},
        {0x1.b7b7b7b7b7b7cp+1, -0x1.f0fff0fff0fffp+1, -0x1p+2},
        {-0x1p+2, -0x1p+2, -0x1p+2},
    };
    gjk_polytope poly;
    assert_int_equal(gjk_polytope_create(&poly, pts, 6, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_cone(0.035610265506981001, 0.015159361409933623);
    gjk_shape b = gjk_make_polytope(&poly);
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb =
        gjk_transform_make(gjk_quat_make(0.99999910000000003, 0, 0, 0), gjk_v3(0, 0, 0));
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_result cold = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    gjk_result warm = gjk_signed_distance(&a, ta, &b, tb, &cache, NULL);
    double short_by = cold.distance - separation(&a, ta, &b, tb, cold.normal);
    gjk_polytope_destroy(&poly);
    /* The separation along any direction bounds the signed distance from below; the
     * answer must be realised by its own normal. */
    assert_le(fabs(cold.distance - warm.distance), 1e-9);
    assert_le(short_by, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hull_flat_within_tolerance_climb),
        cmocka_unit_test(test_climb_stuck_on_rounding_plateau),
        cmocka_unit_test(test_hull_near_twins_climb),
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
