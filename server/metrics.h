/* metrics.h — the daemon's Prometheus metrics: a fixed registry of counters fed on the
 * request path, and its rendering in the Prometheus text exposition format (version 0.0.4),
 * which server/http.c serves as /metrics.
 *
 * The registry holds what only the request path sees: replies by command and status code,
 * handler time by command (a histogram), part pairs computed, scene reloads from a --scene
 * file. Everything else (revision, queue depth, world figures, the cache, CURVE refusals) is
 * read from the service when a page is rendered (gjkd_metrics_figures), so that the stats
 * reply and /metrics report one set of numbers.
 *
 * Cost on the request path: one relaxed atomic add per reply, and per handled request a
 * bucket search over GJKD_METRICS_BUCKETS integer bounds and three relaxed adds. No lock, no
 * allocation. Rendering reads each counter once (relaxed); a histogram's count is the sum
 * of the bucket counts it read, so a page is always self-consistent per series.
 *
 * Names follow Prometheus' rules: a gjkd_ prefix, base units (seconds, bytes), counters
 * ending in _total, one # HELP and one # TYPE line per family, label values escaped
 * (backslash, double quote, line feed). */
#ifndef GJKD_METRICS_H
#define GJKD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Status codes counted (gjkd.v1 StatusCode values 0 .. GJKD_METRICS_CODES - 1). */
#define GJKD_METRICS_CODES 32
/* Upper bounds of the request duration histogram, in seconds (plus +Inf). */
#define GJKD_METRICS_BUCKETS 16

typedef struct gjkd_metrics gjkd_metrics;

/* A registry for `n` commands named names[0..n-1] (the array is copied, the strings are
 * borrowed: static ones); the command
 * index n is "none" (a reply no command ran for: malformed, refused by the broker). NULL when
 * out of memory. */
gjkd_metrics *gjkd_metrics_create(const char *const *names, size_t n);
void gjkd_metrics_destroy(gjkd_metrics **metrics);

/* One reply sent for command `command` (-1 or out of range: none) with status `code`. */
void gjkd_metrics_reply(gjkd_metrics *m, long command, int code);
/* One request handled by command `command`: its handler time and the part pairs its queries
 * ran through the narrow phase (0 for others). */
void gjkd_metrics_handled(gjkd_metrics *m, long command, uint64_t elapsed_ns, int64_t pairs);
/* A --scene file reloaded (ok) or refused (the old scene kept). */
void gjkd_metrics_scene_reload(gjkd_metrics *m, bool ok);

/* Figures read from the service for one page (gjkd_service_figures_read fills them). */
typedef struct gjkd_metrics_figures {
    double start_time_seconds; /* Unix time the service started */
    uint64_t revision, pose_revision;
    bool draining;
    uint32_t in_flight, queued;
    int32_t worker_threads;
    uint64_t pose_updates, monitor_events, auth_refused;
    uint32_t robots, obstacles, parts;
    uint32_t trajectories_cached;
    uint64_t trajectory_cache_bytes, trajectory_cache_hits, trajectory_cache_misses;
} gjkd_metrics_figures;

/* A growable text buffer (malloc'd; the caller frees data). */
typedef struct gjkd_text_buf {
    char *data;
    size_t size, capacity;
    bool failed; /* out of memory: data holds what fitted */
} gjkd_text_buf;

/* Appends the whole exposition: the registry's counters and the figures. False when out of
 * memory. */
bool gjkd_metrics_render(gjkd_metrics *m, const gjkd_metrics_figures *figures, gjkd_text_buf *out);

/* Appends `value` as a label value: \ -> \\, " -> \", line feed -> \n. */
void gjkd_metrics_escape_label(gjkd_text_buf *out, const char *value);

/* The bucket bounds, in seconds (GJKD_METRICS_BUCKETS of them, increasing). */
extern const double gjkd_metrics_bucket_seconds[GJKD_METRICS_BUCKETS];

#endif /* GJKD_METRICS_H */
