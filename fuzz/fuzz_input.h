/* fuzz_input.h — what every harness shares: a reader that turns the fuzzer's bytes into
 * numbers, shapes of point clouds, poses and directions, a small deterministic generator
 * for the checks' own sampling, and the failure report.
 *
 * The reader never fails: past the end of the input it returns zeros, so every input
 * decodes to something and short inputs stay meaningful (libFuzzer grows them). Values are
 * drawn from distributions the engines find nasty: exact zeros, exact duplicates, exact
 * axis-aligned planes (coplanar in floating point), tilted planes (coplanar up to
 * rounding), points one ulp apart, lattices with many coplanar faces, huge offsets.
 *
 * Everything is static inline so each harness is one translation unit. */
#ifndef GJK_FUZZ_INPUT_H
#define GJK_FUZZ_INPUT_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gjk/gjk.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------------ failure report */

/* A harness may set this to print its input in readable form when a check fails. */
static void (*fuzz_context)(void);

/* Prints what went wrong (with the values involved) and aborts, which libFuzzer records
 * as a crash and saves the input. */
__attribute__((format(printf, 1, 2), noreturn)) static inline void fuzz_fail(const char *format,
                                                                             ...)
{
    va_list args;
    va_start(args, format);
    fputs("fuzz check failed: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    if (fuzz_context != NULL) {
        fuzz_context();
    }
    abort();
}

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);                             \
            fuzz_fail(__VA_ARGS__);                                                                \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------ byte reader */

/* The order of evaluation of a function's arguments is unspecified (gcc and clang differ),
 * so two reads never share an expression: each goes into its own variable first, and an
 * input decodes the same under every compiler. */

typedef struct fuzz_input {
    const uint8_t *data;
    size_t size;
    size_t pos;
} fuzz_input;

static inline fuzz_input fuzz_input_make(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    return in;
}

static inline uint8_t fuzz_u8(fuzz_input *in)
{
    return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint16_t fuzz_u16(fuzz_input *in)
{
    uint16_t lo = fuzz_u8(in);
    return (uint16_t)(lo | (uint16_t)(fuzz_u8(in) << 8));
}

static inline uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t lo = fuzz_u16(in);
    return lo | ((uint32_t)fuzz_u16(in) << 16);
}

static inline uint64_t fuzz_u64(fuzz_input *in)
{
    uint64_t lo = fuzz_u32(in);
    return lo | ((uint64_t)fuzz_u32(in) << 32);
}

