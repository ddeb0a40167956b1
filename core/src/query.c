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

#include <float.h>

/* The defaults, read-only: resolving them costs a copy, not a call per field. */
static const gjk_options default_options = {
    .rel_tolerance = 1e-12,
    .abs_tolerance = 1e-16,
    .touch_tolerance = 1e-9,
    .max_iterations = 128,
    .epa_max_iterations = 0, /* automatic (epa.c) */
    .hill_climb_min_vertices = 4,
    .touch_relative = 1e-9,
};

gjk_options gjk_default_options(void)
{
    return default_options;
}

/* Zero (or nonsensical: negative, NaN) fields take their defaults. */
static gjk_options resolve_options(const gjk_options *given)
{
    const gjk_options *d = &default_options;
    if (given == NULL) {
        return *d;
    }
    gjk_options o = *given;
    o.rel_tolerance = o.rel_tolerance > 0.0 ? o.rel_tolerance : d->rel_tolerance;
    o.abs_tolerance = o.abs_tolerance > 0.0 ? o.abs_tolerance : d->abs_tolerance;
    o.touch_tolerance = o.touch_tolerance > 0.0 ? o.touch_tolerance : d->touch_tolerance;
    o.max_iterations = o.max_iterations > 0 ? o.max_iterations : d->max_iterations;
    o.epa_max_iterations = o.epa_max_iterations > 0 ? o.epa_max_iterations : 0;
    o.hill_climb_min_vertices =
        o.hill_climb_min_vertices > 0 ? o.hill_climb_min_vertices : d->hill_climb_min_vertices;
    o.touch_relative = o.touch_relative > 0.0 ? o.touch_relative : d->touch_relative;
    return o;
}

static gjk_result invalid_result(void)
{
    gjk_result r;
    r.status = GJK_STATUS_INVALID_INPUT;
    r.distance = (double)NAN;
    r.point_a = gjk_v3((double)NAN, (double)NAN, (double)NAN);
    r.point_b = gjk_v3((double)NAN, (double)NAN, (double)NAN);
    r.normal = gjk_v3(0.0, 0.0, 0.0);
    r.lower_bound = (double)NAN;
    r.upper_bound = (double)NAN;
    r.iterations = 0;
    r.epa_iterations = 0;
    r.support_calls = 0;
    return r;
}

/* Per-query validation. Every kind but the polytope is checked in full (O(1)). A polytope
 * that owns its storage was checked in full when it was built (gjk_polytope_create,
 * gjk_hull_build validate every vertex and every adjacency index) and is immutable through
 * the const pointers a shape holds, so a query checks its header only: re-scanning 2000
 * vertices and 12000 neighbour indices would cost more than the distance query itself. A
 * hand-filled polytope (storage NULL) has been checked by nobody, so every query runs
 * gjk_shape_validate on it. As a second line of defence, a non-finite vertex that a query
 * reaches makes the answer non-finite (INVALID_INPUT), and hill climbing skips neighbour
 * indices out of range. */
static inline bool shape_is_valid(const gjk_shape *s)
{
    if (s == NULL) {
        return false;
    }
    const gjk_polytope *p = s->polytope;
    if (s->kind != GJK_SHAPE_POLYTOPE || p == NULL || p->storage == NULL) {
        return gjk_shape_validate(s) == GJK_STATUS_SEPARATED;
    }
    /* 0 <= x <= GJK_MAX_LENGTH: in range in two comparisons (NaN fails both). */
    return s->margin >= 0.0 && s->margin <= GJK_MAX_LENGTH && p->radius >= 0.0 &&
           p->radius <= GJK_MAX_LENGTH &&
           p->x != NULL && p->y != NULL && p->z != NULL && p->count >= 1 &&
           p->padded_count >= p->count;
}

static bool use_hill_climbing(const gjk_shape *s, const gjk_options *o)
{
    return s->kind == GJK_SHAPE_POLYTOPE && s->polytope->adj_start != NULL &&
           s->polytope->adj != NULL && s->polytope->count >= o->hill_climb_min_vertices;
}

