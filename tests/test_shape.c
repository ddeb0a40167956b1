/* test_shape.c — shape constructors, validation, the reference support map against
 * brute force and closed forms, bounding radii, AABBs, owned polytope storage. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "gjk/gjk.h"

/* a <= b + tol, with the values printed on failure. */

/* ------------------------------------------------------------------ helpers */

static double get(gjk_vec3 v, int i)
{
    return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

static gjk_vec3 axis_vec(int i, double s)
{
    return gjk_v3(i == 0 ? s : 0.0, i == 1 ? s : 0.0, i == 2 ? s : 0.0);
}

/* A growable list of sample points. */
typedef struct samples {
    gjk_vec3 *p;
    int n, cap;
} samples;

static void push(samples *s, gjk_vec3 v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->p = realloc(s->p, (size_t)s->cap * sizeof *s->p);
        assert_non_null(s->p);
    }
    s->p[s->n++] = v;
}

/* Fibonacci sphere: nearly uniform unit vectors, plus the six axis directions. */
static void fibonacci(samples *s, int n, double r, gjk_vec3 centre)
{
    double golden = PI * (3.0 - sqrt(5.0));
    for (int i = 0; i < n; ++i) {
        double z = 1.0 - (2.0 * i + 1.0) / n;
        double rho = sqrt(1.0 - z * z), t = golden * i;
        push(s, gjk_madd(centre, r, gjk_v3(rho * cos(t), rho * sin(t), z)));
    }
    for (int i = 0; i < 3; ++i) {
        push(s, gjk_madd(centre, r, axis_vec(i, 1.0)));
        push(s, gjk_madd(centre, r, axis_vec(i, -1.0)));
    }
}

/* Circle of radius r at height z, k points. */
static void circle(samples *s, double r, double z, int k)
{
    for (int i = 0; i < k; ++i) {
        double t = 2.0 * PI * i / k;
        push(s, gjk_v3(r * cos(t), r * sin(t), z));
    }
}

/* Points on the surface of the shape without its margin (the margin is a ball, sampled
 * separately: the support of a Minkowski sum is the sum of the supports). */
static samples surface_samples(const gjk_shape *sh)
{
    samples s = {0};
    enum { K = 720, FIB = 20000 };
    double r = sh->radius, h = sh->half_height;
    switch (sh->kind) {
    case GJK_SHAPE_POINT:
        push(&s, gjk_v3(0, 0, 0));
        break;
    case GJK_SHAPE_SPHERE:
        fibonacci(&s, FIB, r, gjk_v3(0, 0, 0));
        break;
    case GJK_SHAPE_CAPSULE: {
        samples ball = {0};
        fibonacci(&ball, FIB, r, gjk_v3(0, 0, 0));
        for (int i = 0; i < ball.n; ++i) {
            gjk_vec3 u = ball.p[i];
            push(&s, gjk_add(u, gjk_v3(0, 0, u.z >= 0 ? h : -h)));
        }
        free(ball.p);
        for (int j = 0; j <= 10; ++j) {
            circle(&s, r, -h + 2.0 * h * j / 10, K);
        }
        break;
    }
    case GJK_SHAPE_BOX: {
        gjk_vec3 e = sh->half_extents;
        enum { G = 24 };
        for (int a = 0; a < G + 1; ++a) {
            for (int b = 0; b < G + 1; ++b) {
                double u = -1.0 + 2.0 * a / G, v = -1.0 + 2.0 * b / G;
                for (int sgn = -1; sgn <= 1; sgn += 2) {
                    push(&s, gjk_v3(sgn * e.x, u * e.y, v * e.z));
                    push(&s, gjk_v3(u * e.x, sgn * e.y, v * e.z));
                    push(&s, gjk_v3(u * e.x, v * e.y, sgn * e.z));
                }
            }
        }
        break;
    }
    case GJK_SHAPE_CYLINDER:
        for (int j = 0; j <= 10; ++j) {
            circle(&s, r, -h + 2.0 * h * j / 10, K);
            circle(&s, r * j / 10, h, K / 4);
            circle(&s, r * j / 10, -h, K / 4);
        }
        break;
    case GJK_SHAPE_CONE:
        push(&s, gjk_v3(0, 0, h));
        for (int j = 0; j <= 10; ++j) {
            double t = j / 10.0; /* lateral surface from the rim (0) to the apex (1) */
            circle(&s, r * (1.0 - t), -h + 2.0 * h * t, K);
            circle(&s, r * j / 10, -h, K / 4);
        }
        break;
    case GJK_SHAPE_ELLIPSOID: { /* the unit sphere stretched by the radii */
        samples ball = {0};
        fibonacci(&ball, FIB, 1.0, gjk_v3(0, 0, 0));
        for (int i = 0; i < ball.n; ++i) {
            gjk_vec3 u = ball.p[i];
            push(&s, gjk_v3(u.x * sh->radii.x, u.y * sh->radii.y, u.z * sh->radii.z));
        }
        free(ball.p);
        break;
    }
    case GJK_SHAPE_POLYTOPE:
        for (int32_t i = 0; i < sh->polytope->count; ++i) {
            const gjk_polytope *p = sh->polytope;
            push(&s, gjk_v3(p->x[i], p->y[i], p->z[i]));
        }
        break;
    default:
        fail();
    }
    return s;
}

static double max_dot(const samples *s, gjk_vec3 d)
{
    double best = -HUGE_VAL;
    for (int i = 0; i < s->n; ++i) {
        best = fmax(best, gjk_dot(s->p[i], d));
    }
    return best;
}

/* Distance from (rho, z) to the segment a b in the plane. */
static double seg_dist_2d(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay;
    double t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy);
    t = fmax(0.0, fmin(1.0, t));
    return hypot(px - ax - t * dx, py - ay - t * dy);
}

