/* support.c — support maps of shape cores and of the Minkowski difference.
 *
 * The narrow phase works on cores (internal.h): a sphere is its centre point, a capsule its
 * segment, and their radii join the margins in gjk_core_inflate(). Every other kind is its
 * own core. For a direction d (not necessarily unit, never normalised here) the core
 * supports are
 *   point, sphere  the origin                                  feature 0
 *   capsule        (0, 0, +-h), sign of d.z                    feature 0 = -h, 1 = +h
 *   box            (+-hx, +-hy, +-hz), signs of d              feature = corner sign bits
 *                                                              (bit 0 x, bit 1 y, bit 2 z)
 *   cylinder       cap rim point r (dx, dy) / |(dx, dy)|, z = +-h   no discrete feature
 *   cone           apex (0, 0, h) or the base rim point        apex = feature 0
 *   ellipsoid      D^2 d / |D d|, D = diag(a, b, c)             no discrete feature
 *   polytope       vertex of largest dot                       vertex index
 * A zero component of d counts as positive (sign(0) = +1), the same convention as
 * gjk_shape_support(), so every map is deterministic.
 *
 * Polytopes: a linear scan (SSE2, two vectors of two vertices per step; four independent lanes
 * in plain C elsewhere) or, on hulls with adjacency and at least hill_climb_min_vertices
 * vertices, hill climbing over the vertex graph from a hint (the previous support vertex; without
 * one, the polytope's start table). From such a start a climb checks the five or six
 * neighbours of one or two vertices, which beats scanning even a 12-vertex hull twice (the
 * scan's second pass finds the index); the default threshold is 4 (it was 48 while cold
 * climbs started at vertex 0). Hill climbing moves as soon as a better neighbour turns up
 * (first improvement: ~10% fewer dot products than steepest ascent, and steepest ascent costs
 * 8% more instructions on the trajectory too). On a convex polytope a vertex
 * none of whose neighbours has a larger dot is a global maximum (the polytope lies in the cone
 * of its edges), so hill climbing is exact; a move to an equal neighbour of lower index
 * resolves plateaus (coplanar faces) deterministically. The scan keeps the lowest index on
 * ties; hill climbing a deterministic one for a given hint. */
#include "internal.h"

#include <float.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------ polytopes */

/* Number of entries the four-wide loop may read: padded storage holds copies of the last
 * vertex, which change nothing (the lower original index wins the tie) and spare the tail. */
static int32_t scan_width(const gjk_polytope *p)
{
    int32_t up = (p->count + 3) & ~3;
    return p->padded_count >= up ? up : (p->count & ~3);
}

#if defined(__SSE2__)
/* Linear scan in two passes of two SSE2 vectors of two vertices per step (SSE2 is part of
 * x86-64, so this needs no flag; gcc does not vectorise an arg-max without -ffast-math).
 * The first pass finds the largest dot with max_pd alone; the second recomputes the dots in
 * the same order (bitwise the same values: no contraction without FMA) and stops at the
 * first equal to it, which is the lowest index on ties. Carrying indices through the first
 * pass instead (three blend operations per vector and step) costs more than the second
 * pass, which on average reads half the vertices. */
static inline __m128d dots2(const double *x, const double *y, const double *z, int32_t i,
                            __m128d dx, __m128d dy, __m128d dz)
{
    return _mm_add_pd(
        _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(x + i), dx), _mm_mul_pd(_mm_loadu_pd(y + i), dy)),
        _mm_mul_pd(_mm_loadu_pd(z + i), dz));
}

