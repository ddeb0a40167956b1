/* A program outside the tree that uses an installed gjkd: libgjk for three distance queries
 * with known answers, libgjkd-client for a client and a status name, and the generated
 * gjkd.v1 messages the client's header declares. tests/install/check.sh builds it with
 * pkg-config and with find_package(gjk), against the shared and the static libraries.
 * Exit status 0 when every check passes; each failure is printed. */
#include <gjk/gjk.h>
#include <gjkd_client.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "consumer: FAILED: %s\n", what);
        ++failures;
    }
}

static void check_distance(const char *what, gjk_result r, double expected)
{
    if (r.status != GJK_STATUS_SEPARATED || !(fabs(r.distance - expected) <= 1e-12)) {
        fprintf(stderr, "consumer: FAILED: %s: %s, distance %.17g, expected %.17g\n", what,
                gjk_status_name(r.status), r.distance, expected);
        ++failures;
    }
}

static void geometry(void)
{
    gjk_options options = gjk_default_options();

    /* Spheres of radii 0.5 and 0.25, centres 2 m apart: 1.25 m. */
    gjk_shape big = gjk_make_sphere(0.5), small = gjk_make_sphere(0.25);
    gjk_cache cache = {0};
    check_distance("spheres",
                   gjk_distance(&big, gjk_transform_identity(), &small,
                                gjk_transform_make(gjk_quat_identity(), gjk_v3(2.0, 0.0, 0.0)),
                                &cache, &options),
                   1.25);

    /* Cubes of half-sizes 0.5 and 0.25, the second turned 90 degrees about z (which maps it
     * onto itself) at (1.5, 0.1, -0.2): facing sides 1.5 - 0.5 - 0.25 = 0.75 m apart. */
    gjk_shape cube = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_shape die = gjk_make_box(gjk_v3(0.25, 0.25, 0.25));
    gjk_cache box_cache = {0};
    gjk_transform die_pose = gjk_transform_make(gjk_quat_make(sqrt(0.5), 0.0, 0.0, sqrt(0.5)),
                                                gjk_v3(1.5, 0.1, -0.2));
    check_distance("boxes",
                   gjk_signed_distance(&cube, gjk_transform_identity(), &die, die_pose,
                                       &box_cache, &options),
                   0.75);

    /* The hull (qhull) of a cube's 8 corners and its centre keeps the corners; a sphere of
     * radius 0.5 centred 3 m above the cube's centre is 3 - 1 - 0.5 = 1.5 m from it. */
    gjk_vec3 points[9] = {gjk_v3(0.0, 0.0, 0.0)};
    for (int i = 0; i < 8; ++i)
        points[i + 1] = gjk_v3(i & 1 ? 1.0 : -1.0, i & 2 ? 1.0 : -1.0, i & 4 ? 1.0 : -1.0);
    gjk_polytope hull;
    gjk_hull_info info;
    check(gjk_hull_build(&hull, points, 9, &info) == GJK_STATUS_SEPARATED, "gjk_hull_build");
    check(info.vertex_count == 8, "the hull keeps the 8 corners");
    gjk_shape block = gjk_make_polytope(&hull);
    gjk_cache hull_cache = {0};
    check_distance("hull and sphere",
                   gjk_distance(&block, gjk_transform_identity(), &big,
                                gjk_transform_make(gjk_quat_identity(), gjk_v3(0.0, 0.0, 3.0)),
                                &hull_cache, &options),
                   1.5);
    gjk_polytope_destroy(&hull);
}

static void client(void)
{
    check(strcmp(gjkd_status_name(GJKD_NOT_FOUND), "NOT_FOUND") == 0, "gjkd_status_name");

    /* ZeroMQ connects lazily: creating and destroying a client needs no daemon. */
    gjkd_client_options options = gjkd_client_default_options();
    check(strcmp(options.endpoint, "tcp://127.0.0.1:7471") == 0, "default endpoint");
    gjkd_client *c = NULL;
    check(gjkd_client_create(&options, &c) == GJKD_OK && c != NULL, "gjkd_client_create");
    check(gjkd_client_revision(c) == 0, "gjkd_client_revision before any call");
    gjkd_client_destroy(&c);
    check(c == NULL, "gjkd_client_destroy");

    /* The generated messages: a health request through pack and unpack. */
    Gjkd__V1__HealthRequest health = GJKD__V1__HEALTH_REQUEST__INIT;
    Gjkd__V1__Request request = GJKD__V1__REQUEST__INIT;
    request.request_id = 42;
    request.body_case = GJKD__V1__REQUEST__BODY_HEALTH;
    request.health = &health;
    size_t size = gjkd__v1__request__get_packed_size(&request);
    uint8_t *buffer = malloc(size);
    check(buffer != NULL && gjkd__v1__request__pack(&request, buffer) == size,
          "gjkd__v1__request__pack");
    Gjkd__V1__Request *back = buffer ? gjkd__v1__request__unpack(NULL, size, buffer) : NULL;
    check(back != NULL && back->request_id == 42 &&
              back->body_case == GJKD__V1__REQUEST__BODY_HEALTH,
          "gjkd__v1__request__unpack");
    if (back != NULL)
        gjkd__v1__request__free_unpacked(back, NULL);
    free(buffer);
}

int main(void)
{
    geometry();
    client();
    if (failures == 0)
        printf("consumer: libgjk %d.%d.%d and libgjkd-client: all checks passed\n",
               GJK_VERSION_MAJOR, GJK_VERSION_MINOR, GJK_VERSION_PATCH);
    return failures == 0 ? 0 : 1;
}
