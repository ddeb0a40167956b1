/* page.h — gjkctl's browser pages (view.c, trace.c): the scene as the daemon holds it, turned
 * into the data of one self-contained HTML page (the page and its script, three.js bundled,
 * are built by tools/viewer and embedded in gjkctl). */
#ifndef GJKCTL_PAGE_H
#define GJKCTL_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gjk/kinematics.h"
#include "gjk/shape.h"
#include "gjkd_client.h"

/* One body of the scene: a robot link or an obstacle. */
typedef struct page_body {
    const char *robot;    /* NULL for an obstacle */
    const char *link;     /* NULL for an obstacle */
    const char *obstacle; /* NULL for a link */
    int robot_index;      /* index in page_scene.robots, -1 for an obstacle */
    int link_index;       /* index of the link within its robot */
    const Gjkd__V1__Part *const *parts;
    size_t part_count;
    double padding; /* the robot's plus the link's, or the obstacle's */
} page_body;

/* One robot: its kinematics (robots with joints) and its current state. */
typedef struct page_robot {
    const Gjkd__V1__Robot *robot;
    gjk_kinematics *kin; /* NULL for a link-pose robot */
    gjk_kinematics_state *state;
    double *q; /* current DOF values (the daemon's), dof entries */
    int dof;
    gjk_transform base; /* the robot's base pose */
    size_t first_body;  /* its links are bodies first_body .. first_body + n_links - 1 */
    bool posed;         /* a state was given (page_apply_poses) */
} page_robot;

typedef struct page_scene {
    Gjkd__V1__Response *reply; /* the scene summary with the scene, owned */
    const Gjkd__V1__Scene *scene;
    page_robot *robots;
    size_t robot_count;
    page_body *bodies;
    size_t body_count;
    gjk_transform *poses; /* the current world pose of every body (body order) */
    uint64_t revision;
} page_scene;

/* Fetches the scene with its current joint positions from the daemon and builds the bodies,
 * the kinematics and the current poses. Prints the error; returns 0 or an exit status. */
int page_scene_load(gjkd_client *c, page_scene *s);
void page_scene_free(page_scene *s);

/* Sets the current state from a POSES.json (as `gjkctl poses` takes it): the link poses of a
 * link-pose robot are not in the daemon's scene document. Returns 0 or an exit status. */
int page_apply_poses(page_scene *s, const char *path);
/* Notes on stderr every link-pose robot (but robot `except`) drawn at its initial poses. */
void page_note_unposed(const page_scene *s, int except);

/* The body of a robot link / an obstacle by name; -1 when there is none. */
int page_find_link(const page_scene *s, const char *robot, const char *link);
int page_find_obstacle(const page_scene *s, const char *obstacle);

/* The core shape of a part (hulls built as the daemon builds them, gjk_hull_build; *poly
 * receives their vertices, to be freed with gjk_polytope_destroy; shape->polytope points to
 * poly). */
bool page_part_shape(const Gjkd__V1__Part *p, gjk_shape *shape, gjk_polytope *poly);
gjk_transform page_pose(const Gjkd__V1__Pose *p);

/* Sets the poses of robot r's links in poses[] from one waypoint of a trajectory request
 * (any of its forms), starting from the robot's current state. Prints the error. */
bool page_waypoint_poses(const page_scene *s, int r, const Gjkd__V1__TrajectoryQueryRequest *t,
                         size_t k, gjk_transform *poses);
size_t page_waypoint_count(const Gjkd__V1__TrajectoryQueryRequest *t);

/* JSON of the bodies (names, parts: shapes with hull vertices, part poses, padding) and a pose
 * as [px, py, pz, qw, qx, qy, qz]. */
cJSON *page_bodies_json(const page_scene *s);
cJSON *page_pose_json(gjk_transform t);
cJSON *page_vec_json(double x, double y, double z);

/* Writes the page: the embedded page with `data` (consumed) as its data. Prints the error;
 * returns 0 or an exit status (2). */
int page_write(const char *path, cJSON *data);

/* The commands. */
int gjkctl_view(gjkd_client *c, const char *trajectory, const char *poses, const char *out,
                bool has_max_distance, double max_distance);
int gjkctl_trace(gjkd_client *c, const char *name_a, const char *name_b, const char *trajectory,
                 bool has_waypoint, uint64_t waypoint, const char *poses, const char *out);

#endif /* GJKCTL_PAGE_H */
