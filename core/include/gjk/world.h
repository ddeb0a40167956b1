/* gjk/world.h — a world of robots and obstacles, and state and trajectory distance queries.
 *
 * Model
 *  - A *robot* is a list of *links*; a link is a list of convex *parts* (shape + pose in the
 *    link frame). A link's pose in the world is state, set for all links of a robot at once
 *    (gjk_world_set_link_poses) or given per waypoint by a trajectory query.
 *  - An *obstacle* is a list of convex parts (shape + pose in the obstacle frame) and a world
 *    pose. Non-convex geometry arrives as several convex parts.
 *  - A *body* is a link or an obstacle (gjk_body_id). Pairs of bodies are checked part by part.
 *  - Robots and obstacles have unique names (within their kind) and stable integer ids. Ids
 *    start at 1, are never reused in the life of a world, and survive a replace (put with an
 *    existing name). Link ids are indices 0..link_count-1 within their robot; part ids are
 *    indices within their link or obstacle.
 *  - The world owns copies of everything it is given (names, part lists, polytopes).
 *
 * Pairs checked
 *  - robot-obstacle: every link of a robot against every obstacle;
 *  - self: link-link pairs of one robot whose self_collision is on, except the robot's
 *    disabled pairs (e.g. adjacent links);
 *  - robot-robot: links of two different robots.
 *  Pairs marked allowed (gjk_world_set_allowed) are never checked. Side A of a pair is always a
 *  link: the lower link index in a self pair; in a robot-robot pair the trajectory's robot, or
 *  options.robot, or else the robot with the lower id.
 *
 * Reported pairs. A body pair (link-obstacle, link-link) is checked as its part pairs (every
 *  part of A against every part of B). In ALL_WITHIN mode each body pair within max_distance
 *  is reported once: the part pair that realises its minimum signed distance (distance,
 *  witnesses, normal, status, iterations, part indices and names are that part pair's; on a
 *  tie the lowest part index of A, then of B), with part_pair_count = how many of its part
 *  pairs are within max_distance. With options.per_part every part pair within max_distance
 *  is an entry of its own (part_pair_count 1). CLOSEST reports the closest part pair and
 *  FIRST_COLLISION the first colliding one it found (part_pair_count 1). max_pairs caps the
 *  entries; min_distance, collision and truncated look at every qualifying entry.
 *
 * Defaults. In gjk_world_query_options the zero value of every field is its default, and a
 *  NULL options pointer means a zeroed struct: no distance cutoff, mode CLOSEST, every pair
 *  kind (robot-obstacle, self, robot-robot), penetration depth by EPA, one entry per body pair,
 *  all robots, max_pairs GJK_WORLD_DEFAULT_MAX_PAIRS, the calling thread only, the narrow
 *  phase's own defaults. gjk_world_default_query_options() returns that zeroed struct. The
 *  wire (gjkd.proto QueryOptions), gjkctl and the Python client follow the same convention,
 *  field for field: an option left out means the same there as a zero here.
 *
 * Padding (extra margin, metres, >= 0). Each link and each obstacle has a padding; a pair's
 *  padding is padding(A) + padding(B), unless a per-pair padding is set, which replaces it.
 *  Padding inflates the pair exactly like a margin: reported signed distance = geometric signed
 *  distance - padding, and the witness points lie on the padded surfaces (A's point moved by
 *  padding(A) along the normal, B's by padding(B) against it; a per-pair padding is split in
 *  half). Padding is applied to every distance this header reports.
 *
 * Conventions: SI units (metres, radians); quaternions (w, x, y, z); world frame unless a
 *  field says otherwise. For every reported pair, body A is a robot link and
 *      normal    = unit vector from A towards B (world frame),
 *      point_b - point_a = distance * normal     (world frame, whenever distance != 0),
 *  distance > 0 the gap, distance < 0 minus the penetration depth (EPA; see no_penetration_depth).
 *
 * Status. Every function that can fail returns a gjk_status: GJK_WORLD_OK on success,
 *  GJK_STATUS_INVALID_INPUT (NaN/Inf, bad quaternion, invalid shape, empty or duplicate name,
 *  wrong count, option out of range), GJK_STATUS_NOT_FOUND (unknown id or name) or
 *  GJK_STATUS_OUT_OF_MEMORY (allocation failed or a limit below was exceeded). A call that
 *  fails leaves the world exactly as it was: input is validated fully before anything changes.
 *
 * Revisions. gjk_world_revision() increments on every successful scene change (put/remove
 *  robot or obstacle, obstacle pose, allowed pairs, padding, self-collision). Link poses are
 *  state, not scene: gjk_world_set_link_poses increments gjk_world_pose_revision() instead.
 *
 * Thread safety. Queries (gjk_world_query_*) and the read-only accessors may run concurrently
 *  with each other on one world. Every function taking a non-const gjk_world * (changes) needs
 *  exclusive access: the caller serialises changes against everything else (e.g. a rwlock:
 *  queries take it shared, changes exclusive). The named-trajectory cache is the only state a
 *  query writes; it has its own internal lock. A query may spawn threads (options.threads) and
 *  joins them all before returning.
 *
 * Determinism. A trajectory query splits its waypoints into fixed blocks of
 *  GJK_WORLD_BLOCK_WAYPOINTS consecutive waypoints. Within a block each pair warm-starts from the
 *  previous waypoint; a block always starts from the named-trajectory cache or cold. Blocks are
 *  independent and are spread over the threads, so for the same world, the same input and the
 *  same named-cache contents the result is bit-for-bit identical whatever the thread count
 *  (every field: pairs and their order, distances, witnesses, normals, statuses, iteration
 *  counts, counters). Warm starts change only the work done: warm and cold answers agree within
 *  GJK tolerance (options.gjk; EPA's for overlapping pairs), and the pair sets agree except for
 *  pairs within that tolerance of max_distance (and, for a body pair, which of its part pairs
 *  is reported when two are within that tolerance of each other). The body-pair reduction is
 *  done per waypoint after every part pair of it is known, so it does not depend on threads.
 *
 * Temporal coherence. Within a block, and from one query of a named trajectory to the next, a
 *  pair that GJK proved farther than lower is skipped while lower minus a bound on how far its
 *  parts moved since still exceeds the reach (counters.pairs_bounded). The bound is exact
 *  geometry (translation plus rotation angle times part radius), so no pair within reach is
 *  ever skipped; the named trajectory's bounds are voided when the scene revision or the pose
 *  revision changed in between (obstacles or other robots may have moved). */
