/* codec.c — see codec.h. */
#define _POSIX_C_SOURCE 200809L
#include "codec.h"
#include "gjkd_text.h"

#include "gjk/hull.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The wire's status codes 1-9 are the core's status values. */
#define GJKD_CHECK_CODE(name, value, msg)                                                          \
    _Static_assert((int)GJKD_CODE(name) == (int)GJK_STATUS_##name, "wire code " #name);
GJK_STATUS_TABLE(GJKD_CHECK_CODE)
#undef GJKD_CHECK_CODE

gjkd_code gjkd_code_from_status(gjk_status status)
{
    if (status == GJK_WORLD_OK)
        return GJKD_CODE(OK);
    if (status > GJK_STATUS_UNSPECIFIED && status < GJK_STATUS_COUNT)
        return (gjkd_code)status;
    return GJKD_CODE(INTERNAL);
}

const char *gjkd_code_name(gjkd_code code)
{
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value(&gjkd__v1__status_code__descriptor, (int)code);
    /* Enum value names are "STATUS_CODE_OK": skip the prefix. */
    return v != NULL ? v->name + strlen("STATUS_CODE_") : "UNKNOWN";
}

bool gjkd_fail(gjkd_error *error, gjkd_code code, const char *format, ...)
{
    error->code = code;
    char raw[sizeof error->message];
    va_list ap;
    va_start(ap, format);
    vsnprintf(raw, sizeof raw, format, ap);
    va_end(ap);
    gjkd_copy_escaped(error->message, sizeof error->message, raw);
    return false;
}

/* ---------------------------------------------------------------- arena */

struct gjkd_arena_chunk {
    gjkd_arena_chunk *next;
    size_t used, capacity;
    _Alignas(16) unsigned char data[];
};

void *gjkd_arena_alloc(gjkd_arena *arena, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    gjkd_arena_chunk *c = arena->head;
    if (c == NULL || c->capacity - c->used < size) {
        size_t capacity = size > 16384 ? size : 16384;
        c = malloc(sizeof *c + capacity);
        if (c == NULL)
            abort();
        c->next = arena->head;
        c->used = 0;
        c->capacity = capacity;
        arena->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *gjkd_arena_strdup(gjkd_arena *arena, const char *text)
{
    size_t n = strlen(text) + 1;
    char *p = gjkd_arena_alloc(arena, n);
    memcpy(p, text, n);
    return p;
}

void gjkd_arena_free(gjkd_arena *arena)
{
    gjkd_arena_chunk *c = arena->head;
    while (c != NULL) {
        gjkd_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    arena->head = NULL;
}

/* ---------------------------------------------------------------- decoding */

bool gjkd_check_name(const char *name, const char *where, const gjkd_limits *limits,
                     gjkd_error *error)
{
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: name is empty", where);
    if (n > limits->max_name_length || n > GJK_WORLD_NAME_MAX)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "%s: name is %zu bytes, the limit is %u", where, n,
                         limits->max_name_length);
    const unsigned char *p = (const unsigned char *)name;
    while (*p != '\0') {
        size_t k = gjkd_utf8_sequence(p);
        if (k == 0)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: name is not valid UTF-8",
                             where);
        if (gjkd_utf8_is_control(p))
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s: name contains a control character", where);
        p += k;
    }
    return true;
}

/* ---------------------------------------------------------------- wire strings */

enum { WIRE_MAX_DEPTH = 32, WIRE_MAX_COUNTED_FIELDS = 64 };

static bool wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *value)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
            *value = v;
            return true;
        }
    }
    return false;
}

/* Appends ".name" or ".name[i]" to path (cut at its capacity). */
static void wire_path_push(char *path, size_t cap, const ProtobufCFieldDescriptor *f, long index)
{
    size_t n = strlen(path);
    if (index >= 0)
        snprintf(path + n, cap - n, "%s%s[%ld]", n > 0 ? "." : "", f->name, index);
    else
        snprintf(path + n, cap - n, "%s%s", n > 0 ? "." : "", f->name);
}

/* One message's bytes: every string field (at any depth) is checked; anything the walk does not
 * understand is left to the unpacker, which has already accepted these bytes. */
static bool wire_check(const ProtobufCMessageDescriptor *d, const uint8_t *p, const uint8_t *end,
                       int depth, char *path, size_t cap, gjkd_error *error)
{
    if (depth > WIRE_MAX_DEPTH)
        return true;
    uint32_t seen[WIRE_MAX_COUNTED_FIELDS] = {0}; /* occurrences of each repeated field */
    size_t base = strlen(path);
    while (p < end) {
        uint64_t key, len;
        if (!wire_varint(&p, end, &key))
            return true;
        uint32_t number = (uint32_t)(key >> 3);
        switch (key & 7) {
        case 0:
            if (!wire_varint(&p, end, &len))
                return true;
            continue;
        case 1:
            p += (size_t)(end - p) < 8 ? (size_t)(end - p) : 8;
            continue;
        case 5:
            p += (size_t)(end - p) < 4 ? (size_t)(end - p) : 4;
            continue;
        case 2:
            break;
        default:
            return true;
        }
        if (!wire_varint(&p, end, &len) || len > (uint64_t)(end - p))
            return true;
        const uint8_t *value = p;
        p += len;
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(d, number);
        if (f == NULL || (f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE))
            continue;
        long index = -1;
        size_t slot = (size_t)(f - d->fields);
        if (f->label == PROTOBUF_C_LABEL_REPEATED && slot < WIRE_MAX_COUNTED_FIELDS)
            index = (long)seen[slot]++;
        path[base] = '\0';
        wire_path_push(path, cap, f, index);
        if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
            if (!wire_check(f->descriptor, value, value + len, depth + 1, path, cap, error))
                return false;
            continue;
        }
        if (memchr(value, '\0', (size_t)len) != NULL)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s: the string holds a NUL byte (text is compared in full)", path);
    }
    path[base] = '\0';
    return true;
}

bool gjkd_check_wire_strings(const ProtobufCMessageDescriptor *descriptor, const uint8_t *data,
                             size_t size, gjkd_error *error)
{
    char path[192] = "";
    return wire_check(descriptor, data, data + size, 0, path, sizeof path, error);
}

/* The core's accepted range (GJK_MAX_LENGTH, gjk/base.h): sizes in [0, max], coordinates in
 * [-max, max]; NaN and Inf fail. */
static bool check_length(double v, const char *where, const char *field, gjkd_error *error)
{
    if (!(v >= 0.0 && v <= GJK_MAX_LENGTH))
        return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                         "%s.%s: %g is not a length in [0, %g] m", where, field, v,
                         GJK_MAX_LENGTH);
    return true;
}

/* An ellipsoid's radius: a length that is not 0 (the core refuses a flat ellipse). */
static bool check_radius(double v, const char *where, const char *field, gjkd_error *error)
{
    if (!(v > 0.0 && v <= GJK_MAX_LENGTH))
        return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                         "%s.%s: %g is not a radius in (0, %g] m", where, field, v,
                         GJK_MAX_LENGTH);
    return true;
}

static bool coordinates_in_range(gjk_vec3 p)
{
    return fabs(p.x) <= GJK_MAX_LENGTH && fabs(p.y) <= GJK_MAX_LENGTH &&
           fabs(p.z) <= GJK_MAX_LENGTH;
}

/* A quaternion (w, x, y, z) as the wire gives it: finite with unit norm within tolerance, then
 * normalised into *out. False if not; *norm tells which (not finite, or off by how much). */
static bool check_quat(double w, double x, double y, double z, gjk_quat *out, double *norm)
{
    gjk_quat r = gjk_quat_make(w, x, y, z);
    *norm = gjk_quat_norm(r);
    if (!isfinite(*norm) || fabs(*norm - 1.0) > GJK_QUAT_NORM_TOLERANCE)
        return false;
    *out = gjk_quat_normalize(r);
    return true;
}

