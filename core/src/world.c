/* world.c — the scene: robots, obstacles, allowed pairs, padding, poses (see gjk/world.h).
 *
 * Every change follows the same two steps so that a failure leaves the world untouched:
 * (1) validate the whole input and build/allocate everything the change needs, touching
 * nothing the world can see; (2) commit with operations that cannot fail. */
#define _POSIX_C_SOURCE 200809L

#include "world_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ small helpers */

static bool name_is_valid(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return false;
    return strnlen(name, GJK_WORLD_NAME_MAX + 1) <= GJK_WORLD_NAME_MAX;
}

static bool optional_name_is_valid(const char *name)
{
    return name == NULL || strnlen(name, GJK_WORLD_NAME_MAX + 1) <= GJK_WORLD_NAME_MAX;
}

static char *copy_name(const char *name)
{
    if (name == NULL)
        name = "";
    size_t n = strlen(name) + 1;
    char *s = malloc(n);
    if (s)
        memcpy(s, name, n);
    return s;
}

static bool padding_is_valid(double padding)
{
    return isfinite(padding) && padding >= 0.0;
}

/* Validates a pose and normalises its quaternion. */
static bool pose_normalize(gjk_transform in, gjk_transform *out)
{
    if (!gjk_transform_is_valid(in))
        return false;
    *out = gjk_transform_make(gjk_quat_normalize(in.q), in.p);
    return true;
}

static gjk_aabb part_world_box(const wpart *part, gjk_transform body_pose)
{
    gjk_transform t = gjk_transform_mul(body_pose, part->pose);
    gjk_vec3 lower, upper;
    gjk_shape_aabb(&part->shape, t, &lower, &upper);
    gjk_aabb box = {lower, upper};
    return box;
}

/* ------------------------------------------------------------------ parts and bodies */

static void part_free(wpart *p)
{
    gjk_polytope_destroy(&p->poly);
    free(p->name);
}

static void body_free(wbody *b)
{
    for (int32_t i = 0; i < b->part_count; ++i)
        part_free(&b->parts[i]);
    free(b->parts);
    free(b->name);
    memset(b, 0, sizeof *b);
}

/* Checks one part definition without allocating. */
static gjk_status part_def_check(const gjk_part_def *def)
{
    if (!optional_name_is_valid(def->name) || !gjk_transform_is_valid(def->pose))
        return GJK_STATUS_INVALID_INPUT;
    if (gjk_shape_validate(&def->shape) != GJK_STATUS_SEPARATED)
        return GJK_STATUS_INVALID_INPUT;
    return GJK_WORLD_OK;
}

/* Copies a part (validated already). */
static gjk_status part_copy(wpart *out, const gjk_part_def *def)
{
    memset(out, 0, sizeof *out);
    out->shape = def->shape;
    out->pose = gjk_transform_make(gjk_quat_normalize(def->pose.q), def->pose.p);
    out->name = copy_name(def->name);
    if (!out->name)
        return GJK_STATUS_OUT_OF_MEMORY;
    if (def->shape.kind == GJK_SHAPE_POLYTOPE) {
        const gjk_polytope *src = def->shape.polytope;
        gjk_vec3 *points = malloc((size_t)src->count * sizeof *points);
        if (!points)
            return GJK_STATUS_OUT_OF_MEMORY;
        for (int32_t i = 0; i < src->count; ++i)
            points[i] = gjk_v3(src->x[i], src->y[i], src->z[i]);
        gjk_status s =
            gjk_polytope_create(&out->poly, points, src->count, src->adj_start, src->adj);
        free(points);
        if (s != GJK_STATUS_SEPARATED)
            return s == GJK_STATUS_INVALID_INPUT ? s : GJK_STATUS_OUT_OF_MEMORY;
        out->shape.polytope = &out->poly;
    }
    gjk_vec3 lower, upper;
    gjk_shape_aabb(&out->shape, gjk_transform_identity(), &lower, &upper);
    out->box_center = gjk_scale(gjk_add(lower, upper), 0.5);
    out->box_half = gjk_scale(gjk_sub(upper, lower), 0.5);
    out->radius = gjk_shape_bounding_radius(&out->shape);
    return GJK_WORLD_OK;
}

/* Builds a body from a name and parts (all validated already). */
static gjk_status body_build(wbody *out, const char *name, const gjk_part_def *parts, int32_t count,
                             double padding)
{
    memset(out, 0, sizeof *out);
    out->padding = padding;
    out->pose = gjk_transform_identity();
    out->name = copy_name(name);
    if (!out->name)
        return GJK_STATUS_OUT_OF_MEMORY;
    if (count > 0) {
        out->parts = calloc((size_t)count, sizeof *out->parts);
        if (!out->parts)
            return GJK_STATUS_OUT_OF_MEMORY;
    }
    for (int32_t i = 0; i < count; ++i) {
        out->part_count = i + 1; /* so body_free frees what part_copy allocated */
        gjk_status s = part_copy(&out->parts[i], &parts[i]);
        if (s != GJK_WORLD_OK)
            return s;
    }
    out->part_count = count;
    return GJK_WORLD_OK;
}

/* ------------------------------------------------------------------ lookups */

