/* gjkd_json.c — JSON scene / poses / trajectory documents <-> gjkd.v1 protobuf, on cJSON.
 *
 * The parser walks the cJSON tree once, checking every value before it is stored, and builds
 * the protobuf-c message tree with malloc exactly as protobuf_c_message_unpack would (strings,
 * repeated arrays and submessages all owned), so the generated *__free_unpacked frees it, also
 * when parsing stops half way. Error messages carry the JSON path of the offending value. */
#define _POSIX_C_SOURCE 200809L
#include "gjkd_json.h"
#include "gjkd_text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Quaternions farther than this from unit norm are refused (the daemon's rule, gjkd.proto). */
#define QUAT_NORM_TOLERANCE 1e-6

/* ------------------------------------------------------------------ context and errors */

typedef struct ctx {
    char path[256]; /* "$.robots[0].links[2]" */
    size_t len;
    gjkd_json_error *err;
} ctx;

static void ctx_init(ctx *c, gjkd_json_error *err)
{
    c->path[0] = '$';
    c->path[1] = '\0';
    c->len = 1;
    c->err = err;
    if (err) {
        err->message[0] = '\0';
        err->line = 0;
        err->column = 0;
    }
}

/* Appends to the path; returns the length to restore with path_pop. A path too long for the
 * buffer keeps its head and ends in "...". */
static size_t path_push(ctx *c, const char *fmt, ...)
{
    size_t mark = c->len;
    if (c->len + 4 >= sizeof c->path)
        return mark;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->path + c->len, sizeof c->path - c->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof c->path - c->len) {
        c->len = sizeof c->path - 4;
        memcpy(c->path + c->len, "...", 4);
        c->len += 3;
    } else {
        c->len += (size_t)n;
    }
    return mark;
}

static void path_pop(ctx *c, size_t mark)
{
    c->len = mark;
    c->path[mark] = '\0';
}

/* Records "<path>: <message>" (the first error wins) and returns false. The path and the
 * message quote the document's own keys and strings; they are escaped to one line. */
__attribute__((format(printf, 2, 3))) static bool fail(ctx *c, const char *fmt, ...)
{
    if (c->err == NULL || c->err->message[0] != '\0')
        return false;
    char raw[sizeof c->err->message];
    int n = snprintf(raw, sizeof raw, "%s: ", c->path);
    if (n < 0 || (size_t)n >= sizeof raw)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
    va_end(ap);
    gjkd_copy_escaped(c->err->message, sizeof c->err->message, raw);
    return false;
}

static void *alloc(ctx *c, size_t size)
{
    void *p = calloc(1, size ? size : 1);
    if (p == NULL)
        fail(c, "out of memory");
    return p;
}

static const char *type_name(const cJSON *v)
{
    if (v == NULL)
        return "nothing";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "an invalid value";
}

/* ------------------------------------------------------------------ objects and keys */

/* Fails on a key not in `allowed` (NULL-terminated) and on duplicate keys. "comment" is always
 * allowed. */
static bool check_keys(ctx *c, const cJSON *obj, const char *const *allowed)
{
    for (const cJSON *it = obj->child; it != NULL; it = it->next) {
        bool known = strcmp(it->string, "comment") == 0;
        for (const char *const *k = allowed; !known && *k != NULL; k++)
            known = strcmp(it->string, *k) == 0;
        if (!known) {
            fail(c, "unknown key \"%s\"", it->string);
            return false;
        }
        for (const cJSON *jt = it->next; jt != NULL; jt = jt->next) {
            if (strcmp(it->string, jt->string) == 0)
                return fail(c, "duplicate key \"%s\"", it->string);
        }
    }
    return true;
}

static bool expect_object(ctx *c, const cJSON *v)
{
    return cJSON_IsObject(v) ? true : fail(c, "expected an object, got %s", type_name(v));
}

