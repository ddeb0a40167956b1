/* test_epa.c — EPA (core/src/epa.c): penetration depth, normal and deepest points.
 *
 * Known depths: boxes face to face, concentric boxes, shallow and deep; exact polytope depths
 * from a brute-force separating-axis oracle (every candidate normal of D = A - B: normals of
 * vertex triples of A and of B, cross products of vertex-pair directions of A and B); GJK
 * simplices blown up from a point, a segment, a triangle, a flat and a duplicated
 * tetrahedron; touching (the origin on D's boundary, a flat D); iteration limits and growth
 * past the stack storage; and every intersecting case of quick.cases against its exact depth, through
 * gjk_signed_distance. Usage: test_epa [QUICK_CASES_FILE]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cases.h"
#include "gjk/gjk.h"
#include "internal.h"

static const char *g_cases_path = NULL;

#define assert_near(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b), t_ = (tol);                                                     \
        if (!(fabs(a_ - b_) <= t_)) {                                                              \
            fail_msg("%s = %.17g, %s = %.17g: |difference| %.3g > %.3g", #a, a_, #b, b_,           \
                     fabs(a_ - b_), t_);                                                           \
        }                                                                                          \
    } while (0)

#define assert_vec_near(a, b, tol)                                                                 \
    do {                                                                                           \
        gjk_vec3 va_ = (a), vb_ = (b);                                                             \
        double t_ = (tol);                                                                         \
        double e_ = gjk_length(gjk_sub(va_, vb_));                                                 \
        if (!(e_ <= t_)) {                                                                         \
            fail_msg("%s = (%.17g, %.17g, %.17g), %s = (%.17g, %.17g, %.17g): |difference| "       \
                     "%.3g > %.3g",                                                                \
                     #a, va_.x, va_.y, va_.z, #b, vb_.x, vb_.y, vb_.z, e_, t_);                    \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------ helpers */

/* The pair frame as gjk_query_run builds it (query.c), with support maps that scan: EPA is
 * tested here against its own answers, not against hill climbing. */
static gjk_pair_frame make_frame(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                                 gjk_transform pose_b)
{
    gjk_pair_frame f;
    gjk_options scan = gjk_default_options();
    scan.hill_climb_min_vertices = INT32_MAX;
    (void)gjk_pair_frame_init(&f, a, pose_a, b, pose_b, &scan);
    return f;
}

static gjk_options options_with_epa_iterations(int32_t n)
{
    gjk_options o = gjk_default_options();
    o.epa_max_iterations = n;
    return o;
}

/* GJK's final simplex on the pair (it must report overlap). */
static gjk_simplex gjk_simplex_of(const gjk_pair_frame *f)
{
    gjk_options o = gjk_default_options();
    gjk_gjk_input in = {&o, INFINITY, f->inflate, false};
    gjk_gjk_result g;
    gjk_gjk(f, &in, NULL, &g);
    assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
    return g.simplex;
}

/* A simplex vertex from points of the cores: a in A, b in B (both A-local). */
static gjk_vertex vertex_of(gjk_vec3 a, gjk_vec3 b)
{
    gjk_vertex v;
    v.a = a;
    v.b = b;
    v.w = gjk_sub(a, b);
    v.ia = GJK_CACHE_NO_INDEX;
    v.ib = GJK_CACHE_NO_INDEX;
    return v;
}

/* Support value of core B (placed in A's frame) along A-local direction d. */
static double support_value_b(const gjk_pair_frame *f, gjk_vec3 d)
{
    gjk_vertex v;
    gjk_pair_support(f, gjk_neg(d), GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &v);
    return gjk_dot(v.b, d);
}

/* Checks an EPA answer's invariants: finite, unit normal, depth >= 0, pa - pb = depth n,
 * pa on A's support plane along n and pb on B's along -n (to tol). */
static void check_answer(const gjk_pair_frame *f, const gjk_epa_result *r, double tol)
{
    assert_true(isfinite(r->depth) && r->depth >= 0.0);
    assert_true(gjk_vec3_is_finite(r->normal));
    assert_true(gjk_vec3_is_finite(r->point_a) && gjk_vec3_is_finite(r->point_b));
    assert_near(gjk_length(r->normal), 1.0, 1e-12);
    assert_vec_near(gjk_sub(r->point_a, r->point_b), gjk_scale(r->normal, r->depth), tol);
    gjk_vertex s;
    gjk_pair_support(f, r->normal, GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &s);
    assert_near(gjk_dot(r->point_a, r->normal), gjk_dot(s.a, r->normal), tol);
    assert_near(gjk_dot(r->point_b, gjk_neg(r->normal)), support_value_b(f, gjk_neg(r->normal)),
                tol);
    assert_true(r->support_calls >= r->iterations);
    assert_true(r->depth_upper >= r->depth);
    if (r->status == GJK_STATUS_OVERLAPPING) {
        assert_near(r->depth_upper, r->depth, 1e-12 * r->depth + 1e-15 * f->scale);
    }
}

static gjk_transform at(double x, double y, double z)
{
    return gjk_transform_make(gjk_quat_identity(), gjk_v3(x, y, z));
}

/* Deterministic pseudo-random numbers (xorshift64*), uniform in [0, 1). */
static double rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static gjk_quat random_quat(uint64_t *s)
{
    gjk_quat q = gjk_quat_make(rnd(s) - 0.5, rnd(s) - 0.5, rnd(s) - 0.5, rnd(s) - 0.5);
    return gjk_quat_normalize(q);
}

/* Exact depth of D = A - B for point sets (world frame) by the separating-axis theorem: the
 * support function of D is smallest on a face normal of D, which is a face normal of A or
 * of B or the cross product of an edge of A and an edge of B; vertex triples and vertex
 * pairs give a superset of those, and any direction bounds the depth from above. */
static double h_points(const gjk_vec3 *p, int n, gjk_vec3 d)
{
    double h = -INFINITY;
    for (int i = 0; i < n; ++i) {
        double v = gjk_dot(p[i], d);
        h = v > h ? v : h;
    }
    return h;
}

static double overlap_along(const gjk_vec3 *a, int na, const gjk_vec3 *b, int nb, gjk_vec3 d)
{
    return h_points(a, na, d) + h_points(b, nb, gjk_neg(d));
}