/* Any double, NaN and infinities included (the raw bit pattern). */
static inline double fuzz_raw_double(fuzz_input *in)
{
    uint64_t bits = fuzz_u64(in);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* An integer in [lo, hi] (hi - lo < 65536). */
static inline int32_t fuzz_int(fuzz_input *in, int32_t lo, int32_t hi)
{
    uint32_t span = (uint32_t)(hi - lo) + 1u;
    uint32_t v = span <= 256u ? fuzz_u8(in) : fuzz_u16(in);
    return lo + (int32_t)(v % span);
}

/* [0, 1] in steps of 1/65535: 0 and 1 are reachable exactly. */
static inline double fuzz_unit(fuzz_input *in)
{
    return (double)fuzz_u16(in) / 65535.0;
}

/* [-1, 1], 0 and +-1 exactly reachable. */
static inline double fuzz_signed(fuzz_input *in)
{
    return 2.0 * fuzz_unit(in) - 1.0;
}

/* 2^e for e in [lo, hi]: exact powers of two, so scaled lattices stay exact. */
static inline double fuzz_pow2(fuzz_input *in, int lo, int hi)
{
    return ldexp(1.0, (int)fuzz_int(in, lo, hi));
}

/* Three signed fractions, read in order. */
static inline gjk_vec3 fuzz_signed3(fuzz_input *in)
{
    double x = fuzz_signed(in);
    double y = fuzz_signed(in);
    double z = fuzz_signed(in);
    return gjk_v3(x, y, z);
}

/* A unit vector: often an axis or a diagonal (ties in support maps, sign(0) conventions),
 * otherwise a normalised vector of signed fractions. */
static inline gjk_vec3 fuzz_direction(fuzz_input *in)
{
    uint8_t kind = fuzz_u8(in);
    if (kind < 32) {
        gjk_vec3 axis = gjk_v3(kind % 3 == 0, kind % 3 == 1, kind % 3 == 2);
        return (kind / 3) % 2 ? gjk_neg(axis) : axis;
    }
    if (kind < 48) {
        return gjk_normalize(gjk_v3(kind & 1 ? 1 : -1, kind & 2 ? 1 : -1, kind & 4 ? 1 : -1));
    }
    gjk_vec3 v = fuzz_signed3(in);
    return gjk_length_sq(v) > 0.0 ? gjk_normalize(v) : gjk_v3(0.0, 0.0, 1.0);
}

/* A unit quaternion (w, x, y, z): identity, exact quarter and half turns about the axes
 * (the poses of boxes stacked in a scene), or a general rotation. */
static inline gjk_quat fuzz_rotation(fuzz_input *in)
{
    uint8_t kind = fuzz_u8(in);
    const double h = sqrt(0.5);
    switch (kind % 8) {
    case 0:
        return gjk_quat_identity();
    case 1:
        return gjk_quat_make(h, (kind >> 3) % 3 == 0 ? h : 0.0, (kind >> 3) % 3 == 1 ? h : 0.0,
                             (kind >> 3) % 3 == 2 ? h : 0.0);
    case 2:
        return gjk_quat_make(0.0, (kind >> 3) % 3 == 0, (kind >> 3) % 3 == 1, (kind >> 3) % 3 == 2);
    default: {
        double w = fuzz_signed(in);
        gjk_vec3 xyz = fuzz_signed3(in);
        gjk_quat q = gjk_quat_make(w, xyz.x, xyz.y, xyz.z);
        return gjk_quat_norm(q) > 1e-3 ? gjk_quat_normalize(q) : gjk_quat_identity();
    }
    }
}

/* ------------------------------------------------------------------ point clouds */

/* Reads a point cloud of 1..max points at scale `scale` about `offset`. Each point is one of:
 * a point in the cube [-s, s]^3; an exact duplicate of an earlier point; a point of an
 * axis-aligned plane (exactly coplanar); a point of a tilted plane or line through the
 * cloud's frame (coplanar / colinear up to rounding); an earlier point moved by one ulp
 * or by 1e-12 s; a point of the sphere of radius s; a lattice point s (i, j, k) / 4.
 * Returns the count. */
static inline int32_t fuzz_cloud(fuzz_input *in, gjk_vec3 *out, int32_t max, double scale,
                                 gjk_vec3 offset)
{
    int32_t n = fuzz_int(in, 1, max > 255 ? 255 : max);
    if (max > 255 && (fuzz_u8(in) & 1)) {
        n = fuzz_int(in, 1, max);
    }
    gjk_vec3 u = fuzz_direction(in);
    gjk_vec3 v = fuzz_direction(in);
    gjk_vec3 w = gjk_cross(u, v);
    w = gjk_length_sq(w) > 0.0 ? gjk_normalize(gjk_cross(w, u)) : gjk_v3(0.0, 0.0, 0.0);
    int axis = fuzz_int(in, 0, 2);
    double plane = scale * fuzz_signed(in);
    for (int32_t i = 0; i < n; ++i) {
        uint8_t op = fuzz_u8(in);
        gjk_vec3 p;
        switch (op % 10) {
        case 0:
        case 1:
        default:
            p = gjk_scale(fuzz_signed3(in), scale);
            break;
        case 2: /* exact duplicate */
            p = i > 0 ? gjk_sub(out[fuzz_int(in, 0, i - 1)], offset) : gjk_v3(0, 0, 0);
            break;
        case 3: { /* axis-aligned plane: exactly coplanar */
            double a = scale * fuzz_signed(in);
            double b = scale * fuzz_signed(in);
            p = axis == 0   ? gjk_v3(plane, a, b)
                : axis == 1 ? gjk_v3(a, plane, b)
                            : gjk_v3(a, b, plane);
            break;
        }
        case 4: /* tilted plane: coplanar up to rounding */
        {
            double a = scale * fuzz_signed(in);
            double b = scale * fuzz_signed(in);
            p = gjk_madd(gjk_scale(u, a), b, w);
        } break;
        case 5: /* line */
            p = gjk_scale(u, scale * fuzz_signed(in));
            break;
        case 6: { /* an earlier point, one ulp or 1e-12 s away */
            gjk_vec3 q = i > 0 ? gjk_sub(out[fuzz_int(in, 0, i - 1)], offset) : gjk_v3(0, 0, 0);
            if (op & 16) {
                p = gjk_v3(nextafter(q.x, op & 32 ? HUGE_VAL : -HUGE_VAL), q.y, q.z);
            } else {
                p = gjk_madd(q, 1e-12 * scale, fuzz_direction(in));
            }
            break;
        }
        case 7: /* sphere */
            p = gjk_scale(fuzz_direction(in), scale);
            break;
        case 8: /* lattice */
        {
            int32_t li = fuzz_int(in, -4, 4);
            int32_t lj = fuzz_int(in, -4, 4);
            int32_t lk = fuzz_int(in, -4, 4);
            p = gjk_scale(gjk_v3(li, lj, lk), 0.25 * scale);
        } break;
        }
        out[i] = gjk_add(p, offset);
    }
    return n;
}

/* ------------------------------------------------------------------ check sampling */

/* splitmix64: the checks' own directions, seeded from the input so a crash reproduces. */
typedef struct fuzz_rng {
    uint64_t state;
} fuzz_rng;

static inline fuzz_rng fuzz_rng_from(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < size; ++i) {
        h = (h ^ data[i]) * 0x100000001b3u;
    }
    fuzz_rng r = {h};
    return r;
}

static inline uint64_t fuzz_rng_next(fuzz_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline double fuzz_rng_signed(fuzz_rng *r)
{
    return (double)(fuzz_rng_next(r) >> 11) * 0x1.0p-52 - 1.0;
}

/* Uniform on the unit sphere (rejection from the cube). */
static inline gjk_vec3 fuzz_rng_unit(fuzz_rng *r)
{
    for (;;) {
        gjk_vec3 v = gjk_v3(fuzz_rng_signed(r), fuzz_rng_signed(r), fuzz_rng_signed(r));
        double l = gjk_length(v);
        if (l > 0.1 && l <= 1.0) {
            return gjk_scale(v, 1.0 / l);
        }
    }
}

/* The 26 directions of the 3 x 3 x 3 stencil, then `extra` random ones: out must hold
 * 26 + extra. Returns the count. */
static inline int fuzz_check_directions(fuzz_rng *r, gjk_vec3 *out, int extra)
{
    int n = 0;
    for (int i = -1; i <= 1; ++i) {
        for (int j = -1; j <= 1; ++j) {
            for (int k = -1; k <= 1; ++k) {
                if (i != 0 || j != 0 || k != 0) {
                    out[n++] = gjk_normalize(gjk_v3(i, j, k));
                }
            }
        }
    }
    for (int e = 0; e < extra; ++e) {
        out[n++] = fuzz_rng_unit(r);
    }
    return n;
}

#endif /* GJK_FUZZ_INPUT_H */
