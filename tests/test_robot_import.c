/* test_robot_import.c — URDF/SRDF + mesh import (clients/robot/gjkd_urdf.h).
 *
 * The vendored Panda and UR5 (data/robots, argv[1] = that folder, the package path) import
 * with the counts, names and limits of their XML, their SRDF pairs disabled, their meshes
 * hulled inside each mesh's bounding box (read here from the binary STL independently), and
 * forward kinematics of the imported joints (gjk_kinematics_build on the message) equal to an
 * FK written here with 4x4 matrices from the URDF numbers. Generated files in a temp dir cover
 * every refusal, COLLADA units and up axis, OBJ objects as parts, ASCII vs binary STL, scale,
 * package paths, adjacency through geometry-less links and mimic chains. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "gjk/hull.h"
#include "gjk/kinematics.h"
#include "gjkd_json.h"
#include "gjkd_urdf.h"

static const char *robots_dir;
static char tmp_dir[256];

/* ------------------------------------------------------------------ helpers */

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *tmp_path(const char *name)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tmp_dir, name);
    return path[k];
}

/* Imports; on failure prints the error (or returns it in err). */
static bool import(const char *urdf, const char *srdf, const char *package_path,
                   gjkd_urdf_result *r, char *err)
{
    gjkd_urdf_options o;
    gjkd_urdf_options_init(&o);
    o.srdf_path = srdf;
    const char *paths[1] = {package_path};
    o.package_paths = paths;
    o.package_path_count = package_path ? 1 : 0;
    char buf[GJKD_URDF_ERROR_SIZE];
    bool ok = gjkd_urdf_import(urdf, &o, r, err ? err : buf, GJKD_URDF_ERROR_SIZE);
    if (!ok && !err)
        print_error("import %s: %s\n", urdf, buf);
    return ok;
}

/* Imports generated text that must fail; the error must contain every needle. */
static void expect_error(const char *urdf_text, const char *srdf_text, const char *needle1,
                         const char *needle2)
{
    write_file("bad.urdf", urdf_text);
    if (srdf_text)
        write_file("bad.srdf", srdf_text);
    gjkd_urdf_result r;
    char err[GJKD_URDF_ERROR_SIZE];
    bool ok = import(tmp_path("bad.urdf"), srdf_text ? tmp_path("bad.srdf") : NULL, NULL, &r, err);
    if (ok) {
        gjkd_urdf_result_free(&r);
        print_error("import succeeded; expected an error with \"%s\"\n", needle1);
        fail();
    }
    assert_null(r.robot);
    if (!strstr(err, needle1) || (needle2 && !strstr(err, needle2))) {
        print_error("error \"%s\" lacks \"%s\" / \"%s\"\n", err, needle1, needle2 ? needle2 : "");
        fail();
    }
}

static const Gjkd__V1__Link *find_link(const Gjkd__V1__Robot *r, const char *name)
{
    for (size_t i = 0; i < r->n_links; ++i)
        if (strcmp(r->links[i]->name, name) == 0)
            return r->links[i];
    return NULL;
}

static const Gjkd__V1__Joint *find_joint(const Gjkd__V1__Robot *r, const char *name)
{
    for (size_t i = 0; i < r->n_joints; ++i)
        if (strcmp(r->joints[i]->name, name) == 0)
            return r->joints[i];
    return NULL;
}

static bool has_pair(const Gjkd__V1__Robot *r, const char *a, const char *b)
{
    for (size_t i = 0; i < r->n_disabled_pairs; ++i) {
        const Gjkd__V1__LinkPair *p = r->disabled_pairs[i];
        if ((strcmp(p->a, a) == 0 && strcmp(p->b, b) == 0) ||
            (strcmp(p->a, b) == 0 && strcmp(p->b, a) == 0))
            return true;
    }
    return false;
}

static int link_index(const Gjkd__V1__Robot *r, const char *name)
{
    for (size_t i = 0; i < r->n_links; ++i)
        if (strcmp(r->links[i]->name, name) == 0)
            return (int)i;
    return -1;
}

static uint32_t dof_count(const Gjkd__V1__Robot *r)
{
    uint32_t n = 0;
    for (size_t i = 0; i < r->n_joints; ++i)
        n += r->joints[i]->type != GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED && !r->joints[i]->mimic;
    return n;
}

/* The message's joints -> a core kinematic model (what a daemon does with them). */
static gjk_kinematics *build_kinematics(const Gjkd__V1__Robot *r)
{
    gjk_joint_def *defs = calloc(r->n_joints + 1, sizeof *defs);
    assert_non_null(defs);
    for (size_t i = 0; i < r->n_joints; ++i) {
        const Gjkd__V1__Joint *j = r->joints[i];
        gjk_joint_def *d = &defs[i];
        d->name = j->name;
        switch (j->type) {
        case GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED:
            d->type = GJK_JOINT_FIXED;
            break;
        case GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE:
            d->type = GJK_JOINT_REVOLUTE;
            break;
        case GJKD__V1__JOINT_TYPE__JOINT_TYPE_CONTINUOUS:
            d->type = GJK_JOINT_CONTINUOUS;
            break;
        case GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC:
            d->type = GJK_JOINT_PRISMATIC;
            break;
        default:
            fail();
        }
        d->parent = link_index(r, j->parent);
        d->child = link_index(r, j->child);
        assert_non_null(j->origin);
        d->origin.p =
            (gjk_vec3){j->origin->position->x, j->origin->position->y, j->origin->position->z};
        d->origin.q = (gjk_quat){j->origin->orientation->w, j->origin->orientation->x,
                                 j->origin->orientation->y, j->origin->orientation->z};
        d->axis = j->axis ? (gjk_vec3){j->axis->x, j->axis->y, j->axis->z} : (gjk_vec3){1, 0, 0};
        if (j->limits) {
            d->lower = j->limits->lower;
            d->upper = j->limits->upper;
        }
        if (j->mimic) {
            d->mimic = j->mimic->joint;
            d->multiplier = j->mimic->multiplier;
            d->offset = j->mimic->offset;
        }
    }
    gjk_kinematics_def def = {.link_count = (int32_t)r->n_links,
                              .joints = r->n_joints ? defs : NULL,
                              .joint_count = (int32_t)r->n_joints};
    gjk_kinematics *k = NULL;
    gjk_kinematics_error e;
    gjk_status st = gjk_kinematics_build(&def, &k, &e);
    if (st != GJK_KINEMATICS_OK)
        print_error("kinematics: %s (joint %d)\n", e.reason, (int)e.joint);
    assert_int_equal(st, GJK_KINEMATICS_OK);
    free(defs);
    return k;
}

/* ------------------------------------------------------------------ independent FK (4x4) */

typedef struct mat4 {
    double m[4][4];
} mat4;

static mat4 mat_identity(void)
{
    mat4 r = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
    return r;
}

static mat4 mat_mul4(mat4 a, mat4 b)
{
    mat4 r;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            r.m[i][j] = 0;
            for (int k = 0; k < 4; ++k)
                r.m[i][j] += a.m[i][k] * b.m[k][j];
        }
    return r;
}

static mat4 rot_axis(double ax, double ay, double az, double angle)
{
    double n = sqrt(ax * ax + ay * ay + az * az);
    ax /= n, ay /= n, az /= n;
    double c = cos(angle), s = sin(angle), t = 1 - c;
    mat4 r = mat_identity();
    r.m[0][0] = t * ax * ax + c, r.m[0][1] = t * ax * ay - s * az, r.m[0][2] = t * ax * az + s * ay;
    r.m[1][0] = t * ax * ay + s * az, r.m[1][1] = t * ay * ay + c, r.m[1][2] = t * ay * az - s * ax;
    r.m[2][0] = t * ax * az - s * ay, r.m[2][1] = t * ay * az + s * ax, r.m[2][2] = t * az * az + c;
    return r;
}

static mat4 trans(double x, double y, double z)
{
    mat4 r = mat_identity();
    r.m[0][3] = x, r.m[1][3] = y, r.m[2][3] = z;
    return r;
}

/* URDF origin: translate, then R = Rz(yaw) Ry(pitch) Rx(roll). */
static mat4 origin(double x, double y, double z, double roll, double pitch, double yaw)
{
    return mat_mul4(trans(x, y, z),
                    mat_mul4(rot_axis(0, 0, 1, yaw),
                             mat_mul4(rot_axis(0, 1, 0, pitch), rot_axis(1, 0, 0, roll))));
}

