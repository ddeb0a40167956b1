/* gjk/gjk.h — the whole public surface of libgjk. */
#ifndef GJK_GJK_H
#define GJK_GJK_H

#include "base.h"
#include "vecmath.h"
#include "shape.h"
#include "hull.h"
#include "query.h"
#include "world.h"
#include "kinematics.h"
#include "trace.h"
#include "continuous.h"

#endif /* GJK_GJK_H */
