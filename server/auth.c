/* auth.c — see auth.h. */
#define _POSIX_C_SOURCE 200809L
#include "auth.h"

#include "log.h"
#include "monitor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

enum { KEY_BYTES = 32, MAX_KEY_FILE_BYTES = 1 << 20 };

/* ---------------------------------------------------------------- key files */

/* Reads a whole (small) file. secret: refuse group/world access. NULL with a message. */
static char *read_key_text(const char *path, bool secret, char *err, size_t err_size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_size, "cannot open key file '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "key file '%s' is not a regular file", path);
        goto done;
    }
    if (secret && (st.st_mode & 077) != 0) {
        snprintf(err, err_size,
                 "secret key file '%s' is accessible by group or others (mode %04o); "
                 "run: chmod 600 '%s'",
                 path, (unsigned)(st.st_mode & 07777), path);
        goto done;
    }
    if (st.st_size > MAX_KEY_FILE_BYTES) {
        snprintf(err, err_size, "key file '%s' is larger than %d bytes", path, MAX_KEY_FILE_BYTES);
        goto done;
    }
    size_t size = (size_t)st.st_size;
    text = malloc(size + 1);
    if (text == NULL) {
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, text + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    text[got] = '\0';
done:
    close(fd);
    return text;
}

/* Next key line of text (from *cursor): blank and '#' lines skipped, trailing white space
 * trimmed in place. NULL at the end; *line_number counts lines. */
static char *next_key_line(char **cursor, int *line_number)
{
    while (**cursor != '\0') {
        char *line = *cursor;
        char *end = strchr(line, '\n');
        if (end != NULL) {
            *end = '\0';
            *cursor = end + 1;
        } else {
            *cursor = line + strlen(line);
        }
        (*line_number)++;
        while (*line == ' ' || *line == '\t')
            ++line;
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        return line;
    }
    return NULL;
}

/* True if line is a Z85 key (40 characters that decode to 32 bytes). */
static bool decode_key(const char *line, uint8_t key[KEY_BYTES])
{
    if (strlen(line) != GJKD_Z85_KEY_LENGTH)
        return false;
    return zmq_z85_decode(key, line) != NULL;
}

bool gjkd_key_file_read(const char *path, bool secret, char z85[GJKD_Z85_KEY_LENGTH + 1], char *err,
                        size_t err_size)
{
    char *text = read_key_text(path, secret, err, err_size);
    if (text == NULL)
        return false;
    char *cursor = text;
    int line_number = 0;
    char *line = next_key_line(&cursor, &line_number);
    uint8_t key[KEY_BYTES];
    bool ok = line != NULL && decode_key(line, key);
    if (ok)
        memcpy(z85, line, GJKD_Z85_KEY_LENGTH + 1);
    else if (line == NULL)
        snprintf(err, err_size, "key file '%s' holds no key", path);
    else
        snprintf(err, err_size, "%s:%d: not a Z85 key (expected 40 characters of Z85 text)", path,
                 line_number);
    free(text);
    return ok;
}

/* ---------------------------------------------------------------- allow-list */

struct gjkd_allowlist {
    uint8_t (*keys)[KEY_BYTES]; /* sorted */
    size_t count, capacity;
};

static int compare_keys(const void *a, const void *b)
{
    return memcmp(a, b, KEY_BYTES);
}

