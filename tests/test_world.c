/* test_world.c — the world API on small scenes with distances known in closed form: ids,
 * names, revisions, allowed pairs, self-collision, padding, modes, trajectories, the named
 * cache under changes, and bad input leaving the world exactly as it was. */
#include "test_world_util.h"

/* The arm: three unit-ish boxes (half 0.1) along x at 0, 0.25, 0.5 (gaps 0.05 between
 * neighbours). Obstacles: "wall" (half 0.1 x 1 x 1) at x = 0.9, 0.2 from link2; "post" (half
 * 0.05) at (0, 0.3, 0), 0.15 from link0. */
static const char *link_names[3] = {"link0", "link1", "link2"};

static gjk_part_def arm_parts[3];
static gjk_link_def arm_links[3];

static gjk_robot_def arm_def(bool self)
{
    for (int l = 0; l < 3; ++l) {
        arm_parts[l] = tw_box_part(0.1, 0.1, 0.1, gjk_v3(0, 0, 0));
        arm_parts[l].name = "box";
        memset(&arm_links[l], 0, sizeof arm_links[l]);
        arm_links[l].name = link_names[l];
        arm_links[l].parts = &arm_parts[l];
        arm_links[l].part_count = 1;
    }
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "arm";
    def.links = arm_links;
    def.link_count = 3;
    def.self_collision = self;
    return def;
}

static const gjk_transform *arm_poses(void)
{
    static gjk_transform p[3];
    for (int l = 0; l < 3; ++l)
        p[l] = tw_at(0.25 * l, 0, 0);
    return p;
}

static gjk_part_def wall_part, post_part;

static gjk_obstacle_def box_obstacle(const char *name, gjk_part_def *part, gjk_vec3 half,
                                     gjk_vec3 at)
{
    *part = tw_box_part(half.x, half.y, half.z, gjk_v3(0, 0, 0));
    gjk_obstacle_def def;
    memset(&def, 0, sizeof def);
    def.name = name;
    def.parts = part;
    def.part_count = 1;
    def.pose = tw_at(at.x, at.y, at.z);
    return def;
}

typedef struct fixture {
    gjk_world *w;
    int32_t arm, wall, post;
} fixture;

static void make_fixture(fixture *f, bool self)
{
    assert_ok(gjk_world_create(NULL, &f->w));
    gjk_robot_def def = arm_def(self);
    def.link_poses = arm_poses();
    assert_ok(gjk_world_put_robot(f->w, &def, &f->arm));
    gjk_obstacle_def wall = box_obstacle("wall", &wall_part, gjk_v3(0.1, 1, 1), gjk_v3(0.9, 0, 0));
    assert_ok(gjk_world_put_obstacle(f->w, &wall, &f->wall));
    gjk_obstacle_def post =
        box_obstacle("post", &post_part, gjk_v3(0.05, 0.05, 0.05), gjk_v3(0, 0.3, 0));
    assert_ok(gjk_world_put_obstacle(f->w, &post, &f->post));
}

static gjk_world_result *query(const gjk_world *w, gjk_world_mode mode, uint32_t pairs,
                               double max_distance)
{
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = mode;
    opt.pairs = pairs;
    opt.has_max_distance = max_distance < HUGE_VAL; /* HUGE_VAL: the default, no cutoff */
    opt.max_distance = max_distance;
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_non_null(r);
    return r;
}

/* The pair between link `link` of the arm and body b, or NULL. */
static const gjk_world_pair *find_pair(const gjk_world_waypoint *wp, int32_t link, gjk_body_id b)
{
    for (int32_t i = 0; i < wp->pair_count; ++i) {
        const gjk_world_pair *p = &wp->pairs[i];
        if (p->a.body.link == link && p->b.body.kind == b.kind && p->b.body.object == b.object &&
            (b.kind == GJK_BODY_OBSTACLE || p->b.body.link == b.link))
            return p;
    }
    return NULL;
}

static void test_ids_names_revisions(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    assert_int_equal(f.arm, 1);
    assert_int_equal(f.wall, 1);
    assert_int_equal(f.post, 2);
    assert_int_equal(gjk_world_revision(f.w), 3);
    assert_int_equal(gjk_world_pose_revision(f.w), 0);

    int32_t id = 0;
    assert_ok(gjk_world_find_robot(f.w, "arm", &id));
    assert_int_equal(id, f.arm);
    assert_ok(gjk_world_find_link(f.w, f.arm, "link2", &id));
    assert_int_equal(id, 2);
    assert_ok(gjk_world_find_obstacle(f.w, "post", &id));
    assert_int_equal(id, f.post);
    assert_status(gjk_world_find_obstacle(f.w, "nope", &id), GJK_STATUS_NOT_FOUND);
    assert_status(gjk_world_find_link(f.w, f.arm, "nope", &id), GJK_STATUS_NOT_FOUND);
    assert_status(gjk_world_find_robot(f.w, "nope", &id), GJK_STATUS_NOT_FOUND);

    /* replace keeps the id; a removed id is never reused */
    gjk_obstacle_def wall = box_obstacle("wall", &wall_part, gjk_v3(0.1, 1, 1), gjk_v3(1.0, 0, 0));
    assert_ok(gjk_world_put_obstacle(f.w, &wall, &id));
    assert_int_equal(id, f.wall);
    assert_int_equal(gjk_world_revision(f.w), 4);
    assert_ok(gjk_world_remove_obstacle(f.w, f.post));
    assert_int_equal(gjk_world_revision(f.w), 5);
    gjk_obstacle_def post =
        box_obstacle("post", &post_part, gjk_v3(0.05, 0.05, 0.05), gjk_v3(0, 0.3, 0));
    assert_ok(gjk_world_put_obstacle(f.w, &post, &id));
    assert_int_equal(id, 3);
    int32_t ids[4];
    assert_int_equal(gjk_world_obstacle_ids(f.w, ids, 4), 2);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 3);
    assert_int_equal(gjk_world_robot_ids(f.w, ids, 0), 1);

    gjk_obstacle_info oi;
    assert_ok(gjk_world_obstacle_info(f.w, 3, &oi));
    assert_string_equal(oi.name, "post");
    assert_int_equal(oi.part_count, 1);
    gjk_robot_info ri;
    assert_ok(gjk_world_robot_info(f.w, f.arm, &ri));
    assert_string_equal(ri.name, "arm");
    assert_int_equal(ri.link_count, 3);
    gjk_link_info li;
    assert_ok(gjk_world_link_info(f.w, f.arm, 1, &li));
    assert_string_equal(li.name, "link1");
    assert_near(li.pose.p.x, 0.25, 0.0);

    /* link poses are state: pose revision only */
    uint64_t rev = gjk_world_revision(f.w);
    assert_ok(gjk_world_set_link_poses(f.w, f.arm, arm_poses(), 3));
    assert_int_equal(gjk_world_revision(f.w), rev);
    assert_int_equal(gjk_world_pose_revision(f.w), 1);

    gjk_world_info info;
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.robot_count, 1);
    assert_int_equal(info.obstacle_count, 2);
    assert_int_equal(info.part_count, 5);
    assert_ok(gjk_world_remove_robot(f.w, f.arm));
    assert_status(gjk_world_remove_robot(f.w, f.arm), GJK_STATUS_NOT_FOUND);
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.part_count, 2);
    gjk_world_destroy(&f.w);
    assert_null(f.w);
    gjk_world_destroy(&f.w); /* safe on NULL */
    gjk_world_destroy(NULL);
}

