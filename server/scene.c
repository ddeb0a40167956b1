/* scene.c — see scene.h. */
#define _GNU_SOURCE /* O_CLOEXEC flags of inotify_init1 and eventfd, realpath */
#include "scene.h"

#include "log.h"
#include "metrics.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef GJKD_HAVE_JSON
#include "gjkd_json.h"
#endif

uint64_t gjkd_scene_revision_of(const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    uint64_t h = 14695981039346656037ull; /* FNV-1a 64 */
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    uint64_t r = (h ^ (h >> 53)) & ((1ull << 53) - 1); /* exact in a double */
    return r != 0 ? r : 1;
}

#ifdef GJKD_HAVE_JSON
bool gjkd_scene_json_load(gjkd_service *service, const char *text, size_t length, const char *what,
                          uint64_t revision, gjkd_error *error)
{
    Gjkd__V1__Scene *scene = NULL;
    gjkd_json_error jerr;
    if (!gjkd_json_parse_scene(text, length, &scene, &jerr))
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s: %s", what, jerr.message);
    scene->revision = revision;
    size_t size = gjkd__v1__scene__get_packed_size(scene);
    uint8_t *buf = malloc(size > 0 ? size : 1);
    bool ok = false;
    if (buf == NULL) {
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
    } else {
        gjkd__v1__scene__pack(scene, buf);
        ok = gjkd_service_load_scene(service, buf, size, true, error);
    }
    free(buf);
    gjkd_json_scene_free(&scene);
    return ok;
}

static char *read_file(const char *path, size_t *length, gjkd_error *error)
{
    gjkd_json_error jerr;
    char *text = gjkd_json_read_file(path, length, &jerr);
    if (text == NULL)
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "%s", jerr.message);
    return text;
}
#else
bool gjkd_scene_json_load(gjkd_service *service, const char *text, size_t length, const char *what,
                          uint64_t revision, gjkd_error *error)
{
    (void)service;
    (void)text;
    (void)length;
    (void)what;
    (void)revision;
    return gjkd_fail(error, GJKD_CODE(UNIMPLEMENTED), "this gjkd was built without gjkd_json");
}

static char *read_file(const char *path, size_t *length, gjkd_error *error)
{
    (void)path;
    (void)length;
    gjkd_fail(error, GJKD_CODE(UNIMPLEMENTED), "this gjkd was built without gjkd_json");
    return NULL;
}
#endif

bool gjkd_scene_file_revision(const char *path, uint64_t *revision, gjkd_error *error)
{
    size_t length = 0;
    char *text = read_file(path, &length, error);
    *revision = text != NULL ? gjkd_scene_revision_of(text, length) : 0;
    free(text);
    return text != NULL;
}

bool gjkd_scene_file_load(gjkd_service *service, const char *path, uint64_t *revision,
                          gjkd_error *error)
{
    size_t length = 0;
    *revision = 0;
    char *text = read_file(path, &length, error);
    if (text == NULL)
        return false;
    *revision = gjkd_scene_revision_of(text, length);
    bool ok = gjkd_scene_json_load(service, text, length, path, *revision, error);
    free(text);
    return ok;
}

bool gjkd_scene_file_newer(const char *path, const char *than)
{
    struct stat a, b;
    if (stat(path, &a) != 0 || stat(than, &b) != 0)
        return false;
    return a.st_mtim.tv_sec > b.st_mtim.tv_sec ||
           (a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec > b.st_mtim.tv_nsec);
}

/* ---------------------------------------------------------------- following */

enum { QUIET_MS = 50, REWATCH_MS = 1000 };
#define WATCH_MASK                                                                                 \
    (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

struct gjkd_scene_watch {
    pthread_t thread;
    gjkd_service *service;
    char path[PATH_MAX];
    int inotify, wake; /* wake: an eventfd; written once to stop the thread */
    /* The path's directory and the names in it that are the file: its own, and the first
     * component of its symlink's relative target (a ConfigMap's "..data"). */
    int dir_wd;
    char dir[PATH_MAX], name[PATH_MAX], link_name[PATH_MAX];
    /* The directory of the file the path resolves to (a write in place), if another. */
    int real_wd;
    char real_dir[PATH_MAX], real_name[PATH_MAX];
    uint64_t seen;   /* revision of the last bytes read (loaded or refused) */
    uint64_t loaded; /* revision of the last bytes loaded */
};

static void split_path(const char *path, char *dir, size_t dir_size, char *name, size_t name_size)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        snprintf(dir, dir_size, ".");
        snprintf(name, name_size, "%s", path);
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        snprintf(dir, dir_size, "%.*s", (int)n, path);
        snprintf(name, name_size, "%s", slash + 1);
    }
}

