/* test_gradient_features.c — the subgradient flag (gjk/world.h, Gradients) when a polytope
 * meets a shape whose supporting face is found in closed form. world_gradient.c decides the
 * closed-form side first and skips the polytope's face search when that side is a point; the
 * flag must be what the geometry says, and the same with the two bodies' roles exchanged
 * (the polytope on the robot and the primitive an obstacle, or the other way round):
 *   cube hull face-parallel to a box wall         flagged (a face of witnesses)
 *   cube hull turned to meet the wall with a vertex  not flagged
 *   cube hull face against a ball                 not flagged (the ball's side is a point)
 *   cube hull face against a cylinder's side      flagged (a line of the side on a face)
 *   cube hull edge across a capsule               not flagged (crossing segments)
 *   cube hull edge along a capsule                flagged (parallel segments)
 * Two polytopes: world_gradient.c searches the one with fewer vertices first and skips the
 * other's search when that one is a point; the flag must not depend on that order:
 *   cube face against an octahedron's vertex      not flagged (the smaller side is a point)
 *   cube vertex against a hexagonal prism's face  not flagged (the smaller side is a point,
 *                                                 the larger one a face)
 *   cube face against a hexagonal prism's face    flagged (a face of witnesses) */
#include "test_world_util.h"
#include "gjk/hull.h"

#include <math.h>

static gjk_polytope cube;

static gjk_part_def cube_part(gjk_quat q)
{
    gjk_part_def p;
    memset(&p, 0, sizeof p);
    p.shape = gjk_make_polytope(&cube);
    p.pose = gjk_transform_make(q, gjk_v3(0, 0, 0));
    return p;
}

/* A cart on a prismatic x joint at q = 0 carrying `moving`, and one obstacle `fixed` at
 * x = 0.5; returns the flag of the one reported pair. */
static bool flag_of(gjk_part_def moving, gjk_part_def fixed)
{
    gjk_world *w = NULL;
    assert_ok(gjk_world_create(NULL, &w));
    gjk_link_def links[2];
    memset(links, 0, sizeof links);
    links[0].name = "rail";
    links[1].name = "cart";
    links[1].parts = &moving;
    links[1].part_count = 1;
    gjk_joint_def j;
    memset(&j, 0, sizeof j);
    j.name = "slide";
    j.type = GJK_JOINT_PRISMATIC;
    j.parent = 0;
    j.child = 1;
    j.origin = gjk_transform_identity();
    j.axis = gjk_v3(1, 0, 0);
    j.lower = -1;
    j.upper = 1;
    gjk_robot_def rd;
    memset(&rd, 0, sizeof rd);
    rd.name = "cart";
    rd.links = links;
    rd.link_count = 2;
    rd.joints = &j;
    rd.joint_count = 1;
    int32_t cart = 0;
    assert_ok(gjk_world_put_robot(w, &rd, &cart));
    gjk_obstacle_def od;
    memset(&od, 0, sizeof od);
    od.name = "wall";
    od.parts = &fixed;
    od.part_count = 1;
    od.pose = tw_at(0.5, 0, 0);
    assert_ok(gjk_world_put_obstacle(w, &od, NULL));
    gjk_world_query_options o = gjk_world_default_query_options();
    o.gradients = true;
    gjk_world_result *r = NULL;
    assert_ok(gjk_world_query_state(w, &o, &r));
    assert_int_equal(r->waypoints[0].pair_count, 1);
    const gjk_world_pair *p = &r->waypoints[0].pairs[0];
    assert_true(p->distance > 0.0);
    assert_int_equal(p->gradient_a_count, 1);
    bool flag = p->subgradient;
    gjk_world_result_destroy(&r);
    gjk_world_destroy(&w);
    return flag;
}

/* The flag with the cube on the cart and `other` as the obstacle, and with `other` on the
 * cart and the cube (same orientation) as the obstacle: the two must agree. */
static bool both_ways(gjk_quat cube_q, gjk_part_def other)
{
    bool a = flag_of(cube_part(cube_q), other);
    bool b = flag_of(other, cube_part(cube_q));
    assert_int_equal(a, b);
    return a;
}

