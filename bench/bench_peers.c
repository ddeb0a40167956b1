/* bench_peers.c — gjkd against libccd, FCL and Bullet on the shared case files.
 *
 * Design (fairness and crash isolation):
 *  - The driver loads the cases, builds every shape's hull and every engine's own shapes
 *    once (untimed: shape preprocessing is excluded from all timings, and so is turning a
 *    case's poses into each engine's pose type).
 *  - The cases are cut into chunks. For each chunk the engines run one after the other (the
 *    order rotates from chunk to chunk), each in a child process (fork + pipe) that times
 *    its cases and writes one record per case back. A child that dies (a signal: an abort
 *    inside a peer, or SIGALRM after --hang seconds) costs the case it was on, which is
 *    recorded as a failure; a new child carries on from the next case.
 *  - Per case: one untimed query gives the answer that is checked against the case's exact
 *    O line; then the query is repeated in a tight loop, k times with k doubled until one
 *    loop takes >= --min-us, and the median of --samples such loops, divided by k, is the
 *    case's ns per query.
 *  - Separated and touching cases ask for the distance, intersecting ones for the depth.
 *  - Trajectory cases are also timed warm, from the state the engine's previous query on
 *    the same obstacle left (the driver keeps that state between chunks and children).
 * Output: Markdown tables on stdout, CSV files and a raw per-case CSV (see --help). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_cases.h"
#include "peers.h"

#define MAX_ENGINES 16
#define NAN_D ((double)NAN)

enum { ST_OK = 0, ST_CRASH, ST_HANG, ST_NONFINITE, ST_ENGINE_FAIL, ST_NOT_RUN };
static const char *const status_names[] = {"ok",        "crash",       "hang",
                                           "nonfinite", "engine-fail", "not-run"};

typedef struct record {
    int32_t case_index;
    int32_t status;
    bench_answer ans;      /* the checked answer (cold, or warm for a warm_repeat engine) */
    bench_answer ans_warm; /* trajectory: warm-started answer */
    double ns;             /* median ns per query; NaN if not timed */
    double ns_warm;        /* trajectory warm start; NaN otherwise */
    bool has_warm;
    bool has_state;
    unsigned char state[BENCH_WARM_MAX]; /* warm state after this case (trajectory) */
} record;

typedef struct config {
    const char *cases_path;
    const char *out_dir;  /* results/<machine>/ ; NULL = no CSV */
    const char *raw_path; /* per-case CSV; NULL = none */
    const char *tag;      /* quick | full | ... : file name suffix */
    const char *engines;  /* comma list; NULL = all */
    int chunk;
    int samples;
    double min_ns;
    int hang_s;
    int limit;
} config;

typedef struct run {
    config cfg;
    gjk_case_set set;
    bench_hull *hulls;
    bench_world world;
    const bench_engine *eng[MAX_ENGINES];
    void *ctx[MAX_ENGINES];
    int n_eng;
    record *rec[MAX_ENGINES];         /* [engine][case] */
    unsigned char *warm[MAX_ENGINES]; /* [engine][pair key] state */
    bool *warm_valid[MAX_ENGINES];
} run;

/* ------------------------------------------------------------------ worker (child) */

static bool is_traj(const gjk_case *c)
{
    return strcmp(c->subset, "traj") == 0;
}
static bool is_int(const gjk_case *c)
{
    return strcmp(c->state, "intersecting") == 0;
}
static bool is_sep(const gjk_case *c)
{
    return strcmp(c->state, "separated") == 0;
}

static size_t pair_key(const run *r, const gjk_case *c)
{
    return (size_t)c->shape_a * (size_t)r->set.shape_count + (size_t)c->shape_b;
}

typedef struct timed {
    const bench_engine *e;
    void *ctx;
    const void *pair;
    bench_kind kind;
    unsigned char *warm;       /* NULL: cold */
    const unsigned char *from; /* non-NULL: copy into warm before every query */
} timed;

static void run_once(const timed *t, bench_answer *out)
{
    if (t->from)
        memcpy(t->warm, t->from, t->e->warm_size);
    t->e->query(t->ctx, t->pair, t->kind, t->warm, out);
}

