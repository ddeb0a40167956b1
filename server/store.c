/* store.c — see store.h. */
#define _DEFAULT_SOURCE /* flock */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const char k_magic[8] = {'G', 'J', 'K', 'D', 'S', 'N', 'A', 'P'};
enum { FORMAT_VERSION = 1 };

struct gjkd_store {
    char *dir;
    char *path;
    char *tmp_path;
    int lock_fd;
    uint64_t not_durable; /* saves whose directory fsync failed after the rename */
};

uint32_t gjkd_crc32(const uint8_t *data, size_t size)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

static void put_le(uint8_t *out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v |= (uint64_t)in[i] << (8 * i);
    return v;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void gjkd_store_close(gjkd_store **store)
{
    if (store == NULL || *store == NULL)
        return;
    gjkd_store *s = *store;
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* releases the flock */
    free(s->dir);
    free(s->path);
    free(s->tmp_path);
    free(s);
    *store = NULL;
}

/* The state directory rule (see store.h): the directory itself owned by the daemon's user and
 * writable by nobody else; each directory above it owned by root or that user and writable by
 * nobody else unless it has the sticky bit (like /tmp). */
static bool check_directory(int dir_fd, const char *dir, char *err, size_t err_size)
{
    uid_t me = geteuid();
    struct stat st;
    if (fstat(dir_fd, &st) != 0) {
        snprintf(err, err_size, "cannot stat state directory '%s': %s", dir, strerror(errno));
        return false;
    }
    if (st.st_uid != me) {
        snprintf(err, err_size,
                 "unsafe state directory '%s': owned by uid %ld, not by this daemon's uid %ld", dir,
                 (long)st.st_uid, (long)me);
        return false;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        snprintf(err, err_size,
                 "unsafe state directory '%s': mode %04o lets other users write it (chmod "
                 "go-w)",
                 dir, (unsigned)(st.st_mode & 07777));
        return false;
    }
    char *real = realpath(dir, NULL);
    if (real == NULL) {
        snprintf(err, err_size, "cannot resolve state directory '%s': %s", dir, strerror(errno));
        return false;
    }
    bool ok = true;
    for (char *slash = strrchr(real, '/'); ok && slash != NULL; slash = strrchr(real, '/')) {
        if (slash == real)
            slash[1] = '\0'; /* "/" itself, last */
        else
            *slash = '\0';
        if (stat(real, &st) != 0) {
            snprintf(err, err_size, "cannot stat '%s' (above the state directory): %s", real,
                     strerror(errno));
            ok = false;
        } else if (st.st_uid != 0 && st.st_uid != me) {
            snprintf(err, err_size,
                     "unsafe state directory '%s': '%s' above it is owned by uid %ld (neither "
                     "root nor this daemon's uid %ld)",
                     dir, real, (long)st.st_uid, (long)me);
            ok = false;
        } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
            snprintf(err, err_size,
                     "unsafe state directory '%s': '%s' above it has mode %04o (writable by "
                     "other users without the sticky bit)",
                     dir, real, (unsigned)(st.st_mode & 07777));
            ok = false;
        }
        if (slash == real)
            break;
    }
    free(real);
    return ok;
}

gjkd_store *gjkd_store_open(const char *dir, char *err, size_t err_size)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, err_size, "cannot create state directory '%s': %s", dir, strerror(errno));
        return NULL;
    }
    gjkd_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    s->lock_fd = -1;
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) {
        snprintf(err, err_size, "cannot open state directory '%s': %s", dir, strerror(errno));
        gjkd_store_close(&s);
        return NULL;
    }
    bool safe = check_directory(dir_fd, dir, err, err_size);
    close(dir_fd);
    if (!safe) {
        gjkd_store_close(&s);
        return NULL;
    }
    s->dir = strdup(dir);
    s->path = join(dir, GJKD_STORE_FILE);
    s->tmp_path = join(dir, GJKD_STORE_TMP);
    char *lock_path = join(dir, GJKD_STORE_LOCK);
    if (s->dir == NULL || s->path == NULL || s->tmp_path == NULL || lock_path == NULL) {
        free(lock_path);
        gjkd_store_close(&s);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    s->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    free(lock_path);
    if (s->lock_fd < 0) {
        snprintf(err, err_size, "cannot open '%s/%s': %s", dir, GJKD_STORE_LOCK, strerror(errno));
        gjkd_store_close(&s);
        return NULL;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, err_size, "state directory '%s' is in use by another gjkd (%s)", dir,
                 strerror(errno));
        gjkd_store_close(&s);
        return NULL;
    }
    return s;
}

const char *gjkd_store_path(const gjkd_store *store)
{
    return store->path;
}