static gjk_vec3 quat_rotate(gjk_quat q, gjk_vec3 v)
{
    /* v' = v + 2w (u x v) + 2 u x (u x v) */
    gjk_vec3 u = {q.x, q.y, q.z};
    gjk_vec3 t = {2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z),
                  2 * (u.x * v.y - u.y * v.x)};
    return (gjk_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y),
                      v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                      v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

/* The pose from kinematics equals the matrix: origin and the three unit axes. */
static void assert_pose_matches(gjk_transform t, mat4 m, const char *what)
{
    double err = fabs(t.p.x - m.m[0][3]) + fabs(t.p.y - m.m[1][3]) + fabs(t.p.z - m.m[2][3]);
    for (int a = 0; a < 3; ++a) {
        gjk_vec3 e = {a == 0, a == 1, a == 2};
        gjk_vec3 r = quat_rotate(t.q, e);
        err += fabs(r.x - m.m[0][a]) + fabs(r.y - m.m[1][a]) + fabs(r.z - m.m[2][a]);
    }
    if (!(err <= 1e-12)) {
        print_error("%s: kinematics and the reference FK differ by %.3g\n", what, err);
        fail();
    }
}

/* ------------------------------------------------------------------ STL reading (test side) */

/* Bounding box of a binary STL, read here without assimp. */
static void stl_bbox(const char *path, double lo[3], double hi[3])
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char header[84];
    assert_int_equal(fread(header, 1, 84, f), 84);
    uint32_t n = (uint32_t)header[80] | (uint32_t)header[81] << 8 | (uint32_t)header[82] << 16 |
                 (uint32_t)header[83] << 24;
    for (int i = 0; i < 3; ++i)
        lo[i] = INFINITY, hi[i] = -INFINITY;
    for (uint32_t t = 0; t < n; ++t) {
        unsigned char rec[50];
        assert_int_equal(fread(rec, 1, 50, f), 50);
        for (int v = 0; v < 3; ++v)
            for (int a = 0; a < 3; ++a) {
                float x;
                memcpy(&x, rec + 12 + 12 * v + 4 * a, 4);
                if ((double)x < lo[a])
                    lo[a] = (double)x;
                if ((double)x > hi[a])
                    hi[a] = (double)x;
            }
    }
    fclose(f);
}

/* Every mesh part of the link: > 4 hull vertices, all inside the STL's bounding box. */
static void check_mesh_link(const Gjkd__V1__Robot *r, const char *link, const char *stl)
{
    const Gjkd__V1__Link *l = find_link(r, link);
    assert_non_null(l);
    assert_int_equal(l->n_parts, 1);
    const Gjkd__V1__Shape *s = l->parts[0]->shape;
    assert_int_equal(s->kind_case, GJKD__V1__SHAPE__KIND_CONVEX);
    size_t n = s->convex->n_xyz / 3;
    assert_true(n > 4);
    assert_int_equal(s->convex->n_adjacency_start, n + 1);
    double lo[3], hi[3];
    stl_bbox(stl, lo, hi);
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) {
            double x = s->convex->xyz[3 * i + (size_t)a];
            assert_true(x >= lo[a] && x <= hi[a]);
        }
    /* The bounding box is reached on every side (the hull keeps the extreme points). */
    for (int a = 0; a < 3; ++a) {
        double mn = INFINITY, mx = -INFINITY;
        for (size_t i = 0; i < n; ++i) {
            mn = fmin(mn, s->convex->xyz[3 * i + (size_t)a]);
            mx = fmax(mx, s->convex->xyz[3 * i + (size_t)a]);
        }
        assert_true(mn == lo[a] && mx == hi[a]);
    }
}

/* ------------------------------------------------------------------ Panda */

static void panda_paths(char *urdf, char *srdf, char *meshes, size_t size)
{
    snprintf(urdf, size, "%s/example-robot-data/robots/panda_description/urdf/panda.urdf",
             robots_dir);
    snprintf(srdf, size, "%s/example-robot-data/robots/panda_description/srdf/panda.srdf",
             robots_dir);
    snprintf(meshes, size, "%s/example-robot-data/robots/panda_description/meshes/collision",
             robots_dir);
}

/* The SRDF's pairs, read here with a plain scan of its lines (the vendored file puts one
 * <disable_collisions link1=".." link2=".."/> per line). */
static void check_srdf_pairs(const Gjkd__V1__Robot *r, const char *srdf, size_t expected)
{
    FILE *f = fopen(srdf, "r");
    assert_non_null(f);
    char line[1024];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        const char *d = strstr(line, "<disable_collisions");
        if (!d)
            continue;
        char a[256], b[256];
        const char *p1 = strstr(d, "link1=\""), *p2 = strstr(d, "link2=\"");
        assert_non_null(p1);
        assert_non_null(p2);
        assert_int_equal(sscanf(p1, "link1=\"%255[^\"]\"", a), 1);
        assert_int_equal(sscanf(p2, "link2=\"%255[^\"]\"", b), 1);
        if (!has_pair(r, a, b)) {
            print_error("SRDF pair %s %s not disabled\n", a, b);
            fail();
        }
        ++n;
    }
    fclose(f);
    assert_int_equal(n, expected);
}

static void test_panda(void **state)
{
    (void)state;
    char urdf[512], srdf[512], meshes[512];
    panda_paths(urdf, srdf, meshes, sizeof urdf);
    gjkd_urdf_result res;
    assert_true(import(urdf, srdf, robots_dir, &res, NULL));
    const Gjkd__V1__Robot *r = res.robot;
    assert_string_equal(r->name, "panda");
    /* 13 <link>, 12 <joint>: joint1..7 revolute, finger_joint1 prismatic, finger_joint2 its
     * mimic, 3 fixed. */
    assert_int_equal(r->n_links, 13);
    assert_int_equal(r->n_joints, 12);
    assert_int_equal(res.dof, 8);
    assert_int_equal(dof_count(r), 8);
    assert_true(r->self_collision);
    const Gjkd__V1__Joint *j4 = find_joint(r, "panda_joint4");
    assert_non_null(j4);
    assert_int_equal(j4->type, GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE);
    assert_true(j4->limits->lower == -3.0718 && j4->limits->upper == -0.0698);
    assert_string_equal(j4->parent, "panda_link3");
    assert_string_equal(j4->child, "panda_link4");
    assert_true(j4->origin->position->x == 0.0825);
    const Gjkd__V1__Joint *j6 = find_joint(r, "panda_joint6");
    assert_true(j6->limits->lower == -0.0175 && j6->limits->upper == 3.7525);
    const Gjkd__V1__Joint *f1 = find_joint(r, "panda_finger_joint1");
    assert_int_equal(f1->type, GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC);
    assert_true(f1->limits->lower == 0.0 && f1->limits->upper == 0.04);
    assert_null(f1->mimic);
    const Gjkd__V1__Joint *f2 = find_joint(r, "panda_finger_joint2");
    assert_non_null(f2->mimic);
    assert_string_equal(f2->mimic->joint, "panda_finger_joint1");
    assert_true(f2->mimic->multiplier == 1.0 && f2->mimic->offset == 0.0);
    assert_true(f2->axis->x == 0 && f2->axis->y == -1 && f2->axis->z == 0);
    assert_int_equal(find_joint(r, "panda_hand_joint")->type,
                     GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED);
    /* Geometry: meshes hulled, fingers as four exact boxes (full sizes halved), frames
     * without collision elements without parts. */
    const char *mesh_links[][2] = {
        {"panda_link0", "link0"}, {"panda_link1", "link1"}, {"panda_link2", "link2"},
        {"panda_link3", "link3"}, {"panda_link4", "link4"}, {"panda_link5", "link5"},
        {"panda_link6", "link6"}, {"panda_link7", "link7"}, {"panda_hand", "hand"}};
    for (size_t i = 0; i < sizeof mesh_links / sizeof mesh_links[0]; ++i) {
        char stl[700];
        snprintf(stl, sizeof stl, "%s/%s.stl", meshes, mesh_links[i][1]);
        check_mesh_link(r, mesh_links[i][0], stl);
    }
    const Gjkd__V1__Link *lf = find_link(r, "panda_leftfinger");
    assert_int_equal(lf->n_parts, 4);
    assert_int_equal(lf->parts[0]->shape->kind_case, GJKD__V1__SHAPE__KIND_BOX);
    assert_true(lf->parts[0]->shape->box->half_extents->x == 0.5 * 22e-3);
    assert_true(lf->parts[0]->shape->box->half_extents->y == 0.5 * 15e-3);
    assert_true(lf->parts[0]->pose->position->y == 18.5e-3);
    /* rpy="0.5235987755982988 0 0": a rotation about x by 30 degrees. */
    const Gjkd__V1__Quaternion *q = lf->parts[2]->pose->orientation;
    assert_near(q->w, cos(0.5235987755982988 / 2), 1e-15);
    assert_near(q->x, sin(0.5235987755982988 / 2), 1e-15);
    assert_int_equal(find_link(r, "panda_link8")->n_parts, 0);
    assert_int_equal(find_link(r, "panda_hand_tcp")->n_parts, 0);
    /* SRDF pairs (35 lines), and adjacency across the geometry-less panda_link8: link7-hand. */
    check_srdf_pairs(r, srdf, 35);
    assert_true(has_pair(r, "panda_link7", "panda_hand"));
    assert_true(has_pair(r, "panda_link0", "panda_link1"));
    assert_true(res.mesh_files == 9);
    assert_true(res.hull_vertices < res.mesh_vertices);
    gjkd_urdf_result_free(&res);
}