static bool expect_array(ctx *c, const cJSON *v, const char *what)
{
    return cJSON_IsArray(v) ? true : fail(c, "expected an array of %s, got %s", what, type_name(v));
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static bool finite_number(ctx *c, const cJSON *v, double *out)
{
    if (!cJSON_IsNumber(v))
        return fail(c, "expected a finite number, got %s", type_name(v));
    if (!isfinite(v->valuedouble))
        return fail(c, "expected a finite number, got %g", v->valuedouble);
    *out = v->valuedouble;
    return true;
}

/* obj[key] as a number >= 0; `def` when absent. */
static bool get_nonneg(ctx *c, const cJSON *obj, const char *key, double def, bool required,
                       double *out)
{
    const cJSON *v = member(obj, key);
    size_t mark = path_push(c, ".%s", key);
    bool ok = true;
    if (v == NULL) {
        if (required)
            ok = fail(c, "missing (a number >= 0, metres)");
        *out = def;
    } else if ((ok = finite_number(c, v, out)) && *out < 0.0) {
        ok = fail(c, "must be >= 0, got %g", *out);
    }
    path_pop(c, mark);
    return ok;
}

static bool get_bool(ctx *c, const cJSON *obj, const char *key, protobuf_c_boolean *out)
{
    const cJSON *v = member(obj, key);
    if (v == NULL)
        return true;
    if (!cJSON_IsBool(v)) {
        size_t mark = path_push(c, ".%s", key);
        fail(c, "expected true or false, got %s", type_name(v));
        path_pop(c, mark);
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

static char *dup_string(ctx *c, const char *s)
{
    size_t n = strlen(s);
    char *d = alloc(c, n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

/* A string value; `nonempty` requires at least one byte. Stores a malloc'd copy in *out
 * (which must be empty: NULL or protobuf-c's empty string). */
static bool string_value(ctx *c, const cJSON *v, bool nonempty, char **out)
{
    if (!cJSON_IsString(v) || v->valuestring == NULL)
        return fail(c, "expected a string, got %s", type_name(v));
    if (nonempty && v->valuestring[0] == '\0')
        return fail(c, "must not be empty");
    if (!gjkd_utf8_valid(v->valuestring))
        return fail(c, "\"%s\" is not valid UTF-8", v->valuestring);
    char *s = dup_string(c, v->valuestring);
    if (s == NULL)
        return false;
    *out = s;
    return true;
}

/* obj[key] as a string (required: also non-empty). Absent and optional: *out untouched. */
static bool get_string(ctx *c, const cJSON *obj, const char *key, bool required, char **out)
{
    const cJSON *v = member(obj, key);
    size_t mark = path_push(c, ".%s", key);
    bool ok = true;
    if (v == NULL) {
        if (required)
            ok = fail(c, "missing (a non-empty string)");
    } else {
        ok = string_value(c, v, required, out);
    }
    path_pop(c, mark);
    return ok;
}

/* The optional "format" key: when present it must name this kind of document. */
static bool check_format(ctx *c, const cJSON *root, const char *format)
{
    const cJSON *v = member(root, "format");
    if (v == NULL)
        return true;
    size_t mark = path_push(c, ".format");
    bool ok = cJSON_IsString(v) && strcmp(v->valuestring, format) == 0;
    if (!ok) {
        if (cJSON_IsString(v))
            fail(c, "this is a \"%s\" document, expected \"%s\"", v->valuestring, format);
        else
            fail(c, "expected the string \"%s\", got %s", format, type_name(v));
    }
    path_pop(c, mark);
    return ok;
}

/* ------------------------------------------------------------------ geometry */

/* An array of exactly n finite numbers. */
static bool number_array(ctx *c, const cJSON *v, int n, double *out, const char *what)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return fail(c, "expected %s (an array of %d numbers), got %s", what, n,
                    cJSON_IsArray(v) ? "an array of another length" : type_name(v));
    int i = 0;
    for (const cJSON *it = v->child; it != NULL; it = it->next, i++) {
        size_t mark = path_push(c, "[%d]", i);
        bool ok = finite_number(c, it, &out[i]);
        path_pop(c, mark);
        if (!ok)
            return false;
    }
    return true;
}

static Gjkd__V1__Vec3 *make_vec3(ctx *c, const double v[3])
{
    Gjkd__V1__Vec3 *m = alloc(c, sizeof *m);
    if (m) {
        gjkd__v1__vec3__init(m);
        m->x = v[0];
        m->y = v[1];
        m->z = v[2];
    }
    return m;
}

static bool parse_pose(ctx *c, const cJSON *v, Gjkd__V1__Pose **out)
{
    static const char *const keys[] = {"position", "quat_wxyz", NULL};
    if (!expect_object(c, v) || !check_keys(c, v, keys))
        return false;
    Gjkd__V1__Pose *pose = alloc(c, sizeof *pose);
    if (pose == NULL)
        return false;
    gjkd__v1__pose__init(pose);
    *out = pose;

    const cJSON *p = member(v, "position");
    if (p != NULL) {
        double xyz[3];
        size_t mark = path_push(c, ".position");
        bool ok = number_array(c, p, 3, xyz, "[x, y, z]");
        path_pop(c, mark);
        if (!ok || (pose->position = make_vec3(c, xyz)) == NULL)
            return false;
    }
    const cJSON *q = member(v, "quat_wxyz");
    if (q != NULL) {
        double wxyz[4];
        size_t mark = path_push(c, ".quat_wxyz");
        bool ok = number_array(c, q, 4, wxyz, "[w, x, y, z]");
        if (ok) {
            double norm =
                sqrt(wxyz[0] * wxyz[0] + wxyz[1] * wxyz[1] + wxyz[2] * wxyz[2] + wxyz[3] * wxyz[3]);
            if (!(fabs(norm - 1.0) <= QUAT_NORM_TOLERANCE))
                ok = fail(c, "not a unit quaternion (norm %.9g; order is [w, x, y, z])", norm);
        }
        path_pop(c, mark);
        if (!ok)
            return false;
        Gjkd__V1__Quaternion *m = alloc(c, sizeof *m);
        if (m == NULL)
            return false;
        gjkd__v1__quaternion__init(m);
        m->w = wxyz[0];
        m->x = wxyz[1];
        m->y = wxyz[2];
        m->z = wxyz[3];
        pose->orientation = m;
    }
    return true;
}

/* obj[key] as a pose, if present. */
static bool get_pose(ctx *c, const cJSON *obj, const char *key, Gjkd__V1__Pose **out)
{
    const cJSON *v = member(obj, key);
    if (v == NULL)
        return true;
    size_t mark = path_push(c, ".%s", key);
    bool ok = parse_pose(c, v, out);
    path_pop(c, mark);
    return ok;
}

/* "points": [[x, y, z], ...] -> a flat xyz array of 3n doubles, n >= 1. */
static bool parse_points(ctx *c, const cJSON *obj, size_t *n_xyz, double **xyz)
{
    const cJSON *v = member(obj, "points");
    size_t mark = path_push(c, ".points");
    bool ok = false;
    if (v == NULL) {
        fail(c, "missing (an array of [x, y, z] points)");
    } else if (expect_array(c, v, "[x, y, z] points")) {
        int n = cJSON_GetArraySize(v);
        if (n < 1) {
            fail(c, "needs at least one point");
        } else if ((*xyz = alloc(c, 3 * (size_t)n * sizeof(double))) != NULL) {
            *n_xyz = 3 * (size_t)n;
            ok = true;
            int i = 0;
            for (const cJSON *it = v->child; ok && it != NULL; it = it->next, i++) {
                size_t m = path_push(c, "[%d]", i);
                ok = number_array(c, it, 3, *xyz + 3 * i, "a point [x, y, z]");
                path_pop(c, m);
            }
        }
    }
    path_pop(c, mark);
    return ok;
}

/* An optional array of integers (adjacency). */
/* obj[key] as an array of finite numbers (absent: *n 0 unless required); *n counts the values
 * parsed so far, so that a failure frees what was allocated. */
static bool get_number_list(ctx *c, const cJSON *obj, const char *key, bool required, size_t *n_out,
                            double **out)
{
    const cJSON *v = member(obj, key);
    size_t mark = path_push(c, ".%s", key);
    bool ok = v != NULL ? expect_array(c, v, "numbers")
                        : (required ? fail(c, "missing (an array of numbers)") : false);
    if (v == NULL && !required) {
        path_pop(c, mark);
        return true;
    }
    int n = ok ? cJSON_GetArraySize(v) : 0;
    if (ok && n > 0 && (*out = alloc(c, (size_t)n * sizeof(double))) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? v->child : NULL; ok && it != NULL; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        ok = finite_number(c, it, &(*out)[i]);
        if (ok)
            *n_out = (size_t)(i + 1);
        path_pop(c, m);
    }
    path_pop(c, mark);
    return ok;
}

/* obj[key] as an array of at least one non-empty string (absent: *n 0). */
static bool get_name_list(ctx *c, const cJSON *obj, const char *key, const char *what,
                          size_t *n_out, char ***out)
{
    const cJSON *v = member(obj, key);
    if (v == NULL)
        return true;
    size_t mark = path_push(c, ".%s", key);
    bool ok = expect_array(c, v, what);
    int n = ok ? cJSON_GetArraySize(v) : 0;
    if (ok && n < 1)
        ok = fail(c, "needs at least one name");
    if (ok && (*out = alloc(c, (size_t)n * sizeof(char *))) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? v->child : NULL; ok && it; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        ok = string_value(c, it, true, &(*out)[i]);
        if (ok)
            *n_out = (size_t)(i + 1);
        path_pop(c, m);
    }
    path_pop(c, mark);
    return ok;
}

static bool get_int_array(ctx *c, const cJSON *obj, const char *key, size_t *n_out, int32_t **out)
{
    const cJSON *v = member(obj, key);
    if (v == NULL)
        return true;
    size_t mark = path_push(c, ".%s", key);
    bool ok = expect_array(c, v, "integers");
    int n = ok ? cJSON_GetArraySize(v) : 0;
    if (ok && n > 0 && (*out = alloc(c, (size_t)n * sizeof(int32_t))) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? v->child : NULL; it != NULL; it = it->next, i++) {
        double d = cJSON_IsNumber(it) ? it->valuedouble : -1.0;
        if (!(d >= 0.0 && d <= (double)INT32_MAX && d == floor(d))) {
            size_t m = path_push(c, "[%d]", i);
            ok = fail(c, "expected an integer >= 0, got %s", type_name(it));
            path_pop(c, m);
            break;
        }
        (*out)[i] = (int32_t)d;
        *n_out = (size_t)(i + 1);
    }
    path_pop(c, mark);
    return ok;
}

typedef enum shape_type {
    T_POINT,
    T_SPHERE,
    T_CAPSULE,
    T_BOX,
    T_CYLINDER,
    T_CONE,
    T_HULL,
    T_CONVEX,
    T_ELLIPSOID
} shape_type;
static const char *const shape_type_names[] = {"point", "sphere", "capsule", "box",      "cylinder",
                                               "cone",  "hull",   "convex",  "ellipsoid"};

static bool parse_shape_fields(ctx *c, const cJSON *v, shape_type t, Gjkd__V1__Shape *s)
{
    double r = 0.0, hh = 0.0;
    switch (t) {
    case T_POINT: {
        Gjkd__V1__Point *m = alloc(c, sizeof *m);
        if (m == NULL)
            return false;
        gjkd__v1__point__init(m);
        s->kind_case = GJKD__V1__SHAPE__KIND_POINT;
        s->point = m;
        return true;
    }
    case T_SPHERE: {
        if (!get_nonneg(c, v, "radius", 0.0, true, &r))
            return false;
        Gjkd__V1__Sphere *m = alloc(c, sizeof *m);
        if (m == NULL)
            return false;
        gjkd__v1__sphere__init(m);
        m->radius = r;
        s->kind_case = GJKD__V1__SHAPE__KIND_SPHERE;
        s->sphere = m;
        return true;
    }
    case T_CAPSULE:
    case T_CYLINDER:
    case T_CONE: {
        if (!get_nonneg(c, v, "radius", 0.0, true, &r) ||
            !get_nonneg(c, v, "half_height", 0.0, true, &hh))
            return false;
        /* Capsule, Cylinder and Cone have the same layout but distinct descriptors. */
        if (t == T_CAPSULE) {
            Gjkd__V1__Capsule *m = alloc(c, sizeof *m);
            if (m == NULL)
                return false;
            gjkd__v1__capsule__init(m);
            m->radius = r;
            m->half_height = hh;
            s->kind_case = GJKD__V1__SHAPE__KIND_CAPSULE;
            s->capsule = m;
        } else if (t == T_CYLINDER) {
            Gjkd__V1__Cylinder *m = alloc(c, sizeof *m);
            if (m == NULL)
                return false;
            gjkd__v1__cylinder__init(m);
            m->radius = r;
            m->half_height = hh;
            s->kind_case = GJKD__V1__SHAPE__KIND_CYLINDER;
            s->cylinder = m;
        } else {
            Gjkd__V1__Cone *m = alloc(c, sizeof *m);
            if (m == NULL)
                return false;
            gjkd__v1__cone__init(m);
            m->radius = r;
            m->half_height = hh;
            s->kind_case = GJKD__V1__SHAPE__KIND_CONE;
            s->cone = m;
        }
        return true;
    }
    case T_BOX: {
        const cJSON *he = member(v, "half_extents");
        double h[3];
        size_t mark = path_push(c, ".half_extents");
        bool ok = he != NULL ? number_array(c, he, 3, h, "[hx, hy, hz]")
                             : fail(c, "missing (an array [hx, hy, hz] of numbers >= 0)");
        for (int i = 0; ok && i < 3; i++) {
            if (h[i] < 0.0)
                ok = fail(c, "must be >= 0, got %g at [%d]", h[i], i);
        }
        path_pop(c, mark);
        if (!ok)
            return false;
        Gjkd__V1__Box *m = alloc(c, sizeof *m);
        if (m == NULL)
            return false;
        gjkd__v1__box__init(m);
        s->kind_case = GJKD__V1__SHAPE__KIND_BOX;
        s->box = m;
        return (m->half_extents = make_vec3(c, h)) != NULL;
    }
    case T_ELLIPSOID: {
        const cJSON *rv = member(v, "radii");
        double r3[3];
        size_t mark = path_push(c, ".radii");
        bool ok = rv != NULL ? number_array(c, rv, 3, r3, "[a, b, c]")
                             : fail(c, "missing (an array [a, b, c] of numbers > 0)");
        for (int i = 0; ok && i < 3; i++) {
            if (!(r3[i] > 0.0))
                ok = fail(c, "must be > 0, got %g at [%d]", r3[i], i);
        }
        path_pop(c, mark);
        if (!ok)
            return false;
        Gjkd__V1__Ellipsoid *m = alloc(c, sizeof *m);
        if (m == NULL)
            return false;
        gjkd__v1__ellipsoid__init(m);
        s->kind_case = GJKD__V1__SHAPE__KIND_ELLIPSOID;
        s->ellipsoid = m;
        return (m->radii = make_vec3(c, r3)) != NULL;
    }
    case T_HULL: {
        Gjkd__V1__PointCloud *m = alloc(c, sizeof *m);
        if (m == NULL)
            return false;
        gjkd__v1__point_cloud__init(m);
        s->kind_case = GJKD__V1__SHAPE__KIND_HULL;
        s->hull = m;
        return parse_points(c, v, &m->n_xyz, &m->xyz);
    }
    case T_CONVEX: {
        Gjkd__V1__ConvexVertices *m = alloc(c, sizeof *m);
        if (m == NULL)
            return false;
        gjkd__v1__convex_vertices__init(m);
        s->kind_case = GJKD__V1__SHAPE__KIND_CONVEX;
        s->convex = m;
        if (!parse_points(c, v, &m->n_xyz, &m->xyz) ||
            !get_int_array(c, v, "adjacency_start", &m->n_adjacency_start, &m->adjacency_start) ||
            !get_int_array(c, v, "adjacency", &m->n_adjacency, &m->adjacency))
            return false;
        if (m->n_adjacency_start != 0 && m->n_adjacency_start != m->n_xyz / 3 + 1) {
            size_t mark = path_push(c, ".adjacency_start");
            fail(c, "needs %zu entries (points + 1), got %zu", m->n_xyz / 3 + 1,
                 m->n_adjacency_start);
            path_pop(c, mark);
            return false;
        }
        if ((m->n_adjacency_start == 0) != (m->n_adjacency == 0))
            return fail(c, "\"adjacency_start\" and \"adjacency\" go together");
        return true;
    }
    }
    return fail(c, "internal: unhandled shape type");
}

static bool parse_part(ctx *c, const cJSON *v, Gjkd__V1__Part **out)
{
    if (!expect_object(c, v))
        return false;
    const cJSON *type = member(v, "type");
    if (type == NULL)
        return fail(c, "missing \"type\" (point, sphere, capsule, box, cylinder, cone, "
                       "ellipsoid, hull or convex)");
    int t = -1;
    for (int i = 0;
         cJSON_IsString(type) && i < (int)(sizeof shape_type_names / sizeof shape_type_names[0]);
         i++) {
        if (strcmp(type->valuestring, shape_type_names[i]) == 0)
            t = i;
    }
    if (t < 0) {
        size_t mark = path_push(c, ".type");
        if (cJSON_IsString(type))
            fail(c,
                 "unknown shape type \"%s\" (point, sphere, capsule, box, cylinder, cone, "
                 "ellipsoid, hull or convex)",
                 type->valuestring);
        else
            fail(c, "expected a string, got %s", type_name(type));
        path_pop(c, mark);
        return false;
    }
    static const char *const common[] = {"name", "type", "margin", "pose"};
    const char *keys[8] = {common[0], common[1], common[2], common[3], NULL, NULL, NULL, NULL};
    switch ((shape_type)t) {
    case T_POINT:
        break;
    case T_SPHERE:
        keys[4] = "radius";
        break;
    case T_CAPSULE:
    case T_CYLINDER:
    case T_CONE:
        keys[4] = "radius";
        keys[5] = "half_height";
        break;
    case T_BOX:
        keys[4] = "half_extents";
        break;
    case T_ELLIPSOID:
        keys[4] = "radii";
        break;
    case T_HULL:
        keys[4] = "points";
        break;
    case T_CONVEX:
        keys[4] = "points";
        keys[5] = "adjacency_start";
        keys[6] = "adjacency";
        break;
    }
    if (!check_keys(c, v, keys))
        return false;

    Gjkd__V1__Part *part = alloc(c, sizeof *part);
    if (part == NULL)
        return false;
    gjkd__v1__part__init(part);
    *out = part;
    if (!get_string(c, v, "name", false, &part->name))
        return false;
    Gjkd__V1__Shape *shape = alloc(c, sizeof *shape);
    if (shape == NULL)
        return false;
    gjkd__v1__shape__init(shape);
    part->shape = shape;
    return get_nonneg(c, v, "margin", 0.0, false, &shape->margin) &&
           parse_shape_fields(c, v, (shape_type)t, shape) && get_pose(c, v, "pose", &part->pose);
}

/* obj["parts"]: an array of parts, non-empty unless may_be_empty (a link may have none: it
 * never collides, e.g. a URDF frame without collision geometry; an obstacle needs one). */
static bool get_parts(ctx *c, const cJSON *obj, bool may_be_empty, size_t *n_parts,
                      Gjkd__V1__Part ***parts)
{
    const cJSON *v = member(obj, "parts");
    size_t mark = path_push(c, ".parts");
    bool ok = v != NULL ? expect_array(c, v, "parts") : fail(c, "missing (an array of parts)");
    int n = ok ? cJSON_GetArraySize(v) : 0;
    if (ok && n < 1 && !may_be_empty)
        ok = fail(c, "needs at least one part");
    if (ok && n > 0 && (*parts = alloc(c, (size_t)n * sizeof **parts)) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? v->child : NULL; ok && it != NULL; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        ok = parse_part(c, it, &(*parts)[i]);
        if ((*parts)[i] != NULL)
            *n_parts = (size_t)(i + 1);
        path_pop(c, m);
    }
    path_pop(c, mark);
    return ok;
}

/* ------------------------------------------------------------------ scene */

/* obj[key]: an array of poses; *n and *poses filled. */
static bool get_pose_array(ctx *c, const cJSON *obj, const char *key, bool required,
                           size_t *n_poses, Gjkd__V1__Pose ***poses)
{
    const cJSON *v = member(obj, key);
    if (v == NULL)
        return required ? fail(c, "missing \"%s\" (an array of poses)", key) : true;
    size_t mark = path_push(c, ".%s", key);
    bool ok = expect_array(c, v, "poses");
    int n = ok ? cJSON_GetArraySize(v) : 0;
    if (ok && n > 0 && (*poses = alloc(c, (size_t)n * sizeof **poses)) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? v->child : NULL; ok && it != NULL; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        ok = parse_pose(c, it, &(*poses)[i]);
        if ((*poses)[i] != NULL)
            *n_poses = (size_t)(i + 1);
        path_pop(c, m);
    }
    path_pop(c, mark);
    return ok;
}

static bool parse_link(ctx *c, const cJSON *v, Gjkd__V1__Link **out)
{
    static const char *const keys[] = {"name", "parts", "padding", NULL};
    if (!expect_object(c, v) || !check_keys(c, v, keys))
        return false;
    Gjkd__V1__Link *link = alloc(c, sizeof *link);
    if (link == NULL)
        return false;
    gjkd__v1__link__init(link);
    *out = link;
    return get_string(c, v, "name", true, &link->name) &&
           get_parts(c, v, true, &link->n_parts, &link->parts) &&
           get_nonneg(c, v, "padding", 0.0, false, &link->padding);
}

/* A pair of two non-empty strings: ["a", "b"]. */
static bool string_pair(ctx *c, const cJSON *v, const char *what, char **a, char **b)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return fail(c, "expected a pair [\"%s\", \"%s\"], got %s", what, what,
                    cJSON_IsArray(v) ? "an array of another length" : type_name(v));
    size_t mark = path_push(c, "[0]");
    bool ok = string_value(c, v->child, true, a);
    path_pop(c, mark);
    if (!ok)
        return false;
    mark = path_push(c, "[1]");
    ok = string_value(c, v->child->next, true, b);
    path_pop(c, mark);
    return ok;
}

/* obj[key] as a finite number; `def` when absent. */
static bool get_number(ctx *c, const cJSON *obj, const char *key, double def, double *out)
{
    const cJSON *v = member(obj, key);
    *out = def;
    if (v == NULL)
        return true;
    size_t mark = path_push(c, ".%s", key);
    bool ok = finite_number(c, v, out);
    path_pop(c, mark);
    return ok;
}

/* Joint types as the documents name them, indexed by Gjkd__V1__JointType. */
static const char *const joint_type_names[] = {NULL, "fixed", "revolute", "continuous",
                                               "prismatic"};

static bool parse_joint(ctx *c, const cJSON *v, Gjkd__V1__Joint **out)
{
    static const char *const keys[] = {"name", "type",   "parent", "child", "origin",
                                       "axis", "limits", "mimic",  NULL};
    if (!expect_object(c, v) || !check_keys(c, v, keys))
        return false;
    Gjkd__V1__Joint *j = alloc(c, sizeof *j);
    if (j == NULL)
        return false;
    gjkd__v1__joint__init(j);
    *out = j;
    if (!get_string(c, v, "name", true, &j->name))
        return false;
    const cJSON *t = member(v, "type");
    size_t mark = path_push(c, ".type");
    bool ok = t != NULL ? true : fail(c, "missing (fixed, revolute, continuous or prismatic)");
    if (ok && !cJSON_IsString(t))
        ok = fail(c, "expected a string, got %s", type_name(t));
    if (ok) {
        size_t k = 1;
        while (k < sizeof joint_type_names / sizeof *joint_type_names &&
               strcmp(t->valuestring, joint_type_names[k]) != 0)
            k++;
        if (k == sizeof joint_type_names / sizeof *joint_type_names)
            ok = fail(c, "unknown joint type \"%s\" (fixed, revolute, continuous, prismatic)",
                      t->valuestring);
        else
            j->type = (Gjkd__V1__JointType)k;
    }
    path_pop(c, mark);
    if (!ok || !get_string(c, v, "parent", true, &j->parent) ||
        !get_string(c, v, "child", true, &j->child) || !get_pose(c, v, "origin", &j->origin))
        return false;
    const cJSON *axis = member(v, "axis");
    if (axis != NULL) {
        double a[3];
        mark = path_push(c, ".axis");
        ok = number_array(c, axis, 3, a, "[x, y, z]");
        if (ok && a[0] == 0.0 && a[1] == 0.0 && a[2] == 0.0)
            ok = fail(c, "must not be zero");
        path_pop(c, mark);
        if (!ok || (j->axis = make_vec3(c, a)) == NULL)
            return false;
    } else if (j->type != GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED) {
        return fail(c, "a %s joint needs \"axis\"", joint_type_names[j->type]);
    }
    const cJSON *lim = member(v, "limits");
    if (lim != NULL) {
        static const char *const lkeys[] = {"lower", "upper", NULL};
        mark = path_push(c, ".limits");
        ok = expect_object(c, lim) && check_keys(c, lim, lkeys);
        Gjkd__V1__JointLimits *l = ok ? alloc(c, sizeof *l) : NULL;
        if (l != NULL) {
            gjkd__v1__joint_limits__init(l);
            j->limits = l;
            ok = get_number(c, lim, "lower", 0.0, &l->lower) &&
                 get_number(c, lim, "upper", 0.0, &l->upper);
            if (ok && member(lim, "lower") == NULL)
                ok = fail(c, "missing \"lower\"");
            if (ok && member(lim, "upper") == NULL)
                ok = fail(c, "missing \"upper\"");
            if (ok && l->lower > l->upper)
                ok = fail(c, "lower %.17g > upper %.17g", l->lower, l->upper);
        } else {
            ok = false;
        }
        path_pop(c, mark);
        if (!ok)
            return false;
    } else if (j->type == GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE ||
               j->type == GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC) {
        return fail(c, "a %s joint needs \"limits\"", joint_type_names[j->type]);
    }
    const cJSON *mim = member(v, "mimic");
    if (mim != NULL) {
        static const char *const mkeys[] = {"joint", "multiplier", "offset", NULL};
        mark = path_push(c, ".mimic");
        ok = expect_object(c, mim) && check_keys(c, mim, mkeys);
        Gjkd__V1__Mimic *m = ok ? alloc(c, sizeof *m) : NULL;
        if (m != NULL) {
            gjkd__v1__mimic__init(m);
            j->mimic = m;
            ok = get_string(c, mim, "joint", true, &m->joint) &&
                 get_number(c, mim, "multiplier", 1.0, &m->multiplier) &&
                 get_number(c, mim, "offset", 0.0, &m->offset);
        } else {
            ok = false;
        }
        path_pop(c, mark);
        if (!ok)
            return false;
    }
    return true;
}

/* The kinematics of a robot: "joints", "base_pose", "initial_positions". */
static bool parse_robot_joints(ctx *c, const cJSON *v, Gjkd__V1__Robot *r)
{
    const cJSON *joints = member(v, "joints");
    if (joints == NULL) {
        if (member(v, "base_pose") != NULL || member(v, "initial_positions") != NULL)
            return fail(c, "\"base_pose\" and \"initial_positions\" need \"joints\"");
        return true;
    }
    size_t mark = path_push(c, ".joints");
    bool ok = expect_array(c, joints, "joints");
    int n = ok ? cJSON_GetArraySize(joints) : 0;
    if (ok && n < 1)
        ok = fail(c, "needs at least one joint (leave \"joints\" out for a link-pose robot)");
    if (ok && (r->joints = alloc(c, (size_t)n * sizeof *r->joints)) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? joints->child : NULL; ok && it != NULL; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        ok = parse_joint(c, it, &r->joints[i]);
        if (r->joints[i] != NULL)
            r->n_joints = (size_t)(i + 1);
        path_pop(c, m);
    }
    path_pop(c, mark);
    if (!ok)
        return false;
    if (r->n_initial_link_poses != 0) {
        mark = path_push(c, ".initial_link_poses");
        fail(c, "not allowed with \"joints\" (give \"initial_positions\")");
        path_pop(c, mark);
        return false;
    }
    return get_pose(c, v, "base_pose", &r->base_pose) &&
           get_number_list(c, v, "initial_positions", false, &r->n_initial_positions,
                           &r->initial_positions);
}

static bool parse_robot(ctx *c, const cJSON *v, Gjkd__V1__Robot **out)
{
    static const char *const keys[] = {"name",
                                       "links",
                                       "self_collision",
                                       "disabled_pairs",
                                       "padding",
                                       "initial_link_poses",
                                       "joints",
                                       "base_pose",
                                       "initial_positions",
                                       NULL};
    if (!expect_object(c, v) || !check_keys(c, v, keys))
        return false;
    Gjkd__V1__Robot *r = alloc(c, sizeof *r);
    if (r == NULL)
        return false;
    gjkd__v1__robot__init(r);
    *out = r;
    if (!get_string(c, v, "name", true, &r->name) ||
        !get_bool(c, v, "self_collision", &r->self_collision) ||
        !get_nonneg(c, v, "padding", 0.0, false, &r->padding) ||
        !get_pose_array(c, v, "initial_link_poses", false, &r->n_initial_link_poses,
                        &r->initial_link_poses))
        return false;

    const cJSON *links = member(v, "links");
    size_t mark = path_push(c, ".links");
    bool ok =
        links != NULL ? expect_array(c, links, "links") : fail(c, "missing (an array of links)");
    int n = ok ? cJSON_GetArraySize(links) : 0;
    if (ok && n < 1)
        ok = fail(c, "a robot needs at least one link");
    if (ok && (r->links = alloc(c, (size_t)n * sizeof *r->links)) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? links->child : NULL; ok && it != NULL; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        ok = parse_link(c, it, &r->links[i]);
        if (r->links[i] != NULL)
            r->n_links = (size_t)(i + 1);
        path_pop(c, m);
    }
    path_pop(c, mark);
    if (!ok)
        return false;
    if (r->n_initial_link_poses != 0 && r->n_initial_link_poses != r->n_links) {
        mark = path_push(c, ".initial_link_poses");
        fail(c, "needs one pose per link (%zu), got %zu", r->n_links, r->n_initial_link_poses);
        path_pop(c, mark);
        return false;
    }
    if (!parse_robot_joints(c, v, r))
        return false;

    const cJSON *dp = member(v, "disabled_pairs");
    if (dp == NULL)
        return true;
    mark = path_push(c, ".disabled_pairs");
    ok = expect_array(c, dp, "pairs of link names");
    n = ok ? cJSON_GetArraySize(dp) : 0;
    if (ok && n > 0 &&
        (r->disabled_pairs = alloc(c, (size_t)n * sizeof *r->disabled_pairs)) == NULL)
        ok = false;
    i = 0;
    for (const cJSON *it = ok ? dp->child : NULL; ok && it != NULL; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        Gjkd__V1__LinkPair *lp = alloc(c, sizeof *lp);
        if (lp != NULL) {
            gjkd__v1__link_pair__init(lp);
            r->disabled_pairs[i] = lp;
            r->n_disabled_pairs = (size_t)(i + 1);
            ok = string_pair(c, it, "link", &lp->a, &lp->b);
        } else {
            ok = false;
        }
        path_pop(c, m);
    }
    path_pop(c, mark);
    return ok;
}

static bool parse_obstacle(ctx *c, const cJSON *v, Gjkd__V1__Obstacle **out)
{
    static const char *const keys[] = {"name", "parts", "pose", "padding", NULL};
    if (!expect_object(c, v) || !check_keys(c, v, keys))
        return false;
    Gjkd__V1__Obstacle *o = alloc(c, sizeof *o);
    if (o == NULL)
        return false;
    gjkd__v1__obstacle__init(o);
    *out = o;
    return get_string(c, v, "name", true, &o->name) && get_pose(c, v, "pose", &o->pose) &&
           get_parts(c, v, false, &o->n_parts, &o->parts) &&
           get_nonneg(c, v, "padding", 0.0, false, &o->padding);
}

/* A body of an allowed pair: "robot/link", "robot/<star>", "obstacle", or an object. */
static bool parse_body(ctx *c, const cJSON *v, Gjkd__V1__BodyRef **out)
{
    Gjkd__V1__BodyRef *b = alloc(c, sizeof *b);
    if (b == NULL)
        return false;
    gjkd__v1__body_ref__init(b);
    *out = b;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        const char *slash = strchr(s, '/');
        if (s[0] == '\0')
            return fail(c, "must not be empty");
        if (!gjkd_utf8_valid(s))
            return fail(c, "\"%s\" is not valid UTF-8", s);
        if (slash == NULL)
            return (b->obstacle = dup_string(c, s)) != NULL;
        if (slash == s || slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
            return fail(c,
                        "\"%s\" is not \"robot/link\", \"robot/*\" or \"obstacle\" (use "
                        "{\"robot\": ..., \"link\": ...} for names containing '/')",
                        s);
        size_t n = (size_t)(slash - s);
        if ((b->robot = alloc(c, n + 1)) == NULL)
            return false;
        memcpy(b->robot, s, n);
        if (strcmp(slash + 1, "*") == 0)
            return true; /* link empty: every link of the robot */
        return (b->link = dup_string(c, slash + 1)) != NULL;
    }
    static const char *const keys[] = {"robot", "link", "obstacle", NULL};
    if (!cJSON_IsObject(v))
        return fail(c, "expected \"robot/link\", \"robot/*\", \"obstacle\" or an object, got %s",
                    type_name(v));
    if (!check_keys(c, v, keys))
        return false;
    bool has_robot = member(v, "robot") != NULL, has_obstacle = member(v, "obstacle") != NULL;
    if (has_robot == has_obstacle)
        return fail(c, "needs exactly one of \"robot\" and \"obstacle\"");
    if (has_obstacle)
        return member(v, "link") == NULL ? get_string(c, v, "obstacle", true, &b->obstacle)
                                         : fail(c, "an obstacle has no \"link\"");
    return get_string(c, v, "robot", true, &b->robot) && get_string(c, v, "link", false, &b->link);
}

static bool parse_allowed_pairs(ctx *c, const cJSON *root, Gjkd__V1__Scene *scene)
{
    const cJSON *v = member(root, "allowed_pairs");
    if (v == NULL)
        return true;
    size_t mark = path_push(c, ".allowed_pairs");
    bool ok = expect_array(c, v, "pairs of bodies");
    int n = ok ? cJSON_GetArraySize(v) : 0;
    if (ok && n > 0 && (scene->allowed_pairs = alloc(c, (size_t)n * sizeof(void *))) == NULL)
        ok = false;
    int i = 0;
    for (const cJSON *it = ok ? v->child : NULL; ok && it != NULL; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        Gjkd__V1__AllowedPair *ap = alloc(c, sizeof *ap);
        ok = ap != NULL;
        if (ok) {
            gjkd__v1__allowed_pair__init(ap);
            scene->allowed_pairs[i] = ap;
            scene->n_allowed_pairs = (size_t)(i + 1);
            if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2) {
                ok = fail(c, "expected a pair [A, B] of bodies, got %s",
                          cJSON_IsArray(it) ? "an array of another length" : type_name(it));
            } else {
                size_t k = path_push(c, "[0]");
                ok = parse_body(c, it->child, &ap->a);
                path_pop(c, k);
                k = path_push(c, "[1]");
                ok = ok && parse_body(c, it->child->next, &ap->b);
                path_pop(c, k);
            }
        }
        path_pop(c, m);
    }
    path_pop(c, mark);
    return ok;
}

/* protobuf-c's *__init leaves every string field pointing at its static empty string
 * (protobuf_c_empty_string), which *__free_unpacked knows not to free but a caller would not:
 * gjkctl freed the absent "name" of a trajectory to put --name in its place and crashed. So a
 * parsed message gets, in every string field still at that default (in m and every message
 * below it; a oneof's active member only), a malloc'd "" of its own: every string of a
 * returned message is owned (gjkd_json.h, "Memory"). */
static bool own_strings(ctx *c, ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        char *field = (char *)m + f->offset;
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            *(const uint32_t *)((const char *)m + f->quantifier_offset) != f->id)
            continue;
        if (f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        size_t n = 1;
        void **items = (void **)field;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            n = *(const size_t *)((const char *)m + f->quantifier_offset);
            items = *(void ***)field;
        }
        for (size_t k = 0; k < n; k++) {
            if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (items[k] != NULL && !own_strings(c, items[k]))
                    return false;
            } else if (items[k] == NULL || items[k] == (void *)protobuf_c_empty_string) {
                if ((items[k] = dup_string(c, "")) == NULL)
                    return false;
            }
        }
    }
    return true;
}

