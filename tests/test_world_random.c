/* test_world_random.c — random worlds against a brute-force oracle (every pair, no broad
 * phase, no caches, no cutoff), and the trajectory guarantees: warm == cold within GJK
 * tolerance, and bit-identical results for every thread count. */
#include "test_world_util.h"

#include <pthread.h>

/* Distances: separated pairs come from GJK (duality gap 1e-12 relative), overlapping ones from
 * EPA; a pair within BOUNDARY of max_distance may fall on either side. */
#define TOL_SEPARATED 1e-8
#define TOL_OVERLAP 1e-6
#define BOUNDARY 1e-6

static double tol_for(double d)
{
    return d < 0.0 ? TOL_OVERLAP : TOL_SEPARATED;
}

static char names[TW_MAX_ROBOTS * TW_MAX_LINKS][32];

/* A random scene in a 3 m cube: 1-3 robots of 2-6 links, `obstacles` obstacles. Sizes are a
 * few centimetres to a few decimetres so that many pairs are near, some overlap. */
static void random_scene(tw_scene *s, int robots, int obstacles, bool rules)
{
    memset(s, 0, sizeof *s);
    s->robot_count = robots;
    for (int r = 0; r < robots; ++r) {
        tw_robot *tr = &s->robots[r];
        snprintf(tr->name, sizeof tr->name, "robot%d", r);
        tr->link_count = 2 + tw_int(5);
        tr->self_collision = tw_int(4) != 0;
        gjk_vec3 base = tw_vec(0.8);
        for (int l = 0; l < tr->link_count; ++l) {
            tw_body *b = &tr->links[l];
            snprintf(b->name, sizeof b->name, "link%d", l);
            b->part_count = 1 + tw_int(TW_MAX_PARTS);
            for (int p = 0; p < b->part_count; ++p) {
                b->parts[p].shape = tw_shape(rnd_range(0.05, 0.2));
                b->parts[p].pose = tw_pose(0.1);
                b->parts[p].name = p == 0 ? "main" : NULL;
            }
            b->padding = tw_int(3) == 0 ? rnd_range(0.0, 0.03) : 0.0;
            b->pose = gjk_transform_make(tw_quat(), gjk_add(base, tw_vec(0.4)));
            if (l > 0 && tw_int(2) == 0) {
                char *na = names[r * TW_MAX_LINKS + l - 1], *nb = names[r * TW_MAX_LINKS + l];
                snprintf(na, 32, "link%d", l - 1);
                snprintf(nb, 32, "link%d", l);
                tr->disabled[tr->disabled_count].a = na;
                tr->disabled[tr->disabled_count].b = nb;
                ++tr->disabled_count;
            }
        }
    }
    s->obstacle_count = obstacles;
    for (int o = 0; o < obstacles; ++o) {
        tw_body *b = &s->obstacles[o];
        snprintf(b->name, sizeof b->name, "obstacle%03d", o);
        b->part_count = 1 + tw_int(TW_MAX_PARTS);
        for (int p = 0; p < b->part_count; ++p) {
            b->parts[p].shape = tw_shape(rnd_range(0.05, 0.25));
            b->parts[p].pose = tw_pose(0.15);
        }
        b->padding = tw_int(4) == 0 ? rnd_range(0.0, 0.03) : 0.0;
        b->pose = tw_pose(1.5);
    }
    if (!rules)
        return;
    /* Rules need ids: filled in by add_random_rules once the world exists. */
}

static void add_random_rules(tw_scene *s, gjk_world *w)
{
    for (int k = 0; k < 8 && s->obstacle_count > 0; ++k) {
        tw_rule *rule = &s->rules[s->rule_count];
        const tw_robot *r = &s->robots[tw_int(s->robot_count)];
        int link = tw_int(4) == 0 ? -1 : tw_int(r->link_count);
        rule->a = gjk_link_body(r->id, link);
        if (tw_int(5) == 0 && s->robot_count > 1) {
            const tw_robot *r2 = &s->robots[tw_int(s->robot_count)];
            if (r2 == r)
                continue;
            rule->b = gjk_link_body(r2->id, tw_int(r2->link_count));
        } else {
            rule->b = gjk_obstacle_body(s->obstacle_ids[tw_int(s->obstacle_count)]);
        }
        /* per-pair paddings only between exact bodies (see tw_rules) */
        bool padding = link >= 0 && tw_int(2) == 0;
        rule->allowed = !padding;
        rule->padding = padding ? rnd_range(0.0, 0.05) : (double)NAN;
        bool duplicate = false;
        for (int i = 0; i < s->rule_count; ++i) {
            const tw_rule *q = &s->rules[i];
            bool same = (memcmp(&q->a, &rule->a, sizeof q->a) == 0 &&
                         memcmp(&q->b, &rule->b, sizeof q->b) == 0) ||
                        (memcmp(&q->a, &rule->b, sizeof q->a) == 0 &&
                         memcmp(&q->b, &rule->a, sizeof q->b) == 0);
            duplicate = duplicate || same;
        }
        if (duplicate)
            continue;
        if (rule->allowed)
            assert_ok(gjk_world_set_allowed(w, rule->a, rule->b, true));
        else
            assert_ok(gjk_world_set_pair_padding(w, rule->a, rule->b, rule->padding));
        ++s->rule_count;
    }
}

#define MAX_BRUTE 20000
static tw_pair brute[MAX_BRUTE];

/* A narrow-phase answer flagged as capped (EPA out of capacity or iterations; its simplex,
 * hence its run, depends on the warm start) is a best estimate. */
static bool capped(gjk_status s)
{
    return s == GJK_STATUS_CAPACITY_LIMIT || s == GJK_STATUS_ITERATION_LIMIT;
}

/* Witnesses: point_b - point_a = distance * normal when the normal is known. The world only
 * shifts the pair query's witnesses by the padding along the normal, so this checks that
 * shift; overlapping pairs are checked along the normal only, since EPA's deepest points may
 * drift sideways (a narrow-phase matter). */
static void check_witnesses(const gjk_world_pair *p)
{
    if (gjk_length(p->normal) > 0.5) {
        assert_near(gjk_length(p->normal), 1.0, 1e-9);
        gjk_vec3 diff = gjk_sub(p->b.point, p->a.point);
        assert_near(gjk_dot(diff, p->normal), p->distance, 1e-6);
        if (p->distance - p->padding > 0.0)
            assert_near(gjk_length(gjk_sub(diff, gjk_scale(p->normal, p->distance))), 0.0, 1e-6);
    }
}

