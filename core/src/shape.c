/* shape.c — shape constructors, validation, the reference support map, bounding volumes
 * and owned polytope storage.
 *
 * gjk_shape_support() is the public, exact support map of the whole shape (margin and
 * sphere/capsule radius included). The narrow phase uses its own core supports
 * (support.c); this one is the reference the tests and the world layer measure against.
 *
 * Support maps (s(d) = argmax over the shape of dot(x, d), n = d / |d|):
 *   point     0 + margin * n
 *   sphere    (radius + margin) * n
 *   capsule   (0, 0, sign(dz) * h) + (radius + margin) * n
 *   box       (sign(dx) hx, sign(dy) hy, sign(dz) hz) + margin * n
 *   cylinder  rim point: radius * (dx, dy) / |(dx, dy)|, z = sign(dz) * h, + margin * n
 *   cone      the better of the apex (0, 0, h) and the base rim point, + margin * n
 *   ellipsoid D^2 n / |D n|, D = diag(a, b, c) (the point whose outer normal is n), + margin * n
 *   polytope  the vertex of largest dot (lowest index on ties), + margin * n
 * sign(0) is taken as +1, so every map is deterministic. */
#include "gjk/shape.h"
#include "internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ constructors */

static gjk_shape shape_of_kind(gjk_shape_kind kind)
{
    gjk_shape s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    return s;
}

gjk_shape gjk_make_point(void)
{
    return shape_of_kind(GJK_SHAPE_POINT);
}

gjk_shape gjk_make_sphere(double radius)
{
    gjk_shape s = shape_of_kind(GJK_SHAPE_SPHERE);
    s.radius = radius;
    return s;
}

gjk_shape gjk_make_capsule(double radius, double half_height)
{
    gjk_shape s = shape_of_kind(GJK_SHAPE_CAPSULE);
    s.radius = radius;
    s.half_height = half_height;
    return s;
}

gjk_shape gjk_make_box(gjk_vec3 half_extents)
{
    gjk_shape s = shape_of_kind(GJK_SHAPE_BOX);
    s.half_extents = half_extents;
    return s;
}

gjk_shape gjk_make_cylinder(double radius, double half_height)
{
    gjk_shape s = shape_of_kind(GJK_SHAPE_CYLINDER);
    s.radius = radius;
    s.half_height = half_height;
    return s;
}

gjk_shape gjk_make_cone(double radius, double half_height)
{
    gjk_shape s = shape_of_kind(GJK_SHAPE_CONE);
    s.radius = radius;
    s.half_height = half_height;
    return s;
}

gjk_shape gjk_make_polytope(const gjk_polytope *polytope)
{
    gjk_shape s = shape_of_kind(GJK_SHAPE_POLYTOPE);
    s.polytope = polytope;
    return s;
}

gjk_shape gjk_make_ellipsoid(gjk_vec3 radii)
{
    gjk_shape s = shape_of_kind(GJK_SHAPE_ELLIPSOID);
    s.radii = radii;
    return s;
}

/* ------------------------------------------------------------------ validation */

/* 0 <= v <= GJK_MAX_LENGTH (NaN fails). */
static bool is_size(double v)
{
    return v >= 0.0 && v <= GJK_MAX_LENGTH;
}

/* 0 < v <= GJK_MAX_LENGTH (NaN fails): an ellipsoid's radius. A zero radius would make a flat
 * ellipse whose support map is not defined along its normal (D d = 0). */
static bool is_positive_size(double v)
{
    return v > 0.0 && v <= GJK_MAX_LENGTH;
}

static gjk_vec3 polytope_vertex(const gjk_polytope *p, int32_t i)
{
    return gjk_v3(p->x[i], p->y[i], p->z[i]);
}

/* Adjacency CSR: adj_start[0] == 0, offsets non-decreasing, every neighbour index in
 * [0, count) and no vertex its own neighbour. */
static bool adjacency_is_sane(const int32_t *adj_start, const int32_t *adj, int32_t count)
{
    if (adj_start[0] != 0) {
        return false;
    }
    for (int32_t i = 0; i < count; ++i) {
        if (adj_start[i + 1] < adj_start[i]) {
            return false;
        }
    }
    if (adj_start[count] > 0 && adj == NULL) {
        return false;
    }
    /* Branch-free: this runs on every query with a borrowed polytope. */
    bool ok = true;
    for (int32_t i = 0; i < count; ++i) {
        for (int32_t k = adj_start[i]; k < adj_start[i + 1]; ++k) {
            ok &= ((uint32_t)adj[k] < (uint32_t)count) & (adj[k] != i);
        }
    }
    return ok;
}