static int32_t polytope_scan(const gjk_polytope *p, gjk_vec3 d)
{
    const double *x = p->x, *y = p->y, *z = p->z;
    const int32_t n = p->count, n4 = scan_width(p);
    const __m128d dx = _mm_set1_pd(d.x), dy = _mm_set1_pd(d.y), dz = _mm_set1_pd(d.z);
    __m128d best0 = _mm_set1_pd(-HUGE_VAL), best1 = best0;
    __m128d sum0 = _mm_setzero_pd(), sum1 = sum0;
    for (int32_t i = 0; i < n4; i += 4) {
        __m128d s0 = dots2(x, y, z, i, dx, dy, dz), s1 = dots2(x, y, z, i + 2, dx, dy, dz);
        best0 = _mm_max_pd(s0, best0);
        best1 = _mm_max_pd(s1, best1);
        sum0 = _mm_add_pd(sum0, s0);
        sum1 = _mm_add_pd(sum1, s1);
    }
    __m128d b = _mm_max_pd(best0, best1);
    b = _mm_max_pd(b, _mm_unpackhi_pd(b, b));
    double best = _mm_cvtsd_f64(b);
    __m128d sums = _mm_add_pd(sum0, sum1);
    double sum = _mm_cvtsd_f64(_mm_add_pd(sums, _mm_unpackhi_pd(sums, sums)));
    for (int32_t i = n4; i < n; ++i) {
        double s = x[i] * d.x + y[i] * d.y + z[i] * d.z;
        sum += s;
        best = s > best ? s : best;
    }
    /* A non-finite vertex (NaN or infinite) makes the sum non-finite: one add per vertex
     * instead of a test. */
    if (!isfinite(sum) && gjk_vec3_is_finite(d)) {
        return -1;
    }
    const __m128d target = _mm_set1_pd(best);
    for (int32_t i = 0; i < n4; i += 4) {
        int m0 = _mm_movemask_pd(_mm_cmpeq_pd(dots2(x, y, z, i, dx, dy, dz), target));
        int m1 = _mm_movemask_pd(_mm_cmpeq_pd(dots2(x, y, z, i + 2, dx, dy, dz), target));
        int m = m0 | (m1 << 2);
        if (m != 0) {
            int32_t k = (m & 1) ? 0 : (m & 2) ? 1 : (m & 4) ? 2 : 3;
            return i + k < n ? i + k : n - 1; /* padding copies the last vertex */
        }
    }
    for (int32_t i = n4; i < n; ++i) {
        if (x[i] * d.x + y[i] * d.y + z[i] * d.z == best) {
            return i;
        }
    }
    return 0; /* no dot equals the maximum: NaN direction */
}
#else
/* Picks the best of four lanes (lane j holds the best of the vertices i = j mod 4, earliest
 * first): largest dot, lowest index on ties. -1 when the side sum is not finite: a vertex
 * is NaN or infinite (checking the sum costs one add per vertex instead of a test). */
static int32_t best_lane(const double best[4], const int32_t index[4], double sum, int32_t n,
                         gjk_vec3 d)
{
    int32_t b = index[0];
    double bv = best[0];
    for (int32_t j = 1; j < 4; ++j) {
        if (best[j] > bv || (best[j] == bv && index[j] < b)) {
            bv = best[j];
            b = index[j];
        }
    }
    if (!isfinite(sum) && gjk_vec3_is_finite(d)) {
        return -1;
    }
    return b < n ? b : n - 1;
}

/* Linear scan in four independent lanes (no loop-carried dependency between them). */
static int32_t polytope_scan(const gjk_polytope *p, gjk_vec3 d)
{
    const double *x = p->x, *y = p->y, *z = p->z;
    const int32_t n = p->count, n4 = scan_width(p);
    double best[4] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    int32_t index[4] = {0, 0, 0, 0};
    double sum = 0.0;
    int32_t i = 0;
    for (; i < n4; i += 4) {
        for (int32_t j = 0; j < 4; ++j) {
            double s = x[i + j] * d.x + y[i + j] * d.y + z[i + j] * d.z;
            sum += s;
            if (s > best[j]) {
                best[j] = s;
                index[j] = i + j;
            }
        }
    }
    for (; i < n; ++i) {
        double s = x[i] * d.x + y[i] * d.y + z[i] * d.z;
        sum += s;
        if (s > best[i & 3]) {
            best[i & 3] = s;
            index[i & 3] = i;
        }
    }
    return best_lane(best, index, sum, n, d);
}
#endif

