/* test_world_util.h — helpers shared by the world tests: assertions on doubles, a seeded
 * generator, random shapes and poses, and a plain description of a scene that the tests keep
 * next to the world so a brute-force oracle can check every pair without the world's code. */
#ifndef TEST_WORLD_UTIL_H
#define TEST_WORLD_UTIL_H

#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "gjk/world.h"

#define assert_ok(expr) assert_status(expr, GJK_WORLD_OK)

static inline int tw_int(int n)
{
    return (int)(rnd() * n) % n;
}

static inline gjk_vec3 tw_vec(double r)
{
    return gjk_v3(rnd_range(-r, r), rnd_range(-r, r), rnd_range(-r, r));
}

static inline gjk_quat tw_quat(void)
{
    for (;;) {
        gjk_quat q =
            gjk_quat_make(rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1));
        double n = gjk_quat_norm(q);
        if (n > 0.1 && n <= 1.0)
            return gjk_quat_normalize(q);
    }
}

static inline gjk_transform tw_pose(double r)
{
    return gjk_transform_make(tw_quat(), tw_vec(r));
}

/* ------------------------------------------------------------------ shapes */

/* Polytopes made by the tests; freed by tw_free_polytopes. */
#define TW_MAX_POLYTOPES 512
static gjk_polytope *tw_polytopes[TW_MAX_POLYTOPES];
static int tw_polytope_count = 0;

static inline const gjk_polytope *tw_hull(int points, double size)
{
    assert_true(tw_polytope_count < TW_MAX_POLYTOPES);
    gjk_vec3 *p = malloc((size_t)points * sizeof *p);
    assert_non_null(p);
    for (int i = 0; i < points; ++i) {
        gjk_vec3 u = gjk_normalize(tw_vec(1.0));
        p[i] = gjk_v3(u.x * size, u.y * size * 0.7, u.z * size * 1.3);
    }
    gjk_polytope *poly = calloc(1, sizeof *poly);
    assert_non_null(poly);
    assert_int_equal(gjk_hull_build(poly, p, points, NULL), GJK_STATUS_SEPARATED);
    free(p);
    tw_polytopes[tw_polytope_count++] = poly;
    return poly;
}

static inline void tw_free_polytopes(void)
{
    for (int i = 0; i < tw_polytope_count; ++i) {
        gjk_polytope_destroy(tw_polytopes[i]);
        free(tw_polytopes[i]);
    }
    tw_polytope_count = 0;
}

/* A random convex shape about `size` metres across. */
static inline gjk_shape tw_shape(double size)
{
    gjk_shape s;
    switch (tw_int(6)) {
    case 0:
        s = gjk_make_box(
            gjk_v3(rnd_range(0.2, 1) * size, rnd_range(0.2, 1) * size, rnd_range(0.2, 1) * size));
        break;
    case 1:
        s = gjk_make_sphere(rnd_range(0.3, 1) * size);
        break;
    case 2:
        s = gjk_make_capsule(rnd_range(0.2, 0.6) * size, rnd_range(0.2, 1) * size);
        break;
    case 3:
        s = gjk_make_cylinder(rnd_range(0.2, 1) * size, rnd_range(0.2, 1) * size);
        break;
    case 4:
        s = gjk_make_cone(rnd_range(0.3, 1) * size, rnd_range(0.3, 1) * size);
        break;
    default:
        s = gjk_make_polytope(tw_hull(8 + tw_int(60), size));
        break;
    }
    if (tw_int(4) == 0)
        s.margin = rnd_range(0.0, 0.1) * size;
    return s;
}

/* ------------------------------------------------------------------ scene descriptions */

#define TW_MAX_PARTS 3
#define TW_MAX_LINKS 8
#define TW_MAX_ROBOTS 3
#define TW_MAX_OBSTACLES 96
#define TW_MAX_RULES 32

typedef struct tw_body {
    char name[32];
    gjk_part_def parts[TW_MAX_PARTS];
    int part_count;
    double padding;
    gjk_transform pose; /* obstacle: world pose; link: current pose */
} tw_body;

typedef struct tw_robot {
    char name[32];
    int32_t id;
    tw_body links[TW_MAX_LINKS];
    int link_count;
    bool self_collision;
    gjk_link_name_pair disabled[TW_MAX_LINKS];
    int disabled_count;
} tw_robot;

typedef struct tw_rule {
    gjk_body_id a, b;
    bool allowed;
    double padding; /* NaN: none */
} tw_rule;

typedef struct tw_scene {
    tw_robot robots[TW_MAX_ROBOTS];
    int robot_count;
    tw_body obstacles[TW_MAX_OBSTACLES];
    int32_t obstacle_ids[TW_MAX_OBSTACLES];
    int obstacle_count;
    tw_rule rules[TW_MAX_RULES];
    int rule_count;
} tw_scene;

