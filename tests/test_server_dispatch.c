/* test_server_dispatch.c — the command table against an in-memory world, without sockets:
 * scene changes and revisions, state and trajectory queries with known answers, allowed
 * pairs, stats counters, the pose stream's update/monitor pair, and concurrent clients. */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "demo.h"
#include "log.h"

#include <pthread.h>

/* arm: 3 box links of half size 0.1 at x = x0, x0 + 0.3, x0 + 0.6; table: box of half size
 * 0.5 at x = 2 (faces at 1.5 and 2.5). */
static gjkd_service *make_scene(gjkd_arena *a, double x0)
{
    gjkd_service *svc = t_service(NULL);
    assert_code(t_call_code(svc, t_put_robot(a, t_robot(a, "arm", 3))), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(a, t_obstacle(a, "table", 0.5, 2.0))),
                GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_set_poses(a, "arm", t_link_poses(a, 3, x0, 0.3))),
                GJKD_CODE(OK));
    return svc;
}

static void check_pair_geometry(const Gjkd__V1__PairResult *p)
{
    double d = p->distance;
    assert_near(p->point_b->x - p->point_a->x, d * p->normal->x, 1e-9);
    assert_near(p->point_b->y - p->point_a->y, d * p->normal->y, 1e-9);
    assert_near(p->point_b->z - p->point_a->z, d * p->normal->z, 1e-9);
    double n = sqrt(p->normal->x * p->normal->x + p->normal->y * p->normal->y +
                    p->normal->z * p->normal->z);
    assert_near(n, 1.0, 1e-9);
}

static void test_changes_and_revisions(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = t_service(NULL);
    Gjkd__V1__Response *r = t_call(svc, t_put_robot(&a, t_robot(&a, "arm", 3)));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->revision, 1);
    assert_int_equal(r->body_case, GJKD__V1__RESPONSE__BODY_CHANGE);
    uint32_t id = r->change->id;
    assert_false(r->change->replaced);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* A replace keeps the id and moves the revision. */
    Gjkd__V1__Robot *robot = t_robot(&a, "arm", 4);
    robot->links[3]->parts[0]->shape = t_hull_shape(&a, 100, 0.1);
    r = t_call(svc, t_put_robot(&a, robot));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->revision, 2);
    assert_int_equal(r->change->id, id);
    assert_true(r->change->replaced);
    assert_true(r->change->hull_vertices >= 4 && r->change->hull_vertices <= 100);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* expected_revision: right -> OK, and link poses do not move the revision. */
    Gjkd__V1__Request *req = t_set_poses(&a, "arm", t_link_poses(&a, 4, 0, 0.3));
    req->precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
    req->expected_revision = 2;
    r = t_call(svc, req);
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->revision, 2);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* The summary lists what is there. */
    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_int_equal(r->scene_summary->n_robots, 1);
    assert_string_equal(r->scene_summary->robots[0]->name, "arm");
    assert_int_equal(r->scene_summary->robots[0]->n_links, 4);
    assert_string_equal(r->scene_summary->robots[0]->links[3], "l3");
    assert_int_equal(r->scene_summary->scene->n_robots, 1);
    assert_int_equal(r->scene_summary->scene->robots[0]->n_links, 4);
    gjkd__v1__response__free_unpacked(r, NULL);

    Gjkd__V1__RemoveRobotRequest rm = GJKD__V1__REMOVE_ROBOT_REQUEST__INIT;
    rm.name = "arm";
    req = t_request(&a, 7);
    req->body_case = GJKD__V1__REQUEST__BODY_REMOVE_ROBOT;
    req->remove_robot = &rm;
    r = t_call(svc, req);
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->revision, 3);
    gjkd__v1__response__free_unpacked(r, NULL);
    assert_code(t_call_code(svc, req), GJKD_CODE(NOT_FOUND));
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

static void test_state_query(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);

    /* closest: link l2 (x up to 0.7) to the table (from 1.5) */
    Gjkd__V1__Response *r =
        t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, INFINITY));
    assert_code(r->status->code, GJKD_CODE(OK));
    const Gjkd__V1__StateResult *s = r->state;
    assert_int_equal(s->min_distance_opt_case,
                     GJKD__V1__STATE_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE);
    assert_near(s->min_distance, 0.8, 1e-9);
    assert_non_null(s->closest);
    assert_string_equal(s->closest->body_a->robot, "arm");
    assert_string_equal(s->closest->body_a->link, "l2");
    assert_string_equal(s->closest->body_b->obstacle, "table");
    assert_int_equal(s->closest->link_a_index, 2);
    assert_int_equal(s->closest->link_b_index, -1);
    assert_code(s->closest->status, GJKD_CODE(SEPARATED));
    assert_near(s->closest->normal->x, 1.0, 1e-9);
    assert_near(s->closest->local_point_b->x, -0.5, 1e-9); /* table's near face, table frame */
    check_pair_geometry(s->closest);
    assert_int_equal(s->n_pairs, 0); /* CLOSEST: only the closest */
    assert_false(s->colliding);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* all within 1.5: the three links, closest first */
    r = t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 1.5));
    s = r->state;
    assert_int_equal(s->n_pairs, 3);
    assert_near(s->pairs[0]->distance, 0.8, 1e-9);
    assert_near(s->pairs[1]->distance, 1.1, 1e-9);
    assert_near(s->pairs[2]->distance, 1.4, 1e-9);
    for (size_t i = 0; i < 3; ++i)
        check_pair_geometry(s->pairs[i]);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* within 0.5: nothing reported, min_distance absent */
    r = t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 0.5));
    assert_int_equal(r->state->n_pairs, 0);
    assert_null(r->state->closest);
    assert_int_equal(r->state->min_distance_opt_case,
                     GJKD__V1__STATE_RESULT__MIN_DISTANCE_OPT__NOT_SET);
    gjkd__v1__response__free_unpacked(r, NULL);

    /* into the table by 0.1: penetration depth from EPA, and colliding */
    assert_code(t_call_code(svc, t_set_poses(&a, "arm", t_link_poses(&a, 3, 0.9, 0.3))),
                GJKD_CODE(OK));
    r = t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, INFINITY));
    assert_true(r->state->colliding);
    assert_near(r->state->min_distance, -0.1, 1e-9);
    assert_code(r->state->closest->status, GJKD_CODE(OVERLAPPING));
    check_pair_geometry(r->state->closest);
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION, 0.0));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_true(r->state->colliding);
    gjkd__v1__response__free_unpacked(r, NULL);

    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

