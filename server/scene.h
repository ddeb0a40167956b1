/* scene.h — scenes that follow their source: a JSON scene file (--scene) loaded at start and
 * again whenever it changes, with a revision derived from its bytes.
 *
 * Revision: FNV-1a (64 bits) of the file's bytes, folded to 53 bits (exact in a double, so in
 * JSON and in Prometheus too), never 0. Every daemon started from the same bytes reports the
 * same revision, whatever it did before; a change over the wire moves it by one as always, and
 * the file's next change sets it to that content's revision. (A `revision` member in the file
 * is part of its bytes, nothing more.)
 *
 * Following: a thread watches, with inotify, the file's directory (IN_CLOSE_WRITE, IN_MOVED_TO,
 * IN_CREATE of a symlink, on the file's name or on the first component of its symlink's
 * target: a Kubernetes ConfigMap mount swaps the `..data` symlink) and the directory of the
 * file the path resolves to (a write in place; IN_DELETE_SELF when a ConfigMap swap removes
 * it). Events are coalesced (50 ms of quiet), then the file is read: bytes whose revision
 * differs from the last ones seen are loaded as one LoadScene without merge (all validated
 * first, persisted if there is a state directory, then applied atomically under the scene
 * lock). Bytes that do not load (bad JSON, a body the world refuses, a missing file) keep
 * the scene as it was, are logged (scene_reload_failed) and counted
 * (gjkd_scene_reload_failures_total), once per distinct content. A watched directory that
 * disappears is watched again once it is back (tried every second).
 *
 * Which source wins: the latest change. A change of the file replaces the whole scene,
 * including changes made over the wire since (logged); a change over the wire applies on top
 * of the file's scene until the file next changes. At start, the newer of the file and the
 * persisted scene (--state-dir: its snapshot's modification time) is loaded. */
#ifndef GJKD_SCENE_H
#define GJKD_SCENE_H

#include "dispatch.h"

#include <stddef.h>
#include <stdint.h>

/* The revision of a scene document's bytes (see the top). */
uint64_t gjkd_scene_revision_of(const void *bytes, size_t size);

/* Parses a JSON scene ("gjkd-scene/1") and loads it as the whole scene at `revision`
 * (persisted if the service has a store). `what` names the document in messages. */
bool gjkd_scene_json_load(gjkd_service *service, const char *text, size_t length, const char *what,
                          uint64_t revision, gjkd_error *error);

/* Reads `path` and loads it at the revision of its bytes (*revision, also on a failure once
 * the file was read; 0 if it could not be). */
bool gjkd_scene_file_load(gjkd_service *service, const char *path, uint64_t *revision,
                          gjkd_error *error);

/* The revision of the bytes `path` holds now. */
bool gjkd_scene_file_revision(const char *path, uint64_t *revision, gjkd_error *error);

/* True when the file `path` was modified after the file `than` (both followed through
 * symlinks); false if either cannot be read. */
bool gjkd_scene_file_newer(const char *path, const char *than);

typedef struct gjkd_scene_watch gjkd_scene_watch;

/* Follows `path` for `service` (borrowed) from now on; `seen` is the revision of the bytes
 * already taken (loaded, or superseded by a newer persisted scene). The file is checked once
 * at once, so that a change made since is not missed. A directory that is missing is watched
 * once it appears. NULL with the reason (no inotify). */
gjkd_scene_watch *gjkd_scene_watch_start(gjkd_service *service, const char *path, uint64_t seen,
                                         gjkd_error *error);

/* Stops following and joins the thread; safe on NULL. */
void gjkd_scene_watch_stop(gjkd_scene_watch **watch);

#endif /* GJKD_SCENE_H */
