/* SPDX-License-Identifier: GPL-2.0-or-later */
/* HTML escaping and UTF-8 repair for the report (esc.h). */
#include "esc.h"

#include <stdarg.h>
#include <string.h>

void html_printf(FILE *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o, fmt, ap);
    va_end(ap);
}

/* Length of the valid UTF-8 sequence at s (n octets there), 0 when the
 * octets are not one (overlong forms and surrogates included). */
static size_t u8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] >= 0x90))
        return 0;
    return len;
}

/* The reference for one of the five special characters, else NULL. */
static const char *special(unsigned c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

void html_esc_n(FILE *o, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        const char *rep = special(c);
        if (rep) {
            fputs(rep, o);
            i++;
            continue;
        }
        size_t l = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F ? 0 : u8_len(p + i, n - i);
        if (l == 0) {
            fputs("\xEF\xBF\xBD", o);
            i++;
            continue;
        }
        fwrite(p + i, 1, l, o);
        i += l;
    }
}

void html_esc(FILE *o, const char *s)
{
    if (s)
        html_esc_n(o, s, strlen(s));
}

size_t html_cp_prefix(const char *s, size_t len, size_t max)
{
    size_t cps = 0;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (cps == max)
                return i;
            cps++;
        }
    }
    return len;
}

int html_esc_trunc(FILE *o, const char *s, size_t max)
{
    size_t len = s ? strlen(s) : 0;
    size_t n = html_cp_prefix(s ? s : "", len, max);
    if (n == len) {
        html_esc_n(o, s ? s : "", len);
        return 0;
    }
    n = html_cp_prefix(s, len, max > 1 ? max - 1 : 0);
    html_esc_n(o, s, n);
    fputs("\xE2\x80\xA6", o);
    return 1;
}
