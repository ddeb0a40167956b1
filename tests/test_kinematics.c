/* test_kinematics.c — kinematic trees (gjk/kinematics.h).
 *
 * The reference is this file's own forward kinematics: 4x4 homogeneous matrices in long
 * double, rotations built from roll-pitch-yaw as Rz * Ry * Rx of elementary matrices and from
 * axis-angle by Rodrigues' formula, joints evaluated by repeated passes over the joint list
 * until every link is placed. It shares no code with core (the library's quaternions are
 * turned into matrices here, in long double, only to compare). It runs on random trees (fixed
 * seeds; random branching, every joint type, mimic joints, random origins and unnormalised
 * axes, joint defs in random order) and on the Panda and UR5 arms typed in from their URDFs.
 * Gradients are checked against central differences of the reference. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "gjk/gjk.h"

/* ------------------------------------------------------------------ test-side description */

enum { MAX_LINKS = 64 };

/* A joint as a URDF states it. mimic: index of the followed joint, -1 for none. */
typedef struct tjoint {
    const char *name;
    gjk_joint_type type;
    int parent, child;
    double xyz[3], rpy[3], axis[3];
    double lower, upper;
    int mimic;
    double multiplier, offset;
} tjoint;

/* Generated joint names live in the robot (joints[i].name NULL: names[i]), so that a copy of
 * the robot carries its names with it instead of pointers into the original. */
typedef struct trobot {
    int link_count, joint_count;
    tjoint joints[MAX_LINKS];
    char names[MAX_LINKS][32];
} trobot;

static const char *t_name(const trobot *r, int i)
{
    return r->joints[i].name ? r->joints[i].name : r->names[i];
}

static bool t_moving(const tjoint *j)
{
    return j->type != GJK_JOINT_FIXED;
}
static bool t_active(const tjoint *j)
{
    return t_moving(j) && j->mimic < 0;
}

/* A joint without mimic: name, type, parent, child, origin xyz, origin rpy, axis, limits. */
static tjoint tj(const char *name, gjk_joint_type type, int parent, int child, double x, double y,
                 double z, double roll, double pitch, double yaw, double ax, double ay, double az,
                 double lower, double upper)
{
    tjoint j = {name,         type,  parent, child, {x, y, z}, {roll, pitch, yaw},
                {ax, ay, az}, lower, upper,  -1,    0.0,       0.0};
    return j;
}

/* j following joint `mimic`: q = multiplier * q(mimic) + offset. */
static tjoint tj_mimic(tjoint j, int mimic, double multiplier, double offset)
{
    j.mimic = mimic;
    j.multiplier = multiplier;
    j.offset = offset;
    return j;
}

/* DOF index of every joint (its own for active joints, the followed one's for mimics, -1 for
 * fixed), numbered as the header says: active joints in def order. Returns the DOF count. */
static int t_dofs(const trobot *r, int *dof)
{
    int n = 0;
    for (int i = 0; i < r->joint_count; ++i) {
        dof[i] = t_active(&r->joints[i]) ? n++ : -1;
    }
    for (int i = 0; i < r->joint_count; ++i) {
        if (t_moving(&r->joints[i]) && r->joints[i].mimic >= 0) {
            dof[i] = dof[r->joints[i].mimic];
        }
    }
    return n;
}

/* The library def of r (defs[] and the names of r stay owned by the caller). */
static gjk_kinematics_def t_def(const trobot *r, gjk_joint_def *defs)
{
    for (int i = 0; i < r->joint_count; ++i) {
        const tjoint *j = &r->joints[i];
        gjk_joint_def *d = &defs[i];
        memset(d, 0, sizeof *d);
        d->name = t_name(r, i);
        d->type = j->type;
        d->parent = j->parent;
        d->child = j->child;
        d->origin = gjk_transform_make(gjk_quat_from_rpy(j->rpy[0], j->rpy[1], j->rpy[2]),
                                       gjk_v3(j->xyz[0], j->xyz[1], j->xyz[2]));
        d->axis = gjk_v3(j->axis[0], j->axis[1], j->axis[2]);
        d->lower = j->lower;
        d->upper = j->upper;
        d->mimic = j->mimic >= 0 ? t_name(r, j->mimic) : NULL;
        d->multiplier = j->multiplier;
        d->offset = j->offset;
    }
    gjk_kinematics_def def = {r->link_count, defs, r->joint_count};
    return def;
}

static gjk_kinematics *t_build(const trobot *r)
{
    gjk_joint_def defs[MAX_LINKS];
    gjk_kinematics_def def = t_def(r, defs);
    gjk_kinematics *k = NULL;
    gjk_kinematics_error e;
    gjk_status st = gjk_kinematics_build(&def, &k, &e);
    if (st != GJK_KINEMATICS_OK) {
        print_error("build failed: code %d joint %d link %d: %s\n", (int)e.code, e.joint, e.link,
                    e.reason);
    }
    assert_status(st, GJK_KINEMATICS_OK);
    assert_non_null(k);
    return k;
}

/* ------------------------------------------------------------------ reference (long double) */

typedef long double ld;
typedef struct m4 {
    ld m[4][4];
} m4;

static m4 m4_identity(void)
{
    m4 a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < 4; ++i) {
        a.m[i][i] = 1.0L;
    }
    return a;
}

static m4 m4_mul(const m4 *a, const m4 *b)
{
    m4 c;
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
            ld s = 0.0L;
            for (int k = 0; k < 4; ++k) {
                s += a->m[i][k] * b->m[k][j];
            }
            c.m[i][j] = s;
        }
    }
    return c;
}

static m4 m4_translation(ld x, ld y, ld z)
{
    m4 a = m4_identity();
    a.m[0][3] = x;
    a.m[1][3] = y;
    a.m[2][3] = z;
    return a;
}

/* Elementary rotation about coordinate axis i (0 x, 1 y, 2 z). */
static m4 m4_elementary(int i, ld t)
{
    m4 a = m4_identity();
    int u = (i + 1) % 3, v = (i + 2) % 3;
    a.m[u][u] = cosl(t);
    a.m[u][v] = -sinl(t);
    a.m[v][u] = sinl(t);
    a.m[v][v] = cosl(t);
    return a;
}

/* URDF: R = Rz(yaw) Ry(pitch) Rx(roll). */
static m4 m4_rpy(const double rpy[3])
{
    m4 z = m4_elementary(2, rpy[2]), y = m4_elementary(1, rpy[1]), x = m4_elementary(0, rpy[0]);
    m4 zy = m4_mul(&z, &y);
    return m4_mul(&zy, &x);
}

static void unit_ld(const double a[3], ld u[3])
{
    ld l = sqrtl((ld)a[0] * a[0] + (ld)a[1] * a[1] + (ld)a[2] * a[2]);
    for (int i = 0; i < 3; ++i) {
        u[i] = a[i] / l;
    }
}

/* Rodrigues: R = I + sin t K + (1 - cos t) K^2, K the cross-product matrix of unit u. */
static m4 m4_axis_angle(const double axis[3], ld t)
{
    ld u[3];
    unit_ld(axis, u);
    ld k[3][3] = {{0, -u[2], u[1]}, {u[2], 0, -u[0]}, {-u[1], u[0], 0}};
    m4 a = m4_identity();
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            ld k2 = 0.0L;
            for (int l = 0; l < 3; ++l) {
                k2 += k[i][l] * k[l][j];
            }
            a.m[i][j] += sinl(t) * k[i][j] + (1.0L - cosl(t)) * k2;
        }
    }
    return a;
}

static m4 m4_from_transform(gjk_transform t)
{
    ld w = t.q.w, x = t.q.x, y = t.q.y, z = t.q.z;
    ld n = sqrtl(w * w + x * x + y * y + z * z);
    w /= n, x /= n, y /= n, z /= n;
    m4 a = m4_identity();
    a.m[0][0] = 1 - 2 * (y * y + z * z);
    a.m[0][1] = 2 * (x * y - w * z);
    a.m[0][2] = 2 * (x * z + w * y);
    a.m[1][0] = 2 * (x * y + w * z);
    a.m[1][1] = 1 - 2 * (x * x + z * z);
    a.m[1][2] = 2 * (y * z - w * x);
    a.m[2][0] = 2 * (x * z - w * y);
    a.m[2][1] = 2 * (y * z + w * x);
    a.m[2][2] = 1 - 2 * (x * x + y * y);
    a.m[0][3] = t.p.x;
    a.m[1][3] = t.p.y;
    a.m[2][3] = t.p.z;
    return a;
}

