/* trace_page.c — gjkctl trace A B [--trajectory TRAJ.json --waypoint K] --out PAGE.html: one
 * pair of the daemon's scene, its GJK (and EPA) iterations step by step in the browser.
 *
 * The trace is computed here, with the core linked into gjkctl, from the scene the daemon
 * holds: the same parts (hulls by the same gjk_hull_build from the same points), the same poses
 * (the same forward kinematics from the daemon's joint positions, or the trajectory's), the same
 * options, a cold start. The daemon answers queries, not traces: a wire request for one would
 * put a debugging buffer on the service's hot path and into the wire contract, while the core is
 * deterministic and the client has everything it needs. The page shows the daemon's own distance
 * for the pair beside the trace's, so any difference (the daemon's warm starts) is visible. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gjk/gjk.h"
#include "gjkd_json.h"
#include "documents.h"
#include "page.h"

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NO_REPLY = 3 };

enum { TRACE_STEPS = 4096, TRACE_POINTS = 1 << 20 };

/* One side of the pair: a body and one of its parts. */
typedef struct side {
    int body;
    size_t part;
    bool part_given;
    char name[512];
} side;

/* "robot/link[/part]" or "obstacle[/part]". */
static bool parse_side(const page_scene *s, const char *text, side *out)
{
    memset(out, 0, sizeof *out);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *first = buf, *second = strchr(buf, '/'), *third = NULL;
    if (second) {
        *second++ = '\0';
        third = strchr(second, '/');
        if (third)
            *third++ = '\0';
    }
    out->body = -1;
    const char *part = NULL;
    for (size_t r = 0; r < s->robot_count; r++)
        if (strcmp(s->robots[r].robot->name, first) == 0 && second) {
            out->body = page_find_link(s, first, second);
            part = third;
        }
    if (out->body < 0 && third == NULL) {
        out->body = page_find_obstacle(s, first);
        part = second;
    }
    if (out->body < 0) {
        fprintf(stderr,
                "gjkctl: trace: no robot link or obstacle \"%s\" (robot/link[/part] or "
                "obstacle[/part])\n",
                text);
        return false;
    }
    const page_body *b = &s->bodies[out->body];
    if (part) {
        for (size_t k = 0; k < b->part_count; k++) {
            char pn[32];
            snprintf(pn, sizeof pn, "#%zu", k);
            if (strcmp(b->parts[k]->name[0] ? b->parts[k]->name : pn, part) == 0) {
                out->part = k;
                out->part_given = true;
            }
        }
        if (!out->part_given) {
            fprintf(stderr, "gjkctl: trace: \"%s\" has no part \"%s\"\n", first, part);
            return false;
        }
    }
    return true;
}

typedef struct part_geom {
    gjk_shape shape;
    gjk_polytope poly;
    gjk_transform pose; /* world */
    bool ok;
} part_geom;

static void part_geom_free(part_geom *g)
{
    gjk_polytope_destroy(&g->poly);
}

/* Part k of a body at the bodies' poses; g->shape borrows g->poly (g must stay put). */
static void part_at(const page_scene *s, const gjk_transform *poses, int body, size_t k,
                    part_geom *g)
{
    memset(g, 0, sizeof *g);
    const Gjkd__V1__Part *p = s->bodies[body].parts[k];
    g->ok = page_part_shape(p, &g->shape, &g->poly);
    if (g->shape.kind == GJK_SHAPE_POLYTOPE)
        g->shape.polytope = &g->poly;
    g->pose = gjk_transform_mul(poses[body], page_pose(p->pose));
}

/* The core of a shape (gjk/trace.h): margin 0, a sphere's centre, a capsule's segment. */
static gjk_shape core_of(gjk_shape s)
{
    s.margin = 0.0;
    if (s.kind == GJK_SHAPE_SPHERE || s.kind == GJK_SHAPE_CAPSULE)
        s.radius = 0.0;
    return s;
}

static gjk_vec3 world_support(const gjk_shape *s, gjk_transform t, gjk_vec3 d)
{
    return gjk_transform_point(t, gjk_shape_support(s, gjk_quat_inv_rotate(t.q, d)));
}

