/* gjk/vecmath.h — small value types and inline operations.
 *
 * Units are SI (metres, radians). Quaternions are stored and transmitted everywhere in
 * the order (w, x, y, z). Every operation takes and returns values; none writes through
 * an argument. */
#ifndef GJK_VECMATH_H
#define GJK_VECMATH_H

#include "base.h"

#include <math.h>
#include <stdbool.h>

typedef struct gjk_vec3 {
    double x, y, z;
} gjk_vec3;

/* Rotation quaternion, order (w, x, y, z); w is the scalar part. */
typedef struct gjk_quat {
    double w, x, y, z;
} gjk_quat;

/* Rotation matrix, row-major: m[r][c]. */
typedef struct gjk_mat3 {
    double m[3][3];
} gjk_mat3;

/* Rigid transform: world = rotate(q, local) + p. */
typedef struct gjk_transform {
    gjk_quat q; /* unit rotation (w, x, y, z) */
    gjk_vec3 p; /* translation, metres */
} gjk_transform;

static inline gjk_vec3 gjk_v3(double x, double y, double z)
{
    gjk_vec3 v = {x, y, z};
    return v;
}
static inline gjk_vec3 gjk_add(gjk_vec3 a, gjk_vec3 b) { return gjk_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline gjk_vec3 gjk_sub(gjk_vec3 a, gjk_vec3 b) { return gjk_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline gjk_vec3 gjk_neg(gjk_vec3 a) { return gjk_v3(-a.x, -a.y, -a.z); }
static inline gjk_vec3 gjk_scale(gjk_vec3 a, double s) { return gjk_v3(a.x * s, a.y * s, a.z * s); }
/* a + s * b */
static inline gjk_vec3 gjk_madd(gjk_vec3 a, double s, gjk_vec3 b)
{
    return gjk_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
static inline double gjk_dot(gjk_vec3 a, gjk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline gjk_vec3 gjk_cross(gjk_vec3 a, gjk_vec3 b)
{
    return gjk_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double gjk_length_sq(gjk_vec3 a) { return gjk_dot(a, a); }
static inline double gjk_length(gjk_vec3 a) { return sqrt(gjk_dot(a, a)); }
static inline double gjk_distance_between(gjk_vec3 a, gjk_vec3 b) { return gjk_length(gjk_sub(a, b)); }
/* Unit vector along a; the zero vector for a zero input. */
static inline gjk_vec3 gjk_normalize(gjk_vec3 a)
{
    double l = gjk_length(a);
    return l > 0.0 ? gjk_scale(a, 1.0 / l) : gjk_v3(0.0, 0.0, 0.0);
}
static inline bool gjk_vec3_is_finite(gjk_vec3 a)
{
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

static inline gjk_quat gjk_quat_identity(void)
{
    gjk_quat q = {1.0, 0.0, 0.0, 0.0};
    return q;
}
static inline gjk_quat gjk_quat_make(double w, double x, double y, double z)
{
    gjk_quat q = {w, x, y, z};
    return q;
}
static inline double gjk_quat_norm(gjk_quat q) { return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }
static inline gjk_quat gjk_quat_normalize(gjk_quat q)
{
    double n = gjk_quat_norm(q);
    return n > 0.0 ? gjk_quat_make(q.w / n, q.x / n, q.y / n, q.z / n) : gjk_quat_identity();
}
static inline gjk_quat gjk_quat_conj(gjk_quat q) { return gjk_quat_make(q.w, -q.x, -q.y, -q.z); }
/* Hamilton product a * b (apply b first, then a). */
static inline gjk_quat gjk_quat_mul(gjk_quat a, gjk_quat b)
{
    return gjk_quat_make(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                         a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                         a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                         a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}
/* Unit quaternion for a rotation of `angle` radians about unit `axis`. */
static inline gjk_quat gjk_quat_from_axis_angle(gjk_vec3 axis, double angle)
{
    double s = sin(0.5 * angle);
    return gjk_quat_make(cos(0.5 * angle), axis.x * s, axis.y * s, axis.z * s);
}
/* q v q*, for unit q. */
static inline gjk_vec3 gjk_quat_rotate(gjk_quat q, gjk_vec3 v)
{
    gjk_vec3 u = gjk_v3(q.x, q.y, q.z);
    gjk_vec3 t = gjk_scale(gjk_cross(u, v), 2.0);
    return gjk_add(gjk_madd(v, q.w, t), gjk_cross(u, t));
}
/* q* v q, the inverse rotation, for unit q. */
static inline gjk_vec3 gjk_quat_inv_rotate(gjk_quat q, gjk_vec3 v)
{
    return gjk_quat_rotate(gjk_quat_conj(q), v);
}
/* Rotation matrix of unit quaternion q. */
static inline gjk_mat3 gjk_mat3_from_quat(gjk_quat q)
{
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    gjk_mat3 r = {{{1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)},
                   {2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)},
                   {2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)}}};
    return r;
}
static inline gjk_vec3 gjk_mat3_mul_vec(const gjk_mat3 *r, gjk_vec3 v)
{
    return gjk_v3(r->m[0][0] * v.x + r->m[0][1] * v.y + r->m[0][2] * v.z,
                  r->m[1][0] * v.x + r->m[1][1] * v.y + r->m[1][2] * v.z,
                  r->m[2][0] * v.x + r->m[2][1] * v.y + r->m[2][2] * v.z);
}
/* R^T v */
static inline gjk_vec3 gjk_mat3_tmul_vec(const gjk_mat3 *r, gjk_vec3 v)
{
    return gjk_v3(r->m[0][0] * v.x + r->m[1][0] * v.y + r->m[2][0] * v.z,
                  r->m[0][1] * v.x + r->m[1][1] * v.y + r->m[2][1] * v.z,
                  r->m[0][2] * v.x + r->m[1][2] * v.y + r->m[2][2] * v.z);
}

static inline gjk_transform gjk_transform_identity(void)
{
    gjk_transform t = {{1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    return t;
}
static inline gjk_transform gjk_transform_make(gjk_quat q, gjk_vec3 p)
{
    gjk_transform t = {q, p};
    return t;
}
/* world = q * local + p */
static inline gjk_vec3 gjk_transform_point(gjk_transform t, gjk_vec3 local)
{
    return gjk_add(gjk_quat_rotate(t.q, local), t.p);
}
/* local = q* (world - p) */
static inline gjk_vec3 gjk_inv_transform_point(gjk_transform t, gjk_vec3 world)
{
    return gjk_quat_inv_rotate(t.q, gjk_sub(world, t.p));
}
/* a * b: apply b, then a. */
static inline gjk_transform gjk_transform_mul(gjk_transform a, gjk_transform b)
{
    return gjk_transform_make(gjk_quat_mul(a.q, b.q), gjk_transform_point(a, b.p));
}
/* a^-1 * b: b expressed in a's frame. */
static inline gjk_transform gjk_transform_inv_mul(gjk_transform a, gjk_transform b)
{
    return gjk_transform_make(gjk_quat_mul(gjk_quat_conj(a.q), b.q),
                              gjk_quat_inv_rotate(a.q, gjk_sub(b.p, a.p)));
}

/* Quaternions farther than this from unit norm are rejected as invalid input; closer
 * ones are normalised by every query. */
#define GJK_QUAT_NORM_TOLERANCE 1e-6

/* True when every coordinate of t.p is within GJK_MAX_LENGTH (gjk/base.h) and |q| is within
 * GJK_QUAT_NORM_TOLERANCE of 1 (NaN and Inf fail both). */
static inline bool gjk_transform_is_valid(gjk_transform t)
{
    double n = gjk_quat_norm(t.q);
    return fabs(t.p.x) <= GJK_MAX_LENGTH && fabs(t.p.y) <= GJK_MAX_LENGTH &&
           fabs(t.p.z) <= GJK_MAX_LENGTH && fabs(n - 1.0) <= GJK_QUAT_NORM_TOLERANCE;
}

#endif /* GJK_VECMATH_H */
