/* test_server_rwlock.c — the scene lock is writer-fair (issue 22, finding 7).
 *
 * What went wrong: the scene lock was glibc's default rwlock, which prefers readers. With
 * --threads >= 4, two clients sending back-to-back queries always had some reader inside the
 * lock, new readers were let in past the waiting writer, and put_obstacle waited > 25 s.
 * The test holds a read lock, starts a writer (it blocks), and then asks for the read lock
 * again from a third party with trylock: a writer-fair lock refuses it (EBUSY) once the
 * writer waits; a reader-preferring one grants it every time. Bounded: 2,000 tries 1 ms
 * apart. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "rwlock.h"

static pthread_rwlock_t g_lock;
static atomic_int g_writer_done;

static void *writer(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&g_lock);
    atomic_store(&g_writer_done, 1);
    pthread_rwlock_unlock(&g_lock);
    return NULL;
}

static void test_waiting_writer_blocks_new_readers(void **state)
{
    (void)state;
    assert_true(gjkd_rwlock_init_writer_fair(&g_lock));
    assert_int_equal(pthread_rwlock_rdlock(&g_lock), 0); /* a long query */
    pthread_t w;
    assert_int_equal(pthread_create(&w, NULL, writer, NULL), 0);
    int refused = 0, granted = 0;
    for (int i = 0; i < 2000 && refused == 0; ++i) {
        int rc = pthread_rwlock_tryrdlock(&g_lock); /* another client's query */
        if (rc == 0) {
            granted++;
            pthread_rwlock_unlock(&g_lock);
        } else {
            assert_int_equal(rc, EBUSY);
            refused++;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    assert_int_equal(atomic_load(&g_writer_done), 0); /* the first reader still holds it */
    pthread_rwlock_unlock(&g_lock);
    pthread_join(w, NULL);
    assert_int_equal(atomic_load(&g_writer_done), 1);
    /* Once the writer waited, no new reader got past it. */
    assert_int_equal(refused, 1);
    pthread_rwlock_destroy(&g_lock);
}

/* Readers still share the lock when no writer waits. */
static void test_readers_share(void **state)
{
    (void)state;
    pthread_rwlock_t lock;
    gjkd_rwlock_init_writer_fair(&lock);
    assert_int_equal(pthread_rwlock_rdlock(&lock), 0);
    assert_int_equal(pthread_rwlock_tryrdlock(&lock), 0);
    pthread_rwlock_unlock(&lock);
    pthread_rwlock_unlock(&lock);
    assert_int_equal(pthread_rwlock_trywrlock(&lock), 0);
    pthread_rwlock_unlock(&lock);
    pthread_rwlock_destroy(&lock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_writer_blocks_new_readers),
        cmocka_unit_test(test_readers_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
