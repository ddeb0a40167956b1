/* codec.h — protobuf <-> core/world structs, with full validation.
 *
 * Decoding never touches the world: it checks every field (names, counts, limits, finite
 * numbers, unit quaternions, shape sizes), builds hulls, and produces gjk_*_def structs that
 * the world then copies. Anything wrong gives a specific wire status and a one-line message
 * that names the field ("robot.links[2].parts[0].shape.sphere.radius: ...").
 *
 * Encoding builds outgoing protobuf-c messages whose memory comes from an arena, freed in one
 * go after the reply is packed. */
#ifndef GJKD_CODEC_H
#define GJKD_CODEC_H

#include "config.h"

#include "gjk/world.h"
#include "gjkd/v1/gjkd.pb-c.h"

#include <stdbool.h>
#include <stddef.h>

typedef Gjkd__V1__StatusCode gjkd_code;
#define GJKD_CODE(name) GJKD__V1__STATUS_CODE__STATUS_CODE_##name

/* The wire value of a core status (same numbers; GJK_WORLD_OK -> OK). */
gjkd_code gjkd_code_from_status(gjk_status status);
/* "OK", "INVALID_ARGUMENT", ... */
const char *gjkd_code_name(gjkd_code code);

typedef struct gjkd_error {
    gjkd_code code;
    char message[256];
} gjkd_error;

