/* test_hull.c — gjk_hull_build: hull vertices, the triangulated adjacency graph,
 * degenerate clouds, invalid input, hill climbing over the graph, thread safety. */
#define _POSIX_C_SOURCE 200809L

#include "test_util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gjk/gjk.h"

/* ------------------------------------------------------------------ helpers */

static gjk_vec3 vertex(const gjk_polytope *p, int32_t i)
{
    return gjk_v3(p->x[i], p->y[i], p->z[i]);
}

static bool same_point(gjk_vec3 a, gjk_vec3 b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* Index of the output vertex equal to q, or -1. */
static int32_t find_vertex(const gjk_polytope *p, gjk_vec3 q)
{
    for (int32_t i = 0; i < p->count; ++i) {
        if (same_point(vertex(p, i), q)) {
            return i;
        }
    }
    return -1;
}

static bool has_neighbour(const gjk_polytope *p, int32_t i, int32_t j)
{
    for (int32_t k = p->adj_start[i]; k < p->adj_start[i + 1]; ++k) {
        if (p->adj[k] == j) {
            return true;
        }
    }
    return false;
}

/* The graph is undirected (symmetric), has no self-loops or repeated neighbours, lists
 * 2 * edge_count entries and is connected. */
static void check_graph(const gjk_polytope *p, const gjk_hull_info *info)
{
    assert_non_null(p->adj_start);
    assert_int_equal(p->adj_start[0], 0);
    assert_int_equal(p->adj_start[p->count], 2 * info->edge_count);
    for (int32_t i = 0; i < p->count; ++i) {
        for (int32_t k = p->adj_start[i]; k < p->adj_start[i + 1]; ++k) {
            int32_t j = p->adj[k];
            assert_true(j >= 0 && j < p->count && j != i);
            assert_true(has_neighbour(p, j, i));
            if (k > p->adj_start[i]) {
                assert_true(p->adj[k - 1] < j); /* ascending, so no repeats */
            }
        }
    }
    /* Connectivity by flood fill. */
    int32_t *stack = malloc((size_t)p->count * sizeof *stack);
    bool *seen = calloc((size_t)p->count, sizeof *seen);
    assert_non_null(stack);
    assert_non_null(seen);
    int32_t top = 0, reached = 1;
    stack[top++] = 0;
    seen[0] = true;
    while (top > 0) {
        int32_t i = stack[--top];
        for (int32_t k = p->adj_start[i]; k < p->adj_start[i + 1]; ++k) {
            if (!seen[p->adj[k]]) {
                seen[p->adj[k]] = true;
                stack[top++] = p->adj[k];
                ++reached;
            }
        }
    }
    assert_int_equal(reached, p->count);
    free(stack);
    free(seen);
}

/* Every input point lies in the hull: along many directions no input point beats the
 * best hull vertex by more than tol. */
static void check_contains(const gjk_polytope *p, const gjk_vec3 *pts, int32_t n, double tol)
{
    for (int k = 0; k < 200; ++k) {
        gjk_vec3 d = rnd_unit();
        double best = -HUGE_VAL, worst_input = -HUGE_VAL;
        for (int32_t i = 0; i < p->count; ++i) {
            best = fmax(best, gjk_dot(vertex(p, i), d));
        }
        for (int32_t i = 0; i < n; ++i) {
            worst_input = fmax(worst_input, gjk_dot(pts[i], d));
        }
        assert_true(worst_input <= best + tol);
    }
}

/* Greedy hill climbing from every vertex reaches the maximum dot for random directions
 * (ties with the maximum are accepted: any maximiser is a correct support vertex). */
static void check_hill_climbing(const gjk_polytope *p, int directions)
{
    for (int k = 0; k < directions; ++k) {
        gjk_vec3 d = rnd_unit();
        double best = -HUGE_VAL;
        for (int32_t i = 0; i < p->count; ++i) {
            best = fmax(best, gjk_dot(vertex(p, i), d));
        }
        for (int32_t start = 0; start < p->count; ++start) {
            int32_t at = start;
            double value = gjk_dot(vertex(p, at), d);
            for (bool moved = true; moved;) {
                moved = false;
                for (int32_t e = p->adj_start[at]; e < p->adj_start[at + 1]; ++e) {
                    double v = gjk_dot(vertex(p, p->adj[e]), d);
                    if (v > value) {
                        value = v;
                        at = p->adj[e];
                        moved = true;
                    }
                }
            }
            assert_true(value == best);
        }
    }
}

static gjk_vec3 cube_corner(int i, double h)
{
    return gjk_v3((i & 1) ? h : -h, (i & 2) ? h : -h, (i & 4) ? h : -h);
}

/* ------------------------------------------------------------------ solids */

static void test_cube_with_interior_points(void **state)
{
    (void)state;
    enum { N = 8 + 200 };
    gjk_vec3 pts[N];
    /* Interior points first so output order cannot come from input order by accident. */
    for (int i = 0; i < 200; ++i) {
        pts[i] = gjk_v3(rnd_range(-0.99, 0.99), rnd_range(-0.99, 0.99), rnd_range(-0.99, 0.99));
    }
    for (int i = 0; i < 8; ++i) {
        pts[200 + i] = cube_corner(i, 1.0);
    }
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, N, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 3);
    assert_int_equal(info.input_count, N);
    assert_int_equal(info.vertex_count, 8);
    assert_int_equal(p.count, 8);
    assert_int_equal(info.edge_count, 18); /* 12 cube edges + 6 face diagonals */
    for (int i = 0; i < 8; ++i) {
        assert_true(find_vertex(&p, cube_corner(i, 1.0)) >= 0);
    }
    check_graph(&p, &info);
    /* Each of the 12 cube edges is in the graph. */
    for (int i = 0; i < 8; ++i) {
        for (int b = 0; b < 3; ++b) {
            int j = i ^ (1 << b);
            assert_true(has_neighbour(&p, find_vertex(&p, cube_corner(i, 1.0)),
                                      find_vertex(&p, cube_corner(j, 1.0))));
        }
    }
    /* No edge through the interior (opposite corners are never adjacent). */
    for (int i = 0; i < 8; ++i) {
        assert_false(has_neighbour(&p, find_vertex(&p, cube_corner(i, 1.0)),
                                   find_vertex(&p, cube_corner(7 - i, 1.0))));
    }
    assert_near(p.radius, sqrt(3.0), 1e-15);
    assert_int_equal(gjk_shape_validate(&(gjk_shape){.kind = GJK_SHAPE_POLYTOPE, .polytope = &p}),
                     GJK_STATUS_SEPARATED);
    check_hill_climbing(&p, 1000);
    gjk_polytope_destroy(&p);
}