static Gjkd__V1__Request *trajectory(gjkd_arena *a, int n, const char *name)
{
    Gjkd__V1__TrajectoryQueryRequest *tq = gjkd_arena_alloc(a, sizeof *tq);
    gjkd__v1__trajectory_query_request__init(tq);
    tq->robot = "arm";
    tq->name = (char *)name;
    tq->n_waypoints = (size_t)n;
    tq->waypoints = gjkd_arena_alloc(a, (size_t)n * sizeof *tq->waypoints);
    for (int w = 0; w < n; ++w) { /* x0 from 0 to 1.0: collides from x0 > 0.8 */
        Gjkd__V1__Waypoint *wp = gjkd_arena_alloc(a, sizeof *wp);
        gjkd__v1__waypoint__init(wp);
        wp->state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
        wp->link_poses = t_link_poses(a, 3, 1.0 * w / (n - 1), 0.3);
        tq->waypoints[w] = wp;
    }
    Gjkd__V1__Request *req = t_request(a, 12);
    req->body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    req->trajectory_query = tq;
    return req;
}

static void test_trajectory_query(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    Gjkd__V1__Response *r = t_call(svc, trajectory(&a, 11, "sweep"));
    assert_code(r->status->code, GJKD_CODE(OK));
    const Gjkd__V1__TrajectoryResult *t = r->trajectory;
    assert_int_equal(t->n_waypoints, 11);
    for (size_t w = 0; w < 11; ++w)
        assert_near(t->waypoints[w]->min_distance, 0.8 - 0.1 * (double)w, 1e-9);
    assert_int_equal(t->first_collision, 8); /* x0 = 0.8: touching */
    assert_int_equal(t->min_waypoint, 10);
    assert_near(t->min_distance, -0.2, 1e-9);
    assert_int_equal(t->colliding_waypoints, 3);
    assert_false(t->trajectory_cache_hit);
    gjkd__v1__response__free_unpacked(r, NULL);
    /* The same name again: warm-started from the cache, same answers. */
    r = t_call(svc, trajectory(&a, 11, "sweep"));
    assert_true(r->trajectory->trajectory_cache_hit);
    assert_near(r->trajectory->min_distance, -0.2, 1e-9);
    gjkd__v1__response__free_unpacked(r, NULL);
    /* Over the waypoint limit. */
    gjkd_limits limits = gjkd_service_limits(svc), tight = limits;
    tight.max_waypoints = 10;
    gjkd_service_set_limits(svc, &tight);
    assert_code(t_call_code(svc, trajectory(&a, 11, "")), GJKD_CODE(RESOURCE_EXHAUSTED));
    gjkd_service_set_limits(svc, &limits);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

static Gjkd__V1__Request *allowed(gjkd_arena *a, const char *link, const char *obstacle)
{
    Gjkd__V1__SetAllowedPairsRequest *m = gjkd_arena_alloc(a, sizeof *m);
    gjkd__v1__set_allowed_pairs_request__init(m);
    if (link != NULL) {
        Gjkd__V1__AllowedPair *p = gjkd_arena_alloc(a, sizeof *p);
        gjkd__v1__allowed_pair__init(p);
        p->a = gjkd_arena_alloc(a, sizeof *p->a);
        gjkd__v1__body_ref__init(p->a);
        p->a->robot = "arm";
        p->a->link = (char *)link;
        p->b = gjkd_arena_alloc(a, sizeof *p->b);
        gjkd__v1__body_ref__init(p->b);
        p->b->obstacle = (char *)obstacle;
        m->n_pairs = 1;
        m->pairs = gjkd_arena_alloc(a, sizeof *m->pairs);
        m->pairs[0] = p;
    }
    Gjkd__V1__Request *req = t_request(a, 13);
    req->body_case = GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS;
    req->set_allowed_pairs = m;
    return req;
}

static double closest_distance(gjkd_service *svc, gjkd_arena *a)
{
    Gjkd__V1__Response *r =
        t_call(svc, t_state_query(a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, INFINITY));
    double d = r->state->min_distance;
    gjkd__v1__response__free_unpacked(r, NULL);
    return d;
}

static void test_allowed_pairs(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    assert_near(closest_distance(svc, &a), 0.8, 1e-9);
    assert_code(t_call_code(svc, allowed(&a, "l2", "table")), GJKD_CODE(OK));
    assert_near(closest_distance(svc, &a), 1.1, 1e-9); /* l2-table is no longer checked */
    assert_code(t_call_code(svc, allowed(&a, "", "table")), GJKD_CODE(OK)); /* every link */
    Gjkd__V1__Response *r =
        t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, INFINITY));
    assert_null(r->state->closest);
    gjkd__v1__response__free_unpacked(r, NULL);
    assert_code(t_call_code(svc, allowed(&a, NULL, NULL)), GJKD_CODE(OK)); /* none */
    assert_near(closest_distance(svc, &a), 0.8, 1e-9);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* set_allowed_pairs with the BodyRef of pair 0 side b replaced by (robot, link, obstacle). */
