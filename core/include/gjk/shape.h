/* gjk/shape.h — convex shapes described by their support maps.
 *
 * Every shape is convex and lives in its own local frame; a query places it in the world
 * with a gjk_transform. Every shape has a margin >= 0: the shape is Minkowski-summed with a
 * ball of that radius (rounded geometry, safety shells; GJK 1988 section II).
 *
 * Local-frame conventions (all axis-aligned, centred on the local origin):
 *   point     the origin
 *   sphere    centre at the origin, `radius`            (a point with a radius: exact)
 *   capsule   segment (0,0,-half_height)..(0,0,+half_height), `radius` (a segment + radius)
 *   box       [-hx,hx] x [-hy,hy] x [-hz,hz], `half_extents`
 *   cylinder  axis z, `radius`, z in [-half_height, +half_height], flat caps
 *   cone      axis z, base disk of `radius` at z = -half_height, apex at z = +half_height
 *   ellipsoid (x/a)^2 + (y/b)^2 + (z/c)^2 <= 1, `radii` = (a, b, c), each > 0
 *   polytope  convex hull of the vertices of `polytope` (borrowed, never owned by the shape)
 *
 * Shapes are plain values; the library never takes ownership of anything they point to. */
#ifndef GJK_SHAPE_H
#define GJK_SHAPE_H

#include "base.h"
#include "vecmath.h"

typedef enum gjk_shape_kind {
    GJK_SHAPE_NONE = 0, /* a zeroed shape: rejected as invalid input */
    GJK_SHAPE_POINT,
    GJK_SHAPE_SPHERE,
    GJK_SHAPE_CAPSULE,
    GJK_SHAPE_BOX,
    GJK_SHAPE_CYLINDER,
    GJK_SHAPE_CONE,
    GJK_SHAPE_POLYTOPE,
    GJK_SHAPE_ELLIPSOID,
    GJK_SHAPE_KIND_COUNT
} gjk_shape_kind;

/* Vertices of a convex polytope, structure-of-arrays, local frame, metres.
 * Built by gjk_polytope_create() or gjk_hull_build(), which own `storage` and lay the
 * coordinates out 64-byte aligned and padded to `padded_count` (a multiple of 8) with
 * copies of the last vertex, so support loops need no scalar tail. A polytope can also be
 * filled by hand over caller-owned arrays (storage = NULL, padded_count = count). */
typedef struct gjk_polytope {
    const double *x, *y, *z;    /* vertex coordinates, `padded_count` entries each */
    const int32_t *adj_start;   /* optional (NULL): count+1 offsets into adj */
    const int32_t *adj;         /* neighbours of vertex i: adj[adj_start[i] .. adj_start[i+1]) */
    int32_t count;              /* number of vertices, >= 1 */
    int32_t padded_count;       /* entries in x, y, z (>= count) */
    double radius;              /* max |vertex|, metres (bounding sphere about the local origin) */
    void *storage;              /* owned memory, freed by gjk_polytope_destroy; NULL if borrowed */
} gjk_polytope;

typedef struct gjk_shape {
    gjk_shape_kind kind;
    double margin;              /* inflation radius, metres, >= 0 */
    double radius;              /* sphere, capsule, cylinder, cone: metres, >= 0 */
    double half_height;         /* capsule, cylinder, cone: metres, >= 0 */
    gjk_vec3 half_extents;      /* box: metres, each >= 0 */
    gjk_vec3 radii;             /* ellipsoid: semi-axes along local x, y, z, metres, each > 0 */
    const gjk_polytope *polytope; /* polytope: borrowed vertex set */
} gjk_shape;

GJK_API gjk_shape gjk_make_point(void);
GJK_API gjk_shape gjk_make_sphere(double radius);
GJK_API gjk_shape gjk_make_capsule(double radius, double half_height);
GJK_API gjk_shape gjk_make_box(gjk_vec3 half_extents);
GJK_API gjk_shape gjk_make_cylinder(double radius, double half_height);
GJK_API gjk_shape gjk_make_cone(double radius, double half_height);
GJK_API gjk_shape gjk_make_polytope(const gjk_polytope *polytope);
/* Semi-axes (a, b, c) along the local x, y, z axes. The whole ellipsoid is the narrow phase's
 * core (a curved support map); a ball is cheaper and exact as gjk_make_sphere (a point core). */
GJK_API gjk_shape gjk_make_ellipsoid(gjk_vec3 radii);

/* GJK_STATUS_SEPARATED (meaning: valid) or GJK_STATUS_INVALID_INPUT: unknown kind, NaN/Inf
 * or negative sizes or margin, an ellipsoid radius outside (0, GJK_MAX_LENGTH], a polytope
 * with no vertices, non-finite vertices or an adjacency index out of range. A borrowed
 * polytope (storage == NULL) is scanned in full (vertices, padding, radius >= max |vertex|,
 * adjacency); an owned one was checked when it was built and costs O(1): its fields must
 * still match the block they were created in. */
GJK_API gjk_status gjk_shape_validate(const gjk_shape *shape);

/* Support point of the shape (margin included) in local direction `dir`: a point of the
 * shape maximising dot(point, dir). A zero dir gives some point of the shape. */
GJK_API gjk_vec3 gjk_shape_support(const gjk_shape *shape, gjk_vec3 dir);

/* Radius of a ball about the local origin that contains the shape (margin included). */
GJK_API double gjk_shape_bounding_radius(const gjk_shape *shape);

/* World-frame axis-aligned bounding box of the shape placed at `pose` (margin included). */
GJK_API void gjk_shape_aabb(const gjk_shape *shape, gjk_transform pose, gjk_vec3 *lower,
                            gjk_vec3 *upper);

/* Copies `count` points (and, if adj_start is not NULL, the adjacency) into owned, aligned,
 * padded storage. The points must already be in convex position for the adjacency to be
 * meaningful; use gjk_hull_build for a raw point cloud. Returns GJK_STATUS_SEPARATED on
 * success, GJK_STATUS_INVALID_INPUT for count < 1, non-finite points (or a |point| that
 * overflows, above about 1.3e154) or bad adjacency,
 * GJK_STATUS_OUT_OF_MEMORY if the allocation fails (then *out is zeroed). Release with
 * gjk_polytope_destroy. */
GJK_API gjk_status gjk_polytope_create(gjk_polytope *out, const gjk_vec3 *points, int32_t count,
                                       const int32_t *adj_start, const int32_t *adj);
/* Frees owned storage and zeroes *p. Safe on a zeroed or borrowed polytope and on NULL. */
GJK_API void gjk_polytope_destroy(gjk_polytope *p);

#endif /* GJK_SHAPE_H */
