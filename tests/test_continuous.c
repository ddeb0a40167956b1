/* test_continuous.c — continuous checks of one pair over a segment (gjk/continuous.h):
 * thin walls that the waypoints miss, pure translation against closed-form times of impact,
 * rotating bodies and joint chains against dense sampling (1e-4 of the segment: continuous may
 * never say clear where sampling finds contact, and its lower bound may never exceed the
 * sampled minimum), and both motion bounds against sampled point displacements. */
#include "test_util.h"

#include <string.h>

#define TOL GJK_CCD_DEFAULT_TIME_TOLERANCE
#define SAMPLES 10000 /* dense sampling: 1e-4 of the segment */

static gjk_transform tr(double x, double y, double z)
{
    return gjk_transform_make(gjk_quat_identity(), gjk_v3(x, y, z));
}

/* Padded signed distance (GJK, no EPA: overlap counts as <= 0) of two placed shapes. */
static double dist(const gjk_shape *a, gjk_transform pa, const gjk_shape *b, gjk_transform pb,
                   double pad)
{
    gjk_result r = gjk_distance(a, pa, b, pb, NULL, NULL);
    if (r.status == GJK_STATUS_OVERLAPPING)
        return -pad - 1.0;
    return r.distance - pad;
}

/* ------------------------------------------------------------------ motion model */

static void test_interpolation(void **state)
{
    (void)state;
    gjk_quat q0 = gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), 0.3);
    gjk_quat q1 = gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), 1.5);
    gjk_transform a = gjk_transform_make(q0, gjk_v3(1, 2, 3));
    gjk_transform b = gjk_transform_make(q1, gjk_v3(3, 2, -1));
    gjk_transform m = gjk_pose_interpolate(a, b, 0.25);
    assert_vec_near(m.p, gjk_v3(1.5, 2, 2), 1e-15);
    gjk_vec3 x = gjk_quat_rotate(m.q, gjk_v3(1, 0, 0));
    assert_vec_near(x, gjk_v3(cos(0.6), sin(0.6), 0), 1e-14);
    assert_near(gjk_rotation_angle(q0, q1), 1.2, 1e-14);
    /* -q is the same rotation: the shorter arc is taken. */
    gjk_quat nq1 = gjk_quat_make(-q1.w, -q1.x, -q1.y, -q1.z);
    assert_near(gjk_rotation_angle(q0, nq1), 1.2, 1e-14);
    gjk_transform e = gjk_pose_interpolate(a, gjk_transform_make(nq1, b.p), 1.0);
    assert_vec_near(gjk_quat_rotate(e.q, gjk_v3(0, 1, 0)), gjk_quat_rotate(q1, gjk_v3(0, 1, 0)),
                    1e-14);
    /* |dp| + theta (|c| + r) */
    assert_near(gjk_pose_motion_bound(a, b, gjk_v3(0.3, 0.4, 0), 0.5),
                sqrt(20.0) + 1.2 * (0.5 + 0.5), 1e-13);
}

/* The pose bounds against sampled point motion: for random pose segments, points within a
 * ball of the body and directions n, no sampled step moves a point faster than the bound, nor
 * along n faster than the directional bound, which is never above the other. */
static void test_pose_bounds_vs_sampling(void **state)
{
    (void)state;
    test_seed(3);
    double worst = 0.0, worst_along = 0.0;
    for (int k = 0; k < 200; ++k) {
        gjk_transform a = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0, 1)));
        gjk_transform b = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0, 1)));
        if (k % 4 == 0) /* a small turn, where the shorter arc matters most */
            b.q = gjk_quat_mul(a.q, gjk_quat_from_axis_angle(rnd_unit(), rnd_range(-0.3, 0.3)));
        gjk_vec3 c = gjk_scale(rnd_unit(), rnd_range(0, 0.5));
        double r = rnd_range(0, 0.3);
        gjk_vec3 n = rnd_unit();
        double v = gjk_pose_motion_bound(a, b, c, r);
        double vn = gjk_pose_motion_bound_along(a, b, c, r, n);
        assert_le(vn, v, 1e-12);
        gjk_vec3 y = gjk_madd(c, r * rnd(), rnd_unit());
        gjk_vec3 prev = gjk_transform_point(a, y);
        const int steps = 1000;
        for (int s = 1; s <= steps; ++s) {
            gjk_vec3 x = gjk_transform_point(gjk_pose_interpolate(a, b, (double)s / steps), y);
            gjk_vec3 d = gjk_scale(gjk_sub(x, prev), steps);
            assert_le(gjk_length(d), v, 1e-9);
            assert_le(fabs(gjk_dot(d, n)), vn, 1e-9);
            if (v > 0)
                worst = fmax(worst, gjk_length(d) / v);
            if (vn > 1e-9)
                worst_along = fmax(worst_along, fabs(gjk_dot(d, n)) / vn);
            prev = x;
        }
    }
    print_message("pose bounds: largest sampled speed / bound = %.3f, along n = %.3f\n", worst,
                  worst_along);
    assert_true(worst > 0.5 && worst_along > 0.5);
}