/* Owned polytopes start their block with a gjk_polytope_header (internal.h), the record of
 * what gjk_polytope_create checked, so validating them is O(1): the vertex and adjacency
 * arrays are reachable only through const pointers, and any change to the struct's fields
 * shows as a mismatch. */
typedef gjk_polytope_header polytope_header;

#define GJK_POLYTOPE_PAD 8
_Static_assert(sizeof(polytope_header) <= GJK_POLYTOPE_HEADER_BYTES &&
                   GJK_POLYTOPE_HEADER_BYTES % GJK_POLYTOPE_ALIGN == 0,
               "the header fits its aligned slot");

/* The fields of an owned polytope still describe the block it was created in. The
 * adjacency may be dropped (adj_start = NULL) but not replaced. */
static bool owned_layout_matches(const gjk_polytope *p)
{
    const polytope_header *h = p->storage;
    const unsigned char *arrays = (const unsigned char *)p->storage + GJK_POLYTOPE_HEADER_BYTES;
    size_t coord = (size_t)h->padded_count * sizeof(double);
    if (h->magic != GJK_POLYTOPE_MAGIC || h->count != p->count ||
        h->padded_count != p->padded_count || h->radius != p->radius ||
        (const unsigned char *)p->x != arrays || (const unsigned char *)p->y != arrays + coord ||
        (const unsigned char *)p->z != arrays + 2 * coord) {
        return false;
    }
    if (p->adj_start == NULL) {
        return true;
    }
    const unsigned char *start = arrays + 3 * coord;
    const unsigned char *adj = start + (size_t)(p->count + 1) * sizeof(int32_t);
    return h->adj_count >= 0 && (const unsigned char *)p->adj_start == start &&
           (h->adj_count == 0 || (const unsigned char *)p->adj == adj);
}

static gjk_status polytope_validate(const gjk_polytope *p)
{
    if (p == NULL || p->x == NULL || p->y == NULL || p->z == NULL || p->count < 1 ||
        p->padded_count < p->count || !is_size(p->radius)) {
        return GJK_STATUS_INVALID_INPUT;
    }
    if (p->storage != NULL) {
        return owned_layout_matches(p) ? GJK_STATUS_SEPARATED : GJK_STATUS_INVALID_INPUT;
    }
    /* Borrowed: scan. |c| <= GJK_MAX_LENGTH is false for NaN, +-Inf and huge values; the radius must
     * bound every vertex (it feeds bounding spheres and the broad phase), with a few ulps
     * of slack for the rounding of |v|^2. Branch-free so the loop stays cheap. */
    bool finite = true;
    double max_sq = 0.0;
    for (int32_t i = 0; i < p->count; ++i) {
        double x = p->x[i], y = p->y[i], z = p->z[i];
        finite &= (fabs(x) <= GJK_MAX_LENGTH) & (fabs(y) <= GJK_MAX_LENGTH) &
                  (fabs(z) <= GJK_MAX_LENGTH);
        double sq = x * x + y * y + z * z;
        max_sq = sq > max_sq ? sq : max_sq;
    }
    if (!finite || !(max_sq <= p->radius * p->radius * (1.0 + 1e-15))) {
        return GJK_STATUS_INVALID_INPUT;
    }
    /* Padding must repeat the last vertex: vectorised support loops read it. */
    gjk_vec3 last = polytope_vertex(p, p->count - 1);
    for (int32_t i = p->count; i < p->padded_count; ++i) {
        if (p->x[i] != last.x || p->y[i] != last.y || p->z[i] != last.z) {
            return GJK_STATUS_INVALID_INPUT;
        }
    }
    if (p->adj_start != NULL && !adjacency_is_sane(p->adj_start, p->adj, p->count)) {
        return GJK_STATUS_INVALID_INPUT;
    }
    return GJK_STATUS_SEPARATED;
}

