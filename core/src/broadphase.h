/* broadphase.h — dynamic AABB tree over world-frame boxes (private to the world layer).
 *
 * A binary tree whose leaves hold boxes and whose inner nodes hold the union of their
 * children's boxes. Insertion picks the sibling with the surface-area heuristic (the cost of a
 * new parent plus the growth it causes in every ancestor, Goldsmith & Salmon 1987) and the
 * path back to the root is rebalanced with AVL-style rotations, so the height stays
 * O(log n) whatever the insertion order. Queries descend only into nodes whose box is within
 * a margin of the query box, nearer child first, and the margin may shrink as the caller learns
 * more (branch and bound for closest-pair queries).
 *
 * Memory: nodes live in one array that grows by doubling. gjk_bp_reserve() makes room in
 * advance so that the inserts after it cannot fail (a world change validates and allocates
 * first, then mutates). Queries never allocate and may run concurrently with each other. */
#ifndef GJK_BROADPHASE_H
#define GJK_BROADPHASE_H

#include "gjk/vecmath.h"

#include <stdbool.h>
#include <stdint.h>

#define GJK_BP_NULL (-1)

typedef struct gjk_aabb {
    gjk_vec3 lower;
    gjk_vec3 upper;
} gjk_aabb;

typedef struct gjk_bp_node {
    gjk_aabb box;
    void *data;     /* leaf: the caller's pointer */
    int32_t sub;    /* leaf: the caller's index */
    int32_t parent; /* GJK_BP_NULL at the root; next free node when on the free list */
    int32_t child1; /* GJK_BP_NULL for a leaf */
    int32_t child2;
    int32_t height; /* leaf 0; -1 when free */
} gjk_bp_node;

typedef struct gjk_bp_tree {
    gjk_bp_node *nodes;
    int32_t capacity;
    int32_t node_count; /* nodes in use */
    int32_t leaf_count;
    int32_t root;
    int32_t free_list;
} gjk_bp_tree;

/* An empty tree (no allocation). A zeroed tree is NOT valid: call this. */
void gjk_bp_init(gjk_bp_tree *tree);
void gjk_bp_free(gjk_bp_tree *tree);

/* Makes room for `leaves` more leaves; false on allocation failure (tree unchanged). */
bool gjk_bp_reserve(gjk_bp_tree *tree, int32_t leaves);

/* Inserts a leaf and returns its id. Room must have been reserved. */
int32_t gjk_bp_insert(gjk_bp_tree *tree, gjk_aabb box, void *data, int32_t sub);
/* Removes a leaf. */
void gjk_bp_remove(gjk_bp_tree *tree, int32_t leaf);
/* Changes a leaf's box (remove + insert without allocation); the leaf id stays valid. */
void gjk_bp_move(gjk_bp_tree *tree, int32_t leaf, gjk_aabb box);

/* Called for each leaf whose box is within Euclidean distance `margin` of the query box
 * (gjk_aabb_distance <= margin). Returns the margin to use from now on
 * (return the argument to keep it; a smaller value prunes more; a negative value stops). */
typedef double gjk_bp_query_fn(void *context, void *data, int32_t sub, double margin);

/* Visits the leaves near `box`. margin may be INFINITY (every leaf). */
void gjk_bp_query(const gjk_bp_tree *tree, gjk_aabb box, double margin, gjk_bp_query_fn *fn,
                  void *context);

/* Height of the tree (0 for a single leaf, -1 when empty) and a full consistency check
 * (parents, heights, boxes containing children, leaf and node counts): for tests. */
int32_t gjk_bp_height(const gjk_bp_tree *tree);
bool gjk_bp_validate(const gjk_bp_tree *tree);

/* Box helpers. Plain comparisons rather than fmin/fmax: these run in the innermost loop of
 * every query, and without -ffast-math the libm calls are not inlined (boxes are finite). */
static inline double gjk_min_(double a, double b)
{
    return a < b ? a : b;
}
static inline double gjk_max_(double a, double b)
{
    return a > b ? a : b;
}

static inline gjk_aabb gjk_aabb_union(gjk_aabb a, gjk_aabb b)
{
    gjk_aabb u = {{gjk_min_(a.lower.x, b.lower.x), gjk_min_(a.lower.y, b.lower.y),
                   gjk_min_(a.lower.z, b.lower.z)},
                  {gjk_max_(a.upper.x, b.upper.x), gjk_max_(a.upper.y, b.upper.y),
                   gjk_max_(a.upper.z, b.upper.z)}};
    return u;
}
static inline gjk_aabb gjk_aabb_grow(gjk_aabb a, double r)
{
    gjk_aabb g = {{a.lower.x - r, a.lower.y - r, a.lower.z - r},
                  {a.upper.x + r, a.upper.y + r, a.upper.z + r}};
    return g;
}
/* Gap between [alo, ahi] and [blo, bhi] along one axis, 0 when they overlap. */
static inline double gjk_axis_gap_(double alo, double ahi, double blo, double bhi)
{
    double g = alo - bhi, h = blo - ahi;
    g = g > h ? g : h;
    return g > 0.0 ? g : 0.0;
}
/* Squared gjk_aabb_distance, without the square root. */
static inline double gjk_aabb_distance_sq(gjk_aabb a, gjk_aabb b)
{
    double dx = gjk_axis_gap_(a.lower.x, a.upper.x, b.lower.x, b.upper.x);
    double dy = gjk_axis_gap_(a.lower.y, a.upper.y, b.lower.y, b.upper.y);
    double dz = gjk_axis_gap_(a.lower.z, a.upper.z, b.lower.z, b.upper.z);
    return dx * dx + dy * dy + dz * dz;
}

/* Euclidean distance between two boxes (0 when they overlap): a lower bound on the distance
 * of any two sets they contain. */
static inline double gjk_aabb_distance(gjk_aabb a, gjk_aabb b)
{
    return sqrt(gjk_aabb_distance_sq(a, b));
}

#endif /* GJK_BROADPHASE_H */