bool gjkd_decode_pose(const Gjkd__V1__Pose *pose, const char *where, gjk_transform *out,
                      gjkd_error *error)
{
    *out = gjk_transform_identity();
    if (pose == NULL)
        return true;
    if (pose->position != NULL) {
        gjk_vec3 p = gjk_v3(pose->position->x, pose->position->y, pose->position->z);
        if (!coordinates_in_range(p))
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                             "%s.position: not finite or beyond %g m", where, GJK_MAX_LENGTH);
        out->p = p;
    }
    if (pose->orientation != NULL) {
        const Gjkd__V1__Quaternion *q = pose->orientation;
        double n;
        bool unit = check_quat(q->w, q->x, q->y, q->z, &out->q, &n);
        if (!unit && !isfinite(n))
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT), "%s.orientation: not finite", where);
        if (!unit)
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                             "%s.orientation: norm %.9g is not 1 (quaternion order w, x, y, z)",
                             where, n);
    }
    return true;
}

/* A zeroed polytope with a stable address (shapes point at it), listed for release. */
static gjk_polytope *new_polytope(gjkd_body_build *b)
{
    if (b->polytope_count == b->polytope_capacity) {
        int32_t cap = b->polytope_capacity > 0 ? 2 * b->polytope_capacity : 8;
        gjk_polytope **list = realloc(b->polytopes, (size_t)cap * sizeof *list);
        if (list == NULL)
            return NULL;
        b->polytopes = list;
        b->polytope_capacity = cap;
    }
    gjk_polytope *p = gjkd_arena_alloc(&b->arena, sizeof *p);
    b->polytopes[b->polytope_count] = p;
    return p;
}

/* xyz triples -> points, checking count, limit and finiteness. */
static bool decode_points(const double *xyz, size_t n_xyz, const char *where,
                          const gjkd_limits *limits, gjkd_arena *arena, gjk_vec3 **out,
                          int32_t *count, gjkd_error *error)
{
    if (n_xyz == 0 || n_xyz % 3 != 0)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "%s.xyz: %zu values, expected a positive multiple of 3", where, n_xyz);
    size_t n = n_xyz / 3;
    if (n > limits->max_points_per_part)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "%s: %zu points, the limit is %u per part", where, n,
                         limits->max_points_per_part);
    gjk_vec3 *pts = gjkd_arena_alloc(arena, n * sizeof *pts);
    for (size_t i = 0; i < n; ++i) {
        pts[i] = gjk_v3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
        if (!coordinates_in_range(pts[i]))
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                             "%s.xyz: point %zu is not finite or beyond %g m", where, i,
                             GJK_MAX_LENGTH);
    }
    *out = pts;
    *count = (int32_t)n;
    return true;
}

static bool decode_shape(const Gjkd__V1__Shape *m, const char *where, const gjkd_limits *limits,
                         gjkd_body_build *b, gjk_shape *out, gjkd_error *error)
{
    if (m == NULL)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: missing", where);
    if (!check_length(m->margin, where, "margin", error))
        return false;
    char sub[256];
    switch (m->kind_case) {
    case GJKD__V1__SHAPE__KIND_POINT:
        *out = gjk_make_point();
        break;
    case GJKD__V1__SHAPE__KIND_SPHERE:
        if (!check_length(m->sphere->radius, where, "sphere.radius", error))
            return false;
        *out = gjk_make_sphere(m->sphere->radius);
        break;
    case GJKD__V1__SHAPE__KIND_CAPSULE:
        if (!check_length(m->capsule->radius, where, "capsule.radius", error) ||
            !check_length(m->capsule->half_height, where, "capsule.half_height", error))
            return false;
        *out = gjk_make_capsule(m->capsule->radius, m->capsule->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_BOX: {
        const Gjkd__V1__Vec3 *h = m->box->half_extents;
        if (h == NULL)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.box.half_extents: missing",
                             where);
        if (!check_length(h->x, where, "box.half_extents.x", error) ||
            !check_length(h->y, where, "box.half_extents.y", error) ||
            !check_length(h->z, where, "box.half_extents.z", error))
            return false;
        *out = gjk_make_box(gjk_v3(h->x, h->y, h->z));
        break;
    }
    case GJKD__V1__SHAPE__KIND_CYLINDER:
        if (!check_length(m->cylinder->radius, where, "cylinder.radius", error) ||
            !check_length(m->cylinder->half_height, where, "cylinder.half_height", error))
            return false;
        *out = gjk_make_cylinder(m->cylinder->radius, m->cylinder->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_CONE:
        if (!check_length(m->cone->radius, where, "cone.radius", error) ||
            !check_length(m->cone->half_height, where, "cone.half_height", error))
            return false;
        *out = gjk_make_cone(m->cone->radius, m->cone->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_ELLIPSOID: {
        const Gjkd__V1__Vec3 *r = m->ellipsoid->radii;
        if (r == NULL)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.ellipsoid.radii: missing",
                             where);
        if (!check_radius(r->x, where, "ellipsoid.radii.x", error) ||
            !check_radius(r->y, where, "ellipsoid.radii.y", error) ||
            !check_radius(r->z, where, "ellipsoid.radii.z", error))
            return false;
        *out = gjk_make_ellipsoid(gjk_v3(r->x, r->y, r->z));
        break;
    }
    case GJKD__V1__SHAPE__KIND_HULL: {
        snprintf(sub, sizeof sub, "%s.hull", where);
        gjk_vec3 *pts;
        int32_t n;
        if (!decode_points(m->hull->xyz, m->hull->n_xyz, sub, limits, &b->arena, &pts, &n, error))
            return false;
        gjk_polytope *p = new_polytope(b);
        if (p == NULL)
            return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "%s: out of memory", sub);
        gjk_status s = gjk_hull_build(p, pts, n, NULL);
        if (s != GJK_STATUS_SEPARATED)
            return gjkd_fail(error, gjkd_code_from_status(s), "%s: hull of %d points failed: %s",
                             sub, n, gjk_status_message(s));
        b->polytope_count++;
        b->hull_vertices += (uint32_t)p->count;
        *out = gjk_make_polytope(p);
        break;
    }
    case GJKD__V1__SHAPE__KIND_CONVEX: {
        snprintf(sub, sizeof sub, "%s.convex", where);
        const Gjkd__V1__ConvexVertices *c = m->convex;
        gjk_vec3 *pts;
        int32_t n;
        if (!decode_points(c->xyz, c->n_xyz, sub, limits, &b->arena, &pts, &n, error))
            return false;
        const int32_t *start = NULL, *adj = NULL;
        if (c->n_adjacency_start != 0 || c->n_adjacency != 0) {
            if (c->n_adjacency_start != (size_t)n + 1)
                return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                 "%s.adjacency_start: %zu offsets, expected %d", sub,
                                 c->n_adjacency_start, n + 1);
            if (c->adjacency_start[0] != 0 || (size_t)c->adjacency_start[n] != c->n_adjacency)
                return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                 "%s.adjacency_start: must run from 0 to %zu", sub, c->n_adjacency);
            for (int32_t i = 0; i < n; ++i)
                if (c->adjacency_start[i + 1] < c->adjacency_start[i])
                    return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                     "%s.adjacency_start: decreasing at %d", sub, i);
            for (size_t i = 0; i < c->n_adjacency; ++i)
                if (c->adjacency[i] < 0 || c->adjacency[i] >= n)
                    return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                     "%s.adjacency[%zu]: %d is not a vertex index", sub, i,
                                     c->adjacency[i]);
            start = c->adjacency_start;
            adj = c->adjacency;
        }
        gjk_polytope *p = new_polytope(b);
        if (p == NULL)
            return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "%s: out of memory", sub);
        gjk_status s = gjk_polytope_create(p, pts, n, start, adj);
        if (s != GJK_STATUS_SEPARATED)
            return gjkd_fail(error, gjkd_code_from_status(s), "%s: %s", sub, gjk_status_message(s));
        b->polytope_count++;
        b->hull_vertices += (uint32_t)p->count;
        *out = gjk_make_polytope(p);
        break;
    }
    case GJKD__V1__SHAPE__KIND__NOT_SET:
    default:
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: no shape kind set", where);
    }
    out->margin = m->margin;
    gjk_status s = gjk_shape_validate(out);
    if (s != GJK_STATUS_SEPARATED)
        return gjkd_fail(error, gjkd_code_from_status(s), "%s: %s", where, gjk_status_message(s));
    return true;
}

