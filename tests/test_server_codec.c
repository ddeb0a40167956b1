/* test_server_codec.c — the validation table: every kind of bad input gets its own status and
 * leaves the scene exactly as it was (same packed scene, same revision, same poses). */
#include "test_server_util.h"

#include "log.h"

#include <float.h>

typedef struct fixture {
    gjkd_service *svc;
    gjkd_arena arena;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->svc = t_service(NULL);
    gjkd_arena *a = &f->arena;
    assert_code(t_call_code(f->svc, t_put_robot(a, t_robot(a, "arm", 3))), GJKD_CODE(OK));
    assert_code(t_call_code(f->svc, t_put_obstacle(a, t_obstacle(a, "table", 0.5, 2.0))),
                GJKD_CODE(OK));
    assert_code(t_call_code(f->svc, t_set_poses(a, "arm", t_link_poses(a, 3, 0.0, 0.3))),
                GJKD_CODE(OK));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gjkd_service_destroy(&f->svc);
    gjkd_arena_free(&f->arena);
    free(f);
    return 0;
}

/* The state the world answers with: closest distance of an all-pairs query. */
static double closest(fixture *f)
{
    gjkd_arena a = {0};
    Gjkd__V1__Response *r =
        t_call(f->svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, INFINITY));
    assert_code(r->status->code, GJKD_CODE(OK));
    double d = r->state->min_distance;
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_arena_free(&a);
    return d;
}

/* Runs a bad request and checks its status and that nothing changed. */
static void expect_refused(fixture *f, const Gjkd__V1__Request *req, gjkd_code expected)
{
    size_t n0, n1;
    char *before = t_scene_fingerprint(f->svc, &n0);
    double d0 = closest(f);
    Gjkd__V1__Response *r = t_call(f->svc, req);
    assert_code(r->status->code, expected);
    assert_true(strlen(r->status->message) > 0);
    assert_int_equal(r->body_case, GJKD__V1__RESPONSE__BODY__NOT_SET);
    gjkd__v1__response__free_unpacked(r, NULL);
    char *after = t_scene_fingerprint(f->svc, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    assert_true(closest(f) == d0);
    free(before);
    free(after);
}

static void test_bad_robots(void **state)
{
    fixture *f = *state;
    gjkd_arena *a = &f->arena;
    Gjkd__V1__Robot *r;

    r = t_robot(a, "", 2);
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_ARGUMENT)); /* empty name */
    r = t_robot(a, "arm2", 0);
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_ARGUMENT)); /* no links */
    r = t_robot(a, "arm2", 2);
    r->links[1]->name = "l0";
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_ARGUMENT)); /* duplicate link */
    r = t_robot(a, "arm2", 2);
    r->links[1]->parts[0]->shape->box->half_extents->y = NAN;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT)); /* NaN size */
    r = t_robot(a, "arm2", 2);
    r->links[0]->parts[0]->shape->margin = -0.01;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT)); /* negative margin */
    r = t_robot(a, "arm2", 2);
    r->links[0]->parts[0]->shape->kind_case = GJKD__V1__SHAPE__KIND__NOT_SET;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_ARGUMENT)); /* no shape kind */
    r = t_robot(a, "arm2", 2);
    r->links[0]->parts[0]->pose = t_pose(a, 0, 0, 0);
    r->links[0]->parts[0]->pose->orientation->w = 2.0;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT)); /* |q| = 2 */
    r->links[0]->parts[0]->pose->orientation->w = 0.0;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT)); /* zero quaternion */
    r = t_robot(a, "arm2", 2);
    r->n_disabled_pairs = 1;
    r->disabled_pairs = gjkd_arena_alloc(a, sizeof *r->disabled_pairs);
    r->disabled_pairs[0] = gjkd_arena_alloc(a, sizeof **r->disabled_pairs);
    gjkd__v1__link_pair__init(r->disabled_pairs[0]);
    r->disabled_pairs[0]->a = "l0";
    r->disabled_pairs[0]->b = "nope";
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(NOT_FOUND)); /* unknown link in pair */
    r = t_robot(a, "arm2", 2);
    r->n_initial_link_poses = 1;
    r->initial_link_poses = gjkd_arena_alloc(a, sizeof *r->initial_link_poses);
    r->initial_link_poses[0] = t_pose(a, 0, 0, 0);
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_ARGUMENT)); /* 1 pose, 2 links */
    r = t_robot(a, "arm2", GJK_WORLD_MAX_LINKS + 1);
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(RESOURCE_EXHAUSTED)); /* > max links */
    char long_name[300];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    r = t_robot(a, long_name, 1);
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(RESOURCE_EXHAUSTED)); /* name too long */
    /* Lengths beyond GJK_MAX_LENGTH (1e12 m; issue 22, finding 3): a box of half-size 1e154
     * was accepted and a robot inside it reported clear; a scene load holding one answered
     * INTERNAL, the world refusing what the codec had let through. */
    r = t_robot(a, "arm2", 2);
    r->links[1]->parts[0]->shape->box->half_extents->x = 1e154;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT));
    expect_refused(f, t_load_scene(a, t_scene(a, &r, 1, NULL, 0, NULL, 0), true),
                   GJKD_CODE(INVALID_INPUT));
    r = t_robot(a, "arm2", 2);
    r->links[0]->parts[0]->shape->margin = 2e12;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT));
    r = t_robot(a, "arm2", 2);
    r->links[0]->parts[0]->pose = t_pose(a, 0, 0, 0);
    r->links[0]->parts[0]->pose->position->z = -1e100;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT));
    /* A replace of "arm" that fails must keep the old arm. */
    r = t_robot(a, "arm", 3);
    r->links[2]->parts[0]->shape->box->half_extents->z = INFINITY;
    expect_refused(f, t_put_robot(a, r), GJKD_CODE(INVALID_INPUT));
}