static double time_query(const timed *t, const config *cfg)
{
    bench_answer sink;
    long k = 1;
    for (;;) {
        double t0 = bench_now_ns();
        for (long j = 0; j < k; j++)
            run_once(t, &sink);
        double el = bench_now_ns() - t0;
        if (el >= cfg->min_ns || k >= (1L << 22))
            break;
        k *= 2;
    }
    double samples[64];
    int n = cfg->samples < 64 ? cfg->samples : 64;
    for (int s = 0; s < n; s++) {
        double t0 = bench_now_ns();
        for (long j = 0; j < k; j++)
            run_once(t, &sink);
        samples[s] = (bench_now_ns() - t0) / (double)k;
    }
    return bench_median(samples, (size_t)n);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static void worker(run *r, int ei, int from, int to, int fd)
{
    const bench_engine *e = r->eng[ei];
    void *ctx = r->ctx[ei];
    _Alignas(64) unsigned char pair[BENCH_PAIR_MAX];
    _Alignas(64) unsigned char warm[BENCH_WARM_MAX];
    _Alignas(64) unsigned char prev[BENCH_WARM_MAX];
    for (int i = from; i < to; i++) {
        const gjk_case *c = &r->set.cases[i];
        record rec;
        memset(&rec, 0, sizeof rec);
        rec.case_index = i;
        rec.ns = NAN_D;
        rec.ns_warm = NAN_D;
        alarm((unsigned)r->cfg.hang_s);
        e->prepare(ctx, c, pair);
        timed t = {e, ctx, pair, is_int(c) ? BENCH_PENETRATION : BENCH_DISTANCE, NULL, NULL};
        if (e->warm_repeat) {
            /* Warm-start each query from the one before it on the same case. */
            memset(warm, 0, sizeof warm);
            t.warm = warm;
            run_once(&t, &rec.ans);
        }
        run_once(&t, &rec.ans);
        rec.ns = time_query(&t, &r->cfg);
        if (is_traj(c) && e->warm_size > 0 && !e->warm_repeat) {
            size_t key = pair_key(r, c);
            if (r->warm_valid[ei][key])
                memcpy(prev, r->warm[ei] + key * e->warm_size, e->warm_size);
            else
                memset(prev, 0, sizeof prev);
            timed tw = t;
            tw.warm = warm;
            tw.from = prev;
            run_once(&tw, &rec.ans_warm);
            rec.has_warm = true;
            memcpy(rec.state, warm, e->warm_size);
            rec.has_state = true;
            rec.ns_warm = time_query(&tw, &r->cfg);
            /* Later cases of this chunk see the new state too. */
            memcpy(r->warm[ei] + key * e->warm_size, rec.state, e->warm_size);
            r->warm_valid[ei][key] = true;
        }
        alarm(0);
        if (write_all(fd, &rec, sizeof rec) != 0)
            _exit(3);
    }
}

/* ------------------------------------------------------------------ driver */

static int classify(const bench_engine *e, const gjk_case *c, const bench_answer *a)
{
    (void)c;
    if (!a->ok)
        return ST_ENGINE_FAIL;
    if (a->has_sd && !isfinite(a->sd))
        return ST_NONFINITE;
    if (a->has_normal && !gjk_vec3_is_finite(a->normal))
        return ST_NONFINITE;
    (void)e;
    return ST_OK;
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    char *p = buf;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static void run_chunk(run *r, int ei, int from, int to)
{
    const bench_engine *e = r->eng[ei];
    int pos = from;
    while (pos < to) {
        int fds[2];
        if (pipe(fds) != 0) {
            perror("pipe");
            exit(1);
        }
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            exit(1);
        }
        if (pid == 0) {
            close(fds[0]);
            signal(SIGALRM, SIG_DFL);
            worker(r, ei, pos, to, fds[1]);
            close(fds[1]);
            _exit(0);
        }
        close(fds[1]);
        record rec;
        while (read_full(fds[0], &rec, sizeof rec) == (ssize_t)sizeof rec) {
            int i = rec.case_index;
            if (i < pos || i >= to)
                break;
            rec.status = classify(e, &r->set.cases[i], &rec.ans);
            if (rec.status == ST_OK && rec.has_warm &&
                classify(e, &r->set.cases[i], &rec.ans_warm) != ST_OK)
                rec.status = classify(e, &r->set.cases[i], &rec.ans_warm);
            r->rec[ei][i] = rec;
            if (rec.has_state) {
                size_t key = pair_key(r, &r->set.cases[i]);
                memcpy(r->warm[ei] + key * e->warm_size, rec.state, e->warm_size);
                r->warm_valid[ei][key] = true;
            }
            pos = i + 1;
        }
        close(fds[0]);
        int wst = 0;
        while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {
        }
        bool died = WIFSIGNALED(wst) || (WIFEXITED(wst) && WEXITSTATUS(wst) != 0);
        if (died && pos < to) {
            record *f = &r->rec[ei][pos];
            memset(f, 0, sizeof *f);
            f->case_index = pos;
            f->ns = NAN_D;
            f->ns_warm = NAN_D;
            f->status = (WIFSIGNALED(wst) && WTERMSIG(wst) == SIGALRM) ? ST_HANG : ST_CRASH;
            fprintf(stderr, "bench_peers: %s died on case %d (%s %d)\n", e->name,
                    r->set.cases[pos].id, WIFSIGNALED(wst) ? "signal" : "exit",
                    WIFSIGNALED(wst) ? WTERMSIG(wst) : WEXITSTATUS(wst));
            /* The trajectory's warm chain restarts cold after a lost case. */
            r->warm_valid[ei][pair_key(r, &r->set.cases[pos])] = false;
            pos++;
        } else if (!died && pos < to) {
            fprintf(stderr, "bench_peers: %s stopped early at case %d\n", e->name,
                    r->set.cases[pos].id);
            exit(1);
        }
    }
}

/* ------------------------------------------------------------------ statistics */

typedef struct vec {
    double *v;
    size_t n, cap;
} vec;

static void vpush(vec *a, double x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        double *nv = realloc(a->v, cap * sizeof *nv);
        if (!nv) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = x;
}
static double vmed(const vec *a)
{
    return bench_median(a->v, a->n);
}
static double vmax(const vec *a)
{
    return bench_max(a->v, a->n);
}
static void vclear(vec *a)
{
    a->n = 0;
}

static const char *const subsets[] = {"main", "scale", "degen", "traj"};
#define N_SUBSETS 4
static const char buckets[] = {'S', 'M', 'L'};

typedef struct summary {
    double err_med[N_SUBSETS], err_max[N_SUBSETS];
    double err_p99_main[2]; /* 99th percentile of the main subset's errors: separated cases,
                               intersecting cases */
    int wrong, fail, crash, hang, cases;
    double dist_ns[3], pen_ns[3];
    double traj_cold, traj_warm, traj_ratio;
    double iters, traj_iters_cold, traj_iters_warm;
    double traj_iters_cold_mean, traj_iters_warm_mean;
    int traj_n;
} summary;

static int subset_index(const gjk_case *c)
{
    for (int s = 0; s < N_SUBSETS; s++)
        if (strcmp(c->subset, subsets[s]) == 0)
            return s;
    return -1;
}

static int bucket_index(const run *r, const gjk_case *c)
{
    char b = gjk_case_bucket(&r->set, c);
    return b == 'S' ? 0 : b == 'M' ? 1 : 2;
}

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The value below which a fraction q of the values lie (nearest rank; NaN values skipped). */
static double percentile(const vec *a, double q)
{
    double *t = malloc((a->n ? a->n : 1) * sizeof *t);
    size_t m = 0;
    if (!t)
        return NAN_D;
    for (size_t i = 0; i < a->n; i++)
        if (!isnan(a->v[i]))
            t[m++] = a->v[i];
    double p = NAN_D;
    if (m > 0) {
        qsort(t, m, sizeof *t, cmp_dbl);
        size_t k = (size_t)ceil(q * (double)m);
        p = t[k > 0 ? k - 1 : 0];
    }
    free(t);
    return p;
}

static double mean_of(const vec *a)
{
    double s = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++)
        if (!isnan(a->v[i])) {
            s += a->v[i];
            n++;
        }
    return n ? s / (double)n : NAN_D;
}