/* The joint's position: q[dof] for active joints, multiplier * q[dof] + offset for mimics. */
static ld t_position(const trobot *r, const int *dof, const double *q, int i)
{
    const tjoint *j = &r->joints[i];
    if (j->mimic >= 0) {
        return (ld)j->multiplier * q[dof[i]] + j->offset;
    }
    return q[dof[i]];
}

/* Every link's world matrix. The root is the link no joint names as child. */
static void ref_fk(const trobot *r, const double *q, gjk_transform base, m4 *out)
{
    int dof[MAX_LINKS];
    (void)t_dofs(r, dof);
    bool done[MAX_LINKS] = {false};
    for (int l = 0; l < r->link_count; ++l) {
        done[l] = true;
        for (int i = 0; i < r->joint_count; ++i) {
            done[l] = done[l] && r->joints[i].child != l;
        }
        if (done[l]) {
            out[l] = m4_from_transform(base);
        }
    }
    for (int pass = 0; pass < r->link_count; ++pass) {
        for (int i = 0; i < r->joint_count; ++i) {
            const tjoint *j = &r->joints[i];
            if (!done[j->parent] || done[j->child]) {
                continue;
            }
            m4 tr = m4_translation(j->xyz[0], j->xyz[1], j->xyz[2]), rot = m4_rpy(j->rpy);
            m4 a = m4_mul(&out[j->parent], &tr);
            a = m4_mul(&a, &rot);
            m4 motion = m4_identity();
            if (j->type == GJK_JOINT_REVOLUTE || j->type == GJK_JOINT_CONTINUOUS) {
                motion = m4_axis_angle(j->axis, t_position(r, dof, q, i));
            } else if (j->type == GJK_JOINT_PRISMATIC) {
                ld u[3], v = t_position(r, dof, q, i);
                unit_ld(j->axis, u);
                motion = m4_translation(u[0] * v, u[1] * v, u[2] * v);
            }
            out[j->child] = m4_mul(&a, &motion);
            done[j->child] = true;
        }
    }
    for (int l = 0; l < r->link_count; ++l) {
        assert_true(done[l]);
    }
}

/* max |rotation difference| and |position difference| of a library pose against the
 * reference, and |q| - 1. */
static void assert_pose_near(gjk_transform got, const m4 *want, double tol)
{
    m4 g = m4_from_transform(got);
    double er = 0.0, ep = 0.0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            er = fmax(er, (double)fabsl(g.m[i][j] - want->m[i][j]));
        }
        ep = fmax(ep, (double)fabsl((ld)(i == 0   ? got.p.x
                                         : i == 1 ? got.p.y
                                                  : got.p.z) -
                                    want->m[i][3]));
    }
    assert_le(er, tol, 0.0);
    assert_le(ep, tol, 0.0);
    assert_near(gjk_quat_norm(got.q), 1.0, tol);
}

/* A point given in link l's frame (long double reference) in the world. */
static void ref_point(const m4 *a, const ld local[3], ld w[3])
{
    for (int i = 0; i < 3; ++i) {
        w[i] = a->m[i][3];
        for (int j = 0; j < 3; ++j) {
            w[i] += a->m[i][j] * local[j];
        }
    }
}

/* A world point in link frame a: R^T (w - p). */
static void ref_local(const m4 *a, const ld w[3], ld local[3])
{
    for (int j = 0; j < 3; ++j) {
        local[j] = 0.0L;
        for (int i = 0; i < 3; ++i) {
            local[j] += a->m[i][j] * (w[i] - a->m[i][3]);
        }
    }
}

/* ------------------------------------------------------------------ the two arms */

#define HALF_PI_PANDA 1.5707963267948966
#define HALF_PI_UR 1.57079632679

/* Franka Panda, from data/robots/example-robot-data/robots/panda_description/urdf/panda.urdf
 * (<joint> elements: origin xyz/rpy, axis, limit lower/upper, mimic). Links:
 * 0 panda_link0 .. 8 panda_link8, 9 panda_hand, 10 panda_hand_tcp, 11 panda_leftfinger,
 * 12 panda_rightfinger. The URDF's <mimic> has no multiplier or offset: 1 and 0. */
static trobot panda(void)
{
    trobot r = {.link_count = 13, .joint_count = 12};
    const tjoint j[12] = {
        tj("panda_joint1", GJK_JOINT_REVOLUTE, 0, 1, 0, 0, 0.333, 0, 0, 0, 0, 0, 1, -2.8973,
           2.8973),
        tj("panda_joint2", GJK_JOINT_REVOLUTE, 1, 2, 0, 0, 0, -HALF_PI_PANDA, 0, 0, 0, 0, 1,
           -1.7628, 1.7628),
        tj("panda_joint3", GJK_JOINT_REVOLUTE, 2, 3, 0, -0.316, 0, HALF_PI_PANDA, 0, 0, 0, 0, 1,
           -2.8973, 2.8973),
        tj("panda_joint4", GJK_JOINT_REVOLUTE, 3, 4, 0.0825, 0, 0, HALF_PI_PANDA, 0, 0, 0, 0, 1,
           -3.0718, -0.0698),
        tj("panda_joint5", GJK_JOINT_REVOLUTE, 4, 5, -0.0825, 0.384, 0, -HALF_PI_PANDA, 0, 0, 0, 0,
           1, -2.8973, 2.8973),
        tj("panda_joint6", GJK_JOINT_REVOLUTE, 5, 6, 0, 0, 0, HALF_PI_PANDA, 0, 0, 0, 0, 1, -0.0175,
           3.7525),
        tj("panda_joint7", GJK_JOINT_REVOLUTE, 6, 7, 0.088, 0, 0, HALF_PI_PANDA, 0, 0, 0, 0, 1,
           -2.8973, 2.8973),
        tj("panda_joint8", GJK_JOINT_FIXED, 7, 8, 0, 0, 0.107, 0, 0, 0, 0, 0, 0, 0, 0),
        tj("panda_hand_joint", GJK_JOINT_FIXED, 8, 9, 0, 0, 0, 0, 0, -0.7853981633974483, 0, 0, 0,
           0, 0),
        tj("panda_hand_tcp_joint", GJK_JOINT_FIXED, 9, 10, 0, 0, 0.1034, 0, 0, 0, 0, 0, 0, 0, 0),
        tj("panda_finger_joint1", GJK_JOINT_PRISMATIC, 9, 11, 0, 0, 0.0584, 0, 0, 0, 0, 1, 0, 0.0,
           0.04),
        tj_mimic(tj("panda_finger_joint2", GJK_JOINT_PRISMATIC, 9, 12, 0, 0, 0.0584, 0, 0, 0, 0, -1,
                    0, 0.0, 0.04),
                 10, 1.0, 0.0),
    };
    memcpy(r.joints, j, sizeof j);
    return r;
}

/* Universal Robots UR5, from data/robots/example-robot-data/robots/ur_description/urdf/
 * ur5_robot.urdf, joints in the file's order (so world_joint, which places base_link, comes
 * last: the def is not in topological order). Links: 0 world, 1 base_link, 2 shoulder_link,
 * 3 upper_arm_link, 4 forearm_link, 5 wrist_1_link, 6 wrist_2_link, 7 wrist_3_link,
 * 8 ee_link, 9 base, 10 tool0. */