/* ------------------------------------------------------------------ thin walls */

static void test_thin_wall_translation(void **state)
{
    (void)state;
    gjk_shape ball = gjk_make_sphere(0.05);
    gjk_shape wall = gjk_make_box(gjk_v3(0.005, 1, 1));
    gjk_transform w = tr(0, 0, 0);
    gjk_transform a0 = tr(-1, 0.2, 0), a1 = tr(1, 0.2, 0);
    /* The discrete check sees two clear waypoints. */
    assert_true(dist(&ball, a0, &wall, w, 0) > 0.9);
    assert_true(dist(&ball, a1, &wall, w, 0) > 0.9);
    gjk_ccd_result r = gjk_ccd_check_poses(&ball, a0, a1, &wall, w, w, 0.0, NULL, NULL);
    assert_status(r.status, GJK_STATUS_SEPARATED);
    assert_int_equal(r.verdict, GJK_CCD_CONTACT);
    double exact = (1.0 - 0.055) / 2.0;
    assert_le(r.t, exact, 1e-12);
    assert_le(exact, r.t + TOL, 1e-12);
    assert_near(r.at.normal.x, 1.0, 1e-9); /* from the ball towards the wall */
    assert_near(r.at.point_b.x, -0.005, 1e-6);
    /* Head-on, the bound is exact: a handful of queries. */
    assert_true(r.evaluations < 10);
}

/* A thin blade turning half a turn about its middle sweeps through a ball beside it; both
 * end poses are clear. */
static void test_thin_wall_rotation(void **state)
{
    (void)state;
    gjk_shape blade = gjk_make_box(gjk_v3(1.0, 0.002, 0.05));
    gjk_shape ball = gjk_make_sphere(0.05);
    gjk_transform b0 = tr(0, 0, 0);
    gjk_transform b1 = gjk_transform_make(gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), 3.0), b0.p);
    gjk_transform s = tr(0.1, 0.5, 0);
    assert_true(dist(&blade, b0, &ball, s, 0) > 0.4);
    assert_true(dist(&blade, b1, &ball, s, 0) > 0.2);
    gjk_ccd_result r = gjk_ccd_check_poses(&blade, b0, b1, &ball, s, s, 0.0, NULL, NULL);
    assert_int_equal(r.verdict, GJK_CCD_CONTACT);
    /* The blade's edge reaches the ball's near side first: angle asin(0.45 / |x|) ... checked
     * against sampling. */
    double first = -1.0;
    for (int i = 0; i <= SAMPLES && first < 0.0; ++i) {
        double t = (double)i / SAMPLES;
        if (dist(&blade, gjk_pose_interpolate(b0, b1, t), &ball, s, 0) <= 0.0)
            first = t;
    }
    assert_true(first > 0.0);
    assert_le(r.t, first, 1e-12);
    assert_le(first, r.t + TOL + 1.0 / SAMPLES, 1e-12);
    /* The same blade turning the other way (away from the ball) stays clear. */
    gjk_transform c1 = gjk_transform_make(gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), -0.3), b0.p);
    r = gjk_ccd_check_poses(&blade, b0, c1, &ball, s, s, 0.0, NULL, NULL);
    assert_int_equal(r.verdict, GJK_CCD_CLEAR);
    assert_true(r.clearance_lower_bound > 0.0);
}

