/* dispatch.c — see dispatch.h. */
#define _POSIX_C_SOURCE 200809L
#include "dispatch.h"
#include "tokens.h"

#include "log.h"
#include "rwlock.h"

#include "gjk/base.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

/* ---------------------------------------------------------------- scene records */

/* The scene as the clients gave it: what a snapshot holds. Each record owns an unpacked copy
 * of the Robot / Obstacle message as accepted. Order is insertion order. */
typedef struct record {
    ProtobufCMessage *msg; /* Gjkd__V1__Robot or Gjkd__V1__Obstacle */
    const char *name;      /* points into msg */
} record;

typedef struct record_list {
    record *items;
    size_t count, capacity;
} record_list;

static ssize_t record_find(const record_list *list, const char *name)
{
    for (size_t i = 0; i < list->count; ++i)
        if (strcmp(list->items[i].name, name) == 0)
            return (ssize_t)i;
    return -1;
}

static bool record_reserve(record_list *list)
{
    if (list->count < list->capacity)
        return true;
    size_t cap = list->capacity > 0 ? 2 * list->capacity : 16;
    record *p = realloc(list->items, cap * sizeof *p);
    if (p == NULL)
        return false;
    list->items = p;
    list->capacity = cap;
    return true;
}

static void record_list_free(record_list *list)
{
    for (size_t i = 0; i < list->count; ++i)
        protobuf_c_message_free_unpacked(list->items[i].msg, NULL);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* Everything a snapshot holds: the robots, the obstacles and the allowed pairs. */
typedef struct scene_records {
    record_list robots;
    record_list obstacles;
    Gjkd__V1__SetAllowedPairsRequest *allowed; /* owned copy, NULL = none */
} scene_records;

static void scene_records_free(scene_records *records)
{
    record_list_free(&records->robots);
    record_list_free(&records->obstacles);
    if (records->allowed != NULL)
        protobuf_c_message_free_unpacked(&records->allowed->base, NULL);
    records->allowed = NULL;
}

/* An owned deep copy of a message (pack + unpack). */
static ProtobufCMessage *copy_message(const ProtobufCMessage *msg)
{
    size_t n = protobuf_c_message_get_packed_size(msg);
    uint8_t *buf = malloc(n > 0 ? n : 1);
    if (buf == NULL)
        return NULL;
    protobuf_c_message_pack(msg, buf);
    ProtobufCMessage *copy = protobuf_c_message_unpack(msg->descriptor, NULL, n, buf);
    free(buf);
    return copy;
}

/* The capacities of the service's worlds (the live one and the scratch ones changes are
 * tried on): the largest the limits can allow (config.h), so the limits alone, checked
 * before anything is written, decide what fits. */
static gjk_world_def service_world_def(void)
{
    gjk_world_def d = gjk_default_world_def();
    d.max_robots = GJKD_CAP_ROBOTS;
    d.max_obstacles = GJKD_CAP_OBSTACLES;
    d.max_parts = GJKD_CAP_PARTS;
    return d;
}

/* ---------------------------------------------------------------- the service */

typedef struct command_counter {
    atomic_uint_fast64_t calls, errors, total_ns, max_ns;
} command_counter;

enum { CODE_SLOTS = 32 };

struct gjkd_service {
    pthread_rwlock_t lock; /* world, records */
    gjk_world *world;
    scene_records records;
    gjkd_store *store;
    _Atomic uint64_t revision;

    pthread_mutex_t limits_lock;
    gjkd_limits limits;
    int32_t query_threads;
    int32_t worker_threads;

    command_counter *counters; /* one per command */
    atomic_uint_fast64_t code_counts[CODE_SLOTS];
    atomic_uint in_flight;
    atomic_uint_fast64_t requests, pose_updates, monitor_events, auth_refused;
    atomic_bool draining;
    atomic_uint queued;
    struct timespec started;

    pthread_mutex_t info_lock; /* last_info: the world figures stats last read */
    gjk_world_info last_info;

    gjkd_tokens *tokens; /* recent change replies by change token */
    gjkd_metrics *metrics; /* replies by command and code, handler times (metrics.h) */
    double started_unix;   /* CLOCK_REALTIME at creation, for the metrics */
};

static double seconds_since(struct timespec t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec);
}

uint64_t gjkd_service_revision(const gjkd_service *service)
{
    return atomic_load(&((gjkd_service *)service)->revision);
}

void gjkd_service_set_limits(gjkd_service *service, const gjkd_limits *limits)
{
    pthread_mutex_lock(&service->limits_lock);
    service->limits = *limits;
    pthread_mutex_unlock(&service->limits_lock);
}

gjkd_limits gjkd_service_limits(gjkd_service *service)
{
    pthread_mutex_lock(&service->limits_lock);
    gjkd_limits l = service->limits;
    pthread_mutex_unlock(&service->limits_lock);
    return l;
}

void gjkd_service_set_draining(gjkd_service *service, bool draining)
{
    atomic_store(&service->draining, draining);
}

void gjkd_service_count_auth_refused(gjkd_service *service)
{
    atomic_fetch_add(&service->auth_refused, 1);
}

/* One request in progress. */
typedef struct request_ctx {
    gjkd_service *svc;
    const Gjkd__V1__Request *req;
    Gjkd__V1__Response *resp;
    gjkd_arena arena;
    gjkd_limits limits;
    ProtobufCMessage *owned; /* freed after the reply is packed */
    bool revision_set;       /* resp->revision was taken under the scene lock */
    bool probe;              /* on the broker's thread: never wait for the scene lock */
    uint64_t deadline_ns;    /* CLOCK_MONOTONIC; 0 = none (gjkd_service_handle_until) */
    int64_t pairs;           /* part pairs the query ran through the narrow phase (metrics) */
} request_ctx;

/* ---------------------------------------------------------------- persistence */

/* The robot record of that name (NULL if none). */
static const Gjkd__V1__Robot *find_robot(const scene_records *records, const char *name)
{
    ssize_t r = record_find(&records->robots, name);
    return r < 0 ? NULL : (const Gjkd__V1__Robot *)records->robots.items[r].msg;
}

static bool robot_has_link(const Gjkd__V1__Robot *robot, const char *link)
{
    for (size_t i = 0; i < robot->n_links; ++i)
        if (strcmp(robot->links[i]->name, link) == 0)
            return true;
    return false;
}

/* The obstacle names of the records, sorted, for lookups in the allowed pairs: with a linear
 * search per pair side every scene change cost pairs x obstacles string compares under the
 * exclusive lock (issue 22: 5.3 s per change with 400,000 pairs). Robots are few (at most 64)
 * and are searched directly. */
typedef struct body_index {
    const scene_records *records;
    const char **obstacles; /* NULL (out of memory): linear search */
    size_t n_obstacles;
} body_index;

static int name_ptr_cmp(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

static body_index body_index_build(const scene_records *records)
{
    body_index ix = {records, NULL, records->obstacles.count};
    ix.obstacles = malloc((ix.n_obstacles + 1) * sizeof *ix.obstacles);
    if (ix.obstacles != NULL) {
        for (size_t i = 0; i < ix.n_obstacles; ++i)
            ix.obstacles[i] = records->obstacles.items[i].name;
        qsort(ix.obstacles, ix.n_obstacles, sizeof *ix.obstacles, name_ptr_cmp);
    }
    return ix;
}

static bool body_exists(const body_index *ix, const Gjkd__V1__BodyRef *b)
{
    if (b == NULL)
        return false;
    if (b->obstacle[0] != '\0')
        return ix->obstacles != NULL ? bsearch(&b->obstacle, ix->obstacles, ix->n_obstacles,
                                               sizeof *ix->obstacles, name_ptr_cmp) != NULL
                                     : record_find(&ix->records->obstacles, b->obstacle) >= 0;
    const Gjkd__V1__Robot *robot = find_robot(ix->records, b->robot);
    return robot != NULL && (b->link[0] == '\0' || robot_has_link(robot, b->link));
}

/* Allowed pairs still naming existing bodies: the world drops the others itself. */
static size_t live_allowed(const scene_records *records, Gjkd__V1__AllowedPair **out)
{
    size_t n = 0;
    if (records->allowed == NULL || records->allowed->n_pairs == 0)
        return 0;
    body_index ix = body_index_build(records);
    for (size_t i = 0; i < records->allowed->n_pairs; ++i) {
        Gjkd__V1__AllowedPair *p = records->allowed->pairs[i];
        if (body_exists(&ix, p->a) && body_exists(&ix, p->b)) {
            if (out != NULL)
                out[n] = p;
            n++;
        }
    }
    free(ix.obstacles);
    return n;
}

/* Packs the scene as the records say, with the given revision. */
static uint8_t *pack_scene(const scene_records *records, uint64_t revision, size_t *size)
{
    Gjkd__V1__Scene scene = GJKD__V1__SCENE__INIT;
    scene.revision = revision;
    scene.n_robots = records->robots.count;
    scene.robots = malloc((records->robots.count + 1) * sizeof *scene.robots);
    scene.n_obstacles = records->obstacles.count;
    scene.obstacles = malloc((records->obstacles.count + 1) * sizeof *scene.obstacles);
    size_t n_allowed = live_allowed(records, NULL);
    scene.allowed_pairs = malloc((n_allowed + 1) * sizeof *scene.allowed_pairs);
    uint8_t *buf = NULL;
    if (scene.robots != NULL && scene.obstacles != NULL && scene.allowed_pairs != NULL) {
        for (size_t i = 0; i < records->robots.count; ++i)
            scene.robots[i] = (Gjkd__V1__Robot *)records->robots.items[i].msg;
        for (size_t i = 0; i < records->obstacles.count; ++i)
            scene.obstacles[i] = (Gjkd__V1__Obstacle *)records->obstacles.items[i].msg;
        scene.n_allowed_pairs = live_allowed(records, scene.allowed_pairs);
        *size = gjkd__v1__scene__get_packed_size(&scene);
        buf = malloc(*size > 0 ? *size : 1);
        if (buf != NULL)
            gjkd__v1__scene__pack(&scene, buf);
    }
    free(scene.robots);
    free(scene.obstacles);
    free(scene.allowed_pairs);
    return buf;
}

/* Writes `records` with `revision` to the store (if there is one). */
static bool persist_records(gjkd_service *svc, const scene_records *records, uint64_t revision,
                            gjkd_error *error)
{
    if (svc->store == NULL)
        return true;
    size_t size = 0;
    uint8_t *buf = pack_scene(records, revision, &size);
    if (buf == NULL)
        return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory packing the scene");
    char err[256];
    gjkd_store_save_result saved = gjkd_store_save(svc->store, buf, size, err, sizeof err);
    free(buf);
    if (saved == GJKD_STORE_FAILED) {
        GJKD_LOG(GJKD_LOG_ERROR, "store_failed", 0, "message=%s", GJKD_Q(err));
        return gjkd_fail(error, GJKD_CODE(STORAGE_FAILED), "%s; the scene is unchanged", err);
    }
    /* The snapshot is in place (a restart loads it): the change goes on, memory follows the
     * disk, and the reply says it was applied. Only its durability failed: logged, counted. */
    if (saved == GJKD_STORE_SAVED_NOT_DURABLE)
        GJKD_LOG(GJKD_LOG_ERROR, "store_not_durable", 0,
                 "revision=%llu not_durable_total=%llu message=%s", (unsigned long long)revision,
                 (unsigned long long)gjkd_store_not_durable(svc->store), GJKD_Q(err));
    return true;
}

/* Writes the service's records (as they are now, tentatively changed) with `revision`. */
static bool persist(gjkd_service *svc, uint64_t revision, gjkd_error *error)
{
    return persist_records(svc, &svc->records, revision, error);
}

/* After a failed world change the disk holds the tentative scene: put the old one back. */
static void persist_rollback(gjkd_service *svc)
{
    gjkd_error ignored;
    if (!persist(svc, atomic_load(&svc->revision), &ignored))
        GJKD_LOG(GJKD_LOG_ERROR, "store_rollback_failed", 0,
                 "the snapshot on disk may hold a change that was refused");
}

/* ---------------------------------------------------------------- scene changes */

/* A name given in a BodyRef field: checked as the names it can match were when they were put
 * (so a bad one gets INVALID_ARGUMENT or RESOURCE_EXHAUSTED naming the field, not NOT_FOUND). */
static bool check_ref_name(const char *name, const char *where, const char *field,
                           const gjkd_limits *limits, gjkd_error *error)
{
    char sub[96];
    snprintf(sub, sizeof sub, "%s.%s", where, field);
    return gjkd_check_name(name, sub, limits, error);
}

/* The form of a BodyRef: robot (and link) or obstacle, and its names checked (unless limits is
 * NULL: pairs stored earlier). */
static bool check_body_ref(const Gjkd__V1__BodyRef *b, const char *where, const gjkd_limits *limits,
                           gjkd_error *error)
{
    if (b == NULL)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: missing", where);
    bool is_obstacle = b->obstacle[0] != '\0';
    bool is_link = b->robot[0] != '\0';
    if (is_obstacle == is_link)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "%s: give either robot (and link) or obstacle", where);
    if (is_obstacle && b->link[0] != '\0')
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "%s.link: given with obstacle (a link belongs to a robot)", where);
    if (limits != NULL) {
        bool named = is_obstacle ? check_ref_name(b->obstacle, where, "obstacle", limits, error)
                                 : check_ref_name(b->robot, where, "robot", limits, error) &&
                                       (b->link[0] == '\0' ||
                                        check_ref_name(b->link, where, "link", limits, error));
        if (!named)
            return false;
    }
    return true;
}

/* Resolves a BodyRef against the world (caller holds the lock): checked (check_body_ref),
 * then looked up. */
static bool resolve_body(gjkd_service *svc, const Gjkd__V1__BodyRef *b, const char *where,
                         const gjkd_limits *limits, gjk_body_id *out, gjkd_error *error)
{
    if (!check_body_ref(b, where, limits, error))
        return false;
    int32_t id;
    if (b->obstacle[0] != '\0') {
        if (gjk_world_find_obstacle(svc->world, b->obstacle, &id) != GJK_WORLD_OK)
            return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s: no obstacle named '%s'", where,
                             b->obstacle);
        *out = gjk_obstacle_body(id);
        return true;
    }
    if (gjk_world_find_robot(svc->world, b->robot, &id) != GJK_WORLD_OK)
        return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s: no robot named '%s'", where, b->robot);
    int32_t link = -1;
    if (b->link[0] != '\0' && gjk_world_find_link(svc->world, id, b->link, &link) != GJK_WORLD_OK)
        return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s: robot '%s' has no link '%s'", where,
                         b->robot, b->link);
    *out = gjk_link_body(id, link);
    return true;
}

