/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Labels: a bounded string builder and number formats (sb.h). */
#include "sb.h"

#include <stdarg.h>
#include <stdio.h>

void sb_add(sb *s, const char *fmt, ...)
{
    if (s->n >= sizeof s->b - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(s->b + s->n, sizeof s->b - s->n, fmt, ap);
    va_end(ap);
    if (r < 0)
        return;
    s->n += (size_t)r < sizeof s->b - s->n ? (size_t)r : sizeof s->b - 1 - s->n;
}

void sb_sep(sb *s)
{
    if (s->n && s->b[s->n - 1] != ' ')
        sb_add(s, " ");
}

void sb_num(sb *s, double d)
{
    if (d == (double)(long long)d)
        sb_add(s, "%lld", (long long)d);
    else
        sb_add(s, "%g", d);
}

void sb_fmt_ms(char *b, size_t n, double ms)
{
    double a = ms < 0 ? -ms : ms;
    if (a < 10)
        snprintf(b, n, "%.2f ms", ms);
    else if (a < 1000)
        snprintf(b, n, "%.1f ms", ms);
    else if (a < 600000)
        snprintf(b, n, "%.2f s", ms / 1000);
    else
        snprintf(b, n, "%.1f min", ms / 60000);
}
