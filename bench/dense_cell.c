/* dense_cell.c — the dense work cell (see dense_cell.h). */
#include "dense_cell.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HP 1.5707963267948966
#define PI 3.14159265358979323846
#define KEYFRAMES 6

/* ------------------------------------------------------------------ random numbers */

typedef struct rng {
    uint64_t s;
} rng;

static double rnd(rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (double)((r->s * 2685821657736338717u) >> 11) * 0x1.0p-53;
}

static double range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * rnd(r);
}

static rng seeded(uint64_t seed)
{
    rng r = {seed * 0x9E3779B97F4A7C15u + 0x853C49E6748FEA9Bu};
    if (r.s == 0)
        r.s = 1;
    for (int i = 0; i < 8; ++i)
        rnd(&r);
    return r;
}

/* ------------------------------------------------------------------ hulls */

static double spow(double v, double e)
{
    return (v < 0 ? -1.0 : 1.0) * pow(fabs(v), e);
}

/* Hull of n random points on the superellipsoid with half-axes h and exponents e1 (latitude)
 * and e2 (longitude); e1 = e2 = 1 is an ellipsoid, smaller values are boxier. */
static gjk_status hull(dense_cell *c, rng *r, int n, gjk_vec3 h, double e1, double e2,
                       gjk_shape *out)
{
    if (c->poly_count == c->poly_capacity) /* shapes point into polys: it never moves */
        return GJK_STATUS_OUT_OF_MEMORY;
    gjk_vec3 *pts = malloc((size_t)n * sizeof *pts);
    if (!pts)
        return GJK_STATUS_OUT_OF_MEMORY;
    for (int i = 0; i < n; ++i) {
        double v = asin(range(r, -1, 1)), u = range(r, -PI, PI);
        pts[i] = gjk_v3(h.x * spow(cos(v), e1) * spow(cos(u), e2),
                        h.y * spow(cos(v), e1) * spow(sin(u), e2), h.z * spow(sin(v), e1));
    }
    gjk_polytope *poly = &c->polys[c->poly_count];
    gjk_status s = gjk_hull_build(poly, pts, n, NULL);
    free(pts);
    if (s != GJK_STATUS_SEPARATED)
        return s;
    ++c->poly_count;
    *out = gjk_make_polytope(poly);
    return GJK_WORLD_OK;
}

/* ------------------------------------------------------------------ the arm */

/* panda_description/urdf/panda.urdf: joint origins (xyz, rpy) and limits of panda_joint1..7. */
static const double panda_joints[DENSE_LINKS][8] = {
    {0, 0, 0.333, 0, 0, 0, -2.8973, 2.8973},         {0, 0, 0, -HP, 0, 0, -1.7628, 1.7628},
    {0, -0.316, 0, HP, 0, 0, -2.8973, 2.8973},       {0.0825, 0, 0, HP, 0, 0, -3.0718, -0.0698},
    {-0.0825, 0.384, 0, -HP, 0, 0, -2.8973, 2.8973}, {0, 0, 0, HP, 0, 0, -0.0175, 3.7525},
    {0.088, 0, 0, HP, 0, 0, -2.8973, 2.8973},
};

/* Tool centre point in panda_link7's frame: flange 0.107, hand 0.1034 beyond it. */
#define TCP_Z 0.2104

/* Link parts in their link frames (approximating the Panda's meshes): link, centre,
 * half-axes, exponents (0 = a box part), points. 16 parts, 40-250 points. */
typedef struct part_spec {
    int link;
    double c[3], h[3], e1, e2;
    int n;
} part_spec;

