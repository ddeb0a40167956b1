/* cases.h — reader for the convex-pair case files (data/cases/FORMAT.md).
 * Used by the tests, the case evaluator (gjk-cases) and the benchmarks. Plain text only:
 * full.cases.xz is decompressed into the build tree first (xz -dk). */
#ifndef GJK_CASES_H
#define GJK_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "gjk/vecmath.h"

typedef struct gjk_case_shape {
    int32_t id;
    char cls[64];      /* tet oct cube ico dod s32 e64 ... or a degen/scale class name */
    int32_t count;     /* vertices */
    double radius;     /* circumradius */
    gjk_vec3 *points;  /* count points, local frame */
} gjk_case_shape;

typedef struct gjk_case {
    int32_t id;
    char subset[64];   /* main scale degen traj */
    char state[64];    /* separated touching intersecting */
    char tag[64];
    int32_t seq;       /* trajectory step, -1 elsewhere */
    int32_t shape_a, shape_b;
    gjk_transform pose_a, pose_b;
    /* the exact answer (O line) */
    double sd;         /* signed distance: > 0 distance, <= 0 minus depth */
    gjk_vec3 normal;   /* unit, A -> B */
    gjk_vec3 wa, wb;   /* a closest pair (NaN when intersecting) */
    double gap;        /* certified lower bound's distance from sd (-1 for depth answers) */
    char feature[64];
    double target;
    double lref;       /* length scale to divide errors by */
    char method[64];    /* cert brute sat */
} gjk_case;

typedef struct gjk_case_set {
    gjk_case_shape *shapes;
    int32_t shape_count;
    gjk_case *cases;
    int32_t case_count;
} gjk_case_set;

/* Loads a case file. Returns 0 on success; otherwise -1 with a one-line message in err
 * (path, line number, what was wrong) and *out zeroed. */
int gjk_cases_load(const char *path, gjk_case_set *out, char *err, size_t errlen);
/* Frees everything; safe on a zeroed set and on NULL. */
void gjk_cases_free(gjk_case_set *set);

/* Size bucket of a case (FORMAT.md): 'S' both shapes <= 20 vertices, 'M' larger one
 * 32..256, 'L' larger one 512..2000; other sizes fall into the nearest bucket. */
char gjk_case_bucket(const gjk_case_set *set, const gjk_case *c);

#endif /* GJK_CASES_H */
