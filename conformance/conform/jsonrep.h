/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's JSON report (docs/mpa-conform-json.md), built as a
 * cJSON document while the tests run: the run and the device, the
 * suites, one object per test (its requirements with their catalogue
 * text, its steps and libmpa's findings as mpa-inject reports them),
 * the summary.  The JUnit and HTML reports are made from it.
 */
#ifndef CONFORM_JSONREP_H
#define CONFORM_JSONREP_H

#include <stddef.h>
#include <time.h>

#include <cJSON.h>

#include "play.h"
#include "run.h"
#include "suite.h"
#include "tally.h"


/* The shape of the document (docs/mpa-conform-json.md): 2 added the
 * overview, coverage, broken, device identity and skip causes; reports
 * without the key are shape 1. */
#define JREP_SCHEMA_VERSION 2

/* Adds requirement id to the array arr, once, with its level, clause
 * and text from libmpa's catalogue ("?" and "" when it has none). */
void jrep_add_req(cJSON *arr, const char *id);

/* What the operator says about the run (--device-name, --notes; NULL:
 * not given) and the device's roles tested. */
typedef struct jrep_ident {
    const char *device_name, *notes;
    int want_resp, want_init;
} jrep_ident;

/* The document's head: tool, version, started (t0, UTC), the notes, an
 * empty "overview" (coverage.h fills it), the device (its name, roles,
 * as the player resolved its addresses; caps: --caps), the selection
 * (the -t globs as given), and empty "suites" and "tests" arrays. */
cJSON *jrep_begin(const play_cfg *pc, const player *P, const char *caps, const char *const *selection,
                  unsigned nselection, time_t t0, const jrep_ident *id);

/* A "suites" entry for the suite of T->v[i]: its name, directory, version
 * (the toolkit's: the suites ship with it), the SHA-256 of its files as
 * loaded (every test of the suite in T, by path) and how many of its
 * tests are selected (from i on). */
void jrep_add_suite(cJSON *doc, const conf_tests *T, size_t i);

/* The test object of t: skipped (skip_why, then r is unused) or run (r,
 * played over transport; trace_rel the trace's name relative to the
 * report, NULL when there is none). */
cJSON *jrep_test(const conf_test *t, const run_result *r, const char *transport, const char *skip_why,
                 const char *trace_rel);

/* Test object to after a test whose --after command found the device
 * harmed (exit 1; evidence: its last line): the verdict becomes fail
 * (an error stays one), the reason says so, and "broken" gains
 * MPA-ROBUST-NO-CRASH (how "health", step: after the last). */
void jrep_harmed(cJSON *to, const char *evidence);

/* The same when the --after command itself failed: the test is an error. */
void jrep_after_error(cJSON *to, const char *why);

/* duration_ms and the summary (counts and the exit status); the device's
 * address when only its Initiator side ran (where it connected from) and
 * what it announced at startup (device.announced). */
void jrep_end(cJSON *doc, const conf_tally *c, double total_ms, int exit_status);

/* summary.unreachable.ROLE: why the device did not answer in that role. */
void jrep_unreachable(cJSON *doc, const char *role, const char *why);

/* The document, indented, to path ("-": stdout).  0, or -1 and err. */
int jrep_write(const cJSON *doc, const char *path, char *err, size_t errlen);

#endif