static const part_spec arm_parts[] = {
    {0, {0, 0, -0.10}, {0.065, 0.065, 0.09}, 1.0, 1.0, 120},
    {0, {0, -0.02, 0}, {0.06, 0.07, 0.06}, 0.6, 1.0, 80},
    {1, {0, 0, 0}, {0.06, 0.06, 0.07}, 0.7, 1.0, 80},
    {1, {0, -0.15, 0}, {0.06, 0.11, 0.06}, 1.0, 0.8, 150},
    {2, {0, 0, -0.09}, {0.06, 0.06, 0.09}, 1.0, 1.0, 120},
    {2, {0.06, 0, 0}, {0.07, 0.06, 0.06}, 0.6, 0.9, 80},
    {3, {0, 0, 0}, {0.06, 0.06, 0.07}, 0.7, 1.0, 80},
    {3, {-0.04, 0.13, 0}, {0.065, 0.1, 0.06}, 1.0, 1.0, 150},
    {3, {-0.08, 0.22, 0}, {0.045, 0.05, 0.045}, 0.5, 0.5, 60},
    {4, {0, 0.03, -0.22}, {0.06, 0.06, 0.06}, 1.0, 1.0, 100},
    {4, {0, 0.06, -0.12}, {0.04, 0.035, 0.06}, 0, 0, 0},
    {4, {0, 0, -0.04}, {0.045, 0.045, 0.05}, 0.8, 1.0, 120},
    {5, {0, 0, -0.01}, {0.06, 0.06, 0.06}, 1.0, 1.0, 100},
    {5, {0.07, 0, 0}, {0.05, 0.05, 0.05}, 0.7, 0.7, 40},
    {6, {0, 0, 0.07}, {0.04, 0.04, 0.04}, 1.0, 1.0, 100},
    {6, {0, 0, 0.165}, {0.035, 0.1, 0.055}, 0.3, 0.4, 250}, /* hand and fingers */
};
#define ARM_PARTS ((int)(sizeof arm_parts / sizeof arm_parts[0]))

static gjk_status build_kinematics(dense_cell *c)
{
    gjk_joint_def joints[DENSE_LINKS];
    static const char *names[DENSE_LINKS] = {"panda_joint1", "panda_joint2", "panda_joint3",
                                             "panda_joint4", "panda_joint5", "panda_joint6",
                                             "panda_joint7"};
    memset(joints, 0, sizeof joints);
    for (int j = 0; j < DENSE_LINKS; ++j) {
        const double *r = panda_joints[j];
        joints[j].name = names[j];
        joints[j].type = GJK_JOINT_REVOLUTE;
        joints[j].parent = j; /* link 0 = panda_link0, the root (the base pose) */
        joints[j].child = j + 1;
        joints[j].origin =
            gjk_transform_make(gjk_quat_from_rpy(r[3], r[4], r[5]), gjk_v3(r[0], r[1], r[2]));
        joints[j].axis = gjk_v3(0, 0, 1);
        joints[j].lower = c->lower[j] = r[6];
        joints[j].upper = c->upper[j] = r[7];
    }
    gjk_kinematics_def def = {DENSE_LINKS + 1, joints, DENSE_LINKS};
    return gjk_kinematics_build(&def, &c->kinematics, NULL);
}

static gjk_status add_arm(dense_cell *c, rng *r)
{
    gjk_part_def parts[ARM_PARTS];
    gjk_link_def links[DENSE_LINKS];
    static const char *names[DENSE_LINKS] = {"panda_link1", "panda_link2", "panda_link3",
                                             "panda_link4", "panda_link5", "panda_link6",
                                             "panda_link7"};
    memset(parts, 0, sizeof parts);
    memset(links, 0, sizeof links);
    c->link_parts = calloc(ARM_PARTS, sizeof *c->link_parts);
    if (!c->link_parts)
        return GJK_STATUS_OUT_OF_MEMORY;
    for (int i = 0; i < ARM_PARTS; ++i) {
        const part_spec *s = &arm_parts[i];
        gjk_vec3 h = gjk_v3(s->h[0], s->h[1], s->h[2]);
        if (s->n == 0) {
            parts[i].shape = gjk_make_box(h);
        } else {
            gjk_status st = hull(c, r, s->n, h, s->e1, s->e2, &parts[i].shape);
            if (st != GJK_WORLD_OK)
                return st;
        }
        parts[i].pose = gjk_transform_make(gjk_quat_identity(), gjk_v3(s->c[0], s->c[1], s->c[2]));
        if (s->link == 6 && s->c[2] > 0.1) /* the hand is turned -45 degrees about the flange */
            parts[i].pose.q = gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), -0.25 * PI);
        dense_part *d = &c->link_parts[i];
        d->shape = parts[i].shape;
        d->pose = parts[i].pose;
        d->body_pose = gjk_transform_identity();
        d->body = s->link;
        d->index = links[s->link].part_count;
        if (links[s->link].part_count++ == 0)
            links[s->link].parts = &parts[i];
    }
    c->link_part_count = ARM_PARTS;
    gjk_link_name_pair adjacent[DENSE_LINKS - 1];
    for (int l = 0; l < DENSE_LINKS; ++l)
        links[l].name = names[l];
    for (int l = 0; l + 1 < DENSE_LINKS; ++l) {
        adjacent[l].a = names[l];
        adjacent[l].b = names[l + 1];
        c->disabled[l][l + 1] = c->disabled[l + 1][l] = true;
    }
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "panda";
    def.links = links;
    def.link_count = DENSE_LINKS;
    def.self_collision = true;
    def.disabled_pairs = adjacent;
    def.disabled_pair_count = DENSE_LINKS - 1;
    return gjk_world_put_robot(c->world, &def, &c->robot);
}

