/* epa.c — penetration depth by the Expanding Polytope Algorithm.
 *
 * References: G. van den Bergen, "Proximity Queries and Penetration Depth Computation on 3D
 * Game Objects", GDC 2001, and "Collision Detection in Interactive 3D Environments" (2003)
 * section 4.3.8.
 *
 * The input is the Minkowski difference D = core(A) - core(B) (support map
 * gjk_pair_support, A-local frame) and GJK's final simplex, which contains the origin. For a
 * convex D containing the origin, the penetration depth is the distance from the origin to
 * the boundary of D, which equals the minimum of the support function over unit directions:
 *
 *     depth = min_{|n| = 1} h(n),   h(n) = max_{x in D} dot(x, n).
 *
 * EPA keeps a convex polytope P inside D (its vertices are support points of D) whose faces
 * are stored with their outward unit normal n_f and plane distance d_f = dot(n_f, vertex).
 * Since P is inside D, the nearest face distance min_f d_f is a lower bound on the depth, and
 * every support value h(n_f) is an upper bound. Each iteration takes the nearest face,
 * evaluates w = s(n_f), and either stops (h(n_f) - d_f within tolerance) or adds w to P:
 * the faces w can see are removed (found by a flood fill from the nearest face across face
 * adjacency), and a fan of new faces joins w to the horizon, the closed loop of edges
 * between seen and unseen faces. The answer is the nearest face: depth = d_f, normal = n_f,
 * and the deepest points are the barycentric combination of the face's support points at
 * the projection d_f * n_f of the origin.
 *
 * Robustness:
 *  - GJK's simplex may be degenerate (1-3 vertices, or a flat tetrahedron). It is reduced to
 *    an affinely independent set and grown to a tetrahedron by support points along
 *    directions orthogonal to its affine hull, on the side of the origin.
 *  - Any support value h(n) <= 0 (to rounding) proves that the origin is on the boundary of
 *    D: the shapes touch, depth 0 (GJK_STATUS_TOUCHING). A flat D (zero volume, e.g. two
 *    coplanar polygons) is the same case.
 *  - The nearest face is chosen by signed distance, so an initial polytope that misses the
 *    origin by a rounding error grows towards it like GJK would.
 *  - Face normals use the best-conditioned cross product (the two shorter edges); slivers
 *    take the normal of the face across their horizon edge. The horizon is checked to be one
 *    simple loop before anything changes; if rounding ever breaks that, EPA stops with its
 *    best estimate instead of corrupting the polytope.
 *  - Fixed capacity on the stack (about 50 KiB), no allocation. */
#include "internal.h"

#include <float.h>
#include <string.h>

enum {
    EPA_MAX_VERTICES = 256,
    /* A closed triangulated polytope with V vertices has 2V - 4 faces (Euler). */
    EPA_MAX_FACES = 2 * EPA_MAX_VERTICES,
    EPA_DEFAULT_MAX_ITERATIONS = 128
};

#define EPA_DEFAULT_REL_TOLERANCE 1e-12
#define EPA_DEFAULT_ABS_TOLERANCE 1e-15
/* Lengths below this many ulps of the pair's scale are rounding noise. */
#define EPA_ZERO_ULPS 16.0
/* A triangle whose two shorter edges meet at a sine below this is a sliver: its own cross
 * product would give a normal with relative error ~ DBL_EPSILON / sine. */
#define EPA_SLIVER_SINE 1e-9

typedef struct epa_face {
    gjk_vec3 n;          /* outward unit normal */
    int16_t v[3];        /* vertex indices, counter-clockwise seen from outside */
    int16_t adj[3];      /* face across edge i = (v[i], v[i+1]) */
    uint8_t adj_edge[3]; /* that edge's index in the adjacent face */
    uint8_t visible;     /* scratch mark of the flood fill */
} epa_face;

typedef struct epa_horizon_edge {
    int16_t face; /* unseen face on the horizon */
    int16_t edge; /* its edge shared with a seen face */
} epa_horizon_edge;