static void test_bad_hulls(void **state)
{
    fixture *f = *state;
    gjkd_arena *a = &f->arena;
    Gjkd__V1__Obstacle *o;

    o = t_obstacle(a, "rock", 0.1, 1.0);
    o->parts[0]->shape = t_hull_shape(a, 20, 0.1);
    o->parts[0]->shape->hull->n_xyz = 3 * 20 - 1;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_ARGUMENT)); /* not 3k values */
    o->parts[0]->shape = t_hull_shape(a, 20, 0.1);
    o->parts[0]->shape->hull->xyz[7] = INFINITY;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_INPUT)); /* Inf point */
    o->parts[0]->shape = t_hull_shape(a, 20, 0.1);
    o->parts[0]->shape->hull->xyz[4] = 3e12;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_INPUT)); /* point beyond 1e12 m */
    o->parts[0]->shape = t_hull_shape(a, 10001, 0.1);
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(RESOURCE_EXHAUSTED)); /* too many points */
    o->parts[0]->shape = t_hull_shape(a, 0, 0.1);
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_ARGUMENT)); /* no points */

    /* Convex vertices with an adjacency index out of range. */
    Gjkd__V1__Shape *s = t_hull_shape(a, 4, 0.1);
    Gjkd__V1__ConvexVertices *cv = gjkd_arena_alloc(a, sizeof *cv);
    gjkd__v1__convex_vertices__init(cv);
    cv->n_xyz = s->hull->n_xyz;
    cv->xyz = s->hull->xyz;
    int32_t start[5] = {0, 1, 2, 3, 4}, adj[4] = {1, 2, 3, 7};
    cv->n_adjacency_start = 5;
    cv->adjacency_start = start;
    cv->n_adjacency = 4;
    cv->adjacency = adj;
    s->kind_case = GJKD__V1__SHAPE__KIND_CONVEX;
    s->convex = cv;
    o->parts[0]->shape = s;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_ARGUMENT));

    o = t_obstacle(a, "rock", 0.1, 1.0);
    o->pose->position->y = NAN;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_INPUT)); /* NaN pose */
    o = t_obstacle(a, "rock", 0.1, 1.0);
    o->n_parts = 0;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_ARGUMENT)); /* no parts */
}

/* An ellipsoid part over the wire: accepted, answered as the core answers in process, and each
 * bad radius refused with INVALID_INPUT and a message that names it. */
static Gjkd__V1__Shape *ellipsoid_shape(gjkd_arena *a, double rx, double ry, double rz)
{
    Gjkd__V1__Shape *s = gjkd_arena_alloc(a, sizeof *s);
    gjkd__v1__shape__init(s);
    Gjkd__V1__Ellipsoid *e = gjkd_arena_alloc(a, sizeof *e);
    gjkd__v1__ellipsoid__init(e);
    e->radii = t_vec3(a, rx, ry, rz);
    s->kind_case = GJKD__V1__SHAPE__KIND_ELLIPSOID;
    s->ellipsoid = e;
    return s;
}

