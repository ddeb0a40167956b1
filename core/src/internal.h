/* internal.h — contracts shared by support.c, gjk.c, epa.c and query.c. Not installed.
 *
 * The narrow phase works on the *cores* of the two shapes: a sphere is its centre point and
 * a capsule its segment, their radii joining the margins in `inflate`. GJK and EPA then run
 * on the Minkowski difference D = core(A) - core(B), expressed in A's local frame (the
 * pair-local frame), and query.c adds `inflate` back, which is exact for Minkowski sums:
 *   distance(A, B) = distance(coreA, coreB) - inflate        (cores separated)
 *   depth(A, B)    = depth(coreA, coreB) + inflate           (cores overlapping)  */
#ifndef GJK_INTERNAL_H
#define GJK_INTERNAL_H

#include "gjk/gjk.h"

/* Keeps a rarely taken path out of its caller, so that the hot path around it compiles
 * lean (fewer registers saved, no set-up for calls it does not make). */
#if defined(__GNUC__)
#define GJK_NOINLINE __attribute__((noinline))
#else
#define GJK_NOINLINE
#endif

/* Owned polytope storage (shape.c): the block gjk_polytope_create allocates starts with this
 * record of what it checked (so validating the polytope is O(1)) and, for hill climbing, a
 * table of starting vertices. Entry 9 (sx + 1) + 3 (sy + 1) + (sz + 1), s in {-1, 0, 1},
 * is the vertex of largest dot with (sx, sy, sz) (lowest index on ties): a start within
 * about 25 degrees of any direction, where vertex 0 may be on the far side of the hull
 * (entry 13, the zero direction, is 0). The vertex arrays follow the header, then
 * adj_start and adj, then the edge vectors (gjk_polytope_edges). */
typedef struct gjk_polytope_header {
    uint64_t magic;
    double radius;
    int32_t count, padded_count, adj_count, reserved;
    int32_t start[27];
    const double *edges; /* 3 adj_count doubles in the block (x | y | z), NULL without edges */
    /* The block's own arrays, which the edges were computed from: x, y, z, adj_start, adj. */
    const void *arrays[5];
} gjk_polytope_header;

#define GJK_POLYTOPE_MAGIC UINT64_C(0x676a6b506f6c7955) /* "gjkPolyU" */
#define GJK_POLYTOPE_ALIGN 64
#define GJK_POLYTOPE_HEADER_BYTES (3 * GJK_POLYTOPE_ALIGN)

/* Edge vectors along an owned polytope's adjacency: for vertex i and its neighbour
 * j = adj[k], entry k holds x[j] - x[i] (and y, z), computed by gjk_polytope_create with the
 * very subtraction hill climbing makes, so a climb gets the same bits without gathering the
 * neighbours' coordinates. x is NULL when there are none: a borrowed polytope, no adjacency,
 * or fields that no longer point into the block the edges were computed from. */
typedef struct gjk_polytope_edges {
    const double *x, *y, *z;
} gjk_polytope_edges;

static inline gjk_polytope_edges gjk_polytope_edges_of(const gjk_polytope *p)
{
    gjk_polytope_edges e = {NULL, NULL, NULL};
    const gjk_polytope_header *h = p->storage;
    if (h == NULL || h->magic != GJK_POLYTOPE_MAGIC || h->edges == NULL) {
        return e;
    }
    /* One test for the five pointers (the edges are those of the block's arrays only). */
    uintptr_t moved = ((uintptr_t)(const void *)p->x ^ (uintptr_t)h->arrays[0]) |
                      ((uintptr_t)(const void *)p->y ^ (uintptr_t)h->arrays[1]) |
                      ((uintptr_t)(const void *)p->z ^ (uintptr_t)h->arrays[2]) |
                      ((uintptr_t)(const void *)p->adj_start ^ (uintptr_t)h->arrays[3]) |
                      ((uintptr_t)(const void *)p->adj ^ (uintptr_t)h->arrays[4]);
    if (moved != 0) {
        return e;
    }
    e.x = h->edges;
    e.y = e.x + h->adj_count;
    e.z = e.y + h->adj_count;
    return e;
}

