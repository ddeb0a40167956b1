/* main.c — gjkd: configuration, signals, persistence, authentication, the HTTP endpoint
 * (metrics, probes), the scene file it follows and the transport loop.
 *
 * Signals only set flags (Redis style); the transport loop does the work: SIGTERM/SIGINT
 * drain in-flight requests and exit 0, SIGHUP re-reads the log level and limits from the
 * config file (environment and command-line values still take precedence) and the CURVE
 * allow-list. */
#define _POSIX_C_SOURCE 200809L
#include "auth.h"
#include "config.h"
#include "demo.h"
#include "dispatch.h"
#include "http.h"
#include "log.h"
#include "scene.h"
#include "store.h"
#include "stream.h"
#include "transport.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

/* Lock-free atomics are async-signal-safe (C11 7.14.1.1) and visible to the loop. */
static atomic_int g_stop = 0;
static atomic_int g_reload = 0;

static void on_signal(int sig)
{
    if (sig == SIGHUP)
        atomic_store(&g_reload, 1);
    else
        atomic_store(&g_stop, 1);
}

typedef struct daemon_state {
    int argc;
    char **argv;
    gjkd_config *config;
    gjkd_service *service;
    gjkd_auth *auth; /* NULL without CURVE */
    gjkd_http *http; /* NULL with --http off */
} daemon_state;

/* The request socket is bound: the daemon can be ready (/readyz). */
static void on_listening(void *user, const char *bound_endpoint)
{
    (void)bound_endpoint;
    gjkd_http_set_serving(((daemon_state *)user)->http, true);
}

static void reload_config(void *user, void *frontend)
{
    daemon_state *d = user;
    gjkd_config fresh;
    char err[512];
    FILE *sink = fopen("/dev/null", "w");
    gjkd_config_result r = gjkd_config_load(&fresh, d->argc, d->argv, sink, err, sizeof err);
    if (sink != NULL)
        fclose(sink);
    if (r != GJKD_CONFIG_OK) {
        GJKD_LOG(GJKD_LOG_ERROR, "reload_failed", 0, "kept=configuration message=%s", GJKD_Q(err));
        return;
    }
    d->config->log_level = fresh.log_level;
    d->config->limits = fresh.limits;
    gjkd_log_set_level((gjkd_log_level)fresh.log_level);
    gjkd_service_set_limits(d->service, &fresh.limits);
    if (d->auth != NULL) {
        if (gjkd_auth_reload(d->auth, fresh.curve_allow, err, sizeof err))
            GJKD_LOG(GJKD_LOG_INFO, "allow_list_reloaded", 0, "allow=%s",
                     GJKD_Q(fresh.curve_allow));
        else
            GJKD_LOG(GJKD_LOG_ERROR, "reload_failed", 0, "kept=allow_list message=%s", GJKD_Q(err));
    }
    int64_t hard = (int64_t)(2 * fresh.limits.max_message_bytes);
    zmq_setsockopt(frontend, ZMQ_MAXMSGSIZE, &hard, sizeof hard);
    GJKD_LOG(GJKD_LOG_INFO, "reloaded", 0, "log_level=%s max_message_bytes=%llu",
             gjkd_log_level_name((gjkd_log_level)fresh.log_level),
             (unsigned long long)fresh.limits.max_message_bytes);
}

