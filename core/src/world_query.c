/* world_query.c — state and trajectory queries over a world (see gjk/world.h).
 *
 * Work is done in blocks of GJK_WORLD_BLOCK_WAYPOINTS consecutive waypoints (a state query is
 * one block of one waypoint). For a block:
 *  1. Placement. Every part of the moving robot is placed at every waypoint (link pose * part
 *     pose) with a world box (its part-frame box, rotated), and two motion bounds: `travel`,
 *     how far any point of the part can have moved since the block's first waypoint, and
 *     `moved`, since the same waypoint of the named trajectory's previous query. Both use
 *     |dp| + 2 sin(angle / 2) * radius for a pose change (dp, angle) of a part of that radius.
 *  2. Broad phase. One query of the obstacle tree per link part with the part's box swept
 *     over the block and the reach padding(link) + limit + largest per-pair padding (leaves
 *     are grown by their obstacle's padding) gives each part its candidate obstacle parts.
 *     (CLOSEST mode without max_distance instead queries the tree per waypoint with a reach
 *     that shrinks to the best distance found: branch and bound.) Self and robot-robot pairs
 *     are few (links x links) and are enumerated directly.
 *  3. Per waypoint and candidate: allowed pairs are dropped, the pair's own padded box
 *     distance is tested, then the pair may be skipped on temporal coherence: GJK certified
 *     distance >= lower earlier in this block (or in the named trajectory's previous query at
 *     this waypoint), and lower minus the parts' motion since is still beyond reach. Otherwise
 *     GJK runs with cutoff = limit + padding, warm-started from the named trajectory's
 *     previous query at this waypoint, else from the previous waypoint of the block, else cold.
 *  4. Per waypoint, once every part pair is known: the qualifying part pairs are sorted by
 *     (distance, keys); in ALL_WITHIN mode without per_part they are then reduced to one entry
 *     per body pair (its nearest part pair and their count), and max_pairs cuts the list.
 * `limit` is max_distance; in CLOSEST mode the smaller of max_distance and the best distance
 * found so far in the waypoint; in FIRST_COLLISION mode the touch tolerance (touching counts
 * as a collision) and EPA does not run.
 *
 * Blocks are independent units of work handed to threads in any order, and nothing carries
 * from one block to the next, which is why results do not depend on the thread count
 * (world.h, Determinism). Skipping on bounds and warm starts change only the work done. */
#define _POSIX_C_SOURCE 200809L

#include "world_query.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ types */

/* Warm-start map of one block: open addressing keyed by (k0, k1); a slot is live when its
 * stamp is the map's current stamp, so clearing is one increment. */
typedef struct wslot {
    uint64_t k0, k1;
    gjk_cache cache;
    double lower;  /* certified lower bound on the pair's (unpadded) distance when computed */
    double travel; /* travel(A) + travel(B) at that time */
    uint32_t stamp;
} wslot;

typedef struct wmap {
    wslot *slots;
    uint32_t mask;
    uint32_t stamp;
    uint32_t used;
} wmap;

/* An obstacle part near a link part over a block of waypoints. */
typedef struct qcand {
    const wobstacle *o;
    int32_t sub;
} qcand;

typedef struct qworker {
    struct qjob *job;
    qrobot *active; /* the job's active robots, placed by this worker (state query) */
    qrobot *place;  /* trajectory: the robot placed at each waypoint of the block */
    /* joint-space trajectory: the FK state of each waypoint of the block (gradients) */
    gjk_kinematics_state *kst[GJK_WORLD_BLOCK_WAYPOINTS];
    int32_t block_start;
    double *grads; /* options.gradients: the waypoint's gradients before they are kept */
    int32_t grad_count, grad_capacity;
    /* Obstacle candidates of each active link part for the current block: one tree query per
     * link part and block (its box swept over the block) instead of one per waypoint. */
    int32_t *part_base;  /* first slot of active robot i */
    int32_t *cand_start; /* slot -> offset into cand (slots + 1 entries) */
    qcand *cand;
    int32_t cand_count, cand_capacity;
    bool use_cand;
    qhit *hits;
    int32_t hit_count, hit_capacity;
    int32_t *body_slots; /* body-pair table of reduce_body_pairs: entry index + 1, 0 = empty */
    int32_t body_capacity;
    wcache_entry *named;
    int32_t named_count, named_capacity;
    int32_t named_cursor; /* where wtraj_find looks first in job->prev's entries */
    wmap map;
    gjk_workspace epa; /* EPA's storage beyond the stack, this worker's (grows on demand) */
    /* the waypoint in progress */
    int32_t w;
    double best;
    bool stop;
    gjk_world_counters counters;
    bool failed;
} qworker;

/* ------------------------------------------------------------------ growable buffers */

static bool grow(void **data, int32_t *capacity, int32_t need, size_t item)
{
    if (need <= *capacity)
        return true;
    int32_t c = *capacity > 0 ? *capacity : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*data, (size_t)c * item);
    if (!p)
        return false;
    *data = p;
    *capacity = c;
    return true;
}

/* ------------------------------------------------------------------ warm-start map */

