/* test_epa_deep.c — EPA on deep overlaps of large polytopes, against an exact oracle.
 *
 * Two hulls of 2000 random points (fixed seed) on spheres and ellipsoids, placed so that
 * they overlap deeply: D = A - B is then close to a ball around the origin, and EPA needs
 * far more vertices than its stack storage holds (it once stopped there at CAPACITY_LIMIT,
 * 2.7e-3 of the size shallow). The answers must converge (OVERLAPPING), agree with the
 * oracle within 1e-12 of the pair's size, have a normal that realises the depth, and come
 * out the same with and without a caller's workspace; a workspace grows only when it must.
 *
 * The oracle is the exact penetration depth of two convex polytopes: the least plane
 * distance over the facets of D, whose normals are the face normals of A, those of -B, and
 * the crossings of an edge's arc of A's Gauss map with one of -B's (the normals of the
 * edge-edge facets). Faces come from the hull's adjacency (triangles of mutual neighbours
 * with every point on one side), the support values by scanning every vertex in long
 * double. It shares nothing with EPA but the hull builder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gjk/gjk.h"

enum { N_POINTS = 2000 };

/* ------------------------------------------------------------------ random points */

static uint64_t g_rng;

static double rnd(void)
{
    g_rng = g_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(g_rng >> 11) / 9007199254740992.0;
}

/* A point uniform on the unit sphere (rejection from the cube). */
static gjk_vec3 on_sphere(void)
{
    for (;;) {
        gjk_vec3 v = gjk_v3(2.0 * rnd() - 1.0, 2.0 * rnd() - 1.0, 2.0 * rnd() - 1.0);
        double l = gjk_length(v);
        if (l > 0.1 && l < 1.0) {
            return gjk_scale(v, 1.0 / l);
        }
    }
}

static void ellipsoid_points(gjk_vec3 *p, int n, gjk_vec3 radii)
{
    for (int i = 0; i < n; ++i) {
        gjk_vec3 u = on_sphere();
        p[i] = gjk_v3(u.x * radii.x, u.y * radii.y, u.z * radii.z);
    }
}

/* ------------------------------------------------------------------ the oracle */

typedef struct lv3 {
    long double x, y, z;
} lv3;