int main(int argc, char **argv)
{
    gjkd_config config;
    char err[512];
    gjkd_config_result r = gjkd_config_load(&config, argc, argv, stdout, err, sizeof err);
    if (r == GJKD_CONFIG_EXIT)
        return 0;
    if (r == GJKD_CONFIG_ERROR) {
        fprintf(stderr, "gjkd: %s\n", err);
        return 2;
    }
    gjkd_log_set_level((gjkd_log_level)config.log_level);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: zmq_poll returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* Every connection holds a file descriptor, also an idle one that never completes its
     * handshake (dropped after --handshake-seconds): take the hard limit, so that a burst of
     * them does not leave the store without descriptors. */
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &files) != 0)
            GJKD_LOG(GJKD_LOG_WARN, "rlimit", 0, "cannot raise the open-file limit to %llu",
                     (unsigned long long)files.rlim_max);
    }

    /* CURVE needs both halves; --scene and --demo both name the first scene. */
    bool curve = config.curve_secret_key[0] != '\0';
    if (curve != (config.curve_allow[0] != '\0')) {
        fprintf(stderr, "gjkd: CURVE needs both --curve-secret-key and --curve-allow\n");
        return 2;
    }
    if (config.demo && config.scene_file[0] != '\0') {
        fprintf(stderr, "gjkd: --demo and --scene both name the initial scene; give one\n");
        return 2;
    }
    /* Every socket we bind follows the exposure rule: loopback only, unless CURVE is on (then
     * anywhere) or --insecure (anywhere, with a warning in the log). Checked here so that a
     * refusal stops the start before anything is loaded; the request endpoint is checked (and
     * its warning logged) again where it is bound. */
    if (!curve && !config.insecure && !gjkd_endpoint_is_loopback(config.endpoint)) {
        gjkd_endpoint_check(config.endpoint, "request", false, false, err, sizeof err);
        fprintf(stderr, "gjkd: %s\n", err);
        return 2;
    }
    gjkd_error error;
    bool http_on = !gjkd_http_is_off(config.http);
    if (http_on && !gjkd_http_check(config.http, &error)) {
        fprintf(stderr, "gjkd: %s\n", error.message);
        return 2;
    }
    const char *streams[2] = {config.pose_endpoint, config.monitor_endpoint};
    const char *stream_names[2] = {"pose", "monitor"};
    for (int i = 0; i < 2; ++i) {
        if (streams[i][0] != '\0' && !gjkd_endpoint_check(streams[i], stream_names[i], curve,
                                                          config.insecure, err, sizeof err)) {
            fprintf(stderr, "gjkd: %s\n", err);
            return 2;
        }
    }

    int status = 1;
    gjkd_store *store = NULL;
    gjkd_service *service = NULL;
    gjkd_stream *stream = NULL;
    gjkd_auth *auth = NULL;
    gjkd_http *http = NULL;
    gjkd_scene_watch *watch = NULL;
    void *zctx = NULL;

    if (config.state_dir[0] != '\0' &&
        (store = gjkd_store_open(config.state_dir, err, sizeof err)) == NULL) {
        GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "message=%s", GJKD_Q(err));
        goto done;
    }
    gjkd_service_def def = {config.limits, config.query_threads, config.threads, store};
    if ((service = gjkd_service_create(&def, &error)) == NULL) {
        GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "message=%s", GJKD_Q(error.message));
        goto done;
    }
    /* Probes from the start: alive at once, ready once a scene is loaded and requests are
     * served. */
    if (http_on && (http = gjkd_http_start(config.http, service, &error)) == NULL) {
        GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "option=--http message=%s",
                 GJKD_Q(error.message));
        goto done;
    }
    /* Keys before scenes: a bad key file stops the start before anything is loaded. */
    zctx = zmq_ctx_new();
    if (curve && (auth = gjkd_auth_start(zctx, config.curve_secret_key, config.curve_allow, service,
                                         err, sizeof err)) == NULL) {
        GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "message=%s", GJKD_Q(err));
        goto done;
    }
    bool loaded = false;
    if (store != NULL) {
        uint8_t *data;
        size_t size;
        gjkd_store_load_result lr = gjkd_store_load(store, &data, &size, err, sizeof err);
        if (lr == GJKD_STORE_CORRUPT) {
            GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0,
                     "message=%s refusing=\"to start with an empty scene (move the file away to "
                     "start empty)\"",
                     GJKD_Q(err));
            goto done;
        }
        if (lr == GJKD_STORE_LOADED) {
            bool ok = gjkd_service_load_scene(service, data, size, false, &error);
            free(data);
            if (!ok) {
                GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "snapshot=%s message=%s",
                         GJKD_Q(gjkd_store_path(store)), GJKD_Q(error.message));
                goto done;
            }
            loaded = true;
            GJKD_LOG(GJKD_LOG_INFO, "scene_loaded", 0, "path=%s revision=%llu",
                     GJKD_Q(gjkd_store_path(store)),
                     (unsigned long long)gjkd_service_revision(service));
        }
    }
    /* The scene file: loaded unless the persisted scene is newer (scene.h: the latest change
     * wins), then followed. */
    uint64_t seen = 0;
    if (config.scene_file[0] != '\0' &&
        (!loaded || gjkd_scene_file_newer(config.scene_file, gjkd_store_path(store)))) {
        if (!gjkd_scene_file_load(service, config.scene_file, &seen, &error)) {
            GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "option=--scene message=%s",
                     GJKD_Q(error.message));
            goto done;
        }
        GJKD_LOG(GJKD_LOG_INFO, "scene_loaded", 0, "path=%s revision=%llu%s",
                 GJKD_Q(config.scene_file), (unsigned long long)gjkd_service_revision(service),
                 loaded ? " over=\"the persisted scene (older than the file)\"" : "");
        loaded = true;
    } else if (config.scene_file[0] != '\0' &&
               !gjkd_scene_file_revision(config.scene_file, &seen, &error)) {
        GJKD_LOG(GJKD_LOG_WARN, "scene_unreadable", 0, "path=%s message=%s",
                 GJKD_Q(config.scene_file), GJKD_Q(error.message));
    }
    if (config.scene_file[0] != '\0' &&
        (watch = gjkd_scene_watch_start(service, config.scene_file, seen, &error)) == NULL) {
        GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "option=--scene message=%s",
                 GJKD_Q(error.message));
        goto done;
    }
    if (config.demo && !loaded) {
        if (!gjkd_demo_load(service, &error)) {
            GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "option=--demo message=%s",
                     GJKD_Q(error.message));
            goto done;
        }
        GJKD_LOG(GJKD_LOG_INFO, "demo_loaded", 0, "revision=%llu",
                 (unsigned long long)gjkd_service_revision(service));
    }

    stream = gjkd_stream_start_auth(zctx, config.pose_endpoint, config.monitor_endpoint, auth,
                                    service, err, sizeof err);
    if (stream == NULL && err[0] != '\0') {
        GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "message=%s", GJKD_Q(err));
        goto done;
    }
    daemon_state state = {argc, argv, &config, service, auth, http};
    gjkd_transport_def tdef;
    memset(&tdef, 0, sizeof tdef);
    tdef.zmq_context = zctx;
    tdef.endpoint = config.endpoint;
    tdef.threads = config.threads;
    tdef.insecure = config.insecure;
    tdef.auth = auth;
    tdef.drain_seconds = config.drain_seconds;
    tdef.handshake_seconds = config.handshake_seconds;
    tdef.max_connections = config.max_connections;
    tdef.service = service;
    tdef.stop = &g_stop;
    tdef.reload = &g_reload;
    tdef.on_reload = reload_config;
    tdef.user = &state;
    tdef.on_ready = on_listening;
    if (gjkd_transport_run(&tdef, err, sizeof err) != 0) {
        GJKD_LOG(GJKD_LOG_ERROR, "start_failed", 0, "message=%s", GJKD_Q(err));
        goto done;
    }
    status = 0;
    GJKD_LOG(GJKD_LOG_INFO, "stopped", 0, "revision=%llu",
             (unsigned long long)gjkd_service_revision(service));
done:
    gjkd_scene_watch_stop(&watch);
    gjkd_http_stop(&http);
    gjkd_stream_stop(&stream);
    gjkd_auth_stop(&auth);
    if (zctx != NULL)
        zmq_ctx_term(zctx);
    gjkd_service_destroy(&service);
    gjkd_store_close(&store);
    return status;
}