static uint32_t hash_keys(uint64_t k0, uint64_t k1)
{
    uint64_t h = k0 * 0x9E3779B97F4A7C15ull ^ (k1 + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    return (uint32_t)(h >> 32);
}

static void wmap_clear(wmap *m)
{
    m->used = 0;
    if (++m->stamp == 0) { /* wrapped: really clear */
        if (m->slots)
            memset(m->slots, 0, (size_t)(m->mask + 1) * sizeof *m->slots);
        m->stamp = 1;
    }
}

static const wslot *wmap_get(const wmap *m, uint64_t k0, uint64_t k1)
{
    if (!m->slots)
        return NULL;
    for (uint32_t i = hash_keys(k0, k1) & m->mask;; i = (i + 1) & m->mask) {
        const wslot *s = &m->slots[i];
        if (s->stamp != m->stamp)
            return NULL;
        if (s->k0 == k0 && s->k1 == k1)
            return s;
    }
}

static void wmap_insert(wmap *m, const wslot *v)
{
    for (uint32_t i = hash_keys(v->k0, v->k1) & m->mask;; i = (i + 1) & m->mask) {
        wslot *s = &m->slots[i];
        bool empty = s->stamp != m->stamp;
        if (empty || (s->k0 == v->k0 && s->k1 == v->k1)) {
            *s = *v;
            s->stamp = m->stamp;
            m->used += empty;
            return;
        }
    }
}

/* Stores a pair's state; false on allocation failure (the map is then unchanged). */
static bool wmap_put(wmap *m, const wslot *v)
{
    if (!m->slots || 2 * (m->used + 1) > m->mask + 1) {
        uint32_t size = m->slots ? 2 * (m->mask + 1) : 256;
        wslot *slots = calloc(size, sizeof *slots);
        if (!slots)
            return false;
        wmap old = *m;
        m->slots = slots;
        m->mask = size - 1;
        m->stamp = 1;
        m->used = 0;
        if (old.slots) {
            for (uint32_t i = 0; i <= old.mask; ++i)
                if (old.slots[i].stamp == old.stamp)
                    wmap_insert(m, &old.slots[i]);
            free(old.slots);
        }
    }
    wmap_insert(m, v);
    return true;
}

/* ------------------------------------------------------------------ placement */

/* World box of a part placed at `pose` from its part-frame box. */
static gjk_aabb place_box(const wpart *part, gjk_transform pose)
{
    gjk_mat3 r = gjk_mat3_from_quat(pose.q);
    gjk_vec3 c = gjk_transform_point(pose, part->box_center);
    gjk_vec3 h = part->box_half;
    gjk_vec3 e = gjk_v3(fabs(r.m[0][0]) * h.x + fabs(r.m[0][1]) * h.y + fabs(r.m[0][2]) * h.z,
                        fabs(r.m[1][0]) * h.x + fabs(r.m[1][1]) * h.y + fabs(r.m[1][2]) * h.z,
                        fabs(r.m[2][0]) * h.x + fabs(r.m[2][1]) * h.y + fabs(r.m[2][2]) * h.z);
    gjk_aabb box = {gjk_sub(c, e), gjk_add(c, e)};
    return box;
}

static bool qrobot_alloc(qrobot *q, const wrobot *r)
{
    memset(q, 0, sizeof *q);
    q->r = r;
    q->link_poses = malloc((size_t)r->link_count * sizeof *q->link_poses);
    q->parts = malloc((size_t)(r->part_count > 0 ? r->part_count : 1) * sizeof *q->parts);
    q->part_start = malloc((size_t)(r->link_count + 1) * sizeof *q->part_start);
    q->link_boxes = malloc((size_t)r->link_count * sizeof *q->link_boxes);
    if (!q->link_poses || !q->parts || !q->part_start || !q->link_boxes)
        return false;
    q->part_start[0] = 0;
    for (int32_t l = 0; l < r->link_count; ++l)
        q->part_start[l + 1] = q->part_start[l] + r->links[l].part_count;
    return true;
}

static void qrobot_free(qrobot *q)
{
    free(q->link_poses);
    free(q->parts);
    free(q->part_start);
    free(q->link_boxes);
}

/* Places the robot at the given link poses (valid; normalised here). `prev` (or NULL) is
 * the same robot at the previous waypoint of the block: each part's travel grows by a bound
 * on the motion of its points, |dp| + 2 sin(angle / 2) * radius (rotation about the part's
 * origin by the relative rotation's angle, translation of that origin). */
/* Bound on the motion of any point within `radius` of a part's origin between two poses of
 * the part. */
static double motion_bound(gjk_transform from, gjk_transform to, double radius)
{
    gjk_quat rel = gjk_quat_mul(to.q, gjk_quat_conj(from.q));
    double turn = 2.0 * sqrt(rel.x * rel.x + rel.y * rel.y + rel.z * rel.z);
    return gjk_distance_between(to.p, from.p) + turn * radius;
}

static void qrobot_place(qrobot *q, const gjk_transform *link_poses, const qrobot *prev)
{
    const wrobot *r = q->r;
    for (int32_t l = 0; l < r->link_count; ++l) {
        gjk_transform lp = gjk_transform_make(gjk_quat_normalize(link_poses[l].q), link_poses[l].p);
        q->link_poses[l] = lp;
        const wbody *link = &r->links[l];
        for (int32_t p = 0; p < link->part_count; ++p) {
            qpart *qp = &q->parts[q->part_start[l] + p];
            qp->pose = gjk_transform_mul(lp, link->parts[p].pose);
            qp->box = place_box(&link->parts[p], qp->pose);
            q->link_boxes[l] = p == 0 ? qp->box : gjk_aabb_union(q->link_boxes[l], qp->box);
            qp->travel = 0.0;
            qp->moved = 0.0;
            if (prev) {
                const qpart *pp = &prev->parts[q->part_start[l] + p];
                qp->travel = pp->travel + motion_bound(pp->pose, qp->pose, link->parts[p].radius);
            }
        }
    }
}

static void qrobot_place_current(qrobot *q, gjk_transform *scratch)
{
    for (int32_t l = 0; l < q->r->link_count; ++l)
        scratch[l] = q->r->links[l].pose;
    qrobot_place(q, scratch, NULL);
}

/* ------------------------------------------------------------------ pairs */

/* One side of a pair being checked. */
typedef struct qside {
    const wrobot *r;    /* link side */
    const wobstacle *o; /* obstacle side */
    int32_t link, part;
    const wpart *wp;
    const qpart *placed; /* world pose and box */
    gjk_aabb box;
    gjk_transform frame; /* link or obstacle frame */
    double padding;      /* the body's own padding */
} qside;

static uint64_t key_a(const qside *a)
{
    return ((uint64_t)(uint32_t)a->r->id << 22) | ((uint64_t)(uint32_t)a->link << 12) |
           (uint64_t)(uint32_t)a->part;
}

static uint64_t key_b(const qside *b)
{
    if (b->o)
        return ((uint64_t)GJK_BODY_OBSTACLE << 62) | ((uint64_t)(uint32_t)b->o->id << 23) |
               (uint64_t)(uint32_t)b->part;
    return ((uint64_t)GJK_BODY_LINK << 62) | ((uint64_t)(uint32_t)b->r->id << 23) |
           ((uint64_t)(uint32_t)(b->link + 1) << 12) | (uint64_t)(uint32_t)b->part;
}

/* Rules between two bodies (world_query.h). */
void gjk_wq_rules_for(const gjk_world *world, uint64_t exact_a, uint64_t wild_a, uint64_t exact_b,
                      uint64_t wild_b, bool *allowed, double *padding)
{
    *allowed = false;
    *padding = (double)NAN;
    if (world->rule_count == 0)
        return;
    uint64_t as[2] = {exact_a, wild_a}, bs[2] = {exact_b, wild_b};
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            if (as[i] == 0 || bs[j] == 0 || as[i] == bs[j])
                continue;
            const wrule *r = gjk_world_rule_find(world, as[i], bs[j]);
            if (!r)
                continue;
            *allowed = *allowed || r->allowed;
            if (isnan(*padding) && !isnan(r->padding))
                *padding = r->padding;
        }
    }
}

static double current_limit(const qworker *wk)
{
    const qjob *job = wk->job;
    switch (job->mode) {
    case GJK_WORLD_MODE_CLOSEST:
        return fmin(job->max_distance, wk->best);
    case GJK_WORLD_MODE_FIRST_COLLISION:
        return job->touch_tolerance; /* touching counts */
    default:
        return job->max_distance;
    }
}

/* True when two parts in these boxes are certainly farther than `limit` once padded: the
 * box distance bounds the distance of separated parts from below, and says nothing (the
 * depth may be anything) when the boxes overlap. */
static bool beyond_reach(gjk_aabb a, gjk_aabb b, double pad, double limit)
{
    double d = gjk_aabb_distance(a, b);
    return d > 0.0 && d - pad > limit;
}

/* Skipping a pair on a motion bound needs the bound to clear the limit by this much: it
 * absorbs the rounding of the bound's arithmetic (metres). */
#define BOUND_SLACK 1e-9

/* Status of a pair once padding is subtracted. */
gjk_status gjk_wq_padded_status(const gjk_result *r, double distance, bool depth_known,
                                double touch)
{
    if (r->status == GJK_STATUS_ITERATION_LIMIT || r->status == GJK_STATUS_CAPACITY_LIMIT)
        return r->status;
    if (r->status == GJK_STATUS_OVERLAPPING && !depth_known)
        return GJK_STATUS_OVERLAPPING;
    if (fabs(distance) <= touch)
        return GJK_STATUS_TOUCHING;
    return distance < 0.0 ? GJK_STATUS_OVERLAPPING : GJK_STATUS_SEPARATED;
}

