/* world_continuous.c — the continuous segments of a trajectory query (gjk/world.h, Continuous
 * segments), run after the waypoints.
 *
 * Per segment (waypoints i, i + 1):
 *  1. The moving robot at both ends: link poses (forward kinematics of the two joint vectors,
 *     or the given link poses), and for every part its motion bound V over the segment
 *     (gjk_kinematics_motion_bound or gjk_pose_motion_bound about the part's origin with its
 *     bounding radius) and its swept box: the union of its boxes at the two ends grown by
 *     V / 2, which contains the part at every t (a point is within V t of where it was at 0
 *     and within V (1 - t) of where it is at 1).
 *  2. Branch and bound over the part pairs, the least certified bound found so far (`best`,
 *     max_distance at first when there is one, 0 once a contact or undecided pair is found)
 *     as the reach: obstacles from the broad-phase tree queried with the swept box and that
 *     reach (shrinking as bounds come in), then self pairs and pairs with other robots by
 *     their links' swept boxes, then their parts'. A pair whose padded swept-box distance
 *     exceeds the reach is settled without a distance query: its clearance exceeds the bound
 *     the segment reports, and it cannot touch.
 *  3. The rest go to the pair search (continuous.c) with the reach as its floor.
 *  4. The verdict (earliest contact, else undecided, else clear) and one query of the
 *     reported pair at its time for witnesses and normal (EPA on overlap).
 * In FIRST_COLLISION mode segments after the first contact found so far are skipped, and
 * those after the first contact are dropped at the end.
 * Segments are independent: threads take them in any order, and each one's answer depends
 * only on the segment, so results do not depend on the thread count. */
#define _POSIX_C_SOURCE 200809L

#include "world_query.h"

#include "continuous_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* Pruning on a swept bound needs it to clear the reach by this much (metres): it absorbs the
 * rounding of boxes and bounds. */
#define CSLACK 1e-9

/* A moving part over the segment. */
typedef struct cpart {
    gjk_aabb swept;
    double speed; /* motion bound V */
} cpart;

/* One side of a pair: a moving link part, a link part of another robot (fixed) or an
 * obstacle part (fixed). */
typedef struct cside {
    const wrobot *r;
    const wobstacle *o;
    int32_t link, part;
    bool moving;
    gjk_transform pose;  /* fixed sides: the part's world pose */
    gjk_transform frame; /* fixed sides: the link or obstacle frame */
    double padding;      /* the body's own padding */
    gjk_aabb box;        /* fixed: world box; moving: swept box */
} cside;

/* A pair kept for the report. */
typedef struct crep {
    bool set;
    cside a, b;
    double t;
    double pad, pad_a, pad_b;
} crep;

typedef struct cworker {
    qjob *job;
    const wrobot *r;
    gjk_kinematics_state *st;
    double *q;
    gjk_transform *p0, *p1; /* link poses at the two ends */
    cpart *parts;           /* r->part_count, link-major */
    int32_t *part_start;    /* link_count + 1 */
    gjk_aabb *link_swept;   /* union of each link's swept part boxes */
    const double *q0, *q1;
    bool cached;
    double cached_t;
    /* the segment in progress */
    qseg *seg;
    double best;
    double min_bound;
    crep contact, undecided, closest;
    bool failed;
} cworker;

/* ------------------------------------------------------------------ placement */

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

/* The moving robot's link pose at t of the segment. */
static gjk_transform link_pose_at(cworker *wk, int32_t link, double t)
{
    if (t == 0.0)
        return wk->p0[link];
    if (t == 1.0)
        return wk->p1[link];
    const wrobot *r = wk->r;
    if (!r->kin)
        return gjk_pose_interpolate(wk->p0[link], wk->p1[link], t);
    if (!wk->cached || wk->cached_t != t) {
        for (int32_t d = 0; d < r->dof_count; ++d) {
            double a = wk->q0[d], b = wk->q1[d];
            double v = a + t * (b - a);
            /* within the two ends (and so within the limits) despite rounding */
            wk->q[d] = fmin(fmax(v, fmin(a, b)), fmax(a, b));
        }
        if (gjk_kinematics_forward(r->kin, wk->q, r->dof_count, r->base, wk->st, NULL) !=
            GJK_KINEMATICS_OK)
            wk->failed = true; /* validated: cannot happen */
        wk->cached = true;
        wk->cached_t = t;
    }
    return gjk_kinematics_link_poses(wk->st)[link];
}