static double sat_depth(const gjk_vec3 *a, int na, const gjk_vec3 *b, int nb)
{
    double best = INFINITY;
    const gjk_vec3 *sets[2] = {a, b};
    int counts[2] = {na, nb};
    for (int s = 0; s < 2; ++s) {
        const gjk_vec3 *p = sets[s];
        for (int i = 0; i < counts[s]; ++i) {
            for (int j = i + 1; j < counts[s]; ++j) {
                for (int k = j + 1; k < counts[s]; ++k) {
                    gjk_vec3 n = gjk_normalize(gjk_cross(gjk_sub(p[j], p[i]), gjk_sub(p[k], p[i])));
                    if (gjk_length_sq(n) == 0.0) {
                        continue;
                    }
                    double o1 = overlap_along(a, na, b, nb, n);
                    double o2 = overlap_along(a, na, b, nb, gjk_neg(n));
                    best = o1 < best ? o1 : best;
                    best = o2 < best ? o2 : best;
                }
            }
        }
    }
    for (int i = 0; i < na; ++i) {
        for (int j = i + 1; j < na; ++j) {
            for (int k = 0; k < nb; ++k) {
                for (int l = k + 1; l < nb; ++l) {
                    gjk_vec3 n = gjk_normalize(gjk_cross(gjk_sub(a[j], a[i]), gjk_sub(b[l], b[k])));
                    if (gjk_length_sq(n) == 0.0) {
                        continue;
                    }
                    double o1 = overlap_along(a, na, b, nb, n);
                    double o2 = overlap_along(a, na, b, nb, gjk_neg(n));
                    best = o1 < best ? o1 : best;
                    best = o2 < best ? o2 : best;
                }
            }
        }
    }
    return best;
}

/* Fibonacci sphere: n points on the unit sphere, scaled. */
static void sphere_points(gjk_vec3 *p, int n, double radius)
{
    const double golden = 2.399963229728653; /* pi (3 - sqrt 5) */
    for (int i = 0; i < n; ++i) {
        double z = 1.0 - (2.0 * i + 1.0) / n;
        double r = sqrt(1.0 - z * z);
        double t = golden * i;
        p[i] = gjk_v3(radius * r * cos(t), radius * r * sin(t), radius * z);
    }
}

/* ------------------------------------------------------------------ known depths */

/* Boxes face to face with the same rotation: depth is the overlap along x, normal +x, and
 * the deepest points lie on A's face x = 1 and on B's face x = 0.8. */
static void test_boxes_face_to_face(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(1.0, 1.0, 1.0));
    gjk_shape b = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_pair_frame f = make_frame(&a, at(0, 0, 0), &b, at(1.3, 0.1, 0.2));
    gjk_simplex s = gjk_simplex_of(&f);
    gjk_options o = gjk_default_options();
    gjk_epa_result r = gjk_epa(&f, &s, &o);
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(r.depth, 0.2, 1e-15);
    assert_vec_near(r.normal, gjk_v3(1.0, 0.0, 0.0), 1e-15);
    assert_near(r.point_a.x, 1.0, 1e-15);
    assert_near(r.point_b.x, 0.8, 1e-15);
    check_answer(&f, &r, 1e-14);
    /* The witnesses lie where the two faces overlap (y, z within B's face). */
    assert_true(r.point_a.y >= -0.4 && r.point_a.y <= 0.6);
    assert_true(r.point_a.z >= -0.3 && r.point_a.z <= 0.7);

    /* The same through the public query, with both bodies far from the world origin and a
     * common rotation (world frame answer). */
    gjk_quat q = gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 2, 3)), 0.7);
    gjk_transform pa = gjk_transform_make(q, gjk_v3(100.0, -50.0, 20.0));
    gjk_transform pb = gjk_transform_mul(pa, at(1.3, 0.1, 0.2));
    gjk_result g = gjk_signed_distance(&a, pa, &b, pb, NULL, NULL);
    assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
    assert_near(g.distance, -0.2, 1e-13);
    assert_vec_near(g.normal, gjk_quat_rotate(q, gjk_v3(1, 0, 0)), 1e-13);
    assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), 1e-13);
    assert_true(g.epa_iterations > 0);
}

/* Antiparallel faces: a box and a tetrahedron whose face points straight at the box's face
 * (normals opposite), pushed in by 0.25. */
static void test_antiparallel_faces(void **state)
{
    (void)state;
    gjk_vec3 tet[4] = {{0, 0, 0}, {-2, 1, 1}, {-2, -1, 1}, {-2, 0, -1.5}};
    /* Face (tet[1..3]) lies in x = -2 with outward normal -x; the box's face x = +1 faces
     * it. Place the tetrahedron so that this face is at x = 0.75. */
    gjk_polytope p;
    assert_int_equal(gjk_polytope_create(&p, tet, 4, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_box(gjk_v3(1.0, 1.0, 1.0));
    gjk_shape b = gjk_make_polytope(&p);
    gjk_result g = gjk_signed_distance(&a, at(0, 0, 0), &b, at(2.75, 0.0, 0.0), NULL, NULL);
    assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
    assert_near(g.distance, -0.25, 1e-15);
    assert_vec_near(g.normal, gjk_v3(1, 0, 0), 1e-15);
    assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), 1e-15);
    gjk_polytope_destroy(&p);
}

/* Concentric boxes: D is the box of half extents (1.5, 2.5, 3.5) about the origin, so the
 * depth is 1.5 along +-x. Deep penetration, and D symmetric about the origin. */
static void test_concentric_boxes(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(1.0, 2.0, 3.0));
    gjk_shape b = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_pair_frame f = make_frame(&a, at(0, 0, 0), &b, at(0, 0, 0));
    gjk_simplex s = gjk_simplex_of(&f);
    gjk_epa_result r = gjk_epa(&f, &s, NULL);
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(r.depth, 1.5, 1e-15);
    assert_near(fabs(r.normal.x), 1.0, 1e-15);
    check_answer(&f, &r, 1e-14);
}