static bool decode_parts(Gjkd__V1__Part *const *parts, size_t n_parts, const char *where,
                         const gjkd_limits *limits, gjkd_body_build *b, gjk_part_def **out,
                         int32_t *count, gjkd_error *error)
{
    if (n_parts > limits->max_parts_per_body || n_parts > GJK_WORLD_MAX_PARTS)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "%s.parts: %zu parts, the limit is %u", where, n_parts,
                         limits->max_parts_per_body);
    gjk_part_def *defs = gjkd_arena_alloc(&b->arena, (n_parts > 0 ? n_parts : 1) * sizeof *defs);
    char sub[200];
    for (size_t i = 0; i < n_parts; ++i) {
        const Gjkd__V1__Part *p = parts[i];
        snprintf(sub, sizeof sub, "%s.parts[%zu]", where, i);
        if (p->name[0] != '\0') {
            char sub_name[220];
            snprintf(sub_name, sizeof sub_name, "%s.name", sub);
            if (!gjkd_check_name(p->name, sub_name, limits, error))
                return false;
            for (size_t j = 0; j < i; ++j)
                if (strcmp(parts[j]->name, p->name) == 0)
                    return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                     "%s.name: duplicate part name '%s'", sub, p->name);
            defs[i].name = p->name;
        } else {
            char generated[24];
            snprintf(generated, sizeof generated, "#%zu", i);
            defs[i].name = gjkd_arena_strdup(&b->arena, generated);
        }
        char sub_shape[220], sub_pose[220];
        snprintf(sub_shape, sizeof sub_shape, "%s.shape", sub);
        snprintf(sub_pose, sizeof sub_pose, "%s.pose", sub);
        if (!decode_shape(p->shape, sub_shape, limits, b, &defs[i].shape, error) ||
            !gjkd_decode_pose(p->pose, sub_pose, &defs[i].pose, error))
            return false;
    }
    *out = defs;
    *count = (int32_t)n_parts;
    return true;
}

void gjkd_body_build_release(gjkd_body_build *build)
{
    for (int32_t i = 0; i < build->polytope_count; ++i)
        gjk_polytope_destroy(build->polytopes[i]);
    free(build->polytopes);
    gjkd_arena_free(&build->arena);
    memset(build, 0, sizeof *build);
}

static int32_t find_link(Gjkd__V1__Link *const *links, size_t n, const char *name)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(links[i]->name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* The JointType numbers are the core's plus one (0 is "unspecified" on the wire). */
static bool joint_type(Gjkd__V1__JointType t, gjk_joint_type *out)
{
    switch (t) {
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED:
        *out = GJK_JOINT_FIXED;
        return true;
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE:
        *out = GJK_JOINT_REVOLUTE;
        return true;
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_CONTINUOUS:
        *out = GJK_JOINT_CONTINUOUS;
        return true;
    case GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC:
        *out = GJK_JOINT_PRISMATIC;
        return true;
    default:
        return false;
    }
}

/* Robot.joints, base_pose and initial_positions into out->robot: link names to indices, then
 * the kinematics builder's own validation (so that every refusal names the joint and says why,
 * in its words), then the initial positions against the limits. */
static bool decode_joints(const Gjkd__V1__Robot *m, gjkd_body_build *out, gjkd_error *error)
{
    if (m->n_joints > GJK_KINEMATICS_MAX_LINKS)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED), "robot.joints: %zu joints",
                         m->n_joints);
    gjk_joint_def *defs = gjkd_arena_alloc(&out->arena, m->n_joints * sizeof *defs);
    char where[320];
    for (size_t i = 0; i < m->n_joints; ++i) {
        const Gjkd__V1__Joint *j = m->joints[i];
        gjk_joint_def *d = &defs[i];
        snprintf(where, sizeof where, "robot.joints[%zu] \"%.255s\"", i, j->name);
        if (!joint_type(j->type, &d->type))
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.type: %s", where,
                             j->type == 0 ? "missing" : "unknown value");
        d->name = j->name;
        d->parent = find_link(m->links, m->n_links, j->parent);
        d->child = find_link(m->links, m->n_links, j->child);
        if (d->parent < 0 || d->child < 0)
            return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s.%s: no link named '%s' in this robot",
                             where, d->parent < 0 ? "parent" : "child",
                             d->parent < 0 ? j->parent : j->child);
        char sub[340];
        snprintf(sub, sizeof sub, "%s.origin", where);
        if (!gjkd_decode_pose(j->origin, sub, &d->origin, error))
            return false;
        bool moving = d->type != GJK_JOINT_FIXED;
        if (moving && j->axis == NULL)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.axis: missing", where);
        if (j->axis != NULL)
            d->axis = gjk_v3(j->axis->x, j->axis->y, j->axis->z);
        bool limited = d->type == GJK_JOINT_REVOLUTE || d->type == GJK_JOINT_PRISMATIC;
        if (limited && j->limits == NULL)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s.limits: required for a %s joint", where,
                             d->type == GJK_JOINT_REVOLUTE ? "revolute" : "prismatic");
        if (j->limits != NULL) {
            d->lower = j->limits->lower;
            d->upper = j->limits->upper;
        }
        if (j->mimic != NULL) {
            if (j->mimic->joint[0] == '\0')
                return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.mimic.joint: missing",
                                 where);
            d->mimic = j->mimic->joint;
            d->multiplier = j->mimic->multiplier;
            d->offset = j->mimic->offset;
        }
    }
    gjk_kinematics_def kd = {(int32_t)m->n_links, defs, (int32_t)m->n_joints};
    gjk_kinematics *k = NULL;
    gjk_kinematics_error e;
    gjk_status s = gjk_kinematics_build(&kd, &k, &e);
    if (s != GJK_KINEMATICS_OK) {
        if (e.code == GJK_KIN_OUT_OF_MEMORY)
            return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "robot.joints: out of memory");
        if (e.joint >= 0 && e.link >= 0)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "robot.joints[%d] \"%.255s\": %s (link '%.255s')", e.joint,
                             m->joints[e.joint]->name, e.reason, m->links[e.link]->name);
        if (e.joint >= 0)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robot.joints[%d] \"%.255s\": %s",
                             e.joint, m->joints[e.joint]->name, e.reason);
        if (e.link >= 0)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robot.links[%d] \"%.255s\": %s",
                             e.link, m->links[e.link]->name, e.reason);
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robot.joints: %s", e.reason);
    }
    int32_t dofs = gjk_kinematics_dof_count(k);
    gjk_transform base;
    bool ok = gjkd_decode_pose(m->base_pose, "robot.base_pose", &base, error);
    double *q = NULL;
    if (ok && m->n_initial_positions > 0) {
        if (m->n_initial_positions != (size_t)dofs) {
            ok = gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                           "robot.initial_positions: %zu values for %d degrees of freedom",
                           m->n_initial_positions, dofs);
        } else {
            q = gjkd_arena_alloc(&out->arena, (size_t)dofs * sizeof *q);
            memcpy(q, m->initial_positions, (size_t)dofs * sizeof *q);
            gjk_kinematics_state *st = NULL;
            int32_t bad = -1;
            if (gjk_kinematics_state_create(k, &st) != GJK_KINEMATICS_OK)
                ok = gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "robot.joints: out of memory");
            else if (gjk_kinematics_forward(k, q, dofs, base, st, &bad) != GJK_KINEMATICS_OK &&
                     bad >= 0) {
                gjk_joint_info info;
                gjk_kinematics_joint_info(k, bad, &info);
                ok = gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                               "robot.initial_positions[%d]: joint '%.255s': %g is outside its "
                               "limits [%g, %g]",
                               info.dof, info.name, q[info.dof], info.lower, info.upper);
            }
            gjk_kinematics_state_destroy(&st);
        }
    }
    gjk_kinematics_destroy(&k);
    if (!ok)
        return false;
    gjk_transform *b = gjkd_arena_alloc(&out->arena, sizeof *b);
    *b = base;
    out->robot.joints = defs;
    out->robot.joint_count = (int32_t)m->n_joints;
    out->robot.base_pose = b;
    out->robot.initial_positions = q;
    return true;
}

