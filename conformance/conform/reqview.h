/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report's requirement views, made from the JSON report's
 * "overview", "device" and "coverage" (docs/mpa-conform-json.md): the
 * one-page summary at the top ("At a glance": the device, its roles,
 * what it announced, the MUST and SHOULD requirements failed, the FYI
 * tests failed, the toolkit's spec coverage figures when the report has
 * them) and the "Requirement coverage" table (each requirement,
 * its level, verdict, tests and why; MUSTs first, as the report orders
 * them).  A report without them (an older mpa-conform) gets a note.
 */
#ifndef CONFORM_REQVIEW_H
#define CONFORM_REQVIEW_H

#include <stdio.h>

#include <cJSON.h>

/* The "At a glance" section. */
void reqview_glance(FILE *o, const cJSON *rep);

/* The "Requirement coverage" section. */
void reqview_coverage(FILE *o, const cJSON *rep);

/* The requirements test t shows broken, each as "evidence: ID" (the
 * tests table and a test's section); nothing when it lists none. */
void reqview_broken(FILE *o, const cJSON *t, int in_table);

#endif