static summary summarize(const run *r, int ei)
{
    const bench_engine *e = r->eng[ei];
    summary s;
    memset(&s, 0, sizeof s);
    vec err[N_SUBSETS] = {{0}}, dist[3] = {{0}}, pen[3] = {{0}}, it = {0};
    vec tc = {0}, tw = {0}, tic = {0}, tiw = {0}, err_main_kind[2] = {{0}};
    for (int i = 0; i < r->set.case_count; i++) {
        const gjk_case *c = &r->set.cases[i];
        const record *rec = &r->rec[ei][i];
        if (rec->status == ST_NOT_RUN)
            continue;
        s.cases++;
        if (rec->status != ST_OK) {
            s.fail++;
            s.crash += rec->status == ST_CRASH;
            s.hang += rec->status == ST_HANG;
            continue;
        }
        const bench_answer *a = &rec->ans;
        int si = subset_index(c);
        bool sep = is_sep(c), in = is_int(c);
        if ((sep && a->verdict < 0) || (in && a->verdict > 0))
            s.wrong++;
        if ((sep || in) && a->has_sd && si >= 0) {
            vpush(&err[si], fabs(a->sd - c->sd) / c->lref);
            if (si == 0)
                vpush(&err_main_kind[in ? 1 : 0], fabs(a->sd - c->sd) / c->lref);
        }
        if (a->iterations >= 0)
            vpush(&it, a->iterations);
        int b = bucket_index(r, c);
        if (!is_traj(c)) {
            if (sep && e->distance)
                vpush(&dist[b], rec->ns);
            if (in && e->penetration)
                vpush(&pen[b], rec->ns);
        } else if (e->distance || in) {
            vpush(&tc, rec->ns);
            if (a->iterations >= 0)
                vpush(&tic, a->iterations);
            if (rec->has_warm) {
                vpush(&tw, rec->ns_warm);
                if (rec->ans_warm.iterations >= 0)
                    vpush(&tiw, rec->ans_warm.iterations);
            }
        }
    }
    s.err_p99_main[0] = percentile(&err_main_kind[0], 0.99);
    s.err_p99_main[1] = percentile(&err_main_kind[1], 0.99);
    free(err_main_kind[0].v);
    free(err_main_kind[1].v);
    for (int k = 0; k < N_SUBSETS; k++) {
        s.err_med[k] = vmed(&err[k]);
        s.err_max[k] = vmax(&err[k]);
        free(err[k].v);
    }
    for (int b = 0; b < 3; b++) {
        s.dist_ns[b] = vmed(&dist[b]);
        s.pen_ns[b] = vmed(&pen[b]);
        free(dist[b].v);
        free(pen[b].v);
    }
    s.iters = vmed(&it);
    s.traj_n = (int)tc.n;
    s.traj_cold = vmed(&tc);
    s.traj_warm = vmed(&tw);
    s.traj_ratio = s.traj_cold / s.traj_warm;
    s.traj_iters_cold = vmed(&tic);
    s.traj_iters_warm = vmed(&tiw);
    s.traj_iters_cold_mean = mean_of(&tic);
    s.traj_iters_warm_mean = mean_of(&tiw);
    free(it.v);
    free(tc.v);
    free(tw.v);
    free(tic.v);
    free(tiw.v);
    return s;
}