/* The reply's revision is the one the request saw (or made), taken under the scene lock: read
 * after the lock is released it could already be a later change's. */
static void note_revision(request_ctx *ctx, uint64_t revision)
{
    if (ctx->resp != NULL) {
        ctx->resp->revision = revision;
        ctx->revision_set = true;
    }
}

/* Makes `revision` the scene's (caller holds the write lock) and the reply's. */
static void commit_revision(request_ctx *ctx, uint64_t revision)
{
    atomic_store(&ctx->svc->revision, revision);
    note_revision(ctx, revision);
}

static bool check_precondition(request_ctx *ctx, gjkd_error *error)
{
    const Gjkd__V1__Request *r = ctx->req;
    uint64_t current = atomic_load(&ctx->svc->revision);
    note_revision(ctx, current);
    if (r->precondition_case == GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION &&
        r->expected_revision != current)
        return gjkd_fail(error, GJKD_CODE(FAILED_PRECONDITION),
                         "expected scene revision %llu, the scene is at %llu",
                         (unsigned long long)r->expected_revision, (unsigned long long)current);
    return true;
}

static Gjkd__V1__ChangeResult *change_result(request_ctx *ctx)
{
    Gjkd__V1__ChangeResult *c = gjkd_arena_alloc(&ctx->arena, sizeof *c);
    gjkd__v1__change_result__init(c);
    ctx->resp->body_case = GJKD__V1__RESPONSE__BODY_CHANGE;
    ctx->resp->change = c;
    return c;
}

/* Prunes the stored allowed pairs to those still naming bodies (after a commit). */
static void prune_allowed(gjkd_service *svc)
{
    Gjkd__V1__SetAllowedPairsRequest *allowed = svc->records.allowed;
    if (allowed == NULL || allowed->n_pairs == 0)
        return;
    body_index ix = body_index_build(&svc->records);
    size_t n = 0;
    for (size_t i = 0; i < allowed->n_pairs; ++i) {
        Gjkd__V1__AllowedPair *p = allowed->pairs[i];
        if (body_exists(&ix, p->a) && body_exists(&ix, p->b))
            allowed->pairs[n++] = p;
        else
            protobuf_c_message_free_unpacked(&p->base, NULL);
    }
    allowed->n_pairs = n;
    free(ix.obstacles);
}

/* The parts of a decoded body (over every link of a robot). */
static int64_t build_parts(bool is_robot, const gjkd_body_build *build)
{
    if (!is_robot)
        return build->obstacle.part_count;
    int64_t parts = 0;
    for (int32_t l = 0; l < build->robot.link_count; ++l)
        parts += build->robot.links[l].part_count;
    return parts;
}

/* The world's own checks of a decoded body, on a scratch world: what it refuses is refused
 * before anything is written (a refusal after the snapshot was written needed a rewrite, and
 * a crash in between left a snapshot no start would load). */
static bool try_body(bool is_robot, const gjkd_body_build *build, const char *name,
                     gjkd_error *error)
{
    gjk_world *scratch = NULL;
    gjk_world_def world_def = service_world_def();
    gjk_status s = gjk_world_create(&world_def, &scratch);
    if (s == GJK_WORLD_OK)
        s = is_robot ? gjk_world_put_robot(scratch, &build->robot, NULL)
                     : gjk_world_put_obstacle(scratch, &build->obstacle, NULL);
    gjk_world_destroy(&scratch);
    if (s != GJK_WORLD_OK)
        return gjkd_fail(error, gjkd_code_from_status(s), "%s '%s': %s",
                         is_robot ? "robot" : "obstacle", name, gjk_status_message(s));
    return true;
}

/* The scene's parts after `name` gets `parts` (caller holds the lock): within max_parts. */
static bool check_parts(gjkd_service *svc, bool is_robot, const char *name, int64_t parts,
                        const gjkd_limits *limits, gjkd_error *error)
{
    gjk_world_info info;
    gjk_world_get_info(svc->world, &info);
    int64_t total = info.part_count + parts;
    int32_t id;
    if (is_robot) {
        gjk_robot_info r;
        if (gjk_world_find_robot(svc->world, name, &id) == GJK_WORLD_OK &&
            gjk_world_robot_info(svc->world, id, &r) == GJK_WORLD_OK)
            total -= r.part_count;
    } else {
        gjk_obstacle_info o;
        if (gjk_world_find_obstacle(svc->world, name, &id) == GJK_WORLD_OK &&
            gjk_world_obstacle_info(svc->world, id, &o) == GJK_WORLD_OK)
            total -= o.part_count;
    }
    if (total > limits->max_parts)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "the scene would have %lld parts, the limit is %u (max-parts)",
                         (long long)total, limits->max_parts);
    return true;
}

/* Put a robot or obstacle: decode and the world's own checks (outside the lock), then under
 * the write lock: limits (counts, parts), record, disk, world, commit. Once the disk has the
 * change, the world can refuse it only for memory. */
static bool put_body(request_ctx *ctx, bool is_robot, const ProtobufCMessage *msg,
                     gjkd_error *error)
{
    gjkd_service *svc = ctx->svc;
    gjkd_body_build build;
    bool decoded =
        is_robot
            ? gjkd_decode_robot((const Gjkd__V1__Robot *)msg, &ctx->limits, &build, error)
            : gjkd_decode_obstacle((const Gjkd__V1__Obstacle *)msg, &ctx->limits, &build, error);
    if (!decoded)
        return false;
    const char *msg_name =
        is_robot ? ((const Gjkd__V1__Robot *)msg)->name : ((const Gjkd__V1__Obstacle *)msg)->name;
    if (!try_body(is_robot, &build, msg_name, error)) {
        gjkd_body_build_release(&build);
        return false;
    }
    ProtobufCMessage *copy = copy_message(msg);
    if (copy == NULL) {
        gjkd_body_build_release(&build);
        return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
    }
    const char *name =
        is_robot ? ((Gjkd__V1__Robot *)copy)->name : ((Gjkd__V1__Obstacle *)copy)->name;
    record_list *list = is_robot ? &svc->records.robots : &svc->records.obstacles;
    bool ok = false, rollback = false;

    pthread_rwlock_wrlock(&svc->lock);
    ssize_t index = record_find(list, name);
    uint32_t limit = is_robot ? ctx->limits.max_robots : ctx->limits.max_obstacles;
    ProtobufCMessage *old = NULL;
    if (!check_precondition(ctx, error))
        goto unlock;
    if (index < 0 && list->count >= limit) {
        gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED), "the scene has %zu %s, the limit is %u",
                  list->count, is_robot ? "robots" : "obstacles", limit);
        goto unlock;
    }
    if (!check_parts(svc, is_robot, name, build_parts(is_robot, &build), &ctx->limits, error))
        goto unlock;
    if (index < 0 && !record_reserve(list)) {
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        goto unlock;
    }
    /* Tentative record change, undone below on failure. */
    if (index >= 0) {
        old = list->items[index].msg;
        list->items[index].msg = copy;
        list->items[index].name = name;
    } else {
        list->items[list->count].msg = copy;
        list->items[list->count].name = name;
        list->count++;
    }
    uint64_t next = atomic_load(&svc->revision) + 1;
    if (!persist(svc, next, error))
        goto undo;
    int32_t id = 0;
    gjk_status s = is_robot ? gjk_world_put_robot(svc->world, &build.robot, &id)
                            : gjk_world_put_obstacle(svc->world, &build.obstacle, &id);
    if (s != GJK_WORLD_OK) {
        gjkd_fail(error, gjkd_code_from_status(s), "%s '%s': %s", is_robot ? "robot" : "obstacle",
                  name, gjk_status_message(s));
        rollback = true; /* after the records are undone, below */
        goto undo;
    }
    commit_revision(ctx, next);
    if (old != NULL)
        protobuf_c_message_free_unpacked(old, NULL);
    prune_allowed(svc);
    Gjkd__V1__ChangeResult *c = change_result(ctx);
    c->id = (uint32_t)id;
    c->replaced = index >= 0;
    c->hull_vertices = build.hull_vertices;
    GJKD_LOG(GJKD_LOG_INFO, is_robot ? "robot_put" : "obstacle_put", ctx->req->request_id,
             "name=%s id=%d revision=%llu replaced=%d", GJKD_Q(name), id, (unsigned long long)next,
             index >= 0);
    ok = true;
    goto unlock;
undo:
    if (index >= 0) {
        list->items[index].msg = old;
        list->items[index].name =
            is_robot ? ((Gjkd__V1__Robot *)old)->name : ((Gjkd__V1__Obstacle *)old)->name;
    } else {
        list->count--;
    }
    if (rollback) /* the world refused: rewrite the old scene over the tentative one */
        persist_rollback(svc);
unlock:
    pthread_rwlock_unlock(&svc->lock);
    if (!ok)
        protobuf_c_message_free_unpacked(copy, NULL);
    gjkd_body_build_release(&build);
    return ok;
}

static bool remove_body(request_ctx *ctx, bool is_robot, const char *name, gjkd_error *error)
{
    gjkd_service *svc = ctx->svc;
    record_list *list = is_robot ? &svc->records.robots : &svc->records.obstacles;
    const char *kind = is_robot ? "robot" : "obstacle";
    if (!gjkd_check_name(name, "name", &ctx->limits, error))
        return false;
    bool ok = false;
    pthread_rwlock_wrlock(&svc->lock);
    if (!check_precondition(ctx, error))
        goto unlock;
    ssize_t index = record_find(list, name);
    int32_t id = 0;
    gjk_status found = is_robot ? gjk_world_find_robot(svc->world, name, &id)
                                : gjk_world_find_obstacle(svc->world, name, &id);
    if (index < 0 || found != GJK_WORLD_OK) {
        gjkd_fail(error, GJKD_CODE(NOT_FOUND), "no %s named '%s'", kind, name);
        goto unlock;
    }
    record removed = list->items[index];
    memmove(&list->items[index], &list->items[index + 1],
            (list->count - (size_t)index - 1) * sizeof *list->items);
    list->count--;
    uint64_t next = atomic_load(&svc->revision) + 1;
    gjk_status s = GJK_WORLD_OK;
    if (persist(svc, next, error)) {
        s = is_robot ? gjk_world_remove_robot(svc->world, id)
                     : gjk_world_remove_obstacle(svc->world, id);
        if (s == GJK_WORLD_OK) {
            ok = true;
        } else {
            gjkd_fail(error, gjkd_code_from_status(s), "%s '%s': %s", kind, name,
                      gjk_status_message(s));
        }
    }
    if (!ok) {
        memmove(&list->items[index + 1], &list->items[index],
                (list->count - (size_t)index) * sizeof *list->items);
        list->items[index] = removed;
        list->count++;
        if (s != GJK_WORLD_OK)
            persist_rollback(svc);
        goto unlock;
    }
    commit_revision(ctx, next);
    protobuf_c_message_free_unpacked(removed.msg, NULL);
    prune_allowed(svc);
    change_result(ctx);
    GJKD_LOG(GJKD_LOG_INFO, is_robot ? "robot_removed" : "obstacle_removed", ctx->req->request_id,
             "name=%s revision=%llu", GJKD_Q(name), (unsigned long long)next);
unlock:
    pthread_rwlock_unlock(&svc->lock);
    return ok;
}

/* Sets the world's allowed pairs from `from` to `to` (either may be NULL); the pairs were
 * checked (check_allowed_pairs), so only memory can run out. Stops at the first failure, or
 * with keep_going (a rollback) goes on past it: a rollback that stopped at the first failure
 * left the old pairs out of the world. Returns the first failure. */
static gjk_status apply_allowed(gjkd_service *svc, const gjk_body_id *from, size_t n_from,
                                const gjk_body_id *to, size_t n_to, bool keep_going)
{
    gjk_status first = GJK_WORLD_OK;
    for (size_t i = 0; i < n_from + n_to && (keep_going || first == GJK_WORLD_OK); ++i) {
        const gjk_body_id *pair = i < n_from ? &from[2 * i] : &to[2 * (i - n_from)];
        gjk_status s = gjk_world_set_allowed(svc->world, pair[0], pair[1], i >= n_from);
        if (first == GJK_WORLD_OK)
            first = s;
    }
    return first;
}

/* Resolves pairs[0..n) against the world into out[2 n]; `field` names them in messages. */
static bool resolve_pairs(gjkd_service *svc, Gjkd__V1__AllowedPair *const *pairs, size_t n,
                          const char *field, const gjkd_limits *limits, gjk_body_id *out,
                          gjkd_error *error)
{
    char where[64];
    for (size_t i = 0; i < n; ++i) {
        snprintf(where, sizeof where, "%s[%zu].a", field, i);
        if (!resolve_body(svc, pairs[i]->a, where, limits, &out[2 * i], error))
            return false;
        snprintf(where, sizeof where, "%s[%zu].b", field, i);
        if (!resolve_body(svc, pairs[i]->b, where, limits, &out[2 * i + 1], error))
            return false;
    }
    return true;
}

/* The DOF values of a JointPositions message for robot `id` (a robot with joints) into q[]
 * (dof_count values): names + positions in any order, the DOF not named keeping `current`
 * (NULL: every DOF must be named), or names empty and a full vector. Names of fixed or mimic
 * joints, unknown and repeated names are refused, naming them. Limits are not checked here. */
static bool decode_joint_vector(const gjk_kinematics *k, const Gjkd__V1__JointPositions *m,
                                const char *where, const char *robot, const double *current,
                                gjkd_arena *arena, double *q, gjkd_error *error)
{
    int32_t dofs = gjk_kinematics_dof_count(k);
    if (m->n_names == 0) {
        if (m->n_positions != (size_t)dofs)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s.positions: %zu values for robot '%s' of %d degrees of freedom "
                             "(give names for a subset)",
                             where, m->n_positions, robot, dofs);
        if (dofs > 0)
            memcpy(q, m->positions, (size_t)dofs * sizeof *q);
        return true;
    }
    if (m->n_names != m->n_positions)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: %zu names but %zu positions",
                         where, m->n_names, m->n_positions);
    int32_t *map = gjkd_arena_alloc(arena, (m->n_names + 1) * sizeof *map);
    int32_t bad = -1;
    gjk_status s =
        gjk_kinematics_map_dofs(k, (const char *const *)m->names, (int32_t)m->n_names, map, &bad);
    if (s == GJK_STATUS_NOT_FOUND)
        return gjkd_fail(error, GJKD_CODE(NOT_FOUND),
                         "%s.names[%d]: no joint named '%s' in robot '%s'", where, bad,
                         m->names[bad], robot);
    if (s != GJK_KINEMATICS_OK)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.names[%d]: joint '%s' given twice",
                         where, bad, m->names[bad]);
    uint8_t *seen = gjkd_arena_alloc(arena, (size_t)dofs + 1);
    for (size_t i = 0; i < m->n_names; ++i) {
        if (map[i] < 0) {
            int32_t joint = -1;
            gjk_joint_info info;
            gjk_kinematics_find_joint(k, m->names[i], &joint);
            gjk_kinematics_joint_info(k, joint, &info);
            if (info.mimic >= 0) {
                gjk_joint_info followed;
                gjk_kinematics_joint_info(k, info.mimic, &followed);
                return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                 "%s.names[%zu]: joint '%s' is a mimic joint: its position follows "
                                 "'%s'",
                                 where, i, m->names[i], followed.name);
            }
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s.names[%zu]: joint '%s' is a fixed joint: it has no position",
                             where, i, m->names[i]);
        }
        q[map[i]] = m->positions[i];
        seen[map[i]] = 1;
    }
    for (int32_t d = 0; d < dofs; ++d) {
        if (seen[d])
            continue;
        if (current == NULL)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s.names: joint '%s' missing",
                             where, gjk_kinematics_dof_names(k)[d]);
        q[d] = current[d];
    }
    return true;
}