/* The quaternion normalised; false for NaN/Inf or |q| farther than GJK_QUAT_NORM_TOLERANCE
 * from 1 (the test on |q|^2 against the squared bounds needs no square root; NaN fails it).
 * A quaternion already of norm 1 to the last bit is kept as it is. */
static inline bool unit_quat(gjk_quat q, gjk_quat *out)
{
    const double lo = (1.0 - GJK_QUAT_NORM_TOLERANCE) * (1.0 - GJK_QUAT_NORM_TOLERANCE);
    const double hi = (1.0 + GJK_QUAT_NORM_TOLERANCE) * (1.0 + GJK_QUAT_NORM_TOLERANCE);
    double n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
    if (!(n2 >= lo && n2 <= hi)) {
        return false;
    }
    if (n2 != 1.0) {
        double s = 1.0 / sqrt(n2);
        q = gjk_quat_make(q.w * s, q.x * s, q.y * s, q.z * s);
    }
    *out = q;
    return true;
}

/* Every coordinate of both translations within GJK_MAX_LENGTH, branch free (a comparison
 * with NaN is false, so NaN and Inf fail). */
static inline bool translations_in_range(gjk_vec3 a, gjk_vec3 b)
{
    const double m = GJK_MAX_LENGTH;
    return (fabs(a.x) <= m) & (fabs(a.y) <= m) & (fabs(a.z) <= m) & (fabs(b.x) <= m) &
           (fabs(b.y) <= m) & (fabs(b.z) <= m);
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
    case GJK_SHAPE_ELLIPSOID: /* within a factor 3 */
        return s->radii.x + s->radii.y + s->radii.z + s->margin;
    case GJK_SHAPE_POLYTOPE:
        return s->polytope->radius + s->margin;
    default:
        return s->margin;
    }
}

/* One test in the common case: a sum of finite doubles is finite unless it overflows, and a
 * NaN or infinity anywhere makes it non-finite; only then is each field tested. */
static bool result_is_finite(const gjk_result *r)
{
    double sum = r->distance + r->point_a.x + r->point_a.y + r->point_a.z + r->point_b.x +
                 r->point_b.y + r->point_b.z + r->normal.x + r->normal.y + r->normal.z +
                 r->lower_bound + r->upper_bound;
    if (isfinite(sum)) {
        return true;
    }
    return isfinite(r->distance) && gjk_vec3_is_finite(r->point_a) &&
           gjk_vec3_is_finite(r->point_b) && gjk_vec3_is_finite(r->normal) &&
           isfinite(r->lower_bound) && isfinite(r->upper_bound);
}

/* GJK stopped with |v| at rounding level but the origin not enclosed by its simplex. That
 * happens at a true contact, and also when the origin lies on a face or edge of the simplex
 * deep inside D (a box pressed 5 cm into a wall, by symmetry). Returns the cores' depth: 0 for
 * contact (the cores are then |v| apart at most), else the depth EPA finds. For |v| > 0 one
 * support point may settle it: the depth is at most reach = h_D(-v/|v|) = -v.w/|v|,
 * w = s_D(-v), so reach within |v| (plus rounding) is contact. A larger reach proves nothing
 * (v's direction is rounding noise, and D may extend far along it from a contact point), so
 * EPA decides, as it does for v = 0; it reports TOUCHING when the origin is on the boundary of
 * D. The plain distance and the signed distance thus reach the same verdict at contact.
 * On contact *normal receives the direction A -> B (and *normal_sep the separation it
 * certifies, when the support point along it was taken).
 * (Regressions: test_world's first-collision case came back TOUCHING for a 5 cm overlap;
 * test_fuzz_regressions: distance_of_shallow_overlap, a 1.5e-10 overlap read as contact;
 * plain_distance_at_contact_between_scales, a 1.1e-12 gap between a 1e-3 and a 1e3 shape
 * read as an overlap by gjk_distance while gjk_signed_distance said TOUCHING.) */