/* (Re)reads where the path leads: its symlink's first component, the resolved file's
 * directory (watched too when it is another one). */
static void resolve_links(gjkd_scene_watch *w)
{
    char target[PATH_MAX];
    ssize_t n = readlink(w->path, target, sizeof target - 1);
    w->link_name[0] = '\0';
    if (n > 0) {
        target[n] = '\0';
        char *slash = strchr(target, '/');
        if (target[0] != '/' && slash != NULL && (size_t)(slash - target) < sizeof w->link_name)
            snprintf(w->link_name, sizeof w->link_name, "%.*s", (int)(slash - target), target);
    }
    char real[PATH_MAX], real_dir[PATH_MAX], real_name[PATH_MAX];
    if (realpath(w->path, real) == NULL)
        return; /* gone for now: the directory's events bring it back */
    split_path(real, real_dir, sizeof real_dir, real_name, sizeof real_name);
    snprintf(w->real_name, sizeof w->real_name, "%s", real_name);
    if (w->real_wd >= 0 && strcmp(w->real_dir, real_dir) == 0)
        return;
    if (w->real_wd >= 0 && w->real_wd != w->dir_wd)
        inotify_rm_watch(w->inotify, w->real_wd);
    snprintf(w->real_dir, sizeof w->real_dir, "%s", real_dir);
    char dir_real[PATH_MAX];
    bool same = realpath(w->dir, dir_real) != NULL && strcmp(dir_real, real_dir) == 0;
    w->real_wd = same ? w->dir_wd : inotify_add_watch(w->inotify, w->real_dir, WATCH_MASK);
}

/* Reads the file; loads it if its bytes are new. */
static void sync_file(gjkd_scene_watch *w)
{
    resolve_links(w);
    gjkd_error error;
    uint64_t revision;
    if (!gjkd_scene_file_revision(w->path, &revision, &error)) {
        if (w->seen != 0) { /* once per disappearance */
            w->seen = 0;
            gjkd_metrics_scene_reload(gjkd_service_metrics(w->service), false);
            GJKD_LOG(GJKD_LOG_ERROR, "scene_reload_failed", 0,
                     "path=%s kept_revision=%llu message=%s", GJKD_Q(w->path),
                     (unsigned long long)gjkd_service_revision(w->service), GJKD_Q(error.message));
        }
        return;
    }
    if (revision == w->seen)
        return; /* the same bytes again (a touch, a rewrite of the same content) */
    uint64_t before = gjkd_service_revision(w->service);
    w->seen = revision;
    bool ok = gjkd_scene_file_load(w->service, w->path, &revision, &error);
    w->seen = revision != 0 ? revision : w->seen;
    gjkd_metrics_scene_reload(gjkd_service_metrics(w->service), ok);
    if (!ok) {
        GJKD_LOG(GJKD_LOG_ERROR, "scene_reload_failed", 0,
                 "path=%s file_revision=%llu kept_revision=%llu message=%s", GJKD_Q(w->path),
                 (unsigned long long)revision,
                 (unsigned long long)gjkd_service_revision(w->service), GJKD_Q(error.message));
        return;
    }
    GJKD_LOG(GJKD_LOG_INFO, "scene_reloaded", 0, "path=%s revision=%llu previous=%llu%s",
             GJKD_Q(w->path), (unsigned long long)revision, (unsigned long long)before,
             before != w->loaded ? " replaced=\"changes made over the wire since the file's "
                                   "last load\""
                                 : "");
    w->loaded = revision;
}

/* Whether an event says the file may have changed. */
static bool relevant(const gjkd_scene_watch *w, const struct inotify_event *ev)
{
    if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_Q_OVERFLOW))
        return true;
    if (ev->len == 0)
        return false;
    bool named = (ev->wd == w->dir_wd &&
                  (strcmp(ev->name, w->name) == 0 ||
                   (w->link_name[0] != '\0' && strcmp(ev->name, w->link_name) == 0))) ||
                 (ev->wd == w->real_wd && strcmp(ev->name, w->real_name) == 0);
    if (!named)
        return false;
    if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))
        return true;
    if (ev->mask & IN_CREATE) { /* a new symlink is complete; a new file is not yet written */
        char entry[2 * PATH_MAX + 2];
        struct stat st;
        snprintf(entry, sizeof entry, "%s/%s", ev->wd == w->dir_wd ? w->dir : w->real_dir,
                 ev->name);
        return lstat(entry, &st) == 0 && S_ISLNK(st.st_mode);
    }
    return false;
}