/* Panda FK: the URDF's chain written out (origins, axes), against the imported model. */
static void test_panda_fk(void **state)
{
    (void)state;
    char urdf[512], srdf[512], meshes[512];
    panda_paths(urdf, srdf, meshes, sizeof urdf);
    gjkd_urdf_result res;
    assert_true(import(urdf, NULL, robots_dir, &res, NULL));
    gjk_kinematics *k = build_kinematics(res.robot);
    gjk_kinematics_state *s = NULL;
    assert_int_equal(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    assert_int_equal(gjk_kinematics_dof_count(k), 8);
    const double h = 1.5707963267948966;
    /* joint i: origin xyz rpy, all axes z */
    const double arm[7][6] = {{0, 0, 0.333, 0, 0, 0},        {0, 0, 0, -h, 0, 0},
                              {0, -0.316, 0, h, 0, 0},       {0.0825, 0, 0, h, 0, 0},
                              {-0.0825, 0.384, 0, -h, 0, 0}, {0, 0, 0, h, 0, 0},
                              {0.088, 0, 0, h, 0, 0}};
    const double configs[4][8] = {{0, 0, 0, -1.5, 0, 1.5, 0, 0.02},
                                  {0.3, -0.7, 0.5, -2.0, 0.4, 2.1, -1.2, 0.0},
                                  {-2.8, 1.7, -2.8, -3.0, 2.8, 3.7, 2.8, 0.04},
                                  {1.1, 0.2, -0.9, -0.5, -1.3, 0.1, 0.7, 0.013}};
    const char *dof_names[8] = {"panda_joint1", "panda_joint2",       "panda_joint3",
                                "panda_joint4", "panda_joint5",       "panda_joint6",
                                "panda_joint7", "panda_finger_joint1"};
    for (int i = 0; i < 8; ++i)
        assert_string_equal(gjk_kinematics_dof_names(k)[i], dof_names[i]);
    gjk_transform base = {{1, 0, 0, 0}, {0.5, -0.25, 0.1}};
    for (int c = 0; c < 4; ++c) {
        const double *qv = configs[c];
        int32_t bad = 0;
        assert_int_equal(gjk_kinematics_forward(k, qv, 8, base, s, &bad), GJK_KINEMATICS_OK);
        const gjk_transform *poses = gjk_kinematics_link_poses(s);
        mat4 t = trans(0.5, -0.25, 0.1);
        assert_pose_matches(poses[link_index(res.robot, "panda_link0")], t, "panda_link0");
        for (int j = 0; j < 7; ++j) {
            const double *o = arm[j];
            t = mat_mul4(
                t, mat_mul4(origin(o[0], o[1], o[2], o[3], o[4], o[5]), rot_axis(0, 0, 1, qv[j])));
            char name[32];
            snprintf(name, sizeof name, "panda_link%d", j + 1);
            assert_pose_matches(poses[link_index(res.robot, name)], t, name);
        }
        t = mat_mul4(t, origin(0, 0, 0.107, 0, 0, 0));
        t = mat_mul4(t, origin(0, 0, 0, 0, 0, -0.7853981633974483));
        assert_pose_matches(poses[link_index(res.robot, "panda_hand")], t, "panda_hand");
        mat4 left = mat_mul4(t, mat_mul4(origin(0, 0, 0.0584, 0, 0, 0), trans(0, qv[7], 0)));
        mat4 right = mat_mul4(t, mat_mul4(origin(0, 0, 0.0584, 0, 0, 0), trans(0, -qv[7], 0)));
        assert_pose_matches(poses[link_index(res.robot, "panda_leftfinger")], left, "left");
        assert_pose_matches(poses[link_index(res.robot, "panda_rightfinger")], right, "right");
        mat4 tcp = mat_mul4(t, origin(0, 0, 0.1034, 0, 0, 0));
        assert_pose_matches(poses[link_index(res.robot, "panda_hand_tcp")], tcp, "tcp");
    }
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
    gjkd_urdf_result_free(&res);
}

/* ------------------------------------------------------------------ UR5 */

static void test_ur5(void **state)
{
    (void)state;
    char urdf[512], srdf[512], meshes[512];
    snprintf(urdf, sizeof urdf, "%s/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
             robots_dir);
    snprintf(srdf, sizeof srdf, "%s/example-robot-data/robots/ur_description/srdf/ur5.srdf",
             robots_dir);
    snprintf(meshes, sizeof meshes,
             "%s/example-robot-data/robots/ur_description/meshes/ur5/collision", robots_dir);
    gjkd_urdf_result res;
    assert_true(import(urdf, srdf, robots_dir, &res, NULL));
    const Gjkd__V1__Robot *r = res.robot;
    assert_string_equal(r->name, "ur5");
    assert_int_equal(r->n_links, 11); /* 8 with geometry + base, tool0, world */
    assert_int_equal(r->n_joints, 10);
    assert_int_equal(res.dof, 6);
    const Gjkd__V1__Joint *el = find_joint(r, "elbow_joint");
    assert_true(el->limits->lower == -3.14159265359 && el->limits->upper == 3.14159265359);
    assert_true(el->origin->position->y == -0.1197 && el->origin->position->z == 0.425);
    assert_true(el->axis->y == 1);
    const Gjkd__V1__Joint *pan = find_joint(r, "shoulder_pan_joint");
    assert_true(pan->limits->lower == -6.28318530718);
    const char *mesh_links[][2] = {{"base_link", "base"},          {"shoulder_link", "shoulder"},
                                   {"upper_arm_link", "upperarm"}, {"forearm_link", "forearm"},
                                   {"wrist_1_link", "wrist1"},     {"wrist_2_link", "wrist2"},
                                   {"wrist_3_link", "wrist3"}};
    for (size_t i = 0; i < sizeof mesh_links / sizeof mesh_links[0]; ++i) {
        char stl[700];
        snprintf(stl, sizeof stl, "%s/%s.stl", meshes, mesh_links[i][1]);
        check_mesh_link(r, mesh_links[i][0], stl);
    }
    /* ee_link's collision: a 1 cm box at its origin xyz="-0.01 0 0" (the part pose) */
    const Gjkd__V1__Part *ee_part = find_link(r, "ee_link")->parts[0];
    assert_true(ee_part->pose->position->x == -0.01 &&
                ee_part->shape->box->half_extents->y == 0.005);
    check_srdf_pairs(r, srdf, 10);
    assert_true(has_pair(r, "wrist_3_link", "ee_link"));

    /* FK against the URDF's chain. */
    gjk_kinematics *k = build_kinematics(r);
    gjk_kinematics_state *s = NULL;
    assert_int_equal(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    const double h = 1.57079632679;
    const double chain[6][9] = {
        {0, 0, 0.089159, 0, 0, 0, 0, 0, 1},    {0, 0.13585, 0, 0, h, 0, 0, 1, 0},
        {0, -0.1197, 0.425, 0, 0, 0, 0, 1, 0}, {0, 0, 0.39225, 0, h, 0, 0, 1, 0},
        {0, 0.093, 0, 0, 0, 0, 0, 0, 1},       {0, 0, 0.09465, 0, 0, 0, 0, 1, 0}};
    const char *names[6] = {"shoulder_link", "upper_arm_link", "forearm_link",
                            "wrist_1_link",  "wrist_2_link",   "wrist_3_link"};
    const double configs[3][6] = {
        {0, 0, 0, 0, 0, 0}, {0.4, -1.2, 2.0, -0.7, 1.5, -3.0}, {-6.2, 6.2, -3.1, 3.1, -5.0, 4.0}};
    gjk_transform base = {{0.7071067811865476, 0, 0, 0.7071067811865476}, {0, 0, 0.8}};
    for (int c = 0; c < 3; ++c) {
        assert_int_equal(gjk_kinematics_forward(k, configs[c], 6, base, s, NULL),
                         GJK_KINEMATICS_OK);
        const gjk_transform *poses = gjk_kinematics_link_poses(s);
        mat4 t = mat_mul4(trans(0, 0, 0.8), rot_axis(0, 0, 1, 1.5707963267948966));
        assert_pose_matches(poses[link_index(r, "world")], t, "world");
        assert_pose_matches(poses[link_index(r, "base_link")], t, "base_link");
        for (int j = 0; j < 6; ++j) {
            const double *o = chain[j];
            t = mat_mul4(t, mat_mul4(origin(o[0], o[1], o[2], o[3], o[4], o[5]),
                                     rot_axis(o[6], o[7], o[8], configs[c][j])));
            assert_pose_matches(poses[link_index(r, names[j])], t, names[j]);
        }
        mat4 ee = mat_mul4(t, origin(0, 0.0823, 0, 0, 0, h));
        assert_pose_matches(poses[link_index(r, "ee_link")], ee, "ee_link");
        mat4 tool = mat_mul4(t, origin(0, 0.0823, 0, -h, 0, 0));
        assert_pose_matches(poses[link_index(r, "tool0")], tool, "tool0");
    }
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
    gjkd_urdf_result_free(&res);
}

/* ------------------------------------------------------------------ generated descriptions */

#define URDF_HEAD "<?xml version=\"1.0\"?>\n<robot name=\"t\">\n"
#define LINK(n) "<link name=\"" n "\"/>\n"
#define REV(n, p, c)                                                                               \
    "<joint name=\"" n "\" type=\"revolute\"><parent link=\"" p "\"/><child link=\"" c             \
    "\"/><limit lower=\"-1\" upper=\"1\"/></joint>\n"

static void test_bad_inputs(void **state)
{
    (void)state;
    expect_error(
        URDF_HEAD LINK("a") LINK(
            "b") "<joint name=\"j\" type=\"ball\"><parent link=\"a\"/><child link=\"b\"/></joint>"
                 "</robot>",
        NULL, "joint \"j\": unknown type \"ball\"", "bad.urdf:");
    expect_error(URDF_HEAD LINK("a")
                     LINK("b") "<joint name=\"float_base\" type=\"floating\"><parent link=\"a\"/>"
                               "<child link=\"b\"/></joint></robot>",
                 NULL, "joint \"float_base\": type \"floating\" is not supported", NULL);
    expect_error(URDF_HEAD LINK("a")
                     LINK("b") "<joint name=\"pl\" type=\"planar\"><parent link=\"a\"/>"
                               "<child link=\"b\"/></joint></robot>",
                 NULL, "joint \"pl\": type \"planar\"", NULL);
    /* a link with two parents */
    expect_error(URDF_HEAD LINK("a") LINK("b") LINK("c") REV("j1", "a", "c")
                     REV("j2", "b", "c") "</robot>",
                 NULL, "link \"c\" has two parents", "\"j2\"");
    /* a cycle: a -> b -> a, no root */
    expect_error(URDF_HEAD LINK("a") LINK("b") REV("j1", "a", "b") REV("j2", "b", "a") "</robot>",
                 NULL, "cycle", NULL);
    /* two roots */
    expect_error(URDF_HEAD LINK("a") LINK("b") "</robot>", NULL, "both have no parent joint", NULL);
    expect_error(
        URDF_HEAD LINK("a")
            LINK("b") "<joint name=\"z\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
                      "<axis xyz=\"0 0 0\"/><limit lower=\"-1\" upper=\"1\"/></joint></robot>",
        NULL, "joint \"z\": zero <axis xyz>", NULL);
    expect_error(
        URDF_HEAD LINK("a")
            LINK("b") "<joint name=\"n\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
                      "<origin xyz=\"0 nan 0\"/><limit lower=\"-1\" upper=\"1\"/></joint></robot>",
        NULL, "joint \"n\": <origin xyz=\"0 nan 0\">: expected 3 finite numbers", NULL);
    expect_error(URDF_HEAD "<link name=\"a\"><collision><geometry><sphere radius=\"NaN\"/>"
                           "</geometry></collision></link></robot>",
                 NULL, "link \"a\": collision[0]: <sphere radius=\"NaN\">", NULL);
    expect_error(URDF_HEAD LINK("a") LINK("b") REV("j", "a", "ghost") "</robot>", NULL,
                 "joint \"j\": child link \"ghost\" is not a link", NULL);
    expect_error(
        URDF_HEAD LINK("a")
            LINK("b") "<joint name=\"r\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
                      "</joint></robot>",
        NULL, "joint \"r\": a revolute joint needs <limit", NULL);
    expect_error(
        URDF_HEAD LINK("a") LINK(
            "b") "<joint name=\"m\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/>"
                 "<mimic joint=\"nobody\"/></joint></robot>",
        NULL, "joint \"m\": <mimic joint>: no joint \"nobody\"", NULL);
    /* a missing mesh names the element and every path tried */
    expect_error(URDF_HEAD "<link name=\"a\"><collision><geometry>"
                           "<mesh filename=\"meshes/none.stl\"/></geometry></collision></link>"
                           "</robot>",
                 NULL, "link \"a\": collision[0]: mesh \"meshes/none.stl\": not found (tried ",
                 "/meshes/none.stl)");
    expect_error(URDF_HEAD "<link name=\"a\"><collision><geometry>"
                           "<mesh filename=\"package://nopkg/m.stl\"/></geometry></collision>"
                           "</link></robot>",
                 NULL, "package \"nopkg\" not found", NULL);
    expect_error(URDF_HEAD "<link name=\"a\"><collision><geometry><cone radius=\"1\"/>"
                           "</geometry></collision></link></robot>",
                 NULL, "unknown geometry <cone>", NULL);
    /* an SRDF naming a link the URDF does not have */
    expect_error(URDF_HEAD LINK("a") LINK("b") REV("j", "a", "b") "</robot>",
                 "<robot name=\"t\"><disable_collisions link1=\"a\" link2=\"hand\" "
                 "reason=\"Never\"/></robot>",
                 "bad.srdf:1: <disable_collisions>: link2 \"hand\" is not a link", NULL);
    /* not XML, entities, xacro */
    expect_error("<robot name=\"t\"><link name=\"a\"></robot>", NULL, "bad.urdf:1:", NULL);
    expect_error("<?xml version=\"1.0\"?><!DOCTYPE robot [<!ENTITY big \"xxxxxxxx\">]>"
                 "<robot name=\"&big;\"><link name=\"a\"/></robot>",
                 NULL, "declares XML entities", NULL);
    expect_error("<robot name=\"t\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">"
                 "<xacro:include filename=\"x.xacro\"/><link name=\"a\"/></robot>",
                 NULL, "run xacro first", NULL);
    expect_error("<notarobot/>", NULL, "the root element is not <robot>", NULL);
    expect_error(URDF_HEAD LINK("a") LINK("a") "</robot>", NULL,
                 "link \"a\": a second link of that name", NULL);
}

/* Limits apply before the work: file size, links, joints, mesh vertices. */
static void test_limits(void **state)
{
    (void)state;
    write_file("lim.urdf", URDF_HEAD LINK("a") LINK("b") LINK("c") REV("j1", "a", "b")
                               REV("j2", "b", "c") "</robot>");
    gjkd_urdf_options o;
    gjkd_urdf_result r;
    char err[GJKD_URDF_ERROR_SIZE];
    gjkd_urdf_options_init(&o);
    o.max_xml_bytes = 64;
    assert_false(gjkd_urdf_import(tmp_path("lim.urdf"), &o, &r, err, sizeof err));
    assert_non_null(strstr(err, "bytes, the limit is 64"));
    gjkd_urdf_options_init(&o);
    o.max_links = 2;
    assert_false(gjkd_urdf_import(tmp_path("lim.urdf"), &o, &r, err, sizeof err));
    assert_non_null(strstr(err, "3 links, the limit is 2"));
    gjkd_urdf_options_init(&o);
    o.max_joints = 1;
    assert_false(gjkd_urdf_import(tmp_path("lim.urdf"), &o, &r, err, sizeof err));
    assert_non_null(strstr(err, "2 joints, the limit is 1"));
    gjkd_urdf_options_init(&o);
    assert_true(gjkd_urdf_import(tmp_path("lim.urdf"), &o, &r, err, sizeof err));
    assert_int_equal(r.dof, 2);
    assert_int_equal(r.note_count, 0);
    gjkd_urdf_result_free(&r);
    /* a revolute joint whose limits leave no motion is imported with a note */
    write_file(
        "locked.urdf",
        URDF_HEAD LINK("a")
            LINK("b") "<joint name=\"lk\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
                      "<limit effort=\"1\" velocity=\"1\"/></joint></robot>");
    assert_true(gjkd_urdf_import(tmp_path("locked.urdf"), &o, &r, err, sizeof err));
    assert_int_equal(r.note_count, 1);
    assert_non_null(strstr(r.notes[0], "joint \"lk\": <limit> lower == upper == 0"));
    gjkd_urdf_result_free(&r);

    write_file("cube.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 2 3\nf 1 2 4\n"
                           "f 2 3 5\nf 1 3 4\n");
    write_file("mesh.urdf", URDF_HEAD "<link name=\"a\"><collision><geometry>"
                                      "<mesh filename=\"cube.obj\"/></geometry></collision>"
                                      "</link></robot>");
    gjkd_urdf_options_init(&o);
    o.max_mesh_vertices = 3;
    assert_false(gjkd_urdf_import(tmp_path("mesh.urdf"), &o, &r, err, sizeof err));
    assert_non_null(strstr(err, "cube.obj: over the vertex limit of 3"));
    gjkd_urdf_options_init(&o);
    o.max_mesh_bytes = 10;
    assert_false(gjkd_urdf_import(tmp_path("mesh.urdf"), &o, &r, err, sizeof err));
    assert_non_null(strstr(err, "the limit is 10"));
    assert_non_null(strstr(err, "cube.obj"));
}

/* A small COLLADA triangle set (two triangles spanning a 10 x 20 x 30 box in file units). */
static void write_dae(const char *name, const char *unit, const char *up, const char *xform)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
             "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
             "<asset>%s<up_axis>%s</up_axis></asset>\n"
             "<library_geometries><geometry id=\"g\" name=\"g\"><mesh>\n"
             "<source id=\"p\"><float_array id=\"pa\" count=\"18\">0 0 0 10 0 0 0 20 0 "
             "0 0 30 10 20 30 10 0 30</float_array>\n"
             "<technique_common><accessor source=\"#pa\" count=\"6\" stride=\"3\">"
             "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
             "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
             "<vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>\n"
             "<triangles count=\"2\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
             "<p>0 1 2 3 4 5</p></triangles>\n"
             "</mesh></geometry></library_geometries>\n"
             "<library_visual_scenes><visual_scene id=\"s\"><node id=\"n\">%s"
             "<instance_geometry url=\"#g\"/></node></visual_scene></library_visual_scenes>\n"
             "<scene><instance_visual_scene url=\"#s\"/></scene>\n</COLLADA>\n",
             unit, up, xform);
    write_file(name, text);
}