/* ------------------------------------------------------------------ printing */

/* x with `digits` decimals ("%.*f"), or in scientific notation when digits < 0; a dash
 * for NaN. Returns one of 32 rotating buffers. */
static const char *num(double x, int digits)
{
    static char ring[32][32];
    static int at;
    char *b = ring[at++ % 32];
    if (isnan(x))
        snprintf(b, 32, "—");
    else
        snprintf(b, 32, digits < 0 ? "%.*e" : "%.*f", digits < 0 ? -digits : digits, x);
    return b;
}

static const char *sci(double x)
{
    if (!isnan(x) && x == 0.0)
        return "0";
    return num(x, -1);
}

static bool is_gjkd(const bench_engine *e)
{
    return strncmp(e->name, "gjkd", 4) == 0;
}

static void print_tables(const run *r, const summary *sum)
{
    printf("\n### Accuracy (errors / lref; wrong verdicts; failures)\n\n");
    printf("| engine | main med | main max | scale med | scale max | degen med | degen max | "
           "traj med | traj max | wrong | fail (crash/hang) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int ei = 0; ei < r->n_eng; ei++) {
        const summary *s = &sum[ei];
        printf("| %s |", r->eng[ei]->name);
        for (int k = 0; k < N_SUBSETS; k++)
            printf(" %s | %s |", sci(s->err_med[k]), sci(s->err_max[k]));
        printf(" %d | %d (%d/%d) |\n", s->wrong, s->fail, s->crash, s->hang);
    }
    printf("\n### Time (median ns per query; shape preprocessing excluded)\n\n");
    printf("| engine | dist S | dist M | dist L | pen S | pen M | pen L | traj cold | traj warm "
           "| cold/warm | iters |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int ei = 0; ei < r->n_eng; ei++) {
        const summary *s = &sum[ei];
        printf("| %s |", r->eng[ei]->name);
        for (int b = 0; b < 3; b++)
            printf(" %s |", num(s->dist_ns[b], 0));
        for (int b = 0; b < 3; b++)
            printf(" %s |", num(s->pen_ns[b], 0));
        bool traj = !r->eng[ei]->warm_repeat; /* its trajectory numbers are repeats, not steps */
        printf(" %s | %s | %s | %s |\n", num(traj ? s->traj_cold : NAN_D, 0),
               num(traj ? s->traj_warm : NAN_D, 0), num(traj ? s->traj_ratio : NAN_D, 2),
               num(s->iters, 0));
    }
    printf("\n### GJK 1988 Table I: the trajectory, cold against warm start\n\n");
    printf("| engine | queries | cold ns | warm ns | cold/warm | iterations cold (mean) | "
           "iterations warm (mean) |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int ei = 0; ei < r->n_eng; ei++) {
        const summary *s = &sum[ei];
        if (r->eng[ei]->warm_repeat || s->traj_n == 0)
            continue;
        printf("| %s | %d | %s | %s | %s | %s | %s |\n", r->eng[ei]->name, s->traj_n,
               num(s->traj_cold, 0), num(s->traj_warm, 0), num(s->traj_ratio, 2),
               num(s->traj_iters_cold_mean, 2), num(s->traj_iters_warm_mean, 2));
    }
}

/* Median ns of one engine over main-subset cases of one kind, grouped either by the total
 * vertex count of the pair (binned) or, for pairs of two shapes of the same class, by that
 * class's vertex count. */
typedef struct curve_point {
    int vertices;
    double ns;
    int n;
} curve_point;

/* Total vertex counts are binned, four bins per decade, each named by its geometric centre,
 * so that each point of the curve gathers several class pairs. */
static int total_bin(int total)
{
    return (int)lround(pow(10.0, (double)lround(4.0 * log10((double)total)) / 4.0));
}