/* A pair of shapes placed in A's local frame. */
typedef struct gjk_pair_frame {
    const gjk_shape *a;
    const gjk_shape *b;
    gjk_mat3 rot_b; /* rotation B-local -> A-local */
    gjk_vec3 pos_b; /* B's origin in A-local coordinates */
    double inflate; /* margins plus sphere/capsule radii of both shapes */
    double scale;   /* size of the pair (for absolute tolerances): bounding radii + |pos_b| */
    bool hill_a;    /* use hill climbing on A's / B's polytope */
    bool hill_b;
    gjk_polytope_edges edges_a; /* A's / B's edge vectors for hill climbing (x NULL: none) */
    gjk_polytope_edges edges_b;
    bool climb_both; /* both are polytopes that climb on stored edges (the fast path) */
} gjk_pair_frame;

/* The frame of shapes a and b at poses with unit quaternions, as gjk_query_run builds it
 * (options NULL: the defaults, which decide hill climbing); returns A's rotation (A-local ->
 * world). For the tests and benchmarks of the internal parts. */
gjk_mat3 gjk_pair_frame_init(gjk_pair_frame *f, const gjk_shape *a, gjk_transform pose_a,
                             const gjk_shape *b, gjk_transform pose_b, const gjk_options *options);

/* One vertex of a simplex in D. */
typedef struct gjk_vertex {
    gjk_vec3 a;      /* support point of core A (A-local) */
    gjk_vec3 b;      /* support point of core B (A-local) */
    gjk_vec3 w;      /* a - b */
    uint32_t ia, ib; /* support features (GJK_CACHE_NO_INDEX when none) */
} gjk_vertex;

/* GJK's final simplex and the barycentric weights of its closest point to the origin. */
typedef struct gjk_simplex {
    gjk_vertex v[4];
    double lambda[4];
    int32_t count;
} gjk_simplex;

/* Support point of core(shape) in local direction d. `hint` seeds hill climbing (any
 * value is safe); *index receives the support feature or GJK_CACHE_NO_INDEX. */
gjk_vec3 gjk_core_support(const gjk_shape *shape, gjk_vec3 d, bool hill, uint32_t hint,
                          uint32_t *index);

/* Cache keys (gjk_cache index slots). A discrete support feature is its own key; a rim point
 * of a cylinder or a cone (no discrete feature: GJK_CACHE_NO_INDEX while a query runs) is keyed
 * by its direction from the axis, bit 31 set (support.c). */
#define GJK_RIM_KEY 0x80000000u
static inline bool gjk_is_rim_key(uint32_t key)
{
    return (key & GJK_RIM_KEY) != 0u && key != GJK_CACHE_NO_INDEX;
}

/* The cache key of a core support point without a feature index (`point` in the shape's
 * frame): a rim key for a cylinder's or a cone's rim point, else GJK_CACHE_NO_INDEX (nothing
 * to cache). */
uint32_t gjk_core_key(const gjk_shape *shape, gjk_vec3 point);

/* Core point of a shape for a cache key (a feature index, or a rim key: a point on that rim);
 * false if the key is not valid for this shape (stale or foreign cache). */
bool gjk_core_point(const gjk_shape *shape, uint32_t index, gjk_vec3 *point);

/* A's part of an error shared between the witnesses on A and on B in proportion to a and
 * b (the extents their errors scale with, or their radii); half each when both are 0. */
static inline double gjk_witness_share(double a, double b)
{
    return a + b > 0.0 ? a / (a + b) : 0.5;
}

/* Radius added to the core: margin + sphere/capsule radius. Inline: every query asks for
 * it twice. */
static inline double gjk_core_inflate(const gjk_shape *shape)
{
    return shape->kind == GJK_SHAPE_SPHERE || shape->kind == GJK_SHAPE_CAPSULE
               ? shape->margin + shape->radius
               : shape->margin;
}

/* Support vertex of D in direction d (A-local): a = sA(d), b = sB(-d), w = a - b. Hints
 * seed hill climbing. */
void gjk_pair_support(const gjk_pair_frame *f, gjk_vec3 d, uint32_t hint_a, uint32_t hint_b,
                      gjk_vertex *out);

