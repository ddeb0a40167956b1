/* trace.c — the optional step trace of GJK and EPA (gjk/trace.h): copies of each iteration's
 * simplex or polytope, direction, support point and bounds into caller-owned arrays. Only
 * called when a trace is given; never allocates. */
#include "trace_internal.h"

gjk_trace gjk_trace_make(gjk_trace_step *steps, int32_t step_capacity, gjk_trace_point *points,
                         int32_t point_capacity)
{
    gjk_trace t = {0};
    t.steps = steps;
    t.step_capacity = steps != NULL && step_capacity > 0 ? step_capacity : 0;
    t.points = points;
    t.point_capacity = points != NULL && point_capacity > 0 ? point_capacity : 0;
    return t;
}

void gjk_trace_reset(gjk_trace *trace)
{
    if (trace != NULL) {
        trace->step_count = 0;
        trace->point_count = 0;
        trace->truncated = false;
    }
}

static gjk_trace_point trace_point(gjk_vec3 a, gjk_vec3 b, gjk_vec3 w)
{
    gjk_trace_point p = {a, b, w};
    return p;
}

/* The next step, its points reserved (point_count 0 when they do not fit); NULL when the
 * steps are full. */
static gjk_trace_step *next_step(gjk_trace *t, const gjk_pair_frame *f, gjk_trace_phase phase,
                                 int32_t iteration, int32_t points)
{
    t->inflate = f->inflate;
    if (t->step_count >= t->step_capacity) {
        t->truncated = true;
        return NULL;
    }
    gjk_trace_step *s = &t->steps[t->step_count++];
    s->phase = phase;
    s->iteration = iteration;
    s->first_point = t->point_count;
    s->point_count = 0;
    s->face[0] = s->face[1] = s->face[2] = -1;
    if (points > t->point_capacity - t->point_count) {
        t->truncated = true;
    } else {
        s->point_count = points;
        t->point_count += points;
    }
    return s;
}

void gjk_trace_gjk_step(gjk_trace *t, const gjk_pair_frame *f, int32_t iteration,
                        const gjk_vertex *pool, const int32_t *slot, int32_t count, gjk_vec3 v,
                        const gjk_vertex *support, double lower, double upper)
{
    gjk_trace_step *s = next_step(t, f, GJK_TRACE_GJK, iteration, count);
    if (s == NULL) {
        return;
    }
    for (int32_t k = 0; k < s->point_count; ++k) {
        const gjk_vertex *x = &pool[slot[k]];
        t->points[s->first_point + k] = trace_point(x->a, x->b, x->w);
    }
    s->closest = v;
    s->direction = gjk_neg(v);
    s->support = trace_point(support->a, support->b, support->w);
    s->lower = lower;
    s->upper = upper;
}

void gjk_trace_epa_step(gjk_trace *t, const gjk_pair_frame *f, int32_t iteration, const gjk_vec3 *w,
                        const gjk_vec3 *a, int32_t count, const int32_t face[3], gjk_vec3 n,
                        double d, const gjk_vertex *support, double lower, double upper)
{
    gjk_trace_step *s = next_step(t, f, GJK_TRACE_EPA, iteration, count);
    if (s == NULL) {
        return;
    }
    for (int32_t k = 0; k < s->point_count; ++k) {
        t->points[s->first_point + k] = trace_point(a[k], gjk_sub(a[k], w[k]), w[k]);
    }
    for (int32_t k = 0; k < 3; ++k) {
        s->face[k] = face[k];
    }
    s->closest = gjk_scale(n, d);
    s->direction = n;
    s->support = trace_point(support->a, support->b, support->w);
    s->lower = lower;
    s->upper = upper;
}