/* Distance from a local point to the shape's core solid (no margin, no sphere/capsule
 * radius), computed independently of the library. */
static double core_distance(const gjk_shape *sh, gjk_vec3 q)
{
    double h = sh->half_height, r = sh->radius;
    double rho = hypot(q.x, q.y);
    switch (sh->kind) {
    case GJK_SHAPE_POINT:
    case GJK_SHAPE_SPHERE:
        return gjk_length(q);
    case GJK_SHAPE_CAPSULE:
        return gjk_length(gjk_v3(q.x, q.y, q.z - fmax(-h, fmin(h, q.z))));
    case GJK_SHAPE_BOX: {
        gjk_vec3 e = sh->half_extents;
        gjk_vec3 c = gjk_v3(fmax(-e.x, fmin(e.x, q.x)), fmax(-e.y, fmin(e.y, q.y)),
                            fmax(-e.z, fmin(e.z, q.z)));
        return gjk_distance_between(q, c);
    }
    case GJK_SHAPE_CYLINDER:
        return hypot(fmax(rho - r, 0.0), fmax(fabs(q.z) - h, 0.0));
    case GJK_SHAPE_CONE: {
        /* Triangle (0,-h), (r,-h), (0,h) in the (rho, z) half-plane. */
        bool inside = q.z >= -h && q.z <= h && rho <= r * (h - q.z) / (2.0 * h);
        if (inside) {
            return 0.0;
        }
        return fmin(seg_dist_2d(rho, q.z, 0, -h, r, -h), seg_dist_2d(rho, q.z, r, -h, 0, h));
    }
    case GJK_SHAPE_ELLIPSOID: {
        /* 0 inside; outside, the root t > 0 of sum (e_i q_i / (t + e_i^2))^2 = 1 by bisection
         * (the Lagrange condition of the nearest point), the gap t |(q_i / (t + e_i^2))|. */
        const double e[3] = {sh->radii.x, sh->radii.y, sh->radii.z};
        const double a[3] = {fabs(q.x), fabs(q.y), fabs(q.z)};
        if (a[0] * a[0] / (e[0] * e[0]) + a[1] * a[1] / (e[1] * e[1]) +
                a[2] * a[2] / (e[2] * e[2]) <=
            1.0) {
            return 0.0;
        }
        double lo = 0.0, hi = fmax(e[0], fmax(e[1], e[2])) * gjk_length(q);
        for (int it = 0; it < 2000; ++it) {
            double t = 0.5 * (lo + hi), f = -1.0;
            if (!(t > lo && t < hi)) {
                break;
            }
            for (int i = 0; i < 3; ++i) {
                f += pow(e[i] * a[i] / (t + e[i] * e[i]), 2);
            }
            if (f > 0.0) {
                lo = t;
            } else {
                hi = t;
            }
        }
        double t = 0.5 * (lo + hi), g = 0.0;
        for (int i = 0; i < 3; ++i) {
            g += pow(a[i] / (t + e[i] * e[i]), 2);
        }
        return t * sqrt(g);
    }
    case GJK_SHAPE_POLYTOPE: {
        /* The support core of a polytope is a vertex: distance to the nearest vertex. */
        const gjk_polytope *p = sh->polytope;
        double best = HUGE_VAL;
        for (int32_t i = 0; i < p->count; ++i) {
            best = fmin(best, gjk_distance_between(q, gjk_v3(p->x[i], p->y[i], p->z[i])));
        }
        return best;
    }
    default:
        fail();
        return 0.0;
    }
}

/* Radius summed onto the core (see core_distance). */
static double rounding(const gjk_shape *sh)
{
    bool rounded = sh->kind == GJK_SHAPE_SPHERE || sh->kind == GJK_SHAPE_CAPSULE;
    return sh->margin + (rounded ? sh->radius : 0.0);
}

/* Closed-form support function h(n) = max over the shape of dot(x, n), unit n. */
static double support_value(const gjk_shape *sh, gjk_vec3 n)
{
    double h = sh->half_height, r = sh->radius, m = sh->margin;
    double rho = hypot(n.x, n.y);
    switch (sh->kind) {
    case GJK_SHAPE_POINT:
        return m;
    case GJK_SHAPE_SPHERE:
        return r + m;
    case GJK_SHAPE_CAPSULE:
        return h * fabs(n.z) + r + m;
    case GJK_SHAPE_BOX:
        return fabs(n.x) * sh->half_extents.x + fabs(n.y) * sh->half_extents.y +
               fabs(n.z) * sh->half_extents.z + m;
    case GJK_SHAPE_CYLINDER:
        return r * rho + h * fabs(n.z) + m;
    case GJK_SHAPE_CONE:
        return fmax(h * n.z, r * rho - h * n.z) + m;
    case GJK_SHAPE_ELLIPSOID: /* |diag(radii) n| */
        return gjk_length(gjk_v3(sh->radii.x * n.x, sh->radii.y * n.y, sh->radii.z * n.z)) + m;
    case GJK_SHAPE_POLYTOPE: {
        samples s = surface_samples(sh);
        double v = max_dot(&s, n) + m;
        free(s.p);
        return v;
    }
    default:
        fail();
        return 0.0;
    }
}

/* A small fixture polytope: an irregular octahedron-like set with an interior point. */
static const gjk_vec3 poly_points[] = {
    {1.0, 0.1, 0.0}, {-0.8, 0.0, 0.2}, {0.0, 1.2, 0.0}, {0.1, -0.9, 0.0},
    {0.0, 0.0, 1.1}, {0.0, 0.2, -0.7}, {0.1, 0.1, 0.1}, {0.5, 0.5, 0.5},
};