static void test_ellipsoid_parts(void **state)
{
    fixture *f = *state;
    gjkd_arena *a = &f->arena;
    /* Beside link l2 (a box of half size 0.1 at (0.6, 0, 0)), nearer than the table. */
    gjk_transform pose = gjk_transform_make(
        gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 2, 3)), 0.7), gjk_v3(0.65, 0.45, 0.05));
    Gjkd__V1__Obstacle *o = t_obstacle(a, "egg", 0.1, 0.0);
    o->parts[0]->shape = ellipsoid_shape(a, 0.3, 0.2, 0.1);
    o->parts[0]->shape->margin = 0.01;
    o->pose = gjkd_encode_pose(a, pose);
    assert_code(t_call_code(f->svc, t_put_obstacle(a, o)), GJKD_CODE(OK));
    gjk_shape egg = gjk_make_ellipsoid(gjk_v3(0.3, 0.2, 0.1)),
              box = gjk_make_box(gjk_v3(0.1, 0.1, 0.1));
    egg.margin = 0.01;
    gjk_result ref = gjk_signed_distance(
        &box, gjk_transform_make(gjk_quat_identity(), gjk_v3(0.6, 0, 0)), &egg, pose, NULL, NULL);
    assert_int_equal(ref.status, GJK_STATUS_SEPARATED);
    assert_true(ref.distance > 0.05 && ref.distance < 0.3);
    assert_true(fabs(closest(f) - ref.distance) <= 1e-12);

    const double bad[] = {0.0, -0.1, NAN, INFINITY, 2e12};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        o = t_obstacle(a, "egg2", 0.1, 1.0);
        o->parts[0]->shape = ellipsoid_shape(a, 0.3, bad[i], 0.1);
        expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_INPUT));
        Gjkd__V1__Response *r = t_call(f->svc, t_put_obstacle(a, o));
        assert_non_null(strstr(r->status->message, "ellipsoid.radii.y"));
        gjkd__v1__response__free_unpacked(r, NULL);
    }
    o = t_obstacle(a, "egg2", 0.1, 1.0);
    o->parts[0]->shape = ellipsoid_shape(a, 0.3, 0.2, 0.1);
    o->parts[0]->shape->ellipsoid->radii = NULL;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(INVALID_ARGUMENT));
}

static void test_bad_poses(void **state)
{
    fixture *f = *state;
    gjkd_arena *a = &f->arena;
    expect_refused(f, t_set_poses(a, "ghost", t_link_poses(a, 3, 0, 0.3)), GJKD_CODE(NOT_FOUND));
    expect_refused(f, t_set_poses(a, "arm", t_link_poses(a, 2, 0, 0.3)),
                   GJKD_CODE(INVALID_ARGUMENT)); /* wrong number of link poses */
    Gjkd__V1__LinkPoses *lp = t_link_poses(a, 3, 0, 0.3);
    lp->poses[1]->position->x = NAN;
    expect_refused(f, t_set_poses(a, "arm", lp), GJKD_CODE(INVALID_INPUT));
    lp = t_link_poses(a, 3, 0, 0.3);
    lp->poses[1]->position->y = 1e13;
    expect_refused(f, t_set_poses(a, "arm", lp), GJKD_CODE(INVALID_INPUT));
    lp = t_link_poses(a, 3, 0, 0.3);
    lp->poses[2]->orientation->x = INFINITY;
    expect_refused(f, t_set_poses(a, "arm", lp), GJKD_CODE(INVALID_INPUT));
    /* Two robot states, the second bad: the first must not be applied either. */
    Gjkd__V1__Request *req = t_set_poses(a, "arm", t_link_poses(a, 3, 5.0, 0.3));
    Gjkd__V1__SetLinkPosesRequest *m = req->set_link_poses;
    Gjkd__V1__RobotState **two = gjkd_arena_alloc(a, 2 * sizeof *two);
    two[0] = m->robots[0];
    two[1] = gjkd_arena_alloc(a, sizeof *two[1]);
    gjkd__v1__robot_state__init(two[1]);
    two[1]->robot = "ghost";
    two[1]->state_case = GJKD__V1__ROBOT_STATE__STATE_LINK_POSES;
    two[1]->link_poses = t_link_poses(a, 3, 0, 0);
    m->robots = two;
    m->n_robots = 2;
    expect_refused(f, req, GJKD_CODE(NOT_FOUND));
    /* No state at all. */
    req = t_set_poses(a, "arm", t_link_poses(a, 3, 0, 0.3));
    req->set_link_poses->robots[0]->state_case = GJKD__V1__ROBOT_STATE__STATE__NOT_SET;
    expect_refused(f, req, GJKD_CODE(INVALID_ARGUMENT));
}

