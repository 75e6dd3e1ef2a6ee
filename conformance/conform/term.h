/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform in the terminal: a line per test as it ends (its verdict,
 * class, id and time; the reason under it when it did not pass), the
 * summary after the last, and where the reports went.
 */
#ifndef CONFORM_TERM_H
#define CONFORM_TERM_H

#include <stdio.h>

#include "tally.h"

/* The test's line: v is a TALLY_ verdict; ms is shown unless it was
 * skipped; reason (NULL: "") is shown unless it passed.  With quiet,
 * only failures and errors are shown. */
void term_test(FILE *f, int v, int mandatory, const char *id, double ms, const char *reason, int quiet);

/* The counts, the verdict on the mandatory tests, and "(interrupted)". */
void term_summary(FILE *f, const conf_tally *c, double total_ms, int interrupted);

/* The three reports written into an --out directory. */
void term_reports(FILE *f, const char *json, const char *junit, const char *html);

#endif
