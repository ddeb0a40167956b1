/* hull.c — convex hulls of point clouds with libqhull_r (the reentrant qhull).
 *
 * gjk_hull_build keeps only the hull vertices (as given: never moved or projected) and
 * the vertex adjacency graph, which is the 1-skeleton of the triangulated hull (qhull
 * option Qt). On a convex polytope greedy hill climbing over that graph finds the
 * support vertex for any direction: every vertex that is not a maximiser of a linear
 * function has a neighbour that is better, because the boundary edges of every face are
 * in the graph.
 *
 * Degenerate clouds are measured first, not left to qhull's error paths:
 *   1. p1 = the point farthest from p0, p2 = the point farthest from p1, L = |p2 - p1|
 *      (at least half the diameter). L == 0: all points coincide -> dimension 0.
 *   2. The point farthest from the line p1 p2 at distance h1 <= tol -> dimension 1.
 *   3. The plane through p1, p2, p3; the farthest point from it at h2 <= tol -> 2.
 * with tol = max(1e-9 L, 64 eps max|coordinate|): thinner than a billionth of the cloud
 * or lost in the rounding of the input coordinates. Dimension 2 hulls the cloud in that
 * plane (2-D qhull, adjacency = the polygon cycle), dimension 1 keeps the two extreme
 * points along the line. If qhull still finds the input flat (its own tolerance is
 * different), the next lower dimension is used. Coordinates are handed to qhull relative
 * to p1 so far-from-origin clouds keep their precision.
 *
 * Solid hulls are pruned: a hull vertex within tol of the hull of its own neighbours (near
 * an edge or a face of the others) is dropped and qhull runs again, for up to
 * GJK_HULL_PRUNE_ROUNDS rounds. qhull's graph around such a vertex need not be the skeleton
 * of the hull (its rounding decides the topology there), and hill climbing stopped at one
 * 3.8e6 m short of the support on a 2e9 m hull. The hull then lies within
 * GJK_HULL_PRUNE_ROUNDS tol of the cloud's; if redundant vertices remain after the last
 * round, they stay and the polytope gets no adjacency (the scan is exact).
 *
 * Qhull reports to a FILE: we give it an in-memory stream that is thrown away, so the
 * library never prints. Each call owns its qhT, which makes the build thread-safe. */
#define _POSIX_C_SOURCE 200809L

#include "gjk/hull.h"
#include "gjk/query.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

/* Relative flatness below which a cloud loses a dimension (see the top of the file). */
#define GJK_HULL_FLAT_TOLERANCE 1e-9

/* Rounds of pruning nearly redundant vertices (hull_3d_pruned) before the adjacency is
 * given up instead. */
#define GJK_HULL_PRUNE_ROUNDS 4

/* An undirected edge between output vertices, lo < hi. */
typedef struct hull_edge {
    int32_t lo, hi;
} hull_edge;

/* Hull vertices (as input indices) and edges while the result is assembled. */
typedef struct hull_graph {
    int32_t *vertex; /* input index of each output vertex, ascending */
    int32_t vertex_count;
    hull_edge *edge;
    int32_t edge_count;
} hull_graph;

static void hull_graph_free(hull_graph *g)
{
    free(g->vertex);
    free(g->edge);
    memset(g, 0, sizeof *g);
}

/* Affine frame of the cloud: its dimension, an origin point and an orthonormal basis
 * u (along the longest direction found), w (in the plane) and n (normal). */
typedef struct cloud_frame {
    int32_t dimension;
    int32_t origin;    /* input index of p1 */
    int32_t far_index; /* input index of p2 */
    gjk_vec3 o;        /* p1 itself: the points handed to qhull are relative to it */
    gjk_vec3 u, w, n;
    int scale_exp; /* coordinates relative to p1 times 2^scale_exp are about 1 */
} cloud_frame;

/* (p - o) 2^e, exact. ldexp, not a product with 2^e: for a subnormal cloud 2^e overflows
 * (seen: 16 points on the x axis at 5e-324 .. 2e-323, refused as INVALID_INPUT). */