static void mesh_bbox(const Gjkd__V1__Link *l, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; ++a)
        lo[a] = INFINITY, hi[a] = -INFINITY;
    for (size_t p = 0; p < l->n_parts; ++p) {
        const Gjkd__V1__ConvexVertices *cv = l->parts[p]->shape->convex;
        assert_non_null(cv);
        for (size_t i = 0; i < cv->n_xyz; ++i) {
            lo[i % 3] = fmin(lo[i % 3], cv->xyz[i]);
            hi[i % 3] = fmax(hi[i % 3], cv->xyz[i]);
        }
    }
}

/* COLLADA: <unit meter="0.001"/> scales to metres; <up_axis> does not rotate (the file's
 * coordinates are the link frame's, as in rviz and MoveIt): Z_UP and Y_UP give one hull; node
 * transforms apply (in file units, scaled with the rest). */
static void test_collada_units_up_axis(void **state)
{
    (void)state;
    const char *mm = "<unit meter=\"0.001\" name=\"millimeter\"/>";
    write_dae("mm_z.dae", mm, "Z_UP", "");
    write_dae("mm_y.dae", mm, "Y_UP", "");
    write_dae("m_z.dae", "", "Z_UP", "");
    /* x' = 100 - y, y' = x: rotate 90 degrees about z, then translate 100 along x */
    write_dae("mm_node.dae", mm, "Y_UP", "<translate>100 0 0</translate><rotate>0 0 1 90</rotate>");
    const char *files[4] = {"mm_z.dae", "mm_y.dae", "m_z.dae", "mm_node.dae"};
    const double lo_want[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0.08, 0, 0}};
    const double hi_want[4][3] = {
        {0.01, 0.02, 0.03}, {0.01, 0.02, 0.03}, {10, 20, 30}, {0.1, 0.01, 0.03}};
    for (int f = 0; f < 4; ++f) {
        char urdf[1024];
        snprintf(urdf, sizeof urdf,
                 URDF_HEAD "<link name=\"a\"><collision><geometry><mesh filename=\"%s\"/>"
                           "</geometry></collision></link></robot>",
                 files[f]);
        write_file("dae.urdf", urdf);
        gjkd_urdf_result r;
        assert_true(import(tmp_path("dae.urdf"), NULL, NULL, &r, NULL));
        const Gjkd__V1__Link *l = r.robot->links[0];
        assert_int_equal(l->n_parts, 1);
        double lo[3], hi[3];
        mesh_bbox(l, lo, hi);
        for (int a = 0; a < 3; ++a) {
            /* assimp applies units and node transforms as float matrices: float32 precision */
            assert_near(lo[a], lo_want[f][a], 1e-7 * fmax(hi_want[f][a], 1e-3));
            assert_near(hi[a], hi_want[f][a], 1e-7 * hi_want[f][a]);
        }
        assert_int_equal(l->parts[0]->shape->convex->n_xyz, 18);
        gjkd_urdf_result_free(&r);
    }
}