#ifndef GJK_WORLD_H
#define GJK_WORLD_H

#include "base.h"
#include "continuous.h"
#include "kinematics.h"
#include "query.h"
#include "shape.h"
#include "vecmath.h"

/* Success of a world call (the status table's "valid" value, as for gjk_shape_validate). */
#define GJK_WORLD_OK GJK_STATUS_SEPARATED

/* Limits, enforced on input. */
#define GJK_WORLD_NAME_MAX 255           /* bytes of a name, excluding the terminating NUL */
#define GJK_WORLD_MAX_LINKS 1024         /* links per robot */
#define GJK_WORLD_MAX_PARTS 4096         /* parts per link or obstacle */
#define GJK_WORLD_MAX_PAIRS 1000000      /* options.max_pairs upper limit */
#define GJK_WORLD_DEFAULT_MAX_PAIRS 1024 /* options.max_pairs = 0 */
#define GJK_WORLD_MAX_THREADS 64         /* options.threads upper limit */
#define GJK_WORLD_BLOCK_WAYPOINTS 8      /* warm-start chain length (see Determinism) */

/* ------------------------------------------------------------------ creation */

typedef struct gjk_world gjk_world;

/* World settings; take them from gjk_default_world_def(). */
typedef struct gjk_world_def {
    size_t trajectory_cache_bytes; /* cap on the named-trajectory cache; least recently used
                                      trajectories are evicted beyond it (default 64 MiB;
                                      0 disables the named cache) */
    int32_t max_trajectories;      /* cap on named trajectories kept (default 256) */
    int32_t max_robots;            /* caps on the scene (defaults 64, 100000, 1000000) */
    int32_t max_obstacles;
    int32_t max_parts; /* total parts in the world */
} gjk_world_def;

GJK_API gjk_world_def gjk_default_world_def(void);

/* Creates an empty world (revision 0). def may be NULL (defaults). *out is NULL on failure. */
GJK_API gjk_status gjk_world_create(const gjk_world_def *def, gjk_world **out);
/* Frees the world and everything it owns; sets *world to NULL. Safe on NULL and *world NULL.
 * Results of earlier queries stay valid (they own their memory). */
GJK_API void gjk_world_destroy(gjk_world **world);

/* ------------------------------------------------------------------ bodies */

typedef enum gjk_body_kind {
    GJK_BODY_NONE = 0,
    GJK_BODY_LINK = 1,     /* a link of a robot */
    GJK_BODY_OBSTACLE = 2, /* an obstacle */
} gjk_body_kind;

/* Names a body by ids. For allowed pairs and padding, a LINK with link = -1 stands for every
 * link of the robot. */
typedef struct gjk_body_id {
    gjk_body_kind kind;
    int32_t object; /* robot id (LINK) or obstacle id (OBSTACLE) */
    int32_t link;   /* link index within the robot (LINK); ignored for obstacles */
} gjk_body_id;

