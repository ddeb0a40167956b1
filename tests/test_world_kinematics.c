/* test_world_kinematics.c — robots with joints in the world: joint positions drive link
 * poses (checked against an FK written here, independently of core/src/kinematics.c),
 * JointState-style subsets, limits refused naming the joint, joint-space trajectories equal
 * to link-pose trajectories bit for bit, gradients of the signed distance against central
 * finite differences of the world's own answers, the subgradient flag, and thread-count
 * independence with gradients. */
#include "test_world_util.h"

#include "gjk/hull.h"

/* ------------------------------------------------------------------ the arm
 * links: 0 base, 1 upper, 2 fore, 3 slider, 4 wrist, 5 finger
 * joints (def order; DOF order j1 j2 j3 j4):
 *   j1 revolute   base -> upper    origin (0, 0, 0.1)             axis z      [-2.5, 2.5]
 *   j2 revolute   upper -> fore    origin (0, 0, 0.35) rpy (0.1, 0, 0.2) axis y [-2, 2]
 *   j3 prismatic  fore -> slider   origin (0.3, 0, 0)             axis x      [0.05, 0.25]
 *   j4 continuous slider -> wrist  origin (0.1, 0, 0)             axis (0, 0.6, 0.8)
 *   j5 revolute   wrist -> finger  origin (0.12, 0, 0) rpy (0, 0.3, 0) axis x, mimic of j1:
 *                 q5 = -0.5 q1 + 0.1                              [-3, 3]       */
#define ARM_LINKS 6
#define ARM_JOINTS 5
#define ARM_DOF 4

typedef struct ref_joint {
    gjk_joint_type type;
    int parent, child;
    double xyz[3], rpy[3], axis[3];
    double lower, upper;
    int mimic; /* joint index or -1 */
    double mult, off;
} ref_joint;

static const ref_joint arm_joints[ARM_JOINTS] = {
    {GJK_JOINT_REVOLUTE, 0, 1, {0, 0, 0.1}, {0, 0, 0}, {0, 0, 1}, -2.5, 2.5, -1, 0, 0},
    {GJK_JOINT_REVOLUTE, 1, 2, {0, 0, 0.35}, {0.1, 0, 0.2}, {0, 1, 0}, -2, 2, -1, 0, 0},
    {GJK_JOINT_PRISMATIC, 2, 3, {0.3, 0, 0}, {0, 0, 0}, {1, 0, 0}, 0.05, 0.25, -1, 0, 0},
    {GJK_JOINT_CONTINUOUS, 3, 4, {0.1, 0, 0}, {0, 0, 0}, {0, 0.6, 0.8}, 0, 0, -1, 0, 0},
    {GJK_JOINT_REVOLUTE, 4, 5, {0.12, 0, 0}, {0, 0.3, 0}, {1, 0, 0}, -3, 3, 0, -0.5, 0.1},
};
static const char *arm_joint_names[ARM_JOINTS] = {"j1", "j2", "j3", "j4", "j5"};
static const int arm_dof_joint[ARM_DOF] = {0, 1, 2, 3};

static gjk_joint_def jdefs[ARM_JOINTS];
/* The random hulls of a test, made once so that every world of the test has the same
 * geometry (setup_hulls / teardown_hulls). */
static const gjk_polytope *slider_hull, *rock_hull;

static int setup_hulls(void **state)
{
    (void)state;
    test_seed(77);
    slider_hull = tw_hull(24, 0.06);
    rock_hull = tw_hull(40, 0.08);
    return 0;
}

static int teardown_hulls(void **state)
{
    (void)state;
    tw_free_polytopes();
    slider_hull = rock_hull = NULL;
    return 0;
}
static gjk_part_def arm_parts[ARM_LINKS];
static gjk_link_def arm_links[ARM_LINKS];
static char arm_link_names[2][ARM_LINKS][16];

static gjk_robot_def arm_def(const char *name, int variant, bool joints)
{
    for (int j = 0; j < ARM_JOINTS; ++j) {
        const ref_joint *r = &arm_joints[j];
        gjk_joint_def *d = &jdefs[j];
        memset(d, 0, sizeof *d);
        d->name = arm_joint_names[j];
        d->type = r->type;
        d->parent = r->parent;
        d->child = r->child;
        d->origin = gjk_transform_make(gjk_quat_from_rpy(r->rpy[0], r->rpy[1], r->rpy[2]),
                                       gjk_v3(r->xyz[0], r->xyz[1], r->xyz[2]));
        d->axis = gjk_v3(r->axis[0], r->axis[1], r->axis[2]);
        d->lower = r->lower;
        d->upper = r->upper;
        d->mimic = r->mimic >= 0 ? arm_joint_names[r->mimic] : NULL;
        d->multiplier = r->mult;
        d->offset = r->off;
    }
    gjk_shape shapes[ARM_LINKS] = {
        gjk_make_box(gjk_v3(0.12, 0.12, 0.05)),
        gjk_make_capsule(0.05, 0.15),
        gjk_make_box(gjk_v3(0.15, 0.04, 0.04)),
        gjk_make_polytope(slider_hull),
        gjk_make_sphere(0.05),
        gjk_make_cylinder(0.02, 0.06),
    };
    gjk_transform offsets[ARM_LINKS] = {
        tw_at(0, 0, 0),    tw_at(0, 0, 0.17), tw_at(0.15, 0, 0),
        tw_at(0.03, 0, 0), tw_at(0.02, 0, 0), tw_at(0.05, 0, 0),
    };
    offsets[5].q = gjk_quat_from_rpy(0, 1.5707963267948966, 0);
    for (int l = 0; l < ARM_LINKS; ++l) {
        memset(&arm_parts[l], 0, sizeof arm_parts[l]);
        arm_parts[l].shape = shapes[l];
        arm_parts[l].pose = offsets[l];
        memset(&arm_links[l], 0, sizeof arm_links[l]);
        snprintf(arm_link_names[variant][l], 16, "link%d", l);
        arm_links[l].name = arm_link_names[variant][l];
        arm_links[l].parts = &arm_parts[l];
        arm_links[l].part_count = 1;
    }
    static const gjk_link_name_pair adjacent[5] = {{"link0", "link1"},
                                                   {"link1", "link2"},
                                                   {"link2", "link3"},
                                                   {"link3", "link4"},
                                                   {"link4", "link5"}};
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = name;
    def.links = arm_links;
    def.link_count = ARM_LINKS;
    def.self_collision = true;
    def.disabled_pairs = adjacent;
    def.disabled_pair_count = 5;
    if (joints) {
        def.joints = jdefs;
        def.joint_count = ARM_JOINTS;
    }
    return def;
}

