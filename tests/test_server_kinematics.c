/* test_server_kinematics.c — robots with joints through the daemon's codec and dispatch,
 * without sockets: Robot.joints decoded (names to indices; every refusal names the joint and
 * says why), joint positions in set_link_poses and the pose stream (JointState-style subsets,
 * refusals naming the joint), joint-space trajectories (packed, permuted columns, waypoint
 * messages) equal to each other and to the state query at each waypoint, gradients in pairs
 * with the DOF order in joint_names, and RobotSummary's joint names and positions.
 *
 * The robot: a rail base with a cart on a prismatic joint "slide" (x, [-1, 1]) carrying an arm
 * on a revolute joint "turn" (z, [-2, 2]) and a finger on "grip", a mimic of "slide"
 * (q = 0.5 q(slide) + 0.1, prismatic along y), and a fixed "tool" link. Links are boxes. */
#include "test_server_util.h"

static gjkd_service *cart_service(void)
{
    gjkd_service *svc = t_service(NULL);
    gjkd_arena a = {0};
    assert_code(t_call_code(svc, t_put_robot(&a, t_cart_robot(&a, "cart"))), GJKD_CODE(OK));
    assert_code(t_call_code(svc, t_put_obstacle(&a, t_obstacle(&a, "wall", 0.1, 1.5))),
                GJKD_CODE(OK));
    gjkd_arena_free(&a);
    return svc;
}

/* Calls and expects `code` with a message containing every fragment given. */
static void expect_refusal(gjkd_service *svc, const Gjkd__V1__Request *req, gjkd_code code,
                           const char *f1, const char *f2)
{
    Gjkd__V1__Response *r = t_call(svc, req);
    if (r->status->code != code || (f1 && !strstr(r->status->message, f1)) ||
        (f2 && !strstr(r->status->message, f2))) {
        print_error("got %s \"%s\", expected %s with '%s' '%s'\n", gjkd_code_name(r->status->code),
                    r->status->message, gjkd_code_name(code), f1 ? f1 : "", f2 ? f2 : "");
        fail();
    }
    gjkd__v1__response__free_unpacked(r, NULL);
}

static void test_put_and_summary(void **state)
{
    (void)state;
    gjkd_service *svc = cart_service();
    gjkd_arena a = {0};
    Gjkd__V1__Response *r = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_int_equal(r->scene_summary->n_robots, 1);
    const Gjkd__V1__RobotSummary *s = r->scene_summary->robots[0];
    assert_int_equal(s->n_joint_names, 2);
    assert_string_equal(s->joint_names[0], "slide");
    assert_string_equal(s->joint_names[1], "turn");
    assert_int_equal(s->n_positions, 2);
    assert_true(s->positions[0] == 0.0 && s->positions[1] == 0.0);
    /* the store keeps the Robot message as put, joints and all */
    assert_int_equal(r->scene_summary->scene->robots[0]->n_joints, 4);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_arena_free(&a);
    gjkd_service_destroy(&svc);
}