static Gjkd__V1__Request *allowed_ref(gjkd_arena *a, const char *robot, const char *link,
                                      const char *obstacle)
{
    Gjkd__V1__Request *req = allowed(a, "l2", "table");
    Gjkd__V1__BodyRef *b = req->set_allowed_pairs->pairs[0]->b;
    b->robot = (char *)robot;
    b->link = (char *)link;
    b->obstacle = (char *)obstacle;
    return req;
}

/* Regression: the names inside a BodyRef were looked up but never checked, so a name that no
 * put could have made (invalid UTF-8, a control character, over the length limit) came back
 * as NOT_FOUND, and a link given beside an obstacle was silently ignored. Each now gets its
 * own status naming the field, and the scene stays as it was. */
static void test_allowed_pair_names_checked(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    uint64_t revision = gjkd_service_revision(svc);
    char long_name[300];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    static const struct {
        const char *robot, *link, *obstacle;
        gjkd_code code;
        const char *message;
    } cases[] = {
        {"", "", "tab\xffle", GJKD_CODE(INVALID_ARGUMENT),
         "pairs[0].b.obstacle: name is not valid UTF-8"},
        {"", "", "tab\nle", GJKD_CODE(INVALID_ARGUMENT),
         "pairs[0].b.obstacle: name contains a control character"},
        {"arm\x01", "l2", "", GJKD_CODE(INVALID_ARGUMENT),
         "pairs[0].b.robot: name contains a control character"},
        {"arm", "l\xc3", "", GJKD_CODE(INVALID_ARGUMENT),
         "pairs[0].b.link: name is not valid UTF-8"},
        {"", "l1", "table", GJKD_CODE(INVALID_ARGUMENT),
         "pairs[0].b.link: given with obstacle (a link belongs to a robot)"},
        {"", "", NULL, GJKD_CODE(RESOURCE_EXHAUSTED),
         "pairs[0].b.obstacle: name is 299 bytes, the limit is 255"},
        {"", "", "shelf", GJKD_CODE(NOT_FOUND), "pairs[0].b: no obstacle named 'shelf'"},
        {"arm", "l9", "", GJKD_CODE(NOT_FOUND), "pairs[0].b: robot 'arm' has no link 'l9'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char *obstacle = cases[i].obstacle != NULL ? cases[i].obstacle : long_name;
        Gjkd__V1__Response *r =
            t_call(svc, allowed_ref(&a, cases[i].robot, cases[i].link, obstacle));
        assert_code(r->status->code, cases[i].code);
        assert_string_equal(r->status->message, cases[i].message);
        gjkd__v1__response__free_unpacked(r, NULL);
    }
    assert_int_equal(gjkd_service_revision(svc), revision);
    assert_near(closest_distance(svc, &a), 0.8, 1e-9); /* no pair was allowed */
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* ---------------------------------------------------------------- scene loads */

/* arm (3 links at x = 0, 0.3, 0.6), table (faces at 1.5), box (half 0.1 at x = -3) and the
 * allowed pair arm/l2-table: the closest pair is l1-table at 1.1 (0.8 without the pair). */
static gjkd_service *load_base(gjkd_arena *a)
{
    gjkd_service *svc = make_scene(a, 0.0);
    assert_code(t_call_code(svc, t_put_obstacle(a, t_obstacle(a, "box", 0.1, -3.0))),
                GJKD_CODE(OK));
    assert_code(t_call_code(svc, allowed(a, "l2", "table")), GJKD_CODE(OK));
    assert_near(closest_distance(svc, a), 1.1, 1e-9);
    return svc;
}

/* What a refused change must leave as it was: the scene as stored and summarised, the
 * revision, the ids, and the world's answer (allowed pairs and link poses in force). */
typedef struct scene_state {
    char *fingerprint;
    size_t size;
    uint64_t revision;
    uint32_t ids[16];
    size_t n_ids;
    double closest;
} scene_state;

static scene_state state_of(gjkd_service *svc, gjkd_arena *a)
{
    scene_state st;
    memset(&st, 0, sizeof st);
    st.fingerprint = t_scene_fingerprint(svc, &st.size);
    st.revision = gjkd_service_revision(svc);
    Gjkd__V1__Response *r = t_call(svc, t_simple(a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    for (size_t i = 0; i < r->scene_summary->n_robots && st.n_ids < 16; ++i)
        st.ids[st.n_ids++] = r->scene_summary->robots[i]->id;
    for (size_t i = 0; i < r->scene_summary->n_obstacles && st.n_ids < 16; ++i)
        st.ids[st.n_ids++] = r->scene_summary->obstacles[i]->id;
    gjkd__v1__response__free_unpacked(r, NULL);
    st.closest = closest_distance(svc, a);
    return st;
}

static void assert_same_state(const scene_state *before, const scene_state *after)
{
    assert_int_equal(after->revision, before->revision);
    assert_int_equal(after->size, before->size);
    assert_memory_equal(after->fingerprint, before->fingerprint, before->size);
    assert_int_equal(after->n_ids, before->n_ids);
    assert_memory_equal(after->ids, before->ids, before->n_ids * sizeof before->ids[0]);
    assert_near(after->closest, before->closest, 1e-12);
}

/* Regression (issue 19/22): gjkctl load sent one put per body and then the allowed pairs, so a
 * document whose allowed pairs named a missing body had already replaced every body (and kept
 * the old allowed pairs in force); a bad body in the middle left the bodies before it put. A
 * load is now one request, validated whole before anything changes: each refusal below has
 * its own status and message naming the element, and leaves scene, ids, revision, allowed
 * pairs and link poses exactly as they were. */
static void test_load_scene_refused_unchanged(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = load_base(&a);
    Gjkd__V1__Robot *arm4 = t_robot(&a, "arm", 4);
    Gjkd__V1__Obstacle *table = t_obstacle(&a, "table", 0.5, 2.0);
    Gjkd__V1__Obstacle *shelf = t_obstacle(&a, "shelf", 0.5, 5.0);
    Gjkd__V1__Obstacle *bad = t_obstacle(&a, "bad", 0.1, 1.0);
    bad->pose->position->z = NAN;
    Gjkd__V1__AllowedPair *self = t_allowed_pair(&a, "", "", "table", NULL);
    self->a->obstacle = "table";
    Gjkd__V1__AllowedPair *ok_pair = t_allowed_pair(&a, "arm", "l3", "shelf", NULL);
    Gjkd__V1__AllowedPair *ghost = t_allowed_pair(&a, "arm", "l0", "ghost", NULL);
    Gjkd__V1__AllowedPair *to_box = t_allowed_pair(&a, "arm", "", "box", NULL);
    Gjkd__V1__AllowedPair *no_link = t_allowed_pair(&a, "arm", "l9", "table", NULL);
    Gjkd__V1__AllowedPair *bad_name = t_allowed_pair(&a, "arm", "l0", "tab\nle", NULL);
    Gjkd__V1__Robot *robots[] = {arm4};
    Gjkd__V1__Obstacle *with_shelf[] = {table, shelf};
    Gjkd__V1__Obstacle *bad_middle[] = {shelf, bad, table};
    Gjkd__V1__Obstacle *twice[] = {table, shelf, table};
    Gjkd__V1__AllowedPair *ghost_pairs[] = {ok_pair, ghost};
    struct {
        Gjkd__V1__Scene *scene;
        bool merge;
        gjkd_code code;
        const char *message;
    } cases[] = {
        {t_scene(&a, robots, 1, with_shelf, 2, ghost_pairs, 2), false, GJKD_CODE(NOT_FOUND),
         "allowed_pairs[1].b: no obstacle named 'ghost'"},
        {t_scene(&a, robots, 1, with_shelf, 2, ghost_pairs, 2), true, GJKD_CODE(NOT_FOUND),
         "allowed_pairs[1].b: no obstacle named 'ghost'"},
        /* Without merge the scene is the document's: box is not in it. */
        {t_scene(&a, robots, 1, with_shelf, 2, &to_box, 1), false, GJKD_CODE(NOT_FOUND),
         "allowed_pairs[0].b: no obstacle named 'box'"},
        {t_scene(&a, robots, 1, with_shelf, 2, &no_link, 1), false, GJKD_CODE(NOT_FOUND),
         "allowed_pairs[0].a: robot 'arm' has no link 'l9'"},
        {t_scene(&a, robots, 1, with_shelf, 2, &bad_name, 1), false, GJKD_CODE(INVALID_ARGUMENT),
         "allowed_pairs[0].b.obstacle: name contains a control character"},
        {t_scene(&a, robots, 1, with_shelf, 2, &self, 1), false, GJKD_CODE(INVALID_ARGUMENT),
         "allowed_pairs[0]: a body paired with itself"},
        {t_scene(&a, robots, 1, bad_middle, 3, NULL, 0), false, GJKD_CODE(INVALID_INPUT),
         "obstacles[1] \"bad\": obstacle.pose.position: not finite or beyond 1e+12 m"},
        {t_scene(&a, robots, 1, bad_middle, 3, NULL, 0), true, GJKD_CODE(INVALID_INPUT),
         "obstacles[1] \"bad\": obstacle.pose.position: not finite or beyond 1e+12 m"},
        {t_scene(&a, robots, 1, twice, 3, NULL, 0), false, GJKD_CODE(INVALID_ARGUMENT),
         "obstacles[2] \"table\": duplicate name (also obstacles[0])"},
    };
    scene_state before = state_of(svc, &a);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        Gjkd__V1__Response *r = t_call(svc, t_load_scene(&a, cases[i].scene, cases[i].merge));
        assert_code(r->status->code, cases[i].code);
        if (strncmp(r->status->message, cases[i].message, strlen(cases[i].message)) != 0) {
            print_error("case %zu: message '%s', expected '%s...'\n", i, r->status->message,
                        cases[i].message);
            fail();
        }
        assert_int_equal(r->revision, before.revision);
        assert_int_equal(r->body_case, GJKD__V1__RESPONSE__BODY__NOT_SET);
        gjkd__v1__response__free_unpacked(r, NULL);
        scene_state after = state_of(svc, &a);
        assert_same_state(&before, &after);
        free(after.fingerprint);
    }

    /* Limits: the document's own count, and what a merge would add to the live scene. */
    gjkd_limits limits = gjkd_service_limits(svc), tight = limits;
    tight.max_obstacles = 2;
    gjkd_service_set_limits(svc, &tight);
    Gjkd__V1__Response *r =
        t_call(svc, t_load_scene(&a, t_scene(&a, NULL, 0, twice, 3, NULL, 0), false));
    assert_code(r->status->code, GJKD_CODE(RESOURCE_EXHAUSTED));
    assert_string_equal(r->status->message, "obstacles: the document has 3, the limit is 2");
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_load_scene(&a, t_scene(&a, NULL, 0, &shelf, 1, NULL, 0), true));
    assert_code(r->status->code, GJKD_CODE(RESOURCE_EXHAUSTED));
    assert_string_equal(r->status->message,
                        "obstacles: the scene has 2 and the document adds 1, the limit is 2");
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_set_limits(svc, &limits);

    /* The revision precondition, and a request without a scene. */
    Gjkd__V1__Request *req =
        t_load_scene(&a, t_scene(&a, robots, 1, with_shelf, 2, NULL, 0), false);
    req->precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
    req->expected_revision = before.revision + 1;
    assert_code(t_call_code(svc, req), GJKD_CODE(FAILED_PRECONDITION));
    assert_code(t_call_code(svc, t_load_scene(&a, NULL, false)), GJKD_CODE(INVALID_ARGUMENT));
    scene_state after = state_of(svc, &a);
    assert_same_state(&before, &after);
    free(after.fingerprint);

    /* The right revision: accepted. */
    req->expected_revision = before.revision;
    assert_code(t_call_code(svc, req), GJKD_CODE(OK));
    assert_int_equal(gjkd_service_revision(svc), before.revision + 1);
    free(before.fingerprint);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* Without merge the scene becomes exactly the document, in one revision step: bodies it does
 * not name are removed, its allowed pairs replace the list, bodies of the same name keep their
 * ids, new ones get new ids. */
static void test_load_scene_replaces(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = load_base(&a);
    scene_state before = state_of(svc, &a); /* ids: arm, table, box */
    Gjkd__V1__Robot *robots[] = {t_robot(&a, "arm", 4)};
    Gjkd__V1__Obstacle *rock = t_obstacle(&a, "rock", 0.1, -5.0);
    rock->parts[0]->shape = t_hull_shape(&a, 60, 0.1);
    Gjkd__V1__Obstacle *obstacles[] = {t_obstacle(&a, "shelf", 0.5, 5.0), rock,
                                       t_obstacle(&a, "table", 0.5, 2.0)};
    Gjkd__V1__AllowedPair *pairs[] = {t_allowed_pair(&a, "arm", "", "table", NULL)};
    Gjkd__V1__Scene *doc = t_scene(&a, robots, 1, obstacles, 3, pairs, 1);
    Gjkd__V1__Response *r = t_call(svc, t_load_scene(&a, doc, false));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->revision, before.revision + 1);
    assert_int_equal(r->body_case, GJKD__V1__RESPONSE__BODY_CHANGE);
    assert_int_equal(r->change->id, 0);
    assert_true(r->change->replaced);
    assert_true(r->change->hull_vertices >= 4 && r->change->hull_vertices <= 60);
    gjkd__v1__response__free_unpacked(r, NULL);

    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    const Gjkd__V1__SceneSummary *sum = r->scene_summary;
    assert_int_equal(sum->n_robots, 1);
    assert_int_equal(sum->robots[0]->id, before.ids[0]);
    assert_int_equal(sum->robots[0]->n_links, 4);
    assert_int_equal(sum->n_obstacles, 3); /* by id: table (kept), shelf, rock (new) */
    assert_string_equal(sum->obstacles[0]->name, "table");
    assert_int_equal(sum->obstacles[0]->id, before.ids[1]);
    assert_string_equal(sum->obstacles[1]->name, "shelf");
    assert_string_equal(sum->obstacles[2]->name, "rock");
    assert_true(sum->obstacles[1]->id > before.ids[2] && sum->obstacles[2]->id > before.ids[2]);
    assert_int_equal(sum->allowed_pairs, 1);
    /* What is stored is the document itself, in its order. */
    doc->revision = r->revision;
    size_t n = gjkd__v1__scene__get_packed_size(doc);
    assert_int_equal(gjkd__v1__scene__get_packed_size(sum->scene), n);
    uint8_t *want = malloc(n), *got = malloc(n);
    gjkd__v1__scene__pack(doc, want);
    gjkd__v1__scene__pack(sum->scene, got);
    assert_memory_equal(got, want, n);
    free(want);
    free(got);
    gjkd__v1__response__free_unpacked(r, NULL);
    /* The world agrees: the arm was replaced (link poses reset to the origin), every link may
     * touch the table, so the closest pair is a link and the shelf (faces at 4.5). */
    assert_near(closest_distance(svc, &a), 4.4, 1e-9);

    /* An empty document empties the scene. */
    r = t_call(svc, t_load_scene(&a, t_scene(&a, NULL, 0, NULL, 0, NULL, 0), false));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_false(r->change->replaced);
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_int_equal(r->scene_summary->n_robots + r->scene_summary->n_obstacles, 0);
    assert_int_equal(r->scene_summary->allowed_pairs, 0);
    assert_int_equal(r->revision, before.revision + 2);
    gjkd__v1__response__free_unpacked(r, NULL);
    free(before.fingerprint);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* With merge the document's bodies add or replace by name and the others stay as they were,
 * link poses included; the allowed pairs are replaced only by a document that has some. */
static void test_load_scene_merge(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = load_base(&a);
    scene_state before = state_of(svc, &a); /* ids: arm, table, box */
    /* table moved to x = 3 (faces at 2.5), ball far away. */
    Gjkd__V1__Obstacle *obstacles[] = {t_obstacle(&a, "table", 0.5, 3.0),
                                       t_obstacle(&a, "ball", 0.1, -4.0)};
    Gjkd__V1__Response *r =
        t_call(svc, t_load_scene(&a, t_scene(&a, NULL, 0, obstacles, 2, NULL, 0), true));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->revision, before.revision + 1);
    assert_true(r->change->replaced);
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    const Gjkd__V1__SceneSummary *sum = r->scene_summary;
    assert_int_equal(sum->n_robots, 1);
    assert_int_equal(sum->robots[0]->id, before.ids[0]);
    assert_int_equal(sum->n_obstacles, 3);
    assert_int_equal(sum->obstacles[0]->id, before.ids[1]); /* table */
    assert_int_equal(sum->obstacles[1]->id, before.ids[2]); /* box */
    assert_string_equal(sum->obstacles[2]->name, "ball");
    assert_int_equal(sum->allowed_pairs, 1);
    /* Stored as a put would: replaced in place, new ones after. */
    assert_int_equal(sum->scene->n_obstacles, 3);
    assert_string_equal(sum->scene->obstacles[0]->name, "table");
    assert_string_equal(sum->scene->obstacles[1]->name, "box");
    assert_string_equal(sum->scene->obstacles[2]->name, "ball");
    assert_near(sum->scene->obstacles[0]->pose->position->x, 3.0, 0.0);
    gjkd__v1__response__free_unpacked(r, NULL);
    /* Link poses kept (l1 ends at 0.4: 2.1 to the table; reset to the origin it would be 2.4)
     * and arm/l2-table still allowed (l2 ends at 0.7: 1.8). */
    assert_near(closest_distance(svc, &a), 2.1, 1e-9);

    /* A document with allowed pairs replaces the list. */
    Gjkd__V1__AllowedPair *pairs[] = {t_allowed_pair(&a, "arm", "", "ball", NULL)};
    r = t_call(svc, t_load_scene(&a, t_scene(&a, NULL, 0, NULL, 0, pairs, 1), true));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_int_equal(r->revision, before.revision + 2);
    assert_false(r->change->replaced);
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_int_equal(r->scene_summary->allowed_pairs, 1);
    assert_string_equal(r->scene_summary->scene->allowed_pairs[0]->b->obstacle, "ball");
    gjkd__v1__response__free_unpacked(r, NULL);
    assert_near(closest_distance(svc, &a), 1.8, 1e-9); /* l2-table checked again */
    free(before.fingerprint);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

static uint8_t *pack_scene_doc(const Gjkd__V1__Scene *scene, size_t *size)
{
    *size = gjkd__v1__scene__get_packed_size(scene);
    uint8_t *buf = malloc(*size + 1);
    gjkd__v1__scene__pack(scene, buf);
    return buf;
}

/* Regression: the scene loaded at start (gjkd_service_load_scene: a snapshot, --scene, --demo)
 * was applied body by body and, on a failure, fell back to an EMPTY scene instead of the one
 * it had; and a good one was merged into it. It now goes through the same one-change load. */
static void test_load_scene_at_start(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = load_base(&a);
    scene_state before = state_of(svc, &a);
    Gjkd__V1__Obstacle *bad = t_obstacle(&a, "bad", 0.1, 1.0);
    bad->pose->orientation = gjkd_arena_alloc(&a, sizeof *bad->pose->orientation);
    gjkd__v1__quaternion__init(bad->pose->orientation); /* all zero: invalid */
    Gjkd__V1__Robot *robots[] = {t_robot(&a, "arm", 2)};
    Gjkd__V1__Obstacle *obstacles[] = {t_obstacle(&a, "shelf", 0.5, 5.0), bad};
    Gjkd__V1__Scene *scene = t_scene(&a, robots, 1, obstacles, 2, NULL, 0);
    scene->revision = 40;
    size_t n;
    uint8_t *buf = pack_scene_doc(scene, &n);
    gjkd_error e;
    assert_false(gjkd_service_load_scene(svc, buf, n, false, &e));
    assert_code(e.code, GJKD_CODE(INVALID_INPUT));
    assert_non_null(strstr(e.message, "obstacles[1] \"bad\""));
    free(buf);
    scene_state after = state_of(svc, &a);
    assert_same_state(&before, &after);
    free(after.fingerprint);

    /* Without the bad obstacle: the scene is exactly the file's, at its revision. */
    scene->n_obstacles = 1;
    buf = pack_scene_doc(scene, &n);
    assert_true(gjkd_service_load_scene(svc, buf, n, false, &e));
    free(buf);
    assert_int_equal(gjkd_service_revision(svc), 40);
    Gjkd__V1__Response *r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_int_equal(r->scene_summary->n_robots, 1);
    assert_int_equal(r->scene_summary->robots[0]->n_links, 2);
    assert_int_equal(r->scene_summary->n_obstacles, 1);
    assert_string_equal(r->scene_summary->obstacles[0]->name, "shelf");
    assert_int_equal(r->scene_summary->allowed_pairs, 0);
    gjkd__v1__response__free_unpacked(r, NULL);
    free(before.fingerprint);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* A load that changes geometry drops the named trajectories: the next query of a name is cold
 * and sees the new geometry. */
static void test_load_scene_drops_trajectories(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    Gjkd__V1__Response *r = t_call(svc, trajectory(&a, 11, "sweep"));
    assert_code(r->status->code, GJKD_CODE(OK));
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_STATS));
    assert_int_equal(r->stats->trajectories_cached, 1);
    gjkd__v1__response__free_unpacked(r, NULL);

    Gjkd__V1__Obstacle *moved[] = {t_obstacle(&a, "table", 0.5, 3.0)}; /* faces at 2.5 */
    assert_code(t_call_code(svc, t_load_scene(&a, t_scene(&a, NULL, 0, moved, 1, NULL, 0), true)),
                GJKD_CODE(OK));
    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_STATS));
    assert_int_equal(r->stats->trajectories_cached, 0);
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, trajectory(&a, 11, "sweep"));
    assert_code(r->status->code, GJKD_CODE(OK));
    assert_false(r->trajectory->trajectory_cache_hit);
    for (size_t w = 0; w < 11; ++w) /* l2 ends at x0 + 0.7 */
        assert_near(r->trajectory->waypoints[w]->min_distance, 1.8 - 0.1 * (double)w, 1e-9);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