static double contact_depth(const gjk_pair_frame *f, const gjk_gjk_result *g,
                            const gjk_options *opt, double touch, gjk_workspace *workspace,
                            int32_t *support_calls, gjk_vec3 *normal, double *normal_sep)
{
    double noise = (16.0 * DBL_EPSILON + opt->abs_tolerance) * f->scale;
    if (g->simplex.count == 4) {
        /* The origin is inside GJK's tetrahedron, which lies in D, so the depth is at least
         * the origin's distance to its nearest face. Beyond the touching band (with the
         * rounding of the vertices) that certifies the overlap without EPA: return -1, the
         * depth itself unknown. Closer than that, the enclosure itself may be rounding (a
         * 1.1e-12 gap between a 1e-3 and a 1e3 shape), and EPA decides. */
        static const int32_t face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
        double inner = HUGE_VAL;
        for (int32_t k = 0; k < 4; ++k) {
            gjk_vec3 w0 = g->simplex.v[face[k][0]].w;
            gjk_vec3 nf = gjk_cross(gjk_sub(g->simplex.v[face[k][1]].w, w0),
                                    gjk_sub(g->simplex.v[face[k][2]].w, w0));
            double len = gjk_length(nf);
            double dist = len > 0.0 ? fabs(gjk_dot(nf, w0)) / len : 0.0;
            inner = dist < inner ? dist : inner;
        }
        if (inner - noise + f->inflate > touch) {
            return -1.0;
        }
    } else if (g->upper > 0.0) {
        gjk_vertex x;
        gjk_pair_support(f, gjk_neg(g->v), GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &x);
        ++*support_calls;
        *normal = gjk_normalize(gjk_neg(g->v));
        double reach = -gjk_dot(g->v, x.w) / g->upper; /* depth <= reach */
        if (reach <= g->upper + noise) {
            *normal_sep = -reach; /* sep(n) = -h_D(n) */
            return 0.0;
        }
    }
    gjk_epa_result e = gjk_epa_in(f, &g->simplex, opt, workspace);
    *support_calls += e.support_calls;
    if (g->upper == 0.0) {
        *normal = e.normal;
    }
    return e.status == GJK_STATUS_TOUCHING || !(e.depth > 0.0) ? 0.0 : e.depth;
}

/* Separation of the cores along the unit direction n (A -> B): sep(n) = -h_D(n), the gap
 * that n certifies (negative: the overlap along n). One support call. */
static double core_separation(const gjk_pair_frame *f, gjk_vec3 n, int32_t *support_calls)
{
    gjk_vertex x;
    gjk_pair_support(f, n, GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &x);
    ++*support_calls;
    return -gjk_dot(x.w, n);
}

/* A candidate normal and the separation it certifies (-HUGE_VAL: not known yet). */
typedef struct normal_candidate {
    gjk_vec3 n;
    double sep;
} normal_candidate;

/* The answer in A's frame: what the post-processing below works on before the margins are
 * added and the world transform applied. */
typedef struct core_answer {
    double sd;                /* signed distance of the rounded shapes */
    gjk_vec3 n;               /* unit normal A -> B; zero while unknown */
    gjk_vec3 pa, pb;          /* witnesses on the cores */
    bool known;               /* sd known (false: cores overlap and EPA did not run) */
    double n_sep;             /* separation of the cores certified along n, if known */
    normal_candidate epa_alt; /* EPA's least support value's direction and the separation it
                                 certifies, if EPA ran */
} core_answer;

/* The normal at contact. Within a millionth of the pair's size of contact, the direction of
 * GJK's final v may be that of rounding, |v| being comparable to the rounding of the support
 * points: at the apex of a flat cone pressed on a face, v came out 1e-5 rad off a 184 m
 * disk's axis and the separation along it was 1.9 mm short of the contact's; on a disk's rim
 * v tilted 4.6e-3 rad sideways, 0.31 m short (test_fuzz_regressions: normal_at_flat_cone_apex,
 * normal_at_disk_rim; in both GJK's last step made no progress and kept a v whose support
 * point had already shown it short). A normal n of the contact certifies sep(n) = sd, and GJK
 * knows two certified separations without another support call: along its final v
 * (gjk_gjk_result.v_sep, when its last support point was taken along it) and along the v that
 * gave its best lower bound. The better is kept; a separation not known is measured (one
 * support call) when the other direction might beat it. EPA's converged normals come
 * certified by its stopping rule. */