/* EPA on D, starting from GJK's final simplex (which contains the origin, possibly as a
 * degenerate simplex: it is blown up to a tetrahedron). Finds the point p of the boundary
 * of D nearest the origin: depth = |p|, normal = p / |p| (A towards B, A-local), and
 * deepest points pa (on core A), pb (on core B) with pa - pb = p. Storage on the stack; a
 * polytope that outgrows it moves into the workspace (gjk_epa_in; gjk_epa uses a block of
 * its own, freed before it returns). Returns GJK_STATUS_OVERLAPPING (converged), TOUCHING
 * (depth 0: the origin is on the boundary), ITERATION_LIMIT or CAPACITY_LIMIT (memory
 * could not be had; best estimate filled in); never NaN (a non-finite support point or
 * simplex vertex gives INVALID_INPUT, every field finite). Coaxial bodies of revolution
 * (points, segments, cylinders, cones on one axis) get their exact depth from the meridian
 * section, without iterations. */
typedef struct gjk_epa_result {
    gjk_status status;
    double depth;
    gjk_vec3 normal;
    gjk_vec3 point_a, point_b;
    int32_t iterations;
    int32_t support_calls;
    double depth_upper; /* certified bound depth <= depth_upper: the least support value
                           h(n) = max over D of dot(x, n) seen (unit n); depth is the lower
                           bound (the nearest face of EPA's polytope inside D). Within the
                           tolerance of depth when OVERLAPPING, wider on ITERATION_LIMIT or
                           CAPACITY_LIMIT. */
    gjk_vec3 upper_normal; /* the unit direction of depth_upper's support value: the cores
                              separate by -depth_upper along it (zero vector if none) */
    double normal_sep;     /* the separation -h(normal) certified along `normal` by a support
                              value taken along it; -HUGE_VAL if none was */
} gjk_epa_result;

gjk_epa_result gjk_epa(const gjk_pair_frame *f, const gjk_simplex *simplex,
                       const gjk_options *options);
gjk_epa_result gjk_epa_in(const gjk_pair_frame *f, const gjk_simplex *simplex,
                          const gjk_options *options, gjk_workspace *workspace);

/* GJK distance on D (gjk.c). Runs from the warm-start cache when it is valid for these
 * shapes (NULL: cold start) and writes the final simplex back into it. */
typedef struct gjk_gjk_input {
    const gjk_options *options; /* resolved: no zero fields */
    double cutoff;    /* core-distance cutoff: BEYOND_CUTOFF once lower > max(cutoff, 0) (INFINITY:
                         never) */
    double threshold; /* boolean mode: SEPARATED once lower > threshold, OVERLAPPING once
                         upper <= threshold (inflate + touch tolerance: touching counts) */
    bool boolean_only;
} gjk_gjk_input;

typedef struct gjk_gjk_result {
    gjk_status status;   /* SEPARATED, OVERLAPPING, BEYOND_CUTOFF or ITERATION_LIMIT */
    gjk_simplex simplex; /* OVERLAPPING: final simplex with weights (EPA's seed); else count 0 */
    gjk_vec3 point_a;    /* witness on core A (A-local) */
    gjk_vec3 point_b;    /* witness on core B (A-local) */
    gjk_vec3 v; /* point of the final simplex nearest the origin (A-local): point_a - point_b up
                   to rounding, but with an accurate direction near contact */
    double lower, upper; /* certified bounds on the core distance (upper = |v|) */
    gjk_vec3 lower_v;    /* the v whose support point gave `lower` (zero while lower = 0):
                            -lower_v/|lower_v| certifies a separation of `lower` */
    double v_sep;        /* separation certified along -v/|v| by a support point taken for
                            the final v itself; -HUGE_VAL when none was */
    double span_a, span_b; /* extent of the final simplex's support points on A and on B
                              (largest distance from the first): the rounding of the weights
                              moves each witness in proportion to it */
    int32_t iterations;
    int32_t support_calls;
} gjk_gjk_result;

void gjk_gjk(const gjk_pair_frame *f, const gjk_gjk_input *in, gjk_cache *cache,
             gjk_gjk_result *out);

#endif /* GJK_INTERNAL_H */