/* Face centres and edge midpoints lie on the boundary but are not vertices. */
static void test_cube_boundary_points_are_not_vertices(void **state)
{
    (void)state;
    gjk_vec3 pts[8 + 6 + 12];
    int n = 0;
    for (int i = 0; i < 8; ++i) {
        pts[n++] = cube_corner(i, 0.5);
    }
    for (int a = 0; a < 3; ++a) {
        for (int s = -1; s <= 1; s += 2) {
            gjk_vec3 c = gjk_v3(0, 0, 0);
            if (a == 0)
                c.x = 0.5 * s;
            if (a == 1)
                c.y = 0.5 * s;
            if (a == 2)
                c.z = 0.5 * s;
            pts[n++] = c;
        }
    }
    for (int i = 0; i < 8; ++i) {
        for (int b = 0; b < 3; ++b) {
            int j = i ^ (1 << b);
            if (j > i) {
                pts[n++] = gjk_scale(gjk_add(cube_corner(i, 0.5), cube_corner(j, 0.5)), 0.5);
            }
        }
    }
    assert_int_equal(n, 26);
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, n, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.vertex_count, 8);
    assert_int_equal(info.edge_count, 18);
    check_graph(&p, &info);
    gjk_polytope_destroy(&p);
}

static void test_sphere_points_all_kept(void **state)
{
    (void)state;
    enum { N = 300 };
    gjk_vec3 pts[N];
    for (int i = 0; i < N; ++i) {
        pts[i] = gjk_scale(rnd_unit(), 2.5);
    }
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, N, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 3);
    assert_int_equal(info.vertex_count, N);
    /* Triangulated sphere: F = 2V - 4 and V - E + F = 2, so E = 3V - 6. */
    int32_t v = info.vertex_count, e = info.edge_count, f = 2 * v - 4;
    assert_int_equal(v - e + f, 2);
    check_graph(&p, &info);
    /* Output keeps the input order (ascending input index) and exact coordinates. */
    for (int i = 0; i < N; ++i) {
        assert_true(same_point(vertex(&p, i), pts[i]));
    }
    check_hill_climbing(&p, 1000);
    gjk_polytope_destroy(&p);
}

