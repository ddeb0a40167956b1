/* test_json.c — the JSON documents (proto/json, gjkd_json): the demo files parse and round-trip,
 * and every kind of bad input is refused with a message naming its JSON path.
 * Usage: test_json DEMO_DIR (examples/demo). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gjkd_json.h"

static const char *demo_dir;

static char *read_demo(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", demo_dir, name);
    gjkd_json_error err;
    char *text = gjkd_json_read_file(path, len, &err);
    if (text == NULL)
        fail_msg("%s", err.message);
    return text;
}

/* Packs a message to bytes (for exact comparisons). */
static uint8_t *pack(const ProtobufCMessage *m, size_t *len)
{
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(*len + 1);
    assert_non_null(buf);
    protobuf_c_message_pack(m, buf);
    return buf;
}

static void demo_scene_parses_and_round_trips(void **state)
{
    (void)state;
    size_t len;
    char *text = read_demo("scene.json", &len);
    Gjkd__V1__Scene *scene;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_scene(text, len, &scene, &err));
    free(text);
    assert_int_equal(scene->n_robots, 1);
    const Gjkd__V1__Robot *arm = scene->robots[0];
    assert_string_equal(arm->name, "arm");
    assert_int_equal(arm->n_links, 7);
    assert_true(arm->self_collision);
    size_t points = 0;
    for (size_t i = 0; i < arm->n_links; i++) {
        size_t link_points = 0;
        for (size_t k = 0; k < arm->links[i]->n_parts; k++) {
            const Gjkd__V1__Shape *s = arm->links[i]->parts[k]->shape;
            assert_int_equal(s->kind_case, GJKD__V1__SHAPE__KIND_HULL);
            link_points += s->hull->n_xyz / 3;
        }
        assert_in_range(link_points, 100, 300); /* the brief's 100-300 points per link */
        points += link_points;
    }
    assert_true(points > 700);
    assert_true(scene->n_obstacles >= 10);
    assert_true(scene->n_allowed_pairs >= 1);
    assert_string_equal(scene->allowed_pairs[0]->a->robot, "arm");
    assert_string_equal(scene->allowed_pairs[0]->a->link, "base");
    assert_string_equal(scene->allowed_pairs[0]->b->obstacle, "floor");

    /* write(parse(x)) parses back to the same message, byte for byte. */
    char *written = gjkd_json_write_scene(scene);
    assert_non_null(written);
    Gjkd__V1__Scene *again;
    assert_true(gjkd_json_parse_scene(written, strlen(written), &again, &err));
    size_t l1, l2;
    uint8_t *b1 = pack(&scene->base, &l1), *b2 = pack(&again->base, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(b1, b2, l1);
    free(b1);
    free(b2);
    free(written);
    gjkd_json_scene_free(&again);
    gjkd_json_scene_free(&scene);
    assert_null(scene);
    gjkd_json_scene_free(&scene); /* safe on NULL */
}

