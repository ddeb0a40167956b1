/* view.c — gjkctl view [--trajectory TRAJ.json] [--max-distance D] --out PAGE.html: the scene
 * the daemon holds, drawn in the browser (three.js, inlined: no network at view time), with
 * the pairs within D at each waypoint of the trajectory (or at the current state). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gjkd_json.h"
#include "documents.h"
#include "page.h"

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NO_REPLY = 3 };

/* The max distance of a page when none is given: pairs within 10 cm. */
#define VIEW_DEFAULT_MAX_DISTANCE 0.1

static int fail(gjkd_client *c, gjkd_status s)
{
    fprintf(stderr, "gjkctl: %s\n", gjkd_client_error(c));
    return s == GJKD_TIMEOUT || s == GJKD_TRANSPORT ? EXIT_NO_REPLY : EXIT_REFUSED;
}

static int pair_body_b(const page_scene *s, const gjkd_pair *p)
{
    return p->obstacle_b[0] != '\0' ? page_find_obstacle(s, p->obstacle_b)
                                    : page_find_link(s, p->robot_b, p->link_b);
}

/* One waypoint: the poses of every body (flat, 7 each) and the reported pairs. */
static cJSON *waypoint_json(const page_scene *s, const gjk_transform *poses, const gjkd_state *st)
{
    cJSON *w = cJSON_CreateObject();
    cJSON *flat = cJSON_AddArrayToObject(w, "poses");
    for (size_t b = 0; b < s->body_count; b++) {
        const gjk_transform *t = &poses[b];
        double v[7] = {t->p.x, t->p.y, t->p.z, t->q.w, t->q.x, t->q.y, t->q.z};
        for (int i = 0; i < 7; i++)
            cJSON_AddItemToArray(flat, gjkd_json_double(v[i]));
    }
    cJSON_AddBoolToObject(w, "evaluated", st->evaluated);
    cJSON_AddBoolToObject(w, "colliding", st->colliding);
    if (st->has_min_distance)
        cJSON_AddItemToObject(w, "min_distance", gjkd_json_double(st->min_distance));
    cJSON *pairs = cJSON_AddArrayToObject(w, "pairs");
    int closest = -1, n = 0;
    double best = INFINITY;
    for (size_t i = 0; i < st->pair_count; i++) {
        const gjkd_pair *p = &st->pairs[i];
        int a = page_find_link(s, p->robot_a, p->link_a), b = pair_body_b(s, p);
        if (a < 0 || b < 0)
            continue; /* the scene changed between the two requests: not drawn */
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "a", a);
        cJSON_AddNumberToObject(o, "b", b);
        cJSON_AddStringToObject(o, "part_a", p->part_a);
        cJSON_AddStringToObject(o, "part_b", p->part_b);
        cJSON_AddItemToObject(o, "d", gjkd_json_double(p->distance));
        cJSON_AddStringToObject(o, "status", gjkd_status_name(p->status));
        cJSON_AddItemToObject(o, "pa", page_vec_json(p->point_a.x, p->point_a.y, p->point_a.z));
        cJSON_AddItemToObject(o, "pb", page_vec_json(p->point_b.x, p->point_b.y, p->point_b.z));
        /* The witnesses in the bodies' frames: with the poses above they give pa and pb. */
        cJSON_AddItemToObject(
            o, "la", page_vec_json(p->local_point_a.x, p->local_point_a.y, p->local_point_a.z));
        cJSON_AddItemToObject(
            o, "lb", page_vec_json(p->local_point_b.x, p->local_point_b.y, p->local_point_b.z));
        cJSON_AddItemToArray(pairs, o);
        if (p->distance < best) {
            best = p->distance;
            closest = n;
        }
        n++;
    }
    cJSON_AddNumberToObject(w, "closest", closest);
    return w;
}

