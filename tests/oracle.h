/* oracle.h — an independent reference for convex distance and penetration, for tests.
 *
 * Shares no code with core/src: it takes the public value types (gjk_vec3, gjk_transform) as
 * plain data and does all of its own arithmetic in long double.
 *
 * Polytopes (up to ORACLE_MAX_VERTICES points, any of them may be interior or duplicated):
 *  - faces by brute force: every vertex triple whose plane has all points on one side
 *    (coplanar faces give several overlapping triangles, a flat polygon gives every triple);
 *    edges: every pair of a face triple. Each triangle and segment lies in the polytope, and
 *    the true boundary features are among them.
 *  - separated: the distance is the minimum over vertex-triangle, triangle-vertex and
 *    segment-segment closest-point pairs (every such pair is an upper bound, the true closest
 *    features are among them), with the witnesses and the normal (wb - wa) / d;
 *  - overlapping: the separating-axis theorem over the face normals of both and the cross
 *    products of all edge pairs: depth = the least overlap along those axes, normal = that
 *    axis (A towards B), no witnesses (NaN).
 * The verdict comes from the same axes: some axis separates iff the polytopes are disjoint.
 * Margins (inflation radii) are exact for Minkowski sums: sd = sd(cores) - ma - mb.
 *
 * Cost: O(n^4) to build a shape (n <= 32 is instant), O(n m (n + m)) per query. */
#ifndef GJK_TESTS_ORACLE_H
#define GJK_TESTS_ORACLE_H

#include <stdbool.h>

#include "gjk/gjk.h"

#define ORACLE_MAX_VERTICES 40

typedef struct oracle_v3 {
    long double x, y, z;
} oracle_v3;

typedef struct oracle_shape {
    int count;                        /* points (world frame) */
    oracle_v3 v[ORACLE_MAX_VERTICES]; /* world-frame points */
    int dim;                          /* affine dimension 0..3 */
    int tri_count;
    int (*tri)[3];           /* face triangles (vertex indices) */
    oracle_v3 *tri_normal;   /* unit outward normal of each triangle (world); for a flat
                                shape the plane normal (either side) */
    long double *tri_offset; /* normal . x <= offset for every x in the shape (dim 3) */
    int edge_count;
    int (*edge)[2];
    long double margin; /* inflation radius */
    long double extent; /* max distance of a point from the first point */
} oracle_shape;

typedef struct oracle_answer {
    long double sd;   /* signed distance: distance when > 0, minus depth when <= 0 */
    oracle_v3 normal; /* unit, A towards B */
    oracle_v3 wa, wb; /* closest points (separated only; NaN otherwise) */
    bool separated;   /* some axis strictly separates the cores (before margins) */
    long double sat;  /* best separating-axis value of the cores (<= distance) */
} oracle_answer;

/* Builds the oracle's view of the convex hull of `count` local points placed at `pose`
 * (quaternion normalised here), inflated by `margin`. Returns 0, or -1 if count is out of
 * 1..ORACLE_MAX_VERTICES or memory runs out. */
int oracle_shape_init(oracle_shape *s, const gjk_vec3 *points, int count, gjk_transform pose,
                      double margin);
void oracle_shape_free(oracle_shape *s);

/* Exact signed distance, normal and witnesses of a pair (see the top of this file). */
oracle_answer oracle_query(const oracle_shape *a, const oracle_shape *b);

/* Support value h(u) = max over the shape (margin included) of x . u, for unit u. */
long double oracle_support(const oracle_shape *s, oracle_v3 u);

/* Distance from p to the shape (margin included); 0 inside. */
long double oracle_point_distance(const oracle_shape *s, oracle_v3 p);

/* --- closest-point primitives and analytic helpers (all exact up to rounding) --- */

oracle_v3 oracle_v3_from(gjk_vec3 v);
gjk_vec3 oracle_v3_to(oracle_v3 v);

/* Closest point of triangle abc to p. */
oracle_v3 oracle_closest_on_triangle(oracle_v3 p, oracle_v3 a, oracle_v3 b, oracle_v3 c);
/* Closest points c1 on segment p0p1 and c2 on q0q1; returns |c1 - c2|. */
long double oracle_segment_segment(oracle_v3 p0, oracle_v3 p1, oracle_v3 q0, oracle_v3 q1,
                                   oracle_v3 *c1, oracle_v3 *c2);
/* Distance from p to the axis-aligned box [-h, h] (0 inside) and the signed version
 * (negative inside: minus the distance to the boundary). */
long double oracle_point_box_distance(oracle_v3 p, oracle_v3 h);
long double oracle_point_box_signed(oracle_v3 p, oracle_v3 h);
/* Signed distance between spheres, capsules (segments along z of half length hh). */
long double oracle_sphere_sphere(oracle_v3 ca, long double ra, oracle_v3 cb, long double rb);
long double oracle_capsule_capsule(gjk_transform pa, long double ra, long double hha,
                                   gjk_transform pb, long double rb, long double hhb);

/* --- test assertions (use after #include <cmocka.h>): print both values and the tolerance --- */
#define ORACLE_ASSERT_NEAR(a, b, tol)                                                              \
    do {                                                                                           \
        double oa_ = (double)(a), ob_ = (double)(b), ot_ = (double)(tol);                          \
        if (!(fabs(oa_ - ob_) <= ot_))                                                             \
            fail_msg("%s = %.17g, %s = %.17g: |difference| %.3g > tolerance %.3g", #a, oa_, #b,    \
                     ob_, fabs(oa_ - ob_), ot_);                                                   \
    } while (0)
#define ORACLE_ASSERT_LE(a, b)                                                                     \
    do {                                                                                           \
        double oa_ = (double)(a), ob_ = (double)(b);                                               \
        if (!(oa_ <= ob_))                                                                         \
            fail_msg("expected %s <= %s: %.17g > %.17g", #a, #b, oa_, ob_);                        \
    } while (0)
#define ORACLE_ASSERT_STATUS(got, want)                                                            \
    do {                                                                                           \
        gjk_status og_ = (got), ow_ = (want);                                                      \
        if (og_ != ow_)                                                                            \
            fail_msg("%s is %s, expected %s", #got, gjk_status_name(og_), gjk_status_name(ow_));   \
    } while (0)

#endif /* GJK_TESTS_ORACLE_H */
