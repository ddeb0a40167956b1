/* stream.c — see stream.h. */
#define _POSIX_C_SOURCE 200809L
#include "stream.h"

#include "log.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

enum { MAX_BATCH = 1024 }; /* updates applied before a monitor event is forced */

struct gjkd_stream {
    pthread_t thread;
    void *sub, *pub; /* owned by the thread once it runs */
    gjkd_service *service;
    atomic_bool stop;
};

static void *stream_main(void *arg)
{
    gjkd_stream *s = arg;
    while (!atomic_load(&s->stop)) {
        if (s->sub == NULL) { /* monitor only: nothing to react to */
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        zmq_pollitem_t item = {s->sub, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 100) <= 0)
            continue;
        uint64_t sequence = 0;
        int applied = 0;
        for (int i = 0; i < MAX_BATCH; ++i) {
            zmq_msg_t m;
            zmq_msg_init(&m);
            if (zmq_msg_recv(&m, s->sub, ZMQ_DONTWAIT) < 0) {
                zmq_msg_close(&m);
                break;
            }
            bool single = !zmq_msg_more(&m);
            gjkd_error error;
            if (single && gjkd_service_pose_update(s->service, zmq_msg_data(&m), zmq_msg_size(&m),
                                                   &sequence, &error)) {
                applied++;
            } else {
                GJKD_LOG(GJKD_LOG_DEBUG, "pose_update_dropped", 0, "message=%s",
                         GJKD_Q(single ? error.message : "multipart pose update"));
                while (zmq_msg_more(&m)) { /* drop the rest of a multipart message */
                    zmq_msg_close(&m);
                    zmq_msg_init(&m);
                    if (zmq_msg_recv(&m, s->sub, 0) < 0)
                        break;
                }
            }
            zmq_msg_close(&m);
        }
        if (applied > 0 && s->pub != NULL) {
            uint8_t *event;
            size_t size;
            if (gjkd_service_monitor_event(s->service, sequence, &event, &size)) {
                zmq_send(s->pub, "state", 5, ZMQ_SNDMORE);
                zmq_send(s->pub, event, size, 0);
                free(event);
            }
        }
    }
    return NULL;
}

static void *bind_socket(void *context, int type, const char *endpoint, gjkd_auth *auth, char *err,
                         size_t err_size)
{
    void *sock = zmq_socket(context, type);
    int linger = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    if (type == ZMQ_SUB)
        zmq_setsockopt(sock, ZMQ_SUBSCRIBE, "", 0);
    if (auth != NULL &&
        !gjkd_auth_secure_socket(auth, sock, type == ZMQ_SUB ? "pose" : "monitor", err, err_size)) {
        zmq_close(sock);
        return NULL;
    }
    if (zmq_bind(sock, endpoint) != 0) {
        snprintf(err, err_size, "cannot bind '%s': %s", endpoint, zmq_strerror(zmq_errno()));
        zmq_close(sock);
        return NULL;
    }
    return sock;
}

gjkd_stream *gjkd_stream_start(void *zmq_context, const char *pose_endpoint,
                               const char *monitor_endpoint, gjkd_service *service, char *err,
                               size_t err_size)
{
    return gjkd_stream_start_auth(zmq_context, pose_endpoint, monitor_endpoint, NULL, service, err,
                                  err_size);
}

gjkd_stream *gjkd_stream_start_auth(void *zmq_context, const char *pose_endpoint,
                                    const char *monitor_endpoint, gjkd_auth *auth,
                                    gjkd_service *service, char *err, size_t err_size)
{
    err[0] = '\0';
    if (pose_endpoint[0] == '\0' && monitor_endpoint[0] == '\0')
        return NULL;
    gjkd_stream *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    s->service = service;
    if (pose_endpoint[0] != '\0' &&
        (s->sub = bind_socket(zmq_context, ZMQ_SUB, pose_endpoint, auth, err, err_size)) == NULL)
        goto fail;
    if (monitor_endpoint[0] != '\0' &&
        (s->pub = bind_socket(zmq_context, ZMQ_PUB, monitor_endpoint, auth, err, err_size)) == NULL)
        goto fail;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, stream_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, err_size, "cannot start the stream thread");
        goto fail;
    }
    GJKD_LOG(GJKD_LOG_INFO, "stream_started", 0, "pose=%s monitor=%s",
             pose_endpoint[0] ? pose_endpoint : "-", monitor_endpoint[0] ? monitor_endpoint : "-");
    return s;
fail:
    if (s->sub != NULL)
        zmq_close(s->sub);
    if (s->pub != NULL)
        zmq_close(s->pub);
    free(s);
    return NULL;
}

void gjkd_stream_stop(gjkd_stream **stream)
{
    if (stream == NULL || *stream == NULL)
        return;
    gjkd_stream *s = *stream;
    atomic_store(&s->stop, true);
    pthread_join(s->thread, NULL);
    if (s->sub != NULL)
        zmq_close(s->sub);
    if (s->pub != NULL)
        zmq_close(s->pub);
    free(s);
    *stream = NULL;
}
