/* gjkd_json.h — the JSON documents of gjkd (scene, link poses, trajectory) <-> gjkd.v1 protobuf.
 *
 * Used by gjkctl (load, poses, trajectory) and by gjkd --demo (the embedded demo scene). The
 * formats are documented with examples in examples/demo/README.md; in short:
 *
 *   pose        {"position": [x, y, z], "quat_wxyz": [w, x, y, z]}     both keys optional
 *   part        {"name": "...", "type": "box", "half_extents": [hx, hy, hz],
 *                "margin": 0.0, "pose": POSE}                           name/margin/pose optional
 *               type: point | sphere (radius) | capsule, cylinder, cone (radius, half_height)
 *                     | box (half_extents) | ellipsoid (radii: [a, b, c], each > 0)
 *                     | hull (points: [[x, y, z], ...], hulled by gjkd)
 *                     | convex (points, optional adjacency_start, adjacency: used as given)
 *   scene       {"robots": [ROBOT...], "obstacles": [OBSTACLE...], "allowed_pairs": [[A, B]...]}
 *   robot       {"name", "links": [{"name", "parts": [PART...], "padding"}...],
 *                "self_collision": bool, "disabled_pairs": [["link", "link"]...], "padding",
 *                "initial_link_poses": [POSE...]}               a link-pose robot, or with
 *                "joints": [JOINT...], "base_pose": POSE, "initial_positions": [q...]
 *               (a robot with joints: no "initial_link_poses"; "parts" of a link may be
 *               empty, a frame that never collides)
 *   joint       {"name", "type": "fixed" | "revolute" | "continuous" | "prismatic",
 *                "parent": "link", "child": "link", "origin": POSE, "axis": [x, y, z],
 *                "limits": {"lower": l, "upper": u},
 *                "mimic": {"joint": "name", "multiplier": 1.0, "offset": 0.0}}
 *               origin, mimic optional; axis (non-zero) required but for fixed joints;
 *               limits (lower <= upper) required for revolute and prismatic; mimic's
 *               multiplier and offset default to 1 and 0 (URDF's defaults); gjkd.proto's Joint
 *   obstacle    {"name", "pose": POSE, "parts": [PART...], "padding"}
 *   body (A, B) "robot/link", "obstacle", "robot/" followed by a star (every link), or an object
 *               {"robot": "r", "link": "l"} / {"obstacle": "o"} for names containing '/'
 *   poses       {"robot": "arm", "link_poses": [POSE...]}  or  {"robots": [{...}, ...]};
 *               a robot with joints may give a joint state instead of "link_poses":
 *               {"robot": "arm", "name": ["j1", ...], "position": [q...], "base_pose": POSE}
 *   joint state {"name": [...], "position": [...], "base_pose": POSE}   a sensor_msgs/JointState
 *               (names in any order, a subset; without "name" the full vector in the robot's
 *               DOF order; base_pose optional; "header", "velocity", "effort" are ignored)
 *   trajectory  {"robot": "arm", "name": "optional cache name",
 *                "waypoints": [{"link_poses": [POSE...]}, ...]}
 *               or, for a robot with joints, joint vectors (packed into waypoint_joints):
 *               {"robot": "arm", "joint_names": ["j1", ...] (optional: the columns; absent =
 *                the robot's DOF order), "waypoints": [[q0, q1, ...], ...]}
 *
 * Every document may carry "format" ("gjkd-scene/1", "gjkd-poses/1", "gjkd-trajectory/1";
 * checked when present) and "comment" (ignored). Any other unknown key is an error (typos like
 * "quat_xyzw" must not pass silently). Units are metres and radians; quaternions are (w, x, y, z).
 *
 * Validation: syntax (with line and column), types, required keys, array lengths, finite
 * numbers, sizes/margins/paddings >= 0, quaternions of unit norm (within 1e-6), non-empty
 * names. Messages name the JSON path, e.g.
 *   "$.robots[0].links[2].parts[1].points[17][2]: expected a finite number".
 * Semantic checks that need the scene (unknown names, link counts, limits) are the daemon's.
 *
 * Memory: every message returned is built with malloc (strings, arrays, submessages) as
 * protobuf-c's unpack would build it, so it is freed by the matching gjkd_json_*_free, which
 * calls the generated *__free_unpacked. Unlike unpack, every string field is malloc'd, also one
 * the document leaves out (an empty string of its own, never protobuf-c's static
 * protobuf_c_empty_string): the caller may free() any string of the message and put another
 * malloc'd one in its place (gjkctl trajectory --name does). Thread-safe: no global state
 * (cJSON hooks untouched). */
