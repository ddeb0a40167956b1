/* test_world_continuous.c — continuous segments of world trajectory queries (gjk/world.h,
 * Continuous segments): thin walls between clear waypoints, robots with joints and link-pose
 * robots in random scenes against the world's own discrete query run on waypoints 1e-4 of a
 * segment apart (never clear where it finds a collision; the lower bound never above its
 * minimum), allowed pairs and padding, pruning of far pairs, max_distance, thread-count
 * independence and refused options. */
#include "test_world_util.h"

#define SAMPLES 10000

static gjk_transform tr(double x, double y, double z)
{
    return gjk_transform_make(gjk_quat_identity(), gjk_v3(x, y, z));
}

static gjk_world *new_world(void)
{
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    return w;
}

static int32_t put_obstacle(gjk_world *w, const char *name, gjk_shape s, gjk_transform pose,
                            double padding)
{
    gjk_part_def part = {"p", s, gjk_transform_identity()};
    gjk_obstacle_def def = {name, &part, 1, pose, padding};
    int32_t id;
    assert_ok(gjk_world_put_obstacle(w, &def, &id));
    return id;
}

/* One-link link-pose robot: a small ball. */
static int32_t put_ball_robot(gjk_world *w, double radius)
{
    gjk_part_def part = {"ball", gjk_make_sphere(radius), gjk_transform_identity()};
    gjk_link_def link = {"tool", &part, 1, 0.0};
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "bot";
    def.links = &link;
    def.link_count = 1;
    int32_t id;
    assert_ok(gjk_world_put_robot(w, &def, &id));
    return id;
}

static void test_thin_wall(void **state)
{
    (void)state;
    gjk_world *w = new_world();
    int32_t bot = put_ball_robot(w, 0.05);
    put_obstacle(w, "wall", gjk_make_box(gjk_v3(0.005, 1, 1)), tr(0, 0, 0), 0.0);
    put_obstacle(w, "far", gjk_make_box(gjk_v3(0.1, 0.1, 0.1)), tr(0, 5, 0), 0.0);
    gjk_transform poses[3] = {tr(-1, 0, 0), tr(1, 0, 0), tr(1, 0.5, 0)};
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = bot;
    t.waypoint_count = 3;
    t.link_count = 1;
    t.link_poses = poses;
    gjk_world_query_options o = gjk_world_default_query_options();
    gjk_world_result *r;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    assert_int_equal(r->first_collision, -1); /* the waypoints miss the wall */
    assert_int_equal(r->segment_count, 0);
    gjk_world_result_destroy(&r);

    o.continuous = true;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    assert_int_equal(r->first_collision, -1);
    assert_int_equal(r->segment_count, 2);
    assert_int_equal(r->first_contact_segment, 0);
    assert_int_equal(r->segments_undecided, 0);
    const gjk_world_segment *s = &r->segments[0];
    assert_int_equal(s->verdict, GJK_CCD_CONTACT);
    double exact = (1.0 - 0.055) / 2.0;
    assert_le(s->t, exact, 1e-12);
    assert_le(exact, s->t + GJK_CCD_DEFAULT_TIME_TOLERANCE, 1e-12);
    assert_true(isnan(s->clearance_lower_bound));
    assert_true(s->has_pair);
    assert_string_equal(s->pair.a.object_name, "bot");
    assert_string_equal(s->pair.b.object_name, "wall");
    assert_near(s->pair.normal.x, 1.0, 1e-6);
    assert_near(s->pair.b.point.x, -0.005, 1e-5);
    assert_true(s->pair.distance < 1e-5);
    /* the far obstacle cost nothing */
    assert_int_equal(s->pairs_checked, 1);
    /* the second segment slides along x = 1: clear, bound at most the true 0.945 */
    s = &r->segments[1];
    assert_int_equal(s->verdict, GJK_CCD_CLEAR);
    assert_true(s->clearance_lower_bound > 0.4 && s->clearance_lower_bound <= 0.945 + 1e-12);
    assert_true(s->has_pair);
    assert_string_equal(s->pair.b.object_name, "wall");
    gjk_world_result_destroy(&r);

    /* allowed: the wall is never checked */
    assert_ok(gjk_world_set_allowed(w, gjk_link_body(bot, 0), gjk_obstacle_body(1), true));
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    assert_int_equal(r->segments[0].verdict, GJK_CCD_CLEAR);
    assert_int_equal(r->first_contact_segment, -1);
    assert_string_equal(r->segments[0].pair.b.object_name, "far");
    gjk_world_result_destroy(&r);

    /* max_distance: nothing within 0.5 of the second segment... the wall is allowed and
     * "far" is 4.4 away: settled by swept boxes alone, bound = max_distance */
    o.has_max_distance = true;
    o.max_distance = 0.5;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    assert_int_equal(r->segments[1].verdict, GJK_CCD_CLEAR);
    assert_near(r->segments[1].clearance_lower_bound, 0.5, 0.0);
    assert_int_equal(r->segments[1].pairs_checked, 0);
    assert_false(r->segments[1].has_pair);
    gjk_world_result_destroy(&r);

    /* refused options */
    o.ccd_time_tolerance = 0.7;
    assert_status(gjk_world_query_trajectory(w, &t, &o, &r), GJK_STATUS_INVALID_INPUT);
    o.ccd_time_tolerance = NAN;
    assert_status(gjk_world_query_trajectory(w, &t, &o, &r), GJK_STATUS_INVALID_INPUT);
    o.ccd_time_tolerance = 0;
    o.ccd_max_evaluations = -1;
    assert_status(gjk_world_query_trajectory(w, &t, &o, &r), GJK_STATUS_INVALID_INPUT);
    gjk_world_destroy(&w);
}