/* The shapes every kind-generic test runs on. */
enum { SHAPE_COUNT = 17 };

static void make_shapes(gjk_shape *out, gjk_polytope *poly)
{
    assert_int_equal(gjk_polytope_create(poly, poly_points, 8, NULL, NULL), GJK_STATUS_SEPARATED);
    int k = 0;
    out[k++] = gjk_make_point();
    out[k++] = gjk_make_sphere(0.7);
    out[k++] = gjk_make_capsule(0.3, 0.8);
    out[k++] = gjk_make_box(gjk_v3(0.5, 1.5, 0.25));
    out[k++] = gjk_make_cylinder(0.4, 1.1);
    out[k++] = gjk_make_cone(0.9, 0.6);
    out[k++] = gjk_make_cone(0.2, 1.5); /* a slender cone: the apex wins more often */
    out[k++] = gjk_make_polytope(poly);
    /* The same kinds with a margin. */
    for (int i = 0; i < 6; ++i) { /* point .. cone */
        out[k] = out[i];
        out[k].margin = 0.05 + 0.1 * i;
        ++k;
    }
    out[k] = gjk_make_polytope(poly);
    out[k++].margin = 0.25;
    out[k++] = gjk_make_ellipsoid(gjk_v3(0.9, 0.3, 0.6));
    out[k] = gjk_make_ellipsoid(gjk_v3(0.05, 1.2, 0.4)); /* flat */
    out[k++].margin = 0.15;
    assert_int_equal(k, SHAPE_COUNT);
    for (int i = 0; i < SHAPE_COUNT; ++i) {
        assert_int_equal(gjk_shape_validate(&out[i]), GJK_STATUS_SEPARATED);
    }
}

/* Directions that hit ties and axes as well as random ones. */
static gjk_vec3 test_direction(int k)
{
    static const gjk_vec3 special[] = {
        {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1},   {0, 0, -1},
        {1, 1, 0}, {1, 0, 1},  {0, 1, 1}, {1, 1, 1},  {-1, 1, -1}, {0.3, -0.2, 0.05},
    };
    enum { S = sizeof special / sizeof special[0] };
    return k < S ? gjk_normalize(special[k]) : rnd_unit();
}

/* ------------------------------------------------------------------ constructors */

static void test_constructors(void **state)
{
    (void)state;
    gjk_shape s = gjk_make_point();
    assert_int_equal(s.kind, GJK_SHAPE_POINT);
    assert_true(s.margin == 0.0 && s.radius == 0.0 && s.half_height == 0.0);
    s = gjk_make_sphere(2.0);
    assert_int_equal(s.kind, GJK_SHAPE_SPHERE);
    assert_true(s.radius == 2.0 && s.margin == 0.0);
    s = gjk_make_capsule(0.5, 1.5);
    assert_int_equal(s.kind, GJK_SHAPE_CAPSULE);
    assert_true(s.radius == 0.5 && s.half_height == 1.5 && s.margin == 0.0);
    s = gjk_make_box(gjk_v3(1, 2, 3));
    assert_int_equal(s.kind, GJK_SHAPE_BOX);
    assert_true(s.half_extents.x == 1 && s.half_extents.y == 2 && s.half_extents.z == 3);
    s = gjk_make_cylinder(0.25, 0.75);
    assert_int_equal(s.kind, GJK_SHAPE_CYLINDER);
    assert_true(s.radius == 0.25 && s.half_height == 0.75);
    s = gjk_make_cone(0.5, 0.125);
    assert_int_equal(s.kind, GJK_SHAPE_CONE);
    assert_true(s.radius == 0.5 && s.half_height == 0.125);
    gjk_polytope p = {0};
    s = gjk_make_polytope(&p);
    assert_int_equal(s.kind, GJK_SHAPE_POLYTOPE);
    assert_ptr_equal(s.polytope, &p);
    assert_true(s.margin == 0.0);
}

/* ------------------------------------------------------------------ validation table */

static double tet_x[8] = {0, 1, 0, 0, 0, 0, 0, 0};
static double tet_y[8] = {0, 0, 1, 0, 0, 0, 0, 0};
static double tet_z[8] = {0, 0, 0, 1, 1, 1, 1, 1};
static int32_t tet_start[5] = {0, 3, 6, 9, 12};
static int32_t tet_adj[12] = {1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2};

/* A hand-filled (borrowed) tetrahedron, padded to 8 with copies of the last vertex. */
static gjk_polytope borrowed_tet(void)
{
    gjk_polytope p = {0};
    p.x = tet_x;
    p.y = tet_y;
    p.z = tet_z;
    p.adj_start = tet_start;
    p.adj = tet_adj;
    p.count = 4;
    p.padded_count = 8;
    p.radius = 1.0;
    return p;
}