/* The whole working set; lives on gjk_epa's stack. */
typedef struct epa_polytope {
    gjk_vertex vert[EPA_MAX_VERTICES];
    epa_face face[EPA_MAX_FACES];
    double dist[EPA_MAX_FACES]; /* plane distance of each face; +INFINITY when free */
    int16_t free_list[EPA_MAX_FACES];
    int16_t visible_list[EPA_MAX_FACES];
    int16_t stack[EPA_MAX_FACES];
    epa_horizon_edge horizon[EPA_MAX_VERTICES];
    int16_t new_face[EPA_MAX_VERTICES];
    int16_t next_face[EPA_MAX_VERTICES];
    int16_t by_vertex[EPA_MAX_VERTICES]; /* horizon edge starting at a vertex, or -1 */
    int32_t vertex_count;
    int32_t face_top; /* faces [0, face_top) have been used */
    int32_t free_count;
} epa_polytope;

typedef struct epa_settings {
    double rel_tolerance;
    double abs_tolerance; /* absolute, metres (abs_tolerance option times the scale) */
    double zero;          /* lengths at or below this are zero (rounding noise), metres */
    int32_t max_iterations;
} epa_settings;

static double epa_max(double a, double b)
{
    return a > b ? a : b;
}

static int next3(int i)
{
    return i == 2 ? 0 : i + 1;
}

/* ------------------------------------------------------------------ face planes */

/* Outward normal of the counter-clockwise triangle (p0, p1, p2) from the cross product of
 * its two shorter edges, whose rounding error is the smallest of the three equivalent
 * forms. Returns false for a sliver (normal then still the best available, or zero). */
static bool triangle_normal(gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 p2, gjk_vec3 *n)
{
    gjk_vec3 e0 = gjk_sub(p1, p0), e1 = gjk_sub(p2, p1), e2 = gjk_sub(p0, p2);
    double l0 = gjk_length_sq(e0), l1 = gjk_length_sq(e1), l2 = gjk_length_sq(e2);
    gjk_vec3 c;
    double short_product;
    /* cross(e0, e1) = cross(e1, e2) = cross(e2, e0) = twice the area times the normal */
    if (l0 >= l1 && l0 >= l2) {
        c = gjk_cross(e1, e2);
        short_product = sqrt(l1 * l2);
    } else if (l1 >= l2) {
        c = gjk_cross(e2, e0);
        short_product = sqrt(l2 * l0);
    } else {
        c = gjk_cross(e0, e1);
        short_product = sqrt(l0 * l1);
    }
    double len = gjk_length(c);
    *n = len > 0.0 ? gjk_scale(c, 1.0 / len) : gjk_v3(0.0, 0.0, 0.0);
    return len > EPA_SLIVER_SINE * short_product;
}

static double plane_distance(gjk_vec3 n, gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 p2)
{
    return (gjk_dot(n, p0) + gjk_dot(n, p1) + gjk_dot(n, p2)) / 3.0;
}

/* Sets face fi's plane; a sliver takes the normal of `fallback` (a neighbour sharing an
 * edge, so the sliver lies in its plane to within the sliver's width). */
static void face_set_plane(epa_polytope *p, int32_t fi, int32_t fallback)
{
    epa_face *f = &p->face[fi];
    gjk_vec3 p0 = p->vert[f->v[0]].w, p1 = p->vert[f->v[1]].w, p2 = p->vert[f->v[2]].w;
    gjk_vec3 n;
    if (!triangle_normal(p0, p1, p2, &n) && fallback >= 0) {
        n = p->face[fallback].n;
    }
    if (gjk_length_sq(n) == 0.0) {
        /* Three coincident points and no neighbour: any direction is a valid plane. */
        n = gjk_v3(1.0, 0.0, 0.0);
    }
    f->n = n;
    p->dist[fi] = plane_distance(n, p0, p1, p2);
}

/* ------------------------------------------------------------------ polytope */

static int32_t face_alloc(epa_polytope *p)
{
    if (p->free_count > 0) {
        return p->free_list[--p->free_count];
    }
    GJK_ASSERT(p->face_top < EPA_MAX_FACES);
    return p->face_top++;
}

static void face_release(epa_polytope *p, int32_t fi)
{
    p->dist[fi] = INFINITY;
    p->face[fi].visible = 0;
    p->free_list[p->free_count++] = (int16_t)fi;
}