/* An OBJ with two objects -> two parts (pre-decomposed convex pieces), each hulling the distinct
 * vertices its faces use (4 + 5). */
static void test_obj_two_objects(void **state)
{
    (void)state;
    write_file("two.obj", "o first\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                          "f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n"
                          "o second\nv 5 5 5\nv 6 5 5\nv 5 6 5\nv 5 5 6\nv 6 6 6\n"
                          "f 5 6 7\nf 5 6 8\nf 5 7 8\nf 6 7 9\n");
    write_file("two.urdf", URDF_HEAD "<link name=\"a\"><collision name=\"pieces\"><origin "
                                     "xyz=\"1 2 3\"/><geometry><mesh filename=\"two.obj\" "
                                     "scale=\"2 2 2\"/></geometry></collision></link></robot>");
    gjkd_urdf_result r;
    assert_true(import(tmp_path("two.urdf"), NULL, NULL, &r, NULL));
    const Gjkd__V1__Link *l = r.robot->links[0];
    assert_int_equal(l->n_parts, 2);
    assert_string_equal(l->parts[0]->name, "pieces#0");
    assert_string_equal(l->parts[1]->name, "pieces#1");
    assert_int_equal(l->parts[0]->shape->convex->n_xyz, 12);
    assert_int_equal(l->parts[1]->shape->convex->n_xyz, 15);
    for (size_t p = 0; p < 2; ++p)
        assert_true(l->parts[p]->pose->position->x == 1 && l->parts[p]->pose->position->z == 3);
    double lo[3], hi[3];
    mesh_bbox(l, lo, hi);
    for (int a = 0; a < 3; ++a)
        assert_true(lo[a] == 0 && hi[a] == 12); /* scale 2 applied */
    assert_int_equal(r.note_count, 1);
    if (!strstr(r.notes[0], "2 parts, hulled 9 vertices -> 4+5")) {
        print_error("note: %s\n", r.notes[0]);
        fail();
    }
    gjkd_urdf_result_free(&r);

    /* More sub-meshes than a link may have parts: one hull of all of them, said so. */
    gjkd_urdf_options o;
    gjkd_urdf_options_init(&o);
    o.max_parts_per_link = 1;
    char err[GJKD_URDF_ERROR_SIZE];
    assert_true(gjkd_urdf_import(tmp_path("two.urdf"), &o, &r, err, sizeof err));
    l = r.robot->links[0];
    assert_int_equal(l->n_parts, 1);
    assert_string_equal(l->parts[0]->name, "pieces");
    /* the hull of both: the first 4 points and the second 5 but (5 5 5), on the segment from
     * (0 0 0) to (6 6 6) */
    assert_int_equal(l->parts[0]->shape->convex->n_xyz, 3 * 8);
    assert_non_null(strstr(r.notes[0], "(2 sub-meshes, more than 1 parts: hulled together)"));
    gjkd_urdf_result_free(&r);
}

