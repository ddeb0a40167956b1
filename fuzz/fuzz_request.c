/* fuzz_request.c — the daemon's whole request path without sockets: request bytes ->
 * decode -> validate -> dispatch -> world -> encode -> reply bytes (gjkd_service_handle),
 * against a fresh in-memory service holding a small scene (fuzz/seeds/scene.json: every
 * part type, a robot with self collision, allowed pairs).
 *
 * Input: a sequence of up to 16 requests, each a 16-bit little-endian length and that many
 * bytes (serialized gjkd.v1.Request, or garbage). Checks, per reply:
 *   - a reply always comes back and unpacks as a gjkd.v1.Response with a status;
 *   - it echoes the request_id of a request that unpacks (0 for one that does not, with
 *     MALFORMED);
 *   - the status code is one of the table's, never INTERNAL ("a bug in the daemon"), and
 *     its message is one line;
 *   - the scene revision never goes backwards; a refused request leaves it unchanged; a
 *     request with a wrong expected_revision is refused;
 *   - query results carry finite distances, unit (or zero) normals and pair statuses 1-7.
 * The service is destroyed after each input, so LeakSanitizer sees every request's memory. */
#include "fuzz_input.h"

#include "dispatch.h"
#include "gjkd_json.h"
#include "log.h"

#define MAX_REQUESTS 16

extern const char gjk_fuzz_scene_json[];
extern const size_t gjk_fuzz_scene_json_size;

/* The scene, packed once. */
static uint8_t *scene_bytes;
static size_t scene_size;

static bool verbose;

static void init_once(void)
{
    if (scene_bytes != NULL) {
        return;
    }
    verbose = getenv("FUZZ_VERBOSE") != NULL;
    gjkd_log_set_level(GJKD_LOG_ERROR + 1); /* quiet: no line per request */
    Gjkd__V1__Scene *scene = NULL;
    gjkd_json_error err;
    FUZZ_CHECK(gjkd_json_parse_scene(gjk_fuzz_scene_json, gjk_fuzz_scene_json_size, &scene, &err),
               "fuzz scene: %s", err.message);
    scene_size = gjkd__v1__scene__get_packed_size(scene);
    scene_bytes = malloc(scene_size);
    FUZZ_CHECK(scene_bytes != NULL, "out of memory");
    gjkd__v1__scene__pack(scene, scene_bytes);
    gjkd_json_scene_free(&scene);
}

static gjkd_limits fuzz_limits(void)
{
    gjkd_limits l;
    l.max_message_bytes = 1u << 20;
    l.max_points_per_part = 512;
    l.max_parts_per_body = 16;
    l.max_links_per_robot = 16;
    l.max_robots = 4;
    l.max_obstacles = 16;
    l.max_waypoints = 64;
    l.max_pairs_returned = 64;
    l.max_name_length = 64;
    l.max_allowed_pairs = 64;
    l.max_parts = 1024;
    return l;
}

static bool known_code(Gjkd__V1__StatusCode c)
{
    return (c >= 1 && c <= 9) || (c >= 16 && c <= 25);
}

static bool is_change(Gjkd__V1__Request__BodyCase body)
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

static bool vec_finite(const Gjkd__V1__Vec3 *v)
{
    return v == NULL || (isfinite(v->x) && isfinite(v->y) && isfinite(v->z));
}

static void check_pair(const Gjkd__V1__PairResult *p)
{
    FUZZ_CHECK(isfinite(p->distance), "pair distance %g", p->distance);
    FUZZ_CHECK(vec_finite(p->point_a) && vec_finite(p->point_b) && vec_finite(p->normal) &&
                   vec_finite(p->local_point_a) && vec_finite(p->local_point_b),
               "pair with a non-finite point or normal");
    if (p->normal != NULL) {
        double n = sqrt(p->normal->x * p->normal->x + p->normal->y * p->normal->y +
                        p->normal->z * p->normal->z);
        FUZZ_CHECK(n == 0.0 || fabs(n - 1.0) <= 1e-9, "pair normal of length %.17g", n);
    }
    FUZZ_CHECK(p->status >= 1 && p->status <= 7, "pair status %d", (int)p->status);
}

