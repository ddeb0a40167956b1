/* test_client_columns.c — pair columns (gjkd.proto PairColumns, QueryOptions.pair_columns)
 * through libgjkd-client over a real ROUTER on loopback TCP: in every mode (ALL_WITHIN with
 * body pairs and per part, CLOSEST, FIRST_COLLISION) the arrays of
 * gjkd_query_trajectory_columns and the rows of gjkd_query_trajectory_request hold exactly
 * the pairs and numbers of the full form (the daemon's rows: the same pairs in the same order,
 * every double bit for bit), gradients included for a robot with joints; a reply whose
 * columns do not fit together is BAD_REPLY. Continuous queries: the segment columns
 * (gjkd.proto SegmentColumns) and the gjkd_segments built from them equal the full form's
 * SegmentResults bit for bit; SegmentResults beside pair columns (a daemon that predates
 * segment columns) still decode as rows; inconsistent segment columns are BAD_REPLY. */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "test_loopback_server.h"

#include "log.h"

#include <time.h>
#include <zmq.h>

/* ------------------------------------------------------------------ the scene */

/* The arm (3 link-pose links), the cart (joints, test_server_util.h) and a shelf of three
 * boxes and a hull above and beside them. */
static t_server *start(void)
{
    gjkd_arena a = {0};
    gjkd_service *svc = t_service(NULL);
    assert_code(t_call_code(svc, t_put_robot(&a, t_robot(&a, "arm", 3))), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_robot(&a, t_cart_robot(&a, "cart"))), GJKD_CODE(OK));
    Gjkd__V1__Obstacle *shelf = t_obstacle(&a, "shelf", 0.15, 0.0);
    shelf->n_parts = 4;
    shelf->parts = gjkd_arena_alloc(&a, 4 * sizeof *shelf->parts);
    for (int k = 0; k < 3; ++k) {
        shelf->parts[k] = t_part(&a, t_box_shape(&a, 0.15));
        shelf->parts[k]->pose = t_pose(&a, -0.6 + 0.6 * k, 0.5, 0.6);
    }
    shelf->parts[3] = t_part(&a, t_hull_shape(&a, 40, 0.2));
    shelf->parts[3]->pose = t_pose(&a, 0.4, -0.5, 0.3);
    assert_code(t_call_code(svc, t_put_obstacle(&a, shelf)), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(&a, t_obstacle(&a, "post", 0.2, 1.4))),
                GJKD_CODE(OK));
    gjkd_arena_free(&a);
    return t_server_start(svc);
}

enum { WAYPOINTS = 24, LINKS = 3, DOF = 2 };

/* The arm's links sweep from x = -1.2 to 1.4 under the shelf, turning, into the post. */
static void make_poses(double *xyz_wxyz)
{
    for (int w = 0; w < WAYPOINTS; ++w) {
        for (int l = 0; l < LINKS; ++l) {
            double x = -1.2 + 2.6 * w / (WAYPOINTS - 1) + 0.25 * l, yaw = 0.3 * l + 0.05 * w;
            double *v = xyz_wxyz + 7 * (w * LINKS + l);
            v[0] = x;
            v[1] = 0.1 * l;
            v[2] = 0.2 + 0.01 * w;
            v[3] = cos(0.5 * yaw);
            v[4] = 0.0;
            v[5] = 0.0;
            v[6] = sin(0.5 * yaw);
        }
    }
}

/* The arm's trajectory, packed. */
static Gjkd__V1__TrajectoryQueryRequest *arm_request(gjkd_arena *a)
{
    Gjkd__V1__TrajectoryQueryRequest *tq = gjkd_arena_alloc(a, sizeof *tq);
    gjkd__v1__trajectory_query_request__init(tq);
    tq->robot = "arm";
    tq->n_waypoint_xyz_wxyz = 7 * WAYPOINTS * LINKS;
    tq->waypoint_xyz_wxyz = gjkd_arena_alloc(a, tq->n_waypoint_xyz_wxyz * sizeof(double));
    make_poses(tq->waypoint_xyz_wxyz);
    tq->waypoint_count = WAYPOINTS;
    return tq;
}