static void report_missing(const tw_pair *b, double max, int32_t reported)
{
    print_error("missing pair robot %d link %d part %d - kind %d object %d link %d part %d at "
                "%.9g\n",
                b->robot_a, b->link_a, b->part_a, b->kind_b, b->object_b, b->link_b, b->part_b,
                b->distance);
    print_error("max %g, reported %d entries\n", max, reported);
}

/* The waypoint's minimum against the oracle's: over the pairs within max. */
static void check_min_distance(const gjk_world_waypoint *wp, const tw_pair *b, int n, double max)
{
    double min = HUGE_VAL;
    for (int k = 0; k < n; ++k)
        if (b[k].distance <= max)
            min = fmin(min, b[k].distance);
    if (isfinite(min))
        assert_near(wp->min_distance, min, tol_for(min) + BOUNDARY);
}

/* Checks one waypoint of a per_part result (ALL_WITHIN mode) against the oracle's part pairs:
 * every entry is a part pair within reach with the oracle's distance, and every part pair
 * clearly within reach is an entry. */
static void check_part_pairs(const gjk_world_waypoint *wp, const tw_pair *b, int n, double max)
{
    assert_false(wp->truncated);
    for (int32_t i = 0; i < wp->pair_count; ++i) {
        const gjk_world_pair *p = &wp->pairs[i];
        int found = -1;
        for (int k = 0; k < n && found < 0; ++k)
            if (tw_same_pair(&b[k], p))
                found = k;
        assert_true(found >= 0);
        assert_int_equal(p->part_pair_count, 1);
        bool cap = capped(p->status) || capped(b[found].status); /* only its presence */
        if (!cap)
            assert_near(p->distance, b[found].distance, tol_for(b[found].distance));
        assert_true(cap || b[found].distance <= max + BOUNDARY);
        check_witnesses(p);
        if (i > 0)
            assert_true(wp->pairs[i - 1].distance <= p->distance);
    }
    for (int k = 0; k < n; ++k) {
        if (!(b[k].distance <= max - BOUNDARY))
            continue;
        bool found = false;
        for (int32_t i = 0; i < wp->pair_count && !found; ++i)
            found = tw_same_pair(&b[k], &wp->pairs[i]);
        if (!found)
            report_missing(&b[k], max, wp->pair_count);
        assert_true(found);
    }
    check_min_distance(wp, b, n, max);
}

/* Checks one waypoint of a body-pair result (ALL_WITHIN mode, the default) against the
 * oracle's part pairs grouped by body pair: each body pair within reach once, with the
 * minimum over its part pairs, the part pair realising it (lowest part indices first; where
 * another part pair is within tolerance of the minimum either may be reported) and the number
 * of its part pairs within reach (those within BOUNDARY of max may count or not). */
static void check_body_pairs(const gjk_world_waypoint *wp, const tw_pair *b, int n, double max)
{
    assert_false(wp->truncated);
    for (int32_t i = 0; i < wp->pair_count; ++i) {
        const gjk_world_pair *p = &wp->pairs[i];
        for (int32_t j = 0; j < i; ++j) /* once per body pair */
            assert_false(memcmp(&wp->pairs[j].a.body, &p->a.body, sizeof p->a.body) == 0 &&
                         memcmp(&wp->pairs[j].b.body, &p->b.body, sizeof p->b.body) == 0);
        int self = -1, arg = -1, lo = 0, hi = 0;
        bool cap = capped(p->status);
        for (int k = 0; k < n; ++k) {
            if (!tw_same_body_pair(&b[k], p))
                continue;
            if (tw_same_pair(&b[k], p))
                self = k;
            cap = cap || capped(b[k].status);
            if (arg < 0 || b[k].distance < b[arg].distance)
                arg = k; /* the oracle lists part pairs by part index: the first minimum */
            lo += !capped(b[k].status) && b[k].distance <= max - BOUNDARY;
            hi += capped(b[k].status) || b[k].distance <= max + BOUNDARY;
        }
        assert_true(self >= 0); /* its parts are a part pair of that body pair */
        if (p->part_pair_count < lo || p->part_pair_count > hi || p->part_pair_count < 1)
            print_error("part_pair_count %d, expected %d..%d\n", p->part_pair_count, lo, hi);
        assert_true(p->part_pair_count >= 1 && p->part_pair_count >= lo &&
                    p->part_pair_count <= hi);
        if (!cap) {
            double m = b[arg].distance, tol = tol_for(m);
            assert_near(p->distance, b[self].distance, tol_for(b[self].distance));
            assert_near(p->distance, m, tol);
            assert_true(m <= max + BOUNDARY);
            bool unique = true;
            for (int k = 0; k < n; ++k)
                if (k != arg && tw_same_body_pair(&b[k], p) && b[k].distance <= m + 2.0 * tol)
                    unique = false;
            if (unique) {
                assert_int_equal(p->a.part, b[arg].part_a);
                assert_int_equal(p->b.part, b[arg].part_b);
            }
        }
        check_witnesses(p);
        if (i > 0)
            assert_true(wp->pairs[i - 1].distance <= p->distance);
    }
    /* every body pair with a part pair clearly within reach is reported */
    for (int k = 0; k < n; ++k) {
        if (!(b[k].distance <= max - BOUNDARY))
            continue;
        bool found = false;
        for (int32_t i = 0; i < wp->pair_count && !found; ++i)
            found = tw_same_body_pair(&b[k], &wp->pairs[i]);
        if (!found)
            report_missing(&b[k], max, wp->pair_count);
        assert_true(found);
    }
    check_min_distance(wp, b, n, max);
}

/* A body pair's identity as one sortable number (the tests' ids and links are small). */
static uint64_t body_key(const gjk_world_pair *p)
{
    assert_true(p->a.body.object < (1 << 19) && p->b.body.object < (1 << 19));
    return ((uint64_t)p->a.body.object << 44) | ((uint64_t)p->a.body.link << 33) |
           ((uint64_t)p->b.body.kind << 31) | ((uint64_t)p->b.body.object << 11) |
           (uint64_t)(p->b.body.link + 1);
}

typedef struct keyed {
    uint64_t key;
    int32_t index;
} keyed;

