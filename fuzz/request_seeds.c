/* request_seeds.c — writes the seed corpus of fuzz_request: sequences of valid serialized
 * requests (framed as fuzz_request reads them: 16-bit little-endian length, bytes) built
 * from the documents in fuzz/seeds/ with gjkd_json. Run once after the wire or the
 * documents change:
 *   build-fuzz/fuzz/fuzz_request_seeds fuzz/seeds fuzz/corpus/fuzz_request */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "gjkd_json.h"

typedef struct frames {
    uint8_t data[1 << 16];
    size_t size;
} frames;

static void add(frames *f, Gjkd__V1__Request *r, uint64_t id)
{
    r->request_id = id;
    size_t n = gjkd__v1__request__get_packed_size(r);
    if (n > 0xffff || f->size + 2 + n > sizeof f->data) {
        fprintf(stderr, "seed request too large (%zu bytes)\n", n);
        exit(1);
    }
    f->data[f->size++] = (uint8_t)(n & 0xff);
    f->data[f->size++] = (uint8_t)(n >> 8);
    gjkd__v1__request__pack(r, f->data + f->size);
    f->size += n;
}

static void save(const char *dir, const char *name, const frames *f)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "wb");
    if (out == NULL || fwrite(f->data, 1, f->size, out) != f->size || fclose(out) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gjkd_json_error err;
    char *text = gjkd_json_read_file(path, len, &err);
    if (text == NULL) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        exit(1);
    }
    return text;
}

/* The revision a fresh service reaches by loading the scene (what fuzz_request starts
 * from), so the seeds' expected_revision preconditions hold. */
