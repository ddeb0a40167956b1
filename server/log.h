/* log.h — one line per event on stderr: time, level, event, request id, details.
 *
 * The level is checked before anything is formatted (GJKD_LOG), so a disabled debug line
 * costs one atomic load. Lines are written with a single write() each, so lines from
 * different threads never interleave.
 *
 * Details are key=value fields. A value that is not the daemon's own (a name, a path, an
 * error message: anything a client or an operator chose) is always given as GJKD_Q(text), a
 * quoted token ("box \"a\"=1") in which quotes, backslashes, controls and line separators are
 * escaped, so it cannot pass for more fields or lines. The line as a whole is escaped once
 * more when written (C0 and C1 controls, U+2028 / U+2029, invalid UTF-8): one event, one
 * line, whatever the arguments hold. */
#ifndef GJKD_LOG_H
#define GJKD_LOG_H

#include "gjkd_text.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum gjkd_log_level {
    GJKD_LOG_DEBUG = 0,
    GJKD_LOG_INFO = 1,
    GJKD_LOG_WARN = 2,
    GJKD_LOG_ERROR = 3,
} gjkd_log_level;

void gjkd_log_set_level(gjkd_log_level level);
gjkd_log_level gjkd_log_get_level(void);
/* "debug", "info", "warn"/"warning", "error" (case-insensitive); false otherwise. */
bool gjkd_log_parse_level(const char *text, gjkd_log_level *level);
const char *gjkd_log_level_name(gjkd_log_level level);

/* Writes "2026-12-01T07:40:00.123Z INFO  event rid=42 details\n". request_id 0 = none. */
void gjkd_log_write(gjkd_log_level level, const char *event, uint64_t request_id,
                    const char *format, ...) __attribute__((format(printf, 4, 5)));

/* A quoted log value (see the top): a temporary that lives until the end of the enclosing
 * statement block, e.g. GJKD_LOG(..., "name=%s", GJKD_Q(name)). Long values are cut. */
#define GJKD_LOG_QUOTE_BYTES 384
#define GJKD_Q(text) gjkd_quote((char[GJKD_LOG_QUOTE_BYTES]){0}, GJKD_LOG_QUOTE_BYTES, (text))

#define GJKD_LOG(level, event, request_id, ...)                                                    \
    do {                                                                                           \
        if ((level) >= gjkd_log_get_level())                                                       \
            gjkd_log_write((level), (event), (request_id), __VA_ARGS__);                           \
    } while (0)

#endif /* GJKD_LOG_H */
