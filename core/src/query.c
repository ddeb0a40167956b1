/* query.c — the public pair queries: validation, the pair-local frame, GJK, EPA on
 * overlap, inflation and the world-frame result.
 *
 * GJK and EPA run on the cores (internal.h) in A's local frame. The inflation radius
 * r = rA + rB (margins plus sphere/capsule radii) is added back exactly:
 *   cores separated by d along unit n (A towards B):
 *       signed distance = d - r, witnesses pa + rA n and pb - rB n
 *       (also exact when d < r: the rounded shapes then overlap by r - d, no EPA needed)
 *   cores overlapping by depth p (EPA):
 *       signed distance = -(p + r), witnesses pa + rA n and pb - rB n
 * so point_b - point_a = distance * normal holds in both cases. */
#include "internal.h"

gjk_options gjk_default_options(void)
{
    gjk_options o;
    o.rel_tolerance = 1e-12;
    o.abs_tolerance = 1e-16;
    o.touch_tolerance = 1e-9;
    o.max_iterations = 128;
    o.epa_max_iterations = 512;
    o.hill_climb_min_vertices = 48;
    return o;
}

/* Zero (or nonsensical: negative, NaN) fields take their defaults. */
static gjk_options resolve_options(const gjk_options *given)
{
    gjk_options d = gjk_default_options();
    if (given == NULL) {
        return d;
    }
    gjk_options o = *given;
    if (!(o.rel_tolerance > 0.0)) {
        o.rel_tolerance = d.rel_tolerance;
    }
    if (!(o.abs_tolerance > 0.0)) {
        o.abs_tolerance = d.abs_tolerance;
    }
    if (!(o.touch_tolerance > 0.0)) {
        o.touch_tolerance = d.touch_tolerance;
    }
    if (o.max_iterations <= 0) {
        o.max_iterations = d.max_iterations;
    }
    if (o.epa_max_iterations <= 0) {
        o.epa_max_iterations = d.epa_max_iterations;
    }
    if (o.hill_climb_min_vertices <= 0) {
        o.hill_climb_min_vertices = d.hill_climb_min_vertices;
    }
    return o;
}

static gjk_result invalid_result(void)
{
    gjk_result r;
    r.status = GJK_STATUS_INVALID_INPUT;
    r.distance = NAN;
    r.point_a = gjk_v3(NAN, NAN, NAN);
    r.point_b = gjk_v3(NAN, NAN, NAN);
    r.normal = gjk_v3(0.0, 0.0, 0.0);
    r.lower_bound = NAN;
    r.upper_bound = NAN;
    r.iterations = 0;
    r.epa_iterations = 0;
    r.support_calls = 0;
    return r;
}

/* Per-query validation, O(1) for every kind. Polytope vertex lists and adjacency are
 * checked in full where they are built (gjk_polytope_create, gjk_hull_build) and by
 * gjk_shape_validate; a query checks the polytope's header only, because scanning 2000
 * vertices costs more than the whole distance query. A non-finite vertex that a query
 * reaches makes the answer non-finite, which is reported as GJK_STATUS_INVALID_INPUT;
 * out-of-range neighbour indices are skipped by hill climbing. */
static bool shape_is_valid(const gjk_shape *s)
{
    if (s == NULL) {
        return false;
    }
    if (s->kind != GJK_SHAPE_POLYTOPE) {
        return gjk_shape_validate(s) == GJK_STATUS_SEPARATED;
    }
    const gjk_polytope *p = s->polytope;
    return isfinite(s->margin) && s->margin >= 0.0 && p != NULL && p->x != NULL && p->y != NULL &&
           p->z != NULL && p->count >= 1 && p->padded_count >= p->count && isfinite(p->radius) &&
           p->radius >= 0.0;
}

static bool use_hill_climbing(const gjk_shape *s, const gjk_options *o)
{
    return s->kind == GJK_SHAPE_POLYTOPE && s->polytope->adj_start != NULL &&
           s->polytope->adj != NULL && s->polytope->count >= o->hill_climb_min_vertices;
}

/* The pose with its quaternion normalised; false for NaN/Inf or |q| farther than
 * GJK_QUAT_NORM_TOLERANCE from 1 (the test on |q|^2 against the squared bounds needs no
 * square root; NaN fails it). */