/* Fills the world from the description (ids recorded in the scene). */
static inline void tw_build_world(tw_scene *s, gjk_world *w)
{
    for (int r = 0; r < s->robot_count; ++r) {
        tw_robot *tr = &s->robots[r];
        gjk_link_def links[TW_MAX_LINKS];
        gjk_transform poses[TW_MAX_LINKS];
        for (int l = 0; l < tr->link_count; ++l) {
            links[l].name = tr->links[l].name;
            links[l].parts = tr->links[l].parts;
            links[l].part_count = tr->links[l].part_count;
            links[l].padding = tr->links[l].padding;
            poses[l] = tr->links[l].pose;
        }
        gjk_robot_def def;
        memset(&def, 0, sizeof def);
        def.name = tr->name;
        def.links = links;
        def.link_count = tr->link_count;
        def.self_collision = tr->self_collision;
        def.disabled_pairs = tr->disabled;
        def.disabled_pair_count = tr->disabled_count;
        def.link_poses = poses;
        assert_ok(gjk_world_put_robot(w, &def, &tr->id));
    }
    for (int o = 0; o < s->obstacle_count; ++o) {
        tw_body *b = &s->obstacles[o];
        gjk_obstacle_def def;
        memset(&def, 0, sizeof def);
        def.name = b->name;
        def.parts = b->parts;
        def.part_count = b->part_count;
        def.pose = b->pose;
        def.padding = b->padding;
        assert_ok(gjk_world_put_obstacle(w, &def, &s->obstacle_ids[o]));
    }
}

/* One pair found by the oracle. */
typedef struct tw_pair {
    int32_t robot_a, link_a, part_a;
    gjk_body_kind kind_b;
    int32_t object_b, link_b, part_b;
    double distance; /* padded signed distance */
    gjk_status status;
} tw_pair;

static inline bool tw_body_matches(gjk_body_id rule, gjk_body_id body)
{
    if (rule.kind != body.kind || rule.object != body.object)
        return false;
    return rule.kind == GJK_BODY_OBSTACLE || rule.link == -1 || rule.link == body.link;
}

/* Rules between two bodies, by the documented semantics: allowed if any rule names the pair;
 * padding of the first exact rule (the tests only give exact per-pair paddings). */
static inline void tw_rules(const tw_scene *s, gjk_body_id a, gjk_body_id b, bool *allowed,
                            double *padding)
{
    *allowed = false;
    *padding = (double)NAN;
    for (int i = 0; i < s->rule_count; ++i) {
        const tw_rule *r = &s->rules[i];
        bool m = (tw_body_matches(r->a, a) && tw_body_matches(r->b, b)) ||
                 (tw_body_matches(r->a, b) && tw_body_matches(r->b, a));
        if (!m)
            continue;
        *allowed = *allowed || r->allowed;
        if (!isnan(r->padding))
            *padding = r->padding;
    }
}

static inline bool tw_disabled(const tw_robot *r, int i, int j)
{
    for (int k = 0; k < r->disabled_count; ++k) {
        bool ab = strcmp(r->disabled[k].a, r->links[i].name) == 0 &&
                  strcmp(r->disabled[k].b, r->links[j].name) == 0;
        bool ba = strcmp(r->disabled[k].a, r->links[j].name) == 0 &&
                  strcmp(r->disabled[k].b, r->links[i].name) == 0;
        if (ab || ba)
            return true;
    }
    return false;
}

/* Exact signed distance of two parts (no cutoff, no cache), padding subtracted. */
static inline void tw_pair_distance(const gjk_part_def *pa, gjk_transform fa,
                                    const gjk_part_def *pb, gjk_transform fb, double pad,
                                    tw_pair *out)
{
    gjk_query q;
    memset(&q, 0, sizeof q);
    q.shape_a = &pa->shape;
    q.pose_a = gjk_transform_mul(fa, pa->pose);
    q.shape_b = &pb->shape;
    q.pose_b = gjk_transform_mul(fb, pb->pose);
    q.cutoff = HUGE_VAL;
    q.penetration = true;
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_result r = gjk_query_run(&q, &cache, NULL);
    out->distance = r.distance - pad;
    out->status = r.status;
}

/* Every checked pair of the scene, brute force: robots at `poses[r][l]` (NULL: the link's
 * current pose). Robot `only` (0 = all) restricts side A as the world's options.robot does.
 * Returns the number of pairs written to out (capacity cap). */