/* Keeps a pair's state for the named trajectory's next query. */
static void record_named(qworker *wk, const wslot *state)
{
    if (!grow((void **)&wk->named, &wk->named_capacity, wk->named_count + 1, sizeof *wk->named)) {
        wk->failed = true;
        return;
    }
    wcache_entry *e = &wk->named[wk->named_count++];
    e->k0 = state->k0;
    e->k1 = state->k1;
    e->cache = state->cache;
    e->lower = state->lower;
}

/* Runs the narrow phase on one part pair (allowed pairs already excluded). pad_rule is the
 * per-pair padding or NaN. */
static void check_pair(qworker *wk, const qside *a, const qside *b, double pad_rule)
{
    qjob *job = wk->job;
    double pad, pad_a, pad_b;
    if (isnan(pad_rule)) {
        pad_a = a->padding;
        pad_b = b->padding;
        pad = pad_a + pad_b;
    } else {
        pad = pad_rule;
        pad_a = pad_b = 0.5 * pad_rule;
    }
    double limit = current_limit(wk);
    if (beyond_reach(a->box, b->box, pad, limit))
        return;

    uint64_t k0 = key_a(a), k1 = key_b(b);
    double travel = a->placed->travel + b->placed->travel;
    const wslot *chain = wmap_get(&wk->map, k0, k1);
    const wcache_entry *named =
        job->prev ? wtraj_find(job->prev, wk->w, k0, k1, &wk->named_cursor) : NULL;
    /* Temporal coherence: GJK certified distance >= lower at an earlier waypoint of this
     * block, or at this waypoint in the previous query of the named trajectory, and since then
     * no point of either part moved farther than the motion bound: if lower minus that motion
     * is still beyond reach, so is the pair, without running GJK. */
    double bound = -HUGE_VAL;
    if (chain)
        bound = chain->lower - (travel - chain->travel);
    if (named && job->prev_bounds)
        bound = fmax(bound, named->lower - a->placed->moved - b->placed->moved);
    if (bound - pad > limit + BOUND_SLACK) {
        ++wk->counters.pairs_bounded;
        const gjk_cache *keep = named ? &named->cache : &chain->cache;
        wslot state;
        state.k0 = k0;
        state.k1 = k1;
        state.cache = *keep;
        state.lower = bound;
        state.travel = travel;
        if (!chain && !wmap_put(&wk->map, &state))
            wk->failed = true;
        if (job->record_named)
            record_named(wk, &state);
        return;
    }
    gjk_cache cache;
    const gjk_cache *warm = named ? &named->cache : NULL;
    if (!warm && chain)
        warm = &chain->cache;
    if (warm) {
        cache = *warm;
        ++wk->counters.warm_starts;
    } else {
        memset(&cache, 0, sizeof cache);
    }

    bool first = job->mode == GJK_WORLD_MODE_FIRST_COLLISION;
    gjk_query q;
    memset(&q, 0, sizeof q);
    q.shape_a = &a->wp->shape;
    q.pose_a = a->placed->pose;
    q.shape_b = &b->wp->shape;
    q.pose_b = b->placed->pose;
    /* A cutoff below 0 could end GJK on overlapping cores before it knows the depth. In
     * FIRST_COLLISION mode the cutoff is the touch tolerance, so that GJK stops as soon as it
     * certifies "no collision" and touching counts as in the other modes. */
    q.cutoff = isfinite(limit) ? fmax(0.0, limit + pad) : HUGE_VAL;
    if (first)
        q.cutoff = pad + limit;
    q.penetration = job->penetration && !first;
    q.workspace = &wk->epa;
    gjk_result r = gjk_query_run(&q, &cache, &job->gjk);
    ++wk->counters.pairs_narrow;
    wk->counters.gjk_iterations += r.iterations;

    wslot state;
    state.k0 = k0;
    state.k1 = k1;
    state.cache = cache;
    /* GJK's lower bound is certified (a supporting plane); EPA's depth is only an estimate,
     * so overlapping answers give no bound. */
    state.lower = -HUGE_VAL;
    if ((r.status == GJK_STATUS_SEPARATED || r.status == GJK_STATUS_BEYOND_CUTOFF) &&
        isfinite(r.lower_bound))
        state.lower = r.lower_bound;
    state.travel = travel;
    if (!wmap_put(&wk->map, &state))
        wk->failed = true;
    if (job->record_named)
        record_named(wk, &state);

    if (r.status == GJK_STATUS_BEYOND_CUTOFF || r.status == GJK_STATUS_INVALID_INPUT)
        return; /* inputs were validated: INVALID_INPUT cannot occur */
    bool depth_known = q.penetration || r.status != GJK_STATUS_OVERLAPPING;
    double distance = (r.status == GJK_STATUS_OVERLAPPING && !depth_known ? 0.0 : r.distance) - pad;
    gjk_status status = gjk_wq_padded_status(&r, distance, depth_known, job->touch_tolerance);
    bool collision =
        distance <= 0.0 || status == GJK_STATUS_OVERLAPPING || status == GJK_STATUS_TOUCHING;
    if (first ? !collision : distance > limit)
        return;

    if (!grow((void **)&wk->hits, &wk->hit_capacity, wk->hit_count + 1, sizeof *wk->hits)) {
        wk->failed = true;
        return;
    }
    qhit *h = &wk->hits[wk->hit_count++];
    h->k0 = k0;
    h->k1 = k1;
    h->ra = a->r;
    h->la = a->link;
    h->pa = a->part;
    h->rb = b->o ? NULL : b->r;
    h->ob = b->o;
    h->lb = b->o ? -1 : b->link;
    h->pb = b->part;
    h->frame_a = a->frame;
    h->frame_b = b->frame;
    h->r = r;
    h->pad = pad;
    h->pad_a = pad_a;
    h->pad_b = pad_b;
    h->distance = distance;
    h->status = status;
    h->collision = collision;
    h->part_pairs = 1;
    h->feature_a = cache.count > 0 ? cache.index_a[0] : GJK_CACHE_NO_INDEX;
    h->feature_b = cache.count > 0 ? cache.index_b[0] : GJK_CACHE_NO_INDEX;
    if (job->mode == GJK_WORLD_MODE_CLOSEST)
        wk->best = fmin(wk->best, distance);
    if (first)
        wk->stop = true;
}

static void side_link(qside *s, const qrobot *q, int32_t link, int32_t part)
{
    s->r = q->r;
    s->o = NULL;
    s->link = link;
    s->part = part;
    s->wp = &q->r->links[link].parts[part];
    s->placed = &q->parts[q->part_start[link] + part];
    s->box = s->placed->box;
    s->frame = q->link_poses[link];
    s->padding = q->r->links[link].padding;
}

/* Tree callback context: one link part against the obstacles. */
typedef struct qtree_ctx {
    qworker *wk;
    const qside *a;
    uint64_t exact_a, wild_a;
    double reach_extra;  /* padding(link) + largest per-pair padding */
    qpart obstacle_part; /* scratch: obstacles are static; pose computed per candidate */
} qtree_ctx;