/* Padding counts: a ball passing 0.02 beside a pole touches it once both are padded. */
static void test_padding(void **state)
{
    (void)state;
    gjk_world *w = new_world();
    int32_t bot = put_ball_robot(w, 0.05);
    int32_t pole = put_obstacle(w, "pole", gjk_make_cylinder(0.01, 1), tr(0, 0.08, 0), 0.0);
    gjk_transform poses[2] = {tr(-1, 0, 0), tr(1, 0, 0)};
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = bot;
    t.waypoint_count = 2;
    t.link_count = 1;
    t.link_poses = poses;
    gjk_world_query_options o = gjk_world_default_query_options();
    o.continuous = true;
    gjk_world_result *r;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    assert_int_equal(r->segments[0].verdict, GJK_CCD_CLEAR);
    assert_le(r->segments[0].clearance_lower_bound, 0.02, 1e-12);
    assert_true(r->segments[0].clearance_lower_bound > 0.005);
    gjk_world_result_destroy(&r);
    assert_ok(gjk_world_set_padding(w, gjk_obstacle_body(pole), 0.03));
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    assert_int_equal(r->segments[0].verdict, GJK_CCD_CONTACT);
    /* contact when the padded gap 0.02 - 0.03 closes: |x| = sqrt(0.09^2 - 0.08^2) */
    double x = sqrt(0.09 * 0.09 - 0.08 * 0.08);
    double exact = (1.0 - x) / 2.0;
    assert_le(r->segments[0].t, exact, 1e-9);
    assert_le(exact, r->segments[0].t + 1e-6, 1e-9);
    assert_near(r->segments[0].pair.padding, 0.03, 0.0);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&w);
}

/* ------------------------------------------------------------------ random scenes */

/* A three-link arm on a fixed base: base (box), upper (capsule), fore (box + ball), joints
 * j1 revolute z, j2 revolute y, j3 prismatic x; self collision on, adjacent pairs disabled. */