static void test_put_refusals(void **state)
{
    (void)state;
    gjkd_service *svc = t_service(NULL);
    gjkd_arena a = {0};
    Gjkd__V1__Robot *r = t_cart_robot(&a, "bad");
    r->joints[1]->parent = "nowhere";
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(NOT_FOUND), "joints[1] \"turn\".parent",
                   "no link named 'nowhere'");
    r = t_cart_robot(&a, "bad");
    r->joints[1]->limits = NULL;
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "joints[1] \"turn\"",
                   "limits: required for a revolute joint");
    r = t_cart_robot(&a, "bad");
    r->joints[1]->type = GJKD__V1__JOINT_TYPE__JOINT_TYPE_UNSPECIFIED;
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "joints[1] \"turn\".type",
                   "missing");
    r = t_cart_robot(&a, "bad");
    r->joints[1]->axis = t_vec3(&a, 0, 0, 0); /* the builder's reason, naming the joint */
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "joints[1] \"turn\"",
                   "axis");
    r = t_cart_robot(&a, "bad");
    r->joints[3]->child = "l2"; /* l2 gets two parents, l4 none */
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "joints[3] \"tool\"",
                   NULL);
    r = t_cart_robot(&a, "bad");
    r->joints[2]->mimic->joint = "ghost";
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "joints[2] \"grip\"",
                   NULL);
    r = t_cart_robot(&a, "bad");
    r->n_initial_link_poses = 5;
    r->initial_link_poses = t_link_poses(&a, 5, 0, 0.1)->poses;
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "initial_link_poses",
                   "not allowed with joints");
    r = t_cart_robot(&a, "bad");
    double init[2] = {0.5, 2.5};
    r->n_initial_positions = 2;
    r->initial_positions = init;
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_INPUT), "joint 'turn'",
                   "outside its limits");
    r->n_initial_positions = 1;
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "initial_positions",
                   "1 values for 2 degrees of freedom");
    r = t_robot(&a, "plain", 2);
    r->base_pose = t_pose(&a, 1, 0, 0);
    expect_refusal(svc, t_put_robot(&a, r), GJKD_CODE(INVALID_ARGUMENT), "base_pose",
                   "only a robot with joints");
    /* nothing was put */
    Gjkd__V1__Response *s = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_int_equal(s->scene_summary->n_robots, 0);
    gjkd__v1__response__free_unpacked(s, NULL);
    /* initial positions and base pose accepted */
    r = t_cart_robot(&a, "good");
    init[1] = 1.5;
    r->n_initial_positions = 2;
    r->initial_positions = init;
    r->base_pose = t_pose(&a, 0, 2, 0);
    assert_code(t_call_code(svc, t_put_robot(&a, r)), GJKD_CODE(OK));
    s = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    assert_true(s->scene_summary->robots[0]->positions[0] == 0.5);
    assert_true(s->scene_summary->robots[0]->positions[1] == 1.5);
    gjkd__v1__response__free_unpacked(s, NULL);
    gjkd_arena_free(&a);
    gjkd_service_destroy(&svc);
}

static Gjkd__V1__JointPositions *t_joint_positions(gjkd_arena *a, int n, const char *const *names,
                                                   const double *values)
{
    Gjkd__V1__JointPositions *jp = gjkd_arena_alloc(a, sizeof *jp);
    gjkd__v1__joint_positions__init(jp);
    jp->n_positions = (size_t)n;
    jp->positions = gjkd_arena_alloc(a, (size_t)(n + 1) * sizeof(double));
    memcpy(jp->positions, values, (size_t)n * sizeof(double));
    if (names) {
        jp->n_names = (size_t)n;
        jp->names = gjkd_arena_alloc(a, (size_t)(n + 1) * sizeof(char *));
        for (int i = 0; i < n; ++i)
            jp->names[i] = gjkd_arena_strdup(a, names[i]);
    }
    return jp;
}

static Gjkd__V1__Request *t_set_joints(gjkd_arena *a, const char *robot, int n,
                                       const char *const *names, const double *values)
{
    Gjkd__V1__Request *r = t_set_poses(a, robot, NULL);
    Gjkd__V1__RobotState *st = r->set_link_poses->robots[0];
    st->state_case = GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS;
    st->joint_positions = t_joint_positions(a, n, names, values);
    return r;
}

static void summary_positions(gjkd_service *svc, double q[2])
{
    gjkd_arena a = {0};
    Gjkd__V1__Response *s = t_call(svc, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY));
    q[0] = s->scene_summary->robots[0]->positions[0];
    q[1] = s->scene_summary->robots[0]->positions[1];
    gjkd__v1__response__free_unpacked(s, NULL);
    gjkd_arena_free(&a);
}

