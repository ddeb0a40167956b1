/* test_client_wire.c — libgjkd-client's lean encoding over a real ROUTER on loopback TCP: a
 * trajectory sent packed with a columnar reply expands to exactly what the first encoding
 * (nested poses, full reply) gives, for gjkd_query_trajectory and for a request message with
 * nested poses; packed link poses set the same state; bad poses are refused with messages
 * naming the packed field; an inconsistent compact or columnar reply is BAD_REPLY. */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "test_loopback_server.h"

#include "log.h"

#include <time.h>
#include <zmq.h>

/* ------------------------------------------------------------------ an in-process daemon */

/* The arm (3 links) between two boxes, at x = -2.6 and x = 2. */
static t_server *start(void)
{
    gjkd_arena a = {0};
    gjkd_service *svc = t_service(NULL);
    assert_code(t_call_code(svc, t_put_robot(&a, t_robot(&a, "arm", 3))), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(&a, t_obstacle(&a, "right", 0.5, 2.0))),
                GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(&a, t_obstacle(&a, "left", 0.5, -2.6))),
                GJKD_CODE(OK));
    gjkd_arena_free(&a);
    return t_server_start(svc);
}

/* ------------------------------------------------------------------ the trajectory */

enum { WAYPOINTS = 31, LINKS = 3 };

/* Link l of waypoint w: x from -1 to 1.2 (the last waypoints collide with "right"), rotated
 * about z and tilted about x so that every quaternion component is non-zero somewhere. */
static void make_poses(gjkd_pose *poses)
{
    for (int w = 0; w < WAYPOINTS; ++w) {
        for (int l = 0; l < LINKS; ++l) {
            double x0 = -1.0 + 2.2 * w / (WAYPOINTS - 1), yaw = 0.2 * l + 0.01 * w, tilt = 0.05;
            gjkd_pose *p = &poses[w * LINKS + l];
            p->p = (gjkd_vec3){x0 + 0.3 * l, 0.1 * l, 0.02 * w};
            /* q = yaw about z times tilt about x */
            double cz = cos(0.5 * yaw), sz = sin(0.5 * yaw), cx = cos(0.5 * tilt),
                   sx = sin(0.5 * tilt);
            p->q = (gjkd_quat){cz * cx, cz * sx, sz * sx, sz * cx};
        }
    }
}

/* The first encoding: nested poses, full reply (a request message built by hand). */
static Gjkd__V1__TrajectoryQueryRequest *nested_request(gjkd_arena *a, const gjkd_pose *poses)
{
    Gjkd__V1__TrajectoryQueryRequest *tq = gjkd_arena_alloc(a, sizeof *tq);
    gjkd__v1__trajectory_query_request__init(tq);
    tq->robot = "arm";
    tq->n_waypoints = WAYPOINTS;
    tq->waypoints = gjkd_arena_alloc(a, WAYPOINTS * sizeof *tq->waypoints);
    for (int w = 0; w < WAYPOINTS; ++w) {
        Gjkd__V1__Waypoint *wp = gjkd_arena_alloc(a, sizeof *wp);
        gjkd__v1__waypoint__init(wp);
        wp->state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
        wp->link_poses = t_link_poses(a, LINKS, 0, 0);
        for (int l = 0; l < LINKS; ++l) {
            const gjkd_pose *p = &poses[w * LINKS + l];
            Gjkd__V1__Pose *m = wp->link_poses->poses[l];
            m->position->x = p->p.x;
            m->position->y = p->p.y;
            m->position->z = p->p.z;
            m->orientation->w = p->q.w;
            m->orientation->x = p->q.x;
            m->orientation->y = p->q.y;
            m->orientation->z = p->q.z;
        }
        tq->waypoints[w] = wp;
    }
    return tq;
}

static void same_vec(gjkd_vec3 v, const Gjkd__V1__Vec3 *m)
{
    assert_true(v.x == (m ? m->x : 0.0) && v.y == (m ? m->y : 0.0) && v.z == (m ? m->z : 0.0));
}