static void demo_trajectory_and_poses_parse(void **state)
{
    (void)state;
    size_t len;
    gjkd_json_error err;
    char *text = read_demo("trajectory.json", &len);
    Gjkd__V1__TrajectoryQueryRequest *t;
    assert_true(gjkd_json_parse_trajectory(text, len, &t, &err));
    free(text);
    assert_string_equal(t->robot, "arm");
    assert_string_equal(t->name, "demo-sweep");
    assert_int_equal(t->n_waypoints, 100);
    for (size_t i = 0; i < t->n_waypoints; i++) {
        assert_int_equal(t->waypoints[i]->state_case, GJKD__V1__WAYPOINT__STATE_LINK_POSES);
        assert_int_equal(t->waypoints[i]->link_poses->n_poses, 7);
    }
    assert_null(t->options);
    /* write(parse(x)) parses back to the same request, byte for byte. */
    char *w = gjkd_json_write_trajectory(t);
    assert_non_null(w);
    Gjkd__V1__TrajectoryQueryRequest *t2;
    assert_true(gjkd_json_parse_trajectory(w, strlen(w), &t2, &err));
    size_t l1, l2;
    uint8_t *b1 = pack(&t->base, &l1), *b2 = pack(&t2->base, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(b1, b2, l1);
    free(b1);
    free(b2);
    free(w);
    gjkd_json_trajectory_free(&t2);
    gjkd_json_trajectory_free(&t);
    assert_null(t);

    text = read_demo("poses.json", &len);
    Gjkd__V1__SetLinkPosesRequest *p;
    assert_true(gjkd_json_parse_poses(text, len, &p, &err));
    free(text);
    assert_int_equal(p->n_robots, 1);
    assert_string_equal(p->robots[0]->robot, "arm");
    assert_int_equal(p->robots[0]->link_poses->n_poses, 7);
    w = gjkd_json_write_poses(p);
    assert_non_null(w);
    Gjkd__V1__SetLinkPosesRequest *p2;
    assert_true(gjkd_json_parse_poses(w, strlen(w), &p2, &err));
    b1 = pack(&p->base, &l1);
    b2 = pack(&p2->base, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(b1, b2, l1);
    free(b1);
    free(b2);
    free(w);
    gjkd_json_poses_free(&p2);
    gjkd_json_poses_free(&p);
}

static void every_shape_and_body_form(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"robots\": [{\"name\": \"r\", \"links\": [{\"name\": \"l/1\", \"parts\": ["
        "  {\"type\": \"point\"},"
        "  {\"type\": \"sphere\", \"radius\": 0.5, \"margin\": 0.01},"
        "  {\"type\": \"capsule\", \"radius\": 0.1, \"half_height\": 0.2},"
        "  {\"type\": \"cylinder\", \"radius\": 0.1, \"half_height\": 0.2},"
        "  {\"type\": \"cone\", \"radius\": 0.1, \"half_height\": 0.2,"
        "   \"pose\": {\"quat_wxyz\": [0, 1, 0, 0]}},"
        "  {\"type\": \"convex\", \"points\": [[0,0,0],[1,0,0]],"
        "   \"adjacency_start\": [0, 1, 2], \"adjacency\": [1, 0]},"
        "  {\"type\": \"ellipsoid\", \"radii\": [0.1, 0.2, 0.3], \"margin\": 0.02}]}],"
        " \"initial_link_poses\": [{\"position\": [1, 2, 3]}]}],"
        " \"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"box\","
        "   \"half_extents\": [1, 2, 3]}]}],"
        " \"allowed_pairs\": [[\"r/*\", \"o\"], [{\"robot\": \"r\", \"link\": \"l/1\"},"
        "   {\"obstacle\": \"o\"}]]}";
    Gjkd__V1__Scene *s;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_scene(doc, sizeof doc - 1, &s, &err));
    const Gjkd__V1__Link *l = s->robots[0]->links[0];
    assert_int_equal(l->n_parts, 7);
    assert_int_equal(l->parts[0]->shape->kind_case, GJKD__V1__SHAPE__KIND_POINT);
    assert_true(l->parts[1]->shape->sphere->radius == 0.5);
    assert_true(l->parts[1]->shape->margin == 0.01);
    assert_int_equal(l->parts[4]->shape->kind_case, GJKD__V1__SHAPE__KIND_CONE);
    assert_true(l->parts[4]->pose->orientation->x == 1.0);
    assert_null(l->parts[4]->pose->position);
    assert_int_equal(l->parts[5]->shape->convex->n_adjacency_start, 3);
    assert_int_equal(l->parts[6]->shape->kind_case, GJKD__V1__SHAPE__KIND_ELLIPSOID);
    assert_true(l->parts[6]->shape->ellipsoid->radii->x == 0.1 &&
                l->parts[6]->shape->ellipsoid->radii->y == 0.2 &&
                l->parts[6]->shape->ellipsoid->radii->z == 0.3);
    assert_true(l->parts[6]->shape->margin == 0.02);
    assert_string_equal(s->allowed_pairs[0]->a->robot, "r");
    assert_string_equal(s->allowed_pairs[0]->a->link, ""); /* every link */
    assert_string_equal(s->allowed_pairs[1]->a->link, "l/1");
    /* Round trip through the writer, which must use the object form for "l/1". */
    char *w = gjkd_json_write_scene(s);
    assert_non_null(w);
    Gjkd__V1__Scene *again;
    assert_true(gjkd_json_parse_scene(w, strlen(w), &again, &err));
    assert_string_equal(again->allowed_pairs[1]->a->link, "l/1");
    assert_string_equal(again->allowed_pairs[0]->a->link, "");
    const Gjkd__V1__Shape *e = again->robots[0]->links[0]->parts[6]->shape;
    assert_int_equal(e->kind_case, GJKD__V1__SHAPE__KIND_ELLIPSOID);
    assert_true(e->ellipsoid->radii->x == 0.1 && e->ellipsoid->radii->y == 0.2 &&
                e->ellipsoid->radii->z == 0.3 && e->margin == 0.02);
    free(w);
    gjkd_json_scene_free(&again);
    gjkd_json_scene_free(&s);
}

typedef struct bad_case {
    const char *kind; /* "scene", "poses", "trajectory" */
    const char *doc;
    const char *expect; /* substring of the error message */
} bad_case;

/* A robot of two links without parts, continued by the joint rows below. */
#define JOINT_ROBOT                                                                                \
    "{\"robots\": [{\"name\": \"r\", \"links\": [{\"name\": \"a\", \"parts\": []}, "               \
    "{\"name\": \"b\", \"parts\": []}], "

/* Each a distinct mistake; the message must name where it is. */
static const bad_case bad_cases[] = {
    {"scene", "", "syntax error at line 1, column 1"},
    {"scene", "{\"robots\": [}", "syntax error at line 1, column 13"},
    {"scene", "{\n\"robots\": []\n}\n}", "syntax error at line 4, column 1"},
    {"scene", "[]", "expected the document to be an object"},
    {"scene", "{\"robots\": {}}", "$.robots: expected an array of robots, got an object"},
    {"scene", "{\"robot\": []}", "$: unknown key \"robot\""},
    {"scene", "{\"robots\": [], \"robots\": []}", "duplicate key \"robots\""},
    {"scene", "{\"format\": \"gjkd-poses/1\"}", "$.format: this is a \"gjkd-poses/1\" document"},
    {"scene", "{\"robots\": [{\"links\": []}]}", "$.robots[0].name: missing"},
    {"scene", "{\"robots\": [{\"name\": \"\", \"links\": []}]}",
     "$.robots[0].name: must not be empty"},
    {"scene", "{\"robots\": [{\"name\": 5, \"links\": []}]}",
     "$.robots[0].name: expected a string, got a number"},
    {"scene", "{\"robots\": [{\"name\": \"r\", \"links\": []}]}",
     "$.robots[0].links: a robot needs at least one link"},
    {"scene", "{\"robots\": [{\"name\": \"r\", \"self_collision\": 1, \"links\": []}]}",
     "$.robots[0].self_collision: expected true or false"},
    /* A link may have no parts (a frame that never collides); an obstacle may not. */
    {"scene", "{\"obstacles\": [{\"name\": \"o\", \"parts\": []}]}",
     "$.obstacles[0].parts: needs at least one part"},
    {"scene", "{\"robots\": [{\"name\": \"r\", \"links\": [{\"name\": \"l\"}]}]}",
     "$.robots[0].links[0].parts: missing"},
    /* Joints (issue 20). */
    {"scene", JOINT_ROBOT "\"joints\": []}]}", "$.robots[0].joints: needs at least one joint"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"ball\", \"parent\": \"a\", "
                 "\"child\": \"b\"}]}]}",
     "$.robots[0].joints[0].type: unknown joint type \"ball\""},
    {"scene", JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"parent\": \"a\", \"child\": \"b\"}]}]}",
     "$.robots[0].joints[0].type: missing"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"fixed\", \"child\": \"b\"}]}]}",
     "$.robots[0].joints[0].parent: missing"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"continuous\", \"parent\": \"a\", "
                 "\"child\": \"b\"}]}]}",
     "$.robots[0].joints[0]: a continuous joint needs \"axis\""},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"continuous\", \"parent\": \"a\", "
                 "\"child\": \"b\", \"axis\": [0, 0, 0]}]}]}",
     "$.robots[0].joints[0].axis: must not be zero"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"revolute\", \"parent\": \"a\", "
                 "\"child\": \"b\", \"axis\": [0, 0, 1]}]}]}",
     "$.robots[0].joints[0]: a revolute joint needs \"limits\""},
    {"scene",
     JOINT_ROBOT
     "\"joints\": [{\"name\": \"j\", \"type\": \"prismatic\", \"parent\": \"a\", "
     "\"child\": \"b\", \"axis\": [0, 0, 1], \"limits\": {\"lower\": 1, \"upper\": 0}}]}]}",
     "$.robots[0].joints[0].limits: lower 1 > upper 0"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"prismatic\", \"parent\": \"a\", "
                 "\"child\": \"b\", \"axis\": [0, 0, 1], \"limits\": {\"lower\": 0}}]}]}",
     "$.robots[0].joints[0].limits: missing \"upper\""},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"prismatic\", \"parent\": \"a\", "
                 "\"child\": \"b\", \"axis\": [0, 0, 1], \"limits\": {\"lower\": 0, \"upper\": 1, "
                 "\"velocity\": 2}}]}]}",
     "$.robots[0].joints[0].limits: unknown key \"velocity\""},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"continuous\", \"parent\": \"a\", "
                 "\"child\": \"b\", \"axis\": [1, 0, 0], \"mimic\": {\"multiplier\": 2}}]}]}",
     "$.robots[0].joints[0].mimic.joint: missing"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"fixed\", \"parent\": \"a\", "
                 "\"child\": \"b\", \"origin\": {\"quat_wxyz\": [2, 0, 0, 0]}}]}]}",
     "$.robots[0].joints[0].origin.quat_wxyz: not a unit quaternion"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"fixed\", \"parent\": \"a\", "
                 "\"child\": \"b\"}], \"initial_positions\": [0, \"x\"]}]}",
     "$.robots[0].initial_positions[1]: expected a finite number, got a string"},
    {"scene",
     JOINT_ROBOT "\"joints\": [{\"name\": \"j\", \"type\": \"fixed\", \"parent\": \"a\", "
                 "\"child\": \"b\"}], \"initial_link_poses\": [{}, {}]}]}",
     "$.robots[0].initial_link_poses: not allowed with \"joints\""},
    {"scene", JOINT_ROBOT "\"base_pose\": {}}]}",
     "$.robots[0]: \"base_pose\" and \"initial_positions\" need \"joints\""},
    {"scene", "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"radius\": 1}]}]}",
     "$.obstacles[0].parts[0]: missing \"type\""},
    {"scene", "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"blob\"}]}]}",
     "$.obstacles[0].parts[0].type: unknown shape type \"blob\""},
    {"scene", "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"sphere\"}]}]}",
     "$.obstacles[0].parts[0].radius: missing"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"sphere\", \"radius\": -1}]}]}",
     "$.obstacles[0].parts[0].radius: must be >= 0, got -1"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"sphere\", \"radius\": 1e999}]}]}",
     "$.obstacles[0].parts[0].radius: expected a finite number, got inf"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"sphere\", \"radius\": \"1\"}]}]}",
     "$.obstacles[0].parts[0].radius: expected a finite number, got a string"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"sphere\", \"radius\": 1, "
     "\"half_height\": 2}]}]}",
     "$.obstacles[0].parts[0]: unknown key \"half_height\""},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"box\", \"half_extents\": [1, "
     "2]}]}]}",
     "$.obstacles[0].parts[0].half_extents: expected [hx, hy, hz]"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"box\", \"half_extents\": [1, -2, "
     "3]}]}]}",
     "half_extents: must be >= 0, got -2 at [1]"},
    {"scene", "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"ellipsoid\"}]}]}",
     "$.obstacles[0].parts[0].radii: missing (an array [a, b, c] of numbers > 0)"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"ellipsoid\", \"radii\": [1, 0, "
     "3]}]}]}",
     "$.obstacles[0].parts[0].radii: must be > 0, got 0 at [1]"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"ellipsoid\", \"radii\": [1, "
     "2]}]}]}",
     "$.obstacles[0].parts[0].radii: expected [a, b, c]"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"ellipsoid\", \"radius\": 1}]}]}",
     "$.obstacles[0].parts[0]: unknown key \"radius\""},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"hull\", \"points\": []}]}]}",
     "$.obstacles[0].parts[0].points: needs at least one point"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"hull\", \"points\": "
     "[[0,0,0],[1,null,0]]}]}]}",
     "$.obstacles[0].parts[0].points[1][1]: expected a finite number, got null"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"hull\", \"points\": "
     "[[0,0,0],[1,0]]}]}]}",
     "$.obstacles[0].parts[0].points[1]: expected a point [x, y, z]"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"convex\", \"points\": [[0,0,0]], "
     "\"adjacency_start\": [0]}]}]}",
     "adjacency_start: needs 2 entries"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"parts\": [{\"type\": \"convex\", \"points\": [[0,0,0]], "
     "\"adjacency\": [-1]}]}]}",
     "adjacency[0]: expected an integer >= 0"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"pose\": {\"quat_wxyz\": [1, 1, 0, 0]}, \"parts\": "
     "[{\"type\": \"point\"}]}]}",
     "$.obstacles[0].pose.quat_wxyz: not a unit quaternion (norm 1.41421356"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"pose\": {\"quat_xyzw\": [0, 0, 0, 1]}, \"parts\": "
     "[{\"type\": \"point\"}]}]}",
     "$.obstacles[0].pose: unknown key \"quat_xyzw\""},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"pose\": {\"position\": [0, 0, -1e400]}, \"parts\": "
     "[{\"type\": \"point\"}]}]}",
     "$.obstacles[0].pose.position[2]: expected a finite number, got -inf"},
    {"scene",
     "{\"obstacles\": [{\"name\": \"o\", \"padding\": -0.1, \"parts\": [{\"type\": \"point\"}]}]}",
     "$.obstacles[0].padding: must be >= 0"},
    {"scene", "{\"allowed_pairs\": [[\"a\"]]}", "$.allowed_pairs[0]: expected a pair [A, B]"},
    {"scene", "{\"allowed_pairs\": [[\"a\", \"b/c/d\"]]}",
     "$.allowed_pairs[0][1]: \"b/c/d\" is not"},
    {"scene", "{\"allowed_pairs\": [[\"a\", \"\"]]}", "$.allowed_pairs[0][1]: must not be empty"},
    {"scene", "{\"allowed_pairs\": [[\"a\", {\"robot\": \"r\", \"obstacle\": \"o\"}]]}",
     "$.allowed_pairs[0][1]: needs exactly one of"},
    {"scene",
     "{\"robots\": [{\"name\": \"r\", \"links\": [{\"name\": \"l\", \"parts\": [{\"type\": "
     "\"point\"}]}], \"disabled_pairs\": [[\"l\", 3]]}]}",
     "$.robots[0].disabled_pairs[0][1]: expected a string"},
    {"scene",
     "{\"robots\": [{\"name\": \"r\", \"links\": [{\"name\": \"l\", \"parts\": [{\"type\": "
     "\"point\"}]}], \"initial_link_poses\": [{}, {}]}]}",
     "$.robots[0].initial_link_poses: needs one pose per link (1), got 2"},
    {"poses", "{\"robot\": \"arm\"}", "missing \"link_poses\""},
    {"poses", "{\"robot\": \"arm\", \"link_poses\": []}", "\"link_poses\" must not be empty"},
    {"poses", "{\"link_poses\": [{}]}", "$.robot: missing"},
    {"poses", "{\"robot\": \"arm\", \"link_poses\": [{\"position\": [0, 0, \"x\"]}]}",
     "$.link_poses[0].position[2]: expected a finite number, got a string"},
    {"poses",
     "{\"robots\": [{\"robot\": \"a\", \"link_poses\": [{}]}, {\"robot\": \"b\", \"link_poses\": "
     "4}]}",
     "$.robots[1].link_poses: expected an array of poses, got a number"},
    {"poses", "{\"robots\": [], \"robot\": \"a\"}", "$.robots: unknown key \"robot\""},
    {"poses", "{\"robot\": \"a\", \"position\": [1], \"link_poses\": [{}]}",
     "give \"link_poses\" or a joint state"},
    {"poses", "{\"robot\": \"a\", \"name\": [\"j\"]}", "$.position: missing"},
    {"poses", "{\"robots\": [{\"robot\": \"a\", \"name\": [\"j\", \"k\"], \"position\": [1]}]}",
     "$.robots[0]: 2 names for 1 positions"},
    {"poses", "{\"robot\": \"a\", \"position\": [1, null]}",
     "$.position[1]: expected a finite number"},
    {"poses", "{\"robot\": \"a\", \"name\": [], \"position\": []}",
     "$.name: needs at least one name"},
    {"joints", "{\"position\": []}", "$.position: needs at least one position"},
    {"joints", "{\"name\": [\"\"], \"position\": [0]}", "$.name[0]: must not be empty"},
    {"joints", "{\"robot\": \"a\", \"position\": [0]}", "unknown key \"robot\""},
    {"joints", "{\"position\": [0], \"base_pose\": {\"quat_wxyz\": [2, 0, 0, 0]}}",
     "$.base_pose.quat_wxyz: not a unit quaternion"},
    {"joints", "[0, 1]", "expected the document to be an object"},
    {"trajectory", "{\"robot\": \"arm\"}", "$.waypoints: missing"},
    {"trajectory", "{\"robot\": \"arm\", \"waypoints\": []}",
     "$.waypoints: needs at least one waypoint"},
    {"trajectory",
     "{\"robot\": \"arm\", \"waypoints\": [{\"link_poses\": [{}]}, {\"link_poses\": [{}, {}]}]}",
     "$.waypoints[1]: has 2 link poses, waypoint 0 has 1"},
    {"trajectory", "{\"robot\": \"arm\", \"waypoints\": [{\"poses\": []}]}",
     "$.waypoints[0]: unknown key \"poses\""},
    {"trajectory", "{\"robot\": \"arm\", \"name\": 3, \"waypoints\": [{\"link_poses\": [{}]}]}",
     "$.name: expected a string"},
};