gjkd_store_load_result gjkd_store_load(gjkd_store *store, uint8_t **data, size_t *size, char *err,
                                       size_t err_size)
{
    *data = NULL;
    *size = 0;
    int fd = open(store->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return GJKD_STORE_EMPTY;
        snprintf(err, err_size, "cannot open '%s': %s", store->path,
                 errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return GJKD_STORE_CORRUPT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "cannot read '%s': %s", store->path,
                 S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file");
        close(fd);
        return GJKD_STORE_CORRUPT;
    }
    size_t file_size = (size_t)st.st_size;
    uint8_t *buf = malloc(file_size > 0 ? file_size : 1);
    if (buf == NULL) {
        snprintf(err, err_size, "out of memory reading '%s'", store->path);
        close(fd);
        return GJKD_STORE_CORRUPT;
    }
    size_t got = 0;
    while (got < file_size) {
        ssize_t r = read(fd, buf + got, file_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            snprintf(err, err_size, "cannot read '%s': %s", store->path,
                     r < 0 ? strerror(errno) : "unexpected end of file");
            free(buf);
            close(fd);
            return GJKD_STORE_CORRUPT;
        }
        got += (size_t)r;
    }
    close(fd);

    const char *problem = NULL;
    uint64_t length = 0;
    if (file_size < GJKD_STORE_HEADER_BYTES)
        problem = "shorter than its header";
    else if (memcmp(buf, k_magic, sizeof k_magic) != 0)
        problem = "bad magic (not a gjkd scene snapshot)";
    else if (get_le(buf + 8, 4) != FORMAT_VERSION)
        problem = "unknown format version";
    else if ((length = get_le(buf + 16, 8)) != file_size - GJKD_STORE_HEADER_BYTES)
        problem = "payload length does not match the file size (truncated?)";
    else if (gjkd_crc32(buf + GJKD_STORE_HEADER_BYTES, (size_t)length) !=
             (uint32_t)get_le(buf + 12, 4))
        problem = "CRC-32 mismatch (the payload is damaged)";
    if (problem != NULL) {
        snprintf(err, err_size, "corrupt scene snapshot '%s': %s", store->path, problem);
        free(buf);
        return GJKD_STORE_CORRUPT;
    }
    memmove(buf, buf + GJKD_STORE_HEADER_BYTES, (size_t)length);
    *data = buf;
    *size = (size_t)length;
    return GJKD_STORE_LOADED;
}

static bool write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

gjkd_store_save_result gjkd_store_save(gjkd_store *store, const uint8_t *data, size_t size,
                                       char *err, size_t err_size)
{
    uint8_t header[GJKD_STORE_HEADER_BYTES];
    memcpy(header, k_magic, sizeof k_magic);
    put_le(header + 8, FORMAT_VERSION, 4);
    put_le(header + 12, gjkd_crc32(data, size), 4);
    put_le(header + 16, size, 8);

    /* A temp file left by a crash (or anything else of that name: unlink removes a symbolic
     * link, never its target) goes first; then the file is created anew, never followed. */
    if (unlink(store->tmp_path) != 0 && errno != ENOENT && errno != EISDIR) {
        snprintf(err, err_size, "cannot remove a stale '%s': %s", store->tmp_path, strerror(errno));
        return GJKD_STORE_FAILED;
    }
    int fd = open(store->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, err_size, "cannot create '%s': %s", store->tmp_path, strerror(errno));
        return GJKD_STORE_FAILED;
    }
    const char *step = NULL;
    if (!write_all(fd, header, sizeof header) || !write_all(fd, data, size))
        step = "write";
    else if (fsync(fd) != 0)
        step = "fsync";
    int saved = errno;
    if (close(fd) != 0 && step == NULL) {
        step = "close";
        saved = errno;
    }
    if (step == NULL && rename(store->tmp_path, store->path) != 0) {
        step = "rename";
        saved = errno;
    }
    if (step != NULL) {
        snprintf(err, err_size, "cannot save scene (%s '%s'): %s", step, store->tmp_path,
                 strerror(saved));
        unlink(store->tmp_path);
        return GJKD_STORE_FAILED;
    }
    /* The new snapshot is in place: whatever reads the directory from now on (a restart
     * included) sees it, so the change has happened and cannot be refused any more. Only its
     * durability across a power loss hangs on the directory's fsync; a failure there is
     * reported as such (the next save's fsync covers this rename too). */
    int dfd = open(store->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        store->not_durable++;
        snprintf(err, err_size, "cannot fsync state directory '%s' after the rename: %s",
                 store->dir, strerror(e));
        return GJKD_STORE_SAVED_NOT_DURABLE;
    }
    close(dfd);
    return GJKD_STORE_SAVED;
}

uint64_t gjkd_store_not_durable(const gjkd_store *store)
{
    return store->not_durable;
}