static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* Every field of two entries bit for bit (names by content), but the count. */
static void assert_same_entry(const gjk_world_pair *p, const gjk_world_pair *q)
{
    assert_memory_equal(&p->a.body, &q->a.body, sizeof p->a.body);
    assert_memory_equal(&p->b.body, &q->b.body, sizeof p->b.body);
    assert_int_equal(p->a.part, q->a.part);
    assert_int_equal(p->b.part, q->b.part);
    assert_string_equal(p->a.object_name, q->a.object_name);
    assert_string_equal(p->a.body_name, q->a.body_name);
    assert_string_equal(p->a.part_name, q->a.part_name);
    assert_string_equal(p->b.object_name, q->b.object_name);
    assert_string_equal(p->b.body_name, q->b.body_name);
    assert_string_equal(p->b.part_name, q->b.part_name);
    assert_memory_equal(&p->a.point, &q->a.point, sizeof p->a.point);
    assert_memory_equal(&p->b.point, &q->b.point, sizeof p->b.point);
    assert_memory_equal(&p->a.local_point, &q->a.local_point, sizeof p->a.local_point);
    assert_memory_equal(&p->b.local_point, &q->b.local_point, sizeof p->b.local_point);
    assert_memory_equal(&p->distance, &q->distance, sizeof(double));
    assert_memory_equal(&p->normal, &q->normal, sizeof p->normal);
    assert_memory_equal(&p->padding, &q->padding, sizeof(double));
    assert_int_equal(p->status, q->status);
    assert_int_equal(p->iterations, q->iterations);
    assert_int_equal(p->epa_iterations, q->epa_iterations);
}

/* The body-pair waypoint is exactly the per_part one reduced: the first entry of each body
 * pair in the per_part list (which is sorted by distance, then part indices), in that order,
 * with the number of the body pair's entries as its count; everything else is the same. */
static void assert_body_reduction(const gjk_world_waypoint *body, const gjk_world_waypoint *parts)
{
    assert_false(body->truncated);
    assert_false(parts->truncated);
    assert_int_equal(body->evaluated, parts->evaluated);
    assert_int_equal(body->collision, parts->collision);
    assert_memory_equal(&body->min_distance, &parts->min_distance, sizeof(double));
    assert_memory_equal(&body->counters, &parts->counters, sizeof body->counters);
    int32_t k = body->pair_count;
    keyed *index = malloc((size_t)(k + 1) * sizeof *index);
    int32_t *count = calloc((size_t)(k + 1), sizeof *count);
    assert_true(index && count);
    for (int32_t j = 0; j < k; ++j) {
        index[j].key = body_key(&body->pairs[j]);
        index[j].index = j;
    }
    qsort(index, (size_t)k, sizeof *index, keyed_cmp);
    for (int32_t j = 1; j < k; ++j)
        assert_true(index[j - 1].key != index[j].key); /* each body pair once */
    int32_t next = 0;
    for (int32_t i = 0; i < parts->pair_count; ++i) {
        const gjk_world_pair *q = &parts->pairs[i];
        assert_int_equal(q->part_pair_count, 1);
        keyed probe = {body_key(q), 0};
        const keyed *hit = bsearch(&probe, index, (size_t)k, sizeof *index, keyed_cmp);
        assert_non_null(hit);
        if (count[hit->index]++ == 0) { /* the body pair's first (nearest) part pair */
            assert_int_equal(hit->index, next);
            assert_same_entry(&body->pairs[next], q);
            ++next;
        }
    }
    assert_int_equal(next, k);
    for (int32_t j = 0; j < k; ++j)
        assert_int_equal(body->pairs[j].part_pair_count, count[j]);
    free(index);
    free(count);
}

static double brute_min(const tw_pair *b, int n)
{
    double m = HUGE_VAL;
    for (int k = 0; k < n; ++k)
        m = fmin(m, b[k].distance);
    return m;
}

/* State queries on random worlds: ALL_WITHIN at several reaches, CLOSEST, FIRST_COLLISION,
 * every pair kind, options.robot. */
static void test_state_vs_brute_force(void **state)
{
    (void)state;
    for (int trial = 0; trial < 40; ++trial) {
        test_seed(1000 + (uint64_t)trial);
        tw_scene *s = calloc(1, sizeof *s);
        assert_non_null(s);
        random_scene(s, 1 + tw_int(3), 10 + tw_int(60), true);
        gjk_world *w = NULL;
        assert_ok(gjk_world_create(NULL, &w));
        tw_build_world(s, w);
        add_random_rules(s, w);

        const double reaches[] = {-0.01, 0.0, 0.05, 0.3, HUGE_VAL};
        const uint32_t kinds[] = {GJK_WORLD_PAIRS_ALL, GJK_WORLD_PAIRS_ROBOT_OBSTACLE,
                                  GJK_WORLD_PAIRS_SELF, GJK_WORLD_PAIRS_ROBOT_ROBOT};
        for (int ki = 0; ki < 4; ++ki) {
            int32_t only = tw_int(2) == 0 ? 0 : s->robots[tw_int(s->robot_count)].id;
            int n = tw_brute(s, NULL, kinds[ki], only, brute, MAX_BRUTE);
            gjk_world_query_options opt = gjk_world_default_query_options();
            opt.pairs = kinds[ki];
            opt.robot = only;
            opt.max_pairs = GJK_WORLD_MAX_PAIRS;
            for (int ri = 0; ri < 5; ++ri) {
                opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
                opt.has_max_distance = true;
                opt.max_distance = reaches[ri];
                gjk_world_result *res = NULL;
                assert_ok(gjk_world_query_state(w, &opt, &res));
                assert_int_equal(res->waypoint_count, 1);
                check_body_pairs(&res->waypoints[0], brute, n, reaches[ri]);
                /* per_part: every part pair; the body pairs are exactly its reduction */
                opt.per_part = true;
                gjk_world_result *parts = NULL;
                assert_ok(gjk_world_query_state(w, &opt, &parts));
                check_part_pairs(&parts->waypoints[0], brute, n, reaches[ri]);
                assert_body_reduction(&res->waypoints[0], &parts->waypoints[0]);
                opt.per_part = false;
                gjk_world_result_destroy(&parts);
                gjk_world_result_destroy(&res);
                assert_null(res);
            }
            double m = brute_min(brute, n);

            opt.mode = GJK_WORLD_MODE_CLOSEST;
            opt.has_max_distance = false;
            gjk_world_result *res = NULL;
            assert_ok(gjk_world_query_state(w, &opt, &res));
            const gjk_world_waypoint *wp = &res->waypoints[0];
            if (n == 0) {
                assert_int_equal(wp->pair_count, 0);
                assert_true(isinf(wp->min_distance));
            } else {
                assert_int_equal(wp->pair_count, 1);
                assert_near(wp->min_distance, m, tol_for(m));
                assert_near(res->min_distance, m, tol_for(m));
            }
            gjk_world_result_destroy(&res);

            opt.mode = GJK_WORLD_MODE_FIRST_COLLISION;
            assert_ok(gjk_world_query_state(w, &opt, &res));
            wp = &res->waypoints[0];
            if (fabs(m) > BOUNDARY) {
                assert_int_equal(wp->collision, m < 0.0);
                assert_int_equal(wp->pair_count, m < 0.0 ? 1 : 0);
                assert_int_equal(res->first_collision, m < 0.0 ? 0 : -1);
            }
            if (wp->pair_count == 1) {
                /* the reported pair really collides */
                int k;
                for (k = 0; k < n && !tw_same_pair(&brute[k], &wp->pairs[0]); ++k) {
                }
                assert_true(k < n);
                assert_true(brute[k].distance <= BOUNDARY);
            }
            gjk_world_result_destroy(&res);
        }
        gjk_world_destroy(&w);
        assert_null(w);
        free(s);
        tw_free_polytopes();
    }
}

