/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing text into the HTML report: every string of the report goes
 * out through html_esc* (the five special characters as references,
 * control characters and octets that are not UTF-8 as U+FFFD), so a
 * report's text can never become markup.  Fit for element text,
 * attribute values and SVG text alike.
 */
#ifndef CONFORM_ESC_H
#define CONFORM_ESC_H

#include <stddef.h>
#include <stdio.h>

/* fprintf for our own markup (never for the report's strings). */
__attribute__((format(printf, 2, 3))) void html_printf(FILE *o, const char *fmt, ...);

/* n octets of s, escaped. */
void html_esc_n(FILE *o, const char *s, size_t n);

/* s, escaped; nothing for NULL. */
void html_esc(FILE *o, const char *s);

/* s (NULL: "") cut to max characters with an ellipsis, escaped; returns
 * 1 when it was cut. */
int html_esc_trunc(FILE *o, const char *s, size_t max);

/* How many of the len octets of s hold at most max characters (UTF-8
 * lead octets are counted). */
size_t html_cp_prefix(const char *s, size_t len, size_t max);

#endif
