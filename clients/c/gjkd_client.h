/* gjkd_client.h — C client library for gjkd (libgjkd-client).
 *
 * One client = one ZeroMQ DEALER socket to the daemon's ROUTER, used from one thread at a
 * time (like a ZeroMQ socket; make one client per thread). Every call sends one Request and
 * waits for the Response with the same request_id:
 *   - each attempt waits at most options.timeout_ms, and the request says so (deadline_ms,
 *     unless the caller set one): the daemon does not start it, or stops a query, after that;
 *   - on a timeout the socket is closed (linger 0) and reopened, and the request is sent again
 *     with the same request_id, at most options.retries more times (the "Lazy Pirate"
 *     pattern), then the call fails with GJKD_TIMEOUT. Replies to earlier calls are discarded.
 *   - a daemon that refuses the client in the handshake (CURVE key not on its allow-list, CURVE
 *     on one side only, a wrong server key) sends no reply; the socket monitor sees it and the
 *     call fails at once with GJKD_UNAUTHENTICATED and a message that says which, no retry.
 *   A scene change (put, remove, set_allowed_pairs, load_scene) carries a change token, 16
 *   random bytes per call (Request.change_token; one the caller set is kept), the same on every
 *   retry: the daemon runs it once and answers a retry with the first attempt's reply, so a
 *   change whose reply was lost is reported as done, not done twice (or NOT_FOUND for a remove).
 *
 * Status: every call returns a gjkd_status. GJKD_OK (the wire's OK, 16) is success. Wire codes
 * (gjkd.proto StatusCode) keep their numbers; client-side failures are 100 and up. The message
 * of the last failure is gjkd_client_error(); gjkd_status_name() gives "NOT_FOUND" etc.
 *
 * Results are plain C structs owned by the caller and released with the matching destroy
 * function, which takes T ** and sets it to NULL (safe on NULL). Strings in a result live as
 * long as the result. Units: metres, radians; quaternions (w, x, y, z); world frame unless
 * a field says otherwise; normals are unit vectors from body A (always a robot link) towards
 * body B, and point_b - point_a = distance * normal. */
#ifndef GJKD_CLIENT_H
#define GJKD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gjkd/v1/gjkd.pb-c.h"

/* The functions of this header are the exported API of the shared libgjkd-client (it is
 * compiled with hidden visibility), beside the generated gjkd__v1__* message functions. */
#if defined(_WIN32)
#define GJKD_CLIENT_API
#else
#define GJKD_CLIENT_API __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------ status */

/* X(NAME, value). Values below 100 are the wire's StatusCode (gjkd.proto) unchanged. */
#define GJKD_STATUS_TABLE(X)                                                                       \
    X(UNSPECIFIED, 0)                                                                              \
    X(SEPARATED, 1)                                                                                \
    X(TOUCHING, 2)                                                                                 \
    X(OVERLAPPING, 3)                                                                              \
    X(BEYOND_CUTOFF, 4)                                                                            \
    X(ITERATION_LIMIT, 5)                                                                          \
    X(CAPACITY_LIMIT, 6)                                                                           \
    X(INVALID_INPUT, 7)                                                                            \
    X(NOT_FOUND, 8)                                                                                \
    X(OUT_OF_MEMORY, 9)                                                                            \
    X(OK, 16)                                                                                      \
    X(INVALID_ARGUMENT, 17)                                                                        \
    X(FAILED_PRECONDITION, 18)                                                                     \
    X(RESOURCE_EXHAUSTED, 19)                                                                      \
    X(MALFORMED, 20)                                                                               \
    X(UNAUTHENTICATED, 21)                                                                         \
    X(INTERNAL, 22)                                                                                \
    X(STORAGE_FAILED, 23)                                                                          \
    X(UNIMPLEMENTED, 24)                                                                           \
    X(UNAVAILABLE, 25)                                                                             \
    X(DEADLINE_EXCEEDED, 26)                                                                       \
    X(TIMEOUT, 100)      /* no reply within timeout_ms after every retry */                        \
    X(TRANSPORT, 101)    /* ZeroMQ failed (bad endpoint, context terminated, ...) */               \
    X(BAD_REPLY, 102)    /* the reply was not a valid Response, or had the wrong body */           \
    X(CLIENT_ERROR, 103) /* bad arguments to this library, or out of memory in the client */

