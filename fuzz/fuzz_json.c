/* fuzz_json.c — the JSON documents loader (proto/json, gjkd_json): scene, link poses and
 * trajectory parsers on arbitrary text.
 *
 * Input: one selector byte (scene / poses / trajectory), then the document (not
 * NUL-terminated: the parsers take a length). Checks:
 *   - a parser returns true with a message or false with NULL and a one-line, terminated,
 *     non-empty error message that names a JSON path ("$...") or a syntax position;
 *   - a parsed scene survives the round trip: write it, parse the text again, and the two
 *     messages pack to the same bytes (the header's promise parse(write(s)) == s);
 *   - everything allocated is freed (LeakSanitizer), nothing is read past the input
 *     (ASan sees the exact-size copy libFuzzer passes). */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "fuzz_input.h"

#include "gjkd_json.h"

static void check_error(bool ok, const void *msg, const gjkd_json_error *err, const char *what)
{
    if (ok) {
        FUZZ_CHECK(msg != NULL, "%s: success without a message", what);
        return;
    }
    FUZZ_CHECK(msg == NULL, "%s: failure with a message", what);
    size_t len = strnlen(err->message, sizeof err->message);
    FUZZ_CHECK(len > 0 && len < sizeof err->message, "%s: error message empty or unterminated",
               what);
    FUZZ_CHECK(strpbrk(err->message, "\n\r") == NULL, "%s: error message is not one line: %s", what,
               err->message);
    FUZZ_CHECK(err->line >= 0 && err->column >= 0, "%s: position %d:%d", what, err->line,
               err->column);
}

static uint8_t *pack(const ProtobufCMessage *m, size_t *size)
{
    *size = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(*size > 0 ? *size : 1);
    FUZZ_CHECK(buf != NULL, "out of memory");
    FUZZ_CHECK(protobuf_c_message_pack(m, buf) == *size, "pack size mismatch");
    return buf;
}

/* parse(write(m)) must be m, byte for byte once packed. */
static void check_same(const ProtobufCMessage *m, const ProtobufCMessage *again, const char *text,
                       const char *what)
{
    size_t n1, n2;
    uint8_t *b1 = pack(m, &n1), *b2 = pack(again, &n2);
    if (n1 != n2 || memcmp(b1, b2, n1) != 0) {
        fprintf(stderr, "written document:\n%s\n", text);
    }
    FUZZ_CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0,
               "parse(write(%s)) differs from the %s (%zu vs %zu packed bytes)", what, what, n1,
               n2);
    free(b1);
    free(b2);
}

static void round_trip_scene(const Gjkd__V1__Scene *scene)
{
    char *text = gjkd_json_write_scene(scene);
    if (text == NULL) {
        return; /* out of memory or a non-finite number: documented */
    }
    Gjkd__V1__Scene *again = NULL;
    gjkd_json_error err;
    bool ok = gjkd_json_parse_scene(text, strlen(text), &again, &err);
    if (!ok) {
        fprintf(stderr, "written document:\n%s\n", text);
    }
    FUZZ_CHECK(ok, "a written scene does not parse back: %s", err.message);
    check_same(&scene->base, &again->base, text, "scene");
    free(text);
    gjkd_json_scene_free(&again);
    FUZZ_CHECK(again == NULL, "free did not clear the pointer");
}

static void round_trip_poses(const Gjkd__V1__SetLinkPosesRequest *poses)
{
    char *text = gjkd_json_write_poses(poses);
    if (text == NULL) {
        return;
    }
    Gjkd__V1__SetLinkPosesRequest *again = NULL;
    gjkd_json_error err;
    bool ok = gjkd_json_parse_poses(text, strlen(text), &again, &err);
    if (!ok) {
        fprintf(stderr, "written document:\n%s\n", text);
    }
    FUZZ_CHECK(ok, "written poses do not parse back: %s", err.message);
    check_same(&poses->base, &again->base, text, "poses");
    free(text);
    gjkd_json_poses_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    gjkd_json_error err;
    memset(&err, 0, sizeof err);
    switch (data[0] % 3) {
    case 0: {
        Gjkd__V1__Scene *scene = (Gjkd__V1__Scene *)(uintptr_t)1; /* must be overwritten */
        bool ok = gjkd_json_parse_scene(text, len, &scene, &err);
        check_error(ok, scene, &err, "scene");
        if (ok) {
            round_trip_scene(scene);
        }
        gjkd_json_scene_free(&scene);
        break;
    }
    case 1: {
        Gjkd__V1__SetLinkPosesRequest *poses = (Gjkd__V1__SetLinkPosesRequest *)(uintptr_t)1;
        bool ok = gjkd_json_parse_poses(text, len, &poses, &err);
        check_error(ok, poses, &err, "poses");
        if (ok) {
            round_trip_poses(poses);
        }
        gjkd_json_poses_free(&poses);
        /* The same bytes as a JointState document (gjkctl joints). */
        ok = gjkd_json_parse_joint_state(text, len, "arm", &poses, &err);
        check_error(ok, poses, &err, "joint state");
        if (ok) {
            round_trip_poses(poses);
        }
        gjkd_json_poses_free(&poses);
        break;
    }
    default: {
        Gjkd__V1__TrajectoryQueryRequest *traj = (Gjkd__V1__TrajectoryQueryRequest *)(uintptr_t)1;
        bool ok = gjkd_json_parse_trajectory(text, len, &traj, &err);
        check_error(ok, traj, &err, "trajectory");
        gjkd_json_trajectory_free(&traj);
        break;
    }
    }
    return 0;
}
