/* test_server_wire.c — the lean request path: packed link poses (LinkPoses.xyz_wxyz) decode to
 * exactly what the nested poses give and are refused for the same faults with their own
 * messages; compact trajectory replies (QueryOptions.compact) carry the same numbers and names
 * as the full form, each distinct pair once; so do columnar replies (QueryOptions.columnar) and
 * requests with every waypoint in one packed array (waypoint_xyz_wxyz). */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

/* ------------------------------------------------------------------ builders */

/* A rotation of angle a about z, as (w, x, y, z). */
static void quat_z(double a, double q[4])
{
    q[0] = cos(0.5 * a);
    q[1] = 0.0;
    q[2] = 0.0;
    q[3] = sin(0.5 * a);
}

/* Link i at (x0 + i * dx, 0.1 * i, 0), rotated by 0.2 * i about z: nested and packed. */
static Gjkd__V1__LinkPoses *nested_poses(gjkd_arena *a, int n, double x0, double dx)
{
    Gjkd__V1__LinkPoses *lp = t_link_poses(a, n, x0, dx);
    for (int i = 0; i < n; ++i) {
        double q[4];
        quat_z(0.2 * i, q);
        lp->poses[i]->position->y = 0.1 * i;
        lp->poses[i]->orientation->w = q[0];
        lp->poses[i]->orientation->z = q[3];
    }
    return lp;
}

static Gjkd__V1__LinkPoses *packed_poses(gjkd_arena *a, int n, double x0, double dx)
{
    Gjkd__V1__LinkPoses *lp = gjkd_arena_alloc(a, sizeof *lp);
    gjkd__v1__link_poses__init(lp);
    lp->n_xyz_wxyz = 7 * (size_t)n;
    lp->xyz_wxyz = gjkd_arena_alloc(a, lp->n_xyz_wxyz * sizeof(double));
    for (int i = 0; i < n; ++i) {
        double *v = lp->xyz_wxyz + 7 * i, q[4];
        quat_z(0.2 * i, q);
        v[0] = x0 + i * dx;
        v[1] = 0.1 * i;
        v[2] = 0.0;
        memcpy(v + 3, q, sizeof q);
    }
    return lp;
}

/* The arm (3 links) sweeping from x0 = -1 to 1 between two boxes at x = -2 and x = 2: the
 * closest pair changes from l0-left to l2-right on the way. */
static gjkd_service *make_scene(gjkd_arena *a)
{
    gjkd_service *svc = t_service(NULL);
    assert_code(t_call_code(svc, t_put_robot(a, t_robot(a, "arm", 3))), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(a, t_obstacle(a, "right", 0.5, 2.0))),
                GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(a, t_obstacle(a, "left", 0.5, -2.6))),
                GJKD_CODE(OK));
    return svc;
}

static Gjkd__V1__Request *trajectory(gjkd_arena *a, int n, bool packed, bool compact,
                                     Gjkd__V1__QueryMode mode)
{
    Gjkd__V1__TrajectoryQueryRequest *tq = gjkd_arena_alloc(a, sizeof *tq);
    gjkd__v1__trajectory_query_request__init(tq);
    tq->robot = "arm";
    tq->options = gjkd_arena_alloc(a, sizeof *tq->options);
    gjkd__v1__query_options__init(tq->options);
    tq->options->mode = mode;
    tq->options->compact = compact;
    tq->n_waypoints = (size_t)n;
    tq->waypoints = gjkd_arena_alloc(a, (size_t)n * sizeof *tq->waypoints);
    for (int w = 0; w < n; ++w) {
        Gjkd__V1__Waypoint *wp = gjkd_arena_alloc(a, sizeof *wp);
        gjkd__v1__waypoint__init(wp);
        wp->state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
        double x0 = -1.0 + 2.0 * w / (n - 1);
        wp->link_poses = packed ? packed_poses(a, 3, x0, 0.3) : nested_poses(a, 3, x0, 0.3);
        tq->waypoints[w] = wp;
    }
    Gjkd__V1__Request *req = t_request(a, 21);
    req->body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req->trajectory_query = tq;
    return req;
}