/* "joint 'j3': 0.3 is outside its limits [0.05, 0.25]" (or "is not finite") into buf. */
static void joint_refusal(const gjk_kinematics *k, int32_t joint, double value, char *buf,
                          size_t size)
{
    gjk_joint_info info;
    gjk_kinematics_joint_info(k, joint, &info);
    if (!isfinite(value))
        snprintf(buf, size, "joint '%s': %g is not a finite position", info.name, value);
    else
        snprintf(buf, size, "joint '%s': %g is outside its limits [%g, %g]", info.name, value,
                 info.lower, info.upper);
}

/* One robot's new state, decoded and validated. */
typedef struct robot_update {
    int32_t id;
    const gjk_kinematics *kin; /* NULL: link poses */
    int32_t count;             /* links or DOF */
    gjk_transform *poses;
    double *q;
    gjk_transform base;
    bool has_base;
} robot_update;

static bool decode_robot_state(gjkd_service *svc, const Gjkd__V1__RobotState *st, const char *where,
                               gjkd_arena *arena, robot_update *u, gjkd_error *error)
{
    u->kin = gjk_world_robot_kinematics(svc->world, u->id);
    if (u->kin == NULL) {
        if (st->state_case == GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s: robot '%s' has no joints: give link_poses", where, st->robot);
        if (st->state_case != GJKD__V1__ROBOT_STATE__STATE_LINK_POSES)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: no link_poses given", where);
        gjk_robot_info info;
        gjk_world_robot_info(svc->world, u->id, &info);
        u->count = info.link_count;
        u->poses = gjkd_arena_alloc(arena, (size_t)info.link_count * sizeof *u->poses);
        return gjkd_decode_link_poses(st->link_poses, info.link_count, where, u->poses, error);
    }
    if (st->state_case == GJKD__V1__ROBOT_STATE__STATE_LINK_POSES)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "%s: robot '%s' has joints: give joint_positions (its link poses follow)",
                         where, st->robot);
    if (st->state_case != GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: no joint_positions given", where);
    const Gjkd__V1__JointPositions *jp = st->joint_positions;
    u->count = gjk_kinematics_dof_count(u->kin);
    u->q = gjkd_arena_alloc(arena, ((size_t)u->count + 1) * sizeof *u->q);
    double *current = gjkd_arena_alloc(arena, ((size_t)u->count + 1) * sizeof *current);
    gjk_world_joint_positions(svc->world, u->id, current, u->count, &u->base);
    char sub[96];
    snprintf(sub, sizeof sub, "%s.joint_positions", where);
    if (!decode_joint_vector(u->kin, jp, sub, st->robot, current, arena, u->q, error))
        return false;
    if (jp->base_pose != NULL) {
        char field[128];
        snprintf(field, sizeof field, "%s.base_pose", sub);
        if (!gjkd_decode_pose(jp->base_pose, field, &u->base, error))
            return false;
        u->has_base = true;
    }
    /* the limits, as the world checks them: FK on a scratch state */
    gjk_kinematics_state *ks = NULL;
    if (gjk_kinematics_state_create(u->kin, &ks) != GJK_KINEMATICS_OK)
        return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "%s: out of memory", where);
    int32_t bad = -1;
    gjk_status s = gjk_kinematics_forward(u->kin, u->q, u->count, u->base, ks, &bad);
    gjk_kinematics_state_destroy(&ks);
    if (s != GJK_KINEMATICS_OK) {
        char why[400];
        gjk_joint_info info;
        gjk_kinematics_joint_info(u->kin, bad, &info);
        joint_refusal(u->kin, bad, bad >= 0 ? u->q[info.dof] : 0.0, why, sizeof why);
        return gjkd_fail(error, GJKD_CODE(INVALID_INPUT), "%s: %s", sub,
                         bad >= 0 ? why : "invalid state");
    }
    return true;
}

/* Validates every robot state, then applies them all (caller holds the write lock). */
static bool apply_robot_states(gjkd_service *svc, Gjkd__V1__RobotState *const *states, size_t n,
                               gjkd_arena *arena, gjkd_error *error)
{
    robot_update *u = gjkd_arena_alloc(arena, (n + 1) * sizeof *u);
    char where[64];
    if (n == 0)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robots: no robot state given");
    for (size_t i = 0; i < n; ++i) {
        const Gjkd__V1__RobotState *st = states[i];
        snprintf(where, sizeof where, "robots[%zu]", i);
        if (gjk_world_find_robot(svc->world, st->robot, &u[i].id) != GJK_WORLD_OK)
            return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s: no robot named '%s'", where,
                             st->robot);
        for (size_t j = 0; j < i; ++j)
            if (u[j].id == u[i].id)
                return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: robot '%s' given twice",
                                 where, st->robot);
        if (!decode_robot_state(svc, st, where, arena, &u[i], error))
            return false;
    }
    for (size_t i = 0; i < n; ++i) {
        gjk_status s =
            u[i].kin ? gjk_world_set_joint_positions(svc->world, u[i].id, NULL, u[i].q, u[i].count,
                                                     u[i].has_base ? &u[i].base : NULL, NULL)
                     : gjk_world_set_link_poses(svc->world, u[i].id, u[i].poses, u[i].count);
        if (s != GJK_WORLD_OK) /* validated above: a world bug */
            return gjkd_fail(error, GJKD_CODE(INTERNAL), "robots[%zu]: %s", i,
                             gjk_status_message(s));
    }
    return true;
}

/* ---------------------------------------------------------------- scene loads */

/* A whole scene document as one change (LoadSceneRequest, and the scene loaded at start):
 *
 * 1. Outside the lock, from the document alone: every body is copied (the record to keep) and
 *    decoded (limits, hulls), no name comes twice within its kind, and every body is put into
 *    a scratch world, so that whatever the world itself refuses is refused here, naming the
 *    element ("obstacles[3] \"shelf\": ...").
 * 2. Under the write lock: the precondition, the limits on the scene that results (bodies,
 *    parts), every allowed pair naming a body of that scene; then the records of that scene
 *    are built beside the live ones (sharing the messages of the bodies that stay) and written
 *    to the store. A failure up to here changes nothing, in memory or on disk.
 * 3. Still under the lock, the world is brought to the new scene in place, so that bodies that
 *    stay or are replaced keep their ids: the old allowed pairs are cleared, bodies the
 *    document does not name are removed (without merge), the document's bodies are put (those
 *    that shrink first, so that the part count never exceeds the larger of the old and the new
 *    scene's), the new allowed pairs are set. These calls can refuse nothing that 1 and 2 did
 *    not check; what is left is memory running out half-way, with the new scene already on
 *    disk: the daemon then aborts, as it does when a reply cannot be allocated, and a restart
 *    has the new scene. Last, the new records replace the old ones and the revision moves once.
 *    The world drops its named-trajectory caches on every put and remove. */

typedef struct load_body {
    ProtobufCMessage *copy; /* the Robot / Obstacle record; owned until committed */
    const char *name;       /* points into copy */
    gjkd_body_build build;  /* decoded from copy */
    int64_t parts;          /* parts of the body (over all links of a robot) */
    int32_t live_id;        /* the live body of that name, 0 if none (read under the lock) */
    int64_t live_parts;     /* its parts */
} load_body;

typedef struct name_ref {
    const char *name;
    size_t index;
} name_ref;

/* The robots or the obstacles of a document. */
typedef struct load_kind {
    const char *field; /* "robots" / "obstacles" */
    bool is_robot;
    load_body *bodies; /* in document order */
    size_t count;
    name_ref *by_name; /* bodies sorted by name (then index) */
} load_kind;

typedef struct scene_load {
    load_kind robots, obstacles;
    bool merge;
    bool replace_allowed;                      /* the allowed list becomes the document's */
    Gjkd__V1__SetAllowedPairsRequest *allowed; /* the document's pairs; owned until committed */
    scene_records next;                        /* the records after the load (arrays owned,
                                                  messages borrowed from bodies / live) */
    bool committed;
} scene_load;

static int name_ref_cmp(const void *pa, const void *pb)
{
    const name_ref *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

/* The index of the document body of that name, -1 if none. */
static ssize_t load_find(const load_kind *k, const char *name)
{
    size_t lo = 0, hi = k->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(k->by_name[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->count && strcmp(k->by_name[lo].name, name) == 0 ? (ssize_t)k->by_name[lo].index
                                                                   : -1;
}

/* Prefixes error's message with the document element: `obstacles[3] "shelf": `. */
static bool fail_element(gjkd_error *error, const char *field, size_t index, const char *name)
{
    char inner[sizeof error->message];
    snprintf(inner, sizeof inner, "%s", error->message);
    return gjkd_fail(error, error->code, "%s[%zu] \"%.64s\": %s", field, index, name, inner);
}

/* Step 1 for one kind: copy, decode, check the names are unique. */
static bool load_decode(const Gjkd__V1__Scene *scene, const gjkd_limits *limits, load_kind *k,
                        gjkd_error *error)
{
    size_t n = k->is_robot ? scene->n_robots : scene->n_obstacles;
    uint32_t limit = k->is_robot ? limits->max_robots : limits->max_obstacles;
    if (n > limit)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "%s: the document has %zu, the limit is %u", k->field, n, limit);
    k->bodies = calloc(n + 1, sizeof *k->bodies);
    k->by_name = malloc((n + 1) * sizeof *k->by_name);
    if (k->bodies == NULL || k->by_name == NULL)
        return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
    for (size_t i = 0; i < n; ++i) {
        load_body *b = &k->bodies[i];
        b->copy = copy_message(k->is_robot ? &scene->robots[i]->base : &scene->obstacles[i]->base);
        if (b->copy == NULL)
            return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        k->count = i + 1;
        const Gjkd__V1__Robot *robot = (const Gjkd__V1__Robot *)b->copy;
        const Gjkd__V1__Obstacle *obstacle = (const Gjkd__V1__Obstacle *)b->copy;
        b->name = k->is_robot ? robot->name : obstacle->name;
        bool decoded = k->is_robot ? gjkd_decode_robot(robot, limits, &b->build, error)
                                   : gjkd_decode_obstacle(obstacle, limits, &b->build, error);
        if (!decoded)
            return fail_element(error, k->field, i, b->name);
        b->parts = build_parts(k->is_robot, &b->build);
        k->by_name[i] = (name_ref){b->name, i};
    }
    qsort(k->by_name, n, sizeof *k->by_name, name_ref_cmp);
    /* Of the bodies whose name an earlier one has, the first in document order. */
    size_t twice = n, first = 0;
    for (size_t j = 1; j < n; ++j) {
        if (strcmp(k->by_name[j - 1].name, k->by_name[j].name) == 0 &&
            k->by_name[j].index < twice) {
            twice = k->by_name[j].index;
            first = k->by_name[j - 1].index;
        }
    }
    if (twice < n) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "duplicate name (also %s[%zu])", k->field,
                  first);
        return fail_element(error, k->field, twice, k->bodies[twice].name);
    }
    return true;
}

/* Step 1, last: the world's own checks, on a scratch world holding the document's bodies. */
static bool load_dry_run(const scene_load *load, gjkd_error *error)
{
    gjk_world *scratch = NULL;
    gjk_world_def world_def = service_world_def();
    gjk_status s = gjk_world_create(&world_def, &scratch);
    if (s != GJK_WORLD_OK)
        return gjkd_fail(error, gjkd_code_from_status(s),
                         "cannot create a world to check the "
                         "scene in: %s",
                         gjk_status_message(s));
    bool ok = true;
    const load_kind *kinds[2] = {&load->robots, &load->obstacles};
    for (int k = 0; ok && k < 2; ++k) {
        for (size_t i = 0; ok && i < kinds[k]->count; ++i) {
            const load_body *b = &kinds[k]->bodies[i];
            s = kinds[k]->is_robot ? gjk_world_put_robot(scratch, &b->build.robot, NULL)
                                   : gjk_world_put_obstacle(scratch, &b->build.obstacle, NULL);
            if (s != GJK_WORLD_OK) {
                gjkd_fail(error, gjkd_code_from_status(s), "%s", gjk_status_message(s));
                ok = fail_element(error, kinds[k]->field, i, b->name);
            }
        }
    }
    gjk_world_destroy(&scratch);
    return ok;
}

/* The live body of each document body's name (caller holds the lock). */
static void load_match_live(gjkd_service *svc, scene_load *load)
{
    for (size_t i = 0; i < load->robots.count; ++i) {
        load_body *b = &load->robots.bodies[i];
        gjk_robot_info info;
        if (gjk_world_find_robot(svc->world, b->name, &b->live_id) == GJK_WORLD_OK &&
            gjk_world_robot_info(svc->world, b->live_id, &info) == GJK_WORLD_OK)
            b->live_parts = info.part_count;
        else
            b->live_id = 0;
    }
    for (size_t i = 0; i < load->obstacles.count; ++i) {
        load_body *b = &load->obstacles.bodies[i];
        gjk_obstacle_info info;
        if (gjk_world_find_obstacle(svc->world, b->name, &b->live_id) == GJK_WORLD_OK &&
            gjk_world_obstacle_info(svc->world, b->live_id, &info) == GJK_WORLD_OK)
            b->live_parts = info.part_count;
        else
            b->live_id = 0;
    }
}

/* Limits on the scene that results (caller holds the lock). The document's own counts were
 * checked by load_decode; a merge adds the live bodies it does not replace; max_parts bounds
 * the total. */
