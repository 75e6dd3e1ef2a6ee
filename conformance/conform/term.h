/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform in the terminal: what is run against what (the device,
 * its roles, the suites), a line per test as it ends (its verdict,
 * class, id and time; under it, when it did not pass, the reason in
 * words and the requirements it shows broken), the summary after the
 * last (the counts, the skipped tests by cause, the MUST and SHOULD
 * requirements failed), and where the reports went.
 */
#ifndef CONFORM_TERM_H
#define CONFORM_TERM_H

#include <stdio.h>

#include <cJSON.h>

#include "tally.h"

/* The head of the run: tool, device (name, address, roles), suites
 * (version, hash), notes; from the JSON report's head. */
void term_head(FILE *f, const cJSON *doc);

/* The test's line from its JSON test object t: v is a TALLY_ verdict;
 * the time is shown unless it was skipped; the reason and the broken
 * requirements unless it passed.  With quiet, only failures and errors
 * are shown. */
void term_test(FILE *f, int v, const cJSON *t, int quiet);

/* The counts, the verdict on the mandatory tests, the skipped tests by
 * cause and the requirements failed (from the finished JSON report),
 * and "(interrupted)". */
void term_summary(FILE *f, const cJSON *doc, const conf_tally *c, double total_ms, int interrupted);

/* The three reports written into an --out directory. */
void term_reports(FILE *f, const char *json, const char *junit, const char *html);

#endif
