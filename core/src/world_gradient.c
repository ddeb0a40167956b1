/* world_gradient.c — d(distance)/dq of a reported pair and whether its witness is unique
 * (gjk/world.h, Gradients).
 *
 * Uniqueness. The witness pairs of a convex pair are (F_A x F_B) restricted to the pairs at
 * the minimum, F_A the face of A supporting +n and F_B that of B supporting -n. They are
 * unique when one of the two faces is a point, or when both are segments that are not
 * parallel (they cross in one point of the projection along n). Every other combination
 * (parallel segments, segment-polygon, polygon-polygon) may hold a set of witness pairs, and
 * there the distance is in general not differentiable: the pair is flagged. A face is taken
 * as the points of the shape within GJK_WORLD_FEATURE_TOLERANCE of its supporting plane, per
 * shape kind in closed form (a polytope: a scan of its vertices). A margin rounds edges and
 * vertices but keeps flat faces flat, so it changes no dimension. */
#define _POSIX_C_SOURCE 200809L

#include "world_query.h"

/* The supporting face of a shape in local unit direction d: its dimension (0, 1, >= 2) and,
 * for a segment, its direction (local, not normalised; length = the segment's length). */
typedef struct wfeature {
    int dim;
    gjk_vec3 edge;
} wfeature;

/* The face of a polytope near its supporting plane in direction d: the vertices within tol of
 * max d.v. With adjacency it is found from `hint` (a vertex index, e.g. of GJK's last simplex)
 * by ascent to the maximum and a search of the neighbours within tol: for a convex polytope
 * and a linear function every vertex has a neighbour at least as high unless it is a maximum,
 * so the vertices above any level form a connected subgraph and the search finds them all.
 * Without adjacency, or when the face has more than FACE_MAX vertices, the vertices are
 * scanned. */
#define FACE_MAX 64

static double vdot(const gjk_polytope *p, int32_t i, gjk_vec3 d)
{
    return p->x[i] * d.x + p->y[i] * d.y + p->z[i] * d.z;
}

static wfeature face_dimension(const gjk_polytope *p, const int32_t *set, int32_t n, double tol)
{
    wfeature f = {0, {0, 0, 0}};
    gjk_vec3 v0 = gjk_v3(p->x[set[0]], p->y[set[0]], p->z[set[0]]);
    gjk_vec3 far = v0;
    double far_sq = 0.0;
    for (int32_t k = 1; k < n; ++k) {
        gjk_vec3 v = gjk_v3(p->x[set[k]], p->y[set[k]], p->z[set[k]]);
        double l = gjk_length_sq(gjk_sub(v, v0));
        if (l > far_sq) {
            far_sq = l;
            far = v;
        }
    }
    if (far_sq <= tol * tol)
        return f;
    gjk_vec3 e = gjk_sub(far, v0);
    double len = sqrt(far_sq);
    f.dim = 1;
    f.edge = e;
    for (int32_t k = 1; k < n; ++k) {
        gjk_vec3 v = gjk_sub(gjk_v3(p->x[set[k]], p->y[set[k]], p->z[set[k]]), v0);
        if (gjk_length(gjk_cross(v, e)) > tol * len) { /* off the line by more than tol */
            f.dim = 2;
            return f;
        }
    }
    return f;
}

static wfeature feature_scan(const gjk_polytope *p, gjk_vec3 d, double tol)
{
    wfeature f = {0, {0, 0, 0}};
    double h = -HUGE_VAL;
    int32_t top = 0;
    for (int32_t i = 0; i < p->count; ++i) {
        double s = vdot(p, i, d);
        if (s > h) {
            h = s;
            top = i;
        }
    }
    gjk_vec3 v0 = gjk_v3(p->x[top], p->y[top], p->z[top]);
    int32_t set[2] = {top, top};
    double far_sq = 0.0;
    for (int32_t i = 0; i < p->count; ++i) { /* the farthest face vertex from top */
        if (vdot(p, i, d) < h - tol)
            continue;
        double l = gjk_length_sq(gjk_sub(gjk_v3(p->x[i], p->y[i], p->z[i]), v0));
        if (l > far_sq) {
            far_sq = l;
            set[1] = i;
        }
    }
    f = face_dimension(p, set, 2, tol);
    if (f.dim == 0)
        return f;
    for (int32_t i = 0; i < p->count; ++i) {
        if (vdot(p, i, d) < h - tol)
            continue;
        gjk_vec3 v = gjk_sub(gjk_v3(p->x[i], p->y[i], p->z[i]), v0);
        if (gjk_length(gjk_cross(v, f.edge)) > tol * gjk_length(f.edge)) {
            f.dim = 2;
            return f;
        }
    }
    return f;
}

