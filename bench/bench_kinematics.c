/* bench_kinematics.c — forward kinematics and point gradients (gjk/kinematics.h), ns per call.
 *
 * Models (joint tables typed in from data/robots/example-robot-data, as in
 * tests/test_kinematics.c):
 *   panda-arm  the Panda's 7 revolute joints and the fixed flange joint: 9 links, 7 DOF
 *   panda      the whole Panda description: hand, TCP and fingers (one prismatic DOF, one
 *              mimic): 13 links, 8 DOF
 *   ur5        the UR5 description: 11 links (4 fixed joints), 6 DOF
 * Figures:
 *   fk         gjk_kinematics_forward, cycling over 64 random in-limit joint vectors
 *   gradient   one gjk_kinematics_accumulate_gradient call for a point on the last link of the
 *              arm (panda_link8 / panda_leftfinger / tool0), after a forward call (not timed)
 * Each figure is the median over --batches batches of the mean ns per call in the batch (each
 * batch at least --batch-ns long), with the fastest batch beside it; preemption on a shared
 * machine moves the slow batches, not the median.
 *
 * Usage: bench_kinematics [--batches N] [--batch-ns NS] [--seed S] [--help]
 * Build: cmake -DGJK_BUILD_BENCH=ON ... && cmake --build build --target bench_kinematics */
#define _POSIX_C_SOURCE 200809L

#include "gjk/gjk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { VECTORS = 64, MAX_JOINTS = 16, MAX_BATCHES = 1001 };

static uint64_t rng = 0x853C49E6748FEA9Bu;

static double rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717u) >> 11) * 0x1.0p-53;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* A joint as its URDF states it. */
typedef struct row {
    const char *name;
    gjk_joint_type type;
    int32_t parent, child;
    double xyz[3], rpy[3], axis[3], lower, upper;
    const char *mimic;
} row;

#define HP 1.5707963267948966
#define UHP 1.57079632679
#define UL2 6.28318530718
#define UL3 3.14159265359

/* panda_description/urdf/panda.urdf. Links: 0 panda_link0 .. 8 panda_link8, 9 panda_hand,
 * 10 panda_hand_tcp, 11 panda_leftfinger, 12 panda_rightfinger. */
static const row panda_rows[12] = {
    {"panda_joint1",
     GJK_JOINT_REVOLUTE,
     0,
     1,
     {0, 0, 0.333},
     {0, 0, 0},
     {0, 0, 1},
     -2.8973,
     2.8973,
     NULL},
    {"panda_joint2",
     GJK_JOINT_REVOLUTE,
     1,
     2,
     {0, 0, 0},
     {-HP, 0, 0},
     {0, 0, 1},
     -1.7628,
     1.7628,
     NULL},
    {"panda_joint3",
     GJK_JOINT_REVOLUTE,
     2,
     3,
     {0, -0.316, 0},
     {HP, 0, 0},
     {0, 0, 1},
     -2.8973,
     2.8973,
     NULL},
    {"panda_joint4",
     GJK_JOINT_REVOLUTE,
     3,
     4,
     {0.0825, 0, 0},
     {HP, 0, 0},
     {0, 0, 1},
     -3.0718,
     -0.0698,
     NULL},
    {"panda_joint5",
     GJK_JOINT_REVOLUTE,
     4,
     5,
     {-0.0825, 0.384, 0},
     {-HP, 0, 0},
     {0, 0, 1},
     -2.8973,
     2.8973,
     NULL},
    {"panda_joint6",
     GJK_JOINT_REVOLUTE,
     5,
     6,
     {0, 0, 0},
     {HP, 0, 0},
     {0, 0, 1},
     -0.0175,
     3.7525,
     NULL},
    {"panda_joint7",
     GJK_JOINT_REVOLUTE,
     6,
     7,
     {0.088, 0, 0},
     {HP, 0, 0},
     {0, 0, 1},
     -2.8973,
     2.8973,
     NULL},
    {"panda_joint8", GJK_JOINT_FIXED, 7, 8, {0, 0, 0.107}, {0, 0, 0}, {0, 0, 0}, 0, 0, NULL},
    {"panda_hand_joint",
     GJK_JOINT_FIXED,
     8,
     9,
     {0, 0, 0},
     {0, 0, -0.7853981633974483},
     {0, 0, 0},
     0,
     0,
     NULL},
    {"panda_hand_tcp_joint",
     GJK_JOINT_FIXED,
     9,
     10,
     {0, 0, 0.1034},
     {0, 0, 0},
     {0, 0, 0},
     0,
     0,
     NULL},
    {"panda_finger_joint1",
     GJK_JOINT_PRISMATIC,
     9,
     11,
     {0, 0, 0.0584},
     {0, 0, 0},
     {0, 1, 0},
     0.0,
     0.04,
     NULL},
    {"panda_finger_joint2",
     GJK_JOINT_PRISMATIC,
     9,
     12,
     {0, 0, 0.0584},
     {0, 0, 0},
     {0, -1, 0},
     0.0,
     0.04,
     "panda_finger_joint1"},
};