static inline gjk_body_id gjk_link_body(int32_t robot, int32_t link)
{
    gjk_body_id b = {GJK_BODY_LINK, robot, link};
    return b;
}
static inline gjk_body_id gjk_obstacle_body(int32_t obstacle)
{
    gjk_body_id b = {GJK_BODY_OBSTACLE, obstacle, -1};
    return b;
}

/* One convex part. */
typedef struct gjk_part_def {
    const char *name;   /* optional (NULL or ""); need not be unique */
    gjk_shape shape;    /* validated and copied; a polytope's vertices and adjacency are copied */
    gjk_transform pose; /* the part in its link's or obstacle's frame */
} gjk_part_def;

typedef struct gjk_link_def {
    const char *name;          /* unique within the robot, non-empty */
    const gjk_part_def *parts; /* part_count parts; a link may have none (never collides) */
    int32_t part_count;
    double padding; /* metres, >= 0 */
} gjk_link_def;

/* Two link names of one robot. */
typedef struct gjk_link_name_pair {
    const char *a;
    const char *b;
} gjk_link_name_pair;

typedef struct gjk_robot_def {
    const char *name;          /* unique among robots, non-empty */
    const gjk_link_def *links; /* link_count >= 1 links */
    int32_t link_count;
    bool self_collision;                      /* check this robot's link-link pairs */
    const gjk_link_name_pair *disabled_pairs; /* link-link pairs never checked (e.g. adjacent) */
    int32_t disabled_pair_count;
    const gjk_transform *link_poses; /* optional initial link poses (world), link_count of
                                        them; NULL = identity. Must be NULL with joints. */
    /* Kinematics (see Robots with joints below). joint_count 0: a link-pose robot. */
    const gjk_joint_def *joints;       /* joint_count joints over the links (link indices) */
    int32_t joint_count;               /* 0, or link_count - 1 (a tree) */
    const gjk_transform *base_pose;    /* with joints: the root link's world pose; NULL =
                                          identity */
    const double *initial_positions;   /* with joints: DOF values (DOF order); NULL = zero
                                          clamped into each DOF's limits */
    gjk_kinematics_error *joint_error; /* optional output: why the joints were refused
                                          (code GJK_KIN_OK when they were not) */
} gjk_robot_def;

typedef struct gjk_obstacle_def {
    const char *name;          /* unique among obstacles, non-empty */
    const gjk_part_def *parts; /* part_count >= 1 parts */
    int32_t part_count;
    gjk_transform pose; /* obstacle frame in the world */
    double padding;     /* metres, >= 0 */
} gjk_obstacle_def;

/* Adds a robot, or replaces the robot with the same name (keeping its id). A replace resets
 * the link poses (to def->link_poses or identity; a robot with joints to its initial
 * positions and base pose) and keeps the allowed pairs and per-pair paddings whose link names
 * still exist. *id (may be NULL) receives the robot id. A def with joints that the kinematics
 * builder refuses, or initial positions outside the limits, gives INVALID_INPUT and, with
 * def->joint_error, the reason and the joint. */
GJK_API gjk_status gjk_world_put_robot(gjk_world *world, const gjk_robot_def *def, int32_t *id);
/* Removes a robot and every allowed pair and per-pair padding that names it. */
GJK_API gjk_status gjk_world_remove_robot(gjk_world *world, int32_t robot);

/* Adds an obstacle, or replaces the obstacle with the same name (keeping its id, its allowed
 * pairs and per-pair paddings). */
GJK_API gjk_status gjk_world_put_obstacle(gjk_world *world, const gjk_obstacle_def *def,
                                          int32_t *id);
GJK_API gjk_status gjk_world_remove_obstacle(gjk_world *world, int32_t obstacle);
/* Moves an obstacle (its frame in the world). */
GJK_API gjk_status gjk_world_set_obstacle_pose(gjk_world *world, int32_t obstacle,
                                               gjk_transform pose);

/* Sets all link poses of a robot (world frame, link order of the def): count must equal the
 * robot's link count; every pose must be valid (finite, |q| = 1 within
 * GJK_QUAT_NORM_TOLERANCE; near-unit quaternions are normalised). A link-pose robot only: a
 * robot with joints takes gjk_world_set_joint_positions (INVALID_INPUT here). */
GJK_API gjk_status gjk_world_set_link_poses(gjk_world *world, int32_t robot,
                                            const gjk_transform *poses, int32_t count);

/* Robots with joints. A robot whose def has joints is driven by joint positions: the world
 * builds and owns its gjk_kinematics (gjk/kinematics.h: DOF order, limits, mimic) and its link
 * poses are always the forward kinematics of its current DOF values and base pose.
 * gjk_world_set_link_poses and link-pose trajectories are refused for it (INVALID_INPUT):
 * there is one source of its state. A link-pose robot (no joints) works as before and has no
 * DOF. Joint-position changes are state: they increment the pose revision. */

