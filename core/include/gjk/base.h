/* gjk/base.h — status table, version, assertion hook.
 *
 * Statuses are results, not errors: every query returns one of them and they are all
 * distinct. The table below is the single source of the enum, the names and the
 * one-line messages; the daemon's wire status codes map one-to-one onto it. Values 1-7 are
 * pair-query results; 8 and up are reported by the world layer (gjk/world.h). */
#ifndef GJK_BASE_H
#define GJK_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define GJK_API
#else
#define GJK_API __attribute__((visibility("default")))
#endif

#define GJK_VERSION_MAJOR 0
#define GJK_VERSION_MINOR 1
#define GJK_VERSION_PATCH 0

/* The largest length the library accepts, in metres: every size, radius, margin, vertex
 * coordinate and translation must lie within [-GJK_MAX_LENGTH, GJK_MAX_LENGTH]; beyond it an
 * input is INVALID_INPUT. GJK and EPA form products of up to three lengths (signed volumes,
 * plane offsets), so lengths near 1e100 overflow or lose the answer: a robot inside a box of
 * half-size 1e154 was reported clear. 1e12 m leaves those products 250 orders of magnitude
 * from overflow and is far beyond any workcell. */
#define GJK_MAX_LENGTH 1e12

/* X(NAME, value, "message"). Values are stable: they are also wire values. */
#define GJK_STATUS_TABLE(X)                                                                        \
    X(SEPARATED, 1, "shapes are separated; distance and witnesses are exact within tolerance")    \
    X(TOUCHING, 2, "shapes touch: |signed distance| is within the contact tolerance")             \
    X(OVERLAPPING, 3, "shapes overlap")                                                           \
    X(BEYOND_CUTOFF, 4, "certified lower bound exceeds the cutoff; distance is that bound")       \
    X(ITERATION_LIMIT, 5, "iteration cap reached; the best bounds found are reported")            \
    X(CAPACITY_LIMIT, 6, "EPA ran out of its fixed capacity; the best depth found is reported")   \
    X(INVALID_INPUT, 7, "invalid input: NaN/Inf, negative size or margin, bad quaternion, empty")  \
    X(NOT_FOUND, 8, "no such robot, link, obstacle or part")                                      \
    X(OUT_OF_MEMORY, 9, "allocation failed or a configured capacity was exceeded")

typedef enum gjk_status {
    GJK_STATUS_UNSPECIFIED = 0,
#define GJK_X_ENUM(name, value, msg) GJK_STATUS_##name = value,
    GJK_STATUS_TABLE(GJK_X_ENUM)
#undef GJK_X_ENUM
        GJK_STATUS_COUNT
} gjk_status;

/* Short upper-case name of a status ("SEPARATED"); "UNKNOWN" for values outside the table. */
GJK_API const char *gjk_status_name(gjk_status status);
/* One-line human-readable description of a status. */
GJK_API const char *gjk_status_message(gjk_status status);

/* Assertion hook: internal invariants only (never user input, which gets
 * GJK_STATUS_INVALID_INPUT). Asserts stay on unless GJK_NO_ASSERT is defined: the build
 * defines it for Release and MinSizeRel only, so Debug and RelWithDebInfo (the sanitizer and
 * fuzz builds) check every invariant. The default handler aborts; a program may install its
 * own (returning from it continues). */
typedef void gjk_assert_fn(const char *condition, const char *file, int line);
GJK_API void gjk_set_assert_handler(gjk_assert_fn *handler);
GJK_API void gjk_assert_failed(const char *condition, const char *file, int line);

#ifdef GJK_NO_ASSERT
#define GJK_ASSERT(c) ((void)0)
#else
#define GJK_ASSERT(c) ((c) ? (void)0 : gjk_assert_failed(#c, __FILE__, __LINE__))
#endif

#endif /* GJK_BASE_H */