/* ------------------------------------------------------------------ pure translation */

/* Two balls: the first time |p + t v| = R, t in [0, 1], or -1. */
static double ball_toi(gjk_vec3 p, gjk_vec3 v, double radius)
{
    double a = gjk_dot(v, v), b = 2.0 * gjk_dot(p, v), c = gjk_dot(p, p) - radius * radius;
    if (c <= 0.0)
        return 0.0;
    double disc = b * b - 4.0 * a * c;
    if (a == 0.0 || disc < 0.0)
        return -1.0;
    double t = (-b - sqrt(disc)) / (2.0 * a);
    return t >= 0.0 && t <= 1.0 ? t : -1.0;
}

static void test_translation_balls(void **state)
{
    (void)state;
    test_seed(11);
    int contacts = 0, clears = 0, undecided = 0;
    for (int k = 0; k < 400; ++k) {
        double ra = rnd_range(0.01, 0.3), rb = rnd_range(0.01, 0.3), pad = rnd() < 0.3 ? 0.02 : 0;
        gjk_shape a = gjk_make_sphere(ra), b = gjk_make_sphere(rb);
        gjk_vec3 pa0 = gjk_scale(rnd_unit(), rnd_range(0.5, 2)), pb0 = gjk_v3(0, 0, 0);
        gjk_vec3 pa1 = gjk_scale(rnd_unit(), rnd_range(0.5, 2));
        gjk_vec3 pb1 = gjk_scale(rnd_unit(), rnd_range(0, 0.5));
        gjk_transform a0 = gjk_transform_make(rnd_quat(), pa0), a1 = gjk_transform_make(a0.q, pa1);
        gjk_transform b0 = gjk_transform_make(rnd_quat(), pb0), b1 = gjk_transform_make(b0.q, pb1);
        gjk_ccd_result r = gjk_ccd_check_poses(&a, a0, a1, &b, b0, b1, pad, NULL, NULL);
        assert_status(r.status, GJK_STATUS_SEPARATED);
        /* relative position of A from B: p + t v */
        gjk_vec3 p = gjk_sub(pa0, pb0), v = gjk_sub(gjk_sub(pa1, pa0), gjk_sub(pb1, pb0));
        double exact = ball_toi(p, v, ra + rb + pad);
        if (exact >= 0.0) {
            ++contacts;
            assert_int_equal(r.verdict, GJK_CCD_CONTACT);
            assert_le(r.t, exact, 1e-9);
            assert_le(exact, r.t + TOL, 1e-9);
        } else {
            /* analytic minimum of |p + t v| over [0, 1] */
            double t = gjk_dot(v, v) > 0 ? -gjk_dot(p, v) / gjk_dot(v, v) : 0.0;
            t = fmin(1.0, fmax(0.0, t));
            double min = gjk_length(gjk_madd(p, t, v)) - ra - rb - pad;
            if (r.verdict == GJK_CCD_UNDECIDED) {
                ++undecided; /* a graze closer than the budget resolves */
                assert_true(min < 1e-3);
                continue;
            }
            ++clears;
            assert_int_equal(r.verdict, GJK_CCD_CLEAR);
            assert_le(r.clearance_lower_bound, min, 1e-12);
            assert_true(r.clearance_lower_bound > 0.0);
            /* within a factor of two of the truth, as the acceptance rule promises for the
             * end with the least bound... at least half the true minimum here */
            assert_true(r.clearance_lower_bound >= 0.2 * min);
        }
    }
    print_message("balls: %d contacts, %d clear, %d undecided\n", contacts, clears, undecided);
    assert_true(contacts > 50 && clears > 50);
}

/* A box sliding obliquely onto another box's face: contact when the gap along the normal is
 * used up (the bound is |v|, the approach speed only v.n). */
