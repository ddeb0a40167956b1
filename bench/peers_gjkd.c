/* peers_gjkd.c — gjkd's own queries (libgjk) as rows of the peer benchmark.
 *
 *   gjkd         gjk_distance on separated cases, gjk_signed_distance (GJK + EPA) on
 *                intersecting ones, cold (zeroed gjk_cache) — warm on the trajectory's
 *                warm column: the cache of the previous step for the same obstacle;
 *   gjkd-warm    the same calls, each case warm-started from the cache its own previous
 *                query left (a repeated query: the best case of coherence);
 *   gjkd-linear  as gjkd with hill climbing disabled (hill_climb_min_vertices = INT32_MAX):
 *                every support is a linear scan — the scaling figure compares the two.
 * Shapes are polytopes over the same hull vertices every peer gets, with the vertex
 * adjacency taken from the hull's faces (gjk_polytope_create; untimed). */
#include "peers.h"

#include <stdlib.h>
#include <string.h>

#include "gjk/gjk.h"

typedef struct gjkd_ctx {
    gjk_polytope *polytopes;
    gjk_shape *shapes;
    int32_t count;
    gjk_options options;
} gjkd_ctx;

typedef struct gjkd_pair {
    const gjk_shape *a, *b;
    gjk_transform pose_a, pose_b;
} gjkd_pair;

/* Vertex adjacency (CSR) from the hull's faces: every face edge, both ways, deduplicated. */
static int adjacency_from_faces(const bench_hull *h, int32_t **start_out, int32_t **adj_out)
{
    int32_t n = h->count;
    int32_t *deg = calloc((size_t)n + 1, sizeof *deg);
    int32_t *pairs = malloc((size_t)(h->faces_len > 0 ? h->faces_len : 1) * 2 * sizeof *pairs);
    if (!deg || !pairs) {
        free(deg);
        free(pairs);
        return -1;
    }
    int32_t np = 0;
    for (int32_t k = 0; k < h->faces_len;) {
        int32_t m = h->faces[k];
        for (int32_t i = 0; i < m; i++) {
            pairs[2 * np] = h->faces[k + 1 + i];
            pairs[2 * np + 1] = h->faces[k + 1 + (i + 1) % m];
            np++;
        }
        k += m + 1;
    }
    if (n == 2 && np == 0) { /* a segment: its two ends are neighbours */
        pairs[0] = 0;
        pairs[1] = 1;
        np = 1;
    }
    /* Count both directions, then fill, then deduplicate each list. */
    for (int32_t e = 0; e < np; e++) {
        deg[pairs[2 * e] + 1]++;
        deg[pairs[2 * e + 1] + 1]++;
    }
    for (int32_t i = 0; i < n; i++)
        deg[i + 1] += deg[i];
    int32_t *adj = malloc((size_t)(deg[n] > 0 ? deg[n] : 1) * sizeof *adj);
    int32_t *fill = malloc((size_t)n * sizeof *fill);
    int32_t *start = malloc(((size_t)n + 1) * sizeof *start);
    if (!adj || !fill || !start) {
        free(deg);
        free(pairs);
        free(adj);
        free(fill);
        free(start);
        return -1;
    }
    memcpy(fill, deg, (size_t)n * sizeof *fill);
    for (int32_t e = 0; e < np; e++) {
        int32_t u = pairs[2 * e], v = pairs[2 * e + 1];
        adj[fill[u]++] = v;
        adj[fill[v]++] = u;
    }
    int32_t out = 0;
    for (int32_t i = 0; i < n; i++) {
        start[i] = out;
        for (int32_t k = deg[i]; k < deg[i + 1]; k++) {
            bool seen = false;
            for (int32_t j = start[i]; j < out; j++)
                seen = seen || adj[j] == adj[k];
            if (!seen && adj[k] != i)
                adj[out++] = adj[k];
        }
    }
    start[n] = out;
    free(deg);
    free(pairs);
    free(fill);
    *start_out = start;
    *adj_out = adj;
    return 0;
}

static void *gjkd_open_with(const bench_world *w, int32_t hill_min)
{
    gjkd_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->count = w->set->shape_count;
    ctx->polytopes = calloc((size_t)ctx->count, sizeof *ctx->polytopes);
    ctx->shapes = calloc((size_t)ctx->count, sizeof *ctx->shapes);
    ctx->options = gjk_default_options();
    if (hill_min > 0)
        ctx->options.hill_climb_min_vertices = hill_min;
    if (!ctx->polytopes || !ctx->shapes) {
        free(ctx->polytopes);
        free(ctx->shapes);
        free(ctx);
        return NULL;
    }
    for (int32_t i = 0; i < ctx->count; i++) {
        const bench_hull *h = &w->hulls[i];
        int32_t *start = NULL, *adj = NULL;
        if (adjacency_from_faces(h, &start, &adj) != 0 ||
            gjk_polytope_create(&ctx->polytopes[i], h->points, h->count, start, adj) !=
                GJK_STATUS_SEPARATED) {
            free(start);
            free(adj);
            for (int32_t k = 0; k < i; k++)
                gjk_polytope_destroy(&ctx->polytopes[k]);
            free(ctx->polytopes);
            free(ctx->shapes);
            free(ctx);
            return NULL;
        }
        free(start);
        free(adj);
        ctx->shapes[i] = gjk_make_polytope(&ctx->polytopes[i]);
    }
    return ctx;
}

