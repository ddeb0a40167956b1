/* eval.h — runs the convex-pair cases (data/cases/FORMAT.md) through
 * gjk_signed_distance and measures accuracy, witness consistency and time per query.
 *
 * Used by the gjk-cases program and by tests/test_cases.c, so the numbers the evaluator
 * prints and the numbers the tests hold the engine to come from the same code.
 *
 * Every error is divided by the case's lref (the smaller circumradius). The checks use only
 * the case file's own vertex lists, never core's supports:
 *   err        |sd - sd*|                  (signed distance against the exact answer)
 *   normal     |sep(n) - sd*|              where sep(n) = -h_A(n) - h_B(-n) is the separation
 *                                          of the shapes along the reported normal (the gap it
 *                                          certifies when separated, minus the overlap along n
 *                                          when intersecting): a wrong normal shows here even
 *                                          when sd is right
 *   consistency |wb - wa - sd n|           (and | |wb - wa| - |sd| | which it bounds)
 *   plane      max(h_A(n) - wa.n, h_B(-n) + wb.n): each witness on its shape's supporting
 *                                          plane along the normal
 *   on_shape   max over a fixed set of directions u (the normal, the axes, the diagonals and
 *              a Fibonacci sphere) of p.u - h(u) for each witness p: a lower bound on the
 *              distance of the witness to its shape, exact for points pushed off along any
 *              of these directions.
 * with h_X(u) = max over X's vertices of (R x + t).u in the world frame. */
#ifndef GJK_EVAL_H
#define GJK_EVAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cases.h"
#include "gjk/gjk.h"

/* Tolerances of issue 2, per subset, as multiples of lref. */
#define GJK_EVAL_TOL 1e-9       /* main, degen, traj: distance, depth, witnesses */
#define GJK_EVAL_TOL_SCALE 1e-6 /* scale: shapes of size 1e-3 against 1e3 */

typedef struct gjk_eval_config {
    bool time;           /* measure ns per query (false: one query per case, no timing) */
    double min_time_ns;  /* time each case for at least this long in total (default 50000) */
    int32_t max_reps;    /* ... but with at most this many repetitions (default 10000) */
    int32_t reps;        /* > 0: exactly this many repetitions per case instead */
    bool warm;           /* also run the traj subset warm-started (always done when timing) */
    gjk_options options; /* passed to every query (zeroed = defaults) */
} gjk_eval_config;

/* Accuracy of one answer against the case's exact answer; every field divided by lref. */
typedef struct gjk_eval_check {
    double err;         /* |sd - sd*| */
    double normal;      /* |sep(n) - sd*|; INFINITY if |n| is not 1 within 1e-9 */
    double consistency; /* |wb - wa - sd n| */
    double plane;       /* witnesses off their supporting planes along n */
    double tilt_allow;  /* added to the tolerance of `normal` and `plane`: what the normal's
                           conditioning allows near contact (see eval.c) */
    double on_shape;    /* witnesses outside their shapes (support test lower bound) */
    bool failure;       /* non-finite output or status INVALID_INPUT, ITERATION_LIMIT, ... */
    bool wrong_verdict; /* gjk_eval_verdict_wrong */
} gjk_eval_check;

typedef struct gjk_eval_row {
    gjk_result cold; /* answer from a zeroed cache */
    gjk_eval_check cold_check;
    double cold_ns;  /* mean ns per cold query (NAN when not timed) */
    bool has_warm;   /* traj rows when warm runs were made */
    gjk_result warm; /* answer warm-started from the previous step of the same pair */
    gjk_eval_check warm_check;
    double warm_ns;
    double tol; /* the subset's tolerance (GJK_EVAL_TOL or GJK_EVAL_TOL_SCALE) */
} gjk_eval_row;

typedef struct gjk_eval {
    const gjk_case_set *set;
    gjk_polytope *polytopes; /* one hull per case shape (gjk_hull_build) */
    gjk_shape *shapes;
    gjk_eval_row *rows; /* one per case, in file order */
    int32_t count;
    double hull_ms; /* time spent building the hulls */
} gjk_eval;

gjk_eval_config gjk_eval_default_config(void);

/* Builds every shape of the set once (hulls with adjacency). Returns 0, or -1 with a message
 * in err and *ev zeroed. */
int gjk_eval_init(gjk_eval *ev, const gjk_case_set *set, char *err, size_t errlen);
void gjk_eval_free(gjk_eval *ev);

/* Runs every case cold; with cfg->warm or cfg->time also the traj subset warm, one cache per
 * (A, B) pair carried from step to step in file order. Fills ev->rows. */
void gjk_eval_run(gjk_eval *ev, const gjk_eval_config *cfg);

/* Checks one answer against case c's exact answer (see the top of this file). */
gjk_eval_check gjk_eval_check_result(const gjk_case_set *set, const gjk_case *c,
                                     const gjk_result *r);

/* True if the answer's status (its verdict) is wrong for a pair whose exact signed distance
 * is sd_true: SEPARATED on a pair intersecting by more than 1e-9 lref, OVERLAPPING on one
 * separated by more, TOUCHING more than the default touch tolerance + 1e-9 lref from
 * contact; also SEPARATED/OVERLAPPING with a distance of the other sign. */
bool gjk_eval_verdict_wrong(double sd_true, double lref, const gjk_result *r);

/* Tolerance of a case's subset, as a multiple of lref. */
double gjk_eval_tolerance(const gjk_case *c);

/* True if the check is within tol on every measure and neither failure nor wrong verdict. */
bool gjk_eval_check_ok(const gjk_eval_check *k, double tol);

/* Writes the per-case TSV (header + one line per case). warm: traj rows report the warm
 * answer and time. Returns 0 or -1 on a write error. */
int gjk_eval_write_tsv(const gjk_eval *ev, FILE *out, bool warm);

/* Prints the accuracy, witness, failure and timing summary. */
void gjk_eval_print_summary(const gjk_eval *ev, FILE *out);

#endif /* GJK_EVAL_H */
