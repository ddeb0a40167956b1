/* world_query.h — the work of one world query, shared by world_query.c (evaluation) and
 * world_result.c (the result object and the named-trajectory record). Not installed. */
#ifndef GJK_WORLD_QUERY_H
#define GJK_WORLD_QUERY_H

#include "world_internal.h"

#include <stdatomic.h>

/* A qualifying pair before it becomes a gjk_world_pair (world pointers, not copies). */
typedef struct qhit {
    uint64_t k0, k1;
    const wrobot *ra;
    const wrobot *rb;    /* NULL for an obstacle */
    const wobstacle *ob; /* NULL for a link */
    int32_t la, pa, lb, pb;
    gjk_transform frame_a; /* body frames: link pose / obstacle pose */
    gjk_transform frame_b;
    gjk_result r;
    double pad, pad_a, pad_b;
    double distance;
    gjk_status status;
    bool collision;
    int32_t part_pairs; /* gjk_world_pair.part_pair_count */
    /* options.gradients: offsets into the waypoint's grads (qwp), counts 0 when none */
    int32_t grad_a, grad_a_count, grad_b, grad_b_count;
    bool subgradient;
    uint32_t feature_a, feature_b; /* GJK's last support features (gjk_cache.index_*[0]) */
} qhit;

/* A part placed in the world. */
typedef struct qpart {
    gjk_transform pose;
    gjk_aabb box;
    double travel; /* bound on how far any point of the part has moved since the block's
                      first waypoint (0 for static parts) */
    double moved;  /* bound on how far it moved since the same waypoint of the named
                      trajectory's previous query (HUGE_VAL when unknown, 0 when static) */
} qpart;

/* A robot placed in the world for one waypoint. */
typedef struct qrobot {
    const wrobot *r;
    gjk_transform *link_poses; /* link_count, normalised */
    qpart *parts;              /* part_count, link-major */
    gjk_aabb *link_boxes;      /* link_count: the union of each link's part boxes */
    int32_t *part_start;       /* link_count + 1 offsets into parts */
} qrobot;

/* Output of one waypoint. */
typedef struct qwp {
    qhit *hits;
    int32_t count;
    bool evaluated, collision, truncated;
    double min_distance;
    gjk_world_counters counters;
    wcache_entry *named;
    int32_t named_count;
    double *grads; /* options.gradients: the reported pairs' gradients (in the hits'
                      allocation, after them) */
    int32_t grad_count;
} qwp;

/* Output of one continuous segment (world.h, Continuous segments). */
typedef struct qseg {
    bool evaluated;
    gjk_ccd_verdict verdict;
    double t;
    double bound;
    bool has_hit;
    qhit hit; /* the segment's pair at t */
    int32_t pairs_checked, pairs_undecided;
    int64_t evaluations;
} qseg;

/* One query: its options resolved, the robots it moves, the warm-start sources, per-waypoint
 * output and the shared scheduling state of its threads. */
typedef struct qjob {
    const gjk_world *world;
    gjk_world_mode mode;
    uint32_t pairs;
    double max_distance;
    int32_t max_pairs;
    bool penetration;
    bool body_pairs; /* ALL_WITHIN without per_part: one entry per body pair */
    gjk_options gjk;
    double touch_tolerance;
    int32_t waypoint_count;
    /* robots */
    int32_t active_count;
    const wrobot **active;
    const gjk_transform *traj_poses; /* trajectory: waypoint-major poses of active[0] */
    const double *traj_q; /* joint-space trajectory: waypoint-major DOF values of active[0];
                             each block writes its waypoints' FK into fk_poses (= traj_poses)
                             before it reads them */
    gjk_transform *fk_poses;
    gjk_transform base; /* the base pose of a joint-space trajectory */
    bool gradients;
    int32_t passive_count;
    qrobot *passive; /* other robots, placed once at their current poses */
    /* warm starts */
    const wtraj *prev;
    bool prev_bounds; /* prev's lower bounds still hold for the static side of each pair */
    bool record_named;
    /* output and scheduling */
    qwp *wp;
    int32_t block_count;
    atomic_int next_block;
    atomic_int first_collision;
    atomic_bool failed;
    gjk_world_cancel_fn cancel; /* options.cancel: asked before each block */
    void *cancel_user;
    atomic_int_fast64_t reported; /* entries of the blocks done (only with cancel) */
    /* continuous segments (options.continuous): waypoint_count - 1 of them */
    bool continuous;
    gjk_ccd_options ccd;
    qseg *seg;
    int32_t seg_count;
    atomic_int next_segment;
    atomic_int first_contact; /* FIRST_COLLISION: the first CONTACT segment so far */
} qjob;

/* True when the witness pair of shapes a and b (their world rotations rot_a, rot_b) along
 * normal n (from A towards B) is unique (world_gradient.c; gjk/world.h, Gradients). hint_a,
 * hint_b: a vertex of each polytope near its supporting face (GJK's last simplex), any value
 * otherwise. */
bool gjk_wq_witness_unique(const gjk_shape *a, gjk_quat rot_a, uint32_t hint_a, const gjk_shape *b,
                           gjk_quat rot_b, uint32_t hint_b, gjk_vec3 n);

/* Rules between two bodies (world_query.c): *allowed, and the per-pair padding (NaN if none).
 * Probes the exact keys first, then robot-wide ones (wild keys; 0 = none). */
void gjk_wq_rules_for(const gjk_world *world, uint64_t exact_a, uint64_t wild_a, uint64_t exact_b,
                      uint64_t wild_b, bool *allowed, double *padding);

/* Status of a pair once padding is subtracted (world_query.c). */
gjk_status gjk_wq_padded_status(const gjk_result *r, double distance, bool depth_known,
                                double touch);

/* Checks every segment of a trajectory job whose waypoints were evaluated
 * (world_continuous.c); fills job->seg. OUT_OF_MEMORY on allocation failure or
 * cancellation. */
gjk_status gjk_wq_continuous(qjob *job, int32_t threads);

/* Builds the result object from the job's waypoints (after every thread joined); in
 * FIRST_COLLISION mode first drops the waypoints after the first collision. */
gjk_status gjk_wq_assemble(qjob *job, gjk_world_result **out, bool cache_hit);

/* The named-trajectory record of this query's pair states; NULL on allocation failure (the
 * cache only saves work, so that is not an error). */
wtraj *gjk_wq_build_named(const qjob *job, const char *name, int32_t robot);

#endif /* GJK_WORLD_QUERY_H */