static void test_set_joint_positions(void **state)
{
    (void)state;
    gjkd_service *svc = cart_service();
    gjkd_arena a = {0};
    double full[2] = {0.4, -1.0};
    assert_code(t_call_code(svc, t_set_joints(&a, "cart", 2, NULL, full)), GJKD_CODE(OK));
    double q[2];
    summary_positions(svc, q);
    assert_true(q[0] == 0.4 && q[1] == -1.0);
    /* a subset, names in any order: "turn" alone */
    const char *turn[1] = {"turn"};
    double v[1] = {0.7};
    assert_code(t_call_code(svc, t_set_joints(&a, "cart", 1, turn, v)), GJKD_CODE(OK));
    summary_positions(svc, q);
    assert_true(q[0] == 0.4 && q[1] == 0.7);
    const char *both[2] = {"turn", "slide"};
    double bv[2] = {0.1, -0.2};
    assert_code(t_call_code(svc, t_set_joints(&a, "cart", 2, both, bv)), GJKD_CODE(OK));
    summary_positions(svc, q);
    assert_true(q[0] == -0.2 && q[1] == 0.1);
    /* refusals, each naming the joint; nothing changes */
    const char *grip[1] = {"grip"}, *tool[1] = {"tool"}, *ghost[1] = {"ghost"};
    expect_refusal(svc, t_set_joints(&a, "cart", 1, grip, v), GJKD_CODE(INVALID_ARGUMENT),
                   "joint 'grip' is a mimic joint", "follows 'slide'");
    expect_refusal(svc, t_set_joints(&a, "cart", 1, tool, v), GJKD_CODE(INVALID_ARGUMENT),
                   "joint 'tool' is a fixed joint", NULL);
    expect_refusal(svc, t_set_joints(&a, "cart", 1, ghost, v), GJKD_CODE(NOT_FOUND),
                   "names[0]: no joint named 'ghost'", NULL);
    const char *twice[2] = {"turn", "turn"};
    expect_refusal(svc, t_set_joints(&a, "cart", 2, twice, bv), GJKD_CODE(INVALID_ARGUMENT),
                   "names[1]: joint 'turn' given twice", NULL);
    double over[1] = {2.5};
    expect_refusal(svc, t_set_joints(&a, "cart", 1, turn, over), GJKD_CODE(INVALID_INPUT),
                   "joint 'turn': 2.5 is outside its limits [-2, 2]", NULL);
    expect_refusal(svc, t_set_joints(&a, "cart", 1, NULL, v), GJKD_CODE(INVALID_ARGUMENT),
                   "1 values for robot 'cart' of 2 degrees of freedom", NULL);
    expect_refusal(svc, t_set_poses(&a, "cart", t_link_poses(&a, 5, 0, 0.1)),
                   GJKD_CODE(INVALID_ARGUMENT), "robot 'cart' has joints", "give joint_positions");
    summary_positions(svc, q);
    assert_true(q[0] == -0.2 && q[1] == 0.1);
    /* a link-pose robot takes no joint positions */
    assert_code(t_call_code(svc, t_put_robot(&a, t_robot(&a, "plain", 2))), GJKD_CODE(OK));
    expect_refusal(svc, t_set_joints(&a, "plain", 1, NULL, v), GJKD_CODE(INVALID_ARGUMENT),
                   "robot 'plain' has no joints", NULL);
    /* the pose stream takes joint states too */
    Gjkd__V1__PoseUpdate u = GJKD__V1__POSE_UPDATE__INIT;
    Gjkd__V1__Request *req = t_set_joints(&a, "cart", 1, turn, v);
    u.n_robots = 1;
    u.robots = req->set_link_poses->robots;
    u.sequence = 7;
    size_t n = gjkd__v1__pose_update__get_packed_size(&u);
    uint8_t *buf = malloc(n);
    gjkd__v1__pose_update__pack(&u, buf);
    uint64_t seq = 0;
    gjkd_error e;
    assert_true(gjkd_service_pose_update(svc, buf, n, &seq, &e));
    assert_int_equal(seq, 7);
    summary_positions(svc, q);
    assert_true(q[0] == -0.2 && q[1] == 0.7);
    free(buf);
    gjkd_arena_free(&a);
    gjkd_service_destroy(&svc);
}

/* The slide moves every link but the rail along world x (and the finger and tool along y
 * through the mimic, turn being 0), so d(distance)/d(slide) = -n.(x + 0.5 y) for those two,
 * -n.x for the cart and the arm and 0 for the rail (the values at large are core's, checked against
 * finite differences in test_world_kinematics). */
