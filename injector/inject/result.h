/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report of one run, as mpa-inject and mpa-conform print it: a text
 * block (the verdict line, the step that decided it, the run's
 * particulars, libmpa's findings) and a JSON object (the "runs" items of
 * mpa-inject --json, the base of mpa-conform's test objects).
 */
#ifndef MPA_INJECT_RESULT_H
#define MPA_INJECT_RESULT_H

#include <cJSON.h>
#include <stdio.h>

#include "run.h"
#include "scen.h"

/* "PASS name (file): 1.2 ms" and, unless quiet, the deciding step and
 * the run's particulars. */
void play_print_result(FILE *f, const scenario *s, const run_result *r, const char *transport, int quiet);

/* The run as a JSON object (the "runs" items of mpa-inject --json);
 * the caller owns it. */
cJSON *play_json_result(const scenario *s, const run_result *r, const char *transport);

#endif