static void test_translation_oblique_face(void **state)
{
    (void)state;
    gjk_shape slab = gjk_make_box(gjk_v3(5, 5, 0.1));
    gjk_shape cube = gjk_make_box(gjk_v3(0.1, 0.1, 0.1));
    gjk_transform s = tr(0, 0, 0);
    for (int k = 1; k <= 8; ++k) {
        double slope = 0.125 * k; /* v.n / |v| from 0.12 to 0.7 */
        double gap = 0.3;
        gjk_vec3 c0 = gjk_v3(-1, 0.3, 0.2 + gap);
        gjk_vec3 v = gjk_v3(2.0, 0, -2.0 * slope);
        gjk_transform a0 = gjk_transform_make(gjk_quat_identity(), c0);
        gjk_transform a1 = gjk_transform_make(gjk_quat_identity(), gjk_add(c0, v));
        gjk_ccd_result r = gjk_ccd_check_poses(&cube, a0, a1, &slab, s, s, 0.0, NULL, NULL);
        double exact = gap / (2.0 * slope);
        if (exact > 1.0) {
            assert_int_equal(r.verdict, GJK_CCD_CLEAR);
            continue;
        }
        assert_int_equal(r.verdict, GJK_CCD_CONTACT);
        assert_le(r.t, exact, 1e-12);
        assert_le(exact, r.t + TOL, 1e-12);
        assert_near(r.at.normal.z, -1.0, 1e-9);
    }
}

/* Touching at the start is a contact at t = 0 (with EPA's normal on overlap). */
static void test_contact_at_start(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_sphere(0.5), b = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_ccd_result r = gjk_ccd_check_poses(&a, tr(0.9, 0, 0), tr(3, 0, 0), &b, tr(0, 0, 0),
                                           tr(0, 0, 0), 0, NULL, NULL);
    assert_int_equal(r.verdict, GJK_CCD_CONTACT);
    assert_near(r.t, 0.0, 0.0);
    assert_near(r.at.distance, -0.1, 1e-9);
    assert_near(r.at.normal.x, -1.0, 1e-9);
    assert_true(isinf(r.clearance_lower_bound) && r.clearance_lower_bound < 0);
}

/* A budget too small to settle a graze gives UNDECIDED, never CLEAR. */
static void test_budget_undecided(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_sphere(0.1), b = gjk_make_sphere(0.1);
    /* passes B at 1e-7 beyond contact, turning fast (a loose bound) */
    gjk_transform a0 = tr(-1, 0.2 + 1e-7, 0);
    gjk_transform a1 =
        gjk_transform_make(gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), 3), gjk_v3(1, 0.2 + 1e-7, 0));
    gjk_ccd_options o;
    memset(&o, 0, sizeof o);
    o.max_evaluations = 20;
    gjk_ccd_result r = gjk_ccd_check_poses(&a, a0, a1, &b, tr(0, 0, 0), tr(0, 0, 0), 0, NULL, &o);
    assert_int_equal(r.verdict, GJK_CCD_UNDECIDED);
    assert_true(r.t > 0.0 && r.t < 0.5);
    assert_true(r.evaluations <= 21);
    assert_true(r.clearance_lower_bound > 0.0);
    /* with the default budget it is settled */
    r = gjk_ccd_check_poses(&a, a0, a1, &b, tr(0, 0, 0), tr(0, 0, 0), 0, NULL, NULL);
    assert_true(r.verdict == GJK_CCD_CLEAR || r.verdict == GJK_CCD_UNDECIDED);
    if (r.verdict == GJK_CCD_CLEAR)
        assert_le(r.clearance_lower_bound, 1e-7, 1e-12);
}

static void test_refusals(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_sphere(0.1), bad = gjk_make_sphere(-1);
    gjk_transform p = tr(0, 0, 0), nanp = tr(NAN, 0, 0);
    assert_status(gjk_ccd_check_poses(&bad, p, p, &a, p, p, 0, NULL, NULL).status,
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_ccd_check_poses(&a, nanp, p, &a, p, p, 0, NULL, NULL).status,
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_ccd_check_poses(&a, p, p, &a, p, p, -1, NULL, NULL).status,
                  GJK_STATUS_INVALID_INPUT);
    gjk_ccd_options o;
    memset(&o, 0, sizeof o);
    o.time_tolerance = 0.7;
    assert_status(gjk_ccd_check_poses(&a, p, p, &a, tr(1, 0, 0), p, 0, NULL, &o).status,
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_ccd_check(NULL, NULL, NULL).status, GJK_STATUS_INVALID_INPUT);
    assert_string_equal(gjk_ccd_verdict_name(GJK_CCD_UNDECIDED), "undecided");
}

