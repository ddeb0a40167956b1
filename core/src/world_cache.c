/* world_cache.c — the named-trajectory cache: per (pair, waypoint) simplex caches of the last
 * query of each named trajectory, so an optimizer's next iteration warm-starts every pair.
 *
 * Entries are immutable once stored; a query takes a reference (under the lock) and reads
 * without the lock; storing replaces the entry with the same name, and a replaced or evicted
 * entry is freed when its last reader lets go. Memory is capped (bytes and count) with
 * least-recently-used eviction. A stale entry can only cost speed: the pair caches it holds
 * are validated by the narrow phase before use, and every geometry change drops the whole
 * cache anyway. */
#define _POSIX_C_SOURCE 200809L

#include "world_internal.h"

#include <stdlib.h>
#include <string.h>

bool wcache_init(wtraj_cache *c, size_t max_bytes, int32_t max_items)
{
    memset(c, 0, sizeof *c);
    c->max_bytes = max_bytes;
    c->max_items = max_items;
    return pthread_mutex_init(&c->lock, NULL) == 0;
}

void wtraj_free(wtraj *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->offsets);
    free(t->entries);
    free(t->index);
    free(t->link_poses);
    free(t);
}

/* Takes t out of the table (lock held); frees it unless a query still reads it. */
static void detach(wtraj_cache *c, int32_t index)
{
    wtraj *t = c->items[index];
    c->bytes -= t->bytes;
    c->items[index] = c->items[--c->count];
    t->detached = true;
    if (t->refs == 0)
        wtraj_free(t);
}

void wcache_destroy(wtraj_cache *c)
{
    if (!c)
        return;
    for (int32_t i = 0; i < c->count; ++i)
        wtraj_free(c->items[i]); /* no query may be running: the world is being destroyed */
    free(c->items);
    pthread_mutex_destroy(&c->lock);
}

static int32_t find(const wtraj_cache *c, const char *name)
{
    for (int32_t i = 0; i < c->count; ++i)
        if (strcmp(c->items[i]->name, name) == 0)
            return i;
    return -1;
}

wtraj *wcache_acquire(wtraj_cache *c, const char *name, int32_t robot)
{
    pthread_mutex_lock(&c->lock);
    int32_t i = find(c, name);
    wtraj *t = i >= 0 && c->items[i]->robot == robot ? c->items[i] : NULL;
    if (t) {
        ++t->refs;
        t->last_use = ++c->clock;
        ++c->hits;
    } else {
        ++c->misses;
    }
    pthread_mutex_unlock(&c->lock);
    return t;
}

void wcache_release(wtraj_cache *c, wtraj *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&c->lock);
    bool free_it = --t->refs == 0 && t->detached;
    pthread_mutex_unlock(&c->lock);
    if (free_it)
        wtraj_free(t);
}

void wcache_store(wtraj_cache *c, wtraj *t)
{
    pthread_mutex_lock(&c->lock);
    int32_t old = find(c, t->name);
    if (old >= 0)
        detach(c, old);
    if (t->bytes > c->max_bytes || c->max_items < 1) {
        pthread_mutex_unlock(&c->lock);
        wtraj_free(t);
        return;
    }
    /* Evict least recently used entries until t fits. */
    while (c->count > 0 && (c->bytes + t->bytes > c->max_bytes || c->count >= c->max_items)) {
        int32_t lru = 0;
        for (int32_t i = 1; i < c->count; ++i)
            if (c->items[i]->last_use < c->items[lru]->last_use)
                lru = i;
        detach(c, lru);
    }
    if (c->count == c->capacity) {
        int32_t capacity = c->capacity ? 2 * c->capacity : 8;
        wtraj **items = realloc(c->items, (size_t)capacity * sizeof *items);
        if (!items) { /* the cache only speeds things up: drop the entry */
            pthread_mutex_unlock(&c->lock);
            wtraj_free(t);
            return;
        }
        c->items = items;
        c->capacity = capacity;
    }
    t->refs = 0;
    t->detached = false;
    t->last_use = ++c->clock;
    c->items[c->count++] = t;
    c->bytes += t->bytes;
    pthread_mutex_unlock(&c->lock);
}

bool wcache_forget(wtraj_cache *c, const char *name)
{
    pthread_mutex_lock(&c->lock);
    bool found = false;
    if (name == NULL) {
        found = c->count > 0;
        while (c->count > 0)
            detach(c, c->count - 1);
    } else {
        int32_t i = find(c, name);
        if (i >= 0) {
            detach(c, i);
            found = true;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return found;
}

void wcache_stats(wtraj_cache *c, int32_t *count, size_t *bytes, uint64_t *hits, uint64_t *misses)
{
    pthread_mutex_lock(&c->lock);
    *count = c->count;
    *bytes = c->bytes;
    *hits = c->hits;
    *misses = c->misses;
    pthread_mutex_unlock(&c->lock);
}

static uint32_t entry_hash(int32_t w, uint64_t k0, uint64_t k1)
{
    uint64_t h = k0 * 0x9E3779B97F4A7C15ull ^ (k1 + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(uint32_t)w * 0xD6E8FEB86659FD93ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    return (uint32_t)(h >> 32);
}

bool wtraj_build_index(wtraj *t)
{
    size_t total = (size_t)t->offsets[t->waypoint_count];
    size_t size = 16;
    while (size < 2 * total)
        size *= 2;
    if (size > (size_t)UINT32_MAX + 1)
        return false;
    t->index = calloc(size, sizeof *t->index);
    if (!t->index)
        return false;
    t->index_mask = (uint32_t)(size - 1);
    for (int32_t w = 0; w < t->waypoint_count; ++w)
        for (int32_t e = t->offsets[w]; e < t->offsets[w + 1]; ++e) {
            uint32_t i = entry_hash(w, t->entries[e].k0, t->entries[e].k1) & t->index_mask;
            while (t->index[i] != 0)
                i = (i + 1) & t->index_mask;
            t->index[i] = e + 1;
        }
    t->bytes += size * sizeof *t->index;
    return true;
}

const wcache_entry *wtraj_find(const wtraj *t, int32_t w, uint64_t k0, uint64_t k1, int32_t *cursor)
{
    if (w < 0 || w >= t->waypoint_count)
        return NULL;
    int32_t lo = t->offsets[w], hi = t->offsets[w + 1];
    int32_t c = *cursor;
    if (c >= lo && c < hi && t->entries[c].k0 == k0 && t->entries[c].k1 == k1) {
        *cursor = c + 1;
        return &t->entries[c];
    }
    for (uint32_t i = entry_hash(w, k0, k1) & t->index_mask; t->index[i] != 0;
         i = (i + 1) & t->index_mask) {
        int32_t e = t->index[i] - 1;
        if (e >= lo && e < hi && t->entries[e].k0 == k0 && t->entries[e].k1 == k1) {
            *cursor = e + 1;
            return &t->entries[e];
        }
    }
    return NULL;
}

gjk_status gjk_world_forget_trajectory(const gjk_world *world, const char *name)
{
    if (!world)
        return GJK_STATUS_INVALID_INPUT;
    bool found = wcache_forget(world->cache, name);
    return found || name == NULL ? GJK_WORLD_OK : GJK_STATUS_NOT_FOUND;
}