typedef enum gjkd_status {
#define GJKD_X_ENUM(name, value) GJKD_##name = value,
    GJKD_STATUS_TABLE(GJKD_X_ENUM)
#undef GJKD_X_ENUM
} gjkd_status;

/* "OK", "NOT_FOUND", "TIMEOUT", ...; "UNKNOWN" outside the table. */
GJKD_CLIENT_API const char *gjkd_status_name(int status);

/* ------------------------------------------------------------------ values */

typedef struct gjkd_vec3 {
    double x, y, z;
} gjkd_vec3;

/* Rotation quaternion, order (w, x, y, z), unit norm. */
typedef struct gjkd_quat {
    double w, x, y, z;
} gjkd_quat;

/* world = rotate(q, local) + p; metres. */
typedef struct gjkd_pose {
    gjkd_quat q;
    gjkd_vec3 p;
} gjkd_pose;

/* ------------------------------------------------------------------ the client */

typedef struct gjkd_client gjkd_client;

typedef struct gjkd_client_options {
    const char *endpoint; /* daemon ROUTER endpoint; default "tcp://127.0.0.1:7471" */
    int timeout_ms;       /* per attempt, > 0; default 5000 */
    int retries;          /* further attempts after a timeout, >= 0; default 2 */
    void *zmq_context;    /* optional shared ZeroMQ context (not owned); NULL: the client
                             creates and owns one */
    /* CURVE (gjkd --curve-secret-key/--curve-allow): both NULL = plain. Z85 text, 40
     * characters: the daemon's public key, and this client's secret key (its public key,
     * derived, must be on the daemon's allow-list). A daemon that refuses the key gives no
     * reply: the call ends with GJKD_TIMEOUT. */
    const char *curve_server_key;
    const char *curve_secret_key;
} gjkd_client_options;

GJKD_CLIENT_API gjkd_client_options gjkd_client_default_options(void);

/* Reads a CURVE key file (gjkctl keygen: NAME.pub, NAME.key; Z85 text, 40 characters; blank
 * and '#' lines skipped) into z85 (41 bytes with the NUL). secret: the file must not be
 * accessible by group or others (0600). False with a message in err. */
GJKD_CLIENT_API bool gjkd_client_read_key_file(const char *path, bool secret, char z85[41],
                                               char *err, size_t err_size);

/* Creates a client and connects (ZeroMQ connects lazily: a daemon that is not there yet shows
 * up as GJKD_TIMEOUT on the first call). options may be NULL (defaults). *out NULL on failure.
 * Returns GJKD_OK, GJKD_CLIENT_ERROR (bad options) or GJKD_TRANSPORT. */
GJKD_CLIENT_API gjkd_status gjkd_client_create(const gjkd_client_options *options,
                                               gjkd_client **out);
/* Closes the socket (linger 0) and frees the client; sets *client to NULL. */
GJKD_CLIENT_API void gjkd_client_destroy(gjkd_client **client);

/* One line describing the last failed call ("NOT_FOUND: robot \"x\" ..."); "" after success. */
GJKD_CLIENT_API const char *gjkd_client_error(const gjkd_client *client);
/* The scene revision reported by the last reply (0 before any). */
GJKD_CLIENT_API uint64_t gjkd_client_revision(const gjkd_client *client);
/* Makes the next call (only) carry expected_revision: the daemon refuses it with
 * GJKD_FAILED_PRECONDITION unless the scene is at that revision. */
GJKD_CLIENT_API void gjkd_client_expect_revision(gjkd_client *client, uint64_t revision);

/* The raw call: sends *request (request_id and the expected revision are set by the client)
 * and returns the reply in *response (free with gjkd__v1__response__free_unpacked(r, NULL)),
 * whatever its status. Returns the reply's status code, or a client-side code with *response
 * NULL. For requests the typed calls below do not cover. */
GJKD_CLIENT_API gjkd_status gjkd_client_call(gjkd_client *client, Gjkd__V1__Request *request,
                                             Gjkd__V1__Response **response);

/* ------------------------------------------------------------------ health, stats, scene */

typedef struct gjkd_health {
    bool serving;        /* false while the daemon drains for shutdown */
    const char *version; /* "MAJOR.MINOR.PATCH" */
    double uptime_seconds;
    uint64_t revision; /* scene revision */
    bool persistent;   /* a state directory is in use */
} gjkd_health;