static bool unit_pose(gjk_transform t, gjk_transform *out)
{
    const double lo = (1.0 - GJK_QUAT_NORM_TOLERANCE) * (1.0 - GJK_QUAT_NORM_TOLERANCE);
    const double hi = (1.0 + GJK_QUAT_NORM_TOLERANCE) * (1.0 + GJK_QUAT_NORM_TOLERANCE);
    gjk_quat q = t.q;
    double n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
    if (!(n2 >= lo && n2 <= hi) || !gjk_vec3_is_finite(t.p)) {
        return false;
    }
    if (n2 != 1.0) {
        double s = 1.0 / sqrt(n2);
        q = gjk_quat_make(q.w * s, q.x * s, q.y * s, q.z * s);
    }
    *out = gjk_transform_make(q, t.p);
    return true;
}

/* A cheap upper bound on the bounding radius of a shape (within a factor sqrt 3), for the
 * absolute tolerance's length scale: no square roots, no calls. */
static double size_bound(const gjk_shape *s)
{
    switch (s->kind) {
    case GJK_SHAPE_SPHERE:
        return s->radius + s->margin;
    case GJK_SHAPE_CAPSULE:
    case GJK_SHAPE_CYLINDER:
    case GJK_SHAPE_CONE:
        return s->radius + s->half_height + s->margin;
    case GJK_SHAPE_BOX:
        return s->half_extents.x + s->half_extents.y + s->half_extents.z + s->margin;
    case GJK_SHAPE_POLYTOPE:
        return s->polytope->radius + s->margin;
    default:
        return s->margin;
    }
}

static bool result_is_finite(const gjk_result *r)
{
    return isfinite(r->distance) && gjk_vec3_is_finite(r->point_a) &&
           gjk_vec3_is_finite(r->point_b) && gjk_vec3_is_finite(r->normal) &&
           isfinite(r->lower_bound) && isfinite(r->upper_bound);
}

gjk_result gjk_query_run(const gjk_query *query, gjk_cache *cache, const gjk_options *options)
{
    gjk_transform pose_a, pose_b;
    if (query == NULL || !shape_is_valid(query->shape_a) || !shape_is_valid(query->shape_b) ||
        !unit_pose(query->pose_a, &pose_a) || !unit_pose(query->pose_b, &pose_b) ||
        isnan(query->cutoff)) {
        return invalid_result();
    }
    const gjk_options opt = resolve_options(options);
    /* Pair frame: B in A's local frame. rot_a also takes the answer back to the world. */
    gjk_mat3 rot_a = gjk_mat3_from_quat(pose_a.q);
    gjk_pair_frame f;
    f.a = query->shape_a;
    f.b = query->shape_b;
    f.rot_b = gjk_mat3_from_quat(gjk_quat_mul(gjk_quat_conj(pose_a.q), pose_b.q));
    f.pos_b = gjk_mat3_tmul_vec(&rot_a, gjk_sub(pose_b.p, pose_a.p));
    double inflate_a = gjk_core_inflate(f.a), inflate_b = gjk_core_inflate(f.b);
    f.inflate = inflate_a + inflate_b;
    f.scale =
        size_bound(f.a) + size_bound(f.b) + fabs(f.pos_b.x) + fabs(f.pos_b.y) + fabs(f.pos_b.z);
    f.hill_a = use_hill_climbing(f.a, &opt);
    f.hill_b = use_hill_climbing(f.b, &opt);

    gjk_gjk_input in;
    in.options = &opt;
    in.cutoff = query->cutoff + f.inflate; /* INFINITY stays INFINITY */
    /* Boolean answers agree with the signed distance's status: within the touch tolerance
     * is touching, and touching counts as intersecting. */
    in.threshold = f.inflate + opt.touch_tolerance;
    in.boolean_only = query->boolean_only;
    gjk_cache saved;
    if (cache != NULL) {
        saved = *cache;
    }
    gjk_gjk_result g;
    gjk_gjk(&f, &in, cache, &g);

    gjk_result r;
    r.status = g.status;
    r.iterations = g.iterations;
    r.epa_iterations = 0;
    r.support_calls = g.support_calls;
    r.lower_bound = g.lower - f.inflate;
    r.upper_bound = g.upper - f.inflate;

    /* Pair-local answer: signed distance, unit normal A -> B, witnesses on the cores. */
    double sd;
    gjk_vec3 n = gjk_v3(0.0, 0.0, 0.0);
    gjk_vec3 pa = g.point_a, pb = g.point_b;
    bool known = true; /* signed distance known (false: cores overlap and EPA did not run) */
    if (g.status == GJK_STATUS_OVERLAPPING) {
        if (query->penetration && !query->boolean_only) {
            gjk_epa_result e = gjk_epa(&f, &g.simplex, &opt);
            r.epa_iterations = e.iterations;
            r.support_calls += e.support_calls;
            n = e.normal;
            pa = e.point_a;
            pb = e.point_b;
            sd = -(e.depth + f.inflate);
            r.status = e.status == GJK_STATUS_TOUCHING ? GJK_STATUS_OVERLAPPING : e.status;
            if (!(gjk_length_sq(n) > 0.0) && f.inflate > 0.0) {
                n = gjk_v3(1.0, 0.0, 0.0); /* cores touch at a point: any direction */
            }
        } else {
            sd = 0.0;
            known = false;
        }
        r.lower_bound = sd;
        r.upper_bound = sd;
    } else {
        /* Normal and distance from GJK's v, whose direction stays accurate near contact
         * (the witnesses' difference would carry their rounding / d). */
        double d = gjk_length(g.v);
        if (d > 0.0) {
            n = gjk_scale(g.v, -1.0 / d);
        }
        sd = (g.status == GJK_STATUS_BEYOND_CUTOFF ? g.lower : d) - f.inflate;
        if (g.status == GJK_STATUS_SEPARATED && sd < 0.0) {
            r.status = GJK_STATUS_OVERLAPPING; /* rounded shapes overlap, cores do not */
        }
    }
    pa = gjk_madd(pa, inflate_a, n);
    pb = gjk_madd(pb, -inflate_b, n);
    if (known && (r.status == GJK_STATUS_SEPARATED || r.status == GJK_STATUS_OVERLAPPING) &&
        fabs(sd) <= opt.touch_tolerance) {
        r.status = GJK_STATUS_TOUCHING;
    }
    if (!query->penetration && sd < 0.0) {
        sd = 0.0; /* plain distance: overlap reads as distance 0 */
    }
    r.distance = sd;

    /* World frame. */
    r.point_a = gjk_add(gjk_mat3_mul_vec(&rot_a, pa), pose_a.p);
    r.point_b = gjk_add(gjk_mat3_mul_vec(&rot_a, pb), pose_a.p);
    r.normal = gjk_mat3_mul_vec(&rot_a, n);

    if (!result_is_finite(&r)) {
        /* Non-finite geometry slipped past validation (e.g. overflow): report it as bad
         * input rather than return NaN as an answer. */
        if (cache != NULL) {
            *cache = saved;
        }
        return invalid_result();
    }
    return r;
}