/* The cart's joint trajectory: slide from -0.9 to 0.9 towards the post, turning. */
static Gjkd__V1__TrajectoryQueryRequest *cart_request(gjkd_arena *a)
{
    Gjkd__V1__TrajectoryQueryRequest *tq = gjkd_arena_alloc(a, sizeof *tq);
    gjkd__v1__trajectory_query_request__init(tq);
    tq->robot = "cart";
    tq->n_waypoint_joints = DOF * WAYPOINTS;
    tq->waypoint_joints = gjkd_arena_alloc(a, tq->n_waypoint_joints * sizeof(double));
    for (int w = 0; w < WAYPOINTS; ++w) {
        tq->waypoint_joints[DOF * w] = -0.9 + 1.8 * w / (WAYPOINTS - 1);
        tq->waypoint_joints[DOF * w + 1] = -1.5 + 0.13 * w;
    }
    tq->waypoint_count = WAYPOINTS;
    return tq;
}

/* The full form of a query (no compact, columnar or pair columns), raw. */
static Gjkd__V1__Response *full_form(gjkd_client *c, Gjkd__V1__TrajectoryQueryRequest *tq,
                                     const gjkd_query_options *o)
{
    Gjkd__V1__QueryOptions wo = GJKD__V1__QUERY_OPTIONS__INIT;
    if (o->has_max_distance) {
        wo.max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
        wo.max_distance = o->max_distance;
    }
    wo.mode = (Gjkd__V1__QueryMode)o->mode;
    wo.per_part = o->per_part;
    wo.gradients = o->gradients;
    Gjkd__V1__QueryOptions *own = tq->options;
    tq->options = &wo;
    Gjkd__V1__Request req = GJKD__V1__REQUEST__INIT;
    req.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req.trajectory_query = tq;
    Gjkd__V1__Response *r = NULL;
    assert_int_equal(gjkd_client_call(c, &req, &r), GJKD_OK);
    tq->options = own;
    assert_null(r->trajectory->pair_columns);
    assert_null(r->trajectory->columns);
    return r;
}

/* ------------------------------------------------------------------ comparisons */

/* Bit for bit, with one exception the full form imposes: protobuf-c leaves out a proto3
 * double equal to zero, -0.0 included, so that a -0.0 of the world reads back from the full
 * form as +0.0; the packed arrays keep its sign. */
static void same_double(double packed, double full)
{
    if (full == 0.0 && packed == 0.0 && !signbit(full))
        return;
    assert_memory_equal(&packed, &full, sizeof packed);
}

static void same_vec3(const double *g, const Gjkd__V1__Vec3 *m)
{
    Gjkd__V1__Vec3 zero = GJKD__V1__VEC3__INIT;
    if (m == NULL)
        m = &zero;
    same_double(g[0], m->x);
    same_double(g[1], m->y);
    same_double(g[2], m->z);
}

static void same_column_pair(const gjkd_trajectory_columns *t, size_t k,
                             const Gjkd__V1__PairResult *m)
{
    const gjkd_pair *e = &t->table[t->pair_index[k]];
    assert_string_equal(e->robot_a, m->body_a->robot);
    assert_string_equal(e->link_a, m->body_a->link);
    assert_string_equal(e->part_a, m->part_a);
    assert_string_equal(e->robot_b, m->body_b->robot);
    assert_string_equal(e->link_b, m->body_b->link);
    assert_string_equal(e->obstacle_b, m->body_b->obstacle);
    assert_string_equal(e->part_b, m->part_b);
    assert_int_equal(e->body_a_id, m->body_a_id);
    assert_int_equal(e->body_b_id, m->body_b_id);
    assert_int_equal(e->part_a_index, m->part_a_index);
    assert_int_equal(e->part_b_index, m->part_b_index);
    same_double(e->padding, m->padding);
    same_double(t->distance[k], m->distance);
    const double *g = t->geometry + 15 * k;
    same_vec3(g, m->point_a);
    same_vec3(g + 3, m->point_b);
    same_vec3(g + 6, m->local_point_a);
    same_vec3(g + 9, m->local_point_b);
    same_vec3(g + 12, m->normal);
    assert_int_equal(t->status[k], (int)m->status);
    assert_int_equal(t->iterations[k], m->iterations);
    assert_int_equal(t->epa_iterations[k], m->epa_iterations);
    assert_int_equal(t->part_pair_count[k], m->part_pair_count);
    if (t->gradient_a_start == NULL) {
        assert_int_equal(m->n_gradient_a + m->n_gradient_b, 0);
        return;
    }
    size_t na = t->gradient_a_start[k + 1] - t->gradient_a_start[k];
    size_t nb = t->gradient_b_start[k + 1] - t->gradient_b_start[k];
    assert_int_equal(na, m->n_gradient_a);
    assert_int_equal(nb, m->n_gradient_b);
    for (size_t i = 0; i < na; ++i)
        same_double(t->gradient_a[t->gradient_a_start[k] + i], m->gradient_a[i]);
    for (size_t i = 0; i < nb; ++i)
        same_double(t->gradient_b[t->gradient_b_start[k] + i], m->gradient_b[i]);
    assert_int_equal(t->subgradient[k] != 0, m->subgradient);
}