static wfeature feature_polytope(const gjk_polytope *p, gjk_vec3 d, double tol, uint32_t hint)
{
    if (!p->adj_start || !p->adj)
        return feature_scan(p, d, tol);
    int32_t v = hint < (uint32_t)p->count ? (int32_t)hint : 0;
    double h = vdot(p, v, d);
    int32_t near[FACE_MAX]; /* the top vertex's neighbours within tol of its level */
    int32_t near_count = 0;
    for (int32_t steps = 0; steps <= p->count; ++steps) { /* steepest ascent */
        int32_t best = v;
        double hb = h;
        int32_t degree = p->adj_start[v + 1] - p->adj_start[v];
        if (degree > FACE_MAX)
            return feature_scan(p, d, tol);
        near_count = 0;
        const int32_t *adj = p->adj + p->adj_start[v];
        for (int32_t k = 0; k < degree; ++k) {
            double s = vdot(p, adj[k], d);
            if (s >= h - tol)
                near[near_count++] = adj[k];
            if (s > hb) {
                hb = s;
                best = adj[k];
            }
        }
        if (best == v)
            break;
        v = best;
        h = hb;
    }
    /* Breadth-first over the face's vertices, stopping as soon as one lies off the line of
     * the first two (a polygon: dimension 2, the common case of a face contact). The top
     * vertex's neighbours were just evaluated by the ascent: only those near its level are
     * looked at again. */
    int32_t set[FACE_MAX];
    int32_t n = 1;
    set[0] = v;
    gjk_vec3 v0 = gjk_v3(p->x[v], p->y[v], p->z[v]), line = {0, 0, 0};
    double line_len = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        int32_t u = set[i];
        const int32_t *adj = i == 0 ? near : p->adj + p->adj_start[u];
        int32_t degree = i == 0 ? near_count : p->adj_start[u + 1] - p->adj_start[u];
        for (int32_t k = 0; k < degree; ++k) {
            int32_t x = adj[k];
            if (i > 0 && vdot(p, x, d) < h - tol)
                continue;
            bool seen = false;
            for (int32_t j = 0; j < n && !seen; ++j)
                seen = set[j] == x;
            if (seen)
                continue;
            gjk_vec3 w = gjk_sub(gjk_v3(p->x[x], p->y[x], p->z[x]), v0);
            if (line_len <= tol) {
                line = w;
                line_len = gjk_length(w);
            } else if (gjk_length(gjk_cross(w, line)) > tol * line_len) {
                wfeature f = {2, {0, 0, 0}};
                return f;
            }
            if (n == FACE_MAX)
                return feature_scan(p, d, tol);
            set[n++] = x;
        }
    }
    return face_dimension(p, set, n, tol); /* a point or a segment: its extent */
}