int gjkctl_view(gjkd_client *c, const char *trajectory, const char *poses_path, const char *out,
                bool has_max_distance, double max_distance)
{
    if (out == NULL) {
        fputs("gjkctl: view needs --out PAGE.html (see gjkctl --help)\n", stderr);
        return EXIT_USAGE;
    }
    Gjkd__V1__TrajectoryQueryRequest *req = NULL;
    if (trajectory && !gjkctl_read_trajectory(trajectory, &req))
        return EXIT_USAGE;
    page_scene s;
    int rc = page_scene_load(c, &s);
    if (rc == 0 && poses_path)
        rc = page_apply_poses(&s, poses_path);
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.has_max_distance = true;
    o.max_distance = has_max_distance ? max_distance : VIEW_DEFAULT_MAX_DISTANCE;
    cJSON *data = cJSON_CreateObject();
    cJSON *wps = cJSON_CreateArray();
    gjk_transform *poses = calloc(s.body_count + 1, sizeof *poses);
    char title[512];
    snprintf(title, sizeof title, "gjkd scene");
    if (rc == 0 && poses == NULL)
        rc = EXIT_USAGE;
    if (rc == 0 && req) {
        int r = -1;
        for (size_t i = 0; i < s.robot_count; i++)
            if (strcmp(s.robots[i].robot->name, req->robot) == 0)
                r = (int)i;
        if (r < 0) {
            fprintf(stderr, "gjkctl: %s: no robot \"%s\" in the scene\n", trajectory, req->robot);
            rc = EXIT_REFUSED;
        } else {
            page_note_unposed(&s, r);
        }
        gjkd_trajectory *t = NULL;
        gjkd_status st = GJKD_OK;
        if (rc == 0 && (st = gjkd_query_trajectory_request(c, &o, req, &t)) != GJKD_OK)
            rc = fail(c, st);
        for (size_t k = 0; rc == 0 && k < t->waypoint_count; k++) {
            memcpy(poses, s.poses, s.body_count * sizeof *poses);
            if (!page_waypoint_poses(&s, r, req, k, poses))
                rc = EXIT_USAGE;
            else
                cJSON_AddItemToArray(wps, waypoint_json(&s, poses, &t->waypoints[k]));
        }
        snprintf(title, sizeof title, "%s%s%s", req->robot, req->name[0] ? " / " : "", req->name);
        if (t)
            gjkd_trajectory_destroy(&t);
    } else if (rc == 0) {
        page_note_unposed(&s, -1);
        gjkd_state *st;
        gjkd_status ss = gjkd_query_state(c, &o, &st);
        if (ss != GJKD_OK) {
            rc = fail(c, ss);
        } else {
            cJSON_AddItemToArray(wps, waypoint_json(&s, s.poses, st));
            gjkd_state_destroy(&st);
        }
    }
    if (rc == 0) {
        cJSON_AddStringToObject(data, "format", "gjkd-view/1");
        cJSON_AddStringToObject(data, "page", "view");
        cJSON_AddStringToObject(data, "title", title);
        cJSON_AddItemToObject(data, "revision", gjkd_json_uint(s.revision));
        cJSON_AddItemToObject(data, "max_distance", gjkd_json_double(o.max_distance));
        cJSON *robots = cJSON_AddArrayToObject(data, "robots");
        for (size_t i = 0; i < s.robot_count; i++)
            cJSON_AddItemToArray(robots, cJSON_CreateString(s.robots[i].robot->name));
        cJSON_AddItemToObject(data, "bodies", page_bodies_json(&s));
        cJSON_AddItemToObject(data, "waypoints", wps);
        wps = NULL;
        size_t n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(data, "waypoints"));
        rc = page_write(out, data);
        data = NULL;
        if (rc == 0)
            printf("wrote %s: %zu bodies, %zu waypoint%s\n", out, s.body_count, n,
                   n == 1 ? "" : "s");
    }
    cJSON_Delete(wps);
    cJSON_Delete(data);
    free(poses);
    page_scene_free(&s);
    if (req)
        gjkd_json_trajectory_free(&req);
    return rc;
}
