/* gjkd_text.h — UTF-8 checks and one-line escaping shared by the JSON codec and the daemon's
 * codec (wire layer: both quote client-supplied names in one-line messages). */
#ifndef GJKD_TEXT_H
#define GJKD_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Length (1-4) of the well-formed UTF-8 sequence starting at s, or 0 if none starts there. */
size_t gjkd_utf8_sequence(const unsigned char *s);
/* True when the NUL-terminated s is valid UTF-8. */
bool gjkd_utf8_valid(const char *s);
/* True when the well-formed sequence at s (of gjkd_utf8_sequence's length) is a control
 * character: C0 (U+0000-U+001F), DEL or C1 (U+0080-U+009F). */
bool gjkd_utf8_is_control(const unsigned char *s);
/* Copies src to dst (capacity cap > 0) as one line of valid UTF-8: control characters become
 * \n, \r, \t or \u00XX, bytes outside a well-formed sequence \xXX. Truncates at a whole
 * character. */
void gjkd_copy_escaped(char *dst, size_t cap, const char *src);

#endif /* GJKD_TEXT_H */