static double tree_visit(void *context, void *data, int32_t sub, double margin)
{
    (void)margin;
    qtree_ctx *ctx = context;
    qworker *wk = ctx->wk;
    const wobstacle *o = data;
    ++wk->counters.pairs_candidate;
    bool allowed;
    double pad_rule;
    gjk_wq_rules_for(wk->job->world, ctx->exact_a, ctx->wild_a, wkey(GJK_BODY_OBSTACLE, o->id, -1),
                     0, &allowed, &pad_rule);
    if (!allowed) {
        const wpart *part = &o->body.parts[sub];
        ctx->obstacle_part.pose = gjk_transform_mul(o->body.pose, part->pose);
        ctx->obstacle_part.box = o->boxes[sub];
        ctx->obstacle_part.travel = 0.0; /* obstacles do not move during a query */
        ctx->obstacle_part.moved = 0.0;  /* nor between queries while prev_bounds holds */
        qside b;
        b.r = NULL;
        b.o = o;
        b.link = -1;
        b.part = sub;
        b.wp = part;
        b.placed = &ctx->obstacle_part;
        b.box = o->boxes[sub];
        b.frame = o->body.pose;
        b.padding = o->body.padding;
        check_pair(wk, ctx->a, &b, pad_rule);
    }
    if (wk->stop || wk->failed)
        return -1.0;
    return fmax(0.0, ctx->reach_extra + current_limit(wk));
}

static void robot_vs_obstacles(qworker *wk, const qrobot *q, int32_t slot0)
{
    const gjk_world *world = wk->job->world;
    const wrobot *r = q->r;
    for (int32_t l = 0; l < r->link_count && !wk->stop; ++l) {
        const wbody *link = &r->links[l];
        wk->counters.pairs_possible += link->part_count * world->obstacle_part_count;
        if (world->obstacle_count == 0)
            continue;
        for (int32_t p = 0; p < link->part_count && !wk->stop && !wk->failed; ++p) {
            qside a;
            side_link(&a, q, l, p);
            qtree_ctx ctx;
            ctx.wk = wk;
            ctx.a = &a;
            ctx.exact_a = wkey(GJK_BODY_LINK, r->id, l);
            ctx.wild_a = wkey(GJK_BODY_LINK, r->id, -1);
            ctx.reach_extra = link->padding + world->max_pair_padding;
            /* Overlapping boxes are always visited: a negative limit only asks for depth. */
            double reach = fmax(0.0, ctx.reach_extra + current_limit(wk));
            if (!wk->use_cand) {
                gjk_bp_query(&world->tree, a.box, reach, tree_visit, &ctx);
                continue;
            }
            int32_t slot = slot0 + q->part_start[l] + p;
            for (int32_t c = wk->cand_start[slot]; c < wk->cand_start[slot + 1]; ++c) {
                const qcand *k = &wk->cand[c];
                gjk_aabb leaf = gjk_aabb_grow(k->o->boxes[k->sub], k->o->body.padding);
                if (gjk_aabb_distance_sq(a.box, leaf) > reach * reach)
                    continue;
                reach = tree_visit(&ctx, (void *)k->o, k->sub, reach);
                if (reach < 0.0)
                    break;
            }
        }
    }
}

/* All part pairs of link la of robot qa and link lb of robot qb. */
static void link_vs_link(qworker *wk, const qrobot *qa, int32_t la, const qrobot *qb, int32_t lb)
{
    const wbody *A = &qa->r->links[la], *B = &qb->r->links[lb];
    int32_t pairs = A->part_count * B->part_count;
    wk->counters.pairs_possible += pairs;
    if (pairs == 0)
        return;
    bool allowed;
    double pad_rule;
    gjk_wq_rules_for(wk->job->world, wkey(GJK_BODY_LINK, qa->r->id, la),
                     wkey(GJK_BODY_LINK, qa->r->id, -1), wkey(GJK_BODY_LINK, qb->r->id, lb),
                     wkey(GJK_BODY_LINK, qb->r->id, -1), &allowed, &pad_rule);
    if (allowed)
        return;
    /* Every part box lies in its link's box, so link boxes beyond reach put every part pair
     * beyond reach (the part boxes are at least as far apart). */
    double pad = isnan(pad_rule) ? A->padding + B->padding : pad_rule;
    if (beyond_reach(qa->link_boxes[la], qb->link_boxes[lb], pad, current_limit(wk)))
        return;
    const qpart *parts_a = &qa->parts[qa->part_start[la]];
    const qpart *parts_b = &qb->parts[qb->part_start[lb]];
    for (int32_t i = 0; i < A->part_count && !wk->stop; ++i) {
        qside a;
        bool a_set = false;
        for (int32_t j = 0; j < B->part_count && !wk->stop; ++j) {
            if (beyond_reach(parts_a[i].box, parts_b[j].box, pad, current_limit(wk)))
                continue;
            if (!a_set) {
                side_link(&a, qa, la, i);
                a_set = true;
            }
            qside b;
            side_link(&b, qb, lb, j);
            ++wk->counters.pairs_candidate;
            check_pair(wk, &a, &b, pad_rule);
        }
    }
}

static void robot_self(qworker *wk, const qrobot *q)
{
    const wrobot *r = q->r;
    if (!r->self_collision)
        return;
    size_t n = (size_t)r->link_count;
    for (int32_t i = 0; i < r->link_count && !wk->stop; ++i)
        for (int32_t j = i + 1; j < r->link_count && !wk->stop; ++j) {
            if (r->disabled[(size_t)i * n + (size_t)j]) {
                wk->counters.pairs_possible += r->links[i].part_count * r->links[j].part_count;
                continue;
            }
            link_vs_link(wk, q, i, q, j);
        }
}

static void robot_vs_robot(qworker *wk, const qrobot *qa, const qrobot *qb)
{
    for (int32_t i = 0; i < qa->r->link_count && !wk->stop; ++i)
        for (int32_t j = 0; j < qb->r->link_count && !wk->stop; ++j)
            link_vs_link(wk, qa, i, qb, j);
}

/* ------------------------------------------------------------------ one waypoint */

static int hit_cmp(const void *x, const void *y)
{
    const qhit *a = x, *b = y;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    if (a->k0 != b->k0)
        return a->k0 < b->k0 ? -1 : 1;
    if (a->k1 != b->k1)
        return a->k1 < b->k1 ? -1 : 1;
    return 0;
}

/* A part's index takes the low PART_BITS bits of key_a and key_b; without them the keys name
 * the bodies. */
#define PART_BITS 12
_Static_assert(GJK_WORLD_MAX_PARTS <= (1 << PART_BITS), "part indices fit in PART_BITS");

/* ALL_WITHIN without per_part: reduces the waypoint's part-pair hits, sorted by hit_cmp, to
 * one entry per body pair, in place. The first hit of a body pair in that order is its minimum
 * (on a tie, the lowest part of A, then of B: the order of the keys' part bits), and counts
 * the body pair's hits; the entries keep the order. Returns how many there are. */
