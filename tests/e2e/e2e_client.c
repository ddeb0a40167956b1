/* e2e_client.c — every request type through libgjkd-client against a running gjkd.
 *
 * Started by tests/e2e/e2e.py (group "requests") with the endpoint of a daemon it started on a
 * free loopback port and holding the demo scene:
 *     e2e_client ENDPOINT DEMO_DIR
 * Not a ctest test by itself (it needs the daemon). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gjkd_client.h"
#include "gjkd_json.h"

static const char *endpoint;
static const char *demo_dir;

static gjkd_client *connect_client(int timeout_ms, int retries)
{
    gjkd_client_options o = gjkd_client_default_options();
    o.endpoint = endpoint;
    o.timeout_ms = timeout_ms;
    o.retries = retries;
    gjkd_client *c = NULL;
    assert_int_equal(gjkd_client_create(&o, &c), GJKD_OK);
    assert_non_null(c);
    return c;
}

/* Asserts a call's status, printing the client's message when it differs. */
#define EXPECT(c, call, status)                                                                    \
    do {                                                                                           \
        gjkd_status s_ = (call);                                                                   \
        if (s_ != (status))                                                                        \
            fail_msg("%s: got %s (%s), expected %s", #call, gjkd_status_name((int)s_),             \
                     gjkd_client_error(c), gjkd_status_name((int)(status)));                       \
    } while (0)

static void *read_json(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", demo_dir, name);
    gjkd_json_error err;
    char *text = gjkd_json_read_file(path, len, &err);
    if (text == NULL)
        fail_msg("%s", err.message);
    return text;
}

/* The demo poses as gjkd_pose values. */
static size_t demo_poses(gjkd_pose *out, size_t cap)
{
    size_t len;
    char *text = read_json("poses.json", &len);
    Gjkd__V1__SetLinkPosesRequest *req;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_poses(text, len, &req, &err));
    free(text);
    const Gjkd__V1__LinkPoses *lp = req->robots[0]->link_poses;
    assert_true(lp->n_poses <= cap);
    for (size_t i = 0; i < lp->n_poses; i++) {
        const Gjkd__V1__Pose *p = lp->poses[i];
        out[i].p.x = p->position->x;
        out[i].p.y = p->position->y;
        out[i].p.z = p->position->z;
        out[i].q.w = p->orientation->w;
        out[i].q.x = p->orientation->x;
        out[i].q.y = p->orientation->y;
        out[i].q.z = p->orientation->z;
    }
    size_t n = lp->n_poses;
    gjkd_json_poses_free(&req);
    return n;
}

static void health_stats_and_scene(void **state)
{
    (void)state;
    gjkd_client *c = connect_client(5000, 1);
    gjkd_health *h;
    EXPECT(c, gjkd_health_get(c, &h), GJKD_OK);
    assert_true(h->serving);
    assert_true(strlen(h->version) >= 5);
    assert_true(h->uptime_seconds >= 0.0);
    assert_string_equal(gjkd_client_error(c), "");
    gjkd_health_destroy(&h);
    assert_null(h);
    gjkd_health_destroy(&h); /* safe on NULL */

    gjkd_stats *st;
    EXPECT(c, gjkd_stats_get(c, &st), GJKD_OK);
    assert_true(st->command_count >= 8);
    bool saw_health = false;
    for (size_t i = 0; i < st->command_count; i++) {
        if (strcmp(st->commands[i].name, "health") == 0)
            saw_health = st->commands[i].calls >= 1;
    }
    assert_true(saw_health);
    assert_true(st->limits.max_waypoints > 0);
    assert_true(st->threads >= 1);
    gjkd_stats_destroy(&st);
    assert_null(st);

    gjkd_scene_summary *ss;
    EXPECT(c, gjkd_scene_summary_get(c, &ss), GJKD_OK);
    assert_int_equal(ss->robot_count, 1);
    assert_string_equal(ss->robots[0].name, "arm");
    assert_int_equal(ss->robots[0].link_count, 7);
    assert_string_equal(ss->robots[0].links[6], "hand");
    assert_true(ss->obstacle_count >= 10);
    assert_int_equal(ss->revision, gjkd_client_revision(c));
    gjkd_scene_summary_destroy(&ss);
    assert_null(ss);
    gjkd_client_destroy(&c);
    assert_null(c);
}