static int curve(const run *r, int ei, bool penetration, bool same_class, curve_point *out, int cap)
{
    int nv[4096];
    int m = 0;
    for (int i = 0; i < r->set.case_count && m < 4096; i++) {
        const gjk_case *c = &r->set.cases[i];
        if (strcmp(c->subset, "main") != 0)
            continue;
        const gjk_case_shape *a = &r->set.shapes[c->shape_a], *b = &r->set.shapes[c->shape_b];
        if (same_class && strcmp(a->cls, b->cls) != 0)
            continue;
        int v = same_class ? a->count : total_bin(a->count + b->count);
        bool seen = false;
        for (int k = 0; k < m; k++)
            seen = seen || nv[k] == v;
        if (!seen)
            nv[m++] = v;
    }
    /* sort ascending */
    for (int i = 1; i < m; i++)
        for (int k = i; k > 0 && nv[k - 1] > nv[k]; k--) {
            int t = nv[k];
            nv[k] = nv[k - 1];
            nv[k - 1] = t;
        }
    int n = 0;
    vec ns = {0};
    for (int k = 0; k < m && n < cap; k++) {
        vclear(&ns);
        for (int i = 0; i < r->set.case_count; i++) {
            const gjk_case *c = &r->set.cases[i];
            const record *rec = &r->rec[ei][i];
            if (strcmp(c->subset, "main") != 0 || rec->status != ST_OK)
                continue;
            if (penetration ? !is_int(c) : !is_sep(c))
                continue;
            const gjk_case_shape *a = &r->set.shapes[c->shape_a], *b = &r->set.shapes[c->shape_b];
            if (same_class && strcmp(a->cls, b->cls) != 0)
                continue;
            int v = same_class ? a->count : total_bin(a->count + b->count);
            if (v == nv[k])
                vpush(&ns, rec->ns);
        }
        if (ns.n > 0) {
            out[n].vertices = nv[k];
            out[n].ns = vmed(&ns);
            out[n].n = (int)ns.n;
            n++;
        }
    }
    free(ns.v);
    return n;
}

static int find_engine(const run *r, const char *name)
{
    for (int ei = 0; ei < r->n_eng; ei++)
        if (strcmp(r->eng[ei]->name, name) == 0)
            return ei;
    return -1;
}

static void print_scaling_and_targets(const run *r, const summary *sum)
{
    int g = find_engine(r, "gjkd"), gl = find_engine(r, "gjkd-linear");
    if (g >= 0) {
        curve_point a[64], b[64];
        int na = curve(r, g, false, true, a, 64);
        int nb = gl >= 0 ? curve(r, gl, false, true, b, 64) : 0;
        printf("\n### Scaling: same-class pairs (main, separated), median ns per distance "
               "query\n\n");
        printf("| vertices per shape | gjkd (hill climbing) | gjkd-linear | linear / hill |\n");
        printf("|---|---|---|---|\n");
        for (int k = 0; k < na; k++) {
            double lin = NAN_D;
            for (int j = 0; j < nb; j++)
                if (b[j].vertices == a[k].vertices)
                    lin = b[j].ns;
            printf("| %d | %.0f | %s | %s |\n", a[k].vertices, a[k].ns, num(lin, 0),
                   num(lin / a[k].ns, 2));
        }
        double n128 = NAN_D, n2000 = NAN_D;
        for (int k = 0; k < na; k++) {
            if (a[k].vertices == 128)
                n128 = a[k].ns;
            if (a[k].vertices == 2000)
                n2000 = a[k].ns;
        }
        printf("\n### Targets (reported, not asserted)\n\n");
        for (int kind = 0; kind < 2; kind++)
            for (int bk = 0; bk < 3; bk++) {
                double mine = kind ? sum[g].pen_ns[bk] : sum[g].dist_ns[bk];
                double best = NAN_D;
                const char *who = "none";
                for (int ei = 0; ei < r->n_eng; ei++) {
                    if (is_gjkd(r->eng[ei]))
                        continue;
                    double t = kind ? sum[ei].pen_ns[bk] : sum[ei].dist_ns[bk];
                    if (!isnan(t) && (isnan(best) || t < best)) {
                        best = t;
                        who = r->eng[ei]->name;
                    }
                }
                /* The same among exact peers (99% of the main subset's errors of this kind
                 * <= 1e-9 lref):
                 * MPR and loose-tolerance EPAs are fast partly because they stop early. */
                double best_exact = NAN_D;
                const char *who_exact = "none";
                for (int ei = 0; ei < r->n_eng; ei++) {
                    if (is_gjkd(r->eng[ei]) || !(sum[ei].err_p99_main[kind] <= 1e-9))
                        continue;
                    double t = kind ? sum[ei].pen_ns[bk] : sum[ei].dist_ns[bk];
                    if (!isnan(t) && (isnan(best_exact) || t < best_exact)) {
                        best_exact = t;
                        who_exact = r->eng[ei]->name;
                    }
                }
                const char *verdict = isnan(mine / best)         ? "n/a"
                                      : mine / best <= 1.0 / 3.0 ? "met"
                                                                 : "MISSED";
                printf("- %s %c: gjkd %s ns; fastest peer %s %s ns, ratio %s (target <= 0.33): "
                       "%s; fastest exact peer %s %s ns, ratio %s\n",
                       kind ? "penetration" : "distance", buckets[bk], num(mine, 0), who,
                       num(best, 0), num(mine / best, 2), verdict, who_exact, num(best_exact, 0),
                       num(mine / best_exact, 2));
            }
        printf("- trajectory cold/warm: %s (target >= 3): %s\n", num(sum[g].traj_ratio, 2),
               isnan(sum[g].traj_ratio)   ? "n/a"
               : sum[g].traj_ratio >= 3.0 ? "met"
                                          : "MISSED");
        printf("- s2000 pair / s128 pair (distance, same class): %s (target <= 4): %s\n",
               num(n2000 / n128, 2),
               isnan(n2000 / n128)   ? "n/a"
               : n2000 / n128 <= 4.0 ? "met"
                                     : "MISSED");
    }
}