/* The same box (with an interior point) as ASCII and as binary STL: the same hull. */
static void test_stl_ascii_binary(void **state)
{
    (void)state;
    const float v[8][3] = {{-1, -2, -3}, {1, -2, -3}, {1, 2, -3}, {-1, 2, -3},
                           {-1, -2, 3},  {1, -2, 3},  {1, 2, 3},  {-1, 2, 3}};
    const int tri[13][3] = {{0, 1, 2}, {0, 2, 3}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5},
                            {0, 5, 4}, {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6},
                            {3, 0, 4}, {3, 4, 7}, {0, 2, 6}};
    char ascii[8192];
    size_t len = (size_t)snprintf(ascii, sizeof ascii, "solid box\n");
    FILE *bin = fopen(tmp_path("box_bin.stl"), "wb");
    assert_non_null(bin);
    unsigned char header[80] = "binary box";
    fwrite(header, 1, 80, bin);
    uint32_t n = 13;
    unsigned char nb[4] = {(unsigned char)n, 0, 0, 0};
    fwrite(nb, 1, 4, bin);
    for (int t = 0; t < 13; ++t) {
        len +=
            (size_t)snprintf(ascii + len, sizeof ascii - len, "facet normal 0 0 0\nouter loop\n");
        float rec[12] = {0};
        for (int k = 0; k < 3; ++k) {
            const float *p = v[tri[t][k]];
            len += (size_t)snprintf(ascii + len, sizeof ascii - len, "vertex %g %g %g\n",
                                    (double)p[0], (double)p[1], (double)p[2]);
            memcpy(rec + 3 + 3 * k, p, 12);
        }
        len += (size_t)snprintf(ascii + len, sizeof ascii - len, "endloop\nendfacet\n");
        fwrite(rec, 4, 12, bin);
        unsigned char attr[2] = {0, 0};
        fwrite(attr, 1, 2, bin);
    }
    fclose(bin);
    snprintf(ascii + len, sizeof ascii - len, "endsolid box\n");
    write_file("box_ascii.stl", ascii);
    write_file("stl.urdf", URDF_HEAD "<link name=\"a\"><collision><geometry>"
                                     "<mesh filename=\"box_ascii.stl\"/></geometry></collision>"
                                     "<collision><geometry><mesh filename=\"box_bin.stl\"/>"
                                     "</geometry></collision></link></robot>");
    gjkd_urdf_result r;
    assert_true(import(tmp_path("stl.urdf"), NULL, NULL, &r, NULL));
    const Gjkd__V1__Link *l = r.robot->links[0];
    assert_int_equal(l->n_parts, 2);
    const Gjkd__V1__ConvexVertices *a = l->parts[0]->shape->convex, *b = l->parts[1]->shape->convex;
    assert_int_equal(a->n_xyz, 24); /* the 8 corners */
    assert_int_equal(a->n_xyz, b->n_xyz);
    /* the same corner set (order may differ between the readers) */
    for (size_t i = 0; i < a->n_xyz; i += 3) {
        bool found = false;
        for (size_t k = 0; k < b->n_xyz && !found; k += 3)
            found = a->xyz[i] == b->xyz[k] && a->xyz[i + 1] == b->xyz[k + 1] &&
                    a->xyz[i + 2] == b->xyz[k + 2];
        assert_true(found);
    }
    gjkd_urdf_result_free(&r);
}

/* Mesh coordinates in double: OBJ and ASCII STL are read here with strtod, so a hull vertex is
 * exactly the double of the file's decimal text; COLLADA goes through assimp, which Debian
 * builds with float (ai_real = float): its coordinates are float32, within 2^-24 relative. The
 * difference is measured here on the same 17-digit points (the float path's deviation is
 * printed and bounded, the double paths' is zero). */
static void test_mesh_precision(void **state)
{
    (void)state;
    const double p[5][3] = {{0.12345678901234567, 0.0, 0.0},
                            {0.0, 0.23456789012345678, 0.0},
                            {0.0, 0.0, 0.34567890123456789},
                            {0.98765432109876543, 0.87654321098765432, 0.76543210987654321},
                            {-0.11111111111111111, -0.22222222222222222, -0.33333333333333333}};
    const int faces[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 4}, {1, 3, 4}};
    char obj[2048], stl[4096], dae[4096], arr[1024];
    size_t lo = 0, ls = 0, la = 0;
    ls += (size_t)snprintf(stl + ls, sizeof stl - ls, "solid prec\n");
    for (int i = 0; i < 5; ++i) {
        lo += (size_t)snprintf(obj + lo, sizeof obj - lo, "v %.17g %.17g %.17g\n", p[i][0], p[i][1],
                               p[i][2]);
        la += (size_t)snprintf(arr + la, sizeof arr - la, "%.17g %.17g %.17g ", p[i][0], p[i][1],
                               p[i][2]);
    }
    for (int f = 0; f < 4; ++f) {
        lo += (size_t)snprintf(obj + lo, sizeof obj - lo, "f %d %d %d\n", faces[f][0] + 1,
                               faces[f][1] + 1, faces[f][2] + 1);
        ls += (size_t)snprintf(stl + ls, sizeof stl - ls, "facet normal 0 0 0\nouter loop\n");
        for (int k = 0; k < 3; ++k) {
            const double *x = p[faces[f][k]];
            ls += (size_t)snprintf(stl + ls, sizeof stl - ls, "vertex %.17g %.17g %.17g\n", x[0],
                                   x[1], x[2]);
        }
        ls += (size_t)snprintf(stl + ls, sizeof stl - ls, "endloop\nendfacet\n");
    }
    snprintf(stl + ls, sizeof stl - ls, "endsolid prec\n");
    snprintf(dae, sizeof dae,
             "<?xml version=\"1.0\"?>\n<COLLADA "
             "xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
             "<asset><up_axis>Z_UP</up_axis></asset><library_geometries><geometry id=\"g\">"
             "<mesh><source id=\"p\"><float_array id=\"pa\" count=\"15\">%s</float_array>"
             "<technique_common><accessor source=\"#pa\" count=\"5\" stride=\"3\">"
             "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
             "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>"
             "<vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>"
             "<triangles count=\"4\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
             "<p>0 1 2 0 1 3 0 2 4 1 3 4</p></triangles></mesh></geometry></library_geometries>"
             "<library_visual_scenes><visual_scene id=\"s\"><node id=\"n\">"
             "<instance_geometry url=\"#g\"/></node></visual_scene></library_visual_scenes>"
             "<scene><instance_visual_scene url=\"#s\"/></scene></COLLADA>\n",
             arr);
    write_file("prec.obj", obj);
    write_file("prec.stl", stl);
    write_file("prec.dae", dae);
    const char *files[3] = {"prec.obj", "prec.stl", "prec.dae"};
    for (int f = 0; f < 3; ++f) {
        char urdf[512];
        snprintf(urdf, sizeof urdf,
                 URDF_HEAD "<link name=\"a\"><collision><geometry><mesh filename=\"%s\"/>"
                           "</geometry></collision></link></robot>",
                 files[f]);
        write_file("prec.urdf", urdf);
        gjkd_urdf_result r;
        assert_true(import(tmp_path("prec.urdf"), NULL, NULL, &r, NULL));
        const Gjkd__V1__ConvexVertices *cv = r.robot->links[0]->parts[0]->shape->convex;
        assert_int_equal(cv->n_xyz, 15);
        double worst = 0;
        for (size_t i = 0; i < 15; i += 3) {
            double best = INFINITY;
            for (int k = 0; k < 5; ++k) {
                double d = fmax(fabs(cv->xyz[i] - p[k][0]), fmax(fabs(cv->xyz[i + 1] - p[k][1]),
                                                                 fabs(cv->xyz[i + 2] - p[k][2])));
                best = fmin(best, d);
            }
            worst = fmax(worst, best);
        }
        printf("# %s: worst coordinate deviation from the decimal text %.3g m\n", files[f], worst);
        if (f < 2)
            assert_true(worst == 0); /* read in double */
        else
            assert_true(worst > 0 && worst <= 0x1p-24); /* assimp's float, |x| < 1 */
        gjkd_urdf_result_free(&r);
    }
}

/* The forms of OBJ and ASCII STL read here: negative (relative) and i/t/n face indices, "g"
 * groups, vertices shared by faces counted once, two solids in one STL, a binary STL whose
 * header starts with "solid" (the size decides), and the refusals with the file's line. */
