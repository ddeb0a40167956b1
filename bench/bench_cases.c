/* bench_cases.c — hulls of the case shapes, clock and statistics for the peer benchmark. */
#define _POSIX_C_SOURCE 200809L

#include "bench_cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libqhull_r/qhull_ra.h>

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double bench_median(const double *values, size_t n)
{
    double *tmp = malloc((n ? n : 1) * sizeof *tmp);
    size_t m = 0;
    if (!tmp)
        return NAN;
    for (size_t i = 0; i < n; i++)
        if (!isnan(values[i]))
            tmp[m++] = values[i];
    double med = NAN;
    if (m > 0) {
        qsort(tmp, m, sizeof *tmp, cmp_double);
        med = (m % 2) ? tmp[m / 2] : 0.5 * (tmp[m / 2 - 1] + tmp[m / 2]);
    }
    free(tmp);
    return med;
}

double bench_max(const double *values, size_t n)
{
    double best = NAN;
    for (size_t i = 0; i < n; i++)
        if (!isnan(values[i]) && (isnan(best) || values[i] > best))
            best = values[i];
    return best;
}

void bench_hull_free(bench_hull *hull)
{
    if (!hull)
        return;
    free(hull->points);
    free(hull->faces);
    memset(hull, 0, sizeof *hull);
}

/* ------------------------------------------------------------------ flat and thinner input */

typedef struct proj_point {
    double u, v;
    int32_t index; /* into the input points */
} proj_point;

static int cmp_proj(const void *pa, const void *pb)
{
    const proj_point *a = pa, *b = pb;
    if (a->u != b->u)
        return (a->u > b->u) - (a->u < b->u);
    return (a->v > b->v) - (a->v < b->v);
}

static double cross2(proj_point o, proj_point a, proj_point b)
{
    return (a.u - o.u) * (b.v - o.v) - (a.v - o.v) * (b.u - o.u);
}

/* Hull of input whose affine dimension is below 3: find a plane (or a line) through the
 * points, project, and run Andrew's monotone chain, dropping collinear and repeated points. */
static int hull_low_dimension(const gjk_case_shape *s, bench_hull *out)
{
    const gjk_vec3 *p = s->points;
    int32_t n = s->count;
    double extent = 0.0;
    int32_t i1 = 0, i2 = 0;
    for (int32_t i = 1; i < n; i++) {
        double d = gjk_distance_between(p[0], p[i]);
        if (d > extent) {
            extent = d;
            i1 = i;
        }
    }
    double tol = 1e-12 * (extent > 0.0 ? extent : 1.0);
    if (extent <= tol) { /* a point */
        out->dimension = 0;
        out->count = 1;
        out->points = malloc(sizeof *out->points);
        if (!out->points)
            return -1;
        out->points[0] = p[0];
        return 0;
    }
    gjk_vec3 u = gjk_normalize(gjk_sub(p[i1], p[0]));
    double best = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double a = gjk_length(gjk_cross(u, gjk_sub(p[i], p[0])));
        if (a > best) {
            best = a;
            i2 = i;
        }
    }
    if (best <= 1e-9 * extent) { /* a segment: the two extreme points along u */
        int32_t lo = 0, hi = 0;
        for (int32_t i = 1; i < n; i++) {
            double t = gjk_dot(u, gjk_sub(p[i], p[0]));
            if (t < gjk_dot(u, gjk_sub(p[lo], p[0])))
                lo = i;
            if (t > gjk_dot(u, gjk_sub(p[hi], p[0])))
                hi = i;
        }
        out->dimension = 1;
        out->count = 2;
        out->points = malloc(2 * sizeof *out->points);
        if (!out->points)
            return -1;
        out->points[0] = p[lo];
        out->points[1] = p[hi];
        return 0;
    }
    gjk_vec3 normal = gjk_normalize(gjk_cross(u, gjk_sub(p[i2], p[0])));
    gjk_vec3 v = gjk_cross(normal, u);
    proj_point *pp = malloc((size_t)n * sizeof *pp);
    proj_point *chain = malloc((size_t)(2 * n + 1) * sizeof *chain);
    if (!pp || !chain) {
        free(pp);
        free(chain);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        gjk_vec3 d = gjk_sub(p[i], p[0]);
        pp[i].u = gjk_dot(d, u);
        pp[i].v = gjk_dot(d, v);
        pp[i].index = i;
    }
    qsort(pp, (size_t)n, sizeof *pp, cmp_proj);
    double area_tol = tol * extent;
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) { /* lower chain */
        while (k >= 2 && cross2(chain[k - 2], chain[k - 1], pp[i]) <= area_tol)
            k--;
        chain[k++] = pp[i];
    }
    for (int32_t i = n - 2, lower = k + 1; i >= 0; i--) { /* upper chain */
        while (k >= lower && cross2(chain[k - 2], chain[k - 1], pp[i]) <= area_tol)
            k--;
        chain[k++] = pp[i];
    }
    int32_t m = k - 1; /* the last point repeats the first */
    out->dimension = 2;
    out->count = m;
    out->points = malloc((size_t)m * sizeof *out->points);
    out->face_count = 2;
    out->faces_len = 2 * (m + 1);
    out->faces = malloc((size_t)out->faces_len * sizeof *out->faces);
    if (!out->points || !out->faces) {
        free(pp);
        free(chain);
        return -1;
    }
    /* The chain runs counter-clockwise about `normal`: one face looking along +normal, one
     * along -normal. */
    out->faces[0] = m;
    out->faces[m + 1] = m;
    for (int32_t i = 0; i < m; i++) {
        out->points[i] = p[chain[i].index];
        out->faces[1 + i] = i;
        out->faces[m + 2 + i] = m - 1 - i;
    }
    free(pp);
    free(chain);
    return 0;
}