gjk_status gjk_shape_validate(const gjk_shape *shape)
{
    if (shape == NULL || !is_size(shape->margin)) {
        return GJK_STATUS_INVALID_INPUT;
    }
    bool ok;
    switch (shape->kind) {
    case GJK_SHAPE_POINT:
        ok = true;
        break;
    case GJK_SHAPE_SPHERE:
        ok = is_size(shape->radius);
        break;
    case GJK_SHAPE_CAPSULE:
    case GJK_SHAPE_CYLINDER:
    case GJK_SHAPE_CONE:
        ok = is_size(shape->radius) && is_size(shape->half_height);
        break;
    case GJK_SHAPE_BOX:
        ok = is_size(shape->half_extents.x) && is_size(shape->half_extents.y) &&
             is_size(shape->half_extents.z);
        break;
    case GJK_SHAPE_ELLIPSOID:
        ok = is_positive_size(shape->radii.x) && is_positive_size(shape->radii.y) &&
             is_positive_size(shape->radii.z);
        break;
    case GJK_SHAPE_POLYTOPE:
        return polytope_validate(shape->polytope);
    default:
        ok = false;
        break;
    }
    return ok ? GJK_STATUS_SEPARATED : GJK_STATUS_INVALID_INPUT;
}

/* ------------------------------------------------------------------ support map */

/* d / |d|, computed after scaling by the largest component so that tiny or huge
 * directions neither underflow nor overflow; zero (or non-finite) d gives zero. */
static gjk_vec3 unit_direction(gjk_vec3 d)
{
    double m = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)));
    if (!(m > 0.0) || !isfinite(m)) {
        return gjk_v3(0.0, 0.0, 0.0);
    }
    return gjk_normalize(gjk_scale(d, 1.0 / m));
}

/* (dx, dy) / |(dx, dy)| * r, robust like unit_direction; zero for a zero radial part. */
static void radial_point(double dx, double dy, double r, double *px, double *py)
{
    double m = fmax(fabs(dx), fabs(dy));
    if (!(m > 0.0) || !isfinite(m)) {
        *px = 0.0;
        *py = 0.0;
        return;
    }
    double ux = dx / m, uy = dy / m;
    double s = r / sqrt(ux * ux + uy * uy);
    *px = ux * s;
    *py = uy * s;
}

static double sign_extent(double d, double h)
{
    return d < 0.0 ? -h : h;
}

static double max3(double a, double b, double c)
{
    return fmax(a, fmax(b, c));
}

/* D^2 n / |D n| for a unit n, D = diag(r): u = D n is scaled by its largest component before
 * it is squared, so no radius in (0, GJK_MAX_LENGTH] underflows or overflows. Zero n gives the
 * centre. */
static gjk_vec3 ellipsoid_point(gjk_vec3 r, gjk_vec3 n)
{
    gjk_vec3 u = gjk_v3(r.x * n.x, r.y * n.y, r.z * n.z);
    double m = max3(fabs(u.x), fabs(u.y), fabs(u.z));
    if (!(m > 0.0)) {
        return gjk_v3(0.0, 0.0, 0.0);
    }
    u = gjk_scale(u, 1.0 / m);
    double k = 1.0 / gjk_length(u);
    return gjk_v3(r.x * u.x * k, r.y * u.y * k, r.z * u.z * k);
}

/* Vertex of largest dot with d; strict comparison keeps the lowest index on ties. */
static gjk_vec3 polytope_support(const gjk_polytope *p, gjk_vec3 d)
{
    int32_t best = 0;
    double best_dot = p->x[0] * d.x + p->y[0] * d.y + p->z[0] * d.z;
    for (int32_t i = 1; i < p->count; ++i) {
        double s = p->x[i] * d.x + p->y[i] * d.y + p->z[i] * d.z;
        if (s > best_dot) {
            best_dot = s;
            best = i;
        }
    }
    return polytope_vertex(p, best);
}

gjk_vec3 gjk_shape_support(const gjk_shape *shape, gjk_vec3 dir)
{
    GJK_ASSERT(shape != NULL);
    gjk_vec3 n = unit_direction(dir);
    gjk_vec3 core = gjk_v3(0.0, 0.0, 0.0);
    double round = shape->margin; /* radius of the ball summed onto the core */

    switch (shape->kind) {
    case GJK_SHAPE_POINT:
        break;
    case GJK_SHAPE_SPHERE:
        round += shape->radius;
        break;
    case GJK_SHAPE_CAPSULE:
        core.z = sign_extent(n.z, shape->half_height);
        round += shape->radius;
        break;
    case GJK_SHAPE_BOX:
        core =
            gjk_v3(sign_extent(n.x, shape->half_extents.x), sign_extent(n.y, shape->half_extents.y),
                   sign_extent(n.z, shape->half_extents.z));
        break;
    case GJK_SHAPE_CYLINDER:
        radial_point(n.x, n.y, shape->radius, &core.x, &core.y);
        core.z = sign_extent(n.z, shape->half_height);
        break;
    case GJK_SHAPE_CONE: {
        /* Apex (0, 0, h) against the base rim point (r u, -h), u the radial unit of n. */
        double rx, ry;
        radial_point(n.x, n.y, shape->radius, &rx, &ry);
        double h = shape->half_height;
        gjk_vec3 rim = gjk_v3(rx, ry, -h);
        if (gjk_dot(rim, n) > h * n.z) {
            core = rim;
        } else {
            core.z = h;
        }
        break;
    }
    case GJK_SHAPE_ELLIPSOID:
        core = ellipsoid_point(shape->radii, n);
        break;
    case GJK_SHAPE_POLYTOPE:
        GJK_ASSERT(shape->polytope != NULL && shape->polytope->count >= 1);
        core = polytope_support(shape->polytope, n);
        break;
    default:
        GJK_ASSERT(false && "unknown shape kind");
        break;
    }
    return gjk_madd(core, round, n);
}

