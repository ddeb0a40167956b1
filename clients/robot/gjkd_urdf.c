/* gjkd_urdf.c — URDF/SRDF + meshes -> gjkd.v1 Robot (see gjkd_urdf.h). */
#define _XOPEN_SOURCE 700 /* realpath, strdup, strndup */
#include "gjkd_urdf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "gjk/hull.h"
#include "gjk/kinematics.h"

/* ------------------------------------------------------------------ errors and strings */

typedef struct ctx {
    const gjkd_urdf_options *opt;
    const char *urdf_path;
    char *urdf_dir; /* malloc'd */
    char *err;
    size_t err_size;
    bool failed;
    /* notes */
    char **notes;
    size_t note_count, note_cap;
    /* mesh cache */
    struct mesh_entry *meshes;
    size_t mesh_count, mesh_cap;
    uint64_t mesh_vertices, hull_vertices;
} ctx;

#if defined(__GNUC__)
#define GJKD_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GJKD_PRINTF(a, b)
#endif

static bool fail(ctx *c, const char *fmt, ...) GJKD_PRINTF(2, 3);
static bool fail(ctx *c, const char *fmt, ...)
{
    if (!c->failed && c->err && c->err_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->err_size, fmt, ap);
        va_end(ap);
    }
    c->failed = true;
    return false;
}

static bool note(ctx *c, const char *fmt, ...) GJKD_PRINTF(2, 3);
static bool note(ctx *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (c->note_count == c->note_cap) {
        size_t cap = c->note_cap ? 2 * c->note_cap : 16;
        char **n = realloc(c->notes, cap * sizeof *n);
        if (!n)
            return fail(c, "out of memory");
        c->notes = n;
        c->note_cap = cap;
    }
    char *s = strdup(buf);
    if (!s)
        return fail(c, "out of memory");
    c->notes[c->note_count++] = s;
    return true;
}

static char *dup_or_null(const char *s)
{
    return strdup(s ? s : "");
}

/* An element's location for messages: "FILE:LINE". */
static void where(const char *file, const xmlNode *n, char *buf, size_t size)
{
    snprintf(buf, size, "%s:%ld", file, n ? xmlGetLineNo(n) : 0L);
}

/* ------------------------------------------------------------------ files */

/* Reads a regular file of at most max bytes into a malloc'd buffer (NUL-terminated). */
static char *read_file_limited(ctx *c, const char *path, size_t max, size_t *length,
                               const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fail(c, "%s %s: %s", what, path, strerror(errno)), NULL;
    if (!S_ISREG(st.st_mode))
        return fail(c, "%s %s: not a regular file", what, path), NULL;
    if ((uint64_t)st.st_size > (uint64_t)max)
        return fail(c, "%s %s: %lld bytes, the limit is %zu", what, path, (long long)st.st_size,
                    max),
               NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(c, "%s %s: %s", what, path, strerror(errno)), NULL;
    size_t cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return fail(c, "%s %s: out of memory", what, path), NULL;
    }
    size_t n = fread(buf, 1, cap, f); /* reads one byte past a file that grew: refused below */
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad)
        return free(buf), fail(c, "%s %s: read error", what, path), NULL;
    if (n > (size_t)st.st_size)
        return free(buf), fail(c, "%s %s: changed while being read", what, path), NULL;
    buf[n] = '\0';
    *length = n;
    return buf;
}

static bool is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join_path(const char *dir, const char *rest)
{
    size_t a = strlen(dir), b = strlen(rest);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, a);
    size_t k = a;
    if (k > 0 && s[k - 1] != '/')
        s[k++] = '/';
    memcpy(s + k, rest, b + 1);
    return s;
}

static char *dirname_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* Appends ", PATH" to a bounded "tried" list. */
static void tried_add(char *tried, size_t size, const char *path)
{
    size_t len = strlen(tried);
    if (len + 3 < size)
        snprintf(tried + len, size - len, "%s%s", len ? ", " : "", path);
}

/* Resolves a URDF mesh filename to a readable file (malloc'd path) or fails naming what was
 * tried. */
static char *resolve_mesh(ctx *c, const char *uri, const char *loc, const char *elem)
{
    char tried[768] = "";
    if (strncmp(uri, "package://", 10) == 0) {
        const char *pkg = uri + 10;
        while (*pkg == '/') /* "package:///PKG/..." (some descriptions write three) */
            ++pkg;
        const char *slash = strchr(pkg, '/');
        if (!slash || slash == pkg || slash[1] == '\0')
            return fail(c, "%s: %s: mesh \"%s\": expected package://PACKAGE/PATH", loc, elem, uri),
                   NULL;
        size_t pkg_len = (size_t)(slash - pkg);
        for (size_t i = 0; i < c->opt->package_path_count; ++i) {
            const char *dir = c->opt->package_paths[i];
            if (!dir || !*dir)
                continue;
            char *p = join_path(dir, pkg);
            if (!p)
                return fail(c, "out of memory"), NULL;
            if (is_regular_file(p))
                return p;
            tried_add(tried, sizeof tried, p);
            free(p);
        }
        /* The ROS source layout: a directory named PACKAGE above the URDF (its absolute
         * path: a relative URDF path may not name the ancestor). */
        char *dir = realpath(c->urdf_dir, NULL);
        for (int depth = 0; dir && depth < 64; ++depth) {
            const char *base = strrchr(dir, '/');
            base = base ? base + 1 : dir;
            if (strlen(base) == pkg_len && strncmp(base, pkg, pkg_len) == 0) {
                char *p = join_path(dir, slash + 1);
                if (!p)
                    return free(dir), fail(c, "out of memory"), NULL;
                if (is_regular_file(p))
                    return free(dir), p;
                tried_add(tried, sizeof tried, p);
                free(p);
            }
            char *up = dirname_of(dir);
            if (!up)
                return free(dir), fail(c, "out of memory"), NULL;
            bool same = strcmp(up, dir) == 0;
            free(dir);
            dir = up;
            if (same || strcmp(dir, ".") == 0)
                break;
        }
        free(dir);
        if (!*tried)
            return fail(c,
                        "%s: %s: mesh \"%s\": package \"%.*s\" not found (no package path given "
                        "and no directory of that name above the URDF: --package-path DIR, "
                        "where DIR/%.*s is the package)",
                        loc, elem, uri, (int)pkg_len, pkg, (int)pkg_len, pkg),
                   NULL;
        return fail(c, "%s: %s: mesh \"%s\": not found (tried %s)", loc, elem, uri, tried), NULL;
    }
    const char *path = uri;
    if (strncmp(uri, "file://", 7) == 0)
        path = uri + 7;
    else if (strstr(uri, "://"))
        return fail(c, "%s: %s: mesh \"%s\": only package://, file:// and file paths are read", loc,
                    elem, uri),
               NULL;
    char *p = path[0] == '/' ? strdup(path) : join_path(c->urdf_dir, path);
    if (!p)
        return fail(c, "out of memory"), NULL;
    if (!is_regular_file(p)) {
        fail(c, "%s: %s: mesh \"%s\": not found (tried %s)", loc, elem, uri, p);
        free(p);
        return NULL;
    }
    return p;
}

/* ------------------------------------------------------------------ numbers */

/* Parses exactly n finite numbers separated by white space. */
static bool parse_doubles(const char *s, double *out, int n)
{
    if (!s)
        return false;
    const char *p = s;
    for (int i = 0; i < n; ++i) {
        while (isspace((unsigned char)*p))
            ++p;
        if (!*p)
            return false;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v))
            return false;
        if (*end && !isspace((unsigned char)*end))
            return false;
        out[i] = v;
        p = end;
    }
    while (isspace((unsigned char)*p))
        ++p;
    return *p == '\0';
}

/* Attribute helpers: xmlGetProp returns malloc'd xmlChar strings. */
static char *attr(const xmlNode *n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* Reads attribute `name` of n as `count` finite numbers into out; absent -> defaults kept
 * (true), or an error when required. */
static bool attr_doubles(ctx *c, const xmlNode *n, const char *name, double *out, int count,
                         bool required, const char *loc, const char *elem)
{
    char *v = attr(n, name);
    if (!v) {
        if (required)
            return fail(c, "%s: %s: <%s> needs the attribute %s", loc, elem, (const char *)n->name,
                        name);
        return true;
    }
    bool ok = parse_doubles(v, out, count);
    if (!ok)
        fail(c, "%s: %s: <%s %s=\"%s\">: expected %d finite number%s", loc, elem,
             (const char *)n->name, name, v, count, count > 1 ? "s" : "");
    xmlFree(v);
    return ok;
}

static bool is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const xmlNode *first_child(const xmlNode *n, const char *name)
{
    for (const xmlNode *k = n->children; k; k = k->next)
        if (is_elem(k, name))
            return k;
    return NULL;
}

/* <origin xyz rpy> (both optional, zeros) -> a transform. */
static bool parse_origin(ctx *c, const xmlNode *parent, gjk_transform *t, const char *loc,
                         const char *elem)
{
    double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0};
    const xmlNode *o = first_child(parent, "origin");
    if (o && (!attr_doubles(c, o, "xyz", xyz, 3, false, loc, elem) ||
              !attr_doubles(c, o, "rpy", rpy, 3, false, loc, elem)))
        return false;
    t->p = (gjk_vec3){xyz[0], xyz[1], xyz[2]};
    t->q = gjk_quat_from_rpy(rpy[0], rpy[1], rpy[2]);
    return true;
}

