/* rwlock.h — the scene lock's initialisation: a writer-fair reader-writer lock.
 *
 * glibc's default rwlock prefers readers: while any reader holds the lock, new readers get
 * it too, so clients with back-to-back queries kept a scene change waiting for tens of
 * seconds (issue 22, finding 7). The scene lock is therefore made writer-preferring: once a
 * writer waits, new readers wait behind it. This needs that no thread ever takes the read
 * lock recursively (a second rdlock while a writer waits would deadlock); dispatch.c never
 * does (every handler takes the lock once, and the probe path only tries it). */
#ifndef GJKD_RWLOCK_H
#define GJKD_RWLOCK_H

#include <pthread.h>
#include <stdbool.h>

/* Initialises *lock as a writer-preferring rwlock; returns false (and initialises a default
 * one) if the platform has no such kind. */
bool gjkd_rwlock_init_writer_fair(pthread_rwlock_t *lock);

#endif /* GJKD_RWLOCK_H */