/* ------------------------------------------------------------------ bounding volumes */

double gjk_shape_bounding_radius(const gjk_shape *shape)
{
    GJK_ASSERT(shape != NULL);
    double m = shape->margin;
    switch (shape->kind) {
    case GJK_SHAPE_POINT:
        return m;
    case GJK_SHAPE_SPHERE:
        return shape->radius + m;
    case GJK_SHAPE_CAPSULE:
        return shape->half_height + shape->radius + m;
    case GJK_SHAPE_BOX:
        return gjk_length(shape->half_extents) + m;
    case GJK_SHAPE_CYLINDER:
    case GJK_SHAPE_CONE: /* the base rim is at least as far as the apex */
        return hypot(shape->radius, shape->half_height) + m;
    case GJK_SHAPE_ELLIPSOID:
        return max3(shape->radii.x, shape->radii.y, shape->radii.z) + m;
    case GJK_SHAPE_POLYTOPE:
        GJK_ASSERT(shape->polytope != NULL);
        return shape->polytope->radius + m;
    default:
        GJK_ASSERT(false && "unknown shape kind");
        return 0.0;
    }
}

static double vec3_get(gjk_vec3 v, int i)
{
    return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

/* Half-width along world axis i of the ellipsoid R diag(radii) (unit ball): its support value
 * along e_i, |diag(radii) R^T e_i| = |(R_i0 a, R_i1 b, R_i2 c)|, scaled by the largest radius
 * so that tiny radii do not underflow when squared. */
static double ellipsoid_extent(const gjk_mat3 *r, int i, gjk_vec3 radii)
{
    double s = max3(radii.x, radii.y, radii.z);
    double k = 1.0 / s;
    gjk_vec3 u =
        gjk_v3(r->m[i][0] * (radii.x * k), r->m[i][1] * (radii.y * k), r->m[i][2] * (radii.z * k));
    return s * gjk_length(u);
}

/* Half-width along world axis i of a disk of radius r whose normal is the unit axis a:
 * r * sqrt(1 - a_i^2), written as the other two components for accuracy. */
static double disk_extent(gjk_vec3 a, int i, double r)
{
    double ax = vec3_get(a, (i + 1) % 3), ay = vec3_get(a, (i + 2) % 3);
    return r * sqrt(ax * ax + ay * ay);
}

/* Extent of the rotated vertices along each world axis: the supports along +-e_i, exact.
 * One pass over the coordinate arrays; plain comparisons (no fmin/fmax calls) keep the
 * loop cheap, about 1-2 ns per vertex. */
static void polytope_extent(const gjk_polytope *p, const gjk_mat3 *r, double lo[3], double hi[3])
{
    GJK_ASSERT(p != NULL && p->count >= 1);
    const double *px = p->x, *py = p->y, *pz = p->z;
    double r00 = r->m[0][0], r01 = r->m[0][1], r02 = r->m[0][2];
    double r10 = r->m[1][0], r11 = r->m[1][1], r12 = r->m[1][2];
    double r20 = r->m[2][0], r21 = r->m[2][1], r22 = r->m[2][2];
    double lo0 = HUGE_VAL, lo1 = HUGE_VAL, lo2 = HUGE_VAL;
    double hi0 = -HUGE_VAL, hi1 = -HUGE_VAL, hi2 = -HUGE_VAL;
    for (int32_t k = 0; k < p->count; ++k) {
        double x = px[k], y = py[k], z = pz[k];
        double w0 = r00 * x + r01 * y + r02 * z;
        double w1 = r10 * x + r11 * y + r12 * z;
        double w2 = r20 * x + r21 * y + r22 * z;
        lo0 = w0 < lo0 ? w0 : lo0;
        hi0 = w0 > hi0 ? w0 : hi0;
        lo1 = w1 < lo1 ? w1 : lo1;
        hi1 = w1 > hi1 ? w1 : hi1;
        lo2 = w2 < lo2 ? w2 : lo2;
        hi2 = w2 > hi2 ? w2 : hi2;
    }
    lo[0] = lo0;
    lo[1] = lo1;
    lo[2] = lo2;
    hi[0] = hi0;
    hi[1] = hi1;
    hi[2] = hi2;
}

void gjk_shape_aabb(const gjk_shape *shape, gjk_transform pose, gjk_vec3 *lower, gjk_vec3 *upper)
{
    GJK_ASSERT(shape != NULL && lower != NULL && upper != NULL);
    gjk_mat3 r = gjk_mat3_from_quat(gjk_quat_normalize(pose.q));
    gjk_vec3 axis = gjk_v3(r.m[0][2], r.m[1][2], r.m[2][2]); /* local z in the world */
    double lo[3], hi[3];                                     /* offsets from pose.p */
    double m = shape->margin;

    switch (shape->kind) {
    case GJK_SHAPE_POLYTOPE:
        polytope_extent(shape->polytope, &r, lo, hi);
        break;
    case GJK_SHAPE_CONE:
        /* Apex h a against the base disk centred at -h a. */
        for (int i = 0; i < 3; ++i) {
            double apex = shape->half_height * vec3_get(axis, i);
            double disk = disk_extent(axis, i, shape->radius);
            lo[i] = fmin(apex, -apex - disk);
            hi[i] = fmax(apex, -apex + disk);
        }
        break;
    default: {
        /* Centrally symmetric shapes: half-width e_i along each world axis. */
        for (int i = 0; i < 3; ++i) {
            double e = 0.0, ai = fabs(vec3_get(axis, i));
            switch (shape->kind) {
            case GJK_SHAPE_SPHERE:
                e = shape->radius;
                break;
            case GJK_SHAPE_CAPSULE:
                e = shape->half_height * ai + shape->radius;
                break;
            case GJK_SHAPE_BOX:
                e = fabs(r.m[i][0]) * shape->half_extents.x +
                    fabs(r.m[i][1]) * shape->half_extents.y +
                    fabs(r.m[i][2]) * shape->half_extents.z;
                break;
            case GJK_SHAPE_CYLINDER:
                e = shape->half_height * ai + disk_extent(axis, i, shape->radius);
                break;
            case GJK_SHAPE_ELLIPSOID:
                e = ellipsoid_extent(&r, i, shape->radii);
                break;
            case GJK_SHAPE_POINT:
                break;
            default:
                GJK_ASSERT(false && "unknown shape kind");
                break;
            }
            lo[i] = -e;
            hi[i] = e;
        }
        break;
    }
    }
    *lower = gjk_v3(pose.p.x + lo[0] - m, pose.p.y + lo[1] - m, pose.p.z + lo[2] - m);
    *upper = gjk_v3(pose.p.x + hi[0] + m, pose.p.y + hi[1] + m, pose.p.z + hi[2] + m);
}

/* ------------------------------------------------------------------ owned polytopes */

/* The hill-climbing starts of the header (internal.h): 26 directions, O(26 n) once. */
static void fill_start_table(polytope_header *h, const gjk_vec3 *points, int32_t count)
{
    for (int32_t k = 0; k < 27; ++k) {
        gjk_vec3 u = gjk_v3((double)(k / 9 - 1), (double)(k / 3 % 3 - 1), (double)(k % 3 - 1));
        int32_t best = 0;
        double best_dot = gjk_dot(points[0], u);
        for (int32_t i = 1; i < count; ++i) {
            double s = gjk_dot(points[i], u);
            if (s > best_dot) {
                best_dot = s;
                best = i;
            }
        }
        h->start[k] = best;
    }
}

gjk_status gjk_polytope_create(gjk_polytope *out, const gjk_vec3 *points, int32_t count,
                               const int32_t *adj_start, const int32_t *adj)
{
    GJK_ASSERT(out != NULL);
    memset(out, 0, sizeof *out);
    if (points == NULL || count < 1 || count > INT32_MAX - GJK_POLYTOPE_PAD) {
        return GJK_STATUS_INVALID_INPUT;
    }
    /* Finite points with a finite |p| (|p|^2 overflows above about 1.3e154): the radius
     * must be finite, or every later bound and tolerance derived from it is infinite (as
     * gjk_hull_build refuses). */
    double radius = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        double length = gjk_length(points[i]);
        if (!gjk_vec3_is_finite(points[i]) || !isfinite(length)) {
            return GJK_STATUS_INVALID_INPUT;
        }
        radius = fmax(radius, length);
    }
    int32_t adj_count = 0;
    if (adj_start != NULL) {
        if (!adjacency_is_sane(adj_start, adj, count)) {
            return GJK_STATUS_INVALID_INPUT;
        }
        adj_count = adj_start[count];
    }

    /* One block: header | x | y | z (each padded to 8, so each starts 64-byte aligned) |
     * adj_start | adj | edge x | edge y | edge z (gjk_polytope_edges, 8-byte aligned). */
    int32_t padded = (count + GJK_POLYTOPE_PAD - 1) / GJK_POLYTOPE_PAD * GJK_POLYTOPE_PAD;
    size_t coord_bytes = (size_t)padded * sizeof(double);
    size_t start_bytes = adj_start != NULL ? (size_t)(count + 1) * sizeof(int32_t) : 0;
    size_t adj_bytes = (size_t)adj_count * sizeof(int32_t);
    size_t edge_offset =
        GJK_POLYTOPE_HEADER_BYTES + 3 * coord_bytes +
        (start_bytes + adj_bytes + sizeof(double) - 1) / sizeof(double) * sizeof(double);
    size_t edge_bytes = 3 * (size_t)adj_count * sizeof(double);
    size_t total = edge_offset + edge_bytes;
    total = (total + GJK_POLYTOPE_ALIGN - 1) / GJK_POLYTOPE_ALIGN * GJK_POLYTOPE_ALIGN;
    unsigned char *block = aligned_alloc(GJK_POLYTOPE_ALIGN, total);
    if (block == NULL) {
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    polytope_header *header = (polytope_header *)(void *)block;
    memset(header, 0, GJK_POLYTOPE_HEADER_BYTES);
    header->magic = GJK_POLYTOPE_MAGIC;
    header->radius = radius;
    header->count = count;
    header->padded_count = padded;
    header->adj_count = adj_start != NULL ? adj_count : -1;
    unsigned char *arrays = block + GJK_POLYTOPE_HEADER_BYTES;
    double *x = (double *)(void *)arrays;
    double *y = (double *)(void *)(arrays + coord_bytes);
    double *z = (double *)(void *)(arrays + 2 * coord_bytes);
    for (int32_t i = 0; i < padded; ++i) {
        gjk_vec3 v = points[i < count ? i : count - 1];
        x[i] = v.x;
        y[i] = v.y;
        z[i] = v.z;
    }
    fill_start_table(header, points, count);
    if (adj_start != NULL) {
        int32_t *start_copy = (int32_t *)(void *)(arrays + 3 * coord_bytes);
        memcpy(start_copy, adj_start, start_bytes);
        out->adj_start = start_copy;
        if (adj_count > 0) {
            int32_t *adj_copy = (int32_t *)(void *)(arrays + 3 * coord_bytes + start_bytes);
            memcpy(adj_copy, adj, adj_bytes);
            out->adj = adj_copy;
            /* The differences hill climbing takes, from the stored coordinates. */
            double *ex = (double *)(void *)(block + edge_offset);
            double *ey = ex + adj_count, *ez = ey + adj_count;
            for (int32_t i = 0; i < count; ++i) {
                for (int32_t k = adj_start[i]; k < adj_start[i + 1]; ++k) {
                    int32_t j = adj[k];
                    ex[k] = x[j] - x[i];
                    ey[k] = y[j] - y[i];
                    ez[k] = z[j] - z[i];
                }
            }
            header->edges = ex;
            header->arrays[0] = x;
            header->arrays[1] = y;
            header->arrays[2] = z;
            header->arrays[3] = start_copy;
            header->arrays[4] = adj_copy;
        }
    }
    out->x = x;
    out->y = y;
    out->z = z;
    out->count = count;
    out->padded_count = padded;
    out->radius = radius;
    out->storage = block;
    return GJK_STATUS_SEPARATED;
}

void gjk_polytope_destroy(gjk_polytope *p)
{
    if (p == NULL) {
        return;
    }
    free(p->storage);
    memset(p, 0, sizeof *p);
}
