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

/* Copies src to dst (capacity cap > 0) as one line of valid UTF-8: control characters
 * become \n, \r, \t or \u00XX and bytes outside a well-formed sequence \xXX, so text
 * quoted from the document cannot break the message. Truncates at a whole character. */
void gjkd_copy_escaped(char *dst, size_t cap, const char *src)
{
    size_t len = 0;
    const unsigned char *p = (const unsigned char *)src;
    while (*p != '\0') {
        char esc[8];
        const char *piece = esc;
        size_t n = gjkd_utf8_sequence(p), step = n;
        if (n == 0) {
            snprintf(esc, sizeof esc, "\\x%02X", (unsigned)*p);
            step = 1;
        } else if (*p == '\n') {
            piece = "\\n";
        } else if (*p == '\r') {
            piece = "\\r";
        } else if (*p == '\t') {
            piece = "\\t";
        } else if (*p < 0x20 || *p == 0x7F) {
            snprintf(esc, sizeof esc, "\\u%04X", (unsigned)*p);
        } else {
            piece = NULL;
        }
        size_t m = piece != NULL ? strlen(piece) : n;
        if (len + m >= cap)
            break;
        memcpy(dst + len, piece != NULL ? piece : (const char *)p, m);
        len += m;
        p += step;
    }
    dst[len] = '\0';
}