static bool add_keys_from_file(gjkd_allowlist *list, const char *path, char *err, size_t err_size)
{
    char *text = read_key_text(path, false, err, err_size);
    if (text == NULL)
        return false;
    char *cursor = text, *line;
    int line_number = 0;
    bool ok = true;
    while (ok && (line = next_key_line(&cursor, &line_number)) != NULL) {
        uint8_t key[KEY_BYTES];
        if (!decode_key(line, key)) {
            snprintf(err, err_size,
                     "%s:%d: not a Z85 public key (expected 40 characters of Z85 text)", path,
                     line_number);
            ok = false;
            break;
        }
        if (list->count == list->capacity) {
            size_t cap = list->capacity ? 2 * list->capacity : 16;
            void *grown = realloc(list->keys, cap * KEY_BYTES);
            if (grown == NULL) {
                snprintf(err, err_size, "out of memory");
                ok = false;
                break;
            }
            list->keys = grown;
            list->capacity = cap;
        }
        memcpy(list->keys[list->count++], key, KEY_BYTES);
    }
    free(text);
    return ok;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

gjkd_allowlist *gjkd_allowlist_load(const char *path, char *err, size_t err_size)
{
    gjkd_allowlist *list = calloc(1, sizeof *list);
    if (list == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    struct stat st;
    bool ok = true;
    if (stat(path, &st) != 0) {
        snprintf(err, err_size, "cannot read allow-list '%s': %s", path, strerror(errno));
        ok = false;
    } else if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        if (dir == NULL) {
            snprintf(err, err_size, "cannot read allow-list directory '%s': %s", path,
                     strerror(errno));
            ok = false;
        }
        struct dirent *e;
        while (ok && (e = readdir(dir)) != NULL) {
            if (e->d_name[0] == '.' || !ends_with(e->d_name, ".pub"))
                continue;
            char file[4096];
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            ok = add_keys_from_file(list, file, err, err_size);
        }
        if (dir != NULL)
            closedir(dir);
    } else {
        ok = add_keys_from_file(list, path, err, err_size);
    }
    if (ok && list->count == 0) {
        snprintf(err, err_size,
                 "allow-list '%s' holds no client key (a file of Z85 keys, or a directory of "
                 "*.pub files)",
                 path);
        ok = false;
    }
    if (!ok) {
        gjkd_allowlist_free(&list);
        return NULL;
    }
    qsort(list->keys, list->count, KEY_BYTES, compare_keys);
    return list;
}

void gjkd_allowlist_free(gjkd_allowlist **list)
{
    if (list == NULL || *list == NULL)
        return;
    free((*list)->keys);
    free(*list);
    *list = NULL;
}

size_t gjkd_allowlist_count(const gjkd_allowlist *list)
{
    return list->count;
}

bool gjkd_allowlist_contains(const gjkd_allowlist *list, const uint8_t key[32])
{
    return list->count > 0 && bsearch(key, list->keys, list->count, KEY_BYTES, compare_keys);
}

/* ---------------------------------------------------------------- ZAP handler */

typedef struct watched {
    char name[16];
    char endpoint[64]; /* inproc endpoint of its socket monitor */
    void *pair;        /* the handler's end, owned by the thread */
} watched;

struct gjkd_auth {
    void *context;
    gjkd_service *service;
    char secret_key[GJKD_Z85_KEY_LENGTH + 1];
    char public_key[GJKD_Z85_KEY_LENGTH + 1];
    pthread_mutex_t lock; /* guards list (the handler reads it, reload swaps it) */
    gjkd_allowlist *list;
    void *zap; /* REP on inproc://zeromq.zap.01, owned by the thread */
    watched sockets[GJKD_AUTH_MAX_SOCKETS];
    atomic_int n_sockets;
    atomic_uint_fast64_t refused, accepted;
    atomic_bool stop;
    pthread_t thread;
    bool running;
    /* Log rate limit (the handler thread, and the transport's thread through
     * gjkd_auth_handshake_event). */
    pthread_mutex_t log_lock;
    double last_log;
    uint64_t suppressed;
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One warning line per second at most; the lines skipped meanwhile are counted in it. */
static void log_refusal(gjkd_auth *a, const char *socket, const char *detail)
{
    double now = now_seconds();
    pthread_mutex_lock(&a->log_lock);
    if (a->last_log != 0 && now - a->last_log < 1.0) {
        a->suppressed++;
        pthread_mutex_unlock(&a->log_lock);
        return;
    }
    GJKD_LOG(GJKD_LOG_WARN, "auth_refused", 0, "socket=%s %s refused_total=%llu suppressed=%llu",
             socket, detail, (unsigned long long)atomic_load(&a->refused),
             (unsigned long long)a->suppressed);
    a->last_log = now;
    a->suppressed = 0;
    pthread_mutex_unlock(&a->log_lock);
}

static void count_refusal(gjkd_auth *a)
{
    atomic_fetch_add(&a->refused, 1);
    if (a->service != NULL)
        gjkd_service_count_auth_refused(a->service);
}

/* Answers one ZAP request (RFC 27): [version][request id][domain][address][identity]
 * [mechanism][credentials...] -> [version][request id][status][text][user id][metadata]. */
static void handle_zap(gjkd_auth *a)
{
    enum { MAX_FRAMES = 8 };
    zmq_msg_t f[MAX_FRAMES];
    int n = 0, more = 1;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, a->zap, 0) < 0) {
            zmq_msg_close(&m);
            for (int i = 0; i < n; ++i)
                zmq_msg_close(&f[i]);
            return;
        }
        more = zmq_msg_more(&m);
        if (n < MAX_FRAMES)
            f[n++] = m;
        else
            zmq_msg_close(&m);
    }
    const char *status = "400", *text = "CURVE client key required";
    char user[GJKD_Z85_KEY_LENGTH + 1] = "";
    char address[64] = "?";
    if (n >= 4) {
        size_t len = zmq_msg_size(&f[3]);
        if (len >= sizeof address)
            len = sizeof address - 1;
        memcpy(address, zmq_msg_data(&f[3]), len);
        address[len] = '\0';
    }
    bool curve = n >= 7 && zmq_msg_size(&f[5]) == 5 && memcmp(zmq_msg_data(&f[5]), "CURVE", 5) == 0;
    if (n >= 2 && curve && zmq_msg_size(&f[6]) == KEY_BYTES) {
        const uint8_t *key = zmq_msg_data(&f[6]);
        pthread_mutex_lock(&a->lock);
        bool allowed = gjkd_allowlist_contains(a->list, key);
        pthread_mutex_unlock(&a->lock);
        zmq_z85_encode(user, key, KEY_BYTES);
        if (allowed) {
            status = "200";
            text = "OK";
        } else {
            text = "client key not on the allow-list";
        }
    }
    if (strcmp(status, "200") != 0) {
        char detail[160];
        snprintf(detail, sizeof detail, "address=%s key=%s reason=\"%s\"", address,
                 user[0] ? user : "-", text);
        count_refusal(a);
        log_refusal(a, "zap", detail);
    }
    const char *version = "1.0";
    zmq_send(a->zap, version, 3, ZMQ_SNDMORE);
    if (n >= 2)
        zmq_send(a->zap, zmq_msg_data(&f[1]), zmq_msg_size(&f[1]), ZMQ_SNDMORE);
    else
        zmq_send(a->zap, "", 0, ZMQ_SNDMORE);
    zmq_send(a->zap, status, 3, ZMQ_SNDMORE);
    zmq_send(a->zap, text, strlen(text), ZMQ_SNDMORE);
    zmq_send(a->zap, strcmp(status, "200") == 0 ? user : "",
             strcmp(status, "200") == 0 ? strlen(user) : 0, ZMQ_SNDMORE);
    zmq_send(a->zap, "", 0, 0);
    for (int i = 0; i < n; ++i)
        zmq_msg_close(&f[i]);
}

