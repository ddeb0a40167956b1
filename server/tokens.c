/* tokens.c — recent change replies by (caller key, change token) (tokens.h). A flat array
 * scanned under one mutex: changes are serialized by the scene's exclusive lock anyway, and
 * the array is at most --change-tokens long. */
#define _POSIX_C_SOURCE 200809L
#include "tokens.h"

#include <pthread.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct token_entry {
    uint8_t key[GJKD_TOKEN_KEY_MAX]; /* the caller's (tokens.h): part of the identity */
    size_t key_len;
    uint8_t token[GJKD_TOKEN_MAX];
    size_t len;
    bool running;   /* the first request with it has not finished */
    uint64_t t_ns;  /* when it finished (or started, while running) */
    uint8_t *reply; /* packed Response of the successful change */
    size_t reply_size;
} token_entry;

struct gjkd_tokens {
    pthread_mutex_t lock;
    pthread_cond_t done;
    token_entry *entries;
    size_t count, cap;
};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

gjkd_tokens *gjkd_tokens_create(void)
{
    gjkd_tokens *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->done, NULL);
    return t;
}

void gjkd_tokens_destroy(gjkd_tokens **tokens)
{
    if (tokens == NULL || *tokens == NULL)
        return;
    gjkd_tokens *t = *tokens;
    for (size_t i = 0; i < t->count; ++i)
        free(t->entries[i].reply);
    free(t->entries);
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->done);
    free(t);
    *tokens = NULL;
}

static void drop(gjkd_tokens *t, size_t i)
{
    free(t->entries[i].reply);
    t->entries[i] = t->entries[--t->count];
}

static ssize_t find(const gjkd_tokens *t, const uint8_t *key, size_t key_len, const uint8_t *token,
                    size_t len)
{
    for (size_t i = 0; i < t->count; ++i) {
        const token_entry *e = &t->entries[i];
        if (e->len == len && e->key_len == key_len && memcmp(e->token, token, len) == 0 &&
            (key_len == 0 || memcmp(e->key, key, key_len) == 0))
            return (ssize_t)i;
    }
    return -1;
}

gjkd_token_result gjkd_tokens_begin(gjkd_tokens *t, const uint8_t *key, size_t key_len,
                                    const uint8_t *token, size_t len, uint32_t max_count,
                                    uint64_t max_age_ns, uint8_t **reply, size_t *reply_size)
{
    if (max_count == 0 || len == 0 || len > GJKD_TOKEN_MAX || key_len > GJKD_TOKEN_KEY_MAX)
        return GJKD_TOKEN_UNTRACKED;
    pthread_mutex_lock(&t->lock);
    ssize_t i;
    while ((i = find(t, key, key_len, token, len)) >= 0 && t->entries[i].running)
        pthread_cond_wait(&t->done, &t->lock);
    uint64_t now = now_ns();
    /* Expired entries go first (a finished one older than max_age_ns). */
    for (size_t k = t->count; k-- > 0;)
        if (!t->entries[k].running && now - t->entries[k].t_ns > max_age_ns)
            drop(t, k);
    i = find(t, key, key_len, token, len);
    if (i >= 0) {
        token_entry *e = &t->entries[i];
        *reply = malloc(e->reply_size > 0 ? e->reply_size : 1);
        gjkd_token_result r = GJKD_TOKEN_UNTRACKED;
        if (*reply != NULL) {
            memcpy(*reply, e->reply, e->reply_size);
            *reply_size = e->reply_size;
            r = GJKD_TOKEN_REPLAY;
        }
        pthread_mutex_unlock(&t->lock);
        return r;
    }
    /* Room: beyond max_count (a SIGHUP may have lowered it) the oldest finished ones go. */
    while (t->count >= max_count) {
        ssize_t oldest = -1;
        for (size_t k = 0; k < t->count; ++k)
            if (!t->entries[k].running &&
                (oldest < 0 || t->entries[k].t_ns < t->entries[oldest].t_ns))
                oldest = (ssize_t)k;
        if (oldest < 0)
            break;
        drop(t, (size_t)oldest);
    }
    if (t->count >= max_count || t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        token_entry *grown = t->count < max_count ? realloc(t->entries, cap * sizeof *grown) : NULL;
        if (grown == NULL) {
            pthread_mutex_unlock(&t->lock);
            return GJKD_TOKEN_UNTRACKED;
        }
        t->entries = grown;
        t->cap = cap;
    }
    token_entry *e = &t->entries[t->count++];
    memset(e, 0, sizeof *e);
    if (key_len > 0)
        memcpy(e->key, key, key_len);
    e->key_len = key_len;
    memcpy(e->token, token, len);
    e->len = len;
    e->running = true;
    e->t_ns = now;
    pthread_mutex_unlock(&t->lock);
    return GJKD_TOKEN_RUN;
}

void gjkd_tokens_end(gjkd_tokens *t, const uint8_t *key, size_t key_len, const uint8_t *token,
                     size_t len, const uint8_t *reply, size_t reply_size)
{
    pthread_mutex_lock(&t->lock);
    ssize_t i = find(t, key, key_len, token, len);
    if (i >= 0) {
        token_entry *e = &t->entries[i];
        e->running = false;
        e->t_ns = now_ns();
        e->reply = reply != NULL ? malloc(reply_size > 0 ? reply_size : 1) : NULL;
        if (e->reply != NULL) {
            memcpy(e->reply, reply, reply_size);
            e->reply_size = reply_size;
        } else {
            drop(t, (size_t)i); /* refused (or no memory to remember it): forgotten */
        }
    }
    pthread_cond_broadcast(&t->done);
    pthread_mutex_unlock(&t->lock);
}