static int32_t put_arm(gjk_world *w, double padding)
{
    gjk_part_def base = {"base", gjk_make_box(gjk_v3(0.1, 0.1, 0.05)), tr(0, 0, 0.05)};
    gjk_part_def upper = {"upper", gjk_make_capsule(0.05, 0.2), tr(0, 0, 0.25)};
    gjk_part_def fore[2] = {{"fore", gjk_make_box(gjk_v3(0.2, 0.03, 0.03)), tr(0.2, 0, 0)},
                            {"tip", gjk_make_sphere(0.05), tr(0.42, 0, 0)}};
    gjk_part_def hand = {"hand", gjk_make_cone(0.05, 0.08), tr(0.05, 0, 0)};
    gjk_link_def links[4] = {{"base", &base, 1, 0.0},
                             {"upper", &upper, 1, padding},
                             {"fore", fore, 2, 0.0},
                             {"hand", &hand, 1, 0.0}};
    gjk_joint_def j[3];
    memset(j, 0, sizeof j);
    j[0] = (gjk_joint_def){"j1", GJK_JOINT_REVOLUTE, 0, 1, tr(0, 0, 0.1), {0, 0, 1}, -3, 3, NULL, 0,
                           0};
    j[1] = (gjk_joint_def){
        "j2", GJK_JOINT_REVOLUTE, 1, 2, tr(0, 0, 0.45), {0, 1, 0}, -2.5, 2.5, NULL, 0, 0};
    j[2] = (gjk_joint_def){
        "j3", GJK_JOINT_PRISMATIC, 2, 3, tr(0.45, 0, 0), {1, 0, 0}, -0.1, 0.3, NULL, 0, 0};
    gjk_link_name_pair disabled[3] = {{"base", "upper"}, {"upper", "fore"}, {"fore", "hand"}};
    gjk_robot_def def;
    memset(&def, 0, sizeof def);
    def.name = "arm";
    def.links = links;
    def.link_count = 4;
    def.self_collision = true;
    def.disabled_pairs = disabled;
    def.disabled_pair_count = 3;
    def.joints = j;
    def.joint_count = 3;
    int32_t id;
    assert_ok(gjk_world_put_robot(w, &def, &id));
    return id;
}

typedef struct sampled {
    double min; /* least sampled distance */
    int first;  /* first colliding sample, -1 if none */
    bool last_collides;
} sampled;

/* The world's discrete query on SAMPLES + 1 waypoints along the segment. */
static sampled sample_joint_segment(gjk_world *w, int32_t robot, const double *q0, const double *q1,
                                    int dof)
{
    double *q = malloc((size_t)(SAMPLES + 1) * (size_t)dof * sizeof *q);
    assert_non_null(q);
    for (int i = 0; i <= SAMPLES; ++i)
        for (int d = 0; d < dof; ++d)
            q[i * dof + d] = q0[d] + (double)i / SAMPLES * (q1[d] - q0[d]);
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = robot;
    t.waypoint_count = SAMPLES + 1;
    t.dof_count = dof;
    t.joint_positions = q;
    gjk_world_query_options o = gjk_world_default_query_options();
    o.no_penetration_depth = true;
    gjk_world_result *r;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    sampled s = {r->min_distance, r->first_collision, r->waypoints[SAMPLES].collision};
    gjk_world_result_destroy(&r);
    free(q);
    return s;
}

static sampled sample_pose_segment(gjk_world *w, int32_t robot, const gjk_transform *p0,
                                   const gjk_transform *p1, int links)
{
    gjk_transform *p = malloc((size_t)(SAMPLES + 1) * (size_t)links * sizeof *p);
    assert_non_null(p);
    for (int i = 0; i <= SAMPLES; ++i)
        for (int l = 0; l < links; ++l)
            p[i * links + l] = gjk_pose_interpolate(p0[l], p1[l], (double)i / SAMPLES);
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = robot;
    t.waypoint_count = SAMPLES + 1;
    t.link_count = links;
    t.link_poses = p;
    gjk_world_query_options o = gjk_world_default_query_options();
    o.no_penetration_depth = true;
    gjk_world_result *r;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    sampled s = {r->min_distance, r->first_collision, r->waypoints[SAMPLES].collision};
    gjk_world_result_destroy(&r);
    free(p);
    return s;
}

typedef struct tally {
    int contact, clear, undecided, missed;
    int between; /* contacts strictly between two collision-free waypoints */
} tally;