/* polytope_climb's answer when it ran out of moves: the caller scans instead. */
#define CLIMB_GAVE_UP (-2)

/* fmax in line (gcc 12 calls libm for fmax): the larger of a and b, the number when one is
 * NaN, as fmax. */
static inline double max_num(double a, double b)
{
    return a > b || b != b ? a : b;
}

/* A component's digit in the start table's index: 2 above m, 0 below -m, else 1. */
static inline int32_t table_digit(double c, double m)
{
    return c > m ? 2 : (c < -m ? 0 : 1);
}

/* Start of a climb without a usable hint: the header's entry for the nearest of the 26
 * directions (each component of d counts when it exceeds tan(22.5 deg) of the largest, the
 * boundary between an axis and a diagonal), vertex 0 for a borrowed polytope. The header is
 * trusted only with its magic and count; an entry out of range is not used. */
static int32_t climb_start(const gjk_polytope *p, gjk_vec3 d)
{
    const gjk_polytope_header *h = p->storage;
    if (h == NULL || h->magic != GJK_POLYTOPE_MAGIC || h->count != p->count) {
        return 0;
    }
    double m = max_num(fabs(d.x), max_num(fabs(d.y), fabs(d.z))) * 0.41421356237309503;
    int32_t k = 9 * table_digit(d.x, m) + 3 * table_digit(d.y, m) + table_digit(d.z, m);
    int32_t i = h->start[k];
    return i >= 0 && i < p->count ? i : 0;
}

/* One neighbour j of the current vertex with g = (x_j - x_cur).d >= 0: true when it improves
 * (first improvement: move on at once), else a tie that may lower *next. A g within the
 * rounding of its own terms (8 eps of their magnitudes: the products, the sum and inexact
 * coordinate differences) is a tie. GJK's directions are face normals, and across a face
 * perpendicular to d the rounded differences can order its vertices in a cycle (v1 < v3 <
 * v2 < v1 by 1e-18 on a 5-vertex hull, fuzz_gjk): first improvement walked it until the move
 * bound and returned a vertex 0.023 short, never reaching the neighbour beyond the face. Ties
 * go by the plateau rule (lower index), which cannot cycle. Called only for g >= 0, about
 * once per move. */
static inline bool climb_step(double g, double ex, double ey, double ez, gjk_vec3 d, int32_t j,
                              int32_t *next)
{
    if (g > 8.0 * DBL_EPSILON * (fabs(ex * d.x) + fabs(ey * d.y) + fabs(ez * d.z))) {
        *next = j;
        return true;
    }
    if (j < *next) {
        *next = j;
    }
    return false;
}

/* Neighbours are compared by (x_j - x_cur) . d, not by their absolute dots: far from the
 * polytope's origin the absolute dots of nearby vertices round to the same value (or the
 * wrong order) although their difference along d is large next to the rounding of the
 * difference itself (coordinate differences of nearby vertices are exact by Sterbenz). A
 * neighbour with a positive difference is taken at once (first improvement); one with a
 * zero difference and a lower index only when no neighbour is better (plateaus). */