/* The rows of the client (any form expanded) against the full form's pair. */
static void same_row_pair(const gjkd_pair *p, const Gjkd__V1__PairResult *m)
{
    assert_string_equal(p->robot_a, m->body_a->robot);
    assert_string_equal(p->link_a, m->body_a->link);
    assert_string_equal(p->obstacle_b, m->body_b->obstacle);
    assert_string_equal(p->part_b, m->part_b);
    assert_int_equal(p->body_b_id, m->body_b_id);
    same_double(p->distance, m->distance);
    double g[15] = {p->point_a.x,       p->point_a.y,       p->point_a.z,       p->point_b.x,
                    p->point_b.y,       p->point_b.z,       p->local_point_a.x, p->local_point_a.y,
                    p->local_point_a.z, p->local_point_b.x, p->local_point_b.y, p->local_point_b.z,
                    p->normal.x,        p->normal.y,        p->normal.z};
    same_vec3(g, m->point_a);
    same_vec3(g + 3, m->point_b);
    same_vec3(g + 6, m->local_point_a);
    same_vec3(g + 9, m->local_point_b);
    same_vec3(g + 12, m->normal);
    assert_int_equal(p->status, (int)m->status);
    assert_int_equal(p->iterations, m->iterations);
    assert_int_equal(p->part_pair_count, m->part_pair_count);
    same_double(p->padding, m->padding);
    assert_int_equal(p->gradient_a_count, m->n_gradient_a);
    assert_int_equal(p->gradient_b_count, m->n_gradient_b);
    for (size_t i = 0; i < p->gradient_a_count; ++i)
        same_double(p->gradient_a[i], m->gradient_a[i]);
    for (size_t i = 0; i < p->gradient_b_count; ++i)
        same_double(p->gradient_b[i], m->gradient_b[i]);
    if (p->gradient_a_count + p->gradient_b_count > 0)
        assert_int_equal(p->subgradient, m->subgradient);
}

/* The full-form pairs of waypoint w: ALL_WITHIN's list, else the closest. */
static size_t full_pairs(const Gjkd__V1__StateResult *s, bool all,
                         Gjkd__V1__PairResult *const **out)
{
    if (all) {
        *out = s->pairs;
        return s->n_pairs;
    }
    *out = s->closest ? &s->closest : NULL;
    return s->closest ? 1 : 0;
}

/* Columns, rows and the full form of one query; returns the pairs compared. */
static size_t compare_query(gjkd_client *c, Gjkd__V1__TrajectoryQueryRequest *tq,
                            const gjkd_query_options *o)
{
    bool all = o->mode == GJKD_QUERY_ALL_WITHIN;
    Gjkd__V1__Response *ref = full_form(c, tq, o);
    const Gjkd__V1__TrajectoryResult *m = ref->trajectory;
    gjkd_trajectory_columns *t = NULL;
    assert_int_equal(gjkd_query_trajectory_columns(c, o, tq, &t), GJKD_OK);
    gjkd_trajectory *rows = NULL;
    assert_int_equal(gjkd_query_trajectory_request(c, o, tq, &rows), GJKD_OK);
    assert_true(t->handler_seconds > 0.0);
    assert_true(rows->handler_seconds > 0.0);

    assert_int_equal(t->waypoint_count, m->n_waypoints);
    assert_int_equal(rows->waypoint_count, m->n_waypoints);
    assert_int_equal(t->has_min_distance,
                     m->min_distance_opt_case ==
                         GJKD__V1__TRAJECTORY_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE);
    same_double(t->min_distance, m->min_distance);
    assert_int_equal(t->min_waypoint, m->min_waypoint);
    assert_int_equal(t->first_collision, m->first_collision);
    assert_int_equal(t->colliding_waypoints, m->colliding_waypoints);
    assert_int_equal(t->joint_names_count, m->n_joint_names);
    size_t k = 0;
    for (size_t w = 0; w < m->n_waypoints; ++w) {
        const Gjkd__V1__StateResult *ms = m->waypoints[w];
        uint32_t f = t->flags[w];
        assert_int_equal((f & GJKD_WAYPOINT_EVALUATED) != 0, ms->evaluated);
        assert_int_equal((f & GJKD_WAYPOINT_COLLIDING) != 0, ms->colliding);
        assert_int_equal((f & GJKD_WAYPOINT_TRUNCATED) != 0, ms->truncated);
        bool has_min =
            ms->min_distance_opt_case == GJKD__V1__STATE_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE;
        assert_int_equal((f & GJKD_WAYPOINT_HAS_MIN_DISTANCE) != 0, has_min);
        if (has_min)
            same_double(t->waypoint_min_distance[w], ms->min_distance);
        assert_int_equal(t->pairs_checked[w], ms->pairs_checked);
        assert_int_equal(t->pairs_candidate[w], ms->pairs_candidate);
        Gjkd__V1__PairResult *const *mp;
        size_t n = full_pairs(ms, all, &mp);
        assert_int_equal(t->waypoint_start[w], k);
        assert_int_equal(t->waypoint_start[w + 1] - t->waypoint_start[w], n);
        assert_int_equal((f & GJKD_WAYPOINT_HAS_CLOSEST) != 0, ms->closest != NULL);
        const gjkd_state *s = &rows->waypoints[w];
        assert_int_equal(s->evaluated, ms->evaluated);
        assert_int_equal(s->pairs_checked, ms->pairs_checked);
        assert_int_equal(s->pair_count, all ? n : 0);
        assert_int_equal(s->closest != NULL, ms->closest != NULL);
        if (s->closest != NULL)
            same_row_pair(s->closest, ms->closest);
        for (size_t j = 0; j < n; ++j, ++k) {
            assert_int_equal(t->waypoint[k], w);
            same_column_pair(t, k, mp[j]);
            if (all)
                same_row_pair(&s->pairs[j], mp[j]);
        }
    }
    assert_int_equal(k, t->pair_count);
    gjkd_trajectory_destroy(&rows);
    gjkd_trajectory_columns_destroy(&t);
    assert_null(t);
    gjkd__v1__response__free_unpacked(ref, NULL);
    return k;
}

