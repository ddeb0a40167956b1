/* gjk.c — GJK distance between two convex cores (Gilbert, Johnson & Keerthi 1988).
 *
 * GJK builds simplices of support points of the Minkowski difference D = A - B (pair-local
 * frame) and moves the point v of the current simplex nearest the origin towards the point
 * of D nearest the origin. Every iteration gives certified bounds on the distance d:
 *     v.w / |v|  <=  d  <=  |v|,        w = s_D(-v)   (the support point minimises v.x on D)
 * and GJK stops when the duality gap |v| - v.w/|v| is below max(rel * |v|, abs * scale).
 *
 * Sub-algorithm: the signed-volumes method (Montanari, Petrinic & Barbieri, "Improving the
 * GJK algorithm for faster and more reliable distance queries between convex objects",
 * ACM TOG 36(3), 2017), written from the paper's maths. For a simplex of k+1 points the
 * barycentric coordinates of the origin's projection onto its affine hull are ratios of
 * signed volumes: lambda_i = C_i / mu, where mu is the signed volume (length, area,
 * volume) of the simplex and C_i that of the simplex with vertex i replaced by the
 * projected origin. Areas are measured in the coordinate plane where the triangle's
 * projection is largest, which keeps the ratios well conditioned. If every C_i has the sign
 * of mu the projection lies inside and the simplex is kept whole; otherwise the origin's
 * nearest point lies on a facet opposite a vertex whose C_i disagrees, and every such facet
 * is solved recursively and the nearest result kept. Checking every candidate facet (not
 * only the one a Voronoi test picks) is what makes the method robust on nearly degenerate
 * simplices; a simplex with mu = 0 falls through to its facets. (A segment needs no signed
 * lengths: the origin's projection parameter t = -w_i.e / e.e is tested against 0 and 1.)
 *
 * Precision, which the scale cases (1e-3 against 1e3) and near-contact cases demand:
 *  - Edges of D are differences of support points of the same shape, (a_j - a_i) - (b_j - b_i),
 *    never w_j - w_i: the w's carry the rounding of the larger shape's coordinates.
 *  - A triangle is solved from the vertex opposite its longest edge, so its normal is the
 *    cross product of the two shortest edges (a thin triangle of two long, nearly parallel
 *    edges would otherwise tilt it by eps |long| / |short|).
 *  - v is the projected origin n (a.n) / n.n of an interior triangle, not a weighted sum of
 *    vertices: its direction is the accurate normal's, which the next support point and the
 *    reported normal need when |v| is tiny next to |w|. A segment's v is projected twice.
 *  - |v| below the rounding of the simplex's own vertices (two ulps of the largest |w|), or
 *    below abs_tolerance * scale, is contact: it has no reliable length or direction.
 *
 * Protection against cycling in floating point: stop when the new support point is
 * already in the simplex, or when |v| fails to decrease (then the previous, better simplex
 * is kept); an iteration cap bounds the rest. With the gap still open, "fails to decrease"
 * may be a real step whose gain is below the rounding of |v|^2 (a flat face, a support
 * point far to the side): a few such steps are taken (GJK_STALL_STEPS). A cold run that
 * still stops with the gap open above the rounding of the support values reports
 * ITERATION_LIMIT: its bounds are certified, its answer is not converged.
 *
 * Warm start: the cache names the support features of the last simplex. They are turned
 * back into points with gjk_core_point (a stale or foreign index is rejected, never
 * trusted), and the sub-algorithm reduces the rebuilt simplex before the first iteration.
 * Without a usable simplex the cached direction seeds the first support point. */
#include "internal.h"
#include "trace_internal.h"

#include <float.h>

/* GJK's working simplex: up to four vertices of a pool that never move. The simplex names
 * them by slot, in the order the sub-algorithm works on them, so reducing a simplex (or
 * keeping the previous one when an iteration makes no progress) copies a few indices and
 * weights, never the 80-byte vertices with both witness sets. */
typedef struct slot_simplex {
    int32_t count;
    int32_t slot[4];
    double lambda[4];
} slot_simplex;

/* A sub-simplex: slots and barycentric weights, and its point nearest the origin. */
typedef struct sub_simplex {
    slot_simplex s;
    gjk_vec3 v;   /* its point nearest the origin */
    double dist2; /* |v|^2 */
} sub_simplex;

