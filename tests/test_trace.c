/* test_trace.c — the optional step trace of GJK and EPA (gjk/trace.h).
 *
 * A traced query answers exactly as an untraced one (bit for bit); the trace holds one step per
 * GJK iteration and one per EPA iteration, in order, numbered from 1; every point is a support
 * point of D = A - B (w = a - b, a on core A and b on core B in A's frame); GJK's direction is
 * -v of its simplex, its bounds bracket the cores' distance and close on the answer; EPA's
 * steps name a face of their polytope, their bounds bracket the depth; full arrays truncate
 * without writing past them; the inflate of a sphere pair is its radii. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "gjk/gjk.h"
#include "test_world_util.h"

static gjk_transform at(double x, double y, double z, gjk_quat q)
{
    gjk_transform t = {q, {x, y, z}};
    return t;
}

static const gjk_quat ID = {1.0, 0.0, 0.0, 0.0};

/* A 30-degree turn about (1, 1, 1)/sqrt(3): no face of the boxes aligned with the other's. */
static gjk_quat turned(void)
{
    const double half = 0.2617993877991494; /* 15 degrees */
    double s = sin(half) / sqrt(3.0);
    gjk_quat q = {cos(half), s, s, s};
    return q;
}

/* Field by field, doubles bit for bit (a memcmp of the structs would compare their padding:
 * it failed under ASan, whose stack differs between the two calls). */
static bool same_bits(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

static bool same_vec(gjk_vec3 x, gjk_vec3 y)
{
    return same_bits(x.x, y.x) && same_bits(x.y, y.y) && same_bits(x.z, y.z);
}

static bool same_result(gjk_result x, gjk_result y)
{
    return x.status == y.status && same_bits(x.distance, y.distance) &&
           same_vec(x.point_a, y.point_a) && same_vec(x.point_b, y.point_b) &&
           same_vec(x.normal, y.normal) && same_bits(x.lower_bound, y.lower_bound) &&
           same_bits(x.upper_bound, y.upper_bound) && x.iterations == y.iterations &&
           x.epa_iterations == y.epa_iterations && x.support_calls == y.support_calls;
}

/* Every point of D is the difference of its two support points. */
static void check_points(const gjk_trace *t)
{
    for (int32_t i = 0; i < t->point_count; i++) {
        gjk_vec3 d = gjk_sub(gjk_sub(t->points[i].a, t->points[i].b), t->points[i].w);
        assert_true(gjk_length(d) <= 1e-12 * (1.0 + gjk_length(t->points[i].w)));
    }
}

static void test_gjk_separated_boxes(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(0.5, 0.3, 0.2)), b = gjk_make_box(gjk_v3(0.2, 0.4, 0.1));
    gjk_transform pa = at(0.1, -0.2, 0.3, ID), pb = at(1.4, 0.3, 0.5, turned());
    gjk_trace_step steps[64];
    gjk_trace_point points[256];
    gjk_trace t = gjk_trace_make(steps, 64, points, 256);
    gjk_options o = gjk_default_options();
    gjk_result plain = gjk_signed_distance(&a, pa, &b, pb, NULL, &o);
    o.trace = &t;
    gjk_result traced = gjk_signed_distance(&a, pa, &b, pb, NULL, &o);
    assert_true(same_result(plain, traced));
    assert_int_equal(traced.status, GJK_STATUS_SEPARATED);
    assert_false(t.truncated);
    assert_int_equal(t.step_count, traced.iterations);
    assert_true(t.step_count >= 2);
    double prev_upper = INFINITY;
    for (int32_t i = 0; i < t.step_count; i++) {
        const gjk_trace_step *s = &t.steps[i];
        assert_int_equal(s->phase, GJK_TRACE_GJK);
        assert_int_equal(s->iteration, i + 1);
        assert_true(s->point_count >= 1 && s->point_count <= 3);
        assert_int_equal(s->face[0], -1);
        /* The direction is -v, and v is the simplex's point nearest the origin: |v| = upper. */
        assert_true(gjk_length(gjk_add(s->direction, s->closest)) == 0.0);
        assert_true(fabs(gjk_length(s->closest) - s->upper) <= 1e-15);
        assert_true(s->lower <= s->upper + 1e-15);
        /* Bounds on the cores' distance (boxes: no inflate), upper never grows. */
        assert_true(s->lower <= traced.distance + 1e-12 && traced.distance <= s->upper + 1e-12);
        assert_true(s->upper <= prev_upper + 1e-15);
        prev_upper = s->upper;
        /* The support point minimises v.x over D: no simplex point lies below it along -v. */
        double h = gjk_dot(s->direction, s->support.w);
        for (int32_t k = 0; k < s->point_count; k++)
            assert_true(gjk_dot(s->direction, t.points[s->first_point + k].w) <= h + 1e-12);
    }
    const gjk_trace_step *last = &t.steps[t.step_count - 1];
    assert_true(last->upper - last->lower <= 1e-9);
    check_points(&t);
    assert_true(t.inflate == 0.0);
}