static void bad_input_is_refused_with_its_path(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *bc = &bad_cases[i];
        gjkd_json_error err;
        bool ok;
        void *out = (void *)1;
        if (strcmp(bc->kind, "scene") == 0) {
            Gjkd__V1__Scene *s;
            ok = gjkd_json_parse_scene(bc->doc, strlen(bc->doc), &s, &err);
            out = s;
            gjkd_json_scene_free(&s);
        } else if (strcmp(bc->kind, "joints") == 0) {
            Gjkd__V1__SetLinkPosesRequest *p;
            ok = gjkd_json_parse_joint_state(bc->doc, strlen(bc->doc), "arm", &p, &err);
            out = p;
            gjkd_json_poses_free(&p);
        } else if (strcmp(bc->kind, "poses") == 0) {
            Gjkd__V1__SetLinkPosesRequest *p;
            ok = gjkd_json_parse_poses(bc->doc, strlen(bc->doc), &p, &err);
            out = p;
            gjkd_json_poses_free(&p);
        } else {
            Gjkd__V1__TrajectoryQueryRequest *t;
            ok = gjkd_json_parse_trajectory(bc->doc, strlen(bc->doc), &t, &err);
            out = t;
            gjkd_json_trajectory_free(&t);
        }
        if (ok || out != NULL || strstr(err.message, bc->expect) == NULL)
            fail_msg("case %zu (%s %s): ok=%d message \"%s\", expected \"%s\"", i, bc->kind,
                     bc->doc, ok, ok ? "" : err.message, bc->expect);
    }
}

