/* oracle.c — brute-force reference distances in long double (see oracle.h).
 * Written independently of core/src: nothing here calls or copies the library's code. */
#include "oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ vector helpers */

static oracle_v3 v3(long double x, long double y, long double z)
{
    oracle_v3 r = {x, y, z};
    return r;
}
static oracle_v3 add(oracle_v3 a, oracle_v3 b)
{
    return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static oracle_v3 sub(oracle_v3 a, oracle_v3 b)
{
    return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static oracle_v3 mul(oracle_v3 a, long double s)
{
    return v3(a.x * s, a.y * s, a.z * s);
}
static long double dot(oracle_v3 a, oracle_v3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static oracle_v3 cross(oracle_v3 a, oracle_v3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static long double len(oracle_v3 a)
{
    return sqrtl(dot(a, a));
}

oracle_v3 oracle_v3_from(gjk_vec3 v)
{
    return v3(v.x, v.y, v.z);
}
gjk_vec3 oracle_v3_to(oracle_v3 v)
{
    gjk_vec3 r = {(double)v.x, (double)v.y, (double)v.z};
    return r;
}

/* Rotation matrix rows of the normalised quaternion (w, x, y, z). */
static void quat_matrix(gjk_quat q, oracle_v3 row[3])
{
    long double w = q.w, x = q.x, y = q.y, z = q.z;
    long double n = sqrtl(w * w + x * x + y * y + z * z);
    if (n > 0) {
        w /= n, x /= n, y /= n, z /= n;
    } else {
        w = 1, x = y = z = 0;
    }
    row[0] = v3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y));
    row[1] = v3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x));
    row[2] = v3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y));
}

static oracle_v3 rotate(const oracle_v3 row[3], oracle_v3 v)
{
    return v3(dot(row[0], v), dot(row[1], v), dot(row[2], v));
}

/* ------------------------------------------------------------------ closest points */

oracle_v3 oracle_closest_on_triangle(oracle_v3 p, oracle_v3 a, oracle_v3 b, oracle_v3 c)
{
    /* Voronoi regions of the triangle, tested in order: vertices, edges, face. */
    oracle_v3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
    long double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return a;
    oracle_v3 bp = sub(p, b);
    long double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return b;
    long double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        long double t = d1 / (d1 - d3);
        return add(a, mul(ab, t));
    }
    oracle_v3 cp = sub(p, c);
    long double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return c;
    long double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        long double t = d2 / (d2 - d6);
        return add(a, mul(ac, t));
    }
    long double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        long double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return add(b, mul(sub(c, b), t));
    }
    long double denom = va + vb + vc;
    if (!(denom > 0)) {
        /* Degenerate (colinear) triangle: the closest point is on one of its edges. */
        oracle_v3 c1, c2, best = a;
        long double bd = HUGE_VALL;
        oracle_v3 e[3][2] = {{a, b}, {b, c}, {c, a}};
        for (int i = 0; i < 3; ++i) {
            long double d = oracle_segment_segment(p, p, e[i][0], e[i][1], &c1, &c2);
            if (d < bd) {
                bd = d;
                best = c2;
            }
        }
        return best;
    }
    long double v = vb / denom, w = vc / denom;
    return add(a, add(mul(ab, v), mul(ac, w)));
}

static long double clamp01(long double t)
{
    return t < 0 ? 0 : (t > 1 ? 1 : t);
}

long double oracle_segment_segment(oracle_v3 p0, oracle_v3 p1, oracle_v3 q0, oracle_v3 q1,
                                   oracle_v3 *c1, oracle_v3 *c2)
{
    /* Minimise |p0 + s d1 - q0 - t d2|^2 over [0,1]^2. */
    oracle_v3 d1 = sub(p1, p0), d2 = sub(q1, q0), r = sub(p0, q0);
    long double a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    long double s, t;
    if (a == 0 && e == 0) {
        s = t = 0;
    } else if (a == 0) {
        s = 0;
        t = clamp01(f / e);
    } else {
        long double c = dot(d1, r);
        if (e == 0) {
            t = 0;
            s = clamp01(-c / a);
        } else {
            long double b = dot(d1, d2);
            long double denom = a * e - b * b;
            s = denom > 0 ? clamp01((b * f - c * e) / denom) : 0;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = clamp01(-c / a);
            } else if (t > 1) {
                t = 1;
                s = clamp01((b - c) / a);
            }
        }
    }
    *c1 = add(p0, mul(d1, s));
    *c2 = add(q0, mul(d2, t));
    return len(sub(*c1, *c2));
}