static void test_state_distances_and_witnesses(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    gjk_world_result *r =
        query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, HUGE_VAL);
    const gjk_world_waypoint *wp = &r->waypoints[0];
    assert_int_equal(wp->pair_count, 6);
    assert_true(wp->evaluated);
    assert_false(wp->collision);
    /* sorted by distance: post-link0 0.15, post-link1 sqrt(0.1^2 + 0.15^2), wall-link2 0.2 */
    assert_near(wp->pairs[0].distance, 0.15, 1e-12);
    assert_near(wp->pairs[1].distance, sqrt(0.01 + 0.0225), 1e-12);
    assert_near(wp->pairs[2].distance, 0.2, 1e-12);
    assert_near(wp->min_distance, 0.15, 1e-12);
    assert_near(r->min_distance, 0.15, 1e-12);
    assert_int_equal(r->min_waypoint, 0);
    assert_int_equal(r->first_collision, -1);
    assert_int_equal(wp->counters.pairs_possible, 6);

    const gjk_world_pair *p = find_pair(wp, 2, gjk_obstacle_body(f.wall));
    assert_non_null(p);
    assert_string_equal(p->a.object_name, "arm");
    assert_string_equal(p->a.body_name, "link2");
    assert_string_equal(p->a.part_name, "box");
    assert_string_equal(p->b.object_name, "wall");
    assert_string_equal(p->b.body_name, "wall");
    assert_string_equal(p->b.part_name, "");
    assert_int_equal(p->a.body.kind, GJK_BODY_LINK);
    assert_int_equal(p->a.body.object, f.arm);
    assert_int_equal(p->b.body.kind, GJK_BODY_OBSTACLE);
    assert_int_equal(p->status, GJK_STATUS_SEPARATED);
    /* normal from A (link2) towards B (the wall): +x; witnesses on the facing faces */
    assert_near(p->normal.x, 1.0, 1e-12);
    assert_near(p->a.point.x, 0.6, 1e-12);
    assert_near(p->b.point.x, 0.8, 1e-12);
    assert_near(p->a.local_point.x, 0.1, 1e-12);  /* link2 frame at x = 0.5 */
    assert_near(p->b.local_point.x, -0.1, 1e-12); /* wall frame at x = 0.9 */
    assert_near(p->a.point.y, p->b.point.y, 1e-12);
    gjk_world_result_destroy(&r);

    /* max_distance: only pairs within reach; CLOSEST: only the nearest */
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, 0.19);
    assert_int_equal(r->waypoints[0].pair_count, 2);
    gjk_world_result_destroy(&r);
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, 0.1);
    assert_int_equal(r->waypoints[0].pair_count, 0);
    assert_true(isinf(r->waypoints[0].min_distance));
    assert_true(isinf(r->min_distance));
    assert_int_equal(r->min_waypoint, -1);
    gjk_world_result_destroy(&r);
    r = query(f.w, GJK_WORLD_MODE_CLOSEST, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 1);
    assert_near(r->waypoints[0].pairs[0].distance, 0.15, 1e-12);
    assert_int_equal(r->waypoints[0].pairs[0].b.body.object, f.post);
    gjk_world_result_destroy(&r);

    /* max_pairs keeps the nearest */
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.max_pairs = 2;
    assert_ok(gjk_world_query_state(f.w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 2);
    assert_true(r->waypoints[0].truncated);
    assert_near(r->waypoints[0].pairs[0].distance, 0.15, 1e-12);
    gjk_world_result_destroy(&r);
    gjk_world_result_destroy(&r); /* safe on NULL */
    gjk_world_destroy(&f.w);
}

static void test_self_collision_and_disabled_pairs(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, true);
    gjk_world_result *r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_SELF, HUGE_VAL);
    const gjk_world_waypoint *wp = &r->waypoints[0];
    assert_int_equal(wp->pair_count, 3);
    assert_near(wp->pairs[0].distance, 0.05, 1e-12);
    assert_near(wp->pairs[1].distance, 0.05, 1e-12);
    assert_near(wp->pairs[2].distance, 0.3, 1e-12);
    const gjk_world_pair *p = find_pair(wp, 0, gjk_link_body(f.arm, 2));
    assert_non_null(p);
    assert_string_equal(p->b.body_name, "link2");
    assert_near(p->a.local_point.x, 0.1, 1e-12);
    assert_near(p->b.local_point.x, -0.1, 1e-12);
    gjk_world_result_destroy(&r);

    /* disabled (adjacent) pairs from the robot definition */
    gjk_link_name_pair adjacent[2] = {{"link0", "link1"}, {"link2", "link1"}};
    gjk_robot_def def = arm_def(true);
    def.link_poses = arm_poses();
    def.disabled_pairs = adjacent;
    def.disabled_pair_count = 2;
    assert_ok(gjk_world_put_robot(f.w, &def, NULL));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_SELF, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 1);
    assert_near(r->waypoints[0].pairs[0].distance, 0.3, 1e-12);
    gjk_world_result_destroy(&r);

    /* allowed link-link pair, then self-collision off */
    assert_ok(gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 2), gjk_link_body(f.arm, 0), true));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_SELF, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 0);
    gjk_world_result_destroy(&r);
    assert_ok(gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 0), gjk_link_body(f.arm, 2), false));
    assert_ok(gjk_world_set_self_collision(f.w, f.arm, false));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_SELF, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 0);
    gjk_world_result_destroy(&r);
    assert_ok(gjk_world_set_self_collision(f.w, f.arm, true));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_SELF, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 1);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&f.w);
}

static void test_allowed_pairs(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    uint64_t rev = gjk_world_revision(f.w);
    assert_ok(gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 2), gjk_obstacle_body(f.wall), true));
    assert_int_equal(gjk_world_revision(f.w), rev + 1);
    gjk_world_result *r =
        query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 5);
    assert_null(find_pair(&r->waypoints[0], 2, gjk_obstacle_body(f.wall)));
    gjk_world_result_destroy(&r);

    /* every link of the robot against the post (link = -1), given in either order */
    assert_ok(
        gjk_world_set_allowed(f.w, gjk_obstacle_body(f.post), gjk_link_body(f.arm, -1), true));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 2);
    gjk_world_result_destroy(&r);
    gjk_world_info info;
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.allowed_pair_count, 2);

    /* checked again */
    assert_ok(
        gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 2), gjk_obstacle_body(f.wall), false));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, HUGE_VAL);
    assert_int_equal(r->waypoints[0].pair_count, 3);
    assert_non_null(find_pair(&r->waypoints[0], 2, gjk_obstacle_body(f.wall)));
    gjk_world_result_destroy(&r);

    /* removing an obstacle drops its rules */
    assert_ok(gjk_world_remove_obstacle(f.w, f.post));
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.allowed_pair_count, 0);

    /* bad rules */
    assert_status(
        gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 2), gjk_obstacle_body(f.post), true),
        GJK_STATUS_NOT_FOUND);
    assert_status(
        gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 3), gjk_obstacle_body(f.wall), true),
        GJK_STATUS_NOT_FOUND);
    assert_status(
        gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 1), gjk_link_body(f.arm, 1), true),
        GJK_STATUS_INVALID_INPUT);
    gjk_body_id none = {GJK_BODY_NONE, 1, 0};
    assert_status(gjk_world_set_allowed(f.w, none, gjk_obstacle_body(f.wall), true),
                  GJK_STATUS_INVALID_INPUT);
    gjk_world_destroy(&f.w);
}

