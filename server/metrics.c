/* metrics.c — see metrics.h. */
#define _POSIX_C_SOURCE 200809L
#include "metrics.h"

#include "codec.h"

#include "gjk/base.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double gjkd_metrics_bucket_seconds[GJKD_METRICS_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
    0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0,
};

typedef struct command_series {
    atomic_uint_fast64_t replies[GJKD_METRICS_CODES];
    atomic_uint_fast64_t buckets[GJKD_METRICS_BUCKETS + 1]; /* the last one: +Inf only */
    atomic_uint_fast64_t sum_ns;
} command_series;

struct gjkd_metrics {
    const char **names; /* copied: the strings are borrowed */
    size_t n_commands;
    command_series *series; /* n_commands + 1: the last one is "none" */
    uint64_t bucket_ns[GJKD_METRICS_BUCKETS];
    atomic_uint_fast64_t pairs;
    atomic_uint_fast64_t scene_reloads, scene_reload_failures;
};

gjkd_metrics *gjkd_metrics_create(const char *const *names, size_t n)
{
    gjkd_metrics *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->series = calloc(n + 1, sizeof *m->series);
    m->names = calloc(n + 1, sizeof *m->names);
    if (m->series == NULL || m->names == NULL) {
        free(m->series);
        free(m->names);
        free(m);
        return NULL;
    }
    memcpy(m->names, names, n * sizeof *names);
    m->n_commands = n;
    for (int b = 0; b < GJKD_METRICS_BUCKETS; ++b)
        m->bucket_ns[b] = (uint64_t)(gjkd_metrics_bucket_seconds[b] * 1e9 + 0.5);
    return m;
}

void gjkd_metrics_destroy(gjkd_metrics **metrics)
{
    if (metrics == NULL || *metrics == NULL)
        return;
    free((*metrics)->series);
    free((*metrics)->names);
    free(*metrics);
    *metrics = NULL;
}

static command_series *series_of(gjkd_metrics *m, long command)
{
    size_t i = command >= 0 && (size_t)command < m->n_commands ? (size_t)command : m->n_commands;
    return &m->series[i];
}

void gjkd_metrics_reply(gjkd_metrics *m, long command, int code)
{
    if (m == NULL || code < 0 || code >= GJKD_METRICS_CODES)
        return;
    atomic_fetch_add_explicit(&series_of(m, command)->replies[code], 1, memory_order_relaxed);
}