long double oracle_point_box_distance(oracle_v3 p, oracle_v3 h)
{
    long double dx = fabsl(p.x) - h.x, dy = fabsl(p.y) - h.y, dz = fabsl(p.z) - h.z;
    oracle_v3 o = v3(dx > 0 ? dx : 0, dy > 0 ? dy : 0, dz > 0 ? dz : 0);
    return len(o);
}

long double oracle_point_box_signed(oracle_v3 p, oracle_v3 h)
{
    long double dx = fabsl(p.x) - h.x, dy = fabsl(p.y) - h.y, dz = fabsl(p.z) - h.z;
    if (dx > 0 || dy > 0 || dz > 0)
        return oracle_point_box_distance(p, h);
    long double m = dx > dy ? dx : dy;
    return m > dz ? m : dz;
}

long double oracle_sphere_sphere(oracle_v3 ca, long double ra, oracle_v3 cb, long double rb)
{
    return len(sub(cb, ca)) - ra - rb;
}

long double oracle_capsule_capsule(gjk_transform pa, long double ra, long double hha,
                                   gjk_transform pb, long double rb, long double hhb)
{
    oracle_v3 rowa[3], rowb[3], c1, c2;
    quat_matrix(pa.q, rowa);
    quat_matrix(pb.q, rowb);
    oracle_v3 ta = oracle_v3_from(pa.p), tb = oracle_v3_from(pb.p);
    oracle_v3 ha = rotate(rowa, v3(0, 0, hha)), hb = rotate(rowb, v3(0, 0, hhb));
    long double d =
        oracle_segment_segment(sub(ta, ha), add(ta, ha), sub(tb, hb), add(tb, hb), &c1, &c2);
    return d - ra - rb;
}

/* ------------------------------------------------------------------ shapes */

/* Affine dimension of the points, relative to their extent. */
static int affine_dimension(const oracle_v3 *p, int n, long double *extent)
{
    const long double rel = 1e-12L;
    int i1 = 0;
    long double best = 0;
    for (int i = 1; i < n; ++i) {
        long double d = len(sub(p[i], p[0]));
        if (d > best)
            best = d, i1 = i;
    }
    *extent = best;
    if (best == 0)
        return 0;
    oracle_v3 dir = mul(sub(p[i1], p[0]), 1 / best);
    int i2 = -1;
    long double off = 0;
    for (int i = 1; i < n; ++i) {
        oracle_v3 r = sub(p[i], p[0]);
        long double d = len(sub(r, mul(dir, dot(r, dir))));
        if (d > off)
            off = d, i2 = i;
    }
    if (i2 < 0 || off <= rel * best)
        return 1;
    oracle_v3 nrm = cross(sub(p[i1], p[0]), sub(p[i2], p[0]));
    nrm = mul(nrm, 1 / len(nrm));
    for (int i = 1; i < n; ++i) {
        if (fabsl(dot(sub(p[i], p[0]), nrm)) > rel * best)
            return 3;
    }
    return 2;
}