bool gjkd_decode_robot(const Gjkd__V1__Robot *m, const gjkd_limits *limits, gjkd_body_build *out,
                       gjkd_error *error)
{
    memset(out, 0, sizeof *out);
    bool ok = false;
    if (m == NULL) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robot: missing");
        goto done;
    }
    if (!gjkd_check_name(m->name, "robot.name", limits, error) ||
        !check_length(m->padding, "robot", "padding", error))
        goto done;
    if (m->n_links == 0) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robot.links: a robot needs a link");
        goto done;
    }
    if (m->n_links > limits->max_links_per_robot || m->n_links > GJK_WORLD_MAX_LINKS) {
        gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED), "robot.links: %zu links, the limit is %u",
                  m->n_links, limits->max_links_per_robot);
        goto done;
    }
    gjk_link_def *links = gjkd_arena_alloc(&out->arena, m->n_links * sizeof *links);
    char where[96];
    for (size_t i = 0; i < m->n_links; ++i) {
        const Gjkd__V1__Link *l = m->links[i];
        snprintf(where, sizeof where, "robot.links[%zu]", i);
        char sub[120];
        snprintf(sub, sizeof sub, "%s.name", where);
        if (!gjkd_check_name(l->name, sub, limits, error) ||
            !check_length(l->padding, where, "padding", error))
            goto done;
        if (find_link(m->links, i, l->name) >= 0) {
            gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: duplicate link name '%s'", sub,
                      l->name);
            goto done;
        }
        gjk_part_def *parts;
        int32_t count;
        if (!decode_parts(l->parts, l->n_parts, where, limits, out, &parts, &count, error))
            goto done;
        links[i].name = l->name;
        links[i].parts = parts;
        links[i].part_count = count;
        links[i].padding = l->padding + m->padding;
    }
    gjk_link_name_pair *pairs =
        gjkd_arena_alloc(&out->arena, (m->n_disabled_pairs + 1) * sizeof *pairs);
    for (size_t i = 0; i < m->n_disabled_pairs; ++i) {
        const Gjkd__V1__LinkPair *p = m->disabled_pairs[i];
        if (find_link(m->links, m->n_links, p->a) < 0 ||
            find_link(m->links, m->n_links, p->b) < 0) {
            gjkd_fail(error, GJKD_CODE(NOT_FOUND),
                      "robot.disabled_pairs[%zu]: no link named '%s' in this robot", i,
                      find_link(m->links, m->n_links, p->a) < 0 ? p->a : p->b);
            goto done;
        }
        if (strcmp(p->a, p->b) == 0) {
            gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                      "robot.disabled_pairs[%zu]: a link paired with itself", i);
            goto done;
        }
        pairs[i].a = p->a;
        pairs[i].b = p->b;
    }
    if (m->n_joints > 0 && !decode_joints(m, out, error))
        goto done;
    if (m->n_joints == 0 && (m->base_pose != NULL || m->n_initial_positions > 0)) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robot.%s: only a robot with joints has it",
                  m->base_pose != NULL ? "base_pose" : "initial_positions");
        goto done;
    }
    gjk_transform *poses = NULL;
    if (m->n_initial_link_poses != 0 && m->n_joints > 0) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                  "robot.initial_link_poses: not allowed with joints (give initial_positions)");
        goto done;
    }
    if (m->n_initial_link_poses != 0) {
        if (m->n_initial_link_poses != m->n_links) {
            gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                      "robot.initial_link_poses: %zu poses for %zu links", m->n_initial_link_poses,
                      m->n_links);
            goto done;
        }
        poses = gjkd_arena_alloc(&out->arena, m->n_links * sizeof *poses);
        for (size_t i = 0; i < m->n_links; ++i) {
            snprintf(where, sizeof where, "robot.initial_link_poses[%zu]", i);
            if (!gjkd_decode_pose(m->initial_link_poses[i], where, &poses[i], error))
                goto done;
        }
    }
    out->robot.name = m->name;
    out->robot.links = links;
    out->robot.link_count = (int32_t)m->n_links;
    out->robot.self_collision = m->self_collision;
    out->robot.disabled_pairs = pairs;
    out->robot.disabled_pair_count = (int32_t)m->n_disabled_pairs;
    out->robot.link_poses = poses;
    ok = true;
done:
    if (!ok)
        gjkd_body_build_release(out);
    return ok;
}

bool gjkd_decode_obstacle(const Gjkd__V1__Obstacle *m, const gjkd_limits *limits,
                          gjkd_body_build *out, gjkd_error *error)
{
    memset(out, 0, sizeof *out);
    bool ok = false;
    gjk_part_def *parts;
    int32_t count;
    if (m == NULL) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "obstacle: missing");
        goto done;
    }
    if (!gjkd_check_name(m->name, "obstacle.name", limits, error) ||
        !check_length(m->padding, "obstacle", "padding", error))
        goto done;
    if (m->n_parts == 0) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "obstacle.parts: an obstacle needs a part");
        goto done;
    }
    if (!decode_parts(m->parts, m->n_parts, "obstacle", limits, out, &parts, &count, error) ||
        !gjkd_decode_pose(m->pose, "obstacle.pose", &out->obstacle.pose, error))
        goto done;
    out->obstacle.name = m->name;
    out->obstacle.parts = parts;
    out->obstacle.part_count = count;
    out->obstacle.padding = m->padding;
    ok = true;
done:
    if (!ok)
        gjkd_body_build_release(out);
    return ok;
}

/* `link_count` poses of 7 values each (px py pz qw qx qy qz) from v[]; `where` and `field`
 * name them in messages ("waypoints[3]", ".link_poses.xyz_wxyz"). */
static bool decode_pose_values(const double *values, int32_t link_count, const char *where,
                               const char *field, gjk_transform *out, gjkd_error *error)
{
    for (int32_t i = 0; i < link_count; ++i) {
        const double *v = values + 7 * (size_t)i;
        gjk_vec3 p = gjk_v3(v[0], v[1], v[2]);
        if (!coordinates_in_range(p))
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                             "%s%s: pose %d: position not finite or beyond %g m", where, field, i,
                             GJK_MAX_LENGTH);
        double norm;
        bool unit = check_quat(v[3], v[4], v[5], v[6], &out[i].q, &norm);
        if (!unit && !isfinite(norm))
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                             "%s%s: pose %d: orientation not finite", where, field, i);
        if (!unit)
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                             "%s%s: pose %d: orientation norm %.9g is not 1 "
                             "(values px py pz qw qx qy qz)",
                             where, field, i, norm);
        out[i].p = p;
    }
    return true;
}

/* The packed encoding: 7 values per pose, px py pz qw qx qy qz. */
static bool decode_packed_poses(const Gjkd__V1__LinkPoses *m, int32_t link_count, const char *where,
                                gjk_transform *out, gjkd_error *error)
{
    size_t n = m->n_xyz_wxyz;
    if (n % 7 != 0)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "%s.link_poses.xyz_wxyz: %zu values, expected 7 per pose "
                         "(px py pz qw qx qy qz)",
                         where, n);
    if (n / 7 != (size_t)link_count)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "%s.link_poses.xyz_wxyz: %zu poses for a robot of %d links", where, n / 7,
                         link_count);
    return decode_pose_values(m->xyz_wxyz, link_count, where, ".link_poses.xyz_wxyz", out, error);
}

bool gjkd_decode_waypoint_poses(const double *values, size_t waypoint_count, int32_t link_count,
                                gjk_transform *out, gjkd_error *error)
{
    size_t stride = 7 * (size_t)link_count;
    for (size_t w = 0; w < waypoint_count; ++w) {
        gjk_transform *o = out + w * (size_t)link_count;
        if (!decode_pose_values(values + w * stride, link_count, "", "", o, error)) {
            /* Formatted only for a failure: this runs for every waypoint. */
            char where[64];
            snprintf(where, sizeof where, "waypoint_xyz_wxyz: waypoint %zu", w);
            return decode_pose_values(values + w * stride, link_count, where, "", o, error);
        }
    }
    return true;
}