static int32_t reduce_body_pairs(qworker *wk)
{
    int32_t n = wk->hit_count;
    int32_t size = 16;
    while (size < 2 * n)
        size *= 2;
    if (!grow((void **)&wk->body_slots, &wk->body_capacity, size, sizeof *wk->body_slots)) {
        wk->failed = true;
        return n;
    }
    memset(wk->body_slots, 0, (size_t)size * sizeof *wk->body_slots);
    uint32_t mask = (uint32_t)size - 1;
    int32_t count = 0;
    for (int32_t i = 0; i < n; ++i) {
        const qhit *h = &wk->hits[i];
        uint64_t b0 = h->k0 >> PART_BITS, b1 = h->k1 >> PART_BITS;
        for (uint32_t j = hash_keys(b0, b1) & mask;; j = (j + 1) & mask) {
            int32_t slot = wk->body_slots[j];
            if (slot == 0) { /* the body pair's first (nearest) part pair */
                wk->body_slots[j] = count + 1;
                if (count != i)
                    wk->hits[count] = *h; /* count < i: that hit was consumed */
                ++count;
                break;
            }
            qhit *e = &wk->hits[slot - 1];
            if (e->k0 >> PART_BITS == b0 && e->k1 >> PART_BITS == b1) {
                ++e->part_pairs;
                break;
            }
        }
    }
    return count;
}

/* ------------------------------------------------------------------ gradients */

/* The FK state a robot's link poses came from at the waypoint in progress. */
static const gjk_kinematics_state *kin_state(const qworker *wk, const wrobot *r)
{
    if (wk->job->traj_q && r == wk->job->active[0])
        return wk->kst[wk->w - wk->block_start];
    return r->kstate;
}

static const wpart *hit_part_b(const qhit *h)
{
    return h->ob ? &h->ob->body.parts[h->pb] : &h->rb->links[h->lb].parts[h->pb];
}

/* d(distance)/dq of the waypoint's first `keep` hits (gjk/world.h, Gradients) into the
 * worker's buffer (wk->grads, grad_count values); the hits get their offsets and subgradient
 * flags. */
static void waypoint_gradients(qworker *wk, int32_t keep)
{
    int64_t total = 0;
    for (int32_t i = 0; i < keep; ++i) {
        qhit *h = &wk->hits[i];
        h->grad_a_count = h->ra->kin ? h->ra->dof_count : 0;
        h->grad_b_count = h->rb && h->rb != h->ra && h->rb->kin ? h->rb->dof_count : 0;
        h->grad_a = (int32_t)total;
        total += h->grad_a_count;
        h->grad_b = (int32_t)total;
        total += h->grad_b_count;
        h->subgradient = false;
    }
    wk->grad_count = 0;
    if (total == 0)
        return;
    if (total > INT32_MAX ||
        !grow((void **)&wk->grads, &wk->grad_capacity, (int32_t)total, sizeof *wk->grads)) {
        wk->failed = true;
        return;
    }
    memset(wk->grads, 0, (size_t)total * sizeof *wk->grads);
    wk->grad_count = (int32_t)total;
    for (int32_t i = 0; i < keep; ++i) {
        qhit *h = &wk->hits[i];
        if (h->grad_a_count + h->grad_b_count == 0)
            continue;
        gjk_vec3 n = h->r.normal;
        if (gjk_length_sq(n) == 0.0) { /* overlap without depth: no normal, no gradient */
            h->subgradient = true;
            continue;
        }
        double *ga = wk->grads + h->grad_a, *gb = wk->grads + h->grad_b;
        if (h->ra->kin) {
            const gjk_kinematics_state *st = kin_state(wk, h->ra);
            gjk_kinematics_accumulate_gradient(h->ra->kin, st, h->la, h->r.point_a, n, -1.0, ga);
            if (h->rb == h->ra) /* self pair: both chains in one vector */
                gjk_kinematics_accumulate_gradient(h->ra->kin, st, h->lb, h->r.point_b, n, 1.0, ga);
        }
        if (h->grad_b_count > 0)
            gjk_kinematics_accumulate_gradient(h->rb->kin, kin_state(wk, h->rb), h->lb,
                                               h->r.point_b, n, 1.0, gb);
        const wpart *pa = &h->ra->links[h->la].parts[h->pa], *pb = hit_part_b(h);
        h->subgradient = !gjk_wq_witness_unique(
            &pa->shape, gjk_quat_mul(h->frame_a.q, pa->pose.q), h->feature_a, &pb->shape,
            gjk_quat_mul(h->frame_b.q, pb->pose.q), h->feature_b, n);
    }
}

/* Evaluates waypoint w with the active robots placed at `active` (job->active_count). */
static void eval_waypoint(qworker *wk, int32_t w, const qrobot *active, double best)
{
    qjob *job = wk->job;
    wk->w = w;
    wk->hit_count = 0;
    wk->named_count = 0;
    wk->named_cursor = job->prev && w < job->prev->waypoint_count ? job->prev->offsets[w] : 0;
    wk->best = best;
    wk->stop = false;
    memset(&wk->counters, 0, sizeof wk->counters);

    for (int32_t i = 0; i < job->active_count && !wk->stop; ++i) {
        const qrobot *q = &active[i];
        if (job->pairs & GJK_WORLD_PAIRS_ROBOT_OBSTACLE)
            robot_vs_obstacles(wk, q, wk->part_base[i]);
        if ((job->pairs & GJK_WORLD_PAIRS_SELF) && !wk->stop)
            robot_self(wk, q);
        if (job->pairs & GJK_WORLD_PAIRS_ROBOT_ROBOT) {
            for (int32_t j = i + 1; j < job->active_count && !wk->stop; ++j)
                robot_vs_robot(wk, q, &active[j]);
            for (int32_t j = 0; j < job->passive_count && !wk->stop; ++j)
                robot_vs_robot(wk, q, &job->passive[j]);
        }
    }
    if (wk->failed)
        return;

    qwp *out = &job->wp[w];
    out->evaluated = true;
    out->counters = wk->counters;
    if (wk->hit_count > 1)
        qsort(wk->hits, (size_t)wk->hit_count, sizeof *wk->hits, hit_cmp);
    for (int32_t i = 0; i < wk->hit_count; ++i)
        out->collision = out->collision || wk->hits[i].collision;
    out->min_distance = wk->hit_count > 0 ? wk->hits[0].distance : HUGE_VAL;
    int32_t keep = wk->hit_count;
    if (job->body_pairs && keep > 1) {
        keep = reduce_body_pairs(wk);
        if (wk->failed)
            return;
    }
    if (job->mode == GJK_WORLD_MODE_CLOSEST && keep > 1)
        keep = 1;
    if (keep > job->max_pairs) {
        keep = job->max_pairs;
        out->truncated = true;
    }
    wk->grad_count = 0;
    if (job->gradients && keep > 0) {
        waypoint_gradients(wk, keep);
        if (wk->failed)
            return;
    }
    if (keep > 0) { /* the hits and their gradients in one allocation (qhit is 8-aligned) */
        size_t hit_bytes = (size_t)keep * sizeof *out->hits;
        out->hits = malloc(hit_bytes + (size_t)wk->grad_count * sizeof(double));
        if (!out->hits) {
            wk->failed = true;
            return;
        }
        memcpy(out->hits, wk->hits, hit_bytes);
        out->count = keep;
        if (wk->grad_count > 0) {
            out->grads = (double *)(void *)((unsigned char *)out->hits + hit_bytes);
            memcpy(out->grads, wk->grads, (size_t)wk->grad_count * sizeof(double));
            out->grad_count = wk->grad_count;
        }
    }
    if (job->record_named && wk->named_count > 0) { /* in check order (wtraj_find) */
        out->named = malloc((size_t)wk->named_count * sizeof *out->named);
        if (!out->named) {
            wk->failed = true;
            return;
        }
        memcpy(out->named, wk->named, (size_t)wk->named_count * sizeof *out->named);
        out->named_count = wk->named_count;
    }
}