static void test_padding(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    const double inf = HUGE_VAL;
    assert_ok(gjk_world_set_padding(f.w, gjk_link_body(f.arm, 2), 0.05));
    gjk_world_result *r =
        query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, inf);
    const gjk_world_pair *p = find_pair(&r->waypoints[0], 2, gjk_obstacle_body(f.wall));
    assert_near(p->distance, 0.15, 1e-12);
    assert_near(p->padding, 0.05, 0.0);
    assert_near(p->a.point.x, 0.65, 1e-12); /* on the padded surface of link2 */
    assert_near(p->b.point.x, 0.8, 1e-12);
    assert_near(p->a.local_point.x, 0.15, 1e-12);
    gjk_world_result_destroy(&r);

    assert_ok(gjk_world_set_padding(f.w, gjk_obstacle_body(f.wall), 0.02));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, inf);
    p = find_pair(&r->waypoints[0], 2, gjk_obstacle_body(f.wall));
    assert_near(p->distance, 0.13, 1e-12);
    assert_near(p->b.point.x, 0.78, 1e-12);
    gjk_world_result_destroy(&r);

    /* a per-pair padding replaces the sum; NaN clears it */
    assert_ok(
        gjk_world_set_pair_padding(f.w, gjk_obstacle_body(f.wall), gjk_link_body(f.arm, 2), 0.1));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, inf);
    p = find_pair(&r->waypoints[0], 2, gjk_obstacle_body(f.wall));
    assert_near(p->distance, 0.1, 1e-12);
    assert_near(p->a.point.x, 0.65, 1e-12); /* split in half */
    assert_near(p->b.point.x, 0.75, 1e-12);
    gjk_world_result_destroy(&r);
    assert_ok(gjk_world_set_pair_padding(f.w, gjk_obstacle_body(f.wall), gjk_link_body(f.arm, 2),
                                         (double)NAN));
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, inf);
    assert_near(find_pair(&r->waypoints[0], 2, gjk_obstacle_body(f.wall))->distance, 0.13, 1e-12);
    gjk_world_result_destroy(&r);

    /* padding alone can make a collision: the broad phase must reach it too */
    assert_ok(
        gjk_world_set_pair_padding(f.w, gjk_link_body(f.arm, 2), gjk_obstacle_body(f.wall), 0.25));
    r = query(f.w, GJK_WORLD_MODE_FIRST_COLLISION, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, 0.0);
    assert_true(r->waypoints[0].collision);
    assert_int_equal(r->first_collision, 0);
    assert_int_equal(r->waypoints[0].pair_count, 1);
    gjk_world_result_destroy(&r);
    r = query(f.w, GJK_WORLD_MODE_CLOSEST, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, 0.0);
    p = &r->waypoints[0].pairs[0];
    assert_near(p->distance, -0.05, 1e-12);
    assert_int_equal(p->status, GJK_STATUS_OVERLAPPING);
    assert_true(r->waypoints[0].collision);
    gjk_world_result_destroy(&r);

    /* a whole robot's padding, and bad paddings */
    assert_ok(gjk_world_set_padding(f.w, gjk_link_body(f.arm, -1), 0.01));
    gjk_link_info li;
    assert_ok(gjk_world_link_info(f.w, f.arm, 0, &li));
    assert_near(li.padding, 0.01, 0.0);
    uint64_t rev = gjk_world_revision(f.w);
    assert_status(gjk_world_set_padding(f.w, gjk_link_body(f.arm, 0), -0.01),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_world_set_padding(f.w, gjk_link_body(f.arm, 0), (double)NAN),
                  GJK_STATUS_INVALID_INPUT);
    assert_status(
        gjk_world_set_pair_padding(f.w, gjk_link_body(f.arm, 0), gjk_obstacle_body(f.wall), -1.0),
        GJK_STATUS_INVALID_INPUT);
    assert_int_equal(gjk_world_revision(f.w), rev);
    gjk_world_destroy(&f.w);
}

static void test_first_collision_and_overlap(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    gjk_world_result *r = query(f.w, GJK_WORLD_MODE_FIRST_COLLISION, GJK_WORLD_PAIRS_ALL, HUGE_VAL);
    assert_false(r->waypoints[0].collision);
    assert_int_equal(r->waypoints[0].pair_count, 0);
    assert_true(isinf(r->waypoints[0].min_distance));
    assert_int_equal(r->first_collision, -1);
    gjk_world_result_destroy(&r);

    /* push link2 0.25 into the wall: depth 0.05 */
    gjk_transform p[3];
    memcpy(p, arm_poses(), sizeof p);
    p[2].p.x = 0.75;
    assert_ok(gjk_world_set_link_poses(f.w, f.arm, p, 3));
    r = query(f.w, GJK_WORLD_MODE_FIRST_COLLISION, GJK_WORLD_PAIRS_ALL, HUGE_VAL);
    assert_true(r->waypoints[0].collision);
    assert_int_equal(r->waypoints[0].pair_count, 1);
    assert_int_equal(r->waypoints[0].pairs[0].a.body.link, 2);
    assert_int_equal(r->waypoints[0].pairs[0].status, GJK_STATUS_OVERLAPPING);
    gjk_world_result_destroy(&r);

    r = query(f.w, GJK_WORLD_MODE_CLOSEST, GJK_WORLD_PAIRS_ALL, HUGE_VAL);
    const gjk_world_pair *q = &r->waypoints[0].pairs[0];
    assert_near(q->distance, -0.05, 1e-9);
    assert_near(q->normal.x, 1.0, 1e-9);
    assert_near(gjk_dot(gjk_sub(q->b.point, q->a.point), q->normal), -0.05, 1e-9);
    gjk_world_result_destroy(&r);

    /* signed distance off: overlap without depth */
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.no_penetration_depth = true;
    assert_ok(gjk_world_query_state(f.w, &opt, &r));
    q = &r->waypoints[0].pairs[0];
    assert_int_equal(q->status, GJK_STATUS_OVERLAPPING);
    assert_near(q->distance, 0.0, 0.0);
    assert_true(r->waypoints[0].collision);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&f.w);
}

static void test_robot_robot_pairs(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    gjk_robot_def def = arm_def(false);
    def.name = "other";
    gjk_transform p[3];
    for (int l = 0; l < 3; ++l)
        p[l] = tw_at(0.25 * l, 0, 0.5); /* 0.3 above the arm */
    def.link_poses = p;
    int32_t other;
    assert_ok(gjk_world_put_robot(f.w, &def, &other));
    gjk_world_result *r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_ROBOT, 0.301);
    assert_int_equal(r->waypoints[0].pair_count, 3); /* each link and the one above it */
    for (int i = 0; i < 3; ++i) {
        const gjk_world_pair *q = &r->waypoints[0].pairs[i];
        assert_near(q->distance, 0.3, 1e-12);
        assert_int_equal(q->a.body.object, f.arm); /* A: the robot with the lower id */
        assert_int_equal(q->b.body.object, other);
        assert_string_equal(q->b.object_name, "other");
    }
    gjk_world_result_destroy(&r);
    r = query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE | GJK_WORLD_PAIRS_SELF,
              0.31);
    for (int i = 0; i < r->waypoints[0].pair_count; ++i)
        assert_int_equal(r->waypoints[0].pairs[i].b.body.kind, GJK_BODY_OBSTACLE);
    gjk_world_result_destroy(&r);

    /* options.robot: only pairs with a link of that robot; other robots become side B */
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.pairs = GJK_WORLD_PAIRS_ROBOT_ROBOT;
    opt.robot = other;
    assert_ok(gjk_world_query_state(f.w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 9);
    assert_int_equal(r->waypoints[0].pairs[0].a.body.object, other);
    gjk_world_result_destroy(&r);
    opt.robot = 99;
    assert_status(gjk_world_query_state(f.w, &opt, &r), GJK_STATUS_NOT_FOUND);
    assert_null(r);
    gjk_world_destroy(&f.w);
}

