/* tokens.h — the replies of recent changes, remembered by the client's change token (issue 22,
 * finding 11: a change whose reply was lost ran again when the client resent it, and a
 * `remove` then failed with NOT_FOUND although it had happened).
 *
 * A client gives each change call a random token (Request.change_token) and resends it
 * unchanged on its retries. The first request with a token runs; while it runs, a retry with
 * the same token waits for it; once it has succeeded, a retry gets its reply (revision
 * included) without running. A refused change is forgotten (nothing happened: a retry runs
 * again). Bounded by count and age (--change-tokens, --change-token-seconds); the oldest
 * entry is dropped first. Thread-safe. */
#ifndef GJKD_TOKENS_H
#define GJKD_TOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GJKD_TOKEN_MAX 64 /* bytes of a change token */

typedef struct gjkd_tokens gjkd_tokens;

gjkd_tokens *gjkd_tokens_create(void);
void gjkd_tokens_destroy(gjkd_tokens **tokens);

typedef enum gjkd_token_result {
    GJKD_TOKEN_RUN = 0,       /* run the change, then gjkd_tokens_end */
    GJKD_TOKEN_REPLAY = 1,    /* *reply (malloc'd, the caller frees it) is the first reply */
    GJKD_TOKEN_UNTRACKED = 2, /* no room (every entry in use) or tokens off: run, no end */
} gjkd_token_result;

/* Looks the token up, after dropping entries older than max_age_ns; waits while another
 * request with it runs. max_count 0: tokens off (UNTRACKED). */
gjkd_token_result gjkd_tokens_begin(gjkd_tokens *tokens, const uint8_t *token, size_t len,
                                    uint32_t max_count, uint64_t max_age_ns, uint8_t **reply,
                                    size_t *reply_size);

/* After a RUN: the change succeeded and `reply` (packed Response, copied) is remembered, or
 * (reply NULL) it was refused and the token forgotten. Wakes the requests waiting on it. */
void gjkd_tokens_end(gjkd_tokens *tokens, const uint8_t *token, size_t len, const uint8_t *reply,
                     size_t reply_size);

#endif /* GJKD_TOKENS_H */