/* ------------------------------------------------------------------ trajectory */

/* Home, over the table, pick, lift, in front of the shelf, place (radians). */
static const double keyframes[KEYFRAMES][DENSE_LINKS] = {
    {0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785}, {0.05, 0.45, 0.0, -2.1, 0.0, 2.55, 0.785},
    {0.05, 0.8, 0.0, -1.9, 0.0, 2.7, 0.785},       {0.4, 0.55, 0.0, -1.95, 0.0, 2.5, 0.785},
    {1.45, -0.05, 0.0, -2.0, 0.0, 1.95, 0.785},    {1.5, 0.25, 0.0, -1.85, 0.0, 2.1, 0.785},
};

/* Catmull-Rom through the keyframes (end keyframes doubled), uniform in the spline
 * parameter, clamped to the limits. */
static void spline(dense_cell *c)
{
    for (int32_t w = 0; w < c->waypoints; ++w) {
        double u = (double)w * (KEYFRAMES - 1) / (c->waypoints - 1);
        int k = (int)u;
        if (k > KEYFRAMES - 2)
            k = KEYFRAMES - 2;
        double t = u - k, t2 = t * t, t3 = t2 * t;
        const double *p0 = keyframes[k > 0 ? k - 1 : 0], *p1 = keyframes[k];
        const double *p2 = keyframes[k + 1], *p3 = keyframes[k + 2 < KEYFRAMES ? k + 2 : k + 1];
        for (int j = 0; j < DENSE_LINKS; ++j) {
            double v = 0.5 * (2 * p1[j] + (-p0[j] + p2[j]) * t +
                              (2 * p0[j] - 5 * p1[j] + 4 * p2[j] - p3[j]) * t2 +
                              (-p0[j] + 3 * p1[j] - 3 * p2[j] + p3[j]) * t3);
            c->q[w * DENSE_LINKS + j] = fmin(c->upper[j], fmax(c->lower[j], v));
        }
    }
}

gjk_status dense_cell_poses(const dense_cell *c, const double *q, int32_t n, gjk_transform *poses)
{
    gjk_kinematics_state *s = NULL;
    gjk_status st = gjk_kinematics_state_create(c->kinematics, &s);
    for (int32_t w = 0; w < n && st == GJK_KINEMATICS_OK; ++w) {
        st = gjk_kinematics_forward(c->kinematics, &q[w * DENSE_LINKS], DENSE_LINKS,
                                    gjk_transform_identity(), s, NULL);
        if (st == GJK_KINEMATICS_OK)
            memcpy(&poses[w * DENSE_LINKS], gjk_kinematics_link_poses(s) + 1,
                   DENSE_LINKS * sizeof *poses); /* links 1..7; link 0 is the base */
    }
    gjk_kinematics_state_destroy(&s);
    return st;
}

void dense_cell_perturb(const dense_cell *c, uint64_t seed, double amplitude, double *q_out)
{
    rng r = seeded(seed);
    for (int32_t i = 0; i < c->waypoints * DENSE_LINKS; ++i) {
        int j = i % DENSE_LINKS;
        double v = c->q[i] + range(&r, -amplitude, amplitude);
        q_out[i] = fmin(c->upper[j], fmax(c->lower[j], v));
    }
}

static gjk_vec3 tcp_at(const dense_cell *c, const double *q)
{
    gjk_transform poses[DENSE_LINKS];
    if (dense_cell_poses(c, q, 1, poses) != GJK_KINEMATICS_OK)
        return gjk_v3(0, 0, 0);
    return gjk_transform_point(poses[DENSE_LINKS - 1], gjk_v3(0, 0, TCP_Z));
}

/* ------------------------------------------------------------------ obstacles */