/* ------------------------------------------------------------------ solids: libqhull_r */

int bench_hull_build(const gjk_case_shape *s, bench_hull *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (s->count < 1) {
        snprintf(err, errlen, "shape %d has no points", s->id);
        return -1;
    }
    if (s->count < 4)
        return hull_low_dimension(s, out) == 0 ? 0 : (snprintf(err, errlen, "out of memory"), -1);

    coordT *coords = malloc((size_t)s->count * 3 * sizeof *coords);
    int32_t *map = malloc((size_t)s->count * sizeof *map);
    FILE *devnull = fopen("/dev/null", "w");
    if (!coords || !map || !devnull) {
        free(coords);
        free(map);
        if (devnull)
            fclose(devnull);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int32_t i = 0; i < s->count; i++) {
        coords[3 * i + 0] = s->points[i].x;
        coords[3 * i + 1] = s->points[i].y;
        coords[3 * i + 2] = s->points[i].z;
        map[i] = -1;
    }
    qhT qh_storage;
    qhT *qh = &qh_storage;
    qh_zero(qh, devnull);
    char flags[] = "qhull Qt";
    int code = qh_new_qhull(qh, 3, s->count, coords, False, flags, NULL, devnull);
    int rc = 0;
    if (code != 0) {
        /* Flat (or thinner) input: qhull cannot build a 3-D initial simplex. */
        rc = hull_low_dimension(s, out);
        if (rc != 0)
            snprintf(err, errlen, "out of memory");
    } else {
        facetT *facet;
        vertexT *vertex, **vertexp;
        int32_t nv = 0, nf = 0;
        FORALLvertices
        {
            int id = qh_pointid(qh, vertex->point);
            if (id >= 0 && id < s->count && map[id] < 0)
                map[id] = nv++;
        }
        FORALLfacets
        {
            nf++;
        }
        out->dimension = 3;
        out->count = nv;
        out->points = malloc((size_t)nv * sizeof *out->points);
        out->faces = malloc((size_t)nf * 4 * sizeof *out->faces);
        if (!out->points || !out->faces) {
            rc = -1;
            snprintf(err, errlen, "out of memory");
        } else {
            gjk_vec3 centre = gjk_v3(0.0, 0.0, 0.0);
            for (int32_t i = 0; i < s->count; i++)
                if (map[i] >= 0) {
                    out->points[map[i]] = s->points[i];
                    centre = gjk_madd(centre, 1.0 / nv, s->points[i]);
                }
            int32_t len = 0;
            FORALLfacets
            {
                int32_t tri[3], k = 0;
                FOREACHvertex_(facet->vertices)
                {
                    if (k < 3)
                        tri[k] = map[qh_pointid(qh, vertex->point)];
                    k++;
                }
                if (k != 3)
                    continue; /* "Qt" triangulates; anything else would be a qhull surprise */
                gjk_vec3 a = out->points[tri[0]], b = out->points[tri[1]], c = out->points[tri[2]];
                gjk_vec3 nrm = gjk_cross(gjk_sub(b, a), gjk_sub(c, a));
                if (gjk_dot(nrm, gjk_sub(a, centre)) < 0.0) {
                    int32_t t = tri[1];
                    tri[1] = tri[2];
                    tri[2] = t;
                }
                out->faces[len++] = 3;
                out->faces[len++] = tri[0];
                out->faces[len++] = tri[1];
                out->faces[len++] = tri[2];
                out->face_count++;
            }
            out->faces_len = len;
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(devnull);
    free(coords);
    free(map);
    if (rc != 0)
        bench_hull_free(out);
    return rc;
}