static gjk_transform side_pose(cworker *wk, const cside *s, double t)
{
    if (!s->moving)
        return s->pose;
    return gjk_transform_mul(link_pose_at(wk, s->link, t),
                             s->r->links[s->link].parts[s->part].pose);
}

static gjk_transform side_frame(cworker *wk, const cside *s, double t)
{
    return s->moving ? link_pose_at(wk, s->link, t) : s->frame;
}

static const wpart *side_part(const cside *s)
{
    return s->o ? &s->o->body.parts[s->part] : &s->r->links[s->link].parts[s->part];
}

/* Places the moving robot at the segment's two ends: link poses, part bounds, swept boxes. */
static void place_segment(cworker *wk, int32_t i)
{
    const qjob *job = wk->job;
    const wrobot *r = wk->r;
    size_t links = (size_t)r->link_count;
    if (r->kin) {
        wk->q0 = job->traj_q + (size_t)i * (size_t)r->dof_count;
        wk->q1 = wk->q0 + r->dof_count;
        for (int e = 0; e < 2; ++e) {
            if (gjk_kinematics_forward(r->kin, e == 0 ? wk->q0 : wk->q1, r->dof_count, r->base,
                                       wk->st, NULL) != GJK_KINEMATICS_OK)
                wk->failed = true;
            memcpy(e == 0 ? wk->p0 : wk->p1, gjk_kinematics_link_poses(wk->st),
                   links * sizeof *wk->p0);
        }
    } else {
        for (size_t l = 0; l < links; ++l) {
            gjk_transform a = job->traj_poses[(size_t)i * links + l];
            gjk_transform b = job->traj_poses[(size_t)(i + 1) * links + l];
            wk->p0[l] = gjk_transform_make(gjk_quat_normalize(a.q), a.p);
            wk->p1[l] = gjk_transform_make(gjk_quat_normalize(b.q), b.p);
        }
    }
    wk->cached = false;
    for (int32_t l = 0; l < r->link_count; ++l) {
        const wbody *link = &r->links[l];
        for (int32_t p = 0; p < link->part_count; ++p) {
            const wpart *part = &link->parts[p];
            cpart *c = &wk->parts[wk->part_start[l] + p];
            double v = 0.0;
            if (r->kin) {
                if (gjk_kinematics_motion_bound(r->kin, wk->p0, wk->p1, wk->q0, wk->q1, l,
                                                part->pose.p, part->radius,
                                                &v) != GJK_KINEMATICS_OK)
                    wk->failed = true;
            } else {
                v = gjk_pose_motion_bound(wk->p0[l], wk->p1[l], part->pose.p, part->radius) *
                    (1.0 + 1e-12);
            }
            c->speed = v;
            gjk_aabb b0 = place_box(part, gjk_transform_mul(wk->p0[l], part->pose));
            gjk_aabb b1 = place_box(part, gjk_transform_mul(wk->p1[l], part->pose));
            c->swept = gjk_aabb_grow(gjk_aabb_union(b0, b1), 0.5 * v + CSLACK);
            wk->link_swept[l] = p == 0 ? c->swept : gjk_aabb_union(wk->link_swept[l], c->swept);
        }
    }
}

/* ------------------------------------------------------------------ pairs */

typedef struct cpair_user {
    cworker *wk;
    const cside *a, *b;
} cpair_user;

static void cpair_poses(void *user, double t, gjk_transform *pa, gjk_transform *pb)
{
    cpair_user *u = user;
    *pa = side_pose(u->wk, u->a, t);
    *pb = side_pose(u->wk, u->b, t);
}

static void keep(crep *rep, const cside *a, const cside *b, double t, double pad, double pad_a,
                 double pad_b)
{
    rep->set = true;
    rep->a = *a;
    rep->b = *b;
    rep->t = t;
    rep->pad = pad;
    rep->pad_a = pad_a;
    rep->pad_b = pad_b;
}

/* The reach of the branch and bound: pairs whose padded swept-box distance exceeds it are
 * settled. */
static double reach(const cworker *wk)
{
    return fmax(wk->best, 0.0);
}

/* Searches one part pair (allowed pairs already excluded); pad_rule is the per-pair padding
 * or NaN. */