/* A smooth random trajectory of robot 0: every link sweeps along a line and turns. */
static gjk_transform *random_trajectory(const tw_scene *s, int waypoints, double sweep)
{
    const tw_robot *r = &s->robots[0];
    gjk_transform *t = malloc((size_t)waypoints * (size_t)r->link_count * sizeof *t);
    assert_non_null(t);
    gjk_vec3 dir = tw_vec(sweep);
    gjk_vec3 axis = gjk_normalize(tw_vec(1.0));
    for (int w = 0; w < waypoints; ++w) {
        double u = waypoints > 1 ? (double)w / (waypoints - 1) - 0.5 : 0.0;
        gjk_quat turn = gjk_quat_from_axis_angle(axis, 1.5 * u);
        for (int l = 0; l < r->link_count; ++l) {
            gjk_transform p = r->links[l].pose;
            t[w * r->link_count + l] =
                gjk_transform_make(gjk_quat_mul(turn, p.q), gjk_madd(p.p, u, dir));
        }
    }
    return t;
}

static void brute_waypoint(const tw_scene *s, const gjk_transform *traj, int w, uint32_t kinds,
                           int *n)
{
    static gjk_transform poses[TW_MAX_ROBOTS][TW_MAX_LINKS];
    for (int r = 0; r < s->robot_count; ++r)
        for (int l = 0; l < s->robots[r].link_count; ++l)
            poses[r][l] =
                r == 0 ? traj[w * s->robots[0].link_count + l] : s->robots[r].links[l].pose;
    *n = tw_brute(s, (const gjk_transform(*)[TW_MAX_LINKS])poses, kinds, s->robots[0].id, brute,
                  MAX_BRUTE);
}

static void test_trajectory_vs_brute_force(void **state)
{
    (void)state;
    for (int trial = 0; trial < 12; ++trial) {
        test_seed(5000 + (uint64_t)trial);
        tw_scene *s = calloc(1, sizeof *s);
        assert_non_null(s);
        random_scene(s, 1 + tw_int(2), 20 + tw_int(40), true);
        gjk_world *w = NULL;
        assert_ok(gjk_world_create(NULL, &w));
        tw_build_world(s, w);
        add_random_rules(s, w);
        int W = 5 + tw_int(30);
        gjk_transform *traj = random_trajectory(s, W, 1.0);
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = s->robots[0].id;
        t.waypoint_count = W;
        t.link_count = s->robots[0].link_count;
        t.link_poses = traj;

        gjk_world_query_options opt = gjk_world_default_query_options();
        opt.pairs = GJK_WORLD_PAIRS_ALL;
        opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
        opt.has_max_distance = true;
        opt.max_distance = 0.1;
        opt.max_pairs = GJK_WORLD_MAX_PAIRS;
        gjk_world_result *res = NULL, *parts = NULL;
        assert_ok(gjk_world_query_trajectory(w, &t, &opt, &res));
        assert_int_equal(res->waypoint_count, W);
        opt.per_part = true;
        assert_ok(gjk_world_query_trajectory(w, &t, &opt, &parts));
        opt.per_part = false;
        double min = HUGE_VAL;
        int first = -1;
        for (int i = 0; i < W; ++i) {
            int n;
            brute_waypoint(s, traj, i, opt.pairs, &n);
            assert_true(res->waypoints[i].evaluated);
            check_body_pairs(&res->waypoints[i], brute, n, opt.max_distance);
            check_part_pairs(&parts->waypoints[i], brute, n, opt.max_distance);
            assert_body_reduction(&res->waypoints[i], &parts->waypoints[i]);
            double m = brute_min(brute, n);
            if (m <= opt.max_distance && m < min)
                min = m;
            if (first < 0 && m < -BOUNDARY)
                first = i;
        }
        if (isfinite(min)) {
            assert_near(res->min_distance, min, tol_for(min) + BOUNDARY);
            assert_true(res->min_waypoint >= 0);
        } else {
            assert_int_equal(res->min_waypoint, -1);
        }
        if (first >= 0)
            assert_true(res->first_collision >= 0 && res->first_collision <= first);
        gjk_world_result_destroy(&res);
        gjk_world_result_destroy(&parts);

        /* FIRST_COLLISION over the trajectory: stops at the first colliding waypoint. */
        opt.mode = GJK_WORLD_MODE_FIRST_COLLISION;
        opt.threads = 1 + tw_int(3);
        assert_ok(gjk_world_query_trajectory(w, &t, &opt, &res));
        if (first >= 0) {
            assert_true(res->first_collision >= 0 && res->first_collision <= first);
            for (int i = res->first_collision + 1; i < W; ++i)
                assert_false(res->waypoints[i].evaluated);
            assert_true(res->waypoints[res->first_collision].collision);
            assert_int_equal(res->waypoints[res->first_collision].pair_count, 1);
        }
        for (int i = 0; i < W && (res->first_collision < 0 || i <= res->first_collision); ++i)
            assert_true(res->waypoints[i].evaluated);
        gjk_world_result_destroy(&res);

        free(traj);
        gjk_world_destroy(&w);
        free(s);
        tw_free_polytopes();
    }
}