bool gjkd_decode_link_poses(const Gjkd__V1__LinkPoses *poses, int32_t link_count, const char *where,
                            gjk_transform *out, gjkd_error *error)
{
    if (poses == NULL)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.link_poses: missing", where);
    if (poses->n_xyz_wxyz != 0) {
        if (poses->n_poses != 0)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s.link_poses: give poses or xyz_wxyz, not both", where);
        return decode_packed_poses(poses, link_count, where, out, error);
    }
    if (poses->n_poses != (size_t)link_count)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "%s.link_poses: %zu poses for a robot of %d links", where, poses->n_poses,
                         link_count);
    /* The field name is only formatted for a failure (this runs per waypoint and link). */
    for (int32_t i = 0; i < link_count; ++i) {
        if (!gjkd_decode_pose(poses->poses[i], "", &out[i], error)) {
            char sub[200];
            snprintf(sub, sizeof sub, "%s.link_poses[%d]", where, i);
            return gjkd_decode_pose(poses->poses[i], sub, &out[i], error);
        }
    }
    return true;
}

bool gjkd_decode_query_options(const Gjkd__V1__QueryOptions *m, const gjkd_limits *limits,
                               int32_t query_threads, gjk_world_query_options *out,
                               gjkd_error *error)
{
    /* Field for field: the zero (absent) value of every wire field is the zero of the C
     * field, each the default (gjk/world.h, Defaults); then the daemon's own settings. */
    memset(out, 0, sizeof *out);
    out->max_pairs = (int32_t)limits->max_pairs_returned;
    out->threads = query_threads;
    if (m == NULL)
        return true;
    if (m->max_distance_opt_case == GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE) {
        if (isnan(m->max_distance) || m->max_distance < 0.0)
            return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                             "options.max_distance: %g is not a distance >= 0", m->max_distance);
        out->has_max_distance = true;
        out->max_distance = m->max_distance;
    }
    /* The QueryMode numbers are the world's gjk_world_mode numbers. */
    _Static_assert(
        (int)GJKD__V1__QUERY_MODE__QUERY_MODE_UNSPECIFIED == (int)GJK_WORLD_MODE_UNSPECIFIED &&
            (int)GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST == (int)GJK_WORLD_MODE_CLOSEST &&
            (int)GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN == (int)GJK_WORLD_MODE_ALL_WITHIN &&
            (int)GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION ==
                (int)GJK_WORLD_MODE_FIRST_COLLISION,
        "query mode numbers");
    switch (m->mode) {
    case GJKD__V1__QUERY_MODE__QUERY_MODE_UNSPECIFIED:
    case GJKD__V1__QUERY_MODE__QUERY_MODE_CLOSEST:
    case GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN:
    case GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION:
        out->mode = (gjk_world_mode)m->mode;
        break;
    default:
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "options.mode: unknown value %d",
                         (int)m->mode);
    }
    if ((m->pair_kinds & ~7u) != 0)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "options.pair_kinds: unknown bits 0x%x", m->pair_kinds & ~7u);
    /* The PairKind bits are the world's GJK_WORLD_PAIRS_* bits (0 = all, in both). */
    _Static_assert(GJKD__V1__PAIR_KIND__PAIR_KIND_ROBOT_OBSTACLE ==
                           GJK_WORLD_PAIRS_ROBOT_OBSTACLE &&
                       GJKD__V1__PAIR_KIND__PAIR_KIND_SELF == GJK_WORLD_PAIRS_SELF &&
                       GJKD__V1__PAIR_KIND__PAIR_KIND_ROBOT_ROBOT == GJK_WORLD_PAIRS_ROBOT_ROBOT,
                   "pair kind bits");
    out->pairs = m->pair_kinds;
    out->no_penetration_depth = m->no_penetration_depth;
    out->gradients = m->gradients;
    out->per_part = m->per_part;
    if (m->max_pairs > limits->max_pairs_returned)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "options.max_pairs: %u, the limit is %u", m->max_pairs,
                         limits->max_pairs_returned);
    if (m->max_pairs != 0)
        out->max_pairs = (int32_t)m->max_pairs;
    return true;
}

/* ---------------------------------------------------------------- encoding */

Gjkd__V1__Vec3 *gjkd_encode_vec3(gjkd_arena *arena, gjk_vec3 v)
{
    Gjkd__V1__Vec3 *m = gjkd_arena_alloc(arena, sizeof *m);
    gjkd__v1__vec3__init(m);
    m->x = v.x;
    m->y = v.y;
    m->z = v.z;
    return m;
}

Gjkd__V1__Pose *gjkd_encode_pose(gjkd_arena *arena, gjk_transform t)
{
    Gjkd__V1__Pose *m = gjkd_arena_alloc(arena, sizeof *m);
    gjkd__v1__pose__init(m);
    m->position = gjkd_encode_vec3(arena, t.p);
    Gjkd__V1__Quaternion *q = gjkd_arena_alloc(arena, sizeof *q);
    gjkd__v1__quaternion__init(q);
    q->w = t.q.w;
    q->x = t.q.x;
    q->y = t.q.y;
    q->z = t.q.z;
    m->orientation = q;
    return m;
}

static Gjkd__V1__BodyRef *encode_body(gjkd_arena *arena, const gjk_world_side *side)
{
    Gjkd__V1__BodyRef *m = gjkd_arena_alloc(arena, sizeof *m);
    gjkd__v1__body_ref__init(m);
    if (side->body.kind == GJK_BODY_LINK) {
        m->robot = gjkd_arena_strdup(arena, side->object_name);
        m->link = gjkd_arena_strdup(arena, side->body_name);
    } else {
        m->obstacle = gjkd_arena_strdup(arena, side->body_name);
    }
    return m;
}

/* QueryOptions.gradients: the pair's d(distance)/dq (the arrays point into the arena). */
static void encode_gradients(gjkd_arena *arena, const gjk_world_pair *pair, Gjkd__V1__PairResult *m)
{
    if (pair->gradient_a_count > 0) {
        m->n_gradient_a = (size_t)pair->gradient_a_count;
        m->gradient_a = gjkd_arena_alloc(arena, m->n_gradient_a * sizeof(double));
        memcpy(m->gradient_a, pair->gradient_a, m->n_gradient_a * sizeof(double));
    }
    if (pair->gradient_b_count > 0) {
        m->n_gradient_b = (size_t)pair->gradient_b_count;
        m->gradient_b = gjkd_arena_alloc(arena, m->n_gradient_b * sizeof(double));
        memcpy(m->gradient_b, pair->gradient_b, m->n_gradient_b * sizeof(double));
    }
    m->subgradient = pair->subgradient;
}

Gjkd__V1__PairResult *gjkd_encode_pair(gjkd_arena *arena, const gjk_world_pair *pair)
{
    Gjkd__V1__PairResult *m = gjkd_arena_alloc(arena, sizeof *m);
    gjkd__v1__pair_result__init(m);
    m->body_a = encode_body(arena, &pair->a);
    m->part_a = gjkd_arena_strdup(arena, pair->a.part_name);
    m->body_a_id = (uint32_t)pair->a.body.object;
    m->part_a_index = (uint32_t)pair->a.part;
    m->link_a_index = pair->a.body.link;
    m->body_b = encode_body(arena, &pair->b);
    m->part_b = gjkd_arena_strdup(arena, pair->b.part_name);
    m->body_b_id = (uint32_t)pair->b.body.object;
    m->part_b_index = (uint32_t)pair->b.part;
    m->link_b_index = pair->b.body.kind == GJK_BODY_LINK ? pair->b.body.link : -1;
    m->distance = pair->distance;
    m->point_a = gjkd_encode_vec3(arena, pair->a.point);
    m->point_b = gjkd_encode_vec3(arena, pair->b.point);
    m->local_point_a = gjkd_encode_vec3(arena, pair->a.local_point);
    m->local_point_b = gjkd_encode_vec3(arena, pair->b.local_point);
    m->normal = gjkd_encode_vec3(arena, pair->normal);
    m->status = (gjkd_code)pair->status; /* a pair result, not a call status */
    m->iterations = pair->iterations;
    m->epa_iterations = pair->epa_iterations;
    m->padding = pair->padding;
    m->part_pair_count = (uint32_t)pair->part_pair_count;
    encode_gradients(arena, pair, m);
    return m;
}