/* ------------------------------------------------------------------ workers */

static void atomic_min_int(atomic_int *a, int v)
{
    int cur = atomic_load(a);
    while (v < cur && !atomic_compare_exchange_weak(a, &cur, v)) {
    }
}

/* Motion bounds of the trajectory robot's parts since waypoint w of the previous query. */
static void set_moved(qrobot *q, const wtraj *prev, int32_t w)
{
    const wrobot *r = q->r;
    for (int32_t l = 0; l < r->link_count; ++l) {
        const wbody *link = &r->links[l];
        gjk_transform before = {{1, 0, 0, 0}, {0, 0, 0}};
        bool known = w < prev->waypoint_count;
        if (known) {
            before = prev->link_poses[(size_t)w * (size_t)prev->link_count + (size_t)l];
            before.q = gjk_quat_normalize(before.q);
        }
        for (int32_t p = 0; p < link->part_count; ++p) {
            qpart *qp = &q->parts[q->part_start[l] + p];
            qp->moved = HUGE_VAL;
            if (known)
                qp->moved = motion_bound(gjk_transform_mul(before, link->parts[p].pose), qp->pose,
                                         link->parts[p].radius);
        }
    }
}

static double collect_candidate(void *context, void *data, int32_t sub, double margin)
{
    qworker *wk = context;
    if (!grow((void **)&wk->cand, &wk->cand_capacity, wk->cand_count + 1, sizeof *wk->cand)) {
        wk->failed = true;
        return -1.0;
    }
    wk->cand[wk->cand_count].o = data;
    wk->cand[wk->cand_count].sub = sub;
    ++wk->cand_count;
    return margin;
}

/* Gathers the obstacle candidates of every active link part over `n` placements: place[k *
 * active_count + i] is active robot i at the block's k-th waypoint. */
static void gather_candidates(qworker *wk, const qrobot *place, int32_t n)
{
    const qjob *job = wk->job;
    const gjk_world *world = job->world;
    double limit =
        job->mode == GJK_WORLD_MODE_FIRST_COLLISION ? job->touch_tolerance : job->max_distance;
    wk->cand_count = 0;
    for (int32_t i = 0; i < job->active_count; ++i) {
        const wrobot *r = place[i].r;
        for (int32_t l = 0; l < r->link_count; ++l) {
            double reach = fmax(0.0, r->links[l].padding + world->max_pair_padding + limit);
            for (int32_t p = 0; p < r->links[l].part_count; ++p) {
                int32_t j = place[i].part_start[l] + p;
                int32_t slot = wk->part_base[i] + j;
                wk->cand_start[slot] = wk->cand_count;
                gjk_aabb box = place[i].parts[j].box;
                for (int32_t k = 1; k < n; ++k)
                    box = gjk_aabb_union(box, place[k * job->active_count + i].parts[j].box);
                if (world->obstacle_count > 0)
                    gjk_bp_query(&world->tree, box, reach, collect_candidate, wk);
                wk->cand_start[slot + 1] = wk->cand_count;
            }
        }
    }
}

/* CLOSEST mode: an upper bound on the closest distance at waypoint w of a trajectory, from
 * the previous waypoint of the block: the pair that was closest there (distance d) is now at
 * most d + the motion of its two parts, and no part moved farther than `step`. Starting from
 * it, GJK's cutoff and the tree's reach prune from the first pair on. HUGE_VAL when unknown. */
static double closest_seed(const qworker *wk, const qrobot *place, int32_t start, int32_t w)
{
    const qjob *job = wk->job;
    if (job->mode != GJK_WORLD_MODE_CLOSEST || !job->traj_poses || w == start ||
        !job->wp[w - 1].evaluated || !isfinite(job->wp[w - 1].min_distance))
        return HUGE_VAL;
    const qrobot *now = &place[w - start], *before = &place[w - start - 1];
    double step = 0.0;
    for (int32_t j = 0; j < now->r->part_count; ++j)
        step = fmax(step, now->parts[j].travel - before->parts[j].travel);
    return job->wp[w - 1].min_distance + 2.0 * step + BOUND_SLACK;
}

static void run_blocks(qworker *wk)
{
    qjob *job = wk->job;
    bool first = job->mode == GJK_WORLD_MODE_FIRST_COLLISION;
    for (;;) {
        int b = atomic_fetch_add(&job->next_block, 1);
        if (b >= job->block_count || atomic_load(&job->failed))
            return;
        if (job->cancel && job->cancel(job->cancel_user, atomic_load(&job->reported))) {
            atomic_store(&job->failed, true);
            return;
        }
        int32_t start = b * GJK_WORLD_BLOCK_WAYPOINTS;
        int32_t end = start + GJK_WORLD_BLOCK_WAYPOINTS;
        if (end > job->waypoint_count)
            end = job->waypoint_count;
        wmap_clear(&wk->map);
        const qrobot *place = wk->active;
        wk->block_start = start;
        if (job->traj_q) { /* forward kinematics of the block's waypoints, in place */
            const wrobot *r = job->active[0];
            for (int32_t w = start; w < end; ++w) {
                gjk_kinematics_state *st = wk->kst[w - start];
                if (gjk_kinematics_forward(r->kin, job->traj_q + (size_t)w * (size_t)r->dof_count,
                                           r->dof_count, job->base, st,
                                           NULL) != GJK_KINEMATICS_OK) {
                    atomic_store(&job->failed, true); /* validated: cannot happen */
                    return;
                }
                memcpy(job->fk_poses + (size_t)w * (size_t)r->link_count,
                       gjk_kinematics_link_poses(st),
                       (size_t)r->link_count * sizeof(gjk_transform));
            }
        }
        if (job->traj_poses) {
            int32_t links = job->active[0]->link_count;
            for (int32_t w = start; w < end; ++w)
                qrobot_place(&wk->place[w - start], job->traj_poses + (size_t)w * (size_t)links,
                             w > start ? &wk->place[w - start - 1] : NULL);
            if (job->prev_bounds)
                for (int32_t w = start; w < end; ++w)
                    set_moved(&wk->place[w - start], job->prev, w);
            place = wk->place;
        }
        if (wk->use_cand)
            gather_candidates(wk, place, end - start);
        for (int32_t w = start; w < end; ++w) {
            if (first && w > atomic_load(&job->first_collision))
                break; /* masked at assembly anyway */
            eval_waypoint(wk, w, job->traj_poses ? &place[w - start] : place,
                          closest_seed(wk, place, start, w));
            if (wk->failed) {
                atomic_store(&job->failed, true);
                return;
            }
            if (first && job->wp[w].collision) {
                atomic_min_int(&job->first_collision, w);
                break;
            }
        }
        if (job->cancel) {
            int64_t n = 0;
            for (int32_t w = start; w < end; ++w)
                n += job->wp[w].count;
            atomic_fetch_add(&job->reported, n);
        }
    }
}