static void test_bad_requests(void **state)
{
    fixture *f = *state;
    gjkd_arena *a = &f->arena;

    /* revision mismatch */
    Gjkd__V1__Request *req = t_put_obstacle(a, t_obstacle(a, "rock", 0.1, 1.0));
    req->precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
    req->expected_revision = 999;
    expect_refused(f, req, GJKD_CODE(FAILED_PRECONDITION));
    req = t_state_query(a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, 1.0);
    req->precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
    req->expected_revision = 1;
    expect_refused(f, req, GJKD_CODE(FAILED_PRECONDITION));

    /* unknown names */
    req = t_request(a, 9);
    Gjkd__V1__RemoveObstacleRequest rm = GJKD__V1__REMOVE_OBSTACLE_REQUEST__INIT;
    rm.name = "nothing";
    req->body_case = GJKD__V1__REQUEST__BODY_REMOVE_OBSTACLE;
    req->remove_obstacle = &rm;
    expect_refused(f, req, GJKD_CODE(NOT_FOUND));
    req = t_state_query(a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, 1.0);
    req->state_query->options->robot = "ghost";
    expect_refused(f, req, GJKD_CODE(NOT_FOUND));

    /* bad options */
    req = t_state_query(a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, -1.0);
    expect_refused(f, req, GJKD_CODE(INVALID_INPUT));
    req = t_state_query(a, (Gjkd__V1__QueryMode)7, 1.0);
    expect_refused(f, req, GJKD_CODE(INVALID_ARGUMENT));
    req = t_state_query(a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, 1.0);
    req->state_query->options->pair_kinds = 8;
    expect_refused(f, req, GJKD_CODE(INVALID_ARGUMENT));

    /* allowed pair naming an unknown obstacle */
    Gjkd__V1__BodyRef ba = GJKD__V1__BODY_REF__INIT, bb = GJKD__V1__BODY_REF__INIT;
    ba.robot = "arm";
    ba.link = "l0";
    bb.obstacle = "ghost";
    Gjkd__V1__AllowedPair pair = GJKD__V1__ALLOWED_PAIR__INIT;
    pair.a = &ba;
    pair.b = &bb;
    Gjkd__V1__AllowedPair *pairs[1] = {&pair};
    Gjkd__V1__SetAllowedPairsRequest ap = GJKD__V1__SET_ALLOWED_PAIRS_REQUEST__INIT;
    ap.n_pairs = 1;
    ap.pairs = pairs;
    req = t_request(a, 10);
    req->body_case = GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS;
    req->set_allowed_pairs = &ap;
    expect_refused(f, req, GJKD_CODE(NOT_FOUND));

    /* trajectory: unknown robot, no waypoints, wrong pose count */
    Gjkd__V1__TrajectoryQueryRequest tq = GJKD__V1__TRAJECTORY_QUERY_REQUEST__INIT;
    Gjkd__V1__Waypoint wp = GJKD__V1__WAYPOINT__INIT;
    Gjkd__V1__Waypoint *wps[1] = {&wp};
    wp.state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
    wp.link_poses = t_link_poses(a, 3, 0, 0.3);
    tq.robot = "ghost";
    tq.n_waypoints = 1;
    tq.waypoints = wps;
    req = t_request(a, 11);
    req->body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req->trajectory_query = &tq;
    expect_refused(f, req, GJKD_CODE(NOT_FOUND));
    tq.robot = "arm";
    tq.n_waypoints = 0;
    expect_refused(f, req, GJKD_CODE(INVALID_ARGUMENT));
    tq.n_waypoints = 1;
    wp.link_poses = t_link_poses(a, 4, 0, 0.3);
    expect_refused(f, req, GJKD_CODE(INVALID_ARGUMENT));
    assert_code(t_call_code(f->svc, t_simple(a, GJKD__V1__REQUEST__BODY__NOT_SET)),
                GJKD_CODE(INVALID_ARGUMENT)); /* no body */
}