/* The same request with every waypoint moved into one packed array (waypoint_xyz_wxyz). */
static Gjkd__V1__Request *flatten(gjkd_arena *a, Gjkd__V1__Request *req)
{
    Gjkd__V1__TrajectoryQueryRequest *tq = req->trajectory_query;
    size_t per = tq->waypoints[0]->link_poses->n_xyz_wxyz;
    double *v = gjkd_arena_alloc(a, tq->n_waypoints * per * sizeof *v);
    for (size_t w = 0; w < tq->n_waypoints; ++w)
        memcpy(v + w * per, tq->waypoints[w]->link_poses->xyz_wxyz, per * sizeof *v);
    tq->n_waypoint_xyz_wxyz = tq->n_waypoints * per;
    tq->waypoint_xyz_wxyz = v;
    tq->waypoint_count = (uint32_t)tq->n_waypoints;
    tq->n_waypoints = 0;
    tq->waypoints = NULL;
    return req;
}

/* The reply's status message, or fails. */
static void expect_message(gjkd_service *svc, const Gjkd__V1__Request *req, gjkd_code code,
                           const char *needle)
{
    Gjkd__V1__Response *r = t_call(svc, req);
    assert_code(r->status->code, code);
    if (strstr(r->status->message, needle) == NULL) {
        print_error("message '%s' lacks '%s'\n", r->status->message, needle);
        fail();
    }
    gjkd__v1__response__free_unpacked(r, NULL);
}

/* ------------------------------------------------------------------ packed poses */

static void test_packed_decodes_like_nested(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjk_transform nested[4], packed[4];
    gjkd_error e;
    assert_true(gjkd_decode_link_poses(nested_poses(&a, 4, 0.5, 0.3), 4, "s", nested, &e));
    assert_true(gjkd_decode_link_poses(packed_poses(&a, 4, 0.5, 0.3), 4, "s", packed, &e));
    assert_memory_equal(nested, packed, sizeof nested);
    /* Within the norm tolerance: accepted and normalised, as the nested form does. */
    Gjkd__V1__LinkPoses *lp = packed_poses(&a, 1, 0, 0);
    lp->xyz_wxyz[3] = 1.0 + 5e-7;
    assert_true(gjkd_decode_link_poses(lp, 1, "s", packed, &e));
    assert_near(gjk_quat_norm(packed[0].q), 1.0, 1e-15);
    gjkd_arena_free(&a);
}

static void expect_decode_fails(const Gjkd__V1__LinkPoses *lp, int32_t links, gjkd_code code,
                                const char *message)
{
    gjk_transform out[8];
    gjkd_error e = {GJKD_CODE(OK), ""};
    assert_false(gjkd_decode_link_poses(lp, links, "waypoints[4]", out, &e));
    assert_code(e.code, code);
    if (strcmp(e.message, message) != 0) {
        print_error("message '%s', expected '%s'\n", e.message, message);
        fail();
    }
}