static void test_text_mesh_forms(void **state)
{
    (void)state;
    write_file("forms.obj", "# comment\nmtllib none.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                            "vt 0 0\nvn 0 0 1\ng one\nusemtl a\nf 1/1/1 2/1/1 3/1/1\n"
                            "f -4//1 -3//1 -1//1\ng two\nv 3 3 3\nv 4 3 3\nv 3 4 3\n"
                            "f -3 -2 -1\n");
    write_file("two_solids.stl", "solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
                                 "vertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid a\n"
                                 "solid b\nfacet normal 0 0 1\nouter loop\nvertex 5 0 0\n"
                                 "vertex 6 0 0\nvertex 5 1 0\nendloop\nendfacet\nendsolid b\n");
    /* binary: header "solid ..." and one triangle */
    FILE *f = fopen(tmp_path("solid_header.stl"), "wb");
    assert_non_null(f);
    unsigned char header[80] = "solid but binary";
    fwrite(header, 1, 80, f);
    unsigned char one[4] = {1, 0, 0, 0};
    fwrite(one, 1, 4, f);
    float rec[12] = {0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0};
    fwrite(rec, 4, 12, f);
    unsigned char attr[2] = {0, 0};
    fwrite(attr, 1, 2, f);
    fclose(f);
    write_file("forms.urdf", URDF_HEAD "<link name=\"a\"><collision><geometry>"
                                       "<mesh filename=\"forms.obj\"/></geometry></collision>"
                                       "<collision><geometry><mesh filename=\"two_solids.stl\"/>"
                                       "</geometry></collision><collision><geometry>"
                                       "<mesh filename=\"solid_header.stl\"/></geometry>"
                                       "</collision></link></robot>");
    gjkd_urdf_result r;
    assert_true(import(tmp_path("forms.urdf"), NULL, NULL, &r, NULL));
    const Gjkd__V1__Link *l = r.robot->links[0];
    assert_int_equal(l->n_parts, 5);                         /* 2 groups + 2 solids + 1 */
    assert_int_equal(l->parts[0]->shape->convex->n_xyz, 12); /* group one: vertices 1..4 */
    assert_int_equal(l->parts[1]->shape->convex->n_xyz, 9);  /* group two: 5..7 */
    assert_true(l->parts[1]->shape->convex->xyz[0] == 3);
    assert_int_equal(l->parts[2]->shape->convex->n_xyz, 9);
    assert_true(l->parts[3]->shape->convex->xyz[0] == 5);
    assert_int_equal(l->parts[4]->shape->convex->n_xyz, 9);
    double lo[3], hi[3];
    mesh_bbox(l, lo, hi);
    assert_true(hi[0] == 6 && hi[1] == 4 && hi[2] == 3);
    assert_non_null(strstr(r.notes[0], "forms.obj: 2 parts, hulled 7 vertices -> 4+3"));
    gjkd_urdf_result_free(&r);

    const char *bad[][2] = {{"v 0 0\nf 1 1 1\n", "bad.obj:1: expected \"v x y z\""},
                            {"v 0 0 0\nv 1 nan 0\n", "bad.obj:2: expected \"v x y z\""},
                            {"v 0 0 0\nf 1 2 3\n", "a face uses vertex 2 of 1"},
                            {"v 0 0 0\nf -2 1 1\n", "bad.obj:2: face vertex -2 out of range"},
                            {"v 0 0 0\nf 1 x 1\n", "bad.obj:2: bad face vertex"},
                            {"v 0 0 0\nv 1 0 0\n", "bad.obj: no vertices"}};
    write_file("badmesh.urdf", URDF_HEAD "<link name=\"a\"><collision><geometry>"
                                         "<mesh filename=\"bad.obj\"/></geometry></collision>"
                                         "</link></robot>");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        write_file("bad.obj", bad[i][0]);
        char err[GJKD_URDF_ERROR_SIZE];
        assert_false(import(tmp_path("badmesh.urdf"), NULL, NULL, &r, err));
        if (!strstr(err, bad[i][1]) || !strstr(err, "link \"a\": collision[0]")) {
            print_error("error \"%s\" lacks \"%s\"\n", err, bad[i][1]);
            fail();
        }
    }
    write_file("bad.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\nendloop\n");
    write_file("badmesh.urdf", URDF_HEAD "<link name=\"a\"><collision><geometry>"
                                         "<mesh filename=\"bad.stl\"/></geometry></collision>"
                                         "</link></robot>");
    char err[GJKD_URDF_ERROR_SIZE];
    assert_false(import(tmp_path("badmesh.urdf"), NULL, NULL, &r, err));
    assert_non_null(strstr(err, "bad.stl:4: expected \"vertex x y z\""));
}

/* Adjacency across geometry-less links; package paths in order; mimic chains flattened;
 * continuous joints without limits; relative and package:// mesh paths. */
static void test_structure(void **state)
{
    (void)state;
    char dir1[512], dir2[512], pkg[600];
    snprintf(dir1, sizeof dir1, "%s/p1", tmp_dir);
    snprintf(dir2, sizeof dir2, "%s/p2", tmp_dir);
    mkdir(dir1, 0700);
    mkdir(dir2, 0700);
    snprintf(pkg, sizeof pkg, "%s/mypkg", dir2);
    mkdir(pkg, 0700);
    write_file("p2/mypkg/t.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n");
    write_file("s.urdf", URDF_HEAD
               "<link name=\"base\"><collision><geometry><box size=\"1 2 3\"/></geometry>"
               "</collision></link>\n"
               "<link name=\"flange\"/>\n<link name=\"tool\"/>\n"
               "<link name=\"finger\"><collision><origin rpy=\"0 0 1.5\"/><geometry>"
               "<mesh filename=\"package://mypkg/t.obj\" scale=\"1 -1 1\"/></geometry></collision>"
               "</link>\n"
               "<link name=\"f2\"><collision><geometry><cylinder radius=\"0.1\" length=\"0.4\"/>"
               "</geometry></collision><collision><geometry><sphere radius=\"0.2\"/></geometry>"
               "</collision></link>\n"
               "<link name=\"f3\"><collision><geometry><capsule radius=\"0.1\" length=\"0.6\"/>"
               "</geometry></collision></link>\n"
               "<joint name=\"j0\" type=\"continuous\"><parent link=\"base\"/>"
               "<child link=\"flange\"/><axis xyz=\"0 0 2\"/></joint>\n"
               "<joint name=\"jt\" type=\"fixed\"><parent link=\"flange\"/><child link=\"tool\"/>"
               "<axis xyz=\"0 0 0\"/></joint>\n"
               "<joint name=\"jf\" type=\"prismatic\"><parent link=\"tool\"/>"
               "<child link=\"finger\"/><limit lower=\"0\" upper=\"0.1\"/></joint>\n"
               "<joint name=\"jm1\" type=\"prismatic\"><parent link=\"tool\"/>"
               "<child link=\"f2\"/><limit lower=\"0\" upper=\"0.2\"/>"
               "<mimic joint=\"jf\" multiplier=\"2\" offset=\"0.01\"/></joint>\n"
               "<joint name=\"jm2\" type=\"prismatic\"><parent link=\"f2\"/>"
               "<child link=\"f3\"/><limit lower=\"-1\" upper=\"1\"/>"
               "<mimic joint=\"jm1\" multiplier=\"-3\" offset=\"0.5\"/></joint>\n"
               "</robot>");
    gjkd_urdf_options o;
    gjkd_urdf_options_init(&o);
    const char *paths[2] = {dir1, dir2};
    o.package_paths = paths;
    o.package_path_count = 2;
    o.name = "renamed";
    gjkd_urdf_result res;
    char err[GJKD_URDF_ERROR_SIZE];
    if (!gjkd_urdf_import(tmp_path("s.urdf"), &o, &res, err, sizeof err)) {
        print_error("%s\n", err);
        fail();
    }
    const Gjkd__V1__Robot *r = res.robot;
    assert_string_equal(r->name, "renamed");
    assert_int_equal(res.dof, 2); /* j0, jf */
    /* finger's nearest ancestor with geometry is base (flange, tool have none) */
    assert_true(has_pair(r, "base", "finger"));
    assert_true(has_pair(r, "base", "f2"));
    assert_true(has_pair(r, "f2", "f3"));
    assert_false(has_pair(r, "finger", "f2"));
    assert_int_equal(r->n_disabled_pairs, 3);
    const Gjkd__V1__Joint *j0 = find_joint(r, "j0");
    assert_int_equal(j0->type, GJKD__V1__JOINT_TYPE__JOINT_TYPE_CONTINUOUS);
    assert_null(j0->limits);
    assert_true(j0->axis->z == 2);
    assert_null(find_joint(r, "jt")->axis);
    assert_true(find_joint(r, "jf")->axis->x == 1); /* URDF's default axis */
    const Gjkd__V1__Mimic *m2 = find_joint(r, "jm2")->mimic;
    assert_string_equal(m2->joint, "jf"); /* -3 * (2 q + 0.01) + 0.5 */
    assert_true(m2->multiplier == -6 && m2->offset == -3 * 0.01 + 0.5);
    const Gjkd__V1__Link *base = find_link(r, "base");
    assert_true(base->parts[0]->shape->box->half_extents->z == 1.5);
    const Gjkd__V1__Link *f2 = find_link(r, "f2");
    assert_int_equal(f2->n_parts, 2);
    assert_true(f2->parts[0]->shape->cylinder->half_height == 0.2);
    assert_true(f2->parts[1]->shape->sphere->radius == 0.2);
    assert_true(find_link(r, "f3")->parts[0]->shape->capsule->half_height == 0.3);
    const Gjkd__V1__Link *finger = find_link(r, "finger");
    double lo[3], hi[3];
    mesh_bbox(finger, lo, hi);
    assert_true(lo[1] == -1 && hi[1] == 0); /* scale y -1 */
    assert_near(finger->parts[0]->pose->orientation->z, sin(0.75), 1e-15);
    /* the model builds and mimics follow */
    gjk_kinematics *k = build_kinematics(r);
    gjk_kinematics_state *s = NULL;
    assert_int_equal(gjk_kinematics_state_create(k, &s), GJK_KINEMATICS_OK);
    double q[2] = {0.3, 0.05};
    gjk_transform id = {{1, 0, 0, 0}, {0, 0, 0}};
    assert_int_equal(gjk_kinematics_forward(k, q, 2, id, s, NULL), GJK_KINEMATICS_OK);
    const gjk_transform *poses = gjk_kinematics_link_poses(s);
    double q1 = 2 * 0.05 + 0.01, q2 = -6 * 0.05 + (-3 * 0.01 + 0.5);
    gjk_vec3 f2p = poses[link_index(r, "f2")].p, f3p = poses[link_index(r, "f3")].p;
    gjk_vec3 x = quat_rotate(poses[link_index(r, "tool")].q, (gjk_vec3){1, 0, 0});
    assert_near(f2p.x, q1 * x.x, 1e-15);
    assert_near(f2p.y, q1 * x.y, 1e-15);
    assert_near(f3p.x, (q1 + q2) * x.x, 1e-15);
    gjk_kinematics_state_destroy(&s);
    gjk_kinematics_destroy(&k);
    gjkd_urdf_result_free(&res);

    /* no adjacency when asked */
    o.disable_adjacent = false;
    assert_true(gjkd_urdf_import(tmp_path("s.urdf"), &o, &res, err, sizeof err));
    assert_int_equal(res.robot->n_disabled_pairs, 0);
    gjkd_urdf_result_free(&res);
    /* the package is looked up in the given paths (p1 lacks it, p2 has it), then above the
     * URDF (s.urdf is not inside mypkg) */
    o.package_path_count = 1;
    assert_false(gjkd_urdf_import(tmp_path("s.urdf"), &o, &res, err, sizeof err));
    assert_non_null(strstr(err, "p1/mypkg/t.obj"));
}

