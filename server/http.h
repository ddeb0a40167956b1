/* http.h — the HTTP endpoint (libmicrohttpd) beside the ZeroMQ one: metrics and probes for
 * orchestrators and scrapers (--http HOST:PORT).
 *
 *   GET /metrics  the Prometheus text exposition (metrics.h), text/plain; version=0.0.4
 *   GET /healthz  200 "ok" while the daemon runs (liveness)
 *   GET /readyz   200 "ready" when the request socket is bound, a scene is loaded (revision
 *                 > 0: from --scene, --demo, the state directory or a change over the wire)
 *                 and the daemon is not draining; else 503 with the reason (readiness)
 *
 * HEAD works as GET without the body; another method gets 405, another path 404. Every page
 * only reads, so any address may be bound (a non-loopback one is logged); nothing on it
 * changes the daemon. One thread of libmicrohttpd's serves the pages; a page never waits for
 * the scene lock (gjkd_service_figures_read). */
#ifndef GJKD_HTTP_H
#define GJKD_HTTP_H

#include "dispatch.h"

#include <stdbool.h>

typedef struct gjkd_http gjkd_http;

/* True for "off" and "": no HTTP endpoint. */
bool gjkd_http_is_off(const char *listen);

/* Checks "HOST:PORT" (HOST a name, an IPv4 address or an [IPv6] address in brackets; PORT
 * 0-65535, 0: any free one) and resolves it; false with the reason. */
bool gjkd_http_check(const char *listen, gjkd_error *error);

/* Binds `listen` and serves the pages for `service` (borrowed). NULL with the reason (a bad
 * address, the port in use). Readiness starts false: see gjkd_http_set_serving. */
gjkd_http *gjkd_http_start(const char *listen, gjkd_service *service, gjkd_error *error);

/* The request socket is bound (true) or no longer served (false): part of readiness. */
void gjkd_http_set_serving(gjkd_http *http, bool serving);

/* The port bound (useful after PORT 0). */
int gjkd_http_port(const gjkd_http *http);

/* Stops serving and frees; safe on NULL. */
void gjkd_http_stop(gjkd_http **http);

#endif /* GJKD_HTTP_H */