static void test_stats_counters(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    assert_code(t_call_code(svc, t_set_poses(&a, "ghost", t_link_poses(&a, 3, 0, 0))),
                GJKD_CODE(NOT_FOUND));
    Gjkd__V1__Response *r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_STATS));
    const Gjkd__V1__StatsResponse *st = r->stats;
    assert_int_equal(st->revision, 2);
    assert_int_equal(st->robots, 1);
    assert_int_equal(st->obstacles, 1);
    assert_int_equal(st->requests, 5); /* stats itself included */
    bool seen = false;
    for (size_t i = 0; i < st->n_commands; ++i) {
        if (strcmp(st->commands[i]->name, "set_link_poses") == 0) {
            assert_int_equal(st->commands[i]->calls, 2);
            assert_int_equal(st->commands[i]->errors, 1);
            seen = true;
        }
    }
    assert_true(seen);
    assert_int_equal(st->n_errors, 1);
    assert_code(st->errors[0]->code, GJKD_CODE(NOT_FOUND));
    assert_int_equal(st->errors[0]->count, 1);
    assert_int_equal(st->limits->max_points_per_part, 10000);
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_HEALTH));
    assert_int_equal(r->health->state, GJKD__V1__SERVING_STATE__SERVING_STATE_SERVING);
    assert_int_equal(r->health->revision, 2);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

