/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The top of the HTML report: the title and the result banner (the
 * verdict in one word and one sentence), the run (tool, device, caps,
 * selection, suites), the counts by verdict and class, and the table of
 * every test linking to its section.  The counts are made from the tests
 * listed; a report summary that says otherwise is noted.
 */
#ifndef CONFORM_OVERVIEW_H
#define CONFORM_OVERVIEW_H

#include <stdio.h>

#include <cJSON.h>

#include "check.h"

/* The device as the report names it: its address, else where we
 * listened, else dflt. */
const char *overview_device(const cJSON *rep, const char *dflt);

/* The page's header, the banner and the "Run" section.  tests: the
 * report's tests array, or NULL. */
void overview_header(FILE *o, const cJSON *rep, const cJSON *tests);

/* The "Summary" section; a report summary that differs is noted in ns. */
void overview_summary(FILE *o, const cJSON *rep, const cJSON *tests, notes *ns);

/* The "Tests" section: the filter bar and one row per test. */
void overview_tests(FILE *o, const cJSON *tests);

#endif