static trobot ur5(void)
{
    trobot r = {.link_count = 11, .joint_count = 10};
    const double l2 = 6.28318530718, l3 = 3.14159265359;
    const tjoint j[10] = {
        tj("shoulder_pan_joint", GJK_JOINT_REVOLUTE, 1, 2, 0, 0, 0.089159, 0, 0, 0, 0, 0, 1, -l2,
           l2),
        tj("shoulder_lift_joint", GJK_JOINT_REVOLUTE, 2, 3, 0, 0.13585, 0, 0, HALF_PI_UR, 0, 0, 1,
           0, -l2, l2),
        tj("elbow_joint", GJK_JOINT_REVOLUTE, 3, 4, 0, -0.1197, 0.425, 0, 0, 0, 0, 1, 0, -l3, l3),
        tj("wrist_1_joint", GJK_JOINT_REVOLUTE, 4, 5, 0, 0, 0.39225, 0, HALF_PI_UR, 0, 0, 1, 0, -l2,
           l2),
        tj("wrist_2_joint", GJK_JOINT_REVOLUTE, 5, 6, 0, 0.093, 0, 0, 0, 0, 0, 0, 1, -l2, l2),
        tj("wrist_3_joint", GJK_JOINT_REVOLUTE, 6, 7, 0, 0, 0.09465, 0, 0, 0, 0, 1, 0, -l2, l2),
        tj("ee_fixed_joint", GJK_JOINT_FIXED, 7, 8, 0, 0.0823, 0, 0, 0, HALF_PI_UR, 0, 0, 0, 0, 0),
        tj("base_link-base_fixed_joint", GJK_JOINT_FIXED, 1, 9, 0, 0, 0, 0, 0, -l3, 0, 0, 0, 0, 0),
        tj("wrist_3_link-tool0_fixed_joint", GJK_JOINT_FIXED, 7, 10, 0, 0.0823, 0, -HALF_PI_UR, 0,
           0, 0, 0, 0, 0, 0),
        tj("world_joint", GJK_JOINT_FIXED, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    };
    memcpy(r.joints, j, sizeof j);
    return r;
}

/* ------------------------------------------------------------------ random trees */

/* Random values for the DOF, inside their limits by at least `margin` (continuous in
 * [-10, 10]). */
static void t_random_q(const trobot *r, double margin, double *q)
{
    int dof[MAX_LINKS];
    (void)t_dofs(r, dof);
    for (int i = 0; i < r->joint_count; ++i) {
        const tjoint *j = &r->joints[i];
        if (!t_active(j)) {
            continue;
        }
        q[dof[i]] = j->type == GJK_JOINT_CONTINUOUS
                        ? rnd_range(-10.0, 10.0)
                        : rnd_range(j->lower + margin, j->upper - margin);
    }
}

static gjk_transform random_base(void)
{
    return gjk_transform_make(rnd_quat(),
                              gjk_v3(rnd_range(-2, 2), rnd_range(-2, 2), rnd_range(-2, 2)));
}

/* A random tree of 1..max_links links: random branching (half the links hang off the
 * previous one, for long chains), every joint type, some mimic joints, random origins and
 * unnormalised axes; link indices and joint order shuffled. */
static trobot random_tree(int max_links)
{
    trobot r;
    memset(&r, 0, sizeof r);
    int n = 1 + (int)(rnd() * max_links);
    r.link_count = n;
    r.joint_count = n - 1;
    int label[MAX_LINKS], order[MAX_LINKS];
    for (int l = 0; l < n; ++l) {
        label[l] = l;
        order[l] = l;
    }
    for (int l = n - 1; l > 0; --l) { /* Fisher-Yates */
        int s = (int)(rnd() * (l + 1)), t = label[l];
        label[l] = label[s];
        label[s] = t;
    }
    for (int i = n - 2; i > 0; --i) {
        int s = (int)(rnd() * (i + 1)), t = order[i];
        order[i] = order[s];
        order[s] = t;
    }
    for (int c = 1; c < n; ++c) {
        tjoint *j = &r.joints[order[c - 1]];
        int p = rnd() < 0.5 ? c - 1 : (int)(rnd() * c);
        j->parent = label[p];
        j->child = label[c];
        double u = rnd();
        j->type = u < 0.2    ? GJK_JOINT_FIXED
                  : u < 0.55 ? GJK_JOINT_REVOLUTE
                  : u < 0.75 ? GJK_JOINT_CONTINUOUS
                             : GJK_JOINT_PRISMATIC;
        for (int a = 0; a < 3; ++a) {
            j->xyz[a] = rnd_range(-0.5, 0.5);
            j->rpy[a] = rnd_range(-PI, PI);
        }
        gjk_vec3 axis = gjk_scale(rnd_unit(), exp(rnd_range(-5.0, 5.0)));
        j->axis[0] = axis.x, j->axis[1] = axis.y, j->axis[2] = axis.z;
        if (j->type == GJK_JOINT_PRISMATIC) {
            j->lower = rnd_range(-0.5, 0.2);
            j->upper = j->lower + rnd_range(0.05, 0.6);
        } else {
            j->lower = rnd_range(-3.0, 0.5);
            j->upper = j->lower + rnd_range(0.1, 3.0);
        }
        j->mimic = -1;
    }
    /* Mimics: about a quarter of the moving joints follow a moving joint that is not one. */
    bool wants[MAX_LINKS] = {false};
    for (int i = 0; i < r.joint_count; ++i) {
        wants[i] = t_moving(&r.joints[i]) && rnd() < 0.25;
    }
    int active[MAX_LINKS], na = 0;
    for (int i = 0; i < r.joint_count; ++i) {
        if (t_moving(&r.joints[i]) && !wants[i]) {
            active[na++] = i;
        }
    }
    for (int i = 0; i < r.joint_count && na > 0; ++i) {
        if (wants[i]) {
            r.joints[i].mimic = active[(int)(rnd() * na)];
            r.joints[i].multiplier = rnd_range(-2.0, 2.0);
            r.joints[i].offset = rnd_range(-0.5, 0.5);
        }
    }
    for (int i = 0; i < r.joint_count; ++i) {
        snprintf(r.names[i], sizeof r.names[i], "joint_%d_%04x", i, (unsigned)(rnd() * 65536));
        r.joints[i].name = NULL;
    }
    return r;
}

/* ------------------------------------------------------------------ forward kinematics */

/* Library FK against the reference at random positions and bases. */
static void check_fk(const trobot *r, int rounds, double tol)
{
    gjk_kinematics *k = t_build(r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    int dof[MAX_LINKS];
    int nd = t_dofs(r, dof);
    assert_int_equal(gjk_kinematics_dof_count(k), nd);
    for (int round = 0; round < rounds; ++round) {
        double q[MAX_LINKS];
        t_random_q(r, 0.0, q);
        gjk_transform base = round == 0 ? gjk_transform_identity() : random_base();
        int32_t bad = 7;
        assert_status(gjk_kinematics_forward(k, q, nd, base, s, &bad), GJK_KINEMATICS_OK);
        assert_int_equal(bad, -1);
        m4 want[MAX_LINKS];
        ref_fk(r, q, base, want);
        const gjk_transform *got = gjk_kinematics_link_poses(s);
        for (int l = 0; l < r->link_count; ++l) {
            assert_pose_near(got[l], &want[l], tol);
        }
    }
    gjk_kinematics_state_destroy(&s);
    assert_null(s);
    gjk_kinematics_destroy(&k);
    assert_null(k);
}

static void test_fk_random_trees(void **state)
{
    (void)state;
    test_seed(20);
    for (int tree = 0; tree < 300; ++tree) {
        trobot r = random_tree(40);
        check_fk(&r, 8, 1e-12);
    }
}

static void test_fk_panda(void **state)
{
    (void)state;
    test_seed(1);
    trobot r = panda();
    check_fk(&r, 200, 1e-12);
}

static void test_fk_ur5(void **state)
{
    (void)state;
    test_seed(2);
    trobot r = ur5();
    check_fk(&r, 200, 1e-12);
}

/* An anchor for the reference itself (its rpy convention): the UR5 at q = 0. From the UR5's
 * DH parameters (d1 = 0.089159, a2 = -0.425, a3 = -0.39225, d4 = 0.10915, d5 = 0.09465,
 * d6 = 0.0823) the tool point is at (a2 + a3, -(d4 + d6), d1 - d5) in the DH base frame, which
 * is the URDF's base_link turned half a turn about z: ee_link at (0.81725, 0.19145,
 * -0.005491) in base_link (= world here). The URDF's pi/2 is rounded to 1e-11, hence 1e-10. */
static void test_fk_ur5_zero_pose(void **state)
{
    (void)state;
    trobot r = ur5();
    gjk_kinematics *k = t_build(&r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    double q[6] = {0};
    assert_status(gjk_kinematics_forward(k, q, 6, gjk_transform_identity(), s, NULL),
                  GJK_KINEMATICS_OK);
    const gjk_transform *p = gjk_kinematics_link_poses(s);
    assert_vec_near(p[8].p, gjk_v3(0.81725, 0.19145, -0.005491), 1e-10);
    m4 want[MAX_LINKS];
    ref_fk(&r, q, gjk_transform_identity(), want);
    assert_near((double)want[8].m[0][3], 0.81725, 1e-10);
    assert_near((double)want[8].m[1][3], 0.19145, 1e-10);
    assert_near((double)want[8].m[2][3], -0.005491, 1e-10);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
}

/* A robot of one link and no joints: FK is the base pose (its quaternion normalised). */
static void test_fk_single_link(void **state)
{
    (void)state;
    gjk_kinematics_def def = {1, NULL, 0};
    gjk_kinematics *k = NULL;
    assert_status(gjk_kinematics_build(&def, &k, NULL), GJK_KINEMATICS_OK);
    assert_int_equal(gjk_kinematics_dof_count(k), 0);
    assert_int_equal(gjk_kinematics_joint_count(k), 0);
    assert_int_equal(gjk_kinematics_link_count(k), 1);
    assert_int_equal(gjk_kinematics_root_link(k), 0);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    gjk_transform base = gjk_transform_make(gjk_quat_make(0.5, 0.5, -0.5, 0.5 * (1.0 + 1e-8)),
                                            gjk_v3(1.0, -2.0, 3.0));
    assert_status(gjk_kinematics_forward(k, NULL, 0, base, s, NULL), GJK_KINEMATICS_OK);
    gjk_transform p = gjk_kinematics_link_poses(s)[0];
    gjk_quat u = gjk_quat_normalize(base.q);
    assert_near(p.q.w, u.w, 0.0);
    assert_near(p.q.x, u.x, 0.0);
    assert_near(p.q.y, u.y, 0.0);
    assert_near(p.q.z, u.z, 0.0);
    assert_vec_near(p.p, base.p, 0.0);
    /* A point on the base link has no DOF to move it: the gradient call adds nothing. */
    assert_status(
        gjk_kinematics_accumulate_gradient(k, s, 0, gjk_v3(1, 2, 3), gjk_v3(0, 0, 1), 1.0, NULL),
        GJK_KINEMATICS_OK);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
    gjk_kinematics_destroy(&k); /* NULL is fine */
    gjk_kinematics_destroy(NULL);
}

/* gjk_quat_from_rpy against the reference's Rz Ry Rx. */
static void test_quat_from_rpy(void **state)
{
    (void)state;
    test_seed(3);
    for (int i = 0; i < 1000; ++i) {
        double rpy[3] = {rnd_range(-4, 4), rnd_range(-4, 4), rnd_range(-4, 4)};
        m4 want = m4_rpy(rpy);
        gjk_transform t =
            gjk_transform_make(gjk_quat_from_rpy(rpy[0], rpy[1], rpy[2]), gjk_v3(0, 0, 0));
        assert_pose_near(t, &want, 2e-15);
    }
}

/* A mimic joint moves exactly like an independent joint set to multiplier * q + offset. */
static void test_mimic_matches_independent_joint(void **state)
{
    (void)state;
    trobot a = {.link_count = 3, .joint_count = 2};
    a.joints[0] = tj("lead", GJK_JOINT_REVOLUTE, 0, 1, 0.1, 0, 0.2, 0.3, 0, 0, 0, 0, 1, -2, 2);
    a.joints[1] =
        tj_mimic(tj("follow", GJK_JOINT_PRISMATIC, 1, 2, 0, 0.3, 0, 0, 0.2, 0, 1, 1, 0, -0.1, 0.1),
                 0, -0.25, 0.5);
    trobot b = a;
    b.joints[1].mimic = -1;
    b.joints[1].lower = -10; /* the mimic's limits are not enforced: 0.5 - 0.25 q */
    b.joints[1].upper = 10;
    gjk_kinematics *ka = t_build(&a), *kb = t_build(&b);
    assert_int_equal(gjk_kinematics_dof_count(ka), 1);
    assert_int_equal(gjk_kinematics_dof_count(kb), 2);
    gjk_kinematics_state *sa = NULL, *sb = NULL;
    assert_status(gjk_kinematics_state_create(ka, &sa), GJK_KINEMATICS_OK);
    assert_status(gjk_kinematics_state_create(kb, &sb), GJK_KINEMATICS_OK);
    for (double q = -2.0; q <= 2.0; q += 0.25) {
        double qb[2] = {q, -0.25 * q + 0.5};
        gjk_transform base = gjk_transform_identity();
        assert_status(gjk_kinematics_forward(ka, &q, 1, base, sa, NULL), GJK_KINEMATICS_OK);
        assert_status(gjk_kinematics_forward(kb, qb, 2, base, sb, NULL), GJK_KINEMATICS_OK);
        gjk_transform pa = gjk_kinematics_link_poses(sa)[2], pb = gjk_kinematics_link_poses(sb)[2];
        assert_vec_near(pa.p, pb.p, 1e-15);
        assert_near(pa.q.w, pb.q.w, 1e-15);
        assert_near(pa.q.z, pb.q.z, 1e-15);
        /* Its gradient is the multiplier times the independent joint's, added to the lead. */
        gjk_vec3 w = gjk_transform_point(pa, gjk_v3(0.05, -0.02, 0.1)), n = gjk_v3(0.6, 0.8, 0);
        double ga = 0.0, gb[2] = {0.0, 0.0};
        assert_status(gjk_kinematics_accumulate_gradient(ka, sa, 2, w, n, 1.0, &ga),
                      GJK_KINEMATICS_OK);
        assert_status(gjk_kinematics_accumulate_gradient(kb, sb, 2, w, n, 1.0, gb),
                      GJK_KINEMATICS_OK);
        assert_near(ga, gb[0] - 0.25 * gb[1], 1e-14);
    }
    gjk_joint_info info;
    assert_status(gjk_kinematics_joint_info(ka, 1, &info), GJK_KINEMATICS_OK);
    assert_int_equal(info.mimic, 0);
    assert_int_equal(info.dof, 0);
    assert_near(info.multiplier, -0.25, 0.0);
    assert_near(info.offset, 0.5, 0.0);
    assert_near(gjk_length(info.axis), 1.0, 1e-15);
    assert_near(info.axis.x, sqrt(0.5), 1e-15);
    gjk_kinematics_state_destroy(&sa);
    gjk_kinematics_state_destroy(&sb);
    gjk_kinematics_destroy(&ka);
    gjk_kinematics_destroy(&kb);
}

/* FK output is link poses in robot-def order: the world takes it as it is. */
static void test_fk_feeds_world(void **state)
{
    (void)state;
    trobot r = panda();
    gjk_kinematics *k = t_build(&r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    double q[8] = {0.1, -0.785, 0.2, -2.356, 0.3, 1.571, 0.785, 0.02};
    assert_status(gjk_kinematics_forward(k, q, 8, gjk_transform_identity(), s, NULL),
                  GJK_KINEMATICS_OK);
    gjk_link_def links[13];
    char names[13][16];
    for (int l = 0; l < 13; ++l) {
        snprintf(names[l], sizeof names[l], "link%d", l);
        links[l] = (gjk_link_def){names[l], NULL, 0, 0.0};
    }
    gjk_robot_def rd = {.name = "panda", .links = links, .link_count = 13};
    gjk_world *w = NULL;
    int32_t id = 0;
    assert_status(gjk_world_create(NULL, &w), GJK_WORLD_OK);
    assert_status(gjk_world_put_robot(w, &rd, &id), GJK_WORLD_OK);
    assert_status(
        gjk_world_set_link_poses(w, id, gjk_kinematics_link_poses(s), gjk_kinematics_link_count(k)),
        GJK_WORLD_OK);
    gjk_world_destroy(&w);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
}

/* ------------------------------------------------------------------ gradients */

/* Is joint i on the chain from the root to link l? */
static bool t_on_chain(const trobot *r, int i, int l)
{
    for (int guard = 0; guard <= r->link_count; ++guard) {
        int up = -1;
        for (int j = 0; j < r->joint_count; ++j) {
            up = r->joints[j].child == l ? j : up;
        }
        if (up < 0) {
            return false;
        }
        if (up == i) {
            return true;
        }
        l = r->joints[up].parent;
    }
    fail();
    return false;
}

/* sum over the points of sign * n . w(q), the points given in their links' frames. */
static ld ref_objective(const trobot *r, const double *q, gjk_transform base, int count,
                        const int *links, ld (*local)[3], const ld *signs, gjk_vec3 n)
{
    m4 a[MAX_LINKS];
    ref_fk(r, q, base, a);
    ld sum = 0.0L;
    for (int p = 0; p < count; ++p) {
        ld w[3];
        ref_point(&a[links[p]], local[p], w);
        sum += signs[p] * (n.x * w[0] + n.y * w[1] + n.z * w[2]);
    }
    return sum;
}

/* The signed-distance form: +n at B's point, -n at A's, against central differences of the
 * reference (step 1e-6 in long double: truncation ~ 1e-12 * |f'''|, rounding ~ 1e-13; the
 * tolerance, 1e-9 relative, is ten times the largest error seen). A DOF moving neither point
 * must get exactly 0. */
static void check_gradient(const trobot *r, int rounds)
{
    gjk_kinematics *k = t_build(r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    int dof[MAX_LINKS];
    int nd = t_dofs(r, dof);
    const double h = 1e-6;
    for (int round = 0; round < rounds; ++round) {
        double q[MAX_LINKS];
        t_random_q(r, 2.0 * h, q);
        gjk_transform base = random_base();
        assert_status(gjk_kinematics_forward(k, q, nd, base, s, NULL), GJK_KINEMATICS_OK);
        const gjk_transform *poses = gjk_kinematics_link_poses(s);
        m4 a[MAX_LINKS];
        ref_fk(r, q, base, a);
        /* Two points (the second alone when count is 1), possibly on one link. */
        int count = 1 + (round % 3 != 0), links[2];
        ld local[2][3], signs[2] = {1.0L, -1.0L};
        gjk_vec3 n = rnd_unit();
        double grad[MAX_LINKS];
        for (int d = 0; d < nd; ++d) {
            grad[d] = 0.0;
        }
        for (int p = 0; p < count; ++p) {
            links[p] = (int)(rnd() * r->link_count);
            gjk_vec3 w = gjk_transform_point(
                poses[links[p]], gjk_v3(rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1)));
            ld wl[3] = {w.x, w.y, w.z};
            ref_local(&a[links[p]], wl, local[p]);
            assert_status(
                gjk_kinematics_accumulate_gradient(k, s, links[p], w, n, (double)signs[p], grad),
                GJK_KINEMATICS_OK);
        }
        double gmax = 0.0;
        for (int d = 0; d < nd; ++d) {
            gmax = fmax(gmax, fabs(grad[d]));
        }
        bool moves[MAX_LINKS] = {false}; /* DOF driving a joint on a point's chain */
        for (int i = 0; i < r->joint_count; ++i) {
            for (int p = 0; p < count; ++p) {
                if (dof[i] >= 0 && t_on_chain(r, i, links[p])) {
                    moves[dof[i]] = true;
                }
            }
        }
        for (int d = 0; d < nd; ++d) {
            double qp[MAX_LINKS], qm[MAX_LINKS];
            memcpy(qp, q, sizeof qp);
            memcpy(qm, q, sizeof qm);
            qp[d] += h;
            qm[d] -= h;
            ld fp = ref_objective(r, qp, base, count, links, local, signs, n);
            ld fm = ref_objective(r, qm, base, count, links, local, signs, n);
            double fd = (double)((fp - fm) / ((ld)qp[d] - (ld)qm[d]));
            assert_near(grad[d], fd, 1e-9 * fmax(1.0, gmax));
            if (!moves[d]) {
                assert_near(grad[d], 0.0, 0.0);
            }
        }
    }
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
}

static void test_gradient_random_trees(void **state)
{
    (void)state;
    test_seed(21);
    for (int tree = 0; tree < 150; ++tree) {
        trobot r = random_tree(24);
        check_gradient(&r, 4);
    }
}

static void test_gradient_arms(void **state)
{
    (void)state;
    test_seed(4);
    trobot p = panda(), u = ur5();
    check_gradient(&p, 60);
    check_gradient(&u, 60);
}

/* The closed forms of the header, for one revolute and one prismatic joint. */
static void test_gradient_closed_form(void **state)
{
    (void)state;
    trobot r = {.link_count = 3, .joint_count = 2};
    r.joints[0] = tj("spin", GJK_JOINT_CONTINUOUS, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0);
    r.joints[1] = tj("slide", GJK_JOINT_PRISMATIC, 1, 2, 1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 1);
    gjk_kinematics *k = t_build(&r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    double q[2] = {PI / 2, 0.5};
    assert_status(gjk_kinematics_forward(k, q, 2, gjk_transform_identity(), s, NULL),
                  GJK_KINEMATICS_OK);
    /* Link 2's origin: the slide turned a quarter turn about z: (0, 1.5, 1). */
    gjk_vec3 w = gjk_kinematics_link_poses(s)[2].p;
    assert_vec_near(w, gjk_v3(0, 1.5, 1), 1e-15);
    double g[2] = {0, 0};
    /* n = -x: d(n.w)/dq0 = n . (z x (w - (0,0,1))) = -x . (-1.5, 0, 0) = 1.5;
     * d(n.w)/dq1 = n . a1 = -x . y = 0. Scale 2 doubles both. */
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 2, w, gjk_v3(-1, 0, 0), 2.0, g),
                  GJK_KINEMATICS_OK);
    assert_near(g[0], 3.0, 1e-15);
    assert_near(g[1], 0.0, 1e-15);
    /* n = y: the slide's own term is 1, the spin's 0 (w - o is along y). Accumulates. */
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 2, w, gjk_v3(0, 1, 0), 1.0, g),
                  GJK_KINEMATICS_OK);
    assert_near(g[0], 3.0, 1e-15);
    assert_near(g[1], 1.0, 1e-15);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
}

static void test_gradient_refusals(void **state)
{
    (void)state;
    trobot r = ur5();
    gjk_kinematics *k = t_build(&r), *other = t_build(&r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    double g[6] = {0}, q[6] = {0};
    gjk_vec3 w = gjk_v3(0, 0, 0), n = gjk_v3(0, 0, 1);
    /* Before any forward call there are no joint frames. */
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 8, w, n, 1.0, g),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_forward(k, q, 6, gjk_transform_identity(), s, NULL),
                  GJK_KINEMATICS_OK);
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 8, w, n, 1.0, g), GJK_KINEMATICS_OK);
    assert_status(gjk_kinematics_accumulate_gradient(k, s, -1, w, n, 1.0, g),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 11, w, n, 1.0, g),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 8, gjk_v3(NAN, 0, 0), n, 1.0, g),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 8, w, gjk_v3(0, INFINITY, 0), 1.0, g),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 8, w, n, NAN, g),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_accumulate_gradient(k, s, 8, w, n, 1.0, NULL),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_accumulate_gradient(other, s, 8, w, n, 1.0, g),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_forward(other, q, 6, gjk_transform_identity(), s, NULL),
                  GJK_STATUS_INVALID_INPUT);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
    gjk_kinematics_destroy(&other);
}

