/* bench_skeleton.c — see bench_skeleton.h.
 *
 * Request: byte 0 'c' (cold) or 'w' (warm), bytes 1..8 the reply size wanted (uint64, host
 * order), the rest padding. Reply: the minimum distance (a double) and padding. Frames as in
 * gjkd: the client's DEALER sends one frame; the broker gets [client id][request] from the
 * ROUTER and hands [client id][request] to the worker's DEALER through its own ROUTER (the
 * worker's routing id leads), and the way back mirrors it. */
#define _POSIX_C_SOURCE 200809L
#include "bench_skeleton.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zmq.h>

#include "bench_wire.h"
#include "transport.h"

#define WORKER_ID "worker"
#define REQUEST_HEADER 9

typedef struct skeleton_job {
    void *context;
    gjk_world *world;
    gjk_world_trajectory trajectory;
    gjk_world_query_options options;
} skeleton_job;

/* Receives one whole multipart message into m[0..n) (the daemon's own receiver); false, and
 * nothing kept, unless it has exactly n frames. */
static bool recv_frames(void *socket, zmq_msg_t *m, int n)
{
    int total = 0;
    int got = gjkd_transport_recv_frames(socket, m, n, &total);
    if (got == n && total == n)
        return true;
    for (int i = 0; i < got; i++)
        zmq_msg_close(&m[i]);
    return false;
}

static void *worker_main(void *arg)
{
    skeleton_job *job = arg;
    void *w = zmq_socket(job->context, ZMQ_DEALER);
    zmq_setsockopt(w, ZMQ_ROUTING_ID, WORKER_ID, strlen(WORKER_ID));
    if (zmq_connect(w, "inproc://skeleton-workers") != 0)
        bw_die("skeleton", zmq_strerror(zmq_errno()));
    for (;;) {
        zmq_msg_t m[2]; /* client id, request */
        if (!recv_frames(w, m, 2))
            continue;
        const uint8_t *q = zmq_msg_data(&m[1]);
        uint64_t reply_bytes = 0;
        bool warm = false;
        if (zmq_msg_size(&m[1]) >= REQUEST_HEADER) {
            warm = q[0] == 'w';
            memcpy(&reply_bytes, q + 1, sizeof reply_bytes);
        }
        zmq_msg_close(&m[1]);
        job->trajectory.name = warm ? "skeleton" : NULL;
        gjk_world_result *res = NULL;
        double min = -1.0;
        if (gjk_world_query_trajectory(job->world, &job->trajectory, &job->options, &res) ==
            GJK_WORLD_OK)
            min = res->min_distance;
        gjk_world_result_destroy(&res);
        if (reply_bytes < sizeof min)
            reply_bytes = sizeof min;
        zmq_msg_t reply;
        zmq_msg_init_size(&reply, (size_t)reply_bytes);
        memset(zmq_msg_data(&reply), 0, (size_t)reply_bytes);
        memcpy(zmq_msg_data(&reply), &min, sizeof min);
        zmq_msg_send(&m[0], w, ZMQ_SNDMORE);
        zmq_msg_send(&reply, w, 0);
    }
    return NULL;
}