static void scene_changes(void **state)
{
    (void)state;
    gjkd_client *c = connect_client(5000, 1);
    /* Reload the demo scene through gjkd_json: puts replace by name, ids are kept. */
    size_t len;
    char *text = read_json("scene.json", &len);
    Gjkd__V1__Scene *scene;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_scene(text, len, &scene, &err));
    free(text);
    gjkd_change ch;
    EXPECT(c, gjkd_load_scene(c, scene, &ch), GJKD_OK);
    uint64_t rev = ch.revision;
    assert_true(rev > 0);
    EXPECT(c, gjkd_put_robot(c, scene->robots[0], &ch), GJKD_OK);
    assert_true(ch.replaced);
    assert_int_equal(ch.revision, rev + 1);
    assert_true(ch.hull_vertices > 50); /* hulls kept only hull vertices, but not nothing */

    /* A new obstacle, then its removal. */
    Gjkd__V1__Box box = GJKD__V1__BOX__INIT;
    Gjkd__V1__Vec3 he = GJKD__V1__VEC3__INIT;
    he.x = he.y = he.z = 0.05;
    box.half_extents = &he;
    Gjkd__V1__Shape shape = GJKD__V1__SHAPE__INIT;
    shape.kind_case = GJKD__V1__SHAPE__KIND_BOX;
    shape.box = &box;
    Gjkd__V1__Part part = GJKD__V1__PART__INIT;
    part.shape = &shape;
    Gjkd__V1__Part *parts[] = {&part};
    Gjkd__V1__Obstacle ob = GJKD__V1__OBSTACLE__INIT;
    ob.name = "e2e_c_box";
    ob.n_parts = 1;
    ob.parts = parts;
    EXPECT(c, gjkd_put_obstacle(c, &ob, &ch), GJKD_OK);
    assert_false(ch.replaced);
    assert_true(ch.id > 0);
    assert_int_equal(ch.revision, rev + 2);
    EXPECT(c, gjkd_remove_obstacle(c, "e2e_c_box", &ch), GJKD_OK);
    assert_int_equal(ch.revision, rev + 3);
    EXPECT(c, gjkd_remove_obstacle(c, "e2e_c_box", NULL), GJKD_NOT_FOUND);
    assert_non_null(strstr(gjkd_client_error(c), "NOT_FOUND: "));

    /* Robot removal and re-put. */
    EXPECT(c, gjkd_remove_robot(c, "arm", &ch), GJKD_OK);
    EXPECT(c, gjkd_remove_robot(c, "arm", NULL), GJKD_NOT_FOUND);
    EXPECT(c, gjkd_load_scene(c, scene, &ch), GJKD_OK);
    assert_int_equal(ch.revision, rev + 5); /* a load is one change */

    /* A document whose allowed pairs name a missing body is refused whole, merged or not. */
    char *saved = scene->allowed_pairs[0]->b->obstacle;
    scene->allowed_pairs[0]->b->obstacle = "ghost";
    EXPECT(c, gjkd_load_scene(c, scene, NULL), GJKD_NOT_FOUND);
    assert_non_null(strstr(gjkd_client_error(c), "allowed_pairs[0].b: no obstacle named 'ghost'"));
    EXPECT(c, gjkd_merge_scene(c, scene, NULL), GJKD_NOT_FOUND);
    assert_int_equal(gjkd_client_revision(c), rev + 5);
    scene->allowed_pairs[0]->b->obstacle = saved;
    EXPECT(c, gjkd_merge_scene(c, scene, &ch), GJKD_OK);
    assert_int_equal(ch.revision, rev + 6);
    assert_true(ch.replaced);

    /* Allowed pairs: replace the list, then restore it. */
    EXPECT(c, gjkd_set_allowed_pairs(c, NULL, 0, &ch), GJKD_OK);
    gjkd_scene_summary *ss;
    EXPECT(c, gjkd_scene_summary_get(c, &ss), GJKD_OK);
    assert_int_equal(ss->allowed_pairs, 0);
    gjkd_scene_summary_destroy(&ss);
    EXPECT(c, gjkd_set_allowed_pairs(c, scene->allowed_pairs, scene->n_allowed_pairs, &ch),
           GJKD_OK);
    EXPECT(c, gjkd_scene_summary_get(c, &ss), GJKD_OK);
    assert_int_equal(ss->allowed_pairs, scene->n_allowed_pairs);
    gjkd_scene_summary_destroy(&ss);

    /* Expected revision: wrong -> FAILED_PRECONDITION and nothing changes; right -> OK. */
    uint64_t now = gjkd_client_revision(c);
    gjkd_client_expect_revision(c, now + 100);
    EXPECT(c, gjkd_remove_obstacle(c, "ball", NULL), GJKD_FAILED_PRECONDITION);
    gjkd_client_expect_revision(c, now);
    EXPECT(c, gjkd_put_obstacle(c, scene->obstacles[0], &ch), GJKD_OK);
    assert_int_equal(ch.revision, now + 1);
    gjkd_json_scene_free(&scene);
    gjkd_client_destroy(&c);
}