int oracle_shape_init(oracle_shape *s, const gjk_vec3 *points, int count, gjk_transform pose,
                      double margin)
{
    memset(s, 0, sizeof *s);
    if (count < 1 || count > ORACLE_MAX_VERTICES)
        return -1;
    oracle_v3 local[ORACLE_MAX_VERTICES];
    for (int i = 0; i < count; ++i)
        local[i] = oracle_v3_from(points[i]);
    s->count = count;
    s->margin = margin;
    s->dim = affine_dimension(local, count, &s->extent);

    int max_tri = count * (count - 1) * (count - 2) / 6;
    int max_edge = count * (count - 1) / 2;
    s->tri = malloc((size_t)(max_tri > 0 ? max_tri : 1) * sizeof *s->tri);
    s->tri_normal = malloc((size_t)(max_tri > 0 ? max_tri : 1) * sizeof *s->tri_normal);
    s->tri_offset = malloc((size_t)(max_tri > 0 ? max_tri : 1) * sizeof *s->tri_offset);
    s->edge = malloc((size_t)(max_edge > 0 ? max_edge : 1) * sizeof *s->edge);
    bool *is_edge = calloc((size_t)(count * count), sizeof *is_edge);
    if (!s->tri || !s->tri_normal || !s->tri_offset || !s->edge || !is_edge) {
        free(is_edge);
        oracle_shape_free(s);
        return -1;
    }

    /* Faces: vertex triples whose plane has every point on one side (local frame, where
     * coplanar vertices of the case shapes are exactly coplanar). */
    const long double tol = 1e-13L * s->extent;
    for (int i = 0; s->dim >= 2 && i < count; ++i) {
        for (int j = i + 1; j < count; ++j) {
            for (int k = j + 1; k < count; ++k) {
                oracle_v3 nrm = cross(sub(local[j], local[i]), sub(local[k], local[i]));
                long double nl = len(nrm);
                if (!(nl > 1e-14L * s->extent * s->extent))
                    continue;
                nrm = mul(nrm, 1 / nl);
                long double lo = 0, hi = 0;
                for (int l = 0; l < count; ++l) {
                    long double d = dot(nrm, sub(local[l], local[i]));
                    lo = d < lo ? d : lo;
                    hi = d > hi ? d : hi;
                }
                if (hi > tol && lo < -tol)
                    continue;
                if (hi > tol)
                    nrm = mul(nrm, -1);
                int t = s->tri_count++;
                s->tri[t][0] = i, s->tri[t][1] = j, s->tri[t][2] = k;
                s->tri_normal[t] = nrm; /* local for now */
                is_edge[i * count + j] = is_edge[i * count + k] = is_edge[j * count + k] = true;
            }
        }
    }
    if (s->dim == 1) {
        for (int i = 0; i < count; ++i)
            for (int j = i + 1; j < count; ++j)
                is_edge[i * count + j] = true;
    }
    for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j)
            if (is_edge[i * count + j]) {
                s->edge[s->edge_count][0] = i;
                s->edge[s->edge_count][1] = j;
                ++s->edge_count;
            }
    free(is_edge);

    oracle_v3 row[3];
    quat_matrix(pose.q, row);
    oracle_v3 t = oracle_v3_from(pose.p);
    for (int i = 0; i < count; ++i)
        s->v[i] = add(rotate(row, local[i]), t);
    for (int f = 0; f < s->tri_count; ++f) {
        oracle_v3 n = rotate(row, s->tri_normal[f]);
        n = mul(n, 1 / len(n));
        s->tri_normal[f] = n;
        long double off = -HUGE_VALL;
        for (int i = 0; i < count; ++i) {
            long double d = dot(n, s->v[i]);
            off = d > off ? d : off;
        }
        s->tri_offset[f] = off;
    }
    return 0;
}

void oracle_shape_free(oracle_shape *s)
{
    if (!s)
        return;
    free(s->tri);
    free(s->tri_normal);
    free(s->tri_offset);
    free(s->edge);
    memset(s, 0, sizeof *s);
}

static long double core_support(const oracle_shape *s, oracle_v3 u)
{
    long double best = -HUGE_VALL;
    for (int i = 0; i < s->count; ++i) {
        long double d = dot(s->v[i], u);
        best = d > best ? d : best;
    }
    return best;
}

long double oracle_support(const oracle_shape *s, oracle_v3 u)
{
    return core_support(s, u) + s->margin * len(u);
}

/* Distance from p to the core (no margin) and the closest point. */
static long double core_point_distance(const oracle_shape *s, oracle_v3 p, oracle_v3 *closest)
{
    if (s->dim == 3) {
        bool inside = true;
        for (int f = 0; f < s->tri_count && inside; ++f)
            inside = dot(s->tri_normal[f], p) <= s->tri_offset[f];
        if (inside) {
            *closest = p;
            return 0;
        }
    }
    long double best = HUGE_VALL;
    for (int f = 0; f < s->tri_count; ++f) {
        oracle_v3 c = oracle_closest_on_triangle(p, s->v[s->tri[f][0]], s->v[s->tri[f][1]],
                                                 s->v[s->tri[f][2]]);
        long double d = len(sub(p, c));
        if (d < best)
            best = d, *closest = c;
    }
    for (int e = 0; e < s->edge_count; ++e) {
        oracle_v3 c1, c2;
        long double d =
            oracle_segment_segment(p, p, s->v[s->edge[e][0]], s->v[s->edge[e][1]], &c1, &c2);
        if (d < best)
            best = d, *closest = c2;
    }
    for (int i = 0; i < s->count; ++i) {
        long double d = len(sub(p, s->v[i]));
        if (d < best)
            best = d, *closest = s->v[i];
    }
    return best;
}