/* Shallow penetrations down to 1e-9 of the size, and tiny against huge shapes. */
static void test_shallow_and_scaled(void **state)
{
    (void)state;
    const double depths[] = {1e-2, 1e-4, 1e-6, 1e-8, 1e-9};
    gjk_shape a = gjk_make_box(gjk_v3(1.0, 1.0, 1.0));
    gjk_shape b = gjk_make_box(gjk_v3(0.5, 0.7, 0.3));
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; ++i) {
        gjk_quat q = gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), 0.3);
        /* B rotated about z, resting on A's top face z = 1 with depth d. */
        gjk_transform pb = gjk_transform_make(q, gjk_v3(0.2, -0.1, 1.0 + 0.3 - depths[i]));
        gjk_pair_frame f = make_frame(&a, at(0, 0, 0), &b, pb);
        gjk_simplex s = gjk_simplex_of(&f);
        gjk_epa_result r = gjk_epa(&f, &s, NULL);
        assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
        assert_near(r.depth, depths[i], 1e-15);
        assert_vec_near(r.normal, gjk_v3(0, 0, 1), 1e-12);
        check_answer(&f, &r, 1e-14);
    }
    /* A 1e-3 box sunk 2e-4 into a 1e3 box's face, 1e3 from the world origin. */
    gjk_shape big = gjk_make_box(gjk_v3(1e3, 1e3, 1e3));
    gjk_shape tiny = gjk_make_box(gjk_v3(1e-3, 1e-3, 1e-3));
    gjk_quat q = gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 1, 0)), 0.2);
    gjk_transform pb = gjk_transform_make(gjk_quat_identity(), gjk_v3(1e3, 1e3, 1e3));
    gjk_vec3 tiny_at = gjk_v3(1e3 + 37.0, 1e3 - 12.0, 2e3 - 2e-4); /* its centre */
    /* With a tilt, the lowest corner of the tiny box is below its centre by h_tiny(-z). */
    gjk_transform pt = gjk_transform_make(q, tiny_at);
    gjk_vec3 down = gjk_quat_inv_rotate(q, gjk_v3(0, 0, -1));
    double drop = gjk_dot(gjk_shape_support(&tiny, down), down);
    gjk_result g = gjk_signed_distance(&tiny, pt, &big, pb, NULL, NULL);
    assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
    assert_near(-g.distance, drop + 2e-4, 1e-12);
    assert_vec_near(g.normal, gjk_v3(0, 0, -1), 1e-9);
    assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), 1e-12);
}

/* Tetrahedra and small random polytopes in random poses against the SAT oracle. */
static void test_random_polytopes_against_sat(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int checked = 0;
    for (int trial = 0; trial < 400; ++trial) {
        int na = 4 + (trial % 3) * 2, nb = 4 + (trial / 3 % 3) * 3;
        gjk_vec3 la[10], lb[13], wa[10], wb[13];
        for (int i = 0; i < na; ++i) {
            la[i] = gjk_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5);
        }
        for (int i = 0; i < nb; ++i) {
            lb[i] = gjk_v3(2.0 * rnd(&seed) - 1.0, rnd(&seed) - 0.5, 0.6 * rnd(&seed) - 0.3);
        }
        gjk_transform pa = gjk_transform_make(random_quat(&seed), gjk_v3(rnd(&seed), 0, 0));
        gjk_transform pb = gjk_transform_make(
            random_quat(&seed), gjk_v3(rnd(&seed) * 0.6, rnd(&seed) * 0.4, rnd(&seed) * 0.3));
        for (int i = 0; i < na; ++i) {
            wa[i] = gjk_transform_point(pa, la[i]);
        }
        for (int i = 0; i < nb; ++i) {
            wb[i] = gjk_transform_point(pb, lb[i]);
        }
        double depth = sat_depth(wa, na, wb, nb);
        if (!(depth > 1e-9)) {
            continue; /* separated or touching: not EPA's case */
        }
        gjk_polytope A, B;
        assert_int_equal(gjk_hull_build(&A, la, na, NULL), GJK_STATUS_SEPARATED);
        assert_int_equal(gjk_hull_build(&B, lb, nb, NULL), GJK_STATUS_SEPARATED);
        gjk_shape sa = gjk_make_polytope(&A), sb = gjk_make_polytope(&B);
        gjk_result g = gjk_signed_distance(&sa, pa, &sb, pb, NULL, NULL);
        assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
        assert_near(-g.distance, depth, 1e-13);
        /* The normal achieves the depth: the overlap along it is the depth. */
        assert_near(overlap_along(wa, na, wb, nb, g.normal), depth, 1e-13);
        assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), 1e-13);
        assert_near(gjk_dot(g.point_a, g.normal), h_points(wa, na, g.normal), 1e-13);
        assert_near(gjk_dot(g.point_b, g.normal), -h_points(wb, nb, gjk_neg(g.normal)), 1e-13);
        gjk_polytope_destroy(&A);
        gjk_polytope_destroy(&B);
        ++checked;
    }
    assert_true(checked > 150);
}

/* Sphere-like polytopes (Fibonacci spheres of 48 and 30 points), deep and shallow: the
 * depth agrees with the SAT oracle. */
static void test_sphere_like_polytopes(void **state)
{
    (void)state;
    enum { NA = 48, NB = 30 };
    static gjk_vec3 la[NA], lb[NB], wa[NA], wb[NB];
    sphere_points(la, NA, 1.0);
    sphere_points(lb, NB, 0.5);
    gjk_polytope A, B;
    assert_int_equal(gjk_hull_build(&A, la, NA, NULL), GJK_STATUS_SEPARATED);
    assert_int_equal(gjk_hull_build(&B, lb, NB, NULL), GJK_STATUS_SEPARATED);
    gjk_shape sa = gjk_make_polytope(&A), sb = gjk_make_polytope(&B);
    const double offsets[] = {1.4, 1.3, 0.9, 0.3, 0.0};
    int checked = 0;
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; ++k) {
        gjk_transform pa =
            gjk_transform_make(gjk_quat_from_axis_angle(gjk_v3(0, 1, 0), 0.3), gjk_v3(0, 0, 0));
        gjk_vec3 dir = gjk_normalize(gjk_v3(1.0, 0.4, -0.2));
        gjk_transform pb = gjk_transform_make(gjk_quat_from_axis_angle(gjk_v3(1, 0, 0), 1.1),
                                              gjk_scale(dir, offsets[k]));
        for (int i = 0; i < NA; ++i) {
            wa[i] = gjk_transform_point(pa, la[i]);
        }
        for (int i = 0; i < NB; ++i) {
            wb[i] = gjk_transform_point(pb, lb[i]);
        }
        double depth = sat_depth(wa, NA, wb, NB);
        if (!(depth > 1e-9)) {
            continue; /* the inscribed polytopes miss each other */
        }
        gjk_result g = gjk_signed_distance(&sa, pa, &sb, pb, NULL, NULL);
        assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
        assert_near(-g.distance, depth, 1e-13);
        assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), 1e-13);
        ++checked;
    }
    assert_true(checked >= 4);
    gjk_polytope_destroy(&A);
    gjk_polytope_destroy(&B);
}

/* Random degenerate polytopes (flat polygons, duplicated vertices, boxes with ties, 1e-3 and
 * 1e3 sizes, shared rotations and quarter turns) through gjk_signed_distance against the SAT
 * oracle; and gjk_epa itself from random simplices (1-4 vertices, duplicates, points of D
 * that are not support points, simplices missing the origin). */