/* ------------------------------------------------------------------ message builders */

static Gjkd__V1__Pose *new_pose(gjk_transform t)
{
    Gjkd__V1__Pose *p = malloc(sizeof *p);
    Gjkd__V1__Vec3 *v = malloc(sizeof *v);
    Gjkd__V1__Quaternion *q = malloc(sizeof *q);
    if (!p || !v || !q) {
        free(p), free(v), free(q);
        return NULL;
    }
    gjkd__v1__pose__init(p);
    gjkd__v1__vec3__init(v);
    gjkd__v1__quaternion__init(q);
    v->x = t.p.x, v->y = t.p.y, v->z = t.p.z;
    q->w = t.q.w, q->x = t.q.x, q->y = t.q.y, q->z = t.q.z;
    p->position = v;
    p->orientation = q;
    return p;
}

static Gjkd__V1__Vec3 *new_vec3(double x, double y, double z)
{
    Gjkd__V1__Vec3 *v = malloc(sizeof *v);
    if (v) {
        gjkd__v1__vec3__init(v);
        v->x = x, v->y = y, v->z = z;
    }
    return v;
}

/* A growable array of message pointers. */
typedef struct ptrs {
    void **v;
    size_t n, cap;
} ptrs;

static bool ptrs_push(ptrs *a, void *p)
{
    if (!p)
        return false;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 8;
        void **v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return false;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = p;
    return true;
}

/* A part with a fresh shape; the caller fills the kind. */
static Gjkd__V1__Part *new_part(const char *name, gjk_transform pose)
{
    Gjkd__V1__Part *p = malloc(sizeof *p);
    Gjkd__V1__Shape *s = malloc(sizeof *s);
    if (!p || !s) {
        free(p), free(s);
        return NULL;
    }
    gjkd__v1__part__init(p);
    gjkd__v1__shape__init(s);
    p->shape = s;
    p->name = dup_or_null(name);
    p->pose = new_pose(pose);
    if (!p->name || !p->pose) {
        gjkd__v1__part__free_unpacked(p, NULL);
        return NULL;
    }
    return p;
}

/* ------------------------------------------------------------------ meshes */

typedef struct hull_piece {
    double *xyz; /* 3 * count */
    int32_t count;
    int32_t *adj_start; /* count + 1 */
    int32_t *adj;
    int32_t adj_count;
} hull_piece;

typedef struct mesh_entry {
    char *path;
    double scale[3];
    hull_piece *pieces;
    size_t piece_count;
    uint64_t vertices; /* read from the file (all instances) */
    size_t sub_meshes; /* (node, mesh) instances in the file */
    bool merged;       /* more sub-meshes than parts allowed: one hull of all */
} mesh_entry;

static void mesh_entry_free(mesh_entry *m)
{
    for (size_t i = 0; i < m->piece_count; ++i) {
        free(m->pieces[i].xyz);
        free(m->pieces[i].adj_start);
        free(m->pieces[i].adj);
    }
    free(m->pieces);
    free(m->path);
}

static bool ext_is(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return false;
    ++dot;
    size_t n = strlen(ext);
    if (strlen(dot) != n)
        return false;
    for (size_t i = 0; i < n; ++i)
        if (tolower((unsigned char)dot[i]) != ext[i])
            return false;
    return true;
}

/* One (node, mesh) instance to hull: the mesh and its node's transform to the file's root. */
typedef struct affine {
    double m[3][4]; /* row-major affine transform */
} affine;

typedef struct instance {
    const struct aiMesh *mesh;
    affine t;
} instance;

typedef struct instances {
    instance *v;
    size_t n, cap;
} instances;

static void mat_from_ai(const struct aiMatrix4x4 *a, affine *t)
{
    double(*m)[4] = t->m;
    m[0][0] = a->a1, m[0][1] = a->a2, m[0][2] = a->a3, m[0][3] = a->a4;
    m[1][0] = a->b1, m[1][1] = a->b2, m[1][2] = a->b3, m[1][3] = a->b4;
    m[2][0] = a->c1, m[2][1] = a->c2, m[2][2] = a->c3, m[2][3] = a->c4;
}

static affine mat_mul(const affine *a, const affine *b)
{
    affine r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
            double s = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j];
            if (j == 3)
                s += a->m[i][3];
            r.m[i][j] = s;
        }
    return r;
}

#define MESH_MAX_NODE_DEPTH 256

static bool collect_instances(ctx *c, const struct aiScene *scene, const struct aiNode *node,
                              const affine *parent, int depth, instances *out, const char *path)
{
    if (depth > MESH_MAX_NODE_DEPTH)
        return fail(c, "mesh %s: node hierarchy deeper than %d", path, MESH_MAX_NODE_DEPTH);
    affine local;
    mat_from_ai(&node->mTransformation, &local);
    affine m = mat_mul(parent, &local);
    for (unsigned i = 0; i < node->mNumMeshes; ++i) {
        unsigned k = node->mMeshes[i];
        if (k >= scene->mNumMeshes)
            return fail(c, "mesh %s: node references mesh %u of %u", path, k, scene->mNumMeshes);
        if (scene->mMeshes[k]->mNumVertices == 0)
            continue;
        if (out->n == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 8;
            instance *v = realloc(out->v, cap * sizeof *v);
            if (!v)
                return fail(c, "out of memory");
            out->v = v;
            out->cap = cap;
        }
        out->v[out->n].mesh = scene->mMeshes[k];
        out->v[out->n].t = m;
        ++out->n;
    }
    for (unsigned i = 0; i < node->mNumChildren; ++i)
        if (!collect_instances(c, scene, node->mChildren[i], &m, depth + 1, out, path))
            return false;
    return true;
}

/* Point groups: one per sub-mesh, in the mesh frame of the collision (the file's node
 * transforms and the URDF scale applied), in double. */
typedef struct group {
    gjk_vec3 *p;
    size_t n, cap;
} group;

typedef struct groups {
    group *v;
    size_t n, cap;
    uint64_t total; /* points over all groups */
    uint64_t limit; /* the vertex limit of one file */
} groups;

static void groups_free(groups *g)
{
    for (size_t i = 0; i < g->n; ++i)
        free(g->v[i].p);
    free(g->v);
    memset(g, 0, sizeof *g);
}

/* Starts a new group unless the last one is still empty. */
static bool groups_next(groups *g)
{
    if (g->n > 0 && g->v[g->n - 1].n == 0)
        return true;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 4;
        group *v = realloc(g->v, cap * sizeof *v);
        if (!v)
            return false;
        g->v = v;
        g->cap = cap;
    }
    memset(&g->v[g->n++], 0, sizeof(group));
    return true;
}

typedef enum add_result { ADD_OK, ADD_NO_MEMORY, ADD_LIMIT } add_result;

static add_result groups_add(groups *g, gjk_vec3 p)
{
    if (g->n == 0 && !groups_next(g))
        return ADD_NO_MEMORY;
    if (++g->total > g->limit)
        return ADD_LIMIT;
    group *last = &g->v[g->n - 1];
    if (last->n == last->cap) {
        size_t cap = last->cap ? 2 * last->cap : 64;
        gjk_vec3 *v = realloc(last->p, cap * sizeof *v);
        if (!v)
            return ADD_NO_MEMORY;
        last->p = v;
        last->cap = cap;
    }
    last->p[last->n++] = p;
    return ADD_OK;
}

/* Where a mesh reader reports from. */
typedef struct mesh_src {
    ctx *c;
    const char *path, *loc, *elem;
    const double *scale;
} mesh_src;