long double oracle_point_distance(const oracle_shape *s, oracle_v3 p)
{
    oracle_v3 c;
    long double d = core_point_distance(s, p, &c) - s->margin;
    return d > 0 ? d : 0;
}

/* ------------------------------------------------------------------ pair query */

/* Separation of the cores along unit u: min over B of u.b minus max over A of u.a. */
static long double separation(const oracle_shape *a, const oracle_shape *b, oracle_v3 u)
{
    return -core_support(b, mul(u, -1)) - core_support(a, u);
}

typedef struct best_axis {
    long double sep;
    oracle_v3 u;
} best_axis;

static void try_axis(best_axis *best, const oracle_shape *a, const oracle_shape *b, oracle_v3 c)
{
    long double l = len(c);
    if (!(l > 0))
        return;
    oracle_v3 u = mul(c, 1 / l);
    for (int sign = 0; sign < 2; ++sign) {
        long double s = separation(a, b, u);
        if (s > best->sep) {
            best->sep = s;
            best->u = u;
        }
        u = mul(u, -1);
    }
}

static void closest_features(const oracle_shape *a, const oracle_shape *b, long double *dist,
                             oracle_v3 *wa, oracle_v3 *wb)
{
    long double best = HUGE_VALL;
    /* Vertices of A against B's triangles, edges and vertices, and the reverse. */
    for (int i = 0; i < a->count; ++i) {
        oracle_v3 c;
        long double d = core_point_distance(b, a->v[i], &c);
        if (d < best)
            best = d, *wa = a->v[i], *wb = c;
    }
    for (int j = 0; j < b->count; ++j) {
        oracle_v3 c;
        long double d = core_point_distance(a, b->v[j], &c);
        if (d < best)
            best = d, *wa = c, *wb = b->v[j];
    }
    for (int e = 0; e < a->edge_count; ++e) {
        for (int f = 0; f < b->edge_count; ++f) {
            oracle_v3 c1, c2;
            long double d =
                oracle_segment_segment(a->v[a->edge[e][0]], a->v[a->edge[e][1]],
                                       b->v[b->edge[f][0]], b->v[b->edge[f][1]], &c1, &c2);
            if (d < best)
                best = d, *wa = c1, *wb = c2;
        }
    }
    *dist = best;
}

oracle_answer oracle_query(const oracle_shape *a, const oracle_shape *b)
{
    oracle_answer r;
    memset(&r, 0, sizeof r);
    const long double nan = (long double)NAN;

    /* Separating axes: face normals of both, cross products of edge pairs. */
    best_axis best = {-HUGE_VALL, v3(0, 0, 1)};
    for (int f = 0; f < a->tri_count; ++f)
        try_axis(&best, a, b, a->tri_normal[f]);
    for (int f = 0; f < b->tri_count; ++f)
        try_axis(&best, a, b, b->tri_normal[f]);
    for (int e = 0; e < a->edge_count; ++e) {
        oracle_v3 ea = sub(a->v[a->edge[e][1]], a->v[a->edge[e][0]]);
        for (int f = 0; f < b->edge_count; ++f) {
            oracle_v3 eb = sub(b->v[b->edge[f][1]], b->v[b->edge[f][0]]);
            try_axis(&best, a, b, cross(ea, eb));
        }
    }

    /* Closest features; when the cores are disjoint, (wb - wa) is the optimal axis and the
     * SAT value along it equals the distance. */
    long double d;
    oracle_v3 wa = v3(0, 0, 0), wb = v3(0, 0, 0);
    closest_features(a, b, &d, &wa, &wb);
    if (d > 0)
        try_axis(&best, a, b, sub(wb, wa));
    r.sat = best.sep;

    const long double inflate = a->margin + b->margin;
    if (best.sep > 0 && d > 0) {
        r.separated = true;
        r.normal = mul(sub(wb, wa), 1 / d);
        r.sd = d - inflate;
        r.wa = add(wa, mul(r.normal, a->margin));
        r.wb = sub(wb, mul(r.normal, b->margin));
    } else {
        r.separated = false;
        r.normal = best.u;
        r.sd = best.sep - inflate;
        r.wa = r.wb = v3(nan, nan, nan);
    }
    return r;
}
