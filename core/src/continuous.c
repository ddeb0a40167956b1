/* continuous.c — continuous collision checks (gjk/continuous.h): the motion model, certified
 * motion bounds and the per-pair search.
 *
 * ---------------------------------------------------------------- the motion bounds, proved
 *
 * Both bounds bound the speed |dx/dt| of a point x(t) of a part for every t in [0, 1]; then
 * |x(t1) - x(t0)| = |integral of dx/dt| <= V |t1 - t0| for any t0, t1 (the claim of
 * gjk/continuous.h, Motion bounds), and the distance of two parts with bounds V_A, V_B is
 * (V_A + V_B)-Lipschitz in t (each witness moves at most that far relative to the other).
 *
 * Pose interpolation. x(t) = R(t) y + p(t) for a point y of the body frame, with
 * p(t) = p0 + t dp and R(t) = R0 exp(t theta [u]x) (slerp: a fixed unit axis u of the body
 * frame, constant rate theta). Then dx/dt = dp + w(t) x R(t) y with |w(t)| = theta, so
 * |dx/dt| <= |dp| + theta |R(t) y| = |dp| + theta |y|. Every point of the part lies within
 * `radius` of `center`, so |y| <= |center| + radius: V = |dp| + theta (|center| + radius).
 *
 * Joint-space interpolation (Schwarzer, Saha & Latombe 2005, made rigorous for the whole
 * segment). q(t) = q0 + t dq. Let j_1 .. j_n be the moving joints of the link's chain, j_1
 * nearest the link. Differentiating forward kinematics (the Jacobian of gjk/kinematics.h,
 * gradients):
 *     dx/dt = sum_i dq_i (a_i(t) x (x(t) - o_i(t)))   (revolute, continuous)
 *           + sum_i dq_i a_i(t)                        (prismatic),
 * a_i, o_i the joint's world axis and origin, dq_i its rate (multiplier * dq[dof] for a
 * mimic). |a_i x (x - o_i)| = dist(x, axis_i), so
 *     |dx/dt| <= sum_i |dq_i| max_t dist(x(t), axis_i(t)) + sum_prismatic |dq_i|.
 * The distance from x to axis i does not change when joints at or above i move (they move
 * the axis and the point together, or turn or slide the point about / along that very
 * axis); only joints j_1 .. j_{i-1}, below i, move x relative to axis i's frame. Induction on
 * i: by the same argument for the sub-chain j_1 .. j_{i-1}, x moves relative to that frame at
 * speed at most M_i = sum_{k < i} (|dq_k| R_k or |dq_k|), so with D_i(t) = dist(x(t),
 * axis_i(t)), |D_i(t) - D_i(0)| <= M_i t and |D_i(t) - D_i(1)| <= M_i (1 - t), hence
 *     D_i(t) <= min(D_i(0) + M_i t, D_i(1) + M_i (1 - t)) <= (D_i(0) + D_i(1) + M_i) / 2
 * (the two lines meet at that height). Every point of the part is within `radius` of its
 * centre, so D_i(e) <= dist(centre(e), axis_i(e)) + radius = R_i(e), and R_i = (R_i(0) + R_i(1)
 * + M_i) / 2 bounds D_i over the whole segment for every point: V = M_{n+1}. Only the two
 * end poses are needed, and the bound is O(chain length).
 *
 * Directional bound (pose interpolation). For a fixed unit n, n . dx/dt = n . dp + n . (w x r)
 * with r = R(t) y and w = theta w_hat the angular velocity, whose world axis w_hat = R0 u is
 * fixed (R(t) = R0 exp(t theta [u]x) leaves u unchanged). n . (w x r) = r . (n x w), so
 * |n . dx/dt| <= |n . dp| + theta |n x w_hat| |r| <= |n . dp| + theta |n x w_hat| (|center| +
 * radius). The separation along n, s_n(t) = min over B of n . b - max over A of n . a, is a
 * difference of support values, each moving at most as fast as its support point along n, so
 * s_n is V_n-Lipschitz with V_n the sum of the two shapes' bounds; and d(t) >= s_n(t) (the
 * slab of width s_n separates them).
 *
 * ---------------------------------------------------------------- the search
 *
 * See gjk/continuous.h, Method. Intervals are kept on a stack, left half on top, so they are
 * settled in time order and everything before the interval on top is certified clear: the
 * first interval that ends in contact and is no longer than the tolerance brackets the first
 * contact. Each interval carries the certified lower bound l and the upper bound u (GJK's
 * distance) of the padded distance at its two ends; u <= touch tolerance is contact. */
