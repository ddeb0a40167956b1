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
    s->dir = strdup(dir);
    s->path = join(dir, GJKD_STORE_FILE);
    s->tmp_path = join(dir, GJKD_STORE_FILE ".tmp");
    char *lock_path = join(dir, "gjkd.lock");
    if (s->dir == NULL || s->path == NULL || s->tmp_path == NULL || lock_path == NULL) {
        free(lock_path);
        gjkd_store_close(&s);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    s->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (s->lock_fd < 0) {
        snprintf(err, err_size, "cannot open '%s': %s", lock_path, strerror(errno));
        free(lock_path);
        gjkd_store_close(&s);
        return NULL;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, err_size, "state directory '%s' is in use by another gjkd (%s)", dir,
                 strerror(errno));
        free(lock_path);
        gjkd_store_close(&s);
        return NULL;
    }
    free(lock_path);
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
    int fd = open(store->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return GJKD_STORE_EMPTY;
        snprintf(err, err_size, "cannot open '%s': %s", store->path, strerror(errno));
        return GJKD_STORE_CORRUPT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, err_size, "cannot stat '%s': %s", store->path, strerror(errno));
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

bool gjkd_store_save(gjkd_store *store, const uint8_t *data, size_t size, char *err,
                     size_t err_size)
{
    uint8_t header[GJKD_STORE_HEADER_BYTES];
    memcpy(header, k_magic, sizeof k_magic);
    put_le(header + 8, FORMAT_VERSION, 4);
    put_le(header + 12, gjkd_crc32(data, size), 4);
    put_le(header + 16, size, 8);

    int fd = open(store->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, err_size, "cannot create '%s': %s", store->tmp_path, strerror(errno));
        return false;
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
        return false;
    }
    /* The rename is durable only once the directory entry is on disk. */
    int dfd = open(store->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
        snprintf(err, err_size, "cannot fsync state directory '%s': %s", store->dir,
                 strerror(errno));
        if (dfd >= 0)
            close(dfd);
        return false;
    }
    close(dfd);
    return true;
}
