/* bench_cases.h — what the peer benchmark shares between its engines: the convex hull of
 * every case shape (vertices and faces, computed once, outside any timing), a monotonic
 * clock and small statistics helpers.
 *
 * Every engine gets the same vertex set for a shape: the hull vertices of the case file's
 * points (duplicates merged). FCL's Convex also needs faces, which the hull provides. */
#ifndef GJK_BENCH_CASES_H
#define GJK_BENCH_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "cases.h"

typedef struct bench_hull {
    int32_t dimension;  /* 3 solid, 2 flat polygon, 1 segment, 0 point */
    int32_t count;      /* hull vertices */
    gjk_vec3 *points;   /* hull vertices, shape-local frame, metres */
    int32_t face_count; /* faces (triangles for a solid; the polygon twice, both ways, if flat) */
    int32_t *faces;     /* FCL layout: n, i_0 .. i_{n-1}, n, ... (counter-clockwise from outside) */
    int32_t faces_len;  /* ints in faces */
} bench_hull;

/* Hull of a case shape (libqhull_r "Qt" for solids; a 2-D monotone chain for flat input).
 * Returns 0, or -1 with a message in err. */
int bench_hull_build(const gjk_case_shape *shape, bench_hull *out, char *err, size_t errlen);
void bench_hull_free(bench_hull *hull);

/* Monotonic clock in nanoseconds. */
double bench_now_ns(void);

/* Median of n values (NaN values are skipped; NaN when none is left). Sorts a copy. */
double bench_median(const double *values, size_t n);
/* Largest value, NaN values skipped; NaN when none. */
double bench_max(const double *values, size_t n);

#endif /* GJK_BENCH_CASES_H */