static bool load_check_limits(gjkd_service *svc, const scene_load *load, const gjkd_limits *limits,
                              gjkd_error *error)
{
    gjk_world_info info;
    gjk_world_get_info(svc->world, &info);
    int64_t parts = load->merge ? info.part_count : 0;
    const load_kind *kinds[2] = {&load->robots, &load->obstacles};
    for (int k = 0; k < 2; ++k) {
        size_t added = 0;
        for (size_t i = 0; i < kinds[k]->count; ++i) {
            const load_body *b = &kinds[k]->bodies[i];
            parts += b->parts - (load->merge ? b->live_parts : 0);
            added += b->live_id == 0;
        }
        if (!load->merge || added == 0)
            continue;
        const record_list *live =
            kinds[k]->is_robot ? &svc->records.robots : &svc->records.obstacles;
        uint32_t limit = kinds[k]->is_robot ? limits->max_robots : limits->max_obstacles;
        if (live->count + added > limit)
            return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                             "%s: the scene has %zu and the document adds %zu, the limit is %u",
                             kinds[k]->field, live->count, added, limit);
    }
    if (parts > limits->max_parts)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "the scene would have %lld parts, the limit is %u (max-parts)",
                         (long long)parts, limits->max_parts);
    return true;
}

/* A BodyRef (already checked) names a body of the scene after the load: one of the document,
 * or with merge one of the live scene (caller holds the lock). */
static bool load_body_exists(gjkd_service *svc, const scene_load *load, const Gjkd__V1__BodyRef *b,
                             const char *where, gjkd_error *error)
{
    if (b->obstacle[0] != '\0') {
        int32_t id;
        if (load_find(&load->obstacles, b->obstacle) >= 0 ||
            (load->merge && gjk_world_find_obstacle(svc->world, b->obstacle, &id) == GJK_WORLD_OK))
            return true;
        return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s: no obstacle named '%s'", where,
                         b->obstacle);
    }
    ssize_t i = load_find(&load->robots, b->robot);
    const Gjkd__V1__Robot *robot = i >= 0 ? (const Gjkd__V1__Robot *)load->robots.bodies[i].copy
                                   : load->merge ? find_robot(&svc->records, b->robot)
                                                 : NULL;
    if (robot == NULL)
        return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s: no robot named '%s'", where, b->robot);
    if (b->link[0] != '\0' && !robot_has_link(robot, b->link))
        return gjkd_fail(error, GJKD_CODE(NOT_FOUND), "%s: robot '%s' has no link '%s'", where,
                         b->robot, b->link);
    return true;
}

/* One side of a pair, for messages: obstacle "x", robot "r" link "l", robot "r". */
static void describe_body(const Gjkd__V1__BodyRef *b, char *out, size_t cap)
{
    char q1[GJKD_LOG_QUOTE_BYTES], q2[GJKD_LOG_QUOTE_BYTES];
    if (b->obstacle[0] != '\0')
        snprintf(out, cap, "obstacle %s", gjkd_quote(q1, sizeof q1, b->obstacle));
    else if (b->link[0] != '\0')
        snprintf(out, cap, "robot %s link %s", gjkd_quote(q1, sizeof q1, b->robot),
                 gjkd_quote(q2, sizeof q2, b->link));
    else
        snprintf(out, cap, "robot %s", gjkd_quote(q1, sizeof q1, b->robot));
}

/* The one check of a list of allowed pairs, for SetAllowedPairs (load: no document, merge: the
 * live scene) and for a scene document's pairs (against the scene after the load); caller
 * holds the lock. Everything the world's own set_allowed could refuse is refused here first,
 * so that applying the pairs afterwards can fail only for memory: the count against
 * max_allowed_pairs (RESOURCE_EXHAUSTED), each side's form and names, that it names a body
 * (NOT_FOUND), and no body paired with itself (INVALID_ARGUMENT). `field` names the list. */
static bool check_pair_count(size_t n, const char *field, const gjkd_limits *limits,
                             gjkd_error *error)
{
    if (n > limits->max_allowed_pairs)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                         "%s: %zu allowed pairs, the limit is %u (max-allowed-pairs)", field, n,
                         limits->max_allowed_pairs);
    return true;
}

static bool check_allowed_pairs(gjkd_service *svc, const scene_load *load,
                                Gjkd__V1__AllowedPair *const *pairs, size_t n, const char *field,
                                const gjkd_limits *limits, gjkd_error *error)
{
    if (!check_pair_count(n, field, limits, error))
        return false;
    char where[64];
    for (size_t i = 0; i < n; ++i) {
        const Gjkd__V1__AllowedPair *p = pairs[i];
        snprintf(where, sizeof where, "%s[%zu].a", field, i);
        if (!check_body_ref(p->a, where, limits, error) ||
            !load_body_exists(svc, load, p->a, where, error))
            return false;
        snprintf(where, sizeof where, "%s[%zu].b", field, i);
        if (!check_body_ref(p->b, where, limits, error) ||
            !load_body_exists(svc, load, p->b, where, error))
            return false;
        if (strcmp(p->a->robot, p->b->robot) == 0 && strcmp(p->a->link, p->b->link) == 0 &&
            strcmp(p->a->obstacle, p->b->obstacle) == 0) {
            char body[2 * GJKD_LOG_QUOTE_BYTES];
            describe_body(p->a, body, sizeof body);
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "%s[%zu]: a body paired with itself (%s)", field, i, body);
        }
    }
    return true;
}

static bool set_allowed_pairs(request_ctx *ctx, const Gjkd__V1__SetAllowedPairsRequest *m,
                              gjkd_error *error)
{
    gjkd_service *svc = ctx->svc;
    if (!check_pair_count(m->n_pairs, "pairs", &ctx->limits, error)) /* before copying them */
        return false;
    Gjkd__V1__SetAllowedPairsRequest *copy =
        (Gjkd__V1__SetAllowedPairsRequest *)copy_message(&m->base);
    if (copy == NULL)
        return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
    bool ok = false;
    gjk_body_id *to = malloc((2 * m->n_pairs + 1) * sizeof *to);
    gjk_body_id *from = NULL;
    scene_load live; /* no document, merged: the pairs are checked against the live scene */
    memset(&live, 0, sizeof live);
    live.merge = true;
    pthread_rwlock_wrlock(&svc->lock);
    size_t n_from = live_allowed(&svc->records, NULL);
    from = malloc((2 * n_from + 1) * sizeof *from);
    Gjkd__V1__AllowedPair **old_pairs = malloc((n_from + 1) * sizeof *old_pairs);
    if (to == NULL || from == NULL || old_pairs == NULL) {
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        goto unlock;
    }
    live_allowed(&svc->records, old_pairs);
    if (!check_precondition(ctx, error) ||
        !check_allowed_pairs(svc, &live, m->pairs, m->n_pairs, "pairs", &ctx->limits, error))
        goto unlock;
    gjkd_error internal;
    if (!resolve_pairs(svc, m->pairs, m->n_pairs, "pairs", NULL, to, &internal) ||
        !resolve_pairs(svc, old_pairs, n_from, "pairs", NULL, from, &internal)) {
        gjkd_fail(error, GJKD_CODE(INTERNAL), "allowed pairs do not resolve: %s", internal.message);
        goto unlock;
    }
    Gjkd__V1__SetAllowedPairsRequest *old = svc->records.allowed;
    svc->records.allowed = copy;
    uint64_t next = atomic_load(&svc->revision) + 1;
    if (!persist(svc, next, error)) {
        svc->records.allowed = old;
        goto unlock;
    }
    gjk_status s = apply_allowed(svc, from, n_from, to, m->n_pairs, false);
    if (s != GJK_WORLD_OK) { /* out of memory: back to the old set, every pair of it */
        apply_allowed(svc, to, m->n_pairs, from, n_from, true);
        svc->records.allowed = old;
        persist_rollback(svc);
        gjkd_fail(error, gjkd_code_from_status(s), "allowed pairs: %s; the scene is unchanged",
                  gjk_status_message(s));
        goto unlock;
    }
    commit_revision(ctx, next);
    if (old != NULL)
        protobuf_c_message_free_unpacked(&old->base, NULL);
    copy = NULL;
    change_result(ctx);
    GJKD_LOG(GJKD_LOG_INFO, "allowed_pairs_set", ctx->req->request_id,
             "allowed_pairs=%zu revision=%llu", m->n_pairs, (unsigned long long)next);
    ok = true;
unlock:
    pthread_rwlock_unlock(&svc->lock);
    if (copy != NULL)
        protobuf_c_message_free_unpacked(&copy->base, NULL);
    free(to);
    free(from);
    free(old_pairs);
    return ok;
}

/* The records of the scene after the load, beside the live ones (caller holds the lock):
 * without merge the document's bodies in its order; with merge the live records in their
 * order, each replaced in place by the document's body of its name, then the document's other
 * bodies in its order (as a put would place them). */
static bool load_build_records(gjkd_service *svc, scene_load *load, gjkd_error *error)
{
    load_kind *kinds[2] = {&load->robots, &load->obstacles};
    for (int k = 0; k < 2; ++k) {
        const load_kind *doc = kinds[k];
        const record_list *live = doc->is_robot ? &svc->records.robots : &svc->records.obstacles;
        record_list *next = doc->is_robot ? &load->next.robots : &load->next.obstacles;
        size_t capacity = (load->merge ? live->count : 0) + doc->count;
        next->items = malloc((capacity + 1) * sizeof *next->items);
        if (next->items == NULL)
            return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        next->capacity = capacity + 1;
        bool *placed = calloc(doc->count + 1, sizeof *placed);
        if (placed == NULL)
            return gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        for (size_t j = 0; load->merge && j < live->count; ++j) {
            ssize_t d = load_find(doc, live->items[j].name);
            if (d >= 0) {
                next->items[next->count++] = (record){doc->bodies[d].copy, doc->bodies[d].name};
                placed[d] = true;
            } else {
                next->items[next->count++] = live->items[j];
            }
        }
        for (size_t i = 0; i < doc->count; ++i)
            if (!placed[i])
                next->items[next->count++] = (record){doc->bodies[i].copy, doc->bodies[i].name};
        free(placed);
    }
    load->next.allowed = load->replace_allowed ? load->allowed : svc->records.allowed;
    return true;
}

/* A world call of step 3 failed: out of memory half-way (see the top of this section). */
static void load_apply_failed(gjkd_service *svc, const char *what, gjk_status s)
{
    GJKD_LOG(GJKD_LOG_ERROR, "load_apply_failed", 0,
             "at=%s status=%s scene=%s message=\"the world is half-way to the new scene: "
             "aborting\"",
             GJKD_Q(what), GJKD_Q(gjk_status_message(s)),
             svc->store != NULL ? "already_on_disk" : "not_persisted");
    abort();
}

/* Step 3 (caller holds the write lock): from[] are the live allowed pairs, to[] room for the
 * document's. */
static void load_apply(gjkd_service *svc, const scene_load *load, const gjk_body_id *from,
                       size_t n_from, gjk_body_id *to)
{
    gjk_status s;
    if (load->replace_allowed &&
        (s = apply_allowed(svc, from, n_from, NULL, 0, false)) != GJK_WORLD_OK)
        load_apply_failed(svc, "clearing the allowed pairs", s);
    const load_kind *kinds[2] = {&load->robots, &load->obstacles};
    for (int k = 0; !load->merge && k < 2; ++k) {
        const record_list *live =
            kinds[k]->is_robot ? &svc->records.robots : &svc->records.obstacles;
        for (size_t j = 0; j < live->count; ++j) {
            if (load_find(kinds[k], live->items[j].name) >= 0)
                continue;
            int32_t id = 0;
            if (kinds[k]->is_robot) {
                s = gjk_world_find_robot(svc->world, live->items[j].name, &id);
                if (s == GJK_WORLD_OK)
                    s = gjk_world_remove_robot(svc->world, id);
            } else {
                s = gjk_world_find_obstacle(svc->world, live->items[j].name, &id);
                if (s == GJK_WORLD_OK)
                    s = gjk_world_remove_obstacle(svc->world, id);
            }
            if (s != GJK_WORLD_OK)
                load_apply_failed(svc, live->items[j].name, s);
        }
    }
    /* Pass 0: replacements that shrink; pass 1: the others, additions in document order. */
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k < 2; ++k) {
            for (size_t i = 0; i < kinds[k]->count; ++i) {
                const load_body *b = &kinds[k]->bodies[i];
                bool shrinks = b->live_id != 0 && b->parts <= b->live_parts;
                if (shrinks != (pass == 0))
                    continue;
                s = kinds[k]->is_robot
                        ? gjk_world_put_robot(svc->world, &b->build.robot, NULL)
                        : gjk_world_put_obstacle(svc->world, &b->build.obstacle, NULL);
                if (s != GJK_WORLD_OK)
                    load_apply_failed(svc, b->name, s);
            }
        }
    }
    if (load->allowed != NULL) {
        gjkd_error unresolved;
        if (!resolve_pairs(svc, load->allowed->pairs, load->allowed->n_pairs, "allowed_pairs", NULL,
                           to, &unresolved))
            load_apply_failed(svc, unresolved.message, GJK_STATUS_NOT_FOUND);
        if ((s = apply_allowed(svc, NULL, 0, to, load->allowed->n_pairs, false)) != GJK_WORLD_OK)
            load_apply_failed(svc, "setting the allowed pairs", s);
    }
}

/* The new records replace the live ones (caller holds the write lock). */
static void load_commit(gjkd_service *svc, scene_load *load)
{
    load_kind *kinds[2] = {&load->robots, &load->obstacles};
    for (int k = 0; k < 2; ++k) {
        record_list *live = kinds[k]->is_robot ? &svc->records.robots : &svc->records.obstacles;
        record_list *next = kinds[k]->is_robot ? &load->next.robots : &load->next.obstacles;
        for (size_t j = 0; j < live->count; ++j) /* bodies removed or replaced */
            if (!load->merge || load_find(kinds[k], live->items[j].name) >= 0)
                protobuf_c_message_free_unpacked(live->items[j].msg, NULL);
        free(live->items);
        *live = *next;
        memset(next, 0, sizeof *next);
    }
    if (load->replace_allowed) {
        if (svc->records.allowed != NULL)
            protobuf_c_message_free_unpacked(&svc->records.allowed->base, NULL);
        svc->records.allowed = load->allowed;
        load->allowed = NULL;
    }
    load->committed = true; /* the copies belong to the records now */
}

static void scene_load_release(scene_load *load)
{
    load_kind *kinds[2] = {&load->robots, &load->obstacles};
    for (int k = 0; k < 2; ++k) {
        for (size_t i = 0; i < kinds[k]->count; ++i) {
            gjkd_body_build_release(&kinds[k]->bodies[i].build);
            if (!load->committed)
                protobuf_c_message_free_unpacked(kinds[k]->bodies[i].copy, NULL);
        }
        free(kinds[k]->bodies);
        free(kinds[k]->by_name);
    }
    free(load->next.robots.items);
    free(load->next.obstacles.items);
    if (load->allowed != NULL)
        protobuf_c_message_free_unpacked(&load->allowed->base, NULL);
}