/* A waypoint; with_closest false leaves its pairs out (the compact form adds them). */
static void encode_state(gjkd_arena *arena, const gjk_world_waypoint *w, bool all_pairs,
                         bool with_closest, Gjkd__V1__StateResult *out);

void gjkd_encode_state(gjkd_arena *arena, const gjk_world_waypoint *w, bool all_pairs,
                       Gjkd__V1__StateResult *out)
{
    encode_state(arena, w, all_pairs, true, out);
}

static void encode_state(gjkd_arena *arena, const gjk_world_waypoint *w, bool all_pairs,
                         bool with_closest, Gjkd__V1__StateResult *out)
{
    gjkd__v1__state_result__init(out);
    out->evaluated = w->evaluated;
    if (!w->evaluated)
        return;
    if (isfinite(w->min_distance)) {
        out->min_distance_opt_case = GJKD__V1__STATE_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE;
        out->min_distance = w->min_distance;
    }
    if (w->pair_count > 0 && with_closest)
        out->closest = gjkd_encode_pair(arena, &w->pairs[0]);
    if (all_pairs && w->pair_count > 0) {
        out->n_pairs = (size_t)w->pair_count;
        out->pairs = gjkd_arena_alloc(arena, out->n_pairs * sizeof *out->pairs);
        out->pairs[0] = out->closest;
        for (int32_t i = 1; i < w->pair_count; ++i)
            out->pairs[i] = gjkd_encode_pair(arena, &w->pairs[i]);
    }
    out->colliding = w->collision;
    out->pairs_checked = (uint32_t)w->counters.pairs_narrow;
    out->pairs_candidate = (uint32_t)w->counters.pairs_candidate;
    out->truncated = w->truncated;
}

static void encode_trajectory(gjkd_arena *arena, const gjk_world_result *r, bool all_pairs,
                              bool with_closest, Gjkd__V1__TrajectoryResult *out);
static void encode_summary(const gjk_world_result *r, uint32_t colliding,
                           Gjkd__V1__TrajectoryResult *out);

void gjkd_encode_trajectory(gjkd_arena *arena, const gjk_world_result *r, bool all_pairs,
                            Gjkd__V1__TrajectoryResult *out)
{
    encode_trajectory(arena, r, all_pairs, true, out);
}

static void encode_trajectory(gjkd_arena *arena, const gjk_world_result *r, bool all_pairs,
                              bool with_closest, Gjkd__V1__TrajectoryResult *out)
{
    gjkd__v1__trajectory_result__init(out);
    out->n_waypoints = (size_t)r->waypoint_count;
    out->waypoints = gjkd_arena_alloc(arena, (out->n_waypoints + 1) * sizeof *out->waypoints);
    uint32_t colliding = 0;
    for (int32_t i = 0; i < r->waypoint_count; ++i) {
        Gjkd__V1__StateResult *s = gjkd_arena_alloc(arena, sizeof *s);
        encode_state(arena, &r->waypoints[i], all_pairs, with_closest, s);
        out->waypoints[i] = s;
        colliding += r->waypoints[i].evaluated && r->waypoints[i].collision;
    }
    encode_summary(r, colliding, out);
}

/* The trajectory's own fields (minimum, where, first collision, cache hit), every form. */
static void encode_summary(const gjk_world_result *r, uint32_t colliding,
                           Gjkd__V1__TrajectoryResult *out)
{
    if (isfinite(r->min_distance)) {
        out->min_distance_opt_case = GJKD__V1__TRAJECTORY_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE;
        out->min_distance = r->min_distance;
    }
    out->min_waypoint = r->min_waypoint >= 0 ? (uint32_t)r->min_waypoint : 0;
    out->first_collision = r->first_collision;
    out->colliding_waypoints = colliding;
    out->trajectory_cache_hit = r->trajectory_cache_hit;
}

/* ---------------------------------------------------------------- compact trajectories */

/* Distinct pairs of one reply, found by an open-addressing hash on the pair's identity. */
typedef struct pair_table {
    const gjk_world_pair **keys;    /* first occurrence of each entry */
    Gjkd__V1__PairResult **entries; /* names, ids, indices, padding */
    uint32_t *slots;                /* entry index + 1; 0 = empty */
    size_t count, mask;
} pair_table;

static bool same_side(const gjk_world_side *x, const gjk_world_side *y)
{
    return x->body.kind == y->body.kind && x->body.object == y->body.object &&
           (x->body.kind != GJK_BODY_LINK || x->body.link == y->body.link) && x->part == y->part;
}

static uint64_t side_hash(const gjk_world_side *s, uint64_t h)
{
    int32_t link = s->body.kind == GJK_BODY_LINK ? s->body.link : -1;
    int32_t v[4] = {(int32_t)s->body.kind, s->body.object, link, s->part};
    for (int i = 0; i < 4; ++i)
        h = (h ^ (uint32_t)v[i]) * 0x100000001b3ull; /* FNV-1a over the ints */
    return h;
}

/* The table index of `pair`, adding an entry the first time. */
static uint32_t pair_table_index(gjkd_arena *arena, pair_table *t, const gjk_world_pair *pair)
{
    size_t i = (size_t)side_hash(&pair->b, side_hash(&pair->a, 0xcbf29ce484222325ull)) & t->mask;
    while (t->slots[i] != 0) {
        const gjk_world_pair *k = t->keys[t->slots[i] - 1];
        if (same_side(&k->a, &pair->a) && same_side(&k->b, &pair->b))
            return t->slots[i] - 1;
        i = (i + 1) & t->mask;
    }
    Gjkd__V1__PairResult *m = gjkd_arena_alloc(arena, sizeof *m);
    gjkd__v1__pair_result__init(m);
    m->body_a = encode_body(arena, &pair->a);
    m->part_a = gjkd_arena_strdup(arena, pair->a.part_name);
    m->body_a_id = (uint32_t)pair->a.body.object;
    m->part_a_index = (uint32_t)pair->a.part;
    m->link_a_index = pair->a.body.link;
    m->body_b = encode_body(arena, &pair->b);
    m->part_b = gjkd_arena_strdup(arena, pair->b.part_name);
    m->body_b_id = (uint32_t)pair->b.body.object;
    m->part_b_index = (uint32_t)pair->b.part;
    m->link_b_index = pair->b.body.kind == GJK_BODY_LINK ? pair->b.body.link : -1;
    m->padding = pair->padding;
    t->keys[t->count] = pair;
    t->entries[t->count] = m;
    t->slots[i] = (uint32_t)(++t->count);
    return (uint32_t)(t->count - 1);
}

static void put_geometry(double *g, const gjk_world_pair *pair);

static Gjkd__V1__PairResult *encode_compact_pair(gjkd_arena *arena, pair_table *t,
                                                 const gjk_world_pair *pair)
{
    Gjkd__V1__PairResult *m = gjkd_arena_alloc(arena, sizeof *m);
    gjkd__v1__pair_result__init(m);
    m->pair_index = pair_table_index(arena, t, pair);
    m->distance = pair->distance;
    m->status = (gjkd_code)pair->status;
    m->iterations = pair->iterations;
    m->epa_iterations = pair->epa_iterations;
    m->part_pair_count = (uint32_t)pair->part_pair_count;
    enum { GEOMETRY = 15 };
    double *g = gjkd_arena_alloc(arena, GEOMETRY * sizeof *g);
    put_geometry(g, pair);
    m->n_geometry = GEOMETRY;
    m->geometry = g;
    encode_gradients(arena, pair, m);
    return m;
}