static void check_state(const Gjkd__V1__StateResult *s)
{
    if (s == NULL) {
        return;
    }
    if (s->min_distance_opt_case == GJKD__V1__STATE_RESULT__MIN_DISTANCE_OPT_MIN_DISTANCE) {
        FUZZ_CHECK(isfinite(s->min_distance), "min_distance %g", s->min_distance);
    }
    if (s->closest != NULL) {
        check_pair(s->closest);
    }
    for (size_t i = 0; i < s->n_pairs; ++i) {
        check_pair(s->pairs[i]);
        if (s->closest != NULL) {
            FUZZ_CHECK(s->pairs[i]->distance >= s->closest->distance,
                       "pair %zu (%.17g) closer than the closest (%.17g)", i, s->pairs[i]->distance,
                       s->closest->distance);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_once();
    gjkd_service_def def;
    memset(&def, 0, sizeof def);
    def.limits = fuzz_limits();
    def.query_threads = 1;
    def.worker_threads = 1;
    def.store = NULL;
    gjkd_error error;
    gjkd_service *svc = gjkd_service_create(&def, &error);
    FUZZ_CHECK(svc != NULL, "service: %s", error.message);
    FUZZ_CHECK(gjkd_service_load_scene(svc, scene_bytes, scene_size, false, &error),
               "loading the fuzz scene: %s", error.message);

    fuzz_input in = fuzz_input_make(data, size);
    uint64_t revision = gjkd_service_revision(svc);
    for (int k = 0; k < MAX_REQUESTS && in.pos < in.size; ++k) {
        size_t len = fuzz_u16(&in);
        if (len > in.size - in.pos) {
            len = in.size - in.pos;
        }
        const uint8_t *req = in.data + in.pos;
        in.pos += len;

        uint8_t *reply = NULL;
        size_t reply_size = 0;
        gjkd_service_handle(svc, req, len, &reply, &reply_size);
        FUZZ_CHECK(reply != NULL, "request %d: no reply", k);
        Gjkd__V1__Response *resp = gjkd__v1__response__unpack(NULL, reply_size, reply);
        FUZZ_CHECK(resp != NULL, "request %d: the reply (%zu bytes) does not unpack", k,
                   reply_size);
        FUZZ_CHECK(resp->status != NULL, "request %d: reply without a status", k);
        Gjkd__V1__StatusCode code = resp->status->code;
        const char *message = resp->status->message != NULL ? resp->status->message : "";
        FUZZ_CHECK(known_code(code), "request %d: status code %d", k, (int)code);
        FUZZ_CHECK(code != GJKD__V1__STATUS_CODE__STATUS_CODE_INTERNAL, "request %d: INTERNAL: %s",
                   k, message);
        FUZZ_CHECK(strpbrk(message, "\n\r") == NULL, "request %d: message not one line: %s", k,
                   message);

        Gjkd__V1__Request *rq = gjkd__v1__request__unpack(NULL, len, req);
        if (verbose) { /* FUZZ_VERBOSE=1: one line per request, to see what a seed reaches */
            fprintf(stderr, "request %d: body %d -> %s %s (revision %llu)\n", k,
                    rq != NULL ? (int)rq->body_case : -1, gjkd_code_name(code), message,
                    (unsigned long long)gjkd_service_revision(svc));
        }
        uint64_t now = gjkd_service_revision(svc);
        FUZZ_CHECK(now >= revision, "request %d: revision went back from %llu to %llu", k,
                   (unsigned long long)revision, (unsigned long long)now);
        if (rq == NULL) {
            FUZZ_CHECK(code == GJKD__V1__STATUS_CODE__STATUS_CODE_MALFORMED &&
                           resp->request_id == 0,
                       "request %d: unparseable bytes answered %d, id %llu", k, (int)code,
                       (unsigned long long)resp->request_id);
            FUZZ_CHECK(now == revision, "request %d: unparseable bytes changed the scene", k);
        } else {
            FUZZ_CHECK(resp->request_id == rq->request_id, "request %d: id %llu echoed as %llu", k,
                       (unsigned long long)rq->request_id, (unsigned long long)resp->request_id);
            bool ok = code == GJKD__V1__STATUS_CODE__STATUS_CODE_OK;
            if (rq->precondition_case == GJKD__V1__REQUEST__PRECONDITION_EXPECTED_REVISION &&
                rq->expected_revision != revision) {
                /* Refused; FAILED_PRECONDITION unless something else is wrong too. */
                FUZZ_CHECK(!ok, "request %d: expected revision %llu at %llu answered %d", k,
                           (unsigned long long)rq->expected_revision, (unsigned long long)revision,
                           (int)code);
            }
            if (!ok || !is_change(rq->body_case)) {
                FUZZ_CHECK(now == revision, "request %d (body %d, code %d) changed the revision", k,
                           (int)rq->body_case, (int)code);
            }
            if (ok && is_change(rq->body_case)) {
                FUZZ_CHECK(now > revision && resp->revision == now,
                           "request %d: an accepted change left revision %llu (reply %llu)", k,
                           (unsigned long long)now, (unsigned long long)resp->revision);
            }
            if (resp->body_case == GJKD__V1__RESPONSE__BODY_STATE) {
                check_state(resp->state);
            } else if (resp->body_case == GJKD__V1__RESPONSE__BODY_TRAJECTORY) {
                for (size_t w = 0; w < resp->trajectory->n_waypoints; ++w) {
                    check_state(resp->trajectory->waypoints[w]);
                }
            }
            gjkd__v1__request__free_unpacked(rq, NULL);
        }
        revision = now;
        gjkd__v1__response__free_unpacked(resp, NULL);
        free(reply);
    }
    gjkd_service_destroy(&svc);
    FUZZ_CHECK(svc == NULL, "destroy did not clear the pointer");
    return 0;
}