static void check_segment(const gjk_world_segment *s, sampled d, tally *n)
{
    if (s->verdict == GJK_CCD_CLEAR) {
        ++n->clear;
        n->missed += d.first >= 0;
        assert_true(d.first < 0); /* never clear where sampling collides */
        assert_le(s->clearance_lower_bound, d.min, 1e-12);
        assert_true(s->clearance_lower_bound > 0.0);
        return;
    }
    if (d.first >= 0) /* certified clear before t: the first sampled collision is not earlier */
        assert_le(s->t, (double)d.first / SAMPLES, 1e-12);
    if (s->verdict == GJK_CCD_UNDECIDED) {
        ++n->undecided;
        return;
    }
    assert_int_equal(s->verdict, GJK_CCD_CONTACT);
    ++n->contact;
    n->between += d.first > 0 && !d.last_collides;
    assert_true(s->has_pair);
}

static void random_obstacles(gjk_world *w, int count)
{
    char name[32];
    for (int i = 0; i < count; ++i) {
        snprintf(name, sizeof name, "o%d", i);
        gjk_vec3 c = gjk_v3(rnd_range(-0.8, 0.8), rnd_range(-0.8, 0.8), rnd_range(0, 0.9));
        gjk_shape s = tw_shape(rnd_range(0.01, 0.12));
        put_obstacle(w, name, s, gjk_transform_make(tw_quat(), c), rnd() < 0.2 ? 0.02 : 0.0);
    }
}

static void test_arm_vs_sampling(void **state)
{
    (void)state;
    test_seed(41);
    tally n = {0};
    for (int k = 0; k < 24; ++k) {
        gjk_world *w = new_world();
        int32_t arm = put_arm(w, k % 3 == 0 ? 0.01 : 0.0);
        random_obstacles(w, 3 + tw_int(8));
        double q[6] = {rnd_range(-3, 3), rnd_range(-2.5, 2.5), rnd_range(-0.1, 0.3),
                       rnd_range(-3, 3), rnd_range(-2.5, 2.5), rnd_range(-0.1, 0.3)};
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = arm;
        t.waypoint_count = 2;
        t.dof_count = 3;
        t.joint_positions = q;
        gjk_world_query_options o = gjk_world_default_query_options();
        o.continuous = true;
        gjk_world_result *r;
        assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
        assert_int_equal(r->segment_count, 1);
        sampled d = sample_joint_segment(w, arm, q, q + 3, 3);
        check_segment(&r->segments[0], d, &n);
        gjk_world_result_destroy(&r);
        gjk_world_destroy(&w);
        tw_free_polytopes();
    }
    print_message("arm segments: %d contact (%d between clear waypoints), %d clear, %d undecided, "
                  "%d missed\n",
                  n.contact, n.between, n.clear, n.undecided, n.missed);
    assert_int_equal(n.missed, 0);
    assert_true(n.between >= 2 && n.clear >= 3);
}

static void test_link_pose_robot_vs_sampling(void **state)
{
    (void)state;
    test_seed(43);
    tally n = {0};
    for (int k = 0; k < 24; ++k) {
        gjk_world *w = new_world();
        gjk_part_def parts[3] = {{"a", tw_shape(0.1), tr(0.1, 0, 0)},
                                 {"b", tw_shape(0.08), tr(0, 0.2, 0)},
                                 {"c", gjk_make_box(gjk_v3(0.3, 0.01, 0.05)), tr(0, 0, 0.1)}};
        gjk_link_def links[2] = {{"l0", parts, 2, 0.0}, {"l1", parts + 2, 1, 0.0}};
        gjk_robot_def def;
        memset(&def, 0, sizeof def);
        def.name = "free";
        def.links = links;
        def.link_count = 2;
        def.self_collision = true;
        int32_t bot;
        assert_ok(gjk_world_put_robot(w, &def, &bot));
        random_obstacles(w, 4 + tw_int(6));
        gjk_transform p[4];
        for (int i = 0; i < 4; ++i)
            p[i] = gjk_transform_make(
                tw_quat(), gjk_v3(rnd_range(-0.6, 0.6), rnd_range(-0.6, 0.6), rnd_range(0, 0.9)));
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = bot;
        t.waypoint_count = 2;
        t.link_count = 2;
        t.link_poses = p;
        gjk_world_query_options o = gjk_world_default_query_options();
        o.continuous = true;
        gjk_world_result *r;
        assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
        sampled d = sample_pose_segment(w, bot, p, p + 2, 2);
        check_segment(&r->segments[0], d, &n);
        gjk_world_result_destroy(&r);
        gjk_world_destroy(&w);
        tw_free_polytopes();
    }
    print_message("link-pose segments: %d contact (%d between clear waypoints), %d clear, %d "
                  "undecided, %d missed\n",
                  n.contact, n.between, n.clear, n.undecided, n.missed);
    assert_int_equal(n.missed, 0);
    assert_true(n.between >= 2 && n.clear >= 3);
}

