/* test_ellipsoid.c — the ellipsoid shape (three radii along the local axes, plus a margin)
 * against oracles that share no code with core/src, all in long double:
 *  - point–ellipsoid distance by a 1-D root solve of the Lagrange condition (Eberly's
 *    method: the closest point is x_i = e_i^2 p_i / (t + e_i^2) for the root t > 0 of
 *    sum (e_i p_i / (t + e_i^2))^2 = 1, bracketed and bisected), for a point and for tiny
 *    spheres (distance minus the radius) against the ellipsoid;
 *  - half-spaces (the face of a large box): the support value h(n) = n.c + |diag(r) R^T n|
 *    is the exact distance to a plane, and the exact depth below it;
 *  - ellipsoid–ellipsoid separation as max over unit n of n.(c_B - c_A) - h_A(n) - h_B(-n)
 *    (a concave function on the unit ball), by dense sampling and projected gradient ascent
 *    with a certificate: the value at n is a lower bound, |s_B(-n) - s_A(n)| an upper bound,
 *    and the oracle is used only once they agree to 1e-13 of the size;
 *  - the penetration depth of two equal spheroids on a common axis in closed form;
 * plus equal radii against the sphere, invariance under rigid motion and swapping, very flat
 * and elongated ellipsoids, huge and tiny scales, the reference support map, bounding volumes
 * and validation. Seeds are fixed; the largest errors seen are printed. */
#include "test_util.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ long-double oracle */

typedef struct lv {
    long double x, y, z;
} lv;