/* Joint states: a JointState document and a poses document mixing link poses and joint
 * states parse into RobotState's joint_positions and write back to the same message. */
static void joint_states_parse_and_round_trip(void **state)
{
    (void)state;
    const char *js = "{\"header\": {\"stamp\": 1}, \"name\": [\"b\", \"a\"], \"position\": "
                     "[0.25, -1e-300], \"velocity\": [], \"effort\": [], \"base_pose\": "
                     "{\"position\": [1, 2, 3], \"quat_wxyz\": [0, 1, 0, 0]}}";
    Gjkd__V1__SetLinkPosesRequest *p;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_joint_state(js, strlen(js), "arm", &p, &err));
    assert_int_equal(p->n_robots, 1);
    const Gjkd__V1__RobotState *rs = p->robots[0];
    assert_string_equal(rs->robot, "arm");
    assert_int_equal(rs->state_case, GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS);
    const Gjkd__V1__JointPositions *jp = rs->joint_positions;
    assert_int_equal(jp->n_names, 2);
    assert_string_equal(jp->names[1], "a");
    assert_true(jp->positions[0] == 0.25 && jp->positions[1] == -1e-300);
    assert_true(jp->base_pose->position->z == 3.0 && jp->base_pose->orientation->x == 1.0);

    const char *mixed = "{\"robots\": [{\"robot\": \"r\", \"link_poses\": [{}]}, "
                        "{\"robot\": \"arm\", \"position\": [0.1, 0.2, 0.30000000000000004]}]}";
    Gjkd__V1__SetLinkPosesRequest *m;
    assert_true(gjkd_json_parse_poses(mixed, strlen(mixed), &m, &err));
    assert_int_equal(m->robots[1]->state_case, GJKD__V1__ROBOT_STATE__STATE_JOINT_POSITIONS);
    assert_int_equal(m->robots[1]->joint_positions->n_names, 0);
    for (int k = 0; k < 2; k++) {
        Gjkd__V1__SetLinkPosesRequest *orig = k == 0 ? p : m, *back;
        char *text = gjkd_json_write_poses(orig);
        assert_non_null(text);
        assert_true(gjkd_json_parse_poses(text, strlen(text), &back, &err));
        uint8_t a[4096], b[4096];
        size_t na = gjkd__v1__set_link_poses_request__get_packed_size(orig);
        size_t nb = gjkd__v1__set_link_poses_request__get_packed_size(back);
        assert_true(na <= sizeof a && na == nb);
        gjkd__v1__set_link_poses_request__pack(orig, a);
        gjkd__v1__set_link_poses_request__pack(back, b);
        assert_memory_equal(a, b, na);
        gjkd_json_poses_free(&back);
        free(text);
    }
    gjkd_json_poses_free(&p);
    gjkd_json_poses_free(&m);
}