#define _POSIX_C_SOURCE 200809L

#include "gjk/continuous.h"

#include "continuous_internal.h"

#include <float.h>
#include <string.h>

/* ------------------------------------------------------------------ motion model */

/* Unit rotation from a to b along the shorter arc: conj(a) b with w >= 0. */
static gjk_quat relative_rotation(gjk_quat a, gjk_quat b)
{
    gjk_quat r = gjk_quat_mul(gjk_quat_conj(gjk_quat_normalize(a)), gjk_quat_normalize(b));
    if (r.w < 0.0)
        r = gjk_quat_make(-r.w, -r.x, -r.y, -r.z);
    return r;
}

static double rel_angle(gjk_quat r)
{
    double s = sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    return 2.0 * atan2(s, r.w);
}

double gjk_rotation_angle(gjk_quat a, gjk_quat b)
{
    return rel_angle(relative_rotation(a, b));
}

gjk_transform gjk_pose_interpolate(gjk_transform from, gjk_transform to, double t)
{
    gjk_quat q0 = gjk_quat_normalize(from.q);
    gjk_quat r = relative_rotation(q0, to.q);
    double s = sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    gjk_quat q = q0;
    if (s > 0.0) {
        double angle = 2.0 * atan2(s, r.w);
        q = gjk_quat_normalize(gjk_quat_mul(
            q0, gjk_quat_from_axis_angle(gjk_v3(r.x / s, r.y / s, r.z / s), t * angle)));
    }
    return gjk_transform_make(q, gjk_madd(from.p, t, gjk_sub(to.p, from.p)));
}

double gjk_pose_motion_bound_along(gjk_transform from, gjk_transform to, gjk_vec3 center,
                                   double radius, gjk_vec3 n)
{
    gjk_quat q0 = gjk_quat_normalize(from.q);
    gjk_quat r = relative_rotation(q0, to.q);
    double s = sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    double v = fabs(gjk_dot(n, gjk_sub(to.p, from.p)));
    if (s > 0.0) {
        gjk_vec3 axis = gjk_quat_rotate(q0, gjk_v3(r.x / s, r.y / s, r.z / s));
        double turn = fmin(1.0, gjk_length(gjk_cross(n, axis)));
        v += 2.0 * atan2(s, r.w) * turn * (gjk_length(center) + radius);
    }
    return v;
}

double gjk_pose_motion_bound(gjk_transform from, gjk_transform to, gjk_vec3 center, double radius)
{
    double theta = gjk_rotation_angle(from.q, to.q);
    return gjk_distance_between(to.p, from.p) + theta * (gjk_length(center) + radius);
}