static int32_t polytope_climb(const gjk_polytope *p, gjk_vec3 d, uint32_t hint)
{
    const double *x = p->x, *y = p->y, *z = p->z;
    const int32_t *start = p->adj_start, *adj = p->adj;
    int32_t n = p->count;
    int32_t cur = hint < (uint32_t)n ? (int32_t)hint : climb_start(p, d);
    /* In exact arithmetic each move strictly increases (dot, -index), so there are fewer
     * than n moves; the bound guards against a corrupted graph and rounding cycles the tie
     * rule below does not prevent, and running out of it hands over to the scan
     * (CLIMB_GAVE_UP): along a face's normal its vertices tie, the rounded differences are
     * not transitive, and first improvement cycled round the face (v0 -> v1 -> v2 -> v0)
     * past the better v3 until the bound stopped it there (test_fuzz_regressions:
     * climb_cycles_round_a_face, climb_rounding_cycle). */
    for (int32_t moves = 0; moves < 2 * n; ++moves) {
        const double cx = x[cur], cy = y[cur], cz = z[cur];
        int32_t next = cur;
        for (int32_t k = start[cur]; k < start[cur + 1]; ++k) {
            int32_t j = adj[k];
            if ((uint32_t)j >= (uint32_t)n) {
                continue;
            }
            const double ex = x[j] - cx, ey = y[j] - cy, ez = z[j] - cz;
            double g = ex * d.x + ey * d.y + ez * d.z;
            /* Most neighbours are worse: one test settles them. */
            if (g >= 0.0 && climb_step(g, ex, ey, ez, d, j, &next)) {
                break;
            }
        }
        if (next == cur) {
            return cur;
        }
        cur = next;
    }
    return CLIMB_GAVE_UP;
}

/* polytope_climb over the stored edge vectors (gjk_polytope_edges): the same differences,
 * so the same moves, without gathering the neighbours' coordinates; a neighbour's index is
 * read, and range-checked, only for the rare g >= 0. In line in the support map (the
 * coordinate climb above stays out of line so that this one fits). */
static inline int32_t polytope_climb_edges(const gjk_polytope *p, const gjk_polytope_edges *e,
                                           gjk_vec3 d, uint32_t hint)
{
    const double *gx = e->x, *gy = e->y, *gz = e->z;
    const int32_t *start = p->adj_start, *adj = p->adj;
    int32_t n = p->count;
    int32_t cur = hint < (uint32_t)n ? (int32_t)hint : climb_start(p, d);
    for (int32_t moves = 0; moves < 2 * n; ++moves) {
        int32_t next = cur;
        const int32_t end = start[cur + 1];
        for (int32_t k = start[cur]; k < end; ++k) {
            const double ex = gx[k], ey = gy[k], ez = gz[k];
            double g = ex * d.x + ey * d.y + ez * d.z;
            if (g >= 0.0 && (uint32_t)adj[k] < (uint32_t)n &&
                climb_step(g, ex, ey, ez, d, adj[k], &next)) {
                break;
            }
        }
        if (next == cur) {
            return cur;
        }
        cur = next;
    }
    return CLIMB_GAVE_UP;
}

/* ------------------------------------------------------------------ cores */

/* r (dx, dy) / |(dx, dy)|, scaled first so tiny or huge d neither underflows nor
 * overflows; false when the radial part is zero (d along the axis). */
static bool rim_point(double dx, double dy, double r, double *px, double *py)
{
    double m = fmax(fabs(dx), fabs(dy));
    if (!(m > 0.0) || !isfinite(m)) {
        return false;
    }
    double ux = dx / m, uy = dy / m;
    double s = r / sqrt(ux * ux + uy * uy);
    *px = ux * s;
    *py = uy * s;
    return true;
}

/* The ellipsoid's point whose outer normal is d: s(d) = D^2 d / |D d|, D = diag(r), the
 * maximiser of dot(x, d) over (x/a)^2 + (y/b)^2 + (z/c)^2 <= 1 (its support value is |D d|).
 * d is scaled by its largest component and D d by its own before anything is squared, so
 * neither underflows nor overflows for radii in (0, GJK_MAX_LENGTH] and any finite d (a flat
 * ellipsoid with radii 1e-300 and 1e12 included). A zero or non-finite d gives the centre,
 * as a sphere's core. */
