/* test_hull_cases.c — gjk_hull_build on every shape of a shared case file
 * (data/cases/FORMAT.md): every listed vertex of a solid is a hull vertex, flat
 * shapes become polygons, duplicated vertices are merged, the adjacency is the
 * triangulated hull's 1-skeleton (E = 3V - 6) and hill climbing over it finds the
 * support vertex from every start.
 *
 *   test_hull_cases <file.cases>
 */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "gjk/gjk.h"

static const char *case_path;

static int compare_points(const void *a, const void *b)
{
    const gjk_vec3 *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->z > q->z) - (p->z < q->z);
}

/* Number of distinct points (exact comparison). */
static int32_t distinct_count(const gjk_vec3 *pts, int32_t n)
{
    gjk_vec3 *s = malloc((size_t)n * sizeof *s);
    assert_non_null(s);
    memcpy(s, pts, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, compare_points);
    int32_t d = n > 0;
    for (int32_t i = 1; i < n; ++i) {
        d += compare_points(&s[i], &s[i - 1]) != 0;
    }
    free(s);
    return d;
}

static double dot_at(const gjk_polytope *p, int32_t i, gjk_vec3 d)
{
    return p->x[i] * d.x + p->y[i] * d.y + p->z[i] * d.z;
}

static void check_climbing(const gjk_polytope *p, int directions)
{
    for (int k = 0; k < directions; ++k) {
        gjk_vec3 d = rnd_unit();
        double best = -HUGE_VAL;
        for (int32_t i = 0; i < p->count; ++i) {
            best = fmax(best, dot_at(p, i, d));
        }
        for (int32_t start = 0; start < p->count; ++start) {
            int32_t at = start;
            double value = dot_at(p, at, d);
            for (bool moved = true; moved;) {
                moved = false;
                for (int32_t e = p->adj_start[at]; e < p->adj_start[at + 1]; ++e) {
                    double v = dot_at(p, p->adj[e], d);
                    if (v > value) {
                        value = v;
                        at = p->adj[e];
                        moved = true;
                    }
                }
            }
            if (value != best) {
                print_error("climb from %d stopped at %d: %.17g < %.17g\n", start, at, value, best);
                fail();
            }
        }
    }
}

static void test_case_shapes(void **state)
{
    (void)state;
    gjk_case_set set;
    char err[256];
    if (gjk_cases_load(case_path, &set, err, sizeof err) != 0) {
        print_error("%s\n", err);
        fail();
    }
    assert_true(set.shape_count > 0);
    for (int32_t s = 0; s < set.shape_count; ++s) {
        const gjk_case_shape *cs = &set.shapes[s];
        gjk_polytope p;
        gjk_hull_info info;
        assert_int_equal(gjk_hull_build(&p, cs->points, cs->count, &info), GJK_STATUS_SEPARATED);
        bool flat = strncmp(cs->cls, "flat", 4) == 0;
        int32_t expect_v = distinct_count(cs->points, cs->count);
        if (info.vertex_count != expect_v || info.dimension != (flat ? 2 : 3) ||
            info.edge_count != (flat ? expect_v : 3 * expect_v - 6)) {
            print_error("shape %d (%s, %d points): dimension %d, %d vertices, %d edges; "
                        "expected %d vertices\n",
                        cs->id, cs->cls, cs->count, info.dimension, info.vertex_count,
                        info.edge_count, expect_v);
            fail();
        }
        gjk_shape shape = gjk_make_polytope(&p);
        assert_int_equal(gjk_shape_validate(&shape), GJK_STATUS_SEPARATED);
        assert_true(p.radius <= cs->radius * (1 + 1e-12));
        check_climbing(&p, p.count > 500 ? 10 : 50);
        gjk_polytope_destroy(&p);
    }
    gjk_cases_free(&set);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <file.cases>\n", argv[0]);
        return 2;
    }
    case_path = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