/* Bit-for-bit comparison of two results (names by content). */
static void assert_results_identical(const gjk_world_result *a, const gjk_world_result *b)
{
    assert_int_equal(a->waypoint_count, b->waypoint_count);
    assert_memory_equal(&a->min_distance, &b->min_distance, sizeof(double));
    assert_int_equal(a->min_waypoint, b->min_waypoint);
    assert_int_equal(a->first_collision, b->first_collision);
    for (int32_t w = 0; w < a->waypoint_count; ++w) {
        const gjk_world_waypoint *x = &a->waypoints[w], *y = &b->waypoints[w];
        assert_int_equal(x->evaluated, y->evaluated);
        assert_int_equal(x->collision, y->collision);
        assert_int_equal(x->truncated, y->truncated);
        assert_int_equal(x->pair_count, y->pair_count);
        assert_memory_equal(&x->min_distance, &y->min_distance, sizeof(double));
        assert_memory_equal(&x->counters, &y->counters, sizeof x->counters);
        for (int32_t i = 0; i < x->pair_count; ++i) {
            assert_same_entry(&x->pairs[i], &y->pairs[i]);
            assert_int_equal(x->pairs[i].part_pair_count, y->pairs[i].part_pair_count);
        }
    }
}

/* "Identical whatever the thread count" means bit-for-bit: same pairs in the same order,
 * same distances, witnesses, normals, statuses, iteration counts and counters. */
static void test_threads_identical(void **state)
{
    (void)state;
    for (int trial = 0; trial < 6; ++trial) {
        test_seed(9000 + (uint64_t)trial);
        tw_scene *s = calloc(1, sizeof *s);
        assert_non_null(s);
        random_scene(s, 2, 60, true);
        gjk_world *w = NULL;
        assert_ok(gjk_world_create(NULL, &w));
        tw_build_world(s, w);
        add_random_rules(s, w);
        int W = 41 + tw_int(40);
        gjk_transform *traj = random_trajectory(s, W, 1.2);
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = s->robots[0].id;
        t.waypoint_count = W;
        t.link_count = s->robots[0].link_count;
        t.link_poses = traj;
        /* body pairs, part pairs, body pairs cut by max_pairs, and the other modes */
        const gjk_world_mode modes[] = {GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_MODE_ALL_WITHIN,
                                        GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_MODE_CLOSEST,
                                        GJK_WORLD_MODE_FIRST_COLLISION};
        for (int m = 0; m < 5; ++m) {
            gjk_world_query_options opt = gjk_world_default_query_options();
            opt.mode = modes[m];
            opt.per_part = m == 1;
            opt.max_pairs = m == 2 ? 3 : 0;
            opt.has_max_distance = true;
            opt.max_distance = 0.2;
            gjk_world_result *one = NULL;
            opt.threads = 1;
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &one));
            for (int threads = 1; threads <= 4; ++threads) {
                gjk_world_result *many = NULL;
                opt.threads = threads;
                assert_ok(gjk_world_query_trajectory(w, &t, &opt, &many));
                assert_results_identical(one, many);
                gjk_world_result_destroy(&many);
            }
            /* and with the named cache: the same previous contents give the same answer */
            t.name = "same";
            gjk_world_forget_trajectory(w, NULL); /* both runs start from an empty cache */
            gjk_world_result *named1 = NULL, *named2 = NULL;
            opt.threads = 1;
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &named1)); /* fills the cache */
            gjk_world_result_destroy(&named1);
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &named1));
            assert_ok(gjk_world_forget_trajectory(w, "same"));
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &named2));
            gjk_world_result_destroy(&named2);
            opt.threads = 3;
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &named2));
            assert_true(named1->trajectory_cache_hit);
            assert_true(named2->trajectory_cache_hit);
            assert_results_identical(named1, named2);
            gjk_world_result_destroy(&named1);
            gjk_world_result_destroy(&named2);
            t.name = NULL;
            gjk_world_result_destroy(&one);
        }
        free(traj);
        gjk_world_destroy(&w);
        free(s);
        tw_free_polytopes();
    }
}

/* The defaults convention (world.h, Defaults): a zeroed options struct, NULL options,
 * gjk_world_default_query_options() and the defaults spelled out (no cutoff, CLOSEST, every
 * pair kind, EPA on, body pairs, 1024 entries, one thread, the narrow phase's defaults) give
 * bit-identical results on random worlds of two robots, for state and trajectory queries and
 * with each mode set on top. (A zeroed struct used to mean ALL_WITHIN without robot-robot
 * pairs while the default function said CLOSEST with them off too, and the wire all kinds.) */