gjk_status gjk_kinematics_motion_bound(const gjk_kinematics *k, const gjk_transform *poses_from,
                                       const gjk_transform *poses_to, const double *q_from,
                                       const double *q_to, int32_t link, gjk_vec3 center,
                                       double radius, double *bound)
{
    if (!k || !poses_from || !poses_to || !bound || link < 0 ||
        link >= gjk_kinematics_link_count(k) || !gjk_vec3_is_finite(center) ||
        !(radius >= 0.0 && radius <= HUGE_VAL / 4) ||
        (gjk_kinematics_dof_count(k) > 0 && (!q_from || !q_to)))
        return GJK_STATUS_INVALID_INPUT;
    gjk_vec3 x0 = gjk_transform_point(poses_from[link], center);
    gjk_vec3 x1 = gjk_transform_point(poses_to[link], center);
    double m = 0.0; /* M_i: the bound of the joints below the current one */
    for (int32_t j = gjk_kinematics_parent_joint(k, link); j >= 0;) {
        gjk_joint_info info;
        gjk_kinematics_joint_info(k, j, &info);
        if (info.type != GJK_JOINT_FIXED) {
            double dq = fabs(info.multiplier * (q_to[info.dof] - q_from[info.dof]));
            if (!isfinite(dq))
                return GJK_STATUS_INVALID_INPUT;
            if (info.type == GJK_JOINT_PRISMATIC) {
                m += dq;
            } else if (dq > 0.0) {
                double r[2];
                for (int e = 0; e < 2; ++e) {
                    gjk_transform f = gjk_transform_mul(
                        e == 0 ? poses_from[info.parent] : poses_to[info.parent], info.origin);
                    gjk_vec3 a = gjk_quat_rotate(f.q, info.axis);
                    r[e] = gjk_length(gjk_cross(gjk_sub(e == 0 ? x0 : x1, f.p), a)) + radius;
                }
                m += dq * 0.5 * (r[0] + r[1] + m);
            }
        }
        j = gjk_kinematics_parent_joint(k, info.parent);
    }
    /* The arithmetic above rounds; a relative margin far above its error keeps the bound an
     * upper bound. */
    *bound = m * (1.0 + 1e-12);
    return isfinite(*bound) ? GJK_KINEMATICS_OK : GJK_STATUS_INVALID_INPUT;
}

/* ------------------------------------------------------------------ verdicts */

const char *gjk_ccd_verdict_name(gjk_ccd_verdict verdict)
{
    switch (verdict) {
    case GJK_CCD_CLEAR:
        return "clear";
    case GJK_CCD_CONTACT:
        return "contact";
    case GJK_CCD_UNDECIDED:
        return "undecided";
    default:
        return "unspecified";
    }
}

/* ------------------------------------------------------------------ the search */

/* Intervals pending at once: the search is depth-first, so this bounds the nesting of
 * splits (a full one ends the search as UNDECIDED). */
#define CCD_STACK 128
/* Intervals narrower than this fraction of the tolerance are not split: the bracket cannot
 * be resolved in floating point (a graze at rounding level). */
#define CCD_MIN_WIDTH_RATIO 1e-6

typedef struct ccd_end {
    double t;
    double lo; /* certified lower bound on the padded distance; -INFINITY when unknown */
    double hi; /* padded distance found (an upper bound); contact when <= touch */
    double sn; /* directional: padded separation along GJK's normal; -INFINITY when none */
    double vn; /* the directional bound along that normal */
} ccd_end;

typedef struct ccd_interval {
    ccd_end a, b;
} ccd_interval;

typedef struct ccd_ctx {
    const gjk_ccd_pair *pair;
    gjk_cache *cache;
    gjk_options gjk;
    double touch;
    int32_t evaluations;
    double closest_hi;
    double closest_t;
    bool invalid;
} ccd_ctx;

static gjk_result run_query_at(ccd_ctx *c, double t, bool penetration, gjk_transform *pose_a,
                               gjk_transform *pose_b)
{
    gjk_transform pa, pb;
    c->pair->poses(c->pair->user, t, &pa, &pb);
    pa.q = gjk_quat_normalize(pa.q);
    pb.q = gjk_quat_normalize(pb.q);
    *pose_a = pa;
    *pose_b = pb;
    gjk_query q;
    memset(&q, 0, sizeof q);
    q.shape_a = c->pair->shape_a;
    q.pose_a = pa;
    q.shape_b = c->pair->shape_b;
    q.pose_b = pb;
    q.cutoff = HUGE_VAL;
    q.penetration = penetration;
    gjk_result r = gjk_query_run(&q, c->cache, &c->gjk);
    if (r.status == GJK_STATUS_INVALID_INPUT)
        c->invalid = true;
    return r;
}

