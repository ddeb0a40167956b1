/* kinematics.c — kinematic trees (gjk/kinematics.h): build and validation, forward
 * kinematics, point gradients.
 *
 * Layout. gjk_kinematics_build validates the def, then makes one allocation holding the model
 * and every array it needs (sections placed one after the other, each aligned for its type).
 * The arrays used by forward kinematics are in topological order: joint t of `topo` has its
 * parent link's pose computed by an earlier joint (or is the root's), so one pass over `topo`
 * computes every link. The order is the joints sorted by the depth of their child link (the
 * number of joints between it and the root), ties in def order.
 *
 * Every moving joint is driven as q_joint = multiplier * q[dof] + offset: an active joint has
 * its own DOF, multiplier 1 and offset 0 (so its value is q[dof] exactly), a mimic the followed
 * joint's DOF and its own multiplier and offset. Forward kinematics and gradients treat the
 * two alike.
 *
 * Tree checks without recursion or scratch allocations: link_joint[l] is the joint whose
 * child is l (at most one, else TWO_PARENTS); a link without one is a root (exactly one, else
 * MULTIPLE_ROOTS). Depths are found by walking up parent links from each link to a link whose
 * depth is known, marking the walk; meeting a marked link again means the walk went round a
 * cycle (with one root and one parent per link, every link not below the root is on a cycle
 * or below one). */
#define _POSIX_C_SOURCE 200809L

#include "gjk/kinematics.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* One joint as forward kinematics uses it (topological order). */
typedef struct kin_joint {
    gjk_transform origin; /* normalised */
    gjk_vec3 axis;        /* unit, joint frame */
    double multiplier;    /* q_joint = multiplier * q[dof] + offset */
    double offset;
    int32_t type;
    int32_t parent, child; /* links */
    int32_t dof;           /* -1 for fixed joints */
    int32_t up;            /* topo index of the joint whose child is `parent`; -1 at the root */
    int32_t index;         /* def index */
} kin_joint;

/* A joint's world frame after forward kinematics. */
typedef struct kin_frame {
    gjk_vec3 axis;   /* world axis a_j */
    gjk_vec3 origin; /* world origin o_j */
} kin_frame;

typedef struct kin_name {
    const char *name;
    int32_t joint; /* def index */
} kin_name;

struct gjk_kinematics {
    int32_t link_count, joint_count, dof_count, root;
    kin_joint *topo;     /* joint_count, topological order */
    int32_t *link_joint; /* link -> topo index of the joint whose child it is; -1 root */
    int32_t *dof_joint;  /* DOF -> def index */
    double *dof_lower;   /* DOF limits, tolerance included; +-DBL_MAX for continuous */
    double *dof_upper;
    const char **dof_names; /* dof_count */
    gjk_joint_info *info;   /* def order */
    kin_name *sorted;       /* joint names, sorted by strcmp then index */
};

struct gjk_kinematics_state {
    const gjk_kinematics *model;
    bool evaluated;       /* a forward call succeeded */
    gjk_transform *poses; /* link_count, link order */
    kin_frame *frames;    /* joint_count, topological order */
};

/* ------------------------------------------------------------------ rpy */

gjk_quat gjk_quat_from_rpy(double roll, double pitch, double yaw)
{
    double cr = cos(0.5 * roll), sr = sin(0.5 * roll);
    double cp = cos(0.5 * pitch), sp = sin(0.5 * pitch);
    double cy = cos(0.5 * yaw), sy = sin(0.5 * yaw);
    /* qz(yaw) * qy(pitch) * qx(roll), expanded. */
    return gjk_quat_make(cy * cp * cr + sy * sp * sr, cy * cp * sr - sy * sp * cr,
                         cy * sp * cr + sy * cp * sr, sy * cp * cr - cy * sp * sr);
}

/* ------------------------------------------------------------------ build */

static gjk_status fail(gjk_kinematics_error *e, gjk_kinematics_error_code code, int32_t joint,
                       int32_t link, const char *reason)
{
    if (e) {
        e->code = code;
        e->joint = joint;
        e->link = link;
        e->reason = reason;
    }
    return code == GJK_KIN_OUT_OF_MEMORY ? GJK_STATUS_OUT_OF_MEMORY : GJK_STATUS_INVALID_INPUT;
}