/* ------------------------------------------------------------------ segments */

/* The rows' segment pair (names from the pair table) against the full form's. */
static void same_segment(const gjkd_trajectory_columns *t, const gjkd_segment *g, size_t i,
                         const Gjkd__V1__SegmentResult *m)
{
    assert_int_equal(t->segment_evaluated[i] != 0, m->evaluated);
    assert_int_equal(g->evaluated, m->evaluated);
    assert_int_equal(t->segment_verdict[i], (int)m->verdict);
    assert_int_equal(g->verdict, (int)m->verdict);
    same_double(t->segment_t[i], m->t);
    same_double(g->t, m->t);
    bool has =
        m->clearance_opt_case == GJKD__V1__SEGMENT_RESULT__CLEARANCE_OPT_CLEARANCE_LOWER_BOUND;
    assert_int_equal(!isnan(t->segment_clearance_lower_bound[i]), has);
    assert_int_equal(g->has_clearance, has);
    if (has) {
        assert_memory_equal(&t->segment_clearance_lower_bound[i], &m->clearance_lower_bound,
                            sizeof(double));
        assert_memory_equal(&g->clearance_lower_bound, &m->clearance_lower_bound, sizeof(double));
    }
    assert_int_equal(t->segment_pairs_checked[i], m->pairs_checked);
    assert_int_equal(g->pairs_checked, m->pairs_checked);
    assert_int_equal(t->segment_pairs_undecided[i], m->pairs_undecided);
    assert_int_equal(g->pairs_undecided, m->pairs_undecided);
    assert_true(t->segment_evaluations[i] == m->evaluations);
    assert_true(g->evaluations == m->evaluations);
    assert_int_equal(t->segment_pair_index[i] >= 0, m->pair != NULL);
    assert_int_equal(g->pair != NULL, m->pair != NULL);
    if (m->pair == NULL) {
        assert_int_equal(t->segment_pair_index[i], -1);
        return;
    }
    const Gjkd__V1__PairResult *mp = m->pair;
    const gjkd_pair *e = &t->table[t->segment_pair_index[i]];
    assert_string_equal(e->robot_a, mp->body_a->robot);
    assert_string_equal(e->link_a, mp->body_a->link);
    assert_string_equal(e->part_a, mp->part_a);
    assert_string_equal(e->obstacle_b, mp->body_b->obstacle);
    assert_string_equal(e->link_b, mp->body_b->link);
    assert_string_equal(e->part_b, mp->part_b);
    assert_int_equal(e->body_b_id, mp->body_b_id);
    assert_int_equal(e->part_b_index, mp->part_b_index);
    same_double(t->segment_distance[i], mp->distance);
    const double *q = t->segment_geometry + 15 * i;
    same_vec3(q, mp->point_a);
    same_vec3(q + 3, mp->point_b);
    same_vec3(q + 6, mp->local_point_a);
    same_vec3(q + 9, mp->local_point_b);
    same_vec3(q + 12, mp->normal);
    assert_int_equal(t->segment_status[i], (int)mp->status);
    assert_int_equal(t->segment_iterations[i], mp->iterations);
    assert_int_equal(t->segment_epa_iterations[i], mp->epa_iterations);
    assert_int_equal(t->segment_part_pair_count[i], mp->part_pair_count);
    same_row_pair(g->pair, mp);
    assert_string_equal(g->pair->part_a, mp->part_a);
    assert_int_equal(g->pair->epa_iterations, mp->epa_iterations);
}