static void test_validation_table(void **state)
{
    (void)state;
    const gjk_status OK = GJK_STATUS_SEPARATED, BAD = GJK_STATUS_INVALID_INPUT;
    struct row {
        const char *what;
        gjk_shape shape;
        gjk_status expect;
    };
    gjk_polytope good = borrowed_tet();
    gjk_polytope p_unpadded = good, p_empty = good, p_short = good, p_nullx = good, p_nully = good,
                 p_nullz = good, p_radius = good, p_negradius = good, p_noadj = good,
                 p_nanradius = good;
    p_unpadded.padded_count = 4;
    p_empty.count = 0;
    p_short.padded_count = 3;
    p_nullx.x = NULL;
    p_nully.y = NULL;
    p_nullz.z = NULL;
    p_radius.radius = 0.9; /* smaller than |vertex| = 1 */
    p_negradius.radius = -1.0;
    p_nanradius.radius = (double)NAN;
    p_noadj.adj_start = NULL;
    p_noadj.adj = NULL;

    /* Adjacency faults. */
    static int32_t start_bad0[5] = {1, 3, 6, 9, 12};
    static int32_t start_dec[5] = {0, 3, 2, 9, 12};
    static int32_t adj_range[12] = {1, 2, 4, 0, 2, 3, 0, 1, 3, 0, 1, 2};
    static int32_t adj_neg[12] = {1, 2, -1, 0, 2, 3, 0, 1, 3, 0, 1, 2};
    static int32_t adj_self[12] = {0, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2};
    gjk_polytope p_start0 = good, p_dec = good, p_range = good, p_neg = good, p_self = good,
                 p_adjnull = good;
    p_start0.adj_start = start_bad0;
    p_dec.adj_start = start_dec;
    p_range.adj = adj_range;
    p_neg.adj = adj_neg;
    p_self.adj = adj_self;
    p_adjnull.adj = NULL;

    /* Vertex and padding faults: fresh arrays so the good fixture stays good. */
    static double x_nan[8] = {0, 1, (double)NAN, 0, 0, 0, 0, 0};
    static double z_inf[8] = {0, 0, HUGE_VAL, 1, 1, 1, 1, 1};
    static double z_pad[8] = {0, 0, 0, 1, 1, 1, 2, 1}; /* padding differs from the last vertex */
    gjk_polytope p_xnan = good, p_zinf = good, p_pad = good;
    p_xnan.x = x_nan;
    p_zinf.z = z_inf;
    p_pad.z = z_pad;

    gjk_shape sphere_neg = gjk_make_sphere(-1.0), sphere_nan = gjk_make_sphere((double)NAN);
    gjk_shape margin_neg = gjk_make_sphere(1.0), margin_inf = gjk_make_box(gjk_v3(1, 1, 1));
    margin_neg.margin = -0.1;
    margin_inf.margin = HUGE_VAL;
    gjk_shape point_margin = gjk_make_point();
    point_margin.margin = 0.5;
    gjk_shape unknown = gjk_make_point();
    unknown.kind = (gjk_shape_kind)99;
    gjk_shape count_kind = gjk_make_point();
    count_kind.kind = GJK_SHAPE_KIND_COUNT;
    gjk_shape zero;
    memset(&zero, 0, sizeof zero);

    const struct row rows[] = {
        {"zeroed shape", zero, BAD},
        {"unknown kind", unknown, BAD},
        {"KIND_COUNT", count_kind, BAD},
        {"point", gjk_make_point(), OK},
        {"point with margin", point_margin, OK},
        {"sphere", gjk_make_sphere(1.0), OK},
        {"sphere radius 0", gjk_make_sphere(0.0), OK},
        {"sphere radius < 0", sphere_neg, BAD},
        {"sphere radius NaN", sphere_nan, BAD},
        {"margin < 0", margin_neg, BAD},
        {"margin Inf", margin_inf, BAD},
        {"capsule", gjk_make_capsule(1, 2), OK},
        {"capsule h < 0", gjk_make_capsule(1, -2), BAD},
        {"capsule r Inf", gjk_make_capsule(HUGE_VAL, 2), BAD},
        {"box", gjk_make_box(gjk_v3(1, 2, 3)), OK},
        {"flat box", gjk_make_box(gjk_v3(1, 0, 3)), OK},
        {"box x < 0", gjk_make_box(gjk_v3(-1, 2, 3)), BAD},
        {"box y NaN", gjk_make_box(gjk_v3(1, (double)NAN, 3)), BAD},
        {"box z -Inf", gjk_make_box(gjk_v3(1, 2, -HUGE_VAL)), BAD},
        {"cylinder", gjk_make_cylinder(1, 2), OK},
        {"cylinder r < 0", gjk_make_cylinder(-1, 2), BAD},
        {"cylinder h NaN", gjk_make_cylinder(1, (double)NAN), BAD},
        {"cone", gjk_make_cone(1, 2), OK},
        {"cone r NaN", gjk_make_cone((double)NAN, 2), BAD},
        {"cone h < 0", gjk_make_cone(1, -0.5), BAD},
        {"polytope", gjk_make_polytope(&good), OK},
        {"polytope NULL", gjk_make_polytope(NULL), BAD},
        {"polytope unpadded", gjk_make_polytope(&p_unpadded), OK},
        {"polytope no adjacency", gjk_make_polytope(&p_noadj), OK},
        {"polytope count 0", gjk_make_polytope(&p_empty), BAD},
        {"polytope padded < count", gjk_make_polytope(&p_short), BAD},
        {"polytope x NULL", gjk_make_polytope(&p_nullx), BAD},
        {"polytope y NULL", gjk_make_polytope(&p_nully), BAD},
        {"polytope z NULL", gjk_make_polytope(&p_nullz), BAD},
        {"polytope radius too small", gjk_make_polytope(&p_radius), BAD},
        {"polytope radius < 0", gjk_make_polytope(&p_negradius), BAD},
        {"polytope radius NaN", gjk_make_polytope(&p_nanradius), BAD},
        {"polytope NaN vertex", gjk_make_polytope(&p_xnan), BAD},
        {"polytope Inf vertex", gjk_make_polytope(&p_zinf), BAD},
        {"polytope bad padding", gjk_make_polytope(&p_pad), BAD},
        {"adjacency start != 0", gjk_make_polytope(&p_start0), BAD},
        {"adjacency decreasing", gjk_make_polytope(&p_dec), BAD},
        {"adjacency index >= count", gjk_make_polytope(&p_range), BAD},
        {"adjacency index < 0", gjk_make_polytope(&p_neg), BAD},
        {"adjacency self-loop", gjk_make_polytope(&p_self), BAD},
        {"adjacency list NULL", gjk_make_polytope(&p_adjnull), BAD},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        gjk_status got = gjk_shape_validate(&rows[i].shape);
        if (got != rows[i].expect) {
            print_error("row '%s': got %s, expected %s\n", rows[i].what, gjk_status_name(got),
                        gjk_status_name(rows[i].expect));
            fail();
        }
    }
    assert_int_equal(gjk_shape_validate(NULL), BAD);
}

