/* gjk/trace.h — an optional step trace of GJK and EPA, for viewers and debugging (after Box2D's
 * b2ShapeDistance, which takes a simplex cache the caller can read back).
 *
 * Set gjk_options.trace to a gjk_trace over caller-owned arrays; every query run with those
 * options appends one step per GJK iteration and one per EPA iteration. Without a trace
 * (trace NULL, the default) nothing is recorded: each iteration costs one pointer test. The
 * core never allocates for it: when an array is full, later steps (or their points) are left
 * out and `truncated` says so. A trace is not thread-safe: one query at a time per trace. World
 * queries (gjk/world.h, whose pair queries may run on several threads) ignore options.gjk.trace:
 * trace one pair with gjk_query_run or the wrappers of gjk/query.h.
 *
 * Frames and quantities. GJK and EPA run on the shapes' cores (gjk/query.h: a sphere's core is
 * its centre, a capsule's its segment; margins and those radii are added afterwards, together
 * `inflate` below) in the pair frame, which is A's local frame: world = pose_a * point. The
 * Minkowski difference is D = A - B, so w = a - b for every point. GJK's bounds are on the
 * cores' distance (lower <= d <= upper), EPA's on their penetration depth. */
#ifndef GJK_TRACE_H
#define GJK_TRACE_H

#include "base.h"
#include "vecmath.h"

typedef enum gjk_trace_phase {
    GJK_TRACE_GJK = 1, /* a GJK iteration: the simplex, the support point along -v */
    GJK_TRACE_EPA = 2, /* an EPA iteration: the polytope, the support point along a face normal */
} gjk_trace_phase;

/* A point of D with the support points of core A and core B it came from (pair frame). */
typedef struct gjk_trace_point {
    gjk_vec3 a;
    gjk_vec3 b;
    gjk_vec3 w; /* a - b */
} gjk_trace_point;

typedef struct gjk_trace_step {
    gjk_trace_phase phase;
    int32_t iteration;       /* the phase's iteration number, from 1 */
    int32_t first_point;     /* the simplex (GJK: its 1 to 4 vertices) or the polytope (EPA:
                                every vertex) before this iteration's support point:
                                points[first_point .. first_point + point_count) */
    int32_t point_count;     /* 0 when the points array was full */
    int32_t face[3];         /* EPA: the face expanded, indices into this step's points
                                (counter-clockwise seen from outside); GJK: -1 */
    gjk_vec3 closest;        /* GJK: v, the simplex's point nearest the origin; EPA: the
                                face's point nearest the origin (its normal times its
                                distance) */
    gjk_vec3 direction;      /* the search direction of the support point (GJK: -v; EPA: the
                                face's outward unit normal) */
    gjk_trace_point support; /* the support point found along it */
    double lower, upper;     /* the bounds after this support point: GJK on the cores'
                                distance (v.w/|v| at best, |v|), EPA on the depth (the
                                nearest face's distance, the least support value so far) */
} gjk_trace_step;

typedef struct gjk_trace {
    gjk_trace_step *steps; /* caller-owned, step_capacity entries */
    int32_t step_capacity;
    int32_t step_count;      /* steps recorded (reset to 0 to reuse the trace) */
    gjk_trace_point *points; /* caller-owned, point_capacity entries */
    int32_t point_capacity;
    int32_t point_count; /* points used (reset to 0 with step_count) */
    bool truncated;      /* some step or point did not fit */
    double inflate;      /* the last query's margins plus sphere and capsule radii: the
                            shapes' distance is the cores' distance minus this */
} gjk_trace;

/* A trace over the given arrays, empty (either may be NULL with capacity 0). */
GJK_API gjk_trace gjk_trace_make(gjk_trace_step *steps, int32_t step_capacity,
                                 gjk_trace_point *points, int32_t point_capacity);
/* Empties the trace (keeps its arrays). */
GJK_API void gjk_trace_reset(gjk_trace *trace);

#endif /* GJK_TRACE_H */
