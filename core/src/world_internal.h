/* world_internal.h — the world's data layout, shared by world.c (scene), world_query.c
 * (state and trajectory queries) and world_cache.c (named-trajectory cache). Not installed. */
#ifndef GJK_WORLD_INTERNAL_H
#define GJK_WORLD_INTERNAL_H

#include "gjk/world.h"

#include "broadphase.h"

#include <pthread.h>

/* One convex part: its own copy of the shape (a polytope's vertices live in `poly`). */
typedef struct wpart {
    gjk_shape shape;     /* shape.polytope points at `poly` for polytopes */
    gjk_polytope poly;   /* owned vertex storage (zeroed for other kinds) */
    gjk_transform pose;  /* part frame in its link's or obstacle's frame */
    gjk_vec3 box_center; /* AABB of the shape in the part frame (margin included) */
    gjk_vec3 box_half;
    double radius; /* bounding radius about the part's origin (margin included) */
    char *name;    /* never NULL; "" when unnamed */
} wpart;

/* A link or an obstacle. */
typedef struct wbody {
    char *name;
    wpart *parts; /* allocated once; parts never move (shape.polytope points into them) */
    int32_t part_count;
    double padding;
    gjk_transform pose; /* link: current link pose; obstacle: its world pose */
} wbody;

typedef struct wrobot {
    int32_t id;
    char *name;
    wbody *links;
    int32_t link_count;
    int32_t part_count; /* over all links */
    bool self_collision;
    uint8_t *disabled; /* link_count^2, symmetric: 1 = the def's disabled pair */
    /* A robot with joints (kin != NULL): link poses = FK(q, base), kept in kstate too. */
    gjk_kinematics *kin;
    gjk_kinematics_state *kstate; /* FK of the current q and base (gradients of state queries) */
    int32_t dof_count;
    double *q;         /* dof_count current values */
    double *dof_lower; /* dof_count limits, tolerance included (as gjk_kinematics_forward) */
    double *dof_upper;
    gjk_transform base;
} wrobot;

typedef struct wobstacle {
    int32_t id;
    wbody body;
    gjk_aabb *boxes; /* world AABB of each part (margin included, padding not) */
    int32_t *leaves; /* broad-phase leaf of each part (box grown by the padding) */
} wobstacle;

/* An allowed pair and/or a per-pair padding, between two body keys (a <= b). */
typedef struct wrule {
    uint64_t a, b;
    bool allowed;
    double padding; /* NaN: none */
} wrule;

/* Body keys: kind (2 bits) | object id (bits 16..47) | link + 1 (bits 0..15; 0 = every link
 * of a robot, and always 0 for obstacles). Sorted order groups a robot's links together. */
static inline uint64_t wkey(gjk_body_kind kind, int32_t object, int32_t link)
{
    return ((uint64_t)kind << 62) | ((uint64_t)(uint32_t)object << 16) |
           (uint64_t)(uint32_t)(link + 1);
}
static inline gjk_body_kind wkey_kind(uint64_t k)
{
    return (gjk_body_kind)(k >> 62);
}
static inline int32_t wkey_object(uint64_t k)
{
    return (int32_t)((k >> 16) & 0xffffffffu);
}
static inline int32_t wkey_link(uint64_t k)
{
    return (int32_t)(k & 0xffffu) - 1;
}

/* ------------------------------------------------------------ named-trajectory cache */

/* Warm-start record of one pair at one waypoint. The pair key: k0 = robot id << 22 |
 * link << 12 | part (side A), k1 = kind << 62 | object << 23 | (link + 1) << 12 | part
 * (side B). */
typedef struct wcache_entry {
    uint64_t k0, k1;
    gjk_cache cache;
    double lower; /* certified lower bound on the pair's distance at that waypoint, or -inf */
} wcache_entry;

/* The caches of one named trajectory: entries of waypoint w are
 * entries[offsets[w] .. offsets[w + 1]), in the order the query checked them (which is the
 * order the next query of the same waypoints checks them in), and `index`, an open-addressing
 * table of entry index + 1 keyed by (waypoint, k0, k1), finds any of them. Immutable once
 * stored. */
