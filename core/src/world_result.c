/* world_result.c — the result object of a world query (one allocation: the struct, the
 * waypoints, the pairs and an arena of interned names, so it stays valid whatever happens to
 * the world afterwards) and the record a named trajectory keeps for its next query. */
#define _POSIX_C_SOURCE 200809L

#include "world_query.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ results */

/* The result object: the public struct first, then everything it owns in one block. */
typedef struct result_block {
    gjk_world_result pub;
} result_block;

void gjk_world_result_destroy(gjk_world_result **result)
{
    if (!result || !*result)
        return;
    free(*result); /* one allocation holds the struct, waypoints, pairs and names */
    *result = NULL;
}

/* Interned name strings: distinct world pointers -> offsets in the result's arena. */
typedef struct name_table {
    const char **keys;
    size_t *offsets;
    uint32_t mask;
    size_t bytes;
} name_table;

static uint32_t hash_ptr(const char *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static size_t *name_slot(name_table *t, const char *s)
{
    for (uint32_t i = hash_ptr(s) & t->mask;; i = (i + 1) & t->mask) {
        if (t->keys[i] == s)
            return &t->offsets[i];
        if (t->keys[i] == NULL) {
            t->keys[i] = s;
            t->offsets[i] = t->bytes;
            t->bytes += strlen(s) + 1;
            return &t->offsets[i];
        }
    }
}

static void side_names(const qhit *h, bool b, const char **object, const char **body,
                       const char **part)
{
    if (!b) {
        *object = h->ra->name;
        *body = h->ra->links[h->la].name;
        *part = h->ra->links[h->la].parts[h->pa].name;
    } else if (h->ob) {
        *object = h->ob->body.name;
        *body = h->ob->body.name;
        *part = h->ob->body.parts[h->pb].name;
    } else {
        *object = h->rb->name;
        *body = h->rb->links[h->lb].name;
        *part = h->rb->links[h->lb].parts[h->pb].name;
    }
}

static void fill_pair(gjk_world_pair *out, const qhit *h, const char *arena, name_table *names)
{
    memset(out, 0, sizeof *out);
    const gjk_result *r = &h->r;
    gjk_vec3 n = r->normal;
    gjk_vec3 pa = gjk_madd(r->point_a, h->pad_a, n);
    gjk_vec3 pb = gjk_madd(r->point_b, -h->pad_b, n);
    for (int s = 0; s < 2; ++s) {
        gjk_world_side *side = s == 0 ? &out->a : &out->b;
        const char *object, *body, *part;
        side_names(h, s == 1, &object, &body, &part);
        side->object_name = arena + *name_slot(names, object);
        side->body_name = arena + *name_slot(names, body);
        side->part_name = arena + *name_slot(names, part);
    }
    out->a.body = gjk_link_body(h->ra->id, h->la);
    out->a.part = h->pa;
    out->a.point = pa;
    out->a.local_point = gjk_inv_transform_point(h->frame_a, pa);
    out->b.body = h->ob ? gjk_obstacle_body(h->ob->id) : gjk_link_body(h->rb->id, h->lb);
    out->b.part = h->pb;
    out->b.point = pb;
    out->b.local_point = gjk_inv_transform_point(h->frame_b, pb);
    out->distance = h->distance;
    out->normal = n;
    out->padding = h->pad;
    out->status = h->status;
    out->iterations = r->iterations;
    out->epa_iterations = r->epa_iterations;
    out->part_pair_count = h->part_pairs;
}

static size_t align_up(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

gjk_status gjk_wq_assemble(qjob *job, gjk_world_result **out, bool cache_hit)
{
    int32_t n = job->waypoint_count;
    int32_t first = -1;
    for (int32_t w = 0; w < n && first < 0; ++w)
        if (job->wp[w].evaluated && job->wp[w].collision)
            first = w;
    if (job->mode == GJK_WORLD_MODE_FIRST_COLLISION && first >= 0) {
        /* Which waypoints after the first collision got evaluated depends on scheduling:
         * drop them all so the result does not. */
        for (int32_t w = first + 1; w < n; ++w) {
            qwp *p = &job->wp[w];
            free(p->hits);
            free(p->named);
            memset(p, 0, sizeof *p);
        }
    }
    size_t total_pairs = 0, total_grads = 0;
    for (int32_t w = 0; w < n; ++w) {
        total_pairs += (size_t)job->wp[w].count;
        total_grads += (size_t)job->wp[w].grad_count;
    }

    /* Intern names (a pass over the pairs), then lay out one block. */
    name_table names;
    memset(&names, 0, sizeof names);
    size_t slots = 64;
    while (slots < 6 * (total_pairs + (size_t)job->seg_count) + 16)
        slots *= 2;
    names.keys = calloc(slots, sizeof *names.keys);
    names.offsets = calloc(slots, sizeof *names.offsets);
    if (!names.keys || !names.offsets) {
        free(names.keys);
        free(names.offsets);
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    names.mask = (uint32_t)(slots - 1);
    for (int32_t i = 0; i < job->seg_count; ++i)
        if (job->seg[i].has_hit)
            for (int s = 0; s < 2; ++s) {
                const char *object, *body, *part;
                side_names(&job->seg[i].hit, s == 1, &object, &body, &part);
                name_slot(&names, object);
                name_slot(&names, body);
                name_slot(&names, part);
            }
    for (int32_t w = 0; w < n; ++w)
        for (int32_t i = 0; i < job->wp[w].count; ++i)
            for (int s = 0; s < 2; ++s) {
                const char *object, *body, *part;
                side_names(&job->wp[w].hits[i], s == 1, &object, &body, &part);
                name_slot(&names, object);
                name_slot(&names, body);
                name_slot(&names, part);
            }

    size_t off_wp = align_up(sizeof(result_block));
    size_t off_pairs = off_wp + align_up((size_t)n * sizeof(gjk_world_waypoint));
    size_t off_grads = off_pairs + align_up(total_pairs * sizeof(gjk_world_pair));
    size_t off_segs = off_grads + align_up(total_grads * sizeof(double));
    size_t off_names = off_segs + align_up((size_t)job->seg_count * sizeof(gjk_world_segment));
    unsigned char *block = malloc(off_names + names.bytes + 1);
    if (!block) {
        free(names.keys);
        free(names.offsets);
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    result_block *rb = (result_block *)block;
    gjk_world_waypoint *wps = (gjk_world_waypoint *)(block + off_wp);
    gjk_world_pair *pairs = (gjk_world_pair *)(block + off_pairs);
    char *arena = (char *)(block + off_names);
    double *grads = (double *)(block + off_grads);
    for (uint32_t i = 0; i <= names.mask; ++i)
        if (names.keys[i])
            memcpy(arena + names.offsets[i], names.keys[i], strlen(names.keys[i]) + 1);

    gjk_world_result *res = &rb->pub;
    memset(res, 0, sizeof *res);
    res->revision = job->world->revision;
    res->pose_revision = job->world->pose_revision;
    res->waypoint_count = n;
    res->waypoints = wps;
    res->min_distance = HUGE_VAL;
    res->min_waypoint = -1;
    res->first_collision = first;
    res->trajectory_cache_hit = cache_hit;
    res->gradients = total_grads > 0 ? grads : NULL;
    res->gradient_count = (int64_t)total_grads;
    res->first_contact_segment = -1;
    if (job->seg_count > 0) {
        gjk_world_segment *segs = (gjk_world_segment *)(block + off_segs);
        res->segments = segs;
        res->segment_count = job->seg_count;
        for (int32_t i = 0; i < job->seg_count; ++i) {
            const qseg *q = &job->seg[i];
            gjk_world_segment *o = &segs[i];
            memset(o, 0, sizeof *o);
            o->evaluated = q->evaluated;
            o->verdict = q->verdict;
            o->t = q->t;
            o->clearance_lower_bound = q->bound;
            o->has_pair = q->has_hit;
            if (q->has_hit)
                fill_pair(&o->pair, &q->hit, arena, &names);
            o->pairs_checked = q->pairs_checked;
            o->pairs_undecided = q->pairs_undecided;
            o->evaluations = q->evaluations;
            if (q->verdict == GJK_CCD_CONTACT && res->first_contact_segment < 0)
                res->first_contact_segment = i;
            res->segments_undecided += q->verdict == GJK_CCD_UNDECIDED;
        }
    }
    size_t k = 0, g = 0;
    for (int32_t w = 0; w < n; ++w) {
        const qwp *p = &job->wp[w];
        gjk_world_waypoint *o = &wps[w];
        memset(o, 0, sizeof *o);
        o->evaluated = p->evaluated;
        o->collision = p->collision;
        o->truncated = p->truncated;
        o->min_distance = p->evaluated ? p->min_distance : HUGE_VAL;
        o->counters = p->counters;
        o->pairs = &pairs[k];
        o->pair_count = p->count;
        for (int32_t i = 0; i < p->count; ++i) {
            const qhit *h = &p->hits[i];
            gjk_world_pair *pair = &pairs[k++];
            fill_pair(pair, h, arena, &names);
            if (p->grad_count > 0) {
                if (h->grad_a_count > 0) {
                    pair->gradient_a = grads + g + (size_t)h->grad_a;
                    pair->gradient_a_count = h->grad_a_count;
                }
                if (h->grad_b_count > 0) {
                    pair->gradient_b = grads + g + (size_t)h->grad_b;
                    pair->gradient_b_count = h->grad_b_count;
                }
                pair->subgradient = h->subgradient;
            }
        }
        if (p->grad_count > 0)
            memcpy(grads + g, p->grads, (size_t)p->grad_count * sizeof *grads);
        g += (size_t)p->grad_count;
        if (p->evaluated && o->min_distance < res->min_distance) {
            res->min_distance = o->min_distance;
            res->min_waypoint = w;
        }
    }
    free(names.keys);
    free(names.offsets);
    *out = res;
    return GJK_WORLD_OK;
}

/* Builds the named-trajectory record from the waypoints' caches; NULL on failure (the cache
 * only speeds things up, so a failure here is not an error). */
wtraj *gjk_wq_build_named(const qjob *job, const char *name, int32_t robot)
{
    int32_t n = job->waypoint_count;
    size_t total = 0;
    for (int32_t w = 0; w < n; ++w)
        total += (size_t)job->wp[w].named_count;
    wtraj *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    size_t name_len = strlen(name) + 1;
    t->name = malloc(name_len);
    t->offsets = malloc((size_t)(n + 1) * sizeof *t->offsets);
    t->entries = malloc((total > 0 ? total : 1) * sizeof *t->entries);
    if (!t->name || !t->offsets || !t->entries) {
        wtraj_free(t);
        return NULL;
    }
    memcpy(t->name, name, name_len);
    t->robot = robot;
    t->waypoint_count = n;
    t->link_count = job->active[0]->link_count;
    t->revision = job->world->revision;
    t->pose_revision = job->world->pose_revision;
    size_t poses = (size_t)n * (size_t)t->link_count;
    t->link_poses = malloc(poses * sizeof *t->link_poses);
    if (!t->link_poses) {
        wtraj_free(t);
        return NULL;
    }
    memcpy(t->link_poses, job->traj_poses, poses * sizeof *t->link_poses);
    int32_t k = 0;
    for (int32_t w = 0; w < n; ++w) {
        t->offsets[w] = k;
        const qwp *p = &job->wp[w];
        if (p->named_count > 0)
            memcpy(&t->entries[k], p->named, (size_t)p->named_count * sizeof *t->entries);
        k += p->named_count;
    }
    t->offsets[n] = k;
    t->bytes = sizeof *t + name_len + (size_t)(n + 1) * sizeof *t->offsets +
               total * sizeof *t->entries + poses * sizeof *t->link_poses;
    if (total > INT32_MAX || !wtraj_build_index(t)) {
        wtraj_free(t);
        return NULL;
    }
    return t;
}