/* link2 moves from x = 0.5 to 1.0 along the trajectory: gap 0.2 - 0.5 u. */
static gjk_transform *sweep(int waypoints, double end)
{
    gjk_transform *t = malloc((size_t)waypoints * 3 * sizeof *t);
    assert_non_null(t);
    for (int w = 0; w < waypoints; ++w) {
        memcpy(&t[w * 3], arm_poses(), 3 * sizeof *t);
        t[w * 3 + 2].p.x = 0.5 + (end - 0.5) * w / (waypoints - 1);
    }
    return t;
}

static void test_trajectory_summary(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    int W = 21;
    gjk_transform *poses = sweep(W, 1.0); /* x = 0.5 + 0.025 w; gap 0.2 - 0.025 w */
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = f.arm;
    t.waypoint_count = W;
    t.link_count = 3;
    t.link_poses = poses;
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.pairs = GJK_WORLD_PAIRS_ROBOT_OBSTACLE;
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_int_equal(r->waypoint_count, W);
    assert_int_equal(r->segment_count, 0);
    /* gap 0 at w = 8 (touching), first overlap at w = 9 */
    assert_int_equal(r->first_collision, 8);
    assert_int_equal(r->waypoints[8].pairs[0].status, GJK_STATUS_TOUCHING);
    assert_near(r->waypoints[8].min_distance, 0.0, 1e-12);
    assert_near(r->waypoints[3].min_distance, 0.125, 1e-12);
    /* deepest: link2 inside the wall (its box fully inside at x = 0.9: depth 0.2) */
    assert_near(r->min_distance, -0.2, 1e-9);
    assert_int_equal(r->min_waypoint, 16);
    for (int w = 0; w < W; ++w)
        assert_true(r->waypoints[w].evaluated);
    gjk_world_result_destroy(&r);

    /* the validity fast path stops at the first collision, whatever the thread count */
    opt.mode = GJK_WORLD_MODE_FIRST_COLLISION;
    for (int threads = 1; threads <= 3; ++threads) {
        opt.threads = threads;
        assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
        assert_int_equal(r->first_collision, 8);
        for (int w = 0; w < W; ++w)
            assert_int_equal(r->waypoints[w].evaluated, w <= 8);
        assert_int_equal(r->waypoints[9].pair_count, 0);
        gjk_world_result_destroy(&r);
    }
    free(poses);
    gjk_world_destroy(&f.w);
}

/* The cancellation hook (options.cancel): asked before each block of
 * GJK_WORLD_BLOCK_WAYPOINTS waypoints with the entries the blocks done report; true stops the
 * query (the daemon's per-request deadline and reply cap, issue 22 findings 13 and 14). */
typedef struct cancel_probe {
    int calls;
    int64_t seen[8];
    int64_t stop_at; /* cancel once reported >= this; < 0 never */
} cancel_probe;

static bool probe_cancel(void *user, int64_t reported)
{
    cancel_probe *p = user;
    if (p->calls < 8)
        p->seen[p->calls] = reported;
    ++p->calls;
    return p->stop_at >= 0 && reported >= p->stop_at;
}

static void test_trajectory_cancel(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    int W = 21; /* blocks of 8, 8 and 5 waypoints */
    gjk_transform *poses = sweep(W, 1.0);
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = f.arm;
    t.waypoint_count = W;
    t.link_count = 3;
    t.link_poses = poses;
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.pairs = GJK_WORLD_PAIRS_ROBOT_OBSTACLE;
    cancel_probe p = {0, {0}, -1};
    opt.cancel = probe_cancel;
    opt.cancel_user = &p;
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_int_equal(p.calls, 3); /* once per block, with the closest pair of each waypoint */
    assert_int_equal(p.seen[0], 0);
    assert_int_equal(p.seen[1], 8);
    assert_int_equal(p.seen[2], 16);
    assert_int_equal(r->first_collision, 8);
    gjk_world_result_destroy(&r);

    p = (cancel_probe){0, {0}, 8};
    assert_int_equal(gjk_world_query_trajectory(f.w, &t, &opt, &r), GJK_STATUS_OUT_OF_MEMORY);
    assert_null(r);
    assert_int_equal(p.calls, 2); /* the second block was not started */
    free(poses);
    gjk_world_destroy(&f.w);
}

/* Changes under a named trajectory: every change of geometry is seen at once (regression
 * guard for stale warm starts) and the cache stays within its caps. */
static void test_named_cache_changes_and_caps(void **state)
{
    (void)state;
    gjk_world_def wd = gjk_default_world_def();
    wd.max_trajectories = 3;
    fixture f;
    assert_ok(gjk_world_create(&wd, &f.w));
    gjk_robot_def def = arm_def(false);
    def.link_poses = arm_poses();
    assert_ok(gjk_world_put_robot(f.w, &def, &f.arm));
    gjk_obstacle_def wall = box_obstacle("wall", &wall_part, gjk_v3(0.1, 1, 1), gjk_v3(0.9, 0, 0));
    assert_ok(gjk_world_put_obstacle(f.w, &wall, &f.wall));

    int W = 10;
    gjk_transform *poses = sweep(W, 0.6); /* gap 0.2 down to 0.1 */
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = f.arm;
    t.waypoint_count = W;
    t.link_count = 3;
    t.link_poses = poses;
    t.name = "plan";
    gjk_world_query_options opt = gjk_world_default_query_options();
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_false(r->trajectory_cache_hit);
    assert_near(r->min_distance, 0.1, 1e-12);
    gjk_world_result_destroy(&r);
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_true(r->trajectory_cache_hit);
    assert_near(r->min_distance, 0.1, 1e-12);
    gjk_world_result_destroy(&r);

    /* replace the wall by a thicker one: the answer follows at once */
    wall = box_obstacle("wall", &wall_part, gjk_v3(0.15, 1, 1), gjk_v3(0.9, 0, 0));
    assert_ok(gjk_world_put_obstacle(f.w, &wall, NULL));
    gjk_world_info info;
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.trajectory_count, 0); /* geometry changed: cache dropped */
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_false(r->trajectory_cache_hit);
    assert_near(r->min_distance, 0.05, 1e-12);
    gjk_world_result_destroy(&r);

    /* move it (a pose change keeps the cache, which is then stale but harmless) */
    assert_ok(gjk_world_set_obstacle_pose(f.w, f.wall, tw_at(1.2, 0, 0)));
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_true(r->trajectory_cache_hit);
    assert_near(r->min_distance, 0.35, 1e-12);
    gjk_world_result_destroy(&r);

    /* remove it: nothing left to report */
    assert_ok(gjk_world_remove_obstacle(f.w, f.wall));
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_true(isinf(r->min_distance));
    assert_int_equal(r->waypoints[0].pair_count, 0);
    gjk_world_result_destroy(&r);

    /* caps: at most 3 trajectories, least recently used evicted */
    wall = box_obstacle("wall", &wall_part, gjk_v3(0.1, 1, 1), gjk_v3(0.9, 0, 0));
    assert_ok(gjk_world_put_obstacle(f.w, &wall, &f.wall));
    const char *names[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; ++i) {
        t.name = names[i];
        assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
        gjk_world_result_destroy(&r);
    }
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.trajectory_count, 3);
    assert_true(info.trajectory_cache_bytes > 0);
    t.name = "b"; /* evicted */
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_false(r->trajectory_cache_hit);
    gjk_world_result_destroy(&r);
    t.name = "e";
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_true(r->trajectory_cache_hit);
    gjk_world_result_destroy(&r);
    assert_ok(gjk_world_forget_trajectory(f.w, "e"));
    assert_status(gjk_world_forget_trajectory(f.w, "e"), GJK_STATUS_NOT_FOUND);
    assert_ok(gjk_world_forget_trajectory(f.w, NULL));
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.trajectory_count, 0);
    assert_int_equal(info.trajectory_cache_bytes, 0);
    gjk_world_destroy(&f.w);

    /* a byte cap smaller than one trajectory: nothing is kept, queries still work */
    wd = gjk_default_world_def();
    wd.trajectory_cache_bytes = 64;
    assert_ok(gjk_world_create(&wd, &f.w));
    assert_ok(gjk_world_put_robot(f.w, &def, &f.arm));
    assert_ok(gjk_world_put_obstacle(f.w, &wall, &f.wall));
    t.robot = f.arm;
    t.name = "big";
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    gjk_world_result_destroy(&r);
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.trajectory_count, 0);
    assert_true(info.trajectory_cache_bytes <= 64);
    free(poses);
    gjk_world_destroy(&f.w);
}

