/* test_server_continuous.c — continuous trajectory checks through the daemon's dispatch: the
 * request's continuous flag, tolerance and budget reach the world, every segment comes back
 * (verdict, time, bound, pair, counters) in every reply form, and bad tolerances and budgets
 * are refused with their own status before the world sees them. */
#include "test_server_util.h"

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
    /* a 0.2 m cube robot and a 0.2 m cube obstacle at x = 1 */
    assert_code(t_call_code(f->svc, t_put_robot(a, t_robot(a, "r", 1))), GJKD_CODE(OK));
    assert_code(t_call_code(f->svc, t_put_obstacle(a, t_obstacle(a, "cube", 0.1, 1.0))),
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

/* The robot from x = -1 to x = 3 (through the cube) and on to (3, 1, 0). */
static Gjkd__V1__Request *trajectory(gjkd_arena *a, bool continuous, double tol, uint32_t budget,
                                     bool columnar)
{
    Gjkd__V1__Request *req = t_request(a, 1);
    Gjkd__V1__TrajectoryQueryRequest *t = gjkd_arena_alloc(a, sizeof *t);
    gjkd__v1__trajectory_query_request__init(t);
    t->robot = gjkd_arena_strdup(a, "r");
    static const double xyz[3][2] = {{-1, 0}, {3, 0}, {3, 1}};
    t->n_waypoints = 3;
    t->waypoints = gjkd_arena_alloc(a, 3 * sizeof *t->waypoints);
    for (int i = 0; i < 3; ++i) {
        Gjkd__V1__Waypoint *w = gjkd_arena_alloc(a, sizeof *w);
        gjkd__v1__waypoint__init(w);
        w->state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
        w->link_poses = t_link_poses(a, 1, xyz[i][0], 0);
        w->link_poses->poses[0]->position->y = xyz[i][1];
        t->waypoints[i] = w;
    }
    Gjkd__V1__QueryOptions *o = gjkd_arena_alloc(a, sizeof *o);
    gjkd__v1__query_options__init(o);
    o->columnar = columnar;
    t->options = o;
    t->continuous = continuous;
    t->continuous_time_tolerance = tol;
    t->continuous_max_evaluations = budget;
    req->body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req->trajectory_query = t;
    return req;
}

static void test_segments(void **state)
{
    fixture *f = *state;
    gjkd_arena a = {0};
    Gjkd__V1__Response *r = t_call(f->svc, trajectory(&a, false, 0, 0, false));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->trajectory->n_segments, 0);
    assert_int_equal(r->trajectory->first_collision, -1); /* the waypoints miss the cube */
    gjkd__v1__response__free_unpacked(r, NULL);
    for (int columnar = 0; columnar < 2; ++columnar) {
        r = t_call(f->svc, trajectory(&a, true, 1e-4, 0, columnar));
        assert_code(r->status->code, GJKD_CODE(OK));
        const Gjkd__V1__TrajectoryResult *t = r->trajectory;
        assert_int_equal(t->n_segments, 2);
        assert_int_equal(t->first_contact_segment, 0);
        assert_int_equal(t->undecided_segments, 0);
        const Gjkd__V1__SegmentResult *s = t->segments[0];
        assert_int_equal(s->verdict, GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CONTACT);
        assert_true(s->t <= 0.45 + 1e-12 && 0.45 <= s->t + 1e-4 + 1e-12);
        assert_int_equal(s->clearance_opt_case, GJKD__V1__SEGMENT_RESULT__CLEARANCE_OPT__NOT_SET);
        assert_non_null(s->pair);
        assert_string_equal(s->pair->body_a->robot, "r");
        assert_string_equal(s->pair->body_b->obstacle, "cube");
        assert_true(fabs(s->pair->normal->x - 1.0) < 1e-6);
        assert_true(s->pairs_checked == 1 && s->evaluations > 0);
        s = t->segments[1]; /* at x = 3, 1.8 m from the cube's face */
        assert_int_equal(s->verdict, GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CLEAR);
        assert_int_equal(s->clearance_opt_case,
                         GJKD__V1__SEGMENT_RESULT__CLEARANCE_OPT_CLEARANCE_LOWER_BOUND);
        assert_true(s->clearance_lower_bound > 0.9 && s->clearance_lower_bound <= 1.8 + 1e-12);
        gjkd__v1__response__free_unpacked(r, NULL);
    }
    gjkd_arena_free(&a);
}

static void test_refusals(void **state)
{
    fixture *f = *state;
    gjkd_arena a = {0};
    static const double bad[] = {0.7, -1e-9, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        Gjkd__V1__Response *r = t_call(f->svc, trajectory(&a, true, bad[i], 0, false));
        assert_code(r->status->code, GJKD_CODE(INVALID_INPUT));
        assert_non_null(strstr(r->status->message, "continuous_time_tolerance"));
        gjkd__v1__response__free_unpacked(r, NULL);
    }
    Gjkd__V1__Response *r =
        t_call(f->svc, trajectory(&a, true, 0, GJKD_MAX_CONTINUOUS_EVALUATIONS + 1, false));
    assert_code(r->status->code, GJKD_CODE(RESOURCE_EXHAUSTED));
    gjkd__v1__response__free_unpacked(r, NULL);
    /* without the flag the other fields are not looked at */
    r = t_call(f->svc, trajectory(&a, false, 0.7, 0, false));
    assert_code(r->status->code, GJKD_CODE(OK));
    gjkd__v1__response__free_unpacked(r, NULL);
    /* a budget of one query per pair: the crossing is undecided, never clear */
    r = t_call(f->svc, trajectory(&a, true, 0, 1, false));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->trajectory->segments[0]->verdict,
                     GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_UNDECIDED);
    /* the second segment is settled by its two end queries alone */
    assert_int_equal(r->trajectory->segments[1]->verdict,
                     GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CLEAR);
    assert_int_equal(r->trajectory->undecided_segments, 1);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_segments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