static gjk_vec3 relative_scaled(gjk_vec3 p, gjk_vec3 o, int e)
{
    return gjk_v3(ldexp(p.x - o.x, e), ldexp(p.y - o.y, e), ldexp(p.z - o.z, e));
}

static int32_t farthest_from_point(const gjk_vec3 *p, int32_t count, gjk_vec3 q)
{
    int32_t best = 0;
    double best_d = -1.0;
    for (int32_t i = 0; i < count; ++i) {
        double d = gjk_length_sq(gjk_sub(p[i], q));
        if (d > best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

/* Dimension and frame of the cloud q (coordinates relative to a point of the cloud,
 * scaled by a power of two to about unit size; see gjk_hull_build), with the flatness
 * tolerance tol in those coordinates. */
static cloud_frame measure_cloud(const gjk_vec3 *q, int32_t count, double tol)
{
    cloud_frame f;
    memset(&f, 0, sizeof f);
    f.origin = farthest_from_point(q, count, q[0]);
    gjk_vec3 o = q[f.origin];
    f.far_index = farthest_from_point(q, count, o);
    double len = gjk_distance_between(q[f.far_index], o);
    if (len == 0.0) {
        f.dimension = 0;
        return f;
    }
    f.u = gjk_scale(gjk_sub(q[f.far_index], o), 1.0 / len);

    /* Farthest from the line o + t u. */
    gjk_vec3 r_best = gjk_v3(0.0, 0.0, 0.0);
    double h1 = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        gjk_vec3 d = gjk_sub(q[i], o);
        gjk_vec3 r = gjk_madd(d, -gjk_dot(d, f.u), f.u);
        double h = gjk_length(r);
        if (h > h1) {
            h1 = h;
            r_best = r;
        }
    }
    if (h1 <= tol) {
        f.dimension = 1;
        return f;
    }
    f.n = gjk_normalize(gjk_cross(f.u, r_best));
    f.w = gjk_cross(f.n, f.u);

    double h2 = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        h2 = fmax(h2, fabs(gjk_dot(gjk_sub(q[i], o), f.n)));
    }
    f.dimension = h2 <= tol ? 2 : 3;
    return f;
}

/* A point's cell in the merge grid (cells of side tol), and its input index. */
typedef struct merge_cell {
    int64_t cx, cy, cz;
    int32_t index;
} merge_cell;

static int compare_cells(const void *a, const void *b)
{
    const merge_cell *x = a, *y = b;
    if (x->cx != y->cx) {
        return x->cx < y->cx ? -1 : 1;
    }
    if (x->cy != y->cy) {
        return x->cy < y->cy ? -1 : 1;
    }
    if (x->cz != y->cz) {
        return x->cz < y->cz ? -1 : 1;
    }
    return (x->index > y->index) - (x->index < y->index);
}

/* First cell entry not below (cx, cy, cz). */
static int32_t lower_cell(const merge_cell *c, int32_t n, int64_t cx, int64_t cy, int64_t cz)
{
    merge_cell key = {cx, cy, cz, INT32_MIN};
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (compare_cells(&c[mid], &key) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Marks in keep[] the points to hand to qhull: in input order, a point is dropped when a
 * kept point lies within tol of it in every coordinate (near twins: qhull's graph over
 * them is not the exact skeleton of the hull, so hill climbing could stop short). The
 * hull of the kept points is then within tol of the cloud's. Grid of cells of side tol,
 * sorted: each point looks at the 27 cells around its own. false: out of memory. */
static bool merge_near_twins(const gjk_vec3 *q, int32_t count, double tol, bool *keep)
{
    merge_cell *cell = malloc((size_t)count * sizeof *cell);
    int32_t *rank = malloc((size_t)count * sizeof *rank);
    if (cell == NULL || rank == NULL) {
        free(cell);
        free(rank);
        return false;
    }
    /* |q| <= 2 and tol >= 1e-9 * |cloud|, so cell coordinates stay far below 2^62. */
    for (int32_t i = 0; i < count; ++i) {
        cell[i] = (merge_cell){(int64_t)floor(q[i].x / tol), (int64_t)floor(q[i].y / tol),
                               (int64_t)floor(q[i].z / tol), i};
        keep[i] = false;
    }
    qsort(cell, (size_t)count, sizeof *cell, compare_cells);
    for (int32_t k = 0; k < count; ++k) {
        rank[cell[k].index] = k;
    }
    for (int32_t i = 0; i < count; ++i) {
        const merge_cell *me = &cell[rank[i]];
        bool twin = false;
        for (int64_t dx = -1; dx <= 1 && !twin; ++dx) {
            for (int64_t dy = -1; dy <= 1 && !twin; ++dy) {
                int64_t cx = me->cx + dx, cy = me->cy + dy;
                for (int32_t k = lower_cell(cell, count, cx, cy, me->cz - 1);
                     k < count && cell[k].cx == cx && cell[k].cy == cy && cell[k].cz <= me->cz + 1;
                     ++k) {
                    int32_t j = cell[k].index;
                    if (keep[j] && fabs(q[j].x - q[i].x) <= tol && fabs(q[j].y - q[i].y) <= tol &&
                        fabs(q[j].z - q[i].z) <= tol) {
                        twin = true;
                        break;
                    }
                }
            }
        }
        keep[i] = !twin;
    }
    free(cell);
    free(rank);
    return true;
}

static int compare_edges(const void *a, const void *b)
{
    const hull_edge *x = a, *y = b;
    if (x->lo != y->lo) {
        return x->lo < y->lo ? -1 : 1;
    }
    return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Sorts and removes duplicate edges in place. */
static int32_t unique_edges(hull_edge *e, int32_t n)
{
    if (n == 0) {
        return 0;
    }
    qsort(e, (size_t)n, sizeof *e, compare_edges);
    int32_t m = 1;
    for (int32_t i = 1; i < n; ++i) {
        if (e[i].lo != e[m - 1].lo || e[i].hi != e[m - 1].hi) {
            e[m++] = e[i];
        }
    }
    return m;
}

/* Runs qhull in `dim` (2 or 3) dimensions on coords (count * dim, relative to the frame
 * origin) and reads back the hull vertices and the edges of its facets (triangles in
 * 3-D with Qt, segments in 2-D). GJK_STATUS_SEPARATED, INVALID_INPUT when qhull fails
 * (*flat tells whether it found the input lower-dimensional), OUT_OF_MEMORY. */
static gjk_status run_qhull(int dim, coordT *coords, int32_t count, hull_graph *g, bool *flat)
{
    *flat = false;
    gjk_status status = GJK_STATUS_SEPARATED;
    char *err_text = NULL;
    size_t err_size = 0;
    FILE *err = open_memstream(&err_text, &err_size);
    qhT *qh = malloc(sizeof *qh);
    int32_t *new_index = malloc((size_t)count * sizeof *new_index);
    if (err == NULL || qh == NULL || new_index == NULL) {
        if (err != NULL) {
            fclose(err);
        }
        free(err_text);
        free(qh);
        free(new_index);
        return GJK_STATUS_OUT_OF_MEMORY;
    }

    char command[] = "qhull Qt";
    qh_zero(qh, err);
    int exitcode = qh_new_qhull(qh, dim, count, coords, False, command, NULL, err);
    if (exitcode == qh_ERRmem) {
        status = GJK_STATUS_OUT_OF_MEMORY;
    } else if (exitcode != qh_ERRnone) {
        status = GJK_STATUS_INVALID_INPUT;
        *flat = exitcode == qh_ERRsingular;
    } else {
        facetT *facet;
        vertexT *vertex, **vertexp;
        int32_t facet_count = 0;
        for (int32_t i = 0; i < count; ++i) {
            new_index[i] = -1;
        }
        /* Vertices are those of the facets (the vertex list may keep stragglers). Every
         * one must be an input point: Qt adds none, but check rather than index blindly. */
        bool foreign = false;
        FORALLfacets
        {
            if (facet->visible) {
                continue;
            }
            ++facet_count;
            FOREACHvertex_(facet->vertices)
            {
                int id = qh_pointid(qh, vertex->point);
                if (id >= 0 && id < count) {
                    new_index[id] = 0;
                } else {
                    foreign = true;
                }
            }
        }
        int32_t nv = 0;
        for (int32_t i = 0; i < count; ++i) {
            nv += new_index[i] == 0;
        }
        int32_t pairs_per_facet = dim == 3 ? 3 : 1;
        g->vertex = malloc((size_t)nv * sizeof *g->vertex);
        g->edge = malloc((size_t)facet_count * (size_t)pairs_per_facet * sizeof *g->edge);
        if (foreign || nv == 0) {
            status = GJK_STATUS_INVALID_INPUT;
        } else if (g->vertex == NULL || g->edge == NULL) {
            status = GJK_STATUS_OUT_OF_MEMORY;
        } else {
            /* Output vertices in ascending input order: deterministic. */
            for (int32_t i = 0; i < count; ++i) {
                if (new_index[i] == 0) {
                    new_index[i] = g->vertex_count;
                    g->vertex[g->vertex_count++] = i;
                }
            }
            int32_t ne = 0;
            FORALLfacets
            {
                if (facet->visible) {
                    continue;
                }
                int32_t ids[3], k = 0;
                FOREACHvertex_(facet->vertices)
                {
                    if (k < 3) {
                        ids[k] = new_index[qh_pointid(qh, vertex->point)];
                    }
                    ++k;
                }
                if (k != dim) { /* Qt gives simplices; anything else is a qhull failure */
                    status = GJK_STATUS_INVALID_INPUT;
                    break;
                }
                for (int32_t a = 0; a < k; ++a) {
                    for (int32_t b = a + 1; b < k; ++b) {
                        hull_edge e = {ids[a] < ids[b] ? ids[a] : ids[b],
                                       ids[a] < ids[b] ? ids[b] : ids[a]};
                        if (e.lo != e.hi) {
                            g->edge[ne++] = e;
                        }
                    }
                }
            }
            g->edge_count = unique_edges(g->edge, ne);
        }
    }

    int curlong = 0, totlong = 0;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    free(qh);
    free(new_index);
    fclose(err);
    free(err_text);
    if (status != GJK_STATUS_SEPARATED) {
        hull_graph_free(g);
    }
    return status;
}

static gjk_status hull_3d(const gjk_vec3 *p, int32_t count, const cloud_frame *f, hull_graph *g,
                          bool *flat)
{
    coordT *c = malloc((size_t)count * 3 * sizeof *c);
    if (c == NULL) {
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    for (int32_t i = 0; i < count; ++i) {
        gjk_vec3 d = relative_scaled(p[i], f->o, f->scale_exp);
        c[3 * i + 0] = d.x;
        c[3 * i + 1] = d.y;
        c[3 * i + 2] = d.z;
    }
    gjk_status s = run_qhull(3, c, count, g, flat);
    free(c);
    return s;
}

/* Hull of the cloud projected to the (u, w) plane of the frame. */
static gjk_status hull_2d(const gjk_vec3 *p, int32_t count, const cloud_frame *f, hull_graph *g,
                          bool *flat)
{
    coordT *c = malloc((size_t)count * 2 * sizeof *c);
    if (c == NULL) {
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    for (int32_t i = 0; i < count; ++i) {
        gjk_vec3 d = relative_scaled(p[i], f->o, f->scale_exp);
        c[2 * i + 0] = gjk_dot(d, f->u);
        c[2 * i + 1] = gjk_dot(d, f->w);
    }
    gjk_status s = run_qhull(2, c, count, g, flat);
    free(c);
    return s;
}

/* The extreme points along u (lowest input index on ties), adjacent to each other; one
 * point when they coincide. */
static gjk_status hull_1d(const gjk_vec3 *p, int32_t count, const cloud_frame *f, hull_graph *g)
{
    int32_t lo = 0, hi = 0;
    if (f->dimension >= 1) {
        double tmin = HUGE_VAL, tmax = -HUGE_VAL;
        for (int32_t i = 0; i < count; ++i) {
            double t = gjk_dot(relative_scaled(p[i], f->o, f->scale_exp), f->u);
            if (t < tmin) {
                tmin = t;
                lo = i;
            }
            if (t > tmax) {
                tmax = t;
                hi = i;
            }
        }
        if (p[lo].x == p[hi].x && p[lo].y == p[hi].y && p[lo].z == p[hi].z) {
            hi = lo;
        }
    }
    g->vertex = malloc(2 * sizeof *g->vertex);
    g->edge = malloc(sizeof *g->edge);
    if (g->vertex == NULL || g->edge == NULL) {
        hull_graph_free(g);
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    if (lo == hi) {
        g->vertex[0] = lo;
        g->vertex_count = 1;
        return GJK_STATUS_SEPARATED;
    }
    g->vertex[0] = lo < hi ? lo : hi;
    g->vertex[1] = lo < hi ? hi : lo;
    g->vertex_count = 2;
    g->edge[0] = (hull_edge){0, 1};
    g->edge_count = 1;
    return GJK_STATUS_SEPARATED;
}

/* The graph's adjacency in CSR form, each vertex's neighbours in ascending order: *start
 * (vertex_count + 1 offsets) and *adj (2 edge_count entries, at least one), both malloc'd.
 * false: out of memory (both NULL). */
static bool graph_csr(const hull_graph *g, int32_t **start_out, int32_t **adj_out)
{
    int32_t nv = g->vertex_count;
    int32_t *start = calloc((size_t)nv + 1, sizeof *start);
    int32_t *adj = malloc(((size_t)g->edge_count * 2 + 1) * sizeof *adj);
    int32_t *fill = malloc(((size_t)nv + 1) * sizeof *fill);
    *start_out = NULL;
    *adj_out = NULL;
    if (start == NULL || adj == NULL || fill == NULL) {
        free(start);
        free(adj);
        free(fill);
        return false;
    }
    for (int32_t e = 0; e < g->edge_count; ++e) {
        ++start[g->edge[e].lo + 1];
        ++start[g->edge[e].hi + 1];
    }
    for (int32_t i = 0; i < nv; ++i) {
        start[i + 1] += start[i];
        fill[i] = start[i];
    }
    /* Edges are sorted by (lo, hi). First every vertex receives its smaller neighbours
     * (edges (lo, v) come in ascending lo), then its larger ones (edges (v, hi) in
     * ascending hi): every list ends up ascending. */
    for (int32_t e = 0; e < g->edge_count; ++e) {
        adj[fill[g->edge[e].hi]++] = g->edge[e].lo;
    }
    for (int32_t e = 0; e < g->edge_count; ++e) {
        adj[fill[g->edge[e].lo]++] = g->edge[e].hi;
    }
    free(fill);
    *start_out = start;
    *adj_out = adj;
    return true;
}

/* Owned polytope from the graph: vertices copied from the input, CSR adjacency with
 * each vertex's neighbours in ascending order. */
static gjk_status polytope_from_graph(gjk_polytope *out, const gjk_vec3 *p, const hull_graph *g,
                                      bool with_adjacency)
{
    int32_t nv = g->vertex_count;
    gjk_vec3 *verts = malloc((size_t)nv * sizeof *verts);
    int32_t *start = NULL, *adj = NULL;
    gjk_status s = GJK_STATUS_OUT_OF_MEMORY;
    if (verts != NULL && graph_csr(g, &start, &adj)) {
        for (int32_t i = 0; i < nv; ++i) {
            verts[i] = p[g->vertex[i]];
        }
        s = gjk_polytope_create(out, verts, nv, with_adjacency ? start : NULL,
                                with_adjacency ? adj : NULL);
    }
    free(verts);
    free(start);
    free(adj);
    return s;
}

/* Marks in drop[] (one entry per graph vertex) the hull vertices within tol of the hull of
 * their own neighbours; q holds the points qhull was given (about unit size). Such a vertex
 * barely changes the hull (every point of the hull is within tol of the hull without it),
 * but its cone of edges is ill-conditioned, and qhull's graph around it need not be the
 * skeleton of the hull: a vertex 4e-13 of the extent off an edge of a 2e9 m hull had only
 * three neighbours, hill climbing stopped at it along (1, 1, 0) while the support was
 * 3.8e6 m farther (test_fuzz_regressions: hull_vertex_near_edge_climb). An independent set:
 * a vertex next to one dropped in this round waits for the next round, so each dropped
 * vertex is within tol of the hull of vertices that stay. Distances by GJK (point against
 * the neighbours' hull, scanned), which stops as soon as its lower bound passes tol.
 * Returns the number marked, -1 when out of memory. */
static int32_t mark_redundant(const gjk_vec3 *q, const hull_graph *g, double tol, bool *drop)
{
    int32_t *start = NULL, *adj = NULL;
    if (!graph_csr(g, &start, &adj)) {
        return -1;
    }
    int32_t max_degree = 1;
    for (int32_t i = 0; i < g->vertex_count; ++i) {
        max_degree = start[i + 1] - start[i] > max_degree ? start[i + 1] - start[i] : max_degree;
        drop[i] = false;
    }
    double *xyz = malloc((size_t)max_degree * 3 * sizeof *xyz);
    if (xyz == NULL) {
        free(start);
        free(adj);
        return -1;
    }
    gjk_options opt = gjk_default_options();
    opt.touch_tolerance = tol;
    gjk_shape point = gjk_make_point();
    int32_t dropped = 0;
    for (int32_t i = 0; i < g->vertex_count; ++i) {
        int32_t degree = start[i + 1] - start[i];
        bool next_to_dropped = false;
        double radius = 0.0;
        for (int32_t k = 0; k < degree; ++k) {
            int32_t j = adj[start[i] + k];
            next_to_dropped = next_to_dropped || drop[j];
            gjk_vec3 v = q[g->vertex[j]];
            xyz[k] = v.x;
            xyz[max_degree + k] = v.y;
            xyz[2 * max_degree + k] = v.z;
            radius = fmax(radius, gjk_length(v));
        }
        if (next_to_dropped || degree == 0) {
            continue;
        }
        gjk_polytope link = {.x = xyz,
                             .y = xyz + max_degree,
                             .z = xyz + 2 * max_degree,
                             .count = degree,
                             .padded_count = degree,
                             .radius = radius};
        gjk_shape link_hull = gjk_make_polytope(&link);
        gjk_query query = {.shape_a = &point,
                           .pose_a = gjk_transform_make(gjk_quat_identity(), q[g->vertex[i]]),
                           .shape_b = &link_hull,
                           .pose_b = gjk_transform_identity(),
                           .cutoff = tol};
        gjk_result r = gjk_query_run(&query, NULL, &opt);
        drop[i] = r.status == GJK_STATUS_OVERLAPPING ||
                  ((r.status == GJK_STATUS_TOUCHING || r.status == GJK_STATUS_SEPARATED) &&
                   r.upper_bound <= tol);
        dropped += drop[i];
    }
    free(xyz);
    free(start);
    free(adj);
    return dropped;
}

/* hull_3d, then rounds of pruning (mark_redundant) and qhull again on the hull vertices
 * that stay; kept, q and *count are compacted to them. Vertices still redundant after
 * GJK_HULL_PRUNE_ROUNDS rounds stay, and *with_adjacency becomes false: the scan is exact
 * whatever the graph. Every dropped point is within GJK_HULL_PRUNE_ROUNDS tol of the
 * result. */
static gjk_status hull_3d_pruned(gjk_vec3 *kept, gjk_vec3 *q, int32_t *count,
                                 const cloud_frame *f, double tol, hull_graph *g, bool *flat,
                                 bool *with_adjacency)
{
    for (int32_t round = 0;; ++round) {
        gjk_status s = hull_3d(kept, *count, f, g, flat);
        if (s != GJK_STATUS_SEPARATED) {
            return s;
        }
        bool *drop = malloc((size_t)g->vertex_count * sizeof *drop);
        int32_t dropped = drop != NULL ? mark_redundant(q, g, tol, drop) : -1;
        if (dropped <= 0 || round == GJK_HULL_PRUNE_ROUNDS) {
            free(drop);
            if (dropped < 0) {
                hull_graph_free(g);
                return GJK_STATUS_OUT_OF_MEMORY;
            }
            *with_adjacency = dropped == 0;
            return GJK_STATUS_SEPARATED;
        }
        /* Keep the hull vertices not dropped (interior points are done with), in order. */
        int32_t m = 0;
        for (int32_t k = 0; k < g->vertex_count; ++k) {
            if (!drop[k]) {
                kept[m] = kept[g->vertex[k]];
                q[m] = q[g->vertex[k]];
                ++m;
            }
        }
        *count = m;
        free(drop);
        hull_graph_free(g);
    }
}

/* Whether the hull vertices are coplanar up to the rounding of their coordinates: every one
 * is within 64 eps of the plane of the first non-degenerate triangle, in coordinates
 * relative to vertex 0 and scaled by a power of two to at most 2 (so nothing underflows).
 * A tilted polygon is never exactly planar in floating point; its cycle is kept. */
static bool exactly_planar(const gjk_vec3 *p, const hull_graph *g, int scale_exp)
{
    gjk_vec3 o = p[g->vertex[0]];
    gjk_vec3 e1 = relative_scaled(p[g->vertex[1]], o, scale_exp);
    gjk_vec3 nrm = gjk_v3(0.0, 0.0, 0.0);
    for (int32_t i = 2; i < g->vertex_count && gjk_length_sq(nrm) == 0.0; ++i) {
        nrm = gjk_cross(e1, relative_scaled(p[g->vertex[i]], o, scale_exp));
    }
    double limit = 64.0 * DBL_EPSILON * gjk_length(nrm);
    for (int32_t i = 1; i < g->vertex_count; ++i) {
        if (fabs(gjk_dot(nrm, relative_scaled(p[g->vertex[i]], o, scale_exp))) > limit) {
            return false;
        }
    }
    return true;
}

/* The hull of `count` finite points; q, kept and keep are scratch arrays of count. */
static gjk_status hull_build(gjk_polytope *out, const gjk_vec3 *points, int32_t count,
                             gjk_hull_info *info, gjk_vec3 *q, gjk_vec3 *kept, bool *keep)
{
    /* Work on q = (p - p0) * 2^-e, about unit size: the scaling is exact, so nothing
     * squared underflows or overflows for tiny or huge clouds, and vertices stay input
     * points. */
    double max_abs = 0.0, max_rel = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        gjk_vec3 d = gjk_sub(points[i], points[0]);
        max_abs =
            fmax(max_abs, fmax(fabs(points[i].x), fmax(fabs(points[i].y), fabs(points[i].z))));
        max_rel = fmax(max_rel, fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))));
    }
    int ex = 0;
    if (max_rel > 0.0) {
        (void)frexp(max_rel, &ex);
    }
    for (int32_t i = 0; i < count; ++i) {
        q[i] = relative_scaled(points[i], points[0], -ex);
    }

    /* The flatness tolerance from the cloud's length (see the top of the file); points
     * closer than it to an earlier kept point are merged into that one. */
    int32_t p1 = farthest_from_point(q, count, q[0]);
    double len = gjk_distance_between(q[farthest_from_point(q, count, q[p1])], q[p1]);
    double tol = fmax(GJK_HULL_FLAT_TOLERANCE * len, 64.0 * DBL_EPSILON * ldexp(max_abs, -ex));
    if (len > 0.0) {
        if (!merge_near_twins(q, count, tol, keep)) {
            return GJK_STATUS_OUT_OF_MEMORY;
        }
    } else {
        for (int32_t i = 0; i < count; ++i) {
            keep[i] = i == 0;
        }
    }
    int32_t nk = 0;
    for (int32_t i = 0; i < count; ++i) {
        if (keep[i]) {
            q[nk] = q[i];
            kept[nk++] = points[i]; /* ascending input order */
        }
    }

    cloud_frame frame = measure_cloud(q, nk, tol);
    frame.o = kept[frame.origin];
    frame.scale_exp = -ex;
    hull_graph graph;
    memset(&graph, 0, sizeof graph);
    gjk_status s = GJK_STATUS_INVALID_INPUT;
    /* Highest dimension first; qhull finding the input flat (singular) drops one
     * dimension, any other qhull failure is final. */
    bool flat = false, with_adjacency = true;
    if (frame.dimension == 3) {
        s = hull_3d_pruned(kept, q, &nk, &frame, tol, &graph, &flat, &with_adjacency);
        if (flat) {
            frame.dimension = 2;
        }
    }
    if (frame.dimension == 2) {
        s = hull_2d(kept, nk, &frame, &graph, &flat);
        if (flat) {
            frame.dimension = 1;
        }
    }
    if (frame.dimension <= 1) {
        s = hull_1d(kept, nk, &frame, &graph);
    }
    if (s == GJK_STATUS_SEPARATED && frame.dimension < 3 && graph.vertex_count > 3 &&
        !exactly_planar(kept, &graph, -ex)) {
        /* Flat only within the tolerance: the polygon's cycle is not the skeleton of the
         * (very thin) solid its vertices span, and hill climbing over it could stop far
         * from the support. No adjacency: the scan is exact. */
        with_adjacency = false;
    }
    if (!with_adjacency) {
        graph.edge_count = 0; /* info tells what the polytope has */
    }
    if (s == GJK_STATUS_SEPARATED) {
        s = polytope_from_graph(out, kept, &graph, with_adjacency);
    }
    if (s == GJK_STATUS_SEPARATED && info != NULL) {
        info->dimension = frame.dimension;
        if (graph.vertex_count == 1) {
            info->dimension = 0;
        }
        info->vertex_count = graph.vertex_count;
        info->edge_count = graph.edge_count;
    }
    hull_graph_free(&graph);
    return s;
}

gjk_status gjk_hull_build(gjk_polytope *out, const gjk_vec3 *points, int32_t count,
                          gjk_hull_info *info)
{
    GJK_ASSERT(out != NULL);
    memset(out, 0, sizeof *out);
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->input_count = count;
    }
    if (points == NULL || count < 1) {
        return GJK_STATUS_INVALID_INPUT;
    }
    /* Every coordinate within GJK_MAX_LENGTH (NaN and Inf fail): the polytope must be a valid
     * shape, and the squared lengths of the build stay far from overflow. */
    for (int32_t i = 0; i < count; ++i) {
        gjk_vec3 p = points[i];
        if (!(fabs(p.x) <= GJK_MAX_LENGTH && fabs(p.y) <= GJK_MAX_LENGTH &&
              fabs(p.z) <= GJK_MAX_LENGTH)) {
            return GJK_STATUS_INVALID_INPUT;
        }
    }
    gjk_vec3 *q = malloc((size_t)count * sizeof *q);
    gjk_vec3 *kept = malloc((size_t)count * sizeof *kept);
    bool *keep = malloc((size_t)count * sizeof *keep);
    gjk_status s = GJK_STATUS_OUT_OF_MEMORY;
    if (q != NULL && kept != NULL && keep != NULL) {
        s = hull_build(out, points, count, info, q, kept, keep);
    }
    free(q);
    free(kept);
    free(keep);
    return s;
}