static bool worker_init(qworker *wk, qjob *job)
{
    memset(wk, 0, sizeof *wk);
    wk->job = job;
    size_t robots = (size_t)(job->active_count > 0 ? job->active_count : 1); /* no malloc(0) */
    wk->active = calloc(robots, sizeof *wk->active);
    if (!wk->active)
        return false;
    int32_t slots = 0;
    wk->part_base = malloc(robots * sizeof *wk->part_base);
    if (!wk->part_base)
        return false;
    for (int32_t i = 0; i < job->active_count; ++i) {
        if (!qrobot_alloc(&wk->active[i], job->active[i]))
            return false;
        if (!job->traj_poses)
            qrobot_place_current(&wk->active[i], wk->active[i].link_poses);
        wk->part_base[i] = slots;
        slots += job->active[i]->part_count;
    }
    wk->cand_start = malloc((size_t)(slots + 1) * sizeof *wk->cand_start);
    if (!wk->cand_start)
        return false;
    /* A fixed reach allows the per-block candidates; CLOSEST without max_distance keeps the
     * per-waypoint branch and bound. */
    wk->use_cand = job->mode != GJK_WORLD_MODE_CLOSEST || isfinite(job->max_distance);
    if (job->traj_poses) {
        wk->place = calloc(GJK_WORLD_BLOCK_WAYPOINTS, sizeof *wk->place);
        if (!wk->place)
            return false;
        for (int32_t k = 0; k < GJK_WORLD_BLOCK_WAYPOINTS; ++k)
            if (!qrobot_alloc(&wk->place[k], job->active[0]))
                return false;
    }
    if (job->traj_q)
        for (int32_t k = 0; k < GJK_WORLD_BLOCK_WAYPOINTS; ++k)
            if (gjk_kinematics_state_create(job->active[0]->kin, &wk->kst[k]) != GJK_KINEMATICS_OK)
                return false;
    return true;
}

static void worker_free(qworker *wk)
{
    if (wk->active)
        for (int32_t i = 0; i < wk->job->active_count; ++i)
            qrobot_free(&wk->active[i]);
    free(wk->active);
    if (wk->place)
        for (int32_t k = 0; k < GJK_WORLD_BLOCK_WAYPOINTS; ++k)
            qrobot_free(&wk->place[k]);
    free(wk->place);
    for (int32_t k = 0; k < GJK_WORLD_BLOCK_WAYPOINTS; ++k)
        gjk_kinematics_state_destroy(&wk->kst[k]);
    free(wk->part_base);
    free(wk->cand_start);
    free(wk->cand);
    free(wk->hits);
    free(wk->body_slots);
    free(wk->grads);
    free(wk->named);
    free(wk->map.slots);
    gjk_workspace_release(&wk->epa);
}

static void *worker_main(void *arg)
{
    qworker *wk = arg;
    run_blocks(wk);
    return NULL;
}

/* ------------------------------------------------------------------ entry points */

gjk_world_query_options gjk_world_default_query_options(void)
{
    gjk_world_query_options o;
    memset(&o, 0, sizeof o); /* every field's zero is its default (world.h, Defaults) */
    return o;
}

/* Resolves the options; the zero of every field is its default (world.h, Defaults). */
static gjk_status job_options(qjob *job, const gjk_world_query_options *options)
{
    gjk_world_query_options o = options ? *options : gjk_world_default_query_options();
    if ((o.has_max_distance &&
         (isnan(o.max_distance) || (isinf(o.max_distance) && o.max_distance < 0.0))) ||
        (unsigned)o.mode > GJK_WORLD_MODE_FIRST_COLLISION ||
        (o.pairs & ~GJK_WORLD_PAIRS_ALL) != 0 || o.max_pairs < 0 ||
        o.max_pairs > GJK_WORLD_MAX_PAIRS || o.threads < 0 || o.threads > GJK_WORLD_MAX_THREADS ||
        !(o.ccd_time_tolerance >= 0.0 && o.ccd_time_tolerance <= 0.5) || o.ccd_max_evaluations < 0)
        return GJK_STATUS_INVALID_INPUT;
    job->mode = o.mode == GJK_WORLD_MODE_UNSPECIFIED ? GJK_WORLD_MODE_CLOSEST : o.mode;
    job->pairs = o.pairs ? o.pairs : GJK_WORLD_PAIRS_ALL;
    job->max_distance = o.has_max_distance ? o.max_distance : HUGE_VAL;
    job->max_pairs = o.max_pairs ? o.max_pairs : GJK_WORLD_DEFAULT_MAX_PAIRS;
    job->penetration = !o.no_penetration_depth;
    job->body_pairs = job->mode == GJK_WORLD_MODE_ALL_WITHIN && !o.per_part;
    job->gjk = o.gjk;
    job->gjk.trace = NULL; /* a step trace is one pair query's (gjk/trace.h), never a world's */
    job->gradients = o.gradients;
    job->cancel = o.cancel;
    job->cancel_user = o.cancel_user;
    job->continuous = o.continuous;
    job->ccd.time_tolerance = o.ccd_time_tolerance;
    job->ccd.max_evaluations = o.ccd_max_evaluations;
    job->ccd.gjk = o.gjk;
    job->ccd.certify_only = job->mode == GJK_WORLD_MODE_FIRST_COLLISION; /* validity only */
    gjk_options d = gjk_default_options();
    job->touch_tolerance = o.gjk.touch_tolerance > 0.0 ? o.gjk.touch_tolerance : d.touch_tolerance;
    return GJK_WORLD_OK;
}

static void job_free(qjob *job)
{
    if (job->wp)
        for (int32_t w = 0; w < job->waypoint_count; ++w) {
            free(job->wp[w].hits);
            free(job->wp[w].named);
        }
    free(job->wp);
    free(job->seg);
    free(job->fk_poses);
    for (int32_t i = 0; i < job->passive_count; ++i)
        qrobot_free(&job->passive[i]);
    free(job->passive);
    free((void *)job->active);
}

/* Sets up active and passive robots: `robot` 0 = every robot active. */
static gjk_status job_robots(qjob *job, int32_t robot)
{
    const gjk_world *world = job->world;
    job->active =
        calloc((size_t)(world->robot_count > 0 ? world->robot_count : 1), sizeof *job->active);
    if (!job->active)
        return GJK_STATUS_OUT_OF_MEMORY;
    int32_t passive = 0;
    for (int32_t i = 0; i < world->robot_count; ++i) {
        if (robot == 0 || world->robots[i]->id == robot)
            job->active[job->active_count++] = world->robots[i];
        else
            ++passive;
    }
    if (passive > 0 && (job->pairs & GJK_WORLD_PAIRS_ROBOT_ROBOT)) {
        job->passive = calloc((size_t)passive, sizeof *job->passive);
        if (!job->passive)
            return GJK_STATUS_OUT_OF_MEMORY;
        for (int32_t i = 0; i < world->robot_count; ++i) {
            const wrobot *r = world->robots[i];
            if (robot == 0 || r->id == robot)
                continue;
            qrobot *q = &job->passive[job->passive_count++];
            if (!qrobot_alloc(q, r))
                return GJK_STATUS_OUT_OF_MEMORY;
            qrobot_place_current(q, q->link_poses);
        }
    }
    return GJK_WORLD_OK;
}