static int degenerate_points(uint64_t *seed, gjk_vec3 *p, double scale)
{
    int n = 0;
    switch ((int)(rnd(seed) * 4)) {
    case 0: { /* box corners: ties in every axis direction */
        double hx = rnd(seed) + 0.1, hy = rnd(seed) + 0.1, hz = rnd(seed) + 0.1;
        for (int i = 0; i < 8; ++i) {
            p[n++] = gjk_v3(i & 1 ? hx : -hx, i & 2 ? hy : -hy, i & 4 ? hz : -hz);
        }
        break;
    }
    case 1: /* a flat regular polygon */
        n = 4 + (int)(rnd(seed) * 5);
        for (int i = 0; i < n; ++i) {
            double t = 6.283185307179586 * i / n;
            p[i] = gjk_v3(cos(t), sin(t), 0.0);
        }
        break;
    case 2: /* a tetrahedron with every vertex listed twice */
        for (int i = 0; i < 4; ++i) {
            p[n] = gjk_v3(rnd(seed) - 0.5, rnd(seed) - 0.5, rnd(seed) - 0.5);
            p[n + 1] = p[n];
            n += 2;
        }
        break;
    default:
        n = 4 + (int)(rnd(seed) * 8);
        for (int i = 0; i < n; ++i) {
            p[i] = gjk_v3(rnd(seed) - 0.5, rnd(seed) - 0.5, rnd(seed) - 0.5);
        }
    }
    for (int i = 0; i < n; ++i) {
        p[i] = gjk_scale(p[i], scale);
    }
    return n;
}

static gjk_quat degenerate_rotation(uint64_t *seed)
{
    if (rnd(seed) < 0.5) {
        return random_quat(seed);
    }
    static const gjk_vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    return gjk_quat_from_axis_angle(axes[(int)(rnd(seed) * 3)],
                                    1.5707963267948966 * (int)(rnd(seed) * 4));
}

static void test_random_degenerate(void **state)
{
    (void)state;
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    int public_checked = 0, direct_checked = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        gjk_vec3 la[12], lb[12], wa[12], wb[12];
        double size_a = rnd(&seed) < 0.15 ? 1e-3 : 1.0, size_b = rnd(&seed) < 0.15 ? 1e3 : 1.0;
        double lref = size_a < size_b ? size_a : size_b;
        int na = degenerate_points(&seed, la, size_a), nb = degenerate_points(&seed, lb, size_b);
        gjk_vec3 far = gjk_v3(rnd(&seed) < 0.2 ? 1e3 * rnd(&seed) : 0.0, 0.0, 0.0);
        gjk_transform pa = gjk_transform_make(degenerate_rotation(&seed), far);
        gjk_vec3 rel = gjk_v3((rnd(&seed) - 0.5) * 1.5 * lref, (rnd(&seed) - 0.5) * 1.5 * lref,
                              (rnd(&seed) - 0.5) * 1.5 * lref);
        if (size_b > size_a) {
            rel.z += 0.5 * size_b; /* the small shape near the big one's surface */
        }
        gjk_quat qb = rnd(&seed) < 0.3 ? pa.q : degenerate_rotation(&seed);
        gjk_transform pb = gjk_transform_make(qb, gjk_add(far, rel));
        for (int i = 0; i < na; ++i) {
            wa[i] = gjk_transform_point(pa, la[i]);
        }
        for (int i = 0; i < nb; ++i) {
            wb[i] = gjk_transform_point(pb, lb[i]);
        }
        double depth = sat_depth(wa, na, wb, nb);
        if (!(depth > 1e-9 * lref)) {
            continue;
        }
        gjk_polytope A, B;
        assert_int_equal(gjk_polytope_create(&A, la, na, NULL, NULL), GJK_STATUS_SEPARATED);
        assert_int_equal(gjk_polytope_create(&B, lb, nb, NULL, NULL), GJK_STATUS_SEPARATED);
        gjk_shape sa = gjk_make_polytope(&A), sb = gjk_make_polytope(&B);
        double tol = 1e-9 * lref;

        gjk_result g = gjk_signed_distance(&sa, pa, &sb, pb, NULL, NULL);
        assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
        assert_near(-g.distance, depth, tol);
        assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), tol);
        ++public_checked;

        gjk_pair_frame f = make_frame(&sa, pa, &sb, pb);
        gjk_simplex sx;
        memset(&sx, 0, sizeof sx);
        sx.count = 1 + (int32_t)(rnd(&seed) * 4);
        for (int k = 0; k < sx.count; ++k) {
            if (k > 0 && rnd(&seed) < 0.3) {
                sx.v[k] = sx.v[k - 1];
            } else if (rnd(&seed) < 0.5) {
                gjk_vec3 d = gjk_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5);
                gjk_pair_support(&f, d, GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &sx.v[k]);
            } else {
                gjk_vec3 b =
                    gjk_add(gjk_mat3_mul_vec(&f.rot_b, lb[(int)(rnd(&seed) * nb)]), f.pos_b);
                sx.v[k] = vertex_of(la[(int)(rnd(&seed) * na)], b);
            }
            sx.lambda[k] = 1.0 / sx.count;
        }
        gjk_epa_result e = gjk_epa(&f, &sx, NULL);
        assert_int_equal(e.status, GJK_STATUS_OVERLAPPING);
        assert_near(e.depth, depth, tol);
        check_answer(&f, &e, tol * 8.0);
        ++direct_checked;
        gjk_polytope_destroy(&A);
        gjk_polytope_destroy(&B);
    }
    assert_true(public_checked > 600 && direct_checked > 600);
}

/* Curved and rounded shapes in random poses (EPA approximates their boundaries by facets):
 * every answer is finite and consistent, with a status EPA may give. */
static void test_curved_shapes_stay_finite(void **state)
{
    (void)state;
    uint64_t seed = 0xD1B54A32D192ED03ull;
    int epa_runs = 0;
    for (int trial = 0; trial < 1500; ++trial) {
        gjk_shape s[2];
        for (int k = 0; k < 2; ++k) {
            switch ((int)(rnd(&seed) * 5)) {
            case 0:
                s[k] = gjk_make_cylinder(rnd(&seed) + 0.05, rnd(&seed) + 0.05);
                break;
            case 1:
                s[k] = gjk_make_cone(rnd(&seed) + 0.05, rnd(&seed) + 0.05);
                break;
            case 2:
                s[k] = gjk_make_capsule(rnd(&seed) * 0.5, rnd(&seed));
                break;
            case 3:
                s[k] = gjk_make_box(gjk_v3(rnd(&seed) + 0.05, rnd(&seed), rnd(&seed) + 0.05));
                break;
            default:
                s[k] = gjk_make_sphere(rnd(&seed));
            }
            s[k].margin = rnd(&seed) < 0.3 ? 0.1 * rnd(&seed) : 0.0;
        }
        gjk_transform pa = gjk_transform_make(random_quat(&seed), gjk_v3(0, 0, 0));
        gjk_vec3 off = gjk_scale(gjk_v3(rnd(&seed) - 0.5, rnd(&seed) - 0.5, rnd(&seed) - 0.5),
                                 rnd(&seed) < 0.1 ? 0.0 : 1.0);
        gjk_transform pb = gjk_transform_make(random_quat(&seed), off);
        gjk_result g = gjk_signed_distance(&s[0], pa, &s[1], pb, NULL, NULL);
        assert_true(isfinite(g.distance));
        assert_true(gjk_vec3_is_finite(g.point_a) && gjk_vec3_is_finite(g.point_b));
        assert_near(gjk_length(g.normal), 1.0, 1e-9);
        if (g.epa_iterations > 0) {
            ++epa_runs;
            assert_true(g.status == GJK_STATUS_OVERLAPPING || g.status == GJK_STATUS_TOUCHING ||
                        g.status == GJK_STATUS_ITERATION_LIMIT ||
                        g.status == GJK_STATUS_CAPACITY_LIMIT);
            assert_true(g.distance <= 0.0);
            assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), 1e-12);
        }
    }
    assert_true(epa_runs > 300);
}