static cJSON *vec(gjk_vec3 v)
{
    return page_vec_json(v.x, v.y, v.z);
}

/* Points of the cores' Minkowski difference D = A - B in world coordinates (w = a - b of two
 * world points, as the trace's w): every vertex difference of two small polytopes, else the
 * supports in directions spread over the sphere. */
static cJSON *difference_points(const part_geom *a, const part_geom *b)
{
    cJSON *arr = cJSON_CreateArray();
    gjk_shape ca = core_of(a->shape), cb = core_of(b->shape);
    if (ca.kind == GJK_SHAPE_POLYTOPE && cb.kind == GJK_SHAPE_POLYTOPE &&
        (int64_t)ca.polytope->count * cb.polytope->count <= 20000) {
        for (int32_t i = 0; i < ca.polytope->count; i++)
            for (int32_t j = 0; j < cb.polytope->count; j++) {
                gjk_vec3 pa = gjk_transform_point(
                    a->pose, gjk_v3(ca.polytope->x[i], ca.polytope->y[i], ca.polytope->z[i]));
                gjk_vec3 pb = gjk_transform_point(
                    b->pose, gjk_v3(cb.polytope->x[j], cb.polytope->y[j], cb.polytope->z[j]));
                cJSON_AddItemToArray(arr, vec(gjk_sub(pa, pb)));
            }
        return arr;
    }
    const int n = 1200; /* a Fibonacci sphere of directions */
    for (int i = 0; i < n; i++) {
        double z = 1.0 - (2.0 * i + 1.0) / n, r = sqrt(fmax(0.0, 1.0 - z * z));
        double phi = 2.399963229728653 * i;
        gjk_vec3 d = gjk_v3(r * cos(phi), r * sin(phi), z);
        gjk_vec3 w =
            gjk_sub(world_support(&ca, a->pose, d), world_support(&cb, b->pose, gjk_neg(d)));
        cJSON_AddItemToArray(arr, vec(w));
    }
    return arr;
}

/* The outline of a shape (margin included) projected onto the plane spanned by u and n: the
 * projections of its supports in the directions of that plane. */
static cJSON *outline(const part_geom *g, gjk_vec3 u, gjk_vec3 n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < 180; i++) {
        double t = 2.0 * 3.141592653589793 * i / 180.0;
        gjk_vec3 d = gjk_add(gjk_scale(u, cos(t)), gjk_scale(n, sin(t)));
        gjk_vec3 p = world_support(&g->shape, g->pose, d);
        cJSON *xy = cJSON_CreateArray();
        cJSON_AddItemToArray(xy, gjkd_json_double(gjk_dot(p, u)));
        cJSON_AddItemToArray(xy, gjkd_json_double(gjk_dot(p, n)));
        cJSON_AddItemToArray(arr, xy);
    }
    return arr;
}

static cJSON *trace_point_json(const gjk_trace_point *p, gjk_transform fa)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "a", vec(gjk_transform_point(fa, p->a)));
    cJSON_AddItemToObject(o, "b", vec(gjk_transform_point(fa, p->b)));
    cJSON_AddItemToObject(o, "w", vec(gjk_quat_rotate(fa.q, p->w)));
    return o;
}