static void search_pair(cworker *wk, const cside *a, const cside *b, double pad_rule)
{
    double pad, pad_a, pad_b;
    if (isnan(pad_rule)) {
        pad_a = a->padding;
        pad_b = b->padding;
        pad = pad_a + pad_b;
    } else {
        pad = pad_rule;
        pad_a = pad_b = 0.5 * pad_rule;
    }
    if (gjk_aabb_distance(a->box, b->box) - pad > reach(wk) + CSLACK)
        return;
    cpair_user u = {wk, a, b};
    gjk_ccd_pair pair;
    memset(&pair, 0, sizeof pair);
    pair.shape_a = &side_part(a)->shape;
    pair.shape_b = &side_part(b)->shape;
    pair.poses = cpair_poses;
    pair.user = &u;
    pair.speed = (a->moving ? wk->parts[wk->part_start[a->link] + a->part].speed : 0.0) +
                 (b->moving ? wk->parts[wk->part_start[b->link] + b->part].speed : 0.0);
    pair.padding = pad;
    pair.floor = wk->best > 0.0 ? wk->best : DBL_MIN;
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_ccd_result r = gjk_ccd_run(&pair, &cache, &wk->job->ccd, false);
    qseg *seg = wk->seg;
    ++seg->pairs_checked;
    seg->evaluations += r.evaluations;
    if (r.status != GJK_STATUS_SEPARATED) {
        wk->failed = true; /* the world validated every shape and pose */
        return;
    }
    switch (r.verdict) {
    case GJK_CCD_CONTACT:
        if (!wk->contact.set || r.t < wk->contact.t)
            keep(&wk->contact, a, b, r.t, pad, pad_a, pad_b);
        wk->best = fmin(wk->best, 0.0);
        break;
    case GJK_CCD_UNDECIDED:
        ++seg->pairs_undecided;
        if (!wk->undecided.set || r.t < wk->undecided.t)
            keep(&wk->undecided, a, b, r.t, pad, pad_a, pad_b);
        wk->best = fmin(wk->best, 0.0);
        break;
    default:
        if (r.clearance_lower_bound < wk->min_bound) {
            wk->min_bound = r.clearance_lower_bound;
            keep(&wk->closest, a, b, r.t_closest, pad, pad_a, pad_b);
        }
        wk->best = fmin(wk->best, r.clearance_lower_bound);
        break;
    }
}

static void side_moving(cside *s, const cworker *wk, int32_t link, int32_t part)
{
    memset(s, 0, sizeof *s);
    s->r = wk->r;
    s->link = link;
    s->part = part;
    s->moving = true;
    s->padding = wk->r->links[link].padding;
    s->box = wk->parts[wk->part_start[link] + part].swept;
}

typedef struct ctree_ctx {
    cworker *wk;
    const cside *a;
    uint64_t exact_a, wild_a;
    double reach_extra; /* padding(link) + largest per-pair padding */
} ctree_ctx;

static double ctree_visit(void *context, void *data, int32_t sub, double margin)
{
    (void)margin;
    ctree_ctx *ctx = context;
    cworker *wk = ctx->wk;
    const wobstacle *o = data;
    bool allowed;
    double pad_rule;
    gjk_wq_rules_for(wk->job->world, ctx->exact_a, ctx->wild_a, wkey(GJK_BODY_OBSTACLE, o->id, -1),
                     0, &allowed, &pad_rule);
    if (!allowed) {
        cside b;
        memset(&b, 0, sizeof b);
        b.o = o;
        b.link = -1;
        b.part = sub;
        b.pose = gjk_transform_mul(o->body.pose, o->body.parts[sub].pose);
        b.frame = o->body.pose;
        b.padding = o->body.padding;
        b.box = o->boxes[sub];
        search_pair(wk, ctx->a, &b, pad_rule);
    }
    if (wk->failed)
        return -1.0;
    return reach(wk) + ctx->reach_extra + CSLACK;
}