/* Loads `scene` as one change (see the top of this section). document_revision: take the
 * document's revision (a scene loaded at start; the current one if it has none) instead of
 * the current one plus one. persist_it: write the new scene to the store (if there is one). */
static bool load_scene(request_ctx *ctx, const Gjkd__V1__Scene *scene, bool merge,
                       bool document_revision, bool persist_it, gjkd_error *error)
{
    gjkd_service *svc = ctx->svc;
    scene_load load;
    memset(&load, 0, sizeof load);
    load.robots.field = "robots";
    load.robots.is_robot = true;
    load.obstacles.field = "obstacles";
    load.merge = merge;
    load.replace_allowed = !merge || scene->n_allowed_pairs > 0;
    gjk_body_id *from = NULL, *to = NULL;
    Gjkd__V1__AllowedPair **old_pairs = NULL;
    bool ok = false, locked = false;
    if (!load_decode(scene, &ctx->limits, &load.robots, error) ||
        !load_decode(scene, &ctx->limits, &load.obstacles, error) || !load_dry_run(&load, error))
        goto done;
    if (!check_pair_count(scene->n_allowed_pairs, "allowed_pairs", &ctx->limits, error))
        goto done;
    if (scene->n_allowed_pairs > 0) {
        Gjkd__V1__SetAllowedPairsRequest pairs = GJKD__V1__SET_ALLOWED_PAIRS_REQUEST__INIT;
        pairs.n_pairs = scene->n_allowed_pairs;
        pairs.pairs = scene->allowed_pairs;
        load.allowed = (Gjkd__V1__SetAllowedPairsRequest *)copy_message(&pairs.base);
        to = malloc(2 * scene->n_allowed_pairs * sizeof *to);
        if (load.allowed == NULL || to == NULL) {
            gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
            goto done;
        }
    }

    pthread_rwlock_wrlock(&svc->lock);
    locked = true;
    if (!check_precondition(ctx, error))
        goto done;
    load_match_live(svc, &load);
    if (!load_check_limits(svc, &load, &ctx->limits, error) ||
        (load.allowed != NULL &&
         !check_allowed_pairs(svc, &load, load.allowed->pairs, load.allowed->n_pairs,
                              "allowed_pairs", &ctx->limits, error)) ||
        !load_build_records(svc, &load, error))
        goto done;
    size_t n_from = 0;
    if (load.replace_allowed) {
        n_from = live_allowed(&svc->records, NULL);
        from = malloc((2 * n_from + 1) * sizeof *from);
        old_pairs = malloc((n_from + 1) * sizeof *old_pairs);
        if (from == NULL || old_pairs == NULL) {
            gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
            goto done;
        }
        live_allowed(&svc->records, old_pairs);
        gjkd_error internal;
        if (!resolve_pairs(svc, old_pairs, n_from, "pairs", NULL, from, &internal)) {
            gjkd_fail(error, GJKD_CODE(INTERNAL), "stored allowed pairs do not resolve: %s",
                      internal.message);
            goto done;
        }
    }
    uint64_t current = atomic_load(&svc->revision);
    uint64_t next = !document_revision    ? current + 1
                    : scene->revision > 0 ? scene->revision
                                          : current;
    if (persist_it && !persist_records(svc, &load.next, next, error))
        goto done;

    load_apply(svc, &load, from, n_from, to);
    bool replaced = false;
    uint32_t hull_vertices = 0;
    load_kind *kinds[2] = {&load.robots, &load.obstacles};
    for (int k = 0; k < 2; ++k) {
        for (size_t i = 0; i < kinds[k]->count; ++i) {
            replaced = replaced || kinds[k]->bodies[i].live_id != 0;
            hull_vertices += kinds[k]->bodies[i].build.hull_vertices;
        }
    }
    load_commit(svc, &load);
    prune_allowed(svc);
    commit_revision(ctx, next);
    if (ctx->resp != NULL) {
        Gjkd__V1__ChangeResult *c = change_result(ctx);
        c->replaced = replaced;
        c->hull_vertices = hull_vertices;
        GJKD_LOG(GJKD_LOG_INFO, merge ? "scene_merged" : "scene_replaced", ctx->req->request_id,
                 "robots=%zu obstacles=%zu allowed_pairs=%zu revision=%llu", load.robots.count,
                 load.obstacles.count, scene->n_allowed_pairs, (unsigned long long)next);
    }
    ok = true;
done:
    if (locked)
        pthread_rwlock_unlock(&svc->lock);
    scene_load_release(&load);
    free(from);
    free(to);
    free(old_pairs);
    return ok;
}

/* ---------------------------------------------------------------- handlers */

static bool handle_health(request_ctx *ctx, gjkd_error *error)
{
    if (!check_precondition(ctx, error))
        return false;
    Gjkd__V1__HealthResponse *h = gjkd_arena_alloc(&ctx->arena, sizeof *h);
    gjkd__v1__health_response__init(h);
    h->state = atomic_load(&ctx->svc->draining) ? GJKD__V1__SERVING_STATE__SERVING_STATE_DRAINING
                                                : GJKD__V1__SERVING_STATE__SERVING_STATE_SERVING;
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", GJK_VERSION_MAJOR, GJK_VERSION_MINOR,
             GJK_VERSION_PATCH);
    h->version = gjkd_arena_strdup(&ctx->arena, version);
    h->uptime_seconds = seconds_since(ctx->svc->started);
    h->revision = atomic_load(&ctx->svc->revision);
    h->persistent = ctx->svc->store != NULL;
    ctx->resp->body_case = GJKD__V1__RESPONSE__BODY_HEALTH;
    ctx->resp->health = h;
    return true;
}

static bool handle_put_robot(request_ctx *ctx, gjkd_error *error)
{
    const Gjkd__V1__PutRobotRequest *m = ctx->req->put_robot;
    if (m->robot == NULL)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "robot: missing");
    return put_body(ctx, true, &m->robot->base, error);
}

static bool handle_put_obstacle(request_ctx *ctx, gjkd_error *error)
{
    const Gjkd__V1__PutObstacleRequest *m = ctx->req->put_obstacle;
    if (m->obstacle == NULL)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "obstacle: missing");
    return put_body(ctx, false, &m->obstacle->base, error);
}

static bool handle_remove_robot(request_ctx *ctx, gjkd_error *error)
{
    return remove_body(ctx, true, ctx->req->remove_robot->name, error);
}

static bool handle_remove_obstacle(request_ctx *ctx, gjkd_error *error)
{
    return remove_body(ctx, false, ctx->req->remove_obstacle->name, error);
}

static bool handle_set_allowed_pairs(request_ctx *ctx, gjkd_error *error)
{
    return set_allowed_pairs(ctx, ctx->req->set_allowed_pairs, error);
}

static bool handle_load_scene(request_ctx *ctx, gjkd_error *error)
{
    const Gjkd__V1__LoadSceneRequest *m = ctx->req->load_scene;
    if (m->scene == NULL)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "scene: missing");
    return load_scene(ctx, m->scene, m->merge, false, true, error);
}

static bool handle_set_link_poses(request_ctx *ctx, gjkd_error *error)
{
    const Gjkd__V1__SetLinkPosesRequest *m = ctx->req->set_link_poses;
    pthread_rwlock_wrlock(&ctx->svc->lock);
    bool ok = check_precondition(ctx, error) &&
              apply_robot_states(ctx->svc, m->robots, m->n_robots, &ctx->arena, error);
    pthread_rwlock_unlock(&ctx->svc->lock);
    return ok;
}

/* The DOF names of every robot with joints (the robots a gradient can refer to), copied into
 * the arena (caller holds the lock). */
static void list_joint_names(gjk_world *world, gjkd_arena *arena, size_t *n_out,
                             Gjkd__V1__RobotJoints ***out)
{
    int32_t n = gjk_world_robot_ids(world, NULL, 0);
    int32_t *ids = gjkd_arena_alloc(arena, (size_t)(n + 1) * sizeof *ids);
    gjk_world_robot_ids(world, ids, n);
    Gjkd__V1__RobotJoints **list = gjkd_arena_alloc(arena, (size_t)(n + 1) * sizeof *list);
    size_t count = 0;
    for (int32_t i = 0; i < n; ++i) {
        const gjk_kinematics *k = gjk_world_robot_kinematics(world, ids[i]);
        if (k == NULL)
            continue;
        gjk_robot_info info;
        gjk_world_robot_info(world, ids[i], &info);
        Gjkd__V1__RobotJoints *r = gjkd_arena_alloc(arena, sizeof *r);
        gjkd__v1__robot_joints__init(r);
        r->robot = gjkd_arena_strdup(arena, info.name);
        r->n_names = (size_t)gjk_kinematics_dof_count(k);
        r->names = gjkd_arena_alloc(arena, (r->n_names + 1) * sizeof *r->names);
        for (size_t d = 0; d < r->n_names; ++d)
            r->names[d] = gjkd_arena_strdup(arena, gjk_kinematics_dof_names(k)[d]);
        list[count++] = r;
    }
    *n_out = count;
    *out = list;
}

/* ---------------------------------------------------------------- reply bounds */

/* Packed bytes of one reported pair in the full form, names aside: five Vec3 (29 bytes each),
 * distance, padding, status, iterations, indices, the two BodyRefs' framing. The estimate
 * while a query runs; the reply's real size is measured after (check_reply_size). */
#define REPLY_PAIR_BYTES 192

/* Issue 22, finding 14: a 168 KB ALL_WITHIN trajectory request made a 319 MB reply (2.5 GB
 * peak RSS) because nothing bounded a reply but max_pairs per waypoint. A query's guard,
 * asked by the core before each block of waypoints (gjk_world_query_options.cancel), stops it
 * as soon as the pairs reported so far exceed max-reply-pairs or, at REPLY_PAIR_BYTES (+ 8 per
 * gradient value) a pair, max-reply-bytes: the result is never built past that (one block per
 * thread beyond it). The worst case (waypoints x max_pairs) is not refused up front: it is far
 * above what most queries report (a 3000-waypoint ALL_WITHIN query with max_distance 0.1 on
 * the demo scene would be refused). */
typedef struct query_guard {
    int64_t max_reported; /* pairs in total */
    atomic_bool over;     /* set by the guard: the pairs reported went past max_reported */
    uint64_t deadline_ns; /* the request's deadline (finding 13), 0 = none */
    atomic_bool late;     /* set by the guard: the deadline passed */
} query_guard;

static uint64_t now_ns(void);

static bool guard_cancel(void *user, int64_t reported)
{
    query_guard *g = user;
    if (g->deadline_ns != 0 && now_ns() > g->deadline_ns) {
        atomic_store(&g->late, true);
        return true;
    }
    if (reported <= g->max_reported)
        return false;
    atomic_store(&g->over, true);
    return true;
}

/* Installs the guard of a query whose pairs carry gradients over at most `dof` values. */
static void guard_init(query_guard *g, gjk_world_query_options *o, int32_t dof,
                       const request_ctx *ctx)
{
    const gjkd_limits *limits = &ctx->limits;
    g->deadline_ns = ctx->deadline_ns;
    atomic_init(&g->late, false);
    uint64_t pair_bytes = REPLY_PAIR_BYTES + (o->gradients ? 8u * (uint64_t)dof : 0u);
    uint64_t cap = limits->max_reply_bytes / pair_bytes;
    if (cap > limits->max_reply_pairs)
        cap = limits->max_reply_pairs;
    g->max_reported = (int64_t)cap;
    atomic_init(&g->over, false);
    o->cancel = guard_cancel;
    o->cancel_user = g;
}

/* The refusal of a query its guard stopped. */
static bool guard_refusal(query_guard *g, size_t waypoints, const gjkd_limits *limits,
                          gjkd_error *error)
{
    if (atomic_load(&g->late))
        return gjkd_fail(error, GJKD_CODE(DEADLINE_EXCEEDED),
                         "the request's deadline passed while the query ran (%zu waypoints): "
                         "stopped; give a longer deadline_ms or send fewer waypoints",
                         waypoints);
    return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                     "the reply would hold over %lld pairs for %zu waypoints (max-reply-pairs %u, "
                     "max-reply-bytes %llu): lower options.max_pairs or max_distance, send fewer "
                     "waypoints, or use CLOSEST mode (compact or columnar)",
                     (long long)g->max_reported, waypoints, limits->max_reply_pairs,
                     (unsigned long long)limits->max_reply_bytes);
}

/* After the reply is built, before it is packed: its real size against max-reply-bytes (the
 * estimate above leaves names and gradients of other robots out). */
static bool check_reply_size(size_t bytes, const gjkd_limits *limits, gjkd_error *error)
{
    if (bytes <= limits->max_reply_bytes)
        return true;
    return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED),
                     "the reply is %zu bytes, the limit is max-reply-bytes %llu: lower "
                     "options.max_pairs or options.max_distance, send fewer waypoints, or use "
                     "CLOSEST mode (compact or columnar)",
                     bytes, (unsigned long long)limits->max_reply_bytes);
}

/* The part pairs a query's waypoints ran through the narrow phase, for the metrics. */
static void note_pairs(request_ctx *ctx, const gjk_world_result *result)
{
    for (int32_t w = 0; w < result->waypoint_count; ++w)
        ctx->pairs += result->waypoints[w].counters.pairs_narrow;
}

static bool handle_state_query(request_ctx *ctx, gjkd_error *error)
{
    const Gjkd__V1__StateQueryRequest *m = ctx->req->state_query;
    gjkd_service *svc = ctx->svc;
    gjk_world_query_options options;
    if (!gjkd_decode_query_options(m->options, &ctx->limits, 1, &options, error))
        return false;
    gjk_world_result *result = NULL;
    size_t n_joint_names = 0;
    Gjkd__V1__RobotJoints **joint_names = NULL;
    bool ok = false;
    pthread_rwlock_rdlock(&svc->lock);
    if (!check_precondition(ctx, error))
        goto unlock;
    if (m->options != NULL && m->options->robot[0] != '\0' &&
        gjk_world_find_robot(svc->world, m->options->robot, &options.robot) != GJK_WORLD_OK) {
        gjkd_fail(error, GJKD_CODE(NOT_FOUND), "options.robot: no robot named '%s'",
                  m->options->robot);
        goto unlock;
    }
    int32_t dof = 0;
    if (options.robot != 0) {
        gjk_robot_info rinfo;
        gjk_world_robot_info(svc->world, options.robot, &rinfo);
        dof = rinfo.dof_count;
    }
    query_guard guard;
    guard_init(&guard, &options, dof, ctx);
    gjk_status s = gjk_world_query_state(svc->world, &options, &result);
    if (s != GJK_WORLD_OK && (atomic_load(&guard.over) || atomic_load(&guard.late))) {
        guard_refusal(&guard, 1, &ctx->limits, error);
        goto unlock;
    }
    if (s != GJK_WORLD_OK) {
        gjkd_fail(error, gjkd_code_from_status(s), "state query: %s", gjk_status_message(s));
        goto unlock;
    }
    ok = true;
    note_pairs(ctx, result);
    if (options.gradients)
        list_joint_names(svc->world, &ctx->arena, &n_joint_names, &joint_names);
unlock:
    pthread_rwlock_unlock(&svc->lock);
    if (ok) {
        Gjkd__V1__StateResult *st = gjkd_arena_alloc(&ctx->arena, sizeof *st);
        gjkd_encode_state(&ctx->arena, &result->waypoints[0],
                          options.mode == GJK_WORLD_MODE_ALL_WITHIN, st);
        st->n_joint_names = n_joint_names;
        st->joint_names = joint_names;
        ok = check_reply_size(gjkd__v1__state_result__get_packed_size(st), &ctx->limits, error);
        if (ok) {
            ctx->resp->body_case = GJKD__V1__RESPONSE__BODY_STATE;
            ctx->resp->state = st;
        }
    }
    gjk_world_result_destroy(&result);
    return ok;
}

