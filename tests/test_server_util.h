/* test_server_util.h — helpers for the daemon's unit tests: request builders on an arena,
 * a call through the service without sockets, and status assertions that print names. */
#ifndef TEST_SERVER_UTIL_H
#define TEST_SERVER_UTIL_H

#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "dispatch.h"

#define assert_code(actual, expected)                                                              \
    do {                                                                                           \
        gjkd_code a_ = (actual), e_ = (expected);                                                  \
        if (a_ != e_) {                                                                            \
            print_error("%s = %s, expected %s\n", #actual, gjkd_code_name(a_),                     \
                        gjkd_code_name(e_));                                                       \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

static inline gjkd_limits test_limits(void)
{
    gjkd_config c;
    gjkd_config_defaults(&c);
    return c.limits;
}

static inline Gjkd__V1__Vec3 *t_vec3(gjkd_arena *a, double x, double y, double z)
{
    return gjkd_encode_vec3(a, gjk_v3(x, y, z));
}

static inline Gjkd__V1__Pose *t_pose(gjkd_arena *a, double x, double y, double z)
{
    return gjkd_encode_pose(a, gjk_transform_make(gjk_quat_identity(), gjk_v3(x, y, z)));
}

static inline Gjkd__V1__Shape *t_box_shape(gjkd_arena *a, double h)
{
    Gjkd__V1__Shape *s = gjkd_arena_alloc(a, sizeof *s);
    gjkd__v1__shape__init(s);
    Gjkd__V1__Box *b = gjkd_arena_alloc(a, sizeof *b);
    gjkd__v1__box__init(b);
    b->half_extents = t_vec3(a, h, h, h);
    s->kind_case = GJKD__V1__SHAPE__KIND_BOX;
    s->box = b;
    return s;
}

/* A hull part of n points on a sphere of radius r (deterministic). */
static inline Gjkd__V1__Shape *t_hull_shape(gjkd_arena *a, int n, double r)
{
    Gjkd__V1__Shape *s = gjkd_arena_alloc(a, sizeof *s);
    gjkd__v1__shape__init(s);
    Gjkd__V1__PointCloud *pc = gjkd_arena_alloc(a, sizeof *pc);
    gjkd__v1__point_cloud__init(pc);
    pc->n_xyz = (size_t)(3 * n);
    pc->xyz = gjkd_arena_alloc(a, pc->n_xyz * sizeof(double));
    for (int i = 0; i < n; ++i) { /* Fibonacci sphere */
        double z = 1.0 - 2.0 * (i + 0.5) / n, rho = sqrt(1.0 - z * z), phi = 2.399963 * i;
        pc->xyz[3 * i] = r * rho * cos(phi);
        pc->xyz[3 * i + 1] = r * rho * sin(phi);
        pc->xyz[3 * i + 2] = r * z;
    }
    s->kind_case = GJKD__V1__SHAPE__KIND_HULL;
    s->hull = pc;
    return s;
}

static inline Gjkd__V1__Part *t_part(gjkd_arena *a, Gjkd__V1__Shape *shape)
{
    Gjkd__V1__Part *p = gjkd_arena_alloc(a, sizeof *p);
    gjkd__v1__part__init(p);
    p->shape = shape;
    return p;
}

/* A robot of n links, each one box part of half size 0.1 (link i is named "l<i>"). */
static inline Gjkd__V1__Robot *t_robot(gjkd_arena *a, const char *name, int n)
{
    Gjkd__V1__Robot *r = gjkd_arena_alloc(a, sizeof *r);
    gjkd__v1__robot__init(r);
    r->name = gjkd_arena_strdup(a, name);
    r->n_links = (size_t)n;
    r->links = gjkd_arena_alloc(a, (size_t)n * sizeof *r->links);
    for (int i = 0; i < n; ++i) {
        Gjkd__V1__Link *l = gjkd_arena_alloc(a, sizeof *l);
        gjkd__v1__link__init(l);
        char buf[16];
        snprintf(buf, sizeof buf, "l%d", i);
        l->name = gjkd_arena_strdup(a, buf);
        l->n_parts = 1;
        l->parts = gjkd_arena_alloc(a, sizeof *l->parts);
        l->parts[0] = t_part(a, t_box_shape(a, 0.1));
        r->links[i] = l;
    }
    return r;
}

static inline Gjkd__V1__Joint *t_joint(gjkd_arena *a, const char *name, Gjkd__V1__JointType type,
                                       const char *parent, const char *child, double x, double y,
                                       double z, double ax, double ay, double az, double lower,
                                       double upper)
{
    Gjkd__V1__Joint *j = gjkd_arena_alloc(a, sizeof *j);
    gjkd__v1__joint__init(j);
    j->name = gjkd_arena_strdup(a, name);
    j->type = type;
    j->parent = gjkd_arena_strdup(a, parent);
    j->child = gjkd_arena_strdup(a, child);
    j->origin = t_pose(a, x, y, z);
    j->axis = t_vec3(a, ax, ay, az);
    if (type == GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE ||
        type == GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC) {
        j->limits = gjkd_arena_alloc(a, sizeof *j->limits);
        gjkd__v1__joint_limits__init(j->limits);
        j->limits->lower = lower;
        j->limits->upper = upper;
    }
    return j;
}

/* A robot with joints, links l0 (rail) l1 (cart) l2 (arm) l3 (finger) l4 (tool), boxes of
 * half size 0.1: "slide" prismatic l0 -> l1 along x [-1, 1] at (0, 0, 0.3); "turn" revolute
 * l1 -> l2 about z [-2, 2] at (0, 0, 0.3); "grip" prismatic l2 -> l3 along y at (0.3, 0, 0),
 * a mimic of slide (0.5 q + 0.1); "tool" fixed l3 -> l4 at (0.25, 0, 0). DOF: slide, turn. */
static inline Gjkd__V1__Robot *t_cart_robot(gjkd_arena *a, const char *name)
{
    Gjkd__V1__Robot *r = t_robot(a, name, 5);
    r->n_joints = 4;
    r->joints = gjkd_arena_alloc(a, 4 * sizeof *r->joints);
    r->joints[0] = t_joint(a, "slide", GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC, "l0", "l1", 0, 0,
                           0.3, 1, 0, 0, -1, 1);
    r->joints[1] = t_joint(a, "turn", GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE, "l1", "l2", 0, 0,
                           0.3, 0, 0, 1, -2, 2);
    r->joints[2] = t_joint(a, "grip", GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC, "l2", "l3", 0.3,
                           0, 0, 0, 1, 0, -5, 5);
    r->joints[2]->mimic = gjkd_arena_alloc(a, sizeof *r->joints[2]->mimic);
    gjkd__v1__mimic__init(r->joints[2]->mimic);
    r->joints[2]->mimic->joint = gjkd_arena_strdup(a, "slide");
    r->joints[2]->mimic->multiplier = 0.5;
    r->joints[2]->mimic->offset = 0.1;
    r->joints[3] = t_joint(a, "tool", GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED, "l3", "l4", 0.25, 0,
                           0, 0, 0, 0, 0, 0);
    return r;
}

/* An obstacle: one box of half size h at (x, 0, 0). */
static inline Gjkd__V1__Obstacle *t_obstacle(gjkd_arena *a, const char *name, double h, double x)
{
    Gjkd__V1__Obstacle *o = gjkd_arena_alloc(a, sizeof *o);
    gjkd__v1__obstacle__init(o);
    o->name = gjkd_arena_strdup(a, name);
    o->n_parts = 1;
    o->parts = gjkd_arena_alloc(a, sizeof *o->parts);
    o->parts[0] = t_part(a, t_box_shape(a, h));
    o->pose = t_pose(a, x, 0, 0);
    return o;
}

/* Link poses: link i at (x0 + i * dx, 0, 0). */
static inline Gjkd__V1__LinkPoses *t_link_poses(gjkd_arena *a, int n, double x0, double dx)
{
    Gjkd__V1__LinkPoses *lp = gjkd_arena_alloc(a, sizeof *lp);
    gjkd__v1__link_poses__init(lp);
    lp->n_poses = (size_t)n;
    lp->poses = gjkd_arena_alloc(a, (size_t)n * sizeof *lp->poses);
    for (int i = 0; i < n; ++i)
        lp->poses[i] = t_pose(a, x0 + i * dx, 0, 0);
    return lp;
}

static inline Gjkd__V1__Request *t_request(gjkd_arena *a, uint64_t id)
{
    Gjkd__V1__Request *r = gjkd_arena_alloc(a, sizeof *r);
    gjkd__v1__request__init(r);
    r->request_id = id;
    return r;
}

static inline Gjkd__V1__Request *t_put_robot(gjkd_arena *a, Gjkd__V1__Robot *robot)
{
    Gjkd__V1__Request *r = t_request(a, 1);
    Gjkd__V1__PutRobotRequest *m = gjkd_arena_alloc(a, sizeof *m);
    gjkd__v1__put_robot_request__init(m);
    m->robot = robot;
    r->body_case = GJKD__V1__REQUEST__BODY_PUT_ROBOT;
    r->put_robot = m;
    return r;
}

static inline Gjkd__V1__Request *t_put_obstacle(gjkd_arena *a, Gjkd__V1__Obstacle *o)
{
    Gjkd__V1__Request *r = t_request(a, 2);
    Gjkd__V1__PutObstacleRequest *m = gjkd_arena_alloc(a, sizeof *m);
    gjkd__v1__put_obstacle_request__init(m);
    m->obstacle = o;
    r->body_case = GJKD__V1__REQUEST__BODY_PUT_OBSTACLE;
    r->put_obstacle = m;
    return r;
}

static inline Gjkd__V1__Request *t_set_poses(gjkd_arena *a, const char *robot,
                                             Gjkd__V1__LinkPoses *poses)
{
    Gjkd__V1__Request *r = t_request(a, 3);
    Gjkd__V1__SetLinkPosesRequest *m = gjkd_arena_alloc(a, sizeof *m);
    gjkd__v1__set_link_poses_request__init(m);
    Gjkd__V1__RobotState *st = gjkd_arena_alloc(a, sizeof *st);
    gjkd__v1__robot_state__init(st);
    st->robot = gjkd_arena_strdup(a, robot);
    st->state_case = GJKD__V1__ROBOT_STATE__STATE_LINK_POSES;
    st->link_poses = poses;
    m->n_robots = 1;
    m->robots = gjkd_arena_alloc(a, sizeof *m->robots);
    m->robots[0] = st;
    r->body_case = GJKD__V1__REQUEST__BODY_SET_LINK_POSES;
    r->set_link_poses = m;
    return r;
}

static inline Gjkd__V1__Request *t_state_query(gjkd_arena *a, Gjkd__V1__QueryMode mode,
                                               double max_distance)
{
    Gjkd__V1__Request *r = t_request(a, 4);
    Gjkd__V1__StateQueryRequest *m = gjkd_arena_alloc(a, sizeof *m);
    gjkd__v1__state_query_request__init(m);
    Gjkd__V1__QueryOptions *o = gjkd_arena_alloc(a, sizeof *o);
    gjkd__v1__query_options__init(o);
    o->mode = mode;
    if (!isinf(max_distance)) {
        o->max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
        o->max_distance = max_distance;
    }
    m->options = o;
    r->body_case = GJKD__V1__REQUEST__BODY_STATE_QUERY;
    r->state_query = m;
    return r;
}

static inline Gjkd__V1__Request *t_simple(gjkd_arena *a, Gjkd__V1__Request__BodyCase body)
{
    Gjkd__V1__Request *r = t_request(a, 5);
    r->body_case = body;
    /* the empty bodies share one layout: a bare ProtobufCMessage */
    switch (body) {
    case GJKD__V1__REQUEST__BODY_HEALTH: {
        Gjkd__V1__HealthRequest *m = gjkd_arena_alloc(a, sizeof *m);
        gjkd__v1__health_request__init(m);
        r->health = m;
        break;
    }
    case GJKD__V1__REQUEST__BODY_STATS: {
        Gjkd__V1__StatsRequest *m = gjkd_arena_alloc(a, sizeof *m);
        gjkd__v1__stats_request__init(m);
        r->stats = m;
        break;
    }
    case GJKD__V1__REQUEST__BODY_SCENE_SUMMARY: {
        Gjkd__V1__SceneSummaryRequest *m = gjkd_arena_alloc(a, sizeof *m);
        gjkd__v1__scene_summary_request__init(m);
        m->include_scene = true;
        r->scene_summary = m;
        break;
    }
    default:
        break;
    }
    return r;
}

/* An allowed pair: a link (or every link, link "") of `robot` and the body b (an obstacle, or
 * with b_link a link of robot b). */
static inline Gjkd__V1__AllowedPair *t_allowed_pair(gjkd_arena *a, const char *robot,
                                                    const char *link, const char *b,
                                                    const char *b_link)
{
    Gjkd__V1__AllowedPair *p = gjkd_arena_alloc(a, sizeof *p);
    gjkd__v1__allowed_pair__init(p);
    p->a = gjkd_arena_alloc(a, sizeof *p->a);
    gjkd__v1__body_ref__init(p->a);
    p->a->robot = gjkd_arena_strdup(a, robot);
    p->a->link = gjkd_arena_strdup(a, link);
    p->b = gjkd_arena_alloc(a, sizeof *p->b);
    gjkd__v1__body_ref__init(p->b);
    if (b_link == NULL) {
        p->b->obstacle = gjkd_arena_strdup(a, b);
    } else {
        p->b->robot = gjkd_arena_strdup(a, b);
        p->b->link = gjkd_arena_strdup(a, b_link);
    }
    return p;
}

/* A scene document (the arrays are copied into the arena). */
static inline Gjkd__V1__Scene *t_scene(gjkd_arena *a, Gjkd__V1__Robot *const *robots,
                                       size_t n_robots, Gjkd__V1__Obstacle *const *obstacles,
                                       size_t n_obstacles, Gjkd__V1__AllowedPair *const *pairs,
                                       size_t n_pairs)
{
    Gjkd__V1__Scene *s = gjkd_arena_alloc(a, sizeof *s);
    gjkd__v1__scene__init(s);
    s->n_robots = n_robots;
    s->robots = gjkd_arena_alloc(a, (n_robots + 1) * sizeof *s->robots);
    if (n_robots > 0)
        memcpy(s->robots, robots, n_robots * sizeof *s->robots);
    s->n_obstacles = n_obstacles;
    s->obstacles = gjkd_arena_alloc(a, (n_obstacles + 1) * sizeof *s->obstacles);
    if (n_obstacles > 0)
        memcpy(s->obstacles, obstacles, n_obstacles * sizeof *s->obstacles);
    s->n_allowed_pairs = n_pairs;
    s->allowed_pairs = gjkd_arena_alloc(a, (n_pairs + 1) * sizeof *s->allowed_pairs);
    if (n_pairs > 0)
        memcpy(s->allowed_pairs, pairs, n_pairs * sizeof *s->allowed_pairs);
    return s;
}

static inline Gjkd__V1__Request *t_load_scene(gjkd_arena *a, Gjkd__V1__Scene *scene, bool merge)
{
    Gjkd__V1__Request *r = t_request(a, 6);
    Gjkd__V1__LoadSceneRequest *m = gjkd_arena_alloc(a, sizeof *m);
    gjkd__v1__load_scene_request__init(m);
    m->scene = scene;
    m->merge = merge;
    r->body_case = GJKD__V1__REQUEST__BODY_LOAD_SCENE;
    r->load_scene = m;
    return r;
}

/* Packs `req`, runs it through the service, returns the unpacked Response (free with
 * gjkd__v1__response__free_unpacked). */
static inline Gjkd__V1__Response *t_call(gjkd_service *svc, const Gjkd__V1__Request *req)
{
    size_t n = gjkd__v1__request__get_packed_size(req);
    uint8_t *buf = malloc(n + 1);
    gjkd__v1__request__pack(req, buf);
    uint8_t *reply;
    size_t reply_size;
    gjkd_service_handle(svc, buf, n, &reply, &reply_size);
    free(buf);
    Gjkd__V1__Response *resp = gjkd__v1__response__unpack(NULL, reply_size, reply);
    free(reply);
    assert_non_null(resp);
    assert_non_null(resp->status);
    return resp;
}

/* Calls and returns only the status code. */
static inline gjkd_code t_call_code(gjkd_service *svc, const Gjkd__V1__Request *req)
{
    Gjkd__V1__Response *r = t_call(svc, req);
    gjkd_code c = r->status->code;
    gjkd__v1__response__free_unpacked(r, NULL);
    return c;
}

/* The scene as the service would persist it, packed: a fingerprint of "the scene". */
static inline char *t_scene_fingerprint(gjkd_service *svc, size_t *size)
{
    gjkd_arena a = {0};
    Gjkd__V1__Response *r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_int_equal(r->body_case, GJKD__V1__RESPONSE__BODY_SCENE_SUMMARY);
    r->scene_summary->scene->revision = r->revision;
    /* Ids are stable for the life of a daemon, not across restarts: names are the identity. */
    for (size_t i = 0; i < r->scene_summary->n_robots; ++i)
        r->scene_summary->robots[i]->id = 0;
    for (size_t i = 0; i < r->scene_summary->n_obstacles; ++i)
        r->scene_summary->obstacles[i]->id = 0;
    *size = gjkd__v1__scene_summary__get_packed_size(r->scene_summary);
    char *buf = malloc(*size + 1);
    gjkd__v1__scene_summary__pack(r->scene_summary, (uint8_t *)buf);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_arena_free(&a);
    return buf;
}

static inline gjkd_service *t_service(gjkd_store *store)
{
    gjkd_service_def def = {test_limits(), 1, 1, store};
    gjkd_error e;
    gjkd_service *svc = gjkd_service_create(&def, &e);
    assert_non_null(svc);
    return svc;
}

#endif /* TEST_SERVER_UTIL_H */
