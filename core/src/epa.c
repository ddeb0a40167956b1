/* epa.c — penetration depth by the Expanding Polytope Algorithm.
 *
 * References: G. van den Bergen, "Proximity Queries and Penetration Depth Computation on 3D
 * Game Objects", GDC 2001, and "Collision Detection in Interactive 3D Environments" (2003)
 * section 4.3.8.
 *
 * The input is the Minkowski difference D = core(A) - core(B) (support map
 * gjk_pair_support, A-local frame) and GJK's final simplex, which contains the origin. For a
 * convex D containing the origin, the penetration depth is the distance from the origin to
 * the boundary of D, which is the minimum of the support function over unit directions:
 *
 *     depth = min_{|n| = 1} h(n),   h(n) = max_{x in D} dot(x, n).
 *
 * EPA keeps a convex polytope P inside D (its vertices are support points of D) whose faces
 * are stored with their outward unit normal n_f and plane distance d_f = dot(n_f, vertex).
 * P inside D makes the nearest face distance min_f d_f a lower bound on the depth, and every
 * support value h(n_f) an upper bound. Each iteration takes the nearest face, evaluates
 * w = s(n_f), and either stops (h(n_f) - d_f within tolerance) or adds w to P: the faces that
 * see w are removed and a fan of new faces joins w to the horizon, the loop of edges between
 * seen and unseen faces. The answer is the nearest face: depth = d_f, normal = n_f, and the
 * deepest points are the barycentric combination of the face's support points at the
 * projection d_f * n_f of the origin (which lies in that face, or in a coplanar neighbour:
 * the ball of radius d_f is inside P and touches the face's plane there).
 *
 * Robustness:
 *  - GJK's simplex may be degenerate (1-3 vertices, or a flat or duplicated tetrahedron). It
 *    is reduced to an affinely independent set and grown to a tetrahedron by support points
 *    along directions orthogonal to its affine hull, on the side of the origin.
 *  - Any support value h(n) <= 0 (to rounding) proves that the origin is on the boundary of
 *    D: the shapes touch, depth 0 (GJK_STATUS_TOUCHING). A flat D (no volume: two coplanar
 *    polygons, say) is the same case.
 *  - The nearest face is chosen by signed distance, so a polytope that misses the origin
 *    (a rounding error, or a simplex that never held it) grows towards it, as GJK would.
 *  - Face normals use the best-conditioned cross product (the two shorter edges); slivers
 *    take the normal of the unseen face across their horizon edge. Barycentric weights are
 *    measured from a vertex of the face, not from the origin.
 *  - A face sees w only if w is above its plane by more than rounding; the faces that see w
 *    are taken as the edge-connected set around the nearest face, and its boundary must be
 *    one simple loop before anything changes. If rounding ever broke that, EPA would stop
 *    with its best estimate (GJK_STATUS_ITERATION_LIMIT) rather than corrupt the polytope.
 *  - P is convex only to rounding where D is flat (the vertices of a flat part lie off its
 *    plane by their own rounding). No new face may fold over (face inwards, with a plane
 *    distance near -depth): a face that would puts the face across its horizon edge, which
 *    rounding misjudged, into the region (polytope_expand). A face whose support point is
 *    already a vertex, above its plane by more than the plane's rounding, is not a face of
 *    the hull: it is spent (never taken as the nearest face again) instead of ending EPA as
 *    converged.
 *  - P only grows, so while it is convex its nearest face can only move away from the origin
 *    and never past a support value. A nearest face shallower than an earlier one, or
 *    deeper than a support value, beyond the planes' rounding, shows rounding has broken P:
 *    EPA answers from the tightest face seen (least gap between its support value and its
 *    plane), at its support value (the depth its normal realises).
 *  - Every answer carries both bounds: depth (nearest face, lower) and depth_upper (least
 *    support value seen). ITERATION_LIMIT and CAPACITY_LIMIT report the nearest face so far.
 *
 * Storage: the polytope starts in a structure on the stack sized for 480 vertices (enough
 * for every case of the case sets: the deepest 2000 x 2000-vertex pair of full.cases needs
 * 449), with 16-bit indices, nothing allocated. A polytope that outgrows it starts again in
 * a workspace block (the grown variant of epa_run.inc), which doubles whenever it is full:
 * the caller's (gjk_query.workspace, kept for later queries and reused when large enough),
 * else one of gjk_epa's own, freed before it returns. The iterations up to the restart are
 * the same arithmetic, so is the answer; only pairs past the stack storage pay for them
 * twice. Nothing else allocates, and nothing is global. The count grows as D approaches a
 * ball around the origin: a certified lower bound needs P to follow D everywhere to within
 * h(n) - depth (two concentric 2000-point spheres: 768 vertices). The faces that see w come
 * from one pass over
 * the plane arrays (structure of arrays), which also finds the next nearest face. Each face
 * keeps the three faces across its edges (adj), so the region and its horizon are read off
 * those links; matching the seen faces' edges among themselves instead took as many
 * instructions but mispredicted about a fifth of EPA's branches. */
#include "internal.h"
#include "trace_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