static void test_zeroed_options_are_the_defaults(void **state)
{
    (void)state;
    gjk_world_query_options zero;
    memset(&zero, 0, sizeof zero);
    gjk_world_query_options def = gjk_world_default_query_options();
    assert_memory_equal(&zero, &def, sizeof zero);
    gjk_world_query_options spelled = zero;
    spelled.has_max_distance = true;
    spelled.max_distance = HUGE_VAL;
    spelled.mode = GJK_WORLD_MODE_CLOSEST;
    spelled.pairs =
        GJK_WORLD_PAIRS_ROBOT_OBSTACLE | GJK_WORLD_PAIRS_SELF | GJK_WORLD_PAIRS_ROBOT_ROBOT;
    spelled.no_penetration_depth = false;
    spelled.per_part = false;
    spelled.max_pairs = GJK_WORLD_DEFAULT_MAX_PAIRS;
    spelled.threads = 1;
    spelled.gjk = gjk_default_options();
    for (int trial = 0; trial < 4; ++trial) {
        test_seed(10000 + (uint64_t)trial);
        tw_scene *s = calloc(1, sizeof *s);
        assert_non_null(s);
        random_scene(s, 2, 30 + tw_int(30), true);
        gjk_world *w = NULL;
        assert_ok(gjk_world_create(NULL, &w));
        tw_build_world(s, w);
        add_random_rules(s, w);
        int W = 20;
        gjk_transform *traj = random_trajectory(s, W, 1.0);
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = s->robots[0].id;
        t.waypoint_count = W;
        t.link_count = s->robots[0].link_count;
        t.link_poses = traj;
        const gjk_world_mode modes[] = {GJK_WORLD_MODE_UNSPECIFIED, GJK_WORLD_MODE_CLOSEST,
                                        GJK_WORLD_MODE_ALL_WITHIN, GJK_WORLD_MODE_FIRST_COLLISION};
        for (int m = 0; m < 4; ++m) {
            gjk_world_query_options o[3] = {zero, def, spelled};
            for (int k = 0; k < 3; ++k)
                o[k].mode = modes[m];
            if (m == 0)
                o[2].mode = GJK_WORLD_MODE_CLOSEST;
            gjk_world_result *ref = NULL, *other = NULL;
            assert_ok(gjk_world_query_state(w, &o[0], &ref));
            if (m == 0) { /* NULL options */
                assert_ok(gjk_world_query_state(w, NULL, &other));
                assert_results_identical(ref, other);
                gjk_world_result_destroy(&other);
            }
            for (int k = 1; k < 3; ++k) {
                assert_ok(gjk_world_query_state(w, &o[k], &other));
                assert_results_identical(ref, other);
                gjk_world_result_destroy(&other);
            }
            gjk_world_result_destroy(&ref);
            assert_ok(gjk_world_query_trajectory(w, &t, &o[0], &ref));
            if (m == 0) {
                assert_ok(gjk_world_query_trajectory(w, &t, NULL, &other));
                assert_results_identical(ref, other);
                gjk_world_result_destroy(&other);
            }
            for (int k = 1; k < 3; ++k) {
                assert_ok(gjk_world_query_trajectory(w, &t, &o[k], &other));
                assert_results_identical(ref, other);
                gjk_world_result_destroy(&other);
            }
            gjk_world_result_destroy(&ref);
        }
        /* robot-robot pairs are among the defaults: some waypoint reports one */
        gjk_world_query_options all = zero;
        all.mode = GJK_WORLD_MODE_ALL_WITHIN;
        gjk_world_result *r = NULL;
        assert_ok(gjk_world_query_trajectory(w, &t, &all, &r));
        bool robot_robot = false;
        for (int32_t i = 0; i < r->waypoint_count; ++i)
            for (int32_t j = 0; j < r->waypoints[i].pair_count; ++j)
                robot_robot =
                    robot_robot || (r->waypoints[i].pairs[j].b.body.kind == GJK_BODY_LINK &&
                                    r->waypoints[i].pairs[j].b.body.object != t.robot);
        assert_true(robot_robot);
        gjk_world_result_destroy(&r);
        free(traj);
        gjk_world_destroy(&w);
        free(s);
        tw_free_polytopes();
    }
}

/* Matches the body pairs of two results by ids and checks distances within tolerance. */
static void assert_results_close(const gjk_world_result *a, const gjk_world_result *b,
                                 double max_distance)
{
    assert_int_equal(a->waypoint_count, b->waypoint_count);
    for (int32_t w = 0; w < a->waypoint_count; ++w) {
        const gjk_world_waypoint *x = &a->waypoints[w], *y = &b->waypoints[w];
        for (int pass = 0; pass < 2; ++pass) {
            const gjk_world_waypoint *p = pass ? y : x, *q = pass ? x : y;
            for (int32_t i = 0; i < p->pair_count; ++i) {
                const gjk_world_pair *pp = &p->pairs[i];
                const gjk_world_pair *match = NULL;
                for (int32_t j = 0; j < q->pair_count && !match; ++j) {
                    const gjk_world_pair *qq = &q->pairs[j];
                    if (memcmp(&pp->a.body, &qq->a.body, sizeof pp->a.body) == 0 &&
                        memcmp(&pp->b.body, &qq->b.body, sizeof pp->b.body) == 0)
                        match = qq; /* body pairs: each once */
                }
                if (!match) {
                    assert_true(pp->distance > max_distance - BOUNDARY);
                    continue;
                }
                assert_near(pp->distance, match->distance, tol_for(pp->distance));
                /* Which part pair realises a body pair's minimum may differ where two are
                 * within tolerance; the same part pair has the same witnesses. */
                if (pp->distance > 1e-6 && pp->a.part == match->a.part &&
                    pp->b.part == match->b.part) {
                    /* witness points agree up to the non-uniqueness of closest points on flat
                       faces: compare their gap vectors instead */
                    gjk_vec3 g1 = gjk_sub(pp->b.point, pp->a.point);
                    gjk_vec3 g2 = gjk_sub(match->b.point, match->a.point);
                    assert_near(gjk_length(gjk_sub(g1, g2)), 0.0, 1e-6);
                }
            }
        }
        if (isinf(x->min_distance) || isinf(y->min_distance))
            assert_true(x->min_distance == y->min_distance ||
                        fmin(x->min_distance, y->min_distance) > max_distance - BOUNDARY);
        else
            assert_near(x->min_distance, y->min_distance, tol_for(x->min_distance) + BOUNDARY);
    }
}

/* An optimizer loop: a named trajectory re-queried with small perturbations warm-starts from
 * its previous iteration and gives the cold answer. */