static GJK_NOINLINE gjk_vec3 contact_normal(const gjk_pair_frame *f, const gjk_options *opt,
                                            const gjk_gjk_result *g, const core_answer *c,
                                            int32_t *support_calls)
{
    normal_candidate cur = {c->n, c->n_sep}, alt = c->epa_alt;
    double lv = gjk_length(g->lower_v);
    if (lv > 0.0 && g->lower > alt.sep) {
        alt.n = gjk_scale(g->lower_v, -1.0 / lv);
        alt.sep = g->lower;
    }
    const double sd_core = c->sd + f->inflate;
    const double slack = (opt->rel_tolerance + 16.0 * DBL_EPSILON) * f->scale;
    if (cur.sep >= sd_core - slack || !(alt.sep > cur.sep)) {
        return cur.n;
    }
    if (cur.sep == -HUGE_VAL) {
        cur.sep = core_separation(f, cur.n, support_calls);
    }
    return alt.sep > cur.sep ? alt.n : cur.n;
}

/* GJK's witnesses carry the rounding of the simplex's weights, v does not: the difference is
 * shared between them so that pa - pb = v, each in proportion to the extent of its support
 * points, which the weights' rounding is multiplied by (see the separated branch below). */
static void witnesses_along_v(const gjk_gjk_result *g, gjk_vec3 *pa, gjk_vec3 *pb)
{
    gjk_vec3 e = gjk_sub(gjk_sub(*pa, *pb), g->v);
    double share_a = gjk_witness_share(g->span_a, g->span_b);
    *pa = gjk_madd(*pa, -share_a, e);
    *pb = gjk_madd(*pb, 1.0 - share_a, e);
}

/* The normal of a converged separation: v's direction, or the direction of GJK's best lower
 * bound when v's own certifies less. |v| converges to the distance d to a relative tolerance
 * rel, so v's direction only to about sqrt(2 rel) (1.4e-6 rad), and a shape wide next to d
 * then reaches past the plane of that normal by its width times the tilt (a 3.1e-5 m disk
 * 2.6e-9 from a speck: the separation along v 4.2e-11 short of d; fuzz/fixed ae5d4e,
 * test_fuzz_regressions: normal_of_wide_disk_near_speck). The lower bound's direction
 * certifies its separation, but the witnesses stay |v| apart along v: the turn costs
 * pb - pa = d n up to d times the angle. It is taken when that costs less than v's direction
 * costs the separation, and no more than GJK_TURN_BUDGET of the pair's size (38 m apart, the
 * turn would have cost 2.5e-6 against a shortfall that was within the budget already). */
#define GJK_TURN_BUDGET 1e-9
static gjk_vec3 certified_normal(const gjk_gjk_result *g, double d, double scale, gjk_vec3 n,
                                 double *n_sep)
{
    /* Usually v's own support point gave the best lower bound: nothing to compare. */
    if (g->status != GJK_STATUS_SEPARATED || *n_sep == -HUGE_VAL || !(g->lower > *n_sep)) {
        return n;
    }
    double lv = gjk_length(g->lower_v);
    if (!(lv > 0.0)) {
        return n;
    }
    gjk_vec3 nl = gjk_scale(g->lower_v, -1.0 / lv);
    double cost = d * gjk_distance_between(n, nl);
    if (cost < g->lower - *n_sep && cost <= GJK_TURN_BUDGET * scale) {
        *n_sep = g->lower;
        return nl;
    }
    return n;
}

/* The touching band of a pair: at most touch_tolerance metres, and at most touch_relative of
 * the pair's size (the scale of the pair frame: the shapes' extents and the distance between
 * their origins). An absolute band alone made two 1 um shapes 1.6e-12 m apart TOUCHING, an
 * error of 5e-7 of their size (test_gjk_basic: verdict_relative_to_scale). */
static inline double touch_band(const gjk_options *o, const gjk_pair_frame *f)
{
    double relative = o->touch_relative * f->scale;
    return relative < o->touch_tolerance ? relative : o->touch_tolerance;
}