GJKD_CLIENT_API gjkd_status gjkd_health_get(gjkd_client *client, gjkd_health **out);
GJKD_CLIENT_API void gjkd_health_destroy(gjkd_health **health);

typedef struct gjkd_command_stats {
    const char *name; /* "state_query", ... */
    uint64_t calls;
    uint64_t errors; /* replies whose status was not OK */
    double total_seconds;
    double max_seconds;
} gjkd_command_stats;

typedef struct gjkd_code_count {
    int code; /* a status code (gjkd_status_name) */
    uint64_t count;
} gjkd_code_count;

typedef struct gjkd_daemon_limits {
    uint64_t max_message_bytes;
    uint32_t max_points_per_part, max_parts_per_body, max_links_per_robot, max_robots,
        max_obstacles, max_waypoints, max_pairs_returned, max_name_length, max_queued;
} gjkd_daemon_limits;

typedef struct gjkd_stats {
    double uptime_seconds;
    uint64_t revision;
    uint64_t pose_revision;
    uint64_t requests; /* received in total, malformed included */
    uint32_t in_flight;
    uint32_t queued; /* requests waiting for a busy worker */
    uint32_t threads;
    uint32_t robots, obstacles, parts;
    uint64_t pose_updates, monitor_events;
    uint32_t trajectories_cached;
    uint64_t trajectory_cache_hits, trajectory_cache_misses;
    gjkd_daemon_limits limits;
    gjkd_command_stats *commands;
    size_t command_count;
    gjkd_code_count *errors; /* replies per non-OK code */
    size_t error_count;
    uint64_t auth_refused; /* handshakes refused by CURVE authentication */
} gjkd_stats;

GJKD_CLIENT_API gjkd_status gjkd_stats_get(gjkd_client *client, gjkd_stats **out);
GJKD_CLIENT_API void gjkd_stats_destroy(gjkd_stats **stats);

typedef struct gjkd_robot_summary {
    const char *name;
    uint32_t id;
    const char *const *links; /* link names, in link-pose order */
    size_t link_count;
    uint32_t parts;
    bool self_collision;
    const char *const *joint_names; /* a robot with joints: its DOF in order (else none) */
    const double *positions;        /* their current values */
    size_t joint_count;
} gjkd_robot_summary;

typedef struct gjkd_obstacle_summary {
    const char *name;
    uint32_t id;
    uint32_t parts;
    gjkd_pose pose;
} gjkd_obstacle_summary;

typedef struct gjkd_scene_summary {
    uint64_t revision;
    gjkd_robot_summary *robots;
    size_t robot_count;
    gjkd_obstacle_summary *obstacles;
    size_t obstacle_count;
    uint32_t allowed_pairs;
} gjkd_scene_summary;

GJKD_CLIENT_API gjkd_status gjkd_scene_summary_get(gjkd_client *client, gjkd_scene_summary **out);
GJKD_CLIENT_API void gjkd_scene_summary_destroy(gjkd_scene_summary **summary);

/* ------------------------------------------------------------------ scene changes */

typedef struct gjkd_change {
    uint64_t revision;      /* the scene revision after the change */
    uint32_t id;            /* id of the robot/obstacle put (0 for removals) */
    bool replaced;          /* put: a body of that name existed and was replaced */
    uint32_t hull_vertices; /* put: polytope vertices kept after hulling */
} gjkd_change;

/* Scene descriptions are the wire messages themselves (build them by hand or with gjkd_json).
 * `out` may be NULL. */
GJKD_CLIENT_API gjkd_status gjkd_put_robot(gjkd_client *client, const Gjkd__V1__Robot *robot,
                                           gjkd_change *out);
GJKD_CLIENT_API gjkd_status gjkd_remove_robot(gjkd_client *client, const char *name,
                                              gjkd_change *out);
GJKD_CLIENT_API gjkd_status gjkd_put_obstacle(gjkd_client *client,
                                              const Gjkd__V1__Obstacle *obstacle, gjkd_change *out);
GJKD_CLIENT_API gjkd_status gjkd_remove_obstacle(gjkd_client *client, const char *name,
                                                 gjkd_change *out);