/* A random cloud far from the origin: the hull is found in a frame at the cloud so
 * the offset costs no precision; all points stay inside, climbing works. */
static void test_random_cloud_far_from_origin(void **state)
{
    (void)state;
    enum { N = 500 };
    gjk_vec3 pts[N];
    gjk_vec3 offset = gjk_v3(1e5, -2e5, 3e5);
    for (int i = 0; i < N; ++i) {
        gjk_vec3 q = gjk_v3(rnd_range(-1, 1), rnd_range(-0.5, 0.5), rnd_range(-0.25, 0.25));
        pts[i] = gjk_add(offset, q);
    }
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, N, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 3);
    assert_true(info.vertex_count >= 4 && info.vertex_count < N);
    assert_int_equal(info.vertex_count - info.edge_count + (2 * info.vertex_count - 4), 2);
    check_graph(&p, &info);
    check_contains(&p, pts, N, 1e-9);
    check_hill_climbing(&p, 1000);
    gjk_polytope_destroy(&p);
}

/* ------------------------------------------------------------------ degenerate clouds */

/* Rotates the plane z = 0 into a tilted plane through `at`. */
static gjk_vec3 tilt(gjk_vec3 v, gjk_vec3 at)
{
    gjk_quat q = gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 2, 3)), 0.7);
    return gjk_add(gjk_quat_rotate(q, v), at);
}

static void check_polygon(const gjk_vec3 *pts, int n, const gjk_vec3 *corners, int32_t nc)
{
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, n, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 2);
    assert_int_equal(info.vertex_count, nc);
    assert_int_equal(info.edge_count, nc); /* the polygon cycle */
    check_graph(&p, &info);
    for (int32_t i = 0; i < nc; ++i) {
        int32_t k = find_vertex(&p, corners[i]);
        assert_true(k >= 0);
        assert_int_equal(p.adj_start[k + 1] - p.adj_start[k], 2);
        /* Cycle neighbours are the polygon neighbours. */
        assert_true(has_neighbour(&p, k, find_vertex(&p, corners[(i + 1) % nc])));
    }
    check_hill_climbing(&p, 1000);
    gjk_polytope_destroy(&p);
}

static void test_flat_square(void **state)
{
    (void)state;
    gjk_vec3 at = gjk_v3(3, -1, 2);
    gjk_vec3 corners[4] = {tilt(gjk_v3(-1, -1, 0), at), tilt(gjk_v3(1, -1, 0), at),
                           tilt(gjk_v3(1, 1, 0), at), tilt(gjk_v3(-1, 1, 0), at)};
    gjk_vec3 pts[4 + 40];
    int n = 0;
    for (int i = 0; i < 40; ++i) {
        pts[n++] = tilt(gjk_v3(rnd_range(-0.9, 0.9), rnd_range(-0.9, 0.9), 0), at);
    }
    for (int i = 0; i < 4; ++i) {
        pts[n++] = corners[i];
    }
    check_polygon(pts, n, corners, 4);
}