/* A pair expanded by the client equals the full-form pair bit for bit. */
static void same_pair(const gjkd_pair *p, const Gjkd__V1__PairResult *m)
{
    assert_string_equal(p->robot_a, m->body_a->robot);
    assert_string_equal(p->link_a, m->body_a->link);
    assert_string_equal(p->part_a, m->part_a);
    assert_string_equal(p->robot_b, m->body_b->robot);
    assert_string_equal(p->link_b, m->body_b->link);
    assert_string_equal(p->obstacle_b, m->body_b->obstacle);
    assert_string_equal(p->part_b, m->part_b);
    assert_int_equal(p->body_a_id, m->body_a_id);
    assert_int_equal(p->body_b_id, m->body_b_id);
    assert_int_equal(p->part_a_index, m->part_a_index);
    assert_int_equal(p->part_b_index, m->part_b_index);
    assert_true(p->distance == m->distance);
    same_vec(p->point_a, m->point_a);
    same_vec(p->point_b, m->point_b);
    same_vec(p->local_point_a, m->local_point_a);
    same_vec(p->local_point_b, m->local_point_b);
    same_vec(p->normal, m->normal);
    assert_int_equal(p->status, (int)m->status);
    assert_int_equal(p->iterations, m->iterations);
    assert_int_equal(p->epa_iterations, m->epa_iterations);
    assert_true(p->padding == m->padding);
    assert_int_equal(p->part_pair_count, m->part_pair_count);
    assert_true(p->part_pair_count >= 1);
}

static void same_trajectory(const gjkd_trajectory *t, const Gjkd__V1__TrajectoryResult *m)
{
    assert_int_equal(t->waypoint_count, m->n_waypoints);
    assert_true(t->min_distance == m->min_distance);
    assert_int_equal(t->min_waypoint, m->min_waypoint);
    assert_int_equal(t->first_collision, m->first_collision);
    assert_int_equal(t->colliding_waypoints, m->colliding_waypoints);
    for (size_t w = 0; w < t->waypoint_count; ++w) {
        const gjkd_state *s = &t->waypoints[w];
        const Gjkd__V1__StateResult *ms = m->waypoints[w];
        assert_int_equal(s->evaluated, ms->evaluated);
        assert_true(s->min_distance == (s->has_min_distance ? ms->min_distance : 0.0));
        assert_int_equal(s->colliding, ms->colliding);
        assert_int_equal(s->pairs_checked, ms->pairs_checked);
        assert_int_equal(s->closest != NULL, ms->closest != NULL);
        if (s->closest != NULL)
            same_pair(s->closest, ms->closest);
    }
}

