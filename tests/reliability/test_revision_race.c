/* test_revision_race.c — regression: the revision in a change's reply is that change's.
 *
 * gjkd_service_handle read the scene revision for the reply after the handler had released
 * the scene lock, so a change committed by another thread in between lent its revision to
 * this reply: two changes were acknowledged with the same revision, and a client using
 * expected_revision built on the wrong one (found by the load test, tests/reliability). Here
 * four threads make changes at once; the revisions acknowledged must be exactly r0+1 .. r0+N,
 * each once. */
#include <pthread.h>

#include "log.h"
#include "test_server_util.h"

enum { THREADS = 4, CHANGES = 1500 };

typedef struct writer_arg {
    gjkd_service *svc;
    int index;
    uint64_t revisions[CHANGES];
    int failures;
} writer_arg;

static void *writer(void *p)
{
    writer_arg *w = p;
    for (int i = 0; i < CHANGES; ++i) {
        gjkd_arena a = {0};
        char name[32];
        snprintf(name, sizeof name, "w%d-%d", w->index, i % 8);
        Gjkd__V1__Request *req = t_put_obstacle(&a, t_obstacle(&a, name, 0.05, 10.0 + w->index));
        req->request_id = (uint64_t)(100000 * w->index + i);
        Gjkd__V1__Response *r = t_call(w->svc, req);
        if (r->status->code != GJKD_CODE(OK) || r->request_id != req->request_id)
            w->failures++;
        w->revisions[i] = r->revision;
        gjkd__v1__response__free_unpacked(r, NULL);
        gjkd_arena_free(&a);
    }
    return NULL;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_each_change_its_own_revision(void **state)
{
    (void)state;
    gjkd_service_def def = {test_limits(), 1, THREADS, NULL};
    gjkd_error error;
    gjkd_service *svc = gjkd_service_create(&def, &error);
    assert_non_null(svc);
    uint64_t r0 = gjkd_service_revision(svc);
    static writer_arg args[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; ++i) {
        args[i].svc = svc;
        args[i].index = i;
        args[i].failures = 0;
        assert_int_equal(pthread_create(&threads[i], NULL, writer, &args[i]), 0);
    }
    static uint64_t all[THREADS * CHANGES];
    for (int i = 0; i < THREADS; ++i) {
        pthread_join(threads[i], NULL);
        assert_int_equal(args[i].failures, 0);
        memcpy(all + i * CHANGES, args[i].revisions, sizeof args[i].revisions);
        for (int k = 1; k < CHANGES; ++k) /* one client's changes: increasing */
            assert_true(args[i].revisions[k] > args[i].revisions[k - 1]);
    }
    qsort(all, THREADS * CHANGES, sizeof *all, compare_u64);
    for (int k = 0; k < THREADS * CHANGES; ++k) {
        if (all[k] != r0 + 1 + (uint64_t)k) {
            print_error("acknowledged revisions, sorted: #%d is %llu, expected %llu (%s)\n", k,
                        (unsigned long long)all[k], (unsigned long long)(r0 + 1 + (uint64_t)k),
                        all[k] > r0 + 1 + (uint64_t)k ? "one went to no change, one to two"
                                                      : "one beyond the last change");
            fail();
        }
    }
    assert_int_equal(gjkd_service_revision(svc), r0 + THREADS * CHANGES);
    gjkd_service_destroy(&svc);
}

int main(void)
{
    gjkd_log_set_level(GJKD_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_change_its_own_revision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