/* ------------------------------------------------------------------ CSV */

static int mkdir_p(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static FILE *open_out(const run *r, const char *stem)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%s.csv", r->cfg.out_dir, stem, r->cfg.tag);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "bench_peers: cannot write %s: %s\n", path, strerror(errno));
    else
        fprintf(stderr, "bench_peers: wrote %s\n", path);
    return f;
}

static void csv_num(FILE *f, double x)
{
    if (isnan(x))
        fprintf(f, ",");
    else
        fprintf(f, ",%.6g", x);
}

static void write_csv(const run *r, const summary *sum)
{
    if (mkdir_p(r->cfg.out_dir) != 0) {
        fprintf(stderr, "bench_peers: cannot create %s\n", r->cfg.out_dir);
        return;
    }
    FILE *f = open_out(r, "peers");
    if (f) {
        fprintf(f, "engine,cases");
        for (int k = 0; k < N_SUBSETS; k++)
            fprintf(f, ",err_med_%s,err_max_%s", subsets[k], subsets[k]);
        fprintf(f, ",err_p99_main_sep,err_p99_main_int,wrong,fail,crash,hang,dist_S_ns,dist_M_ns,"
                   "dist_L_ns,pen_S_ns,pen_M_ns,"
                   "pen_L_ns,traj_cold_ns,traj_warm_ns,traj_ratio,iters_med,traj_iters_cold_mean,"
                   "traj_iters_warm_mean,calls\n");
        for (int ei = 0; ei < r->n_eng; ei++) {
            const summary *s = &sum[ei];
            fprintf(f, "%s,%d", r->eng[ei]->name, s->cases);
            for (int k = 0; k < N_SUBSETS; k++) {
                csv_num(f, s->err_med[k]);
                csv_num(f, s->err_max[k]);
            }
            csv_num(f, s->err_p99_main[0]);
            csv_num(f, s->err_p99_main[1]);
            fprintf(f, ",%d,%d,%d,%d", s->wrong, s->fail, s->crash, s->hang);
            for (int b = 0; b < 3; b++)
                csv_num(f, s->dist_ns[b]);
            for (int b = 0; b < 3; b++)
                csv_num(f, s->pen_ns[b]);
            csv_num(f, s->traj_cold);
            csv_num(f, s->traj_warm);
            csv_num(f, s->traj_ratio);
            csv_num(f, s->iters);
            csv_num(f, s->traj_iters_cold_mean);
            csv_num(f, s->traj_iters_warm_mean);
            fprintf(f, ",\"%s\"\n", r->eng[ei]->calls);
        }
        fclose(f);
    }
    f = open_out(r, "curve");
    if (f) {
        fprintf(f, "engine,kind,pairing,vertices,median_ns,cases\n");
        curve_point pts[256];
        for (int ei = 0; ei < r->n_eng; ei++)
            for (int kind = 0; kind < 2; kind++)
                for (int same = 0; same < 2; same++) {
                    if ((kind == 0 && !r->eng[ei]->distance) ||
                        (kind == 1 && !r->eng[ei]->penetration))
                        continue;
                    int n = curve(r, ei, kind == 1, same == 1, pts, 256);
                    for (int k = 0; k < n; k++)
                        fprintf(f, "%s,%s,%s,%d,%.6g,%d\n", r->eng[ei]->name,
                                kind ? "penetration" : "distance", same ? "same" : "total",
                                pts[k].vertices, pts[k].ns, pts[k].n);
                }
        fclose(f);
    }
}