const wrobot *gjk_world_robot_by_id(const gjk_world *world, int32_t id)
{
    int32_t lo = 0, hi = world->robot_count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (world->robots[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < world->robot_count && world->robots[lo]->id == id ? world->robots[lo] : NULL;
}

static int32_t obstacle_index(const gjk_world *world, int32_t id)
{
    int32_t lo = 0, hi = world->obstacle_count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (world->obstacles[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < world->obstacle_count && world->obstacles[lo]->id == id ? lo : -1;
}

const wobstacle *gjk_world_obstacle_by_id(const gjk_world *world, int32_t id)
{
    int32_t i = obstacle_index(world, id);
    return i >= 0 ? world->obstacles[i] : NULL;
}

/* Position of `name` in obstacles_by_name, or where it would be inserted (*found false). */
static int32_t obstacle_name_slot(const gjk_world *world, const char *name, bool *found)
{
    int32_t lo = 0, hi = world->obstacle_count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (strcmp(world->obstacles_by_name[mid]->body.name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found =
        lo < world->obstacle_count && strcmp(world->obstacles_by_name[lo]->body.name, name) == 0;
    return lo;
}

static int32_t robot_index_by_name(const gjk_world *world, const char *name)
{
    for (int32_t i = 0; i < world->robot_count; ++i)
        if (strcmp(world->robots[i]->name, name) == 0)
            return i;
    return -1;
}

static int32_t link_index_by_name(const wrobot *robot, const char *name)
{
    for (int32_t i = 0; i < robot->link_count; ++i)
        if (strcmp(robot->links[i].name, name) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------------ rules */

static int rule_cmp(uint64_t a0, uint64_t b0, uint64_t a1, uint64_t b1)
{
    if (a0 != a1)
        return a0 < a1 ? -1 : 1;
    if (b0 != b1)
        return b0 < b1 ? -1 : 1;
    return 0;
}

/* Index of the rule (a, b) with a <= b, or the insertion point (*found false). */
static int32_t rule_slot(const gjk_world *world, uint64_t a, uint64_t b, bool *found)
{
    int32_t lo = 0, hi = world->rule_count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (rule_cmp(world->rules[mid].a, world->rules[mid].b, a, b) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < world->rule_count && world->rules[lo].a == a && world->rules[lo].b == b;
    return lo;
}

const wrule *gjk_world_rule_find(const gjk_world *world, uint64_t a, uint64_t b)
{
    if (world->rule_count == 0)
        return NULL;
    if (a > b) {
        uint64_t t = a;
        a = b;
        b = t;
    }
    bool found;
    int32_t i = rule_slot(world, a, b, &found);
    return found ? &world->rules[i] : NULL;
}

/* Recomputes the counters and the largest pair padding. */
static void rules_summarise(gjk_world *world)
{
    world->allowed_count = 0;
    world->pair_padding_count = 0;
    world->max_pair_padding = 0.0;
    for (int32_t i = 0; i < world->rule_count; ++i) {
        const wrule *r = &world->rules[i];
        world->allowed_count += r->allowed;
        if (!isnan(r->padding)) {
            ++world->pair_padding_count;
            world->max_pair_padding = fmax(world->max_pair_padding, r->padding);
        }
    }
}

static int rule_sort_cmp(const void *x, const void *y)
{
    const wrule *p = x, *q = y;
    return rule_cmp(p->a, p->b, q->a, q->b);
}

/* Removes in place the rules naming this object (no allocation). */
static void rules_drop_object(gjk_world *world, gjk_body_kind kind, int32_t object)
{
    int32_t n = 0;
    for (int32_t i = 0; i < world->rule_count; ++i) {
        const wrule *r = &world->rules[i];
        bool names = (wkey_kind(r->a) == kind && wkey_object(r->a) == object) ||
                     (wkey_kind(r->b) == kind && wkey_object(r->b) == object);
        if (!names)
            world->rules[n++] = *r;
    }
    world->rule_count = n;
    rules_summarise(world);
}

/* Checks a body id; normalises an obstacle's link to -1. `wildcard` allows link = -1. */
static gjk_status body_check(const gjk_world *world, gjk_body_id *body, bool wildcard)
{
    if (body->kind == GJK_BODY_LINK) {
        const wrobot *r = gjk_world_robot_by_id(world, body->object);
        if (!r)
            return GJK_STATUS_NOT_FOUND;
        if (body->link == -1 && wildcard)
            return GJK_WORLD_OK;
        if (body->link < 0 || body->link >= r->link_count)
            return GJK_STATUS_NOT_FOUND;
        return GJK_WORLD_OK;
    }
    if (body->kind == GJK_BODY_OBSTACLE) {
        if (!gjk_world_obstacle_by_id(world, body->object))
            return GJK_STATUS_NOT_FOUND;
        body->link = -1;
        return GJK_WORLD_OK;
    }
    return GJK_STATUS_INVALID_INPUT;
}

/* Sets (allowed, padding) of the rule (a, b); `set_allowed` / `set_padding` select what
 * changes. Drops the rule when it says nothing any more. */
static gjk_status rule_update(gjk_world *world, gjk_body_id a, gjk_body_id b, bool set_allowed,
                              bool allowed, bool set_padding, double padding)
{
    gjk_status s = body_check(world, &a, true);
    if (s == GJK_WORLD_OK)
        s = body_check(world, &b, true);
    if (s != GJK_WORLD_OK)
        return s;
    uint64_t ka = wkey(a.kind, a.object, a.link), kb = wkey(b.kind, b.object, b.link);
    if (ka == kb)
        return GJK_STATUS_INVALID_INPUT; /* a body is never paired with itself */
    if (ka > kb) {
        uint64_t t = ka;
        ka = kb;
        kb = t;
    }
    bool found;
    int32_t i = rule_slot(world, ka, kb, &found);
    wrule rule = {ka, kb, false, (double)NAN};
    if (found)
        rule = world->rules[i];
    if (set_allowed)
        rule.allowed = allowed;
    if (set_padding)
        rule.padding = padding;
    bool keep = rule.allowed || !isnan(rule.padding);
    if (!found && keep) {
        wrule *grown = realloc(world->rules, (size_t)(world->rule_count + 1) * sizeof *grown);
        if (!grown)
            return GJK_STATUS_OUT_OF_MEMORY;
        world->rules = grown;
        memmove(&world->rules[i + 1], &world->rules[i],
                (size_t)(world->rule_count - i) * sizeof *grown);
        ++world->rule_count;
    } else if (found && !keep) {
        memmove(&world->rules[i], &world->rules[i + 1],
                (size_t)(world->rule_count - i - 1) * sizeof *world->rules);
        --world->rule_count;
    }
    if (keep)
        world->rules[i] = rule;
    rules_summarise(world);
    ++world->revision;
    return GJK_WORLD_OK;
}

/* ------------------------------------------------------------------ create / destroy */

gjk_world_def gjk_default_world_def(void)
{
    gjk_world_def d;
    memset(&d, 0, sizeof d);
    d.trajectory_cache_bytes = (size_t)64 << 20;
    d.max_trajectories = 256;
    d.max_robots = 64;
    d.max_obstacles = 100000;
    d.max_parts = 1000000;
    return d;
}

gjk_status gjk_world_create(const gjk_world_def *def, gjk_world **out)
{
    if (out == NULL)
        return GJK_STATUS_INVALID_INPUT;
    *out = NULL;
    gjk_world_def d = def ? *def : gjk_default_world_def();
    if (d.max_trajectories < 0 || d.max_robots < 1 || d.max_obstacles < 1 || d.max_parts < 1)
        return GJK_STATUS_INVALID_INPUT;
    gjk_world *w = calloc(1, sizeof *w);
    if (!w)
        return GJK_STATUS_OUT_OF_MEMORY;
    w->def = d;
    w->next_robot_id = 1;
    w->next_obstacle_id = 1;
    gjk_bp_init(&w->tree);
    w->cache = calloc(1, sizeof *w->cache);
    if (!w->cache || !wcache_init(w->cache, d.trajectory_cache_bytes, d.max_trajectories)) {
        free(w->cache);
        free(w);
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    *out = w;
    return GJK_WORLD_OK;
}

static void robot_free(wrobot *r)
{
    if (!r)
        return;
    for (int32_t i = 0; i < r->link_count; ++i)
        body_free(&r->links[i]);
    free(r->links);
    free(r->disabled);
    free(r->name);
    free(r->q);
    free(r->dof_lower);
    free(r->dof_upper);
    gjk_kinematics_state_destroy(&r->kstate);
    gjk_kinematics_destroy(&r->kin);
    free(r);
}

static void obstacle_free(wobstacle *o)
{
    if (!o)
        return;
    body_free(&o->body);
    free(o->boxes);
    free(o->leaves);
    free(o);
}

void gjk_world_destroy(gjk_world **world)
{
    if (!world || !*world)
        return;
    gjk_world *w = *world;
    for (int32_t i = 0; i < w->robot_count; ++i)
        robot_free(w->robots[i]);
    for (int32_t i = 0; i < w->obstacle_count; ++i)
        obstacle_free(w->obstacles[i]);
    free(w->robots);
    free(w->obstacles);
    free(w->obstacles_by_name);
    free(w->rules);
    gjk_bp_free(&w->tree);
    wcache_destroy(w->cache);
    free(w->cache);
    free(w);
    *world = NULL;
}

/* ------------------------------------------------------------------ robots */

static gjk_status robot_def_check(const gjk_robot_def *def)
{
    if (!name_is_valid(def->name) || def->link_count < 1 || def->link_count > GJK_WORLD_MAX_LINKS ||
        def->links == NULL || def->disabled_pair_count < 0 ||
        (def->disabled_pair_count > 0 && !def->disabled_pairs))
        return GJK_STATUS_INVALID_INPUT;
    if (def->joint_count < 0 || (def->joint_count > 0 && (!def->joints || def->link_poses)) ||
        (def->joint_count > 0 && def->base_pose && !gjk_transform_is_valid(*def->base_pose)))
        return GJK_STATUS_INVALID_INPUT; /* joints and link poses are two sources of state */
    for (int32_t l = 0; l < def->link_count; ++l) {
        const gjk_link_def *link = &def->links[l];
        if (!name_is_valid(link->name) || !padding_is_valid(link->padding) ||
            link->part_count < 0 || link->part_count > GJK_WORLD_MAX_PARTS ||
            (link->part_count > 0 && !link->parts))
            return GJK_STATUS_INVALID_INPUT;
        for (int32_t k = 0; k < l; ++k)
            if (strcmp(def->links[k].name, link->name) == 0)
                return GJK_STATUS_INVALID_INPUT; /* duplicate link name */
        for (int32_t p = 0; p < link->part_count; ++p)
            if (part_def_check(&link->parts[p]) != GJK_WORLD_OK)
                return GJK_STATUS_INVALID_INPUT;
        if (def->link_poses && !gjk_transform_is_valid(def->link_poses[l]))
            return GJK_STATUS_INVALID_INPUT;
    }
    return GJK_WORLD_OK;
}

static void robot_joint_error(const gjk_robot_def *def, gjk_kinematics_error_code code,
                              int32_t joint, const char *reason)
{
    if (def->joint_error) {
        def->joint_error->code = code;
        def->joint_error->joint = joint;
        def->joint_error->link = -1;
        def->joint_error->reason = reason;
    }
}

/* Writes the FK of r->q and r->base into the link poses (and r->kstate); INVALID_INPUT with
 * *bad_joint when a value is refused (nothing changed then). */
static gjk_status robot_forward(wrobot *r, const double *q, gjk_transform base, int32_t *bad_joint)
{
    gjk_status s = gjk_kinematics_forward(r->kin, q, r->dof_count, base, r->kstate, bad_joint);
    if (s != GJK_KINEMATICS_OK)
        return s;
    const gjk_transform *poses = gjk_kinematics_link_poses(r->kstate);
    for (int32_t l = 0; l < r->link_count; ++l)
        r->links[l].pose = poses[l];
    if (q != r->q && r->dof_count > 0)
        memcpy(r->q, q, (size_t)r->dof_count * sizeof *q);
    r->base = gjk_transform_make(gjk_quat_normalize(base.q), base.p);
    return GJK_WORLD_OK;
}

/* The kinematic model of a robot with joints, its limits and its initial state. */
static gjk_status robot_build_kinematics(wrobot *r, const gjk_robot_def *def)
{
    gjk_kinematics_def kd = {def->link_count, def->joints, def->joint_count};
    gjk_kinematics_error err;
    gjk_status s = gjk_kinematics_build(&kd, &r->kin, &err);
    if (def->joint_error)
        *def->joint_error = err;
    if (s != GJK_KINEMATICS_OK)
        return s;
    if (gjk_kinematics_state_create(r->kin, &r->kstate) != GJK_KINEMATICS_OK)
        return GJK_STATUS_OUT_OF_MEMORY;
    int32_t dofs = gjk_kinematics_dof_count(r->kin);
    size_t n = (size_t)(dofs > 0 ? dofs : 1);
    r->dof_count = dofs;
    r->q = calloc(n, sizeof *r->q);
    r->dof_lower = calloc(n, sizeof *r->dof_lower);
    r->dof_upper = calloc(n, sizeof *r->dof_upper);
    if (!r->q || !r->dof_lower || !r->dof_upper)
        return GJK_STATUS_OUT_OF_MEMORY;
    for (int32_t d = 0; d < dofs; ++d) {
        gjk_joint_info info;
        gjk_kinematics_joint_info(r->kin, gjk_kinematics_dof_joint(r->kin, d), &info);
        if (isfinite(info.lower)) { /* the tolerance of gjk_kinematics_forward (kinematics.h) */
            double tol = GJK_KINEMATICS_LIMIT_TOLERANCE *
                         fmax(1.0, fmax(fabs(info.lower), fabs(info.upper)));
            r->dof_lower[d] = info.lower - tol;
            r->dof_upper[d] = info.upper + tol;
        } else {
            r->dof_lower[d] = -DBL_MAX;
            r->dof_upper[d] = DBL_MAX;
        }
        r->q[d] = def->initial_positions ? def->initial_positions[d]
                                         : fmin(fmax(0.0, info.lower), info.upper);
    }
    gjk_transform base = def->base_pose ? *def->base_pose : gjk_transform_identity();
    int32_t bad = -1;
    s = robot_forward(r, r->q, base, &bad);
    if (s != GJK_WORLD_OK) {
        robot_joint_error(def, GJK_KIN_BAD_LIMITS, bad,
                          bad >= 0 ? "initial position is not finite or outside the joint's limits"
                                   : "invalid base pose");
        return GJK_STATUS_INVALID_INPUT;
    }
    return GJK_WORLD_OK;
}

static gjk_status robot_build(const gjk_robot_def *def, wrobot **out)
{
    *out = NULL;
    wrobot *r = calloc(1, sizeof *r);
    if (!r)
        return GJK_STATUS_OUT_OF_MEMORY;
    size_t n = (size_t)def->link_count;
    r->name = copy_name(def->name);
    r->links = calloc(n, sizeof *r->links);
    r->disabled = calloc(n * n, 1);
    if (!r->name || !r->links || !r->disabled) {
        robot_free(r);
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    r->self_collision = def->self_collision;
    for (int32_t l = 0; l < def->link_count; ++l) {
        const gjk_link_def *link = &def->links[l];
        r->link_count = l + 1;
        gjk_status s =
            body_build(&r->links[l], link->name, link->parts, link->part_count, link->padding);
        if (s != GJK_WORLD_OK) {
            robot_free(r);
            return s;
        }
        if (def->link_poses)
            pose_normalize(def->link_poses[l], &r->links[l].pose);
        r->part_count += link->part_count;
    }
    for (int32_t i = 0; i < def->disabled_pair_count; ++i) {
        const gjk_link_name_pair *p = &def->disabled_pairs[i];
        int32_t a = p->a ? link_index_by_name(r, p->a) : -1;
        int32_t b = p->b ? link_index_by_name(r, p->b) : -1;
        if (a < 0 || b < 0) {
            robot_free(r);
            return GJK_STATUS_NOT_FOUND;
        }
        r->disabled[(size_t)a * n + (size_t)b] = 1;
        r->disabled[(size_t)b * n + (size_t)a] = 1;
    }
    if (def->joint_count > 0) {
        gjk_status s = robot_build_kinematics(r, def);
        if (s != GJK_WORLD_OK) {
            robot_free(r);
            return s;
        }
    }
    *out = r;
    return GJK_WORLD_OK;
}

/* Rules after replacing robot `old` by `fresh` (same id): links are matched by name; rules
 * whose link no longer exists are dropped. Returns a new sorted array (or NULL with count 0). */
static gjk_status rules_remap_robot(const gjk_world *world, const wrobot *old, const wrobot *fresh,
                                    wrule **out, int32_t *out_count)
{
    *out = NULL;
    *out_count = 0;
    if (world->rule_count == 0)
        return GJK_WORLD_OK;
    wrule *rules = malloc((size_t)world->rule_count * sizeof *rules);
    if (!rules)
        return GJK_STATUS_OUT_OF_MEMORY;
    int32_t n = 0;
    for (int32_t i = 0; i < world->rule_count; ++i) {
        wrule r = world->rules[i];
        uint64_t keys[2] = {r.a, r.b};
        bool keep = true;
        for (int k = 0; k < 2; ++k) {
            if (wkey_kind(keys[k]) != GJK_BODY_LINK || wkey_object(keys[k]) != old->id ||
                wkey_link(keys[k]) < 0)
                continue;
            int32_t l = link_index_by_name(fresh, old->links[wkey_link(keys[k])].name);
            if (l < 0)
                keep = false;
            else
                keys[k] = wkey(GJK_BODY_LINK, old->id, l);
        }
        if (!keep || keys[0] == keys[1])
            continue;
        r.a = keys[0] < keys[1] ? keys[0] : keys[1];
        r.b = keys[0] < keys[1] ? keys[1] : keys[0];
        rules[n++] = r;
    }
    qsort(rules, (size_t)n, sizeof *rules, rule_sort_cmp);
    *out = rules;
    *out_count = n;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_put_robot(gjk_world *world, const gjk_robot_def *def, int32_t *id)
{
    if (!world || !def)
        return GJK_STATUS_INVALID_INPUT;
    gjk_status s = robot_def_check(def);
    if (s != GJK_WORLD_OK)
        return s;
    int32_t index = robot_index_by_name(world, def->name);
    const wrobot *old = index >= 0 ? world->robots[index] : NULL;
    int64_t parts = (int64_t)world->part_count - (old ? old->part_count : 0);
    for (int32_t l = 0; l < def->link_count; ++l)
        parts += def->links[l].part_count;
    if (parts > world->def.max_parts || (!old && world->robot_count >= world->def.max_robots) ||
        (!old && world->next_robot_id == INT32_MAX))
        return GJK_STATUS_OUT_OF_MEMORY;

    wrobot *fresh;
    s = robot_build(def, &fresh);
    if (s != GJK_WORLD_OK)
        return s;
    wrule *rules = NULL;
    int32_t rule_count = 0;
    if (old) {
        fresh->id = old->id;
        s = rules_remap_robot(world, old, fresh, &rules, &rule_count);
        if (s != GJK_WORLD_OK) {
            robot_free(fresh);
            return s;
        }
    } else {
        wrobot **grown = realloc(world->robots, (size_t)(world->robot_count + 1) * sizeof *grown);
        if (!grown) {
            robot_free(fresh);
            return GJK_STATUS_OUT_OF_MEMORY;
        }
        world->robots = grown; /* a larger array changes nothing visible */
        fresh->id = world->next_robot_id;
    }

    /* Commit. */
    if (old) {
        robot_free(world->robots[index]);
        world->robots[index] = fresh;
        free(world->rules);
        world->rules = rules;
        world->rule_count = rule_count;
        rules_summarise(world);
    } else {
        world->robots[world->robot_count++] = fresh; /* ids increase: stays sorted */
        ++world->next_robot_id;
    }
    world->part_count = (int32_t)parts;
    wcache_forget(world->cache, NULL);
    ++world->revision;
    if (id)
        *id = fresh->id;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_remove_robot(gjk_world *world, int32_t robot)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    int32_t index = -1;
    for (int32_t i = 0; i < world->robot_count; ++i)
        if (world->robots[i]->id == robot)
            index = i;
    if (index < 0)
        return GJK_STATUS_NOT_FOUND;
    wrobot *r = world->robots[index];
    world->part_count -= r->part_count;
    memmove(&world->robots[index], &world->robots[index + 1],
            (size_t)(world->robot_count - index - 1) * sizeof *world->robots);
    --world->robot_count;
    rules_drop_object(world, GJK_BODY_LINK, robot);
    robot_free(r);
    wcache_forget(world->cache, NULL);
    ++world->revision;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_set_link_poses(gjk_world *world, int32_t robot, const gjk_transform *poses,
                                    int32_t count)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    wrobot *r = (wrobot *)gjk_world_robot_by_id(world, robot);
    if (!r)
        return GJK_STATUS_NOT_FOUND;
    if (count != r->link_count || !poses || r->kin)
        return GJK_STATUS_INVALID_INPUT; /* a robot with joints moves by its joints */
    for (int32_t l = 0; l < count; ++l)
        if (!gjk_transform_is_valid(poses[l]))
            return GJK_STATUS_INVALID_INPUT;
    for (int32_t l = 0; l < count; ++l)
        pose_normalize(poses[l], &r->links[l].pose);
    ++world->pose_revision;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_set_joint_positions(gjk_world *world, int32_t robot, const int32_t *dofs,
                                         const double *values, int32_t count,
                                         const gjk_transform *base_pose, int32_t *bad_joint)
{
    if (bad_joint)
        *bad_joint = -1;
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    wrobot *r = (wrobot *)gjk_world_robot_by_id(world, robot);
    if (!r)
        return GJK_STATUS_NOT_FOUND;
    if (!r->kin || count < 0 || (count > 0 && !values) || (!dofs && count != r->dof_count) ||
        count > r->dof_count || (base_pose && !gjk_transform_is_valid(*base_pose)))
        return GJK_STATUS_INVALID_INPUT;
    /* The new vector in the FK state's scratch: r->q changes only on success. */
    double stack[64];
    double *q = r->dof_count <= 64 ? stack : malloc((size_t)r->dof_count * sizeof *q);
    if (!q)
        return GJK_STATUS_OUT_OF_MEMORY;
    gjk_status s = GJK_WORLD_OK;
    if (r->dof_count > 0)
        memcpy(q, r->q, (size_t)r->dof_count * sizeof *q);
    if (!dofs) {
        if (count > 0)
            memcpy(q, values, (size_t)count * sizeof *q);
    } else {
        for (int32_t i = 0; i < count && s == GJK_WORLD_OK; ++i) {
            if (dofs[i] < 0 || dofs[i] >= r->dof_count)
                s = GJK_STATUS_INVALID_INPUT;
            for (int32_t k = 0; k < i && s == GJK_WORLD_OK; ++k)
                if (dofs[k] == dofs[i])
                    s = GJK_STATUS_INVALID_INPUT; /* one DOF set twice */
            if (s == GJK_WORLD_OK)
                q[dofs[i]] = values[i];
        }
    }
    if (s == GJK_WORLD_OK)
        s = robot_forward(r, q, base_pose ? *base_pose : r->base, bad_joint);
    if (q != stack)
        free(q);
    if (s != GJK_WORLD_OK)
        return s;
    ++world->pose_revision;
    return GJK_WORLD_OK;
}

const gjk_kinematics *gjk_world_robot_kinematics(const gjk_world *world, int32_t robot)
{
    const wrobot *r = world ? gjk_world_robot_by_id(world, robot) : NULL;
    return r ? r->kin : NULL;
}

int32_t gjk_world_joint_positions(const gjk_world *world, int32_t robot, double *values,
                                  int32_t capacity, gjk_transform *base_pose)
{
    const wrobot *r = world ? gjk_world_robot_by_id(world, robot) : NULL;
    if (!r)
        return -1;
    for (int32_t d = 0; d < r->dof_count && d < capacity && values; ++d)
        values[d] = r->q[d];
    if (base_pose)
        *base_pose = r->kin ? r->base : gjk_transform_identity();
    return r->dof_count;
}

gjk_status gjk_world_set_self_collision(gjk_world *world, int32_t robot, bool enabled)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    wrobot *r = (wrobot *)gjk_world_robot_by_id(world, robot);
    if (!r)
        return GJK_STATUS_NOT_FOUND;
    r->self_collision = enabled;
    ++world->revision;
    return GJK_WORLD_OK;
}

/* ------------------------------------------------------------------ obstacles */

static gjk_status obstacle_def_check(const gjk_obstacle_def *def)
{
    if (!name_is_valid(def->name) || def->part_count < 1 || def->part_count > GJK_WORLD_MAX_PARTS ||
        !def->parts || !gjk_transform_is_valid(def->pose) || !padding_is_valid(def->padding))
        return GJK_STATUS_INVALID_INPUT;
    for (int32_t p = 0; p < def->part_count; ++p)
        if (part_def_check(&def->parts[p]) != GJK_WORLD_OK)
            return GJK_STATUS_INVALID_INPUT;
    return GJK_WORLD_OK;
}

static gjk_status obstacle_build(const gjk_obstacle_def *def, wobstacle **out)
{
    *out = NULL;
    wobstacle *o = calloc(1, sizeof *o);
    if (!o)
        return GJK_STATUS_OUT_OF_MEMORY;
    gjk_status s = body_build(&o->body, def->name, def->parts, def->part_count, def->padding);
    if (s == GJK_WORLD_OK) {
        o->boxes = malloc((size_t)def->part_count * sizeof *o->boxes);
        o->leaves = malloc((size_t)def->part_count * sizeof *o->leaves);
        if (!o->boxes || !o->leaves)
            s = GJK_STATUS_OUT_OF_MEMORY;
    }
    if (s != GJK_WORLD_OK) {
        obstacle_free(o);
        return s;
    }
    pose_normalize(def->pose, &o->body.pose);
    for (int32_t p = 0; p < o->body.part_count; ++p) {
        o->boxes[p] = part_world_box(&o->body.parts[p], o->body.pose);
        o->leaves[p] = GJK_BP_NULL;
    }
    *out = o;
    return GJK_WORLD_OK;
}

static void obstacle_insert_leaves(gjk_world *world, wobstacle *o)
{
    for (int32_t p = 0; p < o->body.part_count; ++p)
        o->leaves[p] =
            gjk_bp_insert(&world->tree, gjk_aabb_grow(o->boxes[p], o->body.padding), o, p);
}

static void obstacle_remove_leaves(gjk_world *world, wobstacle *o)
{
    for (int32_t p = 0; p < o->body.part_count; ++p)
        if (o->leaves[p] != GJK_BP_NULL)
            gjk_bp_remove(&world->tree, o->leaves[p]);
}

/* Re-boxes an obstacle after a pose or padding change (no allocation). */
static void obstacle_refresh(gjk_world *world, wobstacle *o)
{
    for (int32_t p = 0; p < o->body.part_count; ++p) {
        o->boxes[p] = part_world_box(&o->body.parts[p], o->body.pose);
        gjk_bp_move(&world->tree, o->leaves[p], gjk_aabb_grow(o->boxes[p], o->body.padding));
    }
}

gjk_status gjk_world_put_obstacle(gjk_world *world, const gjk_obstacle_def *def, int32_t *id)
{
    if (!world || !def)
        return GJK_STATUS_INVALID_INPUT;
    gjk_status s = obstacle_def_check(def);
    if (s != GJK_WORLD_OK)
        return s;
    bool found;
    int32_t name_slot = obstacle_name_slot(world, def->name, &found);
    wobstacle *old = found ? world->obstacles_by_name[name_slot] : NULL;
    int64_t parts = (int64_t)world->part_count - (old ? old->body.part_count : 0) + def->part_count;
    if (parts > world->def.max_parts ||
        (!old && world->obstacle_count >= world->def.max_obstacles) ||
        (!old && world->next_obstacle_id == INT32_MAX))
        return GJK_STATUS_OUT_OF_MEMORY;

    wobstacle *fresh;
    s = obstacle_build(def, &fresh);
    if (s != GJK_WORLD_OK)
        return s;
    if (!gjk_bp_reserve(&world->tree, def->part_count)) {
        obstacle_free(fresh);
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    if (!old && world->obstacle_count == world->obstacle_capacity) {
        int32_t capacity = world->obstacle_capacity ? 2 * world->obstacle_capacity : 16;
        wobstacle **a = realloc(world->obstacles, (size_t)capacity * sizeof *a);
        if (a)
            world->obstacles = a;
        wobstacle **b = a ? realloc(world->obstacles_by_name, (size_t)capacity * sizeof *b) : NULL;
        if (b)
            world->obstacles_by_name = b;
        if (!a || !b) {
            obstacle_free(fresh);
            return GJK_STATUS_OUT_OF_MEMORY;
        }
        world->obstacle_capacity = capacity;
    }

    /* Commit. */
    int32_t old_parts = old ? old->body.part_count : 0;
    if (old) {
        fresh->id = old->id;
        obstacle_remove_leaves(world, old);
        world->obstacles[obstacle_index(world, old->id)] = fresh;
        world->obstacles_by_name[name_slot] = fresh;
        obstacle_free(old);
    } else {
        fresh->id = world->next_obstacle_id++;
        world->obstacles[world->obstacle_count] = fresh; /* ids increase: stays sorted */
        memmove(&world->obstacles_by_name[name_slot + 1], &world->obstacles_by_name[name_slot],
                (size_t)(world->obstacle_count - name_slot) * sizeof *world->obstacles_by_name);
        world->obstacles_by_name[name_slot] = fresh;
        ++world->obstacle_count;
    }
    obstacle_insert_leaves(world, fresh);
    world->obstacle_part_count += fresh->body.part_count - old_parts;
    world->part_count = (int32_t)parts;
    wcache_forget(world->cache, NULL);
    ++world->revision;
    if (id)
        *id = fresh->id;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_remove_obstacle(gjk_world *world, int32_t obstacle)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    int32_t index = obstacle_index(world, obstacle);
    if (index < 0)
        return GJK_STATUS_NOT_FOUND;
    wobstacle *o = world->obstacles[index];
    bool found;
    int32_t name_slot = obstacle_name_slot(world, o->body.name, &found);
    GJK_ASSERT(found);
    obstacle_remove_leaves(world, o);
    memmove(&world->obstacles[index], &world->obstacles[index + 1],
            (size_t)(world->obstacle_count - index - 1) * sizeof *world->obstacles);
    memmove(&world->obstacles_by_name[name_slot], &world->obstacles_by_name[name_slot + 1],
            (size_t)(world->obstacle_count - name_slot - 1) * sizeof *world->obstacles_by_name);
    --world->obstacle_count;
    world->part_count -= o->body.part_count;
    world->obstacle_part_count -= o->body.part_count;
    rules_drop_object(world, GJK_BODY_OBSTACLE, obstacle);
    obstacle_free(o);
    wcache_forget(world->cache, NULL);
    ++world->revision;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_set_obstacle_pose(gjk_world *world, int32_t obstacle, gjk_transform pose)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    int32_t index = obstacle_index(world, obstacle);
    if (index < 0)
        return GJK_STATUS_NOT_FOUND;
    wobstacle *o = world->obstacles[index];
    if (!pose_normalize(pose, &o->body.pose))
        return GJK_STATUS_INVALID_INPUT;
    obstacle_refresh(world, o);
    ++world->revision;
    return GJK_WORLD_OK;
}

/* ------------------------------------------------------------------ allowed pairs, padding */

gjk_status gjk_world_set_allowed(gjk_world *world, gjk_body_id a, gjk_body_id b, bool allowed)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    return rule_update(world, a, b, true, allowed, false, 0.0);
}

gjk_status gjk_world_set_pair_padding(gjk_world *world, gjk_body_id a, gjk_body_id b,
                                      double padding)
{
    if (!world || !(isnan(padding) || padding_is_valid(padding)))
        return GJK_STATUS_INVALID_INPUT;
    return rule_update(world, a, b, false, false, true, isnan(padding) ? (double)NAN : padding);
}

gjk_status gjk_world_set_padding(gjk_world *world, gjk_body_id body, double padding)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    gjk_status s = body_check(world, &body, true);
    if (s != GJK_WORLD_OK)
        return s;
    if (!padding_is_valid(padding))
        return GJK_STATUS_INVALID_INPUT;
    if (body.kind == GJK_BODY_LINK) {
        wrobot *r = (wrobot *)gjk_world_robot_by_id(world, body.object);
        for (int32_t l = 0; l < r->link_count; ++l)
            if (body.link < 0 || body.link == l)
                r->links[l].padding = padding;
    } else {
        wobstacle *o = world->obstacles[obstacle_index(world, body.object)];
        o->body.padding = padding;
        obstacle_refresh(world, o);
    }
    ++world->revision;
    return GJK_WORLD_OK;
}

/* ------------------------------------------------------------------ reading */

uint64_t gjk_world_revision(const gjk_world *world)
{
    return world ? world->revision : 0;
}

uint64_t gjk_world_pose_revision(const gjk_world *world)
{
    return world ? world->pose_revision : 0;
}

gjk_status gjk_world_find_robot(const gjk_world *world, const char *name, int32_t *robot)
{
    if (!world || !name || !robot)
        return GJK_STATUS_INVALID_INPUT;
    int32_t i = robot_index_by_name(world, name);
    if (i < 0)
        return GJK_STATUS_NOT_FOUND;
    *robot = world->robots[i]->id;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_find_link(const gjk_world *world, int32_t robot, const char *name,
                               int32_t *link)
{
    if (!world || !name || !link)
        return GJK_STATUS_INVALID_INPUT;
    const wrobot *r = gjk_world_robot_by_id(world, robot);
    int32_t l = r ? link_index_by_name(r, name) : -1;
    if (l < 0)
        return GJK_STATUS_NOT_FOUND;
    *link = l;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_find_obstacle(const gjk_world *world, const char *name, int32_t *obstacle)
{
    if (!world || !name || !obstacle)
        return GJK_STATUS_INVALID_INPUT;
    bool found;
    int32_t slot = obstacle_name_slot(world, name, &found);
    if (!found)
        return GJK_STATUS_NOT_FOUND;
    *obstacle = world->obstacles_by_name[slot]->id;
    return GJK_WORLD_OK;
}

int32_t gjk_world_robot_ids(const gjk_world *world, int32_t *ids, int32_t capacity)
{
    if (!world)
        return 0;
    for (int32_t i = 0; i < world->robot_count && i < capacity; ++i)
        ids[i] = world->robots[i]->id;
    return world->robot_count;
}

int32_t gjk_world_obstacle_ids(const gjk_world *world, int32_t *ids, int32_t capacity)
{
    if (!world)
        return 0;
    for (int32_t i = 0; i < world->obstacle_count && i < capacity; ++i)
        ids[i] = world->obstacles[i]->id;
    return world->obstacle_count;
}

gjk_status gjk_world_robot_info(const gjk_world *world, int32_t robot, gjk_robot_info *info)
{
    if (!world || !info)
        return GJK_STATUS_INVALID_INPUT;
    const wrobot *r = gjk_world_robot_by_id(world, robot);
    if (!r)
        return GJK_STATUS_NOT_FOUND;
    info->id = r->id;
    info->name = r->name;
    info->link_count = r->link_count;
    info->part_count = r->part_count;
    info->self_collision = r->self_collision;
    info->joint_count = r->kin ? gjk_kinematics_joint_count(r->kin) : 0;
    info->dof_count = r->dof_count;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_link_info(const gjk_world *world, int32_t robot, int32_t link,
                               gjk_link_info *info)
{
    if (!world || !info)
        return GJK_STATUS_INVALID_INPUT;
    const wrobot *r = gjk_world_robot_by_id(world, robot);
    if (!r || link < 0 || link >= r->link_count)
        return GJK_STATUS_NOT_FOUND;
    const wbody *b = &r->links[link];
    info->name = b->name;
    info->part_count = b->part_count;
    info->padding = b->padding;
    info->pose = b->pose;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_obstacle_info(const gjk_world *world, int32_t obstacle,
                                   gjk_obstacle_info *info)
{
    if (!world || !info)
        return GJK_STATUS_INVALID_INPUT;
    const wobstacle *o = gjk_world_obstacle_by_id(world, obstacle);
    if (!o)
        return GJK_STATUS_NOT_FOUND;
    info->id = o->id;
    info->name = o->body.name;
    info->part_count = o->body.part_count;
    info->padding = o->body.padding;
    info->pose = o->body.pose;
    return GJK_WORLD_OK;
}

void gjk_world_get_info(const gjk_world *world, gjk_world_info *info)
{
    if (!info)
        return;
    memset(info, 0, sizeof *info);
    if (!world)
        return;
    info->revision = world->revision;
    info->pose_revision = world->pose_revision;
    info->robot_count = world->robot_count;
    info->obstacle_count = world->obstacle_count;
    info->part_count = world->part_count;
    info->allowed_pair_count = world->allowed_count;
    info->pair_padding_count = world->pair_padding_count;
    wcache_stats(world->cache, &info->trajectory_count, &info->trajectory_cache_bytes,
                 &info->trajectory_cache_hits, &info->trajectory_cache_misses);
}