/* Fills *error and returns false (for `return gjkd_fail(...)`). */
bool gjkd_fail(gjkd_error *error, gjkd_code code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------- arena */

typedef struct gjkd_arena_chunk gjkd_arena_chunk;
/* Bump allocator for one reply; zero-initialise. Allocation failure aborts the daemon (a
 * reply half-built out of memory has no better outcome). */
typedef struct gjkd_arena {
    gjkd_arena_chunk *head;
} gjkd_arena;

void *gjkd_arena_alloc(gjkd_arena *arena, size_t size); /* zeroed, 16-byte aligned */
char *gjkd_arena_strdup(gjkd_arena *arena, const char *text);
void gjkd_arena_free(gjkd_arena *arena);

/* ---------------------------------------------------------------- decoding */

/* A pose; NULL is the identity. `where` names the field for messages. */
bool gjkd_decode_pose(const Gjkd__V1__Pose *pose, const char *where, gjk_transform *out,
                      gjkd_error *error);

/* Checks a name: non-empty, at most max_name_length bytes, valid UTF-8 without control
 * characters (C0, DEL, C1). */
bool gjkd_check_name(const char *name, const char *where, const gjkd_limits *limits,
                     gjkd_error *error);

/* Checks the string fields of a packed message (bytes the unpacker accepted), at every depth:
 * protobuf-c hands strings over NUL-terminated without their length, so a string holding a
 * NUL byte would be seen cut at it ("box_a\0x" as "box_a"). Refuses a string with a NUL byte,
 * INVALID_ARGUMENT naming the field ("put_obstacle.obstacle.name: ..."). What follows (names
 * checked by gjkd_check_name: UTF-8, no control characters) then sees every string whole. */
bool gjkd_check_wire_strings(const ProtobufCMessageDescriptor *descriptor, const uint8_t *data,
                             size_t size, gjkd_error *error);

/* Everything a robot or obstacle definition owns until the world has copied it. */
typedef struct gjkd_body_build {
    gjkd_arena arena;
    gjk_polytope **polytopes; /* built hulls / convex sets (in the arena: shapes point at
                                 them, so they never move), destroyed by release */
    int32_t polytope_count;
    int32_t polytope_capacity;
    uint32_t hull_vertices; /* vertices kept over all polytopes */
    gjk_robot_def robot;
    gjk_obstacle_def obstacle;
} gjkd_body_build;

bool gjkd_decode_robot(const Gjkd__V1__Robot *robot, const gjkd_limits *limits,
                       gjkd_body_build *out, gjkd_error *error);
bool gjkd_decode_obstacle(const Gjkd__V1__Obstacle *obstacle, const gjkd_limits *limits,
                          gjkd_body_build *out, gjkd_error *error);
/* Frees what a decode built; safe on a zeroed or already-released build. */
void gjkd_body_build_release(gjkd_body_build *build);

/* Link poses of a LinkPoses message, nested (poses) or packed (xyz_wxyz): exactly
 * `link_count` valid poses into out[]. `where` names the state for messages ("robots[0]"). */
bool gjkd_decode_link_poses(const Gjkd__V1__LinkPoses *poses, int32_t link_count, const char *where,
                            gjk_transform *out, gjkd_error *error);

/* TrajectoryQueryRequest.waypoint_xyz_wxyz: every waypoint's link poses in one packed array,
 * `waypoint_count` x `link_count` poses of 7 values (the caller checked the length) into
 * out[], validated as gjkd_decode_link_poses does. */
bool gjkd_decode_waypoint_poses(const double *values, size_t waypoint_count, int32_t link_count,
                                gjk_transform *out, gjkd_error *error);

/* Query options (robot name resolution is the caller's: it needs the world). Every absent
 * wire field becomes the zero of its C field, which means the same (gjk/world.h, Defaults);
 * then the daemon's settings: max_pairs 0 = limits->max_pairs_returned, threads =
 * query_threads. options NULL = an empty QueryOptions. */
bool gjkd_decode_query_options(const Gjkd__V1__QueryOptions *options, const gjkd_limits *limits,
                               int32_t query_threads, gjk_world_query_options *out,
                               gjkd_error *error);

/* ---------------------------------------------------------------- encoding */

Gjkd__V1__Vec3 *gjkd_encode_vec3(gjkd_arena *arena, gjk_vec3 v);
Gjkd__V1__Pose *gjkd_encode_pose(gjkd_arena *arena, gjk_transform t);
Gjkd__V1__PairResult *gjkd_encode_pair(gjkd_arena *arena, const gjk_world_pair *pair);
/* One waypoint; `all_pairs` lists every reported pair (ALL_WITHIN mode), otherwise only the
 * closest is given. */
void gjkd_encode_state(gjkd_arena *arena, const gjk_world_waypoint *waypoint, bool all_pairs,
                       Gjkd__V1__StateResult *out);
void gjkd_encode_trajectory(gjkd_arena *arena, const gjk_world_result *result, bool all_pairs,
                            Gjkd__V1__TrajectoryResult *out);
/* The compact form (QueryOptions.compact, CLOSEST and FIRST_COLLISION modes): each waypoint's
 * closest pair carries only distance, status, iterations, part_pair_count and its 15 geometry
 * values, and points at pair_table, which lists every distinct pair once with names, ids and
 * padding. */
void gjkd_encode_trajectory_compact(gjkd_arena *arena, const gjk_world_result *result,
                                    Gjkd__V1__TrajectoryResult *out);
/* The columnar form (QueryOptions.columnar, CLOSEST and FIRST_COLLISION modes): no waypoint
 * messages; their numbers and those of their closest pairs in the packed arrays of
 * out->columns, the pairs' names in pair_table as in the compact form. */
void gjkd_encode_trajectory_columnar(gjkd_arena *arena, const gjk_world_result *result,
                                     Gjkd__V1__TrajectoryResult *out);
/* The pair columns (QueryOptions.pair_columns, any mode): every reported pair of every
 * waypoint (all_pairs: ALL_WITHIN's list, else the closest) in out->pair_columns, gradients
 * included, with the waypoints in out->columns (no closest-pair arrays there) and the pairs'
 * names in pair_table as in the compact form; a continuous query's segments in
 * out->segment_columns, their pairs' names in the same pair_table. */
void gjkd_encode_trajectory_pair_columns(gjkd_arena *arena, const gjk_world_result *result,
                                         bool all_pairs, Gjkd__V1__TrajectoryResult *out);

/* ---------------------------------------------------------------- continuous segments */

/* The largest TrajectoryQueryRequest.continuous_max_evaluations accepted: a segment's work is
 * bounded by it times its part pairs, and a query is only cancelled between segments. */
#define GJKD_MAX_CONTINUOUS_EVALUATIONS 100000u

/* TrajectoryQueryRequest.continuous and its tolerance and budget into out (already decoded
 * from the request's options): INVALID_INPUT for a tolerance outside [0, 0.5] (NaN too),
 * RESOURCE_EXHAUSTED for a budget above GJKD_MAX_CONTINUOUS_EVALUATIONS. */
bool gjkd_decode_continuous(const Gjkd__V1__TrajectoryQueryRequest *m, gjk_world_query_options *out,
                            gjkd_error *error);
/* The result's segments (none unless the query was continuous) into out as SegmentResults,
 * every form; nothing when the pair columns already put them in out->segment_columns. */
void gjkd_encode_segments(gjkd_arena *arena, const gjk_world_result *result,
                          Gjkd__V1__TrajectoryResult *out);

#endif /* GJKD_CODEC_H */