/* ------------------------------------------------------------------ rotating bodies */

static gjk_shape random_shape(void)
{
    gjk_shape s;
    switch ((int)(rnd() * 4)) {
    case 0:
        s = gjk_make_box(
            gjk_v3(rnd_range(0.005, 0.4), rnd_range(0.005, 0.4), rnd_range(0.01, 0.4)));
        break;
    case 1:
        s = gjk_make_capsule(rnd_range(0.01, 0.2), rnd_range(0.05, 0.5));
        break;
    case 2:
        s = gjk_make_cylinder(rnd_range(0.02, 0.3), rnd_range(0.005, 0.3));
        break;
    default:
        s = gjk_make_cone(rnd_range(0.05, 0.3), rnd_range(0.05, 0.3));
        break;
    }
    return s;
}

typedef struct sample_stats {
    int contacts, clears, undecided, missed;
} sample_stats;

/* Checks a verdict against the sampled distances d[0..SAMPLES] (time i / SAMPLES). */
static void check_against_samples(const gjk_ccd_result *r, const double *d, double speed,
                                  double pad, sample_stats *st)
{
    double min = HUGE_VAL;
    int first = -1;
    for (int i = 0; i <= SAMPLES; ++i) {
        min = fmin(min, d[i]);
        if (first < 0 && d[i] <= 0.0)
            first = i;
    }
    assert_status(r->status, GJK_STATUS_SEPARATED);
    if (r->verdict == GJK_CCD_CLEAR) {
        ++st->clears;
        if (first >= 0)
            ++st->missed;
        assert_true(first < 0); /* never clear where sampling finds contact */
        assert_le(r->clearance_lower_bound, min, 1e-12);
        assert_true(r->clearance_lower_bound > 0.0);
        return;
    }
    /* contact or undecided: certified clear before t, so no sample before t is in contact */
    if (first >= 0)
        assert_le(r->t, (double)first / SAMPLES, 1e-12);
    if (r->t > 0.0)
        for (int i = 0; i < SAMPLES && (double)i / SAMPLES < r->t; ++i)
            assert_true(d[i] > 0.0);
    if (r->verdict == GJK_CCD_UNDECIDED) {
        ++st->undecided;
        return;
    }
    ++st->contacts;
    assert_int_equal(r->verdict, GJK_CCD_CONTACT);
    /* in contact within the tolerance after t: the distance at t is at most what the motion
     * bound lets the pair close in that time (at is unpadded) */
    assert_le(r->at.distance - pad, speed * TOL, 1e-9);
}

typedef struct two_poses {
    gjk_transform a0, a1, b0, b1;
} two_poses;