/* Builds the tetrahedron on 4 affinely independent vertices. */
static void polytope_init(epa_polytope *p, const gjk_vertex v[4])
{
    static const int16_t tri[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    p->vertex_count = 4;
    p->face_top = 0;
    p->free_count = 0;
    for (int i = 0; i < 4; ++i) {
        p->vert[i] = v[i];
    }
    gjk_vec3 a = gjk_sub(v[1].w, v[0].w), b = gjk_sub(v[2].w, v[0].w), c = gjk_sub(v[3].w, v[0].w);
    if (gjk_dot(gjk_cross(a, b), c) < 0.0) {
        /* With det[v1-v0, v2-v0, v3-v0] > 0 the faces above wind counter-clockwise. */
        p->vert[1] = v[2];
        p->vert[2] = v[1];
    }
    for (int i = 0; i < 4; ++i) {
        epa_face *f = &p->face[face_alloc(p)];
        for (int k = 0; k < 3; ++k) {
            f->v[k] = tri[i][k];
        }
        f->visible = 0;
    }
    /* Adjacency: edge (a, b) of one face is edge (b, a) of another. */
    for (int i = 0; i < 4; ++i) {
        for (int e = 0; e < 3; ++e) {
            int16_t va = p->face[i].v[e], vb = p->face[i].v[next3(e)];
            for (int j = 0; j < 4; ++j) {
                for (int k = 0; k < 3; ++k) {
                    if (p->face[j].v[k] == vb && p->face[j].v[next3(k)] == va) {
                        p->face[i].adj[e] = (int16_t)j;
                        p->face[i].adj_edge[e] = (uint8_t)k;
                    }
                }
            }
        }
    }
    for (int i = 0; i < 4; ++i) {
        face_set_plane(p, i, -1);
    }
    memset(p->by_vertex, 0xff, sizeof p->by_vertex);
}

static int32_t nearest_face(const epa_polytope *p)
{
    int32_t best = 0;
    double best_d = INFINITY;
    for (int32_t i = 0; i < p->face_top; ++i) {
        if (p->dist[i] < best_d) {
            best_d = p->dist[i];
            best = i;
        }
    }
    return best;
}

typedef enum epa_expand_result {
    EPA_EXPANDED,
    EPA_EXPAND_CAPACITY, /* the new faces do not fit */
    EPA_EXPAND_BROKEN    /* the horizon is not one simple loop (rounding) */
} epa_expand_result;

/* Adds vertex iw (already stored, beyond face f0) to the polytope. Nothing changes unless
 * the expansion succeeds. */
static epa_expand_result polytope_expand(epa_polytope *p, int32_t f0, int32_t iw)
{
    gjk_vec3 w = p->vert[iw].w;
    int32_t visible = 0, top = 0, horizon = 0;
    epa_expand_result result = EPA_EXPANDED;

    /* Flood fill of the faces that see w, collecting the horizon edges. */
    p->face[f0].visible = 1;
    p->visible_list[visible++] = (int16_t)f0;
    p->stack[top++] = (int16_t)f0;
    while (top > 0 && result == EPA_EXPANDED) {
        const epa_face *f = &p->face[p->stack[--top]];
        for (int e = 0; e < 3; ++e) {
            int32_t gi = f->adj[e];
            epa_face *g = &p->face[gi];
            if (g->visible) {
                continue;
            }
            if (gjk_dot(g->n, w) > p->dist[gi]) {
                g->visible = 1;
                p->visible_list[visible++] = (int16_t)gi;
                p->stack[top++] = (int16_t)gi;
            } else if (horizon < EPA_MAX_VERTICES) {
                p->horizon[horizon].face = (int16_t)gi;
                p->horizon[horizon].edge = f->adj_edge[e];
                ++horizon;
            } else {
                result = EPA_EXPAND_BROKEN; /* longer than any simple loop can be */
            }
        }
    }

    /* New face i will be (x_i, y_i, w) on horizon edge (y_i, x_i) of the unseen face. Its
     * edge (y_i, w) meets edge (w, x_j) of the face j with x_j = y_i. The horizon is one
     * simple loop iff the x_i are distinct and i -> j is a single cycle. */
    if (result == EPA_EXPANDED && horizon < 3) {
        result = EPA_EXPAND_BROKEN;
    }
    for (int32_t i = 0; i < horizon && result == EPA_EXPANDED; ++i) {
        const epa_face *g = &p->face[p->horizon[i].face];
        int16_t x = g->v[next3(p->horizon[i].edge)];
        if (p->by_vertex[x] >= 0) {
            result = EPA_EXPAND_BROKEN;
        } else {
            p->by_vertex[x] = (int16_t)i;
        }
    }
    for (int32_t i = 0; i < horizon && result == EPA_EXPANDED; ++i) {
        const epa_face *g = &p->face[p->horizon[i].face];
        int16_t y = g->v[p->horizon[i].edge];
        p->next_face[i] = p->by_vertex[y];
        if (p->next_face[i] < 0) {
            result = EPA_EXPAND_BROKEN;
        }
    }
    if (result == EPA_EXPANDED) {
        int32_t cur = 0;
        for (int32_t k = 1; k <= horizon; ++k) {
            cur = p->next_face[cur];
            if ((cur == 0) != (k == horizon)) {
                result = EPA_EXPAND_BROKEN;
                break;
            }
        }
    }
    if (result == EPA_EXPANDED && horizon > visible + p->free_count + EPA_MAX_FACES - p->face_top) {
        result = EPA_EXPAND_CAPACITY;
    }
    for (int32_t i = 0; i < horizon; ++i) {
        const epa_face *g = &p->face[p->horizon[i].face];
        p->by_vertex[g->v[next3(p->horizon[i].edge)]] = -1;
    }
    if (result != EPA_EXPANDED) {
        for (int32_t i = 0; i < visible; ++i) {
            p->face[p->visible_list[i]].visible = 0;
        }
        return result;
    }

    /* Commit: remove the seen faces, fan w onto the horizon. */
    for (int32_t i = 0; i < visible; ++i) {
        face_release(p, p->visible_list[i]);
    }
    for (int32_t i = 0; i < horizon; ++i) {
        int32_t fi = face_alloc(p);
        int32_t gi = p->horizon[i].face;
        int ge = p->horizon[i].edge;
        epa_face *g = &p->face[gi];
        epa_face *nf = &p->face[fi];
        nf->v[0] = g->v[next3(ge)];
        nf->v[1] = g->v[ge];
        nf->v[2] = (int16_t)iw;
        nf->adj[0] = (int16_t)gi;
        nf->adj_edge[0] = (uint8_t)ge;
        nf->visible = 0;
        g->adj[ge] = (int16_t)fi;
        g->adj_edge[ge] = 0;
        p->new_face[i] = (int16_t)fi;
        face_set_plane(p, fi, gi);
    }
    for (int32_t i = 0; i < horizon; ++i) {
        epa_face *fi = &p->face[p->new_face[i]];
        int32_t j = p->next_face[i];
        epa_face *fj = &p->face[p->new_face[j]];
        fi->adj[1] = p->new_face[j];
        fi->adj_edge[1] = 2;
        fj->adj[2] = p->new_face[i];
        fj->adj_edge[2] = 1;
    }
    return EPA_EXPANDED;
}

/* ------------------------------------------------------------------ answers */

/* Barycentric coordinates of the point of triangle (p0, p1, p2) nearest to q. */
static void segment_closest(gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 q, double *l0, double *l1)
{
    gjk_vec3 e = gjk_sub(p1, p0);
    double ee = gjk_length_sq(e);
    double t = ee > 0.0 ? gjk_dot(gjk_sub(q, p0), e) / ee : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    *l0 = 1.0 - t;
    *l1 = t;
}

static void triangle_barycentric(gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 p2, gjk_vec3 n, gjk_vec3 q,
                                 double lambda[3])
{
    /* Signed areas of the sub-triangles opposite each vertex, measured along n. */
    gjk_vec3 a = gjk_sub(p0, q), b = gjk_sub(p1, q), c = gjk_sub(p2, q);
    double u = gjk_dot(n, gjk_cross(b, c));
    double v = gjk_dot(n, gjk_cross(c, a));
    double t = gjk_dot(n, gjk_cross(a, b));
    double sum = u + v + t;
    if (u >= 0.0 && v >= 0.0 && t >= 0.0 && sum > 0.0) {
        lambda[0] = u / sum;
        lambda[1] = v / sum;
        lambda[2] = t / sum;
        return;
    }
    /* q projects outside (rounding, or a sliver): nearest point of the three edges. */
    gjk_vec3 pts[3] = {p0, p1, p2};
    double best = INFINITY;
    for (int e = 0; e < 3; ++e) {
        int k = next3(e);
        double s0, s1;
        segment_closest(pts[e], pts[k], q, &s0, &s1);
        gjk_vec3 x = gjk_add(gjk_scale(pts[e], s0), gjk_scale(pts[k], s1));
        double d2 = gjk_length_sq(gjk_sub(x, q));
        if (d2 < best) {
            best = d2;
            lambda[0] = lambda[1] = lambda[2] = 0.0;
            lambda[e] = s0;
            lambda[k] = s1;
        }
    }
}

/* Fills depth, normal and deepest points from face fi. */
static void answer_from_face(const epa_polytope *p, int32_t fi, gjk_epa_result *r)
{
    const epa_face *f = &p->face[fi];
    const gjk_vertex *v0 = &p->vert[f->v[0]], *v1 = &p->vert[f->v[1]], *v2 = &p->vert[f->v[2]];
    double d = p->dist[fi];
    double lambda[3];
    triangle_barycentric(v0->w, v1->w, v2->w, f->n, gjk_scale(f->n, d), lambda);
    r->depth = d > 0.0 ? d : 0.0;
    r->normal = f->n;
    r->point_a = gjk_add(gjk_add(gjk_scale(v0->a, lambda[0]), gjk_scale(v1->a, lambda[1])),
                         gjk_scale(v2->a, lambda[2]));
    r->point_b = gjk_add(gjk_add(gjk_scale(v0->b, lambda[0]), gjk_scale(v1->b, lambda[1])),
                         gjk_scale(v2->b, lambda[2]));
}

/* Touching answer from GJK's own barycentric weights (the origin = sum lambda_i w_i). */
static void answer_touching(const gjk_vertex *v, const double *lambda, int32_t count,
                            gjk_vec3 normal, gjk_epa_result *r)
{
    double sum = 0.0;
    bool ok = true;
    for (int32_t i = 0; i < count; ++i) {
        ok = ok && isfinite(lambda[i]) && lambda[i] >= 0.0;
        sum += lambda[i];
    }
    ok = ok && sum > 0.0 && isfinite(sum);
    gjk_vec3 pa = gjk_v3(0.0, 0.0, 0.0), pb = pa;
    for (int32_t i = 0; i < count; ++i) {
        double l = ok ? lambda[i] / sum : (i == 0 ? 1.0 : 0.0);
        pa = gjk_madd(pa, l, v[i].a);
        pb = gjk_madd(pb, l, v[i].b);
    }
    r->status = GJK_STATUS_TOUCHING;
    r->depth = 0.0;
    r->normal = normal;
    r->point_a = pa;
    r->point_b = pb;
}

/* ------------------------------------------------------------------ initial tetrahedron */

typedef struct epa_seed {
    gjk_vertex v[4];
    int32_t count; /* affinely independent vertices so far */
    gjk_vec3 axis; /* count 2: unit segment direction; count 3: unit triangle normal */
    bool touching; /* a support value proved depth ~ 0 */
    gjk_vec3 touch_normal;
} epa_seed;

/* Support along unit direction n; records a touching certificate when h(n) <= zero. */
static gjk_vertex seed_support(const gjk_pair_frame *f, const epa_settings *s, epa_seed *seed,
                               gjk_vec3 n, int32_t *support_calls)
{
    gjk_vertex w;
    gjk_pair_support(f, n, seed->v[0].ia, seed->v[0].ib, &w);
    ++*support_calls;
    if (!seed->touching && gjk_dot(w.w, n) <= s->zero) {
        seed->touching = true;
        seed->touch_normal = n;
    }
    return w;
}

/* Distance of x from the affine hull of the seed's vertices. */
static double seed_offset(const epa_seed *seed, gjk_vec3 x)
{
    gjk_vec3 r = gjk_sub(x, seed->v[0].w);
    switch (seed->count) {
    case 1:
        return gjk_length(r);
    case 2:
        return gjk_length(gjk_madd(r, -gjk_dot(r, seed->axis), seed->axis));
    default:
        return fabs(gjk_dot(r, seed->axis));
    }
}

/* Adds x if it lies more than `zero` off the affine hull; keeps `axis` up to date. */
static bool seed_add(epa_seed *seed, const gjk_vertex *x, double zero)
{
    if (seed->count >= 4 || seed_offset(seed, x->w) <= zero) {
        return false;
    }
    if (seed->count == 1) {
        seed->axis = gjk_normalize(gjk_sub(x->w, seed->v[0].w));
    } else if (seed->count == 2) {
        gjk_vec3 n;
        triangle_normal(seed->v[0].w, seed->v[1].w, x->w, &n);
        if (gjk_length_sq(n) == 0.0) {
            return false;
        }
        seed->axis = n;
    }
    seed->v[seed->count++] = *x;
    return true;
}

/* A unit vector orthogonal to unit u. */
static gjk_vec3 any_orthogonal(gjk_vec3 u)
{
    double ax = fabs(u.x), ay = fabs(u.y), az = fabs(u.z);
    gjk_vec3 e = ax <= ay && ax <= az ? gjk_v3(1.0, 0.0, 0.0)
                 : ay <= az           ? gjk_v3(0.0, 1.0, 0.0)
                                      : gjk_v3(0.0, 0.0, 1.0);
    return gjk_normalize(gjk_cross(u, e));
}

/* Grows GJK's simplex to a tetrahedron. Returns false when D is flat to rounding or a
 * support value proves the origin is on D's boundary (seed->touching / touch_normal). */
static bool seed_tetrahedron(const gjk_pair_frame *f, const gjk_simplex *simplex,
                             const epa_settings *s, epa_seed *seed, int32_t *support_calls)
{
    seed->count = 0;
    seed->touching = false;
    seed->touch_normal = gjk_v3(1.0, 0.0, 0.0);
    seed->axis = gjk_v3(1.0, 0.0, 0.0);
    int32_t n = simplex->count < 0 ? 0 : (simplex->count > 4 ? 4 : simplex->count);
    for (int32_t i = 0; i < n; ++i) {
        if (!gjk_vec3_is_finite(simplex->v[i].w)) {
            continue;
        }
        if (seed->count == 0) {
            seed->v[seed->count++] = simplex->v[i];
        } else {
            seed_add(seed, &simplex->v[i], s->zero);
        }
    }
    if (seed->count == 0) {
        gjk_vertex w;
        gjk_pair_support(f, gjk_v3(1.0, 0.0, 0.0), GJK_CACHE_NO_INDEX, GJK_CACHE_NO_INDEX, &w);
        ++*support_calls;
        seed->v[seed->count++] = w;
    }

    /* A point: the farthest support along the six axis directions. */
    static const gjk_vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    for (int k = 0; k < 3 && seed->count == 1 && !seed->touching; ++k) {
        gjk_vertex wp = seed_support(f, s, seed, axes[k], support_calls);
        gjk_vertex wn = seed_support(f, s, seed, gjk_neg(axes[k]), support_calls);
        bool far_p = seed_offset(seed, wp.w) >= seed_offset(seed, wn.w);
        seed_add(seed, far_p ? &wp : &wn, s->zero);
    }
    /* A segment: the farther support along two directions orthogonal to it. */
    if (seed->count == 2 && !seed->touching) {
        gjk_vec3 p1 = any_orthogonal(seed->axis);
        gjk_vec3 p2 = gjk_cross(seed->axis, p1);
        gjk_vec3 dirs[2] = {p1, p2};
        for (int k = 0; k < 2 && seed->count == 2 && !seed->touching; ++k) {
            gjk_vertex wp = seed_support(f, s, seed, dirs[k], support_calls);
            gjk_vertex wn = seed_support(f, s, seed, gjk_neg(dirs[k]), support_calls);
            bool far_p = seed_offset(seed, wp.w) >= seed_offset(seed, wn.w);
            seed_add(seed, far_p ? &wp : &wn, s->zero);
        }
    }
    /* A triangle: the support on the origin's side of its plane (the other side if that
     * one is flat). */
    if (seed->count == 3 && !seed->touching) {
        double side = -gjk_dot(seed->axis, seed->v[0].w); /* origin's height over the plane */
        gjk_vec3 first = side >= 0.0 ? seed->axis : gjk_neg(seed->axis);
        gjk_vertex w = seed_support(f, s, seed, first, support_calls);
        if (!seed->touching && !seed_add(seed, &w, s->zero)) {
            w = seed_support(f, s, seed, gjk_neg(first), support_calls);
            if (!seed->touching) {
                seed_add(seed, &w, s->zero);
            }
        }
    }
    if (seed->touching) {
        return false;
    }
    if (seed->count < 4) {
        /* D is flat (or a segment, or a point) to rounding: it has no interior, so the
         * origin is on its boundary. */
        seed->touching = true;
        seed->touch_normal = seed->count >= 2
                                 ? (seed->count == 3 ? seed->axis : any_orthogonal(seed->axis))
                                 : gjk_v3(1.0, 0.0, 0.0);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ EPA */

static epa_settings epa_settings_from(const gjk_pair_frame *f, const gjk_simplex *simplex,
                                      const gjk_options *o)
{
    epa_settings s;
    s.rel_tolerance =
        o != NULL && o->rel_tolerance > 0.0 ? o->rel_tolerance : EPA_DEFAULT_REL_TOLERANCE;
    double abs_tol =
        o != NULL && o->abs_tolerance > 0.0 ? o->abs_tolerance : EPA_DEFAULT_ABS_TOLERANCE;
    s.max_iterations =
        o != NULL && o->epa_max_iterations > 0 ? o->epa_max_iterations : EPA_DEFAULT_MAX_ITERATIONS;
    /* The pair's scale; the simplex itself bounds it from below should it be missing. */
    double scale = isfinite(f->scale) && f->scale > 0.0 ? f->scale : 0.0;
    for (int32_t i = 0; i < simplex->count && i < 4; ++i) {
        double l = gjk_length(simplex->v[i].w);
        scale = isfinite(l) ? epa_max(scale, l) : scale;
    }
    s.abs_tolerance = abs_tol * scale;
    s.zero = epa_max(abs_tol, EPA_ZERO_ULPS * DBL_EPSILON) * scale;
    return s;
}

static bool vertex_is_known(const epa_polytope *p, gjk_vec3 w)
{
    for (int32_t i = 0; i < p->vertex_count; ++i) {
        gjk_vec3 v = p->vert[i].w;
        if (v.x == w.x && v.y == w.y && v.z == w.z) {
            return true;
        }
    }
    return false;
}

gjk_epa_result gjk_epa(const gjk_pair_frame *f, const gjk_simplex *simplex,
                       const gjk_options *options)
{
    gjk_epa_result r;
    memset(&r, 0, sizeof r);
    r.normal = gjk_v3(1.0, 0.0, 0.0);
    epa_settings s = epa_settings_from(f, simplex, options);

    epa_seed seed;
    if (!seed_tetrahedron(f, simplex, &s, &seed, &r.support_calls)) {
        int32_t n = simplex->count < 0 ? 0 : (simplex->count > 4 ? 4 : simplex->count);
        if (n > 0) {
            answer_touching(simplex->v, simplex->lambda, n, seed.touch_normal, &r);
        } else {
            answer_touching(seed.v, (const double[1]){1.0}, 1, seed.touch_normal, &r);
        }
        return r;
    }

    epa_polytope p;
    polytope_init(&p, seed.v);

    for (;;) {
        int32_t fi = nearest_face(&p);
        const epa_face *face = &p.face[fi];
        double d = p.dist[fi];
        if (r.iterations >= s.max_iterations) {
            r.status = GJK_STATUS_ITERATION_LIMIT;
            answer_from_face(&p, fi, &r);
            break;
        }
        ++r.iterations;
        gjk_vertex w;
        const gjk_vertex *hint = &p.vert[face->v[0]];
        gjk_pair_support(f, face->n, hint->ia, hint->ib, &w);
        ++r.support_calls;
        double h = gjk_dot(w.w, face->n);
        if (h <= s.zero) {
            /* D lies below the plane through (nearly) the origin: depth <= h ~ 0. */
            answer_from_face(&p, fi, &r);
            r.status = GJK_STATUS_TOUCHING;
            r.depth = 0.0;
            break;
        }
        if (h - d <= epa_max(s.rel_tolerance * d, s.abs_tolerance) || vertex_is_known(&p, w.w)) {
            /* Converged; or w is already a vertex, so P cannot grow further and the gap
             * left is rounding in the face plane. */
            r.status = GJK_STATUS_OVERLAPPING;
            answer_from_face(&p, fi, &r);
            break;
        }
        if (p.vertex_count >= EPA_MAX_VERTICES) {
            r.status = GJK_STATUS_CAPACITY_LIMIT;
            answer_from_face(&p, fi, &r);
            break;
        }
        int32_t iw = p.vertex_count++;
        p.vert[iw] = w;
        epa_expand_result e = polytope_expand(&p, fi, iw);
        if (e != EPA_EXPANDED) {
            --p.vertex_count;
            r.status =
                e == EPA_EXPAND_CAPACITY ? GJK_STATUS_CAPACITY_LIMIT : GJK_STATUS_ITERATION_LIMIT;
            answer_from_face(&p, fi, &r);
            break;
        }
    }
    return r;
}
