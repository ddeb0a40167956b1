/* gjk/query.h — distance, signed distance, intersection and cutoff queries on a pair of
 * convex shapes (GJK, Gilbert–Johnson–Keerthi 1988; EPA for penetration depth).
 *
 * Conventions shared by every query:
 *  - All outputs are in the world frame, metres. The computation itself runs in a
 *    pair-local frame (B expressed in A's frame) so large common translations lose nothing.
 *  - `normal` is a unit vector from A towards B, and  point_b - point_a = distance * normal
 *    whenever distance != 0. Separated: distance > 0 is the gap. Penetrating (EPA ran):
 *    distance < 0 is minus the penetration depth, and translating B by -distance * normal
 *    makes the shapes touch. BEYOND_CUTOFF is the exception: distance is the certified lower
 *    bound, the witnesses are the closest pair found so far (point_b - point_a =
 *    upper_bound * normal).
 *  - GJK stops on the duality gap: the certified bounds lower_bound <= d <= upper_bound
 *    (1988: ||v|| >= d >= v.w / ||v||) are reported for every separated answer. If GJK
 *    cannot close the gap (floating-point stall above the rounding of the support values)
 *    the status is GJK_STATUS_ITERATION_LIMIT, with the bounds it reached.
 *  - No query prints or touches global state; concurrent queries on shared shapes are safe
 *    (each with its own workspace, if any). A query never writes through a shape. The only
 *    allocation is EPA's, and only when its polytope outgrows the storage on the stack (deep
 *    overlaps of large polytopes): into the query's workspace when it has one, which keeps
 *    the block for later queries, else into a block freed before the query returns.
 *  - Poses: quaternions must have norm 1 within GJK_QUAT_NORM_TOLERANCE (they are then
 *    normalised); farther off, NaN/Inf anywhere, or an invalid shape -> GJK_STATUS_INVALID_INPUT
 *    with distance = NaN and the cache left untouched. */
#ifndef GJK_QUERY_H
#define GJK_QUERY_H

#include "base.h"
#include "shape.h"
#include "vecmath.h"

/* Options; take them from gjk_default_options(). A zeroed struct is also valid: every
 * zero field means "the default". */
typedef struct gjk_options {
    double rel_tolerance;   /* GJK/EPA stop when upper - lower <= rel_tolerance * upper (default 1e-12) */
    double abs_tolerance;   /* ... or <= abs_tolerance * scale, scale = pair's size (default 1e-16) */
    double touch_tolerance; /* |distance| <= min(this, touch_relative * size) reports
                               GJK_STATUS_TOUCHING (metres, default 1e-9) */
    int32_t max_iterations; /* GJK iteration cap (default 128) */
    int32_t epa_max_iterations; /* EPA iteration cap (default 0: automatic, 512 plus 4 per
                                   vertex of the pair's polytopes and boxes) */
    int32_t hill_climb_min_vertices; /* polytopes with adjacency and at least this many
                                        vertices use hill climbing (default 4; INT32_MAX = never) */
    double touch_relative;  /* the touching band relative to the pair's size: the shapes'
                               extents plus the distance between their origins (default
                               1e-9; the band is the smaller of the two) */
    struct gjk_trace *trace; /* optional step trace of GJK and EPA (gjk/trace.h); NULL = none */
} gjk_options;

GJK_API gjk_options gjk_default_options(void);

/* Value of GJK_CACHE index slots that name no discrete support feature. */
#define GJK_CACHE_NO_INDEX UINT32_MAX

/* Warm-start cache for one pair (48 bytes). Zero it for a cold start; each query reads and
 * updates it. It holds the support features of the last simplex and the last search
 * direction. A stale, zeroed or foreign cache (other shapes) only costs speed: every
 * field is validated before use. */
typedef struct gjk_cache {
    uint32_t index_a[4]; /* support feature of A for each simplex vertex (vertex index; on a
                            cylinder's or cone's rim, a key of the point's direction) */
    uint32_t index_b[4]; /* support feature of B */
    float direction[3];  /* last search direction in A's local frame (not normalised) */
    uint8_t count;       /* simplex vertices cached, 0 = cold */
    uint8_t kind_a;      /* gjk_shape_kind of A and B the indices refer to */
    uint8_t kind_b;
    uint8_t reserved;
} gjk_cache;