static void test_lean_equals_first_encoding(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    gjkd_arena a = {0};
    gjkd_pose poses[WAYPOINTS * LINKS];
    make_poses(poses);
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.mode = GJKD_QUERY_CLOSEST;

    /* Reference: the first encoding through the raw call. */
    Gjkd__V1__TrajectoryQueryRequest *tq = nested_request(&a, poses);
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req.trajectory_query = tq;
    Gjkd__V1__Response *ref;
    assert_int_equal(gjkd_client_call(c, &req, &ref), GJKD_OK);
    assert_int_equal(ref->trajectory->n_pair_table, 0);
    assert_true(ref->trajectory->first_collision > 0);

    gjkd_trajectory *t;
    assert_int_equal(gjkd_query_trajectory(c, &o, "arm", NULL, poses, WAYPOINTS, LINKS, &t),
                     GJKD_OK);
    same_trajectory(t, ref->trajectory);
    gjkd_trajectory_destroy(&t);
    /* A request message with nested poses goes out packed and comes back the same; the
     * caller's message is left as it was. */
    assert_int_equal(gjkd_query_trajectory_request(c, &o, tq, &t), GJKD_OK);
    same_trajectory(t, ref->trajectory);
    gjkd_trajectory_destroy(&t);
    assert_int_equal(tq->waypoints[0]->link_poses->n_xyz_wxyz, 0);
    assert_null(tq->options);
    /* Options from the request itself (options NULL). */
    tq->options = gjkd_arena_alloc(&a, sizeof *tq->options);
    gjkd__v1__query_options__init(tq->options);
    assert_int_equal(gjkd_query_trajectory_request(c, NULL, tq, &t), GJKD_OK);
    same_trajectory(t, ref->trajectory);
    assert_false(tq->options->compact);
    gjkd_trajectory_destroy(&t);
    gjkd__v1__response__free_unpacked(ref, NULL);

    /* FIRST_COLLISION: the same through both encodings too. */
    o.mode = GJKD_QUERY_FIRST_COLLISION;
    tq->options->mode = GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION;
    assert_int_equal(gjkd_client_call(c, &req, &ref), GJKD_OK);
    assert_int_equal(gjkd_query_trajectory(c, &o, "arm", "named", poses, WAYPOINTS, LINKS, &t),
                     GJKD_OK);
    same_trajectory(t, ref->trajectory);
    gjkd_trajectory_destroy(&t);
    gjkd__v1__response__free_unpacked(ref, NULL);

    /* ALL_WITHIN: pair columns, expanded into the list of each waypoint; its closest is the
     * list's first entry (no copy). */
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.has_max_distance = true;
    o.max_distance = 5.0;
    assert_int_equal(gjkd_query_trajectory(c, &o, "arm", NULL, poses, WAYPOINTS, LINKS, &t),
                     GJKD_OK);
    assert_true(t->waypoints[0].pair_count > 1);
    assert_ptr_equal(t->waypoints[0].closest, &t->waypoints[0].pairs[0]);
    gjkd_trajectory_destroy(&t);

    gjkd_client_destroy(&c);
    gjkd_arena_free(&a);
    t_server_stop(s);
}

/* ALL_WITHIN through the client: one entry per body pair with its part_pair_count, and
 * per_part reaches the daemon: the same entries, bit for bit, as the raw replies. A shelf of
 * three boxes stands above the arm's links. */
static void test_body_pairs_through_client(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    gjkd_arena a = {0};
    Gjkd__V1__Obstacle *shelf = t_obstacle(&a, "shelf", 0.1, 0.0);
    shelf->n_parts = 3;
    shelf->parts = gjkd_arena_alloc(&a, 3 * sizeof *shelf->parts);
    for (int k = 0; k < 3; ++k) {
        shelf->parts[k] = t_part(&a, t_box_shape(&a, 0.1));
        shelf->parts[k]->pose = t_pose(&a, 0.3 * k, 0, 0.3);
    }
    assert_int_equal(gjkd_put_obstacle(c, shelf, NULL), GJKD_OK);
    gjkd_pose poses[LINKS];
    for (int l = 0; l < LINKS; ++l)
        poses[l] = (gjkd_pose){{1, 0, 0, 0}, {0.3 * l, 0, 0}};
    assert_int_equal(gjkd_set_link_poses(c, "arm", poses, LINKS), GJKD_OK);
    for (int per_part = 0; per_part < 2; ++per_part) {
        gjkd_query_options o;
        memset(&o, 0, sizeof o);
        o.mode = GJKD_QUERY_ALL_WITHIN;
        o.has_max_distance = true;
        o.max_distance = 0.5;
        o.per_part = per_part;
        gjkd_state *st;
        assert_int_equal(gjkd_query_state(c, &o, &st), GJKD_OK);
        Gjkd__V1__Request *req =
            t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, o.max_distance);
        req->state_query->options->per_part = per_part;
        Gjkd__V1__Response *ref;
        assert_int_equal(gjkd_client_call(c, req, &ref), GJKD_OK);
        /* each link against the shelf: 3 body pairs of 3 part pairs each, or 9 part pairs */
        assert_int_equal(st->pair_count, per_part ? 9 : 3);
        assert_int_equal(st->pair_count, ref->state->n_pairs);
        for (size_t i = 0; i < st->pair_count; ++i) {
            same_pair(&st->pairs[i], ref->state->pairs[i]);
            assert_int_equal(st->pairs[i].part_pair_count, per_part ? 1 : 3);
        }
        gjkd__v1__response__free_unpacked(ref, NULL);
        gjkd_state_destroy(&st);
    }
    gjkd_client_destroy(&c);
    gjkd_arena_free(&a);
    t_server_stop(s);
}