static void write_raw(const run *r)
{
    FILE *f = fopen(r->cfg.raw_path, "w");
    if (!f) {
        fprintf(stderr, "bench_peers: cannot write %s\n", r->cfg.raw_path);
        return;
    }
    fprintf(f, "engine,case,subset,state,tag,bucket,nA,nB,status,verdict,sd_exact,sd,err_rel,"
               "ns,ns_warm,iters,iters_warm,normal_deg,code\n");
    for (int ei = 0; ei < r->n_eng; ei++)
        for (int i = 0; i < r->set.case_count; i++) {
            const gjk_case *c = &r->set.cases[i];
            const record *rec = &r->rec[ei][i];
            if (rec->status == ST_NOT_RUN)
                continue;
            fprintf(f, "%s,%d,%s,%s,%s,%c,%d,%d,%s,%d,%.17g", r->eng[ei]->name, c->id, c->subset,
                    c->state, c->tag, gjk_case_bucket(&r->set, c), r->set.shapes[c->shape_a].count,
                    r->set.shapes[c->shape_b].count, status_names[rec->status], rec->ans.verdict,
                    c->sd);
            csv_num(f, rec->ans.has_sd ? rec->ans.sd : NAN_D);
            csv_num(f, rec->ans.has_sd ? fabs(rec->ans.sd - c->sd) / c->lref : NAN_D);
            csv_num(f, rec->ns);
            csv_num(f, rec->ns_warm);
            fprintf(f, ",%d,%d", rec->ans.iterations,
                    rec->has_warm ? rec->ans_warm.iterations : -1);
            double deg = NAN_D;
            if (rec->ans.has_normal && gjk_vec3_is_finite(c->normal)) {
                double cs = gjk_dot(gjk_normalize(rec->ans.normal), c->normal);
                deg = acos(cs > 1.0 ? 1.0 : cs < -1.0 ? -1.0 : cs) * 180.0 / 3.14159265358979323846;
            }
            csv_num(f, deg);
            fprintf(f, ",%d\n", rec->ans.code);
        }
    fclose(f);
    fprintf(stderr, "bench_peers: wrote %s\n", r->cfg.raw_path);
}

/* ------------------------------------------------------------------ main */

static void usage(void)
{
    printf("usage: bench_peers --cases FILE [options]\n"
           "  --cases FILE    case file (quick.cases, or full.cases decompressed)\n"
           "  --tag NAME      name of this run in output file names (default: quick)\n"
           "  --out DIR       write peers-TAG.csv and curve-TAG.csv into DIR\n"
           "  --raw FILE      write one CSV line per engine and case\n"
           "  --engines LIST  comma-separated engine names (default: all)\n"
           "  --chunk N       cases per child process (default 64)\n"
           "  --samples N     timed loops per case, median taken (default 5)\n"
           "  --min-us T      each timed loop lasts at least T microseconds (default 20)\n"
           "  --hang S        a case running longer than S seconds is a failure (default 20)\n"
           "  --limit N       only the first N cases\n"
           "  --list          list the engines and the calls they use\n"
           "  -h, --help      print this help\n");
}

static bool wanted(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        if (!q)
            break;
        p = q + 1;
    }
    return false;
}

static int all_engines(const bench_engine **out, int cap)
{
    int n = 0;
#ifdef GJK_BENCH_HAVE_GJKD
    n += bench_engines_gjkd(out + n, cap - n);
#endif
    n += bench_engines_ccd(out + n, cap - n);
    n += bench_engines_fcl(out + n, cap - n);
    n += bench_engines_bullet(out + n, cap - n);
    return n;
}

