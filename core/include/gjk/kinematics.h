/* gjk/kinematics.h — a robot's kinematic tree: joint positions -> link poses, and gradients.
 *
 * Model (URDF's, without the I/O: parsing a description is the clients' job)
 *  - A robot has link_count links, numbered 0..link_count-1 in the order of its
 *    gjk_robot_def.links (gjk/world.h), so that the link poses computed here can be handed to
 *    gjk_world_set_link_poses as they are.
 *  - Joints connect a parent link to a child link and form a tree: every link but one is the
 *    child of exactly one joint; the one link that is no joint's child is the root. Its world
 *    pose is the *base pose*, an argument of every forward-kinematics call (a robot on a
 *    moving or floating base is one whose caller sets a different base pose each time).
 *  - A joint's frame is `origin` in its parent link's frame (URDF <origin xyz rpy>; see
 *    gjk_quat_from_rpy). Its child link's frame is
 *        pose(child) = pose(parent) * origin * motion(q),
 *    motion(q) = rotation by q radians about `axis` (revolute, continuous), translation by
 *    q metres along `axis` (prismatic), identity (fixed). The axis is given in the joint frame
 *    and normalised on input.
 *  - A mimic joint is a revolute, continuous or prismatic joint whose position follows
 *    another joint: q = multiplier * q(followed) + offset. The followed joint must be an
 *    active joint (below): a mimic of a mimic is refused rather than resolved, so that every
 *    mimic is one multiply-add away from a DOF (a description with a chain can be flattened by
 *    its reader: m2 * (m1 * q + o1) + o2). Limits of a mimic joint are checked on input but
 *    not enforced: its position is not the caller's to choose.
 *  - Fields a joint's type does not use are ignored, whatever they hold: axis, limits and
 *    mimic for fixed joints; limits for continuous joints.
 *
 * Degrees of freedom. The *active* joints (revolute, continuous, prismatic; not mimic) are the
 *  robot's DOF, numbered in the order of the joint defs: DOF i is the i-th active joint of the
 *  def. A joint-position vector q has one value per DOF, in that order.
 *
 * Limits. A revolute or prismatic DOF must lie in [lower - tol, upper + tol] with
 *  tol = GJK_KINEMATICS_LIMIT_TOLERANCE * max(1, |lower|, |upper|); the tolerance admits the
 *  rounding of a limit written in another unit or form (degrees, a float printed and read
 *  back in double) and nothing a real joint could do. Values within it are used as given, not
 *  clamped. Continuous DOF take any finite value.
 *
 * Status. Functions return GJK_KINEMATICS_OK on success, GJK_STATUS_INVALID_INPUT for bad
 *  input (the failing joint is named where there is one), GJK_STATUS_NOT_FOUND for an unknown
 *  name, GJK_STATUS_OUT_OF_MEMORY when an allocation fails. A call that fails leaves its
 *  outputs as they were, except where a function says otherwise.
 *
 * Cost and threads. gjk_kinematics_build and gjk_kinematics_state_create make one allocation
 *  each; nothing else allocates. Forward kinematics is O(links) and the gradient
 *  O(chain length). A gjk_kinematics is immutable once built and may be shared by any number
 *  of threads; a gjk_kinematics_state belongs to one thread at a time. */
#ifndef GJK_KINEMATICS_H
#define GJK_KINEMATICS_H

#include "base.h"
#include "vecmath.h"

/* Success of a kinematics call (the status table's "valid" value, as for the world). */
#define GJK_KINEMATICS_OK GJK_STATUS_SEPARATED

/* Limits, enforced on input. The link limit is the world's (GJK_WORLD_MAX_LINKS), so that any
 * model built here can drive a robot of the world. */
#define GJK_KINEMATICS_MAX_LINKS 1024 /* links per robot (joints: one fewer) */
#define GJK_KINEMATICS_NAME_MAX 255   /* bytes of a joint name, excluding the terminating NUL */
/* Relative tolerance of joint limits (see Limits above). */
#define GJK_KINEMATICS_LIMIT_TOLERANCE 1e-12

/* Unit quaternion of URDF's rpy: fixed-axis roll about x, then pitch about y, then yaw about z,
 * i.e. R = Rz(yaw) * Ry(pitch) * Rx(roll). */
GJK_API gjk_quat gjk_quat_from_rpy(double roll, double pitch, double yaw);

/* ------------------------------------------------------------------ the model */

typedef enum gjk_joint_type {
    GJK_JOINT_FIXED = 0,
    GJK_JOINT_REVOLUTE = 1,   /* rotation about axis, lower <= q <= upper (radians) */
    GJK_JOINT_CONTINUOUS = 2, /* rotation about axis, no limits */
    GJK_JOINT_PRISMATIC = 3,  /* translation along axis, lower <= q <= upper (metres) */
} gjk_joint_type;