/* A continuous query as segment columns, rows and the full form; counts the verdicts. */
static void compare_segments(gjkd_client *c, Gjkd__V1__TrajectoryQueryRequest *tq,
                             const gjkd_query_options *o, size_t counts[4])
{
    tq->continuous = true;
    Gjkd__V1__Response *ref = full_form(c, tq, o);
    const Gjkd__V1__TrajectoryResult *m = ref->trajectory;
    assert_null(m->segment_columns);
    assert_int_equal(m->n_segments, tq->waypoint_count - 1);
    gjkd_query_options oc = *o;
    oc.continuous = true;
    gjkd_trajectory_columns *t = NULL;
    assert_int_equal(gjkd_query_trajectory_columns(c, &oc, tq, &t), GJKD_OK);
    gjkd_trajectory *rows = NULL;
    assert_int_equal(gjkd_query_trajectory_request(c, &oc, tq, &rows), GJKD_OK);
    assert_int_equal(t->segment_count, m->n_segments);
    assert_int_equal(rows->segment_count, m->n_segments);
    assert_int_equal(t->first_contact_segment, m->first_contact_segment);
    assert_int_equal(rows->first_contact_segment, m->first_contact_segment);
    assert_int_equal(t->undecided_segments, m->undecided_segments);
    assert_int_equal(rows->undecided_segments, m->undecided_segments);
    for (size_t i = 0; i < m->n_segments; ++i) {
        same_segment(t, &rows->segments[i], i, m->segments[i]);
        counts[m->segments[i]->evaluated ? m->segments[i]->verdict : 0]++;
    }
    gjkd_trajectory_destroy(&rows);
    gjkd_trajectory_columns_destroy(&t);
    gjkd__v1__response__free_unpacked(ref, NULL);
    tq->continuous = false;
}

static void test_segment_columns_equal_the_full_form(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    gjkd_arena a = {0};
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    size_t counts[4] = {0}; /* not evaluated, clear, contact, undecided */
    Gjkd__V1__TrajectoryQueryRequest *tq = arm_request(&a);
    o.mode = GJKD_QUERY_CLOSEST;
    compare_segments(c, tq, &o, counts);
    o.has_max_distance = true;
    o.max_distance = 0.3; /* segments with nothing in reach: no pair, no clearance */
    compare_segments(c, tq, &o, counts);
    o.mode = GJKD_QUERY_ALL_WITHIN;
    compare_segments(c, tq, &o, counts);
    o.mode = GJKD_QUERY_FIRST_COLLISION; /* segments after the first contact: not evaluated */
    o.has_max_distance = false;
    compare_segments(c, tq, &o, counts);
    tq = cart_request(&a);
    o.mode = GJKD_QUERY_CLOSEST;
    compare_segments(c, tq, &o, counts);
    assert_true(counts[0] > 0);
    assert_true(counts[1] > 0);
    assert_true(counts[2] > 0);
    gjkd_client_destroy(&c);
    gjkd_arena_free(&a);
    t_server_stop(s);
}

/* ------------------------------------------------------------------ tests */