static void test_packed_refused(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    Gjkd__V1__LinkPoses *lp = packed_poses(&a, 3, 0, 0.3);
    lp->n_xyz_wxyz = 20;
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_ARGUMENT),
                        "waypoints[4].link_poses.xyz_wxyz: 20 values, expected 7 per pose "
                        "(px py pz qw qx qy qz)");
    lp->n_xyz_wxyz = 14;
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_ARGUMENT),
                        "waypoints[4].link_poses.xyz_wxyz: 2 poses for a robot of 3 links");
    lp->n_xyz_wxyz = 21;
    lp->xyz_wxyz[7 + 1] = NAN;
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_INPUT),
                        "waypoints[4].link_poses.xyz_wxyz: pose 1: position not finite or beyond 1e+12 m");
    lp = packed_poses(&a, 3, 0, 0.3);
    lp->xyz_wxyz[14 + 2] = -INFINITY;
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_INPUT),
                        "waypoints[4].link_poses.xyz_wxyz: pose 2: position not finite or beyond 1e+12 m");
    lp = packed_poses(&a, 3, 0, 0.3);
    lp->xyz_wxyz[14 + 5] = INFINITY;
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_INPUT),
                        "waypoints[4].link_poses.xyz_wxyz: pose 2: orientation not finite");
    lp = packed_poses(&a, 3, 0, 0.3);
    lp->xyz_wxyz[3] = NAN;
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_INPUT),
                        "waypoints[4].link_poses.xyz_wxyz: pose 0: orientation not finite");
    lp = packed_poses(&a, 3, 0, 0.3);
    memset(lp->xyz_wxyz + 7 + 3, 0, 4 * sizeof(double)); /* all-zero quaternion */
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_INPUT),
                        "waypoints[4].link_poses.xyz_wxyz: pose 1: orientation norm 0 is not 1 "
                        "(values px py pz qw qx qy qz)");
    lp = packed_poses(&a, 3, 0, 0.3);
    lp->xyz_wxyz[3] = 1.01; /* pose 0 is the identity rotation */
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_INPUT),
                        "waypoints[4].link_poses.xyz_wxyz: pose 0: orientation norm 1.01 is not 1 "
                        "(values px py pz qw qx qy qz)");
    lp = packed_poses(&a, 3, 0, 0.3);
    lp->xyz_wxyz[3] = 1.0 + 2e-6; /* just beyond the tolerance */
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_INPUT),
                        "waypoints[4].link_poses.xyz_wxyz: pose 0: orientation norm 1.000002 is "
                        "not 1 (values px py pz qw qx qy qz)");
    /* Both encodings at once, or neither. */
    lp = packed_poses(&a, 3, 0, 0.3);
    Gjkd__V1__LinkPoses *nested = nested_poses(&a, 3, 0, 0.3);
    lp->n_poses = nested->n_poses;
    lp->poses = nested->poses;
    expect_decode_fails(lp, 3, GJKD_CODE(INVALID_ARGUMENT),
                        "waypoints[4].link_poses: give poses or xyz_wxyz, not both");
    Gjkd__V1__LinkPoses empty = GJKD__V1__LINK_POSES__INIT;
    expect_decode_fails(&empty, 3, GJKD_CODE(INVALID_ARGUMENT),
                        "waypoints[4].link_poses: 0 poses for a robot of 3 links");
    /* The nested form keeps its own messages, formatted only on failure. */
    nested = nested_poses(&a, 3, 0, 0.3);
    nested->poses[2]->orientation->x = 0.5;
    gjk_transform out[3];
    gjkd_error e;
    assert_false(gjkd_decode_link_poses(nested, 3, "robots[1]", out, &e));
    assert_string_equal(e.message, "robots[1].link_poses[2].orientation: norm 1.11803399 is not "
                                   "1 (quaternion order w, x, y, z)");
    gjkd_arena_free(&a);
}