/* ------------------------------------------------------------------ names and DOF */

static void test_names_and_dofs(void **state)
{
    (void)state;
    trobot r = panda();
    gjk_kinematics *k = t_build(&r);
    assert_int_equal(gjk_kinematics_dof_count(k), 8);
    assert_int_equal(gjk_kinematics_link_count(k), 13);
    assert_int_equal(gjk_kinematics_joint_count(k), 12);
    assert_int_equal(gjk_kinematics_root_link(k), 0);
    const char *const *names = gjk_kinematics_dof_names(k);
    const char *want[8] = {"panda_joint1", "panda_joint2", "panda_joint3", "panda_joint4",
                           "panda_joint5", "panda_joint6", "panda_joint7", "panda_finger_joint1"};
    const int joint_of[8] = {0, 1, 2, 3, 4, 5, 6, 10};
    for (int d = 0; d < 8; ++d) {
        assert_string_equal(names[d], want[d]);
        assert_int_equal(gjk_kinematics_dof_joint(k, d), joint_of[d]);
    }
    assert_int_equal(gjk_kinematics_dof_joint(k, 8), -1);
    assert_int_equal(gjk_kinematics_dof_joint(k, -1), -1);
    int32_t j = -5;
    for (int i = 0; i < 12; ++i) {
        assert_status(gjk_kinematics_find_joint(k, r.joints[i].name, &j), GJK_KINEMATICS_OK);
        assert_int_equal(j, i);
    }
    assert_status(gjk_kinematics_find_joint(k, "panda_joint9", &j), GJK_STATUS_NOT_FOUND);
    assert_status(gjk_kinematics_find_joint(k, "", &j), GJK_STATUS_NOT_FOUND);
    assert_status(gjk_kinematics_find_joint(k, NULL, &j), GJK_STATUS_NOT_FOUND);
    assert_int_equal(j, 11);

    gjk_joint_info info;
    assert_status(gjk_kinematics_joint_info(k, 8, &info), GJK_KINEMATICS_OK);
    assert_string_equal(info.name, "panda_hand_joint");
    assert_int_equal(info.type, GJK_JOINT_FIXED);
    assert_int_equal(info.dof, -1);
    assert_int_equal(info.parent, 8);
    assert_int_equal(info.child, 9);
    assert_true(isinf(info.lower) && info.lower < 0);
    assert_status(gjk_kinematics_joint_info(k, 11, &info), GJK_KINEMATICS_OK);
    assert_int_equal(info.dof, 7); /* the mimic is driven by finger_joint1's DOF */
    assert_int_equal(info.mimic, 10);
    assert_near(info.multiplier, 1.0, 0.0);
    assert_status(gjk_kinematics_joint_info(k, 3, &info), GJK_KINEMATICS_OK);
    assert_near(info.lower, -3.0718, 0.0);
    assert_near(info.upper, -0.0698, 0.0);
    assert_near(info.multiplier, 1.0, 0.0);
    assert_status(gjk_kinematics_joint_info(k, 12, &info), GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_joint_info(k, -1, &info), GJK_STATUS_INVALID_INPUT);

    /* A JointState: any order, mimic and fixed joints known but not DOF. */
    const char *js[5] = {"panda_finger_joint2", "panda_joint7", "panda_finger_joint1",
                         "panda_hand_joint", "panda_joint1"};
    int32_t dofs[5], bad = 9;
    assert_status(gjk_kinematics_map_dofs(k, js, 5, dofs, &bad), GJK_KINEMATICS_OK);
    assert_int_equal(bad, -1);
    assert_int_equal(dofs[0], -1);
    assert_int_equal(dofs[1], 6);
    assert_int_equal(dofs[2], 7);
    assert_int_equal(dofs[3], -1);
    assert_int_equal(dofs[4], 0);
    const char *unknown[3] = {"panda_joint1", "panda_joint2", "gripper"};
    assert_status(gjk_kinematics_map_dofs(k, unknown, 3, dofs, &bad), GJK_STATUS_NOT_FOUND);
    assert_int_equal(bad, 2);
    const char *twice[4] = {"panda_joint3", "panda_joint2", "panda_joint4", "panda_joint2"};
    assert_status(gjk_kinematics_map_dofs(k, twice, 4, dofs, &bad), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, 3);
    const char *null_name[2] = {"panda_joint3", NULL};
    assert_status(gjk_kinematics_map_dofs(k, null_name, 2, dofs, &bad), GJK_STATUS_NOT_FOUND);
    assert_int_equal(bad, 1);
    assert_status(gjk_kinematics_map_dofs(k, NULL, 0, NULL, &bad), GJK_KINEMATICS_OK);
    assert_status(gjk_kinematics_map_dofs(k, js, -1, dofs, &bad), GJK_STATUS_INVALID_INPUT);
    gjk_kinematics_destroy(&k);
}

