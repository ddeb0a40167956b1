/* epa.c — penetration depth by the Expanding Polytope Algorithm.
 *
 * References: G. van den Bergen, "Proximity Queries and Penetration Depth Computation on 3D
 * Game Objects", GDC 2001, and "Collision Detection in Interactive 3D Environments" (2003)
 * section 4.3.8.
 *
 * The input is the Minkowski difference D = core(A) - core(B) (support map
 * gjk_pair_support, A-local frame) and GJK's final simplex, which contains the origin. For a
 * convex D containing the origin, the penetration depth is the distance from the origin to
 * the boundary of D, which is the minimum of the support function over unit directions:
 *
 *     depth = min_{|n| = 1} h(n),   h(n) = max_{x in D} dot(x, n).
 *
 * EPA keeps a convex polytope P inside D (its vertices are support points of D) whose faces
 * are stored with their outward unit normal n_f and plane distance d_f = dot(n_f, vertex).
 * P inside D makes the nearest face distance min_f d_f a lower bound on the depth, and every
 * support value h(n_f) an upper bound. Each iteration takes the nearest face, evaluates
 * w = s(n_f), and either stops (h(n_f) - d_f within tolerance) or adds w to P: the faces that
 * see w are removed and a fan of new faces joins w to the horizon, the loop of edges between
 * seen and unseen faces. The answer is the nearest face: depth = d_f, normal = n_f, and the
 * deepest points are the barycentric combination of the face's support points at the
 * projection d_f * n_f of the origin (which lies in that face, or in a coplanar neighbour:
 * the ball of radius d_f is inside P and touches the face's plane there).
 *
 * Robustness:
 *  - GJK's simplex may be degenerate (1-3 vertices, or a flat or duplicated tetrahedron). It
 *    is reduced to an affinely independent set and grown to a tetrahedron by support points
 *    along directions orthogonal to its affine hull, on the side of the origin.
 *  - Any support value h(n) <= 0 (to rounding) proves that the origin is on the boundary of
 *    D: the shapes touch, depth 0 (GJK_STATUS_TOUCHING). A flat D (no volume: two coplanar
 *    polygons, say) is the same case.
 *  - The nearest face is chosen by signed distance, so a polytope that misses the origin
 *    (a rounding error, or a simplex that never held it) grows towards it, as GJK would.
 *  - Face normals use the best-conditioned cross product (the two shorter edges); slivers
 *    take the normal of the unseen face across their horizon edge. Barycentric weights are
 *    measured from a vertex of the face, not from the origin.
 *  - A face sees w only if w is above its plane by more than rounding; the faces that see w
 *    are taken as the edge-connected set around the nearest face, and its boundary must be
 *    one simple loop before anything changes. If rounding ever broke that, EPA would stop
 *    with its best estimate (GJK_STATUS_ITERATION_LIMIT) rather than corrupt the polytope.
 *  - P is convex only to rounding where D is flat (the vertices of a flat part lie off its
 *    plane by their own rounding). No new face may fold over (face inwards, with a plane
 *    distance near -depth): a face that would puts the face across its horizon edge, which
 *    rounding misjudged, into the region (polytope_expand). A face whose support point is
 *    already a vertex, above its plane by more than the plane's rounding, is not a face of
 *    the hull: it is spent (never taken as the nearest face again) instead of ending EPA as
 *    converged.
 *  - P only grows, so while it is convex its nearest face can only move away from the origin
 *    and never past a support value. A nearest face shallower than an earlier one, or
 *    deeper than a support value, beyond the planes' rounding, shows rounding has broken P:
 *    EPA answers from the tightest face seen (least gap between its support value and its
 *    plane), at its support value (the depth its normal realises).
 *  - Every answer carries both bounds: depth (nearest face, lower) and depth_upper (least
 *    support value seen). ITERATION_LIMIT and CAPACITY_LIMIT report the nearest face so far.
 *
 * Storage: the polytope's arrays start in one block on the stack, sized for 480 vertices
 * (enough for every case of the case sets: the deepest 2000 x 2000-vertex pair of full.cases
 * needs 449). A polytope that outgrows it
 * moves, at twice the capacity each time, into a workspace block (epa_grow): the caller's
 * (gjk_query.workspace, kept for later queries and reused when large enough), else one of
 * gjk_epa's own, freed before it returns. Nothing else allocates, and nothing is global. The
 * count grows as D approaches a ball around the origin: a certified lower bound needs P to
 * follow D everywhere to within h(n) - depth (two concentric 2000-point spheres: 768
 * vertices). The faces that see w come from one pass over
 * the plane arrays (structure of arrays), which also finds the next nearest face. Each face
 * keeps the three faces across its edges (adj), so the region and its horizon are read off
 * those links; matching the seen faces' edges among themselves instead took as many
 * instructions but mispredicted about a fifth of EPA's branches. */
#include "internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The storage on the stack (see the top of this file); beyond it the polytope moves into a
 * workspace block (epa_grow). */
enum {
    EPA_STACK_VERTICES = 480,
    /* A closed triangulated polytope with V vertices has 2V - 4 faces (Euler). */
    EPA_STACK_FACES = 2 * EPA_STACK_VERTICES - 4,
    /* Faces seeing one new vertex, and edges of its horizon: tens in practice. */
    EPA_STACK_REGION = 128,
    EPA_STACK_HORIZON = 128,
    /* Vertices of the largest polytope a workspace may hold (24 bytes of index per face must
     * stay far from overflowing a size_t; 2^24 vertices are about 8 GiB of polytope). */
    EPA_GROW_MAX_VERTICES = 1 << 24
};

/* Capacities of a polytope's arrays (faces = 2 vertices - 4). */
typedef struct epa_capacity {
    int32_t vertices, faces, region, horizon;
} epa_capacity;

typedef struct epa_polytope {
    /* Vertices: support points of D and of core A (core B's is a - w). */
    gjk_vec3 *w;
    gjk_vec3 *a;
    uint32_t *hint_a; /* support features, to seed hill climbing */
    uint32_t *hint_b;
    int32_t *edge_from; /* horizon edge starting here; -1 outside link_horizon */
    /* Faces [0, face_count), structure of arrays: outward unit normal, plane distance,
     * vertices counter-clockwise seen from outside. */
    double *nx, *ny, *nz;
    double *d;
    int32_t (*fv)[3];
    int32_t (*adj)[3]; /* face across edge fv[k] -> fv[k + 1] (twin y -> x) */
    int32_t *seen_at;  /* index in seen during an expansion, else -1 */
    bool *spent;       /* not a face of the hull: a vertex lies above its plane */
    gjk_vec3 inside;      /* a point inside every polytope grown from the first (its centroid) */
    double inside_margin; /* its distance from the first polytope's faces, at most from any */
    int32_t vertex_count;
    int32_t face_count;
    /* Scratch of one expansion. */
    int32_t *seen;        /* faces that see w */
    int32_t *region;      /* those edge-connected to the nearest face */
    bool *taken;          /* seen[i] is in region */
    int32_t *hx, *hy;     /* horizon edge x -> y of a seen face */
    int32_t *hface;       /* the unseen face across it (y -> x) */
    int32_t *hslot;       /* slot of its new face (x, y, w) */
    int32_t *hnext;       /* edge starting where this one ends */
    gjk_vec3 *hn;         /* normal of its new face (x, y, w) */
    bool *hsliver;        /* that face is a sliver */
    epa_capacity cap;
    /* Where the arrays live: the stack block, or the workspace's (epa_grow). */
    gjk_workspace *workspace; /* the caller's, or gjk_epa's own for one call */
    bool in_workspace;
} epa_polytope;

/* The stack block: the arrays at the stack capacities, laid out by epa_layout. */
#define EPA_ALIGN 64
typedef struct epa_stack_block {
    _Alignas(EPA_ALIGN) unsigned char bytes[EPA_STACK_VERTICES * (2 * sizeof(gjk_vec3) + 12) +
                                            EPA_STACK_FACES * (4 * sizeof(double) + 28 + 1) +
                                            EPA_STACK_REGION * 9 +
                                            EPA_STACK_HORIZON * (20 + sizeof(gjk_vec3) + 1) +
                                            24 * EPA_ALIGN];
} epa_stack_block;

/* Places p's arrays at capacity c in the block at base (NULL: only measures); returns the
 * bytes they take. Every array starts on an EPA_ALIGN boundary. */