/* ------------------------------------------------------------------ polytope storage */

static void test_polytope_create_layout(void **state)
{
    (void)state;
    gjk_vec3 pts[20];
    for (int i = 0; i < 20; ++i) {
        pts[i] = gjk_v3(rnd_range(-2, 2), rnd_range(-2, 2), rnd_range(-2, 2));
    }
    for (int32_t n = 1; n <= 20; ++n) {
        gjk_polytope p;
        assert_int_equal(gjk_polytope_create(&p, pts, n, NULL, NULL), GJK_STATUS_SEPARATED);
        assert_int_equal(p.count, n);
        assert_int_equal(p.padded_count % 8, 0);
        assert_true(p.padded_count >= n && p.padded_count < n + 8);
        assert_non_null(p.storage);
        assert_int_equal((uintptr_t)p.x % 64, 0);
        assert_int_equal((uintptr_t)p.y % 64, 0);
        assert_int_equal((uintptr_t)p.z % 64, 0);
        /* One allocation: the arrays live inside `storage`, one after the other. */
        assert_true((const char *)p.x > (const char *)p.storage);
        assert_ptr_equal(p.y, p.x + p.padded_count);
        assert_ptr_equal(p.z, p.y + p.padded_count);
        double radius = 0.0;
        for (int32_t i = 0; i < p.padded_count; ++i) {
            gjk_vec3 expect = pts[i < n ? i : n - 1];
            assert_true(p.x[i] == expect.x && p.y[i] == expect.y && p.z[i] == expect.z);
            radius = fmax(radius, gjk_length(expect));
        }
        assert_near(p.radius, radius, 0.0);
        assert_null(p.adj_start);
        assert_null(p.adj);
        gjk_shape s = gjk_make_polytope(&p);
        assert_int_equal(gjk_shape_validate(&s), GJK_STATUS_SEPARATED);
        gjk_polytope_destroy(&p);
        const gjk_polytope zero = {0};
        assert_memory_equal(&p, &zero, sizeof p);
    }
}

static void test_polytope_create_adjacency(void **state)
{
    (void)state;
    gjk_vec3 pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    gjk_polytope p;
    assert_int_equal(gjk_polytope_create(&p, pts, 4, tet_start, tet_adj), GJK_STATUS_SEPARATED);
    assert_non_null(p.adj_start);
    assert_non_null(p.adj);
    /* Copies, not the caller's arrays, inside the one block. */
    assert_ptr_not_equal(p.adj_start, tet_start);
    assert_ptr_not_equal(p.adj, tet_adj);
    assert_true((const char *)p.adj_start >= (const char *)p.storage);
    assert_memory_equal(p.adj_start, tet_start, sizeof tet_start);
    assert_memory_equal(p.adj, tet_adj, sizeof tet_adj);
    assert_int_equal((uintptr_t)p.adj_start % _Alignof(int32_t), 0);
    assert_near(p.radius, 1.0, 0.0);
    gjk_polytope_destroy(&p);

    /* An adjacency with no edges at all (a single point). */
    int32_t start1[2] = {0, 0};
    assert_int_equal(gjk_polytope_create(&p, pts, 1, start1, NULL), GJK_STATUS_SEPARATED);
    assert_non_null(p.adj_start);
    assert_null(p.adj);
    gjk_polytope_destroy(&p);
}