int main(int argc, char **argv)
{
    static run r;
    r.cfg = (config){NULL, NULL, NULL, "quick", NULL, 64, 5, 20000.0, 20, 0};
    /* Options with a value, as text; the numbers are read after the loop. */
    const char *chunk = "64", *samples = "5", *min_us = "20", *hang = "20", *limit = "0";
    const struct {
        const char *name;
        const char **value;
    } valued[] = {{"--cases", &r.cfg.cases_path},
                  {"--tag", &r.cfg.tag},
                  {"--out", &r.cfg.out_dir},
                  {"--raw", &r.cfg.raw_path},
                  {"--engines", &r.cfg.engines},
                  {"--chunk", &chunk},
                  {"--samples", &samples},
                  {"--min-us", &min_us},
                  {"--hang", &hang},
                  {"--limit", &limit}};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage();
            return 0;
        }
    }
    bool list = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0) {
            list = true;
            continue;
        }
        const char **value = NULL;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
            if (strcmp(a, valued[k].name) == 0)
                value = valued[k].value;
        }
        if (value == NULL) {
            fprintf(stderr, "bench_peers: unknown option '%s' (see bench_peers --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_peers: %s needs a value (see bench_peers --help)\n", a);
            return 2;
        }
        *value = argv[++i];
    }
    if (list) {
        const bench_engine *e[MAX_ENGINES];
        int n = all_engines(e, MAX_ENGINES);
        for (int k = 0; k < n; k++)
            printf("%-14s %s\n", e[k]->name, e[k]->calls);
        return 0;
    }
    r.cfg.chunk = atoi(chunk);
    r.cfg.samples = atoi(samples);
    r.cfg.min_ns = 1000.0 * atof(min_us);
    r.cfg.hang_s = atoi(hang);
    r.cfg.limit = atoi(limit);
    if (!r.cfg.cases_path || r.cfg.chunk < 1 || r.cfg.samples < 1 || r.cfg.hang_s < 1) {
        fprintf(stderr, "bench_peers: --cases FILE is needed; --chunk, --samples and --hang are "
                        "at least 1 (see bench_peers --help)\n");
        return 2;
    }

    char err[512];
    double t0 = bench_now_ns();
    if (gjk_cases_load(r.cfg.cases_path, &r.set, err, sizeof err) != 0) {
        fprintf(stderr, "bench_peers: %s\n", err);
        return 1;
    }
    if (r.cfg.limit > 0 && r.cfg.limit < r.set.case_count)
        r.set.case_count = r.cfg.limit;
    r.hulls = calloc((size_t)r.set.shape_count, sizeof *r.hulls);
    if (!r.hulls)
        return 1;
    for (int32_t i = 0; i < r.set.shape_count; i++)
        if (bench_hull_build(&r.set.shapes[i], &r.hulls[i], err, sizeof err) != 0) {
            fprintf(stderr, "bench_peers: hull of shape %d: %s\n", i, err);
            return 1;
        }
    r.world = (bench_world){&r.set, r.hulls};

    const bench_engine *all[MAX_ENGINES];
    int n_all = all_engines(all, MAX_ENGINES);
    for (int k = 0; k < n_all; k++) {
        if (!wanted(r.cfg.engines, all[k]->name))
            continue;
        int ei = r.n_eng;
        r.eng[ei] = all[k];
        r.ctx[ei] = all[k]->open(&r.world);
        if (!r.ctx[ei]) {
            fprintf(stderr, "bench_peers: %s: could not build its shapes\n", all[k]->name);
            return 1;
        }
        r.rec[ei] = calloc((size_t)r.set.case_count, sizeof(record));
        size_t keys = (size_t)r.set.shape_count * (size_t)r.set.shape_count;
        r.warm[ei] = calloc(keys, all[k]->warm_size ? all[k]->warm_size : 1);
        r.warm_valid[ei] = calloc(keys, sizeof(bool));
        if (!r.rec[ei] || !r.warm[ei] || !r.warm_valid[ei])
            return 1;
        for (int i = 0; i < r.set.case_count; i++)
            r.rec[ei][i].status = ST_NOT_RUN;
        r.n_eng++;
    }
    if (r.n_eng == 0) {
        fprintf(stderr, "bench_peers: no engine selected (see --list)\n");
        return 2;
    }
    fprintf(stderr, "bench_peers: %d cases, %d shapes, %d engines; setup %.1f s\n",
            r.set.case_count, r.set.shape_count, r.n_eng, (bench_now_ns() - t0) * 1e-9);

    /* Chunk by chunk, every engine in turn, the order rotating. */
    double t1 = bench_now_ns();
    int chunks = (r.set.case_count + r.cfg.chunk - 1) / r.cfg.chunk;
    for (int ch = 0; ch < chunks; ch++) {
        int from = ch * r.cfg.chunk;
        int to = from + r.cfg.chunk < r.set.case_count ? from + r.cfg.chunk : r.set.case_count;
        for (int k = 0; k < r.n_eng; k++)
            run_chunk(&r, (k + ch) % r.n_eng, from, to);
        if ((ch + 1) % 10 == 0 || ch + 1 == chunks)
            fprintf(stderr, "bench_peers: %d / %d cases, %.0f s\n", to, r.set.case_count,
                    (bench_now_ns() - t1) * 1e-9);
    }

    summary sum[MAX_ENGINES];
    for (int ei = 0; ei < r.n_eng; ei++)
        sum[ei] = summarize(&r, ei);
    printf("## Peer benchmark: %s (%d cases)\n", r.cfg.cases_path, r.set.case_count);
    printf("\nEngines (shape preprocessing and pose conversion are excluded from every "
           "timing):\n\n");
    for (int ei = 0; ei < r.n_eng; ei++)
        printf("- `%s`: %s\n", r.eng[ei]->name, r.eng[ei]->calls);
    print_tables(&r, sum);
    print_scaling_and_targets(&r, sum);
    if (r.cfg.out_dir)
        write_csv(&r, sum);
    if (r.cfg.raw_path)
        write_raw(&r);

    for (int ei = 0; ei < r.n_eng; ei++) {
        r.eng[ei]->close(r.ctx[ei]);
        free(r.rec[ei]);
        free(r.warm[ei]);
        free(r.warm_valid[ei]);
    }
    for (int32_t i = 0; i < r.set.shape_count; i++)
        bench_hull_free(&r.hulls[i]);
    free(r.hulls);
    gjk_cases_free(&r.set);
    return 0;
}