static bool is_moving(gjk_joint_type t)
{
    return t == GJK_JOINT_REVOLUTE || t == GJK_JOINT_CONTINUOUS || t == GJK_JOINT_PRISMATIC;
}

static bool has_limits(gjk_joint_type t)
{
    return t == GJK_JOINT_REVOLUTE || t == GJK_JOINT_PRISMATIC;
}

static bool is_mimic(const gjk_joint_def *j)
{
    return is_moving(j->type) && j->mimic && j->mimic[0] != '\0';
}

/* Length of s if it is at most max bytes, else max + 1 (never reads past max + 1 bytes). */
static size_t bounded_length(const char *s, size_t max)
{
    size_t n = 0;
    while (n <= max && s[n] != '\0') {
        ++n;
    }
    return n;
}

/* Unit vector along a: scaled by its largest coordinate first, so that neither tiny nor huge
 * finite axes over- or underflow. Zero for a zero axis. */
static gjk_vec3 unit_axis(gjk_vec3 a)
{
    double m = fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
    if (!(m > 0.0)) {
        return gjk_v3(0.0, 0.0, 0.0);
    }
    return gjk_normalize(gjk_scale(a, 1.0 / m));
}

/* The checks of one joint's own fields (def order, before anything is allocated). */
static gjk_status check_joint(const gjk_kinematics_def *def, int32_t i, size_t *name_bytes,
                              gjk_kinematics_error *e)
{
    const gjk_joint_def *j = &def->joints[i];
    if (!j->name || j->name[0] == '\0') {
        return fail(e, GJK_KIN_BAD_NAME, i, -1, "joint name is NULL or empty");
    }
    size_t len = bounded_length(j->name, GJK_KINEMATICS_NAME_MAX);
    if (len > GJK_KINEMATICS_NAME_MAX) {
        return fail(e, GJK_KIN_BAD_NAME, i, -1, "joint name longer than GJK_KINEMATICS_NAME_MAX");
    }
    *name_bytes += len + 1;
    if (j->type != GJK_JOINT_FIXED && !is_moving(j->type)) {
        return fail(e, GJK_KIN_BAD_TYPE, i, -1, "joint type is not a gjk_joint_type");
    }
    if (j->parent < 0 || j->parent >= def->link_count) {
        return fail(e, GJK_KIN_UNKNOWN_LINK, i, j->parent, "parent link index out of range");
    }
    if (j->child < 0 || j->child >= def->link_count) {
        return fail(e, GJK_KIN_UNKNOWN_LINK, i, j->child, "child link index out of range");
    }
    if (!gjk_transform_is_valid(j->origin)) {
        return fail(e, GJK_KIN_BAD_ORIGIN, i, -1,
                    "origin is not finite, beyond GJK_MAX_LENGTH or has a non-unit quaternion");
    }
    if (is_moving(j->type)) {
        if (!gjk_vec3_is_finite(j->axis)) {
            return fail(e, GJK_KIN_BAD_AXIS, i, -1, "axis is not finite");
        }
        if (gjk_length_sq(unit_axis(j->axis)) == 0.0) {
            return fail(e, GJK_KIN_BAD_AXIS, i, -1, "axis is zero");
        }
    }
    if (has_limits(j->type)) {
        if (!isfinite(j->lower) || !isfinite(j->upper)) {
            return fail(e, GJK_KIN_BAD_LIMITS, i, -1, "limit is not finite");
        }
        if (j->lower > j->upper) {
            return fail(e, GJK_KIN_BAD_LIMITS, i, -1, "lower limit above upper limit");
        }
        if (j->type == GJK_JOINT_PRISMATIC &&
            (fabs(j->lower) > GJK_MAX_LENGTH || fabs(j->upper) > GJK_MAX_LENGTH)) {
            return fail(e, GJK_KIN_BAD_LIMITS, i, -1, "prismatic limit beyond GJK_MAX_LENGTH");
        }
    }
    if (is_mimic(j) && (!isfinite(j->multiplier) || !isfinite(j->offset))) {
        return fail(e, GJK_KIN_BAD_MIMIC, i, -1, "mimic multiplier or offset is not finite");
    }
    return GJK_KINEMATICS_OK;
}