/* The pair frame (internal.h); in line in gjk_query_run. */
static inline gjk_mat3 pair_frame_init(gjk_pair_frame *f, const gjk_shape *a, gjk_transform pose_a,
                                       const gjk_shape *b, gjk_transform pose_b,
                                       const gjk_options *opt)
{
    gjk_mat3 rot_a = gjk_mat3_from_quat(pose_a.q);
    f->a = a;
    f->b = b;
    f->rot_b = gjk_mat3_from_quat(gjk_quat_mul(gjk_quat_conj(pose_a.q), pose_b.q));
    f->pos_b = gjk_mat3_tmul_vec(&rot_a, gjk_sub(pose_b.p, pose_a.p));
    f->inflate = gjk_core_inflate(a) + gjk_core_inflate(b);
    f->scale =
        size_bound(a) + size_bound(b) + fabs(f->pos_b.x) + fabs(f->pos_b.y) + fabs(f->pos_b.z);
    f->hill_a = use_hill_climbing(a, opt);
    f->hill_b = use_hill_climbing(b, opt);
    static const gjk_polytope_edges no_edges = {NULL, NULL, NULL};
    f->edges_a = f->hill_a ? gjk_polytope_edges_of(a->polytope) : no_edges;
    f->edges_b = f->hill_b ? gjk_polytope_edges_of(b->polytope) : no_edges;
    f->climb_both = f->edges_a.x != NULL && f->edges_b.x != NULL;
    return rot_a;
}

gjk_mat3 gjk_pair_frame_init(gjk_pair_frame *f, const gjk_shape *a, gjk_transform pose_a,
                             const gjk_shape *b, gjk_transform pose_b, const gjk_options *options)
{
    const gjk_options opt = resolve_options(options);
    return pair_frame_init(f, a, pose_a, b, pose_b, &opt);
}

/* GJK found the cores overlapping (or stalled at contact): EPA for the signed distance,
 * contact_depth for the plain distance, nothing for a boolean query. Out of line: the
 * separated answer, the common one, compiles leaner without it. False when EPA met a
 * non-finite support point. */