typedef struct gjk_joint_def {
    const char *name; /* non-empty, unique within the robot, at most GJK_KINEMATICS_NAME_MAX */
    gjk_joint_type type;
    int32_t parent;       /* parent link index, 0..link_count-1 */
    int32_t child;        /* child link index, 0..link_count-1 */
    gjk_transform origin; /* joint frame in the parent link frame: |p| coordinates within
                             GJK_MAX_LENGTH, |q| = 1 within GJK_QUAT_NORM_TOLERANCE (normalised) */
    gjk_vec3 axis;        /* joint frame; finite and non-zero; normalised (not fixed joints) */
    double lower, upper;  /* finite, lower <= upper (revolute, prismatic; prismatic limits within
                             GJK_MAX_LENGTH) */
    const char *mimic;    /* name of the joint this one follows; NULL or "" = not a mimic */
    double multiplier;    /* mimic only, finite: q = multiplier * q(mimic) + offset */
    double offset;        /* mimic only, finite */
} gjk_joint_def;

typedef struct gjk_kinematics_def {
    int32_t link_count;          /* 1..GJK_KINEMATICS_MAX_LINKS */
    const gjk_joint_def *joints; /* joint_count joints; NULL when joint_count is 0 */
    int32_t joint_count;         /* a tree has link_count - 1 of them */
} gjk_kinematics_def;

/* Why a def was refused. Validation reports the first failure in this order: the counts;
 * then joint by joint, in def order, its own fields (name, type, links, origin, axis, limits,
 * mimic values); then duplicate names; then the tree (two parents, roots, cycles); then mimic
 * references. */
typedef enum gjk_kinematics_error_code {
    GJK_KIN_OK = 0,
    GJK_KIN_BAD_COUNT,      /* link_count or joint_count out of range, joints NULL */
    GJK_KIN_BAD_NAME,       /* NULL, empty or too long */
    GJK_KIN_DUPLICATE_NAME, /* joint: the later of two joints with one name */
    GJK_KIN_BAD_TYPE,       /* not a gjk_joint_type */
    GJK_KIN_UNKNOWN_LINK,   /* parent or child outside 0..link_count-1; link: that index */
    GJK_KIN_BAD_ORIGIN,     /* NaN/Inf, a coordinate beyond GJK_MAX_LENGTH, non-unit q */
    GJK_KIN_BAD_AXIS,       /* NaN/Inf or zero */
    GJK_KIN_BAD_LIMITS,     /* NaN/Inf, lower > upper, prismatic beyond GJK_MAX_LENGTH */
    GJK_KIN_BAD_MIMIC,      /* multiplier or offset NaN/Inf */
    GJK_KIN_TWO_PARENTS,    /* joint: the later joint naming an already parented child */
    GJK_KIN_MULTIPLE_ROOTS, /* link: the second link (in index order) without a parent */
    GJK_KIN_CYCLE,          /* joint: the lowest joint index on the cycle (parent == child is
                               a cycle of one); link: that joint's child */
    GJK_KIN_MIMIC_UNKNOWN,  /* no joint of that name */
    GJK_KIN_MIMIC_OF_FIXED, /* the followed joint is fixed */
    GJK_KIN_MIMIC_OF_MIMIC, /* the followed joint is itself a mimic (itself included) */
    GJK_KIN_OUT_OF_MEMORY,
} gjk_kinematics_error_code;

typedef struct gjk_kinematics_error {
    gjk_kinematics_error_code code; /* GJK_KIN_OK on success */
    int32_t joint;                  /* index of the failing joint in the def, -1 when none */
    int32_t link;                   /* the link concerned, -1 when none */
    const char *reason;             /* static English sentence fragment, never NULL */
} gjk_kinematics_error;

typedef struct gjk_kinematics gjk_kinematics;

/* Builds an immutable model from def (copied: names and all; def may be freed afterwards).
 * *out is NULL on failure; error (may be NULL) says why. INVALID_INPUT or OUT_OF_MEMORY. */
GJK_API gjk_status gjk_kinematics_build(const gjk_kinematics_def *def, gjk_kinematics **out,
                                        gjk_kinematics_error *error);
/* Frees the model and sets *k to NULL. Safe on NULL and *k NULL. States made from it must
 * be destroyed first or never used again. */
GJK_API void gjk_kinematics_destroy(gjk_kinematics **k);

GJK_API int32_t gjk_kinematics_link_count(const gjk_kinematics *k);
GJK_API int32_t gjk_kinematics_joint_count(const gjk_kinematics *k);
GJK_API int32_t gjk_kinematics_dof_count(const gjk_kinematics *k);
/* The root link (the one whose world pose is the base pose). */
GJK_API int32_t gjk_kinematics_root_link(const gjk_kinematics *k);
/* The names of the DOF in DOF order: dof_count strings owned by the model. */
GJK_API const char *const *gjk_kinematics_dof_names(const gjk_kinematics *k);

/* A joint as the model holds it (normalised origin quaternion and axis). */
typedef struct gjk_joint_info {
    const char *name; /* owned by the model */
    gjk_joint_type type;
    int32_t parent, child;
    gjk_transform origin;
    gjk_vec3 axis;             /* unit; (0, 0, 0) for fixed joints */
    double lower, upper;       /* revolute, prismatic; -INFINITY, INFINITY otherwise */
    int32_t dof;               /* the DOF that drives it: its own (active), the followed joint's
                                  (mimic), -1 (fixed) */
    int32_t mimic;             /* index of the followed joint, -1 when not a mimic */
    double multiplier, offset; /* 1 and 0 for an active joint, 0 and 0 for a fixed one */
} gjk_joint_info;