static const char *protocol_reason(uint32_t value)
{
    switch (value) {
    case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
        return "the client does not use CURVE";
    case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC:
        return "CURVE handshake failed (wrong server key?)";
    default:
        return NULL;
    }
}

/* One socket-monitor event: [uint16 event][uint32 value] [endpoint]. */
static void handle_monitor(gjkd_auth *a, const watched *w)
{
    uint16_t event;
    uint32_t value;
    if (gjkd_monitor_recv(w->pair, 0, &event, &value))
        gjkd_auth_handshake_event(a, w->name, event, value);
}

void gjkd_auth_handshake_event(gjkd_auth *a, const char *name, int event, uint32_t value)
{
    if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
        atomic_fetch_add(&a->accepted, 1);
    } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) {
        /* The peer left during the handshake: typically a client without CURVE that saw the
         * server's mechanism first (which side notices a mismatch first is a race), or a
         * bare TCP probe. Not authenticated either way. */
        count_refusal(a);
        log_refusal(a, name, "reason=\"connection closed during the CURVE handshake\"");
    } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) {
        count_refusal(a);
        char detail[96];
        const char *reason = protocol_reason(value);
        if (reason != NULL)
            snprintf(detail, sizeof detail, "reason=\"%s\"", reason);
        else
            snprintf(detail, sizeof detail, "reason=\"protocol error 0x%08x\"", (unsigned)value);
        log_refusal(a, name, detail);
    }
}