/* Parses text into a cJSON tree; fails with line and column on a syntax error. */
static cJSON *parse_text(ctx *c, const char *text, size_t length)
{
    if (text == NULL) {
        fail(c, "no document");
        return NULL;
    }
    if (length > GJKD_JSON_MAX_BYTES) {
        fail(c, "document of %zu bytes exceeds the limit of %u bytes", length, GJKD_JSON_MAX_BYTES);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, length, &end, false);
    /* Only whitespace may follow the document. */
    if (root != NULL && end != NULL) {
        const char *p = end;
        while (p < text + length && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            p++;
        if (p < text + length && *p != '\0') {
            end = p;
            cJSON_Delete(root);
            root = NULL;
        }
    }
    if (root == NULL) {
        int line = 1, col = 1;
        const char *stop = end != NULL && end >= text && end <= text + length ? end : text;
        for (const char *p = text; p < stop; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        if (c->err) {
            c->err->line = line;
            c->err->column = col;
        }
        fail(c, "JSON syntax error at line %d, column %d", line, col);
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        fail(c, "expected the document to be an object, got %s", type_name(root));
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

bool gjkd_json_parse_scene(const char *text, size_t length, Gjkd__V1__Scene **out,
                           gjkd_json_error *err)
{
    ctx c;
    ctx_init(&c, err);
    *out = NULL;
    cJSON *root = parse_text(&c, text, length);
    if (root == NULL)
        return false;
    static const char *const keys[] = {"format",        "robots",   "obstacles",
                                       "allowed_pairs", "revision", NULL};
    Gjkd__V1__Scene *scene = NULL;
    bool ok = check_keys(&c, root, keys) && check_format(&c, root, "gjkd-scene/1");
    if (ok && (scene = alloc(&c, sizeof *scene)) == NULL)
        ok = false;
    if (ok) {
        gjkd__v1__scene__init(scene);
        const cJSON *rev = member(root, "revision");
        if (rev != NULL) {
            /* Written by gjkd_json_write_scene for the record; a put never uses it. */
            size_t m = path_push(&c, ".revision");
            double d = cJSON_IsNumber(rev) ? rev->valuedouble : -1.0;
            if (!(d >= 0.0 && d <= 9007199254740992.0 && d == floor(d)))
                ok = fail(&c, "expected an integer >= 0, got %s", type_name(rev));
            else
                scene->revision = (uint64_t)d;
            path_pop(&c, m);
        }
    }
    const cJSON *robots = ok ? member(root, "robots") : NULL;
    if (robots != NULL) {
        size_t mark = path_push(&c, ".robots");
        ok = expect_array(&c, robots, "robots");
        int n = ok ? cJSON_GetArraySize(robots) : 0;
        if (ok && n > 0 && (scene->robots = alloc(&c, (size_t)n * sizeof(void *))) == NULL)
            ok = false;
        int i = 0;
        for (const cJSON *it = ok ? robots->child : NULL; ok && it; it = it->next, i++) {
            size_t m = path_push(&c, "[%d]", i);
            ok = parse_robot(&c, it, &scene->robots[i]);
            if (scene->robots[i] != NULL)
                scene->n_robots = (size_t)(i + 1);
            path_pop(&c, m);
        }
        path_pop(&c, mark);
    }
    const cJSON *obstacles = ok ? member(root, "obstacles") : NULL;
    if (obstacles != NULL) {
        size_t mark = path_push(&c, ".obstacles");
        ok = expect_array(&c, obstacles, "obstacles");
        int n = ok ? cJSON_GetArraySize(obstacles) : 0;
        if (ok && n > 0 && (scene->obstacles = alloc(&c, (size_t)n * sizeof(void *))) == NULL)
            ok = false;
        int i = 0;
        for (const cJSON *it = ok ? obstacles->child : NULL; ok && it; it = it->next, i++) {
            size_t m = path_push(&c, "[%d]", i);
            ok = parse_obstacle(&c, it, &scene->obstacles[i]);
            if (scene->obstacles[i] != NULL)
                scene->n_obstacles = (size_t)(i + 1);
            path_pop(&c, m);
        }
        path_pop(&c, mark);
    }
    ok = ok && parse_allowed_pairs(&c, root, scene) && own_strings(&c, &scene->base);
    cJSON_Delete(root);
    if (!ok) {
        gjkd_json_scene_free(&scene);
        return false;
    }
    *out = scene;
    return true;
}

/* ------------------------------------------------------------------ poses and trajectory */

/* A sensor_msgs/JointState as JSON: "name" (optional: without it "position" is the full vector
 * in the robot's DOF order) and "position", plus gjkd's optional "base_pose". A JointState's
 * "header", "velocity" and "effort" are accepted and ignored, so that a message dumped from ROS
 * reads as it is. */
static bool parse_joint_state(ctx *c, const cJSON *v, Gjkd__V1__RobotState *rs)
{
    Gjkd__V1__JointPositions *jp = alloc(c, sizeof *jp);
    if (jp == NULL)
        return false;
    gjkd__v1__joint_positions__init(jp);
    rs->state_case = GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS;
    rs->joint_positions = jp;
    if (!get_name_list(c, v, "name", "joint names", &jp->n_names, &jp->names) ||
        !get_number_list(c, v, "position", true, &jp->n_positions, &jp->positions) ||
        !get_pose(c, v, "base_pose", &jp->base_pose))
        return false;
    if (jp->n_positions == 0) {
        size_t mark = path_push(c, ".position");
        fail(c, "needs at least one position");
        path_pop(c, mark);
        return false;
    }
    if (jp->n_names > 0 && jp->n_names != jp->n_positions)
        return fail(c, "%zu names for %zu positions", jp->n_names, jp->n_positions);
    return true;
}

/* A robot's state: "link_poses", or a JointState (parse_joint_state). */
static bool parse_robot_state(ctx *c, const cJSON *v, bool top_level, Gjkd__V1__RobotState **out)
{
    static const char *const keys[] = {"robot",  "link_poses", "name",   "position", "base_pose",
                                       "header", "velocity",   "effort", NULL};
    static const char *const top_keys[] = {"format",   "robot",     "link_poses", "name",
                                           "position", "base_pose", "header",     "velocity",
                                           "effort",   NULL};
    if (!expect_object(c, v) || !check_keys(c, v, top_level ? top_keys : keys))
        return false;
    Gjkd__V1__RobotState *rs = alloc(c, sizeof *rs);
    if (rs == NULL)
        return false;
    gjkd__v1__robot_state__init(rs);
    *out = rs;
    if (!get_string(c, v, "robot", true, &rs->robot))
        return false;
    bool joint_state = member(v, "position") != NULL || member(v, "name") != NULL ||
                       member(v, "base_pose") != NULL;
    if (joint_state && member(v, "link_poses") != NULL)
        return fail(c, "give \"link_poses\" or a joint state (\"name\", \"position\"), not both");
    if (joint_state)
        return parse_joint_state(c, v, rs);
    Gjkd__V1__LinkPoses *lp = alloc(c, sizeof *lp);
    if (lp == NULL)
        return false;
    gjkd__v1__link_poses__init(lp);
    rs->state_case = GJKD__V1__ROBOT_STATE__STATE_LINK_POSES;
    rs->link_poses = lp;
    if (!get_pose_array(c, v, "link_poses", true, &lp->n_poses, &lp->poses))
        return false;
    return lp->n_poses > 0 ? true : fail(c, "\"link_poses\" must not be empty");
}

bool gjkd_json_parse_joint_state(const char *text, size_t length, const char *robot,
                                 Gjkd__V1__SetLinkPosesRequest **out, gjkd_json_error *err)
{
    ctx c;
    ctx_init(&c, err);
    *out = NULL;
    cJSON *root = parse_text(&c, text, length);
    if (root == NULL)
        return false;
    static const char *const keys[] = {"format", "name",     "position", "base_pose",
                                       "header", "velocity", "effort",   NULL};
    Gjkd__V1__SetLinkPosesRequest *req = alloc(&c, sizeof *req);
    Gjkd__V1__RobotState *rs = NULL;
    bool ok = req != NULL && check_format(&c, root, "gjkd-joints/1") && check_keys(&c, root, keys);
    if (req != NULL)
        gjkd__v1__set_link_poses_request__init(req);
    if (ok &&
        ((req->robots = alloc(&c, sizeof(void *))) == NULL || (rs = alloc(&c, sizeof *rs)) == NULL))
        ok = false;
    if (rs != NULL) {
        gjkd__v1__robot_state__init(rs);
        req->robots[0] = rs;
        req->n_robots = 1;
        ok = (rs->robot = dup_string(&c, robot)) != NULL;
    }
    ok = ok && parse_joint_state(&c, root, rs) && own_strings(&c, &req->base);
    cJSON_Delete(root);
    if (!ok) {
        gjkd_json_poses_free(&req);
        return false;
    }
    *out = req;
    return true;
}

bool gjkd_json_parse_poses(const char *text, size_t length, Gjkd__V1__SetLinkPosesRequest **out,
                           gjkd_json_error *err)
{
    ctx c;
    ctx_init(&c, err);
    *out = NULL;
    cJSON *root = parse_text(&c, text, length);
    if (root == NULL)
        return false;
    Gjkd__V1__SetLinkPosesRequest *req = alloc(&c, sizeof *req);
    bool ok = req != NULL && check_format(&c, root, "gjkd-poses/1");
    if (req != NULL)
        gjkd__v1__set_link_poses_request__init(req);
    const cJSON *robots = member(root, "robots");
    if (ok && robots == NULL) {
        /* The single-robot form: {"robot": ..., "link_poses": [...]}. */
        if ((req->robots = alloc(&c, sizeof(void *))) == NULL)
            ok = false;
        else
            ok = parse_robot_state(&c, root, true, &req->robots[0]);
        if (req->robots != NULL && req->robots[0] != NULL)
            req->n_robots = 1;
    } else if (ok) {
        static const char *const keys[] = {"format", "robots", NULL};
        size_t mark = path_push(&c, ".robots");
        ok = check_keys(&c, root, keys) && expect_array(&c, robots, "robot states");
        int n = ok ? cJSON_GetArraySize(robots) : 0;
        if (ok && n < 1)
            ok = fail(&c, "needs at least one robot");
        if (ok && (req->robots = alloc(&c, (size_t)n * sizeof(void *))) == NULL)
            ok = false;
        int i = 0;
        for (const cJSON *it = ok ? robots->child : NULL; ok && it; it = it->next, i++) {
            size_t m = path_push(&c, "[%d]", i);
            ok = parse_robot_state(&c, it, false, &req->robots[i]);
            if (req->robots[i] != NULL)
                req->n_robots = (size_t)(i + 1);
            path_pop(&c, m);
        }
        path_pop(&c, mark);
    }
    ok = ok && own_strings(&c, &req->base);
    cJSON_Delete(root);
    if (!ok) {
        gjkd_json_poses_free(&req);
        return false;
    }
    *out = req;
    return true;
}

/* A joint-space waypoint list: every waypoint an array of the same number of finite values
 * (DOF values), packed into waypoint_joints with waypoint_count. */
static bool parse_joint_waypoints(ctx *c, const cJSON *wps, int n,
                                  Gjkd__V1__TrajectoryQueryRequest *req)
{
    int dof = cJSON_GetArraySize(wps->child);
    if ((req->waypoint_joints = alloc(c, ((size_t)n * (size_t)dof + 1) * sizeof(double))) == NULL)
        return false;
    int i = 0;
    bool ok = true;
    for (const cJSON *it = wps->child; ok && it; it = it->next, i++) {
        size_t m = path_push(c, "[%d]", i);
        if (!cJSON_IsArray(it))
            ok = fail(c, "expected a joint vector (an array of numbers) like waypoint 0, got %s",
                      type_name(it));
        else if (cJSON_GetArraySize(it) != dof)
            ok = fail(c, "has %d joint values, waypoint 0 has %d", cJSON_GetArraySize(it), dof);
        else
            ok = number_array(c, it, dof, req->waypoint_joints + (size_t)i * (size_t)dof,
                              "a joint vector");
        path_pop(c, m);
    }
    req->n_waypoint_joints = (size_t)n * (size_t)dof;
    req->waypoint_count = (uint32_t)n;
    return ok;
}

bool gjkd_json_parse_trajectory(const char *text, size_t length,
                                Gjkd__V1__TrajectoryQueryRequest **out, gjkd_json_error *err)
{
    ctx c;
    ctx_init(&c, err);
    *out = NULL;
    cJSON *root = parse_text(&c, text, length);
    if (root == NULL)
        return false;
    static const char *const keys[] = {"format", "robot", "name", "waypoints", "joint_names", NULL};
    static const char *const wp_keys[] = {"link_poses", NULL};
    Gjkd__V1__TrajectoryQueryRequest *req = alloc(&c, sizeof *req);
    bool ok = req != NULL;
    if (ok)
        gjkd__v1__trajectory_query_request__init(req);
    ok = ok && check_keys(&c, root, keys) && check_format(&c, root, "gjkd-trajectory/1") &&
         get_string(&c, root, "robot", true, &req->robot) &&
         get_string(&c, root, "name", false, &req->name);
    const cJSON *wps = ok ? member(root, "waypoints") : NULL;
    const cJSON *names = ok ? member(root, "joint_names") : NULL;
    if (ok) {
        size_t mark = path_push(&c, ".waypoints");
        ok = wps != NULL ? expect_array(&c, wps, "waypoints")
                         : fail(&c, "missing (an array of waypoints)");
        int n = ok ? cJSON_GetArraySize(wps) : 0;
        if (ok && n < 1)
            ok = fail(&c, "needs at least one waypoint");
        /* Joint vectors (arrays) or link poses (objects), decided by waypoint 0. */
        bool joints = ok && cJSON_IsArray(wps->child);
        if (ok && !joints && names != NULL)
            ok = fail(&c, "\"joint_names\" goes with joint-vector waypoints ([q0, q1, ...])");
        if (ok && joints) {
            ok = parse_joint_waypoints(&c, wps, n, req);
            n = 0; /* no waypoint messages */
        }
        if (ok && n > 0 && (req->waypoints = alloc(&c, (size_t)n * sizeof(void *))) == NULL)
            ok = false;
        size_t first_count = 0;
        int i = 0;
        for (const cJSON *it = ok && n > 0 ? wps->child : NULL; ok && it; it = it->next, i++) {
            size_t m = path_push(&c, "[%d]", i);
            Gjkd__V1__Waypoint *wp = NULL;
            Gjkd__V1__LinkPoses *lp = NULL;
            ok = expect_object(&c, it) && check_keys(&c, it, wp_keys) &&
                 (wp = alloc(&c, sizeof *wp)) != NULL;
            if (wp != NULL) {
                gjkd__v1__waypoint__init(wp);
                req->waypoints[i] = wp;
                req->n_waypoints = (size_t)(i + 1);
                ok = (lp = alloc(&c, sizeof *lp)) != NULL;
            }
            if (lp != NULL) {
                gjkd__v1__link_poses__init(lp);
                wp->state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
                wp->link_poses = lp;
                ok = get_pose_array(&c, it, "link_poses", true, &lp->n_poses, &lp->poses);
                if (ok && lp->n_poses == 0)
                    ok = fail(&c, "\"link_poses\" must not be empty");
                if (ok && i == 0)
                    first_count = lp->n_poses;
                if (ok && lp->n_poses != first_count)
                    ok = fail(&c, "has %zu link poses, waypoint 0 has %zu", lp->n_poses,
                              first_count);
            }
            path_pop(&c, m);
        }
        path_pop(&c, mark);
    }
    if (ok && names != NULL) {
        ok = get_name_list(&c, root, "joint_names", "joint names", &req->n_joint_names,
                           &req->joint_names);
        if (ok && req->n_waypoint_joints / req->waypoint_count != req->n_joint_names) {
            size_t mark = path_push(&c, ".joint_names");
            ok = fail(&c, "%zu names for joint vectors of %zu values", req->n_joint_names,
                      req->n_waypoint_joints / req->waypoint_count);
            path_pop(&c, mark);
        }
    }
    ok = ok && own_strings(&c, &req->base);
    cJSON_Delete(root);
    if (!ok) {
        gjkd_json_trajectory_free(&req);
        return false;
    }
    *out = req;
    return true;
}

/* ------------------------------------------------------------------ freeing */

void gjkd_json_scene_free(Gjkd__V1__Scene **msg)
{
    if (msg != NULL && *msg != NULL) {
        gjkd__v1__scene__free_unpacked(*msg, NULL);
        *msg = NULL;
    }
}

void gjkd_json_poses_free(Gjkd__V1__SetLinkPosesRequest **msg)
{
    if (msg != NULL && *msg != NULL) {
        gjkd__v1__set_link_poses_request__free_unpacked(*msg, NULL);
        *msg = NULL;
    }
}

void gjkd_json_trajectory_free(Gjkd__V1__TrajectoryQueryRequest **msg)
{
    if (msg != NULL && *msg != NULL) {
        gjkd__v1__trajectory_query_request__free_unpacked(*msg, NULL);
        *msg = NULL;
    }
}

/* ------------------------------------------------------------------ writing */

/* "%.<p>g" of a value given by p significant digits (digits[0] non-zero) and its decimal
 * exponent x (value = d.ddd x 10^x), as printf writes it: fixed notation when p > x >= -4,
 * else exponential with at least two exponent digits; trailing zeros of the fraction dropped
 * (and the point with them). Returns the length written into out. */
static int render_g(bool negative, const char *digits, int p, int x, char *out)
{
    int last = p; /* digits[0 .. last) are kept: the fraction's trailing zeros go */
    char *o = out;
    if (negative)
        *o++ = '-';
    if (p > x && x >= -4) {
        int integer = x >= 0 ? x + 1 : 0;
        while (last > integer && digits[last - 1] == '0')
            last--;
        if (x < 0) {
            *o++ = '0';
            if (last > 0) {
                *o++ = '.';
                for (int i = 0; i < -x - 1; i++)
                    *o++ = '0';
            }
        }
        for (int i = 0; i < last; i++) {
            if (i == integer && x >= 0)
                *o++ = '.';
            *o++ = digits[i];
        }
    } else {
        while (last > 1 && digits[last - 1] == '0')
            last--;
        *o++ = digits[0];
        if (last > 1)
            *o++ = '.';
        for (int i = 1; i < last; i++)
            *o++ = digits[i];
        o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    }
    *o = '\0';
    return (int)(o - out);
}

/* d17 (17 digits of the value, correctly rounded, exponent x17) rounded to p < 17 digits into
 * digits (exponent *x) as printf rounds the value itself: when the dropped digits are not
 * exactly one half. Exactly one half is a tie of d17 only (the value was rounded once to get
 * it): false, and printf decides. */
static bool round_digits(const char *d17, int x17, int p, char *digits, int *x)
{
    bool half = d17[p] == '5';
    for (int i = p + 1; half && i < 17; i++)
        half = d17[i] == '0';
    if (half)
        return false;
    memcpy(digits, d17, (size_t)p);
    *x = x17;
    if (d17[p] >= '5') { /* more than half: up, carrying */
        int i = p - 1;
        while (i >= 0 && digits[i] == '9')
            digits[i--] = '0';
        if (i >= 0) {
            digits[i]++;
        } else { /* 9.99..9 -> 10.0..0 */
            digits[0] = '1';
            ++*x;
        }
    }
    return true;
}

static bool reads_back(const char *text, double v)
{
    double back = strtod(text, NULL);
    return memcmp(&back, &v, sizeof v) == 0; /* bitwise: -0.0 must not pass for 0.0 */
}

bool gjkd_json_format_double(double v, char *buf)
{
    if (!isfinite(v)) {
        memcpy(buf, "null", 5);
        return false;
    }
    /* The shortest of %.15g, %.16g and %.17g that reads back bit for bit (17 significant
     * digits always do, IEEE 754 binary64). One printf gives the 17 digits; the 15- and
     * 16-digit forms are rounded from them, which is printf's own rounding except when the
     * digits dropped are exactly one half (then printf is asked). */
    char e17[GJKD_JSON_NUMBER_SIZE];
    snprintf(e17, sizeof e17, "%.16e", v); /* [-]d.dddddddddddddddde[+-]xx */
    const char *m = e17 + (e17[0] == '-');
    char d17[17], digits[17];
    d17[0] = m[0];
    memcpy(d17 + 1, m + 2, 16);
    int x17 = atoi(m + 19);
    bool negative = e17[0] == '-';
    int n = -1;
    for (int p = 15; p <= 16 && n < 0 && v != 0.0; p++) {
        int x;
        if (round_digits(d17, x17, p, digits, &x))
            n = render_g(negative, digits, p, x, buf);
        else
            n = snprintf(buf, GJKD_JSON_NUMBER_SIZE, "%.*g", p, v);
        if (!reads_back(buf, v))
            n = -1;
    }
    if (n < 0) /* 17 digits, or a zero ("0", "-0") */
        n = v != 0.0 ? render_g(negative, d17, 17, x17, buf)
                     : snprintf(buf, GJKD_JSON_NUMBER_SIZE, "%.17g", v);
    if (strpbrk(buf, ".e") == NULL && n > 0 && n + 2 < GJKD_JSON_NUMBER_SIZE)
        memcpy(buf + n, ".0", 3);
    return true;
}

cJSON *gjkd_json_double(double v)
{
    char buf[GJKD_JSON_NUMBER_SIZE];
    if (!gjkd_json_format_double(v, buf))
        return cJSON_CreateNull();
    return cJSON_CreateRaw(buf);
}

cJSON *gjkd_json_int(int64_t v)
{
    char buf[GJKD_JSON_NUMBER_SIZE];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return cJSON_CreateRaw(buf);
}

cJSON *gjkd_json_uint(uint64_t v)
{
    char buf[GJKD_JSON_NUMBER_SIZE];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return cJSON_CreateRaw(buf);
}

/* A number of a document: refused (NULL) when not finite, see gjkd_json.h. */
static cJSON *number_node(double v)
{
    return isfinite(v) ? gjkd_json_double(v) : NULL;
}

/* Adds x (NULL: out of memory or refused) under key; deletes it on failure. */
static bool add_node(cJSON *obj, const char *key, cJSON *x)
{
    if (x == NULL || !cJSON_AddItemToObject(obj, key, x)) {
        cJSON_Delete(x);
        return false;
    }
    return true;
}

static cJSON *number_array_node(const double *v, int n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr != NULL && i < n; i++) {
        cJSON *x = number_node(v[i]);
        if (x == NULL || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static bool add_numbers(cJSON *obj, const char *key, const double *v, int n)
{
    return add_node(obj, key, number_array_node(v, n));
}

static cJSON *write_pose(const Gjkd__V1__Pose *pose)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    bool ok = true;
    if (pose->position != NULL) {
        double p[3] = {pose->position->x, pose->position->y, pose->position->z};
        ok = add_numbers(o, "position", p, 3);
    }
    if (ok && pose->orientation != NULL) {
        const Gjkd__V1__Quaternion *q = pose->orientation;
        double w[4] = {q->w, q->x, q->y, q->z};
        ok = add_numbers(o, "quat_wxyz", w, 4);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool add_pose(cJSON *obj, const char *key, const Gjkd__V1__Pose *pose)
{
    if (pose == NULL)
        return true;
    cJSON *p = write_pose(pose);
    return p != NULL && cJSON_AddItemToObject(obj, key, p);
}

static bool add_points(cJSON *obj, const double *xyz, size_t n_xyz)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, "points");
    if (arr == NULL || n_xyz % 3 != 0)
        return false;
    for (size_t i = 0; i < n_xyz; i += 3) {
        if (!isfinite(xyz[i]) || !isfinite(xyz[i + 1]) || !isfinite(xyz[i + 2]))
            return false;
        cJSON *p = number_array_node(xyz + i, 3);
        if (p == NULL || !cJSON_AddItemToArray(arr, p)) {
            cJSON_Delete(p);
            return false;
        }
    }
    return true;
}

static bool add_ints(cJSON *obj, const char *key, const int32_t *v, size_t n)
{
    if (n == 0)
        return true;
    cJSON *arr = cJSON_AddArrayToObject(obj, key);
    for (size_t i = 0; arr != NULL && i < n; i++) {
        cJSON *x = gjkd_json_int(v[i]);
        if (x == NULL || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            return false;
        }
    }
    return arr != NULL;
}

static bool add_number(cJSON *obj, const char *key, double v)
{
    return add_node(obj, key, number_node(v));
}

static cJSON *write_part(const Gjkd__V1__Part *part)
{
    cJSON *o = cJSON_CreateObject();
    const Gjkd__V1__Shape *s = part->shape;
    if (o == NULL || s == NULL)
        goto fail;
    if (part->name != NULL && part->name[0] != '\0' &&
        cJSON_AddStringToObject(o, "name", part->name) == NULL)
        goto fail;
    bool ok = true;
    switch (s->kind_case) {
    case GJKD__V1__SHAPE__KIND_POINT:
        ok = cJSON_AddStringToObject(o, "type", "point") != NULL;
        break;
    case GJKD__V1__SHAPE__KIND_SPHERE:
        ok = cJSON_AddStringToObject(o, "type", "sphere") &&
             add_number(o, "radius", s->sphere->radius);
        break;
    case GJKD__V1__SHAPE__KIND_CAPSULE:
        ok = cJSON_AddStringToObject(o, "type", "capsule") &&
             add_number(o, "radius", s->capsule->radius) &&
             add_number(o, "half_height", s->capsule->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_CYLINDER:
        ok = cJSON_AddStringToObject(o, "type", "cylinder") &&
             add_number(o, "radius", s->cylinder->radius) &&
             add_number(o, "half_height", s->cylinder->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_CONE:
        ok = cJSON_AddStringToObject(o, "type", "cone") &&
             add_number(o, "radius", s->cone->radius) &&
             add_number(o, "half_height", s->cone->half_height);
        break;
    case GJKD__V1__SHAPE__KIND_BOX: {
        const Gjkd__V1__Vec3 *h = s->box->half_extents;
        double he[3] = {h ? h->x : 0.0, h ? h->y : 0.0, h ? h->z : 0.0};
        ok = cJSON_AddStringToObject(o, "type", "box") && add_numbers(o, "half_extents", he, 3);
        break;
    }
    case GJKD__V1__SHAPE__KIND_ELLIPSOID: {
        const Gjkd__V1__Vec3 *r = s->ellipsoid->radii;
        double r3[3] = {r ? r->x : 0.0, r ? r->y : 0.0, r ? r->z : 0.0};
        ok = cJSON_AddStringToObject(o, "type", "ellipsoid") && add_numbers(o, "radii", r3, 3);
        break;
    }
    case GJKD__V1__SHAPE__KIND_HULL:
        ok = cJSON_AddStringToObject(o, "type", "hull") &&
             add_points(o, s->hull->xyz, s->hull->n_xyz);
        break;
    case GJKD__V1__SHAPE__KIND_CONVEX:
        ok = cJSON_AddStringToObject(o, "type", "convex") &&
             add_points(o, s->convex->xyz, s->convex->n_xyz) &&
             add_ints(o, "adjacency_start", s->convex->adjacency_start,
                      s->convex->n_adjacency_start) &&
             add_ints(o, "adjacency", s->convex->adjacency, s->convex->n_adjacency);
        break;
    default:
        ok = false;
        break;
    }
    if (!ok || !add_number(o, "margin", s->margin) || !add_pose(o, "pose", part->pose))
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static bool add_parts(cJSON *obj, Gjkd__V1__Part *const *parts, size_t n)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, "parts");
    for (size_t i = 0; arr != NULL && i < n; i++) {
        cJSON *p = write_part(parts[i]);
        if (p == NULL || !cJSON_AddItemToArray(arr, p)) {
            cJSON_Delete(p);
            return false;
        }
    }
    return arr != NULL;
}

static bool add_string_pair(cJSON *arr, const char *a, const char *b)
{
    const char *s[2] = {a, b};
    cJSON *pair = cJSON_CreateStringArray(s, 2);
    return pair != NULL && cJSON_AddItemToArray(arr, pair);
}

static cJSON *write_joint(const Gjkd__V1__Joint *j)
{
    cJSON *o = cJSON_CreateObject();
    size_t t = (size_t)j->type;
    if (o == NULL || t == 0 || t >= sizeof joint_type_names / sizeof *joint_type_names ||
        !cJSON_AddStringToObject(o, "name", j->name) ||
        !cJSON_AddStringToObject(o, "type", joint_type_names[t]) ||
        !cJSON_AddStringToObject(o, "parent", j->parent) ||
        !cJSON_AddStringToObject(o, "child", j->child) || !add_pose(o, "origin", j->origin))
        goto fail;
    if (j->axis != NULL) {
        double a[3] = {j->axis->x, j->axis->y, j->axis->z};
        if (!add_numbers(o, "axis", a, 3))
            goto fail;
    }
    if (j->limits != NULL) {
        cJSON *l = cJSON_AddObjectToObject(o, "limits");
        if (l == NULL || !add_number(l, "lower", j->limits->lower) ||
            !add_number(l, "upper", j->limits->upper))
            goto fail;
    }
    if (j->mimic != NULL) {
        cJSON *m = cJSON_AddObjectToObject(o, "mimic");
        if (m == NULL || !cJSON_AddStringToObject(m, "joint", j->mimic->joint) ||
            !add_number(m, "multiplier", j->mimic->multiplier) ||
            !add_number(m, "offset", j->mimic->offset))
            goto fail;
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

/* "joints", "base_pose" (when present), "initial_positions" (when non-empty). */
static bool add_joints(cJSON *o, const Gjkd__V1__Robot *r)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "joints");
    for (size_t i = 0; arr != NULL && i < r->n_joints; i++) {
        cJSON *j = write_joint(r->joints[i]);
        if (j == NULL || !cJSON_AddItemToArray(arr, j)) {
            cJSON_Delete(j);
            return false;
        }
    }
    if (arr == NULL || !add_pose(o, "base_pose", r->base_pose))
        return false;
    if (r->n_initial_positions > 0 &&
        !add_numbers(o, "initial_positions", r->initial_positions, (int)r->n_initial_positions))
        return false;
    return true;
}

static cJSON *write_robot(const Gjkd__V1__Robot *r)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddStringToObject(o, "name", r->name) ||
        !cJSON_AddBoolToObject(o, "self_collision", r->self_collision) ||
        !add_number(o, "padding", r->padding))
        goto fail;
    cJSON *links = cJSON_AddArrayToObject(o, "links");
    for (size_t i = 0; links != NULL && i < r->n_links; i++) {
        cJSON *l = cJSON_CreateObject();
        if (l == NULL || !cJSON_AddItemToArray(links, l) ||
            !cJSON_AddStringToObject(l, "name", r->links[i]->name) ||
            !add_number(l, "padding", r->links[i]->padding) ||
            !add_parts(l, r->links[i]->parts, r->links[i]->n_parts))
            goto fail;
    }
    cJSON *dp = links ? cJSON_AddArrayToObject(o, "disabled_pairs") : NULL;
    for (size_t i = 0; dp != NULL && i < r->n_disabled_pairs; i++) {
        if (!add_string_pair(dp, r->disabled_pairs[i]->a, r->disabled_pairs[i]->b))
            goto fail;
    }
    if (dp == NULL)
        goto fail;
    if (r->n_joints > 0 && !add_joints(o, r))
        goto fail;
    if (r->n_initial_link_poses > 0) {
        cJSON *ip = cJSON_AddArrayToObject(o, "initial_link_poses");
        for (size_t i = 0; ip != NULL && i < r->n_initial_link_poses; i++) {
            cJSON *p = write_pose(r->initial_link_poses[i]);
            if (p == NULL || !cJSON_AddItemToArray(ip, p)) {
                cJSON_Delete(p);
                goto fail;
            }
        }
        if (ip == NULL)
            goto fail;
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static cJSON *write_body(const Gjkd__V1__BodyRef *b)
{
    bool robot = b->robot != NULL && b->robot[0] != '\0';
    const char *link = b->link != NULL ? b->link : "";
    if (!robot) {
        const char *name = b->obstacle != NULL ? b->obstacle : "";
        if (strchr(name, '/') == NULL && name[0] != '\0')
            return cJSON_CreateString(name);
        cJSON *o = cJSON_CreateObject();
        if (o != NULL && !cJSON_AddStringToObject(o, "obstacle", name)) {
            cJSON_Delete(o);
            return NULL;
        }
        return o;
    }
    if (strchr(b->robot, '/') == NULL && strchr(link, '/') == NULL && strcmp(link, "*") != 0) {
        size_t n = strlen(b->robot) + strlen(link) + 3;
        char *s = malloc(n);
        if (s == NULL)
            return NULL;
        snprintf(s, n, "%s/%s", b->robot, link[0] != '\0' ? link : "*");
        cJSON *v = cJSON_CreateString(s);
        free(s);
        return v;
    }
    cJSON *o = cJSON_CreateObject();
    if (o != NULL && (!cJSON_AddStringToObject(o, "robot", b->robot) ||
                      (link[0] != '\0' && !cJSON_AddStringToObject(o, "link", link)))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

char *gjkd_json_write_scene(const Gjkd__V1__Scene *scene)
{
    cJSON *root = cJSON_CreateObject();
    if (root == NULL || !cJSON_AddStringToObject(root, "format", "gjkd-scene/1") ||
        !add_node(root, "revision", gjkd_json_uint(scene->revision)))
        goto fail;
    cJSON *robots = cJSON_AddArrayToObject(root, "robots");
    for (size_t i = 0; robots != NULL && i < scene->n_robots; i++) {
        cJSON *r = write_robot(scene->robots[i]);
        if (r == NULL || !cJSON_AddItemToArray(robots, r)) {
            cJSON_Delete(r);
            goto fail;
        }
    }
    cJSON *obstacles = robots ? cJSON_AddArrayToObject(root, "obstacles") : NULL;
    for (size_t i = 0; obstacles != NULL && i < scene->n_obstacles; i++) {
        const Gjkd__V1__Obstacle *ob = scene->obstacles[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(obstacles, o) ||
            !cJSON_AddStringToObject(o, "name", ob->name) || !add_pose(o, "pose", ob->pose) ||
            !add_number(o, "padding", ob->padding) || !add_parts(o, ob->parts, ob->n_parts))
            goto fail;
    }
    cJSON *allowed = obstacles ? cJSON_AddArrayToObject(root, "allowed_pairs") : NULL;
    for (size_t i = 0; allowed != NULL && i < scene->n_allowed_pairs; i++) {
        const Gjkd__V1__AllowedPair *ap = scene->allowed_pairs[i];
        cJSON *pair = cJSON_CreateArray();
        if (pair == NULL || !cJSON_AddItemToArray(allowed, pair) || ap->a == NULL || ap->b == NULL)
            goto fail;
        cJSON *a = write_body(ap->a), *b = a ? write_body(ap->b) : NULL;
        if (a == NULL || !cJSON_AddItemToArray(pair, a)) {
            cJSON_Delete(a);
            cJSON_Delete(b);
            goto fail;
        }
        if (b == NULL || !cJSON_AddItemToArray(pair, b)) {
            cJSON_Delete(b);
            goto fail;
        }
    }
    if (allowed == NULL)
        goto fail;
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* An array of poses under obj[key]; false on a non-finite number or out of memory. */
static bool add_pose_array(cJSON *obj, const char *key, Gjkd__V1__Pose *const *poses, size_t n)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, key);
    for (size_t i = 0; arr != NULL && i < n; i++) {
        cJSON *p = write_pose(poses[i]);
        if (p == NULL || !cJSON_AddItemToArray(arr, p)) {
            cJSON_Delete(p);
            return false;
        }
    }
    return arr != NULL;
}

static char *print_and_delete(cJSON *root, bool ok)
{
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

static bool add_joint_state(cJSON *r, const Gjkd__V1__JointPositions *jp)
{
    bool ok = true;
    if (jp->n_names > 0) {
        cJSON *names = cJSON_AddArrayToObject(r, "name");
        ok = names != NULL;
        for (size_t i = 0; ok && i < jp->n_names; i++)
            ok = cJSON_AddItemToArray(names, cJSON_CreateString(jp->names[i]));
    }
    ok = ok && jp->n_positions > 0 &&
         cJSON_AddItemToObject(r, "position",
                               number_array_node(jp->positions, (int)jp->n_positions));
    if (ok && jp->base_pose != NULL)
        ok = add_pose(r, "base_pose", jp->base_pose);
    return ok;
}

char *gjkd_json_write_poses(const Gjkd__V1__SetLinkPosesRequest *poses)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root != NULL && cJSON_AddStringToObject(root, "format", "gjkd-poses/1") != NULL;
    cJSON *robots = ok ? cJSON_AddArrayToObject(root, "robots") : NULL;
    ok = robots != NULL;
    for (size_t i = 0; ok && i < poses->n_robots; i++) {
        const Gjkd__V1__RobotState *rs = poses->robots[i];
        cJSON *r = cJSON_CreateObject();
        ok = r != NULL && cJSON_AddItemToArray(robots, r) &&
             cJSON_AddStringToObject(r, "robot", rs->robot) != NULL;
        if (ok && rs->state_case == GJKD__V1__ROBOT_STATE__STATE_LINK_POSES)
            ok = add_pose_array(r, "link_poses", rs->link_poses->poses, rs->link_poses->n_poses);
        else if (ok && rs->state_case == GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS)
            ok = add_joint_state(r, rs->joint_positions);
        else
            ok = false;
    }
    return print_and_delete(root, ok);
}

char *gjkd_json_write_trajectory(const Gjkd__V1__TrajectoryQueryRequest *t)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root != NULL &&
              cJSON_AddStringToObject(root, "format", "gjkd-trajectory/1") != NULL &&
              cJSON_AddStringToObject(root, "robot", t->robot) != NULL &&
              (t->name == NULL || t->name[0] == '\0' ||
               cJSON_AddStringToObject(root, "name", t->name) != NULL);
    if (ok && t->n_joint_names > 0) {
        cJSON *names = cJSON_AddArrayToObject(root, "joint_names");
        ok = names != NULL;
        for (size_t i = 0; ok && i < t->n_joint_names; i++)
            ok = cJSON_AddItemToArray(names, cJSON_CreateString(t->joint_names[i]));
    }
    cJSON *wps = ok ? cJSON_AddArrayToObject(root, "waypoints") : NULL;
    ok = wps != NULL;
    size_t dof = t->waypoint_count > 0 ? t->n_waypoint_joints / t->waypoint_count : 0;
    for (size_t i = 0; ok && t->n_waypoint_joints > 0 && i < t->waypoint_count; i++)
        ok = cJSON_AddItemToArray(wps, number_array_node(t->waypoint_joints + i * dof, (int)dof));
    for (size_t i = 0; ok && i < t->n_waypoints; i++) {
        const Gjkd__V1__Waypoint *w = t->waypoints[i];
        cJSON *o = cJSON_CreateObject();
        ok = o != NULL && cJSON_AddItemToArray(wps, o) &&
             w->state_case == GJKD__V1__WAYPOINT__STATE_LINK_POSES &&
             add_pose_array(o, "link_poses", w->link_poses->poses, w->link_poses->n_poses);
    }
    return print_and_delete(root, ok);
}

/* ------------------------------------------------------------------ files */

char *gjkd_json_read_file(const char *path, size_t *length, gjkd_json_error *err)
{
    ctx c;
    ctx_init(&c, err);
    /* Errors here name the file instead of a JSON path. */
    snprintf(c.path, sizeof c.path, "%s", path);
    c.len = strlen(c.path);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail(&c, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (n + 1 >= cap) {
            if (cap > GJKD_JSON_MAX_BYTES) {
                fail(&c, "larger than %u bytes", GJKD_JSON_MAX_BYTES);
                free(buf);
                buf = NULL;
                break;
            }
            char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                fail(&c, "out of memory");
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                fail(&c, "read error: %s", strerror(errno));
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    fclose(f);
    if (buf == NULL)
        return NULL;
    buf[n] = '\0';
    if (length != NULL)
        *length = n;
    return buf;
}
