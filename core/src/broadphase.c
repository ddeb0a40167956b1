/* broadphase.c — dynamic AABB tree (see broadphase.h).
 *
 * Insertion (surface-area heuristic): descending from the root, at node N the leaf L can
 * become N's sibling under a new parent, costing area(N u L) for the parent, or go down
 * into a child, which grows N by area(N u L) - area(N) (the "inheritance" cost paid by every
 * ancestor). We stop where making a sibling is cheaper than descending. Removal replaces the
 * leaf's parent by the leaf's sibling. After either, the path to the root is refitted and
 * rebalanced with the AVL rotation (promote the taller grandchild), which keeps the tree
 * height logarithmic under any insertion order (sorted inserts included). */
#include "broadphase.h"

#include "gjk/base.h"

#include <stdlib.h>
#include <string.h>

/* Query stack. An AVL-balanced tree of n leaves has height < 1.45 log2(n + 2), so 256
 * entries cover far more leaves than memory can hold. */
#define BP_STACK 256

void gjk_bp_init(gjk_bp_tree *tree)
{
    memset(tree, 0, sizeof *tree);
    tree->root = GJK_BP_NULL;
    tree->free_list = GJK_BP_NULL;
}

void gjk_bp_free(gjk_bp_tree *tree)
{
    free(tree->nodes);
    gjk_bp_init(tree);
}

bool gjk_bp_reserve(gjk_bp_tree *tree, int32_t leaves)
{
    GJK_ASSERT(leaves >= 0);
    int64_t need = (int64_t)tree->node_count + 2 * (int64_t)leaves;
    if (need <= tree->capacity)
        return true;
    if (need > INT32_MAX / 2)
        return false;
    int32_t capacity = tree->capacity > 0 ? tree->capacity : 16;
    while (capacity < need)
        capacity *= 2;
    gjk_bp_node *nodes = realloc(tree->nodes, (size_t)capacity * sizeof *nodes);
    if (!nodes)
        return false;
    /* New nodes go on the free list; nodes in use never move index. */
    for (int32_t i = tree->capacity; i < capacity; ++i) {
        nodes[i].parent = i + 1 < capacity ? i + 1 : tree->free_list;
        nodes[i].height = -1;
    }
    tree->free_list = tree->capacity;
    tree->nodes = nodes;
    tree->capacity = capacity;
    return true;
}

static int32_t alloc_node(gjk_bp_tree *tree)
{
    int32_t id = tree->free_list;
    GJK_ASSERT(id != GJK_BP_NULL); /* gjk_bp_reserve first */
    gjk_bp_node *n = &tree->nodes[id];
    tree->free_list = n->parent;
    n->parent = n->child1 = n->child2 = GJK_BP_NULL;
    n->height = 0;
    n->data = NULL;
    n->sub = 0;
    ++tree->node_count;
    return id;
}

static void free_node(gjk_bp_tree *tree, int32_t id)
{
    tree->nodes[id].parent = tree->free_list;
    tree->nodes[id].height = -1;
    tree->free_list = id;
    --tree->node_count;
}

/* Half the surface area. */
static double area(gjk_aabb b)
{
    double dx = b.upper.x - b.lower.x, dy = b.upper.y - b.lower.y, dz = b.upper.z - b.lower.z;
    return dx * dy + dy * dz + dz * dx;
}

static bool is_leaf(const gjk_bp_node *n)
{
    return n->child1 == GJK_BP_NULL;
}