static void *auth_main(void *arg)
{
    gjkd_auth *a = arg;
    while (!atomic_load(&a->stop)) {
        zmq_pollitem_t items[1 + GJKD_AUTH_MAX_SOCKETS];
        items[0] = (zmq_pollitem_t){a->zap, 0, ZMQ_POLLIN, 0};
        for (int i = 0; i < GJKD_AUTH_MAX_SOCKETS; ++i)
            items[1 + i] = (zmq_pollitem_t){a->sockets[i].pair, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(items, 1 + GJKD_AUTH_MAX_SOCKETS, 100) <= 0)
            continue;
        if (items[0].revents & ZMQ_POLLIN)
            handle_zap(a);
        for (int i = 0; i < GJKD_AUTH_MAX_SOCKETS; ++i)
            if (items[1 + i].revents & ZMQ_POLLIN)
                handle_monitor(a, &a->sockets[i]);
    }
    return NULL;
}

static void close_sockets(gjkd_auth *a)
{
    if (a->zap != NULL)
        zmq_close(a->zap);
    a->zap = NULL;
    for (int i = 0; i < GJKD_AUTH_MAX_SOCKETS; ++i) {
        if (a->sockets[i].pair != NULL)
            zmq_close(a->sockets[i].pair);
        a->sockets[i].pair = NULL;
    }
}

gjkd_auth *gjkd_auth_start(void *zmq_context, const char *secret_key_file, const char *allow_path,
                           gjkd_service *service, char *err, size_t err_size)
{
    if (zmq_has("curve") == 0) {
        snprintf(err, err_size, "this libzmq was built without CURVE support");
        return NULL;
    }
    gjkd_auth *a = calloc(1, sizeof *a);
    if (a == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    a->context = zmq_context;
    a->service = service;
    pthread_mutex_init(&a->lock, NULL);
    pthread_mutex_init(&a->log_lock, NULL);
    if (!gjkd_key_file_read(secret_key_file, true, a->secret_key, err, err_size))
        goto fail;
    if (zmq_curve_public(a->public_key, a->secret_key) != 0) {
        snprintf(err, err_size, "cannot derive the public key from '%s'", secret_key_file);
        goto fail;
    }
    if ((a->list = gjkd_allowlist_load(allow_path, err, err_size)) == NULL)
        goto fail;
    a->zap = zmq_socket(zmq_context, ZMQ_REP);
    int linger = 0;
    zmq_setsockopt(a->zap, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind(a->zap, "inproc://zeromq.zap.01") != 0) {
        snprintf(err, err_size, "cannot bind the ZAP handler: %s", zmq_strerror(zmq_errno()));
        goto fail;
    }
    /* The monitors' peers connect now (inproc allows connect before bind), so that no event
     * is lost when gjkd_auth_secure_socket starts a monitor. */
    for (int i = 0; i < GJKD_AUTH_MAX_SOCKETS; ++i) {
        watched *w = &a->sockets[i];
        snprintf(w->endpoint, sizeof w->endpoint, "inproc://gjkd-auth-%p-%d", (void *)a, i);
        w->pair = zmq_socket(zmq_context, ZMQ_PAIR);
        zmq_setsockopt(w->pair, ZMQ_LINGER, &linger, sizeof linger);
        if (zmq_connect(w->pair, w->endpoint) != 0) {
            snprintf(err, err_size, "cannot connect a socket monitor: %s",
                     zmq_strerror(zmq_errno()));
            goto fail;
        }
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&a->thread, NULL, auth_main, a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, err_size, "cannot start the ZAP handler thread");
        goto fail;
    }
    a->running = true;
    GJKD_LOG(GJKD_LOG_INFO, "curve_enabled", 0, "server_key=%s allowed_clients=%zu allow=%s",
             a->public_key, a->list->count, allow_path);
    return a;
fail:
    close_sockets(a);
    gjkd_allowlist_free(&a->list);
    pthread_mutex_destroy(&a->lock);
    pthread_mutex_destroy(&a->log_lock);
    memset(a->secret_key, 0, sizeof a->secret_key);
    free(a);
    return NULL;
}