static void test_rotation_vs_sampling(void **state)
{
    (void)state;
    test_seed(23);
    sample_stats st = {0};
    static double d[SAMPLES + 1];
    for (int k = 0; k < 120; ++k) {
        gjk_shape a = random_shape(), b = random_shape();
        double pad = rnd() < 0.3 ? rnd_range(0, 0.05) : 0.0;
        two_poses m;
        m.a0 = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.3, 1.2)));
        m.a1 = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.3, 1.2)));
        m.b0 = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0, 0.3)));
        m.b1 = rnd() < 0.5
                   ? m.b0
                   : gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0, 0.3)));
        gjk_ccd_result r = gjk_ccd_check_poses(&a, m.a0, m.a1, &b, m.b0, m.b1, pad, NULL, NULL);
        if (dist(&a, m.a0, &b, m.b0, pad) <= 0.0) {
            assert_int_equal(r.verdict, GJK_CCD_CONTACT);
            assert_near(r.t, 0.0, 0.0);
            continue;
        }
        for (int i = 0; i <= SAMPLES; ++i) {
            double t = (double)i / SAMPLES;
            d[i] = dist(&a, gjk_pose_interpolate(m.a0, m.a1, t), &b,
                        gjk_pose_interpolate(m.b0, m.b1, t), pad);
        }
        gjk_vec3 o = gjk_v3(0, 0, 0);
        double speed = gjk_pose_motion_bound(m.a0, m.a1, o, gjk_shape_bounding_radius(&a)) +
                       gjk_pose_motion_bound(m.b0, m.b1, o, gjk_shape_bounding_radius(&b));
        check_against_samples(&r, d, speed, pad, &st);
        /* The cheapest certificate: the same verdict, a looser (still certified) bound, no more
         * work. */
        gjk_ccd_options cheap;
        memset(&cheap, 0, sizeof cheap);
        cheap.certify_only = true;
        gjk_ccd_result c = gjk_ccd_check_poses(&a, m.a0, m.a1, &b, m.b0, m.b1, pad, NULL, &cheap);
        sample_stats ignored = {0};
        check_against_samples(&c, d, speed, pad, &ignored);
        assert_int_equal(c.verdict, r.verdict);
        assert_true(c.evaluations <= r.evaluations);
        if (r.verdict == GJK_CCD_CLEAR)
            assert_le(c.clearance_lower_bound, r.clearance_lower_bound, 1e-9);
    }
    print_message("rotating pairs: %d contacts, %d clear, %d undecided, %d missed\n", st.contacts,
                  st.clears, st.undecided, st.missed);
    assert_int_equal(st.missed, 0);
    assert_true(st.contacts > 10 && st.clears > 10);
}

/* ------------------------------------------------------------------ joint chains */

/* A random serial chain of `links` links: revolute, continuous, prismatic and one mimic. */
typedef struct chain {
    gjk_kinematics *k;
    gjk_kinematics_state *s;
    int links, dof;
} chain;

static chain random_chain(int links)
{
    gjk_joint_def j[8];
    static char names[8][16];
    memset(j, 0, sizeof j);
    int active = 0;
    for (int i = 0; i < links - 1; ++i) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        j[i].name = names[i];
        j[i].parent = i;
        j[i].child = i + 1;
        j[i].origin = gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.05, 0.4)));
        j[i].axis = rnd_unit();
        double u = rnd();
        if (i > 0 && u < 0.2) {
            j[i].type = GJK_JOINT_PRISMATIC;
            j[i].lower = -0.3;
            j[i].upper = 0.3;
        } else if (u < 0.3) {
            j[i].type = GJK_JOINT_CONTINUOUS;
        } else {
            j[i].type = GJK_JOINT_REVOLUTE;
            j[i].lower = -3;
            j[i].upper = 3;
        }
        if (i == links - 2 && i > 0 && j[0].type != GJK_JOINT_PRISMATIC && rnd() < 0.5) {
            j[i].type = GJK_JOINT_REVOLUTE; /* mimic of j0 */
            j[i].lower = -10;
            j[i].upper = 10;
            j[i].mimic = "j0";
            j[i].multiplier = rnd_range(-1.5, 1.5);
            j[i].offset = 0.1;
        } else {
            ++active;
        }
    }
    gjk_kinematics_def def = {links, j, links - 1};
    chain c;
    memset(&c, 0, sizeof c);
    assert_status(gjk_kinematics_build(&def, &c.k, NULL), GJK_KINEMATICS_OK);
    assert_status(gjk_kinematics_state_create(c.k, &c.s), GJK_KINEMATICS_OK);
    c.links = links;
    c.dof = gjk_kinematics_dof_count(c.k);
    assert_int_equal(c.dof, active);
    return c;
}

static void chain_free(chain *c)
{
    gjk_kinematics_state_destroy(&c->s);
    gjk_kinematics_destroy(&c->k);
}

/* Random DOF values within the limits. */
static void random_q(const chain *c, double *q, double spread)
{
    for (int d = 0; d < c->dof; ++d) {
        gjk_joint_info info;
        gjk_kinematics_joint_info(c->k, gjk_kinematics_dof_joint(c->k, d), &info);
        double lo = fmax(info.lower, -spread), hi = fmin(info.upper, spread);
        q[d] = rnd_range(lo, hi);
    }
}

