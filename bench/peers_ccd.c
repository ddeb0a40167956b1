/* peers_ccd.c — libccd 2.1 (Debian libccd-dev, double precision) as a benchmark peer.
 *
 * libccd 2.1 has no distance query: on separated cases it gives a verdict only
 * (ccdGJKIntersect / ccdMPRIntersect), on intersecting ones a depth and direction
 * (ccdGJKPenetration: GJK + EPA; ccdMPRPenetration: Minkowski portal refinement).
 * Its default max_iterations is unlimited; we cap it at CCD_MAX_ITERATIONS. The EPA and
 * MPR tolerances keep libccd's defaults (1e-4, absolute): that is what its users get.
 * No warm start: libccd has no cache (first_dir is a fixed default). */
#include "peers.h"

#include <ccd/ccd.h>
#include <math.h>
#include <stdlib.h>

#define CCD_MAX_ITERATIONS 1000

typedef struct ccd_shape {
    const bench_hull *hull;
    gjk_vec3 centroid; /* mean of the hull vertices, local frame (MPR's interior point) */
} ccd_shape;

typedef struct ccd_placed {
    const ccd_shape *shape;
    gjk_mat3 rot; /* local -> world */
    gjk_vec3 pos;
} ccd_placed;

typedef struct ccd_pair {
    ccd_placed a, b;
} ccd_pair;

typedef struct ccd_ctx {
    ccd_shape *shapes;
    int32_t count;
} ccd_ctx;

static void ccd_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const ccd_placed *p = obj;
    gjk_vec3 d = gjk_mat3_tmul_vec(&p->rot, gjk_v3(dir->v[0], dir->v[1], dir->v[2]));
    const gjk_vec3 *v = p->shape->hull->points;
    int32_t n = p->shape->hull->count, best = 0;
    double best_dot = gjk_dot(v[0], d);
    for (int32_t i = 1; i < n; i++) {
        double t = gjk_dot(v[i], d);
        if (t > best_dot) {
            best_dot = t;
            best = i;
        }
    }
    gjk_vec3 w = gjk_add(gjk_mat3_mul_vec(&p->rot, v[best]), p->pos);
    out->v[0] = w.x;
    out->v[1] = w.y;
    out->v[2] = w.z;
}

static void ccd_center(const void *obj, ccd_vec3_t *out)
{
    const ccd_placed *p = obj;
    gjk_vec3 w = gjk_add(gjk_mat3_mul_vec(&p->rot, p->shape->centroid), p->pos);
    out->v[0] = w.x;
    out->v[1] = w.y;
    out->v[2] = w.z;
}

static void *ccd_open(const bench_world *w)
{
    ccd_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->count = w->set->shape_count;
    ctx->shapes = calloc((size_t)ctx->count, sizeof *ctx->shapes);
    if (!ctx->shapes) {
        free(ctx);
        return NULL;
    }
    for (int32_t i = 0; i < ctx->count; i++) {
        const bench_hull *h = &w->hulls[i];
        gjk_vec3 c = gjk_v3(0.0, 0.0, 0.0);
        for (int32_t k = 0; k < h->count; k++)
            c = gjk_add(c, h->points[k]);
        ctx->shapes[i].hull = h;
        ctx->shapes[i].centroid = gjk_scale(c, 1.0 / h->count);
    }
    return ctx;
}

static void ccd_close(void *p)
{
    ccd_ctx *ctx = p;
    if (!ctx)
        return;
    free(ctx->shapes);
    free(ctx);
}

static void ccd_prepare(void *p, const gjk_case *c, void *out)
{
    ccd_ctx *ctx = p;
    ccd_pair *pair = out;
    pair->a.shape = &ctx->shapes[c->shape_a];
    pair->a.rot = gjk_mat3_from_quat(gjk_quat_normalize(c->pose_a.q));
    pair->a.pos = c->pose_a.p;
    pair->b.shape = &ctx->shapes[c->shape_b];
    pair->b.rot = gjk_mat3_from_quat(gjk_quat_normalize(c->pose_b.q));
    pair->b.pos = c->pose_b.p;
}

static ccd_t ccd_settings(void)
{
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_center;
    ccd.center2 = ccd_center;
    ccd.max_iterations = CCD_MAX_ITERATIONS;
    return ccd;
}

static void ccd_answer(int rc, ccd_real_t depth, const ccd_vec3_t *dir, bench_answer *out)
{
    out->iterations = -1;
    out->code = rc;
    out->ok = rc == 0 || rc == -1;
    if (rc == 0) {
        /* Translating B (obj2) by depth * dir separates the shapes: dir points from A to B. */
        out->verdict = -1;
        out->has_sd = true;
        out->sd = -depth;
        out->has_normal = true;
        out->normal = gjk_v3(dir->v[0], dir->v[1], dir->v[2]);
    } else if (rc == -1) {
        out->verdict = 1;
    }
}

static void ccd_gjk_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    (void)p;
    (void)warm;
    const ccd_pair *pair = pr;
    ccd_t ccd = ccd_settings();
    *out = (bench_answer){0};
    if (kind == BENCH_DISTANCE) {
        int hit = ccdGJKIntersect(&pair->a, &pair->b, &ccd);
        out->ok = true;
        out->verdict = hit ? -1 : 1;
        out->iterations = -1;
        return;
    }
    ccd_real_t depth = 0.0;
    ccd_vec3_t dir, pos;
    int rc = ccdGJKPenetration(&pair->a, &pair->b, &ccd, &depth, &dir, &pos);
    ccd_answer(rc, depth, &dir, out);
}

static void ccd_mpr_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    (void)p;
    (void)warm;
    const ccd_pair *pair = pr;
    ccd_t ccd = ccd_settings();
    *out = (bench_answer){0};
    if (kind == BENCH_DISTANCE) {
        int hit = ccdMPRIntersect(&pair->a, &pair->b, &ccd);
        out->ok = true;
        out->verdict = hit ? -1 : 1;
        out->iterations = -1;
        return;
    }
    ccd_real_t depth = 0.0;
    ccd_vec3_t dir, pos;
    int rc = ccdMPRPenetration(&pair->a, &pair->b, &ccd, &depth, &dir, &pos);
    ccd_answer(rc, depth, &dir, out);
}

static const bench_engine ccd_gjk_engine = {
    .name = "libccd-gjk",
    .calls = "ccdGJKIntersect (separated: verdict only), ccdGJKPenetration (GJK+EPA)",
    .distance = false,
    .penetration = true,
    .warm_size = 0,
    .pair_size = sizeof(ccd_pair),
    .open = ccd_open,
    .close = ccd_close,
    .prepare = ccd_prepare,
    .query = ccd_gjk_query,
};

static const bench_engine ccd_mpr_engine = {
    .name = "libccd-mpr",
    .calls = "ccdMPRIntersect (separated: verdict only), ccdMPRPenetration",
    .distance = false,
    .penetration = true,
    .warm_size = 0,
    .pair_size = sizeof(ccd_pair),
    .open = ccd_open,
    .close = ccd_close,
    .prepare = ccd_prepare,
    .query = ccd_mpr_query,
};

int bench_engines_ccd(const bench_engine **out, int cap)
{
    int n = 0;
    if (n < cap)
        out[n++] = &ccd_gjk_engine;
    if (n < cap)
        out[n++] = &ccd_mpr_engine;
    return n;
}
