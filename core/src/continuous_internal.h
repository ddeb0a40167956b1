/* continuous_internal.h — the pair search of continuous.c for the world layer. Not installed. */
#ifndef GJK_CONTINUOUS_INTERNAL_H
#define GJK_CONTINUOUS_INTERNAL_H

#include "gjk/continuous.h"

/* gjk_ccd_check; with witness false the final query at res.t is skipped (res.at is zeroed
 * with distance NaN): the world asks for it only for the pair it reports. */
gjk_ccd_result gjk_ccd_run(const gjk_ccd_pair *pair, gjk_cache *cache,
                           const gjk_ccd_options *options, bool witness);

#endif /* GJK_CONTINUOUS_INTERNAL_H */
