/* ccd_fcl.h — FCL 0.7's continuousCollide (Debian libfcl-dev) on one pair of primitive shapes,
 * for bench_ccd_peers. Benchmark only: the library never links FCL. */
#ifndef GJK_BENCH_CCD_FCL_H
#define GJK_BENCH_CCD_FCL_H

#include "gjk/gjk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ccd_fcl_solver {
    CCD_FCL_NAIVE = 0,     /* CCDC_NAIVE: num_max_iterations samples (FCL's default 10) */
    CCD_FCL_CA_LIBCCD = 1, /* CCDC_CONSERVATIVE_ADVANCEMENT, GST_LIBCCD */
    CCD_FCL_CA_INDEP = 2,  /* CCDC_CONSERVATIVE_ADVANCEMENT, GST_INDEP */
} ccd_fcl_solver;

typedef struct ccd_fcl_answer {
    bool ok;      /* FCL returned a time (>= 0) without throwing */
    bool collide; /* result.is_collide */
    double toc;   /* result.time_of_contact */
} ccd_fcl_answer;

/* Both shapes move from *_from to *_to with CCDM_LINEAR (FCL's InterpMotion: the origin's
 * translation lerped, the rotation turned about one axis at a constant rate: the same path as
 * gjk_pose_interpolate). Shapes: sphere, capsule, box, cylinder, cone, without margin.
 * iterations: CCD_FCL_NAIVE's samples (0 = FCL's default); the request's toc_err is 1e-6. */
ccd_fcl_answer ccd_fcl_check(const gjk_shape *a, gjk_transform a_from, gjk_transform a_to,
                             const gjk_shape *b, gjk_transform b_from, gjk_transform b_to,
                             ccd_fcl_solver solver, int iterations);

#ifdef __cplusplus
}
#endif

#endif /* GJK_BENCH_CCD_FCL_H */