static void *watch_main(void *arg)
{
    gjkd_scene_watch *w = arg;
    bool pending = true; /* check once at start: a change made since the load is not missed */
    for (;;) {
        struct pollfd fds[2] = {{w->wake, POLLIN, 0}, {w->inotify, POLLIN, 0}};
        int timeout = pending ? QUIET_MS : w->dir_wd < 0 ? REWATCH_MS : -1;
        int n = poll(fds, 2, timeout);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && (fds[0].revents & POLLIN))
            break;
        if (n > 0 && (fds[1].revents & POLLIN)) {
            char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
            ssize_t len;
            while ((len = read(w->inotify, buf, sizeof buf)) > 0) {
                for (char *p = buf; p < buf + len;) {
                    const struct inotify_event *ev = (const struct inotify_event *)p;
                    if (ev->mask & IN_IGNORED) { /* a watched directory went away */
                        if (ev->wd == w->dir_wd)
                            w->dir_wd = -1;
                        if (ev->wd == w->real_wd)
                            w->real_wd = -1;
                    }
                    pending = pending || relevant(w, ev);
                    p += sizeof *ev + ev->len;
                }
            }
            continue; /* wait for quiet */
        }
        if (n == 0 && w->dir_wd < 0) {
            w->dir_wd = inotify_add_watch(w->inotify, w->dir, WATCH_MASK);
            if (w->dir_wd >= 0) {
                GJKD_LOG(GJKD_LOG_INFO, "scene_watch_restored", 0, "dir=%s", GJKD_Q(w->dir));
                pending = true;
            }
        }
        if (n == 0 && pending) {
            pending = false;
            sync_file(w);
        }
    }
    return NULL;
}

gjkd_scene_watch *gjkd_scene_watch_start(gjkd_service *service, const char *path, uint64_t seen,
                                         gjkd_error *error)
{
    gjkd_scene_watch *w = calloc(1, sizeof *w);
    if (w == NULL) {
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        return NULL;
    }
    w->service = service;
    w->seen = seen;
    w->loaded = gjkd_service_revision(service);
    w->dir_wd = w->real_wd = -1;
    snprintf(w->path, sizeof w->path, "%s", path);
    split_path(path, w->dir, sizeof w->dir, w->name, sizeof w->name);
    w->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w->wake = eventfd(0, EFD_CLOEXEC);
    if (w->inotify < 0 || w->wake < 0) {
        gjkd_fail(error, GJKD_CODE(INTERNAL), "scene: cannot watch '%s': %s", w->dir,
                  strerror(errno));
        goto fail;
    }
    /* A directory that is not there (yet) is watched once it is (tried every second). */
    if ((w->dir_wd = inotify_add_watch(w->inotify, w->dir, WATCH_MASK)) < 0)
        GJKD_LOG(GJKD_LOG_WARN, "scene_watch_waiting", 0, "dir=%s message=%s", GJKD_Q(w->dir),
                 GJKD_Q(strerror(errno)));
    resolve_links(w);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* main's loop takes the signals */
    int rc = pthread_create(&w->thread, NULL, watch_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        gjkd_fail(error, GJKD_CODE(INTERNAL), "scene: cannot start the watcher: %s", strerror(rc));
        goto fail;
    }
    GJKD_LOG(GJKD_LOG_INFO, "scene_following", 0, "path=%s dir=%s", GJKD_Q(path), GJKD_Q(w->dir));
    return w;
fail:
    if (w->inotify >= 0)
        close(w->inotify);
    if (w->wake >= 0)
        close(w->wake);
    free(w);
    return NULL;
}

void gjkd_scene_watch_stop(gjkd_scene_watch **watch)
{
    if (watch == NULL || *watch == NULL)
        return;
    gjkd_scene_watch *w = *watch;
    uint64_t one = 1;
    ssize_t n = write(w->wake, &one, sizeof one);
    (void)n; /* an eventfd counter cannot overflow from one write */
    pthread_join(w->thread, NULL);
    close(w->inotify);
    close(w->wake);
    free(w);
    *watch = NULL;
}