/* ------------------------------------------------------------------ build refusals */

/* A valid chain of `n` links: 0 - 1 - ... - n-1, revolute joints about z. */
static trobot chain(int n)
{
    trobot r;
    memset(&r, 0, sizeof r);
    r.link_count = n;
    r.joint_count = n - 1;
    for (int i = 0; i < n - 1; ++i) {
        snprintf(r.names[i], sizeof r.names[i], "j%d", i);
        r.joints[i] = tj(NULL, GJK_JOINT_REVOLUTE, i, i + 1, 0, 0, 0.1, 0, 0, 0, 0, 0, 1, -1, 1);
    }
    return r;
}

/* Builds the def and expects the refusal code at the joint and link given. */
static void expect_refusal_def(gjk_joint_def *defs, int links, int joints,
                               gjk_kinematics_error_code code, int joint, int link)
{
    gjk_kinematics_def def = {links, defs, joints};
    gjk_kinematics *k = (gjk_kinematics *)&def; /* must be reset to NULL */
    gjk_kinematics_error e = {GJK_KIN_OK, 99, 99, NULL};
    gjk_status st = gjk_kinematics_build(&def, &k, &e);
    if (e.code != code || e.joint != joint || e.link != link) {
        print_error("expected code %d joint %d link %d, got code %d joint %d link %d (%s)\n",
                    (int)code, joint, link, (int)e.code, e.joint, e.link,
                    e.reason ? e.reason : "NULL");
        fail();
    }
    assert_status(st, GJK_STATUS_INVALID_INPUT);
    assert_null(k);
    assert_non_null(e.reason);
    assert_true(strlen(e.reason) > 0);
}