/* Regression guard for the motion bounds: a named trajectory remembers a lower bound per pair
 * and skips GJK while that bound minus the robot's motion stays beyond reach. Obstacles or
 * other robots that move between the queries must void those bounds. */
static void test_named_bounds_follow_scene_changes(void **state)
{
    (void)state;
    /* Balls diagonally off link2's corners: their boxes are within reach (0.1) while the balls
     * are not (s = 0.12: distance 0.12 sqrt 3 - 0.1 = 0.1078), so GJK certifies a bound. */
    const double s_far = 0.12, s_near = 0.09;
    fixture f;
    make_fixture(&f, false);
    gjk_part_def ball;
    memset(&ball, 0, sizeof ball);
    ball.shape = gjk_make_sphere(0.1);
    ball.pose = gjk_transform_identity();
    gjk_obstacle_def od;
    memset(&od, 0, sizeof od);
    od.name = "ball";
    od.parts = &ball;
    od.part_count = 1;
    od.pose = tw_at(0.6 + s_far, 0.1 + s_far, 0.1 + s_far);
    int32_t ball_id;
    assert_ok(gjk_world_put_obstacle(f.w, &od, &ball_id));
    gjk_link_def link;
    memset(&link, 0, sizeof link);
    link.name = "bob";
    link.parts = &ball;
    link.part_count = 1;
    gjk_transform bob = tw_at(0.6 + s_far, -0.1 - s_far, -0.1 - s_far);
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "other";
    def.links = &link;
    def.link_count = 1;
    def.link_poses = &bob;
    int32_t other;
    assert_ok(gjk_world_put_robot(f.w, &def, &other));

    int W = 12;
    gjk_transform *poses = sweep(W, 0.5); /* the arm stands still */
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = f.arm;
    t.waypoint_count = W;
    t.link_count = 3;
    t.link_poses = poses;
    t.name = "still";
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.has_max_distance = true;
    opt.max_distance = 0.1;
    opt.pairs = GJK_WORLD_PAIRS_ALL;
    gjk_world_result *r = NULL;
    for (int pass = 0; pass < 2; ++pass) {
        assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
        int bounded = 0;
        for (int w = 0; w < W; ++w) {
            assert_int_equal(r->waypoints[w].pair_count, 0);
            bounded += r->waypoints[w].counters.pairs_bounded;
        }
        /* first pass: within blocks only (7 of 8 waypoints); second: every waypoint */
        assert_int_equal(bounded, pass == 0 ? 2 * (W - 2) : 2 * W);
        gjk_world_result_destroy(&r);
    }

    /* the ball moves in: the remembered bound no longer holds */
    assert_ok(
        gjk_world_set_obstacle_pose(f.w, ball_id, tw_at(0.6 + s_near, 0.1 + s_near, 0.1 + s_near)));
    double near = s_near * sqrt(3.0) - 0.1;
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    for (int w = 0; w < W; ++w) {
        assert_int_equal(r->waypoints[w].pair_count, 1);
        assert_near(r->waypoints[w].min_distance, near, 1e-9);
    }
    gjk_world_result_destroy(&r);

    /* the other robot moves in (link poses: the pose revision) */
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    gjk_world_result_destroy(&r);
    bob = tw_at(0.6 + s_near, -0.1 - s_near, -0.1 - s_near);
    assert_ok(gjk_world_set_link_poses(f.w, other, &bob, 1));
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    for (int w = 0; w < W; ++w) {
        assert_int_equal(r->waypoints[w].pair_count, 2);
        assert_near(r->waypoints[w].pairs[1].distance, near, 1e-9);
    }
    gjk_world_result_destroy(&r);

    /* a padding change needs no invalidation (the bounds are unpadded) but applies */
    assert_ok(gjk_world_set_padding(f.w, gjk_obstacle_body(ball_id), 0.06));
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    assert_near(r->waypoints[W - 1].min_distance, near - 0.06, 1e-9);
    gjk_world_result_destroy(&r);
    free(poses);
    gjk_world_destroy(&f.w);
}

/* Replacing a robot keeps rules whose link names survive and drops the others. */
static void test_replace_robot_remaps_rules(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, false);
    assert_ok(gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 2), gjk_obstacle_body(f.wall), true));
    assert_ok(gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 0), gjk_obstacle_body(f.post), true));
    /* the new arm: link2 first, link0 renamed */
    static const char *renamed[3] = {"link2", "link1", "tool"};
    gjk_robot_def def = arm_def(false);
    for (int l = 0; l < 3; ++l)
        arm_links[l].name = renamed[l];
    gjk_transform p[3] = {tw_at(0.5, 0, 0), tw_at(0.25, 0, 0), tw_at(0, 0, 0)};
    def.link_poses = p;
    int32_t id;
    assert_ok(gjk_world_put_robot(f.w, &def, &id));
    assert_int_equal(id, f.arm);
    gjk_world_info info;
    gjk_world_get_info(f.w, &info);
    assert_int_equal(info.allowed_pair_count, 1);
    gjk_world_result *r =
        query(f.w, GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_PAIRS_ROBOT_OBSTACLE, HUGE_VAL);
    /* link2 (now index 0) vs wall stays allowed; tool vs post is checked again */
    assert_null(find_pair(&r->waypoints[0], 0, gjk_obstacle_body(f.wall)));
    assert_non_null(find_pair(&r->waypoints[0], 2, gjk_obstacle_body(f.post)));
    assert_int_equal(r->waypoints[0].pair_count, 5);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&f.w);
}

