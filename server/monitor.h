/* monitor.h — one event of a ZeroMQ socket monitor (zmq_socket_monitor), read by the broker
 * (connections, disconnects) and by the CURVE watcher (handshake events). */
#ifndef GJKD_MONITOR_H
#define GJKD_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

/* Receives one event from the monitor's PAIR socket: a first frame of [uint16 event][uint32
 * value] (both 0 if it has another size) and the endpoint frame, which is read and dropped.
 * flags as for zmq_msg_recv (ZMQ_DONTWAIT or 0). False when no event could be received. */
bool gjkd_monitor_recv(void *monitor, int flags, uint16_t *event, uint32_t *value);

#endif /* GJKD_MONITOR_H */
