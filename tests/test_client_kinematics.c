/* test_client_kinematics.c — libgjkd-client with a robot with joints over a real ROUTER on
 * loopback TCP: the scene summary's DOF names and positions, gjkd_set_joint_positions (full
 * vector, named subset, base pose, refusals naming the joint), state queries with gradients
 * and joint_names, joint-space trajectories (DOF order and permuted names, CLOSEST mode
 * through the compact form and ALL_WITHIN) equal to each other and to the state query at each
 * waypoint. */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "test_loopback_server.h"

#include "log.h"

#include <time.h>
#include <zmq.h>

/* ------------------------------------------------------------------ an in-process daemon */

/* The cart (test_server_util.h: two DOF and a mimic) before a wall at x = 1.5. */
static t_server *start(void)
{
    gjkd_arena a = {0};
    gjkd_service *svc = t_service(NULL);
    assert_code(t_call_code(svc, t_put_robot(&a, t_cart_robot(&a, "cart"))), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(&a, t_obstacle(&a, "wall", 0.1, 1.5))),
                GJKD_CODE(OK));
    gjkd_arena_free(&a);
    return t_server_start(svc);
}

/* ------------------------------------------------------------------ tests */

static void summary_q(gjkd_client *c, double q[2])
{
    gjkd_scene_summary *s = NULL;
    assert_int_equal(gjkd_scene_summary_get(c, &s), GJKD_OK);
    assert_int_equal(s->robot_count, 1);
    assert_int_equal(s->robots[0].joint_count, 2);
    assert_string_equal(s->robots[0].joint_names[0], "slide");
    assert_string_equal(s->robots[0].joint_names[1], "turn");
    q[0] = s->robots[0].positions[0];
    q[1] = s->robots[0].positions[1];
    gjkd_scene_summary_destroy(&s);
}

static void test_joint_positions(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    double q[2];
    summary_q(c, q);
    assert_true(q[0] == 0 && q[1] == 0);
    double full[2] = {0.3, -0.6};
    assert_int_equal(gjkd_set_joint_positions(c, "cart", NULL, full, 2, NULL), GJKD_OK);
    summary_q(c, q);
    assert_true(q[0] == 0.3 && q[1] == -0.6);
    const char *turn[1] = {"turn"};
    double v[1] = {1.25};
    gjkd_pose base = {{1, 0, 0, 0}, {0, 0.5, 0}};
    assert_int_equal(gjkd_set_joint_positions(c, "cart", turn, v, 1, &base), GJKD_OK);
    summary_q(c, q);
    assert_true(q[0] == 0.3 && q[1] == 1.25);
    double over[1] = {-2.5};
    assert_int_equal(gjkd_set_joint_positions(c, "cart", turn, over, 1, NULL), GJKD_INVALID_INPUT);
    assert_non_null(strstr(gjkd_client_error(c), "joint 'turn': -2.5 is outside its limits"));
    const char *grip[1] = {"grip"};
    assert_int_equal(gjkd_set_joint_positions(c, "cart", grip, v, 1, NULL), GJKD_INVALID_ARGUMENT);
    assert_non_null(strstr(gjkd_client_error(c), "'grip' is a mimic joint"));
    gjkd_client_destroy(&c);
    t_server_stop(s);
}