static void chain_poses(chain *c, const double *q0, const double *q1, double t, gjk_transform *out)
{
    double q[8];
    for (int d = 0; d < c->dof; ++d)
        q[d] = q0[d] + t * (q1[d] - q0[d]);
    assert_status(gjk_kinematics_forward(c->k, q, c->dof, gjk_transform_identity(), c->s, NULL),
                  GJK_KINEMATICS_OK);
    memcpy(out, gjk_kinematics_link_poses(c->s), (size_t)c->links * sizeof *out);
}

/* The joint-chain bound against sampled displacements: for random chains, segments and
 * points within a ball of the last link, no sampled step moves a point faster than the bound,
 * and no point gets farther from its start than bound * t. */
static void test_kinematic_bound_vs_sampling(void **state)
{
    (void)state;
    test_seed(5);
    double worst = 0.0; /* largest observed speed / bound */
    for (int k = 0; k < 60; ++k) {
        chain c = random_chain(2 + (int)(rnd() * 6));
        double q0[8], q1[8];
        random_q(&c, q0, 3);
        random_q(&c, q1, 3);
        gjk_transform p0[8], p1[8], pt[8];
        chain_poses(&c, q0, q1, 0.0, p0);
        chain_poses(&c, q0, q1, 1.0, p1);
        int link = 1 + (int)(rnd() * (c.links - 1));
        gjk_vec3 center = gjk_scale(rnd_unit(), rnd_range(0, 0.3));
        double radius = rnd_range(0, 0.2);
        double bound;
        assert_status(
            gjk_kinematics_motion_bound(c.k, p0, p1, q0, q1, link, center, radius, &bound),
            GJK_KINEMATICS_OK);
        gjk_vec3 pts[6];
        for (int i = 0; i < 6; ++i)
            pts[i] = gjk_madd(center, radius, rnd_unit());
        gjk_vec3 start[6], prev[6];
        for (int i = 0; i < 6; ++i)
            start[i] = prev[i] = gjk_transform_point(p0[link], pts[i]);
        const int n = 2000;
        for (int s = 1; s <= n; ++s) {
            double t = (double)s / n;
            chain_poses(&c, q0, q1, t, pt);
            for (int i = 0; i < 6; ++i) {
                gjk_vec3 x = gjk_transform_point(pt[link], pts[i]);
                double step = gjk_distance_between(x, prev[i]) * n;
                assert_le(step, bound, 1e-9);
                assert_le(gjk_distance_between(x, start[i]), bound * t, 1e-9);
                if (bound > 0)
                    worst = fmax(worst, step / bound);
                prev[i] = x;
            }
        }
        chain_free(&c);
    }
    print_message("joint bound: largest sampled speed / bound = %.3f\n", worst);
    assert_true(worst > 0.2); /* a bound, and not a vacuous one */
}

/* One revolute joint, a point at distance r from its axis: the bound is r |dq|, exactly. */
static void test_kinematic_bound_single_joint(void **state)
{
    (void)state;
    gjk_joint_def j;
    memset(&j, 0, sizeof j);
    j.name = "j";
    j.type = GJK_JOINT_REVOLUTE;
    j.parent = 0;
    j.child = 1;
    j.origin = tr(0, 0, 0.5);
    j.axis = gjk_v3(0, 0, 1);
    j.lower = -3;
    j.upper = 3;
    gjk_kinematics_def def = {2, &j, 1};
    gjk_kinematics *k;
    gjk_kinematics_state *s;
    assert_status(gjk_kinematics_build(&def, &k, NULL), GJK_KINEMATICS_OK);
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    double q0 = -0.4, q1 = 1.1;
    gjk_transform p0[2], p1[2];
    gjk_kinematics_forward(k, &q0, 1, gjk_transform_identity(), s, NULL);
    memcpy(p0, gjk_kinematics_link_poses(s), sizeof p0);
    gjk_kinematics_forward(k, &q1, 1, gjk_transform_identity(), s, NULL);
    memcpy(p1, gjk_kinematics_link_poses(s), sizeof p1);
    double b;
    assert_status(gjk_kinematics_motion_bound(k, p0, p1, &q0, &q1, 1, gjk_v3(0.3, 0.4, 2), 0, &b),
                  GJK_KINEMATICS_OK);
    assert_near(b, 0.5 * 1.5, 1e-12);
    assert_status(gjk_kinematics_motion_bound(k, p0, p1, &q0, &q1, 0, gjk_v3(1, 1, 1), 0.1, &b),
                  GJK_KINEMATICS_OK);
    assert_near(b, 0.0, 0.0); /* the root does not move */
    assert_status(gjk_kinematics_motion_bound(k, p0, p1, &q0, &q1, 2, gjk_v3(0, 0, 0), 0, &b),
                  GJK_STATUS_INVALID_INPUT);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
}