static bool add_point(const mesh_src *m, groups *g, double x, double y, double z)
{
    gjk_vec3 p = {x * m->scale[0], y * m->scale[1], z * m->scale[2]};
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z))
        return fail(m->c, "%s: %s: mesh %s: a vertex is not finite", m->loc, m->elem, m->path);
    switch (groups_add(g, p)) {
    case ADD_OK:
        return true;
    case ADD_NO_MEMORY:
        return fail(m->c, "out of memory");
    case ADD_LIMIT:
        break;
    }
    return fail(m->c, "%s: %s: mesh %s: over the vertex limit of %llu", m->loc, m->elem, m->path,
                (unsigned long long)g->limit);
}

/* assimp: binary STL (float32 in the file: exact) and COLLADA (float: see gjkd_urdf.h). Every
 * (node, mesh) instance is a group. */
static bool read_assimp(const mesh_src *m, const char *buf, size_t len, const char *hint, groups *g)
{
    ctx *c = m->c;
    if (len > UINT32_MAX)
        return fail(c, "%s: %s: mesh %s: too large for assimp", m->loc, m->elem, m->path);
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props)
        return fail(c, "out of memory");
    /* ROS convention: a COLLADA file's coordinates are the link's, whatever its <up_axis>;
     * its <unit meter> is honoured (assimp applies it at the root node). */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    const struct aiScene *scene = aiImportFileFromMemoryWithProperties(
        buf, (unsigned)len, aiProcess_ValidateDataStructure, hint, props);
    aiReleasePropertyStore(props);
    if (!scene || !scene->mRootNode) {
        const char *why = aiGetErrorString();
        if (scene)
            aiReleaseImport(scene);
        return fail(c, "%s: %s: mesh %s: cannot be read (%s)", m->loc, m->elem, m->path,
                    why && *why ? why : "no geometry");
    }
    bool ok = false;
    instances inst = {0};
    static const affine identity = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
    if (!collect_instances(c, scene, scene->mRootNode, &identity, 0, &inst, m->path))
        goto done;
    uint64_t total = 0;
    for (size_t i = 0; i < inst.n; ++i)
        total += inst.v[i].mesh->mNumVertices;
    if (total > g->limit) { /* before converting any */
        fail(c, "%s: %s: mesh %s: %llu vertices, over the vertex limit of %llu", m->loc, m->elem,
             m->path, (unsigned long long)total, (unsigned long long)g->limit);
        goto done;
    }
    for (size_t i = 0; i < inst.n; ++i) {
        const struct aiMesh *mesh = inst.v[i].mesh;
        const affine *t = &inst.v[i].t;
        if (!groups_next(g)) {
            fail(c, "out of memory");
            goto done;
        }
        for (unsigned k = 0; k < mesh->mNumVertices; ++k) {
            double x = mesh->mVertices[k].x, y = mesh->mVertices[k].y, z = mesh->mVertices[k].z;
            if (!add_point(m, g, t->m[0][0] * x + t->m[0][1] * y + t->m[0][2] * z + t->m[0][3],
                           t->m[1][0] * x + t->m[1][1] * y + t->m[1][2] * z + t->m[1][3],
                           t->m[2][0] * x + t->m[2][1] * y + t->m[2][2] * z + t->m[2][3]))
                goto done;
        }
    }
    ok = true;
done:
    free(inst.v);
    aiReleaseImport(scene);
    return ok;
}

/* The next line of [*p, end): sets [*line, *line_end) and advances *p. */
static bool next_line(const char **p, const char *end, const char **line, const char **line_end)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    *line = *p;
    *line_end = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    return true;
}

static const char *skip_blank(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v'))
        ++s;
    return s;
}

/* The keyword at s (up to white space) equals kw. */
static bool keyword_is(const char *s, const char *end, const char *kw)
{
    size_t n = strlen(kw);
    return (size_t)(end - s) >= n && memcmp(s, kw, n) == 0 &&
           (s + n == end || isspace((unsigned char)s[n]));
}

/* n doubles from s (within the line: the buffer is NUL-terminated, and a number never spans
 * a newline). */
static bool line_doubles(const char *s, const char *end, double *out, int n)
{
    for (int i = 0; i < n; ++i) {
        s = skip_blank(s, end);
        if (s >= end)
            return false;
        char *e;
        out[i] = strtod(s, &e);
        if (e == s || e > end || !isfinite(out[i]))
            return false;
        s = e;
    }
    return true;
}

/* Wavefront OBJ, read here in double (assimp parses to float): "v x y z", faces "f a b c"
 * (a as i, i/t, i//n or i/t/n, negative = relative), "o" and "g" start a sub-mesh. A
 * sub-mesh's points are the distinct vertices its faces use. */