static void test_polytope_create_rejects(void **state)
{
    (void)state;
    gjk_vec3 pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const gjk_polytope zero = {0};
    gjk_polytope p;
    struct {
        const gjk_vec3 *pts;
        int32_t n;
        const int32_t *start, *adj;
    } bad[] = {
        {pts, 0, NULL, NULL},
        {pts, -1, NULL, NULL},
        {NULL, 4, NULL, NULL},
        {pts, 4, (const int32_t[]){0, 3, 6, 9, 13}, /* neighbour 4 of 4 */
         (const int32_t[]){1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2, 4}},
        {pts, 4, (const int32_t[]){0, 3, 2, 9, 12}, tet_adj}, /* decreasing */
        {pts, 4, (const int32_t[]){1, 3, 6, 9, 12}, tet_adj}, /* does not start at 0 */
        {pts, 4, tet_start, (const int32_t[]){1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 7}},
        {pts, 4, tet_start, (const int32_t[]){1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 3}}, /* loop */
        {pts, 4, tet_start, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        memset(&p, 0x5A, sizeof p);
        gjk_status s = gjk_polytope_create(&p, bad[i].pts, bad[i].n, bad[i].start, bad[i].adj);
        if (s != GJK_STATUS_INVALID_INPUT) {
            print_error("case %zu: got %s\n", i, gjk_status_name(s));
            fail();
        }
        assert_memory_equal(&p, &zero, sizeof p);
    }
    /* NaN, +-Inf, and a finite coordinate whose |p| overflows (the radius was once
     * recorded as infinite, which made every tolerance derived from it infinite). */
    double bad_values[4] = {(double)NAN, HUGE_VAL, -HUGE_VAL, 0x1p+600};
    for (int b = 0; b < 4; ++b) {
        gjk_vec3 q[4];
        memcpy(q, pts, sizeof q);
        q[2].y = bad_values[b];
        memset(&p, 0x5A, sizeof p);
        assert_int_equal(gjk_polytope_create(&p, q, 4, NULL, NULL), GJK_STATUS_INVALID_INPUT);
        assert_memory_equal(&p, &zero, sizeof p);
    }
}

/* Owned polytopes validate in O(1) against the record made when they were built, so a
 * changed field is caught without scanning the vertices. */
static void test_owned_polytope_tampering(void **state)
{
    (void)state;
    gjk_vec3 pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    gjk_polytope p;
    assert_int_equal(gjk_polytope_create(&p, pts, 4, tet_start, tet_adj), GJK_STATUS_SEPARATED);
    gjk_shape s = gjk_make_polytope(&p);
    assert_int_equal(gjk_shape_validate(&s), GJK_STATUS_SEPARATED);

    gjk_polytope copy = p; /* a struct copy describes the same block: still valid */
    s.polytope = &copy;
    assert_int_equal(gjk_shape_validate(&s), GJK_STATUS_SEPARATED);
    copy.adj_start = NULL; /* dropping the adjacency is allowed */
    copy.adj = NULL;
    assert_int_equal(gjk_shape_validate(&s), GJK_STATUS_SEPARATED);

    const char *what[] = {"count", "padded_count", "radius", "x", "z", "adj", "adj_start"};
    for (size_t i = 0; i < sizeof what / sizeof what[0]; ++i) {
        copy = p;
        switch (i) {
        case 0:
            copy.count = 3;
            break;
        case 1:
            copy.padded_count = 16;
            break;
        case 2:
            copy.radius = 2.0;
            break;
        case 3:
            copy.x = copy.y;
            break;
        case 4:
            copy.z = tet_z;
            break;
        case 5:
            copy.adj = tet_adj;
            break;
        default:
            copy.adj_start = tet_start;
            break;
        }
        if (gjk_shape_validate(&s) != GJK_STATUS_INVALID_INPUT) {
            print_error("changed %s: still valid\n", what[i]);
            fail();
        }
    }
    /* Adjacency attached to a polytope created without one. */
    gjk_polytope q;
    assert_int_equal(gjk_polytope_create(&q, pts, 4, NULL, NULL), GJK_STATUS_SEPARATED);
    q.adj_start = (const int32_t *)(const void *)(q.z + q.padded_count);
    s.polytope = &q;
    assert_int_equal(gjk_shape_validate(&s), GJK_STATUS_INVALID_INPUT);
    q.adj_start = NULL;
    assert_int_equal(gjk_shape_validate(&s), GJK_STATUS_SEPARATED);
    gjk_polytope_destroy(&q);
    gjk_polytope_destroy(&p);
}

/* Hill climbing reads the edge vectors stored at creation only while the polytope's arrays
 * are those of its own block: a struct whose x has been pointed elsewhere (which a query,
 * checking an owned polytope's header only, accepts) climbs on the coordinates it names.
 * With the stored edges, the climb towards -x stayed at vertex 0 (distance 5, not 4). */
static void test_climb_edges_follow_the_arrays(void **state)
{
    (void)state;
    gjk_vec3 pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    gjk_polytope p;
    assert_int_equal(gjk_polytope_create(&p, pts, 4, tet_start, tet_adj), GJK_STATUS_SEPARATED);
    double *mirrored = malloc((size_t)p.padded_count * sizeof *mirrored);
    assert_non_null(mirrored);
    for (int32_t i = 0; i < p.padded_count; ++i) {
        mirrored[i] = -p.x[i]; /* vertex 1 becomes (-1, 0, 0) */
    }
    gjk_polytope moved = p;
    moved.x = mirrored;
    gjk_shape a = gjk_make_polytope(&moved);
    gjk_shape b = gjk_make_point();
    gjk_transform at = gjk_transform_make(gjk_quat_identity(), gjk_v3(-5.0, 0.0, 0.0));
    gjk_result r = gjk_distance(&a, gjk_transform_identity(), &b, at, NULL, NULL);
    assert_int_equal(r.status, GJK_STATUS_SEPARATED);
    assert_true(fabs(r.distance - 4.0) <= 1e-12);
    /* The block's own arrays: the stored edges, the same answer as a scan. */
    gjk_shape own = gjk_make_polytope(&p);
    r = gjk_distance(&own, gjk_transform_identity(), &b,
                     gjk_transform_make(gjk_quat_identity(), gjk_v3(5.0, 0.0, 0.0)), NULL, NULL);
    assert_int_equal(r.status, GJK_STATUS_SEPARATED);
    assert_true(fabs(r.distance - 4.0) <= 1e-12);
    free(mirrored);
    gjk_polytope_destroy(&p);
}

static void test_polytope_destroy_is_safe(void **state)
{
    (void)state;
    gjk_polytope_destroy(NULL);
    gjk_polytope p = {0};
    gjk_polytope_destroy(&p);
    gjk_polytope_destroy(&p);
    /* A borrowed polytope is zeroed but its arrays are not freed (they are static here,
     * so freeing them would crash under ASan). */
    gjk_polytope b = borrowed_tet();
    gjk_polytope_destroy(&b);
    assert_null(b.x);
    assert_int_equal(b.count, 0);
    assert_true(tet_x[1] == 1.0);
}

/* ------------------------------------------------------------------ support map */

static void check_support(const gjk_shape *sh, gjk_vec3 n)
{
    gjk_vec3 s = gjk_shape_support(sh, n);
    assert_true(gjk_vec3_is_finite(s));
    double scale = gjk_shape_bounding_radius(sh) + 1.0;
    /* The point belongs to the shape: within `rounding` of the core. */
    gjk_vec3 core = gjk_madd(s, -sh->margin, n);
    double round = rounding(sh) - sh->margin;
    assert_le(core_distance(sh, core), round, 1e-12 * scale);
    /* It attains the closed-form support value. */
    assert_near(gjk_dot(s, n), support_value(sh, n), 1e-12 * scale);
}

static void test_support_closed_form(void **state)
{
    (void)state;
    gjk_shape shapes[SHAPE_COUNT];
    gjk_polytope poly;
    make_shapes(shapes, &poly);
    for (int i = 0; i < SHAPE_COUNT; ++i) {
        for (int k = 0; k < 2000; ++k) {
            check_support(&shapes[i], test_direction(k));
        }
    }
    gjk_polytope_destroy(&poly);
}

/* Against brute force on sampled surfaces: the support beats (or ties) every sample,
 * and is beaten by the best sample by no more than the sampling resolution. */
static void test_support_brute_force(void **state)
{
    (void)state;
    gjk_shape shapes[SHAPE_COUNT];
    gjk_polytope poly;
    make_shapes(shapes, &poly);
    samples ball = {0};
    fibonacci(&ball, 20000, 1.0, gjk_v3(0, 0, 0));
    for (int i = 0; i < SHAPE_COUNT; ++i) {
        const gjk_shape *sh = &shapes[i];
        gjk_shape bare = *sh;
        bare.margin = 0.0;
        samples surf = surface_samples(&bare);
        double size = gjk_shape_bounding_radius(sh);
        for (int k = 0; k < 300; ++k) {
            gjk_vec3 n = test_direction(k);
            /* Support of a Minkowski sum = sum of supports; each part brute-forced. */
            double brute = max_dot(&surf, n) + sh->margin * max_dot(&ball, n);
            double got = gjk_dot(gjk_shape_support(sh, n), n);
            assert_le(brute, got, 1e-12 * (size + 1.0));
            assert_le(got, brute, 2e-3 * size); /* samples are ~0.02 rad / 1/10 height apart */
        }
        free(surf.p);
    }
    free(ball.p);
    gjk_polytope_destroy(&poly);
}

static void test_support_direction_scale(void **state)
{
    (void)state;
    gjk_shape shapes[SHAPE_COUNT];
    gjk_polytope poly;
    make_shapes(shapes, &poly);
    double scales[] = {1e-300, 1e-160, 1e-20, 1.0, 1e20, 1e160, 1e300};
    for (int i = 0; i < SHAPE_COUNT; ++i) {
        for (int k = 0; k < 200; ++k) {
            gjk_vec3 n = test_direction(k);
            gjk_vec3 ref = gjk_shape_support(&shapes[i], n);
            for (size_t j = 0; j < sizeof scales / sizeof scales[0]; ++j) {
                gjk_vec3 s = gjk_shape_support(&shapes[i], gjk_scale(n, scales[j]));
                assert_near(gjk_distance_between(s, ref), 0.0, 1e-14);
            }
        }
        /* Zero direction: some point of the shape. */
        gjk_vec3 z = gjk_shape_support(&shapes[i], gjk_v3(0, 0, 0));
        assert_true(gjk_vec3_is_finite(z));
        assert_le(core_distance(&shapes[i], z), rounding(&shapes[i]), 1e-15);
    }
    gjk_polytope_destroy(&poly);
}

/* Ties resolve deterministically: the lowest polytope index; +extent for a zero
 * component on boxes, cylinders and capsules. */
static void test_support_ties(void **state)
{
    (void)state;
    gjk_vec3 cube[8];
    for (int i = 0; i < 8; ++i) {
        cube[i] = gjk_v3((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1);
    }
    gjk_polytope p;
    assert_int_equal(gjk_polytope_create(&p, cube, 8, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape s = gjk_make_polytope(&p);
    /* +x face: vertices 1, 3, 5, 7 tie; index 1 = (1, -1, -1). */
    gjk_vec3 v = gjk_shape_support(&s, gjk_v3(1, 0, 0));
    assert_true(v.x == 1 && v.y == -1 && v.z == -1);
    /* Zero direction: vertex 0. */
    v = gjk_shape_support(&s, gjk_v3(0, 0, 0));
    assert_true(v.x == -1 && v.y == -1 && v.z == -1);
    gjk_polytope_destroy(&p);

    gjk_shape box = gjk_make_box(gjk_v3(1, 2, 3));
    v = gjk_shape_support(&box, gjk_v3(-1, 0, 0));
    assert_true(v.x == -1 && v.y == 2 && v.z == 3);
    gjk_shape cyl = gjk_make_cylinder(1, 2);
    v = gjk_shape_support(&cyl, gjk_v3(0, 0, -5));
    assert_true(v.x == 0 && v.y == 0 && v.z == -2);
    v = gjk_shape_support(&cyl, gjk_v3(0, 3, 0));
    assert_true(v.x == 0 && v.y == 1 && v.z == 2);
    gjk_shape cone = gjk_make_cone(1, 1);
    v = gjk_shape_support(&cone, gjk_v3(0, 0, 1));
    assert_true(v.x == 0 && v.y == 0 && v.z == 1);
    v = gjk_shape_support(&cone, gjk_v3(0, 0, -1));
    assert_near(v.z, -1.0, 0.0);
    v = gjk_shape_support(&cone, gjk_v3(1, 0, 0));
    assert_true(v.x == 1 && v.y == 0 && v.z == -1);
    /* Rounded shapes: the margin moves the point along the unit direction. */
    gjk_shape cap = gjk_make_capsule(0.5, 1);
    cap.margin = 0.25;
    v = gjk_shape_support(&cap, gjk_v3(0, 0, 2));
    assert_near(v.z, 1.75, 1e-15);
    v = gjk_shape_support(&cap, gjk_v3(3, 0, 0));
    assert_true(v.z == 1.0);
    assert_near(v.x, 0.75, 1e-15);
}

/* ------------------------------------------------------------------ bounding volumes */

/* Samples of the whole shape, margin included: surface points of the core pushed out by
 * the margin along assorted ball directions. */
static samples inflated_samples(const gjk_shape *sh, const samples *ball)
{
    gjk_shape bare = *sh;
    bare.margin = 0.0;
    samples surf = surface_samples(&bare);
    samples out = {0};
    for (int i = 0; i < surf.n; ++i) {
        push(&out, gjk_madd(surf.p[i], sh->margin, ball->p[(i * 7919) % ball->n]));
    }
    /* The extreme points along the local axes, exactly. */
    for (int a = 0; a < 3; ++a) {
        push(&out, gjk_shape_support(sh, axis_vec(a, 1.0)));
        push(&out, gjk_shape_support(sh, axis_vec(a, -1.0)));
    }
    free(surf.p);
    return out;
}

static void test_bounding_radius(void **state)
{
    (void)state;
    gjk_shape shapes[SHAPE_COUNT];
    gjk_polytope poly;
    make_shapes(shapes, &poly);
    samples ball = {0};
    fibonacci(&ball, 20000, 1.0, gjk_v3(0, 0, 0));
    for (int i = 0; i < SHAPE_COUNT; ++i) {
        double r = gjk_shape_bounding_radius(&shapes[i]);
        double reach = 0.0;
        for (int k = 0; k < 5000; ++k) {
            gjk_vec3 n = test_direction(k);
            gjk_vec3 s = gjk_shape_support(&shapes[i], n);
            assert_le(gjk_length(s), r, 1e-12);
            reach = fmax(reach, gjk_length(s));
        }
        samples in = inflated_samples(&shapes[i], &ball);
        for (int k = 0; k < in.n; ++k) {
            assert_le(gjk_length(in.p[k]), r, 1e-12);
        }
        free(in.p);
        /* Tight: some support point comes within sampling distance of the bound. */
        assert_le(r, reach, 1e-2 * r);
    }
    free(ball.p);
    gjk_polytope_destroy(&poly);
}

static void test_aabb_contains_and_touches(void **state)
{
    (void)state;
    gjk_shape shapes[SHAPE_COUNT];
    gjk_polytope poly;
    make_shapes(shapes, &poly);
    samples ball = {0};
    fibonacci(&ball, 20000, 1.0, gjk_v3(0, 0, 0));
    for (int i = 0; i < SHAPE_COUNT; ++i) {
        const gjk_shape *sh = &shapes[i];
        samples in = inflated_samples(sh, &ball);
        for (int trial = 0; trial < 40; ++trial) {
            gjk_transform pose = gjk_transform_make(
                trial == 0 ? gjk_quat_identity() : rnd_quat(),
                gjk_v3(rnd_range(-10, 10), rnd_range(-10, 10), rnd_range(-10, 10)));
            gjk_vec3 lo, hi;
            gjk_shape_aabb(sh, pose, &lo, &hi);
            const double tol = 1e-12; /* metres; poses within 10 m of the origin */
            /* Contains every sample. */
            for (int k = 0; k < in.n; ++k) {
                gjk_vec3 w = gjk_transform_point(pose, in.p[k]);
                for (int a = 0; a < 3; ++a) {
                    assert_le(get(lo, a), get(w, a), tol);
                    assert_le(get(w, a), get(hi, a), tol);
                }
            }
            /* Touched on each side: the support point along +-e_a lies on that face. */
            for (int a = 0; a < 3; ++a) {
                for (int sgn = -1; sgn <= 1; sgn += 2) {
                    gjk_vec3 local = gjk_quat_inv_rotate(pose.q, axis_vec(a, sgn));
                    gjk_vec3 w = gjk_transform_point(pose, gjk_shape_support(sh, local));
                    double side = sgn > 0 ? get(hi, a) : get(lo, a);
                    assert_near(get(w, a), side, tol);
                }
            }
        }
        free(in.p);
    }
    free(ball.p);
    gjk_polytope_destroy(&poly);
}

/* A quaternion a little off unit norm (within tolerance) gives the same box. */
static void test_aabb_normalises_rotation(void **state)
{
    (void)state;
    gjk_shape box = gjk_make_box(gjk_v3(1, 2, 3));
    gjk_quat q = gjk_quat_from_axis_angle(gjk_normalize(gjk_v3(1, 1, 0)), 0.6);
    gjk_quat q_off =
        gjk_quat_make(q.w * (1 + 5e-7), q.x * (1 + 5e-7), q.y * (1 + 5e-7), q.z * (1 + 5e-7));
    gjk_vec3 lo1, hi1, lo2, hi2;
    gjk_shape_aabb(&box, gjk_transform_make(q, gjk_v3(1, 2, 3)), &lo1, &hi1);
    gjk_shape_aabb(&box, gjk_transform_make(q_off, gjk_v3(1, 2, 3)), &lo2, &hi2);
    assert_near(gjk_distance_between(lo1, lo2), 0.0, 1e-14);
    assert_near(gjk_distance_between(hi1, hi2), 0.0, 1e-14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constructors),
        cmocka_unit_test(test_validation_table),
        cmocka_unit_test(test_polytope_create_layout),
        cmocka_unit_test(test_polytope_create_adjacency),
        cmocka_unit_test(test_polytope_create_rejects),
        cmocka_unit_test(test_owned_polytope_tampering),
        cmocka_unit_test(test_polytope_destroy_is_safe),
        cmocka_unit_test(test_support_closed_form),
        cmocka_unit_test(test_support_brute_force),
        cmocka_unit_test(test_support_direction_scale),
        cmocka_unit_test(test_climb_edges_follow_the_arrays),
        cmocka_unit_test(test_support_ties),
        cmocka_unit_test(test_bounding_radius),
        cmocka_unit_test(test_aabb_contains_and_touches),
        cmocka_unit_test(test_aabb_normalises_rotation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