static void test_packed_link_poses_and_faults(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    gjkd_pose poses[WAYPOINTS * LINKS];
    make_poses(poses);
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.has_max_distance = true;
    o.max_distance = 10.0;

    /* gjkd_set_link_poses (packed) and the nested request set the same state. */
    assert_int_equal(gjkd_set_link_poses(c, "arm", poses + 5 * LINKS, LINKS), GJKD_OK);
    gjkd_state *s1, *s2;
    assert_int_equal(gjkd_query_state(c, &o, &s1), GJKD_OK);
    gjkd_arena a = {0};
    Gjkd__V1__TrajectoryQueryRequest *tq = nested_request(&a, poses);
    Gjkd__V1__RobotState rs = GJKD__V1__ROBOT_STATE__INIT;
    rs.robot = "arm";
    rs.state_case = GJKD__V1__ROBOT_STATE__STATE_LINK_POSES;
    rs.link_poses = tq->waypoints[5]->link_poses;
    Gjkd__V1__RobotState *rsp = &rs;
    Gjkd__V1__SetLinkPosesRequest set = GJKD__V1__SET_LINK_POSES_REQUEST__INIT;
    set.n_robots = 1;
    set.robots = &rsp;
    assert_int_equal(gjkd_set_link_poses(c, "arm", poses, LINKS), GJKD_OK); /* elsewhere */
    assert_int_equal(gjkd_set_link_poses_request(c, &set), GJKD_OK);
    assert_int_equal(gjkd_query_state(c, &o, &s2), GJKD_OK);
    assert_int_equal(s1->pair_count, s2->pair_count);
    for (size_t i = 0; i < s1->pair_count; ++i) {
        assert_true(s1->pairs[i].distance == s2->pairs[i].distance);
        assert_true(s1->pairs[i].point_a.x == s2->pairs[i].point_a.x);
        assert_true(s1->pairs[i].local_point_b.z == s2->pairs[i].local_point_b.z);
    }
    gjkd_state_destroy(&s1);
    gjkd_state_destroy(&s2);

    /* Faults are the daemon's, with the packed field named. */
    gjkd_trajectory *t = NULL;
    poses[7 * LINKS + 1].p.y = NAN;
    assert_int_equal(gjkd_query_trajectory(c, NULL, "arm", NULL, poses, WAYPOINTS, LINKS, &t),
                     GJKD_INVALID_INPUT);
    assert_null(t);
    assert_non_null(
        strstr(gjkd_client_error(c), "waypoint_xyz_wxyz: waypoint 7: pose 1: position not finite"));
    poses[7 * LINKS + 1].p.y = 0.0;
    poses[9 * LINKS + 2].q.w *= 1.5;
    assert_int_equal(gjkd_query_trajectory(c, NULL, "arm", NULL, poses, WAYPOINTS, LINKS, &t),
                     GJKD_INVALID_INPUT);
    assert_non_null(
        strstr(gjkd_client_error(c), "waypoint_xyz_wxyz: waypoint 9: pose 2: orientation norm"));
    /* Two links per waypoint for a robot of three. */
    assert_int_equal(gjkd_query_trajectory(c, NULL, "arm", NULL, poses, 4, 2, &t),
                     GJKD_INVALID_ARGUMENT);
    assert_non_null(strstr(gjkd_client_error(c),
                           "waypoint_xyz_wxyz: 56 values, expected 7 per link (px py "
                           "pz qw qx qy qz) x 3 links x 4 waypoints"));
    poses[0].q = (gjkd_quat){0, 0, 0, 0};
    assert_int_equal(gjkd_set_link_poses(c, "arm", poses, LINKS), GJKD_INVALID_INPUT);
    assert_non_null(strstr(gjkd_client_error(c), "robots[0].link_poses.xyz_wxyz: pose 0"));

    gjkd_client_destroy(&c);
    gjkd_arena_free(&a);
    t_server_stop(s);
}