/* A chain's last link against a static obstacle: continuous in joint space against sampled
 * forward kinematics. */
typedef struct chain_motion {
    chain *c;
    const double *q0, *q1;
    int link;
    gjk_transform part; /* part pose in the link frame */
    gjk_transform obstacle;
} chain_motion;

static void chain_motion_at(void *user, double t, gjk_transform *pa, gjk_transform *pb)
{
    chain_motion *m = user;
    gjk_transform poses[8];
    chain_poses(m->c, m->q0, m->q1, t, poses);
    *pa = gjk_transform_mul(poses[m->link], m->part);
    *pb = m->obstacle;
}

static void test_chain_vs_sampling(void **state)
{
    (void)state;
    test_seed(31);
    sample_stats st = {0};
    static double d[SAMPLES + 1];
    for (int k = 0; k < 60; ++k) {
        chain c = random_chain(3 + (int)(rnd() * 4));
        double q0[8], q1[8];
        random_q(&c, q0, 2);
        random_q(&c, q1, 2);
        gjk_shape a = random_shape(), b = random_shape();
        chain_motion m = {&c,
                          q0,
                          q1,
                          c.links - 1,
                          gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), 0.1)),
                          gjk_transform_make(rnd_quat(), gjk_scale(rnd_unit(), rnd_range(0.2, 1)))};
        gjk_transform p0[8], p1[8];
        chain_poses(&c, q0, q1, 0.0, p0);
        chain_poses(&c, q0, q1, 1.0, p1);
        double speed;
        assert_status(gjk_kinematics_motion_bound(c.k, p0, p1, q0, q1, m.link, m.part.p,
                                                  gjk_shape_bounding_radius(&a), &speed),
                      GJK_KINEMATICS_OK);
        gjk_ccd_pair pair;
        memset(&pair, 0, sizeof pair);
        pair.shape_a = &a;
        pair.shape_b = &b;
        pair.poses = chain_motion_at;
        pair.user = &m;
        pair.speed = speed;
        gjk_ccd_result r = gjk_ccd_check(&pair, NULL, NULL);
        for (int i = 0; i <= SAMPLES; ++i) {
            gjk_transform pa, pb;
            chain_motion_at(&m, (double)i / SAMPLES, &pa, &pb);
            d[i] = dist(&a, pa, &b, pb, 0.0);
        }
        if (d[0] <= 0.0) {
            assert_int_equal(r.verdict, GJK_CCD_CONTACT);
            assert_near(r.t, 0.0, 0.0);
        } else {
            check_against_samples(&r, d, speed, 0.0, &st);
        }
        chain_free(&c);
    }
    print_message("chains: %d contacts, %d clear, %d undecided, %d missed\n", st.contacts,
                  st.clears, st.undecided, st.missed);
    assert_int_equal(st.missed, 0);
    assert_true(st.contacts > 5 && st.clears > 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interpolation),
        cmocka_unit_test(test_pose_bounds_vs_sampling),
        cmocka_unit_test(test_thin_wall_translation),
        cmocka_unit_test(test_thin_wall_rotation),
        cmocka_unit_test(test_translation_balls),
        cmocka_unit_test(test_translation_oblique_face),
        cmocka_unit_test(test_contact_at_start),
        cmocka_unit_test(test_budget_undecided),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_rotation_vs_sampling),
        cmocka_unit_test(test_kinematic_bound_vs_sampling),
        cmocka_unit_test(test_kinematic_bound_single_joint),
        cmocka_unit_test(test_chain_vs_sampling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