/* Sets DOF values of a robot with joints. dofs NULL: values is the full vector (count = the
 * robot's DOF count, DOF order). Otherwise dofs[i] (0..dof_count-1, each at most once) is the
 * DOF that values[i] sets and the other DOF keep their value (a JointState naming a subset;
 * map names with gjk_kinematics_map_dofs on gjk_world_robot_kinematics). base_pose (NULL =
 * keep) moves the root link. A value that is non-finite or outside its limits (within
 * GJK_KINEMATICS_LIMIT_TOLERANCE, see kinematics.h) is refused with INVALID_INPUT and
 * *bad_joint (may be NULL) = that joint's index in the def (gjk_kinematics_joint_info names
 * it); -1 for any other refusal (not a robot with joints, wrong count, a DOF index out of
 * range or repeated, an invalid base pose). NOT_FOUND for an unknown robot. */
GJK_API gjk_status gjk_world_set_joint_positions(gjk_world *world, int32_t robot,
                                                 const int32_t *dofs, const double *values,
                                                 int32_t count, const gjk_transform *base_pose,
                                                 int32_t *bad_joint);
/* The robot's kinematic model (owned by the world, valid until the robot is replaced or
 * removed); NULL for an unknown robot or a link-pose robot. */
GJK_API const gjk_kinematics *gjk_world_robot_kinematics(const gjk_world *world, int32_t robot);
/* Current DOF values: writes min(dof_count, capacity) values, returns dof_count (0 for a
 * link-pose robot, -1 for an unknown robot). *base_pose (may be NULL) = the base pose
 * (identity for a link-pose robot). */
GJK_API int32_t gjk_world_joint_positions(const gjk_world *world, int32_t robot, double *values,
                                          int32_t capacity, gjk_transform *base_pose);

/* Marks the pair (a, b) allowed (never checked) or checked again. a and b must exist; a LINK
 * with link = -1 means every link of the robot. Self pairs (two links of one robot) and
 * robot-robot pairs are accepted too. Setting an existing state again still succeeds. */
GJK_API gjk_status gjk_world_set_allowed(gjk_world *world, gjk_body_id a, gjk_body_id b,
                                         bool allowed);
/* Sets the padding of a body (metres, >= 0; a LINK with link = -1 sets every link). */
GJK_API gjk_status gjk_world_set_padding(gjk_world *world, gjk_body_id body, double padding);
/* Sets a per-pair padding that replaces padding(a) + padding(b) for that pair (metres, >= 0),
 * or clears it with padding = NAN. */
GJK_API gjk_status gjk_world_set_pair_padding(gjk_world *world, gjk_body_id a, gjk_body_id b,
                                              double padding);
/* Turns a robot's self-collision checking on or off. */
GJK_API gjk_status gjk_world_set_self_collision(gjk_world *world, int32_t robot, bool enabled);

/* ------------------------------------------------------------------ reading the scene */

GJK_API uint64_t gjk_world_revision(const gjk_world *world);
GJK_API uint64_t gjk_world_pose_revision(const gjk_world *world);

/* Name -> id. NOT_FOUND when there is no such name. */
GJK_API gjk_status gjk_world_find_robot(const gjk_world *world, const char *name, int32_t *robot);
GJK_API gjk_status gjk_world_find_link(const gjk_world *world, int32_t robot, const char *name,
                                       int32_t *link);
GJK_API gjk_status gjk_world_find_obstacle(const gjk_world *world, const char *name,
                                           int32_t *obstacle);

/* Ids in increasing order: writes min(total, capacity) ids and returns the total. */
GJK_API int32_t gjk_world_robot_ids(const gjk_world *world, int32_t *ids, int32_t capacity);
GJK_API int32_t gjk_world_obstacle_ids(const gjk_world *world, int32_t *ids, int32_t capacity);

/* Descriptions. Strings point into the world and stay valid until the next change. */
typedef struct gjk_robot_info {
    int32_t id;
    const char *name;
    int32_t link_count;
    int32_t part_count; /* over all links */
    bool self_collision;
    int32_t joint_count; /* 0 for a link-pose robot */
    int32_t dof_count;   /* 0 for a link-pose robot */
} gjk_robot_info;

typedef struct gjk_link_info {
    const char *name;
    int32_t part_count;
    double padding;
    gjk_transform pose; /* current link pose (world) */
} gjk_link_info;

typedef struct gjk_obstacle_info {
    int32_t id;
    const char *name;
    int32_t part_count;
    double padding;
    gjk_transform pose;
} gjk_obstacle_info;