static uint64_t revision_after_load(const Gjkd__V1__Scene *scene)
{
    gjkd_service_def def;
    memset(&def, 0, sizeof def);
    def.limits.max_message_bytes = 1u << 20;
    def.limits.max_points_per_part = 512;
    def.limits.max_parts_per_body = 16;
    def.limits.max_links_per_robot = 16;
    def.limits.max_robots = 4;
    def.limits.max_obstacles = 16;
    def.limits.max_waypoints = 64;
    def.limits.max_pairs_returned = 64;
    def.limits.max_name_length = 64;
    def.limits.max_allowed_pairs = 64;
    def.limits.max_parts = 1024;
    def.query_threads = 1;
    def.worker_threads = 1;
    gjkd_error error;
    gjkd_service *svc = gjkd_service_create(&def, &error);
    size_t n = gjkd__v1__scene__get_packed_size(scene);
    uint8_t *bytes = malloc(n);
    gjkd__v1__scene__pack(scene, bytes);
    if (svc == NULL || !gjkd_service_load_scene(svc, bytes, n, false, &error)) {
        fprintf(stderr, "loading the scene: %s\n", error.message);
        exit(1);
    }
    uint64_t revision = gjkd_service_revision(svc);
    gjkd_service_destroy(&svc);
    free(bytes);
    return revision;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SEED_DOCUMENTS_DIR OUT_DIR\n", argv[0]);
        return 2;
    }
    size_t len;
    gjkd_json_error err;
    char *text = slurp(argv[1], "scene.json", &len);
    Gjkd__V1__Scene *scene = NULL;
    if (!gjkd_json_parse_scene(text, len, &scene, &err)) {
        fprintf(stderr, "scene.json: %s\n", err.message);
        return 1;
    }
    free(text);
    text = slurp(argv[1], "poses.json", &len);
    Gjkd__V1__SetLinkPosesRequest *poses = NULL;
    if (!gjkd_json_parse_poses(text, len, &poses, &err)) {
        fprintf(stderr, "poses.json: %s\n", err.message);
        return 1;
    }
    free(text);
    text = slurp(argv[1], "trajectory.json", &len);
    Gjkd__V1__TrajectoryQueryRequest *traj = NULL;
    if (!gjkd_json_parse_trajectory(text, len, &traj, &err)) {
        fprintf(stderr, "trajectory.json: %s\n", err.message);
        return 1;
    }
    free(text);

    static frames f;
    Gjkd__V1__Request r = GJKD__V1__REQUEST__INIT;
    Gjkd__V1__HealthRequest health = GJKD__V1__HEALTH_REQUEST__INIT;
    Gjkd__V1__StatsRequest stats = GJKD__V1__STATS_REQUEST__INIT;
    Gjkd__V1__SceneSummaryRequest summary = GJKD__V1__SCENE_SUMMARY_REQUEST__INIT;
    Gjkd__V1__QueryOptions closest = GJKD__V1__QUERY_OPTIONS__INIT;
    Gjkd__V1__QueryOptions all = GJKD__V1__QUERY_OPTIONS__INIT;
    Gjkd__V1__StateQueryRequest state = GJKD__V1__STATE_QUERY_REQUEST__INIT;

    /* 1. health, stats, summary with the scene. */
    f.size = 0;
    r.body_case = GJKD__V1__REQUEST__BODY_HEALTH;
    r.health = &health;
    add(&f, &r, 1);
    r.body_case = GJKD__V1__REQUEST__BODY_STATS;
    r.stats = &stats;
    add(&f, &r, 2);
    summary.include_scene = true;
    r.body_case = GJKD__V1__REQUEST__BODY_SCENE_SUMMARY;
    r.scene_summary = &summary;
    add(&f, &r, 3);
    save(argv[2], "seed-health-stats-summary", &f);

    /* 2. poses, then state queries: closest, all within 0.5 m, first collision. */
    f.size = 0;
    r.body_case = GJKD__V1__REQUEST__BODY_SET_LINK_POSES;
    r.set_link_poses = poses;
    add(&f, &r, 10);
    r.body_case = GJKD__V1__REQUEST__BODY_STATE_QUERY;
    state.options = &closest;
    r.state_query = &state;
    add(&f, &r, 11);
    all.mode = GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN;
    all.max_distance_opt_case = GJKD__V1__QUERY_OPTIONS__MAX_DISTANCE_OPT_MAX_DISTANCE;
    all.max_distance = 0.5;
    state.options = &all;
    add(&f, &r, 12);
    all.mode = GJKD__V1__QUERY_MODE__QUERY_MODE_FIRST_COLLISION;
    add(&f, &r, 13);
    save(argv[2], "seed-poses-state", &f);

    /* 3. trajectory twice (the second warm-starts from the named cache). */
    f.size = 0;
    all.mode = GJKD__V1__QUERY_MODE__QUERY_MODE_ALL_WITHIN;
    Gjkd__V1__QueryOptions *parsed_options = traj->options; /* put back before the free */
    traj->options = &all;
    r.body_case = GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY;
    r.trajectory_query = traj;
    add(&f, &r, 20);
    add(&f, &r, 21);
    save(argv[2], "seed-trajectory", &f);
    traj->options = parsed_options;

    /* 4. scene changes with preconditions: put each obstacle again (revision 1 -> ...),
     * put the robot, remove an obstacle, set allowed pairs, a stale precondition. */
    f.size = 0;
    r.precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
    uint64_t rev = revision_after_load(scene);
    for (size_t i = 0; i < scene->n_obstacles; ++i) {
        Gjkd__V1__PutObstacleRequest put = GJKD__V1__PUT_OBSTACLE_REQUEST__INIT;
        put.obstacle = scene->obstacles[i];
        r.body_case = GJKD__V1__REQUEST__BODY_PUT_OBSTACLE;
        r.put_obstacle = &put;
        r.expected_revision = rev++;
        add(&f, &r, 30 + i);
    }
    Gjkd__V1__PutRobotRequest put_robot = GJKD__V1__PUT_ROBOT_REQUEST__INIT;
    put_robot.robot = scene->robots[0];
    r.body_case = GJKD__V1__REQUEST__BODY_PUT_ROBOT;
    r.put_robot = &put_robot;
    r.expected_revision = rev++;
    add(&f, &r, 40);
    r.precondition_case = GJKD__V1__REQUEST__PRECONDITION__NOT_SET;
    Gjkd__V1__SetAllowedPairsRequest allowed = GJKD__V1__SET_ALLOWED_PAIRS_REQUEST__INIT;
    allowed.n_pairs = scene->n_allowed_pairs;
    allowed.pairs = scene->allowed_pairs;
    r.body_case = GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS;
    r.set_allowed_pairs = &allowed;
    add(&f, &r, 41);
    Gjkd__V1__RemoveObstacleRequest remove = GJKD__V1__REMOVE_OBSTACLE_REQUEST__INIT;
    remove.name = scene->obstacles[scene->n_obstacles - 1]->name;
    r.body_case = GJKD__V1__REQUEST__BODY_REMOVE_OBSTACLE;
    r.remove_obstacle = &remove;
    add(&f, &r, 42);
    r.precondition_case = GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION;
    r.expected_revision = 1; /* stale */
    add(&f, &r, 43);
    r.precondition_case = GJKD__V1__REQUEST__PRECONDITION__NOT_SET;
    r.body_case = GJKD__V1__REQUEST__BODY_STATE_QUERY;
    state.options = &closest;
    r.state_query = &state;
    add(&f, &r, 44);
    save(argv[2], "seed-scene-changes", &f);

    /* 5. remove the robot, then query (nothing left to pair). */
    f.size = 0;
    Gjkd__V1__RemoveRobotRequest remove_robot = GJKD__V1__REMOVE_ROBOT_REQUEST__INIT;
    remove_robot.name = scene->robots[0]->name;
    r.body_case = GJKD__V1__REQUEST__BODY_REMOVE_ROBOT;
    r.remove_robot = &remove_robot;
    add(&f, &r, 50);
    r.body_case = GJKD__V1__REQUEST__BODY_STATE_QUERY;
    r.state_query = &state; /* the body is a union: set the member again */
    add(&f, &r, 51);
    save(argv[2], "seed-remove-robot", &f);

    gjkd_json_scene_free(&scene);
    gjkd_json_poses_free(&poses);
    gjkd_json_trajectory_free(&traj);
    return 0;
}