/* Through the service: the field is named, nothing changes. */
static void test_packed_requests(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a);
    Gjkd__V1__Request *req = trajectory(&a, 9, true, false, 0);
    req->trajectory_query->waypoints[6]->link_poses->xyz_wxyz[7 + 4] = 0.3;
    expect_message(svc, req, GJKD_CODE(INVALID_INPUT),
                   "waypoints[6].link_poses.xyz_wxyz: pose 1: orientation norm");
    req = trajectory(&a, 9, true, false, 0);
    req->trajectory_query->waypoints[2]->link_poses->n_xyz_wxyz = 13;
    expect_message(svc, req, GJKD_CODE(INVALID_ARGUMENT),
                   "waypoints[2].link_poses.xyz_wxyz: 13 values, expected 7 per pose");
    req = trajectory(&a, 9, false, false, 0);
    req->trajectory_query->waypoints[3]->link_poses->poses[0]->position->z = NAN;
    expect_message(svc, req, GJKD_CODE(INVALID_INPUT),
                   "waypoints[3].link_poses[0].position: not finite or beyond 1e+12 m");

    /* set_link_poses: packed and nested set the same state. */
    assert_code(t_call_code(svc, t_set_poses(&a, "arm", packed_poses(&a, 3, 0.2, 0.3))),
                GJKD_CODE(OK));
    Gjkd__V1__Request *q = t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 10.0);
    Gjkd__V1__Response *r1 = t_call(svc, q);
    assert_code(t_call_code(svc, t_set_poses(&a, "arm", nested_poses(&a, 3, 0.2, 0.3))),
                GJKD_CODE(OK));
    Gjkd__V1__Response *r2 = t_call(svc, q);
    assert_code(r1->status->code, GJKD_CODE(OK));
    r1->request_id = r2->request_id = 0;
    r1->handler_seconds = r2->handler_seconds = 0.0; /* the time spent differs */
    size_t n1 = gjkd__v1__response__get_packed_size(r1),
           n2 = gjkd__v1__response__get_packed_size(r2);
    assert_int_equal(n1, n2);
    uint8_t *b1 = malloc(n1), *b2 = malloc(n2);
    gjkd__v1__response__pack(r1, b1);
    gjkd__v1__response__pack(r2, b2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    gjkd__v1__response__free_unpacked(r1, NULL);
    gjkd__v1__response__free_unpacked(r2, NULL);
    Gjkd__V1__LinkPoses *bad = packed_poses(&a, 3, 0.2, 0.3);
    bad->xyz_wxyz[0] = INFINITY;
    expect_message(svc, t_set_poses(&a, "arm", bad), GJKD_CODE(INVALID_INPUT),
                   "robots[0].link_poses.xyz_wxyz: pose 0: position not finite or beyond 1e+12 m");
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* ------------------------------------------------------------------ compact replies */

static void check_vec(const Gjkd__V1__Vec3 *v, const double *g)
{
    double x = v != NULL ? v->x : 0.0, y = v != NULL ? v->y : 0.0, z = v != NULL ? v->z : 0.0;
    assert_true(x == g[0] && y == g[1] && z == g[2]);
}

static void check_same_pair(const Gjkd__V1__PairResult *full, const Gjkd__V1__PairResult *c,
                            const Gjkd__V1__TrajectoryResult *t)
{
    assert_int_equal(c->n_geometry, 15);
    assert_true(c->pair_index < t->n_pair_table);
    const Gjkd__V1__PairResult *e = t->pair_table[c->pair_index];
    assert_int_equal(e->n_geometry, 0);
    assert_string_equal(e->body_a->robot, full->body_a->robot);
    assert_string_equal(e->body_a->link, full->body_a->link);
    assert_string_equal(e->body_b->robot, full->body_b->robot);
    assert_string_equal(e->body_b->link, full->body_b->link);
    assert_string_equal(e->body_b->obstacle, full->body_b->obstacle);
    assert_string_equal(e->part_a, full->part_a);
    assert_string_equal(e->part_b, full->part_b);
    assert_int_equal(e->body_a_id, full->body_a_id);
    assert_int_equal(e->body_b_id, full->body_b_id);
    assert_int_equal(e->part_a_index, full->part_a_index);
    assert_int_equal(e->part_b_index, full->part_b_index);
    assert_int_equal(e->link_a_index, full->link_a_index);
    assert_int_equal(e->link_b_index, full->link_b_index);
    assert_true(e->padding == full->padding);
    assert_true(c->distance == full->distance);
    assert_int_equal(c->status, full->status);
    assert_int_equal(c->iterations, full->iterations);
    assert_int_equal(c->epa_iterations, full->epa_iterations);
    assert_int_equal(c->part_pair_count, full->part_pair_count);
    assert_int_equal(full->part_pair_count, 1); /* these modes report part pairs */
    assert_int_equal(e->part_pair_count, 0);    /* the table names pairs, no counts */
    check_vec(full->point_a, c->geometry);
    check_vec(full->point_b, c->geometry + 3);
    check_vec(full->local_point_a, c->geometry + 6);
    check_vec(full->local_point_b, c->geometry + 9);
    check_vec(full->normal, c->geometry + 12);
}

static void compare_modes(gjkd_service *svc, gjkd_arena *a, Gjkd__V1__QueryMode mode,
                          size_t *table_size)
{
    enum { N = 21 };
    Gjkd__V1__Response *full = t_call(svc, trajectory(a, N, true, false, mode));
    Gjkd__V1__Response *compact = t_call(svc, trajectory(a, N, true, true, mode));
    assert_code(full->status->code, GJKD_CODE(OK));
    assert_code(compact->status->code, GJKD_CODE(OK));
    const Gjkd__V1__TrajectoryResult *f = full->trajectory, *c = compact->trajectory;
    assert_int_equal(f->n_pair_table, 0);
    assert_int_equal(c->n_waypoints, N);
    assert_true(c->min_distance == f->min_distance);
    assert_int_equal(c->min_waypoint, f->min_waypoint);
    assert_int_equal(c->first_collision, f->first_collision);
    assert_int_equal(c->colliding_waypoints, f->colliding_waypoints);
    for (size_t w = 0; w < N; ++w) {
        const Gjkd__V1__StateResult *fw = f->waypoints[w], *cw = c->waypoints[w];
        assert_int_equal(cw->evaluated, fw->evaluated);
        assert_int_equal(cw->min_distance_opt_case, fw->min_distance_opt_case);
        assert_true(cw->min_distance == fw->min_distance);
        assert_int_equal(cw->colliding, fw->colliding);
        assert_int_equal(cw->pairs_checked, fw->pairs_checked);
        assert_int_equal(cw->n_pairs, 0);
        assert_int_equal(cw->closest != NULL, fw->closest != NULL);
        if (fw->closest != NULL)
            check_same_pair(fw->closest, cw->closest, c);
    }
    /* Each distinct pair once. */
    for (size_t i = 0; i < c->n_pair_table; ++i)
        for (size_t j = 0; j < i; ++j)
            assert_false(c->pair_table[i]->body_b_id == c->pair_table[j]->body_b_id &&
                         c->pair_table[i]->link_a_index == c->pair_table[j]->link_a_index &&
                         c->pair_table[i]->link_b_index == c->pair_table[j]->link_b_index);
    *table_size = c->n_pair_table;
    gjkd__v1__response__free_unpacked(full, NULL);
    gjkd__v1__response__free_unpacked(compact, NULL);
}

static void test_compact_matches_full(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a);
    size_t table;
    compare_modes(svc, &a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, &table);
    assert_int_equal(table, 2); /* l0-left, then l2-right */
    compare_modes(svc, &a, GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION, &table);

    /* ALL_WITHIN ignores compact: every pair in the full form. */
    Gjkd__V1__Request *req =
        trajectory(&a, 5, true, true, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN);
    Gjkd__V1__Response *r = t_call(svc, req);
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->trajectory->n_pair_table, 0);
    assert_true(r->trajectory->waypoints[0]->n_pairs > 1);
    assert_int_equal(r->trajectory->waypoints[0]->closest->n_geometry, 0);
    assert_non_null(r->trajectory->waypoints[0]->closest->body_a);
    assert_int_equal(r->trajectory->waypoints[0]->closest->part_pair_count, 1); /* 1 part each */
    gjkd__v1__response__free_unpacked(r, NULL);

    /* Waypoints past the first collision have no pair in either form. */
    req = trajectory(&a, 41, true, true, GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION);
    for (size_t w = 0; w < 41; ++w) /* all far right: the first collides */
        req->trajectory_query->waypoints[w]->link_poses->xyz_wxyz[14] = 1.6;
    r = t_call(svc, req);
    assert_int_equal(r->trajectory->first_collision, 0);
    assert_non_null(r->trajectory->waypoints[0]->closest);
    assert_false(r->trajectory->waypoints[1]->evaluated);
    assert_null(r->trajectory->waypoints[1]->closest);
    assert_int_equal(r->trajectory->n_pair_table, 1);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* ------------------------------------------------------------------ body pairs */