/* Many far obstacles: the swept bounds settle them without a query; the answer is the one
 * without them. Threads change nothing. */
static void test_pruning_and_threads(void **state)
{
    (void)state;
    test_seed(47);
    gjk_world *w = new_world();
    int32_t arm = put_arm(w, 0.0);
    random_obstacles(w, 6);
    enum { WAYPOINTS = 40 };
    double q[WAYPOINTS * 3];
    for (int i = 0; i < WAYPOINTS; ++i) {
        double s = (double)i / (WAYPOINTS - 1);
        q[i * 3 + 0] = -2.5 + 5 * s;
        q[i * 3 + 1] = 1.5 * sin(6 * s);
        q[i * 3 + 2] = 0.1 + 0.15 * cos(5 * s);
    }
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = arm;
    t.waypoint_count = WAYPOINTS;
    t.dof_count = 3;
    t.joint_positions = q;
    gjk_world_query_options o = gjk_world_default_query_options();
    o.continuous = true;
    gjk_world_result *near_only;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &near_only));
    char name[32];
    for (int i = 0; i < 500; ++i) {
        snprintf(name, sizeof name, "far%d", i);
        gjk_vec3 c = gjk_scale(rnd_unit(), rnd_range(20, 40));
        put_obstacle(w, name, gjk_make_box(gjk_v3(0.2, 0.2, 0.2)), tr(c.x, c.y, c.z), 0.0);
    }
    gjk_world_result *r1, *r4;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r1));
    o.threads = 4;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r4));
    assert_int_equal(r1->segment_count, WAYPOINTS - 1);
    int contacts = 0;
    for (int i = 0; i < r1->segment_count; ++i) {
        const gjk_world_segment *a = &near_only->segments[i], *b = &r1->segments[i],
                                *c = &r4->segments[i];
        /* both certified: they may differ only where one is undecided */
        assert_false(a->verdict == GJK_CCD_CLEAR && b->verdict == GJK_CCD_CONTACT);
        assert_false(a->verdict == GJK_CCD_CONTACT && b->verdict == GJK_CCD_CLEAR);
        contacts += b->verdict == GJK_CCD_CONTACT;
        if (a->verdict == GJK_CCD_CONTACT && b->verdict == GJK_CCD_CONTACT)
            assert_near(a->t, b->t, GJK_CCD_DEFAULT_TIME_TOLERANCE);
        /* the far obstacles are never searched: at most the near part pairs (5 link parts x 6
         * obstacles, 4 non-adjacent self part pairs) */
        assert_true(b->pairs_checked <= 34);
        /* thread-count independence, field by field */
        assert_int_equal(b->verdict, c->verdict);
        assert_memory_equal(&b->t, &c->t, sizeof b->t);
        assert_memory_equal(&b->clearance_lower_bound, &c->clearance_lower_bound,
                            sizeof b->clearance_lower_bound);
        assert_int_equal(b->evaluations, c->evaluations);
        assert_int_equal(b->has_pair, c->has_pair);
        if (b->has_pair) {
            assert_string_equal(b->pair.b.body_name, c->pair.b.body_name);
            assert_memory_equal(&b->pair.a.point, &c->pair.a.point, sizeof b->pair.a.point);
            assert_memory_equal(&b->pair.normal, &c->pair.normal, sizeof b->pair.normal);
        }
    }
    print_message("trajectory: %d of %d segments in contact, %d undecided\n", contacts,
                  r1->segment_count, r1->segments_undecided);
    /* FIRST_COLLISION: the pair searches only certify; the same verdicts up to the first
     * contact, nothing after it, on any thread count */
    o.mode = GJK_WORLD_MODE_FIRST_COLLISION;
    gjk_world_result *rf, *rf1;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &rf));
    o.threads = 1;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &rf1));
    assert_true(r1->first_contact_segment >= 0);
    assert_int_equal(rf->first_contact_segment, r1->first_contact_segment);
    for (int i = 0; i < rf->segment_count; ++i) {
        const gjk_world_segment *a = &r1->segments[i], *f = &rf->segments[i];
        assert_int_equal(f->evaluated, i <= rf->first_contact_segment);
        assert_int_equal(f->verdict, rf1->segments[i].verdict);
        assert_int_equal(f->evaluations, rf1->segments[i].evaluations);
        if (!f->evaluated) {
            assert_int_equal(f->verdict, GJK_CCD_UNSPECIFIED);
            assert_false(f->has_pair);
            continue;
        }
        assert_true(a->evaluated);
        assert_false(a->verdict == GJK_CCD_CLEAR && f->verdict == GJK_CCD_CONTACT);
        assert_false(a->verdict == GJK_CCD_CONTACT && f->verdict == GJK_CCD_CLEAR);
        if (f->verdict == GJK_CCD_CLEAR)
            assert_true(f->clearance_lower_bound > 0.0);
    }
    gjk_world_result_destroy(&rf);
    gjk_world_result_destroy(&rf1);
    gjk_world_result_destroy(&near_only);
    gjk_world_result_destroy(&r1);
    gjk_world_result_destroy(&r4);
    gjk_world_destroy(&w);
    tw_free_polytopes();
}