static void poses_and_state_queries(void **state)
{
    (void)state;
    gjkd_client *c = connect_client(5000, 1);
    gjkd_pose poses[16];
    size_t n = demo_poses(poses, 16);
    assert_int_equal(n, 7);
    gjkd_health *h;
    EXPECT(c, gjkd_health_get(c, &h), GJKD_OK);
    uint64_t rev = h->revision;
    gjkd_health_destroy(&h);
    EXPECT(c, gjkd_set_link_poses(c, "arm", poses, n), GJKD_OK);
    assert_int_equal(gjkd_client_revision(c), rev); /* poses move no scene revision */
    EXPECT(c, gjkd_set_link_poses(c, "arm", poses, n - 1), GJKD_INVALID_ARGUMENT);
    EXPECT(c, gjkd_set_link_poses(c, "nobody", poses, n), GJKD_NOT_FOUND);
    gjkd_pose bad[16];
    memcpy(bad, poses, sizeof bad);
    bad[3].p.y = NAN;
    EXPECT(c, gjkd_set_link_poses(c, "arm", bad, n), GJKD_INVALID_INPUT);
    bad[3].p.y = INFINITY;
    EXPECT(c, gjkd_set_link_poses(c, "arm", bad, n), GJKD_INVALID_INPUT);

    gjkd_query_options all = {0};
    all.mode = GJKD_QUERY_ALL_WITHIN;
    all.has_max_distance = true;
    all.max_distance = 0.1;
    gjkd_state *s;
    EXPECT(c, gjkd_query_state(c, &all, &s), GJKD_OK);
    assert_true(s->evaluated);
    assert_true(s->has_min_distance);
    assert_non_null(s->closest);
    assert_true(s->pair_count >= 2);
    assert_true(s->colliding); /* the demo pose dips into box_a */
    assert_true(s->min_distance < 0.0);
    assert_true(s->closest->distance == s->min_distance);
    for (size_t i = 0; i < s->pair_count; i++) {
        const gjkd_pair *p = &s->pairs[i];
        assert_string_equal(p->robot_a, "arm");
        assert_true(p->link_a[0] != '\0');
        assert_true(p->distance <= 0.1);
        assert_true(i == 0 || p->distance >= s->pairs[i - 1].distance); /* closest first */
        double nn = p->normal.x * p->normal.x + p->normal.y * p->normal.y +
                    p->normal.z * p->normal.z;
        assert_true(fabs(nn - 1.0) < 1e-6);
        if (p->distance > 1e-6) { /* point_b - point_a = distance * normal */
            assert_true(fabs(p->point_b.x - p->point_a.x - p->distance * p->normal.x) < 1e-6);
            assert_true(fabs(p->point_b.z - p->point_a.z - p->distance * p->normal.z) < 1e-6);
            assert_int_equal(p->status, GJKD_SEPARATED);
        }
    }
    double min_all = s->min_distance;
    assert_int_equal(s->revision, rev); /* poses move no scene revision */
    /* One entry per body pair; per_part lists their part pairs, as many as the counts say. */
    size_t total = 0;
    for (size_t i = 0; i < s->pair_count; i++) {
        const gjkd_pair *p = &s->pairs[i];
        assert_true(p->part_pair_count >= 1);
        total += p->part_pair_count;
        for (size_t j = 0; j < i; j++)
            assert_false(strcmp(p->link_a, s->pairs[j].link_a) == 0 &&
                         strcmp(p->robot_b, s->pairs[j].robot_b) == 0 &&
                         strcmp(p->link_b, s->pairs[j].link_b) == 0 &&
                         strcmp(p->obstacle_b, s->pairs[j].obstacle_b) == 0);
    }
    gjkd_query_options per_part = all;
    per_part.per_part = true;
    gjkd_state *sp;
    EXPECT(c, gjkd_query_state(c, &per_part, &sp), GJKD_OK);
    assert_false(s->truncated || sp->truncated);
    assert_int_equal(sp->pair_count, total);
    for (size_t i = 0; i < sp->pair_count; i++)
        assert_int_equal(sp->pairs[i].part_pair_count, 1);
    assert_true(sp->min_distance == s->min_distance);
    gjkd_state_destroy(&sp);
    gjkd_state_destroy(&s);
    assert_null(s);

    gjkd_query_options closest = all;
    closest.mode = GJKD_QUERY_CLOSEST;
    EXPECT(c, gjkd_query_state(c, &closest, &s), GJKD_OK);
    assert_int_equal(s->pair_count, 0);
    assert_non_null(s->closest);
    assert_true(fabs(s->min_distance - min_all) < 1e-9);
    gjkd_state_destroy(&s);

    gjkd_query_options first = all;
    first.mode = GJKD_QUERY_FIRST_COLLISION;
    EXPECT(c, gjkd_query_state(c, &first, &s), GJKD_OK);
    assert_true(s->colliding);
    gjkd_state_destroy(&s);

    closest.robot = "nobody";
    EXPECT(c, gjkd_query_state(c, &closest, &s), GJKD_NOT_FOUND);
    assert_null(s);
    gjkd_client_destroy(&c);
}