/* Replaces the scene's whole list of allowed pairs. */
GJKD_CLIENT_API gjkd_status gjkd_set_allowed_pairs(gjkd_client *client,
                                                   Gjkd__V1__AllowedPair *const *pairs,
                                                   size_t count, gjkd_change *out);
/* Loads a whole scene document as one change (LoadSceneRequest): the daemon's scene becomes
 * exactly `scene` (robots and obstacles it does not name are removed, its allowed pairs
 * replace the list, none if it has none), or, on any failure, nothing changes (in memory or
 * on disk) and the message names the element that failed (`obstacles[3] "shelf": ...`,
 * `allowed_pairs[0].b: no obstacle named 'x'`). One revision step (scene->revision is
 * ignored); gjkd_client_expect_revision applies; safe to retry. *out (may be NULL): the new
 * revision, replaced = some body replaced one of the same name (its id is kept), hull_vertices
 * over the document's bodies. */
GJKD_CLIENT_API gjkd_status gjkd_load_scene(gjkd_client *client, const Gjkd__V1__Scene *scene,
                                            gjkd_change *out);
/* The same, merged: the document's robots and obstacles add to the scene or replace those of
 * the same name, the others stay (link poses too); its allowed pairs replace the list only if
 * it has any. */
GJKD_CLIENT_API gjkd_status gjkd_merge_scene(gjkd_client *client, const Gjkd__V1__Scene *scene,
                                             gjkd_change *out);

/* ------------------------------------------------------------------ state and queries */

/* Link poses of one robot (one per link, in its link order, world frame). Transient state:
 * not persisted, the scene revision does not move. */
GJKD_CLIENT_API gjkd_status gjkd_set_link_poses(gjkd_client *client, const char *robot,
                                                const gjkd_pose *poses, size_t count);
/* Joint positions of a robot with joints (its link poses follow by forward kinematics), as a
 * JointState gives them: names[i] with positions[i], any order, a subset (the others keep
 * their values); or names NULL and positions the full vector in the robot's DOF order (the
 * scene summary's joint_names). base (NULL = keep) moves the robot's base. Names of mimic or
 * fixed joints and out-of-limit values are refused with a message naming the joint. */
GJKD_CLIENT_API gjkd_status gjkd_set_joint_positions(gjkd_client *client, const char *robot,
                                                     const char *const *names,
                                                     const double *positions, size_t count,
                                                     const gjkd_pose *base);
/* Several robots at once, atomically (e.g. from gjkd_json_parse_poses). */
GJKD_CLIENT_API gjkd_status
gjkd_set_link_poses_request(gjkd_client *client, const Gjkd__V1__SetLinkPosesRequest *request);

typedef enum gjkd_query_mode {
    GJKD_QUERY_CLOSEST = 1,         /* the closest part pair only */
    GJKD_QUERY_ALL_WITHIN = 2,      /* every body pair within max_distance once (per_part:
                                       every part pair), and the closest */
    GJKD_QUERY_FIRST_COLLISION = 3, /* stop at the first colliding pair */
} gjkd_query_mode;

enum {
    GJKD_PAIRS_ROBOT_OBSTACLE = 1,
    GJKD_PAIRS_SELF = 2,
    GJKD_PAIRS_ROBOT_ROBOT = 4,
};

/* Query options: zero every field for the defaults (gjkd.proto QueryOptions and
 * gjk/world.h, Defaults: the zero of each field is its default); NULL options are the same. */
typedef struct gjkd_query_options {
    bool has_max_distance;     /* false: no cutoff */
    double max_distance;       /* metres, >= 0; pairs farther are not reported */
    gjkd_query_mode mode;      /* 0 = CLOSEST */
    uint32_t pair_kinds;       /* OR of GJKD_PAIRS_*; 0 = all */
    bool no_penetration_depth; /* on overlap skip EPA: distance = -padding, normal zero */
    uint32_t max_pairs;        /* entries per state/waypoint; 0 = the daemon's limit */
    const char *robot;         /* state query: only pairs with a link of this robot; NULL = all */
    bool per_part;             /* ALL_WITHIN: one entry per part pair, not per body pair */
    bool gradients;            /* every pair carries d(distance)/dq for the robots with joints
                                  it involves (gjkd_pair.gradient_*, in the DOF order of the
                                  result's joint_names) */
    /* Trajectory queries: also check every segment between consecutive waypoints over its
     * whole motion (gjkd_trajectory.segments; gjkd.proto TrajectoryQueryRequest.continuous). */
    bool continuous;
    double continuous_time_tolerance;    /* fraction of a segment, (0, 0.5]; 0 = 1e-6 */
    uint32_t continuous_max_evaluations; /* per part pair and segment; 0 = the default */
} gjkd_query_options;