static GJK_NOINLINE bool overlap_answer(const gjk_query *q, const gjk_pair_frame *f,
                                        const gjk_options *opt, double touch,
                                        const gjk_gjk_result *g, gjk_result *r, core_answer *c)
{
    double lower = HUGE_VAL; /* a certified lower bound on the signed distance, if below sd */
    double depth; /* cores' depth at a contact to rounding (contact_depth) */
    r->status = GJK_STATUS_OVERLAPPING;
    if (q->penetration && !q->boolean_only) {
        gjk_epa_result e = gjk_epa_in(f, &g->simplex, opt, q->workspace);
        if (e.status == GJK_STATUS_INVALID_INPUT) {
            return false; /* a non-finite support point (a NaN vertex the scan did not flag) */
        }
        r->epa_iterations = e.iterations;
        r->support_calls += e.support_calls;
        c->n = e.normal;
        const bool epa_contact = e.status == GJK_STATUS_TOUCHING ||
                                 (e.status == GJK_STATUS_OVERLAPPING && e.depth == 0.0);
        if (epa_contact && g->simplex.count < 4) {
            /* GJK stopped at contact to rounding without enclosing the origin: its
             * |v| is a real distance of the cores (and keeps the verdict of a 1e-12
             * gap between 1e3-size shapes), but v's direction is rounding noise, and
             * so may be EPA's when D is flat to rounding. Keep the normal along which
             * the cores separate best: sep(n) = -h_D(n), one support each. GJK's
             * witnesses stay: its weights put the origin within |v| of its simplex,
             * where EPA's, from a face whose plane may pass beside the origin, need
             * not (a point on the side of a needle 1e-8 thick: EPA's face 1.1e-9 off,
             * depth 0, witness 9e-9 off the point; test_fuzz_regressions:
             * witness_point_on_needle_side). */
            c->sd = g->upper - f->inflate;
            /* Their weights' rounding is shared out as for a separation (seen: a point on
             * a flat quad 1e-3 m wide, its witness on the quad 9.5e-9 from the point at a
             * distance of 2.6e-19; fuzz/fixed aaee0b, test_fuzz_regressions:
             * witness_point_on_flat_quad). */
            witnesses_along_v(g, &c->pa, &c->pb);
            gjk_vec3 ng = gjk_normalize(gjk_neg(g->v));
            gjk_vertex xe, xg;
            gjk_pair_support(f, c->n, GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &xe);
            gjk_pair_support(f, ng, GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &xg);
            r->support_calls += 2;
            double sep_e = -gjk_dot(xe.w, c->n), sep_g = -gjk_dot(xg.w, ng);
            c->n_sep = sep_e;
            if (g->upper > 0.0 && sep_g > sep_e) {
                c->n = ng;
                c->n_sep = sep_g;
            }
        } else {
            c->pa = e.point_a;
            c->pb = e.point_b;
            c->sd = -(e.depth + f->inflate);
            lower = -(e.depth_upper + f->inflate); /* depth <= depth_upper: certified */
            /* EPA's stopping rules take a support point along the normal they answer with
             * (h(n) within the tolerance of the depth when converged, h(n) <= 0 at contact,
             * or a gap its polytope could not close): -h(n) is certified. */
            c->n_sep = e.normal_sep;
        }
        if (epa_contact && gjk_length_sq(e.upper_normal) > 0.0) {
            /* At contact the witnesses coincide to rounding (pa - pb = 0, or GJK's v), so
             * the normal may turn to EPA's least-support direction without breaking
             * pb - pa = d n; at a depth it may not (seen: an EPA normal turned half a
             * turn at depth 3.3e-10 put the witnesses 6.7e-10 out of step). */
            c->epa_alt.n = e.upper_normal;
            c->epa_alt.sep = -e.depth_upper;
        }
        r->status = e.status == GJK_STATUS_TOUCHING ? GJK_STATUS_OVERLAPPING : e.status;
        if (!(gjk_length_sq(c->n) > 0.0) && f->inflate > 0.0) {
            c->n = gjk_v3(1.0, 0.0, 0.0); /* cores touch at a point: any direction */
        }
    } else if (!q->boolean_only &&
               (depth = contact_depth(f, g, opt, touch, q->workspace, &r->support_calls, &c->n,
                                       &c->n_sep)) >= 0.0) {
        /* Contact to rounding, the origin not enclosed: the cores are |v| apart at most
         * (v's direction is as good as the rounding allows). Otherwise an overlap of that
         * depth, which the plain distance reports as 0 (TOUCHING within the tolerance, as
         * the signed distance would). */
        c->sd = depth > 0.0 ? -(depth + f->inflate)
                         : (g->simplex.count == 4 ? 0.0 : g->upper) - f->inflate;
    } else {
        /* An overlap certified beyond the touching band, or a boolean query that stopped as
         * soon as |v| fell within the touch tolerance (it may be deep inside:
         * test_world's first-collision case of a 5 cm overlap once came back TOUCHING):
         * overlap, depth unknown. */
        c->sd = 0.0;
        c->known = false;
    }
    r->lower_bound = lower < c->sd ? lower : c->sd;
    r->upper_bound = c->sd;
    return true;
}

/* GJK stalled with no separation certified and |v| beyond touch_tolerance: the origin may
 * be inside D all the same (seen: a flat square 2.7e-7 wide 1.5e-7 into a 55 m segment, GJK
 * stalled after 3 iterations at |v| = 7.7e-8, reported as ITERATION_LIMIT with a positive
 * distance; fuzz/fixed 814014, test_fuzz_regressions: gjk_stall_square_on_segment). EPA
 * decides: a converged depth above its zero certifies the overlap (its polytope lies in D and
 * holds the origin that deep). Out of line: stalls are rare. */
static GJK_NOINLINE bool stall_overlaps(const gjk_pair_frame *f, const gjk_options *opt,
                                        gjk_workspace *workspace, const gjk_gjk_result *g)
{
    gjk_epa_result e = gjk_epa_in(f, &g->simplex, opt, workspace);
    return e.status == GJK_STATUS_OVERLAPPING && e.depth > 0.0;
}