static inline gjk_vec3 ellipsoid_support(gjk_vec3 r, gjk_vec3 d)
{
    const double ax = fabs(d.x), ay = fabs(d.y), az = fabs(d.z);
    if (!isfinite(ax + ay + az) || !(ax + ay + az > 0.0)) {
        return gjk_v3(0.0, 0.0, 0.0);
    }
    double k = 1.0 / max_num(ax, max_num(ay, az));
    double ux = r.x * (d.x * k), uy = r.y * (d.y * k), uz = r.z * (d.z * k);
    /* The largest |u_i| is at least min(r) > 0: the component of d equal to the largest gives
     * r_i. */
    double l = 1.0 / max_num(fabs(ux), max_num(fabs(uy), fabs(uz)));
    ux *= l;
    uy *= l;
    uz *= l;
    double t = 1.0 / sqrt(ux * ux + uy * uy + uz * uz);
    return gjk_v3(r.x * (ux * t), r.y * (uy * t), r.z * (uz * t));
}

/* Support vertex of a polytope: hill climbing or the scan; NaN on a non-finite vertex. */
static inline gjk_vec3 polytope_support(const gjk_polytope *p, const gjk_polytope_edges *e,
                                        gjk_vec3 d, bool hill, uint32_t hint, uint32_t *index)
{
    int32_t i = CLIMB_GAVE_UP;
    if (hill && p->adj_start != NULL) {
        i = e != NULL && e->x != NULL ? polytope_climb_edges(p, e, d, hint)
                                      : polytope_climb(p, d, hint);
    }
    if (i == CLIMB_GAVE_UP) {
        i = polytope_scan(p, d);
    }
    if (i < 0) {
        *index = GJK_CACHE_NO_INDEX;
        return gjk_v3((double)NAN, (double)NAN,
                      (double)NAN); /* non-finite vertex: the query reports it */
    }
    *index = (uint32_t)i;
    return gjk_v3(p->x[i], p->y[i], p->z[i]);
}

gjk_vec3 gjk_core_support(const gjk_shape *shape, gjk_vec3 d, bool hill, uint32_t hint,
                          uint32_t *index)
{
    switch (shape->kind) {
    case GJK_SHAPE_POLYTOPE:
        return polytope_support(shape->polytope, NULL, d, hill, hint, index);
    case GJK_SHAPE_BOX: {
        gjk_vec3 h = shape->half_extents;
        uint32_t bits = (d.x < 0.0 ? 0u : 1u) | (d.y < 0.0 ? 0u : 2u) | (d.z < 0.0 ? 0u : 4u);
        *index = bits;
        return gjk_v3(d.x < 0.0 ? -h.x : h.x, d.y < 0.0 ? -h.y : h.y, d.z < 0.0 ? -h.z : h.z);
    }
    case GJK_SHAPE_CAPSULE:
        *index = d.z < 0.0 ? 0u : 1u;
        return gjk_v3(0.0, 0.0, d.z < 0.0 ? -shape->half_height : shape->half_height);
    case GJK_SHAPE_CYLINDER: {
        gjk_vec3 s = gjk_v3(0.0, 0.0, d.z < 0.0 ? -shape->half_height : shape->half_height);
        (void)rim_point(d.x, d.y, shape->radius, &s.x, &s.y);
        *index = GJK_CACHE_NO_INDEX;
        return s;
    }
    case GJK_SHAPE_CONE: {
        double h = shape->half_height;
        gjk_vec3 rim = gjk_v3(0.0, 0.0, -h);
        (void)rim_point(d.x, d.y, shape->radius, &rim.x, &rim.y);
        /* Apex wins ties: it is a discrete feature (cacheable). */
        if (gjk_dot(rim, d) > h * d.z) {
            *index = GJK_CACHE_NO_INDEX;
            return rim;
        }
        *index = 0;
        return gjk_v3(0.0, 0.0, h);
    }
    case GJK_SHAPE_ELLIPSOID:
        *index = GJK_CACHE_NO_INDEX;
        return ellipsoid_support(shape->radii, d);
    case GJK_SHAPE_POINT:
    case GJK_SHAPE_SPHERE:
    default:
        *index = 0;
        return gjk_v3(0.0, 0.0, 0.0);
    }
}