/* ------------------------------------------------------------------ degenerate simplices */

/* D = A - B for concentric boxes is the box of half extents (1.5, 2.5, 3.5): depth 1.5. */
static gjk_pair_frame concentric_frame(gjk_shape *a, gjk_shape *b)
{
    *a = gjk_make_box(gjk_v3(1.0, 2.0, 3.0));
    *b = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    return make_frame(a, at(0, 0, 0), b, at(0, 0, 0));
}

static void expect_concentric_answer(const gjk_pair_frame *f, const gjk_simplex *s)
{
    gjk_epa_result r = gjk_epa(f, s, NULL);
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(r.depth, 1.5, 1e-15);
    assert_near(fabs(r.normal.x), 1.0, 1e-15);
    check_answer(f, &r, 1e-14);
}

/* GJK ended on a point: here one support point far from the origin (a point simplex
 * that does not hold the origin at all must still be grown to the right answer). */
static void test_blow_up_point(void **state)
{
    (void)state;
    gjk_shape a, b;
    gjk_pair_frame f = concentric_frame(&a, &b);
    gjk_simplex s;
    memset(&s, 0, sizeof s);
    gjk_pair_support(&f, gjk_v3(0.2, -0.7, 0.4), GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &s.v[0]);
    s.lambda[0] = 1.0;
    s.count = 1;
    expect_concentric_answer(&f, &s);
    /* An empty simplex too (count 0): EPA takes its own first point. */
    s.count = 0;
    expect_concentric_answer(&f, &s);
}

/* GJK ended on a segment through the origin (D is symmetric: s(d) and s(-d) are opposite). */
static void test_blow_up_segment(void **state)
{
    (void)state;
    gjk_shape a, b;
    gjk_pair_frame f = concentric_frame(&a, &b);
    gjk_simplex s;
    memset(&s, 0, sizeof s);
    gjk_vec3 d = gjk_v3(0.3, 0.5, 0.8);
    gjk_pair_support(&f, d, GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &s.v[0]);
    gjk_pair_support(&f, gjk_neg(d), GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &s.v[1]);
    assert_vec_near(gjk_add(s.v[0].w, s.v[1].w), gjk_v3(0, 0, 0), 0.0);
    s.lambda[0] = s.lambda[1] = 0.5;
    s.count = 2;
    expect_concentric_answer(&f, &s);
    /* A segment along a coordinate axis (its orthogonal directions are axes too). */
    s.v[0] = vertex_of(gjk_v3(0, 0, 3), gjk_v3(0, 0, 0));
    s.v[1] = vertex_of(gjk_v3(0, 0, -3), gjk_v3(0, 0, 0));
    expect_concentric_answer(&f, &s);
}

/* GJK ended on a triangle holding the origin, and on flat or duplicated tetrahedra. */
static void test_blow_up_triangle_and_flat_tetrahedra(void **state)
{
    (void)state;
    gjk_shape a, b;
    gjk_pair_frame f = concentric_frame(&a, &b);
    gjk_simplex s;
    memset(&s, 0, sizeof s);
    s.v[0] = vertex_of(gjk_v3(1.0, 0.0, 0.0), gjk_v3(0, 0, 0));
    s.v[1] = vertex_of(gjk_v3(-0.5, 1.0, 0.0), gjk_v3(0, 0, 0));
    s.v[2] = vertex_of(gjk_v3(-0.5, -1.0, 0.0), gjk_v3(0, 0, 0));
    s.lambda[0] = s.lambda[1] = s.lambda[2] = 1.0 / 3.0;
    s.count = 3;
    expect_concentric_answer(&f, &s);
    /* A flat tetrahedron: a fourth point in the same plane. */
    s.v[3] = vertex_of(gjk_v3(0.2, 0.3, 0.0), gjk_v3(0, 0, 0));
    s.lambda[3] = 0.0;
    s.count = 4;
    expect_concentric_answer(&f, &s);
    /* A tetrahedron with a duplicated vertex (and a triangle holding the origin). */
    s.v[3] = s.v[1];
    expect_concentric_answer(&f, &s);
    /* All four vertices the same point. */
    s.v[1] = s.v[2] = s.v[3] = s.v[0];
    expect_concentric_answer(&f, &s);
    /* A proper tetrahedron holding the origin, with the wrong orientation (EPA orients). */
    s.v[0] = vertex_of(gjk_v3(1, 1, 1), gjk_v3(0, 0, 0));
    s.v[1] = vertex_of(gjk_v3(-1, -1, 1), gjk_v3(0, 0, 0));
    s.v[2] = vertex_of(gjk_v3(-1, 1, -1), gjk_v3(0, 0, 0));
    s.v[3] = vertex_of(gjk_v3(1, -1, -1), gjk_v3(0, 0, 0));
    expect_concentric_answer(&f, &s);
    gjk_vertex t = s.v[1];
    s.v[1] = s.v[2];
    s.v[2] = t;
    expect_concentric_answer(&f, &s);
}

/* ------------------------------------------------------------------ touching */

/* Boxes face to face with zero overlap: D's face x = 0 holds the origin. GJK may end on a
 * triangle in that face; EPA must answer TOUCHING with depth 0 and the face normal. */