/* A waypoint in collision: its segment is a contact at t = 0, and the result agrees with the
 * discrete answer there. */
static void test_contact_at_waypoint(void **state)
{
    (void)state;
    gjk_world *w = new_world();
    int32_t bot = put_ball_robot(w, 0.1);
    put_obstacle(w, "box", gjk_make_box(gjk_v3(0.1, 0.1, 0.1)), tr(0, 0, 0), 0.0);
    gjk_transform poses[3] = {tr(2, 0, 0), tr(0.15, 0, 0), tr(2, 0, 0)};
    gjk_world_trajectory t;
    memset(&t, 0, sizeof t);
    t.robot = bot;
    t.waypoint_count = 3;
    t.link_count = 1;
    t.link_poses = poses;
    gjk_world_query_options o = gjk_world_default_query_options();
    o.continuous = true;
    gjk_world_result *r;
    assert_ok(gjk_world_query_trajectory(w, &t, &o, &r));
    assert_int_equal(r->first_collision, 1);
    assert_int_equal(r->segments[0].verdict, GJK_CCD_CONTACT);
    assert_true(r->segments[0].t > 0.9 && r->segments[0].t < 1.0);
    assert_int_equal(r->segments[1].verdict, GJK_CCD_CONTACT);
    assert_near(r->segments[1].t, 0.0, 0.0);
    assert_near(r->segments[1].pair.distance, -0.05, 1e-9); /* EPA's depth */
    assert_near(r->segments[1].pair.normal.x, -1.0, 1e-9);
    assert_int_equal(r->first_contact_segment, 0);
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thin_wall),
        cmocka_unit_test(test_padding),
        cmocka_unit_test(test_contact_at_waypoint),
        cmocka_unit_test(test_arm_vs_sampling),
        cmocka_unit_test(test_link_pose_robot_vs_sampling),
        cmocka_unit_test(test_pruning_and_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
