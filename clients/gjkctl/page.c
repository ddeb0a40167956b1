/* page.c — the scene of gjkctl's browser pages: fetched from the daemon (the scene document it
 * holds, with its robots' current joint positions), link poses by the core's forward
 * kinematics, hulls by the core's gjk_hull_build (the daemon keeps exactly those vertices), and
 * the page itself: tools/viewer's template with three.js inlined, embedded at build time
 * (page_html.c, generated), its data filled in here. */
#define _POSIX_C_SOURCE 200809L
#include "page.h"

#include "documents.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gjk/hull.h"
#include "gjkd_json.h"

/* The page (tools/viewer/build.mjs): NUL-terminated, one "@GJKD_DATA@" to fill. */
extern const char gjkd_page_html[];

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NO_REPLY = 3 };

gjk_transform page_pose(const Gjkd__V1__Pose *p)
{
    gjk_transform t = {{1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    if (p == NULL)
        return t;
    if (p->position)
        t.p = (gjk_vec3){p->position->x, p->position->y, p->position->z};
    if (p->orientation) {
        const Gjkd__V1__Quaternion *q = p->orientation;
        double n = sqrt(q->w * q->w + q->x * q->x + q->y * q->y + q->z * q->z);
        if (n > 0.0)
            t.q = (gjk_quat){q->w / n, q->x / n, q->y / n, q->z / n};
    }
    return t;
}

static gjk_transform packed_pose(const double *v)
{
    double n = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
    if (!(n > 0.0))
        n = 1.0;
    return (gjk_transform){{v[3] / n, v[4] / n, v[5] / n, v[6] / n}, {v[0], v[1], v[2]}};
}

static int link_index(const Gjkd__V1__Robot *r, const char *name)
{
    for (size_t i = 0; i < r->n_links; i++)
        if (strcmp(r->links[i]->name, name) == 0)
            return (int)i;
    return -1;
}

/* The robot's kinematics as the daemon builds it (the same def from the same document). */
static bool build_kinematics(page_robot *pr)
{
    const Gjkd__V1__Robot *r = pr->robot;
    gjk_joint_def *j = calloc(r->n_joints + 1, sizeof *j);
    if (j == NULL)
        return false;
    for (size_t i = 0; i < r->n_joints; i++) {
        const Gjkd__V1__Joint *x = r->joints[i];
        j[i].name = x->name;
        j[i].type = x->type == GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE     ? GJK_JOINT_REVOLUTE
                    : x->type == GJKD__V1__JOINT_TYPE__JOINT_TYPE_CONTINUOUS ? GJK_JOINT_CONTINUOUS
                    : x->type == GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC  ? GJK_JOINT_PRISMATIC
                                                                             : GJK_JOINT_FIXED;
        j[i].parent = link_index(r, x->parent);
        j[i].child = link_index(r, x->child);
        j[i].origin = page_pose(x->origin);
        j[i].axis =
            x->axis ? (gjk_vec3){x->axis->x, x->axis->y, x->axis->z} : (gjk_vec3){1.0, 0.0, 0.0};
        if (x->limits) {
            j[i].lower = x->limits->lower;
            j[i].upper = x->limits->upper;
        }
        if (x->mimic) {
            j[i].mimic = x->mimic->joint;
            j[i].multiplier = x->mimic->multiplier;
            j[i].offset = x->mimic->offset;
        }
    }
    gjk_kinematics_def def = {(int32_t)r->n_links, j, (int32_t)r->n_joints};
    gjk_kinematics_error err;
    gjk_status st = gjk_kinematics_build(&def, &pr->kin, &err);
    free(j);
    if (st != GJK_STATUS_SEPARATED) {
        fprintf(stderr, "gjkctl: robot \"%s\": kinematics refused: %s\n", r->name, err.reason);
        return false;
    }
    pr->dof = gjk_kinematics_dof_count(pr->kin);
    pr->q = calloc((size_t)pr->dof + 1, sizeof *pr->q);
    return pr->q != NULL &&
           gjk_kinematics_state_create(pr->kin, &pr->state) == GJK_STATUS_SEPARATED;
}

/* Forward kinematics of robot r at q into poses[]. */
static bool robot_forward(const page_robot *pr, const double *q, gjk_transform base,
                          gjk_transform *poses)
{
    int32_t bad = -1;
    if (gjk_kinematics_forward(pr->kin, q, pr->dof, base, pr->state, &bad) !=
        GJK_STATUS_SEPARATED) {
        fprintf(stderr, "gjkctl: robot \"%s\": joint positions refused (joint %d)\n",
                pr->robot->name, (int)bad);
        return false;
    }
    const gjk_transform *lp = gjk_kinematics_link_poses(pr->state);
    for (size_t l = 0; l < pr->robot->n_links; l++)
        poses[pr->first_body + l] = lp[l];
    return true;
}

int page_scene_load(gjkd_client *c, page_scene *s)
{
    memset(s, 0, sizeof *s);
    Gjkd__V1__SceneSummaryRequest body = GJKD__V1__SCENE_SUMMARY_REQUEST__INIT;
    body.include_scene = true;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_SCENE_SUMMARY;
    req.scene_summary = &body;
    gjkd_status st = gjkd_client_call(c, &req, &s->reply);
    if (st != GJKD_OK) {
        fprintf(stderr, "gjkctl: %s\n", gjkd_client_error(c));
        return st == GJKD_TIMEOUT || st == GJKD_TRANSPORT ? EXIT_NO_REPLY : EXIT_REFUSED;
    }
    const Gjkd__V1__SceneSummary *sum = s->reply->scene_summary;
    if (s->reply->body_case != GJKD__V1__RESPONSE__BODY_SCENE_SUMMARY || sum->scene == NULL) {
        fputs("gjkctl: BAD_REPLY: the daemon returned no scene\n", stderr);
        return EXIT_REFUSED;
    }
    s->scene = sum->scene;
    s->revision = s->reply->revision;
    const Gjkd__V1__Scene *sc = s->scene;
    size_t nb = sc->n_obstacles;
    for (size_t i = 0; i < sc->n_robots; i++)
        nb += sc->robots[i]->n_links;
    s->robots = calloc(sc->n_robots + 1, sizeof *s->robots);
    s->bodies = calloc(nb + 1, sizeof *s->bodies);
    s->poses = calloc(nb + 1, sizeof *s->poses);
    if (!s->robots || !s->bodies || !s->poses) {
        fputs("gjkctl: out of memory\n", stderr);
        return EXIT_USAGE;
    }
    s->robot_count = sc->n_robots;
    for (size_t i = 0; i < sc->n_robots; i++) {
        const Gjkd__V1__Robot *r = sc->robots[i];
        page_robot *pr = &s->robots[i];
        pr->robot = r;
        pr->base = page_pose(r->base_pose);
        pr->first_body = s->body_count;
        for (size_t l = 0; l < r->n_links; l++) {
            page_body *b = &s->bodies[s->body_count];
            b->robot = r->name;
            b->link = r->links[l]->name;
            b->robot_index = (int)i;
            b->link_index = (int)l;
            b->parts = (const Gjkd__V1__Part *const *)r->links[l]->parts;
            b->part_count = r->links[l]->n_parts;
            b->padding = r->padding + r->links[l]->padding;
            /* A link-pose robot: the poses it was put with (the daemon's current ones are
             * transient and not in the scene document). */
            s->poses[s->body_count] =
                l < r->n_initial_link_poses ? page_pose(r->initial_link_poses[l]) : page_pose(NULL);
            s->body_count++;
        }
        if (r->n_joints == 0)
            continue;
        if (!build_kinematics(pr))
            return EXIT_REFUSED;
        /* The daemon's current positions, by name (its summary lists them in DOF order). */
        const char *const *names = gjk_kinematics_dof_names(pr->kin);
        for (size_t k = 0; k < sum->n_robots; k++) {
            const Gjkd__V1__RobotSummary *rs = sum->robots[k];
            if (strcmp(rs->name, r->name) != 0)
                continue;
            for (size_t d = 0; d < rs->n_joint_names && d < rs->n_positions; d++)
                for (int e = 0; e < pr->dof; e++)
                    if (strcmp(names[e], rs->joint_names[d]) == 0)
                        pr->q[e] = rs->positions[d];
        }
        if (!robot_forward(pr, pr->q, pr->base, s->poses))
            return EXIT_REFUSED;
    }
    for (size_t i = 0; i < sc->n_obstacles; i++) {
        const Gjkd__V1__Obstacle *o = sc->obstacles[i];
        page_body *b = &s->bodies[s->body_count];
        b->obstacle = o->name;
        b->robot_index = -1;
        b->parts = (const Gjkd__V1__Part *const *)o->parts;
        b->part_count = o->n_parts;
        b->padding = o->padding;
        s->poses[s->body_count] = page_pose(o->pose);
        s->body_count++;
    }
    return 0;
}

void page_scene_free(page_scene *s)
{
    for (size_t i = 0; s->robots && i < s->robot_count; i++) {
        gjk_kinematics_state_destroy(&s->robots[i].state);
        gjk_kinematics_destroy(&s->robots[i].kin);
        free(s->robots[i].q);
    }
    free(s->robots);
    free(s->bodies);
    free(s->poses);
    if (s->reply)
        gjkd__v1__response__free_unpacked(s->reply, NULL);
    memset(s, 0, sizeof *s);
}

int page_find_link(const page_scene *s, const char *robot, const char *link)
{
    for (size_t i = 0; i < s->body_count; i++)
        if (s->bodies[i].robot && strcmp(s->bodies[i].robot, robot) == 0 &&
            strcmp(s->bodies[i].link, link) == 0)
            return (int)i;
    return -1;
}

int page_find_obstacle(const page_scene *s, const char *obstacle)
{
    for (size_t i = 0; i < s->body_count; i++)
        if (s->bodies[i].obstacle && strcmp(s->bodies[i].obstacle, obstacle) == 0)
            return (int)i;
    return -1;
}

static bool points_polytope(const double *xyz, size_t n, bool hull, gjk_polytope *poly)
{
    gjk_vec3 *pts = malloc((n + 1) * sizeof *pts);
    if (pts == NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        pts[i] = (gjk_vec3){xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]};
    gjk_status st = hull ? gjk_hull_build(poly, pts, (int32_t)n, NULL)
                         : gjk_polytope_create(poly, pts, (int32_t)n, NULL, NULL);
    free(pts);
    return st == GJK_STATUS_SEPARATED;
}

bool page_part_shape(const Gjkd__V1__Part *p, gjk_shape *shape, gjk_polytope *poly)
{
    memset(poly, 0, sizeof *poly);
    const Gjkd__V1__Shape *s = p->shape;
    if (s == NULL)
        return false;
    switch (s->kind_case) {
    case GJKD__V1__SHAPE__KIND_POINT:
        *shape = gjk_make_point();
        break;
    case GJKD__V1__SHAPE__KIND_SPHERE:
        *shape = gjk_make_sphere(s->sphere->radius);
        break;
    case GJKD__V1__SHAPE__KIND_CAPSULE:
        *shape = gjk_make_capsule(s->capsule->radius, s->capsule->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_BOX: {
        const Gjkd__V1__Vec3 *h = s->box->half_extents;
        *shape = gjk_make_box(h ? (gjk_vec3){h->x, h->y, h->z} : (gjk_vec3){0, 0, 0});
        break;
    }
    case GJKD__V1__SHAPE__KIND_CYLINDER:
        *shape = gjk_make_cylinder(s->cylinder->radius, s->cylinder->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_CONE:
        *shape = gjk_make_cone(s->cone->radius, s->cone->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_HULL:
        if (s->hull->n_xyz < 3 || !points_polytope(s->hull->xyz, s->hull->n_xyz / 3, true, poly))
            return false;
        *shape = gjk_make_polytope(poly);
        break;
    case GJKD__V1__SHAPE__KIND_CONVEX:
        if (s->convex->n_xyz < 3 ||
            !points_polytope(s->convex->xyz, s->convex->n_xyz / 3, false, poly))
            return false;
        *shape = gjk_make_polytope(poly);
        break;
    default:
        return false;
    }
    shape->margin = s->margin;
    return true;
}

cJSON *page_vec_json(double x, double y, double z)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, gjkd_json_double(x));
    cJSON_AddItemToArray(a, gjkd_json_double(y));
    cJSON_AddItemToArray(a, gjkd_json_double(z));
    return a;
}

cJSON *page_pose_json(gjk_transform t)
{
    double v[7] = {t.p.x, t.p.y, t.p.z, t.q.w, t.q.x, t.q.y, t.q.z};
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < 7; i++)
        cJSON_AddItemToArray(a, gjkd_json_double(v[i]));
    return a;
}

static cJSON *shape_json(const Gjkd__V1__Part *p)
{
    cJSON *o = cJSON_CreateObject();
    gjk_shape sh;
    gjk_polytope poly;
    if (!page_part_shape(p, &sh, &poly)) {
        cJSON_AddStringToObject(o, "kind", "none");
        return o;
    }
    static const char *const kinds[] = {"none", "point",    "sphere", "capsule",
                                        "box",  "cylinder", "cone",   "hull"};
    const char *kind = sh.kind < GJK_SHAPE_KIND_COUNT ? kinds[sh.kind] : "none";
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddItemToObject(o, "margin", gjkd_json_double(sh.margin));
    switch (sh.kind) {
    case GJK_SHAPE_SPHERE:
        cJSON_AddItemToObject(o, "radius", gjkd_json_double(sh.radius));
        break;
    case GJK_SHAPE_CAPSULE:
    case GJK_SHAPE_CYLINDER:
    case GJK_SHAPE_CONE:
        cJSON_AddItemToObject(o, "radius", gjkd_json_double(sh.radius));
        cJSON_AddItemToObject(o, "half_height", gjkd_json_double(sh.half_height));
        break;
    case GJK_SHAPE_BOX:
        cJSON_AddItemToObject(
            o, "half_extents",
            page_vec_json(sh.half_extents.x, sh.half_extents.y, sh.half_extents.z));
        break;
    case GJK_SHAPE_POLYTOPE: {
        cJSON *v = cJSON_AddArrayToObject(o, "vertices");
        for (int32_t i = 0; i < poly.count; i++) {
            cJSON_AddItemToArray(v, gjkd_json_double(poly.x[i]));
            cJSON_AddItemToArray(v, gjkd_json_double(poly.y[i]));
            cJSON_AddItemToArray(v, gjkd_json_double(poly.z[i]));
        }
        break;
    }
    default:
        break;
    }
    gjk_polytope_destroy(&poly);
    return o;
}

cJSON *page_bodies_json(const page_scene *s)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < s->body_count; i++) {
        const page_body *b = &s->bodies[i];
        cJSON *o = cJSON_CreateObject();
        char name[512];
        if (b->robot) {
            snprintf(name, sizeof name, "%s/%s", b->robot, b->link);
            cJSON_AddStringToObject(o, "robot", b->robot);
            cJSON_AddStringToObject(o, "link", b->link);
        } else {
            snprintf(name, sizeof name, "%s", b->obstacle);
            cJSON_AddStringToObject(o, "obstacle", b->obstacle);
        }
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddItemToObject(o, "padding", gjkd_json_double(b->padding));
        cJSON *parts = cJSON_AddArrayToObject(o, "parts");
        for (size_t k = 0; k < b->part_count; k++) {
            cJSON *p = cJSON_CreateObject();
            char pn[32];
            snprintf(pn, sizeof pn, "#%zu", k);
            cJSON_AddStringToObject(p, "name", b->parts[k]->name[0] ? b->parts[k]->name : pn);
            cJSON_AddItemToObject(p, "shape", shape_json(b->parts[k]));
            cJSON_AddItemToObject(p, "pose", page_pose_json(page_pose(b->parts[k]->pose)));
            cJSON_AddItemToArray(parts, p);
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

size_t page_waypoint_count(const Gjkd__V1__TrajectoryQueryRequest *t)
{
    return t->n_waypoints > 0 ? t->n_waypoints : t->waypoint_count;
}

/* q[dof] from a JointPositions-like (names, positions): named ones set, others kept. */
static bool apply_joints(const page_robot *pr, char *const *names, size_t n_names,
                         const double *positions, size_t n, double *q)
{
    if (n_names == 0) {
        if (n != (size_t)pr->dof) {
            fprintf(stderr, "gjkctl: robot \"%s\": %zu joint positions for %d DOF\n",
                    pr->robot->name, n, pr->dof);
            return false;
        }
        memcpy(q, positions, n * sizeof *q);
        return true;
    }
    if (n_names != n) {
        fprintf(stderr, "gjkctl: %zu joint names for %zu positions\n", n_names, n);
        return false;
    }
    int32_t *dofs = calloc(n + 1, sizeof *dofs);
    int32_t bad = -1;
    bool ok =
        dofs != NULL && gjk_kinematics_map_dofs(pr->kin, (const char *const *)names, (int32_t)n,
                                                dofs, &bad) == GJK_STATUS_SEPARATED;
    for (size_t i = 0; ok && i < n; i++)
        if (dofs[i] >= 0)
            q[dofs[i]] = positions[i];
    if (!ok)
        fprintf(stderr, "gjkctl: robot \"%s\": unknown or repeated joint \"%s\"\n", pr->robot->name,
                bad >= 0 && (size_t)bad < n ? names[bad] : "?");
    free(dofs);
    return ok;
}

/* The state of robot r into poses[] (its link poses, or its joints by forward kinematics,
 * unnamed joints at the robot's current values), as the daemon applies one. */
static bool apply_state(const page_scene *s, int r, const Gjkd__V1__LinkPoses *lp,
                        const Gjkd__V1__JointPositions *jp, gjk_transform *poses)
{
    const page_robot *pr = &s->robots[r];
    size_t nl = pr->robot->n_links;
    if (lp != NULL) {
        for (size_t l = 0; l < nl && lp->n_poses == nl; l++)
            poses[pr->first_body + l] = page_pose(lp->poses[l]);
        for (size_t l = 0; l < nl && lp->n_poses != nl && lp->n_xyz_wxyz == 7 * nl; l++)
            poses[pr->first_body + l] = packed_pose(lp->xyz_wxyz + 7 * l);
        if (lp->n_poses == nl || lp->n_xyz_wxyz == 7 * nl)
            return true;
        fprintf(stderr, "gjkctl: not one pose per link of \"%s\" (%zu links)\n", pr->robot->name,
                nl);
        return false;
    }
    if (pr->kin == NULL) {
        fprintf(stderr, "gjkctl: joint positions for \"%s\", a robot without joints\n",
                pr->robot->name);
        return false;
    }
    double *q = malloc(((size_t)pr->dof + 1) * sizeof *q);
    if (q == NULL)
        return false;
    memcpy(q, pr->q, (size_t)pr->dof * sizeof *q);
    bool ok = apply_joints(pr, jp->names, jp->n_names, jp->positions, jp->n_positions, q) &&
              robot_forward(pr, q, jp->base_pose ? page_pose(jp->base_pose) : pr->base, poses);
    free(q);
    return ok;
}

int page_apply_poses(page_scene *s, const char *path)
{
    Gjkd__V1__SetLinkPosesRequest *req;
    if (!gjkctl_read_poses(path, &req))
        return EXIT_USAGE;
    bool ok = true;
    for (size_t i = 0; ok && i < req->n_robots; i++) {
        const Gjkd__V1__RobotState *rs = req->robots[i];
        int r = -1;
        for (size_t k = 0; k < s->robot_count; k++)
            if (strcmp(s->robots[k].robot->name, rs->robot) == 0)
                r = (int)k;
        if (r < 0) {
            fprintf(stderr, "gjkctl: %s: no robot \"%s\" in the scene\n", path, rs->robot);
            ok = false;
        } else {
            ok = apply_state(
                s, r,
                rs->state_case == GJKD__V1__ROBOT_STATE__STATE_LINK_POSES ? rs->link_poses : NULL,
                rs->state_case == GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS ? rs->joint_positions
                                                                               : NULL,
                s->poses);
            s->robots[r].posed = ok;
        }
    }
    gjkd_json_poses_free(&req);
    return ok ? 0 : EXIT_USAGE;
}

void page_note_unposed(const page_scene *s, int except)
{
    for (size_t i = 0; i < s->robot_count; i++)
        if (s->robots[i].kin == NULL && !s->robots[i].posed && (int)i != except)
            fprintf(stderr,
                    "gjkctl: note: \"%s\" is drawn at the link poses it was put with (the "
                    "daemon's current ones are not in its scene: --poses POSES.json gives them)\n",
                    s->robots[i].robot->name);
}

bool page_waypoint_poses(const page_scene *s, int r, const Gjkd__V1__TrajectoryQueryRequest *t,
                         size_t k, gjk_transform *poses)
{
    const page_robot *pr = &s->robots[r];
    size_t nl = pr->robot->n_links;
    const double *packed = NULL;
    const Gjkd__V1__LinkPoses *lp = NULL;
    const Gjkd__V1__JointPositions *jp = NULL;
    if (t->n_waypoints > 0) {
        const Gjkd__V1__Waypoint *w = t->waypoints[k];
        if (w->state_case == GJKD__V1__WAYPOINT__STATE_LINK_POSES)
            lp = w->link_poses;
        else if (w->state_case == GJKD__V1__WAYPOINT__STATE_JOINT_POSITIONS)
            jp = w->joint_positions;
    } else if (t->n_waypoint_xyz_wxyz > 0) {
        if (t->n_waypoint_xyz_wxyz != 7 * nl * t->waypoint_count)
            goto bad_count;
        packed = t->waypoint_xyz_wxyz + 7 * nl * k;
    }
    if (lp != NULL) {
        if (lp->n_poses == nl) {
            for (size_t l = 0; l < nl; l++)
                poses[pr->first_body + l] = page_pose(lp->poses[l]);
            return true;
        }
        if (lp->n_xyz_wxyz != 7 * nl)
            goto bad_count;
        packed = lp->xyz_wxyz;
    }
    if (packed != NULL) {
        for (size_t l = 0; l < nl; l++)
            poses[pr->first_body + l] = packed_pose(packed + 7 * l);
        return true;
    }
    if (pr->kin == NULL) {
        fprintf(stderr,
                "gjkctl: waypoint %zu: joint positions for \"%s\", a robot without joints\n", k,
                pr->robot->name);
        return false;
    }
    double *q = malloc(((size_t)pr->dof + 1) * sizeof *q);
    if (q == NULL)
        return false;
    memcpy(q, pr->q, (size_t)pr->dof * sizeof *q);
    gjk_transform base = pr->base;
    bool ok;
    if (jp != NULL) {
        ok = apply_joints(pr, jp->names, jp->n_names, jp->positions, jp->n_positions, q);
        if (jp->base_pose)
            base = page_pose(jp->base_pose);
    } else {
        size_t n = t->waypoint_count ? t->n_waypoint_joints / t->waypoint_count : 0;
        ok = t->n_waypoint_joints > 0 &&
             apply_joints(pr, t->joint_names, t->n_joint_names, t->waypoint_joints + n * k, n, q);
    }
    ok = ok && robot_forward(pr, q, base, poses);
    free(q);
    return ok;
bad_count:
    fprintf(stderr, "gjkctl: waypoint %zu: not one pose per link of \"%s\" (%zu links)\n", k,
            pr->robot->name, nl);
    return false;
}

/* Writes text, escaping '<' in the JSON (only strings hold one) so that no "</script>" or
 * "<!--" in a name can end the data element early. */
static bool write_json_escaped(FILE *f, const char *json)
{
    for (const char *p = json; *p; p++) {
        if (*p == '<' ? fputs("\\u003c", f) < 0 : fputc(*p, f) == EOF)
            return false;
    }
    return true;
}

int page_write(const char *path, cJSON *data)
{
    char *json = data ? cJSON_PrintUnformatted(data) : NULL;
    cJSON_Delete(data);
    if (json == NULL) {
        fputs("gjkctl: out of memory formatting the page data\n", stderr);
        return EXIT_USAGE;
    }
    const char *mark = strstr(gjkd_page_html, "@GJKD_DATA@");
    FILE *f = fopen(path, "w");
    bool ok = f != NULL && mark != NULL &&
              fwrite(gjkd_page_html, 1, (size_t)(mark - gjkd_page_html), f) ==
                  (size_t)(mark - gjkd_page_html) &&
              write_json_escaped(f, json) && fputs(mark + strlen("@GJKD_DATA@"), f) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = false;
    free(json);
    if (!ok) {
        fprintf(stderr, "gjkctl: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}