/* The joint with index `joint` (def order). INVALID_INPUT when out of range. */
GJK_API gjk_status gjk_kinematics_joint_info(const gjk_kinematics *k, int32_t joint,
                                             gjk_joint_info *info);
/* Name -> joint index (def order). NOT_FOUND when there is none (or name is NULL). */
GJK_API gjk_status gjk_kinematics_find_joint(const gjk_kinematics *k, const char *name,
                                             int32_t *joint);
/* DOF index -> joint index; -1 when out of range. */
GJK_API int32_t gjk_kinematics_dof_joint(const gjk_kinematics *k, int32_t dof);
/* Link -> index (def order) of the joint whose child it is; -1 for the root or a link out of
 * range. Walking it up from a link gives the link's chain. */
GJK_API int32_t gjk_kinematics_parent_joint(const gjk_kinematics *k, int32_t link);

/* Maps joint names (a JointState's, any order) to DOF indices: dofs[i] = the DOF of names[i],
 * or -1 for a known joint that is not a DOF (fixed or mimic: a JointState may report mimic
 * joints too; their value follows from the DOF). DOF that no name maps to are left for the
 * caller (it can count the dofs[i] >= 0). Failures, with *bad (may be NULL) = the index in
 * names: NOT_FOUND for an unknown name (or NULL), INVALID_INPUT for a name that repeats an
 * earlier one. count >= 0; on failure dofs is written up to bad - 1. */
GJK_API gjk_status gjk_kinematics_map_dofs(const gjk_kinematics *k, const char *const *names,
                                           int32_t count, int32_t *dofs, int32_t *bad);

/* ------------------------------------------------------------------ state: poses */

/* Caller-owned workspace of one model: the link poses of the last forward-kinematics call and
 * the joint frames the gradient needs. */
typedef struct gjk_kinematics_state gjk_kinematics_state;

/* Makes a state for k (one allocation). Before the first successful gjk_kinematics_forward
 * its link poses are identity and gradients are refused. OUT_OF_MEMORY or INVALID_INPUT
 * (k NULL); *out is NULL on failure. */
GJK_API gjk_status gjk_kinematics_state_create(const gjk_kinematics *k, gjk_kinematics_state **out);
/* Frees the state and sets *s to NULL. Safe on NULL and *s NULL. */
GJK_API void gjk_kinematics_state_destroy(gjk_kinematics_state **s);

/* Forward kinematics: every link's world pose for DOF values q (count = dof_count, DOF order)
 * and base pose `base` (the root link's world pose; valid as for gjk_transform_is_valid,
 * normalised). Writes the state's link poses (link order, ready for gjk_world_set_link_poses)
 * and joint frames. Allocation-free, O(links); links are evaluated in a topological order
 * fixed at build. INVALID_INPUT, with *bad_joint (may be NULL) = the joint index (def order)
 * of the first DOF in DOF order that is non-finite or outside its limits, or -1 for a
 * wrong count, a NULL q with count > 0, an invalid base pose or a state of another model. On
 * failure the state is unchanged. */
GJK_API gjk_status gjk_kinematics_forward(const gjk_kinematics *k, const double *q, int32_t count,
                                          gjk_transform base, gjk_kinematics_state *s,
                                          int32_t *bad_joint);

/* The link poses of the last successful forward call: link_count of them, link order, owned
 * by the state and rewritten by the next call. */
GJK_API const gjk_transform *gjk_kinematics_link_poses(const gjk_kinematics_state *s);

/* ------------------------------------------------------------------ gradients */

/* For a point w (world frame, as of the last forward call) moving with link `link` and a
 * direction n (world frame), adds scale * d(n.w)/dq to grad[0..dof_count) (DOF order):
 *     revolute, continuous joint j on the link's chain:  n . (a_j x (w - o_j))
 *     prismatic joint j on the chain:                     n . a_j
 * with a_j the joint's world axis and o_j its world origin; joints off the chain add nothing;
 * a mimic joint adds multiplier times its term to the DOF it follows. n need not be unit (the
 * result is linear in n). The gradient of a pair's signed distance is
 * n . (J_B(w_B) - J_A(w_A)): call once with scale +1 on B's link and witness and once with -1
 * on A's. O(chain length), allocation-free. INVALID_INPUT (grad untouched) for a link out of
 * range, non-finite point, direction or scale, a state of another model or one without a
 * successful forward call. */
GJK_API gjk_status gjk_kinematics_accumulate_gradient(const gjk_kinematics *k,
                                                      const gjk_kinematics_state *s, int32_t link,
                                                      gjk_vec3 point, gjk_vec3 direction,
                                                      double scale, double *grad);

#endif /* GJK_KINEMATICS_H */