static void test_touching_face(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(1.0, 1.0, 1.0));
    gjk_shape b = gjk_make_box(gjk_v3(1.0, 1.0, 1.0));
    gjk_pair_frame f = make_frame(&a, at(0, 0, 0), &b, at(2.0, 0.3, -0.2));
    gjk_simplex s;
    memset(&s, 0, sizeof s);
    s.v[0] = vertex_of(gjk_v3(1.0, 0.5, 0.0), gjk_v3(1.0, -0.5, 0.0));
    s.v[1] = vertex_of(gjk_v3(1.0, -0.5, 0.5), gjk_v3(1.0, 0.0, -0.5));
    s.v[2] = vertex_of(gjk_v3(1.0, -0.5, -0.5), gjk_v3(1.0, 0.0, 0.5));
    s.lambda[0] = s.lambda[1] = s.lambda[2] = 1.0 / 3.0;
    s.count = 3;
    gjk_epa_result r = gjk_epa(&f, &s, NULL);
    assert_int_equal(r.status, GJK_STATUS_TOUCHING);
    assert_true(r.depth == 0.0);
    assert_vec_near(r.normal, gjk_v3(1, 0, 0), 1e-15);
    assert_vec_near(r.point_a, r.point_b, 1e-15);
    assert_near(r.point_a.x, 1.0, 1e-15);

    /* The public query reports it as touching, distance 0 to the contact tolerance. */
    gjk_result g = gjk_signed_distance(&a, at(0, 0, 0), &b, at(2.0, 0.3, -0.2), NULL, NULL);
    assert_int_equal(g.status, GJK_STATUS_TOUCHING);
    assert_true(fabs(g.distance) <= 1e-9);
}

/* Corner against corner: GJK may end on the single point w = 0. */
static void test_touching_point(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(1.0, 1.0, 1.0));
    gjk_shape b = gjk_make_box(gjk_v3(1.0, 1.0, 1.0));
    gjk_pair_frame f = make_frame(&a, at(0, 0, 0), &b, at(2.0, 2.0, 2.0));
    gjk_simplex s;
    memset(&s, 0, sizeof s);
    s.v[0] = vertex_of(gjk_v3(1, 1, 1), gjk_v3(1, 1, 1));
    s.lambda[0] = 1.0;
    s.count = 1;
    gjk_epa_result r = gjk_epa(&f, &s, NULL);
    assert_int_equal(r.status, GJK_STATUS_TOUCHING);
    assert_true(r.depth == 0.0);
    assert_near(gjk_length(r.normal), 1.0, 1e-15);
    assert_vec_near(r.point_a, gjk_v3(1, 1, 1), 0.0);
    assert_vec_near(r.point_b, gjk_v3(1, 1, 1), 0.0);
}

/* Flat polygons: coplanar overlapping squares make a flat D (no interior): touching, depth
 * 0; a square piercing a box is a proper penetration (depth 0.2 along x). */
static void test_flat_polygons(void **state)
{
    (void)state;
    gjk_vec3 sq[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    gjk_polytope p;
    assert_int_equal(gjk_polytope_create(&p, sq, 4, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape s = gjk_make_polytope(&p);
    gjk_quat q = gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), 0.4);
    gjk_result g = gjk_signed_distance(&s, at(0, 0, 0), &s,
                                       gjk_transform_make(q, gjk_v3(0.5, 0.3, 0.0)), NULL, NULL);
    assert_int_equal(g.status, GJK_STATUS_TOUCHING);
    assert_true(fabs(g.distance) <= 1e-15);
    assert_near(gjk_length(g.normal), 1.0, 1e-12);

    gjk_shape box = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    g = gjk_signed_distance(&s, at(0, 0, 0), &box, at(1.3, 0.0, 0.1), NULL, NULL);
    assert_int_equal(g.status, GJK_STATUS_OVERLAPPING);
    assert_near(g.distance, -0.2, 1e-15);
    assert_vec_near(g.normal, gjk_v3(1, 0, 0), 1e-15);
    assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), 1e-15);
    gjk_polytope_destroy(&p);
}

/* ------------------------------------------------------------------ coaxial bodies */

/* Support value of a placed shape (margin included) along world direction u. */
static double placed_support(const gjk_shape *s, gjk_transform t, gjk_vec3 u)
{
    gjk_quat q = gjk_quat_normalize(t.q);
    gjk_vec3 local = gjk_quat_rotate(gjk_quat_conj(q), u);
    return gjk_dot(gjk_transform_point(t, gjk_shape_support(s, local)), u);
}

/* Coaxial bodies of revolution (a peg in a hole): D is itself one, and its depth a ring of
 * equal support values around the axis that no inscribed polytope closes. EPA ended at
 * CAPACITY_LIMIT after 0.4 ms, 5e-6 to 1e-4 shallow, on a cylinder in a cylinder; the depth
 * now comes from the meridian section (exact, no EPA iteration), with a normal that realises
 * it and witnesses on the shapes. Near-coaxial pairs (1e-3 off the axis) still take EPA. */
