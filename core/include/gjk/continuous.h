/* gjk/continuous.h — continuous collision checks: a certified answer for a pair of convex
 * shapes over a whole segment of motion, rotation included.
 *
 * Motion model. A segment is parametrised by t in [0, 1].
 *  - A rigid body moving between two poses (a link-pose robot's link) follows
 *        p(t) = p0 + t (p1 - p0),    q(t) = q0 * (q0^-1 q1)^t   (slerp, shorter arc),
 *    i.e. its origin moves on a straight line at constant speed and it turns about one fixed
 *    axis (in its own frame) at the constant rate theta = the angle of q0^-1 q1 in [0, pi].
 *  - A robot with joints follows the straight line in joint space, q(t) = q0 + t (q1 - q0)
 *    (DOF values; mimic joints follow their DOF), at its fixed base pose: what a motion
 *    planner means by a straight segment. Link poses are the forward kinematics of q(t).
 *
 * Motion bounds. A motion bound V of a part is a number such that no point of the part
 * moves farther than V |t1 - t0| between any two times t0, t1 of the segment (V is a bound
 * on the speed |dx/dt|, metres per segment). gjk_pose_motion_bound and
 * gjk_kinematics_motion_bound compute one for each motion model; their proofs are in
 * core/src/continuous.c. A pair whose parts have bounds V_A and V_B changes its distance by
 * at most (V_A + V_B) |t1 - t0|: the distance is (V_A + V_B)-Lipschitz in t.
 *
 * Verdicts. gjk_ccd_check answers, for one pair over [0, 1], exactly one of
 *  - CLEAR: no contact anywhere on the segment, with a certified lower bound on the minimum
 *    padded distance over it (> 0);
 *  - CONTACT at t: certified contact-free on [0, t), and the pair is in contact (padded
 *    distance <= the touch tolerance, overlap included) at some time in [t, t + tolerance]
 *    (tolerance = options.time_tolerance, default 1e-6 of the segment); t = 0 when it already
 *    touches at the start. The witnesses and normal are GJK's (EPA's on overlap) at t.
 *  - UNDECIDED: the work budget (options.max_evaluations distance queries) ran out, or the
 *    pair grazes closer than floating point can separate from contact; certified
 *    contact-free on [0, t) only. Never a clear answer in disguise.
 *
 * Method. Conservative advancement with adaptive subdivision over intervals of t, earliest
 * first. For an interval [a, b] with certified lower bounds l_a, l_b (GJK's duality-gap bound,
 * padding subtracted) the Lipschitz bound gives, for every s in [a, b],
 *     d(s) >= max(l_a - V (s - a), l_b - V (b - s)),
 * whose minimum over [a, b] is the interval's certified clearance. An interval whose
 * clearance is positive and at least half the smaller of l_a and l_b (or at least `floor`,
 * or positive on an interval no longer than the tolerance) is accepted; any other is split,
 * at the conservative-advancement step a + l_a / V when that lies in the first half (near
 * contact the search walks towards it as fast as the bound allows), else at the middle.
 * Contact is declared when an interval no longer than the tolerance ends in contact. Every
 * query warm-starts from the previous one (gjk_cache): consecutive times are close.
 * With a directional bound (gjk_ccd_pair.speed_along) each queried time also gives the
 * separation s of the two shapes along GJK's normal n there (from their support points): the
 * slab between them is at least s wide, so d >= s, and s changes no faster than V_n, the
 * directional bound along n; each end then bounds d by the larger of its two lines (the
 * split point stays the one of the isotropic bound). */
#ifndef GJK_CONTINUOUS_H
#define GJK_CONTINUOUS_H

#include "base.h"
#include "kinematics.h"
#include "query.h"
#include "shape.h"
#include "vecmath.h"

/* ------------------------------------------------------------------ motion model */

/* The pose at t of a body moving from `from` to `to` (see Motion model): lerp of the
 * translation, slerp of the rotation along the shorter arc. Quaternions need not be unit
 * (they are normalised). t outside [0, 1] extrapolates. */
GJK_API gjk_transform gjk_pose_interpolate(gjk_transform from, gjk_transform to, double t);

/* The angle in [0, pi] of the rotation from a to b (shorter arc), radians. */
GJK_API double gjk_rotation_angle(gjk_quat a, gjk_quat b);

/* Motion bound (see Motion bounds) of every point within `radius` of `center` (both in the
 * body's frame) for the body moving from `from` to `to`: |p1 - p0| + theta (|center| +
 * radius). */
GJK_API double gjk_pose_motion_bound(gjk_transform from, gjk_transform to, gjk_vec3 center,
                                     double radius);

/* Directional motion bound: a bound on |n . dx/dt| over the segment for every point x within
 * `radius` of `center` (body frame) of the body moving from `from` to `to`, n a unit world
 * direction: |n . (p1 - p0)| + theta |n x w| (|center| + radius), w the rotation's (fixed)
 * world axis. Never above gjk_pose_motion_bound. */
GJK_API double gjk_pose_motion_bound_along(gjk_transform from, gjk_transform to, gjk_vec3 center,
                                           double radius, gjk_vec3 n);