/* Runs the job's waypoints on `threads` threads (the caller's included). */
static gjk_status job_run(qjob *job, int32_t threads)
{
    job->wp = calloc((size_t)job->waypoint_count, sizeof *job->wp);
    if (!job->wp)
        return GJK_STATUS_OUT_OF_MEMORY;
    job->block_count =
        (job->waypoint_count + GJK_WORLD_BLOCK_WAYPOINTS - 1) / GJK_WORLD_BLOCK_WAYPOINTS;
    atomic_init(&job->next_block, 0);
    atomic_init(&job->first_collision, INT32_MAX);
    atomic_init(&job->failed, false);
    atomic_init(&job->reported, 0);
    if (threads < 1)
        threads = 1;
    if (threads > job->block_count)
        threads = job->block_count;

    qworker workers[GJK_WORLD_MAX_THREADS];
    pthread_t ids[GJK_WORLD_MAX_THREADS];
    bool started[GJK_WORLD_MAX_THREADS];
    int32_t ready = 0;
    bool ok = true;
    for (int32_t t = 0; t < threads; ++t) {
        ++ready;
        if (!worker_init(&workers[t], job)) {
            ok = false;
            break;
        }
    }
    for (int32_t t = 1; t < threads && ok; ++t)
        started[t] = pthread_create(&ids[t], NULL, worker_main, &workers[t]) == 0;
    if (ok)
        run_blocks(&workers[0]); /* a thread that failed to start leaves more for the others */
    for (int32_t t = 1; t < threads && ok; ++t)
        if (started[t])
            pthread_join(ids[t], NULL);
    for (int32_t t = 0; t < ready; ++t)
        worker_free(&workers[t]);
    if (!ok || atomic_load(&job->failed))
        return GJK_STATUS_OUT_OF_MEMORY;
    return GJK_WORLD_OK;
}

gjk_status gjk_world_query_state(const gjk_world *world, const gjk_world_query_options *options,
                                 gjk_world_result **out)
{
    if (out)
        *out = NULL;
    if (!world || !out)
        return GJK_STATUS_INVALID_INPUT;
    qjob job;
    memset(&job, 0, sizeof job);
    job.world = world;
    gjk_status s = job_options(&job, options);
    if (s != GJK_WORLD_OK)
        return s;
    int32_t robot = options ? options->robot : 0;
    if (robot != 0 && !gjk_world_robot_by_id(world, robot))
        return GJK_STATUS_NOT_FOUND;
    job.waypoint_count = 1;
    s = job_robots(&job, robot);
    if (s == GJK_WORLD_OK)
        s = job_run(&job, 1);
    if (s == GJK_WORLD_OK)
        s = gjk_wq_assemble(&job, out, false);
    job_free(&job);
    return s;
}

/* A joint-space trajectory of robot r: counts, and every value finite and within its DOF's
 * limits (the test gjk_kinematics_forward applies, so that the per-block FK cannot fail). */
static gjk_status joint_trajectory_check(const wrobot *r, const gjk_world_trajectory *t)
{
    if (t->link_poses || t->dof_count != r->dof_count || (r->dof_count > 0 && !t->joint_positions))
        return GJK_STATUS_INVALID_INPUT;
    for (int32_t w = 0; w < t->waypoint_count; ++w) {
        const double *q = t->joint_positions + (size_t)w * (size_t)r->dof_count;
        for (int32_t d = 0; d < r->dof_count; ++d)
            if (!(q[d] >= r->dof_lower[d] && q[d] <= r->dof_upper[d])) { /* NaN fails too */
                if (t->bad_waypoint)
                    *t->bad_waypoint = w;
                if (t->bad_joint)
                    *t->bad_joint = gjk_kinematics_dof_joint(r->kin, d);
                return GJK_STATUS_INVALID_INPUT;
            }
    }
    return GJK_WORLD_OK;
}

gjk_status gjk_world_query_trajectory(const gjk_world *world,
                                      const gjk_world_trajectory *trajectory,
                                      const gjk_world_query_options *options,
                                      gjk_world_result **out)
{
    if (out)
        *out = NULL;
    if (!world || !trajectory || !out)
        return GJK_STATUS_INVALID_INPUT;
    qjob job;
    memset(&job, 0, sizeof job);
    job.world = world;
    gjk_status s = job_options(&job, options);
    if (s != GJK_WORLD_OK)
        return s;
    const gjk_world_trajectory *t = trajectory;
    const wrobot *r = gjk_world_robot_by_id(world, t->robot);
    if (!r)
        return GJK_STATUS_NOT_FOUND;
    if (t->bad_waypoint)
        *t->bad_waypoint = -1;
    if (t->bad_joint)
        *t->bad_joint = -1;
    if (t->waypoint_count < 1 || (int64_t)t->waypoint_count * r->link_count > INT32_MAX ||
        (t->name && strnlen(t->name, GJK_WORLD_NAME_MAX + 1) > GJK_WORLD_NAME_MAX))
        return GJK_STATUS_INVALID_INPUT;
    if (r->kin) {
        s = joint_trajectory_check(r, t);
        if (s != GJK_WORLD_OK)
            return s;
        job.fk_poses =
            malloc((size_t)t->waypoint_count * (size_t)r->link_count * sizeof *job.fk_poses);
        if (!job.fk_poses)
            return GJK_STATUS_OUT_OF_MEMORY;
        job.traj_q = t->joint_positions;
        job.traj_poses = job.fk_poses;
        job.base = r->base;
    } else {
        if (t->link_count != r->link_count || !t->link_poses || t->joint_positions)
            return GJK_STATUS_INVALID_INPUT;
        int64_t poses = (int64_t)t->waypoint_count * t->link_count;
        for (int64_t i = 0; i < poses; ++i)
            if (!gjk_transform_is_valid(t->link_poses[i]))
                return GJK_STATUS_INVALID_INPUT;
        job.traj_poses = t->link_poses;
    }

    job.waypoint_count = t->waypoint_count;
    s = job_robots(&job, t->robot);
    if (s != GJK_WORLD_OK) {
        job_free(&job);
        return s;
    }
    bool named = t->name && t->name[0] != '\0' && world->def.trajectory_cache_bytes > 0;
    wtraj *prev = named ? wcache_acquire(world->cache, t->name, t->robot) : NULL;
    job.prev = prev;
    job.prev_bounds = prev && prev->revision == world->revision &&
                      prev->pose_revision == world->pose_revision &&
                      prev->link_count == r->link_count;
    job.record_named = named;
    int32_t threads = options ? options->threads : 1;
    s = job_run(&job, threads);
    if (s == GJK_WORLD_OK && job.continuous && job.waypoint_count > 1)
        s = gjk_wq_continuous(&job, threads);
    if (s == GJK_WORLD_OK)
        s = gjk_wq_assemble(&job, out, prev != NULL);
    wcache_release(world->cache, prev);
    if (s == GJK_WORLD_OK && named) {
        wtraj *fresh = gjk_wq_build_named(&job, t->name, t->robot);
        if (fresh)
            wcache_store(world->cache, fresh);
    }
    job_free(&job);
    return s;
}