/* package://PKG found in a directory PKG above the URDF, also when the URDF path is relative
 * and PKG is the working directory (the ancestor search used the relative path, which ended
 * at ".", and missed it), and with "package:///PKG/..." (three slashes, as some files have). */
static void test_package_above_urdf(void **state)
{
    (void)state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/anc", tmp_dir);
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/anc/kitpkg", tmp_dir);
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/anc/kitpkg/urdf", tmp_dir);
    mkdir(dir, 0700);
    write_file("anc/kitpkg/m.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n");
    write_file("anc/kitpkg/urdf/r.urdf",
               URDF_HEAD "<link name=\"a\"><collision><geometry>"
                         "<mesh filename=\"package://kitpkg/m.obj\"/></geometry></collision>"
                         "<collision><geometry><mesh filename=\"package:///kitpkg/m.obj\" "
                         "scale=\"2 2 2\"/></geometry></collision></link></robot>");
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(dir, sizeof dir, "%s/anc/kitpkg", tmp_dir);
    assert_int_equal(chdir(dir), 0);
    gjkd_urdf_result r;
    char err[GJKD_URDF_ERROR_SIZE];
    bool ok = import("urdf/r.urdf", NULL, NULL, &r, err);
    assert_int_equal(chdir(cwd), 0);
    if (!ok) {
        print_error("%s\n", err);
        fail();
    }
    assert_int_equal(r.robot->links[0]->n_parts, 2);
    assert_int_equal(r.mesh_files, 2); /* one file, two scales */
    gjkd_urdf_result_free(&r);
}

/* The JSON scene codec carries joints, base pose and initial positions exactly: the imported
 * Panda and UR5 (and a robot with a base pose, initial positions and a mimic offset) written
 * as a scene document read back to the same message, byte for byte. */
static void check_json_round_trip(Gjkd__V1__Robot *robot)
{
    Gjkd__V1__Robot *robots[1] = {robot};
    Gjkd__V1__Scene scene = GJKD__V1__SCENE__INIT;
    scene.n_robots = 1;
    scene.robots = robots;
    char *text = gjkd_json_write_scene(&scene);
    assert_non_null(text);
    Gjkd__V1__Scene *back = NULL;
    gjkd_json_error err;
    if (!gjkd_json_parse_scene(text, strlen(text), &back, &err)) {
        print_error("parse: %s\n", err.message);
        fail();
    }
    free(text);
    assert_int_equal(back->n_robots, 1);
    size_t n = gjkd__v1__robot__get_packed_size(robot);
    assert_int_equal(gjkd__v1__robot__get_packed_size(back->robots[0]), n);
    uint8_t *a = malloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    gjkd__v1__robot__pack(robot, a);
    gjkd__v1__robot__pack(back->robots[0], b);
    assert_memory_equal(a, b, n);
    free(a);
    free(b);
    gjkd_json_scene_free(&back);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    char urdf[512], srdf[512], meshes[512];
    panda_paths(urdf, srdf, meshes, sizeof urdf);
    gjkd_urdf_result res;
    assert_true(import(urdf, srdf, robots_dir, &res, NULL));
    assert_true(res.robot->n_joints == 12);
    check_json_round_trip(res.robot);
    /* with a base pose and initial positions (the import leaves them for the user) */
    Gjkd__V1__Robot *r = res.robot;
    gjk_transform base = {{0.5, 0.5, 0.5, 0.5}, {0.1, 1.0 / 3.0, -2e-9}};
    r->base_pose = malloc(sizeof *r->base_pose);
    assert_non_null(r->base_pose);
    gjkd__v1__pose__init(r->base_pose);
    r->base_pose->position = malloc(sizeof *r->base_pose->position);
    r->base_pose->orientation = malloc(sizeof *r->base_pose->orientation);
    assert_non_null(r->base_pose->position);
    assert_non_null(r->base_pose->orientation);
    gjkd__v1__vec3__init(r->base_pose->position);
    gjkd__v1__quaternion__init(r->base_pose->orientation);
    r->base_pose->position->x = base.p.x, r->base_pose->position->y = base.p.y;
    r->base_pose->position->z = base.p.z;
    r->base_pose->orientation->w = base.q.w, r->base_pose->orientation->x = base.q.x;
    r->base_pose->orientation->y = base.q.y, r->base_pose->orientation->z = base.q.z;
    r->n_initial_positions = 8;
    r->initial_positions = malloc(8 * sizeof(double));
    assert_non_null(r->initial_positions);
    for (int i = 0; i < 8; ++i)
        r->initial_positions[i] = 0.1 * (i + 1) / 3.0;
    r->initial_positions[3] = -1.5;
    find_joint(r, "panda_finger_joint2")->mimic->offset = 1e-17;
    check_json_round_trip(r);
    gjkd_urdf_result_free(&res);

    char u[512];
    snprintf(u, sizeof u, "%s/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
             robots_dir);
    assert_true(import(u, NULL, robots_dir, &res, NULL));
    check_json_round_trip(res.robot);
    gjkd_urdf_result_free(&res);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "%s/gjkd_urdf_XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_robot_import ROBOTS_DIR\n");
        return 2;
    }
    robots_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_panda),
        cmocka_unit_test(test_panda_fk),
        cmocka_unit_test(test_ur5),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_collada_units_up_axis),
        cmocka_unit_test(test_obj_two_objects),
        cmocka_unit_test(test_stl_ascii_binary),
        cmocka_unit_test(test_mesh_precision),
        cmocka_unit_test(test_text_mesh_forms),
        cmocka_unit_test(test_structure),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_package_above_urdf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