/* Motion bound of every point within `radius` of `center` (link frame) of link `link` of a
 * robot with joints moving in joint space from q_from to q_to (dof_count values each) at a
 * fixed base pose; poses_from and poses_to are the link poses at the two ends
 * (gjk_kinematics_link_poses after gjk_kinematics_forward). Writes *bound:
 *     sum over the moving joints j of the link's chain of
 *         |dq_j| R_j   (revolute, continuous)   or   |dq_j|   (prismatic),
 *     R_j = (R_j(0) + R_j(1) + M_j) / 2,
 *     R_j(e) = distance from joint j's axis to `center` at end e, plus radius,
 *     M_j = the same sum over the joints of the chain below j (between j and the link),
 * with dq_j = multiplier * (q_to - q_from)[dof] for a mimic joint. The proof is in
 * core/src/continuous.c. O(chain length), allocation-free. INVALID_INPUT for a link out of
 * range, NULL arrays or non-finite input. */
GJK_API gjk_status gjk_kinematics_motion_bound(const gjk_kinematics *k,
                                               const gjk_transform *poses_from,
                                               const gjk_transform *poses_to, const double *q_from,
                                               const double *q_to, int32_t link, gjk_vec3 center,
                                               double radius, double *bound);

/* ------------------------------------------------------------------ pair check */

typedef enum gjk_ccd_verdict {
    GJK_CCD_UNSPECIFIED = 0,
    GJK_CCD_CLEAR = 1,
    GJK_CCD_CONTACT = 2,
    GJK_CCD_UNDECIDED = 3,
} gjk_ccd_verdict;

/* "clear", "contact", "undecided" ("unspecified" otherwise). */
GJK_API const char *gjk_ccd_verdict_name(gjk_ccd_verdict verdict);

#define GJK_CCD_DEFAULT_TIME_TOLERANCE 1e-6
#define GJK_CCD_DEFAULT_MAX_EVALUATIONS 2000

/* Options; the zero value of every field is its default. */
typedef struct gjk_ccd_options {
    double time_tolerance;   /* width of a contact's bracket, fraction of the segment, in
                                (0, 0.5] (0 = GJK_CCD_DEFAULT_TIME_TOLERANCE) */
    int32_t max_evaluations; /* distance queries per pair and segment before UNDECIDED
                                (>= 0; 0 = GJK_CCD_DEFAULT_MAX_EVALUATIONS) */
    gjk_options gjk;         /* narrow phase (zeroed = defaults); touch_tolerance decides
                                contact */
    bool certify_only;       /* false (default): refine a clear segment's bound to within a
                                factor 2 of the least queried distance (see Method). true:
                                accept every interval with a positive bound: the cheapest
                                certificate of no contact, its clearance bound still certified
                                but possibly far below the true minimum */
} gjk_ccd_options;

/* Places the two shapes at time t (world frame). */
typedef void gjk_ccd_pose_fn(void *user, double t, gjk_transform *pose_a, gjk_transform *pose_b);

typedef struct gjk_ccd_pair {
    const gjk_shape *shape_a;
    const gjk_shape *shape_b;
    gjk_ccd_pose_fn *poses; /* the motion */
    void *user;             /* passed to poses */
    double speed;   /* V_A + V_B: motion bound of the pair (see Motion bounds), >= 0, finite */
    double padding; /* subtracted from every distance (metres, >= 0) */
    double floor;   /* an interval whose certified clearance reaches this is accepted without
                       refinement (a caller that only needs the bound below some value, e.g.
                       the least bound of other pairs); 0 or INFINITY = no floor */
    /* Optional (NULL = none): a directional motion bound of the pair: for a unit world
     * direction n, a number >= |n . dx/dt| for every point x of either shape at every t of
     * the segment, summed over the two shapes (gjk_pose_motion_bound_along). With it, the
     * separation of the shapes along GJK's normal at a queried time gives a second envelope
     * (see Method). */
    double (*speed_along)(void *user, gjk_vec3 n);
} gjk_ccd_pair;

typedef struct gjk_ccd_result {
    gjk_status status; /* GJK_STATUS_SEPARATED (done) or GJK_STATUS_INVALID_INPUT */
    gjk_ccd_verdict verdict;
    double t;                     /* CONTACT: the time of contact (see Verdicts); UNDECIDED: where
                                     the certificate stops; CLEAR: t_closest */
    double clearance_lower_bound; /* CLEAR: certified lower bound on the minimum padded
                                     distance over [0, 1]; otherwise over [0, t) (-INFINITY
                                     when t = 0) */
    double t_closest;             /* the queried time with the least padded distance */
    gjk_result at;                /* the pair at t: GJK (EPA on overlap), padding NOT subtracted */
    int32_t evaluations;          /* distance queries run */
} gjk_ccd_result;

/* Checks one pair over its segment (see Verdicts, Method). cache: warm start, may be NULL;
 * updated. options may be NULL. INVALID_INPUT (verdict UNSPECIFIED) for NULL shapes or
 * callback, invalid shapes or poses, speed or padding negative or non-finite, options out of
 * range. */
GJK_API gjk_ccd_result gjk_ccd_check(const gjk_ccd_pair *pair, gjk_cache *cache,
                                     const gjk_ccd_options *options);

/* Two rigid bodies, each moving between two poses (see Motion model): the motion bounds come
 * from gjk_pose_motion_bound with each shape's bounding radius about its origin. */
GJK_API gjk_ccd_result gjk_ccd_check_poses(const gjk_shape *a, gjk_transform a_from,
                                           gjk_transform a_to, const gjk_shape *b,
                                           gjk_transform b_from, gjk_transform b_to, double padding,
                                           gjk_cache *cache, const gjk_ccd_options *options);

#endif /* GJK_CONTINUOUS_H */