static void test_named_warm_equals_cold(void **state)
{
    (void)state;
    for (int trial = 0; trial < 6; ++trial) {
        test_seed(12000 + (uint64_t)trial);
        tw_scene *s = calloc(1, sizeof *s);
        assert_non_null(s);
        random_scene(s, 1, 50, false);
        gjk_world *w = NULL;
        assert_ok(gjk_world_create(NULL, &w));
        tw_build_world(s, w);
        int W = 30;
        gjk_transform *traj = random_trajectory(s, W, 1.0);
        int L = s->robots[0].link_count;
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = s->robots[0].id;
        t.waypoint_count = W;
        t.link_count = L;
        t.link_poses = traj;
        t.name = "opt";
        gjk_world_query_options opt = gjk_world_default_query_options();
        opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
        opt.has_max_distance = true;
        opt.max_distance = 0.15;
        opt.threads = 2;
        gjk_world_result *res = NULL;
        assert_ok(gjk_world_query_trajectory(w, &t, &opt, &res));
        assert_false(res->trajectory_cache_hit);
        gjk_world_result_destroy(&res);
        for (int iter = 0; iter < 5; ++iter) {
            for (int i = 0; i < W * L; ++i) {
                traj[i].p = gjk_add(traj[i].p, tw_vec(0.003));
                traj[i].q = gjk_quat_normalize(gjk_quat_mul(
                    gjk_quat_from_axis_angle(gjk_normalize(tw_vec(1)), 0.01), traj[i].q));
            }
            gjk_world_result *warm = NULL, *cold = NULL;
            t.name = "opt";
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &warm));
            assert_true(warm->trajectory_cache_hit);
            t.name = NULL;
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &cold));
            assert_results_close(warm, cold, opt.max_distance);
            int warm_starts = 0;
            for (int i = 0; i < W; ++i)
                warm_starts += warm->waypoints[i].counters.warm_starts;
            assert_true(warm_starts > 0);
            gjk_world_result_destroy(&warm);
            gjk_world_result_destroy(&cold);
        }
        gjk_world_info info;
        gjk_world_get_info(w, &info);
        assert_int_equal(info.trajectory_count, 1);
        assert_true(info.trajectory_cache_hits >= 5);
        free(traj);
        gjk_world_destroy(&w);
        free(s);
        tw_free_polytopes();
    }
}

/* An optimizer loop checked against brute force at every iteration and waypoint: the named
 * cache's warm starts and motion bounds, the block chains and the candidate lists must never
 * hide a pair or change a distance. Modes ALL_WITHIN and CLOSEST, several reaches. */
static void test_named_iterations_vs_brute_force(void **state)
{
    (void)state;
    for (int trial = 0; trial < 8; ++trial) {
        test_seed(15000 + (uint64_t)trial);
        tw_scene *s = calloc(1, sizeof *s);
        assert_non_null(s);
        random_scene(s, 1 + tw_int(2), 30 + tw_int(40), true);
        gjk_world *w = NULL;
        assert_ok(gjk_world_create(NULL, &w));
        tw_build_world(s, w);
        add_random_rules(s, w);
        int W = 9 + tw_int(20);
        int L = s->robots[0].link_count;
        gjk_transform *traj = random_trajectory(s, W, 1.0);
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = s->robots[0].id;
        t.waypoint_count = W;
        t.link_count = L;
        t.link_poses = traj;
        gjk_world_query_options all = gjk_world_default_query_options();
        all.pairs = GJK_WORLD_PAIRS_ALL;
        all.mode = GJK_WORLD_MODE_ALL_WITHIN;
        all.has_max_distance = true;
        all.max_distance = rnd_range(0.02, 0.2);
        all.max_pairs = GJK_WORLD_MAX_PAIRS;
        all.threads = 1 + tw_int(2);
        gjk_world_query_options closest = all;
        closest.mode = GJK_WORLD_MODE_CLOSEST;
        closest.has_max_distance = true;
        closest.max_distance = trial % 2 ? HUGE_VAL : 0.3;
        int bounded = 0;
        for (int iter = 0; iter < 5; ++iter) {
            gjk_world_result *ra = NULL, *rc = NULL;
            t.name = "all";
            assert_ok(gjk_world_query_trajectory(w, &t, &all, &ra));
            t.name = "closest";
            assert_ok(gjk_world_query_trajectory(w, &t, &closest, &rc));
            for (int i = 0; i < W; ++i) {
                int n;
                brute_waypoint(s, traj, i, all.pairs, &n);
                check_body_pairs(&ra->waypoints[i], brute, n, all.max_distance);
                bounded += ra->waypoints[i].counters.pairs_bounded;
                double m = brute_min(brute, n);
                if (m <= closest.max_distance - BOUNDARY)
                    assert_near(rc->waypoints[i].min_distance, m, tol_for(m));
                else if (m > closest.max_distance + BOUNDARY)
                    assert_true(isinf(rc->waypoints[i].min_distance));
            }
            gjk_world_result_destroy(&ra);
            gjk_world_result_destroy(&rc);
            /* the optimizer's next iterate: small moves, now and then a large one */
            double step = iter == 2 ? 0.05 : 0.004;
            for (int i = 0; i < W * L; ++i) {
                traj[i].p = gjk_add(traj[i].p, tw_vec(step));
                traj[i].q = gjk_quat_normalize(gjk_quat_mul(
                    gjk_quat_from_axis_angle(gjk_normalize(tw_vec(1)), 5 * step), traj[i].q));
            }
        }
        assert_true(bounded > 0);
        free(traj);
        gjk_world_destroy(&w);
        free(s);
        tw_free_polytopes();
    }
}

/* Scene changes between the queries of a named trajectory (moves, paddings, removals,
 * replacements, other robots' poses): every answer matches brute force on the changed scene,
 * so no cached warm start or bound ever outlives what it was computed for. */