/* ------------------------------------------------------------------ a lying daemon */

typedef struct liar {
    void *ctx;
    char endpoint[64];
    uint32_t pair_index; /* what the compact pair points at (the table has one entry) */
    size_t geometry;     /* values in the compact pair's geometry */
    bool columnar;       /* reply in the columnar form (else compact, as an older daemon) */
    size_t flags;        /* columnar: entries in the per-waypoint arrays (1 is right) */
    pthread_t thread;
    atomic_int ready;
} liar;

/* Answers one trajectory query with a compact or columnar reply whose pair is as configured. */
static void *lie(void *p)
{
    liar *l = p;
    void *s = zmq_socket(l->ctx, ZMQ_ROUTER);
    assert_int_equal(zmq_bind(s, "tcp://127.0.0.1:*"), 0);
    size_t len = sizeof l->endpoint;
    zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, l->endpoint, &len);
    atomic_store(&l->ready, 1);
    zmq_msg_t id, empty, body;
    zmq_msg_init(&id);
    zmq_msg_init(&empty);
    zmq_msg_init(&body);
    zmq_msg_recv(&id, s, 0);
    zmq_msg_recv(&empty, s, 0);
    zmq_msg_recv(&body, s, 0);
    Gjkd__V1__Request *req =
        gjkd__v1__request__unpack(NULL, zmq_msg_size(&body), zmq_msg_data(&body));
    assert_non_null(req);
    assert_true(req->trajectory_query->options->compact);
    assert_true(req->trajectory_query->options->columnar);
    assert_int_equal(req->trajectory_query->n_waypoint_xyz_wxyz, 7 * LINKS);
    assert_int_equal(req->trajectory_query->waypoint_count, 1);
    gjkd_arena a = {0};
    Gjkd__V1__PairResult entry = GJKD__V1__PAIR_RESULT__INIT, pair = GJKD__V1__PAIR_RESULT__INIT;
    Gjkd__V1__PairResult *table[1] = {&entry};
    double geometry[32] = {0}; /* up to 30 values sent */
    pair.pair_index = l->pair_index;
    pair.n_geometry = l->geometry;
    pair.geometry = geometry;
    Gjkd__V1__StateResult w = GJKD__V1__STATE_RESULT__INIT;
    w.evaluated = true;
    w.closest = &pair;
    Gjkd__V1__StateResult *wp[1] = {&w};
    Gjkd__V1__TrajectoryResult tr = GJKD__V1__TRAJECTORY_RESULT__INIT;
    tr.n_waypoints = 1;
    tr.waypoints = wp;
    tr.n_pair_table = 1;
    tr.pair_table = table;
    Gjkd__V1__WaypointColumns cols = GJKD__V1__WAYPOINT_COLUMNS__INIT;
    uint32_t flags[2] = {GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_EVALUATED |
                             GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_CLOSEST,
                         GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_EVALUATED};
    double zeros[2] = {0};
    uint32_t uzeros[2] = {0};
    int32_t izeros[2] = {0};
    Gjkd__V1__StatusCode codes[1] = {GJKD_CODE(SEPARATED)};
    uint32_t index[1] = {l->pair_index};
    if (l->columnar) {
        tr.n_waypoints = 0;
        tr.waypoints = NULL;
        cols.n_flags = l->flags;
        cols.flags = flags;
        cols.n_min_distance = cols.n_pairs_checked = cols.n_pairs_candidate = 1;
        cols.min_distance = zeros;
        cols.pairs_checked = cols.pairs_candidate = uzeros;
        cols.n_pair_index = cols.n_distance = cols.n_status = cols.n_iterations = 1;
        cols.n_epa_iterations = 1;
        cols.pair_index = index;
        cols.distance = zeros;
        cols.status = codes;
        cols.iterations = cols.epa_iterations = izeros;
        cols.n_geometry = l->geometry;
        cols.geometry = geometry;
        tr.columns = &cols;
    }
    Gjkd__V1__Status st = GJKD__V1__STATUS__INIT;
    st.code = GJKD_CODE(OK);
    Gjkd__V1__Response resp = GJKD__V1__RESPONSE__INIT;
    resp.request_id = req->request_id;
    resp.status = &st;
    resp.body_case = GJKD__V1__RESPONSE__BODY_TRAJECTORY;
    resp.trajectory = &tr;
    size_t n = gjkd__v1__response__get_packed_size(&resp);
    uint8_t *buf = malloc(n);
    gjkd__v1__response__pack(&resp, buf);
    zmq_msg_send(&id, s, ZMQ_SNDMORE);
    zmq_msg_send(&empty, s, ZMQ_SNDMORE);
    zmq_send(s, buf, n, 0);
    free(buf);
    zmq_msg_close(&body);
    gjkd__v1__request__free_unpacked(req, NULL);
    gjkd_arena_free(&a);
    int linger = 1000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(s);
    return NULL;
}