static void test_gradients_and_joint_trajectories(void **state)
{
    (void)state;
    t_server *s = start();
    gjkd_client *c = t_server_connect(s);
    enum { N = 13 };
    double q[N][2], swapped[N][2];
    for (int w = 0; w < N; ++w) {
        q[w][0] = -0.6 + 0.12 * w;
        q[w][1] = -1.2 + 0.2 * w;
        swapped[w][0] = q[w][1];
        swapped[w][1] = q[w][0];
    }
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.has_max_distance = true;
    o.max_distance = 1.0;
    o.gradients = true;
    gjkd_trajectory *t = NULL, *u = NULL;
    assert_int_equal(gjkd_query_trajectory_joints(c, &o, "cart", NULL, NULL, 2, &q[0][0], N, &t),
                     GJKD_OK);
    const char *names[2] = {"turn", "slide"};
    assert_int_equal(
        gjkd_query_trajectory_joints(c, &o, "cart", NULL, names, 2, &swapped[0][0], N, &u),
        GJKD_OK);
    assert_int_equal(t->waypoint_count, N);
    assert_int_equal(t->joint_names_count, 1);
    assert_string_equal(t->joint_names[0].robot, "cart");
    assert_int_equal(t->joint_names[0].count, 2);
    assert_string_equal(t->joint_names[0].names[1], "turn");
    size_t pairs = 0, smooth = 0;
    for (int w = 0; w < N; ++w) {
        const gjkd_state *a = &t->waypoints[w], *b = &u->waypoints[w];
        assert_int_equal(a->pair_count, b->pair_count);
        pairs += a->pair_count;
        for (size_t i = 0; i < a->pair_count; ++i) {
            assert_true(a->pairs[i].distance == b->pairs[i].distance);
            assert_int_equal(a->pairs[i].gradient_a_count, 2);
            assert_int_equal(a->pairs[i].gradient_b_count, 0);
            assert_true(a->pairs[i].gradient_a[0] == b->pairs[i].gradient_a[0]);
            assert_true(a->pairs[i].gradient_a[1] == b->pairs[i].gradient_a[1]);
        }
    }
    assert_true(pairs > N);
    /* the state query at a waypoint's joint positions: the same pairs and gradients */
    for (int w = 0; w < N; w += 4) {
        assert_int_equal(gjkd_set_joint_positions(c, "cart", NULL, q[w], 2, NULL), GJKD_OK);
        gjkd_state *st = NULL;
        assert_int_equal(gjkd_query_state(c, &o, &st), GJKD_OK);
        assert_int_equal(st->joint_names_count, 1);
        const gjkd_state *a = &t->waypoints[w];
        assert_int_equal(a->pair_count, st->pair_count);
        for (size_t i = 0; i < a->pair_count; ++i) {
            assert_near(a->pairs[i].distance, st->pairs[i].distance, 1e-9);
            assert_int_equal(a->pairs[i].subgradient, st->pairs[i].subgradient);
            if (a->pairs[i].subgradient)
                continue;
            ++smooth;
            for (int d = 0; d < 2; ++d)
                assert_near(a->pairs[i].gradient_a[d], st->pairs[i].gradient_a[d], 1e-6);
        }
        gjkd_state_destroy(&st);
    }
    assert_true(smooth > 0);
    /* CLOSEST mode goes through the compact form and keeps the gradients */
    o.mode = GJKD_QUERY_CLOSEST;
    gjkd_trajectory *cl = NULL;
    assert_int_equal(gjkd_query_trajectory_joints(c, &o, "cart", "plan", NULL, 2, &q[0][0], N, &cl),
                     GJKD_OK);
    int closest = 0;
    for (int w = 0; w < N; ++w) {
        const gjkd_pair *p = cl->waypoints[w].closest;
        if (!p)
            continue;
        ++closest;
        assert_int_equal(p->gradient_a_count, 2);
        assert_true(p->distance == t->waypoints[w].pairs[0].distance);
        assert_true(p->gradient_a[0] == t->waypoints[w].pairs[0].gradient_a[0]);
    }
    assert_true(closest > 0);
    gjkd_trajectory_destroy(&cl);
    /* a value out of limits names the waypoint and the joint */
    q[5][1] = 2.5;
    assert_int_equal(gjkd_query_trajectory_joints(c, &o, "cart", NULL, NULL, 2, &q[0][0], N, &cl),
                     GJKD_INVALID_INPUT);
    assert_null(cl);
    assert_non_null(strstr(gjkd_client_error(c), "waypoint 5: joint 'turn'"));
    gjkd_trajectory_destroy(&t);
    gjkd_trajectory_destroy(&u);
    gjkd_client_destroy(&c);
    t_server_stop(s);
}

int main(void)
{
    gjkd_log_set_level(GJKD_LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_joint_positions),
        cmocka_unit_test(test_gradients_and_joint_trajectories),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