static void test_every_mode_equals_the_full_form(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    gjkd_arena a = {0};
    Gjkd__V1__TrajectoryQueryRequest *tq = arm_request(&a);
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.has_max_distance = true;
    o.max_distance = 0.8;
    o.mode = GJKD_QUERY_ALL_WITHIN;
    size_t body = compare_query(c, tq, &o);
    assert_true(body > 2 * WAYPOINTS); /* several pairs per waypoint */
    o.per_part = true;
    size_t part = compare_query(c, tq, &o);
    assert_true(part > body); /* the shelf's boxes: part pairs of one body pair */
    o.per_part = false;
    o.mode = GJKD_QUERY_CLOSEST;
    assert_int_equal(compare_query(c, tq, &o), WAYPOINTS);
    o.mode = GJKD_QUERY_FIRST_COLLISION;
    compare_query(c, tq, &o);
    /* no cutoff (unnamed: the three queries of a comparison run from the same state) */
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.has_max_distance = false;
    compare_query(c, tq, &o);
    /* nothing within the cutoff: no pairs at all */
    o.has_max_distance = true;
    o.max_distance = 0.0;
    memset(tq->waypoint_xyz_wxyz, 0, tq->n_waypoint_xyz_wxyz * sizeof(double));
    for (size_t i = 0; i < WAYPOINTS * LINKS; ++i) {
        tq->waypoint_xyz_wxyz[7 * i + 1] = -5.0 - (double)i;
        tq->waypoint_xyz_wxyz[7 * i + 3] = 1.0;
    }
    assert_int_equal(compare_query(c, tq, &o), 0);
    gjkd_client_destroy(&c);
    gjkd_arena_free(&a);
    t_server_stop(s);
}

static void test_gradients_in_columns(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    gjkd_arena a = {0};
    Gjkd__V1__TrajectoryQueryRequest *tq = cart_request(&a);
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.has_max_distance = true;
    o.max_distance = 1.0;
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.gradients = true;
    gjkd_trajectory_columns *t = NULL;
    assert_int_equal(gjkd_query_trajectory_columns(c, &o, tq, &t), GJKD_OK);
    assert_non_null(t->gradient_a_start);
    assert_true(t->pair_count > 0);
    assert_int_equal(t->gradient_a_start[t->pair_count], DOF * t->pair_count);
    assert_int_equal(t->joint_names_count, 1);
    assert_string_equal(t->joint_names[0].robot, "cart");
    gjkd_trajectory_columns_destroy(&t);
    assert_true(compare_query(c, tq, &o) > WAYPOINTS);
    o.mode = GJKD_QUERY_CLOSEST; /* gradients in the columns of the closest mode too */
    assert_int_equal(compare_query(c, tq, &o), WAYPOINTS);
    gjkd_client_destroy(&c);
    gjkd_arena_free(&a);
    t_server_stop(s);
}

/* ------------------------------------------------------------------ inconsistent replies */

/* A ROUTER that answers one trajectory request with a reply built from `faults`. */
typedef struct liar {
    void *ctx;
    pthread_t thread;
    atomic_int ready;
    char endpoint[256];
    int fault;
} liar;