static void test_pose_stream(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    Gjkd__V1__PoseUpdate u = GJKD__V1__POSE_UPDATE__INIT;
    Gjkd__V1__Request *req = t_set_poses(&a, "arm", t_link_poses(&a, 3, 0.5, 0.3));
    u.sequence = 42;
    u.n_robots = 1;
    u.robots = req->set_link_poses->robots;
    size_t n = gjkd__v1__pose_update__get_packed_size(&u);
    uint8_t *buf = malloc(n);
    gjkd__v1__pose_update__pack(&u, buf);
    uint64_t seq = 0;
    gjkd_error e;
    assert_true(gjkd_service_pose_update(svc, buf, n, &seq, &e));
    assert_int_equal(seq, 42);
    assert_false(gjkd_service_pose_update(svc, buf, n / 2, &seq, &e));
    assert_code(e.code, GJKD_CODE(MALFORMED));
    free(buf);
    uint8_t *ev;
    size_t ev_size;
    assert_true(gjkd_service_monitor_event(svc, seq, &ev, &ev_size));
    Gjkd__V1__MonitorEvent *m = gjkd__v1__monitor_event__unpack(NULL, ev_size, ev);
    assert_non_null(m);
    assert_int_equal(m->sequence, 42);
    assert_int_equal(m->revision, 2);
    assert_near(m->state->min_distance, 0.3, 1e-9);
    gjkd__v1__monitor_event__free_unpacked(m, NULL);
    free(ev);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* Several threads at once: queries, pose updates, scene changes and loads interleave; every
 * reply is OK and carries its own request id (run under TSan too). */
typedef struct worker_arg {
    gjkd_service *svc;
    int index;
    int failures;
} worker_arg;

static void *hammer(void *p)
{
    worker_arg *w = p;
    gjkd_arena a = {0};
    for (int i = 0; i < 60; ++i) {
        Gjkd__V1__Request *req;
        switch ((i + w->index) % 5) {
        case 0:
            req = t_set_poses(&a, "arm", t_link_poses(&a, 3, 0.01 * i, 0.3));
            break;
        case 1: {
            char name[32];
            snprintf(name, sizeof name, "box-%d", w->index);
            req = t_put_obstacle(&a, t_obstacle(&a, name, 0.05, 3.0 + 0.01 * i));
            break;
        }
        case 2:
            req = trajectory(&a, 5, w->index % 2 ? "shared" : "");
            break;
        case 3: { /* a merged load of two obstacles, one of them another thread's too */
            char name[32];
            snprintf(name, sizeof name, "load-%d", w->index);
            Gjkd__V1__Obstacle *o[] = {t_obstacle(&a, name, 0.05, -3.0 - 0.01 * i),
                                       t_obstacle(&a, "load-shared", 0.05, -4.0)};
            req = t_load_scene(&a, t_scene(&a, NULL, 0, o, 2, NULL, 0), true);
            break;
        }
        default:
            req = t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 2.0);
            break;
        }
        req->request_id = (uint64_t)(1000 * w->index + i);
        Gjkd__V1__Response *r = t_call(w->svc, req);
        if (r->status->code != GJKD_CODE(OK) || r->request_id != req->request_id)
            w->failures++;
        gjkd__v1__response__free_unpacked(r, NULL);
    }
    gjkd_arena_free(&a);
    return NULL;
}

