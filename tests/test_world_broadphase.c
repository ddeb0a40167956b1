/* test_world_broadphase.c — the dynamic AABB tree (core/src/broadphase.c) against brute force:
 * structure after inserts, removals and moves, height under sorted inserts, queries with a
 * fixed and with a shrinking margin. */
#include "test_world_util.h"

#include "broadphase.h"

#define N 1500

static gjk_aabb random_box(double world, double size)
{
    gjk_vec3 c = tw_vec(world);
    gjk_vec3 h = gjk_v3(rnd_range(0.01, size), rnd_range(0.01, size), rnd_range(0.01, size));
    gjk_aabb b = {gjk_sub(c, h), gjk_add(c, h)};
    return b;
}

typedef struct visit_ctx {
    int hits[N];
    int count;
    bool shrink;
    gjk_aabb query;
    double best;
    const gjk_aabb *boxes;
} visit_ctx;

static double visit(void *context, void *data, int32_t sub, double margin)
{
    visit_ctx *ctx = context;
    assert_ptr_equal(data, (void *)ctx);
    ctx->hits[ctx->count++] = sub;
    if (ctx->shrink) {
        ctx->best = fmin(ctx->best, gjk_aabb_distance(ctx->boxes[sub], ctx->query));
        return fmin(margin, ctx->best);
    }
    return margin;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Compares a query with brute force over the live boxes. */
static void check_queries(const gjk_bp_tree *tree, const gjk_aabb *boxes, const bool *live,
                          visit_ctx *ctx)
{
    for (int q = 0; q < 60; ++q) {
        gjk_aabb query = random_box(10.0, 1.0);
        double margin = q % 10 == 0 ? HUGE_VAL : rnd_range(0.0, 2.0);
        ctx->count = 0;
        ctx->shrink = false;
        gjk_bp_query(tree, query, margin, visit, ctx);
        qsort(ctx->hits, (size_t)ctx->count, sizeof(int), int_cmp);
        int expected = 0;
        for (int i = 0; i < N; ++i) {
            if (!live[i] || !(gjk_aabb_distance(boxes[i], query) <= margin))
                continue;
            assert_true(expected < ctx->count);
            assert_int_equal(ctx->hits[expected], i);
            ++expected;
        }
        assert_int_equal(expected, ctx->count);

        /* Branch and bound: shrinking the margin to the best distance so far still finds the
         * nearest box, and visits fewer. */
        ctx->count = 0;
        ctx->shrink = true;
        ctx->query = query;
        ctx->best = HUGE_VAL;
        gjk_bp_query(tree, query, HUGE_VAL, visit, ctx);
        double best = HUGE_VAL;
        int live_count = 0;
        for (int i = 0; i < N; ++i)
            if (live[i]) {
                best = fmin(best, gjk_aabb_distance(boxes[i], query));
                ++live_count;
            }
        assert_true(ctx->best == best);
        assert_true(ctx->count < live_count / 4);
    }
}

static void test_tree_random_operations(void **state)
{
    (void)state;
    test_seed(7);
    static gjk_aabb boxes[N];
    static int32_t leaves[N];
    static bool live[N];
    static visit_ctx ctx;
    ctx.boxes = boxes;
    gjk_bp_tree tree;
    gjk_bp_init(&tree);
    assert_int_equal(gjk_bp_height(&tree), -1);
    gjk_bp_query(&tree, random_box(1, 1), HUGE_VAL, visit, &ctx); /* empty: no visit */

    assert_true(gjk_bp_reserve(&tree, N));
    for (int i = 0; i < N; ++i) {
        boxes[i] = random_box(10.0, 0.5);
        leaves[i] = gjk_bp_insert(&tree, boxes[i], &ctx, i);
        live[i] = true;
    }
    assert_true(gjk_bp_validate(&tree));
    assert_int_equal(tree.leaf_count, N);
    /* AVL-style balancing: height within ~1.44 log2(n) + 2 */
    assert_true(gjk_bp_height(&tree) <= (int)(1.45 * log2((double)N + 2.0)) + 2);
    check_queries(&tree, boxes, live, &ctx);

    /* remove a third, move a third */
    for (int i = 0; i < N; ++i) {
        if (i % 3 == 0) {
            gjk_bp_remove(&tree, leaves[i]);
            live[i] = false;
        } else if (i % 3 == 1) {
            boxes[i] = random_box(10.0, 0.5);
            gjk_bp_move(&tree, leaves[i], boxes[i]);
        }
    }
    assert_true(gjk_bp_validate(&tree));
    assert_int_equal(tree.leaf_count, N - N / 3);
    check_queries(&tree, boxes, live, &ctx);

    /* re-insert into the freed nodes: no allocation needed */
    int32_t capacity = tree.capacity;
    assert_true(gjk_bp_reserve(&tree, N / 3));
    assert_int_equal(tree.capacity, capacity);
    for (int i = 0; i < N; i += 3) {
        leaves[i] = gjk_bp_insert(&tree, boxes[i], &ctx, i);
        live[i] = true;
    }
    assert_true(gjk_bp_validate(&tree));
    check_queries(&tree, boxes, live, &ctx);

    /* remove everything */
    for (int i = 0; i < N; ++i)
        gjk_bp_remove(&tree, leaves[i]);
    assert_true(gjk_bp_validate(&tree));
    assert_int_equal(gjk_bp_height(&tree), -1);
    assert_int_equal(tree.node_count, 0);
    gjk_bp_free(&tree);
}

/* Long random churn (inserts, removals, moves, some of them sorted): the tree stays valid,
 * shallow and exact. */
static void test_tree_churn(void **state)
{
    (void)state;
    test_seed(11);
    static gjk_aabb boxes[N];
    static int32_t leaves[N];
    static bool live[N];
    static visit_ctx ctx;
    ctx.boxes = boxes;
    gjk_bp_tree tree;
    gjk_bp_init(&tree);
    int count = 0;
    for (int op = 0; op < 30000; ++op) {
        int i = tw_int(N);
        if (!live[i] && (op < 10000 || tw_int(2) == 0)) {
            if (!gjk_bp_reserve(&tree, 1))
                fail();
            boxes[i] = op % 5 == 0
                           ? (gjk_aabb){gjk_v3(op * 1e-3, 0, 0), gjk_v3(op * 1e-3 + 0.1, 1, 1)}
                           : random_box(10.0, 0.5);
            leaves[i] = gjk_bp_insert(&tree, boxes[i], &ctx, i);
            live[i] = true;
            ++count;
        } else if (live[i] && tw_int(3) == 0) {
            gjk_bp_remove(&tree, leaves[i]);
            live[i] = false;
            --count;
        } else if (live[i]) {
            boxes[i] = random_box(10.0, 0.5);
            gjk_bp_move(&tree, leaves[i], boxes[i]);
        }
        if (op % 5000 == 4999) {
            assert_true(gjk_bp_validate(&tree));
            assert_int_equal(tree.leaf_count, count);
            assert_true(gjk_bp_height(&tree) <= 2 * (int)log2((double)count + 2.0) + 2);
            check_queries(&tree, boxes, live, &ctx);
        }
    }
    gjk_bp_free(&tree);
}

/* Sorted inserts (a row of boxes) would make a list of an unbalanced tree. */
static void test_tree_sorted_inserts_stay_balanced(void **state)
{
    (void)state;
    gjk_bp_tree tree;
    gjk_bp_init(&tree);
    assert_true(gjk_bp_reserve(&tree, 4096));
    for (int i = 0; i < 4096; ++i) {
        gjk_aabb b = {gjk_v3(i, 0, 0), gjk_v3(i + 0.5, 1, 1)};
        gjk_bp_insert(&tree, b, NULL, i);
    }
    assert_true(gjk_bp_validate(&tree));
    assert_true(gjk_bp_height(&tree) <= (int)(1.45 * log2(4096.0 + 2.0)) + 2);
    gjk_bp_free(&tree);
}

/* Box helpers used by the world's pruning. */
static void test_box_distance(void **state)
{
    (void)state;
    gjk_aabb a = {gjk_v3(0, 0, 0), gjk_v3(1, 1, 1)};
    gjk_aabb b = {gjk_v3(4, 5, 1.5), gjk_v3(6, 6, 2)};
    assert_near(gjk_aabb_distance(a, b), sqrt(9.0 + 16.0 + 0.25), 1e-15);
    assert_near(gjk_aabb_distance(b, a), sqrt(9.0 + 16.0 + 0.25), 1e-15);
    assert_near(gjk_aabb_distance(a, a), 0.0, 0.0);
    gjk_aabb g = gjk_aabb_grow(a, 0.5);
    assert_near(g.lower.x, -0.5, 0.0);
    assert_near(g.upper.z, 1.5, 0.0);
    gjk_aabb u = gjk_aabb_union(a, b);
    assert_near(u.lower.y, 0.0, 0.0);
    assert_near(u.upper.y, 6.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_random_operations),
        cmocka_unit_test(test_tree_churn),
        cmocka_unit_test(test_tree_sorted_inserts_stay_balanced),
        cmocka_unit_test(test_box_distance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