GJK_API gjk_status gjk_world_robot_info(const gjk_world *world, int32_t robot,
                                        gjk_robot_info *info);
GJK_API gjk_status gjk_world_link_info(const gjk_world *world, int32_t robot, int32_t link,
                                       gjk_link_info *info);
GJK_API gjk_status gjk_world_obstacle_info(const gjk_world *world, int32_t obstacle,
                                           gjk_obstacle_info *info);

typedef struct gjk_world_info {
    uint64_t revision;
    uint64_t pose_revision;
    int32_t robot_count;
    int32_t obstacle_count;
    int32_t part_count;         /* all parts, links and obstacles */
    int32_t allowed_pair_count; /* explicit allowed pairs (not counting robot disabled pairs) */
    int32_t pair_padding_count; /* per-pair paddings */
    int32_t trajectory_count;   /* named trajectories cached */
    size_t trajectory_cache_bytes;
    uint64_t trajectory_cache_hits;   /* queries whose name was found in the cache */
    uint64_t trajectory_cache_misses; /* queries with a name that was not (or was stale) */
} gjk_world_info;

GJK_API void gjk_world_get_info(const gjk_world *world, gjk_world_info *info);

/* ------------------------------------------------------------------ queries */

typedef enum gjk_world_mode {
    GJK_WORLD_MODE_UNSPECIFIED = 0,     /* = GJK_WORLD_MODE_CLOSEST (the default) */
    GJK_WORLD_MODE_CLOSEST = 1,         /* report only the closest part pair (within
                                           max_distance) */
    GJK_WORLD_MODE_ALL_WITHIN = 2,      /* report every body pair within max_distance, once
                                           (see Reported pairs); per_part: every part pair */
    GJK_WORLD_MODE_FIRST_COLLISION = 3, /* validity fast path: stop at the first colliding
                                           pair (padded distance <= the touch tolerance);
                                           GJK stops as soon as it certifies "no collision",
                                           EPA never runs, max_distance is ignored, and a
                                           trajectory stops at its first colliding waypoint */
} gjk_world_mode;

/* Which pairs a query checks (bit set). */
#define GJK_WORLD_PAIRS_ROBOT_OBSTACLE 1u
#define GJK_WORLD_PAIRS_SELF 2u
#define GJK_WORLD_PAIRS_ROBOT_ROBOT 4u
#define GJK_WORLD_PAIRS_ALL 7u

/* A query's cancellation hook (gjk_world_query_options.cancel): called before each block of
 * GJK_WORLD_BLOCK_WAYPOINTS waypoints with `reported`, the entries the blocks done so far
 * report (pairs kept, after max_pairs); returning true stops the query, which then fails with
 * GJK_STATUS_OUT_OF_MEMORY (a capacity of the caller's was exceeded; the hook knows which).
 * A trajectory query on several threads calls it from each of them: it must be thread-safe. */
typedef bool (*gjk_world_cancel_fn)(void *user, int64_t reported);

/* Query options. The zero value of every field is its default (see Defaults above): zero the
 * struct (or pass NULL) and set only what differs. */
typedef struct gjk_world_query_options {
    bool has_max_distance;     /* false (default): no distance cutoff */
    double max_distance;       /* with has_max_distance: metres; pairs with (padded) signed
                                  distance > max_distance are not reported and GJK stops early
                                  on them (cutoff query). Not NaN nor -INFINITY; INFINITY = no
                                  cutoff; below 0 only overlapping pairs deeper than that.
                                  Ignored without has_max_distance. */
    gjk_world_mode mode;       /* 0 = GJK_WORLD_MODE_CLOSEST */
    uint32_t pairs;            /* GJK_WORLD_PAIRS_* bits; 0 = GJK_WORLD_PAIRS_ALL */
    bool no_penetration_depth; /* false (default): on overlap EPA runs: depth as negative
                                  distance, deepest points, normal. true: overlapping pairs
                                  report status OVERLAPPING with distance = -padding (depth
                                  unknown) and a normal only where GJK knows one (zero when
                                  the cores overlap). */
    bool per_part;             /* ALL_WITHIN mode: false (default) = one entry per body pair,
                                  true = one entry per part pair (see Reported pairs) */
    int32_t robot;             /* state query: only pairs with a link of this robot (0 = all
                                  robots) */
    int32_t max_pairs;         /* cap on entries reported per waypoint, 1..GJK_WORLD_MAX_PAIRS
                                  (0 = GJK_WORLD_DEFAULT_MAX_PAIRS); the nearest are kept. A
                                  result holds at most waypoint_count * max_pairs entries. */
    int32_t threads;           /* trajectory query: threads used including the caller's, 0 or
                                  1 = the calling thread only, at most GJK_WORLD_MAX_THREADS;
                                  more than the number of blocks is pointless. Threads are
                                  created per query. */
    gjk_options gjk;           /* narrow-phase options (zeroed = defaults) */
    bool gradients;            /* false (default): none. true: every reported pair carries
                                  d(distance)/dq for the robots with joints it involves (see
                                  Gradients below) */

    /* Continuous segments (trajectory query; see Continuous segments below). */
    bool continuous;             /* false (default): waypoints only. true: also every
                                    segment between consecutive waypoints */
    double ccd_time_tolerance;   /* width of a contact time's bracket, fraction of the
                                    segment, in (0, 0.5] (0 = 1e-6) */
    int32_t ccd_max_evaluations; /* distance queries per part pair and segment before it
                                    is undecided, >= 0 (0 = GJK_CCD_DEFAULT_MAX_EVALUATIONS) */

    /* Cancellation: NULL (default) = never cancelled; see gjk_world_cancel_fn. */
    gjk_world_cancel_fn cancel;
    void *cancel_user; /* passed to cancel */
} gjk_world_query_options;