/* A reported pair. Body A is a robot link; body B a link (robot_b set) or an obstacle. In
 * ALL_WITHIN mode (without per_part) an entry is a body pair, given as the nearest of its
 * part pairs (parts, distance, witnesses, normal, status, iterations are that part pair's),
 * part_pair_count how many of its part pairs are within max_distance; otherwise 1. */
typedef struct gjkd_pair {
    const char *robot_a, *link_a, *part_a;
    const char *robot_b, *link_b; /* "" when B is an obstacle */
    const char *obstacle_b;       /* "" when B is a link */
    const char *part_b;
    uint32_t body_a_id, part_a_index, body_b_id, part_b_index;
    double distance;         /* signed, metres, paddings included */
    gjkd_vec3 point_a;       /* witness on A, world frame */
    gjkd_vec3 point_b;       /* witness on B, world frame */
    gjkd_vec3 local_point_a; /* witness on A in A's link frame */
    gjkd_vec3 local_point_b; /* witness on B in B's body frame */
    gjkd_vec3 normal;        /* unit, A towards B; zero when unknown */
    int status;              /* pair status 1-7 (gjkd_status_name) */
    int32_t iterations, epa_iterations;
    double padding;           /* applied to this pair (already in distance) */
    uint32_t part_pair_count; /* part pairs this entry stands for (>= 1) */
    /* options.gradients: d(distance)/dq = n . (J_B(w_B) - J_A(w_A)) over the DOF of A's robot
     * (self pairs: both chains) and, for a link of another robot with joints as B, over B's
     * robot; counts 0 otherwise. subgradient: the witnesses are not unique (parallel faces,
     * edge on face): one valid subgradient. */
    const double *gradient_a;
    size_t gradient_a_count;
    const double *gradient_b;
    size_t gradient_b_count;
    bool subgradient;
} gjkd_pair;

/* The DOF order of a robot that gradients refer to. */
typedef struct gjkd_robot_joints {
    const char *robot;
    const char *const *names;
    size_t count;
} gjkd_robot_joints;

typedef struct gjkd_state {
    bool evaluated;           /* false for trajectory waypoints skipped after a first collision */
    bool has_min_distance;    /* some pair was within max_distance */
    double min_distance;      /* metres */
    const gjkd_pair *closest; /* NULL if no pair is within max_distance */
    const gjkd_pair *pairs;   /* ALL_WITHIN: every body pair (per_part: part pair) within
                                 max_distance, closest first */
    size_t pair_count;
    bool colliding; /* some pair has distance <= 0 */
    bool truncated; /* more entries qualified than max_pairs */
    uint32_t pairs_checked, pairs_candidate;
    uint64_t revision;                    /* scene revision the query saw */
    const gjkd_robot_joints *joint_names; /* state query with gradients: every robot with
                                             joints and its DOF order */
    size_t joint_names_count;
} gjkd_state;

GJKD_CLIENT_API gjkd_status gjkd_query_state(gjkd_client *client, const gjkd_query_options *options,
                                             gjkd_state **out);
GJKD_CLIENT_API void gjkd_state_destroy(gjkd_state **state);

/* Verdicts of a continuous segment (gjkd.proto SegmentVerdict). */
typedef enum gjkd_segment_verdict {
    GJKD_SEGMENT_CLEAR = 1,     /* certified: no contact anywhere on the segment */
    GJKD_SEGMENT_CONTACT = 2,   /* contact in [t, t + tolerance], none before t */
    GJKD_SEGMENT_UNDECIDED = 3, /* a pair's budget ran out: certified only before t */
} gjkd_segment_verdict;

/* "clear", "contact", "undecided" ("unspecified" otherwise). */
GJKD_CLIENT_API const char *gjkd_segment_verdict_name(int verdict);