enum {
    EPA_STACK_VERTICES = 480,
    /* A closed triangulated polytope with V vertices has 2V - 4 faces (Euler). */
    EPA_STACK_FACES = 2 * EPA_STACK_VERTICES - 4,
    /* Faces seeing one new vertex, and edges of its horizon: tens in practice. More (on the
     * stack) also moves EPA into a workspace block. */
    EPA_STACK_REGION = 128,
    EPA_STACK_HORIZON = 128,
    /* Vertices of the largest polytope a workspace may hold (2^24: about 8 GiB). */
    EPA_GROW_MAX_VERTICES = 1 << 24
};

/* Lengths below this many ulps of the pair's scale are rounding noise. */
#define EPA_ZERO_ULPS 16.0
/* The largest rounding of a face's plane, relative to the pair's scale, that may stand for
 * convergence (see the known-vertex exit in epa_run): beyond it the face is too
 * ill-conditioned to certify anything, and a face that deep beyond a support value means
 * rounding has broken the polytope. */
#define EPA_PLANE_NOISE_MAX 1e-10
/* A triangle whose two shorter edges meet at a sine below this is a sliver. Its own cross
 * product gives a normal with relative error ~ DBL_EPSILON / sine; its neighbour's plane is
 * off by ~ sine. The two balance near sqrt(DBL_EPSILON). */
#define EPA_SLIVER_SINE 1e-8
#define EPA_NO_HINT UINT16_MAX

typedef struct epa_settings {
    double rel_tolerance;
    double abs_tolerance; /* metres: the abs_tolerance option times the pair's scale */
    double zero;          /* lengths at or below this are rounding noise, metres */
    double noise_max;     /* EPA_PLANE_NOISE_MAX times the pair's scale, metres */
    int32_t max_iterations;
} epa_settings;

static double epa_max(double a, double b)
{
    return a > b ? a : b;
}

static int next3(int i)
{
    return i == 2 ? 0 : i + 1;
}

static uint16_t hint_of(uint32_t index)
{
    return index < EPA_NO_HINT ? (uint16_t)index : EPA_NO_HINT;
}

static uint32_t index_of(uint16_t hint)
{
    return hint == EPA_NO_HINT ? GJK_CACHE_NO_INDEX : hint;
}

/* ------------------------------------------------------------------ faces */

/* Outward normal of the counter-clockwise triangle (p0, p1, p2) from the cross product of
 * its two shorter edges, whose rounding error is the smallest of the three equal forms
 * cross(e0, e1) = cross(e1, e2) = cross(e2, e0). Returns false for a sliver (the normal is
 * then the best available, or zero for coincident points). Inline, as face_set: out of line
 * (gcc -O3 kept both so) the points went through memory, and the fan of new faces cost 6%
 * more of EPA's instructions. */
static inline bool triangle_normal(gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 p2, gjk_vec3 *n)
{
    gjk_vec3 e0 = gjk_sub(p1, p0), e1 = gjk_sub(p2, p1), e2 = gjk_sub(p0, p2);
    double l0 = gjk_length_sq(e0), l1 = gjk_length_sq(e1), l2 = gjk_length_sq(e2);
    gjk_vec3 c;
    double shorter_sq; /* product of the squared lengths of the two edges crossed */
    if (l0 >= l1 && l0 >= l2) {
        c = gjk_cross(e1, e2);
        shorter_sq = l1 * l2;
    } else if (l1 >= l2) {
        c = gjk_cross(e2, e0);
        shorter_sq = l2 * l0;
    } else {
        c = gjk_cross(e0, e1);
        shorter_sq = l0 * l1;
    }
    double len_sq = gjk_length_sq(c);
    *n = len_sq > 0.0 ? gjk_scale(c, 1.0 / sqrt(len_sq)) : gjk_v3(0.0, 0.0, 0.0);
    return len_sq > EPA_SLIVER_SINE * EPA_SLIVER_SINE * shorter_sq;
}

typedef enum epa_expand_result {
    EPA_EXPANDED,
    EPA_EXPAND_CAPACITY, /* the region, its horizon or the new faces do not fit */
    EPA_EXPAND_BROKEN,   /* the horizon is not one simple loop (rounding) */
    EPA_EXPAND_DUPLICATE /* the new vertex is within rounding of a horizon vertex */
} epa_expand_result;

/* True if `inside` lies above the triangle (x, y, w) beyond the rounding of their
 * determinant: det[y - x, w - x, inside - x] > 8 eps |y - x| |w - x| |inside - x|. */
static bool folds_over(gjk_vec3 x, gjk_vec3 y, gjk_vec3 w, gjk_vec3 inside)
{
    gjk_vec3 e = gjk_sub(y, x), r = gjk_sub(w, x), c = gjk_sub(inside, x);
    double det = gjk_dot(gjk_cross(e, r), c);
    return det > 0.0 && det * det > 64.0 * DBL_EPSILON * DBL_EPSILON * gjk_length_sq(e) *
                                        gjk_length_sq(r) * gjk_length_sq(c);
}

/* ------------------------------------------------------------------ answers */

/* Barycentric coordinates of q (in the plane of the triangle, or near it) in triangle
 * (p0, p1, p2) with unit normal n; returns the smallest. They are ratios of signed areas
 * measured from the vertex opposite the longest edge, so the cross products take short
 * vectors: measured from the origin instead, a far-away triangle loses the weights to
 * cancellation (|p|^2 eps against its area). */
