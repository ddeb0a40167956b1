/* monitor.c — see monitor.h. */
#include "monitor.h"

#include <string.h>
#include <zmq.h>

bool gjkd_monitor_recv(void *monitor, int flags, uint16_t *event, uint32_t *value)
{
    zmq_msg_t m;
    zmq_msg_init(&m);
    if (zmq_msg_recv(&m, monitor, flags) < 0) {
        zmq_msg_close(&m);
        return false;
    }
    *event = 0;
    *value = 0;
    if (zmq_msg_size(&m) == 6) {
        memcpy(event, zmq_msg_data(&m), 2);
        memcpy(value, (uint8_t *)zmq_msg_data(&m) + 2, 4);
    }
    while (zmq_msg_more(&m)) { /* the endpoint frame */
        zmq_msg_close(&m);
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, monitor, 0) < 0)
            break;
    }
    zmq_msg_close(&m);
    return true;
}