static gjk_result run_query(ccd_ctx *c, double t, bool penetration)
{
    gjk_transform pa, pb;
    return run_query_at(c, t, penetration, &pa, &pb);
}

/* Padded separation of the two shapes along unit n (from A towards B) at their poses: the
 * least n . b over B minus the largest n . a over A, from their support points. */
static double separation_along(const ccd_ctx *c, gjk_transform pa, gjk_transform pb, gjk_vec3 n)
{
    gjk_vec3 sa =
        gjk_transform_point(pa, gjk_shape_support(c->pair->shape_a, gjk_quat_inv_rotate(pa.q, n)));
    gjk_vec3 sb = gjk_transform_point(
        pb, gjk_shape_support(c->pair->shape_b, gjk_quat_inv_rotate(pb.q, gjk_neg(n))));
    return gjk_dot(n, gjk_sub(sb, sa)) - c->pair->padding;
}

static ccd_end evaluate(ccd_ctx *c, double t)
{
    gjk_transform pa, pb;
    gjk_result r = run_query_at(c, t, false, &pa, &pb);
    ++c->evaluations;
    double pad = c->pair->padding;
    ccd_end e = {t, -HUGE_VAL, HUGE_VAL, -HUGE_VAL, 0.0};
    switch (r.status) {
    case GJK_STATUS_SEPARATED:
    case GJK_STATUS_TOUCHING:
    case GJK_STATUS_ITERATION_LIMIT:
        if (isfinite(r.lower_bound))
            e.lo = r.lower_bound - pad;
        if (!isnan(r.distance))
            e.hi = r.distance - pad;
        break;
    case GJK_STATUS_OVERLAPPING:
        e.hi = -pad;
        break;
    default:
        break;
    }
    if (r.status == GJK_STATUS_TOUCHING)
        e.hi = fmin(e.hi, 0.0); /* touching counts as contact, whatever the padding */
    if (c->pair->speed_along && e.lo > 0.0 && gjk_length_sq(r.normal) > 0.0) {
        gjk_vec3 n = gjk_normalize(r.normal);
        double vn = c->pair->speed_along(c->pair->user, n);
        if (isfinite(vn) && vn >= 0.0) {
            e.sn = separation_along(c, pa, pb, n);
            e.vn = vn;
        }
    }
    if (e.hi < c->closest_hi) {
        c->closest_hi = e.hi;
        c->closest_t = t;
    }
    return e;
}

static bool in_contact(const ccd_ctx *c, const ccd_end *e)
{
    return e->hi <= c->touch;
}

/* min over x in [0, h] of max(la - va x, lb - vb (h - x)): the least value over an interval
 * of h of a function at least la - va x (falling from the left end) and lb - vb (h - x)
 * (from the right end). */
static double two_lines(double la, double va, double lb, double vb, double h)
{
    double at_left = lb - vb * h; /* the right line at x = 0 */
    if (la <= at_left)
        return at_left;
    double at_right = la - va * h; /* the left line at x = h */
    if (at_right >= lb)
        return at_right;
    return la - va * (la - lb + vb * h) / (va + vb); /* where they cross (va + vb > 0) */
}

/* Certified minimum over [a.t, b.t] of the padded distance: each end bounds it by lines of
 * slope V from its GJK bound and, with a directional bound, of slope V_n from its separation
 * along its normal; the least value of the pointwise maximum of those lines is at least the
 * largest of the pairwise bounds. Less a margin for the rounding of this arithmetic. */
static double interval_bound(const ccd_end *a, const ccd_end *b, double v)
{
    double h = b->t - a->t;
    double la[2] = {a->lo, a->sn}, va[2] = {v, a->vn};
    double lb_[2] = {b->lo, b->sn}, vb[2] = {v, b->vn};
    double lb = -HUGE_VAL;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            if (la[i] > -HUGE_VAL || lb_[j] > -HUGE_VAL)
                lb = fmax(lb, two_lines(la[i], va[i], lb_[j], vb[j], h));
    if (!isfinite(lb))
        return lb;
    return lb - 8.0 * DBL_EPSILON * (fabs(a->lo) + fabs(b->lo) + fabs(lb) + v * h);
}

