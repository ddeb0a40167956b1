/* test_client_ellipsoid.c — ellipsoids end to end: a scene document with ellipsoid parts on a
 * robot and as obstacles (gjkd_json) is loaded through libgjkd-client into an in-process gjkd
 * on loopback TCP; every part pair the daemon reports is recomputed with the core in process
 * from the document's own numbers, and the stored scene comes back with the same radii. */
#define _POSIX_C_SOURCE 200809L
#include "test_server_util.h"

#include "test_loopback_server.h"

#include "gjkd_json.h"

#include <string.h>

static const char scene_doc[] =
    "{\"format\": \"gjkd-scene/1\","
    " \"robots\": [{\"name\": \"arm\", \"links\": ["
    "   {\"name\": \"l0\", \"parts\": ["
    "     {\"name\": \"ball\", \"type\": \"sphere\", \"radius\": 0.05},"
    "     {\"name\": \"bean\", \"type\": \"ellipsoid\", \"radii\": [0.08, 0.04, 0.02],"
    "      \"margin\": 0.005, \"pose\": {\"position\": [0.1, 0, 0],"
    "      \"quat_wxyz\": [0.9238795325112867, 0, 0.3826834323650898, 0]}}]},"
    "   {\"name\": \"l1\", \"parts\": ["
    "     {\"name\": \"block\", \"type\": \"box\", \"half_extents\": [0.05, 0.03, 0.02]}]}],"
    "   \"initial_link_poses\": [{\"position\": [0, 0, 0.3]},"
    "     {\"position\": [0.4, 0.1, 0.35], \"quat_wxyz\": [0.8, 0.6, 0, 0]}]}],"
    " \"obstacles\": ["
    "   {\"name\": \"egg\", \"pose\": {\"position\": [0.3, 0.35, 0.3],"
    "    \"quat_wxyz\": [0.5, 0.5, 0.5, 0.5]},"
    "    \"parts\": [{\"name\": \"shell\", \"type\": \"ellipsoid\", \"radii\": [0.3, 0.2, 0.1]}]},"
    "   {\"name\": \"pad\", \"pose\": {\"position\": [0.2, 0, 0.05]},"
    "    \"parts\": [{\"name\": \"flat\", \"type\": \"ellipsoid\", \"radii\": [0.6, 0.5, 1e-6],"
    "     \"margin\": 0.01}]}]}";

static gjk_transform pose_of_msg(const Gjkd__V1__Pose *p)
{
    gjk_transform t = gjk_transform_identity();
    if (p != NULL && p->position != NULL)
        t.p = gjk_v3(p->position->x, p->position->y, p->position->z);
    if (p != NULL && p->orientation != NULL)
        t.q = gjk_quat_normalize(gjk_quat_make(p->orientation->w, p->orientation->x,
                                               p->orientation->y, p->orientation->z));
    return t;
}

static gjk_shape shape_of_msg(const Gjkd__V1__Shape *s)
{
    gjk_shape out;
    switch (s->kind_case) {
    case GJKD__V1__SHAPE__KIND_SPHERE:
        out = gjk_make_sphere(s->sphere->radius);
        break;
    case GJKD__V1__SHAPE__KIND_BOX:
        out = gjk_make_box(
            gjk_v3(s->box->half_extents->x, s->box->half_extents->y, s->box->half_extents->z));
        break;
    case GJKD__V1__SHAPE__KIND_ELLIPSOID:
        out = gjk_make_ellipsoid(
            gjk_v3(s->ellipsoid->radii->x, s->ellipsoid->radii->y, s->ellipsoid->radii->z));
        break;
    default:
        fail_msg("unexpected shape kind %d", (int)s->kind_case);
        out = gjk_make_point();
        break;
    }
    out.margin = s->margin;
    return out;
}

static const Gjkd__V1__Part *find_part(Gjkd__V1__Part *const *parts, size_t n, const char *name)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(parts[i]->name, name) == 0)
            return parts[i];
    fail_msg("no part named %s", name);
    return NULL;
}