static void trajectory_queries(void **state)
{
    (void)state;
    gjkd_client *c = connect_client(10000, 1);
    size_t len;
    char *text = read_json("trajectory.json", &len);
    Gjkd__V1__TrajectoryQueryRequest *req;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_trajectory(text, len, &req, &err));
    free(text);
    gjkd_query_options o = {0};
    o.has_max_distance = true;
    o.max_distance = 0.1;
    o.mode = GJKD_QUERY_ALL_WITHIN;

    /* A fresh name: the first query misses the named cache, the second hits it. */
    char name[64];
    snprintf(name, sizeof name, "e2e-c-%ld", (long)time(NULL));
    free(req->name);
    req->name = strdup(name);
    gjkd_trajectory *t1, *t2;
    EXPECT(c, gjkd_query_trajectory_request(c, &o, req, &t1), GJKD_OK);
    EXPECT(c, gjkd_query_trajectory_request(c, &o, req, &t2), GJKD_OK);
    assert_false(t1->cache_hit);
    assert_true(t2->cache_hit);
    assert_int_equal(t1->waypoint_count, 100);
    assert_true(t1->has_min_distance);
    assert_true(t1->min_distance < 0.0);
    assert_true(t1->first_collision >= 0);
    assert_true(t1->colliding_waypoints > 0 && t1->colliding_waypoints < 100);
    double min = INFINITY;
    uint32_t colliding = 0;
    for (size_t i = 0; i < t1->waypoint_count; i++) {
        const gjkd_state *w = &t1->waypoints[i];
        assert_true(w->evaluated);
        if (w->has_min_distance && w->min_distance < min)
            min = w->min_distance;
        colliding += w->colliding;
        /* Warm and cold answers agree within GJK tolerance. */
        assert_int_equal(w->has_min_distance, t2->waypoints[i].has_min_distance);
        if (w->has_min_distance)
            assert_true(fabs(w->min_distance - t2->waypoints[i].min_distance) < 1e-6);
    }
    assert_true(min == t1->min_distance);
    assert_true(t1->waypoints[t1->min_waypoint].min_distance == min);
    assert_int_equal(colliding, t1->colliding_waypoints);
    assert_true(t1->waypoints[t1->first_collision].colliding);

    /* The same trajectory from plain arrays gives the same answers. */
    size_t nw = req->n_waypoints, nl = req->waypoints[0]->link_poses->n_poses;
    gjkd_pose *poses = calloc(nw * nl, sizeof *poses);
    for (size_t w = 0; w < nw; w++) {
        for (size_t l = 0; l < nl; l++) {
            const Gjkd__V1__Pose *p = req->waypoints[w]->link_poses->poses[l];
            gjkd_pose *q = &poses[w * nl + l];
            q->p.x = p->position->x;
            q->p.y = p->position->y;
            q->p.z = p->position->z;
            q->q.w = p->orientation->w;
            q->q.x = p->orientation->x;
            q->q.y = p->orientation->y;
            q->q.z = p->orientation->z;
        }
    }
    gjkd_trajectory *t3;
    EXPECT(c, gjkd_query_trajectory(c, &o, "arm", NULL, poses, nw, nl, &t3), GJKD_OK);
    assert_false(t3->cache_hit);
    assert_true(fabs(t3->min_distance - t1->min_distance) < 1e-6);
    assert_int_equal(t3->first_collision, t1->first_collision);
    gjkd_trajectory_destroy(&t3);
    /* Wrong number of link poses and an unknown robot are refused. */
    EXPECT(c, gjkd_query_trajectory(c, &o, "arm", NULL, poses, nw, nl - 1, &t3),
           GJKD_INVALID_ARGUMENT);
    EXPECT(c, gjkd_query_trajectory(c, &o, "nobody", NULL, poses, nw, nl, &t3), GJKD_NOT_FOUND);
    assert_null(t3);
    free(poses);
    gjkd_trajectory_destroy(&t1);
    gjkd_trajectory_destroy(&t2);
    assert_null(t1);
    gjkd_json_trajectory_free(&req);
    gjkd_client_destroy(&c);
}