/* Compares two results of the same query field by field (not names' addresses). */
static void assert_same_result(const gjk_world_result *a, const gjk_world_result *b)
{
    assert_int_equal(a->waypoint_count, b->waypoint_count);
    for (int32_t w = 0; w < a->waypoint_count; ++w) {
        assert_int_equal(a->waypoints[w].pair_count, b->waypoints[w].pair_count);
        for (int32_t i = 0; i < a->waypoints[w].pair_count; ++i) {
            const gjk_world_pair *p = &a->waypoints[w].pairs[i], *q = &b->waypoints[w].pairs[i];
            assert_memory_equal(&p->distance, &q->distance, sizeof(double));
            assert_memory_equal(&p->a.point, &q->a.point, sizeof p->a.point);
            assert_memory_equal(&p->b.body, &q->b.body, sizeof p->b.body);
            assert_string_equal(p->b.body_name, q->b.body_name);
        }
    }
}

/* A hand of three parts ("far" 0.3 above, "near" and its exact copy "twin") in front of a
 * shelf of seven boxes (s4 and s5 exact copies, nearest) and a post behind it: ALL_WITHIN
 * reports each body pair once, the nearest part pair with the lowest part indices among exact
 * ties and the number of part pairs within max_distance; per_part lists every part pair. */
static void test_body_pairs(void **state)
{
    (void)state;
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    gjk_part_def hand_parts[3] = {tw_box_part(0.05, 0.05, 0.05, gjk_v3(0, 0, 0.3)),
                                  tw_box_part(0.05, 0.05, 0.05, gjk_v3(0, 0, 0)),
                                  tw_box_part(0.05, 0.05, 0.05, gjk_v3(0, 0, 0))};
    hand_parts[0].name = "far";
    hand_parts[1].name = "near";
    hand_parts[2].name = "twin";
    gjk_link_def hand;
    memset(&hand, 0, sizeof hand);
    hand.name = "hand";
    hand.parts = hand_parts;
    hand.part_count = 3;
    gjk_robot_def rd;
    memset(&rd, 0, sizeof rd);
    rd.name = "picker";
    rd.links = &hand;
    rd.link_count = 1;
    int32_t picker, shelf, post;
    assert_ok(gjk_world_put_robot(w, &rd, &picker));
    static const double shelf_y[7] = {-0.45, -0.3, -0.15, 0.15, 0.0, 0.0, 0.3};
    static const char *shelf_names[7] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6"};
    gjk_part_def shelf_parts[7];
    for (int k = 0; k < 7; ++k) {
        shelf_parts[k] = tw_box_part(0.05, 0.05, 0.05, gjk_v3(0.3, shelf_y[k], 0));
        shelf_parts[k].name = shelf_names[k];
    }
    gjk_obstacle_def od;
    memset(&od, 0, sizeof od);
    od.name = "shelf";
    od.parts = shelf_parts;
    od.part_count = 7;
    od.pose = tw_at(0, 0, 0);
    assert_ok(gjk_world_put_obstacle(w, &od, &shelf));
    gjk_obstacle_def pd =
        box_obstacle("post", &post_part, gjk_v3(0.05, 0.05, 0.05), gjk_v3(-0.35, 0, 0));
    assert_ok(gjk_world_put_obstacle(w, &pd, &post));

    /* Distances: near/twin - s4, s5: 0.2; - s2, s3: sqrt(0.2^2 + 0.05^2) = 0.2062; - s1, s6:
     * sqrt(0.2^2 + 0.2^2) = 0.2828; - s0: 0.4031. far - s4: 0.2828, - s2, s3: 0.2872, - s1,
     * s6: 0.3464, - s0: 0.45. near/twin - post: 0.25; far - post: 0.3202. */
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.has_max_distance = true;
    opt.max_distance = 0.25;
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    const gjk_world_waypoint *wp = &r->waypoints[0];
    assert_int_equal(wp->pair_count, 2);
    const gjk_world_pair *p = &wp->pairs[0];
    assert_int_equal(p->b.body.object, shelf);
    assert_near(p->distance, 0.2, 1e-12);
    assert_int_equal(p->a.part, 1); /* near, not its twin */
    assert_int_equal(p->b.part, 4); /* s4, not its copy s5 */
    assert_string_equal(p->a.part_name, "near");
    assert_string_equal(p->b.part_name, "s4");
    assert_int_equal(p->part_pair_count, 8); /* near, twin x s2, s3, s4, s5 */
    assert_near(p->a.point.x, 0.05, 1e-12);
    assert_near(p->b.point.x, 0.25, 1e-12);
    assert_near(p->normal.x, 1.0, 1e-12);
    assert_int_equal(p->status, GJK_STATUS_SEPARATED);
    assert_int_equal(wp->pairs[1].b.body.object, post);
    assert_near(wp->pairs[1].distance, 0.25, 1e-12);
    assert_int_equal(wp->pairs[1].part_pair_count, 2);
    assert_false(wp->truncated);
    assert_near(wp->min_distance, 0.2, 1e-12);
    gjk_world_result_destroy(&r);

    /* per_part: every part pair within reach, nearest first, exact ties by part index */
    opt.per_part = true;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    wp = &r->waypoints[0];
    assert_int_equal(wp->pair_count, 10);
    const int32_t tied[4][2] = {{1, 4}, {1, 5}, {2, 4}, {2, 5}};
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(wp->pairs[i].a.part, tied[i][0]);
        assert_int_equal(wp->pairs[i].b.part, tied[i][1]);
        assert_memory_equal(&wp->pairs[i].distance, &wp->pairs[0].distance, sizeof(double));
    }
    for (int i = 0; i < 10; ++i)
        assert_int_equal(wp->pairs[i].part_pair_count, 1);
    gjk_world_result_destroy(&r);

    /* no cutoff: every part pair counts; max_pairs caps the body pairs */
    opt.per_part = false;
    opt.has_max_distance = false;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 2);
    assert_int_equal(r->waypoints[0].pairs[0].part_pair_count, 21);
    assert_int_equal(r->waypoints[0].pairs[1].part_pair_count, 3);
    gjk_world_result_destroy(&r);
    opt.max_pairs = 1;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 1);
    assert_true(r->waypoints[0].truncated);
    assert_int_equal(r->waypoints[0].pairs[0].part_pair_count, 21);
    assert_near(r->waypoints[0].min_distance, 0.2, 1e-12);
    gjk_world_result_destroy(&r);
    opt.per_part = true;
    opt.max_pairs = 24;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 24);
    assert_false(r->waypoints[0].truncated);
    gjk_world_result_destroy(&r);
    opt.max_pairs = 23;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_true(r->waypoints[0].truncated);
    gjk_world_result_destroy(&r);

    /* CLOSEST (the default mode) and FIRST_COLLISION report one part pair */
    assert_ok(gjk_world_query_state(w, NULL, &r));
    assert_int_equal(r->waypoints[0].pair_count, 1);
    assert_near(r->waypoints[0].pairs[0].distance, 0.2, 1e-12);
    assert_int_equal(r->waypoints[0].pairs[0].part_pair_count, 1);
    gjk_world_result_destroy(&r);
    gjk_transform inside = tw_at(0.25, 0, 0); /* near and twin overlap s4 and s5 */
    assert_ok(gjk_world_set_link_poses(w, picker, &inside, 1));
    opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_FIRST_COLLISION;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 1);
    assert_int_equal(r->waypoints[0].pairs[0].part_pair_count, 1);
    gjk_world_result_destroy(&r);
    /* overlapping part pairs reduce the same way: the deepest */
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.has_max_distance = true;
    opt.max_distance = 0.0;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 1);
    p = &r->waypoints[0].pairs[0];
    assert_near(p->distance, -0.05, 1e-9);
    assert_int_equal(p->a.part, 1);
    assert_int_equal(p->b.part, 4);
    assert_int_equal(p->part_pair_count, 4);
    assert_true(r->waypoints[0].collision);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&w);
}