/* ------------------------------------------------------------------ cache keys of rim points */

/* A rim point (cylinder caps, cone base) has no discrete feature, but its direction from the
 * axis does: the key stores it as a pseudo-angle, the "diamond angle" p in [0, 4) of
 * (x, y) / (|x| + |y|), which grows with the angle like it and needs one division to encode
 * and one square root to decode (no trigonometry), quantised to 30 bits (steps below 7.4e-9
 * rad). Bit 31 marks a rim key (polytope indices stay below 2^31, the other features are
 * small); bit 30 is a cylinder's cap (+h). A key decodes to a point on the rim whatever its
 * bits, so a stale or foreign key only costs speed. */
#define RIM_KEY_CAP 0x40000000u
#define RIM_KEY_STEPS 1073741824.0 /* 2^30 */
#define RIM_KEY_MAX 0x3FFFFFFEu    /* keeps every key below GJK_CACHE_NO_INDEX */

static double diamond_angle(double x, double y)
{
    double s = fabs(x) + fabs(y);
    if (!(s > 0.0) || !isfinite(s)) {
        return 0.0;
    }
    x /= s;
    y /= s;
    if (y >= 0.0) {
        return x >= 0.0 ? y : 1.0 - x;
    }
    return x < 0.0 ? 2.0 - y : 3.0 + x;
}

static uint32_t rim_key(double x, double y, bool cap)
{
    double q = diamond_angle(x, y) * (0.25 * RIM_KEY_STEPS);
    uint32_t steps = q < (double)RIM_KEY_MAX ? (uint32_t)q : RIM_KEY_MAX;
    return GJK_RIM_KEY | (cap ? RIM_KEY_CAP : 0u) | steps;
}

/* The point at radius r on the rim whose key is `key` (z left to the caller). */
static void rim_point_of_key(uint32_t key, double r, double *px, double *py)
{
    double p = (double)(key & (RIM_KEY_CAP - 1u)) * (4.0 / RIM_KEY_STEPS);
    double x, y;
    if (p < 1.0) {
        x = 1.0 - p;
        y = p;
    } else if (p < 2.0) {
        x = 1.0 - p;
        y = 2.0 - p;
    } else if (p < 3.0) {
        x = p - 3.0;
        y = 2.0 - p;
    } else {
        x = p - 3.0;
        y = p - 4.0;
    }
    double s = r / sqrt(x * x + y * y); /* |x| + |y| = 1: no underflow, no zero */
    *px = x * s;
    *py = y * s;
}

uint32_t gjk_core_key(const gjk_shape *shape, gjk_vec3 point)
{
    switch (shape->kind) {
    case GJK_SHAPE_CYLINDER:
        return rim_key(point.x, point.y, !(point.z < 0.0));
    case GJK_SHAPE_CONE:
        return rim_key(point.x, point.y, false);
    default:
        return GJK_CACHE_NO_INDEX;
    }
}

