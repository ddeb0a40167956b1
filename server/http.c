/* http.c — see http.h. The listening socket is ours (bound before libmicrohttpd starts, so
 * that a bind failure has its own message, e.g. "Address already in use", and port 0 can
 * be read back); libmicrohttpd serves it from one internal thread. */
#define _POSIX_C_SOURCE 200809L
#include "http.h"

#include "log.h"
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct gjkd_http {
    struct MHD_Daemon *daemon;
    gjkd_service *service;
    atomic_bool serving;
    int port;
};

bool gjkd_http_is_off(const char *where)
{
    return where[0] == '\0' || strcmp(where, "off") == 0;
}

/* Splits "HOST:PORT" / "[V6]:PORT" into host and port. */
static bool split_listen(const char *where, char *host, size_t host_size, char *port,
                         size_t port_size, gjkd_error *error)
{
    const char *colon;
    const char *h = where;
    size_t hn;
    if (where[0] == '[') {
        const char *close = strchr(where, ']');
        if (close == NULL || close[1] != ':')
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "http: '%s': expected [IPV6]:PORT",
                             where);
        h = where + 1;
        hn = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(where, ':');
        if (colon == NULL || strchr(where, ':') != colon)
            return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                             "http: '%s': expected HOST:PORT (an IPv6 address in brackets), or "
                             "off",
                             where);
        hn = (size_t)(colon - where);
    }
    if (hn == 0 || hn >= host_size)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "http: '%s': no host", where);
    memcpy(host, h, hn);
    host[hn] = '\0';
    const char *p = colon + 1;
    size_t pn = strlen(p);
    if (pn == 0 || pn > 5 || pn >= port_size || strspn(p, "0123456789") != pn || atoi(p) > 65535)
        return gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT),
                         "http: '%s': the port must be a number from 0 to 65535", where);
    memcpy(port, p, pn + 1);
    return true;
}

static struct addrinfo *resolve(const char *where, gjkd_error *error)
{
    char host[256], port[8];
    if (!split_listen(where, host, sizeof host, port, sizeof port, error))
        return NULL;
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host, port, &hints, &found);
    if (rc != 0 || found == NULL) {
        gjkd_fail(error, GJKD_CODE(INVALID_ARGUMENT), "http: '%s': %s", where,
                  rc != 0 ? gai_strerror(rc) : "no address");
        return NULL;
    }
    return found;
}

bool gjkd_http_check(const char *where, gjkd_error *error)
{
    struct addrinfo *a = resolve(where, error);
    freeaddrinfo(a);
    return a != NULL;
}

static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

/* ---------------------------------------------------------------- pages */