static bool pair_valid(const gjk_ccd_pair *p)
{
    return p && p->shape_a && p->shape_b && p->poses && isfinite(p->speed) && p->speed >= 0.0 &&
           isfinite(p->padding) && p->padding >= 0.0 && !isnan(p->floor) &&
           gjk_shape_validate(p->shape_a) == GJK_STATUS_SEPARATED &&
           gjk_shape_validate(p->shape_b) == GJK_STATUS_SEPARATED;
}

gjk_ccd_result gjk_ccd_run(const gjk_ccd_pair *pair, gjk_cache *cache,
                           const gjk_ccd_options *options, bool witness)
{
    gjk_ccd_result res;
    memset(&res, 0, sizeof res);
    res.status = GJK_STATUS_INVALID_INPUT;
    res.t = (double)NAN;
    res.clearance_lower_bound = (double)NAN;
    res.t_closest = (double)NAN;
    res.at.distance = (double)NAN;
    gjk_ccd_options o;
    memset(&o, 0, sizeof o);
    if (options)
        o = *options;
    if (!pair_valid(pair) || !(o.time_tolerance >= 0.0 && o.time_tolerance <= 0.5) ||
        o.max_evaluations < 0)
        return res;
    double tol = o.time_tolerance > 0.0 ? o.time_tolerance : GJK_CCD_DEFAULT_TIME_TOLERANCE;
    int32_t budget = o.max_evaluations > 0 ? o.max_evaluations : GJK_CCD_DEFAULT_MAX_EVALUATIONS;
    gjk_cache local;
    memset(&local, 0, sizeof local);
    ccd_ctx c;
    memset(&c, 0, sizeof c);
    c.pair = pair;
    c.cache = cache ? cache : &local;
    c.gjk = o.gjk;
    c.touch =
        o.gjk.touch_tolerance > 0.0 ? o.gjk.touch_tolerance : gjk_default_options().touch_tolerance;
    c.closest_hi = HUGE_VAL;
    c.closest_t = 0.0;
    double v = pair->speed;
    double floor = pair->floor > 0.0 ? pair->floor : HUGE_VAL;
    if (o.certify_only)
        floor = DBL_MIN; /* every positive bound is accepted */

    gjk_ccd_verdict verdict = GJK_CCD_CLEAR;
    double t = 0.0;
    double bound = HUGE_VAL; /* least clearance of the intervals accepted so far */
    ccd_interval stack[CCD_STACK];
    int32_t n = 0;
    ccd_end e0 = evaluate(&c, 0.0);
    if (in_contact(&c, &e0)) {
        verdict = GJK_CCD_CONTACT;
    } else {
        stack[n].a = e0;
        stack[n].b = evaluate(&c, 1.0);
        ++n;
    }
    while (n > 0 && verdict == GJK_CCD_CLEAR && !c.invalid) {
        ccd_interval iv = stack[--n];
        double h = iv.b.t - iv.a.t;
        if (in_contact(&c, &iv.a)) { /* touching where the clear part ended */
            verdict = GJK_CCD_CONTACT;
            t = iv.a.t;
            break;
        }
        double lb = interval_bound(&iv.a, &iv.b, v);
        if (lb > 0.0 && (lb >= 0.5 * fmin(iv.a.lo, iv.b.lo) || lb >= floor || h <= tol)) {
            bound = fmin(bound, lb);
            continue;
        }
        if (in_contact(&c, &iv.b) && h <= tol) {
            verdict = GJK_CCD_CONTACT;
            t = iv.a.t;
            break;
        }
        if (c.evaluations >= budget || n + 2 > CCD_STACK || h <= tol * CCD_MIN_WIDTH_RATIO) {
            verdict = GJK_CCD_UNDECIDED;
            t = iv.a.t;
            break;
        }
        /* Split: at the advancement step when it falls in the first half (never closer to a
         * than the tolerance, unless the interval is that short), else at the middle. */
        double s = iv.a.t + 0.5 * h;
        double step = v > 0.0 && iv.a.lo > 0.0 ? iv.a.lo / v : 0.0;
        if (step > 0.0 && step < 0.5 * h)
            s = iv.a.t + fmax(step, fmin(tol, 0.5 * h));
        ccd_end es = evaluate(&c, s);
        stack[n].a = es;
        stack[n].b = iv.b;
        ++n;
        stack[n].a = iv.a;
        stack[n].b = es;
        ++n;
    }
    if (c.invalid)
        return res;
    res.status = GJK_STATUS_SEPARATED;
    res.verdict = verdict;
    res.evaluations = c.evaluations;
    res.t_closest = c.closest_t;
    if (verdict == GJK_CCD_CLEAR) {
        res.t = c.closest_t;
        res.clearance_lower_bound = bound;
    } else {
        res.t = t;
        res.clearance_lower_bound = t > 0.0 ? bound : -HUGE_VAL;
    }
    if (witness)
        res.at = run_query(&c, res.t, true);
    return res;
}