/* ALL_WITHIN on the wire: a link of three parts in front of a shelf of four gives one
 * PairResult per body pair, with part_pair_count; QueryOptions.per_part lists the part pairs.
 * Link l2 at x = 0.6, its parts at y = 0, 0.3, 0.6; the shelf's at x = 1, y = 0, 0.3, 0.6,
 * 0.9 (boxes of half 0.1): same y 0.2 apart, neighbours sqrt(0.2^2 + 0.1^2) = 0.224. */
static void test_body_pairs(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = t_service(NULL);
    Gjkd__V1__Robot *arm = t_robot(&a, "arm", 3);
    Gjkd__V1__Link *l2 = arm->links[2];
    l2->n_parts = 3;
    l2->parts = gjkd_arena_alloc(&a, 3 * sizeof *l2->parts);
    for (int k = 0; k < 3; ++k) {
        l2->parts[k] = t_part(&a, t_box_shape(&a, 0.1));
        l2->parts[k]->pose = t_pose(&a, 0, 0.3 * k, 0);
    }
    assert_code(t_call_code(svc, t_put_robot(&a, arm)), GJKD_CODE(OK));
    Gjkd__V1__Obstacle *shelf = t_obstacle(&a, "shelf", 0.1, 1.0);
    shelf->n_parts = 4;
    shelf->parts = gjkd_arena_alloc(&a, 4 * sizeof *shelf->parts);
    for (int k = 0; k < 4; ++k) {
        shelf->parts[k] = t_part(&a, t_box_shape(&a, 0.1));
        shelf->parts[k]->pose = t_pose(&a, 0, 0.3 * k, 0);
    }
    assert_code(t_call_code(svc, t_put_obstacle(&a, shelf)), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_set_poses(&a, "arm", t_link_poses(&a, 3, 0.0, 0.3))),
                GJKD_CODE(OK));

    /* no cutoff: l0, l1 (1 x 4 part pairs each) and l2 (3 x 4) against the shelf */
    Gjkd__V1__Request *q = t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, INFINITY);
    Gjkd__V1__Response *r = t_call(svc, q);
    assert_code(r->status->code, GJKD_CODE(OK));
    const Gjkd__V1__StateResult *st = r->state;
    assert_int_equal(st->n_pairs, 3);
    assert_string_equal(st->pairs[0]->body_a->link, "l2");
    assert_int_equal(st->pairs[0]->part_pair_count, 12);
    assert_int_equal(st->pairs[1]->part_pair_count, 4);
    assert_int_equal(st->pairs[2]->part_pair_count, 4);
    assert_int_equal(st->closest->part_pair_count, 12); /* closest = pairs[0] */
    assert_true(fabs(st->pairs[0]->distance - 0.2) < 1e-12);
    gjkd__v1__response__free_unpacked(r, NULL);
    q->state_query->options->per_part = true;
    r = t_call(svc, q);
    assert_int_equal(r->state->n_pairs, 20);
    for (size_t i = 0; i < 20; ++i)
        assert_int_equal(r->state->pairs[i]->part_pair_count, 1);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* within 0.25: l2 alone, 3 part pairs at 0.2 and 5 at 0.224; max_pairs counts entries */
    q = t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 0.25);
    r = t_call(svc, q);
    assert_int_equal(r->state->n_pairs, 1);
    assert_int_equal(r->state->pairs[0]->part_pair_count, 8);
    assert_string_equal(r->state->pairs[0]->body_b->obstacle, "shelf");
    assert_false(r->state->truncated);
    gjkd__v1__response__free_unpacked(r, NULL);
    q->state_query->options->per_part = true;
    q->state_query->options->max_pairs = 5;
    r = t_call(svc, q);
    assert_int_equal(r->state->n_pairs, 5);
    assert_true(r->state->truncated);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* a trajectory in the full form: the same entries per waypoint */
    Gjkd__V1__Request *t =
        trajectory(&a, 3, true, false, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN);
    for (size_t w = 0; w < 3; ++w) { /* the state above at every waypoint */
        double *v = t->trajectory_query->waypoints[w]->link_poses->xyz_wxyz;
        for (int l = 0; l < 3; ++l) {
            double pose[7] = {0.3 * l, 0, 0, 1, 0, 0, 0};
            memcpy(v + 7 * l, pose, sizeof pose);
        }
    }
    t->trajectory_query->options->max_distance_opt_case =
        GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
    t->trajectory_query->options->max_distance = 0.25;
    r = t_call(svc, t);
    assert_code(r->status->code, GJKD_CODE(OK));
    for (size_t w = 0; w < 3; ++w) {
        assert_int_equal(r->trajectory->waypoints[w]->n_pairs, 1);
        assert_int_equal(r->trajectory->waypoints[w]->pairs[0]->part_pair_count, 8);
    }
    gjkd__v1__response__free_unpacked(r, NULL);
    t->trajectory_query->options->per_part = true;
    r = t_call(svc, t);
    for (size_t w = 0; w < 3; ++w)
        assert_int_equal(r->trajectory->waypoints[w]->n_pairs, 8);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* ------------------------------------------------------------------ columnar replies */