/* ur_description/urdf/ur5_robot.urdf, in the file's order. Links: 0 world, 1 base_link,
 * 2 shoulder_link, 3 upper_arm_link, 4 forearm_link, 5 wrist_1_link, 6 wrist_2_link,
 * 7 wrist_3_link, 8 ee_link, 9 base, 10 tool0. */
static const row ur5_rows[10] = {
    {"shoulder_pan_joint",
     GJK_JOINT_REVOLUTE,
     1,
     2,
     {0, 0, 0.089159},
     {0, 0, 0},
     {0, 0, 1},
     -UL2,
     UL2,
     NULL},
    {"shoulder_lift_joint",
     GJK_JOINT_REVOLUTE,
     2,
     3,
     {0, 0.13585, 0},
     {0, UHP, 0},
     {0, 1, 0},
     -UL2,
     UL2,
     NULL},
    {"elbow_joint",
     GJK_JOINT_REVOLUTE,
     3,
     4,
     {0, -0.1197, 0.425},
     {0, 0, 0},
     {0, 1, 0},
     -UL3,
     UL3,
     NULL},
    {"wrist_1_joint",
     GJK_JOINT_REVOLUTE,
     4,
     5,
     {0, 0, 0.39225},
     {0, UHP, 0},
     {0, 1, 0},
     -UL2,
     UL2,
     NULL},
    {"wrist_2_joint",
     GJK_JOINT_REVOLUTE,
     5,
     6,
     {0, 0.093, 0},
     {0, 0, 0},
     {0, 0, 1},
     -UL2,
     UL2,
     NULL},
    {"wrist_3_joint",
     GJK_JOINT_REVOLUTE,
     6,
     7,
     {0, 0, 0.09465},
     {0, 0, 0},
     {0, 1, 0},
     -UL2,
     UL2,
     NULL},
    {"ee_fixed_joint", GJK_JOINT_FIXED, 7, 8, {0, 0.0823, 0}, {0, 0, UHP}, {0, 0, 0}, 0, 0, NULL},
    {"base_link-base_fixed_joint",
     GJK_JOINT_FIXED,
     1,
     9,
     {0, 0, 0},
     {0, 0, -UL3},
     {0, 0, 0},
     0,
     0,
     NULL},
    {"wrist_3_link-tool0_fixed_joint",
     GJK_JOINT_FIXED,
     7,
     10,
     {0, 0.0823, 0},
     {-UHP, 0, 0},
     {0, 0, 0},
     0,
     0,
     NULL},
    {"world_joint", GJK_JOINT_FIXED, 0, 1, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, 0, NULL},
};

typedef struct model {
    const char *name;
    const row *rows;
    int32_t joints, links;
    int32_t point_link; /* the gradient's link */
} model;

static gjk_kinematics *build(const model *m)
{
    gjk_joint_def defs[MAX_JOINTS];
    for (int32_t i = 0; i < m->joints; ++i) {
        const row *r = &m->rows[i];
        defs[i] = (gjk_joint_def){
            r->name,
            r->type,
            r->parent,
            r->child,
            gjk_transform_make(gjk_quat_from_rpy(r->rpy[0], r->rpy[1], r->rpy[2]),
                               gjk_v3(r->xyz[0], r->xyz[1], r->xyz[2])),
            gjk_v3(r->axis[0], r->axis[1], r->axis[2]),
            r->lower,
            r->upper,
            r->mimic,
            1.0,
            0.0,
        };
    }
    gjk_kinematics_def def = {m->links, defs, m->joints};
    gjk_kinematics *k = NULL;
    gjk_kinematics_error e;
    if (gjk_kinematics_build(&def, &k, &e) != GJK_KINEMATICS_OK) {
        fprintf(stderr, "bench_kinematics: %s: joint %d: %s\n", m->name, e.joint, e.reason);
        exit(1);
    }
    return k;
}

typedef struct figure {
    double median, best; /* ns per call */
} figure;

static figure summarise(double *per_call, int batches)
{
    qsort(per_call, (size_t)batches, sizeof *per_call, cmp_double);
    figure f = {per_call[batches / 2], per_call[0]};
    return f;
}

/* Calls per batch so that one batch lasts about batch_ns. */
static long calibrate(double one_call_ns, double batch_ns)
{
    long n = (long)(batch_ns / (one_call_ns > 1.0 ? one_call_ns : 1.0));
    return n < VECTORS ? VECTORS : n;
}