/* ------------------------------------------------------------------ independent FK
 * 3x3 matrices from Rodrigues' formula and rpy as Rz Ry Rx, in long double. */
typedef long double ld;
typedef struct rpose {
    ld r[3][3];
    ld p[3];
} rpose;

static rpose r_identity(void)
{
    rpose a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < 3; ++i)
        a.r[i][i] = 1;
    return a;
}

static rpose r_mul(const rpose *a, const rpose *b)
{
    rpose c;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            c.r[i][j] = 0;
            for (int k = 0; k < 3; ++k)
                c.r[i][j] += a->r[i][k] * b->r[k][j];
        }
        c.p[i] = a->p[i];
        for (int k = 0; k < 3; ++k)
            c.p[i] += a->r[i][k] * b->p[k];
    }
    return c;
}

static rpose r_axis_angle(const double axis[3], ld t, ld slide)
{
    ld n = sqrtl((ld)axis[0] * axis[0] + (ld)axis[1] * axis[1] + (ld)axis[2] * axis[2]);
    ld u[3] = {axis[0] / n, axis[1] / n, axis[2] / n};
    ld c = cosl(t), s = sinl(t), v = 1 - c;
    rpose a = r_identity();
    ld k[3][3] = {{0, -u[2], u[1]}, {u[2], 0, -u[0]}, {-u[1], u[0], 0}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            a.r[i][j] = (i == j ? c : 0) + s * k[i][j] + v * u[i] * u[j];
    for (int i = 0; i < 3; ++i)
        a.p[i] = slide * u[i];
    return a;
}

static rpose r_origin(const ref_joint *j)
{
    const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    rpose rz = r_axis_angle(z, j->rpy[2], 0), ry = r_axis_angle(y, j->rpy[1], 0),
          rx = r_axis_angle(x, j->rpy[0], 0);
    rpose a = r_mul(&rz, &ry);
    a = r_mul(&a, &rx);
    for (int i = 0; i < 3; ++i)
        a.p[i] = j->xyz[i];
    return a;
}

static rpose r_from_transform(gjk_transform t)
{
    rpose a = r_identity();
    gjk_vec3 e[3] = {gjk_v3(1, 0, 0), gjk_v3(0, 1, 0), gjk_v3(0, 0, 1)};
    for (int j = 0; j < 3; ++j) {
        gjk_vec3 c = gjk_quat_rotate(gjk_quat_normalize(t.q), e[j]);
        a.r[0][j] = c.x;
        a.r[1][j] = c.y;
        a.r[2][j] = c.z;
    }
    a.p[0] = t.p.x;
    a.p[1] = t.p.y;
    a.p[2] = t.p.z;
    return a;
}

/* Link poses for DOF values q (DOF order) and a base pose; joints are listed parent first. */
static void ref_fk(const double *q, gjk_transform base, rpose out[ARM_LINKS])
{
    ld pos[ARM_JOINTS];
    for (int d = 0; d < ARM_DOF; ++d)
        pos[arm_dof_joint[d]] = q[d];
    for (int j = 0; j < ARM_JOINTS; ++j)
        if (arm_joints[j].mimic >= 0)
            pos[j] = arm_joints[j].mult * pos[arm_joints[j].mimic] + arm_joints[j].off;
    out[0] = r_from_transform(base);
    for (int j = 0; j < ARM_JOINTS; ++j) {
        const ref_joint *r = &arm_joints[j];
        rpose o = r_origin(r);
        bool slide = r->type == GJK_JOINT_PRISMATIC;
        rpose m = r_axis_angle(r->axis, slide ? 0 : pos[j], slide ? pos[j] : 0);
        rpose f = r_mul(&out[r->parent], &o);
        out[r->child] = r_mul(&f, &m);
    }
}

/* The rpose as a gjk_transform (quaternion by Shepperd's method). */
static gjk_transform r_to_transform(const rpose *a)
{
    double m[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            m[i][j] = (double)a->r[i][j];
    double tr = m[0][0] + m[1][1] + m[2][2];
    gjk_quat q;
    if (tr > 0) {
        double s = 2 * sqrt(tr + 1);
        q = gjk_quat_make(s / 4, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s,
                          (m[1][0] - m[0][1]) / s);
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = 2 * sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
        q = gjk_quat_make((m[2][1] - m[1][2]) / s, s / 4, (m[0][1] + m[1][0]) / s,
                          (m[0][2] + m[2][0]) / s);
    } else if (m[1][1] > m[2][2]) {
        double s = 2 * sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
        q = gjk_quat_make((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, s / 4,
                          (m[1][2] + m[2][1]) / s);
    } else {
        double s = 2 * sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
        q = gjk_quat_make((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s,
                          s / 4);
    }
    return gjk_transform_make(gjk_quat_normalize(q),
                              gjk_v3((double)a->p[0], (double)a->p[1], (double)a->p[2]));
}

static void assert_pose_near(gjk_transform got, const rpose *want, double tol)
{
    rpose g = r_from_transform(got);
    for (int i = 0; i < 3; ++i) {
        assert_true(fabsl(g.p[i] - want->p[i]) <= tol);
        for (int j = 0; j < 3; ++j)
            assert_true(fabsl(g.r[i][j] - want->r[i][j]) <= tol);
    }
}

static void random_q(double *q, double margin)
{
    for (int d = 0; d < ARM_DOF; ++d) {
        const ref_joint *r = &arm_joints[arm_dof_joint[d]];
        if (r->type == GJK_JOINT_CONTINUOUS)
            q[d] = rnd_range(-6, 6);
        else
            q[d] = rnd_range(r->lower + margin, r->upper - margin);
    }
}

/* ------------------------------------------------------------------ scene */

static gjk_part_def obstacle_parts[8];

/* Obstacles around the arm's workspace: a table under it, a post, a hull, a ball. */
static void add_obstacles(gjk_world *w)
{
    gjk_shape shapes[4] = {gjk_make_box(gjk_v3(0.6, 0.6, 0.02)),
                           gjk_make_box(gjk_v3(0.04, 0.04, 0.4)), gjk_make_polytope(rock_hull),
                           gjk_make_sphere(0.07)};
    gjk_transform poses[4] = {tw_at(0, 0, -0.08), tw_at(0.35, 0.2, 0.3), tw_at(-0.2, 0.35, 0.45),
                              tw_at(0.3, -0.3, 0.5)};
    const char *names[4] = {"table", "post", "rock", "ball"};
    for (int i = 0; i < 4; ++i) {
        memset(&obstacle_parts[i], 0, sizeof obstacle_parts[i]);
        obstacle_parts[i].shape = shapes[i];
        obstacle_parts[i].pose = gjk_transform_identity();
        gjk_obstacle_def o;
        memset(&o, 0, sizeof o);
        o.name = names[i];
        o.parts = &obstacle_parts[i];
        o.part_count = 1;
        o.pose = poses[i];
        assert_ok(gjk_world_put_obstacle(w, &o, NULL));
    }
}

static gjk_world *jointed_world(int32_t *arm)
{
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    gjk_robot_def def = arm_def("arm", 0, true);
    assert_ok(gjk_world_put_robot(w, &def, arm));
    add_obstacles(w);
    return w;
}

static gjk_world *link_pose_world(int32_t *arm)
{
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    gjk_robot_def def = arm_def("arm", 0, false);
    assert_ok(gjk_world_put_robot(w, &def, arm));
    add_obstacles(w);
    return w;
}

static gjk_world_query_options all_within(double d, bool gradients)
{
    gjk_world_query_options o = gjk_world_default_query_options();
    o.has_max_distance = true;
    o.max_distance = d;
    o.mode = GJK_WORLD_MODE_ALL_WITHIN;
    o.per_part = true;
    o.gradients = gradients;
    o.max_pairs = 1000;
    return o;
}

/* ------------------------------------------------------------------ tests */

static void test_model_and_initial_state(void **state)
{
    (void)state;
    int32_t arm = 0;
    gjk_world *w = jointed_world(&arm);
    gjk_robot_info info;
    assert_ok(gjk_world_robot_info(w, arm, &info));
    assert_int_equal(info.joint_count, ARM_JOINTS);
    assert_int_equal(info.dof_count, ARM_DOF);
    const gjk_kinematics *k = gjk_world_robot_kinematics(w, arm);
    assert_non_null(k);
    const char *const *names = gjk_kinematics_dof_names(k);
    for (int d = 0; d < ARM_DOF; ++d)
        assert_string_equal(names[d], arm_joint_names[arm_dof_joint[d]]);
    /* initial positions: zero clamped into the limits (j3's lower limit is 0.05) */
    double q[ARM_DOF];
    gjk_transform base;
    assert_int_equal(gjk_world_joint_positions(w, arm, q, ARM_DOF, &base), ARM_DOF);
    double want[ARM_DOF] = {0, 0, 0.05, 0};
    for (int d = 0; d < ARM_DOF; ++d)
        assert_true(q[d] == want[d]);
    rpose ref[ARM_LINKS];
    ref_fk(want, gjk_transform_identity(), ref);
    for (int l = 0; l < ARM_LINKS; ++l) {
        gjk_link_info li;
        assert_ok(gjk_world_link_info(w, arm, l, &li));
        assert_pose_near(li.pose, &ref[l], 1e-13);
    }
    /* a robot with joints takes no link poses, and no link-pose trajectory */
    gjk_transform poses[ARM_LINKS];
    for (int l = 0; l < ARM_LINKS; ++l)
        poses[l] = gjk_transform_identity();
    assert_status(gjk_world_set_link_poses(w, arm, poses, ARM_LINKS), GJK_STATUS_INVALID_INPUT);
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = arm;
    t.waypoint_count = 1;
    t.link_count = ARM_LINKS;
    t.link_poses = poses;
    gjk_world_result *res = NULL;
    assert_status(gjk_world_query_trajectory(w, &t, NULL, &res), GJK_STATUS_INVALID_INPUT);
    assert_null(res);
    /* a link-pose robot has no kinematics and takes no joint positions */
    int32_t plain = 0;
    gjk_robot_def pd = arm_def("plain", 1, false);
    assert_ok(gjk_world_put_robot(w, &pd, &plain));
    assert_null(gjk_world_robot_kinematics(w, plain));
    assert_int_equal(gjk_world_joint_positions(w, plain, q, ARM_DOF, NULL), 0);
    assert_status(gjk_world_set_joint_positions(w, plain, NULL, q, 0, NULL, NULL),
                  GJK_STATUS_INVALID_INPUT);
    assert_int_equal(gjk_world_joint_positions(w, 999, q, ARM_DOF, NULL), -1);

    /* initial positions and base pose given; joints with link poses refused; a bad tree is
     * refused with the kinematics builder's reason */
    gjk_robot_def d2 = arm_def("arm2", 1, true);
    double init[ARM_DOF] = {0.3, -0.4, 0.2, 1.0};
    gjk_transform b2 = gjk_transform_make(gjk_quat_from_rpy(0.1, 0.2, 0.3), gjk_v3(1, 2, 3));
    d2.initial_positions = init;
    d2.base_pose = &b2;
    int32_t arm2 = 0;
    assert_ok(gjk_world_put_robot(w, &d2, &arm2));
    assert_int_equal(gjk_world_joint_positions(w, arm2, q, ARM_DOF, &base), ARM_DOF);
    for (int d = 0; d < ARM_DOF; ++d)
        assert_true(q[d] == init[d]);
    ref_fk(init, b2, ref);
    for (int l = 0; l < ARM_LINKS; ++l) {
        gjk_link_info li;
        assert_ok(gjk_world_link_info(w, arm2, l, &li));
        assert_pose_near(li.pose, &ref[l], 1e-13);
    }
    uint64_t rev = gjk_world_revision(w);
    gjk_robot_def d3 = arm_def("arm3", 1, true);
    d3.link_poses = poses;
    assert_status(gjk_world_put_robot(w, &d3, NULL), GJK_STATUS_INVALID_INPUT);
    d3 = arm_def("arm3", 1, true);
    gjk_kinematics_error err;
    d3.joint_error = &err;
    jdefs[2].lower = 1.0; /* lower > upper */
    assert_status(gjk_world_put_robot(w, &d3, NULL), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(err.code, GJK_KIN_BAD_LIMITS);
    assert_int_equal(err.joint, 2);
    d3 = arm_def("arm3", 1, true);
    d3.joint_error = &err;
    double outside[ARM_DOF] = {0, 0, 0.3, 0}; /* j3 above 0.25 */
    d3.initial_positions = outside;
    assert_status(gjk_world_put_robot(w, &d3, NULL), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(err.joint, 2);
    assert_true(gjk_world_revision(w) == rev);
    gjk_world_destroy(&w);
}

static void test_fk_matches_reference(void **state)
{
    (void)state;
    test_seed(201);
    int32_t arm = 0;
    gjk_world *w = jointed_world(&arm);
    for (int round = 0; round < 200; ++round) {
        double q[ARM_DOF];
        random_q(q, 0.0);
        gjk_transform base = round % 2 ? tw_pose(2.0) : gjk_transform_identity();
        uint64_t pr = gjk_world_pose_revision(w);
        int32_t bad = 5;
        assert_ok(gjk_world_set_joint_positions(w, arm, NULL, q, ARM_DOF, &base, &bad));
        assert_int_equal(bad, -1);
        assert_true(gjk_world_pose_revision(w) == pr + 1);
        rpose ref[ARM_LINKS];
        ref_fk(q, base, ref);
        for (int l = 0; l < ARM_LINKS; ++l) {
            gjk_link_info li;
            assert_ok(gjk_world_link_info(w, arm, l, &li));
            assert_pose_near(li.pose, &ref[l], 1e-12);
        }
    }
    gjk_world_destroy(&w);
}

/* The jointed world answers like the same geometry driven by link poses from the FK above:
 * the same pairs, distances within what rounding of the link poses can move them. */
static void test_joint_world_equals_link_pose_world(void **state)
{
    (void)state;
    test_seed(202);
    int32_t arm = 0, plain = 0;
    gjk_world *wj = jointed_world(&arm);
    gjk_world *wl = link_pose_world(&plain);
    int compared = 0;
    for (int round = 0; round < 100; ++round) {
        double q[ARM_DOF];
        random_q(q, 0.0);
        gjk_transform base = tw_at(rnd_range(-0.05, 0.05), rnd_range(-0.05, 0.05), 0);
        assert_ok(gjk_world_set_joint_positions(wj, arm, NULL, q, ARM_DOF, &base, NULL));
        rpose ref[ARM_LINKS];
        ref_fk(q, base, ref);
        gjk_transform poses[ARM_LINKS];
        for (int l = 0; l < ARM_LINKS; ++l)
            poses[l] = r_to_transform(&ref[l]);
        assert_ok(gjk_world_set_link_poses(wl, plain, poses, ARM_LINKS));
        gjk_world_query_options o = all_within(0.3, false);
        gjk_world_result *rj = NULL, *rl = NULL;
        assert_ok(gjk_world_query_state(wj, &o, &rj));
        assert_ok(gjk_world_query_state(wl, &o, &rl));
        const gjk_world_waypoint *a = &rj->waypoints[0], *b = &rl->waypoints[0];
        /* pairs near the cutoff may fall either side: compare those well inside it */
        for (int i = 0; i < a->pair_count; ++i) {
            const gjk_world_pair *p = &a->pairs[i];
            if (p->distance > 0.29)
                continue;
            bool found = false;
            for (int k = 0; k < b->pair_count && !found; ++k) {
                const gjk_world_pair *r = &b->pairs[k];
                if (r->a.body.link == p->a.body.link && r->b.body.kind == p->b.body.kind &&
                    r->b.body.object ==
                        (p->b.body.kind == GJK_BODY_LINK ? plain : p->b.body.object) &&
                    r->b.body.link == p->b.body.link) {
                    found = true;
                    assert_near(p->distance, r->distance, 1e-9);
                    ++compared;
                }
            }
            assert_true(found);
        }
        assert_true(a->pair_count == 0 || a->pairs[0].gradient_a == NULL);
        gjk_world_result_destroy(&rj);
        gjk_world_result_destroy(&rl);
    }
    assert_true(compared > 200);
    gjk_world_destroy(&wj);
    gjk_world_destroy(&wl);
}

static void test_subset_and_limits(void **state)
{
    (void)state;
    int32_t arm = 0;
    gjk_world *w = jointed_world(&arm);
    double full[ARM_DOF] = {0.5, -0.5, 0.1, 2.0};
    assert_ok(gjk_world_set_joint_positions(w, arm, NULL, full, ARM_DOF, NULL, NULL));
    /* a JointState naming j3 and j1 (any order; j5 is a mimic, j2 and j4 keep their values) */
    const gjk_kinematics *k = gjk_world_robot_kinematics(w, arm);
    const char *names[3] = {"j3", "j1", "j5"};
    int32_t dofs[3];
    int32_t bad = 9;
    assert_ok(gjk_kinematics_map_dofs(k, names, 3, dofs, &bad));
    assert_int_equal(dofs[0], 2);
    assert_int_equal(dofs[1], 0);
    assert_int_equal(dofs[2], -1);
    double values[2] = {0.2, -1.0};
    assert_ok(gjk_world_set_joint_positions(w, arm, dofs, values, 2, NULL, &bad));
    double q[ARM_DOF];
    gjk_world_joint_positions(w, arm, q, ARM_DOF, NULL);
    double want[ARM_DOF] = {-1.0, -0.5, 0.2, 2.0};
    for (int d = 0; d < ARM_DOF; ++d)
        assert_true(q[d] == want[d]);
    rpose ref[ARM_LINKS];
    ref_fk(want, gjk_transform_identity(), ref);
    for (int l = 0; l < ARM_LINKS; ++l) {
        gjk_link_info li;
        assert_ok(gjk_world_link_info(w, arm, l, &li));
        assert_pose_near(li.pose, &ref[l], 1e-12);
    }

    /* refusals leave the world as it was; a value out of its limits names the joint */
    uint64_t pr = gjk_world_pose_revision(w);
    int32_t d3[1] = {2};
    double over[1] = {0.26};
    assert_status(gjk_world_set_joint_positions(w, arm, d3, over, 1, NULL, &bad),
                  GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, 2);
    assert_string_equal(arm_joint_names[bad], "j3");
    double within_tol[1] = {0.25 + 1e-13}; /* the limit tolerance admits rounding */
    assert_ok(gjk_world_set_joint_positions(w, arm, d3, within_tol, 1, NULL, &bad));
    pr = gjk_world_pose_revision(w);
    double nan_full[ARM_DOF] = {0, (double)NAN, 0.1, 0};
    assert_status(gjk_world_set_joint_positions(w, arm, NULL, nan_full, ARM_DOF, NULL, &bad),
                  GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, 1);
    double inf_cont[ARM_DOF] = {0, 0, 0.1, (double)INFINITY}; /* continuous: any finite value */
    assert_status(gjk_world_set_joint_positions(w, arm, NULL, inf_cont, ARM_DOF, NULL, &bad),
                  GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, 3);
    int32_t twice[2] = {0, 0};
    assert_status(gjk_world_set_joint_positions(w, arm, twice, values, 2, NULL, &bad),
                  GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, -1);
    int32_t out_of_range[1] = {4};
    assert_status(gjk_world_set_joint_positions(w, arm, out_of_range, values, 1, NULL, &bad),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_world_set_joint_positions(w, arm, NULL, full, ARM_DOF - 1, NULL, &bad),
                  GJK_STATUS_INVALID_INPUT);
    gjk_transform bad_base = gjk_transform_make(gjk_quat_make(2, 0, 0, 0), gjk_v3(0, 0, 0));
    assert_status(gjk_world_set_joint_positions(w, arm, NULL, full, ARM_DOF, &bad_base, &bad),
                  GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, -1);
    assert_status(gjk_world_set_joint_positions(w, 999, NULL, full, ARM_DOF, NULL, &bad),
                  GJK_STATUS_NOT_FOUND);
    assert_true(gjk_world_pose_revision(w) == pr);
    gjk_world_joint_positions(w, arm, q, ARM_DOF, NULL);
    assert_true(q[2] == 0.25 + 1e-13 && q[0] == -1.0);
    /* a base pose alone moves the robot */
    gjk_transform base = tw_at(0.5, 0, 0);
    /* a full vector needs its DOF count; an empty subset with a base pose is fine */
    assert_status(gjk_world_set_joint_positions(w, arm, NULL, NULL, 0, &base, NULL),
                  GJK_STATUS_INVALID_INPUT);
    assert_ok(gjk_world_set_joint_positions(w, arm, d3, NULL, 0, &base, NULL));
    gjk_link_info li;
    assert_ok(gjk_world_link_info(w, arm, 0, &li));
    assert_true(li.pose.p.x == 0.5);
    gjk_world_destroy(&w);
}

/* Waypoints as joint vectors give bit for bit the answer of the same waypoints as the link
 * poses gjk_kinematics_forward computes (on the world's own model). */
static void compare_results(const gjk_world_result *a, const gjk_world_result *b, bool grads)
{
    assert_int_equal(a->waypoint_count, b->waypoint_count);
    assert_true(a->min_distance == b->min_distance);
    assert_int_equal(a->min_waypoint, b->min_waypoint);
    assert_int_equal(a->first_collision, b->first_collision);
    for (int w = 0; w < a->waypoint_count; ++w) {
        const gjk_world_waypoint *x = &a->waypoints[w], *y = &b->waypoints[w];
        assert_int_equal(x->pair_count, y->pair_count);
        assert_true(x->min_distance == y->min_distance ||
                    (isnan(x->min_distance) && isnan(y->min_distance)));
        assert_memory_equal(&x->counters, &y->counters, sizeof x->counters);
        for (int i = 0; i < x->pair_count; ++i) {
            const gjk_world_pair *p = &x->pairs[i], *q = &y->pairs[i];
            assert_true(p->distance == q->distance);
            assert_memory_equal(&p->normal, &q->normal, sizeof p->normal);
            assert_memory_equal(&p->a.point, &q->a.point, sizeof p->a.point);
            assert_memory_equal(&p->b.point, &q->b.point, sizeof p->b.point);
            assert_memory_equal(&p->a.local_point, &q->a.local_point, sizeof p->a.local_point);
            assert_int_equal(p->a.body.link, q->a.body.link);
            assert_int_equal(p->b.body.kind, q->b.body.kind);
            assert_int_equal(p->b.body.link, q->b.body.link);
            assert_int_equal(p->a.part, q->a.part);
            assert_int_equal(p->b.part, q->b.part);
            assert_int_equal(p->status, q->status);
            assert_int_equal(p->iterations, q->iterations);
            assert_int_equal(p->epa_iterations, q->epa_iterations);
            if (grads) {
                assert_int_equal(p->gradient_a_count, q->gradient_a_count);
                assert_int_equal(p->gradient_b_count, q->gradient_b_count);
                assert_int_equal(p->subgradient, q->subgradient);
                if (p->gradient_a_count)
                    assert_memory_equal(p->gradient_a, q->gradient_a,
                                        (size_t)p->gradient_a_count * sizeof(double));
                if (p->gradient_b_count)
                    assert_memory_equal(p->gradient_b, q->gradient_b,
                                        (size_t)p->gradient_b_count * sizeof(double));
            }
        }
    }
}

#define TRAJ_WAYPOINTS 29 /* not a multiple of the block size */

static void smooth_path(double q[TRAJ_WAYPOINTS][ARM_DOF])
{
    double a[ARM_DOF], b[ARM_DOF];
    random_q(a, 0.01);
    random_q(b, 0.01);
    for (int w = 0; w < TRAJ_WAYPOINTS; ++w) {
        double s = (double)w / (TRAJ_WAYPOINTS - 1);
        for (int d = 0; d < ARM_DOF; ++d)
            q[w][d] = a[d] + s * (b[d] - a[d]);
    }
}

static void test_joint_trajectory_bit_identical(void **state)
{
    (void)state;
    test_seed(204);
    int32_t arm = 0, plain = 0;
    gjk_world *wj = jointed_world(&arm);
    gjk_world *wl = link_pose_world(&plain);
    gjk_transform base = tw_at(0.02, -0.01, 0.0);
    double q0[ARM_DOF] = {0, 0, 0.1, 0};
    assert_ok(gjk_world_set_joint_positions(wj, arm, NULL, q0, ARM_DOF, &base, NULL));
    const gjk_kinematics *k = gjk_world_robot_kinematics(wj, arm);
    gjk_kinematics_state *ks = NULL;
    assert_int_equal(gjk_kinematics_state_create(k, &ks), GJK_KINEMATICS_OK);
    int modes[3] = {GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_MODE_CLOSEST,
                    GJK_WORLD_MODE_FIRST_COLLISION};
    for (int round = 0; round < 12; ++round) {
        double q[TRAJ_WAYPOINTS][ARM_DOF];
        smooth_path(q);
        gjk_transform poses[TRAJ_WAYPOINTS * ARM_LINKS];
        for (int w = 0; w < TRAJ_WAYPOINTS; ++w) {
            assert_int_equal(gjk_kinematics_forward(k, q[w], ARM_DOF, base, ks, NULL),
                             GJK_KINEMATICS_OK);
            memcpy(&poses[w * ARM_LINKS], gjk_kinematics_link_poses(ks),
                   ARM_LINKS * sizeof(gjk_transform));
        }
        gjk_world_query_options o = all_within(0.2, false);
        o.mode = modes[round % 3];
        o.per_part = round % 2;
        o.threads = 1 + round % 3;
        for (int pass = 0; pass < 2; ++pass) { /* named: cold, then warm */
            gjk_world_trajectory tj, tl;
            memset(&tj, 0, sizeof tj);
            tj.robot = arm;
            tj.waypoint_count = TRAJ_WAYPOINTS;
            tj.dof_count = ARM_DOF;
            tj.joint_positions = &q[0][0];
            tj.name = round >= 6 ? "path" : NULL;
            memset(&tl, 0, sizeof tl);
            tl.robot = plain;
            tl.waypoint_count = TRAJ_WAYPOINTS;
            tl.link_count = ARM_LINKS;
            tl.link_poses = poses;
            tl.name = tj.name;
            gjk_world_result *rj = NULL, *rl = NULL;
            assert_ok(gjk_world_query_trajectory(wj, &tj, &o, &rj));
            assert_ok(gjk_world_query_trajectory(wl, &tl, &o, &rl));
            assert_int_equal(rj->trajectory_cache_hit, rl->trajectory_cache_hit);
            compare_results(rj, rl, false);
            gjk_world_result_destroy(&rj);
            gjk_world_result_destroy(&rl);
        }
    }
    /* refusals: a value out of limits at waypoint 3, a wrong DOF count, link poses given */
    double q[TRAJ_WAYPOINTS][ARM_DOF];
    smooth_path(q);
    q[3][2] = 0.3;
    q[5][0] = 9.0;
    int32_t bw = 0, bj = 0;
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = arm;
    t.waypoint_count = TRAJ_WAYPOINTS;
    t.dof_count = ARM_DOF;
    t.joint_positions = &q[0][0];
    t.bad_waypoint = &bw;
    t.bad_joint = &bj;
    gjk_world_result *r = NULL;
    assert_status(gjk_world_query_trajectory(wj, &t, NULL, &r), GJK_STATUS_INVALID_INPUT);
    assert_null(r);
    assert_int_equal(bw, 3);
    assert_int_equal(bj, 2);
    q[3][2] = 0.1;
    q[5][0] = (double)NAN;
    assert_status(gjk_world_query_trajectory(wj, &t, NULL, &r), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bw, 5);
    assert_int_equal(bj, 0);
    q[5][0] = 0;
    t.dof_count = ARM_DOF - 1;
    assert_status(gjk_world_query_trajectory(wj, &t, NULL, &r), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bw, -1);
    t.dof_count = ARM_DOF;
    assert_ok(gjk_world_query_trajectory(wj, &t, NULL, &r));
    gjk_world_result_destroy(&r);
    /* joint vectors for a link-pose robot are refused */
    gjk_world_trajectory tl;
    memset(&tl, 0, sizeof tl);
    tl.robot = plain;
    tl.waypoint_count = 1;
    tl.dof_count = ARM_DOF;
    tl.joint_positions = &q[0][0];
    assert_status(gjk_world_query_trajectory(wl, &tl, NULL, &r), GJK_STATUS_INVALID_INPUT);
    gjk_kinematics_state_destroy(&ks);
    gjk_world_destroy(&wj);
    gjk_world_destroy(&wl);
}

/* ------------------------------------------------------------------ gradients */

/* The distance of the reported part pair that matches p (bodies and parts), NAN if absent. */
static double pair_distance(const gjk_world *w, const gjk_world_pair *p)
{
    gjk_world_query_options o = all_within(1.0, false);
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_state(w, &o, &r));
    double d = (double)NAN;
    const gjk_world_waypoint *wp = &r->waypoints[0];
    for (int i = 0; i < wp->pair_count; ++i) {
        const gjk_world_pair *x = &wp->pairs[i];
        if (memcmp(&x->a.body, &p->a.body, sizeof x->a.body) == 0 &&
            memcmp(&x->b.body, &p->b.body, sizeof x->b.body) == 0 && x->a.part == p->a.part &&
            x->b.part == p->b.part)
            d = x->distance;
    }
    gjk_world_result_destroy(&r);
    return d;
}

/* Central difference of the pair's distance in DOF d of robot `robot` with step h. */
static double central_difference(gjk_world *w, int32_t robot, const double *q, int d, double h,
                                 const gjk_world_pair *p)
{
    double qq[ARM_DOF];
    memcpy(qq, q, sizeof qq);
    qq[d] = q[d] + h;
    assert_ok(gjk_world_set_joint_positions(w, robot, NULL, qq, ARM_DOF, NULL, NULL));
    double up = pair_distance(w, p);
    qq[d] = q[d] - h;
    assert_ok(gjk_world_set_joint_positions(w, robot, NULL, qq, ARM_DOF, NULL, NULL));
    double down = pair_distance(w, p);
    assert_ok(gjk_world_set_joint_positions(w, robot, NULL, q, ARM_DOF, NULL, NULL));
    return (up - down) / (2.0 * h);
}

/* Gradients of every reported pair (obstacle, self and robot-robot pairs, separated and
 * overlapping) against central differences of the world's own signed distance, step 1e-6.
 * Where the distance is not smooth (a change of witness features within the step) the
 * difference quotient changes when the step is halved: such components are skipped, and so
 * are flagged pairs; enough components must remain for the test to mean something. */
static void test_gradients_match_finite_differences(void **state)
{
    (void)state;
    test_seed(205);
    int32_t arm = 0, other = 0;
    gjk_world *w = jointed_world(&arm);
    gjk_robot_def d2 = arm_def("other", 1, true);
    gjk_transform b2 = gjk_transform_make(gjk_quat_from_rpy(0, 0, 3.0), gjk_v3(0.55, 0.1, 0));
    d2.base_pose = &b2;
    assert_ok(gjk_world_put_robot(w, &d2, &other));
    int checked = 0, skipped = 0, overlapping = 0, self = 0, robot_robot = 0;
    double h = 1e-6;
    for (int round = 0; round < 60; ++round) {
        double qa[ARM_DOF], qb[ARM_DOF];
        random_q(qa, 3e-6);
        random_q(qb, 3e-6);
        assert_ok(gjk_world_set_joint_positions(w, arm, NULL, qa, ARM_DOF, NULL, NULL));
        assert_ok(gjk_world_set_joint_positions(w, other, NULL, qb, ARM_DOF, NULL, NULL));
        gjk_world_query_options o = all_within(0.15, true);
        gjk_world_result *r = NULL;
        assert_ok(gjk_world_query_state(w, &o, &r));
        const gjk_world_waypoint *wp = &r->waypoints[0];
        int64_t total = 0;
        for (int i = 0; i < wp->pair_count; ++i) {
            const gjk_world_pair *p = &wp->pairs[i];
            total += p->gradient_a_count + p->gradient_b_count;
            assert_int_equal(p->gradient_a_count, ARM_DOF); /* both robots have joints */
            bool rr = p->b.body.kind == GJK_BODY_LINK && p->b.body.object != p->a.body.object;
            assert_int_equal(p->gradient_b_count, rr ? ARM_DOF : 0);
            if (p->subgradient || p->status == GJK_STATUS_ITERATION_LIMIT)
                continue;
            for (int side = 0; side < 2; ++side) {
                if (side == 1 && !rr)
                    continue;
                int32_t robot = side == 0 ? p->a.body.object : p->b.body.object;
                const double *q = robot == arm ? qa : qb;
                const double *g = side == 0 ? p->gradient_a : p->gradient_b;
                for (int d = 0; d < ARM_DOF; ++d) {
                    double f1 = central_difference(w, robot, q, d, h, p);
                    double f2 = central_difference(w, robot, q, d, h / 2, p);
                    if (isnan(f1) || isnan(f2) || fabs(f1 - f2) > 1e-5 * (1 + fabs(f1))) {
                        ++skipped;
                        continue;
                    }
                    assert_near(g[d], f1, 2e-5 * (1 + fabs(f1)));
                    ++checked;
                    overlapping += p->distance < 0;
                    self += p->b.body.kind == GJK_BODY_LINK && !rr;
                    robot_robot += rr;
                }
            }
        }
        assert_true(r->gradient_count == total);
        gjk_world_result_destroy(&r);
    }
    print_message("gradient components checked %d, skipped (not smooth) %d; overlapping %d, "
                  "self %d, robot-robot %d\n",
                  checked, skipped, overlapping, self, robot_robot);
    assert_true(checked > 400);
    assert_true(skipped * 10 < checked);
    assert_true(overlapping > 20);
    assert_true(self > 20);
    assert_true(robot_robot > 20);
    gjk_world_destroy(&w);
}

/* Closed form: a ball on a prismatic joint moving along x towards a wall; the gradient is -1
 * separated and overlapping (moving in shrinks the signed distance), +1 when the wall is
 * behind. A cube face-parallel to the wall is flagged (a face of witnesses), a ball is not,
 * and crossing capsules are not. */
static void test_gradient_sign_and_flag(void **state)
{
    (void)state;
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    gjk_part_def parts[2];
    memset(parts, 0, sizeof parts);
    parts[0].shape = gjk_make_box(gjk_v3(0.1, 0.1, 0.1));
    parts[0].pose = gjk_transform_identity();
    parts[1].shape = gjk_make_sphere(0.1);
    parts[1].pose = gjk_transform_identity();
    gjk_link_def links[2];
    memset(links, 0, sizeof links);
    links[0].name = "rail";
    links[1].name = "cart";
    links[1].parts = &parts[1];
    links[1].part_count = 1;
    gjk_joint_def j;
    memset(&j, 0, sizeof j);
    j.name = "slide";
    j.type = GJK_JOINT_PRISMATIC;
    j.parent = 0;
    j.child = 1;
    j.origin = gjk_transform_identity();
    j.axis = gjk_v3(1, 0, 0);
    j.lower = -1;
    j.upper = 1;
    gjk_robot_def rd;
    memset(&rd, 0, sizeof rd);
    rd.name = "cart";
    rd.links = links;
    rd.link_count = 2;
    rd.joints = &j;
    rd.joint_count = 1;
    int32_t cart = 0;
    assert_ok(gjk_world_put_robot(w, &rd, &cart));
    gjk_part_def wall = tw_box_part(0.05, 1, 1, gjk_v3(0, 0, 0));
    gjk_obstacle_def od;
    memset(&od, 0, sizeof od);
    od.name = "wall";
    od.parts = &wall;
    od.part_count = 1;
    od.pose = tw_at(0.5, 0, 0);
    assert_ok(gjk_world_put_obstacle(w, &od, NULL));
    double cases[3][2] = {{0.0, -1.0}, {0.38, -1.0}, {0.9, 1.0}}; /* q, expected gradient */
    for (int c = 0; c < 3; ++c) {
        assert_ok(gjk_world_set_joint_positions(w, cart, NULL, &cases[c][0], 1, NULL, NULL));
        gjk_world_query_options o = gjk_world_default_query_options();
        o.gradients = true;
        gjk_world_result *r = NULL;
        assert_ok(gjk_world_query_state(w, &o, &r));
        assert_int_equal(r->waypoints[0].pair_count, 1);
        const gjk_world_pair *p = &r->waypoints[0].pairs[0];
        assert_int_equal(p->gradient_a_count, 1);
        assert_int_equal(p->gradient_b_count, 0);
        assert_near(p->gradient_a[0], cases[c][1], 1e-12);
        assert_false(p->subgradient);
        if (c == 1)
            assert_true(p->distance < 0);
        gjk_world_result_destroy(&r);
    }
    /* the cube: flagged, same gradient */
    links[1].parts = &parts[0];
    assert_ok(gjk_world_put_robot(w, &rd, &cart));
    assert_ok(gjk_world_set_joint_positions(w, cart, NULL, &cases[0][0], 1, NULL, NULL));
    gjk_world_query_options o = gjk_world_default_query_options();
    o.gradients = true;
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_state(w, &o, &r));
    const gjk_world_pair *p = &r->waypoints[0].pairs[0];
    assert_true(p->subgradient);
    assert_near(p->gradient_a[0], -1.0, 1e-12);
    gjk_world_result_destroy(&r);
    /* without gradients: none */
    o.gradients = false;
    assert_ok(gjk_world_query_state(w, &o, &r));
    p = &r->waypoints[0].pairs[0];
    assert_null(p->gradient_a);
    assert_int_equal(p->gradient_a_count, 0);
    assert_null(r->gradients);
    gjk_world_result_destroy(&r);
    /* a cube turned 45 degrees about z meets the wall with an edge: a segment against a face,
     * flagged; turned about z and y it meets it with a vertex: not flagged */
    parts[0].pose.q = gjk_quat_from_rpy(0, 0, 0.785398163397448);
    assert_ok(gjk_world_put_robot(w, &rd, &cart));
    o.gradients = true;
    assert_ok(gjk_world_query_state(w, &o, &r));
    assert_true(r->waypoints[0].pairs[0].subgradient);
    gjk_world_result_destroy(&r);
    parts[0].pose.q = gjk_quat_from_rpy(0, 0.6154797086703874, 0.785398163397448);
    assert_ok(gjk_world_put_robot(w, &rd, &cart));
    assert_ok(gjk_world_query_state(w, &o, &r));
    assert_false(r->waypoints[0].pairs[0].subgradient);
    assert_near(r->waypoints[0].pairs[0].gradient_a[0], -1.0, 1e-12);
    gjk_world_result_destroy(&r);
    /* capsules: crossing (not flagged) and parallel (flagged) */
    gjk_part_def cap = parts[0];
    cap.shape = gjk_make_capsule(0.05, 0.2);
    cap.pose = gjk_transform_identity(); /* along z */
    links[1].parts = &cap;
    assert_ok(gjk_world_put_robot(w, &rd, &cart));
    gjk_part_def rod;
    memset(&rod, 0, sizeof rod);
    rod.shape = gjk_make_capsule(0.05, 0.3);
    rod.pose = gjk_transform_make(gjk_quat_from_rpy(1.5707963267948966, 0, 0), gjk_v3(0, 0, 0));
    od.parts = &rod;
    assert_ok(gjk_world_put_obstacle(w, &od, NULL)); /* replaces the wall: rod along y */
    assert_ok(gjk_world_query_state(w, &o, &r));
    assert_false(r->waypoints[0].pairs[0].subgradient);
    gjk_world_result_destroy(&r);
    rod.pose = gjk_transform_identity(); /* along z, parallel to the cart's capsule */
    assert_ok(gjk_world_put_obstacle(w, &od, NULL));
    assert_ok(gjk_world_query_state(w, &o, &r));
    assert_true(r->waypoints[0].pairs[0].subgradient);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&w);
}

/* Gradients in a joint-space trajectory: equal to the state query's at each waypoint's joint
 * positions, and bit-identical for 1..4 threads. */
static void test_trajectory_gradients_and_threads(void **state)
{
    (void)state;
    test_seed(206);
    int32_t arm = 0;
    gjk_world *w = jointed_world(&arm);
    enum { N = 41 };
    double q[N][ARM_DOF];
    double a[ARM_DOF], b[ARM_DOF];
    random_q(a, 0.01);
    random_q(b, 0.01);
    for (int k = 0; k < N; ++k)
        for (int d = 0; d < ARM_DOF; ++d)
            q[k][d] = a[d] + (b[d] - a[d]) * k / (N - 1.0);
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = arm;
    t.waypoint_count = N;
    t.dof_count = ARM_DOF;
    t.joint_positions = &q[0][0];
    gjk_world_query_options o = all_within(0.2, true);
    o.per_part = false;
    gjk_world_result *ref = NULL;
    o.threads = 1;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &ref));
    int64_t pairs = 0;
    for (int k = 0; k < N; ++k)
        pairs += ref->waypoints[k].pair_count;
    assert_true(pairs > N);
    assert_true(ref->gradient_count == pairs * ARM_DOF);
    for (int threads = 2; threads <= 4; ++threads) {
        o.threads = threads;
        gjk_world_result *r = NULL;
        assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
        compare_results(ref, r, true);
        gjk_world_result_destroy(&r);
    }
    /* each waypoint's gradients are those of the state query there (same witnesses up to the
     * warm start's rounding) */
    for (int k = 0; k < N; k += 5) {
        assert_ok(gjk_world_set_joint_positions(w, arm, NULL, q[k], ARM_DOF, NULL, NULL));
        gjk_world_query_options so = o;
        so.threads = 0;
        gjk_world_result *s = NULL;
        assert_ok(gjk_world_query_state(w, &so, &s));
        const gjk_world_waypoint *x = &ref->waypoints[k], *y = &s->waypoints[0];
        assert_int_equal(x->pair_count, y->pair_count);
        for (int i = 0; i < x->pair_count; ++i) {
            const gjk_world_pair *p = &x->pairs[i], *r = &y->pairs[i];
            assert_int_equal(p->a.body.link, r->a.body.link);
            assert_int_equal(p->subgradient, r->subgradient);
            if (p->subgradient)
                continue;
            for (int d = 0; d < ARM_DOF; ++d)
                assert_near(p->gradient_a[d], r->gradient_a[d], 1e-6);
        }
        gjk_world_result_destroy(&s);
    }
    gjk_world_result_destroy(&ref);
    gjk_world_destroy(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_model_and_initial_state, setup_hulls, teardown_hulls),
        cmocka_unit_test_setup_teardown(test_fk_matches_reference, setup_hulls, teardown_hulls),
        cmocka_unit_test_setup_teardown(test_joint_world_equals_link_pose_world, setup_hulls,
                                        teardown_hulls),
        cmocka_unit_test_setup_teardown(test_subset_and_limits, setup_hulls, teardown_hulls),
        cmocka_unit_test_setup_teardown(test_joint_trajectory_bit_identical, setup_hulls,
                                        teardown_hulls),
        cmocka_unit_test_setup_teardown(test_gradients_match_finite_differences, setup_hulls,
                                        teardown_hulls),
        cmocka_unit_test_setup_teardown(test_gradient_sign_and_flag, setup_hulls, teardown_hulls),
        cmocka_unit_test_setup_teardown(test_trajectory_gradients_and_threads, setup_hulls,
                                        teardown_hulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
