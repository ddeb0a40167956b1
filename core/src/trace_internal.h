/* trace_internal.h — recording into a gjk_trace (gjk/trace.h) from GJK and EPA: one call per
 * iteration, made only when the options carry a trace. */
#ifndef GJK_TRACE_INTERNAL_H
#define GJK_TRACE_INTERNAL_H

#include "gjk/trace.h"
#include "internal.h"

/* A GJK iteration: the simplex pool[slot[0..count)], its point v nearest the origin, the
 * support point found along -v, the bounds lower <= d <= upper after it. */
void gjk_trace_gjk_step(gjk_trace *t, const gjk_pair_frame *f, int32_t iteration,
                        const gjk_vertex *pool, const int32_t *slot, int32_t count, gjk_vec3 v,
                        const gjk_vertex *support, double lower, double upper);

/* An EPA iteration: the polytope's vertices (w[i], a[i]; b = a - w), the face expanded (its
 * outward unit normal n at distance d), the support point along n, the depth's bounds. */
void gjk_trace_epa_step(gjk_trace *t, const gjk_pair_frame *f, int32_t iteration, const gjk_vec3 *w,
                        const gjk_vec3 *a, int32_t count, const int32_t face[3], gjk_vec3 n,
                        double d, const gjk_vertex *support, double lower, double upper);

#endif /* GJK_TRACE_INTERNAL_H */