static void test_flat_16gon(void **state)
{
    (void)state;
    enum { K = 16 };
    gjk_vec3 corners[K], pts[K + 1];
    for (int i = 0; i < K; ++i) {
        double a = 2.0 * 3.14159265358979323846 * i / K;
        corners[i] = tilt(gjk_v3(cos(a), sin(a), 0), gjk_v3(0, 0, 0));
        pts[(i * 7) % K] = corners[i]; /* shuffled input order */
    }
    pts[K] = tilt(gjk_v3(0.1, 0.2, 0), gjk_v3(0, 0, 0)); /* one interior point */
    check_polygon(pts, K + 1, corners, K);
}

/* A square whose points are off its plane by 1e-13 relative: flat for all purposes. */
static void test_almost_flat_is_flat(void **state)
{
    (void)state;
    gjk_vec3 pts[8];
    gjk_vec3 corners[4];
    for (int i = 0; i < 4; ++i) {
        double x = (i == 1 || i == 2) ? 1 : -1, y = i >= 2 ? 1 : -1;
        corners[i] = gjk_v3(x, y, 1e-13);
        pts[2 * i] = corners[i];
        pts[2 * i + 1] = gjk_v3(x, y, -1e-13);
    }
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, 8, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 2);
    assert_int_equal(info.vertex_count, 4);
    assert_int_equal(info.edge_count, 4);
    check_graph(&p, &info);
    check_contains(&p, pts, 8, 1e-12);
    gjk_polytope_destroy(&p);
}

/* A plate 1e-6 thick is a real solid and keeps its 8 corners. */
static void test_thin_plate_is_solid(void **state)
{
    (void)state;
    gjk_vec3 pts[8];
    for (int i = 0; i < 8; ++i) {
        gjk_vec3 c = cube_corner(i, 1.0);
        pts[i] = gjk_v3(c.x, c.y, c.z * 1e-6);
    }
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, 8, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 3);
    assert_int_equal(info.vertex_count, 8);
    assert_int_equal(info.edge_count, 18);
    check_graph(&p, &info);
    gjk_polytope_destroy(&p);
}

static void test_colinear(void **state)
{
    (void)state;
    enum { N = 30 };
    gjk_vec3 a = gjk_v3(1, 2, 3), dir = gjk_v3(0.3, -0.4, 0.5);
    gjk_vec3 pts[N];
    for (int i = 0; i < N; ++i) {
        pts[i] = gjk_madd(a, rnd_range(0.05, 0.95), dir);
    }
    pts[7] = a;                /* one end */
    pts[19] = gjk_add(a, dir); /* the other end */
    pts[25] = gjk_add(a, dir); /* duplicate end */
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, N, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 1);
    assert_int_equal(info.vertex_count, 2);
    assert_int_equal(info.edge_count, 1);
    assert_true(same_point(vertex(&p, 0), pts[7]));
    assert_true(same_point(vertex(&p, 1), pts[19]));
    check_graph(&p, &info);
    assert_int_equal(p.adj[0], 1);
    assert_int_equal(p.adj[1], 0);
    gjk_polytope_destroy(&p);
}

static void test_single_and_coincident_points(void **state)
{
    (void)state;
    gjk_vec3 pts[5];
    for (int i = 0; i < 5; ++i) {
        pts[i] = gjk_v3(-4, 5, 0.25);
    }
    for (int n = 1; n <= 5; n += 4) {
        gjk_polytope p;
        gjk_hull_info info;
        assert_int_equal(gjk_hull_build(&p, pts, n, &info), GJK_STATUS_SEPARATED);
        assert_int_equal(info.dimension, 0);
        assert_int_equal(info.input_count, n);
        assert_int_equal(info.vertex_count, 1);
        assert_int_equal(info.edge_count, 0);
        assert_int_equal(p.count, 1);
        assert_true(same_point(vertex(&p, 0), pts[0]));
        assert_int_equal(p.adj_start[0], 0);
        assert_int_equal(p.adj_start[1], 0);
        assert_near(p.radius, gjk_length(pts[0]), 0.0);
        gjk_polytope_destroy(&p);
    }
}