static void test_polytope_against_closed_forms(void **state)
{
    (void)state;
    gjk_vec3 pts[8];
    for (int i = 0; i < 8; ++i)
        pts[i] = gjk_v3(i & 1 ? 0.1 : -0.1, i & 2 ? 0.1 : -0.1, i & 4 ? 0.1 : -0.1);
    assert_int_equal(gjk_hull_build(&cube, pts, 8, NULL), GJK_STATUS_SEPARATED);
    assert_non_null(cube.adj_start);
    gjk_quat id = gjk_quat_identity();
    gjk_quat vertex_on = gjk_quat_from_rpy(0, 0.6154797086703874, 0.785398163397448);
    gjk_quat edge_on = gjk_quat_from_rpy(0, 0, 0.785398163397448); /* an edge along z */

    gjk_part_def wall = tw_box_part(0.05, 1, 1, gjk_v3(0, 0, 0));
    assert_true(both_ways(id, wall));
    assert_false(both_ways(vertex_on, wall));

    gjk_part_def ball;
    memset(&ball, 0, sizeof ball);
    ball.shape = gjk_make_sphere(0.1);
    ball.pose = gjk_transform_identity();
    assert_false(both_ways(id, ball));

    gjk_part_def cyl;
    memset(&cyl, 0, sizeof cyl);
    cyl.shape = gjk_make_cylinder(0.1, 0.3); /* axis z: its side is a line along z */
    cyl.pose = gjk_transform_identity();
    assert_true(both_ways(id, cyl));

    gjk_part_def cap;
    memset(&cap, 0, sizeof cap);
    cap.shape = gjk_make_capsule(0.05, 0.3);
    cap.pose = gjk_transform_make(gjk_quat_from_rpy(1.5707963267948966, 0, 0), gjk_v3(0, 0, 0));
    assert_false(both_ways(edge_on, cap)); /* capsule along y, the cube's edge along z */
    cap.pose = gjk_transform_identity();     /* along z: parallel to the edge */
    assert_true(both_ways(edge_on, cap));
    gjk_polytope_destroy(&cube);
}

static gjk_part_def hull_part(gjk_polytope *p, const gjk_vec3 *pts, int32_t n)
{
    assert_int_equal(gjk_hull_build(p, pts, n, NULL), GJK_STATUS_SEPARATED);
    assert_non_null(p->adj_start);
    assert_int_equal(p->count, n);
    gjk_part_def part;
    memset(&part, 0, sizeof part);
    part.shape = gjk_make_polytope(p);
    part.pose = gjk_transform_identity();
    return part;
}

static void test_polytope_against_polytope(void **state)
{
    (void)state;
    gjk_vec3 pts[12];
    for (int i = 0; i < 8; ++i)
        pts[i] = gjk_v3(i & 1 ? 0.1 : -0.1, i & 2 ? 0.1 : -0.1, i & 4 ? 0.1 : -0.1);
    assert_int_equal(gjk_hull_build(&cube, pts, 8, NULL), GJK_STATUS_SEPARATED);
    gjk_quat id = gjk_quat_identity();
    gjk_quat vertex_on = gjk_quat_from_rpy(0, 0.6154797086703874, 0.785398163397448);

    gjk_polytope octa, prism;
    for (int i = 0; i < 6; ++i) { /* vertices on the axes: one points at the cube's face */
        double v = i & 1 ? 0.1 : -0.1;
        pts[i] = gjk_v3(i / 2 == 0 ? v : 0, i / 2 == 1 ? v : 0, i / 2 == 2 ? v : 0);
    }
    gjk_part_def o = hull_part(&octa, pts, 6);
    assert_false(both_ways(id, o));

    for (int i = 0; i < 12; ++i) { /* hexagon at angles 30 + 60 k: side faces normal to x */
        double a = (30.0 + 60.0 * (i % 6)) * 3.14159265358979323846 / 180.0;
        pts[i] = gjk_v3(0.1 * cos(a), 0.1 * sin(a), i < 6 ? -0.1 : 0.1);
    }
    gjk_part_def h = hull_part(&prism, pts, 12);
    assert_false(both_ways(vertex_on, h));
    assert_true(both_ways(id, h));

    gjk_polytope_destroy(&octa);
    gjk_polytope_destroy(&prism);
    gjk_polytope_destroy(&cube);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polytope_against_closed_forms),
        cmocka_unit_test(test_polytope_against_polytope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