/* Reserves count elements of size bytes aligned to align at *offset; returns their offset. */
static size_t place(size_t *offset, size_t count, size_t size, size_t align)
{
    size_t at = (*offset + align - 1) / align * align;
    *offset = at + count * size;
    return at;
}

static int compare_names(const void *a, const void *b)
{
    const kin_name *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->joint > y->joint) - (x->joint < y->joint);
}

/* Def index of the joint named `name`, or -1. */
static int32_t lookup(const gjk_kinematics *k, const char *name)
{
    size_t lo = 0, hi = (size_t)k->joint_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(k->sorted[mid].name, name);
        if (c == 0) {
            return k->sorted[mid].joint;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return -1;
}

/* Fills link_joint (def indices here), finds the root and every link's depth; the tree
 * errors of the header. depth and scratch have link_count entries. */
static gjk_status check_tree(const gjk_kinematics_def *def, int32_t *link_joint, int32_t *depth,
                             int32_t *root, gjk_kinematics_error *e)
{
    int32_t n = def->link_count;
    for (int32_t l = 0; l < n; ++l) {
        link_joint[l] = -1;
    }
    for (int32_t i = 0; i < def->joint_count; ++i) {
        int32_t c = def->joints[i].child;
        if (link_joint[c] >= 0) {
            return fail(e, GJK_KIN_TWO_PARENTS, i, c, "child link already has a parent joint");
        }
        link_joint[c] = i;
    }
    *root = -1;
    for (int32_t l = 0; l < n; ++l) {
        depth[l] = -1; /* unknown */
        if (link_joint[l] < 0) {
            if (*root >= 0) {
                return fail(e, GJK_KIN_MULTIPLE_ROOTS, -1, l,
                            "a second link without a parent joint (exactly one root)");
            }
            *root = l;
        }
    }
    if (*root >= 0) {
        depth[*root] = 0;
    }
    enum { VISITING = -2 };
    for (int32_t l = 0; l < n; ++l) {
        int32_t x = l, steps = 0;
        while (depth[x] == -1) {
            depth[x] = VISITING;
            x = def->joints[link_joint[x]].parent;
            ++steps;
        }
        if (depth[x] == VISITING) {
            /* x is on a cycle: go round it once for its lowest joint index. */
            int32_t low = link_joint[x];
            for (int32_t y = def->joints[low].parent; y != x;
                 y = def->joints[link_joint[y]].parent) {
                low = link_joint[y] < low ? link_joint[y] : low;
            }
            return fail(e, GJK_KIN_CYCLE, low, def->joints[low].child,
                        "joints form a cycle (the link is not below the root)");
        }
        /* x has depth d: the links walked are at d + steps, d + steps - 1, ... */
        int32_t d = depth[x] + steps;
        for (int32_t y = l; y != x; y = def->joints[link_joint[y]].parent) {
            depth[y] = d--;
        }
    }
    return GJK_KINEMATICS_OK;
}

gjk_status gjk_kinematics_build(const gjk_kinematics_def *def, gjk_kinematics **out,
                                gjk_kinematics_error *error)
{
    if (out) {
        *out = NULL;
    }
    if (error) {
        error->code = GJK_KIN_OK;
        error->joint = -1;
        error->link = -1;
        error->reason = "ok";
    }
    if (!def || !out) {
        return fail(error, GJK_KIN_BAD_COUNT, -1, -1, "def or out is NULL");
    }
    if (def->link_count < 1 || def->link_count > GJK_KINEMATICS_MAX_LINKS) {
        return fail(error, GJK_KIN_BAD_COUNT, -1, -1,
                    "link_count outside 1..GJK_KINEMATICS_MAX_LINKS");
    }
    if (def->joint_count < 0 || def->joint_count > GJK_KINEMATICS_MAX_LINKS) {
        return fail(error, GJK_KIN_BAD_COUNT, -1, -1,
                    "joint_count outside 0..GJK_KINEMATICS_MAX_LINKS");
    }
    if (def->joint_count > 0 && !def->joints) {
        return fail(error, GJK_KIN_BAD_COUNT, -1, -1, "joints is NULL");
    }
    int32_t n = def->link_count, m = def->joint_count, dofs = 0;
    size_t name_bytes = 0;
    for (int32_t i = 0; i < m; ++i) {
        gjk_status st = check_joint(def, i, &name_bytes, error);
        if (st != GJK_KINEMATICS_OK) {
            return st;
        }
        dofs += is_moving(def->joints[i].type) && !is_mimic(&def->joints[i]);
    }

    size_t size = 0, un = (size_t)n, um = (size_t)m, ud = (size_t)dofs;
    size_t o_self = place(&size, 1, sizeof(gjk_kinematics), _Alignof(gjk_kinematics));
    size_t o_topo = place(&size, um, sizeof(kin_joint), _Alignof(kin_joint));
    size_t o_info = place(&size, um, sizeof(gjk_joint_info), _Alignof(gjk_joint_info));
    size_t o_sorted = place(&size, um, sizeof(kin_name), _Alignof(kin_name));
    size_t o_dof_names = place(&size, ud, sizeof(const char *), _Alignof(const char *));
    size_t o_lower = place(&size, ud, sizeof(double), _Alignof(double));
    size_t o_upper = place(&size, ud, sizeof(double), _Alignof(double));
    size_t o_link_joint = place(&size, un, sizeof(int32_t), _Alignof(int32_t));
    size_t o_dof_joint = place(&size, ud, sizeof(int32_t), _Alignof(int32_t));
    /* Scratch for the build, kept in the block: link depths, depth counts, def -> topo. */
    size_t o_depth = place(&size, un, sizeof(int32_t), _Alignof(int32_t));
    size_t o_count = place(&size, un + 1, sizeof(int32_t), _Alignof(int32_t));
    size_t o_topo_of = place(&size, um, sizeof(int32_t), _Alignof(int32_t));
    size_t o_strings = place(&size, name_bytes, 1, 1);
    char *block = malloc(size);
    if (!block) {
        return fail(error, GJK_KIN_OUT_OF_MEMORY, -1, -1, "allocation failed");
    }
    gjk_kinematics *k = (gjk_kinematics *)(void *)(block + o_self);
    k->link_count = n;
    k->joint_count = m;
    k->dof_count = dofs;
    k->topo = (kin_joint *)(void *)(block + o_topo);
    k->info = (gjk_joint_info *)(void *)(block + o_info);
    k->sorted = (kin_name *)(void *)(block + o_sorted);
    k->dof_names = (const char **)(void *)(block + o_dof_names);
    k->dof_lower = (double *)(void *)(block + o_lower);
    k->dof_upper = (double *)(void *)(block + o_upper);
    k->link_joint = (int32_t *)(void *)(block + o_link_joint);
    k->dof_joint = (int32_t *)(void *)(block + o_dof_joint);
    int32_t *depth = (int32_t *)(void *)(block + o_depth);
    int32_t *count = (int32_t *)(void *)(block + o_count);
    int32_t *topo_of = (int32_t *)(void *)(block + o_topo_of);
    char *strings = block + o_strings;

    /* Names: copied, then sorted for lookup; equal neighbours are duplicates. */
    for (int32_t i = 0; i < m; ++i) {
        size_t len = strlen(def->joints[i].name);
        memcpy(strings, def->joints[i].name, len + 1);
        k->info[i].name = strings;
        k->sorted[i].name = strings;
        k->sorted[i].joint = i;
        strings += len + 1;
    }
    if (m > 1) {
        qsort(k->sorted, um, sizeof *k->sorted, compare_names);
    }
    int32_t duplicate = -1;
    for (int32_t i = 1; i < m; ++i) {
        if (strcmp(k->sorted[i - 1].name, k->sorted[i].name) == 0 &&
            (duplicate < 0 || k->sorted[i].joint < duplicate)) {
            duplicate = k->sorted[i].joint;
        }
    }
    gjk_status st = GJK_KINEMATICS_OK;
    if (duplicate >= 0) {
        st = fail(error, GJK_KIN_DUPLICATE_NAME, duplicate, -1,
                  "joint name used by an earlier joint");
    }
    if (st == GJK_KINEMATICS_OK) {
        st = check_tree(def, k->link_joint, depth, &k->root, error);
    }
    /* Mimic references, and the DOF numbering. */
    for (int32_t i = 0; i < m && st == GJK_KINEMATICS_OK; ++i) {
        const gjk_joint_def *j = &def->joints[i];
        gjk_joint_info *info = &k->info[i];
        info->mimic = -1;
        if (!is_mimic(j)) {
            continue;
        }
        int32_t t = lookup(k, j->mimic);
        if (t < 0) {
            st = fail(error, GJK_KIN_MIMIC_UNKNOWN, i, -1, "mimic names no joint of the robot");
        } else if (def->joints[t].type == GJK_JOINT_FIXED) {
            st = fail(error, GJK_KIN_MIMIC_OF_FIXED, i, -1, "mimic follows a fixed joint");
        } else if (is_mimic(&def->joints[t])) {
            st = fail(error, GJK_KIN_MIMIC_OF_MIMIC, i, -1,
                      "mimic follows a mimic joint (chains are refused)");
        }
        info->mimic = t;
    }
    if (st != GJK_KINEMATICS_OK) {
        free(block);
        return st;
    }
    int32_t d = 0;
    for (int32_t i = 0; i < m; ++i) {
        const gjk_joint_def *j = &def->joints[i];
        gjk_joint_info *info = &k->info[i];
        info->type = j->type;
        info->parent = j->parent;
        info->child = j->child;
        info->origin = gjk_transform_make(gjk_quat_normalize(j->origin.q), j->origin.p);
        info->axis = is_moving(j->type) ? unit_axis(j->axis) : gjk_v3(0.0, 0.0, 0.0);
        info->lower = has_limits(j->type) ? j->lower : -(double)INFINITY;
        info->upper = has_limits(j->type) ? j->upper : (double)INFINITY;
        info->dof = -1;
        info->multiplier = 0.0;
        info->offset = 0.0;
        if (is_moving(j->type) && info->mimic < 0) {
            info->dof = d;
            info->multiplier = 1.0;
            k->dof_joint[d] = i;
            k->dof_names[d] = info->name;
            if (has_limits(j->type)) {
                double tol = GJK_KINEMATICS_LIMIT_TOLERANCE *
                             fmax(1.0, fmax(fabs(j->lower), fabs(j->upper)));
                k->dof_lower[d] = j->lower - tol;
                k->dof_upper[d] = j->upper + tol;
            } else {
                k->dof_lower[d] = -DBL_MAX;
                k->dof_upper[d] = DBL_MAX;
            }
            ++d;
        }
    }
    for (int32_t i = 0; i < m; ++i) { /* mimics, once every active joint has its DOF */
        gjk_joint_info *info = &k->info[i];
        if (info->mimic >= 0) {
            info->dof = k->info[info->mimic].dof;
            info->multiplier = def->joints[i].multiplier;
            info->offset = def->joints[i].offset;
        }
    }

    /* Topological order: counting sort of the joints by their child's depth (>= 1). */
    for (int32_t l = 0; l <= n; ++l) {
        count[l] = 0;
    }
    for (int32_t i = 0; i < m; ++i) {
        ++count[depth[def->joints[i].child]];
    }
    for (int32_t l = 0, sum = 0; l <= n; ++l) {
        int32_t c = count[l];
        count[l] = sum;
        sum += c;
    }
    for (int32_t i = 0; i < m; ++i) {
        topo_of[i] = count[depth[def->joints[i].child]]++;
    }
    for (int32_t i = 0; i < m; ++i) {
        const gjk_joint_info *info = &k->info[i];
        kin_joint *t = &k->topo[topo_of[i]];
        t->origin = info->origin;
        t->axis = info->axis;
        t->multiplier = info->multiplier;
        t->offset = info->offset;
        t->type = info->type;
        t->parent = info->parent;
        t->child = info->child;
        t->dof = info->dof;
        t->index = i;
        int32_t up = k->link_joint[info->parent];
        t->up = up >= 0 ? topo_of[up] : -1;
    }
    for (int32_t l = 0; l < n; ++l) {
        k->link_joint[l] = k->link_joint[l] >= 0 ? topo_of[k->link_joint[l]] : -1;
    }
    *out = k;
    return GJK_KINEMATICS_OK;
}

void gjk_kinematics_destroy(gjk_kinematics **k)
{
    if (k && *k) {
        free(*k); /* the model is the start of its block */
        *k = NULL;
    }
}

/* ------------------------------------------------------------------ reading the model */

int32_t gjk_kinematics_link_count(const gjk_kinematics *k)
{
    return k->link_count;
}
int32_t gjk_kinematics_joint_count(const gjk_kinematics *k)
{
    return k->joint_count;
}
int32_t gjk_kinematics_dof_count(const gjk_kinematics *k)
{
    return k->dof_count;
}
int32_t gjk_kinematics_root_link(const gjk_kinematics *k)
{
    return k->root;
}
const char *const *gjk_kinematics_dof_names(const gjk_kinematics *k)
{
    return k->dof_names;
}

gjk_status gjk_kinematics_joint_info(const gjk_kinematics *k, int32_t joint, gjk_joint_info *info)
{
    if (joint < 0 || joint >= k->joint_count || !info) {
        return GJK_STATUS_INVALID_INPUT;
    }
    *info = k->info[joint];
    return GJK_KINEMATICS_OK;
}

gjk_status gjk_kinematics_find_joint(const gjk_kinematics *k, const char *name, int32_t *joint)
{
    int32_t j = name ? lookup(k, name) : -1;
    if (j < 0) {
        return GJK_STATUS_NOT_FOUND;
    }
    if (joint) {
        *joint = j;
    }
    return GJK_KINEMATICS_OK;
}

int32_t gjk_kinematics_dof_joint(const gjk_kinematics *k, int32_t dof)
{
    return dof >= 0 && dof < k->dof_count ? k->dof_joint[dof] : -1;
}

int32_t gjk_kinematics_parent_joint(const gjk_kinematics *k, int32_t link)
{
    if (link < 0 || link >= k->link_count || k->link_joint[link] < 0) {
        return -1;
    }
    return k->topo[k->link_joint[link]].index;
}

gjk_status gjk_kinematics_map_dofs(const gjk_kinematics *k, const char *const *names, int32_t count,
                                   int32_t *dofs, int32_t *bad)
{
    if (bad) {
        *bad = -1;
    }
    if (count < 0 || (count > 0 && (!names || !dofs))) {
        return GJK_STATUS_INVALID_INPUT;
    }
    uint64_t seen[(GJK_KINEMATICS_MAX_LINKS + 63) / 64] = {0}; /* joints named so far */
    for (int32_t i = 0; i < count; ++i) {
        int32_t j = names[i] ? lookup(k, names[i]) : -1;
        if (j < 0 || (seen[j / 64] >> (j % 64) & 1u)) {
            if (bad) {
                *bad = i;
            }
            return j < 0 ? GJK_STATUS_NOT_FOUND : GJK_STATUS_INVALID_INPUT;
        }
        seen[j / 64] |= (uint64_t)1 << (j % 64);
        dofs[i] = k->info[j].mimic < 0 ? k->info[j].dof : -1;
    }
    return GJK_KINEMATICS_OK;
}

/* ------------------------------------------------------------------ state */

gjk_status gjk_kinematics_state_create(const gjk_kinematics *k, gjk_kinematics_state **out)
{
    if (!out) {
        return GJK_STATUS_INVALID_INPUT;
    }
    *out = NULL;
    if (!k) {
        return GJK_STATUS_INVALID_INPUT;
    }
    size_t size = 0;
    size_t o_self = place(&size, 1, sizeof(gjk_kinematics_state), _Alignof(gjk_kinematics_state));
    size_t o_poses =
        place(&size, (size_t)k->link_count, sizeof(gjk_transform), _Alignof(gjk_transform));
    size_t o_frames = place(&size, (size_t)k->joint_count, sizeof(kin_frame), _Alignof(kin_frame));
    char *block = malloc(size);
    if (!block) {
        return GJK_STATUS_OUT_OF_MEMORY;
    }
    gjk_kinematics_state *s = (gjk_kinematics_state *)(void *)(block + o_self);
    s->model = k;
    s->evaluated = false;
    s->poses = (gjk_transform *)(void *)(block + o_poses);
    s->frames = (kin_frame *)(void *)(block + o_frames);
    for (int32_t l = 0; l < k->link_count; ++l) {
        s->poses[l] = gjk_transform_identity();
    }
    memset(s->frames, 0, (size_t)k->joint_count * sizeof *s->frames);
    *out = s;
    return GJK_KINEMATICS_OK;
}

void gjk_kinematics_state_destroy(gjk_kinematics_state **s)
{
    if (s && *s) {
        free(*s);
        *s = NULL;
    }
}

const gjk_transform *gjk_kinematics_link_poses(const gjk_kinematics_state *s)
{
    return s->poses;
}

/* ------------------------------------------------------------------ forward kinematics */

gjk_status gjk_kinematics_forward(const gjk_kinematics *k, const double *q, int32_t count,
                                  gjk_transform base, gjk_kinematics_state *s, int32_t *bad_joint)
{
    if (bad_joint) {
        *bad_joint = -1;
    }
    if (!k || !s || s->model != k || count != k->dof_count || (count > 0 && !q) ||
        !gjk_transform_is_valid(base)) {
        return GJK_STATUS_INVALID_INPUT;
    }
    for (int32_t d = 0; d < count; ++d) {
        /* NaN fails both comparisons; +-Inf lies beyond +-DBL_MAX. */
        if (!(q[d] >= k->dof_lower[d] && q[d] <= k->dof_upper[d])) {
            if (bad_joint) {
                *bad_joint = k->dof_joint[d];
            }
            return GJK_STATUS_INVALID_INPUT;
        }
    }
    gjk_transform *poses = s->poses;
    kin_frame *frames = s->frames;
    base.q = gjk_quat_normalize(base.q);
    poses[k->root] = base;
    const kin_joint *topo = k->topo;
    for (int32_t t = 0; t < k->joint_count; ++t) {
        const kin_joint *j = &topo[t];
        gjk_transform f = gjk_transform_mul(poses[j->parent], j->origin); /* joint frame */
        if (j->type == GJK_JOINT_FIXED) {
            poses[j->child] = f;
            continue;
        }
        gjk_vec3 a = gjk_quat_rotate(f.q, j->axis);
        frames[t].axis = a;
        frames[t].origin = f.p;
        double v = j->multiplier * q[j->dof] + j->offset;
        if (j->type == GJK_JOINT_PRISMATIC) {
            poses[j->child] = gjk_transform_make(f.q, gjk_madd(f.p, v, a));
        } else {
            poses[j->child] =
                gjk_transform_make(gjk_quat_mul(f.q, gjk_quat_from_axis_angle(j->axis, v)), f.p);
        }
    }
    s->evaluated = true;
    return GJK_KINEMATICS_OK;
}

/* ------------------------------------------------------------------ gradients */

gjk_status gjk_kinematics_accumulate_gradient(const gjk_kinematics *k,
                                              const gjk_kinematics_state *s, int32_t link,
                                              gjk_vec3 point, gjk_vec3 direction, double scale,
                                              double *grad)
{
    if (!k || !s || s->model != k || !s->evaluated || link < 0 || link >= k->link_count ||
        !gjk_vec3_is_finite(point) || !gjk_vec3_is_finite(direction) || !isfinite(scale) ||
        (k->dof_count > 0 && !grad)) {
        return GJK_STATUS_INVALID_INPUT;
    }
    const kin_joint *topo = k->topo;
    const kin_frame *frames = s->frames;
    for (int32_t t = k->link_joint[link]; t >= 0; t = topo[t].up) {
        const kin_joint *j = &topo[t];
        if (j->dof < 0) {
            continue;
        }
        double c =
            j->type == GJK_JOINT_PRISMATIC
                ? gjk_dot(direction, frames[t].axis)
                : gjk_dot(direction, gjk_cross(frames[t].axis, gjk_sub(point, frames[t].origin)));
        grad[j->dof] += scale * j->multiplier * c;
    }
    return GJK_KINEMATICS_OK;
}