/* A zeroed gjk_world_query_options: the defaults. */
GJK_API gjk_world_query_options gjk_world_default_query_options(void);

/* One side of a reported pair. Strings are owned by the result. */
typedef struct gjk_world_side {
    gjk_body_id body;
    int32_t part;            /* part index within the link or obstacle */
    const char *object_name; /* robot name (LINK) or obstacle name */
    const char *body_name;   /* link name (LINK) or obstacle name */
    const char *part_name;   /* "" when the part has no name */
    gjk_vec3 point;          /* witness point, world frame, on the padded surface */
    gjk_vec3 local_point;    /* the same point in the body's frame (link or obstacle frame):
                                where an optimizer takes its Jacobian */
} gjk_world_side;

typedef struct gjk_world_pair {
    gjk_world_side a;   /* always a robot link */
    gjk_world_side b;   /* an obstacle, or a link (self and robot-robot pairs) */
    double distance;    /* signed distance, padding subtracted, metres */
    gjk_vec3 normal;    /* unit, world frame, from A towards B; zero when unknown */
    double padding;     /* padding applied to this pair, metres */
    gjk_status status;  /* SEPARATED, TOUCHING, OVERLAPPING (after padding),
                           ITERATION_LIMIT or CAPACITY_LIMIT */
    int32_t iterations; /* GJK iterations */
    int32_t epa_iterations;
    int32_t part_pair_count; /* part pairs this entry stands for: in ALL_WITHIN mode the part
                                pairs of this body pair within max_distance (>= 1; the entry
                                is the nearest of them); 1 with per_part and in the other
                                modes */
    /* options.gradients (see Gradients): d(distance)/dq, pointing into the result's gradient
     * block (gjk_world_result.gradients); NULL with count 0 when there is none. */
    const double *gradient_a; /* over the DOF of A's robot (self pairs: both chains) */
    int32_t gradient_a_count; /* A's robot's DOF count, or 0 */
    const double *gradient_b; /* over the DOF of B's robot: robot-robot pairs only */
    int32_t gradient_b_count; /* B's robot's DOF count, or 0 */
    bool subgradient;         /* the witness points are not unique: the gradient is one valid
                                 subgradient (see Gradients) */
} gjk_world_pair;

/* Gradients. With options.gradients every reported pair carries the derivative of its signed
 *  distance with respect to the DOF of the robots with joints it involves,
 *      d(distance)/dq = n . (J_B(w_B) - J_A(w_A)),
 *  n the pair's normal and w_A, w_B its witness points (gjk_kinematics_accumulate_gradient).
 *  gradient_a is over A's robot's DOF: -n . J_A(w_A), plus n . J_B(w_B) in a self pair (both
 *  links belong to that robot); gradient_b, over B's robot's DOF, is n . J_B(w_B) when B is a
 *  link of another robot with joints. Obstacles and link-pose robots contribute nothing (count
 *  0). It has the sign of the signed distance: positive entries move the pair apart, for
 *  separated pairs (GJK's witnesses) and for overlapping ones (EPA's normal and deepest
 *  points: distance = -depth). Padding changes nothing (it moves witnesses along n). Where
 *  distance is not differentiable the value is still n . (J_B(w_B) - J_A(w_A)) at the reported
 *  witnesses (a subgradient) and the pair is flagged:
 *      subgradient = the supporting features of A (towards +n) and of B (towards -n) at the
 *      witnesses, both within GJK_WORLD_FEATURE_TOLERANCE metres of their supporting planes,
 *      are both of dimension >= 1, and are not two non-parallel segments;
 *  i.e. the set of witness pairs may hold more than one point (edge-edge parallel, edge-face,
 *  face-face), so that the distance's derivative depends on which one moves first. Vertex
 *  features, curved surfaces (spheres, rounded margins do not count: a box with a margin keeps
 *  its flat faces) and crossing edges give a unique witness and a true gradient. Pairs with
 *  an unknown normal (no_penetration_depth on an overlap) get a zero gradient, flagged.
 *  In a result the gradients of every pair lie in one block, in pair order (waypoint-major),
 *  gradient_a then gradient_b of each pair: gjk_world_result.gradients, gradient_count values.
 *  Cost: O(chain length) per side and pair, and for the flag a polytope's supporting face is
 *  found from GJK's last support vertex by ascent over the vertex adjacency (a scan of the
 *  vertices without adjacency); no allocation per pair. Trajectories: the same, at each
 *  waypoint's joint positions. */
