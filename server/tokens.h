/* tokens.h — the replies of recent changes, remembered by the client's change token (issue 22,
 * finding 11: a change whose reply was lost ran again when the client resent it, and a
 * `remove` then failed with NOT_FOUND although it had happened).
 *
 * A client gives each change call a random token (Request.change_token) and resends it
 * unchanged on its retries. A token belongs to the client that sent it: its identity is the
 * pair (caller key, token bytes), where the caller key is the client's authenticated CURVE
 * public key (ZeroMQ's User-Id, set by the ZAP handler) or, without CURVE, the empty key (a
 * daemon without authentication is bound to loopback or run --insecure: one trust domain; the
 * connection's routing id would be wrong, as a retry reconnects with a new one). So a client
 * presenting another's token neither gets the other's reply nor waits on its change: it runs
 * its own. The first request with an identity runs; while it runs, a retry with
 * the same token waits for it; once it has succeeded, a retry gets its reply (revision
 * included) without running. A refused change is forgotten (nothing happened: a retry runs
 * again). Bounded by count and age (--change-tokens, --change-token-seconds); the oldest
 * entry is dropped first. Thread-safe. */
#ifndef GJKD_TOKENS_H
#define GJKD_TOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GJKD_TOKEN_MAX 64     /* bytes of a change token */
#define GJKD_TOKEN_KEY_MAX 64 /* bytes of a caller key (a Z85 CURVE public key is 40) */

typedef struct gjkd_tokens gjkd_tokens;

gjkd_tokens *gjkd_tokens_create(void);
void gjkd_tokens_destroy(gjkd_tokens **tokens);

typedef enum gjkd_token_result {
    GJKD_TOKEN_RUN = 0,       /* run the change, then gjkd_tokens_end */
    GJKD_TOKEN_REPLAY = 1,    /* *reply (malloc'd, the caller frees it) is the first reply */
    GJKD_TOKEN_UNTRACKED = 2, /* no room (every entry in use) or tokens off: run, no end */
} gjkd_token_result;

/* Looks (key, token) up, after dropping entries older than max_age_ns; waits while another
 * request with the same key and token runs. key: the caller key (key_len bytes, 0 = the empty
 * key). max_count 0, an empty token or one over GJKD_TOKEN_MAX, a key over GJKD_TOKEN_KEY_MAX:
 * UNTRACKED. */
gjkd_token_result gjkd_tokens_begin(gjkd_tokens *tokens, const uint8_t *key, size_t key_len,
                                    const uint8_t *token, size_t len, uint32_t max_count,
                                    uint64_t max_age_ns, uint8_t **reply, size_t *reply_size);

/* After a RUN: the change succeeded and `reply` (packed Response, copied) is remembered, or
 * (reply NULL) it was refused and the token forgotten. Wakes the requests waiting on it. */
void gjkd_tokens_end(gjkd_tokens *tokens, const uint8_t *key, size_t key_len, const uint8_t *token,
                     size_t len, const uint8_t *reply, size_t reply_size);

#endif /* GJKD_TOKENS_H */