static void usage(FILE *to)
{
    fprintf(to, "usage: bench_kinematics [--batches N] [--batch-ns NS] [--seed S] [--help]\n"
                "  --batches N    batches per figure, odd is best (default 31, at most 1001)\n"
                "  --batch-ns NS  least duration of one batch in ns (default 200000)\n"
                "  --seed S       seed of the random joint vectors (default fixed)\n"
                "Prints ns per call of forward kinematics and of one point gradient for the\n"
                "Panda arm, the whole Panda and the UR5 (median and fastest batch).\n");
}

int main(int argc, char **argv)
{
    int batches = 31;
    double batch_ns = 200000.0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc) {
            batches = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--batch-ns") == 0 && i + 1 < argc) {
            batch_ns = atof(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            rng = strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15u + 1u;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (batches < 1 || batches > MAX_BATCHES || !(batch_ns > 0.0)) {
        usage(stderr);
        return 2;
    }
    const model models[3] = {
        {"panda-arm", panda_rows, 8, 9, 8},
        {"panda", panda_rows, 12, 13, 11},
        {"ur5", ur5_rows, 10, 11, 10},
    };
    static double per_call[MAX_BATCHES];
    double sink = 0.0;
    printf("bench_kinematics: ns per call, median (fastest) of %d batches of >= %.0f us\n\n",
           batches, batch_ns / 1000.0);
    printf("| model     | links | DOF | fk ns          | gradient ns    |\n");
    printf("|-----------|------:|----:|---------------:|---------------:|\n");
    for (int mi = 0; mi < 3; ++mi) {
        const model *m = &models[mi];
        gjk_kinematics *k = build(m);
        gjk_kinematics_state *s = NULL;
        if (gjk_kinematics_state_create(k, &s) != GJK_KINEMATICS_OK) {
            fprintf(stderr, "bench_kinematics: out of memory\n");
            return 1;
        }
        int32_t nd = gjk_kinematics_dof_count(k);
        static double q[VECTORS][MAX_JOINTS];
        for (int v = 0; v < VECTORS; ++v) {
            for (int32_t d = 0; d < nd; ++d) {
                gjk_joint_info info;
                (void)gjk_kinematics_joint_info(k, gjk_kinematics_dof_joint(k, d), &info);
                q[v][d] = info.lower + (info.upper - info.lower) * rnd();
            }
        }
        gjk_transform base =
            gjk_transform_make(gjk_quat_from_rpy(0.1, -0.2, 0.3), gjk_v3(0.5, -0.25, 0.75));

        /* Forward kinematics. */
        double t0 = now_ns();
        for (int v = 0; v < VECTORS; ++v) {
            if (gjk_kinematics_forward(k, q[v], nd, base, s, NULL) != GJK_KINEMATICS_OK) {
                fprintf(stderr, "bench_kinematics: %s: forward refused\n", m->name);
                return 1;
            }
        }
        long calls = calibrate((now_ns() - t0) / VECTORS, batch_ns);
        for (int b = 0; b < batches; ++b) {
            double start = now_ns();
            for (long c = 0; c < calls; ++c) {
                (void)gjk_kinematics_forward(k, q[c % VECTORS], nd, base, s, NULL);
                sink += gjk_kinematics_link_poses(s)[m->point_link].p.x;
            }
            per_call[b] = (now_ns() - start) / (double)calls;
        }
        figure fk = summarise(per_call, batches);

        /* One point gradient on the last link, after a forward call. */
        (void)gjk_kinematics_forward(k, q[0], nd, base, s, NULL);
        gjk_vec3 w = gjk_transform_point(gjk_kinematics_link_poses(s)[m->point_link],
                                         gjk_v3(0.01, 0.02, 0.03));
        gjk_vec3 n = gjk_normalize(gjk_v3(0.3, -0.5, 0.8));
        double grad[MAX_JOINTS] = {0};
        t0 = now_ns();
        for (int v = 0; v < VECTORS; ++v) {
            (void)gjk_kinematics_accumulate_gradient(k, s, m->point_link, w, n, 1.0, grad);
        }
        calls = calibrate((now_ns() - t0) / VECTORS, batch_ns);
        for (int b = 0; b < batches; ++b) {
            double start = now_ns();
            for (long c = 0; c < calls; ++c) {
                (void)gjk_kinematics_accumulate_gradient(k, s, m->point_link, w, n,
                                                         (c & 1) ? 1.0 : -1.0, grad);
            }
            per_call[b] = (now_ns() - start) / (double)calls;
        }
        figure gr = summarise(per_call, batches);
        sink += grad[0];
        printf("| %-9s | %5d | %3d | %6.1f (%5.1f) | %6.1f (%5.1f) |\n", m->name, m->links, nd,
               fk.median, fk.best, gr.median, gr.best);
        gjk_kinematics_state_destroy(&s);
        gjk_kinematics_destroy(&k);
    }
    if (sink == 1e300) {
        printf("?\n"); /* keeps the results alive */
    }
    return 0;
}