/* A joint-space trajectory's DOF values (waypoint-major, DOF order) into q: the packed
 * waypoint_joints (columns in joint_names' order, which must name every DOF once, or in DOF
 * order) or the waypoints' JointPositions (DOF not named keep the robot's current value). */
static bool decode_joint_waypoints(gjk_world *world, int32_t robot, const gjk_kinematics *k,
                                   const Gjkd__V1__TrajectoryQueryRequest *m, size_t n_waypoints,
                                   gjkd_arena *arena, double *q, gjkd_error *error)
{
    int32_t dofs = gjk_kinematics_dof_count(k);
    if (m->n_waypoints > 0) {
        double *current = gjkd_arena_alloc(arena, ((size_t)dofs + 1) * sizeof *current);
        gjk_world_joint_positions(world, robot, current, dofs, NULL);
        for (size_t w = 0; w < n_waypoints; ++w) {
            char where[48];
            snprintf(where, sizeof where, "waypoints[%zu]", w);
            const Gjkd__V1__Waypoint *wp = m->waypoints[w];
            if (wp->state_case != GJKD__V1__WAYPOINT__STATE_JOINT_POSITIONS)
                return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                 "%s: robot '%s' has joints: give joint_positions", where,
                                 m->robot);
            if (wp->joint_positions->base_pose != NULL)
                return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                                 "%s.joint_positions.base_pose: a trajectory's waypoints share "
                                 "the robot's current base pose",
                                 where);
            if (!decode_joint_vector(k, wp->joint_positions, where, m->robot, current, arena,
                                     q + w * (size_t)dofs, error))
                return false;
        }
        return true;
    }
    if (m->n_waypoint_joints != n_waypoints * (size_t)dofs)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "waypoint_joints: %zu values, expected %zu waypoints x %d degrees of "
                         "freedom",
                         m->n_waypoint_joints, n_waypoints, dofs);
    if (m->n_joint_names == 0) {
        if (m->n_waypoint_joints > 0)
            memcpy(q, m->waypoint_joints, m->n_waypoint_joints * sizeof *q);
        return true;
    }
    /* columns -> DOF: the names must be every DOF once */
    Gjkd__V1__JointPositions names = GJKD__V1__JOINT_POSITIONS__INIT;
    names.n_names = m->n_joint_names;
    names.names = m->joint_names;
    names.n_positions = m->n_joint_names;
    names.positions = gjkd_arena_alloc(arena, (m->n_joint_names + 1) * sizeof(double));
    for (size_t c = 0; c < m->n_joint_names; ++c)
        names.positions[c] = (double)c; /* the column index lands at its DOF */
    double *column_of = gjkd_arena_alloc(arena, ((size_t)dofs + 1) * sizeof *column_of);
    if (!decode_joint_vector(k, &names, "joint_names", m->robot, NULL, arena, column_of, error)) {
        /* the message names "joint_names.names[i]": say "joint_names[i]" */
        char *p = strstr(error->message, "joint_names.names");
        if (p != NULL)
            memmove(p + strlen("joint_names"), p + strlen("joint_names.names"),
                    strlen(p + strlen("joint_names.names")) + 1);
        return false;
    }
    if (m->n_joint_names != (size_t)dofs)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "joint_names: %zu names for %d degrees of freedom", m->n_joint_names,
                         dofs);
    for (size_t w = 0; w < n_waypoints; ++w)
        for (int32_t d = 0; d < dofs; ++d)
            q[w * (size_t)dofs + (size_t)d] =
                m->waypoint_joints[w * (size_t)dofs + (size_t)column_of[d]];
    return true;
}

/* Runs a joint-space trajectory query; a refused waypoint names itself and the joint. */
static bool run_joint_trajectory(gjk_world *world, int32_t robot, const gjk_kinematics *k,
                                 const Gjkd__V1__TrajectoryQueryRequest *m, size_t n_waypoints,
                                 const double *q, const gjk_world_query_options *options,
                                 gjk_world_result **result, gjkd_error *error)
{
    int32_t bad_waypoint = -1, bad_joint = -1;
    gjk_world_trajectory traj;
    memset(&traj, 0, sizeof traj);
    traj.robot = robot;
    traj.waypoint_count = (int32_t)n_waypoints;
    traj.dof_count = gjk_kinematics_dof_count(k);
    traj.joint_positions = q;
    traj.name = m->name;
    traj.bad_waypoint = &bad_waypoint;
    traj.bad_joint = &bad_joint;
    gjk_status s = gjk_world_query_trajectory(world, &traj, options, result);
    if (s == GJK_WORLD_OK)
        return true;
    if (bad_waypoint >= 0 && bad_joint >= 0) {
        gjk_joint_info info;
        gjk_kinematics_joint_info(k, bad_joint, &info);
        char why[400];
        joint_refusal(k, bad_joint,
                      q[(size_t)bad_waypoint * (size_t)traj.dof_count + (size_t)info.dof], why,
                      sizeof why);
        return gjkd_fail(error, GJKD_CODE(INVALID_INPUT), "%s: waypoint %d: %s",
                         m->n_waypoints > 0 ? "waypoints" : "waypoint_joints", bad_waypoint, why);
    }
    return gjkd_fail(error, gjkd_code_from_status(s), "trajectory query: %s",
                     gjk_status_message(s));
}

static bool handle_trajectory_query(request_ctx *ctx, gjkd_error *error)
{
    const Gjkd__V1__TrajectoryQueryRequest *m = ctx->req->trajectory_query;
    gjkd_service *svc = ctx->svc;
    gjk_world_query_options options;
    if (!gjkd_decode_query_options(m->options, &ctx->limits, svc->query_threads, &options, error))
        return false;
    if (!gjkd_decode_continuous(m, &options, error))
        return false;
    if (options.gradients && m->options->columnar && !m->options->pair_columns)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "options.gradients: not in the columnar form (it has no pair messages); "
                         "use pair_columns, compact or the full form");
    bool flat = m->n_waypoint_xyz_wxyz > 0;
    bool packed = m->n_waypoint_joints > 0 || m->n_joint_names > 0;
    if (flat && m->n_waypoints > 0)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "give waypoints or waypoint_xyz_wxyz, not both");
    if (packed && (flat || m->n_waypoints > 0))
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "give waypoint_joints or %s, not both",
                         flat ? "waypoint_xyz_wxyz" : "waypoints");
    if (m->n_waypoints == 0 && !flat && !packed)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "waypoints: none given");
    size_t n_waypoints = flat || packed ? m->waypoint_count : m->n_waypoints;
    if ((flat || packed) && n_waypoints == 0)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "waypoint_count: required with %s",
                         flat ? "waypoint_xyz_wxyz" : "waypoint_joints");
    if (n_waypoints > ctx->limits.max_waypoints)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED), "waypoints: %zu, the limit is %u",
                         n_waypoints, ctx->limits.max_waypoints);
    if (m->name[0] != '\0' && !gjkd_check_name(m->name, "name", &ctx->limits, error))
        return false;
    gjk_world_result *result = NULL;
    gjk_transform *poses = NULL;
    double *q = NULL;
    size_t n_joint_names = 0;
    Gjkd__V1__RobotJoints **joint_names = NULL;
    bool ok = false;
    pthread_rwlock_rdlock(&svc->lock);
    int32_t robot;
    gjk_robot_info info;
    if (!check_precondition(ctx, error))
        goto unlock;
    if (gjk_world_find_robot(svc->world, m->robot, &robot) != GJK_WORLD_OK) {
        gjkd_fail(error, GJKD_CODE(NOT_FOUND), "robot: no robot named '%s'", m->robot);
        goto unlock;
    }
    gjk_world_robot_info(svc->world, robot, &info);
    query_guard guard;
    guard_init(&guard, &options, info.dof_count, ctx);
    const gjk_kinematics *kin = gjk_world_robot_kinematics(svc->world, robot);
    if (kin != NULL) {
        if (flat) {
            gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                      "waypoint_xyz_wxyz: robot '%s' has joints: give waypoint_joints (or "
                      "waypoints with joint_positions)",
                      m->robot);
            goto unlock;
        }
        q = malloc((n_waypoints * (size_t)info.dof_count + 1) * sizeof *q);
        if (q == NULL) {
            gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory for %zu waypoints",
                      n_waypoints);
            goto unlock;
        }
        if (!decode_joint_waypoints(svc->world, robot, kin, m, n_waypoints, &ctx->arena, q, error))
            goto unlock;
        ok = run_joint_trajectory(svc->world, robot, kin, m, n_waypoints, q, &options, &result,
                                  error);
        if (!ok && (atomic_load(&guard.over) || atomic_load(&guard.late)))
            guard_refusal(&guard, n_waypoints, &ctx->limits, error);
        if (ok && options.gradients)
            list_joint_names(svc->world, &ctx->arena, &n_joint_names, &joint_names);
        goto unlock;
    }
    if (packed) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                  "waypoint_joints: robot '%s' has no joints: give link poses", m->robot);
        goto unlock;
    }
    if (flat && m->n_waypoint_xyz_wxyz != 7 * (size_t)info.link_count * n_waypoints) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                  "waypoint_xyz_wxyz: %zu values, expected 7 per link (px py pz qw qx qy qz) x "
                  "%d links x %zu waypoints",
                  m->n_waypoint_xyz_wxyz, info.link_count, n_waypoints);
        goto unlock;
    }
    poses = malloc(n_waypoints * (size_t)info.link_count * sizeof *poses);
    if (poses == NULL) {
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory for %zu waypoints", n_waypoints);
        goto unlock;
    }
    if (flat && !gjkd_decode_waypoint_poses(m->waypoint_xyz_wxyz, n_waypoints, info.link_count,
                                            poses, error))
        goto unlock;
    for (size_t w = 0; !flat && w < n_waypoints; ++w) {
        if (m->waypoints[w]->state_case != GJKD__V1__WAYPOINT__STATE_LINK_POSES) {
            gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                      m->waypoints[w]->state_case == GJKD__V1__WAYPOINT__STATE_JOINT_POSITIONS
                          ? "waypoints[%zu]: robot has no joints: give link_poses"
                          : "waypoints[%zu]: no link_poses given",
                      w);
            goto unlock;
        }
        gjk_transform *out = poses + w * (size_t)info.link_count;
        /* The field name is formatted only for a failure: decode again with it. */
        if (!gjkd_decode_link_poses(m->waypoints[w]->link_poses, info.link_count, "", out, error)) {
            char where[48];
            snprintf(where, sizeof where, "waypoints[%zu]", w);
            gjkd_decode_link_poses(m->waypoints[w]->link_poses, info.link_count, where, out, error);
            goto unlock;
        }
    }
    gjk_world_trajectory traj;
    memset(&traj, 0, sizeof traj);
    traj.robot = robot;
    traj.waypoint_count = (int32_t)n_waypoints;
    traj.link_count = info.link_count;
    traj.link_poses = poses;
    traj.name = m->name;
    gjk_status s = gjk_world_query_trajectory(svc->world, &traj, &options, &result);
    if (s != GJK_WORLD_OK && (atomic_load(&guard.over) || atomic_load(&guard.late))) {
        guard_refusal(&guard, n_waypoints, &ctx->limits, error);
        goto unlock;
    }
    if (s != GJK_WORLD_OK) {
        gjkd_fail(error, gjkd_code_from_status(s), "trajectory query: %s", gjk_status_message(s));
        goto unlock;
    }
    ok = true;
    if (options.gradients)
        list_joint_names(svc->world, &ctx->arena, &n_joint_names, &joint_names);
unlock:
    pthread_rwlock_unlock(&svc->lock);
    free(poses);
    free(q);
    if (ok) {
        note_pairs(ctx, result);
        Gjkd__V1__TrajectoryResult *t = gjkd_arena_alloc(&ctx->arena, sizeof *t);
        bool all_pairs = options.mode == GJK_WORLD_MODE_ALL_WITHIN;
        if (m->options != NULL && m->options->pair_columns)
            gjkd_encode_trajectory_pair_columns(&ctx->arena, result, all_pairs, t);
        else if (!all_pairs && m->options != NULL && m->options->columnar)
            gjkd_encode_trajectory_columnar(&ctx->arena, result, t);
        else if (!all_pairs && m->options != NULL && m->options->compact)
            gjkd_encode_trajectory_compact(&ctx->arena, result, t);
        else
            gjkd_encode_trajectory(&ctx->arena, result, all_pairs, t);
        t->n_joint_names = n_joint_names;
        t->joint_names = joint_names;
        gjkd_encode_segments(&ctx->arena, result, t);
        ok = check_reply_size(gjkd__v1__trajectory_result__get_packed_size(t), &ctx->limits, error);
        if (ok) {
            ctx->resp->body_case = GJKD__V1__RESPONSE__BODY_TRAJECTORY;
            ctx->resp->trajectory = t;
        }
    }
    gjk_world_result_destroy(&result);
    return ok;
}