static void test_concurrent_clients(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    pthread_t threads[4];
    worker_arg args[4];
    for (int i = 0; i < 4; ++i) {
        args[i] = (worker_arg){svc, i, 0};
        pthread_create(&threads[i], NULL, hammer, &args[i]);
    }
    for (int i = 0; i < 4; ++i) {
        pthread_join(threads[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

/* Regression: the decoder kept built polytopes in a growing array that shapes pointed into;
 * a body with more than 8 hull parts reallocated it and left earlier shapes dangling (found
 * by the clients' demo arm; ASan reports the use after free). */
static void test_many_hull_parts(void **state)
{
    (void)state;
    gjkd_arena a = {0};
    gjkd_service *svc = make_scene(&a, 0.0);
    Gjkd__V1__Obstacle *o = t_obstacle(&a, "rocks", 0.1, 0.0);
    o->n_parts = 20;
    o->parts = gjkd_arena_alloc(&a, 20 * sizeof *o->parts);
    for (int i = 0; i < 20; ++i) {
        o->parts[i] = t_part(&a, t_hull_shape(&a, 50, 0.1));
        o->parts[i]->pose = t_pose(&a, 0.0, 0.8 + 0.5 * i, 0.0);
    }
    assert_code(t_call_code(svc, t_put_obstacle(&a, o)), GJKD_CODE(OK));
    Gjkd__V1__Response *r =
        t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 1.0));
    assert_code(r->status->code, GJKD_CODE(OK));
    /* rock 0 at y = 0.8 (radius <= 0.1) is nearest to link l0 (y up to 0.1): ~0.6 */
    assert_string_equal(r->state->closest->body_b->obstacle, "rocks");
    assert_int_equal(r->state->closest->part_b_index, 0);
    assert_true(r->state->min_distance > 0.599 && r->state->min_distance < 0.62);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

static void test_demo_scene(void **state)
{
    (void)state;
    gjkd_service *svc = t_service(NULL);
    gjkd_error e;
    if (!gjkd_demo_load(svc, &e)) {
        /* Built without examples/demo/scene.json or gjkd_json: say so, and skip. */
        assert_code(e.code, GJKD_CODE(UNIMPLEMENTED));
        gjkd_service_destroy(&svc);
        skip();
    }
    gjkd_arena a = {0};
    Gjkd__V1__Response *r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_true(r->scene_summary->n_robots >= 1);
    assert_true(r->scene_summary->n_obstacles >= 3);
    gjkd__v1__response__free_unpacked(r, NULL);
    r = t_call(svc, t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST, INFINITY));
    assert_code(r->status->code, GJKD_CODE(OK));
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_service_destroy(&svc);
    gjkd_arena_free(&a);
}

int main(void)
{
    gjkd_log_set_level(GJKD_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_changes_and_revisions),
        cmocka_unit_test(test_state_query),
        cmocka_unit_test(test_trajectory_query),
        cmocka_unit_test(test_allowed_pairs),
        cmocka_unit_test(test_allowed_pair_names_checked),
        cmocka_unit_test(test_load_scene_refused_unchanged),
        cmocka_unit_test(test_load_scene_replaces),
        cmocka_unit_test(test_load_scene_merge),
        cmocka_unit_test(test_load_scene_at_start),
        cmocka_unit_test(test_load_scene_drops_trajectories),
        cmocka_unit_test(test_stats_counters),
        cmocka_unit_test(test_pose_stream),
        cmocka_unit_test(test_concurrent_clients),
        cmocka_unit_test(test_many_hull_parts),
        cmocka_unit_test(test_demo_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