static bool read_obj(const mesh_src *m, const char *buf, size_t len, groups *g)
{
    ctx *c = m->c;
    double *v = NULL; /* x, y, z per vertex */
    size_t nv = 0, cap = 0;
    int64_t *refs = NULL; /* vertex index (0-based) per face corner; -1 starts a group */
    size_t nr = 0, rcap = 0;
    int32_t *mark = NULL;
    bool ok = false;
    const char *p = buf, *end = buf + len, *line, *le;
    long line_no = 0;
    while (next_line(&p, end, &line, &le)) {
        ++line_no;
        const char *s = skip_blank(line, le);
        bool is_v = keyword_is(s, le, "v"), is_f = keyword_is(s, le, "f");
        bool is_group = keyword_is(s, le, "o") || keyword_is(s, le, "g");
        if (is_v) {
            if (nv == cap) {
                size_t nc = cap ? 2 * cap : 1024;
                double *w = realloc(v, 3 * nc * sizeof *w);
                if (!w) {
                    fail(c, "out of memory");
                    goto done;
                }
                v = w;
                cap = nc;
            }
            if (!line_doubles(s + 1, le, v + 3 * nv, 3)) {
                fail(c, "%s: %s: mesh %s:%ld: expected \"v x y z\" with finite numbers", m->loc,
                     m->elem, m->path, line_no);
                goto done;
            }
            if (++nv > g->limit) {
                fail(c, "%s: %s: mesh %s: over the vertex limit of %llu", m->loc, m->elem, m->path,
                     (unsigned long long)g->limit);
                goto done;
            }
        } else if (is_f || is_group) {
            const char *t = is_f ? s + 1 : le;
            if (is_group) {
                if (nr > 0 && refs[nr - 1] == -1)
                    continue;
            }
            for (;;) {
                int64_t ref;
                if (is_group) {
                    ref = -1;
                } else {
                    t = skip_blank(t, le);
                    if (t >= le)
                        break;
                    char *e;
                    long long idx = strtoll(t, &e, 10);
                    if (e == t || idx == 0 ||
                        (e < le && *e != '/' && !isspace((unsigned char)*e))) {
                        fail(c, "%s: %s: mesh %s:%ld: bad face vertex", m->loc, m->elem, m->path,
                             line_no);
                        goto done;
                    }
                    ref = idx > 0 ? (int64_t)idx - 1 : (int64_t)nv + (int64_t)idx;
                    if (ref < 0) {
                        fail(c, "%s: %s: mesh %s:%ld: face vertex %lld out of range", m->loc,
                             m->elem, m->path, line_no, idx);
                        goto done;
                    }
                    t = e;
                    while (t < le && !isspace((unsigned char)*t)) /* "/t/n" */
                        ++t;
                }
                if (nr == rcap) {
                    size_t nc = rcap ? 2 * rcap : 1024;
                    int64_t *w = realloc(refs, nc * sizeof *w);
                    if (!w) {
                        fail(c, "out of memory");
                        goto done;
                    }
                    refs = w;
                    rcap = nc;
                }
                refs[nr++] = ref;
                if (nr > 8 * (uint64_t)g->limit + 1024) {
                    fail(c, "%s: %s: mesh %s: more than %llu face corners", m->loc, m->elem,
                         m->path, 8 * (unsigned long long)g->limit);
                    goto done;
                }
                if (is_group)
                    break;
            }
        }
    }
    if (nv > INT32_MAX || (mark = malloc((nv ? nv : 1) * sizeof *mark)) == NULL) {
        fail(c, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nv; ++i)
        mark[i] = -1;
    int32_t gid = 0;
    if (!groups_next(g)) {
        fail(c, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nr; ++i) {
        if (refs[i] < 0) {
            if (g->v[g->n - 1].n > 0)
                ++gid;
            if (!groups_next(g)) {
                fail(c, "out of memory");
                goto done;
            }
            continue;
        }
        if ((size_t)refs[i] >= nv) {
            fail(c, "%s: %s: mesh %s: a face uses vertex %lld of %zu", m->loc, m->elem, m->path,
                 (long long)refs[i] + 1, nv);
            goto done;
        }
        if (mark[refs[i]] == gid)
            continue;
        mark[refs[i]] = gid;
        const double *x = v + 3 * refs[i];
        if (!add_point(m, g, x[0], x[1], x[2]))
            goto done;
    }
    ok = true;
done:
    free(v);
    free(refs);
    free(mark);
    return ok;
}

/* ASCII STL, read here in double: every "vertex x y z"; each "solid" starts a sub-mesh. */
static bool read_stl_ascii(const mesh_src *m, const char *buf, size_t len, groups *g)
{
    const char *p = buf, *end = buf + len, *line, *le;
    long line_no = 0;
    while (next_line(&p, end, &line, &le)) {
        ++line_no;
        const char *s = skip_blank(line, le);
        if (keyword_is(s, le, "solid")) {
            if (!groups_next(g))
                return fail(m->c, "out of memory");
        } else if (keyword_is(s, le, "vertex")) {
            double x[3];
            if (!line_doubles(s + 6, le, x, 3))
                return fail(m->c,
                            "%s: %s: mesh %s:%ld: expected \"vertex x y z\" with finite "
                            "numbers",
                            m->loc, m->elem, m->path, line_no);
            if (!add_point(m, g, x[0], x[1], x[2]))
                return false;
        }
    }
    return true;
}

/* A binary STL: 80-byte header, uint32 count, 50 bytes per triangle, nothing else (some
 * binary files start with "solid" too: the size decides). */
static bool stl_is_binary(const char *buf, size_t len)
{
    if (len < 84)
        return false;
    const unsigned char *u = (const unsigned char *)buf + 80;
    uint64_t n = (uint64_t)u[0] | (uint64_t)u[1] << 8 | (uint64_t)u[2] << 16 | (uint64_t)u[3] << 24;
    return 84 + 50 * n == (uint64_t)len;
}

/* Reads, checks and hulls one mesh file with a URDF scale into a cache entry. */
static bool load_mesh(ctx *c, const char *path, const double scale[3], mesh_entry *e,
                      const char *loc, const char *elem)
{
    bool stl = ext_is(path, "stl"), obj = ext_is(path, "obj"), dae = ext_is(path, "dae");
    if (!stl && !obj && !dae)
        return fail(c, "%s: %s: mesh %s: unsupported format (read: .stl, .obj, .dae)", loc, elem,
                    path);
    char what[1100];
    snprintf(what, sizeof what, "%s: %s: mesh", loc, elem);
    size_t len;
    char *buf = read_file_limited(c, path, c->opt->max_mesh_bytes, &len, what);
    if (!buf)
        return false;
    mesh_src m = {c, path, loc, elem, scale};
    groups g = {.limit = c->opt->max_mesh_vertices};
    bool ok;
    if (obj)
        ok = read_obj(&m, buf, len, &g);
    else if (stl && !stl_is_binary(buf, len) &&
             keyword_is(skip_blank(buf, buf + len), buf + len, "solid"))
        ok = read_stl_ascii(&m, buf, len, &g);
    else
        ok = read_assimp(&m, buf, len, stl ? "stl" : "dae", &g);
    free(buf);
    if (!ok) {
        groups_free(&g);
        return false;
    }
    /* Empty sub-meshes count for nothing. */
    size_t kept = 0;
    for (size_t i = 0; i < g.n; ++i) {
        if (g.v[i].n > 0)
            g.v[kept++] = g.v[i];
        else
            free(g.v[i].p);
    }
    g.n = kept;
    if (g.n == 0) {
        groups_free(&g);
        return fail(c, "%s: %s: mesh %s: no vertices", loc, elem, path);
    }
    e->sub_meshes = g.n;
    e->vertices = g.total;
    /* More sub-meshes than a link may have parts: one hull of them all (still conservative). */
    e->merged = g.n > c->opt->max_parts_per_link;
    if (e->merged) {
        group *all = &g.v[0];
        gjk_vec3 *p = realloc(all->p, (size_t)g.total * sizeof *p);
        if (!p) {
            groups_free(&g);
            return fail(c, "out of memory");
        }
        all->p = p;
        all->cap = (size_t)g.total;
        for (size_t i = 1; i < g.n; ++i) {
            memcpy(all->p + all->n, g.v[i].p, g.v[i].n * sizeof *p);
            all->n += g.v[i].n;
            free(g.v[i].p);
        }
        g.n = 1;
    }
    e->pieces = calloc(g.n, sizeof *e->pieces);
    if (!e->pieces) {
        groups_free(&g);
        return fail(c, "out of memory");
    }
    ok = false;
    for (size_t i = 0; i < g.n; ++i) {
        if (g.v[i].n > (size_t)INT32_MAX) {
            fail(c, "%s: %s: mesh %s: sub-mesh %zu too large", loc, elem, path, i);
            goto done;
        }
        gjk_polytope poly;
        gjk_hull_info info;
        gjk_status st = gjk_hull_build(&poly, g.v[i].p, (int32_t)g.v[i].n, &info);
        if (st != GJK_STATUS_SEPARATED) {
            fail(c, "%s: %s: mesh %s: sub-mesh %zu: convex hull failed (%s)", loc, elem, path, i,
                 st == GJK_STATUS_OUT_OF_MEMORY ? "out of memory" : "invalid vertices");
            goto done;
        }
        hull_piece *h = &e->pieces[i];
        e->piece_count = i + 1;
        h->count = poly.count;
        h->xyz = malloc(3 * (size_t)poly.count * sizeof *h->xyz);
        bool adj = poly.adj_start && poly.adj;
        h->adj_count = adj ? poly.adj_start[poly.count] : 0;
        h->adj_start = adj ? malloc(((size_t)poly.count + 1) * sizeof *h->adj_start) : NULL;
        h->adj = adj && h->adj_count > 0 ? malloc((size_t)h->adj_count * sizeof *h->adj) : NULL;
        if (!h->xyz || (adj && !h->adj_start) || (adj && h->adj_count > 0 && !h->adj)) {
            gjk_polytope_destroy(&poly);
            fail(c, "out of memory");
            goto done;
        }
        for (int32_t k = 0; k < poly.count; ++k) {
            h->xyz[3 * k] = poly.x[k];
            h->xyz[3 * k + 1] = poly.y[k];
            h->xyz[3 * k + 2] = poly.z[k];
        }
        if (adj) {
            memcpy(h->adj_start, poly.adj_start, ((size_t)poly.count + 1) * sizeof *h->adj_start);
            if (h->adj_count > 0)
                memcpy(h->adj, poly.adj, (size_t)h->adj_count * sizeof *h->adj);
        }
        gjk_polytope_destroy(&poly);
    }
    ok = true;
done:
    groups_free(&g);
    return ok;
}

/* The cached (or newly read) hulls of a mesh file at a scale. */
static mesh_entry *get_mesh(ctx *c, const char *path, const double scale[3], const char *loc,
                            const char *elem, bool *fresh)
{
    for (size_t i = 0; i < c->mesh_count; ++i) {
        mesh_entry *e = &c->meshes[i];
        if (strcmp(e->path, path) == 0 && memcmp(e->scale, scale, sizeof e->scale) == 0) {
            *fresh = false;
            return e;
        }
    }
    if (c->mesh_count == c->mesh_cap) {
        size_t cap = c->mesh_cap ? 2 * c->mesh_cap : 8;
        mesh_entry *m = realloc(c->meshes, cap * sizeof *m);
        if (!m)
            return fail(c, "out of memory"), NULL;
        c->meshes = m;
        c->mesh_cap = cap;
    }
    mesh_entry *e = &c->meshes[c->mesh_count];
    memset(e, 0, sizeof *e);
    e->path = strdup(path);
    memcpy(e->scale, scale, sizeof e->scale);
    if (!e->path)
        return fail(c, "out of memory"), NULL;
    if (!load_mesh(c, path, scale, e, loc, elem)) {
        mesh_entry_free(e);
        return NULL;
    }
    ++c->mesh_count;
    c->mesh_vertices += e->vertices;
    *fresh = true;
    return e;
}

static Gjkd__V1__Part *piece_part(const hull_piece *h, const char *name, gjk_transform pose)
{
    Gjkd__V1__Part *p = new_part(name, pose);
    if (!p)
        return NULL;
    Gjkd__V1__ConvexVertices *cv = malloc(sizeof *cv);
    if (!cv)
        return gjkd__v1__part__free_unpacked(p, NULL), NULL;
    gjkd__v1__convex_vertices__init(cv);
    p->shape->kind_case = GJKD__V1__SHAPE__KIND_CONVEX;
    p->shape->convex = cv;
    cv->n_xyz = 3 * (size_t)h->count;
    cv->xyz = malloc(cv->n_xyz * sizeof *cv->xyz);
    if (!cv->xyz)
        return gjkd__v1__part__free_unpacked(p, NULL), NULL;
    memcpy(cv->xyz, h->xyz, cv->n_xyz * sizeof *cv->xyz);
    if (h->adj_start) {
        cv->n_adjacency_start = (size_t)h->count + 1;
        cv->adjacency_start = malloc(cv->n_adjacency_start * sizeof *cv->adjacency_start);
        if (!cv->adjacency_start)
            return gjkd__v1__part__free_unpacked(p, NULL), NULL;
        memcpy(cv->adjacency_start, h->adj_start,
               cv->n_adjacency_start * sizeof *cv->adjacency_start);
        if (h->adj_count > 0) {
            cv->n_adjacency = (size_t)h->adj_count;
            cv->adjacency = malloc(cv->n_adjacency * sizeof *cv->adjacency);
            if (!cv->adjacency)
                return gjkd__v1__part__free_unpacked(p, NULL), NULL;
            memcpy(cv->adjacency, h->adj, cv->n_adjacency * sizeof *cv->adjacency);
        }
    }
    return p;
}

/* ------------------------------------------------------------------ links */

typedef struct link_rec {
    const xmlNode *node;
    char *name;           /* xmlChar from xmlGetProp */
    int32_t parent_joint; /* -1 none */
    bool has_geometry;
} link_rec;

typedef struct joint_rec {
    const xmlNode *node;
    char *name;
    gjk_joint_type type;
    int32_t parent, child;
    gjk_transform origin;
    double axis[3];
    double lower, upper;
    char *mimic; /* xmlChar or NULL */
    double multiplier, offset;
} joint_rec;

static int32_t find_link(const link_rec *links, size_t n, const char *name)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(links[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

static int32_t find_joint(const joint_rec *joints, size_t n, const char *name)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(joints[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* The <collision> elements of a link -> its parts. */
static bool build_link(ctx *c, const link_rec *lr, Gjkd__V1__Link *link)
{
    char loc[600], elem[400];
    ptrs parts = {0};
    int index = 0;
    bool ok = false;
    for (const xmlNode *col = lr->node->children; col; col = col->next) {
        if (!is_elem(col, "collision"))
            continue;
        where(c->urdf_path, col, loc, sizeof loc);
        snprintf(elem, sizeof elem, "link \"%s\": collision[%d]", lr->name, index);
        char *cname = attr(col, "name");
        /* A collision's name names its part(s); repeats are unnamed at the end. */
        const char *base = cname ? cname : "";
        gjk_transform pose;
        const xmlNode *geom = first_child(col, "geometry");
        if (!parse_origin(c, col, &pose, loc, elem)) {
            xmlFree(cname);
            goto done;
        }
        if (!geom) {
            xmlFree(cname);
            fail(c, "%s: %s: no <geometry>", loc, elem);
            goto done;
        }
        const xmlNode *g = NULL;
        for (const xmlNode *k = geom->children; k; k = k->next)
            if (k->type == XML_ELEMENT_NODE) {
                if (g) {
                    xmlFree(cname);
                    fail(c, "%s: %s: <geometry> holds more than one shape", loc, elem);
                    goto done;
                }
                g = k;
            }
        if (!g) {
            xmlFree(cname);
            fail(c, "%s: %s: empty <geometry>", loc, elem);
            goto done;
        }
        Gjkd__V1__Part *part = NULL;
        bool good = true;
        if (is_elem(g, "box")) {
            double size[3];
            good = attr_doubles(c, g, "size", size, 3, true, loc, elem);
            if (good && (size[0] < 0 || size[1] < 0 || size[2] < 0))
                good = fail(c, "%s: %s: <box size>: negative size", loc, elem);
            if (good && (part = new_part(base, pose))) {
                Gjkd__V1__Box *b = malloc(sizeof *b);
                if (b) {
                    gjkd__v1__box__init(b);
                    b->half_extents = new_vec3(0.5 * size[0], 0.5 * size[1], 0.5 * size[2]);
                    part->shape->kind_case = GJKD__V1__SHAPE__KIND_BOX;
                    part->shape->box = b;
                }
                if (!b || !b->half_extents)
                    good = fail(c, "out of memory");
            }
        } else if (is_elem(g, "sphere")) {
            double r;
            good = attr_doubles(c, g, "radius", &r, 1, true, loc, elem);
            if (good && r < 0)
                good = fail(c, "%s: %s: <sphere radius>: negative", loc, elem);
            if (good && (part = new_part(base, pose))) {
                Gjkd__V1__Sphere *s = malloc(sizeof *s);
                if (s) {
                    gjkd__v1__sphere__init(s);
                    s->radius = r;
                    part->shape->kind_case = GJKD__V1__SHAPE__KIND_SPHERE;
                    part->shape->sphere = s;
                } else
                    good = fail(c, "out of memory");
            }
        } else if (is_elem(g, "cylinder") || is_elem(g, "capsule")) {
            double r, len;
            good = attr_doubles(c, g, "radius", &r, 1, true, loc, elem) &&
                   attr_doubles(c, g, "length", &len, 1, true, loc, elem);
            if (good && (r < 0 || len < 0))
                good = fail(c, "%s: %s: <%s>: negative radius or length", loc, elem,
                            (const char *)g->name);
            if (good && (part = new_part(base, pose))) {
                if (is_elem(g, "cylinder")) {
                    Gjkd__V1__Cylinder *s = malloc(sizeof *s);
                    if (s) {
                        gjkd__v1__cylinder__init(s);
                        s->radius = r;
                        s->half_height = 0.5 * len;
                        part->shape->kind_case = GJKD__V1__SHAPE__KIND_CYLINDER;
                        part->shape->cylinder = s;
                    } else
                        good = fail(c, "out of memory");
                } else {
                    Gjkd__V1__Capsule *s = malloc(sizeof *s);
                    if (s) {
                        gjkd__v1__capsule__init(s);
                        s->radius = r;
                        s->half_height = 0.5 * len;
                        part->shape->kind_case = GJKD__V1__SHAPE__KIND_CAPSULE;
                        part->shape->capsule = s;
                    } else
                        good = fail(c, "out of memory");
                }
            }
        } else if (is_elem(g, "mesh")) {
            double scale[3] = {1, 1, 1};
            char *fn = attr(g, "filename");
            if (!fn || !*fn)
                good = fail(c, "%s: %s: <mesh> needs the attribute filename", loc, elem);
            if (good)
                good = attr_doubles(c, g, "scale", scale, 3, false, loc, elem);
            char *path = good ? resolve_mesh(c, fn, loc, elem) : NULL;
            if (!path)
                good = false;
            bool fresh = false;
            mesh_entry *e = good ? get_mesh(c, path, scale, loc, elem, &fresh) : NULL;
            if (!e)
                good = false;
            for (size_t k = 0; good && k < e->piece_count; ++k) {
                char pname[600];
                if (e->piece_count > 1 && *base)
                    snprintf(pname, sizeof pname, "%s#%zu", base, k);
                else
                    snprintf(pname, sizeof pname, "%s", base);
                Gjkd__V1__Part *p = piece_part(&e->pieces[k], pname, pose);
                if (!ptrs_push(&parts, p)) {
                    if (p)
                        gjkd__v1__part__free_unpacked(p, NULL);
                    good = fail(c, "out of memory");
                    break;
                }
                c->hull_vertices += (uint64_t)e->pieces[k].count;
            }
            if (good) {
                char counts[256] = "";
                size_t len = 0;
                for (size_t k = 0; k < e->piece_count && len + 16 < sizeof counts; ++k)
                    len += (size_t)snprintf(counts + len, sizeof counts - len, "%s%d", k ? "+" : "",
                                            (int)e->pieces[k].count);
                if (e->piece_count > sizeof counts / 16)
                    snprintf(counts + len, sizeof counts - len, "+...");
                char merged[96] = "";
                if (e->merged)
                    snprintf(merged, sizeof merged,
                             " (%zu sub-meshes, more than %u parts: hulled together)",
                             e->sub_meshes, c->opt->max_parts_per_link);
                good = note(c,
                            "link \"%s\": collision[%d]: mesh %s: %zu part%s, hulled %llu "
                            "vertices -> %s%s%s",
                            lr->name, index, fn, e->piece_count, e->piece_count > 1 ? "s" : "",
                            (unsigned long long)e->vertices, counts, merged,
                            fresh ? "" : " (read once, reused)");
            }
            free(path);
            xmlFree(fn);
        } else {
            good = fail(c, "%s: %s: unknown geometry <%s> (box, cylinder, sphere, capsule, mesh)",
                        loc, elem, (const char *)g->name);
        }
        xmlFree(cname);
        if (part && !ptrs_push(&parts, part)) {
            gjkd__v1__part__free_unpacked(part, NULL);
            good = fail(c, "out of memory");
        } else if (!part && good && !is_elem(g, "mesh"))
            good = fail(c, "out of memory");
        else if (part && !good) {
            /* pushed; freed with the others below */
        }
        if (!good)
            goto done;
        if (parts.n > c->opt->max_parts_per_link) {
            fail(c, "%s: %s: %zu parts, the limit is %u per link", loc, elem, parts.n,
                 c->opt->max_parts_per_link);
            goto done;
        }
        ++index;
    }
    /* Part names are unique within a link: a repeated name is dropped (the daemon then names
     * the part "#<index>"). */
    for (size_t i = 0; i < parts.n; ++i) {
        Gjkd__V1__Part *p = parts.v[i];
        for (size_t k = 0; *p->name && k < i; ++k)
            if (strcmp(((Gjkd__V1__Part *)parts.v[k])->name, p->name) == 0) {
                p->name[0] = '\0';
                break;
            }
    }
    ok = true;
done:
    link->n_parts = parts.n;
    link->parts = (Gjkd__V1__Part **)parts.v;
    if (!ok) {
        for (size_t i = 0; i < parts.n; ++i)
            gjkd__v1__part__free_unpacked(parts.v[i], NULL);
        free(parts.v);
        link->n_parts = 0;
        link->parts = NULL;
    }
    return ok;
}

/* ------------------------------------------------------------------ joints */

static bool parse_joint(ctx *c, const xmlNode *n, joint_rec *j, const link_rec *links,
                        size_t link_count)
{
    char loc[600], elem[400];
    where(c->urdf_path, n, loc, sizeof loc);
    snprintf(elem, sizeof elem, "joint \"%s\"", j->name);
    char *type = attr(n, "type");
    if (!type)
        return fail(c, "%s: %s: no type", loc, elem);
    bool ok = true;
    if (strcmp(type, "fixed") == 0)
        j->type = GJK_JOINT_FIXED;
    else if (strcmp(type, "revolute") == 0)
        j->type = GJK_JOINT_REVOLUTE;
    else if (strcmp(type, "continuous") == 0)
        j->type = GJK_JOINT_CONTINUOUS;
    else if (strcmp(type, "prismatic") == 0)
        j->type = GJK_JOINT_PRISMATIC;
    else if (strcmp(type, "floating") == 0 || strcmp(type, "planar") == 0)
        ok = fail(c,
                  "%s: %s: type \"%s\" is not supported (gjkd's joints have one degree of "
                  "freedom: fixed, revolute, continuous, prismatic; move a floating or planar "
                  "base with the robot's base pose)",
                  loc, elem, type);
    else
        ok = fail(c, "%s: %s: unknown type \"%s\" (fixed, revolute, continuous, prismatic)", loc,
                  elem, type);
    xmlFree(type);
    if (!ok)
        return false;
    const char *roles[2] = {"parent", "child"};
    int32_t *ids[2] = {&j->parent, &j->child};
    for (int r = 0; r < 2; ++r) {
        const xmlNode *e = first_child(n, roles[r]);
        char *ln = e ? attr(e, "link") : NULL;
        if (!ln)
            return fail(c, "%s: %s: no <%s link=\"...\">", loc, elem, roles[r]);
        *ids[r] = find_link(links, link_count, ln);
        if (*ids[r] < 0) {
            fail(c, "%s: %s: %s link \"%s\" is not a link of the robot", loc, elem, roles[r], ln);
            xmlFree(ln);
            return false;
        }
        xmlFree(ln);
    }
    if (!parse_origin(c, n, &j->origin, loc, elem))
        return false;
    j->axis[0] = 1, j->axis[1] = 0, j->axis[2] = 0;
    const xmlNode *ax = first_child(n, "axis");
    if (ax && !attr_doubles(c, ax, "xyz", j->axis, 3, false, loc, elem))
        return false;
    if (j->type != GJK_JOINT_FIXED &&
        sqrt(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1] + j->axis[2] * j->axis[2]) < 1e-12)
        return fail(c, "%s: %s: zero <axis xyz>", loc, elem);
    j->lower = j->upper = 0;
    if (j->type == GJK_JOINT_REVOLUTE || j->type == GJK_JOINT_PRISMATIC) {
        const xmlNode *lim = first_child(n, "limit");
        if (!lim)
            return fail(c, "%s: %s: a %s joint needs <limit lower upper>", loc, elem,
                        j->type == GJK_JOINT_REVOLUTE ? "revolute" : "prismatic");
        if (!attr_doubles(c, lim, "lower", &j->lower, 1, false, loc, elem) ||
            !attr_doubles(c, lim, "upper", &j->upper, 1, false, loc, elem))
            return false;
        if (j->lower > j->upper)
            return fail(c, "%s: %s: <limit>: lower %.17g > upper %.17g", loc, elem, j->lower,
                        j->upper);
        if (j->lower == j->upper &&
            !note(c, "%s: %s: <limit> lower == upper == %.17g: the joint cannot move", loc, elem,
                  j->lower))
            return false;
    }
    j->mimic = NULL;
    j->multiplier = 1, j->offset = 0;
    const xmlNode *mim = first_child(n, "mimic");
    if (mim && j->type != GJK_JOINT_FIXED) {
        j->mimic = attr(mim, "joint");
        if (!j->mimic || !*j->mimic)
            return fail(c, "%s: %s: <mimic> needs the attribute joint", loc, elem);
        if (!attr_doubles(c, mim, "multiplier", &j->multiplier, 1, false, loc, elem) ||
            !attr_doubles(c, mim, "offset", &j->offset, 1, false, loc, elem))
            return false;
    }
    return true;
}

static Gjkd__V1__JointType joint_type_wire(gjk_joint_type t)
{
    switch (t) {
    case GJK_JOINT_FIXED:
        return GJKD__V1__JOINT_TYPE__JOINT_TYPE_FIXED;
    case GJK_JOINT_REVOLUTE:
        return GJKD__V1__JOINT_TYPE__JOINT_TYPE_REVOLUTE;
    case GJK_JOINT_CONTINUOUS:
        return GJKD__V1__JOINT_TYPE__JOINT_TYPE_CONTINUOUS;
    case GJK_JOINT_PRISMATIC:
        return GJKD__V1__JOINT_TYPE__JOINT_TYPE_PRISMATIC;
    }
    return GJKD__V1__JOINT_TYPE__JOINT_TYPE_UNSPECIFIED;
}

/* ------------------------------------------------------------------ XML */

static xmlDoc *read_xml(ctx *c, const char *path, const char *what)
{
    size_t len;
    char *buf = read_file_limited(c, path, c->opt->max_xml_bytes, &len, what);
    if (!buf)
        return NULL;
    if (len > (size_t)INT32_MAX) {
        free(buf);
        return fail(c, "%s %s: too large", what, path), NULL;
    }
    xmlParserCtxt *pc = xmlNewParserCtxt();
    if (!pc) {
        free(buf);
        return fail(c, "out of memory"), NULL;
    }
    /* No network, no DTD loading, no entity substitution (XML_PARSE_NOENT stays off). */
    xmlDoc *doc = xmlCtxtReadMemory(pc, buf, (int)len, path, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    free(buf);
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(pc);
        char msg[300] = "not well-formed XML";
        if (e && e->message) {
            snprintf(msg, sizeof msg, "%s", e->message);
            size_t k = strlen(msg);
            while (k > 0 && (msg[k - 1] == '\n' || msg[k - 1] == ' '))
                msg[--k] = '\0';
        }
        fail(c, "%s:%d: %s", path, e ? e->line : 0, msg);
        xmlFreeParserCtxt(pc);
        return NULL;
    }
    xmlFreeParserCtxt(pc);
    if (doc->intSubset && doc->intSubset->entities) {
        xmlFreeDoc(doc);
        return fail(c, "%s: declares XML entities (not accepted in a robot description)", path),
               NULL;
    }
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !is_elem(root, "robot")) {
        xmlFreeDoc(doc);
        return fail(c, "%s: the root element is not <robot>", path), NULL;
    }
    return doc;
}

/* Adds the unordered pair (a, b) unless present. */
static bool add_pair(ptrs *pairs, const char *a, const char *b)
{
    for (size_t i = 0; i < pairs->n; ++i) {
        const Gjkd__V1__LinkPair *p = pairs->v[i];
        if ((strcmp(p->a, a) == 0 && strcmp(p->b, b) == 0) ||
            (strcmp(p->a, b) == 0 && strcmp(p->b, a) == 0))
            return true;
    }
    Gjkd__V1__LinkPair *p = malloc(sizeof *p);
    if (!p)
        return false;
    gjkd__v1__link_pair__init(p);
    p->a = strdup(a);
    p->b = strdup(b);
    if (!p->a || !p->b || !ptrs_push(pairs, p)) {
        gjkd__v1__link_pair__free_unpacked(p, NULL);
        return false;
    }
    return true;
}

static bool read_srdf(ctx *c, const link_rec *links, size_t link_count, ptrs *pairs)
{
    const char *path = c->opt->srdf_path;
    xmlDoc *doc = read_xml(c, path, "SRDF");
    if (!doc)
        return false;
    bool ok = true;
    size_t count = 0;
    for (const xmlNode *n = xmlDocGetRootElement(doc)->children; ok && n; n = n->next) {
        if (!is_elem(n, "disable_collisions"))
            continue;
        char loc[600];
        where(path, n, loc, sizeof loc);
        char *a = attr(n, "link1"), *b = attr(n, "link2");
        if (!a || !b)
            ok = fail(c, "%s: <disable_collisions> needs link1 and link2", loc);
        else if (find_link(links, link_count, a) < 0)
            ok =
                fail(c, "%s: <disable_collisions>: link1 \"%s\" is not a link of the URDF", loc, a);
        else if (find_link(links, link_count, b) < 0)
            ok =
                fail(c, "%s: <disable_collisions>: link2 \"%s\" is not a link of the URDF", loc, b);
        else if (strcmp(a, b) != 0) {
            if (!add_pair(pairs, a, b))
                ok = fail(c, "out of memory");
            ++count;
        }
        xmlFree(a);
        xmlFree(b);
    }
    xmlFreeDoc(doc);
    if (ok)
        ok = note(c, "SRDF %s: %zu disabled pairs", path, count);
    return ok;
}

/* ------------------------------------------------------------------ import */

void gjkd_urdf_options_init(gjkd_urdf_options *o)
{
    memset(o, 0, sizeof *o);
    o->disable_adjacent = true;
    o->max_xml_bytes = GJKD_URDF_DEFAULT_MAX_XML_BYTES;
    o->max_mesh_bytes = GJKD_URDF_DEFAULT_MAX_MESH_BYTES;
    o->max_mesh_vertices = GJKD_URDF_DEFAULT_MAX_MESH_VERTICES;
    o->max_links = GJKD_URDF_DEFAULT_MAX_LINKS;
    o->max_joints = GJKD_URDF_DEFAULT_MAX_JOINTS;
    o->max_parts_per_link = GJKD_URDF_DEFAULT_MAX_PARTS_PER_LINK;
}

void gjkd_urdf_result_free(gjkd_urdf_result *r)
{
    if (!r)
        return;
    if (r->robot)
        gjkd__v1__robot__free_unpacked(r->robot, NULL);
    for (size_t i = 0; i < r->note_count; ++i)
        free(r->notes[i]);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

Gjkd__V1__Robot *gjkd_urdf_result_take_robot(gjkd_urdf_result *r)
{
    Gjkd__V1__Robot *robot = r->robot;
    r->robot = NULL;
    return robot;
}

static bool check_kinematics(ctx *c, const joint_rec *joints, size_t joint_count, size_t link_count)
{
    gjk_joint_def *defs = calloc(joint_count ? joint_count : 1, sizeof *defs);
    if (!defs)
        return fail(c, "out of memory");
    for (size_t i = 0; i < joint_count; ++i) {
        const joint_rec *j = &joints[i];
        defs[i] = (gjk_joint_def){.name = j->name,
                                  .type = j->type,
                                  .parent = j->parent,
                                  .child = j->child,
                                  .origin = j->origin,
                                  .axis = {j->axis[0], j->axis[1], j->axis[2]},
                                  .lower = j->lower,
                                  .upper = j->upper,
                                  .mimic = j->mimic,
                                  .multiplier = j->multiplier,
                                  .offset = j->offset};
    }
    gjk_kinematics_def def = {.link_count = (int32_t)link_count,
                              .joints = joint_count ? defs : NULL,
                              .joint_count = (int32_t)joint_count};
    gjk_kinematics *k = NULL;
    gjk_kinematics_error e;
    gjk_status st = gjk_kinematics_build(&def, &k, &e);
    free(defs);
    if (st != GJK_KINEMATICS_OK) {
        if (e.joint >= 0 && (size_t)e.joint < joint_count) {
            char loc[600];
            where(c->urdf_path, joints[e.joint].node, loc, sizeof loc);
            return fail(c, "%s: joint \"%s\": %s", loc, joints[e.joint].name, e.reason);
        }
        return fail(c, "%s: kinematic tree refused: %s", c->urdf_path, e.reason);
    }
    gjk_kinematics_destroy(&k);
    return true;
}

bool gjkd_urdf_import(const char *urdf_path, const gjkd_urdf_options *options,
                      gjkd_urdf_result *out, char *err, size_t err_size)
{
    gjkd_urdf_options defaults;
    if (!options) {
        gjkd_urdf_options_init(&defaults);
        options = &defaults;
    }
    if (out)
        memset(out, 0, sizeof *out);
    if (err && err_size)
        err[0] = '\0';
    ctx c = {.opt = options, .urdf_path = urdf_path, .err = err, .err_size = err_size};
    if (!urdf_path || !out) {
        fail(&c, "no URDF path or result");
        return false;
    }
    xmlDoc *doc = NULL;
    link_rec *links = NULL;
    joint_rec *joints = NULL;
    size_t link_count = 0, joint_count = 0;
    ptrs pairs = {0};
    Gjkd__V1__Robot *robot = NULL;
    bool ok = false;

    c.urdf_dir = dirname_of(urdf_path);
    if (!c.urdf_dir) {
        fail(&c, "out of memory");
        goto done;
    }
    doc = read_xml(&c, urdf_path, "URDF");
    if (!doc)
        goto done;
    const xmlNode *root = xmlDocGetRootElement(doc);

    /* Count first: the limits apply before any work. */
    size_t nl = 0, nj = 0;
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (n->ns && n->ns->prefix && strcmp((const char *)n->ns->prefix, "xacro") == 0) {
            char loc[600];
            where(urdf_path, n, loc, sizeof loc);
            fail(&c, "%s: <xacro:%s>: a xacro file (run xacro first to get the URDF)", loc,
                 (const char *)n->name);
            goto done;
        }
        nl += is_elem(n, "link");
        nj += is_elem(n, "joint");
    }
    if (nl == 0) {
        fail(&c, "%s: no <link>", urdf_path);
        goto done;
    }
    if (nl > options->max_links) {
        fail(&c, "%s: %zu links, the limit is %u", urdf_path, nl, options->max_links);
        goto done;
    }
    if (nj > options->max_joints) {
        fail(&c, "%s: %zu joints, the limit is %u", urdf_path, nj, options->max_joints);
        goto done;
    }
    links = calloc(nl, sizeof *links);
    joints = calloc(nj ? nj : 1, sizeof *joints);
    if (!links || !joints) {
        fail(&c, "out of memory");
        goto done;
    }
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (!is_elem(n, "link"))
            continue;
        char loc[600];
        where(urdf_path, n, loc, sizeof loc);
        link_rec *l = &links[link_count];
        l->node = n;
        l->parent_joint = -1;
        l->name = attr(n, "name");
        if (!l->name || !*l->name) {
            fail(&c, "%s: <link> without a name", loc);
            goto done;
        }
        ++link_count;
        if (find_link(links, link_count - 1, l->name) >= 0) {
            fail(&c, "%s: link \"%s\": a second link of that name", loc, l->name);
            goto done;
        }
        l->has_geometry = first_child(n, "collision") != NULL;
    }
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (!is_elem(n, "joint"))
            continue;
        char loc[600];
        where(urdf_path, n, loc, sizeof loc);
        joint_rec *j = &joints[joint_count];
        j->node = n;
        j->name = attr(n, "name");
        if (!j->name || !*j->name) {
            fail(&c, "%s: <joint> without a name", loc);
            goto done;
        }
        ++joint_count;
        if (find_joint(joints, joint_count - 1, j->name) >= 0) {
            fail(&c, "%s: joint \"%s\": a second joint of that name", loc, j->name);
            goto done;
        }
        if (!parse_joint(&c, n, j, links, link_count))
            goto done;
        link_rec *child = &links[j->child];
        if (child->parent_joint >= 0) {
            fail(&c, "%s: joint \"%s\": link \"%s\" has two parents (joints \"%s\" and \"%s\")",
                 loc, j->name, child->name, joints[child->parent_joint].name, j->name);
            goto done;
        }
        child->parent_joint = (int32_t)(joint_count - 1);
    }
    /* The tree: no cycle, one root. */
    int32_t root_link = -1;
    for (size_t i = 0; i < link_count; ++i) {
        size_t steps = 0;
        for (int32_t l = (int32_t)i; links[l].parent_joint >= 0;
             l = joints[links[l].parent_joint].parent)
            if (++steps > link_count) {
                const joint_rec *j = &joints[links[i].parent_joint];
                char loc[600];
                where(urdf_path, j->node, loc, sizeof loc);
                fail(&c, "%s: joint \"%s\": link \"%s\" is on a cycle of joints", loc, j->name,
                     links[i].name);
                goto done;
            }
        if (links[i].parent_joint < 0) {
            if (root_link >= 0) {
                fail(&c,
                     "%s: links \"%s\" and \"%s\" both have no parent joint (a robot is one "
                     "tree with one root link)",
                     urdf_path, links[root_link].name, links[i].name);
                goto done;
            }
            root_link = (int32_t)i;
        }
    }
    /* Mimic joints: resolve to the active joint they follow (chains flattened). */
    for (size_t i = 0; i < joint_count; ++i) {
        joint_rec *j = &joints[i];
        if (!j->mimic)
            continue;
        char loc[600];
        where(urdf_path, j->node, loc, sizeof loc);
        int32_t t = find_joint(joints, joint_count, j->mimic);
        double mul = j->multiplier, off = j->offset;
        size_t steps = 0;
        while (t >= 0 && joints[t].mimic) {
            if (++steps > joint_count) {
                fail(&c, "%s: joint \"%s\": <mimic> chain is a cycle", loc, j->name);
                goto done;
            }
            /* q = mul * (m2 * q2 + o2) + off */
            off = mul * joints[t].offset + off;
            mul = mul * joints[t].multiplier;
            t = find_joint(joints, joint_count, joints[t].mimic);
        }
        if (t < 0) {
            fail(&c, "%s: joint \"%s\": <mimic joint>: no joint \"%s\"", loc, j->name, j->mimic);
            goto done;
        }
        if (joints[t].type == GJK_JOINT_FIXED) {
            fail(&c, "%s: joint \"%s\": <mimic> follows the fixed joint \"%s\"", loc, j->name,
                 joints[t].name);
            goto done;
        }
        if ((size_t)t == i) {
            fail(&c, "%s: joint \"%s\": <mimic> follows itself", loc, j->name);
            goto done;
        }
        if (strcmp(j->mimic, joints[t].name) != 0) {
            char *flat = (char *)xmlStrdup((const xmlChar *)joints[t].name);
            if (!flat) {
                fail(&c, "out of memory");
                goto done;
            }
            if (!note(&c, "joint \"%s\": mimic of mimic \"%s\" flattened to %.17g * %s + %.17g",
                      j->name, j->mimic, mul, joints[t].name, off)) {
                xmlFree(flat);
                goto done;
            }
            /* Later joints resolve through the original chain: keep the values in step. */
            xmlFree(j->mimic);
            j->mimic = flat;
            j->multiplier = mul;
            j->offset = off;
        }
    }
    if (!check_kinematics(&c, joints, joint_count, link_count))
        goto done;

    /* The message. */
    robot = malloc(sizeof *robot);
    if (!robot) {
        fail(&c, "out of memory");
        goto done;
    }
    gjkd__v1__robot__init(robot);
    char *rname = attr(root, "name");
    robot->name = strdup(options->name && *options->name ? options->name : rname ? rname : "");
    xmlFree(rname);
    if (!robot->name) {
        fail(&c, "out of memory");
        goto done;
    }
    if (!*robot->name) {
        fail(&c, "%s: <robot> has no name (give one)", urdf_path);
        goto done;
    }
    robot->self_collision = true;
    robot->links = calloc(link_count, sizeof *robot->links);
    if (!robot->links) {
        fail(&c, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < link_count; ++i) {
        Gjkd__V1__Link *l = malloc(sizeof *l);
        if (!l) {
            fail(&c, "out of memory");
            goto done;
        }
        gjkd__v1__link__init(l);
        robot->links[robot->n_links++] = l;
        l->name = strdup(links[i].name);
        if (!l->name) {
            fail(&c, "out of memory");
            goto done;
        }
        if (!build_link(&c, &links[i], l))
            goto done;
        links[i].has_geometry = l->n_parts > 0;
    }
    robot->joints = calloc(joint_count ? joint_count : 1, sizeof *robot->joints);
    if (!robot->joints) {
        fail(&c, "out of memory");
        goto done;
    }
    uint32_t dof = 0;
    for (size_t i = 0; i < joint_count; ++i) {
        const joint_rec *j = &joints[i];
        Gjkd__V1__Joint *w = malloc(sizeof *w);
        if (!w) {
            fail(&c, "out of memory");
            goto done;
        }
        gjkd__v1__joint__init(w);
        robot->joints[robot->n_joints++] = w;
        w->name = strdup(j->name);
        w->type = joint_type_wire(j->type);
        w->parent = strdup(links[j->parent].name);
        w->child = strdup(links[j->child].name);
        w->origin = new_pose(j->origin);
        if (!w->name || !w->parent || !w->child || !w->origin) {
            fail(&c, "out of memory");
            goto done;
        }
        if (j->type != GJK_JOINT_FIXED) {
            w->axis = new_vec3(j->axis[0], j->axis[1], j->axis[2]);
            if (!w->axis) {
                fail(&c, "out of memory");
                goto done;
            }
        }
        if (j->type == GJK_JOINT_REVOLUTE || j->type == GJK_JOINT_PRISMATIC) {
            w->limits = malloc(sizeof *w->limits);
            if (!w->limits) {
                fail(&c, "out of memory");
                goto done;
            }
            gjkd__v1__joint_limits__init(w->limits);
            w->limits->lower = j->lower;
            w->limits->upper = j->upper;
        }
        if (j->mimic) {
            w->mimic = malloc(sizeof *w->mimic);
            if (!w->mimic) {
                fail(&c, "out of memory");
                goto done;
            }
            gjkd__v1__mimic__init(w->mimic);
            w->mimic->joint = strdup(j->mimic);
            w->mimic->multiplier = j->multiplier;
            w->mimic->offset = j->offset;
            if (!w->mimic->joint) {
                fail(&c, "out of memory");
                goto done;
            }
        } else if (j->type != GJK_JOINT_FIXED)
            ++dof;
    }
    /* Disabled pairs: adjacent links (nearest ancestor with geometry), then the SRDF's. */
    if (options->disable_adjacent) {
        for (size_t i = 0; i < link_count; ++i) {
            if (!links[i].has_geometry)
                continue;
            int32_t a = links[i].parent_joint >= 0 ? joints[links[i].parent_joint].parent : -1;
            while (a >= 0 && !links[a].has_geometry)
                a = links[a].parent_joint >= 0 ? joints[links[a].parent_joint].parent : -1;
            if (a >= 0 && !add_pair(&pairs, links[a].name, links[i].name)) {
                fail(&c, "out of memory");
                goto done;
            }
        }
    }
    if (options->srdf_path && *options->srdf_path && !read_srdf(&c, links, link_count, &pairs))
        goto done;
    robot->n_disabled_pairs = pairs.n;
    robot->disabled_pairs = (Gjkd__V1__LinkPair **)pairs.v;
    pairs = (ptrs){0};

    out->robot = robot;
    robot = NULL;
    out->notes = c.notes;
    out->note_count = c.note_count;
    c.notes = NULL;
    c.note_count = 0;
    out->mesh_files = (uint32_t)c.mesh_count;
    out->mesh_vertices = c.mesh_vertices;
    out->hull_vertices = c.hull_vertices;
    out->dof = dof;
    ok = true;
done:
    if (robot)
        gjkd__v1__robot__free_unpacked(robot, NULL);
    for (size_t i = 0; i < pairs.n; ++i)
        gjkd__v1__link_pair__free_unpacked(pairs.v[i], NULL);
    free(pairs.v);
    for (size_t i = 0; i < link_count; ++i)
        xmlFree(links[i].name);
    for (size_t i = 0; i < joint_count; ++i) {
        xmlFree(joints[i].name);
        xmlFree(joints[i].mimic);
    }
    free(links);
    free(joints);
    if (doc)
        xmlFreeDoc(doc);
    for (size_t i = 0; i < c.mesh_count; ++i)
        mesh_entry_free(&c.meshes[i]);
    free(c.meshes);
    for (size_t i = 0; i < c.note_count; ++i)
        free(c.notes[i]);
    free(c.notes);
    free(c.urdf_dir);
    return ok;
}
