/* auth.h — CURVE keys, the allow-list of client keys and the ZAP handler.
 *
 * Key files hold Z85 text (zmq_z85_encode of 32 bytes: 40 characters). Blank lines and lines
 * starting with '#' are ignored. A public key file (NAME.pub) holds one key; a secret key
 * file (NAME.key) holds one secret key and must not be readable by group or others (0600),
 * else loading it fails with a message that says so. The allow-list is a file with one
 * public key per line, or a directory whose *.pub files are read (one key or more each).
 *
 * The ZAP handler (ZeroMQ RFC 27) is a thread with a REP socket on inproc://zeromq.zap.01 of
 * the daemon's context: a CURVE client whose long-term public key is on the list is accepted
 * (user id = the key in Z85), any other is refused. It also watches the sockets given to
 * gjkd_auth_secure_socket through socket monitors, so every refused handshake is counted —
 * not only keys refused by the list, but clients without CURVE or with the wrong server key,
 * which fail before ZAP is asked, and connections closed during the handshake (a client
 * without CURVE often notices the mismatch first and hangs up; a bare TCP probe looks the
 * same, as does a client that gives up mid-handshake). Counted are handshakes, not clients: a
 * refused client that keeps reconnecting is counted each time. Each refusal is counted
 * (gjkd_auth_refused and the stats reply's auth_refused) and logged as one line, at most one per
 * second (the lines skipped in between are counted in the next one). SIGHUP reloads the allow-list.
 */
#ifndef GJKD_AUTH_H
#define GJKD_AUTH_H

#include "dispatch.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GJKD_Z85_KEY_LENGTH 40

/* Reads the first key of a key file into z85 (40 characters and a NUL). secret: the file
 * must not be group- or world-accessible (mode & 077 == 0). False with a message in err. */
bool gjkd_key_file_read(const char *path, bool secret, char z85[GJKD_Z85_KEY_LENGTH + 1], char *err,
                        size_t err_size);

typedef struct gjkd_allowlist gjkd_allowlist;

/* Loads a file of keys or a directory of *.pub files. An empty list is an error (it would
 * refuse every client). NULL with a message ("FILE:LINE: ...") in err. */
gjkd_allowlist *gjkd_allowlist_load(const char *path, char *err, size_t err_size);
void gjkd_allowlist_free(gjkd_allowlist **list);
size_t gjkd_allowlist_count(const gjkd_allowlist *list);
/* key: 32 bytes (binary, as ZAP delivers it). */
bool gjkd_allowlist_contains(const gjkd_allowlist *list, const uint8_t key[32]);

typedef struct gjkd_auth gjkd_auth;

/* Loads the server's secret key (its public key is derived) and the allow-list, and starts
 * the ZAP handler on zmq_context; service (may be NULL) receives the refusal count for stats.
 * Must run before any CURVE socket of the context is bound. NULL with a message in err. */
gjkd_auth *gjkd_auth_start(void *zmq_context, const char *secret_key_file, const char *allow_path,
                           gjkd_service *service, char *err, size_t err_size);
/* Stops the handler and closes its sockets (before zmq_ctx_term); safe on NULL. */
void gjkd_auth_stop(gjkd_auth **auth);

/* Makes socket (not yet bound) a CURVE server with the daemon's key, authenticated by the
 * ZAP handler, and counts its refused handshakes. name ("request", "pose", "monitor")
 * appears in the log. At most GJKD_AUTH_MAX_SOCKETS sockets. */
enum { GJKD_AUTH_MAX_SOCKETS = 4 };
bool gjkd_auth_secure_socket(gjkd_auth *auth, void *socket, const char *name, char *err,
                             size_t err_size);

/* gjkd_auth_secure_socket without the socket monitor, for a socket whose owner monitors it
 * itself (a socket has one monitor: the request socket's is the transport's, which also
 * watches disconnects) and passes the handshake events on to gjkd_auth_handshake_event. */
bool gjkd_auth_curve_socket(gjkd_auth *auth, void *socket, const char *name, char *err,
                            size_t err_size);
/* The socket-monitor events that gjkd_auth_handshake_event needs (zmq_socket_monitor). */
#define GJKD_AUTH_MONITOR_EVENTS                                                                   \
    (ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |                         \
     ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
/* One socket-monitor event of the socket `name`: refused handshakes are counted and logged
 * (rate-limited). Thread-safe; other events are ignored. */
void gjkd_auth_handshake_event(gjkd_auth *auth, const char *name, int event, uint32_t value);

/* Replaces the allow-list (SIGHUP); on failure the current list stays. */
bool gjkd_auth_reload(gjkd_auth *auth, const char *allow_path, char *err, size_t err_size);

/* Whether the client key a request came with (its "User-Id" message property: the key in
 * Z85, as the ZAP handler names it) is on the current allow-list. ZAP runs only at the
 * handshake: the transport checks every request with this, so that a key removed by a reload
 * is refused on connections it opened before. */
bool gjkd_auth_allows_user(gjkd_auth *auth, const char *user_id);

/* Refused handshakes so far, on every secured socket. */
uint64_t gjkd_auth_refused(const gjkd_auth *auth);
/* Handshakes that passed (clients served). */
uint64_t gjkd_auth_accepted(const gjkd_auth *auth);
/* The server's public key in Z85 (what clients configure as the server key). */
const char *gjkd_auth_server_public_key(const gjkd_auth *auth);

#endif /* GJKD_AUTH_H */
