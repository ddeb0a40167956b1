/* dense_export.c — the dense work cell (dense_cell.h) as gjkd documents, for the benchmarks that
 * run it through the daemon (bench/python_client.py, gjkctl bench):
 *
 *   dense_export SCENE.json TRAJ.json [--seed S] [--waypoints N]
 *
 * SCENE.json (gjkd-scene/1): the arm as a link-pose robot "panda" of 7 links (self collision,
 * adjacent links disabled) and the 100 obstacles, every hull as its "convex" vertices with
 * their adjacency, so that the daemon's world holds the very polytopes of bench_dense's.
 * TRAJ.json (gjkd-trajectory/1): the pick-and-place spline's link poses (7 per waypoint), as
 * dense_cell_poses computes them. Seed 1 and 100 waypoints by default, as bench_dense. */
#define _POSIX_C_SOURCE 200809L

#include "dense_cell.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gjkd_json.h"

static void die(const char *what)
{
    fprintf(stderr, "dense_export: %s\n", what);
    exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n + 1, size);
    if (p == NULL)
        die("out of memory");
    return p;
}

static Gjkd__V1__Pose *pose_msg(gjk_transform t)
{
    Gjkd__V1__Pose *p = xcalloc(1, sizeof *p);
    Gjkd__V1__Vec3 *v = xcalloc(1, sizeof *v);
    Gjkd__V1__Quaternion *q = xcalloc(1, sizeof *q);
    gjkd__v1__pose__init(p);
    gjkd__v1__vec3__init(v);
    gjkd__v1__quaternion__init(q);
    v->x = t.p.x;
    v->y = t.p.y;
    v->z = t.p.z;
    q->w = t.q.w;
    q->x = t.q.x;
    q->y = t.q.y;
    q->z = t.q.z;
    p->position = v;
    p->orientation = q;
    return p;
}

/* A world shape as a wire shape: boxes as boxes, polytopes as their vertices and adjacency. */
static Gjkd__V1__Shape *shape_msg(const gjk_shape *s)
{
    Gjkd__V1__Shape *m = xcalloc(1, sizeof *m);
    gjkd__v1__shape__init(m);
    m->margin = s->margin;
    if (s->kind == GJK_SHAPE_BOX) {
        Gjkd__V1__Box *b = xcalloc(1, sizeof *b);
        Gjkd__V1__Vec3 *h = xcalloc(1, sizeof *h);
        gjkd__v1__box__init(b);
        gjkd__v1__vec3__init(h);
        h->x = s->half_extents.x;
        h->y = s->half_extents.y;
        h->z = s->half_extents.z;
        b->half_extents = h;
        m->kind_case = GJKD__V1__SHAPE__KIND_BOX;
        m->box = b;
        return m;
    }
    if (s->kind != GJK_SHAPE_POLYTOPE)
        die("a part that is neither a box nor a polytope");
    const gjk_polytope *p = s->polytope;
    Gjkd__V1__ConvexVertices *c = xcalloc(1, sizeof *c);
    gjkd__v1__convex_vertices__init(c);
    c->n_xyz = 3 * (size_t)p->count;
    c->xyz = xcalloc(c->n_xyz, sizeof *c->xyz);
    for (int32_t i = 0; i < p->count; ++i) {
        c->xyz[3 * i] = p->x[i];
        c->xyz[3 * i + 1] = p->y[i];
        c->xyz[3 * i + 2] = p->z[i];
    }
    if (p->adj_start != NULL) {
        c->n_adjacency_start = (size_t)p->count + 1;
        c->adjacency_start = xcalloc(c->n_adjacency_start, sizeof *c->adjacency_start);
        memcpy(c->adjacency_start, p->adj_start, c->n_adjacency_start * sizeof(int32_t));
        c->n_adjacency = (size_t)p->adj_start[p->count];
        c->adjacency = xcalloc(c->n_adjacency, sizeof *c->adjacency);
        memcpy(c->adjacency, p->adj, c->n_adjacency * sizeof(int32_t));
    }
    m->kind_case = GJKD__V1__SHAPE__KIND_CONVEX;
    m->convex = c;
    return m;
}

static Gjkd__V1__Part *part_msg(const dense_part *d)
{
    Gjkd__V1__Part *m = xcalloc(1, sizeof *m);
    gjkd__v1__part__init(m);
    char name[32];
    snprintf(name, sizeof name, "p%d", d->index);
    m->name = strdup(name);
    m->shape = shape_msg(&d->shape);
    m->pose = pose_msg(d->pose);
    return m;
}

static void write_file(const char *path, char *text)
{
    if (text == NULL)
        die("cannot write the document (out of memory or a non-finite number)");
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0)
        die(path);
    free(text);
}