static void test_state_query_gradients(void **state)
{
    (void)state;
    gjkd_service *svc = cart_service();
    gjkd_arena a = {0};
    double q0[2] = {0.5, 0.0};
    assert_code(t_call_code(svc, t_set_joints(&a, "cart", 2, NULL, q0)), GJKD_CODE(OK));
    Gjkd__V1__Request *req = t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 2.0);
    req->state_query->options->gradients = true;
    Gjkd__V1__Response *r = t_call(svc, req);
    assert_code(r->status->code, GJKD_CODE(OK));
    const Gjkd__V1__StateResult *st = r->state;
    assert_int_equal(st->n_joint_names, 1);
    assert_string_equal(st->joint_names[0]->robot, "cart");
    assert_int_equal(st->joint_names[0]->n_names, 2);
    assert_string_equal(st->joint_names[0]->names[0], "slide");
    assert_true(st->n_pairs >= 3);
    for (size_t i = 0; i < st->n_pairs; ++i) {
        const Gjkd__V1__PairResult *p = st->pairs[i];
        assert_int_equal(p->n_gradient_a, 2);
        assert_int_equal(p->n_gradient_b, 0);
        if (strcmp(p->body_a->link, "l0") == 0)
            assert_true(p->gradient_a[0] == 0.0); /* the rail does not slide */
        else if (strcmp(p->body_a->link, "l1") == 0 || strcmp(p->body_a->link, "l2") == 0)
            assert_near(p->gradient_a[0], -p->normal->x, 1e-12);
        else /* the finger and the tool ride the mimic "grip" too: 0.5 m/m along y */
            assert_near(p->gradient_a[0], -(p->normal->x + 0.5 * p->normal->y), 1e-12);
    }
    gjkd__v1__response__free_unpacked(r, NULL);
    /* without the option: no gradients, no joint names */
    req->state_query->options->gradients = false;
    r = t_call(svc, req);
    assert_int_equal(r->state->n_joint_names, 0);
    assert_int_equal(r->state->pairs[0]->n_gradient_a, 0);
    gjkd__v1__response__free_unpacked(r, NULL);
    gjkd_arena_free(&a);
    gjkd_service_destroy(&svc);
}

enum { WP = 11 };

static Gjkd__V1__Request *t_traj(gjkd_arena *a, bool gradients)
{
    Gjkd__V1__Request *r = t_request(a, 9);
    Gjkd__V1__TrajectoryQueryRequest *m = gjkd_arena_alloc(a, sizeof *m);
    gjkd__v1__trajectory_query_request__init(m);
    m->robot = gjkd_arena_strdup(a, "cart");
    Gjkd__V1__QueryOptions *o = gjkd_arena_alloc(a, sizeof *o);
    gjkd__v1__query_options__init(o);
    o->mode = GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN;
    o->max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
    o->max_distance = 1.0;
    o->gradients = gradients;
    m->options = o;
    r->body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    r->trajectory_query = m;
    return r;
}

static void path(double q[WP][2])
{
    for (int w = 0; w < WP; ++w) {
        q[w][0] = -0.5 + 0.1 * w; /* slide */
        q[w][1] = -1.0 + 0.2 * w; /* turn */
    }
}

static void same_trajectory(const Gjkd__V1__TrajectoryResult *x,
                            const Gjkd__V1__TrajectoryResult *y)
{
    assert_int_equal(x->n_waypoints, y->n_waypoints);
    for (size_t w = 0; w < x->n_waypoints; ++w) {
        assert_int_equal(x->waypoints[w]->n_pairs, y->waypoints[w]->n_pairs);
        for (size_t i = 0; i < x->waypoints[w]->n_pairs; ++i) {
            const Gjkd__V1__PairResult *p = x->waypoints[w]->pairs[i],
                                       *q = y->waypoints[w]->pairs[i];
            assert_true(p->distance == q->distance);
            assert_int_equal(p->n_gradient_a, q->n_gradient_a);
            for (size_t d = 0; d < p->n_gradient_a; ++d)
                assert_true(p->gradient_a[d] == q->gradient_a[d]);
        }
    }
}