enum {
    FAULT_NONE,
    FAULT_PAIR_INDEX,     /* a pair past the table */
    FAULT_WAYPOINT_ORDER, /* waypoint indices out of order */
    FAULT_WAYPOINT_RANGE, /* a pair of a waypoint that is not there */
    FAULT_FLAGS,          /* HAS_CLOSEST on a waypoint without pairs */
    FAULT_SHORT_GEOMETRY, /* 14 values for a pair */
    FAULT_SHORT_STATUS,   /* one status for two pairs */
    FAULT_GRADIENTS,      /* counts that do not add up to the values */
    FAULT_NO_COLUMNS,     /* pair columns without the waypoint columns */
    /* continuous replies: two segments in columns (the first with the table's pair) */
    FAULT_SEGMENTS_OK,      /* consistent */
    FAULT_SEGMENT_OLD_FORM, /* SegmentResults beside the pair columns (an older daemon) */
    FAULT_SEGMENT_INDEX,    /* a segment's pair past the table */
    FAULT_SEGMENT_NEGATIVE, /* a pair index below -1 */
    FAULT_SEGMENT_SHORT_T,  /* one t for two segments */
    FAULT_SEGMENT_GEOMETRY, /* 29 geometry values for two segments */
    FAULT_SEGMENT_BOTH,     /* segment columns and SegmentResults */
};

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
    assert_true(req->trajectory_query->options->pair_columns);
    /* two waypoints; pairs: two of waypoint 0, none of waypoint 1 */
    Gjkd__V1__PairResult entry = GJKD__V1__PAIR_RESULT__INIT;
    Gjkd__V1__PairResult *table[1] = {&entry};
    Gjkd__V1__TrajectoryResult tr = GJKD__V1__TRAJECTORY_RESULT__INIT;
    tr.n_pair_table = 1;
    tr.pair_table = table;
    uint32_t flags[2] = {GJKD_WAYPOINT_EVALUATED | GJKD_WAYPOINT_HAS_CLOSEST,
                         GJKD_WAYPOINT_EVALUATED};
    if (l->fault == FAULT_FLAGS)
        flags[1] |= GJKD_WAYPOINT_HAS_CLOSEST;
    double zeros[32] = {0}, grad[4] = {0};
    uint32_t uzeros[2] = {0}, ones[2] = {1, 1}, counts[2] = {2, 1};
    int32_t izeros[2] = {0}, status[2] = {GJKD_SEPARATED, GJKD_SEPARATED};
    uint32_t waypoint[2] = {0, 0}, index[2] = {0, 0};
    protobuf_c_boolean sub[2] = {0, 0};
    if (l->fault == FAULT_PAIR_INDEX)
        index[1] = 1;
    if (l->fault == FAULT_WAYPOINT_ORDER) {
        waypoint[0] = 1; /* 1, 0 */
        flags[1] |= GJKD_WAYPOINT_HAS_CLOSEST;
    }
    if (l->fault == FAULT_WAYPOINT_RANGE)
        waypoint[1] = 2;
    Gjkd__V1__WaypointColumns w = GJKD__V1__WAYPOINT_COLUMNS__INIT;
    w.n_flags = w.n_min_distance = w.n_pairs_checked = w.n_pairs_candidate = 2;
    w.flags = flags;
    w.min_distance = zeros;
    w.pairs_checked = w.pairs_candidate = uzeros;
    Gjkd__V1__PairColumns c = GJKD__V1__PAIR_COLUMNS__INIT;
    c.n_waypoint = c.n_pair_index = c.n_distance = c.n_status = c.n_iterations = 2;
    c.n_epa_iterations = c.n_part_pair_count = 2;
    c.waypoint = waypoint;
    c.pair_index = index;
    c.distance = zeros;
    c.n_geometry = l->fault == FAULT_SHORT_GEOMETRY ? 29 : 30;
    c.geometry = zeros;
    c.status = status;
    if (l->fault == FAULT_SHORT_STATUS)
        c.n_status = 1;
    c.iterations = c.epa_iterations = izeros;
    c.part_pair_count = ones;
    if (l->fault == FAULT_GRADIENTS) {
        c.n_gradient_a_count = c.n_gradient_b_count = c.n_subgradient = 2;
        c.gradient_a_count = counts; /* 3 values said, 4 sent */
        c.gradient_b_count = uzeros;
        c.n_gradient_a = 4;
        c.gradient_a = grad;
        c.subgradient = sub;
    }
    tr.columns = l->fault == FAULT_NO_COLUMNS ? NULL : &w;
    tr.pair_columns = &c;
    /* one segment (waypoint 0 to 1): CONTACT with the table's pair, or two with a clear one */
    int32_t verdict[2] = {GJKD_SEGMENT_CONTACT, GJKD_SEGMENT_CLEAR}, sindex[2] = {0, -1};
    double st_t[2] = {0.25, 0.5}, clearance[2] = {NAN, 0.125};
    uint64_t evals[2] = {7, 3};
    protobuf_c_boolean evaluated[2] = {1, 1};
    Gjkd__V1__SegmentColumns sc = GJKD__V1__SEGMENT_COLUMNS__INIT;
    sc.n_verdict = sc.n_t = sc.n_clearance_lower_bound = sc.n_pair_index = sc.n_distance = 2;
    sc.n_status = sc.n_iterations = sc.n_epa_iterations = sc.n_part_pair_count = 2;
    sc.n_pairs_checked = sc.n_pairs_undecided = sc.n_evaluations = sc.n_evaluated = 2;
    sc.n_geometry = l->fault == FAULT_SEGMENT_GEOMETRY ? 29 : 30;
    sc.verdict = verdict;
    sc.t = st_t;
    sc.clearance_lower_bound = clearance;
    sc.pair_index = sindex;
    sc.distance = sc.geometry = zeros;
    sc.status = status;
    sc.iterations = sc.epa_iterations = izeros;
    sc.part_pair_count = ones;
    sc.pairs_checked = sc.pairs_undecided = uzeros;
    sc.evaluations = evals;
    sc.evaluated = evaluated;
    if (l->fault == FAULT_SEGMENT_INDEX)
        sindex[1] = 1;
    if (l->fault == FAULT_SEGMENT_NEGATIVE)
        sindex[1] = -2;
    if (l->fault == FAULT_SEGMENT_SHORT_T)
        sc.n_t = 1;
    Gjkd__V1__SegmentResult seg = GJKD__V1__SEGMENT_RESULT__INIT;
    seg.verdict = GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CONTACT;
    seg.t = 0.25;
    seg.evaluated = true;
    Gjkd__V1__SegmentResult *segs[1] = {&seg};
    if (l->fault >= FAULT_SEGMENTS_OK) {
        tr.first_contact_segment = 0;
        if (l->fault != FAULT_SEGMENT_OLD_FORM)
            tr.segment_columns = &sc;
        if (l->fault == FAULT_SEGMENT_OLD_FORM || l->fault == FAULT_SEGMENT_BOTH) {
            tr.n_segments = 1;
            tr.segments = segs;
        }
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
    int linger = 1000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(s);
    return NULL;
}