/* Bad input gets a clear status and leaves the world exactly as it was. */
static void test_bad_input_leaves_world_unchanged(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, true);
    assert_ok(gjk_world_set_allowed(f.w, gjk_link_body(f.arm, 0), gjk_obstacle_body(f.post), true));
    gjk_world_info before;
    gjk_world_get_info(f.w, &before);
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    opt.pairs = GJK_WORLD_PAIRS_ALL;
    gjk_world_result *ref = NULL;
    assert_ok(gjk_world_query_state(f.w, &opt, &ref));

    const double nan = (double)NAN;
    gjk_transform poses[3];
    memcpy(poses, arm_poses(), sizeof poses);

    /* link poses */
    assert_status(gjk_world_set_link_poses(f.w, 42, poses, 3), GJK_STATUS_NOT_FOUND);
    assert_status(gjk_world_set_link_poses(f.w, f.arm, poses, 2), GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_world_set_link_poses(f.w, f.arm, NULL, 3), GJK_STATUS_INVALID_INPUT);
    poses[2].p.y = nan; /* the last one bad: nothing may be applied */
    poses[0].p.x = 7.0;
    assert_status(gjk_world_set_link_poses(f.w, f.arm, poses, 3), GJK_STATUS_INVALID_INPUT);
    memcpy(poses, arm_poses(), sizeof poses);
    poses[1].q = gjk_quat_make(1.0, 0.1, 0.0, 0.0); /* not unit */
    assert_status(gjk_world_set_link_poses(f.w, f.arm, poses, 3), GJK_STATUS_INVALID_INPUT);
    poses[1].q = gjk_quat_make(HUGE_VAL, 0, 0, 0);
    assert_status(gjk_world_set_link_poses(f.w, f.arm, poses, 3), GJK_STATUS_INVALID_INPUT);

    /* obstacles */
    gjk_part_def part = tw_box_part(0.1, 0.1, 0.1, gjk_v3(0, 0, 0));
    gjk_obstacle_def od = box_obstacle("wall", &part, gjk_v3(0.1, 0.1, 0.1), gjk_v3(5, 5, 5));
    part.shape.half_extents.x = -1.0;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    part.shape.half_extents.x = 0.1;
    part.shape.margin = nan;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    part.shape.margin = 0.0;
    od.pose.p.z = nan;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    od.pose = tw_at(5, 5, 5);
    od.padding = -0.1;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    od.padding = 0.0;
    od.name = "";
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    od.name = NULL;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    char long_name[GJK_WORLD_NAME_MAX + 2];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    od.name = long_name;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    od.name = "wall";
    od.part_count = 0;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    od.part_count = 1;
    gjk_shape zero;
    memset(&zero, 0, sizeof zero);
    part.shape = zero;
    assert_status(gjk_world_put_obstacle(f.w, &od, NULL), GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_world_remove_obstacle(f.w, 42), GJK_STATUS_NOT_FOUND);
    assert_status(gjk_world_set_obstacle_pose(f.w, 42, tw_at(0, 0, 0)), GJK_STATUS_NOT_FOUND);
    gjk_transform bad = tw_at(0, 0, 0);
    bad.q.w = 2.0;
    assert_status(gjk_world_set_obstacle_pose(f.w, f.wall, bad), GJK_STATUS_INVALID_INPUT);

    /* robots: a failing replace keeps the old robot */
    gjk_robot_def rd = arm_def(true);
    arm_links[1].name = "link0"; /* duplicate link name */
    assert_status(gjk_world_put_robot(f.w, &rd, NULL), GJK_STATUS_INVALID_INPUT);
    rd = arm_def(true);
    gjk_link_name_pair unknown = {"link0", "elbow"};
    rd.disabled_pairs = &unknown;
    rd.disabled_pair_count = 1;
    assert_status(gjk_world_put_robot(f.w, &rd, NULL), GJK_STATUS_NOT_FOUND);
    rd = arm_def(true);
    arm_links[2].padding = nan;
    assert_status(gjk_world_put_robot(f.w, &rd, NULL), GJK_STATUS_INVALID_INPUT);
    rd = arm_def(true);
    rd.link_count = 0;
    assert_status(gjk_world_put_robot(f.w, &rd, NULL), GJK_STATUS_INVALID_INPUT);
    rd = arm_def(true);
    memcpy(poses, arm_poses(), sizeof poses);
    poses[0].p.x = HUGE_VAL;
    rd.link_poses = poses;
    assert_status(gjk_world_put_robot(f.w, &rd, NULL), GJK_STATUS_INVALID_INPUT);
    rd = arm_def(true);
    arm_parts[0].pose.q = gjk_quat_make(0, 0, 0, 0);
    assert_status(gjk_world_put_robot(f.w, &rd, NULL), GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_world_put_robot(f.w, NULL, NULL), GJK_STATUS_INVALID_INPUT);
    assert_status(gjk_world_set_self_collision(f.w, 42, false), GJK_STATUS_NOT_FOUND);
    assert_status(gjk_world_set_padding(f.w, gjk_obstacle_body(42), 0.1), GJK_STATUS_NOT_FOUND);
    assert_status(
        gjk_world_set_pair_padding(f.w, gjk_link_body(f.arm, 9), gjk_obstacle_body(1), 0.1),
        GJK_STATUS_NOT_FOUND);

    /* queries */
    gjk_world_result *r = NULL;
    gjk_world_query_options bad_opt = opt;
    bad_opt.has_max_distance = true;
    bad_opt.max_distance = nan;
    assert_status(gjk_world_query_state(f.w, &bad_opt, &r), GJK_STATUS_INVALID_INPUT);
    bad_opt.max_distance = -HUGE_VAL;
    assert_status(gjk_world_query_state(f.w, &bad_opt, &r), GJK_STATUS_INVALID_INPUT);
    bad_opt.has_max_distance = false; /* max_distance is ignored without it */
    assert_ok(gjk_world_query_state(f.w, &bad_opt, &r));
    gjk_world_result_destroy(&r);
    bad_opt = opt;
    bad_opt.mode = (gjk_world_mode)9;
    assert_status(gjk_world_query_state(f.w, &bad_opt, &r), GJK_STATUS_INVALID_INPUT);
    bad_opt = opt;
    bad_opt.pairs = 64;
    assert_status(gjk_world_query_state(f.w, &bad_opt, &r), GJK_STATUS_INVALID_INPUT);
    bad_opt = opt;
    bad_opt.threads = GJK_WORLD_MAX_THREADS + 1;
    assert_status(gjk_world_query_state(f.w, &bad_opt, &r), GJK_STATUS_INVALID_INPUT);
    bad_opt = opt;
    bad_opt.max_pairs = -1;
    assert_status(gjk_world_query_state(f.w, &bad_opt, &r), GJK_STATUS_INVALID_INPUT);
    assert_null(r);
    gjk_transform traj[2 * 3];
    memcpy(traj, arm_poses(), 3 * sizeof *traj);
    memcpy(traj + 3, arm_poses(), 3 * sizeof *traj);
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = f.arm;
    t.waypoint_count = 2;
    t.link_count = 3;
    t.link_poses = traj;
    t.name = "keep";
    assert_ok(gjk_world_query_trajectory(f.w, &t, &opt, &r));
    gjk_world_result_destroy(&r);
    gjk_world_get_info(f.w, &before); /* the named entry is part of the state now */
    t.link_count = 2;
    assert_status(gjk_world_query_trajectory(f.w, &t, &opt, &r), GJK_STATUS_INVALID_INPUT);
    t.link_count = 3;
    t.robot = 42;
    assert_status(gjk_world_query_trajectory(f.w, &t, &opt, &r), GJK_STATUS_NOT_FOUND);
    t.robot = f.arm;
    t.waypoint_count = 0;
    assert_status(gjk_world_query_trajectory(f.w, &t, &opt, &r), GJK_STATUS_INVALID_INPUT);
    t.waypoint_count = 2;
    traj[4].q.x = nan;
    assert_status(gjk_world_query_trajectory(f.w, &t, &opt, &r), GJK_STATUS_INVALID_INPUT);
    assert_null(r);

    /* nothing changed */
    gjk_world_info after;
    gjk_world_get_info(f.w, &after);
    assert_int_equal(after.revision, before.revision);
    assert_int_equal(after.pose_revision, before.pose_revision);
    assert_int_equal(after.robot_count, before.robot_count);
    assert_int_equal(after.obstacle_count, before.obstacle_count);
    assert_int_equal(after.part_count, before.part_count);
    assert_int_equal(after.allowed_pair_count, before.allowed_pair_count);
    assert_int_equal(after.trajectory_count, before.trajectory_count);
    gjk_robot_info ri;
    assert_ok(gjk_world_robot_info(f.w, f.arm, &ri));
    assert_true(ri.self_collision);
    gjk_link_info li;
    assert_ok(gjk_world_link_info(f.w, f.arm, 0, &li));
    assert_near(li.pose.p.x, 0.0, 0.0);
    gjk_obstacle_info oi;
    assert_ok(gjk_world_obstacle_info(f.w, f.wall, &oi));
    assert_near(oi.pose.p.x, 0.9, 0.0);
    assert_ok(gjk_world_query_state(f.w, &opt, &r));
    assert_same_result(ref, r);
    gjk_world_result_destroy(&r);
    gjk_world_result_destroy(&ref);
    gjk_world_destroy(&f.w);

    /* creation */
    gjk_world_def wd = gjk_default_world_def();
    wd.max_robots = 0;
    gjk_world *w = (gjk_world *)&wd; /* must be reset to NULL */
    assert_status(gjk_world_create(&wd, &w), GJK_STATUS_INVALID_INPUT);
    assert_null(w);
    assert_status(gjk_world_create(NULL, NULL), GJK_STATUS_INVALID_INPUT);
}