/* max(a, b) without the libm call fmax compiles to (gcc 12 keeps fmax's NaN rules out of
 * line); the arguments here are never NaN. */
static inline double max2(double a, double b)
{
    return a > b ? a : b;
}

static bool same_sign(double a, double b)
{
    return (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0);
}

/* Edge y - x of D, as (ya - xa) - (yb - xb): when one shape is much larger or farther from
 * the pair origin than the other, the w's carry its rounding, while the differences of
 * support points of the same shape are exact for a shared feature and accurate to the
 * feature's own size otherwise. Thin simplices (a long edge of one shape against a short
 * edge of the other) would otherwise get normals off by |w| eps / |short edge|. */
static gjk_vec3 edge(const gjk_vertex *x, const gjk_vertex *y)
{
    return gjk_sub(gjk_sub(y->a, x->a), gjk_sub(y->b, x->b));
}

static void sub_point(const gjk_vertex *x, int32_t i, sub_simplex *out)
{
    out->s.count = 1;
    out->s.slot[0] = i;
    out->s.lambda[0] = 1.0;
    out->v = x[i].w;
    out->dist2 = gjk_length_sq(x[i].w);
}

/* Segment w_i w_j: the origin's projection at w_i + t e, t = -w_i.e / e.e. */
static void sub_segment(const gjk_vertex *x, int32_t i, int32_t j, sub_simplex *out)
{
    gjk_vec3 e = edge(&x[i], &x[j]);
    double ee = gjk_dot(e, e);
    double t = ee > 0.0 ? -gjk_dot(x[i].w, e) / ee : 0.0;
    if (!(t > 0.0)) {
        sub_point(x, i, out);
        return;
    }
    if (t >= 1.0) {
        sub_point(x, j, out);
        return;
    }
    out->s.count = 2;
    out->s.slot[0] = i;
    out->s.slot[1] = j;
    out->s.lambda[0] = 1.0 - t;
    out->s.lambda[1] = t;
    /* v = w_i + t e keeps a component along e of the rounding of w_i, which tilts a tiny v
     * (parallel edges nearly touching) by eps |w_i| / |v|; a second projection removes it,
     * leaving v exactly perpendicular to the accurate edge direction. */
    gjk_vec3 v = gjk_madd(x[i].w, t, e);
    v = gjk_madd(v, -gjk_dot(v, e) / ee, e);
    out->v = v;
    out->dist2 = gjk_length_sq(v);
}

static void keep_nearest(sub_simplex *best, const sub_simplex *candidate)
{
    if (candidate->dist2 < best->dist2) {
        *best = *candidate;
    }
}

