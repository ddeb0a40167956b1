/* shapes_demo.c — signed distance, witness points and normals between a few shape pairs.
 *
 * Builds shapes with the gjk_make_* constructors and a hull with gjk_hull_build, places
 * them with poses (unit quaternion w, x, y, z + translation) and asks gjk_signed_distance
 * for each pair: positive distance = gap, negative = penetration depth (EPA). The last
 * column checks the contract point_b - point_a = distance * normal on every answer.
 *
 *   build/examples/shapes_demo            table of all pairs
 */
#include <stdio.h>
#include <stdlib.h>

#include "gjk/gjk.h"

#define PI 3.14159265358979323846

/* A deterministic cloud: points in an ellipsoid, so the hull has interior points to drop. */
static uint64_t rng_state = 0x853C49E6748FEA9Bu;

static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    double u = (double)((rng_state * 2685821657736338717u) >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * u;
}

static void ellipsoid_cloud(gjk_vec3 *pts, int n, gjk_vec3 semi_axes)
{
    for (int i = 0; i < n;) {
        gjk_vec3 u = gjk_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        if (gjk_length_sq(u) <= 1.0) {
            pts[i++] = gjk_v3(u.x * semi_axes.x, u.y * semi_axes.y, u.z * semi_axes.z);
        }
    }
}

static gjk_transform pose(gjk_vec3 axis, double degrees, gjk_vec3 position)
{
    return gjk_transform_make(gjk_quat_from_axis_angle(gjk_normalize(axis), degrees * PI / 180.0),
                              position);
}

typedef struct demo_pair {
    const char *name;
    const char *about;
    const gjk_shape *a;
    gjk_transform pose_a;
    const gjk_shape *b;
    gjk_transform pose_b;
} demo_pair;

static void print_vec(const char *label, gjk_vec3 v)
{
    printf("%s(%+9.6f, %+9.6f, %+9.6f)", label, v.x, v.y, v.z);
}

int main(void)
{
    /* Shapes, each in its own local frame (see gjk/shape.h). */
    gjk_shape sphere = gjk_make_sphere(0.5);
    gjk_shape box = gjk_make_box(gjk_v3(0.4, 0.3, 0.2));
    gjk_shape capsule = gjk_make_capsule(0.1, 0.6);
    gjk_shape crate = gjk_make_box(gjk_v3(0.5, 0.5, 0.5));
    gjk_shape cylinder = gjk_make_cylinder(0.3, 0.5);
    gjk_shape rounded_cone = gjk_make_cone(0.35, 0.4);
    rounded_cone.margin = 0.05; /* a 5 cm safety shell around the cone */
    gjk_shape tool = gjk_make_box(gjk_v3(0.05, 0.05, 0.25));

    enum { CLOUD = 400 };
    static gjk_vec3 cloud[CLOUD];
    ellipsoid_cloud(cloud, CLOUD, gjk_v3(0.6, 0.4, 0.3));
    gjk_polytope rock;
    gjk_hull_info info;
    gjk_status hs = gjk_hull_build(&rock, cloud, CLOUD, &info);
    if (hs != GJK_STATUS_SEPARATED) {
        fprintf(stderr, "shapes_demo: hull failed: %s\n", gjk_status_message(hs));
        return 1;
    }
    gjk_shape hull = gjk_make_polytope(&rock);

    const demo_pair pairs[] = {
        {"sphere    vs box", "sphere r=0.5 beside a 0.8 x 0.6 x 0.4 box turned 30 deg", &sphere,
         pose(gjk_v3(0, 0, 1), 0, gjk_v3(0, 0, 0)), &box,
         pose(gjk_v3(0, 0, 1), 30, gjk_v3(1.2, 0.3, 0.1))},
        {"capsule   vs capsule", "two r=0.1 capsules on skew axes (x and y), 0.5 apart in z",
         &capsule, pose(gjk_v3(0, 1, 0), 90, gjk_v3(0, 0, 0)), &capsule,
         pose(gjk_v3(1, 0, 0), 90, gjk_v3(0.2, -0.1, 0.5))},
        {"box       vs box", "unit crates overlapping; EPA gives the depth", &crate,
         pose(gjk_v3(0, 0, 1), 0, gjk_v3(0, 0, 0)), &crate,
         pose(gjk_v3(1, 1, 0), 20, gjk_v3(0.85, 0.2, 0.1))},
        {"hull      vs cylinder", "hull of a 400-point cloud next to a tilted cylinder", &hull,
         pose(gjk_v3(1, 2, 3), 40, gjk_v3(0, 0, 0)), &cylinder,
         pose(gjk_v3(1, 0, 0), 60, gjk_v3(0.2, 0.9, 0.3))},
        {"cone+5cm  vs tool", "cone with a 5 cm margin and a thin tool box just outside it",
         &rounded_cone, pose(gjk_v3(0, 0, 1), 0, gjk_v3(0, 0, 0)), &tool,
         pose(gjk_v3(0, 1, 0), 15, gjk_v3(0.55, 0.0, -0.2))},
        {"cone+5cm  vs tool", "the same tool pushed 6 cm into the safety shell", &rounded_cone,
         pose(gjk_v3(0, 0, 1), 0, gjk_v3(0, 0, 0)), &tool,
         pose(gjk_v3(0, 1, 0), 15, gjk_v3(0.49, 0.0, -0.2))},
    };
    enum { PAIRS = sizeof pairs / sizeof pairs[0] };

    printf("libgjk %d.%d.%d — signed distance between convex shapes (metres)\n", GJK_VERSION_MAJOR,
           GJK_VERSION_MINOR, GJK_VERSION_PATCH);
    printf("hull: %d points -> %d vertices, %d adjacency edges (dimension %d)\n\n",
           info.input_count, info.vertex_count, info.edge_count, info.dimension);
    printf("distance > 0: gap; distance < 0: penetration depth (EPA); |pb-pa-d*n| checks\n"
           "the witnesses: point_b - point_a = distance * normal.\n\n");
    printf(" #  pair                   status           distance [m]  gjk/epa  |pb-pa-d*n|\n");
    printf("--  ---------------------  ---------------  ------------  -------  -----------\n");

    int failures = 0;
    gjk_result results[PAIRS];
    for (int i = 0; i < PAIRS; ++i) {
        const demo_pair *p = &pairs[i];
        gjk_result r = gjk_signed_distance(p->a, p->pose_a, p->b, p->pose_b, NULL, NULL);
        results[i] = r;
        double residual =
            gjk_length(gjk_sub(gjk_sub(r.point_b, r.point_a), gjk_scale(r.normal, r.distance)));
        printf("%2d  %-21s  %-15s  %+12.9f  %3d/%-3d  %11.1e\n", i + 1, p->name,
               gjk_status_name(r.status), r.distance, r.iterations, r.epa_iterations, residual);
        if (r.status == GJK_STATUS_INVALID_INPUT || !(residual <= 1e-9)) {
            ++failures;
        }
    }

    printf("\nwitness points (world frame) and unit normal from A to B:\n");
    for (int i = 0; i < PAIRS; ++i) {
        const gjk_result *r = &results[i];
        printf("\n%2d  %s\n    ", i + 1, pairs[i].about);
        print_vec("on A ", r->point_a);
        printf("\n    ");
        print_vec("on B ", r->point_b);
        printf("\n    ");
        print_vec("n    ", r->normal);
        printf("\n");
    }

    gjk_polytope_destroy(&rock);
    if (failures > 0) {
        fprintf(stderr, "shapes_demo: %d answer(s) failed the witness check\n", failures);
        return 1;
    }
    return 0;
}