/* The status of a query answered by a liar with `fault`, as columns (or rows). */
static gjkd_status ask_liar(int fault, bool as_columns)
{
    liar l;
    memset(&l, 0, sizeof l);
    l.ctx = zmq_ctx_new();
    l.fault = fault;
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
    gjkd_arena a = {0};
    Gjkd__V1__TrajectoryQueryRequest *tq = arm_request(&a);
    gjkd_status status;
    if (as_columns) {
        gjkd_trajectory_columns *t = NULL;
        status = gjkd_query_trajectory_columns(c, NULL, tq, &t);
        assert_true((status == GJKD_OK) == (t != NULL));
        if (t != NULL) {
            assert_int_equal(t->pair_count, 2);
            assert_int_equal(t->waypoint_start[1], 2);
            assert_int_equal(t->waypoint_start[2], 2);
            assert_int_equal(t->segment_count, fault == FAULT_SEGMENTS_OK ? 2 : 0);
        }
        gjkd_trajectory_columns_destroy(&t);
    } else {
        gjkd_trajectory *t = NULL;
        status = gjkd_query_trajectory_request(c, NULL, tq, &t);
        assert_true((status == GJKD_OK) == (t != NULL));
        if (t != NULL && fault == FAULT_SEGMENTS_OK) {
            assert_int_equal(t->segment_count, 2);
            assert_int_equal(t->first_contact_segment, 0);
            const gjkd_segment *g = t->segments;
            assert_int_equal(g[0].verdict, GJKD_SEGMENT_CONTACT);
            assert_true(g[0].t == 0.25 && !g[0].has_clearance && g[0].evaluations == 7);
            assert_non_null(g[0].pair);
            assert_int_equal(g[0].pair->status, GJKD_SEPARATED);
            assert_int_equal(g[0].pair->part_pair_count, 1);
            assert_int_equal(g[1].verdict, GJKD_SEGMENT_CLEAR);
            assert_true(g[1].has_clearance && g[1].clearance_lower_bound == 0.125);
            assert_null(g[1].pair);
        }
        if (t != NULL && fault == FAULT_SEGMENT_OLD_FORM) {
            assert_int_equal(t->segment_count, 1);
            assert_int_equal(t->segments[0].verdict, GJKD_SEGMENT_CONTACT);
            assert_null(t->segments[0].pair);
        }
        gjkd_trajectory_destroy(&t);
    }
    gjkd_client_destroy(&c);
    gjkd_arena_free(&a);
    pthread_join(l.thread, NULL);
    zmq_ctx_term(l.ctx);
    return status;
}

static void test_inconsistent_pair_columns(void **state)
{
    (void)state;
    for (int as_columns = 0; as_columns < 2; ++as_columns) {
        assert_int_equal(ask_liar(FAULT_NONE, as_columns), GJKD_OK);
        for (int fault = FAULT_PAIR_INDEX; fault <= FAULT_NO_COLUMNS; ++fault)
            assert_int_equal(ask_liar(fault, as_columns), GJKD_BAD_REPLY);
    }
}

static void test_inconsistent_segment_columns(void **state)
{
    (void)state;
    for (int as_columns = 0; as_columns < 2; ++as_columns) {
        assert_int_equal(ask_liar(FAULT_SEGMENTS_OK, as_columns), GJKD_OK);
        /* the rows read an older daemon's SegmentResults; the arrays say to use them */
        assert_int_equal(ask_liar(FAULT_SEGMENT_OLD_FORM, as_columns),
                         as_columns ? GJKD_BAD_REPLY : GJKD_OK);
        for (int fault = FAULT_SEGMENT_INDEX; fault <= FAULT_SEGMENT_BOTH; ++fault)
            assert_int_equal(ask_liar(fault, as_columns), GJKD_BAD_REPLY);
    }
}

int main(void)
{
    gjkd_log_set_level(GJKD_LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_mode_equals_the_full_form),
        cmocka_unit_test(test_gradients_in_columns),
        cmocka_unit_test(test_inconsistent_pair_columns),
        cmocka_unit_test(test_segment_columns_equal_the_full_form),
        cmocka_unit_test(test_inconsistent_segment_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