void gjkd_metrics_handled(gjkd_metrics *m, long command, uint64_t elapsed_ns, int64_t pairs)
{
    if (m == NULL)
        return;
    command_series *s = series_of(m, command);
    int b = 0;
    while (b < GJKD_METRICS_BUCKETS && elapsed_ns > m->bucket_ns[b])
        ++b;
    atomic_fetch_add_explicit(&s->buckets[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->sum_ns, elapsed_ns, memory_order_relaxed);
    if (pairs > 0)
        atomic_fetch_add_explicit(&m->pairs, (uint_fast64_t)pairs, memory_order_relaxed);
}

void gjkd_metrics_scene_reload(gjkd_metrics *m, bool ok)
{
    if (m == NULL)
        return;
    atomic_fetch_add_explicit(ok ? &m->scene_reloads : &m->scene_reload_failures, 1,
                              memory_order_relaxed);
}

/* ---------------------------------------------------------------- text */

static bool reserve(gjkd_text_buf *out, size_t more)
{
    if (out->failed)
        return false;
    if (out->size + more + 1 <= out->capacity)
        return true;
    size_t cap = out->capacity > 0 ? out->capacity : 4096;
    while (cap < out->size + more + 1)
        cap *= 2;
    char *p = realloc(out->data, cap);
    if (p == NULL) {
        out->failed = true;
        return false;
    }
    out->data = p;
    out->capacity = cap;
    return true;
}

static void append(gjkd_text_buf *out, const char *text, size_t n)
{
    if (!reserve(out, n))
        return;
    memcpy(out->data + out->size, text, n);
    out->size += n;
    out->data[out->size] = '\0';
}

static void appendf(gjkd_text_buf *out, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void appendf(gjkd_text_buf *out, const char *format, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof line) {
        append(out, line, (size_t)n);
        return;
    }
    if (!reserve(out, (size_t)n))
        return;
    va_start(ap, format);
    vsnprintf(out->data + out->size, (size_t)n + 1, format, ap);
    va_end(ap);
    out->size += (size_t)n;
}

void gjkd_metrics_escape_label(gjkd_text_buf *out, const char *value)
{
    for (const char *p = value; *p != '\0'; ++p) {
        if (*p == '\\')
            append(out, "\\\\", 2);
        else if (*p == '"')
            append(out, "\\\"", 2);
        else if (*p == '\n')
            append(out, "\\n", 2);
        else
            append(out, p, 1);
    }
}

/* "# HELP name help\n# TYPE name type\n" (help is ours: no backslash or line feed). */
static void family(gjkd_text_buf *out, const char *name, const char *type, const char *help)
{
    appendf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_u64(gjkd_text_buf *out, const char *name, uint64_t value)
{
    appendf(out, "%s %llu\n", name, (unsigned long long)value);
}

static void one_u64(gjkd_text_buf *out, const char *name, const char *type, const char *help,
                    uint64_t value)
{
    family(out, name, type, help);
    sample_u64(out, name, value);
}

static const char *command_name(const gjkd_metrics *m, size_t i)
{
    return i < m->n_commands ? m->names[i] : "none";
}

static void command_label(gjkd_text_buf *out, const gjkd_metrics *m, size_t i)
{
    append(out, "command=\"", 9);
    gjkd_metrics_escape_label(out, command_name(m, i));
    append(out, "\"", 1);
}

static void render_requests(gjkd_metrics *m, gjkd_text_buf *out)
{
    family(out, "gjkd_requests_total", "counter",
           "Replies sent, by command (none: no command ran: malformed, or refused by the "
           "broker) and status code.");
    for (size_t i = 0; i <= m->n_commands; ++i) {
        for (int code = 0; code < GJKD_METRICS_CODES; ++code) {
            uint64_t v = atomic_load_explicit(&m->series[i].replies[code], memory_order_relaxed);
            /* Every command's OK series exists from the start, so that rates begin at 0. */
            bool ok_series = code == (int)GJKD_CODE(OK) && i < m->n_commands;
            if (v == 0 && !ok_series)
                continue;
            append(out, "gjkd_requests_total{", 20);
            command_label(out, m, i);
            append(out, ",code=\"", 7);
            gjkd_metrics_escape_label(out, gjkd_code_name((gjkd_code)code));
            appendf(out, "\"} %llu\n", (unsigned long long)v);
        }
    }
}

static void render_durations(gjkd_metrics *m, gjkd_text_buf *out)
{
    family(out, "gjkd_request_duration_seconds", "histogram",
           "Time from a worker taking a request to its reply being packed, by command (the "
           "wait in the queue is not included).");
    for (size_t i = 0; i < m->n_commands; ++i) {
        command_series *s = &m->series[i];
        uint64_t cumulative = 0;
        for (int b = 0; b <= GJKD_METRICS_BUCKETS; ++b) {
            cumulative += atomic_load_explicit(&s->buckets[b], memory_order_relaxed);
            append(out, "gjkd_request_duration_seconds_bucket{", 37);
            command_label(out, m, i);
            if (b < GJKD_METRICS_BUCKETS)
                appendf(out, ",le=\"%g\"} %llu\n", gjkd_metrics_bucket_seconds[b],
                        (unsigned long long)cumulative);
            else
                appendf(out, ",le=\"+Inf\"} %llu\n", (unsigned long long)cumulative);
        }
        uint64_t sum_ns = atomic_load_explicit(&s->sum_ns, memory_order_relaxed);
        append(out, "gjkd_request_duration_seconds_sum{", 34);
        command_label(out, m, i);
        appendf(out, "} %.9f\n", 1e-9 * (double)sum_ns);
        append(out, "gjkd_request_duration_seconds_count{", 36);
        command_label(out, m, i);
        appendf(out, "} %llu\n", (unsigned long long)cumulative);
    }
}

bool gjkd_metrics_render(gjkd_metrics *m, const gjkd_metrics_figures *f, gjkd_text_buf *out)
{
    family(out, "gjkd_build_info", "gauge", "Always 1; the daemon's version in its label.");
    appendf(out, "gjkd_build_info{version=\"%d.%d.%d\"} 1\n", GJK_VERSION_MAJOR, GJK_VERSION_MINOR,
            GJK_VERSION_PATCH);
    family(out, "gjkd_start_time_seconds", "gauge",
           "Unix time at which the daemon started, in seconds.");
    appendf(out, "gjkd_start_time_seconds %.3f\n", f->start_time_seconds);
    render_requests(m, out);
    render_durations(m, out);
    one_u64(out, "gjkd_pairs_computed_total", "counter",
            "Part pairs run through the narrow phase (GJK) by state and trajectory queries, "
            "over all their waypoints.",
            atomic_load_explicit(&m->pairs, memory_order_relaxed));
    one_u64(out, "gjkd_in_flight_requests", "gauge", "Requests being handled by workers now.",
            f->in_flight);
    one_u64(out, "gjkd_queued_requests", "gauge",
            "Requests waiting for a busy worker (all clients): the queue depth.", f->queued);
    one_u64(out, "gjkd_worker_threads", "gauge", "Worker threads.",
            (uint64_t)(f->worker_threads > 0 ? f->worker_threads : 0));
    one_u64(out, "gjkd_draining", "gauge",
            "1 while the daemon drains on SIGTERM (new requests get UNAVAILABLE), else 0.",
            f->draining ? 1 : 0);
    one_u64(out, "gjkd_scene_revision", "gauge",
            "The scene's revision (derived from the file's bytes for a --scene file; one more "
            "per change over the wire).",
            f->revision);
    one_u64(out, "gjkd_pose_revision", "gauge", "Increments on every link-pose update.",
            f->pose_revision);
    one_u64(out, "gjkd_scene_robots", "gauge", "Robots in the scene.", f->robots);
    one_u64(out, "gjkd_scene_obstacles", "gauge", "Obstacles in the scene.", f->obstacles);
    one_u64(out, "gjkd_scene_parts", "gauge", "Convex parts in the scene (links and obstacles).",
            f->parts);
    one_u64(out, "gjkd_scene_reloads_total", "counter",
            "Changes of the --scene file loaded as the new scene.",
            atomic_load_explicit(&m->scene_reloads, memory_order_relaxed));
    one_u64(out, "gjkd_scene_reload_failures_total", "counter",
            "Changes of the --scene file refused (the scene before was kept; the log says why).",
            atomic_load_explicit(&m->scene_reload_failures, memory_order_relaxed));
    one_u64(out, "gjkd_trajectory_cache_entries", "gauge",
            "Named trajectories in the warm-start cache.", f->trajectories_cached);
    one_u64(out, "gjkd_trajectory_cache_bytes", "gauge",
            "Bytes held by the named-trajectory cache.", f->trajectory_cache_bytes);
    one_u64(out, "gjkd_trajectory_cache_hits_total", "counter",
            "Trajectory queries whose name was found in the cache.", f->trajectory_cache_hits);
    one_u64(out, "gjkd_trajectory_cache_misses_total", "counter",
            "Trajectory queries with a name that was not in the cache (or was stale).",
            f->trajectory_cache_misses);
    one_u64(out, "gjkd_pose_updates_total", "counter",
            "PoseUpdate messages applied from the pose stream.", f->pose_updates);
    one_u64(out, "gjkd_monitor_events_total", "counter", "MonitorEvent messages published.",
            f->monitor_events);
    one_u64(out, "gjkd_curve_refusals_total", "counter",
            "Handshakes refused by CURVE authentication (a key not on the allow-list, no key, "
            "a wrong server key).",
            f->auth_refused);
    return !out->failed;
}
