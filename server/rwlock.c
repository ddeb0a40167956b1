/* rwlock.c — see rwlock.h. */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include "rwlock.h"

bool gjkd_rwlock_init_writer_fair(pthread_rwlock_t *lock)
{
#if defined(__GLIBC__)
    pthread_rwlockattr_t attr;
    if (pthread_rwlockattr_init(&attr) == 0) {
        bool fair = pthread_rwlockattr_setkind_np(
                        &attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) == 0 &&
                    pthread_rwlock_init(lock, &attr) == 0;
        pthread_rwlockattr_destroy(&attr);
        if (fair)
            return true;
    }
#endif
    pthread_rwlock_init(lock, NULL);
    return false;
}