static void expect_refusal(const trobot *r, gjk_kinematics_error_code code, int joint, int link)
{
    gjk_joint_def defs[MAX_LINKS];
    (void)t_def(r, defs);
    expect_refusal_def(defs, r->link_count, r->joint_count, code, joint, link);
}

static void expect_accepted_def(gjk_joint_def *defs, int links, int joints)
{
    gjk_kinematics_def def = {links, defs, joints};
    gjk_kinematics *k = NULL;
    gjk_kinematics_error e;
    assert_status(gjk_kinematics_build(&def, &k, &e), GJK_KINEMATICS_OK);
    assert_int_equal(e.code, GJK_KIN_OK);
    assert_int_equal(e.joint, -1);
    gjk_kinematics_destroy(&k);
}

static void test_refuse_counts(void **state)
{
    (void)state;
    trobot r = chain(4);
    gjk_joint_def defs[MAX_LINKS];
    (void)t_def(&r, defs);
    expect_refusal_def(defs, 0, 0, GJK_KIN_BAD_COUNT, -1, -1);
    expect_refusal_def(defs, GJK_KINEMATICS_MAX_LINKS + 1, 3, GJK_KIN_BAD_COUNT, -1, -1);
    expect_refusal_def(defs, 4, -1, GJK_KIN_BAD_COUNT, -1, -1);
    expect_refusal_def(NULL, 4, 3, GJK_KIN_BAD_COUNT, -1, -1);
    gjk_kinematics *k = NULL;
    gjk_kinematics_error e;
    assert_status(gjk_kinematics_build(NULL, &k, &e), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(e.code, GJK_KIN_BAD_COUNT);
    /* The largest robot: a chain of GJK_KINEMATICS_MAX_LINKS links. */
    enum { N = GJK_KINEMATICS_MAX_LINKS };
    gjk_joint_def *big = calloc(N, sizeof *big);
    char(*names)[16] = calloc(N, sizeof *names);
    assert_non_null(big);
    assert_non_null(names);
    for (int i = 0; i < N - 1; ++i) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        big[i] = (gjk_joint_def){names[i],
                                 GJK_JOINT_CONTINUOUS,
                                 i,
                                 i + 1,
                                 gjk_transform_identity(),
                                 gjk_v3(0, 0, 1),
                                 0,
                                 0,
                                 NULL,
                                 0,
                                 0};
    }
    expect_accepted_def(big, N, N - 1);
    free(big);
    free(names);
}

static void test_refuse_names(void **state)
{
    (void)state;
    trobot r = chain(5);
    {
        gjk_joint_def defs[MAX_LINKS];
        (void)t_def(&r, defs);
        defs[2].name = NULL;
        expect_refusal_def(defs, 5, 4, GJK_KIN_BAD_NAME, 2, -1);
    }
    r.joints[2].name = "";
    expect_refusal(&r, GJK_KIN_BAD_NAME, 2, -1);
    char longest[GJK_KINEMATICS_NAME_MAX + 2];
    memset(longest, 'n', sizeof longest);
    longest[GJK_KINEMATICS_NAME_MAX + 1] = '\0';
    r.joints[2].name = longest;
    expect_refusal(&r, GJK_KIN_BAD_NAME, 2, -1);
    longest[GJK_KINEMATICS_NAME_MAX] = '\0'; /* exactly the limit */
    gjk_kinematics *k = t_build(&r);
    int32_t j = -1;
    assert_status(gjk_kinematics_find_joint(k, longest, &j), GJK_KINEMATICS_OK);
    assert_int_equal(j, 2);
    gjk_kinematics_destroy(&k);
    /* Duplicates: the later joint is named, and the earliest such in def order. */
    r = chain(6);
    r.joints[4].name = "j1";
    r.joints[3].name = "j0";
    expect_refusal(&r, GJK_KIN_DUPLICATE_NAME, 3, -1);
}

