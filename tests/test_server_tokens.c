/* test_server_tokens.c — change tokens belong to the client that sent them (tokens.h; issue 22,
 * finding 11 and its follow-up).
 *
 * What went wrong: the remembered replies were keyed by the token bytes alone. With CURVE on,
 * client B presenting client A's token got A's remembered reply (revision, ids) without its
 * own change running, and while A's change ran, B's request with that token waited on it.
 * Now the identity is (caller key, token): the same token under another key runs, and never
 * waits on the other's change; under the same key a retry still gets the first reply. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tokens.h"

#define MAX_COUNT 16
#define MAX_AGE_NS (60ull * 1000000000ull)

static const uint8_t k_token[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
/* Two Z85 public keys as the ZAP handler writes them (40 characters). */
static const char k_key_a[] = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
static const char k_key_b[] = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID";

static gjkd_token_result begin(gjkd_tokens *t, const char *key, const uint8_t *token, size_t len,
                               uint8_t **reply, size_t *reply_size)
{
    *reply = NULL;
    *reply_size = 0;
    return gjkd_tokens_begin(t, (const uint8_t *)key, strlen(key), token, len, MAX_COUNT,
                             MAX_AGE_NS, reply, reply_size);
}

static void end(gjkd_tokens *t, const char *key, const uint8_t *token, size_t len,
                const char *reply)
{
    gjkd_tokens_end(t, (const uint8_t *)key, strlen(key), token, len, (const uint8_t *)reply,
                    reply != NULL ? strlen(reply) : 0);
}

static void expect_replay(gjkd_tokens *t, const char *key, const char *first)
{
    uint8_t *reply;
    size_t size;
    assert_int_equal(begin(t, key, k_token, sizeof k_token, &reply, &size), GJKD_TOKEN_REPLAY);
    assert_int_equal(size, strlen(first));
    assert_memory_equal(reply, first, size);
    free(reply);
}

/* The same token under two keys: two changes, two replies; each key's retry gets its own. */
static void test_token_is_per_key(void **state)
{
    (void)state;
    gjkd_tokens *t = gjkd_tokens_create();
    assert_non_null(t);
    uint8_t *reply;
    size_t size;
    assert_int_equal(begin(t, k_key_a, k_token, sizeof k_token, &reply, &size), GJKD_TOKEN_RUN);
    end(t, k_key_a, k_token, sizeof k_token, "reply of A");
    /* B with A's token: runs its own change (it used to get "reply of A"). */
    assert_int_equal(begin(t, k_key_b, k_token, sizeof k_token, &reply, &size), GJKD_TOKEN_RUN);
    assert_null(reply);
    end(t, k_key_b, k_token, sizeof k_token, "reply of B");
    /* Without CURVE the caller key is empty: a third identity. */
    assert_int_equal(begin(t, "", k_token, sizeof k_token, &reply, &size), GJKD_TOKEN_RUN);
    end(t, "", k_token, sizeof k_token, "reply of the anonymous caller");
    /* Retries under the same key: the first reply, not another run. */
    expect_replay(t, k_key_a, "reply of A");
    expect_replay(t, k_key_b, "reply of B");
    expect_replay(t, "", "reply of the anonymous caller");
    /* Key and token are compared apart: key "ab" + token "c" is not key "a" + token "bc". */
    assert_int_equal(begin(t, "ab", (const uint8_t *)"c", 1, &reply, &size), GJKD_TOKEN_RUN);
    end(t, "ab", (const uint8_t *)"c", 1, "ab/c");
    assert_int_equal(begin(t, "a", (const uint8_t *)"bc", 2, &reply, &size), GJKD_TOKEN_RUN);
    end(t, "a", (const uint8_t *)"bc", 2, NULL); /* refused: forgotten */
    assert_int_equal(begin(t, "ab", (const uint8_t *)"c", 1, &reply, &size), GJKD_TOKEN_REPLAY);
    assert_memory_equal(reply, "ab/c", 4);
    free(reply);
    /* A refusal under one key forgets that key's entry only. */
    assert_int_equal(begin(t, "a", (const uint8_t *)"bc", 2, &reply, &size), GJKD_TOKEN_RUN);
    end(t, "a", (const uint8_t *)"bc", 2, NULL);
    expect_replay(t, k_key_a, "reply of A");
    /* A key longer than GJKD_TOKEN_KEY_MAX is not tracked (run, nothing remembered). */
    char long_key[GJKD_TOKEN_KEY_MAX + 2];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    assert_int_equal(begin(t, long_key, k_token, sizeof k_token, &reply, &size),
                     GJKD_TOKEN_UNTRACKED);
    gjkd_tokens_destroy(&t);
    assert_null(t);
}

typedef struct waiter {
    gjkd_tokens *t;
    const char *key;
    atomic_int done;
    gjkd_token_result result;
    uint8_t *reply;
    size_t size;
} waiter;

static void *wait_main(void *arg)
{
    waiter *w = arg;
    w->result = begin(w->t, w->key, k_token, sizeof k_token, &w->reply, &w->size);
    atomic_store(&w->done, 1);
    return NULL;
}

/* While A's change runs: B with A's token does not wait for it (it used to block until A
 * finished, then take A's reply); A's own retry waits and gets A's reply. Bounded: B must
 * return within 2,000 polls 5 ms apart while A is still running (before the fix, never). */
static void test_other_key_does_not_wait(void **state)
{
    (void)state;
    gjkd_tokens *t = gjkd_tokens_create();
    assert_non_null(t);
    uint8_t *reply;
    size_t size;
    assert_int_equal(begin(t, k_key_a, k_token, sizeof k_token, &reply, &size), GJKD_TOKEN_RUN);

    waiter b = {.t = t, .key = k_key_b};
    atomic_init(&b.done, 0);
    pthread_t tb;
    assert_int_equal(pthread_create(&tb, NULL, wait_main, &b), 0);
    for (int i = 0; i < 2000 && !atomic_load(&b.done); ++i) {
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);
    }
    bool b_returned = atomic_load(&b.done) != 0;
    waiter a2 = {.t = t, .key = k_key_a}; /* A's retry: waits for A's first attempt */
    atomic_init(&a2.done, 0);
    pthread_t ta;
    assert_int_equal(pthread_create(&ta, NULL, wait_main, &a2), 0);
    end(t, k_key_a, k_token, sizeof k_token, "reply of A"); /* also releases B, if it waited */
    pthread_join(tb, NULL);
    pthread_join(ta, NULL);
    assert_true(b_returned);
    assert_int_equal(b.result, GJKD_TOKEN_RUN);
    assert_null(b.reply);
    end(t, k_key_b, k_token, sizeof k_token, "reply of B");
    assert_int_equal(a2.result, GJKD_TOKEN_REPLAY);
    assert_int_equal(a2.size, strlen("reply of A"));
    assert_memory_equal(a2.reply, "reply of A", a2.size);
    free(a2.reply);
    expect_replay(t, k_key_b, "reply of B");
    gjkd_tokens_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_is_per_key),
        cmocka_unit_test(test_other_key_does_not_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