static void *gjkd_open(const bench_world *w)
{
    return gjkd_open_with(w, 0);
}
static void *gjkd_open_linear(const bench_world *w)
{
    return gjkd_open_with(w, INT32_MAX);
}

static void gjkd_close(void *p)
{
    gjkd_ctx *ctx = p;
    if (!ctx)
        return;
    for (int32_t i = 0; i < ctx->count; i++)
        gjk_polytope_destroy(&ctx->polytopes[i]);
    free(ctx->polytopes);
    free(ctx->shapes);
    free(ctx);
}

static void gjkd_prepare(void *p, const gjk_case *c, void *out)
{
    gjkd_ctx *ctx = p;
    gjkd_pair *pair = out;
    pair->a = &ctx->shapes[c->shape_a];
    pair->b = &ctx->shapes[c->shape_b];
    pair->pose_a = c->pose_a;
    pair->pose_b = c->pose_b;
}

static void gjkd_query(void *p, const void *pr, bench_kind kind, void *warm, bench_answer *out)
{
    gjkd_ctx *ctx = p;
    const gjkd_pair *pair = pr;
    gjk_cache cold;
    gjk_cache *cache = warm;
    if (!cache) {
        memset(&cold, 0, sizeof cold);
        cache = &cold;
    }
    gjk_result r = kind == BENCH_DISTANCE ? gjk_distance(pair->a, pair->pose_a, pair->b,
                                                         pair->pose_b, cache, &ctx->options)
                                          : gjk_signed_distance(pair->a, pair->pose_a, pair->b,
                                                                pair->pose_b, cache, &ctx->options);
    memset(out, 0, sizeof *out);
    out->iterations = r.iterations;
    out->code = (int32_t)r.status;
    switch (r.status) {
    case GJK_STATUS_SEPARATED:
    case GJK_STATUS_TOUCHING:
    case GJK_STATUS_OVERLAPPING:
        out->ok = true;
        break;
    default: /* ITERATION_LIMIT, CAPACITY_LIMIT, INVALID_INPUT: gjkd's own failure report */
        out->ok = false;
        return;
    }
    if (r.status == GJK_STATUS_OVERLAPPING && kind == BENCH_DISTANCE) {
        out->verdict = -1; /* gjk_distance: overlap without a depth */
        return;
    }
    out->verdict = r.distance > 0.0 ? 1 : (r.distance < 0.0 ? -1 : 0);
    if (r.status == GJK_STATUS_OVERLAPPING)
        out->verdict = -1;
    out->has_sd = true;
    out->sd = r.distance;
    out->has_normal = gjk_length_sq(r.normal) > 0.0;
    out->normal = r.normal;
}

static const bench_engine gjkd_engines[] = {
    {
        .name = "gjkd",
        .calls = "gjk_distance / gjk_signed_distance, cold (zeroed cache)",
        .distance = true,
        .penetration = true,
        .warm_size = sizeof(gjk_cache),
        .pair_size = sizeof(gjkd_pair),
        .open = gjkd_open,
        .close = gjkd_close,
        .prepare = gjkd_prepare,
        .query = gjkd_query,
    },
    {
        .name = "gjkd-warm",
        .calls = "as gjkd, each case warm-started from its own previous query",
        .distance = true,
        .penetration = true,
        .warm_size = sizeof(gjk_cache),
        .warm_repeat = true,
        .pair_size = sizeof(gjkd_pair),
        .open = gjkd_open,
        .close = gjkd_close,
        .prepare = gjkd_prepare,
        .query = gjkd_query,
    },
    {
        .name = "gjkd-linear",
        .calls = "as gjkd, hill climbing off (hill_climb_min_vertices = INT32_MAX)",
        .distance = true,
        .penetration = true,
        .warm_size = sizeof(gjk_cache),
        .pair_size = sizeof(gjkd_pair),
        .open = gjkd_open_linear,
        .close = gjkd_close,
        .prepare = gjkd_prepare,
        .query = gjkd_query,
    },
};

int bench_engines_gjkd(const bench_engine **out, int cap)
{
    int n = 0;
    for (size_t i = 0; i < sizeof gjkd_engines / sizeof gjkd_engines[0]; i++)
        if (n < cap)
            out[n++] = &gjkd_engines[i];
    return n;
}