#define MAX_OBSTACLE_PARTS 8 /* per obstacle */
/* Capacities of the cell's arrays (the scene has 100 obstacles, 137 parts, 107 hulls). */
#define MAX_OBSTACLES 128
#define MAX_SCENE_OBSTACLE_PARTS 256
#define MAX_POLYTOPES 256

typedef struct obstacle_builder {
    gjk_part_def parts[MAX_OBSTACLE_PARTS];
    int n;
} obstacle_builder;

static void add_box(obstacle_builder *b, gjk_vec3 centre, gjk_vec3 half)
{
    gjk_part_def *p = &b->parts[b->n++];
    memset(p, 0, sizeof *p);
    p->shape = gjk_make_box(half);
    p->pose = gjk_transform_make(gjk_quat_identity(), centre);
}

static gjk_status add_hull(dense_cell *c, rng *r, obstacle_builder *b, gjk_vec3 centre,
                           gjk_vec3 half, double e1, double e2, int n)
{
    gjk_part_def *p = &b->parts[b->n];
    memset(p, 0, sizeof *p);
    gjk_status s = hull(c, r, n, half, e1, e2, &p->shape);
    if (s != GJK_WORLD_OK)
        return s;
    p->pose = gjk_transform_make(gjk_quat_identity(), centre);
    ++b->n;
    return GJK_WORLD_OK;
}

static gjk_status put_obstacle(dense_cell *c, const char *name, obstacle_builder *b,
                               gjk_transform pose)
{
    gjk_obstacle_def def;
    memset(&def, 0, sizeof def);
    def.name = name;
    def.parts = b->parts;
    def.part_count = b->n;
    def.pose = pose;
    if (c->obstacle_count == MAX_OBSTACLES ||
        c->obstacle_part_count + b->n > MAX_SCENE_OBSTACLE_PARTS)
        return GJK_STATUS_OUT_OF_MEMORY;
    int32_t id;
    gjk_status s = gjk_world_put_obstacle(c->world, &def, &id);
    if (s != GJK_WORLD_OK)
        return s;
    int32_t index = c->obstacle_count++;
    c->obstacle_ids[index] = id;
    for (int i = 0; i < b->n; ++i) {
        dense_part *d = &c->obstacle_parts[c->obstacle_part_count++];
        d->shape = b->parts[i].shape;
        d->pose = b->parts[i].pose;
        d->body_pose = pose;
        d->body = index;
        d->index = i;
    }
    b->n = 0;
    return GJK_WORLD_OK;
}

/* A surface clutter can stand on: a rectangle at height z, and the items already on it. */
typedef struct surface {
    double x0, x1, y0, y1, z;
} surface;

#define MAX_ITEMS 72
#define TABLE_NEAR 30 /* table items around the pick point */

typedef struct placed {
    double x, y, r;
} placed;

/* One clutter item standing on s near (x, y): a hull (20-500 points: boxes, cans, bottles,
 * rocks), two-part items a body with a cap or a handle. */
static gjk_status add_item(dense_cell *c, rng *r, int index, double x, double y, double z,
                           double size, bool two_part)
{
    obstacle_builder b;
    b.n = 0;
    double hx = size * range(r, 0.6, 1.0), hy = size * range(r, 0.6, 1.0);
    double hz = size * range(r, 0.6, 2.0);
    double e1 = range(r, 0.3, 1.0), e2 = range(r, 0.3, 1.0);
    int n = 20 + (int)(480 * rnd(r) * rnd(r)); /* 20 .. 500, mostly small */
    gjk_status s = add_hull(c, r, &b, gjk_v3(0, 0, hz), gjk_v3(hx, hy, hz), e1, e2, n);
    if (s == GJK_WORLD_OK && two_part) {
        if (index % 2 == 0) /* a cap on a bottle */
            s = add_hull(c, r, &b, gjk_v3(0, 0, 2 * hz + 0.3 * size),
                         gjk_v3(0.4 * hx, 0.4 * hy, 0.3 * size), 1.0, 1.0, 30);
        else /* a handle on a mug */
            s = add_hull(c, r, &b, gjk_v3(hx + 0.25 * size, 0, hz),
                         gjk_v3(0.25 * size, 0.1 * size, 0.5 * hz), 0.8, 0.8, 40);
    }
    if (s != GJK_WORLD_OK)
        return s;
    char name[32];
    snprintf(name, sizeof name, "item%02d", index);
    gjk_transform pose = gjk_transform_make(
        gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), range(r, -PI, PI)), gjk_v3(x, y, z + 0.001));
    return put_obstacle(c, name, &b, pose);
}