static void test_refuse_fields(void **state)
{
    (void)state;
    trobot base = chain(5), r;
    const int i = 2;

    r = base;
    r.joints[i].type = (gjk_joint_type)7;
    expect_refusal(&r, GJK_KIN_BAD_TYPE, i, -1);

    r = base;
    r.joints[i].parent = -1;
    expect_refusal(&r, GJK_KIN_UNKNOWN_LINK, i, -1);
    r = base;
    r.joints[i].child = 5;
    expect_refusal(&r, GJK_KIN_UNKNOWN_LINK, i, 5);

    /* Origins: NaN and Inf in the translation and the quaternion, beyond GJK_MAX_LENGTH,
     * a quaternion off unit norm. */
    const double bad_values[3] = {NAN, INFINITY, -INFINITY};
    for (int v = 0; v < 3; ++v) {
        r = base;
        r.joints[i].xyz[v % 3] = bad_values[v];
        expect_refusal(&r, GJK_KIN_BAD_ORIGIN, i, -1);
        r = base;
        r.joints[i].rpy[v % 3] = bad_values[v];
        expect_refusal(&r, GJK_KIN_BAD_ORIGIN, i, -1);
    }
    r = base;
    r.joints[i].xyz[1] = 2e12;
    expect_refusal(&r, GJK_KIN_BAD_ORIGIN, i, -1);
    {
        gjk_joint_def defs[MAX_LINKS];
        (void)t_def(&base, defs);
        defs[i].origin.q = gjk_quat_make(1.1, 0, 0, 0);
        expect_refusal_def(defs, 5, 4, GJK_KIN_BAD_ORIGIN, i, -1);
        defs[i].origin.q = gjk_quat_make(1.0 + 1e-7, 0, 0, 0); /* normalised */
        expect_accepted_def(defs, 5, 4);
    }

    /* Axes: zero, NaN, Inf; tiny and huge are normalised. */
    double zero[3] = {0, 0, 0};
    r = base;
    memcpy(r.joints[i].axis, zero, sizeof zero);
    expect_refusal(&r, GJK_KIN_BAD_AXIS, i, -1);
    for (int v = 0; v < 3; ++v) {
        r = base;
        r.joints[i].axis[v] = bad_values[v];
        expect_refusal(&r, GJK_KIN_BAD_AXIS, i, -1);
    }
    r = base;
    r.joints[i].axis[0] = 1e-300;
    r.joints[i].axis[2] = 0;
    {
        gjk_kinematics *k = t_build(&r);
        gjk_joint_info info;
        assert_status(gjk_kinematics_joint_info(k, i, &info), GJK_KINEMATICS_OK);
        assert_vec_near(info.axis, gjk_v3(1, 0, 0), 0.0);
        gjk_kinematics_destroy(&k);
    }
    r.joints[i].axis[0] = 1e300;
    r.joints[i].axis[1] = 1e300;
    {
        gjk_kinematics *k = t_build(&r);
        gjk_joint_info info;
        assert_status(gjk_kinematics_joint_info(k, i, &info), GJK_KINEMATICS_OK);
        assert_vec_near(info.axis, gjk_v3(sqrt(0.5), sqrt(0.5), 0), 1e-15);
        gjk_kinematics_destroy(&k);
    }
    /* A fixed joint's axis, limits and mimic are not read. */
    r = base;
    r.joints[i].type = GJK_JOINT_FIXED;
    r.joints[i].axis[0] = NAN;
    r.joints[i].lower = NAN;
    r.joints[i].upper = -INFINITY;
    r.joints[i].mimic = 0;
    r.joints[i].multiplier = NAN;
    gjk_kinematics_destroy((gjk_kinematics *[]){t_build(&r)});

    /* Limits: lower > upper, NaN, Inf; prismatic beyond GJK_MAX_LENGTH; lower == upper is a
     * joint locked in place. Continuous joints have none to check. */
    r = base;
    r.joints[i].lower = 0.5;
    r.joints[i].upper = 0.4;
    expect_refusal(&r, GJK_KIN_BAD_LIMITS, i, -1);
    r.joints[i].upper = 0.5;
    gjk_kinematics_destroy((gjk_kinematics *[]){t_build(&r)});
    for (int v = 0; v < 3; ++v) {
        r = base;
        r.joints[i].lower = bad_values[v];
        expect_refusal(&r, GJK_KIN_BAD_LIMITS, i, -1);
        r = base;
        r.joints[i].upper = bad_values[v];
        expect_refusal(&r, GJK_KIN_BAD_LIMITS, i, -1);
    }
    r = base;
    r.joints[i].type = GJK_JOINT_PRISMATIC;
    r.joints[i].upper = 2e12;
    expect_refusal(&r, GJK_KIN_BAD_LIMITS, i, -1);
    r.joints[i].type = GJK_JOINT_REVOLUTE; /* a finite angle of any size is a limit */
    gjk_kinematics_destroy((gjk_kinematics *[]){t_build(&r)});
    r.joints[i].type = GJK_JOINT_CONTINUOUS;
    r.joints[i].lower = NAN;
    gjk_kinematics_destroy((gjk_kinematics *[]){t_build(&r)});

    /* Mimic values. */
    r = base;
    r.joints[i].mimic = 0;
    r.joints[i].multiplier = NAN;
    expect_refusal(&r, GJK_KIN_BAD_MIMIC, i, -1);
    r.joints[i].multiplier = 1.0;
    r.joints[i].offset = INFINITY;
    expect_refusal(&r, GJK_KIN_BAD_MIMIC, i, -1);
}

static void test_refuse_tree(void **state)
{
    (void)state;
    /* Two parents: link 1 is the child of joints 0 and 2. */
    trobot r = chain(4);
    r.joints[2].parent = 0;
    r.joints[2].child = 1;
    expect_refusal(&r, GJK_KIN_TWO_PARENTS, 2, 1);
    /* More than one root: without joint 2, links 0 and 3 have no parent. */
    r = chain(4);
    r.joint_count = 2;
    expect_refusal(&r, GJK_KIN_MULTIPLE_ROOTS, -1, 3);
    /* No joints at all on 4 links: roots 0..3; the second is reported. */
    r.joint_count = 0;
    expect_refusal(&r, GJK_KIN_MULTIPLE_ROOTS, -1, 1);
    /* A cycle below nothing: 0 -> 1 (joint 0), 2 -> 3 (joint 1), 3 -> 2 (joint 2). Link 0 is
     * the only root; links 2 and 3 hang on each other. */
    r = chain(4);
    r.joints[1].parent = 2;
    r.joints[1].child = 3;
    r.joints[2].parent = 3;
    r.joints[2].child = 2;
    expect_refusal(&r, GJK_KIN_CYCLE, 1, 3);
    /* The same cycle, reported by its lowest joint index wherever the walk enters it. */
    r.joints[0].parent = 2;
    r.joints[0].child = 3;
    r.joints[1].parent = 0;
    r.joints[1].child = 1;
    expect_refusal(&r, GJK_KIN_CYCLE, 0, 3);
    /* A joint whose parent is its child: a cycle of one. */
    r = chain(4);
    r.joints[2].parent = 3;
    expect_refusal(&r, GJK_KIN_CYCLE, 2, 3);
    /* No root at all: 0 -> 1, 1 -> 0. */
    r = chain(2);
    r.joint_count = 2;
    r.joints[1] = r.joints[0];
    r.joints[1].name = "back";
    r.joints[1].parent = 1;
    r.joints[1].child = 0;
    expect_refusal(&r, GJK_KIN_CYCLE, 0, 1);
    /* A longer cycle with a tail hanging off it: 1 -> 2 -> 3 -> 4 -> 1, 4 -> 5; 0 is the root
     * and 0 -> 6 the only joint that reaches anything from it. */
    r = chain(7);
    const int edges[6][2] = {{2, 3}, {4, 1}, {1, 2}, {0, 6}, {3, 4}, {4, 5}};
    for (int i = 0; i < 6; ++i) {
        r.joints[i].parent = edges[i][0];
        r.joints[i].child = edges[i][1];
    }
    expect_refusal(&r, GJK_KIN_CYCLE, 0, 3);
}