static size_t epa_layout(epa_polytope *p, epa_capacity c, unsigned char *base)
{
    size_t at = 0;
#define EPA_PLACE(field, count)                                                                    \
    do {                                                                                           \
        if (base != NULL) {                                                                        \
            p->field = (void *)(base + at);                                                        \
        }                                                                                          \
        at += ((size_t)(count) * sizeof *p->field + EPA_ALIGN - 1) / EPA_ALIGN * EPA_ALIGN;        \
    } while (0)
    EPA_PLACE(w, c.vertices);
    EPA_PLACE(a, c.vertices);
    EPA_PLACE(nx, c.faces);
    EPA_PLACE(ny, c.faces);
    EPA_PLACE(nz, c.faces);
    EPA_PLACE(d, c.faces);
    EPA_PLACE(hn, c.horizon);
    EPA_PLACE(hint_a, c.vertices);
    EPA_PLACE(hint_b, c.vertices);
    EPA_PLACE(edge_from, c.vertices);
    EPA_PLACE(fv, c.faces);
    EPA_PLACE(adj, c.faces);
    EPA_PLACE(seen_at, c.faces);
    EPA_PLACE(seen, c.region);
    EPA_PLACE(region, c.region);
    EPA_PLACE(hx, c.horizon);
    EPA_PLACE(hy, c.horizon);
    EPA_PLACE(hface, c.horizon);
    EPA_PLACE(hslot, c.horizon);
    EPA_PLACE(hnext, c.horizon);
    EPA_PLACE(spent, c.faces);
    EPA_PLACE(taken, c.region);
    EPA_PLACE(hsliver, c.horizon);
#undef EPA_PLACE
    if (base != NULL) {
        p->cap = c;
    }
    return at;
}

static void polytope_bind_stack(epa_polytope *p, epa_stack_block *block, gjk_workspace *ws)
{
    const epa_capacity c = {EPA_STACK_VERTICES, EPA_STACK_FACES, EPA_STACK_REGION,
                            EPA_STACK_HORIZON};
    size_t bytes = epa_layout(p, c, block->bytes);
    GJK_ASSERT(bytes <= sizeof block->bytes);
    (void)bytes;
    p->workspace = ws;
    p->in_workspace = false;
}

static epa_capacity capacity_of(int32_t vertices)
{
    epa_capacity c;
    c.vertices = vertices;
    c.faces = 2 * vertices - 4;
    c.region = c.faces;
    c.horizon = vertices;
    return c;
}

/* Moves P into a workspace block of at least twice the vertex capacity (faces 2V - 4, region
 * up to every face, horizon up to every vertex): the caller's block, at the most it holds,
 * when that is enough, else a new one that replaces it (the only allocation EPA makes, and
 * only here). The live part of every array that outlives an expansion is copied; nothing
 * else changes. False when the capacity is at its limit or memory runs out (P is then
 * untouched). */
static GJK_NOINLINE bool epa_grow(epa_polytope *p)
{
    if (p->workspace == NULL || p->cap.vertices >= EPA_GROW_MAX_VERTICES) {
        return false;
    }
    epa_capacity c = capacity_of(2 * p->cap.vertices);
    size_t bytes = epa_layout(NULL, c, NULL);
    gjk_workspace *ws = p->workspace;
    unsigned char *block = NULL;
    if (!p->in_workspace && ws->block != NULL && ws->bytes >= bytes) {
        block = ws->block; /* a block from an earlier query, large enough */
        while (c.vertices < EPA_GROW_MAX_VERTICES &&
               epa_layout(NULL, capacity_of(2 * c.vertices), NULL) <= ws->bytes) {
            c = capacity_of(2 * c.vertices);
        }
        bytes = ws->bytes;
    } else {
        block = malloc(bytes);
        if (block == NULL) {
            return false;
        }
    }
    epa_polytope q = *p;
    epa_layout(&q, c, block);
    const size_t nv = (size_t)p->vertex_count, nf = (size_t)p->face_count;
    memcpy(q.w, p->w, nv * sizeof *p->w);
    memcpy(q.a, p->a, nv * sizeof *p->a);
    memcpy(q.hint_a, p->hint_a, nv * sizeof *p->hint_a);
    memcpy(q.hint_b, p->hint_b, nv * sizeof *p->hint_b);
    memcpy(q.edge_from, p->edge_from, nv * sizeof *p->edge_from);
    memcpy(q.nx, p->nx, nf * sizeof *p->nx);
    memcpy(q.ny, p->ny, nf * sizeof *p->ny);
    memcpy(q.nz, p->nz, nf * sizeof *p->nz);
    memcpy(q.d, p->d, nf * sizeof *p->d);
    memcpy(q.fv, p->fv, nf * sizeof *p->fv);
    memcpy(q.adj, p->adj, nf * sizeof *p->adj);
    memcpy(q.seen_at, p->seen_at, nf * sizeof *p->seen_at);
    memcpy(q.spent, p->spent, nf * sizeof *p->spent);
    if (block != ws->block) {
        free(ws->block);
        ws->block = block;
        ws->bytes = bytes;
        ws->grows += 1;
    }
    q.in_workspace = true;
    *p = q;
    return true;
}

/* Lengths below this many ulps of the pair's scale are rounding noise. */
#define EPA_ZERO_ULPS 16.0
/* The largest rounding of a face's plane, relative to the pair's scale, that may stand for
 * convergence (see the known-vertex exit in epa_run): beyond it the face is too
 * ill-conditioned to certify anything, and a face that deep beyond a support value means
 * rounding has broken the polytope. */
#define EPA_PLANE_NOISE_MAX 1e-10
/* A triangle whose two shorter edges meet at a sine below this is a sliver. Its own cross
 * product gives a normal with relative error ~ DBL_EPSILON / sine; its neighbour's plane is
 * off by ~ sine. The two balance near sqrt(DBL_EPSILON). */
#define EPA_SLIVER_SINE 1e-8