/* Two distinct points (also a segment). */
static void test_two_points(void **state)
{
    (void)state;
    gjk_vec3 pts[3] = {gjk_v3(1, 1, 1), gjk_v3(-1, 0, 2), gjk_v3(1, 1, 1)};
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, 3, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 1);
    assert_int_equal(info.vertex_count, 2);
    assert_int_equal(info.edge_count, 1);
    gjk_polytope_destroy(&p);
}

static void test_duplicates_merged(void **state)
{
    (void)state;
    enum { N = 8 * 4 + 3 };
    gjk_vec3 pts[N];
    int n = 0;
    for (int r = 0; r < 4; ++r) {
        for (int i = 0; i < 8; ++i) {
            pts[n++] = cube_corner(i, 0.75);
        }
    }
    pts[n++] = gjk_v3(0, 0, 0);
    pts[n++] = gjk_v3(0, 0, 0);
    pts[n++] = gjk_v3(0.1, 0, 0);
    gjk_polytope p;
    gjk_hull_info info;
    assert_int_equal(gjk_hull_build(&p, pts, n, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.vertex_count, 8);
    assert_int_equal(info.edge_count, 18);
    check_graph(&p, &info);
    for (int32_t i = 0; i < p.count; ++i) {
        for (int32_t j = i + 1; j < p.count; ++j) {
            assert_false(same_point(vertex(&p, i), vertex(&p, j)));
        }
    }
    gjk_polytope_destroy(&p);

    /* Duplicated polygon corners. */
    gjk_vec3 sq[12];
    for (int i = 0; i < 12; ++i) {
        int c = i % 4;
        sq[i] = gjk_v3((c == 1 || c == 2) ? 1 : -1, c >= 2 ? 1 : -1, 5);
    }
    assert_int_equal(gjk_hull_build(&p, sq, 12, &info), GJK_STATUS_SEPARATED);
    assert_int_equal(info.dimension, 2);
    assert_int_equal(info.vertex_count, 4);
    assert_int_equal(info.edge_count, 4);
    gjk_polytope_destroy(&p);
}

/* ------------------------------------------------------------------ invalid input */

static void test_invalid_input(void **state)
{
    (void)state;
    gjk_vec3 pts[5] = {gjk_v3(0, 0, 0), gjk_v3(1, 0, 0), gjk_v3(0, 1, 0), gjk_v3(0, 0, 1),
                       gjk_v3(1, 1, 1)};
    gjk_polytope p;
    gjk_hull_info info;
    const gjk_polytope zero = {0};

    memset(&p, 0xAB, sizeof p);
    assert_int_equal(gjk_hull_build(&p, pts, 0, &info), GJK_STATUS_INVALID_INPUT);
    assert_memory_equal(&p, &zero, sizeof p);
    assert_int_equal(info.vertex_count, 0);
    assert_int_equal(gjk_hull_build(&p, pts, -3, NULL), GJK_STATUS_INVALID_INPUT);
    assert_int_equal(gjk_hull_build(&p, NULL, 4, NULL), GJK_STATUS_INVALID_INPUT);
    assert_memory_equal(&p, &zero, sizeof p);

    double bad[3] = {(double)NAN, HUGE_VAL, -HUGE_VAL};
    for (int b = 0; b < 3; ++b) {
        for (int c = 0; c < 3; ++c) {
            gjk_vec3 q[5];
            memcpy(q, pts, sizeof q);
            if (c == 0)
                q[3].x = bad[b];
            if (c == 1)
                q[3].y = bad[b];
            if (c == 2)
                q[3].z = bad[b];
            memset(&p, 0xAB, sizeof p);
            assert_int_equal(gjk_hull_build(&p, q, 5, &info), GJK_STATUS_INVALID_INPUT);
            assert_memory_equal(&p, &zero, sizeof p);
        }
    }
    /* info may be NULL on success too. */
    assert_int_equal(gjk_hull_build(&p, pts, 5, NULL), GJK_STATUS_SEPARATED);
    assert_int_equal(p.count, 5);
    gjk_polytope_destroy(&p);
}

/* ------------------------------------------------------------------ storage layout */

static void test_hull_storage_layout(void **state)
{
    (void)state;
    enum { N = 37 };
    gjk_vec3 pts[N];
    for (int i = 0; i < N; ++i) {
        pts[i] = rnd_unit();
    }
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, pts, N, NULL), GJK_STATUS_SEPARATED);
    assert_int_equal(p.count, N);
    assert_int_equal(p.padded_count, 40);
    assert_non_null(p.storage);
    assert_int_equal((uintptr_t)p.x % 64, 0);
    assert_int_equal((uintptr_t)p.y % 64, 0);
    assert_int_equal((uintptr_t)p.z % 64, 0);
    for (int32_t i = N; i < p.padded_count; ++i) {
        assert_true(p.x[i] == p.x[N - 1] && p.y[i] == p.y[N - 1] && p.z[i] == p.z[N - 1]);
    }
    gjk_polytope_destroy(&p);
    assert_null(p.storage);
    assert_int_equal(p.count, 0);
}