static void test_refuse_mimic(void **state)
{
    (void)state;
    trobot base = chain(6), r;
    base.joints[1].type = GJK_JOINT_FIXED;
    base.joints[3].mimic = 0; /* a valid mimic */
    base.joints[3].multiplier = 1.0;

    r = base;
    r.joints[4].mimic = -1;
    {
        gjk_joint_def defs[MAX_LINKS];
        (void)t_def(&r, defs);
        defs[4].mimic = "nobody";
        defs[4].multiplier = 1.0;
        expect_refusal_def(defs, 6, 5, GJK_KIN_MIMIC_UNKNOWN, 4, -1);
    }
    r = base;
    r.joints[4].mimic = 1;
    expect_refusal(&r, GJK_KIN_MIMIC_OF_FIXED, 4, -1);
    r = base;
    r.joints[4].mimic = 3; /* a chain: 4 follows 3 follows 0 */
    expect_refusal(&r, GJK_KIN_MIMIC_OF_MIMIC, 4, -1);
    r = base;
    r.joints[4].mimic = 4; /* itself */
    expect_refusal(&r, GJK_KIN_MIMIC_OF_MIMIC, 4, -1);
    /* Joint 2 follows joint 3, which follows 0: reported at 2 (3 itself is fine). */
    r = base;
    r.joints[2].mimic = 3;
    expect_refusal(&r, GJK_KIN_MIMIC_OF_MIMIC, 2, -1);
    /* Following a joint later in the def is fine. */
    r = base;
    r.joints[0].mimic = 4;
    r.joints[0].multiplier = 2.0;
    r.joints[3].mimic = -1;
    gjk_kinematics *k = t_build(&r);
    assert_int_equal(gjk_kinematics_dof_count(k), 3); /* joints 2, 3, 4 */
    gjk_joint_info info;
    assert_status(gjk_kinematics_joint_info(k, 0, &info), GJK_KINEMATICS_OK);
    assert_int_equal(info.dof, 2);
    gjk_kinematics_destroy(&k);
}

/* ------------------------------------------------------------------ FK refusals and limits */

static void test_fk_limits(void **state)
{
    (void)state;
    /* A fixed joint first, so that joint and DOF indices differ; a prismatic joint whose
     * lower limit is 0 (absolute tolerance) and a revolute one with limits near 3 (relative). */
    trobot r = {.link_count = 5, .joint_count = 4};
    r.joints[0] = tj("mount", GJK_JOINT_FIXED, 0, 1, 0, 0, 0.1, 0, 0, 0, 0, 0, 0, 0, 0);
    r.joints[1] = tj("slide", GJK_JOINT_PRISMATIC, 1, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0.0, 0.04);
    r.joints[2] = tj("spin", GJK_JOINT_CONTINUOUS, 2, 3, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0);
    r.joints[3] = tj("turn", GJK_JOINT_REVOLUTE, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 1, -3.0, 2.5);
    gjk_kinematics *k = t_build(&r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    gjk_transform id = gjk_transform_identity();
    const double tol_slide = GJK_KINEMATICS_LIMIT_TOLERANCE;      /* max(1, 0, 0.04) = 1 */
    const double tol_turn = 3.0 * GJK_KINEMATICS_LIMIT_TOLERANCE; /* max(1, 3, 2.5) = 3 */
    struct {
        double q[3];
        gjk_status st;
        int bad;
    } cases[] = {
        {{0.0, 0.0, -3.0}, GJK_KINEMATICS_OK, -1}, /* the boundaries */
        {{0.04, 1e6, 2.5}, GJK_KINEMATICS_OK, -1}, /* continuous: any finite value */
        {{-0.5 * tol_slide, 0, 2.5 + 0.5 * tol_turn}, GJK_KINEMATICS_OK, -1}, /* within tol */
        {{0.04 + 0.5 * tol_slide, 0, -3.0 - 0.5 * tol_turn}, GJK_KINEMATICS_OK, -1},
        {{-2.0 * tol_slide, 0, 0}, GJK_STATUS_INVALID_INPUT, 1}, /* beyond it */
        {{0.04 + 2.0 * tol_slide, 0, 0}, GJK_STATUS_INVALID_INPUT, 1},
        {{0, 0, 2.5 + 2.0 * tol_turn}, GJK_STATUS_INVALID_INPUT, 3},
        {{0, 0, -3.0 - 2.0 * tol_turn}, GJK_STATUS_INVALID_INPUT, 3},
        {{NAN, 0, 0}, GJK_STATUS_INVALID_INPUT, 1},
        {{0, NAN, 0}, GJK_STATUS_INVALID_INPUT, 2},
        {{0, INFINITY, 0}, GJK_STATUS_INVALID_INPUT, 2},
        {{0, -INFINITY, 0}, GJK_STATUS_INVALID_INPUT, 2},
        {{0, 0, INFINITY}, GJK_STATUS_INVALID_INPUT, 3},
        {{0.1, 0, INFINITY}, GJK_STATUS_INVALID_INPUT, 1}, /* the first DOF in DOF order */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        /* A failing call leaves the state as it was: poses from a known good call. */
        double good[3] = {0.02, 0.5, 1.0};
        assert_status(gjk_kinematics_forward(k, good, 3, id, s, NULL), GJK_KINEMATICS_OK);
        gjk_transform before[5];
        memcpy(before, gjk_kinematics_link_poses(s), sizeof before);
        int32_t bad = 99;
        gjk_status st = gjk_kinematics_forward(k, cases[c].q, 3, id, s, &bad);
        if (st != cases[c].st || bad != cases[c].bad) {
            print_error("case %zu: status %s bad %d\n", c, gjk_status_name(st), bad);
            fail();
        }
        if (st != GJK_KINEMATICS_OK) {
            assert_memory_equal(before, gjk_kinematics_link_poses(s), sizeof before);
        }
    }
    /* Wrong count, NULL q, invalid base: no joint to blame. */
    double q[3] = {0, 0, 0};
    int32_t bad = 99;
    assert_status(gjk_kinematics_forward(k, q, 2, id, s, &bad), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, -1);
    assert_status(gjk_kinematics_forward(k, NULL, 3, id, s, &bad), GJK_STATUS_INVALID_INPUT);
    gjk_transform nan_base = gjk_transform_make(gjk_quat_identity(), gjk_v3(NAN, 0, 0));
    bad = 99;
    assert_status(gjk_kinematics_forward(k, q, 3, nan_base, s, &bad), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, -1);
    gjk_transform skew = gjk_transform_make(gjk_quat_make(2, 0, 0, 0), gjk_v3(0, 0, 0));
    assert_status(gjk_kinematics_forward(k, q, 3, skew, s, &bad), GJK_STATUS_INVALID_INPUT);
    gjk_transform far = gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 2e12));
    assert_status(gjk_kinematics_forward(k, q, 3, far, s, &bad), GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_kinematics_forward(k, q, 3, id, NULL, &bad), GJK_STATUS_INVALID_INPUT);
    gjk_kinematics_state_destroy(&s);
    assert_status(gjk_kinematics_state_create(NULL, &s), GJK_STATUS_INVALID_INPUT);
    assert_null(s);
    gjk_kinematics_destroy(&k);
}

/* The Panda's joint 4 never reaches 0: the zero vector is refused, at joint 3. */
static void test_fk_panda_zero_refused(void **state)
{
    (void)state;
    trobot r = panda();
    gjk_kinematics *k = t_build(&r);
    gjk_kinematics_state *s = NULL;
    assert_status(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    double q[8] = {0};
    int32_t bad = -1;
    assert_status(gjk_kinematics_forward(k, q, 8, gjk_transform_identity(), s, &bad),
                  GJK_STATUS_INVALID_INPUT);
    assert_int_equal(bad, 3);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quat_from_rpy),
        cmocka_unit_test(test_fk_single_link),
        cmocka_unit_test(test_fk_ur5_zero_pose),
        cmocka_unit_test(test_fk_panda),
        cmocka_unit_test(test_fk_ur5),
        cmocka_unit_test(test_fk_random_trees),
        cmocka_unit_test(test_mimic_matches_independent_joint),
        cmocka_unit_test(test_fk_feeds_world),
        cmocka_unit_test(test_gradient_closed_form),
        cmocka_unit_test(test_gradient_random_trees),
        cmocka_unit_test(test_gradient_arms),
        cmocka_unit_test(test_gradient_refusals),
        cmocka_unit_test(test_names_and_dofs),
        cmocka_unit_test(test_refuse_counts),
        cmocka_unit_test(test_refuse_names),
        cmocka_unit_test(test_refuse_fields),
        cmocka_unit_test(test_refuse_tree),
        cmocka_unit_test(test_refuse_mimic),
        cmocka_unit_test(test_fk_limits),
        cmocka_unit_test(test_fk_panda_zero_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