#define GJK_WORLD_FEATURE_TOLERANCE 1e-9

/* Work counters of one waypoint. */
typedef struct gjk_world_counters {
    int32_t pairs_possible;  /* part pairs of the checked kinds, before allowed pairs and the
                                broad phase (robot-obstacle: link parts x obstacle parts) */
    int32_t pairs_candidate; /* part pairs whose bounding boxes are within reach */
    int32_t pairs_narrow;    /* narrow-phase (GJK) queries run: candidates that are not
                                allowed and pass the pair's own padded box test */
    int32_t warm_starts;     /* of which warm-started (previous waypoint or named cache) */
    int64_t gjk_iterations;  /* summed */
    int32_t pairs_bounded;   /* candidates skipped without GJK: a lower bound certified at an
                                earlier waypoint of the block, minus a bound on the motion
                                since, already exceeds the reach (trajectories only) */
} gjk_world_counters;

typedef struct gjk_world_waypoint {
    bool evaluated;              /* false for waypoints after the first collision in
                                    FIRST_COLLISION mode (everything else zero) */
    bool collision;              /* some reported-or-qualifying pair collides: status TOUCHING
                                    or OVERLAPPING, or distance <= 0 (within max_distance) */
    bool truncated;              /* more entries qualified than max_pairs (body pairs, or
                                    part pairs with per_part) */
    double min_distance;         /* minimum signed distance over the pairs within max_distance
                                    (also those cut by max_pairs), INFINITY when there are none.
                                    FIRST_COLLISION mode: the reported pair's distance (-padding
                                    when the cores overlap: depth unknown), INFINITY when
                                    collision-free */
    const gjk_world_pair *pairs; /* sorted by distance (then ids and part indices): pairs[0]
                                    is the closest */
    int32_t pair_count;
    gjk_world_counters counters;
} gjk_world_waypoint;

/* Continuous segments. With options.continuous a trajectory query also checks segment i,
 *  from waypoint i to waypoint i + 1 (i < waypoint_count - 1), over its whole motion
 *  (gjk/continuous.h: joint-space interpolation for a robot with joints, lerp + slerp of each
 *  link pose for a link-pose robot), for the same pairs as the waypoints (options.pairs,
 *  allowed pairs, padding; other robots and obstacles stay where they are). Per segment:
 *  - CONTACT: some part pair is in contact in [t, t + ccd_time_tolerance] and no part pair
 *    searched is in contact before t (t in [0, 1] of the segment; 0 when waypoint i already
 *    collides); `pair` is the earliest contact pair at t (witnesses, normal: GJK's, or EPA's on
 *    overlap). If another pair was undecided earlier, pairs_undecided says so: the contact is
 *    certain, its being the first is not.
 *  - UNDECIDED: no contact was found, and some part pair ran out of its budget
 *    (ccd_max_evaluations) before its search settled; t is where the earliest such pair's
 *    certificate stops, `pair` that pair at t. Never reported as clear.
 *  - CLEAR: no contact anywhere on the segment, certified, with clearance_lower_bound a
 *    certified lower bound on the least padded distance over the segment of every pair checked
 *    (with max_distance: min(that, max_distance)); `pair` the pair with the least bound at the
 *    time of its closest approach found (t), has_pair false when no pair is within reach.
 * Work: each moving part gets a motion bound V (gjk/continuous.h) and a swept box (its boxes
 * at both ends grown by V / 2: at time t every point is within V min(t, 1 - t) of its place at
 * one end). Part pairs are visited by branch and bound: a pair whose swept boxes are farther
 * apart (padded) than the least bound found so far in the segment (0 once a contact is found;
 * max_distance at first, when set) is settled without any distance query; the obstacles come
 * from the broad-phase tree queried with that shrinking reach. The others are searched by
 * gjk_ccd_check with a floor at that least bound. Segments are independent and spread over
 * options.threads; the result does not depend on the thread count. In FIRST_COLLISION mode
 * the segments after the first CONTACT segment are not evaluated (evaluated false, everything
 * else zero), and the pair searches only certify (gjk_ccd_options.certify_only): a clear
 * segment's bound is still certified, but may be far below the true clearance. */