/* Scatters `count` items on s without overlaps between their footprints: the first `near`
 * of them within `radius` of one of the focus points (the first of all at focus[0] itself
 * when `exact`), the others anywhere on s. */
static gjk_status scatter(dense_cell *c, rng *r, const surface *s, int count, int near,
                          const gjk_vec3 *focus_points, int focus_count, double radius, bool exact,
                          int *item, placed *taken, int *taken_count)
{
    for (int k = 0; k < count; ++k) {
        double size = range(r, 0.02, 0.05), x = 0, y = 0;
        bool ok = false;
        for (int attempt = 0; attempt < 200 && !ok; ++attempt) {
            if (k < near) {
                gjk_vec3 f = focus_points[(int)(rnd(r) * focus_count) % focus_count];
                x = fmin(s->x1 - size, fmax(s->x0 + size, f.x + range(r, -radius, radius)));
                y = fmin(s->y1 - size, fmax(s->y0 + size, f.y + range(r, -radius, radius)));
            } else {
                x = range(r, s->x0 + size, s->x1 - size);
                y = range(r, s->y0 + size, s->y1 - size);
            }
            if (k == 0 && exact) {
                x = focus_points[0].x;
                y = focus_points[0].y;
                size = 0.025;
            }
            ok = true;
            for (int i = 0; i < *taken_count && ok; ++i) {
                double dx = x - taken[i].x, dy = y - taken[i].y, m = 1.6 * (size + taken[i].r);
                ok = dx * dx + dy * dy > m * m;
            }
        }
        if (*taken_count == MAX_ITEMS) /* the last attempt is kept when none fits */
            return GJK_STATUS_OUT_OF_MEMORY;
        taken[(*taken_count)++] = (placed){x, y, size};
        gjk_status st = add_item(c, r, *item, x, y, s->z, size, *item % 8 == 3);
        if (st != GJK_WORLD_OK)
            return st;
        ++*item;
    }
    return GJK_WORLD_OK;
}

/* A shelf unit of 7 boxes (two sides, back, four boards) with its opening towards -y' (its
 * frame is rotated by yaw about z), standing on the floor with its top board's upper face at
 * `top`. Returns its boards' surfaces (world frame, axis-aligned since yaw is 0 or pi/2 here). */
static gjk_status add_shelf(dense_cell *c, const char *name, gjk_vec3 centre, double yaw,
                            double top, surface boards[4])
{
    obstacle_builder b;
    b.n = 0;
    const double w = 0.45, d = 0.17, t = 0.01; /* half width, half depth, half thickness */
    double floor = -0.75, gap = (top - floor) / 3.0;
    add_box(&b, gjk_v3(-w, 0, 0.5 * (top + floor)), gjk_v3(t, d, 0.5 * (top - floor)));
    add_box(&b, gjk_v3(w, 0, 0.5 * (top + floor)), gjk_v3(t, d, 0.5 * (top - floor)));
    add_box(&b, gjk_v3(0, d, 0.5 * (top + floor)), gjk_v3(w, t, 0.5 * (top - floor)));
    for (int k = 0; k < 4; ++k) {
        double z = floor + 0.02 + k * gap - t;
        if (k == 3)
            z = top - t;
        add_box(&b, gjk_v3(0, 0, z), gjk_v3(w - t, d - t, t));
        /* yaw 0: frame = world shifted; yaw pi/2: x' = -y, y' = x */
        double cx = centre.x, cy = centre.y;
        if (yaw == 0.0)
            boards[k] =
                (surface){cx - w + 0.02, cx + w - 0.02, cy - d + 0.01, cy + d - 0.03, z + t};
        else
            boards[k] =
                (surface){cx - d + 0.03, cx + d - 0.01, cy - w + 0.02, cy + w - 0.02, z + t};
    }
    gjk_transform pose = gjk_transform_make(gjk_quat_from_axis_angle(gjk_v3(0, 0, 1), yaw),
                                            gjk_v3(centre.x, centre.y, 0));
    return put_obstacle(c, name, &b, pose);
}