static void test_epa_overlapping_boxes(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(0.5, 0.5, 0.5)), b = gjk_make_box(gjk_v3(0.3, 0.2, 0.4));
    gjk_transform pa = at(0.0, 0.0, 0.0, ID), pb = at(0.6, 0.1, -0.05, turned());
    gjk_trace_step steps[256];
    gjk_trace_point points[8192];
    gjk_trace t = gjk_trace_make(steps, 256, points, 8192);
    gjk_options o = gjk_default_options();
    gjk_result plain = gjk_signed_distance(&a, pa, &b, pb, NULL, &o);
    o.trace = &t;
    gjk_result traced = gjk_signed_distance(&a, pa, &b, pb, NULL, &o);
    assert_true(same_result(plain, traced));
    assert_int_equal(traced.status, GJK_STATUS_OVERLAPPING);
    assert_true(traced.epa_iterations >= 1);
    assert_false(t.truncated);
    int32_t gjk_steps = 0, epa_steps = 0;
    double prev_upper = INFINITY;
    for (int32_t i = 0; i < t.step_count; i++) {
        const gjk_trace_step *s = &t.steps[i];
        if (s->phase == GJK_TRACE_GJK) {
            assert_int_equal(epa_steps, 0); /* GJK first */
            assert_int_equal(s->iteration, ++gjk_steps);
            continue;
        }
        assert_int_equal(s->phase, GJK_TRACE_EPA);
        assert_int_equal(s->iteration, ++epa_steps);
        assert_true(s->point_count >= 4);
        for (int k = 0; k < 3; k++)
            assert_true(s->face[k] >= 0 && s->face[k] < s->point_count);
        /* The face's normal is a unit vector and its point lies on the face's plane. */
        assert_true(fabs(gjk_length(s->direction) - 1.0) <= 1e-12);
        gjk_vec3 w0 = t.points[s->first_point + s->face[0]].w;
        assert_true(fabs(gjk_dot(s->direction, gjk_sub(w0, s->closest))) <= 1e-12);
        /* Depth bounds: the depth lies between them, the upper one never grows. */
        assert_true(s->lower <= -traced.distance + 1e-12);
        assert_true(-traced.distance <= s->upper + 1e-12);
        assert_true(s->upper <= prev_upper);
        prev_upper = s->upper;
    }
    assert_int_equal(gjk_steps, traced.iterations);
    assert_int_equal(epa_steps, traced.epa_iterations);
    check_points(&t);
}

static void test_truncated_and_reset(void **state)
{
    (void)state;
    gjk_shape a = gjk_make_box(gjk_v3(0.5, 0.5, 0.5)), b = gjk_make_box(gjk_v3(0.3, 0.2, 0.4));
    gjk_transform pa = at(0.0, 0.0, 0.0, ID), pb = at(0.6, 0.1, -0.05, turned());
    /* One slot past each capacity holds a sentinel the trace must not touch. */
    gjk_trace_step steps[3];
    gjk_trace_point points[6];
    memset(&steps[2], 0x5a, sizeof steps[2]);
    memset(&points[5], 0x5a, sizeof points[5]);
    gjk_trace_step sentinel_step = steps[2];
    gjk_trace_point sentinel_point = points[5];
    gjk_trace t = gjk_trace_make(steps, 2, points, 5);
    gjk_options o = gjk_default_options();
    gjk_result plain = gjk_signed_distance(&a, pa, &b, pb, NULL, &o);
    o.trace = &t;
    gjk_result traced = gjk_signed_distance(&a, pa, &b, pb, NULL, &o);
    assert_true(same_result(plain, traced));
    assert_true(t.truncated);
    assert_int_equal(t.step_count, 2);
    assert_true(t.point_count <= 5);
    for (int32_t i = 0; i < t.step_count; i++)
        assert_true(t.steps[i].first_point + t.steps[i].point_count <= t.point_count);
    assert_memory_equal(&steps[2], &sentinel_step, sizeof sentinel_step);
    assert_memory_equal(&points[5], &sentinel_point, sizeof sentinel_point);
    gjk_trace_reset(&t);
    assert_int_equal(t.step_count, 0);
    assert_int_equal(t.point_count, 0);
    assert_false(t.truncated);
    /* No arrays at all: nothing recorded, the answer unchanged. */
    gjk_trace none = gjk_trace_make(NULL, 0, NULL, 0);
    o.trace = &none;
    assert_true(same_result(plain, gjk_signed_distance(&a, pa, &b, pb, NULL, &o)));
    assert_true(none.truncated && none.step_count == 0);
}