/* An empty table for the distinct pairs of n waypoints' closest pairs. */
static pair_table pair_table_make(gjkd_arena *arena, size_t n)
{
    size_t slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    pair_table t = {gjkd_arena_alloc(arena, (n + 1) * sizeof *t.keys),
                    gjkd_arena_alloc(arena, (n + 1) * sizeof *t.entries),
                    gjkd_arena_alloc(arena, slots * sizeof *t.slots), 0, slots - 1};
    return t;
}

/* The 15 geometry values of a compact or columnar pair into g[]. */
static void put_geometry(double *g, const gjk_world_pair *pair)
{
    const gjk_vec3 v[5] = {pair->a.point, pair->b.point, pair->a.local_point, pair->b.local_point,
                           pair->normal};
    for (int i = 0; i < 5; ++i) {
        g[3 * i] = v[i].x;
        g[3 * i + 1] = v[i].y;
        g[3 * i + 2] = v[i].z;
    }
}

void gjkd_encode_trajectory_compact(gjkd_arena *arena, const gjk_world_result *r,
                                    Gjkd__V1__TrajectoryResult *out)
{
    /* The waypoints as in the full form without their pairs, then the closest pairs. */
    encode_trajectory(arena, r, false, false, out);
    size_t n = (size_t)r->waypoint_count;
    pair_table t = pair_table_make(arena, n);
    for (size_t i = 0; i < n; ++i) {
        const gjk_world_waypoint *w = &r->waypoints[i];
        if (w->evaluated && w->pair_count > 0)
            out->waypoints[i]->closest = encode_compact_pair(arena, &t, &w->pairs[0]);
    }
    out->n_pair_table = t.count;
    out->pair_table = t.entries;
}

static void encode_waypoint_columns(gjkd_arena *arena, const gjk_world_result *r, bool with_closest,
                                    Gjkd__V1__TrajectoryResult *out);

void gjkd_encode_trajectory_columnar(gjkd_arena *arena, const gjk_world_result *r,
                                     Gjkd__V1__TrajectoryResult *out)
{
    encode_waypoint_columns(arena, r, true, out);
}

/* with_closest false: the closest-pair arrays stay empty (the pair columns carry the pairs),
 * the HAS_CLOSEST flags are set all the same. */
static void encode_waypoint_columns(gjkd_arena *arena, const gjk_world_result *r, bool with_closest,
                                    Gjkd__V1__TrajectoryResult *out)
{
    gjkd__v1__trajectory_result__init(out);
    size_t n = (size_t)r->waypoint_count;
    uint32_t colliding = 0;
    size_t closest = 0;
    for (size_t i = 0; i < n; ++i) {
        const gjk_world_waypoint *w = &r->waypoints[i];
        colliding += w->evaluated && w->collision;
        closest += with_closest && w->evaluated && w->pair_count > 0;
    }
    encode_summary(r, colliding, out);

    Gjkd__V1__WaypointColumns *c = gjkd_arena_alloc(arena, sizeof *c);
    gjkd__v1__waypoint_columns__init(c);
    c->n_flags = c->n_min_distance = c->n_pairs_checked = c->n_pairs_candidate = n;
    c->flags = gjkd_arena_alloc(arena, (n + 1) * sizeof *c->flags);
    c->min_distance = gjkd_arena_alloc(arena, (n + 1) * sizeof *c->min_distance);
    c->pairs_checked = gjkd_arena_alloc(arena, (n + 1) * sizeof *c->pairs_checked);
    c->pairs_candidate = gjkd_arena_alloc(arena, (n + 1) * sizeof *c->pairs_candidate);
    c->n_pair_index = c->n_distance = c->n_status = c->n_iterations = c->n_epa_iterations = closest;
    c->n_geometry = 15 * closest;
    c->pair_index = gjkd_arena_alloc(arena, (closest + 1) * sizeof *c->pair_index);
    c->distance = gjkd_arena_alloc(arena, (closest + 1) * sizeof *c->distance);
    c->status = gjkd_arena_alloc(arena, (closest + 1) * sizeof *c->status);
    c->iterations = gjkd_arena_alloc(arena, (closest + 1) * sizeof *c->iterations);
    c->epa_iterations = gjkd_arena_alloc(arena, (closest + 1) * sizeof *c->epa_iterations);
    c->geometry = gjkd_arena_alloc(arena, (15 * closest + 1) * sizeof *c->geometry);
    pair_table t = pair_table_make(arena, n);
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        const gjk_world_waypoint *w = &r->waypoints[i];
        if (!w->evaluated) /* FIRST_COLLISION: nothing else is set, as in StateResult */
            continue;
        uint32_t f = GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_EVALUATED;
        if (w->collision)
            f |= GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_COLLIDING;
        if (w->truncated)
            f |= GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_TRUNCATED;
        if (isfinite(w->min_distance)) {
            f |= GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_MIN_DISTANCE;
            c->min_distance[i] = w->min_distance;
        }
        c->pairs_checked[i] = (uint32_t)w->counters.pairs_narrow;
        c->pairs_candidate[i] = (uint32_t)w->counters.pairs_candidate;
        if (w->pair_count > 0) {
            const gjk_world_pair *pair = &w->pairs[0];
            f |= GJKD__V1__WAYPOINT_FLAG__WAYPOINT_FLAG_HAS_CLOSEST;
            if (!with_closest) {
                c->flags[i] = f;
                continue;
            }
            c->pair_index[k] = pair_table_index(arena, &t, pair);
            c->distance[k] = pair->distance;
            c->status[k] = (gjkd_code)pair->status;
            c->iterations[k] = pair->iterations;
            c->epa_iterations[k] = pair->epa_iterations;
            put_geometry(c->geometry + 15 * k, pair);
            k++;
        }
        c->flags[i] = f;
    }
    out->columns = c;
    out->n_pair_table = t.count;
    out->pair_table = t.entries;
}

/* ---------------------------------------------------------------- pair columns */

/* Fills a per-pair array: n entries in the arena, the count in *count. */
#define PAIR_COLUMN(c, field, n)                                                                   \
    do {                                                                                           \
        (c)->n_##field = (n);                                                                      \
        (c)->field = gjkd_arena_alloc(arena, ((n) + 1) * sizeof *(c)->field);                      \
    } while (0)

static void encode_segment_columns(gjkd_arena *arena, const gjk_world_result *r, pair_table *t,
                                   Gjkd__V1__TrajectoryResult *out);