/* Scene caps are enforced like allocation failures, before anything changes. */
static void test_scene_caps(void **state)
{
    (void)state;
    gjk_world_def wd = gjk_default_world_def();
    wd.max_obstacles = 2;
    wd.max_parts = 5;
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(&wd, &w));
    gjk_part_def part = tw_box_part(0.1, 0.1, 0.1, gjk_v3(0, 0, 0));
    gjk_obstacle_def od = box_obstacle("a", &part, gjk_v3(0.1, 0.1, 0.1), gjk_v3(0, 0, 0));
    assert_ok(gjk_world_put_obstacle(w, &od, NULL));
    od.name = "b";
    assert_ok(gjk_world_put_obstacle(w, &od, NULL));
    od.name = "c";
    assert_status(gjk_world_put_obstacle(w, &od, NULL), GJK_STATUS_OUT_OF_MEMORY);
    od.name = "b"; /* a replace is not an addition */
    assert_ok(gjk_world_put_obstacle(w, &od, NULL));
    gjk_robot_def rd = arm_def(false);
    assert_ok(gjk_world_put_robot(w, &rd, NULL)); /* 2 + 3 parts */
    rd.name = "second";
    assert_status(gjk_world_put_robot(w, &rd, NULL), GJK_STATUS_OUT_OF_MEMORY);
    gjk_world_info info;
    gjk_world_get_info(w, &info);
    assert_int_equal(info.robot_count, 1);
    assert_int_equal(info.part_count, 5);
    gjk_world_destroy(&w);
}

/* Degenerate scenes: nothing in the world, a robot without obstacles, links without parts. */
static void test_empty_and_partless(void **state)
{
    (void)state;
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_state(w, NULL, &r));
    assert_int_equal(r->waypoint_count, 1);
    assert_int_equal(r->waypoints[0].pair_count, 0);
    assert_true(isinf(r->min_distance));
    assert_int_equal(r->first_collision, -1);
    gjk_world_result_destroy(&r);

    gjk_link_def links[2];
    memset(links, 0, sizeof links);
    links[0].name = "base"; /* no parts: never collides */
    gjk_part_def part = tw_box_part(0.1, 0.1, 0.1, gjk_v3(0, 0, 0));
    links[1].name = "tip";
    links[1].parts = &part;
    links[1].part_count = 1;
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "r";
    def.links = links;
    def.link_count = 2;
    def.self_collision = true;
    int32_t id;
    assert_ok(gjk_world_put_robot(w, &def, &id));
    gjk_world_query_options opt = gjk_world_default_query_options();
    opt.pairs = GJK_WORLD_PAIRS_ALL;
    assert_ok(gjk_world_query_state(w, &opt, &r));
    assert_int_equal(r->waypoints[0].pair_count, 0);
    gjk_world_result_destroy(&r);
    gjk_transform poses[2 * 3];
    for (int i = 0; i < 6; ++i)
        poses[i] = tw_at(0.1 * i, 0, 0);
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = id;
    t.waypoint_count = 3;
    t.link_count = 2;
    t.link_poses = poses;
    t.name = "n";
    opt.threads = 2;
    assert_ok(gjk_world_query_trajectory(w, &t, &opt, &r));
    assert_int_equal(r->waypoint_count, 3);
    assert_int_equal(r->min_waypoint, -1);
    gjk_world_result_destroy(&r);
    gjk_obstacle_def od = box_obstacle("o", &wall_part, gjk_v3(0.1, 0.1, 0.1), gjk_v3(0.2, 0, 0));
    assert_ok(gjk_world_put_obstacle(w, &od, NULL));
    assert_ok(gjk_world_query_trajectory(w, &t, &opt, &r));
    assert_int_equal(r->first_collision, 0); /* the tip starts inside the box */
    assert_int_equal(r->waypoints[0].pairs[0].a.body.link, 1);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_names_revisions),
        cmocka_unit_test(test_state_distances_and_witnesses),
        cmocka_unit_test(test_self_collision_and_disabled_pairs),
        cmocka_unit_test(test_allowed_pairs),
        cmocka_unit_test(test_padding),
        cmocka_unit_test(test_first_collision_and_overlap),
        cmocka_unit_test(test_robot_robot_pairs),
        cmocka_unit_test(test_body_pairs),
        cmocka_unit_test(test_trajectory_summary),
        cmocka_unit_test(test_named_cache_changes_and_caps),
        cmocka_unit_test(test_named_bounds_follow_scene_changes),
        cmocka_unit_test(test_replace_robot_remaps_rules),
        cmocka_unit_test(test_bad_input_leaves_world_unchanged),
        cmocka_unit_test(test_scene_caps),
        cmocka_unit_test(test_trajectory_cancel),
        cmocka_unit_test(test_empty_and_partless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