/* One segment of a continuous trajectory check (gjkd.proto SegmentResult). */
typedef struct gjkd_segment {
    bool evaluated;     /* false after the first contact in FIRST_COLLISION mode (all else zero) */
    int verdict;        /* gjkd_segment_verdict */
    double t;           /* fraction of the segment (see gjkd.proto SegmentResult) */
    bool has_clearance; /* CLEAR with something in reach */
    double clearance_lower_bound; /* certified, metres */
    const gjkd_pair *pair;        /* the segment's pair at t; NULL when there is none */
    uint32_t pairs_checked, pairs_undecided;
    uint64_t evaluations;
} gjkd_segment;

typedef struct gjkd_trajectory {
    const gjkd_state *waypoints; /* one per waypoint, in order */
    size_t waypoint_count;
    bool has_min_distance;
    double min_distance;     /* minimum over all waypoints, metres */
    uint32_t min_waypoint;   /* where it is */
    int32_t first_collision; /* first colliding waypoint, -1 if none */
    uint32_t colliding_waypoints;
    bool cache_hit; /* the named warm-start cache held this trajectory */
    uint64_t revision;
    const gjkd_robot_joints *joint_names; /* with gradients: every robot with joints and its
                                             DOF order */
    size_t joint_names_count;
    double handler_seconds; /* the daemon's time on the request (Response.handler_seconds:
                               validation, the query, building the reply); 0 from a daemon
                               that does not send it */
    /* options.continuous: one per segment (waypoint i to i + 1), in order; else none */
    const gjkd_segment *segments;
    size_t segment_count;
    int32_t first_contact_segment; /* -1 if none */
    uint32_t undecided_segments;
} gjkd_trajectory;

/* waypoint_count waypoints of link_count poses each, waypoint-major: poses[w * link_count + l].
 * name: warm-start cache name (NULL or "" = none). options may be NULL (defaults). */
GJKD_CLIENT_API gjkd_status gjkd_query_trajectory(gjkd_client *client,
                                                  const gjkd_query_options *options,
                                                  const char *robot, const char *name,
                                                  const gjkd_pose *poses, size_t waypoint_count,
                                                  size_t link_count, gjkd_trajectory **out);
/* A joint-space trajectory of a robot with joints: waypoint_count joint vectors of dof_count
 * values, waypoint-major (positions[w * dof_count + j]), the columns in the order of
 * joint_names (which must then name every DOF once) or, with joint_names NULL, in the robot's
 * DOF order. Every waypoint is at the robot's current base pose. A value out of its limits is
 * refused naming the waypoint and the joint. */
GJKD_CLIENT_API gjkd_status gjkd_query_trajectory_joints(
    gjkd_client *client, const gjkd_query_options *options, const char *robot, const char *name,
    const char *const *joint_names, size_t dof_count, const double *positions,
    size_t waypoint_count, gjkd_trajectory **out);
/* The same from a request message (e.g. gjkd_json_parse_trajectory); its options are replaced
 * by `options` when options is not NULL. */
GJKD_CLIENT_API gjkd_status gjkd_query_trajectory_request(gjkd_client *client,
                                                          const gjkd_query_options *options,
                                                          Gjkd__V1__TrajectoryQueryRequest *request,
                                                          gjkd_trajectory **out);
GJKD_CLIENT_API void gjkd_trajectory_destroy(gjkd_trajectory **trajectory);

/* ------------------------------------------------------------------ columnar trajectories */

/* Bits of gjkd_trajectory_columns.flags (gjkd.proto WaypointFlag). */
enum {
    GJKD_WAYPOINT_EVALUATED = 1,        /* gjkd_state.evaluated */
    GJKD_WAYPOINT_COLLIDING = 2,        /* gjkd_state.colliding */
    GJKD_WAYPOINT_TRUNCATED = 4,        /* gjkd_state.truncated */
    GJKD_WAYPOINT_HAS_MIN_DISTANCE = 8, /* gjkd_state.has_min_distance */
    GJKD_WAYPOINT_HAS_CLOSEST = 16,     /* the waypoint has pairs (its first is the closest) */
};