#ifndef GJKD_JSON_H
#define GJKD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gjkd/v1/gjkd.pb-c.h"

/* Largest document accepted (bytes); bigger input is refused before parsing. */
#define GJKD_JSON_MAX_BYTES (256u * 1024u * 1024u)

typedef struct gjkd_json_error {
    char message[512]; /* one line, names the JSON path ("$.obstacles[3].pose: ...") */
    int line;          /* 1-based position of a syntax error; 0 for other errors */
    int column;
} gjkd_json_error;

/* Each parser takes `length` bytes of UTF-8 JSON text (no terminating NUL needed) and returns
 * true with *out set, or false with *out NULL and *err filled (err may be NULL). */
bool gjkd_json_parse_scene(const char *text, size_t length, Gjkd__V1__Scene **out,
                           gjkd_json_error *err);
bool gjkd_json_parse_poses(const char *text, size_t length, Gjkd__V1__SetLinkPosesRequest **out,
                           gjkd_json_error *err);
/* A joint state document for `robot`, as a request of one robot state. */
bool gjkd_json_parse_joint_state(const char *text, size_t length, const char *robot,
                                 Gjkd__V1__SetLinkPosesRequest **out, gjkd_json_error *err);
/* The request's options are left at their defaults: the caller sets them. */
bool gjkd_json_parse_trajectory(const char *text, size_t length,
                                Gjkd__V1__TrajectoryQueryRequest **out, gjkd_json_error *err);

/* Frees a message returned above (or any message built the same way); sets *msg to NULL.
 * Safe on NULL and on *msg NULL. */
void gjkd_json_scene_free(Gjkd__V1__Scene **msg);
void gjkd_json_poses_free(Gjkd__V1__SetLinkPosesRequest **msg);
void gjkd_json_trajectory_free(Gjkd__V1__TrajectoryQueryRequest **msg);

/* Writes a scene as a JSON document in the format above (the inverse of the parser for valid
 * scenes: parse(write(s)) == s field by field). Returns a malloc'd NUL-terminated string, NULL
 * if out of memory or the scene holds a non-finite number; release with free(). */
char *gjkd_json_write_scene(const Gjkd__V1__Scene *scene);
/* The same for link poses ("gjkd-poses/1", the "robots" form) and trajectories
 * ("gjkd-trajectory/1"; the request's options are not part of the document). */
char *gjkd_json_write_poses(const Gjkd__V1__SetLinkPosesRequest *poses);
char *gjkd_json_write_trajectory(const Gjkd__V1__TrajectoryQueryRequest *trajectory);

/* Numbers. Every number gjkd writes as JSON (the writers above, gjkctl --json) is written by
 * these, so that any reader gets back exactly the value written:
 *   double      the shortest of %.15g, %.16g, %.17g that strtod reads back bit for bit, with
 *               ".0" appended when that has neither a '.' nor an exponent: a double always
 *               reads back as a double (5.0, and -0.0 keeps its sign; JSON readers such as
 *               Python's take "5" for an integer and "-0" for 0);
 *   integer     counts, ids, indices, revisions: the exact decimal digits, never a '.' or an
 *               exponent, also beyond 2^53;
 *   non-finite  JSON has no NaN or infinity: gjkd_json_double gives null (gjkctl --json writes
 *               null, e.g. "min_distance": null when no pair is within max distance, which the
 *               daemon sends as "absent" for the world's infinity); the document writers above
 *               refuse a document holding one (they return NULL).
 * The nodes are cJSON raw nodes (cJSON_CreateRaw): for printing, not for reading back. */
#define GJKD_JSON_NUMBER_SIZE 32

/* Writes v as above into buf (GJKD_JSON_NUMBER_SIZE bytes, NUL-terminated). Returns false, with
 * "null" in buf, if v is not finite. */
bool gjkd_json_format_double(double v, char *buf);

struct cJSON;
/* A cJSON node printing v as above (null for a non-finite v); NULL only if out of memory. */
struct cJSON *gjkd_json_double(double v);
struct cJSON *gjkd_json_int(int64_t v);
struct cJSON *gjkd_json_uint(uint64_t v);

/* Reads a whole file into a malloc'd NUL-terminated buffer (*length excludes the NUL); NULL
 * with err filled on I/O failure or if it exceeds GJKD_JSON_MAX_BYTES. */
char *gjkd_json_read_file(const char *path, size_t *length, gjkd_json_error *err);

#endif /* GJKD_JSON_H */