static void test_sphere_cores(void **state)
{
    (void)state;
    /* GJK runs on a sphere's centre: the trace's inflate is the radius, and every core point
     * of A is A's centre (a cone as B: no closed form for the pair). */
    gjk_shape a = gjk_make_sphere(0.25), b = gjk_make_cone(0.2, 0.3);
    gjk_transform pa = at(0.0, 0.0, 0.0, ID), pb = at(1.0, 0.3, 0.2, turned());
    gjk_trace_step steps[64];
    gjk_trace_point points[256];
    gjk_trace t = gjk_trace_make(steps, 64, points, 256);
    gjk_options o = gjk_default_options();
    o.trace = &t;
    gjk_result r = gjk_signed_distance(&a, pa, &b, pb, NULL, &o);
    assert_int_equal(r.status, GJK_STATUS_SEPARATED);
    assert_true(t.step_count > 0);
    assert_true(t.inflate == 0.25);
    for (int32_t i = 0; i < t.point_count; i++)
        assert_true(gjk_length(t.points[i].a) == 0.0);
    const gjk_trace_step *last = &t.steps[t.step_count - 1];
    assert_true(fabs(last->upper - t.inflate - r.distance) <= 1e-12);
}

static void test_world_ignores_trace(void **state)
{
    (void)state;
    /* A world query runs its pair queries on any of its threads: options.gjk.trace is not for
     * it (gjk/trace.h). Before the world cleared it, this query recorded its pairs' steps into
     * the caller's trace, unsynchronised once it ran on several threads. */
    gjk_world *w = NULL;
    assert_int_equal(gjk_world_create(NULL, &w), GJK_WORLD_OK);
    gjk_part_def link_part = tw_box_part(0.1, 0.1, 0.1, gjk_v3(0, 0, 0));
    gjk_link_def link;
    memset(&link, 0, sizeof link);
    link.name = "l";
    link.parts = &link_part;
    link.part_count = 1;
    gjk_robot_def robot;
    memset(&robot, 0, sizeof robot);
    robot.name = "r";
    robot.links = &link;
    robot.link_count = 1;
    int32_t rid, oid;
    assert_int_equal(gjk_world_put_robot(w, &robot, &rid), GJK_WORLD_OK);
    gjk_part_def box = tw_box_part(0.2, 0.2, 0.2, gjk_v3(0, 0, 0));
    gjk_obstacle_def ob;
    memset(&ob, 0, sizeof ob);
    ob.name = "o";
    ob.parts = &box;
    ob.part_count = 1;
    ob.pose = tw_at(0.7, 0.1, 0.0);
    assert_int_equal(gjk_world_put_obstacle(w, &ob, &oid), GJK_WORLD_OK);
    gjk_trace_step steps[64];
    gjk_trace_point points[256];
    gjk_trace t = gjk_trace_make(steps, 64, points, 256);
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.gjk.trace = &t;
    gjk_world_result *r = NULL;
    assert_int_equal(gjk_world_query_state(w, &opt, &r), GJK_WORLD_OK);
    assert_non_null(r);
    assert_true(r->waypoints[0].pair_count >= 1);
    assert_int_equal(t.step_count, 0);
    assert_int_equal(t.point_count, 0);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gjk_separated_boxes), cmocka_unit_test(test_epa_overlapping_boxes),
        cmocka_unit_test(test_truncated_and_reset), cmocka_unit_test(test_sphere_cores),
        cmocka_unit_test(test_world_ignores_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