static double triangle_barycentric(const gjk_vec3 pt[3], gjk_vec3 n, gjk_vec3 q, double lambda[3])
{
    double l0 = gjk_length_sq(gjk_sub(pt[1], pt[0]));
    double l1 = gjk_length_sq(gjk_sub(pt[2], pt[1]));
    double l2 = gjk_length_sq(gjk_sub(pt[0], pt[2]));
    int i = l0 >= l1 && l0 >= l2 ? 2 : (l1 >= l2 ? 0 : 1); /* opposite the longest edge */
    int j = next3(i), k = next3(j);
    gjk_vec3 ej = gjk_sub(pt[j], pt[i]), ek = gjk_sub(pt[k], pt[i]), r = gjk_sub(q, pt[i]);
    double area = gjk_dot(n, gjk_cross(ej, ek));
    if (!(area > 0.0)) {
        lambda[0] = lambda[1] = lambda[2] = 1.0 / 3.0;
        return -HUGE_VAL; /* a sliver: no usable area */
    }
    lambda[j] = gjk_dot(n, gjk_cross(r, ek)) / area;
    lambda[k] = gjk_dot(n, gjk_cross(ej, r)) / area;
    lambda[i] = 1.0 - lambda[j] - lambda[k];
    double m = lambda[0] < lambda[1] ? lambda[0] : lambda[1];
    return m < lambda[2] ? m : lambda[2];
}

/* Weights of the point of segment p0 p1 nearest q. */
static void segment_closest(gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 q, double *l0, double *l1)
{
    gjk_vec3 e = gjk_sub(p1, p0);
    double ee = gjk_length_sq(e);
    double t = ee > 0.0 ? gjk_dot(gjk_sub(q, p0), e) / ee : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    *l0 = 1.0 - t;
    *l1 = t;
}

/* Touching answer from GJK's own barycentric weights (the origin = sum lambda_i w_i). */
static void answer_touching(const gjk_vertex *v, const double *lambda, int32_t count,
                            gjk_vec3 normal, gjk_epa_result *r)
{
    double sum = 0.0;
    bool ok = true;
    for (int32_t i = 0; i < count; ++i) {
        ok = ok && isfinite(lambda[i]) && lambda[i] >= 0.0;
        sum += lambda[i];
    }
    ok = ok && sum > 0.0 && isfinite(sum);
    gjk_vec3 pa = gjk_v3(0.0, 0.0, 0.0);
    for (int32_t i = 0; i < count; ++i) {
        double l = ok ? lambda[i] / sum : (i == 0 ? 1.0 : 0.0);
        pa = gjk_madd(pa, l, v[i].a);
    }
    /* The contact point, on core A; on core B to within GJK's tolerance (sum lambda w ~ 0),
     * and exactly pa - pb = depth n = 0. */
    r->status = GJK_STATUS_TOUCHING;
    r->depth = 0.0;
    r->normal = normal;
    r->point_a = pa;
    r->point_b = pa;
}

/* ------------------------------------------------------------------ initial tetrahedron */

typedef struct epa_seed {
    gjk_vertex v[4];
    double upper;  /* least support value h(n) seen: an upper bound on the depth */
    gjk_vec3 upper_dir; /* its direction n */
    int32_t count; /* affinely independent vertices so far */
    gjk_vec3 axis; /* count 2: unit segment direction; count 3: unit triangle normal */
    bool sliver;   /* count 3: the triangle is a sliver (triangle_normal), its axis rough */
    bool touching; /* a support value proved depth ~ 0 (or invalid: stop growing) */
    bool invalid;  /* a support point or simplex vertex was not finite */
    gjk_vec3 touch_normal;
    double touch_h; /* h(touch_normal) <= zero */
} epa_seed;

/* Support along unit direction n; records a touching certificate when h(n) <= zero. */
static gjk_vertex seed_support(const gjk_pair_frame *f, const epa_settings *s, epa_seed *seed,
                               gjk_vec3 n, int32_t *support_calls)
{
    gjk_vertex w;
    gjk_pair_support(f, n, seed->v[0].ia, seed->v[0].ib, &w);
    ++*support_calls;
    double h = gjk_dot(w.w, n);
    if (!isfinite(h) || !gjk_vec3_is_finite(w.a)) {
        seed->invalid = seed->touching = true;
        return w;
    }
    if (h < seed->upper) {
        seed->upper = h;
        seed->upper_dir = n;
    }
    if (!seed->touching && h <= s->zero) {
        seed->touching = true;
        seed->touch_normal = n;
        seed->touch_h = h;
    }
    return w;
}

/* Distance of x from the affine hull of the seed's vertices. */
static double seed_offset(const epa_seed *seed, gjk_vec3 x)
{
    gjk_vec3 r = gjk_sub(x, seed->v[0].w);
    switch (seed->count) {
    case 1:
        return gjk_length(r);
    case 2:
        return gjk_length(gjk_madd(r, -gjk_dot(r, seed->axis), seed->axis));
    default:
        return fabs(gjk_dot(r, seed->axis));
    }
}