static double coord(gjk_vec3 v, int32_t axis)
{
    return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

/* Triangle w_i w_j w_k, everything relative to a base vertex w_b with edges e1, e2 to the
 * two others: q = (origin projected onto the plane) - w_b, and, in the coordinate plane
 * (k1, k2) where the triangle's projection is largest, the signed areas with one vertex
 * replaced by the projected origin are ck = e1 x q, cj = q x e2 and mu - cj - ck, with
 * mu = e1 x e2 = n[axis]. */
static void sub_triangle(const gjk_vertex *x, int32_t i0, int32_t j0, int32_t k0, sub_simplex *out)
{
    /* Base the computation at the vertex opposite the longest edge (a cyclic rotation, so
     * orientation is kept). The normal is then the cross product of the two shortest edges,
     * whose rounding is eps |e1| |e2|: on a long thin triangle (two long nearly parallel
     * edges from a big shape, one short edge from a small one) the long pair would tilt the
     * normal by eps |long| / |short|. */
    gjk_vec3 eij = edge(&x[i0], &x[j0]), eik = edge(&x[i0], &x[k0]), ejk = edge(&x[j0], &x[k0]);
    double lij = gjk_length_sq(eij), lik = gjk_length_sq(eik), ljk = gjk_length_sq(ejk);
    int32_t i = i0, j = j0, k = k0;
    gjk_vec3 e1 = eij, e2 = eik;
    if (lik > ljk && lik >= lij) {
        i = j0; /* longest edge i0 k0: base j0 */
        j = k0;
        k = i0;
        e1 = ejk;
        e2 = gjk_neg(eij);
    } else if (lij > ljk && lij > lik) {
        i = k0; /* longest edge i0 j0: base k0 */
        j = i0;
        k = j0;
        e1 = gjk_neg(eik);
        e2 = gjk_neg(ejk);
    }
    gjk_vec3 a = x[i].w;
    gjk_vec3 n = gjk_cross(e1, e2);
    double nn = gjk_dot(n, n);
    double mu = 0.0, ci = 0.0, cj = 0.0, ck = 0.0;
    if (nn > 0.0) {
        gjk_vec3 p = gjk_scale(n, gjk_dot(a, n) / nn); /* the projected origin */
        gjk_vec3 q = gjk_sub(p, a);
        double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
        int32_t axis = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
        int32_t k1 = axis == 2 ? 0 : axis + 1, k2 = axis == 0 ? 2 : axis - 1;
        double e1u = coord(e1, k1), e1v = coord(e1, k2), e2u = coord(e2, k1), e2v = coord(e2, k2);
        double qu = coord(q, k1), qv = coord(q, k2);
        mu = e1u * e2v - e1v * e2u;
        cj = qu * e2v - qv * e2u;
        ck = e1u * qv - e1v * qu;
        ci = mu - cj - ck;
        if (same_sign(mu, ci) && same_sign(mu, cj) && same_sign(mu, ck)) {
            out->s.count = 3;
            out->s.slot[0] = i;
            out->s.slot[1] = j;
            out->s.slot[2] = k;
            out->s.lambda[1] = cj / mu;
            out->s.lambda[2] = ck / mu;
            out->s.lambda[0] = 1.0 - out->s.lambda[1] - out->s.lambda[2];
            /* v is the projected origin itself, n (a.n) / n.n: its direction is that of
             * the accurate normal, its length |a.n| / |n| is accurate to the rounding of
             * a. Summing weighted vertices instead would tilt v by (rounding of w) / |v|,
             * which near contact is far more than the next support point can tolerate. */
            out->v = p;
            out->dist2 = gjk_length_sq(p);
            return;
        }
    }
    /* Nearest point on the boundary: edges opposite the vertices whose area disagrees
     * (all of them for a degenerate triangle). */
    out->dist2 = HUGE_VAL;
    sub_simplex cand;
    if (!same_sign(mu, ci)) {
        sub_segment(x, j, k, &cand);
        keep_nearest(out, &cand);
    }
    if (!same_sign(mu, cj)) {
        sub_segment(x, i, k, &cand);
        keep_nearest(out, &cand);
    }
    if (!same_sign(mu, ck)) {
        sub_segment(x, i, j, &cand);
        keep_nearest(out, &cand);
    }
}

static double det3(gjk_vec3 a, gjk_vec3 b, gjk_vec3 c)
{
    return gjk_dot(a, gjk_cross(b, c));
}

/* Tetrahedron: with edges e_k = w_k - w_0 (k = 1..3), the origin is w_0 + sum lambda_k e_k
 * where, by Cramer's rule, lambda_k = C_k / mu, mu = det(e1, e2, e3) and C_k the same
 * determinant with e_k replaced by -w_0; C_0 = mu - C_1 - C_2 - C_3. */
static void sub_tetrahedron(const gjk_vertex *x, const int32_t slot[4], sub_simplex *out)
{
    const gjk_vertex *x0 = &x[slot[0]];
    gjk_vec3 e1 = edge(x0, &x[slot[1]]), e2 = edge(x0, &x[slot[2]]), e3 = edge(x0, &x[slot[3]]);
    gjk_vec3 o = gjk_neg(x0->w);
    double mu = det3(e1, e2, e3);
    double c[4];
    c[1] = det3(o, e2, e3);
    c[2] = det3(e1, o, e3);
    c[3] = det3(e1, e2, o);
    c[0] = mu - c[1] - c[2] - c[3];
    if (same_sign(mu, c[0]) && same_sign(mu, c[1]) && same_sign(mu, c[2]) && same_sign(mu, c[3])) {
        out->s.count = 4;
        for (int32_t k = 0; k < 4; ++k) {
            out->s.slot[k] = slot[k];
            out->s.lambda[k] = c[k] / mu;
        }
        out->s.lambda[0] = 1.0 - out->s.lambda[1] - out->s.lambda[2] - out->s.lambda[3];
        out->v = gjk_v3(0.0, 0.0, 0.0);
        out->dist2 = 0.0; /* the origin is inside */
        return;
    }
    static const int32_t face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    out->dist2 = HUGE_VAL;
    sub_simplex cand;
    for (int32_t k = 0; k < 4; ++k) {
        if (!same_sign(mu, c[k])) {
            sub_triangle(x, slot[face[k][0]], slot[face[k][1]], slot[face[k][2]], &cand);
            keep_nearest(out, &cand);
        }
    }
}

/* Writes into *out the sub-simplex of the vertices slot[0..n) of the pool nearest the
 * origin, with weights; returns |v|^2 and v. */
static inline double reduce(const gjk_vertex *pool, const int32_t *slot, int32_t n,
                            slot_simplex *out, gjk_vec3 *v)
{
    sub_simplex r;
    switch (n) {
    case 1:
        sub_point(pool, slot[0], &r);
        break;
    case 2:
        sub_segment(pool, slot[0], slot[1], &r);
        break;
    case 3:
        sub_triangle(pool, slot[0], slot[1], slot[2], &r);
        break;
    default:
        sub_tetrahedron(pool, slot, &r);
        break;
    }
    *out = r.s; /* a fixed-size copy: entries past the count are never read */
    *v = r.v;
    return r.dist2;
}

/* reduce() on s grown by the pool vertex in slot `free` (the new support point). */
static inline double reduce_grown(const gjk_vertex *pool, const slot_simplex *s, int32_t free,
                                  slot_simplex *out, gjk_vec3 *v)
{
    int32_t grown[4] = {s->slot[0], s->slot[1], s->slot[2], free};
    grown[s->count] = free;
    return reduce(pool, grown, s->count + 1, out, v);
}

/* True if x is already a vertex of s: same support features, or (for features without an
 * index, such as a cylinder rim point) the same point. */
static bool in_simplex(const gjk_vertex *pool, const slot_simplex *s, const gjk_vertex *x)
{
    bool indexed = x->ia != GJK_CACHE_NO_INDEX && x->ib != GJK_CACHE_NO_INDEX;
    for (int32_t k = 0; k < s->count; ++k) {
        const gjk_vertex *y = &pool[s->slot[k]];
        if (indexed ? (x->ia == y->ia && x->ib == y->ib)
                    : (y->w.x == x->w.x && y->w.y == x->w.y && y->w.z == x->w.z)) {
            return true;
        }
    }
    return false;
}

/* The pool slot s does not use (s has at most three vertices). */
static int32_t free_slot(const slot_simplex *s)
{
    /* Unrolled on the count (1 to 3): no loop to run for one or two vertices. */
    unsigned used = 1u << s->slot[0];
    if (s->count > 1) {
        used |= 1u << s->slot[1];
        if (s->count > 2) {
            used |= 1u << s->slot[2];
        }
    }
    return (used & 1u) == 0 ? 0 : (used & 2u) == 0 ? 1 : (used & 4u) == 0 ? 2 : 3;
}

/* |v| below this many ulps of the pair's scale is contact to rounding (EPA treats support
 * values within 16 ulps of the scale as zero the same way). */
#define GJK_CONTACT_ULPS 16.0

/* True when |v| (squared: dist2) cannot be told from contact: below the absolute tolerance,
 * or below the rounding of the support points (GJK_CONTACT_ULPS of the pair's scale; B's
 * points carry the rounding of |pos_b| + |b| even where they are near A's origin), which
 * leaves v no reliable direction. The query then asks EPA for a normal but keeps |v| as the
 * distance (see query.c). */
static bool at_contact(double dist2, double abs_tol, double scale)
{
    double noise = max2(abs_tol, GJK_CONTACT_ULPS * DBL_EPSILON * scale);
    return dist2 <= noise * noise;
}

/* gjk_core_point with the polytope's bounds check and loads in line (the common case). */
static inline bool cached_point(const gjk_shape *shape, uint32_t index, gjk_vec3 *point)
{
    const gjk_polytope *p = shape->polytope;
    if (shape->kind != GJK_SHAPE_POLYTOPE || p == NULL) {
        return gjk_core_point(shape, index, point);
    }
    if (index >= (uint32_t)p->count) {
        return false;
    }
    *point = gjk_v3(p->x[index], p->y[index], p->z[index]);
    return true;
}

/* The point of s its weights name, x_0 + sum lambda_k (x_k - x_0) with the edges of edge():
 * a convex combination of support points, so a point of D to the rounding of the weights. */
static gjk_vec3 weighted_point(const gjk_vertex *pool, const slot_simplex *s)
{
    const gjk_vertex *x0 = &pool[s->slot[0]];
    gjk_vec3 u = x0->w;
    for (int32_t k = 1; k < s->count; ++k) {
        u = gjk_madd(u, s->lambda[k], edge(x0, &pool[s->slot[k]]));
    }
    return u;
}

/* True when |v| (squared: dist2) lies below the certified lower bound by more than the
 * rounding of the support values: v, the origin projected onto the simplex's plane, is not
 * a point of D. On a sliver triangle (three vertices of a needle 7e6 m long, nearly in a
 * line) the rounded normal tilts the plane, and its projection fell 0.011 m short of the
 * distance, below a lower bound already certified, and the next step closed the "gap"
 * (fuzz/fixed 435647, from a garbage cache; test_fuzz_regressions:
 * gjk_projection_below_lower_bound). A reduction that gives such a v is no progress (the
 * previous simplex stays, as for any step that fails to lower |v|); a v that a new lower
 * bound exposes is replaced by the simplex's weighted point (weighted_point), an upper bound
 * again, whose direction the next steps correct. */
static bool below_lower(double dist2, double lower, double scale)
{
    double floor = lower - GJK_CONTACT_ULPS * DBL_EPSILON * scale;
    return floor > 0.0 && dist2 < floor * floor;
}

/* Steps a query may take without floating-point progress in |v| while the duality gap is
 * open (see the main loop): one is usually enough, a few bound the cost of cycling. */
#define GJK_STALL_STEPS 4

/* True if s uses pool slot i. */
static bool uses_slot(const slot_simplex *s, int32_t i)
{
    for (int32_t k = 0; k < s->count; ++k) {
        if (s->slot[k] == i) {
            return true;
        }
    }
    return false;
}

/* The gap closed on the tolerance with a support point x (slot `free`) that the simplex does
 * not hold: |v| is within the tolerance of the distance, but v's direction only within about
 * sqrt(2 rel_tolerance) (a chord of a 67 m disk's rim passing 3.8e-7 m beside the point nearest
 * a speck 0.36 m away: |v| 2e-13 long, v 1e-6 rad off the disk's axis, and the separation
 * along it 7e-5 short; fuzz/fixed 7b3993, test_fuzz_regressions: polish_v_on_flat_cone_base).
 * It matters when v certifies less than the best lower bound by more than the gap's
 * tolerance (its direction, not its length, is off), and a segment or a point leaves v free to
 * tilt. The step GJK would take next then costs no support point: the simplex grown by x,
 * reduced, is kept when it uses x, stays a point of D (below_lower) and is no farther from the
 * origin. The bounds stay certified: lower by the support points already taken, upper by the
 * new |v|. No support point has been taken along the new v (*v_sep). */
static void polish(const gjk_vertex *pool, slot_simplex *cur, int32_t free, double lower,
                   double scale, double *dist2, gjk_vec3 *v, double *v_sep)
{
    gjk_vec3 next_v;
    slot_simplex next;
    double next2 = reduce_grown(pool, cur, free, &next, &next_v);
    if (next.count == 4 || !uses_slot(&next, free) || below_lower(next2, lower, scale) ||
        !(next2 <= *dist2)) {
        return;
    }
    *cur = next;
    *dist2 = next2;
    *v = next_v;
    *v_sep = -HUGE_VAL;
}

/* Rebuilds the cached simplex; false when the cache is cold, foreign or stale. */
static bool warm_simplex(const gjk_pair_frame *f, const gjk_cache *cache, gjk_vertex *pool,
                         slot_simplex *s)
{
    if (cache->count < 1 || cache->count > 4 || cache->kind_a != (uint8_t)f->a->kind ||
        cache->kind_b != (uint8_t)f->b->kind) {
        return false;
    }
    s->count = 0;
    for (int32_t k = 0; k < cache->count; ++k) {
        gjk_vertex *x = &pool[s->count]; /* built in place, kept unless a duplicate */
        gjk_vec3 bl;
        x->ia = cache->index_a[k];
        x->ib = cache->index_b[k];
        if (!cached_point(f->a, x->ia, &x->a) || !cached_point(f->b, x->ib, &bl)) {
            return false;
        }
        /* A rim point is a feature without an index while the query runs (in_simplex compares
         * such points, not keys). */
        x->ia = gjk_is_rim_key(x->ia) ? GJK_CACHE_NO_INDEX : x->ia;
        x->ib = gjk_is_rim_key(x->ib) ? GJK_CACHE_NO_INDEX : x->ib;
        x->b = gjk_add(gjk_mat3_mul_vec(&f->rot_b, bl), f->pos_b);
        x->w = gjk_sub(x->a, x->b);
        if (!in_simplex(pool, s, x)) {
            s->slot[s->count] = s->count;
            s->count += 1;
        }
    }
    return s->count > 0;
}

/* Writes the simplex's features and v's direction into the cache. Rim points (cylinders,
 * cones) get rim keys only after a separation: EPA on curved D is seed-sensitive at its
 * precision limit, and a warm overlap rebuilt from rim keys (points up to 7.4e-9 rad along the
 * rim from the originals) once answered a capsule inside a 134 m cylinder 2.6e-7 too deep where
 * the cold start's seed gave 1.2e-7 (test_fuzz_regressions:
 * epa_capsule_in_cylinder_nearest_falls_back); an overlap keeps only discrete features. */
static void write_cache(const gjk_pair_frame *f, const gjk_vertex *pool, const slot_simplex *s,
                        gjk_vec3 v, bool rim_keys, gjk_cache *cache)
{
    uint8_t n = 0;
    for (int32_t k = 0; k < s->count; ++k) {
        const gjk_vertex *x = &pool[s->slot[k]];
        uint32_t ka = x->ia, kb = x->ib;
        if (ka == GJK_CACHE_NO_INDEX && rim_keys) {
            ka = gjk_core_key(f->a, x->a);
        }
        if (kb == GJK_CACHE_NO_INDEX && rim_keys) {
            /* B's point back in B's frame. */
            gjk_vec3 bl = gjk_mat3_tmul_vec(&f->rot_b, gjk_sub(x->b, f->pos_b));
            kb = gjk_core_key(f->b, bl);
        }
        if (ka != GJK_CACHE_NO_INDEX && kb != GJK_CACHE_NO_INDEX) {
            cache->index_a[n] = ka;
            cache->index_b[n] = kb;
            ++n;
        }
    }
    cache->count = n; /* slots past count are never read */
    cache->kind_a = (uint8_t)f->a->kind;
    cache->kind_b = (uint8_t)f->b->kind;
    cache->reserved = 0;
    cache->direction[0] = (float)v.x;
    cache->direction[1] = (float)v.y;
    cache->direction[2] = (float)v.z;
}

static gjk_vec3 cached_direction(const gjk_cache *cache, bool *ok)
{
    gjk_vec3 d = gjk_v3((double)cache->direction[0], (double)cache->direction[1],
                        (double)cache->direction[2]);
    *ok =
        gjk_vec3_is_finite(d) && gjk_length_sq(d) > 0.0 && cache->kind_a != (uint8_t)GJK_SHAPE_NONE;
    return d;
}

void gjk_gjk(const gjk_pair_frame *f, const gjk_gjk_input *in, gjk_cache *cache,
             gjk_gjk_result *out)
{
    const gjk_options *opt = in->options;
    gjk_gjk_result r; /* filled here, copied out once at the end */
    r.status = GJK_STATUS_SEPARATED;
    r.iterations = 0;
    r.support_calls = 0;
    r.lower = 0.0;
    r.lower_v = gjk_v3(0.0, 0.0, 0.0);
    r.v_sep = -HUGE_VAL;

    gjk_vertex pool[4];
    slot_simplex cur;                                                  /* the current simplex */
    uint32_t hint_a = GJK_CACHE_NO_INDEX, hint_b = GJK_CACHE_NO_INDEX; /* none: see climb */
    double dist2;
    gjk_vec3 v;
    const double abs_tol = opt->abs_tolerance * f->scale;
    const double rel_tol = opt->rel_tolerance;
    bool overlap = false;
    bool try_warm = cache != NULL;
    for (;;) {
        slot_simplex warm;
        const bool warmed = try_warm && warm_simplex(f, cache, pool, &warm);
        if (warmed) {
            hint_a = pool[warm.count - 1].ia;
            hint_b = pool[warm.count - 1].ib;
            dist2 = reduce(pool, warm.slot, warm.count, &cur, &v);
        } else {
            /* First support point: along the cached direction, else towards B's origin (the
             * centre of D is roughly -pos_b, so the nearest point of D to the origin lies on
             * the side facing +pos_b). */
            bool ok = false;
            gjk_vec3 d = cache != NULL ? gjk_neg(cached_direction(cache, &ok)) : gjk_v3(0, 0, 0);
            if (!ok) {
                d = gjk_length_sq(f->pos_b) > 0.0 ? f->pos_b : gjk_v3(1.0, 0.0, 0.0);
            }
            if (cache != NULL && cache->count >= 1 && cache->count <= 4 &&
                cache->kind_a == (uint8_t)f->a->kind && cache->kind_b == (uint8_t)f->b->kind) {
                hint_a = cache->index_a[0];
                hint_b = cache->index_b[0];
            }
            gjk_pair_support(f, d, hint_a, hint_b, &pool[0]);
            r.support_calls = 1;
            cur.count = 1;
            cur.slot[0] = 0;
            cur.lambda[0] = 1.0;
            hint_a = pool[0].ia;
            hint_b = pool[0].ib;
            v = pool[0].w;
            dist2 = gjk_length_sq(v);
        }

        overlap = cur.count == 4 || at_contact(dist2, abs_tol, f->scale);
        /* Set when the loop stops on a repeated support point or on no progress while the
         * duality gap is still open: from a cached simplex, whose features may name one
         * point twice, that is not convergence. */
        bool stalled = false;
        int32_t stall_steps = GJK_STALL_STEPS; /* steps without progress left (below) */

        while (!overlap) {
            double upper = sqrt(dist2);
            if (in->boolean_only && upper <= in->threshold) {
                overlap = true;
                break;
            }
            if (r.iterations >= opt->max_iterations) {
                r.status = GJK_STATUS_ITERATION_LIMIT;
                break;
            }
            ++r.iterations;
            /* The new support point goes straight into the slot the simplex leaves free. */
            const int32_t free = free_slot(&cur);
            const gjk_vertex *x = &pool[free];
            gjk_pair_support(f, gjk_neg(v), hint_a, hint_b, &pool[free]);
            ++r.support_calls;
            if (x->ia != GJK_CACHE_NO_INDEX) {
                hint_a = x->ia;
            }
            if (x->ib != GJK_CACHE_NO_INDEX) {
                hint_b = x->ib;
            }

            /* Duality gap: lower bound v.w / |v| from the supporting plane. */
            double lower = gjk_dot(v, x->w) / upper;
            if (opt->trace != NULL) {
                gjk_trace_gjk_step(opt->trace, f, r.iterations, pool, cur.slot, cur.count, v, x,
                                   max2(r.lower, lower), upper);
            }
            r.v_sep = lower;
            if (lower > r.lower) {
                r.lower = lower;
                r.lower_v = v;
                if (below_lower(dist2, r.lower, f->scale)) {
                    v = weighted_point(pool, &cur); /* see below_lower; then step again */
                    dist2 = gjk_length_sq(v);
                    r.v_sep = -HUGE_VAL;
                    continue;
                }
            }
            /* A positive lower bound certifies that the cores are apart, so the signed
             * distance is at least lower - inflate; before that, an overlap (negative signed
             * distance) is not excluded and no negative cutoff may fire. */
            if (r.lower > 0.0 && r.lower > in->cutoff) {
                r.status = GJK_STATUS_BEYOND_CUTOFF;
                break;
            }
            if (in->boolean_only && r.lower > in->threshold) {
                break; /* separation certified */
            }
            const double gap_tol = max2(rel_tol * upper, abs_tol);
            const bool gap_closed = upper - r.lower <= gap_tol;
            if (gap_closed || in_simplex(pool, &cur, x)) {
                stalled = !gap_closed;
                if (gap_closed && cur.count < 3 && r.v_sep < r.lower - gap_tol &&
                    !in_simplex(pool, &cur, x)) {
                    polish(pool, &cur, free, r.lower, f->scale, &dist2, &v, &r.v_sep);
                }
                break; /* converged: no support point improves on the simplex */
            }

            gjk_vec3 next_v;
            slot_simplex next;
            double next2 = reduce_grown(pool, &cur, free, &next, &next_v);
            if (below_lower(next2, r.lower, f->scale)) {
                stalled = true; /* not a point of D (below_lower): keep the previous simplex */
                break;
            }
            if (next.count == 4) {
                cur = next;
                overlap = true;
                break;
            }
            if (!(next2 < dist2)) {
                if (!(stall_steps > 0 && uses_slot(&next, free) &&
                      sqrt(next2) <= upper + GJK_CONTACT_ULPS * DBL_EPSILON * f->scale)) {
                    stalled = !gap_closed;
                    break; /* no progress in floating point: keep the previous, better simplex */
                }
                /* No progress in floating point, but the new support point is a vertex of the
                 * reduced simplex and its |v| is no worse beyond rounding: a real step whose
                 * gain in |v|^2 is below the rounding of |v|^2. (A flat face: a support point
                 * 64 m to the side and 3e-7 m deeper along -v lowers |v|^2 by 1e-17 relative,
                 * yet turns v towards the face's normal, and the next support point makes
                 * measurable progress: test_fuzz_regressions: gjk_cold_stall_flat_cone,
                 * point_on_vertex_not_at_distance_zero.) Take a few such steps; the gap is
                 * still open here (a closed gap stopped above). */
                --stall_steps;
            }
            cur = next;
            dist2 = next2;
            v = next_v;
            r.v_sep = -HUGE_VAL; /* no support point taken along the new v yet */
            if (at_contact(dist2, abs_tol, f->scale)) {
                overlap = true;
            }
        }
        if (warmed && stalled) {
            /* The warm simplex stalled with an open gap: start again cold. The counters keep
             * the work already done. */
            try_warm = false;
            r.status = GJK_STATUS_SEPARATED;
            r.lower = 0.0;
            r.lower_v = gjk_v3(0.0, 0.0, 0.0);
            r.v_sep = -HUGE_VAL;
            continue;
        }
        if (stalled && sqrt(dist2) - r.lower > max2(max2(rel_tol * sqrt(dist2), abs_tol),
                                                    GJK_CONTACT_ULPS * DBL_EPSILON * f->scale)) {
            /* A cold run stalled with the gap still open above the rounding of the support
             * values (16 ulps of the pair's scale): the bounds are certified, the answer is
             * not converged, and the status says so (the best bounds found are reported). */
            r.status = GJK_STATUS_ITERATION_LIMIT;
        }
        break;
    }

    const gjk_vertex *x0 = &pool[cur.slot[0]];
    gjk_vec3 pa = x0->a, pb = x0->b;
    double span_a2 = 0.0, span_b2 = 0.0;
    for (int32_t k = 1; k < cur.count; ++k) {
        const gjk_vertex *xk = &pool[cur.slot[k]];
        gjk_vec3 ea = gjk_sub(xk->a, x0->a), eb = gjk_sub(xk->b, x0->b);
        pa = gjk_madd(pa, cur.lambda[k], ea);
        pb = gjk_madd(pb, cur.lambda[k], eb);
        span_a2 = max2(span_a2, gjk_length_sq(ea));
        span_b2 = max2(span_b2, gjk_length_sq(eb));
    }
    r.point_a = pa;
    r.point_b = pb;
    r.v = v;
    if (overlap) {
        r.status = GJK_STATUS_OVERLAPPING;
        r.upper = cur.count == 4 ? 0.0 : sqrt(dist2);
        r.lower = 0.0;
    } else {
        r.upper = sqrt(dist2);
        if (r.lower > r.upper) {
            r.lower = r.upper; /* rounding only */
        }
    }
    if (cache != NULL) {
        write_cache(f, pool, &cur, v, !overlap, cache);
    }
    /* Everything but the simplex, which only an overlap needs (EPA's seed). */
    out->status = r.status;
    out->point_a = r.point_a;
    out->point_b = r.point_b;
    out->v = r.v;
    out->lower = r.lower;
    out->upper = r.upper;
    out->lower_v = r.lower_v;
    out->v_sep = r.v_sep;
    out->span_a = sqrt(span_a2);
    out->span_b = sqrt(span_b2);
    out->iterations = r.iterations;
    out->support_calls = r.support_calls;
    out->simplex.count = overlap ? cur.count : 0;
    for (int32_t k = 0; k < out->simplex.count; ++k) {
        out->simplex.v[k] = pool[cur.slot[k]];
        out->simplex.lambda[k] = cur.lambda[k];
    }
}