static void segment_obstacles(cworker *wk)
{
    const gjk_world *world = wk->job->world;
    const wrobot *r = wk->r;
    if (world->obstacle_count == 0)
        return;
    for (int32_t l = 0; l < r->link_count && !wk->failed; ++l) {
        for (int32_t p = 0; p < r->links[l].part_count && !wk->failed; ++p) {
            cside a;
            side_moving(&a, wk, l, p);
            ctree_ctx ctx = {wk, &a, wkey(GJK_BODY_LINK, r->id, l), wkey(GJK_BODY_LINK, r->id, -1),
                             r->links[l].padding + world->max_pair_padding};
            gjk_bp_query(&world->tree, a.box, reach(wk) + ctx.reach_extra + CSLACK, ctree_visit,
                         &ctx);
        }
    }
}

/* Link la of the moving robot against link lb of robot rb: the moving robot itself (a self
 * pair) or another robot at its current pose (placed as qb). */
static void segment_links(cworker *wk, int32_t la, const wrobot *rb, const qrobot *qb, int32_t lb)
{
    const wrobot *ra = wk->r;
    const wbody *A = &ra->links[la], *B = &rb->links[lb];
    if (A->part_count == 0 || B->part_count == 0)
        return;
    bool allowed;
    double pad_rule;
    gjk_wq_rules_for(wk->job->world, wkey(GJK_BODY_LINK, ra->id, la),
                     wkey(GJK_BODY_LINK, ra->id, -1), wkey(GJK_BODY_LINK, rb->id, lb),
                     wkey(GJK_BODY_LINK, rb->id, -1), &allowed, &pad_rule);
    if (allowed)
        return;
    double pad = isnan(pad_rule) ? A->padding + B->padding : pad_rule;
    gjk_aabb box_b = qb ? qb->link_boxes[lb] : wk->link_swept[lb];
    if (gjk_aabb_distance(wk->link_swept[la], box_b) - pad > reach(wk) + CSLACK)
        return; /* every part pair is at least as far apart */
    for (int32_t i = 0; i < A->part_count && !wk->failed; ++i) {
        cside a;
        side_moving(&a, wk, la, i);
        for (int32_t j = 0; j < B->part_count && !wk->failed; ++j) {
            cside b;
            if (qb) {
                memset(&b, 0, sizeof b);
                const qpart *placed = &qb->parts[qb->part_start[lb] + j];
                b.r = rb;
                b.link = lb;
                b.part = j;
                b.pose = placed->pose;
                b.frame = qb->link_poses[lb];
                b.padding = B->padding;
                b.box = placed->box;
            } else {
                side_moving(&b, wk, lb, j);
            }
            search_pair(wk, &a, &b, pad_rule);
        }
    }
}

static void segment_self(cworker *wk)
{
    const wrobot *r = wk->r;
    if (!r->self_collision)
        return;
    size_t n = (size_t)r->link_count;
    for (int32_t i = 0; i < r->link_count && !wk->failed; ++i)
        for (int32_t j = i + 1; j < r->link_count && !wk->failed; ++j)
            if (!r->disabled[(size_t)i * n + (size_t)j])
                segment_links(wk, i, r, NULL, j);
}

static void segment_robots(cworker *wk)
{
    const qjob *job = wk->job;
    for (int32_t k = 0; k < job->passive_count && !wk->failed; ++k) {
        const qrobot *qb = &job->passive[k];
        for (int32_t i = 0; i < wk->r->link_count && !wk->failed; ++i)
            for (int32_t j = 0; j < qb->r->link_count && !wk->failed; ++j)
                segment_links(wk, i, qb->r, qb, j);
    }
}

/* ------------------------------------------------------------------ one segment */

static uint64_t side_key(const cside *s, bool a)
{
    if (a)
        return ((uint64_t)(uint32_t)s->r->id << 22) | ((uint64_t)(uint32_t)s->link << 12) |
               (uint64_t)(uint32_t)s->part;
    if (s->o)
        return ((uint64_t)GJK_BODY_OBSTACLE << 62) | ((uint64_t)(uint32_t)s->o->id << 23) |
               (uint64_t)(uint32_t)s->part;
    return ((uint64_t)GJK_BODY_LINK << 62) | ((uint64_t)(uint32_t)s->r->id << 23) |
           ((uint64_t)(uint32_t)(s->link + 1) << 12) | (uint64_t)(uint32_t)s->part;
}