static bool handle_scene_summary(request_ctx *ctx, gjkd_error *error)
{
    gjkd_service *svc = ctx->svc;
    gjkd_arena *a = &ctx->arena;
    Gjkd__V1__SceneSummary *sum = gjkd_arena_alloc(a, sizeof *sum);
    gjkd__v1__scene_summary__init(sum);
    bool ok = false;
    pthread_rwlock_rdlock(&svc->lock);
    if (!check_precondition(ctx, error))
        goto unlock;
    int32_t n = gjk_world_robot_ids(svc->world, NULL, 0);
    int32_t *ids = gjkd_arena_alloc(a, (size_t)(n + 1) * sizeof *ids);
    gjk_world_robot_ids(svc->world, ids, n);
    sum->n_robots = (size_t)n;
    sum->robots = gjkd_arena_alloc(a, (size_t)(n + 1) * sizeof *sum->robots);
    for (int32_t i = 0; i < n; ++i) {
        gjk_robot_info info;
        gjk_world_robot_info(svc->world, ids[i], &info);
        Gjkd__V1__RobotSummary *r = gjkd_arena_alloc(a, sizeof *r);
        gjkd__v1__robot_summary__init(r);
        r->name = gjkd_arena_strdup(a, info.name);
        r->id = (uint32_t)info.id;
        r->parts = (uint32_t)info.part_count;
        r->self_collision = info.self_collision;
        r->n_links = (size_t)info.link_count;
        r->links = gjkd_arena_alloc(a, (size_t)(info.link_count + 1) * sizeof *r->links);
        for (int32_t l = 0; l < info.link_count; ++l) {
            gjk_link_info li;
            gjk_world_link_info(svc->world, ids[i], l, &li);
            r->links[l] = gjkd_arena_strdup(a, li.name);
        }
        const gjk_kinematics *k = gjk_world_robot_kinematics(svc->world, ids[i]);
        if (k != NULL && info.dof_count > 0) {
            r->n_joint_names = r->n_positions = (size_t)info.dof_count;
            r->joint_names = gjkd_arena_alloc(a, r->n_joint_names * sizeof *r->joint_names);
            r->positions = gjkd_arena_alloc(a, r->n_positions * sizeof *r->positions);
            for (int32_t d = 0; d < info.dof_count; ++d)
                r->joint_names[d] = gjkd_arena_strdup(a, gjk_kinematics_dof_names(k)[d]);
            gjk_world_joint_positions(svc->world, ids[i], r->positions, info.dof_count, NULL);
        }
        sum->robots[i] = r;
    }
    n = gjk_world_obstacle_ids(svc->world, NULL, 0);
    ids = gjkd_arena_alloc(a, (size_t)(n + 1) * sizeof *ids);
    gjk_world_obstacle_ids(svc->world, ids, n);
    sum->n_obstacles = (size_t)n;
    sum->obstacles = gjkd_arena_alloc(a, (size_t)(n + 1) * sizeof *sum->obstacles);
    for (int32_t i = 0; i < n; ++i) {
        gjk_obstacle_info info;
        gjk_world_obstacle_info(svc->world, ids[i], &info);
        Gjkd__V1__ObstacleSummary *o = gjkd_arena_alloc(a, sizeof *o);
        gjkd__v1__obstacle_summary__init(o);
        o->name = gjkd_arena_strdup(a, info.name);
        o->id = (uint32_t)info.id;
        o->parts = (uint32_t)info.part_count;
        o->pose = gjkd_encode_pose(a, info.pose);
        sum->obstacles[i] = o;
    }
    sum->allowed_pairs = (uint32_t)live_allowed(&svc->records, NULL);
    if (ctx->req->scene_summary->include_scene) {
        size_t size = 0;
        uint8_t *buf = pack_scene(&svc->records, atomic_load(&svc->revision), &size);
        if (buf == NULL) {
            gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory packing the scene");
            goto unlock;
        }
        ctx->owned = protobuf_c_message_unpack(&gjkd__v1__scene__descriptor, NULL, size, buf);
        free(buf);
        sum->scene = (Gjkd__V1__Scene *)ctx->owned;
    }
    ok = true;
unlock:
    pthread_rwlock_unlock(&svc->lock);
    if (ok) {
        ctx->resp->body_case = GJKD__V1__RESPONSE__BODY_SCENE_SUMMARY;
        ctx->resp->scene_summary = sum;
    }
    return ok;
}

static bool handle_stats(request_ctx *ctx, gjkd_error *error);

/* The world's figures. Without `wait` (a probe, a metrics page) this never waits while a
 * scene change holds the lock (a hull build, an fsync): it then gives the figures read last
 * time. */
static void read_world_info(gjkd_service *svc, bool wait, gjk_world_info *info)
{
    if (wait ? pthread_rwlock_rdlock(&svc->lock) == 0 : pthread_rwlock_tryrdlock(&svc->lock) == 0) {
        gjk_world_get_info(svc->world, info);
        pthread_rwlock_unlock(&svc->lock);
        pthread_mutex_lock(&svc->info_lock);
        svc->last_info = *info;
        pthread_mutex_unlock(&svc->info_lock);
    } else {
        pthread_mutex_lock(&svc->info_lock);
        *info = svc->last_info;
        pthread_mutex_unlock(&svc->info_lock);
    }
}

typedef bool handler_fn(request_ctx *ctx, gjkd_error *error);

typedef struct command {
    Gjkd__V1__Request__BodyCase body;
    const char *name;
    handler_fn *handler;
} command;

static const command k_commands[] = {
    {GJKD__V1__REQUEST__BODY_HEALTH, "health", handle_health},
    {GJKD__V1__REQUEST__BODY_STATS, "stats", handle_stats},
    {GJKD__V1__REQUEST__BODY_SCENE_SUMMARY, "scene_summary", handle_scene_summary},
    {GJKD__V1__REQUEST__BODY_PUT_ROBOT, "put_robot", handle_put_robot},
    {GJKD__V1__REQUEST__BODY_REMOVE_ROBOT, "remove_robot", handle_remove_robot},
    {GJKD__V1__REQUEST__BODY_PUT_OBSTACLE, "put_obstacle", handle_put_obstacle},
    {GJKD__V1__REQUEST__BODY_REMOVE_OBSTACLE, "remove_obstacle", handle_remove_obstacle},
    {GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS, "set_allowed_pairs", handle_set_allowed_pairs},
    {GJKD__V1__REQUEST__BODY_LOAD_SCENE, "load_scene", handle_load_scene},
    {GJKD__V1__REQUEST__BODY_SET_LINK_POSES, "set_link_poses", handle_set_link_poses},
    {GJKD__V1__REQUEST__BODY_STATE_QUERY, "state_query", handle_state_query},
    {GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY, "trajectory_query", handle_trajectory_query},
};
enum { COMMAND_COUNT = sizeof k_commands / sizeof k_commands[0] };

static bool handle_stats(request_ctx *ctx, gjkd_error *error)
{
    gjkd_service *svc = ctx->svc;
    gjkd_arena *a = &ctx->arena;
    if (!check_precondition(ctx, error))
        return false;
    Gjkd__V1__StatsResponse *st = gjkd_arena_alloc(a, sizeof *st);
    gjkd__v1__stats_response__init(st);
    st->uptime_seconds = seconds_since(svc->started);
    st->revision = atomic_load(&svc->revision);
    st->in_flight = atomic_load(&svc->in_flight);
    st->threads = (uint32_t)svc->worker_threads;
    st->n_commands = COMMAND_COUNT;
    st->commands = gjkd_arena_alloc(a, COMMAND_COUNT * sizeof *st->commands);
    for (size_t i = 0; i < COMMAND_COUNT; ++i) {
        Gjkd__V1__CommandStats *c = gjkd_arena_alloc(a, sizeof *c);
        gjkd__v1__command_stats__init(c);
        c->name = (char *)k_commands[i].name;
        c->calls = atomic_load(&svc->counters[i].calls);
        c->errors = atomic_load(&svc->counters[i].errors);
        c->total_seconds = 1e-9 * (double)atomic_load(&svc->counters[i].total_ns);
        c->max_seconds = 1e-9 * (double)atomic_load(&svc->counters[i].max_ns);
        st->commands[i] = c;
    }
    st->errors = gjkd_arena_alloc(a, CODE_SLOTS * sizeof *st->errors);
    for (int code = 0; code < CODE_SLOTS; ++code) {
        uint64_t count = atomic_load(&svc->code_counts[code]);
        if (count == 0 || code == (int)GJKD_CODE(OK))
            continue;
        Gjkd__V1__CodeCount *cc = gjkd_arena_alloc(a, sizeof *cc);
        gjkd__v1__code_count__init(cc);
        cc->code = (gjkd_code)code;
        cc->count = count;
        st->errors[st->n_errors++] = cc;
    }
    Gjkd__V1__Limits *l = gjkd_arena_alloc(a, sizeof *l);
    gjkd__v1__limits__init(l);
    l->max_message_bytes = ctx->limits.max_message_bytes;
    l->max_points_per_part = ctx->limits.max_points_per_part;
    l->max_parts_per_body = ctx->limits.max_parts_per_body;
    l->max_links_per_robot = ctx->limits.max_links_per_robot;
    l->max_robots = ctx->limits.max_robots;
    l->max_obstacles = ctx->limits.max_obstacles;
    l->max_waypoints = ctx->limits.max_waypoints;
    l->max_pairs_returned = ctx->limits.max_pairs_returned;
    l->max_reply_pairs = ctx->limits.max_reply_pairs;
    l->max_reply_bytes = ctx->limits.max_reply_bytes;
    l->max_name_length = ctx->limits.max_name_length;
    l->max_queued = ctx->limits.max_queued;
    st->limits = l;
    st->pose_updates = atomic_load(&svc->pose_updates);
    st->monitor_events = atomic_load(&svc->monitor_events);
    st->requests = atomic_load(&svc->requests);
    st->auth_refused = atomic_load(&svc->auth_refused);
    st->queued = atomic_load(&svc->queued);
    gjk_world_info info;
    read_world_info(svc, !ctx->probe, &info);
    st->robots = (uint32_t)info.robot_count;
    st->obstacles = (uint32_t)info.obstacle_count;
    st->parts = (uint32_t)info.part_count;
    st->trajectories_cached = (uint32_t)info.trajectory_count;
    st->trajectory_cache_hits = info.trajectory_cache_hits;
    st->trajectory_cache_misses = info.trajectory_cache_misses;
    st->pose_revision = info.pose_revision;
    ctx->resp->body_case = GJKD__V1__RESPONSE__BODY_STATS;
    ctx->resp->stats = st;
    return true;
}

void gjkd_service_figures_read(gjkd_service *svc, gjkd_metrics_figures *f)
{
    memset(f, 0, sizeof *f);
    f->start_time_seconds = svc->started_unix;
    f->revision = atomic_load(&svc->revision);
    f->draining = atomic_load(&svc->draining);
    f->in_flight = atomic_load(&svc->in_flight);
    f->queued = atomic_load(&svc->queued);
    f->worker_threads = svc->worker_threads;
    f->pose_updates = atomic_load(&svc->pose_updates);
    f->monitor_events = atomic_load(&svc->monitor_events);
    f->auth_refused = atomic_load(&svc->auth_refused);
    gjk_world_info info;
    read_world_info(svc, false, &info);
    f->pose_revision = info.pose_revision;
    f->robots = (uint32_t)info.robot_count;
    f->obstacles = (uint32_t)info.obstacle_count;
    f->parts = (uint32_t)info.part_count;
    f->trajectories_cached = (uint32_t)info.trajectory_count;
    f->trajectory_cache_bytes = info.trajectory_cache_bytes;
    f->trajectory_cache_hits = info.trajectory_cache_hits;
    f->trajectory_cache_misses = info.trajectory_cache_misses;
}

gjkd_metrics *gjkd_service_metrics(gjkd_service *svc)
{
    return svc->metrics;
}

/* ---------------------------------------------------------------- entry points */

gjkd_service *gjkd_service_create(const gjkd_service_def *def, gjkd_error *error)
{
    gjkd_service *svc = calloc(1, sizeof *svc);
    if (svc == NULL) {
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        return NULL;
    }
    svc->counters = calloc(COMMAND_COUNT, sizeof *svc->counters);
    svc->tokens = gjkd_tokens_create();
    const char *names[COMMAND_COUNT];
    for (size_t i = 0; i < COMMAND_COUNT; ++i)
        names[i] = k_commands[i].name;
    svc->metrics = gjkd_metrics_create(names, COMMAND_COUNT);
    /* The world's capacities are the largest our limits can take (SIGHUP may raise them):
     * the limits are checked before it is called. */
    gjk_world_def world_def = service_world_def();
    gjk_status s = gjk_world_create(&world_def, &svc->world);
    if (svc->counters == NULL || svc->tokens == NULL || svc->metrics == NULL || s != GJK_WORLD_OK) {
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "cannot create the world: %s",
                  gjk_status_message(s));
        gjk_world_destroy(&svc->world);
        gjkd_tokens_destroy(&svc->tokens);
        gjkd_metrics_destroy(&svc->metrics);
        free(svc->counters);
        free(svc);
        return NULL;
    }
    gjkd_rwlock_init_writer_fair(&svc->lock); /* writers never starve (rwlock.h) */
    pthread_mutex_init(&svc->limits_lock, NULL);
    pthread_mutex_init(&svc->info_lock, NULL);
    svc->limits = def->limits;
    svc->query_threads = def->query_threads > 0 ? def->query_threads : 1;
    svc->worker_threads = def->worker_threads;
    svc->store = def->store;
    clock_gettime(CLOCK_MONOTONIC, &svc->started);
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    svc->started_unix = (double)real.tv_sec + 1e-9 * (double)real.tv_nsec;
    return svc;
}

void gjkd_service_destroy(gjkd_service **service)
{
    if (service == NULL || *service == NULL)
        return;
    gjkd_service *svc = *service;
    gjk_world_destroy(&svc->world);
    scene_records_free(&svc->records);
    pthread_rwlock_destroy(&svc->lock);
    pthread_mutex_destroy(&svc->limits_lock);
    pthread_mutex_destroy(&svc->info_lock);
    gjkd_tokens_destroy(&svc->tokens);
    gjkd_metrics_destroy(&svc->metrics);
    free(svc->counters);
    free(svc);
    *service = NULL;
}

bool gjkd_service_load_scene(gjkd_service *svc, const uint8_t *data, size_t size, bool persist_it,
                             gjkd_error *error)
{
    Gjkd__V1__Scene *scene = gjkd__v1__scene__unpack(NULL, size, data);
    if (scene == NULL)
        return gjkd_fail(error, GJKD_CODE(MALFORMED), "the scene is not a valid gjkd.v1.Scene");
    request_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.svc = svc;
    ctx.limits = gjkd_service_limits(svc);
    Gjkd__V1__Request none = GJKD__V1__REQUEST__INIT;
    ctx.req = &none;
    bool ok = gjkd_check_wire_strings(&gjkd__v1__scene__descriptor, data, size, error) &&
              load_scene(&ctx, scene, false, true, persist_it, error);
    gjkd__v1__scene__free_unpacked(scene, NULL);
    return ok;
}

/* Every reply is counted here once: by code (stats) and by command and code (metrics);
 * which -1: no command ran. */
