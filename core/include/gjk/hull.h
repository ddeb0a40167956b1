/* gjk/hull.h — convex hulls of point clouds (libqhull_r, reentrant API).
 *
 * The hull keeps only hull vertices and the vertex adjacency graph (edges of the
 * triangulated hull), which large polytopes use for hill-climbing support. Degenerate
 * clouds give valid degenerate polytopes, not errors: coplanar -> the 2-D hull polygon,
 * colinear -> the two extreme points, coincident -> one point; duplicate points are merged. */
#ifndef GJK_HULL_H
#define GJK_HULL_H

#include "shape.h"

typedef struct gjk_hull_info {
    int32_t dimension;    /* affine dimension of the input: 0 point, 1 segment, 2 polygon, 3 solid */
    int32_t input_count;  /* points given */
    int32_t vertex_count; /* hull vertices kept */
    int32_t edge_count;   /* undirected edges in the adjacency graph */
} gjk_hull_info;

/* Builds the hull of `count` points into *out (owned storage: gjk_polytope_destroy).
 * GJK_STATUS_SEPARATED on success; GJK_STATUS_INVALID_INPUT for count < 1, NaN/Inf, or a
 * qhull failure; GJK_STATUS_OUT_OF_MEMORY if an allocation fails (then *out is zeroed).
 * Output vertices are input points (never moved), in ascending input order; each vertex's
 * neighbours are listed in ascending order. `info` may be NULL. Thread-safe. */
GJK_API gjk_status gjk_hull_build(gjk_polytope *out, const gjk_vec3 *points, int32_t count,
                                  gjk_hull_info *info);

#endif /* GJK_HULL_H */