/* The reported pair at its time: one query (EPA on overlap unless the options say no). */
static void report(cworker *wk, const crep *rep, qhit *h)
{
    const qjob *job = wk->job;
    memset(h, 0, sizeof *h);
    gjk_query q;
    memset(&q, 0, sizeof q);
    q.shape_a = &side_part(&rep->a)->shape;
    q.pose_a = side_pose(wk, &rep->a, rep->t);
    q.shape_b = &side_part(&rep->b)->shape;
    q.pose_b = side_pose(wk, &rep->b, rep->t);
    q.cutoff = HUGE_VAL;
    q.penetration = job->penetration;
    gjk_cache cache;
    memset(&cache, 0, sizeof cache);
    gjk_result r = gjk_query_run(&q, &cache, &job->gjk);
    h->k0 = side_key(&rep->a, true);
    h->k1 = side_key(&rep->b, false);
    h->ra = rep->a.r;
    h->la = rep->a.link;
    h->pa = rep->a.part;
    h->rb = rep->b.o ? NULL : rep->b.r;
    h->ob = rep->b.o;
    h->lb = rep->b.o ? -1 : rep->b.link;
    h->pb = rep->b.part;
    h->frame_a = side_frame(wk, &rep->a, rep->t);
    h->frame_b = side_frame(wk, &rep->b, rep->t);
    h->r = r;
    h->pad = rep->pad;
    h->pad_a = rep->pad_a;
    h->pad_b = rep->pad_b;
    bool depth_known = q.penetration || r.status != GJK_STATUS_OVERLAPPING;
    h->distance =
        (r.status == GJK_STATUS_OVERLAPPING && !depth_known ? 0.0 : r.distance) - rep->pad;
    h->status = gjk_wq_padded_status(&r, h->distance, depth_known, job->touch_tolerance);
    h->collision = h->distance <= 0.0 || h->status == GJK_STATUS_OVERLAPPING ||
                   h->status == GJK_STATUS_TOUCHING;
    h->part_pairs = 1;
    h->feature_a = cache.count > 0 ? cache.index_a[0] : GJK_CACHE_NO_INDEX;
    h->feature_b = cache.count > 0 ? cache.index_b[0] : GJK_CACHE_NO_INDEX;
}

static void run_segment(cworker *wk, int32_t i)
{
    qjob *job = wk->job;
    qseg *seg = &job->seg[i];
    memset(seg, 0, sizeof *seg);
    wk->seg = seg;
    memset(&wk->contact, 0, sizeof wk->contact);
    memset(&wk->undecided, 0, sizeof wk->undecided);
    memset(&wk->closest, 0, sizeof wk->closest);
    /* The branch and bound starts from an upper bound on the segment's least distance: the
     * waypoints' own least distances (when known) or max_distance. Any start is safe (a pair
     * settled above it is farther than every bound reported), a low one only saves work. */
    double cap = fmax(job->max_distance, 0.0); /* HUGE_VAL without max_distance */
    for (int32_t w = i; w <= i + 1; ++w)
        if (job->wp[w].evaluated)
            cap = fmin(cap, fmax(job->wp[w].min_distance, 0.0));
    wk->best = cap;
    wk->min_bound = HUGE_VAL;
    place_segment(wk, i);
    if (job->pairs & GJK_WORLD_PAIRS_ROBOT_OBSTACLE)
        segment_obstacles(wk);
    if (job->pairs & GJK_WORLD_PAIRS_SELF)
        segment_self(wk);
    if (job->pairs & GJK_WORLD_PAIRS_ROBOT_ROBOT)
        segment_robots(wk);
    if (wk->failed)
        return;
    const crep *rep;
    if (wk->contact.set) {
        seg->verdict = GJK_CCD_CONTACT;
        seg->bound = (double)NAN;
        rep = &wk->contact;
    } else if (wk->undecided.set) {
        seg->verdict = GJK_CCD_UNDECIDED;
        seg->bound = (double)NAN;
        rep = &wk->undecided;
    } else {
        seg->verdict = GJK_CCD_CLEAR;
        seg->bound = fmin(wk->min_bound, cap);
        rep = &wk->closest;
    }
    seg->evaluated = true;
    seg->t = rep->set ? rep->t : 0.0;
    if (rep->set) {
        seg->has_hit = true;
        report(wk, rep, &seg->hit);
    }
}

/* ------------------------------------------------------------------ workers */