/* One query result. */
typedef struct gjk_result {
    gjk_status status;
    double distance;      /* signed distance, metres (see conventions above); NaN if invalid */
    gjk_vec3 point_a;     /* witness on A (world): closest point, or deepest point on overlap */
    gjk_vec3 point_b;     /* witness on B (world) */
    gjk_vec3 normal;      /* unit, from A towards B; zero when unknown (overlap without EPA, or
                             plain distance touching at exactly zero) */
    double lower_bound;   /* certified lower bound on the distance GJK stopped on, metres */
    double upper_bound;   /* upper bound (length of GJK's closest-point vector), metres */
    int32_t iterations;   /* GJK iterations */
    int32_t epa_iterations; /* EPA iterations (0 when EPA did not run) */
    int32_t support_calls;  /* support-map evaluations of the Minkowski difference */
} gjk_result;

/* Scratch memory for EPA beyond its stack storage, owned by the caller (one per thread or
 * per world worker: a workspace serves one query at a time). Zero it to start; a query
 * grows it only when EPA needs more than it holds (allocation only then), and it keeps its
 * block for the next queries until gjk_workspace_release. */
typedef struct gjk_workspace {
    void *block;   /* NULL until EPA first needs it */
    size_t bytes;  /* size of block */
    int32_t grows; /* allocations made into it (a block replaced by a larger one counts) */
} gjk_workspace;

/* Frees the workspace's block; the workspace stays usable (as if zeroed, `grows` kept). */
GJK_API void gjk_workspace_release(gjk_workspace *workspace);

/* General query input; the wrappers below fill it for the common cases. */
typedef struct gjk_query {
    const gjk_shape *shape_a;
    gjk_transform pose_a;   /* A's local frame in the world */
    const gjk_shape *shape_b;
    gjk_transform pose_b;
    double cutoff;          /* stop as soon as the certified lower bound exceeds this (metres);
                               INFINITY = never. Returns GJK_STATUS_BEYOND_CUTOFF, distance = that bound */
    bool penetration;       /* on overlap, run EPA for depth, deepest points and normal */
    bool boolean_only;      /* stop at the first certificate of overlap or separation */
    gjk_workspace *workspace; /* EPA's storage beyond the stack (NULL: a temporary block, only
                                 when the stack storage does not suffice) */
} gjk_query;

GJK_API gjk_result gjk_query_run(const gjk_query *query, gjk_cache *cache, const gjk_options *options);

/* Distance and witnesses; overlap is reported as GJK_STATUS_OVERLAPPING with distance 0. */
GJK_API gjk_result gjk_distance(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                                gjk_transform pose_b, gjk_cache *cache, const gjk_options *options);
/* As gjk_distance, and on overlap EPA gives the depth (negative distance), deepest points
 * and normal. */
GJK_API gjk_result gjk_signed_distance(const gjk_shape *a, gjk_transform pose_a,
                                       const gjk_shape *b, gjk_transform pose_b,
                                       gjk_cache *cache, const gjk_options *options);
/* Signed distance that stops early once the certified lower bound exceeds `cutoff`. */
GJK_API gjk_result gjk_distance_cutoff(const gjk_shape *a, gjk_transform pose_a,
                                       const gjk_shape *b, gjk_transform pose_b, double cutoff,
                                       gjk_cache *cache, const gjk_options *options);
/* Boolean test with early exit: GJK_STATUS_OVERLAPPING when the shapes share a point
 * (touching counts), GJK_STATUS_SEPARATED when not, GJK_STATUS_INVALID_INPUT, or
 * GJK_STATUS_ITERATION_LIMIT. */
GJK_API gjk_status gjk_intersect(const gjk_shape *a, gjk_transform pose_a, const gjk_shape *b,
                                 gjk_transform pose_b, gjk_cache *cache, const gjk_options *options);

#endif /* GJK_QUERY_H */