/* Closest mode must report the same minimum as all-pairs mode, waypoint by waypoint. */
static void closest_mode_agrees_with_all_pairs(void **state)
{
    (void)state;
    gjkd_client *c = connect_client(10000, 1);
    size_t len;
    char *text = read_json("trajectory.json", &len);
    Gjkd__V1__TrajectoryQueryRequest *req;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_trajectory(text, len, &req, &err));
    free(text);
    free(req->name);
    req->name = strdup(""); /* cold, no named cache */
    gjkd_query_options o = {0};
    o.has_max_distance = true;
    o.max_distance = 0.1;
    o.mode = GJKD_QUERY_ALL_WITHIN;
    gjkd_trajectory *all, *closest;
    EXPECT(c, gjkd_query_trajectory_request(c, &o, req, &all), GJKD_OK);
    o.mode = GJKD_QUERY_CLOSEST;
    EXPECT(c, gjkd_query_trajectory_request(c, &o, req, &closest), GJKD_OK);
    for (size_t i = 0; i < all->waypoint_count; i++) {
        const gjkd_state *a = &all->waypoints[i], *b = &closest->waypoints[i];
        if (a->has_min_distance != b->has_min_distance ||
            (a->has_min_distance && fabs(a->min_distance - b->min_distance) > 1e-6))
            fail_msg("waypoint %zu: all-pairs minimum %.6f (%s/%s), closest mode %.6f (%s/%s)",
                     i, a->min_distance, a->closest ? a->closest->link_a : "-",
                     a->closest ? a->closest->part_a : "-", b->min_distance,
                     b->closest ? b->closest->link_a : "-", b->closest ? b->closest->part_a : "-");
    }
    gjkd_trajectory_destroy(&all);
    gjkd_trajectory_destroy(&closest);
    gjkd_json_trajectory_free(&req);
    gjkd_client_destroy(&c);
}

/* Nothing listens there: every attempt times out, bounded by (retries + 1) * timeout. */
static void timeout_and_retries_are_bounded(void **state)
{
    (void)state;
    gjkd_client_options o = gjkd_client_default_options();
    o.endpoint = "tcp://127.0.0.1:9"; /* discard port: nothing answers */
    o.timeout_ms = 150;
    o.retries = 2;
    gjkd_client *c;
    assert_int_equal(gjkd_client_create(&o, &c), GJKD_OK);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gjkd_health *h;
    EXPECT(c, gjkd_health_get(c, &h), GJKD_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
    assert_true(ms >= 3 * 150 - 20 && ms < 3 * 150 + 1000);
    assert_non_null(strstr(gjkd_client_error(c), "after 3 attempts of 150 ms"));
    assert_null(h);
    gjkd_client_destroy(&c);

    o.endpoint = "not-an-endpoint";
    assert_int_equal(gjkd_client_create(&o, &c), GJKD_TRANSPORT);
    assert_null(c);
    o.endpoint = endpoint;
    o.timeout_ms = 0;
    assert_int_equal(gjkd_client_create(&o, &c), GJKD_CLIENT_ERROR);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: e2e_client ENDPOINT DEMO_DIR\n");
        return 2;
    }
    endpoint = argv[1];
    demo_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(health_stats_and_scene),
        cmocka_unit_test(scene_changes),
        cmocka_unit_test(poses_and_state_queries),
        cmocka_unit_test(trajectory_queries),
        cmocka_unit_test(closest_mode_agrees_with_all_pairs),
        cmocka_unit_test(timeout_and_retries_are_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