/* The wrappers fill the query in place. */
#define GJK_QUERY_INIT(a, pose_a, b, pose_b, cutoff, penetration, boolean_only)                    \
    {                                                                                              \
        (a), (pose_a), (b), (pose_b), (cutoff), (penetration), (boolean_only)                      \
    }

gjk_result gjk_distance(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                        gjk_transform pose_b, gjk_cache *cache, const gjk_options *options)
{
    const gjk_query q = GJK_QUERY_INIT(a, pose_a, b, pose_b, INFINITY, false, false);
    return gjk_query_run(&q, cache, options);
}

gjk_result gjk_signed_distance(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                               gjk_transform pose_b, gjk_cache *cache, const gjk_options *options)
{
    const gjk_query q = GJK_QUERY_INIT(a, pose_a, b, pose_b, INFINITY, true, false);
    return gjk_query_run(&q, cache, options);
}

gjk_result gjk_distance_cutoff(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                               gjk_transform pose_b, double cutoff, gjk_cache *cache,
                               const gjk_options *options)
{
    const gjk_query q = GJK_QUERY_INIT(a, pose_a, b, pose_b, cutoff, true, false);
    return gjk_query_run(&q, cache, options);
}

gjk_status gjk_intersect(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                         gjk_transform pose_b, gjk_cache *cache, const gjk_options *options)
{
    const gjk_query q = GJK_QUERY_INIT(a, pose_a, b, pose_b, INFINITY, false, true);
    gjk_result r = gjk_query_run(&q, cache, options);
    switch (r.status) {
    case GJK_STATUS_OVERLAPPING:
    case GJK_STATUS_TOUCHING:
        return GJK_STATUS_OVERLAPPING;
    case GJK_STATUS_INVALID_INPUT:
    case GJK_STATUS_ITERATION_LIMIT:
        return r.status;
    default:
        return GJK_STATUS_SEPARATED;
    }
}