static bool cworker_init(cworker *wk, qjob *job)
{
    memset(wk, 0, sizeof *wk);
    wk->job = job;
    const wrobot *r = job->active[0];
    wk->r = r;
    size_t links = (size_t)r->link_count;
    wk->p0 = malloc(links * sizeof *wk->p0);
    wk->p1 = malloc(links * sizeof *wk->p1);
    wk->parts = malloc((size_t)(r->part_count > 0 ? r->part_count : 1) * sizeof *wk->parts);
    wk->part_start = malloc((links + 1) * sizeof *wk->part_start);
    wk->link_swept = malloc(links * sizeof *wk->link_swept);
    wk->q = malloc((size_t)(r->dof_count > 0 ? r->dof_count : 1) * sizeof *wk->q);
    if (!wk->p0 || !wk->p1 || !wk->parts || !wk->part_start || !wk->link_swept || !wk->q)
        return false;
    wk->part_start[0] = 0;
    for (size_t l = 0; l < links; ++l)
        wk->part_start[l + 1] = wk->part_start[l] + r->links[l].part_count;
    if (r->kin && gjk_kinematics_state_create(r->kin, &wk->st) != GJK_KINEMATICS_OK)
        return false;
    return true;
}

static void cworker_free(cworker *wk)
{
    free(wk->p0);
    free(wk->p1);
    free(wk->parts);
    free(wk->part_start);
    free(wk->link_swept);
    free(wk->q);
    gjk_kinematics_state_destroy(&wk->st);
}

static void atomic_min_int(atomic_int *a, int v)
{
    int cur = atomic_load(a);
    while (v < cur && !atomic_compare_exchange_weak(a, &cur, v)) {
    }
}

static void run_segments(cworker *wk)
{
    qjob *job = wk->job;
    bool first = job->mode == GJK_WORLD_MODE_FIRST_COLLISION;
    for (;;) {
        int i = atomic_fetch_add(&job->next_segment, 1);
        if (i >= job->seg_count || atomic_load(&job->failed))
            return;
        if (first && i > atomic_load(&job->first_contact))
            continue; /* masked below anyway */
        if (job->cancel && job->cancel(job->cancel_user, atomic_load(&job->reported))) {
            atomic_store(&job->failed, true);
            return;
        }
        run_segment(wk, i);
        if (wk->failed) {
            atomic_store(&job->failed, true);
            return;
        }
        if (first && job->seg[i].verdict == GJK_CCD_CONTACT)
            atomic_min_int(&job->first_contact, i);
    }
}

static void *cworker_main(void *arg)
{
    run_segments(arg);
    return NULL;
}

gjk_status gjk_wq_continuous(qjob *job, int32_t threads)
{
    job->seg_count = job->waypoint_count - 1;
    job->seg = calloc((size_t)job->seg_count, sizeof *job->seg);
    if (!job->seg)
        return GJK_STATUS_OUT_OF_MEMORY;
    atomic_init(&job->next_segment, 0);
    atomic_init(&job->first_contact, INT32_MAX);
    if (threads < 1)
        threads = 1;
    if (threads > job->seg_count)
        threads = job->seg_count;
    cworker workers[GJK_WORLD_MAX_THREADS];
    pthread_t ids[GJK_WORLD_MAX_THREADS];
    bool started[GJK_WORLD_MAX_THREADS];
    int32_t ready = 0;
    bool ok = true;
    for (int32_t t = 0; t < threads; ++t) {
        ++ready;
        if (!cworker_init(&workers[t], job)) {
            ok = false;
            break;
        }
    }
    for (int32_t t = 1; t < threads && ok; ++t)
        started[t] = pthread_create(&ids[t], NULL, cworker_main, &workers[t]) == 0;
    if (ok)
        run_segments(&workers[0]);
    for (int32_t t = 1; t < threads && ok; ++t)
        if (started[t])
            pthread_join(ids[t], NULL);
    for (int32_t t = 0; t < ready; ++t)
        cworker_free(&workers[t]);
    if (!ok || atomic_load(&job->failed))
        return GJK_STATUS_OUT_OF_MEMORY;
    /* FIRST_COLLISION: which segments after the first contact got evaluated depends on
     * scheduling; drop them all so that the result does not. */
    int fc = atomic_load(&job->first_contact);
    if (fc < job->seg_count)
        for (int32_t i = fc + 1; i < job->seg_count; ++i)
            memset(&job->seg[i], 0, sizeof job->seg[i]);
    return GJK_WORLD_OK;
}