static inline int tw_brute(const tw_scene *s, const gjk_transform (*poses)[TW_MAX_LINKS],
                           uint32_t kinds, int32_t only, tw_pair *out, int cap)
{
    int n = 0;
    for (int r = 0; r < s->robot_count; ++r) {
        const tw_robot *ra = &s->robots[r];
        if (only != 0 && ra->id != only)
            continue;
        for (int l = 0; l < ra->link_count; ++l) {
            const tw_body *la = &ra->links[l];
            gjk_transform fa = poses ? poses[r][l] : la->pose;
            gjk_body_id ba = gjk_link_body(ra->id, l);
            if (kinds & GJK_WORLD_PAIRS_ROBOT_OBSTACLE) {
                for (int o = 0; o < s->obstacle_count; ++o) {
                    const tw_body *ob = &s->obstacles[o];
                    bool allowed;
                    double pad;
                    tw_rules(s, ba, gjk_obstacle_body(s->obstacle_ids[o]), &allowed, &pad);
                    if (allowed)
                        continue;
                    if (isnan(pad))
                        pad = la->padding + ob->padding;
                    for (int i = 0; i < la->part_count; ++i)
                        for (int j = 0; j < ob->part_count; ++j) {
                            assert_true(n < cap);
                            tw_pair *p = &out[n++];
                            p->robot_a = ra->id;
                            p->link_a = l;
                            p->part_a = i;
                            p->kind_b = GJK_BODY_OBSTACLE;
                            p->object_b = s->obstacle_ids[o];
                            p->link_b = -1;
                            p->part_b = j;
                            tw_pair_distance(&la->parts[i], fa, &ob->parts[j], ob->pose, pad, p);
                        }
                }
            }
            /* Link-link pairs: self (same robot, higher link) and robot-robot. */
            for (int r2 = 0; r2 < s->robot_count; ++r2) {
                const tw_robot *rb = &s->robots[r2];
                bool self = r2 == r;
                if (self && (!(kinds & GJK_WORLD_PAIRS_SELF) || !ra->self_collision))
                    continue;
                if (!self && !(kinds & GJK_WORLD_PAIRS_ROBOT_ROBOT))
                    continue;
                /* robot-robot pairs once: A is the robot with the lower index unless only
                 * one robot is active */
                if (!self && only == 0 && r2 < r)
                    continue;
                for (int l2 = self ? l + 1 : 0; l2 < rb->link_count; ++l2) {
                    if (self && tw_disabled(ra, l, l2))
                        continue;
                    const tw_body *lb = &rb->links[l2];
                    gjk_transform fb = poses ? poses[r2][l2] : lb->pose;
                    bool allowed;
                    double pad;
                    tw_rules(s, ba, gjk_link_body(rb->id, l2), &allowed, &pad);
                    if (allowed)
                        continue;
                    if (isnan(pad))
                        pad = la->padding + lb->padding;
                    for (int i = 0; i < la->part_count; ++i)
                        for (int j = 0; j < lb->part_count; ++j) {
                            assert_true(n < cap);
                            tw_pair *p = &out[n++];
                            p->robot_a = ra->id;
                            p->link_a = l;
                            p->part_a = i;
                            p->kind_b = GJK_BODY_LINK;
                            p->object_b = rb->id;
                            p->link_b = l2;
                            p->part_b = j;
                            tw_pair_distance(&la->parts[i], fa, &lb->parts[j], fb, pad, p);
                        }
                }
            }
        }
    }
    return n;
}

static inline bool tw_same_pair(const tw_pair *p, const gjk_world_pair *q)
{
    return p->robot_a == q->a.body.object && p->link_a == q->a.body.link &&
           p->part_a == q->a.part && p->kind_b == q->b.body.kind &&
           p->object_b == q->b.body.object && p->part_b == q->b.part &&
           (p->kind_b == GJK_BODY_OBSTACLE || p->link_b == q->b.body.link);
}

/* The same body pair (link-obstacle or link-link), whatever the parts. */
static inline bool tw_same_body_pair(const tw_pair *p, const gjk_world_pair *q)
{
    return p->robot_a == q->a.body.object && p->link_a == q->a.body.link &&
           p->kind_b == q->b.body.kind && p->object_b == q->b.body.object &&
           (p->kind_b == GJK_BODY_OBSTACLE || p->link_b == q->b.body.link);
}

/* A fixed, small "arm" of boxes and a unit box obstacle: for focused unit tests. */
static inline gjk_part_def tw_box_part(double hx, double hy, double hz, gjk_vec3 offset)
{
    gjk_part_def p;
    memset(&p, 0, sizeof p);
    p.shape = gjk_make_box(gjk_v3(hx, hy, hz));
    p.pose = gjk_transform_make(gjk_quat_identity(), offset);
    return p;
}

static inline gjk_transform tw_at(double x, double y, double z)
{
    return gjk_transform_make(gjk_quat_identity(), gjk_v3(x, y, z));
}

#endif /* TEST_WORLD_UTIL_H */