static lv lv_of(gjk_vec3 v)
{
    lv r = {v.x, v.y, v.z};
    return r;
}
static lv lv_make(long double x, long double y, long double z)
{
    lv r = {x, y, z};
    return r;
}
static lv lv_add(lv a, lv b)
{
    return lv_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
static lv lv_sub(lv a, lv b)
{
    return lv_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
static lv lv_scale(lv a, long double s)
{
    return lv_make(a.x * s, a.y * s, a.z * s);
}
static long double lv_dot(lv a, lv b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static long double lv_len(lv a)
{
    return sqrtl(lv_dot(a, a));
}
static lv lv_unit(lv a)
{
    return lv_scale(a, 1.0L / lv_len(a));
}
static gjk_vec3 vec_of(lv a)
{
    return gjk_v3((double)a.x, (double)a.y, (double)a.z);
}

/* An ellipsoid placed in the world: centre, rotation (columns: the local axes), radii. */
typedef struct oell {
    lv c;
    long double r[3][3];
    long double e[3];
    long double margin;
} oell;

static oell oell_make(gjk_vec3 radii, double margin, gjk_transform pose)
{
    oell o;
    long double w = pose.q.w, x = pose.q.x, y = pose.q.y, z = pose.q.z;
    long double n = sqrtl(w * w + x * x + y * y + z * z);
    w /= n;
    x /= n;
    y /= n;
    z /= n;
    long double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                           {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                           {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(o.r, m, sizeof m);
    o.c = lv_of(pose.p);
    o.e[0] = radii.x;
    o.e[1] = radii.y;
    o.e[2] = radii.z;
    o.margin = margin;
    return o;
}

static lv to_local(const oell *o, lv v) /* R^T v */
{
    return lv_make(o->r[0][0] * v.x + o->r[1][0] * v.y + o->r[2][0] * v.z,
                   o->r[0][1] * v.x + o->r[1][1] * v.y + o->r[2][1] * v.z,
                   o->r[0][2] * v.x + o->r[1][2] * v.y + o->r[2][2] * v.z);
}
static lv to_world(const oell *o, lv v) /* R v */
{
    return lv_make(o->r[0][0] * v.x + o->r[0][1] * v.y + o->r[0][2] * v.z,
                   o->r[1][0] * v.x + o->r[1][1] * v.y + o->r[1][2] * v.z,
                   o->r[2][0] * v.x + o->r[2][1] * v.y + o->r[2][2] * v.z);
}

/* Support value of the core along unit world n, without the centre: |diag(e) R^T n|. */
static long double oell_h0(const oell *o, lv n)
{
    lv u = to_local(o, n);
    return lv_len(lv_make(o->e[0] * u.x, o->e[1] * u.y, o->e[2] * u.z));
}

/* Support value along unit world n, margin included. */
static long double oell_h(const oell *o, lv n)
{
    return lv_dot(n, o->c) + oell_h0(o, n) + o->margin;
}

/* Support point along unit world n, margin included: c + R diag(e)^2 u / |diag(e) u| + m n. */
static lv oell_s(const oell *o, lv n)
{
    lv u = to_local(o, n);
    lv d = lv_make(o->e[0] * u.x, o->e[1] * u.y, o->e[2] * u.z);
    long double k = 1.0L / lv_len(d);
    lv s = lv_make(o->e[0] * d.x * k, o->e[1] * d.y * k, o->e[2] * d.z * k);
    return lv_add(lv_add(o->c, to_world(o, s)), lv_scale(n, o->margin));
}

/* Distance from world point p to the ellipsoid (margin included), p outside the core: Eberly's
 * root of F(t) = sum (e_i q_i / (t + e_i^2))^2 - 1 (q = local p), which decreases on t >= 0 from
 * F(0) > 0 and is <= 0 at t = e_max |q|; bisected to the last bit. The gap is then
 * t |(q_i / (t + e_i^2))| without cancellation. */
static long double oell_point_distance(const oell *o, lv p)
{
    lv q = to_local(o, lv_sub(p, o->c));
    long double a[3] = {fabsl(q.x), fabsl(q.y), fabsl(q.z)};
    long double emax = fmaxl(o->e[0], fmaxl(o->e[1], o->e[2]));
    long double lo = 0.0L, hi = emax * lv_len(q);
    for (int it = 0; it < 20000; ++it) {
        long double t = 0.5L * (lo + hi);
        if (!(t > lo && t < hi)) {
            break;
        }
        long double f = -1.0L;
        for (int i = 0; i < 3; ++i) {
            long double v = o->e[i] * a[i] / (t + o->e[i] * o->e[i]);
            f += v * v;
        }
        if (f > 0.0L) {
            lo = t;
        } else {
            hi = t;
        }
    }
    long double t = 0.5L * (lo + hi), s = 0.0L;
    for (int i = 0; i < 3; ++i) {
        long double v = a[i] / (t + o->e[i] * o->e[i]);
        s += v * v;
    }
    return t * sqrtl(s) - o->margin;
}

/* Depth of world point p inside the core (margin excluded): the same Lagrange condition, whose
 * root for an interior point lies in (-e_min^2, 0) (Eberly), where F runs from +inf to F(0) < 0;
 * the depth is |t| |(q_i / (t + e_i^2))|. */
static long double oell_point_depth(const oell *o, lv p)
{
    lv q = to_local(o, lv_sub(p, o->c));
    long double a[3] = {fabsl(q.x), fabsl(q.y), fabsl(q.z)};
    long double emin = fminl(o->e[0], fminl(o->e[1], o->e[2]));
    long double lo = -emin * emin, hi = 0.0L;
    for (int it = 0; it < 20000; ++it) {
        long double t = 0.5L * (lo + hi);
        if (!(t > lo && t < hi)) {
            break;
        }
        long double f = -1.0L;
        for (int i = 0; i < 3; ++i) {
            long double v = o->e[i] * a[i] / (t + o->e[i] * o->e[i]);
            f += v * v;
        }
        if (f > 0.0L) {
            lo = t;
        } else {
            hi = t;
        }
    }
    long double t = 0.5L * (lo + hi), s = 0.0L;
    for (int i = 0; i < 3; ++i) {
        long double v = a[i] / (t + o->e[i] * o->e[i]);
        s += v * v;
    }
    return -t * sqrtl(s);
}

/* g(n) = n.(c_B - c_A) - h_A(n) - h_B(-n) (centres excluded from h), a lower bound on the
 * distance for every unit n; its maximum over the sphere is the distance when positive. */
static long double sep_value(const oell *a, const oell *b, lv n)
{
    return lv_dot(n, lv_sub(b->c, a->c)) - oell_h0(a, n) - oell_h0(b, lv_scale(n, -1.0L)) -
           a->margin - b->margin;
}

typedef struct sep_answer {
    long double lower, upper; /* certified bounds on the distance */
    lv normal;                /* A towards B */
} sep_answer;

/* s_B(-n) - s_A(n): the gradient of g (margins included: their radial parts drop out). */
static lv sep_gradient(const oell *a, const oell *b, lv n)
{
    return lv_sub(oell_s(b, lv_scale(n, -1.0L)), oell_s(a, n));
}

/* The derivatives of g(unit(n + al e1 + be e2)) with respect to (al, be). */
static void sep_grad2(const oell *a, const oell *b, lv n, lv e1, lv e2, long double al,
                      long double be, long double out[2])
{
    lv v = lv_add(n, lv_add(lv_scale(e1, al), lv_scale(e2, be)));
    long double len = lv_len(v);
    lv m = lv_scale(v, 1.0L / len);
    lv grad = sep_gradient(a, b, m);
    long double gm = lv_dot(grad, m);
    out[0] = (lv_dot(grad, e1) - lv_dot(e1, m) * gm) / len;
    out[1] = (lv_dot(grad, e2) - lv_dot(e2, m) * gm) / len;
}

/* The separation of two disjoint ellipsoids: the best of 4000 Fibonacci directions, then a
 * damped Newton ascent on the sphere in a tangent chart (the analytic gradient s_B(-n) -
 * s_A(n), its Jacobian by central differences), every step checked to increase g. g is
 * concave on the unit ball, so its superlevel sets on the sphere are connected and the ascent
 * finds the global maximum; the answer carries its own certificate (lower, upper). */
static sep_answer ellipsoid_separation(const oell *a, const oell *b)
{
    lv best = lv_make(1, 0, 0);
    long double best_g = -HUGE_VALL;
    const int samples = 4000;
    for (int i = 0; i < samples; ++i) {
        long double z = 1.0L - (2.0L * i + 1.0L) / samples;
        long double rho = sqrtl(1.0L - z * z), phi = 2.399963229728653L * i;
        lv n = lv_make(rho * cosl(phi), rho * sinl(phi), z);
        long double g = sep_value(a, b, n);
        if (g > best_g) {
            best_g = g;
            best = n;
        }
    }
    lv n = best;
    long double g = best_g;
    long double size = fmaxl(a->e[0], fmaxl(a->e[1], a->e[2])) +
                       fmaxl(b->e[0], fmaxl(b->e[1], b->e[2])) + a->margin + b->margin;
    sep_answer out = {g, HUGE_VALL, n};
    for (int it = 0; it < 500; ++it) {
        out.upper = fminl(out.upper, lv_len(sep_gradient(a, b, n)));
        if (out.upper - g <= 1e-16L * size) {
            break;
        }
        /* A tangent basis at n. */
        lv t = fabsl(n.x) < 0.6L ? lv_make(1, 0, 0) : lv_make(0, 1, 0);
        lv e1 = lv_unit(lv_sub(t, lv_scale(n, lv_dot(t, n))));
        lv e2 = lv_make(n.y * e1.z - n.z * e1.y, n.z * e1.x - n.x * e1.z, n.x * e1.y - n.y * e1.x);
        long double g0[2], gp[2], gq[2], hes[2][2];
        sep_grad2(a, b, n, e1, e2, 0, 0, g0);
        const long double h = 1e-7L;
        for (int j = 0; j < 2; ++j) {
            sep_grad2(a, b, n, e1, e2, j == 0 ? h : 0, j == 1 ? h : 0, gp);
            sep_grad2(a, b, n, e1, e2, j == 0 ? -h : 0, j == 1 ? -h : 0, gq);
            hes[0][j] = (gp[0] - gq[0]) / (2 * h);
            hes[1][j] = (gp[1] - gq[1]) / (2 * h);
        }
        long double hs = 0.5L * (hes[0][1] + hes[1][0]);
        long double det = hes[0][0] * hes[1][1] - hs * hs;
        long double d0, d1;
        if (hes[0][0] < 0 && det > 0) { /* Newton: H d = -grad */
            d0 = -(hes[1][1] * g0[0] - hs * g0[1]) / det;
            d1 = -(-hs * g0[0] + hes[0][0] * g0[1]) / det;
        } else { /* not concave here in the chart: a gradient step */
            long double gl = sqrtl(g0[0] * g0[0] + g0[1] * g0[1]);
            d0 = 0.1L * g0[0] / gl;
            d1 = 0.1L * g0[1] / gl;
        }
        bool moved = false;
        for (int k = 0; k < 80 && !moved; ++k) {
            lv m = lv_unit(lv_add(n, lv_add(lv_scale(e1, d0), lv_scale(e2, d1))));
            long double gm = sep_value(a, b, m);
            if (gm > g) {
                n = m;
                g = gm;
                moved = true;
            }
            d0 *= 0.5L;
            d1 *= 0.5L;
        }
        if (!moved) {
            break;
        }
    }
    out.upper = fminl(out.upper, lv_len(sep_gradient(a, b, n)));
    out.lower = g;
    out.normal = n;
    return out;
}

/* ------------------------------------------------------------------ helpers */

static gjk_transform pose_of(gjk_vec3 p, gjk_quat q)
{
    return gjk_transform_make(q, p);
}

static gjk_vec3 rnd_radii(double size, double ratio)
{
    return gjk_v3(size * rnd_range(ratio, 1.0), size * rnd_range(ratio, 1.0),
                  size * rnd_range(ratio, 1.0));
}

static double max_radius(gjk_vec3 r)
{
    return fmax(r.x, fmax(r.y, r.z));
}

/* Largest errors seen (relative to the size unless the label says radians), printed at the
 * end of each test. */
typedef struct worst {
    const char *what;
    double err;
} worst;

static void note(worst *w, double err)
{
    if (err > w->err) {
        w->err = err;
    }
}

static void report(const worst *w)
{
    print_message("  %-62s max %.3g\n", w->what, w->err);
}

/* Signed distance with a touching band far below every gap here: the verdict's band is
 * absolute (1e-9 m by default), and these tests measure the geometry at every scale. */
static gjk_result sd(const gjk_shape *a, gjk_transform pa, const gjk_shape *b, gjk_transform pb)
{
    gjk_options o = gjk_default_options();
    o.touch_tolerance = 1e-300;
    return gjk_signed_distance(a, pa, b, pb, NULL, &o);
}

/* ------------------------------------------------------------------ tests: shape */

static void constructor_and_validation(void **state)
{
    (void)state;
    gjk_shape e = gjk_make_ellipsoid(gjk_v3(0.1, 0.2, 0.3));
    assert_int_equal(e.kind, GJK_SHAPE_ELLIPSOID);
    assert_true(e.radii.x == 0.1 && e.radii.y == 0.2 && e.radii.z == 0.3);
    assert_true(e.margin == 0.0);
    assert_status(gjk_shape_validate(&e), GJK_STATUS_SEPARATED);
    e.margin = 0.05;
    assert_status(gjk_shape_validate(&e), GJK_STATUS_SEPARATED);
    const double bad[] = {0.0, -1.0, (double)NAN, (double)INFINITY, 1.0001 * GJK_MAX_LENGTH};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        for (int axis = 0; axis < 3; ++axis) {
            gjk_vec3 r = gjk_v3(1, 1, 1);
            if (axis == 0)
                r.x = bad[i];
            else if (axis == 1)
                r.y = bad[i];
            else
                r.z = bad[i];
            gjk_shape s = gjk_make_ellipsoid(r);
            assert_status(gjk_shape_validate(&s), GJK_STATUS_INVALID_INPUT);
            /* A query refuses it as well. */
            gjk_shape p = gjk_make_point();
            gjk_result res =
                sd(&s, gjk_transform_identity(), &p, pose_of(gjk_v3(5, 0, 0), gjk_quat_identity()));
            assert_status(res.status, GJK_STATUS_INVALID_INPUT);
        }
    }
    gjk_shape extreme = gjk_make_ellipsoid(gjk_v3(GJK_MAX_LENGTH, 1e-300, 1.0));
    assert_status(gjk_shape_validate(&extreme), GJK_STATUS_SEPARATED);
    gjk_shape neg_margin = gjk_make_ellipsoid(gjk_v3(1, 1, 1));
    neg_margin.margin = -1e-9;
    assert_status(gjk_shape_validate(&neg_margin), GJK_STATUS_INVALID_INPUT);
}

/* The reference support map: on the surface, with outer normal n, support value |D n| + m;
 * finite for extreme radii and directions; the centre for a zero direction. */
static void support_map(void **state)
{
    (void)state;
    test_seed(11);
    worst w = {"support point: surface, normal, value", 0.0};
    const double scales[] = {1e-9, 1e-3, 1.0, 1e3, 1e9};
    for (int k = 0; k < 2000; ++k) {
        double size = scales[k % 5];
        double ratio = k % 3 == 0 ? 1e-6 : 0.05;
        gjk_vec3 r = rnd_radii(size, ratio);
        gjk_shape e = gjk_make_ellipsoid(r);
        e.margin = k % 4 == 0 ? 0.1 * size : 0.0;
        gjk_vec3 n = rnd_unit();
        double dscale = k % 7 == 0 ? 1e-300 : (k % 7 == 1 ? 1e300 : 1.0);
        gjk_vec3 s = gjk_shape_support(&e, gjk_scale(n, dscale));
        assert_true(gjk_vec3_is_finite(s));
        oell o = oell_make(r, e.margin, gjk_transform_identity());
        lv ln = lv_of(n);
        lv ref = oell_s(&o, ln);
        double scale = max_radius(r) + e.margin;
        note(&w, (double)lv_len(lv_sub(lv_of(s), ref)) / scale);
        note(&w, fabs((double)(lv_dot(lv_of(s), ln) - oell_h(&o, ln))) / scale);
        assert_true(gjk_length(s) <= gjk_shape_bounding_radius(&e) * (1.0 + 1e-15));
    }
    report(&w);
    assert_true(w.err <= 1e-15);
    gjk_shape e = gjk_make_ellipsoid(gjk_v3(1, 2, 3));
    gjk_vec3 z = gjk_shape_support(&e, gjk_v3(0, 0, 0));
    assert_true(z.x == 0.0 && z.y == 0.0 && z.z == 0.0);
    /* Along an axis: the end of that semi-axis, exactly. */
    gjk_vec3 a = gjk_shape_support(&e, gjk_v3(0, 0, -4));
    assert_true(a.x == 0.0 && a.y == 0.0 && a.z == -3.0);
    /* Extreme ratios stay finite and on the surface: along the short axis its end, and
     * slightly off it already the rim (the support slides out at a rate a^2 / c). */
    gjk_shape flat = gjk_make_ellipsoid(gjk_v3(GJK_MAX_LENGTH, GJK_MAX_LENGTH, 1e-300));
    gjk_vec3 f = gjk_shape_support(&flat, gjk_v3(0, 0, 1));
    assert_true(f.x == 0.0 && f.y == 0.0 && f.z == 1e-300);
    f = gjk_shape_support(&flat, gjk_v3(1e-200, 0, 1));
    assert_true(gjk_vec3_is_finite(f));
    assert_near(f.x, GJK_MAX_LENGTH, 1e-3);
}

/* Bounding radius and the world AABB: the AABB's faces are the support values along the world
 * axes (exact), and every support point lies inside both. */
static void bounding_volumes(void **state)
{
    (void)state;
    test_seed(12);
    for (int k = 0; k < 500; ++k) {
        double size = k % 2 ? 1e-6 : 10.0;
        gjk_vec3 r = rnd_radii(size, k % 5 == 0 ? 1e-6 : 0.1);
        gjk_shape e = gjk_make_ellipsoid(r);
        e.margin = k % 3 == 0 ? 0.2 * size : 0.0;
        gjk_transform pose = pose_of(gjk_scale(rnd_unit(), 3 * size), rnd_quat());
        gjk_vec3 lo, hi;
        gjk_shape_aabb(&e, pose, &lo, &hi);
        oell o = oell_make(r, e.margin, pose);
        double tol = 4e-16 * (size + gjk_length(pose.p));
        const lv axes[3] = {lv_make(1, 0, 0), lv_make(0, 1, 0), lv_make(0, 0, 1)};
        const double his[3] = {hi.x, hi.y, hi.z}, los[3] = {lo.x, lo.y, lo.z};
        for (int i = 0; i < 3; ++i) {
            assert_near(his[i], (double)oell_h(&o, axes[i]), tol);
            assert_near(los[i], (double)-oell_h(&o, lv_scale(axes[i], -1)), tol);
        }
        assert_near(gjk_shape_bounding_radius(&e), max_radius(r) + e.margin, 0.0);
        for (int j = 0; j < 10; ++j) {
            gjk_vec3 s = gjk_shape_support(&e, rnd_unit());
            assert_le(gjk_length(s), gjk_shape_bounding_radius(&e), 1e-15 * size);
            gjk_vec3 w = gjk_transform_point(pose, s);
            assert_true(w.x >= lo.x - tol && w.y >= lo.y - tol && w.z >= lo.z - tol);
            assert_true(w.x <= hi.x + tol && w.y <= hi.y + tol && w.z <= hi.z + tol);
        }
    }
}

/* ------------------------------------------------------------------ tests: distances */

/* A point and tiny spheres outside ellipsoids of every proportion and scale, against
 * Eberly's root solve. */
static void point_and_tiny_sphere(void **state)
{
    (void)state;
    test_seed(21);
    worst w = {"point / tiny sphere vs ellipsoid (Eberly)", 0.0};
    worst wf = {"  the same, flat and elongated (ratio 1e-6)", 0.0};
    worst ww = {"  witness on A: |level - 1| of the core's equation", 0.0};
    const double scales[] = {1e-6, 1e-3, 1.0, 1e3, 1e6};
    int runs = 0;
    for (int k = 0; k < 3000; ++k) {
        double size = scales[k % 5];
        bool degenerate = k % 4 == 0;
        gjk_vec3 r = rnd_radii(size, 0.05);
        if (degenerate) {
            /* very flat (one radius 1e-6 of the others) or elongated (one 1e6 of the others) */
            double tiny = 1e-6 * size;
            if (k % 8 == 0)
                r = gjk_v3(size, rnd_range(0.3, 1) * size, tiny);
            else
                r = gjk_v3(tiny, rnd_range(1, 3) * tiny, size);
        }
        gjk_shape e = gjk_make_ellipsoid(r);
        e.margin = k % 3 == 0 ? 0.01 * size : 0.0;
        gjk_transform pe = pose_of(gjk_scale(rnd_unit(), size * rnd_range(0, 2)), rnd_quat());
        oell o = oell_make(r, 0.0, pe);
        /* A point at a random gap outside the margin (and the tiny sphere's radius), from the
         * surface along its normal. */
        gjk_vec3 n = rnd_unit();
        lv s = oell_s(&o, lv_of(n));
        double gap = size * pow(10.0, rnd_range(-4, 0.5));
        double rho = k % 2 ? 1e-3 * gap : 0.0;
        double out = gap + e.margin + rho;
        gjk_vec3 p =
            gjk_v3((double)(s.x + out * n.x), (double)(s.y + out * n.y), (double)(s.z + out * n.z));
        gjk_shape q = rho > 0 ? gjk_make_sphere(rho) : gjk_make_point();
        long double ref = oell_point_distance(&o, lv_of(p)) - e.margin - rho;
        gjk_result res = sd(&e, pe, &q, pose_of(p, rnd_quat()));
        assert_status(res.status, GJK_STATUS_SEPARATED);
        double scale = max_radius(r) + (double)ref;
        double err = fabs(res.distance - (double)ref) / scale;
        note(degenerate ? &wf : &w, err);
        /* The certified bounds hold the true distance. */
        assert_le(res.lower_bound, (double)ref, 1e-14 * scale);
        assert_le((double)ref, res.upper_bound, 1e-14 * scale);
        /* The witnesses: on the ellipsoid's surface (margin off), |pb - pa| = distance. */
        gjk_vec3 core_a = gjk_madd(res.point_a, -e.margin, res.normal);
        lv ql = to_local(&o, lv_sub(lv_of(core_a), o.c));
        double f = (double)sqrtl(ql.x * ql.x / (o.e[0] * o.e[0]) + ql.y * ql.y / (o.e[1] * o.e[1]) +
                                 ql.z * ql.z / (o.e[2] * o.e[2]));
        note(&ww, fabs(f - 1.0));
        assert_near(gjk_distance_between(res.point_a, res.point_b), res.distance, 1e-12 * scale);
        ++runs;
    }
    report(&w);
    report(&wf);
    report(&ww);
    assert_int_equal(runs, 3000);
    assert_true(w.err <= 1e-11);
    assert_true(wf.err <= 1e-11);
    assert_true(ww.err <= 1e-9);
}

/* A point and tiny spheres inside ellipsoids: the penetration depth against the interior root of
 * the same Lagrange condition. Near-degenerate optima are left to open_prolate_spheroids_ring_depth
 * (EPA ends at CAPACITY_LIMIT there, up to 5e-8 off): the two shortest radii differ by 20% at
 * least (else the optimum is nearly a ring), and the point is at least 0.3 of the way out and a
 * tenth of the shortest radius off the plane across it (else the two ends of the shortest axis
 * are nearly equally deep). */
static void point_inside_depth(void **state)
{
    (void)state;
    test_seed(28);
    worst w = {"point / tiny sphere inside an ellipsoid, depth (Eberly)", 0.0};
    const double scales[] = {1e-3, 1.0, 1e3};
    for (int k = 0; k < 1500; ++k) {
        double size = scales[k % 3];
        gjk_vec3 r;
        for (;;) {
            r = rnd_radii(size, 0.1);
            double lo = fmin(r.x, fmin(r.y, r.z)), hi = max_radius(r);
            double mid = r.x + r.y + r.z - lo - hi;
            if (mid >= 1.2 * lo) {
                break;
            }
        }
        gjk_shape e = gjk_make_ellipsoid(r);
        e.margin = k % 4 == 0 ? 0.02 * size : 0.0;
        gjk_transform pe = pose_of(gjk_scale(rnd_unit(), size * rnd_range(0, 2)), rnd_quat());
        oell o = oell_make(r, 0.0, pe);
        /* A point at a random fraction of the way from the centre to the surface, off the
         * plane of symmetry across the shortest axis by a tenth of that radius. */
        int shortest = r.x <= r.y && r.x <= r.z ? 0 : (r.y <= r.z ? 1 : 2);
        gjk_vec3 p = pe.p;
        int tries = 0;
        for (; tries < 100; ++tries) {
            lv s = oell_s(&o, lv_of(rnd_unit()));
            double f = rnd_range(0.3, 0.95);
            p = vec_of(lv_add(o.c, lv_scale(lv_sub(s, o.c), f)));
            lv ql = to_local(&o, lv_sub(lv_of(p), o.c));
            long double qs = shortest == 0 ? ql.x : (shortest == 1 ? ql.y : ql.z);
            if (fabsl(qs) >= 0.1L * o.e[shortest]) {
                break;
            }
        }
        assert_true(tries < 100);
        double rho = k % 2 ? 1e-3 * size : 0.0;
        gjk_shape q = rho > 0 ? gjk_make_sphere(rho) : gjk_make_point();
        long double ref = oell_point_depth(&o, lv_of(p)) + e.margin + rho;
        gjk_result res = sd(&e, pe, &q, pose_of(p, rnd_quat()));
        assert_status(res.status, GJK_STATUS_OVERLAPPING);
        note(&w, fabs(-res.distance - (double)ref) / max_radius(r));
    }
    report(&w);
    assert_true(w.err <= 1e-9);
}

/* The ellipsoid above and inside the top face of a large box (the face z = 0): the support
 * value along -z gives the exact signed distance, separated and penetrating. */
static void half_space(void **state)
{
    (void)state;
    test_seed(22);
    worst ws = {"ellipsoid vs box face, separated (support value)", 0.0};
    worst wp = {"ellipsoid vs box face, penetrating (support value)", 0.0};
    worst wn = {"  normal error, penetrating (rad)", 0.0};
    const double scales[] = {1e-6, 1e-3, 1.0, 1e3, 1e6};
    for (int k = 0; k < 2000; ++k) {
        double size = scales[k % 5];
        gjk_vec3 r = k % 4 == 0 ? gjk_v3(size, 0.5 * size, 1e-6 * size) : rnd_radii(size, 0.05);
        gjk_shape e = gjk_make_ellipsoid(r);
        e.margin = k % 3 == 0 ? 0.05 * size : 0.0;
        double half = 100.0 * size;
        gjk_shape box = gjk_make_box(gjk_v3(half, half, half));
        gjk_transform pb = pose_of(gjk_v3(0, 0, -half), gjk_quat_identity());
        gjk_quat q = rnd_quat();
        oell o = oell_make(r, e.margin, pose_of(gjk_v3(0, 0, 0), q));
        double low = (double)oell_h(&o, lv_make(0, 0, -1)); /* lowest point at z = -low */
        bool pen = k % 2 == 1;
        double target = pen ? -size * rnd_range(1e-4, 0.5) * fmin(1.0, low / size)
                            : size * pow(10.0, rnd_range(-5, 0.5));
        gjk_vec3 c = gjk_v3(size * rnd_range(-1, 1), size * rnd_range(-1, 1), low + target);
        gjk_transform pe = pose_of(c, q);
        oell oc = oell_make(r, e.margin, pe);
        long double ref =
            lv_dot(lv_make(0, 0, 1), oc.c) - oell_h0(&oc, lv_make(0, 0, -1)) - e.margin;
        double scale = max_radius(r) + e.margin;
        gjk_result res = sd(&e, pe, &box, pb);
        double err = fabs(res.distance - (double)ref) / scale;
        if (pen) {
            assert_status(res.status, GJK_STATUS_OVERLAPPING);
            note(&wp, err);
            note(&wn, acos(fmin(1.0, -res.normal.z)));
        } else {
            assert_status(res.status, GJK_STATUS_SEPARATED);
            note(&ws, err);
            assert_near(res.normal.z, -1.0, 1e-9);
        }
    }
    report(&ws);
    report(&wp);
    report(&wn);
    assert_true(ws.err <= 1e-12);
    assert_true(wp.err <= 1e-9);
}

/* Equal radii are a ball: every answer matches the sphere's (point core) at the same poses,
 * against boxes, cylinders, cones, capsules, hulls and ellipsoids, separated and overlapping. */
static void equal_radii_match_sphere(void **state)
{
    (void)state;
    test_seed(23);
    worst ws = {"equal radii vs sphere, separated", 0.0};
    worst wp = {"equal radii vs sphere, penetrating", 0.0};
    gjk_vec3 cube[8];
    for (int i = 0; i < 8; ++i) {
        cube[i] = gjk_v3(i & 1 ? 0.4 : -0.3, i & 2 ? 0.5 : -0.2, i & 4 ? 0.3 : -0.6);
    }
    gjk_polytope poly;
    assert_status(gjk_polytope_create(&poly, cube, 8, NULL, NULL), GJK_STATUS_SEPARATED);
    gjk_shape others[6] = {gjk_make_box(gjk_v3(0.4, 0.3, 0.5)),
                           gjk_make_cylinder(0.3, 0.5),
                           gjk_make_cone(0.4, 0.3),
                           gjk_make_capsule(0.2, 0.4),
                           gjk_make_polytope(&poly),
                           gjk_make_ellipsoid(gjk_v3(0.5, 0.2, 0.3))};
    for (int k = 0; k < 1200; ++k) {
        double rad = rnd_range(0.1, 0.6);
        gjk_shape ball = gjk_make_sphere(rad);
        gjk_shape ell = gjk_make_ellipsoid(gjk_v3(rad, rad, rad));
        ball.margin = ell.margin = k % 3 == 0 ? 0.02 : 0.0;
        const gjk_shape *b = &others[k % 6];
        gjk_transform pa = pose_of(gjk_scale(rnd_unit(), rnd_range(0, 0.3)), rnd_quat());
        gjk_transform pb = pose_of(gjk_scale(rnd_unit(), rnd_range(0.2, 1.8)), rnd_quat());
        gjk_result rs = sd(&ball, pa, b, pb), re = sd(&ell, pa, b, pb);
        double diff = fabs(rs.distance - re.distance);
        if (rs.status == GJK_STATUS_SEPARATED) {
            /* Both answers lie within their certified bounds, which are at most the
             * relative gap (1e-12 of the distance) apart, or a stall's wider gap (the
             * sphere against a curved ellipsoid stops up to 3e-11 apart). */
            assert_status(re.status, GJK_STATUS_SEPARATED);
            note(&ws, diff);
            assert_le(re.lower_bound, rs.upper_bound, 1e-15);
            assert_le(rs.lower_bound, re.upper_bound, 1e-15);
            assert_le(diff, (rs.upper_bound - rs.lower_bound) + (re.upper_bound - re.lower_bound),
                      2e-12 * rs.distance + 1e-15);
            assert_vec_near(re.point_b, rs.point_b, 1e-5);
            assert_vec_near(re.normal, rs.normal, 1e-5);
        } else {
            assert_status(rs.status, GJK_STATUS_OVERLAPPING);
            assert_status(re.status, GJK_STATUS_OVERLAPPING);
            note(&wp, diff);
            assert_vec_near(re.normal, rs.normal, 1e-5);
        }
    }
    report(&ws);
    report(&wp);
    assert_true(wp.err <= 1e-9);
    gjk_polytope_destroy(&poly);
}

/* Ellipsoid against ellipsoid, separated, against the certified support-function oracle. */
static void ellipsoid_pairs(void **state)
{
    (void)state;
    test_seed(24);
    worst w = {"ellipsoid vs ellipsoid, separated (oracle)", 0.0};
    worst wf = {"  the same, flat / elongated / far scales", 0.0};
    worst wn = {"  normal error, separated (rad)", 0.0};
    const double scales[] = {1e-6, 1.0, 1e6};
    for (int k = 0; k < 300; ++k) {
        double size = k % 5 == 4 ? scales[k % 3] : 1.0;
        bool degenerate = k % 5 >= 3;
        double ratio = degenerate ? 1e-6 : 0.1;
        gjk_vec3 ra = rnd_radii(size, ratio), rb = rnd_radii(size, ratio);
        if (degenerate && k % 2 == 0) {
            ra = gjk_v3(size, 0.7 * size, 1e-6 * size);  /* flat */
            rb = gjk_v3(1e-6 * size, 2e-6 * size, size); /* elongated */
        }
        gjk_shape a = gjk_make_ellipsoid(ra), b = gjk_make_ellipsoid(rb);
        a.margin = k % 4 == 0 ? 0.03 * size : 0.0;
        gjk_transform pa = pose_of(gjk_scale(rnd_unit(), size), rnd_quat());
        gjk_quat qb = rnd_quat();
        /* B along a random direction from A, at a random gap beyond the support values. */
        oell oa = oell_make(ra, a.margin, pa);
        oell ob0 = oell_make(rb, 0.0, pose_of(gjk_v3(0, 0, 0), qb));
        gjk_vec3 dir = rnd_unit();
        lv ld = lv_of(dir);
        long double reach = oell_h(&oa, ld) - lv_dot(ld, oa.c) + oell_h0(&ob0, lv_scale(ld, -1));
        double gap = size * pow(10.0, rnd_range(-4, 0));
        gjk_vec3 cb = gjk_add(pa.p, gjk_scale(dir, (double)reach + gap));
        gjk_transform pb = pose_of(cb, qb);
        oell ob = oell_make(rb, 0.0, pb);
        sep_answer ref = ellipsoid_separation(&oa, &ob);
        double scale = max_radius(ra) + max_radius(rb) + a.margin;
        /* The oracle is certified before it is used. */
        assert_true(ref.lower > 0.0L);
        assert_le((double)(ref.upper - ref.lower), 0.0, 1e-13 * scale);
        gjk_result res = sd(&a, pa, &b, pb);
        assert_status(res.status, GJK_STATUS_SEPARATED);
        double err = fabs(res.distance - (double)ref.lower) / scale;
        note(degenerate || size != 1.0 ? &wf : &w, err);
        assert_le(res.lower_bound, (double)ref.upper, 1e-13 * scale);
        assert_le((double)ref.lower, res.upper_bound, 1e-13 * scale);
        if (!degenerate) {
            note(&wn, gjk_length(gjk_sub(res.normal, vec_of(ref.normal))));
        }
    }
    report(&w);
    report(&wf);
    report(&wn);
    assert_true(w.err <= 1e-9);
    assert_true(wf.err <= 1e-9);
}

/* Two equal spheroids (radii a, a, c) with a common axis z, centres s apart along it:
 * depth = min over unit n of h_D(n) = min over u = n_z in [0, 1] of 2 sqrt(a^2 + k u^2) - s u,
 * k = c^2 - a^2, a convex function of u: u* = s a / sqrt(k (4k - s^2)) when that is below 1
 * (prolate, shallow), else u = 1 and depth 2c - s (normal along the axis). For oblate ones
 * (k <= 0) always the latter. */
static double spheroid_depth(double a, double c, double s, double *nz)
{
    long double k = (long double)c * c - (long double)a * a;
    long double u = 1.0L;
    if (k > 0.0L && 4.0L * k > (long double)s * s) {
        long double us = (long double)s * a / sqrtl(k * (4.0L * k - (long double)s * s));
        u = fminl(us, 1.0L);
    }
    *nz = (double)u;
    return (double)(2.0L * sqrtl((long double)a * a + k * u * u) - s * u);
}

static void spheroid_penetration(void **state)
{
    (void)state;
    test_seed(25);
    worst w = {"spheroids on a common axis, depth (closed form)", 0.0};
    worst wn = {"  normal error, axial optimum (rad)", 0.0};
    const double scales[] = {1e-3, 1.0, 1e3};
    int runs = 0;
    for (int k = 0; runs < 300; ++k) {
        double size = scales[k % 3];
        double a = size * rnd_range(0.2, 1.0);
        double c = k % 2 ? a * rnd_range(0.2, 0.85) /* oblate */ : a * rnd_range(1.2, 3.0);
        double s = 2.0 * c * rnd_range(0.3, 0.99);
        double nz;
        double ref = spheroid_depth(a, c, s, &nz);
        /* The prolate ones whose optimum is a ring of normals about the axis, or near the
         * transition to it, end EPA at CAPACITY_LIMIT today (EPA's subject, not the shape's):
         * only axial optima with a clear margin, where the depth is 2c - s. */
        double k2 = c * c - a * a;
        if (k2 > 0 && s * a < 1.5 * sqrt(fmax(0.0, k2 * (4 * k2 - s * s)))) {
            continue;
        }
        ++runs;
        gjk_shape e = gjk_make_ellipsoid(gjk_v3(a, a, c));
        /* The common axis anywhere: one rotation and a translation for both. */
        gjk_quat q = rnd_quat();
        gjk_vec3 base = gjk_scale(rnd_unit(), size * rnd_range(0, 3));
        gjk_vec3 axis = gjk_quat_rotate(q, gjk_v3(0, 0, 1));
        gjk_transform pa = pose_of(base, q), pb = pose_of(gjk_madd(base, s, axis), q);
        gjk_result res = sd(&e, pa, &e, pb);
        assert_status(res.status, GJK_STATUS_OVERLAPPING);
        double scale = 2.0 * fmax(a, c);
        note(&w, fabs(-res.distance - ref) / scale);
        if (nz == 1.0) {
            note(&wn, acos(fmin(1.0, gjk_dot(res.normal, axis))));
        }
    }
    report(&w);
    report(&wn);
    assert_true(w.err <= 1e-9);
}

/* Distances do not change under a common rigid motion of both shapes (large translations
 * included), nor when A and B swap (the normal flips). */
static void rigid_motion_invariance(void **state)
{
    (void)state;
    test_seed(26);
    worst w = {"invariance under rigid motion and swapping", 0.0};
    gjk_shape others[3] = {gjk_make_box(gjk_v3(0.4, 0.3, 0.5)), gjk_make_cylinder(0.3, 0.5),
                           gjk_make_ellipsoid(gjk_v3(0.6, 0.1, 0.3))};
    for (int k = 0; k < 600; ++k) {
        gjk_shape e = gjk_make_ellipsoid(rnd_radii(1.0, 0.05));
        e.margin = k % 3 == 0 ? 0.02 : 0.0;
        const gjk_shape *b = &others[k % 3];
        gjk_transform pa = pose_of(gjk_scale(rnd_unit(), rnd_range(0, 0.5)), rnd_quat());
        gjk_transform pb = pose_of(gjk_scale(rnd_unit(), rnd_range(0.3, 2.5)), rnd_quat());
        gjk_transform m = pose_of(gjk_scale(rnd_unit(), pow(10.0, rnd_range(0, 3))), rnd_quat());
        gjk_result r0 = sd(&e, pa, b, pb);
        gjk_result r1 = sd(&e, gjk_transform_mul(m, pa), b, gjk_transform_mul(m, pb));
        gjk_result r2 = sd(b, pb, &e, pa);
        assert_int_equal(r0.status, r1.status);
        assert_int_equal(r0.status, r2.status);
        double scale = 1.0 + gjk_length(m.p) * 1e-3; /* the rounding of the moved poses */
        note(&w, fabs(r0.distance - r1.distance) / scale);
        note(&w, fabs(r0.distance - r2.distance));
        if (r0.status == GJK_STATUS_SEPARATED) {
            assert_vec_near(gjk_quat_rotate(m.q, r0.normal), r1.normal, 1e-6);
            assert_vec_near(r0.normal, gjk_neg(r2.normal), 1e-6);
        }
    }
    report(&w);
    assert_true(w.err <= 1e-9);
}

/* ------------------------------------------------------------------ open findings */

/* Findings not fixed yet (fuzz/FINDINGS.md, representatives in fuzz/open/): reported as skipped
 * unless GJK_RUN_OPEN_FINDINGS is set, so each reproducer stays one command away:
 * GJK_RUN_OPEN_FINDINGS=1 tests/test_ellipsoid */
#define OPEN_FINDING()                                                                             \
    do {                                                                                           \
        if (getenv("GJK_RUN_OPEN_FINDINGS") == NULL)                                               \
            skip();                                                                                \
    } while (0)

/* The separation of the placed pair along unit world u, from the reference support map. */
static double separation_along(const gjk_shape *a, gjk_transform ta, const gjk_shape *b,
                               gjk_transform tb, gjk_vec3 u)
{
    gjk_vec3 ua = gjk_quat_inv_rotate(ta.q, u), ub = gjk_quat_inv_rotate(tb.q, gjk_neg(u));
    double ha = gjk_dot(ua, gjk_shape_support(a, ua)) + gjk_dot(u, ta.p);
    double hb = gjk_dot(ub, gjk_shape_support(b, ub)) - gjk_dot(u, tb.p);
    return -ha - hb;
}

/* Prolate spheroids (1, 1, 2) on a common axis, 1.2 apart: the optimal normals form a ring
 * about the axis (n_z = 0.974), and EPA ends at CAPACITY_LIMIT 7.9e-4 shallow (the ring-optimum
 * family of coaxial cylinders). */
static void open_prolate_spheroids_ring_depth(void **state)
{
    (void)state;
    OPEN_FINDING();
    double nz, ref = spheroid_depth(1.0, 2.0, 1.2, &nz);
    assert_true(nz < 1.0);
    gjk_shape e = gjk_make_ellipsoid(gjk_v3(1, 1, 2));
    gjk_result r =
        sd(&e, gjk_transform_identity(), &e, pose_of(gjk_v3(0, 0, 1.2), gjk_quat_identity()));
    assert_status(r.status, GJK_STATUS_OVERLAPPING);
    assert_near(-r.distance, ref, 1e-9 * 4.0);
}

/* A capsule (radius 33.8, half height 12.5, margin 12.3) at the centre of a near-sphere of
 * radii 5.3e4 .. 5.6e4 (fuzz/open 90f0bf): EPA ends at CAPACITY_LIMIT with a normal along which
 * the shapes separate 1.35e3 less than the depth it reports (2.6% of it). */
static void open_capsule_at_centre_of_near_sphere(void **state)
{
    (void)state;
    OPEN_FINDING();
    gjk_shape a = gjk_make_ellipsoid(
        gjk_v3(0x1.9bbf1bbf1bbf2p+15, 0x1.9975197519752p+15, 0x1.b92f392f392f4p+15));
    gjk_shape b = gjk_make_capsule(33.76882581826505, 12.516548409246969);
    b.margin = 12.290226596475167;
    gjk_transform ta = gjk_transform_identity();
    gjk_transform tb =
        pose_of(gjk_v3(0, 0, 0), gjk_quat_make(0.30585684603711188, -0.4896729865220959,
                                               -0.57593781117172227, -0.57876384965328254));
    gjk_result r = sd(&a, ta, &b, tb);
    assert_status(r.status, GJK_STATUS_OVERLAPPING);
    double size = 2.0 * 0x1.b92f392f392f4p+15;
    assert_le(r.distance, separation_along(&a, ta, &b, tb, r.normal), 1e-9 * size);
}

/* A ball (radius 5.9) 118 m from the flat face of an ellipsoid 2^-20 m thick and 1.1 km wide
 * (radius of curvature there 1.2e12 m; fuzz/open 19eab3): cold, GJK ends at ITERATION_LIMIT;
 * from garbage caches the answers' witnesses miss the identity pb - pa = d n by up to 2.1e-6
 * (1.7e-9 of the pair's size: the normal is not the witnesses' direction). */
static void open_ball_before_flat_face(void **state)
{
    (void)state;
    OPEN_FINDING();
    gjk_shape a = gjk_make_sphere(5.9070420386053257);
    gjk_shape b = gjk_make_ellipsoid(gjk_v3(0x1p-20, 0x1.0b7ecb7ecb7edp+10, 0x1.b71f371f371f4p+9));
    b.margin = 0.00044522554360265507;
    gjk_transform ta =
        pose_of(gjk_v3(0, 0, 0), gjk_quat_make(0.30248228078034228, -0.57496859482610307,
                                               -0.56743380186008985, 0.50589965930431613));
    gjk_transform tb = pose_of(gjk_v3(124.27675498996939, 0, 0), gjk_quat_make(0, 0, 0, 1));
    test_seed(27);
    for (int k = 0; k < 500; ++k) {
        gjk_cache c;
        uint32_t *words = (uint32_t *)(void *)&c;
        for (size_t i = 0; i < sizeof c / sizeof *words; ++i) {
            words[i] = (uint32_t)(rnd() * 4294967296.0);
        }
        gjk_options o = gjk_default_options();
        o.touch_tolerance = 1e-300;
        gjk_result r = gjk_signed_distance(&a, ta, &b, tb, &c, &o);
        gjk_vec3 gap = gjk_sub(gjk_sub(r.point_b, r.point_a), gjk_scale(r.normal, r.distance));
        assert_le(gjk_length(gap), 0.0, 1e-9 * 1200.0);
    }
    gjk_result cold = sd(&a, ta, &b, tb);
    assert_status(cold.status, GJK_STATUS_SEPARATED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constructor_and_validation),
        cmocka_unit_test(support_map),
        cmocka_unit_test(bounding_volumes),
        cmocka_unit_test(point_and_tiny_sphere),
        cmocka_unit_test(point_inside_depth),
        cmocka_unit_test(half_space),
        cmocka_unit_test(equal_radii_match_sphere),
        cmocka_unit_test(ellipsoid_pairs),
        cmocka_unit_test(spheroid_penetration),
        cmocka_unit_test(rigid_motion_invariance),
        cmocka_unit_test(open_prolate_spheroids_ring_depth),
        cmocka_unit_test(open_capsule_at_centre_of_near_sphere),
        cmocka_unit_test(open_ball_before_flat_face),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
