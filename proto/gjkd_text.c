/* gjkd_text.c — UTF-8 checks and one-line escaping for text that crosses the wire: names in
 * requests and documents, and the messages that quote them (Status.message, JSON errors). */
#include "gjkd_text.h"

#include <stdio.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF), or 0 when s does not start one. s is NUL-terminated. */
size_t gjkd_utf8_sequence(const unsigned char *s)
{
    unsigned char b = s[0];
    if (b < 0x80)
        return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        if (b == 0xE0)
            lo = 0xA0;
        else if (b == 0xED)
            hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    }
    return n;
}

bool gjkd_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        size_t n = gjkd_utf8_sequence(p);
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

bool gjkd_utf8_is_control(const unsigned char *s)
{
    return s[0] < 0x20 || s[0] == 0x7F || (s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F);
}

/* The escape of the character at p (*step bytes), or NULL when it is copied as it is. Escaped:
 * bytes outside a well-formed sequence (\xXX), C0 and C1 controls and DEL (\n, \r, \t or
 * \u00XX), U+2028 and U+2029 (line and paragraph separators: \u2028, \u2029), and with
 * `quoting` the quote and the backslash (\", \\). */
static const char *escape_one(const unsigned char *p, bool quoting, char esc[8], size_t *step)
{
    size_t n = gjkd_utf8_sequence(p);
    *step = n > 0 ? n : 1;
    if (n == 0) {
        snprintf(esc, 8, "\\x%02X", (unsigned)*p);
        return esc;
    }
    if (*p == '\n')
        return "\\n";
    if (*p == '\r')
        return "\\r";
    if (*p == '\t')
        return "\\t";
    if (quoting && *p == '"')
        return "\\\"";
    if (quoting && *p == '\\')
        return "\\\\";
    if (gjkd_utf8_is_control(p)) {
        snprintf(esc, 8, "\\u%04X", n == 1 ? (unsigned)p[0] : (unsigned)p[1]);
        return esc;
    }
    if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
        snprintf(esc, 8, "\\u%04X", 0x2000u + (p[2] & 0x3Fu));
        return esc;
    }
    return NULL;
}

/* Appends the escaped src to dst[*len..cap - reserve), truncating at a whole character. */
static void append_escaped(char *dst, size_t cap, size_t reserve, size_t *len, const char *src,
                           bool quoting)
{
    const unsigned char *p = (const unsigned char *)src;
    while (*p != '\0') {
        char esc[8];
        size_t step;
        const char *piece = escape_one(p, quoting, esc, &step);
        size_t m = piece != NULL ? strlen(piece) : step;
        if (*len + m + reserve >= cap)
            break;
        memcpy(dst + *len, piece != NULL ? piece : (const char *)p, m);
        *len += m;
        p += step;
    }
    dst[*len] = '\0';
}

/* Copies src to dst (capacity cap > 0) as one line of valid UTF-8 (see escape_one), so text
 * quoted from the document cannot break the message. Truncates at a whole character. */
void gjkd_copy_escaped(char *dst, size_t cap, const char *src)
{
    size_t len = 0;
    append_escaped(dst, cap, 0, &len, src, false);
}

const char *gjkd_quote(char *dst, size_t cap, const char *src)
{
    size_t len = 0;
    if (cap < 3) {
        dst[0] = '\0';
        return dst;
    }
    dst[len++] = '"';
    append_escaped(dst, cap, 1, &len, src != NULL ? src : "", true);
    dst[len++] = '"';
    dst[len] = '\0';
    return dst;
}