static wfeature shape_feature(const gjk_shape *s, gjk_vec3 d, double tol, uint32_t hint)
{
    wfeature f = {0, {0, 0, 0}};
    double dxy = s->kind == GJK_SHAPE_CYLINDER || s->kind == GJK_SHAPE_CONE
                     ? sqrt(d.x * d.x + d.y * d.y)
                     : 0.0;
    switch (s->kind) {
    case GJK_SHAPE_CAPSULE:
        if (s->half_height > 0.0 && 2.0 * s->half_height * fabs(d.z) <= tol) {
            f.dim = 1;
            f.edge = gjk_v3(0, 0, 2.0 * s->half_height);
        }
        return f;
    case GJK_SHAPE_BOX: {
        double h[3] = {s->half_extents.x, s->half_extents.y, s->half_extents.z};
        double c[3] = {d.x, d.y, d.z};
        for (int i = 0; i < 3; ++i)
            if (h[i] > 0.0 && 2.0 * h[i] * fabs(c[i]) <= tol) {
                ++f.dim;
                f.edge = gjk_v3(i == 0 ? 2.0 * h[0] : 0, i == 1 ? 2.0 * h[1] : 0,
                                i == 2 ? 2.0 * h[2] : 0);
            }
        return f;
    }
    case GJK_SHAPE_CYLINDER:
        if (s->radius > 0.0 && 2.0 * s->radius * dxy <= tol)
            f.dim = 2; /* a cap */
        else if (s->half_height > 0.0 && 2.0 * s->half_height * fabs(d.z) <= tol) {
            f.dim = 1; /* a line of the side */
            f.edge = gjk_v3(0, 0, 2.0 * s->half_height);
        }
        return f;
    case GJK_SHAPE_CONE: {
        double h = s->half_height, r = s->radius;
        if (d.z < 0.0 && r > 0.0 && 2.0 * r * dxy <= tol)
            f.dim = 2; /* the base */
        else if (dxy > 0.0 && fabs((-h * d.z + r * dxy) - h * d.z) <= tol && (r > 0 || h > 0)) {
            /* the apex and the rim point towards d support equally: the slant line */
            f.dim = 1;
            f.edge = gjk_v3(r * d.x / dxy, r * d.y / dxy, -2.0 * h);
        }
        return f;
    }
    case GJK_SHAPE_POLYTOPE:
        return feature_polytope(s->polytope, d, tol, hint);
    default: /* point, sphere, ellipsoid (strictly convex: one support point) */
        return f;
    }
}

/* Either side being a point decides, so the side whose face is found in closed form (every
 * kind but a polytope, which needs its vertices searched; a sphere or a point needs nothing)
 * goes first, and the polytope's search is skipped whenever that side is a point. Of two
 * polytopes the one with fewer vertices goes first: its search is the cheaper one (a shorter
 * ascent), and a robot's link hull against a sharper obstacle hull usually meets it at one of
 * the obstacle's vertices. The answer does not depend on the order. */
bool gjk_wq_witness_unique(const gjk_shape *a, gjk_quat rot_a, uint32_t hint_a, const gjk_shape *b,
                           gjk_quat rot_b, uint32_t hint_b, gjk_vec3 n)
{
    double tol = GJK_WORLD_FEATURE_TOLERANCE;
    wfeature fa, fb;
    bool b_first = a->kind == GJK_SHAPE_POLYTOPE &&
                   (b->kind != GJK_SHAPE_POLYTOPE || b->polytope->count < a->polytope->count);
    if (b_first) {
        fb = shape_feature(b, gjk_quat_inv_rotate(rot_b, gjk_neg(n)), tol, hint_b);
        if (fb.dim == 0)
            return true;
        fa = shape_feature(a, gjk_quat_inv_rotate(rot_a, n), tol, hint_a);
        if (fa.dim == 0)
            return true;
    } else {
        fa = shape_feature(a, gjk_quat_inv_rotate(rot_a, n), tol, hint_a);
        if (fa.dim == 0)
            return true;
        fb = shape_feature(b, gjk_quat_inv_rotate(rot_b, gjk_neg(n)), tol, hint_b);
        if (fb.dim == 0)
            return true;
    }
    if (fa.dim == 1 && fb.dim == 1) {
        gjk_vec3 ea = gjk_quat_rotate(rot_a, fa.edge), eb = gjk_quat_rotate(rot_b, fb.edge);
        double la = gjk_length(ea), lb = gjk_length(eb);
        /* |sin(angle)| * the shorter length: how far the segments' directions differ over
         * their extent */
        double spread = gjk_length(gjk_cross(ea, eb)) / (la * lb) * fmin(la, lb);
        return spread > tol;
    }
    return false;
}