/* A trajectory result as arrays (gjkd.proto PairColumns, QueryOptions.pair_columns): the same
 * numbers as gjkd_trajectory's states and pairs, bit for bit, without a struct per pair. The
 * per-pair arrays hold every reported pair of every waypoint, waypoint by waypoint (ALL_WITHIN:
 * each waypoint's list; otherwise its closest pair), closest first; the pairs of waypoint w are
 * [waypoint_start[w], waypoint_start[w + 1]). Names, ids, indices and padding of pair k are
 * those of table[pair_index[k]] (whose numbers are zero). Arrays of length 0 may be NULL. Valid
 * until gjkd_trajectory_columns_destroy. */
typedef struct gjkd_trajectory_columns {
    /* per waypoint (waypoint_count) */
    size_t waypoint_count;
    const uint32_t *flags;               /* OR of GJKD_WAYPOINT_* */
    const double *waypoint_min_distance; /* 0 without GJKD_WAYPOINT_HAS_MIN_DISTANCE */
    const uint32_t *pairs_checked, *pairs_candidate;
    const size_t *waypoint_start; /* waypoint_count + 1 offsets into the per-pair arrays */
    /* per pair (pair_count) */
    size_t pair_count;
    const uint32_t *waypoint;   /* the pair's waypoint index */
    const uint32_t *pair_index; /* into table */
    const double *distance;     /* signed, metres, paddings included */
    const double *geometry;     /* 15 per pair: point_a, point_b, local_point_a, local_point_b,
                                   normal (x y z each), as in gjkd_pair */
    const int32_t *status;      /* pair status 1-7 (gjkd_status_name) */
    const int32_t *iterations, *epa_iterations;
    const uint32_t *part_pair_count;
    /* options.gradients (else NULL): pair k's d(distance)/dq values are
     * gradient_a[gradient_a_start[k] .. gradient_a_start[k + 1]) (likewise b), as in gjkd_pair */
    const double *gradient_a, *gradient_b;
    const size_t *gradient_a_start, *gradient_b_start; /* pair_count + 1 offsets */
    const protobuf_c_boolean *subgradient;
    /* the distinct pairs' names */
    const gjkd_pair *table;
    size_t table_count;
    /* the trajectory's own fields, as in gjkd_trajectory */
    bool has_min_distance;
    double min_distance;
    uint32_t min_waypoint;
    int32_t first_collision;
    uint32_t colliding_waypoints;
    bool cache_hit;
    uint64_t revision;
    const gjkd_robot_joints *joint_names;
    size_t joint_names_count;
    double handler_seconds;
    /* options.continuous (gjkd.proto SegmentColumns): per segment (segment_count; waypoint i
     * to i + 1), the numbers of gjkd_trajectory.segments bit for bit. A segment without a pair
     * has segment_pair_index -1 and zero pair numbers; clearance NaN where there is none
     * (gjkd_segment.has_clearance false). The pair's names are table[segment_pair_index]. */
    size_t segment_count;
    const int32_t *segment_verdict; /* gjkd_segment_verdict, 0 when not evaluated */
    const double *segment_t;
    const double *segment_clearance_lower_bound; /* metres, NaN where absent */
    const int32_t *segment_pair_index;           /* into table, -1 when no pair */
    const double *segment_distance;
    const double *segment_geometry; /* 15 per segment, as geometry */
    const int32_t *segment_status, *segment_iterations, *segment_epa_iterations;
    const uint32_t *segment_part_pair_count;
    const uint32_t *segment_pairs_checked, *segment_pairs_undecided;
    const uint64_t *segment_evaluations;
    const protobuf_c_boolean *segment_evaluated;
    int32_t first_contact_segment; /* -1 if none */
    uint32_t undecided_segments;
} gjkd_trajectory_columns;

/* The query of gjkd_query_trajectory_request, its result as arrays: the request is sent as
 * there (nested poses packed; the caller's message is left unchanged), options as there. A daemon
 * that predates pair columns answers in another form: GJKD_BAD_REPLY, saying so
 * (gjkd_query_trajectory_request reads every form); likewise, with options.continuous, one that
 * predates segment columns. */
GJKD_CLIENT_API gjkd_status gjkd_query_trajectory_columns(
    gjkd_client *client, const gjkd_query_options *options,
    const Gjkd__V1__TrajectoryQueryRequest *request, gjkd_trajectory_columns **out);
GJKD_CLIENT_API void gjkd_trajectory_columns_destroy(gjkd_trajectory_columns **columns);

#endif /* GJKD_CLIENT_H */