int main(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int n_paths = 0;
    uint64_t seed = 1;
    int32_t waypoints = 100;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--waypoints") == 0 && i + 1 < argc)
            waypoints = (int32_t)strtol(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && n_paths < 2)
            paths[n_paths++] = argv[i];
        else {
            fputs("usage: dense_export SCENE.json TRAJ.json [--seed S] [--waypoints N]\n", stderr);
            return 2;
        }
    }
    if (n_paths != 2 || waypoints < 6) {
        fputs("usage: dense_export SCENE.json TRAJ.json [--seed S] [--waypoints N >= 6]\n", stderr);
        return 2;
    }
    dense_cell *cell;
    if (dense_cell_create(seed, waypoints, &cell) != GJK_WORLD_OK)
        die("dense_cell_create failed");

    /* the arm: 7 links, their parts in link order */
    static const char *link_names[DENSE_LINKS] = {"panda_link1", "panda_link2", "panda_link3",
                                                  "panda_link4", "panda_link5", "panda_link6",
                                                  "panda_link7"};
    Gjkd__V1__Robot *robot = xcalloc(1, sizeof *robot);
    gjkd__v1__robot__init(robot);
    robot->name = strdup("panda");
    robot->self_collision = true;
    robot->n_links = DENSE_LINKS;
    robot->links = xcalloc(DENSE_LINKS, sizeof *robot->links);
    for (int l = 0; l < DENSE_LINKS; ++l) {
        Gjkd__V1__Link *link = xcalloc(1, sizeof *link);
        gjkd__v1__link__init(link);
        link->name = strdup(link_names[l]);
        link->parts = xcalloc((size_t)cell->link_part_count, sizeof *link->parts);
        for (int32_t i = 0; i < cell->link_part_count; ++i)
            if (cell->link_parts[i].body == l)
                link->parts[link->n_parts++] = part_msg(&cell->link_parts[i]);
        robot->links[l] = link;
    }
    robot->disabled_pairs = xcalloc(DENSE_LINKS, sizeof *robot->disabled_pairs);
    for (int a = 0; a < DENSE_LINKS; ++a)
        for (int b = a + 1; b < DENSE_LINKS; ++b)
            if (cell->disabled[a][b]) {
                Gjkd__V1__LinkPair *p = xcalloc(1, sizeof *p);
                gjkd__v1__link_pair__init(p);
                p->a = strdup(link_names[a]);
                p->b = strdup(link_names[b]);
                robot->disabled_pairs[robot->n_disabled_pairs++] = p;
            }

    /* the obstacles, their parts in obstacle order */
    Gjkd__V1__Scene scene = GJKD__V1__SCENE__INIT;
    scene.n_robots = 1;
    scene.robots = &robot;
    scene.n_obstacles = (size_t)cell->obstacle_count;
    scene.obstacles = xcalloc(scene.n_obstacles, sizeof *scene.obstacles);
    int32_t next = 0;
    for (int32_t o = 0; o < cell->obstacle_count; ++o) {
        gjk_obstacle_info info;
        if (gjk_world_obstacle_info(cell->world, cell->obstacle_ids[o], &info) != GJK_WORLD_OK)
            die("obstacle info");
        Gjkd__V1__Obstacle *m = xcalloc(1, sizeof *m);
        gjkd__v1__obstacle__init(m);
        m->name = strdup(info.name);
        m->pose = pose_msg(info.pose);
        m->padding = info.padding;
        m->parts = xcalloc((size_t)info.part_count, sizeof *m->parts);
        while (next < cell->obstacle_part_count && cell->obstacle_parts[next].body == o)
            m->parts[m->n_parts++] = part_msg(&cell->obstacle_parts[next++]);
        if ((int32_t)m->n_parts != info.part_count)
            die("obstacle parts out of order");
        scene.obstacles[o] = m;
    }
    write_file(paths[0], gjkd_json_write_scene(&scene));

    /* the trajectory's link poses */
    size_t n = (size_t)waypoints * DENSE_LINKS;
    gjk_transform *poses = xcalloc(n, sizeof *poses);
    if (dense_cell_poses(cell, cell->q, waypoints, poses) != GJK_WORLD_OK)
        die("dense_cell_poses failed");
    Gjkd__V1__TrajectoryQueryRequest traj = GJKD__V1__TRAJECTORY_QUERY_REQUEST__INIT;
    traj.robot = "panda";
    traj.n_waypoints = (size_t)waypoints;
    traj.waypoints = xcalloc(traj.n_waypoints, sizeof *traj.waypoints);
    for (int32_t w = 0; w < waypoints; ++w) {
        Gjkd__V1__Waypoint *wp = xcalloc(1, sizeof *wp);
        Gjkd__V1__LinkPoses *lp = xcalloc(1, sizeof *lp);
        gjkd__v1__waypoint__init(wp);
        gjkd__v1__link_poses__init(lp);
        lp->n_poses = DENSE_LINKS;
        lp->poses = xcalloc(DENSE_LINKS, sizeof *lp->poses);
        for (int l = 0; l < DENSE_LINKS; ++l)
            lp->poses[l] = pose_msg(poses[(size_t)w * DENSE_LINKS + (size_t)l]);
        wp->state_case = GJKD__V1__WAYPOINT__STATE_LINK_POSES;
        wp->link_poses = lp;
        traj.waypoints[w] = wp;
    }
    write_file(paths[1], gjkd_json_write_trajectory(&traj));
    printf("dense_export: %s (1 robot, %d links, %d link parts; %d obstacles, %d parts), %s (%d "
           "waypoints)\n",
           paths[0], DENSE_LINKS, cell->link_part_count, cell->obstacle_count,
           cell->obstacle_part_count, paths[1], waypoints);
    /* the messages are left to the process's end */
    dense_cell_destroy(&cell);
    return 0;
}