static void count_code(gjkd_service *svc, ssize_t which, gjkd_code code)
{
    if ((int)code >= 0 && (int)code < CODE_SLOTS)
        atomic_fetch_add(&svc->code_counts[code], 1);
    gjkd_metrics_reply(svc->metrics, (long)which, (int)code);
}

static void pack_response(const Gjkd__V1__Response *resp, uint8_t **reply, size_t *reply_size)
{
    size_t n = gjkd__v1__response__get_packed_size(resp);
    uint8_t *buf = malloc(n > 0 ? n : 1);
    if (buf == NULL)
        abort(); /* no reply can be made without memory */
    gjkd__v1__response__pack(resp, buf);
    *reply = buf;
    *reply_size = n;
}

void gjkd_service_reply_error(gjkd_service *svc, uint64_t request_id, gjkd_code code,
                              const char *message, uint8_t **reply, size_t *reply_size)
{
    atomic_fetch_add(&svc->requests, 1);
    count_code(svc, -1, code);
    Gjkd__V1__Status status = GJKD__V1__STATUS__INIT;
    status.code = code;
    status.message = (char *)message;
    Gjkd__V1__Response resp = GJKD__V1__RESPONSE__INIT;
    resp.request_id = request_id;
    resp.revision = atomic_load(&svc->revision);
    resp.status = &status;
    GJKD_LOG(GJKD_LOG_INFO, "request_refused", request_id, "code=%s message=%s",
             gjkd_code_name(code), GJKD_Q(message));
    pack_response(&resp, reply, reply_size);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void handle_request(gjkd_service *svc, const char *caller_key, const uint8_t *data,
                           size_t size, bool probe, uint64_t deadline_ns, uint8_t **reply,
                           size_t *reply_size);

void gjkd_service_handle(gjkd_service *svc, const uint8_t *data, size_t size, uint8_t **reply,
                         size_t *reply_size)
{
    handle_request(svc, "", data, size, false, 0, reply, reply_size);
}

void gjkd_service_handle_until(gjkd_service *svc, const gjkd_caller *caller, const uint8_t *data,
                               size_t size, uint64_t deadline_ns, uint8_t **reply,
                               size_t *reply_size)
{
    const char *key = caller != NULL && caller->key != NULL ? caller->key : "";
    handle_request(svc, key, data, size, false, deadline_ns, reply, reply_size);
}

uint64_t gjkd_now_ns(void)
{
    return now_ns();
}

void gjkd_service_handle_probe(gjkd_service *svc, const uint8_t *data, size_t size, uint8_t **reply,
                               size_t *reply_size)
{
    handle_request(svc, "", data, size, true, 0, reply, reply_size); /* probes change nothing */
}

void gjkd_service_set_queued(gjkd_service *svc, uint32_t queued)
{
    atomic_store(&svc->queued, queued);
}

/* One varint at *p (at most 10 bytes, before end); false if cut short. */
static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *value)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *value = v;
            return true;
        }
    }
    return false;
}

bool gjkd_request_peek(const uint8_t *data, size_t size, uint64_t *request_id,
                       uint32_t *deadline_ms, uint32_t *body_field)
{
    *request_id = 0;
    *deadline_ms = 0;
    *body_field = 0;
    const uint8_t *p = data, *end = data + size;
    while (p < end) {
        uint64_t key, v;
        if (!read_varint(&p, end, &key))
            return false;
        uint64_t field = key >> 3;
        switch (key & 7) {
        case 0: /* varint */
            if (!read_varint(&p, end, &v))
                return false;
            if (field == 1) /* request_id */
                *request_id = v;
            else if (field == 4) /* deadline_ms */
                *deadline_ms = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
            break;
        case 1: /* 64-bit */
            if (end - p < 8)
                return false;
            p += 8;
            break;
        case 2: /* length-delimited: a body is one of these */
            if (!read_varint(&p, end, &v) || v > (uint64_t)(end - p))
                return false;
            p += v;
            if (field >= GJKD__V1__REQUEST__BODY_HEALTH &&
                field <= GJKD__V1__REQUEST__BODY_TRAJECTORY_QUERY)
                *body_field = (uint32_t)field; /* the last one wins, as in a oneof */
            break;
        case 5: /* 32-bit */
            if (end - p < 4)
                return false;
            p += 4;
            break;
        default:
            return false;
        }
    }
    return true;
}

bool gjkd_request_is_probe(uint32_t body_field)
{
    return body_field == GJKD__V1__REQUEST__BODY_HEALTH ||
           body_field == GJKD__V1__REQUEST__BODY_STATS;
}

static bool is_scene_change(Gjkd__V1__Request__BodyCase body)
{
    switch (body) {
    case GJKD__V1__REQUEST__BODY_PUT_ROBOT:
    case GJKD__V1__REQUEST__BODY_REMOVE_ROBOT:
    case GJKD__V1__REQUEST__BODY_PUT_OBSTACLE:
    case GJKD__V1__REQUEST__BODY_REMOVE_OBSTACLE:
    case GJKD__V1__REQUEST__BODY_SET_ALLOWED_PAIRS:
    case GJKD__V1__REQUEST__BODY_LOAD_SCENE:
        return true;
    default:
        return false;
    }
}

/* The first reply of a change, again, with this request's id. */
static void replay(gjkd_service *svc, ssize_t which, uint64_t request_id, const uint8_t *first,
                   size_t first_size, uint8_t **reply, size_t *reply_size)
{
    Gjkd__V1__Response *r = gjkd__v1__response__unpack(NULL, first_size, first);
    if (r == NULL) { /* we packed it: cannot happen */
        gjkd_service_reply_error(svc, request_id, GJKD_CODE(INTERNAL),
                                 "a remembered change reply could not be read", reply, reply_size);
        return;
    }
    atomic_fetch_add(&svc->requests, 1);
    count_code(svc, which, GJKD_CODE(OK));
    r->request_id = request_id;
    GJKD_LOG(GJKD_LOG_INFO, "change_replayed", request_id, "revision=%llu",
             (unsigned long long)r->revision);
    pack_response(r, reply, reply_size);
    gjkd__v1__response__free_unpacked(r, NULL);
}

static void handle_request(gjkd_service *svc, const char *caller_key, const uint8_t *data,
                           size_t size, bool probe, uint64_t deadline_ns, uint8_t **reply,
                           size_t *reply_size)
{
    gjkd_limits limits = gjkd_service_limits(svc);
    if (size > limits.max_message_bytes) {
        char msg[128];
        snprintf(msg, sizeof msg, "request of %zu bytes, the limit is %llu", size,
                 (unsigned long long)limits.max_message_bytes);
        gjkd_service_reply_error(svc, 0, GJKD_CODE(RESOURCE_EXHAUSTED), msg, reply, reply_size);
        return;
    }
    Gjkd__V1__Request *req = gjkd__v1__request__unpack(NULL, size, data);
    if (req == NULL) {
        gjkd_service_reply_error(svc, 0, GJKD_CODE(MALFORMED),
                                 "the request is not a valid gjkd.v1.Request", reply, reply_size);
        return;
    }
    atomic_fetch_add(&svc->requests, 1);
    atomic_fetch_add(&svc->in_flight, 1);

    Gjkd__V1__Response resp = GJKD__V1__RESPONSE__INIT;
    Gjkd__V1__Status status = GJKD__V1__STATUS__INIT;
    resp.request_id = req->request_id;
    resp.status = &status;
    request_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.svc = svc;
    ctx.req = req;
    ctx.resp = &resp;
    ctx.limits = limits;
    ctx.probe = probe;
    ctx.deadline_ns = deadline_ns;
    gjkd_error error = {GJKD_CODE(OK), ""};

    ssize_t which = -1;
    for (size_t i = 0; i < COMMAND_COUNT; ++i)
        if (k_commands[i].body == req->body_case)
            which = (ssize_t)i;
    /* A scene change with a change token runs once (tokens.h): a retry gets the first reply.
     * The token is the caller's: (caller key, token) is what is remembered. */
    const ProtobufCBinaryData *token = &req->change_token;
    const uint8_t *key = (const uint8_t *)caller_key;
    size_t key_len = strlen(caller_key);
    bool tokened = token->len > 0 && is_scene_change(req->body_case);
    gjkd_token_result tok = GJKD_TOKEN_UNTRACKED;
    if (tokened && token->len <= GJKD_TOKEN_MAX) {
        uint8_t *first = NULL;
        size_t first_size = 0;
        tok = gjkd_tokens_begin(svc->tokens, key, key_len, token->data, token->len,
                                limits.change_tokens, (uint64_t)(limits.change_token_seconds * 1e9),
                                &first, &first_size);
        if (tok == GJKD_TOKEN_REPLAY) {
            replay(svc, which, req->request_id, first, first_size, reply, reply_size);
            free(first);
            gjkd__v1__request__free_unpacked(req, NULL);
            atomic_fetch_sub(&svc->in_flight, 1);
            return;
        }
    }
    uint64_t t0 = now_ns();
    bool ok;
    if (!gjkd_check_wire_strings(&gjkd__v1__request__descriptor, data, size, &error))
        ok = false;
    else if (deadline_ns != 0 && now_ns() > deadline_ns)
        ok = gjkd_fail(&error, GJKD_CODE(DEADLINE_EXCEEDED),
                       "the request's deadline passed before a worker took it: not run");
    else if (tokened && token->len > GJKD_TOKEN_MAX)
        ok = gjkd_fail(&error, GJKD_CODE(INVALID_ARGUMENT), "change_token: %zu bytes, at most %d",
                       token->len, GJKD_TOKEN_MAX);
    else if (which < 0 && req->base.n_unknown_fields > 0)
        ok = gjkd_fail(&error, GJKD_CODE(UNIMPLEMENTED),
                       "request body unknown to this daemon (gjkd.v1 %d.%d.%d)", GJK_VERSION_MAJOR,
                       GJK_VERSION_MINOR, GJK_VERSION_PATCH);
    else if (which < 0)
        ok = gjkd_fail(&error, GJKD_CODE(INVALID_ARGUMENT), "the request has no body");
    else
        ok = k_commands[which].handler(&ctx, &error);
    uint64_t elapsed = now_ns() - t0;
    resp.handler_seconds = 1e-9 * (double)elapsed;

    status.code = ok ? GJKD_CODE(OK) : error.code;
    status.message = ok ? "" : error.message;
    if (!ctx.revision_set)
        resp.revision = atomic_load(&svc->revision);
    if (!ok)
        resp.body_case = GJKD__V1__RESPONSE__BODY__NOT_SET;
    count_code(svc, which, status.code);
    if (which >= 0) {
        gjkd_metrics_handled(svc->metrics, (long)which, elapsed, ctx.pairs);
        command_counter *c = &svc->counters[which];
        atomic_fetch_add(&c->calls, 1);
        if (!ok)
            atomic_fetch_add(&c->errors, 1);
        atomic_fetch_add(&c->total_ns, elapsed);
        uint_fast64_t prev = atomic_load(&c->max_ns);
        while (elapsed > prev && !atomic_compare_exchange_weak(&c->max_ns, &prev, elapsed)) {
        }
    }
    const char *name = which >= 0 ? k_commands[which].name : "none";
    if (ok)
        GJKD_LOG(GJKD_LOG_DEBUG, "request_done", req->request_id, "command=%s us=%.1f", name,
                 1e-3 * (double)elapsed);
    else
        GJKD_LOG(GJKD_LOG_INFO, "request_failed", req->request_id, "command=%s code=%s message=%s",
                 name, gjkd_code_name(status.code), GJKD_Q(error.message));
    pack_response(&resp, reply, reply_size);
    if (tok == GJKD_TOKEN_RUN)
        gjkd_tokens_end(svc->tokens, key, key_len, token->data, token->len, ok ? *reply : NULL,
                        *reply_size);
    if (ctx.owned != NULL)
        protobuf_c_message_free_unpacked(ctx.owned, NULL);
    gjkd_arena_free(&ctx.arena);
    gjkd__v1__request__free_unpacked(req, NULL);
    atomic_fetch_sub(&svc->in_flight, 1);
}

/* ---------------------------------------------------------------- pose stream */

bool gjkd_service_pose_update(gjkd_service *svc, const uint8_t *data, size_t size,
                              uint64_t *sequence, gjkd_error *error)
{
    if (size > gjkd_service_limits(svc).max_message_bytes)
        return gjkd_fail(error, GJKD_CODE(RESOURCE_EXHAUSTED), "pose update too large");
    Gjkd__V1__PoseUpdate *u = gjkd__v1__pose_update__unpack(NULL, size, data);
    if (u == NULL)
        return gjkd_fail(error, GJKD_CODE(MALFORMED), "not a valid gjkd.v1.PoseUpdate");
    if (!gjkd_check_wire_strings(&gjkd__v1__pose_update__descriptor, data, size, error)) {
        gjkd__v1__pose_update__free_unpacked(u, NULL);
        return false;
    }
    gjkd_arena arena = {0};
    pthread_rwlock_wrlock(&svc->lock);
    bool ok = apply_robot_states(svc, u->robots, u->n_robots, &arena, error);
    pthread_rwlock_unlock(&svc->lock);
    if (ok) {
        *sequence = u->sequence;
        atomic_fetch_add(&svc->pose_updates, 1);
    }
    gjkd_arena_free(&arena);
    gjkd__v1__pose_update__free_unpacked(u, NULL);
    return ok;
}

bool gjkd_service_monitor_event(gjkd_service *svc, uint64_t sequence, uint8_t **event,
                                size_t *event_size)
{
    gjk_world_query_options options;
    gjkd_error error;
    gjkd_limits limits = gjkd_service_limits(svc);
    gjkd_decode_query_options(NULL, &limits, 1, &options, &error);
    gjk_world_result *result = NULL;
    pthread_rwlock_rdlock(&svc->lock);
    uint64_t revision = atomic_load(&svc->revision);
    gjk_status s = gjk_world_query_state(svc->world, &options, &result);
    pthread_rwlock_unlock(&svc->lock);
    if (s != GJK_WORLD_OK)
        return false;
    gjkd_arena arena = {0};
    Gjkd__V1__MonitorEvent ev = GJKD__V1__MONITOR_EVENT__INIT;
    Gjkd__V1__StateResult st;
    gjkd_encode_state(&arena, &result->waypoints[0], false, &st);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    ev.sequence = sequence;
    ev.revision = revision;
    ev.timestamp = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
    ev.state = &st;
    *event_size = gjkd__v1__monitor_event__get_packed_size(&ev);
    *event = malloc(*event_size > 0 ? *event_size : 1);
    bool ok = *event != NULL;
    if (ok) {
        gjkd__v1__monitor_event__pack(&ev, *event);
        atomic_fetch_add(&svc->monitor_events, 1);
    }
    gjkd_arena_free(&arena);
    gjk_world_result_destroy(&result);
    return ok;
}