/* The child: bind, tell the parent the endpoint through `fd`, then broker until killed. */
static void serve(skeleton_job *job, int fd)
{
    job->context = zmq_ctx_new();
    void *front = zmq_socket(job->context, ZMQ_ROUTER);
    void *back = zmq_socket(job->context, ZMQ_ROUTER);
    if (zmq_bind(back, "inproc://skeleton-workers") != 0 ||
        zmq_bind(front, "tcp://127.0.0.1:*") != 0)
        bw_die("skeleton", zmq_strerror(zmq_errno()));
    char endpoint[64] = {0};
    size_t len = sizeof endpoint - 1;
    zmq_getsockopt(front, ZMQ_LAST_ENDPOINT, endpoint, &len);
    pthread_t worker;
    if (pthread_create(&worker, NULL, worker_main, job) != 0)
        bw_die("skeleton", "pthread_create");
    if (write(fd, endpoint, sizeof endpoint) != (ssize_t)sizeof endpoint)
        bw_die("skeleton", "pipe");
    close(fd);
    for (;;) {
        zmq_pollitem_t items[2] = {{back, 0, ZMQ_POLLIN, 0}, {front, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(items, 2, 200) <= 0)
            continue;
        if (items[1].revents & ZMQ_POLLIN) {
            zmq_msg_t m[2]; /* client id, request */
            if (recv_frames(front, m, 2)) {
                zmq_send(back, WORKER_ID, strlen(WORKER_ID), ZMQ_SNDMORE);
                zmq_msg_send(&m[0], back, ZMQ_SNDMORE);
                zmq_msg_send(&m[1], back, 0);
            }
        }
        if (items[0].revents & ZMQ_POLLIN) {
            zmq_msg_t m[3]; /* worker id, client id, reply */
            if (recv_frames(back, m, 3)) {
                zmq_msg_close(&m[0]);
                zmq_msg_send(&m[1], front, ZMQ_SNDMORE);
                zmq_msg_send(&m[2], front, 0);
            }
        }
    }
}

void bw_skeleton_start(bw_skeleton *s, gjk_world *world, const gjk_world_trajectory *trajectory,
                       const gjk_world_query_options *options)
{
    memset(s, 0, sizeof *s);
    int fds[2];
    if (pipe(fds) != 0)
        bw_die("skeleton", "pipe");
    s->pid = fork();
    if (s->pid < 0)
        bw_die("skeleton", "fork");
    if (s->pid == 0) {
        close(fds[0]);
        skeleton_job job = {NULL, world, *trajectory, *options};
        serve(&job, fds[1]);
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], s->endpoint, sizeof s->endpoint) != (ssize_t)sizeof s->endpoint)
        bw_die("skeleton", "did not start");
    close(fds[0]);
    s->endpoint[sizeof s->endpoint - 1] = '\0';
}

void bw_skeleton_connect(bw_skeleton *s, void *context)
{
    s->context = context;
    s->socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(s->socket, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(s->socket, s->endpoint) != 0)
        bw_die("skeleton", zmq_strerror(zmq_errno()));
}

double bw_skeleton_call(bw_skeleton *s, bool warm, size_t request_bytes, size_t reply_bytes,
                        double *min_distance)
{
    if (request_bytes < REQUEST_HEADER)
        request_bytes = REQUEST_HEADER;
    double t0 = bw_now();
    zmq_msg_t q;
    zmq_msg_init_size(&q, request_bytes);
    uint8_t *b = zmq_msg_data(&q);
    memset(b, 0, request_bytes);
    b[0] = warm ? 'w' : 'c';
    uint64_t want = reply_bytes;
    memcpy(b + 1, &want, sizeof want);
    if (zmq_msg_send(&q, s->socket, 0) < 0)
        bw_die("skeleton", zmq_strerror(zmq_errno()));
    /* As the client library waits: poll with a timeout, then receive. */
    zmq_pollitem_t item = {s->socket, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, 10000) != 1)
        bw_die("skeleton", "no reply in 10 s");
    zmq_msg_t r;
    zmq_msg_init(&r);
    if (zmq_msg_recv(&r, s->socket, 0) < 0 || zmq_msg_size(&r) < sizeof *min_distance)
        bw_die("skeleton", "bad reply");
    memcpy(min_distance, zmq_msg_data(&r), sizeof *min_distance);
    zmq_msg_close(&r);
    return bw_now() - t0;
}

void bw_skeleton_stop(bw_skeleton *s)
{
    if (s->socket != NULL)
        zmq_close(s->socket);
    s->socket = NULL;
    kill(s->pid, SIGTERM);
    int status;
    waitpid(s->pid, &status, 0);
}