static void test_ellipsoid_scene_round_trip(void **state)
{
    (void)state;
    Gjkd__V1__Scene *doc;
    gjkd_json_error err;
    assert_true(gjkd_json_parse_scene(scene_doc, sizeof scene_doc - 1, &doc, &err));
    t_server *s = t_server_start(t_service(NULL));
    gjkd_client *c = t_server_connect(s);
    assert_int_equal(gjkd_load_scene(c, doc, NULL), GJKD_OK);

    /* Every part pair within 10 m: 3 parts of the arm against 2 obstacle parts, and l0 against
     * l1 (self collision is off: no self pairs). */
    gjkd_query_options o;
    memset(&o, 0, sizeof o);
    o.mode = GJKD_QUERY_ALL_WITHIN;
    o.has_max_distance = true;
    o.max_distance = 10.0;
    o.per_part = true;
    gjkd_state *st;
    assert_int_equal(gjkd_query_state(c, &o, &st), GJKD_OK);
    assert_int_equal(st->pair_count, 6);
    const Gjkd__V1__Robot *arm = doc->robots[0];
    int ellipsoid_pairs = 0;
    for (size_t i = 0; i < st->pair_count; ++i) {
        const gjkd_pair *p = &st->pairs[i];
        assert_string_equal(p->robot_a, "arm");
        size_t link = strcmp(p->link_a, "l0") == 0 ? 0 : 1;
        const Gjkd__V1__Link *l = arm->links[link];
        const Gjkd__V1__Part *pa = find_part(l->parts, l->n_parts, p->part_a);
        const Gjkd__V1__Obstacle *ob =
            strcmp(p->obstacle_b, "egg") == 0 ? doc->obstacles[0] : doc->obstacles[1];
        const Gjkd__V1__Part *pb = find_part(ob->parts, ob->n_parts, p->part_b);
        gjk_shape sa = shape_of_msg(pa->shape), sb = shape_of_msg(pb->shape);
        ellipsoid_pairs += sa.kind == GJK_SHAPE_ELLIPSOID || sb.kind == GJK_SHAPE_ELLIPSOID;
        gjk_transform ta =
            gjk_transform_mul(pose_of_msg(arm->initial_link_poses[link]), pose_of_msg(pa->pose));
        gjk_transform tb = gjk_transform_mul(pose_of_msg(ob->pose), pose_of_msg(pb->pose));
        gjk_result r = gjk_signed_distance(&sa, ta, &sb, tb, NULL, NULL);
        assert_true(r.status == GJK_STATUS_SEPARATED || r.status == GJK_STATUS_OVERLAPPING);
        assert_near(p->distance, r.distance, 1e-12);
        assert_vec_near(gjk_v3(p->point_a.x, p->point_a.y, p->point_a.z), r.point_a, 1e-9);
        assert_vec_near(gjk_v3(p->point_b.x, p->point_b.y, p->point_b.z), r.point_b, 1e-9);
        assert_vec_near(gjk_v3(p->normal.x, p->normal.y, p->normal.z), r.normal, 1e-9);
    }
    assert_int_equal(ellipsoid_pairs, 6); /* every obstacle part is an ellipsoid */
    /* The bean dips into the flat pad's margin: a penetrating pair reaches the client. */
    assert_true(st->colliding);
    gjkd_state_destroy(&st);

    /* The stored scene carries the radii as sent. */
    gjkd_arena a = {0};
    Gjkd__V1__Response *resp;
    assert_int_equal(
        gjkd_client_call(c, t_simple(&a, GJKD__V1__REQUEST__BODY_SCENE_SUMMARY), &resp), GJKD_OK);
    const Gjkd__V1__Scene *stored = resp->scene_summary->scene;
    assert_non_null(stored);
    int seen = 0;
    for (size_t i = 0; i < stored->n_obstacles; ++i) {
        const Gjkd__V1__Shape *sh = stored->obstacles[i]->parts[0]->shape;
        assert_int_equal(sh->kind_case, GJKD__V1__SHAPE__KIND_ELLIPSOID);
        const Gjkd__V1__Vec3 *r = sh->ellipsoid->radii;
        bool egg = strcmp(stored->obstacles[i]->name, "egg") == 0;
        assert_true(egg ? r->x == 0.3 && r->y == 0.2 && r->z == 0.1
                        : r->x == 0.6 && r->y == 0.5 && r->z == 1e-6 && sh->margin == 0.01);
        ++seen;
    }
    assert_int_equal(seen, 2);
    gjkd__v1__response__free_unpacked(resp, NULL);
    gjkd_arena_free(&a);

    /* A radius the core refuses is refused whole, with the field in the message. */
    doc->obstacles[0]->parts[0]->shape->ellipsoid->radii->y = 0.0;
    assert_int_equal(gjkd_load_scene(c, doc, NULL), GJKD_INVALID_INPUT);
    assert_non_null(strstr(gjkd_client_error(c), "ellipsoid.radii.y"));

    gjkd_json_scene_free(&doc);
    gjkd_client_destroy(&c);
    t_server_stop(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ellipsoid_scene_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
