/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Labels of the HTML report: a small bounded string builder (what does
 * not fit is dropped, never overrun), and how the page writes numbers
 * and durations.  The text it holds is raw: escape it when writing.
 */
#ifndef CONFORM_SB_H
#define CONFORM_SB_H

#include <stddef.h>

typedef struct sb {
    char b[1024];
    size_t n;
} sb;

/* Appends, printf-style; a full builder stays as it is. */
__attribute__((format(printf, 2, 3))) void sb_add(sb *s, const char *fmt, ...);

/* A space, unless the builder is empty or ends with one. */
void sb_sep(sb *s);

/* A JSON number as written in a label: integers without a fraction. */
void sb_num(sb *s, double d);

/* A duration in milliseconds, in the unit that reads best ("2.50 ms",
 * "12.5 ms", "3.00 s", "10.5 min"), into b (n octets). */
void sb_fmt_ms(char *b, size_t n, double ms);

#endif