static gjkd_status ask_liar(bool columnar, uint32_t pair_index, size_t geometry, size_t flags)
{
    liar l;
    memset(&l, 0, sizeof l);
    l.ctx = zmq_ctx_new();
    l.pair_index = pair_index;
    l.geometry = geometry;
    l.columnar = columnar;
    l.flags = flags;
    pthread_create(&l.thread, NULL, lie, &l);
    for (int i = 0; i < 500 && atomic_load(&l.ready) == 0; ++i) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    gjkd_client_options o = gjkd_client_default_options();
    o.endpoint = l.endpoint;
    o.timeout_ms = 5000;
    o.retries = 0;
    gjkd_client *c;
    assert_int_equal(gjkd_client_create(&o, &c), GJKD_OK);
    gjkd_pose poses[WAYPOINTS * LINKS];
    make_poses(poses);
    gjkd_trajectory *t = NULL;
    gjkd_status status = gjkd_query_trajectory(c, NULL, "arm", NULL, poses, 1, LINKS, &t);
    assert_true((status == GJKD_OK) == (t != NULL));
    gjkd_trajectory_destroy(&t);
    gjkd_client_destroy(&c);
    pthread_join(l.thread, NULL);
    zmq_ctx_term(l.ctx);
    return status;
}

static void test_inconsistent_compact_reply(void **state)
{
    (void)state;
    assert_int_equal(ask_liar(false, 0, 15, 1), GJKD_OK);        /* a daemon without columns */
    assert_int_equal(ask_liar(false, 1, 15, 1), GJKD_BAD_REPLY); /* past the table */
    assert_int_equal(ask_liar(false, 0, 14, 1), GJKD_BAD_REPLY); /* short geometry */
    assert_int_equal(ask_liar(false, 0, 16, 1), GJKD_BAD_REPLY);
}

static void test_inconsistent_columnar_reply(void **state)
{
    (void)state;
    assert_int_equal(ask_liar(true, 0, 15, 1), GJKD_OK);
    assert_int_equal(ask_liar(true, 1, 15, 1), GJKD_BAD_REPLY); /* past the table */
    assert_int_equal(ask_liar(true, 0, 14, 1), GJKD_BAD_REPLY); /* short geometry */
    assert_int_equal(ask_liar(true, 0, 30, 1), GJKD_BAD_REPLY);
    assert_int_equal(ask_liar(true, 0, 15, 2), GJKD_BAD_REPLY); /* columns of unequal length */
    assert_int_equal(ask_liar(true, 0, 15, 0), GJKD_BAD_REPLY); /* a pair for no waypoint */
}

int main(void)
{
    gjkd_log_set_level(GJKD_LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lean_equals_first_encoding),
        cmocka_unit_test(test_packed_link_poses_and_faults),
        cmocka_unit_test(test_body_pairs_through_client),
        cmocka_unit_test(test_inconsistent_compact_reply),
        cmocka_unit_test(test_inconsistent_columnar_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