gjk_ccd_result gjk_ccd_check(const gjk_ccd_pair *pair, gjk_cache *cache,
                             const gjk_ccd_options *options)
{
    return gjk_ccd_run(pair, cache, options, true);
}

/* ------------------------------------------------------------------ two rigid bodies */

typedef struct pose_motion {
    gjk_transform a0, a1, b0, b1;
    double ra, rb; /* bounding radii about the shapes' origins */
} pose_motion;

static void pose_motion_at(void *user, double t, gjk_transform *pa, gjk_transform *pb)
{
    const pose_motion *m = user;
    *pa = gjk_pose_interpolate(m->a0, m->a1, t);
    *pb = gjk_pose_interpolate(m->b0, m->b1, t);
}

static double pose_motion_along(void *user, gjk_vec3 n)
{
    const pose_motion *m = user;
    gjk_vec3 o = gjk_v3(0.0, 0.0, 0.0);
    return (gjk_pose_motion_bound_along(m->a0, m->a1, o, m->ra, n) +
            gjk_pose_motion_bound_along(m->b0, m->b1, o, m->rb, n)) *
           (1.0 + 1e-12);
}

gjk_ccd_result gjk_ccd_check_poses(const gjk_shape *a, gjk_transform a_from, gjk_transform a_to,
                                   const gjk_shape *b, gjk_transform b_from, gjk_transform b_to,
                                   double padding, gjk_cache *cache, const gjk_ccd_options *options)
{
    gjk_ccd_pair pair;
    memset(&pair, 0, sizeof pair);
    pose_motion m = {a_from, a_to, b_from, b_to, 0.0, 0.0};
    bool ok = a && b && gjk_shape_validate(a) == GJK_STATUS_SEPARATED &&
              gjk_shape_validate(b) == GJK_STATUS_SEPARATED && gjk_transform_is_valid(a_from) &&
              gjk_transform_is_valid(a_to) && gjk_transform_is_valid(b_from) &&
              gjk_transform_is_valid(b_to);
    pair.shape_a = a;
    pair.shape_b = b;
    pair.poses = pose_motion_at;
    pair.user = &m;
    pair.padding = padding;
    if (ok) {
        gjk_vec3 o = gjk_v3(0.0, 0.0, 0.0);
        m.ra = gjk_shape_bounding_radius(a);
        m.rb = gjk_shape_bounding_radius(b);
        pair.speed_along = pose_motion_along;
        pair.speed = (gjk_pose_motion_bound(a_from, a_to, o, gjk_shape_bounding_radius(a)) +
                      gjk_pose_motion_bound(b_from, b_to, o, gjk_shape_bounding_radius(b))) *
                     (1.0 + 1e-12);
    } else {
        pair.shape_a = NULL; /* refused below */
    }
    return gjk_ccd_run(&pair, cache, options, true);
}
