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
/* Copies src to dst (capacity cap > 0) as one line of valid UTF-8: C0 and C1 controls and DEL
 * become \n, \r, \t or \u00XX, U+2028 / U+2029 \u2028 / \u2029, bytes outside a
 * well-formed sequence \xXX. Truncates at a whole character. */
void gjkd_copy_escaped(char *dst, size_t cap, const char *src);
/* Writes src (NULL: "") to dst (capacity cap >= 3) as one quoted token: '"', src escaped as by
 * gjkd_copy_escaped and with \" and \\ for the quote and the backslash, '"'; so a value holding
 * spaces, '=' or quotes cannot pass for more fields. Truncates at a whole character (the
 * closing quote stays). Returns dst. */
const char *gjkd_quote(char *dst, size_t cap, const char *src);

#endif /* GJKD_TEXT_H */