static void test_changes_between_named_queries(void **state)
{
    (void)state;
    for (int trial = 0; trial < 4; ++trial) {
        test_seed(18000 + (uint64_t)trial);
        tw_scene *s = calloc(1, sizeof *s);
        assert_non_null(s);
        random_scene(s, 2, 50, false);
        gjk_world *w = NULL;
        assert_ok(gjk_world_create(NULL, &w));
        tw_build_world(s, w);
        int W = 17;
        int L = s->robots[0].link_count;
        gjk_transform *traj = random_trajectory(s, W, 1.0);
        gjk_world_trajectory t;
        memset(&t, 0, sizeof t);
        t.robot = s->robots[0].id;
        t.waypoint_count = W;
        t.link_count = L;
        t.link_poses = traj;
        t.name = "plan";
        gjk_world_query_options opt = gjk_world_default_query_options();
        opt.pairs = GJK_WORLD_PAIRS_ALL;
        opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
        opt.has_max_distance = true;
        opt.max_distance = 0.12;
        opt.max_pairs = GJK_WORLD_MAX_PAIRS;
        for (int step = 0; step < 12; ++step) {
            gjk_world_result *r = NULL;
            assert_ok(gjk_world_query_trajectory(w, &t, &opt, &r));
            for (int i = 0; i < W; ++i) {
                int n;
                brute_waypoint(s, traj, i, opt.pairs, &n);
                check_body_pairs(&r->waypoints[i], brute, n, opt.max_distance);
            }
            gjk_world_result_destroy(&r);
            /* change something near the path */
            int o = tw_int(s->obstacle_count);
            tw_body *b = &s->obstacles[o];
            switch (step % 6) {
            case 0: /* move an obstacle onto the robot's path */
                b->pose.p = gjk_add(traj[(tw_int(W) * L) + tw_int(L)].p, tw_vec(0.15));
                assert_ok(gjk_world_set_obstacle_pose(w, s->obstacle_ids[o], b->pose));
                break;
            case 1:
                b->padding = rnd_range(0.0, 0.08);
                assert_ok(
                    gjk_world_set_padding(w, gjk_obstacle_body(s->obstacle_ids[o]), b->padding));
                break;
            case 2: /* replace an obstacle by a bigger one at the path */
                b->parts[0].shape = tw_shape(0.3);
                b->pose.p = gjk_add(traj[(tw_int(W) * L) + tw_int(L)].p, tw_vec(0.2));
                {
                    gjk_obstacle_def def;
                    memset(&def, 0, sizeof def);
                    def.name = b->name;
                    def.parts = b->parts;
                    def.part_count = b->part_count;
                    def.pose = b->pose;
                    def.padding = b->padding;
                    int32_t id;
                    assert_ok(gjk_world_put_obstacle(w, &def, &id));
                    assert_int_equal(id, s->obstacle_ids[o]);
                }
                break;
            case 3: /* remove an obstacle */
                assert_ok(gjk_world_remove_obstacle(w, s->obstacle_ids[o]));
                s->obstacles[o] = s->obstacles[s->obstacle_count - 1];
                s->obstacle_ids[o] = s->obstacle_ids[s->obstacle_count - 1];
                --s->obstacle_count;
                break;
            case 4: { /* the other robot moves next to the path */
                tw_robot *r2 = &s->robots[1];
                gjk_transform p[TW_MAX_LINKS];
                for (int l = 0; l < r2->link_count; ++l) {
                    r2->links[l].pose.p = gjk_add(traj[(tw_int(W) * L) + tw_int(L)].p, tw_vec(0.2));
                    p[l] = r2->links[l].pose;
                }
                assert_ok(gjk_world_set_link_poses(w, r2->id, p, r2->link_count));
                break;
            }
            default: /* the moving robot's link padding */
                s->robots[0].links[tw_int(L)].padding = rnd_range(0.0, 0.05);
                for (int l = 0; l < L; ++l)
                    assert_ok(gjk_world_set_padding(w, gjk_link_body(s->robots[0].id, l),
                                                    s->robots[0].links[l].padding));
                break;
            }
        }
        free(traj);
        gjk_world_destroy(&w);
        free(s);
        tw_free_polytopes();
    }
}

/* Queries may run concurrently on one world (the daemon holds a shared lock for them):
 * named queries on the same and on different names, forgets and info calls at the same time.
 * Each answer must still match the single-threaded reference. Run under TSan too. */
typedef struct concurrent_ctx {
    const gjk_world *w;
    gjk_world_trajectory t;
    gjk_world_query_options opt;
    const gjk_world_result *reference;
    int id;
    int failures;
} concurrent_ctx;

static void *concurrent_main(void *arg)
{
    concurrent_ctx *c = arg;
    static const char *traj_names[3] = {"shared", "other", "third"};
    for (int i = 0; i < 12; ++i) {
        gjk_world_trajectory t = c->t;
        t.name = traj_names[(c->id + i) % 3];
        gjk_world_result *r = NULL;
        if (gjk_world_query_trajectory(c->w, &t, &c->opt, &r) != GJK_WORLD_OK) {
            ++c->failures;
            continue;
        }
        for (int32_t wp = 0; wp < r->waypoint_count; ++wp) {
            const gjk_world_waypoint *x = &r->waypoints[wp], *y = &c->reference->waypoints[wp];
            if (x->pair_count != y->pair_count ||
                (x->pair_count > 0 && fabs(x->min_distance - y->min_distance) > TOL_OVERLAP))
                ++c->failures;
        }
        gjk_world_result_destroy(&r);
        if (i % 5 == 4)
            gjk_world_forget_trajectory(c->w, traj_names[c->id % 3]);
        gjk_world_info info;
        gjk_world_get_info(c->w, &info);
    }
    return NULL;
}

static void test_concurrent_queries(void **state)
{
    (void)state;
    test_seed(21000);
    tw_scene *s = calloc(1, sizeof *s);
    assert_non_null(s);
    random_scene(s, 1, 40, false);
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    tw_build_world(s, w);
    int W = 20;
    gjk_transform *traj = random_trajectory(s, W, 1.0);
    concurrent_ctx ctx[4];
    memset(ctx, 0, sizeof ctx);
    ctx[0].t.robot = s->robots[0].id;
    ctx[0].t.waypoint_count = W;
    ctx[0].t.link_count = s->robots[0].link_count;
    ctx[0].t.link_poses = traj;
    ctx[0].opt = gjk_world_default_query_options();
    ctx[0].opt.mode = GJK_WORLD_MODE_ALL_WITHIN;
    ctx[0].opt.has_max_distance = true;
    ctx[0].opt.max_distance = 0.15;
    gjk_world_result *reference = NULL;
    assert_ok(gjk_world_query_trajectory(w, &ctx[0].t, &ctx[0].opt, &reference));
    pthread_t threads[4];
    for (int i = 0; i < 4; ++i) {
        ctx[i] = ctx[0];
        ctx[i].w = w;
        ctx[i].reference = reference;
        ctx[i].id = i;
        ctx[i].opt.threads = 1 + i % 2;
        assert_int_equal(pthread_create(&threads[i], NULL, concurrent_main, &ctx[i]), 0);
    }
    for (int i = 0; i < 4; ++i) {
        pthread_join(threads[i], NULL);
        assert_int_equal(ctx[i].failures, 0);
    }
    gjk_world_result_destroy(&reference);
    free(traj);
    gjk_world_destroy(&w);
    free(s);
    tw_free_polytopes();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_vs_brute_force),
        cmocka_unit_test(test_trajectory_vs_brute_force),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_zeroed_options_are_the_defaults),
        cmocka_unit_test(test_named_warm_equals_cold),
        cmocka_unit_test(test_named_iterations_vs_brute_force),
        cmocka_unit_test(test_changes_between_named_queries),
        cmocka_unit_test(test_concurrent_queries),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