gjk_result gjk_query_run(const gjk_query *query, gjk_cache *cache, const gjk_options *options)
{
    gjk_transform pose_a, pose_b;
    if (query == NULL || !shape_is_valid(query->shape_a) || !shape_is_valid(query->shape_b) ||
        !unit_quat(query->pose_a.q, &pose_a.q) || !unit_quat(query->pose_b.q, &pose_b.q) ||
        !translations_in_range(query->pose_a.p, query->pose_b.p) || isnan(query->cutoff)) {
        return invalid_result();
    }
    pose_a.p = query->pose_a.p;
    pose_b.p = query->pose_b.p;
    const gjk_options opt = resolve_options(options);
    /* Pair frame: B in A's local frame. rot_a also takes the answer back to the world. */
    gjk_pair_frame f;
    const gjk_mat3 rot_a =
        pair_frame_init(&f, query->shape_a, pose_a, query->shape_b, pose_b, &opt);
    const double inflate_a = gjk_core_inflate(f.a), inflate_b = gjk_core_inflate(f.b);
    const double touch = touch_band(&opt, &f);

    gjk_gjk_input in;
    in.options = &opt;
    in.cutoff = query->cutoff + f.inflate; /* INFINITY stays INFINITY */
    /* Boolean answers agree with the signed distance's status: within the touch tolerance
     * is touching, and touching counts as intersecting. */
    in.threshold = f.inflate + touch;
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
    core_answer c;
    c.n = gjk_v3(0.0, 0.0, 0.0);
    c.pa = g.point_a;
    c.pb = g.point_b;
    c.known = true;
    c.n_sep = -HUGE_VAL;
    c.epa_alt.n = gjk_v3(0.0, 0.0, 0.0);
    c.epa_alt.sep = -HUGE_VAL;
    /* A cold GJK run that stalled with no separation certified (lower bound <= 0) and |v|
     * within the touching band stopped at contact to rounding, not short of a distance: its
     * sub-algorithm could not tell on which side of a face through the origin's
     * neighbourhood the origin lies, and v's direction is noise. EPA (or contact_depth)
     * decides, as for an enclosed origin (seen: a point 8e-7 inside a cone 1.6e-6 thick
     * and 3.4 m wide, |v| = 7e-15 from a triangle across it, reported as ITERATION_LIMIT at
     * depth 0 with a normal in the cone's base plane, 1.7 m short; test_fuzz_regressions:
     * point_in_flat_cone_gjk_stall). */
    const bool stalled_at_contact = g.status == GJK_STATUS_ITERATION_LIMIT && !(g.lower > 0.0) &&
                                    g.upper <= opt.touch_tolerance;
    if (g.status == GJK_STATUS_OVERLAPPING || stalled_at_contact ||
        (g.status == GJK_STATUS_ITERATION_LIMIT && !(g.lower > 0.0) &&
         stall_overlaps(&f, &opt, query->workspace, &g))) {
        if (!overlap_answer(query, &f, &opt, touch, &g, &r, &c)) {
            if (cache != NULL) {
                *cache = saved;
            }
            return invalid_result();
        }
    } else {
        /* Normal and distance from GJK's v, whose direction stays accurate near contact
         * (the witnesses' difference would carry their rounding / d). */
        double d = gjk_length(g.v);
        if (d > 0.0) {
            c.n = gjk_scale(g.v, -1.0 / d);
            c.n_sep = g.v_sep;
            c.n = certified_normal(&g, d, f.scale, c.n, &c.n_sep);
        }
        /* The witnesses carry the rounding of the simplex's weights, v does not: share the
         * difference between them so that pa - pb = v (test_fuzz_regressions:
         * gjk_witnesses_off_v, 0.011 m at 8e6 m coordinates), each in proportion to the
         * extent of its support points, which the weights' rounding is multiplied by (a
         * 3.7 km disk's rim points 7 mm apart against a needle's vertices 8e6 m apart: an
         * even split put the disk's witness 0.011 m off the disk; test_fuzz_regressions:
         * witness_disk_rim_on_needle). Equal extents split it evenly. */
        witnesses_along_v(&g, &c.pa, &c.pb);
        c.sd = (g.status == GJK_STATUS_BEYOND_CUTOFF ? g.lower : d) - f.inflate;
        if (g.status == GJK_STATUS_SEPARATED && c.sd < 0.0) {
            r.status = GJK_STATUS_OVERLAPPING; /* rounded shapes overlap, cores do not */
        }
    }
    /* The contact normal is checked at contact of the cores, and of the rounded shapes. At
     * the latter a normal off by GJK's convergence turns a large shape's rim into the contact
     * (a disk on the rounded apex of a 184 m flat cone, cores 2e-4 apart: v 4e-6 rad off the
     * axis, 3.4e-4 short; test_fuzz_regressions: normal_at_rounded_flat_cone_apex). */
    const double sd = c.sd;
    const double band = 1e-6 * f.scale;
    const bool rounded_contact = f.inflate > 0.0 && fabs(sd + f.inflate) > band && fabs(sd) <= band;
    gjk_vec3 n = c.n;
    if (c.known && !query->boolean_only && r.status != GJK_STATUS_BEYOND_CUTOFF &&
        (fabs(sd + f.inflate) <= band || rounded_contact) && gjk_length_sq(n) > 0.0) {
        n = contact_normal(&f, &opt, &g, &c, &r.support_calls);
    }
    gjk_vec3 pa = gjk_madd(c.pa, inflate_a, n);
    gjk_vec3 pb = gjk_madd(c.pb, -inflate_b, n);
    if (rounded_contact && (n.x != c.n.x || n.y != c.n.y || n.z != c.n.z)) {
        /* The cores' witnesses stay |v| apart along the old normal, so pb - pa = d n is off
         * by |v| times the turn (1.2e-4 for a 108 m margin). The rounded witnesses take it up,
         * in proportion to their radii: moving a point of a ball of radius r sideways by t
         * leaves the ball by only t^2 / 2r. */
        gjk_vec3 e = gjk_madd(gjk_sub(pb, pa), -sd, n);
        double share_a = gjk_witness_share(inflate_a, inflate_b);
        pa = gjk_madd(pa, share_a, e);
        pb = gjk_madd(pb, share_a - 1.0, e);
    }
    /* The verdict: TOUCHING within the pair's touching band, or when the certified bounds do
     * not exclude zero; the distance stays the computed one either way. */
    if (c.known && (r.status == GJK_STATUS_SEPARATED || r.status == GJK_STATUS_OVERLAPPING) &&
        (fabs(sd) <= touch || (r.status == GJK_STATUS_SEPARATED && !(r.lower_bound > 0.0)) ||
         (r.status == GJK_STATUS_OVERLAPPING && !(r.upper_bound < 0.0)))) {
        r.status = GJK_STATUS_TOUCHING;
    }
    /* Status and sign agree (the plain distance reads an overlap as 0 below). */
    GJK_ASSERT(r.status != GJK_STATUS_SEPARATED || (sd > 0.0 && r.lower_bound > 0.0));
    GJK_ASSERT(r.status != GJK_STATUS_OVERLAPPING || !c.known || (sd < 0.0 && r.upper_bound < 0.0));
    /* plain distance: overlap reads as distance 0 */
    r.distance = !query->penetration && sd < 0.0 ? 0.0 : sd;

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
        (a), (pose_a), (b), (pose_b), (cutoff), (penetration), (boolean_only), NULL                \
    }

gjk_result gjk_distance(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                        gjk_transform pose_b, gjk_cache *cache, const gjk_options *options)
{
    const gjk_query q = GJK_QUERY_INIT(a, pose_a, b, pose_b, HUGE_VAL, false, false);
    return gjk_query_run(&q, cache, options);
}

gjk_result gjk_signed_distance(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                               gjk_transform pose_b, gjk_cache *cache, const gjk_options *options)
{
    const gjk_query q = GJK_QUERY_INIT(a, pose_a, b, pose_b, HUGE_VAL, true, false);
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
    const gjk_query q = GJK_QUERY_INIT(a, pose_a, b, pose_b, HUGE_VAL, false, true);
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