static enum MHD_Result send_page(struct MHD_Connection *connection, unsigned status,
                                 const char *content_type, char *body, size_t size, bool owned)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        size, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (r == NULL) {
        if (owned)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(connection, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *connection, unsigned status,
                                 const char *text)
{
    return send_page(connection, status, "text/plain; charset=utf-8", (char *)text, strlen(text),
                     false);
}

static enum MHD_Result metrics_page(gjkd_http *h, struct MHD_Connection *connection)
{
    gjkd_metrics_figures figures;
    gjkd_service_figures_read(h->service, &figures);
    gjkd_text_buf buf = {0};
    if (!gjkd_metrics_render(gjkd_service_metrics(h->service), &figures, &buf)) {
        free(buf.data);
        return send_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    return send_page(connection, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", buf.data,
                     buf.size, true);
}

/* The reason the daemon is not ready, NULL when it is. */
static const char *not_ready(gjkd_http *h)
{
    gjkd_metrics_figures f;
    gjkd_service_figures_read(h->service, &f);
    if (f.draining)
        return "not ready: draining (shutting down)\n";
    if (!atomic_load(&h->serving))
        return "not ready: the request socket is not bound yet\n";
    if (f.revision == 0)
        return "not ready: no scene loaded (revision 0)\n";
    return NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **state)
{
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)state;
    gjkd_http *h = cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return send_text(connection, MHD_HTTP_METHOD_NOT_ALLOWED,
                         "only GET and HEAD: these pages only read\n");
    if (strcmp(url, "/metrics") == 0)
        return metrics_page(h, connection);
    if (strcmp(url, "/healthz") == 0)
        return send_text(connection, MHD_HTTP_OK, "ok\n");
    if (strcmp(url, "/readyz") == 0) {
        const char *why = not_ready(h);
        return why == NULL ? send_text(connection, MHD_HTTP_OK, "ready\n")
                           : send_text(connection, MHD_HTTP_SERVICE_UNAVAILABLE, why);
    }
    return send_text(connection, MHD_HTTP_NOT_FOUND,
                     "not found: the pages are /metrics, /healthz and /readyz\n");
}

static void on_mhd_log(void *cls, const char *format, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void on_mhd_log(void *cls, const char *format, va_list ap)
{
    (void)cls;
    char line[256];
    vsnprintf(line, sizeof line, format, ap);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    GJKD_LOG(GJKD_LOG_WARN, "http_error", 0, "message=%s", GJKD_Q(line));
}

/* ---------------------------------------------------------------- lifecycle */

static int bind_listen(const struct addrinfo *a, const char *where, gjkd_error *error)
{
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
        gjkd_fail(error, GJKD_CODE(INTERNAL), "http: '%s': socket: %s", where, strerror(errno));
        return -1;
    }
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (a->ai_family == AF_INET6) /* [::] takes IPv4 too where the system allows it */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 64) != 0) {
        gjkd_fail(error, GJKD_CODE(UNAVAILABLE), "http: cannot bind '%s': %s", where,
                  strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

gjkd_http *gjkd_http_start(const char *where, gjkd_service *service, gjkd_error *error)
{
    struct addrinfo *a = resolve(where, error);
    if (a == NULL)
        return NULL;
    bool loopback = is_loopback(a->ai_addr);
    int fd = bind_listen(a, where, error);
    freeaddrinfo(a);
    if (fd < 0)
        return NULL;
    struct sockaddr_storage bound;
    socklen_t len = sizeof bound;
    int port = 0;
    if (getsockname(fd, (struct sockaddr *)&bound, &len) == 0)
        port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                 : ((struct sockaddr_in *)&bound)->sin_port);
    gjkd_http *h = calloc(1, sizeof *h);
    if (h == NULL) {
        close(fd);
        gjkd_fail(error, GJKD_CODE(OUT_OF_MEMORY), "out of memory");
        return NULL;
    }
    h->service = service;
    h->port = port;
    atomic_init(&h->serving, false);
    /* libmicrohttpd's thread must not take the process's signals (main's loop does). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    h->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG,
                                 0, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER,
                                 on_mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10, MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (h->daemon == NULL) {
        close(fd);
        free(h);
        gjkd_fail(error, GJKD_CODE(INTERNAL), "http: libmicrohttpd did not start on '%s'", where);
        return NULL;
    }
    GJKD_LOG(GJKD_LOG_INFO, "http_listening", 0,
             "address=%s port=%d pages=/metrics,/healthz,/readyz", GJKD_Q(where), port);
    if (!loopback)
        GJKD_LOG(GJKD_LOG_INFO, "http_exposed", 0,
                 "address=%s: not loopback; the pages only read (metrics, probes), nothing on "
                 "them changes the daemon",
                 GJKD_Q(where));
    return h;
}

void gjkd_http_set_serving(gjkd_http *http, bool serving)
{
    if (http != NULL)
        atomic_store(&http->serving, serving);
}

int gjkd_http_port(const gjkd_http *http)
{
    return http->port;
}

void gjkd_http_stop(gjkd_http **http)
{
    if (http == NULL || *http == NULL)
        return;
    MHD_stop_daemon((*http)->daemon); /* joins its thread, closes the listening socket */
    free(*http);
    *http = NULL;
}