static int32_t max_i32(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

/* Points the parent of `old_child` (or the root) at `new_child`. */
static void replace_child(gjk_bp_tree *tree, int32_t parent, int32_t old_child, int32_t new_child)
{
    if (parent == GJK_BP_NULL) {
        tree->root = new_child;
        return;
    }
    gjk_bp_node *p = &tree->nodes[parent];
    if (p->child1 == old_child)
        p->child1 = new_child;
    else
        p->child2 = new_child;
}

/* AVL rotation at node a when its children's heights differ by more than one: the taller
 * child moves up and its shorter child moves down to a. Returns the subtree's new root. */
static int32_t balance(gjk_bp_tree *tree, int32_t ia)
{
    gjk_bp_node *n = tree->nodes;
    gjk_bp_node *a = &n[ia];
    if (is_leaf(a) || a->height < 2)
        return ia;
    int32_t ib = a->child1, ic = a->child2;
    int32_t diff = n[ic].height - n[ib].height;
    if (diff > 1 || diff < -1) {
        /* up: the taller child; keep: a's other child. */
        int32_t up = diff > 1 ? ic : ib;
        int32_t keep = diff > 1 ? ib : ic;
        gjk_bp_node *u = &n[up];
        int32_t f = u->child1, g = u->child2;
        int32_t tall = n[f].height > n[g].height ? f : g;
        int32_t low = tall == f ? g : f;

        u->child1 = ia;
        u->parent = a->parent;
        a->parent = up;
        replace_child(tree, u->parent, ia, up);

        u->child2 = tall;
        if (diff > 1)
            a->child2 = low;
        else
            a->child1 = low;
        n[low].parent = ia;
        a->box = gjk_aabb_union(n[keep].box, n[low].box);
        a->height = 1 + max_i32(n[keep].height, n[low].height);
        u->box = gjk_aabb_union(a->box, n[tall].box);
        u->height = 1 + max_i32(a->height, n[tall].height);
        return up;
    }
    return ia;
}

/* Refits boxes and heights from `index` to the root, rebalancing on the way. */
static void refit(gjk_bp_tree *tree, int32_t index)
{
    while (index != GJK_BP_NULL) {
        index = balance(tree, index);
        gjk_bp_node *node = &tree->nodes[index];
        const gjk_bp_node *c1 = &tree->nodes[node->child1];
        const gjk_bp_node *c2 = &tree->nodes[node->child2];
        node->height = 1 + max_i32(c1->height, c2->height);
        node->box = gjk_aabb_union(c1->box, c2->box);
        index = node->parent;
    }
}

static void insert_leaf(gjk_bp_tree *tree, int32_t leaf)
{
    gjk_bp_node *n = tree->nodes;
    if (tree->root == GJK_BP_NULL) {
        tree->root = leaf;
        n[leaf].parent = GJK_BP_NULL;
        return;
    }
    gjk_aabb box = n[leaf].box;
    int32_t index = tree->root;
    while (!is_leaf(&n[index])) {
        const gjk_bp_node *node = &n[index];
        double node_area = area(node->box);
        double combined = area(gjk_aabb_union(node->box, box));
        double cost_here = 2.0 * combined;
        double inherit = 2.0 * (combined - node_area);
        double cost[2];
        int32_t child[2] = {node->child1, node->child2};
        for (int k = 0; k < 2; ++k) {
            const gjk_bp_node *c = &n[child[k]];
            double grown = area(gjk_aabb_union(c->box, box));
            cost[k] = (is_leaf(c) ? grown : grown - area(c->box)) + inherit;
        }
        if (cost_here < cost[0] && cost_here < cost[1])
            break;
        index = cost[0] <= cost[1] ? child[0] : child[1];
    }
    int32_t sibling = index;
    int32_t old_parent = n[sibling].parent;
    int32_t parent = alloc_node(tree);
    n = tree->nodes;
    n[parent].parent = old_parent;
    n[parent].box = gjk_aabb_union(box, n[sibling].box);
    n[parent].height = n[sibling].height + 1;
    n[parent].child1 = sibling;
    n[parent].child2 = leaf;
    replace_child(tree, old_parent, sibling, parent);
    n[sibling].parent = parent;
    n[leaf].parent = parent;
    refit(tree, parent);
}

static void remove_leaf(gjk_bp_tree *tree, int32_t leaf)
{
    gjk_bp_node *n = tree->nodes;
    if (leaf == tree->root) {
        tree->root = GJK_BP_NULL;
        return;
    }
    int32_t parent = n[leaf].parent;
    int32_t grand = n[parent].parent;
    int32_t sibling = n[parent].child1 == leaf ? n[parent].child2 : n[parent].child1;
    replace_child(tree, grand, parent, sibling);
    n[sibling].parent = grand;
    free_node(tree, parent);
    refit(tree, grand);
}

int32_t gjk_bp_insert(gjk_bp_tree *tree, gjk_aabb box, void *data, int32_t sub)
{
    int32_t leaf = alloc_node(tree);
    gjk_bp_node *n = &tree->nodes[leaf];
    n->box = box;
    n->data = data;
    n->sub = sub;
    insert_leaf(tree, leaf);
    ++tree->leaf_count;
    return leaf;
}

void gjk_bp_remove(gjk_bp_tree *tree, int32_t leaf)
{
    GJK_ASSERT(leaf >= 0 && leaf < tree->capacity && tree->nodes[leaf].height == 0);
    remove_leaf(tree, leaf);
    free_node(tree, leaf);
    --tree->leaf_count;
}

void gjk_bp_move(gjk_bp_tree *tree, int32_t leaf, gjk_aabb box)
{
    GJK_ASSERT(leaf >= 0 && leaf < tree->capacity && tree->nodes[leaf].height == 0);
    /* Removing frees the leaf's parent node, which the insert takes again: no allocation. */
    remove_leaf(tree, leaf);
    tree->nodes[leaf].box = box;
    tree->nodes[leaf].parent = GJK_BP_NULL;
    insert_leaf(tree, leaf);
}

void gjk_bp_query(const gjk_bp_tree *tree, gjk_aabb box, double margin, gjk_bp_query_fn *fn,
                  void *context)
{
    if (tree->root == GJK_BP_NULL || !(margin >= 0.0))
        return;
    const gjk_bp_node *n = tree->nodes;
    double m2 = margin * margin; /* INFINITY stays INFINITY */
    if (n[tree->root].height + 2 > BP_STACK) {
        /* Depth-first search needs at most height + 1 stack entries; balancing keeps the
         * height near 1.44 log2(leaves), so this never happens. Stay correct anyway: scan. */
        for (int32_t i = 0; i < tree->capacity; ++i) {
            if (n[i].height != 0 || gjk_aabb_distance_sq(n[i].box, box) > m2)
                continue;
            margin = fn(context, n[i].data, n[i].sub, margin);
            if (!(margin >= 0.0))
                return;
            m2 = margin * margin;
        }
        return;
    }
    int32_t stack[BP_STACK];
    int32_t top = 0;
    stack[top++] = tree->root;
    while (top > 0) {
        const gjk_bp_node *node = &n[stack[--top]];
        if (gjk_aabb_distance_sq(node->box, box) > m2)
            continue; /* the margin shrank since this node was pushed */
        if (is_leaf(node)) {
            margin = fn(context, node->data, node->sub, margin);
            if (!(margin >= 0.0))
                return;
            m2 = margin * margin;
            continue;
        }
        double d1 = gjk_aabb_distance_sq(n[node->child1].box, box);
        double d2 = gjk_aabb_distance_sq(n[node->child2].box, box);
        int32_t near = node->child1, far = node->child2;
        double dn = d1, df = d2;
        if (d2 < d1) {
            near = node->child2;
            far = node->child1;
            dn = d2;
            df = d1;
        }
        GJK_ASSERT(top + 2 <= BP_STACK);
        if (df <= m2)
            stack[top++] = far;
        if (dn <= m2)
            stack[top++] = near; /* popped first */
    }
}

int32_t gjk_bp_height(const gjk_bp_tree *tree)
{
    return tree->root == GJK_BP_NULL ? -1 : tree->nodes[tree->root].height;
}

static bool contains(gjk_aabb outer, gjk_aabb inner)
{
    return outer.lower.x <= inner.lower.x && outer.lower.y <= inner.lower.y &&
           outer.lower.z <= inner.lower.z && outer.upper.x >= inner.upper.x &&
           outer.upper.y >= inner.upper.y && outer.upper.z >= inner.upper.z;
}

/* Checks the subtree at `index`; counts its leaves and nodes. */
static bool validate_node(const gjk_bp_tree *tree, int32_t index, int32_t parent, int32_t *leaves,
                          int32_t *nodes, int32_t depth)
{
    if (index < 0 || index >= tree->capacity || depth > BP_STACK)
        return false;
    const gjk_bp_node *node = &tree->nodes[index];
    if (node->parent != parent || node->height < 0)
        return false;
    ++*nodes;
    if (is_leaf(node)) {
        ++*leaves;
        return node->child2 == GJK_BP_NULL && node->height == 0;
    }
    if (!validate_node(tree, node->child1, index, leaves, nodes, depth + 1) ||
        !validate_node(tree, node->child2, index, leaves, nodes, depth + 1))
        return false;
    const gjk_bp_node *c1 = &tree->nodes[node->child1];
    const gjk_bp_node *c2 = &tree->nodes[node->child2];
    return node->height == 1 + max_i32(c1->height, c2->height) && contains(node->box, c1->box) &&
           contains(node->box, c2->box);
}

bool gjk_bp_validate(const gjk_bp_tree *tree)
{
    int32_t leaves = 0, nodes = 0;
    if (tree->root != GJK_BP_NULL &&
        !validate_node(tree, tree->root, GJK_BP_NULL, &leaves, &nodes, 0))
        return false;
    int32_t free_count = 0;
    for (int32_t i = tree->free_list; i != GJK_BP_NULL; i = tree->nodes[i].parent) {
        if (i < 0 || i >= tree->capacity || ++free_count > tree->capacity)
            return false;
    }
    return leaves == tree->leaf_count && nodes == tree->node_count &&
           nodes + free_count == tree->capacity;
}