/* Adds x if it lies more than `zero` off the affine hull (and is finite), and more than
 * `zero` from every vertex: a vertex again is never off the hull, whatever a rounded axis
 * says (seen: a sliver triangle along a needle, its normal 6e-6 rad off, put its own far
 * vertex 1.2e-12 off its plane, and that vertex became the fourth of a tetrahedron with two
 * faces back to back; test_fuzz_regressions: epa_normal_point_in_needle). */
static bool seed_add(epa_seed *seed, const gjk_vertex *x, double zero)
{
    if (seed->count >= 4 || !gjk_vec3_is_finite(x->w) || !(seed_offset(seed, x->w) > zero)) {
        return false;
    }
    for (int32_t i = 0; i < seed->count; ++i) {
        if (!(gjk_distance_between(x->w, seed->v[i].w) > zero)) {
            return false;
        }
    }
    if (seed->count == 1) {
        seed->axis = gjk_normalize(gjk_sub(x->w, seed->v[0].w));
    } else if (seed->count == 2) {
        gjk_vec3 n;
        seed->sliver = !triangle_normal(seed->v[0].w, seed->v[1].w, x->w, &n);
        if (gjk_length_sq(n) == 0.0) {
            return false;
        }
        seed->axis = n;
    }
    seed->v[seed->count++] = *x;
    return true;
}

/* A unit vector orthogonal to unit u. */
static gjk_vec3 any_orthogonal(gjk_vec3 u)
{
    double ax = fabs(u.x), ay = fabs(u.y), az = fabs(u.z);
    gjk_vec3 e = ax <= ay && ax <= az ? gjk_v3(1.0, 0.0, 0.0)
                 : ay <= az           ? gjk_v3(0.0, 1.0, 0.0)
                                      : gjk_v3(0.0, 0.0, 1.0);
    return gjk_normalize(gjk_cross(u, e));
}

/* Adds the farther of the supports along +dir and -dir, if it is off the affine hull. */
static void seed_grow_along(const gjk_pair_frame *f, const epa_settings *s, epa_seed *seed,
                            gjk_vec3 dir, int32_t *support_calls)
{
    gjk_vertex wp = seed_support(f, s, seed, dir, support_calls);
    gjk_vertex wn = seed_support(f, s, seed, gjk_neg(dir), support_calls);
    if (!seed->touching) {
        bool plus = seed_offset(seed, wp.w) >= seed_offset(seed, wn.w);
        seed_add(seed, plus ? &wp : &wn, s->zero);
    }
}

/* Grows GJK's simplex to a tetrahedron. Returns false when D is flat to rounding or a
 * support value proves the origin is on D's boundary (then touch_normal is set). */