typedef struct gjk_world_segment {
    bool evaluated; /* false for segments after the first contact in FIRST_COLLISION mode */
    gjk_ccd_verdict verdict;
    double t;                     /* see above: fraction of the segment */
    double clearance_lower_bound; /* CLEAR only (INFINITY when no pair is within reach and
                                     there is no max_distance); NaN otherwise */
    bool has_pair;
    gjk_world_pair pair;     /* the segment's pair at t (no gradients) */
    int32_t pairs_checked;   /* part pairs searched (the others were settled by their bounds) */
    int32_t pairs_undecided; /* part pairs whose search ran out of budget */
    int64_t evaluations;     /* distance queries run on the segment */
} gjk_world_segment;

typedef struct gjk_world_result {
    uint64_t revision; /* scene revision the query ran on */
    uint64_t pose_revision;
    int32_t waypoint_count; /* 1 for a state query */
    const gjk_world_waypoint *waypoints;
    double min_distance;     /* minimum over the evaluated waypoints (INFINITY if none) */
    int32_t min_waypoint;    /* where it occurs (first such), -1 if none */
    int32_t first_collision; /* first waypoint with collision, -1 if none */
    int32_t segment_count;   /* options.continuous: waypoint_count - 1; else 0 */
    const gjk_world_segment *segments;
    int32_t first_contact_segment; /* first CONTACT segment, -1 if none (or not continuous) */
    int32_t segments_undecided;    /* UNDECIDED segments */
    bool trajectory_cache_hit;     /* the named cache held this trajectory (warm start used) */
    const double *gradients;       /* options.gradients: every pair's gradient_a and gradient_b,
                                      in pair order (NULL when there are none) */
    int64_t gradient_count;
} gjk_world_result;

/* Frees a result; sets *result to NULL; safe on NULL. */
GJK_API void gjk_world_result_destroy(gjk_world_result **result);

/* State query at the current link poses of every robot (or options->robot). options may be
 * NULL (defaults). On success *out is a new result (one waypoint) to free with
 * gjk_world_result_destroy; on failure *out is NULL. */
GJK_API gjk_status gjk_world_query_state(const gjk_world *world,
                                         const gjk_world_query_options *options,
                                         gjk_world_result **out);

/* A discretised trajectory of one robot. Other robots stay at their current link poses.
 * Zero-initialise it, then fill the fields (fields added later will default to zero). */
typedef struct gjk_world_trajectory {
    int32_t robot;                   /* robot id */
    int32_t waypoint_count;          /* >= 1 */
    int32_t link_count;              /* must equal the robot's link count (link poses) */
    const gjk_transform *link_poses; /* waypoint_count * link_count world poses, waypoint-major:
                                        link l at waypoint w is link_poses[w * link_count + l].
                                        A link-pose robot only. */
    /* A robot with joints gives joint vectors instead of link poses (link_poses NULL): */
    int32_t dof_count;             /* must equal the robot's DOF count */
    const double *joint_positions; /* waypoint_count * dof_count DOF values, waypoint-major
                                      (DOF order); every waypoint at the robot's current base
                                      pose. Link poses follow by forward kinematics per
                                      waypoint inside the query (no allocation per waypoint):
                                      the answer is bit for bit the one for the link poses
                                      that gjk_kinematics_forward gives. Out-of-limit values
                                      are refused (INVALID_INPUT) with bad_waypoint and
                                      bad_joint set. */
    int32_t *bad_waypoint;         /* optional outputs on such a refusal (else -1): the */
    int32_t *bad_joint;            /* first waypoint and its joint (def index) refused */
    const char *name;              /* NULL or "": no named cache. Otherwise each
                                      (pair, waypoint) warm-starts from the same waypoint of
                                      the previous query with this name, and this query's
                                      caches replace that entry. */
} gjk_world_trajectory;

/* Trajectory query: the state query at every waypoint (pairs involving the trajectory's robot:
 * robot-obstacle, its self pairs, and its links against other robots' current links), with a
 * summary. Same options (options->robot is ignored). */
GJK_API gjk_status gjk_world_query_trajectory(const gjk_world *world,
                                              const gjk_world_trajectory *trajectory,
                                              const gjk_world_query_options *options,
                                              gjk_world_result **out);

/* Drops one named trajectory from the cache (NOT_FOUND if absent), or all with name NULL.
 * Safe concurrently with queries. */
GJK_API gjk_status gjk_world_forget_trajectory(const gjk_world *world, const char *name);

#endif /* GJK_WORLD_H */
