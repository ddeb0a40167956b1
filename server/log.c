/* log.c — see log.h. */
#define _POSIX_C_SOURCE 200809L
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_level = GJKD_LOG_INFO;

void gjkd_log_set_level(gjkd_log_level level)
{
    atomic_store(&g_level, (int)level);
}

gjkd_log_level gjkd_log_get_level(void)
{
    return (gjkd_log_level)atomic_load(&g_level);
}

static const char *const k_names[] = {"debug", "info", "warn", "error"};

bool gjkd_log_parse_level(const char *text, gjkd_log_level *level)
{
    for (int i = 0; i < 4; ++i) {
        if (strcasecmp(text, k_names[i]) == 0) {
            *level = (gjkd_log_level)i;
            return true;
        }
    }
    if (strcasecmp(text, "warning") == 0) {
        *level = GJKD_LOG_WARN;
        return true;
    }
    return false;
}

const char *gjkd_log_level_name(gjkd_log_level level)
{
    return (level >= GJKD_LOG_DEBUG && level <= GJKD_LOG_ERROR) ? k_names[level] : "?";
}

void gjkd_log_write(gjkd_log_level level, const char *event, uint64_t request_id,
                    const char *format, ...)
{
    static const char *const upper[] = {"DEBUG", "INFO ", "WARN ", "ERROR"};
    char line[1024];
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    int k = snprintf(line + n, sizeof line - n, ".%03ldZ %s %s", now.tv_nsec / 1000000L,
                     upper[level < 0 || level > 3 ? 3 : level], event);
    n += (size_t)(k > 0 ? k : 0);
    if (request_id != 0 && n < sizeof line) {
        k = snprintf(line + n, sizeof line - n, " rid=%llu", (unsigned long long)request_id);
        n += (size_t)(k > 0 ? k : 0);
    }
    if (format[0] != '\0' && n + 1 < sizeof line) {
        line[n++] = ' ';
        char details[1024];
        va_list ap;
        va_start(ap, format);
        vsnprintf(details, sizeof details, format, ap);
        va_end(ap);
        /* Whatever the arguments hold, the line stays one line (see log.h). */
        gjkd_copy_escaped(line + n, sizeof line - n - 1, details);
        n += strlen(line + n);
    }
    if (n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    ssize_t written = write(STDERR_FILENO, line, n);
    (void)written; /* nowhere to report a failed log write */
}
