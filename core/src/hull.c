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
 * Qhull reports to a FILE: we give it an in-memory stream that is thrown away, so the
 * library never prints. Each call owns its qhT, which makes the build thread-safe. */
#define _POSIX_C_SOURCE 200809L

#include "gjk/hull.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

/* Relative flatness below which a cloud loses a dimension (see the top of the file). */
#define GJK_HULL_FLAT_TOLERANCE 1e-9

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
    gjk_vec3 u, w, n;
} cloud_frame;

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

static cloud_frame measure_cloud(const gjk_vec3 *p, int32_t count)
{
    cloud_frame f;
    memset(&f, 0, sizeof f);
    double max_abs = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        max_abs = fmax(max_abs, fmax(fabs(p[i].x), fmax(fabs(p[i].y), fabs(p[i].z))));
    }
    f.origin = farthest_from_point(p, count, p[0]);
    gjk_vec3 o = p[f.origin];
    f.far_index = farthest_from_point(p, count, o);
    double len = gjk_distance_between(p[f.far_index], o);
    if (len == 0.0) {
        f.dimension = 0;
        return f;
    }
    double tol = fmax(GJK_HULL_FLAT_TOLERANCE * len, 64.0 * DBL_EPSILON * max_abs);
    f.u = gjk_scale(gjk_sub(p[f.far_index], o), 1.0 / len);

    /* Farthest from the line o + t u. */
    gjk_vec3 r_best = gjk_v3(0.0, 0.0, 0.0);
    double h1 = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        gjk_vec3 d = gjk_sub(p[i], o);
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
        h2 = fmax(h2, fabs(gjk_dot(gjk_sub(p[i], o), f.n)));
    }
    f.dimension = h2 <= tol ? 2 : 3;
    return f;
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
    gjk_vec3 o = p[f->origin];
    for (int32_t i = 0; i < count; ++i) {
        c[3 * i + 0] = p[i].x - o.x;
        c[3 * i + 1] = p[i].y - o.y;
        c[3 * i + 2] = p[i].z - o.z;
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
    gjk_vec3 o = p[f->origin];
    for (int32_t i = 0; i < count; ++i) {
        gjk_vec3 d = gjk_sub(p[i], o);
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
        gjk_vec3 o = p[f->origin];
        double tmin = HUGE_VAL, tmax = -HUGE_VAL;
        for (int32_t i = 0; i < count; ++i) {
            double t = gjk_dot(gjk_sub(p[i], o), f->u);
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

/* Owned polytope from the graph: vertices copied from the input, CSR adjacency with
 * each vertex's neighbours in ascending order. */
static gjk_status polytope_from_graph(gjk_polytope *out, const gjk_vec3 *p, const hull_graph *g)
{
    int32_t nv = g->vertex_count;
    gjk_vec3 *verts = malloc((size_t)nv * sizeof *verts);
    int32_t *start = calloc((size_t)nv + 1, sizeof *start);
    int32_t *adj = malloc(((size_t)g->edge_count * 2 + 1) * sizeof *adj);
    int32_t *fill = malloc((size_t)nv * sizeof *fill);
    gjk_status s = GJK_STATUS_OUT_OF_MEMORY;
    if (verts != NULL && start != NULL && adj != NULL && fill != NULL) {
        for (int32_t i = 0; i < nv; ++i) {
            verts[i] = p[g->vertex[i]];
        }
        for (int32_t e = 0; e < g->edge_count; ++e) {
            ++start[g->edge[e].lo + 1];
            ++start[g->edge[e].hi + 1];
        }
        for (int32_t i = 0; i < nv; ++i) {
            start[i + 1] += start[i];
            fill[i] = start[i];
        }
        /* Edges are sorted by (lo, hi). First every vertex receives its smaller
         * neighbours (edges (lo, v) come in ascending lo), then its larger ones (edges
         * (v, hi) in ascending hi): every list ends up ascending. */
        for (int32_t e = 0; e < g->edge_count; ++e) {
            adj[fill[g->edge[e].hi]++] = g->edge[e].lo;
        }
        for (int32_t e = 0; e < g->edge_count; ++e) {
            adj[fill[g->edge[e].lo]++] = g->edge[e].hi;
        }
        s = gjk_polytope_create(out, verts, nv, start, adj);
    }
    free(verts);
    free(start);
    free(adj);
    free(fill);
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
    for (int32_t i = 0; i < count; ++i) {
        if (!gjk_vec3_is_finite(points[i])) {
            return GJK_STATUS_INVALID_INPUT;
        }
    }

    cloud_frame frame = measure_cloud(points, count);
    hull_graph graph;
    memset(&graph, 0, sizeof graph);
    gjk_status s = GJK_STATUS_INVALID_INPUT;
    /* Highest dimension first; qhull finding the input flat (singular) drops one
     * dimension, any other qhull failure is final. */
    bool flat = false;
    if (frame.dimension == 3) {
        s = hull_3d(points, count, &frame, &graph, &flat);
        if (flat) {
            frame.dimension = 2;
        }
    }
    if (frame.dimension == 2) {
        s = hull_2d(points, count, &frame, &graph, &flat);
        if (flat) {
            frame.dimension = 1;
        }
    }
    if (frame.dimension <= 1) {
        s = hull_1d(points, count, &frame, &graph);
    }
    if (s == GJK_STATUS_SEPARATED) {
        s = polytope_from_graph(out, points, &graph);
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