bool gjk_core_point(const gjk_shape *shape, uint32_t index, gjk_vec3 *point)
{
    switch (shape->kind) {
    case GJK_SHAPE_POINT:
    case GJK_SHAPE_SPHERE:
        if (index != 0) {
            return false;
        }
        *point = gjk_v3(0.0, 0.0, 0.0);
        return true;
    case GJK_SHAPE_CAPSULE:
        if (index > 1) {
            return false;
        }
        *point = gjk_v3(0.0, 0.0, index == 0 ? -shape->half_height : shape->half_height);
        return true;
    case GJK_SHAPE_BOX: {
        if (index > 7) {
            return false;
        }
        gjk_vec3 h = shape->half_extents;
        *point = gjk_v3(index & 1u ? h.x : -h.x, index & 2u ? h.y : -h.y, index & 4u ? h.z : -h.z);
        return true;
    }
    case GJK_SHAPE_CONE:
        if (gjk_is_rim_key(index)) {
            *point = gjk_v3(0.0, 0.0, -shape->half_height);
            rim_point_of_key(index, shape->radius, &point->x, &point->y);
            return true;
        }
        if (index != 0) {
            return false;
        }
        *point = gjk_v3(0.0, 0.0, shape->half_height);
        return true;
    case GJK_SHAPE_POLYTOPE: {
        const gjk_polytope *p = shape->polytope;
        if (p == NULL || index >= (uint32_t)p->count) {
            return false;
        }
        *point = gjk_v3(p->x[index], p->y[index], p->z[index]);
        return true;
    }
    case GJK_SHAPE_CYLINDER:
        if (!gjk_is_rim_key(index)) {
            return false;
        }
        *point = gjk_v3(0.0, 0.0, index & RIM_KEY_CAP ? shape->half_height : -shape->half_height);
        rim_point_of_key(index, shape->radius, &point->x, &point->y);
        return true;
    default:
        return false;
    }
}

/* The general case of gjk_pair_support, out of line: any kinds, scans, borrowed polytopes. */
static GJK_NOINLINE void pair_support_general(const gjk_pair_frame *f, gjk_vec3 d, uint32_t hint_a,
                                              uint32_t hint_b, gjk_vertex *out)
{
    /* Polytopes straight to their support map; the other kinds through the switch. */
    out->a = f->a->kind == GJK_SHAPE_POLYTOPE
                 ? polytope_support(f->a->polytope, &f->edges_a, d, f->hill_a, hint_a, &out->ia)
                 : gjk_core_support(f->a, d, f->hill_a, hint_a, &out->ia);
    /* sB(-d) in B's frame: -R^T d, then back into A's frame. */
    gjk_vec3 db = gjk_neg(gjk_mat3_tmul_vec(&f->rot_b, d));
    gjk_vec3 bl =
        f->b->kind == GJK_SHAPE_POLYTOPE
            ? polytope_support(f->b->polytope, &f->edges_b, db, f->hill_b, hint_b, &out->ib)
            : gjk_core_support(f->b, db, f->hill_b, hint_b, &out->ib);
    out->b = gjk_add(gjk_mat3_mul_vec(&f->rot_b, bl), f->pos_b);
    out->w = gjk_sub(out->a, out->b);
}

/* A vertex of an owned polytope by hill climbing on its stored edges; the scan when the climb
 * gives up (out of line: rare). */
static GJK_NOINLINE gjk_vec3 scan_support(const gjk_polytope *p, gjk_vec3 d, uint32_t *index)
{
    return polytope_support(p, NULL, d, false, 0, index);
}

static inline gjk_vec3 climb_support(const gjk_polytope *p, const gjk_polytope_edges *e, gjk_vec3 d,
                                     uint32_t hint, uint32_t *index)
{
    int32_t i = polytope_climb_edges(p, e, d, hint);
    if (i == CLIMB_GAVE_UP) {
        return scan_support(p, d, index);
    }
    *index = (uint32_t)i;
    return gjk_v3(p->x[i], p->y[i], p->z[i]);
}

void gjk_pair_support(const gjk_pair_frame *f, gjk_vec3 d, uint32_t hint_a, uint32_t hint_b,
                      gjk_vertex *out)
{
    if (!f->climb_both) {
        pair_support_general(f, d, hint_a, hint_b, out);
        return;
    }
    out->a = climb_support(f->a->polytope, &f->edges_a, d, hint_a, &out->ia);
    gjk_vec3 db = gjk_neg(gjk_mat3_tmul_vec(&f->rot_b, d));
    gjk_vec3 bl = climb_support(f->b->polytope, &f->edges_b, db, hint_b, &out->ib);
    out->b = gjk_add(gjk_mat3_mul_vec(&f->rot_b, bl), f->pos_b);
    out->w = gjk_sub(out->a, out->b);
}