static void test_bad_bytes(void **state)
{
    fixture *f = *state;
    size_t n0, n1;
    char *before = t_scene_fingerprint(f->svc, &n0);
    const uint8_t garbage[] = {0xff, 0xff, 0xff, 0x01, 0x02};
    uint8_t *reply;
    size_t reply_size;
    gjkd_service_handle(f->svc, garbage, sizeof garbage, &reply, &reply_size);
    Gjkd__V1__Response *r = gjkd__v1__response__unpack(NULL, reply_size, reply);
    assert_code(r->status->code, GJKD_CODE(MALFORMED));
    gjkd__v1__response__free_unpacked(r, NULL);
    free(reply);

    /* A valid request truncated in the middle of a submessage. */
    gjkd_arena a = {0};
    Gjkd__V1__Request *req = t_put_robot(&a, t_robot(&a, "arm9", 2));
    size_t n = gjkd__v1__request__get_packed_size(req);
    uint8_t *buf = malloc(n);
    gjkd__v1__request__pack(req, buf);
    gjkd_service_handle(f->svc, buf, n / 2, &reply, &reply_size);
    r = gjkd__v1__response__unpack(NULL, reply_size, reply);
    assert_code(r->status->code, GJKD_CODE(MALFORMED));
    gjkd__v1__response__free_unpacked(r, NULL);
    free(reply);

    /* Oversized: over the service's max_message_bytes. */
    gjkd_limits limits = gjkd_service_limits(f->svc);
    gjkd_limits small = limits;
    small.max_message_bytes = n - 1;
    gjkd_service_set_limits(f->svc, &small);
    gjkd_service_handle(f->svc, buf, n, &reply, &reply_size);
    r = gjkd__v1__response__unpack(NULL, reply_size, reply);
    assert_code(r->status->code, GJKD_CODE(RESOURCE_EXHAUSTED));
    gjkd__v1__response__free_unpacked(r, NULL);
    free(reply);
    gjkd_service_set_limits(f->svc, &limits);

    /* A body this daemon does not know (field 99, a newer client). */
    const uint8_t future[] = {0x08, 0x07, 0x9a, 0x06, 0x00}; /* request_id 7, field 99 = {} */
    gjkd_service_handle(f->svc, future, sizeof future, &reply, &reply_size);
    r = gjkd__v1__response__unpack(NULL, reply_size, reply);
    assert_code(r->status->code, GJKD_CODE(UNIMPLEMENTED));
    assert_int_equal(r->request_id, 7);
    gjkd__v1__response__free_unpacked(r, NULL);
    free(reply);

    free(buf);
    gjkd_arena_free(&a);
    char *after = t_scene_fingerprint(f->svc, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
}

/* Packs req and turns the byte `marker` of the first occurrence of `text` into `byte` (a NUL:
 * protobuf-c packs strings by strlen, so this is how a client gets "box_a\0attacker" onto the
 * wire). */
static Gjkd__V1__Response *call_patched(gjkd_service *svc, const Gjkd__V1__Request *req,
                                        const char *text, char marker, uint8_t byte)
{
    size_t n = gjkd__v1__request__get_packed_size(req);
    uint8_t *buf = malloc(n);
    gjkd__v1__request__pack(req, buf);
    size_t len = strlen(text);
    uint8_t *at = NULL;
    for (size_t i = 0; at == NULL && i + len <= n; ++i)
        if (memcmp(buf + i, text, len) == 0)
            at = buf + i;
    assert_non_null(at);
    uint8_t *m = memchr(at, marker, len);
    assert_non_null(m);
    *m = byte;
    uint8_t *reply;
    size_t reply_size;
    gjkd_service_handle(svc, buf, n, &reply, &reply_size);
    free(buf);
    Gjkd__V1__Response *r = gjkd__v1__response__unpack(NULL, reply_size, reply);
    free(reply);
    assert_non_null(r);
    return r;
}

static void expect_field_refused(Gjkd__V1__Response *r, const char *field)
{
    assert_code(r->status->code, GJKD_CODE(INVALID_ARGUMENT));
    if (strstr(r->status->message, field) == NULL) {
        print_error("message '%s' does not name '%s'\n", r->status->message, field);
        fail();
    }
    gjkd__v1__response__free_unpacked(r, NULL);
}

/* Issue 22, finding 17: protobuf-c hands proto3 strings over NUL-terminated, so a name holding
 * a NUL byte was seen cut at it: "box_a\0attacker" replaced box_a and "box_a\0x" removed it.
 * A string with a NUL byte (at any depth: link names, pair refs, pose updates) is refused
 * naming the field, and so is a name holding a C1 control (U+0085 passed the C0 check). */
static void test_names_cut_at_nul(void **state)
{
    fixture *f = *state;
    gjkd_arena a = {0};
    assert_code(t_call_code(f->svc, t_put_obstacle(&a, t_obstacle(&a, "box_a", 0.1, 1.0))),
                GJKD_CODE(OK));
    size_t n0, n1;
    char *before = t_scene_fingerprint(f->svc, &n0);

    expect_field_refused(call_patched(f->svc,
                                      t_put_obstacle(&a, t_obstacle(&a, "box_a#attacker", 0.3, 5)),
                                      "box_a#attacker", '#', 0),
                         "put_obstacle.obstacle.name");
    Gjkd__V1__RemoveObstacleRequest rm = GJKD__V1__REMOVE_OBSTACLE_REQUEST__INIT;
    rm.name = "box_a#x";
    Gjkd__V1__Request *req = t_request(&a, 8);
    req->body_case = GJKD__V1__REQUEST__BODY_REMOVE_OBSTACLE;
    req->remove_obstacle = &rm;
    expect_field_refused(call_patched(f->svc, req, "box_a#x", '#', 0), "remove_obstacle.name");
    Gjkd__V1__Robot *robot = t_robot(&a, "arm_nul", 3);
    robot->links[2]->name = "l2#evil";
    expect_field_refused(call_patched(f->svc, t_put_robot(&a, robot), "l2#evil", '#', 0),
                         "put_robot.robot.links[2].name");
    /* Not valid UTF-8 (a bare continuation byte): refused by the name check. */
    expect_field_refused(call_patched(f->svc, t_put_obstacle(&a, t_obstacle(&a, "box_b#", 0.3, 5)),
                                      "box_b#", '#', 0x80),
                         "obstacle.name");

    char *after = t_scene_fingerprint(f->svc, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(after);
    free(before);

    /* A C1 control (U+0085 NEXT LINE) is a control character too. */
    expect_refused(f, t_put_obstacle(&a, t_obstacle(&a, "box_\xc2\x85nel", 0.1, 2.0)),
                   GJKD_CODE(INVALID_ARGUMENT));
    /* Spaces, quotes, '=' and U+2028 are ordinary text in a name. */
    assert_code(
        t_call_code(f->svc, t_put_obstacle(&a, t_obstacle(&a, "a \"b\"=c\xe2\x80\xa8", 0.1, 3.0))),
        GJKD_CODE(OK));
    gjkd_arena_free(&a);
}

static void test_limits_on_counts(void **state)
{
    fixture *f = *state;
    gjkd_arena *a = &f->arena;
    gjkd_limits limits = gjkd_service_limits(f->svc);
    gjkd_limits tight = limits;
    tight.max_robots = 1;
    tight.max_obstacles = 1;
    tight.max_parts_per_body = 1;
    tight.max_waypoints = 2;
    gjkd_service_set_limits(f->svc, &tight);
    expect_refused(f, t_put_robot(a, t_robot(a, "arm2", 1)), GJKD_CODE(RESOURCE_EXHAUSTED));
    expect_refused(f, t_put_obstacle(a, t_obstacle(a, "rock", 0.1, 1.0)),
                   GJKD_CODE(RESOURCE_EXHAUSTED));
    Gjkd__V1__Obstacle *o = t_obstacle(a, "table", 0.1, 1.0);
    o->n_parts = 2;
    Gjkd__V1__Part **parts = gjkd_arena_alloc(a, 2 * sizeof *parts);
    parts[0] = parts[1] = o->parts[0];
    o->parts = parts;
    expect_refused(f, t_put_obstacle(a, o), GJKD_CODE(RESOURCE_EXHAUSTED));
    /* Replacing an existing name is not a new body: allowed at the limit. */
    assert_code(t_call_code(f->svc, t_put_obstacle(a, t_obstacle(a, "table", 0.5, 2.0))),
                GJKD_CODE(OK));
    gjkd_service_set_limits(f->svc, &limits);
}

static void test_pose_normalisation(void **state)
{
    (void)state;
    Gjkd__V1__Quaternion q = GJKD__V1__QUATERNION__INIT;
    Gjkd__V1__Pose p = GJKD__V1__POSE__INIT;
    p.orientation = &q;
    q.w = 1.0 + 5e-7; /* within GJK_QUAT_NORM_TOLERANCE: accepted and normalised */
    gjk_transform t;
    gjkd_error e;
    assert_true(gjkd_decode_pose(&p, "pose", &t, &e));
    assert_near(gjk_quat_norm(t.q), 1.0, 1e-15);
    q.w = 1.0 + 2e-6;
    assert_false(gjkd_decode_pose(&p, "pose", &t, &e));
    assert_code(e.code, GJKD_CODE(INVALID_INPUT));
    assert_non_null(strstr(e.message, "pose.orientation"));
    assert_true(gjkd_decode_pose(NULL, "pose", &t, &e)); /* absent = identity */
    assert_true(t.q.w == 1.0 && t.p.x == 0.0);
}

/* The options convention (gjk/world.h, Defaults; gjkd.proto QueryOptions): an absent or
 * empty QueryOptions decodes to a zeroed gjk_world_query_options but for the daemon's own
 * settings (max_pairs = its limit, threads), and with the daemon's default settings that is
 * exactly the zeroed struct's meaning: the same results. Each wire field lands on the C field
 * of the same meaning. (The decoder used to spell out its own defaults, which differed from
 * the core's zero values.) */
static void test_options_convention(void **state)
{
    (void)state;
    gjkd_limits limits = test_limits();
    assert_int_equal(limits.max_pairs_returned, GJK_WORLD_DEFAULT_MAX_PAIRS);
    gjkd_error e;
    Gjkd__V1__QueryOptions empty = GJKD__V1__QUERY_OPTIONS__INIT;
    gjk_world_query_options decoded[2];
    assert_true(gjkd_decode_query_options(NULL, &limits, 3, &decoded[0], &e));
    assert_true(gjkd_decode_query_options(&empty, &limits, 3, &decoded[1], &e));
    for (int i = 0; i < 2; ++i) {
        const gjk_world_query_options *o = &decoded[i];
        assert_false(o->has_max_distance);
        assert_int_equal(o->mode, GJK_WORLD_MODE_UNSPECIFIED);
        assert_int_equal(o->pairs, 0);
        assert_false(o->no_penetration_depth);
        assert_false(o->per_part);
        assert_int_equal(o->robot, 0);
        assert_int_equal(o->max_pairs, (int32_t)limits.max_pairs_returned);
        assert_int_equal(o->threads, 3);
        gjk_options zero_gjk;
        memset(&zero_gjk, 0, sizeof zero_gjk);
        assert_memory_equal(&o->gjk, &zero_gjk, sizeof zero_gjk);
    }

    /* every field onto its own */
    Gjkd__V1__QueryOptions m = GJKD__V1__QUERY_OPTIONS__INIT;
    m.max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
    m.max_distance = 0.25;
    m.mode = GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN;
    m.pair_kinds = GJKD__V1__PAIR_KIND__PAIR_KIND_SELF;
    m.no_penetration_depth = true;
    m.per_part = true;
    m.max_pairs = 7;
    gjk_world_query_options o;
    assert_true(gjkd_decode_query_options(&m, &limits, 1, &o, &e));
    assert_true(o.has_max_distance);
    assert_true(o.max_distance == 0.25);
    assert_int_equal(o.mode, GJK_WORLD_MODE_ALL_WITHIN);
    assert_int_equal(o.pairs, GJK_WORLD_PAIRS_SELF);
    assert_true(o.no_penetration_depth);
    assert_true(o.per_part);
    assert_int_equal(o.max_pairs, 7);
    m.mode = GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION;
    assert_true(gjkd_decode_query_options(&m, &limits, 1, &o, &e));
    assert_int_equal(o.mode, GJK_WORLD_MODE_FIRST_COLLISION);

    /* the daemon's defaults (its limit, one thread) answer as a zeroed struct does */
    gjk_world *w = NULL;
    assert_int_equal(gjk_world_create(NULL, &w), GJK_WORLD_OK);
    gjk_part_def parts[2];
    memset(parts, 0, sizeof parts);
    parts[0].shape = gjk_make_box(gjk_v3(0.1, 0.1, 0.1));
    parts[0].pose = gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 0));
    parts[1].shape = gjk_make_sphere(0.08);
    parts[1].pose = gjk_transform_make(gjk_quat_identity(), gjk_v3(0, 0, 0.2));
    gjk_link_def links[3];
    memset(links, 0, sizeof links);
    static const char *link_names[3] = {"l0", "l1", "l2"};
    gjk_transform poses[3];
    for (int l = 0; l < 3; ++l) {
        links[l].name = link_names[l];
        links[l].parts = parts;
        links[l].part_count = 2;
        poses[l] = gjk_transform_make(gjk_quat_identity(), gjk_v3(0.3 * l, 0, 0));
    }
    gjk_robot_def rd;
    memset(&rd, 0, sizeof rd);
    rd.links = links;
    rd.link_count = 3;
    rd.self_collision = true;
    rd.link_poses = poses;
    rd.name = "a";
    assert_int_equal(gjk_world_put_robot(w, &rd, NULL), GJK_WORLD_OK);
    for (int l = 0; l < 3; ++l)
        poses[l].p.y = 0.35; /* a second robot beside the first: robot-robot pairs */
    rd.name = "b";
    assert_int_equal(gjk_world_put_robot(w, &rd, NULL), GJK_WORLD_OK);
    gjk_obstacle_def od;
    memset(&od, 0, sizeof od);
    od.name = "o";
    od.parts = parts;
    od.part_count = 2;
    od.pose = gjk_transform_make(gjk_quat_identity(), gjk_v3(0.3, -0.15, 0)); /* overlaps a/l1 */
    assert_int_equal(gjk_world_put_obstacle(w, &od, NULL), GJK_WORLD_OK);
    assert_true(gjkd_decode_query_options(&empty, &limits, 1, &o, &e));
    gjk_world_query_options zero;
    memset(&zero, 0, sizeof zero);
    for (int mode = 0; mode < 4; ++mode) {
        o.mode = zero.mode = (gjk_world_mode)mode;
        gjk_world_result *x = NULL, *y = NULL;
        assert_int_equal(gjk_world_query_state(w, &o, &x), GJK_WORLD_OK);
        assert_int_equal(gjk_world_query_state(w, &zero, &y), GJK_WORLD_OK);
        const gjk_world_waypoint *p = &x->waypoints[0], *q = &y->waypoints[0];
        assert_int_equal(p->pair_count, q->pair_count);
        assert_true(p->pair_count > 0);
        assert_memory_equal(&p->min_distance, &q->min_distance, sizeof(double));
        assert_memory_equal(&p->counters, &q->counters, sizeof p->counters);
        for (int32_t i = 0; i < p->pair_count; ++i) {
            assert_memory_equal(&p->pairs[i].a.body, &q->pairs[i].a.body,
                                sizeof p->pairs[i].a.body);
            assert_memory_equal(&p->pairs[i].b.body, &q->pairs[i].b.body,
                                sizeof p->pairs[i].b.body);
            assert_memory_equal(&p->pairs[i].distance, &q->pairs[i].distance, sizeof(double));
            assert_int_equal(p->pairs[i].part_pair_count, q->pairs[i].part_pair_count);
        }
        gjk_world_result_destroy(&x);
        gjk_world_result_destroy(&y);
    }
    gjk_world_destroy(&w);
}

static void test_code_table(void **state)
{
    (void)state;
    assert_code(gjkd_code_from_status(GJK_WORLD_OK), GJKD_CODE(OK));
    assert_code(gjkd_code_from_status(GJK_STATUS_NOT_FOUND), GJKD_CODE(NOT_FOUND));
    assert_int_equal((int)GJKD_CODE(NOT_FOUND), 8);
    assert_string_equal(gjkd_code_name(GJKD_CODE(FAILED_PRECONDITION)), "FAILED_PRECONDITION");
    assert_string_equal(gjkd_code_name((gjkd_code)1000), "UNKNOWN");
}

int main(void)
{
    gjkd_log_set_level(GJKD_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_robots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_hulls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ellipsoid_parts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_poses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_cut_at_nul, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits_on_counts, setup, teardown),
        cmocka_unit_test(test_pose_normalisation),
        cmocka_unit_test(test_options_convention),
        cmocka_unit_test(test_code_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
