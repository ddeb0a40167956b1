/* store.h — persistence of the scene snapshot in a state directory.
 *
 * One file, <dir>/scene.snap: a 24-byte header and a serialized gjkd.v1.Scene.
 *   bytes 0-7    magic "GJKDSNAP"
 *   bytes 8-11   format version, little-endian uint32 (1)
 *   bytes 12-15  CRC-32 (IEEE 802.3, as zlib) of the payload, little-endian
 *   bytes 16-23  payload length, little-endian uint64
 *   bytes 24-    payload
 * A save removes a stale <dir>/scene.snap.tmp, creates it anew (O_EXCL | O_NOFOLLOW: never
 * through a planted symbolic link), fsyncs it, renames it over scene.snap and fsyncs the
 * directory, so after a crash the file is the old snapshot or the new one, never a mix. A
 * lock file (<dir>/gjkd.lock, flock) keeps a second daemon off the same directory.
 *
 * The directory must be safe (checked at open, like OpenSSH's StrictModes): owned by the
 * daemon's effective user and not writable by group or others; every directory above it owned
 * by root or that user and not writable by group or others unless it has the sticky bit (as
 * /tmp). Another local user could otherwise plant files or links where the daemon writes.
 * The store knows nothing of the Scene's contents: it moves checked bytes. */
#ifndef GJKD_STORE_H
#define GJKD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GJKD_STORE_FILE "scene.snap"
#define GJKD_STORE_TMP "scene.snap.tmp"
#define GJKD_STORE_LOCK "gjkd.lock"
#define GJKD_STORE_HEADER_BYTES 24

typedef struct gjkd_store gjkd_store;

/* Opens (creating it if missing, one level, mode 0700), checks (see the top) and locks the
 * state directory. NULL on failure (an unsafe directory included) with a message in err. */
gjkd_store *gjkd_store_open(const char *dir, char *err, size_t err_size);
void gjkd_store_close(gjkd_store **store);

typedef enum gjkd_store_load_result {
    GJKD_STORE_LOADED = 0,
    GJKD_STORE_EMPTY = 1,    /* no snapshot yet */
    GJKD_STORE_CORRUPT = -1, /* unreadable, truncated, bad magic/version/length/CRC: err says */
} gjkd_store_load_result;

/* Reads and checks the snapshot; on GJKD_STORE_LOADED *data (malloc'd, caller frees) and *size
 * hold the payload. */
gjkd_store_load_result gjkd_store_load(gjkd_store *store, uint8_t **data, size_t *size, char *err,
                                       size_t err_size);

typedef enum gjkd_store_save_result {
    GJKD_STORE_SAVED = 0,
    /* The new snapshot replaced the old one (the rename is done: a restart loads it) but the
     * directory's fsync failed, so it may not survive a power loss; err says why. The change
     * has happened: report it as applied, and the failure as what it is. */
    GJKD_STORE_SAVED_NOT_DURABLE = 1,
    GJKD_STORE_FAILED = -1, /* nothing replaced: the old snapshot is in place; err says why */
} gjkd_store_save_result;

/* Durably replaces the snapshot. */
gjkd_store_save_result gjkd_store_save(gjkd_store *store, const uint8_t *data, size_t size,
                                       char *err, size_t err_size);
/* Saves that returned GJKD_STORE_SAVED_NOT_DURABLE since the store was opened. */
uint64_t gjkd_store_not_durable(const gjkd_store *store);

const char *gjkd_store_path(const gjkd_store *store);

/* CRC-32 (reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF). */
uint32_t gjkd_crc32(const uint8_t *data, size_t size);

#endif /* GJKD_STORE_H */