static bool seed_tetrahedron(const gjk_pair_frame *f, const gjk_simplex *simplex,
                             const epa_settings *s, epa_seed *seed, int32_t *support_calls)
{
    seed->count = 0;
    seed->upper = HUGE_VAL;
    seed->upper_dir = gjk_v3(0.0, 0.0, 0.0);
    seed->touch_h = 0.0;
    seed->touching = false;
    seed->invalid = false;
    seed->touch_normal = gjk_v3(1.0, 0.0, 0.0);
    seed->axis = gjk_v3(1.0, 0.0, 0.0);
    seed->sliver = false;
    int32_t n = simplex->count < 0 ? 0 : (simplex->count > 4 ? 4 : simplex->count);
    if (n == 4) {
        /* The usual case: GJK's tetrahedron, kept as it is when clearly not flat (volume
         * against the product of its edges from v0; every face then has a usable area). */
        const gjk_vertex *v = simplex->v;
        gjk_vec3 e1 = gjk_sub(v[1].w, v[0].w), e2 = gjk_sub(v[2].w, v[0].w);
        gjk_vec3 e3 = gjk_sub(v[3].w, v[0].w);
        double det = gjk_dot(gjk_cross(e1, e2), e3);
        double l1 = gjk_length_sq(e1), l2 = gjk_length_sq(e2), l3 = gjk_length_sq(e3);
        double shortest = l1 < l2 ? (l1 < l3 ? l1 : l3) : (l2 < l3 ? l2 : l3);
        if (det * det > 1e-12 * l1 * l2 * l3 && shortest > s->zero * s->zero && isfinite(det)) {
            memcpy(seed->v, v, sizeof seed->v);
            seed->count = 4;
            return true;
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        if (!gjk_vec3_is_finite(simplex->v[i].w) || !gjk_vec3_is_finite(simplex->v[i].a)) {
            seed->invalid = seed->touching = true;
            return false;
        }
        if (seed->count == 0) {
            seed->v[seed->count++] = simplex->v[i];
        } else {
            seed_add(seed, &simplex->v[i], s->zero);
        }
    }
    if (seed->count == 0) {
        gjk_vertex w;
        gjk_pair_support(f, gjk_v3(1.0, 0.0, 0.0), GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &w);
        ++*support_calls;
        if (!gjk_vec3_is_finite(w.w) || !gjk_vec3_is_finite(w.a)) {
            seed->invalid = seed->touching = true;
            return false;
        }
        seed->v[seed->count++] = w;
    }
    /* A point: the farthest support along the axis directions. */
    static const gjk_vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    for (int k = 0; k < 3 && seed->count == 1 && !seed->touching; ++k) {
        seed_grow_along(f, s, seed, axes[k], support_calls);
    }
    /* A segment: the farther support along two directions orthogonal to it. */
    if (seed->count == 2 && !seed->touching) {
        gjk_vec3 p1 = any_orthogonal(seed->axis);
        gjk_vec3 p2 = gjk_cross(seed->axis, p1);
        seed_grow_along(f, s, seed, p1, support_calls);
        if (seed->count == 2 && !seed->touching) {
            seed_grow_along(f, s, seed, p2, support_calls);
        }
    }
    /* A triangle: the support on the origin's side of its plane, so that the tetrahedron
     * holds the origin; the other side if that one is flat. */
    if (seed->count == 3 && !seed->touching) {
        double side = -gjk_dot(seed->axis, seed->v[0].w); /* origin's height over the plane */
        gjk_vec3 first = side >= 0.0 ? seed->axis : gjk_neg(seed->axis);
        gjk_vertex w = seed_support(f, s, seed, first, support_calls);
        if (!seed->touching && !seed_add(seed, &w, s->zero)) {
            w = seed_support(f, s, seed, gjk_neg(first), support_calls);
            if (!seed->touching) {
                seed_add(seed, &w, s->zero);
            }
        }
    }
    if (seed->count == 3 && !seed->touching && seed->sliver) {
        /* A flat sliver: its normal is rough (eps / sine), and D may be a needle rather than
         * a plate. Across the sliver's longest edge, in its plane, D is as narrow as the
         * sliver: the support values there may certify a better normal (seen: a needle
         * 5e-15 across and 1.35e-2 long reached 4e-8 along the sliver's normal and 5e-15
         * across it; test_fuzz_regressions: epa_normal_point_in_needle). */
        const gjk_vec3 *p = &seed->v[0].w, *q = &seed->v[1].w, *r = &seed->v[2].w;
        gjk_vec3 e0 = gjk_sub(*q, *p), e1 = gjk_sub(*r, *q), e2 = gjk_sub(*p, *r);
        double l0 = gjk_length_sq(e0), l1 = gjk_length_sq(e1), l2 = gjk_length_sq(e2);
        gjk_vec3 longest = l0 >= l1 && l0 >= l2 ? e0 : (l1 >= l2 ? e1 : e2);
        gjk_vec3 across = gjk_normalize(gjk_cross(seed->axis, longest));
        if (gjk_length_sq(across) > 0.0) {
            (void)seed_support(f, s, seed, across, support_calls);
            if (!seed->touching) {
                (void)seed_support(f, s, seed, gjk_neg(across), support_calls);
            }
        }
    }
    if (seed->touching) {
        return false;
    }
    if (seed->count < 4) {
        /* D is flat (or a segment, or a point) to rounding: it has no interior, so the
         * origin is on its boundary. A sliver's normal is the direction of the least
         * support value seen (its own two sides among them). */
        seed->touching = true;
        const bool rough = seed->sliver && gjk_length_sq(seed->upper_dir) > 0.0;
        seed->touch_normal = seed->count == 3   ? (rough ? seed->upper_dir : seed->axis)
                             : seed->count == 2 ? any_orthogonal(seed->axis)
                                                : gjk_v3(1.0, 0.0, 0.0);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ EPA */

/* The automatic iteration cap: every iteration adds a vertex of D to P or spends a face, and
 * on polytopes (boxes included) D has finitely many vertices, the pairs of support features
 * that meet along its faces: a small multiple of the shapes' vertex counts in practice (two
 * concentric 2000-vertex random spheres took 768 iterations, two copies of a 2000-point
 * Fibonacci sphere 3349; test_epa_deep, test_epa). Curved cores keep the base. */
#define EPA_AUTO_ITERATIONS 512
static int32_t shape_vertex_count(const gjk_shape *s)
{
    if (s->kind == GJK_SHAPE_POLYTOPE && s->polytope != NULL) {
        return s->polytope->count;
    }
    return s->kind == GJK_SHAPE_BOX ? 8 : 0;
}

static int32_t epa_auto_iterations(const gjk_pair_frame *f)
{
    int64_t n = (int64_t)shape_vertex_count(f->a) + shape_vertex_count(f->b);
    int64_t cap = EPA_AUTO_ITERATIONS + 4 * n;
    return cap < INT32_MAX ? (int32_t)cap : INT32_MAX;
}

static epa_settings epa_settings_from(const gjk_pair_frame *f, const gjk_simplex *simplex,
                                      const gjk_options *o)
{
    /* Zero (or NULL) options take the library defaults, as every query does. */
    const gjk_options def = gjk_default_options();
    epa_settings s;
    s.rel_tolerance = o != NULL && o->rel_tolerance > 0.0 ? o->rel_tolerance : def.rel_tolerance;
    double abs_tol = o != NULL && o->abs_tolerance > 0.0 ? o->abs_tolerance : def.abs_tolerance;
    s.max_iterations =
        o != NULL && o->epa_max_iterations > 0 ? o->epa_max_iterations : def.epa_max_iterations;
    if (s.max_iterations <= 0) {
        s.max_iterations = epa_auto_iterations(f);
    }
    /* The pair's scale; the simplex bounds it from below should it be missing. */
    double scale = isfinite(f->scale) && f->scale > 0.0 ? f->scale : 0.0;
    double reach_sq = 0.0;
    for (int32_t i = 0; i < simplex->count && i < 4; ++i) {
        double l = gjk_length_sq(simplex->v[i].w);
        reach_sq = isfinite(l) ? epa_max(reach_sq, l) : reach_sq;
    }
    if (reach_sq > scale * scale) {
        scale = sqrt(reach_sq);
    }
    s.abs_tolerance = abs_tol * scale;
    s.zero = epa_max(abs_tol, EPA_ZERO_ULPS * DBL_EPSILON) * scale;
    s.noise_max = EPA_PLANE_NOISE_MAX * scale;
    return s;
}

/* ------------------------------------------------------------------ the two variants */

/* Capacities of the grown variant's arrays (faces = 2 vertices - 4). */
typedef struct epa_capacity {
    int32_t vertices, faces, region, horizon;
} epa_capacity;

static epa_capacity epa_capacity_of(int32_t vertices)
{
    epa_capacity c;
    c.vertices = vertices;
    c.faces = 2 * vertices - 4;
    c.region = c.faces;
    c.horizon = vertices;
    return c;
}

#define EPA_ALIGN 64
#define EPA_CAT2(a, b) a##b
#define EPA_CAT(a, b) EPA_CAT2(a, b)
#define EPA_NAME(x) EPA_CAT(x, EPA_SUFFIX)

/* The stack variant. */
#define EPA_GROWN 0
#define EPA_SUFFIX _stack
#define EPA_IDX int16_t
#define EPA_HINT uint16_t
#define EPA_HINT_OF(index) hint_of(index)
#define EPA_INDEX_OF(hint) index_of(hint)
#define EPA_ARRAY(type, name, n) type name[n]
#define EPA_ARRAY3(type, name, n) type name[n][3]
#define EPA_CAP_VERTICES(p) EPA_STACK_VERTICES
#define EPA_CAP_FACES(p) EPA_STACK_FACES
#define EPA_CAP_REGION(p) EPA_STACK_REGION
#define EPA_CAP_HORIZON(p) EPA_STACK_HORIZON
#define EPA_GROW(p) false
#include "epa_run.inc"
#undef EPA_GROWN
#undef EPA_SUFFIX
#undef EPA_IDX
#undef EPA_HINT
#undef EPA_HINT_OF
#undef EPA_INDEX_OF
#undef EPA_ARRAY
#undef EPA_ARRAY3
#undef EPA_CAP_VERTICES
#undef EPA_CAP_FACES
#undef EPA_CAP_REGION
#undef EPA_CAP_HORIZON
#undef EPA_GROW

/* The grown variant. */
#define EPA_GROWN 1
#define EPA_SUFFIX _grown
#define EPA_IDX int32_t
#define EPA_HINT uint32_t
#define EPA_HINT_OF(index) (index)
#define EPA_INDEX_OF(hint) (hint)
#define EPA_ARRAY(type, name, n) type *name
#define EPA_ARRAY3(type, name, n) type (*name)[3]
#define EPA_CAP_VERTICES(p) ((p)->cap.vertices)
#define EPA_CAP_FACES(p) ((p)->cap.faces)
#define EPA_CAP_REGION(p) ((p)->cap.region)
#define EPA_CAP_HORIZON(p) ((p)->cap.horizon)
#define EPA_GROW(p) epa_grow(p)
#include "epa_run.inc"
#undef EPA_GROWN
#undef EPA_SUFFIX
#undef EPA_IDX
#undef EPA_HINT
#undef EPA_HINT_OF
#undef EPA_INDEX_OF
#undef EPA_ARRAY
#undef EPA_ARRAY3
#undef EPA_CAP_VERTICES
#undef EPA_CAP_FACES
#undef EPA_CAP_REGION
#undef EPA_CAP_HORIZON
#undef EPA_GROW

/* Never NaN: a non-finite support point (only possible for shapes that bypassed
 * validation) gives GJK_STATUS_INVALID_INPUT with finite placeholders. */
static gjk_epa_result epa_finite(gjk_epa_result r)
{
    if (!isfinite(r.depth) || !isfinite(r.depth_upper) || !gjk_vec3_is_finite(r.normal) ||
        !gjk_vec3_is_finite(r.point_a) || !gjk_vec3_is_finite(r.point_b)) {
        r.status = GJK_STATUS_INVALID_INPUT;
        r.depth = 0.0;
        r.depth_upper = 0.0;
        r.normal = gjk_v3(1.0, 0.0, 0.0);
        r.upper_normal = gjk_v3(0.0, 0.0, 0.0);
        r.normal_sep = -HUGE_VAL;
        r.point_a = gjk_v3(0.0, 0.0, 0.0);
        r.point_b = r.point_a;
    }
    return r;
}

/* ------------------------------------------------------------------ coaxial bodies of revolution */

/* Cores that are bodies of revolution about one axis (points, segments, cylinders, cones on
 * a common line) make D a body of revolution too, and its depth a ring of equal support
 * values all around the axis, which no inscribed polytope closes: EPA ran to its capacity on
 * coaxial cylinders (a peg in a hole) 1e-4 shallow, and a capsule centred in a 134 m cylinder
 * answered 7e-7 too deep (fuzz/open 043d79 and its family). In any plane through the axis, D
 * cuts the meridian section S_D = S_A + (-S_B) of the cores' sections, so the depth is the
 * 2-D one: the least support value of S_D over the edge normals of S_A and -S_B, exactly. */

/* Section of a core in the (rho, z) plane through its axis (B's in A's frame: its axis along
 * A's z with sign `flip`, its origin at height z0), counter-clockwise; the vertex count, 0 if
 * the core is no body of revolution. */
static int core_section(const gjk_shape *s, double flip, double z0, double out[4][2])
{
    double r = s->radius, h = s->half_height;
    int n = 0;
    switch (s->kind) {
    case GJK_SHAPE_POINT:
    case GJK_SHAPE_SPHERE:
        out[n][0] = 0.0, out[n][1] = 0.0, ++n;
        break;
    case GJK_SHAPE_CAPSULE:
        out[n][0] = 0.0, out[n][1] = -h, ++n;
        out[n][0] = 0.0, out[n][1] = h, ++n;
        break;
    case GJK_SHAPE_CYLINDER:
        out[n][0] = r, out[n][1] = -h, ++n;
        out[n][0] = r, out[n][1] = h, ++n;
        out[n][0] = -r, out[n][1] = h, ++n;
        out[n][0] = -r, out[n][1] = -h, ++n;
        break;
    case GJK_SHAPE_CONE:
        out[n][0] = r, out[n][1] = -h, ++n;
        out[n][0] = 0.0, out[n][1] = h, ++n;
        out[n][0] = -r, out[n][1] = -h, ++n;
        break;
    default:
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        out[i][1] = flip * out[i][1] + z0;
    }
    return n;
}

static double section_support(double v[4][2], int n, double ux, double uz, int *at)
{
    double best = -HUGE_VAL;
    for (int i = 0; i < n; ++i) {
        double h = v[i][0] * ux + v[i][1] * uz;
        if (h > best) {
            best = h;
            *at = i;
        }
    }
    return best;
}

/* The face of section v (n vertices) supporting direction u, as the points of least and
 * largest t-coordinate (t = (-uz, ux)), within `eps` of the support value h. */
static void section_face(double v[4][2], int n, double ux, double uz, double h, double eps,
                         double lo[2], double hi[2])
{
    double tlo = HUGE_VAL, thi = -HUGE_VAL;
    lo[0] = hi[0] = v[0][0];
    lo[1] = hi[1] = v[0][1];
    for (int i = 0; i < n; ++i) {
        if (v[i][0] * ux + v[i][1] * uz >= h - eps) {
            double t = -v[i][0] * uz + v[i][1] * ux;
            if (t < tlo) {
                tlo = t, lo[0] = v[i][0], lo[1] = v[i][1];
            }
            if (t > thi) {
                thi = t, hi[0] = v[i][0], hi[1] = v[i][1];
            }
        }
    }
}

/* The point of segment [lo, hi] (t-coordinates tlo <= thi) at t-coordinate t, clamped. */
static void on_face(const double lo[2], const double hi[2], double tlo, double thi, double t,
                    double out[2])
{
    double l = thi > tlo ? (t - tlo) / (thi - tlo) : 0.0;
    l = l < 0.0 ? 0.0 : (l > 1.0 ? 1.0 : l);
    out[0] = lo[0] + l * (hi[0] - lo[0]);
    out[1] = lo[1] + l * (hi[1] - lo[1]);
}

/* A core that is a body of revolution about its z axis (its section: core_section). */
static bool is_revolved(const gjk_shape *s)
{
    return s->kind == GJK_SHAPE_POINT || s->kind == GJK_SHAPE_SPHERE ||
           s->kind == GJK_SHAPE_CAPSULE || s->kind == GJK_SHAPE_CYLINDER ||
           s->kind == GJK_SHAPE_CONE;
}

/* The exact depth of coaxial bodies of revolution (see above), when the cores are such and
 * overlap by more than s->zero; false otherwise (EPA decides). */
static bool coaxial_depth(const gjk_pair_frame *f, const epa_settings *s, gjk_epa_result *r)
{
    const gjk_shape *a = f->a, *b = f->b;
    /* B's axis and its offset from A's axis, whose error moves D by as much. */
    gjk_vec3 axis = gjk_v3(f->rot_b.m[0][2], f->rot_b.m[1][2], f->rot_b.m[2][2]);
    double tilt = sqrt(axis.x * axis.x + axis.y * axis.y);
    double off = sqrt(f->pos_b.x * f->pos_b.x + f->pos_b.y * f->pos_b.y);
    double reach_b = b->radius + b->half_height;
    if (!(tilt * reach_b + off <= s->zero)) {
        return false;
    }
    double sa[4][2], sb[4][2], nb[4][2];
    int na = core_section(a, 1.0, 0.0, sa);
    int nbn = core_section(b, axis.z < 0.0 ? -1.0 : 1.0, f->pos_b.z, sb);
    if (na == 0 || nbn == 0) {
        return false;
    }
    for (int i = 0; i < nbn; ++i) {
        nb[i][0] = -sb[i][0]; /* -S_B, still counter-clockwise */
        nb[i][1] = -sb[i][1];
    }
    /* The edge normals of both sections (a segment's two sides; a point has none). */
    double best = HUGE_VAL, bx = 0.0, bz = 1.0;
    for (int k = 0; k < 2; ++k) {
        double(*v)[2] = k == 0 ? sa : nb;
        int n = k == 0 ? na : nbn;
        for (int i = 0; i < n && n > 1; ++i) {
            const double *p = v[i], *q = v[(i + 1) % n];
            double ex = q[0] - p[0], ez = q[1] - p[1], len = sqrt(ex * ex + ez * ez);
            if (!(len > 0.0)) {
                continue;
            }
            for (int side = 0; side < (n == 2 ? 2 : 1); ++side) {
                double ux = (side == 0 ? ez : -ez) / len, uz = (side == 0 ? -ex : ex) / len;
                int ia = 0, ib = 0;
                double h = section_support(sa, na, ux, uz, &ia) + section_support(nb, nbn, ux, uz, &ib);
                if (h < best) {
                    best = h, bx = ux, bz = uz;
                }
            }
        }
    }
    if (!(best < HUGE_VAL) || !(best > s->zero)) {
        return false; /* S_D has no area, or the origin is not inside it beyond rounding */
    }
    /* The deepest points: a + c = depth u with a on S_A's face along u, c on -S_B's. */
    int ia = 0, ib = 0;
    double ha = section_support(sa, na, bx, bz, &ia), hb = section_support(nb, nbn, bx, bz, &ib);
    double alo[2] = {0, 0}, ahi[2] = {0, 0}, clo[2] = {0, 0}, chi[2] = {0, 0};
    section_face(sa, na, bx, bz, ha, s->zero, alo, ahi);
    section_face(nb, nbn, bx, bz, hb, s->zero, clo, chi);
    const double tx = -bz, tz = bx;
    double talo = alo[0] * tx + alo[1] * tz, tahi = ahi[0] * tx + ahi[1] * tz;
    double tclo = clo[0] * tx + clo[1] * tz, tchi = chi[0] * tx + chi[1] * tz;
    double tq = 0.0; /* the origin's projection d u has t = 0 */
    double ta = tq - 0.5 * (tclo + tchi);
    ta = ta < talo ? talo : (ta > tahi ? tahi : ta);
    double pa2[2], pc2[2];
    on_face(alo, ahi, talo, tahi, ta, pa2);
    on_face(clo, chi, tclo, tchi, tq - ta, pc2);
    /* Back in 3-D: the radial direction towards B's origin, or any. */
    gjk_vec3 radial = off > 0.0 ? gjk_v3(f->pos_b.x / off, f->pos_b.y / off, 0.0)
                                : gjk_v3(1.0, 0.0, 0.0);
    gjk_vec3 ez = gjk_v3(0.0, 0.0, 1.0);
    r->status = GJK_STATUS_OVERLAPPING;
    r->depth = best;
    r->depth_upper = best;
    r->normal = gjk_add(gjk_scale(radial, bx), gjk_scale(ez, bz));
    r->upper_normal = r->normal;
    r->normal_sep = -best;
    r->point_a = gjk_add(gjk_scale(radial, pa2[0]), gjk_scale(ez, pa2[1]));
    r->point_b = gjk_madd(r->point_a, -best, r->normal); /* pa - pb = depth n */
    (void)pc2;
    r->iterations = 0;
    r->support_calls = 0;
    return true;
}

gjk_epa_result gjk_epa_in(const gjk_pair_frame *f, const gjk_simplex *simplex,
                          const gjk_options *options, gjk_workspace *workspace)
{
    gjk_epa_result r;
    if (is_revolved(f->a) && is_revolved(f->b)) {
        memset(&r, 0, sizeof r);
        const epa_settings s = epa_settings_from(f, simplex, options);
        if (coaxial_depth(f, &s, &r)) {
            return epa_finite(r);
        }
    }
    r = epa_finite(epa_run_stack(f, simplex, options, NULL));
    if (r.status != GJK_STATUS_CAPACITY_LIMIT) {
        return r;
    }
    /* Past the stack storage: again in a workspace block, which grows as it must. */
    gjk_workspace own = {NULL, 0, 0};
    gjk_workspace *ws = workspace != NULL ? workspace : &own;
    gjk_epa_result g = epa_finite(epa_run_grown(f, simplex, options, ws));
    if (own.block != NULL) {
        gjk_workspace_release(&own);
    }
    if (g.status == GJK_STATUS_CAPACITY_LIMIT && g.iterations <= r.iterations) {
        return r; /* no memory for more: the stack's estimate stands */
    }
    g.support_calls += r.support_calls;
    return g;
}

gjk_epa_result gjk_epa(const gjk_pair_frame *f, const gjk_simplex *simplex,
                       const gjk_options *options)
{
    return gjk_epa_in(f, simplex, options, NULL);
}

void gjk_workspace_release(gjk_workspace *workspace)
{
    if (workspace != NULL) {
        free(workspace->block);
        workspace->block = NULL;
        workspace->bytes = 0;
    }
}