typedef struct wtraj {
    char *name;
    int32_t robot;
    int32_t waypoint_count;
    int32_t link_count;
    gjk_transform *link_poses; /* the query's waypoints (waypoint-major), for motion bounds */
    uint64_t revision;         /* world revisions the query ran on: the lower bounds hold only */
    uint64_t pose_revision;    /* while obstacles and other robots stay where they were */
    int32_t *offsets;
    wcache_entry *entries;
    int32_t *index; /* index_mask + 1 slots, 0 = empty */
    uint32_t index_mask;
    size_t bytes; /* memory charged to the cache cap */
    uint64_t last_use;
    int32_t refs;  /* queries reading it (under the cache lock) */
    bool detached; /* no longer in the cache: freed when refs drops to 0 */
} wtraj;

typedef struct wtraj_cache {
    pthread_mutex_t lock;
    wtraj **items;
    int32_t count;
    int32_t capacity;
    size_t bytes;
    size_t max_bytes;
    int32_t max_items;
    uint64_t clock;
    uint64_t hits;
    uint64_t misses;
} wtraj_cache;

bool wcache_init(wtraj_cache *c, size_t max_bytes, int32_t max_items);
void wcache_destroy(wtraj_cache *c);
/* The stored trajectory with this name and robot, with a reference taken; NULL if none.
 * Counts a hit or a miss. */
wtraj *wcache_acquire(wtraj_cache *c, const char *name, int32_t robot);
void wcache_release(wtraj_cache *c, wtraj *t);
/* Stores t (ownership passes to the cache), replacing the entry with the same name and
 * evicting least recently used entries beyond the caps; t is freed if it alone exceeds them. */
void wcache_store(wtraj_cache *c, wtraj *t);
/* Drops the entry with this name (false if absent), or every entry when name is NULL. */
bool wcache_forget(wtraj_cache *c, const char *name);
void wcache_stats(wtraj_cache *c, int32_t *count, size_t *bytes, uint64_t *hits, uint64_t *misses);
void wtraj_free(wtraj *t);
/* Builds t's index over its entries (and charges it to t->bytes); false on allocation
 * failure. */
bool wtraj_build_index(wtraj *t);
/* Waypoint w's entry for the pair; NULL when absent. *cursor (an entry index) is where the
 * entry is looked for first and is left just after the entry found: a query that checks a
 * waypoint's pairs in the recorded order finds each at its cursor. */
const wcache_entry *wtraj_find(const wtraj *t, int32_t w, uint64_t k0, uint64_t k1,
                               int32_t *cursor);

/* ------------------------------------------------------------ the world */

struct gjk_world {
    gjk_world_def def;
    uint64_t revision;
    uint64_t pose_revision;
    wrobot **robots; /* sorted by id */
    int32_t robot_count;
    wobstacle **obstacles;         /* sorted by id */
    wobstacle **obstacles_by_name; /* the same, sorted by name */
    int32_t obstacle_count;
    int32_t obstacle_capacity;
    int32_t next_robot_id;
    int32_t next_obstacle_id;
    int32_t part_count;          /* all parts */
    int32_t obstacle_part_count; /* parts of obstacles */
    wrule *rules;                /* sorted by (a, b) */
    int32_t rule_count;
    int32_t allowed_count;
    int32_t pair_padding_count;
    double max_pair_padding; /* largest per-pair padding (0 if none): broad-phase inflation */
    gjk_bp_tree tree;        /* obstacle parts */
    wtraj_cache *cache;      /* separate allocation: queries on a const world write to it */
};

const wrobot *gjk_world_robot_by_id(const gjk_world *world, int32_t id);
const wobstacle *gjk_world_obstacle_by_id(const gjk_world *world, int32_t id);
/* The rule for the exact key pair (order free); NULL if none. */
const wrule *gjk_world_rule_find(const gjk_world *world, uint64_t a, uint64_t b);

#endif /* GJK_WORLD_INTERNAL_H */