typedef struct epa_settings {
    double rel_tolerance;
    double abs_tolerance; /* metres: the abs_tolerance option times the pair's scale */
    double zero;          /* lengths at or below this are rounding noise, metres */
    double noise_max;     /* EPA_PLANE_NOISE_MAX times the pair's scale, metres */
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


/* ------------------------------------------------------------------ faces */

/* Outward normal of the counter-clockwise triangle (p0, p1, p2) from the cross product of
 * its two shorter edges, whose rounding error is the smallest of the three equal forms
 * cross(e0, e1) = cross(e1, e2) = cross(e2, e0). Returns false for a sliver (the normal is
 * then the best available, or zero for coincident points). Inline, as face_set: out of line
 * (gcc -O3 kept both so) the points went through memory, and the fan of new faces cost 6%
 * more of EPA's instructions. */
static inline bool triangle_normal(gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 p2, gjk_vec3 *n)
{
    gjk_vec3 e0 = gjk_sub(p1, p0), e1 = gjk_sub(p2, p1), e2 = gjk_sub(p0, p2);
    double l0 = gjk_length_sq(e0), l1 = gjk_length_sq(e1), l2 = gjk_length_sq(e2);
    gjk_vec3 c;
    double shorter_sq; /* product of the squared lengths of the two edges crossed */
    if (l0 >= l1 && l0 >= l2) {
        c = gjk_cross(e1, e2);
        shorter_sq = l1 * l2;
    } else if (l1 >= l2) {
        c = gjk_cross(e2, e0);
        shorter_sq = l2 * l0;
    } else {
        c = gjk_cross(e0, e1);
        shorter_sq = l0 * l1;
    }
    double len_sq = gjk_length_sq(c);
    *n = len_sq > 0.0 ? gjk_scale(c, 1.0 / sqrt(len_sq)) : gjk_v3(0.0, 0.0, 0.0);
    return len_sq > EPA_SLIVER_SINE * EPA_SLIVER_SINE * shorter_sq;
}

static gjk_vec3 face_normal(const epa_polytope *p, int32_t f)
{
    return gjk_v3(p->nx[f], p->ny[f], p->nz[f]);
}

static void face_points(const epa_polytope *p, int32_t f, gjk_vec3 pt[3])
{
    for (int k = 0; k < 3; ++k) {
        pt[k] = p->w[p->fv[f][k]];
    }
}

/* Stores face f = (v0, v1, v2) with unit normal n. */
static inline void face_set(epa_polytope *p, int32_t f, int32_t v0, int32_t v1, int32_t v2,
                            gjk_vec3 n)
{
    gjk_vec3 p0 = p->w[v0], p1 = p->w[v1], p2 = p->w[v2];
    p->fv[f][0] = v0;
    p->fv[f][1] = v1;
    p->fv[f][2] = v2;
    p->nx[f] = n.x;
    p->ny[f] = n.y;
    p->nz[f] = n.z;
    p->d[f] = (gjk_dot(n, p0) + gjk_dot(n, p1) + gjk_dot(n, p2)) * (1.0 / 3.0);
    p->spent[f] = false;
    p->seen_at[f] = -1;
}

/* Plane distance of face f as a candidate for the nearest face (spent faces never are). */
static double face_rank(const epa_polytope *p, int32_t f)
{
    return p->spent[f] ? HUGE_VAL : p->d[f];
}

/* Moves face `from` to slot `to` (a dead one), and its neighbours' links with it. */
static void face_move(epa_polytope *p, int32_t to, int32_t from)
{
    p->nx[to] = p->nx[from];
    p->ny[to] = p->ny[from];
    p->nz[to] = p->nz[from];
    p->d[to] = p->d[from];
    p->spent[to] = p->spent[from];
    p->seen_at[to] = p->seen_at[from];
    memcpy(p->fv[to], p->fv[from], sizeof p->fv[to]);
    memcpy(p->adj[to], p->adj[from], sizeof p->adj[to]);
    for (int e = 0; e < 3; ++e) {
        int32_t *back = p->adj[p->adj[to][e]];
        for (int k = 0; k < 3; ++k) {
            back[k] = back[k] == from ? (int32_t)to : back[k];
        }
    }
}

static void vertex_set(epa_polytope *p, int32_t i, const gjk_vertex *v)
{
    p->w[i] = v->w;
    p->a[i] = v->a;
    p->hint_a[i] = v->ia;
    p->hint_b[i] = v->ib;
    p->edge_from[i] = -1;
}

/* The tetrahedron on 4 affinely independent vertices. */
static void polytope_init(epa_polytope *p, const gjk_vertex v[4])
{
    int order[4] = {0, 1, 2, 3};
    gjk_vec3 e1 = gjk_sub(v[1].w, v[0].w), e2 = gjk_sub(v[2].w, v[0].w);
    gjk_vec3 e3 = gjk_sub(v[3].w, v[0].w);
    if (gjk_dot(gjk_cross(e1, e2), e3) < 0.0) {
        order[1] = 2; /* make det[v1-v0, v2-v0, v3-v0] > 0 */
        order[2] = 1;
    }
    for (int i = 0; i < 4; ++i) {
        vertex_set(p, i, &v[order[i]]);
    }
    p->vertex_count = 4;
    p->inside = gjk_scale(gjk_add(gjk_add(p->w[0], p->w[1]), gjk_add(p->w[2], p->w[3])), 0.25);
    /* With a positive determinant these wind counter-clockwise seen from outside. */
    static const int32_t tri[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    static const int32_t across[4][3] = {{2, 3, 1}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};
    memcpy(p->adj, across, sizeof across);
    for (int f = 0; f < 4; ++f) {
        gjk_vec3 n;
        triangle_normal(p->w[tri[f][0]], p->w[tri[f][1]], p->w[tri[f][2]], &n);
        if (gjk_length_sq(n) == 0.0) {
            n = gjk_v3(1.0, 0.0, 0.0); /* unreachable: the seed's points are independent */
        }
        face_set(p, f, tri[f][0], tri[f][1], tri[f][2], n);
        double margin = p->d[f] - gjk_dot(n, p->inside);
        p->inside_margin = f == 0 || margin < p->inside_margin ? margin : p->inside_margin;
    }
    p->face_count = 4;
}

/* The nearest face that is not spent, -1 if all are. */
static int32_t nearest_face(const epa_polytope *p)
{
    int32_t best = -1;
    double best_d = HUGE_VAL;
    for (int32_t f = 0; f < p->face_count; ++f) {
        if (face_rank(p, f) < best_d) {
            best_d = face_rank(p, f);
            best = f;
        }
    }
    return best;
}

typedef enum epa_expand_result {
    EPA_EXPANDED,
    EPA_EXPAND_CAPACITY, /* the region, its horizon or the new faces do not fit */
    EPA_EXPAND_BROKEN,   /* the horizon is not one simple loop (rounding) */
    EPA_EXPAND_DUPLICATE /* the new vertex is within rounding of a horizon vertex */
} epa_expand_result;

/* Walks the faces of seen[0, seen_count) edge-connected to seen[0] (the region) and lists
 * the horizon: the edges of region faces whose twin is not in the region, with the face
 * across each. */
static epa_expand_result walk_region(epa_polytope *p, int32_t seen_count, int32_t *region_count,
                                     int32_t *horizon_count)
{
    memset(p->taken, 0, (size_t)seen_count * sizeof p->taken[0]);
    p->taken[0] = true;
    p->region[0] = p->seen[0];
    int32_t count = 1, horizon = 0;
    for (int32_t r = 0; r < count; ++r) {
        int32_t f = p->region[r];
        for (int e = 0; e < 3; ++e) {
            int32_t g = p->adj[f][e];
            int32_t twin = p->seen_at[g];
            if (twin < 0) {
                if (horizon == p->cap.horizon) {
                    return EPA_EXPAND_CAPACITY;
                }
                p->hx[horizon] = p->fv[f][e];
                p->hy[horizon] = p->fv[f][next3(e)];
                p->hface[horizon] = g;
                ++horizon;
            } else if (!p->taken[twin]) {
                p->taken[twin] = true;
                p->region[count++] = g;
            }
        }
    }
    *region_count = count;
    *horizon_count = horizon;
    return EPA_EXPANDED;
}

/* True if `inside` lies above the triangle (x, y, w) beyond the rounding of their
 * determinant: det[y - x, w - x, inside - x] > 8 eps |y - x| |w - x| |inside - x|. */
static bool folds_over(gjk_vec3 x, gjk_vec3 y, gjk_vec3 w, gjk_vec3 inside)
{
    gjk_vec3 e = gjk_sub(y, x), r = gjk_sub(w, x), c = gjk_sub(inside, x);
    double det = gjk_dot(gjk_cross(e, r), c);
    return det > 0.0 && det * det > 64.0 * DBL_EPSILON * DBL_EPSILON * gjk_length_sq(e) *
                                        gjk_length_sq(r) * gjk_length_sq(c);
}

/* Lists the faces that see vertex iw (f0, which sees it, first), *seen_count of them. A face
 * sees w when w is more than `eps` above its plane: faces w is coplanar with to rounding
 * stay (a point on a flat part of D, e.g. a cone's base rim, would otherwise take the whole
 * coplanar fan with it). The same pass finds the nearest face (not spent) among those that
 * do not see w (*keep, -1 if none). */
static epa_expand_result find_seen(epa_polytope *p, int32_t f0, int32_t iw, double eps,
                                   int32_t *seen_count, int32_t *keep)
{
    gjk_vec3 w = p->w[iw];
    int32_t seen = 0, best = -1;
    double best_d = HUGE_VAL;
    p->seen[seen] = (int32_t)f0;
    p->seen_at[f0] = (int32_t)seen++;
    for (int32_t f = 0; f < p->face_count; ++f) {
        double d = p->d[f];
        if (f == f0) {
            continue; /* in the region whatever the rounding */
        }
        if (p->nx[f] * w.x + p->ny[f] * w.y + p->nz[f] * w.z > d + eps) {
            if (seen == p->cap.region) {
                *seen_count = seen;
                return EPA_EXPAND_CAPACITY;
            }
            p->seen[seen] = (int32_t)f;
            p->seen_at[f] = (int32_t)seen++;
        } else if (d < best_d && !p->spent[f]) {
            best_d = d;
            best = f;
        }
    }
    *seen_count = seen;
    *keep = best;
    return EPA_EXPANDED;
}

/* The nearest face (not spent) outside the region, -1 if none. */
static int32_t nearest_outside(const epa_polytope *p, int32_t region)
{
    int32_t best = -1;
    double best_d = HUGE_VAL;
    for (int32_t f = 0; f < p->face_count; ++f) {
        if (face_rank(p, f) < best_d) {
            bool in_region = false;
            for (int32_t r = 0; r < region && !in_region; ++r) {
                in_region = p->region[r] == f;
            }
            if (!in_region) {
                best_d = face_rank(p, f);
                best = f;
            }
        }
    }
    return best;
}

/* Links the horizon edges into a loop (hnext); false unless they form one simple loop:
 * no vertex starts two edges, each edge is followed by the edge starting where it ends, and
 * following the links from edge 0 visits all of them before coming back. (The same verdict
 * as matching every pair of edges, in linear time: edge_from maps a vertex to the edge
 * starting there, and is reset before returning.) */
static bool link_horizon(epa_polytope *p, int32_t horizon)
{
    if (horizon < 3) {
        return false;
    }
    bool ok = true;
    int32_t listed = 0;
    for (; listed < horizon && ok; ++listed) {
        int32_t x = p->hx[listed];
        ok = p->edge_from[x] < 0; /* else the loop touches itself at x */
        p->edge_from[x] = (int32_t)listed;
    }
    for (int32_t i = 0; i < horizon && ok; ++i) {
        p->hnext[i] = p->edge_from[p->hy[i]];
        ok = p->hnext[i] >= 0;
    }
    int32_t cur = 0;
    for (int32_t k = 1; k <= horizon && ok; ++k) {
        cur = p->hnext[cur];
        ok = (cur == 0) == (k == horizon);
    }
    for (int32_t i = 0; i < listed; ++i) {
        p->edge_from[p->hx[i]] = -1;
    }
    return ok;
}

static void sort_ascending(int32_t *v, int32_t n)
{
    for (int32_t i = 1; i < n; ++i) {
        int32_t x = v[i];
        int32_t j = i;
        for (; j > 0 && v[j - 1] > x; --j) {
            v[j] = v[j - 1];
        }
        v[j] = x;
    }
}

/* Where vertex iw (stored at vertex_count - 1, beyond face f0) goes: the region and its
 * horizon, and in *nearest the nearest face (not spent) outside the region. P does not
 * change; the faces listed in seen (*seen_count, on every return) are marked in seen_at.
 *
 * The region is the set of faces that see w edge-connected to f0; its horizon gets a fan of
 * new faces (x, y, w). A new face must not fold over: P's interior point `inside` must lie
 * below it. For a convex P that is automatic, but P is convex only to rounding: where D is
 * flat (a cylinder's cap, a polytope's face) its vertices lie off the common plane by the
 * rounding of their coordinates, the faces tilt by that over their (short) edges, and w, a
 * support point far across the flat part, can be a hair above the nearest face yet below its
 * neighbour. The folded face pointed inwards with plane distance about -depth, and EPA went
 * on from it (seen: depth 0 and TOUCHING for cores 0.033 deep; a witness 151 m off a 5e-8 m
 * cone; CAPACITY_LIMIT 4% shallow in a cylinder). The face across a folding edge is the one
 * rounding misjudged: it joins the region, as exact arithmetic would have it. */
static epa_expand_result find_region(epa_polytope *p, int32_t f0, int32_t iw, double eps,
                                     int32_t *seen_count, int32_t *region_count,
                                     int32_t *horizon_count, int32_t *nearest)
{
    int32_t seen = 0, region = 0, horizon = 0, best = -1;
    epa_expand_result e = find_seen(p, f0, iw, eps, &seen, &best);
    *seen_count = seen;
    if (e != EPA_EXPANDED) {
        return e;
    }
    gjk_vec3 w = p->w[iw];
    bool forced = false;
    for (;;) {
        e = walk_region(p, seen, &region, &horizon);
        if (e != EPA_EXPANDED) {
            return e;
        }
        /* A new vertex within rounding (eps) of a horizon vertex would give the new faces on
         * it an edge of rounding, whose direction sets their normal (seen: a twin 1 ulp off
         * at 2.3e6 m made a face whose plane lay 160 m inside the polytope, and EPA then
         * ended "converged" 393 m shallow). It adds nothing: w counts as a known vertex. */
        for (int32_t i = 0; i < horizon; ++i) {
            if (gjk_length_sq(gjk_sub(p->w[p->hx[i]], w)) <= eps * eps) {
                return EPA_EXPAND_DUPLICATE;
            }
        }
        /* Normals first, then the check: the check waits on each normal's square root and
         * division, and interleaved with them it cost 20% more time on EPA-heavy pairs. */
        for (int32_t i = 0; i < horizon; ++i) {
            p->hsliver[i] = !triangle_normal(p->w[p->hx[i]], p->w[p->hy[i]], w, &p->hn[i]);
        }
        /* A face of the hull passes at least inside_margin above `inside`; one that does not
         * is checked to the rounding of its normal (slivers take another plane below). And
         * with the origin inside P (f0's plane beyond it), no face may pass on its far
         * side: a face with an edge short next to its vertices' rounding, 7e-6 m at 2.3e6 m,
         * turns by eps |p| / edge, 7e-5 rad (seen: plane distance -2142 where the depth is
         * 2142, which the determinant's worst-case rounding could not tell from noise). */
        int32_t fold = -1;
        bool origin_inside = p->d[f0] > eps;
        for (int32_t i = 0; i < horizon; ++i) {
            gjk_vec3 x = p->w[p->hx[i]];
            if (!p->hsliver[i] &&
                ((origin_inside && gjk_dot(p->hn[i], x) < -eps) ||
                 (gjk_dot(p->hn[i], gjk_sub(p->inside, x)) > -0.5 * p->inside_margin &&
                  folds_over(x, p->w[p->hy[i]], w, p->inside)))) {
                fold = i;
            }
        }
        if (fold < 0) {
            break;
        }
        int32_t across = p->hface[fold];
        if (seen == p->cap.region) {
            return EPA_EXPAND_CAPACITY;
        }
        p->seen[seen] = across;
        p->seen_at[across] = (int32_t)seen++;
        *seen_count = seen;
        forced = true;
    }
    if (forced) {
        best = nearest_outside(p, region); /* the nearest survivor may have joined */
    } else {
        /* Faces that see w but are not connected to f0 stay (rounding far away). */
        double best_d = best < 0 ? HUGE_VAL : p->d[best];
        for (int32_t s = 1; s < seen; ++s) {
            if (!p->taken[s] && face_rank(p, p->seen[s]) < best_d) {
                best_d = face_rank(p, p->seen[s]);
                best = p->seen[s];
            }
        }
    }
    *region_count = region;
    *horizon_count = horizon;
    *nearest = best;
    return EPA_EXPANDED;
}

/* How far the plane with unit normal n through the points of (x, y, w) misses the farthest of
 * them from its mean plane distance. */
static double plane_misfit(const epa_polytope *p, int32_t x, int32_t y, int32_t w, gjk_vec3 n)
{
    double a = gjk_dot(n, p->w[x]), b = gjk_dot(n, p->w[y]), c = gjk_dot(n, p->w[w]);
    double mean = (a + b + c) * (1.0 / 3.0);
    return epa_max(fabs(a - mean), epa_max(fabs(b - mean), fabs(c - mean)));
}

/* The normal of the new sliver face of horizon edge i: the plane of the unseen face across
 * the edge, which passes within the sliver's width of it when the sliver lies in that plane
 * (its own cross product is off by eps / sine); its own when that fits its points better. A
 * sliver standing across the neighbour's plane does not lie in it (seen: a disk's diameter
 * and its centre 2e-7 below, a vertical sliver beside the disk's face; the face's normal put
 * the sliver's plane 1.3e-7 on the far side of the origin, which read as a broken polytope,
 * and a 1e-7 cone in the 51 m disk came out 51 m deep; test_fuzz_regressions:
 * epa_speck_in_disk_plane). */
static gjk_vec3 sliver_normal(const epa_polytope *p, int32_t i, int32_t iw)
{
    gjk_vec3 across = face_normal(p, p->hface[i]), own = p->hn[i];
    if (!(gjk_length_sq(own) > 0.0)) {
        return across;
    }
    int32_t x = p->hx[i], y = p->hy[i], w = (int32_t)iw;
    return plane_misfit(p, x, y, w, own) < plane_misfit(p, x, y, w, across) ? own : across;
}

/* Adds vertex iw (stored at vertex_count - 1, beyond face f0) to P and sets *nearest to
 * the nearest face of the new P. Nothing changes unless the expansion succeeds (find_region
 * says where). The new faces take over the region's links to the faces across the horizon
 * and link to each other around w. */
static epa_expand_result polytope_expand(epa_polytope *p, int32_t f0, int32_t iw, double eps,
                                         int32_t *nearest)
{
    int32_t seen = 0, region = 0, horizon = 0, best = -1;
    epa_expand_result e = find_region(p, f0, iw, eps, &seen, &region, &horizon, &best);
    for (int32_t s = 0; s < seen; ++s) {
        p->seen_at[p->seen[s]] = -1; /* marks live for one expansion */
    }
    if (e != EPA_EXPANDED) {
        return e;
    }
    if (!link_horizon(p, horizon)) {
        return EPA_EXPAND_BROKEN;
    }
    if (p->face_count - region + horizon > p->cap.faces) {
        return EPA_EXPAND_CAPACITY;
    }
    /* New faces (x, y, w) go into the region's slots first, then at the end; leftover slots
     * are filled from the end (highest first, so the face moved is never one of them). */
    sort_ascending(p->region, region);
    int32_t used = 0;
    for (int32_t i = 0; i < horizon; ++i) {
        gjk_vec3 n = p->hsliver[i] ? sliver_normal(p, i, iw) : p->hn[i];
        int32_t f = used < region ? p->region[used++] : p->face_count++;
        face_set(p, f, p->hx[i], p->hy[i], (int32_t)iw, n);
        p->hslot[i] = (int32_t)f;
        if (best < 0 || p->d[f] < p->d[best]) {
            best = f;
        }
    }
    /* New face i = (x, y, w): across x -> y the old neighbour (whose y -> x link comes to
     * it), across y -> w the new face of the next horizon edge, whose w -> y comes back. */
    for (int32_t i = 0; i < horizon; ++i) {
        int32_t f = p->hslot[i], g = p->hface[i], next = p->hslot[p->hnext[i]];
        p->adj[f][0] = g;
        p->adj[f][1] = next;
        p->adj[next][2] = f;
        for (int k = 0; k < 3; ++k) {
            if (p->fv[g][k] == p->hy[i]) {
                p->adj[g][k] = f;
            }
        }
    }
    for (int32_t r = region - 1; r >= used; --r) {
        int32_t last = --p->face_count;
        if (last != p->region[r]) {
            face_move(p, p->region[r], last);
            best = best == last ? p->region[r] : best;
        }
    }
    *nearest = best;
    return EPA_EXPANDED;
}

/* ------------------------------------------------------------------ answers */

/* Barycentric coordinates of q (in the plane of the triangle, or near it) in triangle
 * (p0, p1, p2) with unit normal n; returns the smallest. They are ratios of signed areas
 * measured from the vertex opposite the longest edge, so the cross products take short
 * vectors: measured from the origin instead, a far-away triangle loses the weights to
 * cancellation (|p|^2 eps against its area). */
static double triangle_barycentric(const gjk_vec3 pt[3], gjk_vec3 n, gjk_vec3 q, double lambda[3])
{
    double l0 = gjk_length_sq(gjk_sub(pt[1], pt[0]));
    double l1 = gjk_length_sq(gjk_sub(pt[2], pt[1]));
    double l2 = gjk_length_sq(gjk_sub(pt[0], pt[2]));
    int i = l0 >= l1 && l0 >= l2 ? 2 : (l1 >= l2 ? 0 : 1); /* opposite the longest edge */
    int j = next3(i), k = next3(j);
    gjk_vec3 ej = gjk_sub(pt[j], pt[i]), ek = gjk_sub(pt[k], pt[i]), r = gjk_sub(q, pt[i]);
    double area = gjk_dot(n, gjk_cross(ej, ek));
    if (!(area > 0.0)) {
        lambda[0] = lambda[1] = lambda[2] = 1.0 / 3.0;
        return -HUGE_VAL; /* a sliver: no usable area */
    }
    lambda[j] = gjk_dot(n, gjk_cross(r, ek)) / area;
    lambda[k] = gjk_dot(n, gjk_cross(ej, r)) / area;
    lambda[i] = 1.0 - lambda[j] - lambda[k];
    double m = lambda[0] < lambda[1] ? lambda[0] : lambda[1];
    return m < lambda[2] ? m : lambda[2];
}

/* Weights of the point of segment p0 p1 nearest q. */
static void segment_closest(gjk_vec3 p0, gjk_vec3 p1, gjk_vec3 q, double *l0, double *l1)
{
    gjk_vec3 e = gjk_sub(p1, p0);
    double ee = gjk_length_sq(e);
    double t = ee > 0.0 ? gjk_dot(gjk_sub(q, p0), e) / ee : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    *l0 = 1.0 - t;
    *l1 = t;
}

/* Weights of the point of the triangle of vertices v nearest q, for a q that projects
 * outside it. */
static void triangle_clamp(const epa_polytope *p, const int32_t v[3], gjk_vec3 q,
                           double lambda[3])
{
    double best = HUGE_VAL;
    for (int e = 0; e < 3; ++e) {
        int k = next3(e);
        gjk_vec3 pe = p->w[v[e]], pk = p->w[v[k]];
        double s0, s1;
        segment_closest(pe, pk, q, &s0, &s1);
        double d2 = gjk_length_sq(gjk_sub(gjk_add(gjk_scale(pe, s0), gjk_scale(pk, s1)), q));
        if (d2 < best) {
            best = d2;
            lambda[0] = lambda[1] = lambda[2] = 0.0;
            lambda[e] = s0;
            lambda[k] = s1;
        }
    }
}

/* The answer at the point with weights lambda on the triangle of vertices v: depth along
 * the unit normal n, and the deepest points pa = sum lambda_k a_k on core A and pb =
 * sum lambda_k b_k on core B (as a_0 + sum_k lambda_k (a_k - a_0): short differences again).
 * Their difference is depth * n only as far as the weights reproduce the face's point (the
 * rounding of the weights, or weights clamped to an edge): the rest is shared between the
 * witnesses so that pa - pb = depth * n exactly, each in proportion to the extent of its
 * support points, which the weights' errors are multiplied by (a point 3.3e-10 deep in a
 * needle: all of it on the point's witness put that 3.1e-10 off the point, whose extent is 0;
 * test_fuzz_regressions: epa_witness_point_in_needle). Equal extents split it evenly. */
static void answer_at(const epa_polytope *p, const int32_t v[3], const double lambda[3],
                      double depth, gjk_vec3 n, gjk_epa_result *r)
{
    /* P keeps a and w = a - b: pa - pb = sum lambda_k w_k, and b's edges are a's minus w's. */
    gjk_vec3 pa = p->a[v[0]], q = p->w[v[0]];
    double span_a2 = 0.0, span_b2 = 0.0;
    for (int k = 1; k < 3; ++k) {
        gjk_vec3 ea = gjk_sub(p->a[v[k]], p->a[v[0]]), ew = gjk_sub(p->w[v[k]], p->w[v[0]]);
        pa = gjk_madd(pa, lambda[k], ea);
        q = gjk_madd(q, lambda[k], ew);
        span_a2 = epa_max(span_a2, gjk_length_sq(ea));
        span_b2 = epa_max(span_b2, gjk_length_sq(gjk_sub(ea, ew)));
    }
    gjk_vec3 e = gjk_madd(q, -depth, n);
    pa = gjk_madd(pa, -gjk_witness_share(sqrt(span_a2), sqrt(span_b2)), e);
    r->depth = depth;
    r->normal = n;
    r->point_a = pa;
    r->point_b = gjk_madd(pa, -depth, n); /* pb plus B's share of e */
}

/* Weights of the point q = d n of P's surface on the plane (n, d) of a triangle with vertices
 * v0, or of one of the faces near it. A face of D is usually split into several coplanar
 * triangles of P and q may lie in another one than v0's: the triangle, among the faces whose
 * plane passes within `slack` of q, that holds q best supplies the weights. *v receives the
 * vertices of the triangle they refer to. */
static void weights_at_plane(const epa_polytope *p, const int32_t v0[3], gjk_vec3 n, double d,
                             double slack, int32_t v[3], double lambda[3])
{
    gjk_vec3 q = gjk_scale(n, d);
    gjk_vec3 pt[3] = {p->w[v0[0]], p->w[v0[1]], p->w[v0[2]]};
    memcpy(v, v0, 3 * sizeof v[0]);
    double inside = triangle_barycentric(pt, n, q, lambda);
    if (inside < 0.0) {
        for (int32_t g = 0; g < p->face_count; ++g) {
            gjk_vec3 ng = face_normal(p, g);
            if (!(fabs(gjk_dot(ng, q) - p->d[g]) <= slack) || gjk_dot(ng, n) <= 0.0) {
                continue;
            }
            double lg[3];
            face_points(p, g, pt);
            double m = triangle_barycentric(pt, n, q, lg);
            if (m > inside) {
                inside = m;
                memcpy(v, p->fv[g], 3 * sizeof v[0]);
                memcpy(lambda, lg, sizeof lg);
            }
        }
    }
    if (inside < 0.0) {
        /* No face near the plane holds q: P is not quite convex there (curved D, huge
         * coordinates). The face the ray from the origin along n leaves P through holds the
         * point of P's surface in that direction, at t n with t close to d (seen: q outside
         * a thin face of a 3710 m disk against a 8e6 m polytope, and the clamped weights
         * 0.02 m off the polytope, 3 times the fuzz tolerance). */
        double best_t = HUGE_VAL;
        for (int32_t g = 0; g < p->face_count; ++g) {
            gjk_vec3 ng = face_normal(p, g);
            double c = gjk_dot(ng, n);
            if (!(c > 0.0)) {
                continue;
            }
            double t = p->d[g] / c, lg[3];
            face_points(p, g, pt);
            if (t > 0.0 && triangle_barycentric(pt, ng, gjk_scale(n, t), lg) >= 0.0 &&
                fabs(t - d) < fabs(best_t - d)) {
                best_t = t;
                memcpy(v, p->fv[g], 3 * sizeof v[0]);
                memcpy(lambda, lg, sizeof lg);
            }
        }
        if (!(best_t < HUGE_VAL)) {
            triangle_clamp(p, v, q, lambda);
        }
    }
}

/* Answer from the nearest face f: depth d_f, normal n_f and the deepest points at the
 * projection q = d_f n_f of the origin (weights_at_plane). */
static void answer_from_face(const epa_polytope *p, int32_t f, double slack, gjk_epa_result *r)
{
    gjk_vec3 n = face_normal(p, f);
    int32_t v[3];
    double lambda[3];
    weights_at_plane(p, p->fv[f], n, p->d[f], slack, v, lambda);
    answer_at(p, v, lambda, p->d[f] > 0.0 ? p->d[f] : 0.0, n, r);
}

/* The face whose gap h(n) - d between its support value and its plane is the least seen:
 * its plane, vertices and support value, for an answer once P has gone wrong. */
typedef struct epa_tight_face {
    gjk_vec3 n;
    double d, h;
    int32_t v[3];
    bool set;
} epa_tight_face;

/* Answer from the tightest face, which may no longer exist (P keeps its vertices, which are
 * only ever appended): depth h(n), the bound its normal realises, and the deepest points from
 * the weights at d n (weights_at_plane, within the gap of the plane), the gap shared between
 * them as answer_at shares the weights' rounding. Depth, normal and witnesses are then all
 * within the gap of the truth, as a converged face's are within the tolerance. (The least
 * support value's face answered first: its gap was 0.22 m on a 2886 m depth where the
 * tightest face's was 2e-5, and lifting its witnesses along the normal put the one on a 3.7 km
 * disk 0.14 m off the disk's plane.) */
static void answer_from_tight_face(const epa_polytope *p, const epa_tight_face *t,
                                   double tolerance, gjk_epa_result *r)
{
    int32_t v[3];
    double lambda[3];
    weights_at_plane(p, t->v, t->n, t->d, tolerance + epa_max(t->h - t->d, 0.0), v, lambda);
    answer_at(p, v, lambda, t->h > 0.0 ? t->h : 0.0, t->n, r);
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
    gjk_vec3 pa = gjk_v3(0.0, 0.0, 0.0);
    for (int32_t i = 0; i < count; ++i) {
        double l = ok ? lambda[i] / sum : (i == 0 ? 1.0 : 0.0);
        pa = gjk_madd(pa, l, v[i].a);
    }
    /* The contact point, on core A; on core B to within GJK's tolerance (sum lambda w ~ 0),
     * and exactly pa - pb = depth n = 0. */
    r->status = GJK_STATUS_TOUCHING;
    r->depth = 0.0;
    r->normal = normal;
    r->point_a = pa;
    r->point_b = pa;
}

/* ------------------------------------------------------------------ initial tetrahedron */

typedef struct epa_seed {
    gjk_vertex v[4];
    double upper;  /* least support value h(n) seen: an upper bound on the depth */
    gjk_vec3 upper_dir; /* its direction n */
    int32_t count; /* affinely independent vertices so far */
    gjk_vec3 axis; /* count 2: unit segment direction; count 3: unit triangle normal */
    bool sliver;   /* count 3: the triangle is a sliver (triangle_normal), its axis rough */
    bool touching; /* a support value proved depth ~ 0 (or invalid: stop growing) */
    bool invalid;  /* a support point or simplex vertex was not finite */
    gjk_vec3 touch_normal;
    double touch_h; /* h(touch_normal) <= zero */
} epa_seed;

/* Support along unit direction n; records a touching certificate when h(n) <= zero. */
static gjk_vertex seed_support(const gjk_pair_frame *f, const epa_settings *s, epa_seed *seed,
                               gjk_vec3 n, int32_t *support_calls)
{
    gjk_vertex w;
    gjk_pair_support(f, n, seed->v[0].ia, seed->v[0].ib, &w);
    ++*support_calls;
    double h = gjk_dot(w.w, n);
    if (!isfinite(h) || !gjk_vec3_is_finite(w.a)) {
        seed->invalid = seed->touching = true;
        return w;
    }
    if (h < seed->upper) {
        seed->upper = h;
        seed->upper_dir = n;
    }
    if (!seed->touching && h <= s->zero) {
        seed->touching = true;
        seed->touch_normal = n;
        seed->touch_h = h;
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

/* Adds x if it lies more than `zero` off the affine hull (and is finite), and more than
 * `zero` from every vertex: a vertex again is never off the hull, whatever a rounded axis
 * says (seen: a sliver triangle along a needle, its normal 6e-6 rad off, put its own far
 * vertex 1.2e-12 off its plane, and that vertex became the fourth of a tetrahedron with two
 * faces back to back; test_fuzz_regressions: epa_normal_point_in_needle). */
static bool seed_add(epa_seed *seed, const gjk_vertex *x, double zero)
{
    if (seed->count >= 4 || !gjk_vec3_is_finite(x->w) || !(seed_offset(seed, x->w) > zero)) {
        return false;
    }
    for (int32_t i = 0; i < seed->count; ++i) {
        if (!(gjk_distance_between(x->w, seed->v[i].w) > zero)) {
            return false;
        }
    }
    if (seed->count == 1) {
        seed->axis = gjk_normalize(gjk_sub(x->w, seed->v[0].w));
    } else if (seed->count == 2) {
        gjk_vec3 n;
        seed->sliver = !triangle_normal(seed->v[0].w, seed->v[1].w, x->w, &n);
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

/* Adds the farther of the supports along +dir and -dir, if it is off the affine hull. */
static void seed_grow_along(const gjk_pair_frame *f, const epa_settings *s, epa_seed *seed,
                            gjk_vec3 dir, int32_t *support_calls)
{
    gjk_vertex wp = seed_support(f, s, seed, dir, support_calls);
    gjk_vertex wn = seed_support(f, s, seed, gjk_neg(dir), support_calls);
    if (!seed->touching) {
        bool plus = seed_offset(seed, wp.w) >= seed_offset(seed, wn.w);
        seed_add(seed, plus ? &wp : &wn, s->zero);
    }
}

/* Grows GJK's simplex to a tetrahedron. Returns false when D is flat to rounding or a
 * support value proves the origin is on D's boundary (then touch_normal is set). */
static bool seed_tetrahedron(const gjk_pair_frame *f, const gjk_simplex *simplex,
                             const epa_settings *s, epa_seed *seed, int32_t *support_calls)
{
    seed->count = 0;
    seed->upper = HUGE_VAL;
    seed->upper_dir = gjk_v3(0.0, 0.0, 0.0);
    seed->touch_h = 0.0;
    seed->touching = false;
    seed->invalid = false;
    seed->touch_normal = gjk_v3(1.0, 0.0, 0.0);
    seed->axis = gjk_v3(1.0, 0.0, 0.0);
    seed->sliver = false;
    int32_t n = simplex->count < 0 ? 0 : (simplex->count > 4 ? 4 : simplex->count);
    if (n == 4) {
        /* The usual case: GJK's tetrahedron, kept as it is when clearly not flat (volume
         * against the product of its edges from v0; every face then has a usable area). */
        const gjk_vertex *v = simplex->v;
        gjk_vec3 e1 = gjk_sub(v[1].w, v[0].w), e2 = gjk_sub(v[2].w, v[0].w);
        gjk_vec3 e3 = gjk_sub(v[3].w, v[0].w);
        double det = gjk_dot(gjk_cross(e1, e2), e3);
        double l1 = gjk_length_sq(e1), l2 = gjk_length_sq(e2), l3 = gjk_length_sq(e3);
        double shortest = l1 < l2 ? (l1 < l3 ? l1 : l3) : (l2 < l3 ? l2 : l3);
        if (det * det > 1e-12 * l1 * l2 * l3 && shortest > s->zero * s->zero && isfinite(det)) {
            memcpy(seed->v, v, sizeof seed->v);
            seed->count = 4;
            return true;
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        if (!gjk_vec3_is_finite(simplex->v[i].w) || !gjk_vec3_is_finite(simplex->v[i].a)) {
            seed->invalid = seed->touching = true;
            return false;
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
        if (!gjk_vec3_is_finite(w.w) || !gjk_vec3_is_finite(w.a)) {
            seed->invalid = seed->touching = true;
            return false;
        }
        seed->v[seed->count++] = w;
    }
    /* A point: the farthest support along the axis directions. */
    static const gjk_vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    for (int k = 0; k < 3 && seed->count == 1 && !seed->touching; ++k) {
        seed_grow_along(f, s, seed, axes[k], support_calls);
    }
    /* A segment: the farther support along two directions orthogonal to it. */
    if (seed->count == 2 && !seed->touching) {
        gjk_vec3 p1 = any_orthogonal(seed->axis);
        gjk_vec3 p2 = gjk_cross(seed->axis, p1);
        seed_grow_along(f, s, seed, p1, support_calls);
        if (seed->count == 2 && !seed->touching) {
            seed_grow_along(f, s, seed, p2, support_calls);
        }
    }
    /* A triangle: the support on the origin's side of its plane, so that the tetrahedron
     * holds the origin; the other side if that one is flat. */
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
    if (seed->count == 3 && !seed->touching && seed->sliver) {
        /* A flat sliver: its normal is rough (eps / sine), and D may be a needle rather than
         * a plate. Across the sliver's longest edge, in its plane, D is as narrow as the
         * sliver: the support values there may certify a better normal (seen: a needle
         * 5e-15 across and 1.35e-2 long reached 4e-8 along the sliver's normal and 5e-15
         * across it; test_fuzz_regressions: epa_normal_point_in_needle). */
        const gjk_vec3 *p = &seed->v[0].w, *q = &seed->v[1].w, *r = &seed->v[2].w;
        gjk_vec3 e0 = gjk_sub(*q, *p), e1 = gjk_sub(*r, *q), e2 = gjk_sub(*p, *r);
        double l0 = gjk_length_sq(e0), l1 = gjk_length_sq(e1), l2 = gjk_length_sq(e2);
        gjk_vec3 longest = l0 >= l1 && l0 >= l2 ? e0 : (l1 >= l2 ? e1 : e2);
        gjk_vec3 across = gjk_normalize(gjk_cross(seed->axis, longest));
        if (gjk_length_sq(across) > 0.0) {
            (void)seed_support(f, s, seed, across, support_calls);
            if (!seed->touching) {
                (void)seed_support(f, s, seed, gjk_neg(across), support_calls);
            }
        }
    }
    if (seed->touching) {
        return false;
    }
    if (seed->count < 4) {
        /* D is flat (or a segment, or a point) to rounding: it has no interior, so the
         * origin is on its boundary. A sliver's normal is the direction of the least
         * support value seen (its own two sides among them). */
        seed->touching = true;
        const bool rough = seed->sliver && gjk_length_sq(seed->upper_dir) > 0.0;
        seed->touch_normal = seed->count == 3   ? (rough ? seed->upper_dir : seed->axis)
                             : seed->count == 2 ? any_orthogonal(seed->axis)
                                                : gjk_v3(1.0, 0.0, 0.0);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ EPA */

/* The automatic iteration cap: every iteration adds a vertex of D to P or spends a face, and
 * on polytopes (boxes included) D has finitely many vertices, the pairs of support features
 * that meet along its faces: a small multiple of the shapes' vertex counts in practice (two
 * concentric 2000-vertex random spheres took 768 iterations, two copies of a 2000-point
 * Fibonacci sphere 3349; test_epa_deep, test_epa). Curved cores keep the base. */
#define EPA_AUTO_ITERATIONS 512
static int32_t shape_vertex_count(const gjk_shape *s)
{
    if (s->kind == GJK_SHAPE_POLYTOPE && s->polytope != NULL) {
        return s->polytope->count;
    }
    return s->kind == GJK_SHAPE_BOX ? 8 : 0;
}

static int32_t epa_auto_iterations(const gjk_pair_frame *f)
{
    int64_t n = (int64_t)shape_vertex_count(f->a) + shape_vertex_count(f->b);
    int64_t cap = EPA_AUTO_ITERATIONS + 4 * n;
    return cap < INT32_MAX ? (int32_t)cap : INT32_MAX;
}

static epa_settings epa_settings_from(const gjk_pair_frame *f, const gjk_simplex *simplex,
                                      const gjk_options *o)
{
    /* Zero (or NULL) options take the library defaults, as every query does. */
    const gjk_options def = gjk_default_options();
    epa_settings s;
    s.rel_tolerance = o != NULL && o->rel_tolerance > 0.0 ? o->rel_tolerance : def.rel_tolerance;
    double abs_tol = o != NULL && o->abs_tolerance > 0.0 ? o->abs_tolerance : def.abs_tolerance;
    s.max_iterations =
        o != NULL && o->epa_max_iterations > 0 ? o->epa_max_iterations : def.epa_max_iterations;
    if (s.max_iterations <= 0) {
        s.max_iterations = epa_auto_iterations(f);
    }
    /* The pair's scale; the simplex bounds it from below should it be missing. */
    double scale = isfinite(f->scale) && f->scale > 0.0 ? f->scale : 0.0;
    double reach_sq = 0.0;
    for (int32_t i = 0; i < simplex->count && i < 4; ++i) {
        double l = gjk_length_sq(simplex->v[i].w);
        reach_sq = isfinite(l) ? epa_max(reach_sq, l) : reach_sq;
    }
    if (reach_sq > scale * scale) {
        scale = sqrt(reach_sq);
    }
    s.abs_tolerance = abs_tol * scale;
    s.zero = epa_max(abs_tol, EPA_ZERO_ULPS * DBL_EPSILON) * scale;
    s.noise_max = EPA_PLANE_NOISE_MAX * scale;
    return s;
}

/* Rounding of the height of x over face f's plane: the plane distance's own (zero) and the
 * normal's, whose direction error is about eps |p| / (shortest edge) for vertices of norm
 * |p|, times the lever arm from the face to x. With x = NULL, the rounding of the plane
 * distance itself: d is the normal's dot with the face's points, so the lever is their norm
 * (seen: an edge of 2.5e-6 m among points 190 m out, a plane distance known to 3e-5, on a rod
 * 2.5e-6 thick through a 134 m box; that face's plane fell 1.5e-7 below an earlier nearest
 * face, was read as a broken P, and EPA answered 1.25e-6 too deep; test_fuzz_regressions:
 * epa_rod_through_box_depth). */
static double plane_noise(const epa_polytope *p, int32_t f, const gjk_vec3 *x, double zero)
{
    gjk_vec3 pt[3];
    face_points(p, f, pt);
    double reach = 0.0, edge = HUGE_VAL;
    for (int k = 0; k < 3; ++k) {
        reach = epa_max(reach, gjk_length(pt[k]));
        double l = gjk_distance_between(pt[k], pt[next3(k)]);
        edge = l < edge ? l : edge;
    }
    double lever = x != NULL ? gjk_distance_between(*x, pt[0]) : reach;
    return edge > 0.0 ? zero + 8.0 * DBL_EPSILON * reach * lever / edge : HUGE_VAL;
}

static bool vertex_is_known(const epa_polytope *p, gjk_vec3 w)
{
    for (int32_t i = 0; i < p->vertex_count; ++i) {
        if (p->w[i].x == w.x && p->w[i].y == w.y && p->w[i].z == w.z) {
            return true;
        }
    }
    return false;
}

static gjk_epa_result epa_run(const gjk_pair_frame *f, const gjk_simplex *simplex,
                              const gjk_options *options, gjk_workspace *ws)
{
    gjk_epa_result r;
    memset(&r, 0, sizeof r);
    r.normal = gjk_v3(1.0, 0.0, 0.0);
    r.normal_sep = -HUGE_VAL;
    epa_settings s = epa_settings_from(f, simplex, options);

    epa_seed seed;
    if (!seed_tetrahedron(f, simplex, &s, &seed, &r.support_calls)) {
        if (seed.invalid) {
            r.status = GJK_STATUS_INVALID_INPUT; /* zeros, with the normal (1, 0, 0) */
            return r;
        }
        if (simplex->count >= 1 && simplex->count <= 4) {
            answer_touching(simplex->v, simplex->lambda, simplex->count, seed.touch_normal, &r);
        } else {
            const double one = 1.0;
            answer_touching(seed.v, &one, seed.count > 0 ? 1 : 0, seed.touch_normal, &r);
        }
        r.depth_upper = seed.upper > 0.0 && isfinite(seed.upper) ? seed.upper : 0.0;
        r.upper_normal = isfinite(seed.upper) ? seed.upper_dir : gjk_v3(0.0, 0.0, 0.0);
        r.normal_sep = seed.touching ? -seed.touch_h : -HUGE_VAL;
        return r;
    }

    double upper = seed.upper;
    /* The deepest nearest face so far once the origin is inside P (every face's plane
     * beyond it): a lower bound on the depth while P is convex, as P only grows. Before, P
     * grows towards the origin and its nearest face need not move monotonically. */
    double floor_d = 0.0;
    gjk_vec3 upper_dir = seed.upper_dir; /* the direction of the least support value */
    epa_tight_face tight = {.set = false};
    epa_stack_block stack_block;
    epa_polytope p;
    polytope_bind_stack(&p, &stack_block, ws);
    polytope_init(&p, seed.v);
    int32_t fi = nearest_face(&p);
    for (;;) {
        gjk_vec3 n = face_normal(&p, fi);
        double d = p.d[fi];
        /* The gap cannot close below the rounding of the support values (zero): chasing it
         * there only grows slivers and folded faces (seen: a 1.2e-11 cylinder on a 0.3 m
         * polytope's edge, gaps of 2e-16 against a tolerance of 6e-17, 300 iterations and a
         * normal 0.22 short at CAPACITY_LIMIT). */
        double tolerance = epa_max(epa_max(s.rel_tolerance * d, s.abs_tolerance), s.zero);
        double noise = epa_max(tolerance, s.noise_max);
        if (tight.set && (d - upper > noise || (floor_d > 0.0 && d < floor_d - noise &&
                                                d < floor_d - plane_noise(&p, fi, NULL, s.zero)))) {
            /* The nearest face lies deeper than a support value, an upper bound on the
             * depth, or shallower than an earlier nearest face, a lower bound, by more than
             * any face plane's rounding (and its own, plane_noise) may account for: rounding
             * has broken P (an expansion removed faces that a convex P would have kept, or
             * kept faces it should have removed), and its faces bound nothing. The tightest
             * face seen answers (answer_from_tight_face; seen: a 4.7 km disk touching a 7e6 m
             * needle; after one expansion the nearest face was 0.0257 deep against a
             * support value of 4.2e-8, and EPA "converged" on it with a witness 0.0257 off
             * the needle; a capsule's segment inside a 134 m cylinder, whose side makes
             * long narrow faces: a face with a vertex 2.5e-7 above it was taken as the
             * nearest, its expansion fell back 5e-5, and by the time capacity ran out the
             * nearest face was 10 m shallow and answered with a normal 20 m short;
             * test_fuzz_regressions: epa_capsule_in_cylinder_nearest_falls_back). Within
             * rounding (1.9e-6 on a 2142 m depth at 4e6 m coordinates) EPA goes on. */
            answer_from_tight_face(&p, &tight, tolerance, &r);
            r.normal_sep = -tight.h;
            r.status = GJK_STATUS_OVERLAPPING;
            break;
        }
        floor_d = epa_max(floor_d, d);
        /* Faces whose plane passes within the gap (or the tolerance) of the nearest one's
         * point may supply the witnesses' weights (answer_from_face): P is convex only to
         * rounding, and the depth is known no better than the gap (seen: the nearest face of
         * a 184 m cone 3.8e-12 inside the base plane that holds the deepest point, which the
         * tolerance alone excluded; its own clamped weights put a witness 157 m off). */
        double slack = tolerance + (isfinite(upper) ? epa_max(upper - d, 0.0) : 0.0);
        if (r.iterations >= s.max_iterations) {
            r.status = GJK_STATUS_ITERATION_LIMIT;
            answer_from_face(&p, fi, slack, &r);
            break;
        }
        ++r.iterations;
        int32_t v0 = p.fv[fi][0];
        gjk_vertex w;
        gjk_pair_support(f, n, p.hint_a[v0], p.hint_b[v0], &w);
        ++r.support_calls;
        double h = gjk_dot(w.w, n);
        if (!isfinite(h) || !gjk_vec3_is_finite(w.a)) {
            /* A support map gave non-finite coordinates (a shape that bypassed validation):
             * invalid input, with the last good estimate. */
            r.status = GJK_STATUS_INVALID_INPUT;
            answer_from_face(&p, fi, slack, &r);
            break;
        }
        if (h < upper) {
            upper = h;
            upper_dir = n;
        }
        if (!tight.set || h - d < tight.h - tight.d) {
            tight = (epa_tight_face){
                .n = n, .d = d, .h = h, .v = {p.fv[fi][0], p.fv[fi][1], p.fv[fi][2]}, .set = true};
        }
        slack = tolerance + epa_max(upper - d, 0.0);
        if (h <= s.zero) {
            /* D lies below a plane through (nearly) the origin: 0 <= depth <= h ~ 0. */
            answer_from_face(&p, fi, slack, &r);
            r.normal_sep = -h;
            r.status = GJK_STATUS_TOUCHING;
            r.depth = 0.0;
            r.point_b = r.point_a; /* the contact point: pa - pb = depth n = 0 */
            break;
        }
        if (h - d <= tolerance) {
            r.status = GJK_STATUS_OVERLAPPING; /* converged */
            answer_from_face(&p, fi, slack, &r);
            r.normal_sep = -h;
            break;
        }
        bool known = vertex_is_known(&p, w.w);
        if (!known) {
            if (p.vertex_count >= p.cap.vertices && !epa_grow(&p)) {
                r.status = GJK_STATUS_CAPACITY_LIMIT; /* out of memory */
                answer_from_face(&p, fi, slack, &r);
                break;
            }
            int32_t iw = p.vertex_count++;
            vertex_set(&p, iw, &w);
            epa_expand_result e = polytope_expand(&p, fi, iw, s.zero, &fi);
            while (e == EPA_EXPAND_CAPACITY && epa_grow(&p)) {
                e = polytope_expand(&p, fi, iw, s.zero, &fi); /* P is as it was: again */
            }
            if (e == EPA_EXPANDED) {
                continue;
            }
            --p.vertex_count;
            if (e != EPA_EXPAND_DUPLICATE) {
                r.status = e == EPA_EXPAND_CAPACITY ? GJK_STATUS_CAPACITY_LIMIT
                                                    : GJK_STATUS_ITERATION_LIMIT;
                answer_from_face(&p, fi, slack, &r);
                break;
            }
        }
        /* w is already a vertex (or within rounding of one on the horizon), so P cannot
         * grow here. A gap within the rounding of the face's plane is convergence to
         * rounding. A larger one means the face is not one of the hull of P's vertices (P is
         * convex only to rounding: a face kept as coplanar with a new vertex, to 16 ulps,
         * turns its plane over a long lever arm; seen: a base-centre vertex 1e-7 above a face
         * of three rim points of a 184 m cone, which ended EPA "converged" 5e-4 shallow with a
         * witness 151 m off the small shape): the face is spent, and the next nearest one
         * taken. So is a face whose plane is too ill-conditioned for its rounding to mean
         * anything: a sliver with a 3e-17 m edge among 4e-3 m vertices has a normal known
         * to 3e-2 rad, and its "rounding" of 1.4e-3 m once passed a gap of 3.3e-11 on a
         * 5e-6 m depth as convergence (test_fuzz_regressions: epa_sliver_face_noise). */
        if (h - d <= s.noise_max && h - d <= plane_noise(&p, fi, &w.w, s.zero)) {
            r.status = GJK_STATUS_OVERLAPPING;
            answer_from_face(&p, fi, slack, &r);
            r.normal_sep = -h;
            break;
        }
        p.spent[fi] = true;
        int32_t next = nearest_face(&p);
        if (next < 0 || p.d[next] > upper) {
            /* The next face lies beyond a support value (an upper bound on the depth): the
             * gap was the plane's rounding after all (seen: 5.8e-8 at 4e6 m coordinates,
             * and the next face 2.5e-3 too deep). */
            p.spent[fi] = false;
            r.status = next < 0 ? GJK_STATUS_ITERATION_LIMIT : GJK_STATUS_OVERLAPPING;
            answer_from_face(&p, fi, slack, &r);
            r.normal_sep = -h;
            break;
        }
        fi = next;
    }
    r.depth_upper = upper > r.depth && isfinite(upper) ? upper : r.depth;
    r.upper_normal = isfinite(upper) ? upper_dir : gjk_v3(0.0, 0.0, 0.0);
    return r;
}

/* Never NaN: a non-finite support point (only possible for shapes that bypassed
 * validation) gives GJK_STATUS_INVALID_INPUT with finite placeholders. */
static gjk_epa_result epa_finite(gjk_epa_result r)
{
    if (!isfinite(r.depth) || !isfinite(r.depth_upper) || !gjk_vec3_is_finite(r.normal) ||
        !gjk_vec3_is_finite(r.point_a) || !gjk_vec3_is_finite(r.point_b)) {
        r.status = GJK_STATUS_INVALID_INPUT;
        r.depth = 0.0;
        r.depth_upper = 0.0;
        r.normal = gjk_v3(1.0, 0.0, 0.0);
        r.upper_normal = gjk_v3(0.0, 0.0, 0.0);
        r.normal_sep = -HUGE_VAL;
        r.point_a = gjk_v3(0.0, 0.0, 0.0);
        r.point_b = r.point_a;
    }
    return r;
}

gjk_epa_result gjk_epa_in(const gjk_pair_frame *f, const gjk_simplex *simplex,
                          const gjk_options *options, gjk_workspace *workspace)
{
    if (workspace != NULL) {
        return epa_finite(epa_run(f, simplex, options, workspace));
    }
    gjk_workspace own = {NULL, 0, 0};
    gjk_epa_result r = epa_finite(epa_run(f, simplex, options, &own));
    gjk_workspace_release(&own);
    return r;
}

gjk_epa_result gjk_epa(const gjk_pair_frame *f, const gjk_simplex *simplex,
                       const gjk_options *options)
{
    return gjk_epa_in(f, simplex, options, NULL);
}

void gjk_workspace_release(gjk_workspace *workspace)
{
    if (workspace != NULL) {
        free(workspace->block);
        workspace->block = NULL;
        workspace->bytes = 0;
    }
}