static lv3 lv(gjk_vec3 v)
{
    return (lv3){v.x, v.y, v.z};
}
static lv3 lsub(lv3 a, lv3 b)
{
    return (lv3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static lv3 lneg(lv3 a)
{
    return (lv3){-a.x, -a.y, -a.z};
}
static long double ldot(lv3 a, lv3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static lv3 lcross(lv3 a, lv3 b)
{
    return (lv3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static lv3 lunit(lv3 a)
{
    long double l = sqrtl(ldot(a, a));
    return l > 0.0L ? (lv3){a.x / l, a.y / l, a.z / l} : a;
}

/* A polytope in the world frame, with its faces and each edge's two face normals. */
typedef struct opoly {
    int n;
    lv3 *p;
    int face_count;
    lv3 *face_n; /* unit outward */
    int edge_count;
    lv3 (*arc)[2]; /* the normals of the two faces at each edge: its Gauss-map arc */
} opoly;

static bool is_neighbour(const gjk_polytope *h, int i, int j)
{
    for (int k = h->adj_start[i]; k < h->adj_start[i + 1]; ++k) {
        if (h->adj[k] == j) {
            return true;
        }
    }
    return false;
}

/* Slot of the edge i-j (i < j) in i's adjacency list. */
static int edge_slot(const gjk_polytope *h, int i, int j)
{
    for (int k = h->adj_start[i]; k < h->adj_start[i + 1]; ++k) {
        if (h->adj[k] == j) {
            return k;
        }
    }
    return -1;
}

/* The oracle's view of hull h placed at pose (negated: -B, when `negate`). */
static void opoly_init(opoly *o, const gjk_polytope *h, gjk_transform pose, bool negate)
{
    int n = h->count;
    o->n = n;
    o->p = calloc((size_t)n, sizeof *o->p);
    int slots = h->adj_start[n];
    lv3 *slot_n = calloc((size_t)slots * 2, sizeof *slot_n);
    int *slot_faces = calloc((size_t)slots, sizeof *slot_faces);
    o->face_n = calloc((size_t)slots, sizeof *o->face_n); /* faces < edges */
    assert_non_null(o->p);
    assert_non_null(slot_n);
    assert_non_null(slot_faces);
    assert_non_null(o->face_n);
    long double reach = 0.0L;
    for (int i = 0; i < n; ++i) {
        gjk_vec3 q = gjk_transform_point(pose, gjk_v3(h->x[i], h->y[i], h->z[i]));
        o->p[i] = negate ? lneg(lv(q)) : lv(q);
        long double l = sqrtl(ldot(o->p[i], o->p[i]));
        reach = l > reach ? l : reach;
    }
    o->face_count = 0;
    for (int i = 0; i < n; ++i) {
        for (int s = h->adj_start[i]; s < h->adj_start[i + 1]; ++s) {
            int j = h->adj[s];
            for (int t = h->adj_start[i]; t < h->adj_start[i + 1] && j > i; ++t) {
                int k = h->adj[t];
                if (k <= j || !is_neighbour(h, j, k)) {
                    continue;
                }
                lv3 c = lcross(lsub(o->p[j], o->p[i]), lsub(o->p[k], o->p[i]));
                long double cl = sqrtl(ldot(c, c)), tol = 1e-12L * cl * reach;
                long double hi = -HUGE_VALL, lo = HUGE_VALL;
                for (int m = 0; m < n; ++m) {
                    long double v = ldot(c, lsub(o->p[m], o->p[i]));
                    hi = v > hi ? v : hi;
                    lo = v < lo ? v : lo;
                }
                if (!(hi <= tol) && !(lo >= -tol)) {
                    continue; /* mutual neighbours, but not a face */
                }
                lv3 nf = lunit(hi <= tol ? c : lneg(c));
                o->face_n[o->face_count++] = nf;
                int e[3][2] = {{i, j}, {j, k}, {i, k}};
                for (int q = 0; q < 3; ++q) {
                    int sl = edge_slot(h, e[q][0], e[q][1]);
                    assert_true(sl >= 0);
                    if (slot_faces[sl] < 2) {
                        slot_n[2 * sl + slot_faces[sl]++] = nf;
                    }
                }
            }
        }
    }
    o->arc = calloc((size_t)slots, sizeof *o->arc);
    assert_non_null(o->arc);
    o->edge_count = 0;
    for (int i = 0; i < n; ++i) {
        for (int s = h->adj_start[i]; s < h->adj_start[i + 1]; ++s) {
            if (h->adj[s] > i && slot_faces[s] == 2) {
                o->arc[o->edge_count][0] = slot_n[2 * s];
                o->arc[o->edge_count][1] = slot_n[2 * s + 1];
                ++o->edge_count;
            }
        }
    }
    free(slot_n);
    free(slot_faces);
}

static void opoly_free(opoly *o)
{
    free(o->p);
    free(o->face_n);
    free(o->arc);
}

/* h_D(u) = h_A(u) + h_{-B}(u), with nb the oracle view of -B. */
static long double support_d(const opoly *a, const opoly *nb, lv3 u)
{
    long double ha = -HUGE_VALL, hb = -HUGE_VALL;
    for (int i = 0; i < a->n; ++i) {
        long double v = ldot(a->p[i], u);
        ha = v > ha ? v : ha;
    }
    for (int i = 0; i < nb->n; ++i) {
        long double v = ldot(nb->p[i], u);
        hb = v > hb ? v : hb;
    }
    return ha + hb;
}

static long double angle_between(lv3 a, lv3 b)
{
    return atan2l(sqrtl(ldot(lcross(a, b), lcross(a, b))), ldot(a, b));
}

/* s on the great arc p -> q (shorter than half a turn), to a small slack. */
static bool on_arc(lv3 s, lv3 p, lv3 q)
{
    lv3 c = lcross(p, q);
    const long double slack = -1e-12L * sqrtl(ldot(c, c));
    return ldot(lcross(p, s), c) >= slack && ldot(lcross(s, q), c) >= slack;
}

/* Cell of coordinate v in [-1, 1] on a grid of g cells of width `cell`. */
static int grid_cell(long double v, long double cell, int g)
{
    int c = (int)((v + 1.0L) / cell);
    return c < 0 ? 0 : (c >= g ? g - 1 : c);
}

/* The least support value over the facet normals of D; *normal receives its direction. */
static long double oracle_depth(const opoly *a, const opoly *nb, lv3 *normal)
{
    long double best = HUGE_VALL;
    lv3 best_n = {1, 0, 0};
#define TRY(u)                                                                                     \
    do {                                                                                           \
        lv3 u_ = (u);                                                                              \
        long double h_ = support_d(a, nb, u_);                                                     \
        if (h_ < best) {                                                                           \
            best = h_;                                                                             \
            best_n = u_;                                                                           \
        }                                                                                          \
    } while (0)
    for (int f = 0; f < a->face_count; ++f) {
        TRY(a->face_n[f]);
    }
    for (int f = 0; f < nb->face_count; ++f) {
        TRY(nb->face_n[f]);
    }
    /* Edge-edge facets: arcs of A against arcs of -B whose bounding caps meet (a grid of
     * cap centres, cells as wide as the two largest radii together). */
    long double ra_max = 0.0L, rb_max = 0.0L;
    for (int e = 0; e < a->edge_count; ++e) {
        long double r = angle_between(a->arc[e][0], a->arc[e][1]) / 2;
        ra_max = r > ra_max ? r : ra_max;
    }
    for (int e = 0; e < nb->edge_count; ++e) {
        long double r = angle_between(nb->arc[e][0], nb->arc[e][1]) / 2;
        rb_max = r > rb_max ? r : rb_max;
    }
    const long double cell = ra_max + rb_max;
    const int g = (int)(2.0L / cell) + 1;
    int *head = malloc((size_t)g * g * g * sizeof *head);
    int *next = malloc((size_t)nb->edge_count * sizeof *next);
    assert_non_null(head);
    assert_non_null(next);
    for (int c = 0; c < g * g * g; ++c) {
        head[c] = -1;
    }
#define CELL(v) grid_cell((v), cell, g)
    for (int e = 0; e < nb->edge_count; ++e) {
        lv3 m = lunit((lv3){nb->arc[e][0].x + nb->arc[e][1].x, nb->arc[e][0].y + nb->arc[e][1].y,
                            nb->arc[e][0].z + nb->arc[e][1].z});
        int c = (CELL(m.x) * g + CELL(m.y)) * g + CELL(m.z);
        next[e] = head[c];
        head[c] = e;
    }
    for (int e = 0; e < a->edge_count; ++e) {
        lv3 p1 = a->arc[e][0], p2 = a->arc[e][1];
        lv3 m = lunit((lv3){p1.x + p2.x, p1.y + p2.y, p1.z + p2.z});
        int cx = CELL(m.x), cy = CELL(m.y), cz = CELL(m.z);
        lv3 c1 = lcross(p1, p2);
        for (int dx = -1; dx <= 1; ++dx) {
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dz = -1; dz <= 1; ++dz) {
                    int x = cx + dx, y = cy + dy, z = cz + dz;
                    if (x < 0 || y < 0 || z < 0 || x >= g || y >= g || z >= g) {
                        continue;
                    }
                    for (int f = head[(x * g + y) * g + z]; f >= 0; f = next[f]) {
                        lv3 q1 = nb->arc[f][0], q2 = nb->arc[f][1];
                        lv3 s = lcross(c1, lcross(q1, q2));
                        if (!(ldot(s, s) > 0.0L)) {
                            continue; /* arcs on one great circle: their ends are faces */
                        }
                        s = lunit(s);
                        for (int sign = 0; sign < 2; ++sign, s = lneg(s)) {
                            if (on_arc(s, p1, p2) && on_arc(s, q1, q2)) {
                                TRY(s);
                            }
                        }
                    }
                }
            }
        }
    }
#undef CELL
#undef TRY
    free(head);
    free(next);
    *normal = best_n;
    return best;
}

/* ------------------------------------------------------------------ the tests */

typedef struct deep_case {
    const char *name;
    gjk_vec3 radii_a, radii_b;
    gjk_transform pose_b; /* A sits at the origin */
} deep_case;

static gjk_transform pose(double angle, gjk_vec3 axis, gjk_vec3 p)
{
    return gjk_transform_make(gjk_quat_from_axis_angle(gjk_normalize(axis), angle), p);
}

/* Runs one case: hulls, EPA with and without a workspace, the oracle. */
static void run_case(const deep_case *c, gjk_workspace *ws)
{
    static gjk_vec3 pa[N_POINTS], pb[N_POINTS];
    ellipsoid_points(pa, N_POINTS, c->radii_a);
    ellipsoid_points(pb, N_POINTS, c->radii_b);
    gjk_polytope ha, hb;
    assert_int_equal(gjk_hull_build(&ha, pa, N_POINTS, NULL), GJK_STATUS_SEPARATED);
    assert_int_equal(gjk_hull_build(&hb, pb, N_POINTS, NULL), GJK_STATUS_SEPARATED);
    gjk_shape a = gjk_make_polytope(&ha), b = gjk_make_polytope(&hb);
    const gjk_transform id = gjk_transform_identity();

    gjk_query q;
    memset(&q, 0, sizeof q);
    q.shape_a = &a;
    q.pose_a = id;
    q.shape_b = &b;
    q.pose_b = c->pose_b;
    q.cutoff = HUGE_VAL;
    q.penetration = true;
    gjk_result plain = gjk_query_run(&q, NULL, NULL);
    int32_t grows = ws->grows;
    q.workspace = ws;
    gjk_result in_ws = gjk_query_run(&q, NULL, NULL);
    const int32_t grew = ws->grows - grows;
    gjk_result again = gjk_query_run(&q, NULL, NULL);

    opoly oa, onb;
    opoly_init(&oa, &ha, id, false);
    opoly_init(&onb, &hb, c->pose_b, true);
    lv3 n_oracle;
    long double depth = oracle_depth(&oa, &onb, &n_oracle);
    const double lref = gjk_length(c->radii_a) + gjk_length(c->radii_b);
    long double h_normal = support_d(&oa, &onb, lv(plain.normal));
    printf("%s: depth %.17Lg (oracle) %.17g (EPA, %d iterations), |error| %.3Lg lref, normal "
           "%.3Lg lref short, workspace %zu bytes, %d allocation(s)\n",
           c->name, depth, -plain.distance, plain.epa_iterations,
           fabsl(-plain.distance - depth) / lref, (h_normal - depth) / lref, ws->bytes, grew);

    if (plain.status != GJK_STATUS_OVERLAPPING) {
        fail_msg("%s: status %s", c->name, gjk_status_name(plain.status));
    }
    if (!(fabsl(-plain.distance - depth) <= 1e-12L * lref)) {
        fail_msg("%s: depth %.17g, oracle %.17Lg", c->name, -plain.distance, depth);
    }
    /* The normal realises the depth: D's support value along it is the depth. */
    if (!(fabsl(h_normal - depth) <= 1e-12L * lref)) {
        fail_msg("%s: h_D(normal) %.17Lg, depth %.17Lg", c->name, h_normal, depth);
    }
    /* pb - pa = distance * normal. */
    gjk_vec3 e =
        gjk_sub(gjk_sub(plain.point_b, plain.point_a), gjk_scale(plain.normal, plain.distance));
    assert_true(gjk_length(e) <= 1e-12 * lref);
    /* The workspace changes where the polytope lives, not the answer. */
    assert_int_equal(in_ws.status, plain.status);
    assert_true(in_ws.distance == plain.distance);
    assert_true(again.distance == plain.distance);
    assert_memory_equal(&in_ws.normal, &plain.normal, sizeof plain.normal);
    assert_memory_equal(&in_ws.point_a, &plain.point_a, sizeof plain.point_a);
    /* Grown at most once per doubling on the first query, not at all on the second. */
    assert_true(grew <= 8);
    assert_int_equal(ws->grows - grows, grew);
    opoly_free(&oa);
    opoly_free(&onb);
    gjk_polytope_destroy(&ha);
    gjk_polytope_destroy(&hb);
}

/* Nearly concentric spheres: D is close to a ball of radius 2 and EPA must follow it
 * everywhere (720 iterations, 3 times the stack storage). */
static void test_deep_concentric_spheres(void **state)
{
    (void)state;
    g_rng = 20261204;
    gjk_workspace ws = {NULL, 0, 0};
    deep_case c = {"concentric spheres",
                   {1, 1, 1},
                   {1, 1, 1},
                   pose(0.3, gjk_v3(1, 2, 3), gjk_v3(0.0, 0.003, 0.002))};
    run_case(&c, &ws);
    assert_true(ws.grows >= 1); /* the stack storage did not suffice */
    gjk_workspace_release(&ws);
    assert_null(ws.block);
}

/* Ellipsoids, deep, at several offsets; one workspace serves every query and grows only when
 * a query needs more than it holds. */
static void test_deep_ellipsoids(void **state)
{
    (void)state;
    g_rng = 7;
    gjk_workspace ws = {NULL, 0, 0};
    const deep_case cases[] = {
        {"ellipsoids 1",
         {1.0, 0.9, 0.8},
         {0.95, 1.0, 0.85},
         pose(0.5, gjk_v3(0, 1, 1), gjk_v3(0.0, 0.003, 0.002))},
        {"ellipsoids 2",
         {1.0, 0.98, 0.97},
         {0.99, 1.0, 0.985},
         pose(1.1, gjk_v3(1, 0, 1), gjk_v3(0.001, 0.0, 0.0))},
        {"sphere in ellipsoid",
         {2.0, 1.5, 1.2},
         {1, 1, 1},
         pose(0.2, gjk_v3(1, 1, 0), gjk_v3(0.1, -0.05, 0.02))},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_case(&cases[i], &ws);
    }
    gjk_workspace_release(&ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_concentric_spheres),
        cmocka_unit_test(test_deep_ellipsoids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