void gjkd_encode_trajectory_pair_columns(gjkd_arena *arena, const gjk_world_result *r,
                                         bool all_pairs, Gjkd__V1__TrajectoryResult *out)
{
    /* The waypoints as in the columnar form without its closest-pair arrays. */
    encode_waypoint_columns(arena, r, false, out);

    size_t n = (size_t)r->waypoint_count, pairs = 0, grad_a = 0, grad_b = 0;
    bool gradients = false;
    for (size_t i = 0; i < n; ++i) {
        const gjk_world_waypoint *wp = &r->waypoints[i];
        size_t k = !wp->evaluated ? 0 : all_pairs ? (size_t)wp->pair_count : wp->pair_count > 0;
        for (size_t j = 0; j < k; ++j) {
            grad_a += (size_t)wp->pairs[j].gradient_a_count;
            grad_b += (size_t)wp->pairs[j].gradient_b_count;
            gradients |= wp->pairs[j].gradient_a_count > 0 || wp->pairs[j].gradient_b_count > 0;
        }
        pairs += k;
    }
    Gjkd__V1__PairColumns *c = gjkd_arena_alloc(arena, sizeof *c);
    gjkd__v1__pair_columns__init(c);
    PAIR_COLUMN(c, waypoint, pairs);
    PAIR_COLUMN(c, pair_index, pairs);
    PAIR_COLUMN(c, distance, pairs);
    PAIR_COLUMN(c, geometry, 15 * pairs);
    PAIR_COLUMN(c, status, pairs);
    PAIR_COLUMN(c, iterations, pairs);
    PAIR_COLUMN(c, epa_iterations, pairs);
    PAIR_COLUMN(c, part_pair_count, pairs);
    if (gradients) {
        PAIR_COLUMN(c, gradient_a_count, pairs);
        PAIR_COLUMN(c, gradient_a, grad_a);
        PAIR_COLUMN(c, gradient_b_count, pairs);
        PAIR_COLUMN(c, gradient_b, grad_b);
        PAIR_COLUMN(c, subgradient, pairs);
    }
    /* The pair table keys the pairs' identities (the segments' pairs too); at most one entry
     * per pair. */
    size_t segments = r->segment_count > 0 ? (size_t)r->segment_count : 0;
    pair_table t = pair_table_make(arena, pairs + segments);
    size_t k = 0, ga = 0, gb = 0;
    for (size_t i = 0; i < n; ++i) {
        const gjk_world_waypoint *wp = &r->waypoints[i];
        size_t m = !wp->evaluated ? 0 : all_pairs ? (size_t)wp->pair_count : wp->pair_count > 0;
        for (size_t j = 0; j < m; ++j, ++k) {
            const gjk_world_pair *pair = &wp->pairs[j];
            c->waypoint[k] = (uint32_t)i;
            c->pair_index[k] = pair_table_index(arena, &t, pair);
            c->distance[k] = pair->distance;
            put_geometry(c->geometry + 15 * k, pair);
            c->status[k] = (int32_t)pair->status;
            c->iterations[k] = pair->iterations;
            c->epa_iterations[k] = pair->epa_iterations;
            c->part_pair_count[k] = (uint32_t)pair->part_pair_count;
            if (!gradients)
                continue;
            c->gradient_a_count[k] = (uint32_t)pair->gradient_a_count;
            c->gradient_b_count[k] = (uint32_t)pair->gradient_b_count;
            if (pair->gradient_a_count > 0)
                memcpy(c->gradient_a + ga, pair->gradient_a,
                       (size_t)pair->gradient_a_count * sizeof(double));
            if (pair->gradient_b_count > 0)
                memcpy(c->gradient_b + gb, pair->gradient_b,
                       (size_t)pair->gradient_b_count * sizeof(double));
            ga += (size_t)pair->gradient_a_count;
            gb += (size_t)pair->gradient_b_count;
            c->subgradient[k] = pair->subgradient;
        }
    }
    out->pair_columns = c;
    encode_segment_columns(arena, r, &t, out);
    out->n_pair_table = t.count;
    out->pair_table = t.entries;
}

/* The segments' summary, in either form. */
static void encode_segment_summary(const gjk_world_result *r, Gjkd__V1__TrajectoryResult *out)
{
    out->first_contact_segment = r->first_contact_segment;
    out->undecided_segments = (uint32_t)r->segments_undecided;
}

static void encode_segment_columns(gjkd_arena *arena, const gjk_world_result *r, pair_table *t,
                                   Gjkd__V1__TrajectoryResult *out)
{
    if (r->segment_count <= 0)
        return;
    size_t n = (size_t)r->segment_count;
    Gjkd__V1__SegmentColumns *c = gjkd_arena_alloc(arena, sizeof *c);
    gjkd__v1__segment_columns__init(c);
    PAIR_COLUMN(c, verdict, n);
    PAIR_COLUMN(c, t, n);
    PAIR_COLUMN(c, clearance_lower_bound, n);
    PAIR_COLUMN(c, pair_index, n);
    PAIR_COLUMN(c, distance, n);
    PAIR_COLUMN(c, geometry, 15 * n);
    PAIR_COLUMN(c, status, n);
    PAIR_COLUMN(c, iterations, n);
    PAIR_COLUMN(c, epa_iterations, n);
    PAIR_COLUMN(c, part_pair_count, n);
    PAIR_COLUMN(c, pairs_checked, n);
    PAIR_COLUMN(c, pairs_undecided, n);
    PAIR_COLUMN(c, evaluations, n);
    PAIR_COLUMN(c, evaluated, n);
    for (size_t i = 0; i < n; ++i) {
        const gjk_world_segment *s = &r->segments[i];
        /* The arena's memory is not zeroed: every entry is written. */
        c->verdict[i] = (int32_t)s->verdict;
        c->t[i] = s->t;
        c->clearance_lower_bound[i] =
            s->verdict == GJK_CCD_CLEAR && isfinite(s->clearance_lower_bound)
                ? s->clearance_lower_bound
                : (double)NAN;
        c->pair_index[i] = s->has_pair ? (int32_t)pair_table_index(arena, t, &s->pair) : -1;
        if (s->has_pair) {
            c->distance[i] = s->pair.distance;
            put_geometry(c->geometry + 15 * i, &s->pair);
            c->status[i] = (int32_t)s->pair.status;
            c->iterations[i] = s->pair.iterations;
            c->epa_iterations[i] = s->pair.epa_iterations;
            c->part_pair_count[i] = (uint32_t)s->pair.part_pair_count;
        } else {
            c->distance[i] = 0.0;
            memset(c->geometry + 15 * i, 0, 15 * sizeof *c->geometry);
            c->status[i] = c->iterations[i] = c->epa_iterations[i] = 0;
            c->part_pair_count[i] = 0;
        }
        c->pairs_checked[i] = (uint32_t)s->pairs_checked;
        c->pairs_undecided[i] = (uint32_t)s->pairs_undecided;
        c->evaluations[i] = (uint64_t)s->evaluations;
        c->evaluated[i] = s->evaluated;
    }
    out->segment_columns = c;
    encode_segment_summary(r, out);
}

/* ---------------------------------------------------------------- continuous segments */

bool gjkd_decode_continuous(const Gjkd__V1__TrajectoryQueryRequest *m, gjk_world_query_options *out,
                            gjkd_error *error)
{
    if (!m->continuous)
        return true;
    double tol = m->continuous_time_tolerance;
    if (!(tol >= 0.0 && tol <= 0.5))
        return gjkd_fail(error, GJKD_CODE(INVALID_INPUT),
                         "continuous_time_tolerance: %g is not in (0, 0.5] (0 = the default)", tol);
    if (m->continuous_max_evaluations > GJKD_MAX_CONTINUOUS_EVALUATIONS)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "continuous_max_evaluations: %u, the limit is %u",
                         m->continuous_max_evaluations, GJKD_MAX_CONTINUOUS_EVALUATIONS);
    out->continuous = true;
    out->ccd_time_tolerance = tol;
    out->ccd_max_evaluations = (int32_t)m->continuous_max_evaluations;
    return true;
}

void gjkd_encode_segments(gjkd_arena *arena, const gjk_world_result *r,
                          Gjkd__V1__TrajectoryResult *out)
{
    _Static_assert(
        (int)GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CLEAR == (int)GJK_CCD_CLEAR &&
            (int)GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_CONTACT == (int)GJK_CCD_CONTACT &&
            (int)GJKD__V1__SEGMENT_VERDICT__SEGMENT_VERDICT_UNDECIDED == (int)GJK_CCD_UNDECIDED,
        "segment verdict numbers");
    if (r->segment_count <= 0 || out->segment_columns != NULL)
        return; /* none, or already there as columns */
    out->n_segments = (size_t)r->segment_count;
    out->segments = gjkd_arena_alloc(arena, out->n_segments * sizeof *out->segments);
    for (int32_t i = 0; i < r->segment_count; ++i) {
        const gjk_world_segment *s = &r->segments[i];
        Gjkd__V1__SegmentResult *m = gjkd_arena_alloc(arena, sizeof *m);
        gjkd__v1__segment_result__init(m);
        m->evaluated = s->evaluated;
        m->verdict = (Gjkd__V1__SegmentVerdict)s->verdict;
        m->t = s->t;
        if (s->verdict == GJK_CCD_CLEAR && isfinite(s->clearance_lower_bound)) {
            m->clearance_opt_case = GJKD__V1__SEGMENT_RESULT__CLEARANCE_OPT_CLEARANCE_LOWER_BOUND;
            m->clearance_lower_bound = s->clearance_lower_bound;
        }
        if (s->has_pair)
            m->pair = gjkd_encode_pair(arena, &s->pair);
        m->pairs_checked = (uint32_t)s->pairs_checked;
        m->pairs_undecided = (uint32_t)s->pairs_undecided;
        m->evaluations = (uint64_t)s->evaluations;
        out->segments[i] = m;
    }
    encode_segment_summary(r, out);
}