static void test_coaxial_bodies_of_revolution(void **state)
{
    (void)state;
    const gjk_quat flip = gjk_quat_from_axis_angle(gjk_v3(1, 0, 0), 3.141592653589793);
    const gjk_quat tilt = gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 2, 0)), 0.7);
    gjk_shape capsule = gjk_make_capsule(0.01, 0.05);
    capsule.margin = 1e-3;
    struct {
        gjk_shape a, b;
        double z, depth;
        bool flipped;
    } cases[] = {
        /* radial: 0.05 + 0.02 */
        {gjk_make_cylinder(0.05, 0.2), gjk_make_cylinder(0.02, 0.1), 0.01, 0.07, false},
        {gjk_make_cylinder(0.05, 0.2), gjk_make_cylinder(0.02, 0.1), 0.01, 0.07, true},
        /* axial: 0.2 + 0.5 - 0.65 against 0.06 radially */
        {gjk_make_cylinder(0.05, 0.2), gjk_make_cylinder(0.01, 0.5), 0.65, 0.05, false},
        /* a capsule centred in a cylinder: radially 0.3 (axially 0.3 + 0.05), plus its
         * radius and margin */
        {gjk_make_cylinder(0.3, 0.3), capsule, 0.0, 0.3 + 0.011, false},
        /* a cone in a cylinder: radially 0.2 + 0.1 (its side and caps give more) */
        {gjk_make_cylinder(0.2, 0.3), gjk_make_cone(0.1, 0.1), 0.0, 0.3, false},
        {gjk_make_cone(0.1, 0.1), gjk_make_cylinder(0.2, 0.3), 0.0, 0.3, true},
        /* a sphere on the axis of a cone: its side's normal is the nearest */
        {gjk_make_cone(0.5, 0.5), gjk_make_sphere(0.05), -0.2, 0.0, false},
    };
    /* The last case's depth: the sphere's centre 0.3 above the base, and from the side
     * through (0.5, -0.5) and (0, 0.5) along its outward normal (1, 0.5) / |(1, 0.5)|. */
    {
        double ux = 2.0 * 0.5, uz = 0.5, len = sqrt(ux * ux + uz * uz); /* side normal */
        double side = (ux * 0.5 + uz * -0.5 - (ux * 0.0 + uz * -0.2)) / len;
        double base = -0.2 + 0.5;
        cases[6].depth = fmin(side, base) + 0.05;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gjk_transform pa = gjk_transform_make(tilt, gjk_v3(0.3, -0.2, 0.1));
        gjk_quat qb = gjk_quat_mul(tilt, cases[i].flipped ? flip : gjk_quat_identity());
        gjk_vec3 axis = gjk_quat_rotate(tilt, gjk_v3(0, 0, 1));
        gjk_transform pb = gjk_transform_make(qb, gjk_madd(pa.p, cases[i].z, axis));
        gjk_result r = gjk_signed_distance(&cases[i].a, pa, &cases[i].b, pb, NULL, NULL);
        const double tol = 1e-12 * 1.0;
        if (r.status != GJK_STATUS_OVERLAPPING || !(fabs(-r.distance - cases[i].depth) <= tol)) {
            fail_msg("case %zu: %s, depth %.17g, expected %.17g", i, gjk_status_name(r.status),
                     -r.distance, cases[i].depth);
        }
        assert_int_equal(r.epa_iterations, 0);
        assert_near(gjk_length(r.normal), 1.0, 1e-12);
        /* The normal realises the depth: the shapes separate by exactly -depth along it. */
        double sep = -placed_support(&cases[i].a, pa, r.normal) -
                     placed_support(&cases[i].b, pb, gjk_neg(r.normal));
        assert_near(sep, r.distance, tol);
        assert_vec_near(gjk_sub(r.point_b, r.point_a), gjk_scale(r.normal, r.distance), tol);
        /* The witnesses lie on their shapes: on the supporting planes along the normal. */
        assert_near(gjk_dot(r.point_a, r.normal), placed_support(&cases[i].a, pa, r.normal),
                    tol);
        assert_near(-gjk_dot(r.point_b, r.normal),
                    placed_support(&cases[i].b, pb, gjk_neg(r.normal)), tol);
        assert_true(r.lower_bound <= r.distance && r.distance <= r.upper_bound);
    }
    /* 1e-3 off the axis: no longer a body of revolution, EPA converges as before. */
    gjk_shape hole = gjk_make_cylinder(0.05, 0.2), peg = gjk_make_cylinder(0.02, 0.1);
    gjk_result r = gjk_signed_distance(&hole, at(0, 0, 0), &peg, at(1e-3, 0, 0.01), NULL, NULL);
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_true(r.epa_iterations > 0);
    assert_near(r.distance, -0.069, 1e-12);
}

/* ------------------------------------------------------------------ limits */

/* Tiny iteration caps: ITERATION_LIMIT with a finite, consistent estimate that is a lower
 * bound of the depth (EPA's polytope lies inside D). */
static void test_iteration_limit(void **state)
{
    (void)state;
    enum { N = 300 };
    static gjk_vec3 pts[N];
    sphere_points(pts, N, 1.0);
    gjk_polytope A;
    assert_int_equal(gjk_hull_build(&A, pts, N, NULL), GJK_STATUS_SEPARATED);
    gjk_shape sa = gjk_make_polytope(&A);
    gjk_pair_frame f = make_frame(&sa, at(0, 0, 0), &sa, at(0.3, 0.2, 0.1));
    gjk_simplex s = gjk_simplex_of(&f);
    gjk_options full = options_with_epa_iterations(1000);
    gjk_epa_result exact = gjk_epa(&f, &s, &full);
    assert_int_equal(exact.status, GJK_STATUS_OVERLAPPING);
    for (int32_t cap = 1; cap <= 8; ++cap) {
        gjk_options o = options_with_epa_iterations(cap);
        gjk_epa_result r = gjk_epa(&f, &s, &o);
        assert_int_equal(r.status, GJK_STATUS_ITERATION_LIMIT);
        assert_int_equal(r.iterations, cap);
        check_answer(&f, &r, 2.0); /* finite and consistent; the planes only roughly */
        assert_vec_near(gjk_sub(r.point_a, r.point_b), gjk_scale(r.normal, r.depth), 1e-14);
        /* The bounds bracket the converged depth. */
        assert_true(r.depth <= exact.depth + 1e-15);
        assert_true(r.depth_upper >= exact.depth - 1e-15);
    }
    gjk_polytope_destroy(&A);
}

/* D close to a ball around the origin (two concentric 2000-point spheres) needs far more
 * vertices than EPA's stack storage holds. It once stopped there with CAPACITY_LIMIT and a
 * depth 2.7e-3 of the size shallow; the polytope now moves into a workspace block and EPA
 * converges, within the default (automatic) iteration cap, to bounds within the tolerance.
 * test_epa_deep checks such cases against an exact oracle. */
static void test_grows_past_stack_storage(void **state)
{
    (void)state;
    enum { N = 2000 };
    static gjk_vec3 pts[N];
    sphere_points(pts, N, 1.0);
    gjk_polytope A;
    assert_int_equal(gjk_hull_build(&A, pts, N, NULL), GJK_STATUS_SEPARATED);
    gjk_shape sa = gjk_make_polytope(&A);
    gjk_quat q = gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 2, 3)), 0.1);
    gjk_pair_frame f = make_frame(&sa, at(0, 0, 0), &sa, gjk_transform_make(q, gjk_v3(0, 0, 0)));
    gjk_simplex s = gjk_simplex_of(&f);
    gjk_workspace ws = {NULL, 0, 0};
    gjk_epa_result r = gjk_epa_in(&f, &s, NULL, &ws);
    assert_int_equal(r.status, GJK_STATUS_OVERLAPPING);
    assert_true(r.iterations > 480); /* more vertices than the stack storage holds */
    assert_true(ws.grows >= 1 && ws.block != NULL);
    assert_vec_near(gjk_sub(r.point_a, r.point_b), gjk_scale(r.normal, r.depth), 1e-14);
    assert_true(r.depth <= 2.0 && r.depth > 1.9);
    assert_true(r.depth_upper >= r.depth && r.depth_upper - r.depth <= 1e-12 * r.depth);
    assert_near(gjk_length(r.normal), 1.0, 1e-12);
    /* The same call again: the workspace holds enough, nothing is allocated; the temporary
     * block of gjk_epa gives the same answer. */
    int32_t grows = ws.grows;
    gjk_epa_result again = gjk_epa_in(&f, &s, NULL, &ws);
    assert_int_equal(ws.grows, grows);
    gjk_epa_result own = gjk_epa(&f, &s, NULL);
    assert_true(again.depth == r.depth && own.depth == r.depth);
    assert_int_equal(own.iterations, r.iterations);
    gjk_workspace_release(&ws);
    assert_null(ws.block);
    gjk_polytope_destroy(&A);
}