static cJSON *steps_json(const gjk_trace *t, gjk_transform fa)
{
    cJSON *arr = cJSON_CreateArray();
    for (int32_t i = 0; i < t->step_count; i++) {
        const gjk_trace_step *s = &t->steps[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "phase", s->phase == GJK_TRACE_EPA ? "EPA" : "GJK");
        cJSON_AddNumberToObject(o, "iteration", s->iteration);
        cJSON *pts = cJSON_AddArrayToObject(o, "points");
        for (int32_t k = 0; k < s->point_count; k++)
            cJSON_AddItemToArray(pts, trace_point_json(&t->points[s->first_point + k], fa));
        if (s->phase == GJK_TRACE_EPA) {
            cJSON *f = cJSON_AddArrayToObject(o, "face");
            for (int k = 0; k < 3; k++)
                cJSON_AddItemToArray(f, cJSON_CreateNumber(s->face[k]));
        }
        cJSON_AddItemToObject(o, "closest", vec(gjk_quat_rotate(fa.q, s->closest)));
        cJSON_AddItemToObject(o, "direction", vec(gjk_quat_rotate(fa.q, s->direction)));
        cJSON_AddItemToObject(o, "support", trace_point_json(&s->support, fa));
        cJSON_AddItemToObject(o, "lower", gjkd_json_double(s->lower));
        cJSON_AddItemToObject(o, "upper", gjkd_json_double(s->upper));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* The daemon's distance for this part pair (a per-part state or trajectory query), or NAN. */
static double daemon_distance(gjkd_client *c, const page_scene *s, const side *a, const side *b,
                              const Gjkd__V1__TrajectoryQueryRequest *req, size_t waypoint,
                              double limit, int *rc)
{
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.per_part = true;
    o.has_max_distance = true;
    o.max_distance = limit;
    const gjkd_state *st = NULL;
    gjkd_state *one = NULL;
    gjkd_trajectory *t = NULL;
    gjkd_status status;
    if (req) {
        status = gjkd_query_trajectory_request(c, &o, (Gjkd__V1__TrajectoryQueryRequest *)req, &t);
        if (status == GJKD_OK && waypoint < t->waypoint_count)
            st = &t->waypoints[waypoint];
    } else {
        status = gjkd_query_state(c, &o, &one);
        st = one;
    }
    if (status != GJKD_OK) {
        fprintf(stderr, "gjkctl: %s\n", gjkd_client_error(c));
        *rc = status == GJKD_TIMEOUT || status == GJKD_TRANSPORT ? EXIT_NO_REPLY : EXIT_REFUSED;
    }
    double d = NAN;
    const page_body *ba = &s->bodies[a->body], *bb = &s->bodies[b->body];
    for (size_t i = 0; st && i < st->pair_count; i++) {
        const gjkd_pair *p = &st->pairs[i];
        for (int swap = 0; swap < 2; swap++) {
            const page_body *x = swap ? bb : ba, *y = swap ? ba : bb;
            size_t px = swap ? b->part : a->part, py = swap ? a->part : b->part;
            bool ax = x->robot && strcmp(p->robot_a, x->robot) == 0 &&
                      strcmp(p->link_a, x->link) == 0 && p->part_a_index == px;
            bool by =
                p->part_b_index == py && (y->obstacle ? strcmp(p->obstacle_b, y->obstacle) == 0
                                                      : (y->robot && p->obstacle_b[0] == '\0' &&
                                                         strcmp(p->robot_b, y->robot) == 0 &&
                                                         strcmp(p->link_b, y->link) == 0));
            if (ax && by)
                d = p->distance;
        }
    }
    if (one)
        gjkd_state_destroy(&one);
    if (t)
        gjkd_trajectory_destroy(&t);
    return d;
}

int gjkctl_trace(gjkd_client *c, const char *name_a, const char *name_b, const char *trajectory,
                 bool has_waypoint, uint64_t waypoint, const char *poses_path, const char *out)
{
    if (has_waypoint != (trajectory != NULL)) {
        fputs("gjkctl: trace: --trajectory and --waypoint go together (see gjkctl --help)\n",
              stderr);
        return EXIT_USAGE;
    }
    Gjkd__V1__TrajectoryQueryRequest *req = NULL;
    if (trajectory && !gjkctl_read_trajectory(trajectory, &req))
        return EXIT_USAGE;
    page_scene s;
    int rc = page_scene_load(c, &s);
    if (rc == 0 && poses_path)
        rc = page_apply_poses(&s, poses_path);
    side a, b;
    gjk_transform *poses = calloc(s.body_count + 1, sizeof *poses);
    if (rc == 0 && poses == NULL)
        rc = EXIT_USAGE;
    if (rc == 0 && (!parse_side(&s, name_a, &a) || !parse_side(&s, name_b, &b)))
        rc = EXIT_USAGE;
    if (rc == 0 && a.body == b.body) {
        fputs("gjkctl: trace: A and B are the same body\n", stderr);
        rc = EXIT_USAGE;
    }
    if (rc == 0)
        memcpy(poses, s.poses, s.body_count * sizeof *poses);
    if (rc == 0 && req) {
        int r = -1;
        for (size_t i = 0; i < s.robot_count; i++)
            if (strcmp(s.robots[i].robot->name, req->robot) == 0)
                r = (int)i;
        if (r < 0) {
            fprintf(stderr, "gjkctl: %s: no robot \"%s\" in the scene\n", trajectory, req->robot);
            rc = EXIT_REFUSED;
        } else if (waypoint >= page_waypoint_count(req)) {
            fprintf(stderr, "gjkctl: trace: --waypoint %llu: the trajectory has %zu waypoints\n",
                    (unsigned long long)waypoint, page_waypoint_count(req));
            rc = EXIT_USAGE;
        } else if (!page_waypoint_poses(&s, r, req, (size_t)waypoint, poses)) {
            rc = EXIT_USAGE;
        } else {
            page_note_unposed(&s, r);
        }
    } else if (rc == 0) {
        page_note_unposed(&s, -1);
    }
    /* Without a part named: the part pair of the least distance (the body pair's). */
    gjk_options opt = gjk_default_options();
    if (rc == 0) {
        double best = INFINITY;
        const page_body *ba = &s.bodies[a.body], *bb = &s.bodies[b.body];
        for (size_t i = 0; i < ba->part_count; i++) {
            if (a.part_given && i != a.part)
                continue;
            for (size_t j = 0; j < bb->part_count; j++) {
                if (b.part_given && j != b.part)
                    continue;
                part_geom ga, gb;
                part_at(&s, poses, a.body, i, &ga);
                part_at(&s, poses, b.body, j, &gb);
                if (ga.ok && gb.ok) {
                    gjk_result r =
                        gjk_signed_distance(&ga.shape, ga.pose, &gb.shape, gb.pose, NULL, &opt);
                    if (r.distance < best) {
                        best = r.distance;
                        a.part = i;
                        b.part = j;
                    }
                }
                part_geom_free(&ga);
                part_geom_free(&gb);
            }
        }
        if (!isfinite(best)) {
            fputs("gjkctl: trace: no part pair of A and B could be queried\n", stderr);
            rc = EXIT_REFUSED;
        }
    }
    gjk_trace_step *steps = rc == 0 ? calloc(TRACE_STEPS, sizeof *steps) : NULL;
    gjk_trace_point *points = rc == 0 ? calloc(TRACE_POINTS, sizeof *points) : NULL;
    if (rc == 0 && (steps == NULL || points == NULL)) {
        fputs("gjkctl: out of memory\n", stderr);
        rc = EXIT_USAGE;
    }
    cJSON *data = NULL;
    if (rc == 0) {
        part_geom ga, gb;
        part_at(&s, poses, a.body, a.part, &ga);
        part_at(&s, poses, b.body, b.part, &gb);
        gjk_trace t = gjk_trace_make(steps, TRACE_STEPS, points, TRACE_POINTS);
        opt.trace = &t;
        gjk_result r = gjk_signed_distance(&ga.shape, ga.pose, &gb.shape, gb.pose, NULL, &opt);
        const page_body *ba = &s.bodies[a.body], *bb = &s.bodies[b.body];
        double padding = ba->padding + bb->padding;
        double daemon = daemon_distance(c, &s, &a, &b, req, (size_t)waypoint,
                                        fmax(r.distance - padding, 0.0) + 1.0, &rc);
        data = cJSON_CreateObject();
        cJSON_AddStringToObject(data, "format", "gjkd-trace/1");
        cJSON_AddStringToObject(data, "page", "trace");
        char title[1200];
        cJSON *bodies = page_bodies_json(&s);
        const char *na =
            cJSON_GetObjectItem(cJSON_GetArrayItem(bodies, a.body), "name")->valuestring;
        const char *nb =
            cJSON_GetObjectItem(cJSON_GetArrayItem(bodies, b.body), "name")->valuestring;
        const cJSON *pa = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(bodies, a.body), "parts"), (int)a.part);
        const cJSON *pb = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(bodies, b.body), "parts"), (int)b.part);
        snprintf(title, sizeof title, "%s/%s – %s/%s", na,
                 cJSON_GetObjectItem(pa, "name")->valuestring, nb,
                 cJSON_GetObjectItem(pb, "name")->valuestring);
        cJSON_AddStringToObject(data, "title", title);
        cJSON_AddItemToObject(data, "revision", gjkd_json_uint(s.revision));
        if (req) {
            cJSON_AddStringToObject(data, "trajectory", req->name[0] ? req->name : req->robot);
            cJSON_AddItemToObject(data, "waypoint", gjkd_json_uint(waypoint));
        }
        for (int k = 0; k < 2; k++) {
            const part_geom *g = k ? &gb : &ga;
            cJSON *o = cJSON_AddObjectToObject(data, k ? "b" : "a");
            cJSON_AddStringToObject(o, "name", k ? nb : na);
            cJSON_AddItemToObject(o, "part", cJSON_Duplicate(k ? pb : pa, true));
            cJSON_AddItemToObject(o, "pose", page_pose_json(g->pose));
        }
        cJSON_AddItemToObject(data, "difference", difference_points(&ga, &gb));
        cJSON_AddItemToObject(data, "steps", steps_json(&t, ga.pose));
        cJSON_AddBoolToObject(data, "truncated", t.truncated);
        cJSON_AddItemToObject(data, "inflate", gjkd_json_double(t.inflate));
        cJSON_AddItemToObject(data, "padding", gjkd_json_double(padding));
        cJSON *res = cJSON_AddObjectToObject(data, "result");
        cJSON_AddStringToObject(res, "status", gjk_status_name(r.status));
        cJSON_AddItemToObject(res, "distance", gjkd_json_double(r.distance));
        /* As the daemon reports it: the bodies' paddings subtracted. */
        cJSON_AddItemToObject(res, "padded_distance", gjkd_json_double(r.distance - padding));
        cJSON_AddItemToObject(res, "point_a", vec(r.point_a));
        cJSON_AddItemToObject(res, "point_b", vec(r.point_b));
        cJSON_AddItemToObject(res, "normal", vec(r.normal));
        cJSON_AddItemToObject(res, "lower_bound", gjkd_json_double(r.lower_bound));
        cJSON_AddItemToObject(res, "upper_bound", gjkd_json_double(r.upper_bound));
        cJSON_AddNumberToObject(res, "iterations", r.iterations);
        cJSON_AddNumberToObject(res, "epa_iterations", r.epa_iterations);
        if (isfinite(daemon))
            cJSON_AddItemToObject(data, "daemon_distance", gjkd_json_double(daemon));
        /* The final state's plane: the normal and the direction across it that shows the
         * shapes widest (their centres' offset, made orthogonal to the normal). */
        gjk_vec3 n =
            gjk_length_sq(r.normal) > 0.0 ? r.normal : gjk_normalize(gjk_sub(gb.pose.p, ga.pose.p));
        if (!(gjk_length_sq(n) > 0.0))
            n = gjk_v3(0.0, 0.0, 1.0);
        gjk_vec3 u = gjk_cross(n, gjk_v3(0.0, 0.0, 1.0));
        if (gjk_length(u) < 1e-6)
            u = gjk_cross(n, gjk_v3(1.0, 0.0, 0.0));
        u = gjk_normalize(u);
        cJSON *plane = cJSON_AddObjectToObject(data, "final");
        cJSON_AddItemToObject(plane, "u", vec(u));
        cJSON_AddItemToObject(plane, "n", vec(n));
        cJSON_AddItemToObject(plane, "outline_a", outline(&ga, u, n));
        cJSON_AddItemToObject(plane, "outline_b", outline(&gb, u, n));
        cJSON_Delete(bodies);
        printf("%s: %s, distance %.9g m (%d GJK, %d EPA iterations, %d steps traced)\n", title,
               gjk_status_name(r.status), r.distance - padding, r.iterations, r.epa_iterations,
               t.step_count);
        part_geom_free(&ga);
        part_geom_free(&gb);
    }
    if (rc == 0) {
        rc = page_write(out, data);
        data = NULL;
        if (rc == 0)
            printf("wrote %s\n", out);
    }
    cJSON_Delete(data);
    free(steps);
    free(points);
    free(poses);
    page_scene_free(&s);
    if (req)
        gjkd_json_trajectory_free(&req);
    return rc;
}