void gjkd_auth_stop(gjkd_auth **auth)
{
    if (auth == NULL || *auth == NULL)
        return;
    gjkd_auth *a = *auth;
    atomic_store(&a->stop, true);
    if (a->running)
        pthread_join(a->thread, NULL);
    close_sockets(a);
    gjkd_allowlist_free(&a->list);
    pthread_mutex_destroy(&a->lock);
    pthread_mutex_destroy(&a->log_lock);
    memset(a->secret_key, 0, sizeof a->secret_key);
    free(a);
    *auth = NULL;
}

bool gjkd_auth_curve_socket(gjkd_auth *auth, void *socket, const char *name, char *err,
                            size_t err_size)
{
    int one = 1;
    const char *domain = "gjkd";
    if (zmq_setsockopt(socket, ZMQ_CURVE_SERVER, &one, sizeof one) != 0 ||
        zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, auth->secret_key, GJKD_Z85_KEY_LENGTH) != 0 ||
        zmq_setsockopt(socket, ZMQ_ZAP_DOMAIN, domain, strlen(domain)) != 0) {
        snprintf(err, err_size, "cannot make the %s socket a CURVE server: %s", name,
                 zmq_strerror(zmq_errno()));
        return false;
    }
    return true;
}

bool gjkd_auth_secure_socket(gjkd_auth *auth, void *socket, const char *name, char *err,
                             size_t err_size)
{
    int slot = atomic_fetch_add(&auth->n_sockets, 1);
    if (slot >= GJKD_AUTH_MAX_SOCKETS) {
        snprintf(err, err_size, "too many CURVE sockets (at most %d)", GJKD_AUTH_MAX_SOCKETS);
        return false;
    }
    watched *w = &auth->sockets[slot];
    snprintf(w->name, sizeof w->name, "%s", name);
    if (!gjkd_auth_curve_socket(auth, socket, name, err, err_size))
        return false;
    /* Refusals by the allow-list are counted by the ZAP handler itself (with the key). */
    if (zmq_socket_monitor(socket, w->endpoint, GJKD_AUTH_MONITOR_EVENTS) != 0) {
        snprintf(err, err_size, "cannot monitor the %s socket: %s", name,
                 zmq_strerror(zmq_errno()));
        return false;
    }
    return true;
}

bool gjkd_auth_reload(gjkd_auth *auth, const char *allow_path, char *err, size_t err_size)
{
    gjkd_allowlist *fresh = gjkd_allowlist_load(allow_path, err, err_size);
    if (fresh == NULL)
        return false;
    pthread_mutex_lock(&auth->lock);
    gjkd_allowlist *old = auth->list;
    auth->list = fresh;
    pthread_mutex_unlock(&auth->lock);
    gjkd_allowlist_free(&old);
    return true;
}

bool gjkd_auth_allows_user(gjkd_auth *auth, const char *user_id)
{
    uint8_t key[KEY_BYTES];
    if (user_id == NULL || strlen(user_id) != GJKD_Z85_KEY_LENGTH ||
        zmq_z85_decode(key, user_id) == NULL)
        return false;
    pthread_mutex_lock(&auth->lock);
    bool allowed = gjkd_allowlist_contains(auth->list, key);
    pthread_mutex_unlock(&auth->lock);
    return allowed;
}

uint64_t gjkd_auth_refused(const gjkd_auth *auth)
{
    return atomic_load(&((gjkd_auth *)auth)->refused);
}

uint64_t gjkd_auth_accepted(const gjkd_auth *auth)
{
    return atomic_load(&((gjkd_auth *)auth)->accepted);
}

const char *gjkd_auth_server_public_key(const gjkd_auth *auth)
{
    return auth->public_key;
}
