/* test_util.h — what the cmocka tests share: checks on doubles, vectors and statuses
 * (cmocka 1.1 compares integers only; these print the values and file:line), and a seeded
 * xorshift64* generator so that every random case reproduces. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "gjk/gjk.h"

#define PI 3.14159265358979323846

/* |a - b| <= tol. */
#define assert_near(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b), t_ = (tol);                                                     \
        if (!(fabs(a_ - b_) <= t_)) {                                                              \
            print_error("%s = %.17g, %s = %.17g, |diff| = %.3g > %.3g\n", #a, a_, #b, b_,          \
                        fabs(a_ - b_), t_);                                                        \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* Euclidean |a - b| <= tol. */
#define assert_vec_near(a, b, tol)                                                                 \
    do {                                                                                           \
        gjk_vec3 va_ = (a), vb_ = (b);                                                             \
        double t_ = (tol), e_ = gjk_length(gjk_sub(va_, vb_));                                     \
        if (!(e_ <= t_)) {                                                                         \
            print_error("%s = (%.17g, %.17g, %.17g), %s = (%.17g, %.17g, %.17g), |diff| = %.3g "   \
                        "> %.3g\n",                                                                \
                        #a, va_.x, va_.y, va_.z, #b, vb_.x, vb_.y, vb_.z, e_, t_);                 \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* a <= b + tol. */
#define assert_le(a, b, tol)                                                                       \
    do {                                                                                           \
        double a_ = (a), b_ = (b), t_ = (tol);                                                     \
        if (!(a_ <= b_ + t_)) {                                                                    \
            print_error("%s = %.17g > %s = %.17g (+ %.3g)\n", #a, a_, #b, b_, t_);                 \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#define assert_status(expr, expected)                                                              \
    do {                                                                                           \
        gjk_status s_ = (expr), e_ = (expected);                                                   \
        if (s_ != e_) {                                                                            \
            print_error("%s = %s, expected %s\n", #expr, gjk_status_name(s_),                      \
                        gjk_status_name(e_));                                                      \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------ random numbers */

static uint64_t test_rng = 0x9E3779B97F4A7C15u;

/* Restart the sequence (a test that must not depend on the order tests run in). */
static inline void test_seed(uint64_t seed)
{
    test_rng = seed * 0x9E3779B97F4A7C15u + 1u;
}

/* Uniform in [0, 1). */
static inline double rnd(void)
{
    test_rng ^= test_rng >> 12;
    test_rng ^= test_rng << 25;
    test_rng ^= test_rng >> 27;
    return (double)((test_rng * 2685821657736338717u) >> 11) * 0x1.0p-53;
}

static inline double rnd_range(double lo, double hi)
{
    return lo + (hi - lo) * rnd();
}

/* Uniform on the unit sphere (rejection from the cube, away from the centre). */
static inline gjk_vec3 rnd_unit(void)
{
    for (;;) {
        gjk_vec3 v = gjk_v3(rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1));
        double l = gjk_length(v);
        if (l > 0.1 && l <= 1.0) {
            return gjk_scale(v, 1.0 / l);
        }
    }
}

static inline gjk_quat rnd_quat(void)
{
    return gjk_quat_from_axis_angle(rnd_unit(), rnd_range(-PI, PI));
}

#endif