static void test_joint_trajectories(void **state)
{
    (void)state;
    gjkd_service *svc = cart_service();
    gjkd_arena a = {0};
    double q[WP][2];
    path(q);
    /* packed, DOF order */
    Gjkd__V1__Request *packed = t_traj(&a, true);
    packed->trajectory_query->n_waypoint_joints = 2 * WP;
    packed->trajectory_query->waypoint_joints = &q[0][0];
    packed->trajectory_query->waypoint_count = WP;
    Gjkd__V1__Response *rp = t_call(svc, packed);
    assert_code(rp->status->code, GJKD_CODE(OK));
    assert_int_equal(rp->trajectory->n_waypoints, WP);
    assert_int_equal(rp->trajectory->n_joint_names, 1);
    assert_int_equal(rp->trajectory->joint_names[0]->n_names, 2);
    size_t pairs = 0;
    for (int w = 0; w < WP; ++w)
        pairs += rp->trajectory->waypoints[w]->n_pairs;
    assert_true(pairs > WP);
    /* packed, columns permuted by joint_names */
    double swapped[WP][2];
    for (int w = 0; w < WP; ++w) {
        swapped[w][0] = q[w][1];
        swapped[w][1] = q[w][0];
    }
    Gjkd__V1__Request *perm = t_traj(&a, true);
    char *names[2] = {"turn", "slide"};
    perm->trajectory_query->n_waypoint_joints = 2 * WP;
    perm->trajectory_query->waypoint_joints = &swapped[0][0];
    perm->trajectory_query->waypoint_count = WP;
    perm->trajectory_query->n_joint_names = 2;
    perm->trajectory_query->joint_names = names;
    Gjkd__V1__Response *rq = t_call(svc, perm);
    assert_code(rq->status->code, GJKD_CODE(OK));
    same_trajectory(rp->trajectory, rq->trajectory);
    /* waypoint messages with JointPositions (names) */
    Gjkd__V1__Request *msgs = t_traj(&a, true);
    Gjkd__V1__TrajectoryQueryRequest *m = msgs->trajectory_query;
    m->n_waypoints = WP;
    m->waypoints = gjkd_arena_alloc(&a, WP * sizeof *m->waypoints);
    for (int w = 0; w < WP; ++w) {
        Gjkd__V1__Waypoint *wp = gjkd_arena_alloc(&a, sizeof *wp);
        gjkd__v1__waypoint__init(wp);
        wp->state_case = GJKD__V1__WAYPOINT__STATE_JOINT_POSITIONS;
        wp->joint_positions = t_joint_positions(&a, 2, (const char *const *)names, swapped[w]);
        m->waypoints[w] = wp;
    }
    Gjkd__V1__Response *rm = t_call(svc, msgs);
    assert_code(rm->status->code, GJKD_CODE(OK));
    same_trajectory(rp->trajectory, rm->trajectory);
    /* each waypoint equals the state query at its joint positions (same pairs, distances
     * within the warm start's tolerance) */
    int smooth = 0;
    for (int w = 0; w < WP; w += 5) {
        assert_code(t_call_code(svc, t_set_joints(&a, "cart", 2, NULL, q[w])), GJKD_CODE(OK));
        Gjkd__V1__Request *sq = t_state_query(&a, GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN, 1.0);
        sq->state_query->options->gradients = true;
        Gjkd__V1__Response *rs = t_call(svc, sq);
        const Gjkd__V1__StateResult *x = rp->trajectory->waypoints[w];
        assert_int_equal(x->n_pairs, rs->state->n_pairs);
        for (size_t i = 0; i < x->n_pairs; ++i) {
            assert_near(x->pairs[i]->distance, rs->state->pairs[i]->distance, 1e-9);
            assert_int_equal(x->pairs[i]->subgradient, rs->state->pairs[i]->subgradient);
            if (x->pairs[i]->subgradient) /* witnesses not unique: may differ */
                continue;
            ++smooth;
            for (size_t d = 0; d < 2; ++d)
                assert_near(x->pairs[i]->gradient_a[d], rs->state->pairs[i]->gradient_a[d], 1e-6);
        }
        gjkd__v1__response__free_unpacked(rs, NULL);
    }
    assert_true(smooth > 0);
    gjkd__v1__response__free_unpacked(rp, NULL);
    gjkd__v1__response__free_unpacked(rq, NULL);
    gjkd__v1__response__free_unpacked(rm, NULL);

    /* refusals */
    q[4][1] = 3.0;
    expect_refusal(svc, packed, GJKD_CODE(INVALID_INPUT),
                   "waypoint_joints: waypoint 4: joint 'turn': 3 is outside its limits", NULL);
    q[4][1] = 0.0;
    packed->trajectory_query->n_waypoint_joints = 2 * WP - 1;
    expect_refusal(svc, packed, GJKD_CODE(INVALID_ARGUMENT), "waypoint_joints: 21 values",
                   "11 waypoints x 2 degrees of freedom");
    names[0] = "grip";
    expect_refusal(svc, perm, GJKD_CODE(INVALID_ARGUMENT), "joint_names[0]",
                   "joint 'grip' is a mimic joint");
    names[0] = "slide";
    expect_refusal(svc, perm, GJKD_CODE(INVALID_ARGUMENT), "joint_names[1]",
                   "joint 'slide' given twice");
    names[0] = "turn";
    perm->trajectory_query->n_joint_names = 1;
    expect_refusal(svc, perm, GJKD_CODE(INVALID_ARGUMENT), "joint_names", NULL);
    m->waypoints[3]->joint_positions->base_pose = t_pose(&a, 0, 0, 0);
    expect_refusal(svc, msgs, GJKD_CODE(INVALID_ARGUMENT), "waypoints[3].joint_positions.base_pose",
                   NULL);
    m->waypoints[3]->joint_positions->base_pose = NULL;
    m->waypoints[3]->state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
    m->waypoints[3]->link_poses = t_link_poses(&a, 5, 0, 0.1);
    expect_refusal(svc, msgs, GJKD_CODE(INVALID_ARGUMENT), "waypoints[3]",
                   "has joints: give joint_positions");
    Gjkd__V1__Request *flat = t_traj(&a, false);
    double poses[35] = {0};
    flat->trajectory_query->n_waypoint_xyz_wxyz = 35;
    flat->trajectory_query->waypoint_xyz_wxyz = poses;
    flat->trajectory_query->waypoint_count = 1;
    expect_refusal(svc, flat, GJKD_CODE(INVALID_ARGUMENT),
                   "waypoint_xyz_wxyz: robot 'cart' has joints", NULL);
    packed->trajectory_query->n_waypoint_joints = 2 * WP;
    packed->trajectory_query->options->columnar = true;
    packed->trajectory_query->options->mode = GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST;
    expect_refusal(svc, packed, GJKD_CODE(INVALID_ARGUMENT), "options.gradients",
                   "not in the columnar form");
    /* compact form: gradients on the closest pairs */
    packed->trajectory_query->options->columnar = false;
    packed->trajectory_query->options->compact = true;
    Gjkd__V1__Response *rc = t_call(svc, packed);
    assert_code(rc->status->code, GJKD_CODE(OK));
    int with_pair = 0;
    for (size_t w = 0; w < rc->trajectory->n_waypoints; ++w) {
        const Gjkd__V1__PairResult *c = rc->trajectory->waypoints[w]->closest;
        if (c == NULL)
            continue;
        ++with_pair;
        assert_int_equal(c->n_gradient_a, 2);
    }
    assert_true(with_pair > 0);
    gjkd__v1__response__free_unpacked(rc, NULL);
    gjkd_arena_free(&a);
    gjkd_service_destroy(&svc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_and_summary),     cmocka_unit_test(test_put_refusals),
        cmocka_unit_test(test_set_joint_positions), cmocka_unit_test(test_state_query_gradients),
        cmocka_unit_test(test_joint_trajectories),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