static gjk_status add_obstacles(dense_cell *c, rng *r)
{
    obstacle_builder b;
    b.n = 0;
    gjk_status s;
    /* The table top is under the pick point: the picked item (5 cm tall at least) stands on it
     * between the fingers. The arm stands on a mounting plate at the table's back edge. */
    double table = c->pick.z - 0.05;
    /* mounting plate and the arm's base (panda_link0) on it */
    add_box(&b, gjk_v3(0, 0, table + 0.01), gjk_v3(0.15, 0.15, 0.01));
    add_box(&b, gjk_v3(0, 0, 0.5 * (table + 0.02)), gjk_v3(0.1, 0.1, 0.5 * (-table - 0.02)));
    if ((s = add_hull(c, r, &b, gjk_v3(-0.03, 0, 0.06), gjk_v3(0.1, 0.08, 0.06), 0.7, 0.9, 100)) !=
        GJK_WORLD_OK)
        return s;
    if ((s = put_obstacle(c, "mount", &b, gjk_transform_identity())) != GJK_WORLD_OK)
        return s;
    /* table: top and four legs */
    const double tx0 = -0.2, tx1 = 0.9, ty0 = -0.6, ty1 = 0.5, floor = -0.75;
    add_box(&b, gjk_v3(0.5 * (tx0 + tx1), 0, table - 0.02),
            gjk_v3(0.5 * (tx1 - tx0), 0.5 * (ty1 - ty0), 0.02));
    for (int k = 0; k < 4; ++k)
        add_box(&b,
                gjk_v3(k & 1 ? tx1 - 0.04 : tx0 + 0.04, k & 2 ? ty1 - 0.04 : ty0 + 0.04,
                       0.5 * (table - 0.04 + floor)),
                gjk_v3(0.03, 0.03, 0.5 * (table - 0.04 - floor)));
    if ((s = put_obstacle(c, "table", &b, gjk_transform_identity())) != GJK_WORLD_OK)
        return s;
    /* shelf 1 behind the place point (its top board under it, opening towards the arm),
     * shelf 2 on the other side of the cell */
    surface boards[2][4];
    gjk_vec3 sc = gjk_v3(c->place.x, c->place.y + 0.1, 0);
    if ((s = add_shelf(c, "shelf1", sc, 0.0, c->place.z - 0.05, boards[0])) != GJK_WORLD_OK)
        return s;
    if ((s = add_shelf(c, "shelf2", gjk_v3(0.3, -0.95, 0), 0.0, 0.55, boards[1])) != GJK_WORLD_OK)
        return s;
    /* wall behind the cell */
    add_box(&b, gjk_v3(-0.6, 0, 0.5), gjk_v3(0.02, 1.4, 1.3));
    if ((s = put_obstacle(c, "wall", &b, gjk_transform_identity())) != GJK_WORLD_OK)
        return s;
    /* 13 posts: the cell's frame and a light curtain */
    for (int k = 0; k < 13; ++k) {
        double a = 2.0 * PI * k / 13.0 + 0.2;
        gjk_vec3 at = gjk_v3(0.25 + 1.25 * cos(a), 1.3 * sin(a), 0.3);
        if (at.x < -0.55)
            at.x = -0.55;
        add_box(&b, gjk_v3(0, 0, 0), gjk_v3(0.025, 0.025, 1.05));
        char name[16];
        snprintf(name, sizeof name, "post%02d", k);
        if ((s = put_obstacle(c, name, &b, gjk_transform_make(gjk_quat_identity(), at))) !=
            GJK_WORLD_OK)
            return s;
    }
    /* 10 hanging lamps: a cord and a shade */
    for (int k = 0; k < 10; ++k) {
        double x = range(r, -0.3, 1.0), y = range(r, -1.0, 1.0), z = range(r, 0.95, 1.3);
        add_box(&b, gjk_v3(0, 0, 0.3), gjk_v3(0.004, 0.004, 0.3));
        if ((s = add_hull(c, r, &b, gjk_v3(0, 0, -0.04), gjk_v3(0.12, 0.12, 0.05), 0.5, 1.0,
                          60 + 10 * k)) != GJK_WORLD_OK)
            return s;
        char name[16];
        snprintf(name, sizeof name, "lamp%02d", k);
        if ((s = put_obstacle(c, name, &b,
                              gjk_transform_make(gjk_quat_identity(), gjk_v3(x, y, z)))) !=
            GJK_WORLD_OK)
            return s;
    }
    /* 72 clutter items: 36 on the table (the first is the picked one), 6 on each of the 6
     * boards of shelf 1's top, shelf 1's middle ones and shelf 2 */
    placed taken[MAX_ITEMS];
    int item = 0, taken_count = 0;
    surface top = {0.2, tx1 - 0.02, ty0 + 0.02, ty1 - 0.02, table};
    /* focus points: where the tool passes low over the table (the pick first) */
    gjk_vec3 *low = malloc(((size_t)c->waypoints + 1) * sizeof *low);
    gjk_transform *poses = malloc((size_t)c->waypoints * DENSE_LINKS * sizeof *poses);
    if (!low || !poses || dense_cell_poses(c, c->q, c->waypoints, poses) != GJK_KINEMATICS_OK) {
        free(low);
        free(poses);
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    int low_count = 0;
    low[low_count++] = c->pick;
    for (int32_t w = 0; w < c->waypoints; ++w) {
        gjk_vec3 p =
            gjk_transform_point(poses[w * DENSE_LINKS + DENSE_LINKS - 1], gjk_v3(0, 0, TCP_Z));
        if (p.z < table + 0.3 && p.x > 0.2 && p.y < ty1)
            low[low_count++] = p;
    }
    free(poses);
    s = scatter(c, r, &top, 36, TABLE_NEAR, low, low_count, 0.16, true, &item, taken, &taken_count);
    free(low);
    if (s != GJK_WORLD_OK)
        return s;
    for (int k = 0; k < 6; ++k) {
        const surface *board = k < 3 ? &boards[0][3 - k] : &boards[1][6 - k];
        taken_count = 0;
        if (k == 0) /* keep the place point free */
            taken[taken_count++] = (placed){c->place.x, c->place.y, 0.08};
        if ((s = scatter(c, r, board, 6, k == 0 ? 6 : 0, &c->place, 1, 0.2, false, &item, taken,
                         &taken_count)) != GJK_WORLD_OK)
            return s;
    }
    return GJK_WORLD_OK;
}

/* ------------------------------------------------------------------ the cell */

void dense_cell_destroy(dense_cell **cell)
{
    if (!cell || !*cell)
        return;
    dense_cell *c = *cell;
    gjk_world_destroy(&c->world);
    gjk_kinematics_destroy(&c->kinematics);
    for (int32_t i = 0; i < c->poly_count; ++i)
        gjk_polytope_destroy(&c->polys[i]);
    free(c->polys);
    free(c->obstacle_ids);
    free(c->link_parts);
    free(c->obstacle_parts);
    free(c->q);
    free(c);
    *cell = NULL;
}

gjk_status dense_cell_create(uint64_t seed, int32_t waypoints, dense_cell **out)
{
    *out = NULL;
    if (waypoints < KEYFRAMES)
        return GJK_STATUS_INVALID_INPUT;
    dense_cell *c = calloc(1, sizeof *c);
    if (!c)
        return GJK_STATUS_OUT_OF_MEMORY;
    rng r = seeded(seed);
    c->waypoints = waypoints;
    c->q = malloc((size_t)waypoints * DENSE_LINKS * sizeof *c->q);
    c->obstacle_ids = malloc(MAX_OBSTACLES * sizeof *c->obstacle_ids);
    c->obstacle_parts = calloc(MAX_SCENE_OBSTACLE_PARTS, sizeof *c->obstacle_parts);
    c->poly_capacity = MAX_POLYTOPES;
    c->polys = calloc((size_t)c->poly_capacity, sizeof *c->polys);
    gjk_status s = GJK_STATUS_OUT_OF_MEMORY;
    if (c->q && c->obstacle_ids && c->obstacle_parts && c->polys)
        s = gjk_world_create(NULL, &c->world);
    if (s == GJK_WORLD_OK)
        s = build_kinematics(c);
    if (s == GJK_WORLD_OK) {
        spline(c);
        c->pick = tcp_at(c, keyframes[2]);
        c->place = tcp_at(c, keyframes[KEYFRAMES - 1]);
        s = add_arm(c, &r);
    }
    if (s == GJK_WORLD_OK)
        s = add_obstacles(c, &r);
    if (s != GJK_WORLD_OK) {
        dense_cell_destroy(&c);
        return s;
    }
    *out = c;
    return GJK_WORLD_OK;
}