/* A polytope filled by hand with a NaN vertex bypasses validation; EPA must say
 * INVALID_INPUT with finite fields, whether the NaN shows in a support point or already in
 * the simplex. (query.c validates shapes first; this guards the internal contract.) */
static void test_non_finite_support(void **state)
{
    (void)state;
    double x[9] = {-1, 1, -1, 1, -1, 1, -1, 1, NAN};
    double y[9] = {-1, -1, 1, 1, -1, -1, 1, 1, 0};
    double z[9] = {-1, -1, -1, -1, 1, 1, 1, 1, 0};
    gjk_polytope p;
    memset(&p, 0, sizeof p);
    p.x = x;
    p.y = y;
    p.z = z;
    p.count = p.padded_count = 9;
    p.radius = 2.0;
    gjk_shape a = gjk_make_polytope(&p);
    gjk_shape b = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_pair_frame f = make_frame(&a, at(0, 0, 0), &b, at(0.2, 0, 0));
    gjk_simplex s;
    memset(&s, 0, sizeof s);
    s.v[0] = vertex_of(gjk_v3(1, 1, 1), gjk_v3(0, 0, 0));
    s.v[1] = vertex_of(gjk_v3(-1, -1, 1), gjk_v3(0, 0, 0));
    s.v[2] = vertex_of(gjk_v3(-1, 1, -1), gjk_v3(0, 0, 0));
    s.v[3] = vertex_of(gjk_v3(1, -1, -1), gjk_v3(0, 0, 0));
    s.count = 4;
    for (int k = 0; k < 2; ++k) {
        gjk_epa_result r = gjk_epa(&f, &s, NULL);
        assert_int_equal(r.status, GJK_STATUS_INVALID_INPUT);
        assert_true(isfinite(r.depth) && isfinite(r.depth_upper));
        assert_true(gjk_vec3_is_finite(r.normal) && gjk_vec3_is_finite(r.point_a) &&
                    gjk_vec3_is_finite(r.point_b));
        s.v[2].w = gjk_v3(NAN, 0, 0); /* second round: NaN in the simplex itself */
    }
}

/* ------------------------------------------------------------------ case file */

/* Every intersecting case of quick.cases through gjk_signed_distance with the default
 * options: converged, depth error at most 1e-9 lref, the normal attains the depth, and the
 * witnesses are consistent and on the support planes. */
static void test_quick_cases(void **state)
{
    (void)state;
    if (g_cases_path == NULL) {
        skip();
    }
    gjk_case_set set;
    char err[256];
    if (gjk_cases_load(g_cases_path, &set, err, sizeof err) != 0) {
        fail_msg("%s", err);
    }
    gjk_polytope *hulls = calloc((size_t)set.shape_count, sizeof *hulls);
    assert_non_null(hulls);
    for (int32_t i = 0; i < set.shape_count; ++i) {
        assert_int_equal(gjk_hull_build(&hulls[i], set.shapes[i].points, set.shapes[i].count, NULL),
                         GJK_STATUS_SEPARATED);
    }
    int checked = 0;
    double worst = 0.0;
    for (int32_t ci = 0; ci < set.case_count; ++ci) {
        const gjk_case *c = &set.cases[ci];
        if (strcmp(c->state, "intersecting") != 0) {
            continue;
        }
        const gjk_case_shape *ca = &set.shapes[c->shape_a], *cb = &set.shapes[c->shape_b];
        gjk_shape a = gjk_make_polytope(&hulls[c->shape_a]);
        gjk_shape b = gjk_make_polytope(&hulls[c->shape_b]);
        gjk_result g = gjk_signed_distance(&a, c->pose_a, &b, c->pose_b, NULL, NULL);
        if (g.status != GJK_STATUS_OVERLAPPING) {
            fail_msg("case %d: status %s", c->id, gjk_status_name(g.status));
        }
        double tol = 1e-9 * c->lref;
        double e = fabs(g.distance - c->sd);
        worst = e / c->lref > worst ? e / c->lref : worst;
        if (!(e <= tol)) {
            fail_msg("case %d (%s %s): distance %.17g, exact %.17g, error %.3g lref", c->id,
                     c->subset, c->tag, g.distance, c->sd, e / c->lref);
        }
        static gjk_vec3 wa[2000], wb[2000];
        for (int k = 0; k < ca->count; ++k) {
            wa[k] = gjk_transform_point(c->pose_a, ca->points[k]);
        }
        for (int k = 0; k < cb->count; ++k) {
            wb[k] = gjk_transform_point(c->pose_b, cb->points[k]);
        }
        assert_near(overlap_along(wa, ca->count, wb, cb->count, g.normal), -c->sd, tol);
        assert_vec_near(gjk_sub(g.point_b, g.point_a), gjk_scale(g.normal, g.distance), tol);
        assert_near(gjk_dot(g.point_a, g.normal), h_points(wa, ca->count, g.normal), tol);
        assert_near(gjk_dot(g.point_b, g.normal), -h_points(wb, cb->count, gjk_neg(g.normal)), tol);
        ++checked;
    }
    print_message("quick.cases: %d intersecting cases, max depth error %.3g lref\n", checked,
                  worst);
    assert_true(checked > 350);
    for (int32_t i = 0; i < set.shape_count; ++i) {
        gjk_polytope_destroy(&hulls[i]);
    }
    free(hulls);
    gjk_cases_free(&set);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        g_cases_path = argv[1];
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boxes_face_to_face),
        cmocka_unit_test(test_antiparallel_faces),
        cmocka_unit_test(test_concentric_boxes),
        cmocka_unit_test(test_shallow_and_scaled),
        cmocka_unit_test(test_random_polytopes_against_sat),
        cmocka_unit_test(test_sphere_like_polytopes),
        cmocka_unit_test(test_random_degenerate),
        cmocka_unit_test(test_curved_shapes_stay_finite),
        cmocka_unit_test(test_blow_up_point),
        cmocka_unit_test(test_blow_up_segment),
        cmocka_unit_test(test_blow_up_triangle_and_flat_tetrahedra),
        cmocka_unit_test(test_touching_face),
        cmocka_unit_test(test_touching_point),
        cmocka_unit_test(test_flat_polygons),
        cmocka_unit_test(test_iteration_limit),
        cmocka_unit_test(test_grows_past_stack_storage),
        cmocka_unit_test(test_coaxial_bodies_of_revolution),
        cmocka_unit_test(test_non_finite_support),
        cmocka_unit_test(test_quick_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
