/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ladder (sequence) diagram of one test, as inline SVG: mpa-conform
 * and the device as two lifelines, one row per step (an arrow for what
 * was sent or received, a band for a wait, a crossed box for what never
 * came), the step that decided a fail or an error in red (or the error
 * colour) with the reason in a box under it, the steps that did not run
 * greyed.  Time runs downwards; the margin gives the step and its time.
 */
#ifndef CONFORM_LADDER_H
#define CONFORM_LADDER_H

#include <stdio.h>

#include <cJSON.h>

/* The figure for test: its steps array (nsteps of them), the test's
 * reason (may be NULL) and decided_at_step (0: none; then the first step
 * that failed is the deciding one).  At most 400 steps are drawn (the
 * caption says so). */
void ladder_put(FILE *o, const cJSON *test, const cJSON *steps, int nsteps, const char *reason, int decided);

#endif
