/* dense_cell.h — a dense work cell: the scene users' optimizer queries meet, for benchmarks and
 * tests (deterministic for a seed).
 *
 * Robot: a Panda-like 7-DOF arm (the Panda's joint origins and limits, gjk/kinematics.h) whose
 * 7 moving links (panda_link1 .. panda_link7, hand folded into link 7) carry 16 convex parts:
 * 15 hulls of 40-250 points (random clouds on ellipsoids and superellipsoids) and a box; adjacent
 * links are disabled pairs, the 15 other link pairs are checked (self collision on).
 * Obstacles (100, 137 parts): the mounting plate with its riser and the arm's base, a table
 * with legs, two shelf units of 7 boxes each, a wall, 13 posts, 10 hanging lamps (cord and
 * shade), and 72 clutter items of 20-500 points (9 of them two-part: a bottle with its cap, a
 * mug with its handle) on the table and the shelf boards.
 * Trajectory: a joint-space Catmull-Rom spline through six keyframes (home, over the table,
 * pick, lift, in front of the shelf, place on its top board), sampled at `waypoints` points;
 * link poses by gjk_kinematics_forward. The table and the shelf are placed under the pick and
 * place poses of the tool, and the picked item stands between the fingers (those waypoints
 * collide). 30 of the 36 table items stand near where the tool passes low over the table and
 * the shelf's top-board items near the place point, so that about 30 obstacles come within
 * 0.1 m of the arm along the path (29 for seed 1; bench_dense reports the count). */
#ifndef BENCH_DENSE_CELL_H
#define BENCH_DENSE_CELL_H

#include "gjk/gjk.h"
#include "gjk/kinematics.h"
#include "gjk/world.h"

#define DENSE_LINKS 7 /* world links of the arm (= DOF) */

/* A part as the scene gave it to the world: a link part (pose in its link frame) or an
 * obstacle part (pose in the world: obstacle pose * part pose, both as given). */
typedef struct dense_part {
    gjk_shape shape;
    gjk_transform pose;      /* part pose in the link frame / the obstacle frame */
    gjk_transform body_pose; /* obstacles: the obstacle's pose; links: identity */
    int32_t body;            /* link index 0..DENSE_LINKS-1, or obstacle index 0..obstacles-1 */
    int32_t index;           /* part index within its link or obstacle */
} dense_part;

typedef struct dense_cell {
    gjk_world *world;
    int32_t robot;         /* robot id */
    int32_t *obstacle_ids; /* obstacle_count world ids, scene order */
    int32_t obstacle_count;
    dense_part *link_parts; /* link_part_count, link-major */
    int32_t link_part_count;
    dense_part *obstacle_parts; /* obstacle_part_count, obstacle-major */
    int32_t obstacle_part_count;
    bool disabled[DENSE_LINKS][DENSE_LINKS]; /* link pairs never checked (adjacent links) */
    gjk_kinematics *kinematics;
    int32_t waypoints;
    double *q; /* waypoints * DENSE_LINKS joint positions, the spline */
    double lower[DENSE_LINKS], upper[DENSE_LINKS]; /* joint limits */
    gjk_vec3 pick, place; /* tool centre point at the pick and place keyframes */
    /* owned storage */
    gjk_polytope *polys;
    int32_t poly_count, poly_capacity;
} dense_cell;

/* Builds the scene and its trajectory for `seed` (any value; the same seed, the same scene).
 * waypoints >= 6. GJK_WORLD_OK or a failure status (the cell is then destroyed). */
gjk_status dense_cell_create(uint64_t seed, int32_t waypoints, dense_cell **out);
void dense_cell_destroy(dense_cell **cell);

/* Link poses of joint vectors q (n * DENSE_LINKS, waypoint-major) into poses
 * (n * DENSE_LINKS, the world's waypoint-major layout), by forward kinematics. */
gjk_status dense_cell_poses(const dense_cell *cell, const double *q, int32_t n,
                            gjk_transform *poses);

/* q_out = the cell's spline with every joint at every waypoint moved by a uniform amount in
 * [-amplitude, amplitude] (seeded; clamped to the limits): an optimizer's next iterate. */
void dense_cell_perturb(const dense_cell *cell, uint64_t seed, double amplitude, double *q_out);

#endif /* BENCH_DENSE_CELL_H */