/* ------------------------------------------------------------------ threads */

typedef struct thread_job {
    const gjk_vec3 *pts;
    int32_t n;
    int32_t vertex_count, edge_count;
    int failures;
} thread_job;

static void *build_many(void *arg)
{
    thread_job *job = arg;
    for (int r = 0; r < 20; ++r) {
        gjk_polytope p;
        gjk_hull_info info;
        if (gjk_hull_build(&p, job->pts, job->n, &info) != GJK_STATUS_SEPARATED ||
            info.vertex_count != job->vertex_count || info.edge_count != job->edge_count) {
            ++job->failures;
        }
        gjk_polytope_destroy(&p);
    }
    return NULL;
}

static void test_concurrent_builds(void **state)
{
    (void)state;
    enum { N = 400, T = 4 };
    static gjk_vec3 pts[N];
    for (int i = 0; i < N; ++i) {
        pts[i] = gjk_scale(rnd_unit(), rnd_range(0.5, 1.0));
    }
    gjk_hull_info ref;
    gjk_polytope p;
    assert_int_equal(gjk_hull_build(&p, pts, N, &ref), GJK_STATUS_SEPARATED);
    gjk_polytope_destroy(&p);
    thread_job jobs[T];
    pthread_t threads[T];
    for (int t = 0; t < T; ++t) {
        jobs[t] = (thread_job){pts, N, ref.vertex_count, ref.edge_count, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, build_many, &jobs[t]), 0);
    }
    for (int t = 0; t < T; ++t) {
        assert_int_equal(pthread_join(threads[t], NULL), 0);
        assert_int_equal(jobs[t].failures, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_with_interior_points),
        cmocka_unit_test(test_cube_boundary_points_are_not_vertices),
        cmocka_unit_test(test_sphere_points_all_kept),
        cmocka_unit_test(test_random_cloud_far_from_origin),
        cmocka_unit_test(test_flat_square),
        cmocka_unit_test(test_flat_16gon),
        cmocka_unit_test(test_almost_flat_is_flat),
        cmocka_unit_test(test_thin_plate_is_solid),
        cmocka_unit_test(test_colinear),
        cmocka_unit_test(test_single_and_coincident_points),
        cmocka_unit_test(test_two_points),
        cmocka_unit_test(test_duplicates_merged),
        cmocka_unit_test(test_invalid_input),
        cmocka_unit_test(test_hull_storage_layout),
        cmocka_unit_test(test_concurrent_builds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