/* A document cut at every byte must be refused cleanly (no crash, no leak under ASan). */
static void truncated_documents_are_refused(void **state)
{
    (void)state;
    size_t len;
    char *text = read_demo("poses.json", &len);
    for (size_t n = 0; n + 2 < len; n++) {
        Gjkd__V1__SetLinkPosesRequest *p;
        gjkd_json_error err;
        assert_false(gjkd_json_parse_poses(text, n, &p, &err));
        assert_null(p);
        assert_true(err.message[0] != '\0');
    }
    free(text);
}

/* Random byte mutations of the demo documents (a deterministic xorshift generator): each is
 * parsed or refused with a message, never a crash or a leak (run under ASan in CI). */
static void mutated_documents_never_crash(void **state)
{
    (void)state;
    static const char *const names[] = {"poses.json", "trajectory.json", "scene.json"};
    static const char alphabet[] = "{}[]\",:0123456789.eE+-tfnul \n\\/\x01\xff";
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int parsed = 0, refused = 0;
    for (size_t d = 0; d < 3; d++) {
        size_t len;
        char *text = read_demo(names[d], &len);
        char *copy = malloc(len + 1);
        int rounds = d == 2 ? 60 : 400; /* the scene is 60 kB */
        for (int r = 0; r < rounds; r++) {
            memcpy(copy, text, len + 1);
            int edits = 1 + r % 4;
            for (int e = 0; e < edits; e++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                copy[x % len] = alphabet[(x >> 32) % (sizeof alphabet - 1)];
            }
            gjkd_json_error err;
            bool ok;
            if (d == 0) {
                Gjkd__V1__SetLinkPosesRequest *p;
                ok = gjkd_json_parse_poses(copy, len, &p, &err);
                gjkd_json_poses_free(&p);
            } else if (d == 1) {
                Gjkd__V1__TrajectoryQueryRequest *t;
                ok = gjkd_json_parse_trajectory(copy, len, &t, &err);
                gjkd_json_trajectory_free(&t);
            } else {
                Gjkd__V1__Scene *sc;
                ok = gjkd_json_parse_scene(copy, len, &sc, &err);
                gjkd_json_scene_free(&sc);
            }
            if (ok) {
                parsed++;
            } else {
                refused++;
                assert_true(err.message[0] == '$' || err.message[0] != '\0');
            }
        }
        free(copy);
        free(text);
    }
    assert_true(parsed > 0 && refused > 0); /* the mutations did both */
}

static void missing_file_is_reported(void **state)
{
    (void)state;
    gjkd_json_error err;
    size_t len;
    assert_null(gjkd_json_read_file("/nonexistent/scene.json", &len, &err));
    assert_non_null(strstr(err.message, "/nonexistent/scene.json: cannot open"));
}

int main(int argc, char **argv)
{
    demo_dir = argc > 1 ? argv[1] : "examples/demo";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(demo_scene_parses_and_round_trips),
        cmocka_unit_test(demo_trajectory_and_poses_parse),
        cmocka_unit_test(every_shape_and_body_form),
        cmocka_unit_test(bad_input_is_refused_with_its_path),
        cmocka_unit_test(joint_states_parse_and_round_trip),
        cmocka_unit_test(truncated_documents_are_refused),
        cmocka_unit_test(mutated_documents_never_crash),
        cmocka_unit_test(missing_file_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