/* Packs a response without its request id: equal bytes = equal replies. */
static uint8_t *reply_bytes(Gjkd__V1__Response *r, size_t *n)
{
    r->request_id = 0;
    r->handler_seconds = 0.0; /* the time spent differs */
    *n = gjkd__v1__response__get_packed_size(r);
    uint8_t *b = malloc(*n + 1);
    gjkd__v1__response__pack(r, b);
    return b;
}

/* Both replies pack to the same bytes (their request ids and handler times aside). */
static void assert_same_reply(Gjkd__V1__Response *x, Gjkd__V1__Response *y)
{
    size_t n1, n2;
    uint8_t *b1 = reply_bytes(x, &n1), *b2 = reply_bytes(y, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
}

static void compare_columnar(gjkd_service *svc, gjkd_arena *a, Gjkd__V1__QueryMode mode)
{
    enum { N = 21 };
    Gjkd__V1__Response *compact = t_call(svc, trajectory(a, N, true, true, mode));
    Gjkd__V1__Request *req = flatten(a, trajectory(a, N, true, false, mode));
    req->trajectory_query->options->columnar = true;
    Gjkd__V1__Response *col = t_call(svc, req);
    assert_code(compact->status->code, GJKD_CODE(OK));
    assert_code(col->status->code, GJKD_CODE(OK));
    const Gjkd__V1__TrajectoryResult *c = compact->trajectory, *t = col->trajectory;
    const Gjkd__V1__WaypointColumns *k = t->columns;
    assert_non_null(k);
    assert_int_equal(t->n_waypoints, 0);
    assert_true(t->min_distance == c->min_distance);
    assert_int_equal(t->min_waypoint, c->min_waypoint);
    assert_int_equal(t->first_collision, c->first_collision);
    assert_int_equal(t->colliding_waypoints, c->colliding_waypoints);
    assert_int_equal(t->n_pair_table, c->n_pair_table);
    assert_int_equal(k->n_flags, N);
    assert_int_equal(k->n_min_distance, N);
    size_t p = 0;
    for (size_t w = 0; w < N; ++w) {
        const Gjkd__V1__StateResult *cw = c->waypoints[w];
        uint32_t f = k->flags[w];
        assert_int_equal((f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_EVALUATED) != 0,
                         cw->evaluated);
        assert_int_equal((f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_COLLIDING) != 0,
                         cw->colliding);
        assert_int_equal((f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_TRUNCATED) != 0,
                         cw->truncated);
        assert_int_equal((f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_MIN_DISTANCE) != 0,
                         cw->min_distance_opt_case != 0);
        assert_true(k->min_distance[w] == cw->min_distance);
        assert_int_equal(k->pairs_checked[w], cw->pairs_checked);
        assert_int_equal(k->pairs_candidate[w], cw->pairs_candidate);
        assert_int_equal((f & GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_CLOSEST) != 0,
                         cw->closest != NULL);
        if (cw->closest == NULL)
            continue;
        assert_true(p < k->n_pair_index);
        assert_int_equal(k->pair_index[p], cw->closest->pair_index);
        assert_true(k->distance[p] == cw->closest->distance);
        assert_int_equal(k->status[p], cw->closest->status);
        assert_int_equal(k->iterations[p], cw->closest->iterations);
        assert_int_equal(k->epa_iterations[p], cw->closest->epa_iterations);
        assert_memory_equal(k->geometry + 15 * p, cw->closest->geometry, 15 * sizeof(double));
        p++;
    }
    assert_int_equal(k->n_pair_index, p);
    assert_int_equal(k->n_geometry, 15 * p);
    /* The same pair table, entry for entry. */
    for (size_t i = 0; i < t->n_pair_table; ++i) {
        Gjkd__V1__Response e1 = GJKD__V1__RESPONSE__INIT, e2 = GJKD__V1__RESPONSE__INIT;
        Gjkd__V1__StateResult s1 = GJKD__V1__STATE_RESULT__INIT, s2 = GJKD__V1__STATE_RESULT__INIT;
        s1.closest = t->pair_table[i];
        s2.closest = c->pair_table[i];
        e1.body_case = e2.body_case = GJKD__V1__RESPONSE__BODY_STATE;
        e1.state = &s1;
        e2.state = &s2;
        assert_same_reply(&e1, &e2);
    }
    gjkd__v1__response__free_unpacked(compact, NULL);
    gjkd__v1__response__free_unpacked(col, NULL);
}

static void test_columnar_matches_compact(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a);
    compare_columnar(svc, &a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST);
    compare_columnar(svc, &a, GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION);
    /* The flat request gives the full reply the per-waypoint one gives, byte for byte. */
    Gjkd__V1__Response *r1 = t_call(svc, trajectory(&a, 9, true, false, 0));
    Gjkd__V1__Response *r2 = t_call(svc, flatten(&a, trajectory(&a, 9, true, false, 0)));
    assert_same_reply(r1, r2);
    gjkd__v1__response__free_unpacked(r1, NULL);
    gjkd__v1__response__free_unpacked(r2, NULL);
    /* ALL_WITHIN ignores columnar: the full form. */
    Gjkd__V1__Request *req =
        trajectory(&a, 5, true, false, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN);
    req->trajectory_query->options->columnar = true;
    Gjkd__V1__Response *r = t_call(svc, req);
    assert_null(r->trajectory->columns);
    assert_true(r->trajectory->waypoints[0]->n_pairs > 1);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* The flat form is refused for its own faults, with the field named; the scene is unchanged. */
static void test_flat_waypoints_refused(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a);
    uint64_t revision = gjkd_service_revision(svc);
    Gjkd__V1__Request *req = flatten(&a, trajectory(&a, 9, true, false, 0));
    req->trajectory_query->waypoint_xyz_wxyz[7 * 3 * 4 + 7 + 1] = NAN; /* waypoint 4, pose 1 */
    expect_message(svc, req, GJKD_CODE(INVALID_INPUT),
                   "waypoint_xyz_wxyz: waypoint 4: pose 1: position not finite or beyond 1e+12 m");
    req = flatten(&a, trajectory(&a, 9, true, false, 0));
    req->trajectory_query->waypoint_xyz_wxyz[7 * 3 * 8 + 14 + 3] = 1.5; /* waypoint 8, pose 2 */
    expect_message(svc, req, GJKD_CODE(INVALID_INPUT),
                   "waypoint_xyz_wxyz: waypoint 8: pose 2: orientation norm");
    req = flatten(&a, trajectory(&a, 9, true, false, 0));
    req->trajectory_query->waypoint_count = 8; /* 9 waypoints of values */
    expect_message(svc, req, GJKD_CODE(INVALID_ARGUMENT),
                   "waypoint_xyz_wxyz: 189 values, expected 7 per link (px py pz qw qx qy qz) x "
                   "3 links x 8 waypoints");
    req->trajectory_query->waypoint_count = 0;
    expect_message(svc, req, GJKD_CODE(INVALID_ARGUMENT),
                   "waypoint_count: required with waypoint_xyz_wxyz");
    req->trajectory_query->waypoint_count = 100000;
    expect_message(svc, req, GJKD_CODE(RESOURCE_EXHAUSTED), "waypoints: 100000, the limit is");
    Gjkd__V1__Request *both = trajectory(&a, 9, true, false, 0);
    both->trajectory_query->n_waypoint_xyz_wxyz = req->trajectory_query->n_waypoint_xyz_wxyz;
    both->trajectory_query->waypoint_xyz_wxyz = req->trajectory_query->waypoint_xyz_wxyz;
    both->trajectory_query->waypoint_count = 9;
    expect_message(svc, both, GJKD_CODE(INVALID_ARGUMENT),
                   "give waypoints or waypoint_xyz_wxyz, not both");
    assert_int_equal(gjkd_service_revision(svc), revision);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packed_decodes_like_nested),
        cmocka_unit_test(test_packed_refused),
        cmocka_unit_test(test_packed_requests),
        cmocka_unit_test(test_compact_matches_full),
        cmocka_unit_test(test_body_pairs),
        cmocka_unit_test(test_columnar_matches_compact),
        cmocka_unit_test(test_flat_waypoints_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
